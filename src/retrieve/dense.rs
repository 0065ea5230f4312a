//! Dense bi-encoder retrieval: exact cosine between the question's vector and every passage's.

use std::sync::Arc;

use super::{Detail, Explanation, MethodKind, Prepared, QueryContext, Ranking, Retriever, TokenPart};
use crate::corpus::{Corpus, DocId};
use crate::index::encoded::DenseIndex;
use crate::index::hnsw::DenseAnn;
use crate::models::{InputKind, TextEncoder, TokenStates};
use crate::{Error, Result};

pub use crate::index::dot::dot;

/// Exact cosine search over a [`DenseIndex`].
#[derive(Clone)]
pub struct DenseRetriever {
    index: Arc<DenseIndex>,
    encoder: Arc<dyn TextEncoder>,
    /// Vectors from a file: the column's name (its kind is then [`MethodKind::Vectors`]).
    file_label: Option<String>,
    /// An approximate index (large corpora): rank its candidates only.
    ann: Option<Arc<DenseAnn>>,
    /// The passages' texts, to split a cosine over the scoring window's tokens.
    corpus: Option<Arc<Corpus>>,
    /// The query adapter's file, when questions are mapped by one (its kind is then
    /// [`MethodKind::DenseAdapter`]).
    adapter: Option<String>,
}

/// A question prepared for dense search: each passage's cosine (f32, as the index computes it;
/// for a long document, its best window's) with the row that gave it, from which both the ranking
/// and each passage's rank among all are read.
struct PreparedDense {
    retriever: DenseRetriever,
    query: QueryContext,
    best: Vec<Option<(usize, f32)>>,
    /// Scored only the approximate index's candidates.
    approximate: bool,
}

impl DenseRetriever {
    /// Search `index` with queries encoded by `encoder` (the model that built the index).
    pub fn new(index: Arc<DenseIndex>, encoder: Arc<dyn TextEncoder>) -> Self {
        Self { index, encoder, file_label: None, ann: None, corpus: None, adapter: None }
    }

    /// The column of an encoder whose questions an adapter maps (`encoder` is the adapted one),
    /// naming the adapter's file.
    pub fn adapted(mut self, file: &str) -> Self {
        self.adapter = Some(file.to_string());
        self
    }

    /// Explain each cosine down to the passage's (and the question's) tokens, reading the
    /// passages' texts from `corpus` (the corpus the index was built from).
    pub fn with_corpus(mut self, corpus: Arc<Corpus>) -> Self {
        self.corpus = Some(corpus);
        self
    }

    /// Rank the candidates of an approximate index (HNSW) rather than every passage, unless a
    /// filter is set (the graph knows nothing of fields) .
    pub fn with_ann(mut self, ann: Arc<DenseAnn>) -> Self {
        self.ann = Some(ann);
        self
    }

    /// Search passage vectors read from a file (`crate::external::VectorSet`), with question
    /// vectors from `queries`: a column named `label`.
    pub fn from_file(index: Arc<DenseIndex>, queries: Arc<dyn TextEncoder>, label: String) -> Self {
        Self { index, encoder: queries, file_label: Some(label), ann: None, corpus: None, adapter: None }
    }

    /// The column's label for exact search over vectors of `model_id`.
    pub fn label_of(model_id: &str) -> String {
        format!("Dense ({})", short_model(model_id))
    }

    /// The index.
    pub fn index(&self) -> &Arc<DenseIndex> {
        &self.index
    }
}

impl Retriever for DenseRetriever {
    fn kind(&self) -> MethodKind {
        match (&self.file_label, &self.adapter) {
            (Some(_), _) => MethodKind::Vectors,
            (None, Some(_)) => MethodKind::DenseAdapter,
            (None, None) => MethodKind::Dense,
        }
    }

    fn label(&self) -> String {
        if let Some(file) = &self.adapter {
            return format!("Dense + adapter ({}, {file})", short_model(&self.index.model_id));
        }
        match &self.file_label {
            Some(label) => label.clone(),
            None => match &self.ann {
                Some(a) => format!(
                    "Dense ({}, approximate: HNSW, recall@10 {:.3})",
                    short_model(&self.index.model_id),
                    a.recall_at_10
                ),
                None => Self::label_of(&self.index.model_id),
            },
        }
    }

    fn prepare(&self, query: &QueryContext) -> Result<Arc<dyn Prepared>> {
        let q = query.dense_vector(self.encoder.as_ref())?;
        let index = &self.index;
        if let Some(ann) = self.ann.as_ref().filter(|_| !query.is_filtered()) {
            // The graph's candidate rows, each scored exactly; a document takes its best
            // candidate window.
            let mut best: Vec<Option<(usize, f32)>> = vec![None; index.len()];
            for r in ann.candidates(&q) {
                let r = r as usize;
                let c = index.row(r).map_or(0.0, |v| dot(&q, v));
                let slot = &mut best[index.windows.doc_of(r).index()];
                if slot.is_none_or(|(br, bc)| c > bc || (c == bc && r < br)) {
                    *slot = Some((r, c));
                }
            }
            return Ok(Arc::new(PreparedDense {
                retriever: self.clone(),
                query: query.clone(),
                best,
                approximate: true,
            }));
        }
        let cosines: Vec<f32> = (0..index.windows.rows()).map(|r| index.row(r).map_or(0.0, |v| dot(&q, v))).collect();
        let best = (0..index.len() as u32)
            .map(|d| index.windows.best(DocId(d), |r| f64::from(cosines[r])).map(|(r, _)| (r, cosines[r])))
            .collect();
        Ok(Arc::new(PreparedDense { retriever: self.clone(), query: query.clone(), best, approximate: false }))
    }
}

impl PreparedDense {
    /// (document, cosine) of every document the filter allows.
    fn allowed(&self) -> impl Iterator<Item = (DocId, f64)> + '_ {
        self.best
            .iter()
            .enumerate()
            .filter_map(|(d, b)| b.map(|(_, c)| (DocId(d as u32), f64::from(c))))
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
        let Some((row, cosine)) = self.best.get(doc.index()).copied().flatten() else {
            if self.approximate {
                return Ok(Explanation::new(
                    r.label(),
                    0.0,
                    "cos(q, d) over the approximate index's candidates",
                    format!(
                        "Not among the {} passages the HNSW graph offered for this question, so it was not scored; exact search would score every passage.",
                        crate::index::hnsw::CANDIDATES
                    ),
                ));
            }
            return Err(Error::invalid("document", format!("{doc} is not in the dense index")));
        };
        let window = r.index.windows.scored(row);
        let value = f64::from(cosine);
        let better = self.allowed().filter(|&(d, s)| s > value || (s == value && d < doc)).count();
        let of = self.allowed().count();
        let mut e = Explanation::new(
            r.label(),
            value,
            "cos(q, d) = q·d / (|q|·|d|); both vectors are L2-normalised, so it is the dot product",
            format!(
                "Cosine {cosine:.4} between the question's {}-d vector and this passage's{}: it ranks {} of {of}{} by cosine. Meaning, not shared words, decides it.",
                r.index.dim,
                window.map(|w| format!(" best window ({})", w.describe())).unwrap_or_default(),
                better + 1,
                if self.approximate { " approximate-search candidates" } else { "" }
            ),
        );
        let (tokens, query_tokens) = self.token_parts(row)?;
        if tokens.is_empty() {
            e = e.without_split(if r.file_label.is_some() {
                "vectors computed elsewhere: RankLens has no token states to split their cosine over".to_string()
            } else {
                format!(
                    "{} does not make its vector as a mean of token states (it pools otherwise), so its cosine \
                     has no split over words",
                    short_model(&r.index.model_id)
                )
            });
        }
        e.detail = Detail::Dense { cosine, rank_among_all: better + 1, of, tokens, query_tokens };
        e.window = window;
        Ok(e)
    }
}

impl PreparedDense {
    /// The cosine of a row split over the window's tokens, and over the question's: for a
    /// mean-pooled model, cos = Σᵢ q·hᵢ / (n·|h̄|) = Σⱼ qⱼ·d / (m·|q̄|). Empty when the model
    /// pools otherwise or the texts are not at hand.
    fn token_parts(&self, row: usize) -> Result<(Vec<TokenPart>, Vec<TokenPart>)> {
        let r = &self.retriever;
        let Some(corpus) = &r.corpus else { return Ok((Vec::new(), Vec::new())) };
        let Some(text) = r.index.windows.text_of(row, corpus) else { return Ok((Vec::new(), Vec::new())) };
        let Some(states) = r.encoder.token_states(&text, InputKind::Document)? else {
            return Ok((Vec::new(), Vec::new()));
        };
        let q = self.query.dense_vector(r.encoder.as_ref())?;
        let start = r.index.windows.scored(row).map_or(0, |w| w.start);
        let tokens = parts_against(&states, &q, start);
        let question = match r.encoder.token_states(self.query.text(), InputKind::Query)? {
            Some(qs) => parts_against(&qs, r.index.row(row).unwrap_or(&[]), 0),
            None => Vec::new(),
        };
        Ok((tokens, question))
    }
}

/// Each token's part of the cosine between the mean of `states` (divided by its length when the
/// model normalises) and the unit vector `other`: ⟨other, hᵢ⟩ / (n·|h̄|), in f64. Offsets are moved
/// by `shift` (the window's start in the passage).
fn parts_against(states: &TokenStates, other: &[f32], shift: usize) -> Vec<TokenPart> {
    let n = states.tokens.len();
    if n == 0 || other.len() != states.dim {
        return Vec::new();
    }
    let mut mean = vec![0f64; states.dim];
    for i in 0..n {
        for (m, &x) in mean.iter_mut().zip(states.row(i)) {
            *m += f64::from(x);
        }
    }
    let norm = if states.normalized { mean.iter().map(|m| (m / n as f64).powi(2)).sum::<f64>().sqrt() } else { 1.0 };
    if norm == 0.0 {
        return Vec::new();
    }
    (0..n)
        .map(|i| {
            let dot: f64 = states.row(i).iter().zip(other).map(|(&h, &o)| f64::from(h) * f64::from(o)).sum();
            let (start, end) = states.offsets[i].map_or((None, None), |(a, b)| (Some(a + shift), Some(b + shift)));
            TokenPart { token: states.tokens[i].clone(), start, end, contribution: dot / (n as f64 * norm) }
        })
        .collect()
}

/// `sentence-transformers/all-MiniLM-L6-v2` → `all-MiniLM-L6-v2`.
pub fn short_model(id: &str) -> &str {
    id.rsplit('/').next().unwrap_or(id)
}
