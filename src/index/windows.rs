//! Which stretch of which document each encoded row is: a document that fits its encoder's window
//! is one row (its whole text); a longer one is several overlapping windows, and a document scores
//! by its best window (MaxP). Every neural index (dense, SPLADE, the token index) shares this map.

use std::ops::Range;

use rayon::prelude::*;
use serde::{Deserialize, Serialize};

use crate::Result;
use crate::corpus::{Corpus, DocId};
use crate::progress::Progress;

/// Which stretch of which document each encoded row is: a document that fits its encoder's window
/// is one row (its whole text); a longer one is several overlapping windows.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Windows {
    /// First row of each document, and the number of rows at the end (`docs + 1` entries).
    doc_starts: Vec<u32>,
    /// Byte range (start, end) in the document's text of each row; empty when every row is a
    /// whole document.
    spans: Vec<u32>,
}

/// The window of a document that gave its score.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct ScoredWindow {
    /// Which window (0-based).
    pub index: usize,
    /// Of how many.
    pub of: usize,
    /// Byte range in the document's text (`Doc::full_text`).
    pub start: usize,
    /// End of that range.
    pub end: usize,
}

impl ScoredWindow {
    /// "window 2 of 5 (characters 1,204–2,317)".
    pub fn describe(&self) -> String {
        format!("window {} of {} (bytes {}–{} of the text)", self.index + 1, self.of, self.start, self.end)
    }
}

impl Windows {
    /// One row per document, each its whole text.
    pub fn whole(docs: usize) -> Windows {
        Windows { doc_starts: (0..=docs as u32).collect(), spans: Vec::new() }
    }

    /// Cut every document of `corpus` with `spans_of` (an encoder's [`TextEncoder::windows`]).
    pub fn plan(
        corpus: &Corpus,
        spans_of: &(dyn Fn(&str) -> Result<Vec<Range<usize>>> + Sync),
        progress: &dyn Progress,
    ) -> Result<Windows> {
        Windows::plan_only(corpus, None, spans_of, progress)
    }

    /// Cut only the documents `keep` marks (by `DocId` index; `None`: every document); the
    /// others get no rows, so an index over these windows scores just the kept documents (a
    /// provisional ranking over a first stage's candidates), each window exactly as
    /// [`Windows::plan`] cuts it.
    pub fn plan_only(
        corpus: &Corpus,
        keep: Option<&[bool]>,
        spans_of: &(dyn Fn(&str) -> Result<Vec<Range<usize>>> + Sync),
        progress: &dyn Progress,
    ) -> Result<Windows> {
        progress.stage("cutting long documents into windows", corpus.len() as u64);
        let cut = |(i, d): (usize, &crate::corpus::Doc)| -> Result<Vec<Range<usize>>> {
            if keep.is_some_and(|k| !k.get(i).copied().unwrap_or(false)) {
                return Ok(Vec::new());
            }
            let text = d.full_text();
            let spans = spans_of(&text)?;
            Ok(if spans.is_empty() { std::iter::once(0..text.len()).collect() } else { spans })
        };
        // A few kept documents are cut on this thread: on the shared pool they would queue behind
        // the whole corpus's encoding (measured: 2.8 s for 200 SciFact passages, 0.1 s alone).
        let per_doc: Vec<Vec<Range<usize>>> = match keep {
            Some(_) => corpus.docs().iter().enumerate().map(cut).collect::<Result<_>>()?,
            None => corpus.docs().par_iter().enumerate().map(cut).collect::<Result<_>>()?,
        };
        progress.advance(corpus.len() as u64);
        let mut w = Windows { doc_starts: vec![0], spans: Vec::new() };
        for spans in per_doc {
            for s in spans {
                w.spans.extend([s.start as u32, s.end as u32]);
            }
            w.doc_starts.push((w.spans.len() / 2) as u32);
        }
        Ok(w)
    }

    /// Windows from their stored parts (`None` when they do not fit together).
    pub fn from_parts(doc_starts: Vec<u32>, spans: Vec<u32>) -> Option<Windows> {
        let ok = doc_starts.first() == Some(&0)
            && doc_starts.windows(2).all(|w| w[0] <= w[1])
            && (spans.is_empty() || spans.len() == 2 * *doc_starts.last()? as usize)
            && spans.chunks_exact(2).all(|s| s[0] <= s[1]);
        ok.then_some(Windows { doc_starts, spans })
    }

    /// The stored parts.
    pub fn parts(&self) -> (&[u32], &[u32]) {
        (&self.doc_starts, &self.spans)
    }

    /// Rows (windows) of every document.
    pub fn rows(&self) -> usize {
        self.doc_starts.last().copied().unwrap_or(0) as usize
    }

    /// Documents.
    pub fn docs(&self) -> usize {
        self.doc_starts.len().saturating_sub(1)
    }

    /// The rows of one document (empty outside the corpus).
    pub fn rows_of(&self, doc: DocId) -> Range<usize> {
        match (self.doc_starts.get(doc.index()), self.doc_starts.get(doc.index() + 1)) {
            (Some(&a), Some(&b)) => a as usize..b as usize,
            _ => 0..0,
        }
    }

    /// The document a row belongs to.
    pub fn doc_of(&self, row: usize) -> DocId {
        let d = self.doc_starts.partition_point(|&s| s as usize <= row);
        DocId(d.saturating_sub(1) as u32)
    }

    /// Byte range of a row in its document's text (`None`: the whole text).
    pub fn span(&self, row: usize) -> Option<Range<usize>> {
        let s = self.spans.get(2 * row..2 * row + 2)?;
        Some(s[0] as usize..s[1] as usize)
    }

    /// Documents cut into more than one window.
    pub fn long_docs(&self) -> usize {
        self.doc_starts.windows(2).filter(|w| w[1] - w[0] > 1).count()
    }

    /// The text of one row: its window of its document's text (`Doc::full_text`).
    pub fn text_of(&self, row: usize, corpus: &Corpus) -> Option<String> {
        let text = corpus.doc(self.doc_of(row))?.full_text();
        Some(match self.span(row) {
            Some(s) if !self.spans.is_empty() => text.get(s)?.to_string(),
            _ => text,
        })
    }

    /// The text of every row, in row order.
    pub fn texts(&self, corpus: &Corpus) -> Vec<String> {
        let mut out = Vec::with_capacity(self.rows());
        for (d, doc) in corpus.docs().iter().enumerate() {
            let text = doc.full_text();
            let rows = self.rows_of(DocId(d as u32));
            if self.spans.is_empty() || rows.len() == 1 && self.span(rows.start) == Some(0..text.len()) {
                out.extend(rows.map(|_| text.clone()));
                continue;
            }
            for r in rows {
                let piece = self.span(r).and_then(|s| text.get(s)).unwrap_or(&text);
                out.push(piece.to_string());
            }
        }
        out
    }

    /// A document's best row by `score` (the first on ties), with that score: MaxP.
    pub fn best(&self, doc: DocId, score: impl Fn(usize) -> f64) -> Option<(usize, f64)> {
        let mut best: Option<(usize, f64)> = None;
        for r in self.rows_of(doc) {
            let s = score(r);
            if best.is_none_or(|(_, b)| s > b) {
                best = Some((r, s));
            }
        }
        best
    }

    /// The window a row is, for explanations (`None` for a document in one window).
    pub fn scored(&self, row: usize) -> Option<ScoredWindow> {
        let rows = self.rows_of(self.doc_of(row));
        if rows.len() < 2 {
            return None;
        }
        let s = self.span(row)?;
        Some(ScoredWindow { index: row - rows.start, of: rows.len(), start: s.start, end: s.end })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn windows_map_rows_to_documents() {
        // Document 0: one row; 1: three windows; 2: none; 3: two.
        let w = Windows::from_parts(vec![0, 1, 4, 4, 6], vec![0, 9, 0, 5, 4, 9, 8, 12, 0, 3, 2, 6]).unwrap();
        assert_eq!((w.rows(), w.docs(), w.long_docs()), (6, 4, 2));
        assert_eq!(w.rows_of(DocId(1)), 1..4);
        assert_eq!(w.rows_of(DocId(2)), 4..4);
        assert_eq!(w.rows_of(DocId(9)), 0..0);
        assert_eq!((0..6).map(|r| w.doc_of(r).0).collect::<Vec<_>>(), [0, 1, 1, 1, 3, 3]);
        // MaxP: the best window, the first on a tie.
        let scores = [0.1, 0.3, 0.7, 0.7, 0.2, 0.1];
        assert_eq!(w.best(DocId(1), |r| scores[r]), Some((2, 0.7)));
        assert_eq!(w.best(DocId(2), |r| scores[r]), None);
        assert_eq!(w.scored(3), Some(ScoredWindow { index: 2, of: 3, start: 8, end: 12 }));
        assert_eq!(w.scored(0), None, "a document in one window has no window to name");
        assert!(Windows::from_parts(vec![0, 2], vec![0, 1]).is_none(), "two rows, one span");
        assert!(Windows::from_parts(vec![1, 2], vec![]).is_none());
    }
}
