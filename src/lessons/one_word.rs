//! "Which one word would bring it in?": a passage the method leaves outside its top k, four of
//! its words, and the one that, added to the question, puts it inside. Each option is ranked by
//! the method's own code (`compare::fixes`), so the key is what running the student's word gives,
//! and the working names the rank every option reaches.

use super::checkpoint::Checkpoint;
use super::exercises;
use crate::Result;
use crate::compare::fixes::{passage_words, ranks_with_each_word};
use crate::config::Settings;
use crate::progress::NoProgress;
use crate::retrieve::MethodKind;
use crate::workbench::Workbench;

/// The checkpoint for `question` under `kind`, or `None` when no passage ranked just below the
/// top `k` has a word that brings it in beside three that do not.
pub(super) fn one_word(
    workbench: &Workbench,
    kind: MethodKind,
    settings: &Settings,
    question: &str,
    k: usize,
    id: &str,
) -> Result<Option<Checkpoint>> {
    let retriever = workbench.retriever(kind, settings)?;
    let hits = retriever.prepare_with(&workbench.query_context(question, settings), &NoProgress)?.search(k + 12)?.hits;
    for hit in hits.iter().skip(k + 2) {
        let words = passage_words(workbench, kind, settings, question, hit.doc, 10);
        let tried = ranks_with_each_word(workbench, kind, settings, question, hit.doc, &words, &NoProgress)?;
        let mut good: Vec<&(String, Option<usize>)> = tried.iter().filter(|(_, r)| r.is_some_and(|r| r <= k)).collect();
        let bad: Vec<&(String, Option<usize>)> = tried.iter().filter(|(_, r)| !r.is_some_and(|r| r <= k)).collect();
        good.sort_by_key(|(_, r)| *r);
        let (Some(right), true) = (good.first(), bad.len() >= 3) else { continue };
        let mut shown: Vec<&(String, Option<usize>)> = vec![right];
        shown.extend(bad.iter().take(3));
        shown.sort_by(|a, b| a.0.cmp(&b.0));
        let corpus = workbench.corpus();
        let passage = corpus.external_id(hit.doc).to_string();
        let text = corpus.doc(hit.doc).map(|d| d.passage_text()).unwrap_or_default();
        let now = hits.iter().position(|h| h.doc == hit.doc).map_or(0, |p| p + 1);
        let options: Vec<&str> = shown.iter().map(|(w, _)| w.as_str()).collect();
        let working = shown
            .iter()
            .map(|(w, r)| match r {
                Some(r) => format!("`{question} {w}` puts {passage} at rank {r}"),
                None => format!("`{question} {w}` leaves {passage} outside the first 1,000"),
            })
            .collect::<Vec<_>>()
            .join("; ");
        return Ok(Some(exercises::choice(
            id,
            format!(
                "{passage} is at rank {now}. Which one of these words, added to the question, brings it into the top {k}?"
            ),
            OneWordData { question, passage: &passage, text: &text, k, rank: now },
            &options,
            &right.0,
            format!("Ranked again with each word: {working}."),
        )));
    }
    Ok(None)
}

/// The one-word question's data: the passage, its text, the top k and its rank now.
#[derive(serde::Serialize)]
struct OneWordData<'a> {
    question: &'a str,
    passage: &'a str,
    text: &'a str,
    k: usize,
    rank: usize,
}
