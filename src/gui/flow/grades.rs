//! Grades: the people's judgements of the current question (the corpus's shipped qrels, then the
//! user's, which win), kept in the workspace's store; imported and exported as qrels.

use std::collections::BTreeMap;

use crate::corpus::DocId;
use crate::eval::Qrels;
use crate::gui::app::RankLensApp;
use crate::gui::state::{Notice, next_revision};

impl RankLensApp {
    /// Every grade (shipped judgements, then the user's, which win) of every question.
    pub(super) fn all_qrels(&self) -> Qrels {
        self.data.all_qrels()
    }

    /// Read the current question's grades again (after the question, the corpus or a grade
    /// changed).
    pub(super) fn refresh_grades(&mut self) {
        let all = self.all_qrels();
        let grades = match self.data.question_id() {
            Some(qid) => all.for_query(&qid).cloned().unwrap_or_default(),
            None => BTreeMap::new(),
        };
        self.data.judged_questions = all.judgements.len();
        self.data.grades = grades;
        self.data.grades_revision = next_revision();
    }

    /// Grade a passage for the current question (`None` clears the grade).
    pub(super) fn set_grade(&mut self, doc: DocId, grade: Option<i32>) {
        let (Some(qid), Some(key), Some(engine)) =
            (self.data.question_id(), self.data.corpus_key(), self.data.workbench.clone())
        else {
            return;
        };
        let Some(store) = self.data.store.clone() else {
            self.say(Notice::error("grades need a workspace folder to be stored in"));
            return;
        };
        let id = engine.corpus().external_id(doc).to_string();
        if let Err(e) = store.set(&key, &qid, self.data.persisted.question.trim(), &id, grade) {
            self.say(Notice::error(format!("could not store the grade: {}", e.report())));
        }
        self.refresh_grades();
    }

    /// Write every grade as qrels (BEIR TSV for `.tsv`, else TREC).
    pub(super) fn export_qrels(&mut self, path: &std::path::Path) {
        match self.all_qrels().to_file_format(path).and_then(|text| crate::fsutil::write_atomic(path, text)) {
            Ok(()) => self.say(Notice::warning(format!("grades written to {}", path.display()))),
            Err(e) => self.say(Notice::error(e.report())),
        }
    }

    /// Load qrels from a file into the grade store.
    pub(super) fn import_qrels(&mut self, path: &std::path::Path) {
        let (Some(store), Some(key)) = (self.data.store.clone(), self.data.corpus_key()) else { return };
        match Qrels::load(path) {
            Ok((q, warnings)) => {
                for w in warnings {
                    self.say(Notice::warning(w.to_string()));
                }
                match store.import(&key, &q) {
                    Ok(n) => self.say(Notice::warning(format!("{n} grade(s) imported from {}", path.display()))),
                    Err(e) => self.say(Notice::error(e.report())),
                }
                self.refresh_grades();
            }
            Err(e) => self.say(Notice::error(e.report())),
        }
    }
}
