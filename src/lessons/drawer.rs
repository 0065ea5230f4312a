//! Drawing a student's variant: the passages a student can work by hand, and the questions drawn
//! from them. Each lesson's own questions are drawn in the lesson's file (its `assignment`); the
//! classroom ([`crate::classroom`]) draws one variant per student of a roster with them.

use std::collections::BTreeSet;

use super::checkpoint::Checkpoint;
use super::data::{PassageCounts, PassageDlCounts, PassageText, QuestionTexts, to_data};
use super::exercises::TermCounts;
use crate::analysis::{AnalyzerConfig, Preset};
use crate::corpus::{Corpus, DocId};
use crate::lcg::SplitMix64;
use crate::progress::NoProgress;
use crate::workbench::Workbench;
use crate::{Error, Result};

/// How many times a question is drawn again before the corpus is said to have no draw that
/// meets its rule.
pub const DRAW_TRIES: usize = 400;

/// Draws one student's questions with their keys (a lesson's `assignment`).
pub type DrawFn = fn(&Drawer<'_>, &mut SplitMix64) -> Result<Vec<Checkpoint>>;

/// What the variants are drawn from: the corpus's analysed passages.
pub struct Drawer<'a> {
    pub(crate) workbench: &'a Workbench,
    /// The standard analyzer: words lower-cased, not stemmed, so the data reads as the text.
    pub(crate) analyzer: AnalyzerConfig,
    pub(crate) index: std::sync::Arc<crate::index::SparseIndex>,
    /// Passages a student can work by hand (3 to 40 distinct terms).
    pub(crate) workable: Vec<DocId>,
    /// The words a question may use: the terms of the corpus's questions, titles and headings, as
    /// the standard analyzer makes them, stop words and numbers left out.
    pub(crate) vocabulary: BTreeSet<String>,
}

impl<'a> Drawer<'a> {
    pub(crate) fn new(workbench: &'a Workbench) -> Result<Self> {
        let analyzer = AnalyzerConfig::preset(Preset::Standard);
        let index = workbench.index(analyzer, &NoProgress)?;
        let mut workable = Vec::new();
        for (id, doc) in workbench.corpus().iter() {
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
                    workbench.corpus().name,
                    workable.len()
                ),
            ));
        }
        let vocabulary = question_vocabulary(workbench.corpus(), index.analyzer());
        Ok(Drawer { workbench, analyzer, index, workable, vocabulary })
    }

    /// Draw with `f` until it returns a draw that meets its rule (`Some`), at most
    /// [`DRAW_TRIES`] times; a corpus where none does is an error naming `what`.
    pub(crate) fn until<T>(
        &self,
        rng: &mut SplitMix64,
        what: &str,
        mut f: impl FnMut(&mut SplitMix64) -> Result<Option<T>>,
    ) -> Result<T> {
        for _ in 0..DRAW_TRIES {
            if let Some(x) = f(rng)? {
                return Ok(x);
            }
        }
        Err(Error::invalid(
            "corpus",
            format!(
                "{} gave no draw of {what} that meets its rule in {DRAW_TRIES} tries: use a larger corpus (--corpus)",
                self.corpus().name
            ),
        ))
    }

    pub(crate) fn corpus(&self) -> &Corpus {
        self.workbench.corpus()
    }

    pub(crate) fn name(&self, d: DocId) -> String {
        self.corpus().external_id(d).to_string()
    }

    pub(crate) fn text(&self, d: DocId) -> String {
        self.corpus().doc(d).map(|x| x.full_text()).unwrap_or_default()
    }

    pub(crate) fn counts(&self, text: &str) -> Result<TermCounts> {
        crate::lessons::exercises::term_counts(&self.index, text)
    }

    /// A passage as a question gives it for a cosine by hand: its id and its terms' counts.
    pub(crate) fn counted(&self, d: DocId) -> Result<PassageCounts> {
        Ok(PassageCounts { id: self.name(d), terms: self.counts(&self.text(d))? })
    }

    /// A passage as a question gives it for BM25 by hand: its id, length and terms' counts.
    pub(crate) fn counted_with_length(&self, d: DocId) -> Result<PassageDlCounts> {
        Ok(PassageDlCounts { id: self.name(d), dl: self.index.doc_len(d), terms: self.counts(&self.text(d))? })
    }

    /// A question and the texts of `ds` to read (which one a method puts first).
    pub(crate) fn texts(&self, question: &str, ds: &[DocId]) -> serde_json::Value {
        to_data(&QuestionTexts {
            question,
            passages: ds.iter().map(|&d| PassageText { id: self.name(d), text: self.text(d) }).collect(),
        })
    }

    /// `k` distinct workable passages.
    pub(crate) fn passages(&self, rng: &mut SplitMix64, k: usize) -> Vec<DocId> {
        let mut all = self.workable.clone();
        rng.shuffle(&mut all);
        all.truncate(k);
        all
    }

    /// A question of 2–3 words a person would ask with: one or two of `d`'s, one from another
    /// passage, all from the corpus's own questions, titles and headings ([`Self::vocabulary`]),
    /// never a stop word. Where `d` has none of those words, any of its terms that is not a stop
    /// word or a number.
    pub(crate) fn question(&self, rng: &mut SplitMix64, d: DocId) -> Result<String> {
        let other = self.workable[rng.below(self.workable.len())];
        self.question_between(rng, d, other)
    }

    /// A question to rank with: one of the corpus's own questions half the time, else one drawn
    /// from a workable passage ([`Self::question`]).
    pub(crate) fn asked_question(&self, rng: &mut SplitMix64) -> Result<String> {
        match rng.pick(&self.corpus().queries) {
            Some(q) if rng.below(2) == 0 => Ok(q.text.clone()),
            _ => {
                let d = self.workable[rng.below(self.workable.len())];
                self.question(rng, d)
            }
        }
    }

    /// A question of 2–3 askable words: one or two of `d`'s, one of `other`'s (see [`Self::question`]).
    pub(crate) fn question_between(&self, rng: &mut SplitMix64, d: DocId, other: DocId) -> Result<String> {
        let askable = |words: Vec<String>| -> Vec<String> {
            let good: Vec<String> = words.iter().filter(|w| self.vocabulary.contains(*w)).cloned().collect();
            if good.is_empty() { words.into_iter().filter(|w| is_content_word(w)).collect() } else { good }
        };
        let mine = askable(self.counts(&self.text(d))?.into_keys().collect());
        let theirs = askable(self.counts(&self.text(other))?.into_keys().collect());
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
}

/// A word worth asking with: not a stop word (the general English list, which holds Lucene's),
/// not a number, at least two letters.
pub fn is_content_word(w: &str) -> bool {
    w.chars().filter(|c| c.is_alphabetic()).count() >= 2
        && !crate::analysis::GENERAL_ENGLISH.contains(&w)
        && !crate::analysis::LUCENE_ENGLISH.contains(&w)
}

/// The terms of the corpus's questions, its passages' titles and its Markdown headings, analysed
/// as the drawer analyses passages, content words only.
fn question_vocabulary(corpus: &Corpus, analyzer: &crate::analysis::Analyzer) -> BTreeSet<String> {
    let mut texts: Vec<String> = corpus.queries.iter().map(|q| q.text.clone()).collect();
    for d in corpus.docs() {
        texts.push(d.title.clone());
        texts.extend(
            d.text.lines().filter(|l| l.trim_start().starts_with('#')).map(|l| l.trim_start_matches('#').to_string()),
        );
    }
    texts.iter().flat_map(|t| analyzer.terms(t)).filter(|w| is_content_word(w)).collect()
}

/// A number rounded to four decimals, as the data a student is given prints it.
pub(crate) fn round4(x: f64) -> f64 {
    (x * 10_000.0).round() / 10_000.0
}
