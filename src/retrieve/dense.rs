//! Dense bi-encoder retrieval: exact cosine between the question's vector and every passage's.

use std::sync::{Arc, Mutex};

use super::{Detail, Explanation, Hit, MethodKind, QueryContext, Ranking, Retriever, rank_key, smallest_keys};
use crate::corpus::DocId;
use crate::index::neural::DenseIndex;
use crate::models::{InputKind, TextEncoder};
use crate::{Error, Result};

/// Cosine of two L2-normalised vectors, accumulated in f32 in one fixed order (so ranking and
/// explanation agree bit for bit).
#[inline]
pub fn dot(a: &[f32], b: &[f32]) -> f32 {
    a.iter().zip(b).map(|(x, y)| x * y).sum()
}

/// Exact cosine search over a [`DenseIndex`].
pub struct DenseRetriever {
    index: Arc<DenseIndex>,
    encoder: Arc<dyn TextEncoder>,
    last: Mutex<Option<(String, Vec<f32>)>>,
}

impl DenseRetriever {
    /// Search `index` with queries encoded by `encoder` (the model that built the index).
    pub fn new(index: Arc<DenseIndex>, encoder: Arc<dyn TextEncoder>) -> Self {
        Self { index, encoder, last: Mutex::new(None) }
    }

    /// The question's vector (remembered for the last question, since explanations follow a search).
    pub fn query_vector(&self, text: &str) -> Result<Vec<f32>> {
        if let Ok(last) = self.last.lock()
            && let Some((t, v)) = last.as_ref()
            && t == text
        {
            return Ok(v.clone());
        }
        let v = self
            .encoder
            .encode(&[text], InputKind::Query)?
            .pop()
            .ok_or_else(|| Error::Model("the encoder returned nothing".into()))?;
        if let Ok(mut last) = self.last.lock() {
            *last = Some((text.to_string(), v.clone()));
        }
        Ok(v)
    }

    /// Cosine of every document, f64 for sorting.
    fn scores(&self, q: &[f32]) -> Vec<f64> {
        (0..self.index.len())
            .map(|d| self.index.vector(DocId(d as u32)).map(|v| f64::from(dot(q, v))).unwrap_or(0.0))
            .collect()
    }

    /// The index.
    pub fn index(&self) -> &Arc<DenseIndex> {
        &self.index
    }
}

impl Retriever for DenseRetriever {
    fn kind(&self) -> MethodKind {
        MethodKind::Dense
    }

    fn label(&self) -> String {
        format!("Dense ({})", short_model(&self.index.model_id))
    }

    fn search(&self, query: &QueryContext, k: usize) -> Result<Ranking> {
        let q = self.query_vector(&query.text)?;
        let scores = self.scores(&q);
        let keys: Vec<u128> = scores
            .iter()
            .enumerate()
            .filter(|(d, _)| query.allows(DocId(*d as u32)))
            .map(|(d, s)| rank_key(*s, DocId(d as u32)))
            .collect();
        let total_matches = keys.len();
        let hits = smallest_keys(keys, k)
            .into_iter()
            .map(|key| {
                let doc = DocId(key as u32);
                Hit { doc, score: scores[doc.index()] }
            })
            .collect();
        Ok(Ranking { method: self.label(), kind: self.kind(), hits, total_matches, unranked: false })
    }

    fn explain(&self, query: &QueryContext, doc: DocId) -> Result<Explanation> {
        if !query.allows(doc) {
            return Ok(query.filtered_explanation(&self.label()));
        }
        let q = self.query_vector(&query.text)?;
        let Some(v) = self.index.vector(doc) else {
            return Err(Error::invalid("document", format!("{doc} is not in the dense index")));
        };
        let cosine = dot(&q, v);
        let scores = self.scores(&q);
        let value = f64::from(cosine);
        let better = scores
            .iter()
            .enumerate()
            .filter(|(d, s)| query.allows(DocId(*d as u32)) && (**s > value || (**s == value && *d < doc.index())))
            .count();
        let of = scores.iter().enumerate().filter(|(d, _)| query.allows(DocId(*d as u32))).count();
        let mut e = Explanation::new(
            self.label(),
            value,
            "cos(q, d) = q·d / (|q|·|d|); both vectors are L2-normalised, so it is the dot product",
            format!(
                "Cosine {cosine:.4} between the question's {}-d vector and this passage's: it ranks {} of {of} by cosine. Meaning, not shared words, decides it.",
                self.index.dim,
                better + 1
            ),
        );
        e.detail = Detail::Dense { cosine, rank_among_all: better + 1, of };
        Ok(e)
    }
}

/// `sentence-transformers/all-MiniLM-L6-v2` → `all-MiniLM-L6-v2`.
pub fn short_model(id: &str) -> &str {
    id.rsplit('/').next().unwrap_or(id)
}
