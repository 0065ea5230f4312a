//! What the app remembers between runs (persisted with eframe storage), kept apart from runtime
//! handles such as the engine and running jobs.

use std::path::PathBuf;

use serde::{Deserialize, Serialize};

use crate::config::Settings;
use crate::corpus::Split;

/// Which corpus to open.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub enum CorpusChoice {
    /// The bundled Acme Sync help centre.
    Sample,
    /// A bundled lesson corpus (`isro`, `mozart`).
    Lesson(String),
    /// A user's file or folder.
    Path(PathBuf, Split),
}

impl CorpusChoice {
    /// Where its files are.
    pub fn path(&self) -> PathBuf {
        match self {
            CorpusChoice::Sample => crate::cli::sample_corpus_dir(),
            CorpusChoice::Lesson(name) => {
                crate::cli::sample_corpus_dir().with_file_name("lessons").join(format!("{name}.jsonl"))
            }
            CorpusChoice::Path(p, _) => p.clone(),
        }
    }

    /// How a folder is cut.
    pub fn split(&self) -> Split {
        match self {
            CorpusChoice::Path(_, s) => *s,
            _ => Split::File,
        }
    }
}

/// The views of the app, in navigation order. The navigation, the window loop and the tests all
/// iterate this list.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub enum ViewId {
    /// Every method side by side.
    Compare,
    /// Why the selected passage scored what it did.
    Explain,
    /// The PCA map.
    Map,
    /// SQL and knowledge graph.
    Structured,
    /// Grades, metrics and question-set evaluation.
    Evaluate,
    /// Corpus browser and statistics.
    Corpus,
    /// Neural models.
    Models,
    /// Worked examples computed live.
    Lessons,
    /// One card per retrieval method.
    Atlas,
    /// The RAG prompt.
    Rag,
}

impl ViewId {
    /// Every view.
    pub const ALL: [ViewId; 10] = [
        ViewId::Compare,
        ViewId::Explain,
        ViewId::Map,
        ViewId::Structured,
        ViewId::Evaluate,
        ViewId::Corpus,
        ViewId::Models,
        ViewId::Lessons,
        ViewId::Atlas,
        ViewId::Rag,
    ];

    /// Navigation label.
    pub fn label(self) -> &'static str {
        match self {
            ViewId::Compare => "Compare",
            ViewId::Explain => "Explain",
            ViewId::Map => "Map",
            ViewId::Structured => "Structured",
            ViewId::Evaluate => "Evaluate",
            ViewId::Corpus => "Corpus",
            ViewId::Models => "Models",
            ViewId::Lessons => "Lessons",
            ViewId::Atlas => "Methods atlas",
            ViewId::Rag => "RAG prompt",
        }
    }
}

/// Everything persisted.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct Persisted {
    /// Ranking settings.
    pub settings: Settings,
    /// The corpus to reopen.
    pub corpus: CorpusChoice,
    /// The view shown.
    pub view: ViewId,
    /// The question.
    pub question: String,
    /// Never download.
    pub offline: bool,
    /// The SQL editor's text.
    pub sql: String,
    /// The graph pattern editor's text.
    pub pattern: String,
    /// Show the frame-time overlay.
    pub debug_overlay: bool,
}

impl Default for Persisted {
    fn default() -> Self {
        Self {
            settings: Settings::default(),
            corpus: CorpusChoice::Sample,
            view: ViewId::Compare,
            question: "Why does my phone say my login is stale?".into(),
            offline: false,
            sql: String::new(),
            pattern: String::new(),
            debug_overlay: false,
        }
    }
}
