//! Paired significance tests over per-query scores of two systems.
//!
//! The randomisation test (Fisher's, as Smucker et al. recommend for IR) flips the sign of each
//! query's difference at random and counts how often the mean difference is at least as extreme
//! as observed; the paired t-test is given beside it. Both are two-sided.

use serde::{Deserialize, Serialize};

/// The result of comparing two systems query by query.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct PairedTest {
    /// Mean of (system − baseline).
    pub mean_difference: f64,
    /// Queries where the system is better, worse, equal.
    pub wins: usize,
    /// Worse.
    pub losses: usize,
    /// Equal.
    pub ties: usize,
    /// Two-sided p-value of the randomisation test.
    pub p_randomisation: f64,
    /// Two-sided p-value of the paired t-test.
    pub p_t_test: f64,
    /// Permutations used.
    pub permutations: usize,
    /// The randomisation p-value corrected for the number of systems tested against the same
    /// baseline (see [`Correction`]); equal to `p_randomisation` when there is one.
    #[serde(default = "one")]
    pub p_adjusted: f64,
}

fn one() -> f64 {
    1.0
}

/// A correction for testing several systems against one baseline at once: with ten systems,
/// one of them will look significant at 0.05 by chance alone about four times in ten.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Correction {
    /// Holm's step-down method: controls the family-wise error as Bonferroni does, with more power.
    #[default]
    Holm,
    /// Bonferroni: each p-value times the number of tests.
    Bonferroni,
    /// No correction.
    None,
}

impl Correction {
    /// Every correction, for menus.
    pub const ALL: [Correction; 3] = [Correction::Holm, Correction::Bonferroni, Correction::None];

    /// Its name.
    pub fn name(self) -> &'static str {
        match self {
            Correction::Holm => "Holm",
            Correction::Bonferroni => "Bonferroni",
            Correction::None => "none",
        }
    }

    /// The p-values of `m` tests, corrected, in their original order.
    pub fn adjust(self, p: &[f64]) -> Vec<f64> {
        let m = p.len() as f64;
        match self {
            Correction::None => p.to_vec(),
            Correction::Bonferroni => p.iter().map(|x| (x * m).min(1.0)).collect(),
            Correction::Holm => {
                let mut order: Vec<usize> = (0..p.len()).collect();
                order.sort_by(|&a, &b| p[a].total_cmp(&p[b]).then(a.cmp(&b)));
                let mut out = vec![0.0; p.len()];
                let mut running = 0.0f64;
                for (j, &i) in order.iter().enumerate() {
                    // (m − j)·p_(j), made monotone so a smaller p never gets a larger correction.
                    running = running.max(((m - j as f64) * p[i]).min(1.0));
                    out[i] = running;
                }
                out
            }
        }
    }
}

impl std::str::FromStr for Correction {
    type Err = crate::Error;
    fn from_str(s: &str) -> crate::Result<Self> {
        Correction::ALL.into_iter().find(|c| c.name().eq_ignore_ascii_case(s.trim())).ok_or_else(|| {
            crate::Error::invalid("correction", format!("unknown correction {s:?}; choose holm, bonferroni or none"))
        })
    }
}

/// A small deterministic generator (SplitMix64), so p-values are reproducible.
struct SplitMix(u64);

impl SplitMix {
    fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9e3779b97f4a7c15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58476d1ce4e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d049bb133111eb);
        z ^ (z >> 31)
    }
}

/// Compare paired scores (same queries, same order).
pub fn paired_test(system: &[f64], baseline: &[f64], permutations: usize, seed: u64) -> PairedTest {
    let d: Vec<f64> = system.iter().zip(baseline).map(|(a, b)| a - b).collect();
    let n = d.len();
    let mean = if n == 0 { 0.0 } else { d.iter().sum::<f64>() / n as f64 };
    let wins = d.iter().filter(|x| **x > 1e-12).count();
    let losses = d.iter().filter(|x| **x < -1e-12).count();
    let observed = mean.abs();
    let mut rng = SplitMix(seed);
    let mut extreme = 0usize;
    for _ in 0..permutations {
        let mut sum = 0.0;
        for x in &d {
            sum += if rng.next() & 1 == 1 { *x } else { -*x };
        }
        if n > 0 && (sum / n as f64).abs() >= observed - 1e-12 {
            extreme += 1;
        }
    }
    let p_randomisation = (extreme as f64 + 1.0) / (permutations as f64 + 1.0);
    PairedTest {
        mean_difference: mean,
        wins,
        losses,
        ties: n - wins - losses,
        p_randomisation: if n == 0 { 1.0 } else { p_randomisation },
        p_t_test: t_test_p(&d),
        permutations,
        p_adjusted: if n == 0 { 1.0 } else { p_randomisation },
    }
}

/// Two-sided p-value of the one-sample t-test of mean(d) = 0.
pub fn t_test_p(d: &[f64]) -> f64 {
    let n = d.len();
    if n < 2 {
        return 1.0;
    }
    let mean = d.iter().sum::<f64>() / n as f64;
    let var = d.iter().map(|x| (x - mean).powi(2)).sum::<f64>() / (n as f64 - 1.0);
    if var <= 0.0 {
        return if mean == 0.0 { 1.0 } else { 0.0 };
    }
    let t = mean / (var / n as f64).sqrt();
    let df = (n - 1) as f64;
    // p = I_{df/(df+t²)}(df/2, 1/2), the regularised incomplete beta function.
    incomplete_beta(df / (df + t * t), df / 2.0, 0.5)
}

fn ln_gamma(x: f64) -> f64 {
    // Lanczos approximation (g = 7, n = 9), accurate to ~1e-15 for x > 0.
    const C: [f64; 9] = [
        0.999_999_999_999_809_9,
        676.520_368_121_885_1,
        -1_259.139_216_722_402_8,
        771.323_428_777_653_1,
        -176.615_029_162_140_6,
        12.507_343_278_686_905,
        -0.138_571_095_265_720_12,
        9.984_369_578_019_572e-6,
        1.505_632_735_149_311_6e-7,
    ];
    if x < 0.5 {
        let pi = std::f64::consts::PI;
        return (pi / (pi * x).sin()).ln() - ln_gamma(1.0 - x);
    }
    let x = x - 1.0;
    let mut a = C[0];
    let t = x + 7.5;
    for (i, c) in C.iter().enumerate().skip(1) {
        a += c / (x + i as f64);
    }
    0.5 * (2.0 * std::f64::consts::PI).ln() + (x + 0.5) * t.ln() - t + a.ln()
}

/// Regularised incomplete beta I_x(a, b) by its continued fraction (Numerical Recipes' betacf).
fn incomplete_beta(x: f64, a: f64, b: f64) -> f64 {
    if x <= 0.0 {
        return 0.0;
    }
    if x >= 1.0 {
        return 1.0;
    }
    let front = (ln_gamma(a + b) - ln_gamma(a) - ln_gamma(b) + a * x.ln() + b * (1.0 - x).ln()).exp();
    if x < (a + 1.0) / (a + b + 2.0) { front * beta_cf(x, a, b) / a } else { 1.0 - front * beta_cf(1.0 - x, b, a) / b }
}

fn beta_cf(x: f64, a: f64, b: f64) -> f64 {
    let (qab, qap, qam) = (a + b, a + 1.0, a - 1.0);
    let tiny = 1e-300;
    let mut c = 1.0;
    let mut d = 1.0 - qab * x / qap;
    if d.abs() < tiny {
        d = tiny;
    }
    d = 1.0 / d;
    let mut h = d;
    for m in 1..300 {
        let m = m as f64;
        let m2 = 2.0 * m;
        let aa = m * (b - m) * x / ((qam + m2) * (a + m2));
        d = 1.0 + aa * d;
        if d.abs() < tiny {
            d = tiny;
        }
        c = 1.0 + aa / c;
        if c.abs() < tiny {
            c = tiny;
        }
        d = 1.0 / d;
        h *= d * c;
        let aa = -(a + m) * (qab + m) * x / ((a + m2) * (qap + m2));
        d = 1.0 + aa * d;
        if d.abs() < tiny {
            d = tiny;
        }
        c = 1.0 + aa / c;
        if c.abs() < tiny {
            c = tiny;
        }
        d = 1.0 / d;
        let del = d * c;
        h *= del;
        if (del - 1.0).abs() < 3e-16 {
            break;
        }
    }
    h
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn t_test_matches_scipy() {
        // scipy.stats.ttest_1samp([0.1, 0.2, -0.05, 0.3, 0.15], 0) → t = 2.41883, p = 0.07285505961025568
        let p = t_test_p(&[0.1, 0.2, -0.05, 0.3, 0.15]);
        assert!((p - 0.07285505961025568).abs() < 1e-9, "{p}");
        // scipy.stats.ttest_1samp([1, 2, 3, 4], 0) → p = 0.030466291662170977
        assert!((t_test_p(&[1.0, 2.0, 3.0, 4.0]) - 0.030466291662170977).abs() < 1e-9);
    }

    #[test]
    fn holm_and_bonferroni_by_hand() {
        // p = (0.01, 0.04, 0.03, 0.20), m = 4. Bonferroni: 4p, capped at 1.
        let p = [0.01, 0.04, 0.03, 0.20];
        let b = Correction::Bonferroni.adjust(&p);
        for (got, want) in b.iter().zip([0.04, 0.16, 0.12, 0.80]) {
            assert!((got - want).abs() < 1e-12, "{b:?}");
        }
        // Holm: sorted 0.01, 0.03, 0.04, 0.20 → 4×0.01 = 0.04, 3×0.03 = 0.09, 2×0.04 = 0.08 → 0.09
        // (monotone), 1×0.20 = 0.20.
        let h = Correction::Holm.adjust(&p);
        for (got, want) in h.iter().zip([0.04, 0.09, 0.09, 0.20]) {
            assert!((got - want).abs() < 1e-12, "{h:?}");
        }
        assert_eq!(Correction::None.adjust(&p), p);
        assert_eq!("bonferroni".parse::<Correction>().ok(), Some(Correction::Bonferroni));
    }

    #[test]
    fn randomisation_test_counts_wins_and_is_exact_for_small_n() {
        // Two queries, both +1: of the 4 sign patterns, 2 reach |mean| ≥ 1 → p ≈ 0.5.
        let r = paired_test(&[1.0, 1.0], &[0.0, 0.0], 20_000, 42);
        assert_eq!((r.wins, r.losses, r.ties), (2, 0, 0));
        assert!((r.p_randomisation - 0.5).abs() < 0.02, "{}", r.p_randomisation);
        let same = paired_test(&[0.3, 0.5], &[0.3, 0.5], 1000, 1);
        assert_eq!(same.ties, 2);
        assert_eq!(same.p_randomisation, 1.0);
    }
}
