//! Text analysis: the named presets that turn text into index terms.
//!
//! Every explanation names the analyzer that produced its terms, because "why did BM25 miss this
//! passage?" is often answered by the analyzer, not the formula.

mod porter;
mod stopwords;

use std::collections::HashMap;
use std::fmt;
use std::str::FromStr;
use std::sync::Arc;

use serde::{Deserialize, Serialize};
use unicode_segmentation::UnicodeSegmentation;

pub use porter::stem as porter_stem;
pub use stopwords::{GENERAL_ENGLISH, LUCENE_ENGLISH};

/// A named tokenisation recipe.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize, PartialOrd, Ord)]
#[serde(rename_all = "lowercase")]
pub enum Preset {
    /// Lower-case, split on whitespace, strip surrounding punctuation: the textbook examples' tokens.
    Whitespace,
    /// Unicode words (UAX #29), lower-cased.
    Standard,
    /// Standard + possessive removal + Lucene's English stop words + Porter stemming (Lucene's
    /// `EnglishAnalyzer`, the one Anserini's BM25 figures use).
    English,
}

impl Preset {
    /// Every preset, in menu order.
    pub const ALL: [Preset; 3] = [Preset::Whitespace, Preset::Standard, Preset::English];

    /// The name used on the command line, in settings and in explanations.
    pub fn name(self) -> &'static str {
        match self {
            Preset::Whitespace => "whitespace",
            Preset::Standard => "standard",
            Preset::English => "english",
        }
    }

    /// Whether this preset removes stop words unless told otherwise.
    pub fn default_stopwords(self) -> bool {
        matches!(self, Preset::English)
    }
}

impl FromStr for Preset {
    type Err = crate::Error;
    fn from_str(s: &str) -> crate::Result<Self> {
        Preset::ALL.into_iter().find(|p| p.name() == s).ok_or_else(|| {
            crate::Error::invalid("analyzer", format!("unknown analyzer {s:?}; choose whitespace, standard or english"))
        })
    }
}

/// An analyzer choice: a preset plus whether stop words are removed.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize, PartialOrd, Ord)]
pub struct AnalyzerConfig {
    /// The tokenisation recipe.
    pub preset: Preset,
    /// Remove stop words (Lucene's list for `english`, NLTK's for the others).
    pub stopwords: bool,
}

impl AnalyzerConfig {
    /// A preset with its default stop-word setting.
    pub fn preset(preset: Preset) -> Self {
        Self { preset, stopwords: preset.default_stopwords() }
    }

    /// The preset with stop-word removal set explicitly.
    pub fn with_stopwords(self, stopwords: bool) -> Self {
        Self { stopwords, ..self }
    }
}

impl Default for AnalyzerConfig {
    fn default() -> Self {
        Self::preset(Preset::English)
    }
}

impl fmt::Display for AnalyzerConfig {
    /// `english`, `whitespace+stop`, `english-nostop`: the preset name plus any departure from its
    /// default stop-word setting.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match (self.stopwords, self.preset.default_stopwords()) {
            (true, false) => write!(f, "{}+stop", self.preset.name()),
            (false, true) => write!(f, "{}-nostop", self.preset.name()),
            _ => write!(f, "{}", self.preset.name()),
        }
    }
}

impl FromStr for AnalyzerConfig {
    type Err = crate::Error;
    fn from_str(s: &str) -> crate::Result<Self> {
        if let Some(p) = s.strip_suffix("+stop") {
            return Ok(AnalyzerConfig::preset(p.parse()?).with_stopwords(true));
        }
        if let Some(p) = s.strip_suffix("-nostop") {
            return Ok(AnalyzerConfig::preset(p.parse()?).with_stopwords(false));
        }
        Ok(AnalyzerConfig::preset(s.parse()?))
    }
}

/// One term produced by analysis, with where it came from.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct AnalyzedToken {
    /// The index term.
    pub text: String,
    /// Position in the token stream before stop-word removal (so phrases keep their gaps).
    pub position: usize,
    /// Byte offsets of the original word in the input.
    pub offset_from: usize,
    /// Byte offset one past the end of the original word.
    pub offset_to: usize,
}

/// Word → stem memo, for analysing many documents: a corpus has far fewer distinct words than
/// tokens, so indexing stems each word once.
pub type StemCache = HashMap<String, String>;

/// A ready-to-use analyzer. Cheap to clone.
#[derive(Debug, Clone)]
pub struct Analyzer {
    config: AnalyzerConfig,
    /// Sorted, for binary search (faster than hashing for lists this small).
    stop: Arc<Vec<&'static str>>,
}

impl Analyzer {
    /// Build the analyzer for a configuration.
    pub fn new(config: AnalyzerConfig) -> Self {
        let list: &[&'static str] = match (config.stopwords, config.preset) {
            (false, _) => &[],
            (true, Preset::English) => LUCENE_ENGLISH,
            (true, _) => GENERAL_ENGLISH,
        };
        let mut stop: Vec<&'static str> = list.to_vec();
        stop.sort_unstable();
        stop.dedup();
        Self { config, stop: Arc::new(stop) }
    }

    /// The configuration this analyzer implements.
    pub fn config(&self) -> AnalyzerConfig {
        self.config
    }

    /// Is `word` (already lower-cased) a stop word for this analyzer?
    pub fn is_stopword(&self, word: &str) -> bool {
        self.stop.binary_search(&word).is_ok()
    }

    /// The terms of `text`, in order.
    pub fn terms(&self, text: &str) -> Vec<String> {
        self.tokens(text).into_iter().map(|t| t.text).collect()
    }

    /// The tokens of `text` with positions and offsets.
    pub fn tokens(&self, text: &str) -> Vec<AnalyzedToken> {
        self.analyse(text, None)
    }

    /// As [`Analyzer::tokens`], remembering stems in `cache` across calls.
    pub fn tokens_cached(&self, text: &str, cache: &mut StemCache) -> Vec<AnalyzedToken> {
        self.analyse(text, Some(cache))
    }

    fn analyse(&self, text: &str, mut cache: Option<&mut StemCache>) -> Vec<AnalyzedToken> {
        let mut out = Vec::new();
        let english = self.config.preset == Preset::English;
        for (position, (offset_from, word)) in self.words(text).into_iter().enumerate() {
            let mut term = if word.is_ascii() { word.to_ascii_lowercase() } else { word.to_lowercase() };
            if english {
                strip_possessive(&mut term);
            }
            if term.is_empty() || self.is_stopword(&term) {
                continue;
            }
            if english {
                term = match cache.as_deref_mut() {
                    Some(c) => match c.get(&term) {
                        Some(stem) => stem.clone(),
                        None => {
                            let stem = porter_stem(&term);
                            c.insert(term, stem.clone());
                            stem
                        }
                    },
                    None => porter_stem(&term),
                };
            }
            out.push(AnalyzedToken { text: term, position, offset_from, offset_to: offset_from + word.len() });
        }
        out
    }

    /// Split into (byte offset, word) before any normalisation.
    fn words<'a>(&self, text: &'a str) -> Vec<(usize, &'a str)> {
        match self.config.preset {
            Preset::Whitespace => text
                .split_whitespace()
                .filter_map(|w| {
                    let trimmed = w.trim_matches(|c: char| !c.is_alphanumeric());
                    if trimmed.is_empty() {
                        return None;
                    }
                    // Offset of `trimmed` inside `text`: both are slices of the same string.
                    let offset = trimmed.as_ptr() as usize - text.as_ptr() as usize;
                    Some((offset, trimmed))
                })
                .collect(),
            Preset::Standard | Preset::English => text.unicode_word_indices().collect(),
        }
    }
}

/// Lucene's `EnglishPossessiveFilter`: drop a trailing `'s` (straight, curly or full-width quote).
fn strip_possessive(term: &mut String) {
    for suffix in ["'s", "\u{2019}s", "\u{FF07}s"] {
        if term.ends_with(suffix) {
            term.truncate(term.len() - suffix.len());
            return;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn terms(config: AnalyzerConfig, text: &str) -> Vec<String> {
        Analyzer::new(config).terms(text)
    }

    #[test]
    fn whitespace_strips_surrounding_punctuation_only() {
        let c = AnalyzerConfig::preset(Preset::Whitespace);
        assert_eq!(terms(c, "What is E140?"), ["what", "is", "e140"]);
        assert_eq!(terms(c, "(e2e-encrypt) loads, v4.2."), ["e2e-encrypt", "loads", "v4.2"]);
        assert_eq!(terms(c, " -- "), Vec::<String>::new());
    }

    #[test]
    fn whitespace_with_stopwords_removes_question_words() {
        let c = AnalyzerConfig::preset(Preset::Whitespace).with_stopwords(true);
        assert_eq!(terms(c, "Which mission explored the Red Planet?"), ["mission", "explored", "red", "planet"]);
    }

    #[test]
    fn standard_splits_unicode_words() {
        let c = AnalyzerConfig::preset(Preset::Standard);
        assert_eq!(
            terms(c, "The e2e-encrypt plugin, Café's 4.2!"),
            ["the", "e2e", "encrypt", "plugin", "café's", "4.2"]
        );
    }

    #[test]
    fn english_stems_and_drops_lucene_stopwords_and_possessives() {
        let c = AnalyzerConfig::preset(Preset::English);
        assert_eq!(terms(c, "The patient's caches are expiring"), ["patient", "cach", "expir"]);
        // "which" is not in Lucene's list, so it stays (stemmed form of itself).
        assert_eq!(terms(c, "which"), ["which"]);
    }

    #[test]
    fn positions_keep_gaps_for_removed_stopwords() {
        let a = Analyzer::new(AnalyzerConfig::preset(Preset::English));
        let toks = a.tokens("sign in again");
        assert_eq!(toks.iter().map(|t| t.position).collect::<Vec<_>>(), [0, 2]);
        assert_eq!(&"sign in again"[toks[1].offset_from..toks[1].offset_to], "again");
    }

    #[test]
    fn config_names_round_trip() {
        for s in ["english", "whitespace", "standard+stop", "english-nostop", "whitespace+stop"] {
            let c: AnalyzerConfig = s.parse().expect("valid name");
            assert_eq!(c.to_string(), s);
        }
        assert!("klingon".parse::<AnalyzerConfig>().is_err());
    }

    /// Text from the corners of Unicode, and UTF-16 with lone surrogates as a JSON `\ud800`
    /// escape would carry them (decoded the lossy way).
    fn hostile() -> impl proptest::strategy::Strategy<Value = String> {
        use proptest::prelude::*;
        let piece = prop_oneof![
            prop::sample::select(vec![
                "e\u{301}",
                "\u{202e}evil\u{202c}",
                "שלום",
                "مرحبا",
                "👩\u{200d}👩\u{200d}👧",
                "\u{0}",
                "\u{feff}",
                "İstanbul",
                "STRASSE",
                "straße",
                "ﬁnally",
                "ǅemal",
                "Σίσυφος",
                "running's",
                "dog\u{2019}s",
                "ＡＢＣ",
                "x\u{fe0f}",
                "\u{e000}",
                "123.45",
                "e-mail",
                "C++",
                "i18n",
            ])
            .prop_map(str::to_string),
            "\\PC{1,10}",
            any::<String>(),
            prop::collection::vec(any::<u16>(), 0..12).prop_map(|u| String::from_utf16_lossy(&u)),
        ];
        prop::collection::vec(piece, 0..10).prop_map(|p| p.join(" "))
    }

    proptest::proptest! {
        #![proptest_config(proptest::prelude::ProptestConfig::with_cases(crate::proptest_cases()))]

        /// Every analyzer on any text: no panic; the same terms every time, from a fresh analyzer
        /// or a warm stem cache; offsets cut the text at character boundaries around the word;
        /// positions increase.
        #[test]
        fn analyzers_are_total_and_deterministic(text in hostile(), preset in 0usize..3, stop in proptest::prelude::any::<bool>()) {
            let config = AnalyzerConfig::preset(Preset::ALL[preset]).with_stopwords(stop);
            let a = Analyzer::new(config);
            let tokens = a.tokens(&text);
            proptest::prop_assert_eq!(&Analyzer::new(config).tokens(&text), &tokens);
            let mut cache = StemCache::new();
            a.tokens_cached(&text, &mut cache);
            proptest::prop_assert_eq!(&a.tokens_cached(&text, &mut cache), &tokens);
            let mut last = None;
            for t in &tokens {
                proptest::prop_assert!(!t.text.is_empty());
                proptest::prop_assert!(text.get(t.offset_from..t.offset_to).is_some_and(|w| !w.is_empty()));
                proptest::prop_assert!(last.is_none_or(|p| t.position > p));
                last = Some(t.position);
            }
        }

        /// The whitespace analyzer is the textbook recipe, written again here.
        #[test]
        fn whitespace_terms_are_the_textbook_recipe(text in hostile()) {
            let want: Vec<String> = text
                .split_whitespace()
                .map(|w| w.trim_matches(|c: char| !c.is_alphanumeric()).to_lowercase())
                .filter(|w| !w.is_empty())
                .collect();
            proptest::prop_assert_eq!(terms(AnalyzerConfig::preset(Preset::Whitespace).with_stopwords(false), &text), want);
        }
    }
}
