//! One question's columns measured against its grades: nDCG@k, AP, R@k, P@k and MRR of every
//! ranked column, and how many passages of each top k nobody graded. The Compare view shows the
//! nDCG under each column and the Evaluate view the whole table; both read this.

use std::collections::BTreeMap;

use super::{ColumnId, Comparison, Outcome};
use crate::corpus::Corpus;
use crate::eval::{Metric, MetricSet, evaluate_query};
use crate::retrieve::MethodKind;

/// One ranked column's metrics for the question.
#[derive(Debug, Clone, PartialEq)]
pub struct ColumnMetrics {
    /// The column.
    pub id: ColumnId,
    /// Its label.
    pub label: String,
    /// Its family.
    pub kind: MethodKind,
    /// Each metric's value.
    pub values: BTreeMap<Metric, f64>,
    /// Passages of its top k nobody graded.
    pub unjudged: usize,
}

/// Every ranked column's metrics for one question.
#[derive(Debug, Clone, PartialEq)]
pub struct QuestionMetrics {
    /// One entry per ranked column, in column order.
    pub columns: Vec<ColumnMetrics>,
    /// The metrics computed.
    pub metrics: MetricSet,
}

impl QuestionMetrics {
    /// The metrics of a column.
    pub fn of(&self, id: &ColumnId) -> Option<&ColumnMetrics> {
        self.columns.iter().find(|c| c.id == *id)
    }
}

impl Comparison {
    /// nDCG@k, AP, R@k, P@k and MRR of every ranked column against `grades` (passage id → grade),
    /// with trec_eval's semantics; k is the comparison's.
    pub fn question_metrics(&self, corpus: &Corpus, grades: &BTreeMap<String, i32>) -> QuestionMetrics {
        crate::tally::count(crate::tally::Tally::QuestionMetrics);
        let metrics = MetricSet::at(self.k);
        let mut columns = Vec::new();
        for run in &self.runs {
            let Outcome::Ranked(r) = &run.outcome else { continue };
            let list = r.ids_and_scores(corpus);
            let unjudged = list.iter().filter(|(d, _)| !grades.contains_key(d)).count();
            let values = evaluate_query(&list, Some(grades), &metrics);
            columns.push(ColumnMetrics {
                id: run.id.clone(),
                label: run.label.clone(),
                kind: run.kind,
                values,
                unjudged,
            });
        }
        QuestionMetrics { columns, metrics }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::corpus::DocId;
    use crate::retrieve::Ranking;

    #[test]
    fn each_ranked_column_is_measured_and_unjudged_passages_counted() {
        let corpus = Corpus::from_texts("t", [("a", "x"), ("b", "y"), ("c", "z")]);
        let ranking = |docs: &[u32]| {
            Ranking::top(
                "m".into(),
                MethodKind::Bm25,
                docs.iter().enumerate().map(|(i, &d)| (DocId(d), 10.0 - i as f64)),
                10,
            )
        };
        let run = |id: &str, outcome| super::super::MethodRun {
            id: ColumnId(id.into()),
            label: id.into(),
            kind: MethodKind::Bm25,
            outcome,
        };
        let cmp = Comparison {
            question: "q".into(),
            k: 2,
            runs: vec![
                run("good", Outcome::Ranked(ranking(&[0, 1]))),
                run("sql", Outcome::Unavailable { message: "no".into() }),
                run("bad", Outcome::Ranked(ranking(&[2, 1]))),
            ],
        };
        let grades: BTreeMap<String, i32> = [("a".to_string(), 1), ("b".to_string(), 0)].into();
        let m = cmp.question_metrics(&corpus, &grades);
        assert_eq!(m.columns.len(), 2, "only ranked columns");
        let good = m.of(&ColumnId("good".into())).unwrap();
        // The one relevant passage first: nDCG@2 = 1, P@2 = 1/2; none unjudged.
        assert_eq!(good.values[&Metric::Ndcg(2)], 1.0);
        assert_eq!(good.values[&Metric::Precision(2)], 0.5);
        assert_eq!(good.unjudged, 0);
        let bad = m.of(&ColumnId("bad".into())).unwrap();
        assert_eq!(bad.values[&Metric::Ndcg(2)], 0.0);
        assert_eq!(bad.unjudged, 1, "c is ungraded");
    }
}
