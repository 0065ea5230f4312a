//! The documents of a corpus and the corpus itself: ids, text, fields, questions, judgements.

use std::collections::{BTreeMap, HashMap};
use std::fmt;
use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};
use sha2::{Digest, Sha256};

use super::{LoadReport, Qrels, Query};

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

/// Structured queries that answer a shipped question where text search cannot.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct QueryTemplates {
    /// A SQL statement over the corpus's tables.
    pub sql: Option<String>,
    /// A knowledge-graph pattern.
    pub graph: Option<String>,
}

/// A loaded corpus: documents in a stable order, plus any queries and judgements that came with it.
#[derive(Debug, Clone, Default)]
pub struct Corpus {
    /// A short name (folder or file name).
    pub name: String,
    /// Where it was loaded from.
    pub source: Option<PathBuf>,
    pub(super) docs: Vec<Doc>,
    pub(super) by_id: HashMap<String, DocId>,
    /// Queries shipped with the corpus (BEIR `queries.jsonl`, the sample `questions.tsv`).
    pub queries: Vec<Query>,
    /// Judgements shipped with the corpus.
    pub qrels: Option<Qrels>,
    /// SQL templates and graph patterns tied to shipped questions, by query id.
    pub templates: BTreeMap<String, QueryTemplates>,
    /// Questions with their answers, shipped with the corpus (SQuAD's answers, the sample's
    /// `answers.tsv`): what a reader is measured on.
    pub answers: Option<super::AnswerSet>,
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

    pub(super) fn push(&mut self, doc: Doc) {
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
