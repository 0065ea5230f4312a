//! `ranklens graphrag`: build the graph a language model extracts from the corpus (GraphRAG),
//! compare it with the hand-built knowledge graph, and answer a question about the whole corpus
//! from its community summaries (global search). Local search is a method:
//! `ranklens search --method graphrag-local`.

use std::fmt::Write;

use anyhow::bail;
use clap::{Args, Subcommand};
use serde::Serialize;

use super::Found;
use super::args::CorpusArgs;
use super::args::FormatArg;
use super::args::QuestionArg;
use super::model_args::ModelArgs;
use super::printer::{Printable, print};
use super::progress::TermProgress;
use crate::graphrag::{self, BuildOptions, GlobalAnswer, GraphOverlap, ModelGraph};
use crate::progress::NoProgress;

/// `ranklens graphrag`
#[derive(Debug, Args)]
pub struct GraphragArgs {
    #[command(subcommand)]
    command: GraphragCommand,
}

#[derive(Debug, Subcommand)]
enum GraphragCommand {
    /// Extract entities and relations from each passage with the language model, find the graph's
    /// communities and summarise them; cached in the workspace per corpus, model and prompt.
    Build(BuildArgs),
    /// Answer a question about the whole corpus from the community summaries (map, then reduce).
    Global(GlobalArgs),
}

/// `ranklens graphrag build`
#[derive(Debug, Args)]
pub struct BuildArgs {
    #[command(flatten)]
    corpus: CorpusArgs,
    #[command(flatten)]
    models: ModelArgs,
    /// Read only the first N passages (the embedded model takes seconds a passage).
    #[arg(long, value_name = "N")]
    limit: Option<usize>,
    /// Skip the community summaries (global search needs them).
    #[arg(long)]
    no_summaries: bool,
    #[command(flatten)]
    format: FormatArg,
}

/// `ranklens graphrag global`
#[derive(Debug, Args)]
pub struct GlobalArgs {
    #[command(flatten)]
    corpus: CorpusArgs,
    #[command(flatten)]
    models: ModelArgs,
    #[command(flatten)]
    format: FormatArg,
    #[command(flatten)]
    question: QuestionArg,
}

/// What a build printed: the graph's figures, the overlap with the hand-built graph, and where it
/// is kept.
#[derive(Serialize)]
pub(super) struct GraphFigures {
    model: String,
    passages: usize,
    entities: usize,
    relations: usize,
    communities: usize,
    summaries: usize,
    skipped: usize,
    dropped_items: usize,
    seconds: f64,
    cached: bool,
    /// Replies that came from the workspace's store (passages read by an earlier build).
    stored_replies: usize,
    #[serde(skip_serializing_if = "Option::is_none")]
    file: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    file_bytes: Option<u64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    overlap: Option<GraphOverlap>,
    skipped_passages: Vec<crate::graphrag::Skipped>,
    /// Communities whose summary request failed.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    failed_summaries: Vec<crate::graphrag::FailedSummary>,
    largest_communities: Vec<CommunityView>,
}

#[derive(Serialize)]
struct CommunityView {
    id: usize,
    entities: Vec<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    summary: Option<String>,
}

impl GraphFigures {
    pub(super) fn of(
        graph: &ModelGraph,
        cached: bool,
        file: Option<&std::path::Path>,
        hand: Option<&crate::structured::KnowledgeGraph>,
    ) -> Self {
        let d = graph.data();
        GraphFigures {
            model: d.model.clone(),
            passages: d.passages,
            entities: d.nodes.len(),
            relations: d.edges.len(),
            communities: d.communities.iter().filter(|c| c.members.len() >= 2).count(),
            summaries: d.communities.iter().filter(|c| c.summary.is_some()).count(),
            skipped: d.skipped.len(),
            dropped_items: d.dropped_items,
            seconds: d.seconds,
            cached,
            stored_replies: d.stored_replies,
            file: file.map(|p| p.display().to_string()),
            file_bytes: file.and_then(|p| std::fs::metadata(p).ok()).map(|m| m.len()),
            overlap: hand.map(|h| graphrag::compare(graph, h)),
            skipped_passages: d.skipped.clone(),
            failed_summaries: d.failed_summaries.clone(),
            largest_communities: d
                .communities
                .iter()
                .filter(|c| c.members.len() >= 2)
                .take(5)
                .map(|c| CommunityView {
                    id: c.id,
                    entities: c.members.iter().filter_map(|&i| d.nodes.get(i)).map(|n| n.name.clone()).collect(),
                    summary: c.summary.clone(),
                })
                .collect(),
        }
    }
}

impl Printable for GraphFigures {
    fn table(&self) -> String {
        let mut out = String::new();
        let _ = writeln!(
            out,
            "{} read {} passages{}: {} entities, {} relations, {} communities of two or more ({} summarised)",
            self.model,
            self.passages,
            if self.cached { " (from the cache)" } else { "" },
            self.entities,
            self.relations,
            self.communities,
            self.summaries
        );
        let _ = writeln!(
            out,
            "{} replies skipped (not the schema's JSON), {} items of the others dropped (an entity without a name, a \
             relation without its ends or its name); {:.1} s",
            self.skipped, self.dropped_items, self.seconds
        );
        for s in self.skipped_passages.iter().take(5) {
            let _ = writeln!(out, "  skipped {}: {}", s.passage, s.reason);
        }
        for f in &self.failed_summaries {
            let _ = writeln!(out, "  {}", f.line());
        }
        if let (Some(f), Some(b)) = (&self.file, self.file_bytes) {
            let _ = writeln!(out, "kept in {f} ({b} bytes)");
        }
        for c in &self.largest_communities {
            let _ = writeln!(out, "\ncommunity {}: {}", c.id, c.entities.join(", "));
            if let Some(s) = &c.summary {
                let _ = writeln!(out, "  {s}");
            }
        }
        if let Some(o) = &self.overlap {
            let _ = writeln!(out, "\nagainst the hand-built knowledge graph: {}", o.summary());
        }
        out
    }
}

/// `ranklens graphrag`
pub fn graphrag(a: GraphragArgs) -> anyhow::Result<Found> {
    match a.command {
        GraphragCommand::Build(b) => build(b),
        GraphragCommand::Global(g) => global(g),
    }
}

fn build(a: BuildArgs) -> anyhow::Result<Found> {
    if a.limit == Some(0) {
        bail!("--limit: read at least one passage");
    }
    let progress = TermProgress::new();
    let engine = a.corpus.workbench(&progress)?;
    let generator = a.models.generator(&progress)?;
    let options = BuildOptions { limit: a.limit, summaries: !a.no_summaries };
    let (graph, cached) = engine.build_model_graph(generator.as_ref(), options, &progress)?;
    drop(progress);
    let passages = graph.data().passages;
    let file = engine.model_graph_path(generator.as_ref(), passages);
    let figures = GraphFigures::of(&graph, cached, file.as_deref(), engine.structured().graph.as_ref());
    print(&figures, a.format.value)?;
    Ok(if graph.nodes().is_empty() { Found::Nothing } else { Found::Some })
}

impl Printable for GlobalAnswer {
    fn table(&self) -> String {
        let mut out = String::new();
        for (i, n) in self.notes.iter().enumerate() {
            let used = self.used.iter().position(|c| *c == n.community).map(|p| format!("[{}] ", p + 1));
            let _ = writeln!(
                out,
                "{}community {} ({}{}): {}",
                used.unwrap_or_default(),
                n.community,
                n.score,
                if n.scored { "" } else { ", no score given" },
                n.text
            );
            if i >= 9 {
                break;
            }
        }
        let _ = writeln!(
            out,
            "\nanswer: {}",
            if self.answer.is_empty() { "(no community's summary helps)" } else { &self.answer }
        );
        let _ = writeln!(out, "({:.1} s)", self.seconds);
        out
    }
}

fn global(a: GlobalArgs) -> anyhow::Result<Found> {
    let progress = TermProgress::new();
    let engine = a.corpus.workbench(&progress)?;
    let Some(graph) = engine.model_graph() else {
        bail!("this corpus has no graph under the current prompts: run `ranklens graphrag build` first");
    };
    if !graph.data().communities.iter().any(|c| c.summary.is_some()) {
        bail!("the graph has no community summaries: build it again without --no-summaries");
    }
    let generator = a.models.generator(&progress)?;
    drop(progress);
    let answer = graphrag::global_answer(generator.as_ref(), &graph, &a.question.text, &NoProgress)?;
    print(&answer, a.format.value)?;
    Ok(if answer.answer.is_empty() { Found::Nothing } else { Found::Some })
}
