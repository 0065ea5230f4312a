//! Which reader an answers file takes, by its name and first line: SQuAD's JSON (read whole, as a
//! collection, [`super::squad`]), JSON Lines, DPR's `.qa.csv`, or RankLens's TSV
//! ([`super::answers`]).

use std::path::Path;

use super::LoadReport;
use super::answers::{self, AnswerSet};
use crate::{Error, Result};

/// Load an answers file: a SQuAD JSON's questions and answers (its passages are not kept here:
/// load it as a corpus for those), RankLens's TSV, JSON Lines or DPR's `.qa.csv`. Rows that
/// cannot be read are reported in `report`.
pub fn load_answers(path: &Path, report: &mut LoadReport) -> Result<AnswerSet> {
    let bytes = std::fs::read(path).map_err(|e| Error::io(path, e))?;
    report.files += 1;
    let name = path.file_name().map(|n| n.to_string_lossy().to_lowercase()).unwrap_or_default();
    let set = if name.ends_with(".json") {
        let squad = super::squad::parse(&bytes, path)?;
        squad.answers
    } else if name.ends_with(".jsonl") || name.ends_with(".ndjson") {
        answers::load_jsonl(&bytes, path, report)
    } else if name.ends_with(".qa.csv") || answers::looks_like_dpr(&bytes) {
        answers::load_dpr(&bytes, path, report)
    } else {
        answers::load_tsv(&bytes, path, report)?
    };
    if set.questions.is_empty() {
        let first = report.warnings.iter().find(|w| w.file == path).map(|w| format!(" (first problem: {w})"));
        return Err(Error::invalid(
            path.display().to_string(),
            format!("not one question with its answers could be read{}", first.unwrap_or_default()),
        ));
    }
    Ok(set)
}

/// Check a TSV's or JSON Lines' answers against the passages they name: each answer must be a
/// span of its passage's text, and the passage must exist. Each gold span gets its character
/// offset; a problem is a warning naming the question.
pub fn locate_spans(set: &mut AnswerSet, corpus: &super::Corpus, report: &mut LoadReport) {
    let path = set.source.clone();
    for (qid, gold) in &mut set.gold {
        for span in &mut gold.spans {
            if span.start != usize::MAX {
                continue;
            }
            let Some(doc) = corpus.lookup(&span.doc).and_then(|d| corpus.doc(d)) else {
                report.warn(&path, None, format!("question {qid}: no passage {:?} in the corpus", span.doc));
                continue;
            };
            match doc.text.find(&span.text) {
                Some(byte) => span.start = doc.text[..byte].chars().count(),
                None => report.warn(
                    &path,
                    None,
                    format!("question {qid}: the answer {:?} is not in the text of {}", span.text, span.doc),
                ),
            }
        }
        gold.spans.retain(|s| s.start != usize::MAX);
    }
}
