//! What the app does, as jobs: open a corpus, build the index, load and fetch models, encode,
//! rank, explain, query the table and the graph. Each step runs off the UI thread and its result
//! is applied in `logic` by [`RankLensApp::apply`].

use std::sync::Arc;

use crate::compare::{Comparison, MethodRun};
use crate::corpus::{self, DocId, LoadOptions};
use crate::engine::Engine;
use crate::models::Role;
use crate::models::TextEncoder;
use crate::progress::Progress;
use crate::retrieve::{Explanation, MethodKind};
use crate::structured::{SqlLimits, SqlResult};

use super::app::{Explained, Message, RankLensApp, Ranked};
use super::jobs::{Output, Slot};
use super::state::CorpusChoice;

/// What a column says while its method ranks in the second phase.
const STILL_RANKING: &str = "still ranking: encoding the candidate passages for this question…";

/// One column of the second phase: the method, its run, its retriever for explanations.
type SlowRun = (MethodKind, Option<crate::compare::MethodRun>, Option<Arc<dyn crate::retrieve::Retriever>>);

/// The second phase's columns, for the `start_compare` numbered `generation`.
struct SlowRuns {
    generation: u64,
    runs: Vec<SlowRun>,
}

/// A loaded engine with the load report to show.
pub struct LoadedCorpus {
    /// The engine.
    pub engine: Engine,
    /// What the corpus came from.
    pub choice: CorpusChoice,
}

fn boxed<T: Send + 'static>(v: T) -> Output {
    Box::new(v)
}

impl RankLensApp {
    /// Load a corpus in the background; the current one stays until the new one is ready, and a
    /// corpus that cannot be read leaves everything as it was and says why.
    pub fn open_corpus(&mut self, choice: CorpusChoice) {
        let workspace = self.workspace.clone();
        self.jobs.spawn(Slot::Corpus, move |progress| {
            progress.stage("reading files", 0);
            let path = choice.path();
            let corpus =
                corpus::load(&path, LoadOptions { split: choice.split(), format: None }).map_err(|e| e.to_string())?;
            if corpus.is_empty() {
                return Err(format!("{}: no documents could be loaded ({})", path.display(), corpus.report));
            }
            let mut engine = Engine::new(corpus);
            if let Some(ws) = workspace {
                engine = engine.with_workspace(ws);
            }
            if path.is_dir() {
                engine.load_structured(&path).map_err(|e| e.to_string())?;
            }
            Ok(boxed(LoadedCorpus { engine, choice }))
        });
    }

    /// Build the lexical index for the current analyzer.
    pub fn start_index(&mut self) {
        let Some(engine) = self.engine.clone() else { return };
        let analyzer = self.state.settings.analyzer;
        if engine.has_index(analyzer) {
            return;
        }
        self.jobs.spawn(Slot::SparseIndex, move |p| {
            engine.index(analyzer, p).map_err(|e| e.to_string())?;
            Ok(boxed(()))
        });
    }

    /// Load (or, when `download`, fetch) the model of a role, then encode the corpus with it.
    pub fn start_model(&mut self, role: Role, download: bool) {
        let Some(engine) = self.engine.clone() else { return };
        let manager = self.manager.clone().offline(self.state.offline);
        self.jobs.spawn(Slot::Model(role), move |p| {
            engine.load_model(&manager, role, download, p).map_err(|e| e.to_string())?;
            Ok(boxed(role))
        });
    }

    /// Encode the corpus for a role whose model is loaded.
    pub fn start_encode(&mut self, role: Role) {
        let Some(engine) = self.engine.clone() else { return };
        self.jobs.spawn(Slot::Encode(role), move |p| {
            match role {
                Role::Dense => engine.build_dense(p),
                Role::Splade => engine.build_splade(p),
                Role::LateInteraction => engine.build_late(p),
                Role::Reranker => Ok(()),
            }
            .map_err(|e| e.to_string())?;
            Ok(boxed(role))
        });
    }

    /// Rank the question with every selected method (in the background: on a large corpus late
    /// interaction or reranking can take seconds).
    pub fn start_compare(&mut self) {
        let Some(engine) = self.engine.clone() else { return };
        let question = self.state.question.trim().to_string();
        if question.is_empty() {
            self.ranked = None;
            self.pending_compare = false;
            return;
        }
        if !engine.has_index(self.state.settings.analyzer) {
            self.start_index();
            self.pending_compare = true;
            return;
        }
        let settings = self.state.settings.clone();
        let (sql, pattern) = (self.state.sql.clone(), self.state.pattern.clone());
        self.pending_compare = false;
        self.jobs.cancel(&Slot::CompareSlow);
        self.compare_generation += 1;
        let generation = self.compare_generation;
        self.jobs.spawn(Slot::Compare, move |p| {
            p.stage("ranking", 0);
            let q = engine.query_context(&question, &settings);
            let kinds: Vec<MethodKind> = settings
                .methods
                .iter()
                .copied()
                .filter(|k| !matches!(k, MethodKind::Sql | MethodKind::Graph))
                .collect();
            // Methods that encode passages while answering come in a second phase, so the others
            // show at once; until then their columns say they are still ranking.
            let pending: Vec<MethodKind> = kinds.iter().copied().filter(|k| engine.encodes_at_query_time(*k)).collect();
            let entries: Vec<crate::compare::RetrieverEntry> = kinds
                .iter()
                .map(|k| {
                    let r = if pending.contains(k) {
                        Err(STILL_RANKING.to_string())
                    } else {
                        engine.retriever(*k, &settings)
                    };
                    (*k, r)
                })
                .collect();
            let mut comparison = Comparison::run_all(&q, settings.k, &entries);
            let (want_sql, want_graph) =
                (settings.methods.contains(&MethodKind::Sql), settings.methods.contains(&MethodKind::Graph));
            if want_sql || want_graph {
                let nonempty = |s: &str| (!s.trim().is_empty()).then(|| s.trim().to_string());
                comparison.add_structured(&engine, nonempty(&sql).as_deref(), nonempty(&pattern).as_deref());
                comparison.runs.retain(|r| match r.kind {
                    MethodKind::Sql => want_sql,
                    MethodKind::Graph => want_graph,
                    _ => true,
                });
            }
            let retrievers = entries.into_iter().filter_map(|(k, r)| r.ok().map(|r| (k, r))).collect();
            let n = engine.neural();
            let map_query = match (&n.map, &n.dense, &n.dense_index) {
                (Some(map), Some(dense), Some(index)) => dense
                    .encoder
                    .encode(&[question.as_str()], crate::models::InputKind::Query)
                    .ok()
                    .and_then(|mut v| v.pop())
                    .map(|v| map.place(index, &v, 10)),
                _ => None,
            };
            Ok(boxed(Ranked { comparison: Arc::new(comparison), retrievers, query: q, map_query, pending, generation }))
        });
    }

    /// The second phase of `start_compare`: rank with the methods it left pending.
    fn start_compare_slow(&mut self) {
        let (Some(engine), Some(ranked)) = (self.engine.clone(), self.ranked.clone()) else { return };
        let settings = self.state.settings.clone();
        self.jobs.spawn(Slot::CompareSlow, move |p| {
            p.stage("encoding the candidates", ranked.pending.len() as u64);
            let mut runs = Vec::new();
            for &kind in &ranked.pending {
                crate::progress::check_cancel(p).map_err(|e| e.to_string())?;
                let entry = (kind, engine.retriever(kind, &settings));
                let run =
                    Comparison::run_all(&ranked.query, ranked.comparison.k, std::slice::from_ref(&entry)).runs.pop();
                runs.push((kind, run, entry.1.ok()));
                p.advance(1);
            }
            Ok(boxed(SlowRuns { generation: ranked.generation, runs }))
        });
    }

    /// Put the second phase's columns into the ranking they complete.
    fn merge_slow(&mut self, slow: SlowRuns) {
        let Some(ranked) = self.ranked.clone() else { return };
        if ranked.generation != slow.generation {
            return;
        }
        let mut comparison = (*ranked.comparison).clone();
        let mut retrievers = ranked.retrievers.clone();
        for (kind, run, retriever) in slow.runs {
            if let (Some(run), Some(column)) = (run, comparison.runs.iter_mut().find(|r| r.kind == kind)) {
                *column = run;
            }
            retrievers.extend(retriever.map(|r| (kind, r)));
        }
        self.ranked = Some(Arc::new(Ranked {
            comparison: Arc::new(comparison),
            retrievers,
            query: ranked.query.clone(),
            map_query: ranked.map_query.clone(),
            pending: Vec::new(),
            generation: ranked.generation,
        }));
        self.after_ranking();
    }

    /// A ranking is complete: explain the selection again, and check a reopened report.
    fn after_ranking(&mut self) {
        if let Some(doc) = self.selected_doc() {
            self.start_explain(doc);
        }
        if self.judging.report_check.is_some() && !self.pending_compare {
            self.check_report();
        }
    }

    /// Explain one passage under every ranked method ("why" and "why not").
    pub fn start_explain(&mut self, doc: DocId) {
        let Some(ranked) = self.ranked.clone() else { return };
        self.jobs.spawn(Slot::Explain, move |p| {
            p.stage("explaining", ranked.retrievers.len() as u64);
            let mut out = Vec::new();
            for (kind, r) in &ranked.retrievers {
                crate::progress::check_cancel(p).map_err(|e| e.to_string())?;
                let rank = ranked
                    .comparison
                    .runs
                    .iter()
                    .find(|run| run.kind == *kind)
                    .and_then(MethodRun::ranking)
                    .and_then(|x| x.rank_of(doc));
                let e: Result<Explanation, String> = r.explain(&ranked.query, doc).map_err(|e| e.to_string());
                out.push((r.label(), *kind, e, rank));
                p.advance(1);
            }
            Ok(boxed(Explained { doc, items: out }))
        });
    }

    /// Run the SQL editor's statement (read-only, time-limited).
    pub fn run_sql(&mut self) {
        let Some(engine) = self.engine.clone() else { return };
        let sql = self.state.sql.clone();
        self.jobs.spawn(Slot::Sql, move |_| {
            let Some(db) = &engine.structured().sql else {
                return Err("this corpus has no tables: put a .csv file next to it".into());
            };
            let r: Result<SqlResult, String> = db.query(&sql, SqlLimits::default()).map_err(|e| e.to_string());
            Ok(boxed(r))
        });
    }

    /// Run the graph pattern (fast: on the UI thread).
    pub fn run_graph(&mut self) {
        let Some(engine) = &self.engine else { return };
        self.graph_result = Some(match &engine.structured().graph {
            None => Err("this corpus has no knowledge graph (graph.txt)".into()),
            Some(g) => g.query(&self.state.pattern).map_err(|e| e.to_string()),
        });
    }

    /// Re-rank soon (after a knob or the question changed).
    pub fn mark_dirty(&mut self) {
        self.pending_compare = true;
    }

    /// Apply a finished job.
    pub fn apply(&mut self, slot: Slot, result: Result<Output, String>) {
        let output = match result {
            Ok(o) => o,
            Err(e) => {
                let text = format!("{}: {e}", slot.label());
                match slot {
                    Slot::Model(role) => {
                        self.model_errors.insert(role, e);
                    }
                    Slot::Explain => self.explained = None,
                    Slot::Other(ref name) if name == "Lessons" => {
                        self.extra.lessons.loading = false;
                        self.extra.lessons.kit_error = Some(e);
                    }
                    _ => self.messages.push(Message::error(text)),
                }
                return;
            }
        };
        match slot {
            Slot::Corpus => {
                if let Ok(loaded) = output.downcast::<LoadedCorpus>() {
                    self.install_engine(*loaded);
                }
            }
            Slot::SparseIndex => {
                if self.pending_compare || self.ranked.is_none() {
                    self.start_compare();
                }
            }
            Slot::Model(role) => {
                self.model_errors.remove(&role);
                self.refresh_models();
                if role != Role::Reranker {
                    self.start_encode(role);
                } else {
                    self.mark_dirty();
                }
            }
            Slot::Encode(_) => {
                self.refresh_models();
                self.mark_dirty();
            }
            Slot::Compare => {
                if let Ok(r) = output.downcast::<Ranked>() {
                    let pending = !r.pending.is_empty();
                    self.ranked = Some(Arc::new(*r));
                    if pending {
                        if let Some(doc) = self.selected_doc() {
                            self.start_explain(doc);
                        }
                        self.start_compare_slow();
                    } else {
                        self.after_ranking();
                    }
                }
            }
            Slot::CompareSlow => {
                if let Ok(s) = output.downcast::<SlowRuns>() {
                    self.merge_slow(*s);
                }
            }
            Slot::Explain => {
                if let Ok(e) = output.downcast::<Explained>() {
                    self.explained = Some(*e);
                }
            }
            Slot::Sql => {
                if let Ok(r) = output.downcast::<Result<SqlResult, String>>() {
                    self.sql_result = Some(*r);
                }
            }
            Slot::Evaluate | Slot::Other(_) => {
                self.apply_other(slot, output);
            }
        }
    }

    fn install_engine(&mut self, loaded: LoadedCorpus) {
        let engine = Arc::new(loaded.engine);
        for w in engine.corpus().report.warnings.iter().chain(engine.structured().warnings.iter()) {
            self.messages.push(Message::warning(w.to_string()));
        }
        self.state.corpus = loaded.choice;
        self.engine = Some(engine);
        self.ranked = None;
        self.explained = None;
        self.selection = None;
        self.sql_result = None;
        self.graph_result = None;
        self.on_corpus_changed();
        self.start_index();
        self.pending_compare = true;
        for role in Role::ALL {
            self.start_model(role, false);
        }
    }

    /// Everything known about the models, for the Models view.
    pub fn refresh_models(&mut self) {
        self.model_status = self.manager.status();
    }
}
