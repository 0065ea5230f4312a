//! The engine's neural side: which models are loaded, the indexes built with them, and the
//! retrievers over those indexes. A role without a model is not an error: its column says what is
//! missing and how to get it, and every other method keeps working.

use std::sync::Arc;

use super::loaded::{NOT_ENCODED, Neural, missing};
use crate::config::Settings;
use crate::index::NeuralOptions;
use crate::index::encoded::{TokenTarget, build_dense, build_late, build_splade};
use crate::index::hnsw::DenseAnn;
use crate::index::tokens::TokenIndex;
use crate::models::{EmbeddingCache, ModelManager, Role, TextEncoder, TokenEncoder};
use crate::progress::Progress;
use crate::project::PcaMap;
use crate::retrieve::{
    DenseRetriever, FusionRetriever, LateInteractionRetriever, MethodKind, RerankRetriever, Retriever, SpladeRetriever,
};
use crate::{Error, Result};

/// Token indexes with more token vectors than this score a question in a second job, after the
/// other columns (MaxSim reads every token vector: SciFact's 1.8 million take about a second).
pub const SLOW_LATE_TOKENS: u64 = 500_000;

impl super::Workbench {
    /// The encoding cache in the workspace (none without a workspace).
    pub fn embedding_cache(&self) -> Option<EmbeddingCache> {
        let ws = self.workspace()?;
        EmbeddingCache::open(&ws.join("encodings.sqlite")).ok()
    }

    /// A snapshot of the neural state.
    pub fn neural(&self) -> Neural {
        self.neural.read().map(|n| n.clone()).unwrap_or_default()
    }

    /// Change the neural state.
    pub(super) fn with_neural<T>(&self, f: impl FnOnce(&mut Neural) -> T) -> Result<T> {
        let mut n = self.neural.write().map_err(|_| Error::Model("neural state poisoned".into()))?;
        self.neural_revision.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
        Ok(f(&mut n))
    }

    /// Changes whenever a model, an index or an option of the neural side does: what views'
    /// data about the models and indexes is keyed by.
    pub fn neural_revision(&self) -> u64 {
        self.neural_revision.load(std::sync::atomic::Ordering::Relaxed)
    }

    /// Load (and, when allowed, download) the model of every role. Failures are recorded per
    /// role, never fatal.
    pub fn load_models(&self, manager: &ModelManager, allow_download: bool, progress: &dyn Progress) -> Result<()> {
        for role in Role::ALL {
            self.load_model(manager, role, allow_download, progress).ok();
        }
        Ok(())
    }

    /// Load the model of one role.
    pub fn load_model(
        &self,
        manager: &ModelManager,
        role: Role,
        allow_download: bool,
        progress: &dyn Progress,
    ) -> Result<()> {
        let mut n = self.neural();
        let r = n.load_role(manager, role, allow_download, progress);
        self.with_neural(|state| {
            match role {
                Role::Dense => state.dense = n.dense.clone(),
                Role::Splade => state.splade = n.splade.clone(),
                Role::LateInteraction => state.late = n.late.clone(),
                Role::Reranker => state.reranker = n.reranker.clone(),
                Role::Generator => state.generator = n.generator.clone(),
                Role::Reader => state.reader = n.reader.clone(),
            }
            state.missing = n.missing.clone();
        })?;
        r
    }

    /// How documents are cut into windows and token vectors stored from now on (indexes built
    /// already are kept until they are built again).
    pub fn set_neural_options(&self, options: NeuralOptions) -> Result<()> {
        self.with_neural(|s| s.options = options)
    }

    /// Where the token index of this corpus by `model_id` is kept: a file in the workspace named
    /// by the model, the corpus, the windows and the bits (in memory without a workspace).
    fn token_target(&self, model_id: &str, options: &NeuralOptions) -> TokenTarget {
        let file = |bits: u8| {
            self.workspace().map(|ws| {
                let key = format!("{model_id} {} {:?} {bits}", self.corpus().fingerprint(), options.windows);
                ws.join("tokens").join(format!("{}.rltok", &crate::models::text_hash(&key)[..24]))
            })
        };
        TokenTarget { bits: options.token_bits, file: file(options.token_bits), f16_file: file(16) }
    }

    /// Encode the corpus with the dense model (and keep its token vectors, compressed, for late
    /// interaction when no trained ColBERT is loaded), then fit the map.
    pub fn build_dense(&self, progress: &dyn Progress) -> Result<()> {
        let n = self.neural();
        let Some(dense) = n.dense else { return Err(Error::Unavailable(missing(&n.missing, Role::Dense))) };
        let options = n.options;
        let target = (n.late.is_none() && options.tokens)
            .then(|| self.token_target(TextEncoder::model_id(dense.encoder.as_ref()), &options));
        let cache = self.embedding_cache();
        let progress = &self.encoding_progress(Role::Dense, progress);
        let _turn = self.encoding_turn(progress, "dense")?;
        let (index, late) =
            build_dense(self.corpus(), &dense.encoder, cache.as_ref(), options.windows, target.as_ref(), progress)?;
        let ann = match index.len() > options.approximate_above {
            true => Some(Arc::new(DenseAnn::build(&index, progress)?)),
            false => None,
        };
        let map = PcaMap::fit(&index).ok().map(Arc::new);
        self.forget_provisional();
        self.with_neural(|s| {
            s.dense_index = Some(Arc::new(index));
            s.dense_ann = ann;
            if late.is_some() {
                s.late_index = late.map(Arc::new);
            }
            s.map = map;
        })
    }

    /// Encode the corpus with SPLADE.
    pub fn build_splade(&self, progress: &dyn Progress) -> Result<()> {
        let n = self.neural();
        let Some(splade) = n.splade else { return Err(Error::Unavailable(missing(&n.missing, Role::Splade))) };
        let cache = self.embedding_cache();
        let progress = &self.encoding_progress(Role::Splade, progress);
        let _turn = self.encoding_turn(progress, "SPLADE")?;
        let index = build_splade(self.corpus(), splade.encoder.as_ref(), cache.as_ref(), n.options.windows, progress)?;
        self.with_neural(|s| s.splade_index = Some(Arc::new(index)))
    }

    /// Encode the corpus's token vectors with the trained late-interaction model.
    pub fn build_late(&self, progress: &dyn Progress) -> Result<()> {
        let n = self.neural();
        let Some(late) = n.late else { return Ok(()) };
        let target = self.token_target(late.encoder.model_id(), &n.options);
        let cache = self.embedding_cache();
        let progress = &self.encoding_progress(Role::LateInteraction, progress);
        let _turn = self.encoding_turn(progress, "late interaction")?;
        let index =
            build_late(self.corpus(), late.encoder.as_ref(), cache.as_ref(), n.options.windows, &target, progress)?;
        self.with_neural(|s| s.late_index = Some(Arc::new(index)))
    }

    /// Wait for this encoding's turn. Encodings take every core (their matrix products run on
    /// all of them), so two at once only slow each other: measured on SciFact with 2 cores, the
    /// dense and SPLADE encodings running side by side were both ready after 12 minutes, where
    /// one after the other they take 4.5 and 3.3. Waiting can be cancelled.
    fn encoding_turn(&self, progress: &dyn Progress, what: &str) -> Result<std::sync::MutexGuard<'_, ()>> {
        let mut said = false;
        loop {
            match self.encoding.try_lock() {
                Ok(guard) => return Ok(guard),
                Err(std::sync::TryLockError::Poisoned(p)) => return Ok(p.into_inner()),
                Err(std::sync::TryLockError::WouldBlock) => {
                    if !said {
                        progress.stage(&format!("{what}: waiting for the other encoding to finish"), 0);
                        said = true;
                    }
                    crate::progress::check_cancel(progress)?;
                    std::thread::sleep(std::time::Duration::from_millis(50));
                }
            }
        }
    }

    /// Whether the model of a role is loaded (its method may still wait for its encodings).
    pub fn has_model(&self, role: Role) -> bool {
        let n = self.neural();
        match role {
            Role::Dense => n.dense.is_some(),
            Role::Splade => n.splade.is_some(),
            Role::LateInteraction => n.late.is_some(),
            Role::Reranker => n.reranker.is_some(),
            Role::Generator => n.generator.is_some(),
            Role::Reader => n.reader.is_some(),
        }
    }

    /// Build every neural index whose model is loaded.
    pub fn build_neural(&self, progress: &dyn Progress) -> Result<()> {
        let n = self.neural();
        if n.late.is_some() {
            self.build_late(progress)?;
        }
        if n.dense.is_some() {
            self.build_dense(progress)?;
        }
        if n.splade.is_some() {
            self.build_splade(progress)?;
        }
        Ok(())
    }

    /// A retriever of a family that needs a model, or why it cannot run here
    /// ([`Error::Unavailable`]: a model is missing or the passages are not encoded yet), built by
    /// its family's factory: the encoders' columns, the combinations, the trained adapter, and the
    /// language model's columns (`model_columns.rs`).
    pub fn neural_retriever(&self, kind: MethodKind, settings: &Settings) -> Result<Arc<dyn Retriever>> {
        match kind {
            MethodKind::Dense | MethodKind::Splade | MethodKind::LateInteraction => self.encoded_retriever(kind),
            MethodKind::Fusion | MethodKind::Rerank => self.combined_retriever(kind, settings),
            MethodKind::DenseAdapter => self.adapter_retriever(settings),
            k if MethodKind::GENERATED.contains(&k) || MethodKind::EXTRACTED.contains(&k) => {
                self.model_retriever(k, settings)
            }
            other => Err(Error::invalid("method", format!("{other} is not a neural method"))),
        }
    }

    /// A column over the passages' encodings: dense, SPLADE, late interaction.
    fn encoded_retriever(&self, kind: MethodKind) -> Result<Arc<dyn Retriever>> {
        let n = self.neural();
        let corpus = self.corpus().clone();
        let unavailable = |message: String| Err(Error::Unavailable(message));
        match kind {
            MethodKind::Dense => match (&n.dense, &n.dense_index) {
                (Some(d), Some(i)) => {
                    let r = DenseRetriever::new(i.clone(), d.encoder.clone() as Arc<dyn TextEncoder>)
                        .with_corpus(corpus.clone());
                    Ok(Arc::new(match &n.dense_ann {
                        Some(ann) => r.with_ann(ann.clone()),
                        None => r,
                    }))
                }
                (Some(_), None) => unavailable(NOT_ENCODED.into()),
                (None, _) => unavailable(missing(&n.missing, Role::Dense)),
            },
            MethodKind::Splade => match (&n.splade, &n.splade_index) {
                (Some(s), Some(i)) => Ok(Arc::new(SpladeRetriever::new(i.clone(), s.encoder.clone(), corpus))),
                (Some(_), None) => unavailable(NOT_ENCODED.into()),
                (None, _) => unavailable(missing(&n.missing, Role::Splade)),
            },
            MethodKind::LateInteraction => {
                let Some(encoder) = n.late_encoder() else {
                    return unavailable(format!(
                        "{} (and no dense model to fall back on: {})",
                        missing(&n.missing, Role::LateInteraction),
                        missing(&n.missing, Role::Dense)
                    ));
                };
                match self.late_index_for(&n, encoder.as_ref()) {
                    Some(i) => Ok(Arc::new(LateInteractionRetriever::over_index(i, encoder))),
                    None => unavailable(NOT_ENCODED.into()),
                }
            }
            other => Err(Error::invalid("method", format!("{other} is not an encoder's method"))),
        }
    }

    /// A column that combines others: fusion of its inputs, the cross-encoder over fusion (or BM25).
    fn combined_retriever(&self, kind: MethodKind, settings: &Settings) -> Result<Arc<dyn Retriever>> {
        let n = self.neural();
        let corpus = self.corpus().clone();
        let unavailable = |message: String| Err(Error::Unavailable(message));
        match kind {
            MethodKind::Fusion => {
                let inputs: Vec<Arc<dyn Retriever>> =
                    settings.fusion.inputs.iter().filter_map(|k| self.retriever(*k, settings).ok()).collect();
                if inputs.len() < 2 {
                    return unavailable(format!(
                        "fusion needs two of its inputs ({}) available",
                        settings.fusion.inputs.iter().map(|k| k.label()).collect::<Vec<_>>().join(", ")
                    ));
                }
                Ok(Arc::new(FusionRetriever::new(inputs, settings.fusion.clone())))
            }
            MethodKind::Rerank => {
                let Some(r) = &n.reranker else { return unavailable(missing(&n.missing, Role::Reranker)) };
                let first =
                    self.neural_retriever(MethodKind::Fusion, settings).or_else(|_| self.sparse_arc(settings))?;
                Ok(Arc::new(RerankRetriever::new(first, r.encoder.clone(), corpus, settings.rerank_depth)))
            }
            other => Err(Error::invalid("method", format!("{other} does not combine methods"))),
        }
    }

    pub(super) fn sparse_arc(&self, settings: &Settings) -> Result<Arc<dyn Retriever>> {
        let spec = super::SparseSpec::bm25(settings.bm25_variant, settings.bm25);
        self.sparse(spec, settings.analyzer, &crate::progress::NoProgress)
    }

    /// For each built index, how many documents exceed its model's window (said by the CLI and
    /// the Corpus view): `dense (all-MiniLM-L6-v2): 12 of 40 documents are longer than its window
    /// of 254 word pieces; each is encoded in 2–5 overlapping windows and scores by its best`.
    pub fn window_notes(&self) -> Vec<String> {
        let n = self.neural();
        let mut out = Vec::new();
        let spec = n.options.windows;
        let mut say = |what: &str, model: &str, tokens: Option<usize>, w: &crate::index::encoded::Windows| {
            let long = w.long_docs();
            let most = (0..w.docs() as u32).map(|d| w.rows_of(crate::corpus::DocId(d)).len()).max().unwrap_or(0);
            let window = tokens.map(|t| format!(" ({})", spec.describe(t))).unwrap_or_default();
            out.push(if long == 0 {
                format!("{what} ({}): every document fits in one window{window}", short(model))
            } else {
                format!(
                    "{what} ({}): {long} of {} documents are longer than one window{window}; each is encoded in up to {most} overlapping windows and scores by its best (MaxP)",
                    short(model),
                    w.docs()
                )
            });
        };
        fn short(id: &str) -> &str {
            crate::retrieve::dense::short_model(id)
        }
        if let (Some(i), Some(d)) = (&n.dense_index, &n.dense) {
            say("dense", &i.model_id, TextEncoder::window_tokens(d.encoder.as_ref()), &i.windows);
        }
        if let (Some(i), Some(s)) = (&n.splade_index, &n.splade) {
            say("SPLADE", &i.model_id, crate::models::SparseEncoder::window_tokens(s.encoder.as_ref()), &i.windows);
        }
        if let (Some(i), Some(e)) = (&n.late_index, n.late_encoder()) {
            say("late interaction", &i.model_id, e.window_tokens(), &i.windows);
        }
        out
    }

    /// The passages' token vectors, when they were encoded by this encoder.
    pub(super) fn late_index_for(&self, n: &Neural, encoder: &dyn TokenEncoder) -> Option<Arc<TokenIndex>> {
        n.late_index.as_ref().filter(|i| i.model_id == encoder.model_id()).cloned()
    }

    /// Does this method take seconds to answer (the cross-encoder encodes passages while
    /// answering; late interaction over a large token index reads every token; a column whose
    /// passages are still being encoded answers provisionally, encoding BM25's top passages)? The
    /// app shows the other methods first.
    pub fn encodes_at_query_time(&self, kind: MethodKind) -> bool {
        if self.answers_provisionally(kind) {
            return true;
        }
        let n = self.neural();
        match kind {
            MethodKind::Rerank => n.reranker.is_some(),
            k if MethodKind::GENERATED.contains(&k) => n.generator.is_some(),
            MethodKind::LateInteraction => n.late_index.as_ref().is_some_and(|i| i.total_tokens() > SLOW_LATE_TOKENS),
            _ => false,
        }
    }

    /// A retriever of any ranked family, or why it cannot run.
    pub fn retriever(&self, kind: MethodKind, settings: &Settings) -> Result<Arc<dyn Retriever>> {
        match super::SparseSpec::from_settings(kind, settings) {
            Some(spec) => self.sparse(spec, settings.analyzer, &crate::progress::NoProgress),
            None => self.neural_retriever(kind, settings),
        }
    }
}
