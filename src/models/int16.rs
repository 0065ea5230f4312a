//! 16-bit integer products for the linear layers: each output channel's weights scaled to the
//! integers −1,023…1,023 once, at load; each input row scaled to integers as it comes; the
//! products summed exactly in i32; the sum scaled back to f32 (row scale × channel scale) with the
//! bias.
//!
//! The kernel is AVX2's `vpmaddwd`: sixteen 16-bit products a register, summed in pairs into
//! eight 32-bit lanes — twice the products per instruction of an f32 FMA. Any 16-bit value costs
//! the same, so the bits go where the model needs them: a row of `i` inputs is scaled to at most
//! ⌊(2³¹ − 1) / (1,023 · i)⌋ (capped at 32,767), so no i32 sum can overflow whatever the values —
//! 5,466 for MiniLM's 384 inputs, 1,366 for its 1,536, 16,400 for splade-tiny's 128.
//!
//! Why not int8 weights (−127…127), the usual dynamic quantisation: measured on all-MiniLM-L6-v2
//! (`ranklens bench-encode --limit 1000 --compare …` on SciFact, AMD EPYC Zen 3), 8-bit weights
//! with these inputs gave a least cosine to f32 of 0.99898 over 1,000 passages, under the 0.999
//! gate; 11-bit weights gave 0.99998, at the same speed (the instruction multiplies 16 bits either
//! way; AVX2's 8-bit `vpmaddubsw` saturates its pair sums). VNNI's `vpdpbusd` (8-bit inputs, four
//! products a lane) would be faster where a CPU has it, at int8's quality; it is not built: the CPU
//! this kernel was written and measured on has no VNNI.
//!
//! The integers are exact, so the kernel and the plain loop ([`linear_int16_portable`]) agree bit
//! for bit: the same integer sums, then one `f32` conversion and one fused multiply-add each.

use rayon::prelude::*;

use crate::{Error, Result};

/// Output columns per panel: two 8-lane registers.
const LANES: usize = 16;
/// Rows per tile of the kernel (two accumulators per row: 12 of the 16 registers).
const TILE_ROWS: usize = 6;
/// The largest weight integer.
const WMAX: f32 = 1023.0;

/// The largest input integer for rows of `i` inputs: no sum of `i` products with weights of at
/// most 1,023 can leave i32.
/// (At least 1: [`PackedInt16::pack`] refuses rows longer than [`MAX_INPUTS`], where even 1
/// would not do.)
pub fn input_limit(i: usize) -> i32 {
    let by_sum = (i32::MAX as u128) / (WMAX as u128 * i.max(1) as u128);
    by_sum.clamp(1, i16::MAX as u128) as i32
}

/// The longest row the kernel takes: ⌊(2³¹ − 1) / 1,023⌋ inputs (BERT's longest is 4,096).
pub const MAX_INPUTS: usize = (i32::MAX / WMAX as i32) as usize;

/// A linear layer's weights (o rows of i, as PyTorch stores them) as integers per output
/// channel (−1,023…1,023), laid out for the kernel: panels of 16 output columns; in each, for every pair of
/// inputs (k, k + 1), the 16 columns' two 16-bit weights side by side in one 32-bit word (k in the
/// low half).
#[derive(Debug, Clone)]
pub struct PackedInt16 {
    outputs: usize,
    inputs: usize,
    /// Input pairs, ⌈i / 2⌉.
    pairs: usize,
    panels: usize,
    data: Vec<u32>,
    /// Each column's scale (its largest |weight| / 1,023; 0 for a column of zeros), padded with zeros
    /// to whole panels.
    scale: Vec<f32>,
}

/// `v` as the low or high half of a word.
#[inline(always)]
fn half(v: i32) -> u32 {
    v as i16 as u16 as u32
}

#[inline(always)]
fn lo(word: u32) -> i32 {
    word as u16 as i16 as i32
}

#[inline(always)]
fn hi(word: u32) -> i32 {
    (word >> 16) as u16 as i16 as i32
}

impl PackedInt16 {
    /// Quantise and pack `w` (o × i, row-major). A weight that is not finite is an error (it
    /// would make its whole column meaningless).
    pub fn pack(w: &[f32], o: usize, i: usize) -> Result<PackedInt16> {
        if Some(w.len()) != o.checked_mul(i) {
            return Err(Error::Model(format!("a {o}×{i} weight has {} values", w.len())));
        }
        if i > MAX_INPUTS {
            return Err(Error::Model(format!("{i} inputs a row: more than the int16 kernel's {MAX_INPUTS}")));
        }
        if let Some(at) = w.iter().position(|v| !v.is_finite()) {
            return Err(Error::Model(format!("weight {} of output {} is {}", at % i.max(1), at / i.max(1), w[at])));
        }
        let pairs = i.div_ceil(2);
        let panels = o.div_ceil(LANES);
        let mut data = vec![0u32; panels * pairs * LANES];
        let mut scale = vec![0f32; panels * LANES];
        for col in 0..o {
            let row = &w[col * i..][..i];
            let m = row.iter().fold(0f32, |a, v| a.max(v.abs()));
            let s = m / WMAX;
            scale[col] = s;
            let q = |k: usize| -> i32 {
                match row.get(k) {
                    Some(&v) if s > 0.0 => (v / s).round_ties_even().clamp(-WMAX, WMAX) as i32,
                    _ => 0,
                }
            };
            let (p, j) = (col / LANES, col % LANES);
            for pr in 0..pairs {
                data[(p * pairs + pr) * LANES + j] = half(q(2 * pr)) | (half(q(2 * pr + 1)) << 16);
            }
        }
        Ok(PackedInt16 { outputs: o, inputs: i, pairs, panels, data, scale })
    }

    /// Output columns.
    pub fn outputs(&self) -> usize {
        self.outputs
    }

    /// Inputs per row.
    pub fn inputs(&self) -> usize {
        self.inputs
    }

    /// The integer weight of output `col`, input `k`.
    pub fn integer(&self, col: usize, k: usize) -> i32 {
        let word = self.data[((col / LANES) * self.pairs + k / 2) * LANES + col % LANES];
        if k.is_multiple_of(2) { lo(word) } else { hi(word) }
    }

    /// Output `col`'s scale: a weight is its integer times this.
    pub fn scale(&self, col: usize) -> f32 {
        self.scale[col]
    }

    /// The weight the kernel multiplies by, as a float (integer × scale).
    pub fn weight(&self, col: usize, k: usize) -> f32 {
        self.integer(col, k) as f32 * self.scale[col]
    }
}

/// Rows of inputs as 16-bit integers, two to a word, each row with its scale.
#[derive(Debug, Clone, PartialEq)]
pub struct Rows {
    /// Words a row: ⌈inputs / 2⌉.
    pub pairs: usize,
    /// The integers, two to a word (the even input in the low half).
    pub words: Vec<u32>,
    /// Each row's scale (its largest |input| / the limit; 0 for a row of zeros, NaN for a row
    /// holding a NaN, infinite for a row holding an infinity: the outputs then are NaN, as an f32
    /// product's would be).
    pub scale: Vec<f32>,
}

/// The scale of a row that cannot be quantised, from its largest |value| and whether it holds a
/// NaN: NaN for a NaN, 0 for a row of zeros, ∞ for an infinity (its words are then all zero).
/// `None` for a row to quantise.
fn unquantisable(max: f32, nan: bool) -> Option<f32> {
    if nan {
        Some(f32::NAN)
    } else if max == 0.0 || max.is_infinite() {
        Some(max)
    } else {
        None
    }
}

/// Words `from..` of a row: its values times `inv`, rounded to nearest even, clamped to
/// ±`limit`, two to a word (the even input in the low half; 0 past the end).
fn quantise_words(src: &[f32], inv: f32, limit: i32, from: usize, dst: &mut [u32]) {
    let lim = limit as f32;
    let q = |k: usize| src.get(k).map_or(0, |&v| (v * inv).round_ties_even().clamp(-lim, lim) as i32);
    for (p, word) in dst.iter_mut().enumerate().skip(from) {
        *word = half(q(2 * p)) | (half(q(2 * p + 1)) << 16);
    }
}

/// One row quantised: `limit` = the largest integer. The plain definition; the AVX2 version
/// computes the same integers.
fn quantise_row(src: &[f32], limit: i32, dst: &mut [u32]) -> f32 {
    let m = src.iter().fold(0f32, |a, v| a.max(v.abs()));
    if let Some(s) = unquantisable(m, src.iter().any(|v| v.is_nan())) {
        dst.fill(0);
        return s;
    }
    let s = m / limit as f32;
    quantise_words(src, 1.0 / s, limit, 0, dst);
    s
}

/// Rows each thread takes at a time.
const CHUNK_ROWS: usize = 48;

/// The `n` rows of `x` (n × i) quantised for `w`, on every core.
pub fn quantise_rows(x: &[f32], n: usize, i: usize) -> Rows {
    let pairs = i.div_ceil(2);
    let limit = input_limit(i);
    let mut words = vec![0u32; n * pairs];
    let mut scale = vec![0f32; n];
    if pairs == 0 {
        return Rows { pairs, words, scale };
    }
    let simd = avx2();
    words.par_chunks_mut(pairs * CHUNK_ROWS).zip(scale.par_chunks_mut(CHUNK_ROWS)).enumerate().for_each(
        |(c, (rows, scales))| {
            for (r, (dst, s)) in rows.chunks_mut(pairs).zip(scales.iter_mut()).enumerate() {
                let src = &x[(c * CHUNK_ROWS + r) * i..][..i];
                *s = if simd {
                    // SAFETY: the CPU has AVX2 (checked by `avx2`); `src` has `i` values and
                    // `dst` ⌈i / 2⌉ words.
                    #[cfg(target_arch = "x86_64")]
                    unsafe {
                        x86::quantise_row(src, limit, dst)
                    }
                    #[cfg(not(target_arch = "x86_64"))]
                    quantise_row(src, limit, dst)
                } else {
                    quantise_row(src, limit, dst)
                };
            }
        },
    );
    Rows { pairs, words, scale }
}

/// Whether this CPU has the kernel's instructions (AVX2 and FMA).
pub fn int16_instructions() -> bool {
    avx2()
}

fn avx2() -> bool {
    #[cfg(target_arch = "x86_64")]
    {
        std::arch::is_x86_feature_detected!("avx2") && std::arch::is_x86_feature_detected!("fma")
    }
    #[cfg(not(target_arch = "x86_64"))]
    {
        false
    }
}

fn check(x: &[f32], n: usize, w: &PackedInt16, b: &[f32]) -> Result<()> {
    if x.len() < n * w.inputs || b.len() != w.outputs {
        return Err(Error::Model(format!(
            "an int16 product of {n}×{} by {}×{} does not fit its arrays",
            w.inputs, w.inputs, w.outputs
        )));
    }
    Ok(())
}

/// The biases padded with zeros to whole panels.
fn padded(b: &[f32], panels: usize) -> Vec<f32> {
    let mut v = b.to_vec();
    v.resize(panels * LANES, 0.0);
    v
}

/// A tile's outputs: `R` rows of 16 columns.
type Tile = [[f32; LANES]; TILE_ROWS];

/// The plain tile: the same integers summed in the same pairs (wrapping, as the instruction
/// does; the limit keeps every sum in range), then `fma(sum as f32, row scale · column scale,
/// bias)`.
#[allow(clippy::too_many_arguments)]
fn tile_plain(a: &[u32], pairs: usize, rows: usize, b: &[u32], sa: &[f32], sw: &[f32], bias: &[f32], out: &mut Tile) {
    for r in 0..rows {
        let mut acc = [0i32; LANES];
        for (p, &word) in a[r * pairs..][..pairs].iter().enumerate() {
            let ws = &b[p * LANES..][..LANES];
            for (s, &wq) in acc.iter_mut().zip(ws) {
                let pair = lo(word).wrapping_mul(lo(wq)).wrapping_add(hi(word).wrapping_mul(hi(wq)));
                *s = s.wrapping_add(pair);
            }
        }
        for j in 0..LANES {
            out[r][j] = (acc[j] as f32).mul_add(sa[r] * sw[j], bias[j]);
        }
    }
}

/// The tile with the kernel this CPU runs (`simd`: AVX2, checked by the caller).
#[allow(clippy::too_many_arguments)]
#[inline(always)]
fn tile(
    simd: bool,
    a: &[u32],
    pairs: usize,
    rows: usize,
    b: &[u32],
    sa: &[f32],
    sw: &[f32],
    bias: &[f32],
    out: &mut Tile,
) {
    #[cfg(target_arch = "x86_64")]
    if simd {
        // SAFETY: the CPU has AVX2 and FMA (`simd` says the caller checked); `a` holds `rows` rows
        // of `pairs` words, `b` `pairs × 16` words, `sa` `rows` scales, `sw` and `bias` 16 values.
        unsafe {
            match rows {
                6 => x86::tile::<6>(a, pairs, b, sa, sw, bias, out),
                5 => x86::tile::<5>(a, pairs, b, sa, sw, bias, out),
                4 => x86::tile::<4>(a, pairs, b, sa, sw, bias, out),
                3 => x86::tile::<3>(a, pairs, b, sa, sw, bias, out),
                2 => x86::tile::<2>(a, pairs, b, sa, sw, bias, out),
                _ => x86::tile::<1>(a, pairs, b, sa, sw, bias, out),
            }
        }
        return;
    }
    let _ = simd;
    tile_plain(a, pairs, rows, b, sa, sw, bias, out)
}

fn product(x: &[f32], n: usize, w: &PackedInt16, b: &[f32], out: &mut [f32], simd: bool) -> Result<()> {
    check(x, n, w, b)?;
    let o = w.outputs;
    if out.len() < n * o {
        return Err(Error::Model(format!("an int16 product of {n}×{o} does not fit {} outputs", out.len())));
    }
    if n == 0 || o == 0 {
        return Ok(());
    }
    let rows = quantise_rows(x, n, w.inputs);
    let bias = padded(b, w.panels);
    let pairs = w.pairs;
    // Chunks small enough that every core has a few (a question is a dozen rows).
    let threads = rayon::current_num_threads().max(1);
    let chunk = (n.div_ceil(threads * 4).div_ceil(TILE_ROWS) * TILE_ROWS).clamp(TILE_ROWS, CHUNK_ROWS);
    out[..n * o].par_chunks_mut(o * chunk).enumerate().for_each(|(c, dst)| {
        let r0 = c * chunk;
        let count = dst.len() / o;
        let mut t: Tile = [[0.0; LANES]; TILE_ROWS];
        for p in 0..w.panels {
            let panel = &w.data[p * pairs * LANES..][..pairs * LANES];
            let (sw, bs) = (&w.scale[p * LANES..][..LANES], &bias[p * LANES..][..LANES]);
            let cols = LANES.min(o - p * LANES);
            let mut r = 0;
            while r < count {
                let m = TILE_ROWS.min(count - r);
                let a = &rows.words[(r0 + r) * pairs..][..m * pairs];
                tile(simd, a, pairs, m, panel, &rows.scale[r0 + r..][..m], sw, bs, &mut t);
                for (k, v) in t[..m].iter().enumerate() {
                    dst[(r + k) * o + p * LANES..][..cols].copy_from_slice(&v[..cols]);
                }
                r += m;
            }
        }
    });
    Ok(())
}

/// out (n × o) = x (n × i) · Wᵀ + b in 16-bit integers summed in i32, with the AVX2 kernel.
/// Errors when the CPU lacks it (callers check [`int16_instructions`]) or the shapes disagree.
pub fn linear_int16(x: &[f32], n: usize, w: &PackedInt16, b: &[f32], out: &mut [f32]) -> Result<()> {
    if !avx2() {
        return Err(Error::Model("int16 kernel: this CPU has no AVX2".into()));
    }
    product(x, n, w, b, out, true)
}

/// The same product computed by plain loops, on any CPU: bit for bit what [`linear_int16`] writes.
pub fn linear_int16_portable(x: &[f32], n: usize, w: &PackedInt16, b: &[f32], out: &mut [f32]) -> Result<()> {
    product(x, n, w, b, out, false)
}

/// For each output column of the product [`linear_int16`] computes, its largest value over the n
/// rows and the first row reaching it, without writing the n × o product (the SPLADE head's
/// maximum over tokens of its vocabulary logits). The kernel where the CPU has AVX2, the plain
/// loops elsewhere; the values compared are those the product writes, bit for bit.
pub fn column_max_int16(x: &[f32], n: usize, w: &PackedInt16, b: &[f32]) -> Result<(Vec<f32>, Vec<u32>)> {
    check(x, n, w, b)?;
    let simd = avx2();
    let rows = quantise_rows(x, n, w.inputs);
    let bias = padded(b, w.panels);
    let pairs = w.pairs;
    let cols = w.panels * LANES;
    let (mut maxes, mut args) = (vec![f32::NEG_INFINITY; cols], vec![0u32; cols]);
    // Eight panels (128 columns) per task.
    const TASK: usize = 8 * LANES;
    maxes.par_chunks_mut(TASK).zip(args.par_chunks_mut(TASK)).enumerate().for_each(|(t, (m, g))| {
        let mut out: Tile = [[0.0; LANES]; TILE_ROWS];
        for (k, (m, g)) in m.chunks_mut(LANES).zip(g.chunks_mut(LANES)).enumerate() {
            let p = t * (TASK / LANES) + k;
            let panel = &w.data[p * pairs * LANES..][..pairs * LANES];
            let (sw, bs) = (&w.scale[p * LANES..][..LANES], &bias[p * LANES..][..LANES]);
            let mut r = 0;
            while r < n {
                let rows_here = TILE_ROWS.min(n - r);
                let a = &rows.words[r * pairs..][..rows_here * pairs];
                tile(simd, a, pairs, rows_here, panel, &rows.scale[r..][..rows_here], sw, bs, &mut out);
                for (dr, v) in out[..rows_here].iter().enumerate() {
                    for j in 0..LANES {
                        if v[j] > m[j] {
                            m[j] = v[j];
                            g[j] = (r + dr) as u32;
                        }
                    }
                }
                r += rows_here;
            }
        }
    });
    maxes.truncate(w.outputs);
    args.truncate(w.outputs);
    Ok((maxes, args))
}

#[cfg(target_arch = "x86_64")]
mod x86 {
    use std::arch::x86_64::*;

    use super::{LANES, TILE_ROWS, Tile};

    /// [`super::quantise_row`] with AVX2: the same scale, the same integers (`vcvtps2dq` rounds
    /// to nearest even, as `round_ties_even`), the same clamp.
    #[target_feature(enable = "avx2,fma")]
    pub(super) unsafe fn quantise_row(src: &[f32], limit: i32, dst: &mut [u32]) -> f32 {
        let i = src.len();
        let full = i / 16 * 16;
        let sign = _mm256_set1_ps(-0.0);
        let (mut m, mut nan) = (_mm256_setzero_ps(), _mm256_setzero_ps());
        let p = src.as_ptr();
        let mut k = 0;
        while k + 8 <= i {
            // SAFETY: k + 8 ≤ i.
            let v = unsafe { _mm256_loadu_ps(p.add(k)) };
            m = _mm256_max_ps(m, _mm256_andnot_ps(sign, v));
            nan = _mm256_or_ps(nan, _mm256_cmp_ps::<_CMP_UNORD_Q>(v, v));
            k += 8;
        }
        let mut lanes = [0f32; 8];
        // SAFETY: eight floats.
        unsafe { _mm256_storeu_ps(lanes.as_mut_ptr(), m) };
        let mut max = lanes.iter().fold(0f32, |a, v| a.max(*v));
        let mut any_nan = _mm256_movemask_ps(nan) != 0;
        for &v in &src[k..] {
            max = max.max(v.abs());
            any_nan |= v.is_nan();
        }
        if let Some(s) = super::unquantisable(max, any_nan) {
            dst.fill(0);
            return s;
        }
        let s = max / limit as f32;
        let inv = 1.0 / s;
        let (vinv, hi, lo) = (_mm256_set1_ps(inv), _mm256_set1_epi32(limit), _mm256_set1_epi32(-limit));
        let out = dst.as_mut_ptr() as *mut __m256i;
        let mut k = 0;
        while k < full {
            // SAFETY: k + 16 ≤ full ≤ i; the 16 values make 8 words, k / 2 + 8 ≤ ⌈i / 2⌉.
            unsafe {
                let a = _mm256_cvtps_epi32(_mm256_mul_ps(_mm256_loadu_ps(p.add(k)), vinv));
                let b = _mm256_cvtps_epi32(_mm256_mul_ps(_mm256_loadu_ps(p.add(k + 8)), vinv));
                let a = _mm256_max_epi32(_mm256_min_epi32(a, hi), lo);
                let b = _mm256_max_epi32(_mm256_min_epi32(b, hi), lo);
                // packs works within 128-bit halves: a0-3 b0-3 a4-7 b4-7; put them in order.
                let w = _mm256_permute4x64_epi64::<0b11_01_10_00>(_mm256_packs_epi32(a, b));
                _mm256_storeu_si256(out.add(k / 16), w);
            }
            k += 16;
        }
        super::quantise_words(src, inv, limit, full / 2, dst);
        s
    }

    /// `R` rows (`a`: `pairs` words a row) times one panel (`b`: 16 columns of `pairs` words):
    /// i32 sums by `vpmaddwd`, then `fma(sum as f32, row scale · column scale, bias)`.
    #[target_feature(enable = "avx2,fma")]
    pub(super) unsafe fn tile<const R: usize>(
        a: &[u32],
        pairs: usize,
        b: &[u32],
        sa: &[f32],
        sw: &[f32],
        bias: &[f32],
        out: &mut Tile,
    ) {
        debug_assert!(R <= TILE_ROWS && a.len() >= R * pairs && b.len() >= pairs * LANES);
        let mut acc = [[_mm256_setzero_si256(); 2]; R];
        let (ap, bp) = (a.as_ptr(), b.as_ptr());
        for p in 0..pairs {
            // SAFETY: p < pairs; `b` holds pairs × 16 words and `a` R rows of `pairs` words.
            unsafe {
                let b0 = _mm256_loadu_si256(bp.add(p * LANES) as *const __m256i);
                let b1 = _mm256_loadu_si256(bp.add(p * LANES + 8) as *const __m256i);
                for (r, acc) in acc.iter_mut().enumerate() {
                    let x = _mm256_set1_epi32(*ap.add(r * pairs + p) as i32);
                    acc[0] = _mm256_add_epi32(acc[0], _mm256_madd_epi16(x, b0));
                    acc[1] = _mm256_add_epi32(acc[1], _mm256_madd_epi16(x, b1));
                }
            }
        }
        // SAFETY: `sw` and `bias` hold 16 values each; each `out` row holds 16.
        unsafe {
            let (w0, w1) = (_mm256_loadu_ps(sw.as_ptr()), _mm256_loadu_ps(sw.as_ptr().add(8)));
            let (c0, c1) = (_mm256_loadu_ps(bias.as_ptr()), _mm256_loadu_ps(bias.as_ptr().add(8)));
            for (r, acc) in acc.iter().enumerate() {
                let s = _mm256_set1_ps(sa[r]);
                let v0 = _mm256_fmadd_ps(_mm256_cvtepi32_ps(acc[0]), _mm256_mul_ps(s, w0), c0);
                let v1 = _mm256_fmadd_ps(_mm256_cvtepi32_ps(acc[1]), _mm256_mul_ps(s, w1), c1);
                _mm256_storeu_ps(out[r].as_mut_ptr(), v0);
                _mm256_storeu_ps(out[r].as_mut_ptr().add(8), v1);
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn values(n: usize, seed: u64) -> Vec<f32> {
        let mut s = seed;
        (0..n)
            .map(|_| {
                s = crate::lcg::lcg(s);
                ((s >> 40) as f32 / (1u64 << 24) as f32 - 0.5) * 4.0
            })
            .collect()
    }

    #[test]
    fn the_input_limit_keeps_every_sum_in_i32() {
        // ⌊2147483647 / (1023 · 384)⌋ = 5,466; ⌊2147483647 / (1023 · 1536)⌋ = 1,366;
        // ⌊2147483647 / (1023 · 128)⌋ = 16,400; ⌊2147483647 / (1023 · 3)⌋ = 699,734, capped.
        assert_eq!(input_limit(384), 5466);
        assert_eq!(input_limit(1536), 1366);
        assert_eq!(input_limit(128), 16400);
        assert_eq!(input_limit(3), 32767);
        // The worst sum: every product at its largest.
        for i in [1usize, 7, 384, 1536, 3072, 100_000] {
            let worst = 1023i64 * input_limit(i) as i64 * i as i64;
            assert!(worst <= i32::MAX as i64, "{i}: {worst}");
        }
        assert_eq!(input_limit(0), 32767);
        assert_eq!(input_limit(usize::MAX / 256), 1, "never zero");
        // 2,099,202 inputs: 1,023 · 2,099,202 = 2,147,483,646 ≤ 2³¹ − 1; one more could overflow.
        assert_eq!(MAX_INPUTS, 2_099_202);
        assert_eq!(input_limit(MAX_INPUTS), 1);
        assert!(PackedInt16::pack(&[], 0, MAX_INPUTS + 1).unwrap_err().to_string().contains("2099203"));
        assert!(PackedInt16::pack(&[], 0, MAX_INPUTS).is_ok());
    }

    #[test]
    fn weights_are_scaled_per_output_channel_by_hand() {
        // Row 0: largest |w| 1023, scale 1: 0.5 → 0 and −2.5 → −2 (ties to even), 1.5 → 2.
        // Row 1: all zeros, scale 0. Row 2: largest 2.046, scale 0.002: 1.0 → 500,
        // −0.0011 → −0.55 → −1, 0.5 alone would be 250.
        let w = [1023.0, 0.5, 1.5, -2.5, 0.0, 0.0, 0.0, 0.0, 1.0, -2.046, -0.0011, 0.5];
        let p = PackedInt16::pack(&w, 3, 4).unwrap();
        assert_eq!((p.outputs(), p.inputs()), (3, 4));
        assert_eq!(p.scale(0), 1.0);
        assert_eq!((0..4).map(|k| p.integer(0, k)).collect::<Vec<_>>(), vec![1023, 0, 2, -2]);
        assert_eq!((p.scale(1), p.integer(1, 0)), (0.0, 0));
        assert!((p.scale(2) - 0.002).abs() < 1e-9);
        assert_eq!((0..4).map(|k| p.integer(2, k)).collect::<Vec<_>>(), vec![500, -1023, -1, 250]);
        assert!((p.weight(2, 0) - 1.0).abs() < 1e-6 && (p.weight(2, 1) + 2.046).abs() < 1e-6);
        assert!(PackedInt16::pack(&w[..11], 3, 4).is_err());
        let mut bad = w;
        bad[6] = f32::NAN;
        let e = PackedInt16::pack(&bad, 3, 4).unwrap_err().to_string();
        assert!(e.contains("weight 2 of output 1"), "{e}");
    }

    #[test]
    fn inputs_are_scaled_per_row_by_hand() {
        // 3 inputs: limit 32,767. Row [1, −0.5, 0.25]: scale 1/32767; −0.5 → −16383.5 → −16384
        // (to even), 0.25 → 8191.75 → 8192. A row of zeros: scale 0. A NaN: scale NaN.
        let x = [1.0, -0.5, 0.25, 0.0, 0.0, 0.0, 1.0, f32::NAN, 0.0, f32::INFINITY, 1.0, 0.0];
        for simd in [false, true] {
            if simd && !avx2() {
                continue;
            }
            let r = quantise_rows(&x, 4, 3);
            assert_eq!(r.pairs, 2);
            assert_eq!((lo(r.words[0]), hi(r.words[0]), lo(r.words[1]), hi(r.words[1])), (32767, -16384, 8192, 0));
            assert_eq!(r.scale[0], 1.0 / 32767.0);
            assert_eq!((r.scale[1], r.words[2], r.words[3]), (0.0, 0, 0));
            assert!(r.scale[2].is_nan());
            assert!(r.scale[3].is_infinite());
        }
    }

    #[test]
    fn the_kernel_writes_the_plain_loops_bits_and_both_are_the_dequantised_product() {
        // On one thread, whatever the machine: 100 rows then come in chunks of 30 (five tiles) and
        // a last chunk of 10 (a tile and a remainder of four).
        let pool = rayon::ThreadPoolBuilder::new().num_threads(1).build().unwrap();
        pool.install(kernel_against_plain_loops);
    }

    fn kernel_against_plain_loops() {
        // Shapes off every multiple: 13 rows (two tiles and one), 37 columns (two panels and
        // five), 77 inputs (an odd count, 38 pairs and a half), and MiniLM's.
        for (n, i, o) in [(13usize, 77usize, 37usize), (1, 1, 1), (40, 384, 48), (7, 1536, 20), (100, 9, 17)] {
            let x = values(n * i, 3 + n as u64);
            let w = values(o * i, 5 + o as u64);
            let b = values(o, 7);
            // The plain row quantiser gives the integers and scale the one this CPU runs gave.
            let rows = quantise_rows(&x, n, i);
            for r in 0..n {
                let mut words = vec![0u32; rows.pairs];
                let scale = quantise_row(&x[r * i..][..i], input_limit(i), &mut words);
                assert!(same_bits(scale, rows.scale[r]), "row {r}: scale");
                assert_eq!(&words[..], &rows.words[r * rows.pairs..][..rows.pairs]);
            }
            let p = PackedInt16::pack(&w, o, i).unwrap();
            let mut plain = vec![0f32; n * o];
            linear_int16_portable(&x, n, &p, &b, &mut plain).unwrap();
            // The plain loops against an independent sum in i64 of the same integers.
            let rows = quantise_rows(&x, n, i);
            for r in 0..n {
                for c in 0..o {
                    let mut s = 0i64;
                    for k in 0..i {
                        let word = rows.words[r * rows.pairs + k / 2];
                        let xq = if k % 2 == 0 { lo(word) } else { hi(word) };
                        s += xq as i64 * p.integer(c, k) as i64;
                    }
                    let want = (s as f32).mul_add(rows.scale[r] * p.scale(c), b[c]);
                    assert_eq!(plain[r * o + c].to_bits(), want.to_bits(), "{n}×{i}×{o} at ({r}, {c})");
                    // And close to the f32 product: the weights' rounding is at most half a step.
                    let exact: f64 =
                        (0..i).map(|k| x[r * i + k] as f64 * w[c * i + k] as f64).sum::<f64>() + b[c] as f64;
                    // Each weight is off by at most half its step, each input by half its own.
                    let (sw, sa) = (p.scale(c) as f64, rows.scale[r] as f64);
                    let bound: f64 = (0..i)
                        .map(|k| 0.5 * x[r * i + k].abs() as f64 * sw + 0.5 * sa * p.weight(c, k).abs() as f64)
                        .sum();
                    let got = plain[r * o + c] as f64;
                    assert!((got - exact).abs() <= bound + 1e-4 * (1.0 + exact.abs()), "{exact} vs {got}");
                }
            }
            match linear_int16(&x, n, &p, &b, &mut vec![0f32; n * o]) {
                Ok(()) => {
                    let mut fast = vec![0f32; n * o];
                    linear_int16(&x, n, &p, &b, &mut fast).unwrap();
                    let same = fast.iter().zip(&plain).all(|(a, b)| a.to_bits() == b.to_bits());
                    assert!(same, "{n}×{i}×{o}: the kernel is not the plain loops");
                }
                Err(e) => {
                    assert!(!int16_instructions(), "{e}");
                    crate::note_skipped(
                        "the int16 AVX2 kernel against the plain loops (no AVX2 and FMA, or f32 forced)",
                    );
                }
            }
        }
    }

    #[test]
    fn the_kernel_runs_exactly_where_the_cpu_has_avx2_and_fma() {
        #[cfg(target_arch = "x86_64")]
        let has = std::arch::is_x86_feature_detected!("avx2") && std::arch::is_x86_feature_detected!("fma");
        #[cfg(not(target_arch = "x86_64"))]
        let has = false;
        assert_eq!(int16_instructions(), has);
        let (x, w, b) = (values(6, 1), values(6, 2), values(2, 3));
        let p = PackedInt16::pack(&w, 2, 3).unwrap();
        assert_eq!(linear_int16(&x, 2, &p, &b, &mut [0f32; 4]).is_ok(), has, "the kernel is refused only without them");
    }

    /// The same bits, or both NaN (whose payload is not the arithmetic's).
    fn same_bits(a: f32, b: f32) -> bool {
        a.to_bits() == b.to_bits() || (a.is_nan() && b.is_nan())
    }

    // Generated shapes (empty ones included) and values of every magnitude, zero rows, and rows
    // holding a NaN or an infinity: the kernel writes the plain loops' bits (a NaN for a NaN), and
    // the column maxima are the written product's.
    proptest::proptest! {
        #![proptest_config(proptest::prelude::ProptestConfig::with_cases(crate::proptest_cases()))]
        #[test]
        fn the_kernel_is_the_plain_loops_on_any_input(
            n in 0usize..14,
            i in 0usize..41,
            o in 0usize..37,
            seed in proptest::prelude::any::<u64>(),
            magnitude in -30i32..30,
            special in 0usize..4,
        ) {
            let scale = 2f32.powi(magnitude);
            let mut x: Vec<f32> = values(n * i, seed).into_iter().map(|v| v * scale).collect();
            let w: Vec<f32> = values(o * i, seed ^ 0x5555).into_iter().map(|v| v / scale).collect();
            let b = values(o, seed ^ 0xaaaa);
            // One row zeroed, or given a NaN or an infinity.
            if n > 0 && i > 0 {
                let at = (seed as usize % n) * i;
                match special {
                    0 => x[at..at + i].fill(0.0),
                    1 => x[at] = f32::NAN,
                    2 => x[at] = f32::NEG_INFINITY,
                    _ => {}
                }
            }
            // The plain row quantiser gives the integers and scale the one this CPU runs gave.
            let rows = quantise_rows(&x, n, i);
            for r in 0..n {
                let mut words = vec![0u32; rows.pairs];
                let scale = quantise_row(&x[r * i..][..i], input_limit(i), &mut words);
                proptest::prop_assert!(same_bits(scale, rows.scale[r]), "row {r}: scale");
                proptest::prop_assert_eq!(&words[..], &rows.words[r * rows.pairs..][..rows.pairs]);
            }
            let p = PackedInt16::pack(&w, o, i).unwrap();
            let mut plain = vec![0f32; n * o];
            linear_int16_portable(&x, n, &p, &b, &mut plain).unwrap();
            if !int16_instructions() {
                crate::note_skipped("the int16 AVX2 kernel on generated inputs (no AVX2 and FMA, or f32 forced)");
            } else {
                let mut fast = vec![0f32; n * o];
                linear_int16(&x, n, &p, &b, &mut fast).unwrap();
                for (k, (a, c)) in fast.iter().zip(&plain).enumerate() {
                    proptest::prop_assert!(same_bits(*a, *c), "{n}×{i}×{o}, output {k}: {a} vs {c}");
                }
            }
            let (max, arg) = column_max_int16(&x, n, &p, &b).unwrap();
            for c in 0..o {
                // The first row whose value is larger than every earlier one (NaN never is).
                let (mut m, mut g) = (f32::NEG_INFINITY, 0usize);
                for r in 0..n {
                    if plain[r * o + c] > m {
                        (m, g) = (plain[r * o + c], r);
                    }
                }
                proptest::prop_assert!(same_bits(max[c], m) && arg[c] as usize == g, "column {c}");
            }
        }
    }

    #[test]
    fn column_maxima_are_the_products_largest_values_and_their_first_rows() {
        // 300 columns: three tasks of eight panels (128, 128 and 44 columns).
        let (n, i, o) = (17usize, 30usize, 300usize);
        let mut x = values(n * i, 11);
        // Rows 3 and 9 equal: a tie goes to the first.
        let row3 = x[3 * i..4 * i].to_vec();
        x[9 * i..10 * i].copy_from_slice(&row3);
        let w = values(o * i, 13);
        let b = values(o, 17);
        let p = PackedInt16::pack(&w, o, i).unwrap();
        let mut full = vec![0f32; n * o];
        linear_int16_portable(&x, n, &p, &b, &mut full).unwrap();
        let (max, arg) = column_max_int16(&x, n, &p, &b).unwrap();
        assert_eq!((max.len(), arg.len()), (o, o));
        for c in 0..o {
            let col: Vec<f32> = (0..n).map(|r| full[r * o + c]).collect();
            let best = col.iter().copied().fold(f32::NEG_INFINITY, f32::max);
            let first = col.iter().position(|&v| v == best).unwrap();
            assert_eq!((max[c].to_bits(), arg[c] as usize), (best.to_bits(), first), "column {c}");
            assert_ne!(first, 9, "row 9 repeats row 3 and never comes first");
        }
        assert!(column_max_int16(&x, n, &p, &b[..3]).is_err());
        // An output array one value short, a bias too few, an input too few: refused, untouched.
        let mut short = vec![7f32; n * o - 1];
        assert!(linear_int16_portable(&x, n, &p, &b, &mut short).is_err());
        assert!(short.iter().all(|&v| v == 7.0));
        assert!(linear_int16_portable(&x, n, &p, &b[1..], &mut full).is_err());
        assert!(linear_int16_portable(&x[1..], n, &p, &b, &mut full).is_err());
    }
}
