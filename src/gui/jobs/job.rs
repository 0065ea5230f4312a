//! One job: its state, its run on a named thread, and what the work list needs of it.
//!
//! Background work, typed. Every long operation (loading, indexing, encoding, downloads, ranking,
//! explaining) runs on a named thread as a [`Job`] whose result has its own type, and whose state
//! is one enum: idle, running (with progress and the previous result), ready, or failed with the
//! message.
//!
//! Each run of a job has its own result channel. Starting a job again (a new question while the
//! old one ranks) or cancelling it drops the old run's receiver and cancels its progress token, so
//! a superseded result can never land: no generation counters, no flags.

use std::sync::mpsc::{Receiver, TryRecvError, channel};
use std::time::Instant;

use super::JobKind;
use crate::progress::{ProgressSnapshot, SharedProgress};

/// A running job.
#[derive(Debug)]
pub struct Running<T> {
    progress: SharedProgress,
    started: Instant,
    rx: Receiver<crate::Result<T>>,
    /// The result of the run this one supersedes, shown until it finishes.
    pub previous: Option<T>,
}

/// The state of a job.
#[derive(Debug, Default)]
pub enum JobState<T> {
    /// Never run, or cancelled before its first result.
    #[default]
    Idle,
    /// Working.
    Running(Running<T>),
    /// Finished with a result.
    Ready(T),
    /// Finished with an error (its message is [`crate::Error::report`]).
    Failed(crate::Error),
}

/// One kind of background work with a typed result.
#[derive(Debug)]
pub struct Job<T> {
    kind: JobKind,
    state: JobState<T>,
}

/// What [`Job::poll`] saw.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Polled {
    /// Nothing changed.
    Same,
    /// The run finished with a result.
    Ready,
    /// The run failed.
    Failed,
}

impl<T: Send + 'static> Job<T> {
    /// An idle job.
    pub fn new(kind: JobKind) -> Self {
        Self { kind, state: JobState::Idle }
    }

    /// Which job.
    pub fn kind(&self) -> JobKind {
        self.kind
    }

    /// Its state.
    pub fn state(&self) -> &JobState<T> {
        &self.state
    }

    /// Start a run on its own thread, superseding a running one (which is cancelled and whose
    /// result is dropped). `wake` is called when the run finishes (the app asks for a repaint).
    pub fn start(
        &mut self,
        wake: impl Fn() + Send + 'static,
        work: impl FnOnce(&SharedProgress) -> crate::Result<T> + Send + 'static,
    ) {
        let previous = self.take_latest();
        let progress = SharedProgress::new();
        let (tx, rx) = channel();
        let p = progress.clone();
        let label = self.kind.label();
        let name = format!("ranklens-{}", label.to_lowercase().replace([' ', '(', ')'], "-"));
        let spawned = std::thread::Builder::new().name(name).spawn(move || {
            // A panic is a bug; the panic hook has already printed it to stderr.
            let result = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| work(&p)))
                .unwrap_or_else(|payload| Err(crate::Error::panicked(label, payload.as_ref())));
            // The receiver is gone when this run was superseded or cancelled: nothing to deliver.
            let _ = tx.send(result);
            wake();
        });
        self.state = match spawned {
            Ok(_) => JobState::Running(Running { progress, started: Instant::now(), rx, previous }),
            Err(e) => JobState::Failed(crate::Error::caused("could not start a thread", e)),
        };
    }

    /// Stop a running job; its result is dropped and the previous result (if any) is shown again.
    pub fn cancel(&mut self) {
        if !self.is_running() {
            return;
        }
        if let JobState::Running(r) = std::mem::take(&mut self.state) {
            r.progress.cancel();
            self.state = r.previous.map_or(JobState::Idle, JobState::Ready);
        }
    }

    /// Move a finished run's result into the state. Returns what happened.
    pub fn poll(&mut self) -> Polled {
        let JobState::Running(r) = &self.state else { return Polled::Same };
        let outcome = match r.rx.try_recv() {
            Ok(result) => result,
            Err(TryRecvError::Empty) => return Polled::Same,
            Err(TryRecvError::Disconnected) => Err(crate::Error::Invalid {
                location: self.kind.label(),
                message: "the job ended without a result".into(),
            }),
        };
        let (state, polled) = match outcome {
            Ok(value) => (JobState::Ready(value), Polled::Ready),
            Err(e) => (JobState::Failed(e), Polled::Failed),
        };
        self.state = state;
        polled
    }

    /// Is it working?
    pub fn is_running(&self) -> bool {
        matches!(self.state, JobState::Running(_))
    }

    /// The finished result.
    pub fn ready(&self) -> Option<&T> {
        match &self.state {
            JobState::Ready(v) => Some(v),
            _ => None,
        }
    }

    /// The finished result, to complete it in place (the second ranking phase fills columns in).
    pub fn ready_mut(&mut self) -> Option<&mut T> {
        match &mut self.state {
            JobState::Ready(v) => Some(v),
            _ => None,
        }
    }

    /// The result to show: the finished one, or while running the one it supersedes.
    pub fn latest(&self) -> Option<&T> {
        match &self.state {
            JobState::Ready(v) => Some(v),
            JobState::Running(r) => r.previous.as_ref(),
            _ => None,
        }
    }

    /// Why the last run failed.
    pub fn failure(&self) -> Option<&crate::Error> {
        match &self.state {
            JobState::Failed(e) => Some(e),
            _ => None,
        }
    }

    /// Take the finished result out, leaving the job idle.
    pub fn take_ready(&mut self) -> Option<T> {
        match std::mem::take(&mut self.state) {
            JobState::Ready(v) => Some(v),
            other => {
                self.state = other;
                None
            }
        }
    }

    /// Forget any result or failure (a new corpus makes them meaningless); a running job is
    /// cancelled.
    pub fn clear(&mut self) {
        self.cancel();
        self.state = JobState::Idle;
    }

    fn take_latest(&mut self) -> Option<T> {
        match std::mem::take(&mut self.state) {
            JobState::Ready(v) => Some(v),
            JobState::Running(r) => {
                r.progress.cancel();
                r.previous
            }
            JobState::Idle | JobState::Failed(_) => None,
        }
    }
}

/// A job in the work list.
#[derive(Debug, Clone)]
pub struct JobView {
    /// Which job.
    pub kind: JobKind,
    /// Its progress.
    pub progress: ProgressSnapshot,
    /// Seconds since it started.
    pub elapsed_secs: f64,
}

/// What the work list needs of any job, whatever its result type.
pub trait WorkItem {
    /// The job, if it is running.
    fn running(&self) -> Option<JobView>;
}

impl<T: Send + 'static> WorkItem for Job<T> {
    fn running(&self) -> Option<JobView> {
        match &self.state {
            JobState::Running(r) if self.kind != JobKind::Dialog => Some(JobView {
                kind: self.kind,
                progress: r.progress.snapshot(),
                elapsed_secs: r.started.elapsed().as_secs_f64(),
            }),
            _ => None,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::progress::Progress;
    use std::sync::mpsc;
    use std::time::Duration;

    fn wait(job: &mut Job<u32>) -> Polled {
        for _ in 0..500 {
            match job.poll() {
                Polled::Same => std::thread::sleep(Duration::from_millis(2)),
                p => return p,
            }
        }
        panic!("the job did not finish")
    }

    #[test]
    fn a_job_that_panics_fails_with_its_own_variant_naming_the_job_and_the_message() {
        let mut job: Job<u32> = Job::new(JobKind::Study);
        job.start(|| {}, |_| panic!("the study broke"));
        wait(&mut job);
        match job.failure() {
            Some(crate::Error::Panicked { job, message }) => {
                assert_eq!((job.as_str(), message.as_str()), ("Evaluation", "the study broke"));
            }
            other => panic!("expected Panicked, got {other:?}"),
        }
        let text = job.failure().map(|e| e.report()).unwrap_or_default();
        assert!(text.starts_with("Evaluation stopped unexpectedly: the study broke"), "{text}");
    }

    #[test]
    fn a_superseded_run_never_delivers_and_its_progress_is_cancelled() {
        let mut job: Job<u32> = Job::new(JobKind::Rank);
        let (release, gate) = mpsc::channel::<()>();
        let (saw_cancel_tx, saw_cancel) = mpsc::channel::<bool>();
        job.start(
            || {},
            move |p| {
                let _ = gate.recv();
                let _ = saw_cancel_tx.send(p.is_cancelled());
                Ok(1)
            },
        );
        assert!(job.is_running());
        job.start(|| {}, |_| Ok(2));
        let _ = release.send(());
        assert!(saw_cancel.recv().unwrap(), "the first run was told to stop");
        assert_eq!(wait(&mut job), Polled::Ready);
        assert_eq!(job.ready(), Some(&2), "only the second run's result lands");
        std::thread::sleep(Duration::from_millis(20));
        assert_eq!(job.poll(), Polled::Same);
        assert_eq!(job.ready(), Some(&2));
    }

    #[test]
    fn a_running_job_shows_the_result_it_supersedes_and_cancel_goes_back_to_it() {
        let mut job: Job<u32> = Job::new(JobKind::Rank);
        job.start(|| {}, |_| Ok(7));
        wait(&mut job);
        let (_hold, gate) = mpsc::channel::<()>();
        job.start(
            || {},
            move |_| {
                let _ = gate.recv();
                Ok(8)
            },
        );
        assert_eq!((job.is_running(), job.latest(), job.ready()), (true, Some(&7), None));
        job.cancel();
        assert_eq!(job.ready(), Some(&7));
    }

    #[test]
    fn failures_and_panics_become_messages() {
        let mut job: Job<u32> = Job::new(JobKind::Sql);
        job.start(|| {}, |_| Err(crate::Error::Sql("no such table".into())));
        assert_eq!(wait(&mut job), Polled::Failed);
        assert_eq!(job.failure().map(crate::Error::report).as_deref(), Some("sql: no such table"));
        job.start(|| {}, |_| panic!("boom"));
        assert_eq!(wait(&mut job), Polled::Failed);
        let failure = job.failure().map(crate::Error::report).unwrap_or_default();
        assert_eq!(failure, "SQL stopped unexpectedly: boom (a bug; please report it)");
    }
}
