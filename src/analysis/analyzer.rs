//! The analyzer: a preset's tokeniser, lower-casing, stop list and stemmer, run over a text into
//! the terms an index holds and a question asks for, each with where it came from.

use std::collections::HashMap;
use std::fmt;
use std::str::FromStr;
use std::sync::Arc;

use serde::{Deserialize, Serialize};
use unicode_segmentation::UnicodeSegmentation;

use super::porter::stem as porter_stem;
use super::stopwords::{GENERAL_ENGLISH, LUCENE_ENGLISH};

/// A named tokenisation recipe.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize, PartialOrd, Ord)]
#[serde(rename_all = "lowercase")]
pub enum Preset {
    /// Lower-case, split on whitespace, strip surrounding punctuation: the textbook examples' tokens.
    Whitespace,
    /// Unicode words (UAX #29), lower-cased.
    Standard,
    /// Lucene's `EnglishAnalyzer`, which is also Anserini's default (`DefaultEnglishAnalyzer`):
    /// Lucene's `StandardTokenizer` (UAX #29 words, emoji kept, runs of Thai, Lao, Khmer or
    /// Myanmar letters whole, words cut at 255 UTF-16 units), the possessive and lower-case
    /// filters, Lucene's 33 English stop words and the Porter stemmer. Checked term for term
    /// against Lucene 9.9.1 on SciFact, Cranfield and Vaswani (`tests/lucene_reference.rs`).
    /// Also accepted as `anserini` and `lucene`.
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
        let s = match s {
            "anserini" | "lucene" => "english",
            other => other,
        };
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
            Preset::Standard | Preset::English => {
                let mut out = Vec::new();
                // Lucene keeps a run of Thai, Lao, Khmer or Myanmar letters (line-break class SA)
                // as one token, where UAX #29 alone breaks between each letter.
                let mut run: Option<(usize, usize)> = None;
                for (offset, segment) in text.split_word_bound_indices() {
                    if segment.chars().all(complex_context) {
                        run = match run {
                            Some((start, end)) if end == offset => Some((start, offset + segment.len())),
                            _ => {
                                if let Some((start, end)) = run {
                                    push_max_length(&mut out, start, &text[start..end]);
                                }
                                Some((offset, offset + segment.len()))
                            }
                        };
                        continue;
                    }
                    if let Some((start, end)) = run.take() {
                        push_max_length(&mut out, start, &text[start..end]);
                    }
                    let emoji = segment.chars().next().is_some_and(starts_emoji);
                    if emoji || segment.chars().any(is_word_char) {
                        push_max_length(&mut out, offset, segment);
                    }
                }
                if let Some((start, end)) = run {
                    push_max_length(&mut out, start, &text[start..end]);
                }
                out
            }
        }
    }
}

/// Lucene's `StandardTokenizer` keeps a token of at most this many UTF-16 units and cuts longer
/// words into pieces of this length (its default `maxTokenLength`).
pub const MAX_TOKEN_LENGTH: usize = 255;

/// Whether a word-break segment starting with `c` is an emoji, which Lucene's
/// `StandardTokenizer` keeps as a token (`<EMOJI>`: ©, ®, ™, ☕, 👍🏽, flags) though it holds no
/// letter. The ASCII emoji characters (digits, `#`, `*`) are words or punctuation there.
fn starts_emoji(c: char) -> bool {
    use unicode_properties::UnicodeEmoji;
    !c.is_ascii() && c.is_emoji_char()
}

/// Whether a segment holding `c` is a word to Lucene's `StandardTokenizer`: a letter (Unicode's
/// Alphabetic, which covers ideographs and letter numbers such as Ⅻ) or a decimal digit. Other
/// numbers (², ¼, ₁) are not, though Rust's `is_alphanumeric` says they are.
fn is_word_char(c: char) -> bool {
    use unicode_properties::{GeneralCategory, UnicodeGeneralCategory};
    c.is_alphabetic() || c.is_ascii_digit() || (!c.is_ascii() && c.general_category() == GeneralCategory::DecimalNumber)
}

/// Letters of the scripts written without spaces between words that Lucene's
/// `StandardTokenizer` keeps whole (line-break class SA: Thai, Lao, Myanmar, Khmer, the Tai
/// scripts), with the marks that combine with them.
fn complex_context(c: char) -> bool {
    matches!(u32::from(c),
        0x0E01..=0x0E3A | 0x0E40..=0x0E4E | 0x0E81..=0x0EDF | 0x1000..=0x103F | 0x1050..=0x108F
        | 0x109A..=0x109F | 0x1780..=0x17D3 | 0x17D7 | 0x17DC..=0x17DD | 0x1950..=0x19DA | 0x19DE..=0x19DF
        | 0x1A20..=0x1A5E | 0x1A60..=0x1A7C | 0x1AA0..=0x1AAD | 0xA9E0..=0xA9EF | 0xA9FA..=0xA9FE
        | 0xAA60..=0xAAC2 | 0xAADB..=0xAADF)
}

/// Push a segment, cut into pieces of at most [`MAX_TOKEN_LENGTH`] UTF-16 units.
fn push_max_length<'a>(out: &mut Vec<(usize, &'a str)>, offset: usize, segment: &'a str) {
    // A UTF-8 byte never stands for more than one UTF-16 unit.
    if segment.len() <= MAX_TOKEN_LENGTH {
        out.push((offset, segment));
        return;
    }
    let (mut start, mut units) = (0, 0);
    for (i, c) in segment.char_indices() {
        if units + c.len_utf16() > MAX_TOKEN_LENGTH {
            out.push((offset + start, &segment[start..i]));
            (start, units) = (i, 0);
        }
        units += c.len_utf16();
    }
    out.push((offset + start, &segment[start..]));
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
    fn anserini_and_lucene_name_the_english_analyzer() {
        for name in ["anserini", "lucene", "english"] {
            assert_eq!(name.parse::<AnalyzerConfig>().expect("parses"), AnalyzerConfig::preset(Preset::English));
        }
        assert!("anserini2".parse::<AnalyzerConfig>().is_err());
    }

    #[test]
    fn long_words_are_cut_where_lucene_cuts_them_and_keep_their_offsets() {
        // 300 letters, then a word: Lucene's StandardTokenizer gives 255 + 45 + 1 tokens.
        let text = format!("{} end", "é".repeat(300));
        let a = Analyzer::new(AnalyzerConfig::preset(Preset::Standard));
        let toks = a.tokens(&text);
        let lens: Vec<usize> = toks.iter().map(|t| t.text.chars().count()).collect();
        assert_eq!(lens, [255, 45, 3]);
        for t in &toks {
            assert_eq!(text[t.offset_from..t.offset_to].to_lowercase(), t.text);
        }
        assert_eq!(toks.iter().map(|t| t.position).collect::<Vec<_>>(), [0, 1, 2]);
    }

    #[test]
    fn emoji_are_terms_and_lone_superscripts_are_not() {
        let c = AnalyzerConfig::preset(Preset::Standard);
        assert_eq!(terms(c, "© 2016 AACR ² ¼ ☕"), ["©", "2016", "aacr", "☕"]);
        // A Thai run is one term, as Lucene keeps it (no dictionary to split it).
        assert_eq!(terms(c, "ภาษาไทย ok"), ["ภาษาไทย", "ok"]);
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
