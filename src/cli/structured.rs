//! `ranklens sql` and `ranklens graph`: the corpus's table and knowledge graph.

use clap::Args;
use serde::Serialize;

use super::Found;
use super::args::CorpusArgs;
use super::args::FormatArg;
use super::printer::{Printable, print};
use super::views::{bindings_text, rows_text};
use crate::progress::NoProgress;
use crate::structured::SqlLimits;

/// `ranklens sql`
#[derive(Debug, Args)]
pub struct SqlArgs {
    #[command(flatten)]
    corpus: CorpusArgs,
    #[command(flatten)]
    format: FormatArg,
    /// One read-only SELECT statement over the corpus's tables; `-` reads it from standard input.
    #[arg(
        value_parser = super::args::text_or_stdin,
        required_unless_present_any = ["ask", "gold"],
        conflicts_with_all = ["ask", "gold"]
    )]
    statement: Option<String>,
    /// Ask in words instead: the language model writes the statement from the tables' schema and
    /// three example rows; it runs only if it is one SELECT (on the read-only connection).
    #[arg(long, value_name = "QUESTION", conflicts_with = "gold")]
    ask: Option<String>,
    /// Measure text to SQL: ask the model every question of this file (`question<TAB>sql`, the
    /// statement written by hand) and count the questions whose rows equal the gold statement's
    /// (execution accuracy).
    #[arg(long, value_name = "FILE")]
    gold: Option<std::path::PathBuf>,
    #[command(flatten)]
    models: super::model_args::ModelArgs,
}

/// `ranklens graph`
#[derive(Debug, Args)]
pub struct GraphArgs {
    #[command(flatten)]
    corpus: CorpusArgs,
    #[command(flatten)]
    format: FormatArg,
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
    /// What the reply was held to while written, when it was.
    #[serde(skip_serializing_if = "Option::is_none")]
    constrained: Option<String>,
    /// The reply came from the workspace's store of replies.
    stored: bool,
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
        if let Some(c) = &self.constrained {
            out.push_str(&format!("(held to {c}{})\n", if self.stored { "; from the store of replies" } else { "" }));
        }
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
    let engine = a.corpus.workbench(&NoProgress)?;
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
        constrained: asked.constrained.clone(),
        stored: asked.stored,
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
    print(&view, a.format.value)?;
    Ok(found)
}

/// One question of a gold set, asked.
#[derive(Serialize)]
struct GoldItem {
    question: String,
    gold: String,
    sql: String,
    right: bool,
    /// Why it is wrong (refused, failed, or other rows); empty when right.
    #[serde(skip_serializing_if = "String::is_empty")]
    why: String,
    seconds: f64,
    stored: bool,
}

/// Execution accuracy over a gold set.
#[derive(Serialize)]
struct GoldView {
    model: String,
    /// What the replies were held to, when they were.
    #[serde(skip_serializing_if = "Option::is_none")]
    constrained: Option<String>,
    questions: usize,
    right: usize,
    accuracy: f64,
    seconds_per_question: f64,
    items: Vec<GoldItem>,
}

impl Printable for GoldView {
    fn table(&self) -> String {
        let mut out = format!(
            "\n{}: {} of {} questions answered with the gold rows (execution accuracy {:.3}), {:.1} s a question\n",
            self.model, self.right, self.questions, self.accuracy, self.seconds_per_question
        );
        if let Some(c) = &self.constrained {
            out.push_str(&format!("replies held to {c}\n"));
        }
        for i in &self.items {
            let mark = if i.right { "right" } else { "wrong" };
            out.push_str(&format!("\n{mark}  {}\n       {}\n", i.question, i.sql.replace('\n', " ")));
            if !i.right {
                out.push_str(&format!("       gold: {}\n       {}\n", i.gold, i.why));
            }
        }
        out
    }
}

/// `ranklens sql --gold FILE`: text to SQL measured by execution accuracy.
fn gold(a: &SqlArgs, path: &std::path::Path) -> anyhow::Result<Found> {
    use crate::generate::text_to_sql::{self, SqlOutcome};
    use crate::progress::Progress as _;
    let text = std::fs::read_to_string(path).map_err(|e| crate::Error::io(path, e))?;
    let set = text_to_sql::read_gold(path, &text)?;
    let engine = a.corpus.workbench(&NoProgress)?;
    let Some(db) = &engine.structured().sql else {
        anyhow::bail!("this corpus has no tables: put a .csv file next to the corpus");
    };
    let progress = super::progress::TermProgress::new();
    let generator = a.models.generator(&progress)?;
    let mut items = Vec::new();
    let mut constrained = None;
    for (n, g) in set.iter().enumerate() {
        progress.stage(&format!("question {} of {}", n + 1, set.len()), 0);
        let expected = db.query(&g.sql, SqlLimits::default()).map_err(|e| {
            anyhow::anyhow!("{}: the gold statement of {:?} does not run: {}", path.display(), g.question, e.report())
        })?;
        let started = std::time::Instant::now();
        let asked = text_to_sql::write_sql(generator.as_ref(), db, &g.question, &progress)?;
        let seconds = started.elapsed().as_secs_f64();
        constrained = constrained.or(asked.constrained.clone());
        let (right, why) = match text_to_sql::run(db, &asked.sql, SqlLimits::default()) {
            SqlOutcome::Rows(r) if text_to_sql::same_rows(&r, &expected) => (true, String::new()),
            SqlOutcome::Rows(r) => (false, format!("{} rows where the gold has {}", r.rows.len(), expected.rows.len())),
            SqlOutcome::Refused(why) => (false, format!("not run: {why}")),
            SqlOutcome::Failed(e) => (false, format!("it failed: {e}")),
        };
        items.push(GoldItem {
            question: g.question.clone(),
            gold: g.sql.clone(),
            sql: asked.sql,
            right,
            why,
            seconds,
            stored: asked.stored,
        });
    }
    drop(progress);
    let right = items.iter().filter(|i| i.right).count();
    let view = GoldView {
        model: generator.info().label(),
        constrained,
        questions: items.len(),
        right,
        accuracy: right as f64 / items.len().max(1) as f64,
        seconds_per_question: items.iter().map(|i| i.seconds).sum::<f64>() / items.len().max(1) as f64,
        items,
    };
    print(&view, a.format.value)?;
    Ok(if right > 0 { Found::Some } else { Found::Nothing })
}

/// `ranklens sql`: run a read-only statement over the tables that came with the corpus.
pub fn sql(a: SqlArgs) -> anyhow::Result<Found> {
    if let Some(q) = a.ask.clone() {
        return ask(&a, &q);
    }
    if let Some(path) = a.gold.clone() {
        return gold(&a, &path);
    }
    let engine = a.corpus.workbench(&NoProgress)?;
    let Some(db) = &engine.structured().sql else {
        anyhow::bail!("this corpus has no tables: put a .csv file next to the corpus");
    };
    let statement = a.statement.as_deref().unwrap_or_default();
    let result = Answer { value: db.query(statement, SqlLimits::default())?, text: rows_text };
    print(&result, a.format.value)?;
    Ok(if result.value.rows.is_empty() { Found::Nothing } else { Found::Some })
}

/// `ranklens graph`: run a join pattern over the corpus's knowledge graph.
pub fn graph(a: GraphArgs) -> anyhow::Result<Found> {
    let engine = a.corpus.workbench(&NoProgress)?;
    let Some(g) = &engine.structured().graph else {
        anyhow::bail!("this corpus has no knowledge graph: put a graph.txt next to the corpus");
    };
    let result = Answer { value: g.query(&a.pattern)?, text: bindings_text };
    print(&result, a.format.value)?;
    Ok(if result.value.matches.is_empty() { Found::Nothing } else { Found::Some })
}
