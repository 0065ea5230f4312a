//! Evaluate → "Retrieve, then read": the corpus's question set with answers read through one
//! method's rankings at k = 1, 2, 3, 5, 10, 20 — answer recall@k and the reader's exact match on
//! one plot, with what the numbers say about a larger k.

use egui::{RichText, Ui};
use egui_plot::{Legend, Line, Plot, PlotPoints, Points};

use crate::compare::AnswerStudy;
use crate::gui::command::ReadCommand;
use crate::gui::context::ViewContext;
use crate::gui::theme;
use crate::retrieve::MethodKind;

/// The panel: which method's rankings are read.
pub struct AnswerCurvePanel {
    method: MethodKind,
}

impl Default for AnswerCurvePanel {
    fn default() -> Self {
        Self { method: MethodKind::Bm25 }
    }
}

/// The curve's lines: (name, points).
pub fn curve_lines(study: &AnswerStudy) -> Vec<(String, Vec<[f64; 2]>)> {
    let mut lines = vec![(
        "answer recall@k (%)".to_string(),
        study.points.iter().map(|p| [p.k as f64, p.recall]).collect::<Vec<_>>(),
    )];
    if study.reader.is_some() {
        lines.push((
            "exact match (%)".to_string(),
            study.points.iter().filter_map(|p| Some([p.k as f64, p.exact_match?])).collect(),
        ));
        lines.push(("F1 (%)".to_string(), study.points.iter().filter_map(|p| Some([p.k as f64, p.f1?])).collect()));
    }
    lines
}

impl AnswerCurvePanel {
    /// Draw it.
    pub fn ui(&mut self, ui: &mut Ui, ctx: &ViewContext<'_>) {
        ui.heading("Retrieve, then read: the k trade-off");
        let Some(engine) = ctx.workbench() else { return };
        let Some(answers) = engine.corpus().answers.as_ref() else {
            ui.label(
                "This corpus ships no answers. Open one with an answers.tsv beside it (the sample has one), or \
                 SQuAD's JSON (File → Open a test collection → squad-dev).",
            );
            return;
        };
        ui.label(format!(
            "{} questions with answers ({} the corpus cannot answer) from {}.",
            answers.questions.len(),
            answers.unanswerable(),
            answers.source.file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_default()
        ));
        let settings = &ctx.data.persisted.settings;
        let ranked: Vec<MethodKind> =
            MethodKind::RANKED.into_iter().filter(|k| settings.methods.contains(k) || *k == MethodKind::Bm25).collect();
        if !ranked.contains(&self.method) {
            self.method = MethodKind::Bm25;
        }
        let reader = ctx.data.persisted.reading.reader.unwrap_or_else(|| engine.default_reader_kind());
        ui.horizontal_wrapped(|ui| {
            let label = ui.label("Read the rankings of");
            egui::ComboBox::from_id_salt("curve-method")
                .selected_text(self.method.label())
                .show_ui(ui, |ui| {
                    for k in &ranked {
                        ui.selectable_value(&mut self.method, *k, k.label());
                    }
                })
                .response
                .labelled_by(label.id);
            ui.label(format!("with the {} (the reader chosen under Compare → Read)", reader.label()));
            let running = ctx.jobs.answer_study.is_running();
            if ui.add_enabled(!running, egui::Button::new("Measure at k = 1 … 20")).clicked() {
                ctx.send(ReadCommand::Study(self.method));
            }
            if running {
                crate::gui::widgets::spinner_ui(ui);
            }
        });
        if let Some(study) = ctx.jobs.answer_study.latest() {
            curve_ui(ui, study);
        }
    }
}

/// The plot, the verdict and the table.
pub fn curve_ui(ui: &mut Ui, study: &AnswerStudy) {
    let reader = study.reader.as_ref().map_or("no reader".to_string(), |r| r.label());
    ui.label(RichText::new(format!("{} · {reader}", study.method)).strong());
    Plot::new("answer-curve")
        .height(240.0)
        .x_axis_label("k (passages read)")
        .y_axis_label("%")
        .include_y(0.0)
        .include_y(100.0)
        .legend(Legend::default().position(egui_plot::Corner::RightBottom))
        .show(ui, |plot| {
            for (name, pts) in curve_lines(study) {
                plot.line(Line::new(name.clone(), PlotPoints::new(pts.clone())));
                plot.points(Points::new(name, PlotPoints::new(pts)).radius(3.0));
            }
        });
    ui.label(RichText::new(study.verdict()).color(theme::LITERAL));
    egui::Grid::new("answer-curve-table").striped(true).show(ui, |ui| {
        for h in ["k", "recall@k", "EM", "F1", "answered"] {
            ui.label(RichText::new(h).strong());
        }
        ui.end_row();
        for p in &study.points {
            ui.label(p.k.to_string());
            ui.label(format!("{:.1}", p.recall));
            ui.label(p.exact_match.map_or("—".into(), |v| format!("{v:.1}")));
            ui.label(p.f1.map_or("—".into(), |v| format!("{v:.1}")));
            ui.label(p.answered.to_string());
            ui.end_row();
        }
    });
    if study.reader.is_some() {
        ui.label(RichText::new(format!("Readout took {:.2} s a question.", study.seconds_per_question())).small());
    }
}
