//! The workbench: one corpus with its indexes and loaded models, and the retrievers built on them
//! (RankLens's own; the search engines a user runs are `external`).

mod adapter;
mod base;
mod encoding_state;
mod loaded;
mod model_columns;
mod model_graph;
mod neural;
mod query_models;
mod readers;
mod sparse_spec;
mod while_encoding;

pub use base::{ON_DISK_THRESHOLD_BYTES, Structured, Workbench};
pub use loaded::{Loaded, NOT_ENCODED, Neural, missing};
pub use neural::SLOW_LATE_TOKENS;
pub use readers::NO_TRAINED_READER;
pub use sparse_spec::SparseSpec;
