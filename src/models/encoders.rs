//! The encoders, one trait per role, implemented with candle over a BERT backbone.

use std::path::Path;

use candle_core::{D, DType, IndexOp, Module, Tensor};
use candle_nn::{Linear, VarBuilder};
use serde::{Deserialize, Serialize};

use super::bert::{Backbone, Batch, l2_normalize};
use super::manifest::{ArchSettings, ColbertSettings, Pooling};
use super::window_cuts::WindowSpec;
use crate::{Error, Result};
use std::ops::Range;

/// Queries and documents are encoded differently by some models (instructions, markers).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum InputKind {
    /// A question.
    Query,
    /// A passage.
    Document,
}

/// Texts per forward pass.
const BATCH: usize = 16;

/// One vector per text.
pub trait TextEncoder: Send + Sync {
    /// Model id.
    fn model_id(&self) -> &str;
    /// Vector size.
    fn dim(&self) -> usize;
    /// Encode texts (L2-normalised when the model says so).
    fn encode(&self, texts: &[&str], kind: InputKind) -> Result<Vec<Vec<f32>>>;
    /// Byte ranges of the windows a long text is encoded in, one range when it fits (see
    /// [`WindowSpec`]). Encoders with no length limit read every text whole.
    fn windows(&self, text: &str, spec: WindowSpec) -> Result<Vec<Range<usize>>> {
        let _ = spec;
        Ok(std::iter::once(0..text.len()).collect())
    }
    /// Word pieces of text one window holds at most (`None`: no limit).
    fn window_tokens(&self) -> Option<usize> {
        None
    }
    /// The token states the model averages into the text's vector, when its vector is a mean of
    /// them (mean pooling): what splits a cosine exactly over the text's word pieces. `None` for a
    /// model that pools otherwise ([CLS]), and for vectors computed elsewhere.
    fn token_states(&self, text: &str, kind: InputKind) -> Result<Option<TokenStates>> {
        let _ = (text, kind);
        Ok(None)
    }
}

/// The last layer's states of every word piece of one text, before pooling, unnormalised.
#[derive(Debug, Clone, PartialEq)]
pub struct TokenStates {
    /// The word pieces, `[CLS]` and `[SEP]` included.
    pub tokens: Vec<String>,
    /// Where each starts and ends in the text, in bytes (`None` for the special tokens and for an
    /// instruction the model puts before a question).
    pub offsets: Vec<Option<(usize, usize)>>,
    /// Vector size.
    pub dim: usize,
    /// Row-major `tokens.len() × dim`.
    pub data: Vec<f32>,
    /// Whether the model divides the mean by its length (the vector is then a unit vector).
    pub normalized: bool,
}

impl TokenStates {
    /// One token's state.
    pub fn row(&self, i: usize) -> &[f32] {
        &self.data[i * self.dim..(i + 1) * self.dim]
    }
}

/// Per-token vectors of one text.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct TokenVectors {
    /// Vocabulary ids of the word pieces kept, in order.
    pub ids: Vec<u32>,
    /// The word pieces kept, in order.
    pub tokens: Vec<String>,
    /// Each kept token's position in the model input.
    pub positions: Vec<usize>,
    /// Vector size.
    pub dim: usize,
    /// Row-major `tokens.len() × dim`, each row L2-normalised.
    pub data: Vec<f32>,
}

impl TokenVectors {
    /// Round every value to half precision, as an f16 token index stores it: a compressed index
    /// is made from the same values whether it is built from the encoder or from the f16 index.
    pub fn round_to_f16(&mut self) {
        for x in &mut self.data {
            *x = half::f16::from_f32(*x).to_f32();
        }
    }

    /// Number of vectors.
    pub fn len(&self) -> usize {
        self.tokens.len()
    }

    /// True when no token was kept.
    pub fn is_empty(&self) -> bool {
        self.tokens.is_empty()
    }

    /// Row `i`.
    pub fn row(&self, i: usize) -> &[f32] {
        &self.data[i * self.dim..(i + 1) * self.dim]
    }
}

/// One vector per token (late interaction).
pub trait TokenEncoder: Send + Sync {
    /// Model id.
    fn model_id(&self) -> &str;
    /// False when the vectors are a bi-encoder's contextual token states, not a trained ColBERT.
    fn trained_late_interaction(&self) -> bool;
    /// Encode texts into token vectors.
    fn encode_tokens(&self, texts: &[&str], kind: InputKind) -> Result<Vec<TokenVectors>>;
    /// Where each token [`TokenEncoder::encode_tokens`] keeps of a document starts in its text
    /// (bytes; `None` for a token with no place in the text, such as `[CLS]`), so overlapping
    /// windows can share their overlap. Empty when unknown: the windows are then stored whole.
    fn token_starts(&self, text: &str) -> Result<Vec<Option<usize>>> {
        let _ = text;
        Ok(Vec::new())
    }
    /// The vocabulary string of an id.
    fn token(&self, id: u32) -> String;
    /// Byte ranges of the windows a long text is encoded in, one range when it fits (see
    /// [`WindowSpec`]). Encoders with no length limit read every text whole.
    fn windows(&self, text: &str, spec: WindowSpec) -> Result<Vec<Range<usize>>> {
        let _ = spec;
        Ok(std::iter::once(0..text.len()).collect())
    }
    /// Word pieces of text one window holds at most (`None`: no limit).
    fn window_tokens(&self) -> Option<usize> {
        None
    }
}

/// A learned sparse vector over the vocabulary.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct SparseVector {
    /// (vocabulary id, weight), sorted by id, weights > 0.
    pub terms: Vec<(u32, f32)>,
    /// For each term, the input token id whose position gave the maximum (max-pooling argmax).
    pub sources: Vec<u32>,
}

impl SparseVector {
    /// Weight of a vocabulary id (0 when absent).
    pub fn weight(&self, id: u32) -> f32 {
        self.terms.binary_search_by_key(&id, |t| t.0).map(|i| self.terms[i].1).unwrap_or(0.0)
    }

    /// Dot product with another sparse vector (both sorted by id).
    pub fn dot(&self, other: &SparseVector) -> f32 {
        let (mut i, mut j, mut s) = (0, 0, 0.0f32);
        while i < self.terms.len() && j < other.terms.len() {
            let (a, b) = (self.terms[i], other.terms[j]);
            match a.0.cmp(&b.0) {
                std::cmp::Ordering::Less => i += 1,
                std::cmp::Ordering::Greater => j += 1,
                std::cmp::Ordering::Equal => {
                    s += a.1 * b.1;
                    i += 1;
                    j += 1;
                }
            }
        }
        s
    }
}

/// Learned sparse encoding (SPLADE).
pub trait SparseEncoder: Send + Sync {
    /// Model id.
    fn model_id(&self) -> &str;
    /// Encode texts.
    fn encode(&self, texts: &[&str]) -> Result<Vec<SparseVector>>;
    /// The vocabulary string of an id.
    fn term(&self, id: u32) -> String;
    /// The word-piece ids of a text itself (to tell expansion terms from terms in the text).
    fn input_ids(&self, text: &str) -> Result<Vec<u32>>;
    /// Byte ranges of the windows a long text is encoded in, one range when it fits (see
    /// [`WindowSpec`]). Encoders with no length limit read every text whole.
    fn windows(&self, text: &str, spec: WindowSpec) -> Result<Vec<Range<usize>>> {
        let _ = spec;
        Ok(std::iter::once(0..text.len()).collect())
    }
    /// Word pieces of text one window holds at most (`None`: no limit).
    fn window_tokens(&self) -> Option<usize> {
        None
    }
}

/// Scores (query, passage) pairs jointly (cross-encoder).
pub trait PairScorer: Send + Sync {
    /// Model id.
    fn model_id(&self) -> &str;
    /// One relevance logit per passage.
    fn score(&self, query: &str, docs: &[&str]) -> Result<Vec<f32>>;
}

/// Run `f` over texts in length-sorted batches and return results in input order.
fn batched<T>(
    backbone: &Backbone,
    texts: &[&str],
    prepare: impl Fn(&str) -> Result<tokenizers::Encoding>,
    mut f: impl FnMut(&Batch, &Tensor, &Tensor) -> Result<Vec<T>>,
) -> Result<Vec<T>> {
    let encodings: Vec<tokenizers::Encoding> = texts.iter().map(|t| prepare(t)).collect::<Result<_>>()?;
    let mut order: Vec<usize> = (0..texts.len()).collect();
    order.sort_by_key(|&i| encodings[i].len());
    let mut out: Vec<Option<T>> = (0..texts.len()).map(|_| None).collect();
    for chunk in order.chunks(BATCH) {
        let mut batch = Batch::default();
        for &i in chunk {
            batch.push(&encodings[i]);
        }
        let (hidden, mask) = backbone.forward(&batch)?;
        for (&i, r) in chunk.iter().zip(f(&batch, &hidden, &mask)?) {
            out[i] = Some(r);
        }
    }
    out.into_iter().map(|o| o.ok_or_else(|| Error::Model("a batch lost an input".into()))).collect()
}

/// A sentence-embedding model (MiniLM, bge): pooled vectors, and its contextual token vectors for
/// late interaction when no trained ColBERT is available.
pub struct BertDenseEncoder {
    id: String,
    arch: ArchSettings,
    backbone: Backbone,
}

impl BertDenseEncoder {
    /// Load from a model folder.
    pub fn load(id: &str, dir: &Path, arch: &ArchSettings) -> Result<Self> {
        let (backbone, _) = Backbone::load(dir, arch.max_length, arch.precision)?;
        Ok(Self { id: id.to_string(), arch: arch.clone(), backbone })
    }

    fn prepare(&self, text: &str, kind: InputKind) -> Result<tokenizers::Encoding> {
        match (&self.arch.query_instruction, kind) {
            (Some(prefix), InputKind::Query) => self.backbone.encode(&format!("{prefix}{text}")),
            _ => self.backbone.encode(text),
        }
    }

    /// Whether a token's vector is kept for late interaction: not padding, not `[CLS]` or
    /// `[SEP]`, and in a document not punctuation (as ColBERT masks it).
    fn keeps(tok: &str, mask: u32, kind: InputKind) -> bool {
        let special = tok == "[CLS]" || tok == "[SEP]" || tok == "[PAD]";
        mask != 0 && !special && !(kind == InputKind::Document && is_punctuation(tok))
    }

    /// Pooled vectors and token vectors from one forward pass.
    pub fn encode_both(&self, texts: &[&str], kind: InputKind) -> Result<Vec<(Vec<f32>, TokenVectors)>> {
        let pooling = self.arch.pooling.unwrap_or(Pooling::Mean);
        batched(
            &self.backbone,
            texts,
            |t| self.prepare(t, kind),
            |batch, hidden, mask| {
                let pooled = match pooling {
                    Pooling::Cls => hidden.i((.., 0, ..))?.contiguous()?,
                    Pooling::Mean => {
                        let m = mask.unsqueeze(2)?;
                        let sum = hidden.broadcast_mul(&m)?.sum(1)?;
                        sum.broadcast_div(&m.sum(1)?.clamp(1e-9, f64::MAX)?)?
                    }
                };
                let pooled = if self.arch.normalize { l2_normalize(&pooled)? } else { pooled };
                let pooled: Vec<Vec<f32>> = pooled.to_vec2()?;
                let tokens = l2_normalize(hidden)?;
                let mut out = Vec::with_capacity(batch.ids.len());
                for (b, p) in pooled.into_iter().enumerate() {
                    let rows: Vec<Vec<f32>> = tokens.i(b)?.to_vec2()?;
                    let mut tv = TokenVectors {
                        ids: Vec::new(),
                        tokens: Vec::new(),
                        positions: Vec::new(),
                        dim: hidden.dim(2)?,
                        data: Vec::new(),
                    };
                    for (pos, &id) in batch.ids[b].iter().enumerate() {
                        let tok = self.backbone.token(id);
                        if !Self::keeps(&tok, batch.mask[b][pos], kind) {
                            continue;
                        }
                        tv.ids.push(id);
                        tv.tokens.push(tok);
                        tv.positions.push(pos);
                        tv.data.extend_from_slice(&rows[pos]);
                    }
                    out.push((p, tv));
                }
                Ok(out)
            },
        )
    }
}

fn is_punctuation(token: &str) -> bool {
    let mut chars = token.chars();
    matches!((chars.next(), chars.next()), (Some(c), None) if c.is_ascii_punctuation())
}

impl TextEncoder for BertDenseEncoder {
    fn model_id(&self) -> &str {
        &self.id
    }
    fn dim(&self) -> usize {
        self.backbone.config.hidden_size
    }
    fn windows(&self, text: &str, spec: WindowSpec) -> Result<Vec<Range<usize>>> {
        self.backbone.windows(text, self.backbone.max_length.saturating_sub(2), spec)
    }
    fn window_tokens(&self) -> Option<usize> {
        Some(self.backbone.max_length.saturating_sub(2))
    }
    fn token_states(&self, text: &str, kind: InputKind) -> Result<Option<TokenStates>> {
        if self.arch.pooling.unwrap_or(Pooling::Mean) != Pooling::Mean {
            return Ok(None);
        }
        let encoding = self.prepare(text, kind)?;
        // An instruction put before a question shifts its offsets: they are mapped back onto the
        // question, and the instruction's own pieces have none.
        let shift = match (&self.arch.query_instruction, kind) {
            (Some(prefix), InputKind::Query) => prefix.len(),
            _ => 0,
        };
        let mut batch = Batch::default();
        batch.push(&encoding);
        let (hidden, mask) = self.backbone.forward(&batch)?;
        let rows: Vec<Vec<f32>> = hidden.i(0)?.to_vec2()?;
        let mask: Vec<f32> = mask.i(0)?.to_vec1()?;
        let special = encoding.get_special_tokens_mask();
        let mut states = TokenStates {
            tokens: Vec::new(),
            offsets: Vec::new(),
            dim: hidden.dim(2)?,
            data: Vec::new(),
            normalized: self.arch.normalize,
        };
        for (pos, (&id, &(start, end))) in encoding.get_ids().iter().zip(encoding.get_offsets()).enumerate() {
            if mask.get(pos).copied().unwrap_or(0.0) == 0.0 {
                continue;
            }
            states.tokens.push(self.backbone.token(id));
            let real = special.get(pos) == Some(&0) && start >= shift && end > start;
            states.offsets.push(real.then(|| (start - shift, end - shift)));
            states.data.extend_from_slice(&rows[pos]);
        }
        Ok(Some(states))
    }

    fn encode(&self, texts: &[&str], kind: InputKind) -> Result<Vec<Vec<f32>>> {
        let pooling = self.arch.pooling.unwrap_or(Pooling::Mean);
        batched(
            &self.backbone,
            texts,
            |t| self.prepare(t, kind),
            |_, hidden, mask| {
                let pooled = match pooling {
                    Pooling::Cls => hidden.i((.., 0, ..))?.contiguous()?,
                    Pooling::Mean => {
                        let m = mask.unsqueeze(2)?;
                        hidden.broadcast_mul(&m)?.sum(1)?.broadcast_div(&m.sum(1)?.clamp(1e-9, f64::MAX)?)?
                    }
                };
                let pooled = if self.arch.normalize { l2_normalize(&pooled)? } else { pooled };
                Ok(pooled.to_vec2()?)
            },
        )
    }
}

impl TokenEncoder for BertDenseEncoder {
    fn model_id(&self) -> &str {
        &self.id
    }
    fn trained_late_interaction(&self) -> bool {
        false
    }
    fn encode_tokens(&self, texts: &[&str], kind: InputKind) -> Result<Vec<TokenVectors>> {
        Ok(self.encode_both(texts, kind)?.into_iter().map(|(_, t)| t).collect())
    }
    fn token_starts(&self, text: &str) -> Result<Vec<Option<usize>>> {
        let e = self.prepare(text, InputKind::Document)?;
        let mask = e.get_attention_mask();
        Ok(e.get_ids()
            .iter()
            .zip(e.get_offsets())
            .enumerate()
            .filter(|&(pos, (&id, _))| Self::keeps(&self.backbone.token(id), mask[pos], InputKind::Document))
            .map(|(_, (_, o))| Some(o.0))
            .collect())
    }
    fn windows(&self, text: &str, spec: WindowSpec) -> Result<Vec<Range<usize>>> {
        self.backbone.windows(text, self.backbone.max_length.saturating_sub(2), spec)
    }
    fn window_tokens(&self) -> Option<usize> {
        Some(self.backbone.max_length.saturating_sub(2))
    }
    fn token(&self, id: u32) -> String {
        self.backbone.token(id)
    }
}

/// SPLADE: log(1 + ReLU(MLM logits)), max-pooled over the input tokens.
pub struct BertSpladeEncoder {
    id: String,
    backbone: Backbone,
    transform: Linear,
    layer_norm: candle_nn::LayerNorm,
    /// [vocab, hidden]: the decoder, tied to the word embeddings when the checkpoint has no
    /// separate one.
    decoder: Tensor,
    bias: Tensor,
    /// The decoder in bf16 or int16 with its bias, when the backbone runs that kernel: the
    /// vocabulary projection is most of splade-tiny's arithmetic, so it runs in the backbone's
    /// precision.
    decoder_lowered: Option<(LoweredDecoder, Vec<f32>)>,
}

/// The SPLADE decoder packed for the backbone's kernel.
enum LoweredDecoder {
    Bf16(super::precision::PackedBf16),
    Int16(super::int16::PackedInt16),
}

fn first_tensor(vb: &VarBuilder, names: &[&str], shape: (usize, usize)) -> Result<Tensor> {
    for n in names {
        if vb.contains_tensor(n) {
            return Ok(vb.get(shape, n)?);
        }
    }
    Err(Error::Model(format!("none of {names:?} in the checkpoint")))
}

impl BertSpladeEncoder {
    /// Load from a model folder (BertForMaskedLM layout; gamma/beta LayerNorm names accepted).
    pub fn load(id: &str, dir: &Path, arch: &ArchSettings) -> Result<Self> {
        let (backbone, vb) = Backbone::load(dir, arch.max_length, arch.precision)?;
        let (h, v) = (backbone.config.hidden_size, backbone.config.vocab_size);
        let head = vb.pp("cls.predictions");
        let transform = candle_nn::linear(h, h, head.pp("transform.dense"))?;
        let layer_norm = candle_nn::layer_norm(h, backbone.config.layer_norm_eps, head.pp("transform.LayerNorm"))?;
        let decoder = first_tensor(
            &vb,
            &[
                "cls.predictions.decoder.weight",
                "bert.embeddings.word_embeddings.weight",
                "embeddings.word_embeddings.weight",
            ],
            (v, h),
        )?;
        let bias = if head.contains_tensor("bias") { head.get(v, "bias")? } else { head.get(v, "decoder.bias")? };
        use super::fast_bert::Kernels;
        let decoder_lowered = match backbone.model.kernels() {
            Kernels::Bf16 => {
                let w: Vec<f32> = decoder.flatten_all()?.to_vec1()?;
                Some((LoweredDecoder::Bf16(super::precision::PackedBf16::pack(&w, v, h)?), bias.to_vec1()?))
            }
            Kernels::Int16 => {
                let w: Vec<f32> = decoder.flatten_all()?.to_vec1()?;
                Some((LoweredDecoder::Int16(super::int16::PackedInt16::pack(&w, v, h)?), bias.to_vec1()?))
            }
            Kernels::F32 | Kernels::Bf16Portable => None,
        };
        Ok(Self { id: id.to_string(), backbone, transform, layer_norm, decoder, bias, decoder_lowered })
    }
}

impl SparseEncoder for BertSpladeEncoder {
    fn model_id(&self) -> &str {
        &self.id
    }

    fn encode(&self, texts: &[&str]) -> Result<Vec<SparseVector>> {
        batched(
            &self.backbone,
            texts,
            |t| self.backbone.encode(t),
            |batch, hidden, _| {
                let mut out = Vec::with_capacity(batch.ids.len());
                for (b, ids) in batch.ids.iter().enumerate() {
                    // Only this input's real tokens: no padding rows enter the max.
                    let x = hidden.i((b, 0..ids.len(), ..))?;
                    let x = self.transform.forward(&x)?.gelu_erf()?;
                    let x = self.layer_norm.forward(&x)?;
                    // log(1 + ReLU(x)) is non-decreasing, so its maximum over tokens is the
                    // transform of the largest logit: no activation tensor. In bf16 and int16 the
                    // kernel keeps each column's maximum as it goes, never writing the tokens ×
                    // vocabulary logits; in f32 they are scanned once.
                    let (max, arg): (Vec<f32>, Vec<u32>) = match &self.decoder_lowered {
                        Some((LoweredDecoder::Bf16(w), bias)) => {
                            let x: Vec<f32> = x.flatten_all()?.to_vec1()?;
                            super::precision::column_max_bf16(&x, ids.len(), w, bias)?
                        }
                        Some((LoweredDecoder::Int16(w), bias)) => {
                            let x: Vec<f32> = x.flatten_all()?.to_vec1()?;
                            super::int16::column_max_int16(&x, ids.len(), w, bias)?
                        }
                        None => {
                            let logits = x.matmul(&self.decoder.t()?)?.broadcast_add(&self.bias)?;
                            let flat: Vec<f32> = logits.flatten_all()?.to_vec1()?;
                            let vocab = self.bias.dim(0)?;
                            let (mut max, mut arg) = (vec![f32::NEG_INFINITY; vocab], vec![0u32; vocab]);
                            for (pos, row) in flat.chunks_exact(vocab).enumerate() {
                                for (id, &x) in row.iter().enumerate() {
                                    if x > max[id] {
                                        max[id] = x;
                                        arg[id] = pos as u32;
                                    }
                                }
                            }
                            (max, arg)
                        }
                    };
                    let mut v = SparseVector::default();
                    for (id, &m) in max.iter().enumerate() {
                        let w = (m.max(0.0) + 1.0).ln();
                        if w > 0.0 {
                            v.terms.push((id as u32, w));
                            v.sources.push(ids.get(arg[id] as usize).copied().unwrap_or(0));
                        }
                    }
                    out.push(v);
                }
                Ok(out)
            },
        )
    }

    fn term(&self, id: u32) -> String {
        self.backbone.token(id)
    }

    fn input_ids(&self, text: &str) -> Result<Vec<u32>> {
        Ok(self.backbone.encode(text)?.get_ids().to_vec())
    }
    fn windows(&self, text: &str, spec: WindowSpec) -> Result<Vec<Range<usize>>> {
        self.backbone.windows(text, self.backbone.max_length.saturating_sub(2), spec)
    }
    fn window_tokens(&self) -> Option<usize> {
        Some(self.backbone.max_length.saturating_sub(2))
    }
}

/// A trained ColBERT: [Q]/[D] markers, query augmentation with [MASK], linear projection.
pub struct ColbertEncoder {
    id: String,
    backbone: Backbone,
    settings: ColbertSettings,
    projection: Linear,
    ids: ColbertIds,
}

#[derive(Debug, Clone, Copy)]
struct ColbertIds {
    query_marker: u32,
    doc_marker: u32,
    mask: u32,
    cls: u32,
    sep: u32,
}

impl ColbertEncoder {
    /// Load from a model folder: BERT weights plus `linear.weight` (colbert-ai layout) or
    /// `1_Dense/model.safetensors` (PyLate layout).
    pub fn load(id: &str, dir: &Path, arch: &ArchSettings) -> Result<Self> {
        let settings = arch.colbert.clone().ok_or_else(|| Error::Model(format!("{id}: no ColBERT settings")))?;
        let (backbone, vb) = Backbone::load(dir, settings.doc_length.max(settings.query_length), arch.precision)?;
        let h = backbone.config.hidden_size;
        let projection = if vb.contains_tensor("linear.weight") {
            candle_nn::linear_no_bias(h, settings.projection_dim, vb.pp("linear"))?
        } else {
            let dense = super::bert::load_weights(&dir.join("1_Dense"), &backbone.device)?;
            candle_nn::linear_no_bias(h, settings.projection_dim, dense.pp("linear"))?
        };
        let tok = |t: &str| {
            backbone.tokenizer.token_to_id(t).ok_or_else(|| Error::Model(format!("{id}: the vocabulary has no {t}")))
        };
        let ids = ColbertIds {
            query_marker: tok(&settings.query_marker)?,
            doc_marker: tok(&settings.doc_marker)?,
            mask: tok("[MASK]")?,
            cls: tok("[CLS]")?,
            sep: tok("[SEP]")?,
        };
        Ok(Self { id: id.to_string(), backbone, settings, projection, ids })
    }

    /// Token ids and attention mask as ColBERT builds them: [CLS] marker tokens… [SEP], queries
    /// padded with [MASK] (not attended to) up to the query length.
    pub fn input(&self, text: &str, kind: InputKind) -> Result<(Vec<u32>, Vec<u32>)> {
        self.input_at(text, kind).map(|(ids, mask, _)| (ids, mask))
    }

    /// Whether a document token's vector is kept (ColBERT masks punctuation when set to).
    fn keeps(&self, tok: &str, kind: InputKind) -> bool {
        !(kind == InputKind::Document && self.settings.mask_punctuation && is_punctuation(tok))
    }

    /// [`ColbertEncoder::input`] with where each input token starts in the text (`None` for the
    /// added ones).
    fn input_at(&self, text: &str, kind: InputKind) -> Result<ColbertInput> {
        let enc = self.backbone.tokenizer.encode(text, false).map_err(|e| Error::caused("model: tokenizer", e))?;
        let (limit, marker) = match kind {
            InputKind::Query => (self.settings.query_length, self.ids.query_marker),
            InputKind::Document => (self.settings.doc_length, self.ids.doc_marker),
        };
        let body: Vec<u32> = enc.get_ids().iter().copied().take(limit.saturating_sub(3)).collect();
        let mut starts = vec![None, None];
        starts.extend(enc.get_offsets().iter().take(body.len()).map(|o| Some(o.0)));
        let mut ids = vec![self.ids.cls, marker];
        ids.extend(body);
        ids.push(self.ids.sep);
        starts.push(None);
        let mut mask = vec![1u32; ids.len()];
        if kind == InputKind::Query {
            while ids.len() < self.settings.query_length {
                ids.push(self.ids.mask);
                mask.push(0);
                starts.push(None);
            }
        }
        Ok((ids, mask, starts))
    }
}

/// ColBERT's input ids, attention mask, and where each token starts in the text.
type ColbertInput = (Vec<u32>, Vec<u32>, Vec<Option<usize>>);

impl TokenEncoder for ColbertEncoder {
    fn model_id(&self) -> &str {
        &self.id
    }

    fn trained_late_interaction(&self) -> bool {
        true
    }

    fn token(&self, id: u32) -> String {
        self.backbone.token(id)
    }

    fn windows(&self, text: &str, spec: WindowSpec) -> Result<Vec<Range<usize>>> {
        self.backbone.windows(text, self.settings.doc_length.saturating_sub(3), spec)
    }

    fn window_tokens(&self) -> Option<usize> {
        Some(self.settings.doc_length.saturating_sub(3))
    }

    fn token_starts(&self, text: &str) -> Result<Vec<Option<usize>>> {
        let (ids, _, starts) = self.input_at(text, InputKind::Document)?;
        Ok(ids
            .iter()
            .zip(starts)
            .filter(|(id, _)| self.keeps(&self.backbone.token(**id), InputKind::Document))
            .map(|(_, s)| s)
            .collect())
    }

    fn encode_tokens(&self, texts: &[&str], kind: InputKind) -> Result<Vec<TokenVectors>> {
        let mut out = Vec::with_capacity(texts.len());
        for chunk in texts.chunks(BATCH) {
            let mut batch = Batch::default();
            for t in chunk {
                let (ids, mask) = self.input(t, kind)?;
                batch.type_ids.push(vec![0; ids.len()]);
                batch.ids.push(ids);
                batch.mask.push(mask);
            }
            let (hidden, _) = self.backbone.forward(&batch)?;
            let projected = l2_normalize(&self.projection.forward(&hidden)?)?;
            for (b, ids) in batch.ids.iter().enumerate() {
                let rows: Vec<Vec<f32>> = projected.i(b)?.to_vec2()?;
                let mut tv = TokenVectors {
                    ids: Vec::new(),
                    tokens: Vec::new(),
                    positions: Vec::new(),
                    dim: self.settings.projection_dim,
                    data: Vec::new(),
                };
                for (pos, &id) in ids.iter().enumerate() {
                    let tok = self.backbone.token(id);
                    if !self.keeps(&tok, kind) {
                        continue;
                    }
                    tv.ids.push(id);
                    tv.tokens.push(tok);
                    tv.positions.push(pos);
                    tv.data.extend_from_slice(&rows[pos]);
                }
                out.push(tv);
            }
        }
        Ok(out)
    }
}

/// A cross-encoder: [CLS] query [SEP] passage [SEP] → pooler (dense + tanh on [CLS]) → one logit.
pub struct BertCrossEncoder {
    id: String,
    backbone: Backbone,
    pooler: Linear,
    classifier: Linear,
}

impl BertCrossEncoder {
    /// Load from a model folder (BertForSequenceClassification layout).
    pub fn load(id: &str, dir: &Path, arch: &ArchSettings) -> Result<Self> {
        let (backbone, vb) = Backbone::load(dir, arch.max_length, arch.precision)?;
        let h = backbone.config.hidden_size;
        let root = if vb.contains_tensor("bert.pooler.dense.weight") { vb.pp("bert") } else { vb.clone() };
        let pooler = candle_nn::linear(h, h, root.pp("pooler.dense"))?;
        let classifier = candle_nn::linear(h, 1, vb.pp("classifier"))?;
        Ok(Self { id: id.to_string(), backbone, pooler, classifier })
    }
}

impl PairScorer for BertCrossEncoder {
    fn model_id(&self) -> &str {
        &self.id
    }

    fn score(&self, query: &str, docs: &[&str]) -> Result<Vec<f32>> {
        batched(
            &self.backbone,
            docs,
            |d| self.backbone.encode_pair(query, d),
            |_, hidden, _| {
                let cls = hidden.i((.., 0, ..))?.contiguous()?;
                let pooled = self.pooler.forward(&cls)?.tanh()?;
                let logits = self.classifier.forward(&pooled)?.squeeze(D::Minus1)?.to_dtype(DType::F32)?;
                Ok(logits.to_vec1()?)
            },
        )
    }
}
