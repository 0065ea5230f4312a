//! One error type for the library, so every caller handles failures the same way.
//!
//! Each variant names what a user needs to fix it: the file, the line, the field or the value.
//! A failure of something RankLens relies on (the OS, tantivy, SQLite, candle, a tokenizer, an
//! HTTP request) keeps that error as its typed `source`, and the variant's own message says only
//! what RankLens was doing, so printing the chain never repeats a cause. Wherever an error becomes
//! text for a person, [`report`] (or [`Error::report`]) writes the whole chain.

use std::path::PathBuf;

/// The cause of a failure in something RankLens relies on.
pub type Cause = Box<dyn std::error::Error + Send + Sync + 'static>;

/// Everything that can go wrong in the RankLens core. New kinds of failure may be added, so a match
/// over it outside the crate needs a catch-all arm.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum Error {
    /// A file or folder could not be read or written at all.
    #[error("{}", path.display())]
    Io {
        /// The file or folder involved.
        path: PathBuf,
        /// What the operating system said.
        #[source]
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
    /// The index is not as RankLens expects.
    #[error("index: {0}")]
    Index(String),
    /// tantivy failed.
    #[error("index")]
    Tantivy(#[from] tantivy::TantivyError),
    /// SQLite refused a statement or a table.
    #[error("sql: {0}")]
    Sql(String),
    /// SQLite failed.
    #[error("sql")]
    Sqlite(#[from] rusqlite::Error),
    /// A model could not be found, fetched, verified or run.
    #[error("model: {0}")]
    Model(String),
    /// candle failed while loading or running a model.
    #[error("model")]
    Candle(#[from] candle_core::Error),
    /// Something else RankLens relies on failed while it did what `context` says.
    #[error("{context}")]
    Caused {
        /// What RankLens was doing (`model: https://…`, `index: /path`).
        context: String,
        /// The failure.
        #[source]
        source: Cause,
    },
    /// A public collection or question set could not be downloaded, or its download was not the
    /// published file: which one, and what to do (the address, the folder to put it in by hand).
    #[error("collection {collection}: {message}")]
    Download {
        /// The collection's name (`scifact`, `squad-dev`).
        collection: String,
        /// What went wrong, and how to get it by hand.
        message: String,
    },
    /// A method cannot run here (its model or encodings are missing); the message says how to
    /// get it. Its column says so, while every other method runs.
    #[error("{0}")]
    Unavailable(String),
    /// The user cancelled a long operation.
    #[error("cancelled")]
    Cancelled,
    /// Background work stopped on a bug (a panic) instead of finishing: what it was doing and
    /// what the panic said. Nothing else is affected; the work can be started again.
    #[error("{job} stopped unexpectedly: {message} (a bug; please report it)")]
    Panicked {
        /// The work (`Ranking`, `Encoding (dense)`).
        job: String,
        /// The panic's message, when it had one.
        message: String,
    },
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

    /// A failure of something RankLens relies on, while doing `context`.
    pub fn caused(context: impl Into<String>, source: impl Into<Cause>) -> Self {
        Error::Caused { context: context.into(), source: source.into() }
    }

    /// A model problem that has a cause of its own (the zip a wheel could not be read as, the
    /// tokenizer that failed): `model: what` with the cause kept, typed, as the source.
    pub fn model_caused(what: impl std::fmt::Display, source: impl Into<Cause>) -> Self {
        Error::caused(format!("model: {what}"), source)
    }

    /// The failure a panicking job is reported as, with the panic's message when it is text.
    pub fn panicked(job: impl Into<String>, payload: &(dyn std::any::Any + Send)) -> Self {
        let message = payload
            .downcast_ref::<&str>()
            .map(|s| s.to_string())
            .or_else(|| payload.downcast_ref::<String>().cloned())
            .unwrap_or_else(|| "no message".into());
        Error::Panicked { job: job.into(), message }
    }

    /// The whole chain as one line: this error, then each cause.
    pub fn report(&self) -> String {
        report(self)
    }
}

/// An error and its causes as one line (`sql: /tmp/x.sqlite: unable to open database file`), each
/// cause once even where a library repeats its own cause in its message.
pub fn report(error: &(dyn std::error::Error + 'static)) -> String {
    let mut out = error.to_string();
    let mut next = error.source();
    while let Some(cause) = next {
        let text = cause.to_string();
        // SQLite and others repeat their message under a code (`disk I/O error` then
        // `Error code 778: disk I/O error`): a cause whose last part is already said adds nothing.
        let said =
            |t: &str| out.ends_with(t) || out.rsplit(": ").next().is_some_and(|last| t.ends_with(&format!(": {last}")));
        if !text.is_empty() && !said(&text) {
            out.push_str(": ");
            out.push_str(&text);
        }
        next = cause.source();
    }
    out
}

/// The library's result type.
pub type Result<T, E = Error> = std::result::Result<T, E>;

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_cause_is_printed_once() {
        let missing = std::io::Error::new(std::io::ErrorKind::NotFound, "No such file or directory");
        let e = Error::io("/nonexistent/x.jsonl", missing);
        assert_eq!(e.to_string(), "/nonexistent/x.jsonl");
        assert_eq!(e.report(), "/nonexistent/x.jsonl: No such file or directory");
        let nested = Error::caused("model: fetching splade", e);
        assert_eq!(nested.report(), "model: fetching splade: /nonexistent/x.jsonl: No such file or directory");
        assert!(std::error::Error::source(&nested).is_some(), "the cause is kept, typed");
        assert_eq!(Error::Model("no model".into()).report(), "model: no model");
        // rusqlite's failure shows its message, and its cause the same message under a code.
        let full = rusqlite::Error::SqliteFailure(rusqlite::ffi::Error::new(778), Some("disk I/O error".to_string()));
        assert_eq!(Error::Sqlite(full).report(), "sql: disk I/O error");
    }
}
