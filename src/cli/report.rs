//! `ranklens report`: a shareable report of one question or a question set.

use std::path::PathBuf;

use anyhow::bail;
use clap::Args;

use super::Found;
use super::args::{CorpusArgs, MethodArg, RankArgs, RunArgs, report_load};
use super::model_args::ModelArgs;
use super::progress::TermProgress;
use crate::compare::{Baseline, Plan};
use crate::corpus::{self, LoadOptions};
use crate::eval::Correction;
use crate::progress::NoProgress;
use crate::report::{ReportBody, ReportFormat};
use crate::retrieve::MethodKind;
use crate::workbench::Workbench;

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
    /// With --dataset: a second set of judgements (a language model's, another assessor's) and
    /// whether it orders the methods as the people's do, as a section of the report.
    #[arg(long, value_name = "FILE", requires = "dataset")]
    judge_qrels: Option<std::path::PathBuf>,
    /// With --dataset: the judge's report card as `ranklens judge --stress --format json` wrote
    /// it, as a section of the report (attacks, stability, τ all and at the top, κ, the verdict).
    #[arg(long, value_name = "FILE", requires = "dataset")]
    judge_card: Option<std::path::PathBuf>,
    /// Evaluate this BEIR folder's question set instead of one question.
    #[arg(long, value_name = "DIR|NAME", value_parser = super::args::dataset)]
    dataset: Option<PathBuf>,
    /// Columns to add to the built-in ones, comma-separated: the language model's (agent,
    /// listwise, pointwise, rewrite, hyde, reason-bm25, …) or graphrag-local. An agent column's
    /// trace goes into the report.
    #[arg(long, value_enum, value_delimiter = ',', value_name = "METHOD")]
    also: Vec<MethodArg>,
    /// Ask the corpus's tables this question in words too (text to SQL): the statement the
    /// language model writes, and its rows or why it did not run, go into the report.
    #[arg(long, value_name = "QUESTION")]
    ask_sql: Option<String>,
    /// Read the question too with this reader (span, generator or toy): its answer, the passage it
    /// came from and each passage read go into the report.
    #[arg(long, value_name = "span|generator|toy")]
    reader: Option<String>,
    /// Passages the reader reads (with --reader), from the first ranked column of the report.
    #[arg(long, value_name = "K", default_value_t = 5)]
    read_k: usize,
    /// Measure the corpus's question set with answers at k = 1, 2, 3, 5, 10, 20 (BM25's rankings,
    /// read by --reader when given) and put the plot in the report; a file names another set.
    #[arg(long, value_name = "FILE", num_args = 0..=1, default_missing_value = "")]
    answers: Option<String>,
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
        let engine = Workbench::new(corpus).with_workspace(crate::workspace_dir());
        a.models.prepare(&engine, &kinds, &settings, a.models.fetch_models, &progress)?;
        let plan = Plan::of_kinds(&settings, &kinds).with_externals(&runs);
        let queries = engine.corpus().queries.clone();
        let study =
            plan.study(Some(&engine), &qrels, &queries, 100, &Baseline::Bm25, Correction::default(), &progress)?;
        let mut report = crate::report::study_report(&engine, &study, &settings);
        if let Some(path) = &a.judge_qrels {
            let (judge, _) = crate::eval::Qrels::load(path)?;
            report.validity = Some(study.validity(&qrels, &judge));
        }
        if let Some(path) = &a.judge_card {
            report.judge_card = Some(crate::compare::judge_stress::read_card(path)?);
        }
        report.answers = answer_curve(&a, &engine, &settings, &progress)?;
        ReportBody::Study(Box::new(report))
    } else {
        let Some(question) = a.question.clone() else {
            bail!("give a question, or --dataset DIR for an evaluation report")
        };
        let mut settings = a.rank.settings(a.k)?;
        for m in &a.also {
            if *m == MethodArg::All || settings.methods.contains(&m.kind()) {
                continue;
            }
            settings.methods.push(m.kind());
        }
        let engine = a.corpus.workbench(&progress)?;
        let runs = a.run_files.load(Some(engine.corpus()))?;
        let mut wanted: Vec<MethodKind> = kinds.to_vec();
        wanted.extend(a.also.iter().map(|m| m.kind()));
        if a.ask_sql.is_some() {
            // Text to SQL needs the language model, as the agent does.
            wanted.push(MethodKind::Agent);
        }
        a.models.prepare(&engine, &wanted, &settings, a.models.fetch_models, &progress)?;
        // A graph built before (`ranklens graphrag build`) is in the report and answers its column.
        let _ = engine.model_graph();
        let templates = engine.corpus().templates_for(&question);
        let plan = Plan::from_settings(&settings, templates.sql.as_deref(), templates.graph.as_deref())
            .with_structured_sources(&engine)
            .with_externals(&runs);
        let run = plan.run(&engine, &engine.query_context(&question, &settings), &NoProgress)?;
        let qid = crate::eval::question_id(&question, &engine.corpus().queries);
        let judged = engine.corpus().qrels.as_ref().and_then(|q| q.for_query(&qid)).cloned();
        let mut report = crate::report::comparison_report(&engine, &run, &settings, judged.as_ref());
        if let Some(asked) = &a.ask_sql {
            report.model_sql = Some(ask_sql(&engine, asked)?);
        }
        if let Some(name) = &a.reader {
            let reader = a.models.reader(&engine, name.parse()?, &progress)?;
            let Some(ranking) = crate::compare::best_list(&run.comparison) else {
                bail!("--reader: no ranked column to read")
            };
            let reading = crate::compare::read_ranking(
                engine.corpus(),
                ranking,
                &question,
                a.read_k.max(1),
                reader.as_ref(),
                &progress,
            )?;
            report.reading = Some(crate::report::ReadingReport::of(&reading));
        }
        report.answer_curve = answer_curve(&a, &engine, &settings, &progress)?;
        ReportBody::Comparison(Box::new(report))
    };
    drop(progress);
    crate::report::write(&body, &a.out)?;
    println!("wrote {}", a.out.display());
    Ok(Found::Some)
}

/// The k trade-off for the report, when --answers asks for it: the corpus's own answers, or the
/// file named, read through BM25's rankings by --reader (answer recall only without one).
fn answer_curve(
    a: &ReportArgs,
    engine: &Workbench,
    settings: &crate::config::Settings,
    progress: &dyn crate::progress::Progress,
) -> anyhow::Result<Option<crate::compare::AnswerStudy>> {
    let Some(file) = &a.answers else { return Ok(None) };
    let set = if file.is_empty() {
        let Some(set) = engine.corpus().answers.clone() else {
            bail!("--answers: the corpus ships no answers (answers.tsv beside it, or SQuAD's JSON); name a file")
        };
        set
    } else {
        let mut report = crate::corpus::LoadReport::default();
        let mut set = crate::corpus::load_answers(std::path::Path::new(file), &mut report)?;
        crate::corpus::locate_spans(&mut set, engine.corpus(), &mut report);
        set
    };
    let reader = match &a.reader {
        Some(name) => Some(a.models.reader(engine, name.parse()?, progress)?),
        None => None,
    };
    let bm25 = engine.retriever(MethodKind::Bm25, settings)?;
    let study = crate::compare::answer_study(
        engine,
        bm25.as_ref(),
        settings,
        &set,
        reader.as_deref(),
        &crate::compare::CURVE_KS,
        None,
        progress,
    )?;
    Ok(Some(study))
}

/// Text to SQL for the report: the model's statement over the corpus's tables, run if it is one
/// SELECT.
fn ask_sql(workbench: &Workbench, question: &str) -> anyhow::Result<crate::report::ModelSqlReport> {
    use crate::generate::text_to_sql;
    let Some(db) = &workbench.structured().sql else {
        bail!("--ask-sql: this corpus has no tables (put a .csv file next to it)");
    };
    let Some(generator) = workbench.generator() else {
        bail!("--ask-sql: no language model could be loaded (see the note above)");
    };
    let asked = text_to_sql::write_sql(generator.as_ref(), db, question, &NoProgress)?;
    let outcome = text_to_sql::run(db, &asked.sql, crate::structured::SqlLimits::default());
    Ok(crate::report::ModelSqlReport { question: asked.question, model: asked.model, sql: asked.sql, outcome })
}
