//! Dense bi-encoder retrieval: exact cosine between the question's vector and every passage's.

use std::sync::Arc;

use super::{Detail, Explanation, MethodKind, Prepared, QueryContext, Ranking, Retriever};
use crate::corpus::DocId;
use crate::index::neural::DenseIndex;
use crate::models::TextEncoder;
use crate::{Error, Result};

/// Cosine of two L2-normalised vectors, accumulated in f32 in one fixed order (so ranking and
/// explanation agree bit for bit).
#[inline]
pub fn dot(a: &[f32], b: &[f32]) -> f32 {
    a.iter().zip(b).map(|(x, y)| x * y).sum()
}

/// Exact cosine search over a [`DenseIndex`].
#[derive(Clone)]
pub struct DenseRetriever {
    index: Arc<DenseIndex>,
    encoder: Arc<dyn TextEncoder>,
    /// Vectors from a file: the column's name (its kind is then [`MethodKind::Vectors`]).
    file_label: Option<String>,
}

/// A question prepared for dense search: its cosine with every passage (f32, as the index
/// computes it), from which both the ranking and each passage's rank among all are read.
struct PreparedDense {
    retriever: DenseRetriever,
    query: QueryContext,
    cosines: Vec<f32>,
}

impl DenseRetriever {
    /// Search `index` with queries encoded by `encoder` (the model that built the index).
    pub fn new(index: Arc<DenseIndex>, encoder: Arc<dyn TextEncoder>) -> Self {
        Self { index, encoder, file_label: None }
    }

    /// Search passage vectors read from a file (`crate::external::VectorSet`), with question
    /// vectors from `queries`: a column named `label`.
    pub fn from_file(index: Arc<DenseIndex>, queries: Arc<dyn TextEncoder>, label: String) -> Self {
        Self { index, encoder: queries, file_label: Some(label) }
    }

    /// The index.
    pub fn index(&self) -> &Arc<DenseIndex> {
        &self.index
    }
}

impl Retriever for DenseRetriever {
    fn kind(&self) -> MethodKind {
        if self.file_label.is_some() { MethodKind::Vectors } else { MethodKind::Dense }
    }

    fn label(&self) -> String {
        match &self.file_label {
            Some(label) => label.clone(),
            None => format!("Dense ({})", short_model(&self.index.model_id)),
        }
    }

    fn prepare(&self, query: &QueryContext) -> Result<Arc<dyn Prepared>> {
        let q = query.dense_vector(self.encoder.as_ref())?;
        let cosines =
            (0..self.index.len()).map(|d| self.index.vector(DocId(d as u32)).map_or(0.0, |v| dot(&q, v))).collect();
        Ok(Arc::new(PreparedDense { retriever: self.clone(), query: query.clone(), cosines }))
    }
}

impl PreparedDense {
    /// (document, cosine) of every document the filter allows.
    fn allowed(&self) -> impl Iterator<Item = (DocId, f64)> + '_ {
        self.cosines
            .iter()
            .enumerate()
            .map(|(d, &c)| (DocId(d as u32), f64::from(c)))
            .filter(|(d, _)| self.query.allows(*d))
    }
}

impl Prepared for PreparedDense {
    fn search(&self, k: usize) -> Result<Ranking> {
        let r = &self.retriever;
        Ok(Ranking::top(r.label(), r.kind(), self.allowed(), k))
    }

    fn explain(&self, doc: DocId) -> Result<Explanation> {
        let r = &self.retriever;
        if !self.query.allows(doc) {
            return Ok(self.query.filtered_explanation(&r.label()));
        }
        let Some(&cosine) = self.cosines.get(doc.index()) else {
            return Err(Error::invalid("document", format!("{doc} is not in the dense index")));
        };
        let value = f64::from(cosine);
        let better = self.allowed().filter(|&(d, s)| s > value || (s == value && d < doc)).count();
        let of = self.allowed().count();
        let mut e = Explanation::new(
            r.label(),
            value,
            "cos(q, d) = q·d / (|q|·|d|); both vectors are L2-normalised, so it is the dot product",
            format!(
                "Cosine {cosine:.4} between the question's {}-d vector and this passage's: it ranks {} of {of} by cosine. Meaning, not shared words, decides it.",
                r.index.dim,
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
