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
mod source;
pub mod tree;
pub mod vectors;

pub use live::{Credentials, EngineKind, LiveEngine};
pub use lucene::{EngineTermRow, LuceneBreakdown, breakdown};
pub use response::{EngineHit, EngineResponse, ResponseShape, SavedResponses};
pub use source::EngineSource;
pub use tree::ExplainNode;
pub use vectors::{VectorFile, VectorFormat, VectorSet, write_npy};
