//! Long texts in an encoder's window: a text longer than the model reads at once is cut into
//! overlapping windows of word pieces, each encoded on its own; a document then scores by its best
//! window (MaxP). Windows start at a word's first piece, so each window's text is whole words.

use std::ops::Range;

use serde::{Deserialize, Serialize};

/// How long texts are cut for an encoder.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct WindowSpec {
    /// Word pieces per window; 0 = as many as the model reads (its maximum length less its
    /// special tokens). Larger values are lowered to that.
    pub size: usize,
    /// Word pieces from one window's start to the next; 0 = three quarters of the size (a
    /// quarter overlap).
    pub stride: usize,
    /// Encode only the beginning of a long text, as far as the model reads (what
    /// sentence-transformers does, and what published figures such as MTEB's measure).
    #[serde(default)]
    pub truncate: bool,
}

impl WindowSpec {
    /// (size, stride) in word pieces for a model that reads `model_tokens` pieces of text.
    pub fn resolve(&self, model_tokens: usize) -> (usize, usize) {
        let model_tokens = model_tokens.max(1);
        let size = if self.size == 0 { model_tokens } else { self.size.min(model_tokens) };
        let stride = if self.stride == 0 { size - size / 4 } else { self.stride.min(size) };
        (size, stride.max(1))
    }

    /// In words, for labels.
    pub fn describe(&self, model_tokens: usize) -> String {
        if self.truncate {
            return format!("the first {model_tokens} word pieces only");
        }
        let (size, stride) = self.resolve(model_tokens);
        format!("{size} word pieces, a new window every {stride}")
    }
}

/// Byte ranges of the windows of a text whose word pieces have `offsets` (byte ranges in the
/// text) and `words` (the word each piece belongs to). One range covering the whole text when the
/// pieces fit in one window. A window starts at the first piece of a word (moving back to it when
/// the stride lands inside a word, never behind the previous start), holds at most `size` pieces,
/// and the last window ends with the last piece.
pub fn window_spans(
    text_len: usize,
    offsets: &[(usize, usize)],
    words: &[Option<u32>],
    size: usize,
    stride: usize,
) -> Vec<Range<usize>> {
    let n = offsets.len();
    let size = size.max(1);
    if n <= size {
        return std::iter::once(0..text_len).collect();
    }
    let stride = stride.clamp(1, size);
    let word_start = |i: usize| -> usize {
        let mut s = i;
        while s > 0 && words.get(s).copied().flatten().is_some() && words.get(s - 1) == words.get(s) {
            s -= 1;
        }
        s
    };
    let mut out = Vec::new();
    let mut start = 0usize;
    loop {
        let end = (start + size).min(n);
        let (a, b) = (offsets[start].0.min(text_len), offsets[end - 1].1.min(text_len));
        out.push(a..b.max(a));
        if end == n {
            break;
        }
        let mut next = word_start(start + stride);
        if next <= start {
            next = start + stride;
        }
        start = next;
    }
    out
}

#[cfg(test)]
mod tests {
    use proptest::prelude::*;

    use super::*;

    /// Pieces of a text of words separated by single spaces, each word `pieces` pieces long.
    fn pieces(word_pieces: &[usize]) -> (usize, Vec<(usize, usize)>, Vec<Option<u32>>) {
        let (mut offsets, mut words, mut pos) = (Vec::new(), Vec::new(), 0usize);
        for (w, &p) in word_pieces.iter().enumerate() {
            for _ in 0..p {
                offsets.push((pos, pos + 2));
                words.push(Some(w as u32));
                pos += 2;
            }
            pos += 1;
        }
        (pos.saturating_sub(1), offsets, words)
    }

    #[test]
    fn defaults_are_the_model_length_with_a_quarter_overlap() {
        assert_eq!(WindowSpec::default().resolve(254), (254, 191));
        assert_eq!(WindowSpec { size: 100, ..Default::default() }.resolve(254), (100, 75));
        assert_eq!(WindowSpec { size: 1000, stride: 50, truncate: false }.resolve(254), (254, 50));
    }

    #[test]
    fn ten_one_piece_words_in_windows_of_four_every_three() {
        // Words 0..10, two bytes each with a space: word w spans 3w..3w+2.
        let (len, offsets, words) = pieces(&[1; 10]);
        let spans = window_spans(len, &offsets, &words, 4, 3);
        // Windows of words 0–3, 3–6, 6–9: the last ends with the last word.
        assert_eq!(spans, vec![0..11, 9..20, 18..29]);
        assert_eq!(
            window_spans(len, &offsets, &words, 10, 3),
            std::iter::once(0..len).collect::<Vec<_>>(),
            "fits in one window"
        );
    }

    #[test]
    fn a_window_never_starts_inside_a_word() {
        // Words of 2, 3, 1, 2 pieces: pieces 0-1 | 2-4 | 5 | 6-7.
        let (len, offsets, words) = pieces(&[2, 3, 1, 2]);
        let spans = window_spans(len, &offsets, &words, 3, 3);
        // Stride 3 lands on piece 3 (inside word 1), so the second window starts at piece 2;
        // next at 5 (word 2), then 8 > end: windows 0–2, 2–4, 5–7.
        let starts: Vec<usize> = spans.iter().map(|s| s.start).collect();
        assert_eq!(starts, vec![offsets[0].0, offsets[2].0, offsets[5].0]);
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(crate::proptest_cases()))]

        #[test]
        fn windows_cover_every_piece_in_order(word_pieces in prop::collection::vec(1usize..5, 0..60), size in 1usize..12, stride in 1usize..12) {
            let (len, offsets, words) = pieces(&word_pieces);
            let spans = window_spans(len, &offsets, &words, size, stride);
            prop_assert!(!spans.is_empty());
            for w in spans.windows(2) {
                prop_assert!(w[0].start < w[1].start, "starts increase");
                prop_assert!(w[1].start <= w[0].end + 1, "no piece falls between windows");
            }
            prop_assert_eq!(spans[0].start, 0);
            let last_end = if offsets.len() <= size { len } else { offsets.last().map_or(len, |o| o.1) };
            prop_assert_eq!(spans.last().map(|s| s.end), Some(last_end));
            for s in &spans {
                let inside = offsets.iter().filter(|o| o.0 >= s.start && o.1 <= s.end).count();
                prop_assert!(inside <= size, "at most size pieces");
            }
        }
    }
}
