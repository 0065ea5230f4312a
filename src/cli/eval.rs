//! `ranklens eval`: methods over a dataset's questions and judgements, with paired tests.

use std::fmt::Write;
use std::path::PathBuf;

use anyhow::{Context, bail};
use clap::Args;
use serde::Serialize;

use super::Found;
use super::args::{MethodArg, ModelArgs, OutputFormat, RankArgs, report_load};
use super::printer::{Printable, print};
use super::progress::TermProgress;
use super::table::Table;
use super::views::truncate;
use crate::compare::{Plan, Study};
use crate::corpus::{self, LoadOptions};
use crate::engine::Engine;
use crate::retrieve::MethodKind;

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
    a.models.prepare(&engine, &kinds, &settings, true, &progress)?;
    let plan = Plan::of_kinds(&settings, &kinds);
    let mut retrievers = Vec::new();
    for (kind, r) in kinds.iter().zip(plan.retrievers(&engine, &progress)) {
        match r {
            Some(Ok(r)) => retrievers.push(r),
            Some(Err(e)) if all => eprintln!("skipping {kind}: {}", e.report().lines().next().unwrap_or("")),
            Some(Err(e)) => bail!("{kind}: {}", e.report()),
            None => bail!("{kind} does not rank passages"),
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
    print(&StudyView { study: &study, analyzer: settings.analyzer.to_string() }, a.format)?;
    Ok(Found::Some)
}

/// A method label as a file name: `BM25 (lucene, k1=0.9)` → `BM25_lucene_k1_0.9`.
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

/// A study as printed; its JSON is the study itself.
pub struct StudyView<'a> {
    /// The study.
    pub study: &'a Study,
    /// The analyzer it ran with.
    pub analyzer: String,
}

impl Serialize for StudyView<'_> {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        self.study.serialize(s)
    }
}

impl Printable for StudyView<'_> {
    fn table(&self) -> String {
        let study = self.study;
        let mut out = String::new();
        let mut header = vec!["method".to_string(), "queries".to_string()];
        header.extend(study.metrics.0.iter().map(|m| m.to_string()));
        header.extend(["W/L/T".to_string(), "p (rand)".to_string(), "p (t)".to_string()]);
        let mut t = Table::new(header, 1);
        for (i, m) in study.methods.iter().enumerate() {
            let mut row = vec![m.label.clone(), m.summary.num_queries.to_string()];
            row.extend(study.metrics.0.iter().map(|x| format!("{:.4}", m.summary.mean.get(x).copied().unwrap_or(0.0))));
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
        let _ = writeln!(
            out,
            "analyzer {} · tests on {} against the baseline, 10000 permutations",
            self.analyzer, study.primary
        );
        out.push_str(&t.render());
        let (a, b) = study.pair;
        if a != b && !study.disagreements.is_empty() {
            let _ = writeln!(
                out,
                "\nWhere {} and {} disagree most ({}):",
                study.methods[a].label, study.methods[b].label, study.primary
            );
            for d in &study.disagreements {
                let _ = writeln!(out, "  {:>8}  {:.3} vs {:.3}  {}", d.qid, d.a, d.b, truncate(&d.question, 80));
            }
        }
        out
    }

    fn csv(&self) -> Option<Vec<Vec<String>>> {
        let mut rows = vec![["method", "metric", "value"].map(String::from).to_vec()];
        for m in &self.study.methods {
            for metric in &self.study.metrics.0 {
                let v = m.summary.mean.get(metric).copied().unwrap_or(0.0);
                rows.push(vec![m.label.clone(), metric.to_string(), format!("{v:.4}")]);
            }
        }
        Some(rows)
    }
}
