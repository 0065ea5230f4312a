//! `ranklens lesson NAME`: a lesson printed as text, every number computed live.

use clap::Args;

use super::Found;
use crate::models::ModelManager;
use crate::progress::NoProgress;

/// `ranklens lesson`
#[derive(Debug, Args)]
pub struct LessonArgs {
    /// Lesson: tfidf, bm25, index, reader, mismatch, fusion, structure, chunking, entities (none: list them).
    name: Option<String>,
    /// BM25 k (bm25 lesson).
    #[arg(long)]
    k: Option<f64>,
    /// BM25 b (bm25 lesson).
    #[arg(long)]
    b: Option<f64>,
    /// The question (index lesson).
    #[arg(long)]
    question: Option<String>,
    /// Passages the reader sees (reader lesson).
    #[arg(long)]
    reader_k: Option<usize>,
}

/// `ranklens lesson`
pub fn lesson(a: LessonArgs) -> anyhow::Result<Found> {
    let Some(name) = a.name else {
        for (id, title) in crate::lessons::LESSONS {
            println!("{id:<10} {title}");
        }
        println!("{:<10} Methods atlas", "atlas");
        return Ok(Found::Some);
    };
    if name == "atlas" {
        print!("{}", crate::lessons::atlas_lesson().to_text());
        return Ok(Found::Some);
    }
    let mut params = crate::lessons::LessonParams::default();
    if let Some(k) = a.k {
        params.k = k;
    }
    if let Some(b) = a.b {
        params.b = b;
    }
    if let Some(q) = a.question {
        params.question = q;
    }
    if let Some(k) = a.reader_k {
        params.reader_k = k;
    }
    let kit = crate::lessons::LessonKit::load(&ModelManager::from_env(), &NoProgress)?;
    let lesson = crate::lessons::build(&name, &kit, &params)?;
    print!("{}", lesson.to_text());
    Ok(Found::Some)
}
