//! The command line: raw flags (clap) → one validated [`Settings`] → the core → a printer.
//!
//! Exit codes follow ripgrep: 0 when something was found, 1 when nothing was, 2 on error.

mod adapter;
mod agent;
mod args;
mod assignment;
mod bench;
mod bench_encode;
mod bench_llm;
mod bench_read;
mod bench_scale;
mod commands;
mod compare;
mod data;
mod embed;
mod eval;
mod eval_answers;
mod found;
mod graphrag;
mod index;
mod judge;
mod lesson;
mod llm;
mod model_args;
mod models;
mod page_hunt;
mod printer;
mod progress;
mod read;
mod report;
mod response;
mod search;
mod structured;
mod table;
mod views;
mod why_not;

pub use args::{CorpusArgs, MethodArg, OutputFormat, RankArgs, RunArgs, split_run_arg};
pub use commands::{Cli, CliCommand, run};
pub use found::Found;
pub use model_args::ModelArgs;
pub use printer::Printable;
