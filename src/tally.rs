//! Counts of the computations a view may only do when its inputs change: one question's metrics,
//! the overlap of its columns, a RAG prompt, a walk over every passage, the grades read from the
//! store, a κ, a lesson asked for. The app's test draws frames
//! in which nothing changed and checks that none of these counts moved (a view that recomputed
//! while drawing would move them). Each thread counts its own: the views draw on the UI thread, so
//! tests that run side by side in one process do not see each other's counts.

use std::cell::Cell;

/// What is counted.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Tally {
    /// One question's per-column metrics.
    QuestionMetrics,
    /// The agreement (Jaccard, RBO) of a comparison's columns.
    Overlap,
    /// A RAG prompt assembled.
    Prompt,
    /// A walk over every passage of a corpus (a statistic or a filter).
    CorpusWalk,
    /// Every question's grades read (the shipped judgements and the workspace's store).
    Grades,
    /// A Cohen's κ computed (the judge panel's agreement and its threshold sweep).
    Agreement,
    /// A lesson asked to be built.
    LessonRequest,
}

const KINDS: usize = 7;

thread_local! {
    static COUNTS: [Cell<u64>; KINDS] = const { [const { Cell::new(0) }; KINDS] };
}

fn slot(t: Tally) -> usize {
    match t {
        Tally::QuestionMetrics => 0,
        Tally::Overlap => 1,
        Tally::Prompt => 2,
        Tally::CorpusWalk => 3,
        Tally::Grades => 4,
        Tally::Agreement => 5,
        Tally::LessonRequest => 6,
    }
}

/// Count one `what` on this thread.
pub fn count(what: Tally) {
    COUNTS.with(|c| c[slot(what)].set(c[slot(what)].get() + 1));
}

/// How many of `what` this thread has counted.
pub fn read(what: Tally) -> u64 {
    COUNTS.with(|c| c[slot(what)].get())
}

/// Every count of this thread, in [`Tally`]'s order.
pub fn all() -> [u64; KINDS] {
    [
        Tally::QuestionMetrics,
        Tally::Overlap,
        Tally::Prompt,
        Tally::CorpusWalk,
        Tally::Grades,
        Tally::Agreement,
        Tally::LessonRequest,
    ]
    .map(read)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_kind_counts_apart_and_each_thread_its_own() {
        let before = all();
        count(Tally::Prompt);
        count(Tally::Prompt);
        count(Tally::Overlap);
        assert_eq!(read(Tally::Prompt), before[2] + 2);
        assert_eq!(read(Tally::Overlap), before[1] + 1);
        assert_eq!(read(Tally::CorpusWalk), before[3]);
        let other = std::thread::spawn(|| {
            count(Tally::CorpusWalk);
            all()
        })
        .join()
        .unwrap();
        assert_eq!(other, [0, 0, 0, 1, 0, 0, 0], "a new thread starts from nothing");
        assert_eq!(read(Tally::CorpusWalk), before[3], "and its counts are its own");
    }
}
