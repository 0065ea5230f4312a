//! A dense column from vectors computed elsewhere: the passages' vectors from a file, the
//! question's from the query file (for the questions of the corpus's question set, by id) or from
//! a local model folder (for any typed question).

use std::collections::HashMap;
use std::sync::Arc;

use super::DenseRetriever;
use crate::corpus::Corpus;
use crate::external::VectorSet;
use crate::external::vectors::normalize;
use crate::models::{InputKind, TextEncoder};
use crate::{Error, Result};

/// Question vectors of a [`VectorSet`]: looked up by the question's id, else encoded by a model.
pub struct FileQueries {
    id: String,
    set: Arc<VectorSet>,
    /// Question text → query id.
    by_text: HashMap<String, String>,
    model: Option<Arc<dyn TextEncoder>>,
}

impl FileQueries {
    /// The question vectors of `set` for `corpus`'s questions, and `model` for any other.
    pub fn new(set: Arc<VectorSet>, corpus: &Corpus, model: Option<Arc<dyn TextEncoder>>) -> Result<Self> {
        if let Some(m) = &model
            && m.dim() != set.dim
        {
            return Err(Error::invalid(
                m.model_id(),
                format!("the model gives {}-d vectors and the passage vectors are {}-d", m.dim(), set.dim),
            ));
        }
        let by_text = corpus.queries.iter().map(|q| (q.text.trim().to_string(), q.id.clone())).collect();
        Ok(Self { id: format!("vectors:{}", set.passages_file.display()), set, by_text, model })
    }
}

impl TextEncoder for FileQueries {
    fn model_id(&self) -> &str {
        &self.id
    }

    fn dim(&self) -> usize {
        self.set.dim
    }

    fn encode(&self, texts: &[&str], kind: InputKind) -> Result<Vec<Vec<f32>>> {
        let name = &self.set.name;
        texts
            .iter()
            .map(|text| {
                let qid = self.by_text.get(text.trim());
                if let Some(v) = qid.and_then(|q| self.set.queries.get(q)) {
                    return Ok(v.clone());
                }
                let Some(model) = &self.model else {
                    return Err(Error::Unavailable(match (qid, &self.set.queries_file) {
                        (Some(q), Some(file)) => format!("`{name}`: {} holds no vector for query {q}", file.display()),
                        (Some(q), None) => format!(
                            "`{name}` has passage vectors only: give the question vectors (query {q}) in a file, or \
                             a model folder for typed questions"
                        ),
                        (None, _) => format!(
                            "`{name}` has vectors for the questions of the question set: ask one of them, or give a \
                             model folder for typed questions"
                        ),
                    }));
                };
                let mut v = model.encode(&[*text], kind)?.pop().unwrap_or_default();
                normalize(&mut v);
                Ok(v)
            })
            .collect()
    }
}

/// The dense column of a vector set.
pub fn vector_retriever(
    set: Arc<VectorSet>,
    corpus: &Corpus,
    model: Option<Arc<dyn TextEncoder>>,
) -> Result<DenseRetriever> {
    let queries = FileQueries::new(set.clone(), corpus, model)?;
    Ok(DenseRetriever::from_file(set.index(), Arc::new(queries), set.name.clone()))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::corpus::{DocId, Query};
    use crate::external::VectorFile;
    use crate::retrieve::{Detail, QueryContext, Retriever};

    #[test]
    fn a_question_of_the_set_ranks_by_its_vector_and_a_typed_one_says_what_is_missing() {
        let dir = tempfile::tempdir().unwrap();
        let mut corpus = Corpus::from_texts("t", [("a", "alpha"), ("b", "beta"), ("c", "gamma")]);
        corpus.queries = vec![Query { id: "q1".into(), text: "Which is first?".into() }];
        let p = dir.path().join("p.jsonl");
        VectorFile {
            ids: Some(vec!["a".into(), "b".into(), "c".into()]),
            dim: 2,
            data: vec![1.0, 0.0, 0.6, 0.8, 0.0, 1.0],
        }
        .write(&p)
        .unwrap();
        let q = dir.path().join("q.jsonl");
        VectorFile { ids: Some(vec!["q1".into()]), dim: 2, data: vec![0.0, 2.0] }.write(&q).unwrap();
        let set = Arc::new(VectorSet::open(&p, Some(&q), &corpus, None).unwrap());
        let r = vector_retriever(set, &corpus, None).unwrap();
        assert_eq!(r.label(), "p");
        let prepared = r.prepare(&QueryContext::new(" Which is first? ")).unwrap();
        let ranking = prepared.search(3).unwrap();
        // By hand: q = (0, 1); cosines a 0, b 0.8, c 1.
        assert_eq!(ranking.docs(), [DocId(2), DocId(1), DocId(0)]);
        assert!((ranking.hits[1].score - 0.8).abs() < 1e-6, "{}", ranking.hits[1].score);
        let e = prepared.explain(DocId(1)).unwrap();
        assert!(matches!(e.detail, Detail::Dense { rank_among_all: 2, of: 3, .. }));
        let typed = r.prepare(&QueryContext::new("something else")).err().unwrap();
        assert!(matches!(typed, Error::Unavailable(_)) && typed.to_string().contains("give a model folder"), "{typed}");
    }
}
