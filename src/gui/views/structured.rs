//! The structured view: a read-only SQL editor with its result table (errors inline), and the
//! knowledge graph drawn as nodes and links with the matched paths highlighted and a pattern
//! editor. Both answer exactly — and say what that exactness is relative to.

use std::collections::BTreeMap;

use egui::{Align2, Color32, FontId, Pos2, RichText, Sense, Stroke, Ui, vec2};

use super::View;
use crate::corpus::QueryTemplates;
use crate::gui::command::Command;
use crate::gui::command::RankCommand;
use crate::gui::command::StructuredCommand;
use crate::gui::context::ViewContext;
use crate::gui::theme;
use crate::gui::widgets::{ellipsis, labelled_code_ui};
use crate::structured::{Fact, KnowledgeGraph};

/// The structured view; it keeps the graph node picked in the drawing.
#[derive(Default)]
pub struct StructuredView {
    graph_node: Option<String>,
    /// The question the model writes SQL for.
    ask: String,
    /// Passages the model's graph reads.
    graph_limit: usize,
    /// The global-search question.
    global: String,
}

impl View for StructuredView {
    fn ui(&mut self, ui: &mut Ui, ctx: &ViewContext<'_>) {
        let Some(engine) = ctx.engine() else { return };
        if self.graph_limit == 0 {
            self.graph_limit = engine.corpus().len().clamp(1, 50);
        }
        egui::ScrollArea::vertical().id_salt("structured").show(ui, |ui| {
            ui.columns(2, |cols| {
                sql_ui(ctx, engine, &mut cols[0]);
                if engine.structured().sql.is_some() {
                    super::model_structured::ask_sql_ui(&mut cols[0], ctx, &mut self.ask);
                }
                self.graph_ui(ctx, engine, &mut cols[1]);
                super::model_structured::model_graph_ui(
                    &mut cols[1],
                    ctx,
                    engine,
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
    engine: &crate::workbench::Workbench,
    pick: impl Fn(&QueryTemplates) -> Option<String>,
) -> Vec<(String, String)> {
    let corpus = engine.corpus();
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
                ctx.send(Command::Rank(RankCommand::SetQuestion(q.clone())));
            }
        }
    });
}

fn sql_ui(ctx: &ViewContext<'_>, engine: &crate::workbench::Workbench, ui: &mut Ui) {
    ui.heading("SQL");
    let Some(db) = &engine.structured().sql else {
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
    let list = templates(engine, |t| t.sql.clone());
    template_menu_ui(ui, ctx, "Template", "choose a question's statement", &list, |s| {
        Command::Structured(StructuredCommand::SetSql(s))
    });
    let mut sql = ctx.data.persisted.sql.clone();
    if labelled_code_ui(ui, "SQL statement", &mut sql, 4).changed() {
        ctx.send(Command::Structured(StructuredCommand::SetSql(sql)));
    }
    ui.horizontal(|ui| {
        if ui.button("Run SQL").clicked() {
            ctx.send(Command::Structured(StructuredCommand::RunSql));
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

impl StructuredView {
    fn graph_ui(&mut self, ctx: &ViewContext<'_>, engine: &crate::workbench::Workbench, ui: &mut Ui) {
        ui.heading("Knowledge graph");
        let Some(graph) = &engine.structured().graph else {
            ui.label("This corpus has no knowledge graph. Put a graph.txt next to it (see the sample's).");
            return;
        };
        ui.label(RichText::new(format!("relations: {}", graph.relations().join(", "))).small());
        let list = templates(engine, |t| t.graph.clone());
        template_menu_ui(ui, ctx, "Pattern template", "choose a question's pattern", &list, |s| {
            Command::Structured(StructuredCommand::SetPattern(s))
        });
        let mut pattern = ctx.data.persisted.pattern.clone();
        if labelled_code_ui(ui, "Graph pattern", &mut pattern, 2).changed() {
            ctx.send(Command::Structured(StructuredCommand::SetPattern(pattern)));
        }
        if ui.button("Run pattern").clicked() {
            ctx.send(Command::Structured(StructuredCommand::RunGraph));
        }
        let mut highlighted: Vec<Fact> = Vec::new();
        if let Some(e) = ctx.jobs.graph.failure() {
            ui.colored_label(theme::ERROR, e.report());
        }
        match ctx.jobs.graph.ready() {
            None => {}
            Some(r) => {
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
        }
        if let Some(clicked) = draw_graph_ui(ui, graph, &highlighted) {
            self.graph_node = Some(clicked);
        }
        if let Some(node) = self.graph_node.clone() {
            let facts: Vec<&Fact> =
                graph.facts().into_iter().filter(|f| f.subject == node || f.object == node).collect();
            ui.label(RichText::new(format!("{node}: {} fact(s)", facts.len())).strong());
            for f in facts {
                ui.label(RichText::new(format!("{f} [{}]", f.passages.join(", "))).small());
            }
            let mentioning: Vec<String> = engine
                .corpus()
                .docs()
                .iter()
                .filter(|d| graph.mentions(&d.full_text()).iter().any(|m| m.entity == node))
                .map(|d| d.id.clone())
                .collect();
            ui.label(RichText::new(format!("mentioned in: {}", mentioning.join(", "))).small());
        }
    }
}

/// Nodes in layers by link direction (a node sits one layer right of everything linking to it),
/// ordered by type within a layer; links as arrows labelled with their relation. Returns the node
/// clicked.
fn draw_graph_ui(ui: &mut Ui, graph: &KnowledgeGraph, highlighted: &[Fact]) -> Option<String> {
    let entities = graph.entities();
    let facts = graph.facts();
    let mut layer: BTreeMap<&str, usize> = entities.iter().map(|e| (e.id.as_str(), 0)).collect();
    for _ in 0..entities.len() {
        let mut changed = false;
        for f in &facts {
            let next = layer.get(f.subject.as_str()).copied().unwrap_or(0) + 1;
            if let Some(l) = layer.get_mut(f.object.as_str())
                && *l < next
                && next < entities.len()
            {
                *l = next;
                changed = true;
            }
        }
        if !changed {
            break;
        }
    }
    let layers = layer.values().copied().max().unwrap_or(0) + 1;
    let mut columns: Vec<Vec<&crate::structured::Entity>> = vec![Vec::new(); layers];
    for e in &entities {
        columns[layer.get(e.id.as_str()).copied().unwrap_or(0)].push(e);
    }
    for c in &mut columns {
        c.sort_by(|a, b| a.kind.cmp(&b.kind).then(a.id.cmp(&b.id)));
    }
    let tallest = columns.iter().map(Vec::len).max().unwrap_or(1);
    let size = vec2(ui.available_width().min(640.0), (tallest as f32 * 46.0 + 40.0).max(200.0));
    let (rect, response) = ui.allocate_exact_size(size, Sense::click());
    let painter = ui.painter_at(rect);
    painter.rect_filled(rect, 4.0, ui.visuals().extreme_bg_color);
    let mut pos: BTreeMap<&str, Pos2> = BTreeMap::new();
    for (ci, column) in columns.iter().enumerate() {
        let x = rect.left() + rect.width() * (ci as f32 + 0.5) / layers as f32;
        for (ri, e) in column.iter().enumerate() {
            let y = rect.top() + 20.0 + (rect.height() - 40.0) * (ri as f32 + 0.5) / column.len().max(1) as f32;
            pos.insert(e.id.as_str(), Pos2::new(x, y));
        }
    }
    let order = entities;
    let text = ui.visuals().text_color();
    for f in facts {
        let (Some(&a), Some(&b)) = (pos.get(f.subject.as_str()), pos.get(f.object.as_str())) else { continue };
        let hot = highlighted.contains(f);
        let stroke = if hot { Stroke::new(3.0, theme::HIGHLIGHT) } else { Stroke::new(1.0, Color32::from_gray(140)) };
        let dir = (b - a).normalized();
        let (from, to) = (a + dir * 10.0, b - dir * 10.0);
        painter.line_segment([from, to], stroke);
        let back = -dir * 8.0;
        for angle in [0.45f32, -0.45] {
            let (sin, cos) = angle.sin_cos();
            let head = egui::vec2(back.x * cos - back.y * sin, back.x * sin + back.y * cos);
            painter.line_segment([to, to + head], stroke);
        }
        painter.text(
            from + (to - from) * 0.5,
            Align2::CENTER_BOTTOM,
            &f.relation,
            FontId::proportional(10.0),
            if hot { Color32::BLACK } else { Color32::from_gray(110) },
        );
    }
    let hot_nodes: Vec<&str> = highlighted.iter().flat_map(|f| [f.subject.as_str(), f.object.as_str()]).collect();
    let mut clicked = None;
    for e in &order {
        let Some(&p) = pos.get(e.id.as_str()) else { continue };
        let hot = hot_nodes.contains(&e.id.as_str());
        let fill = if hot { theme::HIGHLIGHT } else { Color32::from_rgb(200, 220, 240) };
        painter.circle(p, 8.0, fill, Stroke::new(1.0, Color32::DARK_GRAY));
        painter.text(
            p + vec2(0.0, 10.0),
            Align2::CENTER_TOP,
            format!("{} ({})", e.id, e.kind),
            FontId::proportional(10.0),
            text,
        );
        if response.clicked() && response.interact_pointer_pos().is_some_and(|q| q.distance(p) < 12.0) {
            clicked = Some(e.id.clone());
        }
    }
    response.on_hover_text("Click a node to see its facts and the passages that mention it.");
    clicked
}
