//! Cutting a page into passages: by paragraph, into fixed windows of words with overlap, or at
//! fixed character offsets regardless of words and sentences (the cut that separates a fact from
//! its subject).

use serde::{Deserialize, Serialize};

/// A piece of a page.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Chunk {
    /// Position in the cutting (1-based in ids).
    pub index: usize,
    /// The text.
    pub text: String,
}

/// One chunk per blank-line paragraph.
pub fn by_paragraph(page: &str) -> Vec<Chunk> {
    page.split("\n\n")
        .map(str::trim)
        .filter(|p| !p.is_empty())
        .enumerate()
        .map(|(index, t)| Chunk { index, text: t.to_string() })
        .collect()
}

/// Windows of `size` words, each starting `size − overlap` words after the previous one.
pub fn by_window(page: &str, size: usize, overlap: usize) -> Vec<Chunk> {
    let words: Vec<&str> = page.split_whitespace().collect();
    let size = size.max(1);
    let step = size.saturating_sub(overlap).max(1);
    let mut out = Vec::new();
    let mut start = 0;
    while start < words.len() {
        let end = (start + size).min(words.len());
        out.push(Chunk { index: out.len(), text: words[start..end].join(" ") });
        if end == words.len() {
            break;
        }
        start += step;
    }
    out
}

/// Pieces of `chars` characters, cut wherever that falls (mid-word, mid-sentence).
pub fn by_characters(page: &str, chars: usize) -> Vec<Chunk> {
    let flat: Vec<char> = page.split_whitespace().collect::<Vec<_>>().join(" ").chars().collect();
    flat.chunks(chars.max(1))
        .enumerate()
        .map(|(index, c)| Chunk { index, text: c.iter().collect::<String>().trim().to_string() })
        .collect()
}

/// Sentences (cut after `.`, `!` or `?` followed by a space).
pub fn sentences(text: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut current = String::new();
    let chars: Vec<char> = text.chars().collect();
    for (i, c) in chars.iter().enumerate() {
        current.push(*c);
        if matches!(c, '.' | '!' | '?') && chars.get(i + 1).is_none_or(|n| n.is_whitespace()) {
            let s = current.trim().to_string();
            if !s.is_empty() {
                out.push(s);
            }
            current.clear();
        }
    }
    if !current.trim().is_empty() {
        out.push(current.trim().to_string());
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn cuttings_by_hand() {
        let page = "one two three.\n\nfour five six seven.";
        assert_eq!(by_paragraph(page).len(), 2);
        let w: Vec<String> = by_window(page, 3, 1).into_iter().map(|c| c.text).collect();
        assert_eq!(w, ["one two three.", "three. four five", "five six seven."]);
        let c: Vec<String> = by_characters("abcdef ghij", 4).into_iter().map(|c| c.text).collect();
        assert_eq!(c, ["abcd", "ef g", "hij"]);
        assert_eq!(sentences("A b. C d? e"), ["A b.", "C d?", "e"]);
    }
}
