//! `ranklens assignment new|grade`: one variant of a lesson's exercises per student, and the
//! offline grader.

use std::path::PathBuf;

use clap::{Args, Subcommand, ValueEnum};

use super::{CorpusArgs, Found};
use crate::lessons::assignment::{self, Key};
use crate::models::{ModelManager, Role};
use crate::progress::NoProgress;

/// `ranklens assignment`
#[derive(Debug, Args)]
pub struct AssignmentArgs {
    #[command(subcommand)]
    command: AssignmentCommand,
}

#[derive(Debug, Subcommand)]
enum AssignmentCommand {
    /// Write one variant per student: DIR/<student>/questions.json and handout.html, and DIR/key.json.
    New(NewArgs),
    /// Grade a folder of <student>.json answer files, or one CSV (student,question,answer).
    Grade(GradeArgs),
}

#[derive(Debug, Args)]
struct NewArgs {
    /// The lesson: tfidf, bm25, metrics, index, dense.
    #[arg(long)]
    lesson: String,
    /// A CSV whose first column is the student's name (a header row allowed).
    #[arg(long, value_name = "CSV")]
    roster: PathBuf,
    /// The seed: the same lesson, roster and seed give the same variants.
    #[arg(long)]
    seed: u64,
    /// Where to write the variants and the key.
    #[arg(long, value_name = "DIR")]
    out: PathBuf,
    /// The corpus the variants are drawn from (default: the bundled sample).
    #[command(flatten)]
    corpus: CorpusArgs,
}

/// The gradebook's format.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
enum GradeFormat {
    Table,
    Csv,
    Json,
}

#[derive(Debug, Args)]
struct GradeArgs {
    /// The key written by `assignment new`.
    #[arg(long, value_name = "FILE")]
    key: PathBuf,
    /// A folder of <student>.json files ({"answers": {"<question id>": value}}) or a CSV.
    #[arg(long, value_name = "PATH")]
    answers: PathBuf,
    /// Output format.
    #[arg(long, value_enum, default_value = "table")]
    format: GradeFormat,
}

/// `ranklens assignment`
pub fn assignment(a: AssignmentArgs) -> anyhow::Result<Found> {
    match a.command {
        AssignmentCommand::New(n) => {
            let roster = assignment::read_roster(&n.roster)?;
            let engine = n.corpus.engine(&NoProgress)?;
            if n.lesson == "dense" {
                engine.load_model(&ModelManager::from_env(), Role::Dense, true, &NoProgress)?;
                engine.build_neural(&NoProgress)?;
            }
            let made = assignment::make(&n.lesson, &roster, n.seed, &engine, &NoProgress)?;
            let written = made.write(&n.out)?;
            eprintln!(
                "wrote {} files for {} students: {}/<student>/questions.json, handout.html and {}",
                written.len(),
                roster.len(),
                n.out.display(),
                n.out.join("key.json").display()
            );
            Ok(Found::Some)
        }
        AssignmentCommand::Grade(g) => {
            let key = Key::read(&g.key)?;
            let answers = assignment::read_answers(&g.answers)?;
            let book = assignment::grade(&key, &answers)?;
            match g.format {
                GradeFormat::Table => print!("{}", book.to_table()),
                GradeFormat::Csv => print!("{}", book.to_csv()),
                GradeFormat::Json => println!("{}", serde_json::to_string_pretty(&book)?),
            }
            Ok(Found::Some)
        }
    }
}
