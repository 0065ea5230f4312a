//! `ranklens sql` and `ranklens graph`: the corpus's table and knowledge graph.

use clap::Args;
use serde::Serialize;

use super::Found;
use super::args::{CorpusArgs, OutputFormat};
use super::printer::{Printable, print};
use super::views::{bindings_text, rows_text};
use crate::progress::NoProgress;
use crate::structured::SqlLimits;

/// `ranklens sql`
#[derive(Debug, Args)]
pub struct SqlArgs {
    #[command(flatten)]
    corpus: CorpusArgs,
    /// Output format.
    #[arg(long, value_enum, default_value = "table")]
    format: OutputFormat,
    /// One read-only SELECT statement over the corpus's tables; `-` reads it from standard input.
    #[arg(value_parser = super::args::text_or_stdin)]
    statement: String,
}

/// `ranklens graph`
#[derive(Debug, Args)]
pub struct GraphArgs {
    #[command(flatten)]
    corpus: CorpusArgs,
    /// Output format.
    #[arg(long, value_enum, default_value = "table")]
    format: OutputFormat,
    /// A pattern such as `desktop-app loads ?p . ?p depends_on libsodium`; `-` reads it from
    /// standard input.
    #[arg(value_parser = super::args::text_or_stdin)]
    pattern: String,
}

/// SQL rows or graph bindings: printed as JSON as they are, or as text by `text`.
#[derive(Serialize)]
#[serde(transparent)]
struct Answer<T: Serialize> {
    value: T,
    #[serde(skip)]
    text: fn(&T, &mut String),
}

impl<T: Serialize> Printable for Answer<T> {
    fn table(&self) -> String {
        let mut out = String::from("\n");
        (self.text)(&self.value, &mut out);
        out
    }
}

/// `ranklens sql`: run a read-only statement over the tables that came with the corpus.
pub fn sql(a: SqlArgs) -> anyhow::Result<Found> {
    let engine = a.corpus.engine(&NoProgress)?;
    let Some(db) = &engine.structured().sql else {
        anyhow::bail!("this corpus has no tables: put a .csv file next to the corpus");
    };
    let result = Answer { value: db.query(&a.statement, SqlLimits::default())?, text: rows_text };
    print(&result, a.format)?;
    Ok(if result.value.rows.is_empty() { Found::Nothing } else { Found::Some })
}

/// `ranklens graph`: run a join pattern over the corpus's knowledge graph.
pub fn graph(a: GraphArgs) -> anyhow::Result<Found> {
    let engine = a.corpus.engine(&NoProgress)?;
    let Some(g) = &engine.structured().graph else {
        anyhow::bail!("this corpus has no knowledge graph: put a graph.txt next to the corpus");
    };
    let result = Answer { value: g.query(&a.pattern)?, text: bindings_text };
    print(&result, a.format)?;
    Ok(if result.value.matches.is_empty() { Found::Nothing } else { Found::Some })
}
