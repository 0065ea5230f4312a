//! Explanations: why a method gave a document its score.
//!
//! An [`Explanation`] is a small serialisable tree (value, formula, children) plus typed facts for
//! plotting. It is always computed by the same code as the score, so its value equals the score
//! `search` gave, and its parts sum to that value.

use serde::{Deserialize, Serialize};

/// One query term's part of a lexical score.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct TermRow {
    /// The analysed term.
    pub term: String,
    /// Occurrences in the query.
    pub qtf: u32,
    /// Occurrences in the document.
    pub tf: u32,
    /// Documents containing the term (n).
    pub df: u64,
    /// The term's inverse document frequency under this formula.
    pub idf: f64,
    /// Document length |d| in tokens (as this formula sees it).
    pub dl: f64,
    /// The exact length, where the formula reads another (Lucene's one-byte length norm).
    #[serde(default)]
    pub exact_dl: Option<f64>,
    /// Average document length.
    pub avgdl: f64,
    /// k1 (BM25 only).
    pub k1: Option<f64>,
    /// b (BM25 only).
    pub b: Option<f64>,
    /// The term-frequency factor (BM25's saturation, tf-idf's tf weight).
    pub tf_weight: f64,
    /// The normaliser the product is divided by (cosine norms), when there is one.
    pub norm: Option<f64>,
    /// This term's share of the score.
    pub contribution: f64,
}

impl TermRow {
    /// |d| as the formula reads it, with the exact length beside it where the two differ
    /// (Lucene's one-byte length norm): `112 (exact 118)`.
    pub fn dl_text(&self) -> String {
        match self.exact_dl {
            Some(exact) if exact != self.dl => format!("{} (exact {exact})", self.dl),
            _ => format!("{}", self.dl),
        }
    }
}

/// The lexical facts of an explanation: collection statistics and one row per query term.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct TermTable {
    /// Documents in the collection (N).
    pub n: u64,
    /// Average document length.
    pub avgdl: f64,
    /// Rows in query-term order.
    pub rows: Vec<TermRow>,
    /// The formula that produced the rows.
    #[serde(default)]
    pub model: Option<super::LexicalModel>,
    /// Okapi's mean raw idf over the vocabulary (its floor for negative idf is ε times this).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub okapi_mean_idf: Option<f64>,
}

impl TermTable {
    /// The formula of one row written out with its numbers, line by line — what the formula card
    /// shows and what a student can check on paper. Every line is written by the formula module
    /// from the same functions that scored the row.
    pub fn worked(&self, row: &TermRow) -> Vec<String> {
        use super::{LexicalModel, TfIdfVariant};
        let (n, df, tf, qtf) = (self.n, row.df, row.tf, row.qtf);
        match self.model {
            Some(LexicalModel::Bm25 { variant, params }) => {
                let mut lines = vec![
                    variant.worked_idf(n, df, &params, self.okapi_mean_idf.unwrap_or(0.0)),
                    format!("weight = {}", variant.worked_tf_weight(tf, row.dl, row.avgdl, &params)),
                    format!(
                        "contribution = qtf × idf × weight = {qtf} × {:.4} × {:.4} = {:.4}",
                        row.idf, row.tf_weight, row.contribution
                    ),
                ];
                if let Some(exact) = row.exact_dl.filter(|_| !params.exact_lengths) {
                    lines.push(format!(
                        "as Lucene computes it: |d| = {exact} tokens kept in one byte, read back as {}; in float32, \
                         w = qtf·idf, contribution = w − w/(1 + tf/(k1·(1 − b + b·|d|/avgdl)))",
                        row.dl
                    ));
                }
                lines
            }
            Some(LexicalModel::TfIdf { variant: TfIdfVariant::CosineLog2, .. }) => vec![
                TfIdfVariant::CosineLog2.worked_idf(n, df),
                format!("w(t,d) = tf·idf = {tf} × {:.4} = {:.4}", row.idf, f64::from(tf) * row.idf),
                format!("w(t,q) = qtf·idf = {qtf} × {:.4} = {:.4}", row.idf, f64::from(qtf) * row.idf),
                format!(
                    "contribution = w(t,q)·w(t,d)/(|q|·|d|) = ({:.4} × {:.4}) / {:.4} = {:.4}",
                    f64::from(qtf) * row.idf,
                    f64::from(tf) * row.idf,
                    row.norm.unwrap_or(0.0),
                    row.contribution
                ),
            ],
            Some(LexicalModel::TfIdf { variant: TfIdfVariant::Textbook, normalize }) => {
                let norm =
                    if normalize { format!(" / |d| = … / {:.4}", row.norm.unwrap_or(0.0)) } else { String::new() };
                vec![
                    TfIdfVariant::Textbook.worked_idf(n, df),
                    format!("tf weight = log10(tf + 1) = log10({tf} + 1) = {:.4}", row.tf_weight),
                    format!("contribution = qtf × tf weight × idf{norm} = {:.4}", row.contribution),
                ]
            }
            None => vec![format!("contribution = {:.4}", row.contribution)],
        }
    }
}

/// One clause of a Boolean query and whether the document satisfies it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ClauseMatch {
    /// The clause as written (`mars`, `"red planet"`, `NOT pluto`).
    pub clause: String,
    /// Whether it holds for the document.
    pub satisfied: bool,
}

/// What a Boolean clause is.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ClauseOp {
    /// A word (analysed to one term).
    Term,
    /// Words in a row (or a word the analyzer made several terms of).
    Phrase,
    /// All of the parts.
    And,
    /// Any of the parts.
    Or,
    /// Not the part.
    Not,
}

/// A Boolean query as one document meets it: each node with whether the document satisfies it.
/// The root's `satisfied` is the score (1 or 0); a part the analyzer left nothing of is `None`
/// and drops out of its AND or OR, as it does when the query is run.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ClauseNode {
    /// What the node is.
    pub op: ClauseOp,
    /// A leaf as written with its analysed terms (`expired → expir`); an operator's name.
    pub text: String,
    /// Whether the document satisfies it (`None`: dropped, the analyzer left nothing of it).
    pub satisfied: Option<bool>,
    /// The parts of an AND, OR or NOT.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub children: Vec<ClauseNode>,
}

impl ClauseNode {
    /// The node's truth worked out again from its leaves by Boolean logic alone (what a reader
    /// checks: the root holds exactly when the score is 1).
    pub fn evaluate(&self) -> Option<bool> {
        let parts = || self.children.iter().filter_map(ClauseNode::evaluate);
        match self.op {
            ClauseOp::Term | ClauseOp::Phrase => self.satisfied,
            ClauseOp::And => parts().reduce(|a, b| a && b),
            ClauseOp::Or => parts().reduce(|a, b| a || b),
            ClauseOp::Not => self.children.first().and_then(ClauseNode::evaluate).map(|x| !x),
        }
    }
}

/// One token's part of a dense cosine. For a mean-pooled model the cosine splits exactly over
/// the passage's tokens: with h̄ the mean of its n token states and q the question's unit vector,
/// cos = q·h̄/|h̄| = Σᵢ q·hᵢ / (n·|h̄|).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct TokenPart {
    /// The word piece (`[CLS]` and `[SEP]` included: the mean pools them too).
    pub token: String,
    /// Where it starts in the passage's text (`Doc::full_text`) or the question, in bytes.
    pub start: Option<usize>,
    /// Where it ends.
    pub end: Option<usize>,
    /// Its share of the cosine.
    pub contribution: f64,
}

/// One term shared by a query and a document in a learned sparse representation (SPLADE).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct SparseTermMatch {
    /// Vocabulary term.
    pub term: String,
    /// Weight in the query vector.
    pub query_weight: f32,
    /// Weight in the document vector.
    pub doc_weight: f32,
    /// query_weight × doc_weight.
    pub product: f32,
    /// True when the term does not occur in the query text (the model added it).
    pub query_expansion: bool,
    /// True when the term does not occur in the document text.
    pub doc_expansion: bool,
    /// The query input token that produced the term's query weight (max-pooling argmax).
    pub query_source: Option<String>,
    /// The document input token that produced the term's document weight.
    pub doc_source: Option<String>,
}

/// One query token's best match in a late-interaction (MaxSim) score.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct TokenAlignment {
    /// Query token (word piece).
    pub query_token: String,
    /// Position of the query token.
    pub query_pos: usize,
    /// Best-matching document token.
    pub doc_token: String,
    /// Its position in the document.
    pub doc_pos: usize,
    /// Cosine similarity of the pair: this token's share of the score.
    pub similarity: f32,
}

/// A fused score's parts.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct FusionPart {
    /// Input method label.
    pub method: String,
    /// Rank in that input (1-based), if the document was in it.
    pub rank: Option<usize>,
    /// The input's raw score, if present.
    pub raw_score: Option<f64>,
    /// What the fusion formula made of it.
    pub contribution: f64,
}

/// A search engine's own explanation of a hit: its tree, the term rows read from it, and, where
/// RankLens could score the same document, its own Lucene BM25 beside them.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct EngineDetail {
    /// The engine (as the response's shape tells it).
    pub engine: String,
    /// The explanation tree as the engine gave it.
    pub tree: Option<crate::external::ExplainNode>,
    /// Its term weights and how they add up.
    pub breakdown: crate::external::LuceneBreakdown,
    /// An explanation that could not be read: as it came, and why.
    pub raw: Option<(String, String)>,
    /// Rank features (Vespa), name → value.
    pub features: std::collections::BTreeMap<String, f64>,
    /// The engine's rows beside RankLens's Lucene BM25 for the same document.
    pub comparison: Option<super::Bm25Comparison>,
}

/// Typed facts for drawing an explanation.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, Default)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum Detail {
    /// Nothing beyond the tree.
    #[default]
    None,
    /// Lexical scoring rows (TF-IDF, BM25).
    Terms(TermTable),
    /// Boolean clauses satisfied.
    Clauses {
        /// Each leaf clause.
        clauses: Vec<ClauseMatch>,
        /// The whole query as a tree, each node with whether the document satisfies it.
        #[serde(default)]
        tree: Option<ClauseNode>,
    },
    /// Learned sparse matches.
    Sparse {
        /// Shared terms, largest product first.
        matches: Vec<SparseTermMatch>,
        /// Top query terms (expansions included) with weights, for display.
        query_terms: Vec<(String, f32)>,
    },
    /// Dense cosine.
    Dense {
        /// Cosine between query and document vectors.
        cosine: f32,
        /// Rank of this document among all by cosine (1-based).
        rank_among_all: usize,
        /// Number of documents compared.
        of: usize,
        /// The scoring passage's (window's) tokens, each with its part of the cosine; they sum
        /// to it. Empty where the model's vector is not a mean of token states.
        #[serde(default)]
        tokens: Vec<TokenPart>,
        /// The question's tokens against the passage's vector: cos = Σⱼ qⱼ·d / (m·|q̄|).
        #[serde(default)]
        query_tokens: Vec<TokenPart>,
    },
    /// Late interaction.
    MaxSim {
        /// One row per query token.
        alignments: Vec<TokenAlignment>,
        /// Query tokens (rows of the matrix).
        query_tokens: Vec<String>,
        /// Document tokens (columns).
        doc_tokens: Vec<String>,
        /// Similarity matrix, row-major (query × document).
        matrix: Vec<f32>,
    },
    /// Fusion inputs.
    Fusion {
        /// One part per input method.
        parts: Vec<FusionPart>,
    },
    /// A search engine's explanation.
    Engine(Box<EngineDetail>),
    /// Rerank movement.
    Rerank {
        /// Rank before reranking (1-based).
        before: Option<usize>,
        /// Rank after.
        after: Option<usize>,
    },
}

/// Why a document got its score.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Explanation {
    /// The method and variant (`BM25 (lucene)`).
    pub method: String,
    /// The score; equals what `search` gave.
    pub value: f64,
    /// The formula in symbols and words.
    pub formula: String,
    /// One sentence a student can read: why this value.
    pub summary: String,
    /// The analyzer that produced the terms, for lexical methods.
    pub analyzer: Option<String>,
    /// Sub-explanations (e.g. one per term) whose values sum to `value` where the method is a sum.
    pub children: Vec<Explanation>,
    /// Typed facts for plots.
    pub detail: Detail,
    /// For a document encoded in several windows, the one that gave the score (MaxP).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub window: Option<crate::index::neural::ScoredWindow>,
    /// Why the score is not a sum of parts, where it is not (a cross-encoder's logit, a run's
    /// score, vectors computed elsewhere, a model that pools its first token).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub unsplit: Option<String>,
}

/// How a score is made of its parts: what the Explain view, the CLI and the tests check.
#[derive(Debug, Clone, PartialEq)]
pub enum Split {
    /// The score is the sum of these parts (what each is, its value).
    Sum(Vec<(String, f64)>),
    /// The score is 1 when the clause tree holds for the document, else 0 (Boolean).
    Clauses(ClauseNode),
    /// The score has no parts; why.
    Unsplit(String),
}

impl Explanation {
    /// A leaf explanation.
    pub fn new(method: impl Into<String>, value: f64, formula: impl Into<String>, summary: impl Into<String>) -> Self {
        Self {
            method: method.into(),
            value,
            formula: formula.into(),
            summary: summary.into(),
            analyzer: None,
            children: Vec::new(),
            detail: Detail::None,
            window: None,
            unsplit: None,
        }
    }

    /// Say why this score has no parts.
    pub fn without_split(mut self, why: impl Into<String>) -> Self {
        self.unsplit = Some(why.into());
        self
    }

    /// The parts of the score and how they make it. A score of 0 with nothing listed (a passage
    /// the method did not reach, or one the filter hides) is the empty sum.
    pub fn split(&self) -> Split {
        if let Some(why) = &self.unsplit {
            return Split::Unsplit(why.clone());
        }
        let sum = |parts: Vec<(String, f64)>| Split::Sum(parts);
        match &self.detail {
            Detail::Terms(t) => sum(t.rows.iter().map(|r| (r.term.clone(), r.contribution)).collect()),
            Detail::MaxSim { alignments, .. } => {
                sum(alignments.iter().map(|a| (a.query_token.clone(), f64::from(a.similarity))).collect())
            }
            Detail::Fusion { parts } => sum(parts.iter().map(|p| (p.method.clone(), p.contribution)).collect()),
            Detail::Sparse { matches, .. } => {
                sum(matches.iter().map(|m| (m.term.clone(), f64::from(m.product))).collect())
            }
            Detail::Dense { tokens, .. } if !tokens.is_empty() => {
                sum(tokens.iter().map(|t| (t.token.clone(), t.contribution)).collect())
            }
            Detail::Engine(d) => match (&d.tree, d.breakdown.total()) {
                (Some(_), Some(_)) => {
                    let mut parts: Vec<(String, f64)> = d
                        .breakdown
                        .rows
                        .iter()
                        .filter_map(|r| r.contribution.map(|c| (format!("{}:{}", r.field, r.term), c)))
                        .collect();
                    parts.extend(d.breakdown.other.iter().cloned());
                    sum(parts)
                }
                (Some(_), None) => Split::Unsplit(format!(
                    "the engine's tree does not add up linearly ({}): the tree is the explanation",
                    d.breakdown.not_a_sum.clone().unwrap_or_default()
                )),
                (None, _) => Split::Unsplit("the engine returned no explanation for this hit".into()),
            },
            Detail::Clauses { tree: Some(tree), .. } => Split::Clauses(tree.clone()),
            _ if self.value == 0.0 => sum(Vec::new()),
            _ => Split::Unsplit("no parts are listed for this score".into()),
        }
    }

    /// Sum of the parts the score splits into (term rows, token maxima or parts, fusion parts,
    /// sparse products, an engine's rows). `None` for a score that is not a sum of parts.
    pub fn parts_sum(&self) -> Option<f64> {
        match self.split() {
            Split::Sum(parts) => Some(parts.iter().map(|(_, v)| v).sum()),
            Split::Clauses(_) | Split::Unsplit(_) => None,
        }
    }
}
