//! What the app does: every command applied in one place, the background jobs it starts (open a
//! corpus, load and fetch models, encode, rank, explain, query the table and the graph), and what
//! happens when each job finishes.

use std::sync::Arc;

use super::app::RankLensApp;
use super::command::Command;
use super::jobs::Polled;
use super::state::{CorpusChoice, Explained, LoadedCorpus, Message, Ranked};
use crate::Error;
use crate::compare::{Baseline, External, Plan};
use crate::corpus::{self, DocId, LoadOptions};
use crate::engine::Engine;
use crate::models::Role;
use crate::progress::Progress;
use crate::retrieve::MethodKind;
use crate::structured::SqlLimits;

/// What a column says while its method ranks in the second phase.
pub const STILL_RANKING: &str = "still ranking: this method reads every passage's vectors or encodes its candidates…";

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
                    let re_encode = settings.neural_options() != data.persisted.settings.neural_options();
                    data.persisted.settings = settings;
                    if re_encode {
                        self.apply_neural_options();
                    }
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
            Command::Select { column, doc } => {
                data.selection = Some(super::state::Selection { column, doc });
                self.start_explain(doc);
            }
            Command::PickColumn(label) => {
                if let Some(s) = &mut data.selection {
                    s.column = Some(label);
                }
            }
            Command::OpenRuns(files) => self.start_runs(files),
            Command::AddEngine(live) => match External::live(live.clone()) {
                Ok(system) => {
                    data.persisted.engines.retain(|e| e.name != live.name);
                    data.persisted.engines.push(live);
                    self.add_systems(vec![(None, Ok(system))]);
                }
                Err(e) => data.messages.push(Message::error(format!("engine not added: {}", e.report()))),
            },
            Command::RemoveRun(name) => {
                data.systems.retain(|r| r.name() != name);
                data.persisted.runs.retain(|(n, _)| *n != name);
                data.persisted.engines.retain(|e| e.name != name);
                self.start_rank();
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
            Command::FetchModel(role) => {
                if role == Role::Generator {
                    self.data.persisted.chat_server = None;
                }
                self.start_model(role, true)
            }
            Command::UseChatServer(config) => {
                self.data.persisted.chat_server = config;
                self.start_generator(true);
            }
            Command::Answer(question, source, passages) => self.start_answer(question, source, passages),
            Command::Judge(request) => self.start_judge(request),
            Command::SetOffline(offline) => data.persisted.offline = offline,
            Command::SetPrecision(precision) => {
                if precision != data.persisted.precision {
                    data.persisted.precision = precision;
                    data.models.manager = data.models.manager.clone().with_precision(precision);
                    let loaded: Vec<Role> = data
                        .engine
                        .as_ref()
                        .map(|e| Role::ALL.into_iter().filter(|&r| e.has_model(r)).collect())
                        .unwrap_or_default();
                    for role in loaded {
                        self.start_model(role, false);
                    }
                }
            }
            Command::Cancel(kind) => self.jobs.cancel(kind),
            Command::SetGrade { doc, grade } => self.set_grade(doc, grade),
            Command::SetBaseline(system) => data.baseline = system,
            Command::SetCorrection(c) => data.correction = c,
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
            Command::SetClassMode(on) => {
                data.class_mode = on;
                if on {
                    data.persisted.view = super::state::ViewId::Lessons;
                }
            }
            Command::MakeAssignment(request) => self.start_assignment(request),
            Command::CompareAnalyzers(text) => {
                let Some(engine) = self.data.engine.clone() else { return };
                let (settings, question) = (self.data.persisted.settings.clone(), self.data.persisted.question.clone());
                self.jobs.analyzers.start(self.waker(), move |p| {
                    crate::compare::analyzers::compare_analyzers(&engine, &settings, &text, &question, 5, p)
                });
            }
            Command::WhatMoved { doc, before, after } => {
                let Some(engine) = self.data.engine.clone() else { return };
                let question = self.data.persisted.question.clone();
                self.jobs.moved.start(self.waker(), move |_| {
                    crate::compare::moved::what_moved(&engine, &question, doc, &before, &after)
                });
            }
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
                    self.frames.event(&format!(
                        "corpus {} ({} passages)",
                        loaded.engine.corpus().name,
                        loaded.engine.corpus().len()
                    ));
                    self.install_engine(loaded);
                }
            }
            Polled::Failed => {
                self.data.messages.push(failed(self.jobs.corpus.kind(), self.jobs.corpus.failure()));
            }
            Polled::Same => {}
        }
        for role in Role::EVERY {
            let Some(job) = self.jobs.models.get_mut(&role) else { continue };
            match job.poll() {
                Polled::Ready => {
                    self.frames.event(&format!("model {role} loaded"));
                    self.data.models.errors.remove(&role);
                    self.refresh_models();
                    if role == Role::Reranker || role == Role::Generator {
                        self.start_rank();
                    } else {
                        self.start_encode(role);
                        // Its column answers now, provisionally over BM25's top passages until
                        // the encoding is done (a ranking under way catches up when it lands).
                        if !self.jobs.rank.is_running() {
                            self.start_rank();
                        }
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
                    self.frames.event(&format!("encodings {role} done"));
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
                if self.columns_behind() {
                    // A model loaded while this ranking ran: rank again with its column.
                    self.start_rank();
                } else if pending {
                    self.next_slow_column();
                } else {
                    self.after_ranking();
                }
            }
            Polled::Failed => self.data.messages.push(failed(self.jobs.rank.kind(), self.jobs.rank.failure())),
            Polled::Same => {}
        }
        match self.jobs.rank_slow.poll() {
            Polled::Ready => {
                // Slow columns land one at a time (a provisional dense column need not wait for
                // SPLADE's); the next starts when one is in.
                let columns = self.jobs.rank_slow.take_ready().unwrap_or_default();
                let mut more = false;
                if let Some(ranked) = self.jobs.rank.ready_mut() {
                    let filled: Vec<usize> = columns.iter().map(|c| c.index).collect();
                    ranked.run.fill(columns);
                    ranked.revision = super::state::next_revision();
                    ranked.pending.retain(|i| !filled.contains(i));
                    more = !ranked.pending.is_empty();
                }
                if more {
                    self.next_slow_column();
                } else {
                    self.after_ranking();
                }
            }
            Polled::Failed => {
                self.data.messages.push(failed(self.jobs.rank_slow.kind(), self.jobs.rank_slow.failure()))
            }
            Polled::Same => {}
        }
        if self.jobs.runs.poll() == Polled::Ready
            && let Some(loaded) = self.jobs.runs.take_ready()
        {
            self.add_systems(loaded.into_iter().map(|(p, r)| (Some(p), r)).collect());
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
                // Say why: the first problems found, each naming its file and line.
                let why: Vec<String> = corpus.report.warnings.iter().take(3).map(ToString::to_string).collect();
                let more = corpus.report.warnings.len().saturating_sub(why.len());
                let mut message = format!("no documents could be loaded ({})", corpus.report);
                if !why.is_empty() {
                    message.push_str(&format!(": {}", why.join("; ")));
                }
                if more > 0 {
                    message.push_str(&format!("; and {more} more"));
                }
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
        // Another corpus than the last one: its own questions, not the last corpus's. The bar
        // starts empty with examples drawn from the corpus (see `Chrome::question_bar_ui`).
        if let Some(q) = self.first_question.take() {
            data.persisted.question = q;
        } else if data.persisted.corpus != loaded.choice {
            data.persisted.question.clear();
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
        if let Err(e) = engine.set_neural_options(data.persisted.settings.neural_options()) {
            data.messages.push(Message::error(e.report()));
        }
        data.engine = Some(engine);
        self.jobs.rank.clear();
        self.jobs.rank_slow.clear();
        self.jobs.explain.clear();
        self.jobs.sql.clear();
        self.jobs.graph.clear();
        self.views.corpus_changed();
        self.refresh_grades();
        self.data.model_judgements = Arc::new(std::sync::Mutex::new(self.stored_model_judgements()));
        self.jobs.judge.clear();
        self.reopen_systems();
        self.start_rank();
        for role in Role::ALL {
            self.start_model(role, false);
        }
        self.start_generator(false);
    }

    /// The language model: the chat server the user chose, else the embedded model when it is
    /// here (fetched only when asked).
    fn start_generator(&mut self, rank: bool) {
        let Some(engine) = self.data.engine.clone() else { return };
        match self.data.persisted.chat_server.clone() {
            Some(config) => {
                match crate::generate::ChatServer::new(config).and_then(|s| engine.set_generator(Arc::new(s))) {
                    Ok(()) => {
                        self.data.models.errors.remove(&Role::Generator);
                        if rank {
                            self.start_rank();
                        }
                    }
                    Err(e) => {
                        self.data.models.errors.insert(Role::Generator, e.report());
                    }
                }
            }
            None => self.start_model(Role::Generator, false),
        }
    }

    /// Send the RAG prompt of `passages` to the language model; the answer streams into
    /// `live_answer` and is read against the passages when it is done.
    fn start_answer(&mut self, question: String, source: String, passages: Vec<(String, String)>) {
        let Some(generator) = self.data.engine.as_ref().and_then(|e| e.generator()) else {
            self.data.messages.push(Message::error(
                "No language model: load one in Models → Generator (the embedded model, or a chat server).",
            ));
            return;
        };
        let live = self.data.live_answer.clone();
        if let Ok(mut l) = live.lock() {
            l.clear();
        }
        let waker = self.waker();
        let wake = self.waker();
        self.jobs.answer.start(waker, move |p| {
            let mut sink = |piece: &str| {
                if let Ok(mut l) = live.lock() {
                    l.push_str(piece);
                }
                wake();
            };
            let (_, generated, answer) =
                crate::generate::tasks::answer(generator.as_ref(), &question, &passages, &mut sink, p)?;
            Ok(super::state::RagAnswer { question, source, passages, generated, answer })
        });
    }

    /// Where the language model's judgements of the open corpus are kept: beside the grades, in a
    /// file of their own named by the corpus's fingerprint.
    fn model_judgements_path(&self) -> Option<std::path::PathBuf> {
        let ws = self.data.workspace.as_ref()?;
        let key = self.data.engine.as_ref()?.corpus().fingerprint();
        Some(ws.join("model-judgements").join(format!("{key}.json")))
    }

    /// The judgements stored for the open corpus, if any (a damaged file is reported, not used).
    fn stored_model_judgements(&mut self) -> Option<crate::compare::judge::ModelJudgements> {
        let path = self.model_judgements_path()?;
        let text = std::fs::read_to_string(&path).ok()?;
        match serde_json::from_str(&text) {
            Ok(j) => Some(j),
            Err(e) => {
                self.data.messages.push(Message::warning(format!(
                    "{}: the language model's judgements could not be read ({e}); judging again replaces them",
                    path.display()
                )));
                None
            }
        }
    }

    /// Judge passages with the language model: one column's top k, or the pool of the question
    /// set. The judgements fill `model_judgements` one by one (the view shows them as they come)
    /// and are stored in the workspace when the run ends or is stopped; no grade is touched.
    fn start_judge(&mut self, request: super::command::JudgeRequest) {
        use super::command::JudgeScope;
        use crate::compare::judge::{self, ModelJudgements, PoolItem};
        let Some(engine) = self.data.engine.clone() else { return };
        let Some(generator) = engine.generator() else {
            self.data.messages.push(Message::error(
                "No language model: load one in Models → Generator (the embedded model, or a chat server).",
            ));
            return;
        };
        if let Err(e) = request.prompt.validate() {
            self.data.messages.push(Message::error(e.report()));
            return;
        }
        self.data.persisted.judge_prompt = request.prompt.clone();
        let people = self.all_qrels();
        let settings = self.data.persisted.settings.clone();
        let shared = Arc::new(std::sync::Mutex::new(None::<ModelJudgements>));
        self.data.model_judgements = shared.clone();
        let path = self.model_judgements_path();
        let waker = self.waker();
        let wake = self.waker();
        self.jobs.judge.start(waker, move |p| {
            let (pool, scope) = match request.scope {
                JudgeScope::Ranking { column, qid, question, docs } => {
                    let n = docs.len();
                    let pool = docs
                        .into_iter()
                        .map(|doc| PoolItem { qid: qid.clone(), question: question.clone(), doc })
                        .collect();
                    (pool, format!("{column}: the top {n} for “{question}”"))
                }
                JudgeScope::Pool { k, questions } => {
                    let qs = judge::judged_questions(engine.corpus(), &people, questions);
                    if qs.is_empty() {
                        return Err(Error::Unavailable(
                            "no judged questions to pool: grade passages first, or open a dataset with qrels".into(),
                        ));
                    }
                    // The ranked columns switched on, but not those that ask the model itself.
                    let kinds: Vec<MethodKind> = MethodKind::RANKED
                        .into_iter()
                        .filter(|k| settings.methods.contains(k) && !MethodKind::GENERATED.contains(k))
                        .collect();
                    let mut retrievers = Vec::new();
                    let mut names = Vec::new();
                    for kind in kinds {
                        // A column whose model is not loaded stays out of the pool.
                        if let Ok(r) = engine.retriever(kind, &settings) {
                            retrievers.push(r);
                            names.push(kind.label().to_string());
                        }
                    }
                    if retrievers.is_empty() {
                        return Err(Error::Unavailable("no ranked column is switched on to pool from".into()));
                    }
                    let refs: Vec<&dyn crate::retrieve::Retriever> = retrievers.iter().map(|r| r.as_ref()).collect();
                    let pool = judge::pool(&qs, &refs, &|t| engine.query_context(t, &settings), k, p)?;
                    (pool, format!("{} top {k}, pooled over {} judged question(s)", names.join(" + "), qs.len()))
                }
            };
            let start = ModelJudgements {
                name: generator.info().model.clone(),
                model: generator.info().label(),
                prompt: request.prompt.clone(),
                scope: scope.clone(),
                pooled: pool.len(),
                judgements: Vec::new(),
            };
            if let Ok(mut s) = shared.lock() {
                *s = Some(start);
            }
            let mut each = |j: &judge::ModelJudgement| -> crate::Result<()> {
                if let Ok(mut s) = shared.lock()
                    && let Some(s) = s.as_mut()
                {
                    s.judgements.push(j.clone());
                }
                wake();
                Ok(())
            };
            let done = judge::judge(
                engine.corpus(),
                generator.as_ref(),
                &request.prompt,
                &pool,
                &people,
                &scope,
                p,
                &mut each,
            )?;
            // Stored whether it finished or was stopped: what was judged is kept.
            if let Some(path) = path {
                let text = serde_json::to_string_pretty(&done)
                    .map_err(|e| Error::invalid("model judgements", e.to_string()))?;
                if let Some(dir) = path.parent() {
                    std::fs::create_dir_all(dir).map_err(|e| Error::io(dir, e))?;
                }
                crate::fsutil::write_atomic(&path, text)?;
            }
            Ok(done.judgements.len())
        });
    }

    /// Load (or, when `download`, fetch) the model of a role; the corpus is then encoded with it.
    fn start_model(&mut self, role: Role, download: bool) {
        let Some(engine) = self.data.engine.clone() else { return };
        let manager = self.data.models.manager.clone().offline(self.data.persisted.offline);
        let waker = self.waker();
        let Some(job) = self.jobs.models.get_mut(&role) else { return };
        job.start(waker, move |p| engine.load_model(&manager, role, download, p));
    }

    /// Hand the settings' windows and token bits to the engine and encode again with every loaded
    /// model (what is stored already is read back, not encoded twice).
    fn apply_neural_options(&mut self) {
        let Some(engine) = self.data.engine.clone() else { return };
        if let Err(e) = engine.set_neural_options(self.data.persisted.settings.neural_options()) {
            self.data.messages.push(Message::error(e.report()));
            return;
        }
        let n = engine.neural();
        let loaded = [
            (Role::Dense, n.dense.is_some()),
            (Role::Splade, n.splade.is_some()),
            (Role::LateInteraction, n.late.is_some()),
        ];
        for (role, is_loaded) in loaded {
            if is_loaded {
                self.start_encode(role);
            }
        }
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
            Role::Reranker | Role::Generator => Ok(()),
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
        let plan = Plan::from_settings(&settings, Some(&p.sql), Some(&p.pattern)).with_externals(&self.data.systems);
        let vector_sets: Vec<_> = self
            .data
            .systems
            .iter()
            .filter_map(|s| match s {
                External::Vectors(v) => Some(v.clone()),
                _ => None,
            })
            .collect();
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
            let mut vector_maps = Vec::new();
            for set in &vector_sets {
                let (Some(map), Ok(queries)) = (&set.map, engine.vector_queries(set)) else { continue };
                if let Ok(v) = query.dense_vector(&queries) {
                    vector_maps.push((set.name.clone(), map.place(&set.index(), &v, 10)));
                }
            }
            Ok(Ranked { plan, run, pending, map_query, vector_maps, revision: super::state::next_revision() })
        });
    }

    /// Some columns are in, others pending: say which, explain the selection with what is in, and
    /// rank the next pending column.
    fn next_slow_column(&mut self) {
        self.log_columns();
        if let Some(doc) = self.data.selected_doc() {
            self.start_explain(doc);
        }
        self.start_rank_slow();
    }

    /// The second phase: rank the next column the first left pending.
    fn start_rank_slow(&mut self) {
        let (Some(engine), Some(ranked)) = (self.data.engine.clone(), self.jobs.rank.ready()) else { return };
        let Some(&next) = ranked.pending.first() else { return };
        let (plan, query) = (ranked.plan.clone(), ranked.run.query.clone());
        self.jobs.rank_slow.start(self.waker(), move |p| plan.run_members(&engine, &query, &[next], p));
    }

    /// Does the ranking just in have a column without a ranking that could now answer (its model
    /// loaded after the ranking had chosen its columns)?
    fn columns_behind(&self) -> bool {
        let (Some(engine), Some(r)) = (&self.data.engine, self.jobs.rank.ready()) else { return false };
        r.run
            .comparison
            .runs
            .iter()
            .enumerate()
            .any(|(i, c)| c.ranking().is_none() && !r.pending.contains(&i) && engine.answers_provisionally(c.kind))
    }

    /// Say in the event log which columns are ranked, provisional or still waiting.
    fn log_columns(&mut self) {
        let Some(r) = self.jobs.rank.ready() else { return };
        let cols: Vec<String> = r
            .run
            .comparison
            .runs
            .iter()
            .map(|c| {
                let state = match c.ranking() {
                    Some(r) if r.provisional => "provisional",
                    Some(_) => "ranked",
                    None => "waiting",
                };
                format!("{}={state}", c.kind.label().replace(' ', "_"))
            })
            .collect();
        let line = format!("ranked: {}", cols.join(" "));
        self.frames.event(&line);
    }

    /// A ranking is complete: explain the selection again, and check a reopened report.
    fn after_ranking(&mut self) {
        self.log_columns();
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
        self.jobs.explain.start(self.waker(), move |p| {
            Ok(Explained { doc, items: run.explain(doc, p)?, revision: super::state::next_revision() })
        });
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
        let open =
            self.data.engine.clone().map(|engine| crate::lessons::Open { engine, question: params.question.clone() });
        self.jobs.lesson.start(self.waker(), move |_| {
            let lesson = crate::lessons::build(&id, &kit, &params, open.as_ref()).map_err(|e| e.report());
            Ok((id, params, lesson))
        });
    }

    /// Write an assignment in the background: the variants drawn from the open corpus (or the
    /// sample), the handouts and the key.
    fn start_assignment(&mut self, r: super::command::AssignmentRequest) {
        let open = if r.open_corpus { self.data.engine.clone() } else { None };
        let kit = self.jobs.lesson_kit.ready().cloned();
        self.jobs.assignment.start(self.waker(), move |p| {
            let roster = crate::lessons::assignment::read_roster(&r.roster)?;
            let engine = match (open, kit) {
                (Some(e), _) => e,
                (None, Some(k)) => k.sample.clone(),
                (None, None) => return Err(Error::Unavailable("the lessons are still loading".into())),
            };
            let made = crate::lessons::assignment::make(&r.lesson, &roster, r.seed, &engine, p)?;
            let written = made.write(&r.out)?;
            Ok(format!(
                "assignment written: {} students, {} files in {} (the key is key.json)",
                roster.len(),
                written.len(),
                r.out.display()
            ))
        });
    }

    /// Evaluate the methods shown (those available) and the other systems over the corpus's
    /// judged questions.
    fn start_study(&mut self) {
        let Some(engine) = self.data.engine.clone() else { return };
        let qrels = self.all_qrels();
        let settings = self.data.persisted.settings.clone();
        let (externals, baseline, correction) =
            (self.data.systems.clone(), self.data.baseline.clone(), self.data.correction);
        self.jobs.study.start(self.waker(), move |p| {
            if qrels.judgements.is_empty() {
                return Err(Error::Unavailable(
                    "no judged questions: grade passages first, or open a dataset with qrels".into(),
                ));
            }
            // The ranked methods switched on in the question bar (a late-interaction column that
            // re-ranks by encoding passages costs minutes per hundred questions on a large corpus).
            let kinds: Vec<MethodKind> =
                MethodKind::RANKED.into_iter().filter(|k| settings.methods.contains(k)).collect();
            let plan = Plan::of_kinds(&settings, &kinds).with_externals(&externals);
            let queries = engine.corpus().queries.clone();
            // The baseline is a family's label or another system's name; one the study no longer
            // holds falls back to BM25.
            let baseline = Baseline::Preferred(baseline);
            let study = plan.study(Some(&engine), &qrels, &queries, 100, &baseline, correction, p)?;
            Ok(Arc::new(study))
        });
    }
}

impl RankLensApp {
    /// Read other systems' files in the background, each as what it holds (a run, saved engine
    /// responses, vectors matched to the open corpus).
    pub(super) fn start_runs(&mut self, files: Vec<(Option<String>, std::path::PathBuf)>) {
        if files.is_empty() {
            return;
        }
        // Before the first corpus is in, remember them: they open with it (vectors are matched to it).
        if self.data.engine.is_none() {
            for (name, path) in files {
                let name = name.unwrap_or_else(|| crate::eval::RunFile::default_name(&path));
                self.data.persisted.runs.retain(|(_, p)| *p != path);
                self.data.persisted.runs.push((name, path));
            }
            return;
        }
        let corpus = self.data.engine.as_ref().map(|e| e.corpus().clone());
        self.jobs.runs.start(self.waker(), move |p| {
            p.stage("reading other systems' files", files.len() as u64);
            let mut out = Vec::new();
            for (name, path) in files {
                crate::progress::check_cancel(p)?;
                let system = External::open(&path, name.as_deref(), corpus.as_deref());
                out.push((path, system));
                p.advance(1);
            }
            Ok(out)
        });
    }

    /// Show systems as columns: one of the same file (or engine name) replaces the old one; two
    /// of one name are told apart by a number. Problems of each are shown, a file that could not
    /// be read says why, and every system already shown stays.
    fn add_systems(&mut self, loaded: Vec<(Option<std::path::PathBuf>, crate::Result<External>)>) {
        let data = &mut self.data;
        for (path, result) in loaded {
            let system = match result {
                Ok(system) => system,
                Err(e) => {
                    data.messages.push(Message::error(format!("not opened: {}", e.report())));
                    continue;
                }
            };
            match &path {
                Some(path) => data.systems.retain(|r| r.file() != Some(path.as_path())),
                None => data.systems.retain(|r| r.file().is_some() || r.name() != system.name()),
            }
            let mut all = std::mem::take(&mut data.systems);
            all.push(system);
            crate::compare::distinct_names(&mut all);
            data.systems = all;
            let Some(system) = data.systems.last() else { continue };
            let warnings = system.warnings();
            for w in warnings.iter().take(5) {
                data.messages.push(Message::warning(w.clone()));
            }
            if warnings.len() > 5 {
                data.messages.push(Message::warning(format!("{}: … and {} more", system.name(), warnings.len() - 5)));
            }
            if let Some(path) = path {
                data.persisted.runs.retain(|(_, p)| *p != path);
                data.persisted.runs.push((system.name().to_string(), path));
            }
        }
        self.start_rank();
    }

    /// The systems to (re)open for a newly installed corpus: every remembered file not shown yet,
    /// and every vector file again (its vectors are matched to the corpus).
    pub(super) fn reopen_systems(&mut self) {
        let data = &mut self.data;
        data.systems.retain(|s| !matches!(s, External::Vectors(_)));
        let shown: Vec<std::path::PathBuf> = data.systems.iter().filter_map(|s| s.file().map(Into::into)).collect();
        let files: Vec<(Option<String>, std::path::PathBuf)> = data
            .persisted
            .runs
            .iter()
            .filter(|(_, p)| !shown.contains(p))
            .map(|(n, p)| (Some(n.clone()), p.clone()))
            .collect();
        let live: Vec<_> = data
            .persisted
            .engines
            .iter()
            .filter(|e| !data.systems.iter().any(|s| s.name() == e.name))
            .cloned()
            .collect();
        for e in live {
            match External::live(e) {
                Ok(s) => data.systems.push(s),
                Err(err) => data.messages.push(Message::error(format!("engine not added: {}", err.report()))),
            }
        }
        self.start_runs(files);
    }
}
