//! What the app does: every command applied in one place, the background jobs it starts (open a
//! corpus, load and fetch models, encode, rank, explain, query the table and the graph), and what
//! happens when each job finishes.

use std::sync::Arc;

use super::app::RankLensApp;
use super::command::Command;
use super::jobs::Polled;
use super::state::{CorpusChoice, Explained, LoadedCorpus, Message, Ranked};
use crate::Error;
use crate::compare::Plan;
use crate::corpus::{self, DocId, LoadOptions};
use crate::engine::Engine;
use crate::models::Role;
use crate::progress::Progress;
use crate::retrieve::MethodKind;
use crate::structured::SqlLimits;

/// What a column says while its method ranks in the second phase.
pub const STILL_RANKING: &str = "still ranking: encoding the candidate passages for this question…";

impl RankLensApp {
    /// Apply one command. This is the only place the app's data changes in answer to a view.
    pub(super) fn apply(&mut self, command: Command) {
        let data = &mut self.data;
        match command {
            Command::OpenCorpus(choice) => self.start_corpus(choice),
            Command::SetOpenSplit(split) => data.open_split = split,
            Command::OpenDialog(purpose) => self.start_dialog(purpose),
            Command::UsePath(purpose, path) => self.use_path(purpose, path),
            Command::SetQuestion(q) => {
                data.persisted.question = q;
                self.refresh_grades();
            }
            Command::SetSettings(settings) => {
                if settings != data.persisted.settings {
                    data.persisted.settings = settings;
                    self.start_rank();
                }
            }
            Command::Ask => self.start_rank(),
            Command::AskQuestion(q) => {
                data.persisted.question = q;
                data.persisted.view = super::state::ViewId::Compare;
                self.refresh_grades();
                self.start_rank();
            }
            Command::Select { kind, doc } => {
                data.selection = Some(super::state::Selection { kind, doc });
                self.start_explain(doc);
            }
            Command::PickColumn(kind) => {
                if let Some(s) = &mut data.selection {
                    s.kind = Some(kind);
                }
            }
            Command::Hover(doc) => data.hovered = doc,
            Command::ShowView(view) => data.persisted.view = view,
            Command::SetSql(sql) => data.persisted.sql = sql,
            Command::SetPattern(p) => data.persisted.pattern = p,
            Command::RunSql => {
                self.start_sql();
                self.start_rank();
            }
            Command::RunGraph => {
                self.start_graph();
                self.start_rank();
            }
            Command::FetchModel(role) => self.start_model(role, true),
            Command::SetOffline(offline) => data.persisted.offline = offline,
            Command::Cancel(kind) => self.jobs.cancel(kind),
            Command::SetGrade { doc, grade } => self.set_grade(doc, grade),
            Command::SetBaseline(kind) => data.baseline = kind,
            Command::RunStudy => self.start_study(),
            Command::LoadLessonKit => self.start_lesson_kit(),
            Command::BuildLesson(id, params) => self.start_lesson(id, params),
            Command::OpenLesson(id) => {
                self.views.lessons.select(&id);
                self.data.persisted.view = super::state::ViewId::Lessons;
            }
            Command::Notify(m) => data.messages.push(m),
            Command::Dismiss(Some(i)) => {
                if i < data.messages.len() {
                    data.messages.remove(i);
                }
            }
            Command::Dismiss(None) => data.messages.clear(),
            Command::SetDebugOverlay(on) => data.persisted.debug_overlay = on,
        }
    }

    /// Take in every finished job.
    pub(super) fn poll_jobs(&mut self) {
        let failed = |kind: super::jobs::JobKind, e: Option<&Error>| {
            Message::error(format!("{}: {}", kind.label(), e.map(Error::report).unwrap_or_default()))
        };
        match self.jobs.corpus.poll() {
            Polled::Ready => {
                if let Some(loaded) = self.jobs.corpus.take_ready() {
                    self.install_engine(loaded);
                }
            }
            Polled::Failed => {
                self.data.messages.push(failed(self.jobs.corpus.kind(), self.jobs.corpus.failure()));
            }
            Polled::Same => {}
        }
        for role in Role::ALL {
            let Some(job) = self.jobs.models.get_mut(&role) else { continue };
            match job.poll() {
                Polled::Ready => {
                    self.data.models.errors.remove(&role);
                    self.refresh_models();
                    if role == Role::Reranker {
                        self.start_rank();
                    } else {
                        self.start_encode(role);
                    }
                }
                Polled::Failed => {
                    let m = job.failure().map(Error::report).unwrap_or_default();
                    self.data.models.errors.insert(role, m);
                }
                Polled::Same => {}
            }
            let Some(job) = self.jobs.encodings.get_mut(&role) else { continue };
            match job.poll() {
                Polled::Ready => {
                    self.refresh_models();
                    self.start_rank();
                }
                Polled::Failed => self.data.messages.push(failed(job.kind(), job.failure())),
                Polled::Same => {}
            }
        }
        match self.jobs.rank.poll() {
            Polled::Ready => {
                let pending = self.jobs.rank.ready().is_some_and(|r| !r.pending.is_empty());
                if pending {
                    if let Some(doc) = self.data.selected_doc() {
                        self.start_explain(doc);
                    }
                    self.start_rank_slow();
                } else {
                    self.after_ranking();
                }
            }
            Polled::Failed => self.data.messages.push(failed(self.jobs.rank.kind(), self.jobs.rank.failure())),
            Polled::Same => {}
        }
        match self.jobs.rank_slow.poll() {
            Polled::Ready => {
                let columns = self.jobs.rank_slow.take_ready().unwrap_or_default();
                if let Some(ranked) = self.jobs.rank.ready_mut() {
                    ranked.run.fill(columns);
                    ranked.pending.clear();
                }
                self.after_ranking();
            }
            Polled::Failed => {
                self.data.messages.push(failed(self.jobs.rank_slow.kind(), self.jobs.rank_slow.failure()))
            }
            Polled::Same => {}
        }
        // Explanations, SQL rows, graph bindings and lessons are drawn from their jobs, failures
        // included; nothing else happens when they finish.
        self.jobs.explain.poll();
        self.jobs.sql.poll();
        self.jobs.graph.poll();
        self.jobs.lesson_kit.poll();
        self.jobs.lesson.poll();
        self.poll_judging();
    }

    /// Load a corpus in the background; the current one stays until the new one is ready, and a
    /// corpus that cannot be read leaves everything as it was and says why.
    fn start_corpus(&mut self, choice: CorpusChoice) {
        let workspace = self.data.workspace.clone();
        self.jobs.corpus.start(self.waker(), move |progress| {
            progress.stage("reading files", 0);
            let path = choice.path()?;
            let corpus = corpus::load(&path, LoadOptions { split: choice.split(), format: None })?;
            if corpus.is_empty() {
                let message = format!("no documents could be loaded ({})", corpus.report);
                return Err(Error::invalid(path.display().to_string(), message));
            }
            let mut engine = Engine::new(corpus);
            if let Some(ws) = workspace {
                engine = engine.with_workspace(ws);
            }
            if path.is_dir() {
                engine.load_structured(&path)?;
            }
            Ok(LoadedCorpus { engine, choice })
        });
    }

    fn install_engine(&mut self, loaded: LoadedCorpus) {
        let engine = Arc::new(loaded.engine);
        let data = &mut self.data;
        for w in engine.corpus().report.warnings.iter().chain(engine.structured().warnings.iter()) {
            data.messages.push(Message::warning(w.to_string()));
        }
        data.persisted.corpus = loaded.choice;
        data.selection = None;
        data.hovered = None;
        // Offer the corpus's own SQL and graph examples where the editors are empty.
        let templates = &engine.corpus().templates;
        if engine.structured().sql.is_some()
            && data.persisted.sql.trim().is_empty()
            && let Some(sql) = templates.values().find_map(|t| t.sql.clone())
        {
            data.persisted.sql = sql;
        }
        if engine.structured().graph.is_some()
            && data.persisted.pattern.trim().is_empty()
            && let Some(p) = templates.values().find_map(|t| t.graph.clone())
        {
            data.persisted.pattern = p;
        }
        data.engine = Some(engine);
        self.jobs.rank.clear();
        self.jobs.rank_slow.clear();
        self.jobs.explain.clear();
        self.jobs.sql.clear();
        self.jobs.graph.clear();
        self.views.corpus_changed();
        self.refresh_grades();
        self.start_rank();
        for role in Role::ALL {
            self.start_model(role, false);
        }
    }

    /// Load (or, when `download`, fetch) the model of a role; the corpus is then encoded with it.
    fn start_model(&mut self, role: Role, download: bool) {
        let Some(engine) = self.data.engine.clone() else { return };
        let manager = self.data.models.manager.clone().offline(self.data.persisted.offline);
        let waker = self.waker();
        let Some(job) = self.jobs.models.get_mut(&role) else { return };
        job.start(waker, move |p| engine.load_model(&manager, role, download, p));
    }

    /// Encode the corpus for a role whose model is loaded.
    fn start_encode(&mut self, role: Role) {
        let Some(engine) = self.data.engine.clone() else { return };
        let waker = self.waker();
        let Some(job) = self.jobs.encodings.get_mut(&role) else { return };
        job.start(waker, move |p| match role {
            Role::Dense => engine.build_dense(p),
            Role::Splade => engine.build_splade(p),
            Role::LateInteraction => engine.build_late(p),
            Role::Reranker => Ok(()),
        });
    }

    /// Everything known about the models, for the Models view.
    fn refresh_models(&mut self) {
        self.data.models.status = self.data.models.manager.status();
    }

    /// Rank the question with every column of the settings' plan, superseding a ranking under
    /// way. Columns that encode passages while answering come in a second phase, so the others
    /// show at once; until then they say they are still ranking.
    fn start_rank(&mut self) {
        self.jobs.rank_slow.clear();
        let Some(engine) = self.data.engine.clone() else { return };
        let p = &self.data.persisted;
        let question = p.question.trim().to_string();
        if question.is_empty() {
            self.jobs.rank.clear();
            return;
        }
        let settings = p.settings.clone();
        let plan = Plan::from_settings(&settings, Some(&p.sql), Some(&p.pattern));
        self.jobs.rank.start(self.waker(), move |progress| {
            engine.index(settings.analyzer, progress)?;
            let query = engine.query_context(&question, &settings);
            let pending = plan.slow_members(&engine);
            let run = plan.run_except(&engine, &query, &pending, STILL_RANKING, progress)?;
            let n = engine.neural();
            let map_query = match (&n.map, &n.dense, &n.dense_index) {
                (Some(map), Some(dense), Some(index)) => {
                    query.dense_vector(dense.encoder.as_ref()).ok().map(|v| map.place(index, &v, 10))
                }
                _ => None,
            };
            Ok(Ranked { plan, run, pending, map_query })
        });
    }

    /// The second phase: rank with the columns the first left pending.
    fn start_rank_slow(&mut self) {
        let (Some(engine), Some(ranked)) = (self.data.engine.clone(), self.jobs.rank.ready()) else { return };
        let (plan, query, pending) = (ranked.plan.clone(), ranked.run.query.clone(), ranked.pending.clone());
        self.jobs.rank_slow.start(self.waker(), move |p| plan.run_members(&engine, &query, &pending, p));
    }

    /// A ranking is complete: explain the selection again, and check a reopened report.
    fn after_ranking(&mut self) {
        if let Some(doc) = self.data.selected_doc() {
            self.start_explain(doc);
        }
        if self.data.report_check.is_some() {
            self.check_report();
        }
    }

    /// Explain one passage under every ranked column ("why" and "why not"), from the states that
    /// ranked it.
    fn start_explain(&mut self, doc: DocId) {
        let Some(ranked) = self.jobs.rank.latest() else { return };
        let run = ranked.run.clone();
        self.jobs.explain.start(self.waker(), move |p| Ok(Explained { doc, items: run.explain(doc, p)? }));
    }

    /// Run the SQL editor's statement (read-only, time-limited).
    fn start_sql(&mut self) {
        let Some(engine) = self.data.engine.clone() else { return };
        let sql = self.data.persisted.sql.clone();
        self.jobs.sql.start(self.waker(), move |_| {
            let Some(db) = &engine.structured().sql else {
                return Err(Error::Unavailable("this corpus has no tables: put a .csv file next to it".into()));
            };
            db.query(&sql, SqlLimits::default())
        });
    }

    /// Run the graph pattern.
    fn start_graph(&mut self) {
        let Some(engine) = self.data.engine.clone() else { return };
        let pattern = self.data.persisted.pattern.clone();
        self.jobs.graph.start(self.waker(), move |_| match &engine.structured().graph {
            None => Err(Error::Unavailable("this corpus has no knowledge graph (graph.txt)".into())),
            Some(g) => g.query(&pattern),
        });
    }

    /// Load the lesson corpora and the models that are here (never downloads).
    fn start_lesson_kit(&mut self) {
        if self.jobs.lesson_kit.is_running() || self.jobs.lesson_kit.ready().is_some() {
            return;
        }
        let manager = self.data.models.manager.clone().offline(true);
        self.jobs.lesson_kit.start(self.waker(), move |p| crate::lessons::LessonKit::load(&manager, p).map(Arc::new));
    }

    /// Build a lesson (once the kit is loaded).
    fn start_lesson(&mut self, id: String, params: crate::lessons::LessonParams) {
        let Some(kit) = self.jobs.lesson_kit.ready().cloned() else { return };
        self.jobs.lesson.start(self.waker(), move |_| {
            let lesson = crate::lessons::build(&id, &kit, &params).map_err(|e| e.report());
            Ok((id, params, lesson))
        });
    }

    /// Evaluate every available method over the corpus's judged questions.
    fn start_study(&mut self) {
        let Some(engine) = self.data.engine.clone() else { return };
        let qrels = self.all_qrels();
        let settings = self.data.persisted.settings.clone();
        let baseline_kind = self.data.baseline;
        self.jobs.study.start(self.waker(), move |p| {
            if qrels.judgements.is_empty() {
                return Err(Error::Unavailable(
                    "no judged questions: grade passages first, or open a dataset with qrels".into(),
                ));
            }
            let plan = Plan::of_kinds(&settings, &MethodKind::RANKED);
            let retrievers: Vec<_> = plan.retrievers(&engine, p).into_iter().flatten().flatten().collect();
            let baseline = retrievers.iter().position(|r| r.kind() == baseline_kind).unwrap_or(0);
            p.stage("evaluating", 0);
            let study = crate::compare::Study::run(&engine, &retrievers, &qrels, &settings, 100, baseline, p);
            study.map(Arc::new)
        });
    }
}
