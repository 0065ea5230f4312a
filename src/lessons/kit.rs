//! Everything the lessons compute with: the lesson corpora and the sample workbench with its
//! models, and the corpus and question open in the app.

use std::path::PathBuf;
use std::sync::Arc;

use crate::corpus::{Corpus, LoadOptions};
use crate::models::{BertDenseEncoder, ModelManager, Role};
use crate::progress::Progress;
use crate::workbench::Workbench;
use crate::{Error, Result};

/// Everything the lessons compute with: the lesson corpora, the sample engine with its models.
pub struct LessonKit {
    /// The Acme Sync sample with its neural indexes (when the models are here).
    pub sample: Arc<Workbench>,
    /// The dense model, when it is here.
    pub dense: Option<Arc<BertDenseEncoder>>,
    /// The folder of the lesson corpora.
    pub lessons_dir: PathBuf,
}

impl LessonKit {
    /// Load the lesson corpora and the sample with whatever models are already here (never
    /// downloads: a missing model makes the neural parts say so).
    pub fn load(manager: &ModelManager, progress: &dyn Progress) -> Result<LessonKit> {
        let sample_dir = crate::sample::acme_sync()?;
        let lessons_dir = crate::sample::lessons()?;
        let corpus = crate::corpus::load(&sample_dir, LoadOptions::default())?;
        let mut engine = Workbench::new(corpus);
        engine.load_structured(&sample_dir)?;
        for role in [Role::Dense, Role::Splade] {
            let _ = engine.load_model(manager, role, false, progress);
        }
        engine.build_neural(progress)?;
        let dense = engine.neural().dense.map(|d| d.encoder);
        Ok(LessonKit { sample: Arc::new(engine), dense, lessons_dir })
    }

    /// A lesson corpus by name (`isro`, `mozart`, `reader`).
    pub fn corpus(&self, name: &str) -> Result<Corpus> {
        let path = self.lessons_dir.join(format!("{name}.jsonl"));
        let c = crate::corpus::load(&path, LoadOptions::default())?;
        if c.is_empty() {
            return Err(Error::invalid(path.display().to_string(), "the lesson corpus is empty"));
        }
        Ok(c)
    }
}

/// The corpus and question in the question bar: the lessons that run on the open corpus use them
/// after their textbook page.
#[derive(Clone)]
pub struct Open {
    /// The open corpus's engine.
    pub workbench: Arc<Workbench>,
    /// The question in the bar.
    pub question: String,
}
