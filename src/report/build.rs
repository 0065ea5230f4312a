//! Building reports from the engine's results.

use std::collections::BTreeMap;

use super::{ComparisonReport, ExplainedHit, MapSection, PassageInfo, Stamp, StudyReport};
use crate::compare::{Outcome, PlanRun, Study};
use crate::config::Settings;
use crate::corpus::DocId;
use crate::eval::{MetricSet, evaluate_query};
use crate::workbench::Workbench;

/// How many of each method's top passages are explained in a report.
pub const EXPLAINED_PER_METHOD: usize = 3;

fn stamp(workbench: &Workbench, settings: &Settings) -> Stamp {
    let corpus = workbench.corpus();
    Stamp {
        ranklens_version: env!("CARGO_PKG_VERSION").to_string(),
        created: super::now_utc(),
        corpus_name: corpus.name.clone(),
        corpus_fingerprint: corpus.fingerprint(),
        corpus_source: corpus.source.as_ref().map(|p| p.display().to_string()),
        corpus_size: corpus.len(),
        analyzer: settings.analyzer.to_string(),
        models: workbench.neural().fingerprints(),
        settings: settings.clone(),
    }
}

fn passage(workbench: &Workbench, doc: DocId) -> PassageInfo {
    let d = workbench.corpus().doc(doc);
    let snippet: String = d.map(|d| d.text.chars().take(300).collect()).unwrap_or_default();
    PassageInfo {
        id: workbench.corpus().external_id(doc).to_string(),
        title: d.map(|d| d.title.clone()).unwrap_or_default(),
        snippet,
    }
}

/// A one-question report: the comparison, explanations of each method's top passages (read from
/// the very states that ranked them), the map, and metrics when `judged` holds grades for this
/// question.
pub fn comparison_report(
    workbench: &Workbench,
    run: &PlanRun,
    settings: &Settings,
    judged: Option<&BTreeMap<String, i32>>,
) -> ComparisonReport {
    let (comparison, query, plan_run) = (&run.comparison, &run.query, run);
    let mut passages = BTreeMap::new();
    let mut explanations = Vec::new();
    let mut metrics = BTreeMap::new();
    for run in &comparison.runs {
        let Outcome::Ranked(r) = &run.outcome else { continue };
        for h in &r.hits {
            passages.entry(h.doc.0.to_string()).or_insert_with(|| passage(workbench, h.doc));
        }
        for (i, h) in r.hits.iter().take(EXPLAINED_PER_METHOD).enumerate() {
            if let Some(Ok(e)) = plan_run.explain_in(&run.label, h.doc) {
                explanations.push(ExplainedHit {
                    method: run.label.clone(),
                    kind: run.kind,
                    passage: workbench.corpus().external_id(h.doc).to_string(),
                    rank: i + 1,
                    explanation: e,
                });
            }
        }
        if let Some(j) = judged.filter(|j| !j.is_empty()) {
            let ranked = r.ids_and_scores(workbench.corpus());
            metrics.insert(run.label.clone(), evaluate_query(&ranked, Some(j), &MetricSet::at(comparison.k)));
        }
    }
    let n = workbench.neural();
    let map = match (&n.map, &n.dense_index) {
        (Some(map), Some(index)) => {
            let placed = n
                .dense
                .as_ref()
                .and_then(|d| query.dense_vector(d.encoder.as_ref()).ok())
                .map(|v| map.place(index, &v, 10));
            Some(MapSection {
                points: map
                    .points
                    .iter()
                    .enumerate()
                    .map(|(i, p)| (workbench.corpus().external_id(DocId(i as u32)).to_string(), p[0], p[1]))
                    .collect(),
                variance_share: map.variance_share,
                query: placed.as_ref().map(|p| p.point),
                neighbours: placed
                    .map(|p| {
                        p.neighbours.iter().map(|(d, c)| (workbench.corpus().external_id(*d).to_string(), *c)).collect()
                    })
                    .unwrap_or_default(),
            })
        }
        _ => None,
    };
    ComparisonReport {
        stamp: stamp(workbench, settings),
        question: comparison.question.clone(),
        comparison: comparison.clone(),
        passages,
        explanations,
        map,
        metrics: if metrics.is_empty() { None } else { Some(metrics) },
        answers: None,
        model_sql: None,
        model_graph: n.model_graph.as_ref().map(|g| super::GraphReport::of(g, workbench.structured().graph.as_ref())),
        reading: None,
        answer_curve: None,
    }
}

/// A question-set report: the study, and each method's top 10 per question.
pub fn study_report(workbench: &Workbench, study: &Study, settings: &Settings) -> StudyReport {
    let top = study
        .methods
        .iter()
        .map(|m| {
            let per_q = m.run.results.iter().map(|(q, r)| (q.clone(), r.iter().take(10).cloned().collect())).collect();
            (m.label.clone(), per_q)
        })
        .collect();
    let questions = workbench.corpus().queries.iter().map(|q| (q.id.clone(), q.text.clone())).collect();
    StudyReport {
        stamp: stamp(workbench, settings),
        study: study.clone(),
        top,
        questions,
        validity: None,
        judge_card: None,
        answers: None,
    }
}
