//! Text analysis: the named presets that turn text into index terms.
//!
//! Every explanation names the analyzer that produced its terms, because "why did BM25 miss this
//! passage?" is often answered by the analyzer, not the formula.

mod analyzer;
mod porter;
mod stopwords;

pub use analyzer::{AnalyzedToken, Analyzer, AnalyzerConfig, MAX_TOKEN_LENGTH, Preset, StemCache};
pub use porter::stem as porter_stem;
pub use stopwords::{GENERAL_ENGLISH, LUCENE_ENGLISH};
