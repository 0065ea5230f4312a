//! What loading found wrong: each problem with its file and line, and the counts.

use std::fmt;
use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

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
    pub(super) fn warn(&mut self, file: &Path, line: Option<usize>, message: impl Into<String>) {
        self.warnings.push(LoadWarning { file: file.to_path_buf(), line, message: message.into() });
    }

    pub(super) fn skip(&mut self, file: &Path, line: Option<usize>, message: impl Into<String>) {
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
