//! Evaluating systems over a question set: RankLens's methods run over the corpus's questions, and
//! other systems' runs read from files, side by side. Metrics per system, per-query wins and
//! losses against a baseline with paired significance tests corrected for testing many systems
//! at once, and the per-query triage of where the systems disagree.
//!
//! Only runs and judgements are needed ([`Study::of_systems`]): evaluating files needs no corpus.

use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;

use crate::Result;
use crate::config::Settings;
use crate::corpus::Query;
use crate::eval::{Correction, EvalSummary, Metric, MetricSet, PairedTest, Qrels, Run, RunFile, evaluate, paired_test};
use crate::progress::Progress;
use crate::retrieve::{MethodKind, Retriever};
use crate::workbench::Workbench;

/// A system to evaluate: its name, its family, and its ranked lists for the questions.
#[derive(Debug, Clone, PartialEq)]
pub struct System {
    /// Label (`BM25 (lucene, k1=0.9, b=0.4)`, or a run's name).
    pub label: String,
    /// Family (`Run` for a run file).
    pub kind: MethodKind,
    /// Its rankings by query id.
    pub run: Run,
    /// What the method did over the questions beyond its rankings
    /// ([`crate::retrieve::Retriever::over_questions`]).
    pub note: Option<String>,
}

impl System {
    /// A run file as a system.
    pub fn from_file(file: &RunFile) -> System {
        System { label: file.name.clone(), kind: MethodKind::Run, run: file.run.clone(), note: None }
    }

    /// A method run over the corpus's questions, `depth` results each.
    pub fn run(
        workbench: &Workbench,
        retriever: &dyn Retriever,
        settings: &Settings,
        depth: usize,
        progress: &dyn Progress,
    ) -> Result<System> {
        let run = workbench.run_queries(retriever, settings, depth, progress)?;
        Ok(System { label: retriever.label(), kind: retriever.kind(), run, note: retriever.over_questions() })
    }
}

/// One system's evaluation.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct MethodResult {
    /// Label with variant and parameters, or the run's name.
    pub label: String,
    /// Family.
    pub kind: MethodKind,
    /// Metrics per query and mean.
    pub summary: EvalSummary,
    /// Its paired test against the baseline on the primary metric (`None` for the baseline).
    pub versus_baseline: Option<PairedTest>,
    /// The run, for TREC export.
    #[serde(skip)]
    pub run: Run,
    /// What the method did over the questions beyond its rankings (a language model's windows).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub note: Option<String>,
}

/// A system the study was asked for that could not run here (a model missing, no corpus for a
/// method, the passages not encoded), with what to do about it: it stays a row of the study.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Missing {
    /// The system's name (a family's label, or another system's name).
    pub label: String,
    /// Its family.
    pub kind: MethodKind,
    /// Why it could not run, and how to fix it.
    pub message: String,
}

/// A question where two systems differ most on the primary metric.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Disagreement {
    /// Query id.
    pub qid: String,
    /// The question (empty when only runs and judgements were given).
    pub question: String,
    /// Score of the first system.
    pub a: f64,
    /// Score of the second system.
    pub b: f64,
}

/// Every system over a question set.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Study {
    /// Metrics computed.
    pub metrics: MetricSet,
    /// The metric for tests, disagreements and triage.
    pub primary: Metric,
    /// One entry per system.
    pub methods: Vec<MethodResult>,
    /// Index of the baseline in `methods`.
    pub baseline: usize,
    /// How the p-values of the tests against the baseline are corrected.
    #[serde(default)]
    pub correction: Correction,
    /// The two systems compared in `disagreements` (indexes).
    pub pair: (usize, usize),
    /// Largest |a − b| first.
    pub disagreements: Vec<Disagreement>,
    /// Judged questions evaluated.
    pub num_queries: usize,
    /// The question of each judged query id, where known.
    #[serde(default)]
    pub questions: BTreeMap<String, String>,
    /// Systems asked for that could not run, each with why.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub missing: Vec<Missing>,
}

/// How to order the per-query triage.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum TriageOrder {
    /// Largest spread between the best and worst system first.
    Disagreement,
    /// Where this system (an index) gains most over the baseline first.
    Gain(usize),
    /// Where this system loses most against the baseline first.
    Loss(usize),
}

/// One question of the triage: the primary metric of every system.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct TriageRow {
    /// Query id.
    pub qid: String,
    /// The question, where known.
    pub question: String,
    /// The metric of each system, in the study's order.
    pub values: Vec<f64>,
    /// Best minus worst.
    pub spread: f64,
}

/// Queries × systems on the primary metric, ordered for triage.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Triage {
    /// The metric.
    pub metric: Metric,
    /// The systems' labels (columns).
    pub systems: Vec<String>,
    /// Index of the baseline among them.
    pub baseline: usize,
    /// One row per judged question.
    pub rows: Vec<TriageRow>,
}

impl Study {
    /// Whether `judge`'s labels order this study's methods as `people`'s do
    /// ([`crate::eval::validity`], seeded with [`crate::eval::VALIDITY_SEED`]).
    pub fn validity(&self, people: &Qrels, judge: &Qrels) -> crate::eval::Validity {
        let systems: Vec<(String, &Run)> = self.methods.iter().map(|m| (m.label.clone(), &m.run)).collect();
        crate::eval::validity(&systems, people, judge, crate::eval::VALIDITY_SEED)
    }

    /// Evaluate systems' runs against judgements: the standard metrics of each, each system's
    /// paired test against the baseline on the primary metric with the correction applied across
    /// the tests, and where the baseline and the best other system disagree most. `questions`
    /// names the query ids it can (none are needed).
    pub fn of_systems(
        systems: Vec<System>,
        qrels: &Qrels,
        questions: &[Query],
        baseline: usize,
        correction: Correction,
    ) -> Study {
        let metrics = MetricSet::standard();
        let primary = metrics.0[0];
        let mut methods: Vec<MethodResult> = systems
            .into_iter()
            .map(|s| {
                let summary = evaluate(&s.run, qrels, &metrics);
                MethodResult { label: s.label, kind: s.kind, summary, versus_baseline: None, run: s.run, note: s.note }
            })
            .collect();
        let baseline = baseline.min(methods.len().saturating_sub(1));
        let per_query = |m: &MethodResult| -> Vec<f64> {
            m.summary.per_query.values().map(|v| v.get(&primary).copied().unwrap_or(0.0)).collect()
        };
        if let Some(base) = methods.get(baseline).map(per_query) {
            for (i, m) in methods.iter_mut().enumerate() {
                if i != baseline {
                    m.versus_baseline = Some(paired_test(&per_query(m), &base, 10_000, 0x5eed));
                }
            }
        }
        let tested: Vec<usize> = (0..methods.len()).filter(|&i| i != baseline).collect();
        let raw: Vec<f64> =
            tested.iter().filter_map(|&i| methods[i].versus_baseline.as_ref().map(|t| t.p_randomisation)).collect();
        for (&i, p) in tested.iter().zip(correction.adjust(&raw)) {
            if let Some(t) = methods[i].versus_baseline.as_mut() {
                t.p_adjusted = p;
            }
        }
        let mean = |i: usize| methods[i].summary.mean.get(&primary).copied().unwrap_or(0.0);
        let best_other = tested.iter().copied().max_by(|&a, &b| mean(a).total_cmp(&mean(b))).unwrap_or(baseline);
        let judged: BTreeMap<String, String> = questions
            .iter()
            .filter(|q| qrels.judgements.contains_key(&q.id))
            .map(|q| (q.id.clone(), q.text.clone()))
            .collect();
        let mut study = Study {
            metrics,
            primary,
            num_queries: methods.first().map(|m| m.summary.num_queries).unwrap_or(0),
            methods,
            baseline,
            correction,
            pair: (baseline, best_other),
            disagreements: Vec::new(),
            questions: judged,
            missing: Vec::new(),
        };
        study.disagreements = study.disagree(baseline, best_other, 10);
        study
    }

    /// The primary metric of system `i` on query `qid`.
    fn value(&self, i: usize, qid: &str) -> f64 {
        self.methods
            .get(i)
            .and_then(|m| m.summary.per_query.get(qid))
            .and_then(|v| v.get(&self.primary))
            .copied()
            .unwrap_or(0.0)
    }

    /// The `n` questions where systems `a` and `b` differ most on the primary metric.
    pub fn disagree(&self, a: usize, b: usize, n: usize) -> Vec<Disagreement> {
        let Some(ma) = self.methods.get(a) else { return Vec::new() };
        let mut out: Vec<Disagreement> = ma
            .summary
            .per_query
            .keys()
            .map(|qid| Disagreement {
                qid: qid.clone(),
                question: self.questions.get(qid).cloned().unwrap_or_default(),
                a: self.value(a, qid),
                b: self.value(b, qid),
            })
            .collect();
        out.sort_by(|x, y| (y.a - y.b).abs().total_cmp(&(x.a - x.b).abs()).then_with(|| x.qid.cmp(&y.qid)));
        out.truncate(n);
        out
    }

    /// Every judged question × every system on the primary metric, in the order asked for (ties
    /// by query id).
    pub fn triage(&self, order: TriageOrder) -> Triage {
        let qids: Vec<&String> = self.methods.first().map(|m| m.summary.per_query.keys().collect()).unwrap_or_default();
        let mut rows: Vec<TriageRow> = qids
            .into_iter()
            .map(|qid| {
                let values: Vec<f64> = (0..self.methods.len()).map(|i| self.value(i, qid)).collect();
                let (lo, hi) =
                    values.iter().fold((f64::INFINITY, f64::NEG_INFINITY), |(l, h), &v| (l.min(v), h.max(v)));
                TriageRow {
                    qid: qid.clone(),
                    question: self.questions.get(qid).cloned().unwrap_or_default(),
                    spread: if values.is_empty() { 0.0 } else { hi - lo },
                    values,
                }
            })
            .collect();
        let base = self.baseline;
        let delta = |r: &TriageRow, i: usize| {
            r.values.get(i).copied().unwrap_or(0.0) - r.values.get(base).copied().unwrap_or(0.0)
        };
        rows.sort_by(|a, b| {
            let key = match order {
                TriageOrder::Disagreement => b.spread.total_cmp(&a.spread),
                TriageOrder::Gain(i) => delta(b, i).total_cmp(&delta(a, i)),
                TriageOrder::Loss(i) => delta(a, i).total_cmp(&delta(b, i)),
            };
            key.then_with(|| a.qid.cmp(&b.qid))
        });
        Triage {
            metric: self.primary,
            systems: self.methods.iter().map(|m| m.label.clone()).collect(),
            baseline: base,
            rows,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn system(label: &str, lists: &[(&str, &[&str])]) -> System {
        let mut run = Run::new(label);
        for (q, docs) in lists {
            run.insert(*q, docs.iter().enumerate().map(|(i, d)| (d.to_string(), 10.0 - i as f64)).collect());
        }
        System { label: label.into(), kind: MethodKind::Run, run, note: None }
    }

    #[test]
    fn runs_alone_are_evaluated_tested_corrected_and_triaged() {
        let mut qrels = Qrels::default();
        for (q, d) in [("1", "a"), ("2", "b"), ("3", "c")] {
            qrels.insert(q, d, 1);
        }
        // base finds the relevant document at rank 1 for q1 only; good at rank 1 everywhere;
        // half at rank 2 for q2, rank 1 for q1 and q3.
        let base = system("base", &[("1", &["a"]), ("2", &["x", "y"]), ("3", &["x"])]);
        let good = system("good", &[("1", &["a"]), ("2", &["b"]), ("3", &["c"])]);
        let half = system("half", &[("1", &["a"]), ("2", &["x", "b"]), ("3", &["c"])]);
        let questions = [Query { id: "2".into(), text: "second?".into() }];
        let s = Study::of_systems(vec![base, good, half], &qrels, &questions, 0, Correction::Bonferroni);
        let mrr = |i: usize| s.methods[i].summary.mean[&Metric::Mrr];
        assert_eq!((mrr(0), mrr(1), mrr(2)), (1.0 / 3.0, 1.0, (1.0 + 0.5 + 1.0) / 3.0));
        let good_test = s.methods[1].versus_baseline.as_ref().unwrap();
        assert_eq!((good_test.wins, good_test.losses, good_test.ties), (2, 0, 1));
        let half_test = s.methods[2].versus_baseline.as_ref().unwrap();
        assert_eq!(good_test.p_adjusted, (good_test.p_randomisation * 2.0).min(1.0), "two tests against the baseline");
        assert_eq!(half_test.p_adjusted, (half_test.p_randomisation * 2.0).min(1.0));
        assert_eq!(s.pair, (0, 1));

        // nDCG@10 per query: base (1, 0, 0), good (1, 1, 1), half (1, 1/log2(3), 1).
        let t = s.triage(TriageOrder::Disagreement);
        assert_eq!(t.systems, ["base", "good", "half"]);
        assert_eq!(t.rows.iter().map(|r| r.qid.as_str()).collect::<Vec<_>>(), ["2", "3", "1"]);
        assert_eq!((t.rows[0].question.as_str(), t.rows[0].spread), ("second?", 1.0));
        let loss = s.triage(TriageOrder::Loss(2));
        assert_eq!(loss.rows[0].qid, "1", "half never loses; the smallest gain (0, query 1) comes first");
        let gain = s.triage(TriageOrder::Gain(2));
        assert_eq!(gain.rows[0].qid, "3", "half gains 1 on query 3 and 1/log2(3) on query 2");
        assert!((gain.rows[1].values[2] - 1.0 / 3f64.log2()).abs() < 1e-12);
    }
}
