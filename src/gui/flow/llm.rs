//! What the language model is asked in the app: the reader's answer to the RAG prompt (streamed
//! as it is written), and relevance judgements of a column's top k or of the question set's pool
//! (each shown as it is made, stored beside the grades, never merged into them).

use super::shell::failed;
use crate::Error;
use crate::compare::judge::{self, JudgeEvent, ModelJudgementStore, ModelJudgements, PoolItem};
use crate::gui::app::RankLensApp;
use crate::gui::command::{AnswerRequest, JudgeRequest, JudgeScope, LlmCommand};
use crate::gui::jobs::Polled;
use crate::gui::state::{AnswerPiece, ClosedBook, Notice, RagAnswer, next_revision};

/// What the app says when a command needs the language model and none is loaded.
const NO_GENERATOR: &str = "No language model: load one in Models → Generator (the embedded model, or a chat server).";

impl RankLensApp {
    pub(super) fn apply_llm(&mut self, command: LlmCommand) {
        match command {
            LlmCommand::Answer(request) => self.start_answer(request),
            LlmCommand::Judge(request) => self.start_judge(request),
            LlmCommand::StressJudge { k, questions } => self.start_stress(k, questions),
        }
    }

    pub(super) fn poll_llm(&mut self) {
        // The RAG view reads the answer's pieces and result from the job.
        self.jobs.answer.poll();
        let (arrived, polled) = self.jobs.judge.poll();
        if arrived > 0 {
            let parts = self.jobs.judge.parts();
            for event in &parts[parts.len() - arrived..] {
                ModelJudgements::take(&mut self.data.model_judgements, event.clone());
            }
            self.data.judgements_revision = next_revision();
        }
        if polled == Polled::Failed {
            let m = failed(self.jobs.judge.kind(), self.jobs.judge.failure());
            self.say(m);
        }
        // The judge panel shows the card, or why it could not be made.
        self.jobs.judge_stress.poll();
    }

    /// The judge's report card: the judge that made the kept judgements asked again under each
    /// attack, and the methods of the judging pool ranked again over the same questions for τ
    /// (`compare::judge_stress`, as `ranklens judge --stress`). Every reply goes through the
    /// workbench's store, so a stopped card resumes where it stopped.
    fn start_stress(&mut self, k: usize, questions: usize) {
        let Some(engine) = self.data.workbench.clone() else { return };
        let Some(generator) = engine.generator() else {
            self.say(Notice::error(NO_GENERATOR));
            return;
        };
        let Some(judged) = self.data.model_judgements.clone().filter(|j| !j.judgements.is_empty()) else {
            self.say(Notice::error("the language model has judged nothing yet: judge the question set's pool first"));
            return;
        };
        let people = self.all_qrels();
        let plan = crate::compare::judge_plan(&self.data.persisted.settings);
        self.jobs.judge_stress.start(self.waker(), move |p| {
            let pooled = plan.judging_pool(&engine, &people, questions, k, p)?;
            crate::compare::judge_stress::stress(
                engine.corpus(),
                generator.as_ref(),
                &judged.prompt,
                &judged,
                &pooled.runs,
                &people,
                crate::compare::judge_stress::PER_QUESTION,
                p,
                &mut |_| {},
            )
        });
    }

    /// Send the RAG prompt of the request's passages to the language model; the answer streams
    /// into the job's pieces and is read against the passages when it is done.
    fn start_answer(&mut self, request: AnswerRequest) {
        let Some(generator) = self.data.workbench.as_ref().and_then(|e| e.generator()) else {
            self.say(Notice::error(NO_GENERATOR));
            return;
        };
        self.jobs.answer.start(self.waker(), move |p, parts| {
            let AnswerRequest { question, source, passages } = request;
            let mut sink = |piece: &str| parts.send(AnswerPiece::Rag(piece.to_string()));
            let (_, generated, answer) =
                crate::generate::tasks::answer(generator.as_ref(), &question, &passages, &mut sink, p)?;
            let grounding = crate::generate::citations::ground(&generated.text, &passages);
            // Then the same question with no passages, each sentence checked against the same ones.
            let mut sink = |piece: &str| parts.send(AnswerPiece::ClosedBook(piece.to_string()));
            let closed_book = match crate::generate::tasks::closed_book(generator.as_ref(), &question, &mut sink, p) {
                Ok(g) => {
                    Ok(ClosedBook { grounding: crate::generate::citations::ground(&g.text, &passages), generated: g })
                }
                Err(Error::Cancelled) => return Err(Error::Cancelled),
                Err(e) => Err(e.report()),
            };
            Ok(RagAnswer { question, source, passages, generated, answer, grounding, closed_book })
        });
    }

    /// Where the language model's judgements are kept (none without a workspace).
    fn judgement_store(&self) -> Option<ModelJudgementStore> {
        self.data.workspace.as_deref().map(ModelJudgementStore::in_workspace)
    }

    /// The judgements stored for the open corpus (a damaged file is reported, not used).
    pub(super) fn load_model_judgements(&mut self) {
        self.data.judgements_revision = next_revision();
        let (Some(store), Some(engine)) = (self.judgement_store(), self.data.workbench.clone()) else {
            self.data.model_judgements = None;
            return;
        };
        self.data.model_judgements = match store.load(engine.corpus()) {
            Ok(j) => j,
            Err(e) => {
                self.say(Notice::warning(e.report()));
                None
            }
        };
    }

    /// Judge passages with the language model: one column's top k, or the pool of the question
    /// set. Each judgement reaches the view as it is made; the store keeps them when the run
    /// ends or is stopped; no grade is touched.
    fn start_judge(&mut self, request: JudgeRequest) {
        let Some(engine) = self.data.workbench.clone() else { return };
        let Some(generator) = engine.generator() else {
            self.say(Notice::error(NO_GENERATOR));
            return;
        };
        if let Err(e) = request.prompt.validate() {
            self.say(Notice::error(e.report()));
            return;
        }
        self.data.persisted.judge_prompt = request.prompt.clone();
        let people = self.all_qrels();
        let plan = crate::compare::judge_plan(&self.data.persisted.settings);
        let store = self.judgement_store();
        self.jobs.judge.start(self.waker(), move |p, parts| {
            let (pool, scope, skipped) = match request.scope {
                JudgeScope::Ranking { column, qid, question, docs } => {
                    let n = docs.len();
                    let pool = docs
                        .into_iter()
                        .map(|doc| PoolItem { qid: qid.clone(), question: question.clone(), doc })
                        .collect();
                    (pool, format!("{column}: the top {n} for “{question}”"), Vec::new())
                }
                JudgeScope::Pool { k, questions } => {
                    let pooled = plan.judging_pool(&engine, &people, questions, k, p)?;
                    let (scope, skipped) = (pooled.scope(), pooled.skipped());
                    (pooled.items, scope, skipped)
                }
            };
            parts.send(JudgeEvent::Started(ModelJudgements {
                name: generator.info().model.clone(),
                model: generator.info().label(),
                prompt: request.prompt.clone(),
                scope: scope.clone(),
                pooled: pool.len(),
                skipped: skipped.clone(),
                judgements: Vec::new(),
            }));
            let mut each = |j: &judge::ModelJudgement| -> crate::Result<()> {
                parts.send(JudgeEvent::Judged(j.clone()));
                Ok(())
            };
            let mut done = judge::judge(
                engine.corpus(),
                generator.as_ref(),
                &request.prompt,
                &pool,
                &people,
                &scope,
                request.probabilities,
                p,
                &mut each,
            )?;
            done.skipped = skipped;
            // Stored whether it finished or was stopped: what was judged is kept.
            if let Some(store) = store {
                store.save(engine.corpus(), &done)?;
            }
            Ok(done.judgements.len())
        });
    }

    /// Write the language model's judgements as qrels: TREC lines naming the model in their
    /// second column, or BEIR TSV for `.tsv`.
    pub(super) fn export_model_qrels(&mut self, path: &std::path::Path) {
        let tsv = path.extension().is_some_and(|e| e.eq_ignore_ascii_case("tsv"));
        let text = self.data.model_judgements.as_ref().filter(|j| !j.judgements.is_empty()).map(|j| j.qrels_text(tsv));
        let Some(text) = text else {
            self.say(Notice::error("the language model has judged nothing yet"));
            return;
        };
        match text.and_then(|t| crate::fsutil::write_atomic(path, t)) {
            Ok(()) => self.say(Notice::warning(format!(
                "the language model's judgements written to {} (apart from your grades)",
                path.display()
            ))),
            Err(e) => self.say(Notice::error(e.report())),
        }
    }
}
