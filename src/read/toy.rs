//! The anchor-and-boundary extractor: a toy reader, kept so the lesson can show where it fails.
//! It finds the question's last content word in the passage (by stem) and takes the words after it
//! up to punctuation or a boundary word. It has no scores and no idea of meaning: a question asked
//! in words the passage does not use finds no anchor, and an anchor found in the wrong place
//! gives the wrong words.

use serde::{Deserialize, Serialize};

use super::reading::{PassageReading, ReadDetail, Reader, ReaderInfo, ReaderKind, Span};
use crate::Result;
use crate::analysis::porter_stem;
use crate::progress::Progress;

/// An extracted answer.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Extracted {
    /// The span.
    pub answer: String,
    /// The anchor word found in the passage.
    pub anchor: String,
    /// The span's byte range in the passage.
    pub bytes: std::ops::Range<usize>,
}

const BOUNDARY_WORDS: &[&str] = &[
    "in", "on", "at", "from", "by", "and", "or", "to", "with", "when", "which", "that", "after", "before", "for",
    "while",
];

const QUESTION_WORDS: &[&str] = &[
    "what", "which", "who", "whom", "where", "when", "why", "how", "did", "does", "do", "was", "were", "is", "are",
    "the", "a", "an",
];

fn clean(word: &str) -> String {
    word.trim_matches(|c: char| !c.is_alphanumeric() && c != '-').to_lowercase()
}

/// The passage's words with their byte ranges.
fn words(text: &str) -> Vec<(usize, &str)> {
    let mut out = Vec::new();
    let mut start = None;
    for (i, c) in text.char_indices() {
        match (c.is_whitespace(), start) {
            (true, Some(s)) => {
                out.push((s, &text[s..i]));
                start = None;
            }
            (false, None) => start = Some(i),
            _ => {}
        }
    }
    if let Some(s) = start {
        out.push((s, &text[s..]));
    }
    out
}

/// The anchor-and-boundary extractor: the question's last content word (matched by stem) anchors
/// the answer in the passage; the answer is the words after it, up to punctuation or a boundary
/// word. `where`/`when` questions skip one leading preposition ("born in Salzburg" → Salzburg).
pub fn extract_answer(question: &str, passage: &str) -> Option<Extracted> {
    let content: Vec<String> = question
        .split_whitespace()
        .map(clean)
        .filter(|w| !w.is_empty() && !QUESTION_WORDS.contains(&w.as_str()))
        .collect();
    let words = words(passage);
    let first = question.split_whitespace().next().map(clean).unwrap_or_default();
    for anchor in content.iter().rev() {
        let stem = porter_stem(anchor);
        let Some(pos) = words.iter().position(|(_, w)| porter_stem(&clean(w)) == stem) else { continue };
        if words[pos].1.ends_with([',', '.', ';', ':']) {
            continue;
        }
        let mut i = pos + 1;
        if matches!(first.as_str(), "where" | "when")
            && words.get(i).is_some_and(|(_, w)| BOUNDARY_WORDS.contains(&clean(w).as_str()))
        {
            i += 1;
        }
        let (mut from, mut to) = (None, 0);
        while let Some(&(at, w)) = words.get(i) {
            if BOUNDARY_WORDS.contains(&clean(w).as_str()) {
                break;
            }
            let ends = w.ends_with([',', '.', ';', ':', '!', '?']);
            let kept = w.trim_end_matches([',', '.', ';', ':', '!', '?']);
            if !kept.is_empty() {
                from.get_or_insert(at);
                to = at + kept.len();
            }
            if ends {
                break;
            }
            i += 1;
        }
        if let Some(from) = from {
            return Some(Extracted {
                answer: passage[from..to].to_string(),
                anchor: words[pos].1.to_string(),
                bytes: from..to,
            });
        }
    }
    None
}

/// The toy as a [`Reader`].
pub struct ToyReader;

impl Reader for ToyReader {
    fn info(&self) -> ReaderInfo {
        ReaderInfo {
            kind: ReaderKind::Toy,
            model: "no model".into(),
            note: Some(
                "a toy: the words after the question's last content word; a question in other words defeats it".into(),
            ),
        }
    }

    fn read_passage(
        &self,
        question: &str,
        id: &str,
        rank: usize,
        text: &str,
        _: &dyn Progress,
    ) -> Result<PassageReading> {
        let found = extract_answer(question, text);
        let best = found.as_ref().and_then(|a| Span::at(text, a.bytes.clone(), None));
        Ok(PassageReading {
            passage: id.to_string(),
            rank,
            top: best.iter().cloned().collect(),
            best,
            no_answer_score: None,
            detail: ReadDetail::Toy { anchor: found.map(|a| a.anchor) },
            note: None,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn anchor_and_boundary_by_hand() {
        let r1 = "Mangalyaan, India's first interplanetary mission, reached Mars orbit in 2014 to study the Martian atmosphere.";
        assert_eq!(
            extract_answer("What did Mangalyaan study?", r1).map(|a| a.answer),
            Some("the Martian atmosphere".into())
        );
        let m1 = "Wolfgang Amadeus Mozart was born in Salzburg in 1756, the son of the violinist Leopold Mozart.";
        let a = extract_answer("Where was Mozart born?", m1).unwrap();
        assert_eq!((a.answer.as_str(), a.anchor.as_str()), ("Salzburg", "born"));
        assert_eq!(&m1[a.bytes.clone()], "Salzburg");
        assert_eq!(extract_answer("What did Mangalyaan study?", "Nothing relevant here."), None);
        // A paraphrase shares no word with the passage: no anchor, no answer.
        assert_eq!(extract_answer("What is Wolfgang's birthplace?", "Mozart was born in Salzburg."), None);
    }

    #[test]
    fn the_toy_reads_a_passage_into_the_contract() {
        let text = "Cached results stay valid for 15 minutes, then are replaced.";
        let r = ToyReader
            .read_passage("How long do cached results stay valid?", "c1", 1, text, &crate::progress::NoProgress)
            .unwrap();
        let best = r.best.unwrap();
        // "valid" is followed by the boundary word "for": nothing after it, so the toy falls back to
        // the previous content word, "stay", and answers the word after it — wrong, as toys are.
        assert_eq!(best.text, "valid");
        assert_eq!(&text[best.bytes.clone()], best.text);
        assert_eq!(best.score, None);
        assert_eq!(r.no_answer_score, None);
    }
}
