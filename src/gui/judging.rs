//! Grading passages, per-question metrics, file dialogs, and report export and re-opening — the
//! app side of judgements and reports.

use super::command::DialogPurpose;
use std::collections::BTreeMap;
use std::path::PathBuf;

use super::app::RankLensApp;
use super::command::Command;
use super::jobs::Polled;
use super::state::{AppData, CorpusChoice, Message, Ranked};
use crate::compare::Outcome;
use crate::corpus::DocId;
use crate::eval::{Metric, MetricSet, Qrels, evaluate_query};
use crate::progress::Progress;
use crate::report::ReportBody;
use crate::retrieve::MethodKind;

/// Per-method metrics of the current question.
pub struct QuestionMetrics {
    /// (column label, family, metric → value, passages of the top k nobody graded).
    pub values: Vec<(String, MethodKind, BTreeMap<Metric, f64>, usize)>,
    /// The metrics.
    pub metrics: MetricSet,
}

/// nDCG@k, AP, R@k, P@k and MRR of every ranked column for the current question, and how many
/// of each top k are unjudged.
pub fn question_metrics(data: &AppData, ranked: &Ranked) -> Option<QuestionMetrics> {
    let engine = data.engine.as_ref()?;
    let comparison = &ranked.run.comparison;
    let metrics = MetricSet::at(comparison.k);
    let mut values = Vec::new();
    for run in &comparison.runs {
        let Outcome::Ranked(r) = &run.outcome else { continue };
        let list = r.ids_and_scores(engine.corpus());
        let unjudged = list.iter().filter(|(d, _)| !data.grades.contains_key(d)).count();
        let m = evaluate_query(&list, Some(&data.grades), &metrics);
        values.push((run.label.clone(), run.kind, m, unjudged));
    }
    Some(QuestionMetrics { values, metrics })
}

/// Keys 0–3 grade the selected passage; Delete clears its grade.
pub fn grade_shortcut(ctx: &egui::Context) -> Option<Option<i32>> {
    if ctx.egui_wants_keyboard_input() {
        return None;
    }
    ctx.input(|i| {
        for (key, g) in [(egui::Key::Num0, 0), (egui::Key::Num1, 1), (egui::Key::Num2, 2), (egui::Key::Num3, 3)] {
            if i.key_pressed(key) {
                return Some(Some(g));
            }
        }
        i.key_pressed(egui::Key::Delete).then_some(None)
    })
}

impl AppData {
    fn corpus_key(&self) -> Option<String> {
        self.engine.as_ref().map(|e| e.corpus().fingerprint())
    }

    /// Every grade (shipped judgements, then the user's, which win) of every question.
    pub fn all_qrels(&self) -> Qrels {
        let Some(engine) = &self.engine else { return Qrels::default() };
        let mut q = engine.corpus().qrels.clone().unwrap_or_default();
        if let (Some(store), Some(key)) = (&self.store, self.corpus_key())
            && let Ok(mine) = store.qrels(&key)
        {
            for (qid, docs) in mine.judgements {
                for (doc, g) in docs {
                    q.insert(&qid, &doc, g);
                }
            }
        }
        q
    }
}

impl RankLensApp {
    fn corpus_key(&self) -> Option<String> {
        self.data.corpus_key()
    }

    fn say(&mut self, message: Message) {
        self.data.messages.push(message);
    }

    /// Every grade (shipped judgements, then the user's, which win) of every question.
    pub fn all_qrels(&self) -> Qrels {
        self.data.all_qrels()
    }

    /// Read the current question's grades again (after the question, the corpus or a grade
    /// changed).
    pub(super) fn refresh_grades(&mut self) {
        let grades = match self.data.question_id() {
            Some(qid) => self.all_qrels().for_query(&qid).cloned().unwrap_or_default(),
            None => BTreeMap::new(),
        };
        self.data.grades = grades;
        self.data.grades_revision = super::state::next_revision();
    }

    /// Grade a passage for the current question (`None` clears the grade).
    pub(super) fn set_grade(&mut self, doc: DocId, grade: Option<i32>) {
        let (Some(qid), Some(key), Some(engine)) =
            (self.data.question_id(), self.corpus_key(), self.data.engine.clone())
        else {
            return;
        };
        let Some(store) = self.data.store.clone() else {
            self.say(Message::error("grades need a workspace folder to be stored in"));
            return;
        };
        let id = engine.corpus().external_id(doc).to_string();
        if let Err(e) = store.set(&key, &qid, self.data.persisted.question.trim(), &id, grade) {
            self.say(Message::error(format!("could not store the grade: {}", e.report())));
        }
        self.refresh_grades();
    }

    /// Open a native file dialog on its own thread (rfd blocks the calling thread).
    pub(super) fn start_dialog(&mut self, purpose: DialogPurpose) {
        self.jobs.dialog.start(self.waker(), move |_| {
            let d = rfd::FileDialog::new();
            let picked: Option<PathBuf> = match purpose {
                DialogPurpose::OpenRuns => {
                    let runs = d
                        .set_title("Open runs (TREC, CSV, TSV, JSON Lines, JSON; plain or .gz), saved engine responses or vectors (.npy, .jsonl, .safetensors)")
                        .pick_files()
                        .unwrap_or_default();
                    return Ok((purpose, runs));
                }
                DialogPurpose::OpenFolder => {
                    d.set_title("Open a folder of .txt/.md files or a BEIR folder").pick_folder()
                }
                DialogPurpose::OpenFile => {
                    d.set_title("Open a corpus file").add_filter("corpus", &["jsonl", "json", "csv", "tsv"]).pick_file()
                }
                DialogPurpose::OpenReport => {
                    d.set_title("Open a RankLens report").add_filter("report", &["json"]).pick_file()
                }
                DialogPurpose::SaveReport => {
                    d.set_title("Export a report").set_file_name("ranklens-report.html").save_file()
                }
                DialogPurpose::ExportQrels => {
                    d.set_title("Export grades as TREC qrels").set_file_name("qrels.trec").save_file()
                }
                DialogPurpose::ImportQrels => d.set_title("Import TREC or BEIR qrels").pick_file(),
                DialogPurpose::ExportModelQrels => d
                    .set_title("Export the language model's judgements (TREC qrels naming the model; .tsv for BEIR)")
                    .set_file_name("model-judgements.qrels")
                    .save_file(),
                DialogPurpose::ExportPrompt => {
                    d.set_title("Export the RAG prompt").set_file_name("rag-prompt.txt").save_file()
                }
                DialogPurpose::SaveHandout => d
                    .set_title("Save the lesson as a handout (.html prints, .md for Markdown)")
                    .set_file_name("lesson.html")
                    .save_file(),
            };
            Ok((purpose, picked.into_iter().collect()))
        });
    }

    /// Finished dialogs and reports.
    pub(super) fn poll_judging(&mut self) {
        if self.jobs.dialog.poll() == Polled::Ready
            && let Some((purpose, paths)) = self.jobs.dialog.take_ready()
        {
            match purpose {
                DialogPurpose::OpenRuns => {
                    self.apply(Command::OpenRuns(paths.into_iter().map(|p| (None, p)).collect()))
                }
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
                    self.say(Message::warning(m));
                }
            }
            Polled::Failed => {
                let m = self.jobs.report.failure().map(crate::Error::report).unwrap_or_default();
                self.say(Message::error(format!("Report: {m}")));
            }
            Polled::Same => {}
        }
        match self.jobs.assignment.poll() {
            Polled::Ready => {
                if let Some(m) = self.jobs.assignment.take_ready() {
                    self.say(Message::warning(m));
                }
            }
            Polled::Failed => {
                let m = self.jobs.assignment.failure().map(crate::Error::report).unwrap_or_default();
                self.say(Message::error(format!("Assignment: {m}")));
            }
            Polled::Same => {}
        }
        // Their views show their results and failures.
        self.jobs.analyzers.poll();
        self.jobs.moved.poll();
        self.jobs.answer.poll();
        if self.jobs.judge.poll() == Polled::Failed {
            let m = self.jobs.judge.failure().map(crate::Error::report).unwrap_or_default();
            self.say(Message::error(format!("Judging: {m}")));
        }
        if self.jobs.study.poll() == Polled::Failed {
            let m = self.jobs.study.failure().map(crate::Error::report).unwrap_or_default();
            self.say(Message::error(format!("Evaluation: {m}")));
        }
    }

    /// Act on a path chosen for a purpose.
    pub(super) fn use_path(&mut self, purpose: DialogPurpose, path: PathBuf) {
        match purpose {
            DialogPurpose::OpenFolder => {
                self.apply(Command::OpenCorpus(CorpusChoice::Path(path, self.data.open_split)))
            }
            DialogPurpose::OpenFile => {
                self.apply(Command::OpenCorpus(CorpusChoice::Path(path, crate::corpus::Split::File)))
            }
            DialogPurpose::OpenReport => self.open_report(&path),
            DialogPurpose::SaveReport => self.export_report(path),
            DialogPurpose::ExportQrels => {
                match self.all_qrels().to_file_format(&path).and_then(|text| crate::fsutil::write_atomic(&path, text)) {
                    Ok(()) => self.say(Message::warning(format!("grades written to {}", path.display()))),
                    Err(e) => self.say(Message::error(e.report())),
                }
            }
            DialogPurpose::ImportQrels => self.import_qrels(&path),
            DialogPurpose::ExportModelQrels => self.export_model_qrels(&path),
            DialogPurpose::ExportPrompt => self.export_prompt(&path),
            DialogPurpose::SaveHandout => self.save_handout(&path),
            DialogPurpose::OpenRuns => self.apply(Command::OpenRuns(vec![(None, path)])),
        }
    }

    /// Write the lesson shown as a handout: Markdown for `.md`, else printable HTML (answers at
    /// the end, on a page of their own).
    pub(super) fn save_handout(&mut self, path: &std::path::Path) {
        let Some((_, _, Ok(lesson))) = self.jobs.lesson.latest() else {
            self.say(Message::error("there is no lesson to save yet"));
            return;
        };
        let md = path.extension().is_some_and(|e| e.eq_ignore_ascii_case("md"));
        let text = if md {
            crate::lessons::handout::lesson_markdown(lesson, true)
        } else {
            crate::lessons::handout::lesson_html(lesson, true)
        };
        match crate::fsutil::write_atomic(path, text) {
            Ok(()) => self.say(Message::warning(format!("handout written to {}", path.display()))),
            Err(e) => self.say(Message::error(e.report())),
        }
    }

    /// Write the language model's judgements as qrels: TREC lines naming the model in their
    /// second column, or BEIR TSV for `.tsv`.
    pub(super) fn export_model_qrels(&mut self, path: &std::path::Path) {
        let tsv = path.extension().is_some_and(|e| e.eq_ignore_ascii_case("tsv"));
        let text = match self.data.model_judgements.lock() {
            Ok(j) => j.as_ref().filter(|j| !j.judgements.is_empty()).map(|j| j.qrels_text(tsv)),
            Err(_) => None,
        };
        let Some(text) = text else {
            self.say(Message::error("the language model has judged nothing yet"));
            return;
        };
        match text.and_then(|t| crate::fsutil::write_atomic(path, t)) {
            Ok(()) => self.say(Message::warning(format!(
                "the language model's judgements written to {} (apart from your grades)",
                path.display()
            ))),
            Err(e) => self.say(Message::error(e.report())),
        }
    }

    /// Write the current RAG prompt to a file.
    fn export_prompt(&mut self, path: &std::path::Path) {
        let prompt = self.ranking().and_then(|r| self.views.rag.prompt(&self.data, r));
        let Some((_, prompt)) = prompt else {
            self.say(Message::error("there is no prompt to export yet: ask a question first"));
            return;
        };
        match crate::fsutil::write_atomic(path, prompt) {
            Ok(()) => self.say(Message::warning(format!("prompt written to {}", path.display()))),
            Err(e) => self.say(Message::error(e.report())),
        }
    }

    /// Load qrels from a file into the grade store.
    fn import_qrels(&mut self, path: &std::path::Path) {
        let (Some(store), Some(key)) = (self.data.store.clone(), self.corpus_key()) else { return };
        match Qrels::load(path) {
            Ok((q, warnings)) => {
                for w in warnings {
                    self.say(Message::warning(w.to_string()));
                }
                match store.import(&key, &q) {
                    Ok(n) => self.say(Message::warning(format!("{n} grade(s) imported from {}", path.display()))),
                    Err(e) => self.say(Message::error(e.report())),
                }
                self.refresh_grades();
            }
            Err(e) => self.say(Message::error(e.report())),
        }
    }

    /// Write the current comparison as a report (format from the extension), in the background.
    fn export_report(&mut self, path: PathBuf) {
        let (Some(engine), Some(ranked)) = (self.data.engine.clone(), self.ranking()) else {
            self.say(Message::error("run a question before exporting a report"));
            return;
        };
        let run = ranked.run.clone();
        let settings = self.data.persisted.settings.clone();
        let grades = self.data.grades.clone();
        self.jobs.report.start(self.waker(), move |p| {
            p.stage("writing the report", 0);
            let judged = (!grades.is_empty()).then_some(&grades);
            let report = crate::report::comparison_report(&engine, &run, &settings, judged);
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
                self.say(Message::error(format!("cannot open the report: {}", e.report())));
                return;
            }
        };
        let ReportBody::Comparison(report) = body else {
            self.say(Message::error("this is an evaluation report; only one-question reports re-open in the app"));
            return;
        };
        self.data.persisted.settings = report.stamp.settings.clone();
        self.data.persisted.question = report.question.clone();
        self.refresh_grades();
        let same_corpus =
            self.data.engine.as_ref().is_some_and(|e| e.corpus().fingerprint() == report.stamp.corpus_fingerprint);
        // The re-run happens on the report's corpus: at once when it is open, else once it loads.
        let next = match (&report.stamp.corpus_source, same_corpus) {
            (_, true) => Command::Ask,
            (Some(src), false) => {
                Command::OpenCorpus(CorpusChoice::Path(PathBuf::from(src), crate::corpus::Split::File))
            }
            (None, false) => {
                self.say(Message::error("the report's corpus is not open and its source is unknown"));
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
            Message::warning(format!(
                "report re-opened: all {} columns reproduced exactly",
                report.comparison.runs.len()
            ))
        } else {
            Message::error(format!("report re-opened, but these columns differ: {}", differ.join(", ")))
        };
        self.say(message);
        self.data.report_reproduced = Some(differ.is_empty());
    }
}
