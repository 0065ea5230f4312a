//! What the workbench keeps while a corpus is encoded: each role's progress, the pause the
//! corpus's encoding takes while a provisional column encodes a question's candidates, and the
//! last provisional dense build (shared by the dense and late columns).

use std::collections::BTreeMap;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};

use crate::corpus::Corpus;
use crate::index::encoded::{Cut, DenseIndex, TokenTarget, build_dense};
use crate::index::tokens::TokenIndex;
use crate::models::{BertDenseEncoder, Role, TextEncoder, WindowSpec};
use crate::progress::Progress;
use crate::retrieve::provisional::BuildOver;
use crate::{Error, Result};

/// What the engine keeps for provisional columns (shared with the builds they start).
#[derive(Default)]
pub(super) struct ProvisionalState {
    /// Provisional encodings under way: the corpus's encodings wait while there are any.
    active: AtomicUsize,
    /// Each role's whole encoding: its stage, units done and total.
    status: Mutex<BTreeMap<Role, (String, u64, u64)>>,
    /// The last provisional dense build: the late column over the dense model's token vectors
    /// reads the token vectors of the same forward pass instead of encoding the passages again.
    pub(super) dense: Mutex<Option<DenseBuild>>,
}

pub(super) struct DenseBuild {
    keep: Vec<bool>,
    model_id: String,
    index: Arc<DenseIndex>,
    tokens: Option<Arc<TokenIndex>>,
}

/// Holds the corpus's encodings paused while it lives.
pub(super) struct Paused<'a>(&'a AtomicUsize);

impl Drop for Paused<'_> {
    fn drop(&mut self) {
        self.0.fetch_sub(1, Ordering::SeqCst);
    }
}

impl ProvisionalState {
    pub(super) fn pause(&self) -> Paused<'_> {
        self.active.fetch_add(1, Ordering::SeqCst);
        Paused(&self.active)
    }

    /// How far the whole encoding of a role is, for a provisional column's label.
    pub(super) fn status_of(&self, role: Role) -> String {
        let status = self.status.lock().ok().and_then(|m| m.get(&role).cloned());
        match status {
            Some((stage, done, total)) if stage.starts_with("encoding") && total > 0 => {
                format!("{} of {} windows", grouped(done), grouped(total))
            }
            Some((stage, ..)) if stage.starts_with("learning the token compression") => {
                "learning the token compression".into()
            }
            Some((stage, ..)) if stage.contains("waiting for the other encoding") => {
                "waiting for the other encoding".into()
            }
            Some(_) => "starting".into(),
            None => "its encoding has not started".into(),
        }
    }

    fn finished(&self, role: Role) {
        if let Ok(mut m) = self.status.lock() {
            m.remove(&role);
        }
    }

    /// The dense vectors (and, with `tokens`, the f16 token vectors of the same forward pass) of
    /// the marked documents' windows, built once per set of candidates and model.
    pub(super) fn dense(
        &self,
        corpus: &Corpus,
        encoder: &BertDenseEncoder,
        spec: WindowSpec,
        keep: &[bool],
        tokens: bool,
        progress: &dyn Progress,
    ) -> Result<(Arc<DenseIndex>, Option<Arc<TokenIndex>>)> {
        let id = TextEncoder::model_id(encoder);
        let mut memo = self.dense.lock().map_err(|_| Error::Model("provisional state poisoned".into()))?;
        if let Some(b) = memo.as_ref().filter(|b| b.keep == keep && b.model_id == id && (b.tokens.is_some() || !tokens))
        {
            return Ok((b.index.clone(), b.tokens.clone()));
        }
        let target = f16_in_memory();
        let (index, late) =
            build_dense(corpus, encoder, None, Cut { spec, only: Some(keep) }, tokens.then_some(&target), progress)?;
        let (index, late) = (Arc::new(index), late.map(Arc::new));
        *memo = Some(DenseBuild {
            keep: keep.to_vec(),
            model_id: id.to_string(),
            index: index.clone(),
            tokens: late.clone(),
        });
        Ok((index, late))
    }
}

/// The progress of a corpus's encoding with one role's model: passed on to the job's own
/// progress, recorded for provisional labels, and paused (between steps, where the encoding asks
/// whether it was cancelled) while a provisional column encodes its candidates.
pub(super) struct EncodingProgress<'a> {
    inner: &'a dyn Progress,
    state: &'a ProvisionalState,
    role: Role,
}

impl<'a> EncodingProgress<'a> {
    pub(super) fn new(inner: &'a dyn Progress, state: &'a ProvisionalState, role: Role) -> Self {
        Self { inner, state, role }
    }
}

impl Drop for EncodingProgress<'_> {
    fn drop(&mut self) {
        self.state.finished(self.role);
    }
}

impl Progress for EncodingProgress<'_> {
    fn stage(&self, name: &str, total: u64) {
        self.inner.stage(name, total);
        if let Ok(mut m) = self.state.status.lock() {
            m.insert(self.role, (name.to_string(), 0, total));
        }
    }

    fn advance(&self, n: u64) {
        self.inner.advance(n);
        if let Ok(mut m) = self.state.status.lock()
            && let Some(s) = m.get_mut(&self.role)
        {
            s.1 += n;
        }
    }

    fn is_cancelled(&self) -> bool {
        while self.state.active.load(Ordering::SeqCst) > 0 && !self.inner.is_cancelled() {
            std::thread::sleep(std::time::Duration::from_millis(20));
        }
        self.inner.is_cancelled()
    }
}

/// Where a provisional token index is kept: in memory, uncompressed (f16), since there are too
/// few vectors to learn a codec from and it lives for one question.
pub(super) fn f16_in_memory() -> TokenTarget {
    TokenTarget { bits: 16, file: None, f16_file: None }
}

/// `build`, holding the corpus's encodings paused while it runs (every provisional build does).
pub(super) fn pausing(state: &Arc<ProvisionalState>, build: Arc<BuildOver>) -> Arc<BuildOver> {
    let state = state.clone();
    Arc::new(move |keep: &[bool], progress: &dyn Progress| {
        let _paused = state.pause();
        build(keep, progress)
    })
}

/// 9978 → "9,978".
fn grouped(n: u64) -> String {
    let digits = n.to_string();
    let mut out = String::with_capacity(digits.len() + digits.len() / 3);
    for (i, c) in digits.chars().enumerate() {
        if i > 0 && (digits.len() - i).is_multiple_of(3) {
            out.push(',');
        }
        out.push(c);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::progress::SharedProgress;

    #[test]
    fn a_provisional_build_holds_the_encodings_paused_while_it_runs() {
        let state = Arc::new(ProvisionalState::default());
        let seen = Arc::new(AtomicUsize::new(usize::MAX));
        let during = seen.clone();
        let inner = state.clone();
        let build = pausing(
            &state,
            Arc::new(move |_: &[bool], _: &dyn Progress| {
                during.store(inner.active.load(Ordering::SeqCst), Ordering::SeqCst);
                Err(Error::Cancelled)
            }),
        );
        assert!(build(&[true], &crate::progress::NoProgress).is_err());
        assert_eq!(seen.load(Ordering::SeqCst), 1, "paused while building");
        assert_eq!(state.active.load(Ordering::SeqCst), 0, "released after, even on failure");
    }

    #[test]
    fn numbers_are_grouped_by_thousands() {
        let cases = [(0, "0"), (7, "7"), (999, "999"), (1000, "1,000"), (9978, "9,978"), (1234567, "1,234,567")];
        for (n, text) in cases {
            assert_eq!(grouped(n), text);
        }
    }

    #[test]
    fn the_encoding_reports_its_progress_and_waits_while_a_provisional_one_runs() {
        let state = Arc::new(ProvisionalState::default());
        assert_eq!(state.status_of(Role::Dense), "its encoding has not started");
        let job = SharedProgress::new();
        {
            let p = EncodingProgress::new(&job, &state, Role::Dense);
            p.stage("encoding with m", 9978);
            p.advance(2000);
            p.advance(304);
            assert_eq!(state.status_of(Role::Dense), "2,304 of 9,978 windows");
            assert_eq!(job.snapshot().done, 2304, "the job's own progress is told too");
            p.stage("learning the token compression: 2048 centroids from 68092 token vectors", 6);
            p.advance(3);
            assert_eq!(state.status_of(Role::Dense), "learning the token compression");
            p.stage("cutting long documents into windows", 5183);
            assert_eq!(state.status_of(Role::Dense), "starting");
            p.stage("dense: waiting for the other encoding to finish", 0);
            assert_eq!(state.status_of(Role::Dense), "waiting for the other encoding");
            assert_eq!(state.status_of(Role::Splade), "its encoding has not started");

            // Paused: `is_cancelled` returns only once the provisional encoding is done.
            let paused = state.pause();
            let (tx, rx) = std::sync::mpsc::channel();
            std::thread::scope(|scope| {
                scope.spawn(|| {
                    let cancelled = p.is_cancelled();
                    let _ = tx.send(cancelled);
                });
                std::thread::sleep(std::time::Duration::from_millis(200));
                assert!(rx.try_recv().is_err(), "the encoding went on during a provisional one");
                drop(paused);
                assert_eq!(rx.recv_timeout(std::time::Duration::from_secs(10)), Ok(false));
            });

            // Cancelling ends the wait too.
            let _paused = state.pause();
            job.cancel();
            assert!(p.is_cancelled());
        }
        assert_eq!(state.status_of(Role::Dense), "its encoding has not started", "a finished encoding is forgotten");
    }
}
