//! The comparison plan: which columns a comparison has, each with its settings, and running them
//! on one question. The CLI (`compare`, `report`, `eval`) and the app build every comparison
//! through it, so a new kind of column is added here once and appears everywhere.
//!
//! Running a plan prepares each ranked column once ([`Prepared`]) and keeps the prepared state
//! beside the column, so every later explanation is read from the state that produced the ranking.

use std::sync::Arc;

use super::External;
use super::study::{Missing, Study, System};
use super::{ColumnId, Comparison, MethodRun, Outcome};
use crate::Error;
use crate::config::Settings;
use crate::corpus::{DocId, Query};
use crate::eval::{Correction, Qrels, RunFile};
use crate::progress::{Progress, check_cancel};
use crate::retrieve::{Explanation, MethodKind, Prepared, QueryContext, Retriever};
use crate::structured::SqlLimits;
use crate::workbench::{SparseSpec, Workbench};

/// One column of a comparison.
#[derive(Debug, Clone)]
pub enum Member {
    /// A lexical method with its variant and parameters.
    Lexical(SparseSpec),
    /// A neural method or a combination (SPLADE, dense, late interaction, fusion, rerank), built
    /// with the plan's settings and the engine's models.
    Neural(MethodKind),
    /// A read-only SQL statement over the corpus's tables (`None`: the column asks for one).
    Sql(Option<String>),
    /// A knowledge-graph pattern (`None`: the column asks for one).
    Graph(Option<String>),
    /// A system outside RankLens: a run file, a search engine, vectors from files.
    External(External),
}

impl PartialEq for Member {
    fn eq(&self, other: &Self) -> bool {
        match (self, other) {
            (Member::Lexical(a), Member::Lexical(b)) => a == b,
            (Member::Neural(a), Member::Neural(b)) => a == b,
            (Member::Sql(a), Member::Sql(b)) | (Member::Graph(a), Member::Graph(b)) => a == b,
            (Member::External(a), Member::External(b)) => a == b,
            _ => false,
        }
    }
}

impl Member {
    /// The member for a method family under these settings (SQL and graph get no statement).
    pub fn of_kind(kind: MethodKind, settings: &Settings) -> Member {
        match kind {
            MethodKind::Sql => Member::Sql(None),
            MethodKind::Graph => Member::Graph(None),
            _ => SparseSpec::from_settings(kind, settings).map_or(Member::Neural(kind), Member::Lexical),
        }
    }

    /// The method family.
    pub fn kind(&self) -> MethodKind {
        match self {
            Member::Lexical(spec) => spec.kind(),
            Member::Neural(kind) => *kind,
            Member::Sql(_) => MethodKind::Sql,
            Member::Graph(_) => MethodKind::Graph,
            Member::External(x) => x.kind(),
        }
    }

    /// The column's id before counting repeats: its family's command-line name, or an outside
    /// system's name.
    fn base_id(&self) -> String {
        match self {
            Member::External(x) => ColumnId::of(x.kind(), x.name()).0,
            m => ColumnId::of(m.kind(), "").0,
        }
    }

    /// Does this column rank passages (rather than return rows or bindings)?
    pub fn ranks_passages(&self) -> bool {
        matches!(self, Member::Lexical(_) | Member::Neural(_) | Member::External(_))
    }
}

/// Which columns, with which settings.
#[derive(Debug, Clone, PartialEq)]
pub struct Plan {
    /// Settings every member shares (analyzer, k, filter, fusion, models).
    pub settings: Settings,
    /// The columns, in order.
    pub members: Vec<Member>,
}

/// A text that says nothing counts as no statement.
fn statement(s: Option<&str>) -> Option<String> {
    s.map(str::trim).filter(|s| !s.is_empty()).map(str::to_string)
}

impl Plan {
    /// One column per family the settings select, in the settings' order (the app, the
    /// one-question report). The SQL and graph columns run `sql` and `pattern`.
    pub fn from_settings(settings: &Settings, sql: Option<&str>, pattern: Option<&str>) -> Plan {
        let members = settings
            .methods
            .iter()
            .map(|&kind| match kind {
                MethodKind::Sql => Member::Sql(statement(sql)),
                MethodKind::Graph => Member::Graph(statement(pattern)),
                kind => Member::of_kind(kind, settings),
            })
            .collect();
        Plan { settings: settings.clone(), members }
    }

    /// Every lexical variant (the selected BM25 variant with the settings' parameters, the others
    /// with their libraries' defaults), then every neural method, then the table and the graph
    /// where the corpus has them (`ranklens compare`).
    pub fn every_variant(settings: &Settings, sql: Option<&str>, pattern: Option<&str>) -> Plan {
        let mut members: Vec<Member> =
            SparseSpec::all_variants(settings.bm25_variant, settings.bm25).into_iter().map(Member::Lexical).collect();
        members.extend(MethodKind::NEURAL.map(Member::Neural));
        members.extend([Member::Sql(statement(sql)), Member::Graph(statement(pattern))]);
        Plan { settings: settings.clone(), members }
    }

    /// These families, one column each (`eval --method`, the question-set report).
    pub fn of_kinds(settings: &Settings, kinds: &[MethodKind]) -> Plan {
        Plan { settings: settings.clone(), members: kinds.iter().map(|&k| Member::of_kind(k, settings)).collect() }
    }

    /// Each column's id, in order: its family's name (`bm25`, `dense`), an outside system's kind and
    /// name (`run:colleague`), and `#2`, `#3`… after a name already given (several lexical
    /// variants).
    pub fn column_ids(&self) -> Vec<ColumnId> {
        let mut seen: std::collections::BTreeMap<String, usize> = std::collections::BTreeMap::new();
        self.members
            .iter()
            .map(|m| {
                let base = m.base_id();
                let n = seen.entry(base.clone()).or_insert(0);
                *n += 1;
                ColumnId(if *n == 1 { base } else { format!("{base}#{n}") })
            })
            .collect()
    }

    /// The plan with these systems (runs, engines, vectors) as more columns, after the others.
    pub fn with_externals(mut self, systems: &[External]) -> Plan {
        self.members.extend(systems.iter().cloned().map(Member::External));
        self
    }

    /// The plan with these runs as more columns, after the others.
    pub fn with_runs(self, runs: &[Arc<RunFile>]) -> Plan {
        let systems: Vec<External> = runs.iter().cloned().map(External::Run).collect();
        self.with_externals(&systems)
    }

    /// The plan without the columns that do not rank passages (for evaluations).
    pub fn ranked_only(mut self) -> Plan {
        self.members.retain(Member::ranks_passages);
        self
    }

    /// The plan without its SQL and graph columns where the corpus has neither tables nor a
    /// graph (with one of them, both stay: the other column says what the corpus lacks).
    pub fn with_structured_sources(mut self, workbench: &Workbench) -> Plan {
        let s = workbench.structured();
        if s.sql.is_none() && s.graph.is_none() {
            self.members.retain(Member::ranks_passages);
        }
        self
    }

    /// Each column's retriever, or why it cannot run here (SQL and graph columns have none).
    pub fn retrievers(
        &self,
        workbench: &Workbench,
        progress: &dyn Progress,
    ) -> Vec<Option<crate::Result<Arc<dyn Retriever>>>> {
        self.members.iter().map(|m| self.retriever(workbench, m, progress)).collect()
    }

    /// One column's retriever, or why it cannot run here (`None` for SQL and graph columns): the
    /// one place a member becomes a method.
    pub fn retriever(
        &self,
        workbench: &Workbench,
        member: &Member,
        progress: &dyn Progress,
    ) -> Option<crate::Result<Arc<dyn Retriever>>> {
        Some(match member {
            Member::Lexical(spec) => workbench.sparse(*spec, self.settings.analyzer, progress),
            Member::Neural(kind) => workbench.neural_retriever(*kind, &self.settings),
            Member::External(x) => x.retriever(workbench, &self.settings, progress),
            Member::Sql(_) | Member::Graph(_) => return None,
        })
    }

    /// Every column that ranks passages, over a question set with its judgements, `depth` results
    /// per question: the one path from a plan to a [`Study`] for the CLI, the reports and the
    /// Evaluate view. Another system's saved rankings are read as they are (so no corpus is
    /// needed when the plan holds only those); a column that cannot run here stays in the study as
    /// a row saying why and how to fix it.
    #[allow(clippy::too_many_arguments)]
    pub fn study(
        &self,
        workbench: Option<&Workbench>,
        qrels: &Qrels,
        questions: &[Query],
        depth: usize,
        baseline: &Baseline,
        correction: Correction,
        progress: &dyn Progress,
    ) -> crate::Result<Study> {
        let mut systems = Vec::new();
        let mut missing = Vec::new();
        for member in self.members.iter().filter(|m| m.ranks_passages()) {
            check_cancel(progress)?;
            let saved = match member {
                Member::External(x) => x.saved_system(),
                _ => None,
            };
            if let Some(system) = saved {
                systems.push(system);
                continue;
            }
            let kind = member.kind();
            let Some(workbench) = workbench else {
                missing.push(Missing {
                    label: member_label(member),
                    kind,
                    message: "it ranks a corpus's passages: give the dataset (--dataset DIR)".into(),
                });
                continue;
            };
            match self.retriever(workbench, member, progress) {
                Some(Ok(r)) => systems.push(System::run(workbench, r.as_ref(), &self.settings, depth, progress)?),
                Some(Err(Error::Cancelled)) => return Err(Error::Cancelled),
                Some(Err(e)) => {
                    let message = match e {
                        Error::Unavailable(m) => m,
                        e => e.report(),
                    };
                    missing.push(Missing { label: member_label(member), kind, message });
                }
                None => {}
            }
        }
        let names: Vec<(String, MethodKind)> = systems.iter().map(|s| (s.label.clone(), s.kind)).collect();
        let bm25 = || systems.iter().position(|s| s.kind == MethodKind::Bm25).unwrap_or(0);
        let index = match baseline {
            Baseline::Bm25 => bm25(),
            Baseline::Named(name) => {
                find_system(&names, name).ok_or_else(|| Error::invalid("baseline", no_such_system(name, &names)))?
            }
            Baseline::Preferred(name) => find_system(&names, name).unwrap_or_else(bm25),
        };
        let mut study = Study::of_systems(systems, qrels, questions, index, correction);
        study.missing = missing;
        Ok(study)
    }

    /// The columns whose methods encode passages while answering (late interaction without a
    /// token index, the cross-encoder): on a large corpus they take seconds, so the app shows the
    /// other columns first.
    pub fn slow_members(&self, workbench: &Workbench) -> Vec<usize> {
        (0..self.members.len())
            .filter(|&i| matches!(self.members[i], Member::Neural(kind) if workbench.encodes_at_query_time(kind)))
            .collect()
    }

    /// Run every column on the question.
    pub fn run(&self, workbench: &Workbench, query: &QueryContext, progress: &dyn Progress) -> crate::Result<PlanRun> {
        self.run_phase(workbench, query, &[], "", Provisional::Allowed, progress)
    }

    /// Run every column but those in `skip`, which say `waiting` until [`Plan::run_members`] fills
    /// them in: the app's first phase, which answers at once — a column whose passages are not
    /// encoded yet says so here rather than encode BM25's candidates (that is the second phase's
    /// work). A column that cannot run or fails says why in its cell; only cancelling stops the
    /// whole run.
    pub fn run_except(
        &self,
        workbench: &Workbench,
        query: &QueryContext,
        skip: &[usize],
        waiting: &str,
        progress: &dyn Progress,
    ) -> crate::Result<PlanRun> {
        self.run_phase(workbench, query, skip, waiting, Provisional::Not, progress)
    }

    fn run_phase(
        &self,
        workbench: &Workbench,
        query: &QueryContext,
        skip: &[usize],
        waiting: &str,
        provisional: Provisional,
        progress: &dyn Progress,
    ) -> crate::Result<PlanRun> {
        let which: Vec<usize> = (0..self.members.len()).filter(|i| !skip.contains(i)).collect();
        let mut run = PlanRun {
            comparison: Comparison { question: query.text().to_string(), k: self.settings.k, runs: Vec::new() },
            prepared: vec![None; self.members.len()],
            query: query.clone(),
        };
        run.comparison.runs = self
            .members
            .iter()
            .zip(self.column_ids())
            .map(|(m, id)| MethodRun {
                id,
                label: m.kind().label().to_string(),
                kind: m.kind(),
                outcome: Outcome::Unavailable { message: waiting.to_string() },
            })
            .collect();
        run.fill(self.members_run(workbench, query, &which, provisional, progress)?);
        Ok(run)
    }

    /// Run only the columns in `which` (indexes into `members`); a neural column whose passages
    /// are not encoded yet answers provisionally.
    pub fn run_members(
        &self,
        workbench: &Workbench,
        query: &QueryContext,
        which: &[usize],
        progress: &dyn Progress,
    ) -> crate::Result<Vec<ColumnResult>> {
        self.members_run(workbench, query, which, Provisional::Allowed, progress)
    }

    fn members_run(
        &self,
        workbench: &Workbench,
        query: &QueryContext,
        which: &[usize],
        provisional: Provisional,
        progress: &dyn Progress,
    ) -> crate::Result<Vec<ColumnResult>> {
        progress.stage("ranking", which.len() as u64);
        let mut out = Vec::with_capacity(which.len());
        for &i in which {
            check_cancel(progress)?;
            let Some(member) = self.members.get(i) else { continue };
            out.push(self.run_member(workbench, query, i, member, provisional, progress));
            progress.advance(1);
        }
        Ok(out)
    }

    fn run_member(
        &self,
        workbench: &Workbench,
        query: &QueryContext,
        index: usize,
        member: &Member,
        provisional: Provisional,
        progress: &dyn Progress,
    ) -> ColumnResult {
        let kind = member.kind();
        let id = self.column_ids().get(index).cloned().unwrap_or_default();
        let column = |label: String, outcome| MethodRun { id: id.clone(), label, kind, outcome };
        let structured = workbench.structured();
        let (run, prepared) = match member {
            Member::Sql(sql) => {
                let label = structured_label("SQL", sql.as_deref(), query.text(), workbench);
                (column(label, sql_outcome(workbench, sql.as_deref())), None)
            }
            Member::Graph(pattern) => {
                let label = structured_label("Graph", pattern.as_deref(), query.text(), workbench);
                let outcome = match (&structured.graph, pattern) {
                    (None, _) => unavailable("this corpus has no knowledge graph (graph.txt)"),
                    (Some(_), None) => unavailable("no graph pattern for this question: write one"),
                    (Some(g), Some(p)) => g.query(p).map_or_else(failed, Outcome::Bindings),
                };
                (column(label, outcome), None)
            }
            Member::Lexical(_) | Member::Neural(_) | Member::External(_) => {
                // One question, and its passages not encoded yet: a provisional column over BM25's
                // top passages, encoded now (a question set waits for the whole encoding instead).
                let retriever = match (member, self.retriever(workbench, member, progress)) {
                    (Member::Neural(kind), Some(Err(Error::Unavailable(_))))
                        if provisional == Provisional::Allowed && workbench.answers_provisionally(*kind) =>
                    {
                        Some(workbench.provisional_retriever(*kind, &self.settings))
                    }
                    (_, r) => r,
                };
                match retriever {
                    None => (column(kind.label().into(), unavailable("this column ranks nothing")), None),
                    Some(Err(e)) => (column(kind.label().into(), outcome_of_error(e)), None),
                    Some(Ok(r)) => {
                        match r.prepare_with(query, progress).and_then(|p| p.search(self.settings.k).map(|x| (p, x))) {
                            Ok((p, ranking)) => (column(r.label(), Outcome::Ranked(ranking)), Some(p)),
                            Err(e) => (column(r.label(), outcome_of_error(e)), None),
                        }
                    }
                }
            }
        };
        ColumnResult { index, run, prepared }
    }
}

/// May a neural column whose passages are not encoded yet answer provisionally (encoding BM25's
/// candidates for the question)?
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Provisional {
    Allowed,
    Not,
}

/// Which system of a study the others are tested against.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub enum Baseline {
    /// BM25 if it is evaluated, else the first system.
    #[default]
    Bm25,
    /// The system this names (a family's label, `bm25`, or another system's name); a name no
    /// system has is an error.
    Named(String),
    /// The system this names if there is one, else as [`Baseline::Bm25`] (the app's choice, which
    /// may name a column no longer shown).
    Preferred(String),
}

/// A member's name before it runs: an outside system's name, else its family's.
pub(super) fn member_label(member: &Member) -> String {
    match member {
        Member::External(x) => x.name().to_string(),
        m => m.kind().label().to_string(),
    }
}

/// A system (label, family) by its full label, a method's name (`bm25`, `dense`, `late`) or a
/// family's label (`BM25`), or another system's name, case aside.
pub fn find_system(systems: &[(String, MethodKind)], name: &str) -> Option<usize> {
    let family = MethodKind::BUILT_IN
        .into_iter()
        .find(|k| k.label().eq_ignore_ascii_case(name) || k.cli_name() == name.to_ascii_lowercase());
    let by_family = |k: MethodKind| systems.iter().position(|(_, x)| *x == k && !x.is_external());
    systems
        .iter()
        .position(|(l, _)| l == name)
        .or_else(|| family.and_then(by_family))
        .or_else(|| systems.iter().position(|(l, _)| l.eq_ignore_ascii_case(name)))
}

/// Why no system has that name, listing the names there are.
pub fn no_such_system(name: &str, systems: &[(String, MethodKind)]) -> String {
    let labels: Vec<&str> = systems.iter().map(|(l, _)| l.as_str()).collect();
    format!("{name}: no such method or run among {}", labels.join(", "))
}

fn unavailable(message: &str) -> Outcome {
    Outcome::Unavailable { message: message.to_string() }
}

fn failed(e: Error) -> Outcome {
    Outcome::Failed { message: e.report() }
}

/// A missing model or index is "unavailable" (the column says how to get it); anything else failed.
fn outcome_of_error(e: Error) -> Outcome {
    match e {
        Error::Unavailable(message) => Outcome::Unavailable { message },
        e => failed(e),
    }
}

/// A structured column's label: its family, and when the statement it runs is another shipped
/// question's (the editor still holding it), which question's — never passed off as this one's.
fn structured_label(family: &str, ran: Option<&str>, question: &str, workbench: &Workbench) -> String {
    let corpus = workbench.corpus();
    let Some(ran) = ran.map(str::trim) else { return family.to_string() };
    let of = |q: &crate::corpus::Query| -> Option<String> {
        let t = corpus.templates.get(&q.id)?;
        let text = if family == "SQL" { t.sql.as_deref() } else { t.graph.as_deref() };
        (text.map(str::trim) == Some(ran)).then(|| q.id.clone())
    };
    let own = corpus.templates_for(question);
    let own = if family == "SQL" { own.sql } else { own.graph };
    match corpus.queries.iter().find_map(of) {
        Some(q) if own.as_deref().map(str::trim) != Some(ran) => {
            format!("{family} (question {q}'s, not this one's)")
        }
        _ => family.to_string(),
    }
}

fn sql_outcome(workbench: &Workbench, sql: Option<&str>) -> Outcome {
    match (&workbench.structured().sql, sql) {
        (None, _) => unavailable("this corpus has no tables (add a .csv file next to it)"),
        (Some(_), None) => unavailable("no SQL for this question: write a SELECT"),
        (Some(db), Some(q)) => db.query(q, SqlLimits::default()).map_or_else(failed, Outcome::Rows),
    }
}

/// One column's result: where it goes, what it shows, and the prepared question behind a ranking.
#[derive(Clone)]
pub struct ColumnResult {
    /// Index of the member in the plan.
    pub index: usize,
    /// The column.
    pub run: MethodRun,
    /// The question as the column's method prepared it (ranked columns only).
    pub prepared: Option<Arc<dyn Prepared>>,
}

/// A plan run on a question: the comparison, and beside each ranked column the prepared state
/// that every explanation of that column is read from.
#[derive(Clone)]
pub struct PlanRun {
    /// What every column returned.
    pub comparison: Comparison,
    /// Per column (same order), the prepared question, for ranked columns.
    pub prepared: Vec<Option<Arc<dyn Prepared>>>,
    /// The question as asked (with its filter and encodings).
    pub query: QueryContext,
}

/// One column's explanation of a passage.
#[derive(Debug, Clone)]
pub struct ExplainedItem {
    /// The column.
    pub id: ColumnId,
    /// Its label.
    pub label: String,
    /// Its family.
    pub kind: MethodKind,
    /// Why the passage has its score there, or why it cannot be said.
    pub explanation: Result<Explanation, String>,
    /// The passage's rank in that column (none outside its top k).
    pub rank: Option<usize>,
}

impl PlanRun {
    /// Put columns run later (see [`Plan::run_except`]) in their places.
    pub fn fill(&mut self, results: Vec<ColumnResult>) {
        for c in results {
            if let (Some(run), Some(slot)) = (self.comparison.runs.get_mut(c.index), self.prepared.get_mut(c.index)) {
                *run = c.run;
                *slot = c.prepared;
            }
        }
    }

    /// The prepared state of the first ranked column of a family.
    pub fn prepared_of(&self, kind: MethodKind) -> Option<&Arc<dyn Prepared>> {
        self.comparison.runs.iter().zip(&self.prepared).find(|(r, _)| r.kind == kind).and_then(|(_, p)| p.as_ref())
    }

    /// Every ranked column's explanation of one passage, with its rank there ("why" and "why
    /// not"), stopping early when `progress` is cancelled.
    pub fn explain(&self, doc: DocId, progress: &dyn Progress) -> crate::Result<Vec<ExplainedItem>> {
        let ranked: Vec<_> =
            self.comparison.runs.iter().zip(&self.prepared).filter_map(|(r, p)| p.as_ref().map(|p| (r, p))).collect();
        progress.stage("explaining", ranked.len() as u64);
        let mut out = Vec::with_capacity(ranked.len());
        for (run, prepared) in ranked {
            check_cancel(progress)?;
            let rank = run.ranking().and_then(|r| r.rank_of(doc));
            out.push(ExplainedItem {
                id: run.id.clone(),
                label: run.label.clone(),
                kind: run.kind,
                explanation: prepared.explain(doc).map_err(|e| e.report()),
                rank,
            });
            progress.advance(1);
        }
        Ok(out)
    }

    /// Explain one passage in the column with this label (the reports' "why").
    pub fn explain_in(&self, label: &str, doc: DocId) -> Option<crate::Result<Explanation>> {
        let i = self.comparison.runs.iter().position(|r| r.label == label)?;
        self.prepared.get(i)?.as_ref().map(|p| p.explain(doc))
    }
}
