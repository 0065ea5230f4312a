//! Files chosen and written: the native dialogs (on their own thread), what each chosen path is
//! for, and reports — written in the background, and re-opened to check that every column
//! reproduces.

use std::path::PathBuf;

use super::shell::failed;
use crate::gui::app::RankLensApp;
use crate::gui::command::{Command, CorpusCommand, FileCommand, OutsideCommand, RankCommand};
use crate::gui::dialog::{self, DialogPurpose};
use crate::gui::jobs::Polled;
use crate::gui::state::{CorpusChoice, Notice};
use crate::progress::Progress;
use crate::report::ReportBody;

impl RankLensApp {
    pub(super) fn apply_files(&mut self, command: FileCommand) {
        match command {
            FileCommand::OpenDialog(purpose) => {
                self.jobs.dialog.start(self.waker(), move |_| Ok((purpose, dialog::pick(purpose))))
            }
            FileCommand::UsePath(purpose, path) => self.use_path(purpose, path),
        }
    }

    pub(super) fn poll_files(&mut self) {
        if self.jobs.dialog.poll() == Polled::Ready
            && let Some((purpose, paths)) = self.jobs.dialog.take_ready()
        {
            match purpose {
                DialogPurpose::OpenRuns => self
                    .apply(Command::Outside(OutsideCommand::OpenRuns(paths.into_iter().map(|p| (None, p)).collect()))),
                _ => {
                    if let Some(path) = paths.into_iter().next() {
                        self.use_path(purpose, path);
                    }
                }
            }
        }
        match self.jobs.report.poll() {
            Polled::Ready => {
                if let Some(m) = self.jobs.report.take_ready() {
                    self.say(Notice::warning(m));
                }
            }
            Polled::Failed => {
                let m = failed(self.jobs.report.kind(), self.jobs.report.failure());
                self.say(m);
            }
            Polled::Same => {}
        }
    }

    /// Act on a path chosen for a purpose.
    fn use_path(&mut self, purpose: DialogPurpose, path: PathBuf) {
        match purpose {
            DialogPurpose::OpenFolder => {
                let choice = CorpusChoice::Path(path, self.data.open_split);
                self.apply(Command::Corpus(CorpusCommand::Open(choice)))
            }
            DialogPurpose::OpenFile => {
                let choice = CorpusChoice::Path(path, crate::corpus::Split::File);
                self.apply(Command::Corpus(CorpusCommand::Open(choice)))
            }
            DialogPurpose::OpenReport => self.open_report(&path),
            DialogPurpose::SaveReport => self.export_report(path),
            DialogPurpose::ExportQrels => self.export_qrels(&path),
            DialogPurpose::ImportQrels => self.import_qrels(&path),
            DialogPurpose::ExportModelQrels => self.export_model_qrels(&path),
            DialogPurpose::ExportPrompt => self.export_prompt(&path),
            DialogPurpose::SaveHandout => self.save_handout(&path, true),
            DialogPurpose::SaveStudentHandout => self.save_handout(&path, false),
            DialogPurpose::SaveQuiz => self.save_quiz(&path),
            DialogPurpose::SaveGradebookMoodle => self.save_gradebook(&path, crate::classroom::Lms::Moodle),
            DialogPurpose::SaveGradebookCanvas => self.save_gradebook(&path, crate::classroom::Lms::Canvas),
            DialogPurpose::Choose(field) => {
                let serial = self.data.chosen.as_ref().map_or(1, |c| c.0 + 1);
                self.data.chosen = Some((serial, field, path));
            }
            DialogPurpose::ChooseAdapter => {
                let mut s = self.data.persisted.settings.clone();
                s.adapter = Some(path);
                self.apply(Command::Rank(crate::gui::command::RankCommand::SetSettings(Box::new(s))));
            }
            DialogPurpose::ChooseGguf => {
                self.apply(Command::Models(crate::gui::command::ModelCommand::UseGenerator(path.display().to_string())))
            }
            DialogPurpose::OpenRuns => self.apply(Command::Outside(OutsideCommand::OpenRuns(vec![(None, path)]))),
        }
    }

    /// Write the current RAG prompt to a file.
    fn export_prompt(&mut self, path: &std::path::Path) {
        let prompt = self.ranking().and_then(|r| self.views.rag.prompt(&self.data, r));
        let Some((_, prompt)) = prompt else {
            self.say(Notice::error("there is no prompt to export yet: ask a question first"));
            return;
        };
        match crate::fsutil::write_atomic(path, prompt) {
            Ok(()) => self.say(Notice::warning(format!("prompt written to {}", path.display()))),
            Err(e) => self.say(Notice::error(e.report())),
        }
    }

    /// Write the current comparison as a report (format from the extension), in the background.
    fn export_report(&mut self, path: PathBuf) {
        let (Some(engine), Some(ranked)) = (self.data.workbench.clone(), self.ranking()) else {
            self.say(Notice::error("run a question before exporting a report"));
            return;
        };
        let run = ranked.run.clone();
        let settings = self.data.persisted.settings.clone();
        let grades = self.data.grades.clone();
        // The model's answers go in when they answer this question.
        let answers = self.jobs.answer.ready().filter(|a| a.question == run.comparison.question).map(|a| {
            crate::report::AnswersReport {
                model: a.generated.model.clone(),
                caveat: engine.generator().and_then(|g| g.info().caveat.clone()),
                source: a.source.clone(),
                passages: a.passages.iter().map(|(id, _)| id.clone()).collect(),
                rag: a.grounding.clone(),
                closed_book: a.closed_book.as_ref().ok().map(|c| c.grounding.clone()),
            }
        });
        // The statement the model wrote for the tables, and its rows or why it did not run.
        let model_sql = match (self.jobs.sql_ask.ready(), self.jobs.sql_model.ready()) {
            (Some(asked), Some((sql, outcome))) => Some(crate::report::ModelSqlReport {
                question: asked.question.clone(),
                model: asked.model.clone(),
                sql: sql.clone(),
                outcome: outcome.clone(),
            }),
            _ => None,
        };
        // The reader's answer when it read this question, and the k trade-off when it was measured.
        let reading = self
            .jobs
            .read
            .latest()
            .filter(|r| r.question == run.comparison.question)
            .map(|r| crate::report::ReadingReport::of(r));
        let answer_curve = self.jobs.answer_study.latest().map(|s| s.as_ref().clone());
        self.jobs.report.start(self.waker(), move |p| {
            p.stage("writing the report", 0);
            let judged = (!grades.is_empty()).then_some(&grades);
            let mut report = crate::report::comparison_report(&engine, &run, &settings, judged);
            report.answers = answers;
            report.model_sql = model_sql;
            report.reading = reading;
            report.answer_curve = answer_curve;
            crate::report::write(&ReportBody::Comparison(Box::new(report)), &path)?;
            Ok(format!("report written to {}", path.display()))
        });
    }

    /// Re-open a JSON report: restore its question and settings (and corpus), re-rank, and check
    /// that every ranking comes out the same.
    fn open_report(&mut self, path: &std::path::Path) {
        let body = match crate::report::load(path) {
            Ok(b) => b,
            Err(e) => {
                self.say(Notice::error(format!("cannot open the report: {}", e.report())));
                return;
            }
        };
        let ReportBody::Comparison(report) = body else {
            self.say(Notice::error("this is an evaluation report; only one-question reports re-open in the app"));
            return;
        };
        self.data.persisted.settings = report.stamp.settings.clone();
        self.data.persisted.question = report.question.clone();
        self.refresh_grades();
        let same_corpus =
            self.data.workbench.as_ref().is_some_and(|e| e.corpus().fingerprint() == report.stamp.corpus_fingerprint);
        // The re-run happens on the report's corpus: at once when it is open, else once it loads.
        let next = match (&report.stamp.corpus_source, same_corpus) {
            (_, true) => Command::Rank(RankCommand::Ask),
            (Some(src), false) => {
                Command::Corpus(CorpusCommand::Open(CorpusChoice::Path(PathBuf::from(src), crate::corpus::Split::File)))
            }
            (None, false) => {
                self.say(Notice::error("the report's corpus is not open and its source is unknown"));
                return;
            }
        };
        self.data.report_check = Some(report);
        self.apply(next);
    }

    /// After a re-run, compare with the report being re-opened.
    pub(super) fn check_report(&mut self) {
        let Some(report) = self.data.report_check.take() else { return };
        let Some(ranked) = self.ranking() else {
            self.data.report_check = Some(report);
            return;
        };
        let mut differ = Vec::new();
        for stored in &report.comparison.runs {
            let now = ranked.run.comparison.runs.iter().find(|r| r.label == stored.label);
            let same = match (stored.ranking(), now.and_then(|r| r.ranking())) {
                (Some(a), Some(b)) => a.hits == b.hits,
                (None, None) => true,
                _ => false,
            };
            if !same {
                differ.push(stored.label.clone());
            }
        }
        let message = if differ.is_empty() {
            Notice::warning(format!(
                "report re-opened: all {} columns reproduced exactly",
                report.comparison.runs.len()
            ))
        } else {
            Notice::error(format!("report re-opened, but these columns differ: {}", differ.join(", ")))
        };
        self.say(message);
        self.data.report_reproduced = Some(differ.is_empty());
    }
}
