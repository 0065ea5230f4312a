//! Explanations: why a method gave a document its score.
//!
//! An [`Explanation`] is a small serialisable tree (value, formula, children) plus typed facts for
//! plotting. It is always computed by the same code as the score, so its value equals the score
//! `search` gave, and its parts sum to that value.

use serde::{Deserialize, Serialize};

use super::TermTable;

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

/// One window of a listwise reordering: what the model was given and what came back.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ListWindow {
    /// Its first place in the list (0-based).
    pub start: usize,
    /// One past its last place.
    pub end: usize,
    /// The passages as given, in the order so far (ids).
    pub input: Vec<String>,
    /// The passages as the model ordered them, mended; as given when the window kept its order.
    pub output: Vec<String>,
    /// What was mended in the model's order.
    pub repairs: crate::generate::permutation::Repairs,
    /// Why the window kept the order it was given (an empty reply, a refusal, a failure).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub kept: Option<String>,
    /// The model's reply, cut to 300 characters.
    pub reply: String,
    /// Passages of the window holding words meant to steer a model: (id, the words). RankLens acts
    /// on none of them; they are here to see whether the model did.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub instructions: Vec<(String, String)>,
    /// Seconds the model took (when it wrote the reply, for one from the store).
    pub seconds: f64,
    /// What the reply was held to while it was written, when it was (the embedded model's
    /// permutation grammar); `None`: the reply was read as the model wrote it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub constrained: Option<String>,
    /// The reply came from the workspace's store of replies (the model was not asked again).
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub stored: bool,
}

/// The model's order of the whole list when it was given in one order.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ListOrder {
    /// Which order it read (`as ranked`, `reversed`, `shuffled (seed 42)`).
    pub name: String,
    /// Its result, best first (ids).
    pub ids: Vec<String>,
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
    /// A language model's listwise order of a first stage's list.
    Listwise {
        /// The first stage (its label).
        first_stage: String,
        /// The passage's rank there (1-based).
        before: Option<usize>,
        /// Its rank in the model's order.
        after: Option<usize>,
        /// Every window, bottom first.
        windows: Vec<ListWindow>,
        /// Every window's repairs together.
        repairs: crate::generate::permutation::Repairs,
        /// With three orders: each order's result.
        #[serde(default, skip_serializing_if = "Vec::is_empty")]
        orders: Vec<ListOrder>,
        /// With three orders: Kendall τ between each pair of results (a matrix in `orders`' order).
        #[serde(default, skip_serializing_if = "Vec::is_empty")]
        tau: Vec<Vec<f64>>,
    },
    /// A passage an agent read: the steps that returned it and where its answer used it.
    Agent {
        /// Its place in the Agent column (1-based): cited passages first, in the order cited.
        position: Option<usize>,
        /// The number the agent was shown it with.
        n: Option<usize>,
        /// The place of its first citation in the answer (1-based), if cited.
        cited: Option<usize>,
        /// The steps that returned it (their tool, arguments and round).
        steps: Vec<super::agent::AgentStep>,
        /// The whole run's one-line summary.
        summary: String,
    },
    /// GraphRAG local search: the entities of the question's neighbourhood the model extracted
    /// from the passage, each with its weight (they sum to the score).
    GraphLocal {
        /// Each entity's part.
        parts: Vec<crate::graphrag::EntityPart>,
    },
    /// A language model's probability that the passage is relevant.
    Pointwise {
        /// The first stage (its label).
        first_stage: String,
        /// The passage's rank there (1-based).
        before: Option<usize>,
        /// Its rank by the model's probability.
        after: Option<usize>,
        /// P(yes), when it could be read.
        p_yes: Option<f64>,
        /// Where it was read from: `logits` (the embedded model), `logprobs` (a server), `text` (a
        /// server without log-probabilities: yes is 1, no 0), or `unreadable`.
        source: String,
        /// The likeliest first tokens with their log-probabilities.
        #[serde(default, skip_serializing_if = "Vec::is_empty")]
        tokens: Vec<crate::generate::TokenChoice>,
        /// The model's words, when it was asked for them.
        #[serde(default, skip_serializing_if = "String::is_empty")]
        reply: String,
    },
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
    pub window: Option<crate::index::encoded::ScoredWindow>,
    /// Why the score is not a sum of parts, where it is not (a cross-encoder's logit, a run's
    /// score, vectors computed elsewhere, a model that pools its first token).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub unsplit: Option<String>,
}

/// How a score is made of its parts: what the Explain view, the CLI and the tests check.
#[derive(Debug, Clone, PartialEq)]
pub enum ScoreSplit {
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
    pub fn split(&self) -> ScoreSplit {
        if let Some(why) = &self.unsplit {
            return ScoreSplit::Unsplit(why.clone());
        }
        let sum = |parts: Vec<(String, f64)>| ScoreSplit::Sum(parts);
        match &self.detail {
            Detail::Terms(t) => sum(t.rows.iter().map(|r| (r.term.clone(), r.contribution)).collect()),
            Detail::MaxSim { alignments, .. } => {
                sum(alignments.iter().map(|a| (a.query_token.clone(), f64::from(a.similarity))).collect())
            }
            Detail::Fusion { parts } => sum(parts.iter().map(|p| (p.method.clone(), p.contribution)).collect()),
            Detail::GraphLocal { parts } => sum(parts.iter().map(|p| (p.entity.clone(), p.weight)).collect()),
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
                (Some(_), None) => ScoreSplit::Unsplit(format!(
                    "the engine's tree does not add up linearly ({}): the tree is the explanation",
                    d.breakdown.not_a_sum.clone().unwrap_or_default()
                )),
                (None, _) => ScoreSplit::Unsplit("the engine returned no explanation for this hit".into()),
            },
            Detail::Clauses { tree: Some(tree), .. } => ScoreSplit::Clauses(tree.clone()),
            _ if self.value == 0.0 => sum(Vec::new()),
            _ => ScoreSplit::Unsplit("no parts are listed for this score".into()),
        }
    }

    /// Sum of the parts the score splits into (term rows, token maxima or parts, fusion parts,
    /// sparse products, an engine's rows). `None` for a score that is not a sum of parts.
    pub fn parts_sum(&self) -> Option<f64> {
        match self.split() {
            ScoreSplit::Sum(parts) => Some(parts.iter().map(|(_, v)| v).sum()),
            ScoreSplit::Clauses(_) | ScoreSplit::Unsplit(_) => None,
        }
    }
}
