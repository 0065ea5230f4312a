//! `ranklens bench`: index build time and single-threaded queries per second.

use std::fmt::Write;
use std::path::PathBuf;
use std::time::Instant;

use anyhow::bail;
use clap::Args;
use serde::Serialize;

use super::Found;
use super::args::{OutputFormat, RankArgs};
use super::printer::{Printable, print};
use crate::corpus::{self, LoadOptions};
use crate::engine::{Engine, SparseSpec};
use crate::index::{IndexLocation, SparseIndex};
use crate::progress::NoProgress;
use crate::retrieve::QueryContext;

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

impl Printable for BenchReport {
    fn table(&self) -> String {
        let mut out = String::new();
        let _ = writeln!(
            out,
            "{} on {} ({} docs, {} queries, 1 thread)",
            self.method, self.dataset, self.documents, self.queries
        );
        let _ = writeln!(out, "index build      {:>10.3} s", self.index_secs);
        let _ = writeln!(out, "queries/s top-10 {:>10.1}", self.qps_top10);
        let _ = writeln!(out, "queries/s top-1000 {:>8.1}", self.qps_top1000);
        out
    }
}

/// `ranklens bench`
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
    let spec = SparseSpec::Bm25 { variant: settings.bm25_variant, params: settings.bm25 };
    let retriever = engine.sparse(spec, settings.analyzer, &NoProgress)?;
    let mut qps = [0.0f64; 2];
    for (slot, k) in [10usize, 1000].into_iter().enumerate() {
        for _ in 0..a.query_repeat.max(1) {
            let t = Instant::now();
            for q in &queries {
                let ranking = retriever.search(&QueryContext::new(q.text.as_str()), k)?;
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
    print(&report, a.format)?;
    Ok(Found::Some)
}
