//! tantivy's own BM25, run by the engine, as a cross-check of RankLens's `lucene` variant.
//!
//! tantivy scores Lucene's formula times (k1+1) with k1 = 1.2 and b = 0.75 fixed, and it reads |d|
//! from a one-byte norm (exact up to 40 tokens, rounded down beyond). Running the engine itself,
//! rather than re-implementing it, is what makes the comparison a check.

use std::sync::Arc;

use serde_json::Value;
use tantivy::collector::{Count, TopDocs};
use tantivy::query::{BooleanQuery, BoostQuery, Occur, Query, TermQuery};
use tantivy::schema::IndexRecordOption;
use tantivy::{DocAddress, Term};

use super::lexical::{query_term_counts, summarise};
use super::{Bm25Variant, Detail, Explanation, Hit, MethodKind, QueryContext, Ranking, Retriever, TermRow, TermTable};
use crate::corpus::DocId;
use crate::index::SparseIndex;
use crate::{Error, Result};

/// tantivy's BM25 over the same index.
pub struct TantivyBm25 {
    index: Arc<SparseIndex>,
}

impl TantivyBm25 {
    /// Use the engine of this index.
    pub fn new(index: Arc<SparseIndex>) -> Self {
        Self { index }
    }

    fn term_query(&self, term: &str) -> TermQuery {
        let (_, _, body) = self.index.tantivy();
        TermQuery::new(Term::from_field_text(body, term), IndexRecordOption::WithFreqs)
    }

    fn query(&self, counts: &[(String, u32)]) -> BooleanQuery {
        let clauses: Vec<(Occur, Box<dyn Query>)> = counts
            .iter()
            .map(|(term, qtf)| {
                let q: Box<dyn Query> = Box::new(self.term_query(term));
                let q: Box<dyn Query> = if *qtf > 1 { Box::new(BoostQuery::new(q, *qtf as f32)) } else { q };
                (Occur::Should, q)
            })
            .collect();
        BooleanQuery::new(clauses)
    }
}

/// Find the value of the first node whose description starts with `prefix`.
fn find_value(node: &Value, prefix: &str) -> Option<f64> {
    let desc = node.get("description").and_then(Value::as_str).unwrap_or("");
    if desc.starts_with(prefix) {
        return node.get("value").and_then(Value::as_f64);
    }
    node.get("details")?.as_array()?.iter().find_map(|d| find_value(d, prefix))
}

impl Retriever for TantivyBm25 {
    fn kind(&self) -> MethodKind {
        MethodKind::Bm25
    }

    fn label(&self) -> String {
        "BM25 (tantivy, k1=1.2, b=0.75 fixed)".to_string()
    }

    fn search(&self, query: &QueryContext, k: usize) -> Result<Ranking> {
        let counts = query_term_counts(&self.index.analyzer().terms(&query.text));
        let (_, searcher, _) = self.index.tantivy();
        if counts.is_empty() || self.index.num_docs() == 0 {
            return Ok(Ranking {
                method: self.label(),
                kind: self.kind(),
                hits: vec![],
                total_matches: 0,
                unranked: false,
            });
        }
        let bq = self.query(&counts);
        // With a filter the engine cannot see, fetch every match and filter after scoring.
        let limit = if query.filter.is_some() { self.index.num_docs() } else { k.max(1) };
        let (top, count) = searcher.search(&bq, &(TopDocs::with_limit(limit).order_by_score(), Count))?;
        let mut hits: Vec<Hit> = top
            .into_iter()
            .map(|(score, addr)| Hit { doc: DocId(addr.doc_id), score: f64::from(score) })
            .filter(|h| query.allows(h.doc))
            .collect();
        let total_matches = if query.filter.is_some() { hits.len() } else { count };
        hits = super::top_k(hits, k);
        Ok(Ranking { method: self.label(), kind: self.kind(), hits, total_matches, unranked: false })
    }

    fn explain(&self, query: &QueryContext, doc: DocId) -> Result<Explanation> {
        if doc.index() >= self.index.num_docs() {
            return Err(Error::invalid("document", format!("{doc} is not in the index")));
        }
        if !query.allows(doc) {
            return Ok(query.filtered_explanation(&self.label()));
        }
        let (_, searcher, _) = self.index.tantivy();
        let counts = query_term_counts(&self.index.analyzer().terms(&query.text));
        let addr = DocAddress::new(0, doc.0);
        let stats = self.index.stats();
        let p = Bm25Variant::Tantivy.default_params();
        let dl = f64::from(self.index.tantivy_doc_len(doc)?);
        let mut rows = Vec::new();
        for (term, qtf) in &counts {
            let df = self.index.doc_freq(term)?;
            let idf = Bm25Variant::Tantivy.idf(stats.n_docs, df, &p, 0.0);
            let mut row = TermRow {
                term: term.clone(),
                qtf: *qtf,
                tf: 0,
                df,
                idf,
                dl,
                avgdl: stats.avgdl,
                k1: Some(p.k1),
                b: Some(p.b),
                tf_weight: 0.0,
                norm: None,
                contribution: 0.0,
            };
            if let Ok(e) = self.term_query(term).explain(searcher, addr) {
                let json = serde_json::to_value(&e).map_err(|e| Error::Index(e.to_string()))?;
                row.tf = find_value(&json, "freq,").unwrap_or(0.0) as u32;
                row.idf = find_value(&json, "idf").unwrap_or(idf);
                row.dl = find_value(&json, "dl,").unwrap_or(dl);
                row.avgdl = find_value(&json, "avgdl").unwrap_or(stats.avgdl);
                row.tf_weight = (p.k1 + 1.0) * find_value(&json, "freq /").unwrap_or(0.0);
                row.contribution = f64::from(*qtf) * f64::from(e.value());
            }
            rows.push(row);
        }
        let value = if counts.is_empty() {
            0.0
        } else {
            self.query(&counts).explain(searcher, addr).map(|e| f64::from(e.value())).unwrap_or(0.0)
        };
        let mut summary = summarise(&rows, &self.index.analyzer().config().to_string());
        summary.push_str(" Scored by tantivy in f32 with its one-byte length norm.");
        let mut e = Explanation::new(self.label(), value, Bm25Variant::Tantivy.formula(), summary);
        e.analyzer = Some(self.index.analyzer().config().to_string());
        e.detail = Detail::Terms(TermTable {
            n: stats.n_docs,
            avgdl: stats.avgdl,
            rows,
            model: Some(super::LexicalModel::Bm25 { variant: Bm25Variant::Tantivy, params: p }),
        });
        Ok(e)
    }
}
