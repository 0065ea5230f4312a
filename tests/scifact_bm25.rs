//! Acceptance: Anserini's BM25 on SciFact, reproduced with exact statistics.

mod common;

use ranklens::analysis::AnalyzerConfig;
use ranklens::config::Settings;
use ranklens::corpus::{LoadOptions, load};
use ranklens::engine::{Engine, SparseSpec};
use ranklens::eval::{Metric, MetricSet, evaluate};
use ranklens::progress::NoProgress;
use ranklens::retrieve::{Bm25Params, Bm25Variant};

#[test]
fn lucene_bm25_matches_anserini_on_scifact() {
    let corpus = load(&common::shared_data("scifact"), LoadOptions::default()).unwrap();
    assert_eq!(corpus.len(), 5183);
    assert_eq!(corpus.queries.len(), 300);
    let qrels = corpus.qrels.clone().unwrap();
    let engine = Engine::new(corpus);
    let params = Bm25Params { k1: 0.9, b: 0.4, ..Bm25Variant::Lucene.default_params() };
    let bm25 = engine
        .sparse(SparseSpec::Bm25 { variant: Bm25Variant::Lucene, params }, AnalyzerConfig::default(), &NoProgress)
        .unwrap();
    let run = engine.run_queries(bm25.as_ref(), &Settings::default(), 1000, &NoProgress).unwrap();
    let summary = evaluate(&run, &qrels, &MetricSet::standard());
    let ndcg = summary.mean[&Metric::Ndcg(10)];
    let recall = summary.mean[&Metric::Recall(100)];
    assert!((ndcg - 0.6789).abs() <= 0.005, "nDCG@10 {ndcg:.4} vs Anserini 0.6789");
    assert!((recall - 0.9253).abs() <= 0.01, "R@100 {recall:.4} vs Anserini 0.9253");
}
