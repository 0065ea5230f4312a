//! One text through every analyzer: the tokens side by side (piece by piece, so what each one
//! changes is in one row), and how the question's BM25 ranking changes with each.

use serde::Serialize;

use crate::Result;
use crate::analysis::{Analyzer, AnalyzerConfig, Preset};
use crate::config::Settings;
use crate::progress::Progress;
use crate::retrieve::QueryContext;
use crate::workbench::{SparseSpec, Workbench};

/// The analyzers compared: whitespace, standard, standard with stop words, english, english
/// without stop words.
pub fn analyzers() -> [AnalyzerConfig; 5] {
    [
        AnalyzerConfig::preset(Preset::Whitespace),
        AnalyzerConfig::preset(Preset::Standard),
        AnalyzerConfig::preset(Preset::Standard).with_stopwords(true),
        AnalyzerConfig::preset(Preset::English),
        AnalyzerConfig::preset(Preset::English).with_stopwords(false),
    ]
}

/// One piece of the text (split at white space) and what each analyzer makes of it.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct PieceRow {
    /// The piece as written.
    pub piece: String,
    /// Per analyzer (same order as [`AnalyzerComparison::analyzers`]): its terms, empty when
    /// the piece is dropped (a stop word, punctuation).
    pub terms: Vec<Vec<String>>,
    /// Do the analyzers disagree on this piece?
    pub differs: bool,
}

/// One analyzer's BM25 ranking of the question.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct AnalyzerRanking {
    /// The analyzer.
    pub analyzer: String,
    /// The question's terms under it.
    pub question_terms: Vec<String>,
    /// The top passages (id, score).
    pub top: Vec<(String, f64)>,
    /// Where the first analyzer's first passage ranks under this one.
    pub rank_of_reference: Option<usize>,
}

/// The whole comparison.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct AnalyzerComparison {
    /// The text analysed.
    pub text: String,
    /// The analyzers, by name.
    pub analyzers: Vec<String>,
    /// Every analyzer's terms of the whole text.
    pub terms: Vec<Vec<String>>,
    /// Piece by piece.
    pub pieces: Vec<PieceRow>,
    /// The question ranked by BM25 under each analyzer (the reference: the settings' analyzer).
    pub rankings: Vec<AnalyzerRanking>,
}

/// Analyse `text` with every analyzer, and rank `question` by BM25 (the settings' variant and
/// parameters) under each, `k` passages.
pub fn compare_analyzers(
    workbench: &Workbench,
    settings: &Settings,
    text: &str,
    question: &str,
    k: usize,
    progress: &dyn Progress,
) -> Result<AnalyzerComparison> {
    let configs = analyzers();
    let analysers: Vec<Analyzer> = configs.iter().map(|c| Analyzer::new(*c)).collect();
    let pieces = text
        .split_whitespace()
        .map(|piece| {
            let terms: Vec<Vec<String>> = analysers.iter().map(|a| a.terms(piece)).collect();
            let differs = terms.windows(2).any(|w| w[0] != w[1]);
            PieceRow { piece: piece.to_string(), terms, differs }
        })
        .collect();
    let mut rankings = Vec::new();
    let corpus = workbench.corpus();
    let mut reference: Option<String> = None;
    // The settings' analyzer first: the others are compared with it.
    let mut order: Vec<AnalyzerConfig> = vec![settings.analyzer];
    order.extend(configs.iter().copied().filter(|c| *c != settings.analyzer));
    if !question.trim().is_empty() {
        progress.stage("ranking the question under each analyzer", order.len() as u64);
        for config in order {
            crate::progress::check_cancel(progress)?;
            let r = workbench.sparse(SparseSpec::bm25(settings.bm25_variant, settings.bm25), config, progress)?;
            let all = r.search(&QueryContext::new(question), corpus.len())?;
            let top: Vec<(String, f64)> =
                all.hits.iter().take(k).map(|h| (corpus.external_id(h.doc).to_string(), h.score)).collect();
            if reference.is_none() {
                reference = top.first().map(|t| t.0.clone());
            }
            let rank_of_reference = reference
                .as_ref()
                .and_then(|id| all.hits.iter().position(|h| corpus.external_id(h.doc) == id.as_str()))
                .map(|p| p + 1);
            rankings.push(AnalyzerRanking {
                analyzer: config.to_string(),
                question_terms: Analyzer::new(config).terms(question),
                top,
                rank_of_reference,
            });
            progress.advance(1);
        }
    }
    Ok(AnalyzerComparison {
        text: text.to_string(),
        analyzers: configs.iter().map(ToString::to_string).collect(),
        terms: analysers.iter().map(|a| a.terms(text)).collect(),
        pieces,
        rankings,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_analyzer_changes_what_it_should() {
        let e = Workbench::new(crate::corpus::Corpus::from_texts(
            "t",
            [("a", "The tokens expired."), ("b", "token expiry dates"), ("c", "nothing here")],
        ));
        let c = compare_analyzers(
            &e,
            &Settings::default(),
            "The user's tokens EXPIRED.",
            "tokens expired",
            3,
            &crate::progress::NoProgress,
        )
        .unwrap();
        assert_eq!(c.analyzers, ["whitespace", "standard", "standard+stop", "english", "english-nostop"]);
        let row = |p: &str| c.pieces.iter().find(|r| r.piece == p).unwrap();
        // `The`: kept by whitespace and standard, dropped by both stop lists.
        assert_eq!(row("The").terms, [vec!["the"], vec!["the"], vec![], vec![], vec!["the"]]);
        // `user's`: the possessive is English's to remove, and Porter stems it.
        assert_eq!(row("user's").terms[3], ["user"]);
        // `EXPIRED.`: lower-cased by all; the full stop stripped; Porter's stem `expir`.
        assert_eq!(
            row("EXPIRED.").terms,
            [vec!["expired"], vec!["expired"], vec!["expired"], vec!["expir"], vec!["expir"]]
        );
        assert!(row("EXPIRED.").differs && row("The").differs);
        // Under english the question's terms are stems: `token` also matches b.
        let english = c.rankings.iter().find(|r| r.analyzer == "english").unwrap();
        assert_eq!(english.question_terms, ["token", "expir"]);
        assert_eq!(english.top.first().map(|t| t.0.as_str()), Some("a"));
        let ws = c.rankings.iter().find(|r| r.analyzer == "whitespace").unwrap();
        // Whitespace keeps the words as written (lower-cased): only a holds `tokens`.
        assert_eq!(ws.question_terms, ["tokens", "expired"]);
        assert_eq!(ws.top.len(), 1, "only `a` holds `tokens` or `expired` as written");
        assert_eq!(english.top.len(), 2, "english matches `token` in b as well");
    }
}
