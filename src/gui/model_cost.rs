//! The language-model row's cost line: before anything runs, what the ticked model columns will
//! take a question with the model in use (its requests × its measured speed), and, while the small
//! model writes, what the larger one would cost — with a button to fetch and use it.

use egui::{RichText, Ui};

use super::command::ModelCommand;
use super::context::ViewContext;
use super::theme;
use crate::compare::cost::seconds_per_question;
use crate::config::Settings;
use crate::models::{ModelSpec, Role};

/// Seconds as a reader says them: `45 s`, `3.2 min`.
pub fn duration(seconds: f64) -> String {
    if seconds < 90.0 { format!("{seconds:.0} s") } else { format!("{:.1} min", seconds / 60.0) }
}

/// The manifest's generator whose name is `model` (a label's model, `Qwen2.5-Coder-1.5B-Instruct`).
pub fn spec_of<'a>(specs: &[&'a ModelSpec], model: &str) -> Option<&'a ModelSpec> {
    specs.iter().copied().find(|s| s.id.rsplit('/').next() == Some(model))
}

/// The cost line for `settings`' language-model columns (nothing when none is ticked).
pub fn model_cost_ui(ui: &mut Ui, ctx: &ViewContext<'_>, settings: &Settings) {
    let asks: Vec<_> =
        settings.methods.iter().filter(|&&k| crate::compare::cost::requests(k, settings).is_some()).collect();
    if asks.is_empty() {
        return;
    }
    let manager = &ctx.data.models.manager;
    let specs = manager.manifest().for_role(Role::Generator);
    let generator = ctx.workbench().and_then(|e| e.generator());
    let in_use = generator.as_ref().map(|g| g.info().model.clone());
    if let Some(server) = &ctx.data.persisted.chat_server {
        ui.label(
            RichText::new(format!("The model columns ask the chat server {} ({}).", server.base_url, server.model))
                .small(),
        );
        return;
    }
    ui.horizontal_wrapped(|ui| {
        match in_use.as_deref().and_then(|m| spec_of(&specs, m).map(|s| (m, s))) {
            Some((model, spec)) => match &spec.speed {
                Some(speed) => {
                    ui.label(
                        RichText::new(format!(
                            "About {} a question with {model} (measured on {}).",
                            duration(seconds_per_question(settings, speed)),
                            speed.measured_on
                        ))
                        .small(),
                    );
                }
                None => {
                    ui.label(RichText::new(format!("{model} writes for these columns.")).small());
                }
            },
            None => {
                ui.label(RichText::new("No language model is loaded yet (Models → Generator).").small().weak());
            }
        }
        // The small model in use, or none: offer the larger one, with what it costs.
        let small = in_use.as_deref().is_none_or(|m| crate::generate::caveat_for(m).is_some());
        let larger = specs.iter().find(|s| s.on_request && s.speed.is_some() && s.parts.is_some());
        if small && let Some(larger) = larger {
            let name = larger.id.rsplit('/').next().unwrap_or(&larger.id);
            let here = ctx.data.models.status.iter().any(|st| st.id == larger.id && st.present.is_some());
            let cost = larger.speed.as_ref().map(|sp| duration(seconds_per_question(settings, sp))).unwrap_or_default();
            let size = larger.download_size().map(crate::models::human_bytes).unwrap_or_default();
            ui.label(
                RichText::new(format!(
                    "{name} does these tasks far better (the small model often cannot): about {cost} a question{}",
                    if here { ", and it is here.".to_string() } else { format!(", a {size} download.") }
                ))
                .small()
                .color(theme::WARNING),
            );
            let button = if here { format!("Use {name}") } else { format!("Fetch and use {name}") };
            let offline = ctx.data.persisted.offline && !here;
            if ui.add_enabled(!offline, egui::Button::new(button)).clicked() {
                ctx.send(ModelCommand::UseGenerator(larger.id.clone()));
            }
        }
    });
}
