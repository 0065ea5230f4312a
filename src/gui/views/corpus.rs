//! The corpus view: statistics, a document browser with search-as-you-type over titles, and the
//! warnings from loading.

use egui::{RichText, Ui};

use super::View;
use crate::gui::command::Command;
use crate::gui::context::ViewContext;
use crate::gui::judging::DialogPurpose;
use crate::gui::state::CorpusChoice;
use crate::gui::theme;
use crate::gui::widgets::{ellipsis, labelled_text_ui};

/// The corpus view; it keeps the text of its title search.
#[derive(Default)]
pub struct CorpusView {
    doc_filter: String,
}

impl View for CorpusView {
    fn ui(&mut self, ui: &mut Ui, ctx: &ViewContext<'_>) {
        self.corpus_ui(ui, ctx);
    }

    fn corpus_changed(&mut self) {
        self.doc_filter.clear();
    }
}

impl CorpusView {
    fn corpus_ui(&mut self, ui: &mut Ui, ctx: &ViewContext<'_>) {
        let Some(engine) = ctx.engine() else { return };
        let corpus = engine.corpus();
        ui.horizontal(|ui| {
            ui.heading(&corpus.name);
            let mut buttons = vec![
                ("Open folder…".to_string(), Command::OpenDialog(DialogPurpose::OpenFolder)),
                ("Open file…".to_string(), Command::OpenDialog(DialogPurpose::OpenFile)),
                ("Acme Sync sample".to_string(), Command::OpenCorpus(CorpusChoice::Sample)),
            ];
            for lesson in ["isro", "mozart"] {
                buttons.push((format!("Lesson: {lesson}"), Command::OpenCorpus(CorpusChoice::Lesson(lesson.into()))));
            }
            for (label, command) in buttons {
                if ui.button(label).clicked() {
                    ctx.send(command);
                }
            }
        });
        ui.label(
            RichText::new("Drop a folder or a .jsonl / .csv / .tsv file on the window to open it.").small().weak(),
        );
        let analyzer = ctx.data.persisted.settings.analyzer;
        match engine.built_index(analyzer) {
            Some(index) => {
                let s = index.stats();
                ui.label(format!(
                    "{} passages · {} tokens · vocabulary {} · average length {:.1} tokens ({} analyzer)",
                    s.n_docs, s.total_tokens, s.vocabulary, s.avgdl, analyzer
                ));
            }
            None => {
                ui.label(format!("{} passages (index building…)", corpus.len()));
            }
        }
        ui.label(RichText::new(format!("{}", corpus.report)).small());
        if !corpus.report.warnings.is_empty() || !engine.structured().warnings.is_empty() {
            egui::CollapsingHeader::new(format!(
                "Load warnings ({})",
                corpus.report.warnings.len() + engine.structured().warnings.len()
            ))
            .default_open(true)
            .show(ui, |ui| {
                for w in corpus.report.warnings.iter().chain(engine.structured().warnings.iter()).take(200) {
                    ui.colored_label(theme::WARNING, w.to_string());
                }
            });
        }
        ui.separator();
        labelled_text_ui(ui, "Search titles", &mut self.doc_filter, 260.0);
        let needle = self.doc_filter.trim().to_lowercase();
        egui::ScrollArea::vertical().id_salt("docs").show(ui, |ui| {
            for (id, d) in corpus
                .iter()
                .filter(|(_, d)| {
                    needle.is_empty()
                        || d.title.to_lowercase().contains(&needle)
                        || d.id.to_lowercase().contains(&needle)
                })
                .take(500)
            {
                ui.horizontal(|ui| {
                    if ui.selectable_label(ctx.data.selection.as_ref().is_some_and(|s| s.doc == id), &d.id).clicked() {
                        ctx.send(Command::Select { column: None, doc: id });
                    }
                    ui.label(RichText::new(&d.title).strong());
                    for (k, v) in &d.fields {
                        ui.label(RichText::new(format!("{k}={v}")).small().weak());
                    }
                });
                ui.label(RichText::new(ellipsis(&d.text, 220)).small());
            }
        });
    }
}
