//! Which models are loaded, the indexes built with them, and why a role has none. A role without
//! a model is not an error: its column says what is missing and how to get it, and every other
//! method keeps working.

use std::collections::BTreeMap;
use std::sync::Arc;

use crate::Result;
use crate::generate::Generator;
use crate::index::NeuralOptions;
use crate::index::encoded::{DenseIndex, SpladeIndex};
use crate::index::hnsw::DenseAnn;
use crate::index::tokens::TokenIndex;
use crate::models::{
    BertCrossEncoder, BertDenseEncoder, BertSpladeEncoder, ColbertEncoder, ModelManager, ResolvedModel, Role,
    TextEncoder, TokenEncoder,
};
use crate::progress::Progress;
use crate::project::PcaMap;

/// A loaded model with where it came from.
pub struct Loaded<T: ?Sized> {
    /// The encoder.
    pub encoder: Arc<T>,
    /// Its files.
    pub model: ResolvedModel,
}

// Cloning shares the encoder; a derive would wrongly require `T: Clone`.
impl<T: ?Sized> Clone for Loaded<T> {
    fn clone(&self) -> Self {
        Self { encoder: self.encoder.clone(), model: self.model.clone() }
    }
}

/// Models, indexes and messages for the neural methods.
#[derive(Default, Clone)]
pub struct Neural {
    /// Dense bi-encoder.
    pub dense: Option<Loaded<BertDenseEncoder>>,
    /// SPLADE encoder.
    pub splade: Option<Loaded<BertSpladeEncoder>>,
    /// Trained late-interaction encoder.
    pub late: Option<Loaded<ColbertEncoder>>,
    /// Cross-encoder.
    pub reranker: Option<Loaded<BertCrossEncoder>>,
    /// The trained extractive reader.
    pub reader: Option<Loaded<crate::models::QaModel>>,
    /// The language model (embedded, or a chat server), with the files of an embedded one.
    pub generator: Option<(Arc<dyn Generator>, Option<ResolvedModel>)>,
    /// Why a role has no model, and how to get one.
    pub missing: BTreeMap<Role, String>,
    /// Passage vectors.
    pub dense_index: Option<Arc<DenseIndex>>,
    /// Passage token vectors, compressed.
    pub late_index: Option<Arc<TokenIndex>>,
    /// Passage SPLADE vectors.
    pub splade_index: Option<Arc<SpladeIndex>>,
    /// The approximate index over the passage vectors (large corpora only).
    pub dense_ann: Option<Arc<DenseAnn>>,
    /// The 2-D map of the passage vectors.
    pub map: Option<Arc<PcaMap>>,
    /// The graph a language model extracted from the corpus (GraphRAG).
    pub model_graph: Option<Arc<crate::graphrag::ModelGraph>>,
    /// How documents are cut into windows and token vectors stored.
    pub options: NeuralOptions,
    /// What `--precision auto` timed and chose for each role's model on this CPU.
    pub precision_choices: BTreeMap<Role, crate::models::auto_precision::Calibration>,
}

impl Neural {
    /// Resolve and load the model of one role (downloading only when allowed). On failure the
    /// reason is kept in `missing` and returned.
    pub fn load_role(
        &mut self,
        manager: &ModelManager,
        role: Role,
        allow_download: bool,
        progress: &dyn Progress,
    ) -> Result<()> {
        let result = (|| -> Result<()> {
            if role == Role::Generator {
                let (llm, m) = crate::generate::load_embedded(manager, allow_download, progress)?;
                self.generator = Some((Arc::new(llm), Some(m)));
                return Ok(());
            }
            let m = manager.resolve(role, allow_download, progress)?;
            let (mut id, dir, mut arch) = (m.spec.id.clone(), m.dir.clone(), m.spec.arch.clone());
            if let Some(n) = manager.max_length()
                && n != arch.max_length
            {
                arch.max_length = n;
                id = format!("{id}@{n}");
            }
            // The precision that runs here, in the id (and so in every cache key and label). The
            // reader's default is f32: `auto` times encoders on the sample's passages, not a reader.
            arch.precision = match manager.precision() {
                crate::models::Precision::Auto if role == Role::Reader => crate::models::Precision::F32,
                crate::models::Precision::Auto => {
                    let c = crate::models::auto_precision::resolve(
                        manager.cache_dir(),
                        &id,
                        &dir,
                        arch.max_length,
                        progress,
                    )?;
                    let choice = c.choice;
                    self.precision_choices.insert(role, c);
                    choice
                }
                p => {
                    self.precision_choices.remove(&role);
                    p.effective()
                }
            };
            id.push_str(arch.precision.id_suffix());
            match role {
                Role::Dense => {
                    self.dense = Some(Loaded { encoder: Arc::new(BertDenseEncoder::load(&id, &dir, &arch)?), model: m })
                }
                Role::Splade => {
                    self.splade =
                        Some(Loaded { encoder: Arc::new(BertSpladeEncoder::load(&id, &dir, &arch)?), model: m })
                }
                Role::LateInteraction => {
                    self.late = Some(Loaded { encoder: Arc::new(ColbertEncoder::load(&id, &dir, &arch)?), model: m })
                }
                Role::Reranker => {
                    self.reranker =
                        Some(Loaded { encoder: Arc::new(BertCrossEncoder::load(&id, &dir, &arch)?), model: m })
                }
                Role::Reader => {
                    let settings = arch.reader.unwrap_or_default();
                    let model = crate::models::QaModel::load(&id, &dir, arch.max_length, settings, arch.precision)?;
                    self.reader = Some(Loaded { encoder: Arc::new(model), model: m })
                }
                Role::Generator => {}
            }
            Ok(())
        })();
        match result {
            Ok(()) => {
                self.missing.remove(&role);
                Ok(())
            }
            Err(e) => {
                self.missing.insert(role, e.report());
                Err(e)
            }
        }
    }

    /// Whether late interaction runs on a trained model or on the dense model's token vectors.
    pub fn late_encoder(&self) -> Option<Arc<dyn TokenEncoder>> {
        if let Some(l) = &self.late {
            return Some(l.encoder.clone());
        }
        self.dense.as_ref().map(|d| d.encoder.clone() as Arc<dyn TokenEncoder>)
    }

    /// Model ids and file hashes of everything loaded, for reports. The id is the encoder's: the
    /// model, and any token limit or precision it ran with (`all-MiniLM-L6-v2@bf16`).
    pub fn fingerprints(&self) -> BTreeMap<String, BTreeMap<String, String>> {
        let mut out = BTreeMap::new();
        let models = [
            self.dense.as_ref().map(|l| (TextEncoder::model_id(l.encoder.as_ref()), &l.model)),
            self.splade.as_ref().map(|l| (crate::models::SparseEncoder::model_id(l.encoder.as_ref()), &l.model)),
            self.late.as_ref().map(|l| (TokenEncoder::model_id(l.encoder.as_ref()), &l.model)),
            self.reranker.as_ref().map(|l| (crate::models::PairScorer::model_id(l.encoder.as_ref()), &l.model)),
            self.reader.as_ref().map(|l| (l.encoder.id(), &l.model)),
        ];
        for (id, m) in models.into_iter().flatten() {
            out.insert(id.to_string(), m.hashes.clone());
        }
        if let Some((g, Some(m))) = &self.generator {
            out.insert(g.info().label(), m.hashes.clone());
        }
        out
    }
}

/// What a neural column says while its passages are being encoded.
pub const NOT_ENCODED: &str = "the passages are not encoded yet";

/// The message for a role with no model.
pub fn missing(missing: &BTreeMap<Role, String>, role: Role) -> String {
    missing.get(&role).cloned().unwrap_or_else(|| {
        format!("no {role} model loaded: run `ranklens models fetch --role {role}` or use the Fetch button")
    })
}
