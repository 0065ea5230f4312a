//! What ticking a language model's column will cost, before anything runs: the model's requests for
//! one question under the settings (a listwise column's windows, a pointwise column's passages, an
//! agent's rounds), each request's tokens read and written, and the model's measured speed. The
//! app says it beside the column's tick box; the figures are estimates, and say so.

use serde::{Deserialize, Serialize};

use crate::config::Settings;
use crate::models::GeneratorSpeed;
use crate::retrieve::MethodKind;

/// Tokens a listwise window's prompt takes per passage shown (80 words, measured: a window of 20
/// SciFact passages read 2,601 tokens with Qwen's tokenizer), and the instructions around them.
const LISTWISE_TOKENS_PER_PASSAGE: usize = 125;
const LISTWISE_INSTRUCTIONS: usize = 110;

/// A model's requests for one question of one method.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct Requests {
    /// How many requests.
    pub count: usize,
    /// Tokens each reads (the prompt; what a request shares with the one before is not read again,
    /// which this leaves out).
    pub read: usize,
    /// Tokens each writes at most.
    pub write: usize,
}

impl Requests {
    /// Seconds at `speed`.
    pub fn seconds(&self, speed: &GeneratorSpeed) -> f64 {
        self.count as f64
            * (self.read as f64 * f64::from(speed.read_us_per_token)
                + self.write as f64 * f64::from(speed.write_us_per_token))
            / 1e6
    }
}

/// The requests one question of `kind` makes under `settings`; `None` for a method that asks no
/// model at question time (everything else, and GraphRAG's local search, whose graph is built
/// beforehand).
pub fn requests(kind: MethodKind, settings: &Settings) -> Option<Requests> {
    let m = &settings.model_rerank;
    let r = |count, read, write| Some(Requests { count, read, write });
    match kind {
        MethodKind::Listwise => {
            let windows = crate::retrieve::listwise::windows(m.depth, m.window, m.step);
            let per_window = m.window.min(m.depth);
            let orders = if m.three_orders { 3 } else { 1 };
            r(
                windows.len() * orders,
                LISTWISE_INSTRUCTIONS + per_window * LISTWISE_TOKENS_PER_PASSAGE,
                5 * per_window + 10,
            )
        }
        // One judgement a passage: its passage and question (the instructions and examples are
        // read once and kept), one token written.
        MethodKind::Pointwise => r(m.pointwise_depth, 160, 1),
        MethodKind::Rewrite => r(1, 120, 48),
        MethodKind::Hyde | MethodKind::HydeText => r(1, 80, 128),
        MethodKind::ReasonBm25 | MethodKind::ReasonDense => r(1, 90, 160),
        // Each round reads what the last tool returned and writes one turn; then the answer.
        MethodKind::Agent => r(settings.agent.rounds + 1, 350, 120),
        _ => None,
    }
}

/// Seconds one question of the ticked language-model columns takes at `speed` (the columns that
/// ask no model count nothing).
pub fn seconds_per_question(settings: &Settings, speed: &GeneratorSpeed) -> f64 {
    settings.methods.iter().filter_map(|&k| requests(k, settings)).map(|r| r.seconds(speed)).sum()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn speed() -> GeneratorSpeed {
        GeneratorSpeed { read_us_per_token: 15_000, write_us_per_token: 50_000, measured_on: "here".into() }
    }

    #[test]
    fn a_listwise_column_costs_its_windows_and_the_others_their_requests() {
        let mut s = Settings::default();
        // One window of 20 (the default depth): 110 + 20 × 125 = 2,610 tokens read at 15 ms and
        // 110 written at 50 ms: 39.15 + 5.5 = 44.65 s.
        let one = requests(MethodKind::Listwise, &s).unwrap();
        assert_eq!(one, Requests { count: 1, read: 2610, write: 110 });
        assert!((one.seconds(&speed()) - 44.65).abs() < 1e-9);
        // RankGPT's depth of 100: nine windows.
        s.model_rerank.depth = 100;
        assert_eq!(requests(MethodKind::Listwise, &s).unwrap().count, 9);
        s.model_rerank.three_orders = true;
        assert_eq!(requests(MethodKind::Listwise, &s).unwrap().count, 27);
        // A pointwise column of 20 passages: 20 × (160 × 15 + 1 × 50) ms = 49 s.
        assert!((requests(MethodKind::Pointwise, &s).unwrap().seconds(&speed()) - 49.0).abs() < 1e-9);
        assert_eq!(requests(MethodKind::Bm25, &s), None);
        assert_eq!(requests(MethodKind::GraphLocal, &s), None, "the graph was built beforehand");
        // Only the ticked columns count.
        let s = Settings { methods: vec![MethodKind::Bm25, MethodKind::Rewrite], ..Settings::default() };
        assert!((seconds_per_question(&s, &speed()) - (120.0 * 15.0 + 48.0 * 50.0) / 1000.0).abs() < 1e-9);
    }
}
