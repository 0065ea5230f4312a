//! What moved it: one passage under two states — two methods, or one method before and after a
//! change of k1, b, the analyzer or the variant — its rank and score in each, and the per-term
//! (per-token for the neural methods) differences, which sum to the score difference.

use std::collections::BTreeMap;

use serde::Serialize;

use crate::config::Settings;
use crate::corpus::DocId;
use crate::markup::f4;
use crate::retrieve::{Detail, MethodKind, QueryContext, ScoreSplit};
use crate::workbench::Workbench;
use crate::{Error, Result};

/// One state: a method with its settings.
#[derive(Debug, Clone, PartialEq)]
pub struct State {
    /// The method.
    pub kind: MethodKind,
    /// Its settings (analyzer, BM25 variant and parameters, …).
    pub settings: Settings,
}

impl State {
    /// How the state is named: the retriever's label with the analyzer.
    fn describe(&self, label: &str) -> String {
        if MethodKind::NEURAL.contains(&self.kind) {
            label.to_string()
        } else {
            format!("{label}, {}", self.settings.analyzer)
        }
    }
}

/// The passage under one state.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Side {
    /// The state, as the column is labelled.
    pub label: String,
    /// Its rank (1-based; none when the method does not retrieve it).
    pub rank: Option<usize>,
    /// Its score.
    pub score: f64,
    /// Its length against the average (lexical methods).
    pub length_ratio: Option<f64>,
}

/// One part (a term, a token) in both states.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct PartChange {
    /// The term or token.
    pub part: String,
    /// Its share of the score before.
    pub before: f64,
    /// And after.
    pub after: f64,
}

impl PartChange {
    /// after − before.
    pub fn change(&self) -> f64 {
        self.after - self.before
    }
}

/// The whole answer.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Moved {
    /// The passage.
    pub doc: String,
    /// Before.
    pub before: Side,
    /// After.
    pub after: Side,
    /// Part by part, the largest change first; Σ after − Σ before = the score difference.
    pub parts: Vec<PartChange>,
    /// Why a side has no parts (a Boolean tree, a score with no split).
    pub unsplit: Option<String>,
    /// What changed between the states (`b went from 0.75 to 0.2`).
    pub change: String,
    /// One sentence: what moved it.
    pub summary: String,
}

/// What differs between two states, in words.
pub fn describe_change(a: &State, b: &State) -> String {
    if a.kind != b.kind {
        return format!("the method went from {} to {}", a.kind.label(), b.kind.label());
    }
    let (x, y) = (&a.settings, &b.settings);
    let mut out = Vec::new();
    if a.kind == MethodKind::Bm25 {
        if x.bm25_variant != y.bm25_variant {
            out.push(format!("the variant went from {} to {}", x.bm25_variant.name(), y.bm25_variant.name()));
        }
        if x.bm25.k1 != y.bm25.k1 {
            out.push(format!(
                "k1 went from {} to {}",
                crate::formula::fmt_param(x.bm25.k1),
                crate::formula::fmt_param(y.bm25.k1)
            ));
        }
        if x.bm25.b != y.bm25.b {
            out.push(format!(
                "b went from {} to {}",
                crate::formula::fmt_param(x.bm25.b),
                crate::formula::fmt_param(y.bm25.b)
            ));
        }
    }
    if a.kind == MethodKind::TfIdf && (x.tfidf != y.tfidf || x.tfidf_normalize != y.tfidf_normalize) {
        out.push(format!("TF-IDF went from {} to {}", x.tfidf.name(), y.tfidf.name()));
    }
    if !MethodKind::NEURAL.contains(&a.kind) && x.analyzer != y.analyzer {
        out.push(format!("the analyzer went from {} to {}", x.analyzer, y.analyzer));
    }
    if out.is_empty() { "nothing that this method reads changed".into() } else { out.join(" and ") }
}

fn side(workbench: &Workbench, state: &State, question: &str, doc: DocId) -> Result<(Side, ScoreSplit)> {
    let r = workbench.retriever(state.kind, &state.settings)?;
    let q = workbench.query_context(question, &state.settings);
    let prepared = r.prepare(&q)?;
    let ranking = prepared.search(workbench.corpus().len())?;
    let e = prepared.explain(doc)?;
    let length_ratio = match &e.detail {
        Detail::Terms(t) => t.rows.first().filter(|r| r.avgdl > 0.0).map(|r| r.dl / r.avgdl),
        _ => None,
    };
    let rank = ranking.hits.iter().position(|h| h.doc == doc).map(|p| p + 1);
    let side = Side { label: state.describe(&r.label()), rank, score: e.value, length_ratio };
    Ok((side, e.split()))
}

fn rank_text(r: Option<usize>) -> String {
    r.map_or_else(|| "not retrieved".to_string(), |r| r.to_string())
}

/// One passage under two states.
pub fn what_moved(workbench: &Workbench, question: &str, doc: DocId, before: &State, after: &State) -> Result<Moved> {
    let _ = QueryContext::new(question);
    if workbench.corpus().doc(doc).is_none() {
        return Err(Error::invalid("passage", "no such passage in the open corpus"));
    }
    let (b, split_b) = side(workbench, before, question, doc)?;
    let (a, split_a) = side(workbench, after, question, doc)?;
    let mut parts: BTreeMap<String, PartChange> = BTreeMap::new();
    let mut unsplit = None;
    for (split, is_after) in [(split_b, false), (split_a, true)] {
        match split {
            ScoreSplit::Sum(list) => {
                for (name, v) in list {
                    let e = parts.entry(name.clone()).or_insert(PartChange { part: name, before: 0.0, after: 0.0 });
                    if is_after { e.after += v } else { e.before += v }
                }
            }
            ScoreSplit::Clauses(_) => {
                unsplit = Some("a Boolean score is 1 or 0: its clause tree holds or not".to_string())
            }
            ScoreSplit::Unsplit(why) => unsplit = Some(why),
        }
    }
    let mut parts: Vec<PartChange> = parts.into_values().collect();
    parts.sort_by(|x, y| y.change().abs().total_cmp(&x.change().abs()).then_with(|| x.part.cmp(&y.part)));
    let change = describe_change(before, after);
    let id = workbench.corpus().external_id(doc).to_string();
    let movement = match (b.rank, a.rank) {
        (Some(x), Some(y)) if y > x => format!("fell from {x} to {y}"),
        (Some(x), Some(y)) if y < x => format!("rose from {x} to {y}"),
        (Some(x), Some(_)) => format!("stayed at {x}"),
        (x, y) => format!("went from rank {} to {}", rank_text(x), rank_text(y)),
    };
    let mut summary = format!("{id} {movement} ({} → {})", f4(b.score), f4(a.score));
    if let Some(p) = parts.first().filter(|p| p.change().abs() > 1e-12) {
        let verb = if p.change() < 0.0 { "lost" } else { "gained" };
        summary.push_str(&format!(": `{}` {verb} {} when {change}", p.part, f4(p.change().abs())));
    } else {
        summary.push_str(&format!(" when {change}"));
    }
    if let Some(r) = a.length_ratio.or(b.length_ratio) {
        summary.push_str(&format!("; the passage is {}× the average length", f2(r)));
    }
    summary.push('.');
    Ok(Moved { doc: id, before: b, after: a, parts, unsplit, change, summary })
}

fn f2(x: f64) -> String {
    format!("{x:.1}")
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::formula::Bm25Variant;

    #[test]
    fn a_change_of_b_is_explained_term_by_term_and_the_parts_sum_to_the_difference() {
        // d2 is four times as long as d1; both hold `sync` once.
        let e = Workbench::new(crate::corpus::Corpus::from_texts(
            "t",
            [
                ("d1", "sync fails"),
                ("d2", "sync works after the phone restarts and the account signs in again later today"),
                ("d3", "nothing"),
            ],
        ));
        let mut before = State { kind: MethodKind::Bm25, settings: Settings::default() };
        before.settings.analyzer = crate::analysis::AnalyzerConfig::preset(crate::analysis::Preset::Standard);
        before.settings.bm25 = crate::formula::Bm25Params { k1: 1.2, b: 0.0, ..Bm25Variant::Lucene.default_params() };
        let mut after = before.clone();
        after.settings.bm25.b = 1.0;
        let d2 = e.corpus().lookup("d2").unwrap();
        let m = what_moved(&e, "sync", d2, &before, &after).unwrap();
        // b = 0: both tie on `sync` (d1 first by index order); b = 1: the long one falls.
        assert_eq!((m.before.rank, m.after.rank), (Some(2), Some(2)));
        // By hand: N = 3, n = 2: idf = ln(1 + 1.5/2.5) = 0.47000; avgdl = (2 + 14 + 1)/3 = 17/3,
        // dl = 14: b = 0: 1/(1 + 1.2) = 0.45455; b = 1: 1/(1 + 1.2 · 14 · 3/17) = 0.25222.
        let idf = 1.6f64.ln();
        let late = 1.0 / (1.0 + 1.2 * 14.0 * 3.0 / 17.0);
        // Lucene computes in float32: to 1e-6.
        assert!((m.before.score - idf / 2.2).abs() < 1e-6, "{}", m.before.score);
        assert!((m.after.score - idf * late).abs() < 1e-6, "{}", m.after.score);
        let sum: f64 = m.parts.iter().map(PartChange::change).sum();
        assert!((sum - (m.after.score - m.before.score)).abs() < 1e-12);
        assert_eq!(m.parts[0].part, "sync");
        assert_eq!(m.change, "b went from 0 to 1");
        assert_eq!(
            m.summary,
            format!(
                "d2 stayed at 2 ({:.4} → {:.4}): `sync` lost {:.4} when b went from 0 to 1; the passage is 2.5× the average length.",
                idf / 2.2,
                idf * late,
                idf / 2.2 - idf * late
            )
        );
        // Two methods: BM25 then TF-IDF.
        let tfidf = State { kind: MethodKind::TfIdf, settings: before.settings.clone() };
        let m = what_moved(&e, "sync", d2, &before, &tfidf).unwrap();
        assert_eq!(m.change, "the method went from BM25 to TF-IDF");
        let sum: f64 = m.parts.iter().map(PartChange::change).sum();
        assert!((sum - (m.after.score - m.before.score)).abs() < 1e-12);
    }
}
