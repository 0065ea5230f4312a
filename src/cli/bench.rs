//! `ranklens bench`: index build time and single-threaded queries per second.

use std::fmt::Write;
use std::path::PathBuf;
use std::time::Instant;

use anyhow::bail;
use clap::Args;
use serde::Serialize;

use super::Found;
use super::args::FormatArg;
use super::args::RankArgs;
use super::printer::{Printable, print};
use crate::corpus::{self, LoadOptions};
use crate::index::{IndexLocation, SparseIndex};
use crate::progress::NoProgress;
use crate::retrieve::QueryContext;
use crate::workbench::{SparseSpec, Workbench};

/// `ranklens bench`
#[derive(Debug, Args)]
pub struct BenchArgs {
    /// A BEIR folder with queries, e.g. ../shared/data/scifact.
    #[arg(long, value_name = "DIR|NAME", value_parser = super::args::dataset)]
    dataset: PathBuf,
    #[command(flatten)]
    rank: RankArgs,
    /// Index builds; the best time is reported.
    #[arg(long, default_value_t = 3)]
    repeat: usize,
    /// Passes over the queries per depth; the best is reported.
    #[arg(long, default_value_t = 5)]
    query_repeat: usize,
    /// Time only top-10 (for profiling one depth).
    #[arg(long)]
    only_top10: bool,
    #[command(flatten)]
    format: FormatArg,
}

#[derive(Debug, Serialize)]
struct BenchReport {
    dataset: String,
    documents: usize,
    queries: usize,
    method: String,
    analyzer: String,
    index_secs: f64,
    /// Retrieval only: each question analysed once beforehand, as bm25s times its retrieval
    /// (on pre-tokenised queries).
    qps_top10: f64,
    qps_top1000: f64,
    /// Top 10 from the question's text: analysis (tokenising, stop words, stemming) included.
    qps_top10_with_analysis: f64,
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
        let _ = writeln!(out, "queries/s top-10 {:>10.1}   (questions analysed beforehand)", self.qps_top10);
        let _ = writeln!(out, "queries/s top-1000 {:>8.1}", self.qps_top1000);
        let _ = writeln!(out, "queries/s top-10 {:>10.1}   (analysis included)", self.qps_top10_with_analysis);
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
    // The judged questions, as bm25s's script runs them (all of them when there are no qrels).
    let queries: Vec<String> = corpus
        .queries
        .iter()
        .filter(|q| corpus.qrels.as_ref().is_none_or(|r| r.judgements.contains_key(&q.id)))
        .map(|q| q.text.clone())
        .collect();
    let engine = Workbench::from_index(idx, corpus);
    let spec = SparseSpec::bm25(settings.bm25_variant, settings.bm25);
    let retriever = engine.sparse(spec, settings.analyzer, &NoProgress)?;
    // Each question analysed once, as bm25s tokenises its queries before timing retrieval.
    let prepared: Vec<QueryContext> = queries.iter().map(|q| QueryContext::new(q.as_str())).collect();
    for q in &prepared {
        std::hint::black_box(retriever.search(q, 10)?);
    }
    // The best of `query_repeat` passes over the questions, in questions per second.
    let best_qps = |run: &dyn Fn(&str, &QueryContext) -> crate::Result<()>| -> anyhow::Result<f64> {
        let mut best = 0.0f64;
        for _ in 0..a.query_repeat.max(1) {
            let t = Instant::now();
            for (text, q) in queries.iter().zip(&prepared) {
                run(text, q)?;
            }
            best = best.max(queries.len() as f64 / t.elapsed().as_secs_f64());
        }
        Ok(best)
    };
    let mut qps = [0.0f64; 2];
    let depths: &[usize] = if a.only_top10 { &[10] } else { &[10, 1000] };
    for (slot, &k) in depths.iter().enumerate() {
        qps[slot] = best_qps(&|_, q| retriever.search(q, k).map(|r| drop(std::hint::black_box(r))))?;
    }
    let with_analysis =
        best_qps(&|text, _| retriever.search(&QueryContext::new(text), 10).map(|r| drop(std::hint::black_box(r))))?;
    let report = BenchReport {
        dataset: a.dataset.display().to_string(),
        documents: engine.corpus().len(),
        queries: queries.len(),
        method: retriever.label(),
        analyzer: settings.analyzer.to_string(),
        index_secs,
        qps_top10: qps[0],
        qps_top1000: qps[1],
        qps_top10_with_analysis: with_analysis,
        threads: 1,
    };
    print(&report, a.format.value)?;
    Ok(Found::Some)
}
