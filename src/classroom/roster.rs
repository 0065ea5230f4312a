//! The roster: a CSV whose first column is the student's name.

use std::collections::BTreeMap;
use std::path::Path;

use crate::{Error, Result};

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
pub(super) fn csv_rows(bytes: &[u8], source: &str) -> Result<Vec<(usize, u64, csv::StringRecord)>> {
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
        let line = record.position().map_or(i as u64 + 1, |p| first_line(text, p.byte()));
        if !record.iter().all(|f| f.trim().is_empty()) {
            rows.push((i, line, record));
        }
    }
    Ok(rows)
}

/// The line a record starts on, as an editor numbers it: the reader's position may stand on the
/// blank lines it skipped before the record (the csv crate's own line count then names the line
/// above), so the record's first line is the first one after `byte` that is not blank.
fn first_line(text: &str, byte: u64) -> u64 {
    let start = usize::try_from(byte).unwrap_or(usize::MAX).min(text.len());
    let rest = text.get(start..).unwrap_or("");
    let first = start + rest.find(|c: char| c != '\n' && c != '\r').unwrap_or(rest.len());
    text.get(..first).map_or(0, |t| t.matches('\n').count()) as u64 + 1
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
