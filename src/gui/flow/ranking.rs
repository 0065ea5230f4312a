//! The question and its ranking: every column of the settings' plan in a first phase that answers
//! at once, the columns that encode passages while answering in a second, one at a time; the
//! selection and its explanation under every column.

use super::shell::failed;
use crate::compare::{External, Plan};
use crate::corpus::DocId;
use crate::gui::app::RankLensApp;
use crate::gui::command::RankCommand;
use crate::gui::jobs::Polled;
use crate::gui::state::{Explained, Ranked, Selection, ViewId, next_revision};

/// What a column says while its method ranks in the second phase.
pub const STILL_RANKING: &str = "still ranking: this method reads every passage's vectors or encodes its candidates…";

impl RankLensApp {
    pub(super) fn apply_rank(&mut self, command: RankCommand) {
        let data = &mut self.data;
        match command {
            RankCommand::SetQuestion(q) => {
                data.persisted.question = q;
                self.refresh_grades();
            }
            RankCommand::SetSettings(settings) => {
                let settings = *settings;
                if settings != data.persisted.settings {
                    let re_encode = settings.neural_options() != data.persisted.settings.neural_options();
                    data.persisted.settings = settings;
                    if re_encode {
                        self.apply_neural_options();
                    }
                    self.start_rank();
                }
            }
            RankCommand::Ask => self.start_rank(),
            RankCommand::AskQuestion(q) => {
                data.persisted.question = q;
                data.persisted.view = ViewId::Compare;
                self.refresh_grades();
                self.start_rank();
            }
            RankCommand::Select { column, doc } => {
                data.selection = Some(Selection { column, doc });
                self.start_explain(doc);
            }
            RankCommand::PickColumn(id) => {
                if let Some(s) = &mut data.selection {
                    s.column = Some(id);
                }
            }
            RankCommand::Hover(doc) => data.hovered = doc,
        }
    }

    pub(super) fn poll_ranking(&mut self) {
        match self.jobs.rank.poll() {
            Polled::Ready => {
                let pending = self.jobs.rank.ready().is_some_and(|r| !r.pending.is_empty());
                if !self.columns_behind().is_empty() {
                    // A model loaded while this ranking ran: rank again with its column.
                    self.start_rank();
                } else if pending {
                    self.next_slow_column();
                } else {
                    self.after_ranking();
                }
            }
            Polled::Failed => {
                let m = failed(self.jobs.rank.kind(), self.jobs.rank.failure());
                self.say(m);
            }
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
                    ranked.revision = next_revision();
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
                let m = failed(self.jobs.rank_slow.kind(), self.jobs.rank_slow.failure());
                self.say(m);
            }
            Polled::Same => {}
        }
        // Explanations are drawn from their job, failures included.
        self.jobs.explain.poll();
    }

    /// Rank the question with every column of the settings' plan, superseding a ranking under
    /// way. Columns that encode passages while answering come in a second phase, so the others
    /// show at once; until then they say they are still ranking.
    pub(super) fn start_rank(&mut self) {
        self.jobs.rank_slow.clear();
        let Some(engine) = self.data.workbench.clone() else { return };
        let p = &self.data.persisted;
        let question = p.question.trim().to_string();
        if question.is_empty() {
            self.jobs.rank.clear();
            return;
        }
        // The question set's own statement and pattern for this question, where it has them, go
        // into the editors (and so into the columns); any other question runs the editors' text,
        // and its columns say it is not this question's.
        let own = engine.corpus().templates_for(&question);
        let p = &mut self.data.persisted;
        if let Some(sql) = own.sql {
            p.sql = sql;
        }
        if let Some(pattern) = own.graph {
            p.pattern = pattern;
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
            Ok(Ranked { plan, run, pending, map_query, vector_maps, revision: next_revision() })
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
        let (Some(engine), Some(ranked)) = (self.data.workbench.clone(), self.jobs.rank.ready()) else { return };
        let Some(&next) = ranked.pending.first() else { return };
        let (plan, query) = (ranked.plan.clone(), ranked.run.query.clone());
        self.jobs.rank_slow.start(self.waker(), move |p| plan.run_members(&engine, &query, &[next], p));
    }

    /// The columns of the ranking in that have no ranking but could now answer (their model
    /// loaded after the ranking had chosen its columns), and are not among those still to come.
    fn columns_behind(&self) -> Vec<usize> {
        let (Some(engine), Some(r)) = (&self.data.workbench, self.jobs.rank.ready()) else { return Vec::new() };
        r.run
            .comparison
            .runs
            .iter()
            .enumerate()
            .filter(|(i, c)| c.ranking().is_none() && !r.pending.contains(i) && engine.answers_provisionally(c.kind))
            .map(|(i, _)| i)
            .collect()
    }

    /// A model loaded: its column answers now. While a ranking's slow columns are being ranked,
    /// the column joins those still to come (starting over would throw away an encoding of
    /// candidates under way); otherwise, unless the first phase is still running (it catches up
    /// when it lands), the question is ranked again.
    pub(super) fn rank_with_new_model(&mut self) {
        if self.jobs.rank.is_running() {
            return;
        }
        if self.jobs.rank_slow.is_running() {
            let behind = self.columns_behind();
            if let Some(r) = self.jobs.rank.ready_mut() {
                r.pending.extend(behind);
                return;
            }
        }
        self.start_rank();
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
            Ok(Explained { doc, items: run.explain(doc, p)?, revision: next_revision() })
        });
    }
}
