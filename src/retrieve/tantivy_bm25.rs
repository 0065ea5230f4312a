//! tantivy's own BM25, run by the engine, as a cross-check of RankLens's `lucene` variant.
//!
//! tantivy scores Lucene's formula times (k1+1) with k1 = 1.2 and b = 0.75 fixed, and it reads |d|
//! from a one-byte norm (exact up to 40 tokens, rounded down beyond). Running the engine itself,
//! rather than re-implementing it, is what makes the comparison a check.
//!
//! The term rows of an explanation are read from tantivy's own explanation tree, by its structure
//! (a product of a constant, an idf node over `n` and `N`, and a tf node over `freq`, `k1`, `b`,
//! `dl`, `avgdl`), and checked: each term node must equal the product of its factors and the rows
//! must sum to tantivy's score for the whole query. Where tantivy's format moves, explaining fails
//! with a message naming what was not found, rather than showing rows that do not add up.

use std::sync::Arc;

use serde_json::Value;
use tantivy::collector::{Count, TopDocs};
use tantivy::query::{BooleanQuery, BoostQuery, Occur, Query, TermQuery};
use tantivy::schema::IndexRecordOption;
use tantivy::{DocAddress, Term};

use super::lexical::{query_term_counts, summarise};
use super::{
    Bm25Variant, Detail, Explanation, Hit, MethodKind, Prepared, QueryContext, Ranking, Retriever, TermRow, TermTable,
};
use crate::corpus::DocId;
use crate::index::SparseIndex;
use crate::{Error, Result};

/// tantivy's BM25 over the same index.
#[derive(Clone)]
pub struct TantivyBm25 {
    index: Arc<SparseIndex>,
}

/// A question prepared for tantivy: its analysed terms with their query counts and the query.
struct PreparedTantivy {
    retriever: TantivyBm25,
    query: QueryContext,
    counts: Vec<(String, u32)>,
    boolean: BooleanQuery,
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

/// The factors of one term's score as tantivy explains it.
#[derive(Debug, Clone, Copy, PartialEq)]
struct TermFactors {
    score: f64,
    idf: f64,
    tf_factor: f64,
    k1_plus_1: f64,
    freq: f64,
    dl: f64,
    avgdl: f64,
}

/// The symbol a node's description starts with: `freq, occurrences of term…` → `freq`,
/// `avgdl (average length)` → `avgdl`.
fn symbol(node: &Value) -> &str {
    let desc = node.get("description").and_then(Value::as_str).unwrap_or("").trim_start();
    let end = desc.find(|c: char| !(c.is_alphanumeric() || c == '_')).unwrap_or(desc.len());
    &desc[..end]
}

fn value(node: &Value) -> Option<f64> {
    node.get("value").and_then(Value::as_f64)
}

fn children(node: &Value) -> &[Value] {
    node.get("details").and_then(Value::as_array).map(Vec::as_slice).unwrap_or(&[])
}

/// The value of the child named `name` among a node's children.
fn leaf(node: &Value, name: &str, context: &str) -> Result<f64> {
    children(node).iter().find(|c| symbol(c) == name).and_then(value).ok_or_else(|| {
        Error::Index(format!("tantivy's BM25 explanation changed shape: no `{name}` under the {context} node"))
    })
}

/// Read one term's factors from tantivy's explanation of a `TermQuery`, by structure: the product
/// node's children are a constant (k1 + 1), the idf node (the child with `n` and `N` under it) and
/// the tf node (the child with `freq` under it). The product must equal the node's value.
fn term_factors(json: &Value) -> Result<TermFactors> {
    let parts = children(json);
    let has = |c: &Value, name: &str| children(c).iter().any(|d| symbol(d) == name);
    let idf_node = parts.iter().find(|c| has(c, "n") && has(c, "N"));
    let tf_node = parts.iter().find(|c| has(c, "freq"));
    let constant = parts.iter().find(|c| children(c).is_empty());
    let (Some(idf_node), Some(tf_node), Some(constant)) = (idf_node, tf_node, constant) else {
        return Err(Error::Index(format!(
            "tantivy's BM25 explanation changed shape: expected (k1 + 1) × idf × tf factor, found [{}]",
            parts.iter().map(symbol).collect::<Vec<_>>().join(", ")
        )));
    };
    let missing = |what: &str| Error::Index(format!("tantivy's BM25 explanation has no value for {what}"));
    let f = TermFactors {
        score: value(json).ok_or_else(|| missing("the term"))?,
        idf: value(idf_node).ok_or_else(|| missing("idf"))?,
        tf_factor: value(tf_node).ok_or_else(|| missing("the tf factor"))?,
        k1_plus_1: value(constant).ok_or_else(|| missing("k1 + 1"))?,
        freq: leaf(tf_node, "freq", "tf")?,
        dl: leaf(tf_node, "dl", "tf")?,
        avgdl: leaf(tf_node, "avgdl", "tf")?,
    };
    let product = f.k1_plus_1 * f.idf * f.tf_factor;
    if (product - f.score).abs() > 1e-5 * f.score.abs().max(1.0) {
        return Err(Error::Index(format!(
            "tantivy's BM25 explanation does not add up: {} × {} × {} = {product}, but the term scores {}",
            f.k1_plus_1, f.idf, f.tf_factor, f.score
        )));
    }
    Ok(f)
}

impl Retriever for TantivyBm25 {
    fn kind(&self) -> MethodKind {
        MethodKind::Bm25
    }

    fn label(&self) -> String {
        "BM25 (tantivy, k1=1.2, b=0.75 fixed)".to_string()
    }

    fn prepare(&self, query: &QueryContext) -> Result<Arc<dyn Prepared>> {
        let counts = query_term_counts(&query.terms(self.index.analyzer()));
        let boolean = self.query(&counts);
        Ok(Arc::new(PreparedTantivy { retriever: self.clone(), query: query.clone(), counts, boolean }))
    }
}

impl Prepared for PreparedTantivy {
    fn search(&self, k: usize) -> Result<Ranking> {
        let r = &self.retriever;
        let (_, searcher, _) = r.index.tantivy();
        if self.counts.is_empty() || r.index.num_docs() == 0 {
            return Ok(Ranking::top(r.label(), r.kind(), [], k));
        }
        // With a filter the engine cannot see, fetch every match and filter after scoring.
        let filtered = self.query.filter().is_some();
        let limit = if filtered { r.index.num_docs() } else { k.max(1) };
        let (top, count) = searcher.search(&self.boolean, &(TopDocs::with_limit(limit).order_by_score(), Count))?;
        let hits: Vec<Hit> = top
            .into_iter()
            .map(|(score, addr)| Hit { doc: DocId(addr.doc_id), score: f64::from(score) })
            .filter(|h| self.query.allows(h.doc))
            .collect();
        let total = if filtered { hits.len() } else { count };
        let mut ranking = Ranking::top(r.label(), r.kind(), hits.into_iter().map(|h| (h.doc, h.score)), k);
        ranking.total_matches = total;
        Ok(ranking)
    }

    fn explain(&self, doc: DocId) -> Result<Explanation> {
        let r = &self.retriever;
        if doc.index() >= r.index.num_docs() {
            return Err(Error::invalid("document", format!("{doc} is not in the index")));
        }
        if !self.query.allows(doc) {
            return Ok(self.query.filtered_explanation(&r.label()));
        }
        let (_, searcher, _) = r.index.tantivy();
        let addr = DocAddress::new(0, doc.0);
        let stats = r.index.stats();
        let p = Bm25Variant::Tantivy.default_params();
        let dl = f64::from(r.index.tantivy_doc_len(doc)?);
        let mut rows = Vec::new();
        for (term, qtf) in &self.counts {
            let df = r.index.doc_freq(term)?;
            let mut row = TermRow {
                term: term.clone(),
                qtf: *qtf,
                tf: 0,
                df,
                idf: Bm25Variant::Tantivy.idf(stats.n_docs, df, &p, 0.0),
                dl,
                exact_dl: Some(f64::from(r.index.doc_len(doc))),
                avgdl: stats.avgdl,
                k1: Some(p.k1),
                b: Some(p.b),
                tf_weight: 0.0,
                norm: None,
                contribution: 0.0,
            };
            // Only a term the passage holds has an explanation; asking for one it lacks is an
            // error in tantivy, and any other error is real.
            if df > 0 && r.index.term_freq(term, doc)? > 0 {
                let tree = r.term_query(term).explain(searcher, addr)?;
                let json = serde_json::to_value(&tree)
                    .map_err(|e| Error::caused("index: reading tantivy's explanation", e))?;
                let f = term_factors(&json)?;
                row.tf = f.freq as u32;
                row.idf = f.idf;
                row.dl = f.dl;
                row.avgdl = f.avgdl;
                row.tf_weight = f.k1_plus_1 * f.tf_factor;
                row.contribution = f64::from(*qtf) * f64::from(tree.value());
            }
            rows.push(row);
        }
        let value = if self.counts.is_empty() || rows.iter().all(|r| r.tf == 0) {
            0.0
        } else {
            f64::from(self.boolean.explain(searcher, addr)?.value())
        };
        // tantivy adds the clauses in f32; the rows are those f32 terms times their counts.
        let sum: f64 = rows.iter().map(|r| r.contribution).sum();
        if (sum - value).abs() > 1e-5 * value.abs().max(1.0) {
            return Err(Error::Index(format!(
                "tantivy scores {value} for {doc} but its term explanations sum to {sum}: its explanation format changed"
            )));
        }
        let mut summary = summarise(&rows, &r.index.analyzer().config().to_string());
        summary.push_str(" Scored by tantivy in f32 with its one-byte length norm.");
        let mut e = Explanation::new(r.label(), value, Bm25Variant::Tantivy.formula(), summary);
        e.analyzer = Some(r.index.analyzer().config().to_string());
        e.detail = Detail::Terms(TermTable {
            n: stats.n_docs,
            avgdl: stats.avgdl,
            rows,
            model: Some(super::LexicalModel::Bm25 { variant: Bm25Variant::Tantivy, params: p }),
            okapi_mean_idf: None,
        });
        Ok(e)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// tantivy 0.27's explanation of one BM25 term, as `serde_json::to_value` gives it.
    fn tree(freq: &str) -> Value {
        serde_json::json!({
            "value": 2.0, "description": "TermQuery, product of...",
            "details": [
                {"value": 2.2, "description": "(K1+1)"},
                {"value": 1.25, "description": "idf, computed as log(1 + (N - n + 0.5) / (n + 0.5))",
                 "details": [{"value": 2.0, "description": "n, number of docs containing this term"},
                             {"value": 10.0, "description": "N, total number of docs"}]},
                {"value": 0.7272727, "description": "freq / (freq + k1 * (1 - b + b * dl / avgdl))",
                 "details": [{"value": 3.0, "description": freq},
                             {"value": 1.2, "description": "k1, term saturation parameter"},
                             {"value": 0.75, "description": "b, length normalization parameter"},
                             {"value": 8.0, "description": "dl, length of field"},
                             {"value": 8.0, "description": "avgdl, average length of field"}]}
            ]
        })
    }

    #[test]
    fn term_factors_are_read_by_structure_and_checked() {
        let f = term_factors(&tree("freq, occurrences of term within document")).unwrap();
        assert_eq!((f.freq, f.idf, f.dl, f.avgdl, f.k1_plus_1), (3.0, 1.25, 8.0, 8.0, 2.2));
        // A reworded description keeps its leading symbol and still parses.
        assert!(term_factors(&tree("freq (term frequency)")).is_ok());
    }

    #[test]
    fn a_moved_format_fails_loudly() {
        let err = term_factors(&tree("tf, occurrences of term within document")).unwrap_err().to_string();
        assert!(err.contains("expected (k1 + 1) × idf × tf factor"), "{err}");
        let mut wrong = tree("freq, occurrences");
        wrong["value"] = serde_json::json!(3.0);
        let err = term_factors(&wrong).unwrap_err().to_string();
        assert!(err.contains("does not add up"), "{err}");
        let mut no_dl = tree("freq, occurrences");
        no_dl["details"][2]["details"][3]["description"] = serde_json::json!("length");
        assert!(term_factors(&no_dl).unwrap_err().to_string().contains("no `dl`"));
    }
}
