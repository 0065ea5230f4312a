//! Retrievers: every method behind one contract.
//!
//! A retriever prepares a question once ([`Retriever::prepare`]) into a [`Prepared`] state, and
//! both the ranking ([`Prepared::search`]) and every explanation ([`Prepared::explain`]) are read
//! from it, so an explanation's value is the score the ranking showed and the parts it lists sum to
//! it. Explaining a document the method did not retrieve works too: the value is 0 and the summary
//! says why.

pub mod agent;
mod bm25_comparison;
mod boolean;
pub mod dense;
mod explanation;
pub mod fusion;
pub mod generated;
pub mod graph_local;
pub mod late;
mod lexical;
pub mod listwise;
mod model_rerank;
pub mod pointwise;
pub mod provisional;
mod query;
mod rerank;
mod run;
pub mod search_engine;
mod splade;
mod tantivy_bm25;
mod term_table;
pub mod vectors;

use std::fmt;
use std::sync::Arc;

use serde::{Deserialize, Serialize};

pub use crate::formula::{Bm25Params, Bm25Variant, LexicalModel, TfIdfVariant, fmt_param};
pub use agent::AgentRetriever;
pub use bm25_comparison::{Bm25Comparison, Difference, TermPair};
pub use boolean::{BooleanQuery, BooleanRetriever};
pub use dense::DenseRetriever;
pub use explanation::{
    ClauseMatch, ClauseNode, ClauseOp, Detail, EngineDetail, Explanation, FusionPart, ListOrder, ListWindow,
    ScoreSplit, SparseTermMatch, TokenAlignment, TokenPart,
};
pub use fusion::{FusionMethod, FusionRetriever, FusionSettings};
pub use generated::{GeneratedRetriever, GeneratedSearch};
pub use graph_local::GraphLocalRetriever;
pub use late::LateInteractionRetriever;
pub use lexical::LexicalRetriever;
pub use listwise::ListwiseRetriever;
pub use model_rerank::ModelRerank;
pub use pointwise::PointwiseRetriever;
pub use provisional::{PROVISIONAL_DEPTH, ProvisionalRetriever};
pub use query::{DocFilter, QueryContext};
pub use rerank::RerankRetriever;
pub use run::RunRetriever;
pub use search_engine::EngineRetriever;
pub use splade::SpladeRetriever;
pub use tantivy_bm25::TantivyBm25;
pub use term_table::{TermRow, TermTable};

use crate::Result;
use crate::corpus::DocId;

/// The families of methods RankLens compares.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum MethodKind {
    /// Exact set logic over terms.
    Boolean,
    /// Vector-space tf-idf.
    TfIdf,
    /// Probabilistic BM25 family.
    Bm25,
    /// Learned sparse (SPLADE).
    Splade,
    /// Dense bi-encoder.
    Dense,
    /// Late interaction (MaxSim).
    LateInteraction,
    /// Rank fusion of several lists.
    Fusion,
    /// Cross-encoder reranking.
    Rerank,
    /// Rows from a SQL table.
    Sql,
    /// Bindings from a knowledge graph.
    Graph,
    /// A ranking another system produced, read from a run file.
    Run,
    /// A search engine's hits, saved or asked live, with its own explanations.
    Engine,
    /// A dense ranking from vectors computed elsewhere, read from files.
    Vectors,
    /// BM25 over a language model's rewrite of the question, fused with BM25 over the question.
    Rewrite,
    /// Search with a language model's hypothetical answer (HyDE proper): the dense model over the
    /// draft.
    Hyde,
    /// Text expansion with a language model's hypothetical answer: BM25 over the question and the
    /// draft.
    HydeText,
    /// A first stage's top passages reordered by a language model that reads them together
    /// (RankGPT's sliding windows).
    Listwise,
    /// A first stage's top passages reordered by the language model's probability that each is
    /// relevant (P(yes) from its first answer token).
    Pointwise,
    /// BM25 over the question and a language model's account of what answering it needs
    /// (reasoning expansion).
    ReasonBm25,
    /// The dense model over the question and the model's reasoning.
    ReasonDense,
    /// The dense model with a linear map on question vectors trained from judgements.
    DenseAdapter,
    /// The passages a language model read while it searched with RankLens's tools, in the order
    /// its answer used them.
    Agent,
    /// GraphRAG's local search: the passages of the entities the question names in the graph a
    /// language model extracted beforehand, and of their neighbours.
    GraphLocal,
}

impl MethodKind {
    /// Every column RankLens computes itself, in the order the app and the reports show them:
    /// the one list the method checkboxes, the default settings and `compare` read.
    pub const BUILT_IN: [MethodKind; 10] = [
        MethodKind::Boolean,
        MethodKind::TfIdf,
        MethodKind::Bm25,
        MethodKind::Splade,
        MethodKind::Dense,
        MethodKind::LateInteraction,
        MethodKind::Fusion,
        MethodKind::Rerank,
        MethodKind::Sql,
        MethodKind::Graph,
    ];

    /// The methods that need a neural model, themselves or through their inputs.
    pub const NEURAL: [MethodKind; 5] =
        [MethodKind::Splade, MethodKind::Dense, MethodKind::LateInteraction, MethodKind::Fusion, MethodKind::Rerank];

    /// The methods that ask a language model: for text to search with, or to order a first
    /// stage's passages.
    pub const GENERATED: [MethodKind; 8] = [
        MethodKind::Rewrite,
        MethodKind::Hyde,
        MethodKind::HydeText,
        MethodKind::ReasonBm25,
        MethodKind::ReasonDense,
        MethodKind::Listwise,
        MethodKind::Pointwise,
        MethodKind::Agent,
    ];

    /// The methods trained on this corpus's judgements (shown as columns when asked for, not by
    /// default: they need training first).
    pub const TRAINED: [MethodKind; 1] = [MethodKind::DenseAdapter];

    /// The methods over what a language model extracted from the corpus beforehand (GraphRAG's
    /// graph): they need it built, not the model loaded, and answer at once.
    pub const EXTRACTED: [MethodKind; 1] = [MethodKind::GraphLocal];

    /// Every method that ranks passages (not Boolean's unranked set, SQL rows or graph bindings):
    /// the methods an evaluation compares.
    pub const RANKED: [MethodKind; 8] = [
        MethodKind::TfIdf,
        MethodKind::Bm25,
        MethodKind::Splade,
        MethodKind::Dense,
        MethodKind::LateInteraction,
        MethodKind::Fusion,
        MethodKind::Rerank,
        MethodKind::DenseAdapter,
    ];

    /// The name the command line gives the family (`--method late`, `--baseline bm25`).
    pub fn cli_name(self) -> &'static str {
        match self {
            MethodKind::Boolean => "boolean",
            MethodKind::TfIdf => "tfidf",
            MethodKind::Bm25 => "bm25",
            MethodKind::Splade => "splade",
            MethodKind::Dense => "dense",
            MethodKind::LateInteraction => "late",
            MethodKind::Fusion => "fusion",
            MethodKind::Rerank => "rerank",
            MethodKind::Sql => "sql",
            MethodKind::Graph => "graph",
            MethodKind::Run => "run",
            MethodKind::Engine => "engine",
            MethodKind::Vectors => "vectors",
            MethodKind::Rewrite => "rewrite",
            MethodKind::Hyde => "hyde",
            MethodKind::HydeText => "hyde-bm25",
            MethodKind::Listwise => "listwise",
            MethodKind::Pointwise => "pointwise",
            MethodKind::ReasonBm25 => "reason-bm25",
            MethodKind::ReasonDense => "reason-dense",
            MethodKind::DenseAdapter => "dense-adapter",
            MethodKind::Agent => "agent",
            MethodKind::GraphLocal => "graphrag-local",
        }
    }

    /// Display name.
    pub fn label(self) -> &'static str {
        match self {
            MethodKind::Boolean => "Boolean",
            MethodKind::TfIdf => "TF-IDF",
            MethodKind::Bm25 => "BM25",
            MethodKind::Splade => "SPLADE",
            MethodKind::Dense => "Dense",
            MethodKind::LateInteraction => "Late interaction",
            MethodKind::Fusion => "Fusion",
            MethodKind::Rerank => "Rerank",
            MethodKind::Sql => "SQL",
            MethodKind::Graph => "Graph",
            MethodKind::Run => "Run",
            MethodKind::Engine => "Engine",
            MethodKind::Vectors => "Vectors",
            MethodKind::Rewrite => "Rewrite (model)",
            MethodKind::Hyde => "HyDE (model)",
            MethodKind::HydeText => "HyDE text (model)",
            MethodKind::Listwise => "Listwise (model)",
            MethodKind::Pointwise => "Pointwise (model)",
            MethodKind::ReasonBm25 => "Reasoning + BM25 (model)",
            MethodKind::ReasonDense => "Reasoning + dense (model)",
            MethodKind::DenseAdapter => "Dense + adapter",
            MethodKind::Agent => "Agent (model)",
            MethodKind::GraphLocal => "GraphRAG local (model's graph)",
        }
    }
}

impl MethodKind {
    /// The models that can serve a column of this family, the one the workbench prefers first:
    /// late interaction runs on its own trained model when one is loaded, else MaxSim over the
    /// dense model's token vectors; HyDE proper needs the language model and the dense model. The
    /// one rule the Compare, Models and atlas views and the CLI read.
    pub fn models(self) -> &'static [crate::models::Role] {
        use crate::models::Role;
        match self {
            MethodKind::Splade => &[Role::Splade],
            MethodKind::Dense | MethodKind::Fusion => &[Role::Dense],
            MethodKind::LateInteraction => &[Role::LateInteraction, Role::Dense],
            MethodKind::Rerank => &[Role::Reranker],
            MethodKind::Rewrite | MethodKind::HydeText | MethodKind::ReasonBm25 => &[Role::Generator],
            MethodKind::Listwise | MethodKind::Pointwise | MethodKind::Agent => &[Role::Generator],
            MethodKind::Hyde | MethodKind::ReasonDense => &[Role::Generator, Role::Dense],
            MethodKind::DenseAdapter => &[Role::Dense],
            _ => &[],
        }
    }

    /// The model to fetch when a column of this family has none: the last of [`Self::models`],
    /// the most widely available one that serves it (the dense model for late interaction).
    pub fn model_to_fetch(self) -> Option<crate::models::Role> {
        match self {
            MethodKind::Hyde | MethodKind::ReasonDense => Some(crate::models::Role::Generator),
            k => k.models().last().copied(),
        }
    }

    /// A system outside RankLens (a run file, a search engine, vectors from a file): its column
    /// is named by the system, not by the family.
    pub fn is_external(self) -> bool {
        matches!(self, MethodKind::Run | MethodKind::Engine | MethodKind::Vectors)
    }

    /// The colour of the family everywhere it is drawn (app columns, report charts, map markers):
    /// a colour-blind-safe palette.
    pub fn color_rgb(self) -> (u8, u8, u8) {
        match self {
            MethodKind::Boolean => (140, 140, 140),
            MethodKind::TfIdf => (230, 159, 0),
            MethodKind::Bm25 => (213, 94, 0),
            MethodKind::Splade => (204, 121, 167),
            MethodKind::Dense => (0, 114, 178),
            MethodKind::LateInteraction => (86, 180, 233),
            MethodKind::Fusion => (0, 158, 115),
            MethodKind::Rerank => (120, 94, 240),
            MethodKind::Sql => (100, 143, 255),
            MethodKind::Graph => (180, 150, 60),
            MethodKind::Run => (200, 200, 200),
            MethodKind::Engine => (240, 228, 66),
            MethodKind::Vectors => (70, 160, 200),
            MethodKind::Rewrite => (170, 68, 0),
            MethodKind::Hyde => (0, 90, 140),
            MethodKind::HydeText => (150, 60, 110),
            MethodKind::Listwise => (200, 80, 200),
            MethodKind::Pointwise => (150, 110, 230),
            MethodKind::ReasonBm25 => (190, 120, 40),
            MethodKind::ReasonDense => (40, 130, 170),
            MethodKind::DenseAdapter => (0, 150, 200),
            MethodKind::Agent => (230, 120, 90),
            MethodKind::GraphLocal => (160, 120, 60),
        }
    }
}

impl fmt::Display for MethodKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.label())
    }
}

/// One ranked document.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct Hit {
    /// The document.
    pub doc: DocId,
    /// Its score under the method.
    pub score: f64,
}

/// What a method returned for a question.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Ranking {
    /// The method label with its variant (`BM25 (lucene)`).
    pub method: String,
    /// The method family.
    pub kind: MethodKind,
    /// Best first; ties broken by ascending DocId. For unranked sets (Boolean) ordered by DocId.
    pub hits: Vec<Hit>,
    /// Number of documents that matched at all (may exceed the list's length).
    pub total_matches: usize,
    /// True when the order carries no meaning (Boolean sets).
    pub unranked: bool,
    /// Documents an external run ranked that the corpus does not hold, at their ranks (they
    /// count in the ranks of the hits around them).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub absent: Vec<AbsentHit>,
    /// Ranked over a first stage's candidates only, while the corpus is being encoded
    /// ([`ProvisionalRetriever`]); the label says so too.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub provisional: bool,
    /// What a reader should know about how the column ranked, said beside its name (a provisional
    /// column: over which first stage, and how far the encoding is).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub note: Option<String>,
    /// The text a language model wrote for this column (a rewrite, a draft), shown with it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub generated: Option<ModelText>,
    /// The agent's whole run, for the Agent column (its trace view).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub agent: Option<Box<agent::AgentRun>>,
}

/// A text a language model wrote for a column, with what wrote it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ModelText {
    /// `rewrite` or `draft`.
    pub task: String,
    /// The text.
    pub text: String,
    /// The model that wrote it (its label).
    pub model: String,
    /// What to know about the model's text.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub caveat: Option<String>,
}

/// A document a run ranked that the corpus does not hold.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct AbsentHit {
    /// Its rank in the run's list (1-based).
    pub rank: usize,
    /// Its id in the run.
    pub id: String,
    /// Its score in the run.
    pub score: f64,
}

/// One place of a ranked list.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Entry<'a> {
    /// A passage of the corpus.
    Hit(&'a Hit),
    /// A document the corpus does not hold.
    Absent(&'a AbsentHit),
}

impl Ranking {
    /// The places of the list in rank order, with their 1-based ranks.
    pub fn entries(&self) -> Vec<(usize, Entry<'_>)> {
        let mut out = Vec::with_capacity(self.hits.len() + self.absent.len());
        let (mut hits, mut absent) = (self.hits.iter().peekable(), self.absent.iter().peekable());
        let mut rank = 1;
        loop {
            let entry = match (absent.peek(), hits.peek()) {
                (Some(a), _) if a.rank <= rank => absent.next().map(Entry::Absent),
                (_, Some(_)) => hits.next().map(Entry::Hit),
                (Some(_), None) => absent.next().map(Entry::Absent),
                (None, None) => None,
            };
            let Some(entry) = entry else { break };
            out.push((rank, entry));
            rank += 1;
        }
        out
    }

    /// The first `k` places of another system's list, in its order: documents of the corpus
    /// become hits, the others stay at their ranks as [`AbsentHit`]s. `total` is the list's length.
    pub fn of_list(
        method: String,
        kind: MethodKind,
        list: impl IntoIterator<Item = (Option<DocId>, String, f64)>,
        k: usize,
        total: usize,
    ) -> Ranking {
        let (mut hits, mut absent) = (Vec::new(), Vec::new());
        for (i, (doc, id, score)) in list.into_iter().take(k).enumerate() {
            match doc {
                Some(doc) => hits.push(Hit { doc, score }),
                None => absent.push(AbsentHit { rank: i + 1, id, score }),
            }
        }
        Ranking {
            method,
            kind,
            hits,
            total_matches: total,
            unranked: false,
            absent,
            provisional: false,
            note: None,
            generated: None,
            agent: None,
        }
    }

    /// Rank (1-based) of a document in this list.
    pub fn rank_of(&self, doc: DocId) -> Option<usize> {
        if self.absent.is_empty() {
            return self.hits.iter().position(|h| h.doc == doc).map(|i| i + 1);
        }
        self.entries().into_iter().find_map(|(r, e)| matches!(e, Entry::Hit(h) if h.doc == doc).then_some(r))
    }

    /// The documents in order.
    pub fn docs(&self) -> Vec<DocId> {
        self.hits.iter().map(|h| h.doc).collect()
    }

    /// The list as ranked, by external id with scores — a run's documents the corpus does not
    /// hold included: what metrics are computed on.
    pub fn ids_and_scores(&self, corpus: &crate::corpus::Corpus) -> Vec<(String, f64)> {
        self.entries()
            .into_iter()
            .map(|(_, e)| match e {
                Entry::Hit(h) => (corpus.external_id(h.doc).to_string(), h.score),
                Entry::Absent(a) => (a.id.clone(), a.score),
            })
            .collect()
    }
}

/// A question prepared by one retriever: what the method computes once per question (the analysed
/// terms with their statistics, the encoded question, the first stage's candidates, the scores of
/// every candidate) and from which both the ranking and every explanation are read. This is
/// tantivy's `Weight`: an explanation comes from the same state as the score, so it cannot drift
/// from it, and explaining a passage never re-encodes the question or reruns a first stage.
///
/// A prepared question owns what it needs (it holds shared handles to the indexes and models), so
/// the app can keep it for as long as the question is on screen and explain from any thread.
pub trait Prepared: Send + Sync {
    /// Best first; ties broken by ascending DocId.
    fn search(&self, k: usize) -> Result<Ranking>;
    /// Why `doc` has the score `search` gives it — also for documents outside the top k (value 0
    /// and the reason), so the app can answer "why didn't this method find X?".
    fn explain(&self, doc: DocId) -> Result<Explanation>;
}

/// The contract every method implements.
pub trait Retriever: Send + Sync {
    /// The method family.
    fn kind(&self) -> MethodKind;
    /// Label with variant and parameters that matter (`BM25 (lucene, k1=0.9, b=0.4)`).
    fn label(&self) -> String;
    /// Prepare a question: everything `search` and `explain` share.
    fn prepare(&self, query: &QueryContext) -> Result<Arc<dyn Prepared>>;

    /// Prepare a question, reporting long work and stopping when cancelled (a provisional column
    /// encodes its candidates here; other methods prepare in milliseconds and ignore `progress`).
    fn prepare_with(
        &self,
        query: &QueryContext,
        progress: &dyn crate::progress::Progress,
    ) -> Result<Arc<dyn Prepared>> {
        let _ = progress;
        self.prepare(query)
    }

    /// Prepare and rank in one step (for callers that explain nothing).
    fn search(&self, query: &QueryContext, k: usize) -> Result<Ranking> {
        self.prepare(query)?.search(k)
    }

    /// Prepare and explain one document in one step.
    fn explain(&self, query: &QueryContext, doc: DocId) -> Result<Explanation> {
        self.prepare(query)?.explain(doc)
    }

    /// What the method did over every question it prepared, in one line, where that is more than
    /// its ranking says (a language model's windows: how many came back whole permutations, were
    /// mended or kept their order). A question set's evaluation shows it beside the method.
    fn over_questions(&self) -> Option<String> {
        None
    }
}

pub use crate::topk::{key_doc, key_score, rank_key, smallest_keys};

impl Ranking {
    /// The k best of the candidates' keys (see [`rank_key`]); every candidate counts as a match.
    pub fn from_keys(method: String, kind: MethodKind, keys: Vec<u128>, k: usize) -> Ranking {
        let total_matches = keys.len();
        let hits =
            smallest_keys(keys, k).into_iter().map(|key| Hit { doc: key_doc(key), score: key_score(key) }).collect();
        Ranking {
            method,
            kind,
            hits,
            total_matches,
            unranked: false,
            absent: Vec::new(),
            provisional: false,
            note: None,
            generated: None,
            agent: None,
        }
    }

    /// The k best (score desc, DocId asc) of scored candidates.
    pub fn top(method: String, kind: MethodKind, scored: impl IntoIterator<Item = (DocId, f64)>, k: usize) -> Ranking {
        Ranking::from_keys(method, kind, scored.into_iter().map(|(d, s)| rank_key(s, d)).collect(), k)
    }
}

/// Keep the k best (score desc, DocId asc) of scored candidates, sorted.
pub fn top_k(scored: Vec<Hit>, k: usize) -> Vec<Hit> {
    Ranking::top(String::new(), MethodKind::Bm25, scored.into_iter().map(|h| (h.doc, h.score)), k).hits
}

#[cfg(test)]
mod tests {
    use super::*;

    fn hit(d: u32, s: f64) -> Hit {
        Hit { doc: DocId(d), score: s }
    }

    #[test]
    fn every_model_method_names_its_models_and_late_interaction_falls_back_on_dense() {
        use crate::models::Role;
        assert_eq!(MethodKind::LateInteraction.models(), [Role::LateInteraction, Role::Dense]);
        assert_eq!(MethodKind::LateInteraction.model_to_fetch(), Some(Role::Dense));
        assert_eq!(MethodKind::Hyde.model_to_fetch(), Some(Role::Generator));
        for kind in MethodKind::NEURAL.into_iter().chain(MethodKind::GENERATED) {
            assert!(!kind.models().is_empty(), "{kind:?}");
        }
        for kind in [MethodKind::Bm25, MethodKind::Boolean, MethodKind::Sql, MethodKind::Run] {
            assert!(kind.models().is_empty() && kind.model_to_fetch().is_none(), "{kind:?}");
        }
    }

    #[test]
    fn params_print_short() {
        assert_eq!(fmt_param(1.2000000000000002), "1.2");
        assert_eq!(fmt_param(0.75), "0.75");
        assert_eq!(fmt_param(60.0), "60");
        assert_eq!(fmt_param(0.0), "0");
    }

    #[test]
    fn both_selection_paths_agree_with_a_full_sort() {
        let mut seed = 7u64;
        let keys: Vec<u128> = (0..500)
            .map(|i| {
                seed = crate::lcg::lcg(seed);
                rank_key(((seed >> 40) % 50) as f64, DocId(i))
            })
            .collect();
        let mut sorted = keys.clone();
        sorted.sort_unstable();
        for k in [1, 10, 64, 100, 499, 500, 600] {
            assert_eq!(smallest_keys(keys.clone(), k), sorted[..k.min(500)].to_vec(), "k={k}");
        }
    }

    #[test]
    fn rank_key_orders_negative_zero_and_positive_scores() {
        let hits = vec![hit(5, -1.5), hit(2, 0.0), hit(1, 3.0), hit(0, -0.0), hit(3, 3.0)];
        let top = top_k(hits, 5);
        assert_eq!(top.iter().map(|h| h.doc.0).collect::<Vec<_>>(), [1, 3, 2, 0, 5]);
        assert_eq!(top[4].score, -1.5);
    }

    #[test]
    fn a_key_gives_back_its_score_and_document_bit_for_bit() {
        let scores = [
            0.0,
            -0.0,
            1.5,
            -1.5,
            f64::MIN_POSITIVE,
            -f64::MIN_POSITIVE,
            5e-324,
            f64::MAX,
            f64::INFINITY,
            -f64::INFINITY,
        ];
        for (i, s) in scores.into_iter().enumerate() {
            let key = rank_key(s, DocId(i as u32 * 7919));
            assert_eq!(key_score(key).to_bits(), s.to_bits(), "{s}");
            assert_eq!(key_doc(key), DocId(i as u32 * 7919));
        }
    }

    #[test]
    fn entries_put_absent_documents_at_their_ranks() {
        let r = Ranking {
            method: "run".into(),
            kind: MethodKind::Run,
            hits: vec![hit(7, 3.0), hit(2, 1.0)],
            total_matches: 4,
            unranked: false,
            absent: vec![
                AbsentHit { rank: 2, id: "x".into(), score: 2.0 },
                AbsentHit { rank: 4, id: "y".into(), score: 0.5 },
            ],
            provisional: false,
            note: None,
            generated: None,
            agent: None,
        };
        let e = r.entries();
        let ranks: Vec<(usize, bool)> = e.iter().map(|(r, e)| (*r, matches!(e, Entry::Hit(_)))).collect();
        assert_eq!(ranks, [(1, true), (2, false), (3, true), (4, false)]);
        assert_eq!((r.rank_of(DocId(7)), r.rank_of(DocId(2)), r.rank_of(DocId(9))), (Some(1), Some(3), None));
    }

    #[test]
    fn top_k_orders_by_score_then_doc() {
        let hits = vec![hit(3, 1.0), hit(1, 2.0), hit(2, 1.0), hit(0, 1.0), hit(4, 0.5)];
        let top = top_k(hits.clone(), 3);
        assert_eq!(top.iter().map(|h| h.doc.0).collect::<Vec<_>>(), [1, 0, 2]);
        assert_eq!(top_k(hits.clone(), 10).len(), 5);
        assert!(top_k(hits, 0).is_empty());
    }
}
