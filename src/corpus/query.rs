//! A question from a dataset: what the corpus, its judgements and its answers all name by id.

use serde::{Deserialize, Serialize};

/// A question from a dataset.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Query {
    /// Query id (`qid`).
    pub id: String,
    /// The question text.
    pub text: String,
}
