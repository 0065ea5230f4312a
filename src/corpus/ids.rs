//! Ids in line formats: which ids a whitespace- or tab-separated line can carry. Writers check
//! every id before writing, so a file RankLens writes never holds a broken line.

use crate::{Error, Result};

/// The line formats ids are written in.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum IdFormat {
    /// Whitespace-separated columns (TREC runs and qrels): no white space in an id, and no query
    /// id that starts with `#` (a comment line to TREC readers).
    Trec,
    /// Tab-separated columns (BEIR TSV): no tab or line break in an id, no white space at its ends
    /// (readers trim fields).
    Tsv,
}

/// Refuse an id that a line of `format` cannot carry, naming it and what it is (`query`,
/// `document`), so a writer never makes a broken line.
pub fn check_id(id: &str, what: &str, format: IdFormat) -> Result<()> {
    let problem = if id.is_empty() {
        Some("is empty")
    } else {
        match format {
            IdFormat::Trec if id.chars().any(char::is_whitespace) => {
                Some("holds white space, which a TREC line cannot carry (write TSV instead)")
            }
            // Readers of TREC files skip lines that start with `#` as comments.
            IdFormat::Trec if what == "query" && id.starts_with('#') => {
                Some("starts with `#`, which makes its TREC lines comments (write TSV instead)")
            }
            IdFormat::Tsv if id.contains(['\t', '\n', '\r']) => Some("holds a tab or a line break"),
            IdFormat::Tsv if id.trim() != id => Some("starts or ends with white space"),
            _ => None,
        }
    };
    match problem {
        Some(p) => Err(Error::invalid(format!("{what} id {id:?}"), format!("the id {p}"))),
        None => Ok(()),
    }
}
