//! The arithmetic an encoder's linear layers run in: f32 (exact to the reference); bf16 inputs
//! with f32 accumulation on CPUs that multiply bf16 pairs in one instruction (AVX512-BF16's
//! `vdpbf16ps`: two products per 32-bit lane, twice the f32 rate); or 16-bit integers summed in
//! i32 on CPUs with AVX2 ([`super::int16`], `vpmaddwd`: also two products per lane).
//!
//! Only the matrix products of the linear layers change: in bf16 each weight and each input of a
//! product is rounded to bf16 (8 bits of mantissa, to nearest even) and the products are summed in
//! f32. Attention, LayerNorm, GELU and pooling stay f32. Where the instruction is missing, or
//! `RANKLENS_F32_KERNELS=1` is set, bf16 and int16 fall back at run time to the f32 kernels, and
//! the encoder's id and label say f32 — a vector is always named by the arithmetic that made it.

use std::fmt;

use rayon::prelude::*;

use crate::{Error, Result};

/// The arithmetic of the linear layers.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Default, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Precision {
    /// f32 products (gemm): the reference, and what a model loads in unless told otherwise.
    #[default]
    F32,
    /// bf16 products with f32 sums (AVX512-BF16), where the CPU has them.
    Bf16,
    /// 16-bit integer products summed in i32 (AVX2's `vpmaddwd`): weights to ±1,023 per output
    /// channel, inputs per row (see [`crate::models::int16`]), where the CPU has AVX2.
    Int16,
    /// Whichever of the others is fastest on this CPU at equal quality, timed the first time a
    /// model loads (see [`crate::models::auto_precision`]): the app's and the CLI's default. A
    /// setting, never what runs: a loaded model runs f32, bf16 or int16 and is named by it.
    Auto,
}

impl Precision {
    /// Every precision, in the order the settings list them.
    pub const ALL: [Precision; 4] = [Precision::Auto, Precision::F32, Precision::Bf16, Precision::Int16];

    /// The name used on the command line, in ids and in reports.
    pub fn name(self) -> &'static str {
        match self {
            Precision::F32 => "f32",
            Precision::Bf16 => "bf16",
            Precision::Int16 => "int16",
            Precision::Auto => "auto",
        }
    }

    /// Parse a name (`f32`, `bf16`; `fp32` is taken as `f32`).
    pub fn parse(s: &str) -> Result<Precision> {
        match s.trim().to_ascii_lowercase().as_str() {
            "f32" | "fp32" | "float32" => Ok(Precision::F32),
            "bf16" | "bfloat16" => Ok(Precision::Bf16),
            "int16" | "i16" => Ok(Precision::Int16),
            "int8" | "i8" => Err(Error::Invalid {
                location: "precision".into(),
                message: "`int8`: not built — 8-bit weights moved all-MiniLM-L6-v2's vectors below cosine 0.999 \
                          to f32 (0.99898 over 1,000 SciFact passages); int16, the integer kernel, keeps 11-bit \
                          weights at the same speed"
                    .into(),
            }),
            "auto" => Ok(Precision::Auto),
            other => Err(Error::Invalid {
                location: "precision".into(),
                message: format!("`{other}`: expected one of auto, f32, bf16, int16"),
            }),
        }
    }

    /// The precision that actually runs here: bf16 only where the CPU multiplies bf16 pairs, int16
    /// only where it has AVX2, and neither when `RANKLENS_F32_KERNELS` forces the f32 kernels. Auto
    /// is resolved per model when it loads (timed, or remembered); with no model to time, it is f32.
    pub fn effective(self) -> Precision {
        match self {
            Precision::Bf16 if bf16_supported() => Precision::Bf16,
            Precision::Int16 if int16_supported() => Precision::Int16,
            _ => Precision::F32,
        }
    }

    /// A suffix for model ids and cache keys: empty for f32 (the ids vectors always had), `@bf16`
    /// or `@int16` otherwise.
    pub fn id_suffix(self) -> &'static str {
        match self {
            Precision::F32 | Precision::Auto => "",
            Precision::Bf16 => "@bf16",
            Precision::Int16 => "@int16",
        }
    }
}

impl fmt::Display for Precision {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// Whether `RANKLENS_F32_KERNELS` asks for the f32 kernels whatever the CPU has (read once).
pub fn f32_forced() -> bool {
    static FORCED: std::sync::OnceLock<bool> = std::sync::OnceLock::new();
    *FORCED.get_or_init(|| {
        std::env::var("RANKLENS_F32_KERNELS").is_ok_and(|v| matches!(v.trim(), "1" | "true" | "yes" | "on"))
    })
}

/// Whether this CPU runs the bf16 kernel (AVX512-BF16 and AVX512F) and nothing forbids it.
pub fn bf16_supported() -> bool {
    !f32_forced() && bf16_instructions()
}

/// Whether this CPU runs the int16 kernel (AVX2 and FMA) and nothing forbids it.
pub fn int16_supported() -> bool {
    !f32_forced() && super::int16::int16_instructions()
}

/// Whether this CPU has the instructions of the bf16 kernel.
pub fn bf16_instructions() -> bool {
    #[cfg(target_arch = "x86_64")]
    {
        std::arch::is_x86_feature_detected!("avx512bf16") && std::arch::is_x86_feature_detected!("avx512f")
    }
    #[cfg(not(target_arch = "x86_64"))]
    {
        false
    }
}

/// A description of the kernels this machine runs for a requested precision, for labels and
/// `models list`: "bf16 (AVX512-BF16)", or "f32 (bf16 asked; this CPU has no AVX512-BF16)".
pub fn describe(requested: Precision) -> String {
    match (requested, requested.effective()) {
        (Precision::Bf16, Precision::Bf16) => "bf16 (AVX512-BF16, f32 sums)".to_string(),
        (Precision::Int16, Precision::Int16) => "int16 (16-bit integer products, i32 sums; AVX2)".to_string(),
        (Precision::Bf16 | Precision::Int16, _) if f32_forced() => {
            format!("f32 ({requested} asked; RANKLENS_F32_KERNELS forces f32)")
        }
        (Precision::Bf16, _) => "f32 (bf16 asked; this CPU has no AVX512-BF16)".to_string(),
        (Precision::Int16, _) => "f32 (int16 asked; this CPU has no AVX2)".to_string(),
        (Precision::Auto, _) if f32_forced() => "auto: f32 (RANKLENS_F32_KERNELS forces f32)".to_string(),
        (Precision::Auto, _) => {
            let others: Vec<&str> = [(bf16_supported(), "bf16"), (int16_supported(), "int16")]
                .iter()
                .filter_map(|&(has, name)| has.then_some(name))
                .collect();
            if others.is_empty() {
                "auto: f32 (this CPU has neither AVX512-BF16 nor AVX2, the other kernels RankLens builds)".to_string()
            } else {
                format!(
                    "auto: each model's f32 and {} kernels timed on this CPU the first time it loads; the fastest that keeps cosine ≥ 0.999 to f32 runs",
                    others.join(" and ")
                )
            }
        }
        _ => "f32".to_string(),
    }
}

/// f32 → bf16 rounded to nearest, ties to even (NaN stays NaN).
#[inline(always)]
pub fn to_bf16(x: f32) -> u16 {
    let bits = x.to_bits();
    if x.is_nan() {
        return ((bits >> 16) | 0x40) as u16;
    }
    let round = 0x7fff + ((bits >> 16) & 1);
    (bits.wrapping_add(round) >> 16) as u16
}

/// bf16 → f32 (exact).
#[inline(always)]
pub fn from_bf16(b: u16) -> f32 {
    f32::from_bits((b as u32) << 16)
}

/// Inputs `2q` and `2q + 1` of `row` rounded to bf16 in one word (`2q` in the low half; 0 past
/// the end).
#[inline(always)]
fn pair(row: &[f32], q: usize) -> u32 {
    let lo = to_bf16(row[2 * q]) as u32;
    let hi = row.get(2 * q + 1).map_or(0, |&v| to_bf16(v) as u32);
    lo | (hi << 16)
}

/// Output columns per panel: one f32 lane of a 512-bit register each.
const LANES: usize = 16;
/// Rows per tile of the kernel (two panels of accumulators per row).
const TILE_ROWS: usize = 8;
/// Rows each thread takes at a time.
const CHUNK_ROWS: usize = 64;

/// A linear layer's weights (o rows of i, as PyTorch stores them) rounded to bf16 and laid out
/// for the kernel: panels of 16 output columns; in each, for every pair of inputs (k, k+1), the
/// 16 columns' two weights side by side in one 32-bit word (k in the low half).
#[derive(Debug, Clone)]
pub struct PackedBf16 {
    outputs: usize,
    inputs: usize,
    /// Input pairs, ⌈i / 2⌉.
    pairs: usize,
    /// Panels, rounded up to an even count (the kernel takes two at a time; the extra is zeros).
    panels: usize,
    data: Vec<u32>,
}

impl PackedBf16 {
    /// Pack `w` (o × i, row-major).
    pub fn pack(w: &[f32], o: usize, i: usize) -> Result<PackedBf16> {
        if w.len() != o * i {
            return Err(Error::Model(format!("a {o}×{i} weight has {} values", w.len())));
        }
        let pairs = i.div_ceil(2);
        let panels = o.div_ceil(LANES).div_ceil(2) * 2;
        let mut data = vec![0u32; panels * pairs * LANES];
        for p in 0..panels {
            for q in 0..pairs {
                for j in 0..LANES {
                    let col = p * LANES + j;
                    if col >= o {
                        continue;
                    }
                    data[(p * pairs + q) * LANES + j] = pair(&w[col * i..][..i], q);
                }
            }
        }
        Ok(PackedBf16 { outputs: o, inputs: i, pairs, panels, data })
    }

    /// Output columns.
    pub fn outputs(&self) -> usize {
        self.outputs
    }

    /// The bf16 weight of output `col`, input `k` (as the kernel multiplies it).
    pub fn weight(&self, col: usize, k: usize) -> f32 {
        let (p, j, q) = (col / LANES, col % LANES, k / 2);
        let word = self.data[(p * self.pairs + q) * LANES + j];
        from_bf16(if k.is_multiple_of(2) { word as u16 } else { (word >> 16) as u16 })
    }
}

/// Rows of `x` (n × i) rounded to bf16, two inputs per word, `pairs` words a row.
fn pack_rows(x: &[f32], n: usize, i: usize, pairs: usize) -> Vec<u32> {
    let mut a = vec![0u32; n * pairs];
    a.par_chunks_mut(pairs.max(1) * CHUNK_ROWS).enumerate().for_each(|(c, rows)| {
        for (r, row) in rows.chunks_mut(pairs.max(1)).enumerate() {
            let src = &x[(c * CHUNK_ROWS + r) * i..][..i];
            for (q, word) in row.iter_mut().enumerate() {
                *word = pair(src, q);
            }
        }
    });
    a
}

/// The `n` rows of `x` rounded to bf16 for the kernel (`w.pairs` words a row), on every core.
/// The caller has checked that the CPU has AVX512F and AVX512-BF16 and that `x` holds the rows.
fn round_rows(x: &[f32], n: usize, w: &PackedBf16) -> Vec<u32> {
    let i = w.inputs;
    let mut a = vec![0u32; n * w.pairs];
    a.par_chunks_mut(w.pairs.max(1) * CHUNK_ROWS).enumerate().for_each(|(c, rows)| {
        let src = &x[c * CHUNK_ROWS * i..][..rows.len() / w.pairs.max(1) * i];
        // SAFETY: the CPU has AVX512F and AVX512-BF16 (the caller checked); `src` holds the rows
        // whose `pairs` words each `rows` receives.
        #[cfg(target_arch = "x86_64")]
        unsafe {
            avx512::round_rows(src, i, w.pairs, rows)
        }
    });
    a
}

/// out (n × o) = bf16(x) (n × i) · bf16(W)ᵀ + b, summed in f32, with the AVX512-BF16 kernel.
/// Errors when the CPU lacks it (callers check [`bf16_supported`] first) or the shapes disagree.
pub fn linear_bf16(x: &[f32], n: usize, w: &PackedBf16, b: &[f32], out: &mut [f32]) -> Result<()> {
    let (i, o) = (w.inputs, w.outputs);
    if x.len() < n * i || out.len() < n * o || b.len() != o {
        return Err(Error::Model(format!("a bf16 product of {n}×{i} by {i}×{o} does not fit its arrays")));
    }
    if !bf16_instructions() {
        return Err(Error::Model("this CPU has no AVX512-BF16 instructions".into()));
    }
    let a = round_rows(x, n, w);
    out[..n * o].par_chunks_mut(o.max(1) * CHUNK_ROWS).enumerate().for_each(|(c, dst)| {
        let rows = dst.len() / o.max(1);
        let a = &a[c * CHUNK_ROWS * w.pairs..][..rows * w.pairs];
        // SAFETY: the CPU has AVX512F and AVX512-BF16 (checked above); `a` holds `rows` rows of
        // `pairs` words, `w.data` holds `panels` panels of `pairs × 16` words, `dst` holds `rows`
        // rows of `o` outputs and `b` has `o` biases, which is all the kernel reads or writes.
        #[cfg(target_arch = "x86_64")]
        unsafe {
            avx512::chunk(a, rows, w, b, dst)
        }
    });
    Ok(())
}

/// For each output column of `bf16(x) · bf16(W)ᵀ + b` (x n × i), its largest value over the n
/// rows and the first row reaching it, without writing the n × o product: what the SPLADE head
/// needs of its vocabulary logits (their maximum over the tokens). The values compared are those
/// [`linear_bf16`] writes, bit for bit. Errors as [`linear_bf16`] does.
pub fn column_max_bf16(x: &[f32], n: usize, w: &PackedBf16, b: &[f32]) -> Result<(Vec<f32>, Vec<u32>)> {
    let (i, o) = (w.inputs, w.outputs);
    if x.len() < n * i || b.len() != o {
        return Err(Error::Model(format!("a bf16 product of {n}×{i} by {i}×{o} does not fit its arrays")));
    }
    if !bf16_instructions() {
        return Err(Error::Model("this CPU has no AVX512-BF16 instructions".into()));
    }
    let a = round_rows(x, n, w);
    let cols = w.panels * LANES;
    let (mut maxes, mut args) = (vec![f32::NEG_INFINITY; cols], vec![0u32; cols]);
    // Eight pairs of panels (256 columns) per task.
    const TASK: usize = 16 * LANES;
    maxes.par_chunks_mut(TASK).zip(args.par_chunks_mut(TASK)).enumerate().for_each(|(t, (m, g))| {
        // SAFETY: the CPU has AVX512F and AVX512-BF16 (checked above); `a` holds `n` rows of
        // `pairs` words; `m` and `g` are the 16 entries of each of their panels (an even
        // number: `panels` is even and so is every task), from panel `t · 16`.
        #[cfg(target_arch = "x86_64")]
        unsafe {
            avx512::column_max(&a, n, w, b, t * (TASK / LANES), m, g)
        }
    });
    maxes.truncate(o);
    args.truncate(o);
    Ok((maxes, args))
}

/// The same product computed plainly: each bf16 product in f32, summed in f32 in order. What the
/// kernel computes up to the order of its sums; the tests hold the kernel to it, and it shows on
/// any CPU what bf16 rounding does to an encoder.
pub fn linear_bf16_portable(x: &[f32], n: usize, w: &PackedBf16, b: &[f32], out: &mut [f32]) -> Result<()> {
    let (i, o) = (w.inputs, w.outputs);
    if x.len() < n * i || out.len() < n * o || b.len() != o {
        return Err(Error::Model(format!("a bf16 product of {n}×{i} by {i}×{o} does not fit its arrays")));
    }
    let a = pack_rows(x, n, i, w.pairs);
    out[..n * o].par_chunks_mut(o.max(1)).enumerate().for_each(|(r, row)| {
        let a = &a[r * w.pairs..][..w.pairs];
        for (col, v) in row.iter_mut().enumerate() {
            let (p, j) = (col / LANES, col % LANES);
            let mut sum = 0f32;
            for (q, &word) in a.iter().enumerate() {
                let wq = w.data[(p * w.pairs + q) * LANES + j];
                sum += from_bf16(word as u16) * from_bf16(wq as u16);
                sum += from_bf16((word >> 16) as u16) * from_bf16((wq >> 16) as u16);
            }
            *v = sum + b[col];
        }
    });
    Ok(())
}

#[cfg(target_arch = "x86_64")]
mod avx512 {
    use std::arch::x86_64::*;

    use super::{LANES, PackedBf16, TILE_ROWS, pair};

    /// Rows of `i` floats rounded to bf16 (to nearest even, as [`super::to_bf16`] for every value
    /// but denormals, which the instruction takes as zero), two to a word, `pairs` words a row.
    ///
    /// # Safety
    /// AVX512F and AVX512-BF16 present; `src` holds `dst.len() / pairs` rows of `i` floats.
    #[target_feature(enable = "avx512f,avx512bf16")]
    pub(super) unsafe fn round_rows(src: &[f32], i: usize, pairs: usize, dst: &mut [u32]) {
        for (row, out) in src.chunks_exact(i.max(1)).zip(dst.chunks_exact_mut(pairs.max(1))) {
            let mut k = 0;
            while k + 32 <= i {
                // SAFETY: k + 32 ≤ i floats of the row and 16 words at k / 2 < pairs.
                unsafe {
                    let lo = _mm512_loadu_ps(row.as_ptr().add(k));
                    let hi = _mm512_loadu_ps(row.as_ptr().add(k + 16));
                    // The second operand fills the low 16 bf16s: k..k+16 in order, then k+16..k+32.
                    let packed = std::mem::transmute::<__m512bh, __m512i>(_mm512_cvtne2ps_pbh(hi, lo));
                    _mm512_storeu_si512(out.as_mut_ptr().add(k / 2).cast(), packed);
                }
                k += 32;
            }
            while k < i {
                out[k / 2] = pair(row, k / 2);
                k += 2;
            }
        }
    }

    /// One thread's rows: every pair of panels, tiles of up to 8 rows under it.
    ///
    /// # Safety
    /// AVX512F and AVX512-BF16 present; `a` has `rows × w.pairs` words, `dst` `rows × o` floats,
    /// `b` `o` floats.
    #[target_feature(enable = "avx512f,avx512bf16")]
    pub(super) unsafe fn chunk(a: &[u32], rows: usize, w: &PackedBf16, b: &[f32], dst: &mut [f32]) {
        let (o, pairs) = (w.outputs, w.pairs);
        for pp in (0..w.panels).step_by(2) {
            let b0 = &w.data[pp * pairs * LANES..][..pairs * LANES];
            let b1 = &w.data[(pp + 1) * pairs * LANES..][..pairs * LANES];
            let col = pp * LANES;
            let mut r = 0;
            while r < rows {
                let take = (rows - r).min(TILE_ROWS);
                let a = &a[r * pairs..][..take * pairs];
                let d = &mut dst[r * o..][..take * o];
                // SAFETY: as this function's, for the `take` rows at `r`.
                unsafe {
                    match take {
                        8 => tile::<8>(a, pairs, b0, b1, b, col, o, d),
                        7 => tile::<7>(a, pairs, b0, b1, b, col, o, d),
                        6 => tile::<6>(a, pairs, b0, b1, b, col, o, d),
                        5 => tile::<5>(a, pairs, b0, b1, b, col, o, d),
                        4 => tile::<4>(a, pairs, b0, b1, b, col, o, d),
                        3 => tile::<3>(a, pairs, b0, b1, b, col, o, d),
                        2 => tile::<2>(a, pairs, b0, b1, b, col, o, d),
                        _ => tile::<1>(a, pairs, b0, b1, b, col, o, d),
                    }
                }
                r += take;
            }
        }
    }

    /// The sums of R rows × 32 columns (two panels): R × 2 accumulators, one pair of inputs per
    /// step. Every product the kernel makes is summed here, in this one order.
    ///
    /// # Safety
    /// AVX512F and AVX512-BF16 present; `a` has `R × pairs` words, `b0`/`b1` `pairs × 16`.
    #[target_feature(enable = "avx512f,avx512bf16")]
    unsafe fn sums<const R: usize>(a: &[u32], pairs: usize, b0: &[u32], b1: &[u32]) -> [[__m512; R]; 2] {
        let mut acc0 = [_mm512_setzero_ps(); R];
        let mut acc1 = [_mm512_setzero_ps(); R];
        let (ap, p0, p1) = (a.as_ptr(), b0.as_ptr(), b1.as_ptr());
        for q in 0..pairs {
            // SAFETY: q < pairs, so each read is inside `b0`, `b1` (16 words at q·16) and `a`
            // (word q of each of the R rows).
            unsafe {
                let w0 = _mm512_loadu_si512(p0.add(q * LANES).cast());
                let w1 = _mm512_loadu_si512(p1.add(q * LANES).cast());
                let (w0, w1) =
                    (std::mem::transmute::<__m512i, __m512bh>(w0), std::mem::transmute::<__m512i, __m512bh>(w1));
                for r in 0..R {
                    let x = std::mem::transmute::<__m512i, __m512bh>(_mm512_set1_epi32(*ap.add(r * pairs + q) as i32));
                    acc0[r] = _mm512_dpbf16_ps(acc0[r], x, w0);
                    acc1[r] = _mm512_dpbf16_ps(acc1[r], x, w1);
                }
            }
        }
        [acc0, acc1]
    }

    /// R rows × 32 columns, stored with their biases.
    ///
    /// # Safety
    /// As [`chunk`]; `a` has `R × pairs` words, `b0`/`b1` `pairs × 16`, `d` `R × o` floats.
    #[allow(clippy::too_many_arguments)]
    #[target_feature(enable = "avx512f,avx512bf16")]
    unsafe fn tile<const R: usize>(
        a: &[u32],
        pairs: usize,
        b0: &[u32],
        b1: &[u32],
        bias: &[f32],
        col: usize,
        o: usize,
        d: &mut [f32],
    ) {
        // SAFETY: as this function's.
        let [acc0, acc1] = unsafe { sums::<R>(a, pairs, b0, b1) };
        for (half, acc) in [(0usize, &acc0), (1, &acc1)] {
            let start = col + half * LANES;
            if start >= o {
                continue;
            }
            let n = (o - start).min(LANES);
            let mask: __mmask16 = if n == LANES { 0xffff } else { (1u16 << n) - 1 };
            // SAFETY: the mask keeps columns start..start + n < o of each row, inside `d` and `bias`.
            unsafe {
                let bv = _mm512_maskz_loadu_ps(mask, bias.as_ptr().add(start));
                for (r, acc) in acc.iter().enumerate() {
                    _mm512_mask_storeu_ps(d.as_mut_ptr().add(r * o + start), mask, _mm512_add_ps(*acc, bv));
                }
            }
        }
    }
    /// The largest output of each column over all rows, and the first row reaching it, for the
    /// panels `first..first + maxes.len() / 16` (an even count): every product summed by
    /// [`sums`] and biased as [`tile`] stores it, so each value compared is the value
    /// [`super::linear_bf16`] would have written, bit for bit.
    ///
    /// # Safety
    /// AVX512F and AVX512-BF16 present; `a` has `rows × w.pairs` words; `maxes` and `args` hold
    /// 16 entries per panel, and `first` plus their panels is at most `w.panels`; `b` has
    /// `w.outputs` floats.
    #[target_feature(enable = "avx512f,avx512bf16")]
    pub(super) unsafe fn column_max(
        a: &[u32],
        rows: usize,
        w: &PackedBf16,
        b: &[f32],
        first: usize,
        maxes: &mut [f32],
        args: &mut [u32],
    ) {
        let (o, pairs) = (w.outputs, w.pairs);
        for (k, (m, g)) in maxes.chunks_exact_mut(2 * LANES).zip(args.chunks_exact_mut(2 * LANES)).enumerate() {
            let pp = first + 2 * k;
            let b0 = &w.data[pp * pairs * LANES..][..pairs * LANES];
            let b1 = &w.data[(pp + 1) * pairs * LANES..][..pairs * LANES];
            let mut best = [_mm512_set1_ps(f32::NEG_INFINITY); 2];
            let mut at = [_mm512_setzero_si512(); 2];
            let mut bv = [_mm512_setzero_ps(); 2];
            for (half, v) in bv.iter_mut().enumerate() {
                let start = (pp + half) * LANES;
                if start < o {
                    let n = (o - start).min(LANES);
                    let mask: __mmask16 = if n == LANES { 0xffff } else { (1u16 << n) - 1 };
                    // SAFETY: the mask keeps columns start..start + n < o, inside `b`.
                    *v = unsafe { _mm512_maskz_loadu_ps(mask, b.as_ptr().add(start)) };
                }
            }
            let mut r = 0;
            while r < rows {
                let take = (rows - r).min(TILE_ROWS);
                let a = &a[r * pairs..][..take * pairs];
                // SAFETY: as this function's, for the `take` rows at `r`.
                unsafe {
                    match take {
                        8 => fold::<8>(sums::<8>(a, pairs, b0, b1), r, &bv, &mut best, &mut at),
                        7 => fold::<7>(sums::<7>(a, pairs, b0, b1), r, &bv, &mut best, &mut at),
                        6 => fold::<6>(sums::<6>(a, pairs, b0, b1), r, &bv, &mut best, &mut at),
                        5 => fold::<5>(sums::<5>(a, pairs, b0, b1), r, &bv, &mut best, &mut at),
                        4 => fold::<4>(sums::<4>(a, pairs, b0, b1), r, &bv, &mut best, &mut at),
                        3 => fold::<3>(sums::<3>(a, pairs, b0, b1), r, &bv, &mut best, &mut at),
                        2 => fold::<2>(sums::<2>(a, pairs, b0, b1), r, &bv, &mut best, &mut at),
                        _ => fold::<1>(sums::<1>(a, pairs, b0, b1), r, &bv, &mut best, &mut at),
                    }
                }
                r += take;
            }
            for half in 0..2 {
                // SAFETY: `m` and `g` hold 32 entries, 16 for each half.
                unsafe {
                    _mm512_storeu_ps(m.as_mut_ptr().add(half * LANES), best[half]);
                    _mm512_storeu_si512(g.as_mut_ptr().add(half * LANES).cast(), at[half]);
                }
            }
        }
    }

    /// Rows `first..first + R` into the running maxima: a row replaces the maximum only when it
    /// is larger (so the first row reaching it stays; NaN never replaces).
    ///
    /// # Safety
    /// AVX512F present.
    #[target_feature(enable = "avx512f,avx512bf16")]
    unsafe fn fold<const R: usize>(
        acc: [[__m512; R]; 2],
        first: usize,
        bias: &[__m512; 2],
        best: &mut [__m512; 2],
        at: &mut [__m512i; 2],
    ) {
        for (((rows, bias), best), at) in acc.iter().zip(bias).zip(best.iter_mut()).zip(at.iter_mut()) {
            for (r, &sum) in rows.iter().enumerate() {
                let v = _mm512_add_ps(sum, *bias);
                let larger = _mm512_cmp_ps_mask::<_CMP_GT_OQ>(v, *best);
                *best = _mm512_mask_mov_ps(*best, larger, v);
                *at = _mm512_mask_mov_epi32(*at, larger, _mm512_set1_epi32((first + r) as i32));
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_parse_back_and_others_are_refused() {
        for p in Precision::ALL {
            assert_eq!(Precision::parse(p.name()).unwrap(), p);
            assert_eq!(Precision::parse(&p.name().to_uppercase()).unwrap(), p);
        }
        assert_eq!(Precision::parse("fp32").unwrap(), Precision::F32);
        let e = Precision::parse("int4").unwrap_err().to_string();
        assert!(e.contains("int4") && e.contains("bf16"), "{e}");
        assert_eq!(Precision::F32.id_suffix(), "");
        assert_eq!(Precision::Bf16.id_suffix(), "@bf16");
        assert_eq!(Precision::Int16.id_suffix(), "@int16");
        assert_eq!(Precision::parse("I16").unwrap(), Precision::Int16);
        let e = Precision::parse("int8").unwrap_err().to_string();
        assert!(e.contains("not built") && e.contains("int16"), "{e}");
        assert_eq!(Precision::F32.effective(), Precision::F32);
    }

    #[test]
    fn bf16_rounds_to_nearest_even() {
        // 1 + 2⁻⁸ lies halfway between 1 and 1 + 2⁻⁷: ties go to the even mantissa (1).
        assert_eq!(to_bf16(1.0 + 1.0 / 256.0), 0x3f80);
        // 1 + 3·2⁻⁸ lies halfway between 1 + 2⁻⁷ (odd) and 1 + 2⁻⁶: up to the even one.
        assert_eq!(to_bf16(1.0 + 3.0 / 256.0), 0x3f82);
        // Just above the halfway point rounds up.
        assert_eq!(to_bf16(f32::from_bits(0x3f80_8001)), 0x3f81);
        assert_eq!(to_bf16(-2.0), 0xc000);
        assert_eq!(from_bf16(0x3f81), 1.0 + 1.0 / 128.0);
        assert!(from_bf16(to_bf16(f32::NAN)).is_nan());
        assert_eq!(from_bf16(to_bf16(f32::INFINITY)), f32::INFINITY);
        // Every value a bf16 holds goes through unchanged.
        for b in (0u16..=0xffff).step_by(7) {
            let x = from_bf16(b);
            if !x.is_nan() {
                assert_eq!(to_bf16(x), b);
            }
        }
    }

    proptest::proptest! {
        #![proptest_config(proptest::prelude::ProptestConfig::with_cases(crate::proptest_cases()))]

        #[test]
        fn any_text_parses_to_a_precision_only_when_it_names_one(s in "\\PC{0,12}|[ ]?(f|F|bf|BF|fp|i|I|int|INT)(32|16|8)[ ]?") {
            let known = ["f32", "fp32", "float32", "bf16", "bfloat16", "int16", "i16", "auto"];
            match Precision::parse(&s) {
                Ok(p) => {
                    proptest::prop_assert!(known.contains(&s.trim().to_ascii_lowercase().as_str()), "{s:?}");
                    proptest::prop_assert_eq!(Precision::parse(p.name()).ok(), Some(p));
                }
                Err(e) => {
                    proptest::prop_assert!(!known.contains(&s.trim().to_ascii_lowercase().as_str()), "{s:?}");
                    proptest::prop_assert!(e.to_string().starts_with("precision: "), "{e}");
                }
            }
        }

        #[test]
        fn bf16_is_the_nearest_value_with_8_bits_of_mantissa(bits in proptest::prelude::any::<u32>()) {
            let x = f32::from_bits(bits);
            proptest::prop_assume!(x.is_finite() && x.abs() < 3.0e38);
            let r = from_bf16(to_bf16(x)) as f64;
            let (x, e) = (x as f64, (x.abs() as f64).max(f32::MIN_POSITIVE as f64));
            // Within half a unit of bf16's last place (2⁻⁸ of the value's power of two).
            let half_ulp = 2f64.powi(e.log2().floor() as i32 - 8);
            proptest::prop_assert!((r - x).abs() <= half_ulp, "{x} → {r}");
        }
    }

    /// A small deterministic generator (xorshift), values in [-1, 1).
    fn values(n: usize, seed: u64) -> Vec<f32> {
        let mut s = seed.max(1);
        (0..n)
            .map(|_| {
                s ^= s << 13;
                s ^= s >> 7;
                s ^= s << 17;
                (s >> 40) as f32 / (1u64 << 23) as f32 - 1.0
            })
            .collect()
    }

    #[test]
    fn the_portable_product_is_the_product_of_the_rounded_values() {
        // 2 rows × 3 inputs (odd: the last pair is half padding) × 3 outputs, by hand in f64.
        let x = [1.0, 2.0, 3.0, 0.5, -1.0, 0.25];
        let w = [1.0, 0.0, 1.0, 0.0, 1.0, 0.0, 2.0, 2.0, 2.0];
        let packed = PackedBf16::pack(&w, 3, 3).unwrap();
        assert_eq!(packed.weight(2, 1), 2.0);
        let mut out = [0f32; 6];
        linear_bf16_portable(&x, 2, &packed, &[0.5, 0.0, -1.0], &mut out).unwrap();
        assert_eq!(out, [4.5, 2.0, 11.0, 1.25, -1.0, -1.5]);
        // A value bf16 cannot hold is rounded first: 1 + 2⁻¹⁰ becomes 1.
        let mut one = [0f32; 1];
        let p = PackedBf16::pack(&[1.0 + 1.0 / 1024.0], 1, 1).unwrap();
        linear_bf16_portable(&[3.0], 1, &p, &[0.0], &mut one).unwrap();
        assert_eq!(one, [3.0]);
        assert!(PackedBf16::pack(&w, 2, 3).is_err(), "9 values are not 2×3");
        assert!(linear_bf16_portable(&x, 3, &packed, &[0.0; 3], &mut [0f32; 9]).is_err(), "3 rows of x do not exist");
    }

    #[test]
    fn column_maxima_are_the_largest_written_values_and_their_first_rows() {
        // Shapes with every remainder (rows not a multiple of the 8-row tile, columns not of the
        // 256-column task or the 32-column pair of panels), and rows repeated so that a maximum is
        // reached twice: the first row must be kept.
        for &(n, i, o, repeat) in &[(1, 1, 1, false), (9, 5, 17, true), (70, 33, 300, true), (254, 128, 531, false)] {
            let mut x = values(n * i, 11 + n as u64);
            if repeat {
                // Row n-1 repeats row 1, row 5 (when there is one) repeats row 0.
                let (a, b) = (x[i..2 * i].to_vec(), x[..i].to_vec());
                x[(n - 1) * i..].copy_from_slice(&a);
                if n > 5 {
                    x[5 * i..6 * i].copy_from_slice(&b);
                }
            }
            let (w, b) = (values(o * i, 5 + o as u64), values(o, 13));
            let packed = PackedBf16::pack(&w, o, i).unwrap();
            let mut written = vec![0f32; n * o];
            match (linear_bf16(&x, n, &packed, &b, &mut written), column_max_bf16(&x, n, &packed, &b)) {
                (Ok(()), Ok((maxes, args))) => {
                    assert_eq!((maxes.len(), args.len()), (o, o));
                    for c in 0..o {
                        // The first row with the column's largest written value, by a plain scan.
                        let mut first = 0;
                        for r in 1..n {
                            if written[r * o + c] > written[first * o + c] {
                                first = r;
                            }
                        }
                        assert_eq!(args[c] as usize, first, "{n}×{i}×{o} column {c}");
                        assert_eq!(maxes[c].to_bits(), written[first * o + c].to_bits(), "{n}×{i}×{o} column {c}");
                    }
                    if repeat {
                        // A row repeating an earlier one never wins a column.
                        assert!(args.iter().all(|&r| r as usize != n - 1 && r != 5));
                    }
                }
                (Err(e), Err(f)) => {
                    assert!(!bf16_instructions(), "{e}");
                    assert!(f.to_string().contains("AVX512-BF16"), "{f}");
                    crate::note_skipped("the AVX512-BF16 column maxima against the written product (no AVX512-BF16)");
                }
                (a, m) => panic!("the written product and the maxima disagree on running: {a:?} / {:?}", m.map(|_| ())),
            }
        }
        assert!(column_max_bf16(&[1.0], 2, &PackedBf16::pack(&[1.0], 1, 1).unwrap(), &[0.0]).is_err(), "2 rows of 1");
        // 3 values are not 2 rows of 2 (though they are more than 2 / 2).
        let two = PackedBf16::pack(&[1.0; 4], 2, 2).unwrap();
        assert!(column_max_bf16(&[1.0; 3], 2, &two, &[0.0; 2]).is_err(), "2 rows of 2");
        assert!(column_max_bf16(&[1.0; 4], 2, &two, &[0.0; 3]).is_err(), "3 biases for 2 columns");
    }

    #[test]
    fn column_maxima_of_a_product_worked_by_hand() {
        // x: 3 rows × 2 inputs; W: 2 outputs. Column 0 = x₀ + x₁ + 1: rows give 4, 8, 8 → 8 at
        // row 1 (row 2 ties, and the first is kept). Column 1 = 2·x₀ − x₁: rows give 0, 2, 5 → 5
        // at row 2. Every value is a small integer, exact in bf16 and in f32.
        let x = [1.0, 2.0, 3.0, 4.0, 4.0, 3.0];
        let w = PackedBf16::pack(&[1.0, 1.0, 2.0, -1.0], 2, 2).unwrap();
        match column_max_bf16(&x, 3, &w, &[1.0, 0.0]) {
            Ok((m, a)) => assert_eq!((m, a), (vec![8.0, 5.0], vec![1, 2])),
            Err(e) => {
                assert!(!bf16_instructions(), "{e}");
                crate::note_skipped("the AVX512-BF16 column maxima worked by hand (no AVX512-BF16)");
            }
        }
    }

    #[test]
    fn the_kernel_computes_the_portable_product_or_says_it_cannot() {
        // Shapes with every remainder: rows not a multiple of 8 or 64, outputs not of 16 or 32,
        // an odd number of inputs.
        for &(n, i, o) in &[(1, 1, 1), (7, 5, 17), (70, 33, 40), (130, 384, 384), (9, 1536, 48)] {
            let (x, w, b) = (values(n * i, 1 + n as u64), values(o * i, 7 + i as u64), values(o, 3));
            let packed = PackedBf16::pack(&w, o, i).unwrap();
            let mut want = vec![0f32; n * o];
            linear_bf16_portable(&x, n, &packed, &b, &mut want).unwrap();
            // The portable product against f64 sums of the same rounded values.
            for r in 0..n {
                for c in 0..o {
                    let exact: f64 = (0..i)
                        .map(|k| from_bf16(to_bf16(x[r * i + k])) as f64 * packed.weight(c, k) as f64)
                        .sum::<f64>()
                        + b[c] as f64;
                    let got = want[r * o + c] as f64;
                    assert!((got - exact).abs() <= 1e-5 * (1.0 + i as f64).sqrt(), "{n}×{i}×{o} [{r},{c}]");
                }
            }
            let mut got = vec![f32::NAN; n * o];
            match linear_bf16(&x, n, &packed, &b, &mut got) {
                Ok(()) => {
                    assert!(bf16_instructions());
                    for (g, w) in got.iter().zip(&want) {
                        assert!((g - w).abs() <= 1e-5 * (1.0 + i as f32).sqrt(), "{n}×{i}×{o}: {g} vs {w}");
                    }
                }
                Err(e) => {
                    assert!(!bf16_instructions(), "{e}");
                    assert!(e.to_string().contains("AVX512-BF16"), "{e}");
                    assert_eq!(Precision::Bf16.effective(), Precision::F32);
                    crate::note_skipped("the AVX512-BF16 product against the portable bf16 one (no AVX512-BF16)");
                }
            }
        }
    }
}
