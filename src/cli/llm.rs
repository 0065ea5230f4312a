//! `ranklens rewrite` and `ranklens rag`: the commands that ask a language model for text
//! (the embedded one, or a chat server given with --llm).

use std::fmt::Write;

use anyhow::bail;
use clap::Args;
use serde::Serialize;

use super::Found;
use super::args::FormatArg;
use super::args::QuestionArg;
use super::args::{CorpusArgs, MethodArg, OutputFormat, RankArgs};
use super::model_args::ModelArgs;
use super::printer::{Printable, print};
use super::progress::TermProgress;
use crate::generate::tasks::{self};
use crate::progress::NoProgress;
use crate::retrieve::MethodKind;

/// `ranklens rewrite`
#[derive(Debug, Args)]
pub struct RewriteArgs {
    /// Write a hypothetical answer (the HyDE draft) instead of a rewrite.
    #[arg(long)]
    draft: bool,
    #[command(flatten)]
    models: ModelArgs,
    #[command(flatten)]
    format: FormatArg,
    #[command(flatten)]
    question: QuestionArg,
}

#[derive(Debug, Serialize)]
struct RewriteView {
    question: String,
    task: &'static str,
    text: String,
    model: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    caveat: Option<String>,
}

impl Printable for RewriteView {
    fn table(&self) -> String {
        let mut out = format!("{}\n", self.text);
        let _ = write!(out, "({} by {}; a model's guess", self.task, self.model);
        if let Some(c) = &self.caveat {
            let _ = write!(out, ": {c}");
        }
        out.push_str(")\n");
        out
    }
}

/// `ranklens rewrite`
pub fn rewrite(a: RewriteArgs) -> anyhow::Result<Found> {
    let progress = TermProgress::new();
    let generator = a.models.generator(&progress)?;
    drop(progress);
    let text = if a.draft {
        tasks::write_draft(generator.as_ref(), &a.question.text, &NoProgress)?
    } else {
        tasks::write_rewrite(generator.as_ref(), &a.question.text, &NoProgress)?
    };
    let info = generator.info();
    let view = RewriteView {
        question: a.question.text.clone(),
        task: if a.draft { "draft" } else { "rewrite" },
        text,
        model: info.label(),
        caveat: info.caveat.clone(),
    };
    print(&view, a.format.value)?;
    Ok(Found::Some)
}

/// `ranklens rag`
#[derive(Debug, Args)]
pub struct RagArgs {
    #[command(flatten)]
    corpus: CorpusArgs,
    #[command(flatten)]
    rank: RankArgs,
    /// The method whose top passages go into the prompt.
    #[arg(long, value_enum, default_value = "bm25")]
    method: MethodArg,
    /// Passages in the prompt.
    #[arg(short = 'k', long = "top", default_value_t = 5)]
    k: usize,
    /// Also answer with no passages (closed book), and check every sentence of both answers
    /// against the retrieved passages.
    #[arg(long)]
    closed_book: bool,
    #[command(flatten)]
    models: ModelArgs,
    #[command(flatten)]
    format: FormatArg,
    #[command(flatten)]
    question: QuestionArg,
}

#[derive(Debug, Serialize)]
struct CitationView {
    n: usize,
    /// The passage's id; null when the prompt had no passage n.
    id: Option<String>,
    in_prompt: bool,
    #[serde(skip_serializing_if = "Option::is_none")]
    title: Option<String>,
}

#[derive(Debug, Serialize)]
struct RagView {
    question: String,
    answer: String,
    citations: Vec<CitationView>,
    sentences: Vec<crate::generate::citations::CitedSentence>,
    /// Citations to passages the prompt did not hold.
    stray: Vec<usize>,
    prompt: String,
    model: String,
    method: String,
    passages: Vec<String>,
    finish: crate::generate::Finish,
    prompt_tokens: usize,
    completion_tokens: usize,
    seconds: f64,
    /// Each sentence of the answer against every passage of the prompt, whatever it cites.
    grounding: Vec<crate::generate::citations::Grounded>,
    /// With --closed-book: the answer with no passages, each sentence against the same passages.
    #[serde(skip_serializing_if = "Option::is_none")]
    closed_book: Option<ClosedBookView>,
    #[serde(skip)]
    streamed: bool,
}

#[derive(Debug, Serialize)]
struct ClosedBookView {
    answer: String,
    grounding: Vec<crate::generate::citations::Grounded>,
    seconds: f64,
}

/// Sentences no passage backs, as the table says them.
fn unbacked(out: &mut String, what: &str, grounding: &[crate::generate::citations::Grounded]) {
    let n = grounding.iter().filter(|g| !g.supported).count();
    let _ = writeln!(out, "{what}: {n} of {} sentence(s) backed by no retrieved passage", grounding.len());
    for g in grounding.iter().filter(|g| !g.supported) {
        let _ = writeln!(out, "  unbacked: “{}”", g.text);
    }
}

impl Printable for RagView {
    fn table(&self) -> String {
        let mut out = String::new();
        if !self.streamed {
            let _ = writeln!(out, "{}", self.answer);
        }
        let _ = writeln!(out, "\n— {} · passages from {} · {:.1} s", self.model, self.method, self.seconds);
        for c in &self.citations {
            match &c.id {
                Some(id) => {
                    let _ = writeln!(out, "[{}] {id}  {}", c.n, c.title.as_deref().unwrap_or(""));
                }
                None => {
                    let _ = writeln!(out, "[{}] NOT IN THE PROMPT: the model cited a passage it was not given", c.n);
                }
            }
        }
        for s in &self.sentences {
            for sup in &s.support {
                if sup.words.is_empty() {
                    let _ = writeln!(out, "check: “{}” cites [{}], which shares no word with it", s.text, sup.n);
                }
            }
        }
        if self.citations.is_empty() {
            out.push_str("(the answer cites no passage)\n");
        }
        unbacked(&mut out, "with the passages", &self.grounding);
        if let Some(c) = &self.closed_book {
            let _ = writeln!(out, "\nClosed book (no passages), {:.1} s:\n{}", c.seconds, c.answer);
            unbacked(&mut out, "closed book", &c.grounding);
        }
        out
    }
}

/// `ranklens rag`
pub fn rag(a: RagArgs) -> anyhow::Result<Found> {
    if a.k == 0 {
        bail!("-k: put at least one passage in the prompt");
    }
    let settings = a.rank.settings(a.k)?;
    let progress = TermProgress::new();
    let engine = a.corpus.workbench(&progress)?;
    let kind = a.method.kind();
    if !MethodKind::GENERATED.contains(&kind) {
        a.models.prepare(&engine, &[kind], &settings, true, &progress)?;
    }
    let generator = a.models.generator(&progress)?;
    drop(progress);
    let ranking = engine.retriever(kind, &settings)?.search(&engine.query_context(&a.question.text, &settings), a.k)?;
    let passages = crate::compare::rag_passages(engine.corpus(), &ranking, a.k);
    if passages.is_empty() {
        bail!("{} found no passage for the question: nothing to answer from", ranking.method);
    }
    let streamed = a.format.value == OutputFormat::Table;
    let mut sink = |piece: &str| {
        if streamed {
            use std::io::Write as _;
            let mut out = std::io::stdout().lock();
            let _ = out.write_all(piece.as_bytes());
            let _ = out.flush();
        }
    };
    let (prompt, g, answer) = tasks::answer(generator.as_ref(), &a.question.text, &passages, &mut sink, &NoProgress)?;
    if streamed {
        println!();
    }
    let closed_book = if a.closed_book {
        let c = tasks::closed_book(generator.as_ref(), &a.question.text, &mut |_| {}, &NoProgress)?;
        Some(ClosedBookView {
            grounding: crate::generate::citations::ground(&c.text, &passages),
            answer: c.text,
            seconds: c.seconds,
        })
    } else {
        None
    };
    let grounding = crate::generate::citations::ground(&g.text, &passages);
    let title = |id: &str| {
        engine
            .corpus()
            .lookup(id)
            .and_then(|d| engine.corpus().doc(d))
            .map(|d| d.title.clone())
            .filter(|t| !t.is_empty())
    };
    let view = RagView {
        question: a.question.text.clone(),
        answer: answer.text.clone(),
        stray: answer.stray(),
        citations: answer
            .citations
            .iter()
            .map(|c| CitationView {
                n: c.n,
                title: c.id.as_deref().and_then(title),
                id: c.id.clone(),
                in_prompt: c.in_prompt,
            })
            .collect(),
        sentences: answer.sentences.clone(),
        prompt,
        model: generator.info().label(),
        method: ranking.method.clone(),
        passages: passages.iter().map(|(id, _)| id.clone()).collect(),
        finish: g.finish,
        prompt_tokens: g.prompt_tokens,
        completion_tokens: g.completion_tokens,
        seconds: g.seconds,
        grounding,
        closed_book,
        streamed,
    };
    print(&view, a.format.value)?;
    Ok(Found::Some)
}
