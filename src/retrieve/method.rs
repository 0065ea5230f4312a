//! The families of methods RankLens compares (`MethodKind`): each one's label, the models a
//! column of it needs, and the lists the app, the reports and the command line read.

use std::fmt;

use serde::{Deserialize, Serialize};

/// The families of methods RankLens compares.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum MethodKind {
    /// Exact set logic over terms.
    Boolean,
    /// Vector-space tf-idf.
    TfIdf,
    /// Probabilistic BM25 family.
    Bm25,
    /// Learned sparse (SPLADE).
    Splade,
    /// Dense bi-encoder.
    Dense,
    /// Late interaction (MaxSim).
    LateInteraction,
    /// Rank fusion of several lists.
    Fusion,
    /// Cross-encoder reranking.
    Rerank,
    /// Rows from a SQL table.
    Sql,
    /// Bindings from a knowledge graph.
    Graph,
    /// A ranking another system produced, read from a run file.
    Run,
    /// A search engine's hits, saved or asked live, with its own explanations.
    Engine,
    /// A dense ranking from vectors computed elsewhere, read from files.
    Vectors,
    /// BM25 over a language model's rewrite of the question, fused with BM25 over the question.
    Rewrite,
    /// Search with a language model's hypothetical answer (HyDE proper): the dense model over the
    /// draft.
    Hyde,
    /// Text expansion with a language model's hypothetical answer: BM25 over the question and the
    /// draft.
    HydeText,
    /// A first stage's top passages reordered by a language model that reads them together
    /// (RankGPT's sliding windows).
    Listwise,
    /// A first stage's top passages reordered by the language model's probability that each is
    /// relevant (P(yes) from its first answer token).
    Pointwise,
    /// BM25 over the question and a language model's account of what answering it needs
    /// (reasoning expansion).
    ReasonBm25,
    /// The dense model over the question and the model's reasoning.
    ReasonDense,
    /// The dense model with a linear map on question vectors trained from judgements.
    DenseAdapter,
    /// The passages a language model read while it searched with RankLens's tools, in the order
    /// its answer used them.
    Agent,
    /// GraphRAG's local search: the passages of the entities the question names in the graph a
    /// language model extracted beforehand, and of their neighbours.
    GraphLocal,
}

impl MethodKind {
    /// Every column RankLens computes itself, in the order the app and the reports show them:
    /// the one list the method checkboxes, the default settings and `compare` read.
    pub const BUILT_IN: [MethodKind; 10] = [
        MethodKind::Boolean,
        MethodKind::TfIdf,
        MethodKind::Bm25,
        MethodKind::Splade,
        MethodKind::Dense,
        MethodKind::LateInteraction,
        MethodKind::Fusion,
        MethodKind::Rerank,
        MethodKind::Sql,
        MethodKind::Graph,
    ];

    /// The methods that need a neural model, themselves or through their inputs.
    pub const NEURAL: [MethodKind; 5] =
        [MethodKind::Splade, MethodKind::Dense, MethodKind::LateInteraction, MethodKind::Fusion, MethodKind::Rerank];

    /// The methods that ask a language model: for text to search with, or to order a first
    /// stage's passages.
    pub const GENERATED: [MethodKind; 8] = [
        MethodKind::Rewrite,
        MethodKind::Hyde,
        MethodKind::HydeText,
        MethodKind::ReasonBm25,
        MethodKind::ReasonDense,
        MethodKind::Listwise,
        MethodKind::Pointwise,
        MethodKind::Agent,
    ];

    /// The methods trained on this corpus's judgements (shown as columns when asked for, not by
    /// default: they need training first).
    pub const TRAINED: [MethodKind; 1] = [MethodKind::DenseAdapter];

    /// The methods over what a language model extracted from the corpus beforehand (GraphRAG's
    /// graph): they need it built, not the model loaded, and answer at once.
    pub const EXTRACTED: [MethodKind; 1] = [MethodKind::GraphLocal];

    /// Every method that ranks passages (not Boolean's unranked set, SQL rows or graph bindings):
    /// the methods an evaluation compares.
    pub const RANKED: [MethodKind; 8] = [
        MethodKind::TfIdf,
        MethodKind::Bm25,
        MethodKind::Splade,
        MethodKind::Dense,
        MethodKind::LateInteraction,
        MethodKind::Fusion,
        MethodKind::Rerank,
        MethodKind::DenseAdapter,
    ];

    /// The name the command line gives the family (`--method late`, `--baseline bm25`).
    pub fn cli_name(self) -> &'static str {
        match self {
            MethodKind::Boolean => "boolean",
            MethodKind::TfIdf => "tfidf",
            MethodKind::Bm25 => "bm25",
            MethodKind::Splade => "splade",
            MethodKind::Dense => "dense",
            MethodKind::LateInteraction => "late",
            MethodKind::Fusion => "fusion",
            MethodKind::Rerank => "rerank",
            MethodKind::Sql => "sql",
            MethodKind::Graph => "graph",
            MethodKind::Run => "run",
            MethodKind::Engine => "engine",
            MethodKind::Vectors => "vectors",
            MethodKind::Rewrite => "rewrite",
            MethodKind::Hyde => "hyde",
            MethodKind::HydeText => "hyde-bm25",
            MethodKind::Listwise => "listwise",
            MethodKind::Pointwise => "pointwise",
            MethodKind::ReasonBm25 => "reason-bm25",
            MethodKind::ReasonDense => "reason-dense",
            MethodKind::DenseAdapter => "dense-adapter",
            MethodKind::Agent => "agent",
            MethodKind::GraphLocal => "graphrag-local",
        }
    }

    /// Display name.
    pub fn label(self) -> &'static str {
        match self {
            MethodKind::Boolean => "Boolean",
            MethodKind::TfIdf => "TF-IDF",
            MethodKind::Bm25 => "BM25",
            MethodKind::Splade => "SPLADE",
            MethodKind::Dense => "Dense",
            MethodKind::LateInteraction => "Late interaction",
            MethodKind::Fusion => "Fusion",
            MethodKind::Rerank => "Rerank",
            MethodKind::Sql => "SQL",
            MethodKind::Graph => "Graph",
            MethodKind::Run => "Run",
            MethodKind::Engine => "Engine",
            MethodKind::Vectors => "Vectors",
            MethodKind::Rewrite => "Rewrite (model)",
            MethodKind::Hyde => "HyDE (model)",
            MethodKind::HydeText => "HyDE text (model)",
            MethodKind::Listwise => "Listwise (model)",
            MethodKind::Pointwise => "Pointwise (model)",
            MethodKind::ReasonBm25 => "Reasoning + BM25 (model)",
            MethodKind::ReasonDense => "Reasoning + dense (model)",
            MethodKind::DenseAdapter => "Dense + adapter",
            MethodKind::Agent => "Agent (model)",
            MethodKind::GraphLocal => "GraphRAG local (model's graph)",
        }
    }
}

impl MethodKind {
    /// The models that can serve a column of this family, the one the workbench prefers first:
    /// late interaction runs on its own trained model when one is loaded, else MaxSim over the
    /// dense model's token vectors; HyDE proper needs the language model and the dense model. The
    /// one rule the Compare, Models and atlas views and the CLI read.
    pub fn models(self) -> &'static [crate::models::Role] {
        use crate::models::Role;
        match self {
            MethodKind::Splade => &[Role::Splade],
            MethodKind::Dense | MethodKind::Fusion => &[Role::Dense],
            MethodKind::LateInteraction => &[Role::LateInteraction, Role::Dense],
            MethodKind::Rerank => &[Role::Reranker],
            MethodKind::Rewrite | MethodKind::HydeText | MethodKind::ReasonBm25 => &[Role::Generator],
            MethodKind::Listwise | MethodKind::Pointwise | MethodKind::Agent => &[Role::Generator],
            MethodKind::Hyde | MethodKind::ReasonDense => &[Role::Generator, Role::Dense],
            MethodKind::DenseAdapter => &[Role::Dense],
            _ => &[],
        }
    }

    /// The model to fetch when a column of this family has none: the last of [`Self::models`],
    /// the most widely available one that serves it (the dense model for late interaction).
    pub fn model_to_fetch(self) -> Option<crate::models::Role> {
        match self {
            MethodKind::Hyde | MethodKind::ReasonDense => Some(crate::models::Role::Generator),
            k => k.models().last().copied(),
        }
    }

    /// A system outside RankLens (a run file, a search engine, vectors from a file): its column
    /// is named by the system, not by the family.
    pub fn is_external(self) -> bool {
        matches!(self, MethodKind::Run | MethodKind::Engine | MethodKind::Vectors)
    }

    /// The colour of the family everywhere it is drawn (app columns, report charts, map markers):
    /// a colour-blind-safe palette.
    pub fn color_rgb(self) -> (u8, u8, u8) {
        match self {
            MethodKind::Boolean => (140, 140, 140),
            MethodKind::TfIdf => (230, 159, 0),
            MethodKind::Bm25 => (213, 94, 0),
            MethodKind::Splade => (204, 121, 167),
            MethodKind::Dense => (0, 114, 178),
            MethodKind::LateInteraction => (86, 180, 233),
            MethodKind::Fusion => (0, 158, 115),
            MethodKind::Rerank => (120, 94, 240),
            MethodKind::Sql => (100, 143, 255),
            MethodKind::Graph => (180, 150, 60),
            MethodKind::Run => (200, 200, 200),
            MethodKind::Engine => (240, 228, 66),
            MethodKind::Vectors => (70, 160, 200),
            MethodKind::Rewrite => (170, 68, 0),
            MethodKind::Hyde => (0, 90, 140),
            MethodKind::HydeText => (150, 60, 110),
            MethodKind::Listwise => (200, 80, 200),
            MethodKind::Pointwise => (150, 110, 230),
            MethodKind::ReasonBm25 => (190, 120, 40),
            MethodKind::ReasonDense => (40, 130, 170),
            MethodKind::DenseAdapter => (0, 150, 200),
            MethodKind::Agent => (230, 120, 90),
            MethodKind::GraphLocal => (160, 120, 60),
        }
    }
}

impl fmt::Display for MethodKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.label())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_model_method_names_its_models_and_late_interaction_falls_back_on_dense() {
        use crate::models::Role;
        assert_eq!(MethodKind::LateInteraction.models(), [Role::LateInteraction, Role::Dense]);
        assert_eq!(MethodKind::LateInteraction.model_to_fetch(), Some(Role::Dense));
        assert_eq!(MethodKind::Hyde.model_to_fetch(), Some(Role::Generator));
        for kind in MethodKind::NEURAL.into_iter().chain(MethodKind::GENERATED) {
            assert!(!kind.models().is_empty(), "{kind:?}");
        }
        for kind in [MethodKind::Bm25, MethodKind::Boolean, MethodKind::Sql, MethodKind::Run] {
            assert!(kind.models().is_empty() && kind.model_to_fetch().is_none(), "{kind:?}");
        }
    }
}
