//! What a query adapter is worth: the dense column without and with it over judged questions it
//! was not trained on, by nDCG@10 — what the app's "Train an adapter" and `ranklens adapter train`
//! both report, measured the one way (`Plan::study`, the evaluation's own path).

use std::path::Path;

use super::plan::{Baseline, Plan};
use crate::Result;
use crate::config::Settings;
use crate::corpus::{Qrels, Query};
use crate::eval::{Correction, Metric};
use crate::progress::Progress;
use crate::retrieve::MethodKind;
use crate::workbench::Workbench;

/// Mean nDCG@10 of the dense column without and with an adapter.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct AdapterGain {
    /// The dense column as it is.
    pub dense: f64,
    /// The dense column with the adapter on its question vectors.
    pub adapted: f64,
}

/// The dense column without and with the adapter saved at `adapter`, over `questions` as
/// `qrels` judges them (100 results a question, as every evaluation here).
pub fn adapter_gain(
    workbench: &Workbench,
    settings: &Settings,
    adapter: &Path,
    qrels: &Qrels,
    questions: &[Query],
    progress: &dyn Progress,
) -> Result<AdapterGain> {
    let mut with = settings.clone();
    with.adapter = Some(adapter.to_path_buf());
    let plan = Plan::of_kinds(&with, &[MethodKind::Dense, MethodKind::DenseAdapter]);
    let study = plan.study(Some(workbench), qrels, questions, 100, &Baseline::Bm25, Correction::None, progress)?;
    let ndcg = |k: MethodKind| {
        study
            .methods
            .iter()
            .find(|m| m.kind == k)
            .map_or(0.0, |m| m.summary.mean.get(&Metric::Ndcg(10)).copied().unwrap_or(0.0))
    };
    Ok(AdapterGain { dense: ndcg(MethodKind::Dense), adapted: ndcg(MethodKind::DenseAdapter) })
}

/// The judged questions of a corpus split for an adapter trained on a user's own judgements: one
/// in five (the 5th, 10th, … in the corpus's order) held out to measure it, the rest to train on.
#[derive(Debug, Clone, PartialEq)]
pub struct HeldOutSplit {
    /// The questions trained on.
    pub train: Vec<Query>,
    /// The questions held out.
    pub held: Vec<Query>,
    /// The judgements of the held-out questions only (what [`adapter_gain`] measures with).
    pub held_qrels: Qrels,
}

impl HeldOutSplit {
    /// Split `questions` that `qrels` judged (the others are left out of both halves).
    pub fn one_in_five(questions: &[Query], qrels: &Qrels) -> HeldOutSplit {
        let judged = questions.iter().filter(|q| qrels.judged(&q.id));
        let (mut train, mut held) = (Vec::new(), Vec::new());
        for (i, q) in judged.enumerate() {
            if i % 5 == 4 { held.push(q.clone()) } else { train.push(q.clone()) }
        }
        let mut held_qrels = Qrels::default();
        for q in &held {
            for (d, g) in qrels.for_query(&q.id).into_iter().flatten() {
                held_qrels.insert(&q.id, d, *g);
            }
        }
        HeldOutSplit { train, held, held_qrels }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn one_judged_question_in_five_is_held_out_with_its_judgements_only() {
        let questions: Vec<Query> =
            (1..=12).map(|i| Query { id: format!("q{i}"), text: format!("question {i}") }).collect();
        let mut qrels = Qrels::default();
        // q3 has no judgements: the judged are q1, q2, q4, …, q12 (11 of them), so the 5th and
        // 10th judged, q6 and q11, are held out.
        for i in (1..=12).filter(|&i| i != 3) {
            qrels.insert(&format!("q{i}"), &format!("d{i}"), 1);
            qrels.insert(&format!("q{i}"), "d0", 0);
        }
        let split = HeldOutSplit::one_in_five(&questions, &qrels);
        let ids = |qs: &[Query]| qs.iter().map(|q| q.id.clone()).collect::<Vec<_>>();
        assert_eq!(ids(&split.held), ["q6", "q11"]);
        assert_eq!(ids(&split.train), ["q1", "q2", "q4", "q5", "q7", "q8", "q9", "q10", "q12"]);
        assert!(split.held_qrels.judged("q6") && split.held_qrels.judged("q11"));
        assert!(!split.held_qrels.judged("q1"));
        assert_eq!(split.held_qrels.for_query("q6").map(|m| m.len()), Some(2));
    }
}
