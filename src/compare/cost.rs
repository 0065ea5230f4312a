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

/// Tokens a reader's request reads besides its instruction and examples (read once and kept): a
/// passage of about a hundred words and the question; and what it writes: a short span.
const READER_PASSAGE_TOKENS: usize = 160;
const READER_SPAN_TOKENS: usize = 12;

/// What the language model as a reader asks for one question of `k` passages: for each passage
/// its best span, then its no-answer (two requests; the second reads only the few tokens that
/// open the model's turn, its prompt being the first's).
pub fn reader_requests(k: usize) -> Requests {
    Requests { count: 2 * k, read: READER_PASSAGE_TOKENS / 2, write: READER_SPAN_TOKENS / 2 + 1 }
}

/// The measured speed of the manifest's generator named `model` (a label's model,
/// `Qwen2.5-Coder-1.5B-Instruct`).
pub fn generator_speed(model: &str) -> Option<GeneratorSpeed> {
    let manifest = crate::models::Manifest::builtin();
    manifest
        .for_role(crate::models::Role::Generator)
        .into_iter()
        .find(|s| s.id.rsplit('/').next() == Some(model))?
        .speed
        .clone()
}

/// What reading one question of `k` passages will cost, said before it runs: the language model's
/// requests and, where its speed was measured, their seconds; the trained reader's forward passes;
/// the toy's nothing.
pub fn reader_cost(kind: crate::read::ReaderKind, k: usize, generator: Option<&str>) -> String {
    use crate::read::ReaderKind;
    match kind {
        ReaderKind::Toy => "The toy reads instantly: it is the anchor-and-boundary extractor, no model at all.".into(),
        ReaderKind::Span => format!(
            "Costs {k} forward passes of the reader or more (one per window of 384 tokens a passage) — a fraction \
             of a second each on a CPU."
        ),
        ReaderKind::Generator => {
            let requests = reader_requests(k);
            match generator.and_then(generator_speed) {
                Some(speed) => format!(
                    "Costs {} requests to the language model (a span and a no-answer a passage): about {:.0} s at its \
                     measured speed ({}).",
                    requests.count,
                    requests.seconds(&speed),
                    speed.measured_on
                ),
                None => format!(
                    "Costs {} requests to the language model (a span and a no-answer a passage).",
                    requests.count
                ),
            }
        }
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
