//! The form that adds a live search engine as a column: kind, URL, index, credentials named by
//! environment variable, checked before it is sent.

use egui::{RichText, Ui};

use super::theme;
use crate::external::{Credentials, EngineKind, LiveEngine};

/// The "Add a search engine" form as typed.
pub(super) struct EngineForm {
    engine: LiveEngine,
    /// 0: none, 1: API key, 2: user:password.
    credentials: usize,
    variable: String,
    id_field: String,
    error: Option<String>,
}

impl Default for EngineForm {
    fn default() -> Self {
        let kind = EngineKind::Elasticsearch;
        Self {
            engine: LiveEngine {
                name: "my cluster".into(),
                kind,
                url: "http://localhost:9200".into(),
                index: String::new(),
                template: kind.default_template().into(),
                id_field: None,
                credentials: Credentials::None,
                timeout_secs: 10,
            },
            credentials: 0,
            variable: "RANKLENS_ENGINE_KEY".into(),
            id_field: String::new(),
            error: None,
        }
    }
}

impl EngineForm {
    /// The engine as the form describes it, checked.
    fn engine(&self) -> crate::Result<LiveEngine> {
        let mut e = self.engine.clone();
        let var = self.variable.trim().to_string();
        e.credentials = match self.credentials {
            1 => Credentials::ApiKeyEnv(var),
            2 => Credentials::BasicAuthEnv(var),
            _ => Credentials::None,
        };
        e.id_field = Some(self.id_field.trim().to_string()).filter(|f| !f.is_empty());
        e.name = e.name.trim().to_string();
        if e.name.is_empty() {
            return Err(crate::Error::invalid("name", "give the column a name"));
        }
        e.validate()?;
        Ok(e)
    }

    /// Draw the form; `Some` when the user adds the engine, `None` to keep it open; the flag
    /// says whether to close it.
    pub(super) fn ui(&mut self, ui: &mut Ui) -> (Option<LiveEngine>, bool) {
        let mut close = false;
        let mut added = None;
        egui::Grid::new("engine-form").num_columns(2).show(ui, |ui| {
            let l = ui.label("Engine");
            let before = self.engine.kind;
            egui::ComboBox::from_id_salt("engine-kind")
                .selected_text(self.engine.kind.label())
                .show_ui(ui, |ui| {
                    for k in EngineKind::ALL {
                        ui.selectable_value(&mut self.engine.kind, k, k.label());
                    }
                })
                .response
                .labelled_by(l.id);
            if before != self.engine.kind {
                self.engine.template = self.engine.kind.default_template().into();
                if self.engine.kind == EngineKind::Solr && self.engine.url.ends_with(":9200") {
                    self.engine.url = "http://localhost:8983/solr".into();
                }
            }
            ui.end_row();
            for (label, value) in [
                ("Column name", &mut self.engine.name),
                ("URL", &mut self.engine.url),
                ("Index or collection", &mut self.engine.index),
                ("Document id field (empty: the engine's id)", &mut self.id_field),
            ] {
                let l = ui.label(label);
                ui.add(egui::TextEdit::singleline(value).desired_width(360.0)).labelled_by(l.id);
                ui.end_row();
            }
            let l = ui.label("Query template ({{question}}, {{k}})");
            ui.add(
                egui::TextEdit::multiline(&mut self.engine.template).code_editor().desired_rows(3).desired_width(360.0),
            )
            .labelled_by(l.id);
            ui.end_row();
            let l = ui.label("Credentials");
            ui.horizontal(|ui| {
                for (i, name) in ["none", "API key in", "user:password in"].into_iter().enumerate() {
                    ui.radio_value(&mut self.credentials, i, name);
                }
            })
            .response
            .labelled_by(l.id);
            ui.end_row();
            if self.credentials > 0 {
                let l = ui.label("Environment variable");
                ui.add(egui::TextEdit::singleline(&mut self.variable).desired_width(240.0)).labelled_by(l.id);
                ui.end_row();
            }
        });
        ui.label(
            RichText::new("Credentials are read from the environment variable when asking; they are never saved.")
                .small()
                .weak(),
        );
        if let Some(e) = &self.error {
            ui.colored_label(theme::ERROR, e);
        }
        ui.horizontal(|ui| {
            if ui.button("Add engine").clicked() {
                match self.engine() {
                    Ok(e) => {
                        added = Some(e);
                        close = true;
                    }
                    Err(e) => self.error = Some(e.report()),
                }
            }
            if ui.button("Cancel").clicked() {
                close = true;
            }
        });
        (added, close)
    }
}
