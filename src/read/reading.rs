//! The one contract of every reader, and what a reading is.
//!
//! A [`Reader`] reads one passage for a question at a time and says its best span with its score
//! and its no-answer score ([`PassageReading`]). A question's [`Readout`] reads the top k passages
//! of a ranking, each on its own, and decides ([`decide`]): the system's answer is the best span
//! over every passage read, unless the no-answer score beats it — where the no-answer score of the
//! question is the lowest of the passages' (the readers of `transformers`' examples take the
//! lowest over a long passage's windows the same way: a reader answers when any window, here any
//! passage, is more sure of a span than of nothing). Passages are read independently, so the
//! answer over any subset of them (the top k′ < k, every passage but one) is [`decide`] over that
//! subset: what reading the subset again would give, without reading it again.

use std::ops::Range;

use serde::{Deserialize, Serialize};

use crate::Result;
use crate::models::QaWindow;
use crate::progress::Progress;

/// Which kind of reader.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ReaderKind {
    /// The anchor-and-boundary extractor: the words after the question's last content word. The
    /// toy the lesson shows failing.
    Toy,
    /// A trained extractive model (`…ForQuestionAnswering`): start and end scores per token.
    Span,
    /// A language model held to a verbatim span of the passage, scored by its probability.
    Generator,
}

impl ReaderKind {
    /// Every kind, in the order menus list them.
    pub const ALL: [ReaderKind; 3] = [ReaderKind::Span, ReaderKind::Generator, ReaderKind::Toy];

    /// The name on the command line (`--reader span`).
    pub fn name(self) -> &'static str {
        match self {
            ReaderKind::Toy => "toy",
            ReaderKind::Span => "span",
            ReaderKind::Generator => "generator",
        }
    }

    /// What the app calls it.
    pub fn label(self) -> &'static str {
        match self {
            ReaderKind::Toy => "toy extractor (anchor and boundary)",
            ReaderKind::Span => "trained span reader",
            ReaderKind::Generator => "language model, held to a span",
        }
    }

    /// What its scores are.
    pub fn score_unit(self) -> &'static str {
        match self {
            ReaderKind::Toy => "none (the first passage where it finds an anchor wins)",
            ReaderKind::Span => "S·p′ᵢ + E·p′ⱼ (start score plus end score, logits)",
            ReaderKind::Generator => "ln P(span) under the model (the sum of its tokens' log-probabilities)",
        }
    }
}

impl std::str::FromStr for ReaderKind {
    type Err = crate::Error;
    fn from_str(s: &str) -> Result<Self> {
        match s {
            "toy" | "anchor" => Ok(ReaderKind::Toy),
            "span" | "trained" | "extractive" => Ok(ReaderKind::Span),
            "generator" | "llm" | "model" => Ok(ReaderKind::Generator),
            other => Err(crate::Error::invalid("reader", format!("{other:?}: choose span, generator or toy"))),
        }
    }
}

/// What a reader is, for labels and reports.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ReaderInfo {
    /// Its kind.
    pub kind: ReaderKind,
    /// The model's name (`deepset/minilm-uncased-squad2`, `Qwen2.5-Coder-1.5B-Instruct (…)`), or
    /// the toy's.
    pub model: String,
    /// What a reader of its answers should know (a toy; seeded random weights; a small model).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub note: Option<String>,
}

impl ReaderInfo {
    /// `trained span reader · deepset/minilm-uncased-squad2`.
    pub fn label(&self) -> String {
        format!("{} · {}", self.kind.label(), self.model)
    }
}

/// The trained reader's parts of a span's score.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct SpanParts {
    /// The window the span was read in.
    pub window: usize,
    /// The start token's index in that window.
    pub start_token: usize,
    /// The end token's index.
    pub end_token: usize,
    /// S·p′ of the start token.
    pub start_score: f64,
    /// E·p′ of the end token.
    pub end_score: f64,
}

/// A span of a passage's text a reader proposes.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Span {
    /// Its text: exactly `passage.text[bytes]`.
    pub text: String,
    /// First character, counted in characters of the passage's text.
    pub start: usize,
    /// One past the last character.
    pub end: usize,
    /// Byte range in the passage's text.
    #[serde(skip)]
    pub bytes: Range<usize>,
    /// The reader's score (see [`ReaderKind::score_unit`]); none for the toy, or for a chat
    /// server that gives no log-probabilities.
    pub score: Option<f64>,
    /// The trained reader's start and end scores.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub parts: Option<SpanParts>,
}

impl Span {
    /// The span of `text` at these bytes (character offsets counted here).
    pub fn at(text: &str, bytes: Range<usize>, score: Option<f64>) -> Option<Span> {
        let piece = text.get(bytes.clone())?;
        let start = text.get(..bytes.start)?.chars().count();
        Some(Span { text: piece.to_string(), start, end: start + piece.chars().count(), bytes, score, parts: None })
    }

    /// Its probability, for a generator's log-probability.
    pub fn probability(&self) -> Option<f64> {
        self.score.map(f64::exp)
    }
}

/// What a generator reader was asked and said, for one passage.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct GeneratedReading {
    /// The reply held to a span (or, from a server, as written).
    pub reply: String,
    /// Each token of the reply with its log-probability under the model.
    pub tokens: Vec<(String, f64)>,
    /// The forced "no answer" reply's tokens with theirs (the embedded model only).
    pub no_answer_tokens: Vec<(String, f64)>,
    /// Whether the reply was held to the passage's spans while written (the embedded model); a
    /// chat server's reply is checked afterwards.
    pub held: bool,
    /// The replies came from the workspace's store.
    pub stored: bool,
    /// Seconds the two requests took.
    pub seconds: f64,
}

/// How a reader read one passage, beside its spans.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case", tag = "reader")]
pub enum ReadDetail {
    /// The toy: the anchor word it found, where it found one.
    Toy {
        /// The passage's word matching the question's last content word.
        anchor: Option<String>,
    },
    /// The trained model: every window's tokens with their start and end scores.
    Span {
        /// The windows, in order.
        windows: Vec<QaWindow>,
    },
    /// The language model: its replies.
    Generator(GeneratedReading),
}

/// One passage as a reader read it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct PassageReading {
    /// The passage's id.
    pub passage: String,
    /// Its rank in the ranking it was read from (1 = first).
    pub rank: usize,
    /// The best span, if the reader found any.
    pub best: Option<Span>,
    /// The next best spans (the trained reader's top five, the best first).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub top: Vec<Span>,
    /// The no-answer's score, where the reader has one (the trained reader's `[CLS]` start plus
    /// end; the generator's ln P("no answer")).
    pub no_answer_score: Option<f64>,
    /// What the reader saw.
    #[serde(skip_serializing_if = "is_toy_without_anchor")]
    pub detail: ReadDetail,
    /// Why the reader found nothing to say, where it can tell (a server's reply that is no span).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub note: Option<String>,
}

fn is_toy_without_anchor(d: &ReadDetail) -> bool {
    matches!(d, ReadDetail::Toy { anchor: None })
}

/// The system's answer.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ReaderAnswer {
    /// The passage it came from.
    pub passage: String,
    /// Its rank in the ranking.
    pub rank: usize,
    /// The span.
    pub span: Span,
}

/// The reader's decision over some passages.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Decision {
    /// The answer, or none when the reader declined.
    pub answer: Option<ReaderAnswer>,
    /// The question's no-answer score: the lowest of the passages'.
    pub no_answer_score: Option<f64>,
}

impl Decision {
    /// The answer's text, or `""` when the reader declined (what SQuAD's scripts score).
    pub fn text(&self) -> &str {
        self.answer.as_ref().map_or("", |a| a.span.text.as_str())
    }
}

/// Decide over passages read: the best span over all of them (by score, the higher rank first
/// among equals and before any span with no score), declined when none was found or the lowest
/// no-answer score is above the best span's score. A passage read without a no-answer score (a
/// chat server that replied with a span, a reader trained without one) gave no evidence against
/// answering: the question's no-answer score is then none, and only finding no span declines.
pub fn decide<'a>(passages: impl IntoIterator<Item = &'a PassageReading>) -> Decision {
    let mut best: Option<&PassageReading> = None;
    let mut no_answer: Option<f64> = None;
    let mut every_passage_scored = true;
    for p in passages {
        match p.no_answer_score {
            Some(n) => no_answer = Some(no_answer.map_or(n, |m: f64| m.min(n))),
            None => every_passage_scored = false,
        }
        let Some(span) = &p.best else { continue };
        let better = match best.and_then(|b| b.best.as_ref()) {
            None => true,
            Some(current) => match (span.score, current.score) {
                (Some(s), Some(c)) => s > c || (s == c && p.rank < best.map_or(usize::MAX, |b| b.rank)),
                (Some(_), None) => true,
                (None, Some(_)) => false,
                (None, None) => p.rank < best.map_or(usize::MAX, |b| b.rank),
            },
        };
        if better {
            best = Some(p);
        }
    }
    let no_answer = no_answer.filter(|_| every_passage_scored);
    let answer = best.and_then(|p| {
        let span = p.best.clone()?;
        let beaten = matches!((no_answer, span.score), (Some(n), Some(s)) if n > s);
        (!beaten).then(|| ReaderAnswer { passage: p.passage.clone(), rank: p.rank, span })
    });
    Decision { answer, no_answer_score: no_answer }
}

/// One passage left out of a reading.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct LeftOut {
    /// The passage left out.
    pub passage: String,
    /// Its rank.
    pub rank: usize,
    /// The answer without it.
    pub decision: Decision,
    /// Whether the answer changed.
    pub changed: bool,
    /// Against the gold answers, where the question has them: whether the answer without this
    /// passage is exactly right (SQuAD's normalisation).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub right_without: Option<bool>,
}

/// A question read from the top k passages of one ranking.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Readout {
    /// The question.
    pub question: String,
    /// The reader.
    pub reader: ReaderInfo,
    /// The ranking the passages came from (a column's label).
    pub method: String,
    /// Every passage read, in rank order.
    pub passages: Vec<PassageReading>,
    /// The decision over all of them.
    pub decision: Decision,
    /// Seconds the reading took.
    pub seconds: f64,
}

impl Readout {
    /// Read passages in order and decide.
    pub fn new(question: &str, reader: ReaderInfo, method: &str, passages: Vec<PassageReading>, seconds: f64) -> Self {
        let decision = decide(&passages);
        Self { question: question.to_string(), reader, method: method.to_string(), passages, decision, seconds }
    }

    /// The decision over the first `k` passages read.
    pub fn at_k(&self, k: usize) -> Decision {
        decide(self.passages.iter().take(k))
    }

    /// Each passage left out in turn, and the answer without it; with `gold`, whether that answer
    /// is exactly right.
    pub fn leave_one_out(&self, gold: Option<&[String]>) -> Vec<LeftOut> {
        (0..self.passages.len())
            .map(|i| {
                let decision = decide(self.passages.iter().enumerate().filter(|(j, _)| *j != i).map(|(_, p)| p));
                let changed = decision.answer.as_ref().map(|a| (&a.passage, &a.span.bytes))
                    != self.decision.answer.as_ref().map(|a| (&a.passage, &a.span.bytes));
                let right_without =
                    gold.map(|g| crate::eval::exact_match(g, decision.text(), crate::eval::AnswerRules::V2) == 1.0);
                LeftOut {
                    passage: self.passages[i].passage.clone(),
                    rank: self.passages[i].rank,
                    decision,
                    changed,
                    right_without,
                }
            })
            .collect()
    }
}

/// A reader: one passage at a time, for a question.
pub trait Reader: Send + Sync {
    /// What it is.
    fn info(&self) -> ReaderInfo;

    /// Read one passage (`id` at `rank`) for `question`.
    fn read_passage(
        &self,
        question: &str,
        id: &str,
        rank: usize,
        text: &str,
        progress: &dyn Progress,
    ) -> Result<PassageReading>;
}

/// Read `passages` (id and text, in rank order) for `question`, stopping when `progress` says.
pub fn read(
    reader: &dyn Reader,
    question: &str,
    method: &str,
    passages: &[(String, String)],
    progress: &dyn Progress,
) -> Result<Readout> {
    let started = std::time::Instant::now();
    progress.stage("Reading the passages", passages.len() as u64);
    let mut out = Vec::with_capacity(passages.len());
    for (i, (id, text)) in passages.iter().enumerate() {
        crate::progress::check_cancel(progress)?;
        out.push(reader.read_passage(question, id, i + 1, text, &crate::progress::CancelOnly(progress))?);
        progress.advance(1);
    }
    Ok(Readout::new(question, reader.info(), method, out, started.elapsed().as_secs_f64()))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn passage(
        id: &str,
        rank: usize,
        text: &str,
        span: Option<(&str, Option<f64>)>,
        none: Option<f64>,
    ) -> PassageReading {
        let best = span.map(|(s, score)| {
            let at = text.find(s).unwrap();
            Span::at(text, at..at + s.len(), score).unwrap()
        });
        PassageReading {
            passage: id.into(),
            rank,
            best,
            top: Vec::new(),
            no_answer_score: none,
            detail: ReadDetail::Toy { anchor: None },
            note: None,
        }
    }

    #[test]
    fn the_best_span_wins_unless_the_lowest_no_answer_beats_it() {
        // The documents' trace: d1's best span 9.0 and no-answer 11.0; d2's span 16.2 and
        // no-answer 12.5. The lowest no-answer is 11.0; 16.2 beats it, so d2's span is the answer.
        let d1 = passage("d1", 1, "Mozart wrote operas.", Some(("operas", Some(9.0))), Some(11.0));
        let d2 = passage("d2", 2, "He was born on 27 January 1756.", Some(("27 January 1756", Some(16.2))), Some(12.5));
        let d = decide([&d1, &d2]);
        let a = d.answer.unwrap();
        assert_eq!((a.passage.as_str(), a.span.text.as_str(), a.rank), ("d2", "27 January 1756", 2));
        assert_eq!(d.no_answer_score, Some(11.0));
        // Only d1: its no-answer 11.0 beats its span 9.0, so the reader declines.
        let d = decide([&d1]);
        assert!(d.answer.is_none());
        assert_eq!(d.text(), "");
        // A tie in score goes to the higher-ranked passage.
        let a = passage("a", 2, "x y", Some(("x", Some(3.0))), None);
        let b = passage("b", 1, "z w", Some(("w", Some(3.0))), None);
        assert_eq!(decide([&a, &b]).answer.unwrap().passage, "b");
        // Spans with no score: the first by rank, and a scored span before any of them.
        let c = passage("c", 3, "q", Some(("q", None)), None);
        let e = passage("e", 4, "r", Some(("r", None)), None);
        assert_eq!(decide([&e, &c]).answer.unwrap().passage, "c");
        assert_eq!(decide([&e, &a]).answer.unwrap().passage, "a");
        assert!(decide(std::iter::empty()).answer.is_none());
        // A passage with a span and no no-answer score (a server's span) is not vetoed by another
        // passage's no-answer; a passage that is all no-answer and no span cannot answer.
        let said_span = passage("s", 1, "x y", Some(("y", Some(-2.0))), None);
        let said_none = passage("n", 2, "z", None, Some(-0.1));
        let d = decide([&said_span, &said_none]);
        assert_eq!((d.text(), d.no_answer_score), ("y", None));
        assert_eq!(decide([&said_none]).text(), "");
    }

    #[test]
    fn spans_count_characters_and_bytes_apart() {
        let text = "Größe: 41 symphonies";
        let at = text.find("41").unwrap();
        let s = Span::at(text, at..at + 2, Some(0.0)).unwrap();
        assert_eq!((s.start, s.end, s.bytes.clone()), (7, 9, 9..11));
        assert_eq!(text.chars().skip(s.start).take(s.end - s.start).collect::<String>(), s.text);
        assert!(Span::at(text, 0..3, None).is_none(), "not on a character boundary (inside ö)");
        assert_eq!(Span::at(text, 0..1, Some(-0.5)).unwrap().probability(), Some((-0.5f64).exp()));
    }

    #[test]
    fn leaving_a_passage_out_finds_what_the_answer_depends_on_and_what_pulls_it_away() {
        // d1 holds a distractor that wins; d2 the right answer.
        let d1 = passage("d1", 1, "Leopold Mozart was born in Augsburg.", Some(("Augsburg", Some(12.0))), Some(5.0));
        let d2 = passage("d2", 2, "Wolfgang was born in Salzburg.", Some(("Salzburg", Some(10.0))), Some(6.0));
        let d3 = passage("d3", 3, "Vienna is a city.", Some(("Vienna", Some(2.0))), Some(8.0));
        let info = ReaderInfo { kind: ReaderKind::Span, model: "m".into(), note: None };
        let r = Readout::new("Where was Mozart born?", info, "bm25", vec![d1, d2, d3], 0.0);
        assert_eq!(r.decision.text(), "Augsburg");
        assert_eq!(r.at_k(1).text(), "Augsburg");
        let gold = vec!["Salzburg".to_string()];
        let out = r.leave_one_out(Some(&gold));
        // Without d1 the answer is Salzburg (right): d1 pulled it away.
        assert_eq!((out[0].changed, out[0].decision.text(), out[0].right_without), (true, "Salzburg", Some(true)));
        // Without d2 or d3 nothing changes.
        assert!(!out[1].changed && !out[2].changed);
        assert_eq!(out[1].right_without, Some(false));
    }
}
