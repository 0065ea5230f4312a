//! `ranklens adapter train`: a query adapter trained on a dataset split's judgements, saved to a
//! file, with its held-out nDCG@10 before and after (the dataset's test judgements, when they are
//! not the split it trained on).

use std::fmt::Write;
use std::path::PathBuf;

use anyhow::{Context, bail};
use clap::{Args, Subcommand};
use serde::Serialize;

use super::Found;
use super::args::FormatArg;
use super::args::RankArgs;
use super::model_args::ModelArgs;
use super::printer::{Printable, print};
use super::progress::TermProgress;
use crate::corpus::{self, LoadOptions};
use crate::eval::Qrels;
use crate::retrieve::MethodKind;
use crate::workbench::Workbench;

/// `ranklens adapter`
#[derive(Debug, Args)]
pub struct AdapterArgs {
    #[command(subcommand)]
    command: AdapterCommand,
}

#[derive(Debug, Subcommand)]
enum AdapterCommand {
    /// Train a query adapter on a BEIR dataset's judgements (qrels/SPLIT.tsv), save it, and say
    /// its nDCG@10 on the held-out test judgements before and after.
    Train(TrainArgs),
}

#[derive(Debug, Args)]
struct TrainArgs {
    /// A BEIR folder (corpus.jsonl, queries.jsonl, qrels/SPLIT.tsv).
    #[arg(long, value_name = "DIR|NAME", value_parser = super::args::dataset)]
    dataset: PathBuf,
    /// The judgements it trains on: qrels/SPLIT.tsv.
    #[arg(long, default_value = "train")]
    split: String,
    /// Where to write the adapter (safetensors).
    #[arg(long, value_name = "FILE")]
    out: PathBuf,
    /// Passes over the pairs.
    #[arg(long, default_value_t = 20)]
    epochs: usize,
    #[command(flatten)]
    rank: RankArgs,
    #[command(flatten)]
    models: ModelArgs,
    #[command(flatten)]
    format: FormatArg,
}

#[derive(Debug, Serialize)]
struct TrainView {
    adapter: String,
    model: String,
    split: String,
    questions: usize,
    pairs: usize,
    epochs: usize,
    loss: Vec<f64>,
    /// Seconds of the whole command before the held-out evaluation: loading, encoding (or reading
    /// the cache), training.
    seconds: f64,
    /// Seconds of the training alone.
    train_seconds: f64,
    /// nDCG@10 on the held-out judgements: (dense, dense + adapter), when there are some.
    #[serde(skip_serializing_if = "Option::is_none")]
    held_out: Option<HeldOut>,
}

#[derive(Debug, Serialize)]
struct HeldOut {
    judgements: String,
    questions: usize,
    dense: f64,
    adapted: f64,
}

impl Printable for TrainView {
    fn table(&self) -> String {
        let mut out = String::new();
        let _ = writeln!(
            out,
            "query adapter for {} written to {}: {} pairs of {} questions ({} split), {} epochs in {:.1} s of training \
             ({:.1} s with loading and encoding)",
            self.model,
            self.adapter,
            self.pairs,
            self.questions,
            self.split,
            self.epochs,
            self.train_seconds,
            self.seconds
        );
        if let (Some(first), Some(last)) = (self.loss.first(), self.loss.last()) {
            let _ = writeln!(out, "training loss {first:.4} → {last:.4}");
        }
        match &self.held_out {
            Some(h) => {
                let _ = writeln!(
                    out,
                    "held-out nDCG@10 ({}, {} questions): dense {:.4} → dense + adapter {:.4} ({:+.4})",
                    h.judgements,
                    h.questions,
                    h.dense,
                    h.adapted,
                    h.adapted - h.dense
                );
            }
            None => {
                let _ = writeln!(out, "no held-out judgements (qrels/test.tsv) to measure it on");
            }
        }
        out
    }
}

/// `ranklens adapter`
pub fn adapter(a: AdapterArgs) -> anyhow::Result<Found> {
    match a.command {
        AdapterCommand::Train(t) => train(t),
    }
}

fn train(a: TrainArgs) -> anyhow::Result<Found> {
    let started = std::time::Instant::now();
    let qrels_path = a.dataset.join("qrels").join(format!("{}.tsv", a.split));
    let (train_qrels, warnings) =
        Qrels::load(&qrels_path).with_context(|| format!("reading {}", qrels_path.display()))?;
    for w in warnings.iter().take(10) {
        eprintln!("warning: {w}");
    }
    let corpus = corpus::load(&a.dataset, LoadOptions::default())?;
    let test = corpus.qrels.clone().filter(|_| a.split != "test");
    // Every question of the folder: the corpus keeps only the test split's.
    let questions = corpus::beir_queries(&a.dataset)?;
    if !questions.iter().any(|q| train_qrels.judged(&q.id)) {
        bail!("{}: none of its judged questions is in the dataset's queries", qrels_path.display());
    }
    let settings = a.rank.settings(10)?;
    let engine = Workbench::new(corpus).with_workspace(crate::workspace_dir());
    let progress = TermProgress::new();
    a.models.prepare(&engine, &[MethodKind::Dense], &settings, true, &progress)?;
    let name = a.dataset.file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_default();
    let pairs = engine.adapter_pairs(&train_qrels, &questions, &progress)?;
    let model = engine.neural().dense_index.map(|i| i.model_id.clone()).unwrap_or_default();
    let knobs = crate::models::AdapterTraining {
        source: format!("{name} {} qrels", a.split),
        epochs: a.epochs.max(1),
        ..Default::default()
    };
    let training = std::time::Instant::now();
    let adapter = crate::models::QueryAdapter::train(&model, &pairs, knobs, &progress)?;
    let train_seconds = training.elapsed().as_secs_f64();
    adapter.save(&a.out)?;
    let seconds = started.elapsed().as_secs_f64();
    let held_out = match test {
        Some(test) => {
            let gain = crate::compare::adapter_gain(&engine, &settings, &a.out, &test, &questions, &progress)?;
            Some(HeldOut {
                judgements: "qrels/test.tsv".into(),
                questions: test.judgements.len(),
                dense: gain.dense,
                adapted: gain.adapted,
            })
        }
        None => None,
    };
    drop(progress);
    let view = TrainView {
        adapter: a.out.display().to_string(),
        model,
        split: a.split.clone(),
        questions: adapter.trained.questions,
        pairs: adapter.trained.pairs,
        epochs: adapter.trained.epochs,
        loss: adapter.trained.loss.clone(),
        seconds,
        train_seconds,
        held_out,
    };
    print(&view, a.format.value)?;
    Ok(Found::Some)
}
