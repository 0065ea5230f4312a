//! The corpus view: statistics, a document browser with search-as-you-type over titles, and the
//! warnings from loading.

use egui::{RichText, Ui};

use super::{Memo, Same, View};
use crate::corpus::DocId;
use crate::gui::command::Command;
use crate::gui::command::CorpusCommand;
use crate::gui::command::FileCommand;
use crate::gui::command::RankCommand;
use crate::gui::context::ViewContext;
use crate::gui::dialog::DialogPurpose;
use crate::gui::state::CorpusChoice;
use crate::gui::theme;
use crate::gui::widgets::{ellipsis, labelled_text_ui};
use crate::workbench::Workbench;

/// The corpus view: the text of its title search, and its data.
#[derive(Default)]
pub struct CorpusView {
    doc_filter: String,
    data: Memo<CorpusKey, CorpusData>,
}

/// What the corpus view's data is built from: the workbench, its neural side's revision (windows
/// are counted once passages are encoded), the analyzer and whether its index is built, and the
/// title search.
#[derive(Debug, Clone, PartialEq)]
pub struct CorpusKey {
    workbench: Same<Workbench>,
    neural: u64,
    analyzer: crate::analysis::AnalyzerConfig,
    indexed: bool,
    filter: String,
}

/// What the Corpus view shows, built when its key changes: every walk over the passages (the long
/// documents, the windows, the title search) is done here, once.
#[derive(Debug, Clone, PartialEq)]
pub struct CorpusData {
    /// The index's statistics line, or that it is being built.
    pub stats: String,
    /// Documents of more than [`LONG_WORDS`] words (an estimate before the passages are encoded).
    pub long_estimate: usize,
    /// Documents longer than one window of the widest index, once counted; else the estimate.
    pub long: usize,
    /// Each built neural index's note on windows.
    pub window_notes: Vec<String>,
    /// The passages the title search keeps (at most [`SHOWN`]), in corpus order.
    pub shown: Vec<DocId>,
}

/// Words beyond which a document is likely longer than a 256-piece model window (English text
/// averages about 1.3 word pieces per word).
const LONG_WORDS: usize = 190;

/// Passages the browser lists at most.
pub const SHOWN: usize = 500;

impl CorpusData {
    /// The data of `engine`'s corpus under the title search `needle` (lower case; empty: all).
    pub fn build(workbench: &Workbench, analyzer: crate::analysis::AnalyzerConfig, needle: &str) -> CorpusData {
        crate::tally::count(crate::tally::Tally::CorpusWalk);
        let corpus = workbench.corpus();
        let stats = match workbench.built_index(analyzer) {
            Some(index) => {
                let s = index.stats();
                format!(
                    "{} passages · {} tokens · vocabulary {} · average length {:.1} tokens ({} analyzer)",
                    s.n_docs, s.total_tokens, s.vocabulary, s.avgdl, analyzer
                )
            }
            None => format!("{} passages (index building…)", corpus.len()),
        };
        let long_estimate =
            corpus.docs().iter().filter(|d| d.full_text().split_whitespace().count() > LONG_WORDS).count();
        let n = workbench.neural();
        let counted = [
            n.dense_index.as_ref().map(|i| i.windows.long_docs()),
            n.splade_index.as_ref().map(|i| i.windows.long_docs()),
            n.late_index.as_ref().map(|i| i.windows.long_docs()),
        ];
        let long = counted.iter().flatten().copied().max().unwrap_or(long_estimate);
        let shown = corpus
            .iter()
            .filter(|(_, d)| {
                needle.is_empty() || d.title.to_lowercase().contains(needle) || d.id.to_lowercase().contains(needle)
            })
            .take(SHOWN)
            .map(|(id, _)| id)
            .collect();
        CorpusData { stats, long_estimate, long, window_notes: workbench.window_notes(), shown }
    }
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
    /// How many documents exceed each model's window, and for a folder of long files, the offer
    /// to split them into passages instead.
    fn long_documents_ui(ui: &mut Ui, ctx: &ViewContext<'_>, data: &CorpusData) {
        let Some(engine) = ctx.workbench() else { return };
        let corpus = engine.corpus();
        let (estimate, long, notes) = (data.long_estimate, data.long, &data.window_notes);
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
                for note in notes {
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
                            ctx.send(CorpusCommand::Open(CorpusChoice::Path(
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
        let Some(engine) = ctx.workbench() else { return };
        let corpus = engine.corpus();
        let analyzer = ctx.data.persisted.settings.analyzer;
        let key = CorpusKey {
            workbench: Same(engine.clone()),
            neural: engine.neural_revision(),
            analyzer,
            indexed: engine.built_index(analyzer).is_some(),
            filter: self.doc_filter.trim().to_lowercase(),
        };
        let filter = key.filter.clone();
        let Self { doc_filter, data } = self;
        let data = data.get(key, || CorpusData::build(engine, analyzer, &filter));
        ui.horizontal(|ui| {
            ui.heading(&corpus.name);
            let mut buttons = vec![
                ("Open folder…".to_string(), Command::Files(FileCommand::OpenDialog(DialogPurpose::OpenFolder))),
                ("Open file…".to_string(), Command::Files(FileCommand::OpenDialog(DialogPurpose::OpenFile))),
                ("Acme Sync sample".to_string(), Command::Corpus(CorpusCommand::Open(CorpusChoice::Sample))),
            ];
            for lesson in ["isro", "mozart"] {
                buttons.push((
                    format!("Lesson: {lesson}"),
                    Command::Corpus(CorpusCommand::Open(CorpusChoice::Lesson(lesson.into()))),
                ));
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
        ui.label(&data.stats);
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
        Self::long_documents_ui(ui, ctx, data);
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
        labelled_text_ui(ui, "Search titles", doc_filter, 260.0);
        egui::ScrollArea::vertical().id_salt("docs").show(ui, |ui| {
            for (id, d) in data.shown.iter().filter_map(|&id| corpus.doc(id).map(|d| (id, d))) {
                ui.horizontal(|ui| {
                    if ui.selectable_label(ctx.data.selection.as_ref().is_some_and(|s| s.doc == id), &d.id).clicked() {
                        ctx.send(RankCommand::Select { column: None, doc: id });
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
