//! The lessons view: pick a lesson, change its knobs, read every number computed live by the
//! library. The BM25 lesson is pure arithmetic and recomputes on every slider move; the others
//! run in the background (they may encode a few sentences).

use egui::{RichText, Ui};
use egui_plot::{Legend, Line, MarkerShape, Plot, PlotPoints, Points};

use crate::gui::app::RankLensApp;
use crate::gui::jobs::Slot;
use crate::gui::theme;
use crate::gui::widgets::labelled_text_ui;
use crate::lessons::{Block, IdfBase, LESSONS, Lesson, LessonKit, LessonParams};

/// Lessons state.
#[derive(Default)]
pub struct LessonsState {
    /// The selected lesson id.
    pub selected: Option<String>,
    /// The knobs.
    pub params: LessonParams,
    /// The loaded kit.
    pub kit: Option<std::sync::Arc<LessonKit>>,
    /// The lesson shown, with the (id, params) it was built for.
    pub shown: Option<(String, LessonParams, Result<Lesson, String>)>,
    /// Whether the kit is loading.
    pub loading: bool,
    /// Why the kit could not load.
    pub kit_error: Option<String>,
}

impl LessonsState {
    /// The lesson id shown (the first one by default).
    pub fn current(&self) -> String {
        self.selected.clone().unwrap_or_else(|| LESSONS[0].0.to_string())
    }
}

fn ensure_kit(app: &mut RankLensApp) {
    if app.extra.lessons.kit.is_some() || app.extra.lessons.loading || app.extra.lessons.kit_error.is_some() {
        return;
    }
    app.extra.lessons.loading = true;
    let manager = app.manager.clone().offline(true);
    app.jobs.spawn(Slot::Other("Lessons".into()), move |p| {
        let kit = LessonKit::load(&manager, p).map_err(|e| e.to_string())?;
        Ok(Box::new(std::sync::Arc::new(kit)))
    });
}

/// Build the current lesson if its (id, params) changed.
fn refresh(app: &mut RankLensApp) {
    let Some(kit) = app.extra.lessons.kit.clone() else { return };
    let id = app.extra.lessons.current();
    let params = app.extra.lessons.params.clone();
    if app.extra.lessons.shown.as_ref().is_some_and(|(i, p, _)| *i == id && *p == params) {
        return;
    }
    if id == "bm25" {
        let l = crate::lessons::build(&id, &kit, &params).map_err(|e| e.to_string());
        app.extra.lessons.shown = Some((id, params, l));
        return;
    }
    if app.jobs.is_running(&Slot::Other(format!("Lesson {id}"))) {
        return;
    }
    let slot_id = id.clone();
    app.jobs.spawn(Slot::Other(format!("Lesson {slot_id}")), move |_| {
        let l = crate::lessons::build(&id, &kit, &params).map_err(|e| e.to_string());
        Ok(Box::new((id, params, l)))
    });
}

/// Apply lesson jobs; returns true when the output was a lesson's.
pub fn apply(app: &mut RankLensApp, slot: &Slot, output: crate::gui::jobs::Output) -> Option<crate::gui::jobs::Output> {
    let Slot::Other(name) = slot else { return Some(output) };
    if name == "Lessons" {
        app.extra.lessons.loading = false;
        return match output.downcast::<std::sync::Arc<LessonKit>>() {
            Ok(kit) => {
                app.extra.lessons.kit = Some(*kit);
                None
            }
            Err(o) => Some(o),
        };
    }
    if name.starts_with("Lesson ") {
        return match output.downcast::<(String, LessonParams, Result<Lesson, String>)>() {
            Ok(l) => {
                app.extra.lessons.shown = Some(*l);
                None
            }
            Err(o) => Some(o),
        };
    }
    Some(output)
}

/// Draw the lessons view.
pub fn lessons_ui(app: &mut RankLensApp, ui: &mut Ui) {
    ensure_kit(app);
    ui.horizontal_wrapped(|ui| {
        for (id, title) in LESSONS {
            let selected = app.extra.lessons.current() == id;
            if ui.selectable_label(selected, title).clicked() {
                app.extra.lessons.selected = Some(id.to_string());
            }
        }
    });
    ui.separator();
    knobs_ui(app, ui);
    // After the tabs and knobs, so a click or a slider move starts its rebuild in the same frame.
    refresh(app);
    if let Some(e) = &app.extra.lessons.kit_error {
        ui.colored_label(theme::ERROR, format!("The lessons could not load: {e}"));
        if ui.button("Try again").clicked() {
            app.extra.lessons.kit_error = None;
        }
        return;
    }
    let Some((id, _, lesson)) = &app.extra.lessons.shown else {
        ui.horizontal(|ui| {
            ui.spinner();
            ui.label("Preparing the lesson (loading the lesson corpora and the models that are here)…");
        });
        return;
    };
    if *id != app.extra.lessons.current() {
        ui.spinner();
    }
    match lesson {
        Err(e) => {
            ui.colored_label(theme::ERROR, e);
        }
        Ok(l) => {
            let l = l.clone();
            egui::ScrollArea::vertical().id_salt("lesson").auto_shrink([false, false]).show(ui, |ui| lesson_ui(ui, &l));
        }
    }
}

fn knobs_ui(app: &mut RankLensApp, ui: &mut Ui) {
    let current = app.extra.lessons.current();
    let p = &mut app.extra.lessons.params;
    match current.as_str() {
        "bm25" => {
            ui.horizontal(|ui| {
                ui.add(egui::Slider::new(&mut p.k, 0.0..=3.0).fixed_decimals(2).text("BM25 k"));
                ui.add(egui::Slider::new(&mut p.b, 0.0..=1.0).fixed_decimals(2).text("BM25 b"));
                egui::ComboBox::from_label("idf base").selected_text(p.idf_base.name()).show_ui(ui, |ui| {
                    for base in [IdfBase::Ten, IdfBase::E, IdfBase::Two] {
                        ui.selectable_value(&mut p.idf_base, base, base.name());
                    }
                });
            });
        }
        "index" => {
            labelled_text_ui(ui, "Question for the index", &mut p.question, 320.0);
        }
        "reader" => {
            ui.add(egui::Slider::new(&mut p.reader_k, 1..=3).text("passages the reader sees (k)"));
        }
        "mismatch" => {
            labelled_text_ui(ui, "Rewritten question", &mut p.rewrite, 420.0);
            labelled_text_ui(ui, "Drafted answer (HyDE)", &mut p.draft, 520.0);
        }
        "chunking" => {
            ui.horizontal(|ui| {
                ui.add(egui::Slider::new(&mut p.chunk_words, 4..=40).text("words per window"));
                ui.add(egui::Slider::new(&mut p.chunk_overlap, 0..=20).text("overlap"));
                ui.add(egui::Slider::new(&mut p.bad_cut_chars, 30..=200).text("characters per bad cut"));
            });
        }
        "entities" => {
            let w = &mut p.er_weights;
            ui.horizontal_wrapped(|ui| {
                ui.add(egui::Slider::new(&mut p.er_threshold, -5.0..=10.0).fixed_decimals(2).text("threshold (bits)"));
                ui.add(
                    egui::Slider::new(&mut w.name_agree_at, 0.5..=1.0).fixed_decimals(2).text("names agree at JW ≥"),
                );
                ui.add(egui::Slider::new(&mut w.name_m, 0.5..=0.999).fixed_decimals(3).text("name m"));
                ui.add(egui::Slider::new(&mut w.name_u, 0.001..=0.5).fixed_decimals(3).text("name u"));
                ui.add(egui::Slider::new(&mut w.type_m, 0.5..=0.999).fixed_decimals(3).text("type m"));
                ui.add(egui::Slider::new(&mut w.type_u, 0.001..=0.9).fixed_decimals(3).text("type u"));
            });
        }
        _ => {}
    }
}

/// Draw a lesson's blocks.
pub fn lesson_ui(ui: &mut Ui, l: &Lesson) {
    ui.label(RichText::new(&l.title).size(22.0).strong());
    for (i, b) in l.blocks.iter().enumerate() {
        match b {
            Block::Heading(h) => {
                ui.add_space(8.0);
                ui.label(RichText::new(h).size(16.0).strong());
            }
            Block::Text(t) => {
                ui.label(t);
            }
            Block::Warning(w) => {
                ui.colored_label(theme::WARNING, w);
            }
            Block::Table { caption, header, rows } => {
                ui.add_space(4.0);
                ui.label(RichText::new(caption).strong());
                // Long cells (passages, chunks) wrap at a third of the page instead of widening it.
                let wrap_width = (ui.available_width() / 3.0).clamp(240.0, 560.0);
                egui::Grid::new(("lesson-table", i)).striped(true).show(ui, |ui| {
                    for h in header {
                        ui.label(RichText::new(h).strong());
                    }
                    ui.end_row();
                    for r in rows {
                        for c in r {
                            if c.chars().count() > 40 {
                                ui.scope(|ui| {
                                    ui.set_max_width(wrap_width);
                                    ui.add(egui::Label::new(RichText::new(c).monospace()).wrap());
                                });
                            } else {
                                ui.label(RichText::new(c).monospace());
                            }
                        }
                        ui.end_row();
                    }
                });
            }
            Block::Curves { caption, x_label, y_label, series, markers } => {
                ui.label(RichText::new(caption).strong());
                Plot::new(("lesson-plot", i))
                    .height(260.0)
                    .x_axis_label(x_label.clone())
                    .y_axis_label(y_label.clone())
                    .legend(Legend::default().position(egui_plot::Corner::RightBottom))
                    .show(ui, |plot| {
                        for (name, pts) in series {
                            plot.line(Line::new(name.clone(), PlotPoints::new(pts.clone())));
                        }
                        for (label, p) in markers {
                            plot.points(
                                Points::new(label.clone(), PlotPoints::new(vec![*p]))
                                    .radius(6.0)
                                    .shape(MarkerShape::Diamond)
                                    .color(theme::HIGHLIGHT),
                            );
                        }
                    });
            }
        }
    }
}
