//! The token index for late interaction: every window's token vectors, compressed the way
//! ColBERTv2 compresses them, in one file the index memory-maps.
//!
//! A token vector `v` (L2-normalised) is stored as the id of its nearest centroid `c` (spherical
//! k-means over a sample of the corpus's tokens) and its residual `v − c` quantised to `bits`
//! bits per dimension: each dimension has its own bucket cutoffs (quantiles of that dimension's
//! residuals in the sample) and bucket values (the quantile in the middle of each bucket). A
//! vector is read back as `normalise(c + values[code])`, and late interaction scores with those
//! decompressed vectors — the same ones the Explain view shows. [`Codec::F16`] keeps half
//! precision, the uncompressed reference.
//!
//! Overlapping windows of one long document share their overlap: each word piece of the text is
//! stored once, with the vector from the window in which it sits further from the edge (the
//! overlap is cut halfway), and a window reads the pieces its span covers, its neighbours' among
//! them — so a quarter overlap costs no space, and every piece keeps the context of at least a
//! window's half on its side of the cut. Tokens with no place in the text (a trained ColBERT's
//! `[CLS]`, `[D]`, `[SEP]`) stay each window's own.
//!
//! The file is the token records, one per token (`u32` vocabulary id, then the payload), each
//! document's text tokens in text order and then its windows' own tokens, followed by a footer:
//! the codec, each window's two token ranges (its stretch of the text's tokens, its own tokens),
//! and the windows of each document. A damaged or truncated file is refused with its path named.

use std::io::Write;
use std::ops::Range;
use std::path::{Path, PathBuf};

use half::f16;
use rayon::prelude::*;
use serde::{Deserialize, Serialize};

use super::dot::dot16;
use super::windows::Windows;
use crate::models::TokenVectors;
use crate::progress::{Progress, check_cancel};
use crate::{Error, Result};

/// Bits per dimension of a compressed residual.
pub const DEFAULT_BITS: u8 = 2;
/// Token vectors the compression learns its centroids and buckets from.
pub const SAMPLE_TOKENS: usize = 65_536;
/// Sample token vectors per centroid.
const TOKENS_PER_CENTROID: usize = 32;
/// Most centroids learned.
pub const MAX_CENTROIDS: usize = 2_048;
/// Rounds of k-means.
const KMEANS_ROUNDS: usize = 6;
const MAGIC: &[u8; 8] = b"RLTOKIX2";

fn normalise(v: &mut [f32]) {
    let n = dot16(v, v).sqrt();
    if n > 0.0 {
        let inv = 1.0 / n;
        for x in v.iter_mut() {
            *x *= inv;
        }
    }
}

/// How token vectors are stored.
#[derive(Debug, Clone, PartialEq)]
pub enum Codec {
    /// Half precision: the uncompressed reference.
    F16 {
        /// Vector size.
        dim: usize,
    },
    /// A centroid id and a quantised residual per token.
    Residual(Residual),
}

/// ColBERTv2-style residual compression (see the module documentation).
#[derive(Debug, Clone, PartialEq)]
pub struct Residual {
    /// Vector size.
    pub dim: usize,
    /// Bits per dimension (1, 2, 4 or 8).
    pub bits: u8,
    /// Unit-length centroids, row-major `k × dim`.
    pub centroids: Vec<f32>,
    /// Per dimension, the `2^bits − 1` bucket cutoffs, ascending.
    pub cutoffs: Vec<f32>,
    /// Per dimension, the `2^bits` bucket values.
    pub values: Vec<f32>,
    /// For each byte of codes and each value of that byte, the bucket values of the dimensions
    /// it holds (`8 / bits` of them): decoding reads one entry per byte.
    table: Vec<f32>,
}

impl Residual {
    fn levels(&self) -> usize {
        1 << self.bits
    }

    /// A codec from its parts (the decoding table is derived from them).
    pub fn new(dim: usize, bits: u8, centroids: Vec<f32>, cutoffs: Vec<f32>, values: Vec<f32>) -> Residual {
        let mut r = Residual { dim, bits, centroids, cutoffs, values, table: Vec::new() };
        let (per, levels) = (8 / bits as usize, 1usize << bits);
        let bytes = (dim * bits as usize).div_ceil(8);
        let mask = (levels - 1) as u8;
        r.table = vec![0f32; bytes * 256 * per];
        for p in 0..bytes {
            for byte in 0..256usize {
                for i in 0..per {
                    let d = p * per + i;
                    if d < dim {
                        let code = ((byte as u8 >> (i * bits as usize)) & mask) as usize;
                        r.table[(p * 256 + byte) * per + i] = r.values[d * levels + code];
                    }
                }
            }
        }
        r
    }

    /// Number of centroids.
    pub fn k(&self) -> usize {
        self.centroids.len().checked_div(self.dim).unwrap_or(0)
    }

    fn centroid(&self, c: usize) -> &[f32] {
        &self.centroids[c * self.dim..(c + 1) * self.dim]
    }

    /// The centroid with the largest `dot16` with `v` (the first of equals).
    fn nearest(&self, v: &[f32]) -> usize {
        let (mut best, mut score) = (0, f32::NEG_INFINITY);
        for c in 0..self.k() {
            let s = dot16(v, self.centroid(c));
            if s > score {
                (best, score) = (c, s);
            }
        }
        best
    }

    /// [`Residual::nearest`] of each row of `rows` (`dim` wide), the same centroids, found
    /// faster: one matrix product scores every centroid in any order of sums (fast, but its
    /// last bits differ from `dot16`'s and between CPUs), and only the centroids it scores within
    /// a bound of the best are scored again with `dot16` to pick among them. Both scores are
    /// within `(dim + 64)·2⁻²⁴·‖v‖·‖c‖` of the exact one (rounding error of a sum of `dim`
    /// products), so the centroid `dot16` ranks first is always among those scored again; the
    /// bound taken is eight times that.
    fn nearest_rows(&self, rows: &[f32]) -> Vec<usize> {
        let (dim, k) = (self.dim.max(1), self.k());
        let n = rows.len() / dim;
        let row = |i: usize| &rows[i * dim..(i + 1) * dim];
        let norm = |v: &[f32]| v.iter().map(|&x| x as f64 * x as f64).sum::<f64>().sqrt();
        let widest = (0..k).map(|c| norm(self.centroid(c))).fold(0f64, f64::max);
        let mut scores = vec![0f32; n * k];
        let product = crate::models::fast_bert::matmul(
            &mut scores,
            (n, k, dim),
            (k as isize, 1),
            (rows, dim as isize, 1),
            (&self.centroids, 1, dim as isize),
            1.0,
            false,
        );
        if k == 0 || product.is_err() {
            return (0..n).map(|i| self.nearest(row(i))).collect();
        }
        let unit = 8.0 * (dim + 64) as f64 * 2f64.powi(-24) * widest;
        (0..n)
            .map(|i| {
                let v = row(i);
                let s = &scores[i * k..(i + 1) * k];
                let top = s.iter().copied().fold(f32::NEG_INFINITY, f32::max) as f64;
                let floor = top - unit * norm(v);
                if !floor.is_finite() {
                    return self.nearest(v);
                }
                let (mut best, mut score) = (0, f32::NEG_INFINITY);
                for (c, &a) in s.iter().enumerate() {
                    if a as f64 >= floor {
                        let e = dot16(v, self.centroid(c));
                        if e > score {
                            (best, score) = (c, e);
                        }
                    }
                }
                best
            })
            .collect()
    }

    fn bucket(&self, d: usize, x: f32) -> usize {
        let l = self.levels() - 1;
        self.cutoffs[d * l..(d + 1) * l].iter().take_while(|&&c| c <= x).count()
    }

    /// Learn the centroids and buckets from sample vectors (row-major, `dim` wide, unit length).
    pub fn train(sample: &[f32], dim: usize, bits: u8, progress: &dyn Progress) -> Result<Residual> {
        if !matches!(bits, 1 | 2 | 4 | 8) {
            return Err(Error::invalid("bits", format!("token compression takes 1, 2, 4 or 8 bits, not {bits}")));
        }
        let n = sample.len().checked_div(dim).unwrap_or(0);
        if n == 0 {
            return Err(Error::invalid("token index", "no token vectors to learn the compression from"));
        }
        let k = (n / TOKENS_PER_CENTROID).clamp(1, MAX_CENTROIDS).next_power_of_two().min(MAX_CENTROIDS).min(n);
        let row = |i: usize| &sample[i * dim..(i + 1) * dim];
        // Start from k sample rows spread evenly over the sample.
        let mut centroids: Vec<f32> = (0..k).flat_map(|c| row(c * n / k).iter().copied()).collect();
        let mut codec = Residual {
            dim,
            bits,
            centroids: centroids.clone(),
            cutoffs: Vec::new(),
            values: Vec::new(),
            table: Vec::new(),
        };
        progress.stage(
            &format!("learning the token compression: {k} centroids from {n} token vectors"),
            KMEANS_ROUNDS as u64,
        );
        let mut assign = vec![0usize; n];
        for _ in 0..KMEANS_ROUNDS {
            check_cancel(progress)?;
            assign = nearest_in_blocks(&codec, sample);
            let mut sums = vec![0f32; k * dim];
            let mut counts = vec![0usize; k];
            for (i, &c) in assign.iter().enumerate() {
                counts[c] += 1;
                for (s, x) in sums[c * dim..(c + 1) * dim].iter_mut().zip(row(i)) {
                    *s += x;
                }
            }
            for c in 0..k {
                if counts[c] > 0 {
                    let mut m = sums[c * dim..(c + 1) * dim].to_vec();
                    normalise(&mut m);
                    centroids[c * dim..(c + 1) * dim].copy_from_slice(&m);
                }
            }
            codec.centroids.clone_from(&centroids);
            progress.advance(1);
        }
        assign = nearest_in_blocks(&codec, sample);
        let levels = codec.levels();
        let mut cutoffs = Vec::with_capacity(dim * (levels - 1));
        let mut values = Vec::with_capacity(dim * levels);
        let mut column = vec![0f32; n];
        for d in 0..dim {
            for (i, &c) in assign.iter().enumerate() {
                column[i] = sample[i * dim + d] - codec.centroids[c * dim + d];
            }
            column.sort_by(f32::total_cmp);
            let quantile = |q: f64| column[((q * n as f64) as usize).min(n - 1)];
            // Each cutoff halfway between two neighbouring sample values, so no sample value sits
            // on a boundary where the last bit of a float (another CPU's kernels) would flip it.
            let between = |q: f64| {
                let i = ((q * n as f64) as usize).min(n - 1);
                let (a, b) = (column[i.saturating_sub(1)], column[i]);
                a + (b - a) / 2.0
            };
            cutoffs.extend((1..levels).map(|j| between(j as f64 / levels as f64)));
            values.extend((0..levels).map(|j| quantile((j as f64 + 0.5) / levels as f64)));
        }
        Ok(Residual::new(dim, bits, codec.centroids, cutoffs, values))
    }
}

/// [`Residual::nearest_rows`] of every row of `sample`, in blocks of rows on every core.
fn nearest_in_blocks(codec: &Residual, sample: &[f32]) -> Vec<usize> {
    sample.par_chunks(256 * codec.dim.max(1)).flat_map_iter(|block| codec.nearest_rows(block)).collect()
}

impl Codec {
    /// Vector size.
    pub fn dim(&self) -> usize {
        match self {
            Codec::F16 { dim } => *dim,
            Codec::Residual(r) => r.dim,
        }
    }

    /// Bytes of one token's record (its id included).
    pub fn record_bytes(&self) -> usize {
        4 + match self {
            Codec::F16 { dim } => dim * 2,
            Codec::Residual(r) => 2 + (r.dim * r.bits as usize).div_ceil(8),
        }
    }

    /// What the index holds, for labels: `2-bit residuals over 4096 centroids`.
    pub fn describe(&self) -> String {
        match self {
            Codec::F16 { .. } => "f16, uncompressed".into(),
            Codec::Residual(r) => format!("{}-bit residuals over {} centroids", r.bits, r.k()),
        }
    }

    /// Append one token's record.
    pub fn encode(&self, id: u32, v: &[f32], out: &mut Vec<u8>) {
        let nearest = match self {
            Codec::F16 { .. } => 0,
            Codec::Residual(r) => r.nearest(v),
        };
        self.encode_near(id, v, nearest, out);
    }

    /// Append one token's record, `nearest` being its centroid (for a residual codec).
    fn encode_near(&self, id: u32, v: &[f32], nearest: usize, out: &mut Vec<u8>) {
        out.extend_from_slice(&id.to_le_bytes());
        match self {
            Codec::F16 { .. } => {
                for x in v {
                    out.extend_from_slice(&f16::from_f32(*x).to_le_bytes());
                }
            }
            Codec::Residual(r) => {
                let c = nearest;
                out.extend_from_slice(&(c as u16).to_le_bytes());
                let centroid = r.centroid(c);
                let start = out.len();
                out.resize(start + (r.dim * r.bits as usize).div_ceil(8), 0);
                for d in 0..r.dim {
                    let code = r.bucket(d, v[d] - centroid[d]) as u8;
                    let bit = d * r.bits as usize;
                    out[start + bit / 8] |= code << (bit % 8);
                }
            }
        }
    }

    /// Read one token's record into `out` (`dim` wide); returns its vocabulary id.
    pub fn decode(&self, record: &[u8], out: &mut [f32]) -> u32 {
        let id = u32::from_le_bytes([record[0], record[1], record[2], record[3]]);
        match self {
            Codec::F16 { .. } => {
                for (x, b) in out.iter_mut().zip(record[4..].chunks_exact(2)) {
                    *x = f16::from_le_bytes([b[0], b[1]]).to_f32();
                }
            }
            Codec::Residual(r) => {
                let c = u16::from_le_bytes([record[4], record[5]]) as usize;
                let centroid = r.centroid(c.min(r.k().saturating_sub(1)));
                let per = 8 / r.bits as usize;
                for (p, &byte) in record[6..].iter().enumerate() {
                    let entry = &r.table[(p * 256 + byte as usize) * per..][..per];
                    let base = p * per;
                    let n = per.min(r.dim.saturating_sub(base));
                    for i in 0..n {
                        out[base + i] = centroid[base + i] + entry[i];
                    }
                }
                normalise(out);
            }
        }
        id
    }

    /// Append every token of a text.
    /// Append every token of a text: the records [`Codec::encode`] makes one by one, with every
    /// token's centroid found in one product.
    pub fn encode_all(&self, t: &TokenVectors, out: &mut Vec<u8>) {
        let nearest = match self {
            Codec::F16 { .. } => vec![0; t.ids.len()],
            Codec::Residual(r) if t.dim == r.dim && t.data.len() >= t.ids.len() * r.dim => {
                r.nearest_rows(&t.data[..t.ids.len() * r.dim])
            }
            Codec::Residual(r) => (0..t.ids.len()).map(|i| r.nearest(t.row(i))).collect(),
        };
        for (i, &id) in t.ids.iter().enumerate() {
            self.encode_near(id, t.row(i), nearest.get(i).copied().unwrap_or(0), out);
        }
    }

    fn to_bytes(&self) -> Vec<u8> {
        let mut out = Vec::new();
        let f32s = |out: &mut Vec<u8>, v: &[f32]| {
            out.extend_from_slice(&(v.len() as u64).to_le_bytes());
            for x in v {
                out.extend_from_slice(&x.to_le_bytes());
            }
        };
        match self {
            Codec::F16 { dim } => {
                out.push(0);
                out.extend_from_slice(&(*dim as u32).to_le_bytes());
            }
            Codec::Residual(r) => {
                out.push(r.bits);
                out.extend_from_slice(&(r.dim as u32).to_le_bytes());
                f32s(&mut out, &r.centroids);
                f32s(&mut out, &r.cutoffs);
                f32s(&mut out, &r.values);
            }
        }
        out
    }

    fn from_reader(r: &mut Reader<'_>) -> Option<Codec> {
        let bits = r.u8()?;
        let dim = r.u32()? as usize;
        if dim == 0 || dim > 65_536 {
            return None;
        }
        if bits == 0 {
            return Some(Codec::F16 { dim });
        }
        if !matches!(bits, 1 | 2 | 4 | 8) {
            return None;
        }
        let (centroids, cutoffs, values) = (r.f32s()?, r.f32s()?, r.f32s()?);
        let levels = 1usize << bits;
        let ok = !centroids.is_empty()
            && centroids.len() % dim == 0
            && centroids.len() / dim <= 65_536
            && cutoffs.len() == dim * (levels - 1)
            && values.len() == dim * levels;
        ok.then(|| Codec::Residual(Residual::new(dim, bits, centroids, cutoffs, values)))
    }

    /// The codec as bytes, to keep it while an index is built (see [`Codec::from_bytes`]).
    pub fn bytes(&self) -> Vec<u8> {
        self.to_bytes()
    }

    /// A codec saved with [`Codec::bytes`] (`None` when the bytes are not one).
    pub fn from_bytes(b: &[u8]) -> Option<Codec> {
        let mut r = Reader { b, at: 0 };
        let c = Codec::from_reader(&mut r)?;
        (r.at == b.len()).then_some(c)
    }

    /// A short fingerprint of the codec (sha256 of its bytes, 16 hex digits).
    pub fn fingerprint(&self) -> String {
        crate::models::text_hash(&hex::encode(self.to_bytes()))[..16].to_string()
    }
}

struct Reader<'a> {
    b: &'a [u8],
    at: usize,
}

impl Reader<'_> {
    fn take(&mut self, n: usize) -> Option<&[u8]> {
        let s = self.b.get(self.at..self.at.checked_add(n)?)?;
        self.at += n;
        Some(s)
    }
    fn u8(&mut self) -> Option<u8> {
        self.take(1).map(|b| b[0])
    }
    fn u32(&mut self) -> Option<u32> {
        self.take(4).map(|b| u32::from_le_bytes([b[0], b[1], b[2], b[3]]))
    }
    fn u64(&mut self) -> Option<u64> {
        let b = self.take(8)?;
        Some(u64::from_le_bytes(b.try_into().ok()?))
    }
    fn len(&mut self, each: usize) -> Option<usize> {
        let n = usize::try_from(self.u64()?).ok()?;
        (n.checked_mul(each)? <= self.b.len() - self.at).then_some(n)
    }
    fn f32s(&mut self) -> Option<Vec<f32>> {
        let n = self.len(4)?;
        Some(self.take(n * 4)?.chunks_exact(4).map(|c| f32::from_le_bytes([c[0], c[1], c[2], c[3]])).collect())
    }
    fn u64s(&mut self) -> Option<Vec<u64>> {
        let n = self.len(8)?;
        self.take(n * 8)?.chunks_exact(8).map(|c| c.try_into().ok().map(u64::from_le_bytes)).collect()
    }
    fn u32s(&mut self) -> Option<Vec<u32>> {
        let n = self.len(4)?;
        Some(self.take(n * 4)?.chunks_exact(4).map(|c| u32::from_le_bytes([c[0], c[1], c[2], c[3]])).collect())
    }
}

fn put_u64s(out: &mut Vec<u8>, v: impl ExactSizeIterator<Item = u64>) {
    out.extend_from_slice(&(v.len() as u64).to_le_bytes());
    for x in v {
        out.extend_from_slice(&x.to_le_bytes());
    }
}

fn put_u32s(out: &mut Vec<u8>, v: &[u32]) {
    out.extend_from_slice(&(v.len() as u64).to_le_bytes());
    for x in v {
        out.extend_from_slice(&x.to_le_bytes());
    }
}

/// What the footer says about the index.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
struct Meta {
    model_id: String,
    trained: bool,
}

enum Bytes {
    Memory(Vec<u8>),
    Mapped(memmap2::Mmap),
}

impl std::ops::Deref for Bytes {
    type Target = [u8];
    fn deref(&self) -> &[u8] {
        match self {
            Bytes::Memory(v) => v,
            Bytes::Mapped(m) => m,
        }
    }
}

/// Every window's token vectors, compressed (see the module documentation).
pub struct TokenIndex {
    /// The model that made the vectors.
    pub model_id: String,
    /// True for a trained ColBERT; false for a bi-encoder's contextual token states.
    pub trained: bool,
    /// How the vectors are stored.
    pub codec: Codec,
    /// Which stretch of which document each row is.
    pub windows: Windows,
    /// Per row, four token indexes: the range of the document's text tokens its span covers, and
    /// the range of its own tokens (see the module documentation).
    ranges: Vec<u64>,
    /// Tokens stored.
    tokens: u64,
    bytes: Bytes,
    /// Where the index is mapped from (none when in memory).
    pub path: Option<PathBuf>,
}

impl std::fmt::Debug for TokenIndex {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("TokenIndex")
            .field("model_id", &self.model_id)
            .field("codec", &self.codec.describe())
            .field("rows", &self.rows())
            .field("tokens", &self.total_tokens())
            .finish()
    }
}

/// One row's tokens read back: vocabulary ids and unit vectors (`ids.len() × dim`).
#[derive(Debug, Clone, Default, PartialEq)]
pub struct RowTokens {
    /// Vocabulary ids.
    pub ids: Vec<u32>,
    /// Row-major vectors.
    pub data: Vec<f32>,
}

impl TokenIndex {
    /// Vector size.
    pub fn dim(&self) -> usize {
        self.codec.dim()
    }

    /// Encoded rows (windows).
    pub fn rows(&self) -> usize {
        self.ranges.len() / 4
    }

    /// Token vectors stored (a piece in two windows' overlap counts once).
    pub fn total_tokens(&self) -> u64 {
        self.tokens
    }

    /// Token vectors the rows read (a piece in two windows' overlap counts twice).
    pub fn row_tokens(&self) -> u64 {
        self.ranges.chunks_exact(2).map(|r| r[1] - r[0]).sum()
    }

    /// Bytes of the index (the file, or the memory it takes).
    pub fn size_bytes(&self) -> usize {
        self.bytes.len() + self.ranges.len() * 8
    }

    /// The two token ranges of a row (its stretch of the text's tokens, its own tokens).
    pub fn row_ranges(&self, row: usize) -> Option<[Range<u64>; 2]> {
        let r = self.ranges.get(4 * row..4 * row + 4)?;
        Some([r[0]..r[1], r[2]..r[3]])
    }

    /// Read one row's tokens back into `out`: the text's tokens its span covers, then its own.
    pub fn read_row(&self, row: usize, out: &mut RowTokens) -> Result<()> {
        let Some(ranges) = self.row_ranges(row) else {
            return Err(Error::invalid("token index", format!("row {row} is not in the index")));
        };
        out.ids.clear();
        out.data.clear();
        for r in ranges {
            self.append_tokens(r, out)
                .ok_or_else(|| Error::invalid("token index", format!("row {row} lies past the end of the file")))?;
        }
        Ok(())
    }

    /// Read stored tokens `range` back into `out` (replacing what it held).
    pub fn read_tokens(&self, range: Range<u64>, out: &mut RowTokens) -> Result<()> {
        out.ids.clear();
        out.data.clear();
        self.append_tokens(range.clone(), out).ok_or_else(|| {
            Error::invalid("token index", format!("tokens {}..{} lie past the end of the file", range.start, range.end))
        })
    }

    fn append_tokens(&self, range: Range<u64>, out: &mut RowTokens) -> Option<()> {
        let (dim, rec) = (self.dim(), self.codec.record_bytes());
        let bytes = self.bytes.get(usize::try_from(range.start).ok()? * rec..usize::try_from(range.end).ok()? * rec)?;
        let at = out.data.len();
        out.data.resize(at + bytes.len() / rec * dim, 0.0);
        for (i, record) in bytes.chunks_exact(rec).enumerate() {
            out.ids.push(self.codec.decode(record, &mut out.data[at + i * dim..at + (i + 1) * dim]));
        }
        Some(())
    }

    /// Open an index written by [`TokenWriter::finish`], memory-mapped.
    pub fn open(path: &Path) -> Result<TokenIndex> {
        let file = std::fs::File::open(path).map_err(|e| Error::io(path, e))?;
        // SAFETY: the file is RankLens's own, written once (atomically renamed into place) and
        // never modified afterwards; every read is bounds-checked against the mapping's length.
        let map = unsafe { memmap2::Mmap::map(&file) }.map_err(|e| Error::io(path, e))?;
        Self::from_bytes(Bytes::Mapped(map), Some(path.to_path_buf()))
    }

    fn from_bytes(bytes: Bytes, path: Option<PathBuf>) -> Result<TokenIndex> {
        let bad = || {
            Error::invalid(
                "token index",
                format!(
                    "{} is not a whole RankLens token index (damaged or cut short); it will be built again",
                    path.as_deref().map_or("the index".into(), |p| p.display().to_string())
                ),
            )
        };
        let len = bytes.len();
        if len < 16 || &bytes[len - 8..] != MAGIC {
            return Err(bad());
        }
        let footer_at = usize::try_from(u64::from_le_bytes(bytes[len - 16..len - 8].try_into().map_err(|_| bad())?))
            .map_err(|_| bad())?;
        let footer = bytes.get(footer_at..len - 16).ok_or_else(bad)?;
        let mut r = Reader { b: footer, at: 0 };
        let parsed = (|| {
            let meta_len = r.u32()? as usize;
            let meta: Meta = serde_json::from_slice(r.take(meta_len)?).ok()?;
            let codec = Codec::from_reader(&mut r)?;
            let tokens = r.u64()?;
            let ranges = r.u64s()?;
            let doc_starts = r.u32s()?;
            let spans = r.u32s()?;
            Some((meta, codec, tokens, ranges, doc_starts, spans))
        })();
        let (meta, codec, tokens, ranges, doc_starts, spans) = parsed.ok_or_else(bad)?;
        let fits = ranges.len().is_multiple_of(4)
            && ranges.chunks_exact(2).all(|r| r[0] <= r[1] && r[1] <= tokens)
            && tokens.checked_mul(codec.record_bytes() as u64) == Some(footer_at as u64);
        let windows = Windows::from_parts(doc_starts, spans).ok_or_else(bad)?;
        if !fits || windows.rows() != ranges.len() / 4 {
            return Err(bad());
        }
        Ok(TokenIndex { model_id: meta.model_id, trained: meta.trained, codec, windows, ranges, tokens, bytes, path })
    }
}

/// Where a [`TokenWriter`] puts the records.
enum Sink {
    Memory(Vec<u8>),
    File { file: std::io::BufWriter<std::fs::File>, staging: PathBuf, path: PathBuf, written: u64 },
}

/// Writes a token index one row (or one document's rows) at a time, in row order.
pub struct TokenWriter {
    codec: Codec,
    sink: Sink,
    tokens: u64,
    ranges: Vec<u64>,
}

impl TokenWriter {
    /// Write into memory.
    pub fn in_memory(codec: Codec) -> TokenWriter {
        TokenWriter { codec, sink: Sink::Memory(Vec::new()), tokens: 0, ranges: Vec::new() }
    }

    /// Write to `path` (through a staging file renamed into place when finished).
    pub fn to_file(codec: Codec, path: &Path) -> Result<TokenWriter> {
        if let Some(dir) = path.parent() {
            std::fs::create_dir_all(dir).map_err(|e| Error::io(dir, e))?;
        }
        let staging = crate::fsutil::staging_path(path);
        let file = std::fs::File::create(&staging).map_err(|e| Error::io(&staging, e))?;
        Ok(TokenWriter {
            codec,
            sink: Sink::File { file: std::io::BufWriter::new(file), staging, path: path.to_path_buf(), written: 0 },
            tokens: 0,
            ranges: Vec::new(),
        })
    }

    /// The codec records are written with.
    pub fn codec(&self) -> &Codec {
        &self.codec
    }

    /// Append one row given as records made by [`Codec::encode_all`] with this writer's codec.
    pub fn push_records(&mut self, records: &[u8]) -> Result<()> {
        let start = self.tokens;
        self.push_tokens(records)?;
        self.ranges.extend([start, self.tokens, self.tokens, self.tokens]);
        Ok(())
    }

    /// Append the rows of one document cut into overlapping windows, storing each piece of its
    /// text once (see the module documentation). `rows` are each window's records, `starts` the
    /// byte where each of those tokens starts in the window's text (`None`: a token with no place
    /// in the text), `spans` each window's byte range in the document. When these do not fit
    /// together, every row is stored whole.
    pub fn push_doc(&mut self, rows: &[Vec<u8>], starts: &[Vec<Option<usize>>], spans: &[Range<usize>]) -> Result<()> {
        let rec = self.codec.record_bytes();
        let n = rows.len();
        let fits = n == starts.len()
            && n == spans.len()
            && rows.iter().zip(starts).all(|(r, s)| r.len() == s.len() * rec)
            && spans.windows(2).all(|w| w[0].start <= w[1].start && w[0].end <= w[1].end);
        if n < 2 || !fits {
            return rows.iter().try_for_each(|r| self.push_records(r));
        }
        // Window i keeps the text's pieces starting in [cut i, cut i+1): the overlap with each
        // neighbour is cut halfway.
        let mut cuts = vec![0usize; n + 1];
        cuts[n] = usize::MAX;
        for i in 1..n {
            let (start, prev_end) = (spans[i].start, spans[i - 1].end);
            let c = if prev_end > start { start + (prev_end - start) / 2 } else { start };
            cuts[i] = c.max(cuts[i - 1]);
        }
        let mut text: Vec<(usize, &[u8])> = Vec::new();
        let mut own: Vec<Vec<&[u8]>> = vec![Vec::new(); n];
        for i in 0..n {
            for (record, s) in rows[i].chunks_exact(rec).zip(&starts[i]) {
                match s.map(|s| spans[i].start + s) {
                    Some(at) if (cuts[i]..cuts[i + 1]).contains(&at) => text.push((at, record)),
                    Some(_) => {}
                    None => own[i].push(record),
                }
            }
        }
        let base = self.tokens;
        let mut records = Vec::with_capacity(text.len() * rec);
        for (_, r) in &text {
            records.extend_from_slice(r);
        }
        self.push_tokens(&records)?;
        for (i, span) in spans.iter().enumerate() {
            let a = text.partition_point(|(at, _)| *at < span.start) as u64;
            let b = text.partition_point(|(at, _)| *at < span.end) as u64;
            let start = self.tokens;
            let mine: Vec<u8> = own[i].concat();
            self.push_tokens(&mine)?;
            self.ranges.extend([base + a, base + b.max(a), start, self.tokens]);
        }
        Ok(())
    }

    /// Append records that belong to no row yet (see [`TokenWriter::finish_like`]).
    pub fn push_tokens(&mut self, records: &[u8]) -> Result<()> {
        let rec = self.codec.record_bytes();
        if !records.len().is_multiple_of(rec) {
            return Err(Error::invalid("token index", "a row's records do not fit the codec"));
        }
        match &mut self.sink {
            Sink::Memory(v) => v.extend_from_slice(records),
            Sink::File { file, staging, written, .. } => {
                file.write_all(records).map_err(|e| Error::io(staging.as_path(), e))?;
                *written += records.len() as u64;
            }
        }
        self.tokens += (records.len() / rec) as u64;
        Ok(())
    }

    /// Rows written so far.
    pub fn rows(&self) -> usize {
        self.ranges.len() / 4
    }

    /// Write the footer with the rows of `other` (the same tokens, in the same order, through
    /// [`TokenWriter::push_tokens`]) and open the index.
    pub fn finish_like(mut self, other: &TokenIndex) -> Result<TokenIndex> {
        if self.tokens != other.tokens {
            return Err(Error::invalid(
                "token index",
                format!("{} tokens written for an index of {}", self.tokens, other.tokens),
            ));
        }
        self.ranges.clone_from(&other.ranges);
        self.finish(&other.model_id, other.trained, other.windows.clone())
    }

    /// Write the footer and open the index.
    pub fn finish(self, model_id: &str, trained: bool, windows: Windows) -> Result<TokenIndex> {
        if windows.rows() != self.rows() {
            return Err(Error::invalid(
                "token index",
                format!("{} rows written for {} windows", self.rows(), windows.rows()),
            ));
        }
        let mut footer = Vec::new();
        let meta = serde_json::to_vec(&Meta { model_id: model_id.to_string(), trained })
            .map_err(|e| Error::caused("token index", e))?;
        footer.extend_from_slice(&(meta.len() as u32).to_le_bytes());
        footer.extend_from_slice(&meta);
        footer.extend_from_slice(&self.codec.to_bytes());
        footer.extend_from_slice(&self.tokens.to_le_bytes());
        put_u64s(&mut footer, self.ranges.iter().copied());
        let (doc_starts, spans) = windows.parts();
        put_u32s(&mut footer, doc_starts);
        put_u32s(&mut footer, spans);
        match self.sink {
            Sink::Memory(mut v) => {
                let at = v.len() as u64;
                v.extend_from_slice(&footer);
                v.extend_from_slice(&at.to_le_bytes());
                v.extend_from_slice(MAGIC);
                TokenIndex::from_bytes(Bytes::Memory(v), None)
            }
            Sink::File { mut file, staging, path, written } => {
                let done = (|| {
                    file.write_all(&footer)?;
                    file.write_all(&written.to_le_bytes())?;
                    file.write_all(MAGIC)?;
                    file.flush()?;
                    file.get_ref().sync_all()
                })();
                drop(file);
                if let Err(e) = done.and_then(|_| std::fs::rename(&staging, &path)) {
                    let _ = std::fs::remove_file(&staging);
                    return Err(Error::io(&path, e));
                }
                TokenIndex::open(&path)
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use proptest::prelude::*;

    use super::*;
    use crate::progress::NoProgress;

    fn unit(v: &[f32]) -> Vec<f32> {
        let mut v = v.to_vec();
        normalise(&mut v);
        v
    }

    #[test]
    fn a_two_bit_code_by_hand() {
        // One centroid (1, 0) and hand-set buckets for 2 dims at 2 bits: cutoffs −0.5, 0, 0.5;
        // values −0.75, −0.25, 0.25, 0.75.
        let r = Residual::new(
            2,
            2,
            vec![1.0, 0.0],
            vec![-0.5, 0.0, 0.5, -0.5, 0.0, 0.5],
            vec![-0.75, -0.25, 0.25, 0.75, -0.75, -0.25, 0.25, 0.75],
        );
        let codec = Codec::Residual(r);
        let v = unit(&[0.6, 0.8]); // (0.6, 0.8): residual (−0.4, 0.8) → buckets 1 and 3
        let mut rec = Vec::new();
        codec.encode(42, &v, &mut rec);
        assert_eq!(rec.len(), codec.record_bytes());
        assert_eq!(rec, [42, 0, 0, 0, 0, 0, 0b1101]);
        let mut out = [0f32; 2];
        assert_eq!(codec.decode(&rec, &mut out), 42);
        // (1 − 0.25, 0 + 0.75) = (0.75, 0.75), normalised: (1/√2, 1/√2).
        assert!((out[0] - std::f32::consts::FRAC_1_SQRT_2).abs() < 1e-6 && (out[1] - out[0]).abs() < 1e-7);
    }

    /// Unit vectors around a few directions, deterministic.
    fn clustered(n: usize, dim: usize) -> Vec<f32> {
        let mut seed = 7u64;
        let mut next = || {
            seed = crate::lcg::lcg(seed);
            ((seed >> 33) as f32 / (1u64 << 31) as f32) - 0.5
        };
        let centres: Vec<Vec<f32>> = (0..8).map(|_| unit(&(0..dim).map(|_| next()).collect::<Vec<_>>())).collect();
        (0..n)
            .flat_map(|i| {
                let c = &centres[i % 8];
                unit(&c.iter().map(|x| x + 0.3 * next()).collect::<Vec<_>>())
            })
            .collect()
    }

    #[test]
    fn compressed_vectors_keep_their_direction() {
        let dim = 64;
        let data = clustered(2_000, dim);
        for (bits, worst) in [(1, 0.85), (2, 0.95), (4, 0.99)] {
            let codec = Codec::Residual(Residual::train(&data, dim, bits, &NoProgress).unwrap());
            let mut out = vec![0f32; dim];
            let mut min_cos = 1f32;
            for v in data.chunks_exact(dim) {
                let mut rec = Vec::new();
                codec.encode(0, v, &mut rec);
                codec.decode(&rec, &mut out);
                min_cos = min_cos.min(dot16(v, &out));
            }
            assert!(min_cos > worst, "{bits} bits: the worst vector kept cosine {min_cos}");
        }
    }

    #[test]
    fn overlapping_windows_store_their_overlap_once() {
        // One document in two windows, bytes 0..20 and 12..30 (overlap 12..20, cut at 16).
        // Window 0's tokens start at 0, 4, 8, 12, 16 (ids 10..14), window 1's at 0, 4, 8, 12 of
        // its own text, i.e. 12, 16, 20, 24 of the document (ids 20..23); window 1 also has a
        // token with no place in the text (id 99, a ColBERT marker).
        let codec = Codec::F16 { dim: 2 };
        let records = |ids: &[u32]| {
            let mut out = Vec::new();
            for &id in ids {
                codec.encode(id, &[1.0, 0.0], &mut out);
            }
            out
        };
        let rows = [records(&[10, 11, 12, 13, 14]), records(&[99, 20, 21, 22, 23])];
        let starts =
            [vec![Some(0), Some(4), Some(8), Some(12), Some(16)], vec![None, Some(0), Some(4), Some(8), Some(12)]];
        let mut w = TokenWriter::in_memory(codec.clone());
        w.push_records(&records(&[1, 2])).unwrap(); // a document before, in one window
        w.push_doc(&rows, &starts, &[0..20, 12..30]).unwrap();
        let windows = Windows::from_parts(vec![0, 1, 3], vec![0, 5, 0, 20, 12, 30]).unwrap();
        let index = w.finish("m", true, windows).unwrap();
        // Stored: 1, 2 | 10, 11, 12, 13 (window 0 keeps the text before byte 16), 21, 22, 23
        // (window 1 from 16 on) | 99: 2 + 4 + 3 + 1 = 10 tokens, where the windows hold 12.
        assert_eq!((index.rows(), index.total_tokens()), (3, 10));
        let ids = |row| {
            let mut t = RowTokens::default();
            index.read_row(row, &mut t).unwrap();
            t.ids
        };
        assert_eq!(ids(0), [1, 2]);
        // Window 0 (bytes 0..20) reads up to the piece at 16, which window 1 stored.
        assert_eq!(ids(1), [10, 11, 12, 13, 21]);
        // Window 1 (bytes 12..30) reads from the piece at 12, which window 0 stored, then its own.
        assert_eq!(ids(2), [13, 21, 22, 23, 99]);
        assert_eq!(index.row_tokens(), 2 + 5 + 5, "rows read what their spans cover, and their own");
        // Records that do not fit their starts are stored whole.
        let mut w = TokenWriter::in_memory(codec.clone());
        w.push_doc(&rows, &[vec![Some(0)], vec![]], &[0..20, 12..30]).unwrap();
        assert_eq!(w.tokens, 10);
    }

    #[test]
    fn an_index_reads_back_from_memory_and_from_its_file() {
        let dim = 16;
        let data = clustered(300, dim);
        let codec = Codec::Residual(Residual::train(&data, dim, 2, &NoProgress).unwrap());
        let windows = Windows::from_parts(vec![0, 2, 3], vec![0, 10, 8, 20, 0, 5]).unwrap();
        let rows: [&[f32]; 3] = [&data[..4 * dim], &data[4 * dim..5 * dim], &[]];
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("t.rltok");
        let mut indexes = Vec::new();
        for mut w in [TokenWriter::in_memory(codec.clone()), TokenWriter::to_file(codec.clone(), &path).unwrap()] {
            for r in rows {
                let mut rec = Vec::new();
                for (i, v) in r.chunks_exact(dim).enumerate() {
                    codec.encode(i as u32 + 100, v, &mut rec);
                }
                w.push_records(&rec).unwrap();
            }
            indexes.push(w.finish("m", false, windows.clone()).unwrap());
        }
        let reopened = TokenIndex::open(&path).unwrap();
        for index in indexes.iter().chain([&reopened]) {
            assert_eq!((index.rows(), index.total_tokens(), index.dim()), (3, 5, dim));
            let mut t = RowTokens::default();
            index.read_row(0, &mut t).unwrap();
            assert_eq!(t.ids, [100, 101, 102, 103]);
            assert!(dot16(&t.data[..dim], &data[..dim]) > 0.95);
            index.read_row(2, &mut t).unwrap();
            assert!(t.ids.is_empty());
            assert!(index.read_row(3, &mut t).is_err());
            assert_eq!(index.windows, windows);
        }
        // Cut short: refused, naming the file.
        let bytes = std::fs::read(&path).unwrap();
        std::fs::write(&path, &bytes[..bytes.len() - 3]).unwrap();
        let e = TokenIndex::open(&path).unwrap_err().to_string();
        assert!(e.contains("t.rltok"), "{e}");
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(crate::proptest_cases()))]

        #[test]
        fn centroids_found_in_one_product_are_the_ones_found_one_by_one(
            seed in any::<u64>(),
            dim in 1usize..80,
            k in 1usize..40,
            n in 0usize..30,
            nudge in 12i32..30,
            twins in 0usize..6,
        ) {
            let mut s = seed | 1;
            let mut next = move || {
                s ^= s << 13;
                s ^= s >> 7;
                s ^= s << 17;
                (s >> 40) as f32 / (1u64 << 23) as f32 - 1.0
            };
            let mut centroids: Vec<f32> = (0..k).flat_map(|_| unit(&(0..dim).map(|_| next()).collect::<Vec<_>>())).collect();
            // Near twins of centroid 0 (one coordinate moved by 2^-nudge, where the order of sums
            // decides which is nearer) and an exact twin (the first of equals must be kept).
            for t in 1..=twins.min(k - 1) {
                let mut c = centroids[..dim].to_vec();
                if t > 1 {
                    c[t % dim] += (if t % 2 == 0 { 1.0 } else { -1.0 }) * 2f32.powi(-nudge);
                }
                centroids[t * dim..(t + 1) * dim].copy_from_slice(&c);
            }
            // Rows: random directions, centroid 0 itself and slight moves of it, some not unit.
            let rows: Vec<f32> = (0..n)
                .flat_map(|i| {
                    let mut v: Vec<f32> = match i % 3 {
                        0 => (0..dim).map(|_| next()).collect(),
                        1 => centroids[..dim].to_vec(),
                        _ => centroids[..dim].iter().map(|x| x + next() * 2f32.powi(-nudge)).collect(),
                    };
                    if i % 4 == 0 {
                        v.iter_mut().for_each(|x| *x *= 3.5);
                    }
                    v
                })
                .collect();
            let r = Residual::new(dim, 2, centroids, vec![0.0; dim * 3], vec![0.0; dim * 4]);
            let one_by_one: Vec<usize> = rows.chunks_exact(dim).map(|v| r.nearest(v)).collect();
            prop_assert_eq!(r.nearest_rows(&rows), one_by_one.clone());
            // And the records the codec writes for a text are those it writes token by token.
            let t = TokenVectors {
                ids: (0..n as u32).collect(),
                tokens: vec![String::new(); n],
                positions: (0..n).collect(),
                dim,
                data: rows.clone(),
            };
            let codec = Codec::Residual(r);
            let (mut all, mut each) = (Vec::new(), Vec::new());
            codec.encode_all(&t, &mut all);
            for (i, v) in rows.chunks_exact(dim).enumerate() {
                codec.encode(i as u32, v, &mut each);
            }
            prop_assert_eq!(all, each);
        }

        #[test]
        fn any_bytes_open_or_are_refused(bytes in prop::collection::vec(any::<u8>(), 0..400), tail in any::<bool>()) {
            let mut b = bytes;
            if tail {
                let at = (b.len() as u64).saturating_sub(3).to_le_bytes();
                b.extend_from_slice(&at);
                b.extend_from_slice(MAGIC);
            }
            if let Ok(index) = TokenIndex::from_bytes(Bytes::Memory(b), None) {
                let mut t = RowTokens::default();
                for row in 0..index.rows().min(4) {
                    if index.read_row(row, &mut t).is_ok() {
                        // Whole records only: one vector of `dim` values for each token id.
                        prop_assert_eq!(t.data.len(), t.ids.len() * index.dim());
                    }
                }
                prop_assert!(index.read_row(index.rows(), &mut t).is_err(), "a row past the last was read");
            }
        }

        /// A written index with one byte changed and its end perhaps cut: refused, or each row
        /// read whole and no row past the last; unchanged, its rows read back as written.
        #[test]
        fn a_changed_or_cut_index_reads_whole_rows_or_is_refused(
            at in any::<prop::sample::Index>(), byte in any::<u8>(), cut in 0usize..24,
        ) {
            let codec = Codec::F16 { dim: 2 };
            let mut w = TokenWriter::in_memory(codec.clone());
            for (first, r) in [(7u32, &[0.6f32, 0.8, 1.0, 0.0][..]), (9, &[0.0, 1.0][..]), (0, &[][..])] {
                let mut rec = Vec::new();
                for (i, v) in r.chunks_exact(2).enumerate() {
                    codec.encode(first + i as u32, v, &mut rec);
                }
                w.push_records(&rec).unwrap();
            }
            let windows = Windows::from_parts(vec![0, 2, 3], vec![0, 10, 8, 20, 0, 5]).unwrap();
            let mut b = w.finish("m", false, windows).unwrap().bytes.to_vec();
            let i = at.index(b.len());
            let unchanged = b[i] == byte && cut == 0;
            b[i] = byte;
            b.truncate(b.len() - cut);
            match TokenIndex::from_bytes(Bytes::Memory(b), None) {
                Ok(index) => {
                    let mut t = RowTokens::default();
                    for row in 0..index.rows().min(8) {
                        if index.read_row(row, &mut t).is_ok() {
                            prop_assert_eq!(t.data.len(), t.ids.len() * index.dim());
                        }
                    }
                    prop_assert!(index.read_row(index.rows(), &mut t).is_err(), "a row past the last was read");
                    if unchanged {
                        let ids = |row| {
                            let mut t = RowTokens::default();
                            index.read_row(row, &mut t).map(|()| t.ids).ok()
                        };
                        prop_assert_eq!((ids(0), ids(1), ids(2)), (Some(vec![7, 8]), Some(vec![9]), Some(vec![])));
                    }
                }
                Err(e) => prop_assert!(!unchanged, "the index unchanged was refused: {}", e),
            }
        }

        /// A document of `pieces` word pieces (piece p at bytes 2p..2p+1, id p) cut into windows
        /// of `size` pieces every `stride`, each window with `specials` tokens of its own: every
        /// piece is stored once, and each window reads exactly the pieces in its span, in order,
        /// then its own tokens.
        #[test]
        fn windows_read_their_pieces_however_they_overlap(
            pieces in 1usize..60, size in 1usize..20, stride in 1usize..20, specials in 0usize..3,
        ) {
            let stride = stride.min(size);
            let codec = Codec::F16 { dim: 1 };
            let (mut rows, mut starts, mut spans, mut expected) = (vec![], vec![], vec![], vec![]);
            let mut first = 0;
            loop {
                let last = (first + size).min(pieces);
                let span = 2 * first..2 * last - 1;
                let (mut rec, mut st, mut ids) = (Vec::new(), Vec::new(), Vec::new());
                for sp in 0..specials {
                    let id = 1000 + 10 * spans.len() as u32 + sp as u32;
                    codec.encode(id, &[1.0], &mut rec);
                    st.push(None);
                }
                for p in first..last {
                    codec.encode(p as u32, &[1.0], &mut rec);
                    st.push(Some(2 * p - span.start));
                    ids.push(p as u32);
                }
                ids.extend((0..specials).map(|sp| 1000 + 10 * spans.len() as u32 + sp as u32));
                rows.push(rec);
                starts.push(st);
                spans.push(span);
                expected.push(ids);
                if last == pieces {
                    break;
                }
                first += stride;
            }
            let n = rows.len() as u32;
            let spans_flat: Vec<u32> = spans.iter().flat_map(|s| [s.start as u32, s.end as u32]).collect();
            let windows = Windows::from_parts(vec![0, n], spans_flat).unwrap();
            let mut w = TokenWriter::in_memory(codec);
            w.push_doc(&rows, &starts, &spans).unwrap();
            let index = w.finish("m", true, windows).unwrap();
            let stored = if n > 1 { pieces + specials * n as usize } else { rows[0].len() / 6 };
            prop_assert_eq!(index.total_tokens(), stored as u64);
            let mut t = RowTokens::default();
            for (row, ids) in expected.iter().enumerate() {
                index.read_row(row, &mut t).unwrap();
                if n > 1 {
                    prop_assert_eq!(&t.ids, ids);
                } else {
                    prop_assert_eq!(t.ids.len(), ids.len());
                }
            }
        }

        #[test]
        fn any_bytes_are_a_codec_or_refused(bytes in prop::collection::vec(any::<u8>(), 0..200)) {
            if let Some(c) = Codec::from_bytes(&bytes) {
                prop_assert_eq!(Codec::from_bytes(&c.bytes()), Some(c));
            }
        }

        /// A token index written to a file (f16, or residuals learned from its own vectors at 1,
        /// 2, 4 or 8 bits) opens again with the same model, windows and rows: each token's id,
        /// and its vector exactly as the codec decodes what was written.
        #[test]
        fn a_written_index_opens_with_every_row_as_written(
            docs in prop::collection::vec(prop::collection::vec((0u32..30_000, prop::collection::vec(-1.0f32..1.0, 4)), 0..6), 1..6),
            bits in prop::sample::select(vec![1u8, 2, 4, 8, 16]),
            trained in any::<bool>(),
        ) {
            let dim = 4;
            let unit = |v: &[f32]| -> Vec<f32> {
                let n = v.iter().map(|x| x * x).sum::<f32>().sqrt().max(1e-6);
                v.iter().map(|x| x / n).collect()
            };
            let sample: Vec<f32> = docs.iter().flatten().flat_map(|(_, v)| unit(v)).collect();
            let codec = if bits == 16 || sample.is_empty() {
                Codec::F16 { dim }
            } else {
                Codec::Residual(Residual::train(&sample, dim, bits, &crate::progress::NoProgress).unwrap())
            };
            let dir = tempfile::tempdir().unwrap();
            let path = dir.path().join("t.rltok");
            let mut w = TokenWriter::to_file(codec.clone(), &path).unwrap();
            let mut expected = Vec::new();
            for doc in &docs {
                let mut records = Vec::new();
                let (mut ids, mut data) = (Vec::new(), Vec::new());
                for (id, v) in doc {
                    let start = records.len();
                    codec.encode(*id, &unit(v), &mut records);
                    let mut out = vec![0f32; dim];
                    prop_assert_eq!(codec.decode(&records[start..], &mut out), *id);
                    ids.push(*id);
                    data.extend(out);
                }
                w.push_records(&records).unwrap();
                expected.push((ids, data));
            }
            let n = docs.len() as u32;
            let windows = Windows::from_parts((0..=n).collect(), Vec::new()).unwrap();
            let written = w.finish("model/x", trained, windows.clone()).unwrap();
            let opened = TokenIndex::open(&path).unwrap();
            prop_assert_eq!((opened.model_id.as_str(), opened.trained, &opened.windows), ("model/x", trained, &windows));
            prop_assert_eq!(opened.codec.describe(), codec.describe());
            let (mut a, mut b) = (RowTokens::default(), RowTokens::default());
            for (row, (ids, data)) in expected.iter().enumerate() {
                written.read_row(row, &mut a).unwrap();
                opened.read_row(row, &mut b).unwrap();
                prop_assert_eq!(&a.ids, ids);
                prop_assert_eq!(&b.ids, ids);
                prop_assert_eq!(&a.data, data);
                prop_assert_eq!(&b.data, data);
            }
        }
    }
}
