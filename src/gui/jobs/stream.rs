//! A job that hands over partial results while it runs: the pieces of an answer as the model
//! writes them, each judgement as it is made. The pieces come through the run's own channel, as
//! the result does, so a superseded or cancelled run's pieces never land either; the views read
//! them from the job ([`Streaming::parts`]), never from shared state.

use std::sync::mpsc::{Receiver, Sender, channel};
use std::sync::{Arc, Mutex};

use super::{Job, JobKind, JobState, JobView, Polled, WorkItem};
use crate::progress::SharedProgress;

/// What a streaming job's work sends its pieces through.
pub struct Parts<P> {
    tx: Sender<P>,
    wake: Arc<dyn Fn() + Send + Sync>,
}

impl<P> Parts<P> {
    /// Hand over one piece (and wake the window to show it). A piece sent after the run was
    /// superseded goes nowhere.
    pub fn send(&self, part: P) {
        let _ = self.tx.send(part);
        (self.wake)();
    }
}

/// A [`Job`] with partial results: `T` when it finishes, `P` pieces while it runs.
pub struct Streaming<T, P> {
    job: Job<T>,
    parts: Vec<P>,
    rx: Option<Receiver<P>>,
}

impl<T: Send + 'static, P: Send + 'static> Streaming<T, P> {
    /// An idle streaming job.
    pub fn new(kind: JobKind) -> Self {
        Self { job: Job::new(kind), parts: Vec::new(), rx: None }
    }

    /// Start a run (superseding one under way, whose pieces and result are dropped). `work` gets
    /// the progress token and where to send its pieces; `wake` is called for each piece and at
    /// the end.
    pub fn start(
        &mut self,
        wake: impl Fn() + Send + Sync + 'static,
        work: impl FnOnce(&SharedProgress, &Parts<P>) -> crate::Result<T> + Send + 'static,
    ) {
        let (tx, rx) = channel();
        let wake: Arc<dyn Fn() + Send + Sync> = Arc::new(wake);
        let parts = Parts { tx, wake: wake.clone() };
        self.parts.clear();
        self.rx = Some(rx);
        // The sender lives in the work's closure: the channel closes when the work ends.
        let parts = Mutex::new(Some(parts));
        self.job.start(
            move || wake(),
            move |p| {
                let parts = parts.lock().ok().and_then(|mut g| g.take());
                match parts {
                    Some(parts) => work(p, &parts),
                    None => Err(crate::Error::invalid("job", "started twice")),
                }
            },
        );
    }

    /// Take in the pieces that arrived, then the result if the run finished. Returns how many
    /// pieces arrived and what the job did.
    pub fn poll(&mut self) -> (usize, Polled) {
        let before = self.parts.len();
        if let Some(rx) = &self.rx {
            self.parts.extend(rx.try_iter());
        }
        let polled = self.job.poll();
        if polled != Polled::Same {
            // Whatever the work sent before it ended is in the channel already.
            if let Some(rx) = self.rx.take() {
                self.parts.extend(rx.try_iter());
            }
        }
        (self.parts.len() - before, polled)
    }

    /// The pieces of the current (or last) run, in the order they were sent.
    pub fn parts(&self) -> &[P] {
        &self.parts
    }

    /// Stop the run: its result and later pieces are dropped; the pieces that arrived stay.
    pub fn cancel(&mut self) {
        if self.job.is_running() {
            self.rx = None;
        }
        self.job.cancel();
    }

    /// Forget the run, its pieces and its result.
    pub fn clear(&mut self) {
        self.job.clear();
        self.rx = None;
        self.parts.clear();
    }

    /// Which job.
    pub fn kind(&self) -> JobKind {
        self.job.kind()
    }
    /// Its state.
    pub fn state(&self) -> &JobState<T> {
        self.job.state()
    }
    /// Is it working?
    pub fn is_running(&self) -> bool {
        self.job.is_running()
    }
    /// The finished result.
    pub fn ready(&self) -> Option<&T> {
        self.job.ready()
    }
    /// The result to show: the finished one, or while running the one it supersedes.
    pub fn latest(&self) -> Option<&T> {
        self.job.latest()
    }
    /// Why the last run failed.
    pub fn failure(&self) -> Option<&crate::Error> {
        self.job.failure()
    }
}

impl<T: Send + 'static, P: Send + 'static> WorkItem for Streaming<T, P> {
    fn running(&self) -> Option<JobView> {
        self.job.running()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::mpsc;
    use std::time::Duration;

    fn wait<T: Send + 'static, P: Send + 'static>(job: &mut Streaming<T, P>) -> Polled {
        for _ in 0..1000 {
            match job.poll() {
                (_, Polled::Same) => std::thread::sleep(Duration::from_millis(2)),
                (_, p) => return p,
            }
        }
        panic!("the job did not finish")
    }

    #[test]
    fn pieces_arrive_in_order_before_the_result() {
        let mut job: Streaming<usize, String> = Streaming::new(JobKind::Answer);
        let (go, gate) = mpsc::channel::<()>();
        job.start(
            || {},
            move |_, parts| {
                parts.send("one ".into());
                let _ = gate.recv();
                parts.send("two".into());
                Ok(2)
            },
        );
        // The first piece lands while the run is still going.
        for _ in 0..500 {
            if !job.parts().is_empty() {
                break;
            }
            job.poll();
            std::thread::sleep(Duration::from_millis(2));
        }
        assert_eq!((job.parts().concat(), job.is_running()), ("one ".to_string(), true));
        let _ = go.send(());
        assert_eq!(wait(&mut job), Polled::Ready);
        assert_eq!(job.parts().concat(), "one two", "every piece sent before the end lands");
        assert_eq!(job.ready(), Some(&2));
    }

    #[test]
    fn a_superseded_runs_pieces_never_land_and_a_cancelled_run_keeps_what_came() {
        let mut job: Streaming<u32, u32> = Streaming::new(JobKind::Judge);
        let (go, gate) = mpsc::channel::<()>();
        job.start(
            || {},
            move |_, parts| {
                let _ = gate.recv();
                parts.send(1);
                Ok(1)
            },
        );
        job.start(
            || {},
            |_, parts| {
                parts.send(7);
                Ok(2)
            },
        );
        let _ = go.send(());
        assert_eq!(wait(&mut job), Polled::Ready);
        std::thread::sleep(Duration::from_millis(20));
        job.poll();
        assert_eq!((job.parts(), job.ready()), (&[7][..], Some(&2)));

        let (go, gate) = mpsc::channel::<()>();
        let (sent, seen) = mpsc::channel::<()>();
        job.start(
            || {},
            move |_, parts| {
                parts.send(3);
                let _ = sent.send(());
                let _ = gate.recv();
                parts.send(4);
                Ok(3)
            },
        );
        let _ = seen.recv();
        std::thread::sleep(Duration::from_millis(5));
        job.poll();
        job.cancel();
        let _ = go.send(());
        std::thread::sleep(Duration::from_millis(20));
        job.poll();
        assert_eq!(job.parts(), &[3], "what came before the stop stays; nothing after it lands");
        assert!(!job.is_running());
    }
}
