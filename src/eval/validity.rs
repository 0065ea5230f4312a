//! Can a second set of judgements — a language model's, another assessor's, a pooled file — stand
//! in for the people's when the question is *which method is better*? Cohen's κ on single pairs
//! does not say: a judge with a poor κ can still order systems right, and one with a fair κ can
//! flip the one comparison that matters. So every system is evaluated twice, under the people's
//! judgements and under the judge's, on the questions both judged, and the two orders compared:
//!
//! - Kendall's τ (τ-b, ties allowed) between the systems' two orders by mean nDCG@10, with a 95 %
//!   interval from a bootstrap over questions (seeded: the same seed gives the same interval);
//! - the pairs of systems whose paired-test conclusion differs (each side's randomisation tests
//!   Holm-corrected over all pairs, as the evaluation corrects its tests): one better under the
//!   people and not under the judge, or the other way round;
//! - κ between the judge's labels and the people's on the passages the judge labelled.
//!
//! Passages one side never judged count as not relevant on that side, as the people's evaluation
//! counts them (BEIR's and trec_eval's convention); [`Validity::unjudged`] says so.
//!
//! Where the interval's lower end is under [`TRUSTED_TAU`], the judge cannot be trusted to rank
//! these systems, and every figure drawn from its labels should carry that sentence
//! ([`Validity::verdict`]).

use serde::{Deserialize, Serialize};

use super::{Agreement, Correction, Metric, MetricSet, Qrels, Run, agreement, evaluate, paired_test};

/// The lower end of τ's interval under which a judge cannot be trusted to rank the systems (Voorhees'
/// 0.9 is for assessor swaps of one collection; 0.6 is a loose floor for an automatic judge).
pub const TRUSTED_TAU: f64 = 0.6;
/// Bootstrap resamples of the questions.
pub const RESAMPLES: usize = 1000;
/// Permutations of each paired randomisation test.
const PERMUTATIONS: usize = 10_000;
/// Significance level of a paired test after Holm's correction.
const ALPHA: f64 = 0.05;

/// One system under both sets of judgements.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct JudgedSystem {
    /// The system's name.
    pub label: String,
    /// Mean nDCG@10 under the people's judgements.
    pub people: f64,
    /// Mean nDCG@10 under the judge's.
    pub judge: f64,
}

/// What a paired test concluded about two systems.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Conclusion {
    /// The first is better (Holm-adjusted p < 0.05).
    FirstBetter,
    /// The second is better.
    SecondBetter,
    /// No significant difference.
    NoDifference,
}

impl Conclusion {
    fn of(mean_difference: f64, p_adjusted: f64) -> Conclusion {
        if p_adjusted >= ALPHA || mean_difference == 0.0 {
            Conclusion::NoDifference
        } else if mean_difference > 0.0 {
            Conclusion::FirstBetter
        } else {
            Conclusion::SecondBetter
        }
    }

    fn words(self, a: &str, b: &str) -> String {
        match self {
            Conclusion::FirstBetter => format!("{a} better than {b}"),
            Conclusion::SecondBetter => format!("{b} better than {a}"),
            Conclusion::NoDifference => "no significant difference".into(),
        }
    }
}

/// A pair of systems the two sets of judgements conclude differently about.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Flip {
    /// The first system.
    pub a: String,
    /// The second system.
    pub b: String,
    /// What the people's judgements conclude.
    pub people: Conclusion,
    /// Their Holm-adjusted p.
    pub people_p: f64,
    /// What the judge's conclude.
    pub judge: Conclusion,
    /// Their Holm-adjusted p.
    pub judge_p: f64,
    /// In words.
    pub text: String,
}

/// A judge measured against the people on ordering systems.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Validity {
    /// Questions both sets of judgements judged (the others are left out of both evaluations).
    pub questions: usize,
    /// The metric the systems are ordered by.
    pub metric: Metric,
    /// Each system's mean under both.
    pub systems: Vec<JudgedSystem>,
    /// Kendall's τ-b between the two orders; `None` when either gives no order.
    pub tau: Option<f64>,
    /// Its 95 % bootstrap interval over questions; `None` when τ is.
    pub interval: Option<[f64; 2]>,
    /// Resamples of the bootstrap, and how many gave a τ (a resample where every system ties on
    /// one side gives none).
    pub resamples: usize,
    /// Resamples that gave a τ.
    pub resamples_with_tau: usize,
    /// The bootstrap's seed.
    pub seed: u64,
    /// Pairs whose paired-test conclusion differs.
    pub flips: Vec<Flip>,
    /// Pairs tested.
    pub pairs: usize,
    /// Cohen's κ of the judge's labels against the people's, on the passages the judge labelled.
    pub kappa: Option<f64>,
    /// The agreement table behind κ.
    pub agreement: Agreement,
    /// How passages one side never judged were counted.
    pub unjudged: String,
    /// The interval's lower end is at least [`TRUSTED_TAU`].
    pub trusted: bool,
    /// In one sentence: can this judge rank these systems?
    pub verdict: String,
}

/// The bootstrap's seed wherever RankLens measures a judge (the CLI, reports, the app), so the
/// same runs and judgements give the same interval everywhere.
pub const VALIDITY_SEED: u64 = 0x5eed;

impl Validity {
    /// τ to `places` decimals, or "none" when either order is undefined.
    pub fn tau_text(&self, places: usize) -> String {
        self.tau.map_or("none".into(), |t| format!("{t:.places$}"))
    }

    /// The 95 % interval as "lo to hi" to `places` decimals, or "none".
    pub fn interval_text(&self, places: usize) -> String {
        self.interval.map_or("none".into(), |[lo, hi]| format!("{lo:.places$} to {hi:.places$}"))
    }
}

/// The judge against the people over `systems` (name, run). `people` are the judgements the
/// evaluation uses; `judge` the second set. Only questions both judged are compared.
pub fn validity(systems: &[(String, &Run)], people: &Qrels, judge: &Qrels, seed: u64) -> Validity {
    let metric = Metric::Ndcg(10);
    let metrics = MetricSet(vec![metric]);
    let both: Vec<String> = people.judgements.keys().filter(|q| judge.judgements.contains_key(*q)).cloned().collect();
    let restrict = |q: &Qrels| Qrels {
        judgements: both.iter().filter_map(|id| q.judgements.get(id).map(|j| (id.clone(), j.clone()))).collect(),
    };
    let (people, judge) = (restrict(people), restrict(judge));
    // Per system, per question (in `both`'s order), the metric under each side.
    let values = |qrels: &Qrels| -> Vec<Vec<f64>> {
        systems
            .iter()
            .map(|(_, run)| {
                let s = evaluate(run, qrels, &metrics);
                both.iter().map(|q| s.per_query.get(q).and_then(|m| m.get(&metric)).copied().unwrap_or(0.0)).collect()
            })
            .collect()
    };
    let (pv, jv) = (values(&people), values(&judge));
    let means = |v: &[Vec<f64>], pick: &[usize]| -> Vec<f64> {
        v.iter().map(|row| pick.iter().map(|&i| row[i]).sum::<f64>() / pick.len().max(1) as f64).collect()
    };
    let all: Vec<usize> = (0..both.len()).collect();
    let (pm, jm) = (means(&pv, &all), means(&jv, &all));
    let grades: std::collections::BTreeSet<i32> = judge.judgements.values().flat_map(|j| j.values().copied()).collect();
    let one_grade = grades.len() <= 1;
    let tau = if both.is_empty() { None } else { kendall_tau_b(&pm, &jm) };
    let mut with_tau = Vec::new();
    if tau.is_some() {
        let mut state = seed;
        for _ in 0..RESAMPLES {
            let pick: Vec<usize> = (0..both.len())
                .map(|_| {
                    state = crate::lcg::lcg(state);
                    ((state >> 33) % both.len() as u64) as usize
                })
                .collect();
            if let Some(t) = kendall_tau_b(&means(&pv, &pick), &means(&jv, &pick)) {
                with_tau.push(t);
            }
        }
    }
    with_tau.sort_by(f64::total_cmp);
    let interval =
        (tau.is_some() && !with_tau.is_empty()).then(|| [percentile(&with_tau, 0.025), percentile(&with_tau, 0.975)]);
    let flips = flips(systems, &pv, &jv, seed);
    let pairs = systems.len() * systems.len().saturating_sub(1) / 2;
    let agreement = agreement(judge.judgements.iter().flat_map(|(q, docs)| {
        let people = people.judgements.get(q);
        docs.iter().map(move |(d, g)| (*g > 0, people.and_then(|p| p.get(d)).is_some_and(|g| *g > 0)))
    }));
    let trusted = interval.is_some_and(|[lo, _]| lo >= TRUSTED_TAU);
    let verdict = match (tau, interval) {
        _ if both.is_empty() => "the judge and the people judged no question in common: nothing to compare".into(),
        (None, _) if one_grade => format!(
            "the judge gave every passage the same grade{}: its labels cannot order the systems",
            grades.iter().next().map(|g| format!(" ({g})")).unwrap_or_default()
        ),
        (None, _) => "one of the two evaluations gives every system the same score: no order to compare".into(),
        (Some(t), Some([lo, hi])) if lo < TRUSTED_TAU => format!(
            "this judge cannot be trusted to rank these systems: τ = {t:.2}, 95 % interval {lo:.2} to {hi:.2} (its lower end is under {TRUSTED_TAU})"
        ),
        (Some(t), Some([lo, hi])) => {
            format!("this judge orders these systems as the people do: τ = {t:.2}, 95 % interval {lo:.2} to {hi:.2}")
        }
        (Some(t), None) => format!("τ = {t:.2}, with no interval (no resample ordered the systems)"),
    };
    Validity {
        questions: both.len(),
        metric,
        systems: systems
            .iter()
            .zip(pm.iter().zip(&jm))
            .map(|((label, _), (p, j))| JudgedSystem { label: label.clone(), people: *p, judge: *j })
            .collect(),
        tau,
        interval,
        resamples: if tau.is_some() { RESAMPLES } else { 0 },
        resamples_with_tau: with_tau.len(),
        seed,
        flips,
        pairs,
        kappa: agreement.kappa,
        agreement,
        unjudged: "a passage one side never judged counts as not relevant on that side, as the people's \
                   evaluation counts it (trec_eval, BEIR); questions only one side judged are left out"
            .into(),
        trusted,
        verdict,
    }
}

/// Every pair of systems tested on each side, Holm-corrected over the pairs; those whose
/// conclusions differ.
fn flips(systems: &[(String, &Run)], pv: &[Vec<f64>], jv: &[Vec<f64>], seed: u64) -> Vec<Flip> {
    let mut pairs = Vec::new();
    for a in 0..systems.len() {
        for b in a + 1..systems.len() {
            pairs.push((a, b));
        }
    }
    let side = |v: &[Vec<f64>]| -> Vec<(f64, f64)> {
        let tests: Vec<_> = pairs.iter().map(|&(a, b)| paired_test(&v[a], &v[b], PERMUTATIONS, seed)).collect();
        let raw: Vec<f64> = tests.iter().map(|t| t.p_randomisation).collect();
        tests.iter().zip(Correction::Holm.adjust(&raw)).map(|(t, p)| (t.mean_difference, p)).collect()
    };
    let (ps, js) = (side(pv), side(jv));
    pairs
        .iter()
        .zip(ps.iter().zip(&js))
        .filter_map(|(&(a, b), (&(pd, pp), &(jd, jp)))| {
            let (people, judge) = (Conclusion::of(pd, pp), Conclusion::of(jd, jp));
            (people != judge).then(|| {
                let (na, nb) = (&systems[a].0, &systems[b].0);
                Flip {
                    a: na.clone(),
                    b: nb.clone(),
                    people,
                    people_p: pp,
                    judge,
                    judge_p: jp,
                    text: format!(
                        "{na} against {nb}: the people's judgements say {}, the judge's {}",
                        people.words(na, nb),
                        judge.words(na, nb)
                    ),
                }
            })
        })
        .collect()
}

/// Kendall's τ-b of two score lists over the same systems: (concordant − discordant) /
/// √((n₀ − n₁)(n₀ − n₂)), n₁ and n₂ the pairs tied in each. `None` when either list ties every pair.
pub fn kendall_tau_b(x: &[f64], y: &[f64]) -> Option<f64> {
    let n = x.len().min(y.len());
    let (mut s, mut n0, mut tx, mut ty) = (0i64, 0i64, 0i64, 0i64);
    for i in 0..n {
        for j in i + 1..n {
            let a = (x[i] - x[j]).partial_cmp(&0.0).map_or(0, |o| o as i64);
            let b = (y[i] - y[j]).partial_cmp(&0.0).map_or(0, |o| o as i64);
            n0 += 1;
            tx += i64::from(a == 0);
            ty += i64::from(b == 0);
            s += a * b;
        }
    }
    let d = ((n0 - tx) as f64 * (n0 - ty) as f64).sqrt();
    (d > 0.0).then(|| s as f64 / d)
}

/// The `q` quantile of sorted values (the nearest rank).
fn percentile(sorted: &[f64], q: f64) -> f64 {
    let i = ((sorted.len() - 1) as f64 * q).round() as usize;
    sorted[i.min(sorted.len() - 1)]
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_difference_significant_only_before_holms_correction_is_no_flip() {
        // 20 questions. A − B is +1 on 15 and −1 on 5: the sign-flip test's two-sided p is
        // P(|S| ≥ 10) for S a sum of 20 fair signs = 2·P(Bin(20, ½) ≥ 15) = 0.0414, under 0.05
        // but over 0.05/3. C swings ±5 around A, far from both (p ≈ 1 and ≈ 0.65). Holm multiplies
        // the smallest of three p's by 3: 0.124, no difference. The judge sees A and B equal. So
        // the two sides agree — no flip; without the correction the people's side would say "A
        // better" and the pair would flip.
        let a = vec![1.0; 20];
        let b: Vec<f64> = (0..20).map(|i| if i < 15 { 0.0 } else { 2.0 }).collect();
        let c: Vec<f64> = (0..20).map(|i| if i % 2 == 0 { 6.0 } else { -4.0 }).collect();
        let raw = paired_test(&a, &b, PERMUTATIONS, 3).p_randomisation;
        assert!(raw > 0.05 / 3.0 && raw < 0.05, "raw p {raw}");
        let runs = [Run::default(), Run::default(), Run::default()];
        let systems: Vec<(String, &Run)> = ["A", "B", "C"].iter().zip(&runs).map(|(n, r)| (n.to_string(), r)).collect();
        let people = vec![a.clone(), b, c.clone()];
        let judge = vec![a.clone(), a, c];
        assert!(flips(&systems, &people, &judge, 3).is_empty(), "Holm's correction keeps the pair as no difference");
        // The judge seeing B clearly worse (all 20 questions) flips it: the people's side does not say so.
        let worse = vec![0.0; 20];
        let judge = vec![vec![1.0; 20], worse, people[2].clone()];
        let f = flips(&systems, &people, &judge, 3);
        assert_eq!(f.len(), 1, "{f:?}");
        assert_eq!((f[0].people, f[0].judge), (Conclusion::NoDifference, Conclusion::FirstBetter));
    }

    #[test]
    fn tau_b_of_hand_worked_orders() {
        // Identical orders: 1; reversed: −1.
        assert_eq!(kendall_tau_b(&[0.1, 0.2, 0.3], &[1.0, 2.0, 3.0]), Some(1.0));
        assert_eq!(kendall_tau_b(&[0.1, 0.2, 0.3], &[3.0, 2.0, 1.0]), Some(-1.0));
        // Four systems, one pair swapped: 6 pairs, 5 concordant, 1 discordant → 4/6.
        let t = kendall_tau_b(&[1.0, 2.0, 3.0, 4.0], &[1.0, 3.0, 2.0, 4.0]).unwrap();
        assert!((t - 4.0 / 6.0).abs() < 1e-12);
        // A tie in y: pairs (1,2) tied; x has no ties. S = 2 (the two untied pairs agree),
        // n0 = 3, n1 = 0, n2 = 1 → 2 / √(3 · 2) = 0.8165.
        let t = kendall_tau_b(&[1.0, 2.0, 3.0], &[1.0, 2.0, 2.0]).unwrap();
        assert!((t - 2.0 / 6f64.sqrt()).abs() < 1e-12, "{t}");
        // The same with the tie in x: n1 = 1, n2 = 0 → 2 / √(2 · 3), the same value.
        let t = kendall_tau_b(&[1.0, 2.0, 2.0], &[1.0, 2.0, 3.0]).unwrap();
        assert!((t - 2.0 / 6f64.sqrt()).abs() < 1e-12, "{t}");
        // Ties on both sides: x ties (2,3), y ties (1,2); S = 1 (pair 1–3 agrees), n0 = 3,
        // n1 = n2 = 1 → 1 / √(2 · 2) = 0.5.
        let t = kendall_tau_b(&[1.0, 2.0, 2.0], &[1.0, 1.0, 3.0]).unwrap();
        assert!((t - 0.5).abs() < 1e-12, "{t}");
        // Every pair tied on one side: no τ.
        assert_eq!(kendall_tau_b(&[1.0, 2.0, 3.0], &[0.5, 0.5, 0.5]), None);
    }

    #[test]
    fn the_nearest_rank_percentile() {
        let v: Vec<f64> = (0..=100).map(f64::from).collect();
        assert_eq!(percentile(&v, 0.025), 3.0); // 100 × 0.025 = 2.5 → 3 (round half away)
        assert_eq!(percentile(&v, 0.975), 98.0);
        assert_eq!(percentile(&[7.0], 0.5), 7.0);
        // Eleven values: the 0.7 quantile is rank (11 − 1) × 0.7 = 7, not 11 × 0.7 = 7.7 → 8.
        let w: Vec<f64> = (0..=10).map(f64::from).collect();
        assert_eq!(percentile(&w, 0.7), 7.0);
    }
}
