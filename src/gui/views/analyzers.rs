//! The analyzer view: one text through whitespace, standard and english (stop words on and off),
//! piece by piece, what differs, and how the question's BM25 ranking changes with each.

use egui::{RichText, Ui};

use super::View;
use crate::gui::command::ToolCommand;
use crate::gui::context::ViewContext;
use crate::gui::theme;

/// The text analysed, and what was last asked for.
#[derive(Default)]
pub struct AnalyzersView {
    /// The text.
    pub text: String,
    requested: Option<(String, String)>,
}

impl View for AnalyzersView {
    fn ui(&mut self, ui: &mut Ui, ctx: &ViewContext<'_>) {
        ui.heading("Analyzers: one text, five ways");
        ui.label("What each analyzer makes of the text (piece by piece: — means the piece is dropped), and the question ranked by BM25 under each. Lower-casing, punctuation, stop words and stemming decide which words can match at all.");
        let selected = ctx.data.selected_doc().and_then(|d| ctx.workbench()?.corpus().doc(d).map(|x| x.full_text()));
        if self.text.trim().is_empty() {
            self.text = selected.clone().unwrap_or_else(|| ctx.data.persisted.question.clone());
        }
        ui.horizontal(|ui| {
            let l = ui.label("Text to analyse");
            ui.add(egui::TextEdit::multiline(&mut self.text).desired_rows(2).desired_width(720.0)).labelled_by(l.id);
        });
        ui.horizontal(|ui| {
            if let Some(t) = &selected
                && ui.button("Use the selected passage").clicked()
            {
                self.text = t.clone();
            }
            if ui.button("Use the question").clicked() {
                self.text = ctx.data.persisted.question.clone();
            }
        });
        let wanted = (self.text.clone(), ctx.data.persisted.question.clone());
        if self.requested.as_ref() != Some(&wanted) && !ctx.jobs.analyzers.is_running() {
            ctx.send(ToolCommand::CompareAnalyzers(wanted.0.clone()));
            self.requested = Some(wanted);
        }
        let Some(c) = ctx.jobs.analyzers.latest() else {
            if let Some(e) = ctx.jobs.analyzers.failure() {
                ui.colored_label(theme::ERROR, e.report());
            }
            return;
        };
        egui::ScrollArea::vertical().auto_shrink([false, false]).show(ui, |ui| {
            ui.label(RichText::new("Piece by piece (rows where the analyzers disagree in bold)").strong());
            egui::Grid::new("pieces").striped(true).show(ui, |ui| {
                ui.label(RichText::new("piece").strong());
                for a in &c.analyzers {
                    ui.label(RichText::new(a).strong());
                }
                ui.end_row();
                for row in &c.pieces {
                    let text = |s: String| {
                        if row.differs { RichText::new(s).monospace().strong() } else { RichText::new(s).monospace() }
                    };
                    ui.label(text(row.piece.clone()));
                    for t in &row.terms {
                        ui.label(text(if t.is_empty() { "—".into() } else { t.join(" ") }));
                    }
                    ui.end_row();
                }
            });
            ui.add_space(8.0);
            ui.label(
                RichText::new(format!("`{}` ranked by BM25 under each analyzer", ctx.data.persisted.question)).strong(),
            );
            let reference = c.rankings.first().and_then(|r| r.top.first()).map(|t| t.0.clone()).unwrap_or_default();
            egui::Grid::new("analyzer-rankings").striped(true).show(ui, |ui| {
                for h in ["analyzer", "the question's terms", "top 5", &format!("rank of {reference}")] {
                    ui.label(RichText::new(h).strong());
                }
                ui.end_row();
                for r in &c.rankings {
                    ui.label(&r.analyzer);
                    ui.label(RichText::new(r.question_terms.join(" ")).monospace());
                    let top: Vec<&str> = r.top.iter().map(|t| t.0.as_str()).collect();
                    ui.label(if top.is_empty() { "nothing matches".to_string() } else { top.join(", ") });
                    ui.label(r.rank_of_reference.map_or_else(|| "not retrieved".into(), |r| r.to_string()));
                    ui.end_row();
                }
            });
        });
    }
}
