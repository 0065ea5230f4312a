//! Background work for the app: every long operation (loading, indexing, encoding, downloads,
//! ranking a large corpus) runs on a named thread with a [`SharedProgress`] the UI polls, can be
//! cancelled, and hands its result back over a channel drained once per frame in `logic`.

use std::collections::BTreeMap;
use std::sync::mpsc::{Receiver, Sender, channel};
use std::time::Instant;

use crate::progress::{ProgressSnapshot, SharedProgress};

/// What a job is for; one job per slot runs at a time (a new one cancels the old).
#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Slot {
    /// Loading a corpus.
    Corpus,
    /// Building the lexical index for an analyzer.
    SparseIndex,
    /// Loading or fetching the model of a role.
    Model(crate::models::Role),
    /// Encoding the corpus for a role.
    Encode(crate::models::Role),
    /// Ranking the question with every method.
    Compare,
    /// Then the methods that encode passages while answering (see `Engine::encodes_at_query_time`).
    CompareSlow,
    /// Explaining a passage under every method.
    Explain,
    /// A SQL statement.
    Sql,
    /// A question set evaluation.
    Evaluate,
    /// Anything else, by name.
    Other(String),
}

impl Slot {
    /// What the progress list shows.
    pub fn label(&self) -> String {
        match self {
            Slot::Corpus => "Loading corpus".into(),
            Slot::SparseIndex => "Lexical index".into(),
            Slot::Model(r) => format!("{r} model"),
            Slot::Encode(r) => format!("Encoding ({r})"),
            Slot::Compare => "Ranking".into(),
            Slot::CompareSlow => "Ranking (encoding candidates)".into(),
            Slot::Explain => "Explaining".into(),
            Slot::Sql => "SQL".into(),
            Slot::Evaluate => "Evaluation".into(),
            Slot::Other(s) => s.clone(),
        }
    }
}

/// A finished job's result, typed by the caller.
pub type Output = Box<dyn std::any::Any + Send>;

struct Running {
    progress: SharedProgress,
    generation: u64,
    started: Instant,
}

/// The app's background jobs.
pub struct Jobs {
    running: BTreeMap<Slot, Running>,
    tx: Sender<(Slot, u64, Result<Output, String>)>,
    rx: Receiver<(Slot, u64, Result<Output, String>)>,
    generation: u64,
    repaint: Option<egui::Context>,
}

impl Default for Jobs {
    fn default() -> Self {
        let (tx, rx) = channel();
        Self { running: BTreeMap::new(), tx, rx, generation: 0, repaint: None }
    }
}

/// A job's state for drawing.
#[derive(Debug, Clone)]
pub struct JobView {
    /// Which slot.
    pub slot: Slot,
    /// Progress.
    pub progress: ProgressSnapshot,
    /// Seconds since it started.
    pub elapsed_secs: f64,
}

impl Jobs {
    /// Wake this context when a job finishes.
    pub fn set_context(&mut self, ctx: &egui::Context) {
        self.repaint = Some(ctx.clone());
    }

    /// Start work in a slot, cancelling whatever ran there.
    pub fn spawn(&mut self, slot: Slot, work: impl FnOnce(&SharedProgress) -> Result<Output, String> + Send + 'static) {
        self.cancel(&slot);
        self.generation += 1;
        let generation = self.generation;
        let progress = SharedProgress::new();
        let (p, tx, ctx, s) = (progress.clone(), self.tx.clone(), self.repaint.clone(), slot.clone());
        let name = format!("ranklens-{}", slot.label().to_lowercase().replace(' ', "-"));
        let spawned = std::thread::Builder::new().name(name).spawn(move || {
            let result = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| work(&p)))
                .unwrap_or_else(|_| Err("the job stopped unexpectedly".to_string()));
            let _ = tx.send((s, generation, result));
            if let Some(ctx) = ctx {
                ctx.request_repaint();
            }
        });
        if spawned.is_ok() {
            self.running.insert(slot, Running { progress, generation, started: Instant::now() });
        } else {
            let _ = self.tx.send((slot, generation, Err("could not start a thread".into())));
        }
    }

    /// Ask the job in a slot to stop (its result is dropped).
    pub fn cancel(&mut self, slot: &Slot) {
        if let Some(r) = self.running.remove(slot) {
            r.progress.cancel();
        }
    }

    /// Is anything running in this slot?
    pub fn is_running(&self, slot: &Slot) -> bool {
        self.running.contains_key(slot)
    }

    /// Is anything running at all?
    pub fn any_running(&self) -> bool {
        !self.running.is_empty()
    }

    /// Finished jobs since the last call (results of cancelled or superseded jobs are dropped).
    pub fn drain(&mut self) -> Vec<(Slot, Result<Output, String>)> {
        let mut out = Vec::new();
        while let Ok((slot, generation, result)) = self.rx.try_recv() {
            if self.running.get(&slot).is_some_and(|r| r.generation == generation) {
                self.running.remove(&slot);
                out.push((slot, result));
            }
        }
        out
    }

    /// Running jobs for the progress list.
    pub fn views(&self) -> Vec<JobView> {
        self.running
            .iter()
            .map(|(slot, r)| JobView {
                slot: slot.clone(),
                progress: r.progress.snapshot(),
                elapsed_secs: r.started.elapsed().as_secs_f64(),
            })
            .collect()
    }
}
