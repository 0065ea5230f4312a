//! The question as every retriever receives it: its text, the passages a filter allows, and its
//! encodings by each model.
//!
//! A question is encoded at most once per model, however many methods use that encoding (the dense
//! column, fusion's dense input, the reranker's first stage and the map all need the same vector).
//! The encodings belong to the question: a new question starts with none, so nothing computed for
//! one question can be handed to another.

use std::collections::BTreeMap;
use std::sync::{Arc, Mutex};

use super::Explanation;
use crate::analysis::{Analyzer, AnalyzerConfig};
use crate::corpus::DocId;
use crate::models::{InputKind, SparseEncoder, SparseVector, TextEncoder, TokenEncoder, TokenVectors};
use crate::{Error, Result};

/// Which documents a query may return, after metadata filters.
pub type DocFilter = Arc<Vec<bool>>;

/// The question, prepared once for every retriever.
#[derive(Debug, Clone, Default)]
pub struct QueryContext {
    /// Shared by its clones (a clone is a few reference counts: every lexical column prepares
    /// the question with one).
    text: Arc<str>,
    /// Allowed documents (`None` = all); a filtered-out document scores 0 and says so.
    filter: Option<DocFilter>,
    /// A description of the filter for explanations (`release >= 4`).
    filter_label: Option<Arc<str>>,
    /// Shared by the clones of one question.
    encodings: Arc<Encodings>,
}

/// The question's encodings, by model id.
#[derive(Debug, Default)]
struct Encodings {
    dense: Mutex<BTreeMap<String, Arc<Vec<f32>>>>,
    tokens: Mutex<BTreeMap<String, Arc<TokenVectors>>>,
    sparse: Mutex<BTreeMap<String, Arc<SparseVector>>>,
    /// Texts a language model wrote for the question (a rewrite, a draft), by generator and task:
    /// every column that uses one shares it, and the model is asked once.
    generated: Mutex<BTreeMap<String, Arc<String>>>,
    /// Its analysed terms, by analyzer (every lexical method on one analyzer shares them).
    terms: Mutex<BTreeMap<AnalyzerConfig, Arc<[String]>>>,
}

/// Look `model` up in one of the encoding maps, encoding with `encode` the first time. The lock is
/// held while encoding, so two methods asking at once wait for one encoding rather than run two.
fn memo<T>(
    map: &Mutex<BTreeMap<String, Arc<T>>>,
    model: &str,
    encode: impl FnOnce() -> Result<Option<T>>,
) -> Result<Arc<T>> {
    let mut map = map.lock().map_err(|_| Error::Model("the question's encodings are poisoned".into()))?;
    if let Some(v) = map.get(model) {
        return Ok(v.clone());
    }
    let v = Arc::new(encode()?.ok_or_else(|| Error::Model(format!("{model} returned no encoding")))?);
    map.insert(model.to_string(), v.clone());
    Ok(v)
}

impl QueryContext {
    /// Whether a filter narrows the passages.
    pub fn is_filtered(&self) -> bool {
        self.filter.is_some()
    }

    /// A plain question with no filter.
    pub fn new(text: impl Into<String>) -> Self {
        Self { text: Arc::from(text.into()), ..Default::default() }
    }

    /// Restrict results to the documents where `allowed[doc]` is true.
    pub fn with_filter(mut self, allowed: Vec<bool>, label: impl Into<String>) -> Self {
        self.filter = Some(Arc::new(allowed));
        self.filter_label = Some(Arc::from(label.into()));
        self
    }

    /// Another text under the same filter (a model's rewrite or draft of this question), with
    /// encodings of its own.
    pub fn with_text(&self, text: impl Into<String>) -> Self {
        Self {
            text: Arc::from(text.into()),
            filter: self.filter.clone(),
            filter_label: self.filter_label.clone(),
            encodings: Arc::default(),
        }
    }

    /// The text a model wrote for this question under `key` (generator and task), written by
    /// `write` the first time and shared after.
    pub fn generated(&self, key: &str, write: impl FnOnce() -> Result<String>) -> Result<Arc<String>> {
        memo(&self.encodings.generated, key, || write().map(Some))
    }

    /// The question as typed.
    pub fn text(&self) -> &str {
        &self.text
    }

    /// The filter, if any: `allowed[doc]`.
    pub fn filter(&self) -> Option<&[bool]> {
        self.filter.as_deref().map(Vec::as_slice)
    }

    /// The filter as written (`release >= 4`).
    pub fn filter_label(&self) -> Option<&str> {
        self.filter_label.as_deref()
    }

    /// May this document be returned?
    pub fn allows(&self, doc: DocId) -> bool {
        self.filter.as_ref().is_none_or(|f| f.get(doc.index()).copied().unwrap_or(false))
    }

    /// The explanation of a document the filter removed.
    pub fn filtered_explanation(&self, method: &str) -> Explanation {
        Explanation::new(
            method,
            0.0,
            "—",
            format!("Excluded by the filter `{}` before ranking.", self.filter_label.as_deref().unwrap_or("?")),
        )
    }

    /// The question's terms under an analyzer, analysed once for every method that uses it.
    pub fn terms(&self, analyzer: &Analyzer) -> Arc<[String]> {
        let config = analyzer.config();
        match self.encodings.terms.lock() {
            Ok(mut map) => map.entry(config).or_insert_with(|| analyzer.terms(&self.text).into()).clone(),
            // A poisoned map only costs the memo.
            Err(_) => analyzer.terms(&self.text).into(),
        }
    }

    /// The question's vector under a dense encoder.
    pub fn dense_vector(&self, encoder: &dyn TextEncoder) -> Result<Arc<Vec<f32>>> {
        memo(&self.encodings.dense, encoder.model_id(), || Ok(encoder.encode(&[&*self.text], InputKind::Query)?.pop()))
    }

    /// The question's token vectors under a late-interaction encoder.
    pub fn token_vectors(&self, encoder: &dyn TokenEncoder) -> Result<Arc<TokenVectors>> {
        memo(&self.encodings.tokens, encoder.model_id(), || {
            Ok(encoder.encode_tokens(&[&*self.text], InputKind::Query)?.pop())
        })
    }

    /// The question's learned sparse vector.
    pub fn sparse_vector(&self, encoder: &dyn SparseEncoder) -> Result<Arc<SparseVector>> {
        memo(&self.encodings.sparse, encoder.model_id(), || Ok(encoder.encode(&[&*self.text])?.pop()))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::atomic::{AtomicUsize, Ordering};

    /// Counts its calls; the vector depends on the text so a mix-up would show.
    struct Counting(AtomicUsize, &'static str);

    impl TextEncoder for Counting {
        fn model_id(&self) -> &str {
            self.1
        }
        fn dim(&self) -> usize {
            1
        }
        fn encode(&self, texts: &[&str], _: InputKind) -> Result<Vec<Vec<f32>>> {
            self.0.fetch_add(1, Ordering::SeqCst);
            Ok(texts.iter().map(|t| vec![t.len() as f32]).collect())
        }
    }

    #[test]
    fn a_question_is_analysed_once_per_analyzer() {
        let english = Analyzer::new("english".parse().unwrap());
        let whitespace = Analyzer::new("whitespace".parse().unwrap());
        let q = QueryContext::new("The Running dogs");
        let first = q.terms(&english);
        assert_eq!(&*first, ["run", "dog"], "stop word removed, Porter stems");
        assert!(Arc::ptr_eq(&first, &q.clone().terms(&english)), "the clones share one analysis");
        assert_eq!(&*q.terms(&whitespace), ["the", "running", "dogs"], "another analyzer, its own terms");
        assert_eq!(&*QueryContext::new("cats").terms(&english), ["cat"], "a new question starts afresh");
    }

    #[test]
    fn a_question_is_encoded_once_per_model_and_never_shared_with_another_question() {
        let (a, b) = (Counting(AtomicUsize::new(0), "a"), Counting(AtomicUsize::new(0), "b"));
        let q = QueryContext::new("four");
        let clone = q.clone();
        assert_eq!(*q.dense_vector(&a).unwrap(), [4.0]);
        assert_eq!(*clone.dense_vector(&a).unwrap(), [4.0]);
        assert_eq!(*q.dense_vector(&b).unwrap(), [4.0]);
        assert_eq!((a.0.load(Ordering::SeqCst), b.0.load(Ordering::SeqCst)), (1, 1), "once per model");
        let other = QueryContext::new("seven!");
        assert_eq!(*other.dense_vector(&a).unwrap(), [6.0], "a new question encodes anew");
        assert_eq!(a.0.load(Ordering::SeqCst), 2);
    }
}
