//! The lessons view: pick a lesson, change its knobs, read every number computed live by the
//! library. Each change of lesson or knob builds the lesson once, in the background (some encode
//! a few sentences); the BM25 lesson is arithmetic and follows its sliders within a frame.

use egui::{RichText, Ui};
use egui_plot::{Legend, Line, MarkerShape, Plot, PlotPoints, Points};

use super::View;
use crate::gui::command::Command;
use crate::gui::context::ViewContext;
use crate::gui::theme;
use crate::gui::widgets::labelled_text_ui;
use crate::lessons::{Block, IdfBase, LESSONS, Lesson, LessonParams};

/// The lessons view: which lesson, its knobs, and what was last asked for.
#[derive(Default)]
pub struct LessonsView {
    selected: Option<String>,
    params: LessonParams,
    /// The (lesson, knobs) last sent to be built, so each change is built once.
    requested: Option<(String, LessonParams)>,
}

impl LessonsView {
    /// The lesson id shown (the first one by default).
    pub fn current(&self) -> String {
        self.selected.clone().unwrap_or_else(|| LESSONS[0].0.to_string())
    }

    /// Show this lesson.
    pub fn select(&mut self, id: &str) {
        self.selected = Some(id.to_string());
    }
}

impl View for LessonsView {
    fn needs_corpus(&self) -> bool {
        false
    }

    fn ui(&mut self, ui: &mut Ui, ctx: &ViewContext<'_>) {
        let kit = &ctx.jobs.lesson_kit;
        if !kit.is_running() && kit.ready().is_none() && kit.failure().is_none() {
            ctx.send(Command::LoadLessonKit);
        }
        ui.horizontal_wrapped(|ui| {
            for (id, title) in LESSONS {
                if ui.selectable_label(self.current() == id, title).clicked() {
                    self.select(id);
                }
            }
        });
        ui.separator();
        knobs_ui(ui, &self.current(), &mut self.params);
        // After the tabs and knobs, so a click or a slider move asks for its rebuild this frame.
        let wanted = (self.current(), self.params.clone());
        if kit.ready().is_some() && self.requested.as_ref() != Some(&wanted) {
            ctx.send(Command::BuildLesson(wanted.0.clone(), wanted.1.clone()));
            self.requested = Some(wanted);
        }
        if let Some(e) = kit.failure() {
            ui.colored_label(theme::ERROR, format!("The lessons could not load: {}", e.report()));
            if ui.button("Try again").clicked() {
                ctx.send(Command::LoadLessonKit);
            }
            return;
        }
        let Some((id, _, lesson)) = ctx.jobs.lesson.latest() else {
            ui.horizontal(|ui| {
                crate::gui::widgets::spinner_ui(ui);
                ui.label("Preparing the lesson (loading the lesson corpora and the models that are here)…");
            });
            return;
        };
        if *id != self.current() {
            crate::gui::widgets::spinner_ui(ui);
        }
        match lesson {
            Err(e) => {
                ui.colored_label(theme::ERROR, e);
            }
            Ok(l) => {
                egui::ScrollArea::vertical()
                    .id_salt("lesson")
                    .auto_shrink([false, false])
                    .show(ui, |ui| lesson_ui(ui, l));
            }
        }
    }
}

fn knobs_ui(ui: &mut Ui, current: &str, p: &mut LessonParams) {
    match current {
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
