//! A search engine as a column: a saved response (for one question, or one per query id) or a
//! live engine asked per question. Its hits keep the engine's order and scores; documents the
//! corpus does not hold stay in the list as "not in the corpus". Its explanation is the engine's
//! own tree read into term rows, and beside them RankLens's Lucene BM25 for the same document
//! (with the engine's k1 and b), so the two can be compared input by input.

use std::sync::Arc;

use super::{
    Bm25Params, Bm25Variant, Detail, EngineDetail, Explanation, LexicalModel, LexicalRetriever, MethodKind, Prepared,
    QueryContext, Ranking, Retriever,
};
use crate::corpus::{Corpus, DocId};
use crate::external::{EngineResponse, EngineSource, breakdown};
use crate::index::SparseIndex;
use crate::{Error, Result};

/// How many hits a live engine is asked for (each with its explanation).
pub const LIVE_DEPTH: usize = 100;

/// A search engine's column over a corpus.
#[derive(Clone)]
pub struct EngineRetriever {
    source: EngineSource,
    corpus: Arc<Corpus>,
    index: Option<Arc<SparseIndex>>,
}

struct PreparedEngine {
    retriever: EngineRetriever,
    query: QueryContext,
    response: Arc<EngineResponse>,
    /// What the hits answer (`query 12`, `the question the response was saved for`).
    answers: String,
    /// Each hit's document in the corpus, if it is there.
    docs: Vec<Option<DocId>>,
    /// RankLens's Lucene BM25 with the engine's k1 and b, prepared for the same question.
    textbook: Option<(Arc<dyn Prepared>, f64, f64)>,
}

/// The corpus question a typed question is, by its text.
pub(crate) fn corpus_question<'a>(corpus: &'a Corpus, text: &str) -> Option<&'a crate::corpus::Query> {
    let text = text.trim();
    corpus.queries.iter().find(|q| q.text.trim() == text)
}

impl EngineRetriever {
    /// An engine's column over this corpus; with `index`, its explanations are set beside
    /// RankLens's own Lucene BM25.
    pub fn new(source: EngineSource, corpus: Arc<Corpus>, index: Option<Arc<SparseIndex>>) -> Self {
        Self { source, corpus, index }
    }

    /// Where the engine's hits come from.
    pub fn source(&self) -> &EngineSource {
        &self.source
    }

    fn response(&self, query: &QueryContext) -> Result<(Arc<EngineResponse>, String)> {
        let name = self.source.name();
        match &self.source {
            EngineSource::Live(live) => {
                Ok((Arc::new(live.search(query.text(), LIVE_DEPTH)?), "this question, asked now".to_string()))
            }
            EngineSource::Saved(saved) => {
                if let Some(single) = &saved.single {
                    return Ok((Arc::new(single.clone()), "the one question it was saved for".to_string()));
                }
                let Some(q) = corpus_question(&self.corpus, query.text()) else {
                    return Err(Error::Unavailable(format!(
                        "`{name}` holds responses for the questions of a question set ({} of them): ask one of the \
                         corpus's questions",
                        saved.by_query.len()
                    )));
                };
                let Some(r) = saved.by_query.get(&q.id) else {
                    return Err(Error::Unavailable(format!("`{name}` has no response for query {}", q.id)));
                };
                Ok((Arc::new(r.clone()), format!("query {}", q.id)))
            }
        }
    }
}

impl Retriever for EngineRetriever {
    fn kind(&self) -> MethodKind {
        MethodKind::Engine
    }

    fn label(&self) -> String {
        self.source.name().to_string()
    }

    fn prepare(&self, query: &QueryContext) -> Result<Arc<dyn Prepared>> {
        let (response, answers) = self.response(query)?;
        let docs = response.hits.iter().map(|h| self.corpus.lookup(&h.id)).collect();
        // RankLens's Lucene BM25 with the engine's own k1 and b, so those are not a difference.
        let params = response
            .hits
            .iter()
            .filter_map(|h| h.explanation.as_ref())
            .flat_map(|t| breakdown(t).rows)
            .find_map(|r| Some((r.k1?, r.b?)));
        let textbook = match (&self.index, params) {
            (Some(index), Some((k1, b))) => {
                let params = Bm25Params { k1, b, ..Bm25Variant::Lucene.default_params() };
                let lucene =
                    LexicalRetriever::new(index.clone(), LexicalModel::Bm25 { variant: Bm25Variant::Lucene, params })?;
                Some((lucene.prepare(query)?, k1, b))
            }
            _ => None,
        };
        Ok(Arc::new(PreparedEngine {
            retriever: self.clone(),
            query: query.clone(),
            response,
            answers,
            docs,
            textbook,
        }))
    }
}

impl PreparedEngine {
    /// (hit index, its document) of the hits the filter allows, in the engine's order.
    fn shown(&self) -> impl Iterator<Item = (usize, Option<DocId>)> + '_ {
        self.docs.iter().copied().enumerate().filter(|(_, d)| d.is_none_or(|d| self.query.allows(d)))
    }

    /// A hit's score: the engine's, or 1/rank when it gave none.
    fn score(&self, i: usize) -> f64 {
        let all = self.response.hits.iter().all(|h| h.score.is_some());
        match self.response.hits.get(i).and_then(|h| h.score) {
            Some(s) if all => s,
            _ => 1.0 / (i + 1) as f64,
        }
    }
}

impl Prepared for PreparedEngine {
    fn search(&self, k: usize) -> Result<Ranking> {
        let r = &self.retriever;
        let list = self.shown().map(|(i, doc)| (doc, self.response.hits[i].id.clone(), self.score(i)));
        Ok(Ranking::of_list(r.label(), r.kind(), list, k, self.shown().count()))
    }

    fn explain(&self, doc: DocId) -> Result<Explanation> {
        let r = &self.retriever;
        if !self.query.allows(doc) {
            return Ok(self.query.filtered_explanation(&r.label()));
        }
        let name = r.source.name();
        let engine = self.response.shape.engines();
        let formula = format!("score = {engine}'s score, explained by its own tree");
        let Some(i) = self.docs.iter().position(|d| *d == Some(doc)) else {
            return Ok(Explanation::new(
                r.label(),
                0.0,
                formula,
                format!("Not among `{name}`'s {} hits for {}.", self.response.hits.len(), self.answers),
            ));
        };
        let hit = &self.response.hits[i];
        let value = self.score(i);
        let bd = hit.explanation.as_ref().map(breakdown).unwrap_or_default();
        let rank = self.shown().position(|(j, _)| j == i).map_or(i + 1, |p| p + 1);
        let summary = match (&hit.explanation, &hit.raw_explanation) {
            (Some(_), _) => match (
                bd.total(),
                bd.rows.iter().filter_map(|r| Some((r, r.contribution?))).max_by(|a, b| a.1.total_cmp(&b.1)),
            ) {
                (Some(_), Some((best, c))) => format!(
                    "`{name}` ranked it {rank} for {}: {} term weight(s) add up to its score; `{}` in `{}` carries most \
                     ({:.0}%).",
                    self.answers,
                    bd.rows.len(),
                    best.term,
                    best.field,
                    if value != 0.0 { 100.0 * c / value } else { 0.0 }
                ),
                (Some(_), None) => {
                    format!("`{name}` ranked it {rank} for {}; its score has no term weights.", self.answers)
                }
                (None, _) => format!(
                    "`{name}` ranked it {rank} for {}. Its score combines its parts through `{}`, which is not a sum: the \
                     tree shows how.",
                    self.answers,
                    bd.not_a_sum.as_deref().unwrap_or("?").trim_end_matches(':')
                ),
            },
            (None, Some((_, why))) => {
                format!("`{name}` ranked it {rank}; its explanation could not be read ({why}) and is shown as it came.")
            }
            (None, None) if !hit.features.is_empty() => format!(
                "`{name}` ranked it {rank} for {}; the engine returned {} rank features (how they combine is the rank \
                 profile's expression).",
                self.answers,
                hit.features.len()
            ),
            (None, None) => format!(
                "`{name}` ranked it {rank} for {}; the response carries no explanation (ask with explain on).",
                self.answers
            ),
        };
        let comparison = match &self.textbook {
            Some((lucene, k1, b)) if !bd.rows.is_empty() => {
                let mine = lucene.explain(doc)?;
                match &mine.detail {
                    Detail::Terms(table) => {
                        Some(super::bm25_comparison::compare(&bd.rows, value, table, mine.value, *k1, *b))
                    }
                    _ => None,
                }
            }
            _ => None,
        };
        let mut e = Explanation::new(r.label(), value, formula, summary);
        e.detail = Detail::Engine(Box::new(EngineDetail {
            engine: engine.to_string(),
            tree: hit.explanation.clone(),
            breakdown: bd,
            raw: hit.raw_explanation.clone(),
            features: hit.features.clone(),
            comparison,
        }));
        Ok(e)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::external::SavedResponses;
    use crate::retrieve::AbsentHit;
    use std::path::Path;

    fn saved(body: &str) -> EngineSource {
        EngineSource::Saved(Arc::new(SavedResponses::parse(body.as_bytes(), Path::new("es.json"), "es", None).unwrap()))
    }

    #[test]
    fn a_saved_response_ranks_in_its_order_and_keeps_documents_the_corpus_lacks() {
        let corpus = Arc::new(Corpus::from_texts("t", [("a", "alpha"), ("b", "beta")]));
        let body = r#"{"hits": {"hits": [
            {"_id": "b", "_score": 2.5, "_explanation": {"value": 2.5, "description": "weight(text:beta in 1) [P], result of:", "details": []}},
            {"_id": "zz", "_score": 1.0},
            {"_id": "a", "_score": 0.5}]}}"#;
        let r = EngineRetriever::new(saved(body), corpus, None);
        let p = r.prepare(&QueryContext::new("anything")).unwrap();
        let ranking = p.search(10).unwrap();
        assert_eq!(ranking.docs(), [DocId(1), DocId(0)]);
        assert_eq!(ranking.absent, [AbsentHit { rank: 2, id: "zz".into(), score: 1.0 }]);
        let e = p.explain(DocId(1)).unwrap();
        assert_eq!(e.value, 2.5);
        assert_eq!(e.parts_sum(), Some(2.5));
        assert!(e.summary.contains("ranked it 1 for the one question it was saved for"), "{}", e.summary);
        assert_eq!(p.explain(DocId(0)).unwrap().value, 0.5);
        assert!(e.summary.contains("`beta` in `text` carries most (100%)"), "{}", e.summary);
    }
}
