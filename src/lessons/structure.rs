//! Exact lists need structure: questions whose complete answer is a set (rows of a table, bindings
//! of a join), which top-k text search can only approximate.

use super::exercises;
use super::{Lesson, LessonKit};
use crate::Result;
use crate::config::Settings;
use crate::retrieve::{MethodKind, QueryContext};
use crate::structured::SqlLimits;

pub fn build(kit: &LessonKit) -> Result<Lesson> {
    let mut l = Lesson::untitled();
    let engine = &kit.sample;
    let corpus = engine.corpus();
    let bm25 = engine.retriever(MethodKind::Bm25, &Settings::default())?;
    let top = |q: &str| -> Result<String> {
        let r = bm25.search(&QueryContext::new(q), 5)?;
        Ok(r.hits.iter().map(|h| corpus.external_id(h.doc).to_string()).collect::<Vec<_>>().join(", "))
    };
    l.check(exercises::choice(
        "structure-complete",
        "A question asks for every error that stops sync since version 4. Which can show that its answer is complete: BM25's top 5, or a query over the errors table?".into(),
        Methods { methods: ["BM25's top 5", "the errors table"] },
        &["BM25's top 5", "the errors table"],
        "the errors table",
        "A ranking returns the k passages most like the question, whether or not more exist; a query over a table returns every row that satisfies it.".into(),
    ));
    for qid in ["q7", "q8", "q9"] {
        let Some(question) = corpus.query(qid) else { continue };
        let t = corpus.templates.get(qid).cloned().unwrap_or_default();
        l.h(format!("`{}`", question.text));
        l.p(format!("BM25's top 5 passages: {}. They mention the right things, but nobody can tell from them that the list is complete.", top(&question.text)?));
        if let (Some(sql), Some(db)) = (&t.sql, &engine.structured().sql) {
            let r = db.query(sql, SqlLimits::default())?;
            l.table(
                &format!("SQL: {sql}"),
                &r.columns.iter().map(String::as_str).collect::<Vec<_>>(),
                r.rows.iter().map(|row| row.iter().map(ToString::to_string).collect()).collect(),
            );
            l.p("The table answers exactly and completely — as complete as the table is.");
        }
        if let (Some(pattern), Some(g)) = (&t.graph, &engine.structured().graph) {
            let r = g.query(pattern)?;
            l.table(
                &format!("Graph: {pattern}"),
                &["bindings", "path (and the passages it was read from)"],
                r.matches
                    .iter()
                    .map(|m| {
                        let b: Vec<String> = m.bindings.iter().map(|(k, v)| format!("{k} = {v}")).collect();
                        let p: Vec<String> =
                            m.path.iter().map(|f| format!("{f} [{}]", f.passages.join(", "))).collect();
                        vec![b.join(", "), p.join(" → ")]
                    })
                    .collect(),
            );
            l.p(format!("{} The join needs two facts from two passages; text search can find both passages but does not join them.", r.note));
        }
    }
    Ok(l)
}

/// The two ways of answering to choose between.
#[derive(serde::Serialize)]
struct Methods {
    methods: [&'static str; 2],
}
