//! `ranklens bench-encode`: passages per second for the dense and SPLADE encoders on a corpus,
//! and the memory of the late-interaction token index.

use std::fmt::Write;
use std::path::PathBuf;
use std::time::Instant;

use anyhow::bail;
use clap::Args;
use serde::Serialize;

use super::Found;
use super::args::{ModelArgs, OutputFormat};
use super::printer::{Printable, print};
use crate::corpus::{self, Corpus, LoadOptions};
use crate::engine::Engine;
use crate::index::neural::{TokenTarget, build_dense, build_splade};
use crate::models::Role;
use crate::models::WindowSpec;
use crate::progress::NoProgress;

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

impl Printable for EncodeBenchReport {
    fn table(&self) -> String {
        let mut out = String::new();
        let _ = writeln!(out, "{} passages of {} ({} threads)", self.passages, self.dataset, self.threads);
        let _ = writeln!(out, "dense  {:<45} {:>8.1} passages/s", self.dense_model, self.dense_passages_per_sec);
        let _ = writeln!(out, "SPLADE {:<45} {:>8.1} passages/s", self.splade_model, self.splade_passages_per_sec);
        if let (Some(b), Some(t)) = (self.late_index_bytes, self.late_tokens) {
            let _ = writeln!(out, "late-interaction index: {t} token vectors, {:.1} MiB", b as f64 / 1048576.0);
        }
        if let (Some(b), Some(a)) = (self.peak_rss_bytes_before_late, self.peak_rss_bytes_after_late) {
            let _ = writeln!(
                out,
                "peak resident memory: {:.0} MiB before, {:.0} MiB after building it",
                b as f64 / 1048576.0,
                a as f64 / 1048576.0
            );
        }
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

/// `ranklens bench-encode`
pub fn bench_encode(a: BenchEncodeArgs) -> anyhow::Result<Found> {
    let all = corpus::load(&a.dataset, LoadOptions::default())?;
    let take = if a.limit == 0 { all.len() } else { a.limit.min(all.len()) };
    let corpus = Corpus::from_docs(all.name.clone(), all.docs()[..take].iter().cloned());
    let manager = a.models.manager();
    let engine = Engine::new(corpus);
    for role in [Role::Dense, Role::Splade] {
        engine.load_model(&manager, role, !a.models.offline, &NoProgress)?;
    }
    let neural = engine.neural();
    let (Some(dense), Some(splade)) = (neural.dense, neural.splade) else { bail!("the models did not load") };
    let corpus = engine.corpus();
    let t = Instant::now();
    let (dense_index, _) = build_dense(corpus, &dense.encoder, None, WindowSpec::default(), None, &NoProgress)?;
    let dense_secs = t.elapsed().as_secs_f64();
    std::hint::black_box(dense_index);
    let t = Instant::now();
    let splade_index = build_splade(corpus, splade.encoder.as_ref(), None, WindowSpec::default(), &NoProgress)?;
    let splade_secs = t.elapsed().as_secs_f64();
    std::hint::black_box(splade_index);
    let (mut late_index_bytes, mut late_tokens, mut late_secs, mut before, mut after) = (None, None, None, None, None);
    if a.late {
        before = peak_rss_bytes();
        let t = Instant::now();
        let target = TokenTarget { bits: a.models.token_bits(), ..Default::default() };
        let (_, late) = build_dense(corpus, &dense.encoder, None, WindowSpec::default(), Some(&target), &NoProgress)?;
        late_secs = Some(t.elapsed().as_secs_f64());
        after = peak_rss_bytes();
        late_index_bytes = late.as_ref().map(|l| l.size_bytes());
        late_tokens = late.as_ref().map(|l| l.total_tokens() as usize);
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
    print(&report, a.format)?;
    Ok(Found::Some)
}
