//! The RAG view: the best list of the current question (reranked when a reranker is here, else
//! fused, else BM25) assembled into a prompt that cites its passages, and the language model's
//! answer to it, streamed, with each citation resolved to its passage (or flagged when the prompt
//! had no such passage) and each cited sentence shown with the words its passage shares with it.

use egui::{RichText, Ui};

use super::{Memo, View};
use crate::gui::command::AnswerRequest;
use crate::gui::command::Command;
use crate::gui::command::FileCommand;
use crate::gui::command::LlmCommand;
use crate::gui::command::ShellCommand;
use crate::gui::context::ViewContext;
use crate::gui::dialog::DialogPurpose;
use crate::gui::jobs::JobKind;
use crate::gui::state::{AnswerPiece, AppData, Notice, RagAnswer, Ranked};
use crate::gui::theme;

/// The RAG view: how many passages go into the prompt, and the prompt built from them.
pub struct RagView {
    /// Passages in the prompt.
    pub passages: usize,
    data: Memo<(u64, usize), Option<RagData>>,
}

impl Default for RagView {
    fn default() -> Self {
        Self { passages: 5, data: Memo::default() }
    }
}

/// What the RAG view shows, built when the ranking or the number of passages changes.
#[derive(Debug, Clone, PartialEq)]
pub struct RagData {
    /// The list the passages came from.
    pub source: String,
    /// The passages, best first: (id, text).
    pub passages: Vec<(String, String)>,
    /// The prompt that numbers them.
    pub prompt: String,
}

impl RagData {
    /// The prompt of the top `n` passages of the comparison's best list.
    pub fn build(data: &AppData, ranked: &Ranked, n: usize) -> Option<RagData> {
        let engine = data.workbench.as_ref()?;
        let list = crate::compare::best_list(&ranked.run.comparison)?;
        let passages = crate::compare::rag_passages(engine.corpus(), list, n);
        let prompt = crate::generate::tasks::rag_prompt(&ranked.run.comparison.question, &passages);
        Some(RagData { source: list.method.clone(), passages, prompt })
    }
}

impl RagView {
    /// The prompt for the current question: (which list it drew from, the prompt).
    pub fn prompt(&self, data: &AppData, ranked: &Ranked) -> Option<(String, String)> {
        RagData::build(data, ranked, self.passages).map(|d| (d.source, d.prompt))
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
        let Some(ranked) = ctx.ranked() else {
            ui.label("Ask a question first: the prompt is built from its ranked lists.");
            return;
        };
        let n = self.passages;
        let Some(shown) = self.data.get((ranked.revision, n), || RagData::build(ctx.data, ranked, n)) else {
            ui.label("Ask a question first: the prompt is built from its ranked lists.");
            return;
        };
        ui.horizontal(|ui| {
            ui.label(RichText::new(format!("From: {}", shown.source)).strong());
            if ui.button("Copy").clicked() {
                ui.ctx().copy_text(shown.prompt.clone());
                ctx.send(ShellCommand::Notify(Notice::warning("prompt copied to the clipboard")));
            }
            if ui.button("Export…").clicked() {
                ctx.send(FileCommand::OpenDialog(DialogPurpose::ExportPrompt));
            }
        });
        ui.colored_label(
            theme::WARNING,
            "A model given this prompt can still be wrong; check each cited passage before trusting an answer.",
        );
        answer_ui(ui, ctx, ranked, shown);
        let agent = ranked.run.comparison.runs.iter().find_map(|r| r.ranking().and_then(|x| x.agent.as_deref()));
        if let Some(run) = agent {
            ui.separator();
            egui::CollapsingHeader::new(RichText::new("The agent's search (its trace)").strong())
                .id_salt("agent-trace")
                .default_open(true)
                .show(ui, |ui| super::agent_trace::run_ui(ui, run));
        }
        let has_graph = ctx.workbench().is_some_and(|e| e.neural().model_graph.is_some());
        if has_graph {
            ui.separator();
            ui.horizontal(|ui| {
                let busy = ctx.jobs.graph_global.is_running();
                if ui
                    .add_enabled(!busy, egui::Button::new("Answer from the model's graph (GraphRAG global search)"))
                    .clicked()
                {
                    ctx.send(Command::ModelTools(crate::gui::command::ModelToolCommand::AskGlobal(
                        ranked.run.comparison.question.clone(),
                    )));
                }
                if busy {
                    crate::gui::widgets::spinner_ui(ui);
                    if ui.button("Stop").clicked() {
                        ctx.send(ShellCommand::Cancel(JobKind::GraphGlobal));
                    }
                }
            });
        }
        if let Some(a) = ctx.jobs.graph_global.ready() {
            ui.separator();
            egui::CollapsingHeader::new(RichText::new("GraphRAG global search").strong())
                .id_salt("graph-global")
                .default_open(true)
                .show(ui, |ui| {
                    ui.label(RichText::new(format!("“{}”, from the community summaries", a.question)).small());
                    super::model_structured::global_answer_ui(ui, a);
                });
        }
        ui.separator();
        egui::ScrollArea::vertical().id_salt("rag-prompt").show(ui, |ui| {
            let label = ui.label(RichText::new("Prompt").strong());
            ui.add(egui::TextEdit::multiline(&mut shown.prompt.as_str()).desired_width(f32::INFINITY).code_editor())
                .labelled_by(label.id);
        });
    }
}

/// The answer: a button to ask the model, the text as it streams, then the answer read.
fn answer_ui(ui: &mut Ui, ctx: &ViewContext<'_>, ranked: &Ranked, shown: &RagData) {
    let generator = ctx.workbench().and_then(|e| e.generator());
    let job = &ctx.jobs.answer;
    ui.horizontal_wrapped(|ui| match &generator {
        Some(g) => {
            if job.is_running() {
                crate::gui::widgets::spinner_ui(ui);
                if ui.button("Stop").clicked() {
                    ctx.send(ShellCommand::Cancel(JobKind::Answer));
                }
            } else if ui.button("Answer with the language model").clicked() {
                ctx.send(LlmCommand::Answer(AnswerRequest {
                    question: ranked.run.comparison.question.clone(),
                    source: shown.source.clone(),
                    passages: shown.passages.clone(),
                }));
            }
            generator_label_ui(ui, g.info(), "");
        }
        None => no_generator_ui(ui),
    });
    if job.is_running() {
        let (mut rag, mut closed) = (String::new(), String::new());
        for piece in job.parts() {
            match piece {
                AnswerPiece::Rag(t) => rag.push_str(t),
                AnswerPiece::ClosedBook(t) => closed.push_str(t),
            }
        }
        ui.label(if rag.is_empty() { "reading the prompt…".to_string() } else { rag });
        if !closed.is_empty() {
            ui.label(RichText::new("Closed book (no passages):").strong());
            ui.label(closed);
        }
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
    ui.add_space(6.0);
    ui.columns(2, |cols| {
        cols[0].label(RichText::new("With the passages (RAG): each sentence against them").strong());
        grounding_ui(&mut cols[0], &done.grounding, &done.passages);
        cols[1].label(RichText::new("Closed book (no passages): each sentence against the same passages").strong());
        match &done.closed_book {
            Ok(c) => {
                cols[1].label(RichText::new(format!("{} · {:.1} s", c.generated.model, c.generated.seconds)).small());
                grounding_ui(&mut cols[1], &c.grounding, &done.passages);
            }
            Err(why) => {
                cols[1].colored_label(theme::WARNING, format!("the model gave no closed-book answer: {why}"));
            }
        }
    });
}

/// Each sentence with the passage that backs it, or flagged when none does.
fn grounding_ui(ui: &mut Ui, grounding: &[crate::generate::citations::Grounded], passages: &[(String, String)]) {
    for g in grounding {
        ui.label(&g.text);
        match (g.supported, g.best.and_then(|n| passages.get(n - 1).map(|p| (n, &p.0)))) {
            (true, Some((n, id))) => {
                ui.label(RichText::new(format!("   backed by [{n}] {id}: {}", g.words.join(", "))).small());
            }
            (false, Some((n, id))) => {
                ui.colored_label(
                    theme::WARNING,
                    format!("   no passage backs it (the nearest, [{n}] {id}, shares only {})", g.words.join(", ")),
                );
            }
            _ => {
                ui.colored_label(theme::WARNING, "   no passage backs it: it shares no word with any");
            }
        }
    }
}
