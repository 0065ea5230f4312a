//! A language model as an extractive reader. For each passage it is asked the question
//! ([`prompts::READ`]) twice:
//!
//! 1. its best span: the reply held to [`Shape::Span`] while it is written, so it can only copy the
//!    passage's words in order, and greedy, so it is the model's likeliest such reply; scored by
//!    ln P(span), the sum of its tokens' log-probabilities under the model's own distribution
//!    (before the grammar masked anything);
//! 2. its no-answer: the reply held to `no answer`, scored the same way.
//!
//! Then the reader's contract decides as for the trained reader: the best span over the passages
//! unless the lowest no-answer score is higher. A chat server cannot be held to a span: it is asked
//! once, its reply taken as a span where it is one of the passage (and as the no-answer where it
//! says `no answer`), and said to be neither otherwise; its score is ln P where the server returns
//! log-probabilities, else none.

use std::sync::Arc;

use super::reading::{GeneratedReading, PassageReading, ReadDetail, Reader, ReaderInfo, ReaderKind, Span};
use crate::Result;
use crate::generate::prompts::{NO_ANSWER, READ};
use crate::generate::shape::locate_span;
use crate::generate::{ChatRequest, Generated, Generator, Shape, TokenChoice};
use crate::progress::{Progress, check_cancel};

/// The request for `question` over one passage.
pub fn read_request(question: &str, passage: &str) -> ChatRequest {
    READ.request(&[("passage", passage.trim()), ("question", question.trim())]).with_logprobs()
}

/// The reader over a generator.
pub struct GeneratorReader {
    generator: Arc<dyn Generator>,
}

impl GeneratorReader {
    /// A reader asking `generator`.
    pub fn new(generator: Arc<dyn Generator>) -> Self {
        Self { generator }
    }
}

fn tokens(g: &Generated) -> Vec<(String, f64)> {
    g.logprobs.iter().map(|TokenChoice { token, logprob }| (token.clone(), *logprob)).collect()
}

/// A reply as the reader reads it: trimmed of the spacing and quotes a model may put around it.
fn cleaned(reply: &str) -> &str {
    reply.trim().trim_matches(|c: char| c == '"' || c == '“' || c == '”' || c == '`').trim()
}

/// Whether a reply says the passage does not answer.
fn says_no_answer(reply: &str) -> bool {
    let r = cleaned(reply).trim_end_matches('.').to_lowercase();
    r == NO_ANSWER || r == "none" || r == "n/a"
}

impl Reader for GeneratorReader {
    fn info(&self) -> ReaderInfo {
        let info = self.generator.info();
        ReaderInfo { kind: ReaderKind::Generator, model: info.label(), note: info.caveat.clone() }
    }

    fn read_passage(
        &self,
        question: &str,
        id: &str,
        rank: usize,
        text: &str,
        progress: &dyn Progress,
    ) -> Result<PassageReading> {
        check_cancel(progress)?;
        let passage = text.trim();
        let offset = text.len() - text.trim_start().len();
        let request = read_request(question, passage);
        let span_request = request.clone().shaped(Shape::Span { passage: passage.to_string() });
        let spanned = self.generator.chat(&span_request, &mut |_| {}, progress)?;
        let mut seconds = spanned.seconds;
        let held = spanned.constrained.is_some();
        let mut reading = GeneratedReading {
            reply: spanned.text.clone(),
            tokens: tokens(&spanned),
            no_answer_tokens: Vec::new(),
            held,
            stored: spanned.stored,
            seconds,
        };
        let mut note = None;
        let (best, no_answer_score) = if held {
            // The reply is a span by construction; its no-answer is asked apart.
            let none = self.generator.chat(
                &request.shaped(Shape::OneOf { words: vec![NO_ANSWER.to_string()] }),
                &mut |_| {},
                progress,
            )?;
            seconds += none.seconds;
            reading.no_answer_tokens = tokens(&none);
            reading.stored &= none.stored;
            let at = locate_span(passage, &spanned.text);
            if at.is_none() {
                note = Some(format!("the held reply {:?} is not a span of the passage", spanned.text));
            }
            let best = at.and_then(|r| Span::at(text, r.start + offset..r.end + offset, spanned.logprob()));
            (best, none.logprob())
        } else if says_no_answer(&spanned.text) {
            (None, spanned.logprob())
        } else {
            let reply = cleaned(&spanned.text);
            let at =
                locate_span(passage, reply).or_else(|| locate_span(passage, reply.trim_end_matches(['.', ',', ';'])));
            if at.is_none() {
                note = Some(format!("the model's reply {reply:?} is not a span of the passage: it is not counted"));
            }
            (at.and_then(|r| Span::at(text, r.start + offset..r.end + offset, spanned.logprob())), None)
        };
        reading.seconds = seconds;
        Ok(PassageReading {
            passage: id.to_string(),
            rank,
            top: best.iter().cloned().collect(),
            best,
            no_answer_score,
            detail: ReadDetail::Generator(reading),
            note,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn replies_are_read_as_no_answer_or_trimmed_spans() {
        assert!(says_no_answer("No answer."));
        assert!(says_no_answer(" \"no answer\" "));
        assert!(!says_no_answer("no answers here"));
        assert_eq!(cleaned(" “Salzburg” "), "Salzburg");
        let r = read_request("Where?", "  Mozart was born in Salzburg.  ");
        assert!(r.logprobs);
        assert!(r.messages.last().unwrap().content.starts_with("Passage: Mozart was born"));
        assert!(r.messages.last().unwrap().content.ends_with("Question: Where?"));
    }
}
