//! The models view: every model RankLens knows, per role, whether it is here, where it would come
//! from, and a button to fetch it (in the background, with progress and cancel).

use egui::{RichText, Ui};

use super::View;
use crate::gui::command::Command;
use crate::gui::context::ViewContext;
use crate::gui::theme;
use crate::models::Role;
use crate::retrieve::MethodKind;

/// The model role a method family needs, if any.
pub fn role_of(kind: MethodKind) -> Option<Role> {
    match kind {
        MethodKind::Dense | MethodKind::Fusion => Some(Role::Dense),
        MethodKind::Splade => Some(Role::Splade),
        MethodKind::LateInteraction => Some(Role::Dense),
        MethodKind::Rerank => Some(Role::Reranker),
        _ => None,
    }
}

/// The models view.
#[derive(Default)]
pub struct ModelsView;

impl View for ModelsView {
    fn ui(&mut self, ui: &mut Ui, ctx: &ViewContext<'_>) {
        let models = &ctx.data.models;
        let offline = ctx.data.persisted.offline;
        ui.heading("Models");
        ui.label(format!("Cache: {}", models.manager.cache_dir().display()));
        let mut off = offline;
        if ui.checkbox(&mut off, "Offline (never download)").changed() {
            ctx.send(Command::SetOffline(off));
        }
        let neural = ctx.engine().map(|e| e.neural()).unwrap_or_default();
        for role in Role::ALL {
            ui.separator();
            ui.horizontal(|ui| {
                ui.label(RichText::new(role.name()).strong());
                let loaded = match role {
                    Role::Dense => neural.dense.as_ref().map(|l| l.model.spec.id.clone()),
                    Role::Splade => neural.splade.as_ref().map(|l| l.model.spec.id.clone()),
                    Role::LateInteraction => neural.late.as_ref().map(|l| l.model.spec.id.clone()),
                    Role::Reranker => neural.reranker.as_ref().map(|l| l.model.spec.id.clone()),
                };
                match loaded {
                    Some(id) => {
                        ui.colored_label(theme::method_color(MethodKind::Fusion), format!("loaded: {id}"));
                    }
                    None => {
                        ui.colored_label(theme::WARNING, "no model loaded");
                        if role == Role::LateInteraction && neural.dense.is_some() {
                            ui.label(
                                RichText::new(
                                    "(late interaction uses the dense model's token vectors, not a trained ColBERT)",
                                )
                                .small(),
                            );
                        }
                    }
                }
                if ctx.jobs.role_busy(role) {
                    crate::gui::widgets::spinner_ui(ui);
                } else if ui.add_enabled(!offline, egui::Button::new(format!("Fetch {role} model"))).clicked() {
                    ctx.send(Command::FetchModel(role));
                }
            });
            if let Some(e) = models.errors.get(&role) {
                ui.label(RichText::new(e).small().color(theme::WARNING));
            }
            for s in models.status.iter().filter(|s| s.role == role) {
                ui.horizontal_wrapped(|ui| {
                    ui.label(RichText::new(&s.id).monospace());
                    match &s.present {
                        Some(p) => ui.label(RichText::new(format!("here: {}", p.display())).small()),
                        None => ui.label(RichText::new("not here").small().weak()),
                    };
                    ui.label(RichText::new(format!("from: {}", s.sources.join(", "))).small());
                    ui.label(
                        RichText::new(if s.pinned { "sha256 pinned" } else { "sha256 recorded on first download" })
                            .small(),
                    );
                });
                if !s.note.is_empty() {
                    ui.label(RichText::new(&s.note).small().weak());
                }
            }
        }
    }
}
