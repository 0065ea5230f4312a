//! The structured view: a read-only SQL editor with its result table (errors inline), and the
//! knowledge graph drawn as nodes and links with the matched paths highlighted and a pattern
//! editor. Both answer exactly — and say what that exactness is relative to.

use std::sync::Arc;

use egui::{RichText, Ui};

use super::View;
use super::graph_drawing::{GraphPair, Picked, drawing_ui};
use super::view::{Memo, Same};
use crate::corpus::QueryTemplates;
use crate::graphrag::ModelGraph;
use crate::gui::command::Command;
use crate::gui::command::RankCommand;
use crate::gui::command::StructuredCommand;
use crate::gui::context::ViewContext;
use crate::gui::theme;
use crate::gui::widgets::{ellipsis, labelled_code_ui};
use crate::structured::Fact;

/// The structured view; it keeps what is picked in each drawing.
#[derive(Default)]
pub struct StructuredView {
    /// Picked in the hand-built graph's drawing.
    hand_pick: Option<Picked>,
    /// Picked in the model's graph's drawing.
    model_pick: Option<Picked>,
    /// Both drawings, by the workbench and the model's graph they show.
    drawings: Memo<(Same<crate::workbench::Workbench>, Option<Same<ModelGraph>>), GraphPair>,
    /// The question the model writes SQL for.
    ask: String,
    /// Passages the model's graph reads.
    graph_limit: usize,
    /// The global-search question.
    global: String,
}

impl View for StructuredView {
    fn ui(&mut self, ui: &mut Ui, ctx: &ViewContext<'_>) {
        let Some(engine) = ctx.workbench() else { return };
        if self.graph_limit == 0 {
            self.graph_limit = engine.corpus().len().clamp(1, 50);
        }
        let model_graph: Option<Arc<ModelGraph>> =
            ctx.jobs.graph_build.ready().map(|(g, _)| g.clone()).or_else(|| engine.neural().model_graph);
        let key = (Same(engine.clone()), model_graph.clone().map(Same));
        let pair = self.drawings.get(key, || GraphPair::of(engine, model_graph.as_deref()));
        egui::ScrollArea::vertical().id_salt("structured").show(ui, |ui| {
            ui.columns(2, |cols| {
                sql_ui(ctx, engine, &mut cols[0]);
                if engine.structured().sql.is_some() {
                    super::model_structured::ask_sql_ui(&mut cols[0], ctx, &mut self.ask);
                }
                graph_ui(ctx, engine, pair, &mut self.hand_pick, &mut cols[1]);
                super::model_structured::model_graph_ui(
                    &mut cols[1],
                    ctx,
                    engine,
                    super::model_structured::GraphShown {
                        graph: model_graph.as_deref(),
                        pair,
                        picked: &mut self.model_pick,
                    },
                    &mut self.graph_limit,
                    &mut self.global,
                );
            });
        });
    }

    fn corpus_changed(&mut self) {
        *self = Self::default();
    }
}

/// The questions that come with a statement or pattern: (question, its SQL or pattern).
fn templates(
    workbench: &crate::workbench::Workbench,
    pick: impl Fn(&QueryTemplates) -> Option<String>,
) -> Vec<(String, String)> {
    let corpus = workbench.corpus();
    corpus
        .queries
        .iter()
        .filter_map(|q| corpus.templates.get(&q.id).and_then(&pick).map(|s| (q.text.clone(), s)))
        .collect()
}

/// A menu of the templates; picking one sets the question and the editor's text.
fn template_menu_ui(
    ui: &mut Ui,
    ctx: &ViewContext<'_>,
    label: &str,
    prompt: &str,
    list: &[(String, String)],
    set: fn(String) -> Command,
) {
    if list.is_empty() {
        return;
    }
    egui::ComboBox::from_label(label).selected_text(prompt).show_ui(ui, |ui| {
        for (q, text) in list {
            if ui.selectable_label(false, ellipsis(q, 60)).clicked() {
                ctx.send(set(text.clone()));
                ctx.send(RankCommand::SetQuestion(q.clone()));
            }
        }
    });
}

fn sql_ui(ctx: &ViewContext<'_>, workbench: &crate::workbench::Workbench, ui: &mut Ui) {
    ui.heading("SQL");
    let Some(db) = &workbench.structured().sql else {
        ui.label("This corpus has no tables. Put a .csv file next to the corpus to query it here.");
        return;
    };
    if let Ok(schema) = db.schema() {
        for (table, cols) in schema {
            let c: Vec<String> = cols.iter().map(|(n, t)| format!("{n} {t}")).collect();
            ui.label(RichText::new(format!("{table}({})", c.join(", "))).monospace().small());
        }
    }
    ui.label(RichText::new("Read-only: SELECT only, 2 s time limit, at most 1000 rows. version_cmp(a, b) and COLLATE version compare 4.10 after 4.9.").small().weak());
    let list = templates(workbench, |t| t.sql.clone());
    template_menu_ui(ui, ctx, "Template", "choose a question's statement", &list, |s| {
        Command::Structured(StructuredCommand::SetSql(s))
    });
    let mut sql = ctx.data.persisted.sql.clone();
    if labelled_code_ui(ui, "SQL statement", &mut sql, 4).changed() {
        ctx.send(StructuredCommand::SetSql(sql));
    }
    ui.horizontal(|ui| {
        if ui.button("Run SQL").clicked() {
            ctx.send(StructuredCommand::RunSql);
        }
        if ctx.jobs.sql.is_running() {
            crate::gui::widgets::spinner_ui(ui);
        }
    });
    if let Some(e) = ctx.jobs.sql.failure() {
        ui.colored_label(theme::ERROR, e.report());
    }
    match ctx.jobs.sql.ready() {
        None => {}
        Some(r) => {
            ui.label(
                RichText::new(format!(
                    "{} row(s) — rows, not a ranking{}",
                    r.rows.len(),
                    if r.truncated { " (cut at the row cap)" } else { "" }
                ))
                .strong(),
            );
            if !r.conditions.is_empty() {
                ui.label(RichText::new(format!("conditions: {}", r.conditions.join("  AND  "))).small());
            }
            egui::ScrollArea::both().id_salt("sql-rows").max_height(300.0).show(ui, |ui| {
                egui::Grid::new("sql-table").striped(true).show(ui, |ui| {
                    for c in &r.columns {
                        ui.label(RichText::new(c).strong());
                    }
                    ui.end_row();
                    for row in &r.rows {
                        for v in row {
                            ui.label(v.to_string());
                        }
                        ui.end_row();
                    }
                });
            });
        }
    }
}

/// The hand-built graph: its pattern editor, and its drawing with a pattern's path highlighted
/// and the entities the model's graph also holds marked; a click shows an entity's facts or a
/// link's passages.
fn graph_ui(
    ctx: &ViewContext<'_>,
    workbench: &crate::workbench::Workbench,
    pair: &GraphPair,
    picked: &mut Option<Picked>,
    ui: &mut Ui,
) {
    ui.heading("Knowledge graph");
    let Some(graph) = &workbench.structured().graph else {
        ui.label("This corpus has no knowledge graph. Put a graph.txt next to it (see the sample's).");
        return;
    };
    ui.label(RichText::new(format!("relations: {}", graph.relations().join(", "))).small());
    let list = templates(workbench, |t| t.graph.clone());
    template_menu_ui(ui, ctx, "Pattern template", "choose a question's pattern", &list, |s| {
        Command::Structured(StructuredCommand::SetPattern(s))
    });
    let mut pattern = ctx.data.persisted.pattern.clone();
    if labelled_code_ui(ui, "Graph pattern", &mut pattern, 2).changed() {
        ctx.send(StructuredCommand::SetPattern(pattern));
    }
    if ui.button("Run pattern").clicked() {
        ctx.send(StructuredCommand::RunGraph);
    }
    let mut highlighted: Vec<Fact> = Vec::new();
    if let Some(e) = ctx.jobs.graph.failure() {
        ui.colored_label(theme::ERROR, e.report());
    }
    if let Some(r) = ctx.jobs.graph.ready() {
        ui.label(RichText::new(format!("{} binding(s)", r.matches.len())).strong());
        for m in &r.matches {
            let vars: Vec<String> = m.bindings.iter().map(|(k, v)| format!("{k} = {v}")).collect();
            ui.label(RichText::new(vars.join(", ")).strong());
            let path: Vec<String> = m.path.iter().map(|f| format!("{f} [{}]", f.passages.join(", "))).collect();
            ui.label(RichText::new(path.join(" → ")).small());
            highlighted.extend(m.path.iter().cloned());
        }
        ui.label(RichText::new(&r.note).italics().small());
    }
    let Some(drawing) = &pair.hand else { return };
    let facts = graph.facts();
    let hot: Vec<usize> = drawing
        .edges
        .iter()
        .enumerate()
        .filter(|(_, e)| facts.get(e.index).is_some_and(|f| highlighted.contains(f)))
        .map(|(k, _)| k)
        .collect();
    if pair.model.is_some() {
        let (n, e) = drawing.shared_counts();
        ui.label(
            RichText::new(format!("Green: the {n} entities and {e} links the model's graph holds too."))
                .small()
                .color(theme::SHARED),
        );
    }
    if let Some(p) = drawing_ui(
        ui,
        drawing,
        &hot,
        *picked,
        "Click an entity to see its facts and the passages that mention it, or a link to see its passages.",
    ) {
        *picked = Some(p);
    }
    match *picked {
        Some(Picked::Node(i)) => {
            let Some(node) = drawing.nodes.get(i) else { return };
            let id = node.label.clone();
            let of: Vec<&Fact> = facts.iter().copied().filter(|f| f.subject == id || f.object == id).collect();
            ui.label(RichText::new(format!("{id} ({}): {} fact(s)", node.kind, of.len())).strong());
            if let Some(name) = &node.shared {
                ui.label(RichText::new(format!("the model's graph holds it as “{name}”")).small().color(theme::SHARED));
            }
            for f in of {
                ui.label(RichText::new(format!("{f} [{}]", f.passages.join(", "))).small());
            }
            let mentioning: Vec<String> = workbench
                .corpus()
                .docs()
                .iter()
                .filter(|d| graph.mentions(&d.full_text()).iter().any(|m| m.entity == id))
                .map(|d| d.id.clone())
                .collect();
            ui.label(RichText::new(format!("mentioned in: {}", mentioning.join(", "))).small());
        }
        Some(Picked::Edge(i)) => {
            if let Some(f) = drawing.edges.get(i).and_then(|e| facts.get(e.index)) {
                ui.label(RichText::new(format!("{f}")).strong());
                ui.label(RichText::new(format!("written from: {}", f.passages.join(", "))).small());
            }
        }
        None => {}
    }
}
