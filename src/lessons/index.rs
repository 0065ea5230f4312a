//! The inverted index of the sample corpus for the question's terms: the dictionary entry and the
//! postings list of each term, and which passages they make candidates.

use std::collections::BTreeSet;

use super::exercises;
use super::{Lesson, LessonKit, LessonParams, Open};
use crate::Result;
use crate::analysis::AnalyzerConfig;
use crate::progress::NoProgress;

pub fn build(_kit: &LessonKit, _params: &LessonParams, on: &Open) -> Result<Lesson> {
    let mut l = Lesson::new("index", "The inverted index");
    let engine = &on.engine;
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
        let data = serde_json::json!({"term": t, "N": s.n_docs, "passages holding it": holding});
        l.check(exercises::document_frequency("index-df", t, data, df));
    }
    if let Some(&(df, t)) = known.first().filter(|(df, _)| *df <= 8) {
        let postings = index.postings(t)?;
        let list: Vec<String> = postings.iter().map(|(d, _)| corpus.external_id(*d).to_string()).collect();
        let mut shuffled = list.clone();
        shuffled.sort();
        shuffled.reverse();
        let places: serde_json::Map<String, serde_json::Value> =
            postings.iter().map(|(d, _)| (corpus.external_id(*d).to_string(), (d.index() + 1).into())).collect();
        let data = serde_json::json!({"term": t, "df": df, "place of each passage holding it in the corpus": places});
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
