//! Columns that search with a language model's text: "Rewrite (model)" (BM25 over the model's
//! rewrite of the question, fused by RRF with BM25 over the question itself, since a rewrite can
//! change the meaning) and "HyDE (model)" (the model drafts a hypothetical answer and the dense model
//! searches with the draft — HyDE proper — or BM25 searches with the question and the draft: text
//! expansion). The model is asked once per question; every column and explanation shows its text,
//! marked as a model's guess, and each score is explained down to the inner method's terms or tokens.

use std::sync::Arc;

use super::fusion::{FusionMethod, fuse};
use super::{
    Detail, Explanation, FusionPart, MethodKind, ModelText, Prepared, QueryContext, Ranking, Retriever, TextTask,
};
use crate::corpus::DocId;
use crate::generate::{Generator, tasks};
use crate::progress::{NoProgress, Progress};
use crate::{Error, Result};

/// RRF's k for the rewrite's fusion.
pub const REWRITE_RRF_K: f64 = 60.0;
/// How deep each of the rewrite's two lists goes before fusion.
pub const REWRITE_DEPTH: usize = 1000;

/// What the model is asked for and how its text is searched.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum GeneratedSearch {
    /// BM25 over the rewrite, fused with BM25 over the question.
    Rewrite,
    /// The inner (dense) method over the draft.
    HydeDense,
    /// The inner (lexical) method over the question followed by the draft.
    HydeExpansion,
    /// The inner method (BM25 or dense) over the question followed by the model's account of
    /// what answering it needs (reasoning expansion).
    Reasoning(MethodKind),
}

/// A column searching with a language model's text.
#[derive(Clone)]
pub struct GeneratedRetriever {
    search: GeneratedSearch,
    generator: Arc<dyn Generator>,
    inner: Arc<dyn Retriever>,
}

impl GeneratedRetriever {
    /// `search` with `generator`'s text through `inner` (BM25 for a rewrite or an expansion, the
    /// dense method for HyDE proper).
    pub fn new(search: GeneratedSearch, generator: Arc<dyn Generator>, inner: Arc<dyn Retriever>) -> Self {
        Self { search, generator, inner }
    }

    fn task(&self) -> TextTask {
        match self.search {
            GeneratedSearch::Rewrite => TextTask::Rewrite,
            GeneratedSearch::HydeDense | GeneratedSearch::HydeExpansion => TextTask::Draft,
            GeneratedSearch::Reasoning(_) => TextTask::Reasoning,
        }
    }

    /// The model's text for the question, asked once per question and generator.
    pub fn text(&self, query: &QueryContext, progress: &dyn Progress) -> Result<Arc<String>> {
        let key = format!("{}\u{1f}{}", self.task(), self.generator.info().label());
        query.generated(&key, || match self.search {
            GeneratedSearch::Rewrite => tasks::write_rewrite(self.generator.as_ref(), query.text(), progress),
            GeneratedSearch::Reasoning(_) => tasks::write_reasoning(self.generator.as_ref(), query.text(), progress),
            _ => tasks::write_draft(self.generator.as_ref(), query.text(), progress),
        })
    }

    fn model_text(&self, text: &str) -> ModelText {
        let info = self.generator.info();
        ModelText { task: self.task(), text: text.to_string(), model: info.label(), caveat: info.caveat.clone() }
    }
}

impl Retriever for GeneratedRetriever {
    fn kind(&self) -> MethodKind {
        match self.search {
            GeneratedSearch::Rewrite => MethodKind::Rewrite,
            GeneratedSearch::HydeDense => MethodKind::Hyde,
            GeneratedSearch::HydeExpansion => MethodKind::HydeText,
            GeneratedSearch::Reasoning(MethodKind::Dense) => MethodKind::ReasonDense,
            GeneratedSearch::Reasoning(_) => MethodKind::ReasonBm25,
        }
    }

    fn label(&self) -> String {
        let model = &self.generator.info().model;
        match self.search {
            GeneratedSearch::Rewrite => format!(
                "Rewrite ({model}): {} over the question and its rewrite, RRF k={}",
                self.inner.kind().label(),
                super::fmt_param(REWRITE_RRF_K)
            ),
            GeneratedSearch::HydeDense => format!("HyDE ({model}): {} over the draft", self.inner.label()),
            GeneratedSearch::HydeExpansion => {
                format!("HyDE ({model}): {} over the question + the draft", self.inner.kind().label())
            }
            GeneratedSearch::Reasoning(_) => {
                format!("Reasoning ({model}): {} over the question + what answering it needs", self.inner.label())
            }
        }
    }

    fn prepare(&self, query: &QueryContext) -> Result<Arc<dyn Prepared>> {
        self.prepare_with(query, &NoProgress)
    }

    fn prepare_with(&self, query: &QueryContext, progress: &dyn Progress) -> Result<Arc<dyn Prepared>> {
        let text = self.text(query, progress)?;
        let label = self.label();
        let generated = self.model_text(&text);
        match self.search {
            GeneratedSearch::Rewrite => {
                let original = self.inner.prepare(query)?;
                let rewritten = self.inner.prepare(&query.with_text(text.as_str()))?;
                let lists = vec![original.search(REWRITE_DEPTH)?, rewritten.search(REWRITE_DEPTH)?];
                let fused = fuse(&lists, &[1.0, 1.0], FusionMethod::Rrf, REWRITE_RRF_K);
                Ok(Arc::new(PreparedRewrite {
                    label,
                    generated,
                    query: query.clone(),
                    inner: [original, rewritten],
                    lists,
                    fused,
                }))
            }
            GeneratedSearch::HydeDense | GeneratedSearch::HydeExpansion | GeneratedSearch::Reasoning(_) => {
                let searched = match self.search {
                    GeneratedSearch::HydeDense => text.to_string(),
                    _ => format!("{} {}", query.text().trim(), text),
                };
                let inner = self.inner.prepare_with(&query.with_text(searched.as_str()), progress)?;
                Ok(Arc::new(PreparedHyde { label, generated, searched, inner, kind: self.kind() }))
            }
        }
    }
}

struct PreparedRewrite {
    label: String,
    generated: ModelText,
    query: QueryContext,
    /// The inner method over the question, and over the rewrite.
    inner: [Arc<dyn Prepared>; 2],
    lists: Vec<Ranking>,
    fused: super::fusion::Fused,
}

impl Prepared for PreparedRewrite {
    fn search(&self, k: usize) -> Result<Ranking> {
        let mut r =
            Ranking::top(self.label.clone(), MethodKind::Rewrite, self.fused.iter().map(|(d, (s, _))| (*d, *s)), k);
        r.generated = Some(self.generated.clone());
        Ok(r)
    }

    fn explain(&self, doc: DocId) -> Result<Explanation> {
        if !self.query.allows(doc) {
            return Ok(self.query.filtered_explanation(&self.label));
        }
        let (value, parts) = self.fused.get(&doc).cloned().unwrap_or((0.0, vec![None; 2]));
        let names = ["over the question", "over the model's rewrite"];
        let parts: Vec<FusionPart> = self
            .lists
            .iter()
            .zip(parts)
            .zip(names)
            .map(|((l, p), name)| FusionPart {
                method: format!("{} {name}", l.kind.label()),
                rank: p.map(|x| x.0),
                raw_score: p.map(|x| x.1),
                contribution: p.map(|x| x.2).unwrap_or(0.0),
            })
            .collect();
        let placed: Vec<String> = parts.iter().filter_map(|p| p.rank.map(|r| format!("#{r} {}", p.method))).collect();
        let summary = format!(
            "The model ({}) rewrote the question as “{}” — a model's guess, which may change the meaning, so the \
             question is searched too. {}",
            self.generated.model,
            self.generated.text,
            if placed.is_empty() {
                format!("In neither list's top {REWRITE_DEPTH}, so the fusion gives it 0.")
            } else {
                format!("Ranked {}; RRF adds 1/(k + rank) of each.", placed.join(", "))
            }
        );
        let mut e = Explanation::new(
            self.label.clone(),
            value,
            format!(
                "score = 1/(k + rank_question(d)) + 1/(k + rank_rewrite(d)),  k = {}",
                super::fmt_param(REWRITE_RRF_K)
            ),
            summary,
        );
        e.detail = Detail::Fusion { parts };
        for p in &self.inner {
            e.children.push(p.explain(doc)?);
        }
        Ok(e)
    }
}

struct PreparedHyde {
    label: String,
    generated: ModelText,
    /// What was searched: the draft, or the question and the draft.
    searched: String,
    inner: Arc<dyn Prepared>,
    kind: MethodKind,
}

impl Prepared for PreparedHyde {
    fn search(&self, k: usize) -> Result<Ranking> {
        let mut r = self.inner.search(k)?;
        r.method = self.label.clone();
        r.kind = self.kind;
        r.generated = Some(self.generated.clone());
        Ok(r)
    }

    fn explain(&self, doc: DocId) -> Result<Explanation> {
        let mut e = self.inner.explain(doc)?;
        e.summary = match self.kind {
            MethodKind::ReasonBm25 | MethodKind::ReasonDense => format!(
                "Searched with the question followed by the model's account of what answering it needs ({}): a \
                 search aid, not evidence. Searched text: “{}”. {}",
                self.generated.model, self.searched, e.summary
            ),
            kind => {
                let what = if kind == MethodKind::HydeText {
                    "the question followed by the model's draft"
                } else {
                    "the model's draft"
                };
                format!(
                    "Searched with {what} ({}), a hypothetical answer: a search aid, not evidence. Searched text: “{}”. {}",
                    self.generated.model, self.searched, e.summary
                )
            }
        };
        e.method = self.label.clone();
        Ok(e)
    }
}

/// Refuse a column that needs a generator when none is loaded, saying how to get one.
pub fn no_generator(kind: MethodKind) -> Error {
    Error::Unavailable(format!(
        "{} needs a language model: run `ranklens models fetch --role generator` for the embedded one, or give a \
         chat server (--llm URL --llm-model NAME)",
        kind.label()
    ))
}
