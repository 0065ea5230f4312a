//! The RAG view: the best list of the current question (reranked when a reranker is here, else
//! fused, else BM25) assembled into a prompt that cites its passages.

use egui::{RichText, Ui};

use super::View;
use crate::gui::command::Command;
use crate::gui::command::DialogPurpose;
use crate::gui::context::ViewContext;
use crate::gui::state::{AppData, Message, Ranked};
use crate::gui::theme;

/// The RAG view: how many passages go into the prompt.
pub struct RagView {
    /// Passages in the prompt.
    pub passages: usize,
}

impl Default for RagView {
    fn default() -> Self {
        Self { passages: 5 }
    }
}

impl RagView {
    /// The prompt for the current question: (which list it drew from, the prompt).
    pub fn prompt(&self, data: &AppData, ranked: &Ranked) -> Option<(String, String)> {
        let engine = data.engine.as_ref()?;
        let comparison = &ranked.run.comparison;
        let list = crate::lessons::best_list(comparison)?;
        let passages = crate::lessons::rag_passages(engine.corpus(), list, self.passages);
        Some((list.method.clone(), crate::lessons::rag_prompt(&comparison.question, &passages)))
    }
}

impl View for RagView {
    fn ui(&mut self, ui: &mut Ui, ctx: &ViewContext<'_>) {
        ui.heading("Retrieval-augmented generation: the prompt");
        ui.label(
            "The top passages of the best list for the current question (reranked when a reranker is here, else \
             fused, else BM25), numbered, under an instruction to answer only from them and cite them. RankLens \
             does not call a language model: copy the prompt or export it.",
        );
        ui.horizontal(|ui| {
            ui.add(egui::Slider::new(&mut self.passages, 1..=10).text("passages"));
        });
        let Some((source, prompt)) = ctx.ranked().and_then(|r| self.prompt(ctx.data, r)) else {
            ui.label("Ask a question first: the prompt is built from its ranked lists.");
            return;
        };
        ui.horizontal(|ui| {
            ui.label(RichText::new(format!("From: {source}")).strong());
            if ui.button("Copy").clicked() {
                ui.ctx().copy_text(prompt.clone());
                ctx.send(Command::Notify(Message::warning("prompt copied to the clipboard")));
            }
            if ui.button("Export…").clicked() {
                ctx.send(Command::OpenDialog(DialogPurpose::ExportPrompt));
            }
        });
        ui.colored_label(
            theme::WARNING,
            "A model given this prompt can still be wrong; check each cited passage before trusting an answer.",
        );
        egui::ScrollArea::vertical().id_salt("rag-prompt").show(ui, |ui| {
            let label = ui.label(RichText::new("Prompt").strong());
            ui.add(egui::TextEdit::multiline(&mut prompt.as_str()).desired_width(f32::INFINITY).code_editor())
                .labelled_by(label.id);
        });
    }
}
