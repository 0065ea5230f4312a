//! Cross-encoder reranking: the first stage's top passages read together with the question by one
//! model, which scores each pair; the explanation shows the rank before and after.

use std::collections::HashMap;
use std::sync::{Arc, Mutex};

use super::{Detail, Explanation, Hit, MethodKind, QueryContext, Ranking, Retriever, rank_key, smallest_keys};
use crate::Result;
use crate::corpus::{Corpus, DocId};
use crate::models::PairScorer;

/// (document, cross-encoder score, first-stage rank) for the last question.
type Reranked = Vec<(DocId, f64, usize)>;

/// Reranks a first stage with a cross-encoder.
pub struct RerankRetriever {
    first: Arc<dyn Retriever>,
    scorer: Arc<dyn PairScorer>,
    corpus: Arc<Corpus>,
    depth: usize,
    last: Mutex<Option<(String, Reranked)>>,
}

impl RerankRetriever {
    /// Rerank the top `depth` of `first`.
    pub fn new(first: Arc<dyn Retriever>, scorer: Arc<dyn PairScorer>, corpus: Arc<Corpus>, depth: usize) -> Self {
        Self { first, scorer, corpus, depth: depth.max(1), last: Mutex::new(None) }
    }

    fn reranked(&self, query: &QueryContext) -> Result<Reranked> {
        if let Ok(last) = self.last.lock()
            && let Some((t, r)) = last.as_ref()
            && *t == query.text
            && query.filter.is_none()
        {
            return Ok(r.clone());
        }
        let first = self.first.search(query, self.depth)?;
        let texts: Vec<String> =
            first.hits.iter().map(|h| self.corpus.doc(h.doc).map(|d| d.full_text()).unwrap_or_default()).collect();
        let refs: Vec<&str> = texts.iter().map(String::as_str).collect();
        let scores = if refs.is_empty() { Vec::new() } else { self.scorer.score(&query.text, &refs)? };
        let r: Reranked =
            first.hits.iter().zip(scores).enumerate().map(|(i, (h, s))| (h.doc, f64::from(s), i + 1)).collect();
        if let Ok(mut last) = self.last.lock() {
            *last = if query.filter.is_none() { Some((query.text.clone(), r.clone())) } else { None };
        }
        Ok(r)
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

    fn search(&self, query: &QueryContext, k: usize) -> Result<Ranking> {
        let r = self.reranked(query)?;
        let scores: HashMap<DocId, f64> = r.iter().map(|x| (x.0, x.1)).collect();
        let keys: Vec<u128> = r.iter().map(|x| rank_key(x.1, x.0)).collect();
        let total_matches = keys.len();
        let hits = smallest_keys(keys, k)
            .into_iter()
            .map(|key| {
                let doc = DocId(key as u32);
                Hit { doc, score: scores.get(&doc).copied().unwrap_or(0.0) }
            })
            .collect();
        Ok(Ranking { method: self.label(), kind: self.kind(), hits, total_matches, unranked: false })
    }

    fn explain(&self, query: &QueryContext, doc: DocId) -> Result<Explanation> {
        if !query.allows(doc) {
            return Ok(query.filtered_explanation(&self.label()));
        }
        let r = self.reranked(query)?;
        let Some(&(_, score, before)) = r.iter().find(|x| x.0 == doc) else {
            let mut e = Explanation::new(
                self.label(),
                0.0,
                "cross-encoder logit over the first stage's shortlist",
                format!("Not in {}'s top {}, so the cross-encoder never read it.", self.first.label(), self.depth),
            );
            e.detail = Detail::Rerank { before: None, after: None };
            return Ok(e);
        };
        let after = 1 + r.iter().filter(|x| x.1 > score || (x.1 == score && x.0 < doc)).count();
        let moved = match before.cmp(&after) {
            std::cmp::Ordering::Greater => format!("up {} places", before - after),
            std::cmp::Ordering::Less => format!("down {} places", after - before),
            std::cmp::Ordering::Equal => "unchanged".to_string(),
        };
        let mut e = Explanation::new(
            self.label(),
            score,
            "logit = w · tanh(W · h_[CLS]) + b over [CLS] question [SEP] passage [SEP]",
            format!(
                "The cross-encoder read the question and passage together and gave {score:.3}: rank {before} → {after} ({moved})."
            ),
        );
        e.detail = Detail::Rerank { before: Some(before), after: Some(after) };
        Ok(e)
    }
}
