//! Boolean retrieval: exact set logic with AND, OR, NOT, parentheses and quoted phrases.
//!
//! Adjacent clauses without an operator are joined with AND, as in the textbook model. Words are
//! analysed with the index's analyzer, so a stop word vanishes from the query (and the explanation
//! says so) and a word that analyses to several terms becomes a phrase.
//!
//! A query is bounded so that no input can exhaust the stack or the memory: at most
//! [`MAX_QUERY_BYTES`] long, [`MAX_NESTING`] levels of parentheses and NOTs deep, and
//! [`MAX_CLAUSES`] words and phrases. `a AND b AND c` is one n-ary AND, so a long flat query stays
//! shallow. Each limit is far beyond a query a person writes; hitting one is an error naming it
//! and the character where it was hit.

use std::collections::BTreeSet;
use std::sync::Arc;

use super::{
    ClauseMatch, ClauseNode, ClauseOp, Detail, Explanation, Hit, MethodKind, Prepared, QueryContext, Ranking, Retriever,
};
use crate::corpus::DocId;
use crate::index::SparseIndex;
use crate::{Error, Result};

/// The longest query, in bytes.
pub const MAX_QUERY_BYTES: usize = 1 << 20;
/// The deepest nesting of parentheses and NOTs.
pub const MAX_NESTING: usize = 100;
/// The most words and phrases in one query.
pub const MAX_CLAUSES: usize = 10_000;

/// A parsed Boolean query.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum BooleanQuery {
    /// A single word as typed.
    Term(String),
    /// Words that must appear consecutively.
    Phrase(Vec<String>),
    /// All of two or more clauses.
    And(Vec<BooleanQuery>),
    /// Any of two or more clauses.
    Or(Vec<BooleanQuery>),
    /// Not the inner query.
    Not(Box<BooleanQuery>),
}

#[derive(Debug, Clone, PartialEq)]
enum Tok {
    Word(String),
    Phrase(Vec<String>),
    And,
    Or,
    Not,
    Open,
    Close,
}

/// The character (1-based) at a byte offset, for messages.
fn char_at(input: &str, byte: usize) -> usize {
    input.get(..byte).map_or(0, |s| s.chars().count()) + 1
}

/// Tokens with the byte offset each starts at.
fn lex(input: &str) -> Result<Vec<(Tok, usize)>> {
    if input.len() > MAX_QUERY_BYTES {
        return Err(Error::Query(format!(
            "the query is {} bytes long; the limit is {MAX_QUERY_BYTES} (a megabyte)",
            input.len()
        )));
    }
    let mut out = Vec::new();
    let at = |byte: usize| byte;
    let mut chars = input.char_indices().peekable();
    while let Some(&(i, c)) = chars.peek() {
        if c.is_whitespace() {
            chars.next();
        } else if c == '(' {
            out.push((Tok::Open, at(i)));
            chars.next();
        } else if c == ')' {
            out.push((Tok::Close, at(i)));
            chars.next();
        } else if c == '"' {
            chars.next();
            let start = i + 1;
            let mut end = None;
            for (j, d) in chars.by_ref() {
                if d == '"' {
                    end = Some(j);
                    break;
                }
            }
            let Some(end) = end else {
                return Err(Error::Query(format!("unclosed quote starting at character {}", char_at(input, i))));
            };
            out.push((Tok::Phrase(input[start..end].split_whitespace().map(str::to_string).collect()), at(i)));
        } else {
            let start = i;
            let mut end = input.len();
            while let Some(&(j, d)) = chars.peek() {
                if d.is_whitespace() || d == '(' || d == ')' || d == '"' {
                    end = j;
                    break;
                }
                chars.next();
            }
            let word = &input[start..end];
            let tok = match word {
                "AND" | "&&" => Tok::And,
                "OR" | "||" => Tok::Or,
                "NOT" | "-" => Tok::Not,
                w => Tok::Word(w.to_string()),
            };
            out.push((tok, at(start)));
        }
    }
    Ok(out)
}

struct Parser<'a> {
    input: &'a str,
    toks: Vec<(Tok, usize)>,
    pos: usize,
    /// Parentheses and NOTs open around the current position.
    depth: usize,
    /// Words and phrases read so far.
    clauses: usize,
}

impl Parser<'_> {
    fn peek(&self) -> Option<&Tok> {
        self.toks.get(self.pos).map(|(t, _)| t)
    }

    /// Go one level deeper at token `tok` (a parenthesis or a NOT), refusing past the limit.
    fn descend(&mut self, tok: usize) -> Result<()> {
        self.depth += 1;
        if self.depth > MAX_NESTING {
            let byte = self.toks.get(tok).map_or(0, |(_, b)| *b);
            return Err(Error::Query(format!(
                "the query nests more than {MAX_NESTING} levels of parentheses and NOTs (at character {}); \
                 write it flatter",
                char_at(self.input, byte)
            )));
        }
        Ok(())
    }

    fn or(&mut self) -> Result<BooleanQuery> {
        let mut parts = vec![self.and()?];
        while self.peek() == Some(&Tok::Or) {
            self.pos += 1;
            parts.push(self.and()?);
        }
        Ok(if parts.len() == 1 { parts.remove(0) } else { BooleanQuery::Or(parts) })
    }

    fn and(&mut self) -> Result<BooleanQuery> {
        let mut parts = vec![self.not()?];
        loop {
            match self.peek() {
                Some(Tok::And) => {
                    self.pos += 1;
                }
                Some(Tok::Word(_) | Tok::Phrase(_) | Tok::Not | Tok::Open) => {}
                _ => break,
            }
            parts.push(self.not()?);
        }
        Ok(if parts.len() == 1 { parts.remove(0) } else { BooleanQuery::And(parts) })
    }

    fn not(&mut self) -> Result<BooleanQuery> {
        if self.peek() == Some(&Tok::Not) {
            self.descend(self.pos)?;
            self.pos += 1;
            let inner = self.not()?;
            self.depth -= 1;
            return Ok(BooleanQuery::Not(Box::new(inner)));
        }
        self.primary()
    }

    fn primary(&mut self) -> Result<BooleanQuery> {
        let opened = self.pos;
        let at = |p: &Self| char_at(p.input, p.toks.get(opened).map_or(0, |(_, b)| *b));
        let tok = self.peek().cloned();
        self.pos += 1;
        if matches!(tok, Some(Tok::Word(_) | Tok::Phrase(_))) {
            self.clauses += 1;
            if self.clauses > MAX_CLAUSES {
                return Err(Error::Query(format!(
                    "the query has more than {MAX_CLAUSES} words and phrases (at character {})",
                    at(self)
                )));
            }
        }
        match tok {
            Some(Tok::Word(w)) => Ok(BooleanQuery::Term(w)),
            Some(Tok::Phrase(p)) if !p.is_empty() => Ok(BooleanQuery::Phrase(p)),
            Some(Tok::Phrase(_)) => Err(Error::Query(format!("empty phrase \"\" at character {}", at(self)))),
            Some(Tok::Open) => {
                self.descend(opened)?;
                let inner = self.or()?;
                if self.peek() != Some(&Tok::Close) {
                    return Err(Error::Query(format!(
                        "missing closing parenthesis for the one at character {}",
                        at(self)
                    )));
                }
                self.pos += 1;
                self.depth -= 1;
                Ok(inner)
            }
            Some(Tok::Close) => Err(Error::Query(format!("unexpected `)` at character {}", at(self)))),
            Some(t) => Err(Error::Query(format!(
                "expected a word, phrase or `(` but found {} at character {}",
                tok_name(&t),
                at(self)
            ))),
            None => Err(Error::Query("the query ends where a word, phrase or `(` is expected".into())),
        }
    }
}

fn tok_name(t: &Tok) -> &'static str {
    match t {
        Tok::And => "AND",
        Tok::Or => "OR",
        Tok::Not => "NOT",
        Tok::Open => "(",
        Tok::Close => ")",
        Tok::Word(_) | Tok::Phrase(_) => "a word",
    }
}

impl BooleanQuery {
    /// Parse the query language. Errors say what was expected where.
    pub fn parse(input: &str) -> Result<BooleanQuery> {
        let toks = lex(input)?;
        if toks.is_empty() {
            return Err(Error::Query("the query is empty".into()));
        }
        let mut p = Parser { input, toks, pos: 0, depth: 0, clauses: 0 };
        let q = p.or()?;
        if let Some((t, at)) = p.toks.get(p.pos) {
            return Err(Error::Query(format!(
                "unexpected {} at character {}, after a complete query",
                tok_name(t),
                char_at(input, *at)
            )));
        }
        Ok(q)
    }

    /// The query written back, with every AND, OR and NOT parenthesised, so it parses back to
    /// the same tree.
    pub fn to_text(&self) -> String {
        let join = |parts: &[BooleanQuery], op: &str| {
            format!("({})", parts.iter().map(BooleanQuery::to_text).collect::<Vec<_>>().join(op))
        };
        match self {
            BooleanQuery::Term(t) => t.clone(),
            BooleanQuery::Phrase(p) => format!("\"{}\"", p.join(" ")),
            BooleanQuery::And(parts) => join(parts, " AND "),
            BooleanQuery::Or(parts) => join(parts, " OR "),
            BooleanQuery::Not(a) => format!("(NOT {})", a.to_text()),
        }
    }

    /// Leaf clauses with whether they sit under an odd number of NOTs.
    fn leaves<'a>(&'a self, negated: bool, out: &mut Vec<(&'a BooleanQuery, bool)>) {
        match self {
            BooleanQuery::Term(_) | BooleanQuery::Phrase(_) => out.push((self, negated)),
            BooleanQuery::And(parts) | BooleanQuery::Or(parts) => {
                for p in parts {
                    p.leaves(negated, out);
                }
            }
            BooleanQuery::Not(a) => a.leaves(!negated, out),
        }
    }
}

/// Exact-match retrieval: the set of documents satisfying the query, ordered by id.
#[derive(Clone)]
pub struct BooleanRetriever {
    index: Arc<SparseIndex>,
}

/// A leaf's analysed terms with their relative positions; empty when it analysed to nothing.
fn analyse_leaf(index: &SparseIndex, leaf: &BooleanQuery) -> Vec<(String, u32)> {
    let text = match leaf {
        BooleanQuery::Term(t) => t.clone(),
        BooleanQuery::Phrase(p) => p.join(" "),
        _ => return Vec::new(),
    };
    let tokens = index.analyzer().tokens(&text);
    let first = tokens.first().map(|t| t.position).unwrap_or(0);
    tokens.into_iter().map(|t| (t.text, (t.position - first) as u32)).collect()
}

/// One leaf of a prepared query: as written, whether it sits under an odd number of NOTs, its
/// analysed terms and the documents it matches (`None` when the analyzer left nothing of it).
struct Leaf {
    text: String,
    negated: bool,
    terms: Vec<(String, u32)>,
    docs: Option<BTreeSet<DocId>>,
}

/// A question prepared for Boolean retrieval: the parsed query, each leaf's documents, and the
/// matching set.
struct PreparedBoolean {
    retriever: BooleanRetriever,
    query: QueryContext,
    parsed: BooleanQuery,
    leaves: Vec<Leaf>,
    /// The matching documents, by id.
    matches: Vec<DocId>,
}

impl BooleanRetriever {
    /// Boolean retrieval over an index.
    pub fn new(index: Arc<SparseIndex>) -> Self {
        Self { index }
    }

    /// Documents matching a leaf (a term, or a phrase of analysed terms), as a sorted set.
    fn leaf_docs(&self, terms: &[(String, u32)]) -> Result<Option<BTreeSet<DocId>>> {
        let Some((first, _)) = terms.first() else {
            return Ok(None);
        };
        let mut docs: BTreeSet<DocId> = self.index.postings(first)?.into_iter().map(|(d, _)| d).collect();
        for (t, _) in &terms[1..] {
            let other: BTreeSet<DocId> = self.index.postings(t)?.into_iter().map(|(d, _)| d).collect();
            docs = docs.intersection(&other).copied().collect();
        }
        if terms.len() > 1 {
            let mut phrase = BTreeSet::new();
            for &d in &docs {
                if self.phrase_in(terms, d)? {
                    phrase.insert(d);
                }
            }
            docs = phrase;
        }
        Ok(Some(docs))
    }

    fn phrase_in(&self, terms: &[(String, u32)], doc: DocId) -> Result<bool> {
        let Some((first, _)) = terms.first() else {
            return Ok(false);
        };
        let starts = self.index.positions(first, doc)?;
        let mut rest = Vec::new();
        for (t, offset) in &terms[1..] {
            rest.push((self.index.positions(t, doc)?, *offset));
        }
        Ok(starts.iter().any(|&s| rest.iter().all(|(pos, off)| pos.binary_search(&(s + off)).is_ok())))
    }

    /// Evaluate to a set from the leaves' sets, taken in the order [`BooleanQuery::leaves`] lists
    /// them; leaves that analysed to nothing are dropped (an AND/OR with one side missing becomes
    /// the other side; a query with nothing left matches nothing).
    fn eval<'a>(
        q: &BooleanQuery,
        all: &BTreeSet<DocId>,
        leaves: &mut impl Iterator<Item = &'a Option<BTreeSet<DocId>>>,
    ) -> Option<BTreeSet<DocId>> {
        match q {
            BooleanQuery::Term(_) | BooleanQuery::Phrase(_) => leaves.next().cloned().flatten(),
            // Parts that analysed to nothing drop out; with none left, the whole does.
            BooleanQuery::And(parts) => parts
                .iter()
                .filter_map(|p| Self::eval(p, all, leaves))
                .reduce(|x, y| x.intersection(&y).copied().collect()),
            BooleanQuery::Or(parts) => {
                parts.iter().filter_map(|p| Self::eval(p, all, leaves)).reduce(|x, y| x.union(&y).copied().collect())
            }
            BooleanQuery::Not(a) => Self::eval(a, all, leaves).map(|x| all.difference(&x).copied().collect()),
        }
    }

    /// The query as `doc` meets it, node by node, with the leaves taken in the order
    /// [`BooleanQuery::leaves`] lists them (as [`Self::eval`] takes them).
    fn clause_tree<'a>(q: &BooleanQuery, doc: DocId, leaves: &mut impl Iterator<Item = &'a Leaf>) -> ClauseNode {
        let node = |op, text: &str, children: Vec<ClauseNode>| {
            let known = || children.iter().filter_map(|c| c.satisfied);
            let satisfied = match op {
                ClauseOp::And => known().reduce(|a, b| a && b),
                ClauseOp::Or => known().reduce(|a, b| a || b),
                _ => children.first().and_then(|c| c.satisfied).map(|x| !x),
            };
            ClauseNode { op, text: text.to_string(), satisfied, children }
        };
        match q {
            BooleanQuery::Term(_) | BooleanQuery::Phrase(_) => {
                let op = if matches!(q, BooleanQuery::Term(_)) { ClauseOp::Term } else { ClauseOp::Phrase };
                match leaves.next() {
                    Some(leaf) => {
                        let analysed = leaf.terms.iter().map(|(t, _)| t.as_str()).collect::<Vec<_>>().join(" ");
                        ClauseNode {
                            op,
                            text: format!("{} → {}", leaf.text, if analysed.is_empty() { "∅" } else { &analysed }),
                            satisfied: leaf.docs.as_ref().map(|d| d.contains(&doc)),
                            children: Vec::new(),
                        }
                    }
                    None => ClauseNode { op, text: q.to_text(), satisfied: None, children: Vec::new() },
                }
            }
            BooleanQuery::And(parts) => {
                node(ClauseOp::And, "AND", parts.iter().map(|p| Self::clause_tree(p, doc, leaves)).collect())
            }
            BooleanQuery::Or(parts) => {
                node(ClauseOp::Or, "OR", parts.iter().map(|p| Self::clause_tree(p, doc, leaves)).collect())
            }
            BooleanQuery::Not(a) => node(ClauseOp::Not, "NOT", vec![Self::clause_tree(a, doc, leaves)]),
        }
    }

    fn prepare_query(&self, query: &QueryContext) -> Result<PreparedBoolean> {
        let parsed = BooleanQuery::parse(query.text())?;
        let mut found = Vec::new();
        parsed.leaves(false, &mut found);
        let mut leaves = Vec::with_capacity(found.len());
        for (leaf, negated) in found {
            let terms = analyse_leaf(&self.index, leaf);
            let docs = self.leaf_docs(&terms)?;
            leaves.push(Leaf { text: leaf.to_text(), negated, terms, docs });
        }
        let all: BTreeSet<DocId> = (0..self.index.num_docs() as u32).map(DocId).collect();
        let set = Self::eval(&parsed, &all, &mut leaves.iter().map(|l| &l.docs));
        let matches = set.map(|s| s.into_iter().collect()).unwrap_or_default();
        Ok(PreparedBoolean { retriever: self.clone(), query: query.clone(), parsed, leaves, matches })
    }

    /// The exact matching set for a query, ordered by id.
    pub fn matching(&self, query: &str) -> Result<Vec<DocId>> {
        Ok(self.prepare_query(&QueryContext::new(query))?.matches)
    }
}

impl Retriever for BooleanRetriever {
    fn kind(&self) -> MethodKind {
        MethodKind::Boolean
    }

    fn label(&self) -> String {
        "Boolean".to_string()
    }

    fn prepare(&self, query: &QueryContext) -> Result<Arc<dyn Prepared>> {
        Ok(Arc::new(self.prepare_query(query)?))
    }
}

impl Prepared for PreparedBoolean {
    fn search(&self, k: usize) -> Result<Ranking> {
        let docs: Vec<DocId> = self.matches.iter().copied().filter(|d| self.query.allows(*d)).collect();
        let total_matches = docs.len();
        let hits = docs.into_iter().take(k).map(|doc| Hit { doc, score: 1.0 }).collect();
        let r = &self.retriever;
        Ok(Ranking {
            method: r.label(),
            kind: r.kind(),
            hits,
            total_matches,
            unranked: true,
            absent: Vec::new(),
            provisional: false,
            note: None,
            generated: None,
            agent: None,
        })
    }

    fn explain(&self, doc: DocId) -> Result<Explanation> {
        let r = &self.retriever;
        if !self.query.allows(doc) {
            return Ok(self.query.filtered_explanation(&r.label()));
        }
        let mut clauses = Vec::new();
        let mut dropped = Vec::new();
        for leaf in &self.leaves {
            let Some(docs) = &leaf.docs else {
                dropped.push(leaf.text.clone());
                continue;
            };
            let present = docs.contains(&doc);
            let analysed = leaf.terms.iter().map(|(t, _)| t.as_str()).collect::<Vec<_>>().join(" ");
            let not = if leaf.negated { "NOT " } else { "" };
            clauses.push(ClauseMatch {
                clause: format!("{not}{} → {analysed}", leaf.text),
                satisfied: present != leaf.negated,
            });
        }
        let matched = self.matches.binary_search(&doc).is_ok();
        let mut summary = if matched {
            format!("Satisfies {} as parsed: {}.", self.query.text().trim(), self.parsed.to_text())
        } else {
            format!("Does not satisfy {}: Boolean retrieval has no partial credit.", self.parsed.to_text())
        };
        if !dropped.is_empty() {
            summary.push_str(&format!(
                " Dropped by the `{}` analyzer: {}.",
                r.index.analyzer().config(),
                dropped.join(", ")
            ));
        }
        let mut e = Explanation::new(
            r.label(),
            if matched { 1.0 } else { 0.0 },
            "1 if the document satisfies the query, else 0 (results are an unordered set)",
            summary,
        );
        e.analyzer = Some(r.index.analyzer().config().to_string());
        let tree = BooleanRetriever::clause_tree(&self.parsed, doc, &mut self.leaves.iter());
        debug_assert_eq!(tree.satisfied.unwrap_or(false), matched);
        e.detail = Detail::Clauses { clauses, tree: Some(tree) };
        Ok(e)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::analysis::{AnalyzerConfig, Preset};
    use crate::corpus::Corpus;
    use crate::index::IndexLocation;
    use crate::progress::NoProgress;
    use proptest::prelude::*;

    const DOCS: [(&str, &str); 4] = [
        ("D1", "chandrayaan moon south pole landing twenty23"),
        ("D2", "aditya sun lagrange point solar observatory"),
        ("D3", "mangalyaan mars orbiter atmosphere mission twenty13"),
        ("D4", "pslv rocket satellites launch mission orbit"),
    ];

    fn retriever() -> BooleanRetriever {
        let corpus = Corpus::from_texts("isro", DOCS);
        let idx =
            SparseIndex::build(&corpus, AnalyzerConfig::preset(Preset::English), &IndexLocation::Ram, &NoProgress)
                .expect("builds");
        BooleanRetriever::new(Arc::new(idx))
    }

    fn ids(r: &BooleanRetriever, q: &str) -> Vec<u32> {
        r.matching(q).expect("query").into_iter().map(|d| d.0).collect()
    }

    #[test]
    fn set_logic_and_phrases() {
        let r = retriever();
        assert_eq!(ids(&r, "mission"), [2, 3]);
        assert_eq!(ids(&r, "mission AND NOT mars"), [3]);
        assert_eq!(ids(&r, "mission mars"), [2]);
        assert_eq!(ids(&r, "moon OR sun OR rocket"), [0, 1, 3]);
        assert_eq!(ids(&r, "(moon OR mars) AND NOT atmosphere"), [0]);
        assert_eq!(ids(&r, "\"orbiter atmosphere\""), [2]);
        assert_eq!(ids(&r, "\"atmosphere orbiter\""), Vec::<u32>::new());
        assert_eq!(ids(&r, "NOT mission"), [0, 1]);
        // "the" is a stop word for `english`: the AND keeps the other side.
        assert_eq!(ids(&r, "the AND rocket"), [3]);
    }

    #[test]
    fn parse_errors_are_specific() {
        for (q, msg) in [
            ("(mars", "missing closing parenthesis"),
            ("mars AND", "ends where"),
            ("\"mars", "unclosed quote"),
            ("mars )", "unexpected )"),
            ("", "empty"),
        ] {
            let err = BooleanQuery::parse(q).expect_err(q).to_string();
            assert!(err.contains(msg), "{q}: {err}");
        }
    }

    #[test]
    fn explanation_lists_clauses() {
        let r = retriever();
        let e = r.explain(&QueryContext::new("mission AND NOT mars"), DocId(2)).expect("explains");
        assert_eq!(e.value, 0.0);
        let Detail::Clauses { clauses, tree } = e.detail else { panic!("clauses") };
        let tree = tree.unwrap();
        assert_eq!(tree.evaluate(), Some(e.value == 1.0), "the tree holds exactly when the score is 1");
        assert_eq!(clauses.iter().map(|c| c.satisfied).collect::<Vec<_>>(), [true, false]);
        assert!(clauses[1].clause.starts_with("NOT mars"));
        let ranking = r.search(&QueryContext::new("mission"), 1).expect("search");
        assert_eq!(ranking.total_matches, 2);
        assert_eq!(ranking.hits.len(), 1);
        assert!(ranking.unranked);
    }

    #[test]
    fn hostile_nesting_is_a_clear_error_not_a_stack_overflow() {
        let nots = format!("{}mars", "NOT ".repeat(20_000));
        let e = BooleanQuery::parse(&nots).expect_err("20,000 NOTs").to_string();
        // The 101st NOT starts at character 401 (each `NOT ` is four characters).
        assert!(e.contains("more than 100 levels") && e.contains("character 401"), "{e}");
        let parens = format!("{}mars{}", "(".repeat(100_000), ")".repeat(100_000));
        let e = BooleanQuery::parse(&parens).expect_err("deep parentheses").to_string();
        assert!(e.contains("more than 100 levels") && e.contains("character 101"), "{e}");
        let huge = "mars ".repeat(300_000);
        let e = BooleanQuery::parse(&huge).expect_err("1.5 MB").to_string();
        assert!(e.contains("1500000 bytes long") && e.contains("limit is 1048576"), "{e}");
        // Exactly at the limit still parses: 100 NOTs, and 50 parentheses around 50 NOTs.
        assert!(BooleanQuery::parse(&format!("{}mars", "NOT ".repeat(100))).is_ok());
        let mixed = format!("{}{}mars{}", "(".repeat(50), "NOT ".repeat(50), ")".repeat(50));
        assert!(BooleanQuery::parse(&mixed).is_ok());
        assert!(BooleanQuery::parse(&format!("({mixed})")).is_err());
    }

    #[test]
    fn a_long_flat_query_is_one_shallow_node() {
        let words: Vec<String> = (0..10_000).map(|i| format!("w{i}")).collect();
        let Ok(BooleanQuery::Or(parts)) = BooleanQuery::parse(&words.join(" OR ")) else { panic!("an OR") };
        assert_eq!(parts.len(), 10_000);
        let Ok(BooleanQuery::And(parts)) = BooleanQuery::parse(&words[..5000].join(" ")) else { panic!("an AND") };
        assert_eq!(parts.len(), 5000);
        let e = BooleanQuery::parse(&format!("{} x", words.join(" "))).expect_err("10,001 words").to_string();
        assert!(e.contains("more than 10000 words"), "{e}");
        // The position counts characters, not bytes: `é` is two bytes.
        let e = BooleanQuery::parse("é )").expect_err("stray parenthesis").to_string();
        assert!(e.contains("character 3"), "{e}");
    }

    /// Queries as trees; printed back, each parses to the same tree.
    fn tree() -> impl Strategy<Value = BooleanQuery> {
        let word = "[a-zà-ü0-9_.'-]{1,8}".prop_filter("not an operator", |w| w != "-");
        let leaf = prop_oneof![
            word.clone().prop_map(BooleanQuery::Term),
            prop::collection::vec(word, 1..4).prop_map(BooleanQuery::Phrase),
        ];
        leaf.prop_recursive(6, 40, 4, |inner| {
            prop_oneof![
                prop::collection::vec(inner.clone(), 2..4).prop_map(BooleanQuery::And),
                prop::collection::vec(inner.clone(), 2..4).prop_map(BooleanQuery::Or),
                inner.prop_map(|q| BooleanQuery::Not(Box::new(q))),
            ]
        })
    }

    /// Queries over the test corpus's own words (and a stop word, which analyses to nothing).
    fn corpus_tree() -> impl Strategy<Value = BooleanQuery> {
        let word = prop::sample::select(vec!["mission", "mars", "moon", "sun", "rocket", "orbit", "the", "launch"])
            .prop_map(str::to_string);
        let leaf = prop_oneof![
            3 => word.clone().prop_map(BooleanQuery::Term),
            1 => prop::collection::vec(word, 2..3).prop_map(BooleanQuery::Phrase),
        ];
        leaf.prop_recursive(4, 16, 3, |inner| {
            prop_oneof![
                prop::collection::vec(inner.clone(), 2..4).prop_map(BooleanQuery::And),
                prop::collection::vec(inner.clone(), 2..4).prop_map(BooleanQuery::Or),
                inner.prop_map(|q| BooleanQuery::Not(Box::new(q))),
            ]
        })
    }

    /// Boolean logic over a passage's analysed words, written apart from the retriever: a leaf
    /// holds when its analysed terms occur there in a row; a leaf of nothing drops out.
    fn oracle(q: &BooleanQuery, words: &[String], r: &BooleanRetriever) -> Option<bool> {
        match q {
            BooleanQuery::Term(_) | BooleanQuery::Phrase(_) => {
                let terms: Vec<String> = analyse_leaf(&r.index, q).into_iter().map(|(t, _)| t).collect();
                (!terms.is_empty()).then(|| words.windows(terms.len()).any(|w| w == terms.as_slice()))
            }
            BooleanQuery::And(p) => p.iter().filter_map(|x| oracle(x, words, r)).reduce(|a, b| a && b),
            BooleanQuery::Or(p) => p.iter().filter_map(|x| oracle(x, words, r)).reduce(|a, b| a || b),
            BooleanQuery::Not(x) => oracle(x, words, r).map(|v| !v),
        }
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(crate::proptest_cases()))]

        #[test]
        fn any_string_parses_or_is_refused(s in "\\PC{0,200}|[()\" a-zA-Z-]{0,300}") {
            if let Ok(q) = BooleanQuery::parse(&s) {
                prop_assert_eq!(BooleanQuery::parse(&q.to_text()).ok(), Some(q));
            }
        }

        #[test]
        fn deep_nesting_is_refused_or_parsed(open in 0usize..400, nots in 0usize..400, close in 0usize..400) {
            let q = format!("{}{}x{}", "(".repeat(open), "NOT ".repeat(nots), ")".repeat(close));
            let parsed = BooleanQuery::parse(&q);
            prop_assert_eq!(parsed.is_ok(), open == close && open + nots <= MAX_NESTING, "{:?}", parsed);
        }

        /// The explanation's clause tree, worked out again by Boolean logic from leaves checked
        /// against each passage's own analysed words, holds exactly for the passages that match.
        #[test]
        fn the_clause_tree_holds_exactly_for_the_matching_passages(q in corpus_tree()) {
            let r = retriever();
            let text = q.to_text();
            let query = QueryContext::new(text.clone());
            let prepared = r.prepare(&query).unwrap();
            let matching = r.matching(&text).unwrap();
            for d in 0..4u32 {
                let e = prepared.explain(DocId(d)).unwrap();
                let Detail::Clauses { tree: Some(tree), .. } = &e.detail else { panic!("a tree") };
                let words = r.index.analyzer().terms(DOCS[d as usize].1);
                prop_assert_eq!(oracle(&q, &words, &r), tree.evaluate(), "{} on D{}", text, d + 1);
                prop_assert_eq!(tree.evaluate() == Some(true), matching.contains(&DocId(d)));
                prop_assert_eq!(e.value, if matching.contains(&DocId(d)) { 1.0 } else { 0.0 });
            }
        }

        #[test]
        fn a_printed_query_parses_back_to_the_same_tree(q in tree()) {
            prop_assert_eq!(BooleanQuery::parse(&q.to_text()).ok(), Some(q));
        }
    }
}
