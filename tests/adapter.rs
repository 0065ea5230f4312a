//! The query adapter end to end, on the real dense model: trained by `ranklens adapter train` on a
//! BEIR folder's train judgements, measured on its test judgements, the same figure from
//! `ranklens eval --adapter`, and the adapted column's scores recomputed here from the adapter's
//! matrix and the passages' vectors.

mod common;

use std::path::Path;

use ranklens::config::Settings;
use ranklens::corpus::{self, LoadOptions};
use ranklens::models::{ModelManager, QueryAdapter, Role, TextEncoder};
use ranklens::progress::NoProgress;
use ranklens::retrieve::{Detail, MethodKind, QueryContext, ScoreSplit};
use ranklens::workbench::Workbench;
use serde_json::Value;

/// The sample as a BEIR folder: its questions alternately in train and test judgements.
fn beir(dir: &Path) -> (usize, usize) {
    let c = corpus::load(&common::sample("acme-sync"), LoadOptions::default()).unwrap();
    let mut docs = String::new();
    for d in c.docs() {
        docs.push_str(&serde_json::json!({"_id": d.id, "title": d.title, "text": d.text}).to_string());
        docs.push('\n');
    }
    std::fs::write(dir.join("corpus.jsonl"), docs).unwrap();
    let mut queries = String::new();
    for q in &c.queries {
        queries.push_str(&serde_json::json!({"_id": q.id, "text": q.text}).to_string());
        queries.push('\n');
    }
    std::fs::write(dir.join("queries.jsonl"), queries).unwrap();
    std::fs::create_dir_all(dir.join("qrels")).unwrap();
    let qrels = c.qrels.clone().unwrap();
    let (mut train, mut test) =
        (String::from("query-id\tcorpus-id\tscore\n"), String::from("query-id\tcorpus-id\tscore\n"));
    let (mut n_train, mut n_test) = (0, 0);
    for (i, (qid, docs)) in qrels.judgements.iter().enumerate() {
        let (out, n) = if i % 2 == 0 { (&mut train, &mut n_train) } else { (&mut test, &mut n_test) };
        *n += 1;
        for (doc, g) in docs {
            out.push_str(&format!("{qid}\t{doc}\t{g}\n"));
        }
    }
    std::fs::write(dir.join("qrels/train.tsv"), train).unwrap();
    std::fs::write(dir.join("qrels/test.tsv"), test).unwrap();
    (n_train, n_test)
}

fn run(args: &[&str], ws: &Path) -> Value {
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_ranklens"))
        .args(args)
        .env("RANKLENS_WORKSPACE", ws)
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{args:?}: {stderr}");
    serde_json::from_slice(&out.stdout).unwrap_or_else(|e| panic!("{e}: {stderr}"))
}

#[test]
fn an_adapter_trains_on_train_judgements_and_is_measured_on_test_by_train_and_by_eval_alike() {
    let data = tempfile::tempdir().unwrap();
    let ws = tempfile::tempdir().unwrap();
    let (n_train, n_test) = beir(data.path());
    let out = data.path().join("adapter.safetensors");
    let dataset = data.path().to_str().unwrap();
    let trained = run(
        &[
            "adapter",
            "train",
            "--dataset",
            dataset,
            "--split",
            "train",
            "--out",
            out.to_str().unwrap(),
            "--format",
            "json",
        ],
        ws.path(),
    );
    assert_eq!(trained["questions"], n_train);
    assert!(trained["pairs"].as_u64().unwrap() >= n_train as u64, "a pair per relevant passage");
    let loss: Vec<f64> = trained["loss"].as_array().unwrap().iter().map(|v| v.as_f64().unwrap()).collect();
    assert_eq!(loss.len(), 20);
    assert!(loss.last() < loss.first(), "{loss:?}");
    let held = &trained["held_out"];
    assert_eq!(held["questions"], n_test);
    let (dense, adapted) = (held["dense"].as_f64().unwrap(), held["adapted"].as_f64().unwrap());
    assert!((0.0..=1.0).contains(&dense) && (0.0..=1.0).contains(&adapted));

    // `eval --adapter` gives a row for dense and one for dense + adapter: the same figures.
    let study = run(
        &["eval", "--dataset", dataset, "--method", "dense", "--adapter", out.to_str().unwrap(), "--format", "json"],
        ws.path(),
    );
    let methods = study["methods"].as_array().unwrap();
    assert_eq!(methods.len(), 2, "{methods:?}");
    assert_eq!(methods[0]["kind"], "dense");
    assert_eq!(methods[1]["kind"], "dense_adapter");
    assert!(methods[1]["label"].as_str().unwrap().contains("adapter.safetensors"));
    let ndcg = |m: &Value| m["summary"]["mean"]["nDCG@10"].as_f64().expect("the mean nDCG@10");
    let (a, b) = (ndcg(&methods[0]), ndcg(&methods[1]));
    assert!((a - dense).abs() < 1e-12 && (b - adapted).abs() < 1e-12, "{a} {b} vs {dense} {adapted}");
}

#[test]
fn the_adapted_columns_cosines_are_w_q_against_the_passages_and_split_over_their_tokens() {
    let c = corpus::load(&common::sample("acme-sync"), LoadOptions::default()).unwrap();
    let engine = Workbench::new(c.clone()).with_workspace(tempfile::tempdir().unwrap().keep());
    engine.load_model(&ModelManager::from_env().offline(false), Role::Dense, true, &NoProgress).unwrap();
    engine.build_neural(&NoProgress).unwrap();
    let adapter = engine.train_adapter(c.qrels.as_ref().unwrap(), &c.queries, "the sample", &NoProgress).unwrap();
    assert_ne!(adapter.weights, QueryAdapter::identity(&adapter.model_id, adapter.dim).weights, "training moved W");
    let path = tempfile::tempdir().unwrap().keep().join("a.safetensors");
    adapter.save(&path).unwrap();
    let settings = Settings { adapter: Some(path), ..Settings::default() };
    let r = engine.retriever(MethodKind::DenseAdapter, &settings).unwrap();
    let question = "Why does my phone say my login is stale?";
    let p = r.prepare(&QueryContext::new(question)).unwrap();
    let ranking = p.search(5).unwrap();
    // W q / |W q| by hand, in f64, against each passage's stored vector.
    let n = engine.neural();
    let q =
        n.dense.as_ref().unwrap().encoder.encode(&[question], ranklens::models::InputKind::Query).unwrap().remove(0);
    let d = adapter.dim;
    let mapped: Vec<f64> =
        (0..d).map(|i| (0..d).map(|j| f64::from(adapter.weights[i * d + j]) * f64::from(q[j])).sum()).collect();
    let norm = mapped.iter().map(|x| x * x).sum::<f64>().sqrt();
    let index = n.dense_index.as_ref().unwrap();
    for h in &ranking.hits {
        let v = index.vector(h.doc).unwrap();
        let cos: f64 = mapped.iter().zip(v).map(|(a, &b)| a / norm * f64::from(b)).sum();
        assert!((cos - h.score).abs() < 1e-5, "{}: {cos} by hand, {} by the column", h.doc, h.score);
        let e = p.explain(h.doc).unwrap();
        assert_eq!(e.value, h.score);
        let ScoreSplit::Sum(parts) = e.split() else { panic!("{:?}", e.split()) };
        let sum: f64 = parts.iter().map(|(_, v)| v).sum();
        assert!((sum - e.value).abs() < 1e-4, "passage parts {sum} vs {}", e.value);
        let Detail::Dense { query_tokens, .. } = &e.detail else { panic!() };
        let qsum: f64 = query_tokens.iter().map(|t| t.contribution).sum();
        assert!((qsum - e.value).abs() < 1e-4, "the question's mapped tokens {qsum} vs {}", e.value);
    }
    assert_eq!(ranking.kind, MethodKind::DenseAdapter);
    assert!(ranking.method.contains("a.safetensors"));
}
