//! SPLADE by hand: the model gives the question and each passage a weight for every term of its
//! vocabulary — words that are not in the text too (expansions) — and the score is the dot product
//! over the terms both have: Σₜ w_q(t) · w_d(t). A page of that sum worked term by term, and an
//! assignment: a passage's score from its table, the term that carries most of it, the part that
//! comes from words the passage never wrote, and which of two passages comes first.

use std::sync::Arc;

use super::data::Ordered;

use super::checkpoint::Checkpoint;
use super::drawer::{Drawer, round4};
use super::exercises::{self, mistake, number_within};
use super::{Lesson, LessonKit, Open, f4};
use crate::config::Settings;
use crate::corpus::DocId;
use crate::lcg::SplitMix64;
use crate::retrieve::{Detail, MethodKind, Prepared, QueryContext, Retriever};
use crate::workbench::Workbench;
use crate::{Error, Result};

/// One term both vectors have, its weights rounded to four decimals as the data prints them.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct SharedTerm {
    pub term: String,
    pub question: f64,
    pub passage: f64,
    /// The question's text holds it (else the model added it to the question).
    pub in_question: bool,
    /// The passage's text holds it (else the model added it to the passage).
    pub in_passage: bool,
}

impl SharedTerm {
    fn product(&self) -> f64 {
        self.question * self.passage
    }
    fn written(&self) -> &'static str {
        match (self.in_question, self.in_passage) {
            (true, true) => "both",
            (true, false) => "question only",
            (false, true) => "passage only",
            (false, false) => "neither",
        }
    }
}

/// The terms the question and the passage share under SPLADE, largest product first, read from
/// the explanation of the code that ranks.
pub(crate) fn shared_terms(prepared: &dyn Prepared, d: DocId) -> Result<Vec<SharedTerm>> {
    let e = prepared.explain(d)?;
    let Detail::Sparse { matches, .. } = e.detail else {
        return Err(Error::invalid("lesson", "the SPLADE explanation has no terms"));
    };
    Ok(matches
        .into_iter()
        .map(|m| SharedTerm {
            term: m.term,
            question: round4(f64::from(m.query_weight)),
            passage: round4(f64::from(m.doc_weight)),
            in_question: !m.query_expansion,
            in_passage: !m.doc_expansion,
        })
        .collect())
}

/// A passage's table as data: term, both weights and where the term is written.
fn table_data(rows: &[SharedTerm]) -> Vec<TableRow<'_>> {
    rows.iter()
        .map(|r| TableRow { term: &r.term, question: r.question, passage: r.passage, written_in: r.written() })
        .collect()
}

/// The passage's score from its table: Σ w_q · w_d.
pub fn score(id: &str, passage: &str, question: &str, rows: &[SharedTerm]) -> Checkpoint {
    let key: f64 = rows.iter().map(SharedTerm::product).sum();
    let written: f64 = rows.iter().filter(|r| r.in_question && r.in_passage).map(SharedTerm::product).sum();
    let added: f64 = rows.iter().map(|r| r.question + r.passage).sum();
    let largest = rows.iter().map(SharedTerm::product).fold(0.0, f64::max);
    let terms: Vec<String> = rows.iter().map(|r| format!("{}×{}", f4(r.question), f4(r.passage))).collect();
    number_within(
        id,
        format!(
            "The table gives each term that both the question's and {passage}'s SPLADE vectors weigh. What is {passage}'s score, Σ w_question × w_passage?"
        ),
        PassageTable { question, passage, terms: table_data(rows) },
        key,
        TOLERANCE,
        vec![format!("score = {} = {}", terms.join(" + "), f4(key))],
        vec![
            mistake("only the terms written in both texts (the model's expansions left out)", written),
            mistake("the weights added, not multiplied", added),
            mistake("the largest product only", largest),
        ],
    )
}

/// Which term carries most of the passage's score.
pub fn top_term(id: &str, passage: &str, question: &str, rows: &[SharedTerm]) -> Checkpoint {
    let mut scored: Vec<(String, f64)> = rows.iter().map(|r| (r.term.clone(), r.product())).collect();
    scored.sort_by(|a, b| a.0.cmp(&b.0));
    exercises::best_of(
        id,
        format!("Which term carries the largest part of {passage}'s score?"),
        PassageTable { question, passage, terms: table_data(rows) },
        &scored,
        |t, v| format!("`{t}`: {v:.4} of the score, the largest product"),
    )
}

/// How much of the score comes from terms the passage's text does not hold.
pub fn expansion_part(id: &str, passage: &str, question: &str, rows: &[SharedTerm]) -> Checkpoint {
    let part = |f: &dyn Fn(&SharedTerm) -> bool| rows.iter().filter(|r| f(r)).map(SharedTerm::product).sum::<f64>();
    let key = part(&|r| !r.in_passage);
    let listed: Vec<String> =
        rows.iter().filter(|r| !r.in_passage).map(|r| format!("{} ({})", r.term, f4(r.product()))).collect();
    number_within(
        id,
        format!(
            "How much of {passage}'s score comes from terms its text does not contain (terms the model added to the passage)?"
        ),
        PassageTable { question, passage, terms: table_data(rows) },
        key,
        TOLERANCE,
        vec![format!(
            "the terms written in the question only or in neither text: {} = {}",
            listed.join(" + "),
            f4(key)
        )],
        vec![
            mistake("the terms the question's text does not contain instead", part(&|r| !r.in_question)),
            mistake("the terms the passage's text does contain", part(&|r| r.in_passage)),
        ],
    )
}

/// Which of two passages SPLADE puts first, from their weights for the question's terms.
fn which_first(id: &str, question: &str, a: (&str, &[SharedTerm]), b: (&str, &[SharedTerm])) -> Checkpoint {
    let mut terms: Vec<&SharedTerm> = a.1.iter().chain(b.1).collect();
    terms.sort_by(|x, y| x.term.cmp(&y.term));
    terms.dedup_by(|x, y| x.term == y.term);
    let weight = |rows: &[SharedTerm], t: &str| rows.iter().find(|r| r.term == t).map_or(0.0, |r| r.passage);
    let table: Vec<WeightsRow<'_>> = terms
        .iter()
        .map(|t| WeightsRow {
            term: &t.term,
            question: t.question,
            passages: Ordered(vec![
                (format!("w {}", a.0), weight(a.1, &t.term)),
                (format!("w {}", b.0), weight(b.1, &t.term)),
            ]),
        })
        .collect();
    let total = |rows: &[SharedTerm]| rows.iter().map(SharedTerm::product).sum::<f64>();
    let mut scored = vec![(a.0.to_string(), total(a.1)), (b.0.to_string(), total(b.1))];
    scored.sort_by(|x, y| x.0.cmp(&y.0));
    exercises::best_of(
        id,
        "Which of the two passages does SPLADE put first? (A term missing from a passage's column weighs 0 there.)"
            .into(),
        TwoPassages { question, passages: [PassageId { id: a.0 }, PassageId { id: b.0 }], weights: table },
        &scored,
        |d, v| format!("{d}: Σ w_question × w_passage = {v:.4}"),
    )
}

/// Scores are sums of a dozen products of four-decimal weights (about 0.1 to 3 each): worked to
/// four decimals they land within 0.01.
const TOLERANCE: f64 = 0.01;

/// The SPLADE retriever of an engine, or why there is none.
fn retriever(workbench: &Workbench) -> Result<Arc<dyn Retriever>> {
    workbench.retriever(MethodKind::Splade, &Settings::default())
}

/// A table a student can work by hand: 3 to 12 terms, at least one that the passage's text holds
/// and one that the model added to it.
fn workable(rows: &[SharedTerm]) -> bool {
    (3..=12).contains(&rows.len()) && rows.iter().any(|r| !r.in_passage) && rows.iter().any(|r| r.in_passage)
}

pub fn build(kit: &LessonKit, on: &Open) -> Result<Lesson> {
    let mut l = Lesson::untitled();
    l.p("SPLADE reads a text with a language model and gives every term of its vocabulary (about 30,000 word pieces) a weight, log(1 + ReLU(logit)) taken at the token where it is largest; most weights are 0. The question gets a vector, each passage gets one, and the score is their dot product over the terms both weigh: Σₜ w_question(t) × w_passage(t). A term can weigh in a vector without being in its text: the model adds words the text implies (expansion). That is how SPLADE finds a passage that does not share the question's words, and why its index is still an inverted index.");
    let (engine, question) = match retriever(&on.workbench) {
        Ok(_) => (on.workbench.clone(), on.question.trim().to_string()),
        Err(e) if !Arc::ptr_eq(&on.workbench, &kit.sample) => {
            l.warn(format!(
                "The open corpus cannot be ranked by SPLADE yet ({}): this page uses the Acme Sync sample.",
                e.report()
            ));
            (kit.sample.clone(), "Why does my phone say my login is stale?".to_string())
        }
        Err(e) => {
            l.warn(format!("Not run here: {} (ranklens models fetch --role splade).", e.report()));
            return Ok(l);
        }
    };
    let splade = retriever(&engine)?;
    let q = QueryContext::new(&question);
    let prepared = splade.prepare(&q)?;
    let hits = prepared.search(5)?.hits;
    let corpus = engine.corpus();
    let Some(top) = hits.first().map(|h| h.doc) else {
        l.warn("SPLADE ranked nothing for this question.");
        return Ok(l);
    };
    l.h(format!("`{question}`"));
    let e = prepared.explain(top)?;
    if let Detail::Sparse { query_terms, .. } = &e.detail {
        let words: Vec<String> =
            question.split(|c: char| !c.is_alphanumeric()).map(str::to_lowercase).filter(|w| !w.is_empty()).collect();
        let written = |t: &str| words.iter().any(|w| w == t);
        l.table(
            "The question's vector: its heaviest terms",
            &["term", "weight", "in the question's text"],
            query_terms
                .iter()
                .take(12)
                .map(|(t, w)| vec![t.clone(), f4(f64::from(*w)), if written(t) { "yes" } else { "no: added" }.into()])
                .collect(),
        );
    }
    let name = corpus.external_id(top).to_string();
    let rows = shared_terms(prepared.as_ref(), top)?;
    l.p(format!(
        "SPLADE puts {name} first. Its text: \"{}\"",
        corpus.doc(top).map(|d| d.full_text()).unwrap_or_default()
    ));
    l.check(score("splade-score", &name, &question, &rows));
    l.table(
        &format!("The terms both vectors weigh, for {name}"),
        &["term", "w question", "w passage", "product", "written in"],
        rows.iter()
            .map(|r| vec![r.term.clone(), f4(r.question), f4(r.passage), f4(r.product()), r.written().into()])
            .collect(),
    );
    if rows.len() >= 2 {
        l.check(top_term("splade-top-term", &name, &question, &rows));
    }
    if rows.iter().any(|r| !r.in_passage) {
        l.check(expansion_part("splade-expansion", &name, &question, &rows));
    }
    l.p(format!(
        "The explanation's score is {}; the table's weights are rounded to four decimals, so its sum may differ in the last digits. The Explain view shows the same rows for every passage, and the SPLADE column's label the model it ran.",
        f4(e.value)
    ));
    Ok(l)
}

/// This lesson's questions in an assignment, drawn for one student: a passage's score from its
/// table, the term that carries most of it, the part from terms the passage does not write, and
/// which of two passages comes first. A draw is kept when the table has 3 to 12 terms with at
/// least one expansion, the heaviest term and the first passage lead by a clear margin.
pub(super) fn assignment(draw: &Drawer<'_>, rng: &mut SplitMix64) -> Result<Vec<Checkpoint>> {
    let splade = retriever(draw.workbench)?;
    let (question, a, b) = draw.until(rng, "a passage whose SPLADE score is worth working by hand", |rng| {
        let question = draw.asked_question(rng)?;
        let prepared = splade.prepare(&QueryContext::new(&question))?;
        let hits: Vec<DocId> = prepared.search(8)?.hits.iter().map(|h| h.doc).collect();
        if hits.len() < 2 {
            return Ok(None);
        }
        let i = rng.below(hits.len());
        let j = (i + 1 + rng.below(hits.len() - 1)) % hits.len();
        let (ra, rb) = (shared_terms(prepared.as_ref(), hits[i])?, shared_terms(prepared.as_ref(), hits[j])?);
        let products: Vec<(String, f64)> = ra.iter().map(|r| (r.term.clone(), r.product())).collect();
        let sums = |rows: &[SharedTerm]| rows.iter().map(SharedTerm::product).sum::<f64>();
        let both = [(draw.name(hits[i]), sums(&ra)), (draw.name(hits[j]), sums(&rb))];
        let mut union: Vec<&str> = ra.iter().chain(&rb).map(|r| r.term.as_str()).collect();
        union.sort_unstable();
        union.dedup();
        if !(workable(&ra) && exercises::clear_winner(&products) && exercises::clear_winner(&both))
            || rb.is_empty()
            || union.len() > 14
        {
            return Ok(None);
        }
        Ok(Some((question, (draw.name(hits[i]), ra), (draw.name(hits[j]), rb))))
    })?;
    Ok(vec![
        score("q1", &a.0, &question, &a.1),
        top_term("q2", &a.0, &question, &a.1),
        expansion_part("q3", &a.0, &question, &a.1),
        which_first("q4", &question, (&a.0, &a.1), (&b.0, &b.1)),
    ])
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::lessons::checkpoint::Answer;
    use crate::lessons::exercises::named;

    #[test]
    fn a_score_and_its_expansion_part_by_hand_and_each_mistake_from_a_wrong_value_worked_by_hand() {
        let term = |t: &str, q: f64, p: f64, in_question: bool, in_passage: bool| SharedTerm {
            term: t.into(),
            question: q,
            passage: p,
            in_question,
            in_passage,
        };
        // sync 1.2 × 0.5 = 0.6 (written in both), conflict 0.9 × 1.0 = 0.9 (the question's word,
        // added to the passage), merge 0.3 × 0.4 = 0.12 (the passage's word, added to the question).
        let rows = [
            term("sync", 1.2, 0.5, true, true),
            term("conflict", 0.9, 1.0, true, false),
            term("merge", 0.3, 0.4, false, true),
        ];
        // Score 0.6 + 0.9 + 0.12 = 1.62. Written in both only: 0.6; weights added:
        // 1.7 + 1.9 + 0.7 = 4.3; the largest product: 0.9.
        let c = score("q1", "d1", "sync conflict", &rows);
        assert!(c.check(&Answer::Number(1.62)).correct);
        named(&c, 0.6, "only the terms written in both texts (the model's expansions left out)");
        named(&c, 4.3, "the weights added, not multiplied");
        named(&c, 0.9, "the largest product only");
        // From terms the passage does not write: conflict, 0.9. The question's additions
        // instead: merge, 0.12; the passage's own words: 0.6 + 0.12 = 0.72.
        let c = expansion_part("q3", "d1", "sync conflict", &rows);
        assert!(c.check(&Answer::Number(0.9)).correct);
        named(&c, 0.12, "the terms the question's text does not contain instead");
        named(&c, 0.72, "the terms the passage's text does contain");
    }
}

/// One row of a passage's table: the term, its weights and where it is written.
#[derive(serde::Serialize)]
struct TableRow<'a> {
    term: &'a str,
    #[serde(rename = "w question")]
    question: f64,
    #[serde(rename = "w passage")]
    passage: f64,
    #[serde(rename = "written in")]
    written_in: &'static str,
}

/// A question, a passage and its table (the score, the top term, the expansion's part).
#[derive(serde::Serialize)]
struct PassageTable<'a> {
    question: &'a str,
    passage: &'a str,
    terms: Vec<TableRow<'a>>,
}

/// One row of the two passages' weights: the term, the question's weight and each passage's.
#[derive(serde::Serialize)]
struct WeightsRow<'a> {
    term: &'a str,
    #[serde(rename = "w question")]
    question: f64,
    #[serde(flatten)]
    passages: Ordered<f64>,
}

/// A passage named by its id.
#[derive(serde::Serialize)]
struct PassageId<'a> {
    id: &'a str,
}

/// Which of two passages comes first: their weights for the question's terms.
#[derive(serde::Serialize)]
struct TwoPassages<'a> {
    question: &'a str,
    passages: [PassageId<'a>; 2],
    weights: Vec<WeightsRow<'a>>,
}
