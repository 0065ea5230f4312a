//! Measuring a ranking: precision, recall, average precision and nDCG@10 of BM25's top 10 for a
//! judged question, each predicted before the evaluation module's value is shown.

use super::checkpoint::Checkpoint;
use super::drawer::Drawer;
use crate::lcg::SplitMix64;
use std::collections::BTreeMap;

use super::metric_exercises::{self, JudgedRanking};
use super::{Lesson, LessonKit, Open, f4};
use crate::Result;
use crate::analysis::AnalyzerConfig;
use crate::eval::{Metric, MetricSet, evaluate_query};
use crate::formula::Bm25Variant;
use crate::progress::NoProgress;
use crate::retrieve::QueryContext;
use crate::workbench::{SparseSpec, Workbench};

/// A judged question of an engine's corpus: the one in the bar when it is judged, else the first
/// judged one.
fn judged_question(workbench: &Workbench, wanted: &str) -> Option<(String, String, BTreeMap<String, i32>)> {
    let corpus = workbench.corpus();
    let qrels = corpus.qrels.as_ref()?;
    let judged = |q: &&crate::corpus::Query| qrels.judgements.get(&q.id).is_some_and(|j| j.values().any(|&g| g > 0));
    let q = corpus
        .queries
        .iter()
        .filter(judged)
        .find(|q| q.text.trim() == wanted.trim())
        .or_else(|| corpus.queries.iter().find(judged))?;
    Some((q.id.clone(), q.text.clone(), qrels.judgements.get(&q.id).cloned().unwrap_or_default()))
}

pub fn build(kit: &LessonKit, on: &Open) -> Result<Lesson> {
    let mut l = Lesson::untitled();
    let (engine, (qid, question, grades)) = match judged_question(&on.workbench, &on.question) {
        Some(j) => (on.workbench.clone(), j),
        None => match judged_question(&kit.sample, "Why does my phone say my login is stale?") {
            Some(j) => {
                l.warn("The open corpus has no judged question: this page uses the Acme Sync sample's.");
                (kit.sample.clone(), j)
            }
            None => {
                l.warn("No judged question to measure.");
                return Ok(l);
            }
        },
    };
    let bm25 = engine.sparse(
        SparseSpec::bm25(Bm25Variant::Lucene, Bm25Variant::Lucene.default_params()),
        AnalyzerConfig::default(),
        &NoProgress,
    )?;
    let hits = bm25.search(&QueryContext::new(&question), 10)?.hits;
    let corpus = engine.corpus();
    let ranking: Vec<String> = hits.iter().map(|h| corpus.external_id(h.doc).to_string()).collect();
    l.p(format!(
        "The question {qid}, `{question}`, has {} judged passages ({} relevant: grade ≥ 1). BM25 ranked these ten, best first; the judgements say how relevant each is (0: judged not relevant or not judged).",
        grades.len(),
        grades.values().filter(|&&g| g > 0).count()
    ));
    l.table(
        "The ranking and its judgements",
        &["rank", "passage", "grade"],
        ranking
            .iter()
            .enumerate()
            .map(|(i, d)| vec![(i + 1).to_string(), d.clone(), grades.get(d).copied().unwrap_or(0).to_string()])
            .collect(),
    );
    let unranked: Vec<String> = grades
        .iter()
        .filter(|(d, g)| **g > 0 && !ranking.contains(d))
        .map(|(d, g)| format!("{d} (grade {g})"))
        .collect();
    if !unranked.is_empty() {
        l.p(format!("Relevant but not in the top 10: {}.", unranked.join(", ")));
    }
    let j = JudgedRanking { ranking: &ranking, grades: &grades };
    l.check(metric_exercises::precision_at("metrics-p5", &j, 5));
    l.check(metric_exercises::recall_at("metrics-r10", &j, 10));
    l.check(metric_exercises::average_precision("metrics-ap", &j));
    l.check(metric_exercises::ndcg_at("metrics-ndcg10", &j, 10));
    let scored: Vec<(String, f64)> = ranking.iter().zip(&hits).map(|(d, h)| (d.clone(), h.score)).collect();
    let metrics = [Metric::Precision(5), Metric::Recall(10), Metric::Ap, Metric::Ndcg(10)];
    let values = evaluate_query(&scored, Some(&grades), &MetricSet(metrics.to_vec()));
    l.table(
        "What the evaluation module (trec_eval's definitions) says",
        &["metric", "value"],
        metrics.iter().map(|m| vec![m.to_string(), f4(values.get(m).copied().unwrap_or(0.0))]).collect(),
    );
    l.p("Precision looks only at the top k; recall at how much of what is relevant was found; AP rewards finding the relevant passages early; nDCG also weighs how relevant each is, against the best ordering the judgements allow.");
    Ok(l)
}

/// This lesson's questions in an assignment (precision, recall, AP and nDCG@10 of a ranking with judgements), drawn for one student.
pub(super) fn assignment(draw: &Drawer<'_>, rng: &mut SplitMix64) -> Result<Vec<Checkpoint>> {
    let corpus = draw.corpus();
    let judged: Vec<(String, BTreeMap<String, i32>)> = match &corpus.qrels {
        Some(q) => q
            .judgements
            .iter()
            .filter(|(_, j)| j.values().any(|&g| g > 0))
            .map(|(k, v)| (k.clone(), v.clone()))
            .collect(),
        None => Vec::new(),
    };
    // A ranking of 10 with judgements: the corpus's own when it has judged questions, else
    // grades drawn for the passages.
    let ids: Vec<String> = corpus.docs().iter().map(|d| d.id.clone()).collect();
    let (grades, mut ranking) = match rng.pick(&judged) {
        Some((_, grades)) => {
            let relevant: Vec<String> = grades.iter().filter(|(_, g)| **g > 0).map(|(d, _)| d.clone()).collect();
            let mut ranking: Vec<String> = relevant.iter().filter(|_| rng.below(4) != 0).cloned().collect();
            let mut others = ids.clone();
            rng.shuffle(&mut others);
            ranking.extend(
                others.into_iter().filter(|d| !relevant.contains(d)).take(10usize.saturating_sub(ranking.len())),
            );
            (grades.clone(), ranking)
        }
        None => {
            let mut pool = ids.clone();
            rng.shuffle(&mut pool);
            let grades: BTreeMap<String, i32> = pool.iter().take(6).map(|d| (d.clone(), rng.below(4) as i32)).collect();
            let mut ranking: Vec<String> = pool.iter().take(10).cloned().collect();
            ranking.truncate(10);
            (grades, ranking)
        }
    };
    rng.shuffle(&mut ranking);
    ranking.truncate(10);
    let j = JudgedRanking { ranking: &ranking, grades: &grades };
    let k = [3, 5][rng.below(2)];
    Ok(vec![
        metric_exercises::precision_at("q1", &j, k),
        metric_exercises::recall_at("q2", &j, 10),
        metric_exercises::average_precision("q3", &j),
        metric_exercises::ndcg_at("q4", &j, 10),
    ])
}
