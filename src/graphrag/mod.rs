//! GraphRAG (Edge et al. 2024): a graph the language model extracts from the corpus — entities and
//! relations per passage into a JSON schema, validated (`extract.rs`), each edge keeping its
//! passage, model and prompt hash (`graph.rs`) — its communities (`communities.rs`) with the
//! model's summary of each (`build.rs`), global search over the summaries (`global.rs`), and the
//! extracted graph set against the hand-built one (`overlap.rs`). Local search, the question's
//! entities → their neighbourhood's passages, is a column: `retrieve::GraphRagLocal`.

mod build;
mod communities;
mod extract;
mod global;
mod graph;
mod local;
mod overlap;

pub use build::{BuildOptions, MAX_SUMMARIES, build, prompt_hash, summary_request};
pub use communities::communities;
pub use extract::{
    ExtractedEntity, ExtractedRelation, Extraction, extract, extract_request, read_extraction,
    schema as extraction_schema,
};
pub use global::{GlobalAnswer, MAX_MAP, MapNote, global_answer, read_note};
pub use graph::{Community, FailedSummary, GraphData, GraphEdge, GraphNode, ModelGraph, Provenance, Skipped, name_key};
pub use local::{EntityPart, NAMED_WEIGHT, NEIGHBOUR_WEIGHT};
pub use overlap::{GraphOverlap, compare};
