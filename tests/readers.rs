//! Properties of the readers a user's files reach that are not corpora or runs: the question set
//! (`questions.tsv`), the CSV tables imported into SQLite, a live engine's request templates, the
//! model manifest, JSON reports cut or flipped anywhere, an index's description file, the grades
//! spill file, and any file opened as another system's. Each runs 1,000 cases: written input reads
//! back; damaged input is refused with where, and nothing panics.

mod common;

use std::path::Path;

use proptest::prelude::*;
use ranklens::corpus::{Corpus, Doc};

fn cases() -> u32 {
    common::proptest_cases()
}

/// Text a person might put in a field: words, punctuation, quotes, Unicode (no tab or line break).
fn field() -> impl Strategy<Value = String> {
    prop_oneof![
        "[A-Za-z0-9][A-Za-z0-9 ,.?'-]{0,20}[A-Za-z0-9?]",
        "[A-Za-z0-9][^\\t\\n\\r]{0,16}[A-Za-z0-9]",
        prop::sample::select(vec!["What is E140?", "\"quoted\" text", "ß and İ", "a, b; c", "🏳️‍🌈 flag"])
            .prop_map(str::to_string),
    ]
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(cases()))]

    /// `questions.tsv` with its optional columns (judgements, SQL, a graph pattern) reads back
    /// every question and judgement written, and names each bad line.
    #[test]
    fn a_written_question_set_reads_back(
        questions in prop::collection::btree_map(
            "[a-z0-9][a-z0-9 _-]{0,6}[a-z0-9]",
            (field(), prop::collection::btree_map("[a-z0-9_.-]{1,8}", 0i32..4, 0..3), prop::option::of(field())),
            1..6,
        ),
        bad in prop::collection::vec(0usize..10, 0..3),
    ) {
        let mut lines = vec!["id\tquestion\tjudgements\tsql".to_string()];
        for (id, (text, judged, sql)) in &questions {
            let j: Vec<String> = judged.iter().map(|(d, g)| format!("{d}:{g}")).collect();
            lines.push(format!("{id}\t{text}\t{}\t{}", j.join(" "), sql.clone().unwrap_or_default()));
        }
        let mut bad_at = Vec::new();
        for at in bad {
            let at = 1 + at % lines.len();
            lines.insert(at, "only-an-id".into());
            for b in bad_at.iter_mut().filter(|b| **b > at) {
                *b += 1;
            }
            bad_at.push(at + 1);
        }
        bad_at.sort();
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("questions.tsv");
        std::fs::write(&path, lines.join("\n")).unwrap();
        let mut corpus = Corpus::from_docs("c", [Doc { id: "d".into(), title: String::new(), text: "x".into(), fields: Default::default() }]);
        ranklens::corpus::load_questions_tsv(&path, &mut corpus).unwrap();
        let read: Vec<(String, String)> = corpus.queries.iter().map(|q| (q.id.clone(), q.text.clone())).collect();
        let want: Vec<(String, String)> = questions.iter().map(|(id, (t, _, _))| (id.clone(), t.trim().to_string())).collect();
        prop_assert_eq!(read, want);
        for (id, (_, judged, sql)) in &questions {
            for (d, g) in judged {
                prop_assert_eq!(corpus.qrels.as_ref().and_then(|q| q.grade(id, d)), Some(*g));
            }
            let template = corpus.templates.get(id).and_then(|t| t.sql.clone());
            prop_assert_eq!(template, sql.as_ref().map(|s| s.trim().to_string()).filter(|s| !s.is_empty()));
        }
        let warned: Vec<usize> = corpus.report.warnings.iter().filter_map(|w| w.line).collect();
        prop_assert_eq!(warned, bad_at);
    }

    /// A CSV table of any text imports into SQLite with every row and value as written, and
    /// reads back through a SELECT.
    #[test]
    fn a_csv_table_imports_with_every_value(
        rows in prop::collection::vec((field(), field(), -1000i64..1000), 1..8),
    ) {
        let dir = tempfile::tempdir().unwrap();
        let csv_path = dir.path().join("items.csv");
        let mut w = csv::Writer::from_path(&csv_path).unwrap();
        w.write_record(["name", "note", "count"]).unwrap();
        for (name, note, count) in &rows {
            w.write_record([name.as_str(), note.as_str(), &count.to_string()]).unwrap();
        }
        w.flush().unwrap();
        let (db, warnings) = ranklens::structured::SqlDatabase::create(&dir.path().join("t.sqlite"), &[csv_path]).unwrap();
        prop_assert!(warnings.is_empty(), "{:?}", warnings);
        let r = db.query("SELECT name, note, count FROM items", ranklens::structured::SqlLimits::default()).unwrap();
        prop_assert_eq!(r.rows.len(), rows.len());
        for (got, (name, note, count)) in r.rows.iter().zip(&rows) {
            let got: Vec<String> = got.iter().map(|v| v.to_string()).collect();
            prop_assert_eq!(got, vec![name.clone(), note.clone(), count.to_string()]);
        }
    }

    /// Any question in any engine's default template makes a request that carries it exactly:
    /// valid JSON with the question as its text (Elasticsearch, OpenSearch), or a query string
    /// that decodes to it (Solr).
    #[test]
    fn any_question_is_carried_exactly_by_the_template(question in "\\PC{0,60}", k in 1usize..500) {
        use ranklens::external::{Credentials, EngineKind, LiveEngine};
        for kind in [EngineKind::Elasticsearch, EngineKind::OpenSearch, EngineKind::Solr] {
            let e = LiveEngine {
                name: "e".into(),
                kind,
                url: "http://127.0.0.1:9".into(),
                index: "acme".into(),
                template: kind.default_template().into(),
                id_field: None,
                credentials: Credentials::None,
                timeout_secs: 1,
            };
            let r = e.request(&question, k).unwrap();
            match r.body {
                Some(body) => {
                    let v: serde_json::Value = serde_json::from_str(&body).unwrap();
                    let strings = all_strings(&v);
                    prop_assert!(strings.contains(&question), "{} does not carry {:?}", body, question);
                    prop_assert!(body.contains(&k.to_string()));
                }
                None => {
                    let query = r.url.split_once('?').unwrap().1;
                    let q = query.split('&').find_map(|p| p.strip_prefix("q=")).unwrap();
                    let decoded = percent_encoding::percent_decode_str(q).decode_utf8().unwrap();
                    prop_assert!(decoded.contains(&question) || question.trim().is_empty(), "{} vs {:?}", decoded, question);
                }
            }
        }
    }

    /// The model manifest: the shipped one written out reads back equal; any change to a byte is
    /// read or refused, never a panic.
    #[test]
    fn the_manifest_reads_back_or_is_refused(at in 0usize..100_000, byte in any::<u8>()) {
        let shipped = ranklens::models::Manifest::builtin();
        let text = serde_json::to_string_pretty(&shipped).unwrap();
        prop_assert_eq!(&ranklens::models::Manifest::parse(&text).unwrap(), &shipped);
        let mut bytes = text.into_bytes();
        let i = at % bytes.len();
        bytes[i] = byte;
        if let Ok(text) = String::from_utf8(bytes) {
            match ranklens::models::Manifest::parse(&text) {
                // One byte cannot add or remove a model; it changes at most the one it falls in.
                Ok(m) => {
                    prop_assert_eq!(m.models.len(), shipped.models.len());
                    let changed = m.models.iter().zip(&shipped.models).filter(|(a, b)| a != b).count();
                    prop_assert!(changed <= 1, "{} models changed by one byte", changed);
                }
                Err(e) => prop_assert!(e.to_string().starts_with("models.json"), "{}", e),
            }
        }
    }
}

/// Every string in a JSON value.
fn all_strings(v: &serde_json::Value) -> Vec<String> {
    match v {
        serde_json::Value::String(s) => vec![s.clone()],
        serde_json::Value::Array(a) => a.iter().flat_map(all_strings).collect(),
        serde_json::Value::Object(o) => o.values().flat_map(all_strings).collect(),
        _ => Vec::new(),
    }
}

/// A small JSON report to damage.
fn report_bytes() -> Vec<u8> {
    use ranklens::compare::Plan;
    use ranklens::config::Settings;
    use ranklens::retrieve::MethodKind;
    let corpus = ranklens::corpus::load(&common::sample("acme-sync"), Default::default()).unwrap();
    let engine = ranklens::workbench::Workbench::new(corpus);
    let settings = Settings { methods: vec![MethodKind::Bm25], ..Settings::default() };
    let plan = Plan::of_kinds(&settings, &settings.methods);
    let run =
        plan.run(&engine, &engine.query_context("What is E140?", &settings), &ranklens::progress::NoProgress).unwrap();
    let body = ranklens::report::ReportBody::Comparison(Box::new(ranklens::report::comparison_report(
        &engine, &run, &settings, None,
    )));
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("r.json");
    ranklens::report::write(&body, &path).unwrap();
    std::fs::read(&path).unwrap()
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(cases()))]

    /// A JSON report cut anywhere or with any byte changed is refused, naming the file (and the
    /// line where JSON stops being readable), or — a change that leaves it the same — read equal.
    #[test]
    fn a_damaged_report_is_refused_with_where(at in 0usize..1_000_000, byte in any::<u8>(), cut in any::<bool>()) {
        thread_local!(static REPORT: Vec<u8> = report_bytes());
        let good = REPORT.with(Clone::clone);
        let original = ranklens::report::parse(&good, "r.json").unwrap();
        let i = at % good.len();
        let mut bytes = good.clone();
        if cut {
            bytes.truncate(i);
        } else {
            bytes[i] = byte;
        }
        match ranklens::report::parse(&bytes, "r.json") {
            Ok(back) => prop_assert_eq!(back, original, "a changed report was read as something else"),
            Err(e) => prop_assert!(e.to_string().starts_with("r.json"), "{}", e),
        }
    }

    /// An index's description file damaged anywhere: the index is refused, naming the file or
    /// its folder, or opens to the same corpus; never a panic.
    #[test]
    fn a_damaged_index_description_is_refused_with_its_file(at in 0usize..100_000, byte in any::<u8>()) {
        thread_local!(static INDEX: tempfile::TempDir = {
            let dir = tempfile::tempdir().unwrap();
            let corpus = Corpus::from_texts("c", [("a", "sync token expired"), ("b", "cache valid for minutes")]);
            ranklens::index::SparseIndex::build(
                &corpus,
                ranklens::analysis::AnalyzerConfig::default(),
                &ranklens::index::IndexLocation::Dir(dir.path().join("idx")),
                &ranklens::progress::NoProgress,
            )
            .unwrap();
            dir
        });
        let scratch = tempfile::tempdir().unwrap();
        let idx = scratch.path().join("idx");
        INDEX.with(|d| copy_dir(&d.path().join("idx"), &idx));
        let meta = std::fs::read_dir(&idx).unwrap().map(|e| e.unwrap().path())
            .find(|p| p.file_name().is_some_and(|n| n == "ranklens-index.json")).unwrap();
        let mut bytes = std::fs::read(&meta).unwrap();
        let i = at % bytes.len();
        bytes[i] = byte;
        std::fs::write(&meta, &bytes).unwrap();
        match ranklens::index::SparseIndex::open(&idx, &ranklens::progress::NoProgress) {
            Ok((_, corpus)) => prop_assert_eq!(corpus.len(), 2),
            Err(e) => {
                let text = e.report();
                prop_assert!(text.contains("ranklens-index.json") || text.contains(&idx.display().to_string()), "{}", text);
            }
        }
    }

    /// The grades spill file (written when the database could not be): valid lines are taken in
    /// with the next open, and a damaged file is refused naming its line, its grades kept.
    #[test]
    fn the_spill_file_is_taken_in_or_refused_by_line(
        grades in prop::collection::vec(("[a-z]{1,4}( [a-z]{1,3})?", "[a-z0-9][a-z0-9 -]{0,5}", 0i32..4), 1..6),
        junk in prop::option::of("[^\\n]{0,12}"),
    ) {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("judgements.sqlite");
        let spill = ranklens::eval::JudgementStore::spill_path(&path);
        let mut text: String = grades.iter().map(|(q, d, g)| format!("c\t{q}\t{d}\t{g}\n")).collect();
        if let Some(j) = &junk {
            text.push_str(j);
            text.push('\n');
        }
        std::fs::write(&spill, &text).unwrap();
        let bad_line = junk.as_ref().map(|j| (grades.len() + 1, j.trim().is_empty()));
        match ranklens::eval::JudgementStore::open(&path) {
            Ok(store) => {
                prop_assert!(bad_line.is_none_or(|(_, blank)| blank), "a junk line was taken in");
                let qrels = store.qrels("c").unwrap();
                let mut want = std::collections::BTreeMap::new();
                for (q, d, g) in &grades {
                    want.insert((q.clone(), d.clone()), *g);
                }
                for ((q, d), g) in want {
                    prop_assert_eq!(qrels.grade(&q, &d), Some(g));
                }
                prop_assert!(!spill.exists(), "taken in");
            }
            Err(e) => {
                let (line, _) = bad_line.unwrap();
                prop_assert!(e.to_string().contains(&format!("{}:{line}", spill.display())), "{}", e);
                prop_assert_eq!(std::fs::read_to_string(&spill).unwrap(), text, "the grades are kept");
            }
        }
    }

    /// Any file opened as another system's (a run, an engine response, vectors; any extension):
    /// a system or an error naming the file, never a panic.
    #[test]
    fn any_file_opens_as_a_system_or_is_refused(
        bytes in prop_oneof![
            prop::collection::vec(any::<u8>(), 0..300),
            "[{}\\[\\]\":,a-z0-9_ .\\n\\t]{0,200}".prop_map(String::into_bytes),
        ],
        ext in prop::sample::select(vec!["trec", "tsv", "csv", "jsonl", "json", "npy", "safetensors", "gz", "txt"]),
    ) {
        let corpus = Corpus::from_texts("c", [("a", "alpha"), ("b", "beta")]);
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join(format!("system.{ext}"));
        std::fs::write(&path, &bytes).unwrap();
        if let Err(e) = ranklens::compare::External::open(&path, None, Some(&corpus)) {
            prop_assert!(e.report().contains("system."), "{}", e.report());
        }
    }
}

fn copy_dir(from: &Path, to: &Path) {
    std::fs::create_dir_all(to).unwrap();
    for entry in std::fs::read_dir(from).unwrap() {
        let p = entry.unwrap().path();
        let target = to.join(p.file_name().unwrap());
        if p.is_dir() {
            copy_dir(&p, &target);
        } else {
            std::fs::copy(&p, &target).unwrap();
        }
    }
}
