//! The language model's columns, built in one place for the app, the reports and the command
//! line: search with the model's text (rewrite, HyDE, reasoning), the model's order of a first
//! stage (listwise, pointwise), the agent with RankLens's tools, GraphRAG's local search over the
//! model's graph. Each needs the generator (its replies kept in the workspace's store); a column
//! without one says so.

use std::sync::Arc;

use crate::config::Settings;
use crate::generate::Generator;
use crate::models::Role;
use crate::retrieve::GraphLocalRetriever;
use crate::retrieve::agent::{AgentRetriever, Toolbox};
use crate::retrieve::{
    GeneratedRetriever, GeneratedSearch, ListwiseRetriever, MethodKind, PointwiseRetriever, Retriever,
};
use crate::{Error, Result};

impl super::Workbench {
    /// A column of the language model (one of [`MethodKind::GENERATED`] or
    /// [`MethodKind::EXTRACTED`]), or why it cannot run here.
    pub(super) fn model_retriever(&self, kind: MethodKind, settings: &Settings) -> Result<Arc<dyn Retriever>> {
        let corpus = self.corpus().clone();
        let unavailable = |message: String| Err(Error::Unavailable(message));
        match kind {
            MethodKind::Rewrite
            | MethodKind::Hyde
            | MethodKind::HydeText
            | MethodKind::ReasonBm25
            | MethodKind::ReasonDense => {
                // The generator with its replies kept in the workspace's store.
                let Some(generator) = self.generator() else {
                    return Err(crate::retrieve::generated::no_generator(kind));
                };
                let (search, inner) = match kind {
                    MethodKind::Rewrite => (GeneratedSearch::Rewrite, self.sparse_arc(settings)?),
                    MethodKind::HydeText => (GeneratedSearch::HydeExpansion, self.sparse_arc(settings)?),
                    MethodKind::ReasonBm25 => {
                        (GeneratedSearch::Reasoning(MethodKind::Bm25), self.sparse_arc(settings)?)
                    }
                    MethodKind::ReasonDense => (
                        GeneratedSearch::Reasoning(MethodKind::Dense),
                        self.neural_retriever(MethodKind::Dense, settings)?,
                    ),
                    _ => (GeneratedSearch::HydeDense, self.neural_retriever(MethodKind::Dense, settings)?),
                };
                Ok(Arc::new(GeneratedRetriever::new(search, generator, inner)))
            }
            MethodKind::Listwise | MethodKind::Pointwise => {
                // The generator with its replies kept in the workspace's store.
                let Some(generator) = self.generator() else {
                    return Err(crate::retrieve::generated::no_generator(kind));
                };
                let knobs = settings.model_rerank;
                let first = self.retriever(knobs.first_stage, settings).map_err(|e| match e {
                    Error::Unavailable(m) => {
                        Error::Unavailable(format!("its first stage, {}, cannot run: {m}", knobs.first_stage.label()))
                    }
                    e => e,
                })?;
                Ok(if kind == MethodKind::Listwise {
                    Arc::new(ListwiseRetriever::new(first, generator, corpus, knobs))
                } else {
                    Arc::new(PointwiseRetriever::new(first, generator, corpus, knobs))
                })
            }
            MethodKind::GraphLocal => match self.model_graph() {
                Some(graph) => Ok(Arc::new(GraphLocalRetriever::new(graph, corpus))),
                None => unavailable(
                    "GraphRAG local search needs the language model's graph of this corpus: build it with \
                         `ranklens graphrag build --corpus C` (or Structured → Build the model's graph)"
                        .into(),
                ),
            },
            MethodKind::Agent => Ok(Arc::new(self.agent(settings, None)?)),
            other => Err(Error::invalid("method", format!("{other} is not a language model's method"))),
        }
    }

    /// The agent with the tools named in `only` (every tool that can run here when `None`): the
    /// app's column and `ranklens agent` both build it here.
    pub fn agent(&self, settings: &Settings, only: Option<&[String]>) -> Result<AgentRetriever> {
        // The generator with its replies kept in the workspace's store.
        let Some(generator) = self.generator() else {
            return Err(crate::retrieve::generated::no_generator(MethodKind::Agent));
        };
        let mut tools = self.agent_tools(settings)?;
        if let Some(names) = only {
            tools.keep(names);
        }
        Ok(AgentRetriever::new(generator, tools, settings.agent))
    }

    /// The agent's tools: BM25, and dense and SPLADE where they can run; the tables and the graph
    /// when the corpus has them.
    pub fn agent_tools(&self, settings: &Settings) -> Result<Toolbox> {
        let mut search: Vec<(String, Arc<dyn Retriever>)> = vec![("bm25".into(), self.sparse_arc(settings)?)];
        for kind in [MethodKind::Dense, MethodKind::Splade] {
            if let Ok(r) = self.neural_retriever(kind, settings) {
                search.push((kind.cli_name().into(), r));
            }
        }
        let s = self.structured();
        Ok(Toolbox::new(self.corpus().clone(), search, s.sql.clone(), s.graph.clone()))
    }

    /// The language model, when one is loaded or a server was given; with a workspace, its
    /// replies are kept in the workspace's store (`generate::store`), so a request asked before
    /// is answered from there.
    pub fn generator(&self) -> Option<Arc<dyn Generator>> {
        let g = self.neural().generator.map(|(g, _)| g)?;
        Some(match self.replies() {
            Some(store) => crate::generate::Stored::wrap(g, &store),
            None => g,
        })
    }

    /// The workspace's store of language-model replies (`None` without a workspace, or where its
    /// file cannot be opened: then every request is asked).
    pub fn replies(&self) -> Option<Arc<crate::generate::ReplyStore>> {
        self.replies
            .get_or_init(|| {
                let dir = self.workspace()?;
                crate::generate::ReplyStore::in_workspace(dir).ok().map(Arc::new)
            })
            .clone()
    }

    /// Use a chat server (or any generator) as the language model, in place of the embedded one.
    pub fn set_generator(&self, generator: Arc<dyn Generator>) -> Result<()> {
        self.with_neural(|n| {
            n.generator = Some((generator, None));
            n.missing.remove(&Role::Generator);
        })
    }
}
