//! Late interaction (ColBERT-style MaxSim): each question token finds its most similar passage
//! token; the score is the sum of those maxima. Every window of every passage is scored from the
//! compressed token index ([`TokenIndex`]), with the vectors read back from it; a long document
//! scores by its best window.

use std::sync::Arc;

use rayon::prelude::*;

use super::{Detail, Explanation, MethodKind, Prepared, QueryContext, Ranking, Retriever, TokenAlignment};
use crate::corpus::DocId;
use crate::index::dot::dot16;
use crate::index::tokens::{RowTokens, TokenIndex};
use crate::models::{TokenEncoder, TokenVectors};
use crate::{Error, Result};

/// MaxSim of a question against one passage's (read-back) token vectors: the score (Σ of
/// per-token maxima, added in question order) and, per question token, the best passage token
/// and its similarity.
pub fn maxsim(q: &TokenVectors, d: &RowTokens) -> (f64, Vec<(usize, f32)>) {
    let dim = q.dim;
    let n = d.ids.len();
    let mut total = 0.0f64;
    let mut best = Vec::with_capacity(q.len());
    for i in 0..q.len() {
        let row = q.row(i);
        let (mut bj, mut bs) = (0usize, f32::NEG_INFINITY);
        for j in 0..n {
            let s = dot16(row, &d.data[j * dim..(j + 1) * dim]);
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

/// MaxSim score only.
fn maxsim_score(q: &TokenVectors, d: &RowTokens) -> f64 {
    maxsim(q, d).0
}

/// Late interaction over the token index of every passage.
#[derive(Clone)]
pub struct LateInteractionRetriever {
    index: Arc<TokenIndex>,
    encoder: Arc<dyn TokenEncoder>,
}

/// A question prepared for late interaction: its token vectors, and each allowed passage's best
/// window with its MaxSim score.
struct PreparedLate {
    retriever: LateInteractionRetriever,
    query: QueryContext,
    tokens: Arc<TokenVectors>,
    /// Per document: its best row and that row's score (`None` outside the filter or unindexed).
    best: Vec<Option<(usize, f64)>>,
}

impl LateInteractionRetriever {
    /// The column's label for token vectors of `model_id` (`trained`: a ColBERT model).
    pub fn label_of(model_id: &str, trained: bool) -> String {
        let model = super::dense::short_model(model_id);
        if trained {
            format!("Late interaction ({model})")
        } else {
            format!("Late interaction ({model} token vectors, not a trained ColBERT)")
        }
    }

    /// Retrieval over the token index of every passage.
    pub fn over_index(index: Arc<TokenIndex>, encoder: Arc<dyn TokenEncoder>) -> Self {
        Self { index, encoder }
    }

    /// Whether the vectors come from a trained ColBERT.
    pub fn trained(&self) -> bool {
        self.encoder.trained_late_interaction()
    }

    /// The token index.
    pub fn index(&self) -> &Arc<TokenIndex> {
        &self.index
    }
}

impl Retriever for LateInteractionRetriever {
    fn kind(&self) -> MethodKind {
        MethodKind::LateInteraction
    }

    fn label(&self) -> String {
        Self::label_of(self.encoder.model_id(), self.trained())
    }

    fn prepare(&self, query: &QueryContext) -> Result<Arc<dyn Prepared>> {
        let tokens = query.token_vectors(self.encoder.as_ref())?;
        if tokens.dim != self.index.dim() && !tokens.is_empty() {
            return Err(Error::Model(format!(
                "the question's token vectors have {} dimensions, the index's {}",
                tokens.dim,
                self.index.dim()
            )));
        }
        let index = &self.index;
        let windows = &index.windows;
        let docs = windows.docs();
        // Every row scored once, in parallel; each document then takes its best row. The
        // scores do not depend on how the rows are split between threads.
        let rows: Vec<f64> = (0..windows.rows())
            .into_par_iter()
            .map_init(RowTokens::default, |buf, r| {
                if !query.allows(windows.doc_of(r)) {
                    return Ok(f64::NEG_INFINITY);
                }
                index.read_row(r, buf)?;
                Ok(maxsim_score(&tokens, buf))
            })
            .collect::<Result<_>>()?;
        let best = (0..docs as u32)
            .map(DocId)
            .map(|d| if query.allows(d) { windows.best(d, |r| rows[r]) } else { None })
            .collect();
        Ok(Arc::new(PreparedLate { retriever: self.clone(), query: query.clone(), tokens, best }))
    }
}

impl Prepared for PreparedLate {
    fn search(&self, k: usize) -> Result<Ranking> {
        let r = &self.retriever;
        let scored = self.best.iter().enumerate().filter_map(|(d, b)| b.map(|(_, s)| (DocId(d as u32), s)));
        Ok(Ranking::top(r.label(), r.kind(), scored, k))
    }

    fn explain(&self, doc: DocId) -> Result<Explanation> {
        let r = &self.retriever;
        if !self.query.allows(doc) {
            return Ok(self.query.filtered_explanation(&r.label()));
        }
        let Some((row, _)) = self.best.get(doc.index()).copied().flatten() else {
            return Err(Error::invalid("document", format!("{doc} has no token vectors")));
        };
        let mut d = RowTokens::default();
        r.index.read_row(row, &mut d)?;
        let q = &self.tokens;
        let (value, best) = maxsim(q, &d);
        let doc_tokens: Vec<String> = d.ids.iter().map(|&id| r.encoder.token(id)).collect();
        let dim = q.dim;
        let mut matrix = Vec::with_capacity(q.len() * d.ids.len());
        for i in 0..q.len() {
            for j in 0..d.ids.len() {
                matrix.push(dot16(q.row(i), &d.data[j * dim..(j + 1) * dim]));
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
        let window = r.index.windows.scored(row);
        let strongest = alignments.iter().max_by(|a, b| a.similarity.total_cmp(&b.similarity));
        let summary = match strongest {
            Some(a) => format!(
                "{} question tokens each take their best match among {} passage tokens{}; the strongest pair is `{}` → `{}` ({:.3}). The passage vectors are read back from the token index ({}).{}",
                alignments.len(),
                doc_tokens.len(),
                window
                    .map(|w| format!(
                        " of its best window, {} (a piece it shares with a neighbouring window has the vector of the window it sits deeper in)",
                        w.describe()
                    ))
                    .unwrap_or_default(),
                a.query_token,
                a.doc_token,
                a.similarity,
                r.index.codec.describe(),
                if r.trained() { "" } else { " These are a bi-encoder's token states, not a trained ColBERT." }
            ),
            None => "The question has no tokens.".to_string(),
        };
        let mut e = Explanation::new(r.label(), value, "MaxSim(q, d) = Σ_i max_j cos(q_i, d_j)", summary);
        e.detail = Detail::MaxSim { alignments, query_tokens: q.tokens.clone(), doc_tokens, matrix };
        e.window = window;
        Ok(e)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::corpus::Corpus;
    use crate::index::encoded::token_index_of;
    use crate::models::InputKind;

    /// One 2-dim token vector per word: (1, 0) for words with an `o`, (0, 1) otherwise.
    struct Words;

    impl TokenEncoder for Words {
        fn model_id(&self) -> &str {
            "words"
        }
        fn trained_late_interaction(&self) -> bool {
            false
        }
        fn encode_tokens(&self, texts: &[&str], _: InputKind) -> Result<Vec<TokenVectors>> {
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
    fn every_passage_is_scored_from_the_index() {
        let corpus = Arc::new(Corpus::from_texts(
            "t",
            [("D1", "moon orbit"), ("D2", "sun flare"), ("D3", "moon rover"), ("D4", "mars dust")],
        ));
        let index = Arc::new(token_index_of(&corpus, &Words, 16).unwrap());
        let late = LateInteractionRetriever::over_index(index, Arc::new(Words));
        // "moon sun": moon → (1, 0), sun → (0, 1). D1 "moon orbit" has only (1, 0) tokens: 1 + 0;
        // D2 "sun flare" only (0, 1): 0 + 1; D3 like D1; D4 "mars dust" like D2.
        let r = late.search(&QueryContext::new("moon sun"), 10).unwrap();
        assert_eq!(r.docs(), [DocId(0), DocId(1), DocId(2), DocId(3)]);
        assert!(r.hits.iter().all(|h| h.score == 1.0));
        // "moon moon": D1 and D3 score 2, D2 and D4 0.
        let r = late.search(&QueryContext::new("moon moon"), 2).unwrap();
        assert_eq!((r.docs(), r.hits[0].score), (vec![DocId(0), DocId(2)], 2.0));
        let e = late.prepare(&QueryContext::new("moon moon")).unwrap().explain(DocId(2)).unwrap();
        assert_eq!(e.value, 2.0);
        assert!(e.summary.contains("f16, uncompressed"), "{}", e.summary);
    }
}
