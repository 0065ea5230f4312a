//! The lessons against the textbook: every number below is the textbook's (or worked out by hand
//! in the comments), and every number compared comes from a lesson built by the library — the
//! same code that ranks a user's corpus.

use std::sync::OnceLock;

use ranklens::classroom;
use ranklens::lessons::{self, Block, IdfBase, Lesson, LessonKit, LessonParams};
use ranklens::models::ModelManager;
use ranklens::progress::NoProgress;

/// The kit with the real dense and SPLADE models (fetched through the model manager first, so a
/// fresh clone gets them; the kit itself never downloads).
fn kit() -> &'static LessonKit {
    static KIT: OnceLock<LessonKit> = OnceLock::new();
    KIT.get_or_init(|| {
        let manager = ModelManager::from_env();
        for id in ["sentence-transformers/all-MiniLM-L6-v2", "splade-tiny"] {
            let spec = manager.manifest().get(id).unwrap_or_else(|| panic!("{id} is in the manifest")).clone();
            manager.fetch(&spec, &NoProgress).unwrap_or_else(|e| panic!("fetching {id}: {e}"));
        }
        LessonKit::load(&manager, &NoProgress).expect("the lesson kit loads")
    })
}

fn build(id: &str, params: &LessonParams) -> Lesson {
    lessons::build(id, kit(), params, None).unwrap_or_else(|e| panic!("lesson {id}: {e}"))
}

/// The rows of the table whose caption starts with `caption`.
fn table<'a>(l: &'a Lesson, caption: &str) -> &'a [Vec<String>] {
    l.blocks
        .iter()
        .find_map(|b| match b {
            Block::Table { caption: c, rows, .. } if c.starts_with(caption) => Some(rows.as_slice()),
            _ => None,
        })
        .unwrap_or_else(|| panic!("lesson {} has no table {caption:?}", l.id))
}

/// Every table whose caption starts with `caption`, in order.
fn tables<'a>(l: &'a Lesson, caption: &str) -> Vec<&'a [Vec<String>]> {
    l.blocks
        .iter()
        .filter_map(|b| match b {
            Block::Table { caption: c, rows, .. } if c.starts_with(caption) => Some(rows.as_slice()),
            _ => None,
        })
        .collect()
}

/// The cell in column `col` of the row whose first cell is `key`.
fn cell<'a>(rows: &'a [Vec<String>], key: &str, col: usize) -> &'a str {
    rows.iter().find(|r| r[0] == key).map(|r| r[col].as_str()).unwrap_or_else(|| panic!("no row {key:?} in {rows:?}"))
}

#[test]
fn tfidf_cosines_are_the_textbook_values() {
    let l = build("tfidf", &LessonParams::default());
    // By hand: idf = log2(4/df): mission 1, mars 2, atmosphere 2, every other term 2.
    // q = (1, 2, 2), |q| = 3. D3 = five terms of weight 2 and mission 1: |D3| = √21 = 4.5826,
    // q·D3 = 1 + 4 + 4 = 9, cos = 9 / (3 · 4.5826) = 0.6547. D4 shares only mission: 1 / 13.748 = 0.0727.
    let steps = table(&l, "Step by step");
    assert_eq!(cell(steps, "D3", 1), "9.0000");
    assert_eq!(cell(steps, "D3", 2), "3.0000");
    assert_eq!(cell(steps, "D3", 3), "4.5826");
    assert_eq!(cell(steps, "D3", 4), "0.6547");
    assert_eq!(cell(steps, "D4", 4), "0.0727");
    assert_eq!(cell(steps, "D1", 4), "0.0000");
    // The Red Planet rewording: only `mission` survives, q = (1): D3 and D4 tie at 1/√21 = 0.2182.
    let red = table(&l, "With stop words removed");
    assert_eq!(cell(red, "D3", 4), "0.2182");
    assert_eq!(cell(red, "D4", 4), "0.2182");
    // The dense model breaks the tie in favour of the Mars orbiter.
    let dense = table(&l, "The dense model");
    let score = |id: &str| cell(dense, id, 1).parse::<f64>().unwrap();
    assert!(score("D3") > score("D4") + 0.05, "dense: D3 {} vs D4 {}", score("D3"), score("D4"));
}

#[test]
fn bm25_table_is_the_textbook_table_and_follows_the_sliders() {
    let l = build("bm25", &LessonParams::default());
    let rows = table(&l, "The five settings");
    let values: Vec<[&str; 3]> = rows.iter().map(|r| [r[1].as_str(), r[2].as_str(), r[3].as_str()]).collect();
    assert_eq!(
        values[..5],
        [
            ["1.575", "2.234", "d2"],
            ["1.931", "1.512", "d1"],
            ["2.301", "2.301", "tie"],
            ["1.683", "1.784", "d2"],
            ["2.037", "1.451", "d1"],
        ]
    );
    // The learner's row at the defaults equals the textbook's k = 1.2, b = 0.75 row.
    assert_eq!(values[5], ["1.931", "1.512", "d1"]);

    // k = 0 ignores tf: both score idf(love) + idf(tragic) = log10(100/10) + log10(100/5) = 2.301.
    let l = build("bm25", &LessonParams { k: 0.0, ..LessonParams::default() });
    let own = table(&l, "The five settings").last().unwrap().clone();
    assert_eq!(own[1..], ["2.301", "2.301", "tie"]);
    // ln instead of log10 multiplies every score by ln 10 = 2.302585: 2.301 · 2.302585 = 5.298.
    let l = build("bm25", &LessonParams { k: 0.0, idf_base: IdfBase::E, ..LessonParams::default() });
    let own = table(&l, "The five settings").last().unwrap().clone();
    assert_eq!(own[1..], ["5.298", "5.298", "tie"]);

    // The saturation curve: BM25 stays under the idf ceiling; tf-idf passes it.
    let Some(Block::Curves { series, markers, .. }) = l.blocks.iter().find(|b| matches!(b, Block::Curves { .. }))
    else {
        panic!("no curve");
    };
    assert_eq!(series.len(), 3);
    assert!(markers.iter().any(|(label, p)| label.starts_with("8 ") && p[0] == 8.0));
    assert!(markers.iter().any(|(label, p)| label.starts_with("40 ") && p[0] == 40.0));
}

#[test]
fn the_reader_lesson_works_the_documents_trace_with_the_readers_own_arithmetic() {
    let l = build("reader", &LessonParams::default());
    // The documents' numbers: S·p′(27) = 7.9 + E·p′(1756) = 8.3 = 16.2.
    let c = checkpoint(&l, "reader-span-score");
    assert!((key(c) - 16.2).abs() < 1e-12, "{}", key(c));
    // Multiplying them is the usual mistake named: 7.9 × 8.3 = 65.57.
    assert_eq!(c.check(&Answer::Number(65.57)).mistake.as_deref(), Some("multiplied instead of added"));
    // Over the three passages the span wins; d1 alone declines (its 9.4 < its no-answer 11.0).
    assert_eq!(checkpoint(&l, "reader-k3").solution.answer.to_text(), "27 january 1756");
    assert_eq!(checkpoint(&l, "reader-k1").solution.answer.to_text(), "no answer");
    let rows = table(&l, "Each passage's best spans");
    assert_eq!(cell(rows, "d2", 2), "6.0");
    assert!(cell(rows, "d1", 1).starts_with("\"classical period\" 9.4"), "{rows:?}");
    // The k trade-off measured on the sample: a curve of recall and exact match at six k, and the
    // checkpoint's key is the k where the curve's exact match peaks.
    let Some(Block::Curves { series, .. }) = l.blocks.iter().find(|b| matches!(b, Block::Curves { .. })) else {
        panic!("no curve")
    };
    assert_eq!(series.len(), 2);
    assert_eq!(series[0].1.iter().map(|p| p[0]).collect::<Vec<_>>(), [1.0, 2.0, 3.0, 5.0, 10.0, 20.0]);
    let em = &series[1].1;
    let best = em.iter().fold(em[0], |b, p| if p[1] > b[1] { *p } else { b });
    assert_eq!(key(checkpoint(&l, "reader-best-k")), best[0]);
    // The toy on the lesson corpora: the words after the anchor, with the knob's k.
    let read = tables(&l, "`What did Mangalyaan study?` (BM25's top 1)");
    assert_eq!(cell(read[0], "R1", 2), "the Martian atmosphere");
    let l = build("reader", &LessonParams { reader_k: 3, ..LessonParams::default() });
    let read = tables(&l, "`Where was Mozart born?` (BM25's top 3)");
    assert_eq!(read[0].len(), 3);
    assert_eq!(cell(read[0], "M1", 2), "Salzburg");
}

#[test]
fn jaro_winkler_of_jon_and_john_is_0_93() {
    let l = build("entities", &LessonParams::default());
    let rows = table(&l, "Jaro and Jaro–Winkler");
    // Jaro(jon, john) = (3/3 + 3/4 + 3/3) / 3 = 0.9167; prefix "jo" (2): 0.9167 + 2 · 0.1 · 0.0833 = 0.9333.
    assert_eq!(cell(rows, "jon", 2), "0.9167");
    assert_eq!(cell(rows, "jon", 3), "0.9333");
    // A threshold above every score merges nothing.
    let l = build("entities", &LessonParams { er_threshold: 9.0, ..LessonParams::default() });
    assert!(table(&l, "Merged graph nodes").is_empty());
}

#[test]
fn the_inverted_index_lists_the_postings_of_the_question() {
    let l = build("index", &LessonParams::default());
    let rows = table(&l, "Dictionary and postings");
    // In the sample, "token" and "expired" occur only in errors-2 (twice, once) and releases-5.
    assert_eq!(cell(rows, "token", 1), "2");
    assert_eq!(cell(rows, "token", 2), "errors-2:2  releases-5:1");
    assert_eq!(cell(rows, "expir", 2), "errors-2:1  releases-5:1");
}

#[test]
fn fusion_puts_the_shared_wrong_passage_first() {
    let l = build("fusion", &LessonParams::default());
    let rows = table(&l, "Top 3 of each");
    let rank = |method: &str, col: usize| -> usize {
        let r = rows.iter().find(|r| r[0].starts_with(method)).unwrap_or_else(|| panic!("no {method}"));
        r[col].trim_start_matches('#').parse().unwrap()
    };
    // RRF by hand from the input ranks: 1/(60 + r_bm25) + 1/(60 + r_dense).
    let rrf = |col: usize| 1.0 / (60.0 + rank("BM25", col) as f64) + 1.0 / (60.0 + rank("Dense", col) as f64);
    assert_eq!(rank("Dense", 2), 1, "dense finds the right passage first");
    assert!(rrf(3) > rrf(2), "RRF prefers the wrong passage");
    assert_eq!(rank("Fusion", 3), 1);
    assert!(rank("Fusion", 2) > 1);
}

#[test]
fn vocabulary_mismatch_bm25_misses_what_dense_finds() {
    let l = build("mismatch", &LessonParams::default());
    let rows = table(&l, "Where each method ranks errors-2");
    assert_eq!(cell(rows, "BM25", 1), "not retrieved");
    assert!(cell(rows, "Dense", 1).starts_with('#'));
    let rewrite = table(&l, "The rewrite");
    assert_eq!(cell(rewrite, "the rewrite alone", 1), "#1");
    assert!(l.blocks.iter().any(|b| matches!(b, Block::Warning(w) if w.contains("never evidence"))));
}

#[test]
fn chunking_separates_the_fact_from_its_subject() {
    let l = build("chunking", &LessonParams::default());
    let rows = table(&l, "The best chunk");
    assert!(rows[0][3].starts_with("yes"), "{:?}", rows[0]);
    assert!(rows[2][3].starts_with("no chunk holds it"), "{:?}", rows[2]);
    // The bad cut leaves "e2e-encrypt" at the end of one piece and "depends on libsodium" at the start of the next.
    let pieces = table(&l, "The bad cut");
    let i = pieces.iter().position(|r| r[1].ends_with("e2e-encrypt\"")).expect("a piece ends with the subject");
    assert!(pieces[i + 1][1].starts_with("\"depends on libsodium"));
}

#[test]
fn structure_answers_exactly() {
    let l = build("structure", &LessonParams::default());
    // errors.csv: E180 (4.2) and E210 (4.10) are the codes from version 4 on that stop syncing;
    // version order puts 4.10 after 4.2.
    let rows = table(&l, "SQL: SELECT code");
    let codes: Vec<&str> = rows.iter().map(|r| r[0].as_str()).collect();
    assert_eq!(codes, ["E180", "E210"]);
}

#[test]
fn every_lesson_builds_and_prints() {
    for &lessons::LessonEntry { id, title, .. } in lessons::LESSONS {
        let l = build(id, &LessonParams::default());
        assert_eq!((l.id.as_str(), l.title.as_str()), (id, title));
        let text = l.to_text();
        assert!(text.starts_with(title) && text.lines().count() > 5, "{id}");
    }
    let atlas = lessons::atlas_lesson().to_text();
    assert_eq!(atlas.matches("\nStores: ").count(), lessons::ATLAS.len());
    assert!(lessons::build("nope", kit(), &LessonParams::default(), None).is_err());
}

#[test]
fn the_command_line_takes_a_knob_only_on_a_lesson_that_carries_it() {
    let run = |args: &[&str]| {
        let out = std::process::Command::new(env!("CARGO_BIN_EXE_ranklens")).arg("lesson").args(args).output().unwrap();
        (
            out.status.success(),
            String::from_utf8_lossy(&out.stdout).into_owned(),
            String::from_utf8_lossy(&out.stderr).into_owned(),
        )
    };
    let (ok, _, err) = run(&["tfidf", "--k", "2"]);
    assert!(!ok);
    assert!(err.contains("--k sets \"BM25 k\", a knob of the bm25 lesson; the tfidf lesson has no such knob"), "{err}");
    let (ok, _, err) = run(&["bm25", "--reader-k", "2"]);
    assert!(!ok && err.contains("a knob of the reader lesson"), "{err}");
    let (ok, list, _) = run(&[]);
    assert!(ok);
    assert!(list.lines().any(|l| l.starts_with("bm25") && l.ends_with("(knobs: BM25 k, BM25 b, idf base)")), "{list}");
    assert!(list.lines().any(|l| l.starts_with("tfidf") && !l.contains("knobs")), "{list}");
}

// ---- Checkpoints ------------------------------------------------------------------------------

use ranklens::lessons::checkpoint::{Answer, AnswerKind, Checkpoint};

fn checkpoint<'a>(l: &'a Lesson, id: &str) -> &'a Checkpoint {
    l.checkpoints().find(|c| c.question.id == id).unwrap_or_else(|| panic!("lesson {} has no checkpoint {id}", l.id))
}

fn key(c: &Checkpoint) -> f64 {
    match c.solution.answer {
        Answer::Number(x) => x,
        ref other => panic!("{}: {other:?}", c.question.id),
    }
}

/// Right with its key; wrong with each usual mistake, which is named; wrong with another option
/// or order; and a number far from everything matches no mistake.
fn answered_every_way(c: &Checkpoint) {
    assert!(c.check(&c.solution.answer).correct, "{}: its key", c.question.id);
    match c.question.kind {
        AnswerKind::Number => {
            for m in &c.solution.mistakes {
                let v = c.check(&Answer::Number(m.value));
                assert!(!v.correct, "{}: {}", c.question.id, m.name);
                assert_eq!(v.mistake.as_deref(), Some(m.name.as_str()), "{}: {}", c.question.id, v.message);
                assert!(v.message.contains(&m.name));
            }
            let far = key(c) + 1000.0;
            let v = c.check(&Answer::Number(far));
            assert!(
                !v.correct && v.mistake.is_none() && v.message.contains("none of the usual mistakes")
                    || c.solution.mistakes.is_empty(),
                "{}",
                c.question.id
            );
        }
        AnswerKind::Choice => {
            assert!(c.question.options.len() >= 2, "{}: {:?}", c.question.id, c.question.options);
            assert!(c.question.options.contains(&c.solution.answer.to_text()), "{}", c.question.id);
            for o in c.question.options.iter().filter(|o| **o != c.solution.answer.to_text()) {
                assert!(!c.check(&Answer::Choice(o.clone())).correct, "{}: {o}", c.question.id);
            }
            // Case and spaces do not make an answer wrong.
            assert!(c.check(&Answer::Choice(format!("  {} ", c.solution.answer.to_text().to_uppercase()))).correct);
        }
        AnswerKind::Ordering => {
            let Answer::Ordering(order) = &c.solution.answer else { panic!() };
            if order.len() > 1 {
                let mut rev = order.clone();
                rev.reverse();
                let v = c.check(&Answer::Ordering(rev));
                assert!(!v.correct && v.message.contains("#1"), "{}: {}", c.question.id, v.message);
            }
        }
    }
    assert!(!c.solution.steps.is_empty(), "{}: no working", c.question.id);
}

#[test]
fn every_lesson_has_checkpoints_each_right_with_its_key_and_naming_each_usual_mistake() {
    let sample = kit().sample.clone();
    for question in
        ["sync token expired", "Why does my phone say my login is stale?", "How long is a sync token valid?"]
    {
        let open = lessons::Open { workbench: sample.clone(), question: question.into() };
        for &lessons::LessonEntry { id, .. } in lessons::LESSONS {
            let l = lessons::build(id, kit(), &LessonParams::default(), Some(&open)).unwrap();
            let n = l.checkpoints().count();
            assert!(n >= 1, "{id} has no checkpoint");
            let mut ids = std::collections::BTreeSet::new();
            for c in l.checkpoints() {
                assert!(ids.insert(c.question.id.clone()), "{id}: {} twice", c.question.id);
                answered_every_way(c);
            }
        }
    }
}

#[test]
fn checkpoint_keys_are_the_textbook_numbers_and_the_lessons_own_tables() {
    let l = build("tfidf", &LessonParams::default());
    // idf(mars) = log2(4/1) = 2; w(mars, D3) = 1 × 2; the cosine is the textbook's 0.6547.
    assert_eq!(key(checkpoint(&l, "tfidf-idf")), 2.0);
    assert_eq!(key(checkpoint(&l, "tfidf-weight")), 2.0);
    let cos = checkpoint(&l, "tfidf-cosine");
    assert!((key(cos) - 9.0 / (3.0 * 21f64.sqrt())).abs() < 1e-12);
    assert_eq!(checkpoint(&l, "tfidf-first").solution.answer.to_text(), "D3");
    // The usual mistake "ln instead of log2" on idf(mars) is ln 4 = 1.3863.
    let v = checkpoint(&l, "tfidf-idf").check(&Answer::Number(1.3863));
    assert_eq!(v.mistake.as_deref(), Some("ln instead of log2"));

    let l = build("bm25", &LessonParams::default());
    assert_eq!(checkpoint(&l, "example-tfidf-first").solution.answer.to_text(), "d2");
    assert_eq!(checkpoint(&l, "example-bm25-first").solution.answer.to_text(), "d1");
    assert_eq!(checkpoint(&l, "example-b0-first").solution.answer.to_text(), "d2");
    // love in d1: tf 8, dl 40, avgdl 120, N 100, df 10, Lucene's form with k1 1.2, b 0.75:
    // ln(1 + 90.5/10.5) · 8/(8 + 1.2·(0.25 + 0.75·40/120)) = 2.26369 · 0.93023 = 2.10576.
    let love = key(checkpoint(&l, "example-love"));
    assert!((love - (1.0 + 90.5f64 / 10.5).ln() * 8.0 / (8.0 + 1.2 * (0.25 + 0.25))).abs() < 1e-12, "{love}");
    // On the sample, for `sync token expired`: the flipped pair, and the contribution's key is the
    // row the table shows.
    let flip = checkpoint(&l, "open-flip");
    let rows = table(&l, "Term by term");
    let c = key(checkpoint(&l, "open-contribution"));
    let col = if flip.solution.answer.to_text() == flip.question.options[1] { 5 } else { 4 };
    assert!(rows.iter().any(|r| (r[col].parse::<f64>().unwrap() - c).abs() < 5e-5), "{c} in {rows:?}");

    let l = build("index", &LessonParams::default());
    let postings = table(&l, "Dictionary and postings");
    let df = checkpoint(&l, "index-df");
    let term = df.question.prompt.split('`').nth(1).unwrap();
    assert_eq!(cell(postings, term, 1), lessons::checkpoint::format_number(key(df)));
    let list = checkpoint(&l, "index-postings");
    let term = list.question.prompt.split('`').nth(1).unwrap();
    let shown: Vec<&str> = cell(postings, term, 2).split_whitespace().map(|p| p.split(':').next().unwrap()).collect();
    assert_eq!(list.solution.answer, Answer::Ordering(shown.iter().map(|s| s.to_string()).collect()));

    // Metrics: P@5 from the lesson's own table of grades, and the evaluation module's table.
    let l = build("metrics", &LessonParams::default());
    let ranked = table(&l, "The ranking and its judgements");
    let p5 = ranked.iter().take(5).filter(|r| r[2] != "0").count() as f64 / 5.0;
    assert_eq!(key(checkpoint(&l, "metrics-p5")), p5);
    let values = table(&l, "What the evaluation module");
    for (id, row) in [("metrics-p5", 0), ("metrics-r10", 1), ("metrics-ap", 2), ("metrics-ndcg10", 3)] {
        assert_eq!(values[row][1], format!("{:.4}", key(checkpoint(&l, id))), "{id}");
    }

    // Dense: the cosine worked from its token states is the dense column's score, and the parts
    // shown sum to it.
    let l = build("dense", &LessonParams::default());
    let c = key(checkpoint(&l, "dense-cosine"));
    let parts = tables(&l, "").into_iter().find(|t| t.last().is_some_and(|r| r[0] == "sum = the cosine")).unwrap();
    let sum: f64 = parts.last().unwrap()[1].parse().unwrap();
    assert!((c - sum).abs() < 1e-4, "{c} vs {sum}");
    let both = table(&l, "Both scores");
    let first = checkpoint(&l, "dense-first").solution.answer.to_text();
    assert!((cell(both, &first, 1).parse::<f64>().unwrap() - c).abs() < 1e-4);

    // Fusion: RRF of the wrong passage with k = 60.
    let l = build("fusion", &LessonParams::default());
    let rrf = checkpoint(&l, "fusion-rrf");
    let ranks: Vec<f64> =
        rrf.question.data["ranks"].as_array().unwrap().iter().filter_map(|r| r["rank"].as_f64()).collect();
    assert!((key(rrf) - ranks.iter().map(|r| 1.0 / (60.0 + r)).sum::<f64>()).abs() < 1e-12);
    // Entities: Jaro(jon, john) = (3/3 + 3/4 + 3/3)/3 = 11/12; they share 2 leading characters:
    // JW = 11/12 + 2 · 0.1 · (1 − 11/12) = 0.9333.
    let l = build("entities", &LessonParams::default());
    assert!((key(checkpoint(&l, "er-jw")) - (11.0 / 12.0 + 0.2 * (1.0 / 12.0))).abs() < 1e-12);
    // Chunking: 12-word windows overlapping by 4 start every 8 words.
    let l = build("chunking", &LessonParams::default());
    let w = checkpoint(&l, "chunk-windows");
    let words = w.question.data["words"].as_f64().unwrap();
    assert_eq!(key(w), 1.0 + ((words - 12.0) / 8.0).ceil().max(0.0));
}

#[test]
fn a_dense_assignment_gives_thirty_variants_whose_cosines_are_the_dense_columns() {
    let roster: Vec<String> = (1..=30).map(|i| format!("S{i}")).collect();
    let made = ranklens::classroom::make_assignment("dense", &roster, 9, &kit().sample, &NoProgress).unwrap();
    for q in ["q1", "q2", "q3"] {
        let datas: std::collections::BTreeSet<String> = made
            .sheets
            .iter()
            .map(|s| s.questions.iter().find(|c| c.question.id == q).unwrap().question.data.to_string())
            .collect();
        assert_eq!(datas.len(), 30, "{q}");
    }
    let key_ = made.key();
    let mut answers = classroom::Answers::default();
    for (s, qs) in &key_.students {
        answers.students.insert(
            s.clone(),
            qs.iter()
                .map(|(q, e)| (q.clone(), (serde_json::to_value(&e.solution.answer).unwrap(), "x".to_string())))
                .collect(),
        );
    }
    assert!(classroom::grade(&key_, &answers).unwrap().students.iter().all(|g| g.score == 3));
    // q3's key, worked from the printed S, n and |h̄|, is the dense retriever's cosine.
    let settings = ranklens::config::Settings::default();
    let dense = kit().sample.retriever(ranklens::retrieve::MethodKind::Dense, &settings).unwrap();
    for sheet in made.sheets.iter().take(5) {
        let c = sheet.questions.iter().find(|c| c.question.id == "q3").unwrap();
        let passage = c.question.data["passage"].as_str().unwrap();
        let question = sheet.questions[0].question.data["question"].as_str().unwrap();
        let doc = kit().sample.corpus().lookup(passage).unwrap();
        let score = dense.explain(&ranklens::retrieve::QueryContext::new(question), doc).unwrap().value;
        let by_hand = c.question.data["S"].as_f64().unwrap()
            / (c.question.data["n"].as_f64().unwrap() * c.question.data["mean_norm"].as_f64().unwrap());
        assert!((by_hand - score).abs() < 1e-3, "{passage}: {by_hand} vs {score}");
        assert!((key(c) - by_hand).abs() < 1e-12);
    }
}

#[test]
fn handouts_hold_every_question_and_row_and_load_nothing() {
    for &lessons::LessonEntry { id, .. } in lessons::LESSONS {
        let l = build(id, &LessonParams::default());
        let html = classroom::handout::lesson_html(&l, true);
        let md = classroom::handout::lesson_markdown(&l, true);
        for needle in ["src=\"http", "href=\"http", "@import", "url("] {
            assert!(!html.contains(needle), "{id}: {needle}");
        }
        for c in l.checkpoints() {
            assert!(
                html.contains(&format!("[{}]", c.question.id)) && md.contains(&format!("[{}]", c.question.id)),
                "{id}: {}",
                c.question.id
            );
        }
        let student = classroom::handout::lesson_html(&l, false);
        assert!(!student.contains("<h2>Answers</h2>"));
        assert_eq!(html.contains("<h2>Answers</h2>"), l.checkpoints().count() > 0);
    }
}

/// Print a page to PDF with headless Chromium (offline) and read it back with pdftotext: its text,
/// and every word's right edge with its page's width.
fn print_to_pdf(html: &str, dir: &std::path::Path, name: &str) -> (String, Vec<(f64, f64, String)>) {
    use std::process::Command;
    let page = dir.join(format!("{name}.html"));
    std::fs::write(&page, html).unwrap();
    let pdf = dir.join(format!("{name}.pdf"));
    let chromium = ["chromium", "chromium-browser", "google-chrome"]
        .into_iter()
        .find(|c| Command::new(c).arg("--version").output().is_ok())
        .expect("Chromium is needed for this test: scripts/test.sh installs Debian's `chromium`");
    let out = Command::new(chromium)
        .args([
            "--headless",
            "--no-sandbox",
            "--disable-gpu",
            "--no-first-run",
            "--disable-background-networking",
            "--disable-component-update",
            "--host-resolver-rules=MAP * ~NOTFOUND",
            "--no-pdf-header-footer",
        ])
        .arg(format!("--user-data-dir={}", dir.join(format!("profile-{name}")).display()))
        .arg(format!("--print-to-pdf={}", pdf.display()))
        .arg(format!("file://{}", page.display()))
        .output()
        .unwrap();
    assert!(pdf.is_file(), "no PDF: {}", String::from_utf8_lossy(&out.stderr));
    let text = Command::new("pdftotext")
        .arg(&pdf)
        .arg("-")
        .output()
        .expect("pdftotext (Debian's poppler-utils; scripts/test.sh installs it)");
    let bbox = Command::new("pdftotext").arg("-bbox").arg(&pdf).arg("-").output().unwrap();
    let bbox = String::from_utf8_lossy(&bbox.stdout).into_owned();
    let attr = |line: &str, name: &str| -> Option<f64> {
        let at = line.find(&format!("{name}=\""))? + name.len() + 2;
        line[at..].split('"').next()?.parse().ok()
    };
    let mut words = Vec::new();
    let mut width = 0.0;
    for line in bbox.lines() {
        if line.trim_start().starts_with("<page") {
            width = attr(line, "width").unwrap_or(0.0);
        } else if line.trim_start().starts_with("<word") {
            let w = line.split('>').nth(1).and_then(|x| x.split('<').next()).unwrap_or("").to_string();
            words.push((attr(line, "xMax").unwrap_or(0.0), width, w));
        }
    }
    (String::from_utf8_lossy(&text.stdout).into_owned(), words)
}

/// Text without white space and hyphens (pdftotext joins a word broken at a line's end and drops
/// the hyphen it was broken at).
fn squeeze(s: &str) -> String {
    s.chars().filter(|c| !c.is_whitespace() && *c != '-' && *c != '‐').collect()
}

#[test]
fn every_handout_prints_every_question_and_table_row_within_the_page() {
    let dir = tempfile::tempdir().unwrap();
    // The check sees a table too wide for the page: its right-hand cell is not printed.
    let wide = "<html><body><table style='width:2000px'><tr><td>leftcell</td><td style='text-align:right'>rightcell</td></tr></table></body></html>";
    let (text, _) = print_to_pdf(wide, dir.path(), "wide");
    assert!(text.contains("leftcell") && !text.contains("rightcell"), "{text}");
    let mut pages = Vec::new();
    for &lessons::LessonEntry { id, .. } in lessons::LESSONS {
        let l = build(id, &LessonParams::default());
        pages.push((id.to_string(), classroom::handout::lesson_html(&l, true), l));
    }
    for (id, html, l) in &pages {
        let (text, words) = print_to_pdf(html, dir.path(), id);
        let flat = squeeze(&text);
        assert!(!words.is_empty(), "{id}: the PDF has no text");
        for c in l.checkpoints() {
            assert!(
                flat.contains(&squeeze(&format!("[{}]", c.question.id))),
                "{id}: checkpoint {} not printed",
                c.question.id
            );
            let start: String = c.question.prompt.chars().filter(|ch| *ch != '`').take(30).collect();
            assert!(flat.contains(&squeeze(&start)), "{id}: {start:?} not printed");
        }
        for b in &l.blocks {
            if let Block::Table { caption, rows, .. } = b {
                assert!(flat.contains(&squeeze(caption).replace('`', "")), "{id}: caption {caption:?}");
                // Every cell of every row: a table wider than the page loses its right-hand cells.
                for r in rows {
                    for cell in r {
                        let start: String = cell.chars().take(40).collect();
                        assert!(flat.contains(&squeeze(&start)), "{id}: cell {start:?} of {caption:?} not printed");
                    }
                }
            }
        }
        // Nothing runs off the page: every word ends inside it.
        for (x, width, w) in &words {
            assert!(*x <= *width + 0.5, "{id}: {w:?} ends at {x} on a page {width} wide");
        }
    }
}

/// Every assignment lesson's handout, five seeds each, printed by headless Chromium: at most two
/// A4 pages per four questions, every question on the page, the passages' text there, no word
/// off the page, and the answer sheet at the end.
#[test]
fn every_assignment_handout_prints_within_two_pages_per_four_questions() {
    let dir = tempfile::tempdir().unwrap();
    let corpus = ranklens::corpus::load(&ranklens::sample::acme_sync().unwrap(), Default::default()).unwrap();
    let engine = ranklens::workbench::Workbench::new(corpus);
    for role in [ranklens::models::Role::Dense, ranklens::models::Role::Splade] {
        engine.load_model(&ModelManager::from_env(), role, true, &NoProgress).unwrap();
    }
    engine.build_neural(&NoProgress).unwrap();
    let roster = vec!["Grace Hopper".to_string(), "Alan Turing".into()];
    let mut printed = 0;
    for (entry, _) in lessons::with_assignments() {
        for seed in 1..=5u64 {
            let made = classroom::make_assignment(entry.id, &roster, seed, &engine, &NoProgress).unwrap();
            let out = dir.path().join(format!("{}-{seed}", entry.id));
            made.write(&out).unwrap();
            let sheet = &made.sheets[(seed % 2) as usize];
            let html = std::fs::read_to_string(out.join(&sheet.student).join("handout.html")).unwrap();
            let name = format!("{}-{seed}", entry.id);
            let (text, words) = print_to_pdf(&html, dir.path(), &name);
            let pages = text.matches('\u{c}').count();
            let n = sheet.questions.len();
            assert!(pages <= 2 * n.div_ceil(4), "{name}: {pages} pages for {n} questions");
            let flat = squeeze(&text);
            for c in &sheet.questions {
                assert!(
                    flat.contains(&squeeze(&format!("[{}]", c.question.id))),
                    "{name}: {} not printed",
                    c.question.id
                );
            }
            for text in made.texts.values().filter(|t| html.contains(&ranklens::markup::escape_html(t))) {
                let start: String = text.chars().take(30).collect();
                assert!(flat.contains(&squeeze(&start)), "{name}: the passage {start:?} is not printed");
            }
            assert!(flat.contains("Answersheet") && flat.contains(&squeeze(&format!("{}.json", sheet.student))));
            for (x, width, w) in &words {
                assert!(*x <= *width + 0.5, "{name}: {w:?} ends at {x} on a page {width} wide");
            }
            printed += 1;
        }
    }
    assert_eq!(printed, 45, "nine lessons with assignments, five seeds each");
}

/// "Which one word would bring it in?" in the BM25 and dense lessons: the key is the one option
/// that, added to the question, puts the passage in the top 3 — checked here by asking `ranklens
/// search` (another process) the question with each option, and the other three do not.
#[test]
fn the_one_word_checkpoints_key_is_what_searching_with_each_word_gives() {
    let sample = kit().sample.clone();
    let mut seen = 0;
    for (lesson, method, id) in [("bm25", "bm25", "open-one-word"), ("dense", "dense", "dense-one-word")] {
        for question in ["How long before saved results expire?", "Why does my phone say my login is stale?"] {
            let open = lessons::Open { workbench: sample.clone(), question: question.into() };
            let l = lessons::build(lesson, kit(), &LessonParams::default(), Some(&open)).unwrap();
            let Some(c) = l.checkpoints().find(|c| c.question.id == id) else { continue };
            seen += 1;
            let passage = c.question.data["passage"].as_str().unwrap().to_string();
            let key = c.solution.answer.to_text();
            assert_eq!(c.question.options.len(), 4, "{id}: {:?}", c.question.options);
            for word in &c.question.options {
                let ws = tempfile::tempdir().unwrap();
                let out = std::process::Command::new(env!("CARGO_BIN_EXE_ranklens"))
                    .env("RANKLENS_WORKSPACE", ws.path())
                    .args(["search", "--method", method, "-k", "3", "--format", "json"])
                    .arg(format!("{question} {word}"))
                    .output()
                    .unwrap();
                let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
                let top: Vec<&str> = v["hits"].as_array().unwrap().iter().map(|h| h["id"].as_str().unwrap()).collect();
                assert_eq!(
                    top.contains(&passage.as_str()),
                    *word == key,
                    "{id} for {question:?}: `{word}` and {passage} in {top:?} (key {key})"
                );
            }
        }
    }
    assert!(seen >= 2, "the checkpoint appeared {seen} times");
}
