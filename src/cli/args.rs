//! Flags shared by several commands, and their conversion into validated settings.

use std::path::PathBuf;

use anyhow::{Context, bail};
use clap::{Args, ValueEnum};

use crate::analysis::AnalyzerConfig;
use crate::config::Settings;
use crate::corpus::{self, Corpus, FieldFilter, LoadOptions, Split};
use crate::index::SparseIndex;
use crate::progress::Progress;
use crate::retrieve::{Bm25Variant, MethodKind, TfIdfVariant};
use crate::workbench::Workbench;

/// Where the documents come from.
#[derive(Debug, Args, Clone)]
pub struct CorpusArgs {
    /// A folder of .txt/.md files, a .jsonl/.csv/.tsv file, a BEIR folder (or a collection's name
    /// once `ranklens data fetch NAME` has fetched it), or a folder written by `ranklens index`.
    /// Defaults to the bundled Acme Sync sample.
    #[arg(long, value_name = "PATH|NAME")]
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
    /// lucene: score with exact document lengths in f64 instead of as Lucene does (one-byte
    /// length norms, float32).
    #[arg(long)]
    pub exact_lengths: bool,
    /// TF-IDF variant: cosine-log2 or textbook.
    #[arg(long, default_value = "cosine-log2")]
    pub tfidf: String,
    /// Textbook TF-IDF without dividing by |d|.
    #[arg(long)]
    pub no_length_norm: bool,
    /// Keep only documents whose field satisfies a condition, e.g. "release >= 4".
    #[arg(long)]
    pub filter: Option<String>,
    /// A query adapter (from `ranklens adapter train`) for the dense-adapter method.
    #[arg(long, value_name = "FILE")]
    pub adapter: Option<PathBuf>,
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

/// `--format`, declared once and flattened into every command that prints (ripgrep's way: a
/// flag's name, values, default and help live in one place).
#[derive(Debug, Clone, Copy, Args, PartialEq, Eq)]
pub struct FormatArg {
    /// Output format: table (aligned text), json or csv.
    #[arg(long = "format", value_enum, default_value = "table")]
    pub value: OutputFormat,
}

/// The question a command asks, declared once: a positional argument, `-` reading it from
/// standard input.
#[derive(Debug, Clone, Args, PartialEq, Eq)]
pub struct QuestionArg {
    /// The question (for search, a Boolean query too); `-` reads it from standard input.
    #[arg(value_name = "QUESTION", value_parser = text_or_stdin)]
    pub text: String,
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
        if self.exact_lengths && s.bm25_variant != Bm25Variant::Lucene {
            bail!(
                "--exact-lengths: only the lucene variant reads Lucene's one-byte lengths; the others are exact already"
            );
        }
        s.bm25.exact_lengths = self.exact_lengths;
        if s.bm25_variant == Bm25Variant::Tantivy && (self.k1.is_some() || self.b.is_some()) {
            bail!("--k1/--b: tantivy fixes k1 = 1.2 and b = 0.75; choose --variant lucene to change them");
        }
        s.tfidf = self.tfidf.parse::<TfIdfVariant>()?;
        s.tfidf_normalize = !self.no_length_norm;
        s.filter = self.filter.as_deref().map(str::parse::<FieldFilter>).transpose()?;
        s.adapter = self.adapter.clone();
        s.validate()?;
        Ok(s)
    }
}

/// How a language model reorders a first stage (the listwise and pointwise methods).
#[derive(Debug, Args, Clone)]
pub struct ModelRerankArgs {
    /// The column a language model reorders (listwise, pointwise): bm25, dense, splade, late,
    /// fusion, tfidf, rerank.
    #[arg(long, value_enum, default_value = "bm25")]
    pub first_stage: MethodArg,
    /// How many of the first stage's passages the language model reorders (listwise default 20,
    /// one window; RankGPT reorders 100, nine windows; pointwise default 20).
    #[arg(long, value_name = "N")]
    pub depth: Option<usize>,
    /// Passages a listwise window holds.
    #[arg(long, value_name = "N", default_value_t = 20)]
    pub list_window: usize,
    /// How far each listwise window moves up the list.
    #[arg(long, value_name = "N", default_value_t = 10)]
    pub list_step: usize,
    /// Give the listwise model the list as ranked, reversed and shuffled, and aggregate the three
    /// orders (Borda count); the explanation shows Kendall τ between them.
    #[arg(long)]
    pub three_orders: bool,
}

impl ModelRerankArgs {
    /// These flags on `settings` (checked).
    pub fn apply(&self, settings: &mut Settings) -> anyhow::Result<()> {
        let m = &mut settings.model_rerank;
        m.first_stage = self.first_stage.kind();
        if let Some(d) = self.depth {
            (m.depth, m.pointwise_depth) = (d, d);
        }
        (m.window, m.step, m.three_orders) = (self.list_window, self.list_step, self.three_orders);
        settings.validate()?;
        Ok(())
    }
}

impl CorpusArgs {
    /// The corpus path: as given, or the bundled Acme Sync sample.
    pub fn path(&self) -> anyhow::Result<PathBuf> {
        Ok(match &self.corpus {
            // A collection's name finds its fetched folder; a path that does not exist is left for
            // the loader to name.
            Some(p)
                if !p.exists()
                    && p.to_str().is_some_and(|n| {
                        crate::datasets::collection(n).is_some() || crate::datasets::qa_set(n).is_some()
                    }) =>
            {
                dataset(&p.to_string_lossy()).map_err(anyhow::Error::msg)?
            }
            Some(p) => p.clone(),
            None => crate::sample::acme_sync()?,
        })
    }

    /// How folders of text files are cut.
    pub fn split(&self) -> Split {
        match self.split {
            SplitArg::File => Split::File,
            SplitArg::Paragraph => Split::Paragraph,
        }
    }

    /// Load the corpus (or reopen an index) and report load warnings on stderr.
    pub fn workbench(&self, progress: &dyn Progress) -> anyhow::Result<Workbench> {
        let path = self.path()?;
        if path.join("ranklens-index.json").is_file() {
            let (index, corpus) =
                SparseIndex::open(&path, progress).with_context(|| format!("opening index {}", path.display()))?;
            return Ok(Workbench::from_index(index, corpus));
        }
        let corpus = corpus::load_documents(&path, LoadOptions { split: self.split(), format: None })?;
        report_load(&corpus);
        let mut engine = Workbench::new(corpus).with_workspace(crate::workspace_dir());
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

/// Which method a command runs.
#[derive(Debug, Clone, Copy, clap::ValueEnum, PartialEq, Eq)]
pub enum MethodArg {
    /// Boolean set retrieval (AND, OR, NOT, parentheses, "phrases").
    Boolean,
    /// TF-IDF (see --tfidf).
    Tfidf,
    /// BM25 (see --variant, --k1, --b).
    Bm25,
    /// Dense bi-encoder (cosine).
    Dense,
    /// Learned sparse (SPLADE).
    Splade,
    /// Late interaction (MaxSim).
    Late,
    /// Fusion of BM25 and dense (see --fusion, --rrf-k).
    Fusion,
    /// Cross-encoder rerank of the fused top results.
    Rerank,
    /// BM25 over a language model's rewrite of the question, fused with BM25 over the question.
    Rewrite,
    /// HyDE: the dense model over a language model's hypothetical answer.
    Hyde,
    /// HyDE as text expansion: BM25 over the question and the model's hypothetical answer.
    #[value(name = "hyde-bm25")]
    HydeBm25,
    /// A language model orders the first stage's top passages in sliding windows (RankGPT); see
    /// --first-stage, --depth, --list-window, --list-step, --three-orders.
    Listwise,
    /// A language model's P(yes) for each of the first stage's top passages (see --first-stage,
    /// --depth).
    Pointwise,
    /// BM25 over the question and the model's account of what answering it needs.
    #[value(name = "reason-bm25")]
    ReasonBm25,
    /// The dense model over the question and the model's reasoning.
    #[value(name = "reason-dense")]
    ReasonDense,
    /// The dense model with a query adapter on its questions (see --adapter).
    #[value(name = "dense-adapter")]
    DenseAdapter,
    /// The passages a language model read while searching with RankLens's tools, in the order its
    /// answer used them (`ranklens agent` shows its trace).
    Agent,
    /// GraphRAG's local search: the passages of the entities the question names in the graph the
    /// language model extracted (`ranklens graphrag build` first), and of their neighbours.
    #[value(name = "graphrag-local")]
    GraphragLocal,
    /// Every ranked method available (eval only).
    All,
}

impl MethodArg {
    /// The method family.
    pub fn kind(self) -> MethodKind {
        match self {
            MethodArg::Boolean => MethodKind::Boolean,
            MethodArg::Tfidf => MethodKind::TfIdf,
            MethodArg::Bm25 => MethodKind::Bm25,
            MethodArg::Dense => MethodKind::Dense,
            MethodArg::Splade => MethodKind::Splade,
            MethodArg::Late => MethodKind::LateInteraction,
            MethodArg::Fusion => MethodKind::Fusion,
            MethodArg::Rerank | MethodArg::All => MethodKind::Rerank,
            MethodArg::Rewrite => MethodKind::Rewrite,
            MethodArg::Hyde => MethodKind::Hyde,
            MethodArg::HydeBm25 => MethodKind::HydeText,
            MethodArg::Listwise => MethodKind::Listwise,
            MethodArg::Pointwise => MethodKind::Pointwise,
            MethodArg::ReasonBm25 => MethodKind::ReasonBm25,
            MethodArg::ReasonDense => MethodKind::ReasonDense,
            MethodArg::DenseAdapter => MethodKind::DenseAdapter,
            MethodArg::Agent => MethodKind::Agent,
            MethodArg::GraphragLocal => MethodKind::GraphLocal,
        }
    }
}

/// Other systems, shown beside RankLens's methods: run files, saved search-engine responses,
/// live engines, vectors computed elsewhere.
#[derive(Debug, Args, Clone, Default)]
pub struct RunArgs {
    /// Another system's file to put beside the methods, as PATH or NAME=PATH (repeatable): a run
    /// (TREC six columns, CSV/TSV with a header, MS MARCO TSV, JSON Lines or a JSON {qid: {docid:
    /// score}} object, plain or gzipped), a saved Elasticsearch / OpenSearch / Solr / Vespa
    /// response (one question, or JSON Lines of {"query_id", "response"}), or passage vectors
    /// (.npy, .jsonl, .safetensors). Told apart by contents; the name is the file name unless given.
    #[arg(long = "run", value_name = "[NAME=]PATH")]
    pub run: Vec<String>,
    /// A live search engine described in a JSON file (repeatable): {"name", "kind":
    /// "elasticsearch" | "opensearch" | "solr", "url", "index", "template" with {{question}} and
    /// {{k}}, "id_field", "credentials": {"api_key_env": VAR} or {"basic_auth_env": VAR}}.
    #[arg(long = "engine", value_name = "ENGINE.json")]
    pub engine: Vec<PathBuf>,
    /// Passage vectors computed elsewhere, as a dense column (.npy with a .ids.txt beside it or in
    /// corpus order, .jsonl of {"id", "vector"}, .safetensors).
    #[arg(long, value_name = "[NAME=]PATH")]
    pub vectors: Option<String>,
    /// The question set's vectors for --vectors, by query id (same formats).
    #[arg(long, value_name = "PATH", requires = "vectors")]
    pub query_vectors: Option<PathBuf>,
    /// A local sentence-transformers model folder that encodes typed questions for --vectors.
    #[arg(long, value_name = "DIR", requires = "vectors")]
    pub query_model: Option<PathBuf>,
}

impl RunArgs {
    /// Nothing given?
    pub fn is_empty(&self) -> bool {
        self.run.is_empty() && self.engine.is_empty() && self.vectors.is_none()
    }

    /// Read every system (vectors are matched to `corpus`), reporting each file's problems on
    /// stderr; two systems with one name are told apart by a number.
    pub fn load(&self, corpus: Option<&crate::corpus::Corpus>) -> anyhow::Result<Vec<crate::compare::External>> {
        use crate::compare::External;
        let mut out: Vec<External> = Vec::new();
        for arg in &self.run {
            let (name, path) = split_run_arg(arg);
            out.push(External::open(&path, name.as_deref(), corpus)?);
        }
        for path in &self.engine {
            out.push(External::live(crate::external::LiveEngine::load(path)?)?);
        }
        if let Some(arg) = &self.vectors {
            let (name, path) = split_run_arg(arg);
            let Some(corpus) = corpus else {
                anyhow::bail!("--vectors needs a corpus to match the vectors to (--corpus or --dataset)");
            };
            let mut set =
                crate::external::VectorSet::open(&path, self.query_vectors.as_deref(), corpus, name.as_deref())?;
            set.query_model = self.query_model.clone();
            out.push(External::Vectors(std::sync::Arc::new(set)));
        }
        crate::compare::distinct_names(&mut out);
        for system in &out {
            for w in system.warnings() {
                eprintln!("warning: {w}");
            }
            let detail = match system {
                External::Run(run) => format!(
                    "{} entries for {} queries ({}{})",
                    run.entries,
                    run.num_queries(),
                    run.format.name(),
                    if run.ranks_only { ", ranks only: score = 1/rank" } else { "" }
                ),
                other => other.caption(),
            };
            eprintln!("{} {}: {detail}", system.kind().label().to_lowercase(), system.name());
        }
        Ok(out)
    }
}

/// `NAME=PATH` or `PATH` (a path that exists as written is a path, even with `=` in it).
pub fn split_run_arg(arg: &str) -> (Option<String>, PathBuf) {
    if !std::path::Path::new(arg).exists()
        && let Some((name, path)) = arg.split_once('=')
        && !name.is_empty()
        && !name.contains(['/', '\\'])
    {
        return (Some(name.to_string()), PathBuf::from(path));
    }
    (None, PathBuf::from(arg))
}

/// The longest text read from standard input for a question, statement or pattern.
const MAX_STDIN_TEXT: u64 = 16 << 20;

/// A text argument, where `-` means "read it from standard input" (for a question longer than a
/// command line may be: Linux refuses a single argument over 128 KiB).
pub fn text_or_stdin(s: &str) -> Result<String, String> {
    if s != "-" {
        return Ok(s.to_string());
    }
    let bytes = crate::fsutil::read_at_most(std::io::stdin(), MAX_STDIN_TEXT)
        .map_err(|e| format!("cannot read standard input: {e}"))?
        .ok_or_else(|| format!("standard input holds more than {MAX_STDIN_TEXT} bytes; the limit for one text"))?;
    let text = String::from_utf8(bytes).map_err(|e| format!("standard input is not UTF-8 text: {e}"))?;
    Ok(text.trim_end_matches(['\n', '\r']).to_string())
}

/// A `--dataset` or `--corpus` value: a path, or the name of a fetched collection.
pub fn dataset(s: &str) -> Result<std::path::PathBuf, String> {
    crate::datasets::resolve(s, &crate::datasets::data_dir(&crate::workspace_dir()))
}
