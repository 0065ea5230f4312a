//! Everything a view (or a test, or the keyboard) can ask the app to do. Views never change the
//! app's data themselves: they send a [`Command`], and the app applies every command in one place
//! between frames (`RankLensApp::apply`, in `flow/`).
//!
//! Commands are grouped by feature, one enum per feature, and each feature's file under `flow/`
//! applies its own: a new feature adds its enum here, its arm to the dispatcher, and its file.

use std::path::PathBuf;

use super::dialog::DialogPurpose;
use super::jobs::JobKind;
use super::state::{CorpusChoice, Notice, ViewId};
use crate::compare::ColumnId;
use crate::config::Settings;
use crate::corpus::{DocId, Split};
use crate::lessons::LessonParams;
use crate::models::Role;

/// A request to change the app: which feature, and what of it.
#[derive(Debug, Clone, PartialEq)]
pub enum Command {
    /// Opening corpora.
    Corpus(CorpusCommand),
    /// The question and its ranking, the selection.
    Rank(RankCommand),
    /// Systems outside RankLens as columns.
    Outside(OutsideCommand),
    /// The SQL table and the knowledge graph.
    Structured(StructuredCommand),
    /// Models: fetching, precision, the language model.
    Models(ModelCommand),
    /// What the language model is asked (answers, judgements).
    Llm(LlmCommand),
    /// The language model with RankLens's own tools: SQL written from words, the graph it
    /// extracts (GraphRAG) and global search over it.
    ModelTools(ModelToolCommand),
    /// Grades and the question-set evaluation.
    Study(StudyCommand),
    /// Retrieve, then read: the reader over a column's top passages, and the k trade-off.
    Read(ReadCommand),
    /// Lessons and assignments.
    Lessons(LessonCommand),
    /// Files chosen and written (dialogs, exports).
    Files(FileCommand),
    /// The analysis tools (analyzers, what moved a passage).
    Tools(ToolCommand),
    /// The window: views, messages, the overlay, stopping work.
    Shell(ShellCommand),
}

/// Opening corpora.
#[derive(Debug, Clone, PartialEq)]
pub enum CorpusCommand {
    /// Load a corpus in the background (the current one stays until it is ready).
    Open(CorpusChoice),
    /// How folders opened by dialog or drop are cut.
    SetOpenSplit(Split),
}

/// The question and its ranking.
#[derive(Debug, Clone, PartialEq)]
pub enum RankCommand {
    /// Edit the question (nothing is ranked until [`RankCommand::Ask`]).
    SetQuestion(String),
    /// Change the ranking settings and rank again.
    SetSettings(Box<Settings>),
    /// Rank the current question with every column (superseding a ranking under way).
    Ask,
    /// Ask this question now, in the Compare view.
    AskQuestion(String),
    /// Select a passage (in a column, or anywhere) and explain it under every column.
    Select {
        /// The column it was picked in.
        column: Option<ColumnId>,
        /// The passage.
        doc: DocId,
    },
    /// Show this column's explanation of the selected passage.
    PickColumn(ColumnId),
    /// The passage under the pointer, highlighted everywhere.
    Hover(Option<DocId>),
}

/// Retrieve, then read.
#[derive(Debug, Clone, PartialEq)]
pub enum ReadCommand {
    /// Which reader, and how many passages it reads.
    SetChoice(super::state::ReaderChoice),
    /// Read the top k passages of a column of the ranking shown.
    Read(ColumnId),
    /// Read the corpus's question set with answers through a method's rankings at each k.
    Study(crate::retrieve::MethodKind),
}

/// Systems outside RankLens shown as columns.
#[derive(Debug, Clone, PartialEq)]
pub enum OutsideCommand {
    /// Read other systems' files (runs, saved engine responses, vectors; name given, or taken
    /// from the file) and show them as columns.
    OpenRuns(Vec<(Option<String>, PathBuf)>),
    /// Ask a live search engine beside the methods.
    AddEngine(crate::external::LiveEngine),
    /// Stop showing another system's column (by name).
    Remove(String),
}

/// The SQL table and the knowledge graph.
#[derive(Debug, Clone, PartialEq)]
pub enum StructuredCommand {
    /// Edit the SQL statement.
    SetSql(String),
    /// Run the SQL statement (and refresh the SQL column).
    RunSql,
    /// Edit the graph pattern.
    SetPattern(String),
    /// Run the graph pattern (and refresh the graph column).
    RunGraph,
}

/// Models.
#[derive(Debug, Clone, PartialEq)]
pub enum ModelCommand {
    /// Download (or load) the model of a role, then encode the corpus with it.
    Fetch(Role),
    /// Write text with this chat server instead of the embedded model (`None`: back to the
    /// embedded model).
    UseChatServer(Option<crate::generate::ServerConfig>),
    /// Write text with this embedded generator (a manifest id), fetched when missing.
    UseGenerator(String),
    /// Never download.
    SetOffline(bool),
    /// Run the encoders in this precision: the loaded models are loaded again and the corpus
    /// encoded (or read from the cache) under the new precision.
    SetPrecision(crate::models::Precision),
    /// Train a query adapter on the open corpus's judgements (four in five judged questions; the
    /// fifth held out to measure it), save it in the workspace and show its column.
    TrainAdapter,
}

/// What the language model is asked.
#[derive(Debug, Clone, PartialEq)]
pub enum LlmCommand {
    /// Send the RAG prompt of these passages to the language model.
    Answer(AnswerRequest),
    /// Judge passages with the language model.
    Judge(JudgeRequest),
    /// Put the judge that made the kept judgements under attack (the judge's report card), the
    /// methods ranked over the same pool: each method's top `k` for the first `questions` judged
    /// questions (0: all).
    StressJudge {
        /// Depth of each method's list.
        k: usize,
        /// Questions (0: every judged one).
        questions: usize,
    },
}

/// The language model with RankLens's own tools.
#[derive(Debug, Clone, PartialEq)]
pub enum ModelToolCommand {
    /// Ask the model for one SELECT answering this question over the corpus's tables (shown, not
    /// run).
    WriteSql(String),
    /// Edit the statement the model wrote before it runs.
    EditModelSql(String),
    /// Run the model's statement (as edited): checked to be one SELECT, then run read-only.
    RunModelSql,
    /// Extract the model's graph of the first N passages (all when `None`), or read it from the
    /// cache.
    BuildGraph(Option<usize>),
    /// Answer this question from the graph's community summaries (global search).
    AskGlobal(String),
}

/// Grades and the question-set evaluation.
#[derive(Debug, Clone, PartialEq)]
pub enum StudyCommand {
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
    Run,
}

/// Lessons and assignments.
#[derive(Debug, Clone, PartialEq)]
pub enum LessonCommand {
    /// Load the lesson corpora and models.
    LoadKit,
    /// Build a lesson with these knobs.
    Build(String, LessonParams),
    /// Show a lesson in the Lessons view.
    Open(String),
    /// Class mode: larger type, one checkpoint of the lesson at a time (for a projector).
    SetClassMode(bool),
    /// Write an assignment (one variant per student and the key).
    MakeAssignment(AssignmentRequest),
    /// Read a key and the class's answers into the class report.
    ClassReport {
        /// The key written with the assignment.
        key: PathBuf,
        /// A folder of `<student>.json` files, or a CSV.
        answers: PathBuf,
        /// The roster whose identifier columns the gradebook files carry (optional).
        roster: Option<PathBuf>,
    },
    /// Write the class report shown as a printable page.
    SaveClassReport(PathBuf),
}

/// Files chosen and written.
#[derive(Debug, Clone, PartialEq)]
pub enum FileCommand {
    /// Ask the user for a file or folder (on its own thread).
    OpenDialog(DialogPurpose),
    /// Act on a path chosen for a purpose (what a dialog answers).
    UsePath(DialogPurpose, PathBuf),
}

/// The analysis tools.
#[derive(Debug, Clone, PartialEq)]
pub enum ToolCommand {
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
    /// Search for the smallest changes that bring a passage into a method's top k.
    FindFixes {
        /// The passage.
        doc: DocId,
        /// The method.
        kind: crate::retrieve::MethodKind,
    },
    /// A Page Hunt try: the question ranked for the passage, scored, with the solver's par.
    PageHunt {
        /// The passage.
        doc: DocId,
        /// The method of the rounds that rank with one.
        kind: crate::retrieve::MethodKind,
        /// The round.
        round: crate::lessons::page_hunt::Round,
        /// The question tried.
        question: String,
    },
}

/// The window.
#[derive(Debug, Clone, PartialEq)]
pub enum ShellCommand {
    /// Switch view.
    ShowView(ViewId),
    /// Show a message.
    Notify(Notice),
    /// Dismiss one message, or all.
    Dismiss(Option<usize>),
    /// Show or hide the frame-time overlay.
    SetDebugOverlay(bool),
    /// Stop a job.
    Cancel(JobKind),
}

macro_rules! feature_commands {
    ($($variant:ident($ty:ty)),* $(,)?) => {
        $(impl From<$ty> for Command {
            fn from(c: $ty) -> Command {
                Command::$variant(c)
            }
        })*
    };
}

feature_commands!(
    Corpus(CorpusCommand),
    Rank(RankCommand),
    Outside(OutsideCommand),
    Structured(StructuredCommand),
    Models(ModelCommand),
    Llm(LlmCommand),
    ModelTools(ModelToolCommand),
    Study(StudyCommand),
    Read(ReadCommand),
    Lessons(LessonCommand),
    Files(FileCommand),
    Tools(ToolCommand),
    Shell(ShellCommand),
);

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

/// The reader's question with the passages of its prompt.
#[derive(Debug, Clone, PartialEq)]
pub struct AnswerRequest {
    /// The question.
    pub question: String,
    /// The list the passages came from.
    pub source: String,
    /// The passages, best first: (id, text).
    pub passages: Vec<(String, String)>,
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
        docs: Vec<DocId>,
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
    /// Read P(yes) from the model's first answer token (a graded judgement).
    pub probabilities: bool,
}
