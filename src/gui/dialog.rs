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
    /// Save the lesson shown as a student's handout: no answers.
    SaveStudentHandout,
    /// Save the lesson's checkpoints as a quiz (Moodle XML for `.xml`, else GIFT).
    SaveQuiz,
    /// Save the class report's gradebook for Moodle's grade import.
    SaveGradebookMoodle,
    /// Save the class report's gradebook for Canvas's gradebook import.
    SaveGradebookCanvas,
    /// Choose a file or folder for a form's field (its path lands in the field).
    Choose(Field),
    /// Use an adapter file for the dense + adapter column.
    ChooseAdapter,
    /// Write with this GGUF file as the embedded generator.
    ChooseGguf,
}

/// A form's path field a dialog fills.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Field {
    /// The assignment's roster (CSV).
    Roster,
    /// The folder the assignment is written into.
    AssignmentFolder,
    /// The class report's key.
    Key,
    /// The class's answers as a CSV.
    AnswersFile,
    /// The class's answers as a folder of `<student>.json`.
    AnswersFolder,
    /// The roster the gradebook takes its identifiers from.
    GradebookRoster,
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
        DialogPurpose::SaveStudentHandout => d
            .set_title("Save the lesson as a student's handout, without answers (.html prints, .md for Markdown)")
            .set_file_name("lesson-student.html")
            .save_file(),
        DialogPurpose::SaveQuiz => d
            .set_title("Export the checkpoints as a quiz (.xml for Moodle XML, .gift for GIFT)")
            .set_file_name("quiz.xml")
            .save_file(),
        DialogPurpose::SaveGradebookMoodle => d
            .set_title("Save the gradebook for Moodle's grade import (CSV)")
            .set_file_name("grades-moodle.csv")
            .save_file(),
        DialogPurpose::SaveGradebookCanvas => d
            .set_title("Save the gradebook for Canvas's gradebook import (CSV)")
            .set_file_name("grades-canvas.csv")
            .save_file(),
        DialogPurpose::Choose(Field::Roster | Field::GradebookRoster) => {
            d.set_title("Choose the roster (CSV, first column the name)").add_filter("roster", &["csv"]).pick_file()
        }
        DialogPurpose::Choose(Field::AssignmentFolder) => {
            d.set_title("Choose the folder to write the assignment into").pick_folder()
        }
        DialogPurpose::Choose(Field::Key) => {
            d.set_title("Choose the assignment's key").add_filter("key", &["json"]).pick_file()
        }
        DialogPurpose::Choose(Field::AnswersFile) => {
            d.set_title("Choose the class's answers (CSV: student,question,answer)").pick_file()
        }
        DialogPurpose::Choose(Field::AnswersFolder) => {
            d.set_title("Choose the folder of the class's answers (<student>.json)").pick_folder()
        }
        DialogPurpose::ChooseAdapter => d
            .set_title("Use a query adapter (from ranklens adapter train)")
            .add_filter("adapter", &["json"])
            .pick_file(),
        DialogPurpose::ChooseGguf => {
            d.set_title("Write with a GGUF instruct model").add_filter("GGUF", &["gguf"]).pick_file()
        }
    };
    picked.into_iter().collect()
}
