//! Corpora: documents with stable ids, loaded from folders, JSONL, CSV/TSV or BEIR datasets.
//!
//! Loading never stops at the first bad line: each problem becomes a [`LoadWarning`] naming the file
//! and line, and the rest of the input still loads. Only a file that cannot be read at all is an
//! error.

mod answer_file;
pub mod answers;
pub mod chunk;
pub(crate) mod delimited;
mod document;
mod filter;
mod ids;
mod load;
mod qrels;
mod query;
mod report;
pub mod squad;

pub use answer_file::{load_answers, locate_spans};
pub use answers::{AnswerFormat, AnswerSet, Gold, GoldSpan};
pub use document::{Corpus, Doc, DocId, QueryTemplates};
pub use filter::{CompareOp, FieldFilter, compare_versions};
pub use ids::{IdFormat, check_id};
pub use load::{Format, LoadOptions, Split, beir_queries, load, load_documents, load_questions_tsv, strip_html};
pub use qrels::Qrels;
pub use query::Query;
pub use report::{LoadReport, LoadWarning};

#[cfg(test)]
mod tests;
