//! Search engines beside RankLens: saved responses of Elasticsearch 6.8, 7.17, 8.15 (search,
//! `_explain`, an 8.16 RRF retriever), OpenSearch 2.17 and a 2.19 hybrid query, Solr 8.11 (plain
//! text) and 9.6 (structured), and Vespa 8 (`tests/fixtures/engines/`, written by
//! `scripts/engine_fixtures.py` in each version's documented shape). No cluster runs here: the live
//! path talks to a small HTTP server in the test that answers with those bodies.

mod common;

use common::http::serve;

use std::net::TcpListener;
use std::path::PathBuf;

use ranklens::compare::{External, Plan};
use ranklens::config::Settings;
use ranklens::external::{Credentials, EngineKind, EngineResponse, LiveEngine, SavedResponses, breakdown};
use ranklens::progress::NoProgress;
use ranklens::retrieve::{Bm25Variant, Detail, MethodKind};
use ranklens::workbench::Workbench;

fn fixture(name: &str) -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/engines").join(name)
}

fn response(name: &str) -> EngineResponse {
    SavedResponses::load(&fixture(name), None, None).unwrap().single.unwrap()
}

/// Lucene's BM25 weight, written again here: (k1 + 1 in the boost) · idf · tf.
fn lucene(boost: f64, n: f64, big_n: f64, freq: f64, dl: f64, avgdl: f64) -> f64 {
    let idf = (1.0 + (big_n - n + 0.5) / (n + 0.5)).ln();
    boost * idf * freq / (freq + 1.2 * (1.0 - 0.75 + 0.75 * dl / avgdl))
}

const LUCENE_FIXTURES: [&str; 15] = [
    "elasticsearch-6.8-search.json",
    "elasticsearch-7.17-search.json",
    "elasticsearch-8.16-rrf.json",
    "opensearch-2.17-search.json",
    "solr-8.11-text.json",
    "recorded/elasticsearch-8-multi-match.json",
    "recorded/elasticsearch-8-multi-match-tie.json",
    "recorded/elasticsearch-8-explain.json",
    "recorded/elasticsearch-8-match.json",
    "recorded/elasticsearch-8-bool-phrase.json",
    "recorded/elasticsearch-8-repeated-word.json",
    "recorded/solr-9-edismax-structured.json",
    "recorded/solr-9-edismax-text.json",
    "recorded/solr-9-match-structured.json",
    "recorded/solr-9-match-text.json",
];

#[test]
fn the_rows_of_every_version_sum_to_each_hits_score() {
    for name in LUCENE_FIXTURES {
        let r = response(name);
        assert!(!r.hits.is_empty(), "{name}");
        for h in &r.hits {
            let tree = h.explanation.as_ref().unwrap_or_else(|| panic!("{name}: {} has no tree", h.id));
            let bd = breakdown(tree);
            let total = bd.total().unwrap_or_else(|| panic!("{name}: {} not a sum ({:?})", h.id, bd.not_a_sum));
            let score = h.score.unwrap();
            assert!((total - score).abs() < 1e-4, "{name} {}: rows {total} vs score {score}", h.id);
            for row in bd.rows.iter().filter(|r| r.contribution.is_some()) {
                // Every factor was found, whatever the version's wording.
                assert!(
                    row.tf.is_some() && row.df.is_some() && row.n.is_some() && row.idf.is_some(),
                    "{name}: {row:?}"
                );
                assert!(
                    row.dl.is_some() && row.avgdl.is_some() && row.k1 == Some(1.2) && row.b == Some(0.75),
                    "{name}: {row:?}"
                );
            }
        }
    }
}

#[test]
fn each_version_reads_the_same_inputs_and_the_weights_are_lucenes_formula() {
    // caching-1's `result` in text: freq 2, n 1, N 27, dl 16; avgdl 16.888889 in the written
    // fixtures, 16.703703 as real Lucene counts the sample's text field.
    for (name, boost, avgdl) in [
        ("elasticsearch-6.8-search.json", None, 16.888889),
        ("elasticsearch-7.17-search.json", Some(2.2), 16.888889),
        ("opensearch-2.17-search.json", Some(2.2), 16.888889),
        ("solr-8.11-text.json", None, 16.888889),
        ("recorded/elasticsearch-8-multi-match.json", Some(2.2), 16.703703),
        ("recorded/solr-9-edismax-structured.json", None, 16.703703),
        ("recorded/solr-9-edismax-text.json", None, 16.703703),
    ] {
        let by_hand = lucene(2.2, 1.0, 27.0, 2.0, 16.0, avgdl);
        let r = response(name);
        let hit = r.hits.iter().find(|h| h.id == "caching-1").unwrap();
        let bd = breakdown(hit.explanation.as_ref().unwrap());
        let row = bd.rows.iter().find(|r| r.field == "text" && r.term == "result").unwrap();
        assert_eq!(
            (row.tf, row.df, row.n, row.dl, row.boost),
            (Some(2.0), Some(1.0), Some(27.0), Some(16.0), boost),
            "{name}"
        );
        assert!((row.avgdl.unwrap() - avgdl).abs() < 1e-5, "{name}");
        // Solr's BM25Similarity drops the constant k1 + 1 that Elasticsearch keeps in the boost.
        let want = if name.contains("solr") { by_hand / 2.2 } else { by_hand };
        assert!((row.weight - want).abs() < 1e-5, "{name}: {} vs {want}", row.weight);
    }
}

#[test]
fn dis_max_boosts_hybrid_and_rrf_are_read_as_what_they_are() {
    // Elasticsearch 8 multi_match (best_fields): the best field counts, the other not at all.
    let r = response("recorded/elasticsearch-8-multi-match.json");
    let bd = breakdown(r.hits.iter().find(|h| h.id == "caching-1").unwrap().explanation.as_ref().unwrap());
    let mut parts: Vec<(&str, Option<f64>)> = bd.rows.iter().map(|r| (r.field.as_str(), r.multiplier)).collect();
    parts.sort_by(|a, b| a.0.cmp(b.0));
    assert_eq!(parts, [("text", Some(1.0)), ("title", Some(0.0))]);
    // With a tie breaker of 0.3 the other field counts 0.3 times: 4.0725207 + 0.3 × 2.9486718.
    let r = response("recorded/elasticsearch-8-multi-match-tie.json");
    let hit = r.hits.iter().find(|h| h.id == "caching-1").unwrap();
    let bd = breakdown(hit.explanation.as_ref().unwrap());
    let mut parts: Vec<(&str, Option<f64>)> = bd.rows.iter().map(|r| (r.field.as_str(), r.multiplier)).collect();
    parts.sort_by(|a, b| a.0.cmp(b.0));
    assert_eq!(parts, [("text", Some(1.0)), ("title", Some(0.3))]);
    assert!((hit.score.unwrap() - (4.0725207 + 0.3 * 2.9486718)).abs() < 1e-6);
    // OpenSearch: title^2 doubles the boost (2 × 2.2).
    let r = response("opensearch-2.17-search.json");
    let bd = breakdown(r.hits.iter().find(|h| h.id == "caching-1").unwrap().explanation.as_ref().unwrap());
    let title = bd.rows.iter().find(|r| r.field == "title").unwrap();
    assert!((title.boost.unwrap() - 4.4).abs() < 1e-6);
    assert!((title.weight - lucene(4.4, 1.0, 27.0, 1.0, 2.0, 2.2222223)).abs() < 1e-5);
    // OpenSearch's hybrid query normalises and averages: not a sum; the BM25 rows are kept.
    for h in &response("opensearch-2.19-hybrid.json").hits {
        let bd = breakdown(h.explanation.as_ref().unwrap());
        assert_eq!(bd.not_a_sum.as_deref(), Some("arithmetic_mean combination of:"));
        assert!(!bd.rows.is_empty() && bd.rows.iter().all(|r| r.contribution.is_none()));
    }
    // Elasticsearch's RRF: 1 / (rank + 60) per query, from the ranks the node names.
    let r = response("elasticsearch-8.16-rrf.json");
    for h in &r.hits {
        let tree = h.explanation.as_ref().unwrap();
        let ranks: Vec<f64> = tree.details.iter().map(|d| d.value).collect();
        let by_hand: f64 = ranks.iter().map(|r| 1.0 / (r + 60.0)).sum();
        assert!((breakdown(tree).total().unwrap() - by_hand).abs() < 1e-6, "{}", h.id);
    }
}

#[test]
fn vespa_features_and_explain_api_responses() {
    let r = response("vespa-8.300-search.json");
    let hit = &r.hits[0];
    assert_eq!(hit.id, "caching-1", "Vespa's user id from id:acme:passage::caching-1");
    let sum: f64 = hit.features.values().sum();
    assert!((sum - hit.score.unwrap()).abs() < 1e-9, "the rank profile is bm25(title) + bm25(text)");
    let by_hand = lucene(2.2, 1.0, 27.0, 2.0, 16.0, 16.888889) + lucene(2.2, 1.0, 27.0, 1.0, 2.0, 2.2222223);
    assert!((sum - by_hand).abs() < 1e-5);
    let e = response("recorded/elasticsearch-8-explain.json");
    assert_eq!((e.hits.len(), e.hits[0].id.as_str(), e.total), (1, "caching-1", Some(1)));
}

#[test]
fn hostile_responses_are_clear_errors() {
    let dir = tempfile::tempdir().unwrap();
    let write = |name: &str, text: &str| {
        let p = dir.path().join(name);
        std::fs::write(&p, text).unwrap();
        p
    };
    let mut deep = r#"{"value": 1, "description": "leaf"}"#.to_string();
    for _ in 0..150 {
        deep = format!(r#"{{"value": 1, "description": "sum of:", "details": [{deep}]}}"#);
    }
    let cases = [
        (
            write(
                "deep.json",
                &format!(r#"{{"hits": {{"hits": [{{"_id": "a", "_score": 1, "_explanation": {deep}}}]}}}}"#),
            ),
            "recursion limit",
        ),
        (write("huge.json", r#"{"hits": {"hits": [{"_id": "a", "_score": 1e400}]}}"#), "number out of range"),
        (write("nan.json", r#"{"hits": {"hits": [{"_id": "a", "_score": NaN}]}}"#), "expected value"),
        (write("nohits.json", r#"{"took": 3, "timed_out": false}"#), "not a search response"),
        (write("badhits.json", r#"{"hits": {"total": 3}}"#), "holds no `hits` list"),
    ];
    for (path, says) in cases {
        let e = SavedResponses::load(&path, None, None).unwrap_err().report();
        assert!(e.contains(says) && e.contains(&path.display().to_string()), "{e}");
    }
    // Deep, but within the JSON reader: the tree's own limit is named.
    let mut v = serde_json::json!({"value": 1, "description": "leaf"});
    for _ in 0..110 {
        v = serde_json::json!({"value": 1, "description": "sum of:", "details": [v]});
    }
    let body = serde_json::json!({"hits": {"hits": [{"_id": "a", "_score": 1.0, "_explanation": v}]}});
    let r = EngineResponse::parse(&body, None, "deep").unwrap();
    let (_, why) = r.hits[0].raw_explanation.clone().unwrap();
    assert!(why.contains("nests more than 100 levels"), "kept raw with why: {why}");
}

fn cli(args: &[&str]) -> (Option<i32>, String, String) {
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_ranklens"))
        .args(args)
        .env("RANKLENS_WORKSPACE", tempfile::tempdir().unwrap().keep())
        .output()
        .unwrap();
    (
        out.status.code(),
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

#[test]
fn the_response_command_prints_rows_that_sum_to_each_score() {
    for name in [
        "elasticsearch-7.17-search.json",
        "recorded/elasticsearch-8-multi-match.json",
        "opensearch-2.17-search.json",
        "recorded/solr-9-edismax-structured.json",
    ] {
        let (code, out, err) = cli(&["response", fixture(name).to_str().unwrap(), "--format", "json"]);
        assert_eq!(code, Some(0), "{err}");
        let v: serde_json::Value = serde_json::from_str(&out).unwrap();
        let hits = v["responses"][0]["hits"].as_array().unwrap();
        assert_eq!(hits.len(), 7, "{name}");
        for h in hits {
            let (sum, score) = (h["rows_sum"].as_f64().unwrap(), h["score"].as_f64().unwrap());
            assert!((sum - score).abs() < 1e-4, "{name}: {sum} vs {score}");
        }
    }
    let (code, out, _) = cli(&["response", fixture("recorded/elasticsearch-8-multi-match.json").to_str().unwrap()]);
    assert_eq!(code, Some(0));
    assert!(
        out.contains("#1 caching-1  score 4.0725207") && out.contains("Σ = 4.0725  (the engine's score 4.0725207)"),
        "{out}"
    );
    let (_, out, _) = cli(&["response", fixture("opensearch-2.19-hybrid.json").to_str().unwrap()]);
    assert!(
        out.contains("not a sum of term weights: `arithmetic_mean combination of` combines them; the tree:"),
        "{out}"
    );
    assert!(out.contains("= min_max normalization of:"), "{out}");
}

#[test]
fn a_saved_response_is_a_column_explained_beside_ranklens_bm25() {
    let corpus = ranklens::corpus::load(&common::sample("acme-sync"), Default::default()).unwrap();
    let engine = Workbench::new(corpus);
    let es = External::open(&fixture("recorded/elasticsearch-8-multi-match.json"), Some("es8"), Some(engine.corpus()))
        .unwrap();
    assert_eq!(es.kind(), MethodKind::Engine);
    let settings = Settings::default();
    let plan = Plan::of_kinds(&settings, &[MethodKind::Bm25]).with_externals(&[es]);
    let query = engine.query_context("How long before saved results expire?", &settings);
    let run = plan.run(&engine, &query, &NoProgress).unwrap();
    let column = &run.comparison.runs[1];
    assert_eq!((column.label.as_str(), column.kind), ("es8", MethodKind::Engine));
    let ranking = column.ranking().unwrap();
    let doc = engine.corpus().lookup("caching-1").unwrap();
    assert_eq!(ranking.hits[0].doc, doc);
    let e = run.explain_in("es8", doc).unwrap().unwrap();
    assert_eq!(e.value, ranking.hits[0].score, "the explanation's value is the engine's score");
    let Detail::Engine(d) = &e.detail else { panic!("{:?}", e.detail) };
    let c = d.comparison.as_ref().expect("beside RankLens's BM25");
    assert_eq!((c.k1, c.b), (1.2, 0.75));
    let inputs: Vec<&str> = c.differences.iter().map(|d| d.input.as_str()).collect();
    // The engine scores text and title apart: `result` 2 times in text (16 tokens) and once in
    // title (2 tokens) add up to RankLens's 3 in 18, and the fields' averages as real Lucene
    // counts them (16.703703 + 2.0370371) add up to RankLens's 18.740741: only the fields and
    // the constant k1 + 1 differ.
    assert_eq!(inputs, ["fields", "scale"], "{:?}", c.differences);
    assert!(c.differences[1].says.contains("factor 2.2000 = k1 + 1"), "{}", c.differences[1].says);
    let avgdls: f64 = c.pairs.iter().find(|p| p.term == "result").unwrap().engine.iter().filter_map(|e| e.avgdl).sum();
    assert!((avgdls - 18.740741).abs() < 1e-5, "{avgdls}");
    let pair = c.pairs.iter().find(|p| p.term == "result").unwrap();
    assert_eq!(pair.ranklens.as_ref().map(|r| r.tf), Some(3));
}

fn live(url: &str, kind: EngineKind) -> LiveEngine {
    LiveEngine {
        name: "cluster".into(),
        kind,
        url: url.into(),
        index: "acme".into(),
        template: kind.default_template().into(),
        id_field: None,
        credentials: Credentials::None,
        timeout_secs: 2,
    }
}

#[test]
fn a_live_engine_is_asked_with_explain_on_and_its_credentials_from_the_environment() {
    let es8 = std::fs::read_to_string(fixture("recorded/elasticsearch-8-multi-match.json")).unwrap();
    let solr = std::fs::read_to_string(fixture("recorded/solr-9-edismax-structured.json")).unwrap();
    let server = serve(move |method, path, _| match (method, path) {
        ("POST", "/acme/_search") => (200, es8.clone(), 0),
        ("GET", p) if p.starts_with("/solr/acme/select?") => (200, solr.clone(), 0),
        _ => (
            404,
            r#"{"error": {"type": "index_not_found_exception", "reason": "no such index [other]"}, "status": 404}"#
                .into(),
            0,
        ),
    });
    // The credentials are read from the environment of the process that asks: the CLI, started
    // with the variable set (this test process's own environment is never changed).
    let mut es = live(&server.url, EngineKind::Elasticsearch);
    es.credentials = Credentials::ApiKeyEnv("RANKLENS_TEST_ES_KEY".into());
    let dir = tempfile::tempdir().unwrap();
    let described = dir.path().join("es.json");
    std::fs::write(&described, serde_json::to_string(&es).unwrap()).unwrap();
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_ranklens"))
        .args(["compare", "--corpus"])
        .arg(common::sample("acme-sync"))
        .arg("--engine")
        .arg(&described)
        .args(["--offline", "How long before saved results expire?"])
        .env("RANKLENS_TEST_ES_KEY", "c2VjcmV0")
        .env("XDG_CACHE_HOME", dir.path().join("no-models"))
        .env("RANKLENS_WORKSPACE", dir.path().join("ws"))
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let (method, path, headers, _) = server.requests.lock().unwrap()[0].clone();
    assert_eq!((method.as_str(), path.as_str()), ("POST", "/acme/_search"));
    assert!(headers.to_ascii_lowercase().contains("authorization: apikey c2vjcmv0"), "{headers}");
    assert!(String::from_utf8_lossy(&out.stdout).contains("cluster"), "the engine's column is printed");
    // Here, where the variable is not set, asking says which variable is missing.
    let e = es.search("How long before saved results expire?", 10).unwrap_err().to_string();
    assert!(e.contains("RANKLENS_TEST_ES_KEY") && e.contains("not set"), "{e}");
    let es = live(&server.url, EngineKind::Elasticsearch);
    let r = es.search("How long before saved results expire?", 10).unwrap();
    assert_eq!(r.hits.len(), 7);
    let (_, _, headers, body) = server.requests.lock().unwrap()[1].clone();
    assert!(!headers.to_ascii_lowercase().contains("authorization"), "{headers}");
    let sent: serde_json::Value = serde_json::from_str(&body).unwrap();
    assert_eq!(sent["query"]["multi_match"]["query"], "How long before saved results expire?");
    assert_eq!((sent["explain"].as_bool(), sent["size"].as_u64()), (Some(true), Some(10)));

    let solr = live(&format!("{}/solr", server.url), EngineKind::Solr);
    let r = solr.search("How long before saved results expire?", 5).unwrap();
    assert_eq!(r.hits[0].id, "caching-1");
    let (_, path, _, _) = server.requests.lock().unwrap()[2].clone();
    assert!(
        path.contains("q=How%20long%20before%20saved%20results%20expire%3F")
            && path.contains("debug.explain.structured=true"),
        "{path}"
    );

    // As a column, asked off the UI thread like any method: beside RankLens's BM25.
    let corpus = ranklens::corpus::load(&common::sample("acme-sync"), Default::default()).unwrap();
    let engine = Workbench::new(corpus);
    let settings = Settings::default();
    let plan = Plan::of_kinds(&settings, &[MethodKind::Bm25]).with_externals(&[External::live(es).unwrap()]);
    let run = plan
        .run(&engine, &engine.query_context("How long before saved results expire?", &settings), &NoProgress)
        .unwrap();
    let ranking = run.comparison.runs[1].ranking().unwrap();
    assert_eq!(ranking.hits.len(), 7);
    // The credentials are nowhere in what RankLens keeps or reports.
    let report = ranklens::report::comparison_report(&engine, &run, &settings, None);
    let json = serde_json::to_string(&report).unwrap();
    assert!(!json.contains("c2VjcmV0"));
}

#[test]
fn every_live_failure_says_which_and_what_to_do() {
    let server = serve(|_, path, body| {
        if path.starts_with("/locked/") {
            (401, r#"{"error": {"type": "security_exception", "reason": "missing authentication credentials"}, "status": 401}"#.into(), 0)
        } else if path.starts_with("/bad/") {
            let _ = body;
            (
                400,
                r#"{"error": {"type": "parsing_exception", "reason": "unknown query [mach]"}, "status": 400}"#.into(),
                0,
            )
        } else if path.starts_with("/empty/") {
            (200, r#"{"took": 1, "timed_out": false}"#.into(), 0)
        } else if path.starts_with("/slow/") {
            (200, "{}".into(), 4000)
        } else {
            (404, r#"{"error": {"type": "index_not_found_exception", "reason": "no such index [missing]"}, "status": 404}"#.into(), 0)
        }
    });
    let ask = |index: &str| {
        let mut e = live(&server.url, EngineKind::Elasticsearch);
        e.index = index.into();
        e.search("sync", 5).unwrap_err()
    };
    let e = ask("locked");
    assert!(matches!(e, ranklens::Error::Unavailable(_)), "{e}");
    assert!(
        e.report()
            .contains("refused the credentials (HTTP 401: security_exception: missing authentication credentials)"),
        "{}",
        e.report()
    );
    assert!(ask("missing").report().contains("no index or collection `missing`"), "{}", ask("missing").report());
    assert!(
        ask("bad").report().contains(
            "refused the query (HTTP 400: parsing_exception: unknown query [mach]); check the query template"
        )
    );
    assert!(ask("empty").report().contains("not a search response"), "{}", ask("empty").report());
    let slow = ask("slow").report();
    assert!(slow.contains("no answer within 2 s"), "{slow}");
    // Nothing listens on a port just freed.
    let port = TcpListener::bind("127.0.0.1:0").unwrap().local_addr().unwrap().port();
    let refused =
        live(&format!("http://127.0.0.1:{port}"), EngineKind::Elasticsearch).search("sync", 5).unwrap_err().report();
    assert!(refused.contains("cannot connect"), "{refused}");
    // A template that does not make JSON is refused before anything is sent.
    let mut e = live(&server.url, EngineKind::Elasticsearch);
    e.template = r#"{"query": {"match": {"text": "{{question}}"}}"#.into();
    let before = server.requests.lock().unwrap().len();
    assert!(e.search("sync", 5).unwrap_err().report().contains("does not make a JSON request"));
    assert_eq!(server.requests.lock().unwrap().len(), before);
    // A missing credentials variable is named.
    let mut e = live(&server.url, EngineKind::Elasticsearch);
    e.credentials = Credentials::BasicAuthEnv("RANKLENS_TEST_NOT_SET".into());
    assert!(e.search("sync", 5).unwrap_err().report().contains("RANKLENS_TEST_NOT_SET, which is not set"));
}

/// The recorded responses over the flat index read the inputs RankLens's own `lucene` BM25 reads,
/// row by row: tf, n, N, the stored length, avgdl and idf as Lucene holds them (float32), and the
/// same weight — equal for Solr, k1 + 1 times it for Elasticsearch's LegacyBM25Similarity (a
/// repeated word's clause boosted by its count, where RankLens multiplies by qtf).
#[test]
fn recorded_responses_equal_ranklens_lucene_bm25_row_by_row() {
    use ranklens::retrieve::{LexicalModel, LexicalRetriever, QueryContext, Retriever};
    let corpus = ranklens::corpus::load(&common::sample("acme-sync"), Default::default()).unwrap();
    let engine = Workbench::new(corpus);
    let index = std::sync::Arc::new(
        ranklens::index::SparseIndex::build(
            engine.corpus(),
            ranklens::analysis::AnalyzerConfig::default(),
            &ranklens::index::IndexLocation::Ram,
            &NoProgress,
        )
        .unwrap(),
    );
    let params = Bm25Variant::Lucene.default_params();
    let bm25 = LexicalRetriever::new(index, LexicalModel::Bm25 { variant: Bm25Variant::Lucene, params }).unwrap();
    let question = "How long before saved results expire?";
    let repeated = "Sync stopped: why does sync stop syncing?";
    let mut rows = 0;
    for (name, q, scale) in [
        ("recorded/solr-9-match-structured.json", question, 1.0f64),
        ("recorded/solr-9-match-text.json", question, 1.0),
        ("recorded/elasticsearch-8-match.json", question, 2.2),
        ("recorded/elasticsearch-8-repeated-word.json", repeated, 2.2),
    ] {
        let r = response(name);
        assert!(r.hits.len() >= 7, "{name}");
        let mut ours_ranked = bm25.search(&QueryContext::new(q), 10).unwrap().hits;
        ours_ranked.truncate(r.hits.len());
        for (rank, h) in r.hits.iter().enumerate() {
            let doc = engine.corpus().lookup(&h.id).unwrap();
            assert_eq!(ours_ranked[rank].doc, doc, "{name}: rank {}", rank + 1);
            let e = bm25.explain(&QueryContext::new(q), doc).unwrap();
            let Detail::Terms(table) = &e.detail else { panic!() };
            let bd = breakdown(h.explanation.as_ref().unwrap());
            for row in &bd.rows {
                let mine =
                    table.rows.iter().find(|m| m.term == row.term).unwrap_or_else(|| panic!("{name}: {}", row.term));
                assert_eq!(row.tf, Some(f64::from(mine.tf)), "{name} {} {}", h.id, row.term);
                assert_eq!(row.df, Some(mine.df as f64), "{name} {} {}", h.id, row.term);
                assert_eq!(row.n, Some(table.n as f64), "{name}");
                assert_eq!(row.dl, Some(mine.dl), "{name} {}: the stored length", h.id);
                assert_eq!(row.avgdl.map(|a| a as f32), Some(mine.avgdl as f32), "{name}");
                assert_eq!(row.idf.map(|i| i as f32), Some(mine.idf as f32), "{name} {}", row.term);
                let want = scale * mine.contribution;
                assert!(
                    (row.weight - want).abs() <= 1e-6 * want,
                    "{name} {} {}: {} vs {want}",
                    h.id,
                    row.term,
                    row.weight
                );
                if scale == 1.0 {
                    assert_eq!(
                        row.weight as f32, mine.contribution as f32,
                        "{name}: Solr's weight is RankLens's float"
                    );
                }
                rows += 1;
            }
            let score = h.score.unwrap();
            assert!((score - scale * e.value).abs() <= 1e-6 * score, "{name} {}: {score} vs {}", h.id, e.value);
            if scale == 1.0 {
                assert_eq!(score as f32, e.value as f32, "{name} {}: Solr's score is RankLens's", h.id);
            }
        }
    }
    // 7 + 7 + 7 hits with one or two terms each, and the repeated word's 10 hits.
    assert!(rows >= 30, "{rows} rows compared");
}

#[test]
fn a_phrase_row_shows_every_words_n_and_its_idf_is_their_sum() {
    let r = response("recorded/elasticsearch-8-bool-phrase.json");
    let hit = r.hits.iter().find(|h| h.id == "caching-1").unwrap();
    let bd = breakdown(hit.explanation.as_ref().unwrap());
    let phrase = bd.rows.iter().find(|r| r.term.contains(' ')).expect("the phrase's row");
    assert_eq!(phrase.term, "\"cach result\"");
    // `cach` (cache, cached) is in 4 of the 27 passages, caching-1 to 4, `result` in 1 (counted
    // in the sample's file).
    assert_eq!(phrase.df_each, [4.0, 1.0]);
    assert_eq!(phrase.df_text(), "4+1");
    let idf = |n: f64| (1.0f64 + (27.0 - n + 0.5) / (n + 0.5)).ln();
    assert!((phrase.idf.unwrap() - (idf(4.0) + idf(1.0))).abs() < 1e-5, "{:?}", phrase.idf);
    assert!((phrase.boost.unwrap() - 4.4).abs() < 1e-6, "match_phrase boost 2 × (k1 + 1)");
    let (code, out, _) = cli(&["response", fixture("recorded/elasticsearch-8-bool-phrase.json").to_str().unwrap()]);
    assert_eq!(code, Some(0));
    assert!(out.lines().any(|l| l.starts_with("\"cach result\"") && l.contains("4+1")), "{out}");
}

#[test]
fn the_response_command_puts_each_hit_beside_ranklens_bm25() {
    let question = "How long before saved results expire?";
    for (name, says) in [
        ("recorded/solr-9-match-structured.json", "No input differs, and the scores are equal.\n"),
        (
            "recorded/elasticsearch-8-match.json",
            "No input differs, and the scores are equal but for a constant: the engine's are 2.2 times RankLens's.",
        ),
    ] {
        let (code, out, err) = cli(&["response", fixture(name).to_str().unwrap(), "--question", question]);
        assert_eq!(code, Some(0), "{err}");
        assert_eq!(out.matches("beside RankLens's lucene BM25 (k1 1.2, b 0.75)").count(), 7, "{out}");
        assert_eq!(out.matches(says).count(), 7, "{name}: {out}");
    }
    // Over two fields the command names what differs.
    let (_, out, _) = cli(&[
        "response",
        fixture("recorded/elasticsearch-8-multi-match.json").to_str().unwrap(),
        "--question",
        question,
    ]);
    assert!(out.contains("the engine scores each field apart"), "{out}");
    let (code, out, _) = cli(&[
        "response",
        fixture("recorded/solr-9-match-structured.json").to_str().unwrap(),
        "--question",
        question,
        "--format",
        "json",
    ]);
    assert_eq!(code, Some(0));
    let v: serde_json::Value = serde_json::from_str(&out).unwrap();
    for h in v["responses"][0]["hits"].as_array().unwrap() {
        assert_eq!(h["beside"]["equal"], true, "{h}");
        assert_eq!(h["beside"]["differences"].as_array().map(Vec::len), Some(0));
    }
}

/// Shapes real Lucene 9.9.1 prints that the first recordings did not hold
/// (`scripts/lucene/RecordResponses.java`): a length its one-byte norm keeps only approximately,
/// `combined_fields` (CombinedFieldQuery: BM25F over title and text), a synonym, and an RRF
/// retriever whose part for a passage holding one word of the question is a one-child `sum of:`.
#[test]
fn lucene_s_approximate_lengths_combined_fields_synonyms_and_rrf_over_one_child_sums() {
    let sums = |name: &str| {
        let r = response(name);
        assert!(!r.hits.is_empty(), "{name}");
        for h in &r.hits {
            let bd = breakdown(h.explanation.as_ref().unwrap());
            let total = bd.total().unwrap_or_else(|| panic!("{name}: {} not a sum ({:?})", h.id, bd.not_a_sum));
            assert!((total - h.score.unwrap()).abs() < 1e-4, "{name} {}: {total} vs {:?}", h.id, h.score);
        }
        r
    };
    // Each text three times over: caching-1 holds `result` 7 times in 50 terms (so Lucene says),
    // the field's mean 52.148148; Elasticsearch's boost 2.2.
    let r = sums("recorded/elasticsearch-8-approximate-length.json");
    let hit = r.hits.iter().find(|h| h.id == "caching-1").unwrap();
    let bd = breakdown(hit.explanation.as_ref().unwrap());
    let row = bd.rows.iter().find(|r| r.term == "result").unwrap();
    assert!(row.dl_approximate, "{row:?}");
    assert_eq!((row.tf, row.dl), (Some(7.0), Some(50.0)));
    let by_hand = lucene(2.2, 1.0, 27.0, 7.0, 50.0, 52.148148);
    assert!((row.weight - by_hand).abs() < 1e-5, "{} vs {by_hand}", row.weight);
    // combined_fields: one BM25 over both fields' frequencies and lengths (title + text), with no
    // k1 + 1 in a boost (Lucene's own BM25Similarity): `result` 3 times in 18 terms, mean 18.74074.
    let r = sums("recorded/elasticsearch-8-combined-fields.json");
    let hit = r.hits.iter().find(|h| h.id == "caching-1").unwrap();
    let bd = breakdown(hit.explanation.as_ref().unwrap());
    assert_eq!(bd.rows.len(), 1, "{bd:?}");
    let row = &bd.rows[0];
    assert_eq!(
        (row.field.as_str(), row.term.as_str(), row.tf, row.dl),
        ("text+title", "result", Some(3.0), Some(18.0)),
        "{row:?}"
    );
    let by_hand = lucene(1.0, 1.0, 27.0, 3.0, 18.0, 18.74074);
    assert!((row.weight - by_hand).abs() < 1e-5, "{} vs {by_hand}", row.weight);
    // A synonym: `end` and `expir` scored as one term of the text field.
    let r = sums("recorded/elasticsearch-8-synonym.json");
    let synonym: Vec<_> = r
        .hits
        .iter()
        .flat_map(|h| breakdown(h.explanation.as_ref().unwrap()).rows)
        .filter(|row| row.term.contains('|'))
        .collect();
    assert_eq!(synonym.len(), 3);
    assert!(synonym.iter().all(|row| row.field == "text" && row.term == "end|expir"), "{synonym:?}");
    // RRF: 1/(60 + rank) per query from the ranks the node names; the BM25 rows are inputs only.
    let r = response("recorded/elasticsearch-8-rrf-recorded.json");
    let want = [("caching-1", 1.0 / 61.0 + 1.0 / 61.0), ("sync-2", 1.0 / 63.0 + 1.0 / 64.0)];
    assert_eq!(r.hits.len(), want.len());
    for (h, (id, by_hand)) in r.hits.iter().zip(want) {
        let bd = breakdown(h.explanation.as_ref().unwrap());
        assert_eq!((h.id.as_str(), bd.not_a_sum.as_deref()), (id, None), "{bd:?}");
        assert!((bd.total().unwrap() - by_hand).abs() < 1e-7, "{id}: {:?} vs {by_hand}", bd.total());
        assert!(!bd.rows.is_empty() && bd.rows.iter().all(|row| row.contribution.is_none()), "{bd:?}");
    }
}
