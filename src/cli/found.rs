//! What a command found: something, or nothing (exit code 1, as ripgrep's).

/// Outcome of a command: found something or not.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Found {
    /// Results were printed.
    Some,
    /// Nothing matched.
    Nothing,
}
