//! Page Hunt (Ma, Chandel, Horvitz et al., "Page Hunt: improving search engines using human
//! computation games", SIGIR 2009): a passage is shown, not its question; the player writes a
//! question, and scores by the rank the passage reaches. Here it teaches how each method matches:
//! the rounds ask for any question, for one that shares no word with the passage (BM25 cannot
//! find it then; a dense model can — vocabulary mismatch, played), for one that BM25 brings in and
//! dense does not and the reverse, and for the fewest words.
//!
//! Every rank is the method's own ranking ([`crate::compare::fixes::rank_of`], the why-not
//! solver's). The **par** after each try is the solver's: the shortest question of one or two of
//! the passage's own words (the words the why-not solver adds, best by tf × idf) that scores at
//! least what the player scored, ranked again with the same code.

use serde::{Deserialize, Serialize};

use crate::analysis::Analyzer;
use crate::compare::fixes::{passage_words, rank_of};
use crate::config::Settings;
use crate::corpus::DocId;
use crate::progress::{Progress, check_cancel};
use crate::retrieve::{MethodKind, Retriever};
use crate::workbench::Workbench;
use crate::{Error, Result};

/// The ranks that score: a passage at rank r ≤ `TOP` scores `TOP + 1 − r` points.
pub const TOP: usize = 10;
/// The methods a round can rank with: those that score every passage, so a rank to reach.
pub const METHODS: [MethodKind; 5] = crate::compare::fixes::SCORING_EVERY_PASSAGE;
/// The passage's words the par is drawn from (one-word questions).
const PAR_WORDS: usize = 12;
/// The one-word questions that did best, combined into two-word questions.
const PAR_PAIRED: usize = 6;

/// A round of the game: what the question must do to score.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Round {
    /// Any question: points by the rank the passage reaches.
    Any,
    /// A question that shares no word with the passage after the analyzer.
    NoSharedWord,
    /// A question that BM25 brings into the top 10 and dense does not.
    Bm25NotDense,
    /// A question that dense brings into the top 10 and BM25 does not.
    DenseNotBm25,
    /// Into the top 10 with as few words as can be.
    FewestWords,
}

/// Every round, in the order a class plays them.
pub const ROUNDS: [Round; 5] =
    [Round::Any, Round::NoSharedWord, Round::Bm25NotDense, Round::DenseNotBm25, Round::FewestWords];

impl Round {
    /// The id the command line and the files use.
    pub fn id(self) -> &'static str {
        match self {
            Round::Any => "any",
            Round::NoSharedWord => "no-shared-word",
            Round::Bm25NotDense => "bm25-not-dense",
            Round::DenseNotBm25 => "dense-not-bm25",
            Round::FewestWords => "fewest-words",
        }
    }

    /// The round of an id.
    pub fn parse(id: &str) -> Result<Round> {
        ROUNDS.iter().copied().find(|r| r.id() == id.trim()).ok_or_else(|| {
            let ids: Vec<&str> = ROUNDS.iter().map(|r| r.id()).collect();
            Error::invalid("round", format!("no round {id:?}; the rounds are {}", ids.join(", ")))
        })
    }

    /// The round's name.
    pub fn title(self) -> &'static str {
        match self {
            Round::Any => "Any question",
            Round::NoSharedWord => "Not one of its words",
            Round::Bm25NotDense => "BM25 finds it, dense does not",
            Round::DenseNotBm25 => "Dense finds it, BM25 does not",
            Round::FewestWords => "The fewest words",
        }
    }

    /// The rules and the points, said before the round is played.
    pub fn rules(self, method: &str) -> String {
        let by_rank = format!("{TOP} points at rank 1, one fewer for each place below it, none past rank {TOP}");
        match self {
            Round::Any => format!("Write a question that brings the passage up under {method}: {by_rank}."),
            Round::NoSharedWord => format!(
                "Write a question that shares no word with the passage (compared after the analyzer, so \
                 \"conflicts\" and \"conflict\" are one word); {method} ranks it: {by_rank}. A question \
                 that shares a word is refused."
            ),
            Round::Bm25NotDense => format!(
                "Write a question that brings the passage into BM25's top {TOP} but leaves it outside dense \
                 retrieval's: the points BM25's rank gives ({by_rank}); none if dense has it in its top {TOP} too."
            ),
            Round::DenseNotBm25 => format!(
                "Write a question that brings the passage into dense retrieval's top {TOP} but leaves it outside \
                 BM25's: the points dense's rank gives ({by_rank}); none if BM25 has it in its top {TOP} too."
            ),
            Round::FewestWords => format!(
                "Bring the passage into the top {TOP} under {method} with as few words as you can: {TOP} points \
                 for one word, one fewer for each word more (at least 1); none outside the top {TOP}."
            ),
        }
    }

    /// Whether the player chooses the method (the two rounds that set BM25 against dense do not).
    pub fn lets_choose_method(self) -> bool {
        self.methods(MethodKind::TfIdf).len() == 1
    }

    /// The method whose rank scores the round, given the one the player chose.
    pub fn scoring_method(self, chosen: MethodKind) -> MethodKind {
        self.methods(chosen).first().copied().unwrap_or(chosen)
    }

    /// The methods the round ranks with, the scoring one first.
    pub fn methods(self, chosen: MethodKind) -> Vec<MethodKind> {
        match self {
            Round::Bm25NotDense => vec![MethodKind::Bm25, MethodKind::Dense],
            Round::DenseNotBm25 => vec![MethodKind::Dense, MethodKind::Bm25],
            Round::Any | Round::NoSharedWord | Round::FewestWords => vec![chosen],
        }
    }
}

/// Points for a passage at `rank` (1-based; `None`: not found).
pub fn points_at(rank: Option<usize>) -> u32 {
    match rank {
        Some(r) if (1..=TOP).contains(&r) => (TOP + 1 - r) as u32,
        _ => 0,
    }
}

/// Where the passage stands under one method.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct MethodRank {
    /// The method's label.
    pub method: String,
    /// The passage's rank (1-based; `None`: not among the first 1,000).
    pub rank: Option<usize>,
}

/// The solver's question for the same passage and round.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Par {
    /// The question.
    pub question: String,
    /// Its words.
    pub words: usize,
    /// The passage's rank under the scoring method.
    pub rank: Option<usize>,
    /// The points it scores.
    pub points: u32,
}

/// One try scored.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Attempt {
    /// The passage's id.
    pub passage: String,
    /// The passage's text (what the player was shown).
    pub text: String,
    /// The round.
    pub round: Round,
    /// The scoring method's label.
    pub method: String,
    /// The question tried.
    pub question: String,
    /// The passage's rank under the scoring method (`None` when refused or not found).
    pub rank: Option<usize>,
    /// Its rank under every method the round ranks with, the scoring one first.
    pub ranks: Vec<MethodRank>,
    /// The points scored.
    pub points: u32,
    /// The most a try can score.
    pub max_points: u32,
    /// Why the question was not ranked (a word shared in the no-shared-word round).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub refused: Option<String>,
    /// The solver's shortest question scoring at least as much (at least 1 point).
    pub par: Option<Par>,
    /// Why there is no par.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub par_note: Option<String>,
    /// The rules said before the round.
    pub rules: String,
    /// Questions ranked (the try and the solver's candidates).
    pub ranked: usize,
}

/// Passages worth hunting: eight words or more (a title alone gives nothing to aim at).
const MIN_WORDS: usize = 8;

/// The passage drawn by `seed` (the same on every machine): among the passages of at least
/// eight words, or any passage when none is that long; `None` for an empty corpus.
pub fn draw_passage(workbench: &Workbench, seed: u64) -> Option<DocId> {
    let corpus = workbench.corpus();
    let long: Vec<DocId> = corpus
        .docs()
        .iter()
        .enumerate()
        .filter(|(_, d)| d.passage_text().split_whitespace().count() >= MIN_WORDS)
        .map(|(i, _)| DocId(i as u32))
        .collect();
    let all: Vec<DocId> = (0..corpus.len()).map(|i| DocId(i as u32)).collect();
    let from = if long.is_empty() { &all } else { &long };
    crate::lcg::SplitMix64::new(seed).pick(from).copied()
}

/// The question's words that the passage holds too, after `analyzer` (each once, in the
/// question's order).
pub fn shared_words(analyzer: &Analyzer, question: &str, passage: &str) -> Vec<String> {
    let in_passage: std::collections::HashSet<String> = analyzer.terms(passage).into_iter().collect();
    let mut out: Vec<String> = Vec::new();
    for t in analyzer.tokens(question) {
        if in_passage.contains(&t.text) {
            let surface = question.get(t.offset_from..t.offset_to).unwrap_or(&t.text).to_string();
            if !out.contains(&surface) {
                out.push(surface);
            }
        }
    }
    out
}

/// The analyzer a round compares words with: BM25's (the settings' analyzer).
pub fn round_analyzer(settings: &Settings) -> Analyzer {
    Analyzer::new(settings.analyzer)
}

/// The methods' retrievers, built once for a try and its par.
struct Judge<'a> {
    workbench: &'a Workbench,
    settings: &'a Settings,
    round: Round,
    doc: DocId,
    retrievers: Vec<(MethodKind, std::sync::Arc<dyn Retriever>)>,
    ranked: usize,
}

impl Judge<'_> {
    /// The ranks of `question` under each method, and its points.
    fn score(&mut self, question: &str, progress: &dyn Progress) -> Result<(Vec<Option<usize>>, u32)> {
        let mut ranks = Vec::with_capacity(self.retrievers.len());
        for (_, r) in &self.retrievers {
            ranks.push(rank_of(self.workbench, r.as_ref(), self.settings, question, self.doc, progress)?);
        }
        self.ranked += 1;
        let first = ranks.first().copied().flatten();
        let points = match self.round {
            Round::Any | Round::NoSharedWord => points_at(first),
            Round::Bm25NotDense | Round::DenseNotBm25 => {
                let other_inside = ranks.get(1).copied().flatten().is_some_and(|r| r <= TOP);
                if other_inside { 0 } else { points_at(first) }
            }
            Round::FewestWords => match first {
                Some(r) if r <= TOP => {
                    let words = question.split_whitespace().count().max(1);
                    (TOP + 1).saturating_sub(words).max(1) as u32
                }
                _ => 0,
            },
        };
        Ok((ranks, points))
    }
}

/// Score `question` in `round` for the passage `doc` under `kind` (the method of the rounds that
/// rank with one; the BM25-against-dense rounds rank with both), and find the solver's par.
pub fn play(
    workbench: &Workbench,
    kind: MethodKind,
    settings: &Settings,
    round: Round,
    doc: DocId,
    question: &str,
    progress: &dyn Progress,
) -> Result<Attempt> {
    attempt(workbench, kind, settings, round, doc, question, true, progress)
}

/// [`play`] without the par: the try's ranks and points only (what grading a class needs).
pub fn score_try(
    workbench: &Workbench,
    kind: MethodKind,
    settings: &Settings,
    round: Round,
    doc: DocId,
    question: &str,
    progress: &dyn Progress,
) -> Result<Attempt> {
    attempt(workbench, kind, settings, round, doc, question, false, progress)
}

#[allow(clippy::too_many_arguments)]
fn attempt(
    workbench: &Workbench,
    kind: MethodKind,
    settings: &Settings,
    round: Round,
    doc: DocId,
    question: &str,
    with_par: bool,
    progress: &dyn Progress,
) -> Result<Attempt> {
    let question = question.split_whitespace().collect::<Vec<_>>().join(" ");
    if question.is_empty() {
        return Err(Error::invalid("question", "the question is empty: write the question that finds the passage"));
    }
    let corpus = workbench.corpus();
    let passage = corpus.doc(doc).ok_or_else(|| Error::invalid("passage", "no such passage in the corpus"))?;
    let text = passage.passage_text();
    let kinds = round.methods(kind);
    let mut retrievers = Vec::with_capacity(kinds.len());
    for k in &kinds {
        retrievers.push((*k, workbench.retriever(*k, settings)?));
    }
    let labels: Vec<String> = retrievers.iter().map(|(_, r)| r.label()).collect();
    let method = labels.first().cloned().unwrap_or_default();
    let mut judge = Judge { workbench, settings, round, doc, retrievers, ranked: 0 };
    let mut attempt = Attempt {
        passage: passage.id.clone(),
        text: text.clone(),
        round,
        method: method.clone(),
        question: question.clone(),
        rank: None,
        ranks: labels.iter().map(|m| MethodRank { method: m.clone(), rank: None }).collect(),
        points: 0,
        max_points: TOP as u32,
        refused: None,
        par: None,
        par_note: None,
        rules: round.rules(&method),
        ranked: 0,
    };
    let analyzer = round_analyzer(settings);
    let shared = shared_words(&analyzer, &question, &text);
    if round == Round::NoSharedWord && !shared.is_empty() {
        let quoted: Vec<String> = shared.iter().map(|w| format!("\"{w}\"")).collect();
        attempt.refused = Some(format!(
            "refused: the question shares {} with the passage (after the {} analyzer); this round asks for none \
             of its words",
            quoted.join(", "),
            analyzer.config()
        ));
    } else {
        check_cancel(progress)?;
        let (ranks, points) = judge.score(&question, progress)?;
        attempt.rank = ranks.first().copied().flatten();
        for (shown, rank) in attempt.ranks.iter_mut().zip(ranks) {
            shown.rank = rank;
        }
        attempt.points = points;
    }
    if with_par {
        let lead = kinds.first().copied().unwrap_or(kind);
        let (par, note) = find_par(&mut judge, lead, attempt.points.max(1), progress)?;
        attempt.par = par;
        attempt.par_note = note;
    }
    attempt.ranked = judge.ranked;
    Ok(attempt)
}

/// The solver's shortest question of the passage's own words that scores at least `want`: each
/// one-word question of its best words, then pairs of the six one-word questions that did best.
/// Among the questions of the fewest words that reach `want`, the highest scoring (then the
/// first tried).
fn find_par(
    judge: &mut Judge<'_>,
    lead: MethodKind,
    want: u32,
    progress: &dyn Progress,
) -> Result<(Option<Par>, Option<String>)> {
    if judge.round == Round::NoSharedWord {
        return Ok((
            None,
            Some("no par: the solver asks with the passage's own words, which this round forbids".into()),
        ));
    }
    // The words come from the lead method's point of view (its analyzer when lexical).
    let words = passage_words(judge.workbench, lead, judge.settings, "", judge.doc, PAR_WORDS);
    if words.is_empty() {
        return Ok((None, Some("no par: the passage has no word the solver can ask with".into())));
    }
    let mut singles: Vec<(String, Option<usize>, u32)> = Vec::with_capacity(words.len());
    for w in &words {
        check_cancel(progress)?;
        let (ranks, points) = judge.score(w, progress)?;
        singles.push((w.clone(), ranks.first().copied().flatten(), points));
    }
    if let Some(best) = best_reaching(&singles, want) {
        return Ok((Some(best), None));
    }
    let mut order: Vec<&(String, Option<usize>, u32)> = singles.iter().collect();
    order.sort_by_key(|(_, r, p)| (std::cmp::Reverse(*p), r.unwrap_or(usize::MAX)));
    let lead_words: Vec<String> = order.iter().take(PAR_PAIRED).map(|(w, _, _)| w.clone()).collect();
    let mut pairs: Vec<(String, Option<usize>, u32)> = Vec::new();
    for (i, a) in lead_words.iter().enumerate() {
        for b in &lead_words[i + 1..] {
            check_cancel(progress)?;
            let q = format!("{a} {b}");
            let (ranks, points) = judge.score(&q, progress)?;
            pairs.push((q, ranks.first().copied().flatten(), points));
        }
    }
    Ok(match best_reaching(&pairs, want) {
        Some(best) => (Some(best), None),
        None => (None, Some(format!("no par: no one or two of the passage's words score {want} or more points"))),
    })
}

/// The highest-scoring question reaching `want` points (the first tried among equals).
fn best_reaching(tried: &[(String, Option<usize>, u32)], want: u32) -> Option<Par> {
    let mut best: Option<&(String, Option<usize>, u32)> = None;
    for t in tried.iter().filter(|t| t.2 >= want) {
        if best.is_none_or(|b| t.2 > b.2) {
            best = Some(t);
        }
    }
    best.map(|(q, rank, points)| Par {
        question: q.clone(),
        words: q.split_whitespace().count(),
        rank: *rank,
        points: *points,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::analysis::{AnalyzerConfig, Preset};

    #[test]
    fn points_fall_by_one_a_place_and_stop_past_the_top_ten() {
        let got: Vec<u32> = [None, Some(0), Some(1), Some(2), Some(9), Some(10), Some(11), Some(1000)]
            .into_iter()
            .map(points_at)
            .collect();
        assert_eq!(got, vec![0, 0, 10, 9, 2, 1, 0, 0]);
    }

    #[test]
    fn the_two_rounds_that_set_bm25_against_dense_choose_their_methods() {
        use MethodKind::{Bm25, Dense, Splade};
        let chooses: Vec<bool> = ROUNDS.iter().map(|r| r.lets_choose_method()).collect();
        assert_eq!(chooses, vec![true, true, false, false, true]);
        assert_eq!(Round::Bm25NotDense.methods(Splade), vec![Bm25, Dense]);
        assert_eq!(Round::DenseNotBm25.methods(Splade), vec![Dense, Bm25]);
        assert_eq!(Round::DenseNotBm25.scoring_method(Splade), Dense);
        assert_eq!(Round::FewestWords.scoring_method(Splade), Splade);
        assert_eq!(crate::compare::fixes::rank_text(Some(7)), "rank 7");
        assert_eq!(crate::compare::fixes::rank_text(None), "not in the first 1,000");
    }

    #[test]
    fn every_round_parses_from_its_id_and_an_unknown_one_is_named() {
        for r in ROUNDS {
            assert_eq!(Round::parse(r.id()).ok(), Some(r));
        }
        let e = Round::parse("bm25").err().map(|e| e.to_string()).unwrap_or_default();
        assert!(e.contains("\"bm25\"") && e.contains("no-shared-word"), "{e}");
    }

    #[test]
    fn shared_words_are_compared_after_the_analyzer() {
        let english = Analyzer::new(AnalyzerConfig::preset(Preset::English));
        let passage = "Conflicts are resolved by keeping both copies of the file.";
        // "conflict" stems as "conflicts" does; "copy" as "copies"; "the" is a stop word.
        assert_eq!(shared_words(&english, "the conflict copy rule", passage), vec!["conflict", "copy"]);
        assert!(shared_words(&english, "clash duplicates", passage).is_empty());
        let whitespace = Analyzer::new(AnalyzerConfig::preset(Preset::Whitespace));
        assert!(shared_words(&whitespace, "conflict copy", passage).is_empty());
    }

    #[test]
    fn the_par_is_the_highest_scoring_of_those_reaching_the_aim_first_tried_among_equals() {
        let tried = vec![
            ("sync".to_string(), Some(4), 7),
            ("token".to_string(), Some(2), 9),
            ("expired".to_string(), Some(2), 9),
            ("files".to_string(), None, 0),
        ];
        assert_eq!(best_reaching(&tried, 10), None);
        let par = best_reaching(&tried, 8);
        assert_eq!(par.map(|p| (p.question, p.points, p.rank)), Some(("token".to_string(), 9, Some(2))));
        assert_eq!(best_reaching(&tried, 1).map(|p| p.question), Some("token".into()));
    }
}
