//! Answers measured as SQuAD measures them, and retrieval measured by whether it found an answer.
//!
//! - [`normalize_answer`] is SQuAD's official `normalize_answer` (`evaluate-v1.1.py` and
//!   `evaluate-v2.0.py` alike): lower case, ASCII punctuation removed, the words a/an/the removed,
//!   whitespace collapsed to single spaces — in that order.
//! - [`exact_match`] and [`f1`] are the scripts' `compute_exact` and `compute_f1` (token F1 over the
//!   normalised answer's words, counted as a multiset), the best over the gold answers.
//! - [`Rules`] says which script's rules: v1.1 (every question has an answer), or v2.0, where a
//!   question whose gold answers all normalise to nothing is *unanswerable* and a prediction is right
//!   on it only when it is empty (the reader declined).
//! - [`has_answer`] is DPR's "top-k accuracy" test for a passage: it holds one of the answer strings
//!   as a run of whole words after normalisation.
//!
//! Totals are the scripts' `100 × Σ score / n`, summed in the questions' order, so a figure here
//! equals the scripts' to the last digit (checked in `tests/reader.rs` against `transformers`'
//! copy of the v2.0 rules and AllenNLP's copy of the v1.1 script on the same predictions).

use std::collections::HashMap;

use serde::{Deserialize, Serialize};

/// Which official script's rules.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Rules {
    /// `evaluate-v1.1.py`: every question has answers; F1 of an empty prediction is 0.
    V1,
    /// `evaluate-v2.0.py`: gold answers that normalise to nothing are dropped, and a question left
    /// with none is unanswerable (right only for an empty prediction); F1 of two empty answers is 1.
    #[default]
    V2,
}

/// SQuAD's ASCII punctuation (`string.punctuation`).
fn is_punctuation(c: char) -> bool {
    c.is_ascii_punctuation()
}

/// A word character in Python's `re` (Unicode): letters, digits and the underscore.
fn is_word(c: char) -> bool {
    c.is_alphanumeric() || c == '_'
}

/// SQuAD's `normalize_answer`: lower case, punctuation removed, articles removed, whitespace
/// collapsed.
pub fn normalize_answer(text: &str) -> String {
    let lower = text.to_lowercase();
    let no_punct: String = lower.chars().filter(|&c| !is_punctuation(c)).collect();
    let no_articles = remove_articles(&no_punct);
    no_articles.split_whitespace().collect::<Vec<_>>().join(" ")
}

/// `re.sub(r'\b(a|an|the)\b', ' ', text)`: each article standing as a whole word becomes a space.
fn remove_articles(text: &str) -> String {
    let chars: Vec<char> = text.chars().collect();
    let mut out = String::with_capacity(text.len());
    let mut i = 0;
    while i < chars.len() {
        let boundary_before = i == 0 || !is_word(chars[i - 1]);
        let mut matched = 0;
        if boundary_before {
            // The regex tries `a` first, then `an`, then `the`: `a` followed by `n` fails its
            // closing boundary and `an` is tried next.
            for article in ["a", "an", "the"] {
                let n = article.chars().count();
                let fits = chars.get(i..i + n).is_some_and(|w| w.iter().copied().eq(article.chars()));
                if fits && chars.get(i + n).is_none_or(|&c| !is_word(c)) {
                    matched = n;
                    break;
                }
            }
        }
        if matched > 0 {
            out.push(' ');
            i += matched;
        } else {
            out.push(chars[i]);
            i += 1;
        }
    }
    out
}

/// The normalised answer's words.
fn tokens(text: &str) -> Vec<String> {
    normalize_answer(text).split_whitespace().map(str::to_string).collect()
}

/// `compute_exact`: 1 when the two normalise to the same text.
pub fn exact(gold: &str, prediction: &str) -> f64 {
    if normalize_answer(gold) == normalize_answer(prediction) { 1.0 } else { 0.0 }
}

/// `compute_f1` under `rules`: the harmonic mean of precision and recall over the normalised words
/// both share (each word counted as often as both have it).
pub fn token_f1(gold: &str, prediction: &str, rules: Rules) -> f64 {
    let (g, p) = (tokens(gold), tokens(prediction));
    if rules == Rules::V2 && (g.is_empty() || p.is_empty()) {
        return if g == p { 1.0 } else { 0.0 };
    }
    let mut counts: HashMap<&str, usize> = HashMap::new();
    for w in &g {
        *counts.entry(w.as_str()).or_default() += 1;
    }
    let mut same = 0usize;
    for w in &p {
        if let Some(c) = counts.get_mut(w.as_str())
            && *c > 0
        {
            *c -= 1;
            same += 1;
        }
    }
    if same == 0 {
        return 0.0;
    }
    let precision = same as f64 / p.len() as f64;
    let recall = same as f64 / g.len() as f64;
    (2.0 * precision * recall) / (precision + recall)
}

/// The gold answers a question is scored against: under v2.0 those that normalise to something,
/// or the empty answer when none does (an unanswerable question); under v1.1 all of them.
pub fn scored_gold(gold: &[String], rules: Rules) -> Vec<String> {
    match rules {
        Rules::V1 => gold.to_vec(),
        Rules::V2 => {
            let kept: Vec<String> = gold.iter().filter(|a| !normalize_answer(a).is_empty()).cloned().collect();
            if kept.is_empty() { vec![String::new()] } else { kept }
        }
    }
}

/// Whether a question with these gold answers is unanswerable (v2.0: none normalises to anything).
pub fn unanswerable(gold: &[String]) -> bool {
    gold.iter().all(|a| normalize_answer(a).is_empty())
}

/// Exact match of a prediction (`""` when the reader declined): the best over the gold answers.
pub fn exact_match(gold: &[String], prediction: &str, rules: Rules) -> f64 {
    scored_gold(gold, rules).iter().map(|g| exact(g, prediction)).fold(0.0, f64::max)
}

/// F1 of a prediction: the best over the gold answers.
pub fn f1(gold: &[String], prediction: &str, rules: Rules) -> f64 {
    scored_gold(gold, rules).iter().map(|g| token_f1(g, prediction, rules)).fold(0.0, f64::max)
}

/// Exact match and F1 over a question set, in percent, as the scripts total them.
#[derive(Debug, Clone, Copy, PartialEq, Default, Serialize, Deserialize)]
pub struct AnswerScores {
    /// 100 × mean exact match.
    pub exact_match: f64,
    /// 100 × mean F1.
    pub f1: f64,
    /// Questions scored.
    pub total: usize,
}

/// The scripts' totals over `(gold answers, prediction)` pairs in order: `100 × Σ / n`.
pub fn score_all<'a>(pairs: impl IntoIterator<Item = (&'a [String], &'a str)>, rules: Rules) -> AnswerScores {
    let (mut em, mut f, mut n) = (0.0f64, 0.0f64, 0usize);
    for (gold, prediction) in pairs {
        em += exact_match(gold, prediction, rules);
        f += f1(gold, prediction, rules);
        n += 1;
    }
    if n == 0 {
        return AnswerScores::default();
    }
    AnswerScores { exact_match: 100.0 * em / n as f64, f1: 100.0 * f / n as f64, total: n }
}

/// DPR's test of a retrieved passage: one of the answers, normalised, is a run of whole words of
/// the normalised passage. An empty answer never counts.
pub fn has_answer(passage: &str, answers: &[String]) -> bool {
    let words = tokens(passage);
    answers.iter().any(|a| {
        let needle = tokens(a);
        !needle.is_empty() && words.windows(needle.len()).any(|w| w == needle.as_slice())
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn s(v: &[&str]) -> Vec<String> {
        v.iter().map(|x| x.to_string()).collect()
    }

    #[test]
    fn normalisation_is_squads_by_hand() {
        assert_eq!(normalize_answer("The  Denver Broncos!"), "denver broncos");
        assert_eq!(normalize_answer("an apple a day"), "apple day");
        // Articles go only as whole words: "theme" and "anne" stay; "a-team" loses its hyphen
        // first, then "ateam" is a word.
        assert_eq!(normalize_answer("Theme of Anne"), "theme of anne");
        assert_eq!(normalize_answer("A-team"), "ateam");
        assert_eq!(normalize_answer("the the"), "");
        assert_eq!(normalize_answer("1,756."), "1756");
        // An em dash is not ASCII punctuation, and stays; it is no word character either, so "the"
        // after it stands as a word (a boundary, as Python's `\b` sees it) and goes.
        assert_eq!(normalize_answer("Ångström—the unit"), "ångström— unit");
        assert_eq!(normalize_answer(""), "");
    }

    #[test]
    fn exact_and_f1_by_hand() {
        // gold "Salzburg, Austria" (2 words), prediction "in Salzburg" (2 words): 1 shared word,
        // precision 1/2, recall 1/2, F1 1/2.
        assert_eq!(token_f1("Salzburg, Austria", "in Salzburg", Rules::V2), 0.5);
        // gold 3 words, prediction 1 of them: P 1, R 1/3, F1 = 2·(1/3)/(4/3) = 0.5.
        assert_eq!(token_f1("the 27 January 1756", "1756", Rules::V2), 0.5);
        // Repeated words count as often as both have them: gold "a b b" → "b b"; "b b b" shares 2.
        let f = token_f1("x b b", "b b b", Rules::V2);
        let (p, r) = (2.0 / 3.0, 2.0 / 3.0);
        assert_eq!(f, 2.0 * p * r / (p + r));
        assert_eq!(exact("The Broncos.", "broncos"), 1.0);
        assert_eq!(exact_match(&s(&["Denver", "Denver Broncos"]), "Denver Broncos", Rules::V2), 1.0);
        assert_eq!(f1(&s(&["Denver", "Denver Broncos"]), "the Broncos", Rules::V2), 2.0 * 1.0 * 0.5 / 1.5);
    }

    #[test]
    fn unanswerable_questions_follow_v2_and_empty_answers_follow_each_script() {
        // No gold: only the empty prediction is right, under v2.0.
        assert!(unanswerable(&[]));
        assert_eq!(exact_match(&[], "", Rules::V2), 1.0);
        assert_eq!(f1(&[], "", Rules::V2), 1.0);
        assert_eq!(exact_match(&[], "Salzburg", Rules::V2), 0.0);
        assert_eq!(f1(&[], "Salzburg", Rules::V2), 0.0);
        // A gold that normalises to nothing ("the") is dropped under v2.0, kept under v1.1.
        assert_eq!(scored_gold(&s(&["the", "Vienna"]), Rules::V2), s(&["Vienna"]));
        assert_eq!(scored_gold(&s(&["the"]), Rules::V1), s(&["the"]));
        // v1.1: an empty prediction has F1 0 even against an empty gold.
        assert_eq!(token_f1("the", "", Rules::V1), 0.0);
        assert_eq!(token_f1("the", "", Rules::V2), 1.0);
        // Declining an answerable question scores 0 under both.
        assert_eq!(f1(&s(&["Vienna"]), "", Rules::V1), 0.0);
        assert_eq!(f1(&s(&["Vienna"]), "", Rules::V2), 0.0);
    }

    #[test]
    fn totals_are_a_hundred_times_the_mean() {
        let gold = [s(&["Salzburg"]), s(&["1756"]), vec![]];
        let predictions = ["Salzburg", "in 1756 he", ""];
        let scores = score_all(gold.iter().map(Vec::as_slice).zip(predictions), Rules::V2);
        assert_eq!(scores.total, 3);
        // EM: 1, 0, 1 → 200/3. F1: 1, 2·(1/3)·1/(4/3) = 1/2, 1 → 250/3.
        assert_eq!(scores.exact_match, 100.0 * 2.0 / 3.0);
        assert_eq!(scores.f1, 100.0 * 2.5 / 3.0);
        assert_eq!(score_all(std::iter::empty(), Rules::V1), AnswerScores::default());
    }

    proptest::proptest! {
        #![proptest_config(proptest::prelude::ProptestConfig::with_cases(crate::proptest_cases()))]

        /// Any text: normalising never panics, is idempotent, leaves no ASCII punctuation, no
        /// article standing as a word, and no doubled or outer space.
        #[test]
        fn normalising_any_text_is_idempotent_and_leaves_no_article_or_punctuation(
            text in "(a|an|the|The|A|x|é|1|[ .,!'-]|\\s){0,24}"
        ) {
            let n = normalize_answer(&text);
            proptest::prop_assert_eq!(normalize_answer(&n), n.clone());
            proptest::prop_assert!(!n.chars().any(|c| c.is_ascii_punctuation()), "{:?}", n);
            proptest::prop_assert!(n.split(' ').all(|w| !["a", "an", "the"].contains(&w) && !w.is_empty()) || n.is_empty(), "{:?}", n);
            proptest::prop_assert_eq!(n.trim(), n.as_str());
        }
    }

    #[test]
    fn a_passage_has_an_answer_as_whole_words_after_normalisation() {
        let p = "Mozart was born in Salzburg, in 1756.";
        assert!(has_answer(p, &s(&["salzburg"])));
        assert!(has_answer(p, &s(&["Vienna", "in 1756"])));
        assert!(!has_answer(p, &s(&["Salz"])), "part of a word is not a word");
        assert!(!has_answer(p, &s(&["the"])), "an answer that normalises to nothing never counts");
        assert!(!has_answer(p, &[]));
    }
}
