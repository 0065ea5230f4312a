//! Reading a reader's answer against the passages of its prompt: every `[n]` (and every passage
//! named by the id the prompt showed), resolved to its passage or flagged when the prompt had no
//! passage `n`; the answer's sentences, each with the words its cited passages share with it
//! after English analysis (or told that a passage shares none).

use std::collections::BTreeSet;

use serde::{Deserialize, Serialize};

use crate::analysis::{Analyzer, AnalyzerConfig, Preset};

/// One `[n]` of an answer.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Citation {
    /// The number the model wrote.
    pub n: usize,
    /// The passage's id when `n` is one of the prompt's passages.
    pub id: Option<String>,
    /// False when the prompt had no passage `n`: the model cited something it was not given.
    pub in_prompt: bool,
}

/// One sentence of an answer with what it cites.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct CitedSentence {
    /// The sentence as written (citations included).
    pub text: String,
    /// The passage numbers it cites, in order, without repeats.
    pub cites: Vec<usize>,
    /// For each cited passage in the prompt: the sentence's words that the passage also has (after
    /// English analysis: `improves` matches `improved`). Empty means the passage shares no word
    /// with the sentence.
    pub support: Vec<Support>,
}

/// The words a cited passage shares with a sentence.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Support {
    /// The passage number.
    pub n: usize,
    /// The sentence's words found in the passage, in the sentence's order.
    pub words: Vec<String>,
}

/// A reader's answer, read.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct CitedAnswer {
    /// The answer as written.
    pub text: String,
    /// Every distinct number cited, in order of first appearance.
    pub citations: Vec<Citation>,
    /// The answer's sentences.
    pub sentences: Vec<CitedSentence>,
}

impl CitedAnswer {
    /// The citations to passages that were not in the prompt.
    pub fn stray(&self) -> Vec<usize> {
        self.citations.iter().filter(|c| !c.in_prompt).map(|c| c.n).collect()
    }

    /// Sentences that cite a passage of the prompt sharing no word with them.
    pub fn unsupported(&self) -> Vec<(usize, usize)> {
        let mut out = Vec::new();
        for (i, s) in self.sentences.iter().enumerate() {
            for sup in &s.support {
                if sup.words.is_empty() {
                    out.push((i, sup.n));
                }
            }
        }
        out
    }
}

/// The `[n]`, `[n, m]` and `[n-m]` citations in `text` with their byte ranges.
pub fn find_citations(text: &str) -> Vec<(std::ops::Range<usize>, Vec<usize>)> {
    let bytes = text.as_bytes();
    let mut out = Vec::new();
    let mut i = 0;
    while i < bytes.len() {
        if bytes[i] != b'[' {
            i += 1;
            continue;
        }
        let Some(close) = bytes[i + 1..].iter().position(|&b| b == b']').map(|p| i + 1 + p) else { break };
        let inner = &text[i + 1..close];
        let mut numbers = Vec::new();
        let mut ok = !inner.trim().is_empty();
        for part in inner.split([',', ';']) {
            let part = part.trim();
            let range: Vec<&str> = part.splitn(2, ['-', '–']).map(str::trim).collect();
            match range.as_slice() {
                [one] => match one.parse::<usize>() {
                    Ok(n) if n > 0 && one.len() <= 4 => numbers.push(n),
                    _ => ok = false,
                },
                [a, b] => match (a.parse::<usize>(), b.parse::<usize>()) {
                    (Ok(a), Ok(b)) if a > 0 && a <= b && b - a < 20 && b < 10_000 => numbers.extend(a..=b),
                    _ => ok = false,
                },
                _ => ok = false,
            }
        }
        if ok {
            out.push((i..close + 1, numbers));
            i = close + 1;
        } else {
            i += 1;
        }
    }
    out
}

/// Split an answer into sentences: after `.`, `!` or `?` followed by white space, and at line
/// breaks. A piece that holds nothing but citations (`… fast. [2]`) belongs to the sentence before.
fn sentences(text: &str) -> Vec<String> {
    let mut out: Vec<String> = Vec::new();
    let mut current = String::new();
    let mut chars = text.chars().peekable();
    while let Some(c) = chars.next() {
        if c == '\n' {
            push_sentence(&mut out, &mut current);
            continue;
        }
        current.push(c);
        if matches!(c, '.' | '!' | '?') && chars.peek().is_none_or(|n| n.is_whitespace()) {
            push_sentence(&mut out, &mut current);
        }
    }
    push_sentence(&mut out, &mut current);
    out
}

fn push_sentence(out: &mut Vec<String>, current: &mut String) {
    let s = current.trim().to_string();
    current.clear();
    if s.is_empty() {
        return;
    }
    let mut rest = s.clone();
    for (range, _) in find_citations(&s).into_iter().rev() {
        rest.replace_range(range, "");
    }
    let only_citations = rest.trim_matches(|c: char| c.is_whitespace() || c.is_ascii_punctuation()).is_empty();
    match out.last_mut() {
        Some(last) if only_citations => {
            last.push(' ');
            last.push_str(&s);
        }
        _ => out.push(s),
    }
}

/// Read an answer against the passages its prompt held (by number, from 1).
pub fn read_answer(text: &str, passages: &[(String, String)]) -> CitedAnswer {
    let analyzer = Analyzer::new(AnalyzerConfig::preset(Preset::English));
    let passage_terms: Vec<BTreeSet<String>> =
        passages.iter().map(|(_, t)| analyzer.terms(t).into_iter().collect()).collect();
    let mut citations: Vec<Citation> = Vec::new();
    let mut out = Vec::new();
    for s in sentences(text) {
        let found = find_citations(&s);
        let mut cites: Vec<usize> = Vec::new();
        // A passage cited by the id the prompt showed, in parentheses or brackets (`(errors-3)`,
        // `[Errors-3]`), as small models often do, counts as citing its number.
        let lower = s.to_lowercase();
        let by_id = passages
            .iter()
            .enumerate()
            .filter(|(_, (id, _))| {
                let id = id.to_lowercase();
                lower.contains(&format!("({id})")) || lower.contains(&format!("[{id}]"))
            })
            .map(|(i, _)| i + 1);
        let numbers: Vec<usize> = found.iter().flat_map(|(_, ns)| ns.iter().copied()).chain(by_id).collect();
        for n in numbers {
            if !cites.contains(&n) {
                cites.push(n);
            }
            if !citations.iter().any(|c| c.n == n) {
                let id = passages.get(n - 1).map(|(id, _)| id.clone());
                citations.push(Citation { n, in_prompt: id.is_some(), id });
            }
        }
        let mut plain = s.clone();
        for (range, _) in found.into_iter().rev() {
            plain.replace_range(range, " ");
        }
        let tokens = analyzer.tokens(&plain);
        let support = cites
            .iter()
            .filter_map(|&n| {
                let terms = passage_terms.get(n - 1)?;
                let mut words: Vec<String> = Vec::new();
                for t in &tokens {
                    let word = plain[t.offset_from..t.offset_to].to_string();
                    if terms.contains(&t.text) && !words.contains(&word) {
                        words.push(word);
                    }
                }
                Some(Support { n, words })
            })
            .collect();
        out.push(CitedSentence { text: s, cites, support });
    }
    CitedAnswer { text: text.to_string(), citations, sentences: out }
}

/// One sentence of an answer checked against the retrieved passages, whatever it cites: the
/// passage that shares the most of its words (after English analysis) and which words.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Grounded {
    /// The sentence as written.
    pub text: String,
    /// The passage (numbered from 1) sharing the most words with it, when any shares one.
    pub best: Option<usize>,
    /// The sentence's words that passage has, in the sentence's order.
    pub words: Vec<String>,
    /// Whether some passage backs it: it shares at least two of the sentence's terms, or (for a
    /// sentence of fewer than four terms) at least half of them. A sentence that is not is
    /// flagged: nothing retrieved says it.
    pub supported: bool,
}

/// Every sentence of `text` checked against `passages` (numbered from 1): what a closed-book
/// answer and a RAG answer are both read with, so the two can be set side by side.
pub fn ground(text: &str, passages: &[(String, String)]) -> Vec<Grounded> {
    let analyzer = Analyzer::new(AnalyzerConfig::preset(Preset::English));
    let passage_terms: Vec<BTreeSet<String>> =
        passages.iter().map(|(_, t)| analyzer.terms(t).into_iter().collect()).collect();
    sentences(text)
        .into_iter()
        .map(|s| {
            let mut plain = s.clone();
            for (range, _) in find_citations(&s).into_iter().rev() {
                plain.replace_range(range, " ");
            }
            let tokens = analyzer.tokens(&plain);
            let distinct: BTreeSet<&str> = tokens.iter().map(|t| t.text.as_str()).collect();
            let mut best: Option<(usize, Vec<String>, usize)> = None;
            for (i, terms) in passage_terms.iter().enumerate() {
                let mut words: Vec<String> = Vec::new();
                let mut shared: BTreeSet<&str> = BTreeSet::new();
                for t in &tokens {
                    if terms.contains(&t.text) {
                        shared.insert(t.text.as_str());
                        let word = plain[t.offset_from..t.offset_to].to_string();
                        if !words.contains(&word) {
                            words.push(word);
                        }
                    }
                }
                if !shared.is_empty() && best.as_ref().is_none_or(|b| shared.len() > b.2) {
                    best = Some((i + 1, words, shared.len()));
                }
            }
            let shared = best.as_ref().map_or(0, |b| b.2);
            let supported = shared >= 2 || (distinct.len() < 4 && shared * 2 >= distinct.len() && shared > 0);
            let (best, words) = best.map_or((None, Vec::new()), |(n, w, _)| (Some(n), w));
            Grounded { text: s, best, words, supported }
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_sentence_is_checked_against_the_passages_whatever_it_cites() {
        let passages = vec![
            ("errors-3".to_string(), "E140 appears when a file is bigger than the upload limit.".to_string()),
            ("sync-1".to_string(), "Sync pauses while the laptop sleeps.".to_string()),
        ];
        let g = ground(
            "E140 means the file is over the upload limit. Paris is the capital of France. Sync pauses.",
            &passages,
        );
        assert_eq!(g.len(), 3);
        // e140, file, upload, limit shared with passage 1.
        assert_eq!((g[0].best, g[0].supported), (Some(1), true));
        assert_eq!(g[0].words, ["E140", "file", "upload", "limit"]);
        assert_eq!((g[1].best, g[1].supported), (None, false), "nothing retrieved says it");
        // Two terms (sync, paus), both in passage 2.
        assert_eq!((g[2].best, g[2].supported), (Some(2), true));
        assert!(ground("", &passages).is_empty());
    }

    #[test]
    fn citations_are_found_in_their_forms() {
        let c = find_citations("A [1], b [2, 3] and c [4-6]; not [x] or [] or [0].");
        let numbers: Vec<Vec<usize>> = c.iter().map(|(_, n)| n.clone()).collect();
        assert_eq!(numbers, vec![vec![1], vec![2, 3], vec![4, 5, 6]]);
        assert_eq!(&"A [1], b"[c[0].0.clone()], "[1]");
    }

    #[test]
    fn an_answer_is_read_against_its_passages() {
        let passages = vec![
            ("errors-3".to_string(), "E140 appears when a file is bigger than the upload limit.".to_string()),
            ("sync-1".to_string(), "Sync pauses while the laptop sleeps.".to_string()),
        ];
        let a = read_answer(
            "E140 means the file is too big for uploading [1]. It is about the weather [2]. Also [7].\nThe end.",
            &passages,
        );
        assert_eq!(a.sentences.len(), 4);
        assert_eq!(a.sentences[0].cites, vec![1]);
        // "E140", "file" match; "uploading" stems to "upload"; "big" is not "bigger" under Porter.
        assert_eq!(
            a.sentences[0].support,
            vec![Support { n: 1, words: vec!["E140".into(), "file".into(), "uploading".into()] }]
        );
        assert_eq!(a.sentences[1].support, vec![Support { n: 2, words: vec![] }]);
        assert_eq!(a.stray(), vec![7]);
        assert_eq!(a.unsupported(), vec![(1, 2)]);
        assert_eq!(a.citations[0], Citation { n: 1, id: Some("errors-3".into()), in_prompt: true });
        assert_eq!(a.citations[2], Citation { n: 7, id: None, in_prompt: false });
        // A passage named by its id in parentheses, as the prompt shows it, is cited too.
        let c = read_answer("E140 is about the upload limit (errors-3).", &passages);
        assert_eq!(c.sentences[0].cites, vec![1]);
        assert_eq!(c.sentences[0].support[0].words, vec!["E140".to_string(), "upload".into(), "limit".into()]);
        // … or by its id in brackets, in any case.
        assert_eq!(read_answer("See [Errors-3].", &passages).sentences[0].cites, vec![1]);
        // A citation after the full stop stays with its sentence.
        let b = read_answer("Sync pauses in sleep. [2]", &passages);
        assert_eq!(b.sentences.len(), 1);
        assert_eq!(b.sentences[0].cites, vec![2]);
    }

    proptest::proptest! {
        #![proptest_config(proptest::prelude::ProptestConfig::with_cases(crate::proptest_cases()))]

        /// Any answer, read against any passages: no panic; every number cited is listed once, in
        /// the prompt exactly when a passage has that number; each cited passage of the prompt
        /// gets a support entry whose words are words of its sentence.
        #[test]
        fn any_answer_is_read_without_losing_a_citation(
            text in proptest::prop_oneof!["\\PC{0,120}", "([A-Za-z ]{0,12}(\\[[0-9, -]{0,6}\\])?( ?\\(p[0-5]\\))?[.!?\n ]?){0,8}"],
            n_passages in 0usize..5,
        ) {
            let passages: Vec<(String, String)> =
                (0..n_passages).map(|i| (format!("p{i}"), format!("passage {i} about files and sync"))).collect();
            let a = read_answer(&text, &passages);
            let mut seen = std::collections::BTreeSet::new();
            for c in &a.citations {
                proptest::prop_assert!(seen.insert(c.n), "{} listed twice", c.n);
                proptest::prop_assert_eq!(c.in_prompt, c.n >= 1 && c.n <= n_passages);
                proptest::prop_assert_eq!(c.id.clone(), c.in_prompt.then(|| format!("p{}", c.n - 1)));
            }
            let by_id = (1..=n_passages).filter(|n| text.contains(&format!("(p{})", n - 1)));
            let cited: std::collections::BTreeSet<usize> =
                find_citations(&text).into_iter().flat_map(|(_, ns)| ns).chain(by_id).collect();
            proptest::prop_assert_eq!(&seen, &cited, "every citation in the text is read");
            for s in &a.sentences {
                proptest::prop_assert!(!s.text.trim().is_empty());
                for sup in &s.support {
                    proptest::prop_assert!(s.cites.contains(&sup.n));
                    for w in &sup.words {
                        proptest::prop_assert!(s.text.contains(w.as_str()), "{:?} not in {:?}", w, s.text);
                    }
                }
            }
        }

        /// Any answer against any passages: every sentence is checked, its best passage is one of
        /// them, its words are its own, and a sentence that shares two terms is supported.
        #[test]
        fn any_answer_is_grounded_sentence_by_sentence(text in "\\PC{0,160}", n_passages in 0usize..4) {
            let passages: Vec<(String, String)> =
                (0..n_passages).map(|i| (format!("p{i}"), format!("passage {i} about files and sync pauses"))).collect();
            let g = ground(&text, &passages);
            proptest::prop_assert_eq!(g.len(), sentences(&text).len());
            for x in &g {
                proptest::prop_assert!(x.best.is_none_or(|b| b >= 1 && b <= n_passages));
                proptest::prop_assert_eq!(x.best.is_none(), x.words.is_empty());
                for w in &x.words {
                    proptest::prop_assert!(x.text.contains(w.as_str()));
                }
                if x.supported {
                    proptest::prop_assert!(x.best.is_some());
                }
            }
        }

        /// Citations written in any of the forms read back to their numbers, in order.
        #[test]
        fn written_citations_read_back(groups in proptest::collection::vec(proptest::collection::vec(1usize..300, 1..4), 0..6),
                                       filler in "[a-z ]{0,10}") {
            let text: String = groups
                .iter()
                .map(|g| format!("{filler}[{}]", g.iter().map(usize::to_string).collect::<Vec<_>>().join(", ")))
                .collect();
            let read: Vec<Vec<usize>> = find_citations(&text).into_iter().map(|(_, ns)| ns).collect();
            proptest::prop_assert_eq!(read, groups);
        }
    }
}
