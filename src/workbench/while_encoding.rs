//! Provisional neural columns: while the corpus is being encoded with a model, its column answers
//! a question over BM25's top [`crate::retrieve::PROVISIONAL_DEPTH`] passages, encoded for that question with the
//! same model ([`ProvisionalRetriever`]). The corpus's own encoding pauses between its steps while
//! a provisional one runs, so the question gets both cores; and the encoding's progress is kept per
//! role, so a provisional column says how far the whole encoding is.

use std::sync::Arc;

use super::encoding_state::{EncodingProgress, f16_in_memory, pausing};
use crate::config::Settings;
use crate::index::encoded::{Cut, build_late, build_splade};
use crate::models::{Role, TextEncoder, TokenEncoder};
use crate::progress::Progress;
use crate::retrieve::provisional::BuildOver;
use crate::retrieve::{
    DenseRetriever, LateInteractionRetriever, MethodKind, ProvisionalRetriever, Retriever, SpladeRetriever,
};
use crate::{Error, Result};

impl super::Workbench {
    /// Can this column answer provisionally: its model is loaded, its passages not encoded yet?
    pub fn answers_provisionally(&self, kind: MethodKind) -> bool {
        let n = self.neural();
        match kind {
            MethodKind::Dense => n.dense.is_some() && n.dense_index.is_none(),
            MethodKind::Splade => n.splade.is_some() && n.splade_index.is_none(),
            MethodKind::LateInteraction => {
                // Over the dense model's token vectors only when they are being kept.
                let source = n.late.is_some() || n.options.tokens;
                match n.late_encoder() {
                    Some(e) if source => self.late_index_for(&n, e.as_ref()).is_none(),
                    _ => false,
                }
            }
            _ => false,
        }
    }

    /// The column of `kind` ranked over BM25's top [`crate::retrieve::PROVISIONAL_DEPTH`] (with the settings'
    /// BM25), encoded with the column's own model when a question is prepared; labelled, explained
    /// and reported as provisional. [`Error::Unavailable`] when the column has no model.
    pub fn provisional_retriever(&self, kind: MethodKind, settings: &Settings) -> Result<Arc<dyn Retriever>> {
        let n = self.neural();
        let first = self.sparse_arc(settings)?;
        let corpus = self.corpus().clone();
        let docs = corpus.len();
        let spec = n.options.windows;
        let state = self.provisional.clone();
        let no_model = |role| Error::Unavailable(super::missing(&n.missing, role));
        let provisional = |base: String, role: Role, build: Arc<BuildOver>| {
            let status = state.status_of(role);
            let r = ProvisionalRetriever::new(kind, base, first.clone(), docs, status, pausing(&state, build));
            Ok(Arc::new(r) as Arc<dyn Retriever>)
        };
        match kind {
            MethodKind::Dense => {
                let d = n.dense.clone().ok_or_else(|| no_model(Role::Dense))?;
                let base = DenseRetriever::label_of(TextEncoder::model_id(d.encoder.as_ref()));
                // The token vectors come from the same forward pass, for the late column after it.
                let tokens = n.late.is_none() && n.options.tokens;
                let (s, c) = (state.clone(), corpus.clone());
                provisional(
                    base,
                    Role::Dense,
                    Arc::new(move |keep: &[bool], progress: &dyn Progress| {
                        let (index, _) = s.dense(&c, &d.encoder, spec, keep, tokens, progress)?;
                        let encoder = d.encoder.clone() as Arc<dyn TextEncoder>;
                        Ok(Arc::new(DenseRetriever::new(index, encoder).with_corpus(c.clone())) as Arc<dyn Retriever>)
                    }),
                )
            }
            MethodKind::Splade => {
                let sp = n.splade.clone().ok_or_else(|| no_model(Role::Splade))?;
                let base = SpladeRetriever::label_of(crate::models::SparseEncoder::model_id(sp.encoder.as_ref()));
                let c = corpus.clone();
                provisional(
                    base,
                    Role::Splade,
                    Arc::new(move |keep: &[bool], progress: &dyn Progress| {
                        let cut = Cut { spec, only: Some(keep) };
                        let index = build_splade(&c, sp.encoder.as_ref(), None, cut, progress)?;
                        let encoder = sp.encoder.clone();
                        Ok(Arc::new(SpladeRetriever::new(Arc::new(index), encoder, c.clone())) as Arc<dyn Retriever>)
                    }),
                )
            }
            MethodKind::LateInteraction => {
                let encoder = n.late_encoder().ok_or_else(|| no_model(Role::LateInteraction))?;
                let base = LateInteractionRetriever::label_of(encoder.model_id(), encoder.trained_late_interaction());
                let (s, c) = (state.clone(), corpus.clone());
                match (n.late.clone(), n.dense.clone()) {
                    (Some(late), _) => provisional(
                        base,
                        Role::LateInteraction,
                        Arc::new(move |keep: &[bool], progress: &dyn Progress| {
                            let cut = Cut { spec, only: Some(keep) };
                            let index = build_late(&c, late.encoder.as_ref(), None, cut, &f16_in_memory(), progress)?;
                            let encoder = late.encoder.clone() as Arc<dyn TokenEncoder>;
                            Ok(Arc::new(LateInteractionRetriever::over_index(Arc::new(index), encoder))
                                as Arc<dyn Retriever>)
                        }),
                    ),
                    (None, Some(d)) => provisional(
                        base,
                        Role::Dense,
                        Arc::new(move |keep: &[bool], progress: &dyn Progress| {
                            let (_, tokens) = s.dense(&c, &d.encoder, spec, keep, true, progress)?;
                            let tokens = tokens.ok_or_else(|| Error::Model("no token vectors were kept".into()))?;
                            let encoder = d.encoder.clone() as Arc<dyn TokenEncoder>;
                            Ok(Arc::new(LateInteractionRetriever::over_index(tokens, encoder)) as Arc<dyn Retriever>)
                        }),
                    ),
                    (None, None) => Err(no_model(Role::LateInteraction)),
                }
            }
            other => Err(Error::invalid("method", format!("{other} has no provisional ranking"))),
        }
    }

    /// Drop the last provisional dense build (its f16 token vectors take tens of megabytes):
    /// once the corpus is encoded no column needs it.
    pub(super) fn forget_provisional(&self) {
        if let Ok(mut m) = self.provisional.dense.lock() {
            *m = None;
        }
    }

    /// The progress of the corpus's encoding with `role`'s model (see [`EncodingProgress`]).
    pub(super) fn encoding_progress<'a>(&'a self, role: Role, progress: &'a dyn Progress) -> EncodingProgress<'a> {
        EncodingProgress::new(progress, &self.provisional, role)
    }
}
