//! A BERT encoder forward pass for the CPU, written for speed: the same arithmetic as candle's
//! `BertModel` (and the reference implementations), arranged so little of it is wasted.
//!
//! - **No padding.** A batch's sequences are packed one after another: the dense layers multiply
//!   only real tokens, and attention runs per sequence over its own length, so a batch of short
//!   and long passages costs what its tokens cost (a padded batch costs `batch × longest`).
//! - **Matrix products in `gemm`** on the packed rows, with the weights read in place through
//!   strides (no transposed copies); the query, key and value projections are one product.
//! - **Fused, vectorisable element-wise work**: bias + GELU, residual + LayerNorm, a softmax over
//!   each attention row, each in one pass, spread over the threads by rows.
//! - **Attention per (sequence, head)** in parallel, each a pair of small products.
//!
//! Results do not depend on the thread count: work is split by rows, sequences and heads, never
//! inside a sum.

use candle_nn::VarBuilder;
use rayon::prelude::*;

use super::int16::{PackedInt16, linear_int16};
use super::precision::{PackedBf16, Precision, from_bf16, linear_bf16, to_bf16};
use crate::{Error, Result};

/// How the linear layers multiply (see [`super::precision`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Kernels {
    /// f32 products (gemm).
    F32,
    /// bf16 products, f32 sums, with AVX512-BF16.
    Bf16,
    /// The same bf16 rounding on any CPU: inputs and weights rounded to bf16, their exact
    /// products summed in f32 by gemm. What bf16 does to a model, shown where the instruction
    /// is missing (no faster than f32).
    Bf16Portable,
    /// 16-bit integer products summed in i32, with AVX2 ([`super::int16`]).
    Int16,
}

/// The activation of the feed-forward layers.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Act {
    /// x·Φ(x) with the exact error function (BERT's `gelu`).
    GeluErf,
    /// The tanh approximation (`gelu_new`, `gelu_pytorch_tanh`).
    GeluTanh,
    /// max(0, x).
    Relu,
}

struct Layer {
    /// Query, key and value weights stacked: (3h) rows of h.
    qkv_w: Vec<f32>,
    qkv_b: Vec<f32>,
    out_w: Vec<f32>,
    out_b: Vec<f32>,
    ln1_g: Vec<f32>,
    ln1_b: Vec<f32>,
    inter_w: Vec<f32>,
    inter_b: Vec<f32>,
    ffn_w: Vec<f32>,
    ffn_b: Vec<f32>,
    ln2_g: Vec<f32>,
    ln2_b: Vec<f32>,
    /// The four products' weights in bf16 or 16-bit integers, when the kernels are those.
    lowered: Lowered,
}

/// A layer's four products' weights in a lower precision, as each kernel reads them.
enum Lowered {
    /// f32 kernels: none.
    None,
    /// Quantised and packed for the int16 kernel.
    Int16(Box<[PackedInt16; 4]>),
    /// Packed for the AVX512-BF16 kernel.
    Bf16(Box<[PackedBf16; 4]>),
    /// Rounded to bf16 and kept as f32 values (which hold every bf16 exactly), for gemm.
    Bf16Rounded(Box<[Vec<f32>; 4]>),
}

/// A BERT encoder's weights in plain row-major arrays.
pub struct FastBert {
    hidden: usize,
    heads: usize,
    inter: usize,
    eps: f32,
    act: Act,
    vocab: usize,
    max_pos: usize,
    types: usize,
    word: Vec<f32>,
    pos: Vec<f32>,
    typ: Vec<f32>,
    emb_g: Vec<f32>,
    emb_b: Vec<f32>,
    layers: Vec<Layer>,
    kernels: Kernels,
}

fn tensor(vb: &VarBuilder<'_>, shape: &[usize], name: &str) -> Result<Vec<f32>> {
    let t = vb.get(shape, name).map_err(|e| Error::caused(format!("model: weight {name}"), e))?;
    Ok(t.flatten_all()?.to_vec1::<f32>()?)
}

/// A DistilBERT `config.json` (`dim`, `n_layers`, `n_heads`, `hidden_dim`, `activation`) read
/// into BERT's configuration, which names the same sizes otherwise; its LayerNorms use 1e-12.
pub fn distilbert_config(json: &serde_json::Value) -> Result<candle_transformers::models::bert::Config> {
    let get = |k: &str| json.get(k).cloned().ok_or_else(|| Error::Model(format!("config.json: no `{k}`")));
    let act = match json.get("activation").and_then(|a| a.as_str()).unwrap_or("gelu") {
        "relu" => "relu",
        "gelu_new" | "gelu_pytorch_tanh" => "geluapproximate",
        _ => "gelu",
    };
    let bert = serde_json::json!({
        "vocab_size": get("vocab_size")?,
        "hidden_size": get("dim")?,
        "num_hidden_layers": get("n_layers")?,
        "num_attention_heads": get("n_heads")?,
        "intermediate_size": get("hidden_dim")?,
        "hidden_act": act,
        "hidden_dropout_prob": 0.1,
        "max_position_embeddings": get("max_position_embeddings")?,
        "type_vocab_size": 1,
        "initializer_range": 0.02,
        "layer_norm_eps": 1e-12,
        "pad_token_id": 0,
    });
    serde_json::from_value(bert).map_err(|e| Error::Model(format!("config.json of a DistilBERT model: {e}")))
}

/// A LayerNorm's scale and shift, under either naming (`weight`/`bias` or `gamma`/`beta`).
fn layer_norm(vb: &VarBuilder<'_>, h: usize, at: &str) -> Result<(Vec<f32>, Vec<f32>)> {
    if vb.contains_tensor(&format!("{at}.weight")) {
        Ok((tensor(vb, &[h], &format!("{at}.weight"))?, tensor(vb, &[h], &format!("{at}.bias"))?))
    } else {
        Ok((tensor(vb, &[h], &format!("{at}.gamma"))?, tensor(vb, &[h], &format!("{at}.beta"))?))
    }
}

/// Where an encoder's tensors are, by name: BERT's layout or DistilBERT's (the same network with
/// other names, and no token-type table).
struct Names {
    /// The prefix of the encoder's tensors when a head is saved with it.
    wrapper: &'static str,
    word: &'static str,
    pos: &'static str,
    /// The token-type table (DistilBERT has none: every token is of type 0, adding nothing).
    typ: Option<&'static str>,
    emb_ln: &'static str,
    layer: &'static str,
    query: &'static str,
    key: &'static str,
    value: &'static str,
    out: &'static str,
    ln1: &'static str,
    inter: &'static str,
    ffn: &'static str,
    ln2: &'static str,
}

const BERT: Names = Names {
    wrapper: "bert",
    word: "embeddings.word_embeddings",
    pos: "embeddings.position_embeddings",
    typ: Some("embeddings.token_type_embeddings"),
    emb_ln: "embeddings.LayerNorm",
    layer: "encoder.layer",
    query: "attention.self.query",
    key: "attention.self.key",
    value: "attention.self.value",
    out: "attention.output.dense",
    ln1: "attention.output.LayerNorm",
    inter: "intermediate.dense",
    ffn: "output.dense",
    ln2: "output.LayerNorm",
};

const DISTILBERT: Names = Names {
    wrapper: "distilbert",
    word: "embeddings.word_embeddings",
    pos: "embeddings.position_embeddings",
    typ: None,
    emb_ln: "embeddings.LayerNorm",
    layer: "transformer.layer",
    query: "attention.q_lin",
    key: "attention.k_lin",
    value: "attention.v_lin",
    out: "attention.out_lin",
    ln1: "sa_layer_norm",
    inter: "ffn.lin1",
    ffn: "ffn.lin2",
    ln2: "output_layer_norm",
};

impl FastBert {
    /// Read the encoder's weights (bare names or under `bert.`) for a configuration.
    pub fn load(vb: &VarBuilder<'_>, cfg: &candle_transformers::models::bert::Config) -> Result<FastBert> {
        Self::load_named(vb, cfg, &BERT)
    }

    /// Read a DistilBERT encoder's weights (bare names or under `distilbert.`): the same network as
    /// BERT's with six layers, other names and no token types. `cfg` is the DistilBERT
    /// configuration read into BERT's fields ([`distilbert_config`]).
    pub fn load_distilbert(vb: &VarBuilder<'_>, cfg: &candle_transformers::models::bert::Config) -> Result<FastBert> {
        Self::load_named(vb, cfg, &DISTILBERT)
    }

    fn load_named(vb: &VarBuilder<'_>, cfg: &candle_transformers::models::bert::Config, n: &Names) -> Result<FastBert> {
        let bare = vb.contains_tensor(&format!("{}.weight", n.word));
        let vb = if bare { vb.clone() } else { vb.pp(n.wrapper) };
        let (h, i) = (cfg.hidden_size, cfg.intermediate_size);
        if cfg.num_attention_heads == 0 || h % cfg.num_attention_heads != 0 {
            return Err(Error::Model(format!("{h} hidden units do not split into {} heads", cfg.num_attention_heads)));
        }
        use candle_transformers::models::bert::HiddenAct;
        let act = match cfg.hidden_act {
            HiddenAct::Gelu => Act::GeluErf,
            HiddenAct::GeluApproximate => Act::GeluTanh,
            HiddenAct::Relu => Act::Relu,
        };
        let (emb_g, emb_b) = layer_norm(&vb, h, n.emb_ln)?;
        let mut layers = Vec::with_capacity(cfg.num_hidden_layers);
        for l in 0..cfg.num_hidden_layers {
            let p = format!("{}.{l}", n.layer);
            let mut qkv_w = Vec::with_capacity(3 * h * h);
            let mut qkv_b = Vec::with_capacity(3 * h);
            for part in [n.query, n.key, n.value] {
                qkv_w.extend(tensor(&vb, &[h, h], &format!("{p}.{part}.weight"))?);
                qkv_b.extend(tensor(&vb, &[h], &format!("{p}.{part}.bias"))?);
            }
            let (ln1_g, ln1_b) = layer_norm(&vb, h, &format!("{p}.{}", n.ln1))?;
            let (ln2_g, ln2_b) = layer_norm(&vb, h, &format!("{p}.{}", n.ln2))?;
            layers.push(Layer {
                qkv_w,
                qkv_b,
                out_w: tensor(&vb, &[h, h], &format!("{p}.{}.weight", n.out))?,
                out_b: tensor(&vb, &[h], &format!("{p}.{}.bias", n.out))?,
                ln1_g,
                ln1_b,
                inter_w: tensor(&vb, &[i, h], &format!("{p}.{}.weight", n.inter))?,
                inter_b: tensor(&vb, &[i], &format!("{p}.{}.bias", n.inter))?,
                ffn_w: tensor(&vb, &[h, i], &format!("{p}.{}.weight", n.ffn))?,
                ffn_b: tensor(&vb, &[h], &format!("{p}.{}.bias", n.ffn))?,
                ln2_g,
                ln2_b,
                lowered: Lowered::None,
            });
        }
        let (typ, types) = match n.typ {
            Some(name) => (tensor(&vb, &[cfg.type_vocab_size, h], &format!("{name}.weight"))?, cfg.type_vocab_size),
            None => (vec![0.0; h], 1),
        };
        Ok(FastBert {
            hidden: h,
            heads: cfg.num_attention_heads,
            inter: i,
            eps: cfg.layer_norm_eps as f32,
            act,
            vocab: cfg.vocab_size,
            max_pos: cfg.max_position_embeddings,
            types,
            word: tensor(&vb, &[cfg.vocab_size, h], &format!("{}.weight", n.word))?,
            pos: tensor(&vb, &[cfg.max_position_embeddings, h], &format!("{}.weight", n.pos))?,
            typ,
            emb_g,
            emb_b,
            layers,
            kernels: Kernels::F32,
        })
    }

    /// How many token types the model tells apart (1 for DistilBERT: every token is type 0).
    pub fn token_types(&self) -> usize {
        self.types
    }

    /// Run the linear layers in `precision` where this CPU can ([`Precision::effective`]).
    pub fn with_precision(mut self, precision: Precision) -> Result<FastBert> {
        self.set_kernels(match precision.effective() {
            Precision::Bf16 => Kernels::Bf16,
            Precision::Int16 => Kernels::Int16,
            Precision::F32 | Precision::Auto => Kernels::F32,
        })?;
        Ok(self)
    }

    /// Run the linear layers with these kernels (bf16 and int16 pack the weights once; an error
    /// when the CPU cannot run them, and the model is left as it was).
    pub fn set_kernels(&mut self, kernels: Kernels) -> Result<()> {
        if kernels == Kernels::Bf16 && !super::precision::bf16_instructions() {
            return Err(Error::Model("bf16 kernels: this CPU has no AVX512-BF16 instructions".into()));
        }
        if kernels == Kernels::Int16 && !super::int16::int16_instructions() {
            return Err(Error::Model("int16 kernels: this CPU has no AVX2".into()));
        }
        let (h, i) = (self.hidden, self.inter);
        let mut lowered = Vec::with_capacity(self.layers.len());
        for l in &self.layers {
            lowered.push(match kernels {
                Kernels::F32 => Lowered::None,
                Kernels::Int16 => Lowered::Int16(Box::new([
                    PackedInt16::pack(&l.qkv_w, 3 * h, h)?,
                    PackedInt16::pack(&l.out_w, h, h)?,
                    PackedInt16::pack(&l.inter_w, i, h)?,
                    PackedInt16::pack(&l.ffn_w, h, i)?,
                ])),
                Kernels::Bf16 => Lowered::Bf16(Box::new([
                    PackedBf16::pack(&l.qkv_w, 3 * h, h)?,
                    PackedBf16::pack(&l.out_w, h, h)?,
                    PackedBf16::pack(&l.inter_w, i, h)?,
                    PackedBf16::pack(&l.ffn_w, h, i)?,
                ])),
                Kernels::Bf16Portable => {
                    let r = |w: &[f32]| w.iter().map(|&x| from_bf16(to_bf16(x))).collect::<Vec<f32>>();
                    Lowered::Bf16Rounded(Box::new([r(&l.qkv_w), r(&l.out_w), r(&l.inter_w), r(&l.ffn_w)]))
                }
            });
        }
        for (l, w) in self.layers.iter_mut().zip(lowered) {
            l.lowered = w;
        }
        self.kernels = kernels;
        Ok(())
    }

    /// The kernels the linear layers run with.
    pub fn kernels(&self) -> Kernels {
        self.kernels
    }

    /// The precision the linear layers run in.
    pub fn precision(&self) -> Precision {
        match self.kernels {
            Kernels::F32 => Precision::F32,
            Kernels::Bf16 | Kernels::Bf16Portable => Precision::Bf16,
            Kernels::Int16 => Precision::Int16,
        }
    }

    /// out (n × o) = x (n × i) · Wᵀ + b for product `which` (0 qkv, 1 attention output, 2
    /// intermediate, 3 output) of a layer, with this model's kernels.
    #[allow(clippy::too_many_arguments)]
    fn product(&self, l: &Layer, which: usize, x: &[f32], n: usize, i: usize, o: usize, out: &mut [f32]) -> Result<()> {
        let (w, b) = match which {
            0 => (&l.qkv_w, &l.qkv_b),
            1 => (&l.out_w, &l.out_b),
            2 => (&l.inter_w, &l.inter_b),
            _ => (&l.ffn_w, &l.ffn_b),
        };
        match &l.lowered {
            Lowered::Int16(p) => linear_int16(x, n, &p[which], b, out),
            Lowered::Bf16(p) => linear_bf16(x, n, &p[which], b, out),
            Lowered::Bf16Rounded(r) => {
                // The inputs rounded as the kernel rounds them; gemm then sums exact products.
                let x: Vec<f32> = x[..n * i].par_iter().map(|&v| from_bf16(to_bf16(v))).collect();
                linear(&x, n, i, &r[which], b, o, out)
            }
            Lowered::None => linear(x, n, i, w, b, o, out),
        }
    }

    /// Hidden size.
    pub fn hidden(&self) -> usize {
        self.hidden
    }

    /// The last layer's hidden states of each sequence, packed: the rows of sequence `s` are
    /// `offsets[s]..offsets[s + 1]` of the returned `Σ len × hidden` array. Every position of
    /// sequence `s` attends to its first `keys[s]` tokens (the ones its attention mask keeps; a
    /// tokenizer masks only a tail, such as ColBERT's `[MASK]` query padding, whose positions
    /// still get their own output, as in BERT with an attention mask).
    pub fn forward(&self, ids: &[Vec<u32>], types: &[Vec<u32>], keys: &[usize]) -> Result<(Vec<f32>, Vec<usize>)> {
        let h = self.hidden;
        let mut offsets = vec![0usize];
        for s in ids {
            if s.len() > self.max_pos {
                return Err(Error::Model(format!("{} tokens, more than the model's {}", s.len(), self.max_pos)));
            }
            offsets.push(offsets.last().copied().unwrap_or(0) + s.len());
        }
        let n = offsets.last().copied().unwrap_or(0);
        // Embeddings, then LayerNorm.
        let mut x = vec![0f32; n * h];
        for (s, seq) in ids.iter().enumerate() {
            for (p, &id) in seq.iter().enumerate() {
                let id = id as usize;
                let t = types.get(s).and_then(|t| t.get(p)).copied().unwrap_or(0) as usize;
                if id >= self.vocab || t >= self.types {
                    return Err(Error::Model(format!("token id {id} or type {t} outside the model's tables")));
                }
                let row = &mut x[(offsets[s] + p) * h..(offsets[s] + p + 1) * h];
                let (w, ps, ty) = (&self.word[id * h..][..h], &self.pos[p * h..][..h], &self.typ[t * h..][..h]);
                for j in 0..h {
                    row[j] = w[j] + ty[j] + ps[j];
                }
            }
        }
        layer_norm_rows(&mut x, None, &self.emb_g, &self.emb_b, h, self.eps);
        let mut qkv = vec![0f32; n * 3 * h];
        let mut ctx = vec![0f32; n * h];
        let mut tmp = vec![0f32; n * h];
        let mut inter = vec![0f32; n * self.inter];
        for l in &self.layers {
            self.product(l, 0, &x, n, h, 3 * h, &mut qkv)?;
            self.attention(&qkv, &offsets, keys, &mut ctx)?;
            self.product(l, 1, &ctx, n, h, h, &mut tmp)?;
            layer_norm_rows(&mut x, Some(&tmp), &l.ln1_g, &l.ln1_b, h, self.eps);
            self.product(l, 2, &x, n, h, self.inter, &mut inter)?;
            activate(&mut inter, self.act);
            self.product(l, 3, &inter, n, self.inter, h, &mut tmp)?;
            layer_norm_rows(&mut x, Some(&tmp), &l.ln2_g, &l.ln2_b, h, self.eps);
        }
        Ok((x, offsets))
    }

    /// Self-attention of every sequence and head over its own tokens: ctx = softmax(QKᵀ/√d)·V.
    /// Sequences run in parallel (a batch holds sequences of about one length, so the threads
    /// share the work evenly), their heads one after another through one buffer of scores, each
    /// head's output written straight into its columns of the sequence's rows.
    fn attention(&self, qkv: &[f32], offsets: &[usize], keys: &[usize], ctx: &mut [f32]) -> Result<()> {
        let (h, heads) = (self.hidden, self.heads);
        let d = h / heads;
        let scale = 1.0 / (d as f32).sqrt();
        // Each sequence's rows of ctx, split off in order.
        let mut seqs = Vec::with_capacity(offsets.len().saturating_sub(1));
        let mut rest = &mut ctx[..];
        for (s, w) in offsets.windows(2).enumerate() {
            let (mine, tail) = std::mem::take(&mut rest).split_at_mut((w[1] - w[0]) * h);
            seqs.push((s, w[0], w[1] - w[0], mine));
            rest = tail;
        }
        seqs.into_par_iter().try_for_each_init(Vec::new, |scores: &mut Vec<f32>, (s, o, len, out)| -> Result<()> {
            // Keys the mask keeps (all of them when it keeps none: nothing else to attend to).
            let kv = match keys.get(s).copied().unwrap_or(len).min(len) {
                0 => len,
                k => k,
            };
            let rows = &qkv[o * 3 * h..(o + len) * 3 * h];
            // Every score is written by the product before it is read.
            scores.resize(len * kv, 0.0);
            for hd in 0..heads {
                // scores = Q Kᵀ: Q rows at column hd·d, K rows at h + hd·d, both with stride 3h.
                matmul(
                    scores,
                    (len, kv, d),
                    (kv as isize, 1),
                    (&rows[hd * d..], 3 * h as isize, 1),
                    (&rows[h + hd * d..], 1, 3 * h as isize),
                    scale,
                    false,
                )?;
                softmax_rows(scores, kv.max(1));
                // This head's columns of the sequence's rows: row stride h.
                matmul(
                    &mut out[hd * d..],
                    (len, d, kv),
                    (h as isize, 1),
                    (scores, kv as isize, 1),
                    (&rows[2 * h + hd * d..], 3 * h as isize, 1),
                    1.0,
                    false,
                )?;
            }
            Ok(())
        })
    }
}

/// The largest element offset a strided view of `rows × cols` reaches.
fn reach(rows: usize, cols: usize, rs: isize, cs: isize) -> usize {
    if rows == 0 || cols == 0 {
        return 0;
    }
    ((rows - 1) as isize * rs + (cols - 1) as isize * cs) as usize
}

/// dst (m×n, strides `dst_s`) = scale · lhs (m×k) · rhs (k×n), each operand a slice with (row,
/// column) strides; `threads` lets gemm split the output. A view that would leave its slice is
/// an error (the views come from the model's shapes, so it would mean a malformed model).
pub(crate) fn matmul(
    dst: &mut [f32],
    (m, n, k): (usize, usize, usize),
    dst_s: (isize, isize),
    lhs: (&[f32], isize, isize),
    rhs: (&[f32], isize, isize),
    scale: f32,
    threads: bool,
) -> Result<()> {
    if m == 0 || n == 0 {
        return Ok(());
    }
    let fits = |len: usize, rows, cols, rs, cs| reach(rows, cols, rs, cs) < len;
    if !fits(dst.len(), m, n, dst_s.0, dst_s.1)
        || (k > 0 && (!fits(lhs.0.len(), m, k, lhs.1, lhs.2) || !fits(rhs.0.len(), k, n, rhs.1, rhs.2)))
    {
        return Err(Error::Model(format!("a {m}×{k}·{k}×{n} product does not fit the model's arrays")));
    }
    if k == 0 {
        dst.iter_mut().for_each(|x| *x = 0.0);
        return Ok(());
    }
    let parallelism = if threads && m * n * k >= 1 << 18 {
        gemm::Parallelism::Rayon(rayon::current_num_threads())
    } else {
        gemm::Parallelism::None
    };
    // SAFETY: every element each view reaches lies inside its slice (checked above), `dst` is
    // borrowed mutably and does not overlap the inputs, and gemm reads `dst` only when asked to.
    unsafe {
        gemm::gemm(
            m,
            n,
            k,
            dst.as_mut_ptr(),
            dst_s.1,
            dst_s.0,
            false,
            lhs.0.as_ptr(),
            lhs.2,
            lhs.1,
            rhs.0.as_ptr(),
            rhs.2,
            rhs.1,
            0.0,
            scale,
            false,
            false,
            false,
            parallelism,
        );
    }
    Ok(())
}

/// out (n×o) = x (n×i) · Wᵀ + b, W stored as o rows of i (a PyTorch / candle linear layer).
fn linear(x: &[f32], n: usize, i: usize, w: &[f32], b: &[f32], o: usize, out: &mut [f32]) -> Result<()> {
    matmul(&mut out[..n * o], (n, o, i), (o as isize, 1), (x, i as isize, 1), (w, 1, i as isize), 1.0, true)?;
    out[..n * o].par_chunks_mut(o.max(1) * 64).for_each(|rows| {
        for row in rows.chunks_mut(o.max(1)) {
            for (v, bias) in row.iter_mut().zip(b) {
                *v += bias;
            }
        }
    });
    Ok(())
}

/// Defines `fn $name(args)` running `$body` compiled for the widest vectors this CPU has
/// (AVX-512, else AVX2 with FMA, else the build's baseline). The operations and their order are
/// the same in every build: Rust never fuses a multiply and an add on its own, and the sums below
/// run in [`SUM_LANES`] fixed lanes whatever the vector width, so the result does not depend on
/// the CPU.
macro_rules! widest {
    ($(#[$doc:meta])* fn $name:ident / $plain:ident($($arg:ident: $ty:ty),* $(,)?) $body:block) => {
        /// The baseline build of the function of the same name without `_plain`, inlined into
        /// each of its wider builds.
        #[inline(always)]
        fn $plain($($arg: $ty),*) $body

        $(#[$doc])*
        fn $name($($arg: $ty),*) {
            #[cfg(target_arch = "x86_64")]
            {
                #[target_feature(enable = "avx512f")]
                fn avx512($($arg: $ty),*) {
                    $plain($($arg),*)
                }
                #[target_feature(enable = "avx2,fma")]
                fn avx2($($arg: $ty),*) {
                    $plain($($arg),*)
                }
                if std::arch::is_x86_feature_detected!("avx512f") {
                    // SAFETY: the CPU has AVX512F, the only feature `avx512` is compiled for.
                    return unsafe { avx512($($arg),*) };
                }
                if std::arch::is_x86_feature_detected!("avx2") && std::arch::is_x86_feature_detected!("fma") {
                    // SAFETY: the CPU has AVX2 and FMA, the features `avx2` is compiled for.
                    return unsafe { avx2($($arg),*) };
                }
            }
            $plain($($arg),*)
        }
    };
}

/// x = LayerNorm(x + add) row by row (two-pass mean and variance in f32, as candle does; the
/// sums in [`SUM_LANES`] lanes).
fn layer_norm_rows(x: &mut [f32], add: Option<&[f32]>, g: &[f32], b: &[f32], h: usize, eps: f32) {
    let h = h.max(1);
    x.par_chunks_mut(h * 16).enumerate().for_each(|(c, rows)| {
        let add = add.map(|a| &a[(c * 16 * h).min(a.len())..]);
        layer_norm_chunk(rows, add, g, b, h, eps);
    });
}

widest! {
    /// [`layer_norm_rows`] over a chunk of rows (`add` starting at the chunk's first row).
    fn layer_norm_chunk / layer_norm_chunk_plain(rows: &mut [f32], add: Option<&[f32]>, g: &[f32], b: &[f32], h: usize, eps: f32) {
        for (r, row) in rows.chunks_mut(h).enumerate() {
            if let Some(add) = add {
                for (v, a) in row.iter_mut().zip(&add[r * h..(r + 1) * h]) {
                    *v += a;
                }
            }
            let mean = lane_sum(row, |v| v) / h as f32;
            let var = lane_sum(row, |v| (v - mean) * (v - mean)) / h as f32;
            let inv = 1.0 / (var + eps).sqrt();
            for ((v, g), b) in row.iter_mut().zip(g).zip(b) {
                *v = (*v - mean) * inv * g + b;
            }
        }
    }
}

widest! {
    /// A softmax over each row of `cols` values.
    fn softmax_rows / softmax_rows_plain(x: &mut [f32], cols: usize) {
        for row in x.chunks_mut(cols) {
            softmax(row);
        }
    }
}

/// Lanes of the sums and maxima: element j goes to lane j mod 16, then the lanes are summed in
/// order and the remainder after them, so the loops vectorise at any width with one result.
const SUM_LANES: usize = 16;

/// Σ f(v) over a row in [`SUM_LANES`] lanes.
#[inline(always)]
fn lane_sum(row: &[f32], f: impl Fn(f32) -> f32) -> f32 {
    let mut lanes = [0f32; SUM_LANES];
    let mut chunks = row.chunks_exact(SUM_LANES);
    for c in &mut chunks {
        for (l, &v) in lanes.iter_mut().zip(c) {
            *l += f(v);
        }
    }
    lanes.iter().copied().chain(chunks.remainder().iter().map(|&v| f(v))).sum::<f32>()
}

/// A softmax over one row (max subtracted first), the maximum and the sum in lanes.
#[inline(always)]
fn softmax(row: &mut [f32]) {
    let mut lanes = [f32::NEG_INFINITY; SUM_LANES];
    let mut chunks = row.chunks_exact(SUM_LANES);
    for c in &mut chunks {
        for (l, &v) in lanes.iter_mut().zip(c) {
            *l = if v > *l { v } else { *l };
        }
    }
    let max = chunks.remainder().iter().chain(&lanes).copied().fold(f32::NEG_INFINITY, f32::max);
    for v in row.iter_mut() {
        *v = fast_exp(*v - max);
    }
    let inv = 1.0 / lane_sum(row, |v| v);
    for v in row.iter_mut() {
        *v *= inv;
    }
}

fn activate(x: &mut [f32], act: Act) {
    x.par_chunks_mut(1 << 14).for_each(|c| activate_chunk(c, act));
}

widest! {
    /// The activation over a chunk of values.
    fn activate_chunk / activate_chunk_plain(c: &mut [f32], act: Act) {
        match act {
            Act::GeluErf => {
                c.iter_mut().for_each(|v| *v = 0.5 * *v * (1.0 + fast_erf(*v * std::f32::consts::FRAC_1_SQRT_2)))
            }
            Act::GeluTanh => c.iter_mut().for_each(|v| {
                let x = *v;
                *v = 0.5 * x * (1.0 + (0.797_884_6 * (x + 0.044_715 * x * x * x)).tanh());
            }),
            Act::Relu => c.iter_mut().for_each(|v| *v = v.max(0.0)),
        }
    }
}

/// eˣ for f32, from 2ⁿ·e^r with |r| ≤ ln2/2 and a degree-6 polynomial: within 2 ulp, branch-free
/// so loops over it vectorise. Arguments below −87 give 0.
#[inline(always)]
pub fn fast_exp(x: f32) -> f32 {
    let x = x.clamp(-87.0, 88.0);
    // Round x·log2(e) to the nearest integer with the 1.5·2²³ trick (no call to `round`).
    let shift = 12_582_912.0f32;
    let t = x * std::f32::consts::LOG2_E + shift;
    let n = t - shift;
    let r = x - n * 0.693_145_75 - n * 1.428_606_8e-6;
    let p =
        1.0 + r * (1.0 + r * (0.5 + r * (0.166_666_67 + r * (0.041_666_668 + r * (0.008_333_452 + r * 0.001_388_8)))));
    // 2ⁿ built from n's bits: t = 1.5·2²³ + n holds n in its low mantissa bits (t's bits are
    // 0x4B40_0000 + n for |n| < 2²²), which an integer subtraction reads without a float-to-int
    // conversion (whose saturating form does not vectorise).
    let n_int = (t.to_bits() as i32).wrapping_sub(0x4B40_0000);
    f32::from_bits((n_int.wrapping_add(127) << 23) as u32) * p
}

/// erf for f32 as a rational function of x on [−4, 4] (erf(±4) is ±1 in f32): within 2e-7 of the
/// exact value, branch-free so loops over it vectorise. The coefficients are those of Eigen's
/// `generic_fast_erf_float`.
#[inline(always)]
pub fn fast_erf(x: f32) -> f32 {
    let x = x.clamp(-4.0, 4.0);
    let x2 = x * x;
    let mut p = x2 * -2.726_142_3e-10 + 2.770_681_4e-8;
    p = x2 * p + -2.101_024e-6;
    p = x2 * p + -5.692_506_5e-5;
    p = x2 * p + -7.349_906_3e-4;
    p = x2 * p + -2.954_6e-3;
    p = x2 * p + -1.609_603_3e-2;
    p *= x;
    let mut q = x2 * -1.456_607_2e-5 + -2.133_740_6e-4;
    q = x2 * q + -1.682_827e-3;
    q = x2 * q + -7.373_329_2e-3;
    q = x2 * q + -1.426_474e-2;
    p / q
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fast_exp_and_erf_agree_with_the_exact_functions() {
        let mut worst_exp = 0f32;
        let mut worst_erf = 0f32;
        for i in -20_000..=20_000 {
            let x = i as f32 / 1000.0;
            let e = fast_exp(x);
            let exact = (x as f64).exp() as f32;
            worst_exp = worst_exp.max(((e - exact) / exact).abs());
            let v = fast_erf(x / 3.0);
            worst_erf = worst_erf.max((v - libm::erff(x / 3.0)).abs());
        }
        // Across the whole clamped range, 2ⁿ from n = −126 to 127 (read from the shifted sum's bits).
        for i in -8_700..=8_800 {
            let x = i as f32 / 100.0;
            let exact = (x as f64).exp();
            worst_exp = worst_exp.max(((fast_exp(x) as f64 - exact) / exact).abs() as f32);
        }
        assert!(worst_exp < 5e-7, "exp relative error {worst_exp}");
        assert!(worst_erf < 5e-7, "erf error {worst_erf}");
        assert_eq!(fast_exp(-200.0), 0.0f32.max(fast_exp(-200.0)));
        assert!(fast_exp(-200.0) < 1e-37);
    }

    /// Values spread over several magnitudes, from a fixed seed.
    fn values(n: usize, seed: u64) -> Vec<f32> {
        let mut x = seed;
        (0..n)
            .map(|i| {
                x = crate::lcg::lcg(x);
                let u = (x >> 40) as f32 / (1u64 << 24) as f32 - 0.5;
                u * [0.1f32, 3.0, 12.0][i % 3]
            })
            .collect()
    }

    #[test]
    fn element_wise_work_is_the_same_in_every_build_and_right() {
        // Rows of 384 (whole lanes) and of 37 (lanes and a remainder).
        for cols in [384usize, 37] {
            let rows = 5;
            let x = values(rows * cols, cols as u64);
            // Softmax: each row against one worked out in f64.
            let (mut a, mut b) = (x.clone(), x.clone());
            softmax_rows(&mut a, cols);
            softmax_rows_plain(&mut b, cols);
            assert_eq!(
                a.iter().map(|v| v.to_bits()).collect::<Vec<_>>(),
                b.iter().map(|v| v.to_bits()).collect::<Vec<_>>()
            );
            for (row, got) in x.chunks(cols).zip(a.chunks(cols)) {
                let max = row.iter().fold(f64::NEG_INFINITY, |m, &v| m.max(v as f64));
                let sum: f64 = row.iter().map(|&v| (v as f64 - max).exp()).sum();
                for (&v, &g) in row.iter().zip(got) {
                    let want = (v as f64 - max).exp() / sum;
                    assert!((g as f64 - want).abs() <= 1e-6 * want + 1e-12, "softmax {g} for {want}");
                }
            }
            // LayerNorm of x + add, against f64.
            let add = values(rows * cols, 7);
            let (g, bias) = (values(cols, 3), values(cols, 4));
            let (mut a, mut b) = (x.clone(), x.clone());
            layer_norm_rows(&mut a, Some(&add), &g, &bias, cols, 1e-12);
            layer_norm_chunk_plain(&mut b, Some(&add), &g, &bias, cols, 1e-12);
            assert_eq!(
                a.iter().map(|v| v.to_bits()).collect::<Vec<_>>(),
                b.iter().map(|v| v.to_bits()).collect::<Vec<_>>()
            );
            for r in 0..rows {
                let v: Vec<f64> = (0..cols).map(|j| x[r * cols + j] as f64 + add[r * cols + j] as f64).collect();
                let mean = v.iter().sum::<f64>() / cols as f64;
                let var = v.iter().map(|u| (u - mean) * (u - mean)).sum::<f64>() / cols as f64;
                for j in 0..cols {
                    let want = (v[j] - mean) / (var + 1e-12).sqrt() * g[j] as f64 + bias[j] as f64;
                    let got = a[r * cols + j] as f64;
                    assert!((got - want).abs() < 2e-5, "LayerNorm {got} for {want}");
                }
            }
            // GELU (exact erf form) and ReLU.
            let (mut a, mut b) = (x.clone(), x.clone());
            activate(&mut a, Act::GeluErf);
            activate_chunk_plain(&mut b, Act::GeluErf);
            assert_eq!(
                a.iter().map(|v| v.to_bits()).collect::<Vec<_>>(),
                b.iter().map(|v| v.to_bits()).collect::<Vec<_>>()
            );
            for (&v, &got) in x.iter().zip(&a) {
                let want = 0.5 * v as f64 * (1.0 + libm::erf(v as f64 / std::f64::consts::SQRT_2));
                assert!((got as f64 - want).abs() < 1e-5, "GELU({v}) = {got}, not {want}");
            }
            let mut a = x.clone();
            activate(&mut a, Act::Relu);
            assert!(x.iter().zip(&a).all(|(&v, &r)| r == v.max(0.0)));
        }
    }

    #[test]
    fn strided_products_are_plain_matrix_products() {
        // A (2×3) · B (3×2) with B read transposed from a 2×3 store, by hand.
        let a = [1.0, 2.0, 3.0, 4.0, 5.0, 6.0];
        let bt = [7.0, 9.0, 11.0, 8.0, 10.0, 12.0];
        let mut c = [0f32; 4];
        matmul(&mut c, (2, 2, 3), (2, 1), (&a, 3, 1), (&bt, 1, 3), 1.0, false).unwrap();
        assert!(matmul(&mut c, (2, 2, 4), (2, 1), (&a, 3, 1), (&bt, 1, 3), 1.0, false).is_err(), "a view past the end");
        assert_eq!(c, [58.0, 64.0, 139.0, 154.0]);
    }
}
