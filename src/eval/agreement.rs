//! How far two judges agree on yes/no relevance: the confusion table, observed and chance
//! agreement, and Cohen's κ (the language model's judgements against people's, in `ranklens judge`
//! and the Evaluate view).

use serde::{Deserialize, Serialize};

/// How far two sets of yes/no judgements agree.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Agreement {
    /// Pairs compared.
    pub n: usize,
    /// Both say relevant.
    pub both: usize,
    /// Only the model says relevant.
    pub model_only: usize,
    /// Only the people say relevant.
    pub people_only: usize,
    /// Both say not relevant.
    pub neither: usize,
    /// Share of pairs that agree.
    pub observed: f64,
    /// Agreement expected by chance from each side's rate of "relevant".
    pub expected: f64,
    /// Cohen's κ = (observed − expected) / (1 − expected); `None` when chance agreement is
    /// perfect (every pair judged alike by both sides), where κ is undefined.
    pub kappa: Option<f64>,
}

/// Cohen's κ of (model, people) yes/no pairs.
pub fn agreement(pairs: impl IntoIterator<Item = (bool, bool)>) -> Agreement {
    crate::tally::count(crate::tally::Tally::Agreement);
    let (mut both, mut model_only, mut people_only, mut neither) = (0, 0, 0, 0);
    for (m, p) in pairs {
        match (m, p) {
            (true, true) => both += 1,
            (true, false) => model_only += 1,
            (false, true) => people_only += 1,
            (false, false) => neither += 1,
        }
    }
    let n = both + model_only + people_only + neither;
    let nf = n.max(1) as f64;
    let observed = (both + neither) as f64 / nf;
    let model_yes = (both + model_only) as f64 / nf;
    let people_yes = (both + people_only) as f64 / nf;
    let expected = model_yes * people_yes + (1.0 - model_yes) * (1.0 - people_yes);
    let kappa = (n > 0 && expected < 1.0).then(|| (observed - expected) / (1.0 - expected));
    Agreement { n, both, model_only, people_only, neither, observed, expected, kappa }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn kappa_of_a_textbook_table() {
        // Manning, Raghavan & Schütze, Introduction to IR, table 8.2: 400 pairs, 300 both yes,
        // 70 both no, 20 / 10 disagreements. P(A) = 370/400 = 0.925; P(E) = 0.8 × 0.775 + 0.2 × 0.225
        // = 0.665 (the book pools the marginals, 0.7875² + 0.2125², and gets the same 0.665);
        // κ = (0.925 − 0.665) / 0.335 = 0.776.
        let pairs = std::iter::repeat_n((true, true), 300)
            .chain(std::iter::repeat_n((false, false), 70))
            .chain(std::iter::repeat_n((true, false), 20))
            .chain(std::iter::repeat_n((false, true), 10));
        let a = agreement(pairs);
        assert_eq!((a.n, a.both, a.neither, a.model_only, a.people_only), (400, 300, 70, 20, 10));
        assert!((a.observed - 0.925).abs() < 1e-12);
        // model yes 320/400 = 0.8, people yes 310/400 = 0.775.
        assert!((a.expected - (0.8 * 0.775 + 0.2 * 0.225)).abs() < 1e-12);
        assert!((a.kappa.unwrap() - (0.925 - 0.665) / (1.0 - 0.665)).abs() < 1e-9);
        // Everything alike on both sides: κ is undefined, not 1 or NaN.
        assert_eq!(agreement([(true, true), (true, true)]).kappa, None);
        assert_eq!(agreement([(true, false), (false, true)]).kappa, Some(-1.0));
    }
}
