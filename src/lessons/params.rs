//! What a learner can change in the lessons.

use serde::{Deserialize, Serialize};

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
    /// What answering the mismatch question needs (reasoning expansion).
    #[serde(default = "default_reasoning")]
    pub reasoning: String,
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
            reasoning: default_reasoning(),
            chunk_words: 12,
            chunk_overlap: 4,
            bad_cut_chars: 112,
            er_weights: FieldWeights::default(),
            er_threshold: 3.0,
        }
    }
}

/// m and u probabilities per field: how often a field agrees among true matches (m) and among
/// non-matches (u).
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct FieldWeights {
    /// P(names agree | match).
    pub name_m: f64,
    /// P(names agree | non-match).
    pub name_u: f64,
    /// P(types agree | match).
    pub type_m: f64,
    /// P(types agree | non-match).
    pub type_u: f64,
    /// Jaro–Winkler at or above which two names agree.
    pub name_agree_at: f64,
}

impl Default for FieldWeights {
    fn default() -> Self {
        Self { name_m: 0.95, name_u: 0.05, type_m: 0.98, type_u: 0.30, name_agree_at: 0.88 }
    }
}

fn default_reasoning() -> String {
    "An answer needs the error the app shows when a saved sign-in is no longer accepted: an expired session or sync \
     token, and what the user must do, such as signing in again."
        .into()
}

/// One thing a learner can change on a lesson's page ([`LessonParams`]' fields): a lesson's
/// registry entry lists its knobs, the app draws a control for each, and `ranklens lesson` takes
/// the ones it has flags for only on the lessons that carry them.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Knob {
    /// BM25 k ([`LessonParams::k`]).
    Bm25K,
    /// BM25 b ([`LessonParams::b`]).
    Bm25B,
    /// The idf logarithm's base ([`LessonParams::idf_base`]).
    IdfBase,
    /// Passages the reader sees ([`LessonParams::reader_k`]).
    ReaderK,
    /// The rewritten question ([`LessonParams::rewrite`]).
    Rewrite,
    /// The drafted answer for HyDE ([`LessonParams::draft`]).
    Draft,
    /// What answering needs ([`LessonParams::reasoning`]).
    Reasoning,
    /// Words per window ([`LessonParams::chunk_words`]).
    ChunkWords,
    /// Overlap between windows ([`LessonParams::chunk_overlap`]).
    ChunkOverlap,
    /// Characters per piece of the bad cut ([`LessonParams::bad_cut_chars`]).
    BadCutChars,
    /// The match threshold in bits ([`LessonParams::er_threshold`]).
    ErThreshold,
    /// Jaro–Winkler at or above which names agree ([`FieldWeights::name_agree_at`]).
    NameAgreeAt,
    /// [`FieldWeights::name_m`].
    NameM,
    /// [`FieldWeights::name_u`].
    NameU,
    /// [`FieldWeights::type_m`].
    TypeM,
    /// [`FieldWeights::type_u`].
    TypeU,
}

impl Knob {
    /// Its label beside the control.
    pub fn label(self) -> &'static str {
        match self {
            Knob::Bm25K => "BM25 k",
            Knob::Bm25B => "BM25 b",
            Knob::IdfBase => "idf base",
            Knob::ReaderK => "passages the reader sees (k)",
            Knob::Rewrite => "Rewritten question",
            Knob::Draft => "Drafted answer (HyDE)",
            Knob::Reasoning => "What answering it needs (reasoning)",
            Knob::ChunkWords => "words per window",
            Knob::ChunkOverlap => "overlap",
            Knob::BadCutChars => "characters per bad cut",
            Knob::ErThreshold => "threshold (bits)",
            Knob::NameAgreeAt => "names agree at JW ≥",
            Knob::NameM => "name m",
            Knob::NameU => "name u",
            Knob::TypeM => "type m",
            Knob::TypeU => "type u",
        }
    }

    /// Whether it is a line of text (drawn on a row of its own) rather than a number or a choice.
    pub fn is_text(self) -> bool {
        matches!(self, Knob::Rewrite | Knob::Draft | Knob::Reasoning)
    }
}
