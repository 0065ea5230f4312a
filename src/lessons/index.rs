//! The inverted index of the sample corpus for the question's terms: the dictionary entry and the
//! postings list of each term, and which passages they make candidates.

use super::checkpoint::Checkpoint;
use super::data::{Ordered, to_data};
use super::drawer::Drawer;
use crate::lcg::SplitMix64;
use std::collections::BTreeSet;

use super::exercises;
use super::{Lesson, LessonKit, LessonParams, Open};
use crate::Result;
use crate::analysis::AnalyzerConfig;
use crate::corpus::Corpus;
use crate::lessons::checkpoint::Mistake;
use crate::progress::NoProgress;
use crate::retrieve::QueryContext;
use crate::workbench::SparseSpec;
use crate::workbench::Workbench;

pub fn build(_kit: &LessonKit, _params: &LessonParams, on: &Open) -> Result<Lesson> {
    let mut l = Lesson::untitled();
    let engine = &on.workbench;
    let question = on.question.trim();
    let analyzer = AnalyzerConfig::default();
    let index = engine.index(analyzer, &NoProgress)?;
    let s = index.stats();
    l.p(format!(
        "The index maps each term to the passages that contain it (its postings), with how often. The `{analyzer}` analyzer turned {} passages into {} terms ({} tokens).",
        s.n_docs, s.vocabulary, s.total_tokens
    ));
    let mut terms = index.analyzer().terms(question);
    terms.dedup();
    l.p(format!("The question `{question}` becomes the terms [{}].", terms.join(", ")));
    let corpus = engine.corpus();
    // Predict before the table: the rarest question term that occurs, its df and its postings.
    let mut known: Vec<(u64, &String)> = Vec::new();
    for t in &terms {
        let df = index.doc_freq(t)?;
        if df > 0 {
            known.push((df, t));
        }
    }
    known.sort();
    if let Some(&(_, t)) = known.last() {
        let df = index.doc_freq(t)?;
        let holding: Vec<String> =
            index.postings(t)?.iter().map(|(d, tf)| format!("{} ({tf}×)", corpus.external_id(*d))).collect();
        let data = HoldingData { term: t, n: s.n_docs, holding };
        l.check(exercises::document_frequency("index-df", t, data, df));
    }
    if let Some(&(df, t)) = known.first().filter(|(df, _)| *df <= 8) {
        let postings = index.postings(t)?;
        let list: Vec<String> = postings.iter().map(|(d, _)| corpus.external_id(*d).to_string()).collect();
        let mut shuffled = list.clone();
        shuffled.sort();
        shuffled.reverse();
        let places =
            Ordered(postings.iter().map(|(d, _)| (corpus.external_id(*d).to_string(), d.index() + 1)).collect());
        let data = PlacesData { term: t, df, places };
        l.check(exercises::postings("index-postings", t, data, list, shuffled));
    }
    let mut rows = Vec::new();
    let mut union = BTreeSet::new();
    let mut intersection: Option<BTreeSet<String>> = None;
    for t in &terms {
        let postings = index.postings(t)?;
        let docs: BTreeSet<String> = postings.iter().map(|(d, _)| corpus.external_id(*d).to_string()).collect();
        let list: Vec<String> = postings.iter().map(|(d, tf)| format!("{}:{tf}", corpus.external_id(*d))).collect();
        rows.push(vec![t.clone(), postings.len().to_string(), list.join("  ")]);
        union.extend(docs.iter().cloned());
        intersection = Some(match intersection {
            None => docs,
            Some(i) => i.intersection(&docs).cloned().collect(),
        });
    }
    l.table("Dictionary and postings (passage:tf)", &["term", "df", "postings"], rows);
    l.p(format!(
        "Candidates for a ranked method (any term): {} passages — {}. Only these are scored; every other passage scores 0 without being read.",
        union.len(),
        union.iter().cloned().collect::<Vec<_>>().join(", ")
    ));
    let all = intersection.unwrap_or_default();
    l.p(format!(
        "Boolean AND (every term): {} passage(s) — {}.",
        all.len(),
        if all.is_empty() { "none".to_string() } else { all.into_iter().collect::<Vec<_>>().join(", ") }
    ));
    Ok(l)
}

/// This lesson's questions in an assignment (document frequency, a postings list, Boolean AND and OR), drawn for one student.
pub(super) fn assignment(draw: &Drawer<'_>, rng: &mut SplitMix64) -> Result<Vec<Checkpoint>> {
    // A small collection of 6 passages: its index is the library's.
    let ds = draw.passages(rng, 6.min(draw.workable.len()));
    let mut ds = ds;
    ds.sort();
    let texts: Vec<(String, String)> = ds.iter().map(|&d| (draw.name(d), draw.text(d))).collect();
    let small = Corpus::from_texts("small", texts.iter().map(|(a, b)| (a.as_str(), b.as_str())));
    let engine = Workbench::new(small);
    let index = engine.index(draw.analyzer, &NoProgress)?;
    let passages: Vec<PassageTerms> = texts
        .iter()
        .map(|(id, text)| PassageTerms { id: id.clone(), terms: index.analyzer().terms(text).join(" ") })
        .collect();
    let data = to_data(&InIndexOrder { passages });
    let mut vocabulary: Vec<(String, u64)> = Vec::new();
    for (_, text) in &texts {
        for t in index.analyzer().terms(text) {
            if !vocabulary.iter().any(|(v, _)| *v == t) {
                let df = index.doc_freq(&t)?;
                vocabulary.push((t, df));
            }
        }
    }
    // Terms asked about are content words (never `in` or `the`), where there are enough.
    let content: Vec<(String, u64)> =
        vocabulary.iter().filter(|(t, _)| super::drawer::is_content_word(t)).cloned().collect();
    let vocabulary = if content.len() >= 2 { content } else { vocabulary };
    let shared: Vec<&(String, u64)> = vocabulary.iter().filter(|(_, df)| *df >= 2).collect();
    let pool: Vec<&(String, u64)> = if shared.len() >= 2 { shared } else { vocabulary.iter().collect() };
    let (a, adf) = pool[rng.below(pool.len())].clone();
    let (b, _) = pool[rng.below(pool.len())].clone();
    let (c, _) = pool[rng.below(pool.len())].clone();
    let names = |t: &str| -> Result<Vec<String>> {
        Ok(index.postings(t)?.iter().map(|(d, _)| engine.corpus().external_id(*d).to_string()).collect())
    };
    let list = names(&b)?;
    let mut options = list.clone();
    options.sort();
    options.reverse();
    let boolean = engine.sparse(SparseSpec::Boolean, draw.analyzer, &NoProgress)?;
    let and = boolean.search(&QueryContext::new(format!("{a} AND {c}")), 100)?.hits.len();
    let (pa, pc): (BTreeSet<String>, BTreeSet<String>) =
        (names(&a)?.into_iter().collect(), names(&c)?.into_iter().collect());
    let or = pa.union(&pc).count();
    let with = |q: &str| {
        let mut d = data.clone();
        if let Some(m) = d.as_object_mut() {
            m.insert("question".into(), q.into());
        }
        d
    };
    Ok(vec![
        exercises::document_frequency("q1", &a, with(&a), adf),
        exercises::postings("q2", &b, with(&b), list, options),
        exercises::count(
            "q3",
            format!("How many passages match the Boolean query `{a} AND {c}`?"),
            with(&format!("{a} AND {c}")),
            and,
            vec![format!("postings({a}) ∩ postings({c}): {and} passages")],
            vec![Mistake { name: "OR instead of AND (the union)".into(), value: or as f64 }],
        ),
        exercises::count(
            "q4",
            format!(
                "How many passages does a ranked method score for `{a} {c}` (every passage that holds either term)?"
            ),
            with(&format!("{a} {c}")),
            or,
            vec![format!("postings({a}) ∪ postings({c}): {or} passages")],
            vec![Mistake { name: "AND instead of OR (the intersection)".into(), value: and as f64 }],
        ),
    ])
}

/// The document frequency question's data: the term, N and the passages that hold it.
#[derive(serde::Serialize)]
struct HoldingData<'a> {
    term: &'a str,
    #[serde(rename = "N")]
    n: u64,
    #[serde(rename = "passages holding it")]
    holding: Vec<String>,
}

/// The postings question's data: the term, its df and where each passage holding it stands.
#[derive(serde::Serialize)]
struct PlacesData<'a> {
    term: &'a str,
    df: u64,
    #[serde(rename = "place of each passage holding it in the corpus")]
    places: Ordered<usize>,
}

/// A passage and its terms as the index reads them.
#[derive(serde::Serialize)]
struct PassageTerms {
    id: String,
    terms: String,
}

/// The small corpus of an index assignment, in index order.
#[derive(serde::Serialize)]
struct InIndexOrder {
    #[serde(rename = "passages, in index order")]
    passages: Vec<PassageTerms>,
}
