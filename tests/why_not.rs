//! `ranklens why-not`: every fix it returns is checked here by asking `ranklens search` the fixed
//! question with the fixed knobs — a separate process — and finding the passage at the rank the
//! fix claims, inside the top k.

mod common;

use std::path::Path;

use serde_json::Value;

use common::ranklens_json as ranklens;

/// The ids `ranklens search` ranks for a question, best first.
fn search(ws: &Path, corpus: &Path, method: &str, k: usize, knobs: &[String], question: &str) -> Vec<String> {
    let mut args: Vec<String> = vec![
        "search".into(),
        "--corpus".into(),
        corpus.display().to_string(),
        "--method".into(),
        method.into(),
        "-k".into(),
        k.to_string(),
        "--format".into(),
        "json".into(),
    ];
    args.extend(knobs.iter().cloned());
    args.push(question.into());
    let args: Vec<&str> = args.iter().map(String::as_str).collect();
    let (code, v, err) = ranklens(ws, &args);
    assert!(matches!(code, Some(0 | 1)), "{err}");
    v["hits"].as_array().unwrap().iter().map(|h| h["id"].as_str().unwrap().to_string()).collect()
}

/// `why-not` for the passage `method` ranks at `at` (1-based, outside the top k), then each fix
/// searched again. Returns how many fixes were checked.
fn check(corpus: &Path, method: &str, k: usize, knobs: &[&str], question: &str, at: usize) -> usize {
    let ws = tempfile::tempdir().unwrap();
    let knobs: Vec<String> = knobs.iter().map(|s| s.to_string()).collect();
    let before = search(ws.path(), corpus, method, at, &knobs, question);
    assert!(before.len() >= at, "{method} ranks {} passages for {question:?}", before.len());
    let passage = before[at - 1].clone();
    let mut args = vec!["why-not", "--corpus"];
    let c = corpus.display().to_string();
    args.push(&c);
    args.extend(["--method", method, "--passage", &passage, "-k"]);
    let ks = k.to_string();
    args.push(&ks);
    args.extend(knobs.iter().map(String::as_str));
    args.extend(["--format", "json", question]);
    let (code, v, err) = ranklens(ws.path(), &args);
    assert_eq!(code, Some(0), "{err}\n{v}");
    assert_eq!(v["rank"], at, "why-not's own rank of {passage}: {v}");
    let fixes = v["fixes"].as_array().unwrap();
    assert!(!fixes.is_empty(), "{v}");
    // Fewest edits first.
    let sizes: Vec<usize> = fixes.iter().map(|f| f["edits"].as_array().unwrap().len()).collect();
    assert!(sizes.windows(2).all(|w| w[0] <= w[1]) && sizes[0] <= 2, "{sizes:?}");
    for f in fixes {
        let claimed = f["rank"].as_u64().unwrap() as usize;
        assert!(claimed >= 1 && claimed <= k, "{f}");
        let mut fixed = knobs.clone();
        for (name, value) in f["settings"].as_object().unwrap() {
            fixed.push(format!("--{name}"));
            fixed.push(value.as_str().unwrap().to_string());
        }
        let question = f["question"].as_str().unwrap();
        let after = search(ws.path(), corpus, method, k, &fixed, question);
        let rank = after.iter().position(|d| *d == passage).map(|p| p + 1);
        assert_eq!(rank, Some(claimed), "{f}: searched again, {passage} is at {rank:?} in {after:?}");
    }
    fixes.len()
}

#[test]
fn bm25_fixes_on_the_sample_put_the_passage_where_they_say() {
    let n = check(&common::sample("acme-sync"), "bm25", 3, &[], "How long before saved results expire?", 6);
    assert!(n >= 1);
}

#[test]
fn tfidf_fixes_with_knobs_on_the_sample_put_the_passage_where_they_say() {
    let n = check(&common::sample("acme-sync"), "tfidf", 2, &[], "Why can't I share a folder?", 5);
    assert!(n >= 1);
}

#[test]
fn bm25_fixes_on_scifact_put_the_passage_where_they_say() {
    let scifact = common::shared_data("scifact");
    let q = "0-dimensional biomaterials show inductive properties.";
    let n = check(&scifact, "bm25", 10, &["--k1", "0.9", "--b", "0.4"], q, 25);
    assert!(n >= 1);
}

#[test]
fn dense_fixes_re_encode_the_question_and_hold_when_searched_again() {
    // The dense model comes from the model manager (fetched and checked on first use).
    let n = check(&common::sample("acme-sync"), "dense", 3, &[], "How long before saved results expire?", 7);
    assert!(n >= 1);
}

#[test]
fn a_passage_already_in_the_top_k_needs_no_fix_and_an_unknown_one_is_named() {
    let ws = tempfile::tempdir().unwrap();
    let corpus = common::sample("acme-sync");
    let c = corpus.display().to_string();
    let q = "How long before saved results expire?";
    let first = search(ws.path(), &corpus, "bm25", 1, &[], q).remove(0);
    let (code, v, err) =
        ranklens(ws.path(), &["why-not", "--corpus", &c, "--passage", &first, "-k", "3", "--format", "json", q]);
    assert_eq!(code, Some(1), "{err}");
    assert_eq!(v["rank"], 1);
    assert_eq!(v["fixes"], serde_json::json!([]));
    assert!(v["note"].as_str().unwrap().contains("nothing to fix"), "{v}");
    let (code, _, err) = ranklens(ws.path(), &["why-not", "--corpus", &c, "--passage", "no-such-id", q]);
    assert_eq!(code, Some(2));
    assert!(err.contains("no-such-id"), "{err}");
}

/// The sample's judgements, read here from its questions.tsv: question text → relevant passages.
fn sample_relevant() -> std::collections::BTreeMap<String, Vec<String>> {
    let tsv = std::fs::read_to_string(common::sample("acme-sync").join("questions.tsv")).unwrap();
    tsv.lines()
        .skip(1)
        .filter_map(|l| {
            let cols: Vec<&str> = l.split('\t').collect();
            let relevant = cols.get(2)?.split_whitespace().filter_map(|j| j.split_once(':')).filter(|(_, g)| *g != "0");
            Some((cols[1].to_string(), relevant.map(|(d, _)| d.to_string()).collect::<Vec<_>>()))
        })
        .filter(|(_, docs)| !docs.is_empty())
        .collect()
}

#[test]
fn missed_lists_every_relevant_passage_outside_the_top_k_and_its_counts_add_up() {
    // `why-not --missed` over the sample's judged questions, BM25's top 3; each listed passage is
    // checked against the judgements and against a separate `ranklens search -k 3`, and each
    // passage's best fix searched again.
    let ws = tempfile::tempdir().unwrap();
    let corpus = common::sample("acme-sync");
    let c = corpus.display().to_string();
    let k = 3;
    let (code, v, err) = ranklens(
        ws.path(),
        &[
            "why-not",
            "--corpus",
            &c,
            "--method",
            "bm25",
            "--missed",
            "-k",
            "3",
            "--questions",
            "100",
            "--format",
            "json",
        ],
    );
    assert_eq!(code, Some(0), "{err}");
    let relevant = sample_relevant();
    let passages = v["passages"].as_array().unwrap();
    // Every relevant passage outside the top 3 of every question, and nothing else.
    let mut expected = Vec::new();
    for (question, docs) in &relevant {
        let top = search(ws.path(), &corpus, "bm25", k, &[], question);
        for d in docs.iter().filter(|d| !top.contains(d)) {
            expected.push((question.clone(), d.clone()));
        }
    }
    let mut listed: Vec<(String, String)> = passages
        .iter()
        .map(|p| (p["question"].as_str().unwrap().to_string(), p["passage"].as_str().unwrap().to_string()))
        .collect();
    expected.sort();
    listed.sort();
    assert_eq!(listed, expected);
    assert_eq!(v["questions"], relevant.len());
    // The summary's counts are the list's.
    let fixed: Vec<&Value> = passages.iter().filter(|p| !p["fixes"].as_array().unwrap().is_empty()).collect();
    let one = fixed.iter().filter(|p| p["fixes"][0]["edits"].as_array().unwrap().len() == 1).count();
    assert_eq!(v["outside"], passages.len());
    assert_eq!(v["fixed"], fixed.len());
    assert_eq!(v["one_edit"], one);
    assert!((v["share"].as_f64().unwrap() - fixed.len() as f64 / passages.len() as f64).abs() < 1e-12);
    assert!(!fixed.is_empty(), "{v}");
    // Each passage's best fix, searched again in another process, puts it where it says.
    for p in fixed {
        let f = &p["fixes"][0];
        let mut knobs = Vec::new();
        for (name, value) in f["settings"].as_object().unwrap() {
            knobs.push(format!("--{name}"));
            knobs.push(value.as_str().unwrap().to_string());
        }
        let after = search(ws.path(), &corpus, "bm25", k, &knobs, f["question"].as_str().unwrap());
        let passage = p["passage"].as_str().unwrap();
        let rank = after.iter().position(|d| d == passage).map(|i| i + 1);
        assert_eq!(rank, f["rank"].as_u64().map(|r| r as usize), "{f}: searched again, {after:?}");
    }
}
