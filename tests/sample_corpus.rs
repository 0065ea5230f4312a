//! Acceptance for the bundled Acme Sync sample: the phenomena the lessons rely on happen with the
//! real scorers, the SQL table answers exactly and refuses writes, the graph joins what text
//! search only finds, and broken input lines are reported and skipped.

mod common;

use std::path::Path;

use ranklens::analysis::{AnalyzerConfig, Preset};
use ranklens::config::Settings;
use ranklens::corpus::{Corpus, FieldFilter, LoadOptions, load};
use ranklens::progress::NoProgress;
use ranklens::retrieve::{Bm25Params, Bm25Variant, Detail, QueryContext, Retriever};
use ranklens::structured::{SqlLimits, SqlValue};
use ranklens::workbench::{SparseSpec, Workbench};

fn engine() -> Workbench {
    let dir = common::sample("acme-sync");
    let corpus = load(&dir, LoadOptions::default()).unwrap();
    assert!(corpus.report.warnings.is_empty(), "{:?}", corpus.report.warnings);
    let ws = tempfile::tempdir().unwrap().keep();
    let mut engine = Workbench::new(corpus).with_workspace(ws);
    let structured = engine.load_structured(&dir).unwrap();
    assert!(structured.warnings.is_empty(), "{:?}", structured.warnings);
    engine
}

/// rank_bm25's BM25Okapi over a plain split: `okapi` with the `whitespace` analyzer.
fn okapi(engine: &Workbench) -> std::sync::Arc<dyn Retriever> {
    let spec = SparseSpec::bm25(Bm25Variant::Okapi, Bm25Variant::Okapi.default_params());
    engine.sparse(spec, AnalyzerConfig::preset(Preset::Whitespace), &NoProgress).unwrap()
}

fn ids(engine: &Workbench, r: &dyn Retriever, q: &str, k: usize) -> Vec<String> {
    let ranking = r.search(&QueryContext::new(q), k).unwrap();
    ranking.hits.iter().map(|h| engine.corpus().external_id(h.doc).to_string()).collect()
}

#[test]
fn the_corpus_has_the_promised_shape() {
    let e = engine();
    let c: &Corpus = e.corpus();
    assert!((23..=30).contains(&c.len()), "{} passages", c.len());
    for page in ["errors", "caching", "releases", "plugins", "accounts"] {
        assert!(c.docs().iter().any(|d| d.fields.get("page").map(String::as_str) == Some(page)), "page {page}");
    }
    for q in [
        "How long before saved results expire?",
        "Why does my phone say my login is stale?",
        "What is E140?",
        "What does error E104 mean?",
        "Which version added end-to-end encryption, and which library does it use?",
        "How many devices can I use with one account?",
    ] {
        let query = c.queries.iter().find(|x| x.text == q).unwrap_or_else(|| panic!("missing question {q}"));
        assert!(c.qrels.as_ref().unwrap().num_relevant(&query.id) > 0);
    }
}

#[test]
fn okapi_phenomena_on_the_error_pages() {
    let e = engine();
    let r = okapi(&e);
    // `e104` is in one passage only.
    let ranking = r.search(&QueryContext::new("e104"), 10).unwrap();
    assert_eq!(ranking.total_matches, 1);
    assert_eq!(ids(&e, r.as_ref(), "e104", 10), ["errors-2"]);

    // "What is E140?": the E180 passage wins because "is" and "what" carry weight here.
    let ranked = ids(&e, r.as_ref(), "What is E140?", 10);
    let pos = |id: &str| ranked.iter().position(|x| x == id).unwrap();
    assert!(pos("errors-4") < pos("errors-3"), "{ranked:?}");
    let doc = e.corpus().lookup("errors-4").unwrap();
    let explanation = r.explain(&QueryContext::new("What is E140?"), doc).unwrap();
    let Detail::Terms(t) = &explanation.detail else { panic!("term table") };
    let is_row = t.rows.iter().find(|row| row.term == "is").unwrap();
    assert!(is_row.idf > 0.0 && is_row.contribution > 0.0, "{is_row:?}");

    // The stale-login question shares no word with the E104 passage...
    assert!(!ids(&e, r.as_ref(), "Why does my phone say my login is stale?", 5).contains(&"errors-2".to_string()));
    // ...but the rewritten question finds it first.
    assert_eq!(ids(&e, r.as_ref(), "sync token expired sign in again", 1), ["errors-2"]);
}

#[test]
fn metadata_filter_keeps_only_matching_passages() {
    let e = engine();
    let settings = Settings { filter: Some("release >= 4".parse::<FieldFilter>().unwrap()), ..Settings::default() };
    let spec =
        SparseSpec::bm25(Bm25Variant::Lucene, Bm25Params { k1: 0.9, b: 0.4, ..Bm25Variant::Lucene.default_params() });
    let r = e.sparse(spec, AnalyzerConfig::default(), &NoProgress).unwrap();
    let q = e.query_context("sync token expired sign in again", &settings);
    let ranking = r.search(&q, 30).unwrap();
    assert!(!ranking.hits.is_empty());
    for h in &ranking.hits {
        let release = &e.corpus().doc(h.doc).unwrap().fields["release"];
        assert!(ranklens::corpus::compare_versions(release, "4") != Some(std::cmp::Ordering::Less), "{release}");
    }
    let e104 = e.corpus().lookup("errors-2").unwrap();
    assert!(ranking.rank_of(e104).is_none());
    assert!(r.explain(&q, e104).unwrap().summary.contains("release >= 4"));
}

#[test]
fn sql_answers_exactly_and_refuses_to_change_anything() {
    let e = engine();
    let db = e.structured().sql.as_ref().unwrap();
    let q7 = &e.corpus().templates["q7"];
    let rows = db.query(q7.sql.as_deref().unwrap(), SqlLimits::default()).unwrap();
    let codes: Vec<String> = rows.rows.iter().map(|r| r[0].to_string()).collect();
    assert_eq!(codes, ["E180", "E210"]);
    assert_eq!(rows.conditions, ["version_cmp(added_in, '4') >= 0", "stops_sync = 1"]);
    let count = db.query(e.corpus().templates["q8"].sql.as_deref().unwrap(), SqlLimits::default()).unwrap();
    assert_eq!(count.rows, [[SqlValue::Integer(3)]]);
    // Version-aware: 4.10 comes after 4.9.
    let after = db.query(e.corpus().templates["q13"].sql.as_deref().unwrap(), SqlLimits::default()).unwrap();
    assert_eq!(after.rows.iter().map(|r| r[0].to_string()).collect::<Vec<_>>(), ["E210"]);

    let before = std::fs::read(db.path()).unwrap();
    let attempts = [
        ("INSERT INTO errors (code) VALUES ('E999')", "INSERT"),
        ("DROP TABLE errors", "DROP"),
        ("ATTACH DATABASE '/tmp/x.sqlite' AS other", "ATTACH"),
        ("UPDATE errors SET stops_sync = 0", "UPDATE"),
        ("PRAGMA query_only = 0", "PRAGMA"),
        ("SELECT * FROM errors; DELETE FROM errors", "one statement"),
        ("SELEC code FROM errors", "syntax error"),
    ];
    for (sql, expected) in attempts {
        let err = db.query(sql, SqlLimits::default()).unwrap_err().to_string();
        assert!(err.contains(expected), "{sql}: {err}");
    }
    let runaway = "WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM c) SELECT count(*) FROM c";
    let err = db.query(runaway, SqlLimits { time_limit_ms: 200, max_rows: 10 }).unwrap_err().to_string();
    assert!(err.contains("time limit"), "{err}");
    assert_eq!(std::fs::read(db.path()).unwrap(), before, "the database file is unchanged");
    let still = db.query("SELECT COUNT(*) FROM errors", SqlLimits::default()).unwrap();
    assert_eq!(still.rows, [[SqlValue::Integer(5)]]);
    // The row cap cuts long results and says so.
    let capped = db.query("SELECT code FROM errors", SqlLimits { time_limit_ms: 1000, max_rows: 2 }).unwrap();
    assert!(capped.truncated && capped.rows.len() == 2);
}

#[test]
fn graph_joins_what_text_search_only_finds() {
    let e = engine();
    let g = e.structured().graph.as_ref().unwrap();
    let pattern = e.corpus().templates["q9"].graph.clone().unwrap();
    let result = g.query(&pattern).unwrap();
    let plugins: Vec<&str> = result.matches.iter().map(|m| m.bindings["?p"].as_str()).collect();
    assert_eq!(plugins, ["e2e-encrypt"]);
    let path: Vec<String> = result.matches[0].path.iter().map(ToString::to_string).collect();
    assert_eq!(path, ["(desktop-app, loads, e2e-encrypt)", "(e2e-encrypt, depends_on, libsodium)"]);
    let cited: Vec<&str> = result.matches[0].path.iter().flat_map(|f| f.passages.iter().map(String::as_str)).collect();
    assert_eq!(cited, ["plugins-1", "plugins-3"]);
    // share-links is loaded by the desktop app too but depends on something else.
    assert!(g.query("desktop-app loads ?p").unwrap().matches.iter().any(|m| m.bindings["?p"] == "share-links"));

    // BM25 finds both passages that hold the two facts...
    let bm25 = e
        .sparse(
            SparseSpec::bm25(Bm25Variant::Lucene, Bm25Variant::Lucene.default_params()),
            AnalyzerConfig::default(),
            &NoProgress,
        )
        .unwrap();
    let q9 = e.corpus().query("q9").unwrap().text.clone();
    let top = ids(&e, bm25.as_ref(), &q9, 5);
    assert!(top.contains(&"plugins-1".to_string()) && top.contains(&"plugins-3".to_string()), "{top:?}");
    // ...but no passage states the answer on its own: none mentions both the desktop app and libsodium.
    for d in e.corpus().docs() {
        let ents: Vec<String> = g.mentions(&d.full_text()).into_iter().map(|m| m.entity).collect();
        assert!(!(ents.contains(&"desktop-app".to_string()) && ents.contains(&"libsodium".to_string())), "{}", d.id);
    }
}

fn copy_dir(from: &Path, to: &Path) {
    std::fs::create_dir_all(to).unwrap();
    for entry in std::fs::read_dir(from).unwrap() {
        let p = entry.unwrap().path();
        if p.is_file() {
            std::fs::copy(&p, to.join(p.file_name().unwrap())).unwrap();
        }
    }
}

fn break_line(path: &Path, line: usize, with: &str) {
    let text = std::fs::read_to_string(path).unwrap();
    let mut lines: Vec<&str> = text.lines().collect();
    lines[line - 1] = with;
    std::fs::write(path, lines.join("\n") + "\n").unwrap();
}

#[test]
fn a_broken_line_in_each_sample_file_is_named_and_the_rest_loads() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path().join("acme-sync");
    copy_dir(&common::sample("acme-sync"), &dir);
    break_line(&dir.join("corpus.jsonl"), 5, "{\"_id\": \"errors-5\", \"text\": ");
    break_line(&dir.join("questions.tsv"), 4, "q3\tWhat is E140?\terrors-3:high");
    break_line(&dir.join("errors.csv"), 3, "E140,only,three");
    break_line(&dir.join("graph.txt"), 7, "node broken-without-fields");

    let corpus = load(&dir, LoadOptions::default()).unwrap();
    let warn = |file: &str| corpus.report.warnings.iter().find(|w| w.file.ends_with(file)).map(|w| w.line);
    assert_eq!(warn("corpus.jsonl"), Some(Some(5)));
    assert_eq!(warn("questions.tsv"), Some(Some(4)));
    assert_eq!(corpus.len(), 26, "the other passages load");
    assert_eq!(corpus.queries.len(), 14, "the question itself still loads");

    let mut engine = Workbench::new(corpus).with_workspace(tmp.path().join("ws"));
    let s = engine.load_structured(&dir).unwrap();
    let lines: Vec<(String, Option<usize>)> =
        s.warnings.iter().map(|w| (w.file.file_name().unwrap().to_string_lossy().into_owned(), w.line)).collect();
    assert!(lines.contains(&("errors.csv".to_string(), Some(3))), "{lines:?}");
    assert!(lines.contains(&("graph.txt".to_string(), Some(7))), "{lines:?}");
    let db = s.sql.as_ref().unwrap();
    let n = db.query("SELECT COUNT(*) FROM errors", SqlLimits::default()).unwrap();
    assert_eq!(n.rows, [[SqlValue::Integer(4)]]);
    // The graph without its line 7 (the mobile app's node) still answers for the desktop app: the
    // two plugins graph.txt's lines 20 and 21 say it loads.
    let found = s.graph.as_ref().unwrap().query("desktop-app loads ?p").unwrap();
    let plugins: Vec<&str> = found.matches.iter().map(|m| m.bindings["?p"].as_str()).collect();
    assert_eq!(plugins, ["e2e-encrypt", "share-links"]);
}
