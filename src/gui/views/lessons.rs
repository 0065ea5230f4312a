//! The lessons view: pick a lesson, change its knobs, read every number computed live by the
//! library. Each change of lesson, knob, corpus or asked question builds the lesson once, in the
//! background (some encode a few sentences); the BM25 lesson is arithmetic and follows its sliders
//! within a frame.
//!
//! Checkpoints: predict, then reveal. With "Predict first" on (the default) what follows a
//! checkpoint stays hidden until it is answered right or revealed. Class mode shows one
//! checkpoint at a time with Next and Previous, larger, for a projector.

use std::collections::HashMap;

use egui::{RichText, Ui};
use egui_plot::{Legend, Line, MarkerShape, Plot, PlotPoints, Points};

pub use super::checkpoint::{CheckpointState, checkpoint_ui};
use super::{Same, View};
use crate::gui::command::AssignmentRequest;
use crate::gui::command::FileCommand;
use crate::gui::command::LessonCommand;
use crate::gui::context::ViewContext;
use crate::gui::dialog::{DialogPurpose, Field};
use crate::gui::theme;
use crate::gui::widgets::{labelled_text_ui, path_field_ui, with_code_spans};
use crate::lessons::{Block, IdfBase, Knob, LESSONS, Lesson, LessonParams};

/// The checkpoints' states of every lesson, by (lesson, checkpoint id).
pub type CheckpointStates = HashMap<(String, String), CheckpointState>;

/// The assignment dialog's fields.
#[derive(Debug, Clone, PartialEq)]
pub struct AssignmentForm {
    /// The lesson.
    pub lesson: String,
    /// The roster CSV.
    pub roster: String,
    /// The seed.
    pub seed: u64,
    /// The folder to write.
    pub out: String,
    /// Draw from the open corpus (else the sample).
    pub open_corpus: bool,
    /// The serial of the last chosen path a field took ([`crate::gui::widgets::path_field_ui`]).
    pub seen: u64,
}

/// The lessons view: which lesson, its knobs, and what was last asked for.
pub struct LessonsView {
    selected: Option<String>,
    params: LessonParams,
    /// The (lesson, knobs, corpus) last sent to be built, so each change is built once.
    requested: Option<(String, LessonParams, Option<Same<crate::workbench::Workbench>>)>,
    /// The checkpoints' answers.
    pub answers: CheckpointStates,
    /// Hide what follows a checkpoint until it is answered or revealed.
    pub predict_first: bool,
    /// Class mode: the checkpoint shown (0-based; the last step shows what follows the last one).
    pub class_step: usize,
    /// The assignment dialog, while open.
    pub assignment: Option<AssignmentForm>,
    /// The class report's window, while open.
    pub class_report: Option<super::class_report::ClassReportForm>,
    /// Page Hunt, when its tab is chosen.
    page_hunt: super::page_hunt::PageHuntState,
}

/// The tab beside the lessons' that plays Page Hunt.
pub const PAGE_HUNT: &str = "page-hunt";

impl Default for LessonsView {
    fn default() -> Self {
        Self {
            selected: None,
            params: LessonParams::default(),
            requested: None,
            answers: CheckpointStates::new(),
            predict_first: true,
            class_step: 0,
            assignment: None,
            class_report: None,
            page_hunt: super::page_hunt::PageHuntState::default(),
        }
    }
}

impl LessonsView {
    /// The lesson id shown (the first one by default).
    pub fn current(&self) -> String {
        self.selected.clone().unwrap_or_else(|| LESSONS[0].id.to_string())
    }

    /// Show this lesson.
    pub fn select(&mut self, id: &str) {
        if self.selected.as_deref() != Some(id) {
            self.class_step = 0;
        }
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
            ctx.send(LessonCommand::LoadKit);
        }
        let class = ctx.data.class_mode;
        if !class {
            ui.horizontal_wrapped(|ui| {
                for l in LESSONS {
                    if ui.selectable_label(self.current() == l.id, l.title).clicked() {
                        self.select(l.id);
                    }
                }
                if ui.selectable_label(self.current() == PAGE_HUNT, "Page Hunt").clicked() {
                    self.select(PAGE_HUNT);
                }
            });
        }
        if self.current() == PAGE_HUNT {
            ui.separator();
            super::page_hunt::page_hunt_ui(ui, ctx, &mut self.page_hunt);
            return;
        }
        self.toolbar_ui(ui, ctx);
        ui.separator();
        knobs_ui(ui, &self.current(), &mut self.params);
        // The lessons run on the open corpus and the question last asked (else the bar's).
        let asked = ctx.ranked().map(|r| r.run.comparison.question.clone());
        let question = asked.unwrap_or_else(|| ctx.data.persisted.question.clone());
        if !question.trim().is_empty() {
            self.params.question = question;
        }
        let engine_key = ctx.workbench().map(|e| Same(e.clone()));
        // After the tabs and knobs, so a click or a slider move asks for its rebuild this frame.
        let wanted = (self.current(), self.params.clone(), engine_key);
        if kit.ready().is_some() && self.requested.as_ref() != Some(&wanted) {
            crate::tally::count(crate::tally::Tally::LessonRequest);
            ctx.send(LessonCommand::Build(wanted.0.clone(), wanted.1.clone()));
            self.requested = Some(wanted);
        }
        self.assignment_ui(ui, ctx);
        if let Some(form) = &mut self.class_report
            && super::class_report::class_report_ui(ui, ctx, form)
        {
            self.class_report = None;
        }
        if let Some(e) = kit.failure() {
            ui.colored_label(theme::ERROR, format!("The lessons could not load: {}", e.report()));
            if ui.button("Try again").clicked() {
                ctx.send(LessonCommand::LoadKit);
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
                let (answers, predict, step) = (&mut self.answers, self.predict_first, &mut self.class_step);
                egui::ScrollArea::vertical().id_salt("lesson").auto_shrink([false, false]).show(ui, |ui| {
                    if class {
                        class_ui(ui, l, answers, step);
                    } else {
                        lesson_ui(ui, l, answers, predict);
                    }
                });
            }
        }
    }
}

impl LessonsView {
    fn toolbar_ui(&mut self, ui: &mut Ui, ctx: &ViewContext<'_>) {
        ui.horizontal(|ui| {
            ui.checkbox(&mut self.predict_first, "Predict first")
                .on_hover_text("Hide what follows each checkpoint until it is answered right or revealed");
            if ui
                .button("Save handout…")
                .on_hover_text("The lesson as printable HTML (or Markdown for .md), answers at the end")
                .clicked()
            {
                ctx.send(FileCommand::OpenDialog(DialogPurpose::SaveHandout));
            }
            if ui
                .button("Student handout…")
                .on_hover_text("The lesson as printable HTML (or Markdown for .md) for students: no answers")
                .clicked()
            {
                ctx.send(FileCommand::OpenDialog(DialogPurpose::SaveStudentHandout));
            }
            if ui
                .button("Export quiz…")
                .on_hover_text(
                    "The lesson's checkpoints as a quiz for Moodle: Moodle XML (.xml) or GIFT (.gift), numbers with \
                     their tolerances and the usual mistakes as feedback",
                )
                .clicked()
            {
                ctx.send(FileCommand::OpenDialog(DialogPurpose::SaveQuiz));
            }
            if ui.button("Assignment…").clicked() && self.assignment.is_none() {
                let lesson = self.current();
                // The current lesson's assignment, else the first lesson that has one.
                let lesson = crate::lessons::with_assignments()
                    .map(|(l, _)| l.id)
                    .find(|id| *id == lesson)
                    .or_else(|| crate::lessons::with_assignments().map(|(l, _)| l.id).next())
                    .unwrap_or_default()
                    .to_string();
                self.assignment = Some(AssignmentForm {
                    lesson,
                    roster: String::new(),
                    seed: 1,
                    out: "assignment".into(),
                    open_corpus: false,
                    seen: ctx.data.chosen.as_ref().map_or(0, |c| c.0),
                });
            }
            if ui.button("Class report…").on_hover_text("What the class got wrong in an assignment").clicked()
                && self.class_report.is_none()
            {
                self.class_report = Some(super::class_report::ClassReportForm {
                    seen: ctx.data.chosen.as_ref().map_or(0, |c| c.0),
                    ..Default::default()
                });
            }
            let mut class = ctx.data.class_mode;
            if ui.checkbox(&mut class, "Class mode").changed() {
                ctx.send(LessonCommand::SetClassMode(class));
            }
            if ctx.jobs.assignment.is_running() {
                crate::gui::widgets::spinner_ui(ui);
                ui.label("writing the assignment…");
            }
        });
    }

    /// Lessons → Assignment…: one variant per student of the roster, and the key.
    fn assignment_ui(&mut self, ui: &mut Ui, ctx: &ViewContext<'_>) {
        let Some(form) = &mut self.assignment else { return };
        let mut close = false;
        egui::Window::new("Assignment")
            .collapsible(false)
            .resizable(false)
            .anchor(egui::Align2::CENTER_TOP, [0.0, 90.0])
            .default_width(560.0)
            .show(ui.ctx(), |ui| {
            ui.label("One variant per student — different passages, questions and parameters, drawn with the seed — as DIR/<student>/questions.json and handout.html, and DIR/key.json for `ranklens assignment grade`.");
            egui::ComboBox::from_label("Lesson").selected_text(form.lesson.clone()).show_ui(ui, |ui| {
                for (l, a) in crate::lessons::with_assignments() {
                    ui.selectable_value(&mut form.lesson, l.id.to_string(), format!("{}: {}", l.id, a.asks));
                }
            });
            path_field_ui(ui, ctx, "Roster (CSV, first column the name)", &mut form.roster, &[Field::Roster], &mut form.seen, 320.0);
            ui.horizontal(|ui| {
                let l = ui.label("Seed");
                ui.add(egui::DragValue::new(&mut form.seed)).labelled_by(l.id);
            });
            path_field_ui(ui, ctx, "Write into the folder", &mut form.out, &[Field::AssignmentFolder], &mut form.seen, 320.0);
            ui.horizontal(|ui| {
                ui.radio_value(&mut form.open_corpus, false, "the bundled sample");
                let name = ctx.workbench().map_or_else(|| "the open corpus".to_string(), |e| e.corpus().name.clone());
                ui.radio_value(&mut form.open_corpus, true, format!("the open corpus ({name})"));
            });
            ui.horizontal(|ui| {
                let ready = !form.roster.trim().is_empty() && !form.out.trim().is_empty();
                if ui.add_enabled(ready, egui::Button::new("Write the assignment")).clicked() {
                    ctx.send(LessonCommand::MakeAssignment(AssignmentRequest {
                        lesson: form.lesson.clone(),
                        roster: form.roster.trim().into(),
                        seed: form.seed,
                        out: form.out.trim().into(),
                        open_corpus: form.open_corpus,
                    }));
                    close = true;
                }
                if ui.button("Close").clicked() {
                    close = true;
                }
            });
        });
        if close {
            self.assignment = None;
        }
    }
}

/// The knobs the current lesson's registry entry carries: numbers and choices three to a row (a
/// slider with its label does not wrap inside a wrapping row, so six on one ran off the window),
/// each line of text on its own.
fn knobs_ui(ui: &mut Ui, current: &str, p: &mut LessonParams) {
    let Ok(entry) = crate::lessons::lesson(current) else { return };
    let (text, controls): (Vec<Knob>, Vec<Knob>) = entry.knobs.iter().partition(|k| k.is_text());
    for row in controls.chunks(3) {
        ui.horizontal(|ui| {
            for &k in row {
                knob_ui(ui, k, p);
            }
        });
    }
    for k in text {
        knob_ui(ui, k, p);
    }
}

/// One knob's control: its range or width is the app's, its label the core's.
fn knob_ui(ui: &mut Ui, k: Knob, p: &mut LessonParams) {
    let w = &mut p.er_weights;
    let slider = match k {
        Knob::Bm25K => egui::Slider::new(&mut p.k, 0.0..=3.0).fixed_decimals(2),
        Knob::Bm25B => egui::Slider::new(&mut p.b, 0.0..=1.0).fixed_decimals(2),
        Knob::ReaderK => egui::Slider::new(&mut p.reader_k, 1..=3),
        Knob::ChunkWords => egui::Slider::new(&mut p.chunk_words, 4..=40),
        Knob::ChunkOverlap => egui::Slider::new(&mut p.chunk_overlap, 0..=20),
        Knob::BadCutChars => egui::Slider::new(&mut p.bad_cut_chars, 30..=200),
        Knob::ErThreshold => egui::Slider::new(&mut p.er_threshold, -5.0..=10.0).fixed_decimals(2),
        Knob::NameAgreeAt => egui::Slider::new(&mut w.name_agree_at, 0.5..=1.0).fixed_decimals(2),
        Knob::NameM => egui::Slider::new(&mut w.name_m, 0.5..=0.999).fixed_decimals(3),
        Knob::NameU => egui::Slider::new(&mut w.name_u, 0.001..=0.5).fixed_decimals(3),
        Knob::TypeM => egui::Slider::new(&mut w.type_m, 0.5..=0.999).fixed_decimals(3),
        Knob::TypeU => egui::Slider::new(&mut w.type_u, 0.001..=0.9).fixed_decimals(3),
        Knob::IdfBase => {
            egui::ComboBox::from_label(k.label()).selected_text(p.idf_base.name()).show_ui(ui, |ui| {
                for base in [IdfBase::Ten, IdfBase::E, IdfBase::Two] {
                    ui.selectable_value(&mut p.idf_base, base, base.name());
                }
            });
            return;
        }
        Knob::Rewrite => {
            labelled_text_ui(ui, k.label(), &mut p.rewrite, 420.0);
            return;
        }
        Knob::Draft => {
            labelled_text_ui(ui, k.label(), &mut p.draft, 520.0);
            return;
        }
        Knob::Reasoning => {
            labelled_text_ui(ui, k.label(), &mut p.reasoning, 520.0);
            return;
        }
    };
    ui.add(slider.text(k.label()));
}

/// Draw a lesson's blocks; with `predict_first`, nothing after a checkpoint not yet answered
/// right or revealed.
pub fn lesson_ui(ui: &mut Ui, l: &Lesson, answers: &mut CheckpointStates, predict_first: bool) {
    ui.label(RichText::new(&l.title).size(22.0).strong());
    for (i, b) in l.blocks.iter().enumerate() {
        block_ui(ui, i, b, checkpoint_number(&l.blocks, i), &l.id, answers);
        if predict_first
            && let Block::Checkpoint(c) = b
            && !answers.get(&(l.id.clone(), c.question.id.clone())).is_some_and(CheckpointState::done)
        {
            ui.add_space(6.0);
            ui.label(RichText::new("Answer the checkpoint above (or reveal it) to see what follows.").italics());
            return;
        }
    }
}

/// Class mode: the blocks up to the current checkpoint since the previous one, with Previous and
/// Next; the last step shows what follows the last checkpoint.
pub fn class_ui(ui: &mut Ui, l: &Lesson, answers: &mut CheckpointStates, step: &mut usize) {
    let stops: Vec<usize> =
        l.blocks.iter().enumerate().filter(|(_, b)| matches!(b, Block::Checkpoint(_))).map(|(i, _)| i).collect();
    let steps = stops.len() + 1;
    *step = (*step).min(steps - 1);
    ui.horizontal(|ui| {
        ui.label(RichText::new(&l.title).size(22.0).strong());
        ui.add_space(12.0);
        if ui.add_enabled(*step > 0, egui::Button::new("◀ Previous")).clicked() {
            *step -= 1;
        }
        let at = if *step < stops.len() {
            format!("checkpoint {} of {}", *step + 1, stops.len())
        } else {
            "the rest".into()
        };
        ui.label(at);
        if ui.add_enabled(*step + 1 < steps, egui::Button::new("Next ▶")).clicked() {
            *step += 1;
        }
    });
    let from = if *step == 0 { 0 } else { stops[*step - 1] + 1 };
    let to = stops.get(*step).map_or(l.blocks.len(), |&i| i + 1);
    for (i, b) in l.blocks.iter().enumerate().take(to).skip(from) {
        block_ui(ui, i, b, checkpoint_number(&l.blocks, i), &l.id, answers);
    }
}

/// The checkpoint's number in its lesson (1 for the first) when `blocks[i]` is one.
fn checkpoint_number(blocks: &[Block], i: usize) -> usize {
    blocks[..i].iter().filter(|b| matches!(b, Block::Checkpoint(_))).count() + 1
}

fn block_ui(ui: &mut Ui, i: usize, b: &Block, number: usize, lesson: &str, answers: &mut CheckpointStates) {
    match b {
        Block::Heading(h) => {
            ui.add_space(8.0);
            ui.label(with_code_spans(ui, h, Some(16.0), true));
        }
        Block::Text(t) => {
            ui.label(with_code_spans(ui, t, None, false));
        }
        Block::Warning(w) => {
            ui.colored_label(theme::WARNING, w);
        }
        Block::Table { caption, header, rows } => {
            ui.add_space(4.0);
            ui.label(with_code_spans(ui, caption, None, true));
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
            ui.label(with_code_spans(ui, caption, None, true));
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
        Block::Checkpoint(c) => {
            let state = answers.entry((lesson.to_string(), c.question.id.clone())).or_default();
            checkpoint_ui(ui, c, number, state);
        }
    }
}
