//! Assignments end to end: 30 students get 30 variants with no two alike, the key grades itself
//! full marks, a wrong answer loses its point with feedback naming its question, every variant's
//! numbers of a class of 30 are recomputed from its questions.json alone with the textbook formulas written here
//! (not the library's), and every reader (roster, answers, key) refuses bad input by name.

mod common;

use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;

use proptest::prelude::*;
use ranklens::classroom::{self, Answers, Key, parse_answer_file, parse_answers_csv, parse_roster};
use ranklens::corpus::{self, LoadOptions};
use ranklens::progress::NoProgress;
use ranklens::workbench::Workbench;
use serde_json::Value;

fn cases() -> u32 {
    common::proptest_cases()
}

fn sample() -> Workbench {
    let dir = ranklens::sample::acme_sync().unwrap();
    Workbench::new(corpus::load(&dir, LoadOptions::default()).unwrap())
}

fn roster(n: usize) -> Vec<String> {
    (1..=n).map(|i| format!("Student {i:02}")).collect()
}

/// The key's own answers, as a student would hand them in.
fn answers_from_key(key: &Key) -> Answers {
    let mut a = Answers::default();
    for (s, qs) in &key.students {
        let m = qs
            .iter()
            .map(|(q, e)| (q.clone(), (serde_json::to_value(&e.solution.answer).unwrap(), format!("{s}.json"))))
            .collect();
        a.students.insert(s.clone(), m);
    }
    a
}

#[test]
fn thirty_students_get_thirty_variants_and_the_key_grades_itself_full_marks() {
    let engine = sample_with_models();
    for lesson in ranklens::lessons::with_assignments().map(|(l, _)| l.id).filter(|l| *l != "dense") {
        let made = ranklens::classroom::make_assignment(lesson, &roster(30), 42, &engine, &NoProgress).unwrap();
        assert_eq!(made.sheets.len(), 30, "{lesson}");
        // No two students share the data of any question.
        let ids: BTreeSet<&str> = made.sheets[0].questions.iter().map(|c| c.question.id.as_str()).collect();
        assert!(ids.len() >= 4, "{lesson}: {ids:?}");
        for id in &ids {
            let datas: BTreeSet<String> = made
                .sheets
                .iter()
                .map(|s| s.questions.iter().find(|c| c.question.id == *id).unwrap().question.data.to_string())
                .collect();
            assert_eq!(datas.len(), 30, "{lesson} {id}: some students share data");
        }
        // The same seed gives the same assignment; another seed another one.
        assert_eq!(ranklens::classroom::make_assignment(lesson, &roster(30), 42, &engine, &NoProgress).unwrap(), made);
        assert_ne!(
            ranklens::classroom::make_assignment(lesson, &roster(30), 43, &engine, &NoProgress).unwrap().sheets,
            made.sheets
        );
        // Adding a student changes nobody else's variant.
        let more = ranklens::classroom::make_assignment(lesson, &roster(31), 42, &engine, &NoProgress).unwrap();
        assert_eq!(more.sheets[..30], made.sheets[..], "{lesson}");

        let key = made.key();
        let book = classroom::grade(&key, &answers_from_key(&key)).unwrap();
        assert_eq!(book.students.len(), 30);
        for g in &book.students {
            assert_eq!((g.score, g.max), (g.max, ids.len() as u32), "{lesson} {}: {:?}", g.student, g.feedback);
            assert!(g.feedback.is_empty());
        }
    }
}

#[test]
fn a_wrong_answer_loses_its_point_and_its_feedback_names_the_question_and_the_mistake() {
    let made = ranklens::classroom::make_assignment("bm25", &roster(3), 5, &sample(), &NoProgress).unwrap();
    let key = made.key();
    let mut answers = answers_from_key(&key);
    let student = "Student 02";
    let entry = &key.students[student]["q2"];
    // The value a student gets with BM25's k1 + 1 numerator (the Okapi form): named.
    let okapi =
        entry.solution.mistakes.iter().find(|m| m.name.starts_with("k1 + 1")).expect("the Okapi mistake is listed");
    let mine = answers.students.get_mut(student).unwrap();
    mine.insert("q2".into(), (Value::from(okapi.value), "x".into()));
    // A choice that is wrong: another option.
    let q4 = &key.students[student]["q4"];
    let right = q4.solution.answer.to_text();
    let wrong = q4.question.options.iter().find(|o| **o != right).unwrap().clone();
    mine.insert("q4".into(), (Value::from(wrong.clone()), "x".into()));
    // A number given as text with a decimal comma is read as the number.
    let q1 = match &key.students[student]["q1"].solution.answer {
        ranklens::lessons::checkpoint::Answer::Number(x) => *x,
        other => panic!("{other:?}"),
    };
    mine.insert("q1".into(), (Value::from(format!("{q1:.4}").replace('.', ",")), "x".into()));
    let book = classroom::grade(&key, &answers).unwrap();
    let g = book.students.iter().find(|g| g.student == student).unwrap();
    assert_eq!((g.score, g.max), (3, 5), "{:?}", g.feedback);
    let questions: Vec<&str> = g.feedback.iter().map(|f| f.question.as_str()).collect();
    assert_eq!(questions, ["q2", "q4"]);
    assert!(g.feedback[0].message.contains("k1 + 1 in the numerator"), "{}", g.feedback[0].message);
    assert!(g.feedback[1].message.contains(&format!("Not {wrong}")), "{}", g.feedback[1].message);
    // Everyone else is untouched.
    assert!(book.students.iter().filter(|g| g.student != student).all(|g| g.score == g.max));
}

// ---- One variant recomputed from its questions.json alone, with the textbook formulas ----------

fn num(v: &Value, k: &str) -> f64 {
    v[k].as_f64().unwrap_or_else(|| panic!("{k} in {v}"))
}

/// Lucene's BM25 idf and tf part, from Robertson & Zaragoza (2009) and Lucene's BM25Similarity
/// documentation, written out here.
fn bm25(tf: f64, df: f64, n: f64, dl: f64, avgdl: f64, k1: f64, b: f64) -> f64 {
    let idf = (1.0 + (n - df + 0.5) / (df + 0.5)).ln();
    idf * tf / (tf + k1 * (1.0 - b + b * dl / avgdl))
}

fn key_number(key: &Key, student: &str, q: &str) -> f64 {
    match &key.students[student][q].solution.answer {
        ranklens::lessons::checkpoint::Answer::Number(x) => *x,
        other => panic!("{other:?}"),
    }
}

fn key_text(key: &Key, student: &str, q: &str) -> String {
    key.students[student][q].solution.answer.to_text()
}

/// An assignment of `lesson` for Grace Hopper and 29 classmates (seed 11), written to `dir` and
/// read back: the key, and every student's `questions.json` — what the tests recompute the key
/// from, student by student.
/// The seeds every class is drawn with: each lesson's keys are recomputed for 30 students at each.
const SEEDS: [u64; 3] = [11, 2026, 0x5eed];

fn written(lesson: &str, seed: u64, dir: &Path) -> (Key, Vec<(String, Value)>) {
    let mut class = vec!["Grace Hopper".to_string()];
    class.extend(roster(29));
    let made = ranklens::classroom::make_assignment(lesson, &class, seed, &sample(), &NoProgress).unwrap();
    made.write(dir).unwrap();
    let key = Key::read(&dir.join("key.json")).unwrap();
    let mut all = Vec::new();
    for student in &class {
        let q: Value =
            serde_json::from_slice(&std::fs::read(dir.join(student).join("questions.json")).unwrap()).unwrap();
        assert_eq!(q["student"], student.as_str());
        assert_eq!(q["lesson"], lesson);
        // What the student gets holds no answer.
        let text = q.to_string();
        assert!(!text.contains("\"answer\"") && !text.contains("\"steps\"") && !text.contains("mistakes"), "{text}");
        let html = std::fs::read_to_string(dir.join(student).join("handout.html")).unwrap();
        // Self-contained: nothing loaded from the network.
        for needle in ["src=\"http", "href=\"http", "@import", "url("] {
            assert!(!html.contains(needle), "{needle}");
        }
        for c in q["questions"].as_array().unwrap() {
            assert!(html.contains(c["id"].as_str().unwrap()));
        }
        all.push((student.clone(), q));
    }
    (key, all)
}

fn question<'a>(q: &'a Value, id: &str) -> &'a Value {
    q["questions"].as_array().unwrap().iter().find(|c| c["id"] == id).unwrap()
}

#[test]
fn every_bm25_variant_of_a_class_recomputed_from_its_questions_by_hand_gives_the_key() {
    for seed in SEEDS {
        let dir = tempfile::tempdir().unwrap();
        let (key, all) = written("bm25", seed, dir.path());
        for (s, q) in &all {
            let s = s.as_str();
            let d1 = &question(q, "q1")["data"];
            let idf = (1.0 + (num(d1, "N") - num(d1, "n") + 0.5) / (num(d1, "n") + 0.5)).ln();
            assert!((idf - key_number(&key, s, "q1")).abs() < 1e-9);
            let d = &question(q, "q2")["data"];
            let v =
                bm25(num(d, "tf"), num(d, "n"), num(d, "N"), num(d, "dl"), num(d, "avgdl"), num(d, "k1"), num(d, "b"));
            assert!((v - key_number(&key, s, "q2")).abs() < 1e-9, "{v}");
            let d = &question(q, "q3")["data"];
            let (from, to) = (&d["from"], &d["to"]);
            let gain = |t: &Value| {
                let part = |p: &Value| {
                    bm25(
                        num(t, "tf"),
                        num(t, "n"),
                        num(d, "N"),
                        num(d, "dl"),
                        num(d, "avgdl"),
                        num(p, "k1"),
                        num(p, "b"),
                    )
                };
                part(to) - part(from)
            };
            let best = d["terms"].as_array().unwrap().iter().max_by(|a, b| gain(a).total_cmp(&gain(b))).unwrap();
            assert_eq!(best["term"].as_str().unwrap(), key_text(&key, s, "q3"));
            let d = &question(q, "q4")["data"];
            let words: Vec<&str> = d["question"].as_str().unwrap().split_whitespace().collect();
            let score = |p: &Value| -> f64 {
                let dl = num(p, "dl");
                words
                    .iter()
                    .filter_map(|w| p["terms"].get(*w))
                    .map(|t| {
                        bm25(num(t, "tf"), num(t, "df"), num(d, "N"), dl, num(d, "avgdl"), num(d, "k1"), num(d, "b"))
                    })
                    .sum()
            };
            let best = d["passages"].as_array().unwrap().iter().max_by(|a, b| score(a).total_cmp(&score(b))).unwrap();
            assert_eq!(best["id"].as_str().unwrap(), key_text(&key, s, "q4"));
        }
    }
}

#[test]
fn every_tfidf_variant_of_a_class_recomputed_from_its_questions_by_hand_gives_the_key() {
    for seed in SEEDS {
        let dir = tempfile::tempdir().unwrap();
        let (key, all) = written("tfidf", seed, dir.path());
        for (s, q) in &all {
            let s = s.as_str();
            let d = &question(q, "q1")["data"];
            assert!(((num(d, "N") / num(d, "df")).log2() - key_number(&key, s, "q1")).abs() < 1e-9);
            let d = &question(q, "q2")["data"];
            assert!((num(d, "tf") * (num(d, "N") / num(d, "df")).log2() - key_number(&key, s, "q2")).abs() < 1e-9);
            // Cosine of raw-tf × log2(N/df) vectors (Manning, Raghavan & Schütze, ch. 6).
            let cosine = |qt: &Value, dt: &Value, n: f64| {
                let w = |t: &Value| num(t, "tf") * (n / num(t, "df")).log2();
                let norm = |m: &Value| m.as_object().unwrap().values().map(|t| w(t).powi(2)).sum::<f64>().sqrt();
                let dot: f64 = qt.as_object().unwrap().iter().filter_map(|(k, t)| dt.get(k).map(|u| w(t) * w(u))).sum();
                if norm(qt) * norm(dt) > 0.0 { dot / (norm(qt) * norm(dt)) } else { 0.0 }
            };
            let d = &question(q, "q3")["data"];
            let c = cosine(&d["question"], &d["passage_terms"], num(d, "N"));
            assert!((c - key_number(&key, s, "q3")).abs() < 1e-9, "{c}");
            let d = &question(q, "q4")["data"];
            let best = d["passages"]
                .as_array()
                .unwrap()
                .iter()
                .max_by(|a, b| {
                    cosine(&d["question_terms"], &a["terms"], num(d, "N")).total_cmp(&cosine(
                        &d["question_terms"],
                        &b["terms"],
                        num(d, "N"),
                    ))
                })
                .unwrap();
            assert_eq!(best["id"].as_str().unwrap(), key_text(&key, s, "q4"));
        }
    }
}

#[test]
fn every_metrics_variant_of_a_class_recomputed_from_its_questions_by_hand_gives_the_key() {
    for seed in SEEDS {
        let dir = tempfile::tempdir().unwrap();
        let (key, all) = written("metrics", seed, dir.path());
        for (s, q) in &all {
            let s = s.as_str();
            let d = &question(q, "q1")["data"];
            let ranking: Vec<&str> = d["ranking"].as_array().unwrap().iter().map(|x| x.as_str().unwrap()).collect();
            let grades: BTreeMap<&str, f64> =
                d["judgements"].as_object().unwrap().iter().map(|(k, v)| (k.as_str(), v.as_f64().unwrap())).collect();
            let g = |x: &str| grades.get(x).copied().unwrap_or(0.0);
            let relevant = grades.values().filter(|&&x| x >= 1.0).count() as f64;
            let prompt = question(q, "q1")["prompt"].as_str().unwrap();
            let k: usize = if prompt.contains("precision at 3") { 3 } else { 5 };
            let p = ranking.iter().take(k).filter(|x| g(x) >= 1.0).count() as f64 / k as f64;
            assert!((p - key_number(&key, s, "q1")).abs() < 1e-9);
            let r = ranking.iter().take(10).filter(|x| g(x) >= 1.0).count() as f64 / relevant;
            assert!((r - key_number(&key, s, "q2")).abs() < 1e-9);
            let mut found = 0.0;
            let mut sum = 0.0;
            for (i, x) in ranking.iter().enumerate() {
                if g(x) >= 1.0 {
                    found += 1.0;
                    sum += found / (i + 1) as f64;
                }
            }
            assert!((sum / relevant - key_number(&key, s, "q3")).abs() < 1e-9);
            let dcg: f64 = ranking.iter().take(10).enumerate().map(|(i, x)| g(x) / ((i + 2) as f64).log2()).sum();
            let mut ideal: Vec<f64> = grades.values().copied().filter(|&x| x > 0.0).collect();
            ideal.sort_by(|a, b| b.total_cmp(a));
            let idcg: f64 = ideal.iter().take(10).enumerate().map(|(i, x)| x / ((i + 2) as f64).log2()).sum();
            assert!((dcg / idcg - key_number(&key, s, "q4")).abs() < 1e-9);
        }
    }
}

#[test]
fn every_index_variant_of_a_class_recomputed_from_its_passages_gives_the_key() {
    for seed in SEEDS {
        let dir = tempfile::tempdir().unwrap();
        let (key, all) = written("index", seed, dir.path());
        for (s, q) in &all {
            let s = s.as_str();
            let d = &question(q, "q1")["data"];
            let passages: Vec<(String, BTreeSet<String>)> = d["passages, in index order"]
                .as_array()
                .unwrap()
                .iter()
                .map(|p| {
                    (
                        p["id"].as_str().unwrap().to_string(),
                        p["terms"].as_str().unwrap().split(' ').map(String::from).collect(),
                    )
                })
                .collect();
            let holding = |t: &str| {
                passages.iter().filter(|(_, ts)| ts.contains(t)).map(|(id, _)| id.clone()).collect::<Vec<_>>()
            };
            let t1 = d["question"].as_str().unwrap();
            assert_eq!(holding(t1).len() as f64, key_number(&key, s, "q1"));
            let t2 = question(q, "q2")["data"]["question"].as_str().unwrap();
            assert_eq!(holding(t2).join(", "), key_text(&key, s, "q2"));
            let and = question(q, "q3")["data"]["question"].as_str().unwrap().to_string();
            let (a, c) = and.split_once(" AND ").unwrap();
            let both = holding(a).into_iter().filter(|x| holding(c).contains(x)).count();
            assert_eq!(both as f64, key_number(&key, s, "q3"));
            let either: BTreeSet<String> = holding(a).into_iter().chain(holding(c)).collect();
            assert_eq!(either.len() as f64, key_number(&key, s, "q4"));
        }
    }
}

#[test]
fn every_reader_variant_of_a_class_recomputed_from_its_scores_by_hand_gives_the_key() {
    for seed in SEEDS {
        let dir = tempfile::tempdir().unwrap();
        let (key, all) = written("reader", seed, dir.path());
        for (s, q) in &all {
            let s = s.as_str();
            let d = &question(q, "q1")["data"];
            let words: Vec<(String, f64, f64)> = rows(d, "words")
                .iter()
                .map(|w| (w["token"].as_str().unwrap().to_string(), num(w, "start"), num(w, "end")))
                .collect();
            let (cls_start, cls_end) = (num(d, "cls_start"), num(d, "cls_end"));
            // q1: the span the prompt quotes, found among the words; its score is S of the first + E of the last.
            let prompt = question(q, "q1")["prompt"].as_str().unwrap();
            let quoted = prompt.split('"').nth(1).unwrap();
            let n = quoted.split(' ').count();
            let by_hand: Vec<f64> = (0..=words.len() - n)
                .filter(|&i| words[i..i + n].iter().map(|w| w.0.as_str()).collect::<Vec<_>>().join(" ") == quoted)
                .map(|i| words[i].1 + words[i + n - 1].2)
                .collect();
            assert_eq!(by_hand.len(), 1, "{s} q1: the span {quoted:?} must stand once in the passage");
            assert!((key_number(&key, s, "q1") - by_hand[0]).abs() < 1e-9, "{s} q1");
            // The best span, by every i <= j: the passage's answer unless [CLS]'s start + end beats it.
            let mut best = (f64::MIN, 0, 0);
            for i in 0..words.len() {
                for j in i..words.len() {
                    if words[i].1 + words[j].2 > best.0 {
                        best = (words[i].1 + words[j].2, i, j);
                    }
                }
            }
            let span = words[best.1..=best.2].iter().map(|w| w.0.as_str()).collect::<Vec<_>>().join(" ");
            let alone = if best.0 > cls_start + cls_end { span.clone() } else { "no answer".to_string() };
            assert_eq!(key_text(&key, s, "q2"), alone, "{s} q2");
            // q4: e^S of the best span's first word over e^S of [CLS] and of every word.
            let q4 = question(q, "q4")["prompt"].as_str().unwrap();
            assert!(q4.contains(&format!("\"{}\" (word {} of", words[best.1].0, best.1 + 1)), "{s} q4: {q4}");
            let total: f64 = std::iter::once(cls_start).chain(words.iter().map(|w| w.1)).map(f64::exp).sum();
            let by_hand = words[best.1].1.exp() / total;
            assert!((key_number(&key, s, "q4") - by_hand).abs() < 1e-9, "{s} q4");
        }
    }
}

// ---- Bad input: errors that name the file, the line and the field ------------------------------

#[test]
fn bad_rosters_answers_and_keys_are_refused_by_name() {
    let e = |r: ranklens::Result<Vec<String>>| r.unwrap_err().to_string();
    assert!(e(parse_roster(b"Ada\nBob\nAda\n", "roster.csv")).contains("roster.csv:3"));
    assert!(e(parse_roster(b"Ada\n\"\",x\n", "roster.csv")).contains("roster.csv:2"));
    assert!(e(parse_roster(b"", "roster.csv")).contains("no student"));
    let engine = sample();
    let err =
        ranklens::classroom::make_assignment("bogus", &roster(2), 1, &engine, &NoProgress).unwrap_err().to_string();
    assert!(err.contains("bogus") && err.contains("tfidf"), "{err}");

    let made = ranklens::classroom::make_assignment("tfidf", &roster(2), 1, &engine, &NoProgress).unwrap();
    let key = made.key();
    let good = answers_from_key(&key);
    // An unknown question id: named with its file, and the class (that student too) graded.
    let mut a = good.clone();
    a.students.get_mut("Student 01").unwrap().insert("q9".into(), (Value::from(1.0), "Student 01.json".into()));
    let book = classroom::grade(&key, &a).unwrap();
    assert_eq!(book.unread.len(), 1);
    assert!(book.unread[0].at == "Student 01.json" && book.unread[0].why.contains("\"q9\""), "{:?}", book.unread);
    assert!(book.students.iter().all(|g| g.absent.is_none() && g.score == g.max), "{:?}", book.students);
    // Text where a number belongs: that answer is not graded, named by its line; the class is.
    let mut a = good.clone();
    a.students.get_mut("Student 01").unwrap().insert("q1".into(), (Value::from("two"), "answers.csv:3".into()));
    let book = classroom::grade(&key, &a).unwrap();
    let why = &book.not_graded[0].why;
    assert!(why.contains("answers.csv:3") && why.contains("q1") && why.contains("number"), "{why}");
    assert_eq!(book.students.iter().find(|g| g.student == "Student 02").map(|g| g.score), Some(5));
    // A missing student: their row says so (no score), the other is graded, and it needs a look.
    let mut a = good.clone();
    a.students.remove("Student 02");
    let book = classroom::grade(&key, &a).unwrap();
    let absent = book.students.iter().find(|g| g.student == "Student 02").unwrap();
    assert_eq!(absent.absent.as_deref(), Some("no answers handed in"));
    assert!(book.to_csv().contains("\nStudent 02,,5,all: not graded: no answers handed in\n"), "{}", book.to_csv());
    assert_eq!(book.students.iter().find(|g| g.student == "Student 01").map(|g| g.score), Some(5));
    assert!(book.needs_a_look().contains("answers (Student 02): no answers handed in"), "{}", book.needs_a_look());
    // A student not in the key: named, the two of the key graded.
    let mut a = good.clone();
    a.students.insert("Mallory".into(), BTreeMap::new());
    let book = classroom::grade(&key, &a).unwrap();
    assert!(book.unread.iter().any(|u| u.student.as_deref() == Some("Mallory")));
    assert_eq!(book.students.iter().map(|g| g.score).collect::<Vec<_>>(), [5, 5]);
    // An edited key.
    let original = serde_json::to_string(&key).unwrap();
    let v = key_number(&key, "Student 01", "q1");
    let text = original.replacen(&serde_json::to_string(&v).unwrap(), &serde_json::to_string(&(v + 1.0)).unwrap(), 1);
    assert_ne!(text, original);
    let err = Key::parse(text.as_bytes(), "key.json").unwrap_err().to_string();
    assert!(err.contains("key.json") && err.contains("checksum"), "{err}");
    // Answers as CSV: a row with two fields names its line; a duplicate answer too.
    let at = |b: &[u8]| parse_answers_csv(b, "a.csv").unwrap().unread.iter().map(|u| u.at.clone()).collect::<Vec<_>>();
    assert_eq!(at(b"student,question,answer\nAda,q1\n"), ["a.csv:2"]);
    assert_eq!(at(b"Ada,q1,1\nAda,q1,2\n"), ["a.csv:2"]);
    assert!(parse_answer_file(b"{\"answers\": 3}", "Ada.json").unwrap_err().to_string().contains("Ada.json"));
}

#[test]
fn the_cli_writes_an_assignment_and_grades_a_csv_of_answers() {
    let dir = tempfile::tempdir().unwrap();
    let roster = dir.path().join("roster.csv");
    std::fs::write(&roster, "name,email\nAda,a@x\nBob,b@x\n").unwrap();
    let out = dir.path().join("out");
    let run = |args: &[&str]| std::process::Command::new(env!("CARGO_BIN_EXE_ranklens")).args(args).output().unwrap();
    let o = run(&[
        "assignment",
        "new",
        "--lesson",
        "metrics",
        "--roster",
        roster.to_str().unwrap(),
        "--seed",
        "3",
        "--out",
        out.to_str().unwrap(),
    ]);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    for f in ["Ada/questions.json", "Ada/handout.html", "Bob/questions.json", "Bob/handout.html", "key.json"] {
        assert!(out.join(f).is_file(), "{f}");
    }
    let key = Key::read(&out.join("key.json")).unwrap();
    let mut csv = String::from("student,question,answer\n");
    for (s, qs) in &key.students {
        for (q, e) in qs {
            let a = if s == "Bob" && q == "q4" { "0.0001".to_string() } else { e.solution.answer.to_text() };
            csv.push_str(&format!("{s},{q},{a}\n"));
        }
    }
    let answers = dir.path().join("answers.csv");
    std::fs::write(&answers, csv).unwrap();
    let o = run(&[
        "assignment",
        "grade",
        "--key",
        out.join("key.json").to_str().unwrap(),
        "--answers",
        answers.to_str().unwrap(),
        "--format",
        "json",
    ]);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let book: Value = serde_json::from_slice(&o.stdout).unwrap();
    assert_eq!(book["students"][0]["student"], "Ada");
    assert_eq!(book["students"][0]["score"], 4);
    assert_eq!(book["students"][1]["score"], 3);
    assert_eq!(book["students"][1]["feedback"][0]["question"], "q4");
    // An edited key stops the grader with exit code 2, naming the file.
    let k = std::fs::read_to_string(out.join("key.json")).unwrap().replacen("\"seed\": 3", "\"seed\": 4", 1);
    std::fs::write(out.join("key.json"), k).unwrap();
    let o = run(&[
        "assignment",
        "grade",
        "--key",
        out.join("key.json").to_str().unwrap(),
        "--answers",
        answers.to_str().unwrap(),
    ]);
    assert_eq!(o.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&o.stderr).contains("checksum"));
}

// ---- Properties ---------------------------------------------------------------------------------

fn name() -> impl Strategy<Value = String> {
    "[A-Za-zÀ-ÿ][A-Za-zÀ-ÿ ,'-]{0,20}[A-Za-z]".prop_filter("not a header word", |s| {
        !matches!(s.to_lowercase().as_str(), "name" | "student" | "students" | "student name" | "full name")
    })
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(cases()))]

    /// Any bytes: a roster, an answer file, a CSV of answers or a key is read or refused, never a
    /// panic.
    #[test]
    fn readers_never_panic(bytes in proptest::collection::vec(any::<u8>(), 0..300)) {
        if let Err(e) = parse_roster(&bytes, "r.csv") {
            prop_assert!(e.to_string().contains("r.csv"), "{}", e);
        }
        if let Err(e) = parse_answer_file(&bytes, "a.json") {
            prop_assert!(e.to_string().contains("a.json"), "{}", e);
        }
        if let Err(e) = parse_answers_csv(&bytes, "a.csv") {
            prop_assert!(e.to_string().contains("a.csv"), "{}", e);
        }
        prop_assert!(Key::parse(&bytes, "key.json").is_err());
    }

    /// A roster written as CSV (with or without a header, any names a folder can take) reads back
    /// the same names in the same order.
    #[test]
    fn a_roster_round_trips(names in proptest::collection::btree_set(name(), 1..12), header in any::<bool>()) {
        let mut seen = BTreeSet::new();
        let names: Vec<String> = names.into_iter().filter(|n| seen.insert(n.to_lowercase())).collect();
        let mut w = csv::Writer::from_writer(Vec::new());
        if header {
            w.write_record(["name", "email"]).unwrap();
        }
        for n in &names {
            w.write_record([n.as_str(), "x@y"]).unwrap();
        }
        let bytes = w.into_inner().unwrap();
        prop_assert_eq!(parse_roster(&bytes, "r.csv").unwrap(), names);
    }

    /// Answers written as a student's JSON file and as CSV read back the same.
    #[test]
    fn answers_round_trip(answers in proptest::collection::btree_map("q[0-9]{1,2}", prop_oneof![
        (-1e6f64..1e6).prop_map(Value::from),
        "[a-z0-9 ,.-]{1,12}".prop_map(|s| Value::from(s.trim().to_string())).prop_filter("not empty", |v| !v.as_str().unwrap_or("").is_empty()),
    ], 0..8)) {
        let file = serde_json::to_vec(&serde_json::json!({"answers": answers})).unwrap();
        let read = parse_answer_file(&file, "s.json").unwrap();
        let back: BTreeMap<String, Value> = read.into_iter().map(|(q, (v, _))| (q, v)).collect();
        prop_assert_eq!(&back, &answers);
        let mut w = csv::Writer::from_writer(Vec::new());
        w.write_record(["student", "question", "answer"]).unwrap();
        for (q, v) in &answers {
            let text = v.as_str().map_or_else(|| v.to_string(), str::to_string);
            w.write_record(["Ada", q.as_str(), text.as_str()]).unwrap();
        }
        let bytes = w.into_inner().unwrap();
        match parse_answers_csv(&bytes, "a.csv") {
            Ok(a) => {
                let got: BTreeMap<String, String> = a.students["Ada"].iter().map(|(q, (v, _))| (q.clone(), v.as_str().unwrap_or("").to_string())).collect();
                let want: BTreeMap<String, String> = answers.iter().map(|(q, v)| (q.clone(), v.as_str().map_or_else(|| v.to_string(), str::to_string))).collect();
                prop_assert_eq!(got, want);
            }
            Err(e) => prop_assert!(answers.is_empty() && e.to_string().contains("no answers")),
        }
    }

    /// A key written and read back is the same key; any answer changed in it is caught by the
    /// checksum; grading any answers against it is a gradebook or an error, never a panic.
    #[test]
    fn keys_round_trip_and_catch_edits(
        seed in any::<u64>(), bump in 0.01f64..100.0, far in -10.0f64..10.0, near in proptest::option::of(-3.0f64..3.0),
    ) {
        let key = small_key(seed);
        let text = serde_json::to_vec(&key).unwrap();
        prop_assert_eq!(&Key::parse(&text, "k.json").unwrap(), &key);
        let mut edited = key.clone();
        if let Some(e) = edited.students.get_mut("Ada").and_then(|q| q.get_mut("q1")) {
            e.question.tolerance += bump;
        }
        prop_assert!(Key::parse(&serde_json::to_vec(&edited).unwrap(), "k.json").is_err());
        let c = &key.students["Ada"]["q1"];
        let ranklens::lessons::checkpoint::Answer::Number(want) = c.solution.answer else {
            return Err(proptest::test_runner::TestCaseError::fail("the idf key is a number"));
        };
        // Anywhere, or within three tolerances of the key (where right turns to wrong).
        let given = near.map_or(far, |t| want + t * c.question.tolerance);
        let mut a = Answers::default();
        a.students.insert("Ada".into(), [("q1".to_string(), (Value::from(given), "a".to_string()))].into());
        let book = classroom::grade(&key, &a).unwrap();
        prop_assert_eq!(book.students[0].max, 1);
        // Right exactly when the number is within the stated tolerance of the key's.
        let right = (given - want).abs() <= c.question.tolerance;
        prop_assert_eq!(book.students[0].score, u32::from(right), "given {} key {} ± {}", given, want, c.question.tolerance);
    }
}

/// A one-student, one-question key made by the library from a seed.
fn small_key(seed: u64) -> Key {
    use ranklens::lessons::exercises;
    let n = 10 + seed % 1000;
    let df = 1 + seed % n;
    let c = exercises::bm25_idf("q1", "term", n, df);
    let students: BTreeMap<String, BTreeMap<String, ranklens::lessons::checkpoint::Checkpoint>> =
        [("Ada".to_string(), [("q1".to_string(), c)].into())].into();
    let checksum = Key::compute_checksum("bm25", seed, &students);
    Key { lesson: "bm25".into(), seed, students, checksum }
}

/// The class report counts a planted set of mistakes exactly. The wrong answers are worked by hand
/// from each student's questions (the data they were given), with the step done wrong: log10 for
/// ln in the idf, the RSJ idf without its 1 +, BM25 with Okapi's k1 + 1 in the numerator; one
/// wrong number no mistake explains, one question left blank.
#[test]
fn the_class_report_counts_a_planted_set_of_mistakes_exactly() {
    let names = roster(8);
    let made = ranklens::classroom::make_assignment("bm25", &names, 3, &sample(), &NoProgress).unwrap();
    let key = made.key();
    let mut answers = answers_from_key(&key);
    let data = |student: &str, q: &str| -> Value {
        let sheet = made.sheets.iter().find(|s| s.student == student).unwrap();
        let questions = made.questions(sheet);
        serde_json::to_value(&questions.questions.iter().find(|x| x.id == q).unwrap().data).unwrap()
    };
    let mut plant = |student: &str, q: &str, v: Option<f64>| {
        let mine = answers.students.get_mut(student).unwrap();
        match v {
            Some(v) => mine.insert(q.to_string(), (Value::from(format!("{v:.4}")), "hand".into())),
            None => mine.remove(q),
        };
    };
    let log10_idf = |d: &Value| (1.0 + (num(d, "N") - num(d, "n") + 0.5) / (num(d, "n") + 0.5)).log10();
    let rsj_idf = |d: &Value| ((num(d, "N") - num(d, "n") + 0.5) / (num(d, "n") + 0.5)).ln();
    let okapi = |d: &Value| {
        let (k1, tf) = (num(d, "k1"), num(d, "tf"));
        bm25(tf, num(d, "n"), num(d, "N"), num(d, "dl"), num(d, "avgdl"), k1, num(d, "b")) * (k1 + 1.0)
    };
    for s in ["Student 01", "Student 02"] {
        plant(s, "q1", Some(log10_idf(&data(s, "q1"))));
    }
    plant("Student 03", "q1", Some(rsj_idf(&data("Student 03", "q1"))));
    for s in ["Student 01", "Student 04", "Student 05", "Student 06"] {
        plant(s, "q2", Some(okapi(&data(s, "q2"))));
    }
    plant("Student 07", "q2", Some(123.456));
    plant("Student 08", "q1", None);
    let report = classroom::class_report(&key, &answers).unwrap();
    let q = |id: &str| report.questions.iter().find(|q| q.id == id).unwrap();
    let (q1, q2) = (q("q1"), q("q2"));
    assert_eq!((q1.right, q1.answered, q1.students), (4, 7, 8));
    let named = |q: &classroom::QuestionReport| -> Vec<(String, usize, Vec<String>)> {
        q.mistakes.iter().map(|m| (m.name.clone(), m.count, m.students.clone())).collect()
    };
    assert_eq!(
        named(q1),
        [
            ("log10 instead of ln".to_string(), 2, vec!["Student 01".to_string(), "Student 02".into()]),
            ("no 1 + inside the logarithm (the RSJ idf)".to_string(), 1, vec!["Student 03".to_string()]),
        ]
    );
    assert_eq!(q1.unanswered, ["Student 08"]);
    assert!(q1.unmatched.is_empty());
    assert_eq!((q2.right, q2.answered), (3, 8));
    assert_eq!(q2.mistakes.len(), 1);
    assert_eq!(q2.mistakes[0].name, "k1 + 1 in the numerator (the Okapi form Lucene dropped)");
    assert_eq!(q2.mistakes[0].students, ["Student 01", "Student 04", "Student 05", "Student 06"]);
    assert_eq!(q2.unmatched.len(), 1);
    assert_eq!((q2.unmatched[0].student.as_str(), q2.unmatched[0].answer.as_str()), ("Student 07", "123.456"));
    for other in ["q3", "q4", "q5"] {
        assert_eq!(q(other).right, 8, "{other} was not touched");
    }
    // Scores out of 5: Student 01 lost two points, the six others who were planted one each,
    // Student 08 one for the blank.
    let scores: Vec<(String, u32)> = report.scores.iter().map(|s| (s.student.clone(), s.score)).collect();
    assert_eq!(scores[0], ("Student 01".to_string(), 3));
    assert!(scores[1..].iter().all(|(_, s)| *s == 4), "{scores:?}");
    assert_eq!(report.distribution, [0, 0, 0, 1, 7, 0]);
    // The JSON has the issue's shape, and the gradebook agrees with the report.
    let json = serde_json::to_value(&report).unwrap();
    for k in ["id", "right", "answered", "mistakes", "unmatched"] {
        assert!(json["questions"][0].get(k).is_some(), "{k}");
    }
    assert_eq!(json["questions"][0]["mistakes"][0]["students"][1], "Student 02");
    let book = classroom::grade(&key, &answers).unwrap();
    let graded: Vec<(String, u32)> = book.students.iter().map(|g| (g.student.clone(), g.score)).collect();
    assert_eq!(graded, scores);
    let g8 = book.students.iter().find(|g| g.student == "Student 08").unwrap();
    assert_eq!(g8.feedback[0].message, "not answered", "a blank is named, not a silent zero");
    let html = report.to_html();
    assert!(html.contains("Student 07") && html.contains("123.456") && html.contains("log10 instead of ln"));
}

// ---- Draws that test the idea, checked from questions.json alone ---------------------------

/// Words a test counts as stop words (a few of the commonest; the library's list is longer).
const STOP: [&str; 24] = [
    "a", "an", "the", "of", "to", "in", "is", "and", "be", "your", "my", "it", "on", "for", "with", "at", "by", "or",
    "that", "this", "are", "was", "as", "what",
];

/// The words of the sample's questions and titles, lower-cased, split at anything not a letter
/// or digit: where a question's words may come from.
fn sample_vocabulary() -> std::collections::BTreeSet<String> {
    let corpus = corpus::load(&ranklens::sample::acme_sync().unwrap(), LoadOptions::default()).unwrap();
    let mut texts: Vec<String> = corpus.queries.iter().map(|q| q.text.clone()).collect();
    texts.extend(corpus.docs().iter().map(|d| d.title.clone()));
    texts
        .iter()
        .flat_map(|t| t.split(|c: char| !c.is_alphanumeric()).map(str::to_lowercase).collect::<Vec<_>>())
        .filter(|w| !w.is_empty())
        .collect()
}

/// The largest value leads the next by 5 % of it and by 0.01 (allowing the ranker's float32).
fn clear(scores: &[f64]) -> bool {
    let mut s = scores.to_vec();
    s.sort_by(|a, b| b.total_cmp(a));
    s.len() >= 2 && s[1] > 0.0 && s[0] - s[1] >= 0.999 * (0.05 * s[0]).max(0.01)
}

fn cosine_tfidf(q: &Value, terms: &Value, n: f64) -> (f64, f64) {
    let w = |c: &Value| num(c, "tf") * (n / num(c, "df")).log2();
    let mut dot = 0.0;
    for (t, c) in q.as_object().unwrap() {
        if let Some(d) = terms.get(t) {
            dot += w(c) * w(d);
        }
    }
    let norm = |m: &Value| m.as_object().unwrap().values().map(|c| w(c).powi(2)).sum::<f64>().sqrt();
    (dot, dot / (norm(q) * norm(terms)))
}

/// 30 students × bm25, tfidf, dense, index and metrics × 5 seeds (splade, late and fusion: the
/// next test): every "which comes first" has two passages that
/// score and a winner clear by a margin (recomputed from the data), every question's words come
/// from the corpus's questions and titles and none is a stop word, no term asked about is a stop
/// word, the bm25 variant's flip is a flip (TF-IDF one way, BM25 the other, the term named gives
/// the largest lead) and the tfidf variant's dot product and cosine disagree.
#[test]
fn no_draw_breaks_the_rules_that_make_a_question_worth_asking() {
    let vocabulary = sample_vocabulary();
    let engine = sample();
    engine
        .load_model(&ranklens::models::ModelManager::from_env(), ranklens::models::Role::Dense, true, &NoProgress)
        .unwrap();
    engine.build_neural(&NoProgress).unwrap();
    let words_ok = |question: &str| question.split_whitespace().all(|w| vocabulary.contains(w) && !STOP.contains(&w));
    let asked: BTreeSet<String> = engine.corpus().queries.iter().map(|q| q.text.clone()).collect();
    let mut checked = 0;
    for seed in 1..=5u64 {
        for lesson in ["bm25", "tfidf", "dense", "index", "metrics"] {
            let made = ranklens::classroom::make_assignment(lesson, &roster(30), seed, &engine, &NoProgress).unwrap();
            let key = made.key();
            for sheet in &made.sheets {
                let qs = serde_json::to_value(made.questions(sheet)).unwrap();
                let at = format!("{lesson} seed {seed} {}", sheet.student);
                for q in qs["questions"].as_array().unwrap() {
                    let d = &q["data"];
                    if let Some(term) = d.get("term").and_then(Value::as_str) {
                        assert!(!STOP.contains(&term), "{at} {}: asks about `{term}`", q["id"]);
                    }
                    if let Some(question) = d.get("question").and_then(Value::as_str) {
                        // A question is one of the corpus's own, or words drawn by the rule; the
                        // index lesson's is a Boolean query whose operands are content words.
                        let ok = match lesson {
                            "index" => question
                                .split_whitespace()
                                .filter(|w| !["AND", "OR", "NOT"].contains(w))
                                .all(|w| !STOP.contains(&w)),
                            _ => asked.contains(question) || words_ok(question),
                        };
                        assert!(ok, "{at} {}: `{question}`", q["id"]);
                    }
                }
                match lesson {
                    "bm25" => {
                        let d = &question(&qs, "q4")["data"];
                        let words: Vec<&str> = d["question"].as_str().unwrap().split_whitespace().collect();
                        let score = |p: &Value| -> f64 {
                            words
                                .iter()
                                .filter_map(|w| p["terms"].get(*w))
                                .map(|t| {
                                    bm25(
                                        num(t, "tf"),
                                        num(t, "df"),
                                        num(d, "N"),
                                        num(p, "dl"),
                                        num(d, "avgdl"),
                                        num(d, "k1"),
                                        num(d, "b"),
                                    )
                                })
                                .sum()
                        };
                        let s: Vec<f64> = d["passages"].as_array().unwrap().iter().map(score).collect();
                        assert!(clear(&s), "{at} q4: {s:?}");
                        // The flip: TF-IDF puts the first passage ahead, BM25 the second, and the
                        // term named gives the second its largest lead.
                        let d = &question(&qs, "q5")["data"];
                        let (n, ps) = (num(d, "N"), d["passages"].as_array().unwrap());
                        let words: Vec<&str> = d["question"].as_str().unwrap().split_whitespace().collect();
                        let mut qterms = serde_json::Map::new();
                        for w in &words {
                            let df = ps.iter().find_map(|p| p["terms"].get(*w).map(|t| num(t, "df")));
                            if let Some(df) = df {
                                let tf = words.iter().filter(|x| *x == w).count();
                                qterms.insert(w.to_string(), serde_json::json!({"tf": tf, "df": df}));
                            }
                        }
                        let qv = Value::Object(qterms);
                        let (t0, t1) =
                            (cosine_tfidf(&qv, &ps[0]["terms"], n).1, cosine_tfidf(&qv, &ps[1]["terms"], n).1);
                        let part = |p: &Value, w: &str| {
                            p["terms"].get(w).map_or(0.0, |t| {
                                bm25(
                                    num(t, "tf"),
                                    num(t, "df"),
                                    n,
                                    num(p, "dl"),
                                    num(d, "avgdl"),
                                    num(d, "k1"),
                                    num(d, "b"),
                                )
                            })
                        };
                        let b = |p: &Value| words.iter().map(|w| part(p, w)).sum::<f64>();
                        assert!(
                            t0 > t1 && b(&ps[1]) > b(&ps[0]),
                            "{at} q5: tf-idf {t0} {t1}, bm25 {} {}",
                            b(&ps[0]),
                            b(&ps[1])
                        );
                        let leads: Vec<(&str, f64)> =
                            words.iter().map(|w| (*w, part(&ps[1], w) - part(&ps[0], w))).collect();
                        let best = leads.iter().max_by(|x, y| x.1.total_cmp(&y.1)).unwrap().0;
                        assert_eq!(best, key_text(&key, &sheet.student, "q5"), "{at} q5: {leads:?}");
                        checked += 2;
                    }
                    "tfidf" => {
                        for id in ["q4", "q5"] {
                            let d = &question(&qs, id)["data"];
                            let n = num(d, "N");
                            let both: Vec<(f64, f64)> = d["passages"]
                                .as_array()
                                .unwrap()
                                .iter()
                                .map(|p| cosine_tfidf(&d["question_terms"], &p["terms"], n))
                                .collect();
                            let (dots, cosines): (Vec<f64>, Vec<f64>) = both.into_iter().unzip();
                            assert!(clear(&cosines), "{at} {id} cosines {cosines:?}");
                            if id == "q5" {
                                assert!(clear(&dots), "{at} q5 dots {dots:?}");
                                let first = |v: &[f64]| (0..v.len()).max_by(|a, b| v[*a].total_cmp(&v[*b])).unwrap();
                                assert_ne!(first(&dots), first(&cosines), "{at}: the lengths must change the winner");
                                let names = d["passages"].as_array().unwrap();
                                assert_eq!(
                                    names[first(&dots)]["id"].as_str().unwrap(),
                                    key_text(&key, &sheet.student, "q5")
                                );
                            }
                            checked += 1;
                        }
                    }
                    // Their questions ask no "which comes first": the words and terms above are
                    // their rules.
                    "index" | "metrics" => {}
                    _ => {
                        // The dense variant's data is the passages' text: the scores are in the
                        // key's steps (`id: BM25 x`, `id: cosine x`).
                        for id in ["q1", "q2"] {
                            let entry = &key.students[&sheet.student][id];
                            // One step per passage, then the conclusion.
                            let steps = &entry.solution.steps[..entry.question.options.len()];
                            let s: Vec<f64> = steps
                                .iter()
                                .filter_map(|l| l.rsplit(' ').next().and_then(|v| v.parse().ok()))
                                .collect();
                            assert!(clear(&s), "{at} {id}: {steps:?}");
                            checked += 1;
                        }
                    }
                }
            }
        }
    }
    assert_eq!(checked, 5 * 30 * 6);
}

/// The sample with the dense and SPLADE models (fetched through the model manager first, so a
/// fresh clone gets them) and their indexes.
fn sample_with_models() -> Workbench {
    let manager = ranklens::models::ModelManager::from_env();
    let engine = sample();
    for role in [ranklens::models::Role::Dense, ranklens::models::Role::Splade] {
        engine.load_model(&manager, role, true, &NoProgress).unwrap();
    }
    engine.build_neural(&NoProgress).unwrap();
    engine
}

/// The table rows of a data block's list `k`.
fn rows<'a>(d: &'a Value, k: &str) -> &'a Vec<Value> {
    d[k].as_array().unwrap_or_else(|| panic!("{k} in {d}"))
}

/// RRF of one passage from the two lists as printed: Σ 1/(k + place) over the lists holding it
/// (Cormack, Clarke & Büttcher 2009).
fn rrf_from_table(d: &Value, id: &str) -> f64 {
    let k = num(d, "k");
    let mut s = 0.0;
    for list in ["BM25", "Dense"] {
        if let Some(row) = rows(d, "rankings").iter().find(|r| r[list] == id) {
            s += 1.0 / (k + num(row, "place"));
        }
    }
    s
}

/// 30 students × splade, late and fusion × 5 seeds, every key recomputed from questions.json with
/// the formulas written here: SPLADE's Σ w_q·w_d and the part from terms the passage does not
/// write, the heaviest term and the first of two passages clear by a margin; MaxSim as the sum of
/// the rows' maxima, a row's clear winner, the score with a column struck out; RRF from the two
/// printed lists, the fused first leading by 0.00001 and the lists' own firsts differing, the
/// fused place of a passage.
#[test]
fn splade_late_and_fusion_draws_keep_their_rules_and_every_key_is_recomputed_by_hand() {
    let engine = sample_with_models();
    let late_column = engine
        .retriever(ranklens::retrieve::MethodKind::LateInteraction, &ranklens::config::Settings::default())
        .unwrap();
    let mut late_checked = 0;
    let mut checked = 0;
    for seed in 1..=5u64 {
        for lesson in ["splade", "late", "fusion"] {
            let made = ranklens::classroom::make_assignment(lesson, &roster(30), seed, &engine, &NoProgress).unwrap();
            let key = made.key();
            // The key grades itself full marks.
            let book = classroom::grade(&key, &answers_from_key(&key)).unwrap();
            assert!(book.students.iter().all(|g| g.score == g.max && g.max == 4), "{lesson} seed {seed}");
            for sheet in &made.sheets {
                let qs = serde_json::to_value(made.questions(sheet)).unwrap();
                let s = &sheet.student;
                let at = format!("{lesson} seed {seed} {s}");
                let close = |q: &str, mine: f64| {
                    let k = key_number(&key, s, q);
                    assert!((k - mine).abs() < 1e-6, "{at} {q}: key {k}, by hand {mine}");
                };
                match lesson {
                    "splade" => {
                        let d = &question(&qs, "q1")["data"];
                        let product = |r: &Value| num(r, "w question") * num(r, "w passage");
                        let terms = rows(d, "terms");
                        assert!((3..=12).contains(&terms.len()), "{at}: {} terms", terms.len());
                        close("q1", terms.iter().map(product).sum());
                        let expanded: f64 = terms
                            .iter()
                            .filter(|r| !matches!(r["written in"].as_str(), Some("both" | "passage only")))
                            .map(product)
                            .sum();
                        assert!(expanded > 0.0, "{at}: no term the model added to the passage");
                        close("q3", expanded);
                        let products: Vec<f64> = terms.iter().map(product).collect();
                        assert!(clear(&products), "{at} q2: {products:?}");
                        let best = terms.iter().max_by(|a, b| product(a).total_cmp(&product(b))).unwrap();
                        assert_eq!(key_text(&key, s, "q2"), best["term"].as_str().unwrap(), "{at} q2");
                        let d = &question(&qs, "q4")["data"];
                        let ids: Vec<&str> = rows(d, "passages").iter().map(|p| p["id"].as_str().unwrap()).collect();
                        let totals: Vec<f64> = ids
                            .iter()
                            .map(|id| {
                                rows(d, "weights")
                                    .iter()
                                    .map(|r| num(r, "w question") * num(r, &format!("w {id}")))
                                    .sum()
                            })
                            .collect();
                        assert!(clear(&totals), "{at} q4: {totals:?}");
                        let first = if totals[0] > totals[1] { ids[0] } else { ids[1] };
                        assert_eq!(key_text(&key, s, "q4"), first, "{at} q4");
                    }
                    "late" => {
                        let d = &question(&qs, "q1")["data"];
                        let table = rows(d, "cosines");
                        let columns: Vec<String> =
                            table[0].as_object().unwrap().keys().filter(|k| *k != "question piece").cloned().collect();
                        assert!(columns.len() <= 9 && table.len() <= 9, "{at}: {} × {}", table.len(), columns.len());
                        let maxsim = |skip: Option<&str>| -> f64 {
                            table
                                .iter()
                                .map(|r| {
                                    columns
                                        .iter()
                                        .filter(|c| Some(c.as_str()) != skip)
                                        .map(|c| num(r, c))
                                        .fold(f64::NEG_INFINITY, f64::max)
                                })
                                .sum()
                        };
                        close("q1", maxsim(None));
                        let prompt = question(&qs, "q2")["prompt"].as_str().unwrap();
                        let row: usize =
                            prompt.split("(row ").nth(1).unwrap().split(')').next().unwrap().parse().unwrap();
                        let cells: Vec<f64> = columns.iter().map(|c| num(&table[row - 1], c)).collect();
                        assert!(clear(&cells), "{at} q2: {cells:?}");
                        let best = (0..cells.len()).max_by(|a, b| cells[*a].total_cmp(&cells[*b])).unwrap();
                        assert_eq!(key_text(&key, s, "q2"), columns[best], "{at} q2");
                        let struck = question(&qs, "q3")["data"]["struck"].as_str().unwrap().to_string();
                        close("q3", maxsim(Some(&struck)));
                        assert!(maxsim(Some(&struck)) < maxsim(None), "{at} q3: striking {struck} changes nothing");
                        let entry = &key.students[s]["q4"];
                        let steps = &entry.solution.steps[..entry.question.options.len()];
                        let v: Vec<f64> =
                            steps.iter().filter_map(|l| l.rsplit(' ').next().and_then(|v| v.parse().ok())).collect();
                        assert!(clear(&v), "{at} q4: {steps:?}");
                        // Which of the three late interaction puts first, recomputed another way:
                        // the late-interaction column's own ranking of the whole corpus for the
                        // printed question (scored with the dense column, the key would differ).
                        let d = &question(&qs, "q4")["data"];
                        let ids: Vec<&str> = rows(d, "passages").iter().map(|p| p["id"].as_str().unwrap()).collect();
                        let ranking = late_column
                            .prepare(&ranklens::retrieve::QueryContext::new(d["question"].as_str().unwrap()))
                            .unwrap()
                            .search(engine.corpus().len())
                            .unwrap();
                        let place = |id: &str| {
                            let doc = engine.corpus().lookup(id).unwrap();
                            ranking.hits.iter().position(|h| h.doc == doc).unwrap_or(usize::MAX)
                        };
                        let first = ids.iter().copied().min_by_key(|id| place(id)).unwrap();
                        assert_eq!(key_text(&key, s, "q4"), first, "{at} q4");
                        late_checked += 1;
                    }
                    _ => {
                        let d = &question(&qs, "q3")["data"];
                        let table = rows(d, "rankings");
                        assert_ne!(table[0]["BM25"], table[0]["Dense"], "{at}: the lists agree on their first");
                        let mut ids: Vec<&str> = table
                            .iter()
                            .flat_map(|r| [r["BM25"].as_str().unwrap(), r["Dense"].as_str().unwrap()])
                            .filter(|x| !x.is_empty())
                            .collect();
                        ids.sort_unstable();
                        ids.dedup();
                        let mut fused: Vec<(&str, f64)> = ids.iter().map(|id| (*id, rrf_from_table(d, id))).collect();
                        fused.sort_by(|a, b| b.1.total_cmp(&a.1));
                        assert!(fused[0].1 - fused[1].1 >= 0.00001, "{at} q3: {fused:?}");
                        assert_eq!(key_text(&key, s, "q3"), fused[0].0, "{at} q3");
                        for (q, lists) in [("q1", 2), ("q2", 1)] {
                            let d = &question(&qs, q)["data"];
                            let of = d["asked"].as_str().unwrap();
                            let holding = ["BM25", "Dense"]
                                .iter()
                                .filter(|l| rows(d, "rankings").iter().any(|r| r[**l] == of))
                                .count();
                            assert_eq!(holding, lists, "{at} {q}: {of}");
                            close(q, rrf_from_table(d, of));
                        }
                        let d = &question(&qs, "q4")["data"];
                        let of = d["asked"].as_str().unwrap();
                        let place = fused.iter().position(|(id, _)| *id == of).unwrap() + 1;
                        close("q4", place as f64);
                    }
                }
                checked += 1;
            }
        }
    }
    assert_eq!(checked, 5 * 3 * 30);
    assert_eq!(late_checked, 5 * 30, "every late variant's q4 recomputed");
}

/// The grader's gaps, through a real folder of answer files: a question left out is named in the
/// feedback (not a silent zero), `{"answers": {}}` grades every question "not answered", and a
/// student who handed in a file that is not JSON is reported missing with that file named.
#[test]
fn a_blank_an_empty_file_and_a_file_that_is_not_json_are_each_named() {
    let made = ranklens::classroom::make_assignment("tfidf", &roster(3), 4, &sample(), &NoProgress).unwrap();
    let key = made.key();
    let dir = tempfile::tempdir().unwrap();
    let answers = answers_from_key(&key);
    let write = |student: &str, body: &str| std::fs::write(dir.path().join(format!("{student}.json")), body).unwrap();
    // Student 01 leaves out q2; Student 02 hands in an empty file; Student 03 everything.
    let mut first: serde_json::Map<String, Value> =
        answers.students["Student 01"].iter().map(|(q, (v, _))| (q.clone(), v.clone())).collect();
    first.remove("q2");
    write("Student 01", &serde_json::json!({ "answers": first }).to_string());
    write("Student 02", r#"{"answers": {}}"#);
    let third: serde_json::Map<String, Value> =
        answers.students["Student 03"].iter().map(|(q, (v, _))| (q.clone(), v.clone())).collect();
    write("Student 03", &serde_json::json!({ "answers": third }).to_string());
    let book = classroom::grade(&key, &classroom::read_answers(dir.path()).unwrap()).unwrap();
    let n = key.students["Student 01"].len() as u32;
    let by = |s: &str| book.students.iter().find(|g| g.student == s).unwrap();
    assert_eq!((by("Student 01").score, by("Student 01").max), (n - 1, n));
    let fb: Vec<(&str, &str)> =
        by("Student 01").feedback.iter().map(|f| (f.question.as_str(), f.message.as_str())).collect();
    assert_eq!(fb, [("q2", "not answered")]);
    assert_eq!(by("Student 02").score, 0);
    assert_eq!(by("Student 02").feedback.len(), n as usize);
    assert!(by("Student 02").feedback.iter().all(|f| f.message == "not answered"));
    assert_eq!(by("Student 03").score, n);
    // Student 03 hands in a Word file instead: not graded (no score), the file named; the others graded.
    std::fs::remove_file(dir.path().join("Student 03.json")).unwrap();
    std::fs::write(dir.path().join("Student 03.docx"), b"PK\x03\x04").unwrap();
    let book = classroom::grade(&key, &classroom::read_answers(dir.path()).unwrap()).unwrap();
    let by = |s: &str| book.students.iter().find(|g| g.student == s).unwrap().clone();
    let why = by("Student 03").absent.unwrap();
    assert!(why.contains("no answers handed in") && why.contains("Student 03.docx"), "{why}");
    assert_eq!(by("Student 01").score, n - 1);
    // A .json file that is not JSON is named at its line, under "Needs a look"; the class is graded.
    std::fs::write(dir.path().join("Student 03.json"), "{\"answers\":\n  {\"q1\": 0.5,,}}").unwrap();
    let book = classroom::grade(&key, &classroom::read_answers(dir.path()).unwrap()).unwrap();
    let by = |s: &str| book.students.iter().find(|g| g.student == s).unwrap().clone();
    let why = by("Student 03").absent.unwrap();
    assert!(why.contains("no answers could be read") && why.contains("Student 03.json:2"), "{why}");
    assert_eq!(book.unread.len(), 1, "{:?}", book.unread);
    assert!(book.unread[0].at.ends_with("Student 03.json:2"), "{:?}", book.unread);
    assert_eq!((by("Student 01").score, by("Student 02").score), (n - 1, 0));
    let table = book.to_table();
    assert!(table.starts_with("Needs a look:\n") && table.contains("Student 03.json:2 (Student 03)"), "{table}");
    assert!(table.contains(&format!("Student 03  —/{n} (not graded)")), "{table}");
}

/// 30 students × the dense lesson × 3 seeds: which passage BM25 puts first, recomputed with
/// Lucene's BM25 written here over the corpus's own counts (k1 = 1.2, b = 0.75, the standard
/// analyzer's terms; exact lengths, where the index stores Lucene's one-byte norms — the draw's
/// margin of 5 % covers that); which the dense model puts first, from the model's vectors of the
/// question and of each passage with the cosine computed here; the cosine from its parts,
/// S / (n·|h̄|), from the data as printed.
#[test]
fn every_dense_variant_of_a_class_recomputed_gives_the_key() {
    use ranklens::analysis::{Analyzer, AnalyzerConfig, Preset};
    use ranklens::models::{InputKind, TextEncoder};
    let engine = sample_with_models();
    let encoder = engine.neural().dense.expect("the dense model loads").encoder;
    let analyzer = Analyzer::new(AnalyzerConfig::preset(Preset::Standard));
    let corpus = engine.corpus();
    let mut df: BTreeMap<String, f64> = BTreeMap::new();
    let mut lengths = Vec::new();
    for (_, doc) in corpus.iter() {
        let terms = analyzer.terms(&doc.full_text());
        lengths.push(terms.len() as f64);
        for t in terms.into_iter().collect::<BTreeSet<_>>() {
            *df.entry(t).or_default() += 1.0;
        }
    }
    let n = lengths.len() as f64;
    let avgdl = lengths.iter().sum::<f64>() / n;
    let bm25_of = |question: &str, text: &str| -> f64 {
        let terms = analyzer.terms(text);
        let dl = terms.len() as f64;
        let mut tf: BTreeMap<&str, f64> = BTreeMap::new();
        for t in &terms {
            *tf.entry(t.as_str()).or_default() += 1.0;
        }
        analyzer
            .terms(question)
            .iter()
            .filter_map(|t| tf.get(t.as_str()).map(|&f| bm25(f, df[t], n, dl, avgdl, 1.2, 0.75)))
            .sum()
    };
    let cosine = |a: &[f32], b: &[f32]| -> f64 {
        let dot: f64 = a.iter().zip(b).map(|(x, y)| f64::from(*x) * f64::from(*y)).sum();
        let norm = |v: &[f32]| v.iter().map(|x| f64::from(*x).powi(2)).sum::<f64>().sqrt();
        dot / (norm(a) * norm(b))
    };
    let mut checked = 0;
    for seed in SEEDS {
        let made = ranklens::classroom::make_assignment("dense", &roster(30), seed, &engine, &NoProgress).unwrap();
        let key = made.key();
        for sheet in &made.sheets {
            let qs = serde_json::to_value(made.questions(sheet)).unwrap();
            let s = &sheet.student;
            let at = format!("dense seed {seed} {s}");
            let d = &question(&qs, "q1")["data"];
            let asked = d["question"].as_str().unwrap();
            let passages: Vec<(&str, &str)> =
                rows(d, "passages").iter().map(|p| (p["id"].as_str().unwrap(), p["text"].as_str().unwrap())).collect();
            assert_eq!(passages.len(), 3, "{at}");
            let first = |scores: Vec<(&str, f64)>| {
                scores.into_iter().max_by(|a, b| a.1.total_cmp(&b.1)).map(|(id, _)| id.to_string()).unwrap()
            };
            let by_bm25 = first(passages.iter().map(|&(id, text)| (id, bm25_of(asked, text))).collect());
            assert_eq!(by_bm25, key_text(&key, s, "q1"), "{at} q1");
            let q = encoder.encode(&[asked], InputKind::Query).unwrap().remove(0);
            let texts: Vec<&str> = passages.iter().map(|p| p.1).collect();
            let vectors = encoder.encode(&texts, InputKind::Document).unwrap();
            let by_dense = first(passages.iter().zip(&vectors).map(|(p, v)| (p.0, cosine(&q, v))).collect());
            assert_eq!(by_dense, key_text(&key, s, "q2"), "{at} q2");
            let d = &question(&qs, "q3")["data"];
            let by_hand = num(d, "S") / (num(d, "n") * num(d, "mean_norm"));
            let k = key_number(&key, s, "q3");
            assert!((k - by_hand).abs() < 1e-9, "{at} q3: key {k}, by hand {by_hand}");
            checked += 1;
        }
    }
    assert_eq!(checked, SEEDS.len() * 30);
}

/// A teacher grading a class needs every other student graded when one answer cannot be read: a
/// blank (`"q3": ""`, `Ada,q3,`) is "not answered" (0, said), never read as 0; text where a number
/// belongs, a number for a choice and an ambiguous `1,000` are each "not graded" for that question
/// of that student, named with the file and the line the answer is on, listed first; the others
/// are graded, and the command's exit status is 1 (something needs a look).
#[test]
fn an_unreadable_answer_is_not_graded_for_that_student_and_the_rest_of_the_class_is() {
    use ranklens::lessons::checkpoint::{Answer, AnswerKind};
    // Blank text is never a number.
    for blank in ["", "   ", "\t"] {
        assert!(Answer::parse(AnswerKind::Number, blank).is_err(), "{blank:?}");
    }
    let made = ranklens::classroom::make_assignment("bm25", &roster(3), 5, &sample(), &NoProgress).unwrap();
    let key = made.key();
    let answers = answers_from_key(&key);
    let kinds: BTreeMap<String, AnswerKind> =
        key.students["Student 01"].iter().map(|(q, c)| (q.clone(), c.question.kind)).collect();
    let number_q = kinds.iter().find(|(_, k)| **k == AnswerKind::Number).map(|(q, _)| q.clone()).unwrap();
    let choice_q = kinds.iter().find(|(_, k)| **k == AnswerKind::Choice).map(|(q, _)| q.clone()).unwrap();
    let dir = tempfile::tempdir().unwrap();
    let json = |student: &str, edit: &dyn Fn(&mut serde_json::Map<String, Value>)| {
        let mut m: serde_json::Map<String, Value> =
            answers.students[student].iter().map(|(q, (v, _))| (q.clone(), v.clone())).collect();
        edit(&mut m);
        // One answer a line, so each has its own line number.
        let lines: Vec<String> =
            m.iter().map(|(q, v)| format!("  {}: {v}", serde_json::to_string(q).unwrap())).collect();
        std::fs::write(
            dir.path().join(format!("{student}.json")),
            format!("{{\"answers\": {{\n{}\n}}}}\n", lines.join(",\n")),
        )
        .unwrap();
        // The line of `q` in the file written (the braces' line is 1).
        m.keys().position(|k| *k == number_q).map(|i| i + 2)
    };
    // Student 01: a blank for the number question. Student 02: "1,000" there (ambiguous).
    // Student 03: a JSON number for the choice question.
    json("Student 01", &|m| {
        m.insert(number_q.clone(), Value::String(String::new()));
    });
    let line = json("Student 02", &|m| {
        m.insert(number_q.clone(), Value::String("1,000".into()));
    })
    .unwrap();
    json("Student 03", &|m| {
        m.insert(choice_q.clone(), serde_json::json!(2));
    });
    let book = classroom::grade(&key, &classroom::read_answers(dir.path()).unwrap()).unwrap();
    let n = key.students["Student 01"].len() as u32;
    let by = |s: &str| book.students.iter().find(|g| g.student == s).unwrap();
    assert_eq!(by("Student 01").score, n - 1, "every other answer right");
    assert_eq!(by("Student 01").feedback[0].message, "not answered", "a blank is not answered, not a 0");
    assert_eq!(by("Student 02").score, n - 1);
    assert_eq!(by("Student 03").score, n - 1);
    let looks: Vec<(&str, &str)> = book.not_graded.iter().map(|g| (g.student.as_str(), g.question.as_str())).collect();
    assert_eq!(looks, [("Student 02", number_q.as_str()), ("Student 03", choice_q.as_str())]);
    let two = &book.not_graded[0].why;
    assert!(two.contains(&format!("Student 02.json:{line}")) && two.contains("1,000"), "{two}");
    assert!(book.not_graded[1].why.contains("wants text, not 2"), "{}", book.not_graded[1].why);
    assert!(by("Student 02").feedback.iter().any(|f| f.message.starts_with("not graded: ")));
    // The table lists them first; the class report too.
    assert!(book.to_table().starts_with("Needs a look:\n  2 answer(s) could not be read"), "{}", book.to_table());
    let report = classroom::class_report(&key, &classroom::read_answers(dir.path()).unwrap()).unwrap();
    assert!(report.to_table().contains("Needs a look:\n  2 answer(s)"), "{}", report.to_table());
    let q = report.questions.iter().find(|q| q.id == number_q).unwrap();
    assert_eq!(q.unanswered, ["Student 01"]);
    assert_eq!(q.not_graded.len(), 1);

    // A CSV: `Ada,q3,` is not answered; the exit status says something needs a look.
    let keyfile = dir.path().join("key.json");
    std::fs::write(&keyfile, serde_json::to_string(&key).unwrap()).unwrap();
    let mut csv = String::from("student,question,answer\n");
    for (s, qs) in &answers.students {
        for (q, (v, _)) in qs {
            let text = if s == "Student 01" && *q == number_q {
                String::new()
            } else if s == "Student 03" && *q == number_q {
                "two".to_string()
            } else {
                v.as_str().map(str::to_string).unwrap_or_else(|| v.to_string())
            };
            csv.push_str(&format!("{s},{q},\"{}\"\n", text.replace('"', "\"\"")));
        }
    }
    let file = dir.path().join("answers.csv");
    std::fs::write(&file, csv).unwrap();
    // `assignment grade` of the key and an answers file, in a format.
    let grade = |answers: &Path, format: &str| {
        std::process::Command::new(env!("CARGO_BIN_EXE_ranklens"))
            .args(["assignment", "grade", "--key"])
            .arg(&keyfile)
            .arg("--answers")
            .arg(answers)
            .args(["--format", format])
            .output()
            .unwrap()
    };
    let out = grade(&file, "json");
    assert_eq!(out.status.code(), Some(1), "{}", String::from_utf8_lossy(&out.stderr));
    let v: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(v["not_graded"].as_array().unwrap().len(), 1, "{v}");
    assert_eq!(v["not_graded"][0]["student"], "Student 03");
    assert!(String::from_utf8_lossy(&out.stderr).contains("Needs a look:\n  1 answer(s)"));

    // The teacher's CSV with a header, a blank line, a quoted line break and ben's unquoted
    // `1,000` on line 7: the row is named at the line an editor shows, everyone else graded, exit 1.
    let (s1, s2) = ("Student 01", "Student 02");
    let qs: Vec<&String> = key.students[s1].keys().collect();
    let mut csv = String::from("student,question,answer\n\n");
    csv.push_str(&format!("{s1},{},\"a\nb\"\n", qs[0]));
    for q in &qs[1..] {
        csv.push_str(&format!("{s1},{q},1\n"));
    }
    let line = 2 + 3 + qs.len() - 1;
    csv.push_str(&format!("{s2},{},1,000\n", qs[0]));
    let file = dir.path().join("teacher.csv");
    std::fs::write(&file, csv).unwrap();
    let out = grade(&file, "moodle");
    assert_eq!(out.status.code(), Some(1), "{}", String::from_utf8_lossy(&out.stderr));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains(&format!("teacher.csv:{line} ({s2}): expected 3 fields")), "{err}");
    assert!(err.contains("answers (Student 03): no answers handed in"), "{err}");
    let moodle = String::from_utf8_lossy(&out.stdout);
    // Student 01 graded, Student 02 (whose only row was unreadable) and Student 03 with empty grades.
    assert!(moodle.contains("\nStudent 02,,,\n") && moodle.contains("\nStudent 03,,,\n"), "{moodle}");
    assert!(moodle.lines().any(|l| l.starts_with("Student 01,,,") && l.len() > "Student 01,,,".len()), "{moodle}");
}
