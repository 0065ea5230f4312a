//! Can this judge rank the methods? In the Evaluate view's judge panel: the question set's study
//! evaluated under the people's judgements and under the model's, the two orders of the methods
//! compared (Kendall τ with its 95 % bootstrap interval), the pairs whose paired test flips, and
//! κ — measured on a click and kept until the study or the judgements change (`eval::validity`).

use std::sync::Arc;

use egui::{RichText, Ui};

use super::view::Same;
use crate::compare::Study;
use crate::compare::judge::ModelJudgements;
use crate::eval::Validity;
use crate::gui::context::ViewContext;
use crate::gui::theme;

/// What was measured, and for which study and judgements.
#[derive(Default)]
pub struct ValidityState {
    measured: Option<(Same<Study>, usize, Validity)>,
}

impl ValidityState {
    /// The section: a button while nothing current is measured, then the verdict and its figures.
    pub fn ui(&mut self, ui: &mut Ui, ctx: &ViewContext<'_>, j: &ModelJudgements) {
        ui.separator();
        ui.label(RichText::new("Can this judge rank the methods?").strong().size(15.0));
        let Some(study) = ctx.jobs.study.ready() else {
            ui.label(
                "Evaluate the question set above first: its methods are then ranked under the people's judgements \
                 and under the model's, and the two orders compared.",
            );
            return;
        };
        let current =
            self.measured.as_ref().is_some_and(|(s, n, _)| Arc::ptr_eq(&s.0, study) && *n == j.judgements.len());
        if !current {
            if self.measured.is_some() {
                ui.label(RichText::new("The study or the judgements changed since it was measured.").weak());
            }
            let ready = study.methods.len() >= 2 && !j.judgements.is_empty();
            if ui
                .add_enabled(ready, egui::Button::new("Measure the judge against the people's order"))
                .on_hover_text("Kendall τ between the methods' two orders, its 95 % interval, the flipped pairs")
                .clicked()
            {
                let v = study.validity(&ctx.data.all_qrels(), &j.qrels());
                self.measured = Some((Same(study.clone()), j.judgements.len(), v));
            }
            return;
        }
        if let Some((_, _, v)) = &self.measured {
            validity_ui(ui, v);
        }
    }
}

/// The verdict first, beside every figure drawn from the judge's labels when it cannot be trusted.
pub fn validity_ui(ui: &mut Ui, v: &Validity) {
    let colour = if v.trusted { theme::LITERAL } else { theme::WARNING };
    ui.colored_label(colour, RichText::new(&v.verdict).strong());
    let judge_header = if v.trusted { "under the judge".to_string() } else { "under the judge (not trusted)".into() };
    egui::Grid::new("judge-validity").striped(true).show(ui, |ui| {
        for h in ["method", &format!("{} under the people", v.metric), &judge_header] {
            ui.label(RichText::new(h).small().strong());
        }
        ui.end_row();
        for s in &v.systems {
            ui.label(&s.label);
            ui.label(RichText::new(format!("{:.4}", s.people)).monospace());
            let judge = RichText::new(format!("{:.4}", s.judge)).monospace();
            if v.trusted {
                ui.label(judge);
            } else {
                ui.colored_label(theme::WARNING, judge);
            }
            ui.end_row();
        }
    });
    ui.label(format!(
        "Kendall τ {}, 95 % interval {} ({} resamples of the {} questions both judged, seed {:#x})",
        v.tau_text(3),
        v.interval_text(3),
        v.resamples,
        v.questions,
        v.seed
    ));
    if v.flips.is_empty() {
        ui.label(format!("No pair of the {} flips its paired-test conclusion (Holm, α 0.05).", v.pairs));
    } else {
        ui.label(format!("{} of {} pairs flip their paired-test conclusion (Holm, α 0.05):", v.flips.len(), v.pairs));
        for f in &v.flips {
            ui.colored_label(theme::WARNING, format!("• {}", f.text));
        }
    }
    let kappa = v.kappa.map_or("undefined".into(), |k| format!("{k:.3}"));
    ui.label(
        RichText::new(format!("Cohen's κ {kappa} over {} labelled passages; {}.", v.agreement.n, v.unjudged))
            .small()
            .weak(),
    );
}
