//! Indexes of neural encodings: dense vectors, SPLADE sparse vectors with an inverted index, and
//! per-token vectors (stored as f16) for late interaction. Each is built in batches with progress
//! and cancellation, reading and writing the [`EmbeddingCache`] so a corpus is encoded once.

use std::collections::HashMap;
use std::sync::Arc;

use half::f16;

use crate::corpus::{Corpus, DocId};
use crate::models::{
    BertDenseEncoder, EmbeddingCache, InputKind, SparseEncoder, SparseVector, TextEncoder, TokenEncoder, TokenVectors,
    bytes_to_f32s, f32s_to_bytes,
};
use crate::progress::{Progress, check_cancel};
use crate::{Error, Result};

/// Documents per encoding step (the unit of progress and of cancellation).
const STEP: usize = 32;

/// One dense vector per document.
#[derive(Debug, Clone)]
pub struct DenseIndex {
    /// The model that made the vectors.
    pub model_id: String,
    /// Vector size.
    pub dim: usize,
    /// Row-major N × dim, L2-normalised rows.
    pub vectors: Vec<f32>,
}

impl DenseIndex {
    /// Row of one document.
    pub fn vector(&self, doc: DocId) -> Option<&[f32]> {
        let start = doc.index() * self.dim;
        self.vectors.get(start..start + self.dim)
    }

    /// Number of documents.
    pub fn len(&self) -> usize {
        self.vectors.len().checked_div(self.dim).unwrap_or(0)
    }

    /// True when empty.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }
}

/// Token vectors of one document, compact.
#[derive(Debug, Clone, Default)]
pub struct DocTokens {
    /// Vocabulary ids.
    pub ids: Vec<u32>,
    /// Row-major tokens × dim, f16.
    pub data: Vec<f16>,
}

/// Per-token vectors for every document.
#[derive(Debug, Clone)]
pub struct LateIndex {
    /// The model that made the vectors.
    pub model_id: String,
    /// True for a trained ColBERT; false for a bi-encoder's contextual token states.
    pub trained: bool,
    /// Vector size.
    pub dim: usize,
    /// One entry per document.
    pub docs: Vec<DocTokens>,
}

impl LateIndex {
    /// Bytes held by the vectors and ids.
    pub fn memory_bytes(&self) -> usize {
        self.docs.iter().map(|d| d.data.len() * 2 + d.ids.len() * 4).sum()
    }

    /// Total token vectors.
    pub fn total_tokens(&self) -> usize {
        self.docs.iter().map(|d| d.ids.len()).sum()
    }
}

/// SPLADE vectors and their inverted index.
#[derive(Debug, Clone)]
pub struct SpladeIndex {
    /// The model that made the vectors.
    pub model_id: String,
    /// Per-document vectors (with max-pooling sources).
    pub docs: Vec<SparseVector>,
    /// Vocabulary id → (document, weight), by document.
    pub postings: HashMap<u32, Vec<(DocId, f32)>>,
}

fn texts(corpus: &Corpus) -> Vec<String> {
    corpus.docs().iter().map(|d| d.full_text()).collect()
}

fn tokens_to_bytes(t: &TokenVectors) -> Vec<u8> {
    let mut out = Vec::with_capacity(8 + t.ids.len() * 4 + t.data.len() * 2);
    out.extend_from_slice(&(t.ids.len() as u32).to_le_bytes());
    out.extend_from_slice(&(t.dim as u32).to_le_bytes());
    for id in &t.ids {
        out.extend_from_slice(&id.to_le_bytes());
    }
    for v in &t.data {
        out.extend_from_slice(&f16::from_f32(*v).to_le_bytes());
    }
    out
}

fn doc_tokens_from_bytes(b: &[u8]) -> Option<(DocTokens, usize)> {
    let n = u32::from_le_bytes(b.get(0..4)?.try_into().ok()?) as usize;
    let dim = u32::from_le_bytes(b.get(4..8)?.try_into().ok()?) as usize;
    let ids_end = 8 + n * 4;
    let ids = b.get(8..ids_end)?.chunks_exact(4).map(|c| u32::from_le_bytes([c[0], c[1], c[2], c[3]])).collect();
    let data_bytes = b.get(ids_end..ids_end + n * dim * 2)?;
    let data = data_bytes.chunks_exact(2).map(|c| f16::from_le_bytes([c[0], c[1]])).collect();
    Some((DocTokens { ids, data }, dim))
}

fn doc_tokens(t: &TokenVectors) -> DocTokens {
    DocTokens { ids: t.ids.clone(), data: t.data.iter().map(|v| f16::from_f32(*v)).collect() }
}

fn sparse_to_bytes(v: &SparseVector) -> Vec<u8> {
    let mut out = Vec::with_capacity(v.terms.len() * 12);
    for ((id, w), src) in v.terms.iter().zip(&v.sources) {
        out.extend_from_slice(&id.to_le_bytes());
        out.extend_from_slice(&w.to_le_bytes());
        out.extend_from_slice(&src.to_le_bytes());
    }
    out
}

fn sparse_from_bytes(b: &[u8]) -> SparseVector {
    let mut v = SparseVector::default();
    for c in b.chunks_exact(12) {
        v.terms.push((u32::from_le_bytes([c[0], c[1], c[2], c[3]]), f32::from_le_bytes([c[4], c[5], c[6], c[7]])));
        v.sources.push(u32::from_le_bytes([c[8], c[9], c[10], c[11]]));
    }
    v
}

/// Walk the corpus in steps: take what the cache has, encode the rest with `encode`, store it.
fn build_cached<T: Clone>(
    corpus: &Corpus,
    cache: Option<&EmbeddingCache>,
    model_id: &str,
    kind: &str,
    progress: &dyn Progress,
    decode: impl Fn(&[u8]) -> Option<T>,
    encode: impl Fn(&[&str]) -> Result<Vec<(T, Vec<u8>)>>,
) -> Result<Vec<T>> {
    let all = texts(corpus);
    let what = if kind == "tokens" { "encoding tokens" } else { "encoding" };
    // Encodings are stored a step at a time, so work cut short (cancelled, the app closed or
    // killed) resumes from where it stopped; say so.
    let stored = match cache {
        Some(c) => c.count_stored(model_id, kind, all.iter().map(String::as_str))?,
        None => 0,
    };
    let resumed = match stored {
        0 => String::new(),
        n if n == all.len() => " (all stored)".to_string(),
        n => format!(" ({n} of {} already stored)", all.len()),
    };
    progress.stage(&format!("{what} with {model_id}{resumed}"), all.len() as u64);
    let mut out: Vec<T> = Vec::with_capacity(all.len());
    for chunk in all.chunks(STEP) {
        check_cancel(progress)?;
        let mut found: Vec<Option<T>> = Vec::with_capacity(chunk.len());
        for text in chunk {
            let hit = match cache {
                Some(c) => c.get(model_id, kind, text)?.and_then(|b| decode(&b)),
                None => None,
            };
            found.push(hit);
        }
        let missing: Vec<&str> =
            chunk.iter().zip(&found).filter(|(_, f)| f.is_none()).map(|(t, _)| t.as_str()).collect();
        if !missing.is_empty() {
            let encoded = encode(&missing)?;
            if let Some(c) = cache {
                let items: Vec<(&str, Vec<u8>)> =
                    missing.iter().copied().zip(encoded.iter().map(|(_, b)| b.clone())).collect();
                c.put_many(model_id, kind, &items)?;
            }
            let mut fresh = encoded.into_iter().map(|(v, _)| v);
            for f in found.iter_mut().filter(|f| f.is_none()) {
                *f = fresh.next();
            }
        }
        for f in found {
            out.push(f.ok_or_else(|| Error::Model("an encoding went missing".into()))?);
        }
        progress.advance(chunk.len() as u64);
    }
    Ok(out)
}

/// Encode every document with a dense model; when `with_tokens`, keep its contextual token vectors
/// too (from the same forward pass) for late interaction without a trained ColBERT.
pub fn build_dense(
    corpus: &Corpus,
    encoder: &BertDenseEncoder,
    cache: Option<&EmbeddingCache>,
    with_tokens: bool,
    progress: &dyn Progress,
) -> Result<(DenseIndex, Option<LateIndex>)> {
    let id = TextEncoder::model_id(encoder).to_string();
    let dim = TextEncoder::dim(encoder);
    type Pair = (Vec<f32>, Option<DocTokens>);
    let decode = |b: &[u8]| -> Option<Pair> {
        let n = u32::from_le_bytes(b.get(0..4)?.try_into().ok()?) as usize;
        let dense = bytes_to_f32s(b.get(4..4 + n * 4)?);
        let tokens = if with_tokens { Some(doc_tokens_from_bytes(b.get(4 + n * 4..)?)?.0) } else { None };
        Some((dense, tokens))
    };
    let kind = if with_tokens { "dense+tokens" } else { "dense" };
    let rows = build_cached(corpus, cache, &id, kind, progress, decode, |texts| {
        Ok(encoder
            .encode_both(texts, InputKind::Document)?
            .into_iter()
            .map(|(v, t)| {
                let mut bytes = (v.len() as u32).to_le_bytes().to_vec();
                bytes.extend(f32s_to_bytes(&v));
                if with_tokens {
                    bytes.extend(tokens_to_bytes(&t));
                }
                ((v, with_tokens.then(|| doc_tokens(&t))), bytes)
            })
            .collect())
    })?;
    let mut vectors = Vec::with_capacity(rows.len() * dim);
    let mut late_docs = Vec::new();
    for (v, t) in rows {
        vectors.extend(v);
        if let Some(t) = t {
            late_docs.push(t);
        }
    }
    let late = with_tokens.then(|| LateIndex { model_id: id.clone(), trained: false, dim, docs: late_docs });
    Ok((DenseIndex { model_id: id, dim, vectors }, late))
}

/// Encode every document with a trained late-interaction model.
pub fn build_late(
    corpus: &Corpus,
    encoder: &dyn TokenEncoder,
    cache: Option<&EmbeddingCache>,
    progress: &dyn Progress,
) -> Result<LateIndex> {
    let id = encoder.model_id().to_string();
    let rows = build_cached(corpus, cache, &id, "tokens", progress, doc_tokens_from_bytes, |texts| {
        Ok(encoder
            .encode_tokens(texts, InputKind::Document)?
            .into_iter()
            .map(|t| ((doc_tokens(&t), t.dim), tokens_to_bytes(&t)))
            .collect())
    })?;
    let dim = rows.first().map(|r| r.1).unwrap_or(0);
    Ok(LateIndex {
        model_id: id,
        trained: encoder.trained_late_interaction(),
        dim,
        docs: rows.into_iter().map(|r| r.0).collect(),
    })
}

/// Encode every document with SPLADE and invert the vectors.
pub fn build_splade(
    corpus: &Corpus,
    encoder: &dyn SparseEncoder,
    cache: Option<&EmbeddingCache>,
    progress: &dyn Progress,
) -> Result<SpladeIndex> {
    let id = encoder.model_id().to_string();
    let docs = build_cached(
        corpus,
        cache,
        &id,
        "splade",
        progress,
        |b| Some(sparse_from_bytes(b)),
        |texts| Ok(encoder.encode(texts)?.into_iter().map(|v| (v.clone(), sparse_to_bytes(&v))).collect()),
    )?;
    let mut postings: HashMap<u32, Vec<(DocId, f32)>> = HashMap::new();
    for (d, v) in docs.iter().enumerate() {
        for &(term, w) in &v.terms {
            postings.entry(term).or_default().push((DocId(d as u32), w));
        }
    }
    Ok(SpladeIndex { model_id: id, docs, postings })
}

/// Convenience: shared handles.
pub type SharedDense = Arc<DenseIndex>;

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn token_and_sparse_blobs_round_trip() {
        let t = TokenVectors {
            ids: vec![7, 9],
            tokens: vec!["a".into(), "b".into()],
            positions: vec![1, 2],
            dim: 2,
            data: vec![0.5, -0.25, 1.0, 0.0],
        };
        let (back, dim) = doc_tokens_from_bytes(&tokens_to_bytes(&t)).unwrap();
        assert_eq!(dim, 2);
        assert_eq!(back.ids, [7, 9]);
        assert_eq!(back.data.iter().map(|v| v.to_f32()).collect::<Vec<_>>(), [0.5, -0.25, 1.0, 0.0]);
        assert!(doc_tokens_from_bytes(&[1, 0]).is_none(), "truncated blobs are refused");
        let v = SparseVector { terms: vec![(3, 1.5), (10, 0.25)], sources: vec![3, 4] };
        assert_eq!(sparse_from_bytes(&sparse_to_bytes(&v)), v);
    }
}
