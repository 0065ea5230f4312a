//! `ranklens report`: a shareable report of one question or a question set.

use std::path::PathBuf;

use anyhow::bail;
use clap::Args;

use super::Found;
use super::args::{CorpusArgs, ModelArgs, RankArgs, RunArgs, report_load};
use super::progress::TermProgress;
use crate::compare::{Baseline, Plan};
use crate::corpus::{self, LoadOptions};
use crate::engine::Engine;
use crate::eval::Correction;
use crate::progress::NoProgress;
use crate::report::{ReportBody, ReportFormat};
use crate::retrieve::MethodKind;

/// `ranklens report`
#[derive(Debug, Args)]
pub struct ReportArgs {
    #[command(flatten)]
    corpus: CorpusArgs,
    #[command(flatten)]
    rank: RankArgs,
    #[command(flatten)]
    models: ModelArgs,
    #[command(flatten)]
    run_files: RunArgs,
    /// Results per method.
    #[arg(short = 'k', long = "top", default_value_t = 10)]
    k: usize,
    /// Evaluate this BEIR folder's question set instead of one question.
    #[arg(long, value_name = "DIR")]
    dataset: Option<PathBuf>,
    /// Where to write: .html, .md, .json or .csv.
    #[arg(long, value_name = "FILE")]
    out: PathBuf,
    /// The question (for a one-question report); `-` reads it from standard input.
    #[arg(value_parser = super::args::text_or_stdin)]
    question: Option<String>,
}

/// `ranklens report`: a comparison (one question) or an evaluation (a question set).
pub fn report(a: ReportArgs) -> anyhow::Result<Found> {
    ReportFormat::from_path(&a.out)?;
    let progress = TermProgress::new();
    let kinds = MethodKind::RANKED;
    let body = if let Some(dataset) = &a.dataset {
        let settings = a.rank.settings(100)?;
        let corpus = corpus::load(dataset, LoadOptions::default())?;
        report_load(&corpus);
        let Some(qrels) = corpus.qrels.clone() else {
            bail!("{}: no judgements to evaluate against", dataset.display())
        };
        let runs = a.run_files.load(Some(&corpus))?;
        let engine = Engine::new(corpus).with_workspace(crate::workspace_dir());
        a.models.prepare(&engine, &kinds, &settings, a.models.fetch_models, &progress)?;
        let plan = Plan::of_kinds(&settings, &kinds).with_externals(&runs);
        let queries = engine.corpus().queries.clone();
        let study =
            plan.study(Some(&engine), &qrels, &queries, 100, &Baseline::Bm25, Correction::default(), &progress)?;
        ReportBody::Study(Box::new(crate::report::study_report(&engine, &study, &settings)))
    } else {
        let Some(question) = a.question.clone() else {
            bail!("give a question, or --dataset DIR for an evaluation report")
        };
        let settings = a.rank.settings(a.k)?;
        let engine = a.corpus.engine(&progress)?;
        let runs = a.run_files.load(Some(engine.corpus()))?;
        a.models.prepare(&engine, &kinds, &settings, a.models.fetch_models, &progress)?;
        let templates = engine.corpus().templates_for(&question);
        let plan = Plan::from_settings(&settings, templates.sql.as_deref(), templates.graph.as_deref())
            .with_structured_sources(&engine)
            .with_externals(&runs);
        let run = plan.run(&engine, &engine.query_context(&question, &settings), &NoProgress)?;
        let qid = crate::eval::question_id(&question, &engine.corpus().queries);
        let judged = engine.corpus().qrels.as_ref().and_then(|q| q.for_query(&qid)).cloned();
        ReportBody::Comparison(Box::new(crate::report::comparison_report(&engine, &run, &settings, judged.as_ref())))
    };
    drop(progress);
    crate::report::write(&body, &a.out)?;
    println!("wrote {}", a.out.display());
    Ok(Found::Some)
}
