//! Corpora: documents with stable ids, loaded from folders, JSONL, CSV/TSV or BEIR datasets.
//!
//! Loading never stops at the first bad line: each problem becomes a [`LoadWarning`] naming the file
//! and line, and the rest of the input still loads. Only a file that cannot be read at all is an
//! error.

pub mod chunk;
pub(crate) mod delimited;
mod document;
mod filter;
mod ids;
mod load;
mod qrels;
mod report;

pub use document::{Corpus, Doc, DocId, Query, QueryTemplates};
pub use filter::{CompareOp, FieldFilter, compare_versions};
pub use ids::{IdFormat, check_id};
pub use load::{Format, LoadOptions, Split, beir_queries, load, load_documents, load_questions_tsv, strip_html};
pub use qrels::Qrels;
pub use report::{LoadReport, LoadWarning};

#[cfg(test)]
mod tests;
