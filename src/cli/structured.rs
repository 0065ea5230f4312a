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
    #[arg(value_parser = super::args::text_or_stdin, required_unless_present = "ask", conflicts_with = "ask")]
    statement: Option<String>,
    /// Ask in words instead: the language model writes the statement from the tables' schema and
    /// three example rows; it runs only if it is one SELECT (on the read-only connection).
    #[arg(long, value_name = "QUESTION")]
    ask: Option<String>,
    #[command(flatten)]
    models: super::args::ModelArgs,
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

/// A question asked in words: the statement the model wrote and its rows, or why it did not run.
#[derive(Serialize)]
struct AskView {
    question: String,
    model: String,
    reply: String,
    sql: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    columns: Option<Vec<String>>,
    #[serde(skip_serializing_if = "Option::is_none")]
    rows: Option<Vec<Vec<crate::structured::SqlValue>>>,
    #[serde(skip_serializing_if = "Option::is_none")]
    passages: Option<Vec<String>>,
    #[serde(skip_serializing_if = "Option::is_none")]
    refused: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    error: Option<String>,
    #[serde(skip)]
    result: Option<crate::structured::SqlResult>,
}

impl Printable for AskView {
    fn table(&self) -> String {
        let mut out = format!("\n{} wrote:\n  {}\n", self.model, self.sql.replace('\n', "\n  "));
        if let Some(why) = &self.refused {
            out.push_str(&format!("\nnot run: {why}\n"));
        }
        if let Some(e) = &self.error {
            out.push_str(&format!("\nit failed: {e}\n"));
        }
        if let Some(r) = &self.result {
            rows_text(r, &mut out);
        }
        out
    }
}

/// `ranklens sql --ask`: the model writes the statement; it runs only if it is one SELECT.
fn ask(a: &SqlArgs, question: &str) -> anyhow::Result<Found> {
    use crate::generate::text_to_sql::{self, SqlOutcome};
    let engine = a.corpus.engine(&NoProgress)?;
    let Some(db) = &engine.structured().sql else {
        anyhow::bail!("this corpus has no tables: put a .csv file next to the corpus");
    };
    let progress = super::progress::TermProgress::new();
    let generator = a.models.generator(&progress)?;
    drop(progress);
    let asked = text_to_sql::write_sql(generator.as_ref(), db, question, &NoProgress)?;
    let mut view = AskView {
        question: asked.question.clone(),
        model: asked.model.clone(),
        reply: asked.reply.clone(),
        sql: asked.sql.clone(),
        columns: None,
        rows: None,
        passages: None,
        refused: None,
        error: None,
        result: None,
    };
    let found = match text_to_sql::run(db, &asked.sql, SqlLimits::default()) {
        SqlOutcome::Rows(r) => {
            let found = if r.rows.is_empty() { Found::Nothing } else { Found::Some };
            view.columns = Some(r.columns.clone());
            view.rows = Some(r.rows.clone());
            view.passages = Some(r.passages.clone());
            view.result = Some(r);
            found
        }
        SqlOutcome::Refused(why) => {
            view.refused = Some(why);
            Found::Nothing
        }
        SqlOutcome::Failed(e) => {
            view.error = Some(e);
            Found::Nothing
        }
    };
    print(&view, a.format)?;
    Ok(found)
}

/// `ranklens sql`: run a read-only statement over the tables that came with the corpus.
pub fn sql(a: SqlArgs) -> anyhow::Result<Found> {
    if let Some(q) = a.ask.clone() {
        return ask(&a, &q);
    }
    let engine = a.corpus.engine(&NoProgress)?;
    let Some(db) = &engine.structured().sql else {
        anyhow::bail!("this corpus has no tables: put a .csv file next to the corpus");
    };
    let statement = a.statement.as_deref().unwrap_or_default();
    let result = Answer { value: db.query(statement, SqlLimits::default())?, text: rows_text };
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
