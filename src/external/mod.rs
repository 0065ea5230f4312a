//! Systems outside RankLens, put beside its own methods: search engines (saved responses and live
//! clusters) with their explanation trees read into term rows, and embeddings computed elsewhere.
//!
//! - [`tree`]: an engine's explanation as the tree it is, from JSON or Lucene's text form;
//! - [`lucene`]: the tree read into term rows (tf, df, N, idf, dl, avgdl, k1, b, boost) and how
//!   they add up to the score;
//! - [`response`]: Elasticsearch / OpenSearch / Solr / Vespa responses, saved or live;
//! - [`live`]: asking a running engine;
//! - [`vectors`]: passage and query vectors from `.npy`, JSON Lines and safetensors files.
//!
//! (The rows beside RankLens's own Lucene BM25, with every differing input named, are
//! `retrieve::Bm25Comparison`: that needs RankLens's retrievers, which sit above this module.)
//!
//! Nothing here runs a cluster: the tests read response bodies in each version's documented shape
//! and talk to a small HTTP server of their own.

pub mod live;
pub mod lucene;
pub mod response;
pub mod tree;
pub mod vectors;

pub use live::{Credentials, EngineKind, LiveEngine};
pub use lucene::{EngineTermRow, LuceneBreakdown, breakdown};
pub use response::{EngineHit, EngineResponse, ResponseShape, SavedResponses};
pub use tree::ExplainNode;
pub use vectors::{VectorFile, VectorFormat, VectorSet, write_npy};

use std::sync::Arc;

/// A search engine as a column: responses saved to a file, or a live engine asked per question.
#[derive(Debug, Clone)]
pub enum EngineSource {
    /// Saved responses.
    Saved(Arc<SavedResponses>),
    /// A running engine.
    Live(Arc<LiveEngine>),
}

impl EngineSource {
    /// The column's name.
    pub fn name(&self) -> &str {
        match self {
            EngineSource::Saved(s) => &s.name,
            EngineSource::Live(l) => &l.name,
        }
    }

    /// Where it comes from, for captions (a file, or the engine's URL and index).
    pub fn origin(&self) -> String {
        match self {
            EngineSource::Saved(s) => s.source.display().to_string(),
            EngineSource::Live(l) => format!("{} {}/{}", l.kind.label(), l.url.trim_end_matches('/'), l.index),
        }
    }
}

impl PartialEq for EngineSource {
    fn eq(&self, other: &Self) -> bool {
        match (self, other) {
            (EngineSource::Saved(a), EngineSource::Saved(b)) => Arc::ptr_eq(a, b) || a == b,
            (EngineSource::Live(a), EngineSource::Live(b)) => Arc::ptr_eq(a, b) || a == b,
            _ => false,
        }
    }
}
