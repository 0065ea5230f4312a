//! Fusion can hurt: when BM25 and dense search both rank the same wrong passage high, reciprocal
//! rank fusion promotes it above the right passage that only one of them ranked first.

use super::checkpoint::Checkpoint;
use super::data::to_data;
use super::drawer::Drawer;
use super::exercises;
use super::{Lesson, LessonKit, Open};
use crate::Result;
use crate::config::Settings;
use crate::corpus::DocId;
use crate::lcg::SplitMix64;
use crate::retrieve::{Detail, FusionRetriever, FusionSettings, MethodKind, QueryContext, Retriever};

const QUESTION: &str = "How long is a sync token valid?";
const RIGHT: &str = "releases-5";
const WRONG: &str = "errors-2";

pub fn build(kit: &LessonKit, on: &Open) -> Result<Lesson> {
    let mut l = Lesson::untitled();
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
    let fusion = match on.workbench.retriever(MethodKind::Fusion, &settings) {
        Ok(r) => r,
        Err(e) => {
            l.warn(format!("Not run on this corpus: {}", e.report().lines().next().unwrap_or("")));
            return Ok(());
        }
    };
    let corpus = on.workbench.corpus();
    let q = QueryContext::new(question);
    let mut rows = Vec::new();
    for kind in [MethodKind::Bm25, MethodKind::Dense] {
        let r = on.workbench.retriever(kind, &settings)?;
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

/// This lesson's questions in an assignment (reciprocal rank fusion by hand from BM25's and the
/// dense model's top 5), drawn for one student. The draw is kept only when the two lists put
/// different passages first and do not hold the same passages (so some passage is in one list
/// only), and the fused list's first passage leads strictly.
pub(super) fn assignment(draw: &Drawer<'_>, rng: &mut SplitMix64) -> Result<Vec<Checkpoint>> {
    let settings = Settings::default();
    let bm25 = draw.workbench.retriever(MethodKind::Bm25, &settings)?;
    let dense = draw.workbench.retriever(MethodKind::Dense, &settings)?;
    let (question, k, lists, fused) = draw.until(rng, "two top-5 lists that disagree", |rng| {
        let question = draw.asked_question(rng)?;
        let k = RRF_KS[rng.below(RRF_KS.len())];
        let fusion = FusionRetriever::new(
            vec![bm25.clone(), dense.clone()],
            FusionSettings { rrf_k: k, depth: DEPTH, ..FusionSettings::default() },
        );
        let q = QueryContext::new(&question);
        let lists: Vec<Vec<DocId>> = [&bm25, &dense]
            .iter()
            .map(|r| Ok(r.search(&q, DEPTH)?.hits.iter().map(|h| h.doc).collect()))
            .collect::<Result<_>>()?;
        if lists.iter().any(|l| l.len() < 3) || lists[0][0] == lists[1][0] {
            return Ok(None);
        }
        let fused = fusion.search(&q, 2 * DEPTH)?;
        let scores: Vec<f64> = fused.hits.iter().map(|h| h.score).collect();
        let in_one = fused.hits.iter().filter(|h| lists.iter().filter(|l| l.contains(&h.doc)).count() == 1).count();
        let in_both = fused.hits.len() - in_one;
        if scores.len() < 4 || scores[0] - scores[1] < 1e-5 || in_one == 0 || in_both == 0 || unique(&scores).is_empty()
        {
            return Ok(None);
        }
        Ok(Some((question, k, lists, fused)))
    })?;
    let name = |d: DocId| draw.name(d);
    let rank_in = |l: &[DocId], d: DocId| l.iter().position(|x| *x == d).map(|i| i + 1);
    let methods = ["BM25", "Dense"];
    let table: Vec<Place> = (0..lists[0].len().max(lists[1].len()))
        .map(|i| Place {
            place: i + 1,
            bm25: lists[0].get(i).map(|&d| name(d)).unwrap_or_default(),
            dense: lists[1].get(i).map(|&d| name(d)).unwrap_or_default(),
        })
        .collect();
    let data = to_data(&Rankings { question: &question, k, rankings: &table, asked: None });
    let ranks = |d: DocId| -> Vec<(String, Option<usize>)> {
        methods.iter().zip(&lists).map(|(m, l)| (m.to_string(), rank_in(l, d))).collect()
    };
    let in_lists = |d: DocId| lists.iter().filter(|l| l.contains(&d)).count();
    // q1: a passage both lists hold; q2: one only one list holds.
    let both: Vec<DocId> = fused.hits.iter().map(|h| h.doc).filter(|&d| in_lists(d) == 2).collect();
    let one: Vec<DocId> = fused.hits.iter().map(|h| h.doc).filter(|&d| in_lists(d) == 1).collect();
    let score_of = |d: DocId| fused.hits.iter().find(|h| h.doc == d).map_or(0.0, |h| h.score);
    let mut out = Vec::new();
    for (id, pool) in [("q1", &both), ("q2", &one)] {
        let Some(&d) = rng.pick(pool) else { continue };
        let mut c = exercises::rrf(id, &name(d), &ranks(d), k, score_of(d));
        c.question.prompt = format!(
            "Reciprocal rank fusion of the two lists below with k = {}: what is {}'s fused score, Σ 1/(k + rank) over the lists that hold it?",
            crate::lessons::checkpoint::format_number(k),
            name(d)
        );
        c.question.data = to_data(&Rankings { question: &question, k, rankings: &table, asked: Some(name(d)) });
        out.push(c);
    }
    let mut scored: Vec<(String, f64)> = fused.hits.iter().map(|h| (name(h.doc), h.score)).collect();
    scored.sort_by(|a, b| a.0.cmp(&b.0));
    let mut first = exercises::best_of(
        "q3",
        "Which passage does reciprocal rank fusion of the two lists put first?".into(),
        data.clone(),
        &scored,
        |d, v| {
            format!(
                "{d} leads with {}: a passage both lists rank well can beat each list's own first — fusion rewards agreement",
                f5(v)
            )
        },
    );
    first.solution.steps =
        scored.iter().map(|(o, s)| format!("{o}: {}", f5(*s))).chain(first.solution.steps.pop()).collect();
    out.push(first);
    // q4: the fused place of a passage whose score no other passage shares, not the first.
    let scores: Vec<f64> = fused.hits.iter().map(|h| h.score).collect();
    if let Some(&i) = rng.pick(&unique(&scores)) {
        let d = fused.hits[i].doc;
        let place = i + 1;
        let mut mistakes = Vec::new();
        for (m, l) in methods.iter().zip(&lists) {
            if let Some(r) = rank_in(l, d) {
                mistakes.push(exercises::mistake(&format!("its place in {m}'s list, not the fused one"), r as f64));
            }
        }
        let c = exercises::count(
            "q4",
            format!("At what place does the fused list put {}?", name(d)),
            Rankings { question: &question, k, rankings: &table, asked: Some(name(d)) },
            place,
            fused
                .hits
                .iter()
                .enumerate()
                .map(|(j, h)| format!("{}. {}: {}", j + 1, name(h.doc), f5(h.score)))
                .collect(),
            mistakes,
        );
        out.push(c);
    }
    Ok(out)
}

/// The places after the first whose fused score no other passage shares (0-based).
fn unique(scores: &[f64]) -> Vec<usize> {
    (1..scores.len())
        .filter(|&i| scores.iter().enumerate().all(|(j, s)| j == i || (s - scores[i]).abs() > 1e-9))
        .collect()
}

/// RRF's k drawn for an assignment: the usual 60, and smaller ones that weigh the top more.
const RRF_KS: [f64; 3] = [10.0, 30.0, 60.0];
/// How deep each list of an assignment is.
const DEPTH: usize = 5;

/// An RRF score as it is worked: five decimals.
fn f5(x: f64) -> String {
    format!("{x:.5}")
}

/// One place of the two lists fused.
#[derive(serde::Serialize)]
struct Place {
    place: usize,
    #[serde(rename = "BM25")]
    bm25: String,
    #[serde(rename = "Dense")]
    dense: String,
}

/// The two lists to fuse by hand, and the passage asked about (when one is).
#[derive(serde::Serialize)]
struct Rankings<'a> {
    question: &'a str,
    k: f64,
    rankings: &'a [Place],
    #[serde(skip_serializing_if = "Option::is_none")]
    asked: Option<String>,
}
