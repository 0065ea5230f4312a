//! The inverted index of the sample corpus for the question's terms: the dictionary entry and the
//! postings list of each term, and which passages they make candidates.

use std::collections::BTreeSet;

use super::{Lesson, LessonKit, LessonParams};
use crate::Result;
use crate::analysis::AnalyzerConfig;
use crate::progress::NoProgress;

pub fn build(kit: &LessonKit, params: &LessonParams) -> Result<Lesson> {
    let mut l = Lesson::new("index", "The inverted index");
    let engine = &kit.sample;
    let analyzer = AnalyzerConfig::default();
    let index = engine.index(analyzer, &NoProgress)?;
    let s = index.stats();
    l.p(format!(
        "The index maps each term to the passages that contain it (its postings), with how often. The `{analyzer}` analyzer turned {} passages into {} terms ({} tokens).",
        s.n_docs, s.vocabulary, s.total_tokens
    ));
    let terms = index.analyzer().terms(&params.question);
    l.p(format!("The question `{}` becomes the terms [{}].", params.question, terms.join(", ")));
    let corpus = engine.corpus();
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
