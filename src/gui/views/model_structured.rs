//! The language model beside the structured sources, in the Structured view: a question asked in
//! words becomes one SELECT the user sees and may edit before it runs (and a statement that is not
//! one read is refused, with why); the graph the model extracts from the passages (GraphRAG),
//! built in the background, set against the hand-built graph, with its communities' summaries.

use egui::{RichText, Ui};

use crate::generate::text_to_sql::{self, SqlOutcome};
use crate::graphrag::ModelGraph;
use crate::gui::command::{ModelToolCommand, ShellCommand};
use crate::gui::context::ViewContext;
use crate::gui::jobs::{JobKind, WorkItem};
use crate::gui::theme;
use crate::gui::widgets::{ellipsis, labelled_code_ui, labelled_text_ui};

use super::graph_drawing::{GraphDrawing, GraphPair, Picked, drawing_ui};

/// Ask the tables in words: the model writes the SELECT, the user reads it, then runs it.
pub fn ask_sql_ui(ui: &mut Ui, ctx: &ViewContext<'_>, question: &mut String) {
    ui.add_space(8.0);
    ui.label(RichText::new("Ask in words (text to SQL)").strong());
    ui.label(
        RichText::new(
            "The language model sees the tables' schema and three rows of each and writes one statement. It is \
             shown here first; it runs only as one SELECT, on the read-only connection.",
        )
        .small()
        .weak(),
    );
    if question.is_empty() {
        question.clone_from(&ctx.data.persisted.question);
    }
    ui.horizontal(|ui| {
        labelled_text_ui(ui, "Question for the tables", question, 320.0);
        let busy = ctx.jobs.sql_ask.is_running();
        if ui.add_enabled(!busy, egui::Button::new("Write SQL")).clicked() {
            ctx.send(ModelToolCommand::WriteSql(question.clone()));
        }
        if busy {
            crate::gui::widgets::spinner_ui(ui);
            if ui.button("Stop").clicked() {
                ctx.send(ShellCommand::Cancel(JobKind::SqlAsk));
            }
        }
    });
    if let Some(e) = ctx.jobs.sql_ask.failure() {
        ui.colored_label(theme::ERROR, e.report());
    }
    let Some(asked) = ctx.jobs.sql_ask.ready() else { return };
    ui.label(RichText::new(format!("{} wrote (edit it before it runs):", asked.model)).small());
    let how = match (&asked.constrained, asked.stored) {
        (Some(c), true) => format!("held to {c} while it was written; from the store of replies"),
        (Some(c), false) => format!("held to {c} while it was written"),
        (None, true) => "from the store of replies (read as the model wrote it)".to_string(),
        (None, false) => "read as the model wrote it: nothing held it to a statement".to_string(),
    };
    ui.label(RichText::new(how).small().weak());
    let mut sql = ctx.data.model_sql.clone();
    if labelled_code_ui(ui, "The model's SQL", &mut sql, 3).changed() {
        ctx.send(ModelToolCommand::EditModelSql(sql.clone()));
    }
    // Said before it runs: what the check will refuse.
    if let Err(why) = text_to_sql::check(&sql) {
        ui.colored_label(theme::WARNING, format!("It will not run: {why}."));
    }
    if asked.reply.trim() != asked.sql.trim() {
        ui.label(RichText::new(format!("its whole reply: {}", ellipsis(asked.reply.trim(), 200))).small().weak());
    }
    ui.horizontal(|ui| {
        if ui.button("Run the model's SQL").clicked() {
            ctx.send(ModelToolCommand::RunModelSql);
        }
        if ctx.jobs.sql_model.is_running() {
            crate::gui::widgets::spinner_ui(ui);
        }
    });
    if let Some(e) = ctx.jobs.sql_model.failure() {
        ui.colored_label(theme::ERROR, e.report());
    }
    let Some((ran, outcome)) = ctx.jobs.sql_model.ready() else { return };
    if ran.trim() != sql.trim() {
        ui.label(RichText::new("(the result below is of the statement before your edit)").small().weak());
    }
    match outcome {
        SqlOutcome::Rows(r) => {
            ui.label(RichText::new(format!("{} row(s)", r.rows.len())).strong());
            egui::ScrollArea::both().id_salt("model-sql-rows").max_height(200.0).show(ui, |ui| {
                egui::Grid::new("model-sql-table").striped(true).show(ui, |ui| {
                    for c in &r.columns {
                        ui.label(RichText::new(c).strong());
                    }
                    ui.end_row();
                    for row in &r.rows {
                        for v in row {
                            ui.label(ellipsis(&v.to_string(), 60));
                        }
                        ui.end_row();
                    }
                });
            });
        }
        SqlOutcome::Refused(why) => {
            ui.colored_label(theme::WARNING, format!("Not run, and nothing changed: {why}"));
        }
        SqlOutcome::Failed(why) => {
            ui.colored_label(theme::ERROR, format!("It failed: {why}"));
        }
    }
}

/// The model's graph as the Structured view shows it: the graph, both drawings, and what is
/// picked in the model's.
pub struct GraphShown<'a> {
    /// The model's graph, when there is one.
    pub graph: Option<&'a ModelGraph>,
    /// Both graphs drawn and compared.
    pub pair: &'a GraphPair,
    /// What is picked in the model's drawing.
    pub picked: &'a mut Option<Picked>,
}

/// The model's graph: build it (with progress and Stop), its figures, its drawing beside the
/// hand-built graph's (what both hold marked in both), and a click's passage and reply.
pub fn model_graph_ui(
    ui: &mut Ui,
    ctx: &ViewContext<'_>,
    workbench: &crate::workbench::Workbench,
    shown: GraphShown<'_>,
    limit: &mut usize,
    global_question: &mut String,
) {
    ui.add_space(8.0);
    ui.label(RichText::new("The language model's graph (GraphRAG)").strong());
    ui.label(
        RichText::new(
            "The model reads each passage and writes its entities and relations as JSON; a reply that is not that \
             JSON is skipped and counted. Each link keeps the passage it came from. Communities are found by \
             modularity and summarised by the model. Kept in the workspace per corpus, model and prompt.",
        )
        .small()
        .weak(),
    );
    let job = &ctx.jobs.graph_build;
    ui.horizontal(|ui| {
        let l = ui.label("passages to read");
        ui.add(egui::DragValue::new(limit).range(1..=workbench.corpus().len().max(1))).labelled_by(l.id);
        if job.is_running() {
            if ui.button("Stop").clicked() {
                ctx.send(ShellCommand::Cancel(JobKind::GraphBuild));
            }
        } else if ui.button("Build the model's graph").clicked() {
            ctx.send(ModelToolCommand::BuildGraph(Some(*limit)));
        }
    });
    if let Some(view) = job.running() {
        let p = &view.progress;
        ui.add(
            egui::ProgressBar::new(p.fraction())
                .text(format!("{}: {} of {}", p.stage, p.done, p.total))
                .desired_width(360.0),
        );
    }
    if let Some(e) = job.failure() {
        ui.colored_label(theme::ERROR, e.report());
    }
    let Some(graph) = shown.graph else {
        ui.label(RichText::new("No graph of this corpus yet.").small());
        return;
    };
    figures_ui(ui, graph, job.ready().is_some_and(|(_, cached)| *cached));
    if let Some(o) = &shown.pair.overlap {
        ui.label(RichText::new("Against the hand-built graph").strong());
        ui.label(RichText::new(o.summary()).color(theme::SHARED));
    }
    if let Some(drawing) = &shown.pair.model {
        let hint = "Click an entity or a link to see the passage it came from and the model's reply.";
        if let Some(p) = drawing_ui(ui, drawing, &[], *shown.picked, hint) {
            *shown.picked = Some(p);
        }
        picked_ui(ui, graph, drawing, *shown.picked);
    }
    if let Some(o) = &shown.pair.overlap {
        egui::CollapsingHeader::new("Both graphs, item by item").id_salt("graph-overlap").show(ui, |ui| {
            let list = |ui: &mut Ui, what: &str, items: &[String]| {
                if !items.is_empty() {
                    ui.label(RichText::new(format!("{what}: {}", ellipsis(&items.join(", "), 400))).small());
                }
            };
            list(ui, "entities in both", &o.entities_both);
            list(ui, "entities only the model found", &o.entities_model_only);
            list(ui, "entities only the person wrote", &o.entities_hand_only);
            list(ui, "links in both", &o.edges_both);
            list(ui, "links only the model made", &o.edges_model_only);
            list(ui, "links only the person wrote", &o.edges_hand_only);
        });
    }
    global_ui(ui, ctx, global_question);
}

/// What a click picked in the model's drawing: an entity's links, or one link, each with the
/// passage it was read from and the model's reply to that passage.
fn picked_ui(ui: &mut Ui, graph: &ModelGraph, drawing: &GraphDrawing, picked: Option<Picked>) {
    let d = graph.data();
    let reply_ui = |ui: &mut Ui, passage: &str| {
        let reply =
            d.replies.get(passage).map(String::as_str).unwrap_or("(no reply kept: built before replies were kept)");
        ui.label(RichText::new(format!("the model's reply to {passage}:")).small());
        ui.label(RichText::new(ellipsis(reply, 600)).small().monospace().weak());
    };
    match picked {
        Some(Picked::Node(i)) => {
            let Some(node) = d.nodes.get(i) else { return };
            ui.label(RichText::new(format!("{} ({})", node.name, node.kind)).strong());
            if let Some(id) = drawing.nodes.get(i).and_then(|n| n.shared.clone()) {
                ui.label(RichText::new(format!("the hand-built graph holds it as {id}")).small().color(theme::SHARED));
            }
            for e in graph.edges().iter().filter(|e| e.source == i || e.target == i) {
                ui.label(RichText::new(format!("{} — from {}", graph.describe(e), e.provenance.passage)).small());
            }
            ui.label(RichText::new(format!("extracted from: {}", node.passages.join(", "))).small());
            if let Some(first) = node.passages.first() {
                reply_ui(ui, first);
            }
        }
        Some(Picked::Edge(i)) => {
            let Some(e) = drawing.edges.get(i).and_then(|x| graph.edges().get(x.index)) else { return };
            ui.label(RichText::new(graph.describe(e)).strong());
            ui.label(RichText::new(format!("read from {} by {}", e.provenance.passage, e.provenance.model)).small());
            reply_ui(ui, &e.provenance.passage);
        }
        None => {}
    }
}

fn figures_ui(ui: &mut Ui, graph: &ModelGraph, cached: bool) {
    let d = graph.data();
    ui.label(format!(
        "{} read {} passages{}: {} entities, {} relations, {} communities of two or more; {} replies skipped, {} items \
         dropped; {:.1} s",
        d.model,
        d.passages,
        if cached { " (from the cache)" } else { "" },
        d.nodes.len(),
        d.edges.len(),
        d.communities.iter().filter(|c| c.members.len() >= 2).count(),
        d.skipped.len(),
        d.dropped_items,
        d.seconds
    ));
    for s in d.skipped.iter().take(3) {
        ui.colored_label(theme::WARNING, format!("skipped {}: {}", s.passage, s.reason));
    }
    for f in d.failed_summaries.iter().take(3) {
        ui.colored_label(theme::WARNING, f.line());
    }
    for c in d.communities.iter().filter(|c| c.members.len() >= 2).take(4) {
        let names: Vec<&str> = c.members.iter().filter_map(|&i| d.nodes.get(i)).map(|n| n.name.as_str()).collect();
        ui.label(RichText::new(format!("community {}: {}", c.id, ellipsis(&names.join(", "), 160))).small().strong());
        if let Some(s) = &c.summary {
            ui.label(RichText::new(ellipsis(s, 300)).small());
        }
    }
}

/// Global search: a question about the whole corpus, answered from the community summaries.
fn global_ui(ui: &mut Ui, ctx: &ViewContext<'_>, question: &mut String) {
    ui.add_space(6.0);
    ui.label(RichText::new("Global search").strong());
    if question.is_empty() {
        *question = "What are the main topics of this collection?".into();
    }
    ui.horizontal(|ui| {
        labelled_text_ui(ui, "Question about the whole corpus", question, 300.0);
        let busy = ctx.jobs.graph_global.is_running();
        if ui.add_enabled(!busy, egui::Button::new("Ask the summaries")).clicked() {
            ctx.send(ModelToolCommand::AskGlobal(question.clone()));
        }
        if busy && ui.button("Stop").clicked() {
            ctx.send(ShellCommand::Cancel(JobKind::GraphGlobal));
        }
    });
    if let Some(e) = ctx.jobs.graph_global.failure() {
        ui.colored_label(theme::ERROR, e.report());
    }
    if let Some(a) = ctx.jobs.graph_global.ready() {
        global_answer_ui(ui, a);
    }
}

/// A global answer: the notes of each community with its score, those used numbered, then the
/// answer.
pub fn global_answer_ui(ui: &mut Ui, a: &crate::graphrag::GlobalAnswer) {
    for n in &a.notes {
        let used = a.used.iter().position(|c| *c == n.community).map(|p| format!("[{}] ", p + 1)).unwrap_or_default();
        let score = if n.scored { n.score.to_string() } else { "no score given".into() };
        ui.label(
            RichText::new(format!("{used}community {} ({score}): {}", n.community, ellipsis(&n.text, 200))).small(),
        );
    }
    if a.answer.is_empty() {
        ui.colored_label(theme::WARNING, "No community's summary helps with this question, so there is no answer.");
    } else {
        ui.label(RichText::new("Answer (the language model's, from the notes)").strong());
        ui.label(&a.answer);
    }
}
