//! `--precision auto`, the default: the first time a model loads on a CPU, each kernel this CPU
//! can run (f32, bf16 where it has AVX512-BF16, int16 where it has AVX2) encodes the same real passages — the bundled
//! sample's, in texts of about a hundred word pieces — and the fastest that keeps every passage's
//! mean-pooled vector within cosine 0.999 of f32's is kept. Another kernel must beat f32 by more
//! than [`NOISE`] to be chosen, so auto is never slower than f32 beyond noise (on some CPUs bf16
//! is: an Intel Sapphire Rapids ran it at 0.67× f32). The choice is remembered per CPU model, build
//! and model in the model cache's `precision-auto.json`; an explicit precision still wins.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::time::Instant;

use serde::{Deserialize, Serialize};

use super::Precision;
use super::bert::Backbone;
use super::fast_bert::Kernels;
use crate::progress::Progress;
use crate::{Error, Result};

/// How much faster than f32 another kernel must be to be chosen (a share of f32's time).
pub const NOISE: f64 = 0.05;
/// The least cosine of a passage's vector with f32's that a kernel may give.
pub const MIN_COSINE: f64 = 0.999;
/// Bumped when a kernel changes, so choices made for the old kernels are made again.
const KERNELS_REVISION: u32 = 3;
/// Texts encoded per timing, and timings per kernel (the fastest of them counts).
const TEXTS: usize = 16;
const ROUNDS: usize = 3;

/// One model's calibration on one CPU.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Calibration {
    /// The model (its id, with its token limit when overridden).
    pub model: String,
    /// The CPU model, as the operating system names it.
    pub cpu: String,
    /// RankLens's version and kernels' revision.
    pub build: String,
    /// Seconds to encode the calibration texts, fastest of [`ROUNDS`], per kernel.
    pub seconds: BTreeMap<Precision, f64>,
    /// The least cosine of a text's vector with f32's, per kernel.
    pub min_cosine: BTreeMap<Precision, f64>,
    /// Texts and word pieces encoded per timing.
    pub texts: usize,
    /// Word pieces in those texts.
    pub tokens: usize,
    /// What runs.
    pub choice: Precision,
}

impl Calibration {
    /// One line: `bf16 (f32 0.512 s, bf16 0.321 s for 16 texts of 1,604 word pieces; cosine ≥ 0.99998)`.
    pub fn describe(&self) -> String {
        let times: Vec<String> = self.seconds.iter().map(|(p, s)| format!("{p} {s:.3} s")).collect();
        let cos =
            self.min_cosine.iter().filter(|(p, _)| **p != Precision::F32).map(|(p, c)| format!("{p} cosine ≥ {c:.5}"));
        let mut parts = times;
        parts.extend(cos);
        format!(
            "{} ({} for {} texts of {} word pieces, on {})",
            self.choice,
            parts.join(", "),
            self.texts,
            self.tokens,
            self.cpu
        )
    }
}

/// The choice among timed kernels: the fastest that passes the quality gate, where any kernel
/// other than f32 must take less than (1 − [`NOISE`]) of f32's time. f32 when nothing else does.
pub fn decide(seconds: &BTreeMap<Precision, f64>, min_cosine: &BTreeMap<Precision, f64>) -> Precision {
    let Some(&f32_time) = seconds.get(&Precision::F32) else { return Precision::F32 };
    seconds
        .iter()
        .filter(|(p, _)| **p != Precision::F32 && **p != Precision::Auto)
        .filter(|(p, s)| {
            s.is_finite() && **s < f32_time * (1.0 - NOISE) && min_cosine.get(p).is_some_and(|c| *c >= MIN_COSINE)
        })
        .min_by(|a, b| a.1.total_cmp(b.1))
        .map_or(Precision::F32, |(p, _)| *p)
}

/// The CPU's model name (`/proc/cpuinfo`'s `model name`, or the architecture where it is not
/// given).
pub fn cpu_model() -> String {
    std::fs::read_to_string("/proc/cpuinfo")
        .ok()
        .and_then(|t| {
            t.lines().find_map(|l| {
                l.strip_prefix("model name").and_then(|r| r.split_once(':')).map(|(_, v)| v.trim().to_string())
            })
        })
        .filter(|s| !s.is_empty())
        .unwrap_or_else(|| std::env::consts::ARCH.to_string())
}

/// The build a choice holds for.
pub fn build_id() -> String {
    format!("ranklens {} kernels r{KERNELS_REVISION}", env!("CARGO_PKG_VERSION"))
}

/// Where the choices are kept.
pub fn store_path(cache_dir: &Path) -> PathBuf {
    cache_dir.join("precision-auto.json")
}

fn key(model: &str, cpu: &str, build: &str) -> String {
    format!("{model} | {cpu} | {build}")
}

/// Every choice kept (an unreadable file is as good as none: the choices are made again).
pub fn remembered_all(cache_dir: &Path) -> BTreeMap<String, Calibration> {
    std::fs::read(store_path(cache_dir)).ok().and_then(|b| serde_json::from_slice(&b).ok()).unwrap_or_default()
}

/// The choice kept for `model` on this CPU and build.
pub fn remembered(cache_dir: &Path, model: &str) -> Option<Calibration> {
    remembered_all(cache_dir).remove(&key(model, &cpu_model(), &build_id()))
}

fn remember(cache_dir: &Path, c: &Calibration) -> Result<()> {
    let mut all = remembered_all(cache_dir);
    all.insert(key(&c.model, &c.cpu, &c.build), c.clone());
    let path = store_path(cache_dir);
    let text = serde_json::to_vec_pretty(&all).map_err(|e| Error::caused("precision-auto.json", e))?;
    crate::fsutil::write_atomic(&path, &text)
}

/// The calibration texts: [`TEXTS`] of them, each three of the bundled sample's passages in turn
/// (about a hundred word pieces).
fn texts() -> Vec<String> {
    let passages = crate::sample::passages();
    if passages.is_empty() {
        return Vec::new();
    }
    let n = passages.len();
    (0..TEXTS).map(|i| (0..3).map(|j| passages[(3 * i + j) % n].as_str()).collect::<Vec<_>>().join(" ")).collect()
}

/// The kernel `model` runs on this CPU: remembered, or timed now (and remembered).
pub fn resolve(
    cache_dir: &Path,
    model: &str,
    dir: &Path,
    max_length: usize,
    progress: &dyn Progress,
) -> Result<Calibration> {
    if let Some(c) = remembered(cache_dir, model) {
        return Ok(c);
    }
    let c = calibrate(model, dir, max_length, progress)?;
    // A cache that cannot be written costs a calibration next time, nothing else.
    let _ = remember(cache_dir, &c);
    Ok(c)
}

/// Time each kernel this CPU has on the calibration texts.
pub fn calibrate(model: &str, dir: &Path, max_length: usize, progress: &dyn Progress) -> Result<Calibration> {
    progress.stage(&format!("Timing {model}'s kernels on this CPU (once)"), 0);
    let (mut backbone, _) = Backbone::load(dir, max_length, Precision::F32)?;
    let texts = texts();
    let mut ids = Vec::with_capacity(texts.len());
    let mut types = Vec::with_capacity(texts.len());
    for t in &texts {
        let e = backbone.encode(t)?;
        ids.push(e.get_ids().to_vec());
        types.push(e.get_type_ids().to_vec());
    }
    let keys: Vec<usize> = ids.iter().map(Vec::len).collect();
    let tokens: usize = keys.iter().sum();
    let mut candidates = vec![(Precision::F32, Kernels::F32)];
    if super::precision::bf16_supported() {
        candidates.push((Precision::Bf16, Kernels::Bf16));
    }
    if super::precision::int16_supported() {
        candidates.push((Precision::Int16, Kernels::Int16));
    }
    let mut seconds: BTreeMap<Precision, f64> = BTreeMap::new();
    let mut pooled: BTreeMap<Precision, Vec<Vec<f64>>> = BTreeMap::new();
    for _ in 0..ROUNDS {
        for &(p, k) in &candidates {
            crate::progress::check_cancel(progress)?;
            backbone.model.set_kernels(k)?;
            let start = Instant::now();
            let (rows, offsets) = backbone.model.forward(&ids, &types, &keys)?;
            let took = start.elapsed().as_secs_f64();
            let best = seconds.entry(p).or_insert(f64::INFINITY);
            *best = best.min(took);
            pooled.entry(p).or_insert_with(|| mean_pool(&rows, &offsets, backbone.model.hidden()));
        }
    }
    backbone.model.set_kernels(Kernels::F32)?;
    let reference = pooled.get(&Precision::F32).cloned().unwrap_or_default();
    let min_cosine: BTreeMap<Precision, f64> = pooled
        .iter()
        .map(|(p, v)| (*p, v.iter().zip(&reference).map(|(a, b)| cosine(a, b)).fold(1.0, f64::min)))
        .collect();
    let choice = decide(&seconds, &min_cosine);
    Ok(Calibration {
        model: model.to_string(),
        cpu: cpu_model(),
        build: build_id(),
        seconds,
        min_cosine,
        texts: texts.len(),
        tokens,
        choice,
    })
}

/// Each sequence's rows averaged.
fn mean_pool(rows: &[f32], offsets: &[usize], hidden: usize) -> Vec<Vec<f64>> {
    offsets
        .windows(2)
        .map(|w| {
            let n = (w[1] - w[0]).max(1) as f64;
            let mut v = vec![0f64; hidden];
            for r in rows[w[0] * hidden..w[1] * hidden].chunks(hidden) {
                for (s, x) in v.iter_mut().zip(r) {
                    *s += f64::from(*x);
                }
            }
            v.iter().map(|s| s / n).collect()
        })
        .collect()
}

fn cosine(a: &[f64], b: &[f64]) -> f64 {
    let dot: f64 = a.iter().zip(b).map(|(x, y)| x * y).sum();
    let n = |v: &[f64]| v.iter().map(|x| x * x).sum::<f64>().sqrt();
    let d = n(a) * n(b);
    if d > 0.0 { dot / d } else { 0.0 }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn map(items: &[(Precision, f64)]) -> BTreeMap<Precision, f64> {
        items.iter().copied().collect()
    }

    #[test]
    fn the_fastest_kernel_that_passes_the_gate_wins_and_f32_keeps_ties_within_noise() {
        let good = map(&[(Precision::F32, 1.0), (Precision::Bf16, 0.99999)]);
        // bf16 at 0.64 of f32's time, cosines fine: bf16.
        assert_eq!(decide(&map(&[(Precision::F32, 1.0), (Precision::Bf16, 0.64)]), &good), Precision::Bf16);
        // 1.5× slower (the Sapphire Rapids case): f32.
        assert_eq!(decide(&map(&[(Precision::F32, 1.0), (Precision::Bf16, 1.49)]), &good), Precision::F32);
        // Within noise, 0.96 (less than 5 % faster): f32; at 0.94: bf16.
        assert_eq!(decide(&map(&[(Precision::F32, 1.0), (Precision::Bf16, 0.96)]), &good), Precision::F32);
        assert_eq!(decide(&map(&[(Precision::F32, 1.0), (Precision::Bf16, 0.94)]), &good), Precision::Bf16);
        // Fast but below the gate: f32.
        let poor = map(&[(Precision::F32, 1.0), (Precision::Bf16, 0.998)]);
        assert_eq!(decide(&map(&[(Precision::F32, 1.0), (Precision::Bf16, 0.5)]), &poor), Precision::F32);
        // Only f32 timed (no bf16 on this CPU), or nothing: f32.
        assert_eq!(decide(&map(&[(Precision::F32, 1.0)]), &good), Precision::F32);
        assert_eq!(decide(&BTreeMap::new(), &good), Precision::F32);
        // A time that is not a number never wins.
        assert_eq!(decide(&map(&[(Precision::F32, 1.0), (Precision::Bf16, f64::NAN)]), &good), Precision::F32);
    }

    #[test]
    fn mean_pooling_and_cosine_by_hand() {
        // Two sequences of 2 and 1 rows of 2: means (2, 3) and (5, 6).
        let rows = [1.0f32, 2.0, 3.0, 4.0, 5.0, 6.0];
        assert_eq!(mean_pool(&rows, &[0, 2, 3], 2), vec![vec![2.0, 3.0], vec![5.0, 6.0]]);
        // (1, 0)·(1, 1) / √2 = 0.7071…
        assert!((cosine(&[1.0, 0.0], &[1.0, 1.0]) - 0.5f64.sqrt()).abs() < 1e-12);
        assert_eq!(cosine(&[0.0, 0.0], &[1.0, 1.0]), 0.0);
    }

    #[test]
    fn choices_are_kept_per_model_cpu_and_build_and_a_broken_file_is_none() {
        let dir = tempfile::tempdir().unwrap();
        let c = Calibration {
            model: "m".into(),
            cpu: cpu_model(),
            build: build_id(),
            seconds: map(&[(Precision::F32, 1.0), (Precision::Bf16, 0.5)]),
            min_cosine: map(&[(Precision::F32, 1.0), (Precision::Bf16, 0.9999)]),
            texts: 16,
            tokens: 1600,
            choice: Precision::Bf16,
        };
        remember(dir.path(), &c).unwrap();
        assert_eq!(remembered(dir.path(), "m"), Some(c.clone()));
        assert_eq!(remembered(dir.path(), "other"), None);
        // Made on another CPU, or by another build: not this one's.
        let mut elsewhere = c.clone();
        elsewhere.cpu = "Some Other CPU".into();
        elsewhere.model = "n".into();
        remember(dir.path(), &elsewhere).unwrap();
        assert_eq!(remembered(dir.path(), "n"), None);
        assert_eq!(remembered(dir.path(), "m"), Some(c));
        std::fs::write(store_path(dir.path()), b"{not json").unwrap();
        assert_eq!(remembered(dir.path(), "m"), None);
        assert!(texts().len() == TEXTS && texts().iter().all(|t| t.split_whitespace().count() >= 40));
    }
}
