//! SciFact, Cranfield and Vaswani ranked by RankLens's `lucene` BM25 (k1 0.9, b 0.4) as Anserini
//! indexed them for `scripts/lucene-reference.sh` (SciFact title + text, the other two text
//! alone; a passage whose id is the question's left out, as `-removeQuery` does), with nDCG@10
//! and R@100: the README's "what moved" figures.
//!
//!   cargo run --release --example anserini_collections [-- exact] [-- DATA_DIR]
//!
//! `exact` scores with exact lengths in f64 (`--exact-lengths`); DATA_DIR defaults to
//! `$RANKLENS_DATA` or `../shared/data`.

use std::path::PathBuf;
use std::sync::Arc;

use ranklens::analysis::AnalyzerConfig;
use ranklens::corpus::Corpus;
use ranklens::eval::{Metric, MetricSet, Run, evaluate};
use ranklens::index::{IndexLocation, SparseIndex};
use ranklens::progress::NoProgress;
use ranklens::retrieve::{Bm25Params, Bm25Variant, LexicalModel, LexicalRetriever, QueryContext, Retriever};

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let exact = args.iter().any(|a| a == "exact");
    let data = args
        .iter()
        .find(|a| *a != "exact")
        .map(PathBuf::from)
        .or_else(|| std::env::var_os("RANKLENS_DATA").map(PathBuf::from))
        .unwrap_or_else(|| PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../shared/data"));
    for name in ["scifact", "cranfield", "vaswani"] {
        let full = ranklens::corpus::load(&data.join(name), Default::default())?;
        let qrels = full.qrels.clone().ok_or_else(|| format!("{name}: no qrels/test.tsv"))?;
        let corpus = if name == "scifact" {
            full
        } else {
            let mut c = Corpus::from_texts(name, full.docs().iter().map(|d| (d.id.as_str(), d.text.as_str())));
            c.queries = full.queries.clone();
            c
        };
        let index = Arc::new(SparseIndex::build(&corpus, AnalyzerConfig::default(), &IndexLocation::Ram, &NoProgress)?);
        let params = Bm25Params { k1: 0.9, b: 0.4, exact_lengths: exact, ..Bm25Variant::Lucene.default_params() };
        let bm25 = LexicalRetriever::new(index, LexicalModel::Bm25 { variant: Bm25Variant::Lucene, params })?;
        let mut run = Run::new("bm25");
        for q in corpus.queries.iter().filter(|q| qrels.judged(&q.id)) {
            let text = q.text.split_whitespace().collect::<Vec<_>>().join(" ");
            let ranking = bm25.search(&QueryContext::new(text.as_str()), 101)?;
            let mut hits: Vec<(String, f64)> =
                ranking.hits.iter().map(|h| (corpus.docs()[h.doc.index()].id.clone(), h.score)).collect();
            hits.retain(|(id, _)| id != &q.id);
            hits.truncate(100);
            run.insert(q.id.clone(), hits);
        }
        let e = evaluate(&run, &qrels, &MetricSet::standard());
        println!(
            "{name} ({}): nDCG@10 {:.4}  R@100 {:.4}",
            if exact { "exact lengths, f64" } else { "as Lucene" },
            e.mean[&Metric::Ndcg(10)],
            e.mean[&Metric::Recall(100)]
        );
    }
    Ok(())
}
