//! Cross-encoder reranking: the first stage's top passages read together with the question by one
//! model, which scores each pair; the explanation shows the rank before and after.

use std::sync::Arc;

use super::{Detail, Explanation, MethodKind, Prepared, QueryContext, Ranking, Retriever};
use crate::Result;
use crate::corpus::{Corpus, DocId};
use crate::models::PairScorer;

/// Reranks a first stage with a cross-encoder.
#[derive(Clone)]
pub struct RerankRetriever {
    first: Arc<dyn Retriever>,
    scorer: Arc<dyn PairScorer>,
    corpus: Arc<Corpus>,
    depth: usize,
}

/// A question prepared for reranking: the first stage's shortlist, each passage read with the
/// question by the cross-encoder once. (document, cross-encoder score, first-stage rank).
struct PreparedRerank {
    retriever: RerankRetriever,
    query: QueryContext,
    reranked: Vec<(DocId, f64, usize)>,
}

impl RerankRetriever {
    /// Rerank the top `depth` of `first`.
    pub fn new(first: Arc<dyn Retriever>, scorer: Arc<dyn PairScorer>, corpus: Arc<Corpus>, depth: usize) -> Self {
        Self { first, scorer, corpus, depth: depth.max(1) }
    }
}

impl Retriever for RerankRetriever {
    fn kind(&self) -> MethodKind {
        MethodKind::Rerank
    }

    fn label(&self) -> String {
        format!(
            "Rerank ({} over {} top {})",
            super::dense::short_model(self.scorer.model_id()),
            self.first.label(),
            self.depth
        )
    }

    fn prepare(&self, query: &QueryContext) -> Result<Arc<dyn Prepared>> {
        let first = self.first.search(query, self.depth)?;
        let texts: Vec<String> =
            first.hits.iter().map(|h| self.corpus.doc(h.doc).map(|d| d.full_text()).unwrap_or_default()).collect();
        let refs: Vec<&str> = texts.iter().map(String::as_str).collect();
        let scores = if refs.is_empty() { Vec::new() } else { self.scorer.score(query.text(), &refs)? };
        let reranked =
            first.hits.iter().zip(scores).enumerate().map(|(i, (h, s))| (h.doc, f64::from(s), i + 1)).collect();
        Ok(Arc::new(PreparedRerank { retriever: self.clone(), query: query.clone(), reranked }))
    }
}

impl Prepared for PreparedRerank {
    fn search(&self, k: usize) -> Result<Ranking> {
        let r = &self.retriever;
        Ok(Ranking::top(r.label(), r.kind(), self.reranked.iter().map(|x| (x.0, x.1)), k))
    }

    fn explain(&self, doc: DocId) -> Result<Explanation> {
        let r = &self.retriever;
        if !self.query.allows(doc) {
            return Ok(self.query.filtered_explanation(&r.label()));
        }
        let Some(&(_, score, before)) = self.reranked.iter().find(|x| x.0 == doc) else {
            let mut e = Explanation::new(
                r.label(),
                0.0,
                "cross-encoder logit over the first stage's shortlist",
                format!("Not in {}'s top {}, so the cross-encoder never read it.", r.first.label(), r.depth),
            );
            e.detail = Detail::Rerank { before: None, after: None };
            return Ok(e);
        };
        let after = 1 + self.reranked.iter().filter(|x| x.1 > score || (x.1 == score && x.0 < doc)).count();
        let moved = match before.cmp(&after) {
            std::cmp::Ordering::Greater => format!("up {} places", before - after),
            std::cmp::Ordering::Less => format!("down {} places", after - before),
            std::cmp::Ordering::Equal => "unchanged".to_string(),
        };
        let mut e = Explanation::new(
            r.label(),
            score,
            "logit = w · tanh(W · h_[CLS]) + b over [CLS] question [SEP] passage [SEP]",
            format!(
                "The cross-encoder read the question and passage together and gave {score:.3}: rank {before} → {after} ({moved})."
            ),
        );
        e.detail = Detail::Rerank { before: Some(before), after: Some(after) };
        Ok(e.without_split(
            "a cross-encoder's score is one logit over the question and passage read together: no part of it \
             belongs to a word",
        ))
    }
}
