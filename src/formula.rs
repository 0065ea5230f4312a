//! The scoring formulas, as pure functions of term and collection statistics, and the same
//! formulas written out with their numbers for the Explain view and the reports.
//!
//! Retrievers feed them statistics read from the index, the index computes its TF-IDF document
//! norms with them, lessons feed them the statistics of a textbook example. Either way the numbers
//! come from this one place, which depends on nothing else in the crate.

use std::fmt;
use std::str::FromStr;

use serde::{Deserialize, Serialize};

use crate::{Error, Result};

/// The BM25 family members RankLens implements, each as its reference library computes it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize, PartialOrd, Ord)]
#[serde(rename_all = "lowercase")]
pub enum Bm25Variant {
    /// Lucene's `BM25Similarity` (Anserini): idf = ln(1 + (N−n+0.5)/(n+0.5)), no (k1+1) factor.
    Lucene,
    /// tantivy's own BM25, run by the engine: Lucene × (k1+1) with one-byte length norms.
    Tantivy,
    /// rank_bm25's `BM25Okapi`: RSJ idf, negative idf replaced by ε × mean idf.
    Okapi,
    /// bm25s's `robertson`: RSJ idf clamped at 0, no (k1+1) factor.
    Robertson,
    /// ATIRE: idf = ln(N/n), tf·(k1+1)/(tf + k1(1−b+b|d|/avgdl)).
    Atire,
    /// BM25L (Lv & Zhai): length-normalised tf shifted by δ.
    Bm25l,
    /// BM25+ (Lv & Zhai): a lower bound δ for any matching term.
    Bm25Plus,
    /// The textbook form: idf = log10(N/n), tf/(k(1−b+b|d|/avgdl)+tf).
    Textbook,
}

impl Bm25Variant {
    /// Every variant, in menu order.
    pub const ALL: [Bm25Variant; 8] = [
        Bm25Variant::Lucene,
        Bm25Variant::Tantivy,
        Bm25Variant::Okapi,
        Bm25Variant::Robertson,
        Bm25Variant::Atire,
        Bm25Variant::Bm25l,
        Bm25Variant::Bm25Plus,
        Bm25Variant::Textbook,
    ];

    /// Command-line name.
    pub fn name(self) -> &'static str {
        match self {
            Bm25Variant::Lucene => "lucene",
            Bm25Variant::Tantivy => "tantivy",
            Bm25Variant::Okapi => "okapi",
            Bm25Variant::Robertson => "robertson",
            Bm25Variant::Atire => "atire",
            Bm25Variant::Bm25l => "bm25l",
            Bm25Variant::Bm25Plus => "bm25+",
            Bm25Variant::Textbook => "textbook",
        }
    }

    /// The parameters the reference library uses by default.
    pub fn default_params(self) -> Bm25Params {
        let (k1, b, delta) = match self {
            Bm25Variant::Lucene | Bm25Variant::Tantivy | Bm25Variant::Textbook => (1.2, 0.75, 0.0),
            Bm25Variant::Okapi | Bm25Variant::Robertson | Bm25Variant::Atire => (1.5, 0.75, 0.0),
            Bm25Variant::Bm25l => (1.5, 0.75, 0.5),
            Bm25Variant::Bm25Plus => (1.5, 0.75, 1.0),
        };
        Bm25Params { k1, b, delta, epsilon: 0.25, exact_lengths: false }
    }

    /// Whether δ means anything for this variant.
    pub fn uses_delta(self) -> bool {
        matches!(self, Bm25Variant::Bm25l | Bm25Variant::Bm25Plus)
    }

    /// The idf in symbols.
    pub fn idf_formula(self) -> &'static str {
        match self {
            Bm25Variant::Lucene | Bm25Variant::Tantivy => "idf = ln(1 + (N − n + 0.5)/(n + 0.5))",
            Bm25Variant::Okapi => "idf = ln((N − n + 0.5)/(n + 0.5)), or ε·mean idf where that is negative",
            Bm25Variant::Robertson => "idf = max(0, ln((N − n + 0.5)/(n + 0.5)))",
            Bm25Variant::Atire => "idf = ln(N/n)",
            Bm25Variant::Bm25l => "idf = ln((N + 1)/(n + 0.5))",
            Bm25Variant::Bm25Plus => "idf = ln((N + 1)/n)",
            Bm25Variant::Textbook => "idf = log10(N/n)",
        }
    }

    /// The whole score in symbols.
    pub fn formula(self) -> String {
        let tf = match self {
            Bm25Variant::Lucene | Bm25Variant::Robertson | Bm25Variant::Textbook => {
                "tf / (tf + k1·(1 − b + b·|d|/avgdl))"
            }
            Bm25Variant::Tantivy => "(k1 + 1)·tf / (tf + k1·(1 − b + b·|d|₈/avgdl)), |d|₈ = one-byte length norm",
            Bm25Variant::Okapi | Bm25Variant::Atire => "tf·(k1 + 1) / (tf + k1·(1 − b + b·|d|/avgdl))",
            Bm25Variant::Bm25l => "(k1 + 1)(c + δ)/(k1 + c + δ), c = tf/(1 − b + b·|d|/avgdl)",
            Bm25Variant::Bm25Plus => "tf·(k1 + 1)/(tf + k1·(1 − b + b·|d|/avgdl)) + δ",
        };
        format!("score = Σ_t qtf · idf · {tf};  {}", self.idf_formula())
    }

    /// idf from N, n and (for `okapi`) the mean raw idf over the vocabulary.
    pub fn idf(self, n_docs: u64, df: u64, params: &Bm25Params, okapi_mean_idf: f64) -> f64 {
        let (n, df) = (n_docs as f64, df as f64);
        if df <= 0.0 {
            return 0.0;
        }
        match self {
            Bm25Variant::Lucene | Bm25Variant::Tantivy => (1.0 + (n - df + 0.5) / (df + 0.5)).ln(),
            Bm25Variant::Okapi => {
                let raw = okapi_raw_idf(n_docs, df as u64);
                if raw < 0.0 { params.epsilon * okapi_mean_idf } else { raw }
            }
            Bm25Variant::Robertson => okapi_raw_idf(n_docs, df as u64).max(0.0),
            Bm25Variant::Atire => (n / df).ln(),
            Bm25Variant::Bm25l => ((n + 1.0) / (df + 0.5)).ln(),
            Bm25Variant::Bm25Plus => ((n + 1.0) / df).ln(),
            Bm25Variant::Textbook => (n / df).log10(),
        }
    }

    /// The term-frequency factor for a document of length `dl`.
    pub fn tf_weight(self, tf: f64, dl: f64, avgdl: f64, p: &Bm25Params) -> f64 {
        self.tf_weight_normed(tf, length_norm(dl, avgdl, p.b), p)
    }

    /// The term-frequency factor given the length normaliser 1 − b + b·|d|/avgdl (which a
    /// retriever computes once per document rather than once per posting).
    #[inline]
    pub fn tf_weight_normed(self, tf: f64, len_norm: f64, p: &Bm25Params) -> f64 {
        if tf <= 0.0 {
            return 0.0;
        }
        match self.tf_shape() {
            TfShape::Saturating => Saturating::weight(tf, len_norm, p),
            TfShape::SaturatingK1Plus1 => SaturatingK1Plus1::weight(tf, len_norm, p),
            TfShape::Shifted => Shifted::weight(tf, len_norm, p),
            TfShape::LowerBounded => LowerBounded::weight(tf, len_norm, p),
        }
    }

    /// Which of the four tf shapes this variant uses.
    pub fn tf_shape(self) -> TfShape {
        match self {
            Bm25Variant::Lucene | Bm25Variant::Robertson | Bm25Variant::Textbook => TfShape::Saturating,
            Bm25Variant::Tantivy | Bm25Variant::Okapi | Bm25Variant::Atire => TfShape::SaturatingK1Plus1,
            Bm25Variant::Bm25l => TfShape::Shifted,
            Bm25Variant::Bm25Plus => TfShape::LowerBounded,
        }
    }
}

/// The four term-frequency shapes of the BM25 family.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum TfShape {
    /// tf / (tf + k1·L)
    Saturating,
    /// tf·(k1 + 1) / (tf + k1·L)
    SaturatingK1Plus1,
    /// (k1 + 1)(c + δ)/(k1 + c + δ), c = tf/L (BM25L)
    Shifted,
    /// tf·(k1 + 1)/(tf + k1·L) + δ (BM25+)
    LowerBounded,
}

/// One tf shape as a type, so a scoring loop can be compiled once per shape with the formula
/// inlined, while [`Bm25Variant::tf_weight_normed`] runs the very same arithmetic for explanations.
pub trait TfWeight {
    /// The weight of `tf` occurrences in a document with length normaliser `len_norm` (tf > 0).
    fn weight(tf: f64, len_norm: f64, p: &Bm25Params) -> f64;
}

/// See [`TfShape::Saturating`].
pub struct Saturating;
/// See [`TfShape::SaturatingK1Plus1`].
pub struct SaturatingK1Plus1;
/// See [`TfShape::Shifted`].
pub struct Shifted;
/// See [`TfShape::LowerBounded`].
pub struct LowerBounded;

impl TfWeight for Saturating {
    #[inline(always)]
    fn weight(tf: f64, len_norm: f64, p: &Bm25Params) -> f64 {
        tf / (tf + p.k1 * len_norm)
    }
}

impl TfWeight for SaturatingK1Plus1 {
    #[inline(always)]
    fn weight(tf: f64, len_norm: f64, p: &Bm25Params) -> f64 {
        tf * (p.k1 + 1.0) / (tf + p.k1 * len_norm)
    }
}

impl TfWeight for Shifted {
    #[inline(always)]
    fn weight(tf: f64, len_norm: f64, p: &Bm25Params) -> f64 {
        let c = tf / len_norm;
        (p.k1 + 1.0) * (c + p.delta) / (p.k1 + c + p.delta)
    }
}

impl TfWeight for LowerBounded {
    #[inline(always)]
    fn weight(tf: f64, len_norm: f64, p: &Bm25Params) -> f64 {
        tf * (p.k1 + 1.0) / (tf + p.k1 * len_norm) + p.delta
    }
}

impl Bm25Variant {
    /// The idf of one term written out with its numbers, ending in the value [`Bm25Variant::idf`]
    /// gives for them — including where a variant floors or clamps it (Okapi, Robertson).
    pub fn worked_idf(self, n_docs: u64, df: u64, params: &Bm25Params, okapi_mean_idf: f64) -> String {
        let idf = self.idf(n_docs, df, params, okapi_mean_idf);
        let (n, d) = (n_docs, df);
        if df == 0 {
            return format!("idf = {idf:.4}: the term occurs in no document");
        }
        let rsj = format!("ln((N − n + 0.5)/(n + 0.5)) = ln(({n} − {d} + 0.5)/({d} + 0.5))");
        let raw = okapi_raw_idf(n_docs, df);
        match self {
            Bm25Variant::Lucene | Bm25Variant::Tantivy => {
                format!("idf = ln(1 + (N − n + 0.5)/(n + 0.5)) = ln(1 + ({n} − {d} + 0.5)/({d} + 0.5)) = {idf:.4}")
            }
            Bm25Variant::Okapi if raw < 0.0 => format!(
                "raw idf = {rsj} = {raw:.4} < 0, so idf = ε · mean raw idf = {} × {okapi_mean_idf:.4} = {idf:.4}",
                fmt_param(params.epsilon)
            ),
            Bm25Variant::Okapi => format!("idf = {rsj} = {idf:.4}"),
            Bm25Variant::Robertson => format!("idf = max(0, {rsj}) = max(0, {raw:.4}) = {idf:.4}"),
            Bm25Variant::Atire => format!("idf = ln(N/n) = ln({n}/{d}) = {idf:.4}"),
            Bm25Variant::Bm25l => format!("idf = ln((N + 1)/(n + 0.5)) = ln(({n} + 1)/({d} + 0.5)) = {idf:.4}"),
            Bm25Variant::Bm25Plus => format!("idf = ln((N + 1)/n) = ln(({n} + 1)/{d}) = {idf:.4}"),
            Bm25Variant::Textbook => format!("idf = log10(N/n) = log10({n}/{d}) = {idf:.4}"),
        }
    }

    /// The term-frequency factor written out with its numbers, ending in the value
    /// [`Bm25Variant::tf_weight`] gives for them.
    pub fn worked_tf_weight(self, tf: u32, dl: f64, avgdl: f64, p: &Bm25Params) -> String {
        let w = self.tf_weight(f64::from(tf), dl, avgdl, p);
        let (k1, b, k1_plus_1, delta) = (fmt_param(p.k1), fmt_param(p.b), fmt_param(p.k1 + 1.0), fmt_param(p.delta));
        let len = format!("(1 − {b} + {b}·{dl}/{avgdl:.2})");
        let shape = match self.tf_shape() {
            TfShape::Saturating => format!("tf/(tf + k1·L) = {tf}/({tf} + {k1}·{len})"),
            TfShape::SaturatingK1Plus1 => format!("tf·(k1 + 1)/(tf + k1·L) = {tf}·{k1_plus_1}/({tf} + {k1}·{len})"),
            TfShape::Shifted => format!("(k1 + 1)(c + δ)/(k1 + c + δ), c = tf/L = {tf}/{len}, δ = {delta}"),
            TfShape::LowerBounded => {
                format!("tf·(k1 + 1)/(tf + k1·L) + δ = {tf}·{k1_plus_1}/({tf} + {k1}·{len}) + {delta}")
            }
        };
        format!("{shape} = {w:.4}")
    }
}

/// A parameter as a person writes it: at most three decimals, no trailing zeros (`0.9`, `1.2`,
/// `60`), so a slider's 1.2000000000000002 reads as 1.2.
pub fn fmt_param(x: f64) -> String {
    let s = format!("{x:.3}");
    let s = s.trim_end_matches('0').trim_end_matches('.');
    if s == "-0" { "0".to_string() } else { s.to_string() }
}

/// BM25's length normaliser: 1 − b + b·|d|/avgdl (1 for an empty collection).
#[inline]
pub fn length_norm(dl: f64, avgdl: f64, b: f64) -> f64 {
    if avgdl > 0.0 { 1.0 - b + b * dl / avgdl } else { 1.0 }
}

/// rank_bm25's raw idf: ln(N − n + 0.5) − ln(n + 0.5).
pub fn okapi_raw_idf(n_docs: u64, df: u64) -> f64 {
    (n_docs as f64 - df as f64 + 0.5).ln() - (df as f64 + 0.5).ln()
}

/// Lucene's `SmallFloat`: the one-byte document length ("norm") Lucene 9 stores for BM25. Lengths
/// below 24 are kept as they are; above, a 4-bit mantissa with an exponent, so a length rounds
/// down to one of 232 values (exact up to 40, then within 1/8).
pub mod small_float {
    /// Lengths below this are stored as themselves (Lucene's `NUM_FREE_VALUES`: 255 minus the
    /// code of `Integer.MAX_VALUE`).
    pub const NUM_FREE_VALUES: u32 = 24;

    /// `SmallFloat.longToInt4`: 4 significant bits (the leading one implicit) and a shift.
    fn long_to_int4(i: u64) -> u32 {
        let bits = 64 - i.leading_zeros();
        if bits < 4 {
            return i as u32;
        }
        let shift = bits - 4;
        ((i >> shift) as u32 & 0x07) | ((shift + 1) << 3)
    }

    /// `SmallFloat.int4ToLong`.
    fn int4_to_long(i: u32) -> u64 {
        let mantissa = u64::from(i & 0x07);
        match (i >> 3).checked_sub(1) {
            None => mantissa,
            Some(shift) => (mantissa | 0x08) << shift,
        }
    }

    /// `SmallFloat.intToByte4`: the byte Lucene stores for a length of `len` tokens.
    pub fn int_to_byte4(len: u32) -> u8 {
        if len < NUM_FREE_VALUES {
            len as u8
        } else {
            (NUM_FREE_VALUES + long_to_int4(u64::from(len - NUM_FREE_VALUES))) as u8
        }
    }

    /// `SmallFloat.byte4ToInt`: the length Lucene reads back from a stored byte.
    pub fn byte4_to_int(b: u8) -> u32 {
        let i = u32::from(b);
        if i < NUM_FREE_VALUES { i } else { NUM_FREE_VALUES + int4_to_long(i - NUM_FREE_VALUES) as u32 }
    }
}

/// Lucene 9's `BM25Similarity` as it computes, operation for operation in float32: idf from
/// (docFreq, docCount) in double then cast; avgdl = sumTotalTermFreq / docCount in double then
/// cast; a 256-entry cache of 1 / (k1·((1 − b) + b·len/avgdl)) over the one-byte lengths; and a
/// term's score weight − weight / (1 + freq·cache[norm]), with weight = boost · idf.
#[derive(Debug, Clone)]
pub struct LuceneBm25 {
    /// Average length as Lucene holds it.
    pub avgdl: f32,
    /// Documents with at least one term in the field (Lucene's `docCount`), the N of idf.
    pub doc_count: u64,
    cache: [f32; 256],
}

impl LuceneBm25 {
    /// The similarity for a field of `doc_count` non-empty documents holding `sum_ttf` tokens.
    pub fn new(k1: f64, b: f64, sum_ttf: u64, doc_count: u64) -> Self {
        let (k1, b) = (k1 as f32, b as f32);
        let avgdl = if doc_count == 0 { 1.0 } else { (sum_ttf as f64 / doc_count as f64) as f32 };
        let mut cache = [0f32; 256];
        for (i, c) in cache.iter_mut().enumerate() {
            let len = small_float::byte4_to_int(i as u8) as f32;
            *c = 1f32 / (k1 * ((1f32 - b) + b * len / avgdl));
        }
        Self { avgdl, doc_count, cache }
    }

    /// `BM25Similarity.idf`: (float) ln(1 + (docCount − docFreq + 0.5) / (docFreq + 0.5)).
    pub fn idf(&self, doc_freq: u64) -> f32 {
        let (n, df) = (self.doc_count as f64, doc_freq as f64);
        (1.0 + (n - df + 0.5) / (df + 0.5)).ln() as f32
    }

    /// 1 / (k1·((1 − b) + b·len/avgdl)) for a stored length byte.
    #[inline(always)]
    pub fn norm_inverse(&self, norm: u8) -> f32 {
        self.cache[usize::from(norm)]
    }

    /// One term's score: `weight − weight / (1 + freq · normInverse)` (`BM25Scorer.score`).
    #[inline(always)]
    pub fn score(weight: f32, freq: u32, norm_inverse: f32) -> f32 {
        weight - weight / (1f32 + freq as f32 * norm_inverse)
    }
}

impl fmt::Display for Bm25Variant {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

impl FromStr for Bm25Variant {
    type Err = Error;
    fn from_str(s: &str) -> Result<Self> {
        let s = s.to_lowercase();
        let s = match s.as_str() {
            "bm25plus" | "bm25p" => "bm25+",
            "anserini" => "lucene",
            "rank_bm25" => "okapi",
            other => other,
        };
        Bm25Variant::ALL.into_iter().find(|v| v.name() == s).ok_or_else(|| {
            let names: Vec<_> = Bm25Variant::ALL.iter().map(|v| v.name()).collect();
            Error::invalid("variant", format!("unknown BM25 variant {s:?}; choose one of {}", names.join(", ")))
        })
    }
}

/// BM25 parameters, changeable per query without re-indexing.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct Bm25Params {
    /// Term-frequency saturation.
    pub k1: f64,
    /// Length normalisation strength (0 = none, 1 = full).
    pub b: f64,
    /// BM25L / BM25+ shift.
    pub delta: f64,
    /// Okapi's floor factor for negative idf.
    pub epsilon: f64,
    /// `lucene` only: score with each document's exact length in f64 (RankLens's own reading of
    /// the formula) instead of as Lucene does (one-byte length norms, float32; see [`LuceneBm25`]).
    #[serde(default)]
    pub exact_lengths: bool,
}

impl Bm25Params {
    /// Check ranges a user could get wrong, naming the parameter.
    pub fn validate(&self) -> Result<()> {
        if !(self.k1.is_finite() && self.k1 >= 0.0) {
            return Err(Error::invalid("k1", format!("k1 must be ≥ 0, got {}", self.k1)));
        }
        if !(self.b.is_finite() && (0.0..=1.0).contains(&self.b)) {
            return Err(Error::invalid("b", format!("b must be in [0, 1], got {}", self.b)));
        }
        if !(self.delta.is_finite() && self.delta >= 0.0) {
            return Err(Error::invalid("delta", format!("delta must be ≥ 0, got {}", self.delta)));
        }
        Ok(())
    }
}

/// The TF-IDF variants.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize, PartialOrd, Ord)]
#[serde(rename_all = "kebab-case")]
pub enum TfIdfVariant {
    /// tf = raw count, idf = log2(N/df), cosine between the query and document vectors.
    CosineLog2,
    /// tf = log10(count + 1), idf = log10(N/df), Σ tf·idf over query terms, divided by |d| unless
    /// length normalisation is off.
    Textbook,
}

impl TfIdfVariant {
    /// Every variant.
    pub const ALL: [TfIdfVariant; 2] = [TfIdfVariant::CosineLog2, TfIdfVariant::Textbook];

    /// Command-line name.
    pub fn name(self) -> &'static str {
        match self {
            TfIdfVariant::CosineLog2 => "cosine-log2",
            TfIdfVariant::Textbook => "textbook",
        }
    }

    /// idf for N documents and document frequency df (0 for unseen terms).
    pub fn idf(self, n_docs: u64, df: u64) -> f64 {
        if df == 0 {
            return 0.0;
        }
        let ratio = n_docs as f64 / df as f64;
        match self {
            TfIdfVariant::CosineLog2 => ratio.log2(),
            TfIdfVariant::Textbook => ratio.log10(),
        }
    }

    /// tf weight of a raw count.
    pub fn tf_weight(self, tf: f64) -> f64 {
        match self {
            TfIdfVariant::CosineLog2 => tf,
            TfIdfVariant::Textbook => (tf + 1.0).log10(),
        }
    }

    /// The idf written out with its numbers, ending in the value [`TfIdfVariant::idf`] gives.
    pub fn worked_idf(self, n_docs: u64, df: u64) -> String {
        let idf = self.idf(n_docs, df);
        match self {
            TfIdfVariant::CosineLog2 => format!("idf = log2(N/df) = log2({n_docs}/{df}) = {idf:.4}"),
            TfIdfVariant::Textbook => format!("idf = log10(N/df) = log10({n_docs}/{df}) = {idf:.4}"),
        }
    }

    /// The formula in symbols.
    pub fn formula(self, normalize: bool) -> String {
        match (self, normalize) {
            (TfIdfVariant::CosineLog2, _) => {
                "cos(q, d) = Σ_t w(t,q)·w(t,d) / (|q|·|d|),  w = tf · log2(N/df)".to_string()
            }
            (TfIdfVariant::Textbook, true) => "score = Σ_t qtf · log10(tf + 1) · log10(N/df) / |d|".to_string(),
            (TfIdfVariant::Textbook, false) => "score = Σ_t qtf · log10(tf + 1) · log10(N/df)".to_string(),
        }
    }
}

impl fmt::Display for TfIdfVariant {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

impl FromStr for TfIdfVariant {
    type Err = Error;
    fn from_str(s: &str) -> Result<Self> {
        TfIdfVariant::ALL.into_iter().find(|v| v.name() == s.to_lowercase()).ok_or_else(|| {
            Error::invalid("variant", format!("unknown TF-IDF variant {s:?}; choose cosine-log2 or textbook"))
        })
    }
}

/// Statistics of one term in one document, for scoring by hand (lessons) or from an index.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct TermStats {
    /// Documents in the collection.
    pub n_docs: u64,
    /// Documents containing the term.
    pub df: u64,
    /// Occurrences in the document.
    pub tf: u32,
    /// Occurrences in the query.
    pub qtf: u32,
    /// Document length.
    pub dl: f64,
    /// Average document length.
    pub avgdl: f64,
}

/// A BM25 contribution from given statistics: qtf · idf · tf-weight.
pub fn bm25_contribution(variant: Bm25Variant, stats: &TermStats, params: &Bm25Params, okapi_mean_idf: f64) -> f64 {
    let idf = variant.idf(stats.n_docs, stats.df, params, okapi_mean_idf);
    let w = variant.tf_weight(f64::from(stats.tf), stats.dl, stats.avgdl, params);
    f64::from(stats.qtf) * idf * w
}

/// The textbook tf-idf contribution without length normalisation: qtf · log10(tf+1) · log10(N/df).
pub fn tfidf_textbook_contribution(stats: &TermStats) -> f64 {
    let v = TfIdfVariant::Textbook;
    f64::from(stats.qtf) * v.tf_weight(f64::from(stats.tf)) * v.idf(stats.n_docs, stats.df)
}

/// Which lexical formula to score with.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub enum LexicalModel {
    /// A TF-IDF variant; `normalize` divides by the document vector length (textbook only; cosine
    /// always normalises).
    TfIdf {
        /// Which TF-IDF.
        variant: TfIdfVariant,
        /// Divide by |d|.
        normalize: bool,
    },
    /// A BM25 variant computed by RankLens with exact lengths (not `tantivy`, which the engine runs).
    Bm25 {
        /// Which BM25.
        variant: Bm25Variant,
        /// Its parameters.
        params: Bm25Params,
    },
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The two-document example of the textbook: N = 100, df(love) = 10, df(tragic) = 5,
    /// avgdl = 120; d1 |d| = 40 with love×8, tragic×2; d2 |d| = 300 with love×40, tragic×2.
    fn doc_stats(dl: f64, love: u32, tragic: u32) -> [TermStats; 2] {
        let s = |df, tf| TermStats { n_docs: 100, df, tf, qtf: 1, dl, avgdl: 120.0 };
        [s(10, love), s(5, tragic)]
    }

    fn textbook_bm25(dl: f64, love: u32, tragic: u32, k1: f64, b: f64) -> f64 {
        let p = Bm25Params { k1, b, delta: 0.0, epsilon: 0.25, exact_lengths: false };
        doc_stats(dl, love, tragic).iter().map(|s| bm25_contribution(Bm25Variant::Textbook, s, &p, 0.0)).sum()
    }

    fn round3(x: f64) -> f64 {
        (x * 1000.0).round() / 1000.0
    }

    #[test]
    fn textbook_tfidf_flips_towards_the_long_document() {
        let d1: f64 = doc_stats(40.0, 8, 2).iter().map(tfidf_textbook_contribution).sum();
        let d2: f64 = doc_stats(300.0, 40, 2).iter().map(tfidf_textbook_contribution).sum();
        assert_eq!((round3(d1), round3(d2)), (1.575, 2.234));
    }

    #[test]
    fn textbook_bm25_table() {
        let cases =
            [(1.2, 0.75, 1.931, 1.512), (0.0, 0.75, 2.301, 2.301), (1.2, 0.0, 1.683, 1.784), (1.2, 1.0, 2.037, 1.451)];
        for (k1, b, d1, d2) in cases {
            assert_eq!(round3(textbook_bm25(40.0, 8, 2, k1, b)), d1, "d1 k1={k1} b={b}");
            assert_eq!(round3(textbook_bm25(300.0, 40, 2, k1, b)), d2, "d2 k1={k1} b={b}");
        }
    }

    #[test]
    fn variant_names_parse() {
        for v in Bm25Variant::ALL {
            assert_eq!(v.name().parse::<Bm25Variant>().ok(), Some(v));
        }
        assert!("bm99".parse::<Bm25Variant>().is_err());
        assert_eq!("cosine-log2".parse::<TfIdfVariant>().ok(), Some(TfIdfVariant::CosineLog2));
    }

    /// The number a worked line ends with, as printed.
    fn last_number(line: &str) -> &str {
        line.rsplit(' ').next().unwrap_or("")
    }

    #[test]
    fn every_worked_idf_ends_in_the_idf_the_scorer_uses() {
        // N = 10: n = 1 gives every variant a positive idf; n = 9 gives Okapi and Robertson a
        // negative raw idf (ln(1.5/9.5) = −1.8458), which they floor at ε · mean or clamp at 0.
        let mean = 0.8;
        for v in Bm25Variant::ALL {
            let p = v.default_params();
            for df in [1, 5, 9, 10] {
                let line = v.worked_idf(10, df, &p, mean);
                assert_eq!(last_number(&line), format!("{:.4}", v.idf(10, df, &p, mean)), "{v} n={df}: {line}");
            }
        }
        let okapi = Bm25Variant::Okapi.worked_idf(10, 9, &Bm25Variant::Okapi.default_params(), mean);
        assert_eq!(
            okapi,
            "raw idf = ln((N − n + 0.5)/(n + 0.5)) = ln((10 − 9 + 0.5)/(9 + 0.5)) = -1.8458 < 0, \
             so idf = ε · mean raw idf = 0.25 × 0.8000 = 0.2000"
        );
        let robertson = Bm25Variant::Robertson.worked_idf(10, 9, &Bm25Variant::Robertson.default_params(), mean);
        assert!(robertson.ends_with("= max(0, -1.8458) = 0.0000"), "{robertson}");
        // Okapi floors only a negative raw idf: at n = 2 (positive) and n = 5 (exactly 0) the line
        // is the RSJ formula alone.
        let okapi = |df| Bm25Variant::Okapi.worked_idf(10, df, &Bm25Variant::Okapi.default_params(), mean);
        assert_eq!(okapi(2), "idf = ln((N − n + 0.5)/(n + 0.5)) = ln((10 − 2 + 0.5)/(2 + 0.5)) = 1.2238");
        assert_eq!(okapi(5), "idf = ln((N − n + 0.5)/(n + 0.5)) = ln((10 − 5 + 0.5)/(5 + 0.5)) = 0.0000");
    }

    #[test]
    fn every_worked_tf_weight_ends_in_the_weight_the_scorer_uses() {
        for v in Bm25Variant::ALL {
            let p = v.default_params();
            let line = v.worked_tf_weight(3, 40.0, 120.0, &p);
            assert_eq!(last_number(&line), format!("{:.4}", v.tf_weight(3.0, 40.0, 120.0, &p)), "{v}: {line}");
        }
        // BM25L by hand: L = 0.5, c = 3/0.5 = 6, (1.5 + 1)(6 + 0.5)/(1.5 + 6 + 0.5) = 2.03125.
        assert_eq!(Bm25Variant::Bm25l.tf_weight(3.0, 40.0, 120.0, &Bm25Variant::Bm25l.default_params()), 2.03125);
        // Lucene by hand: L = 1 − 0.75 + 0.75·40/120 = 0.5, 3/(3 + 1.2·0.5) = 0.8333.
        assert_eq!(
            Bm25Variant::Lucene.worked_tf_weight(3, 40.0, 120.0, &Bm25Variant::Lucene.default_params()),
            "tf/(tf + k1·L) = 3/(3 + 1.2·(1 − 0.75 + 0.75·40/120.00)) = 0.8333"
        );
        // Okapi writes k1 + 1 out: 3·2.5/(3 + 1.5·0.5) = 2.
        assert_eq!(
            Bm25Variant::Okapi.worked_tf_weight(3, 40.0, 120.0, &Bm25Variant::Okapi.default_params()),
            "tf·(k1 + 1)/(tf + k1·L) = 3·2.5/(3 + 1.5·(1 − 0.75 + 0.75·40/120.00)) = 2.0000"
        );
    }

    #[test]
    fn params_are_validated_by_name() {
        let mut p = Bm25Variant::Lucene.default_params();
        p.b = 1.5;
        assert!(p.validate().expect_err("b out of range").to_string().starts_with("b:"));
    }

    #[test]
    fn small_float_lengths_by_hand() {
        use super::small_float::{byte4_to_int, int_to_byte4};
        // Below 24 a length is its own byte; 24..=40 too (4 significant bits suffice).
        for len in [0, 1, 23, 24, 31, 40] {
            assert_eq!(u32::from(int_to_byte4(len)), len);
            assert_eq!(byte4_to_int(int_to_byte4(len)), len);
        }
        // 41 − 24 = 17 = 0b10001: five bits, shift 1, mantissa 0b000, code (1 + 1) << 3 = 16,
        // byte 24 + 16 = 40, read back as 24 + (0b1000 << 1) = 40.
        assert_eq!(int_to_byte4(41), 40);
        assert_eq!(byte4_to_int(40), 40);
        // 100 − 24 = 76 = 0b1001100: seven bits, shift 3, 76 >> 3 = 0b1001, mantissa 1,
        // code 1 | 4 << 3 = 33, byte 57, read back as 24 + (0b1001 << 3) = 96.
        assert_eq!(int_to_byte4(100), 57);
        assert_eq!(byte4_to_int(57), 96);
        // The last byte: code 231 = shift 27, mantissa 7: 24 + (15 << 27).
        assert_eq!(byte4_to_int(255), 24 + (15 << 27));
        assert_eq!(int_to_byte4(u32::MAX >> 1), 255);
    }

    #[test]
    fn small_float_rounds_down_and_keeps_order() {
        use super::small_float::{byte4_to_int, int_to_byte4};
        let mut last = 0u8;
        for len in 0..200_000u32 {
            let b = int_to_byte4(len);
            assert!(b >= last, "monotone at {len}");
            assert!(byte4_to_int(b) <= len, "never above the length at {len}");
            // Within one eighth below (the mantissa keeps 4 bits past the free values).
            assert!(f64::from(len - byte4_to_int(b)) <= f64::from(len.saturating_sub(24)) / 8.0, "{len}");
            last = b;
        }
    }

    /// Each variant's idf at N = 10, n = 2 (and n = 9, where the RSJ idf is negative), worked out
    /// by hand from the formulas the reference libraries document.
    #[test]
    fn every_variant_idf_by_hand() {
        let close = |a: f64, b: f64| (a - b).abs() < 1e-9;
        let idf = |v: Bm25Variant, df: u64| v.idf(10, df, &v.default_params(), 0.8);
        // Lucene, tantivy: ln(1 + 8.5/2.5) = ln 4.4.
        assert!(close(idf(Bm25Variant::Lucene, 2), 4.4f64.ln()));
        assert!(close(idf(Bm25Variant::Tantivy, 2), 4.4f64.ln()));
        // RSJ: ln(8.5/2.5) = ln 3.4; at n = 9 ln(1.5/9.5) < 0: Okapi takes ε · mean = 0.25 × 0.8,
        // Robertson 0.
        assert!(close(idf(Bm25Variant::Okapi, 2), 3.4f64.ln()));
        assert!(close(idf(Bm25Variant::Okapi, 9), 0.2));
        // At n = N/2 the RSJ idf is ln(5.5/5.5) = 0, not negative: rank_bm25 keeps it (no floor).
        assert_eq!(okapi_raw_idf(10, 5), 0.0);
        assert_eq!(idf(Bm25Variant::Okapi, 5), 0.0);
        assert!(close(idf(Bm25Variant::Robertson, 2), 3.4f64.ln()));
        assert_eq!(idf(Bm25Variant::Robertson, 9), 0.0);
        assert!(close(okapi_raw_idf(10, 9), (1.5f64 / 9.5).ln()));
        // ATIRE ln(10/2); BM25L ln(11/2.5); BM25+ ln(11/2); textbook log10(10/2).
        assert!(close(idf(Bm25Variant::Atire, 2), 5f64.ln()));
        assert!(close(idf(Bm25Variant::Bm25l, 2), 4.4f64.ln()));
        assert!(close(idf(Bm25Variant::Bm25Plus, 2), 5.5f64.ln()));
        assert!(close(idf(Bm25Variant::Textbook, 2), 5f64.log10()));
        // A term in no document weighs nothing, whatever the variant.
        for v in Bm25Variant::ALL {
            assert_eq!(idf(v, 0), 0.0, "{v}");
        }
    }

    /// Each tf shape at tf = 3 in a document of 40 tokens (avgdl 120), with each variant's own
    /// defaults: L = 1 − 0.75 + 0.75·40/120 = 0.5.
    #[test]
    fn every_variant_tf_weight_by_hand() {
        let close = |a: f64, b: f64| (a - b).abs() < 1e-12;
        let w = |v: Bm25Variant, tf: f64| v.tf_weight(tf, 40.0, 120.0, &v.default_params());
        // 3/(3 + 1.2·0.5) = 0.8333…; tantivy × (k1 + 1) = 2.2: 1.8333…
        assert!(close(w(Bm25Variant::Lucene, 3.0), 3.0 / 3.6));
        assert!(close(w(Bm25Variant::Textbook, 3.0), 3.0 / 3.6));
        assert!(close(w(Bm25Variant::Tantivy, 3.0), 6.6 / 3.6));
        // k1 = 1.5: 3/(3 + 0.75) = 0.8 (Robertson), × 2.5 = 2 (Okapi, ATIRE).
        assert!(close(w(Bm25Variant::Robertson, 3.0), 0.8));
        assert!(close(w(Bm25Variant::Okapi, 3.0), 2.0));
        assert!(close(w(Bm25Variant::Atire, 3.0), 2.0));
        // BM25L: c = 6, 2.5·6.5/(1.5 + 6.5); BM25+: 2 + δ = 3.
        assert!(close(w(Bm25Variant::Bm25l, 3.0), 2.03125));
        assert!(close(w(Bm25Variant::Bm25Plus, 3.0), 3.0));
        // No occurrence, no weight — not even BM25+'s δ or BM25L's shift.
        for v in Bm25Variant::ALL {
            assert_eq!(w(v, 0.0), 0.0, "{v}");
        }
        // b = 0: the length does not matter; an empty collection (avgdl 0) normalises by 1.
        assert_eq!(length_norm(40.0, 120.0, 0.0), 1.0);
        assert_eq!(length_norm(40.0, 0.0, 0.75), 1.0);
        assert_eq!(length_norm(240.0, 120.0, 0.5), 1.5);
    }

    /// The defaults are the reference libraries' own (Lucene's BM25Similarity, rank_bm25's
    /// BM25Okapi / BM25L / BM25Plus, bm25s), and only BM25L and BM25+ have a δ.
    #[test]
    fn defaults_are_the_reference_libraries() {
        let kb = |v: Bm25Variant| {
            let p = v.default_params();
            (p.k1, p.b, p.delta, p.epsilon, p.exact_lengths)
        };
        for v in [Bm25Variant::Lucene, Bm25Variant::Tantivy, Bm25Variant::Textbook] {
            assert_eq!(kb(v), (1.2, 0.75, 0.0, 0.25, false), "{v}");
        }
        for v in [Bm25Variant::Okapi, Bm25Variant::Robertson, Bm25Variant::Atire] {
            assert_eq!(kb(v), (1.5, 0.75, 0.0, 0.25, false), "{v}");
        }
        assert_eq!(kb(Bm25Variant::Bm25l), (1.5, 0.75, 0.5, 0.25, false));
        assert_eq!(kb(Bm25Variant::Bm25Plus), (1.5, 0.75, 1.0, 0.25, false));
        let with_delta: Vec<_> = Bm25Variant::ALL.into_iter().filter(|v| v.uses_delta()).collect();
        assert_eq!(with_delta, [Bm25Variant::Bm25l, Bm25Variant::Bm25Plus]);
    }

    /// The formulas in symbols say what the variant computes: its idf (one per formula, Lucene and
    /// tantivy sharing theirs), (k1 + 1) where the shape has it, δ where the variant has one.
    #[test]
    fn every_formula_names_its_own_parts() {
        let idfs: std::collections::BTreeSet<_> = Bm25Variant::ALL.iter().map(|v| v.idf_formula()).collect();
        assert_eq!(idfs.len(), 7);
        assert_eq!(Bm25Variant::Lucene.idf_formula(), "idf = ln(1 + (N − n + 0.5)/(n + 0.5))");
        assert_eq!(Bm25Variant::Textbook.idf_formula(), "idf = log10(N/n)");
        for v in Bm25Variant::ALL {
            let f = v.formula();
            assert!(f.starts_with("score = Σ_t qtf · idf · "), "{f}");
            assert!(f.ends_with(v.idf_formula()), "{f}");
            let k1_plus_1 = !matches!(v.tf_shape(), TfShape::Saturating);
            assert_eq!(f.contains("(k1 + 1)"), k1_plus_1, "{f}");
            assert_eq!(f.contains('δ'), v.uses_delta(), "{f}");
            assert_eq!(f.contains("|d|₈"), v == Bm25Variant::Tantivy, "{f}");
        }
        assert_eq!(TfIdfVariant::Textbook.formula(true), "score = Σ_t qtf · log10(tf + 1) · log10(N/df) / |d|");
        assert_eq!(TfIdfVariant::Textbook.formula(false), "score = Σ_t qtf · log10(tf + 1) · log10(N/df)");
        assert!(TfIdfVariant::CosineLog2.formula(false).contains("log2(N/df)"));
        assert_eq!(TfIdfVariant::CosineLog2.formula(true), TfIdfVariant::CosineLog2.formula(false));
    }

    #[test]
    fn tfidf_by_hand() {
        // N = 8, df = 2: log2 4 = 2, log10 4; tf 9: log10 10 = 1 (textbook), 9 (raw count).
        assert_eq!(TfIdfVariant::CosineLog2.idf(8, 2), 2.0);
        assert!((TfIdfVariant::Textbook.idf(8, 2) - 4f64.log10()).abs() < 1e-15);
        assert_eq!(TfIdfVariant::CosineLog2.idf(8, 0), 0.0);
        assert_eq!(TfIdfVariant::Textbook.idf(8, 0), 0.0);
        assert_eq!(TfIdfVariant::CosineLog2.tf_weight(9.0), 9.0);
        assert_eq!(TfIdfVariant::Textbook.tf_weight(9.0), 1.0);
        assert_eq!(TfIdfVariant::CosineLog2.worked_idf(8, 2), "idf = log2(N/df) = log2(8/2) = 2.0000");
        assert_eq!(TfIdfVariant::Textbook.worked_idf(8, 2), "idf = log10(N/df) = log10(8/2) = 0.6021");
        // qtf 2 · log10(9 + 1) · log10(100/10) = 2.
        let s = TermStats { n_docs: 100, df: 10, tf: 9, qtf: 2, dl: 50.0, avgdl: 50.0 };
        assert_eq!(tfidf_textbook_contribution(&s), 2.0);
        // BM25 (Lucene) of the same: qtf 2 · ln(1 + 90.5/10.5) · 9/(9 + 1.2).
        let p = Bm25Variant::Lucene.default_params();
        let want = 2.0 * (1.0f64 + 90.5 / 10.5).ln() * 9.0 / 10.2;
        assert!((bm25_contribution(Bm25Variant::Lucene, &s, &p, 0.0) - want).abs() < 1e-12);
    }

    #[test]
    fn names_parse_with_their_aliases_and_print_as_they_parse() {
        for (alias, v) in [
            ("bm25plus", Bm25Variant::Bm25Plus),
            ("bm25p", Bm25Variant::Bm25Plus),
            ("BM25+", Bm25Variant::Bm25Plus),
            ("anserini", Bm25Variant::Lucene),
            ("Lucene", Bm25Variant::Lucene),
            ("rank_bm25", Bm25Variant::Okapi),
        ] {
            assert_eq!(alias.parse::<Bm25Variant>().ok(), Some(v), "{alias}");
        }
        for v in Bm25Variant::ALL {
            assert_eq!(v.to_string(), v.name());
        }
        let err = "bm99".parse::<Bm25Variant>().expect_err("unknown").to_string();
        assert!(err.contains("lucene, tantivy, okapi, robertson, atire, bm25l, bm25+, textbook"), "{err}");
        for v in TfIdfVariant::ALL {
            assert_eq!(v.to_string().parse::<TfIdfVariant>().ok(), Some(v));
            assert_eq!(v.name().to_uppercase().parse::<TfIdfVariant>().ok(), Some(v));
        }
        assert_eq!(TfIdfVariant::Textbook.to_string(), "textbook");
        assert!("cosine".parse::<TfIdfVariant>().is_err());
    }

    #[test]
    fn parameters_print_as_a_person_writes_them() {
        for (x, s) in [
            (1.2000000000000002, "1.2"),
            (0.9, "0.9"),
            (60.0, "60"),
            (0.0, "0"),
            (-0.0, "0"),
            (-0.0001, "0"),
            (0.1234, "0.123"),
            (1.25, "1.25"),
            (10.5, "10.5"),
            (-2.5, "-2.5"),
        ] {
            assert_eq!(fmt_param(x), s, "{x}");
        }
    }

    #[test]
    fn every_parameter_out_of_range_is_named() {
        let ok = Bm25Variant::Bm25Plus.default_params();
        assert!(ok.validate().is_ok());
        assert!(Bm25Params { k1: 0.0, b: 0.0, ..ok }.validate().is_ok());
        assert!(Bm25Params { b: 1.0, ..ok }.validate().is_ok());
        for (p, field) in [
            (Bm25Params { k1: -0.1, ..ok }, "k1:"),
            (Bm25Params { k1: f64::NAN, ..ok }, "k1:"),
            (Bm25Params { k1: f64::INFINITY, ..ok }, "k1:"),
            (Bm25Params { b: -0.1, ..ok }, "b:"),
            (Bm25Params { b: 1.01, ..ok }, "b:"),
            (Bm25Params { b: f64::NAN, ..ok }, "b:"),
            (Bm25Params { delta: -1.0, ..ok }, "delta:"),
            (Bm25Params { delta: f64::INFINITY, ..ok }, "delta:"),
        ] {
            let e = p.validate().expect_err(field).to_string();
            assert!(e.starts_with(field), "{field} {e}");
        }
    }

    #[test]
    fn an_empty_field_keeps_an_average_length_of_one() {
        let sim = LuceneBm25::new(1.2, 0.75, 0, 0);
        assert_eq!((sim.avgdl, sim.doc_count), (1.0, 0));
        // Length 1 at avgdl 1: 1/(1.2·(0.25 + 0.75)).
        assert!((f64::from(sim.norm_inverse(1)) - 1.0 / 1.2).abs() < 1e-6);
        // 10 tokens in 4 documents: avgdl 2.5, the float Lucene keeps.
        assert_eq!(LuceneBm25::new(1.2, 0.75, 10, 4).avgdl, 2.5);
    }

    #[test]
    fn lucene_bm25_by_hand() {
        // N = 4 non-empty documents of 10, 20, 30, 40 tokens: avgdl = 25. k1 = 1.2, b = 0.75.
        let sim = LuceneBm25::new(1.2, 0.75, 100, 4);
        assert_eq!(sim.avgdl, 25.0);
        // idf(n = 1) = ln(1 + 3.5/1.5) = ln(3.3333) = 1.2039728.
        assert!((f64::from(sim.idf(1)) - (10.0f64 / 3.0).ln()).abs() < 1e-6);
        // 30 tokens: 1/(1.2·(0.25 + 0.75·30/25)) = 1/(1.2·1.15) = 1/1.38 = 0.7246377.
        let inv = sim.norm_inverse(super::small_float::int_to_byte4(30));
        assert!((f64::from(inv) - 1.0 / 1.38).abs() < 1e-6);
        // tf 2, weight 2·idf: w − w/(1 + 2·0.7246377) = w·(1.4492754/2.4492754).
        let w = 2.0 * sim.idf(1);
        let score = LuceneBm25::score(w, 2, inv);
        let by_hand = 2.0 * (10.0f64 / 3.0).ln() * (2.0 / 1.38) / (1.0 + 2.0 / 1.38);
        assert!((f64::from(score) - by_hand).abs() < 1e-5, "{score} vs {by_hand}");
    }
}
