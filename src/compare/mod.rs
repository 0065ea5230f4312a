//! Run many methods on one question and compare what they return.

mod overlap;
mod study;

use serde::{Deserialize, Serialize};

pub use overlap::{OverlapMatrix, jaccard_at_k, rank_biased_overlap};
pub use study::{Disagreement, MethodResult, Study};

use crate::engine::Engine;
use crate::retrieve::{MethodKind, QueryContext, Ranking, Retriever};
use crate::structured::{GraphResult, SqlLimits, SqlResult};

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

/// A method and its retriever, or why it is not available.
pub type RetrieverEntry = (MethodKind, std::result::Result<std::sync::Arc<dyn Retriever>, String>);

/// One column of a comparison.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct MethodRun {
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
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Comparison {
    /// The question.
    pub question: String,
    /// Results per method.
    pub k: usize,
    /// One entry per method, in column order.
    pub runs: Vec<MethodRun>,
}

impl Comparison {
    /// Run each retriever on the question; a failure is recorded in its column, never fatal.
    pub fn run(question: &QueryContext, k: usize, retrievers: &[&dyn Retriever]) -> Comparison {
        let runs = retrievers
            .iter()
            .map(|r| MethodRun {
                label: r.label(),
                kind: r.kind(),
                outcome: match r.search(question, k) {
                    Ok(ranking) => Outcome::Ranked(ranking),
                    Err(e) => Outcome::Failed { message: e.to_string() },
                },
            })
            .collect();
        Comparison { question: question.text.clone(), k, runs }
    }

    /// Run every entry; an entry that is `Err(message)` (a model missing, say) becomes an
    /// `Unavailable` column with that message, so the other methods still run.
    pub fn run_all(question: &QueryContext, k: usize, entries: &[RetrieverEntry]) -> Comparison {
        let runs = entries
            .iter()
            .map(|(kind, r)| match r {
                Ok(r) => MethodRun {
                    label: r.label(),
                    kind: r.kind(),
                    outcome: match r.search(question, k) {
                        Ok(ranking) => Outcome::Ranked(ranking),
                        Err(e) => Outcome::Failed { message: e.to_string() },
                    },
                },
                Err(message) => MethodRun {
                    label: kind.label().to_string(),
                    kind: *kind,
                    outcome: Outcome::Unavailable { message: message.clone() },
                },
            })
            .collect();
        Comparison { question: question.text.clone(), k, runs }
    }

    /// Add the SQL and graph columns: run `sql` on the engine's tables and `pattern` on its graph.
    /// With no statement (or pattern) the column says what to write; with no tables (or graph)
    /// it says the corpus has none.
    pub fn add_structured(&mut self, engine: &Engine, sql: Option<&str>, pattern: Option<&str>) {
        let s = engine.structured();
        let sql_outcome = match (&s.sql, sql) {
            (None, _) => {
                Outcome::Unavailable { message: "this corpus has no tables (add a .csv file next to it)".into() }
            }
            (Some(_), None) => Outcome::Unavailable { message: "no SQL for this question: write a SELECT".into() },
            (Some(db), Some(q)) => match db.query(q, SqlLimits::default()) {
                Ok(rows) => Outcome::Rows(rows),
                Err(e) => Outcome::Failed { message: e.to_string() },
            },
        };
        self.runs.push(MethodRun { label: "SQL".into(), kind: MethodKind::Sql, outcome: sql_outcome });
        let graph_outcome = match (&s.graph, pattern) {
            (None, _) => Outcome::Unavailable { message: "this corpus has no knowledge graph (graph.txt)".into() },
            (Some(_), None) => Outcome::Unavailable { message: "no graph pattern for this question: write one".into() },
            (Some(g), Some(p)) => match g.query(p) {
                Ok(b) => Outcome::Bindings(b),
                Err(e) => Outcome::Failed { message: e.to_string() },
            },
        };
        self.runs.push(MethodRun { label: "Graph".into(), kind: MethodKind::Graph, outcome: graph_outcome });
    }

    /// Jaccard@k and RBO between every pair of ranked (not set-valued) columns.
    pub fn overlap(&self) -> OverlapMatrix {
        let ranked: Vec<(&str, &Ranking)> = self
            .runs
            .iter()
            .filter_map(|r| r.ranking().filter(|x| !x.unranked).map(|x| (r.label.as_str(), x)))
            .collect();
        OverlapMatrix::new(&ranked, self.k)
    }
}
