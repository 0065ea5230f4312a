//! Flags shared by several commands, and their conversion into validated settings.

use std::path::{Path, PathBuf};

use anyhow::{Context, bail};
use clap::{Args, ValueEnum};

use crate::analysis::AnalyzerConfig;
use crate::config::Settings;
use crate::corpus::{self, Corpus, FieldFilter, LoadOptions, Split};
use crate::engine::Engine;
use crate::index::SparseIndex;
use crate::progress::Progress;
use crate::retrieve::{Bm25Variant, TfIdfVariant};

/// Where the documents come from.
#[derive(Debug, Args, Clone)]
pub struct CorpusArgs {
    /// A folder of .txt/.md files, a .jsonl/.csv/.tsv file, a BEIR folder, or a folder written by
    /// `ranklens index`. Defaults to the bundled Acme Sync sample.
    #[arg(long, value_name = "PATH")]
    pub corpus: Option<PathBuf>,
    /// For folders of text files: one document per file or per paragraph.
    #[arg(long, value_enum, default_value = "file")]
    pub split: SplitArg,
}

/// `--split` values.
#[derive(Debug, Clone, Copy, ValueEnum)]
pub enum SplitArg {
    /// One document per file.
    File,
    /// One passage per blank-line paragraph.
    Paragraph,
}

/// Ranking knobs shared by search, compare and eval.
#[derive(Debug, Args, Clone)]
pub struct RankArgs {
    /// Analyzer: whitespace, standard, english (add +stop / -nostop to change stop-word removal).
    #[arg(long, default_value = "english")]
    pub analyzer: String,
    /// BM25 variant: lucene, tantivy, okapi, robertson, atire, bm25l, bm25+, textbook.
    #[arg(long, default_value = "lucene")]
    pub variant: String,
    /// BM25 k1 (default: the variant's reference value).
    #[arg(long)]
    pub k1: Option<f64>,
    /// BM25 b (default: the variant's reference value).
    #[arg(long)]
    pub b: Option<f64>,
    /// BM25L / BM25+ δ.
    #[arg(long)]
    pub delta: Option<f64>,
    /// TF-IDF variant: cosine-log2 or textbook.
    #[arg(long, default_value = "cosine-log2")]
    pub tfidf: String,
    /// Textbook TF-IDF without dividing by |d|.
    #[arg(long)]
    pub no_length_norm: bool,
    /// Keep only documents whose field satisfies a condition, e.g. "release >= 4".
    #[arg(long)]
    pub filter: Option<String>,
}

/// Output format.
#[derive(Debug, Clone, Copy, ValueEnum, PartialEq, Eq)]
pub enum OutputFormat {
    /// Aligned text.
    Table,
    /// JSON.
    Json,
    /// CSV.
    Csv,
}

impl RankArgs {
    /// Turn flags into validated settings.
    pub fn settings(&self, k: usize) -> anyhow::Result<Settings> {
        let mut s = Settings { k, ..Settings::default() };
        s.analyzer = self.analyzer.parse::<AnalyzerConfig>()?;
        s.set_bm25_variant(self.variant.parse::<Bm25Variant>()?);
        if let Some(k1) = self.k1 {
            s.bm25.k1 = k1;
        }
        if let Some(b) = self.b {
            s.bm25.b = b;
        }
        if let Some(d) = self.delta {
            s.bm25.delta = d;
        }
        if s.bm25_variant == Bm25Variant::Tantivy && (self.k1.is_some() || self.b.is_some()) {
            bail!("--k1/--b: tantivy fixes k1 = 1.2 and b = 0.75; choose --variant lucene to change them");
        }
        s.tfidf = self.tfidf.parse::<TfIdfVariant>()?;
        s.tfidf_normalize = !self.no_length_norm;
        s.filter = self.filter.as_deref().map(str::parse::<FieldFilter>).transpose()?;
        s.validate()?;
        Ok(s)
    }
}

/// The bundled Acme Sync sample: `./sample-corpus/acme-sync` when run from the repository,
/// else the copy next to the sources this binary was built from.
pub fn sample_corpus_dir() -> PathBuf {
    let local = Path::new("sample-corpus").join("acme-sync");
    if local.is_dir() {
        return local;
    }
    Path::new(env!("CARGO_MANIFEST_DIR")).join("sample-corpus").join("acme-sync")
}

impl CorpusArgs {
    /// Load the corpus (or reopen an index) and report load warnings on stderr.
    pub fn engine(&self, progress: &dyn Progress) -> anyhow::Result<Engine> {
        let path = self.corpus.clone().unwrap_or_else(sample_corpus_dir);
        if path.join("ranklens-index.json").is_file() {
            let (index, corpus) =
                SparseIndex::open(&path, progress).with_context(|| format!("opening index {}", path.display()))?;
            return Ok(Engine::from_index(index, corpus));
        }
        let split = match self.split {
            SplitArg::File => Split::File,
            SplitArg::Paragraph => Split::Paragraph,
        };
        let corpus = corpus::load(&path, LoadOptions { split, format: None })?;
        report_load(&corpus);
        if corpus.is_empty() {
            bail!("{}: no documents could be loaded", path.display());
        }
        let mut engine = Engine::new(corpus).with_workspace(crate::workspace_dir());
        if path.is_dir() {
            for w in &engine.load_structured(&path)?.warnings {
                eprintln!("warning: {w}");
            }
        }
        Ok(engine)
    }
}

/// Print load warnings (at most 20, then a count) to stderr.
pub fn report_load(corpus: &Corpus) {
    for w in corpus.report.warnings.iter().take(20) {
        eprintln!("warning: {w}");
    }
    if corpus.report.warnings.len() > 20 {
        eprintln!("warning: … and {} more", corpus.report.warnings.len() - 20);
    }
    if !corpus.report.warnings.is_empty() {
        eprintln!("loaded: {}", corpus.report);
    }
}
