//! One function per subcommand.

use std::io::IsTerminal;
use std::path::PathBuf;
use std::sync::Mutex;
use std::time::Instant;

use anyhow::{Context, bail};
use clap::Args;
use serde::Serialize;

use super::Found;
use super::args::{CorpusArgs, OutputFormat, RankArgs, report_load};
use super::table::Table;
use crate::compare::{Comparison, Outcome, Study};
use crate::config::Settings;
use crate::corpus::{self, Corpus, LoadOptions};
use crate::engine::{Engine, SparseSpec};
use crate::index::{IndexLocation, SparseIndex};
use crate::models::{ModelManager, Role};
use crate::progress::{NoProgress, Progress};
use crate::retrieve::{Detail, Explanation, MethodKind, Ranking, Retriever};

/// Progress on stderr: a rewritten line on a terminal, one line per stage otherwise.
struct TermProgress {
    state: Mutex<(String, u64, u64, Instant)>,
    tty: bool,
}

impl TermProgress {
    fn new() -> Self {
        Self { state: Mutex::new((String::new(), 0, 0, Instant::now())), tty: std::io::stderr().is_terminal() }
    }
}

impl Progress for TermProgress {
    fn stage(&self, name: &str, total: u64) {
        if let Ok(mut s) = self.state.lock() {
            if self.tty && !s.0.is_empty() {
                eprintln!();
            }
            *s = (name.to_string(), 0, total, Instant::now());
            if !self.tty {
                eprintln!("{name}…");
            }
        }
    }
    fn advance(&self, n: u64) {
        if let Ok(mut s) = self.state.lock() {
            s.1 += n;
            if self.tty {
                let pct = (100 * s.1).checked_div(s.2).map(|p| format!(" {p:>3}%")).unwrap_or_default();
                eprint!("\r{} {}/{}{pct}", s.0, s.1, s.2);
            }
        }
    }
    fn is_cancelled(&self) -> bool {
        false
    }
}

impl Drop for TermProgress {
    fn drop(&mut self) {
        if self.tty && self.state.lock().map(|s| !s.0.is_empty()).unwrap_or(false) {
            eprintln!();
        }
    }
}

/// Which single method `search` runs.
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
    /// Every ranked method available (eval only).
    All,
}

impl MethodArg {
    fn kind(self) -> MethodKind {
        match self {
            MethodArg::Boolean => MethodKind::Boolean,
            MethodArg::Tfidf => MethodKind::TfIdf,
            MethodArg::Bm25 => MethodKind::Bm25,
            MethodArg::Dense => MethodKind::Dense,
            MethodArg::Splade => MethodKind::Splade,
            MethodArg::Late => MethodKind::LateInteraction,
            MethodArg::Fusion => MethodKind::Fusion,
            MethodArg::Rerank | MethodArg::All => MethodKind::Rerank,
        }
    }
}

/// Model flags shared by commands that can run neural methods.
#[derive(Debug, Args, Clone)]
pub struct ModelArgs {
    /// Never touch the network (no model downloads).
    #[arg(long)]
    offline: bool,
    /// Download missing models for the methods shown (compare only; search and eval download the
    /// models of the method asked for).
    #[arg(long)]
    fetch_models: bool,
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
}

impl ModelArgs {
    fn manager(&self) -> ModelManager {
        let mut m = ModelManager::from_env().with_max_length(self.max_tokens);
        if self.offline {
            m = m.offline(true);
        }
        for (role, dir) in [
            (Role::Dense, &self.dense_model),
            (Role::Splade, &self.splade_model),
            (Role::LateInteraction, &self.late_model),
            (Role::Reranker, &self.rerank_model),
        ] {
            if let Some(d) = dir {
                m = m.with_explicit(role, d.clone());
            }
        }
        m
    }
}

/// The model roles a method family needs.
fn roles_for(kind: MethodKind, settings: &Settings) -> Vec<Role> {
    match kind {
        MethodKind::Dense => vec![Role::Dense],
        MethodKind::Splade => vec![Role::Splade],
        MethodKind::LateInteraction => vec![Role::LateInteraction, Role::Dense],
        MethodKind::Fusion => settings.fusion.inputs.iter().flat_map(|k| roles_for(*k, settings)).collect(),
        MethodKind::Rerank => {
            let mut r = vec![Role::Reranker];
            r.extend(roles_for(MethodKind::Fusion, settings));
            r
        }
        _ => Vec::new(),
    }
}

/// Load the models the given families need (downloading when allowed) and encode the corpus.
/// A model that cannot be had is reported and its methods show why; nothing else stops.
fn prepare_neural(
    engine: &Engine,
    kinds: &[MethodKind],
    settings: &Settings,
    models: &ModelArgs,
    download: bool,
    progress: &dyn Progress,
) -> anyhow::Result<()> {
    let mut roles: Vec<Role> = kinds.iter().flat_map(|k| roles_for(*k, settings)).collect();
    roles.sort();
    roles.dedup();
    if roles.is_empty() {
        return Ok(());
    }
    let manager = models.manager();
    for role in &roles {
        if let Err(e) = engine.load_model(&manager, *role, download && !models.offline, progress) {
            let optional = *role == Role::LateInteraction && roles.contains(&Role::Dense);
            if !optional {
                eprintln!("note: {role} model unavailable: {}", e.to_string().lines().next().unwrap_or(""));
            }
        }
    }
    engine.build_neural(progress)?;
    Ok(())
}

/// `ranklens search`
#[derive(Debug, Args)]
pub struct SearchArgs {
    #[command(flatten)]
    corpus: CorpusArgs,
    #[command(flatten)]
    rank: RankArgs,
    /// Method to rank with.
    #[arg(long, value_enum, default_value = "bm25")]
    method: MethodArg,
    /// Number of results.
    #[arg(short = 'k', long = "top", default_value_t = 10)]
    k: usize,
    /// Show why each result scored what it did.
    #[arg(long)]
    explain: bool,
    #[command(flatten)]
    models: ModelArgs,
    /// Output format.
    #[arg(long, value_enum, default_value = "table")]
    format: OutputFormat,
    /// The question (or Boolean query).
    question: String,
}

/// A hit as printed: external id, title and, when asked, the explanation.
#[derive(Debug, Serialize)]
struct HitView {
    rank: usize,
    id: String,
    score: f64,
    title: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    explanation: Option<Explanation>,
}

#[derive(Debug, Serialize)]
struct SearchView {
    question: String,
    method: String,
    analyzer: String,
    total_matches: usize,
    unranked: bool,
    hits: Vec<HitView>,
}

fn method_spec(method: MethodArg, s: &Settings) -> SparseSpec {
    SparseSpec::from_settings(method.kind(), s).unwrap_or(SparseSpec::Boolean)
}

fn truncate(s: &str, n: usize) -> String {
    let flat = s.split_whitespace().collect::<Vec<_>>().join(" ");
    if flat.chars().count() <= n { flat } else { format!("{}…", flat.chars().take(n - 1).collect::<String>()) }
}

fn hit_views(
    corpus: &Corpus,
    ranking: &Ranking,
    explain: Option<(&dyn Retriever, &crate::retrieve::QueryContext)>,
) -> anyhow::Result<Vec<HitView>> {
    ranking
        .hits
        .iter()
        .enumerate()
        .map(|(i, h)| {
            let doc = corpus.doc(h.doc);
            Ok(HitView {
                rank: i + 1,
                id: corpus.external_id(h.doc).to_string(),
                score: h.score,
                title: doc
                    .map(|d| if d.title.is_empty() { d.text.clone() } else { d.title.clone() })
                    .unwrap_or_default(),
                explanation: match explain {
                    Some((r, q)) => Some(r.explain(q, h.doc)?),
                    None => None,
                },
            })
        })
        .collect()
}

/// Print an explanation's term table under a result.
fn print_explanation(e: &Explanation) {
    println!("      {}", e.formula);
    println!("      {}", e.summary);
    if let Detail::Terms(t) = &e.detail {
        let mut table = Table::new(
            ["term", "qtf", "tf", "df", "idf", "|d|", "avgdl", "k1", "b", "tf weight", "contribution"]
                .map(String::from)
                .to_vec(),
            1,
        );
        for r in &t.rows {
            table.row(vec![
                r.term.clone(),
                r.qtf.to_string(),
                r.tf.to_string(),
                r.df.to_string(),
                format!("{:.4}", r.idf),
                format!("{}", r.dl),
                format!("{:.2}", r.avgdl),
                r.k1.map(|v| v.to_string()).unwrap_or_else(|| "—".into()),
                r.b.map(|v| v.to_string()).unwrap_or_else(|| "—".into()),
                format!("{:.4}", r.tf_weight),
                format!("{:.4}", r.contribution),
            ]);
        }
        for line in table.render().lines() {
            println!("      {line}");
        }
        println!("      N = {}, Σ contributions = {:.4}", t.n, e.value);
    }
    if let Detail::Clauses { clauses } = &e.detail {
        for c in clauses {
            println!("      {} {}", if c.satisfied { "✓" } else { "✗" }, c.clause);
        }
    }
}

/// `ranklens search`
pub fn search(a: SearchArgs) -> anyhow::Result<Found> {
    let settings = a.rank.settings(a.k)?;
    let progress = TermProgress::new();
    let engine = a.corpus.engine(&progress)?;
    prepare_neural(&engine, &[a.method.kind()], &settings, &a.models, true, &progress)?;
    let retriever = engine.retriever(a.method.kind(), &settings).map_err(|m| anyhow::anyhow!("{m}"))?;
    drop(progress);
    let q = engine.query_context(&a.question, &settings);
    let ranking = retriever.search(&q, settings.k)?;
    let corpus = engine.corpus();
    let explain = a.explain || a.format == OutputFormat::Json;
    let hits = hit_views(corpus, &ranking, explain.then_some((retriever.as_ref(), &q)))?;
    let view = SearchView {
        question: a.question.clone(),
        method: ranking.method.clone(),
        analyzer: settings.analyzer.to_string(),
        total_matches: ranking.total_matches,
        unranked: ranking.unranked,
        hits,
    };
    match a.format {
        OutputFormat::Json => println!("{}", serde_json::to_string_pretty(&view)?),
        OutputFormat::Table | OutputFormat::Csv => {
            println!("{} · analyzer {} · {} matching", view.method, view.analyzer, view.total_matches);
            if view.unranked {
                println!("(an unranked set, listed by document order)");
            }
            for h in &view.hits {
                println!("{:>3}. {:<16} {:>9.4}  {}", h.rank, h.id, h.score, truncate(&h.title, 70));
                if let Some(e) = h.explanation.as_ref().filter(|_| a.explain) {
                    print_explanation(e);
                }
            }
        }
    }
    Ok(if view.hits.is_empty() { Found::Nothing } else { Found::Some })
}

/// `ranklens compare`
#[derive(Debug, Args)]
pub struct CompareArgs {
    #[command(flatten)]
    corpus: CorpusArgs,
    #[command(flatten)]
    rank: RankArgs,
    /// Results per method.
    #[arg(short = 'k', long = "top", default_value_t = 10)]
    k: usize,
    /// SQL to run next to the text methods (default: the statement tied to a shipped question).
    #[arg(long)]
    sql: Option<String>,
    /// Graph pattern to run next to the text methods (default: the one tied to a shipped question).
    #[arg(long)]
    graph: Option<String>,
    #[command(flatten)]
    models: ModelArgs,
    /// Output format.
    #[arg(long, value_enum, default_value = "table")]
    format: OutputFormat,
    /// The question.
    question: String,
}

#[derive(Debug, Serialize)]
struct ColumnView {
    method: String,
    kind: MethodKind,
    #[serde(skip_serializing_if = "Option::is_none")]
    total_matches: Option<usize>,
    #[serde(skip_serializing_if = "Option::is_none")]
    message: Option<String>,
    hits: Vec<HitView>,
    #[serde(skip_serializing_if = "Option::is_none")]
    rows: Option<crate::structured::SqlResult>,
    #[serde(skip_serializing_if = "Option::is_none")]
    bindings: Option<crate::structured::GraphResult>,
}

#[derive(Debug, Serialize)]
struct CompareView {
    question: String,
    analyzer: String,
    k: usize,
    methods: Vec<ColumnView>,
}

fn compare_view(engine: &Engine, cmp: &Comparison, settings: &Settings) -> anyhow::Result<CompareView> {
    let corpus = engine.corpus();
    let mut methods = Vec::new();
    for run in &cmp.runs {
        let mut column = ColumnView {
            method: run.label.clone(),
            kind: run.kind,
            total_matches: None,
            message: None,
            hits: Vec::new(),
            rows: None,
            bindings: None,
        };
        match &run.outcome {
            Outcome::Ranked(r) => {
                column.hits = hit_views(corpus, r, None)?;
                column.total_matches = Some(r.total_matches);
            }
            Outcome::Rows(r) => column.rows = Some(r.clone()),
            Outcome::Bindings(b) => column.bindings = Some(b.clone()),
            Outcome::Unavailable { message } | Outcome::Failed { message } => column.message = Some(message.clone()),
        }
        methods.push(column);
    }
    Ok(CompareView { question: cmp.question.clone(), analyzer: settings.analyzer.to_string(), k: cmp.k, methods })
}

/// `ranklens compare`
pub fn compare(a: CompareArgs) -> anyhow::Result<Found> {
    let settings = a.rank.settings(a.k)?;
    let progress = TermProgress::new();
    let engine = a.corpus.engine(&progress)?;
    let specs = SparseSpec::all_variants(settings.bm25_variant, settings.bm25);
    let mut entries: Vec<crate::compare::RetrieverEntry> = Vec::new();
    for spec in &specs {
        entries.push((spec.kind(), Ok(std::sync::Arc::from(engine.sparse(*spec, settings.analyzer, &progress)?))));
    }
    let neural =
        [MethodKind::Splade, MethodKind::Dense, MethodKind::LateInteraction, MethodKind::Fusion, MethodKind::Rerank];
    prepare_neural(&engine, &neural, &settings, &a.models, a.models.fetch_models, &progress)?;
    for kind in neural {
        entries.push((kind, engine.neural_retriever(kind, &settings)));
    }
    drop(progress);
    let q = engine.query_context(&a.question, &settings);
    let mut cmp = Comparison::run_all(&q, settings.k, &entries);
    let shipped = engine.corpus().queries.iter().find(|x| x.text.trim() == a.question.trim());
    let templates = shipped.and_then(|x| engine.corpus().templates.get(&x.id)).cloned().unwrap_or_default();
    let sql = a.sql.clone().or(templates.sql);
    let graph = a.graph.clone().or(templates.graph);
    if engine.structured().sql.is_some() || engine.structured().graph.is_some() {
        cmp.add_structured(&engine, sql.as_deref(), graph.as_deref());
    }
    let view = compare_view(&engine, &cmp, &settings)?;
    let found = view.methods.iter().any(|m| !m.hits.is_empty() || m.rows.as_ref().is_some_and(|r| !r.rows.is_empty()));
    match a.format {
        OutputFormat::Json => println!("{}", serde_json::to_string_pretty(&view)?),
        OutputFormat::Csv => {
            let mut w = csv::Writer::from_writer(std::io::stdout());
            w.write_record(["question", "method", "rank", "id", "score"])?;
            for m in &view.methods {
                for h in &m.hits {
                    w.write_record([
                        &view.question,
                        &m.method,
                        &h.rank.to_string(),
                        &h.id,
                        &format!("{:.6}", h.score),
                    ])?;
                }
            }
            w.flush()?;
        }
        OutputFormat::Table => {
            println!("{} · analyzer {}", view.question, view.analyzer);
            for m in view.methods.iter().filter(|m| !matches!(m.kind, MethodKind::Sql | MethodKind::Graph)) {
                let total = m.total_matches.map(|t| format!("{t} matching")).unwrap_or_default();
                match &m.message {
                    Some(msg) => {
                        println!("  [{}] unavailable: {}", short_label(&m.method), msg.lines().next().unwrap_or(""))
                    }
                    None => println!("  [{}] {} {}", short_label(&m.method), m.method, total),
                }
            }
            let text_methods: Vec<&ColumnView> = view
                .methods
                .iter()
                .filter(|m| !matches!(m.kind, MethodKind::Sql | MethodKind::Graph) && m.message.is_none())
                .collect();
            let mut header = vec!["rank".to_string()];
            header.extend(text_methods.iter().map(|m| short_label(&m.method)));
            let mut table = Table::new(header, 99);
            for rank in 0..view.k {
                let mut row = vec![(rank + 1).to_string()];
                for m in &text_methods {
                    row.push(m.hits.get(rank).map(|h| format!("{} {:.3}", h.id, h.score)).unwrap_or_default());
                }
                if row.iter().skip(1).all(String::is_empty) {
                    break;
                }
                table.row(row);
            }
            print!("{}", table.render());
            for m in view.methods.iter().filter(|m| matches!(m.kind, MethodKind::Sql | MethodKind::Graph)) {
                print_structured(m);
            }
            let overlap = cmp.overlap();
            if overlap.labels.len() > 1 {
                println!("\nRBO (p = 0.9) between ranked methods:");
                let mut header = vec![String::new()];
                header.extend(overlap.labels.iter().map(|l| short_label(l)));
                let mut t = Table::new(header, 1);
                for (i, l) in overlap.labels.iter().enumerate() {
                    let mut row = vec![short_label(l)];
                    row.extend((0..overlap.labels.len()).map(|j| format!("{:.2}", overlap.get(&overlap.rbo, i, j))));
                    t.row(row);
                }
                print!("{}", t.render());
            }
        }
    }
    Ok(if found { Found::Some } else { Found::Nothing })
}

fn print_structured(m: &ColumnView) {
    println!();
    if let Some(r) = &m.rows {
        println!("SQL (rows, not a ranking): {}", r.sql);
        if !r.conditions.is_empty() {
            println!("  conditions: {}", r.conditions.join("  AND  "));
        }
        let mut t = Table::new(r.columns.clone(), 99);
        for row in &r.rows {
            t.row(row.iter().map(ToString::to_string).collect());
        }
        for line in t.render().lines() {
            println!("  {line}");
        }
        println!("  {} row(s){}", r.rows.len(), if r.truncated { " (cut at the row cap)" } else { "" });
    } else if let Some(b) = &m.bindings {
        println!("Graph: {}", b.pattern);
        for g in &b.matches {
            let vars: Vec<String> = g.bindings.iter().map(|(k, v)| format!("{k} = {v}")).collect();
            let path: Vec<String> = g.path.iter().map(|f| format!("{f} [{}]", f.passages.join(", "))).collect();
            println!("  {}   via {}", vars.join(", "), path.join(" → "));
        }
        if b.matches.is_empty() {
            println!("  no bindings");
        }
        println!("  {}", b.note);
    } else if let Some(msg) = &m.message {
        println!("{}: {msg}", m.method);
    }
}

/// `BM25 (okapi, k1=1.5, b=0.75)` → `okapi`; `TF-IDF (textbook)` → `tfidf-textbook`.
fn short_label(label: &str) -> String {
    let inner = label.split_once('(').map(|(_, r)| r.trim_end_matches(')')).unwrap_or("");
    let variant = inner.split(',').next().unwrap_or("").trim();
    if label.starts_with("TF-IDF") {
        format!("tfidf-{variant}")
    } else if label.starts_with("BM25") {
        variant.to_string()
    } else {
        label.split(' ').next().unwrap_or(label).to_lowercase()
    }
}

/// `ranklens eval`
#[derive(Debug, Args)]
pub struct EvalArgs {
    /// A BEIR folder (corpus.jsonl, queries.jsonl, qrels/test.tsv), e.g. ../shared/data/scifact.
    #[arg(long, value_name = "DIR")]
    dataset: PathBuf,
    #[command(flatten)]
    rank: RankArgs,
    /// Methods, comma-separated: boolean, tfidf, bm25, dense, splade, late, fusion, rerank, or all.
    #[arg(long, value_delimiter = ',', default_value = "bm25")]
    method: Vec<MethodArg>,
    /// The method the others are tested against.
    #[arg(long, value_enum, default_value = "bm25")]
    baseline: MethodArg,
    #[command(flatten)]
    models: ModelArgs,
    /// Retrieval depth per query.
    #[arg(long, default_value_t = 1000)]
    depth: usize,
    /// Write one TREC run file per method into this folder.
    #[arg(long, value_name = "DIR")]
    runs: Option<PathBuf>,
    /// Output format.
    #[arg(long, value_enum, default_value = "table")]
    format: OutputFormat,
}

/// `ranklens eval`
pub fn eval(a: EvalArgs) -> anyhow::Result<Found> {
    let settings = a.rank.settings(a.depth.max(1))?;
    let corpus = corpus::load(&a.dataset, LoadOptions::default())?;
    report_load(&corpus);
    let Some(qrels) = corpus.qrels.clone() else {
        bail!("{}: no qrels/test.tsv (or questions.tsv with judgements) found", a.dataset.display());
    };
    if corpus.queries.is_empty() {
        bail!("{}: no judged queries found", a.dataset.display());
    }
    let progress = TermProgress::new();
    let engine = Engine::new(corpus).with_workspace(crate::workspace_dir());
    let all = a.method.contains(&MethodArg::All);
    let kinds: Vec<MethodKind> =
        if all { MethodKind::RANKED.to_vec() } else { a.method.iter().map(|m| m.kind()).collect() };
    prepare_neural(&engine, &kinds, &settings, &a.models, true, &progress)?;
    let mut retrievers = Vec::new();
    for kind in kinds {
        match engine.retriever(kind, &settings) {
            Ok(r) => retrievers.push(r),
            Err(m) if all => eprintln!("skipping {kind}: {}", m.lines().next().unwrap_or("")),
            Err(m) => bail!("{kind}: {m}"),
        }
    }
    if retrievers.is_empty() {
        bail!("no method could run");
    }
    let baseline = retrievers.iter().position(|r| r.kind() == a.baseline.kind()).unwrap_or(0);
    let study = Study::run(&engine, &retrievers, &qrels, &settings, a.depth, baseline, &progress)?;
    drop(progress);
    if let Some(dir) = &a.runs {
        std::fs::create_dir_all(dir).with_context(|| format!("creating {}", dir.display()))?;
        for m in &study.methods {
            m.run.write_trec(&dir.join(format!("{}.trec", file_name(&m.label))))?;
        }
    }
    print_study(&study, a.format, &settings)?;
    Ok(Found::Some)
}

fn file_name(label: &str) -> String {
    let mut out = String::new();
    for c in label.chars() {
        let c = if c.is_ascii_alphanumeric() || c == '.' { c } else { '_' };
        if !(c == '_' && out.ends_with('_')) {
            out.push(c);
        }
    }
    out.trim_matches('_').to_string()
}

fn print_study(study: &Study, format: OutputFormat, settings: &Settings) -> anyhow::Result<()> {
    match format {
        OutputFormat::Json => println!("{}", serde_json::to_string_pretty(study)?),
        OutputFormat::Csv => {
            let mut w = csv::Writer::from_writer(std::io::stdout());
            w.write_record(["method", "metric", "value"])?;
            for m in &study.methods {
                for metric in &study.metrics.0 {
                    let v = m.summary.mean.get(metric).copied().unwrap_or(0.0);
                    w.write_record([m.label.as_str(), &metric.to_string(), &format!("{v:.4}")])?;
                }
            }
            w.flush()?;
        }
        OutputFormat::Table => {
            let mut header = vec!["method".to_string(), "queries".to_string()];
            header.extend(study.metrics.0.iter().map(|m| m.to_string()));
            header.extend(["W/L/T".to_string(), "p (rand)".to_string(), "p (t)".to_string()]);
            let mut t = Table::new(header, 1);
            for (i, m) in study.methods.iter().enumerate() {
                let mut row = vec![m.label.clone(), m.summary.num_queries.to_string()];
                row.extend(
                    study.metrics.0.iter().map(|x| format!("{:.4}", m.summary.mean.get(x).copied().unwrap_or(0.0))),
                );
                match &m.versus_baseline {
                    Some(p) => row.extend([
                        format!("{}/{}/{}", p.wins, p.losses, p.ties),
                        format!("{:.4}", p.p_randomisation),
                        format!("{:.4}", p.p_t_test),
                    ]),
                    None if i == study.baseline => row.extend(["baseline".to_string(), String::new(), String::new()]),
                    None => {}
                }
                t.row(row);
            }
            println!(
                "analyzer {} · tests on {} against the baseline, 10000 permutations",
                settings.analyzer, study.primary
            );
            print!("{}", t.render());
            let (a, b) = study.pair;
            if a != b && !study.disagreements.is_empty() {
                println!(
                    "\nWhere {} and {} disagree most ({}):",
                    study.methods[a].label, study.methods[b].label, study.primary
                );
                for d in &study.disagreements {
                    println!("  {:>8}  {:.3} vs {:.3}  {}", d.qid, d.a, d.b, truncate(&d.question, 80));
                }
            }
        }
    }
    Ok(())
}

/// `ranklens index`
#[derive(Debug, Args)]
pub struct IndexArgs {
    #[command(flatten)]
    corpus: CorpusArgs,
    /// Analyzer to index with.
    #[arg(long, default_value = "english")]
    analyzer: String,
    /// Folder to write the index into (must not hold an index yet).
    #[arg(long, value_name = "DIR")]
    out: PathBuf,
}

/// `ranklens index`
pub fn index(a: IndexArgs) -> anyhow::Result<Found> {
    let analyzer = a.analyzer.parse()?;
    let path = a.corpus.corpus.clone().unwrap_or_else(super::sample_corpus_dir);
    let split = match a.corpus.split {
        super::args::SplitArg::File => corpus::Split::File,
        super::args::SplitArg::Paragraph => corpus::Split::Paragraph,
    };
    let corpus = corpus::load(&path, LoadOptions { split, format: None })?;
    report_load(&corpus);
    let progress = TermProgress::new();
    let start = Instant::now();
    let idx = SparseIndex::build(&corpus, analyzer, &IndexLocation::Dir(a.out.clone()), &progress)?;
    drop(progress);
    let s = idx.stats();
    println!(
        "indexed {} documents ({} tokens, {} terms, avgdl {:.1}) with {} into {} in {:.2} s",
        s.n_docs,
        s.total_tokens,
        s.vocabulary,
        s.avgdl,
        analyzer,
        a.out.display(),
        start.elapsed().as_secs_f64()
    );
    println!("search it with: ranklens search --corpus {} \"your question\"", a.out.display());
    Ok(Found::Some)
}

/// `ranklens bench`
#[derive(Debug, Args)]
pub struct BenchArgs {
    /// A BEIR folder with queries, e.g. ../shared/data/scifact.
    #[arg(long, value_name = "DIR")]
    dataset: PathBuf,
    #[command(flatten)]
    rank: RankArgs,
    /// Index builds; the best time is reported.
    #[arg(long, default_value_t = 3)]
    repeat: usize,
    /// Passes over the queries per depth; the best is reported.
    #[arg(long, default_value_t = 5)]
    query_repeat: usize,
    /// Output format.
    #[arg(long, value_enum, default_value = "table")]
    format: OutputFormat,
}

#[derive(Debug, Serialize)]
struct BenchReport {
    dataset: String,
    documents: usize,
    queries: usize,
    method: String,
    analyzer: String,
    index_secs: f64,
    qps_top10: f64,
    qps_top1000: f64,
    threads: usize,
}

/// `ranklens bench`: index build time and single-threaded queries per second.
pub fn bench(a: BenchArgs) -> anyhow::Result<Found> {
    let settings = a.rank.settings(10)?;
    let corpus = corpus::load(&a.dataset, LoadOptions::default())?;
    if corpus.queries.is_empty() {
        bail!("{}: no queries to run", a.dataset.display());
    }
    let mut index_secs = f64::INFINITY;
    let mut last = None;
    for _ in 0..a.repeat.max(1) {
        let t = Instant::now();
        let idx = SparseIndex::build(&corpus, settings.analyzer, &IndexLocation::Ram, &NoProgress)?;
        index_secs = index_secs.min(t.elapsed().as_secs_f64());
        last = Some(idx);
    }
    let Some(idx) = last else { bail!("no index built") };
    let queries = corpus.queries.clone();
    let engine = Engine::from_index(idx, corpus);
    let retriever = engine.sparse(method_spec(MethodArg::Bm25, &settings), settings.analyzer, &NoProgress)?;
    let mut qps = [0.0f64; 2];
    for (slot, k) in [10usize, 1000].into_iter().enumerate() {
        for _ in 0..a.query_repeat.max(1) {
            let t = Instant::now();
            for q in &queries {
                let ranking = retriever.search(&crate::retrieve::QueryContext::new(q.text.as_str()), k)?;
                std::hint::black_box(ranking);
            }
            qps[slot] = qps[slot].max(queries.len() as f64 / t.elapsed().as_secs_f64());
        }
    }
    let report = BenchReport {
        dataset: a.dataset.display().to_string(),
        documents: engine.corpus().len(),
        queries: queries.len(),
        method: retriever.label(),
        analyzer: settings.analyzer.to_string(),
        index_secs,
        qps_top10: qps[0],
        qps_top1000: qps[1],
        threads: 1,
    };
    match a.format {
        OutputFormat::Json => println!("{}", serde_json::to_string(&report)?),
        _ => {
            println!(
                "{} on {} ({} docs, {} queries, 1 thread)",
                report.method, report.dataset, report.documents, report.queries
            );
            println!("index build      {:>10.3} s", report.index_secs);
            println!("queries/s top-10 {:>10.1}", report.qps_top10);
            println!("queries/s top-1000 {:>8.1}", report.qps_top1000);
        }
    }
    Ok(Found::Some)
}

/// `ranklens bench-encode`
#[derive(Debug, Args)]
pub struct BenchEncodeArgs {
    /// A BEIR folder (its corpus.jsonl is encoded), e.g. ../shared/data/scifact.
    #[arg(long, value_name = "DIR")]
    dataset: PathBuf,
    /// Encode the first N passages (0: all).
    #[arg(long, default_value_t = 1000)]
    limit: usize,
    /// Also keep every passage's token vectors (the late-interaction index) and report its memory.
    #[arg(long)]
    late: bool,
    #[command(flatten)]
    models: ModelArgs,
    /// Output format.
    #[arg(long, value_enum, default_value = "table")]
    format: OutputFormat,
}

#[derive(Debug, Serialize)]
struct EncodeBenchReport {
    dataset: String,
    passages: usize,
    dense_model: String,
    dense_secs: f64,
    dense_passages_per_sec: f64,
    splade_model: String,
    splade_secs: f64,
    splade_passages_per_sec: f64,
    late_index_bytes: Option<usize>,
    late_tokens: Option<usize>,
    late_secs: Option<f64>,
    peak_rss_bytes_before_late: Option<u64>,
    peak_rss_bytes_after_late: Option<u64>,
    threads: usize,
}

/// The process's peak resident memory (Linux `VmHWM`), when the system reports it.
fn peak_rss_bytes() -> Option<u64> {
    let status = std::fs::read_to_string("/proc/self/status").ok()?;
    let line = status.lines().find(|l| l.starts_with("VmHWM:"))?;
    let kb: u64 = line.split_whitespace().nth(1)?.parse().ok()?;
    Some(kb * 1024)
}

/// `ranklens bench-encode`: passages per second for the dense and SPLADE encoders on a corpus,
/// and the memory of the late-interaction token index.
pub fn bench_encode(a: BenchEncodeArgs) -> anyhow::Result<Found> {
    let all = corpus::load(&a.dataset, LoadOptions::default())?;
    let take = if a.limit == 0 { all.len() } else { a.limit.min(all.len()) };
    let corpus = crate::corpus::Corpus::from_docs(all.name.clone(), all.docs()[..take].iter().cloned());
    let manager = a.models.manager();
    let engine = Engine::new(corpus);
    for role in [Role::Dense, Role::Splade] {
        engine.load_model(&manager, role, !a.models.offline, &NoProgress)?;
    }
    let neural = engine.neural();
    let (Some(dense), Some(splade)) = (neural.dense, neural.splade) else { bail!("the models did not load") };
    let corpus = engine.corpus();
    let t = Instant::now();
    let (dense_index, _) = crate::index::neural::build_dense(corpus, &dense.encoder, None, false, &NoProgress)?;
    let dense_secs = t.elapsed().as_secs_f64();
    std::hint::black_box(dense_index);
    let t = Instant::now();
    let splade_index = crate::index::neural::build_splade(corpus, splade.encoder.as_ref(), None, &NoProgress)?;
    let splade_secs = t.elapsed().as_secs_f64();
    std::hint::black_box(splade_index);
    let (mut late_index_bytes, mut late_tokens, mut late_secs, mut before, mut after) = (None, None, None, None, None);
    if a.late {
        before = peak_rss_bytes();
        let t = Instant::now();
        let (_, late) = crate::index::neural::build_dense(corpus, &dense.encoder, None, true, &NoProgress)?;
        late_secs = Some(t.elapsed().as_secs_f64());
        after = peak_rss_bytes();
        late_index_bytes = late.as_ref().map(|l| l.memory_bytes());
        late_tokens = late.as_ref().map(|l| l.total_tokens());
    }
    let n = corpus.len();
    let report = EncodeBenchReport {
        dataset: a.dataset.display().to_string(),
        passages: n,
        dense_model: dense.model.spec.id.clone(),
        dense_secs,
        dense_passages_per_sec: n as f64 / dense_secs,
        splade_model: splade.model.spec.id.clone(),
        splade_secs,
        splade_passages_per_sec: n as f64 / splade_secs,
        late_index_bytes,
        late_tokens,
        late_secs,
        peak_rss_bytes_before_late: before,
        peak_rss_bytes_after_late: after,
        threads: std::thread::available_parallelism().map(|p| p.get()).unwrap_or(1),
    };
    match a.format {
        OutputFormat::Json => println!("{}", serde_json::to_string(&report)?),
        _ => {
            println!("{} passages of {} ({} threads)", n, report.dataset, report.threads);
            println!("dense  {:<45} {:>8.1} passages/s", report.dense_model, report.dense_passages_per_sec);
            println!("SPLADE {:<45} {:>8.1} passages/s", report.splade_model, report.splade_passages_per_sec);
            if let (Some(b), Some(t)) = (report.late_index_bytes, report.late_tokens) {
                println!("late-interaction index: {t} token vectors, {:.1} MiB", b as f64 / 1048576.0);
            }
            if let (Some(b), Some(a)) = (report.peak_rss_bytes_before_late, report.peak_rss_bytes_after_late) {
                println!(
                    "peak resident memory: {:.0} MiB before, {:.0} MiB after building it",
                    b as f64 / 1048576.0,
                    a as f64 / 1048576.0
                );
            }
        }
    }
    Ok(Found::Some)
}

/// `ranklens sql`
#[derive(Debug, Args)]
pub struct SqlArgs {
    #[command(flatten)]
    corpus: CorpusArgs,
    /// Output format.
    #[arg(long, value_enum, default_value = "table")]
    format: OutputFormat,
    /// One read-only SELECT statement over the corpus's tables.
    statement: String,
}

/// `ranklens sql`: run a read-only statement over the tables that came with the corpus.
pub fn sql(a: SqlArgs) -> anyhow::Result<Found> {
    let engine = a.corpus.engine(&NoProgress)?;
    let Some(db) = &engine.structured().sql else {
        bail!("this corpus has no tables: put a .csv file next to the corpus");
    };
    let result = db.query(&a.statement, crate::structured::SqlLimits::default())?;
    let found = !result.rows.is_empty();
    match a.format {
        OutputFormat::Json => println!("{}", serde_json::to_string_pretty(&result)?),
        _ => print_structured(&ColumnView {
            method: "SQL".into(),
            kind: MethodKind::Sql,
            total_matches: None,
            message: None,
            hits: Vec::new(),
            rows: Some(result),
            bindings: None,
        }),
    }
    Ok(if found { Found::Some } else { Found::Nothing })
}

/// `ranklens graph`
#[derive(Debug, Args)]
pub struct GraphArgs {
    #[command(flatten)]
    corpus: CorpusArgs,
    /// Output format.
    #[arg(long, value_enum, default_value = "table")]
    format: OutputFormat,
    /// A pattern such as `desktop-app loads ?p . ?p depends_on libsodium`.
    pattern: String,
}

/// `ranklens graph`: run a join pattern over the corpus's knowledge graph.
pub fn graph(a: GraphArgs) -> anyhow::Result<Found> {
    let engine = a.corpus.engine(&NoProgress)?;
    let Some(g) = &engine.structured().graph else {
        bail!("this corpus has no knowledge graph: put a graph.txt next to the corpus");
    };
    let result = g.query(&a.pattern)?;
    let found = !result.matches.is_empty();
    match a.format {
        OutputFormat::Json => println!("{}", serde_json::to_string_pretty(&result)?),
        _ => print_structured(&ColumnView {
            method: "Graph".into(),
            kind: MethodKind::Graph,
            total_matches: None,
            message: None,
            hits: Vec::new(),
            rows: None,
            bindings: Some(result),
        }),
    }
    Ok(if found { Found::Some } else { Found::Nothing })
}

/// `ranklens models`
#[derive(Debug, Args)]
pub struct ModelsArgs {
    #[command(subcommand)]
    action: ModelsAction,
}

/// What to do with models.
#[derive(Debug, clap::Subcommand)]
pub enum ModelsAction {
    /// Every model RankLens knows, per role, and whether it is here.
    List {
        /// Output format.
        #[arg(long, value_enum, default_value = "table")]
        format: OutputFormat,
    },
    /// Download and verify models (the preferred one of a role first, then its alternatives).
    Fetch {
        /// Only this role: dense, splade, late, reranker.
        #[arg(long)]
        role: Option<String>,
        /// Only this model id.
        #[arg(long)]
        id: Option<String>,
    },
}

/// `ranklens models list|fetch`
pub fn models(a: ModelsArgs) -> anyhow::Result<Found> {
    let manager = ModelManager::from_env();
    match a.action {
        ModelsAction::List { format } => {
            let status = manager.status();
            if format == OutputFormat::Json {
                println!("{}", serde_json::to_string_pretty(&status)?);
                return Ok(Found::Some);
            }
            println!("cache: {}", manager.cache_dir().display());
            let mut t = Table::new(["role", "model", "here", "sources", "hashes"].map(String::from).to_vec(), 99);
            for s in &status {
                t.row(vec![
                    s.role.to_string(),
                    s.id.clone(),
                    s.present.as_ref().map(|p| p.display().to_string()).unwrap_or_else(|| "missing".into()),
                    s.sources.join(", "),
                    if s.pinned { "pinned".into() } else { "recorded on first download".into() },
                ]);
            }
            print!("{}", t.render());
            Ok(if status.iter().any(|s| s.present.is_some()) { Found::Some } else { Found::Nothing })
        }
        ModelsAction::Fetch { role, id } => {
            let role: Option<Role> = role.as_deref().map(str::parse).transpose()?;
            let progress = TermProgress::new();
            let mut fetched = 0;
            let mut failures = Vec::new();
            for r in Role::ALL.into_iter().filter(|r| role.is_none_or(|x| x == *r)) {
                let candidates = manager.manifest().for_role(r);
                let wanted: Vec<_> =
                    candidates.into_iter().filter(|s| id.as_deref().is_none_or(|i| i == s.id)).collect();
                let mut got = None;
                for spec in &wanted {
                    match manager.fetch(spec, &progress) {
                        Ok(m) => {
                            got = Some(m);
                            break;
                        }
                        Err(crate::Error::Cancelled) => bail!("cancelled"),
                        Err(e) => failures.push(format!("{}: {e}", spec.id)),
                    }
                }
                if let Some(m) = got {
                    fetched += 1;
                    eprintln!();
                    println!("{r}: {} ready in {} ({:?})", m.spec.id, m.dir.display(), m.source);
                }
            }
            drop(progress);
            for f in &failures {
                eprintln!("could not fetch {f}");
            }
            if fetched == 0 {
                bail!("nothing fetched");
            }
            Ok(Found::Some)
        }
    }
}

/// `ranklens report`
#[derive(Debug, Args)]
pub struct ReportArgs {
    #[command(flatten)]
    corpus: CorpusArgs,
    #[command(flatten)]
    rank: RankArgs,
    #[command(flatten)]
    models: ModelArgs,
    /// Results per method.
    #[arg(short = 'k', long = "top", default_value_t = 10)]
    k: usize,
    /// Evaluate this BEIR folder's question set instead of one question.
    #[arg(long, value_name = "DIR")]
    dataset: Option<PathBuf>,
    /// Where to write: .html, .md, .json or .csv.
    #[arg(long, value_name = "FILE")]
    out: PathBuf,
    /// The question (for a one-question report).
    question: Option<String>,
}

/// `ranklens report`: a comparison (one question) or an evaluation (a question set).
pub fn report(a: ReportArgs) -> anyhow::Result<Found> {
    crate::report::ReportFormat::from_path(&a.out)?;
    let progress = TermProgress::new();
    let kinds = MethodKind::RANKED;
    let body = if let Some(dataset) = &a.dataset {
        let settings = a.rank.settings(100)?;
        let corpus = corpus::load(dataset, LoadOptions::default())?;
        report_load(&corpus);
        let Some(qrels) = corpus.qrels.clone() else {
            bail!("{}: no judgements to evaluate against", dataset.display())
        };
        let engine = Engine::new(corpus).with_workspace(crate::workspace_dir());
        prepare_neural(&engine, &kinds, &settings, &a.models, a.models.fetch_models, &progress)?;
        let retrievers: Vec<_> = kinds.iter().filter_map(|k| engine.retriever(*k, &settings).ok()).collect();
        let baseline = retrievers.iter().position(|r| r.kind() == MethodKind::Bm25).unwrap_or(0);
        let study = Study::run(&engine, &retrievers, &qrels, &settings, 100, baseline, &progress)?;
        crate::report::ReportBody::Study(Box::new(crate::report::study_report(&engine, &study, &settings)))
    } else {
        let Some(question) = a.question.clone() else {
            bail!("give a question, or --dataset DIR for an evaluation report")
        };
        let settings = a.rank.settings(a.k)?;
        let engine = a.corpus.engine(&progress)?;
        prepare_neural(&engine, &kinds, &settings, &a.models, a.models.fetch_models, &progress)?;
        let q = engine.query_context(&question, &settings);
        let mut entries: Vec<crate::compare::RetrieverEntry> =
            vec![(MethodKind::Boolean, engine.retriever(MethodKind::Boolean, &settings))];
        entries.extend(kinds.iter().map(|k| (*k, engine.retriever(*k, &settings))));
        let mut cmp = Comparison::run_all(&q, settings.k, &entries);
        let shipped = engine.corpus().queries.iter().find(|x| x.text.trim() == question.trim());
        let templates = shipped.and_then(|x| engine.corpus().templates.get(&x.id)).cloned().unwrap_or_default();
        if engine.structured().sql.is_some() || engine.structured().graph.is_some() {
            cmp.add_structured(&engine, templates.sql.as_deref(), templates.graph.as_deref());
        }
        let retrievers: Vec<_> = entries.into_iter().filter_map(|(_, r)| r.ok()).collect();
        let qid = crate::eval::question_id(&question, &engine.corpus().queries);
        let judged = engine.corpus().qrels.as_ref().and_then(|q| q.for_query(&qid)).cloned();
        crate::report::ReportBody::Comparison(Box::new(crate::report::comparison_report(
            &engine,
            &cmp,
            &retrievers,
            &q,
            &settings,
            judged.as_ref(),
        )))
    };
    drop(progress);
    crate::report::write(&body, &a.out)?;
    println!("wrote {}", a.out.display());
    Ok(Found::Some)
}

/// `ranklens lesson`
#[derive(Debug, Args)]
pub struct LessonArgs {
    /// Lesson: tfidf, bm25, index, reader, mismatch, fusion, structure, chunking, entities (none: list them).
    name: Option<String>,
    /// BM25 k (bm25 lesson).
    #[arg(long)]
    k: Option<f64>,
    /// BM25 b (bm25 lesson).
    #[arg(long)]
    b: Option<f64>,
    /// The question (index lesson).
    #[arg(long)]
    question: Option<String>,
    /// Passages the reader sees (reader lesson).
    #[arg(long)]
    reader_k: Option<usize>,
}

/// `ranklens lesson NAME`: a lesson printed as text, every number computed live.
pub fn lesson(a: LessonArgs) -> anyhow::Result<Found> {
    let Some(name) = a.name else {
        for (id, title) in crate::lessons::LESSONS {
            println!("{id:<10} {title}");
        }
        println!("{:<10} Methods atlas", "atlas");
        return Ok(Found::Some);
    };
    if name == "atlas" {
        print!("{}", crate::lessons::atlas_lesson().to_text());
        return Ok(Found::Some);
    }
    let mut params = crate::lessons::LessonParams::default();
    if let Some(k) = a.k {
        params.k = k;
    }
    if let Some(b) = a.b {
        params.b = b;
    }
    if let Some(q) = a.question {
        params.question = q;
    }
    if let Some(k) = a.reader_k {
        params.reader_k = k;
    }
    let kit = crate::lessons::LessonKit::load(&ModelManager::from_env(), &NoProgress)?;
    let lesson = crate::lessons::build(&name, &kit, &params)?;
    print!("{}", lesson.to_text());
    Ok(Found::Some)
}
