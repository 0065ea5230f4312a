//! The families of methods RankLens compares (`MethodKind`): each one's label, the models a
//! column of it needs, and the lists the app, the reports and the command line read.

use std::fmt;

use serde::{Deserialize, Serialize};

use crate::models::Role;

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
        self.info().cli_name
    }

    /// Display name.
    pub fn label(self) -> &'static str {
        self.info().label
    }

    /// The family's row of [`METHODS`].
    pub fn info(self) -> &'static MethodInfo {
        &METHODS[self as usize]
    }
}

impl MethodKind {
    /// The models that can serve a column of this family, the one the workbench prefers first:
    /// late interaction runs on its own trained model when one is loaded, else MaxSim over the
    /// dense model's token vectors; HyDE proper needs the language model and the dense model. The
    /// one rule the Compare, Models and atlas views and the CLI read.
    pub fn models(self) -> &'static [Role] {
        self.info().models
    }

    /// The model to fetch when a column of this family has none: the last of [`Self::models`],
    /// the most widely available one that serves it (the dense model for late interaction).
    pub fn model_to_fetch(self) -> Option<Role> {
        match self {
            MethodKind::Hyde | MethodKind::ReasonDense => Some(Role::Generator),
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
        self.info().color
    }
}

/// What RankLens knows of one family of methods, in one row: the command line's name, the label
/// every view and report shows, the models a column of it needs (the one the workbench prefers
/// first), its colour, and how to run it from the command line (the methods atlas).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct MethodInfo {
    /// The family.
    pub kind: MethodKind,
    /// `--method late`, `--baseline bm25`.
    pub cli_name: &'static str,
    /// Display name.
    pub label: &'static str,
    /// The models that can serve a column of it, preferred first.
    pub models: &'static [Role],
    /// Colour-blind-safe: app columns, report charts, map markers.
    pub color: (u8, u8, u8),
    /// How to run it from the command line.
    pub command: &'static str,
}

/// One row per family, in the order of [`MethodKind`]'s variants (checked when the crate compiles).
pub const METHODS: [MethodInfo; 23] = [
    MethodInfo {
        kind: MethodKind::Boolean,
        cli_name: "boolean",
        label: "Boolean",
        models: &[],
        color: (140, 140, 140),
        command: "ranklens search --method boolean",
    },
    MethodInfo {
        kind: MethodKind::TfIdf,
        cli_name: "tfidf",
        label: "TF-IDF",
        models: &[],
        color: (230, 159, 0),
        command: "ranklens search --method tfidf",
    },
    MethodInfo {
        kind: MethodKind::Bm25,
        cli_name: "bm25",
        label: "BM25",
        models: &[],
        color: (213, 94, 0),
        command: "ranklens search --method bm25",
    },
    MethodInfo {
        kind: MethodKind::Splade,
        cli_name: "splade",
        label: "SPLADE",
        models: &[Role::Splade],
        color: (204, 121, 167),
        command: "ranklens search --method splade",
    },
    MethodInfo {
        kind: MethodKind::Dense,
        cli_name: "dense",
        label: "Dense",
        models: &[Role::Dense],
        color: (0, 114, 178),
        command: "ranklens search --method dense",
    },
    MethodInfo {
        kind: MethodKind::LateInteraction,
        cli_name: "late",
        label: "Late interaction",
        models: &[Role::LateInteraction, Role::Dense],
        color: (86, 180, 233),
        command: "ranklens search --method late",
    },
    MethodInfo {
        kind: MethodKind::Fusion,
        cli_name: "fusion",
        label: "Fusion",
        models: &[Role::Dense],
        color: (0, 158, 115),
        command: "ranklens search --method fusion",
    },
    MethodInfo {
        kind: MethodKind::Rerank,
        cli_name: "rerank",
        label: "Rerank",
        models: &[Role::Reranker],
        color: (120, 94, 240),
        command: "ranklens search --method rerank",
    },
    MethodInfo {
        kind: MethodKind::Sql,
        cli_name: "sql",
        label: "SQL",
        models: &[],
        color: (100, 143, 255),
        command: "ranklens sql",
    },
    MethodInfo {
        kind: MethodKind::Graph,
        cli_name: "graph",
        label: "Graph",
        models: &[],
        color: (180, 150, 60),
        command: "ranklens graph",
    },
    MethodInfo {
        kind: MethodKind::Run,
        cli_name: "run",
        label: "Run",
        models: &[],
        color: (200, 200, 200),
        command: "ranklens compare --run FILE",
    },
    MethodInfo {
        kind: MethodKind::Engine,
        cli_name: "engine",
        label: "Engine",
        models: &[],
        color: (240, 228, 66),
        command: "ranklens compare --run RESPONSE.json (or --engine ENGINE.json)",
    },
    MethodInfo {
        kind: MethodKind::Vectors,
        cli_name: "vectors",
        label: "Vectors",
        models: &[],
        color: (70, 160, 200),
        command: "ranklens compare --vectors PASSAGES.npy --query-vectors QUERIES.npy",
    },
    MethodInfo {
        kind: MethodKind::Rewrite,
        cli_name: "rewrite",
        label: "Rewrite (model)",
        models: &[Role::Generator],
        color: (170, 68, 0),
        command: "ranklens search --method rewrite",
    },
    MethodInfo {
        kind: MethodKind::Hyde,
        cli_name: "hyde",
        label: "HyDE (model)",
        models: &[Role::Generator, Role::Dense],
        color: (0, 90, 140),
        command: "ranklens search --method hyde",
    },
    MethodInfo {
        kind: MethodKind::HydeText,
        cli_name: "hyde-bm25",
        label: "HyDE text (model)",
        models: &[Role::Generator],
        color: (150, 60, 110),
        command: "ranklens search --method hyde-bm25",
    },
    MethodInfo {
        kind: MethodKind::Listwise,
        cli_name: "listwise",
        label: "Listwise (model)",
        models: &[Role::Generator],
        color: (200, 80, 200),
        command: "ranklens search --method listwise --first-stage bm25 --depth 20 --explain",
    },
    MethodInfo {
        kind: MethodKind::Pointwise,
        cli_name: "pointwise",
        label: "Pointwise (model)",
        models: &[Role::Generator],
        color: (150, 110, 230),
        command: "ranklens search --method pointwise --first-stage bm25 --depth 20 --explain",
    },
    MethodInfo {
        kind: MethodKind::ReasonBm25,
        cli_name: "reason-bm25",
        label: "Reasoning + BM25 (model)",
        models: &[Role::Generator],
        color: (190, 120, 40),
        command: "ranklens search --method reason-bm25",
    },
    MethodInfo {
        kind: MethodKind::ReasonDense,
        cli_name: "reason-dense",
        label: "Reasoning + dense (model)",
        models: &[Role::Generator, Role::Dense],
        color: (40, 130, 170),
        command: "ranklens search --method reason-dense",
    },
    MethodInfo {
        kind: MethodKind::DenseAdapter,
        cli_name: "dense-adapter",
        label: "Dense + adapter",
        models: &[Role::Dense],
        color: (0, 150, 200),
        command: "ranklens adapter train --dataset D --split train --out A; ranklens eval --dataset D --method dense --adapter A",
    },
    MethodInfo {
        kind: MethodKind::Agent,
        cli_name: "agent",
        label: "Agent (model)",
        models: &[Role::Generator],
        color: (230, 120, 90),
        command: "ranklens agent --corpus C --format json \"QUESTION\"",
    },
    MethodInfo {
        kind: MethodKind::GraphLocal,
        cli_name: "graphrag-local",
        label: "GraphRAG local (model's graph)",
        models: &[],
        color: (160, 120, 60),
        command: "ranklens graphrag build --corpus C --limit N, then ranklens search --method graphrag-local (and \
             ranklens graphrag global for a question about the whole corpus)",
    },
];

const _: () = {
    let mut i = 0;
    while i < METHODS.len() {
        assert!(METHODS[i].kind as usize == i, "METHODS is not in the order of MethodKind's variants");
        i += 1;
    }
};

impl fmt::Display for MethodKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.label())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_family_has_one_row_with_its_own_names() {
        let mut names: Vec<&str> = METHODS.iter().map(|m| m.cli_name).collect();
        let mut labels: Vec<&str> = METHODS.iter().map(|m| m.label).collect();
        names.sort_unstable();
        names.dedup();
        labels.sort_unstable();
        labels.dedup();
        assert_eq!((names.len(), labels.len()), (23, 23), "a name or a label is given to two families");
        assert_eq!(MethodKind::LateInteraction.cli_name(), "late");
        assert_eq!(MethodKind::HydeText.label(), "HyDE text (model)");
        assert!(MethodKind::Listwise.info().command.contains("--method listwise"));
        for m in &METHODS {
            assert_eq!(m.kind.info(), m);
            assert!(m.command.starts_with("ranklens "), "{:?}", m.kind);
        }
    }

    #[test]
    fn every_model_method_names_its_models_and_late_interaction_falls_back_on_dense() {
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
