//! Everything a view (or a test, or the keyboard) can ask the app to do. Views never change the
//! app's data themselves: they send a [`Command`], and the app applies every command in one place
//! between frames (`RankLensApp::apply`).

use std::path::PathBuf;

use super::state::{CorpusChoice, Message, ViewId};
use crate::config::Settings;
use crate::corpus::{DocId, Split};
use crate::lessons::LessonParams;
use crate::models::Role;

use super::jobs::JobKind;

/// A request to change the app.
#[derive(Debug, Clone, PartialEq)]
pub enum Command {
    /// Load a corpus in the background (the current one stays until it is ready).
    OpenCorpus(CorpusChoice),
    /// How folders opened by dialog or drop are cut.
    SetOpenSplit(Split),
    /// Ask the user for a file or folder (on its own thread).
    OpenDialog(DialogPurpose),
    /// Act on a path chosen for a purpose (what a dialog answers).
    UsePath(DialogPurpose, PathBuf),
    /// Edit the question (nothing is ranked until [`Command::Ask`]).
    SetQuestion(String),
    /// Change the ranking settings and rank again.
    SetSettings(Settings),
    /// Rank the current question with every column (superseding a ranking under way).
    Ask,
    /// Ask this question now, in the Compare view.
    AskQuestion(String),
    /// Select a passage (in a column, or anywhere) and explain it under every column.
    Select {
        /// The label of the column it was picked in.
        column: Option<String>,
        /// The passage.
        doc: DocId,
    },
    /// Show this column's (by label) explanation of the selected passage.
    PickColumn(String),
    /// Read other systems' files (runs, saved engine responses, vectors; name given, or taken
    /// from the file) and show them as columns.
    OpenRuns(Vec<(Option<String>, PathBuf)>),
    /// Ask a live search engine beside the methods.
    AddEngine(crate::external::LiveEngine),
    /// Stop showing another system's column (by name).
    RemoveRun(String),
    /// The passage under the pointer, highlighted everywhere.
    Hover(Option<DocId>),
    /// Switch view.
    ShowView(ViewId),
    /// Edit the SQL statement.
    SetSql(String),
    /// Run the SQL statement (and refresh the SQL column).
    RunSql,
    /// Edit the graph pattern.
    SetPattern(String),
    /// Run the graph pattern (and refresh the graph column).
    RunGraph,
    /// Download (or load) the model of a role, then encode the corpus with it.
    FetchModel(Role),
    /// Write text with this chat server instead of the embedded model (`None`: back to the
    /// embedded model).
    UseChatServer(Option<crate::generate::ServerConfig>),
    /// Send the RAG prompt of these passages to the language model: (question, the list they came
    /// from, the passages).
    Answer(String, String, Vec<(String, String)>),
    /// Judge passages with the language model.
    Judge(JudgeRequest),
    /// Never download.
    SetOffline(bool),
    /// Run the encoders in this precision: the loaded models are loaded again and the corpus
    /// encoded (or read from the cache) under the new precision.
    SetPrecision(crate::models::Precision),
    /// Stop a job.
    Cancel(JobKind),
    /// Grade a passage for the current question (`None` clears the grade).
    SetGrade {
        /// The passage.
        doc: DocId,
        /// 0–3, or none.
        grade: Option<i32>,
    },
    /// The system the question-set evaluation tests against (a family's label or a run's name).
    SetBaseline(String),
    /// How the evaluation corrects its p-values.
    SetCorrection(crate::eval::Correction),
    /// Evaluate every method over the judged questions.
    RunStudy,
    /// Load the lesson corpora and models.
    LoadLessonKit,
    /// Build a lesson with these knobs.
    BuildLesson(String, LessonParams),
    /// Show a lesson in the Lessons view.
    OpenLesson(String),
    /// Show a message.
    Notify(Message),
    /// Dismiss one message, or all.
    Dismiss(Option<usize>),
    /// Show or hide the frame-time overlay.
    SetDebugOverlay(bool),
    /// Class mode: larger type, one checkpoint of the lesson at a time (for a projector).
    SetClassMode(bool),
    /// Write an assignment (one variant per student and the key).
    MakeAssignment(AssignmentRequest),
    /// Analyse a text with every analyzer and rank the question under each.
    CompareAnalyzers(String),
    /// One passage under two states.
    WhatMoved {
        /// The passage.
        doc: DocId,
        /// Before.
        before: Box<crate::compare::moved::State>,
        /// After.
        after: Box<crate::compare::moved::State>,
    },
}

/// What the assignment dialog asks for.
#[derive(Debug, Clone, PartialEq)]
pub struct AssignmentRequest {
    /// The lesson.
    pub lesson: String,
    /// The roster (CSV).
    pub roster: PathBuf,
    /// The seed.
    pub seed: u64,
    /// Where to write.
    pub out: PathBuf,
    /// Draw from the open corpus (else the bundled sample).
    pub open_corpus: bool,
}

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

/// What the language model is asked to judge.
#[derive(Debug, Clone, PartialEq)]
pub enum JudgeScope {
    /// One column's top k for the current question.
    Ranking {
        /// The column's label.
        column: String,
        /// The question's id.
        qid: String,
        /// The question.
        question: String,
        /// The passages, best first.
        docs: Vec<crate::corpus::DocId>,
    },
    /// The top k of every ranked column shown, pooled over the corpus's judged questions.
    Pool {
        /// Depth of each column's list.
        k: usize,
        /// Only the first N judged questions (0: all).
        questions: usize,
    },
}

/// A request to judge.
#[derive(Debug, Clone, PartialEq)]
pub struct JudgeRequest {
    /// What to judge.
    pub scope: JudgeScope,
    /// With what prompt.
    pub prompt: crate::generate::tasks::JudgePrompt,
}
