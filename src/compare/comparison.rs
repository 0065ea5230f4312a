//! One question ranked by several columns: a `Comparison` of `MethodRun`s, each column named
//! by its `ColumnId` and ending in an `Outcome` (a ranking, or why there is none).

use super::overlap::OverlapMatrix;
use crate::retrieve::{MethodKind, Ranking};
use crate::structured::{GraphResult, SqlResult};
use serde::{Deserialize, Serialize};

/// What one method produced for the question.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "status", rename_all = "snake_case")]
pub enum Outcome {
    /// A ranking (or an unranked set).
    Ranked(Ranking),
    /// The method cannot run here (e.g. its model is missing); the message says how to fix it.
    Unavailable {
        /// What is missing and how to get it.
        message: String,
    },
    /// Rows from a SQL statement: an exact answer, not a ranking.
    Rows(SqlResult),
    /// Bindings of a graph pattern: complete relative to the graph.
    Bindings(GraphResult),
    /// The method ran and failed on this input.
    Failed {
        /// The error.
        message: String,
    },
}

/// A column's id: what the app addresses a column by (its selection, its explanation), stable
/// while the same member of the plan is shown — its label may change (a provisional column's note,
/// a model loaded) and two columns may share a family.
#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord, Default, Serialize, Deserialize)]
pub struct ColumnId(pub String);

impl ColumnId {
    /// No id (a column made outside a plan).
    pub fn is_empty(&self) -> bool {
        self.0.is_empty()
    }

    /// The id of a family's first column (`bm25`), or of an outside system's (`run:colleague`).
    pub fn of(kind: MethodKind, system_name: &str) -> ColumnId {
        ColumnId(if kind.is_external() { format!("{}:{system_name}", kind.cli_name()) } else { kind.cli_name().into() })
    }
}

impl std::fmt::Display for ColumnId {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0)
    }
}

/// One column of a comparison.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct MethodRun {
    /// The column's id in the plan that ran it.
    #[serde(default, skip_serializing_if = "ColumnId::is_empty")]
    pub id: ColumnId,
    /// Column label (method and variant).
    pub label: String,
    /// Family.
    pub kind: MethodKind,
    /// Result.
    pub outcome: Outcome,
}

impl MethodRun {
    /// The ranking, if the method produced one.
    pub fn ranking(&self) -> Option<&Ranking> {
        match &self.outcome {
            Outcome::Ranked(r) => Some(r),
            _ => None,
        }
    }
}

/// Every method's answer to one question.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct Comparison {
    /// The question.
    pub question: String,
    /// Results per method.
    pub k: usize,
    /// One entry per method, in column order.
    pub runs: Vec<MethodRun>,
}

impl Comparison {
    /// Jaccard@k and RBO between every pair of ranked (not set-valued) columns.
    pub fn overlap(&self) -> OverlapMatrix {
        crate::tally::count(crate::tally::Tally::Overlap);
        let ranked: Vec<(&str, &Ranking)> = self
            .runs
            .iter()
            .filter_map(|r| r.ranking().filter(|x| !x.unranked).map(|x| (r.label.as_str(), x)))
            .collect();
        OverlapMatrix::new(&ranked, self.k)
    }
}
