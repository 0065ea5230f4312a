//! Evaluating every method over a question set: metrics per method, per-query wins and losses
//! against a baseline with a paired significance test, and the questions where two methods
//! disagree most.

use std::sync::Arc;

use serde::{Deserialize, Serialize};

use crate::Result;
use crate::config::Settings;
use crate::engine::Engine;
use crate::eval::{EvalSummary, Metric, MetricSet, PairedTest, Qrels, Run, evaluate, paired_test};
use crate::progress::Progress;
use crate::retrieve::{MethodKind, Retriever};

/// One method's evaluation.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct MethodResult {
    /// Label with variant and parameters.
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
}

/// A question where two methods differ most on the primary metric.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Disagreement {
    /// Query id.
    pub qid: String,
    /// The question.
    pub question: String,
    /// Score of the first method.
    pub a: f64,
    /// Score of the second method.
    pub b: f64,
}

/// Every method over a question set.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Study {
    /// Metrics computed.
    pub metrics: MetricSet,
    /// The metric for tests and disagreements.
    pub primary: Metric,
    /// One entry per method.
    pub methods: Vec<MethodResult>,
    /// Index of the baseline in `methods`.
    pub baseline: usize,
    /// The two methods compared in `disagreements` (indexes).
    pub pair: (usize, usize),
    /// Largest |a − b| first.
    pub disagreements: Vec<Disagreement>,
    /// Judged questions evaluated.
    pub num_queries: usize,
}

impl Study {
    /// Run every retriever over the corpus's questions (`depth` results each), evaluate against
    /// `qrels`, test each method against the baseline, and find where the baseline and the best
    /// other method disagree most.
    pub fn run(
        engine: &Engine,
        retrievers: &[Arc<dyn Retriever>],
        qrels: &Qrels,
        settings: &Settings,
        depth: usize,
        baseline: usize,
        progress: &dyn Progress,
    ) -> Result<Study> {
        let metrics = MetricSet::standard();
        let primary = metrics.0[0];
        let mut methods = Vec::new();
        for r in retrievers {
            let run = engine.run_queries(r.as_ref(), settings, depth, progress)?;
            let summary = evaluate(&run, qrels, &metrics);
            methods.push(MethodResult { label: r.label(), kind: r.kind(), summary, versus_baseline: None, run });
        }
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
        let best_other = (0..methods.len())
            .filter(|&i| i != baseline)
            .max_by(|&a, &b| {
                let m = |i: usize| methods[i].summary.mean.get(&primary).copied().unwrap_or(0.0);
                m(a).total_cmp(&m(b))
            })
            .unwrap_or(baseline);
        let mut study = Study {
            metrics,
            primary,
            num_queries: methods.first().map(|m| m.summary.num_queries).unwrap_or(0),
            methods,
            baseline,
            pair: (baseline, best_other),
            disagreements: Vec::new(),
        };
        study.disagreements = study.disagree(baseline, best_other, engine, 10);
        Ok(study)
    }

    /// The `n` questions where methods `a` and `b` differ most on the primary metric.
    pub fn disagree(&self, a: usize, b: usize, engine: &Engine, n: usize) -> Vec<Disagreement> {
        let (Some(ma), Some(mb)) = (self.methods.get(a), self.methods.get(b)) else { return Vec::new() };
        let mut out: Vec<Disagreement> = ma
            .summary
            .per_query
            .iter()
            .map(|(qid, v)| Disagreement {
                qid: qid.clone(),
                question: engine.corpus().query(qid).map(|q| q.text.clone()).unwrap_or_default(),
                a: v.get(&self.primary).copied().unwrap_or(0.0),
                b: mb.summary.per_query.get(qid).and_then(|x| x.get(&self.primary)).copied().unwrap_or(0.0),
            })
            .collect();
        out.sort_by(|x, y| (y.a - y.b).abs().total_cmp(&(x.a - x.b).abs()).then_with(|| x.qid.cmp(&y.qid)));
        out.truncate(n);
        out
    }
}
