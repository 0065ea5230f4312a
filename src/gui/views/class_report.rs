//! Lessons → Class report…: an assignment's key and the class's answers in, what the class got
//! wrong out — per question the share right, each named mistake with who made it, the wrong
//! answers no known mistake explains (for the teacher to read), the blanks, the scores — and a
//! printable page of it.

use egui::{RichText, Ui};

use crate::classroom::ClassReport;
use crate::gui::command::{FileCommand, LessonCommand};
use crate::gui::context::ViewContext;
use crate::gui::dialog::{DialogPurpose, Field};
use crate::gui::theme;
use crate::gui::widgets::{bar_ui, labelled_text_ui, path_field_ui};

/// The class report's fields.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct ClassReportForm {
    /// The key file.
    pub key: String,
    /// The answers: a folder of `<student>.json` files, or a CSV.
    pub answers: String,
    /// Where to save the printable page.
    pub save_as: String,
    /// The roster whose identifier columns the gradebook files carry (optional).
    pub roster: String,
    /// The serial of the last chosen path a field took.
    pub seen: u64,
}

/// The window: the files, then the report.
pub fn class_report_ui(ui: &mut Ui, ctx: &ViewContext<'_>, form: &mut ClassReportForm) -> bool {
    let mut close = false;
    egui::Window::new("Class report")
        .collapsible(false)
        .anchor(egui::Align2::CENTER_TOP, [0.0, 90.0])
        .default_width(640.0)
        .show(ui.ctx(), |ui| {
            ui.label(
                "What the class got wrong: each answer checked against its student's key, each wrong number recomputed \
                 with the usual mistakes, and the answers no mistake explains listed for you to read.",
            );
            path_field_ui(ui, ctx, "Key (key.json)", &mut form.key, &[Field::Key], &mut form.seen, 300.0);
            path_field_ui(
                ui,
                ctx,
                "Answers (a folder of <student>.json, or a CSV)",
                &mut form.answers,
                &[Field::AnswersFile, Field::AnswersFolder],
                &mut form.seen,
                240.0,
            );
            path_field_ui(
                ui,
                ctx,
                "Roster for the gradebook's ids (optional)",
                &mut form.roster,
                &[Field::GradebookRoster],
                &mut form.seen,
                240.0,
            );
            ui.horizontal(|ui| {
                let ready = !form.key.trim().is_empty() && !form.answers.trim().is_empty();
                if ui.add_enabled(ready, egui::Button::new("Read the answers")).clicked() {
                    ctx.send(LessonCommand::ClassReport {
                        key: form.key.trim().into(),
                        answers: form.answers.trim().into(),
                        roster: Some(form.roster.trim()).filter(|r| !r.is_empty()).map(Into::into),
                    });
                }
                if ui.button("Close").clicked() {
                    close = true;
                }
                if ctx.jobs.class_report.is_running() {
                    crate::gui::widgets::spinner_ui(ui);
                }
            });
            if let Some(e) = ctx.jobs.class_report.failure() {
                ui.colored_label(theme::ERROR, e.report());
            }
            if let Some(report) = ctx.jobs.class_report.ready() {
                ui.separator();
                egui::ScrollArea::vertical().id_salt("class-report").max_height(520.0).show(ui, |ui| {
                    report_ui(ui, report);
                });
                ui.horizontal(|ui| {
                    if form.save_as.is_empty() {
                        form.save_as = "class-report.html".into();
                    }
                    labelled_text_ui(ui, "Save as", &mut form.save_as, 260.0);
                    if ui.button("Save the printable page").clicked() {
                        ctx.send(LessonCommand::SaveClassReport(form.save_as.trim().into()));
                    }
                });
                ui.horizontal(|ui| {
                    ui.label("The grades for your course's gradebook:");
                    if ui.button("Moodle gradebook (CSV)…").clicked() {
                        ctx.send(FileCommand::OpenDialog(DialogPurpose::SaveGradebookMoodle));
                    }
                    if ui.button("Canvas gradebook (CSV)…").clicked() {
                        ctx.send(FileCommand::OpenDialog(DialogPurpose::SaveGradebookCanvas));
                    }
                });
            }
        });
    close
}

/// The report: one block per question, then the scores.
fn report_ui(ui: &mut Ui, report: &ClassReport) {
    ui.label(RichText::new(format!("{}: {} students graded", report.lesson, report.scores.len())).strong());
    let not_graded = report.needs_a_look();
    if !not_graded.is_empty() {
        ui.colored_label(theme::WARNING, RichText::new("Needs a look").strong());
        for line in &not_graded {
            ui.colored_label(theme::WARNING, format!("  {line}"));
        }
    }
    for q in &report.questions {
        ui.add_space(6.0);
        ui.horizontal(|ui| {
            ui.label(RichText::new(&q.id).strong().monospace());
            let share = if q.students == 0 { 0.0 } else { q.right as f32 / q.students as f32 };
            bar_ui(ui, share, 120.0, theme::LITERAL);
            ui.label(format!("{} right of {} ({} answered)", q.right, q.students, q.answered));
        });
        ui.label(RichText::new(&q.prompt).small().weak());
        for m in &q.mistakes {
            ui.label(format!("  {} × {} — {}", m.count, m.name, m.students.join(", ")));
        }
        for u in &q.unmatched {
            ui.colored_label(
                theme::WARNING,
                format!("  no known mistake: {} wrote {} (key {})", u.student, u.answer, u.key),
            );
        }
        if !q.unanswered.is_empty() {
            ui.label(RichText::new(format!("  not answered: {}", q.unanswered.join(", "))).small());
        }
    }
    ui.add_space(6.0);
    ui.label(RichText::new("Scores").strong());
    let most = report.distribution.iter().copied().max().unwrap_or(1).max(1);
    for (points, n) in report.distribution.iter().enumerate() {
        ui.horizontal(|ui| {
            ui.label(format!("{points:>2} points"));
            bar_ui(ui, *n as f32 / most as f32, 160.0, theme::HIGHLIGHT);
            ui.label(format!("{n}"));
        });
    }
}
