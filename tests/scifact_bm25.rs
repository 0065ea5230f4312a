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

/// Dynamic pruning changes nothing: for every SciFact query, every BM25 variant RankLens scores
/// and every depth that is pruned, the MaxScore ranking is the exhaustive one — the same
/// documents in the same order with bit-identical scores, and the same count of matches.
#[test]
fn pruned_bm25_ranks_every_scifact_query_exactly_as_exhaustive_scoring() {
    use ranklens::analysis::AnalyzerConfig;
    use ranklens::index::{IndexLocation, SparseIndex};
    use ranklens::progress::NoProgress;
    use ranklens::retrieve::{Bm25Params, Bm25Variant, LexicalModel, LexicalRetriever, QueryContext, Retriever};
    use std::sync::Arc;
    let corpus = ranklens::corpus::load(&common::shared_data("scifact"), Default::default()).unwrap();
    let index =
        Arc::new(SparseIndex::build(&corpus, AnalyzerConfig::default(), &IndexLocation::Ram, &NoProgress).unwrap());
    let mut compared = 0;
    for variant in Bm25Variant::ALL.into_iter().filter(|v| *v != Bm25Variant::Tantivy) {
        for (k1, b) in [(0.9, 0.4), (1.2, 0.75), (2.0, 1.0)] {
            let params = Bm25Params { k1, b, ..variant.default_params() };
            let r = LexicalRetriever::new(index.clone(), LexicalModel::Bm25 { variant, params }).unwrap();
            for q in &corpus.queries {
                let query = QueryContext::new(q.text.as_str());
                for k in [1, 10, 100] {
                    let pruned = r.search_pruned(&query, k).unwrap();
                    let full = r.search_exhaustive(&query, k).unwrap();
                    let bits = |x: &ranklens::retrieve::Ranking| {
                        x.hits.iter().map(|h| (h.doc, h.score.to_bits())).collect::<Vec<_>>()
                    };
                    assert_eq!(bits(&pruned), bits(&full), "{variant} k1={k1} b={b} k={k}: {}", q.text);
                    assert_eq!(pruned.total_matches, full.total_matches);
                    let chosen = r.search(&query, k).unwrap();
                    assert_eq!(bits(&chosen), bits(&full), "the path `search` chooses");
                    compared += 1;
                }
            }
        }
    }
    assert_eq!(compared, 7 * 3 * 300 * 3);
}
