//! Every job of the app, each with its result type.

use std::collections::BTreeMap;

use super::{Job, JobKind, JobView, Streaming, WorkItem};
use crate::models::Role;

/// A lesson as built: its id, the knobs it was built with, and the lesson or why not.
pub type BuiltLesson = (String, crate::lessons::LessonParams, Result<crate::lessons::Lesson, String>);

/// Every job of the app, each with its result type.
pub struct Jobs {
    /// Loading a corpus.
    pub corpus: Job<crate::gui::state::LoadedCorpus>,
    /// Loading or fetching each role's model.
    pub models: BTreeMap<Role, Job<()>>,
    /// Encoding the corpus with each role's model.
    pub encodings: BTreeMap<Role, Job<()>>,
    /// The question ranked by every column that answers at once.
    pub rank: Job<crate::gui::state::Ranked>,
    /// The columns that encode passages while answering, run after the others.
    pub rank_slow: Job<Vec<crate::compare::ColumnResult>>,
    /// The selected passage explained by every column.
    pub explain: Job<crate::gui::state::Explained>,
    /// The SQL statement's rows.
    pub sql: Job<crate::structured::SqlResult>,
    /// The graph pattern's bindings.
    pub graph: Job<crate::structured::GraphResult>,
    /// The question-set evaluation.
    pub study: Job<std::sync::Arc<crate::compare::Study>>,
    /// A report being written (its result is the message to show).
    pub report: Job<String>,
    /// The lesson corpora and models.
    pub lesson_kit: Job<std::sync::Arc<crate::lessons::LessonKit>>,
    /// The lesson shown.
    pub lesson: Job<BuiltLesson>,
    /// An assignment being written (its result is the message to show).
    pub assignment: Job<String>,
    /// The analyzers compared.
    pub analyzers: Job<crate::compare::analyzers::AnalyzerComparison>,
    /// What moved a passage.
    pub moved: Job<crate::compare::moved::Moved>,
    /// What would bring a passage into a method's top k.
    pub fixes: Job<crate::compare::fixes::Fixes>,
    /// A file dialog: why it was opened, and the paths chosen (none when cancelled).
    pub dialog: Job<(crate::gui::dialog::DialogPurpose, Vec<std::path::PathBuf>)>,
    /// Run files being read: each file with its run or why it could not be read.
    pub runs: Job<Vec<(std::path::PathBuf, crate::Result<crate::compare::External>)>>,
    /// The reader's answer from the RAG prompt.
    pub answer: Streaming<crate::gui::state::RagAnswer, crate::gui::state::AnswerPiece>,
    /// The language model judging passages: the pool and each judgement as it is made, and at
    /// the end how many it judged.
    pub judge: Streaming<usize, crate::compare::judge::JudgeEvent>,
    /// A query adapter trained on the corpus's judgements, with its held-out figures.
    pub adapter: Job<crate::gui::state::TrainedAdapter>,
    /// The class report of an assignment's answers.
    pub class_report: Job<crate::lessons::assignment::ClassReport>,
    /// The statement the language model wrote for a question.
    pub sql_ask: Job<crate::generate::text_to_sql::SqlAsk>,
    /// The model's statement run (or refused): the statement as run, and what came of it.
    pub sql_model: Job<(String, crate::generate::text_to_sql::SqlOutcome)>,
    /// The model's graph of the corpus, and whether it came from the cache.
    pub graph_build: Job<(std::sync::Arc<crate::graphrag::ModelGraph>, bool)>,
    /// A global answer from the graph's community summaries.
    pub graph_global: Job<crate::graphrag::GlobalAnswer>,
}

impl Default for Jobs {
    fn default() -> Self {
        Self {
            corpus: Job::new(JobKind::Corpus),
            models: Role::EVERY.into_iter().map(|r| (r, Job::new(JobKind::Model(r)))).collect(),
            encodings: Role::ALL.into_iter().map(|r| (r, Job::new(JobKind::Encode(r)))).collect(),
            rank: Job::new(JobKind::Rank),
            rank_slow: Job::new(JobKind::RankSlow),
            explain: Job::new(JobKind::Explain),
            sql: Job::new(JobKind::Sql),
            graph: Job::new(JobKind::Graph),
            study: Job::new(JobKind::Study),
            report: Job::new(JobKind::Report),
            lesson_kit: Job::new(JobKind::LessonKit),
            lesson: Job::new(JobKind::Lesson),
            assignment: Job::new(JobKind::Assignment),
            analyzers: Job::new(JobKind::Analyzers),
            moved: Job::new(JobKind::Moved),
            fixes: Job::new(JobKind::Fixes),
            dialog: Job::new(JobKind::Dialog),
            runs: Job::new(JobKind::Runs),
            answer: Streaming::new(JobKind::Answer),
            judge: Streaming::new(JobKind::Judge),
            adapter: Job::new(JobKind::Adapter),
            class_report: Job::new(JobKind::ClassReport),
            sql_ask: Job::new(JobKind::SqlAsk),
            sql_model: Job::new(JobKind::SqlModel),
            graph_build: Job::new(JobKind::GraphBuild),
            graph_global: Job::new(JobKind::GraphGlobal),
        }
    }
}

impl Jobs {
    /// Every job, as the work list sees it.
    fn all(&self) -> Vec<&dyn WorkItem> {
        let mut out: Vec<&dyn WorkItem> = vec![&self.corpus];
        out.extend(self.models.values().map(|j| j as &dyn WorkItem));
        out.extend(self.encodings.values().map(|j| j as &dyn WorkItem));
        out.extend([
            &self.rank as &dyn WorkItem,
            &self.rank_slow,
            &self.explain,
            &self.sql,
            &self.graph,
            &self.study,
            &self.report,
            &self.lesson_kit,
            &self.lesson,
            &self.assignment,
            &self.analyzers,
            &self.moved,
            &self.fixes,
            &self.dialog,
            &self.runs,
            &self.answer,
            &self.judge,
            &self.adapter,
            &self.class_report,
            &self.sql_ask,
            &self.sql_model,
            &self.graph_build,
            &self.graph_global,
        ]);
        out
    }

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

    /// Stop a job by kind.
    pub fn cancel(&mut self, kind: JobKind) {
        match kind {
            JobKind::Corpus => self.corpus.cancel(),
            JobKind::Model(r) => self.models.get_mut(&r).into_iter().for_each(Job::cancel),
            JobKind::Encode(r) => self.encodings.get_mut(&r).into_iter().for_each(Job::cancel),
            JobKind::Rank => {
                self.rank.cancel();
                self.rank_slow.cancel();
            }
            JobKind::RankSlow => self.rank_slow.cancel(),
            JobKind::Explain => self.explain.cancel(),
            JobKind::Sql => self.sql.cancel(),
            JobKind::Graph => self.graph.cancel(),
            JobKind::Study => self.study.cancel(),
            JobKind::Report => self.report.cancel(),
            JobKind::LessonKit => self.lesson_kit.cancel(),
            JobKind::Lesson => self.lesson.cancel(),
            JobKind::Assignment => self.assignment.cancel(),
            JobKind::Analyzers => self.analyzers.cancel(),
            JobKind::Moved => self.moved.cancel(),
            JobKind::Fixes => self.fixes.cancel(),
            JobKind::Dialog => self.dialog.cancel(),
            JobKind::Runs => self.runs.cancel(),
            JobKind::Answer => self.answer.cancel(),
            JobKind::Judge => self.judge.cancel(),
            JobKind::Adapter => self.adapter.cancel(),
            JobKind::ClassReport => self.class_report.cancel(),
            JobKind::SqlAsk => self.sql_ask.cancel(),
            JobKind::SqlModel => self.sql_model.cancel(),
            JobKind::GraphBuild => self.graph_build.cancel(),
            JobKind::GraphGlobal => self.graph_global.cancel(),
        }
    }
}
