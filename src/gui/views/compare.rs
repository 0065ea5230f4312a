//! The compare view: one column per method, each a ranked list with score bars. Hovering or
//! selecting a passage highlights it in every column and draws how its rank moves across them;
//! below, how much the methods agree (Jaccard@k and rank-biased overlap).

use egui::{Color32, Pos2, Rect, RichText, Stroke, Ui};

use super::overlap::overlap_ui;
use super::{Memo, View, method_tag_ui};
use crate::compare::{ColumnId, Outcome, OverlapMatrix};
use crate::corpus::DocId;
use crate::gui::command::ModelCommand;
use crate::gui::command::OutsideCommand;
use crate::gui::command::RankCommand;
use crate::gui::context::ViewContext;
use crate::gui::jobs::JobKind;
use crate::gui::state::{AppData, Ranked};
use crate::gui::theme;
use crate::gui::widgets::{bar_ui, ellipsis};
use crate::retrieve::{AbsentHit, Entry, MethodKind, Ranking};
use crate::structured::{GraphResult, SqlResult};

const COLUMN_WIDTH: f32 = 190.0;

/// The compare view: its data, built when the ranking or the grades change (its other state is
/// the app's: the question, the selection, the highlight).
#[derive(Default)]
pub struct CompareView {
    data: Memo<(u64, u64), CompareData>,
    /// The methods ticked when the view last drew: a method ticked since is brought into view.
    seen: Vec<MethodKind>,
    /// Retrieve, then read: the reader over a column's top k.
    reader: super::reader::ReaderPanel,
}

/// What the Compare view shows of a ranking besides the ranked lists themselves: each column's
/// caption, note and graded figure, and how much the columns agree. Built once per ranking and
/// grading (no frame recomputes a metric or the overlap).
#[derive(Debug, Clone)]
pub struct CompareData {
    /// One per column, in order.
    pub columns: Vec<ColumnData>,
    /// Jaccard and RBO between the ranked columns.
    pub overlap: OverlapMatrix,
}

/// One column's caption and figures.
#[derive(Debug, Clone, PartialEq)]
pub struct ColumnData {
    /// The column.
    pub id: ColumnId,
    /// Its method with its settings, or the outside system's caption, without the note.
    pub caption: String,
    /// The caption as a whole (shown on hover).
    pub full: String,
    /// What the column's ranking says of itself (provisional: over which first stage, how far the
    /// encoding is).
    pub note: Option<String>,
    /// nDCG@k of its list and how many of its top k nobody graded, when the question has grades.
    pub graded: Option<(f64, usize)>,
}

impl CompareData {
    /// The data of `ranked` under the app's grades and systems.
    pub fn build(data: &AppData, ranked: &Ranked) -> CompareData {
        let cmp = &ranked.run.comparison;
        let metrics = match (&data.workbench, data.grades.is_empty()) {
            (Some(engine), false) => Some(cmp.question_metrics(engine.corpus(), &data.grades)),
            _ => None,
        };
        let columns = cmp
            .runs
            .iter()
            .map(|run| {
                let full = match data.systems.iter().find(|r| r.name() == run.label) {
                    Some(system) => system.caption(),
                    None => run.label.clone(),
                };
                let note = run.ranking().and_then(|r| r.note.clone());
                let caption = match &note {
                    Some(n) => full.strip_suffix(&format!(", {n}")).unwrap_or(&full).to_string(),
                    None => full.clone(),
                };
                let graded = metrics
                    .as_ref()
                    .and_then(|m| m.of(&run.id))
                    .map(|c| (c.values.get(&crate::eval::Metric::Ndcg(cmp.k)).copied().unwrap_or(0.0), c.unjudged));
                ColumnData { id: run.id.clone(), caption, full, note, graded }
            })
            .collect();
        CompareData { columns, overlap: cmp.overlap() }
    }
}

impl View for CompareView {
    fn ui(&mut self, ui: &mut Ui, ctx: &ViewContext<'_>) {
        let Some(ranked) = ctx.ranked() else {
            ui.horizontal(|ui| {
                if ctx.jobs.rank.is_running() {
                    crate::gui::widgets::spinner_ui(ui);
                    ui.label("Ranking…");
                } else {
                    ui.label("Type a question and press Enter.");
                }
            });
            return;
        };
        let cmp = &ranked.run.comparison;
        ui.horizontal(|ui| {
            ui.heading(&cmp.question);
            if ctx.jobs.rank.is_running() {
                crate::gui::widgets::spinner_ui(ui);
            }
        });
        if let Some(f) = ranked.run.query.filter_label() {
            ui.label(RichText::new(format!("Only passages with {f}")).italics());
        }
        let data = ctx.data;
        let shown = self.data.get((ranked.revision, data.grades_revision), || CompareData::build(data, ranked));
        let highlight = data.hovered.or(data.selected_doc());
        let mut hovered_now = None;
        // A column ticked since the last frame is scrolled into view (it is added last).
        let methods = &data.persisted.settings.methods;
        let new: Vec<MethodKind> = if self.seen.is_empty() {
            Vec::new()
        } else {
            methods.iter().copied().filter(|k| !self.seen.contains(k)).collect()
        };
        let mut reached = new.is_empty();
        egui::ScrollArea::both().id_salt("compare-columns").max_height(ui.available_height() * 0.72).show(ui, |ui| {
            let mut anchors: Vec<Option<Rect>> = Vec::new();
            ui.horizontal_top(|ui| {
                for (i, (run, column)) in cmp.runs.iter().zip(&shown.columns).enumerate() {
                    let drawn = ui.vertical(|ui| {
                        ui.set_width(COLUMN_WIDTH);
                        column_heading_ui(ui, ctx, run, column);
                        let mut anchor = None;
                        match &run.outcome {
                            Outcome::Ranked(r) => {
                                if let Some((ndcg, unjudged)) = column.graded {
                                    ui.label(
                                        RichText::new(format!("nDCG@{} {ndcg:.3} · {unjudged} unjudged", cmp.k))
                                            .small()
                                            .strong(),
                                    );
                                }
                                let view = ColumnView { kind: run.kind, id: &run.id, ranking: r, highlight };
                                ranking_column_ui(ctx, ui, &view, &mut hovered_now, &mut anchor)
                            }
                            Outcome::Rows(rows) => sql_column_ui(ui, rows),
                            Outcome::Bindings(b) => graph_column_ui(ui, b),
                            Outcome::Unavailable { message } => unavailable_ui(ui, ctx, ranked, i, run.kind, message),
                            Outcome::Failed { message } => {
                                ui.colored_label(theme::ERROR, "failed");
                                ui.label(RichText::new(message).small());
                            }
                        }
                        anchors.push(anchor);
                    });
                    if !reached && new.contains(&run.kind) {
                        drawn.response.scroll_to_me(Some(egui::Align::Center));
                        reached = true;
                    }
                    ui.separator();
                }
            });
            if highlight.is_some() {
                rank_lines_ui(ui, &anchors);
            }
        });
        if hovered_now != data.hovered {
            ctx.send(RankCommand::Hover(hovered_now));
        }
        // Seen once drawn: a column whose ranking has not landed yet is brought into view then.
        if reached {
            self.seen.clone_from(methods);
        }
        ui.separator();
        egui::ScrollArea::vertical().id_salt("compare-below").show(ui, |ui| {
            overlap_ui(ui, &shown.overlap);
            ui.separator();
            self.reader.ui(ui, ctx);
        });
    }
}

/// Move a method's column left or right, or stop showing it (the agreement matrix follows the
/// columns' order).
fn column_order_ui(ui: &mut Ui, ctx: &ViewContext<'_>, kind: MethodKind) {
    let settings = &ctx.data.persisted.settings;
    let Some(at) = settings.methods.iter().position(|&k| k == kind) else { return };
    let name = kind.label();
    let mut moved = None;
    if ui.add_enabled(at > 0, egui::Button::new("◀").small()).on_hover_text(format!("Move {name} left")).clicked() {
        moved = Some(at - 1);
    }
    if ui
        .add_enabled(at + 1 < settings.methods.len(), egui::Button::new("▶").small())
        .on_hover_text(format!("Move {name} right"))
        .clicked()
    {
        moved = Some(at + 1);
    }
    let mut s = settings.clone();
    if let Some(to) = moved {
        s.methods.swap(at, to);
    } else if ui.small_button("×").on_hover_text(format!("Stop showing {name}")).clicked() {
        s.methods.remove(at);
    }
    if s != *settings {
        ctx.send(RankCommand::SetSettings(Box::new(s)));
    }
}

/// A column's family tag (with a remove button for an outside system), its caption, its note and
/// the text a model wrote for it.
fn column_heading_ui(ui: &mut Ui, ctx: &ViewContext<'_>, run: &crate::compare::MethodRun, column: &ColumnData) {
    ui.horizontal(|ui| {
        if run.kind.is_external() {
            method_tag_ui(ui, run.kind, &ellipsis(&run.label, 22));
            if ui.small_button("×").on_hover_text("Stop showing this column").clicked() {
                ctx.send(OutsideCommand::Remove(run.label.clone()));
            }
        } else {
            method_tag_ui(ui, run.kind, run.kind.label());
            column_order_ui(ui, ctx, run.kind);
        }
    });
    ui.label(RichText::new(ellipsis(&column.caption, 60)).small().weak()).on_hover_text(&column.full);
    // A provisional column's note is the point: shown whole below its name.
    if let Some(note) = &column.note {
        ui.label(RichText::new(note).small().color(theme::WARNING));
    }
    // A model's rewrite or draft is shown with its column, marked as a guess.
    if let Some(g) = run.ranking().and_then(|r| r.generated.as_ref()) {
        let hover = format!("{} — {}", g.model, g.caveat.as_deref().unwrap_or("a model's text"));
        ui.label(
            RichText::new(format!("the model's {} (a guess): {}", g.task, ellipsis(&g.text, 140)))
                .small()
                .italics()
                .color(theme::WARNING),
        )
        .on_hover_text(hover);
    }
}

/// A column that has no ranking (yet): ranking in the second phase, waiting for its encoding,
/// re-ranking now that its model or encoding is there, or not available and how to get it.
fn unavailable_ui(ui: &mut Ui, ctx: &ViewContext<'_>, ranked: &Ranked, i: usize, kind: MethodKind, message: &str) {
    let roles = kind.models();
    let encoding = roles.iter().any(|r| ctx.jobs.encodings.get(r).is_some_and(|j| j.is_running()));
    let loaded = roles.iter().any(|&r| ctx.workbench().is_some_and(|e| e.has_model(r)));
    let role = roles.iter().copied().find(|r| ctx.jobs.encodings.get(r).is_some_and(|j| j.is_running()));
    if ranked.pending.contains(&i) && ctx.jobs.rank_slow.is_running() {
        // Counts, not a spinner: the window repaints once a second while the candidates are
        // encoded, so that the encoding has the cores (see JobKind::repaint_every).
        let progress = ctx.jobs.running().into_iter().find(|j| j.kind == JobKind::RankSlow).map(|j| j.progress);
        ui.label(match progress.as_ref().filter(|p| p.total > 0) {
            Some(p) => format!("{}: {} of {}", p.stage, p.done, p.total),
            None => "ranking…".to_string(),
        });
        // The work's trace as it grows: an agent's steps, a listwise window's order.
        if let Some(p) = &progress {
            for line in p.notes.iter().rev().take(8).rev() {
                ui.label(RichText::new(line).small().monospace());
            }
        }
        let asks_model = roles.contains(&crate::models::Role::Generator);
        let text = match ctx.workbench().is_some_and(|e| e.answers_provisionally(kind)) {
            _ if asks_model => "asking the language model (what it has done so far is above)".to_string(),
            true => format!(
                "encoding BM25's top {} passages for a provisional answer while the corpus is encoded",
                crate::retrieve::PROVISIONAL_DEPTH
            ),
            false => "encoding the candidate passages for this question".to_string(),
        };
        ui.label(RichText::new(text).small());
    } else if encoding {
        // Progress, not a spinner: a spinner repaints the window eight times a second for
        // minutes (see JobKind::repaint_every).
        let progress = role.and_then(|r| ctx.jobs.running().into_iter().find(|j| j.kind == JobKind::Encode(r)));
        ui.label(match progress.map(|j| j.progress).filter(|p| p.total > 0) {
            Some(p) => format!("encoding the passages… {} of {}", p.done, p.total),
            None => "encoding the passages…".to_string(),
        });
        ui.label(RichText::new("this column fills in when the encoding under Work is done").small());
    } else if ctx.jobs.rank.is_running() && (loaded || roles.is_empty()) {
        // The ranking shown is the one before; a new one (with this column) is under way.
        ui.horizontal(|ui| {
            crate::gui::widgets::spinner_ui(ui);
            ui.label("ranking…");
        });
    } else {
        ui.colored_label(theme::WARNING, "not available");
        ui.label(RichText::new(message.lines().next().unwrap_or("")).small());
        if let Some(role) = kind.model_to_fetch().filter(|_| !loaded)
            && ui.button(format!("Fetch the {role} model")).clicked()
        {
            ctx.send(ModelCommand::Fetch(role));
        }
    }
}

/// What a ranked column draws.
struct ColumnView<'a> {
    kind: MethodKind,
    id: &'a ColumnId,
    ranking: &'a Ranking,
    highlight: Option<DocId>,
}

fn ranking_column_ui(
    ctx: &ViewContext<'_>,
    ui: &mut Ui,
    view: &ColumnView<'_>,
    hovered: &mut Option<DocId>,
    anchor: &mut Option<Rect>,
) {
    let (kind, r, highlight) = (view.kind, view.ranking, view.highlight);
    let Some(engine) = ctx.workbench() else { return };
    let grades = &ctx.data.grades;
    let corpus = engine.corpus();
    let matched = if r.unranked {
        format!("{} matching (an unranked set)", r.total_matches)
    } else if kind.is_external() {
        let absent =
            if r.absent.is_empty() { String::new() } else { format!(", {} not in the corpus", r.absent.len()) };
        format!("{} ranked{absent}", r.total_matches)
    } else {
        format!("{} matching", r.total_matches)
    };
    ui.label(RichText::new(matched).small());
    if r.hits.is_empty() && r.absent.is_empty() {
        ui.weak("nothing");
    }
    let max = r.hits.iter().map(|h| h.score.abs()).fold(0.0f64, f64::max);
    for (rank, entry) in r.entries() {
        let h = match entry {
            Entry::Hit(h) => h,
            Entry::Absent(a) => {
                absent_entry_ui(ui, rank, a);
                continue;
            }
        };
        let doc = corpus.doc(h.doc);
        let id = corpus.external_id(h.doc);
        let is_hl = highlight == Some(h.doc);
        let selected =
            ctx.data.selection.as_ref().is_some_and(|s| s.doc == h.doc && s.column.as_ref() == Some(view.id));
        let frame = egui::Frame::new().inner_margin(3.0).corner_radius(3.0).fill(if is_hl {
            theme::HIGHLIGHT.gamma_multiply(0.35)
        } else {
            Color32::TRANSPARENT
        });
        let inner = frame.show(ui, |ui| {
            let label = if r.unranked { id.to_string() } else { format!("{rank}. {id}") };
            let resp = ui
                .horizontal(|ui| {
                    let resp = ui.selectable_label(selected, RichText::new(label).strong());
                    if !grades.is_empty() {
                        match grades.get(id) {
                            Some(g) => ui.label(RichText::new(format!("G{g}")).small().color(theme::LITERAL)),
                            None => {
                                ui.label(RichText::new("?").small().color(theme::WARNING)).on_hover_text("unjudged")
                            }
                        };
                    }
                    resp
                })
                .inner;
            if let Some(d) = doc {
                let title = if d.title.is_empty() { &d.text } else { &d.title };
                ui.label(RichText::new(ellipsis(title, 34)).small());
            }
            if !r.unranked {
                ui.horizontal(|ui| {
                    let frac = if max > 0.0 { (h.score.abs() / max) as f32 } else { 0.0 };
                    bar_ui(ui, frac, 110.0, theme::method_color(kind));
                    ui.label(RichText::new(format!("{:.3}", h.score)).small().monospace());
                });
            }
            resp
        });
        let resp = inner.inner;
        if resp.hovered() || inner.response.hovered() {
            *hovered = Some(h.doc);
        }
        if resp.clicked() {
            ctx.send(RankCommand::Select { column: Some(view.id.clone()), doc: h.doc });
        }
        if is_hl {
            *anchor = Some(inner.response.rect);
        }
    }
}

/// A document a run ranked that the corpus does not hold: its rank, id and score, said plainly.
fn absent_entry_ui(ui: &mut Ui, rank: usize, a: &AbsentHit) {
    egui::Frame::new().inner_margin(3.0).show(ui, |ui| {
        ui.label(RichText::new(format!("{rank}. {}", a.id)).strong().color(theme::WARNING));
        ui.label(RichText::new("not in the corpus").small().italics());
        ui.label(RichText::new(format!("{:.3}", a.score)).small().monospace());
    });
}

/// Lines joining the highlighted passage's cards from column to column.
fn rank_lines_ui(ui: &Ui, anchors: &[Option<Rect>]) {
    let painter = ui.painter();
    let stroke = Stroke::new(2.0, theme::HIGHLIGHT);
    let mut prev: Option<Rect> = None;
    for a in anchors {
        match (prev, a) {
            (Some(p), Some(r)) => {
                let from = Pos2::new(p.right(), p.center().y);
                let to = Pos2::new(r.left(), r.center().y);
                painter.line_segment([from, to], stroke);
                prev = Some(*r);
            }
            (None, Some(r)) => prev = Some(*r),
            (_, None) => prev = None,
        }
    }
}

fn sql_column_ui(ui: &mut Ui, r: &SqlResult) {
    ui.label(RichText::new("rows, not a ranking").small().italics());
    ui.label(RichText::new(&r.sql).small().monospace());
    egui::Grid::new("sql-col").striped(true).show(ui, |ui| {
        for c in r.columns.iter().take(3) {
            ui.label(RichText::new(c).small().strong());
        }
        ui.end_row();
        for row in r.rows.iter().take(20) {
            for v in row.iter().take(3) {
                ui.label(RichText::new(ellipsis(&v.to_string(), 18)).small());
            }
            ui.end_row();
        }
    });
    ui.label(RichText::new(format!("{} row(s)", r.rows.len())).small());
}

fn graph_column_ui(ui: &mut Ui, b: &GraphResult) {
    ui.label(RichText::new("bindings, complete only relative to the graph").small().italics());
    ui.label(RichText::new(&b.pattern).small().monospace());
    for m in &b.matches {
        let vars: Vec<String> = m.bindings.iter().map(|(k, v)| format!("{k} = {v}")).collect();
        ui.label(RichText::new(vars.join(", ")).strong());
        for f in &m.path {
            ui.label(RichText::new(format!("{f} [{}]", f.passages.join(", "))).small());
        }
    }
    if b.matches.is_empty() {
        ui.weak("no bindings");
    }
}
