//! The evaluate view: grade passages (keys 0–3), see every method's metrics for the question
//! update as grades change (unjudged passages counted), and evaluate the whole question set with
//! wins, losses and a paired significance test against a baseline.

use egui::{RichText, Ui};

use super::{View, method_tag_ui};
use crate::eval::MAX_GRADE;
use crate::gui::command::Command;
use crate::gui::context::ViewContext;
use crate::gui::judging::{DialogPurpose, question_metrics};
use crate::gui::theme;
use crate::gui::widgets::ellipsis;
use crate::retrieve::MethodKind;

/// Grade buttons for the selected passage.
pub fn grade_buttons_ui(ui: &mut Ui, ctx: &ViewContext<'_>) {
    let Some(doc) = ctx.data.selected_doc() else {
        ui.weak("Select a passage to grade it (keys 0–3).");
        return;
    };
    let Some(engine) = ctx.engine() else { return };
    let id = engine.corpus().external_id(doc).to_string();
    let current = ctx.data.grades.get(&id).copied();
    ui.horizontal(|ui| {
        ui.label(RichText::new(format!("Grade {id}:")).strong());
        for g in 0..=MAX_GRADE {
            if ui.selectable_label(current == Some(g), format!("{g}")).on_hover_text(grade_name(g)).clicked() {
                ctx.send(Command::SetGrade { doc, grade: Some(g) });
            }
        }
        if ui.button("Clear grade").clicked() {
            ctx.send(Command::SetGrade { doc, grade: None });
        }
        ui.weak("keys 0–3, Delete clears");
    });
}

fn grade_name(g: i32) -> &'static str {
    match g {
        0 => "not relevant",
        1 => "related",
        2 => "relevant",
        _ => "perfect answer",
    }
}

/// The evaluate view.
#[derive(Default)]
pub struct EvaluateView;

impl View for EvaluateView {
    fn ui(&mut self, ui: &mut Ui, ctx: &ViewContext<'_>) {
        ui.heading("This question");
        grade_buttons_ui(ui, ctx);
        match ctx.ranked().and_then(|r| question_metrics(ctx.data, r)) {
            None => {
                ui.label("Run a question to see its metrics.");
            }
            Some(m) => {
                let n = ctx.data.grades.len();
                ui.label(format!("{n} passage(s) graded for this question. Unjudged passages count as not relevant; the last column says how many there are in each top k."));
                egui::Grid::new("question-metrics").striped(true).show(ui, |ui| {
                    ui.label(RichText::new("method").strong());
                    for metric in &m.metrics.0 {
                        ui.label(RichText::new(metric.to_string()).strong());
                    }
                    ui.label(RichText::new("unjudged in top k").strong());
                    ui.end_row();
                    for (label, kind, values, unjudged) in &m.values {
                        ui.horizontal(|ui| method_tag_ui(ui, *kind, &ellipsis(label, 40)));
                        for metric in &m.metrics.0 {
                            ui.label(
                                RichText::new(format!("{:.4}", values.get(metric).copied().unwrap_or(0.0))).monospace(),
                            );
                        }
                        let color = if *unjudged > 0 { theme::WARNING } else { ui.visuals().text_color() };
                        ui.colored_label(color, unjudged.to_string());
                        ui.end_row();
                    }
                });
            }
        }
        ui.horizontal(|ui| {
            for (label, purpose) in [
                ("Export grades (TREC qrels)…", DialogPurpose::ExportQrels),
                ("Import grades (qrels)…", DialogPurpose::ImportQrels),
                ("Export report…", DialogPurpose::SaveReport),
            ] {
                if ui.button(label).clicked() {
                    ctx.send(Command::OpenDialog(purpose));
                }
            }
        });
        ui.separator();
        ui.heading("The question set");
        let judged = ctx.data.all_qrels().judgements.len();
        ui.label(format!("{judged} question(s) with judgements in this corpus (shipped and your own)."));
        ui.horizontal(|ui| {
            let mut baseline = ctx.data.baseline;
            egui::ComboBox::from_label("Baseline").selected_text(baseline.label()).show_ui(ui, |ui| {
                // Any ranked method but the reranker.
                for k in MethodKind::RANKED.into_iter().filter(|k| *k != MethodKind::Rerank) {
                    ui.selectable_value(&mut baseline, k, k.label());
                }
            });
            if baseline != ctx.data.baseline {
                ctx.send(Command::SetBaseline(baseline));
            }
            if ctx.jobs.study.is_running() {
                ui.spinner();
            } else if ui.button("Evaluate every method").clicked() {
                ctx.send(Command::RunStudy);
            }
        });
        let Some(study) = ctx.jobs.study.ready() else { return };
        egui::Grid::new("study").striped(true).show(ui, |ui| {
            ui.label(RichText::new("method").strong());
            for metric in &study.metrics.0 {
                ui.label(RichText::new(metric.to_string()).strong());
            }
            for h in ["wins/losses/ties", "p (randomisation)", "p (t-test)"] {
                ui.label(RichText::new(h).strong());
            }
            ui.end_row();
            for (i, m) in study.methods.iter().enumerate() {
                ui.horizontal(|ui| method_tag_ui(ui, m.kind, &ellipsis(&m.label, 40)));
                for metric in &study.metrics.0 {
                    ui.label(
                        RichText::new(format!("{:.4}", m.summary.mean.get(metric).copied().unwrap_or(0.0))).monospace(),
                    );
                }
                match &m.versus_baseline {
                    Some(p) => {
                        ui.label(format!("{}/{}/{}", p.wins, p.losses, p.ties));
                        let strong = p.p_randomisation < 0.05;
                        ui.label(RichText::new(format!("{:.4}", p.p_randomisation)).strong().color(if strong {
                            theme::LITERAL
                        } else {
                            ui.visuals().text_color()
                        }));
                        ui.label(format!("{:.4}", p.p_t_test));
                    }
                    None if i == study.baseline => {
                        ui.label("baseline");
                        ui.label("");
                        ui.label("");
                    }
                    None => {}
                }
                ui.end_row();
            }
        });
        let (a, b) = study.pair;
        if a != b && !study.disagreements.is_empty() {
            ui.label(
                RichText::new(format!(
                    "Where {} and {} disagree most ({}) — click to inspect",
                    study.methods[a].label, study.methods[b].label, study.primary
                ))
                .strong(),
            );
            for d in &study.disagreements {
                ui.horizontal(|ui| {
                    if ui.link(format!("{} · {}", d.qid, ellipsis(&d.question, 80))).clicked() {
                        ctx.send(Command::AskQuestion(d.question.clone()));
                    }
                    ui.label(RichText::new(format!("{:.3} vs {:.3}", d.a, d.b)).monospace());
                });
            }
        }
    }
}
