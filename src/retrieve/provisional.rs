//! A provisional neural column: while a corpus is being encoded, a dense, SPLADE or late-interaction
//! column can still answer at once by encoding only a first stage's candidates (BM25's top 200)
//! with the same model and ranking them. The ranking is the one the full index would give those
//! candidates — the same windows, the same model, the same scoring code — but a passage outside the
//! candidates is not scored at all, so the column, each explanation and any report made from it say
//! that it is provisional. The app replaces it with the full ranking when the encoding finishes.

use std::sync::Arc;

use super::{Explanation, MethodKind, Prepared, QueryContext, Ranking, Retriever};
use crate::Result;
use crate::corpus::DocId;
use crate::progress::{NoProgress, Progress};

/// How many of the first stage's passages a provisional column encodes.
pub const PROVISIONAL_DEPTH: usize = 200;

/// Builds the real method over an index of only the marked documents (by `DocId` index), encoding
/// them with progress and stopping when cancelled.
pub type BuildOver = dyn Fn(&[bool], &dyn Progress) -> Result<Arc<dyn Retriever>> + Send + Sync;

/// A neural method ranked over a first stage's candidates only, while the whole corpus is being
/// encoded.
#[derive(Clone)]
pub struct ProvisionalRetriever {
    kind: MethodKind,
    /// The method's own label (`Dense (all-MiniLM-L6-v2@bf16)`).
    base: String,
    /// The first stage (BM25 with the settings' parameters).
    first: Arc<dyn Retriever>,
    /// Documents in the corpus.
    docs: usize,
    /// How far the whole encoding is (`2,304 of 9,978 windows`), said in the label.
    status: String,
    build: Arc<BuildOver>,
}

impl ProvisionalRetriever {
    /// `kind` labelled `base`, ranked over the [`PROVISIONAL_DEPTH`] best of `first` (in a corpus
    /// of `docs` documents) by the method `build` makes over an index of just those documents;
    /// `status` says how far the full encoding is.
    pub fn new(
        kind: MethodKind,
        base: String,
        first: Arc<dyn Retriever>,
        docs: usize,
        status: String,
        build: Arc<BuildOver>,
    ) -> Self {
        Self { kind, base, first, docs, status, build }
    }

    /// What the label adds to the method's name, and what every explanation starts with.
    fn note(&self) -> String {
        format!(
            "provisional — over {}'s top {} while the corpus is encoded ({})",
            self.first_name(),
            PROVISIONAL_DEPTH,
            self.status
        )
    }

    fn first_name(&self) -> String {
        self.first.kind().label().to_string()
    }
}

impl Retriever for ProvisionalRetriever {
    fn kind(&self) -> MethodKind {
        self.kind
    }

    fn label(&self) -> String {
        format!("{}, {}", self.base, self.note())
    }

    fn prepare(&self, query: &QueryContext) -> Result<Arc<dyn Prepared>> {
        self.prepare_with(query, &NoProgress)
    }

    fn prepare_with(&self, query: &QueryContext, progress: &dyn Progress) -> Result<Arc<dyn Prepared>> {
        let first = self.first.search(query, PROVISIONAL_DEPTH)?;
        let mut keep = vec![false; self.docs];
        for h in &first.hits {
            if let Some(k) = keep.get_mut(h.doc.index()) {
                *k = true;
            }
        }
        let inner = (self.build)(&keep, progress)?.prepare(query)?;
        Ok(Arc::new(PreparedProvisional { retriever: self.clone(), keep, candidates: first.hits.len(), inner }))
    }
}

struct PreparedProvisional {
    retriever: ProvisionalRetriever,
    /// The first stage's candidates, by `DocId` index.
    keep: Vec<bool>,
    candidates: usize,
    inner: Arc<dyn Prepared>,
}

impl Prepared for PreparedProvisional {
    fn search(&self, k: usize) -> Result<Ranking> {
        let mut ranking = self.inner.search(k)?;
        ranking.method = self.retriever.label();
        ranking.provisional = true;
        ranking.note = Some(self.retriever.note());
        Ok(ranking)
    }

    fn explain(&self, doc: DocId) -> Result<Explanation> {
        let r = &self.retriever;
        if !self.keep.get(doc.index()).copied().unwrap_or(false) {
            return Ok(Explanation::new(
                r.label(),
                0.0,
                "—",
                format!(
                    "Provisional: not among the {} passages {} ranked first, the only ones this column has encoded so far ({}); the full ranking replaces this one when the encoding finishes.",
                    self.candidates,
                    r.first_name(),
                    r.status
                ),
            ));
        }
        let mut e = self.inner.explain(doc)?;
        e.method = r.label();
        e.summary = format!(
            "Provisional: scored among {}'s top {} only, the passages encoded for this question while the corpus is encoded ({}); its score is the one the full index gives it. {}",
            r.first_name(),
            self.candidates,
            r.status,
            e.summary
        );
        Ok(e)
    }
}
