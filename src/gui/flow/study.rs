//! The question-set evaluation: every method switched on and every other system over the corpus's
//! judged questions, against a baseline with corrected p-values; and grading passages.

use std::sync::Arc;

use super::shell::failed;
use crate::Error;
use crate::compare::{Baseline, Plan};
use crate::gui::app::RankLensApp;
use crate::gui::command::StudyCommand;
use crate::gui::jobs::Polled;
use crate::retrieve::MethodKind;

impl RankLensApp {
    pub(super) fn apply_study(&mut self, command: StudyCommand) {
        match command {
            StudyCommand::SetGrade { doc, grade } => self.set_grade(doc, grade),
            StudyCommand::SetBaseline(system) => self.data.baseline = system,
            StudyCommand::SetCorrection(c) => self.data.correction = c,
            StudyCommand::Run => self.start_study(),
        }
    }

    pub(super) fn poll_study(&mut self) {
        if self.jobs.study.poll() == Polled::Failed {
            let m = failed(self.jobs.study.kind(), self.jobs.study.failure());
            self.say(m);
        }
    }

    /// Evaluate the methods shown (those available) and the other systems over the corpus's
    /// judged questions.
    fn start_study(&mut self) {
        let Some(engine) = self.data.workbench.clone() else { return };
        let qrels = self.all_qrels();
        let settings = self.data.persisted.settings.clone();
        let (externals, baseline, correction) =
            (self.data.systems.clone(), self.data.baseline.clone(), self.data.correction);
        self.jobs.study.start(self.waker(), move |p| {
            if qrels.judgements.is_empty() {
                return Err(Error::Unavailable(
                    "no judged questions: grade passages first, or open a dataset with qrels".into(),
                ));
            }
            // The ranked methods switched on in the question bar (a late-interaction column that
            // re-ranks by encoding passages costs minutes per hundred questions on a large corpus).
            let kinds: Vec<MethodKind> =
                MethodKind::RANKED.into_iter().filter(|k| settings.methods.contains(k)).collect();
            let plan = Plan::of_kinds(&settings, &kinds).with_externals(&externals);
            let queries = engine.corpus().queries.clone();
            // The baseline is a family's label or another system's name; one the study no longer
            // holds falls back to BM25.
            let baseline = Baseline::Preferred(baseline);
            let study = plan.study(Some(&engine), &qrels, &queries, 100, &baseline, correction, p)?;
            Ok(Arc::new(study))
        });
    }
}
