//! File dialogs: what a dialog is for, and the native dialog for it (rfd). `pick` blocks its
//! thread, so the app runs it as a job.

use std::path::PathBuf;

/// What a file dialog was opened for.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum DialogPurpose {
    /// Open a folder as a corpus.
    OpenFolder,
    /// Open a file as a corpus.
    OpenFile,
    /// Re-open a JSON report.
    OpenReport,
    /// Save a report (format from the extension).
    SaveReport,
    /// Save the grades as qrels (BEIR TSV for `.tsv`, else TREC).
    ExportQrels,
    /// Load TREC or BEIR qrels as grades.
    ImportQrels,
    /// Save the RAG prompt as text.
    ExportPrompt,
    /// Save the lesson shown as a printable handout (HTML, or Markdown for `.md`).
    SaveHandout,
    /// Open run files from other systems.
    OpenRuns,
    /// Save the language model's judgements as qrels naming the model.
    ExportModelQrels,
}

/// Ask the user for the paths of `purpose` (none when the dialog is cancelled). Blocks until the
/// dialog closes.
pub fn pick(purpose: DialogPurpose) -> Vec<PathBuf> {
    let d = rfd::FileDialog::new();
    let picked: Option<PathBuf> = match purpose {
        DialogPurpose::OpenRuns => {
            return d
                .set_title("Open runs (TREC, CSV, TSV, JSON Lines, JSON; plain or .gz), saved engine responses or vectors (.npy, .jsonl, .safetensors)")
                .pick_files()
                .unwrap_or_default();
        }
        DialogPurpose::OpenFolder => d.set_title("Open a folder of .txt/.md files or a BEIR folder").pick_folder(),
        DialogPurpose::OpenFile => {
            d.set_title("Open a corpus file").add_filter("corpus", &["jsonl", "json", "csv", "tsv"]).pick_file()
        }
        DialogPurpose::OpenReport => d.set_title("Open a RankLens report").add_filter("report", &["json"]).pick_file(),
        DialogPurpose::SaveReport => d.set_title("Export a report").set_file_name("ranklens-report.html").save_file(),
        DialogPurpose::ExportQrels => {
            d.set_title("Export grades as TREC qrels").set_file_name("qrels.trec").save_file()
        }
        DialogPurpose::ImportQrels => d.set_title("Import TREC or BEIR qrels").pick_file(),
        DialogPurpose::ExportModelQrels => d
            .set_title("Export the language model's judgements (TREC qrels naming the model; .tsv for BEIR)")
            .set_file_name("model-judgements.qrels")
            .save_file(),
        DialogPurpose::ExportPrompt => d.set_title("Export the RAG prompt").set_file_name("rag-prompt.txt").save_file(),
        DialogPurpose::SaveHandout => d
            .set_title("Save the lesson as a handout (.html prints, .md for Markdown)")
            .set_file_name("lesson.html")
            .save_file(),
    };
    picked.into_iter().collect()
}
