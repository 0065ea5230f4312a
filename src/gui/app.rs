//! The app: its data, its typed jobs, its views and the queue of commands. `logic` applies the
//! queued commands and takes in finished jobs; `ui` only draws, from a read-only context.

use std::cell::RefCell;
use std::collections::BTreeMap;
use std::path::PathBuf;
use std::sync::Arc;
use std::time::{Duration, Instant};

use super::chrome::{self, Chrome};
use super::command::Command;
use super::context::ViewContext;
use super::frames::FrameStats;
use super::jobs::{BuiltLesson, Jobs};
use super::state::{AppData, CorpusChoice, Explained, ModelsState, Notice, Persisted, Ranked};
use super::views::Views;
use crate::gui::command::CorpusCommand;
use crate::gui::command::OutsideCommand;
use crate::gui::command::StudyCommand;
use crate::models::ModelManager;
use crate::retrieve::MethodKind;
use crate::workbench::Workbench;

/// The app.
pub struct RankLensApp {
    pub(super) data: AppData,
    pub(super) jobs: Jobs,
    pub(super) views: Views,
    chrome: Chrome,
    commands: RefCell<Vec<Command>>,
    pub(super) frames: FrameStats,
    repaint: Option<egui::Context>,
    /// A question to ask once the first corpus is open (`ranklens --open DIR --question Q`).
    pub(super) first_question: Option<String>,
}

/// How much larger everything is in class mode.
pub const CLASS_ZOOM: f32 = 1.35;

impl RankLensApp {
    /// A new app that opens `open` (or the persisted corpus) at start.
    pub fn new(
        persisted: Persisted,
        manager: ModelManager,
        workspace: Option<PathBuf>,
        open: Option<CorpusChoice>,
    ) -> Self {
        let mut messages = Vec::new();
        // A damaged or unusable grades file is left as it is; grading goes on in memory and what
        // is given is written beside it when the app closes, so no grade is lost.
        let store = workspace.as_ref().and_then(|ws| {
            let path = ws.join("judgements.sqlite");
            let store = crate::eval::JudgementStore::open(&path).or_else(|e| {
                messages.push(Notice::error(format!(
                    "{}. Grades given now are kept in memory and written to {} when RankLens closes.",
                    e.report(),
                    crate::eval::JudgementStore::spill_path(&path).display()
                )));
                crate::eval::JudgementStore::in_memory(&path)
            });
            store.ok().map(Arc::new)
        });
        let choice = open.unwrap_or_else(|| persisted.corpus.clone());
        let manager = manager.with_precision(persisted.precision);
        let data = AppData {
            persisted,
            workbench: None,
            selection: None,
            hovered: None,
            grades: BTreeMap::new(),
            grades_revision: 0,
            judged_questions: 0,
            judgements_revision: 0,
            models: ModelsState { status: manager.status(), manager, errors: BTreeMap::new() },
            store,
            systems: Vec::new(),
            baseline: MethodKind::Bm25.label().to_string(),
            correction: crate::eval::Correction::default(),
            report_check: None,
            report_reproduced: None,
            messages,
            open_split: crate::corpus::Split::File,
            workspace,
            class_mode: false,
            model_judgements: Default::default(),
            model_sql: String::new(),
            chosen: None,
            class_files: None,
        };
        let mut frames = FrameStats::default();
        if let Some(path) = std::env::var_os("RANKLENS_FRAME_LOG") {
            frames.log = std::fs::File::create(path).ok();
        }
        frames.started = Some(std::time::Instant::now());
        if let Some(path) = std::env::var_os("RANKLENS_LOG") {
            frames.events = std::fs::File::create(path).ok();
        }
        let mut app = Self {
            data,
            jobs: Jobs::default(),
            views: Views::default(),
            chrome: Chrome::default(),
            commands: RefCell::new(Vec::new()),
            frames,
            repaint: None,
            first_question: None,
        };
        app.send(CorpusCommand::Open(choice));
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
        app.repaint = Some(cc.egui_ctx.clone());
        app.apply_queued();
        app
    }

    /// Ask `question` once the corpus being opened is ready (instead of starting with an empty
    /// question bar on a corpus other than the last one).
    pub fn ask_first(&mut self, question: String) {
        self.first_question = Some(question);
    }

    /// Queue a command (applied before the next frame is drawn).
    pub fn send(&mut self, command: impl Into<Command>) {
        self.commands.get_mut().push(command.into());
    }

    /// The app's data.
    pub fn data(&self) -> &AppData {
        &self.data
    }

    /// The background jobs and their results.
    pub fn jobs(&self) -> &Jobs {
        &self.jobs
    }

    /// The views and their own state.
    pub fn views(&self) -> &Views {
        &self.views
    }

    /// The current corpus's engine.
    pub fn workbench(&self) -> Option<&Arc<Workbench>> {
        self.data.workbench.as_ref()
    }

    /// The ranking shown.
    pub fn ranking(&self) -> Option<&Ranked> {
        self.jobs.rank.latest()
    }

    /// The selected passage explained by every column.
    pub fn explained(&self) -> Option<&Explained> {
        self.jobs.explain.ready()
    }

    /// The lesson shown.
    pub fn shown_lesson(&self) -> Option<&BuiltLesson> {
        self.jobs.lesson.latest()
    }

    /// Nothing running and nothing waiting: what tests wait for.
    pub fn is_idle(&self) -> bool {
        !self.jobs.any_running() && self.commands.borrow().is_empty()
    }

    /// A closure that wakes the UI when a job finishes.
    pub(super) fn waker(&self) -> impl Fn() + Send + 'static {
        let ctx = self.repaint.clone();
        move || {
            if let Some(ctx) = &ctx {
                ctx.request_repaint();
            }
        }
    }

    /// Apply every queued command, in order (commands may queue more).
    fn apply_queued(&mut self) {
        for _ in 0..64 {
            let queued = std::mem::take(self.commands.get_mut());
            if queued.is_empty() {
                return;
            }
            for command in queued {
                self.apply(command);
            }
        }
    }

    /// Per-frame work that is not drawing: commands, finished jobs, dropped files, grade keys.
    fn tick(&mut self, ctx: &egui::Context) {
        self.repaint = Some(ctx.clone());
        // Class mode is for a projector: everything larger.
        let zoom = if self.data.class_mode { CLASS_ZOOM } else { 1.0 };
        if (ctx.zoom_factor() - zoom).abs() > f32::EPSILON {
            ctx.set_zoom_factor(zoom);
        }
        let dropped: Vec<PathBuf> = ctx.input(|i| {
            i.raw.dropped_files.iter().map(|f| f.path().to_path_buf()).filter(|p| !p.as_os_str().is_empty()).collect()
        });
        // Dropped runs, engine responses and vectors become columns; anything else is a corpus.
        let (runs, other): (Vec<PathBuf>, Vec<PathBuf>) =
            dropped.into_iter().partition(|p| crate::compare::External::is_system_file(p));
        if !runs.is_empty() {
            self.send(OutsideCommand::OpenRuns(runs.into_iter().map(|p| (None, p)).collect()));
        }
        if let Some(path) = other.into_iter().next() {
            self.send(CorpusCommand::Open(CorpusChoice::Path(path, self.data.open_split)));
        }
        if let (Some(doc), Some(grade)) = (self.data.selected_doc(), super::keys::grade_shortcut(ctx)) {
            self.send(StudyCommand::SetGrade { doc, grade });
        }
        self.apply_queued();
        self.poll_jobs();
        self.apply_queued();
        let running = self.jobs.running();
        for j in &running {
            self.frames.stage(&j.kind.label(), &j.progress.stage);
        }
        if let Some(every) = running.iter().map(|j| j.kind.repaint_every()).min() {
            ctx.request_repaint_after(every);
        } else if self.jobs.any_running() {
            ctx.request_repaint_after(Duration::from_millis(250));
        }
    }

    /// Draw everything from a read-only context; commands are queued for the next `logic`.
    fn draw(&mut self, ui: &mut egui::Ui) {
        let ctx = ViewContext::new(&self.data, &self.jobs, &self.commands);
        let view = self.data.persisted.view;
        self.chrome.top_bar_ui(ui, &ctx);
        self.chrome.engine_form_ui(ui, &ctx);
        if !view.hides_question_bar() {
            self.chrome.question_bar_ui(ui, &ctx);
        }
        chrome::nav_ui(ui, &ctx);
        chrome::messages_ui(ui, &ctx);
        let views = &mut self.views;
        egui::CentralPanel::default().show(ui, |ui| views.ui(view, ui, &ctx));
        if self.data.persisted.debug_overlay {
            chrome::debug_overlay_ui(ui.ctx(), &self.frames, &ctx);
        }
        if !self.commands.borrow().is_empty() {
            ui.ctx().request_repaint();
        }
    }
}

impl eframe::App for RankLensApp {
    fn logic(&mut self, ctx: &egui::Context, _frame: &mut eframe::Frame) {
        let start = Instant::now();
        self.tick(ctx);
        self.frames.logic_ms = start.elapsed().as_secs_f32() * 1000.0;
    }

    fn ui(&mut self, ui: &mut egui::Ui, frame: &mut eframe::Frame) {
        let start = Instant::now();
        self.draw(ui);
        let ms = start.elapsed().as_secs_f32() * 1000.0 + self.frames.logic_ms;
        let busy = self.jobs.any_running();
        self.frames.record(ms, busy, frame.info().cpu_usage.map(|s| s * 1000.0));
    }

    fn save(&mut self, storage: &mut dyn eframe::Storage) {
        eframe::set_value(storage, eframe::APP_KEY, &self.data.persisted);
    }
}
