//! The readers a workbench can give: the trained extractive model it loaded, its language model
//! held to spans, or the toy.

use std::sync::Arc;

use super::Workbench;
use super::loaded::missing;
use crate::models::Role;
use crate::read::{GeneratorReader, Reader, ReaderKind, ToyReader, TrainedReader};
use crate::{Error, Result};

/// What the trained reader's column says when its model is not here.
pub const NO_TRAINED_READER: &str = "the trained reader's weights (deepset/minilm-uncased-squad2, or \
     distilbert-base-cased-distilled-squad) come from the Hugging Face hub and are on no package registry: \
     `ranklens models fetch --role reader` fetches them where the hub can be reached (or point \
     RANKLENS_READER_MODEL at a folder holding them); meanwhile the language model reads";

impl Workbench {
    /// The reader of `kind`, or why it cannot read here.
    pub fn reader(&self, kind: ReaderKind) -> Result<Arc<dyn Reader>> {
        let n = self.neural();
        match kind {
            ReaderKind::Toy => Ok(Arc::new(ToyReader)),
            ReaderKind::Span => match &n.reader {
                Some(l) => Ok(Arc::new(TrainedReader::new(l.encoder.clone(), None))),
                None => Err(Error::Unavailable(format!("{}; {NO_TRAINED_READER}", missing(&n.missing, Role::Reader)))),
            },
            ReaderKind::Generator => match self.generator() {
                Some(g) => Ok(Arc::new(GeneratorReader::new(g))),
                None => Err(Error::Unavailable(missing(&n.missing, Role::Generator))),
            },
        }
    }

    /// The reader to use when none is named: the trained one when its model is loaded, else the
    /// language model when one is, else the toy.
    pub fn default_reader_kind(&self) -> ReaderKind {
        if self.has_model(Role::Reader) {
            ReaderKind::Span
        } else if self.has_model(Role::Generator) {
            ReaderKind::Generator
        } else {
            ReaderKind::Toy
        }
    }
}
