//! SPLADE retrieval: dot product of learned sparse vectors over an inverted index, explained term
//! by term, with expansion terms (weights for words the text does not contain) marked.

use std::sync::{Arc, Mutex};

use super::{
    Detail, Explanation, Hit, MethodKind, QueryContext, Ranking, Retriever, SparseTermMatch, rank_key, smallest_keys,
};
use crate::corpus::{Corpus, DocId};
use crate::index::neural::SpladeIndex;
use crate::models::{SparseEncoder, SparseVector};
use crate::{Error, Result};

/// Learned sparse retrieval.
pub struct SpladeRetriever {
    index: Arc<SpladeIndex>,
    encoder: Arc<dyn SparseEncoder>,
    corpus: Arc<Corpus>,
    last: Mutex<Option<(String, SparseVector)>>,
}

impl SpladeRetriever {
    /// Search `index` with questions encoded by `encoder`.
    pub fn new(index: Arc<SpladeIndex>, encoder: Arc<dyn SparseEncoder>, corpus: Arc<Corpus>) -> Self {
        Self { index, encoder, corpus, last: Mutex::new(None) }
    }

    /// The question's sparse vector (remembered for the last question).
    pub fn query_vector(&self, text: &str) -> Result<SparseVector> {
        if let Ok(last) = self.last.lock()
            && let Some((t, v)) = last.as_ref()
            && t == text
        {
            return Ok(v.clone());
        }
        let v =
            self.encoder.encode(&[text])?.pop().ok_or_else(|| Error::Model("the encoder returned nothing".into()))?;
        if let Ok(mut last) = self.last.lock() {
            *last = Some((text.to_string(), v.clone()));
        }
        Ok(v)
    }

    /// The top terms of a question's vector, strongest first, with whether each is an expansion.
    pub fn query_terms(&self, text: &str, n: usize) -> Result<Vec<(String, f32, bool)>> {
        let v = self.query_vector(text)?;
        let input = self.encoder.input_ids(text)?;
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
        format!("SPLADE ({})", super::dense::short_model(&self.index.model_id))
    }

    fn search(&self, query: &QueryContext, k: usize) -> Result<Ranking> {
        let q = self.query_vector(&query.text)?;
        let n = self.index.docs.len();
        let mut acc = vec![0.0f64; n];
        let mut seen = vec![false; n];
        for &(term, qw) in &q.terms {
            for &(doc, dw) in self.index.postings.get(&term).map(Vec::as_slice).unwrap_or(&[]) {
                if query.allows(doc) {
                    acc[doc.index()] += f64::from(qw * dw);
                    seen[doc.index()] = true;
                }
            }
        }
        let keys: Vec<u128> = (0..n).filter(|&d| seen[d]).map(|d| rank_key(acc[d], DocId(d as u32))).collect();
        let total_matches = keys.len();
        let hits = smallest_keys(keys, k)
            .into_iter()
            .map(|key| {
                let doc = DocId(key as u32);
                Hit { doc, score: acc[doc.index()] }
            })
            .collect();
        Ok(Ranking { method: self.label(), kind: self.kind(), hits, total_matches, unranked: false })
    }

    fn explain(&self, query: &QueryContext, doc: DocId) -> Result<Explanation> {
        if !query.allows(doc) {
            return Ok(query.filtered_explanation(&self.label()));
        }
        let q = self.query_vector(&query.text)?;
        let d = self
            .index
            .docs
            .get(doc.index())
            .ok_or_else(|| Error::invalid("document", format!("{doc} is not indexed")))?;
        let q_input = self.encoder.input_ids(&query.text)?;
        let text = self.corpus.doc(doc).map(|x| x.full_text()).unwrap_or_default();
        let d_input = self.encoder.input_ids(&text)?;
        let mut value = 0.0f64;
        let mut matches = Vec::new();
        for (i, &(term, qw)) in q.terms.iter().enumerate() {
            let Ok(j) = d.terms.binary_search_by_key(&term, |t| t.0) else { continue };
            let dw = d.terms[j].1;
            let product = qw * dw;
            value += f64::from(product);
            matches.push(SparseTermMatch {
                term: self.encoder.term(term),
                query_weight: qw,
                doc_weight: dw,
                product,
                query_expansion: !q_input.contains(&term),
                doc_expansion: !d_input.contains(&term),
                query_source: q.sources.get(i).map(|&s| self.encoder.term(s)),
                doc_source: d.sources.get(j).map(|&s| self.encoder.term(s)),
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
            self.label(),
            value,
            "score = Σ_t w_q(t) · w_d(t),  w(t) = max over input tokens of log(1 + ReLU(MLM logit of t))",
            summary,
        );
        let query_terms = self.query_terms(&query.text, 30)?.into_iter().map(|(t, w, _)| (t, w)).collect();
        e.detail = Detail::Sparse { matches, query_terms };
        Ok(e)
    }
}
