//! Assignments: one variant of a lesson's exercises per student — different passages, questions
//! and parameters drawn from a corpus with a seed — written as `questions.json` and a printable
//! `handout.html` per student and one `key.json` (with a checksum, so an edited key is refused);
//! and the grader that reads the students' answers against the key.
//!
//! Every key is computed by the code that ranks and evaluates ([`super::exercises`] over the
//! corpus's own index and models); nothing is graded silently as zero: a roster, an answer file
//! or a key that is wrong stops with an error naming the file, the line and the field.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};
use sha2::{Digest, Sha256};

use super::checkpoint::{Answer, AnswerKind, Checkpoint, Mistake, Verdict};
use super::exercises::{self, Judged, TermCounts, TermInPassage};
use crate::analysis::{AnalyzerConfig, Preset};
use crate::config::Settings;
use crate::corpus::{Corpus, DocId};
use crate::engine::{Engine, SparseSpec};
use crate::formula::{Bm25Params, Bm25Variant, TfIdfVariant};
use crate::models::{InputKind, TextEncoder};
use crate::progress::{NoProgress, Progress};
use crate::retrieve::{MethodKind, QueryContext};
use crate::{Error, Result};

/// The lessons that have assignments, with what each asks.
pub const ASSIGNMENT_LESSONS: [(&str, &str); 5] = [
    ("tfidf", "tf-idf weights, an idf, a cosine, which passage wins"),
    ("bm25", "BM25 idf, a term's contribution, the effect of k1 and b"),
    ("metrics", "precision, recall, AP and nDCG@10 of a ranking with judgements"),
    ("index", "document frequency, a postings list, Boolean AND and OR"),
    ("dense", "which passage wins by cosine and by BM25, a cosine from its token parts"),
];

/// A SplitMix64 generator: small, fast, and the same numbers on every machine.
#[derive(Debug, Clone)]
pub struct SplitMix64(u64);

impl SplitMix64 {
    /// Seeded.
    pub fn new(seed: u64) -> Self {
        SplitMix64(seed)
    }
    /// The next 64 bits.
    pub fn next_u64(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }
    /// A number below `n` (0 when `n` is 0).
    pub fn below(&mut self, n: usize) -> usize {
        if n == 0 { 0 } else { (self.next_u64() % n as u64) as usize }
    }
    /// One of the items.
    pub fn pick<'a, T>(&mut self, items: &'a [T]) -> Option<&'a T> {
        if items.is_empty() { None } else { items.get(self.below(items.len())) }
    }
    /// Shuffle in place (Fisher–Yates).
    pub fn shuffle<T>(&mut self, items: &mut [T]) {
        for i in (1..items.len()).rev() {
            let j = self.below(i + 1);
            items.swap(i, j);
        }
    }
}

/// A student's own stream: the seed mixed with the name (FNV-1a), so adding a student to the
/// roster does not change anyone else's variant.
fn student_rng(seed: u64, student: &str, attempt: u64) -> SplitMix64 {
    let mut h: u64 = 0xcbf2_9ce4_8422_2325;
    for b in student.as_bytes() {
        h ^= u64::from(*b);
        h = h.wrapping_mul(0x0000_0100_0000_01b3);
    }
    SplitMix64::new(seed ^ h ^ attempt.wrapping_mul(0xA24B_AED4_963E_E407))
}

// ---------------------------------------------------------------------------------------------
// Roster

/// Read a roster: a CSV whose first column is the student's name (a header row allowed).
pub fn read_roster(path: &Path) -> Result<Vec<String>> {
    let bytes = std::fs::read(path).map_err(|e| Error::io(path, e))?;
    parse_roster(&bytes, &path.display().to_string())
}

/// Parse a roster's bytes; `source` names the file in errors.
pub fn parse_roster(bytes: &[u8], source: &str) -> Result<Vec<String>> {
    let mut names: Vec<String> = Vec::new();
    let mut lines: BTreeMap<String, u64> = BTreeMap::new();
    for (_, line, record) in csv_rows(bytes, source)? {
        let name = record.get(0).unwrap_or("").trim().to_string();
        if names.is_empty() && lines.is_empty() && is_header(&name) {
            lines.insert(String::new(), line);
            continue;
        }
        let at = format!("{source}:{line}");
        if name.is_empty() {
            return Err(Error::invalid(at, "the student's name (first column) is empty"));
        }
        check_name(&name).map_err(|why| Error::invalid(&at, format!("the name {name:?} {why}")))?;
        if let Some(first) = lines.get(&name.to_lowercase()) {
            return Err(Error::invalid(at, format!("{name:?} is already on line {first}: each student once")));
        }
        lines.insert(name.to_lowercase(), line);
        names.push(name);
    }
    if names.is_empty() {
        return Err(Error::invalid(source, "the roster names no student"));
    }
    Ok(names)
}

/// The rows of a CSV file that are not blank, each with its index among all rows and its line;
/// text that is not UTF-8 or not CSV is an error naming the file (and the line).
fn csv_rows(bytes: &[u8], source: &str) -> Result<Vec<(usize, u64, csv::StringRecord)>> {
    let text = std::str::from_utf8(bytes)
        .map_err(|e| Error::invalid(source, format!("not UTF-8 text (byte {})", e.valid_up_to())))?;
    let text = text.strip_prefix('\u{feff}').unwrap_or(text);
    let mut reader = csv::ReaderBuilder::new().has_headers(false).flexible(true).from_reader(text.as_bytes());
    let mut rows = Vec::new();
    for (i, record) in reader.records().enumerate() {
        let record = record.map_err(|e| {
            let line = e.position().map_or(i as u64 + 1, |p| p.line());
            Error::invalid(format!("{source}:{line}"), format!("not a CSV row: {e}"))
        })?;
        let line = record.position().map_or(i as u64 + 1, |p| p.line());
        if !record.iter().all(|f| f.trim().is_empty()) {
            rows.push((i, line, record));
        }
    }
    Ok(rows)
}

fn is_header(first: &str) -> bool {
    matches!(
        first.to_lowercase().as_str(),
        "name" | "student" | "students" | "student name" | "student_name" | "full name"
    )
}

/// A name becomes a folder: it must be one.
fn check_name(name: &str) -> std::result::Result<(), &'static str> {
    if name.chars().any(|c| c.is_control() || matches!(c, '/' | '\\' | ':' | '*' | '?' | '"' | '<' | '>' | '|')) {
        return Err("holds a character a folder name cannot (/ \\ : * ? \" < > | or a control character)");
    }
    if name.starts_with('.') || name.ends_with('.') || name.ends_with(' ') {
        return Err("cannot be a folder name (it starts or ends with a dot, or ends with a space)");
    }
    if name.chars().count() > 120 {
        return Err("is longer than 120 characters");
    }
    Ok(())
}

// ---------------------------------------------------------------------------------------------
// Making an assignment

/// One student's questions, with their keys.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Sheet {
    /// The student.
    pub student: String,
    /// The questions (keys included).
    pub questions: Vec<Checkpoint>,
}

/// A whole assignment.
#[derive(Debug, Clone, PartialEq)]
pub struct Assignment {
    /// The lesson.
    pub lesson: String,
    /// The seed.
    pub seed: u64,
    /// The corpus the variants were drawn from.
    pub corpus: String,
    /// One sheet per student, in roster order.
    pub sheets: Vec<Sheet>,
}

/// What a student is given: `questions.json`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Questions {
    /// The student.
    pub student: String,
    /// The lesson.
    pub lesson: String,
    /// The questions, without their answers.
    pub questions: Vec<QuestionOut>,
}

/// One question as the student gets it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct QuestionOut {
    /// Id.
    pub id: String,
    /// The question.
    pub prompt: String,
    /// number, choice or ordering.
    pub kind: AnswerKind,
    /// Everything needed to solve it by hand.
    pub data: serde_json::Value,
    /// Options (choice, ordering).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub options: Vec<String>,
    /// How far a number may be from the key.
    pub tolerance: f64,
}

/// One question's key.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct KeyEntry {
    /// The answer.
    pub answer: Answer,
    /// How far a number may be from it.
    pub tolerance: f64,
    /// The working.
    pub steps: Vec<String>,
    /// number, choice or ordering.
    pub kind: AnswerKind,
    /// Options (choice, ordering).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub options: Vec<String>,
    /// The usual mistakes, for the feedback.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub mistakes: Vec<Mistake>,
}

impl From<&Checkpoint> for KeyEntry {
    fn from(c: &Checkpoint) -> Self {
        KeyEntry {
            answer: c.answer.clone(),
            tolerance: c.tolerance,
            steps: c.steps.clone(),
            kind: c.kind,
            options: c.options.clone(),
            mistakes: c.mistakes.clone(),
        }
    }
}

impl KeyEntry {
    fn checkpoint(&self, id: &str) -> Checkpoint {
        Checkpoint {
            id: id.into(),
            prompt: String::new(),
            kind: self.kind,
            data: serde_json::Value::Null,
            options: self.options.clone(),
            tolerance: self.tolerance,
            answer: self.answer.clone(),
            steps: self.steps.clone(),
            mistakes: self.mistakes.clone(),
        }
    }
}

/// `key.json`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Key {
    /// The lesson.
    pub lesson: String,
    /// The seed.
    pub seed: u64,
    /// student → question id → key.
    pub students: BTreeMap<String, BTreeMap<String, KeyEntry>>,
    /// sha256 of the lesson, seed and students (canonical JSON): an edited key no longer matches.
    pub checksum: String,
}

impl Key {
    /// The checksum of a key's content.
    pub fn compute_checksum(
        lesson: &str,
        seed: u64,
        students: &BTreeMap<String, BTreeMap<String, KeyEntry>>,
    ) -> String {
        let body = serde_json::json!({"lesson": lesson, "seed": seed, "students": students});
        hex::encode(Sha256::digest(body.to_string().as_bytes()))
    }

    /// Read and check a key file.
    pub fn read(path: &Path) -> Result<Key> {
        let bytes = std::fs::read(path).map_err(|e| Error::io(path, e))?;
        Key::parse(&bytes, &path.display().to_string())
    }

    /// Parse and check a key's bytes.
    pub fn parse(bytes: &[u8], source: &str) -> Result<Key> {
        let key: Key = serde_json::from_slice(bytes)
            .map_err(|e| Error::invalid(format!("{source}:{}", e.line()), format!("not an assignment key: {e}")))?;
        let expected = Key::compute_checksum(&key.lesson, key.seed, &key.students);
        if expected != key.checksum {
            return Err(Error::invalid(
                source,
                "the key's checksum no longer matches its content: it was edited after `ranklens assignment new` wrote it (make it again with the same lesson, roster and seed)",
            ));
        }
        Ok(key)
    }
}

impl Assignment {
    /// The key of every student's questions.
    pub fn key(&self) -> Key {
        let students: BTreeMap<String, BTreeMap<String, KeyEntry>> = self
            .sheets
            .iter()
            .map(|s| {
                let qs = s.questions.iter().map(|c| (c.id.clone(), KeyEntry::from(c))).collect();
                (s.student.clone(), qs)
            })
            .collect();
        let checksum = Key::compute_checksum(&self.lesson, self.seed, &students);
        Key { lesson: self.lesson.clone(), seed: self.seed, students, checksum }
    }

    /// A student's `questions.json`.
    pub fn questions(&self, sheet: &Sheet) -> Questions {
        Questions {
            student: sheet.student.clone(),
            lesson: self.lesson.clone(),
            questions: sheet
                .questions
                .iter()
                .map(|c| QuestionOut {
                    id: c.id.clone(),
                    prompt: c.prompt.clone(),
                    kind: c.kind,
                    data: c.data.clone(),
                    options: c.options.clone(),
                    tolerance: c.tolerance,
                })
                .collect(),
        }
    }

    /// Write `DIR/<student>/questions.json`, `DIR/<student>/handout.html` and `DIR/key.json`.
    pub fn write(&self, dir: &Path) -> Result<Vec<PathBuf>> {
        std::fs::create_dir_all(dir).map_err(|e| Error::io(dir, e))?;
        let mut written = Vec::new();
        let title = super::LESSONS.iter().find(|l| l.0 == self.lesson).map_or(self.lesson.as_str(), |l| l.1);
        for sheet in &self.sheets {
            let folder = dir.join(&sheet.student);
            std::fs::create_dir_all(&folder).map_err(|e| Error::io(&folder, e))?;
            let q = folder.join("questions.json");
            let json = serde_json::to_vec_pretty(&self.questions(sheet))
                .map_err(|e| Error::invalid("questions", e.to_string()))?;
            crate::fsutil::write_atomic(&q, json)?;
            let h = folder.join("handout.html");
            let subtitle = format!(
                "Assignment for {} — lesson `{}`, drawn from {} (seed {}). Work each answer by hand from the data given; numbers to four decimals.",
                sheet.student, self.lesson, self.corpus, self.seed
            );
            crate::fsutil::write_atomic(
                &h,
                super::handout::questions_page(&format!("{title}: assignment"), &subtitle, &sheet.questions),
            )?;
            written.extend([q, h]);
        }
        let k = dir.join("key.json");
        let json = serde_json::to_vec_pretty(&self.key()).map_err(|e| Error::invalid("key", e.to_string()))?;
        crate::fsutil::write_atomic(&k, json)?;
        written.push(k);
        Ok(written)
    }
}

/// Make an assignment: one variant per student of the lesson's exercises, drawn from the
/// engine's corpus with the seed. No two students get the same data for a question.
pub fn make(
    lesson: &str,
    roster: &[String],
    seed: u64,
    engine: &Engine,
    progress: &dyn Progress,
) -> Result<Assignment> {
    if !ASSIGNMENT_LESSONS.iter().any(|l| l.0 == lesson) {
        return Err(Error::invalid(
            "lesson",
            format!(
                "no assignment for the lesson {lesson:?}; choose one of {}",
                ASSIGNMENT_LESSONS.iter().map(|l| l.0).collect::<Vec<_>>().join(", ")
            ),
        ));
    }
    let draw = Drawer::new(engine)?;
    let mut sheets = Vec::new();
    let mut seen: BTreeMap<String, BTreeSet<String>> = BTreeMap::new();
    progress.stage("drawing each student's variant", roster.len() as u64);
    for student in roster {
        crate::progress::check_cancel(progress)?;
        let mut found = None;
        for attempt in 0..200 {
            let mut rng = student_rng(seed, student, attempt);
            let questions = draw.variant(lesson, &mut rng)?;
            let fresh = questions.iter().all(|c| !seen.get(&c.id).is_some_and(|s| s.contains(&c.data.to_string())));
            if fresh {
                found = Some(questions);
                break;
            }
        }
        let Some(questions) = found else {
            return Err(Error::invalid(
                "corpus",
                format!(
                    "{} has too few passages to give {student} data no other student has: use a larger corpus (--corpus)",
                    engine.corpus().name
                ),
            ));
        };
        for c in &questions {
            seen.entry(c.id.clone()).or_default().insert(c.data.to_string());
        }
        sheets.push(Sheet { student: student.clone(), questions });
        progress.advance(1);
    }
    Ok(Assignment { lesson: lesson.to_string(), seed, corpus: engine.corpus().name.clone(), sheets })
}

/// What the variants are drawn from: the corpus's analysed passages.
struct Drawer<'a> {
    engine: &'a Engine,
    /// The standard analyzer: words lower-cased, not stemmed, so the data reads as the text.
    analyzer: AnalyzerConfig,
    index: std::sync::Arc<crate::index::SparseIndex>,
    /// Passages a student can work by hand (3 to 40 distinct terms).
    workable: Vec<DocId>,
}

impl<'a> Drawer<'a> {
    fn new(engine: &'a Engine) -> Result<Self> {
        let analyzer = AnalyzerConfig::preset(Preset::Standard);
        let index = engine.index(analyzer, &NoProgress)?;
        let mut workable = Vec::new();
        for (id, doc) in engine.corpus().iter() {
            let terms: BTreeSet<String> = index.analyzer().terms(&doc.full_text()).into_iter().collect();
            if (3..=40).contains(&terms.len()) {
                workable.push(id);
            }
        }
        if workable.len() < 4 {
            return Err(Error::invalid(
                "corpus",
                format!(
                    "{} has {} passages short enough to work by hand (3 to 40 distinct terms); an assignment needs at least 4",
                    engine.corpus().name,
                    workable.len()
                ),
            ));
        }
        Ok(Drawer { engine, analyzer, index, workable })
    }

    fn corpus(&self) -> &Corpus {
        self.engine.corpus()
    }

    fn name(&self, d: DocId) -> String {
        self.corpus().external_id(d).to_string()
    }

    fn text(&self, d: DocId) -> String {
        self.corpus().doc(d).map(|x| x.full_text()).unwrap_or_default()
    }

    fn counts(&self, text: &str) -> Result<TermCounts> {
        super::tfidf::term_counts(&self.index, text)
    }

    /// `k` distinct workable passages.
    fn passages(&self, rng: &mut SplitMix64, k: usize) -> Vec<DocId> {
        let mut all = self.workable.clone();
        rng.shuffle(&mut all);
        all.truncate(k);
        all
    }

    /// A question of 2–3 terms: one or two from `d`, one from elsewhere.
    fn question(&self, rng: &mut SplitMix64, d: DocId) -> Result<String> {
        let mine: Vec<String> = self.counts(&self.text(d))?.into_keys().collect();
        let other = self.workable[rng.below(self.workable.len())];
        let theirs: Vec<String> = self.counts(&self.text(other))?.into_keys().collect();
        let mut words: Vec<String> = Vec::new();
        for _ in 0..(1 + rng.below(2)) {
            if let Some(w) = rng.pick(&mine)
                && !words.contains(w)
            {
                words.push(w.clone());
            }
        }
        if let Some(w) = rng.pick(&theirs)
            && !words.contains(w)
        {
            words.push(w.clone());
        }
        Ok(words.join(" "))
    }

    fn variant(&self, lesson: &str, rng: &mut SplitMix64) -> Result<Vec<Checkpoint>> {
        match lesson {
            "tfidf" => self.tfidf(rng),
            "bm25" => self.bm25(rng),
            "metrics" => self.metrics(rng),
            "index" => self.index_lesson(rng),
            "dense" => self.dense(rng),
            other => Err(Error::invalid("lesson", format!("no assignment for {other:?}"))),
        }
    }

    fn tfidf(&self, rng: &mut SplitMix64) -> Result<Vec<Checkpoint>> {
        let n = self.index.stats().n_docs;
        let ds = self.passages(rng, 3);
        let d = ds[0];
        let counts = self.counts(&self.text(d))?;
        let terms: Vec<(&String, &(u32, u64))> = counts.iter().collect();
        let (t, &(tf, df)) = terms[rng.below(terms.len())];
        let (u, &(_, udf)) = terms[rng.below(terms.len())];
        let question = self.question(rng, d)?;
        let qc = self.counts(&question)?;
        let mut out = vec![
            exercises::tfidf_idf("q1", u, n, udf),
            exercises::tfidf_weight("q2", t, &self.name(d), tf, n, df),
            exercises::tfidf_cosine("q3", &self.name(d), &qc, &counts, n),
        ];
        // Which of three passages does cosine TF-IDF put first (the ranker's scores)?
        let r = self.engine.sparse(SparseSpec::tfidf(TfIdfVariant::CosineLog2, true), self.analyzer, &NoProgress)?;
        let q = QueryContext::new(&question);
        let mut scored = Vec::new();
        let mut passages = Vec::new();
        for &x in &ds {
            scored.push((self.name(x), r.explain(&q, x)?.value));
            passages.push(
                serde_json::json!({"id": self.name(x), "terms": exercises::counts_json(&self.counts(&self.text(x))?)}),
            );
        }
        out.push(exercises::best_of(
            "q4",
            format!("For the question `{question}`, which passage does cosine TF-IDF (w = tf × log2(N/df)) put first?"),
            serde_json::json!({"question": question, "N": n, "question_terms": exercises::counts_json(&qc), "passages": passages}),
            &scored,
            |d, v| format!("{d} has the largest cosine, {}", super::f4(v)),
        ));
        Ok(out)
    }

    fn bm25(&self, rng: &mut SplitMix64) -> Result<Vec<Checkpoint>> {
        let s = self.index.stats();
        let (n, avgdl) = (s.n_docs, s.avgdl);
        let k1s = [0.6, 0.9, 1.0, 1.2, 1.5, 2.0];
        let bs = [0.3, 0.4, 0.5, 0.6, 0.75, 0.9];
        let params = Bm25Params {
            k1: k1s[rng.below(k1s.len())],
            b: bs[rng.below(bs.len())],
            ..Bm25Variant::Lucene.default_params()
        };
        let ds = self.passages(rng, 3);
        let d = ds[0];
        let dl = f64::from(self.index.doc_len(d));
        let counts = self.counts(&self.text(d))?;
        let terms: Vec<(&String, &(u32, u64))> = counts.iter().collect();
        let (u, &(_, udf)) = terms[rng.below(terms.len())];
        let (t, &(tf, df)) = terms[rng.below(terms.len())];
        // Three terms that differ in tf or df, so exactly one gains most.
        let mut picked: Vec<TermInPassage> = Vec::new();
        let mut pool = terms.clone();
        rng.shuffle(&mut pool);
        for (term, &(tf, df)) in pool {
            if picked.len() < 3 && !picked.iter().any(|p| p.tf == tf && p.df == df) {
                picked.push(TermInPassage { term: term.clone(), tf, df });
            }
        }
        let to = if rng.below(2) == 0 {
            Bm25Params { b: 0.0, ..params }
        } else {
            Bm25Params { k1: params.k1 * 2.0, ..params }
        };
        let mut out = vec![
            exercises::bm25_idf("q1", u, n, udf),
            exercises::bm25_contribution("q2", t, &self.name(d), tf, n, df, dl, avgdl, params),
            exercises::gains_most("q3", &self.name(d), &picked, n, dl, avgdl, params, to),
        ];
        let question = self.question(rng, d)?;
        let r = self.engine.sparse(SparseSpec::bm25(Bm25Variant::Lucene, params), self.analyzer, &NoProgress)?;
        let q = QueryContext::new(&question);
        let mut scored = Vec::new();
        let mut passages = Vec::new();
        for &x in &ds {
            scored.push((self.name(x), r.explain(&q, x)?.value));
            passages.push(serde_json::json!({"id": self.name(x), "dl": self.index.doc_len(x), "terms": exercises::counts_json(&self.counts(&self.text(x))?)}));
        }
        out.push(exercises::best_of(
            "q4",
            format!(
                "For the question `{question}`, which passage does BM25 (Lucene, k1 = {}, b = {}) put first?",
                params.k1, params.b
            ),
            serde_json::json!({"question": question, "N": n, "avgdl": avgdl, "k1": params.k1, "b": params.b, "passages": passages}),
            &scored,
            |d, v| format!("{d} scores {}", super::f4(v)),
        ));
        Ok(out)
    }

    fn metrics(&self, rng: &mut SplitMix64) -> Result<Vec<Checkpoint>> {
        let corpus = self.corpus();
        let judged: Vec<(String, BTreeMap<String, i32>)> = match &corpus.qrels {
            Some(q) => q
                .judgements
                .iter()
                .filter(|(_, j)| j.values().any(|&g| g > 0))
                .map(|(k, v)| (k.clone(), v.clone()))
                .collect(),
            None => Vec::new(),
        };
        // A ranking of 10 with judgements: the corpus's own when it has judged questions, else
        // grades drawn for the passages.
        let ids: Vec<String> = corpus.docs().iter().map(|d| d.id.clone()).collect();
        let (grades, mut ranking) = match rng.pick(&judged) {
            Some((_, grades)) => {
                let relevant: Vec<String> = grades.iter().filter(|(_, g)| **g > 0).map(|(d, _)| d.clone()).collect();
                let mut ranking: Vec<String> = relevant.iter().filter(|_| rng.below(4) != 0).cloned().collect();
                let mut others = ids.clone();
                rng.shuffle(&mut others);
                ranking.extend(
                    others.into_iter().filter(|d| !relevant.contains(d)).take(10usize.saturating_sub(ranking.len())),
                );
                (grades.clone(), ranking)
            }
            None => {
                let mut pool = ids.clone();
                rng.shuffle(&mut pool);
                let grades: BTreeMap<String, i32> =
                    pool.iter().take(6).map(|d| (d.clone(), rng.below(4) as i32)).collect();
                let mut ranking: Vec<String> = pool.iter().take(10).cloned().collect();
                ranking.truncate(10);
                (grades, ranking)
            }
        };
        rng.shuffle(&mut ranking);
        ranking.truncate(10);
        let j = Judged { ranking: &ranking, grades: &grades };
        let k = [3, 5][rng.below(2)];
        Ok(vec![
            exercises::precision_at("q1", &j, k),
            exercises::recall_at("q2", &j, 10),
            exercises::average_precision("q3", &j),
            exercises::ndcg_at("q4", &j, 10),
        ])
    }

    fn index_lesson(&self, rng: &mut SplitMix64) -> Result<Vec<Checkpoint>> {
        // A small collection of 6 passages: its index is the library's.
        let ds = self.passages(rng, 6.min(self.workable.len()));
        let mut ds = ds;
        ds.sort();
        let texts: Vec<(String, String)> = ds.iter().map(|&d| (self.name(d), self.text(d))).collect();
        let small = Corpus::from_texts("small", texts.iter().map(|(a, b)| (a.as_str(), b.as_str())));
        let engine = Engine::new(small);
        let index = engine.index(self.analyzer, &NoProgress)?;
        let passages: Vec<serde_json::Value> = texts
            .iter()
            .map(|(id, text)| serde_json::json!({"id": id, "terms": index.analyzer().terms(text).join(" ")}))
            .collect();
        let data = serde_json::json!({"passages, in index order": passages});
        let mut vocabulary: Vec<(String, u64)> = Vec::new();
        for (_, text) in &texts {
            for t in index.analyzer().terms(text) {
                if !vocabulary.iter().any(|(v, _)| *v == t) {
                    let df = index.doc_freq(&t)?;
                    vocabulary.push((t, df));
                }
            }
        }
        let shared: Vec<&(String, u64)> = vocabulary.iter().filter(|(_, df)| *df >= 2).collect();
        let pool: Vec<&(String, u64)> = if shared.len() >= 2 { shared } else { vocabulary.iter().collect() };
        let (a, adf) = pool[rng.below(pool.len())].clone();
        let (b, _) = pool[rng.below(pool.len())].clone();
        let (c, _) = pool[rng.below(pool.len())].clone();
        let names = |t: &str| -> Result<Vec<String>> {
            Ok(index.postings(t)?.iter().map(|(d, _)| engine.corpus().external_id(*d).to_string()).collect())
        };
        let list = names(&b)?;
        let mut options = list.clone();
        options.sort();
        options.reverse();
        let boolean = engine.sparse(SparseSpec::Boolean, self.analyzer, &NoProgress)?;
        let and = boolean.search(&QueryContext::new(format!("{a} AND {c}")), 100)?.hits.len();
        let (pa, pc): (BTreeSet<String>, BTreeSet<String>) =
            (names(&a)?.into_iter().collect(), names(&c)?.into_iter().collect());
        let or = pa.union(&pc).count();
        let with = |q: &str| {
            let mut d = data.clone();
            if let Some(m) = d.as_object_mut() {
                m.insert("question".into(), q.into());
            }
            d
        };
        Ok(vec![
            exercises::document_frequency("q1", &a, with(&a), adf),
            exercises::postings("q2", &b, with(&b), list, options),
            exercises::count(
                "q3",
                format!("How many passages match the Boolean query `{a} AND {c}`?"),
                with(&format!("{a} AND {c}")),
                and,
                vec![format!("postings({a}) ∩ postings({c}): {and} passages")],
                vec![Mistake { name: "OR instead of AND (the union)".into(), value: or as f64 }],
            ),
            exercises::count(
                "q4",
                format!(
                    "How many passages does a ranked method score for `{a} {c}` (every passage that holds either term)?"
                ),
                with(&format!("{a} {c}")),
                or,
                vec![format!("postings({a}) ∪ postings({c}): {or} passages")],
                vec![Mistake { name: "AND instead of OR (the intersection)".into(), value: and as f64 }],
            ),
        ])
    }

    fn dense(&self, rng: &mut SplitMix64) -> Result<Vec<Checkpoint>> {
        let settings = Settings::default();
        let dense = self.engine.retriever(MethodKind::Dense, &settings)?;
        let encoder = self.engine.neural().dense.map(|d| d.encoder).ok_or_else(|| {
            Error::Unavailable("the dense model is not loaded (ranklens models fetch --role dense)".into())
        })?;
        let bm25 = self.engine.sparse(
            SparseSpec::bm25(Bm25Variant::Lucene, Bm25Variant::Lucene.default_params()),
            self.analyzer,
            &NoProgress,
        )?;
        let corpus = self.corpus();
        let question = match rng.pick(&corpus.queries) {
            Some(q) if rng.below(3) != 0 => q.text.clone(),
            _ => {
                let d = self.workable[rng.below(self.workable.len())];
                self.question(rng, d)?
            }
        };
        let q = QueryContext::new(&question);
        let top = dense.search(&q, 1)?.hits.first().map(|h| h.doc);
        let mut ds = self.passages(rng, 3);
        if let Some(t) = top
            && !ds.contains(&t)
        {
            ds[0] = t;
        }
        ds.sort_by_key(|&d| self.name(d));
        let data = serde_json::json!({
            "question": question,
            "passages": ds.iter().map(|&d| serde_json::json!({"id": self.name(d), "text": self.text(d)})).collect::<Vec<_>>(),
        });
        let mut by_dense = Vec::new();
        let mut by_bm25 = Vec::new();
        for &d in &ds {
            by_dense.push((self.name(d), dense.explain(&q, d)?.value));
            by_bm25.push((self.name(d), bm25.explain(&q, d)?.value));
        }
        let mut out = vec![
            exercises::best_of(
                "q1",
                "Which of these passages does BM25 put first?".into(),
                data.clone(),
                &by_bm25,
                |d, v| format!("{d}: BM25 {}", super::f4(v)),
            ),
            exercises::best_of(
                "q2",
                "And which does the dense model (cosine) put first?".into(),
                data,
                &by_dense,
                |d, v| format!("{d}: cosine {}", super::f4(v)),
            ),
        ];
        let d = ds[rng.below(ds.len())];
        let states = encoder.token_states(&self.text(d), InputKind::Document)?;
        let qv = encoder.encode(&[question.as_str()], InputKind::Query)?.into_iter().next();
        if let (Some(states), Some(qv)) = (states, qv) {
            let (sum, n, norm) = exercises::dense_parts(&states, &qv);
            // Rounded as printed, so the hand computation from the data gives the key.
            let (sum, norm) = (round4(sum), round4(norm));
            out.push(exercises::dense_cosine("q3", &self.name(d), sum, n, norm));
        }
        Ok(out)
    }
}

fn round4(x: f64) -> f64 {
    (x * 10_000.0).round() / 10_000.0
}

// ---------------------------------------------------------------------------------------------
// Grading

/// Every student's answers: student → question id → (answer, where it was read).
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Answers {
    /// student → question → (the raw answer, the file and line it came from).
    pub students: BTreeMap<String, BTreeMap<String, (serde_json::Value, String)>>,
}

/// One student's `<student>.json`: `{"answers": {"<question id>": value}}`.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct AnswerFile {
    answers: BTreeMap<String, serde_json::Value>,
}

/// Read a folder of `<student>.json` files, or one CSV (`student,question,answer`).
pub fn read_answers(path: &Path) -> Result<Answers> {
    if path.is_dir() {
        let mut out = Answers::default();
        let mut entries: Vec<PathBuf> = std::fs::read_dir(path)
            .map_err(|e| Error::io(path, e))?
            .filter_map(|e| e.ok().map(|e| e.path()))
            .filter(|p| p.extension().is_some_and(|x| x == "json"))
            .collect();
        entries.sort();
        if entries.is_empty() {
            return Err(Error::invalid(path.display().to_string(), "no <student>.json answer file in this folder"));
        }
        for file in entries {
            let student = file.file_stem().map(|s| s.to_string_lossy().to_string()).unwrap_or_default();
            let bytes = std::fs::read(&file).map_err(|e| Error::io(&file, e))?;
            let answers = parse_answer_file(&bytes, &file.display().to_string())?;
            out.students.insert(student, answers);
        }
        Ok(out)
    } else {
        let bytes = std::fs::read(path).map_err(|e| Error::io(path, e))?;
        parse_answers_csv(&bytes, &path.display().to_string())
    }
}

/// Parse one student's answer file.
pub fn parse_answer_file(bytes: &[u8], source: &str) -> Result<BTreeMap<String, (serde_json::Value, String)>> {
    let f: AnswerFile = serde_json::from_slice(bytes).map_err(|e| {
        Error::invalid(
            format!("{source}:{}", e.line()),
            format!("expected {{\"answers\": {{\"<question id>\": value}}}}: {e}"),
        )
    })?;
    Ok(f.answers.into_iter().map(|(q, v)| (q, (v, source.to_string()))).collect())
}

/// Parse a CSV of `student,question,answer` (a header row allowed).
pub fn parse_answers_csv(bytes: &[u8], source: &str) -> Result<Answers> {
    let mut out = Answers::default();
    for (i, line, record) in csv_rows(bytes, source)? {
        let at = format!("{source}:{line}");
        if i == 0 && record.get(0).is_some_and(|f| f.trim().eq_ignore_ascii_case("student")) {
            continue;
        }
        if record.len() != 3 {
            return Err(Error::invalid(
                at,
                format!("expected 3 fields (student,question,answer), found {}", record.len()),
            ));
        }
        let (student, question, answer) = (record[0].trim(), record[1].trim(), record[2].trim());
        if student.is_empty() || question.is_empty() {
            return Err(Error::invalid(at, "the student and the question must not be empty"));
        }
        let answers = out.students.entry(student.to_string()).or_default();
        if answers.contains_key(question) {
            return Err(Error::invalid(at, format!("{student} answers {question} twice")));
        }
        answers.insert(question.to_string(), (serde_json::Value::String(answer.to_string()), at));
    }
    if out.students.is_empty() {
        return Err(Error::invalid(source, "no answers"));
    }
    Ok(out)
}

/// One line of feedback.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Feedback {
    /// The question.
    pub question: String,
    /// What was wrong, and the step that went wrong when a usual mistake matches.
    pub message: String,
}

/// A student's grade.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Grade {
    /// The student.
    pub student: String,
    /// Points scored (one per question right).
    pub score: u32,
    /// Points possible.
    pub max: u32,
    /// One line per question not right.
    pub feedback: Vec<Feedback>,
}

/// The gradebook.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Gradebook {
    /// One grade per student of the key, in name order.
    pub students: Vec<Grade>,
}

/// Read an answer as the question's kind wants it: a number, an option, or options in order.
fn read_answer(kind: AnswerKind, v: &serde_json::Value, at: &str, question: &str) -> Result<Answer> {
    use serde_json::Value;
    let bad = |what: &str| Error::invalid(at, format!("{question}: {what}"));
    match (kind, v) {
        (AnswerKind::Number, Value::Number(n)) => n.as_f64().map(Answer::Number).ok_or_else(|| bad("not a number")),
        (AnswerKind::Ordering, Value::Array(a)) => a
            .iter()
            .map(|x| x.as_str().map(str::to_string).ok_or_else(|| bad("an ordering is a list of option names")))
            .collect::<Result<Vec<_>>>()
            .map(Answer::Ordering),
        (_, Value::String(s)) => Answer::parse(kind, s).map_err(|why| match kind {
            AnswerKind::Number => bad(&format!("wants a number: {why}")),
            _ => bad(&why),
        }),
        (AnswerKind::Number, other) => Err(bad(&format!("wants a number, not {other}"))),
        (_, other) => Err(bad(&format!("wants text, not {other}"))),
    }
}

/// Grade every student of the key. Errors (never a silent zero): answers from a student not in
/// the key, a student of the key with no answers, an unknown question id, text where a number
/// belongs.
pub fn grade(key: &Key, answers: &Answers) -> Result<Gradebook> {
    for (student, qs) in &answers.students {
        let Some(k) = key.students.get(student) else {
            let at = qs.values().next().map_or_else(|| "answers".to_string(), |(_, at)| at.clone());
            return Err(Error::invalid(
                at,
                format!(
                    "{student:?} is not a student of this assignment (the key has {})",
                    key.students.keys().cloned().collect::<Vec<_>>().join(", ")
                ),
            ));
        };
        for (q, (_, at)) in qs {
            if !k.contains_key(q) {
                return Err(Error::invalid(
                    at,
                    format!(
                        "{student} answers {q:?}, which is not a question of this assignment ({})",
                        k.keys().cloned().collect::<Vec<_>>().join(", ")
                    ),
                ));
            }
        }
    }
    let missing: Vec<&String> = key.students.keys().filter(|s| !answers.students.contains_key(*s)).collect();
    if !missing.is_empty() {
        return Err(Error::invalid(
            "answers",
            format!(
                "no answers from {}: add their file (an empty {{\"answers\": {{}}}} grades them 0 with a note per question)",
                missing.iter().map(|s| s.as_str()).collect::<Vec<_>>().join(", ")
            ),
        ));
    }
    let mut students = Vec::new();
    for (student, k) in &key.students {
        let given = answers.students.get(student).cloned().unwrap_or_default();
        let mut score = 0;
        let mut feedback = Vec::new();
        for (qid, entry) in k {
            match given.get(qid) {
                None => feedback.push(Feedback { question: qid.clone(), message: "no answer".into() }),
                Some((v, at)) => {
                    let answer = read_answer(entry.kind, v, at, qid)?;
                    let Verdict { correct, message, .. } = entry.checkpoint(qid).check(&answer);
                    if correct {
                        score += 1;
                    } else {
                        feedback.push(Feedback { question: qid.clone(), message });
                    }
                }
            }
        }
        students.push(Grade { student: student.clone(), score, max: k.len() as u32, feedback });
    }
    Ok(Gradebook { students })
}

impl Gradebook {
    /// As CSV: `student,score,max,feedback` (the feedback lines joined by ` | `).
    pub fn to_csv(&self) -> String {
        let mut w = csv::Writer::from_writer(Vec::new());
        let _ = w.write_record(["student", "score", "max", "feedback"]);
        for g in &self.students {
            let fb: Vec<String> = g.feedback.iter().map(|f| format!("{}: {}", f.question, f.message)).collect();
            let _ = w.write_record([g.student.clone(), g.score.to_string(), g.max.to_string(), fb.join(" | ")]);
        }
        String::from_utf8(w.into_inner().unwrap_or_default()).unwrap_or_default()
    }

    /// As a table for the terminal.
    pub fn to_table(&self) -> String {
        let width = self.students.iter().map(|g| g.student.chars().count()).max().unwrap_or(7).max(7);
        let mut out = format!("{:<width$}  score\n", "student");
        for g in &self.students {
            out.push_str(&format!("{:<width$}  {}/{}\n", g.student, g.score, g.max));
            for f in &g.feedback {
                out.push_str(&format!("{:<width$}    {}: {}\n", "", f.question, f.message));
            }
        }
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn splitmix64_is_the_published_sequence() {
        // The first outputs of SplitMix64 seeded with 1234567 (Vigna's reference implementation).
        let mut r = SplitMix64::new(1234567);
        assert_eq!(r.next_u64(), 6457827717110365317);
        assert_eq!(r.next_u64(), 3203168211198807973);
        assert_eq!(r.next_u64(), 9817491932198370423);
    }

    #[test]
    fn a_roster_with_a_header_blank_lines_and_quotes_is_read() {
        let r = parse_roster(b"name,email\n\nAda Lovelace,ada@x\n\"Turing, Alan\",a@t\n", "r.csv").unwrap();
        assert_eq!(r, ["Ada Lovelace", "Turing, Alan"]);
    }

    #[test]
    fn roster_errors_name_the_line() {
        let e = parse_roster(b"Ada\nBob\nada\n", "r.csv").unwrap_err().to_string();
        assert!(e.contains("r.csv:3") && e.contains("line 1"), "{e}");
        let e = parse_roster(b"Ada\n,x\n", "r.csv").unwrap_err().to_string();
        assert!(e.contains("r.csv:2") && e.contains("empty"), "{e}");
        let e = parse_roster(b"a/b\n", "r.csv").unwrap_err().to_string();
        assert!(e.contains("r.csv:1"), "{e}");
        assert!(parse_roster(b"name\n", "r.csv").is_err());
    }
}
