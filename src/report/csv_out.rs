//! CSV: one row per question, method, rank, passage, score.
//!
//! Text a spreadsheet would run as a formula (starting with `=`, `+`, `-`, `@`, a tab or a
//! carriage return) is written with a leading `'`, which spreadsheets read as "this is text"
//! (OWASP's advice for CSV injection). Numbers are written as they are.

use super::ReportBody;
use crate::compare::Outcome;
use crate::retrieve::Entry;
use crate::{Error, Result};

/// A text cell a spreadsheet will not evaluate.
fn text(s: &str) -> std::borrow::Cow<'_, str> {
    if s.starts_with(['=', '+', '-', '@', '\t', '\r']) { format!("'{s}").into() } else { s.into() }
}

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
                    let (question, method, id) = (text(&c.question), text(&run.label), text(id));
                    w.write_record([&*question, &*method, &rank.to_string(), &*id, &format!("{score:.6}")])
                        .map_err(err)?;
                }
            }
        }
        ReportBody::Study(s) => {
            for (method, per_q) in &s.top {
                for (qid, hits) in per_q {
                    let q = s.questions.get(qid).map(String::as_str).unwrap_or(qid);
                    for (i, (doc, score)) in hits.iter().enumerate() {
                        let (q, method, doc) = (text(q), text(method), text(doc));
                        w.write_record([&*q, &*method, &(i + 1).to_string(), &*doc, &format!("{score:.6}")])
                            .map_err(err)?;
                    }
                }
            }
        }
    }
    let bytes = w.into_inner().map_err(|e| Error::caused("report: writing CSV", e.into_error()))?;
    String::from_utf8(bytes).map_err(|e| Error::caused("report: writing CSV", e))
}
