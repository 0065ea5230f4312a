//! The command line: raw flags (clap) → one validated [`Settings`] → the core → a printer.
//!
//! Exit codes follow ripgrep: 0 when something was found, 1 when nothing was, 2 on error.

mod args;
mod commands;
mod table;

use std::process::ExitCode;

use clap::{Parser, Subcommand};

pub use args::{CorpusArgs, OutputFormat, RankArgs, sample_corpus_dir};

/// RankLens: one question, many retrieval methods, every score explained.
#[derive(Debug, Parser)]
#[command(name = "ranklens", version, about, long_about = None)]
pub struct Cli {
    /// What to do; without a command the desktop app opens.
    #[command(subcommand)]
    pub command: Option<Command>,
    /// Desktop app: open this corpus (folder, .jsonl/.csv/.tsv or BEIR folder) instead of the last one.
    #[arg(long, value_name = "PATH")]
    pub open: Option<std::path::PathBuf>,
    /// Desktop app: cut folders into one passage per paragraph.
    #[arg(long)]
    pub paragraphs: bool,
}

/// The subcommands.
#[derive(Debug, Subcommand)]
pub enum Command {
    /// Rank a corpus for a question with one method (and explain it).
    Search(commands::SearchArgs),
    /// Every lexical method side by side for one question.
    Compare(commands::CompareArgs),
    /// Evaluate methods over a dataset's queries and judgements (BEIR folder).
    Eval(commands::EvalArgs),
    /// Build an on-disk index that `--corpus DIR` can reopen later.
    Index(commands::IndexArgs),
    /// Measure indexing time and queries per second.
    Bench(commands::BenchArgs),
    /// Encoding speed of the dense and SPLADE models, and the late-interaction index's memory.
    BenchEncode(commands::BenchEncodeArgs),
    /// Run a read-only SQL statement over the corpus's tables.
    Sql(commands::SqlArgs),
    /// Run a knowledge-graph pattern (joins with ?variables).
    Graph(commands::GraphArgs),
    /// List or fetch the neural models.
    Models(commands::ModelsArgs),
    /// Write a shareable report (HTML, Markdown, JSON or CSV) of a question or a question set.
    Report(commands::ReportArgs),
    /// Print a lesson (tfidf, bm25, index, reader, mismatch, fusion, structure, chunking, entities).
    Lesson(commands::LessonArgs),
}

/// Outcome of a command: found something or not.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Found {
    /// Results were printed.
    Some,
    /// Nothing matched.
    Nothing,
}

/// Run a subcommand and turn the outcome into an exit code.
pub fn run(command: Command) -> ExitCode {
    let result = match command {
        Command::Search(a) => commands::search(a),
        Command::Compare(a) => commands::compare(a),
        Command::Eval(a) => commands::eval(a),
        Command::Index(a) => commands::index(a),
        Command::Bench(a) => commands::bench(a),
        Command::BenchEncode(a) => commands::bench_encode(a),
        Command::Sql(a) => commands::sql(a),
        Command::Graph(a) => commands::graph(a),
        Command::Models(a) => commands::models(a),
        Command::Report(a) => commands::report(a),
        Command::Lesson(a) => commands::lesson(a),
    };
    match result {
        Ok(Found::Some) => ExitCode::SUCCESS,
        Ok(Found::Nothing) => ExitCode::from(1),
        Err(e) => {
            eprintln!("error: {e:#}");
            ExitCode::from(2)
        }
    }
}
