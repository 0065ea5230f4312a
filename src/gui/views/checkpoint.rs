//! One checkpoint of a lesson in the app: the question and its tolerance, the answer box (or the
//! options), Check and Reveal, and what the student has done with it.

use egui::{RichText, Ui};

use crate::gui::theme;
use crate::lessons::checkpoint::{Answer, AnswerKind, Checkpoint, Verdict};

/// What a student has done with one checkpoint.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct CheckpointState {
    /// What was typed (or the option picked).
    pub typed: String,
    /// The checker's last word.
    pub verdict: Option<Verdict>,
    /// The answer and its working are shown.
    pub revealed: bool,
}

impl CheckpointState {
    /// Answered right, or revealed: what follows may be shown.
    pub fn done(&self) -> bool {
        self.revealed || self.verdict.as_ref().is_some_and(|v| v.correct)
    }
}

/// One checkpoint, numbered in its lesson: the question and its tolerance, the answer box (or the
/// options), Check and Reveal; the checker's verdict names the usual mistake the answer matches.
/// What a student reads names the checkpoint by its number, never by its id.
pub fn checkpoint_ui(ui: &mut Ui, c: &Checkpoint, number: usize, state: &mut CheckpointState) {
    ui.add_space(6.0);
    egui::Frame::group(ui.style()).stroke(egui::Stroke::new(1.5, theme::LITERAL)).show(ui, |ui| {
        ui.set_width(ui.available_width().min(900.0));
        ui.label(RichText::new(format!("Checkpoint {number}")).strong().color(theme::LITERAL));
        ui.add(egui::Label::new(crate::gui::widgets::with_code_spans(ui, &c.question.prompt, Some(15.0), true)).wrap());
        ui.label(RichText::new(format!("({})", c.tolerance_text())).weak());
        let label = format!("Your answer to checkpoint {number}");
        let mut submit = false;
        match c.question.kind {
            AnswerKind::Choice => {
                ui.horizontal_wrapped(|ui| {
                    for o in &c.question.options {
                        if ui.selectable_label(state.typed == *o, o).clicked() {
                            state.typed = o.clone();
                            submit = true;
                        }
                    }
                });
            }
            AnswerKind::Number | AnswerKind::Ordering => {
                ui.horizontal(|ui| {
                    let l = ui.label(&label);
                    let hint = if c.question.kind == AnswerKind::Ordering {
                        format!("in order, separated by commas: {}", c.question.options.join(", "))
                    } else {
                        "a number".into()
                    };
                    let r = ui
                        .add(egui::TextEdit::singleline(&mut state.typed).hint_text(hint).desired_width(320.0))
                        .labelled_by(l.id);
                    submit |= r.lost_focus() && ui.input(|i| i.key_pressed(egui::Key::Enter));
                    submit |= ui.button(format!("Check checkpoint {number}")).clicked();
                });
            }
        }
        if submit {
            state.verdict = Some(match Answer::parse(c.question.kind, &state.typed) {
                Ok(a) => c.check(&a),
                Err(why) => Verdict { correct: false, mistake: None, message: why },
            });
        }
        if let Some(v) = &state.verdict {
            let colour = if v.correct { theme::LITERAL } else { theme::ERROR };
            let mark = if v.correct { "✔" } else { "✘" };
            ui.colored_label(colour, format!("{mark} {}", v.message));
        }
        if state.revealed {
            ui.label(RichText::new(format!("Answer: {}", c.solution.answer.to_text())).strong());
            for s in &c.solution.steps {
                ui.label(RichText::new(s).monospace());
            }
        } else if ui.button(format!("Reveal checkpoint {number}'s answer")).clicked() {
            state.revealed = true;
        }
    });
}
