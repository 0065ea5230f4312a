//! Where an outside engine's answers come from (`EngineSource`): a live server, or
//! responses saved to a file.

use std::sync::Arc;

use super::live::LiveEngine;
use super::response::SavedResponses;

/// A search engine as a column: responses saved to a file, or a live engine asked per question.
#[derive(Debug, Clone)]
pub enum EngineSource {
    /// Saved responses.
    Saved(Arc<SavedResponses>),
    /// A running engine.
    Live(Arc<LiveEngine>),
}

impl EngineSource {
    /// The column's name.
    pub fn name(&self) -> &str {
        match self {
            EngineSource::Saved(s) => &s.name,
            EngineSource::Live(l) => &l.name,
        }
    }

    /// Where it comes from, for captions (a file, or the engine's URL and index).
    pub fn origin(&self) -> String {
        match self {
            EngineSource::Saved(s) => s.source.display().to_string(),
            EngineSource::Live(l) => format!("{} {}/{}", l.kind.label(), l.url.trim_end_matches('/'), l.index),
        }
    }
}

impl PartialEq for EngineSource {
    fn eq(&self, other: &Self) -> bool {
        match (self, other) {
            (EngineSource::Saved(a), EngineSource::Saved(b)) => Arc::ptr_eq(a, b) || a == b,
            (EngineSource::Live(a), EngineSource::Live(b)) => Arc::ptr_eq(a, b) || a == b,
            _ => false,
        }
    }
}
