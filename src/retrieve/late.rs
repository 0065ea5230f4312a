//! Late interaction (ColBERT-style MaxSim): each question token finds its most similar passage
//! token; the score is the sum of those maxima. On large corpora it reranks a first-stage shortlist.

use std::collections::HashMap;
use std::sync::{Arc, Mutex};

use half::f16;

use super::{Detail, Explanation, MethodKind, Prepared, QueryContext, Ranking, Retriever, TokenAlignment};
use crate::corpus::{Corpus, DocId};
use crate::index::neural::{DocTokens, LateIndex};
use crate::models::{InputKind, TokenEncoder, TokenVectors};
use crate::{Error, Result};

/// MaxSim of a question against one document: the score (Σ of per-token maxima, added in question
/// order) and, per question token, the best document token and its similarity.
pub fn maxsim(q: &TokenVectors, d: &DocTokens) -> (f64, Vec<(usize, f32)>) {
    let dim = q.dim;
    let n = d.ids.len();
    let mut doc = vec![0f32; d.data.len()];
    for (x, y) in doc.iter_mut().zip(&d.data) {
        *x = y.to_f32();
    }
    let mut total = 0.0f64;
    let mut best = Vec::with_capacity(q.len());
    for i in 0..q.len() {
        let row = q.row(i);
        let (mut bj, mut bs) = (0usize, f32::NEG_INFINITY);
        for j in 0..n {
            let s: f32 = row.iter().zip(&doc[j * dim..(j + 1) * dim]).map(|(a, b)| a * b).sum();
            if s > bs {
                bs = s;
                bj = j;
            }
        }
        if n == 0 {
            bs = 0.0;
        }
        total += f64::from(bs);
        best.push((bj, bs));
    }
    (total, best)
}

/// Passages a shortlist encoded, kept for the questions that follow (their shortlists overlap,
/// and the same question is ranked again whenever another column's encodings finish).
/// Passage vectors depend on the passage and the model only, never on the question.
#[derive(Default)]
pub struct TokenMemo {
    model: String,
    docs: HashMap<DocId, DocTokens>,
    /// Oldest first, for eviction.
    order: std::collections::VecDeque<DocId>,
}

/// Passages a [`TokenMemo`] keeps (about 60 MiB of f16 vectors for 384-dim tokens at 256 tokens).
pub const TOKEN_MEMO_PASSAGES: usize = 400;

impl TokenMemo {
    fn get(&self, model: &str, doc: DocId) -> Option<DocTokens> {
        if self.model != model {
            return None;
        }
        self.docs.get(&doc).cloned()
    }

    fn put(&mut self, model: &str, doc: DocId, tokens: DocTokens) {
        if self.model != model {
            self.docs.clear();
            self.order.clear();
            self.model = model.to_string();
        }
        if self.docs.insert(doc, tokens).is_none() {
            self.order.push_back(doc);
        }
        while self.order.len() > TOKEN_MEMO_PASSAGES {
            if let Some(old) = self.order.pop_front() {
                self.docs.remove(&old);
            }
        }
    }

    /// Passages held.
    pub fn len(&self) -> usize {
        self.docs.len()
    }

    /// Holds none.
    pub fn is_empty(&self) -> bool {
        self.docs.is_empty()
    }
}

/// Late interaction over token vectors.
#[derive(Clone)]
pub struct LateInteractionRetriever {
    index: Option<Arc<LateIndex>>,
    encoder: Arc<dyn TokenEncoder>,
    corpus: Arc<Corpus>,
    first_stage: Option<(Arc<dyn Retriever>, usize)>,
    /// Passages encoded for earlier shortlists (none kept when `None`).
    memo: Option<Arc<Mutex<TokenMemo>>>,
}

/// The token vectors of the passages a question is scored against.
enum Candidates {
    /// Every allowed passage of the index.
    Indexed(Arc<LateIndex>, Vec<DocId>),
    /// The first stage's shortlist, with each passage's tokens (read from the index when there is
    /// one, else encoded for this question), in the shortlist's order.
    Shortlist(Vec<(DocId, DocTokens)>),
}

/// A question prepared for late interaction: its token vectors, the candidates' token vectors and
/// each candidate's MaxSim score.
struct PreparedLate {
    retriever: LateInteractionRetriever,
    query: QueryContext,
    tokens: Arc<TokenVectors>,
    candidates: Candidates,
    scores: HashMap<DocId, f64>,
}

impl LateInteractionRetriever {
    /// Full retrieval over an index of every document's token vectors.
    pub fn over_index(index: Arc<LateIndex>, encoder: Arc<dyn TokenEncoder>, corpus: Arc<Corpus>) -> Self {
        Self { index: Some(index), encoder, corpus, first_stage: None, memo: None }
    }

    /// Rerank the top `depth` of a first-stage retriever, encoding those passages for each
    /// question (or reading them from `index` when given).
    pub fn reranking(
        first: Arc<dyn Retriever>,
        depth: usize,
        index: Option<Arc<LateIndex>>,
        encoder: Arc<dyn TokenEncoder>,
        corpus: Arc<Corpus>,
    ) -> Self {
        Self { index, encoder, corpus, first_stage: Some((first, depth)), memo: None }
    }

    /// Keep the passages a shortlist encodes in `memo`, and read them from it next time.
    pub fn with_memo(mut self, memo: Arc<Mutex<TokenMemo>>) -> Self {
        self.memo = Some(memo);
        self
    }

    /// The shortlist's token vectors: from the index, or encoded in one batch.
    fn shortlist_tokens(&self, docs: Vec<DocId>) -> Result<Vec<(DocId, DocTokens)>> {
        if let Some(index) = &self.index {
            return docs
                .into_iter()
                .map(|d| {
                    let t = index.docs.get(d.index()).cloned();
                    t.map(|t| (d, t)).ok_or_else(|| Error::invalid("document", format!("{d} is not indexed")))
                })
                .collect();
        }
        if docs.is_empty() {
            return Ok(Vec::new());
        }
        let model = self.encoder.model_id().to_string();
        let mut found: Vec<Option<DocTokens>> = match self.memo.as_ref().map(|m| m.lock()) {
            Some(Ok(memo)) => docs.iter().map(|d| memo.get(&model, *d)).collect(),
            _ => vec![None; docs.len()],
        };
        let missing: Vec<usize> = (0..docs.len()).filter(|&i| found[i].is_none()).collect();
        if !missing.is_empty() {
            let texts: Vec<String> =
                missing.iter().map(|&i| self.corpus.doc(docs[i]).map(|x| x.full_text()).unwrap_or_default()).collect();
            let refs: Vec<&str> = texts.iter().map(String::as_str).collect();
            let encoded = self.encoder.encode_tokens(&refs, InputKind::Document)?;
            let mut memo = self.memo.as_ref().and_then(|m| m.lock().ok());
            for (&i, t) in missing.iter().zip(encoded) {
                let tokens = DocTokens { ids: t.ids, data: t.data.iter().map(|v| f16::from_f32(*v)).collect() };
                if let Some(memo) = memo.as_mut() {
                    memo.put(&model, docs[i], tokens.clone());
                }
                found[i] = Some(tokens);
            }
        }
        docs.into_iter()
            .zip(found)
            .map(|(d, t)| t.map(|t| (d, t)).ok_or_else(|| Error::Model(format!("{d} was not encoded"))))
            .collect()
    }

    /// Whether the vectors come from a trained ColBERT.
    pub fn trained(&self) -> bool {
        self.encoder.trained_late_interaction()
    }
}

impl Retriever for LateInteractionRetriever {
    fn kind(&self) -> MethodKind {
        MethodKind::LateInteraction
    }

    fn label(&self) -> String {
        let model = super::dense::short_model(self.encoder.model_id());
        let what =
            if self.trained() { model.to_string() } else { format!("{model} token vectors, not a trained ColBERT") };
        match &self.first_stage {
            Some((first, depth)) => format!("Late interaction ({what}; reranks {} top {depth})", first.label()),
            None => format!("Late interaction ({what})"),
        }
    }

    fn prepare(&self, query: &QueryContext) -> Result<Arc<dyn Prepared>> {
        let tokens = query.token_vectors(self.encoder.as_ref())?;
        let candidates = match (&self.first_stage, &self.index) {
            (Some((first, depth)), _) => {
                Candidates::Shortlist(self.shortlist_tokens(first.search(query, *depth)?.docs())?)
            }
            (None, Some(index)) => {
                let docs = (0..index.docs.len() as u32).map(DocId).filter(|d| query.allows(*d)).collect();
                Candidates::Indexed(index.clone(), docs)
            }
            (None, None) => return Err(Error::Model("late interaction needs a token index or a first stage".into())),
        };
        let scores = match &candidates {
            Candidates::Indexed(index, docs) => {
                docs.iter().filter_map(|d| index.docs.get(d.index()).map(|t| (*d, maxsim(&tokens, t).0))).collect()
            }
            Candidates::Shortlist(list) => list.iter().map(|(d, t)| (*d, maxsim(&tokens, t).0)).collect(),
        };
        Ok(Arc::new(PreparedLate { retriever: self.clone(), query: query.clone(), tokens, candidates, scores }))
    }
}

impl PreparedLate {
    /// A candidate's token vectors (`None` outside the candidates).
    fn doc_tokens(&self, doc: DocId) -> Option<&DocTokens> {
        match &self.candidates {
            Candidates::Indexed(index, _) => {
                self.scores.contains_key(&doc).then(|| index.docs.get(doc.index())).flatten()
            }
            Candidates::Shortlist(list) => list.iter().find(|(d, _)| *d == doc).map(|(_, t)| t),
        }
    }
}

impl Prepared for PreparedLate {
    fn search(&self, k: usize) -> Result<Ranking> {
        let r = &self.retriever;
        Ok(Ranking::top(r.label(), r.kind(), self.scores.iter().map(|(d, s)| (*d, *s)), k))
    }

    fn explain(&self, doc: DocId) -> Result<Explanation> {
        let r = &self.retriever;
        if !self.query.allows(doc) {
            return Ok(self.query.filtered_explanation(&r.label()));
        }
        let Some(d) = self.doc_tokens(doc) else {
            return match &r.first_stage {
                Some((first, depth)) => Ok(Explanation::new(
                    r.label(),
                    0.0,
                    "MaxSim over the first stage's shortlist",
                    format!("Not in {}'s top {depth}, so late interaction never scored it.", first.label()),
                )),
                None => Err(Error::invalid("document", format!("{doc} has no token vectors"))),
            };
        };
        let q = &self.tokens;
        let (value, best) = maxsim(q, d);
        let doc_tokens: Vec<String> = d.ids.iter().map(|&id| r.encoder.token(id)).collect();
        let dim = q.dim;
        let doc_f32: Vec<f32> = d.data.iter().map(|v| v.to_f32()).collect();
        let mut matrix = Vec::with_capacity(q.len() * d.ids.len());
        for i in 0..q.len() {
            for j in 0..d.ids.len() {
                matrix.push(q.row(i).iter().zip(&doc_f32[j * dim..(j + 1) * dim]).map(|(a, b)| a * b).sum());
            }
        }
        let alignments: Vec<TokenAlignment> = best
            .iter()
            .enumerate()
            .map(|(i, &(j, s))| TokenAlignment {
                query_token: q.tokens.get(i).cloned().unwrap_or_default(),
                query_pos: i,
                doc_token: doc_tokens.get(j).cloned().unwrap_or_default(),
                doc_pos: j,
                similarity: s,
            })
            .collect();
        let strongest = alignments.iter().max_by(|a, b| a.similarity.total_cmp(&b.similarity));
        let summary = match strongest {
            Some(a) => format!(
                "{} question tokens each take their best match among {} passage tokens; the strongest pair is `{}` → `{}` ({:.3}).{}",
                alignments.len(),
                doc_tokens.len(),
                a.query_token,
                a.doc_token,
                a.similarity,
                if r.trained() { "" } else { " These are a bi-encoder's token states, not a trained ColBERT." }
            ),
            None => "The question has no tokens.".to_string(),
        };
        let mut e = Explanation::new(r.label(), value, "MaxSim(q, d) = Σ_i max_j cos(q_i, d_j)", summary);
        e.detail = Detail::MaxSim { alignments, query_tokens: q.tokens.clone(), doc_tokens, matrix };
        Ok(e)
    }
}

#[cfg(test)]
mod tests {
    use std::sync::atomic::{AtomicUsize, Ordering};

    use super::*;
    use crate::analysis::{AnalyzerConfig, Preset};
    use crate::index::{IndexLocation, SparseIndex};
    use crate::progress::NoProgress;
    use crate::retrieve::{Bm25Params, Bm25Variant, LexicalModel, LexicalRetriever};

    /// One 2-dim token vector per word: (1, 0) for words with an `o`, (0, 1) otherwise; counts
    /// the passages it encodes.
    struct Words(&'static str, AtomicUsize);

    impl TokenEncoder for Words {
        fn model_id(&self) -> &str {
            self.0
        }
        fn trained_late_interaction(&self) -> bool {
            false
        }
        fn encode_tokens(&self, texts: &[&str], kind: InputKind) -> Result<Vec<TokenVectors>> {
            if kind == InputKind::Document {
                self.1.fetch_add(texts.len(), Ordering::SeqCst);
            }
            Ok(texts
                .iter()
                .map(|t| {
                    let words: Vec<&str> = t.split_whitespace().collect();
                    let data = words.iter().flat_map(|w| if w.contains('o') { [1.0, 0.0] } else { [0.0, 1.0] });
                    TokenVectors {
                        ids: (0..words.len() as u32).collect(),
                        tokens: words.iter().map(|w| w.to_string()).collect(),
                        positions: (0..words.len()).collect(),
                        dim: 2,
                        data: data.collect(),
                    }
                })
                .collect())
        }
        fn token(&self, id: u32) -> String {
            id.to_string()
        }
    }

    #[test]
    fn a_memo_encodes_each_shortlisted_passage_once_per_model() {
        let corpus = Arc::new(Corpus::from_texts(
            "t",
            [("D1", "moon orbit"), ("D2", "sun flare"), ("D3", "moon rover"), ("D4", "mars dust")],
        ));
        let index =
            SparseIndex::build(&corpus, AnalyzerConfig::preset(Preset::English), &IndexLocation::Ram, &NoProgress)
                .unwrap();
        let model = LexicalModel::Bm25 {
            variant: Bm25Variant::Lucene,
            params: Bm25Params { k1: 1.2, b: 0.75, delta: 0.0, epsilon: 0.25 },
        };
        let bm25: Arc<dyn Retriever> = Arc::new(LexicalRetriever::new(Arc::new(index), model).unwrap());
        let memo = Arc::new(Mutex::new(TokenMemo::default()));
        let words = Arc::new(Words("words", AtomicUsize::new(0)));
        let late = LateInteractionRetriever::reranking(bm25.clone(), 10, None, words.clone(), corpus.clone())
            .with_memo(memo.clone());
        // "moon" matches D1 and D3; each query token (moon → (1, 0)) finds a (1, 0) in both.
        let first = late.search(&QueryContext::new("moon"), 10).unwrap();
        assert_eq!(first.docs(), [DocId(0), DocId(2)]);
        assert!(first.hits.iter().all(|h| h.score == 1.0), "MaxSim of one query token with an equal vector");
        assert_eq!(words.1.load(Ordering::SeqCst), 2);
        // The same question again (another column finished): nothing encoded, same ranking.
        let again = late.search(&QueryContext::new("moon"), 10).unwrap();
        assert_eq!((again.docs(), words.1.load(Ordering::SeqCst)), (first.docs(), 2));
        // A shortlist that overlaps: only the new passage is encoded.
        late.search(&QueryContext::new("moon sun"), 10).unwrap();
        assert_eq!(words.1.load(Ordering::SeqCst), 3, "D2 only");
        assert_eq!(memo.lock().unwrap().len(), 3);
        // Another model never reads the first one's vectors.
        let other = Arc::new(Words("other", AtomicUsize::new(0)));
        let late2 = LateInteractionRetriever::reranking(bm25, 10, None, other.clone(), corpus).with_memo(memo.clone());
        late2.search(&QueryContext::new("moon"), 10).unwrap();
        assert_eq!(other.1.load(Ordering::SeqCst), 2);
        assert_eq!(memo.lock().unwrap().len(), 2, "the memo now holds the other model's passages only");
    }
}
