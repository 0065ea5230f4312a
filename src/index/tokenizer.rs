//! Bridge from RankLens analyzers to tantivy's tokenizer API, so the index and the query side
//! tokenise with exactly the same code.

use tantivy::tokenizer::{Token, TokenStream, Tokenizer};

use crate::analysis::{Analyzer, StemCache};

/// The name the analyzer is registered under in each index.
pub const TOKENIZER_NAME: &str = "ranklens";

/// A tantivy tokenizer that runs a RankLens [`Analyzer`].
#[derive(Clone)]
pub struct AnalyzerTokenizer {
    analyzer: Analyzer,
    token: Token,
    /// Stems seen so far: a corpus has far fewer distinct words than tokens.
    stems: StemCache,
}

impl AnalyzerTokenizer {
    /// Wrap an analyzer.
    pub fn new(analyzer: Analyzer) -> Self {
        Self { analyzer, token: Token::default(), stems: StemCache::new() }
    }
}

/// The analysed tokens of one text, handed out one by one.
pub struct AnalyzerTokenStream<'a> {
    tokens: std::vec::IntoIter<crate::analysis::AnalyzedToken>,
    token: &'a mut Token,
}

impl Tokenizer for AnalyzerTokenizer {
    type TokenStream<'a> = AnalyzerTokenStream<'a>;

    fn token_stream<'a>(&'a mut self, text: &'a str) -> AnalyzerTokenStream<'a> {
        self.token.reset();
        let tokens = self.analyzer.tokens_cached(text, &mut self.stems);
        AnalyzerTokenStream { tokens: tokens.into_iter(), token: &mut self.token }
    }
}

impl TokenStream for AnalyzerTokenStream<'_> {
    fn advance(&mut self) -> bool {
        match self.tokens.next() {
            Some(t) => {
                self.token.text = t.text;
                self.token.position = t.position;
                self.token.offset_from = t.offset_from;
                self.token.offset_to = t.offset_to;
                self.token.position_length = 1;
                true
            }
            None => false,
        }
    }

    fn token(&self) -> &Token {
        self.token
    }

    fn token_mut(&mut self) -> &mut Token {
        self.token
    }
}
