//! `ranklens compare`: every method side by side for one question.

use std::fmt::Write;

use clap::Args;
use serde::Serialize;

use super::Found;
use super::args::FormatArg;
use super::args::QuestionArg;
use super::args::{CorpusArgs, RankArgs, RunArgs};
use super::model_args::ModelArgs;
use super::printer::{Printable, print};
use super::progress::TermProgress;
use super::table::Table;
use super::views::{HitView, bindings_text, hit_views, rows_text};
use crate::compare::{Comparison, Outcome, OverlapMatrix, Plan};
use crate::progress::NoProgress;
use crate::retrieve::MethodKind;
use crate::workbench::Workbench;

/// `ranklens compare`
#[derive(Debug, Args)]
pub struct CompareArgs {
    #[command(flatten)]
    corpus: CorpusArgs,
    #[command(flatten)]
    rank: RankArgs,
    /// Results per method.
    #[arg(short = 'k', long = "top", default_value_t = 10)]
    k: usize,
    /// SQL to run next to the text methods (default: the statement tied to a shipped question).
    #[arg(long)]
    sql: Option<String>,
    /// Graph pattern to run next to the text methods (default: the one tied to a shipped question).
    #[arg(long)]
    graph: Option<String>,
    #[command(flatten)]
    run_files: RunArgs,
    #[command(flatten)]
    models: ModelArgs,
    #[command(flatten)]
    format: FormatArg,
    #[command(flatten)]
    question: QuestionArg,
}

#[derive(Debug, Serialize)]
struct ColumnView {
    method: String,
    kind: MethodKind,
    #[serde(skip_serializing_if = "Option::is_none")]
    total_matches: Option<usize>,
    #[serde(skip_serializing_if = "Option::is_none")]
    message: Option<String>,
    hits: Vec<HitView>,
    #[serde(skip_serializing_if = "Option::is_none")]
    rows: Option<crate::structured::SqlResult>,
    #[serde(skip_serializing_if = "Option::is_none")]
    bindings: Option<crate::structured::GraphResult>,
}

impl ColumnView {
    fn ranks_passages(&self) -> bool {
        !matches!(self.kind, MethodKind::Sql | MethodKind::Graph)
    }
}

#[derive(Debug, Serialize)]
struct CompareView {
    question: String,
    analyzer: String,
    k: usize,
    methods: Vec<ColumnView>,
    #[serde(skip)]
    overlap: OverlapMatrix,
}

fn compare_view(workbench: &Workbench, cmp: &Comparison, analyzer: String) -> anyhow::Result<CompareView> {
    let mut methods = Vec::new();
    for run in &cmp.runs {
        let mut column = ColumnView {
            method: run.label.clone(),
            kind: run.kind,
            total_matches: None,
            message: None,
            hits: Vec::new(),
            rows: None,
            bindings: None,
        };
        match &run.outcome {
            Outcome::Ranked(r) => {
                column.hits = hit_views(workbench.corpus(), r, None)?;
                column.total_matches = Some(r.total_matches);
            }
            Outcome::Rows(r) => column.rows = Some(r.clone()),
            Outcome::Bindings(b) => column.bindings = Some(b.clone()),
            Outcome::Unavailable { message } | Outcome::Failed { message } => column.message = Some(message.clone()),
        }
        methods.push(column);
    }
    Ok(CompareView { question: cmp.question.clone(), analyzer, k: cmp.k, methods, overlap: cmp.overlap() })
}

impl Printable for CompareView {
    fn table(&self) -> String {
        let mut out = String::new();
        let _ = writeln!(out, "{} · analyzer {}", super::views::truncate(&self.question, 200), self.analyzer);
        for m in self.methods.iter().filter(|m| m.ranks_passages()) {
            let total = m.total_matches.map(|t| format!("{t} matching")).unwrap_or_default();
            match &m.message {
                Some(msg) => {
                    let _ = writeln!(
                        out,
                        "  [{}] unavailable: {}",
                        short_label(&m.method),
                        msg.lines().next().unwrap_or("")
                    );
                }
                None => {
                    let _ = writeln!(out, "  [{}] {} {}", short_label(&m.method), m.method, total);
                }
            }
        }
        let text_methods: Vec<&ColumnView> =
            self.methods.iter().filter(|m| m.ranks_passages() && m.message.is_none()).collect();
        let mut header = vec!["rank".to_string()];
        header.extend(text_methods.iter().map(|m| short_label(&m.method)));
        let mut table = Table::new(header, 99);
        for rank in 0..self.k {
            let mut row = vec![(rank + 1).to_string()];
            for m in &text_methods {
                row.push(m.hits.get(rank).map(|h| format!("{} {:.3}", h.id, h.score)).unwrap_or_default());
            }
            if row.iter().skip(1).all(String::is_empty) {
                break;
            }
            table.row(row);
        }
        out.push_str(&table.render());
        for m in self.methods.iter().filter(|m| !m.ranks_passages()) {
            out.push('\n');
            if let Some(r) = &m.rows {
                rows_text(r, &mut out);
            } else if let Some(b) = &m.bindings {
                bindings_text(b, &mut out);
            } else if let Some(msg) = &m.message {
                let _ = writeln!(out, "{}: {msg}", m.method);
            }
        }
        let overlap = &self.overlap;
        if overlap.labels.len() > 1 {
            let _ = writeln!(out, "\nRBO (p = 0.9) between ranked methods:");
            let mut header = vec![String::new()];
            header.extend(overlap.labels.iter().map(|l| short_label(l)));
            let mut t = Table::new(header, 1);
            for (i, l) in overlap.labels.iter().enumerate() {
                let mut row = vec![short_label(l)];
                row.extend((0..overlap.labels.len()).map(|j| format!("{:.2}", overlap.get(&overlap.rbo, i, j))));
                t.row(row);
            }
            out.push_str(&t.render());
        }
        out
    }

    fn csv(&self) -> Option<Vec<Vec<String>>> {
        let mut rows = vec![["question", "method", "rank", "id", "score"].map(String::from).to_vec()];
        for m in &self.methods {
            for h in &m.hits {
                rows.push(vec![
                    self.question.clone(),
                    m.method.clone(),
                    h.rank.to_string(),
                    h.id.clone(),
                    format!("{:.6}", h.score),
                ]);
            }
        }
        Some(rows)
    }
}

/// `BM25 (okapi, k1=1.5, b=0.75)` → `okapi`; `TF-IDF (textbook)` → `tfidf-textbook`.
fn short_label(label: &str) -> String {
    let inner = label.split_once('(').map(|(_, r)| r.trim_end_matches(')')).unwrap_or("");
    let variant = inner.split(',').next().unwrap_or("").trim();
    if label.starts_with("TF-IDF") {
        format!("tfidf-{variant}")
    } else if label.starts_with("BM25") {
        variant.to_string()
    } else {
        label.split(' ').next().unwrap_or(label).to_lowercase()
    }
}

/// `ranklens compare`
pub fn compare(a: CompareArgs) -> anyhow::Result<Found> {
    let settings = a.rank.settings(a.k)?;
    let progress = TermProgress::new();
    let engine = a.corpus.workbench(&progress)?;
    let runs = a.run_files.load(Some(engine.corpus()))?;
    engine.index(settings.analyzer, &progress)?;
    a.models.prepare(&engine, &MethodKind::NEURAL, &settings, a.models.fetch_models, &progress)?;
    drop(progress);
    let templates = engine.corpus().templates_for(&a.question.text);
    let sql = a.sql.clone().or(templates.sql);
    let graph = a.graph.clone().or(templates.graph);
    let plan = Plan::every_variant(&settings, sql.as_deref(), graph.as_deref())
        .with_structured_sources(&engine)
        .with_externals(&runs);
    let run = plan.run(&engine, &engine.query_context(&a.question.text, &settings), &NoProgress)?;
    let view = compare_view(&engine, &run.comparison, settings.analyzer.to_string())?;
    let found = view.methods.iter().any(|m| !m.hits.is_empty() || m.rows.as_ref().is_some_and(|r| !r.rows.is_empty()));
    print(&view, a.format.value)?;
    Ok(if found { Found::Some } else { Found::Nothing })
}
