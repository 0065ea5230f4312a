//! The app's data: what it remembers between runs (persisted with eframe storage), and what it
//! holds while running (the workbench, the selection, grades, messages). Results of background work
//! live in their typed jobs ([`super::jobs`]); views read all of it through
//! [`super::context::ViewContext`] and change it only by sending commands.

use std::collections::BTreeMap;
use std::path::PathBuf;
use std::sync::Arc;

use serde::{Deserialize, Serialize};

use crate::compare::{ExplainedItem, External, Plan, PlanRun};
use crate::config::Settings;
use crate::corpus::{DocId, Split};
use crate::eval::{Correction, JudgementStore};
use crate::models::{ModelManager, ModelStatus, Role};
use crate::project::QueryOnMap;
use crate::workbench::Workbench;

/// Which corpus to open.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub enum CorpusChoice {
    /// The bundled Acme Sync help centre.
    Sample,
    /// A bundled lesson corpus (`isro`, `mozart`).
    Lesson(String),
    /// A user's file or folder.
    Path(PathBuf, Split),
    /// A public test collection by name (`scifact`), fetched into the workspace's data folder
    /// the first time it is opened.
    Collection(String),
}

impl CorpusChoice {
    /// Where its files are.
    pub fn path(&self) -> crate::Result<PathBuf> {
        Ok(match self {
            CorpusChoice::Sample => crate::sample::acme_sync()?,
            CorpusChoice::Lesson(name) => crate::sample::lessons()?.join(format!("{name}.jsonl")),
            CorpusChoice::Path(p, _) => p.clone(),
            CorpusChoice::Collection(name) => crate::datasets::data_dir(&crate::workspace_dir()).join(name),
        })
    }

    /// How a folder is cut.
    pub fn split(&self) -> Split {
        match self {
            CorpusChoice::Path(_, s) => *s,
            _ => Split::File,
        }
    }
}

/// The views of the app, in navigation order. The navigation, the window loop and the tests all
/// iterate this list.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub enum ViewId {
    /// Every method side by side.
    Compare,
    /// Why the selected passage scored what it did.
    Explain,
    /// The PCA map.
    Map,
    /// SQL and knowledge graph.
    Structured,
    /// Grades, metrics and question-set evaluation.
    Evaluate,
    /// Corpus browser and statistics.
    Corpus,
    /// Neural models.
    Models,
    /// Worked examples computed live.
    Lessons,
    /// One card per retrieval method.
    Atlas,
    /// The RAG prompt.
    Rag,
    /// One passage under two states: what moved its rank and score.
    Moved,
    /// One text through every analyzer.
    Analyzers,
}

impl ViewId {
    /// Every view.
    pub const ALL: [ViewId; 12] = [
        ViewId::Compare,
        ViewId::Explain,
        ViewId::Moved,
        ViewId::Map,
        ViewId::Structured,
        ViewId::Evaluate,
        ViewId::Corpus,
        ViewId::Models,
        ViewId::Lessons,
        ViewId::Analyzers,
        ViewId::Atlas,
        ViewId::Rag,
    ];

    /// Views that need no question (the question bar is hidden there).
    pub fn hides_question_bar(self) -> bool {
        matches!(self, ViewId::Lessons | ViewId::Atlas)
    }

    /// Navigation label.
    pub fn label(self) -> &'static str {
        match self {
            ViewId::Compare => "Compare",
            ViewId::Explain => "Explain",
            ViewId::Map => "Map",
            ViewId::Structured => "Structured",
            ViewId::Evaluate => "Evaluate",
            ViewId::Corpus => "Corpus",
            ViewId::Models => "Models",
            ViewId::Lessons => "Lessons",
            ViewId::Atlas => "Methods atlas",
            ViewId::Rag => "RAG prompt",
            ViewId::Moved => "What moved it",
            ViewId::Analyzers => "Analyzers",
        }
    }
}

/// Everything persisted.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct Persisted {
    /// Ranking settings.
    pub settings: Settings,
    /// The corpus to reopen.
    pub corpus: CorpusChoice,
    /// The view shown.
    pub view: ViewId,
    /// The question.
    pub question: String,
    /// Never download.
    pub offline: bool,
    /// The arithmetic the encoders run in (Models → Precision).
    pub precision: crate::models::Precision,
    /// The SQL editor's text.
    pub sql: String,
    /// The graph pattern editor's text.
    pub pattern: String,
    /// Show the frame-time overlay.
    pub debug_overlay: bool,
    /// Files of other systems shown beside the methods (runs, saved engine responses, vectors),
    /// reopened at start: (name, file).
    pub runs: Vec<(String, PathBuf)>,
    /// Live search engines shown beside the methods (their descriptions: credentials are only
    /// ever named, by environment variable).
    #[serde(default)]
    pub engines: Vec<crate::external::LiveEngine>,
    /// The chat server that writes text in place of the embedded model (its API key only ever
    /// named, by environment variable).
    #[serde(default)]
    pub chat_server: Option<crate::generate::ServerConfig>,
    /// The judge's prompt as the user last edited it.
    #[serde(default)]
    pub judge_prompt: crate::generate::tasks::JudgePrompt,
    /// The embedded generator chosen in Models → Generator (a manifest id); `None`: the preferred
    /// one that is here (the larger model once fetched, else the small one).
    #[serde(default)]
    pub generator_model: Option<String>,
    /// The reader and how many passages it reads (Compare → Reader).
    #[serde(default)]
    pub reading: ReaderChoice,
}

/// Which reader reads, and how many passages.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct ReaderChoice {
    /// The reader; `None`: the trained one when its model is here, else the language model, else
    /// the toy.
    pub reader: Option<crate::read::ReaderKind>,
    /// Passages read.
    pub k: usize,
}

impl Default for ReaderChoice {
    fn default() -> Self {
        Self { reader: None, k: 5 }
    }
}

impl Default for Persisted {
    fn default() -> Self {
        Self {
            settings: Settings::default(),
            corpus: CorpusChoice::Sample,
            view: ViewId::Compare,
            question: "Why does my phone say my login is stale?".into(),
            offline: false,
            precision: crate::models::Precision::Auto,
            sql: String::new(),
            pattern: String::new(),
            debug_overlay: false,
            runs: Vec::new(),
            engines: Vec::new(),
            chat_server: None,
            judge_prompt: Default::default(),
            generator_model: None,
            reading: ReaderChoice::default(),
        }
    }
}

/// A message shown in the message strip.
#[derive(Debug, Clone, PartialEq)]
pub struct Notice {
    /// Error or warning.
    pub error: bool,
    /// Text.
    pub text: String,
}

impl Notice {
    /// An error.
    pub fn error(text: impl Into<String>) -> Self {
        Self { error: true, text: text.into() }
    }
    /// A warning.
    pub fn warning(text: impl Into<String>) -> Self {
        Self { error: false, text: text.into() }
    }
}

/// Which passage is selected, in which column.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Selection {
    /// The column the passage was picked in.
    pub column: Option<crate::compare::ColumnId>,
    /// The passage.
    pub doc: DocId,
}

/// The question ranked by every column: the plan it ran, the columns with their prepared states,
/// and the question on the map.
#[derive(Clone)]
pub struct Ranked {
    /// The columns asked for.
    pub plan: Plan,
    /// What they returned, with each ranked column's prepared question (explanations read it).
    pub run: PlanRun,
    /// Columns still ranking in the second phase (they encode passages while answering).
    pub pending: Vec<usize>,
    /// The question on the PCA map, when there is a map.
    pub map_query: Option<QueryOnMap>,
    /// The question on the map of each vector set that has one, by the set's name.
    pub vector_maps: Vec<(String, QueryOnMap)>,
    /// Changes whenever the ranking or any of its columns changes: what views' data is keyed by.
    pub revision: u64,
}

/// A new revision number, never given before (for [`Ranked::revision`] and the grades').
pub fn next_revision() -> u64 {
    static NEXT: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(1);
    NEXT.fetch_add(1, std::sync::atomic::Ordering::Relaxed)
}

/// Every column's explanation of one passage.
#[derive(Debug, Clone)]
pub struct Explained {
    /// The passage.
    pub doc: DocId,
    /// Every ranked column's explanation, with the passage's rank there.
    pub items: Vec<ExplainedItem>,
    /// Changes with every explanation (what views' data is keyed by).
    pub revision: u64,
}

/// A loaded corpus, ready to be installed.
pub struct LoadedCorpus {
    /// The workbench built on it.
    pub workbench: Workbench,
    /// What the corpus came from.
    pub choice: CorpusChoice,
}

/// The models: the manager, what is here, and why a role has none.
#[derive(Clone)]
pub struct ModelsState {
    /// The model manager (cache, downloads).
    pub manager: ModelManager,
    /// Every known model and whether it is here, for the Models view.
    pub status: Vec<ModelStatus>,
    /// Why a role's model could not be loaded.
    pub errors: BTreeMap<Role, String>,
}

/// Everything views draw that is not a job's result.
pub struct AppData {
    /// Settings and choices remembered between runs.
    pub persisted: Persisted,
    /// The current corpus and everything built on it.
    pub workbench: Option<Arc<Workbench>>,
    /// The selected passage.
    pub selection: Option<Selection>,
    /// The passage under the pointer (highlighted in every column).
    pub hovered: Option<DocId>,
    /// Grades of the current question by passage id (shipped judgements, then the user's).
    pub grades: BTreeMap<String, i32>,
    /// Changes whenever the grades do (what views' data is keyed by).
    pub grades_revision: u64,
    /// Questions with judgements (shipped and the user's), counted when the grades are read.
    pub judged_questions: usize,
    /// The models.
    pub models: ModelsState,
    /// Where grades are stored (none without a workspace).
    pub store: Option<Arc<JudgementStore>>,
    /// Systems outside RankLens shown as columns after the methods (runs, engines, vectors).
    pub systems: Vec<External>,
    /// The system the question-set evaluation tests against: a method family's label (`BM25`)
    /// or a run's name.
    pub baseline: String,
    /// How the evaluation corrects p-values for testing several systems.
    pub correction: Correction,
    /// A report being re-opened: its rankings, to check the re-run against.
    pub report_check: Option<Box<crate::report::ComparisonReport>>,
    /// Whether the last re-opened report reproduced exactly.
    pub report_reproduced: Option<bool>,
    /// Errors and warnings to show.
    pub messages: Vec<Notice>,
    /// How folders opened by dialog or drop are cut.
    pub open_split: Split,
    /// Workspace folder for caches and grades (none in tests that want none).
    pub workspace: Option<PathBuf>,
    /// Class mode: larger type, the lesson one checkpoint at a time.
    pub class_mode: bool,
    /// The language model's relevance judgements of the open corpus, kept apart from every grade:
    /// those stored in the workspace, then each one of a judging run as the job hands it over.
    pub model_judgements: Option<crate::compare::judge::ModelJudgements>,
    /// Changes whenever the model's judgements do (the judge panel's κ is keyed by it).
    pub judgements_revision: u64,
    /// The statement the language model wrote for a question, as the user edited it (it runs
    /// only when asked).
    pub model_sql: String,
    /// The last path a dialog chose for a form's field, with a serial number: a form takes it
    /// into its field once (when the serial is new to it).
    pub chosen: Option<(u64, crate::gui::dialog::Field, PathBuf)>,
    /// The files the class report was read from (key, answers, roster): what its gradebook files
    /// are written from.
    pub class_files: Option<(PathBuf, PathBuf, Option<PathBuf>)>,
}

/// The reader's answer to a question, read against the passages of its prompt.
#[derive(Debug, Clone)]
pub struct RagAnswer {
    /// The question.
    pub question: String,
    /// The list the passages came from.
    pub source: String,
    /// The passages of the prompt, numbered from 1: (id, text).
    pub passages: Vec<(String, String)>,
    /// The model's text and what wrote it.
    pub generated: crate::generate::Generated,
    /// The answer read: citations resolved or flagged, each sentence's support.
    pub answer: crate::generate::citations::CitedAnswer,
    /// Each sentence of the answer against every passage of the prompt, whatever it cites.
    pub grounding: Vec<crate::generate::citations::Grounded>,
    /// The same question answered with no passages, each sentence checked against the same
    /// passages, or why the model gave none.
    pub closed_book: std::result::Result<ClosedBook, String>,
}

/// A query adapter trained in the app: where it was saved, and how it did on the questions held
/// out of its training.
#[derive(Debug, Clone, PartialEq)]
pub struct TrainedAdapter {
    /// The adapter's file (in the workspace).
    pub path: PathBuf,
    /// Its training record.
    pub trained: crate::models::AdapterTraining,
    /// Held-out questions (one in five of the judged, by id), and nDCG@10 of dense and of dense
    /// + adapter on them.
    pub held_out: (usize, f64, f64),
}

/// The question answered closed-book, beside the RAG answer.
#[derive(Debug, Clone)]
pub struct ClosedBook {
    /// The model's text.
    pub generated: crate::generate::Generated,
    /// Each sentence against the RAG prompt's passages: a sentence no passage supports is flagged.
    pub grounding: Vec<crate::generate::citations::Grounded>,
}

/// A piece of an answer as it is written: the RAG answer's, then the closed-book answer's.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum AnswerPiece {
    /// From the answer to the RAG prompt.
    Rag(String),
    /// From the answer with no passages.
    ClosedBook(String),
}

impl AppData {
    /// The open corpus's fingerprint: what its grades are stored under.
    pub fn corpus_key(&self) -> Option<String> {
        self.workbench.as_ref().map(|e| e.corpus().fingerprint())
    }

    /// Every grade (shipped judgements, then the user's, which win) of every question.
    pub fn all_qrels(&self) -> crate::eval::Qrels {
        let Some(engine) = &self.workbench else { return crate::eval::Qrels::default() };
        crate::tally::count(crate::tally::Tally::Grades);
        let mut q = engine.corpus().qrels.clone().unwrap_or_default();
        if let (Some(store), Some(key)) = (&self.store, self.corpus_key())
            && let Ok(mine) = store.qrels(&key)
        {
            for (qid, docs) in mine.judgements {
                for (doc, g) in docs {
                    q.insert(&qid, &doc, g);
                }
            }
        }
        q
    }

    /// The selected passage.
    pub fn selected_doc(&self) -> Option<DocId> {
        self.selection.as_ref().map(|s| s.doc)
    }

    /// The id grades of the current question are kept under.
    pub fn question_id(&self) -> Option<String> {
        let engine = self.workbench.as_ref()?;
        let q = self.persisted.question.trim();
        (!q.is_empty()).then(|| crate::eval::question_id(q, &engine.corpus().queries))
    }
}
