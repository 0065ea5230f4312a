//! Grading passages, per-question metrics, question-set evaluation, file dialogs, and report
//! export and re-opening — the app side of judgements and reports.

use std::collections::BTreeMap;
use std::path::PathBuf;
use std::sync::Arc;
use std::sync::mpsc::Receiver;

use crate::compare::{Outcome, Study};
use crate::corpus::DocId;
use crate::eval::{JudgementStore, Metric, MetricSet, Qrels, evaluate_query, question_id};
use crate::progress::Progress;
use crate::report::ReportBody;
use crate::retrieve::{MethodKind, Retriever};

use super::app::{Message, RankLensApp};
use super::jobs::Slot;
use super::state::CorpusChoice;

/// What a file dialog was opened for.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum DialogPurpose {
    /// Open a folder as a corpus.
    OpenFolder,
    /// Open a file as a corpus.
    OpenFile,
    /// Re-open a JSON report.
    OpenReport,
    /// Save a report (format from the extension).
    SaveReport,
    /// Save the grades as TREC qrels.
    ExportQrels,
    /// Load TREC or BEIR qrels as grades.
    ImportQrels,
    /// Save the RAG prompt as text.
    ExportPrompt,
}

/// A dialog running on its own thread.
pub struct PendingDialog {
    /// Why it was opened.
    pub purpose: DialogPurpose,
    /// The chosen path, when the thread ends.
    pub rx: Receiver<Option<PathBuf>>,
}

/// Grades of the current question, and the question-set evaluation.
#[derive(Default)]
pub struct Judging {
    /// The store in the workspace (none without a workspace).
    pub store: Option<Arc<JudgementStore>>,
    /// (question id, grades) of the current question, cached.
    pub cache: Option<(String, BTreeMap<String, i32>)>,
    /// The last question-set evaluation.
    pub study: Option<Arc<Study>>,
    /// Baseline family for the evaluation.
    pub baseline: Option<MethodKind>,
    /// A report being re-opened: its rankings, to check the re-run against.
    pub report_check: Option<Box<crate::report::ComparisonReport>>,
}

/// Per-method metrics of the current question.
pub struct QuestionMetrics {
    /// Method label → metric → value.
    pub values: Vec<(String, MethodKind, BTreeMap<Metric, f64>, usize)>,
    /// The metrics.
    pub metrics: MetricSet,
}

impl RankLensApp {
    /// The id grades of the current question are kept under.
    pub fn question_id(&self) -> Option<String> {
        let engine = self.engine.as_ref()?;
        let q = self.state.question.trim();
        (!q.is_empty()).then(|| question_id(q, &engine.corpus().queries))
    }

    fn corpus_key(&self) -> Option<String> {
        self.engine.as_ref().map(|e| e.corpus().fingerprint())
    }

    /// Every grade (shipped judgements, then the user's, which win) of every question.
    pub fn all_qrels(&self) -> Qrels {
        let Some(engine) = &self.engine else { return Qrels::default() };
        let mut q = engine.corpus().qrels.clone().unwrap_or_default();
        if let (Some(store), Some(key)) = (&self.judging.store, self.corpus_key())
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

    /// Grades of the current question by passage id.
    pub fn grades(&mut self) -> BTreeMap<String, i32> {
        let Some(qid) = self.question_id() else { return BTreeMap::new() };
        if let Some((cached, g)) = &self.judging.cache
            && *cached == qid
        {
            return g.clone();
        }
        let g = self.all_qrels().for_query(&qid).cloned().unwrap_or_default();
        self.judging.cache = Some((qid, g.clone()));
        g
    }

    /// Grade a passage for the current question (`None` clears the grade).
    pub fn set_grade(&mut self, doc: DocId, grade: Option<i32>) {
        let (Some(qid), Some(key), Some(engine)) = (self.question_id(), self.corpus_key(), self.engine.clone()) else {
            return;
        };
        let Some(store) = self.judging.store.clone() else {
            self.messages.push(Message::error("grades need a workspace folder to be stored in"));
            return;
        };
        let id = engine.corpus().external_id(doc).to_string();
        if let Err(e) = store.set(&key, &qid, self.state.question.trim(), &id, grade) {
            self.messages.push(Message::error(format!("could not store the grade: {e}")));
        }
        self.judging.cache = None;
    }

    /// nDCG@k, AP, R@k, P@k and MRR of every ranked column for the current question, and how
    /// many of each top k are unjudged.
    pub fn question_metrics(&mut self) -> Option<QuestionMetrics> {
        let grades = self.grades();
        let ranked = self.ranked.clone()?;
        let engine = self.engine.clone()?;
        let metrics = MetricSet::at(ranked.comparison.k);
        let mut values = Vec::new();
        for run in &ranked.comparison.runs {
            let Outcome::Ranked(r) = &run.outcome else { continue };
            let list: Vec<(String, f64)> =
                r.hits.iter().map(|h| (engine.corpus().external_id(h.doc).to_string(), h.score)).collect();
            let unjudged = list.iter().filter(|(d, _)| !grades.contains_key(d)).count();
            let m = evaluate_query(&list, Some(&grades), &metrics);
            values.push((run.label.clone(), run.kind, m, unjudged));
        }
        Some(QuestionMetrics { values, metrics })
    }

    /// Evaluate every available method over the corpus's judged questions (in the background).
    pub fn start_study(&mut self) {
        let Some(engine) = self.engine.clone() else { return };
        let qrels = self.all_qrels();
        let settings = self.state.settings.clone();
        let baseline_kind = self.judging.baseline.unwrap_or(MethodKind::Bm25);
        self.jobs.spawn(Slot::Evaluate, move |p| {
            if qrels.judgements.is_empty() {
                return Err("no judged questions: grade passages first, or open a dataset with qrels".into());
            }
            let retrievers: Vec<Arc<dyn Retriever>> =
                MethodKind::RANKED.iter().filter_map(|k| engine.retriever(*k, &settings).ok()).collect();
            let baseline = retrievers.iter().position(|r| r.kind() == baseline_kind).unwrap_or(0);
            p.stage("evaluating", 0);
            let study =
                Study::run(&engine, &retrievers, &qrels, &settings, 100, baseline, p).map_err(|e| e.to_string())?;
            Ok(Box::new(study))
        });
    }

    /// Open a native file dialog on its own thread (rfd blocks the calling thread).
    pub fn open_file_dialog(&mut self, purpose: DialogPurpose) {
        let (tx, rx) = std::sync::mpsc::channel();
        let spawned = std::thread::Builder::new().name("ranklens-file-dialog".into()).spawn(move || {
            let d = rfd::FileDialog::new();
            let picked = match purpose {
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
                DialogPurpose::ExportPrompt => {
                    d.set_title("Export the RAG prompt").set_file_name("rag-prompt.txt").save_file()
                }
            };
            let _ = tx.send(picked);
        });
        match spawned {
            Ok(_) => self.pending_dialog = Some(PendingDialog { purpose, rx }),
            Err(e) => self.messages.push(Message::error(format!("could not open a file dialog: {e}"))),
        }
    }

    /// Act on a path chosen in a dialog.
    pub fn on_dialog(&mut self, purpose: DialogPurpose, path: PathBuf) {
        match purpose {
            DialogPurpose::OpenFolder => {
                let split = self.extra.open_split;
                self.open_corpus(CorpusChoice::Path(path, split));
            }
            DialogPurpose::OpenFile => self.open_corpus(CorpusChoice::Path(path, crate::corpus::Split::File)),
            DialogPurpose::OpenReport => self.open_report(&path),
            DialogPurpose::SaveReport => self.export_report(path),
            DialogPurpose::ExportQrels => match std::fs::write(&path, self.all_qrels().to_trec()) {
                Ok(()) => self.messages.push(Message::warning(format!("grades written to {}", path.display()))),
                Err(e) => self.messages.push(Message::error(format!("{}: {e}", path.display()))),
            },
            DialogPurpose::ImportQrels => self.import_qrels(&path),
            DialogPurpose::ExportPrompt => self.export_prompt(&path),
        }
    }

    /// Write the current RAG prompt to a file.
    pub fn export_prompt(&mut self, path: &std::path::Path) {
        let Some((_, prompt)) = crate::gui::panels::current_prompt(self) else {
            self.messages.push(Message::error("there is no prompt to export yet: ask a question first"));
            return;
        };
        match std::fs::write(path, prompt) {
            Ok(()) => self.messages.push(Message::warning(format!("prompt written to {}", path.display()))),
            Err(e) => self.messages.push(Message::error(format!("{}: {e}", path.display()))),
        }
    }

    /// Load qrels from a file into the grade store.
    pub fn import_qrels(&mut self, path: &std::path::Path) {
        let (Some(store), Some(key)) = (self.judging.store.clone(), self.corpus_key()) else { return };
        match Qrels::load(path) {
            Ok((q, warnings)) => {
                for w in warnings {
                    self.messages.push(Message::warning(w.to_string()));
                }
                match store.import(&key, &q) {
                    Ok(n) => {
                        self.messages.push(Message::warning(format!("{n} grade(s) imported from {}", path.display())))
                    }
                    Err(e) => self.messages.push(Message::error(e.to_string())),
                }
                self.judging.cache = None;
            }
            Err(e) => self.messages.push(Message::error(e.to_string())),
        }
    }

    /// Write the current comparison as a report (format from the extension), in the background.
    pub fn export_report(&mut self, path: PathBuf) {
        let (Some(engine), Some(ranked)) = (self.engine.clone(), self.ranked.clone()) else {
            self.messages.push(Message::error("run a question before exporting a report"));
            return;
        };
        let settings = self.state.settings.clone();
        let grades = self.grades();
        self.jobs.spawn(Slot::Other("Report".into()), move |p| {
            p.stage("writing the report", 0);
            let retrievers: Vec<Arc<dyn Retriever>> = ranked.retrievers.iter().map(|(_, r)| r.clone()).collect();
            let judged = (!grades.is_empty()).then_some(&grades);
            let report = crate::report::comparison_report(
                &engine,
                &ranked.comparison,
                &retrievers,
                &ranked.query,
                &settings,
                judged,
            );
            crate::report::write(&ReportBody::Comparison(Box::new(report)), &path).map_err(|e| e.to_string())?;
            Ok(Box::new(format!("report written to {}", path.display())))
        });
    }

    /// Re-open a JSON report: restore its question and settings (and corpus), re-rank, and check
    /// that every ranking comes out the same.
    pub fn open_report(&mut self, path: &std::path::Path) {
        let body = match crate::report::load(path) {
            Ok(b) => b,
            Err(e) => {
                self.messages.push(Message::error(format!("cannot open the report: {e}")));
                return;
            }
        };
        let ReportBody::Comparison(report) = body else {
            self.messages
                .push(Message::error("this is an evaluation report; only one-question reports re-open in the app"));
            return;
        };
        self.state.settings = report.stamp.settings.clone();
        self.state.question = report.question.clone();
        let same_corpus =
            self.engine.as_ref().is_some_and(|e| e.corpus().fingerprint() == report.stamp.corpus_fingerprint);
        if !same_corpus {
            match &report.stamp.corpus_source {
                Some(src) => self.open_corpus(CorpusChoice::Path(PathBuf::from(src), crate::corpus::Split::File)),
                None => {
                    self.messages.push(Message::error("the report's corpus is not open and its source is unknown"));
                    return;
                }
            }
        }
        self.judging.report_check = Some(report);
        self.mark_dirty();
    }

    /// After a re-run, compare with the report being re-opened.
    pub fn check_report(&mut self) {
        let (Some(report), Some(ranked)) = (self.judging.report_check.take(), self.ranked.clone()) else { return };
        let mut differ = Vec::new();
        for stored in &report.comparison.runs {
            let now = ranked.comparison.runs.iter().find(|r| r.label == stored.label);
            let same = match (stored.ranking(), now.and_then(|r| r.ranking())) {
                (Some(a), Some(b)) => a.hits == b.hits,
                (None, None) => true,
                _ => false,
            };
            if !same {
                differ.push(stored.label.clone());
            }
        }
        self.messages.push(if differ.is_empty() {
            Message::warning(format!(
                "report re-opened: all {} columns reproduced exactly",
                report.comparison.runs.len()
            ))
        } else {
            Message::error(format!("report re-opened, but these columns differ: {}", differ.join(", ")))
        });
        self.report_reproduced = Some(differ.is_empty());
    }

    /// Results of the evaluation and report jobs.
    pub fn apply_judging(&mut self, slot: &Slot, output: crate::gui::jobs::Output) {
        match slot {
            Slot::Evaluate => {
                if let Ok(study) = output.downcast::<Study>() {
                    self.judging.study = Some(Arc::new(*study));
                }
            }
            Slot::Other(_) => {
                if let Ok(text) = output.downcast::<String>() {
                    self.messages.push(Message::warning(*text));
                }
            }
            _ => {}
        }
    }
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
