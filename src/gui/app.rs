//! The app: state, the per-frame `logic` (drain jobs, start work) and `ui` (draw only).

use std::collections::BTreeMap;
use std::path::PathBuf;
use std::sync::Arc;
use std::time::{Duration, Instant};

use crate::compare::Comparison;
use crate::corpus::DocId;
use crate::engine::Engine;
use crate::models::{ModelManager, ModelStatus, Role};
use crate::retrieve::{Explanation, MethodKind, QueryContext, Retriever};
use crate::structured::{GraphResult, SqlResult};

use super::jobs::{Jobs, Output, Slot};
use super::panels;
use super::state::{CorpusChoice, Persisted, ViewId};

/// One method's explanation of the selected passage: (column label, method, explanation or why
/// not, the passage's rank in that column).
pub type ExplainedItem = (String, MethodKind, Result<Explanation, String>, Option<usize>);

/// The result of ranking the question: the comparison, and the retrievers that produced it (kept
/// to explain passages with the very same objects).
pub struct Ranked {
    /// Every method's answer.
    pub comparison: Arc<Comparison>,
    /// The retrievers by family.
    pub retrievers: Vec<(MethodKind, Arc<dyn Retriever>)>,
    /// The question as prepared (with its filter).
    pub query: QueryContext,
    /// The question on the PCA map, when there is a map.
    pub map_query: Option<crate::project::QueryOnMap>,
    /// Methods still ranking in the second phase (their columns show a spinner).
    pub pending: Vec<MethodKind>,
    /// Which `start_compare` this answers.
    pub generation: u64,
}

/// Every method's explanation of one passage.
pub struct Explained {
    /// The passage.
    pub doc: DocId,
    /// (method label, family, explanation or error, rank in that method's list).
    pub items: Vec<ExplainedItem>,
}

/// A message shown in the message strip.
#[derive(Debug, Clone, PartialEq)]
pub struct Message {
    /// Error or warning.
    pub error: bool,
    /// Text.
    pub text: String,
}

impl Message {
    /// An error.
    pub fn error(text: impl Into<String>) -> Self {
        Self { error: true, text: text.into() }
    }
    /// A warning.
    pub fn warning(text: impl Into<String>) -> Self {
        Self { error: false, text: text.into() }
    }
}

/// Frame times for the debug overlay and the frame log.
#[derive(Default)]
pub struct FrameStats {
    /// Recent frame CPU times in milliseconds.
    pub recent_ms: std::collections::VecDeque<f32>,
    /// Longest frame since start.
    pub max_ms: f32,
    /// Frames drawn.
    pub frames: u64,
    /// Where to append one line per frame, if asked (`RANKLENS_FRAME_LOG`).
    pub log: Option<std::fs::File>,
}

impl FrameStats {
    fn record(&mut self, ms: f32, busy: bool) {
        use std::io::Write;
        self.frames += 1;
        self.max_ms = self.max_ms.max(ms);
        self.recent_ms.push_back(ms);
        if self.recent_ms.len() > 240 {
            self.recent_ms.pop_front();
        }
        if let Some(f) = &mut self.log {
            let _ = writeln!(f, "{} {ms:.3} {}", self.frames, u8::from(busy));
        }
    }
}

/// Which passage is selected, in which column.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Selection {
    /// Column (method family) the passage was picked in.
    pub kind: Option<MethodKind>,
    /// The passage.
    pub doc: DocId,
}

/// The app.
pub struct RankLensApp {
    /// Persisted settings and choices.
    pub state: Persisted,
    /// The current corpus and everything built on it.
    pub engine: Option<Arc<Engine>>,
    /// Background work.
    pub jobs: Jobs,
    /// The last ranking.
    pub ranked: Option<Arc<Ranked>>,
    /// Explanations of the selected passage.
    pub explained: Option<Explained>,
    /// Selected passage.
    pub selection: Option<Selection>,
    /// Passage under the pointer (highlighted in every column).
    pub hovered: Option<DocId>,
    /// Re-rank at the next opportunity.
    pub pending_compare: bool,
    /// Counts `start_compare` calls, so a late second phase never lands on a newer question.
    pub compare_generation: u64,
    /// Errors and warnings to show.
    pub messages: Vec<Message>,
    /// Last SQL result.
    pub sql_result: Option<Result<SqlResult, String>>,
    /// Last graph result.
    pub graph_result: Option<Result<GraphResult, String>>,
    /// Document browser filter.
    pub doc_filter: String,
    /// Passage picked in the "why not?" picker.
    pub why_not_filter: String,
    /// Model manager.
    pub manager: ModelManager,
    /// Model status for the Models view.
    pub model_status: Vec<ModelStatus>,
    /// Why a role's model could not be loaded.
    pub model_errors: BTreeMap<Role, String>,
    /// Workspace folder for caches (None in tests that want none).
    pub workspace: Option<PathBuf>,
    /// A file dialog running on its own thread.
    pub pending_dialog: Option<super::judging::PendingDialog>,
    /// Grades, evaluation and report state.
    pub judging: super::judging::Judging,
    /// Whether the last re-opened report reproduced exactly.
    pub report_reproduced: Option<bool>,
    /// Frame timing.
    pub frames: FrameStats,
    /// Other views' state (evaluation, lessons) lives in their panels.
    pub extra: panels::ExtraState,
}

impl RankLensApp {
    /// A new app that opens `open` (or the persisted corpus) at start.
    pub fn new(
        state: Persisted,
        manager: ModelManager,
        workspace: Option<PathBuf>,
        open: Option<CorpusChoice>,
    ) -> Self {
        let mut app = Self {
            state,
            engine: None,
            jobs: Jobs::default(),
            ranked: None,
            explained: None,
            selection: None,
            hovered: None,
            pending_compare: false,
            compare_generation: 0,
            messages: Vec::new(),
            sql_result: None,
            graph_result: None,
            doc_filter: String::new(),
            why_not_filter: String::new(),
            model_status: manager.status(),
            manager,
            model_errors: BTreeMap::new(),
            workspace,
            pending_dialog: None,
            judging: super::judging::Judging::default(),
            report_reproduced: None,
            frames: FrameStats::default(),
            extra: panels::ExtraState::default(),
        };
        if let Some(ws) = &app.workspace {
            match crate::eval::JudgementStore::open(&ws.join("judgements.sqlite")) {
                Ok(store) => app.judging.store = Some(Arc::new(store)),
                Err(e) => app.messages.push(Message::error(format!("grades cannot be stored: {e}"))),
            }
        }
        if let Some(path) = std::env::var_os("RANKLENS_FRAME_LOG") {
            app.frames.log = std::fs::File::create(path).ok();
        }
        let choice = open.unwrap_or_else(|| app.state.corpus.clone());
        app.open_corpus(choice);
        app
    }

    /// Create from eframe (restoring persisted state).
    pub fn from_creation_context(cc: &eframe::CreationContext<'_>, open: Option<CorpusChoice>) -> Self {
        let state: Persisted = cc.storage.and_then(|s| eframe::get_value(s, eframe::APP_KEY)).unwrap_or_default();
        Self::create(cc, state, ModelManager::from_env(), Some(crate::workspace_dir()), open)
    }

    /// Create with explicit state (tests, embedding): fonts installed, jobs wake this context.
    pub fn create(
        cc: &eframe::CreationContext<'_>,
        state: Persisted,
        manager: ModelManager,
        workspace: Option<PathBuf>,
        open: Option<CorpusChoice>,
    ) -> Self {
        super::theme::install_fonts(&cc.egui_ctx);
        let mut app = Self::new(state, manager, workspace, open);
        app.jobs.set_context(&cc.egui_ctx);
        app
    }

    /// Nothing running and nothing waiting: what tests wait for.
    pub fn is_idle(&self) -> bool {
        !self.jobs.any_running() && !self.pending_compare
    }

    /// The selected passage.
    pub fn selected_doc(&self) -> Option<DocId> {
        self.selection.map(|s| s.doc)
    }

    /// Select a passage (and explain it under every method).
    pub fn select(&mut self, kind: Option<MethodKind>, doc: DocId) {
        self.selection = Some(Selection { kind, doc });
        self.explained = None;
        self.start_explain(doc);
    }

    /// Results of the evaluation and report jobs.
    pub fn apply_other(&mut self, slot: Slot, output: Output) {
        if let Some(output) = panels::lessons::apply(self, &slot, output) {
            self.apply_judging(&slot, output);
        }
    }

    /// Called when a new corpus is installed.
    pub fn on_corpus_changed(&mut self) {
        panels::on_corpus_changed(self);
    }

    /// Per-frame work that is not drawing.
    pub fn tick(&mut self, ctx: &egui::Context) {
        self.jobs.set_context(ctx);
        for (slot, result) in self.jobs.drain() {
            self.apply(slot, result);
        }
        if let Some(d) = &self.pending_dialog {
            match d.rx.try_recv() {
                Ok(Some(path)) => {
                    let purpose = d.purpose;
                    self.pending_dialog = None;
                    self.on_dialog(purpose, path);
                }
                Ok(None) | Err(std::sync::mpsc::TryRecvError::Disconnected) => self.pending_dialog = None,
                Err(std::sync::mpsc::TryRecvError::Empty) => {}
            }
        }
        if let (Some(doc), Some(grade)) = (self.selected_doc(), super::judging::grade_shortcut(ctx)) {
            self.set_grade(doc, grade);
        }
        let dropped: Vec<PathBuf> = ctx.input(|i| {
            i.raw.dropped_files.iter().map(|f| f.path().to_path_buf()).filter(|p| !p.as_os_str().is_empty()).collect()
        });
        if let Some(path) = dropped.into_iter().next() {
            let split = self.extra.open_split;
            self.open_corpus(CorpusChoice::Path(path, split));
        }
        if self.pending_compare && self.engine.is_some() && !self.jobs.is_running(&Slot::SparseIndex) {
            self.start_compare();
        }
        if self.jobs.any_running() || self.pending_dialog.is_some() {
            ctx.request_repaint_after(Duration::from_millis(100));
        }
    }

    /// Draw everything.
    pub fn draw(&mut self, ui: &mut egui::Ui) {
        panels::top_bar_ui(self, ui);
        if !matches!(self.state.view, ViewId::Lessons | ViewId::Atlas) {
            panels::question_bar_ui(self, ui);
        }
        panels::nav_ui(self, ui);
        panels::messages_ui(self, ui);
        egui::CentralPanel::default().show(ui, |ui| {
            let view = self.state.view;
            panels::view_ui(self, view, ui);
        });
        if self.state.debug_overlay {
            panels::debug_overlay_ui(self, ui.ctx());
        }
    }
}

impl eframe::App for RankLensApp {
    fn logic(&mut self, ctx: &egui::Context, _frame: &mut eframe::Frame) {
        let start = Instant::now();
        self.tick(ctx);
        self.extra.logic_ms = start.elapsed().as_secs_f32() * 1000.0;
    }

    fn ui(&mut self, ui: &mut egui::Ui, _frame: &mut eframe::Frame) {
        let start = Instant::now();
        self.draw(ui);
        let ms = start.elapsed().as_secs_f32() * 1000.0 + self.extra.logic_ms;
        let busy = self.jobs.any_running();
        self.frames.record(ms, busy);
    }

    fn save(&mut self, storage: &mut dyn eframe::Storage) {
        eframe::set_value(storage, eframe::APP_KEY, &self.state);
    }
}
