//! Acceptance: Anserini's BM25 on SciFact, reproduced with exact statistics.

mod common;

use ranklens::eval::{Metric, MetricSet, evaluate};

#[test]
fn lucene_bm25_matches_anserini_on_scifact() {
    let (run, qrels) = common::scifact_lucene_run();
    let summary = evaluate(&run, &qrels, &MetricSet::standard());
    let ndcg = summary.mean[&Metric::Ndcg(10)];
    let recall = summary.mean[&Metric::Recall(100)];
    assert!((ndcg - 0.6789).abs() <= 0.005, "nDCG@10 {ndcg:.4} vs Anserini 0.6789");
    assert!((recall - 0.9253).abs() <= 0.01, "R@100 {recall:.4} vs Anserini 0.9253");
}
