//! A run from another system as a column. The run is matched to the question set by query id (a
//! typed question is looked up among the corpus's questions) and to the corpus by document id;
//! documents the corpus does not hold stay in the list as "not in the corpus", never dropped.
//! Its explanation is what the run says: the document's rank and score in the file.

use std::sync::Arc;

use super::{Explanation, MethodKind, Prepared, QueryContext, Ranking, Retriever};
use crate::corpus::{Corpus, DocId};
use crate::eval::RunFile;
use crate::{Error, Result};

/// An external run over a corpus.
#[derive(Clone)]
pub struct RunRetriever {
    run: Arc<RunFile>,
    corpus: Arc<Corpus>,
}

/// The run's list for one question: (document in the corpus, if it is there; id; score).
struct PreparedRun {
    retriever: RunRetriever,
    query: QueryContext,
    qid: String,
    list: Vec<(Option<DocId>, String, f64)>,
}

impl RunRetriever {
    /// A run's rankings as a column over this corpus.
    pub fn new(run: Arc<RunFile>, corpus: Arc<Corpus>) -> Self {
        Self { run, corpus }
    }

    /// The run.
    pub fn run(&self) -> &Arc<RunFile> {
        &self.run
    }

    fn formula(&self) -> &'static str {
        if self.run.ranks_only {
            "score = 1/rank (the run file gives ranks only)"
        } else {
            "score = the score in the run file"
        }
    }
}

impl Retriever for RunRetriever {
    fn kind(&self) -> MethodKind {
        MethodKind::Run
    }

    fn label(&self) -> String {
        self.run.name.clone()
    }

    fn prepare(&self, query: &QueryContext) -> Result<Arc<dyn Prepared>> {
        let name = &self.run.name;
        let text = query.text().trim();
        let Some(q) = self.corpus.queries.iter().find(|q| q.text.trim() == text) else {
            return Err(Error::Unavailable(if self.corpus.queries.is_empty() {
                format!("`{name}` ranks its own question set, and this corpus has none to match its query ids with")
            } else {
                format!(
                    "`{name}` ranks only the questions of its question set: ask one of the corpus's {} questions",
                    self.corpus.queries.len()
                )
            }));
        };
        let Some(ranked) = self.run.run.results.get(&q.id) else {
            return Err(Error::Unavailable(format!("`{name}` has no ranking for query {}", q.id)));
        };
        let list = ranked.iter().map(|(id, score)| (self.corpus.lookup(id), id.clone(), *score)).collect();
        Ok(Arc::new(PreparedRun { retriever: self.clone(), query: query.clone(), qid: q.id.clone(), list }))
    }
}

impl PreparedRun {
    /// The list without the passages the filter excludes (documents the corpus does not hold
    /// stay: the filter cannot see them).
    fn shown(&self) -> impl Iterator<Item = &(Option<DocId>, String, f64)> {
        self.list.iter().filter(|(d, _, _)| d.is_none_or(|d| self.query.allows(d)))
    }
}

impl Prepared for PreparedRun {
    fn search(&self, k: usize) -> Result<Ranking> {
        let r = &self.retriever;
        let list = self.shown().map(|(doc, id, score)| (*doc, id.clone(), *score));
        Ok(Ranking::of_list(r.label(), r.kind(), list, k, self.shown().count()))
    }

    fn explain(&self, doc: DocId) -> Result<Explanation> {
        let r = &self.retriever;
        if !self.query.allows(doc) {
            return Ok(self.query.filtered_explanation(&r.label()));
        }
        let (name, file) = (&r.run.name, r.run.source.display());
        let of = self.shown().count();
        let found = self.shown().enumerate().find(|(_, (d, _, _))| *d == Some(doc));
        Ok(match found {
            Some((i, (_, _, score))) => Explanation::new(
                r.label(),
                *score,
                r.formula(),
                format!(
                    "`{name}` ranked it {} of {of} for query {} with score {score} ({file}). A run says what \
                     its system ranked, not why.",
                    i + 1,
                    self.qid
                ),
            )
            .without_split("a run file gives each passage's score, not its parts"),
            None => Explanation::new(
                r.label(),
                0.0,
                r.formula(),
                format!("Not in `{name}`'s ranking for query {} ({of} documents, {file}).", self.qid),
            ),
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::corpus::Query;
    use crate::eval::RunFormat;
    use crate::retrieve::AbsentHit;
    use std::path::Path;

    fn setup() -> RunRetriever {
        let mut corpus = Corpus::from_texts("t", [("a", "alpha"), ("b", "beta"), ("c", "gamma")]);
        corpus.queries = vec![Query { id: "7".into(), text: "which letter?".into() }];
        let text = "7 Q0 b 1 3.0 sys\n7 Q0 zz 2 2.0 sys\n7 Q0 a 3 1.0 sys\n8 Q0 c 1 1.0 sys\n";
        let run = RunFile::parse(text.as_bytes(), Some(RunFormat::Trec), Path::new("sys.trec"), "sys").unwrap();
        RunRetriever::new(Arc::new(run), Arc::new(corpus))
    }

    #[test]
    fn a_run_is_matched_by_query_and_document_id_and_keeps_what_the_corpus_lacks() {
        let r = setup();
        let p = r.prepare(&QueryContext::new(" which letter? ")).unwrap();
        let ranking = p.search(10).unwrap();
        assert_eq!(ranking.docs(), [DocId(1), DocId(0)]);
        assert_eq!(ranking.absent, [AbsentHit { rank: 2, id: "zz".into(), score: 2.0 }]);
        assert_eq!((ranking.total_matches, ranking.rank_of(DocId(0))), (3, Some(3)));
        let top2 = p.search(2).unwrap();
        assert_eq!((top2.hits.len(), top2.absent.len()), (1, 1), "k counts the absent document too");
        for hit in &ranking.hits {
            assert_eq!(p.explain(hit.doc).unwrap().value, hit.score);
        }
        let why_not = p.explain(DocId(2)).unwrap();
        assert_eq!(why_not.value, 0.0);
        assert!(why_not.summary.contains("Not in `sys`'s ranking for query 7"), "{}", why_not.summary);
    }

    #[test]
    fn a_question_outside_the_run_says_so() {
        let r = setup();
        let e = r.prepare(&QueryContext::new("something else")).err().unwrap();
        assert!(matches!(e, Error::Unavailable(_)), "{e}");
        assert!(e.to_string().contains("ask one of the corpus's 1 questions"), "{e}");
    }

    #[test]
    fn a_filter_removes_passages_but_not_documents_it_cannot_see() {
        let r = setup();
        let q = QueryContext::new("which letter?").with_filter(vec![false, true, true], "not a");
        let ranking = r.prepare(&q).unwrap().search(10).unwrap();
        assert_eq!((ranking.docs(), ranking.absent.len(), ranking.total_matches), (vec![DocId(1)], 1, 2));
    }
}
