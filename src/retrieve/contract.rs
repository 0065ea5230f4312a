//! The contract every method implements: a `Retriever` prepares a question once into a
//! `Prepared` state, and both the ranking and every explanation are read from it.

use std::sync::Arc;

use super::{Explanation, MethodKind, QueryContext, Ranking};
use crate::Result;
use crate::corpus::DocId;

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
