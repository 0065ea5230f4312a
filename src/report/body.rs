//! What a report holds: one question's comparison or a question set's study, stamped with what
//! made it.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

use crate::compare::{Comparison, Study};
use crate::config::Settings;
use crate::eval::Metric;
use crate::retrieve::{Explanation, MethodKind};

/// What makes a report reproducible.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Stamp {
    /// RankLens version that wrote it.
    pub ranklens_version: String,
    /// UTC date and time it was written (ISO 8601).
    pub created: String,
    /// Corpus name.
    pub corpus_name: String,
    /// sha256 over every document (see `Corpus::fingerprint`).
    pub corpus_fingerprint: String,
    /// Where the corpus was loaded from.
    pub corpus_source: Option<String>,
    /// Passages in the corpus.
    pub corpus_size: usize,
    /// The analyzer of the lexical methods.
    pub analyzer: String,
    /// Model id → file → sha256, for every model used.
    pub models: BTreeMap<String, BTreeMap<String, String>>,
    /// Every parameter (k, k1, b, variants, RRF k, fusion weights, filter, methods).
    pub settings: Settings,
}

/// A passage as shown in a report.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct PassageInfo {
    /// External id.
    pub id: String,
    /// Title.
    pub title: String,
    /// Text (cut to a few hundred characters).
    pub snippet: String,
}

/// One method's explanation of one passage.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ExplainedHit {
    /// Method label.
    pub method: String,
    /// Family.
    pub kind: MethodKind,
    /// Passage external id.
    pub passage: String,
    /// Rank in that method's list.
    pub rank: usize,
    /// The explanation.
    pub explanation: Explanation,
}

/// The PCA map in a report.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct MapSection {
    /// (passage id, x, y).
    pub points: Vec<(String, f64, f64)>,
    /// Share of total variance per axis.
    pub variance_share: [f64; 2],
    /// The question's position.
    pub query: Option<[f64; 2]>,
    /// True-cosine nearest passages (id, cosine).
    pub neighbours: Vec<(String, f32)>,
}

/// One question, every method.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ComparisonReport {
    /// Reproducibility stamp.
    pub stamp: Stamp,
    /// The question.
    pub question: String,
    /// Every method's result (documents by internal id; see `passages`).
    pub comparison: Comparison,
    /// Internal id (as text, for JSON) → passage, for every passage the report mentions.
    pub passages: BTreeMap<String, PassageInfo>,
    /// Explanations of each method's top passages.
    pub explanations: Vec<ExplainedHit>,
    /// The map, when a dense model was loaded.
    pub map: Option<MapSection>,
    /// Per-method metrics when the question has judgements.
    pub metrics: Option<BTreeMap<String, BTreeMap<Metric, f64>>>,
    /// The language model's answers to the question, when it was asked: from the RAG prompt and
    /// closed-book, each sentence checked against the prompt's passages.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub answers: Option<AnswersReport>,
    /// A question asked of the tables in words: the statement the model wrote and its rows, or
    /// why it did not run.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub model_sql: Option<ModelSqlReport>,
    /// The graph the language model extracted from the corpus, when there is one.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub model_graph: Option<GraphReport>,
    /// A reader's answer from a column's top passages, when the question was read.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub reading: Option<ReadingReport>,
    /// The corpus's question set with answers read at several k, when it was measured.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub answer_curve: Option<crate::compare::AnswerStudy>,
}

/// One passage as a reader read it, in a report.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ReadPassageRow {
    /// Its rank in the ranking read.
    pub rank: usize,
    /// Its id.
    pub passage: String,
    /// Its best span (none: the reader found none).
    pub span: Option<String>,
    /// The span's score.
    pub score: Option<f64>,
    /// The passage's no-answer score.
    pub no_answer_score: Option<f64>,
}

/// A reader's answer in a report: the answer and the passage it came from, and each passage read.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ReadingReport {
    /// The reader.
    pub reader: String,
    /// What its scores are.
    pub unit: String,
    /// The ranking read.
    pub method: String,
    /// The answer; none when the reader declined.
    pub answer: Option<String>,
    /// The passage it came from.
    pub passage: Option<String>,
    /// Its characters in that passage's text.
    pub chars: Option<(usize, usize)>,
    /// Its score.
    pub score: Option<f64>,
    /// The question's no-answer score.
    pub no_answer_score: Option<f64>,
    /// Each passage read.
    pub passages: Vec<ReadPassageRow>,
}

impl ReadingReport {
    /// The report of a reading.
    pub fn of(r: &crate::read::Readout) -> Self {
        let a = r.decision.answer.as_ref();
        ReadingReport {
            reader: r.reader.label(),
            unit: r.reader.kind.score_unit().to_string(),
            method: r.method.clone(),
            answer: a.map(|a| a.span.text.clone()),
            passage: a.map(|a| a.passage.clone()),
            chars: a.map(|a| (a.span.start, a.span.end)),
            score: a.and_then(|a| a.span.score),
            no_answer_score: r.decision.no_answer_score,
            passages: r
                .passages
                .iter()
                .map(|p| ReadPassageRow {
                    rank: p.rank,
                    passage: p.passage.clone(),
                    span: p.best.as_ref().map(|s| s.text.clone()),
                    score: p.best.as_ref().and_then(|s| s.score),
                    no_answer_score: p.no_answer_score,
                })
                .collect(),
        }
    }
}

/// Text to SQL in a report.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ModelSqlReport {
    /// The question asked in words.
    pub question: String,
    /// The model that wrote the statement.
    pub model: String,
    /// The statement as run.
    pub sql: String,
    /// Its rows, or why it did not run.
    pub outcome: crate::generate::text_to_sql::SqlOutcome,
}

/// The figures of the language model's graph of the corpus.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct GraphReport {
    /// The model that extracted it.
    pub model: String,
    /// Passages read.
    pub passages: usize,
    /// Entities.
    pub entities: usize,
    /// Relations (one per passage that states it).
    pub relations: usize,
    /// Communities of two entities or more.
    pub communities: usize,
    /// Replies that were not the schema's JSON, skipped.
    pub skipped: usize,
    /// Items of the other replies that broke the schema, dropped.
    #[serde(default)]
    pub dropped_items: usize,
    /// Seconds the build took.
    pub seconds: f64,
    /// Against the hand-built knowledge graph, when the corpus has one.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub overlap: Option<crate::graphrag::GraphOverlap>,
    /// The largest communities: their entities and the model's summary.
    pub largest: Vec<(Vec<String>, Option<String>)>,
}

impl GraphReport {
    /// The figures of `graph`, set against `hand` when there is one.
    pub fn of(graph: &crate::graphrag::ModelGraph, hand: Option<&crate::structured::KnowledgeGraph>) -> Self {
        let d = graph.data();
        GraphReport {
            model: d.model.clone(),
            passages: d.passages,
            entities: d.nodes.len(),
            relations: d.edges.len(),
            communities: d.communities.iter().filter(|c| c.members.len() >= 2).count(),
            skipped: d.skipped.len(),
            dropped_items: d.dropped_items,
            seconds: d.seconds,
            overlap: hand.map(|h| crate::graphrag::compare(graph, h)),
            largest: d
                .communities
                .iter()
                .filter(|c| c.members.len() >= 2)
                .take(5)
                .map(|c| {
                    (
                        c.members.iter().filter_map(|&i| d.nodes.get(i)).map(|n| n.name.clone()).collect(),
                        c.summary.clone(),
                    )
                })
                .collect(),
        }
    }
}

/// A language model's two answers to one question, side by side.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct AnswersReport {
    /// The model that wrote them.
    pub model: String,
    /// What a reader should know about its text.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub caveat: Option<String>,
    /// The list the prompt's passages came from.
    pub source: String,
    /// The prompt's passages' ids, numbered from 1.
    pub passages: Vec<String>,
    /// The answer from the RAG prompt, sentence by sentence.
    pub rag: Vec<crate::generate::citations::Grounded>,
    /// The answer with no passages, sentence by sentence (checked against the same passages).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub closed_book: Option<Vec<crate::generate::citations::Grounded>>,
}

/// A question set, every method.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct StudyReport {
    /// Reproducibility stamp.
    pub stamp: Stamp,
    /// The evaluation.
    pub study: Study,
    /// Each method's top 10 per question: method label → qid → (passage, score).
    pub top: BTreeMap<String, BTreeMap<String, Vec<(String, f64)>>>,
    /// The questions by id.
    pub questions: BTreeMap<String, String>,
    /// A second set of judgements measured against the people's (`--judge-qrels`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub validity: Option<crate::eval::Validity>,
    /// The judge's report card (`ranklens judge --stress`, read with `--judge-card`): its JSON
    /// keys `pasted_words`, `injected_instruction`, `stability`, `tau_all`, `tau_top_half`,
    /// `kappa`, `raw_agreement` and `verdict`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub judge_card: Option<crate::compare::judge_stress::StressCard>,
    /// The question set with answers read at several k: answer recall@k and the reader's exact
    /// match and F1 (the k trade-off).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub answers: Option<crate::compare::AnswerStudy>,
}

/// What a report holds.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "type", rename_all = "snake_case")]
pub enum ReportBody {
    /// One question.
    Comparison(Box<ComparisonReport>),
    /// A question set.
    Study(Box<StudyReport>),
}

impl ComparisonReport {
    /// The passage of an internal id.
    pub fn passage(&self, doc: crate::corpus::DocId) -> Option<&PassageInfo> {
        self.passages.get(&doc.0.to_string())
    }
}

impl ReportBody {
    /// The stamp.
    pub fn stamp(&self) -> &Stamp {
        match self {
            ReportBody::Comparison(c) => &c.stamp,
            ReportBody::Study(s) => &s.stamp,
        }
    }
}
