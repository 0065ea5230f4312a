//! The workbench itself: one corpus with its lexical indexes and structured sources, and the
//! retrievers built on them.
//!
//! Indexes are built on first use per analyzer and kept; small corpora index in RAM, large ones
//! into the workspace folder, where a later run finds and reopens them instead of re-indexing.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex, RwLock};

use crate::analysis::AnalyzerConfig;
use crate::config::Settings;
use crate::corpus::{Corpus, LoadWarning};
use crate::eval::Run;
use crate::index::{IndexLocation, SparseIndex};
use crate::progress::{Progress, check_cancel};
use crate::retrieve::{
    Bm25Variant, BooleanRetriever, LexicalModel, LexicalRetriever, QueryContext, Retriever, TantivyBm25,
};
use crate::structured::{KnowledgeGraph, SqlDatabase};
use crate::{Error, Result};

use super::SparseSpec;
use super::encoding_state;
use super::loaded::Neural;
/// Corpora larger than this (bytes of text) are indexed on disk in the workspace.
pub const ON_DISK_THRESHOLD_BYTES: usize = 64 * 1024 * 1024;

/// One corpus and the indexes and retrievers built on it.
pub struct Workbench {
    pub(super) corpus: Arc<Corpus>,
    pub(super) indexes: Mutex<BTreeMap<AnalyzerConfig, Arc<SparseIndex>>>,
    pub(super) workspace: Option<PathBuf>,
    /// Corpora with more bytes of text than this are indexed on disk in the workspace.
    pub(super) on_disk_above: usize,
    pub(super) structured: Structured,
    pub(super) neural: RwLock<Neural>,
    /// Counts the changes of `neural`.
    pub(super) neural_revision: std::sync::atomic::AtomicU64,
    /// Models that encode typed questions for vectors from files, by folder.
    pub(super) query_models: Mutex<BTreeMap<PathBuf, Arc<dyn crate::models::TextEncoder>>>,
    /// Held while passages are encoded: one encoding at a time (see `Workbench::encoding_turn`).
    pub(super) encoding: Mutex<()>,
    /// Provisional columns while the corpus is encoded (`workbench/while_encoding.rs`).
    pub(super) provisional: Arc<encoding_state::ProvisionalState>,
    /// The workspace's store of language-model replies, opened at the first use.
    pub(super) replies: std::sync::OnceLock<Option<Arc<crate::generate::ReplyStore>>>,
}

/// The structured sources that came with a corpus folder.
#[derive(Debug, Clone, Default)]
pub struct Structured {
    /// Tables built from the folder's CSV files.
    pub sql: Option<SqlDatabase>,
    /// The knowledge graph from `graph.txt`.
    pub graph: Option<KnowledgeGraph>,
    /// Problems found while loading them.
    pub warnings: Vec<LoadWarning>,
}

impl Workbench {
    /// An engine over a corpus; indexes go to RAM unless a workspace is set and the corpus is large.
    pub fn new(corpus: Corpus) -> Self {
        Self {
            corpus: Arc::new(corpus),
            indexes: Mutex::new(BTreeMap::new()),
            workspace: None,
            on_disk_above: ON_DISK_THRESHOLD_BYTES,
            structured: Structured::default(),
            neural: RwLock::new(Neural::default()),
            neural_revision: Default::default(),
            query_models: Mutex::new(BTreeMap::new()),
            encoding: Mutex::new(()),
            provisional: Arc::default(),
            replies: std::sync::OnceLock::new(),
        }
    }

    /// An engine over an index opened from disk (with the corpus stored in it).
    pub fn from_index(index: SparseIndex, corpus: Corpus) -> Self {
        let engine = Self::new(corpus);
        let config = index.analyzer().config();
        if let Ok(mut m) = engine.indexes.lock() {
            m.insert(config, Arc::new(index));
        }
        engine
    }

    /// Keep large indexes (and later caches) under this folder.
    pub fn with_workspace(mut self, dir: PathBuf) -> Self {
        self.workspace = Some(dir);
        self
    }

    /// Index corpora with more than `bytes` of text on disk in the workspace (default
    /// [`ON_DISK_THRESHOLD_BYTES`]), where a later run reopens them.
    pub fn with_on_disk_above(mut self, bytes: usize) -> Self {
        self.on_disk_above = bytes;
        self
    }

    /// Load the structured sources next to a corpus: every `*.csv` becomes a table of a SQLite
    /// database built in the workspace (or a temporary folder), and `graph.txt` the knowledge
    /// graph. Bad lines become warnings; an unreadable file is an error naming it.
    pub fn load_structured(&mut self, corpus_dir: &Path) -> Result<&Structured> {
        let mut s = Structured::default();
        let mut csvs: Vec<PathBuf> = std::fs::read_dir(corpus_dir)
            .map_err(|e| Error::io(corpus_dir, e))?
            .filter_map(|e| e.ok().map(|e| e.path()))
            .filter(|p| p.extension().is_some_and(|e| e.eq_ignore_ascii_case("csv")))
            .collect();
        csvs.sort();
        if !csvs.is_empty() {
            let base = self.workspace.clone().unwrap_or_else(|| std::env::temp_dir().join("ranklens"));
            let fp = self.corpus.fingerprint();
            let path = base.join("sql").join(format!("{}-{}.sqlite", self.corpus.name, &fp[..16]));
            let (db, warnings) = SqlDatabase::create(&path, &csvs)?;
            s.sql = Some(db);
            s.warnings.extend(warnings);
        }
        let graph = corpus_dir.join("graph.txt");
        if graph.is_file() {
            let (g, warnings) = KnowledgeGraph::load(&graph)?;
            s.graph = Some(g);
            s.warnings.extend(warnings);
        }
        self.structured = s;
        Ok(&self.structured)
    }

    /// The structured sources (empty when the corpus has none).
    pub fn structured(&self) -> &Structured {
        &self.structured
    }

    /// The workspace folder, if any.
    pub fn workspace(&self) -> Option<&PathBuf> {
        self.workspace.as_ref()
    }

    /// The corpus.
    pub fn corpus(&self) -> &Arc<Corpus> {
        &self.corpus
    }

    /// The index for an analyzer, building it on first use.
    pub fn index(&self, analyzer: AnalyzerConfig, progress: &dyn Progress) -> Result<Arc<SparseIndex>> {
        if let Some(idx) = self.built_index(analyzer) {
            return Ok(idx);
        }
        let location = self.location_for(analyzer);
        let built = match &location {
            IndexLocation::Dir(dir) if SparseIndex::is_stored(dir) => {
                let (idx, stored) = SparseIndex::open(dir, progress)?;
                if stored.fingerprint() != self.corpus.fingerprint() || idx.analyzer().config() != analyzer {
                    return Err(Error::invalid(dir.display().to_string(), "a different index is stored here"));
                }
                idx
            }
            IndexLocation::Dir(dir) => {
                // The workspace's own folder without a whole index in it: what an older RankLens
                // left when it was killed while indexing. It is rebuilt.
                if dir.exists() {
                    std::fs::remove_dir_all(dir).map_err(|e| Error::io(dir, e))?;
                }
                SparseIndex::build(&self.corpus, analyzer, &location, progress)?
            }
            IndexLocation::Ram => SparseIndex::build(&self.corpus, analyzer, &location, progress)?,
        };
        let idx = Arc::new(built);
        if let Ok(mut m) = self.indexes.lock() {
            m.insert(analyzer, idx.clone());
        }
        Ok(idx)
    }

    /// Is an index for this analyzer already built?
    pub fn has_index(&self, analyzer: AnalyzerConfig) -> bool {
        self.built_index(analyzer).is_some()
    }

    /// The index for an analyzer if it is built (never builds it: safe on a UI thread).
    pub fn built_index(&self, analyzer: AnalyzerConfig) -> Option<Arc<SparseIndex>> {
        self.indexes.lock().ok().and_then(|m| m.get(&analyzer).cloned())
    }

    fn location_for(&self, analyzer: AnalyzerConfig) -> IndexLocation {
        let bytes: usize = self.corpus.docs().iter().map(|d| d.text.len() + d.title.len()).sum();
        match &self.workspace {
            Some(ws) if bytes > self.on_disk_above => {
                let fp = self.corpus.fingerprint();
                let format = crate::index::INDEX_FORMAT;
                IndexLocation::Dir(ws.join("indexes").join(format!("{}-{analyzer}-f{format}", &fp[..16])))
            }
            _ => IndexLocation::Ram,
        }
    }

    /// A lexical retriever.
    pub fn sparse(
        &self,
        spec: SparseSpec,
        analyzer: AnalyzerConfig,
        progress: &dyn Progress,
    ) -> Result<Arc<dyn Retriever>> {
        let index = self.index(analyzer, progress)?;
        Ok(match spec {
            SparseSpec::Boolean => Arc::new(BooleanRetriever::new(index)),
            SparseSpec::Scored(LexicalModel::Bm25 { variant: Bm25Variant::Tantivy, .. }) => {
                Arc::new(TantivyBm25::new(index))
            }
            SparseSpec::Scored(model) => Arc::new(LexicalRetriever::new(index, model)?),
        })
    }

    /// The question with the settings' filter applied.
    pub fn query_context(&self, text: &str, settings: &Settings) -> QueryContext {
        let q = QueryContext::new(text);
        match &settings.filter {
            Some(f) => {
                let allowed = self.corpus.docs().iter().map(|d| f.matches(d)).collect();
                q.with_filter(allowed, f.to_string())
            }
            None => q,
        }
    }

    /// Run a retriever over every query shipped with the corpus, `depth` results each, as a run
    /// keyed by external ids (what trec_eval reads).
    pub fn run_queries(
        &self,
        retriever: &dyn Retriever,
        settings: &Settings,
        depth: usize,
        progress: &dyn Progress,
    ) -> Result<Run> {
        let mut run = Run::new(retriever.label());
        progress.stage(&format!("running {}", retriever.label()), self.corpus.queries.len() as u64);
        for q in &self.corpus.queries {
            let ranking = retriever.search(&self.query_context(&q.text, settings), depth)?;
            let ranked = ranking.hits.iter().map(|h| (self.corpus.external_id(h.doc).to_string(), h.score)).collect();
            run.insert(q.id.clone(), ranked);
            progress.advance(1);
            check_cancel(progress)?;
        }
        Ok(run)
    }
}
