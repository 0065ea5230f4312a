//! Corpora: documents with stable ids, loaded from folders, JSONL, CSV/TSV or BEIR datasets.
//!
//! Loading never stops at the first bad line: each problem becomes a [`LoadWarning`] naming the file
//! and line, and the rest of the input still loads. Only a file that cannot be read at all is an
//! error.

pub mod chunk;
pub(crate) mod delimited;
mod filter;
mod ids;
mod load;
mod qrels;

use std::collections::{BTreeMap, HashMap};
use std::fmt;
use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};
use sha2::{Digest, Sha256};

pub use filter::{CompareOp, FieldFilter, compare_versions};
pub use ids::{IdFormat, check_id};
pub use load::{Format, LoadOptions, Split, load, load_questions_tsv, strip_html};
pub use qrels::Qrels;

/// Internal document number: the position in load order, stable across runs for the same input.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize, Default)]
pub struct DocId(pub u32);

impl DocId {
    /// As an index into per-document arrays.
    pub fn index(self) -> usize {
        self.0 as usize
    }
}

impl fmt::Display for DocId {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "#{}", self.0)
    }
}

/// One document or passage.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Doc {
    /// The id the source gave it (`errors-3`, a BEIR `_id`, a file path).
    pub id: String,
    /// Title (may be empty).
    pub title: String,
    /// Body text.
    pub text: String,
    /// Any further fields of the source (page, release, ...), for filters and display.
    pub fields: BTreeMap<String, String>,
}

impl Doc {
    /// The passage as a prompt shows it: "title: text", or the text alone when untitled.
    pub fn passage_text(&self) -> String {
        if self.title.trim().is_empty() { self.text.clone() } else { format!("{}: {}", self.title.trim(), self.text) }
    }

    /// Title and text as one string, as indexed ("flat" indexing, as Anserini's BEIR runs).
    pub fn full_text(&self) -> String {
        match (self.title.trim().is_empty(), self.text.trim().is_empty()) {
            (true, _) => self.text.clone(),
            (false, true) => self.title.clone(),
            (false, false) => format!("{}\n{}", self.title, self.text),
        }
    }
}

/// A question from a dataset.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Query {
    /// Query id (`qid`).
    pub id: String,
    /// The question text.
    pub text: String,
}

/// Structured queries that answer a shipped question where text search cannot.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct QueryTemplates {
    /// A SQL statement over the corpus's tables.
    pub sql: Option<String>,
    /// A knowledge-graph pattern.
    pub graph: Option<String>,
}

/// A problem found while loading, with where it is.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct LoadWarning {
    /// The file concerned.
    pub file: PathBuf,
    /// 1-based line, where the problem is on one line.
    pub line: Option<usize>,
    /// What is wrong.
    pub message: String,
}

impl fmt::Display for LoadWarning {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.line {
            Some(line) => write!(f, "{}:{}: {}", self.file.display(), line, self.message),
            None => write!(f, "{}: {}", self.file.display(), self.message),
        }
    }
}

/// Counts and warnings from one load.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct LoadReport {
    /// Files read.
    pub files: usize,
    /// Documents loaded.
    pub loaded: usize,
    /// Records skipped because of a problem.
    pub skipped: usize,
    /// Markdown files whose HTML comments and tags were left out of the text.
    pub markup_files: usize,
    /// Every problem, in input order.
    pub warnings: Vec<LoadWarning>,
}

impl LoadReport {
    fn warn(&mut self, file: &Path, line: Option<usize>, message: impl Into<String>) {
        self.warnings.push(LoadWarning { file: file.to_path_buf(), line, message: message.into() });
    }

    fn skip(&mut self, file: &Path, line: Option<usize>, message: impl Into<String>) {
        self.skipped += 1;
        self.warn(file, line, message);
    }
}

impl fmt::Display for LoadReport {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "{} documents from {} file(s), {} skipped, {} warning(s)",
            self.loaded,
            self.files,
            self.skipped,
            self.warnings.len()
        )
    }
}

/// A loaded corpus: documents in a stable order, plus any queries and judgements that came with it.
#[derive(Debug, Clone, Default)]
pub struct Corpus {
    /// A short name (folder or file name).
    pub name: String,
    /// Where it was loaded from.
    pub source: Option<PathBuf>,
    docs: Vec<Doc>,
    by_id: HashMap<String, DocId>,
    /// Queries shipped with the corpus (BEIR `queries.jsonl`, the sample `questions.tsv`).
    pub queries: Vec<Query>,
    /// Judgements shipped with the corpus.
    pub qrels: Option<Qrels>,
    /// SQL templates and graph patterns tied to shipped questions, by query id.
    pub templates: BTreeMap<String, QueryTemplates>,
    /// What happened while loading.
    pub report: LoadReport,
}

impl Corpus {
    /// The SQL statement and graph pattern tied to a shipped question with this text (none for
    /// any other question).
    pub fn templates_for(&self, question: &str) -> QueryTemplates {
        let shipped = self.queries.iter().find(|q| q.text.trim() == question.trim());
        shipped.and_then(|q| self.templates.get(&q.id)).cloned().unwrap_or_default()
    }

    /// A corpus from documents already in memory. Duplicate ids keep the first and are reported.
    pub fn from_docs(name: impl Into<String>, docs: impl IntoIterator<Item = Doc>) -> Self {
        let mut corpus = Corpus { name: name.into(), ..Default::default() };
        for doc in docs {
            if corpus.by_id.contains_key(&doc.id) {
                corpus.report.skip(Path::new("<memory>"), None, format!("duplicate id {:?} skipped", doc.id));
                continue;
            }
            corpus.push(doc);
        }
        corpus
    }

    /// A corpus of `(id, text)` pairs with no titles: handy for examples and tests.
    pub fn from_texts<'a>(name: &str, texts: impl IntoIterator<Item = (&'a str, &'a str)>) -> Self {
        Self::from_docs(
            name,
            texts.into_iter().map(|(id, text)| Doc {
                id: id.to_string(),
                title: String::new(),
                text: text.to_string(),
                fields: BTreeMap::new(),
            }),
        )
    }

    fn push(&mut self, doc: Doc) {
        let id = DocId(self.docs.len() as u32);
        self.by_id.insert(doc.id.clone(), id);
        self.docs.push(doc);
        self.report.loaded += 1;
    }

    /// Up to `n` questions to offer on a corpus opened for the first time: spread over its question
    /// set when it has one, else over its documents' titles (a folder's headings or file names).
    pub fn example_questions(&self, n: usize) -> Vec<String> {
        let spread = |len: usize| (0..n.min(len)).map(move |i| i * len / n.min(len).max(1));
        let mut out: Vec<String> = Vec::new();
        let mut push = |t: &str| {
            let t = t.split_whitespace().collect::<Vec<_>>().join(" ");
            if !t.is_empty() && t.chars().count() <= 90 && !out.contains(&t) {
                out.push(t);
            }
        };
        if !self.queries.is_empty() {
            for i in spread(self.queries.len()) {
                push(&self.queries[i].text);
            }
            return out;
        }
        let titled: Vec<&Doc> = self.docs.iter().filter(|d| !d.title.trim().is_empty()).collect();
        for i in spread(titled.len()) {
            push(&titled[i].title);
        }
        out
    }

    /// Number of documents.
    pub fn len(&self) -> usize {
        self.docs.len()
    }

    /// True when there are no documents.
    pub fn is_empty(&self) -> bool {
        self.docs.is_empty()
    }

    /// A document by internal id.
    pub fn doc(&self, id: DocId) -> Option<&Doc> {
        self.docs.get(id.index())
    }

    /// The external id of a document, or `?` for an id outside the corpus.
    pub fn external_id(&self, id: DocId) -> &str {
        self.docs.get(id.index()).map(|d| d.id.as_str()).unwrap_or("?")
    }

    /// Internal id for an external id.
    pub fn lookup(&self, external: &str) -> Option<DocId> {
        self.by_id.get(external).copied()
    }

    /// All documents in DocId order.
    pub fn docs(&self) -> &[Doc] {
        &self.docs
    }

    /// Every (DocId, Doc) pair.
    pub fn iter(&self) -> impl Iterator<Item = (DocId, &Doc)> {
        self.docs.iter().enumerate().map(|(i, d)| (DocId(i as u32), d))
    }

    /// A hash of every document's id, title, text and fields in order: two corpora with the same
    /// fingerprint rank identically. Reports carry it so a reader can tell which corpus was used.
    pub fn fingerprint(&self) -> String {
        let mut h = Sha256::new();
        for d in &self.docs {
            for part in [&d.id, &d.title, &d.text] {
                h.update((part.len() as u64).to_le_bytes());
                h.update(part.as_bytes());
            }
            for (k, v) in &d.fields {
                h.update((k.len() as u64).to_le_bytes());
                h.update(k.as_bytes());
                h.update((v.len() as u64).to_le_bytes());
                h.update(v.as_bytes());
            }
        }
        hex::encode(h.finalize())
    }

    /// The query with this id.
    pub fn query(&self, id: &str) -> Option<&Query> {
        self.queries.iter().find(|q| q.id == id)
    }

    /// Distinct values of a field, sorted, for filter menus.
    pub fn field_values(&self, field: &str) -> Vec<String> {
        let mut values: Vec<String> = self.docs.iter().filter_map(|d| d.fields.get(field).cloned()).collect();
        values.sort();
        values.dedup();
        values
    }

    /// Every field name used by some document, sorted.
    pub fn field_names(&self) -> Vec<String> {
        let mut names: Vec<String> = self.docs.iter().flat_map(|d| d.fields.keys().cloned()).collect();
        names.sort();
        names.dedup();
        names
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn duplicate_ids_keep_the_first_and_warn() {
        let c = Corpus::from_texts("t", [("a", "one"), ("b", "two"), ("a", "three")]);
        assert_eq!(c.len(), 2);
        assert_eq!(c.report.skipped, 1);
        assert_eq!(c.doc(DocId(0)).map(|d| d.text.as_str()), Some("one"));
        assert_eq!(c.lookup("b"), Some(DocId(1)));
    }

    #[test]
    fn example_questions_come_from_the_question_set_else_the_titles() {
        let mut c = Corpus::from_texts("t", [("a", "x"), ("b", "y"), ("c", "z")]);
        assert!(c.example_questions(3).is_empty(), "no titles, no questions");
        let titles = ["Resetting a password", "", "Billing   and\ninvoices", "Resetting a password"];
        let mut d = Corpus::from_docs(
            "t",
            titles.iter().enumerate().map(|(i, t)| Doc {
                id: i.to_string(),
                title: t.to_string(),
                text: "x".into(),
                fields: Default::default(),
            }),
        );
        // Titled documents: 0, 2, 3; spread over 3 → all; the repeated title once, spaces folded.
        assert_eq!(d.example_questions(3), ["Resetting a password", "Billing and invoices"]);
        d.queries = (0..10).map(|i| Query { id: i.to_string(), text: format!("question {i}") }).collect();
        // Spread over ten questions: 0, 3, 6 (i · 10 / 3).
        assert_eq!(d.example_questions(3), ["question 0", "question 3", "question 6"]);
        c.queries.push(Query { id: "q".into(), text: "why?".into() });
        assert_eq!(c.example_questions(4), ["why?"]);
    }

    #[test]
    fn fingerprint_changes_with_content_and_order() {
        let a = Corpus::from_texts("t", [("a", "one"), ("b", "two")]);
        let b = Corpus::from_texts("t", [("b", "two"), ("a", "one")]);
        let c = Corpus::from_texts("other name", [("a", "one"), ("b", "two")]);
        assert_ne!(a.fingerprint(), b.fingerprint());
        assert_eq!(a.fingerprint(), c.fingerprint());
        assert_eq!(a.fingerprint().len(), 64);
    }
}
