//! The metrics exercises: precision, recall, average precision and nDCG of a ranking against its
//! judgements, each key computed by [`crate::eval::evaluate_query`] (the code that evaluates the
//! methods) and each usual mistake by the same computation with one step done wrong.

use std::collections::BTreeMap;

use super::checkpoint::{Checkpoint, format_number};
use super::exercises::{mistake, number};
use crate::eval::{Metric, MetricSet, evaluate_query};

/// A ranking and its judgements for the metrics exercises (and, as it serialises, what their
/// questions give the student).
#[derive(serde::Serialize)]
pub struct JudgedRanking<'a> {
    /// Passage ids, best first.
    pub ranking: &'a [String],
    /// Grades (0 not relevant … 3), every judged passage, ranked or not.
    #[serde(rename = "judgements")]
    pub grades: &'a BTreeMap<String, i32>,
}

impl JudgedRanking<'_> {
    fn scored(&self) -> Vec<(String, f64)> {
        self.ranking.iter().enumerate().map(|(i, d)| (d.clone(), (self.ranking.len() - i) as f64)).collect()
    }

    fn metric(&self, m: Metric) -> f64 {
        let values = evaluate_query(&self.scored(), Some(self.grades), &MetricSet(vec![m]));
        values.get(&m).copied().unwrap_or(0.0)
    }

    fn relevant(&self) -> usize {
        self.grades.values().filter(|&&g| g >= 1).count()
    }

    fn grade(&self, d: &str) -> i32 {
        self.grades.get(d).copied().unwrap_or(0)
    }
}

/// Precision at k (relevant: grade ≥ 1).
pub fn precision_at(id: &str, j: &JudgedRanking<'_>, k: usize) -> Checkpoint {
    let key = j.metric(Metric::Precision(k));
    let hits = j.ranking.iter().take(k).filter(|d| j.grade(d) >= 1).count() as f64;
    let strict = j.ranking.iter().take(k).filter(|d| j.grade(d) >= 2).count() as f64;
    let rel = j.relevant() as f64;
    number(
        id,
        format!("What is the precision at {k} of this ranking? (relevant: grade ≥ 1)"),
        j,
        key,
        vec![format!("{hits} relevant in the top {k}: P@{k} = {hits}/{k} = {}", format_number(key))],
        vec![
            mistake(
                "divided by the number of relevant passages (that is recall)",
                if rel > 0.0 { hits / rel } else { 0.0 },
            ),
            mistake("only grades ≥ 2 counted as relevant", strict / k as f64),
            mistake("divided by every passage ranked instead of k", hits / j.ranking.len().max(1) as f64),
        ],
    )
}

/// Recall at k.
pub fn recall_at(id: &str, j: &JudgedRanking<'_>, k: usize) -> Checkpoint {
    let key = j.metric(Metric::Recall(k));
    let hits = j.ranking.iter().take(k).filter(|d| j.grade(d) >= 1).count() as f64;
    let rel = j.relevant() as f64;
    number(
        id,
        format!("What is the recall at {k}? (relevant found in the top {k} over all relevant passages)"),
        j,
        key,
        vec![format!("{hits} of the {rel} relevant passages are in the top {k}: R@{k} = {}", format_number(key))],
        vec![mistake("divided by k (that is precision)", hits / k as f64)],
    )
}

/// Average precision (over every relevant passage, found or not).
pub fn average_precision(id: &str, j: &JudgedRanking<'_>) -> Checkpoint {
    let key = j.metric(Metric::Ap);
    let mut found = 0usize;
    let mut precisions = Vec::new();
    for (i, d) in j.ranking.iter().enumerate() {
        if j.grade(d) >= 1 {
            found += 1;
            precisions.push(found as f64 / (i + 1) as f64);
        }
    }
    let sum: f64 = precisions.iter().sum();
    let rel = j.relevant() as f64;
    number(
        id,
        "What is the average precision of this ranking? (the mean of the precision at each relevant passage, over every relevant passage)".into(),
        j,
        key,
        vec![
            format!(
                "precision at each relevant passage found: {}",
                precisions.iter().map(|p| format_number(*p)).collect::<Vec<_>>().join(", ")
            ),
            format!("AP = {} / {rel} = {}", format_number(sum), format_number(key)),
        ],
        vec![mistake(
            "divided by the relevant passages found instead of all relevant",
            if precisions.is_empty() { 0.0 } else { sum / precisions.len() as f64 },
        )],
    )
}

/// nDCG at k with linear gains and the log2(rank + 1) discount (trec_eval's).
pub fn ndcg_at(id: &str, j: &JudgedRanking<'_>, k: usize) -> Checkpoint {
    let key = j.metric(Metric::Ndcg(k));
    let grades: Vec<f64> = j.ranking.iter().take(k).map(|d| f64::from(j.grade(d).max(0))).collect();
    let mut ideal: Vec<f64> = j.grades.values().filter(|&&g| g > 0).map(|&g| f64::from(g)).collect();
    ideal.sort_by(|a, b| b.total_cmp(a));
    ideal.truncate(k);
    let dcg = |g: &[f64], gain: fn(f64) -> f64, disc: fn(usize) -> f64| -> f64 {
        g.iter().enumerate().map(|(i, &x)| gain(x) / disc(i)).sum()
    };
    let linear = |x: f64| x;
    let exp = |x: f64| 2f64.powf(x) - 1.0;
    let log2_rank1 = |i: usize| ((i + 2) as f64).log2();
    let rank_only = |i: usize| if i == 0 { 1.0 } else { ((i + 1) as f64).log2() };
    // (A discount in ln instead of log2 is not a mistake: it scales DCG and IDCG alike.)
    let ratio = |gain: fn(f64) -> f64, disc: fn(usize) -> f64| {
        let idcg = dcg(&ideal, gain, disc);
        if idcg > 0.0 { dcg(&grades, gain, disc) / idcg } else { 0.0 }
    };
    number(
        id,
        format!("What is nDCG@{k}? (gain = grade, discount log2(rank + 1), divided by the ideal ordering's DCG)"),
        j,
        key,
        vec![
            format!("DCG@{k} = {}", format_number(dcg(&grades, linear, log2_rank1))),
            format!(
                "ideal: the judged grades sorted, {} → IDCG@{k} = {}",
                ideal.iter().map(|g| format_number(*g)).collect::<Vec<_>>().join(", "),
                format_number(dcg(&ideal, linear, log2_rank1))
            ),
            format!("nDCG@{k} = DCG / IDCG = {}", format_number(key)),
        ],
        vec![
            mistake("DCG without dividing by the ideal ordering's", dcg(&grades, linear, log2_rank1)),
            mistake("gain 2^grade − 1 instead of the grade", ratio(exp, log2_rank1)),
            mistake("discount log2(rank), the first rank undiscounted", ratio(linear, rank_only)),
        ],
    )
}
