//! What GraphRAG's local search counts in a passage: each entity of the question's neighbourhood,
//! with its weight (the `retrieve::GraphLocalRetriever` column sums them).

use serde::{Deserialize, Serialize};

/// The weight of an entity the question names.
pub const NAMED_WEIGHT: f64 = 1.0;
/// The weight of a neighbour of a named entity.
pub const NEIGHBOUR_WEIGHT: f64 = 0.5;

/// One entity's part of a passage's score.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct EntityPart {
    /// The entity as the model named it.
    pub entity: String,
    /// The named entity it neighbours (`None`: the question names it).
    pub via: Option<String>,
    /// The relation that joins them, as words (`e2e plugin depends_on libsodium`).
    pub relation: Option<String>,
    /// Its weight: [`NAMED_WEIGHT`] or [`NEIGHBOUR_WEIGHT`].
    pub weight: f64,
}
