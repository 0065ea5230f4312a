//! Flags shared by several commands, and their conversion into validated settings.

use std::path::{Path, PathBuf};

use anyhow::{Context, bail};
use clap::{Args, ValueEnum};

use crate::analysis::AnalyzerConfig;
use crate::config::Settings;
use crate::corpus::{self, Corpus, FieldFilter, LoadOptions, Split};
use crate::index::SparseIndex;
use crate::models::{ModelManager, Precision, Role};
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
            Some(p) if !p.exists() && p.to_str().is_some_and(|n| crate::datasets::collection(n).is_some()) => {
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
    pub fn engine(&self, progress: &dyn Progress) -> anyhow::Result<Workbench> {
        let path = self.path()?;
        if path.join("ranklens-index.json").is_file() {
            let (index, corpus) =
                SparseIndex::open(&path, progress).with_context(|| format!("opening index {}", path.display()))?;
            return Ok(Workbench::from_index(index, corpus));
        }
        let corpus = corpus::load(&path, LoadOptions { split: self.split(), format: None })?;
        report_load(&corpus);
        if corpus.is_empty() {
            bail!("{}: no documents could be loaded", path.display());
        }
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

/// Model flags shared by commands that can run neural methods.
#[derive(Debug, Args, Clone)]
pub struct ModelArgs {
    /// Never touch the network (no model downloads).
    #[arg(long)]
    pub offline: bool,
    /// Download missing models for the methods shown (compare only; search and eval download the
    /// models of the method asked for).
    #[arg(long)]
    pub fetch_models: bool,
    /// A folder holding the dense model's files.
    #[arg(long, value_name = "DIR")]
    dense_model: Option<PathBuf>,
    /// A folder holding the SPLADE model's files.
    #[arg(long, value_name = "DIR")]
    splade_model: Option<PathBuf>,
    /// A folder holding the late-interaction (ColBERT) model's files.
    #[arg(long, value_name = "DIR")]
    late_model: Option<PathBuf>,
    /// A folder holding the cross-encoder's files.
    #[arg(long, value_name = "DIR")]
    rerank_model: Option<PathBuf>,
    /// Override the models' token limit (MiniLM truncates at 256 by default).
    #[arg(long, value_name = "N")]
    max_tokens: Option<usize>,
    /// Word pieces per window for documents longer than a model reads at once (default: the
    /// model's maximum length). Each window is encoded; a document scores by its best (MaxP).
    #[arg(long, value_name = "N")]
    window: Option<usize>,
    /// Word pieces from one window's start to the next (default: three quarters of the window).
    #[arg(long, value_name = "N")]
    window_stride: Option<usize>,
    /// Encode only the beginning of each long document, as far as the model reads, instead of
    /// windows (what sentence-transformers and MTEB's figures do).
    #[arg(long)]
    truncate: bool,
    /// Bits per dimension of the late-interaction token index: 1, 2, 4, 8, or 16 for f16
    /// (uncompressed). Default 2.
    #[arg(long, value_name = "BITS")]
    token_bits: Option<u8>,
    /// The arithmetic of the encoders' linear layers: f32 (exact to the reference), bf16 (bf16
    /// products summed in f32, where the CPU has AVX512-BF16; f32 elsewhere), int16 (16-bit
    /// integer products summed in i32, where the CPU has AVX2; f32 elsewhere), or
    /// auto (the default: each model's kernels timed on this CPU the first time it loads, the
    /// fastest at cosine ≥ 0.999 to f32 kept and remembered). Vectors are cached under the
    /// precision that made them.
    #[arg(long, value_name = "auto|f32|bf16|int16", value_parser = parse_precision)]
    pub precision: Option<Precision>,
    /// A chat server speaking OpenAI's chat-completions protocol, for the methods that need a
    /// language model (rewrite, hyde, rag, judge): its base URL, e.g. http://127.0.0.1:8080/v1
    /// (llama.cpp, Ollama, vLLM, LM Studio, OpenAI). Without it the embedded model runs.
    #[arg(long, value_name = "URL")]
    pub llm: Option<String>,
    /// The model the chat server should answer with.
    #[arg(long, value_name = "NAME", requires = "llm")]
    pub llm_model: Option<String>,
    /// The environment variable holding the chat server's API key (the key itself is never
    /// given on the command line or saved).
    #[arg(long, value_name = "VAR", requires = "llm")]
    pub llm_key_env: Option<String>,
    /// Seconds to wait for the chat server's answer to start.
    #[arg(long, value_name = "SECONDS", default_value_t = 120, requires = "llm")]
    pub llm_timeout: u64,
    /// The embedded generator: a model id of the manifest (`Qwen/Qwen2.5-Coder-1.5B-Instruct`,
    /// `HuggingFaceTB/SmolLM2-135M-Instruct`; fetched when missing, unless --offline), or a GGUF
    /// instruct model (the file, or a folder holding one).
    #[arg(long, value_name = "ID|PATH")]
    generator_model: Option<PathBuf>,
    /// Ask the language model every time: neither read nor keep replies in the workspace's store
    /// (a benchmark's timings, a model whose replies should be seen afresh).
    #[arg(long)]
    pub no_store: bool,
    /// Let the embedded model write freely, held to no task's shape (what a server that takes no
    /// grammar gives): for measuring what the shapes change.
    #[arg(long)]
    pub free: bool,
}

/// An error's text with each chat-server setting it names followed by the flag that gives it on
/// the command line (`chat server model (--llm-model)`): the library names settings, the command
/// line says where they are given.
pub fn name_flags(text: &str) -> String {
    use crate::generate::openai::setting;
    let mut out = text.to_string();
    for (name, flag) in [(setting::KEY_ENV, "--llm-key-env"), (setting::MODEL, "--llm-model"), (setting::URL, "--llm")]
    {
        out = out.replace(name, &format!("{name} ({flag})"));
    }
    out
}

fn parse_precision(s: &str) -> std::result::Result<Precision, String> {
    Precision::parse(s).map_err(|e| e.to_string())
}

impl ModelArgs {
    /// The token index's bits per dimension these flags ask for (the default otherwise).
    pub fn token_bits(&self) -> u8 {
        self.token_bits.unwrap_or(crate::index::tokens::DEFAULT_BITS)
    }

    /// The model manager these flags describe.
    pub fn manager(&self) -> ModelManager {
        let mut m = ModelManager::from_env().with_max_length(self.max_tokens);
        // A generator named by a manifest id rather than a path.
        if let Some(id) = self.generator_model.as_ref().and_then(|p| p.to_str()).filter(|p| !Path::new(p).exists())
            && m.manifest().get(id).is_some()
            && let Ok(chosen) = m.clone().with_choice(id)
        {
            m = chosen;
        }
        if let Some(p) = self.precision {
            m = m.with_precision(p);
        }
        if self.offline {
            m = m.offline(true);
        }
        for (role, dir) in [
            (Role::Dense, &self.dense_model),
            (Role::Splade, &self.splade_model),
            (Role::LateInteraction, &self.late_model),
            (Role::Reranker, &self.rerank_model),
            (Role::Generator, &self.generator_model),
        ] {
            // A generator chosen by id is not also a folder.
            if let Some(d) = dir
                && m.choice(role).is_none()
            {
                m = m.with_explicit(role, d.clone());
            }
        }
        m
    }

    /// The language model these flags ask for: the chat server given by --llm, else the embedded
    /// model (fetched when missing, unless --offline); its replies kept in the workspace's store
    /// (a request asked before, by a command or the app, is answered from there) unless
    /// --no-store.
    pub fn generator(&self, progress: &dyn Progress) -> anyhow::Result<std::sync::Arc<dyn crate::generate::Generator>> {
        let mut generator = self.unstored_generator(progress)?;
        if !self.no_store
            && let Ok(store) = crate::generate::ReplyStore::in_workspace(&crate::workspace_dir())
        {
            generator = crate::generate::Stored::wrap(generator, &std::sync::Arc::new(store));
        }
        // Outermost, so the store keeps a free reply under a request with no shape.
        if self.free {
            generator = std::sync::Arc::new(crate::generate::unshaped::Unshaped(generator));
        }
        Ok(generator)
    }

    /// The language model these flags ask for, every request asked.
    fn unstored_generator(
        &self,
        progress: &dyn Progress,
    ) -> anyhow::Result<std::sync::Arc<dyn crate::generate::Generator>> {
        if let Some(url) = &self.llm {
            let mut config =
                crate::generate::ServerConfig::new(url.clone(), self.llm_model.clone().unwrap_or_default());
            config.key_env = self.llm_key_env.clone();
            config.timeout_secs = self.llm_timeout;
            return Ok(std::sync::Arc::new(crate::generate::ChatServer::new(config)?));
        }
        let (llm, _) = crate::generate::load_embedded(&self.manager(), !self.offline, progress)?;
        Ok(std::sync::Arc::new(llm))
    }

    /// Load the models the given families need (downloading when allowed) and encode the corpus.
    /// A model that cannot be had is reported and its methods say why; nothing else stops.
    pub fn prepare(
        &self,
        engine: &Workbench,
        kinds: &[MethodKind],
        settings: &Settings,
        download: bool,
        progress: &dyn Progress,
    ) -> anyhow::Result<()> {
        let mut roles: Vec<Role> = kinds.iter().flat_map(|k| settings.models_for(*k)).collect();
        roles.sort();
        roles.dedup();
        if roles.is_empty() {
            return Ok(());
        }
        let mut options = settings.neural_options();
        options.tokens = roles.contains(&Role::LateInteraction);
        options.windows.size = self.window.unwrap_or(options.windows.size);
        options.windows.stride = self.window_stride.unwrap_or(options.windows.stride);
        options.token_bits = self.token_bits.unwrap_or(options.token_bits);
        options.windows.truncate |= self.truncate;
        let mut checked = settings.clone();
        (checked.windows, checked.token_bits) = (options.windows, options.token_bits);
        checked.validate()?;
        engine.set_neural_options(options)?;
        let manager = self.manager();
        for role in &roles {
            if *role == Role::Generator && self.llm.is_some() {
                engine.set_generator(self.generator(progress)?)?;
                continue;
            }
            if let Err(e) = engine.load_model(&manager, *role, download && !self.offline, progress) {
                let optional = *role == Role::LateInteraction && roles.contains(&Role::Dense);
                if !optional {
                    eprintln!("note: {role} model unavailable: {}", e.report().lines().next().unwrap_or(""));
                }
            }
        }
        engine.build_neural(progress)?;
        for line in engine.window_notes() {
            eprintln!("note: {line}");
        }
        Ok(())
    }
}

/// The model roles a method family needs.
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
