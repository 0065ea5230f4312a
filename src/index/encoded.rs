//! Indexes of neural encodings: dense vectors, SPLADE sparse vectors with an inverted index, and
//! the compressed token index for late interaction ([`super::tokens`]). A document longer than
//! its encoder's window is encoded as several overlapping windows ([`Windows`]); every index holds
//! one row per window, and a document scores by its best window (MaxP). Each index is built in
//! steps with progress and cancellation, reading and writing the [`EmbeddingCache`] so a corpus
//! is encoded once, and a build cut short resumes where it stopped.

use std::collections::HashMap;

use std::path::PathBuf;
use std::sync::Arc;

use rayon::prelude::*;

use super::tokens::{Codec, Residual, RowTokens, SAMPLE_TOKENS, TokenIndex, TokenWriter};
pub use super::windows::{ScoredWindow, Windows};
use crate::corpus::{Corpus, DocId};
use crate::models::{
    BertDenseEncoder, EmbeddingCache, InputKind, SparseEncoder, SparseVector, TextEncoder, TokenEncoder, TokenVectors,
    WindowSpec, bytes_to_f32s, f32s_to_bytes,
};
use crate::progress::{NoProgress, Progress, check_cancel};
use crate::{Error, Result};

/// Documents per encoding step (the unit of progress and of cancellation).
const STEP: usize = 32;

/// One dense vector per row (window).
#[derive(Debug, Clone)]
pub struct DenseIndex {
    /// The model that made the vectors.
    pub model_id: String,
    /// Vector size.
    pub dim: usize,
    /// Row-major rows × dim, L2-normalised rows.
    pub vectors: Vec<f32>,
    /// The window of each row.
    pub windows: Windows,
}

impl DenseIndex {
    /// An index of one vector per document.
    pub fn whole(model_id: String, dim: usize, vectors: Vec<f32>) -> DenseIndex {
        let docs = vectors.len().checked_div(dim).unwrap_or(0);
        DenseIndex { model_id, dim, vectors, windows: Windows::whole(docs) }
    }

    /// Vector of one row.
    pub fn row(&self, row: usize) -> Option<&[f32]> {
        let start = row.checked_mul(self.dim)?;
        self.vectors.get(start..start + self.dim)
    }

    /// Vector of a document's first window (the map places documents by it).
    pub fn vector(&self, doc: DocId) -> Option<&[f32]> {
        self.row(self.windows.rows_of(doc).start).filter(|_| !self.windows.rows_of(doc).is_empty())
    }

    /// Number of documents.
    pub fn len(&self) -> usize {
        self.windows.docs()
    }

    /// True when empty.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }
}

/// SPLADE vectors, one per row (window), and their inverted index.
#[derive(Debug, Clone)]
pub struct SpladeIndex {
    /// The model that made the vectors.
    pub model_id: String,
    /// Per-row vectors (with max-pooling sources).
    pub rows: Vec<SparseVector>,
    /// Vocabulary id → (row, weight), by row.
    pub postings: HashMap<u32, Vec<(u32, f32)>>,
    /// The window of each row.
    pub windows: Windows,
}

/// Where a token index is kept.
#[derive(Debug, Clone, Default)]
pub struct TokenTarget {
    /// Bits per dimension (16 = f16).
    pub bits: u8,
    /// The index file (`None`: in memory).
    pub file: Option<PathBuf>,
    /// Where the f16 index of the same windows would be: when it is there, a compressed index is
    /// made from it without encoding again.
    pub f16_file: Option<PathBuf>,
}

/// Which documents an index covers and how they are cut into windows: every document (what a
/// [`WindowSpec`] converts into), or only those `only` marks (by `DocId` index) — a provisional
/// index over a first stage's candidates, whose rows are the very windows the whole index has.
#[derive(Debug, Clone, Copy, Default)]
pub struct Cut<'a> {
    /// How long documents are cut.
    pub spec: WindowSpec,
    /// The documents to encode (`None`: all).
    pub only: Option<&'a [bool]>,
}

impl From<WindowSpec> for Cut<'_> {
    fn from(spec: WindowSpec) -> Self {
        Cut { spec, only: None }
    }
}

/// An encoder's windows of a text under a spec ([`TextEncoder::windows`]).
type SpansFn<'a> = dyn Fn(&str, WindowSpec) -> Result<Vec<std::ops::Range<usize>>> + Sync + 'a;

impl Cut<'_> {
    fn plan(&self, corpus: &Corpus, spans_of: &SpansFn<'_>, progress: &dyn Progress) -> Result<Windows> {
        let spec = self.spec;
        Windows::plan_only(corpus, self.only, &|t| spans_of(t, spec), progress)
    }
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

/// What encoding one row gave: a vector (dense, SPLADE bytes) and token records.
#[derive(Debug, Default)]
struct Encoded {
    vector: Option<Vec<u8>>,
    tokens: Option<Vec<u8>>,
}

/// The cache kinds a build reads and writes: the row's vector and its token records.
#[derive(Clone, Copy)]
struct Kinds<'a> {
    vector: Option<&'a str>,
    tokens: Option<&'a str>,
}

impl Kinds<'_> {
    fn complete(&self, e: &Encoded) -> bool {
        (self.vector.is_none() || e.vector.is_some()) && (self.tokens.is_none() || e.tokens.is_some())
    }
}

type EncodeFn<'a> = dyn Fn(&[&str]) -> Result<Vec<Encoded>> + 'a;
/// Encodes texts into (the row's vector bytes, its token vectors).
type SampleFn<'a> = dyn Fn(&[&str]) -> Result<Vec<(Option<Vec<u8>>, TokenVectors)>> + 'a;

fn store(cache: Option<&EmbeddingCache>, model_id: &str, kinds: Kinds<'_>, rows: &[(&str, &Encoded)]) -> Result<()> {
    let Some(c) = cache else { return Ok(()) };
    if let Some(k) = kinds.vector {
        let items: Vec<(&str, Vec<u8>)> =
            rows.iter().filter_map(|(t, e)| e.vector.as_ref().map(|v| (*t, v.clone()))).collect();
        c.put_many(model_id, k, &items)?;
    }
    if let Some(k) = kinds.tokens {
        let items: Vec<(&str, Vec<u8>)> =
            rows.iter().filter_map(|(t, e)| e.tokens.as_ref().map(|v| (*t, v.clone()))).collect();
        c.put_many(model_id, k, &items)?;
    }
    Ok(())
}

/// Walk the rows in steps: take what `pre` and the cache hold, encode the rest, store it, and hand
/// every row to `emit` in order. Encodings are stored a step at a time, so work cut short
/// (cancelled, the app closed or killed) resumes from where it stopped, and says so.
#[allow(clippy::too_many_arguments)]
fn encode_rows(
    texts: &[String],
    cache: Option<&EmbeddingCache>,
    model_id: &str,
    kinds: Kinds<'_>,
    mut pre: HashMap<usize, Encoded>,
    what: &str,
    progress: &dyn Progress,
    encode: &EncodeFn<'_>,
    emit: &mut dyn FnMut(Encoded) -> Result<()>,
) -> Result<()> {
    let main = kinds.tokens.or(kinds.vector).unwrap_or("dense");
    let stored = match cache {
        Some(c) => c.count_stored(model_id, main, texts.iter().map(String::as_str))?,
        None => 0,
    };
    let stored = stored.max(pre.len().min(texts.len()));
    let resumed = match stored {
        0 => String::new(),
        n if n == texts.len() => " (all stored)".to_string(),
        n => format!(" ({n} of {} already stored)", texts.len()),
    };
    progress.stage(&format!("{what} with {model_id}{resumed}"), texts.len() as u64);
    for (c, chunk) in texts.chunks(STEP).enumerate() {
        check_cancel(progress)?;
        let mut found: Vec<Encoded> = Vec::with_capacity(chunk.len());
        for (i, text) in chunk.iter().enumerate() {
            let mut e = pre.remove(&(c * STEP + i)).unwrap_or_default();
            if let Some(cache) = cache {
                if let (Some(k), None) = (kinds.vector, &e.vector) {
                    e.vector = cache.get(model_id, k, text)?;
                }
                if let (Some(k), None) = (kinds.tokens, &e.tokens) {
                    e.tokens = cache.get(model_id, k, text)?;
                }
            }
            found.push(e);
        }
        let missing: Vec<usize> = (0..chunk.len()).filter(|&i| !kinds.complete(&found[i])).collect();
        if !missing.is_empty() {
            let refs: Vec<&str> = missing.iter().map(|&i| chunk[i].as_str()).collect();
            let fresh = encode(&refs)?;
            if fresh.len() != missing.len() {
                return Err(Error::Model("an encoding went missing".into()));
            }
            for (&i, e) in missing.iter().zip(fresh) {
                found[i] = e;
            }
            let rows: Vec<(&str, &Encoded)> = missing.iter().map(|&i| (chunk[i].as_str(), &found[i])).collect();
            store(cache, model_id, kinds, &rows)?;
        }
        for e in found {
            if !kinds.complete(&e) {
                return Err(Error::Model("an encoding went missing".into()));
            }
            emit(e)?;
        }
        progress.advance(chunk.len() as u64);
    }
    Ok(())
}

/// Rows in a fixed scattered order (a stride coprime with their number), for sampling.
fn scattered(n: usize) -> impl Iterator<Item = usize> {
    fn gcd(a: usize, b: usize) -> usize {
        if b == 0 { a } else { gcd(b, a % b) }
    }
    let mut p = ((n as f64 * 0.618) as usize).max(1);
    while n > 1 && gcd(p, n) != 1 {
        p += 1;
    }
    (0..n).map(move |i| (i * p) % n.max(1))
}

/// The token codec for these rows: the one a build cut short saved, or learned from a scattered
/// sample of rows (about [`SAMPLE_TOKENS`] token vectors), whose encodings go into `pre` so they
/// are not encoded twice.
///
/// This is the one way a codec is made, whether the index is built as the passages are encoded
/// or compressed later from an f16 index: the sample is the same rows, encoded afresh and rounded
/// to f16 (as the f16 index holds them), so both ways learn the same centroids and buckets, and
/// compress the same f16 values into the same bytes.
/// The encoding cache's kind for codecs (learned from f16-rounded samples; codecs learned before
/// that are not reused).
const CODEC_KIND: &str = "codec-f16";

#[allow(clippy::too_many_arguments)]
fn learn_codec(
    texts: &[String],
    cache: Option<&EmbeddingCache>,
    model_id: &str,
    key: &str,
    bits: u8,
    dim: usize,
    vector_kind: Option<&str>,
    progress: &dyn Progress,
    encode: &SampleFn<'_>,
    pre: &mut HashMap<usize, Encoded>,
) -> Result<Codec> {
    if bits == 16 {
        return Ok(Codec::F16 { dim });
    }
    if let Some(c) = cache
        && let Some(saved) = c.get(model_id, CODEC_KIND, key)?.and_then(|b| Codec::from_bytes(&b))
    {
        return Ok(saved);
    }
    progress.stage("learning the token compression: encoding a sample of the passages", texts.len() as u64);
    let order: Vec<usize> = scattered(texts.len()).collect();
    let (mut sample, mut seen) = (Vec::new(), 0usize);
    let mut encoded: Vec<(usize, Option<Vec<u8>>, TokenVectors)> = Vec::new();
    for chunk in order.chunks(STEP) {
        if seen >= SAMPLE_TOKENS {
            break;
        }
        check_cancel(progress)?;
        let refs: Vec<&str> = chunk.iter().map(|&r| texts[r].as_str()).collect();
        for (&r, (v, mut t)) in chunk.iter().zip(encode(&refs)?) {
            t.round_to_f16();
            seen += t.len();
            sample.extend_from_slice(&t.data);
            encoded.push((r, v, t));
        }
        progress.advance(chunk.len() as u64);
    }
    let codec = if sample.is_empty() {
        Codec::F16 { dim }
    } else {
        Codec::Residual(Residual::train(&sample, dim, bits, progress)?)
    };
    let compressed: Vec<(usize, Encoded)> = encoded
        .into_par_iter()
        .map(|(r, vector, t)| {
            let mut records = Vec::with_capacity(t.len() * codec.record_bytes());
            codec.encode_all(&t, &mut records);
            (r, Encoded { vector, tokens: Some(records) })
        })
        .collect();
    pre.extend(compressed);
    if let Some(c) = cache {
        c.put_many(model_id, CODEC_KIND, &[(key, codec.bytes())])?;
    }
    let tokens_kind = format!("tokens-{}", codec.fingerprint());
    let rows: Vec<(&str, &Encoded)> = pre.iter().map(|(&r, e)| (texts[r].as_str(), e)).collect();
    store(cache, model_id, Kinds { vector: vector_kind, tokens: Some(&tokens_kind) }, &rows)?;
    Ok(codec)
}

/// A token index at `target` already built for these windows by this model, if there is one;
/// else one compressed from the f16 index of the same windows when that is stored.
fn reuse(
    target: &TokenTarget,
    model_id: &str,
    windows: &Windows,
    codec: impl FnOnce() -> Result<Codec>,
    progress: &dyn Progress,
) -> Result<Option<TokenIndex>> {
    let same = |file: &PathBuf| {
        file.is_file()
            .then(|| TokenIndex::open(file).ok())
            .flatten()
            .filter(|i| i.model_id == model_id && i.windows == *windows)
    };
    if let Some(index) = target.file.as_ref().and_then(same) {
        return Ok(Some(index));
    }
    match target.f16_file.as_ref().filter(|_| target.bits != 16).and_then(same) {
        Some(f16) => Ok(Some(recompress(&f16, codec()?, target, progress)?)),
        None => Ok(None),
    }
}

/// A compressed token index made from an f16 one (the vectors as encoded, to half precision),
/// with the codec [`learn_codec`] learns for these rows: the same bytes a build that compresses
/// as it encodes writes.
pub fn recompress(f16: &TokenIndex, codec: Codec, target: &TokenTarget, progress: &dyn Progress) -> Result<TokenIndex> {
    let dim = f16.dim();
    if codec.dim() != dim {
        return Err(Error::Index(format!("the codec is {}-d, the f16 index {dim}-d", codec.dim())));
    }
    let mut w = writer(target, codec.clone())?;
    let total = f16.total_tokens();
    progress.stage(&format!("compressing the token index ({})", codec.describe()), total);
    const CHUNK: u64 = 4096;
    let chunks: Vec<u64> = (0..total.div_ceil(CHUNK)).collect();
    for group in chunks.chunks(64) {
        check_cancel(progress)?;
        let records: Vec<Vec<u8>> = group
            .par_iter()
            .map_init(RowTokens::default, |buf, &c| {
                let range = c * CHUNK..((c + 1) * CHUNK).min(total);
                f16.read_tokens(range, buf)?;
                let mut out = Vec::with_capacity(buf.ids.len() * codec.record_bytes());
                for (i, &id) in buf.ids.iter().enumerate() {
                    codec.encode(id, &buf.data[i * dim..(i + 1) * dim], &mut out);
                }
                Ok(out)
            })
            .collect::<Result<_>>()?;
        for r in &records {
            w.push_tokens(r)?;
        }
        let done = group.last().map_or(0, |&c| ((c + 1) * CHUNK).min(total));
        progress.advance(done.saturating_sub(group.first().map_or(0, |&c| c * CHUNK)));
    }
    w.finish_like(f16)
}

/// Where each kept token of a document's text starts (see [`TokenEncoder::token_starts`]).
type StartsFn<'a> = dyn Fn(&str) -> Result<Vec<Option<usize>>> + 'a;

/// Feeds a [`TokenWriter`] row by row, holding a long document's windows until its last one so
/// that they share their overlap ([`TokenWriter::push_doc`]).
struct DocRows<'a> {
    writer: TokenWriter,
    windows: &'a Windows,
    texts: &'a [String],
    starts_of: &'a StartsFn<'a>,
    row: usize,
    pending: Vec<Vec<u8>>,
}

impl<'a> DocRows<'a> {
    fn new(writer: TokenWriter, windows: &'a Windows, texts: &'a [String], starts_of: &'a StartsFn<'a>) -> Self {
        DocRows { writer, windows, texts, starts_of, row: 0, pending: Vec::new() }
    }

    fn push(&mut self, records: Vec<u8>) -> Result<()> {
        let rows = self.windows.rows_of(self.windows.doc_of(self.row));
        self.row += 1;
        if rows.len() < 2 {
            return self.writer.push_records(&records);
        }
        self.pending.push(records);
        if self.row < rows.end {
            return Ok(());
        }
        let mut starts = Vec::with_capacity(rows.len());
        let mut spans = Vec::with_capacity(rows.len());
        for r in rows {
            starts.push((self.starts_of)(self.texts.get(r).map_or("", String::as_str))?);
            spans.push(self.windows.span(r).unwrap_or(0..0));
        }
        let pending = std::mem::take(&mut self.pending);
        self.writer.push_doc(&pending, &starts, &spans)
    }

    fn finish(self, model_id: &str, trained: bool) -> Result<TokenIndex> {
        self.writer.finish(model_id, trained, self.windows.clone())
    }
}

fn writer(target: &TokenTarget, codec: Codec) -> Result<TokenWriter> {
    match &target.file {
        Some(f) => TokenWriter::to_file(codec, f),
        None => Ok(TokenWriter::in_memory(codec)),
    }
}

/// The cache key of a token codec: the rows it was learned on, and its bits.
fn codec_key(windows_texts: &[String], bits: u8) -> String {
    let mut h = String::with_capacity(windows_texts.len() * 8);
    for t in windows_texts.iter().take(4096) {
        h.push_str(&crate::models::text_hash(t)[..8]);
    }
    format!("{} rows, {bits} bits, {}", windows_texts.len(), crate::models::text_hash(&h))
}

/// Encode every document with a dense model, each window of a long one on its own; when `tokens`
/// is given, keep its contextual token vectors too (from the same forward pass), compressed, for
/// late interaction without a trained ColBERT.
pub fn build_dense<'c>(
    corpus: &Corpus,
    encoder: &BertDenseEncoder,
    cache: Option<&EmbeddingCache>,
    cut: impl Into<Cut<'c>>,
    tokens: Option<&TokenTarget>,
    progress: &dyn Progress,
) -> Result<(DenseIndex, Option<TokenIndex>)> {
    let id = TextEncoder::model_id(encoder).to_string();
    let dim = TextEncoder::dim(encoder);
    let windows = cut.into().plan(corpus, &|t, spec| TextEncoder::windows(encoder, t, spec), progress)?;
    let texts = windows.texts(corpus);
    let both = |refs: &[&str]| -> Result<Vec<(Option<Vec<u8>>, TokenVectors)>> {
        Ok(encoder
            .encode_both(refs, InputKind::Document)?
            .into_iter()
            .map(|(v, t)| (Some(f32s_to_bytes(&v)), t))
            .collect())
    };
    let mut pre = HashMap::new();
    let reused = match tokens {
        Some(t) => {
            let key = codec_key(&texts, t.bits);
            let learn = || learn_codec(&texts, cache, &id, &key, t.bits, dim, Some("dense"), progress, &both, &mut pre);
            reuse(t, &id, &windows, learn, progress)?
        }
        None => None,
    };
    let tokens = tokens.filter(|_| reused.is_none());
    let starts_of = |t: &str| TokenEncoder::token_starts(encoder, t);
    let (codec, mut out) = match tokens {
        Some(target) => {
            let key = codec_key(&texts, target.bits);
            let codec =
                learn_codec(&texts, cache, &id, &key, target.bits, dim, Some("dense"), progress, &both, &mut pre)?;
            let w = writer(target, codec.clone())?;
            (Some(codec), Some(DocRows::new(w, &windows, &texts, &starts_of)))
        }
        None => (None, None),
    };
    let tokens_kind = codec.as_ref().map(|c| format!("tokens-{}", c.fingerprint()));
    let kinds = Kinds { vector: Some("dense"), tokens: tokens_kind.as_deref() };
    let mut vectors = Vec::with_capacity(texts.len() * dim);
    let encode = |refs: &[&str]| -> Result<Vec<Encoded>> {
        match &codec {
            // Compressing (each token's nearest centroid) runs on every core, window by window.
            Some(codec) => Ok(both(refs)?
                .into_par_iter()
                .map(|(vector, mut t)| {
                    // Compressed from f16 values, as an index compressed from the f16 one is.
                    t.round_to_f16();
                    let mut records = Vec::with_capacity(t.len() * codec.record_bytes());
                    codec.encode_all(&t, &mut records);
                    Encoded { vector, tokens: Some(records) }
                })
                .collect()),
            None => Ok(TextEncoder::encode(encoder, refs, InputKind::Document)?
                .into_iter()
                .map(|v| Encoded { vector: Some(f32s_to_bytes(&v)), tokens: None })
                .collect()),
        }
    };
    let mut emit = |e: Encoded| -> Result<()> {
        let v = bytes_to_f32s(e.vector.as_deref().unwrap_or_default());
        if v.len() != dim {
            return Err(Error::Model(format!("a stored vector has {} dimensions, not {dim}", v.len())));
        }
        vectors.extend(v);
        if let (Some(w), Some(t)) = (out.as_mut(), e.tokens) {
            w.push(t)?;
        }
        Ok(())
    };
    encode_rows(&texts, cache, &id, kinds, pre, "encoding", progress, &encode, &mut emit)?;
    let late = match out {
        Some(w) => Some(w.finish(&id, false)?),
        None => reused,
    };
    Ok((DenseIndex { model_id: id, dim, vectors, windows }, late))
}

/// Encode every document's token vectors with a trained late-interaction model, compressed.
pub fn build_late<'c>(
    corpus: &Corpus,
    encoder: &dyn TokenEncoder,
    cache: Option<&EmbeddingCache>,
    cut: impl Into<Cut<'c>>,
    target: &TokenTarget,
    progress: &dyn Progress,
) -> Result<TokenIndex> {
    let id = encoder.model_id().to_string();
    let windows = cut.into().plan(corpus, &|t, spec| encoder.windows(t, spec), progress)?;
    let texts = windows.texts(corpus);
    let tokens = |refs: &[&str]| -> Result<Vec<(Option<Vec<u8>>, TokenVectors)>> {
        Ok(encoder.encode_tokens(refs, InputKind::Document)?.into_iter().map(|t| (None, t)).collect())
    };
    let dim = match texts.first() {
        Some(t) => tokens(&[t.as_str()])?.first().map_or(0, |(_, t)| t.dim),
        None => 0,
    };
    let mut pre = HashMap::new();
    let key = codec_key(&texts, target.bits);
    let learn = || learn_codec(&texts, cache, &id, &key, target.bits, dim, None, progress, &tokens, &mut pre);
    if let Some(index) = reuse(target, &id, &windows, learn, progress)? {
        return Ok(index);
    }
    let codec = learn_codec(&texts, cache, &id, &key, target.bits, dim, None, progress, &tokens, &mut pre)?;
    let kind = format!("tokens-{}", codec.fingerprint());
    let starts_of = |t: &str| encoder.token_starts(t);
    let mut w = DocRows::new(writer(target, codec.clone())?, &windows, &texts, &starts_of);
    let encode = |refs: &[&str]| -> Result<Vec<Encoded>> {
        Ok(tokens(refs)?
            .into_par_iter()
            .map(|(_, mut t)| {
                t.round_to_f16();
                let mut records = Vec::with_capacity(t.len() * codec.record_bytes());
                codec.encode_all(&t, &mut records);
                Encoded { vector: None, tokens: Some(records) }
            })
            .collect())
    };
    let kinds = Kinds { vector: None, tokens: Some(&kind) };
    let mut emit = |e: Encoded| w.push(e.tokens.unwrap_or_default());
    encode_rows(&texts, cache, &id, kinds, pre, "encoding tokens", progress, &encode, &mut emit)?;
    w.finish(&id, encoder.trained_late_interaction())
}

/// Encode every document with SPLADE, each window of a long one on its own, and invert the vectors.
pub fn build_splade<'c>(
    corpus: &Corpus,
    encoder: &dyn SparseEncoder,
    cache: Option<&EmbeddingCache>,
    cut: impl Into<Cut<'c>>,
    progress: &dyn Progress,
) -> Result<SpladeIndex> {
    let id = encoder.model_id().to_string();
    let windows = cut.into().plan(corpus, &|t, spec| encoder.windows(t, spec), progress)?;
    let texts = windows.texts(corpus);
    let encode = |refs: &[&str]| -> Result<Vec<Encoded>> {
        Ok(encoder.encode(refs)?.iter().map(|v| Encoded { vector: Some(sparse_to_bytes(v)), tokens: None }).collect())
    };
    let mut rows = Vec::with_capacity(texts.len());
    let mut emit = |e: Encoded| -> Result<()> {
        rows.push(sparse_from_bytes(e.vector.as_deref().unwrap_or_default()));
        Ok(())
    };
    let kinds = Kinds { vector: Some("splade"), tokens: None };
    encode_rows(&texts, cache, &id, kinds, HashMap::new(), "encoding", progress, &encode, &mut emit)?;
    let mut postings: HashMap<u32, Vec<(u32, f32)>> = HashMap::new();
    for (r, v) in rows.iter().enumerate() {
        for &(term, w) in &v.terms {
            postings.entry(term).or_default().push((r as u32, w));
        }
    }
    Ok(SpladeIndex { model_id: id, rows, postings, windows })
}

/// A token index of texts encoded by `encoder`, in memory and uncompressed (f16) — for tests and
/// small experiments.
pub fn token_index_of(corpus: &Corpus, encoder: &dyn TokenEncoder, bits: u8) -> Result<TokenIndex> {
    build_late(corpus, encoder, None, WindowSpec::default(), &TokenTarget { bits, ..Default::default() }, &NoProgress)
}

/// Convenience: shared handles.
pub type SharedDense = Arc<DenseIndex>;

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sparse_blobs_round_trip() {
        let v = SparseVector { terms: vec![(3, 1.5), (10, 0.25)], sources: vec![3, 4] };
        assert_eq!(sparse_from_bytes(&sparse_to_bytes(&v)), v);
    }

    #[test]
    fn scattered_rows_are_a_permutation() {
        for n in [0, 1, 2, 10, 97, 100, 5183] {
            let mut rows: Vec<usize> = scattered(n).collect();
            rows.sort_unstable();
            assert_eq!(rows, (0..n).collect::<Vec<_>>());
        }
    }
}
