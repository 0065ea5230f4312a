//! The RAG view: the best list of the current question (reranked when a reranker is here, else
//! fused, else BM25) assembled into a prompt that cites its passages, and the language model's
//! answer to it, streamed, with each citation resolved to its passage (or flagged when the prompt
//! had no such passage) and each cited sentence shown with the words its passage shares with it.

use egui::{RichText, Ui};

use super::View;
use crate::gui::command::Command;
use crate::gui::command::DialogPurpose;
use crate::gui::context::ViewContext;
use crate::gui::jobs::JobKind;
use crate::gui::state::{AppData, Message, RagAnswer, Ranked};
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
        let (source, passages) = self.passages(data, ranked)?;
        Some((source, crate::lessons::rag_prompt(&ranked.run.comparison.question, &passages)))
    }

    /// The passages of the prompt: (which list they came from, (id, text) best first).
    pub fn passages(&self, data: &AppData, ranked: &Ranked) -> Option<(String, Vec<(String, String)>)> {
        let engine = data.engine.as_ref()?;
        let list = crate::lessons::best_list(&ranked.run.comparison)?;
        Some((list.method.clone(), crate::lessons::rag_passages(engine.corpus(), list, self.passages)))
    }
}

impl View for RagView {
    fn ui(&mut self, ui: &mut Ui, ctx: &ViewContext<'_>) {
        ui.heading("Retrieval-augmented generation");
        ui.label(
            "The top passages of the best list for the current question (reranked when a reranker is here, else \
             fused, else BM25), numbered, under an instruction to answer only from them and cite them. The \
             language model (Models → Generator) answers; copy or export the prompt to ask another.",
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
        if let Some(ranked) = ctx.ranked() {
            self.answer_ui(ui, ctx, ranked);
        }
        ui.separator();
        egui::ScrollArea::vertical().id_salt("rag-prompt").show(ui, |ui| {
            let label = ui.label(RichText::new("Prompt").strong());
            ui.add(egui::TextEdit::multiline(&mut prompt.as_str()).desired_width(f32::INFINITY).code_editor())
                .labelled_by(label.id);
        });
    }
}

impl RagView {
    /// The answer: a button to ask the model, the text as it streams, then the answer read.
    fn answer_ui(&self, ui: &mut Ui, ctx: &ViewContext<'_>, ranked: &Ranked) {
        let generator = ctx.engine().and_then(|e| e.generator());
        let job = &ctx.jobs.answer;
        ui.horizontal_wrapped(|ui| match &generator {
            Some(g) => {
                if job.is_running() {
                    crate::gui::widgets::spinner_ui(ui);
                    if ui.button("Stop").clicked() {
                        ctx.send(Command::Cancel(JobKind::Answer));
                    }
                } else if ui.button("Answer with the language model").clicked()
                    && let Some((source, passages)) = self.passages(ctx.data, ranked)
                {
                    ctx.send(Command::Answer(ranked.run.comparison.question.clone(), source, passages));
                }
                generator_label_ui(ui, g.info(), "");
            }
            None => no_generator_ui(ui),
        });
        if job.is_running() {
            let live = ctx.data.live_answer.lock().map(|l| l.clone()).unwrap_or_default();
            ui.label(if live.is_empty() { "reading the prompt…".to_string() } else { live });
            return;
        }
        if let Some(e) = job.failure() {
            ui.colored_label(theme::WARNING, format!("The model could not answer: {}", e.report()));
            return;
        }
        let Some(done) = job.latest() else { return };
        if done.question != ranked.run.comparison.question {
            ui.label(RichText::new(format!("(the last answer was to “{}”)", done.question)).small().weak());
            return;
        }
        answer_read_ui(ui, done);
    }
}

/// What wrote (or judges) the text: the model's label after `prefix`, and its caveat.
pub fn generator_label_ui(ui: &mut Ui, info: &crate::generate::GeneratorInfo, prefix: &str) {
    ui.label(RichText::new(format!("{prefix}{}", info.label())).small());
    if let Some(c) = &info.caveat {
        ui.label(RichText::new(format!("— {c}")).small().color(theme::WARNING));
    }
}

/// Where to get a language model when none is loaded.
pub fn no_generator_ui(ui: &mut Ui) {
    ui.label(
        RichText::new("No language model: load the embedded one or name a chat server in Models → Generator.")
            .small()
            .weak(),
    );
}

/// The answer read: each sentence with its citations and the words its passages share with it.
fn answer_read_ui(ui: &mut Ui, done: &RagAnswer) {
    let g = &done.generated;
    ui.label(
        RichText::new(format!(
            "Answer by {} from {} · {} prompt tokens, {} written in {:.1} s",
            g.model, done.source, g.prompt_tokens, g.completion_tokens, g.seconds
        ))
        .small(),
    );
    let a = &done.answer;
    for s in &a.sentences {
        ui.label(&s.text);
        for n in &s.cites {
            match done.passages.get(n.wrapping_sub(1)) {
                None => {
                    ui.colored_label(
                        theme::WARNING,
                        format!("   [{n}] is not in the prompt: the model cited a passage it was not given"),
                    );
                }
                Some((id, _)) => {
                    let words = s.support.iter().find(|x| x.n == *n).map(|x| x.words.clone()).unwrap_or_default();
                    if words.is_empty() {
                        ui.colored_label(
                            theme::WARNING,
                            format!("   [{n}] {id} shares no word with this sentence: check it"),
                        );
                    } else {
                        ui.label(RichText::new(format!("   [{n}] {id}: shares {}", words.join(", "))).small());
                    }
                }
            }
        }
    }
    if a.citations.is_empty() {
        ui.colored_label(theme::WARNING, "The answer cites no passage: nothing in it is backed by the prompt.");
    }
}
