//! What RankLens asks a language model, and how it reads the answers: a rewritten question, a
//! hypothetical answer (HyDE), the reader's answer (its citations read in `citations.rs`), and a
//! relevance judgement. The prompts themselves are data, in `prompts.rs`; the agreement of the
//! model's judgements with people's is `eval::agreement`.
//!
//! Nothing here trusts the model: a rewrite is cleaned to one line and searched beside the original
//! question, a draft is a search aid and never evidence, a citation to a passage that was not in the
//! prompt is flagged, and each cited sentence is shown with the words its passage shares with it
//! (or told that it shares none).

use serde::{Deserialize, Serialize};

use super::citations::{CitedAnswer, read_answer};
use super::{ChatRequest, Generator, Message, TokenChoice, prompts};
use crate::progress::Progress;
use crate::{Error, Result};

/// The request for a rewritten question.
pub fn rewrite_request(question: &str) -> ChatRequest {
    prompts::REWRITE.request(&[("question", question.trim())])
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
    prompts::HYDE.request(&[("question", question.trim())])
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

/// The same question answered with no passages, from what the model knows (closed book), its
/// text streamed to `sink`.
pub fn closed_book(
    generator: &dyn Generator,
    question: &str,
    sink: super::Sink<'_>,
    progress: &dyn Progress,
) -> Result<super::Generated> {
    generator.chat(&prompts::CLOSED_BOOK.request(&[("question", question.trim())]), sink, progress)
}

/// Ask `generator` what answering `question` needs (reasoning expansion), cleaned to one paragraph.
pub fn write_reasoning(generator: &dyn Generator, question: &str, progress: &dyn Progress) -> Result<String> {
    let request = prompts::REASON.request(&[("question", question.trim())]);
    clean_draft(&generator.chat(&request, &mut |_| {}, progress)?.text)
        .map_err(|_| Error::Unavailable("the model's reasoning was empty".into()))
}

/// Assemble the reader's prompt from (passage id, text) pairs, best first: each passage numbered
/// with its id beside the number, its text on one line.
pub fn rag_prompt(question: &str, passages: &[(String, String)]) -> String {
    crate::tally::count(crate::tally::Tally::Prompt);
    prompts::RAG.fill(&[("passages", &numbered(passages)), ("question", question.trim())])
}

/// Passages as a prompt lists them: `[n] (id) text`, each followed by a blank line.
pub fn numbered(passages: &[(String, String)]) -> String {
    let mut out = String::new();
    for (i, (id, text)) in passages.iter().enumerate() {
        out.push_str(&format!("[{}] ({id}) {}\n\n", i + 1, text.split_whitespace().collect::<Vec<_>>().join(" ")));
    }
    out
}

/// The request that sends the reader's prompt.
pub fn rag_request(prompt: &str) -> ChatRequest {
    ChatRequest::new(vec![Message::system(prompts::RAG.system), Message::user(prompt)], prompts::RAG.max_tokens)
}

/// The reader's answer to `question` from `passages` (numbered from 1): the prompt sent, the
/// model's text (streamed to `sink` as it is written) and the answer read against the passages.
pub fn answer(
    generator: &dyn Generator,
    question: &str,
    passages: &[(String, String)],
    sink: super::Sink<'_>,
    progress: &dyn Progress,
) -> Result<(String, super::Generated, CitedAnswer)> {
    let prompt = rag_prompt(question, passages);
    let generated = generator.chat(&rag_request(&prompt), sink, progress)?;
    let answer = read_answer(&generated.text, passages);
    Ok((prompt, generated, answer))
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
        Self { system: prompts::JUDGE.system.into(), template: prompts::JUDGE.template.into() }
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

    /// The request judging one passage: the system message, the two worked examples
    /// ([`prompts::JUDGE_EXAMPLES`], one relevant, one not) filled into the template as earlier
    /// turns, then the passage to judge.
    pub fn request(&self, question: &str, passage: &str) -> ChatRequest {
        self.request_with_examples(question, passage, false)
    }

    /// [`Self::request`] with its worked examples in the other order (the one that is not
    /// relevant first): the same question of the same passage, asked a second way, for a judge's
    /// stability.
    pub fn request_examples_swapped(&self, question: &str, passage: &str) -> ChatRequest {
        self.request_with_examples(question, passage, true)
    }

    fn request_with_examples(&self, question: &str, passage: &str, swapped: bool) -> ChatRequest {
        let fill = |q: &str, p: &str| {
            let p = p.split_whitespace().collect::<Vec<_>>().join(" ");
            prompts::fill(&self.template, &[("question", q.trim()), ("passage", &p)])
        };
        let mut messages = vec![Message::system(self.system.clone())];
        let mut examples = prompts::JUDGE_EXAMPLES.to_vec();
        if swapped {
            examples.reverse();
        }
        for (q, p, a) in examples {
            messages.push(Message::user(fill(q, p)));
            messages.push(Message::assistant(a));
        }
        messages.push(Message::user(fill(question, passage)));
        ChatRequest::new(messages, prompts::JUDGE.max_tokens).shaped(super::Shape::OneOf { words: judge_words() })
    }
}

/// What a judge may answer (its reply is held to one of them where the generator can be).
pub fn judge_words() -> Vec<String> {
    vec!["yes".into(), "no".into()]
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

/// P(yes) from the likeliest first tokens of a judge's answer: the probability of the tokens that
/// read as "yes" over that of the tokens reading as "yes" or "no" (`Yes`, ` yes`, `YES` alike;
/// leading space and punctuation ignored). `None` when neither word is among them.
pub fn p_yes(choices: &[super::TokenChoice]) -> Option<f64> {
    let (mut yes, mut no) = (0.0f64, 0.0f64);
    for c in choices {
        let word: String = c.token.trim().trim_matches(|ch: char| !ch.is_alphanumeric()).to_lowercase();
        match word.as_str() {
            "yes" => yes += c.logprob.exp(),
            "no" => no += c.logprob.exp(),
            _ => {}
        }
    }
    (yes + no > 0.0).then(|| yes / (yes + no))
}

/// The first tokens read for P(yes).
pub const TOP_TOKENS: usize = 20;

/// One passage as the model judged it.
#[derive(Debug, Clone, PartialEq)]
pub struct Judged {
    /// P(yes), when it could be read.
    pub p_yes: Option<f64>,
    /// What it was read from.
    pub source: ReadFrom,
    /// The first tokens it was read from (the five likeliest).
    pub tokens: Vec<TokenChoice>,
    /// The model's words, when it was asked for them.
    pub reply: String,
}

/// What a judgement's P(yes) was read from.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ReadFrom {
    /// The embedded model's own logits for the first answer token.
    Logits,
    /// The log-probabilities a server returned for the first answer token.
    Logprobs,
    /// The words of the reply (a server that gives no log-probabilities).
    Text,
    /// Nothing: the reply was neither yes nor no, or the request failed.
    Unreadable,
}

impl ReadFrom {
    /// `logits`, `logprobs`, `text` or `unreadable`: what the explanation and the report say.
    pub fn name(self) -> &'static str {
        match self {
            ReadFrom::Logits => "logits",
            ReadFrom::Logprobs => "logprobs",
            ReadFrom::Text => "text",
            ReadFrom::Unreadable => "unreadable",
        }
    }
}

impl std::fmt::Display for ReadFrom {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.name())
    }
}

/// Judge one passage: P(yes) from the first tokens where the generator gives them, else from its
/// words. A failure of the model is an error; an answer that is neither yes nor no is no P.
pub fn judge_passage(
    generator: &dyn Generator,
    prompt: &JudgePrompt,
    question: &str,
    passage: &str,
    progress: &dyn Progress,
) -> Result<Judged> {
    judge_request(generator, &prompt.request(question, passage), progress)
}

/// Judge with a request made by a [`JudgePrompt`] (as [`judge_passage`] does): P(yes) from the
/// first token where the generator gives its scores, else the reply read as yes or no.
pub fn judge_request(generator: &dyn Generator, request: &ChatRequest, progress: &dyn Progress) -> Result<Judged> {
    if let Some(choices) = generator.first_tokens(request, TOP_TOKENS, progress)? {
        let source =
            if generator.info().place == super::Place::Embedded { ReadFrom::Logits } else { ReadFrom::Logprobs };
        let p = p_yes(&choices);
        return Ok(Judged {
            p_yes: p,
            source: if p.is_some() { source } else { ReadFrom::Unreadable },
            tokens: choices.into_iter().take(5).collect(),
            reply: String::new(),
        });
    }
    let g = generator.chat(request, &mut |_| {}, progress)?;
    let grade = read_judgement(&g.text);
    Ok(Judged {
        p_yes: grade.map(f64::from),
        source: if grade.is_some() { ReadFrom::Text } else { ReadFrom::Unreadable },
        tokens: Vec::new(),
        reply: g.text,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn p_yes_is_the_yes_tokens_share_of_yes_and_no() {
        let c = |t: &str, p: f64| super::super::TokenChoice { token: t.into(), logprob: p.ln() };
        // yes-tokens 0.5 + 0.1, no-tokens 0.2: 0.6 / 0.8 = 0.75; the other token does not count.
        let p = p_yes(&[c("Yes", 0.5), c(" no", 0.2), c(" yes", 0.1), c("Maybe", 0.15)]).unwrap();
        assert!((p - 0.75).abs() < 1e-12, "{p}");
        assert_eq!(p_yes(&[c("The", 0.9)]), None);
        assert_eq!(p_yes(&[c("NO.", 0.3)]), Some(0.0));
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

    /// A generator that replies `reply` to anything and keeps the last request it was sent.
    struct Scripted {
        info: super::super::GeneratorInfo,
        reply: String,
        asked: std::sync::Mutex<Option<ChatRequest>>,
    }

    impl Scripted {
        fn new(reply: &str) -> Self {
            let info = super::super::GeneratorInfo {
                model: "scripted".into(),
                size: None,
                place: super::super::Place::Scripted("test".into()),
                caveat: None,
            };
            Self { info, reply: reply.into(), asked: std::sync::Mutex::new(None) }
        }

        /// The user message of the last request (its last message).
        fn last_user(&self) -> String {
            let asked = self.asked.lock().unwrap();
            asked.as_ref().and_then(|r| r.messages.last()).map(|m| m.content.clone()).unwrap_or_default()
        }
    }

    impl Generator for Scripted {
        fn info(&self) -> &super::super::GeneratorInfo {
            &self.info
        }

        fn chat(
            &self,
            request: &ChatRequest,
            sink: super::super::Sink<'_>,
            _: &dyn Progress,
        ) -> Result<super::super::Generated> {
            *self.asked.lock().unwrap() = Some(request.clone());
            sink(&self.reply);
            Ok(super::super::Generated {
                text: self.reply.clone(),
                model: "scripted".into(),
                finish: super::super::Finish::Stop,
                prompt_tokens: 0,
                completion_tokens: 0,
                seconds: 0.0,
                constrained: None,
                stored: false,
                logprobs: Vec::new(),
            })
        }
    }

    #[test]
    fn each_task_asks_its_prompt_and_cleans_the_reply() {
        let none = crate::progress::NoProgress;
        // A rewrite: the first line with text, label and quotes off; the question sent trimmed.
        let g = Scripted::new("\n Search query: `dimming display`\nsecond line");
        assert_eq!(write_rewrite(&g, "  why so dark?  ", &none).unwrap(), "dimming display");
        assert!(g.last_user().ends_with("why so dark?"), "{}", g.last_user());
        // A draft: its whitespace runs made single spaces; the HyDE template around the question.
        let g = Scripted::new("  Screens dim\n\n when   the sensor  reads dark. ");
        assert_eq!(write_draft(&g, "why so dark?", &none).unwrap(), "Screens dim when the sensor reads dark.");
        assert!(
            g.last_user().starts_with("Write a short passage") && g.last_user().ends_with("Question: why so dark?")
        );
        // Reasoning: cleaned the same way, under its own prompt.
        let g = Scripted::new("It needs\nthe sensor's\tname.");
        assert_eq!(write_reasoning(&g, "why so dark?", &none).unwrap(), "It needs the sensor's name.");
        assert!(g.last_user().starts_with("Before searching"), "{}", g.last_user());
        // Nothing written: each says which text was empty.
        let blank = Scripted::new(" \n\t ");
        let said = |r: Result<String>| r.unwrap_err().to_string();
        assert!(said(write_rewrite(&blank, "q", &none)).contains("rewrite was empty"));
        assert!(said(write_draft(&blank, "q", &none)).contains("draft was empty"));
        assert!(said(write_reasoning(&blank, "q", &none)).contains("reasoning was empty"));
        assert!(said(clean_draft("")).contains("draft was empty"));
        // Closed book streams the model's text and asks the question alone.
        let g = Scripted::new("From memory.");
        let mut streamed = String::new();
        let out = closed_book(&g, " q? ", &mut |t| streamed.push_str(t), &none).unwrap();
        assert_eq!((out.text.as_str(), streamed.as_str()), ("From memory.", "From memory."));
        assert!(g.last_user().contains("q?"));
    }

    #[test]
    fn a_judge_template_needs_both_placeholders() {
        let with = |t: &str| JudgePrompt { system: String::new(), template: t.into() }.validate();
        assert!(with("{question} {passage}").is_ok());
        assert!(with("{passage} then {question}").is_ok());
        assert!(with("{question}").unwrap_err().to_string().contains("no {passage}"));
        assert!(with("{passage}").unwrap_err().to_string().contains("no {question}"));
        assert!(JudgePrompt::default().validate().is_ok());
    }

    proptest::proptest! {
        #![proptest_config(proptest::prelude::ProptestConfig::with_cases(crate::proptest_cases()))]

        /// A judgement is yes, no or unreadable, whatever the reply; a reply starting with a clear
        /// word is read as that word.
        #[test]
        fn any_reply_is_a_grade_or_unreadable(reply in "\\PC{0,40}", word in proptest::prop_oneof!["yes", "Yes", "YES", "no", "No"],
                                               rest in "([ .,!]\\PC{0,20})?") {
            // The reply's first word (its first run of letters and digits), read independently.
            let first = reply.split(|c: char| !c.is_alphanumeric()).find(|w| !w.is_empty()).map(str::to_lowercase);
            let expected = match first.as_deref() {
                Some("yes" | "relevant") => Some(1),
                Some("no" | "not" | "irrelevant") => Some(0),
                _ => None,
            };
            proptest::prop_assert_eq!(read_judgement(&reply), expected, "{:?}", reply);
            let clear = read_judgement(&format!("{word}{rest}"));
            proptest::prop_assert_eq!(clear, Some(u8::from(word.eq_ignore_ascii_case("yes"))));
            // A rewrite is one non-empty line, or refused.
            if let Ok(line) = clean_rewrite(&reply) {
                proptest::prop_assert!(!line.is_empty() && !line.contains('\n'));
            }
        }
    }
}
