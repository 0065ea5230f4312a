//! One validated settings struct shared by the CLI and the GUI.
//!
//! The CLI turns flags into [`Settings`]; the GUI edits the same struct with widgets and persists
//! it. Everything downstream reads only this, so both front ends rank identically.

use serde::{Deserialize, Serialize};

use crate::analysis::AnalyzerConfig;
use crate::corpus::FieldFilter;
use crate::index::NeuralOptions;
use crate::models::WindowSpec;
use crate::retrieve::{Bm25Params, Bm25Variant, FusionSettings, MethodKind, ModelRerank, TfIdfVariant};
use crate::{Error, Result};

/// Every knob that changes a ranking.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct Settings {
    /// Results per method.
    pub k: usize,
    /// Analyzer for the lexical methods.
    pub analyzer: AnalyzerConfig,
    /// TF-IDF variant.
    pub tfidf: TfIdfVariant,
    /// Divide textbook TF-IDF by |d|.
    pub tfidf_normalize: bool,
    /// BM25 variant.
    pub bm25_variant: Bm25Variant,
    /// BM25 parameters.
    pub bm25: Bm25Params,
    /// Fusion.
    pub fusion: FusionSettings,
    /// Methods to run, in column order.
    pub methods: Vec<MethodKind>,
    /// Keep only documents satisfying this before ranking.
    pub filter: Option<FieldFilter>,
    /// How many first-stage results the reranker reads.
    pub rerank_depth: usize,
    /// How documents longer than an encoder's window are cut (dense, SPLADE, late interaction).
    pub windows: WindowSpec,
    /// Bits per dimension of the late-interaction token index (1, 2, 4, 8; 16 = f16).
    pub token_bits: u8,
    /// How a language model reorders a first stage (the listwise and pointwise columns).
    pub model_rerank: ModelRerank,
    /// The query adapter the "Dense + adapter" column maps question vectors with.
    pub adapter: Option<std::path::PathBuf>,
    /// The agent's bounds (rounds, tokens, passages per search).
    pub agent: crate::retrieve::agent::AgentLimits,
}

impl Default for Settings {
    fn default() -> Self {
        Self {
            k: 10,
            analyzer: AnalyzerConfig::default(),
            tfidf: TfIdfVariant::CosineLog2,
            tfidf_normalize: true,
            bm25_variant: Bm25Variant::Lucene,
            bm25: Bm25Variant::Lucene.default_params(),
            fusion: FusionSettings::default(),
            methods: MethodKind::BUILT_IN.to_vec(),
            filter: None,
            rerank_depth: 20,
            windows: WindowSpec::default(),
            token_bits: crate::index::tokens::DEFAULT_BITS,
            model_rerank: ModelRerank::default(),
            agent: Default::default(),
            adapter: None,
        }
    }
}

impl Settings {
    /// How the neural indexes cut and store the corpus under these settings.
    pub fn neural_options(&self) -> NeuralOptions {
        NeuralOptions {
            windows: self.windows,
            token_bits: self.token_bits,
            tokens: self.methods.contains(&MethodKind::LateInteraction)
                || self.fusion.inputs.contains(&MethodKind::LateInteraction),
            ..NeuralOptions::default()
        }
    }

    /// Check every field a user can set, naming the one that is wrong.
    pub fn validate(&self) -> Result<()> {
        if self.k == 0 || self.k > 100_000 {
            return Err(Error::invalid("k", format!("k must be between 1 and 100000, got {}", self.k)));
        }
        self.bm25.validate()?;
        if !matches!(self.token_bits, 1 | 2 | 4 | 8 | 16) {
            return Err(Error::invalid(
                "token_bits",
                format!("the token index stores 1, 2, 4 or 8 bits per dimension, or 16 (f16); got {}", self.token_bits),
            ));
        }
        if self.windows.size > 100_000 || self.windows.stride > 100_000 {
            return Err(Error::invalid("windows", "a window holds at most 100000 word pieces"));
        }
        self.model_rerank.validate()?;
        self.agent.validate()?;
        self.fusion.validate()
    }

    /// Switch the BM25 variant and take its reference parameters.
    pub fn set_bm25_variant(&mut self, variant: Bm25Variant) {
        self.bm25_variant = variant;
        self.bm25 = variant.default_params();
    }
}

impl Settings {
    /// Every model a column of `kind` needs under these settings: its own ([`MethodKind::models`]),
    /// and for a combination those of its inputs (fusion's lists; the reranker's first stage).
    pub fn models_for(&self, kind: MethodKind) -> Vec<crate::models::Role> {
        match kind {
            MethodKind::Fusion => self
                .fusion
                .inputs
                .iter()
                .filter(|k| !matches!(k, MethodKind::Fusion | MethodKind::Rerank))
                .flat_map(|k| self.models_for(*k))
                .collect(),
            MethodKind::Rerank => {
                let mut r = kind.models().to_vec();
                r.extend(self.models_for(MethodKind::Fusion));
                r
            }
            MethodKind::Listwise | MethodKind::Pointwise => {
                let mut r = kind.models().to_vec();
                let first = self.model_rerank.first_stage;
                if !matches!(first, MethodKind::Listwise | MethodKind::Pointwise) {
                    r.extend(self.models_for(first));
                }
                r
            }
            k => k.models().to_vec(),
        }
    }

    /// Does a column of these settings use `role`'s model (itself or through its inputs)?
    pub fn uses_model(&self, role: crate::models::Role) -> bool {
        self.methods.iter().any(|&k| self.models_for(k).contains(&role))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_combination_needs_the_models_of_its_inputs() {
        use crate::models::Role;
        let mut s = Settings::default();
        s.fusion.inputs = vec![MethodKind::Bm25, MethodKind::Splade, MethodKind::LateInteraction, MethodKind::Fusion];
        assert_eq!(s.models_for(MethodKind::Fusion), [Role::Splade, Role::LateInteraction, Role::Dense]);
        assert_eq!(s.models_for(MethodKind::Rerank)[0], Role::Reranker);
        assert_eq!(s.models_for(MethodKind::Rerank).len(), 4);
        assert!(s.models_for(MethodKind::Bm25).is_empty());
    }

    #[test]
    fn columns_use_the_models_of_their_families_and_inputs() {
        use crate::models::Role;
        let mut s = Settings { methods: vec![MethodKind::Bm25, MethodKind::Dense], ..Settings::default() };
        assert!(s.uses_model(Role::Dense));
        assert!(!s.uses_model(Role::Generator) && !s.uses_model(Role::Reranker) && !s.uses_model(Role::Splade));
        // The reranker's first stage is fusion, whose inputs bring theirs.
        s.methods = vec![MethodKind::Rerank];
        s.fusion.inputs = vec![MethodKind::Bm25, MethodKind::Splade];
        assert!(s.uses_model(Role::Reranker) && s.uses_model(Role::Splade));
        assert!(!s.uses_model(Role::Dense) && !s.uses_model(Role::Generator));
        s.methods = vec![MethodKind::Bm25, MethodKind::Listwise];
        assert!(s.uses_model(Role::Generator));
        s.methods.clear();
        assert!(!s.uses_model(Role::Dense));
    }

    #[test]
    fn validation_names_the_field() {
        let mut s = Settings { k: 0, ..Settings::default() };
        assert!(s.validate().unwrap_err().to_string().starts_with("k:"));
        s.k = 10;
        s.fusion.rrf_k = -1.0;
        assert!(s.validate().unwrap_err().to_string().starts_with("rrf-k:"));
        s.fusion.rrf_k = 60.0;
        assert!(s.validate().is_ok());
    }

    #[test]
    fn settings_round_trip_through_json() {
        let s = Settings::default();
        let json = serde_json::to_string(&s).unwrap();
        let back: Settings = serde_json::from_str(&json).unwrap();
        assert_eq!(back, s);
        // Missing fields take defaults, so older saved settings still load.
        let partial: Settings = serde_json::from_str("{\"k\": 5}").unwrap();
        assert_eq!(partial.k, 5);
    }
}
