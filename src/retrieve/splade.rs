//! SPLADE retrieval: dot product of learned sparse vectors over an inverted index, explained term
//! by term, with expansion terms (weights for words the text does not contain) marked.

use std::sync::Arc;

use super::{Detail, Explanation, MethodKind, Prepared, QueryContext, Ranking, Retriever, SparseTermMatch};
use crate::corpus::{Corpus, DocId};
use crate::index::encoded::SpladeIndex;
use crate::models::{SparseEncoder, SparseVector};
use crate::{Error, Result};

/// Learned sparse retrieval.
#[derive(Clone)]
pub struct SpladeRetriever {
    index: Arc<SpladeIndex>,
    encoder: Arc<dyn SparseEncoder>,
    corpus: Arc<Corpus>,
}

/// A question prepared for SPLADE: its sparse vector, the input tokens that vector came from (to
/// tell written terms from the model's additions) and its strongest terms for display.
struct PreparedSplade {
    retriever: SpladeRetriever,
    query: QueryContext,
    vector: Arc<SparseVector>,
    input: Vec<u32>,
    top_terms: Vec<(String, f32)>,
}

impl SpladeRetriever {
    /// Search `index` with questions encoded by `encoder`.
    pub fn new(index: Arc<SpladeIndex>, encoder: Arc<dyn SparseEncoder>, corpus: Arc<Corpus>) -> Self {
        Self { index, encoder, corpus }
    }

    /// The column's label for vectors of `model_id`.
    pub fn label_of(model_id: &str) -> String {
        format!("SPLADE ({})", super::dense::short_model(model_id))
    }

    /// The top terms of a question's vector, strongest first, with whether each is an expansion.
    pub fn query_terms(&self, text: &str, n: usize) -> Result<Vec<(String, f32, bool)>> {
        let q = QueryContext::new(text);
        self.top_terms(q.sparse_vector(self.encoder.as_ref())?.as_ref(), &self.encoder.input_ids(text)?, n)
    }

    fn top_terms(&self, v: &SparseVector, input: &[u32], n: usize) -> Result<Vec<(String, f32, bool)>> {
        let mut terms: Vec<(String, f32, bool)> =
            v.terms.iter().map(|&(id, w)| (self.encoder.term(id), w, !input.contains(&id))).collect();
        terms.sort_by(|a, b| b.1.total_cmp(&a.1).then_with(|| a.0.cmp(&b.0)));
        terms.truncate(n);
        Ok(terms)
    }
}

impl Retriever for SpladeRetriever {
    fn kind(&self) -> MethodKind {
        MethodKind::Splade
    }

    fn label(&self) -> String {
        Self::label_of(&self.index.model_id)
    }

    fn prepare(&self, query: &QueryContext) -> Result<Arc<dyn Prepared>> {
        let vector = query.sparse_vector(self.encoder.as_ref())?;
        let input = self.encoder.input_ids(query.text())?;
        let top_terms = self.top_terms(&vector, &input, 30)?.into_iter().map(|(t, w, _)| (t, w)).collect();
        Ok(Arc::new(PreparedSplade { retriever: self.clone(), query: query.clone(), vector, input, top_terms }))
    }
}

impl PreparedSplade {
    /// The question's dot product with one row, added in the question's term order (the order
    /// `search` adds it in).
    fn dot(&self, d: &SparseVector) -> f64 {
        let mut value = 0.0f64;
        for &(term, qw) in &self.vector.terms {
            if let Ok(j) = d.terms.binary_search_by_key(&term, |t| t.0) {
                value += f64::from(qw * d.terms[j].1);
            }
        }
        value
    }
}

impl Prepared for PreparedSplade {
    fn search(&self, k: usize) -> Result<Ranking> {
        let r = &self.retriever;
        let windows = &r.index.windows;
        let rows = r.index.rows.len();
        let mut acc = vec![0.0f64; rows];
        let mut seen = vec![false; windows.docs()];
        for &(term, qw) in &self.vector.terms {
            for &(row, dw) in r.index.postings.get(&term).map(Vec::as_slice).unwrap_or(&[]) {
                let doc = windows.doc_of(row as usize);
                if self.query.allows(doc) {
                    acc[row as usize] += f64::from(qw * dw);
                    seen[doc.index()] = true;
                }
            }
        }
        // A long document scores by its best window (every weight is positive, so a window the
        // question shares no term with scores 0 and never wins over one it does).
        let scored = (0..seen.len() as u32)
            .map(DocId)
            .filter(|d| seen[d.index()])
            .filter_map(|d| windows.best(d, |row| acc[row]).map(|(_, s)| (d, s)));
        Ok(Ranking::top(r.label(), r.kind(), scored, k))
    }

    fn explain(&self, doc: DocId) -> Result<Explanation> {
        let r = &self.retriever;
        if !self.query.allows(doc) {
            return Ok(self.query.filtered_explanation(&r.label()));
        }
        let windows = &r.index.windows;
        let row = windows
            .best(doc, |row| r.index.rows.get(row).map_or(0.0, |d| self.dot(d)))
            .map(|(row, _)| row)
            .ok_or_else(|| Error::invalid("document", format!("{doc} is not indexed")))?;
        let d = &r.index.rows[row];
        let text = r.corpus.doc(doc).map(|x| x.full_text()).unwrap_or_default();
        let window = windows.scored(row);
        let text = match windows.span(row) {
            Some(span) if window.is_some() => text.get(span).unwrap_or(&text).to_string(),
            _ => text,
        };
        let d_input = r.encoder.input_ids(&text)?;
        let mut value = 0.0f64;
        let mut matches = Vec::new();
        for (i, &(term, qw)) in self.vector.terms.iter().enumerate() {
            let Ok(j) = d.terms.binary_search_by_key(&term, |t| t.0) else { continue };
            let dw = d.terms[j].1;
            let product = qw * dw;
            value += f64::from(product);
            matches.push(SparseTermMatch {
                term: r.encoder.term(term),
                query_weight: qw,
                doc_weight: dw,
                product,
                query_expansion: !self.input.contains(&term),
                doc_expansion: !d_input.contains(&term),
                query_source: self.vector.sources.get(i).map(|&s| r.encoder.term(s)),
                doc_source: d.sources.get(j).map(|&s| r.encoder.term(s)),
            });
        }
        matches.sort_by(|a, b| b.product.total_cmp(&a.product).then_with(|| a.term.cmp(&b.term)));
        let expansions = matches.iter().filter(|m| m.query_expansion || m.doc_expansion).count();
        let summary = match matches.first() {
            None => "No vocabulary term has weight in both the question's and this passage's vectors, so the dot product is 0.".to_string(),
            Some(best) => format!(
                "{} shared terms, {expansions} of them added by the model rather than written in the text; `{}` contributes most ({:.3} × {:.3}).",
                matches.len(),
                best.term,
                best.query_weight,
                best.doc_weight
            ),
        };
        let mut e = Explanation::new(
            r.label(),
            value,
            "score = Σ_t w_q(t) · w_d(t),  w(t) = max over input tokens of log(1 + ReLU(MLM logit of t))",
            summary,
        );
        e.detail = Detail::Sparse { matches, query_terms: self.top_terms.clone() };
        if let Some(w) = window {
            e.summary = format!("Its best window, {}: {}", w.describe(), e.summary);
        }
        e.window = window;
        Ok(e)
    }
}
