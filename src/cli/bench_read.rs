//! `ranklens bench-read`: what a reader costs, per passage and per question: the corpus's questions
//! with answers, each read from a method's top k, timed. The pairs read are written out
//! (`--pairs-out`) so `scripts/bench-read.sh` can time `transformers` reading the very same ones
//! with the same weights in the same run.

use std::fmt::Write;
use std::path::PathBuf;
use std::time::Instant;

use anyhow::{Context, bail};
use clap::Args;
use serde::Serialize;

use super::Found;
use super::args::FormatArg;
use super::args::{CorpusArgs, MethodArg, RankArgs};
use super::model_args::ModelArgs;
use super::printer::{Printable, print};
use super::progress::TermProgress;
use crate::compare::reading::top_passages;
use crate::progress::NoProgress;

/// `ranklens bench-read`
#[derive(Debug, Args)]
pub struct BenchReadArgs {
    #[command(flatten)]
    corpus: CorpusArgs,
    #[command(flatten)]
    rank: RankArgs,
    /// The method whose top passages are read.
    #[arg(long, value_enum, default_value = "dense")]
    method: MethodArg,
    /// Passages read a question.
    #[arg(short = 'k', long = "top", default_value_t = 5)]
    k: usize,
    /// The reader: span, generator or toy.
    #[arg(long, value_name = "span|generator|toy", default_value = "span")]
    reader: String,
    /// Only the first N questions.
    #[arg(long, value_name = "N")]
    questions: Option<usize>,
    /// Write every (question, passage) pair read, as JSON, for the reference.
    #[arg(long, value_name = "FILE")]
    pairs_out: Option<PathBuf>,
    #[command(flatten)]
    models: ModelArgs,
    #[command(flatten)]
    format: FormatArg,
}

#[derive(Debug, Serialize)]
struct ReadBench {
    cpu: String,
    threads: usize,
    reader: String,
    method: String,
    questions: usize,
    passages: usize,
    k: usize,
    /// Seconds reading took in all (retrieval left out).
    seconds: f64,
    per_question_secs: f64,
    per_passage_secs: f64,
}

impl Printable for ReadBench {
    fn table(&self) -> String {
        let mut out = String::new();
        let _ = writeln!(out, "{} · {} threads", self.cpu, self.threads);
        let _ = writeln!(out, "{} reading {}'s top {}", self.reader, self.method, self.k);
        let _ = writeln!(
            out,
            "{} questions, {} passages: {:.3} s a question, {:.4} s a passage ({:.2} s in all)",
            self.questions, self.passages, self.per_question_secs, self.per_passage_secs, self.seconds
        );
        out
    }
}

#[derive(Serialize)]
struct Pair<'a> {
    question: &'a str,
    passage: &'a str,
}

/// `ranklens bench-read`
pub fn bench_read(a: BenchReadArgs) -> anyhow::Result<Found> {
    if a.k == 0 {
        bail!("-k: read at least one passage");
    }
    let settings = a.rank.settings(a.k)?;
    let progress = TermProgress::new();
    let engine = a.corpus.workbench(&progress)?;
    let Some(answers) = engine.corpus().answers.clone() else {
        bail!("the corpus ships no questions with answers (answers.tsv beside it, or SQuAD's JSON)")
    };
    a.models.prepare(&engine, &[a.method.kind()], &settings, true, &progress)?;
    let reader = a.models.reader(&engine, a.reader.parse()?, &progress)?;
    let retriever = engine.retriever(a.method.kind(), &settings)?;
    drop(progress);
    let questions: Vec<_> = answers.questions.iter().take(a.questions.unwrap_or(usize::MAX)).collect();
    // Retrieval first, untimed: only reading is measured.
    let mut read: Vec<(String, Vec<(String, String)>)> = Vec::new();
    for q in &questions {
        let ranking = retriever.search(&engine.query_context(&q.text, &settings), a.k)?;
        read.push((q.text.clone(), top_passages(engine.corpus(), &ranking, a.k)));
    }
    let started = Instant::now();
    for (question, passages) in &read {
        crate::read::read(reader.as_ref(), question, &retriever.label(), passages, &NoProgress)?;
    }
    let seconds = started.elapsed().as_secs_f64();
    let passages: usize = read.iter().map(|(_, p)| p.len()).sum();
    if let Some(path) = &a.pairs_out {
        let pairs: Vec<Pair<'_>> = read
            .iter()
            .flat_map(|(q, ps)| ps.iter().map(move |(_, text)| Pair { question: q, passage: text }))
            .collect();
        let json = serde_json::to_string(&pairs)?;
        crate::fsutil::write_atomic(path, json.as_bytes()).with_context(|| format!("writing {}", path.display()))?;
    }
    let report = ReadBench {
        cpu: crate::models::auto_precision::cpu_model(),
        threads: rayon::current_num_threads(),
        reader: reader.info().label(),
        method: retriever.label(),
        questions: read.len(),
        passages,
        k: a.k,
        seconds,
        per_question_secs: seconds / read.len().max(1) as f64,
        per_passage_secs: seconds / passages.max(1) as f64,
    };
    print(&report, a.format.value)?;
    Ok(Found::Some)
}
