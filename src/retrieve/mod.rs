//! Retrievers: every method behind one contract.
//!
//! A retriever prepares a question once ([`Retriever::prepare`]) into a [`Prepared`] state, and
//! both the ranking ([`Prepared::search`]) and every explanation ([`Prepared::explain`]) are read
//! from it, so an explanation's value is the score the ranking showed and the parts it lists sum to
//! it. Explaining a document the method did not retrieve works too: the value is 0 and the summary
//! says why.

pub mod agent;
mod bm25_comparison;
mod boolean;
mod contract;
pub mod dense;
mod explanation;
pub mod fusion;
pub mod generated;
pub mod graph_local;
pub mod late;
mod lexical;
pub mod listwise;
mod method;
mod model_rerank;
pub mod pointwise;
pub mod provisional;
mod query;
mod ranking;
mod rerank;
mod run;
pub mod search_engine;
mod splade;
mod tantivy_bm25;
mod term_table;
pub mod vectors;

pub use crate::formula::{Bm25Params, Bm25Variant, LexicalModel, TfIdfVariant, fmt_param};
pub use crate::topk::{key_doc, key_score, rank_key, smallest_keys};
pub use agent::AgentRetriever;
pub use bm25_comparison::{Bm25Comparison, Difference, TermPair};
pub use boolean::{BooleanQuery, BooleanRetriever};
pub use contract::{Prepared, Retriever};
pub use dense::DenseRetriever;
pub use explanation::{
    ClauseMatch, ClauseNode, ClauseOp, Detail, EngineDetail, Explanation, FusionPart, ListOrder, ListWindow,
    ScoreSplit, SparseTermMatch, TokenAlignment, TokenPart,
};
pub use fusion::{FusionMethod, FusionRetriever, FusionSettings};
pub use generated::{GeneratedRetriever, GeneratedSearch};
pub use graph_local::GraphLocalRetriever;
pub use late::LateInteractionRetriever;
pub use lexical::LexicalRetriever;
pub use listwise::ListwiseRetriever;
pub use method::{METHODS, MethodInfo, MethodKind};
pub use model_rerank::ModelRerank;
pub use pointwise::PointwiseRetriever;
pub use provisional::{PROVISIONAL_DEPTH, ProvisionalRetriever};
pub use query::{DocFilter, QueryContext};
pub use ranking::{AbsentHit, Entry, Hit, ModelText, Ranking, TextTask, top_k};
pub use rerank::RerankRetriever;
pub use run::RunRetriever;
pub use search_engine::EngineRetriever;
pub use splade::SpladeRetriever;
pub use tantivy_bm25::TantivyBm25;
pub use term_table::{TermRow, TermTable};
