//! The models view: every model RankLens knows, per role, whether it is here, where it would come
//! from, and a button to fetch it (in the background, with progress and cancel).

use egui::{RichText, Ui};

use super::View;
use crate::gui::command::Command;
use crate::gui::command::ModelCommand;
use crate::gui::command::RankCommand;
use crate::gui::context::ViewContext;
use crate::gui::theme;
use crate::models::{PairScorer, Precision, Role, SparseEncoder, TextEncoder, TokenEncoder};
use crate::retrieve::MethodKind;

/// The models view, with the chat-server form as typed.
pub struct ModelsView {
    /// The server's base URL.
    server_url: String,
    /// The model name to ask it for.
    server_model: String,
    /// The environment variable holding its API key.
    server_key_env: String,
}

impl Default for ModelsView {
    fn default() -> Self {
        Self {
            server_url: "http://127.0.0.1:8080/v1".into(),
            server_model: String::new(),
            server_key_env: String::new(),
        }
    }
}

impl View for ModelsView {
    fn ui(&mut self, ui: &mut Ui, ctx: &ViewContext<'_>) {
        let models = &ctx.data.models;
        let offline = ctx.data.persisted.offline;
        ui.heading("Models");
        ui.label(format!("Cache: {}", models.manager.cache_dir().display()));
        let mut off = offline;
        if ui.checkbox(&mut off, "Offline (never download)").changed() {
            ctx.send(ModelCommand::SetOffline(off));
        }
        let neural = ctx.workbench().map(|e| e.neural()).unwrap_or_default();
        let mut precision = ctx.data.persisted.precision;
        ui.horizontal(|ui| {
            egui::ComboBox::from_label("Precision").selected_text(precision.name()).show_ui(ui, |ui| {
                for p in Precision::ALL {
                    ui.selectable_value(&mut precision, p, p.name());
                }
            });
            ui.label(RichText::new(format!("runs as {}", crate::models::precision::describe(precision))).small());
        });
        for (role, c) in &neural.precision_choices {
            ui.label(RichText::new(format!("{role}: {}", c.describe())).small());
        }
        if precision != ctx.data.persisted.precision {
            ctx.send(ModelCommand::SetPrecision(precision));
        }
        ui.separator();
        ui.label(RichText::new("Long documents and the token index").strong());
        let mut s = ctx.data.persisted.settings.clone();
        ui.horizontal_wrapped(|ui| long_documents_ui(ui, &mut s));
        if s != ctx.data.persisted.settings {
            ctx.send(RankCommand::SetSettings(Box::new(s)));
        }
        if let Some(i) = &neural.late_index {
            let docs = i.windows.docs().max(1);
            ui.label(
                RichText::new(format!(
                    "Token index: {} token vectors of {} windows, {} — {:.1} KiB per passage{}",
                    i.total_tokens(),
                    i.rows(),
                    i.codec.describe(),
                    i.size_bytes() as f64 / docs as f64 / 1024.0,
                    i.path.as_ref().map(|p| format!(", memory-mapped from {}", p.display())).unwrap_or_default()
                ))
                .small(),
            );
        }
        if let Some(engine) = ctx.workbench() {
            for note in engine.window_notes() {
                ui.label(RichText::new(note).small());
            }
        }
        for role in Role::EVERY {
            ui.separator();
            ui.horizontal(|ui| {
                ui.label(RichText::new(role.name()).strong());
                // The encoder's id: the model, and any token limit or precision it runs with.
                let loaded = match role {
                    Role::Dense => neural.dense.as_ref().map(|l| TextEncoder::model_id(l.encoder.as_ref()).to_string()),
                    Role::Splade => {
                        neural.splade.as_ref().map(|l| SparseEncoder::model_id(l.encoder.as_ref()).to_string())
                    }
                    Role::LateInteraction => {
                        neural.late.as_ref().map(|l| TokenEncoder::model_id(l.encoder.as_ref()).to_string())
                    }
                    Role::Reranker => {
                        neural.reranker.as_ref().map(|l| PairScorer::model_id(l.encoder.as_ref()).to_string())
                    }
                    Role::Generator => neural.generator.as_ref().map(|(g, _)| g.info().label()),
                    Role::Reader => neural.reader.as_ref().map(|l| l.encoder.id().to_string()),
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
                    ctx.send(ModelCommand::Fetch(role));
                }
            });
            if let Some(e) = models.errors.get(&role) {
                ui.label(RichText::new(e).small().color(theme::WARNING));
            }
            if role == Role::Generator {
                ui.horizontal(|ui| {
                    ui.label(RichText::new("Or write with any GGUF instruct model on this machine:").small());
                    if ui.button("Use a GGUF file…").clicked() {
                        ctx.send(Command::Files(crate::gui::command::FileCommand::OpenDialog(
                            crate::gui::dialog::DialogPurpose::ChooseGguf,
                        )));
                    }
                });
                self.chat_server_ui(ui, ctx);
            }
            let in_use = neural.generator.as_ref().map(|(g, _)| g.info().model.clone());
            for s in models.status.iter().filter(|s| s.role == role) {
                ui.horizontal_wrapped(|ui| {
                    ui.label(RichText::new(&s.id).monospace());
                    if role == Role::Generator {
                        let name = s.id.rsplit('/').next().unwrap_or(&s.id);
                        let using = in_use.as_deref() == Some(name) && ctx.data.persisted.chat_server.is_none();
                        if using {
                            ui.label(RichText::new("writing now").small().strong());
                        } else {
                            let what = if s.present.is_some() {
                                "Use".to_string()
                            } else {
                                format!("Fetch and use ({})", s.size)
                            };
                            let enabled = s.present.is_some() || !offline;
                            if ui.add_enabled(enabled, egui::Button::new(what)).on_hover_text(&s.note).clicked() {
                                ctx.send(ModelCommand::UseGenerator(s.id.clone()));
                            }
                        }
                    }
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
                if let Some(license) = &s.license {
                    ui.label(RichText::new(format!("Licence: {license}")).small().weak());
                }
            }
        }
        ui.separator();
        super::model_methods::model_methods_ui(ui, ctx);
        ui.separator();
        prompts_ui(ui);
    }
}

/// Every prompt RankLens sends a language model, as it is sent: the system message, the worked
/// examples and the template, with its token budget.
fn prompts_ui(ui: &mut Ui) {
    egui::CollapsingHeader::new("What the language model is asked").id_salt("prompts").show(ui, |ui| {
        for p in crate::generate::prompts::ALL {
            ui.label(RichText::new(format!("{} · at most {} tokens", p.task, p.max_tokens)).strong());
            ui.label(RichText::new(format!("system: {}", p.system)).small().monospace());
            for (user, assistant) in p.examples {
                ui.label(RichText::new(format!("example: {user}  →  {assistant}")).small().monospace().weak());
            }
            ui.label(RichText::new(format!("then: {}", p.template)).small().monospace());
            ui.add_space(4.0);
        }
    });
}

impl ModelsView {
    /// A chat server in place of the embedded generator: base URL, model, and the name of the
    /// environment variable holding its key (the key itself is never typed here or saved).
    fn chat_server_ui(&mut self, ui: &mut Ui, ctx: &ViewContext<'_>) {
        let current = ctx.data.persisted.chat_server.as_ref();
        ui.label(
            RichText::new(match current {
                Some(c) => format!("Writing with the chat server {} ({}).", c.base_url, c.model),
                None => "Or write with a chat server speaking OpenAI's protocol (llama.cpp, Ollama, vLLM, LM Studio, \
                         OpenAI):"
                    .to_string(),
            })
            .small(),
        );
        ui.horizontal_wrapped(|ui| {
            crate::gui::widgets::labelled_text_ui(ui, "Server URL", &mut self.server_url, 220.0);
            crate::gui::widgets::labelled_text_ui(ui, "Model", &mut self.server_model, 140.0);
            crate::gui::widgets::labelled_text_ui(ui, "API key variable", &mut self.server_key_env, 140.0);
            let ready = !self.server_url.trim().is_empty() && !self.server_model.trim().is_empty();
            if ui.add_enabled(ready, egui::Button::new("Use this server")).clicked() {
                let mut config = crate::generate::ServerConfig::new(self.server_url.trim(), self.server_model.trim());
                let var = self.server_key_env.trim();
                config.key_env = (!var.is_empty()).then(|| var.to_string());
                ctx.send(ModelCommand::UseChatServer(Some(config)));
            }
            if current.is_some() && ui.button("Back to the embedded model").clicked() {
                ctx.send(ModelCommand::UseChatServer(None));
            }
        });
    }
}

/// Long documents: the window the neural methods cut them into, and how the token index stores
/// its vectors. Menus rather than sliders: each change encodes the corpus again.
fn long_documents_ui(ui: &mut Ui, s: &mut crate::config::Settings) {
    let size_name = |n: usize| if n == 0 { "model's maximum".to_string() } else { format!("{n} word pieces") };
    egui::ComboBox::from_label("Window").selected_text(size_name(s.windows.size)).show_ui(ui, |ui| {
        for n in [0, 64, 128, 192, 256, 384, 512] {
            ui.selectable_value(&mut s.windows.size, n, size_name(n));
        }
    });
    let stride_name =
        |n: usize| if n == 0 { "¾ of the window (¼ overlap)".to_string() } else { format!("every {n} word pieces") };
    egui::ComboBox::from_label("New window").selected_text(stride_name(s.windows.stride)).show_ui(ui, |ui| {
        for n in [0, 32, 64, 128, 192, 256] {
            ui.selectable_value(&mut s.windows.stride, n, stride_name(n));
        }
    });
    ui.checkbox(&mut s.windows.truncate, "Only each document's beginning (no windows)");
    let bits_name = |b: u8| if b == 16 { "f16, uncompressed".to_string() } else { format!("{b}-bit residuals") };
    egui::ComboBox::from_label("Token index").selected_text(bits_name(s.token_bits)).show_ui(ui, |ui| {
        for b in [1u8, 2, 4, 8, 16] {
            ui.selectable_value(&mut s.token_bits, b, bits_name(b));
        }
    });
}
