//! Which job: for the work list, for cancelling, and for how often the window repaints for it.

/// Which job, for the work list and for cancelling.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum JobKind {
    /// Loading a corpus.
    Corpus,
    /// Loading or fetching the model of a role.
    Model(crate::models::Role),
    /// Encoding the corpus for a role.
    Encode(crate::models::Role),
    /// Ranking the question with every column (building the lexical index first if needed).
    Rank,
    /// Then the columns that encode passages while answering.
    RankSlow,
    /// Explaining a passage under every column.
    Explain,
    /// A SQL statement.
    Sql,
    /// A graph pattern.
    Graph,
    /// A question-set evaluation.
    Study,
    /// Writing a report.
    Report,
    /// Loading the lesson corpora and models.
    LessonKit,
    /// Building a lesson.
    Lesson,
    /// Writing an assignment.
    Assignment,
    /// One text through every analyzer (and the question ranked under each).
    Analyzers,
    /// One passage under two states.
    Moved,
    /// The smallest changes that bring a passage into a method's top k.
    Fixes,
    /// A Page Hunt try ranked and scored, with the solver's par.
    PageHunt,
    /// The judge put under attack for its report card.
    JudgeStress,
    /// A file dialog (not listed as work).
    Dialog,
    /// Reading run files.
    Runs,
    /// The language model answering from the RAG prompt.
    Answer,
    /// The language model judging passages.
    Judge,
    /// Training a query adapter on the corpus's judgements.
    Adapter,
    /// Reading a class's answers into the class report.
    ClassReport,
    /// The language model writing SQL for a question.
    SqlAsk,
    /// The model's SQL statement running.
    SqlModel,
    /// The language model extracting its graph of the corpus (GraphRAG).
    GraphBuild,
    /// Global search over the graph's community summaries.
    GraphGlobal,
    /// A reader reading a column's top passages for the answer.
    Read,
    /// A question set with answers read at several k (the k trade-off).
    AnswerStudy,
}

impl JobKind {
    /// Work that runs for seconds to minutes with a progress bar (indexing, fetching, encoding,
    /// evaluating; a question's candidates encoded for provisional columns), not an answer that
    /// comes at once: the window repaints for it about once a second
    /// ([`JobKind::repaint_every`]), with counts instead of spinners.
    pub fn is_long(self) -> bool {
        matches!(
            self,
            JobKind::Corpus
                | JobKind::Model(_)
                | JobKind::Encode(_)
                | JobKind::RankSlow
                | JobKind::Study
                | JobKind::Report
                | JobKind::LessonKit
                | JobKind::Assignment
                | JobKind::Runs
                | JobKind::Judge
                | JobKind::Adapter
                | JobKind::GraphBuild
                | JobKind::GraphGlobal
                | JobKind::AnswerStudy
        )
    }

    /// How often the window repaints to show this job's progress. Every frame costs the
    /// renderer a full window: under a software renderer (no GPU driver; Xvfb) ten frames a
    /// second took most of a core from the encoding they were showing. A job's end wakes the
    /// window at once whatever this says.
    pub fn repaint_every(self) -> std::time::Duration {
        std::time::Duration::from_millis(if self.is_long() { 1000 } else { 250 })
    }

    /// What the work list shows.
    pub fn label(self) -> String {
        match self {
            JobKind::Corpus => "Loading corpus".into(),
            JobKind::Model(r) => format!("{r} model"),
            JobKind::Encode(r) => format!("Encoding ({r})"),
            JobKind::Rank => "Ranking".into(),
            JobKind::RankSlow => "Ranking (encoding candidates)".into(),
            JobKind::Explain => "Explaining".into(),
            JobKind::Sql => "SQL".into(),
            JobKind::Graph => "Graph".into(),
            JobKind::Study => "Evaluation".into(),
            JobKind::Report => "Report".into(),
            JobKind::LessonKit => "Lessons".into(),
            JobKind::Lesson => "Lesson".into(),
            JobKind::Assignment => "Assignment".into(),
            JobKind::Analyzers => "Analyzers".into(),
            JobKind::Moved => "What moved it".into(),
            JobKind::Fixes => "Finding a fix".into(),
            JobKind::PageHunt => "Page Hunt".into(),
            JobKind::JudgeStress => "The judge's report card (language model)".into(),
            JobKind::Dialog => "File dialog".into(),
            JobKind::Runs => "Reading other systems' files".into(),
            JobKind::Answer => "Answering (language model)".into(),
            JobKind::Judge => "Judging (language model)".into(),
            JobKind::Adapter => "Training the query adapter".into(),
            JobKind::ClassReport => "Class report".into(),
            JobKind::SqlAsk => "Writing SQL (language model)".into(),
            JobKind::SqlModel => "The model's SQL".into(),
            JobKind::GraphBuild => "Extracting the graph (language model)".into(),
            JobKind::GraphGlobal => "Global search (language model)".into(),
            JobKind::Read => "Reading the passages".into(),
            JobKind::AnswerStudy => "Answers at each k".into(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::time::Duration;

    #[test]
    fn work_of_seconds_repaints_once_a_second_and_a_quick_answer_four_times() {
        // Encoding a question's candidates for provisional columns takes seconds, like the
        // corpus's encodings: it must not animate the window at the encoding's expense.
        let long = [JobKind::RankSlow, JobKind::Encode(crate::models::Role::Dense), JobKind::Corpus, JobKind::Study];
        for kind in long {
            assert!(kind.is_long(), "{kind:?}");
            assert_eq!(kind.repaint_every(), Duration::from_secs(1), "{kind:?}");
        }
        for kind in [JobKind::Rank, JobKind::Explain, JobKind::Sql] {
            assert!(!kind.is_long(), "{kind:?}");
            assert_eq!(kind.repaint_every(), Duration::from_millis(250), "{kind:?}");
        }
    }
}
