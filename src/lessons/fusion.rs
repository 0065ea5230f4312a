//! Fusion can hurt: when BM25 and dense search both rank the same wrong passage high, reciprocal
//! rank fusion promotes it above the right passage that only one of them ranked first.

use super::exercises;
use super::{Lesson, LessonKit, Open};
use crate::Result;
use crate::config::Settings;
use crate::corpus::DocId;
use crate::retrieve::{Detail, MethodKind, QueryContext};

const QUESTION: &str = "How long is a sync token valid?";
const RIGHT: &str = "releases-5";
const WRONG: &str = "errors-2";

pub fn build(kit: &LessonKit, on: &Open) -> Result<Lesson> {
    let mut l = Lesson::new("fusion", "Fusion can hurt");
    let corpus = kit.sample.corpus();
    let (right, wrong) = (corpus.lookup(RIGHT).unwrap_or(DocId(0)), corpus.lookup(WRONG).unwrap_or(DocId(0)));
    l.p(format!(
        "`{QUESTION}` is answered by {RIGHT} (\"{}\"). {WRONG} (\"{}\") talks about an expired token but not about how long tokens last.",
        corpus.doc(right).map(|d| d.text.as_str()).unwrap_or(""),
        corpus.doc(wrong).map(|d| d.text.as_str()).unwrap_or("")
    ));
    let settings = Settings::default();
    let q = QueryContext::new(QUESTION);
    let mut rows = Vec::new();
    for kind in [MethodKind::Bm25, MethodKind::Dense, MethodKind::Fusion] {
        match kit.sample.retriever(kind, &settings) {
            Ok(r) => {
                let ranking = r.search(&q, 5)?;
                let top: Vec<String> =
                    ranking.hits.iter().take(3).map(|h| corpus.external_id(h.doc).to_string()).collect();
                let pos = |d: DocId| ranking.rank_of(d).map(|r| format!("#{r}")).unwrap_or_else(|| "—".into());
                rows.push(vec![r.label(), top.join(", "), pos(right), pos(wrong)]);
                if kind == MethodKind::Fusion {
                    for (id, doc) in [(RIGHT, right), (WRONG, wrong)] {
                        let e = r.explain(&q, doc)?;
                        if id == WRONG
                            && let Detail::Fusion { parts } = &e.detail
                        {
                            let ranks: Vec<(String, Option<usize>)> = parts
                                .iter()
                                .map(|p| (p.method.split(" (").next().unwrap_or("").to_string(), p.rank))
                                .collect();
                            l.check(exercises::rrf("fusion-rrf", WRONG, &ranks, settings.fusion.rrf_k, e.value));
                        }
                        if let Detail::Fusion { parts } = e.detail {
                            let p: Vec<String> = parts
                                .iter()
                                .map(|p| {
                                    format!(
                                        "{} rank {} → {:.5}",
                                        p.method.split(" (").next().unwrap_or(""),
                                        p.rank.map(|r| r.to_string()).unwrap_or_else(|| "—".into()),
                                        p.contribution
                                    )
                                })
                                .collect();
                            l.p(format!("RRF for {id}: {}", p.join(" + ")));
                        }
                    }
                }
            }
            Err(e) => rows.push(vec![
                kind.label().to_string(),
                format!("not run here: {}", e.report().lines().next().unwrap_or("")),
                String::new(),
                String::new(),
            ]),
        }
    }
    l.table(
        "Top 3 of each, and the ranks of the right and the wrong passage",
        &["method", "top 3", RIGHT, WRONG],
        rows,
    );
    l.p("Dense search puts the right passage first; BM25 puts it third, behind the wrong one; dense search ranks the wrong one second. The two lists agree that the wrong passage is near the top, so RRF — which only sees ranks — puts it first. Fusion helps when its inputs make different mistakes, not the same one.");
    open_page(&mut l, on)?;
    Ok(l)
}

/// The same fusion for the question asked, on the open corpus: each input's top 3, the fused
/// top 3, and the fused first passage's score to work out from its ranks.
fn open_page(l: &mut Lesson, on: &Open) -> Result<()> {
    let question = on.question.trim();
    l.h(format!("Your corpus: `{question}`"));
    let settings = Settings::default();
    let fusion = match on.engine.retriever(MethodKind::Fusion, &settings) {
        Ok(r) => r,
        Err(e) => {
            l.warn(format!("Not run on this corpus: {}", e.report().lines().next().unwrap_or("")));
            return Ok(());
        }
    };
    let corpus = on.engine.corpus();
    let q = QueryContext::new(question);
    let mut rows = Vec::new();
    for kind in [MethodKind::Bm25, MethodKind::Dense] {
        let r = on.engine.retriever(kind, &settings)?;
        let top: Vec<String> = r.search(&q, 3)?.hits.iter().map(|h| corpus.external_id(h.doc).to_string()).collect();
        rows.push(vec![r.label(), top.join(", ")]);
    }
    let fused = fusion.search(&q, 3)?;
    let top: Vec<String> = fused.hits.iter().map(|h| corpus.external_id(h.doc).to_string()).collect();
    rows.push(vec![fusion.label(), top.join(", ")]);
    let Some(first) = fused.hits.first() else {
        l.p("Neither input ranks anything for this question.");
        return Ok(());
    };
    let id = corpus.external_id(first.doc).to_string();
    let e = fusion.explain(&q, first.doc)?;
    if let Detail::Fusion { parts } = &e.detail {
        let ranks: Vec<(String, Option<usize>)> =
            parts.iter().map(|p| (p.method.split(" (").next().unwrap_or("").to_string(), p.rank)).collect();
        l.check(exercises::rrf("open-rrf", &id, &ranks, settings.fusion.rrf_k, e.value));
    }
    l.table("Each input's top 3, and the fused top 3", &["method", "top 3"], rows);
    Ok(())
}
