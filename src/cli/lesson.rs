//! `ranklens lesson NAME`: a lesson printed as text, or written as a printable handout (HTML,
//! Markdown), every number computed live; on the bundled sample or on `--corpus` with
//! `--question`.

use std::path::PathBuf;

use anyhow::{Context, bail};
use clap::{Args, ValueEnum};

use super::args::{MethodArg, OutputFormat};
use super::model_args::ModelArgs;
use super::{CorpusArgs, Found};
use crate::classroom::exchange::QuizFormat;
use crate::classroom::handout;
use crate::lessons::{Knob, LessonKit, LessonParams, Open};
use crate::models::ModelManager;
use crate::progress::NoProgress;

/// How a lesson is written.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum LessonFormat {
    /// Plain text on the terminal.
    Text,
    /// A self-contained printable page.
    Html,
    /// Markdown.
    Md,
    /// The checkpoints as a Moodle XML quiz (numerical with tolerances and the usual mistakes as
    /// wrong answers with feedback, multiple choice, ordering).
    Moodle,
    /// The checkpoints as GIFT (Moodle's text format; no ordering questions).
    Gift,
    /// JSON (Page Hunt's try: `rank`, `points`, `par`).
    Json,
}

/// `ranklens lesson`
#[derive(Debug, Args)]
pub struct LessonArgs {
    /// The lesson's id, `atlas`, or `page-hunt` (none: list them with their knobs).
    name: Option<String>,
    /// page-hunt: the question that should bring the passage in (none: show the passage and the
    /// round's rules); `-` reads it from standard input.
    #[arg(value_parser = super::args::text_or_stdin)]
    attempt: Option<String>,
    /// page-hunt: the passage to bring in (its id).
    #[arg(long, value_name = "ID")]
    passage: Option<String>,
    /// page-hunt: draw the passage with this seed instead of naming it.
    #[arg(long, value_name = "N", conflicts_with = "passage")]
    seed: Option<u64>,
    /// page-hunt: the method that ranks the question.
    #[arg(long, value_enum, default_value = "bm25")]
    method: MethodArg,
    /// page-hunt: the round — any, no-shared-word, bm25-not-dense, dense-not-bm25, fewest-words.
    #[arg(long, default_value = "any")]
    round: String,
    /// page-hunt in class: draw each student of this roster (a name a line, or a CSV whose first
    /// column is the name) their five rounds with --seed, and write the key and a sheet per
    /// student to --out DIR.
    #[arg(long, value_name = "ROSTER", conflicts_with_all = ["grade", "passage"], requires = "out")]
    class: Option<PathBuf>,
    /// page-hunt in class: grade the class's questions against this key (the `key.json` --class
    /// wrote), ranking each one.
    #[arg(long, value_name = "KEY", requires = "answers")]
    grade: Option<PathBuf>,
    /// page-hunt in class: the questions handed in (`student,question,answer` CSV with the
    /// round's id, r1 … r5, as the question; or a folder of <student>.json).
    #[arg(long, value_name = "FILE|DIR", requires = "grade")]
    answers: Option<PathBuf>,
    #[command(flatten)]
    models: ModelArgs,
    /// Output: text, html (a printable handout), md, or the checkpoints as a quiz: moodle (Moodle
    /// XML) or gift.
    #[arg(long, value_enum, default_value = "text")]
    format: LessonFormat,
    /// Write to this file instead of the terminal.
    #[arg(long, value_name = "FILE")]
    out: Option<PathBuf>,
    /// Leave the checkpoints' answers out of a handout (a student's copy).
    #[arg(long)]
    no_answers: bool,
    /// BM25 k (bm25 lesson).
    #[arg(long)]
    k: Option<f64>,
    /// BM25 b (bm25 lesson).
    #[arg(long)]
    b: Option<f64>,
    /// The question the lessons run on after their textbook page (default: the sample's).
    #[arg(long)]
    question: Option<String>,
    /// Passages the reader sees (reader lesson).
    #[arg(long)]
    reader_k: Option<usize>,
    /// The corpus the lessons run on after their textbook page (default: the bundled sample).
    #[command(flatten)]
    corpus: CorpusArgs,
}

/// `ranklens lesson`
pub fn lesson(a: LessonArgs) -> anyhow::Result<Found> {
    let Some(name) = a.name else {
        for l in crate::lessons::LESSONS {
            let knobs: Vec<&str> = l.knobs.iter().map(|k| k.label()).collect();
            match knobs.is_empty() {
                true => println!("{:<10} {}", l.id, l.title),
                false => println!("{:<10} {} (knobs: {})", l.id, l.title, knobs.join(", ")),
            }
        }
        println!("{:<10} Methods atlas", "atlas");
        println!("{:<10} Page Hunt: bring a passage in with your own question (--passage, --round)", "page-hunt");
        return Ok(Found::Some);
    };
    let page_hunt_only: [(&str, bool); 3] =
        [("the question", a.attempt.is_some()), ("--passage", a.passage.is_some()), ("--seed", a.seed.is_some())];
    if name == "page-hunt" {
        for (flag, given) in [
            ("--k", a.k.is_some()),
            ("--b", a.b.is_some()),
            ("--reader-k", a.reader_k.is_some()),
            ("--question", a.question.is_some()),
            ("--out", a.out.is_some() && a.class.is_none()),
            ("--no-answers", a.no_answers),
        ] {
            if given {
                bail!(
                    "{flag} is not a knob of page-hunt (it takes --passage or --seed, --method, --round and the question)"
                );
            }
        }
        let format = match a.format {
            LessonFormat::Text => OutputFormat::Table,
            LessonFormat::Json => OutputFormat::Json,
            other => bail!("--format {other:?}: page-hunt prints text or json"),
        };
        if let (Some(roster), Some(out)) = (&a.class, &a.out) {
            return super::page_hunt::draw_class(&a.corpus, roster, out, a.seed.unwrap_or(0), a.method);
        }
        if let (Some(key), Some(answers)) = (&a.grade, &a.answers) {
            return super::page_hunt::grade_class(&a.corpus, &a.models, key, answers, format);
        }
        return super::page_hunt::page_hunt(super::page_hunt::PageHuntArgs {
            corpus: &a.corpus,
            models: &a.models,
            passage: a.passage.as_deref(),
            seed: a.seed,
            method: a.method,
            round: &a.round,
            question: a.attempt.as_deref(),
            format,
        });
    }
    for (what, given) in page_hunt_only {
        if given {
            bail!("{what} is for page-hunt; the {name} lesson takes --question");
        }
    }
    let lesson = if name == "atlas" {
        crate::lessons::atlas_lesson()
    } else {
        let entry = crate::lessons::lesson(&name)?;
        for (flag, knob, given) in [
            ("--k", Knob::Bm25K, a.k.is_some()),
            ("--b", Knob::Bm25B, a.b.is_some()),
            ("--reader-k", Knob::ReaderK, a.reader_k.is_some()),
        ] {
            if given && !entry.knobs.contains(&knob) {
                let carriers: Vec<&str> =
                    crate::lessons::LESSONS.iter().filter(|l| l.knobs.contains(&knob)).map(|l| l.id).collect();
                anyhow::bail!(
                    "{flag} sets {:?}, a knob of the {} lesson; the {name} lesson has no such knob",
                    knob.label(),
                    carriers.join(", ")
                );
            }
        }
        let mut params = LessonParams::default();
        if let Some(k) = a.k {
            params.k = k;
        }
        if let Some(b) = a.b {
            params.b = b;
        }
        if let Some(q) = &a.question {
            params.question = q.clone();
        }
        if let Some(k) = a.reader_k {
            params.reader_k = k;
        }
        let manager = ModelManager::from_env();
        let kit = LessonKit::load(&manager, &NoProgress)?;
        let open = match &a.corpus.corpus {
            Some(_) => {
                let engine = std::sync::Arc::new(a.corpus.workbench(&NoProgress)?);
                let _ = engine.load_model(&manager, crate::models::Role::Dense, false, &NoProgress);
                engine.build_neural(&NoProgress)?;
                Some(Open { workbench: engine, question: params.question.clone() })
            }
            None => None,
        };
        crate::lessons::build(&name, &kit, &params, open.as_ref())?
    };
    let text = match a.format {
        LessonFormat::Text => lesson.to_text(),
        LessonFormat::Html => handout::lesson_html(&lesson, !a.no_answers),
        LessonFormat::Md => handout::lesson_markdown(&lesson, !a.no_answers),
        LessonFormat::Moodle => crate::classroom::exchange::quiz(&lesson, QuizFormat::Moodle)?,
        LessonFormat::Gift => crate::classroom::exchange::quiz(&lesson, QuizFormat::Gift)?,
        LessonFormat::Json => {
            bail!("--format json is for page-hunt; a lesson is written as text, html, md, moodle or gift")
        }
    };
    match &a.out {
        Some(path) => {
            crate::fsutil::write_atomic(path, text).with_context(|| format!("writing {}", path.display()))?;
            eprintln!("wrote {}", path.display());
        }
        None => print!("{text}"),
    }
    Ok(Found::Some)
}
