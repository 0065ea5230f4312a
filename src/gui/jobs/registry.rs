//! Every job of the app, each with its result type.

use std::collections::BTreeMap;

use super::{Job, JobKind, JobView, Streaming, WorkItem};
use crate::models::Role;

/// A lesson as built: its id, the knobs it was built with, and the lesson or why not.
pub type BuiltLesson = (String, crate::lessons::LessonParams, Result<crate::lessons::Lesson, String>);

/// The jobs written once each: the struct's field, its `Default`, its place in the work list and
/// its arm of `cancel` all come from one line (`field: type = Kind;`), so a new job is a line
/// here and a [`JobKind`]. The corpus and the per-role model jobs are written by hand.
macro_rules! jobs {
    ($($(#[doc = $doc:literal])* $field:ident: $ty:ty = $kind:ident;)*) => {
        /// Every job of the app, each with its result type.
        pub struct Jobs {
            /// Loading a corpus.
            pub corpus: Job<crate::gui::state::LoadedCorpus>,
            /// Loading or fetching each role's model.
            pub models: BTreeMap<Role, Job<()>>,
            /// Encoding the corpus with each role's model.
            pub encodings: BTreeMap<Role, Job<()>>,
            $($(#[doc = $doc])* pub $field: $ty,)*
        }

        impl Default for Jobs {
            fn default() -> Self {
                Self {
                    corpus: Job::new(JobKind::Corpus),
                    models: Role::EVERY.into_iter().map(|r| (r, Job::new(JobKind::Model(r)))).collect(),
                    encodings: Role::ALL.into_iter().map(|r| (r, Job::new(JobKind::Encode(r)))).collect(),
                    $($field: <$ty>::new(JobKind::$kind),)*
                }
            }
        }

        impl Jobs {
            /// Every job, as the work list sees it.
            fn all(&self) -> Vec<&dyn WorkItem> {
                let mut out: Vec<&dyn WorkItem> = vec![&self.corpus];
                out.extend(self.models.values().map(|j| j as &dyn WorkItem));
                out.extend(self.encodings.values().map(|j| j as &dyn WorkItem));
                out.extend([$(&self.$field as &dyn WorkItem),*]);
                out
            }

            /// Stop the job of a kind (that job alone).
            fn cancel_one(&mut self, kind: JobKind) {
                match kind {
                    JobKind::Corpus => self.corpus.cancel(),
                    JobKind::Model(r) => self.models.get_mut(&r).into_iter().for_each(Job::cancel),
                    JobKind::Encode(r) => self.encodings.get_mut(&r).into_iter().for_each(Job::cancel),
                    $(JobKind::$kind => self.$field.cancel(),)*
                }
            }
        }
    };
}

jobs! {
    /// The question ranked by every column that answers at once.
    rank: Job<crate::gui::state::Ranked> = Rank;
    /// The columns that encode passages while answering, run after the others.
    rank_slow: Job<Vec<crate::compare::ColumnResult>> = RankSlow;
    /// The selected passage explained by every column.
    explain: Job<crate::gui::state::Explained> = Explain;
    /// The SQL statement's rows.
    sql: Job<crate::structured::SqlResult> = Sql;
    /// The graph pattern's bindings.
    graph: Job<crate::structured::GraphResult> = Graph;
    /// The question-set evaluation.
    study: Job<std::sync::Arc<crate::compare::Study>> = Study;
    /// A report being written (its result is the message to show).
    report: Job<String> = Report;
    /// The lesson corpora and models.
    lesson_kit: Job<std::sync::Arc<crate::lessons::LessonKit>> = LessonKit;
    /// The lesson shown.
    lesson: Job<BuiltLesson> = Lesson;
    /// An assignment being written (its result is the message to show).
    assignment: Job<String> = Assignment;
    /// The analyzers compared.
    analyzers: Job<crate::compare::analyzers::AnalyzerComparison> = Analyzers;
    /// What moved a passage.
    moved: Job<crate::compare::moved::Moved> = Moved;
    /// What would bring a passage into a method's top k.
    fixes: Job<crate::compare::fixes::Fixes> = Fixes;
    /// A Page Hunt try scored.
    page_hunt: Job<crate::lessons::page_hunt::Attempt> = PageHunt;
    /// The judge's report card: the kept judgements' judge put under attack.
    judge_stress: Job<crate::compare::judge_stress::StressCard> = JudgeStress;
    /// A file dialog: why it was opened, and the paths chosen (none when cancelled).
    dialog: Job<(crate::gui::dialog::DialogPurpose, Vec<std::path::PathBuf>)> = Dialog;
    /// Run files being read: each file with its run or why it could not be read.
    runs: Job<Vec<(std::path::PathBuf, crate::Result<crate::compare::External>)>> = Runs;
    /// The reader's answer from the RAG prompt.
    answer: Streaming<crate::gui::state::RagAnswer, crate::gui::state::AnswerPiece> = Answer;
    /// The language model judging passages: the pool and each judgement as it is made, and at
    /// the end how many it judged.
    judge: Streaming<usize, crate::compare::judge::JudgeEvent> = Judge;
    /// A query adapter trained on the corpus's judgements, with its held-out figures.
    adapter: Job<crate::gui::state::TrainedAdapter> = Adapter;
    /// The class report of an assignment's answers.
    class_report: Job<crate::classroom::ClassReport> = ClassReport;
    /// The statement the language model wrote for a question.
    sql_ask: Job<crate::generate::text_to_sql::SqlAsk> = SqlAsk;
    /// The model's statement run (or refused): the statement as run, and what came of it.
    sql_model: Job<(String, crate::generate::text_to_sql::SqlOutcome)> = SqlModel;
    /// The model's graph of the corpus, and whether it came from the cache.
    graph_build: Job<(std::sync::Arc<crate::graphrag::ModelGraph>, bool)> = GraphBuild;
    /// A global answer from the graph's community summaries.
    graph_global: Job<crate::graphrag::GlobalAnswer> = GraphGlobal;
    /// A column's top passages read for the answer.
    read: Job<std::sync::Arc<crate::read::Readout>> = Read;
    /// The question set's answers at each k.
    answer_study: Job<std::sync::Arc<crate::compare::AnswerStudy>> = AnswerStudy;
}

impl Jobs {
    /// The running jobs, for the work list.
    pub fn running(&self) -> Vec<JobView> {
        self.all().into_iter().filter_map(WorkItem::running).collect()
    }

    /// Is anything running (a file dialog included)?
    pub fn any_running(&self) -> bool {
        !self.running().is_empty() || self.dialog.is_running()
    }

    /// Is the model of a role loading, or the corpus being encoded with it?
    pub fn role_busy(&self, role: Role) -> bool {
        self.models.get(&role).is_some_and(Job::is_running) || self.encodings.get(&role).is_some_and(Job::is_running)
    }

    /// Stop a job by kind (stopping the ranking stops its slow columns too).
    pub fn cancel(&mut self, kind: JobKind) {
        if kind == JobKind::Rank {
            self.cancel_one(JobKind::RankSlow);
        }
        self.cancel_one(kind);
    }
}
