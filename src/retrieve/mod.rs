//! Retrievers: every method behind one contract.
//!
//! Each retriever ranks with [`Retriever::search`] and justifies with [`Retriever::explain`]; both
//! call the same scoring code, so an explanation's value is the score the ranking showed, and the
//! parts it lists sum to it. Explaining a document the method did not retrieve works too: the value
//! is 0 and the summary says why.

mod boolean;
pub mod dense;
mod explanation;
pub mod formula;
pub mod fusion;
pub mod late;
mod lexical;
mod rerank;
mod splade;
mod tantivy_bm25;

use std::fmt;
use std::sync::Arc;

use serde::{Deserialize, Serialize};

pub use boolean::{BooleanQuery, BooleanRetriever};
pub use dense::DenseRetriever;
pub use explanation::{
    ClauseMatch, Detail, Explanation, FusionPart, SparseTermMatch, TermRow, TermTable, TokenAlignment,
};
pub use formula::{Bm25Params, Bm25Variant, TfIdfVariant};
pub use fusion::FusionRetriever;
pub use late::LateInteractionRetriever;
pub use lexical::{LexicalModel, LexicalRetriever};
pub use rerank::RerankRetriever;
pub use splade::SpladeRetriever;
pub use tantivy_bm25::TantivyBm25;

use crate::Result;
use crate::corpus::DocId;

/// The families of methods RankLens compares.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum MethodKind {
    /// Exact set logic over terms.
    Boolean,
    /// Vector-space tf-idf.
    TfIdf,
    /// Probabilistic BM25 family.
    Bm25,
    /// Learned sparse (SPLADE).
    Splade,
    /// Dense bi-encoder.
    Dense,
    /// Late interaction (MaxSim).
    LateInteraction,
    /// Rank fusion of several lists.
    Fusion,
    /// Cross-encoder reranking.
    Rerank,
    /// Rows from a SQL table.
    Sql,
    /// Bindings from a knowledge graph.
    Graph,
}

impl MethodKind {
    /// Every method that ranks passages (not Boolean's unranked set, SQL rows or graph bindings):
    /// the methods an evaluation compares.
    pub const RANKED: [MethodKind; 7] = [
        MethodKind::TfIdf,
        MethodKind::Bm25,
        MethodKind::Splade,
        MethodKind::Dense,
        MethodKind::LateInteraction,
        MethodKind::Fusion,
        MethodKind::Rerank,
    ];

    /// Display name.
    pub fn label(self) -> &'static str {
        match self {
            MethodKind::Boolean => "Boolean",
            MethodKind::TfIdf => "TF-IDF",
            MethodKind::Bm25 => "BM25",
            MethodKind::Splade => "SPLADE",
            MethodKind::Dense => "Dense",
            MethodKind::LateInteraction => "Late interaction",
            MethodKind::Fusion => "Fusion",
            MethodKind::Rerank => "Rerank",
            MethodKind::Sql => "SQL",
            MethodKind::Graph => "Graph",
        }
    }
}

impl MethodKind {
    /// The colour of the family everywhere it is drawn (app columns, report charts, map markers):
    /// a colour-blind-safe palette.
    pub fn color_rgb(self) -> (u8, u8, u8) {
        match self {
            MethodKind::Boolean => (140, 140, 140),
            MethodKind::TfIdf => (230, 159, 0),
            MethodKind::Bm25 => (213, 94, 0),
            MethodKind::Splade => (204, 121, 167),
            MethodKind::Dense => (0, 114, 178),
            MethodKind::LateInteraction => (86, 180, 233),
            MethodKind::Fusion => (0, 158, 115),
            MethodKind::Rerank => (120, 94, 240),
            MethodKind::Sql => (100, 143, 255),
            MethodKind::Graph => (180, 150, 60),
        }
    }
}

impl fmt::Display for MethodKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.label())
    }
}

/// One ranked document.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct Hit {
    /// The document.
    pub doc: DocId,
    /// Its score under the method.
    pub score: f64,
}

/// What a method returned for a question.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Ranking {
    /// The method label with its variant (`BM25 (lucene)`).
    pub method: String,
    /// The method family.
    pub kind: MethodKind,
    /// Best first; ties broken by ascending DocId. For unranked sets (Boolean) ordered by DocId.
    pub hits: Vec<Hit>,
    /// Number of documents that matched at all (may exceed `hits.len()`).
    pub total_matches: usize,
    /// True when the order carries no meaning (Boolean sets).
    pub unranked: bool,
}

impl Ranking {
    /// Rank (1-based) of a document in this list.
    pub fn rank_of(&self, doc: DocId) -> Option<usize> {
        self.hits.iter().position(|h| h.doc == doc).map(|i| i + 1)
    }

    /// The documents in order.
    pub fn docs(&self) -> Vec<DocId> {
        self.hits.iter().map(|h| h.doc).collect()
    }
}

/// Which documents a query may return, after metadata filters.
pub type DocFilter = Arc<Vec<bool>>;

/// The question, prepared once for every retriever.
#[derive(Debug, Clone, Default)]
pub struct QueryContext {
    /// The question as typed.
    pub text: String,
    /// Allowed documents (`None` = all); a filtered-out document scores 0 and says so.
    pub filter: Option<DocFilter>,
    /// A description of the filter for explanations (`release >= 4`).
    pub filter_label: Option<String>,
}

impl QueryContext {
    /// A plain question with no filter.
    pub fn new(text: impl Into<String>) -> Self {
        Self { text: text.into(), ..Default::default() }
    }

    /// Restrict results to the documents where `allowed[doc]` is true.
    pub fn with_filter(mut self, allowed: Vec<bool>, label: impl Into<String>) -> Self {
        self.filter = Some(Arc::new(allowed));
        self.filter_label = Some(label.into());
        self
    }

    /// May this document be returned?
    pub fn allows(&self, doc: DocId) -> bool {
        self.filter.as_ref().is_none_or(|f| f.get(doc.index()).copied().unwrap_or(false))
    }

    /// The explanation of a document the filter removed.
    pub fn filtered_explanation(&self, method: &str) -> Explanation {
        Explanation::new(
            method,
            0.0,
            "—",
            format!("Excluded by the filter `{}` before ranking.", self.filter_label.as_deref().unwrap_or("?")),
        )
    }
}

/// The contract every method implements.
pub trait Retriever: Send + Sync {
    /// The method family.
    fn kind(&self) -> MethodKind;
    /// Label with variant and parameters that matter (`BM25 (lucene, k1=0.9, b=0.4)`).
    fn label(&self) -> String;
    /// Best first; ties broken by ascending DocId.
    fn search(&self, query: &QueryContext, k: usize) -> Result<Ranking>;
    /// Why `doc` has the score `search` gives it — also for documents outside the top k (value 0
    /// and the reason), so the app can answer "why didn't this method find X?".
    fn explain(&self, query: &QueryContext, doc: DocId) -> Result<Explanation>;
}

/// A parameter for a label: at most three decimals, no trailing zeros (`0.9`, `1.2`, `60`), so a
/// slider's 1.2000000000000002 reads as 1.2.
pub fn fmt_param(x: f64) -> String {
    let s = format!("{x:.3}");
    let s = s.trim_end_matches('0').trim_end_matches('.');
    if s == "-0" { "0".to_string() } else { s.to_string() }
}

/// A key whose ascending order is (score descending, DocId ascending): comparing one integer is
/// much cheaper than a float comparison followed by a tie-break, and top-k selection is a large
/// part of a lexical query's time.
#[inline]
pub fn rank_key(score: f64, doc: DocId) -> u128 {
    let bits = score.to_bits();
    // Map f64 to u64 preserving total order, then invert for descending.
    let ordered = if bits >> 63 == 1 { !bits } else { bits | (1 << 63) };
    (u128::from(!ordered) << 32) | u128::from(doc.0)
}

/// The k smallest keys, sorted. Small k keeps a sorted buffer and rejects most candidates with
/// one comparison against the current k-th key; large k uses quickselect.
pub fn smallest_keys(mut keys: Vec<u128>, k: usize) -> Vec<u128> {
    if k == 0 {
        return Vec::new();
    }
    if k <= 64 && keys.len() > 4 * k {
        let mut best: Vec<u128> = Vec::with_capacity(k + 1);
        for key in keys {
            if best.len() == k {
                if key >= best[k - 1] {
                    continue;
                }
                best.pop();
            }
            let pos = best.partition_point(|&b| b < key);
            best.insert(pos, key);
        }
        return best;
    }
    if keys.len() > k {
        keys.select_nth_unstable(k - 1);
        keys.truncate(k);
    }
    keys.sort_unstable();
    keys
}

/// Keep the k best (score desc, DocId asc) of scored candidates, sorted.
pub fn top_k(scored: Vec<Hit>, k: usize) -> Vec<Hit> {
    let scores: std::collections::HashMap<u32, f64> = scored.iter().map(|h| (h.doc.0, h.score)).collect();
    let keys = scored.iter().map(|h| rank_key(h.score, h.doc)).collect();
    smallest_keys(keys, k)
        .into_iter()
        .map(|key| {
            let doc = DocId(key as u32);
            Hit { doc, score: scores.get(&doc.0).copied().unwrap_or(0.0) }
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn hit(d: u32, s: f64) -> Hit {
        Hit { doc: DocId(d), score: s }
    }

    #[test]
    fn params_print_short() {
        assert_eq!(fmt_param(1.2000000000000002), "1.2");
        assert_eq!(fmt_param(0.75), "0.75");
        assert_eq!(fmt_param(60.0), "60");
        assert_eq!(fmt_param(0.0), "0");
    }

    #[test]
    fn both_selection_paths_agree_with_a_full_sort() {
        let mut seed = 7u64;
        let keys: Vec<u128> = (0..500)
            .map(|i| {
                seed = seed.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
                rank_key(((seed >> 40) % 50) as f64, DocId(i))
            })
            .collect();
        let mut sorted = keys.clone();
        sorted.sort_unstable();
        for k in [1, 10, 64, 100, 499, 500, 600] {
            assert_eq!(smallest_keys(keys.clone(), k), sorted[..k.min(500)].to_vec(), "k={k}");
        }
    }

    #[test]
    fn rank_key_orders_negative_zero_and_positive_scores() {
        let hits = vec![hit(5, -1.5), hit(2, 0.0), hit(1, 3.0), hit(0, -0.0), hit(3, 3.0)];
        let top = top_k(hits, 5);
        assert_eq!(top.iter().map(|h| h.doc.0).collect::<Vec<_>>(), [1, 3, 2, 0, 5]);
        assert_eq!(top[4].score, -1.5);
    }

    #[test]
    fn top_k_orders_by_score_then_doc() {
        let hits = vec![hit(3, 1.0), hit(1, 2.0), hit(2, 1.0), hit(0, 1.0), hit(4, 0.5)];
        let top = top_k(hits.clone(), 3);
        assert_eq!(top.iter().map(|h| h.doc.0).collect::<Vec<_>>(), [1, 0, 2]);
        assert_eq!(top_k(hits.clone(), 10).len(), 5);
        assert!(top_k(hits, 0).is_empty());
    }
}
