//! Lessons: the lesson corpora and models (loaded once, never downloaded), a lesson built with the
//! learner's knobs on the open corpus, class mode, writing an assignment, and a printable handout.

use std::sync::Arc;

use super::shell::failed;
use crate::Error;
use crate::gui::app::RankLensApp;
use crate::gui::command::{AssignmentRequest, LessonCommand};
use crate::gui::jobs::Polled;
use crate::gui::state::{Notice, ViewId};

impl RankLensApp {
    pub(super) fn apply_lessons(&mut self, command: LessonCommand) {
        match command {
            LessonCommand::LoadKit => self.start_lesson_kit(),
            LessonCommand::Build(id, params) => self.start_lesson(id, params),
            LessonCommand::Open(id) => {
                self.views.lessons.select(&id);
                self.data.persisted.view = ViewId::Lessons;
            }
            LessonCommand::SetClassMode(on) => {
                self.data.class_mode = on;
                if on {
                    self.data.persisted.view = ViewId::Lessons;
                }
            }
            LessonCommand::MakeAssignment(request) => self.start_assignment(request),
            LessonCommand::ClassReport { key, answers, roster } => {
                self.data.class_files = Some((key.clone(), answers.clone(), roster));
                self.jobs.class_report.start(self.waker(), move |_| {
                    let key = crate::classroom::Key::read(&key)?;
                    let answers = crate::classroom::read_answers(&answers)?;
                    crate::classroom::class_report(&key, &answers)
                });
            }
            LessonCommand::SaveClassReport(path) => {
                let Some(report) = self.jobs.class_report.ready() else { return };
                let m = match crate::fsutil::write_atomic(&path, report.to_html()) {
                    Ok(()) => Notice::warning(format!("class report written to {}", path.display())),
                    Err(e) => Notice::error(e.report()),
                };
                self.say(m);
            }
        }
    }

    pub(super) fn poll_lessons(&mut self) {
        // Lessons are drawn from their jobs, failures included.
        self.jobs.lesson_kit.poll();
        self.jobs.lesson.poll();
        // The class report is drawn from its job, failures included.
        self.jobs.class_report.poll();
        match self.jobs.assignment.poll() {
            Polled::Ready => {
                if let Some(m) = self.jobs.assignment.take_ready() {
                    self.say(Notice::warning(m));
                }
            }
            Polled::Failed => {
                let m = failed(self.jobs.assignment.kind(), self.jobs.assignment.failure());
                self.say(m);
            }
            Polled::Same => {}
        }
    }

    /// Load the lesson corpora and the models that are here (never downloads).
    fn start_lesson_kit(&mut self) {
        if self.jobs.lesson_kit.is_running() || self.jobs.lesson_kit.ready().is_some() {
            return;
        }
        let manager = self.data.models.manager.clone().offline(true);
        self.jobs.lesson_kit.start(self.waker(), move |p| crate::lessons::LessonKit::load(&manager, p).map(Arc::new));
    }

    /// Build a lesson (once the kit is loaded).
    fn start_lesson(&mut self, id: String, params: crate::lessons::LessonParams) {
        let Some(kit) = self.jobs.lesson_kit.ready().cloned() else { return };
        let open = self
            .data
            .workbench
            .clone()
            .map(|workbench| crate::lessons::Open { workbench, question: params.question.clone() });
        self.jobs.lesson.start(self.waker(), move |_| {
            let lesson = crate::lessons::build(&id, &kit, &params, open.as_ref()).map_err(|e| e.report());
            Ok((id, params, lesson))
        });
    }

    /// Write an assignment in the background: the variants drawn from the open corpus (or the
    /// sample), the handouts and the key.
    fn start_assignment(&mut self, r: AssignmentRequest) {
        let open = if r.open_corpus { self.data.workbench.clone() } else { None };
        let kit = self.jobs.lesson_kit.ready().cloned();
        self.jobs.assignment.start(self.waker(), move |p| {
            let roster = crate::classroom::read_roster(&r.roster)?;
            let engine = match (open, kit) {
                (Some(e), _) => e,
                (None, Some(k)) => k.sample.clone(),
                (None, None) => return Err(Error::Unavailable("the lessons are still loading".into())),
            };
            let made = crate::classroom::make_assignment(&r.lesson, &roster, r.seed, &engine, p)?;
            let written = made.write(&r.out)?;
            Ok(format!(
                "assignment written: {} students, {} files in {} (the key is key.json)",
                roster.len(),
                written.len(),
                r.out.display()
            ))
        });
    }

    /// Write the lesson shown as a handout: Markdown for `.md`, else printable HTML (answers at
    /// the end, on a page of their own).
    /// Write the lesson shown as a handout: HTML, or Markdown for `.md`; with its answers at the
    /// end, or a student's without.
    pub(super) fn save_handout(&mut self, path: &std::path::Path, answers: bool) {
        let Some((_, _, Ok(lesson))) = self.jobs.lesson.latest() else {
            self.say(Notice::error("there is no lesson to save yet"));
            return;
        };
        let md = path.extension().is_some_and(|e| e.eq_ignore_ascii_case("md"));
        let text = if md {
            crate::classroom::handout::lesson_markdown(lesson, answers)
        } else {
            crate::classroom::handout::lesson_html(lesson, answers)
        };
        let what = if answers { "handout" } else { "student's handout (no answers)" };
        match crate::fsutil::write_atomic(path, text) {
            Ok(()) => self.say(Notice::warning(format!("{what} written to {}", path.display()))),
            Err(e) => self.say(Notice::error(e.report())),
        }
    }

    /// Write the lesson's checkpoints as a quiz (Moodle XML for `.xml`, else GIFT), as `ranklens
    /// lesson NAME --format moodle|gift` does.
    pub(super) fn save_quiz(&mut self, path: &std::path::Path) {
        let Some((_, _, Ok(lesson))) = self.jobs.lesson.latest() else {
            self.say(Notice::error("there is no lesson to export yet"));
            return;
        };
        let format = crate::classroom::exchange::QuizFormat::of_path(path);
        let written =
            crate::classroom::exchange::quiz(lesson, format).and_then(|t| crate::fsutil::write_atomic(path, t));
        match written {
            Ok(()) => self.say(Notice::warning(format!("quiz written to {}", path.display()))),
            Err(e) => self.say(Notice::error(e.report())),
        }
    }

    /// Write the class report's gradebook for `lms`, from the key and answers it was read from
    /// (and the roster's identifiers, when the report names one), as `ranklens assignment grade
    /// --format moodle|canvas` does.
    pub(super) fn save_gradebook(&mut self, path: &std::path::Path, lms: crate::classroom::Lms) {
        let Some((key, answers, roster)) = self.data.class_files.clone() else {
            self.say(Notice::error("read a class's answers first (Lessons → Class report…)"));
            return;
        };
        let written = (|| -> crate::Result<()> {
            let key = crate::classroom::Key::read(&key)?;
            let answers = crate::classroom::read_answers(&answers)?;
            let roster = match &roster {
                Some(r) => Some((std::fs::read(r).map_err(|e| crate::Error::io(r, e))?, r.display().to_string())),
                None => None,
            };
            let roster = roster.as_ref().map(|(b, s)| (b.as_slice(), s.as_str()));
            let csv = crate::classroom::gradebook_csv(&key, &answers, roster, lms)?;
            crate::fsutil::write_atomic(path, csv)
        })();
        match written {
            Ok(()) => self.say(Notice::warning(format!("gradebook written to {}", path.display()))),
            Err(e) => self.say(Notice::error(e.report())),
        }
    }
}
