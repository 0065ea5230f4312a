//! `ranklens eval --answers`: a question set with answers read through each method's rankings —
//! answer recall@k, and with a reader its exact match and F1 at each k (SQuAD's rules).

use std::fmt::Write;
use std::path::{Path, PathBuf};

use anyhow::{Context, bail};
use serde::Serialize;

use super::Found;
use super::args::OutputFormat;
use super::model_args::ModelArgs;
use super::printer::{Printable, print};
use super::progress::TermProgress;
use crate::compare::{AnswerStudy, answer_study};
use crate::config::Settings;
use crate::corpus::{AnswerSet, LoadReport, load_answers};
use crate::retrieve::MethodKind;
use crate::workbench::Workbench;

/// What `eval --answers` was asked.
pub struct AnswersAsked<'a> {
    /// The file, or `None` for the corpus's own answers.
    pub file: Option<&'a Path>,
    /// The reader's name, if any.
    pub reader: Option<&'a str>,
    /// The k to measure at.
    pub ks: &'a [usize],
    /// The first questions only.
    pub questions: Option<usize>,
}

#[derive(Serialize)]
struct AnswersView {
    answers: PathBuf,
    questions: usize,
    answerable: usize,
    rules: crate::eval::AnswerRules,
    methods: Vec<AnswerStudy>,
    verdicts: Vec<String>,
}

impl Printable for AnswersView {
    fn table(&self) -> String {
        let mut out = format!(
            "{} questions ({} answerable) from {} · SQuAD {} rules\n",
            self.questions,
            self.answerable,
            self.answers.display(),
            if self.rules == crate::eval::AnswerRules::V1 { "v1.1" } else { "v2.0" }
        );
        for (study, verdict) in self.methods.iter().zip(&self.verdicts) {
            let reader = study.reader.as_ref().map_or("no reader: answer recall only".to_string(), |r| r.label());
            let _ = writeln!(out, "\n{} · {reader}", study.method);
            let _ = writeln!(out, "{:>4}  {:>9}  {:>7}  {:>7}  {:>8}", "k", "recall@k", "EM", "F1", "answered");
            for p in &study.points {
                let em = p.exact_match.map_or("—".into(), |v| format!("{v:.2}"));
                let f1 = p.f1.map_or("—".into(), |v| format!("{v:.2}"));
                let _ = writeln!(out, "{:>4}  {:>9.2}  {em:>7}  {f1:>7}  {:>8}", p.k, p.recall, p.answered);
            }
            if study.reader.is_some() {
                let _ = writeln!(out, "reading: {:.2} s a question", study.seconds_per_question());
            }
            let _ = writeln!(out, "{verdict}");
        }
        out
    }

    fn csv(&self) -> Option<Vec<Vec<String>>> {
        let mut rows =
            vec![["method", "reader", "k", "recall", "exact_match", "f1", "answered"].map(String::from).to_vec()];
        for s in &self.methods {
            for p in &s.points {
                rows.push(vec![
                    s.method.clone(),
                    s.reader.as_ref().map(|r| r.label()).unwrap_or_default(),
                    p.k.to_string(),
                    format!("{:.4}", p.recall),
                    p.exact_match.map(|v| format!("{v:.4}")).unwrap_or_default(),
                    p.f1.map(|v| format!("{v:.4}")).unwrap_or_default(),
                    p.answered.to_string(),
                ]);
            }
        }
        Some(rows)
    }
}

/// The answer set asked for: the file given, or the corpus's own.
fn answer_set(workbench: &Workbench, file: Option<&Path>) -> anyhow::Result<AnswerSet> {
    match file {
        Some(path) => {
            let mut report = LoadReport::default();
            let mut set = load_answers(path, &mut report)?;
            crate::corpus::locate_spans(&mut set, workbench.corpus(), &mut report);
            for w in report.warnings.iter().take(20) {
                eprintln!("warning: {w}");
            }
            Ok(set)
        }
        None => workbench.corpus().answers.clone().with_context(|| {
            format!(
                "--answers: the corpus {} ships no answers (answers.tsv or answers.jsonl beside it, or SQuAD's JSON); \
                 give --answers FILE",
                workbench.corpus().name
            )
        }),
    }
}

/// Run the methods over the question set and print each one's curve.
pub fn eval_answers(
    workbench: &Workbench,
    kinds: &[MethodKind],
    settings: &Settings,
    models: &ModelArgs,
    asked: &AnswersAsked<'_>,
    format: OutputFormat,
) -> anyhow::Result<Found> {
    if asked.ks.is_empty() || asked.ks.contains(&0) {
        bail!("-k: give the numbers of passages to read, each at least 1 (e.g. -k 1,3,5)");
    }
    let set = answer_set(workbench, asked.file)?;
    let progress = TermProgress::new();
    models.prepare(workbench, kinds, settings, true, &progress)?;
    let reader = match asked.reader {
        Some(name) => Some(models.reader(workbench, name.parse()?, &progress)?),
        None => None,
    };
    let mut studies = Vec::new();
    for &kind in kinds {
        let retriever = workbench.retriever(kind, settings)?;
        let study = answer_study(
            workbench,
            retriever.as_ref(),
            settings,
            &set,
            reader.as_deref(),
            asked.ks,
            asked.questions,
            &progress,
        )?;
        studies.push(study);
    }
    drop(progress);
    let verdicts = studies.iter().map(AnswerStudy::verdict).collect();
    let view = AnswersView {
        answers: set.source.clone(),
        questions: studies.first().map_or(0, |s| s.questions.len()),
        answerable: studies.first().map_or(0, |s| s.answerable),
        rules: crate::compare::reading::rules_for(&set),
        methods: studies,
        verdicts,
    };
    print(&view, format)?;
    Ok(Found::Some)
}
