//! One error type for the library, so every caller handles failures the same way.
//!
//! Each variant names what a user needs to fix it: the file, the line, the field or the value.

use std::path::PathBuf;

/// Everything that can go wrong in the RankLens core.
#[derive(Debug, thiserror::Error)]
pub enum Error {
    /// A file or folder could not be read or written at all.
    #[error("{path}: {source}")]
    Io {
        /// The file or folder involved.
        path: PathBuf,
        /// What the operating system said.
        source: std::io::Error,
    },
    /// Input that cannot be used, with where it came from.
    #[error("{location}: {message}")]
    Invalid {
        /// File and line, field or argument name.
        location: String,
        /// What is wrong and, where possible, how to fix it.
        message: String,
    },
    /// A query the parser cannot read.
    #[error("query: {0}")]
    Query(String),
    /// The tantivy index failed.
    #[error("index: {0}")]
    Index(String),
    /// SQLite failed or refused a statement.
    #[error("sql: {0}")]
    Sql(String),
    /// A model could not be found, fetched, verified or run.
    #[error("model: {0}")]
    Model(String),
    /// The user cancelled a long operation.
    #[error("cancelled")]
    Cancelled,
}

impl Error {
    /// An I/O error that names the path it concerns.
    pub fn io(path: impl Into<PathBuf>, source: std::io::Error) -> Self {
        Error::Io { path: path.into(), source }
    }

    /// Invalid input at a named location (file:line, field, flag).
    pub fn invalid(location: impl Into<String>, message: impl Into<String>) -> Self {
        Error::Invalid { location: location.into(), message: message.into() }
    }
}

impl From<tantivy::TantivyError> for Error {
    fn from(e: tantivy::TantivyError) -> Self {
        Error::Index(e.to_string())
    }
}

impl From<rusqlite::Error> for Error {
    fn from(e: rusqlite::Error) -> Self {
        Error::Sql(e.to_string())
    }
}

impl From<candle_core::Error> for Error {
    fn from(e: candle_core::Error) -> Self {
        Error::Model(e.to_string())
    }
}

/// The library's result type.
pub type Result<T, E = Error> = std::result::Result<T, E>;
