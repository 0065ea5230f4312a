//! `ranklens read`: retrieve, then read — a method's top k passages read for the answer span.

use std::fmt::Write;

use anyhow::bail;
use clap::Args;
use serde::Serialize;

use super::Found;
use super::args::FormatArg;
use super::args::QuestionArg;
use super::args::{CorpusArgs, MethodArg, OutputFormat, RankArgs};
use super::model_args::ModelArgs;
use super::printer::{Printable, print};
use super::progress::TermProgress;
use super::views::truncate;
use crate::compare::read_ranking;
use crate::eval::answers::{Rules, exact_match, f1};
use crate::read::{LeftOut, ReaderKind, Readout};

/// `ranklens read`
#[derive(Debug, Args)]
pub struct ReadArgs {
    #[command(flatten)]
    corpus: CorpusArgs,
    #[command(flatten)]
    rank: RankArgs,
    /// The method whose top passages are read.
    #[arg(long, value_enum, default_value = "bm25")]
    method: MethodArg,
    /// Passages read.
    #[arg(short = 'k', long = "top", default_value_t = 5)]
    k: usize,
    /// The reader: span (a trained extractive model), generator (the language model held to a
    /// span of a passage), or toy (the anchor-and-boundary extractor). Default: span when its model
    /// is here, else generator.
    #[arg(long, value_name = "span|generator|toy")]
    reader: Option<String>,
    /// Also read the question again with each passage left out in turn: which passages the answer
    /// depends on, and which pull it away.
    #[arg(long)]
    leave_one_out: bool,
    #[command(flatten)]
    models: ModelArgs,
    #[command(flatten)]
    format: FormatArg,
    #[command(flatten)]
    question: QuestionArg,
}

#[derive(Debug, Serialize)]
struct PassageView {
    rank: usize,
    passage: String,
    /// Its best span (null when the reader found none).
    span: Option<String>,
    start: Option<usize>,
    end: Option<usize>,
    score: Option<f64>,
    no_answer_score: Option<f64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    note: Option<String>,
}

#[derive(Debug, Serialize)]
struct GoldView {
    answers: Vec<String>,
    exact_match: f64,
    f1: f64,
}

#[derive(Debug, Serialize)]
struct ReadView {
    question: String,
    reader: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    reader_note: Option<String>,
    method: String,
    /// The answer; null when the reader declines.
    answer: Option<String>,
    /// The passage it came from.
    passage: Option<String>,
    /// Character offsets into that passage's text: `text[start..end] == answer`.
    start: Option<usize>,
    end: Option<usize>,
    score: Option<f64>,
    no_answer_score: Option<f64>,
    passages: Vec<PassageView>,
    /// The question's gold answers, when the corpus ships them, and this answer's scores.
    #[serde(skip_serializing_if = "Option::is_none")]
    gold: Option<GoldView>,
    #[serde(skip_serializing_if = "Vec::is_empty")]
    left_out: Vec<LeftOut>,
    seconds: f64,
}

fn number(x: Option<f64>) -> String {
    x.map_or("—".to_string(), |v| format!("{v:.3}"))
}

impl Printable for ReadView {
    fn table(&self) -> String {
        let mut out = String::new();
        match &self.answer {
            Some(a) => {
                let _ = writeln!(
                    out,
                    "Answer: {a}\n  from {} (characters {}–{}) · score {} · no-answer {}",
                    self.passage.as_deref().unwrap_or("?"),
                    self.start.unwrap_or(0),
                    self.end.unwrap_or(0),
                    number(self.score),
                    number(self.no_answer_score)
                );
            }
            None => {
                let _ = writeln!(
                    out,
                    "No answer: the reader declines (no-answer {} beats every span read)",
                    number(self.no_answer_score)
                );
            }
        }
        if let Some(g) = &self.gold {
            let gold =
                if g.answers.is_empty() { "none (the corpus cannot answer it)".into() } else { g.answers.join(" | ") };
            let _ = writeln!(out, "  gold: {gold} · exact match {:.0} · F1 {:.2}", g.exact_match, g.f1);
        }
        let _ = writeln!(out, "\n— {} · passages from {} · {:.1} s", self.reader, self.method, self.seconds);
        if let Some(n) = &self.reader_note {
            let _ = writeln!(out, "  ({n})");
        }
        for p in &self.passages {
            let span = p.span.as_deref().map_or("(no span)".to_string(), |s| format!("“{}”", truncate(s, 50)));
            let _ = writeln!(
                out,
                "{:>3}. {:<16} {:<54} score {:>8}  no-answer {:>8}",
                p.rank,
                truncate(&p.passage, 16),
                span,
                number(p.score),
                number(p.no_answer_score)
            );
            if let Some(n) = &p.note {
                let _ = writeln!(out, "     note: {n}");
            }
        }
        if !self.left_out.is_empty() {
            out.push_str("\nEach passage left out in turn:\n");
            for l in &self.left_out {
                let answer =
                    l.decision.answer.as_ref().map_or("no answer".to_string(), |a| format!("“{}”", a.span.text));
                let verdict = match (l.changed, l.right_without) {
                    (false, _) => "the answer does not change".to_string(),
                    (true, Some(true)) => {
                        format!("the answer becomes {answer}, which is right: it pulled the answer away")
                    }
                    (true, Some(false)) => format!("the answer becomes {answer}: the answer depends on it"),
                    (true, None) => format!("the answer becomes {answer}"),
                };
                let _ = writeln!(out, "  without {} (rank {}): {verdict}", l.passage, l.rank);
            }
        }
        out
    }
}

/// The reader a command line asks for: `--reader`, else span when its model is here, else the
/// language model.
pub fn reader_kind(name: Option<&str>, models: &ModelArgs) -> anyhow::Result<ReaderKind> {
    match name {
        Some(n) => Ok(n.parse()?),
        None => {
            let manager = models.manager();
            let here = manager.resolve(crate::models::Role::Reader, false, &crate::progress::NoProgress).is_ok();
            Ok(if here { ReaderKind::Span } else { ReaderKind::Generator })
        }
    }
}

/// What the view shows of a reading.
fn view(reading: &Readout, gold: Option<(&[String], Rules)>, left_out: Vec<LeftOut>) -> ReadView {
    let answer = reading.decision.answer.as_ref();
    let passages = reading
        .passages
        .iter()
        .map(|p| PassageView {
            rank: p.rank,
            passage: p.passage.clone(),
            span: p.best.as_ref().map(|s| s.text.clone()),
            start: p.best.as_ref().map(|s| s.start),
            end: p.best.as_ref().map(|s| s.end),
            score: p.best.as_ref().and_then(|s| s.score),
            no_answer_score: p.no_answer_score,
            note: p.note.clone(),
        })
        .collect();
    ReadView {
        question: reading.question.clone(),
        reader: reading.reader.label(),
        reader_note: reading.reader.note.clone(),
        method: reading.method.clone(),
        answer: answer.map(|a| a.span.text.clone()),
        passage: answer.map(|a| a.passage.clone()),
        start: answer.map(|a| a.span.start),
        end: answer.map(|a| a.span.end),
        score: answer.and_then(|a| a.span.score),
        no_answer_score: reading.decision.no_answer_score,
        passages,
        gold: gold.map(|(g, rules)| GoldView {
            answers: g.to_vec(),
            exact_match: 100.0 * exact_match(g, reading.decision.text(), rules),
            f1: 100.0 * f1(g, reading.decision.text(), rules),
        }),
        left_out,
        seconds: reading.seconds,
    }
}

/// `ranklens read`
pub fn read(a: ReadArgs) -> anyhow::Result<Found> {
    if a.k == 0 {
        bail!("-k: read at least one passage");
    }
    let settings = a.rank.settings(a.k)?;
    let progress = TermProgress::new();
    let engine = a.corpus.workbench(&progress)?;
    a.models.prepare(&engine, &[a.method.kind()], &settings, true, &progress)?;
    let kind = reader_kind(a.reader.as_deref(), &a.models)?;
    let reader = a.models.reader(&engine, kind, &progress)?;
    let model = reader.info().model;
    eprintln!("{}", crate::compare::cost::reader_cost(kind, a.k, model.split(" (").next()));
    let retriever = engine.retriever(a.method.kind(), &settings)?;
    let prepared = retriever.prepare_with(&engine.query_context(&a.question.text, &settings), &progress)?;
    let ranking = prepared.search(a.k)?;
    let reading = read_ranking(engine.corpus(), &ranking, &a.question.text, a.k, reader.as_ref(), &progress)?;
    drop(progress);
    let corpus = engine.corpus();
    let gold = corpus.answers.as_ref().and_then(|set| {
        set.gold_for_text(&a.question.text)
            .map(|(_, g)| (g.answers.as_slice(), crate::compare::reading::rules_for(set)))
    });
    let left_out = if a.leave_one_out || a.format.value == OutputFormat::Json {
        reading.leave_one_out(gold.map(|(g, _)| g))
    } else {
        Vec::new()
    };
    let v = view(&reading, gold, left_out);
    print(&v, a.format.value)?;
    Ok(if v.answer.is_some() { Found::Some } else { Found::Nothing })
}
