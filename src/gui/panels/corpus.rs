//! The corpus view: statistics, a document browser with search-as-you-type over titles, and the
//! warnings from loading.

use egui::{RichText, Ui};

use crate::gui::app::RankLensApp;
use crate::gui::judging::DialogPurpose;
use crate::gui::state::CorpusChoice;
use crate::gui::theme;
use crate::gui::widgets::{ellipsis, labelled_text_ui};

/// Draw the corpus view.
pub fn corpus_ui(app: &mut RankLensApp, ui: &mut Ui) {
    let Some(engine) = app.engine.clone() else { return };
    let corpus = engine.corpus();
    ui.horizontal(|ui| {
        ui.heading(&corpus.name);
        if ui.button("Open folder…").clicked() {
            app.open_file_dialog(DialogPurpose::OpenFolder);
        }
        if ui.button("Open file…").clicked() {
            app.open_file_dialog(DialogPurpose::OpenFile);
        }
        if ui.button("Acme Sync sample").clicked() {
            app.open_corpus(CorpusChoice::Sample);
        }
        for lesson in ["isro", "mozart"] {
            if ui.button(format!("Lesson: {lesson}")).clicked() {
                app.open_corpus(CorpusChoice::Lesson(lesson.into()));
            }
        }
    });
    ui.label(RichText::new("Drop a folder or a .jsonl / .csv / .tsv file on the window to open it.").small().weak());
    let analyzer = app.state.settings.analyzer;
    match engine.index(analyzer, &crate::progress::NoProgress).ok().filter(|_| engine.has_index(analyzer)) {
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
    labelled_text_ui(ui, "Search titles", &mut app.doc_filter, 260.0);
    let needle = app.doc_filter.trim().to_lowercase();
    let mut pick = None;
    egui::ScrollArea::vertical().id_salt("docs").show(ui, |ui| {
        for (id, d) in corpus
            .iter()
            .filter(|(_, d)| {
                needle.is_empty() || d.title.to_lowercase().contains(&needle) || d.id.to_lowercase().contains(&needle)
            })
            .take(500)
        {
            ui.horizontal(|ui| {
                if ui.selectable_label(app.selection.is_some_and(|s| s.doc == id), &d.id).clicked() {
                    pick = Some(id);
                }
                ui.label(RichText::new(&d.title).strong());
                for (k, v) in &d.fields {
                    ui.label(RichText::new(format!("{k}={v}")).small().weak());
                }
            });
            ui.label(RichText::new(ellipsis(&d.text, 220)).small());
        }
    });
    if let Some(doc) = pick {
        app.select(None, doc);
    }
}
