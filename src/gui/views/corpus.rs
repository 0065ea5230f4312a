//! The corpus view: statistics, a document browser with search-as-you-type over titles, and the
//! warnings from loading.

use egui::{RichText, Ui};

use super::View;
use crate::gui::command::Command;
use crate::gui::command::DialogPurpose;
use crate::gui::context::ViewContext;
use crate::gui::state::CorpusChoice;
use crate::gui::theme;
use crate::gui::widgets::{ellipsis, labelled_text_ui};

/// The corpus view; it keeps the text of its title search.
#[derive(Default)]
pub struct CorpusView {
    doc_filter: String,
    /// Documents of more than [`LONG_WORDS`] words, counted once per corpus.
    long_estimate: Option<usize>,
}

/// Words beyond which a document is likely longer than a 256-piece model window (English text
/// averages about 1.3 word pieces per word).
const LONG_WORDS: usize = 190;

impl View for CorpusView {
    fn ui(&mut self, ui: &mut Ui, ctx: &ViewContext<'_>) {
        self.corpus_ui(ui, ctx);
    }

    fn corpus_changed(&mut self) {
        self.doc_filter.clear();
        self.long_estimate = None;
    }
}

impl CorpusView {
    /// How many documents exceed each model's window, and for a folder of long files, the offer
    /// to split them into passages instead.
    fn long_documents_ui(&mut self, ui: &mut Ui, ctx: &ViewContext<'_>) {
        let Some(engine) = ctx.engine() else { return };
        let corpus = engine.corpus();
        let estimate = *self.long_estimate.get_or_insert_with(|| {
            corpus.docs().iter().filter(|d| d.full_text().split_whitespace().count() > LONG_WORDS).count()
        });
        let notes = engine.window_notes();
        let n = engine.neural();
        let counted = [
            n.dense_index.as_ref().map(|i| i.windows.long_docs()),
            n.splade_index.as_ref().map(|i| i.windows.long_docs()),
            n.late_index.as_ref().map(|i| i.windows.long_docs()),
        ];
        let long = counted.iter().flatten().copied().max().unwrap_or(estimate);
        egui::CollapsingHeader::new(format!("Long documents and model windows ({long})"))
            .id_salt("long-documents")
            .default_open(long > 0)
            .show(ui, |ui| {
                if notes.is_empty() {
                    ui.label(format!(
                        "{estimate} of {} documents have more than {LONG_WORDS} words, about what a 256-piece model window holds. Exact counts per model appear once the passages are encoded.",
                        corpus.len()
                    ));
                }
                for note in &notes {
                    ui.label(note);
                }
                ui.label(
                    RichText::new(
                        "Dense, SPLADE and late interaction encode a long document in overlapping windows and score it by its best window (MaxP); the Explain view shows that window. BM25 and TF-IDF score the whole document. Window size and stride: the Models view.",
                    )
                    .small()
                    .weak(),
                );
                if let CorpusChoice::Path(path, crate::corpus::Split::File) = &ctx.data.persisted.corpus
                    && path.is_dir()
                    && long > 0
                {
                    ui.horizontal_wrapped(|ui| {
                        ui.label("Or cut them into passages:");
                        if ui.button("Split by heading and paragraph").clicked() {
                            ctx.send(Command::OpenCorpus(CorpusChoice::Path(
                                path.clone(),
                                crate::corpus::Split::Paragraph,
                            )));
                        }
                        ui.label(RichText::new("(or keep them whole, scored by windows, as now)").small().weak());
                    });
                }
            });
    }

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
        if corpus.report.markup_files > 0 {
            ui.label(
                RichText::new(format!(
                    "{} Markdown file(s) held HTML comments or tags (<!-- … -->, <a id=…>): they are markup, so \
                     they are neither indexed nor shown as text.",
                    corpus.report.markup_files
                ))
                .small(),
            );
        }
        self.long_documents_ui(ui, ctx);
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
