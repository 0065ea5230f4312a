//! What RankLens asks a language model, and how it reads the answers: a rewritten question, a
//! hypothetical answer (HyDE), the reader's answer with its citations checked against the passages
//! of the prompt, and a relevance judgement with its agreement with people's (Cohen's κ).
//!
//! Nothing here trusts the model: a rewrite is cleaned to one line and searched beside the original
//! question, a draft is a search aid and never evidence, a citation to a passage that was not in the
//! prompt is flagged, and each cited sentence is shown with the words its passage shares with it
//! (or told that it shares none).

use std::collections::BTreeSet;

use serde::{Deserialize, Serialize};

use super::{ChatRequest, Generator, Message};
use crate::analysis::{Analyzer, AnalyzerConfig, Preset};
use crate::progress::Progress;
use crate::{Error, Result};

/// What the rewrite asks (the system message); one worked example follows as a previous turn,
/// which small models follow far better than an instruction alone.
pub const REWRITE_INSTRUCTION: &str = "You turn questions into short keyword search queries, in the words a document \
     that answers them would use (names, technical terms, synonyms). Reply with the query only, on one line.";

/// What the HyDE draft asks.
pub const HYDE_INSTRUCTION: &str = "Write a short passage, two or three sentences, that answers the question below \
     the way an encyclopedia or a manual would.";

/// The request for a rewritten question.
pub fn rewrite_request(question: &str) -> ChatRequest {
    ChatRequest::new(
        vec![
            Message::system(REWRITE_INSTRUCTION),
            Message::user("why does my phone screen keep getting darker?"),
            Message::assistant("automatic brightness dimming display settings"),
            Message::user(question.trim()),
        ],
        48,
    )
}

/// The model's rewrite cleaned to one line: the first line with text, without a `Query:` label or
/// surrounding quotes. An empty rewrite is an error (the column says the model gave nothing).
pub fn clean_rewrite(text: &str) -> Result<String> {
    let line = text.lines().map(str::trim).find(|l| !l.is_empty()).unwrap_or("");
    let mut line = line;
    for label in ["search query:", "rewritten query:", "rewritten question:", "query:"] {
        if line.len() >= label.len()
            && line.is_char_boundary(label.len())
            && line[..label.len()].eq_ignore_ascii_case(label)
        {
            line = line[label.len()..].trim();
        }
    }
    let line = line.trim_matches(|c: char| c == '"' || c == '\'' || c == '`' || c == '“' || c == '”').trim();
    if line.is_empty() {
        return Err(Error::Unavailable("the model's rewrite was empty".into()));
    }
    Ok(line.to_string())
}

/// The request for a hypothetical answer.
pub fn hyde_request(question: &str) -> ChatRequest {
    ChatRequest::new(
        vec![
            Message::system("You write short reference passages."),
            Message::user(format!("{HYDE_INSTRUCTION}\n\nQuestion: {}", question.trim())),
        ],
        128,
    )
}

/// The draft cleaned: trimmed, and an empty draft is an error.
pub fn clean_draft(text: &str) -> Result<String> {
    let t = text.split_whitespace().collect::<Vec<_>>().join(" ");
    if t.is_empty() {
        return Err(Error::Unavailable("the model's draft was empty".into()));
    }
    Ok(t)
}

/// Ask `generator` to rewrite `question` for search, and clean its reply to one line.
pub fn write_rewrite(generator: &dyn Generator, question: &str, progress: &dyn Progress) -> Result<String> {
    clean_rewrite(&generator.chat(&rewrite_request(question), &mut |_| {}, progress)?.text)
}

/// Ask `generator` for a hypothetical answer to `question` (HyDE's draft), cleaned.
pub fn write_draft(generator: &dyn Generator, question: &str, progress: &dyn Progress) -> Result<String> {
    clean_draft(&generator.chat(&hyde_request(question), &mut |_| {}, progress)?.text)
}

/// Assemble the reader's prompt from (passage id, text) pairs, best first.
pub fn rag_prompt(question: &str, passages: &[(String, String)]) -> String {
    let mut out = String::from(
        "Answer the question using only the numbered passages below. Cite every claim with the passage number in \
         brackets, like [2]. If the passages do not contain the answer, say that you cannot answer from them.\n\n",
    );
    for (i, (id, text)) in passages.iter().enumerate() {
        out.push_str(&format!("[{}] ({id}) {}\n\n", i + 1, text.split_whitespace().collect::<Vec<_>>().join(" ")));
    }
    out.push_str(&format!("Question: {}\nAnswer:", question.trim()));
    out
}

/// The request that sends the reader's prompt.
pub fn rag_request(prompt: &str) -> ChatRequest {
    ChatRequest::new(
        vec![
            Message::system("You answer questions only from the passages you are given, and cite them by number."),
            Message::user(prompt),
        ],
        256,
    )
}

/// The reader's answer to `question` from `passages` (numbered from 1): the prompt sent, the
/// model's text (streamed to `sink` as it is written) and the answer read against the passages.
pub fn answer(
    generator: &dyn Generator,
    question: &str,
    passages: &[(String, String)],
    sink: super::Sink<'_>,
    progress: &dyn Progress,
) -> Result<(String, super::Generated, Answer)> {
    let prompt = rag_prompt(question, passages);
    let generated = generator.chat(&rag_request(&prompt), sink, progress)?;
    let answer = read_answer(&generated.text, passages);
    Ok((prompt, generated, answer))
}

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
pub struct Answer {
    /// The answer as written.
    pub text: String,
    /// Every distinct number cited, in order of first appearance.
    pub citations: Vec<Citation>,
    /// The answer's sentences.
    pub sentences: Vec<CitedSentence>,
}

impl Answer {
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
pub fn read_answer(text: &str, passages: &[(String, String)]) -> Answer {
    let analyzer = Analyzer::new(AnalyzerConfig::preset(Preset::English));
    let passage_terms: Vec<BTreeSet<String>> =
        passages.iter().map(|(_, t)| analyzer.terms(t).into_iter().collect()).collect();
    let mut citations: Vec<Citation> = Vec::new();
    let mut out = Vec::new();
    for s in sentences(text) {
        let found = find_citations(&s);
        let mut cites: Vec<usize> = Vec::new();
        // A passage cited by the id the prompt showed in parentheses (`(errors-3)`), as small
        // models often do, counts as citing its number.
        let by_id =
            passages.iter().enumerate().filter(|(_, (id, _))| s.contains(&format!("({id})"))).map(|(i, _)| i + 1);
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
    Answer { text: text.to_string(), citations, sentences: out }
}

/// The judge's prompt: a system message and a template holding `{question}` and `{passage}`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct JudgePrompt {
    /// The system message.
    pub system: String,
    /// The user message, with `{question}` and `{passage}` where they go.
    pub template: String,
}

impl Default for JudgePrompt {
    fn default() -> Self {
        Self {
            system: "You judge whether a passage is relevant to a search question.".into(),
            template: "Question: {question}\n\nPassage: {passage}\n\nDoes the passage answer the question or give \
                       information that helps answer it? Reply with one word: yes or no."
                .into(),
        }
    }
}

impl JudgePrompt {
    /// Refuse a template that lacks a placeholder.
    pub fn validate(&self) -> Result<()> {
        for p in ["{question}", "{passage}"] {
            if !self.template.contains(p) {
                return Err(Error::invalid("judge prompt", format!("the template has no {p}: put it where it goes")));
            }
        }
        Ok(())
    }

    /// The request judging one passage: the system message, two worked examples as earlier turns
    /// (one relevant, one not: small models follow examples far better than an instruction
    /// alone), then the passage to judge.
    pub fn request(&self, question: &str, passage: &str) -> ChatRequest {
        let fill = |q: &str, p: &str| {
            let p = p.split_whitespace().collect::<Vec<_>>().join(" ");
            self.template.replace("{question}", q.trim()).replace("{passage}", &p)
        };
        ChatRequest::new(
            vec![
                Message::system(self.system.clone()),
                Message::user(fill(
                    "How long does a passport renewal take?",
                    "Passport renewals are processed in six to eight weeks; expedited service takes two to three weeks.",
                )),
                Message::assistant("yes"),
                Message::user(fill(
                    "How long does a passport renewal take?",
                    "The city library opens at nine on weekdays and at ten on Saturdays.",
                )),
                Message::assistant("no"),
                Message::user(fill(question, passage)),
            ],
            3,
        )
    }
}

/// A judge's reply as a grade: `yes`/`relevant` → 1, `no`/`not`/`irrelevant` → 0 (the first word,
/// any case, punctuation ignored); anything else is `None` (shown as unreadable, never guessed).
pub fn read_judgement(text: &str) -> Option<u8> {
    let start = text.trim_start_matches(|c: char| !c.is_alphanumeric());
    let first: String = start.chars().take_while(|c| c.is_alphanumeric()).collect::<String>().to_lowercase();
    match first.as_str() {
        "yes" | "relevant" => Some(1),
        "no" | "not" | "irrelevant" => Some(0),
        _ => None,
    }
}

/// How far two sets of yes/no judgements agree.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Agreement {
    /// Pairs compared.
    pub n: usize,
    /// Both say relevant.
    pub both: usize,
    /// Only the model says relevant.
    pub model_only: usize,
    /// Only the people say relevant.
    pub people_only: usize,
    /// Both say not relevant.
    pub neither: usize,
    /// Share of pairs that agree.
    pub observed: f64,
    /// Agreement expected by chance from each side's rate of "relevant".
    pub expected: f64,
    /// Cohen's κ = (observed − expected) / (1 − expected); `None` when chance agreement is
    /// perfect (every pair judged alike by both sides), where κ is undefined.
    pub kappa: Option<f64>,
}

/// Cohen's κ of (model, people) yes/no pairs.
pub fn agreement(pairs: impl IntoIterator<Item = (bool, bool)>) -> Agreement {
    let (mut both, mut model_only, mut people_only, mut neither) = (0, 0, 0, 0);
    for (m, p) in pairs {
        match (m, p) {
            (true, true) => both += 1,
            (true, false) => model_only += 1,
            (false, true) => people_only += 1,
            (false, false) => neither += 1,
        }
    }
    let n = both + model_only + people_only + neither;
    let nf = n.max(1) as f64;
    let observed = (both + neither) as f64 / nf;
    let model_yes = (both + model_only) as f64 / nf;
    let people_yes = (both + people_only) as f64 / nf;
    let expected = model_yes * people_yes + (1.0 - model_yes) * (1.0 - people_yes);
    let kappa = (n > 0 && expected < 1.0).then(|| (observed - expected) / (1.0 - expected));
    Agreement { n, both, model_only, people_only, neither, observed, expected, kappa }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn kappa_of_a_textbook_table() {
        // Manning, Raghavan & Schütze, Introduction to IR, table 8.2: 400 pairs, 300 both yes,
        // 70 both no, 20 / 10 disagreements. P(A) = 370/400 = 0.925; P(E) = 0.8 × 0.775 + 0.2 × 0.225
        // = 0.665 (the book pools the marginals, 0.7875² + 0.2125², and gets the same 0.665);
        // κ = (0.925 − 0.665) / 0.335 = 0.776.
        let pairs = std::iter::repeat_n((true, true), 300)
            .chain(std::iter::repeat_n((false, false), 70))
            .chain(std::iter::repeat_n((true, false), 20))
            .chain(std::iter::repeat_n((false, true), 10));
        let a = agreement(pairs);
        assert_eq!((a.n, a.both, a.neither, a.model_only, a.people_only), (400, 300, 70, 20, 10));
        assert!((a.observed - 0.925).abs() < 1e-12);
        // model yes 320/400 = 0.8, people yes 310/400 = 0.775.
        assert!((a.expected - (0.8 * 0.775 + 0.2 * 0.225)).abs() < 1e-12);
        assert!((a.kappa.unwrap() - (0.925 - 0.665) / (1.0 - 0.665)).abs() < 1e-9);
        // Everything alike on both sides: κ is undefined, not 1 or NaN.
        assert_eq!(agreement([(true, true), (true, true)]).kappa, None);
        assert_eq!(agreement([(true, false), (false, true)]).kappa, Some(-1.0));
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
        // A citation after the full stop stays with its sentence.
        let b = read_answer("Sync pauses in sleep. [2]", &passages);
        assert_eq!(b.sentences.len(), 1);
        assert_eq!(b.sentences[0].cites, vec![2]);
    }

    #[test]
    fn rewrites_and_judgements_are_cleaned_or_refused() {
        assert_eq!(clean_rewrite("\n  Query: \"sync token expired\"\nmore").unwrap(), "sync token expired");
        assert!(clean_rewrite(" \n ").is_err());
        assert_eq!(read_judgement("Yes."), Some(1));
        assert_eq!(read_judgement("no, it is not"), Some(0));
        assert_eq!(read_judgement("Maybe"), None);
        assert_eq!(read_judgement(""), None);
        assert!(JudgePrompt { system: String::new(), template: "{question}".into() }.validate().is_err());
        let r = JudgePrompt::default().request("Q?", "a\n b");
        assert_eq!(r.messages.len(), 6);
        assert!(r.messages[5].content.contains("Question: Q?\n\nPassage: a b\n"));
        assert_eq!((r.messages[2].content.as_str(), r.messages[4].content.as_str()), ("yes", "no"));
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

        /// A judgement is yes, no or unreadable, whatever the reply; a reply starting with a clear
        /// word is read as that word.
        #[test]
        fn any_reply_is_a_grade_or_unreadable(reply in "\\PC{0,40}", word in proptest::prop_oneof!["yes", "Yes", "YES", "no", "No"],
                                               rest in "([ .,!]\\PC{0,20})?") {
            let g = read_judgement(&reply);
            proptest::prop_assert!(g.is_none() || g == Some(0) || g == Some(1));
            let clear = read_judgement(&format!("{word}{rest}"));
            proptest::prop_assert_eq!(clear, Some(u8::from(word.eq_ignore_ascii_case("yes"))));
            // A rewrite is one non-empty line, or refused.
            if let Ok(line) = clean_rewrite(&reply) {
                proptest::prop_assert!(!line.is_empty() && !line.contains('\n'));
            }
        }
    }
}
