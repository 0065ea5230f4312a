//! Agentic search: a language model that plans, calls RankLens's own methods as tools (BM25, dense,
//! SPLADE, a read-only SQL statement, the knowledge graph), reads what they return and answers with
//! citations, in bounded rounds and tokens. `run.rs` is the loop, `tools.rs` the tools,
//! `protocol.rs` the text protocol for a model without the chat API's tools, `trace.rs` what a
//! run records, `column.rs` the Agent column.

mod column;
mod protocol;
mod run;
mod tools;
mod trace;

pub use column::AgentRetriever;
pub use protocol::{TextTurn, read_turn};
pub use run::run_agent;
pub use tools::{OBSERVATION_WORDS, TOOL_NAMES, ToolResult, Toolbox};
pub use trace::{AgentLimits, AgentRun, AgentStep, Protocol, ReadPassage, Stop};
