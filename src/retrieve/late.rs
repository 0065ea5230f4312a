//! Late interaction (ColBERT-style MaxSim): each question token finds its most similar passage
//! token; the score is the sum of those maxima. On large corpora it reranks a first-stage shortlist.

use std::sync::{Arc, Mutex};

use half::f16;

use super::{
    Detail, Explanation, Hit, MethodKind, QueryContext, Ranking, Retriever, TokenAlignment, rank_key, smallest_keys,
};
use crate::corpus::{Corpus, DocId};
use crate::index::neural::{DocTokens, LateIndex};
use crate::models::{InputKind, TokenEncoder, TokenVectors};
use crate::{Error, Result};

/// MaxSim of a question against one document: the score (Σ of per-token maxima, added in question
/// order) and, per question token, the best document token and its similarity.
pub fn maxsim(q: &TokenVectors, d: &DocTokens) -> (f64, Vec<(usize, f32)>) {
    let dim = q.dim;
    let n = d.ids.len();
    let mut doc = vec![0f32; d.data.len()];
    for (x, y) in doc.iter_mut().zip(&d.data) {
        *x = y.to_f32();
    }
    let mut total = 0.0f64;
    let mut best = Vec::with_capacity(q.len());
    for i in 0..q.len() {
        let row = q.row(i);
        let (mut bj, mut bs) = (0usize, f32::NEG_INFINITY);
        for j in 0..n {
            let s: f32 = row.iter().zip(&doc[j * dim..(j + 1) * dim]).map(|(a, b)| a * b).sum();
            if s > bs {
                bs = s;
                bj = j;
            }
        }
        if n == 0 {
            bs = 0.0;
        }
        total += f64::from(bs);
        best.push((bj, bs));
    }
    (total, best)
}

/// Late interaction over token vectors.
pub struct LateInteractionRetriever {
    index: Option<Arc<LateIndex>>,
    encoder: Arc<dyn TokenEncoder>,
    corpus: Arc<Corpus>,
    first_stage: Option<(Arc<dyn Retriever>, usize)>,
    last: Mutex<Option<(String, TokenVectors)>>,
    doc_cache: Mutex<std::collections::HashMap<DocId, DocTokens>>,
}

impl LateInteractionRetriever {
    /// Full retrieval over an index of every document's token vectors.
    pub fn over_index(index: Arc<LateIndex>, encoder: Arc<dyn TokenEncoder>, corpus: Arc<Corpus>) -> Self {
        Self {
            index: Some(index),
            encoder,
            corpus,
            first_stage: None,
            last: Mutex::new(None),
            doc_cache: Mutex::default(),
        }
    }

    /// Rerank the top `depth` of a first-stage retriever, encoding those passages on demand (or
    /// reading them from `index` when given).
    pub fn reranking(
        first: Arc<dyn Retriever>,
        depth: usize,
        index: Option<Arc<LateIndex>>,
        encoder: Arc<dyn TokenEncoder>,
        corpus: Arc<Corpus>,
    ) -> Self {
        Self {
            index,
            encoder,
            corpus,
            first_stage: Some((first, depth)),
            last: Mutex::new(None),
            doc_cache: Mutex::default(),
        }
    }

    fn query_tokens(&self, text: &str) -> Result<TokenVectors> {
        if let Ok(last) = self.last.lock()
            && let Some((t, v)) = last.as_ref()
            && t == text
        {
            return Ok(v.clone());
        }
        let v = self
            .encoder
            .encode_tokens(&[text], InputKind::Query)?
            .pop()
            .ok_or_else(|| Error::Model("the encoder returned nothing".into()))?;
        if let Ok(mut last) = self.last.lock() {
            *last = Some((text.to_string(), v.clone()));
        }
        Ok(v)
    }

    fn doc_tokens(&self, docs: &[DocId]) -> Result<Vec<DocTokens>> {
        if let Some(index) = &self.index {
            return docs
                .iter()
                .map(|d| {
                    index
                        .docs
                        .get(d.index())
                        .cloned()
                        .ok_or_else(|| Error::invalid("document", format!("{d} is not indexed")))
                })
                .collect();
        }
        let mut cache = self.doc_cache.lock().map_err(|_| Error::Model("late-interaction cache poisoned".into()))?;
        let missing: Vec<DocId> = docs.iter().copied().filter(|d| !cache.contains_key(d)).collect();
        if !missing.is_empty() {
            let texts: Vec<String> =
                missing.iter().map(|d| self.corpus.doc(*d).map(|x| x.full_text()).unwrap_or_default()).collect();
            let refs: Vec<&str> = texts.iter().map(String::as_str).collect();
            for (d, t) in missing.iter().zip(self.encoder.encode_tokens(&refs, InputKind::Document)?) {
                cache.insert(
                    *d,
                    DocTokens { ids: t.ids.clone(), data: t.data.iter().map(|v| f16::from_f32(*v)).collect() },
                );
            }
        }
        Ok(docs.iter().filter_map(|d| cache.get(d).cloned()).collect())
    }

    fn candidates(&self, query: &QueryContext) -> Result<Vec<DocId>> {
        match &self.first_stage {
            Some((first, depth)) => Ok(first.search(query, *depth)?.docs()),
            None => Ok((0..self.corpus.len() as u32).map(DocId).filter(|d| query.allows(*d)).collect()),
        }
    }

    /// Whether the vectors come from a trained ColBERT.
    pub fn trained(&self) -> bool {
        self.encoder.trained_late_interaction()
    }
}

impl Retriever for LateInteractionRetriever {
    fn kind(&self) -> MethodKind {
        MethodKind::LateInteraction
    }

    fn label(&self) -> String {
        let model = super::dense::short_model(self.encoder.model_id());
        let what =
            if self.trained() { model.to_string() } else { format!("{model} token vectors, not a trained ColBERT") };
        match &self.first_stage {
            Some((first, depth)) => format!("Late interaction ({what}; reranks {} top {depth})", first.label()),
            None => format!("Late interaction ({what})"),
        }
    }

    fn search(&self, query: &QueryContext, k: usize) -> Result<Ranking> {
        let q = self.query_tokens(&query.text)?;
        let candidates = self.candidates(query)?;
        let tokens = self.doc_tokens(&candidates)?;
        let mut scores = std::collections::HashMap::new();
        let keys: Vec<u128> = candidates
            .iter()
            .zip(&tokens)
            .map(|(&d, t)| {
                let s = maxsim(&q, t).0;
                scores.insert(d, s);
                rank_key(s, d)
            })
            .collect();
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
        if let Some((first, depth)) = &self.first_stage
            && first.search(query, *depth)?.rank_of(doc).is_none()
        {
            return Ok(Explanation::new(
                self.label(),
                0.0,
                "MaxSim over the first stage's shortlist",
                format!("Not in {}'s top {depth}, so late interaction never scored it.", first.label()),
            ));
        }
        let q = self.query_tokens(&query.text)?;
        let d =
            self.doc_tokens(&[doc])?.pop().ok_or_else(|| Error::invalid("document", format!("{doc} has no tokens")))?;
        let (value, best) = maxsim(&q, &d);
        let doc_tokens: Vec<String> = d.ids.iter().map(|&id| self.encoder.token(id)).collect();
        let dim = q.dim;
        let doc_f32: Vec<f32> = d.data.iter().map(|v| v.to_f32()).collect();
        let mut matrix = Vec::with_capacity(q.len() * d.ids.len());
        for i in 0..q.len() {
            for j in 0..d.ids.len() {
                matrix.push(q.row(i).iter().zip(&doc_f32[j * dim..(j + 1) * dim]).map(|(a, b)| a * b).sum());
            }
        }
        let alignments: Vec<TokenAlignment> = best
            .iter()
            .enumerate()
            .map(|(i, &(j, s))| TokenAlignment {
                query_token: q.tokens.get(i).cloned().unwrap_or_default(),
                query_pos: i,
                doc_token: doc_tokens.get(j).cloned().unwrap_or_default(),
                doc_pos: j,
                similarity: s,
            })
            .collect();
        let strongest = alignments.iter().max_by(|a, b| a.similarity.total_cmp(&b.similarity));
        let summary = match strongest {
            Some(a) => format!(
                "{} question tokens each take their best match among {} passage tokens; the strongest pair is `{}` → `{}` ({:.3}).{}",
                alignments.len(),
                doc_tokens.len(),
                a.query_token,
                a.doc_token,
                a.similarity,
                if self.trained() { "" } else { " These are a bi-encoder's token states, not a trained ColBERT." }
            ),
            None => "The question has no tokens.".to_string(),
        };
        let mut e = Explanation::new(self.label(), value, "MaxSim(q, d) = Σ_i max_j cos(q_i, d_j)", summary);
        e.detail = Detail::MaxSim { alignments, query_tokens: q.tokens.clone(), doc_tokens, matrix };
        Ok(e)
    }
}
