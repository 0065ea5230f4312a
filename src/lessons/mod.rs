//! Lessons: worked examples whose every number is computed live by the code that ranks a user's
//! corpus — not canned. Each lesson builds a [`Lesson`] (text, tables, curves) the app draws and
//! `ranklens lesson NAME` prints.

pub mod assignment;
mod atlas;
mod bm25;
pub mod checkpoint;
mod chunking;
mod dense;
mod entities;
pub mod exercises;
mod fusion;
pub mod handout;
mod index;
mod metrics;
mod mismatch;
mod rag;
mod reader;
mod structure;
mod tfidf;

use std::path::PathBuf;
use std::sync::Arc;

use serde::{Deserialize, Serialize};

pub use atlas::{ATLAS, AtlasCard, RunsHere, atlas_lesson};
pub use entities::{FieldWeights, fellegi_sunter, jaro, jaro_winkler};
pub use rag::{best_list, passage_text, passages as rag_passages, rag_prompt};
pub use reader::{ReaderAnswer, extract_answer};

use crate::corpus::{Corpus, LoadOptions};
use crate::engine::Engine;
use crate::models::{BertDenseEncoder, ModelManager, Role};
use crate::progress::Progress;
use crate::{Error, Result};

/// A piece of a lesson.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub enum Block {
    /// A heading.
    Heading(String),
    /// A paragraph.
    Text(String),
    /// A caution.
    Warning(String),
    /// A table.
    Table {
        /// Caption.
        caption: String,
        /// Column names.
        header: Vec<String>,
        /// Rows of cells.
        rows: Vec<Vec<String>>,
    },
    /// Curves for a plot.
    Curves {
        /// Caption.
        caption: String,
        /// x axis label.
        x_label: String,
        /// y axis label.
        y_label: String,
        /// (name, points).
        series: Vec<(String, Vec<[f64; 2]>)>,
        /// Marked points (label, point).
        markers: Vec<(String, [f64; 2])>,
    },
    /// Predict, then reveal: a question answered before what follows it is shown.
    Checkpoint(checkpoint::Checkpoint),
}

/// A lesson ready to draw or print.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Lesson {
    /// Identifier (`tfidf`).
    pub id: String,
    /// Title.
    pub title: String,
    /// Content in order.
    pub blocks: Vec<Block>,
}

impl Lesson {
    fn new(id: &str, title: &str) -> Self {
        Self { id: id.to_string(), title: title.to_string(), blocks: Vec::new() }
    }
    fn h(&mut self, s: impl Into<String>) {
        self.blocks.push(Block::Heading(s.into()));
    }
    fn p(&mut self, s: impl Into<String>) {
        self.blocks.push(Block::Text(s.into()));
    }
    fn warn(&mut self, s: impl Into<String>) {
        self.blocks.push(Block::Warning(s.into()));
    }
    fn check(&mut self, c: checkpoint::Checkpoint) {
        self.blocks.push(Block::Checkpoint(c));
    }

    /// The lesson's checkpoints, in order.
    pub fn checkpoints(&self) -> impl Iterator<Item = &checkpoint::Checkpoint> {
        self.blocks.iter().filter_map(|b| match b {
            Block::Checkpoint(c) => Some(c),
            _ => None,
        })
    }

    fn table(&mut self, caption: &str, header: &[&str], rows: Vec<Vec<String>>) {
        self.blocks.push(Block::Table {
            caption: caption.to_string(),
            header: header.iter().map(|h| h.to_string()).collect(),
            rows,
        });
    }

    /// The lesson as plain text (for the CLI).
    pub fn to_text(&self) -> String {
        let mut out = format!("{}\n{}\n", self.title, "=".repeat(self.title.chars().count()));
        for b in &self.blocks {
            match b {
                Block::Heading(h) => out.push_str(&format!("\n{h}\n{}\n", "-".repeat(h.chars().count()))),
                Block::Text(t) => out.push_str(&format!("{t}\n")),
                Block::Warning(w) => out.push_str(&format!("! {w}\n")),
                Block::Table { caption, header, rows } => {
                    out.push_str(&format!("{caption}\n"));
                    let cols = header.len();
                    let width = |c: usize| {
                        rows.iter()
                            .filter_map(|r| r.get(c))
                            .chain(std::iter::once(&header[c]))
                            .map(|s| s.chars().count())
                            .max()
                            .unwrap_or(0)
                    };
                    let widths: Vec<usize> = (0..cols).map(width).collect();
                    let line = |cells: &[String]| {
                        cells
                            .iter()
                            .enumerate()
                            .map(|(i, c)| format!("{c:<w$}", w = widths.get(i).copied().unwrap_or(0)))
                            .collect::<Vec<_>>()
                            .join("  ")
                    };
                    out.push_str(&format!("  {}\n", line(header).trim_end()));
                    for r in rows {
                        out.push_str(&format!("  {}\n", line(r).trim_end()));
                    }
                }
                Block::Checkpoint(c) => {
                    out.push_str(&format!("\n? [{}] {} ({})\n", c.id, c.prompt, c.tolerance_text()));
                    if !c.options.is_empty() {
                        out.push_str(&format!("  options: {}\n", c.options.join(", ")));
                    }
                    out.push_str(&format!("  answer: {}\n", c.answer.to_text()));
                    for s in &c.steps {
                        out.push_str(&format!("    {s}\n"));
                    }
                }
                Block::Curves { caption, series, markers, .. } => {
                    out.push_str(&format!("{caption}\n"));
                    for (name, pts) in series {
                        let sample: Vec<String> = pts
                            .iter()
                            .step_by((pts.len() / 6).max(1))
                            .map(|p| format!("({:.0}, {:.3})", p[0], p[1]))
                            .collect();
                        out.push_str(&format!("  {name}: {}\n", sample.join(" ")));
                    }
                    for (label, p) in markers {
                        out.push_str(&format!("  marked: {label} at ({:.0}, {:.3})\n", p[0], p[1]));
                    }
                }
            }
        }
        out
    }
}

/// Every lesson: (id, title).
pub const LESSONS: [(&str, &str); 11] = [
    ("tfidf", "Cosine over TF-IDF"),
    ("bm25", "Why BM25 flips tf-idf"),
    ("index", "The inverted index"),
    ("metrics", "Measuring a ranking"),
    ("dense", "Dense scores, down to words"),
    ("reader", "Retrieve then read"),
    ("mismatch", "Vocabulary mismatch, rewriting and HyDE"),
    ("fusion", "Fusion can hurt"),
    ("structure", "Exact lists need structure"),
    ("chunking", "Chunking"),
    ("entities", "Entity resolution"),
];

/// Base of the idf logarithm in the BM25 lesson.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub enum IdfBase {
    /// log10, as the textbook.
    Ten,
    /// ln, as Lucene.
    E,
    /// log2.
    Two,
}

impl IdfBase {
    /// log in this base.
    pub fn log(self, x: f64) -> f64 {
        match self {
            IdfBase::Ten => x.log10(),
            IdfBase::E => x.ln(),
            IdfBase::Two => x.log2(),
        }
    }
    /// Name.
    pub fn name(self) -> &'static str {
        match self {
            IdfBase::Ten => "log10",
            IdfBase::E => "ln",
            IdfBase::Two => "log2",
        }
    }
}

/// What a learner can change in the lessons.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct LessonParams {
    /// BM25 k in the BM25 lesson.
    pub k: f64,
    /// BM25 b in the BM25 lesson.
    pub b: f64,
    /// Base of the idf logarithm.
    pub idf_base: IdfBase,
    /// The question of the inverted-index lesson.
    pub question: String,
    /// How many passages the reader sees.
    pub reader_k: usize,
    /// A rewritten question (vocabulary mismatch).
    pub rewrite: String,
    /// A drafted answer for HyDE.
    pub draft: String,
    /// Words per window in the chunking lesson.
    pub chunk_words: usize,
    /// Overlap between windows.
    pub chunk_overlap: usize,
    /// Characters per piece in the bad cut.
    pub bad_cut_chars: usize,
    /// Fellegi–Sunter field weights.
    pub er_weights: FieldWeights,
    /// Match threshold (in bits).
    pub er_threshold: f64,
}

impl Default for LessonParams {
    fn default() -> Self {
        Self {
            k: 1.2,
            b: 0.75,
            idf_base: IdfBase::Ten,
            question: "sync token expired".into(),
            reader_k: 1,
            rewrite: "sync token expired sign in again".into(),
            draft: "Your sync token has expired, so the app asks you to sign in again on the phone.".into(),
            chunk_words: 12,
            chunk_overlap: 4,
            bad_cut_chars: 112,
            er_weights: FieldWeights::default(),
            er_threshold: 3.0,
        }
    }
}

/// Everything the lessons compute with: the lesson corpora, the sample engine with its models.
pub struct LessonKit {
    /// The Acme Sync sample with its neural indexes (when the models are here).
    pub sample: Arc<Engine>,
    /// The dense model, when it is here.
    pub dense: Option<Arc<BertDenseEncoder>>,
    /// The folder of the lesson corpora.
    pub lessons_dir: PathBuf,
}

impl LessonKit {
    /// Load the lesson corpora and the sample with whatever models are already here (never
    /// downloads: a missing model makes the neural parts say so).
    pub fn load(manager: &ModelManager, progress: &dyn Progress) -> Result<LessonKit> {
        let sample_dir = crate::sample::acme_sync()?;
        let lessons_dir = crate::sample::lessons()?;
        let corpus = crate::corpus::load(&sample_dir, LoadOptions::default())?;
        let mut engine = Engine::new(corpus);
        engine.load_structured(&sample_dir)?;
        for role in [Role::Dense, Role::Splade] {
            let _ = engine.load_model(manager, role, false, progress);
        }
        engine.build_neural(progress)?;
        let dense = engine.neural().dense.map(|d| d.encoder);
        Ok(LessonKit { sample: Arc::new(engine), dense, lessons_dir })
    }

    /// A lesson corpus by name (`isro`, `mozart`, `reader`).
    pub fn corpus(&self, name: &str) -> Result<Corpus> {
        let path = self.lessons_dir.join(format!("{name}.jsonl"));
        let c = crate::corpus::load(&path, LoadOptions::default())?;
        if c.is_empty() {
            return Err(Error::invalid(path.display().to_string(), "the lesson corpus is empty"));
        }
        Ok(c)
    }
}

/// The corpus and question in the question bar: the lessons that run on the open corpus use them
/// after their textbook page.
#[derive(Clone)]
pub struct Open {
    /// The open corpus's engine.
    pub engine: Arc<Engine>,
    /// The question in the bar.
    pub question: String,
}

/// Build a lesson by id, on the open corpus and question when given (else the sample's).
pub fn build(id: &str, kit: &LessonKit, params: &LessonParams, open: Option<&Open>) -> Result<Lesson> {
    let sample = Open { engine: kit.sample.clone(), question: params.question.clone() };
    let on = match open {
        Some(o) if !o.question.trim().is_empty() => o,
        _ => &sample,
    };
    match id {
        "tfidf" => tfidf::build(kit, on),
        "bm25" => bm25::build(kit, params, on),
        "index" => index::build(kit, params, on),
        "metrics" => metrics::build(kit, on),
        "dense" => dense::build(kit, on),
        "reader" => reader::build(kit, params),
        "mismatch" => mismatch::build(kit, params),
        "fusion" => fusion::build(kit, on),
        "structure" => structure::build(kit),
        "chunking" => chunking::build(kit, params),
        "entities" => entities::build(kit, params),
        other => Err(Error::invalid(
            "lesson",
            format!(
                "unknown lesson {other:?}; choose one of {}",
                LESSONS.iter().map(|l| l.0).collect::<Vec<_>>().join(", ")
            ),
        )),
    }
}

pub(crate) fn f4(x: f64) -> String {
    format!("{x:.4}")
}
