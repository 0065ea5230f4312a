//! The methods atlas: one card per method, with "Run it" where RankLens computes it.

use egui::{RichText, Ui};

use super::View;
use crate::gui::command::LessonCommand;
use crate::gui::command::RankCommand;
use crate::gui::command::ShellCommand;
use crate::gui::context::ViewContext;
use crate::gui::state::ViewId;
use crate::gui::theme;
use crate::lessons::{ATLAS, AtlasCard, RunsHere};
use crate::retrieve::MethodKind;

/// The atlas view: which card is shown.
#[derive(Default)]
pub struct AtlasView {
    /// The card shown (index into [`ATLAS`]).
    pub card: usize,
}

impl View for AtlasView {
    fn needs_corpus(&self) -> bool {
        false
    }

    fn ui(&mut self, ui: &mut Ui, ctx: &ViewContext<'_>) {
        self.atlas_ui(ui, ctx);
    }
}

impl AtlasView {
    /// Card names on the left, the chosen card on the right.
    fn atlas_ui(&mut self, ui: &mut Ui, ctx: &ViewContext<'_>) {
        ui.horizontal(|ui| {
            ui.heading("One card per method");
            ui.weak("What each method stores, what it does when a question arrives, and where its knowledge lives.");
        });
        ui.separator();
        egui::Panel::left("atlas-cards").resizable(false).exact_size(250.0).show(ui, |ui| {
            egui::ScrollArea::vertical().id_salt("atlas-list").show(ui, |ui| {
                for (i, card) in ATLAS.iter().enumerate() {
                    let mark = if matches!(card.runs_here, RunsHere::No(_)) { "○" } else { "●" };
                    if ui.selectable_label(self.card == i, format!("{mark} {}", card.name)).clicked() {
                        self.card = i;
                    }
                }
                ui.add_space(6.0);
                ui.weak("● runs in RankLens   ○ described only");
            });
        });
        let Some(card) = ATLAS.get(self.card).copied() else { return };
        egui::ScrollArea::vertical().id_salt("atlas-card").show(ui, |ui| card_ui(ui, ctx, card));
    }
}

fn card_ui(ui: &mut Ui, ctx: &ViewContext<'_>, card: AtlasCard) {
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
            let view = if matches!(kind, MethodKind::Sql | MethodKind::Graph | MethodKind::GraphLocal) {
                ViewId::Structured
            } else {
                ViewId::Compare
            };
            if ui.button(format!("Run it: {} in the {} view", kind.label(), view.label())).clicked() {
                let mut settings = ctx.data.persisted.settings.clone();
                if !settings.methods.contains(&kind) {
                    settings.methods.push(kind);
                }
                ctx.send(RankCommand::SetSettings(Box::new(settings)));
                ctx.send(ShellCommand::ShowView(view));
                ctx.send(RankCommand::Ask);
            }
            // Its column says what is missing when none of its models is here.
            let errors = &ctx.data.models.errors;
            let why = kind.models().iter().all(|r| errors.contains_key(r)).then(|| kind.models().first()).flatten();
            if let Some(why) = why.and_then(|r| errors.get(r)) {
                ui.colored_label(theme::WARNING, format!("Its model is not here, so the column says so: {why}"));
            }
        }
        RunsHere::Lesson(id) => {
            let title = crate::lessons::lesson(id).map_or(id, |l| l.title);
            if ui.button(format!("Run it: the lesson “{title}”")).clicked() {
                ctx.send(LessonCommand::Open(id.to_string()));
            }
        }
        RunsHere::Rag => {
            if ui.button("Run it: build the prompt in the RAG view").clicked() {
                ctx.send(ShellCommand::ShowView(ViewId::Rag));
            }
        }
        RunsHere::No(why) => {
            ui.colored_label(theme::WARNING, format!("Not run here. {why}"));
        }
    }
}
