//! Ranking metrics with trec_eval's definitions.
//!
//! - ties: documents are ordered by score descending, then document id descending (`strcmp`), as
//!   trec_eval re-sorts every run before scoring;
//! - nDCG@k: gain = grade (linear), discount log2(rank + 1), ideal from all judged grades;
//! - AP: mean over relevant documents of precision at their ranks, divided by all relevant;
//! - R@k, P@k: relevant in the top k over all relevant, over k;
//! - MRR: 1 / rank of the first relevant document;
//! - relevant means grade ≥ 1; the mean is over every query with judgements.

use std::collections::BTreeMap;
use std::fmt;
use std::str::FromStr;

use serde::{Deserialize, Serialize};

use super::{Qrels, Run};
use crate::{Error, Result};

/// One metric. Serialised by its name (`nDCG@10`), so it can key JSON maps.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(into = "String", try_from = "String")]
pub enum Metric {
    /// nDCG at a cut-off.
    Ndcg(usize),
    /// Average precision over the whole ranking (MAP when averaged).
    Ap,
    /// Recall at a cut-off.
    Recall(usize),
    /// Precision at a cut-off.
    Precision(usize),
    /// Reciprocal rank of the first relevant document (MRR when averaged).
    Mrr,
}

impl Metric {
    /// trec_eval's name for the metric (`ndcg_cut_10`, `map`, `recall_100`, `P_10`, `recip_rank`).
    pub fn trec_name(self) -> String {
        match self {
            Metric::Ndcg(k) => format!("ndcg_cut_{k}"),
            Metric::Ap => "map".into(),
            Metric::Recall(k) => format!("recall_{k}"),
            Metric::Precision(k) => format!("P_{k}"),
            Metric::Mrr => "recip_rank".into(),
        }
    }
}

impl fmt::Display for Metric {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Metric::Ndcg(k) => write!(f, "nDCG@{k}"),
            Metric::Ap => write!(f, "MAP"),
            Metric::Recall(k) => write!(f, "R@{k}"),
            Metric::Precision(k) => write!(f, "P@{k}"),
            Metric::Mrr => write!(f, "MRR"),
        }
    }
}

impl From<Metric> for String {
    fn from(m: Metric) -> String {
        m.to_string()
    }
}

impl TryFrom<String> for Metric {
    type Error = Error;
    fn try_from(s: String) -> Result<Self> {
        s.parse()
    }
}

impl FromStr for Metric {
    type Err = Error;
    fn from_str(s: &str) -> Result<Self> {
        let lower = s.trim().to_lowercase();
        let cut = |prefixes: &[&str]| {
            prefixes.iter().find_map(|p| lower.strip_prefix(p)).and_then(|k| k.parse::<usize>().ok()).filter(|&k| k > 0)
        };
        if let Some(k) = cut(&["ndcg@", "ndcg_cut_", "ndcg_cut."]) {
            return Ok(Metric::Ndcg(k));
        }
        if let Some(k) = cut(&["r@", "recall@", "recall_", "recall."]) {
            return Ok(Metric::Recall(k));
        }
        if let Some(k) = cut(&["p@", "precision@", "p_", "p."]) {
            return Ok(Metric::Precision(k));
        }
        match lower.as_str() {
            "map" | "ap" => Ok(Metric::Ap),
            "mrr" | "recip_rank" | "rr" => Ok(Metric::Mrr),
            _ => Err(Error::invalid("metric", format!("unknown metric {s:?}; use nDCG@k, MAP, R@k, P@k or MRR"))),
        }
    }
}

/// The metrics to compute, in display order.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct MetricSet(pub Vec<Metric>);

impl MetricSet {
    /// The BEIR/Anserini set: nDCG@10, R@100, MAP, MRR.
    pub fn standard() -> Self {
        MetricSet(vec![Metric::Ndcg(10), Metric::Recall(100), Metric::Ap, Metric::Mrr])
    }

    /// The set shown for one question at depth k: nDCG@k, AP, R@k, P@k, MRR.
    pub fn at(k: usize) -> Self {
        MetricSet(vec![Metric::Ndcg(k), Metric::Ap, Metric::Recall(k), Metric::Precision(k), Metric::Mrr])
    }
}

/// Per-query and mean values for one run.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct EvalSummary {
    /// Query id → metric → value.
    pub per_query: BTreeMap<String, BTreeMap<Metric, f64>>,
    /// Metric → mean over every judged query.
    pub mean: BTreeMap<Metric, f64>,
    /// Number of queries averaged.
    pub num_queries: usize,
}

/// Order a ranked list the way trec_eval does before scoring.
pub fn trec_order(ranked: &[(String, f64)]) -> Vec<(String, f64)> {
    let mut v = ranked.to_vec();
    v.sort_by(|a, b| b.1.total_cmp(&a.1).then_with(|| b.0.cmp(&a.0)));
    v
}

/// Metrics of one ranked list against one query's judgements.
pub fn evaluate_query(
    ranked: &[(String, f64)],
    judgements: Option<&BTreeMap<String, i32>>,
    metrics: &MetricSet,
) -> BTreeMap<Metric, f64> {
    let empty = BTreeMap::new();
    let judged = judgements.unwrap_or(&empty);
    let ordered = trec_order(ranked);
    let grades: Vec<i32> = ordered.iter().map(|(d, _)| judged.get(d).copied().unwrap_or(0)).collect();
    let num_rel = judged.values().filter(|&&g| g >= 1).count();
    let mut ideal: Vec<i32> = judged.values().copied().filter(|&g| g > 0).collect();
    ideal.sort_unstable_by(|a, b| b.cmp(a));
    metrics
        .0
        .iter()
        .map(|&m| {
            let v = match m {
                Metric::Ndcg(k) => {
                    let dcg = |g: &[i32]| -> f64 {
                        g.iter().take(k).enumerate().map(|(i, &g)| f64::from(g.max(0)) / ((i + 2) as f64).log2()).sum()
                    };
                    let idcg = dcg(&ideal);
                    if idcg > 0.0 { dcg(&grades) / idcg } else { 0.0 }
                }
                Metric::Ap => {
                    if num_rel == 0 {
                        0.0
                    } else {
                        let mut found = 0usize;
                        let mut sum = 0.0;
                        for (i, &g) in grades.iter().enumerate() {
                            if g >= 1 {
                                found += 1;
                                sum += found as f64 / (i + 1) as f64;
                            }
                        }
                        sum / num_rel as f64
                    }
                }
                Metric::Recall(k) => {
                    let hits = grades.iter().take(k).filter(|&&g| g >= 1).count();
                    if num_rel == 0 { 0.0 } else { hits as f64 / num_rel as f64 }
                }
                Metric::Precision(k) => grades.iter().take(k).filter(|&&g| g >= 1).count() as f64 / k as f64,
                Metric::Mrr => grades.iter().position(|&g| g >= 1).map(|i| 1.0 / (i + 1) as f64).unwrap_or(0.0),
            };
            // `+ 0.0` turns the -0.0 that an empty f64 sum yields into 0.0.
            (m, v + 0.0)
        })
        .collect()
}

/// Evaluate a run over every query that has judgements; a query missing from the run counts 0.
pub fn evaluate(run: &Run, qrels: &Qrels, metrics: &MetricSet) -> EvalSummary {
    let mut summary = EvalSummary::default();
    for (qid, judged) in &qrels.judgements {
        let ranked = run.results.get(qid).map(Vec::as_slice).unwrap_or(&[]);
        summary.per_query.insert(qid.clone(), evaluate_query(ranked, Some(judged), metrics));
    }
    summary.num_queries = summary.per_query.len();
    for &m in &metrics.0 {
        let sum: f64 = summary.per_query.values().filter_map(|v| v.get(&m)).sum();
        let mean = if summary.num_queries == 0 { 0.0 } else { sum / summary.num_queries as f64 };
        summary.mean.insert(m, mean);
    }
    summary
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::path::Path;

    /// Every spelling the CLI, the reports and trec_eval's names use (cargo-mutants found the MRR
    /// names untested).
    #[test]
    fn every_metric_spelling_parses_and_others_are_refused() {
        for (s, m) in [
            ("MRR", Metric::Mrr),
            ("recip_rank", Metric::Mrr),
            ("rr", Metric::Mrr),
            ("MAP", Metric::Ap),
            ("ap", Metric::Ap),
            ("nDCG@10", Metric::Ndcg(10)),
            ("ndcg_cut_10", Metric::Ndcg(10)),
            ("ndcg_cut.5", Metric::Ndcg(5)),
            (" R@100 ", Metric::Recall(100)),
            ("recall_1000", Metric::Recall(1000)),
            ("P@5", Metric::Precision(5)),
            ("p_20", Metric::Precision(20)),
        ] {
            assert_eq!(s.parse::<Metric>().ok(), Some(m), "{s:?}");
        }
        for bad in ["mrr@10", "ndcg@0", "ndcg@", "recall", "f1", ""] {
            assert!(bad.parse::<Metric>().is_err(), "{bad:?}");
        }
    }

    #[test]
    fn nothing_relevant_or_nothing_ranked_scores_a_plain_zero() {
        let set = MetricSet::at(10);
        // Judged, but only non-relevant: the ideal DCG is 0, so is nDCG (not 0/0).
        let none_relevant: BTreeMap<String, i32> = [("a".to_string(), 0), ("b".to_string(), 0)].into();
        let v = evaluate_query(&ranked(&[("a", 2.0), ("b", 1.0)]), Some(&none_relevant), &set);
        // An empty ranking against a relevant document: every metric +0.0, never −0.0 (which
        // an empty f64 sum gives and a report would print as "-0.0000").
        let relevant: BTreeMap<String, i32> = [("a".to_string(), 1)].into();
        let empty = evaluate_query(&[], Some(&relevant), &set);
        for values in [v, empty] {
            assert_eq!(values.len(), 5);
            for (m, x) in values {
                assert_eq!(x.to_bits(), 0.0f64.to_bits(), "{m}: {x}");
            }
        }
    }

    #[test]
    fn every_metric_is_named_as_people_and_trec_eval_name_it() {
        for (m, shown, trec) in [
            (Metric::Ndcg(10), "nDCG@10", "ndcg_cut_10"),
            (Metric::Ap, "MAP", "map"),
            (Metric::Recall(100), "R@100", "recall_100"),
            (Metric::Precision(5), "P@5", "P_5"),
            (Metric::Mrr, "MRR", "recip_rank"),
        ] {
            assert_eq!(m.to_string(), shown);
            assert_eq!(String::from(m), shown);
            assert_eq!(m.trec_name(), trec);
            // A JSON key is the shown name, and reads back.
            let json = serde_json::to_string(&m).expect("a metric serialises");
            assert_eq!(json, format!("\"{shown}\""));
            assert_eq!(serde_json::from_str::<Metric>(&json).ok(), Some(m));
            assert_eq!(trec.parse::<Metric>().ok(), Some(m));
        }
    }

    macro_rules! assert_close {
        ($a:expr, $b:expr) => {{
            let (a, b): (f64, f64) = ($a, $b);
            assert!((a - b).abs() < 1e-9, "{a} != {b}");
        }};
    }

    fn ranked(items: &[(&str, f64)]) -> Vec<(String, f64)> {
        items.iter().map(|(d, s)| (d.to_string(), *s)).collect()
    }

    #[test]
    fn hand_computed_single_query() {
        // Judged: a=3, b=0, c=1, e=2 (3 relevant). Ranking: a, b, c, d (d unjudged).
        let (q, _) = Qrels::parse("1 0 a 3\n1 0 b 0\n1 0 c 1\n1 0 e 2\n", Path::new("q"));
        let run = ranked(&[("a", 4.0), ("b", 3.0), ("c", 2.0), ("d", 1.0)]);
        let m = evaluate_query(&run, q.for_query("1"), &MetricSet::at(3));
        // DCG@3 = 3/log2(2) + 0 + 1/log2(4) = 3.5; IDCG@3 = 3 + 2/log2(3) + 1/2 = 4.761859507...
        assert_close!(m[&Metric::Ndcg(3)], 3.5 / (3.0 + 2.0 / 3f64.log2() + 0.5));
        // AP = (1/1 + 2/3) / 3 relevant.
        assert_close!(m[&Metric::Ap], (1.0 + 2.0 / 3.0) / 3.0);
        assert_close!(m[&Metric::Recall(3)], 2.0 / 3.0);
        assert_close!(m[&Metric::Precision(3)], 2.0 / 3.0);
        assert_close!(m[&Metric::Mrr], 1.0);
    }

    #[test]
    fn ties_are_broken_by_docno_descending_like_trec_eval() {
        let (q, _) = Qrels::parse("1 0 a 1\n", Path::new("q"));
        // a and z tie; trec_eval puts z (greater docno) first, so the relevant a sits at rank 2.
        let run = ranked(&[("a", 1.0), ("z", 1.0)]);
        let m = evaluate_query(&run, q.for_query("1"), &MetricSet(vec![Metric::Mrr, Metric::Ndcg(10)]));
        assert_close!(m[&Metric::Mrr], 0.5);
        assert_close!(m[&Metric::Ndcg(10)], 1.0 / 3f64.log2());
    }

    #[test]
    fn missing_queries_count_zero_in_the_mean() {
        let (q, _) = Qrels::parse("1 0 a 1\n2 0 b 1\n", Path::new("q"));
        let mut run = Run::new("t");
        run.insert("1", ranked(&[("a", 1.0)]));
        let s = evaluate(&run, &q, &MetricSet(vec![Metric::Ndcg(10)]));
        assert_eq!(s.num_queries, 2);
        assert_close!(s.mean[&Metric::Ndcg(10)], 0.5);
    }

    #[test]
    fn metric_names_parse() {
        assert_eq!("nDCG@10".parse::<Metric>().ok(), Some(Metric::Ndcg(10)));
        assert_eq!("recall_100".parse::<Metric>().ok(), Some(Metric::Recall(100)));
        assert_eq!("P@5".parse::<Metric>().ok(), Some(Metric::Precision(5)));
        assert_eq!("map".parse::<Metric>().ok(), Some(Metric::Ap));
        assert!("ndcg@0".parse::<Metric>().is_err());
        assert_eq!(Metric::Ndcg(10).trec_name(), "ndcg_cut_10");
    }
}
