//! `ranklens bench-llm`: the embedded language model's speed and memory on one request of a task,
//! the prompt written out so `scripts/bench-llm.sh` can send llama.cpp (llama-cpp-python) the same
//! text with the same threads in the same run.

use std::fmt::Write;
use std::path::PathBuf;
use std::time::Instant;

use anyhow::bail;
use clap::{Args, ValueEnum};
use serde::Serialize;

use super::Found;
use super::args::FormatArg;
use super::model_args::ModelArgs;
use super::printer::{Printable, print};
use crate::config::Settings;
use crate::corpus::{self, LoadOptions};
use crate::generate::{ChatRequest, EmbeddedLlm, Generator, tasks};
use crate::progress::NoProgress;
use crate::retrieve::{ListwiseRetriever, MethodKind};
use crate::workbench::Workbench;

/// The request a benchmark sends.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum Task {
    /// The reader's answer to "What is E140?" from BM25's top 3 of the sample corpus (reads about
    /// 240 tokens, writes about 40).
    Rag,
    /// One listwise window: the first SciFact test question's BM25 top 20 (needs --dataset; reads
    /// about 2,600 tokens, writes about 90).
    Listwise,
    /// A hypothetical answer (HyDE's draft) to a sample question, up to 128 tokens: mostly
    /// writing.
    Draft,
}

/// `ranklens bench-llm`
#[derive(Debug, Args)]
pub struct BenchLlmArgs {
    /// What to ask.
    #[arg(long, value_enum, default_value = "rag")]
    task: Task,
    /// A BEIR folder for the listwise window, e.g. ../shared/data/scifact.
    #[arg(long, value_name = "DIR|NAME", value_parser = super::args::dataset)]
    dataset: Option<PathBuf>,
    /// Hold the reply to the task's shape (the listwise window's permutation); otherwise the
    /// model writes freely, as the reference does.
    #[arg(long)]
    constrained: bool,
    /// Write the prompt's text (the model's chat format) to this file, for the reference.
    #[arg(long, value_name = "FILE")]
    prompt_out: Option<PathBuf>,
    /// Ask this many times; the best time is reported (the first also loads the grammar).
    #[arg(long, default_value_t = 1)]
    repeat: usize,
    #[command(flatten)]
    models: ModelArgs,
    #[command(flatten)]
    format: FormatArg,
}

#[derive(Debug, Serialize)]
struct LlmBenchReport {
    /// The CPU, as the operating system names it.
    cpu: String,
    model: String,
    arithmetic: String,
    threads: usize,
    task: String,
    constrained: Option<String>,
    prompt_tokens: usize,
    completion_tokens: usize,
    /// Seconds to the first piece of the answer (reading the prompt and choosing the first token).
    read_secs: f64,
    /// Seconds from the first piece to the last.
    write_secs: f64,
    total_secs: f64,
    load_secs: f64,
    /// Peak resident memory before the model loaded, and at the end.
    rss_before_model_bytes: Option<u64>,
    peak_rss_bytes: Option<u64>,
    text: String,
}

impl Printable for LlmBenchReport {
    fn table(&self) -> String {
        let mut out = String::new();
        let _ = writeln!(
            out,
            "{} ({}) on {}, {} threads — {}",
            self.model, self.arithmetic, self.cpu, self.threads, self.task
        );
        let _ = writeln!(
            out,
            "read {} tokens in {:.2} s ({:.1} ms a token), wrote {} in {:.2} s ({:.1} ms a token); {:.2} s in all",
            self.prompt_tokens,
            self.read_secs,
            1000.0 * self.read_secs / self.prompt_tokens.max(1) as f64,
            self.completion_tokens,
            self.write_secs,
            1000.0 * self.write_secs / self.completion_tokens.max(1) as f64,
            self.total_secs
        );
        if let (Some(before), Some(peak)) = (self.rss_before_model_bytes, self.peak_rss_bytes) {
            let _ = writeln!(
                out,
                "peak memory {:.2} GB ({:.2} GB before the model)",
                peak as f64 / 1e9,
                before as f64 / 1e9
            );
        }
        if let Some(c) = &self.constrained {
            let _ = writeln!(out, "held to {c}");
        }
        let _ = writeln!(out, "{}", self.text.trim());
        out
    }
}

/// The process's peak resident memory (Linux `VmHWM`), when the system reports it.
fn peak_rss_bytes() -> Option<u64> {
    let status = std::fs::read_to_string("/proc/self/status").ok()?;
    let line = status.lines().find(|l| l.starts_with("VmHWM:"))?;
    let kb: u64 = line.split_whitespace().nth(1)?.parse().ok()?;
    Some(kb * 1024)
}

/// The task's request (built before the model loads, so the model's memory is apart).
fn request(
    a: &BenchLlmArgs,
    llm_for_listwise: &dyn Fn() -> anyhow::Result<std::sync::Arc<dyn Generator>>,
) -> anyhow::Result<(ChatRequest, String)> {
    let settings = Settings::default();
    match a.task {
        Task::Rag => {
            let engine = Workbench::new(corpus::load(&crate::sample::acme_sync()?, LoadOptions::default())?);
            let question = "What is E140?";
            let ranking =
                engine.retriever(MethodKind::Bm25, &settings)?.search(&engine.query_context(question, &settings), 3)?;
            let passages = crate::compare::rag_passages(engine.corpus(), &ranking, 3);
            Ok((
                tasks::rag_request(&tasks::rag_prompt(question, &passages)),
                format!("rag: {question:?}, BM25's top 3 of the sample"),
            ))
        }
        Task::Draft => {
            let question = "Why does my phone say my login is stale?";
            Ok((tasks::hyde_request(question), format!("draft: {question:?}")))
        }
        Task::Listwise => {
            let Some(dir) = &a.dataset else {
                bail!("--task listwise needs --dataset (a BEIR folder such as scifact)")
            };
            let corpus = corpus::load(dir, LoadOptions::default())?;
            let Some(query) = corpus.queries.first().cloned() else { bail!("{}: no queries", dir.display()) };
            let engine = Workbench::new(corpus);
            let first = engine.retriever(MethodKind::Bm25, &settings)?;
            let ranking = first.search(&engine.query_context(&query.text, &settings), 20)?;
            let lister =
                ListwiseRetriever::new(first, llm_for_listwise()?, engine.corpus().clone(), settings.model_rerank);
            let mut r = lister.request(&query.text, &ranking.docs());
            if !a.constrained {
                r.shape = None;
            }
            Ok((r, format!("listwise: one window of {} passages for {}", ranking.hits.len(), query.id)))
        }
    }
}

/// A generator that is never asked: the listwise retriever needs one to build its request.
struct Unasked(crate::generate::GeneratorInfo);

impl Generator for Unasked {
    fn info(&self) -> &crate::generate::GeneratorInfo {
        &self.0
    }
    fn chat(
        &self,
        _: &ChatRequest,
        _: crate::generate::Sink<'_>,
        _: &dyn crate::progress::Progress,
    ) -> crate::Result<crate::generate::Generated> {
        Err(crate::Error::Unavailable("the benchmark builds the request only".into()))
    }
}

/// `ranklens bench-llm`
pub fn bench_llm(a: BenchLlmArgs) -> anyhow::Result<Found> {
    let unasked = || -> anyhow::Result<std::sync::Arc<dyn Generator>> {
        let info = crate::generate::GeneratorInfo {
            model: "-".into(),
            size: None,
            place: crate::generate::Place::Scripted("-".into()),
            caveat: None,
        };
        Ok(std::sync::Arc::new(Unasked(info)))
    };
    let (mut request, task) = request(&a, &unasked)?;
    if a.task != Task::Listwise && !a.constrained {
        request.shape = None;
    }
    let before = peak_rss_bytes();
    let started = Instant::now();
    let (llm, _) = crate::generate::load_embedded(&a.models.manager(), !a.models.offline, &NoProgress)?;
    let load_secs = started.elapsed().as_secs_f64();
    if let Some(path) = &a.prompt_out {
        std::fs::write(path, llm.prompt_text(&request)?).map_err(|e| crate::Error::io(path, e))?;
    }
    let mut best: Option<(f64, f64, crate::generate::Generated)> = None;
    for _ in 0..a.repeat.max(1) {
        let (read, write, g) = timed(&llm, &request)?;
        if best.as_ref().is_none_or(|b| read + write < b.0 + b.1) {
            best = Some((read, write, g));
        }
    }
    let Some((read_secs, write_secs, g)) = best else { bail!("nothing was asked") };
    let report = LlmBenchReport {
        cpu: crate::models::auto_precision::cpu_model(),
        model: llm.info().label(),
        arithmetic: llm.arithmetic.clone(),
        threads: std::thread::available_parallelism().map(|n| n.get()).unwrap_or(1),
        task,
        constrained: g.constrained.clone(),
        prompt_tokens: g.prompt_tokens,
        completion_tokens: g.completion_tokens,
        read_secs,
        write_secs,
        total_secs: g.seconds,
        load_secs,
        rss_before_model_bytes: before,
        peak_rss_bytes: peak_rss_bytes(),
        text: g.text,
    };
    print(&report, a.format.value)?;
    Ok(Found::Some)
}

/// One request from a clean cache (nothing kept from an earlier one): seconds to the first piece,
/// seconds after it, and the reply.
fn timed(llm: &EmbeddedLlm, request: &ChatRequest) -> anyhow::Result<(f64, f64, crate::generate::Generated)> {
    llm.forget();
    let started = Instant::now();
    let mut first: Option<f64> = None;
    let g = llm.chat(
        request,
        &mut |_| {
            first.get_or_insert_with(|| started.elapsed().as_secs_f64());
        },
        &NoProgress,
    )?;
    let total = started.elapsed().as_secs_f64();
    let read = first.unwrap_or(total);
    Ok((read, total - read, g))
}
