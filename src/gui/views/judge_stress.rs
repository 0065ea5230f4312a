//! The judge's report card, in the Evaluate view's judge panel: the judge that made the kept
//! judgements put under attack in the background (the question's words pasted into passages it
//! called not relevant, an instruction inside them, the same pairs asked a second way), with τ over
//! every method and over their best half, κ beside the raw agreement, and the verdict first
//! (`compare::judge_stress`, the same code as `ranklens judge --stress`).

use egui::{ProgressBar, RichText, Ui};

use crate::compare::judge_stress::{FOOLED, STABLE, StressCard};
use crate::gui::command::{LlmCommand, ShellCommand};
use crate::gui::context::ViewContext;
use crate::gui::jobs::{JobKind, WorkItem};
use crate::gui::theme;

/// The section: the button, the run with its progress and Stop, then the card.
pub fn stress_ui(ui: &mut Ui, ctx: &ViewContext<'_>, k: usize, questions: usize, can_ask: bool) {
    ui.separator();
    ui.label(RichText::new("The judge's report card").strong().size(15.0));
    let job = &ctx.jobs.judge_stress;
    if let Some(view) = job.running() {
        ui.horizontal(|ui| {
            crate::gui::widgets::spinner_ui(ui);
            let p = &view.progress;
            let fraction = if p.total > 0 { p.done as f32 / p.total as f32 } else { 0.0 };
            ui.add(
                ProgressBar::new(fraction)
                    .desired_width(260.0)
                    .text(format!("{} — {} of {}", p.stage, p.done, p.total)),
            );
            if ui.button("Stop").clicked() {
                ctx.send(ShellCommand::Cancel(JobKind::JudgeStress));
            }
        });
        ui.label(RichText::new("every reply is kept: asking again resumes where it stopped").small().weak());
    } else {
        ui.horizontal_wrapped(|ui| {
            let label = if job.latest().is_some() { "Ask again" } else { "Put the judge under attack" };
            if ui
                .add_enabled(can_ask, egui::Button::new(label))
                .on_hover_text(
                    "The question's words pasted into passages it called not relevant (front, end, a sentence), an \
                     instruction inside them, the same pairs asked with the examples swapped; τ over the pool's \
                     methods",
                )
                .clicked()
            {
                ctx.send(LlmCommand::StressJudge { k, questions });
            }
            ui.label(
                RichText::new(
                    "Alaofi et al. showed judges can be fooled by pasted question words; this measures yours.",
                )
                .small()
                .weak(),
            );
        });
    }
    if let Some(e) = job.failure() {
        ui.colored_label(theme::ERROR, format!("The card could not be made: {}", e.report()));
    }
    if let Some(card) = job.latest() {
        card_ui(ui, card);
    }
}

/// The verdict first, then each figure of the card (the rows every front end shows).
pub fn card_ui(ui: &mut Ui, card: &StressCard) {
    let failed = card.verdict.starts_with("do not trust");
    let colour = if failed { theme::WARNING } else { theme::LITERAL };
    ui.colored_label(colour, RichText::new(&card.verdict).strong());
    ui.label(
        RichText::new(format!("{} · {} questions · methods: {}", card.model, card.questions, card.methods.join(", ")))
            .small()
            .weak(),
    );
    egui::Grid::new("judge-stress-card").striped(true).num_columns(2).show(ui, |ui| {
        for (figure, value) in card.rows() {
            ui.label(figure);
            ui.label(RichText::new(value).monospace());
            ui.end_row();
        }
    });
    ui.label(
        RichText::new(format!(
            "A flip rate whose interval starts above {FOOLED} means the attack fools the judge; a stability under \
             {STABLE} means it changes its mind when nothing that matters changed; τ's interval under {} means it \
             cannot rank these methods.",
            crate::eval::TRUSTED_TAU
        ))
        .small()
        .weak(),
    );
}
