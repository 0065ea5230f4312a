//! Runs from files as systems: `ranklens eval --qrels Q --run A --run B …` with no corpus, every
//! metric against pytrec_eval (trec_eval's own code) to 1e-4, p-values corrected for the number
//! of systems, and the per-query triage; runs as columns beside the methods on SciFact.

mod common;

use std::path::Path;
use std::process::Command;

use ranklens::analysis::AnalyzerConfig;
use ranklens::compare::{Outcome, Plan};
use ranklens::config::Settings;
use ranklens::corpus::{LoadOptions, load};
use ranklens::eval::{Run, RunFile};
use ranklens::progress::NoProgress;
use ranklens::retrieve::{Bm25Variant, MethodKind, QueryContext, TfIdfVariant};
use ranklens::workbench::{SparseSpec, Workbench};
use serde_json::Value;

/// pytrec_eval's means of the study's metrics for one TREC run file.
fn pytrec(qrels: &Path, run: &Path) -> Value {
    let script = Path::new(env!("CARGO_MANIFEST_DIR")).join("scripts/trec_eval_check.py");
    let out = Command::new(common::checker_python())
        .arg(script)
        .arg(qrels)
        .arg(run)
        .args(["ndcg_cut.10", "recall.100", "map", "recip_rank"])
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    serde_json::from_slice(&out.stdout).unwrap()
}

fn ranklens(args: &[&str]) -> (String, String) {
    let out = Command::new(env!("CARGO_BIN_EXE_ranklens")).args(args).output().unwrap();
    let (stdout, stderr) =
        (String::from_utf8_lossy(&out.stdout).into_owned(), String::from_utf8_lossy(&out.stderr).into_owned());
    assert!(out.status.success(), "ranklens {args:?} failed: {stderr}");
    (stdout, stderr)
}

/// SciFact runs of three RankLens methods, 100 deep.
fn scifact_runs() -> Vec<(&'static str, Run)> {
    let corpus = load(&common::shared_data("scifact"), LoadOptions::default()).unwrap();
    let engine = Workbench::new(corpus);
    let settings = Settings::default();
    let specs = [
        ("bm25", SparseSpec::bm25(Bm25Variant::Lucene, Bm25Variant::Lucene.default_params())),
        ("okapi", SparseSpec::bm25(Bm25Variant::Okapi, Bm25Variant::Okapi.default_params())),
        ("tfidf", SparseSpec::tfidf(TfIdfVariant::CosineLog2, true)),
    ];
    specs
        .into_iter()
        .map(|(name, spec)| {
            let r = engine.sparse(spec, AnalyzerConfig::default(), &NoProgress).unwrap();
            (name, engine.run_queries(r.as_ref(), &settings, 100, &NoProgress).unwrap())
        })
        .collect()
}

#[test]
fn runs_alone_are_evaluated_like_trec_eval_with_corrected_tests_and_triage() {
    let qrels = common::shared_data("scifact").join("qrels/test.tsv");
    let dir = tempfile::tempdir().unwrap();
    let runs = scifact_runs();
    // The same runs in three formats: TREC, CSV with a header, gzipped JSON Lines.
    let mut args = vec!["eval".to_string(), "--qrels".into(), qrels.display().to_string()];
    for (i, (name, run)) in runs.iter().enumerate() {
        let trec = dir.path().join(format!("{name}.trec"));
        run.write_trec(&trec).unwrap();
        let given = match i {
            0 => trec.clone(),
            1 => {
                let csv = dir.path().join(format!("{name}.csv"));
                let rows: String = run
                    .results
                    .iter()
                    .flat_map(|(q, l)| l.iter().map(move |(d, s)| format!("{q},{d},{s}\n")))
                    .collect();
                std::fs::write(&csv, format!("query_id,doc_id,score\n{rows}")).unwrap();
                csv
            }
            _ => {
                let gz = dir.path().join(format!("{name}.jsonl.gz"));
                let mut enc = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::fast());
                for (q, l) in &run.results {
                    for (d, s) in l {
                        let line = serde_json::json!({"qid": q, "docid": d, "score": s});
                        std::io::Write::write_all(&mut enc, format!("{line}\n").as_bytes()).unwrap();
                    }
                }
                std::fs::write(&gz, enc.finish().unwrap()).unwrap();
                gz
            }
        };
        args.extend(["--run".into(), format!("{name}={}", given.display())]);
    }
    let arg_refs: Vec<&str> = args.iter().map(String::as_str).collect();
    let json_args: Vec<&str> = arg_refs.iter().copied().chain(["--format", "json"]).collect();
    let (stdout, _) = ranklens(&json_args);
    let study: Value = serde_json::from_str(&stdout).unwrap();
    assert_eq!(study["num_queries"], 300);
    assert_eq!(study["correction"], "holm");
    let methods = study["methods"].as_array().unwrap();
    assert_eq!(methods.iter().map(|m| m["label"].as_str().unwrap()).collect::<Vec<_>>(), ["bm25", "okapi", "tfidf"]);
    for (m, (name, _)) in methods.iter().zip(&runs) {
        let theirs = pytrec(&qrels, &dir.path().join(format!("{name}.trec")));
        for (ours, trec) in [("nDCG@10", "ndcg_cut.10"), ("R@100", "recall.100"), ("MAP", "map"), ("MRR", "recip_rank")]
        {
            let (a, b) = (m["summary"]["mean"][ours].as_f64().unwrap(), theirs[trec].as_f64().unwrap());
            assert!((a - b).abs() < 1e-4, "{name} {ours}: RankLens {a:.6} vs pytrec_eval {b:.6}");
        }
    }
    // Holm over the two tests against bm25, by hand from the raw p-values.
    let p: Vec<f64> = methods[1..].iter().map(|m| m["versus_baseline"]["p_randomisation"].as_f64().unwrap()).collect();
    let adjusted: Vec<f64> =
        methods[1..].iter().map(|m| m["versus_baseline"]["p_adjusted"].as_f64().unwrap()).collect();
    let (lo, hi) = if p[0] <= p[1] { (0, 1) } else { (1, 0) };
    let first = (2.0 * p[lo]).min(1.0);
    assert_eq!(adjusted[lo], first);
    assert_eq!(adjusted[hi], p[hi].min(1.0).max(first));

    // The table names the correction; the triage lists every judged query × system.
    let (table, stderr) = ranklens(&arg_refs);
    assert!(table.contains("Holm correction over 2 test(s)") && table.contains("p (Holm)"), "{table}");
    assert!(stderr.contains("run okapi: ") && stderr.contains("(CSV)") && stderr.contains("(JSON Lines)"), "{stderr}");
    let triage_args: Vec<&str> =
        arg_refs.iter().copied().chain(["--triage", "gain:tfidf", "--format", "csv"]).collect();
    let (csv, _) = ranklens(&triage_args);
    let mut lines = csv.lines();
    assert_eq!(lines.next(), Some("qid,bm25,okapi,tfidf,spread,question"));
    let rows: Vec<Vec<f64>> =
        lines.map(|l| l.split(',').skip(1).take(3).map(|v| v.parse().unwrap()).collect()).collect();
    assert_eq!(rows.len(), 300);
    let gains: Vec<f64> = rows.iter().map(|r| r[2] - r[0]).collect();
    assert!(gains.windows(2).all(|w| w[0] >= w[1] - 1e-9), "ordered by tfidf's gain over bm25");
}

#[test]
fn a_run_is_a_column_beside_the_methods_and_says_what_the_corpus_lacks() {
    let corpus = load(&common::shared_data("scifact"), LoadOptions::default()).unwrap();
    let question = corpus.query("1").unwrap().text.clone();
    let (a, b) = (corpus.docs()[0].id.clone(), corpus.docs()[1].id.clone());
    let engine = Workbench::new(corpus);
    // Query 1's list, with one document the corpus does not hold put at rank 2.
    let text = format!("1 Q0 {a} 1 9.5 mine\n1 Q0 not-a-doc 2 9.0 mine\n1 Q0 {b} 3 8.0 mine\n2 Q0 {a} 1 1 mine\n");
    let run = RunFile::parse(text.as_bytes(), None, Path::new("mine.trec"), "mine").unwrap();
    let settings = Settings { methods: vec![MethodKind::Bm25], ..Settings::default() };
    let plan = Plan::from_settings(&settings, None, None).with_runs(&[std::sync::Arc::new(run)]);
    let run = plan.run(&engine, &QueryContext::new(&question), &NoProgress).unwrap();
    let column = &run.comparison.runs[1];
    assert_eq!((column.kind, column.label.as_str()), (MethodKind::Run, "mine"));
    let Outcome::Ranked(r) = &column.outcome else { panic!("{:?}", column.outcome) };
    let ids: Vec<&str> = r.hits.iter().map(|h| engine.corpus().external_id(h.doc)).collect();
    assert_eq!(ids, [a.as_str(), b.as_str()]);
    assert_eq!((r.absent.len(), r.absent[0].id.as_str(), r.absent[0].rank), (1, "not-a-doc", 2));
    assert_eq!(r.rank_of(r.hits[1].doc), Some(3));
    let e = run.explain_in("mine", r.hits[0].doc).unwrap().unwrap();
    assert_eq!(e.value, 9.5);
    // Every report format keeps the document the corpus lacks, at its rank.
    let report = ranklens::report::ReportBody::Comparison(Box::new(ranklens::report::comparison_report(
        &engine, &run, &settings, None,
    )));
    let csv = ranklens::report::render(&report, ranklens::report::ReportFormat::Csv).unwrap();
    assert!(csv.contains(",mine,2,not-a-doc,9.000000\n"), "{csv}");
    let md = ranklens::report::render(&report, ranklens::report::ReportFormat::Markdown).unwrap();
    assert!(md.contains("not-a-doc (9.000, not in the corpus)"), "{md}");
    let html = ranklens::report::render(&report, ranklens::report::ReportFormat::Html).unwrap();
    assert!(html.contains("2. not-a-doc (not in the corpus)"), "the rankings chart");
    // A question the run does not rank: its column says so, the methods still rank.
    let other = plan.run(&engine, &QueryContext::new("an unlisted question"), &NoProgress).unwrap();
    assert!(
        matches!(&other.comparison.runs[1].outcome, Outcome::Unavailable { message } if message.contains("ranks only the questions of its question set"))
    );
    assert!(other.comparison.runs[0].ranking().is_some_and(|r| !r.hits.is_empty()));
}

/// A BEIR folder whose query and document ids hold spaces (its TSV is split on tabs only): every
/// judged question is evaluated, and the run RankLens writes of it (TSV, since a TREC line cannot
/// carry a space in an id) reads back to the same figures.
#[test]
fn ids_with_spaces_are_evaluated_and_written_runs_read_back() {
    let dir = tempfile::tempdir().unwrap();
    let data = dir.path().join("spaced");
    std::fs::create_dir_all(data.join("qrels")).unwrap();
    let corpus = [
        ("doc one", "apples and oranges"),
        ("doc two", "bananas are yellow"),
        ("doc three", "cherries are red and sweet"),
        ("d4", "grapes grow on vines"),
    ];
    let lines: String = corpus
        .iter()
        .map(|(id, text)| format!("{}\n", serde_json::json!({"_id": id, "title": "", "text": text})))
        .collect();
    std::fs::write(data.join("corpus.jsonl"), lines).unwrap();
    let queries = [("q 1", "apples oranges"), ("q 2", "yellow bananas"), ("q3", "red cherries")];
    let lines: String =
        queries.iter().map(|(id, text)| format!("{}\n", serde_json::json!({"_id": id, "text": text}))).collect();
    std::fs::write(data.join("queries.jsonl"), lines).unwrap();
    std::fs::write(
        data.join("qrels/test.tsv"),
        "query-id\tcorpus-id\tscore\nq 1\tdoc one\t1\nq 2\tdoc two\t1\nq3\tdoc three\t2\nq3\td4\t1\n",
    )
    .unwrap();
    let runs = dir.path().join("runs");
    let (out, err) = ranklens(&[
        "eval",
        "--dataset",
        data.to_str().unwrap(),
        "--method",
        "bm25",
        "--runs",
        runs.to_str().unwrap(),
        "--format",
        "json",
    ]);
    let study: Value = serde_json::from_str(&out).unwrap();
    let bm25 = &study["methods"][0];
    assert_eq!(study["num_queries"], 3, "every judged question, spaces and all: {err}");
    // By hand: q 1 and q 2 find their one relevant passage first (nDCG 1); q3 finds `doc three`
    // (grade 2) first and never `d4` (grade 1): 2 / (2 + 1/log2 3).
    let q3 = 2.0 / (2.0 + 1.0 / 3f64.log2());
    let ndcg = bm25["summary"]["mean"]["nDCG@10"].as_f64().unwrap();
    assert!((ndcg - (2.0 + q3) / 3.0).abs() < 1e-12, "{ndcg}");
    assert!(err.contains("written as TSV"), "{err}");
    let written: Vec<_> = std::fs::read_dir(&runs).unwrap().map(|e| e.unwrap().path()).collect();
    assert_eq!(written.len(), 1);
    assert_eq!(written[0].extension().unwrap(), "tsv");
    let (again, _) = ranklens(&[
        "eval",
        "--qrels",
        data.join("qrels/test.tsv").to_str().unwrap(),
        "--run",
        written[0].to_str().unwrap(),
        "--format",
        "json",
    ]);
    let again: Value = serde_json::from_str(&again).unwrap();
    assert_eq!(again["num_queries"], 3);
    assert_eq!(
        again["methods"][0]["summary"]["mean"], bm25["summary"]["mean"],
        "the run reads back to the same figures"
    );
}

/// `ranklens eval --method all` where no model is here: every method that cannot run is a row of
/// the study saying why, in the table and the JSON (none is dropped), and the others are scored.
#[test]
fn methods_that_cannot_run_stay_rows_with_their_reasons() {
    let dir = tempfile::tempdir().unwrap();
    let sample = common::sample("acme-sync");
    let run = |format: &str| {
        let out = Command::new(env!("CARGO_BIN_EXE_ranklens"))
            .args(["eval", "--dataset", sample.to_str().unwrap(), "--method", "all", "--offline", "--format", format])
            .env("XDG_CACHE_HOME", dir.path().join("no-models"))
            .env("HF_HOME", dir.path().join("no-hub"))
            .env("RANKLENS_WORKSPACE", dir.path().join("ws"))
            .output()
            .unwrap();
        assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
        String::from_utf8(out.stdout).unwrap()
    };
    let study: Value = serde_json::from_str(&run("json")).unwrap();
    let ran: Vec<&str> = study["methods"].as_array().unwrap().iter().map(|m| m["kind"].as_str().unwrap()).collect();
    assert_eq!(ran, ["tf_idf", "bm25"]);
    let missing: Vec<(&str, &str)> = study["missing"]
        .as_array()
        .unwrap()
        .iter()
        .map(|m| (m["kind"].as_str().unwrap(), m["message"].as_str().unwrap()))
        .collect();
    let kinds: Vec<&str> = missing.iter().map(|m| m.0).collect();
    assert_eq!(kinds, ["splade", "dense", "late_interaction", "fusion", "rerank", "dense_adapter"]);
    assert!(missing[1].1.contains("ranklens models fetch --role dense"), "{}", missing[1].1);
    // The adapter's column needs a file only its user can give: it says how to make one.
    assert!(missing[5].1.contains("ranklens adapter train"), "{}", missing[5].1);
    let table = run("table");
    for label in ["SPLADE", "Dense", "Late interaction", "Fusion", "Rerank", "Dense + adapter"] {
        assert!(table.lines().any(|l| l.starts_with(label) && l.contains("not run")), "{label}: {table}");
        assert!(table.contains(&format!("{label} was not run: ")), "{table}");
    }
}
