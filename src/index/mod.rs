//! The indexes: the sparse index of the lexical methods (`sparse.rs`: tantivy's postings and the
//! exact statistics every formula needs), the impact lists of BM25's top k (`impacts.rs`), the
//! dense vectors and their HNSW graph (`encoded.rs`, `hnsw.rs`), the token index of late
//! interaction (`tokens.rs`) and the windows of long passages (`windows.rs`).

pub mod dot;
pub mod encoded;
pub mod hnsw;
pub mod impacts;
mod options;
mod sparse;
mod tokenizer;
pub mod tokens;
pub mod windows;

pub use options::{APPROXIMATE_ABOVE, NeuralOptions};
pub use sparse::{CollectionStats, DocNorms, INDEX_FORMAT, IndexLocation, SparseIndex};
pub use tokenizer::TOKENIZER_NAME;
