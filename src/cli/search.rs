//! `ranklens search`: one method, one question, every result explainable.

use std::fmt::Write;

use clap::Args;
use serde::Serialize;

use super::Found;
use super::args::FormatArg;
use super::args::QuestionArg;
use super::args::{CorpusArgs, MethodArg, ModelRerankArgs, OutputFormat, RankArgs};
use super::model_args::ModelArgs;
use super::printer::{Printable, print};
use super::progress::TermProgress;
use super::views::{HitView, explanation_text, hit_views, truncate};

/// `ranklens search`
#[derive(Debug, Args)]
pub struct SearchArgs {
    #[command(flatten)]
    corpus: CorpusArgs,
    #[command(flatten)]
    rank: RankArgs,
    #[command(flatten)]
    reorder: ModelRerankArgs,
    /// Method to rank with.
    #[arg(long, value_enum, default_value = "bm25")]
    method: MethodArg,
    /// Number of results.
    #[arg(short = 'k', long = "top", default_value_t = 10)]
    k: usize,
    /// Show why each result scored what it did.
    #[arg(long)]
    explain: bool,
    #[command(flatten)]
    models: ModelArgs,
    #[command(flatten)]
    format: FormatArg,
    #[command(flatten)]
    question: QuestionArg,
}

#[derive(Debug, Serialize)]
struct SearchView {
    question: String,
    method: String,
    analyzer: String,
    total_matches: usize,
    unranked: bool,
    /// The text a language model wrote for the method (a rewrite, a draft).
    #[serde(skip_serializing_if = "Option::is_none")]
    generated: Option<crate::retrieve::ModelText>,
    hits: Vec<HitView>,
    #[serde(skip)]
    explain: bool,
}

impl Printable for SearchView {
    fn table(&self) -> String {
        let mut out = String::new();
        let _ = writeln!(out, "{} · analyzer {} · {} matching", self.method, self.analyzer, self.total_matches);
        if self.unranked {
            let _ = writeln!(out, "(an unranked set, listed by document order)");
        }
        if let Some(g) = &self.generated {
            let _ = writeln!(out, "the model's {} (a guess, not evidence): {}", g.task, g.text);
            if let Some(c) = &g.caveat {
                let _ = writeln!(out, "({}: {c})", g.model);
            }
        }
        for h in &self.hits {
            let _ = writeln!(out, "{:>3}. {:<16} {:>9.4}  {}", h.rank, h.id, h.score, truncate(&h.title, 70));
            if let Some(e) = h.explanation.as_ref().filter(|_| self.explain) {
                explanation_text(e, &mut out);
            }
        }
        out
    }
}

/// `ranklens search`
pub fn search(a: SearchArgs) -> anyhow::Result<Found> {
    let mut settings = a.rank.settings(a.k)?;
    a.reorder.apply(&mut settings)?;
    let progress = TermProgress::new();
    let engine = a.corpus.workbench(&progress)?;
    a.models.prepare(&engine, &[a.method.kind()], &settings, true, &progress)?;
    let retriever = engine.retriever(a.method.kind(), &settings)?;
    // A model's column asks the model here, with its progress on the terminal.
    let prepared = retriever.prepare_with(&engine.query_context(&a.question.text, &settings), &progress)?;
    drop(progress);
    let ranking = prepared.search(settings.k)?;
    let explain = a.explain || a.format.value == OutputFormat::Json;
    let explainer = |doc| prepared.explain(doc);
    let view = SearchView {
        question: a.question.text.clone(),
        method: ranking.method.clone(),
        analyzer: settings.analyzer.to_string(),
        total_matches: ranking.total_matches,
        unranked: ranking.unranked,
        generated: ranking.generated.clone(),
        hits: hit_views(engine.corpus(), &ranking, explain.then_some(&explainer as _))?,
        explain: a.explain,
    };
    print(&view, a.format.value)?;
    Ok(if view.hits.is_empty() { Found::Nothing } else { Found::Some })
}
