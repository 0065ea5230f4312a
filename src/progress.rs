//! How long work reports progress and learns it was cancelled.
//!
//! The core never knows whether a terminal, a GUI progress bar or a test is watching: it talks to a
//! [`Progress`] and checks [`Progress::is_cancelled`] between units of work.

use std::sync::Arc;
use std::sync::Mutex;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};

/// The only way core code reports long work.
pub trait Progress: Send + Sync {
    /// Start a named stage with `total` units (0 when unknown).
    fn stage(&self, name: &str, total: u64);
    /// `n` more units of the current stage are done.
    fn advance(&self, n: u64);
    /// True once the user asked to stop; work should return [`crate::Error::Cancelled`].
    fn is_cancelled(&self) -> bool;
    /// One line of what the work just did (an agent's step, a window's order), for a watcher that
    /// shows the work's trace as it grows. Ignored unless the watcher keeps them.
    fn note(&self, line: &str) {
        let _ = line;
    }
}

/// Lines of notes a [`SharedProgress`] keeps (the last ones).
pub const KEPT_NOTES: usize = 50;

/// A progress sink that ignores everything and never cancels.
#[derive(Debug, Default, Clone, Copy)]
pub struct NoProgress;

impl Progress for NoProgress {
    fn stage(&self, _name: &str, _total: u64) {}
    fn advance(&self, _n: u64) {}
    fn is_cancelled(&self) -> bool {
        false
    }
}

/// Forwards only the cancel button to work whose own stages would replace the caller's (a model
/// asked once for each window, passage or pair, while the caller's bar counts those).
pub struct CancelOnly<'a>(pub &'a dyn Progress);

impl Progress for CancelOnly<'_> {
    fn stage(&self, _name: &str, _total: u64) {}
    fn advance(&self, _n: u64) {}
    fn is_cancelled(&self) -> bool {
        self.0.is_cancelled()
    }
}

/// Return `Err(Cancelled)` when the progress sink says so.
pub fn check_cancel(progress: &dyn Progress) -> crate::Result<()> {
    if progress.is_cancelled() { Err(crate::Error::Cancelled) } else { Ok(()) }
}

/// A thread-safe progress record that a UI can poll: stage name, done and total, cancel flag.
#[derive(Debug, Default, Clone)]
pub struct SharedProgress {
    inner: Arc<SharedInner>,
}

#[derive(Debug, Default)]
struct SharedInner {
    stage: Mutex<String>,
    done: AtomicU64,
    total: AtomicU64,
    cancelled: AtomicBool,
    started: Mutex<Option<std::time::Instant>>,
    notes: Mutex<Vec<String>>,
}

/// A snapshot of a [`SharedProgress`] for drawing.
#[derive(Debug, Clone, PartialEq)]
pub struct ProgressSnapshot {
    /// Current stage name.
    pub stage: String,
    /// Units done in the stage.
    pub done: u64,
    /// Units in the stage (0 when unknown).
    pub total: u64,
    /// Seconds since the stage started.
    pub elapsed_secs: f64,
    /// The work's last notes ([`Progress::note`]), oldest first.
    pub notes: Vec<String>,
}

impl ProgressSnapshot {
    /// Fraction done in 0..=1 (0 when the total is unknown).
    pub fn fraction(&self) -> f32 {
        if self.total == 0 { 0.0 } else { (self.done as f64 / self.total as f64).clamp(0.0, 1.0) as f32 }
    }

    /// Estimated seconds left, from the rate so far.
    pub fn eta_secs(&self) -> Option<f64> {
        if self.done == 0 || self.total == 0 || self.done >= self.total {
            return None;
        }
        let rate = self.done as f64 / self.elapsed_secs.max(1e-6);
        Some((self.total - self.done) as f64 / rate)
    }
}

impl SharedProgress {
    /// A fresh record.
    pub fn new() -> Self {
        Self::default()
    }

    /// Ask the work to stop.
    pub fn cancel(&self) {
        self.inner.cancelled.store(true, Ordering::SeqCst);
    }

    /// What the work is doing now.
    pub fn snapshot(&self) -> ProgressSnapshot {
        let stage = self.inner.stage.lock().map(|s| s.clone()).unwrap_or_default();
        let elapsed_secs =
            self.inner.started.lock().ok().and_then(|s| s.map(|t| t.elapsed().as_secs_f64())).unwrap_or(0.0);
        ProgressSnapshot {
            stage,
            done: self.inner.done.load(Ordering::Relaxed),
            total: self.inner.total.load(Ordering::Relaxed),
            elapsed_secs,
            notes: self.inner.notes.lock().map(|n| n.clone()).unwrap_or_default(),
        }
    }
}

impl Progress for SharedProgress {
    fn stage(&self, name: &str, total: u64) {
        if let Ok(mut s) = self.inner.stage.lock() {
            *s = name.to_string();
        }
        if let Ok(mut s) = self.inner.started.lock() {
            *s = Some(std::time::Instant::now());
        }
        self.inner.done.store(0, Ordering::Relaxed);
        self.inner.total.store(total, Ordering::Relaxed);
    }
    fn advance(&self, n: u64) {
        self.inner.done.fetch_add(n, Ordering::Relaxed);
    }
    fn is_cancelled(&self) -> bool {
        self.inner.cancelled.load(Ordering::SeqCst)
    }
    fn note(&self, line: &str) {
        if let Ok(mut notes) = self.inner.notes.lock() {
            if notes.len() == KEPT_NOTES {
                notes.remove(0);
            }
            notes.push(line.to_string());
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn shared_progress_reports_fraction_and_cancel() {
        let p = SharedProgress::new();
        p.stage("indexing", 4);
        p.advance(1);
        assert_eq!(p.snapshot().fraction(), 0.25);
        assert!(!p.is_cancelled());
        p.cancel();
        assert!(matches!(check_cancel(&p), Err(crate::Error::Cancelled)));
    }

    #[test]
    fn notes_keep_the_last_lines_in_order() {
        let p = SharedProgress::new();
        for i in 0..KEPT_NOTES + 3 {
            p.note(&format!("step {i}"));
        }
        let notes = p.snapshot().notes;
        assert_eq!(notes.len(), KEPT_NOTES);
        assert_eq!(notes[0], "step 3");
        assert_eq!(notes.last().map(String::as_str), Some(format!("step {}", KEPT_NOTES + 2).as_str()));
        NoProgress.note("ignored");
    }
}
