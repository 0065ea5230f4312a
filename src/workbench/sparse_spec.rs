//! A lexical method as a column's spec: Boolean, or a scored TF-IDF or BM25 formula.

use serde::{Deserialize, Serialize};

use crate::config::Settings;
use crate::retrieve::{Bm25Params, Bm25Variant, LexicalModel, MethodKind, TfIdfVariant};

/// A lexical method: Boolean set retrieval, or a scored formula ([`LexicalModel`]: a TF-IDF or
/// BM25 variant with its parameters; tantivy's BM25 is scored by tantivy itself).
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub enum SparseSpec {
    /// Boolean set retrieval.
    Boolean,
    /// A scored formula.
    Scored(LexicalModel),
}

impl SparseSpec {
    /// A BM25 variant with its parameters (ignored by `tantivy`).
    pub fn bm25(variant: Bm25Variant, params: Bm25Params) -> SparseSpec {
        SparseSpec::Scored(LexicalModel::Bm25 { variant, params })
    }

    /// A TF-IDF variant; `normalize` divides by |d| (textbook).
    pub fn tfidf(variant: TfIdfVariant, normalize: bool) -> SparseSpec {
        SparseSpec::Scored(LexicalModel::TfIdf { variant, normalize })
    }

    /// The method family.
    pub fn kind(&self) -> MethodKind {
        match self {
            SparseSpec::Boolean => MethodKind::Boolean,
            SparseSpec::Scored(LexicalModel::TfIdf { .. }) => MethodKind::TfIdf,
            SparseSpec::Scored(LexicalModel::Bm25 { .. }) => MethodKind::Bm25,
        }
    }

    /// The specs the settings select for one family.
    pub fn from_settings(kind: MethodKind, s: &Settings) -> Option<SparseSpec> {
        match kind {
            MethodKind::Boolean => Some(SparseSpec::Boolean),
            MethodKind::TfIdf => Some(SparseSpec::tfidf(s.tfidf, s.tfidf_normalize)),
            MethodKind::Bm25 => Some(SparseSpec::bm25(s.bm25_variant, s.bm25)),
            _ => None,
        }
    }

    /// Every lexical variant with its reference parameters (BM25 variants other than the selected
    /// one use their library defaults; the selected one uses `params`).
    pub fn all_variants(selected: Bm25Variant, params: Bm25Params) -> Vec<SparseSpec> {
        let mut out = vec![SparseSpec::Boolean];
        out.extend(TfIdfVariant::ALL.into_iter().map(|variant| SparseSpec::tfidf(variant, true)));
        out.extend(Bm25Variant::ALL.into_iter().map(|variant| {
            SparseSpec::bm25(variant, if variant == selected { params } else { variant.default_params() })
        }));
        out
    }
}
