//! Pointwise reranking by a language model: each of a first stage's top passages judged on its
//! own with the judge's prompt, and ranked by the probability the model gives "yes" as its first
//! answer token — read from the embedded model's logits, or a server's `logprobs`; a server that
//! returns no probabilities answers in words, read as 1 (yes) or 0 (no).

use std::sync::Arc;

use super::{Detail, Explanation, MethodKind, ModelRerank, Prepared, QueryContext, Ranking, Retriever};
use crate::corpus::{Corpus, DocId};
use crate::generate::Generator;
use crate::generate::tasks::{JudgePrompt, Judged, ReadFrom, judge_passage};
use crate::progress::{CancelOnly, NoProgress, Progress, check_cancel};
use crate::{Error, Result};

/// Reorders a first stage's top passages by P(yes).
#[derive(Clone)]
pub struct PointwiseRetriever {
    first: Arc<dyn Retriever>,
    generator: Arc<dyn Generator>,
    corpus: Arc<Corpus>,
    depth: usize,
    prompt: JudgePrompt,
}

impl PointwiseRetriever {
    /// Judge `first`'s top `knobs.pointwise_depth` with `generator` and the default judge's prompt.
    pub fn new(
        first: Arc<dyn Retriever>,
        generator: Arc<dyn Generator>,
        corpus: Arc<Corpus>,
        knobs: ModelRerank,
    ) -> Self {
        Self { first, generator, corpus, depth: knobs.pointwise_depth, prompt: JudgePrompt::default() }
    }
}

impl Retriever for PointwiseRetriever {
    fn kind(&self) -> MethodKind {
        MethodKind::Pointwise
    }

    fn label(&self) -> String {
        format!(
            "Pointwise P(yes) ({} over {} top {})",
            self.generator.info().model,
            self.first.kind().label(),
            self.depth
        )
    }

    fn prepare(&self, query: &QueryContext) -> Result<Arc<dyn Prepared>> {
        self.prepare_with(query, &NoProgress)
    }

    fn prepare_with(&self, query: &QueryContext, progress: &dyn Progress) -> Result<Arc<dyn Prepared>> {
        let first = self.first.search(query, self.depth)?;
        let docs = first.docs();
        progress.stage(&format!("Asking {} about each passage", self.generator.info().model), docs.len() as u64);
        let mut judged = Vec::with_capacity(docs.len());
        for &d in &docs {
            check_cancel(progress)?;
            let passage = self.corpus.doc(d).map(|x| x.passage_text()).unwrap_or_default();
            let j = match judge_passage(
                self.generator.as_ref(),
                &self.prompt,
                query.text(),
                &passage,
                &CancelOnly(progress),
            ) {
                Ok(j) => j,
                Err(Error::Cancelled) => return Err(Error::Cancelled),
                // One failed request costs that passage its probability, not the column.
                Err(e) => Judged { p_yes: None, source: ReadFrom::Unreadable, tokens: Vec::new(), reply: e.report() },
            };
            judged.push((d, j));
            progress.advance(1);
        }
        Ok(Arc::new(PreparedPointwise {
            label: self.label(),
            first_label: first.method.clone(),
            first: docs,
            judged,
            query: query.clone(),
        }))
    }
}

struct PreparedPointwise {
    label: String,
    first_label: String,
    first: Vec<DocId>,
    judged: Vec<(DocId, Judged)>,
    query: QueryContext,
}

impl PreparedPointwise {
    fn scored(&self) -> impl Iterator<Item = (DocId, f64)> + '_ {
        self.judged.iter().filter(|(d, _)| self.query.allows(*d)).map(|(d, j)| (*d, j.p_yes.unwrap_or(0.0)))
    }
}

impl Prepared for PreparedPointwise {
    fn search(&self, k: usize) -> Result<Ranking> {
        Ok(Ranking::top(self.label.clone(), MethodKind::Pointwise, self.scored(), k))
    }

    fn explain(&self, doc: DocId) -> Result<Explanation> {
        if !self.query.allows(doc) {
            return Ok(self.query.filtered_explanation(&self.label));
        }
        let before = self.first.iter().position(|&d| d == doc).map(|i| i + 1);
        let all = self.search(self.judged.len().max(1))?;
        let after = all.rank_of(doc);
        let Some((_, j)) = self.judged.iter().find(|(d, _)| *d == doc) else {
            return Ok(Explanation::new(
                self.label.clone(),
                0.0,
                "P(yes | question, passage)",
                format!("Not in {}'s top {}, so the model never judged it: 0.", self.first_label, self.first.len()),
            ));
        };
        let value = j.p_yes.unwrap_or(0.0);
        let summary = match j.p_yes {
            Some(p) => format!(
                "The model gives “yes” a probability of {p:.3} as its first word for this passage (read from its {}). \
                 A small model's judgement: check it against the passage.",
                j.source
            ),
            None => "The model's answer was neither yes nor no, so the passage scores 0.".to_string(),
        };
        let mut e = Explanation::new(
            self.label.clone(),
            value,
            "P(yes) = Σ p(yes tokens) / (Σ p(yes tokens) + Σ p(no tokens)), over the first answer token",
            summary,
        )
        .without_split("a probability read from the model's first answer token, not a sum of parts");
        e.detail = Detail::Pointwise {
            first_stage: self.first_label.clone(),
            before,
            after,
            p_yes: j.p_yes,
            source: j.source.to_string(),
            tokens: j.tokens.clone(),
            reply: j.reply.clone(),
        };
        Ok(e)
    }
}
