//! Structured sources that text search cannot replace: a SQL table and a knowledge graph.

mod graph;
mod sql;

pub use graph::{Entity, Fact, GraphMatch, GraphResult, KnowledgeGraph, Mention};
pub use sql::{SqlDatabase, SqlLimits, SqlResult, SqlValue, TableSchema, strip_comments, where_conditions};
