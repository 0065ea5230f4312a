//! Relevance judgements by a language model: a ranking's top k or a question set's pool judged
//! passage by passage with an editable prompt, and how far the model agrees with the people's
//! judgements. The model's judgements are their own record, named after the model: nothing here
//! merges them into anyone's grades.

use serde::{Deserialize, Serialize};

use std::path::{Path, PathBuf};

use crate::corpus::{Corpus, DocId, IdFormat, Qrels, check_id};
use crate::eval::Agreement;
use crate::generate::tasks::{self, JudgePrompt};
use crate::generate::{ChatRequest, Generator};
use crate::progress::{CancelOnly, Progress};
use crate::{Error, Result};

/// One passage to judge for one question.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PoolItem {
    /// The question's id.
    pub qid: String,
    /// The question.
    pub question: String,
    /// The passage.
    pub doc: DocId,
}

/// The corpus's questions that `people` judged, as (id, text) in the corpus's order; the first
/// `limit` of them when `limit` > 0.
pub fn judged_questions(corpus: &Corpus, people: &Qrels, limit: usize) -> Vec<(String, String)> {
    let judged = corpus.queries.iter().filter(|q| people.judged(&q.id)).map(|q| (q.id.clone(), q.text.clone()));
    if limit > 0 { judged.take(limit).collect() } else { judged.collect() }
}

/// What the model said about one passage.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ModelJudgement {
    /// The question's id.
    pub qid: String,
    /// The passage's id.
    pub doc: String,
    /// The model's reply as written.
    pub reply: String,
    /// The reply read as a grade (1 relevant, 0 not); `None` when it was neither yes nor no.
    pub grade: Option<u8>,
    /// The people's grade when they judged the passage.
    pub people: Option<i32>,
    /// The probability the model gave "yes" as its first word, when it was read (a graded
    /// judgement; `grade` is then P(yes) ≥ 0.5).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub p_yes: Option<f64>,
}

/// A model's judgements of a pool, kept apart from the people's.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ModelJudgements {
    /// The judge's name (what a qrels file's lines carry).
    #[serde(default)]
    pub name: String,
    /// The judge: model, size and where it ran.
    pub model: String,
    /// The prompt it was given.
    pub prompt: JudgePrompt,
    /// What was pooled ("bm25 top 10 of 3 questions").
    pub scope: String,
    /// Passages in the pool.
    pub pooled: usize,
    /// The columns that could not pool here, each with why (`Dense: no dense model loaded…`).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub skipped: Vec<String>,
    /// Each judgement, in pool order.
    pub judgements: Vec<ModelJudgement>,
}

impl ModelJudgements {
    /// Whether every pooled passage was judged (a stopped run keeps what it judged).
    pub fn finished(&self) -> bool {
        self.judgements.len() >= self.pooled
    }

    /// Agreement with the people over the readable replies; a passage the people never judged
    /// counts as not relevant (the convention of TREC and BEIR pools).
    pub fn agreement(&self) -> Agreement {
        crate::eval::agreement(
            self.judgements.iter().filter_map(|j| j.grade.map(|g| (g > 0, j.people.unwrap_or(0) > 0))),
        )
    }

    /// Agreement with the people when the model's "relevant" is P(yes) ≥ t, for t = 0.1, 0.2, …,
    /// 0.9: the judgements that carry a probability only (none when none does).
    pub fn sweep(&self) -> Vec<SweepPoint> {
        let graded: Vec<(f64, bool)> =
            self.judgements.iter().filter_map(|j| j.p_yes.map(|p| (p, j.people.unwrap_or(0) > 0))).collect();
        if graded.is_empty() {
            return Vec::new();
        }
        (1..=9)
            .map(|i| {
                let threshold = f64::from(i) / 10.0;
                SweepPoint {
                    threshold,
                    agreement: crate::eval::agreement(graded.iter().map(|&(p, y)| (p >= threshold, y))),
                }
            })
            .collect()
    }

    /// Replies that were neither yes nor no.
    pub fn unreadable(&self) -> usize {
        self.judgements.iter().filter(|j| j.grade.is_none()).count()
    }

    /// Readable judgements of passages the people never judged.
    pub fn unjudged_by_people(&self) -> usize {
        self.judgements.iter().filter(|j| j.grade.is_some() && j.people.is_none()).count()
    }

    /// The model's readable judgements as qrels.
    pub fn qrels(&self) -> Qrels {
        let mut q = Qrels::default();
        for j in &self.judgements {
            if let Some(g) = j.grade {
                q.insert(&j.qid, &j.doc, i32::from(g));
            }
        }
        q
    }

    /// The judgements as a qrels file: TREC lines name the judge in their second column (the
    /// "iteration", which trec_eval and RankLens ignore); BEIR's TSV has no room for it, so its
    /// file name should say it. A pair judged twice is written once, with its later grade (as
    /// [`Self::qrels`] keeps it): a qrels reader takes a repeated pair for a mistake.
    pub fn qrels_text(&self, tsv: bool) -> Result<String> {
        let q = self.qrels();
        if tsv {
            return q.to_tsv();
        }
        let mut last = std::collections::HashMap::new();
        for (i, j) in self.judgements.iter().enumerate() {
            if j.grade.is_some() {
                last.insert((j.qid.as_str(), j.doc.as_str()), i);
            }
        }
        let mut out = String::new();
        for (i, j) in self.judgements.iter().enumerate() {
            if let Some(g) = j.grade
                && last.get(&(j.qid.as_str(), j.doc.as_str())) == Some(&i)
            {
                out.push_str(&trec_line(&j.qid, &j.doc, g, &self.name)?);
            }
        }
        Ok(out)
    }
}

/// The agreement at one threshold of P(yes).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct SweepPoint {
    /// The model says relevant when P(yes) is at least this.
    pub threshold: f64,
    /// Its agreement with the people there.
    pub agreement: Agreement,
}

/// What a judging run reports as it goes: the pool it is about to judge, then each judgement.
#[derive(Debug, Clone, PartialEq)]
pub enum JudgeEvent {
    /// The judging started: what is judged, with no judgement yet.
    Started(ModelJudgements),
    /// One more judgement.
    Judged(ModelJudgement),
}

impl ModelJudgements {
    /// Take in one event of a run: a start replaces what was there; a judgement joins the run
    /// it belongs to (one that comes with no run started is dropped).
    pub fn take(current: &mut Option<ModelJudgements>, event: JudgeEvent) {
        match event {
            JudgeEvent::Started(j) => *current = Some(j),
            JudgeEvent::Judged(j) => {
                if let Some(c) = current.as_mut() {
                    c.judgements.push(j);
                }
            }
        }
    }
}

/// Where a language model's judgements of each corpus are kept: a folder beside the grades' store
/// (`model-judgements/` in the workspace), one file per corpus, named by its fingerprint. Nothing
/// here touches the grades.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ModelJudgementStore {
    dir: PathBuf,
}

impl ModelJudgementStore {
    /// The store of a workspace folder.
    pub fn in_workspace(workspace: &Path) -> Self {
        Self { dir: workspace.join("model-judgements") }
    }

    /// The file of a corpus's judgements.
    pub fn path(&self, corpus: &Corpus) -> PathBuf {
        self.dir.join(format!("{}.json", corpus.fingerprint()))
    }

    /// The judgements stored for `corpus`: none when nothing was stored, an error naming the file
    /// when it cannot be read (judging again replaces it).
    pub fn load(&self, corpus: &Corpus) -> Result<Option<ModelJudgements>> {
        let path = self.path(corpus);
        let text = match std::fs::read_to_string(&path) {
            Ok(t) => t,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(None),
            Err(e) => return Err(Error::io(&path, e)),
        };
        serde_json::from_str(&text).map(Some).map_err(|e| {
            Error::invalid(
                format!("{}:{}", path.display(), e.line()),
                format!("the language model's judgements could not be read ({e}); judging again replaces them"),
            )
        })
    }

    /// Store `judgements` as the corpus's (replacing what was stored), atomically.
    pub fn save(&self, corpus: &Corpus, judgements: &ModelJudgements) -> Result<PathBuf> {
        let path = self.path(corpus);
        let text =
            serde_json::to_string_pretty(judgements).map_err(|e| Error::invalid("model judgements", e.to_string()))?;
        std::fs::create_dir_all(&self.dir).map_err(|e| Error::io(&self.dir, e))?;
        crate::fsutil::write_atomic(&path, text)?;
        Ok(path)
    }
}

/// The judge's name as one TREC column: each run of white space becomes `_`.
pub fn judge_tag(model: &str) -> String {
    model.split_whitespace().collect::<Vec<_>>().join("_")
}

/// One TREC qrels line naming the judge; ids a TREC line cannot carry are refused by name.
pub fn trec_line(qid: &str, doc: &str, grade: u8, model: &str) -> Result<String> {
    check_id(qid, "query", IdFormat::Trec)?;
    check_id(doc, "document", IdFormat::Trec)?;
    let tag = judge_tag(model);
    let tag = if tag.is_empty() { "model".to_string() } else { tag };
    Ok(format!("{qid} {tag} {doc} {grade}\n"))
}

/// A qrels file that fills as the model judges, one line a readable judgement (TREC lines naming
/// the judge, or BEIR's TSV for a `.tsv` path), so a stopped run keeps what it judged.
pub struct QrelsFile {
    file: std::fs::File,
    path: PathBuf,
    tsv: bool,
    judge: String,
}

impl QrelsFile {
    /// Create (or empty) `path` for the judgements of `judge` (the model's name).
    pub fn create(path: &Path, judge: &str) -> Result<Self> {
        use std::io::Write as _;
        let tsv = path.extension().is_some_and(|e| e == "tsv");
        let io = |e| Error::io(path, e);
        let mut file = std::fs::File::create(path).map_err(io)?;
        if tsv {
            file.write_all(Qrels::TSV_HEADER.as_bytes()).map_err(io)?;
        }
        Ok(Self { file, path: path.to_path_buf(), tsv, judge: judge.to_string() })
    }

    /// Add `j`'s line, written through at once (an unreadable reply has none).
    pub fn write(&mut self, j: &ModelJudgement) -> Result<()> {
        use std::io::Write as _;
        let Some(g) = j.grade else { return Ok(()) };
        let line = if self.tsv {
            Qrels::tsv_line(&j.qid, &j.doc, i32::from(g))?
        } else {
            trec_line(&j.qid, &j.doc, g, &self.judge)?
        };
        self.file.write_all(line.as_bytes()).and_then(|()| self.file.flush()).map_err(|e| Error::io(&self.path, e))
    }
}

/// The request that judges `item`.
pub fn request(prompt: &JudgePrompt, corpus: &Corpus, item: &PoolItem) -> Option<ChatRequest> {
    let d = corpus.doc(item.doc)?;
    Some(prompt.request(&item.question, &d.passage_text()))
}

/// Judge every pooled passage with `generator`, comparing each with `people`. `each` sees every
/// judgement as it is made (to show or save it at once). Stopping through `progress` keeps what
/// was judged: the result then has fewer judgements than `pooled`.
/// With `probabilities`, each judgement reads P(yes) from the model's first answer token (its
/// logits, or a server's `logprobs`; a server without them answers in words).
#[allow(clippy::too_many_arguments)]
pub fn judge(
    corpus: &Corpus,
    generator: &dyn Generator,
    prompt: &JudgePrompt,
    pool: &[PoolItem],
    people: &Qrels,
    scope: &str,
    probabilities: bool,
    progress: &dyn Progress,
    each: &mut dyn FnMut(&ModelJudgement) -> Result<()>,
) -> Result<ModelJudgements> {
    prompt.validate()?;
    let mut out = ModelJudgements {
        name: generator.info().model.clone(),
        model: generator.info().label(),
        prompt: prompt.clone(),
        scope: scope.to_string(),
        pooled: pool.len(),
        skipped: Vec::new(),
        judgements: Vec::with_capacity(pool.len()),
    };
    progress.stage(&format!("Judging with {}", generator.info().model), pool.len() as u64);
    for item in pool {
        if progress.is_cancelled() {
            break;
        }
        let Some(d) = corpus.doc(item.doc) else { continue };
        let people_grade = people.grade(&item.qid, &d.id);
        let j = if probabilities {
            let read = crate::generate::tasks::judge_passage(
                generator,
                prompt,
                &item.question,
                &d.passage_text(),
                &CancelOnly(progress),
            );
            let judged = match read {
                Ok(r) => r,
                Err(Error::Cancelled) => break,
                Err(e) => return Err(e),
            };
            let reply = match judged.p_yes {
                Some(p) if judged.reply.is_empty() => format!("P(yes) = {p:.3} ({})", judged.source),
                _ => judged.reply.clone(),
            };
            ModelJudgement {
                qid: item.qid.clone(),
                doc: d.id.clone(),
                grade: judged.p_yes.map(|p| u8::from(p >= 0.5)),
                reply,
                people: people_grade,
                p_yes: judged.p_yes,
            }
        } else {
            let Some(req) = request(prompt, corpus, item) else { continue };
            let reply = match generator.chat(&req, &mut |_| {}, &CancelOnly(progress)) {
                Ok(r) => r,
                Err(Error::Cancelled) => break,
                Err(e) => return Err(e),
            };
            ModelJudgement {
                qid: item.qid.clone(),
                doc: d.id.clone(),
                grade: tasks::read_judgement(&reply.text),
                reply: reply.text,
                people: people_grade,
                p_yes: None,
            }
        };
        each(&j)?;
        out.judgements.push(j);
        progress.advance(1);
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn judged(grades: &[(Option<u8>, Option<i32>)]) -> ModelJudgements {
        ModelJudgements {
            name: "Tiny LM".into(),
            model: "Tiny LM (135M parameters, embedded)".into(),
            prompt: JudgePrompt::default(),
            scope: "bm25 top 2".into(),
            pooled: grades.len() + 1,
            skipped: Vec::new(),
            judgements: grades
                .iter()
                .enumerate()
                .map(|(i, (g, p))| ModelJudgement {
                    qid: format!("q{}", i / 2),
                    doc: format!("d{i}"),
                    reply: format!("{g:?}"),
                    grade: *g,
                    people: *p,
                    p_yes: None,
                })
                .collect(),
        }
    }

    #[test]
    fn a_qrels_file_filled_as_the_model_judges_reads_back_as_its_grades() {
        let m = judged(&[(Some(1), Some(2)), (None, Some(1)), (Some(0), None)]);
        let dir = tempfile::tempdir().unwrap();
        for name in ["model.qrels", "model.tsv"] {
            let path = dir.path().join(name);
            let mut file = QrelsFile::create(&path, "SmolLM2-135M-Instruct").unwrap();
            for j in &m.judgements {
                file.write(j).unwrap();
            }
            let text = std::fs::read_to_string(&path).unwrap();
            // Two readable replies, two lines (and BEIR's header); the unreadable one has none.
            let lines: Vec<&str> = text.lines().collect();
            if name.ends_with(".tsv") {
                assert_eq!(lines, ["query-id\tcorpus-id\tscore", "q0\td0\t1", "q1\td2\t0"]);
            } else {
                assert_eq!(lines, ["q0 SmolLM2-135M-Instruct d0 1", "q1 SmolLM2-135M-Instruct d2 0"]);
            }
            let (read, warnings) = Qrels::load(&path).unwrap();
            assert!(warnings.is_empty(), "{warnings:?}");
            assert_eq!(read, m.qrels(), "{name}");
        }
        // An id with a space cannot be a TREC line: refused, naming it.
        let mut bad = judged(&[(Some(1), None)]);
        bad.judgements[0].doc = "d 0".into();
        let mut file = QrelsFile::create(&dir.path().join("bad.qrels"), "m").unwrap();
        assert!(file.write(&bad.judgements[0]).unwrap_err().to_string().contains("d 0"));
    }

    #[test]
    fn agreement_counts_readable_replies_and_unjudged_passages_as_not_relevant() {
        // model yes / people 2 → both; yes / unjudged → model only; no / 1 → people only;
        // no / 0 → neither; unreadable / 1 → left out.
        let m = judged(&[(Some(1), Some(2)), (Some(1), None), (Some(0), Some(1)), (Some(0), Some(0)), (None, Some(1))]);
        let a = m.agreement();
        assert_eq!((a.n, a.both, a.model_only, a.people_only, a.neither), (4, 1, 1, 1, 1));
        assert_eq!(m.unreadable(), 1);
        assert_eq!(m.unjudged_by_people(), 1);
        assert!(!m.finished());
        // κ of a 1/1/1/1 table: observed 0.5, chance 0.5 → 0.
        assert_eq!(a.kappa, Some(0.0));
        let q = m.qrels();
        assert_eq!(q.grade("q0", "d0"), Some(1));
        assert_eq!(q.grade("q1", "d2"), Some(0));
        assert_eq!(q.grade("q2", "d4"), None, "an unreadable reply is no grade");
    }

    #[test]
    fn the_trec_file_names_the_judge_on_every_line_and_reads_back() {
        let m = judged(&[(Some(1), Some(2)), (Some(0), None), (None, None)]);
        let text = m.qrels_text(false).unwrap();
        assert_eq!(text, "q0 Tiny_LM d0 1\nq0 Tiny_LM d1 0\n");
        let (back, warnings) = Qrels::parse(&text, std::path::Path::new("model.qrels"));
        assert!(warnings.is_empty());
        assert_eq!(back, m.qrels());
        let tsv = m.qrels_text(true).unwrap();
        assert_eq!(tsv, "query-id\tcorpus-id\tscore\nq0\td0\t1\nq0\td1\t0\n");
    }

    #[test]
    fn an_id_a_trec_line_cannot_carry_is_refused_by_name() {
        let e = trec_line("q 1", "d1", 1, "m").unwrap_err().to_string();
        assert!(e.contains("\"q 1\""), "{e}");
        assert!(trec_line("q1", "d\t1", 0, "m").is_err());
        assert_eq!(trec_line("q1", "d1", 0, "").unwrap(), "q1 model d1 0\n");
    }

    #[test]
    fn events_fold_into_the_run_they_belong_to() {
        let mut current = None;
        let stray = ModelJudgement {
            qid: "q".into(),
            doc: "d".into(),
            reply: "yes".into(),
            grade: Some(1),
            people: None,
            p_yes: None,
        };
        ModelJudgements::take(&mut current, JudgeEvent::Judged(stray.clone()));
        assert_eq!(current, None, "a judgement with no run started is dropped");
        let start = judged(&[]);
        ModelJudgements::take(&mut current, JudgeEvent::Started(start.clone()));
        ModelJudgements::take(&mut current, JudgeEvent::Judged(stray.clone()));
        ModelJudgements::take(&mut current, JudgeEvent::Judged(stray.clone()));
        assert_eq!(current.as_ref().map(|c| c.judgements.len()), Some(2));
        ModelJudgements::take(&mut current, JudgeEvent::Started(start));
        assert_eq!(current.map(|c| c.judgements.len()), Some(0), "a new run starts empty");
    }

    #[test]
    fn the_store_keeps_a_corpus_judgements_apart_and_names_a_damaged_file() {
        let dir = tempfile::tempdir().unwrap();
        let store = ModelJudgementStore::in_workspace(dir.path());
        let a = Corpus::from_texts("a", [("d1", "one")]);
        let b = Corpus::from_texts("b", [("d1", "two")]);
        assert_eq!(store.load(&a).unwrap(), None);
        let m = judged(&[(Some(1), Some(2))]);
        let path = store.save(&a, &m).unwrap();
        assert_eq!(store.load(&a).unwrap(), Some(m));
        assert_eq!(store.load(&b).unwrap(), None, "another corpus has its own file");
        std::fs::write(&path, "{\n  \"name\": ").unwrap();
        let e = store.load(&a).unwrap_err().to_string();
        assert!(e.contains(&path.display().to_string()) && e.contains("judging again replaces"), "{e}");
    }

    #[test]
    fn a_pair_judged_twice_is_written_once_with_its_later_grade() {
        let mut m = judged(&[(Some(0), None), (Some(1), None)]);
        m.judgements[1].doc = m.judgements[0].doc.clone();
        let text = m.qrels_text(false).unwrap();
        assert_eq!(text.lines().count(), 1, "{text}");
        assert!(text.trim_end().ends_with(" 1"), "{text}");
        let (back, warnings) = Qrels::parse(&text, std::path::Path::new("m.qrels"));
        assert!(warnings.is_empty(), "{warnings:?}");
        assert_eq!(back, m.qrels());
    }

    proptest::proptest! {
        #![proptest_config(proptest::prelude::ProptestConfig::with_cases(crate::proptest_cases()))]

        /// Any ids, replies and judge names: the TREC and TSV files, written whole or line by line
        /// as the model judges, either read back to the model's qrels, or are refused naming an
        /// id they cannot carry; never a broken line.
        #[test]
        fn the_model_qrels_read_back_or_name_the_id(
            rows in proptest::collection::vec(("\\PC{0,6}", "[ a-z0-9#\t\n-]{0,6}", proptest::option::of(0u8..2)), 0..8),
            name in "\\PC{0,12}",
        ) {
            let m = ModelJudgements {
                name,
                model: "m".into(),
                prompt: JudgePrompt::default(),
                scope: String::new(),
                pooled: rows.len(),
                skipped: Vec::new(),
                judgements: rows
                    .iter()
                    .map(|(q, d, g)| ModelJudgement { qid: q.clone(), doc: d.clone(), reply: String::new(), grade: *g, people: None, p_yes: None })
                    .collect(),
            };
            // Later lines win over earlier ones for the same pair, as in the qrels.
            for tsv in [false, true] {
                match m.qrels_text(tsv) {
                    Ok(text) => {
                        let path = std::path::Path::new(if tsv { "m.tsv" } else { "m.qrels" });
                        let (back, warnings) = Qrels::parse(&text, path);
                        proptest::prop_assert!(warnings.is_empty(), "{:?}", warnings);
                        proptest::prop_assert_eq!(back, m.qrels());
                        if !tsv {
                            // One line per pair judged (a pair judged twice, once).
                            let pairs: std::collections::BTreeSet<_> =
                                m.judgements.iter().filter(|j| j.grade.is_some()).map(|j| (&j.qid, &j.doc)).collect();
                            proptest::prop_assert_eq!(text.lines().count(), pairs.len());
                        }
                    }
                    Err(e) => {
                        let e = e.to_string();
                        proptest::prop_assert!(
                            m.judgements.iter().filter(|j| j.grade.is_some()).any(|j| e.contains(&format!("{:?}", j.qid)) || e.contains(&format!("{:?}", j.doc))),
                            "{}", e
                        );
                    }
                }
                // The file that fills as the model judges reads back the same, or its refusal
                // names an id.
                let dir = tempfile::tempdir().unwrap();
                let path = dir.path().join(if tsv { "m.tsv" } else { "m.qrels" });
                let mut file = QrelsFile::create(&path, &m.model).unwrap();
                match m.judgements.iter().try_for_each(|j| file.write(j)) {
                    Ok(()) => {
                        let (back, warnings) = Qrels::load(&path).unwrap();
                        proptest::prop_assert!(warnings.is_empty(), "{:?}", warnings);
                        proptest::prop_assert_eq!(back, m.qrels());
                    }
                    Err(e) => {
                        let e = e.to_string();
                        proptest::prop_assert!(
                            m.judgements.iter().any(|j| e.contains(&format!("{:?}", j.qid)) || e.contains(&format!("{:?}", j.doc))),
                            "{}", e
                        );
                    }
                }
            }
        }
    }
}
