//! The methods atlas (one card per method, with "Run it" where RankLens computes it) and the RAG
//! view (the best list of the current question assembled into a citing prompt).

use egui::{RichText, Ui};

use crate::gui::app::{Message, RankLensApp};
use crate::gui::judging::DialogPurpose;
use crate::gui::state::ViewId;
use crate::gui::theme;
use crate::lessons::{ATLAS, AtlasCard, RunsHere};
use crate::models::Role;
use crate::retrieve::MethodKind;

/// Atlas and RAG view state.
pub struct AtlasState {
    /// The card shown (index into [`ATLAS`]).
    pub card: usize,
    /// How many passages go into the RAG prompt.
    pub rag_passages: usize,
}

impl Default for AtlasState {
    fn default() -> Self {
        Self { card: 0, rag_passages: 5 }
    }
}

/// Draw the atlas: card names on the left, the chosen card on the right.
pub fn atlas_ui(app: &mut RankLensApp, ui: &mut Ui) {
    ui.horizontal(|ui| {
        ui.heading("One card per method");
        ui.weak("What each method stores, what it does when a question arrives, and where its knowledge lives.");
    });
    ui.separator();
    egui::Panel::left("atlas-cards").resizable(false).exact_size(250.0).show(ui, |ui| {
        egui::ScrollArea::vertical().id_salt("atlas-list").show(ui, |ui| {
            for (i, card) in ATLAS.iter().enumerate() {
                let mark = if matches!(card.runs_here, RunsHere::No(_)) { "○" } else { "●" };
                if ui.selectable_label(app.extra.atlas.card == i, format!("{mark} {}", card.name)).clicked() {
                    app.extra.atlas.card = i;
                }
            }
            ui.add_space(6.0);
            ui.weak("● runs in RankLens   ○ described only");
        });
    });
    let Some(card) = ATLAS.get(app.extra.atlas.card).copied() else { return };
    egui::ScrollArea::vertical().id_salt("atlas-card").show(ui, |ui| card_ui(app, ui, card));
}

fn card_ui(app: &mut RankLensApp, ui: &mut Ui, card: AtlasCard) {
    ui.add_space(4.0);
    ui.label(RichText::new(card.name).size(20.0).strong());
    ui.add_space(6.0);
    for (label, text) in [
        ("What it stores", card.stores),
        ("When a question arrives", card.at_query_time),
        ("Where its brain is", card.brain),
        ("When to use it", card.use_when),
    ] {
        ui.label(RichText::new(label).strong());
        ui.label(text);
        ui.add_space(6.0);
    }
    ui.separator();
    match card.runs_here {
        RunsHere::Method(kind) => {
            let view =
                if matches!(kind, MethodKind::Sql | MethodKind::Graph) { ViewId::Structured } else { ViewId::Compare };
            if ui.button(format!("Run it: {} in the {} view", kind.label(), view.label())).clicked() {
                if !app.state.settings.methods.contains(&kind) {
                    app.state.settings.methods.push(kind);
                }
                app.state.view = view;
                app.mark_dirty();
            }
            let role = match kind {
                MethodKind::Dense => Some(Role::Dense),
                MethodKind::Splade => Some(Role::Splade),
                MethodKind::LateInteraction => Some(Role::LateInteraction),
                MethodKind::Rerank => Some(Role::Reranker),
                _ => None,
            };
            if let Some(why) = role.and_then(|r| app.model_errors.get(&r)) {
                ui.colored_label(theme::WARNING, format!("Its model is not here, so the column says so: {why}"));
            }
        }
        RunsHere::Lesson(id) => {
            let title = crate::lessons::LESSONS.iter().find(|l| l.0 == id).map_or(id, |l| l.1);
            if ui.button(format!("Run it: the lesson “{title}”")).clicked() {
                app.extra.lessons.selected = Some(id.to_string());
                app.state.view = ViewId::Lessons;
            }
        }
        RunsHere::Rag => {
            if ui.button("Run it: build the prompt in the RAG view").clicked() {
                app.state.view = ViewId::Rag;
            }
        }
        RunsHere::No(why) => {
            ui.colored_label(theme::WARNING, format!("Not run here. {why}"));
        }
    }
}

/// The prompt for the current question: (which list it drew from, the prompt).
pub fn current_prompt(app: &RankLensApp) -> Option<(String, String)> {
    let ranked = app.ranked.as_ref()?;
    let engine = app.engine.as_ref()?;
    let list = crate::lessons::best_list(&ranked.comparison)?;
    let passages = crate::lessons::rag_passages(engine.corpus(), list, app.extra.atlas.rag_passages);
    Some((list.method.clone(), crate::lessons::rag_prompt(&ranked.comparison.question, &passages)))
}

/// Draw the RAG view.
pub fn rag_ui(app: &mut RankLensApp, ui: &mut Ui) {
    ui.heading("Retrieval-augmented generation: the prompt");
    ui.label(
        "The top passages of the best list for the current question (reranked when a reranker is here, else fused, \
         else BM25), numbered, under an instruction to answer only from them and cite them. RankLens does not call \
         a language model: copy the prompt or export it.",
    );
    ui.horizontal(|ui| {
        ui.add(egui::Slider::new(&mut app.extra.atlas.rag_passages, 1..=10).text("passages"));
    });
    let Some((source, prompt)) = current_prompt(app) else {
        ui.label("Ask a question first: the prompt is built from its ranked lists.");
        return;
    };
    ui.horizontal(|ui| {
        ui.label(RichText::new(format!("From: {source}")).strong());
        if ui.button("Copy").clicked() {
            ui.ctx().copy_text(prompt.clone());
            app.messages.push(Message::warning("prompt copied to the clipboard"));
        }
        if ui.button("Export…").clicked() {
            app.open_file_dialog(DialogPurpose::ExportPrompt);
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
