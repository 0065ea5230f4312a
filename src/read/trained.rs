//! The trained extractive reader: a `…ForQuestionAnswering` model's start and end scores, and the
//! span search the documents describe. In each window, every span of passage tokens i ≤ j at most
//! `max_answer_tokens` long scores S·p′ᵢ + E·p′ⱼ; the passage's best span is the best over its
//! windows (a span seen in two overlapping windows keeps its better score), and its no-answer
//! score is `[CLS]`'s start plus end score, the lowest over its windows (a SQuAD 1.1 model has
//! none, and always answers).

use std::sync::Arc;

use super::reading::{PassageReading, ReadDetail, Reader, ReaderInfo, ReaderKind, Span, SpanParts};
use crate::Result;
use crate::models::{QaModel, QaWindow};
use crate::progress::{Progress, check_cancel};

/// How many spans a passage's reading lists (the best first).
pub const TOP_SPANS: usize = 5;

/// A span of a window: its tokens and score.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct TokenSpan {
    /// The window.
    pub window: usize,
    /// First token.
    pub start: usize,
    /// Last token (inclusive).
    pub end: usize,
    /// S·p′ of the first plus E·p′ of the last.
    pub score: f32,
}

/// Every valid span of the windows, best first (ties: the earlier window, then the earlier start,
/// then the shorter), the same text kept once at its best score, at most `top`.
pub fn best_spans(windows: &[QaWindow], max_tokens: usize, top: usize) -> Vec<TokenSpan> {
    let mut all = Vec::new();
    for (w, win) in windows.iter().enumerate() {
        let passage: Vec<usize> = win.passage_tokens().collect();
        for (a, &i) in passage.iter().enumerate() {
            for &j in &passage[a..] {
                if j + 1 - i > max_tokens {
                    break;
                }
                all.push(TokenSpan { window: w, start: i, end: j, score: win.start[i] + win.end[j] });
            }
        }
    }
    all.sort_by(|x, y| {
        y.score.total_cmp(&x.score).then(x.window.cmp(&y.window)).then(x.start.cmp(&y.start)).then(x.end.cmp(&y.end))
    });
    let mut seen = Vec::new();
    let mut out = Vec::new();
    for s in all {
        let Some(bytes) = bytes_of(windows, &s) else { continue };
        if seen.contains(&bytes) {
            continue;
        }
        seen.push(bytes);
        out.push(s);
        if out.len() == top {
            break;
        }
    }
    out
}

/// The byte range of the passage a token span covers.
pub fn bytes_of(windows: &[QaWindow], s: &TokenSpan) -> Option<std::ops::Range<usize>> {
    let w = windows.get(s.window)?;
    let a = w.offsets.get(s.start)?.as_ref()?.start;
    let b = w.offsets.get(s.end)?.as_ref()?.end;
    (b > a).then_some(a..b)
}

/// The lowest no-answer score over the windows.
pub fn no_answer(windows: &[QaWindow]) -> Option<f32> {
    windows.iter().map(QaWindow::no_answer).reduce(f32::min)
}

/// The trained reader.
pub struct TrainedReader {
    model: Arc<QaModel>,
    note: Option<String>,
}

impl TrainedReader {
    /// A reader over a loaded model; `note` says what a user should know about its weights.
    pub fn new(model: Arc<QaModel>, note: Option<String>) -> Self {
        Self { model, note }
    }

    /// Its model.
    pub fn model(&self) -> &QaModel {
        &self.model
    }
}

impl Reader for TrainedReader {
    fn info(&self) -> ReaderInfo {
        ReaderInfo { kind: ReaderKind::Span, model: self.model.id().to_string(), note: self.note.clone() }
    }

    fn read_passage(
        &self,
        question: &str,
        id: &str,
        rank: usize,
        text: &str,
        progress: &dyn Progress,
    ) -> Result<PassageReading> {
        check_cancel(progress)?;
        let settings = self.model.settings();
        let windows = self.model.read(question, text)?;
        let top: Vec<Span> = best_spans(&windows, settings.max_answer_tokens, TOP_SPANS)
            .iter()
            .filter_map(|s| {
                let w = &windows[s.window];
                let mut span = Span::at(text, bytes_of(&windows, s)?, Some(f64::from(s.score)))?;
                span.parts = Some(SpanParts {
                    window: s.window,
                    start_token: s.start,
                    end_token: s.end,
                    start_score: f64::from(w.start[s.start]),
                    end_score: f64::from(w.end[s.end]),
                });
                Some(span)
            })
            .collect();
        let no_answer_score = if settings.no_answer { no_answer(&windows).map(f64::from) } else { None };
        Ok(PassageReading {
            passage: id.to_string(),
            rank,
            best: top.first().cloned(),
            top,
            no_answer_score,
            detail: ReadDetail::Span { windows },
            note: None,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// `[CLS] q [SEP] p0 p1 p2 [SEP]` over the passage "ab cd ef".
    fn window(start: [f32; 7], end: [f32; 7]) -> QaWindow {
        QaWindow {
            tokens: ["[CLS]", "q", "[SEP]", "ab", "cd", "ef", "[SEP]"].map(String::from).to_vec(),
            offsets: vec![None, None, None, Some(0..2), Some(3..5), Some(6..8), None],
            start: start.to_vec(),
            end: end.to_vec(),
        }
    }

    #[test]
    fn the_best_span_maximises_start_plus_end_over_passage_tokens_within_the_length() {
        // Question and special tokens carry the largest scores and are never part of a span. Over
        // the passage's tokens: (5,5) = 9 + 3 = 12, then (3,4) = 2 + 4 = 6; start 5 (9.0) with end
        // 4 (4.0) would be 13 but is no span (j < i).
        let w = window([50.0, 40.0, 30.0, 2.0, 1.0, 9.0, 60.0], [50.0, 40.0, 30.0, 0.5, 4.0, 3.0, 60.0]);
        let spans = best_spans(std::slice::from_ref(&w), 30, 5);
        assert_eq!((spans[0].start, spans[0].end, spans[0].score), (5, 5, 12.0));
        assert_eq!((spans[1].start, spans[1].end, spans[1].score), (3, 4, 6.0));
        // Six valid spans (3-3, 3-4, 3-5, 4-4, 4-5, 5-5); five kept.
        assert_eq!(spans.len(), 5);
        assert_eq!(bytes_of(std::slice::from_ref(&w), &spans[1]), Some(0..5));
        // At most one token long: only single tokens.
        let one = best_spans(std::slice::from_ref(&w), 1, 5);
        assert!(one.iter().all(|s| s.start == s.end));
        assert_eq!(one.len(), 3);
        assert_eq!(no_answer(std::slice::from_ref(&w)), Some(100.0));
    }

    #[test]
    fn overlapping_windows_keep_a_span_once_at_its_best_and_the_lowest_no_answer() {
        let a = window([1.0, 0.0, 0.0, 5.0, 0.0, 0.0, 0.0], [1.0, 0.0, 0.0, 5.0, 0.0, 0.0, 0.0]);
        let b = window([-3.0, 0.0, 0.0, 7.0, 0.0, 0.0, 0.0], [0.0, 0.0, 0.0, 6.0, 0.0, 0.0, 0.0]);
        let spans = best_spans(&[a.clone(), b.clone()], 30, 5);
        assert_eq!((spans[0].window, spans[0].score), (1, 13.0), "\"ab\" from the second window, 7 + 6");
        let windows = [a, b];
        let texts: Vec<_> = spans.iter().map(|s| bytes_of(&windows, s)).collect();
        let mut unique = texts.clone();
        unique.sort_by_key(|r| r.clone().map(|r| (r.start, r.end)));
        unique.dedup();
        assert_eq!(texts.len(), unique.len());
        assert_eq!(no_answer(&windows), Some(-3.0), "min(1 + 1, -3 + 0)");
    }
}
