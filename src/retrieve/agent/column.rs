//! The Agent column: the passages the agent read, in the order its answer used them (those it
//! cites first, in the order first cited, then the others in the order read), scored N + 1 −
//! position so the list reads top down; each passage's explanation names the steps that found it.

use std::sync::Arc;

use super::super::{Detail, Explanation, MethodKind, ModelText, Prepared, QueryContext, Ranking, Retriever};
use super::run::run_agent;
use super::tools::Toolbox;
use super::trace::{AgentLimits, AgentRun};
use crate::Result;
use crate::corpus::DocId;
use crate::generate::Generator;
use crate::progress::{NoProgress, Progress};

/// A language model that searches with RankLens's own tools, as a column.
#[derive(Clone)]
pub struct AgentRetriever {
    generator: Arc<dyn Generator>,
    tools: Toolbox,
    limits: AgentLimits,
}

impl AgentRetriever {
    /// The agent `generator` with `tools`, within `limits`.
    pub fn new(generator: Arc<dyn Generator>, tools: Toolbox, limits: AgentLimits) -> Self {
        Self { generator, tools, limits }
    }

    /// The names of the tools it may call (`bm25`, `dense`, `sql`…).
    pub fn tool_names(&self) -> Vec<String> {
        self.tools.names()
    }

    /// Run the agent once on `query`, each step passed to `on_step` as it is recorded.
    pub fn run(
        &self,
        query: &QueryContext,
        on_step: &mut dyn FnMut(&super::AgentStep),
        progress: &dyn Progress,
    ) -> Result<AgentRun> {
        run_agent(self.generator.as_ref(), &self.tools, query, self.limits, on_step, progress)
    }
}

impl Retriever for AgentRetriever {
    fn kind(&self) -> MethodKind {
        MethodKind::Agent
    }

    fn label(&self) -> String {
        format!(
            "Agent ({}): {} within {} rounds",
            self.generator.info().model,
            self.tools.names().join(", "),
            self.limits.rounds
        )
    }

    fn prepare(&self, query: &QueryContext) -> Result<Arc<dyn Prepared>> {
        self.prepare_with(query, &NoProgress)
    }

    fn prepare_with(&self, query: &QueryContext, progress: &dyn Progress) -> Result<Arc<dyn Prepared>> {
        // Each step is noted as it is recorded: the app shows the trace growing while it runs.
        let run = self.run(query, &mut |step| progress.note(&step.line()), progress)?;
        let corpus = self.tools.corpus();
        let order: Vec<DocId> = run.hits.iter().filter_map(|id| corpus.lookup(id)).collect();
        Ok(Arc::new(PreparedAgent { label: self.label(), query: query.clone(), run, order }))
    }
}

struct PreparedAgent {
    label: String,
    query: QueryContext,
    run: AgentRun,
    order: Vec<DocId>,
}

impl PreparedAgent {
    fn score(&self, position: usize) -> f64 {
        (self.order.len() + 1 - position) as f64
    }
}

impl Prepared for PreparedAgent {
    fn search(&self, k: usize) -> Result<Ranking> {
        let n = self.order.len();
        let hits =
            self.order.iter().enumerate().filter(|(_, d)| self.query.allows(**d)).map(|(i, d)| (*d, (n - i) as f64));
        let mut r = Ranking::top(self.label.clone(), MethodKind::Agent, hits, k);
        r.note = Some(self.run.summary());
        r.generated = Some(ModelText {
            task: crate::retrieve::TextTask::AgentAnswer,
            text: self.run.answer.text.clone(),
            model: self.run.model.clone(),
            caveat: self.run.caveat.clone(),
        });
        r.agent = Some(Box::new(self.run.clone()));
        Ok(r)
    }

    fn explain(&self, doc: DocId) -> Result<Explanation> {
        if !self.query.allows(doc) {
            return Ok(self.query.filtered_explanation(&self.label));
        }
        let position = self.order.iter().position(|d| *d == doc).map(|i| i + 1);
        let id =
            self.order.iter().find(|d| **d == doc).map(|_| ()).and_then(|_| {
                self.run.read.iter().find(|r| Some(&r.id) == self.run.hits.get(position.unwrap_or(1) - 1))
            });
        let cited_ids = self.run.cited_ids();
        let cited = id.and_then(|r| cited_ids.iter().position(|c| *c == r.id)).map(|i| i + 1);
        let steps: Vec<_> =
            id.map(|r| self.run.steps.iter().filter(|s| s.ids.contains(&r.id)).cloned().collect()).unwrap_or_default();
        let value = position.map_or(0.0, |p| self.score(p));
        let summary = match (position, cited, &id) {
            (None, _, _) => "The agent never read this passage: no tool it called returned it, so it scores 0.".into(),
            (Some(p), Some(c), Some(r)) => format!(
                "Read as [{}] (step {}: {}); the answer cites it {} — #{p} of the {} passages read.",
                r.n,
                r.step + 1,
                steps.first().and_then(|s| s.tool.clone()).unwrap_or_default(),
                ordinal(c),
                self.order.len()
            ),
            (Some(p), None, Some(r)) => format!(
                "Read as [{}] (step {}: {}) but not cited by the answer, so it comes after the {} cited passage{} — #{p} \
                 of {}.",
                r.n,
                r.step + 1,
                steps.first().and_then(|s| s.tool.clone()).unwrap_or_default(),
                cited_ids.len(),
                if cited_ids.len() == 1 { "" } else { "s" },
                self.order.len()
            ),
            (Some(p), _, None) => format!("#{p} of the passages read."),
        };
        let mut e = Explanation::new(
            self.label.clone(),
            value,
            "score = N + 1 − position, N passages read; cited passages first, in the order the answer cites them, \
             then the others in the order read",
            summary,
        );
        e.detail = Detail::Agent { position, n: id.map(|r| r.n), cited, steps, summary: self.run.summary() };
        if position.is_some() {
            e = e.without_split(
                "the score is the passage's place in the order the agent's answer used it, not a sum of parts",
            );
        }
        Ok(e)
    }
}

fn ordinal(n: usize) -> String {
    match n {
        1 => "first".into(),
        2 => "second".into(),
        3 => "third".into(),
        n => format!("{n}th"),
    }
}
