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
