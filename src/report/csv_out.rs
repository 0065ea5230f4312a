//! CSV: one row per question, method, rank, passage, score.

use super::ReportBody;
use crate::compare::Outcome;
use crate::retrieve::Entry;
use crate::{Error, Result};

/// Render the rows.
pub fn render(body: &ReportBody) -> Result<String> {
    let mut w = csv::Writer::from_writer(Vec::new());
    let err = |e: csv::Error| Error::caused("report: writing CSV", e);
    w.write_record(["question", "method", "rank", "passage", "score"]).map_err(err)?;
    match body {
        ReportBody::Comparison(c) => {
            for run in &c.comparison.runs {
                let Outcome::Ranked(r) = &run.outcome else { continue };
                for (rank, entry) in r.entries() {
                    // A run's document the corpus does not hold keeps its id and its place.
                    let (id, score) = match entry {
                        Entry::Hit(h) => (c.passage(h.doc).map(|p| p.id.as_str()).unwrap_or("?"), h.score),
                        Entry::Absent(a) => (a.id.as_str(), a.score),
                    };
                    w.write_record([c.question.as_str(), &run.label, &rank.to_string(), id, &format!("{score:.6}")])
                        .map_err(err)?;
                }
            }
        }
        ReportBody::Study(s) => {
            for (method, per_q) in &s.top {
                for (qid, hits) in per_q {
                    let q = s.questions.get(qid).map(String::as_str).unwrap_or(qid);
                    for (i, (doc, score)) in hits.iter().enumerate() {
                        w.write_record([q, method.as_str(), &(i + 1).to_string(), doc, &format!("{score:.6}")])
                            .map_err(err)?;
                    }
                }
            }
        }
    }
    let bytes = w.into_inner().map_err(|e| Error::caused("report: writing CSV", e.into_error()))?;
    String::from_utf8(bytes).map_err(|e| Error::caused("report: writing CSV", e))
}
