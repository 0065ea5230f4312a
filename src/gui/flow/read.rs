//! Retrieve, then read, in the app: the chosen reader over a column's top k passages (Compare →
//! Reader, Explain), and the corpus's question set with answers read at each k (Evaluate).

use std::sync::Arc;

use super::shell::failed;
use crate::Error;
use crate::compare::{CURVE_KS, ColumnId, answer_study, read_ranking};
use crate::gui::app::RankLensApp;
use crate::gui::command::ReadCommand;
use crate::gui::jobs::Polled;
use crate::gui::state::Notice;
use crate::read::ReaderKind;
use crate::retrieve::MethodKind;

impl RankLensApp {
    pub(super) fn apply_read(&mut self, command: ReadCommand) {
        match command {
            ReadCommand::SetChoice(choice) => self.data.persisted.reading = choice,
            ReadCommand::Read(column) => self.start_read(column),
            ReadCommand::Study(kind) => self.start_answer_study(kind),
        }
    }

    pub(super) fn poll_read(&mut self) {
        if self.jobs.read.poll() == Polled::Failed {
            let m = failed(self.jobs.read.kind(), self.jobs.read.failure());
            self.say(m);
        }
        if self.jobs.answer_study.poll() == Polled::Failed {
            let m = failed(self.jobs.answer_study.kind(), self.jobs.answer_study.failure());
            self.say(m);
        }
    }

    /// The reader chosen, or the best one the workbench has.
    pub(crate) fn reader_kind(&self) -> Option<ReaderKind> {
        let engine = self.data.workbench.as_ref()?;
        Some(self.data.persisted.reading.reader.unwrap_or_else(|| engine.default_reader_kind()))
    }

    /// Read the top k passages of one column of the ranking shown.
    fn start_read(&mut self, column: ColumnId) {
        let (Some(engine), Some(kind)) = (self.data.workbench.clone(), self.reader_kind()) else { return };
        let Some(ranked) = self.jobs.rank.latest() else { return };
        let Some(ranking) =
            ranked.run.comparison.runs.iter().find(|r| r.id == column).and_then(|r| r.ranking()).cloned()
        else {
            self.say(Notice::error(format!("{column}: no ranked list to read")));
            return;
        };
        let reader = match engine.reader(kind) {
            Ok(r) => r,
            Err(e) => {
                self.say(Notice::error(e.report()));
                return;
            }
        };
        let question = ranked.run.comparison.question.clone();
        let k = self.data.persisted.reading.k.max(1);
        self.jobs.read.start(self.waker(), move |p| {
            let reading = read_ranking(engine.corpus(), &ranking, &question, k, reader.as_ref(), p)?;
            Ok(Arc::new(reading))
        });
    }

    /// Read the corpus's question set with answers through `kind`'s rankings at each k.
    fn start_answer_study(&mut self, kind: MethodKind) {
        let (Some(engine), Some(reader_kind)) = (self.data.workbench.clone(), self.reader_kind()) else { return };
        let Some(answers) = engine.corpus().answers.clone() else {
            self.say(Notice::error(
                "This corpus ships no answers: open one with an answers.tsv beside it, or SQuAD's JSON.",
            ));
            return;
        };
        let reader = match engine.reader(reader_kind) {
            Ok(r) => r,
            Err(e) => {
                self.say(Notice::error(e.report()));
                return;
            }
        };
        let settings = self.data.persisted.settings.clone();
        self.jobs.answer_study.start(self.waker(), move |p| {
            let retriever = engine.retriever(kind, &settings)?;
            if answers.questions.is_empty() {
                return Err(Error::Unavailable("the answers file holds no question".into()));
            }
            let study = answer_study(
                &engine,
                retriever.as_ref(),
                &settings,
                &answers,
                Some(reader.as_ref()),
                &CURVE_KS,
                None,
                p,
            )?;
            Ok(Arc::new(study))
        });
    }
}
