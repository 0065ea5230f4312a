//! Progress of long work on stderr.

use std::io::IsTerminal;
use std::sync::Mutex;
use std::time::Instant;

use crate::progress::Progress;

/// Progress on stderr: a rewritten line on a terminal, one line per stage otherwise.
pub struct TermProgress {
    state: Mutex<(String, u64, u64, Instant)>,
    tty: bool,
}

impl TermProgress {
    /// Report to stderr.
    pub fn new() -> Self {
        Self { state: Mutex::new((String::new(), 0, 0, Instant::now())), tty: std::io::stderr().is_terminal() }
    }
}

impl Progress for TermProgress {
    fn stage(&self, name: &str, total: u64) {
        if let Ok(mut s) = self.state.lock() {
            if self.tty && !s.0.is_empty() {
                eprintln!();
            }
            *s = (name.to_string(), 0, total, Instant::now());
            if !self.tty {
                eprintln!("{name}…");
            }
        }
    }
    fn advance(&self, n: u64) {
        if let Ok(mut s) = self.state.lock() {
            s.1 += n;
            if self.tty {
                let pct = (100 * s.1).checked_div(s.2).map(|p| format!(" {p:>3}%")).unwrap_or_default();
                eprint!("\r{} {}/{}{pct}", s.0, s.1, s.2);
            }
        }
    }
    fn is_cancelled(&self) -> bool {
        false
    }
    fn note(&self, line: &str) {
        if self.tty {
            eprintln!();
        }
        eprintln!("  {line}");
    }
}

impl Drop for TermProgress {
    fn drop(&mut self) {
        if self.tty && self.state.lock().map(|s| !s.0.is_empty()).unwrap_or(false) {
            eprintln!();
        }
    }
}
