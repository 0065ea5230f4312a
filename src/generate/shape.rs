//! What a model's reply to a task must look like, and holding the reply to it while it is written.
//!
//! Each task that reads a model's reply as data says what that data is ([`Shape`]): a listwise
//! window's order is a permutation of the window's identifiers, each once; a graph extraction is
//! JSON of its schema; text to SQL is one SELECT over the tables' own columns; a judgement is yes
//! or no; an agent's turn is its protocol. Where the model runs in this process, the reply is
//! *constrained* to that shape while it is decoded: before each token is chosen, every token the
//! shape's grammar cannot continue with is masked out ([`Held::mask`]), so the reply can only be
//! of the shape. The grammars are compiled and run by llguidance (Microsoft's constrained-decoding
//! library, the one llama.cpp, vLLM and SGLang use): Lark grammars, its JSON-schema compiler, and
//! its parametric rules, which say "each identifier once" in one rule per identifier instead of
//! one alternative per ordering. A chat server is sent the JSON schemas it can hold a reply to
//! (`response_format`); what nothing constrains is read tolerantly and its repairs are shown.

use llguidance::api::TopLevelGrammar;
use llguidance::toktrie::{TokEnv, TokenId};
use llguidance::{Matcher, ParserFactory};
use serde::{Deserialize, Serialize};

use crate::{Error, Result};

/// The most identifiers a permutation grammar holds (its rules track the ones written in 64 bits).
pub const MAX_PERMUTATION: usize = 64;

/// What a reply must be.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case", tag = "kind")]
pub enum Shape {
    /// `[3] > [1] > [2]`: every identifier of a window of `n` passages exactly once (RankGPT's
    /// form), nothing else.
    Permutation {
        /// The window's size.
        n: usize,
    },
    /// Exactly one of these words (any case).
    OneOf {
        /// The words.
        words: Vec<String>,
    },
    /// JSON of this schema.
    Json {
        /// The JSON schema.
        schema: serde_json::Value,
    },
    /// One SQLite `SELECT` statement whose tables and columns are the database's own.
    Select {
        /// Each table with its columns.
        tables: Vec<(String, Vec<String>)>,
    },
    /// One turn of the agent's text protocol: an optional `Thought:` line, then `Action:` one of
    /// `tools` and its `Input:` line, or `Answer:`.
    AgentTurn {
        /// The tools' names.
        tools: Vec<String>,
    },
    /// A verbatim span of `passage`: it starts at a word and runs over the passage's own pieces
    /// (words, and each punctuation mark) with the passage's own spacing between them, so the
    /// reply can only be words the passage holds, in its order (the generative reader's answer).
    Span {
        /// The passage.
        passage: String,
    },
}

impl Shape {
    /// What the shape is, in words, for an explanation (`the reply was held to …`).
    pub fn describe(&self) -> String {
        match self {
            Shape::Permutation { n } => {
                format!("a whole permutation of the window's {n} identifiers, each once ([i] > [j] > …)")
            }
            Shape::OneOf { words } => format!("one word: {}", words.join(" or ")),
            Shape::Json { .. } => "JSON of the extraction's schema".to_string(),
            Shape::Select { tables } => {
                let names: Vec<&str> = tables.iter().map(|(t, _)| t.as_str()).collect();
                format!("one SQLite SELECT over the columns of {}", names.join(", "))
            }
            Shape::Span { .. } => "a span of the passage, copied word for word".to_string(),
            Shape::AgentTurn { tools } if tools.is_empty() => "an answer (`Answer: …`)".to_string(),
            Shape::AgentTurn { tools } => {
                format!(
                    "one turn of the protocol: Thought, then Action ({}) with its Input, or Answer",
                    tools.join(", ")
                )
            }
        }
    }

    /// The JSON schema a chat server can hold the reply to (`response_format`), where the shape is
    /// one.
    pub fn json_schema(&self) -> Option<&serde_json::Value> {
        match self {
            Shape::Json { schema } => Some(schema),
            _ => None,
        }
    }

    /// The grammar llguidance compiles for the shape.
    pub fn grammar(&self) -> Result<TopLevelGrammar> {
        match self {
            Shape::Json { schema } => Ok(TopLevelGrammar::from_json_schema(held_json(schema))),
            other => Ok(TopLevelGrammar::from_lark(other.lark()?)),
        }
    }

    /// What the reply was held to, as a short hash of the grammar llguidance compiles for it: a
    /// stored reply is kept under it, so a change to how a shape is written out (a rule added, a
    /// separator changed) asks again instead of replaying replies held to the old grammar.
    pub fn version(&self) -> String {
        let text = self.grammar().ok().and_then(|g| serde_json::to_string(&g).ok()).unwrap_or_default();
        crate::models::text_hash(&text)[..16].to_string()
    }

    /// The shape as a Lark grammar (JSON schemas are compiled by llguidance directly and have
    /// none).
    pub fn lark(&self) -> Result<String> {
        match self {
            Shape::Permutation { n } => permutation_lark(*n),
            Shape::OneOf { words } => {
                if words.is_empty() {
                    return Err(Error::invalid("reply shape", "a choice of no words"));
                }
                let alternatives: Vec<String> = words.iter().map(|w| format!("{}i", literal(w))).collect();
                Ok(format!("start: {}\n", alternatives.join(" | ")))
            }
            Shape::Select { tables } => select_lark(tables),
            Shape::AgentTurn { tools } => agent_lark(tools),
            Shape::Span { passage } => span_lark(passage),
            Shape::Json { .. } => Err(Error::invalid("reply shape", "a JSON schema is compiled as a schema")),
        }
    }
}

/// A Lark string literal holding `text` exactly.
fn literal(text: &str) -> String {
    serde_json::Value::String(text.to_string()).to_string()
}

/// The JSON schema with llguidance's own options: no free whitespace (a small model otherwise
/// pads a reply with newlines until it runs out of tokens) and the separators the prompts' worked
/// examples use.
fn held_json(schema: &serde_json::Value) -> serde_json::Value {
    let mut held = schema.clone();
    if let Some(object) = held.as_object_mut() {
        object.insert(
            "x-guidance".into(),
            serde_json::json!({"whitespace_flexible": false, "item_separator": ", ", "key_separator": ": "}),
        );
    }
    held
}

/// `[i] > [j] > …` over `1..=n`, each once: llguidance's parametric rules carry the set of
/// identifiers written so far as the bits of a 64-bit parameter, so the grammar has one line per
/// identifier (a plain context-free grammar of permutations needs one rule per subset).
fn permutation_lark(n: usize) -> Result<String> {
    if n == 0 || n > MAX_PERMUTATION {
        return Err(Error::invalid(
            "reply shape",
            format!("a permutation of {n} identifiers (a grammar holds 1 to {MAX_PERMUTATION})"),
        ));
    }
    let mut out = String::from("start: first::0x0\nfirst::_ : ");
    let firsts: Vec<String> = (0..n).map(|i| format!("\"[{}]\" rest::set_bit({i})", i + 1)).collect();
    out.push_str(&firsts.join("\n    | "));
    out.push_str(&format!("\nrest::_ : \"\" %if is_ones([0:{n}])"));
    for i in 0..n {
        out.push_str(&format!("\n    | \" > [{}]\" rest::set_bit({i}) %if bit_clear({i})", i + 1));
    }
    out.push('\n');
    Ok(out)
}

/// An identifier as SQL writes it: bare when it is a plain word, else double-quoted.
fn sql_name(name: &str) -> String {
    let plain = name.chars().next().is_some_and(|c| c.is_ascii_alphabetic() || c == '_')
        && name.chars().all(|c| c.is_ascii_alphanumeric() || c == '_');
    if plain { name.to_string() } else { format!("\"{}\"", name.replace('"', "\"\"")) }
}

/// The SQLite functions a statement may call.
const SQL_FUNCTIONS: [&str; 22] = [
    "COUNT",
    "SUM",
    "AVG",
    "MIN",
    "MAX",
    "TOTAL",
    "GROUP_CONCAT",
    "LOWER",
    "UPPER",
    "LENGTH",
    "SUBSTR",
    "TRIM",
    "REPLACE",
    "INSTR",
    "ABS",
    "ROUND",
    "COALESCE",
    "IFNULL",
    "NULLIF",
    "CAST",
    "TYPEOF",
    "PRINTF",
];

/// A keyword in capitals or in small letters (not in a mix: a small model's `oRdEr`), as a Lark
/// alternative.
fn keyword(word: &str) -> String {
    format!("({} | {})", literal(word), literal(&word.to_ascii_lowercase()))
}

/// The SELECT grammar with `{KEYWORD}` where each keyword goes and TABLES, COLUMNS, FUNCTIONS where
/// the database's names go.
const SELECT_GRAMMAR: &str = r#"start: select ";"?
select: {SELECT} SP ({DISTINCT} SP)? results SP {FROM} SP source (SP where)? (SP group)? (SP order)? (SP limit)?
results: result (COMMA result)*
result: "*" | expr (SP {AS} SP ALIAS)?
source: table (SP join)*
join: (({LEFT} (SP {OUTER})? | {INNER} | {CROSS}) SP)? {JOIN} SP table (SP {ON} SP expr)?
where: {WHERE} SP expr
group: {GROUP} SP {BY} SP expr (COMMA expr)* (SP {HAVING} SP expr)?
order: {ORDER} SP {BY} SP ordering (COMMA ordering)*
ordering: expr (SP ({ASC} | {DESC}))?
limit: {LIMIT} SP NUMBER (SP {OFFSET} SP NUMBER)?
expr: conjunction (SP {OR} SP conjunction)*
conjunction: negation (SP {AND} SP negation)*
negation: {NOT} SP negation | predicate
predicate: sum (SP? COMPARE SP? sum | SP {IS} SP ({NOT} SP)? {NULL} | SP ({NOT} SP)? {LIKE} SP sum | SP ({NOT} SP)? {IN} SP? "(" SP? (select | expr (COMMA expr)*) SP? ")" | SP ({NOT} SP)? {BETWEEN} SP sum SP {AND} SP sum)?
sum: product (SP? SUMOP SP? product)*
product: unary (SP? MULOP SP? unary)*
unary: "-"? atom
atom: NUMBER | STRING | {NULL} | column | call | "(" SP? expr SP? ")" | "(" SP? select SP? ")"
call: function "(" SP? ("*" | ({DISTINCT} SP)? expr (COMMA expr)* | expr SP {AS} SP TYPE)? SP? ")"
column: (table ".")? name
table: TABLES
name: COLUMNS
function: FUNCTIONS
TYPE: "INTEGER" | "REAL" | "TEXT" | "NUMERIC" | "integer" | "real" | "text" | "numeric"
COMPARE: "=" | "==" | "!=" | "<>" | "<" | "<=" | ">" | ">="
SUMOP: "+" | "-" | "||"
MULOP: "*" | "/" | "%"
ALIAS: /[A-Za-z_][A-Za-z0-9_]{0,30}/
NUMBER: /[0-9]{1,18}(\.[0-9]{1,18})?/
STRING: /'([^'\n]|''){0,200}'/
SP: " "
COMMA: "," | ", "
"#;

/// One SELECT on one line (SQLite's grammar, the part a question over tables needs: joins,
/// conditions with LIKE, IN, BETWEEN and subqueries, grouping, ordering, limits) whose table and
/// column names are only the database's own, ending in at most one semicolon. Words are separated by
/// one space, so a keyword can never run into a name (`errorsORDER`), and nothing is written on a
/// second line. Tables take no aliases: a grammar cannot know which aliases were declared, and a
/// column may be qualified by its table's own name.
fn select_lark(tables: &[(String, Vec<String>)]) -> Result<String> {
    if tables.is_empty() {
        return Err(Error::invalid("reply shape", "a SELECT over no tables"));
    }
    let table_names: Vec<String> = tables.iter().map(|(t, _)| literal(&sql_name(t))).collect();
    let mut columns: Vec<String> = tables.iter().flat_map(|(_, cs)| cs.iter().map(|c| literal(&sql_name(c)))).collect();
    columns.sort();
    columns.dedup();
    if columns.is_empty() {
        return Err(Error::invalid("reply shape", "a SELECT over tables with no columns"));
    }
    let functions: Vec<String> = SQL_FUNCTIONS.iter().map(|f| keyword(f)).collect();
    let mut grammar = SELECT_GRAMMAR
        .replace("TABLES", &table_names.join(" | "))
        .replace("COLUMNS", &columns.join(" | "))
        .replace("FUNCTIONS", &functions.join(" | "));
    for word in SQL_KEYWORDS {
        grammar = grammar.replace(&format!("{{{word}}}"), &keyword(word));
    }
    Ok(grammar)
}

/// The keywords of [`SELECT_GRAMMAR`].
const SQL_KEYWORDS: [&str; 27] = [
    "SELECT", "DISTINCT", "FROM", "AS", "LEFT", "OUTER", "INNER", "CROSS", "JOIN", "ON", "WHERE", "GROUP", "BY",
    "HAVING", "ORDER", "ASC", "DESC", "LIMIT", "OFFSET", "OR", "AND", "NOT", "IS", "NULL", "LIKE", "IN", "BETWEEN",
];

/// One turn of the agent's text protocol (`prompts::AGENT`): the tools are only those offered,
/// and nothing follows the input line, so the model cannot write the tool's observation itself.
/// With no tools (its searches spent) the turn can only be an answer.
fn agent_lark(tools: &[String]) -> Result<String> {
    if tools.is_empty() {
        return Ok(
            "start: (\"Thought: \" LINE \"\\n\")? \"Answer: \" TEXT\nLINE: /[^\\n]+/\nTEXT: /[^\\n](.|\\n)*/\n".into()
        );
    }
    let names: Vec<String> = tools.iter().map(|t| literal(t)).collect();
    Ok(format!(
        r#"start: thought? (action | answer)
thought: "Thought: " LINE "\n"
action: "Action: " tool "\nInput: " LINE
answer: "Answer: " TEXT
tool: {tools}
LINE: /[^\n]+/
TEXT: /[^\n](.|\n)*/
"#,
        tools = names.join(" | ")
    ))
}

/// A passage's pieces, as byte ranges: each run of letters and digits is one piece (a word), each
/// other character that is not white space is one piece (a punctuation mark). What lies between
/// two pieces is the passage's own spacing.
pub fn span_pieces(text: &str) -> Vec<std::ops::Range<usize>> {
    let mut out: Vec<std::ops::Range<usize>> = Vec::new();
    let mut word: Option<usize> = None;
    for (i, c) in text.char_indices() {
        if c.is_alphanumeric() {
            word.get_or_insert(i);
            continue;
        }
        if let Some(w) = word.take() {
            out.push(w..i);
        }
        if !c.is_whitespace() {
            out.push(i..i + c.len_utf8());
        }
    }
    if let Some(w) = word {
        out.push(w..text.len());
    }
    out
}

/// Whether a piece is a word (it starts with a letter or digit): where a span may start.
fn is_word_piece(text: &str, piece: &std::ops::Range<usize>) -> bool {
    text[piece.clone()].chars().next().is_some_and(char::is_alphanumeric)
}

/// Every span of `passage` that starts at a word, as a right-linear grammar of one rule per piece:
/// `sᵢ` writes piece i and may go on with `tᵢ₊₁`, which writes the spacing before piece i + 1 and
/// that piece, and may go on in turn — so the grammar is two rules a piece, not one per span.
fn span_lark(passage: &str) -> Result<String> {
    let pieces = span_pieces(passage);
    let starts: Vec<usize> = (0..pieces.len()).filter(|&i| is_word_piece(passage, &pieces[i])).collect();
    if starts.is_empty() {
        return Err(Error::invalid("reply shape", "a span of a passage that holds no word"));
    }
    let next = |i: usize| if i + 1 < pieces.len() { format!(" t{}?", i + 1) } else { String::new() };
    let alternatives: Vec<String> = starts.iter().map(|i| format!("s{i}")).collect();
    let mut out = format!(
        "start: {}
",
        alternatives.join(" | ")
    );
    for &i in &starts {
        out.push_str(&format!(
            "s{i}: {}{}
",
            literal(&passage[pieces[i].clone()]),
            next(i)
        ));
    }
    for i in 1..pieces.len() {
        let piece = &passage[pieces[i - 1].end..pieces[i].end];
        out.push_str(&format!(
            "t{i}: {}{}
",
            literal(piece),
            next(i)
        ));
    }
    Ok(out)
}

/// Where `reply` sits in `passage` as a span that starts and ends on the passage's pieces (the
/// first such place), as a byte range; `None` when it is no such span.
pub fn locate_span(passage: &str, reply: &str) -> Option<std::ops::Range<usize>> {
    if reply.is_empty() {
        return None;
    }
    let pieces = span_pieces(passage);
    let starts: std::collections::HashSet<usize> = pieces.iter().map(|p| p.start).collect();
    let ends: std::collections::HashSet<usize> = pieces.iter().map(|p| p.end).collect();
    passage
        .match_indices(reply)
        .map(|(at, _)| at..at + reply.len())
        .find(|r| starts.contains(&r.start) && ends.contains(&r.end))
}

/// The grammars of one model's vocabulary: llguidance's compiler with the model's tokens. Built
/// once per model (the vocabulary is walked once), then used for every request.
pub struct Grammars {
    factory: ParserFactory,
}

impl Grammars {
    /// The compiler over a vocabulary.
    pub fn new(env: &TokEnv) -> Result<Self> {
        let mut factory =
            ParserFactory::new_simple(env).map_err(|e| Error::Model(format!("the grammar compiler: {e}")))?;
        factory.quiet();
        Ok(Self { factory })
    }

    /// A matcher holding a reply to `shape`.
    pub fn hold(&self, shape: &Shape) -> Result<Held> {
        let parser = self
            .factory
            .create_parser(shape.grammar()?)
            .map_err(|e| Error::Model(format!("the grammar of {}: {e}", shape.describe())))?;
        let matcher = Matcher::new(Ok(parser));
        if let Some(e) = matcher.get_error() {
            return Err(Error::Model(format!("the grammar of {}: {e}", shape.describe())));
        }
        Ok(Held { matcher, description: shape.describe() })
    }
}

/// A reply being held to its shape, token by token.
pub struct Held {
    matcher: Matcher,
    description: String,
}

impl Held {
    /// What the reply is held to (`Shape::describe`).
    pub fn description(&self) -> &str {
        &self.description
    }

    /// Mask out (to −∞) every token the shape cannot continue with; `eos` are the model's
    /// end-of-turn tokens, allowed only where the shape may end.
    pub fn mask(&mut self, logits: &mut [f32]) -> Result<()> {
        let allowed = self.matcher.compute_mask_or_eos().map_err(|e| self.failed(e))?;
        for (token, logit) in logits.iter_mut().enumerate() {
            if !allowed.is_allowed(token as TokenId) {
                *logit = f32::NEG_INFINITY;
            }
        }
        Ok(())
    }

    /// Take in the token chosen.
    pub fn accept(&mut self, token: u32) -> Result<()> {
        self.matcher.consume_token(token).map_err(|e| self.failed(e))
    }

    /// Whether nothing may follow (the shape is complete and allows no more text).
    pub fn is_complete(&self) -> bool {
        self.matcher.is_stopped()
    }

    /// Whether the reply so far is a whole reply of the shape (it may end here).
    pub fn may_end(&mut self) -> bool {
        self.matcher.is_accepting().unwrap_or(false)
    }

    fn failed(&self, e: impl std::fmt::Display) -> Error {
        Error::Model(format!("holding the reply to {}: {e}", self.description))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use llguidance::toktrie::{ApproximateTokEnv, TokRxInfo, TokTrie};
    use std::sync::Arc;

    /// A vocabulary of every byte, some longer pieces a real tokenizer has (which cross the
    /// shapes' boundaries: `] > [`, ` >`, `Yes`, `SELECT`), and an end-of-turn token last.
    fn vocabulary(extra: &[&str]) -> (TokEnv, Vec<Vec<u8>>) {
        let mut words: Vec<Vec<u8>> = (0..=255u8).map(|b| vec![b]).collect();
        for w in extra {
            words.push(w.as_bytes().to_vec());
        }
        words.push(b"\xFF<|im_end|>".to_vec());
        let info = TokRxInfo::new(words.len() as u32, words.len() as u32 - 1);
        let trie = TokTrie::from(&info, &words);
        (Arc::new(ApproximateTokEnv::new(trie)), words)
    }

    const PIECES: [&str; 16] = [
        "] > [", " >", " > [", "[1", "12", "]", "Yes", "yes", "No", "SELECT", " code", " FROM", " errors", "Answer:",
        "\n\n", "DROP",
    ];

    /// A decoder that prefers, at each step, the allowed token `choose` likes best; the text it
    /// wrote, and whether it ended by choosing the end-of-turn token or by the shape's end.
    fn decode(shape: &Shape, choose: impl Fn(&str, &[Vec<u8>], &[bool]) -> usize, steps: usize) -> (String, bool) {
        let (env, words) = vocabulary(&PIECES);
        let eos = words.len() - 1;
        let grammars = Grammars::new(&env).unwrap();
        let mut held = grammars.hold(shape).unwrap();
        let mut text = Vec::new();
        for _ in 0..steps {
            let mut logits = vec![0.0f32; words.len()];
            held.mask(&mut logits).unwrap();
            let allowed: Vec<bool> = logits.iter().map(|l| l.is_finite()).collect();
            assert!(allowed.iter().any(|&a| a), "some token is always allowed");
            let t = choose(&String::from_utf8_lossy(&text), &words, &allowed);
            assert!(allowed[t], "the decoder chose among the allowed");
            if t == eos {
                return (String::from_utf8_lossy(&text).into_owned(), true);
            }
            held.accept(t as u32).unwrap();
            text.extend_from_slice(&words[t]);
            if held.is_complete() {
                return (String::from_utf8_lossy(&text).into_owned(), false);
            }
        }
        panic!("no end after {steps} steps: {}", String::from_utf8_lossy(&text));
    }

    /// Prefer the first allowed of `wishes` (a token's text), else the end of the turn, else the
    /// lowest allowed token.
    fn stubborn(wishes: &'static [&'static str]) -> impl Fn(&str, &[Vec<u8>], &[bool]) -> usize {
        move |_, words, allowed| {
            for w in wishes {
                if let Some(t) = words.iter().position(|x| x == w.as_bytes())
                    && allowed[t]
                {
                    return t;
                }
            }
            let eos = words.len() - 1;
            if allowed[eos] {
                return eos;
            }
            allowed.iter().position(|&a| a).unwrap_or(0)
        }
    }

    /// Write `script` byte by byte while the shape allows; where it does not, end the turn if
    /// allowed, else close what is open (`;`, `)`, `'`), else take the lowest allowed token.
    fn scripted(script: &'static str) -> impl Fn(&str, &[Vec<u8>], &[bool]) -> usize {
        move |written, words, allowed| {
            let eos = words.len() - 1;
            let next = script.as_bytes().get(written.len()).copied();
            match next {
                Some(b) if allowed[usize::from(b)] => usize::from(b),
                _ if allowed[eos] => eos,
                _ => b";)'"
                    .iter()
                    .map(|&b| usize::from(b))
                    .find(|&t| allowed[t])
                    .unwrap_or_else(|| allowed.iter().position(|&a| a).unwrap_or(0)),
            }
        }
    }

    fn ids_of(text: &str) -> Vec<usize> {
        text.split(" > ").map(|p| p.trim_matches(|c| c == '[' || c == ']').parse().unwrap()).collect()
    }

    #[test]
    fn a_permutation_is_every_identifier_once_whatever_the_decoder_prefers() {
        // A decoder that would repeat [1] forever, stop at once, or write prose cannot.
        for wishes in [&["[1", "]", "] > [", "1"][..], &["\n\n", "Yes", "DROP"][..], &["2", "]", " > [", "2"][..]] {
            // Every step's text and whether the end of the turn was allowed after it.
            let seen = std::cell::RefCell::new(Vec::new());
            let wish = stubborn(wishes);
            let watching = |written: &str, words: &[Vec<u8>], allowed: &[bool]| {
                seen.borrow_mut().push((written.to_string(), allowed[words.len() - 1]));
                wish(written, words, allowed)
            };
            let (text, _) = decode(&Shape::Permutation { n: 12 }, watching, 400);
            let mut ids = ids_of(&text);
            ids.sort_unstable();
            assert_eq!(ids, (1..=12).collect::<Vec<_>>(), "{text}");
            assert!(text.starts_with('[') && text.ends_with(']'), "{text}");
            // The end of the turn is allowed only once every identifier is written, and then it is.
            let seen = seen.into_inner();
            assert!(seen.len() > 12, "{seen:?}");
            for (written, eos_allowed) in &seen {
                let whole = written.ends_with(']') && {
                    let mut got: Vec<usize> = written
                        .split(" > ")
                        .filter_map(|p| p.trim_matches(|c| c == '[' || c == ']').parse().ok())
                        .collect();
                    got.sort_unstable();
                    got == (1..=12).collect::<Vec<_>>()
                };
                assert_eq!(*eos_allowed, whole, "after {written:?}");
            }
        }
    }

    #[test]
    fn a_permutation_decoder_that_wants_to_end_early_cannot() {
        // Wishes the end of the turn at every step (stubborn falls back to it first).
        let (text, _) = decode(&Shape::Permutation { n: 3 }, stubborn(&[]), 100);
        let mut ids = ids_of(&text);
        ids.sort_unstable();
        assert_eq!(ids, [1, 2, 3], "{text}");
    }

    #[test]
    fn the_permutation_grammar_is_one_line_per_identifier() {
        let g = permutation_lark(3).unwrap();
        assert_eq!(
            g,
            "start: first::0x0\nfirst::_ : \"[1]\" rest::set_bit(0)\n    | \"[2]\" rest::set_bit(1)\n    | \"[3]\" \
             rest::set_bit(2)\nrest::_ : \"\" %if is_ones([0:3])\n    | \" > [1]\" rest::set_bit(0) %if bit_clear(0)\n    \
             | \" > [2]\" rest::set_bit(1) %if bit_clear(1)\n    | \" > [3]\" rest::set_bit(2) %if bit_clear(2)\n"
        );
        assert!(permutation_lark(0).is_err() && permutation_lark(65).is_err());
        assert!(permutation_lark(64).is_ok());
    }

    #[test]
    fn a_choice_is_one_of_its_words_and_nothing_after() {
        for wishes in [&["Yes", "\n\n"][..], &["DROP", "No"][..], &["\n\n", "]"][..]] {
            let (text, _) = decode(&Shape::OneOf { words: vec!["yes".into(), "no".into()] }, stubborn(wishes), 20);
            assert!(["yes", "no"].contains(&text.to_ascii_lowercase().as_str()), "{text:?}");
        }
    }

    /// How much of `text` the shape lets through, byte by byte, and whether it may end there.
    fn accepts(shape: &Shape, text: &str) -> (usize, bool) {
        let (env, _) = vocabulary(&[]);
        let mut held = Grammars::new(&env).unwrap().hold(shape).unwrap();
        for (i, b) in text.bytes().enumerate() {
            let mut logits = vec![0.0f32; 257];
            held.mask(&mut logits).unwrap();
            if !logits[usize::from(b)].is_finite() {
                return (i, false);
            }
            held.accept(u32::from(b)).unwrap();
        }
        let mut logits = vec![0.0f32; 257];
        held.mask(&mut logits).unwrap();
        (text.len(), logits[256].is_finite() || held.is_complete())
    }

    fn errors_table() -> (Shape, rusqlite::Connection) {
        let shape = Shape::Select {
            tables: vec![("errors".into(), vec!["code".into(), "meaning".into(), "stops_sync".into()])],
        };
        let db = rusqlite::Connection::open_in_memory().unwrap();
        db.execute_batch("CREATE TABLE errors (code TEXT, meaning TEXT, stops_sync INTEGER);").unwrap();
        (shape, db)
    }

    #[test]
    fn a_select_is_one_statement_on_one_line_over_the_schemas_own_names() {
        let (shape, db) = errors_table();
        for good in [
            "SELECT code FROM errors WHERE stops_sync = 1;",
            "select count(*) from errors where meaning like '%disk%' and stops_sync = 1 order by code desc limit 5",
            "SELECT DISTINCT errors.code AS c FROM errors WHERE errors.code IN ('E104', 'E180') OR NOT stops_sync BETWEEN 0 AND 1",
            "SELECT code, COUNT(*) FROM errors GROUP BY code HAVING COUNT(*) > 1",
            "SELECT code FROM errors WHERE meaning IS NOT NULL AND code = (SELECT MAX(code) FROM errors)",
        ] {
            assert_eq!(accepts(&shape, good), (good.len(), true), "{good}");
            db.prepare(good.trim_end_matches(';')).unwrap();
        }
        // Each refused where it goes wrong: the byte at which the shape stops it.
        for (bad, at) in [
            ("DROP TABLE errors", 0),
            ("SELECT code FROM errors; DELETE FROM errors", 24),
            ("SELECT severity FROM errors", 8),
            ("SELECT code FROM errorsORDER BY code", 23),
            ("SELECT code\nFROM errors", 11),
            ("SELECT code FROM errors oRdEr BY code", 25),
            ("SeLeCt code FROM errors", 1),
            ("SELECT code FROM errors WHERE code = 'E1' UNION SELECT 1", 42),
        ] {
            assert_eq!(accepts(&shape, bad).0, at, "{bad:?}");
        }
        // Not whole yet: no end allowed.
        assert_eq!(accepts(&shape, "SELECT code FROM"), (16, false));
    }

    #[test]
    fn a_decoder_that_wants_to_drop_the_table_writes_a_select_sqlite_runs() {
        let (shape, db) = errors_table();
        let (text, _) = decode(&shape, stubborn(&["DROP", "SELECT", " code", " FROM", " errors", ";", " "]), 400);
        assert!(crate::generate::text_to_sql::check(&text).is_ok(), "{text:?}");
        db.prepare(text.trim_end_matches(';')).unwrap_or_else(|e| panic!("{text:?}: {e}"));
    }

    proptest::proptest! {
        #![proptest_config(proptest::prelude::ProptestConfig::with_cases(crate::proptest_cases()))]

        /// Any run of SQL's words: what the shape takes as a whole statement, SQLite prepares.
        #[test]
        fn every_statement_the_select_shape_takes_whole_is_one_sqlite_prepares(
            words in proptest::collection::vec(proptest::sample::select(vec![
                "SELECT", "select", "code", "meaning", "stops_sync", "severity", "FROM", "errors", "WHERE", "=", "1",
                "'E104'", "AND", "OR", "NOT", "LIKE", "'%a%'", "ORDER", "BY", "DESC", "LIMIT", "3", "COUNT(*)",
                "(", ")", ",", "GROUP", "IN", "IS", "NULL", ";", "DROP", "TABLE", "*", "e", "AS", "DISTINCT",
            ]), 1..16),
            glue in proptest::collection::vec(proptest::sample::select(vec![" ", "", "  ", ", "]), 16),
        ) {
            let (shape, db) = errors_table();
            let mut text = String::new();
            for (i, w) in words.iter().enumerate() {
                if i > 0 {
                    text.push_str(glue[i]);
                }
                text.push_str(w);
            }
            let (taken, whole) = accepts(&shape, &text);
            if taken == text.len() && whole {
                proptest::prop_assert!(crate::generate::text_to_sql::check(&text).is_ok(), "{}", text);
                proptest::prop_assert!(db.prepare(text.trim_end_matches(';')).is_ok(), "{}", text);
            }
        }
    }

    #[test]
    fn an_agent_turn_is_an_action_on_an_offered_tool_or_an_answer() {
        let shape = Shape::AgentTurn { tools: vec!["bm25".into(), "dense".into()] };
        // One that starts with prose is held to a label; one that answers may write anything after.
        let (text, _) = decode(&shape, scripted("Sure! Answer: E104 means the sync token expired [1]."), 200);
        assert!(text.starts_with("Answer: ") || text.starts_with("Action: "), "{text:?}");
        let (text, _) = decode(&shape, scripted("Answer: E104 means the sync token expired [1]."), 200);
        assert_eq!(text, "Answer: E104 means the sync token expired [1].");
        // One that writes its own observation after its action, then a second action: the turn
        // ends with the input line.
        let script = "Action: dense\nInput: E104\nObservation: E104 means the token expired.\nAction: bm25";
        let (text, _) = decode(&shape, scripted(script), 200);
        assert_eq!(text, "Action: dense\nInput: E104");
        // One that names a tool it was not offered is held to one that was.
        let (text, _) = decode(&shape, scripted("Action: sql\nInput: DROP TABLE errors"), 200);
        assert!(text.starts_with("Action: bm25\nInput: ") || text.starts_with("Action: dense\nInput: "), "{text:?}");
        assert!(!text.contains("Observation"), "{text:?}");
    }

    #[test]
    fn json_is_held_to_its_schema() {
        let schema = serde_json::json!({
            "type": "object",
            "properties": {"name": {"type": "string", "maxLength": 5}},
            "required": ["name"],
            "additionalProperties": false
        });
        let (text, _) = decode(&Shape::Json { schema }, stubborn(&["\n\n", "Yes", "]"]), 80);
        let v: serde_json::Value = serde_json::from_str(&text).unwrap();
        assert!(v["name"].as_str().is_some_and(|s| s.chars().count() <= 5), "{text}");
    }

    #[test]
    fn a_span_is_the_passages_own_words_in_its_order_and_nothing_else() {
        let passage = "Mozart was born in Salzburg, in 1756.";
        let shape = Shape::Span { passage: passage.into() };
        // Every span that starts at a word and ends on a piece is taken whole.
        for good in ["Salzburg", "Salzburg,", "born in Salzburg, in 1756.", "1756", "Mozart", passage] {
            assert_eq!(accepts(&shape, good), (good.len(), true), "{good}");
        }
        // Each refused where it leaves the passage: another word, a word out of order, other
        // spacing, a start inside a word or at a punctuation mark.
        for (bad, at) in
            [("Vienna", 0), ("Salzburg in", 8), ("born  in", 5), ("alzburg", 0), (", in", 0), ("in 1757", 6)]
        {
            assert_eq!(accepts(&shape, bad).0, at, "{bad:?}");
        }
        // A part of a piece is not a whole reply.
        assert_eq!(accepts(&shape, "Salz"), (4, false));
        // A decoder that wants to write something else writes a span of the passage.
        let (text, _) = decode(&shape, scripted("Mozart was born in Vienna"), 200);
        assert!(locate_span(passage, &text).is_some(), "{text:?}");
        assert!(Shape::Span { passage: " ,. ".into() }.lark().is_err());
    }

    #[test]
    fn pieces_and_located_spans_by_hand() {
        let text = "E104: sign in — é12ab x";
        let pieces: Vec<&str> = span_pieces(text).into_iter().map(|r| &text[r]).collect();
        assert_eq!(pieces, ["E104", ":", "sign", "in", "—", "é12ab", "x"]);
        assert_eq!(locate_span(text, "sign in"), Some(6..13));
        assert_eq!(locate_span(text, "ign in"), None, "not at a piece's start");
        assert_eq!(locate_span(text, "E10"), None, "not at a piece's end");
        assert_eq!(locate_span(text, "in"), Some(11..13), "the first place that is a span");
        assert_eq!(locate_span(text, ""), None);
    }

    proptest::proptest! {
        #![proptest_config(proptest::prelude::ProptestConfig::with_cases(crate::proptest_cases()))]

        /// Any span of any passage that starts at a word is taken whole by its grammar, and
        /// located where it was cut from (or at an earlier place holding the same text).
        #[test]
        fn every_span_of_a_passage_is_taken_and_located(
            words in proptest::collection::vec("[a-c]{1,3}|[.,;]|[0-9]", 1..12),
            spaces in proptest::collection::vec(proptest::sample::select(vec![" ", "", "  ", "\n"]), 12),
            a in 0usize..12, len in 1usize..12,
        ) {
            let mut passage = String::new();
            for (i, w) in words.iter().enumerate() {
                if i > 0 {
                    passage.push_str(spaces[i]);
                }
                passage.push_str(w);
            }
            let pieces = span_pieces(&passage);
            let starts: Vec<usize> = (0..pieces.len()).filter(|&i| is_word_piece(&passage, &pieces[i])).collect();
            if let Some(&i) = starts.get(a % starts.len().max(1)) {
                let j = (i + len - 1).min(pieces.len() - 1);
                let span = &passage[pieces[i].start..pieces[j].end];
                let shape = Shape::Span { passage: passage.clone() };
                proptest::prop_assert_eq!(accepts(&shape, span), (span.len(), true), "{:?} in {:?}", span, passage);
                let found = locate_span(&passage, span);
                proptest::prop_assert!(found.as_ref().is_some_and(|r| &passage[r.clone()] == span && r.start <= pieces[i].start));
            }
        }
    }

    #[test]
    fn shapes_say_what_they_hold_and_what_a_server_takes() {
        assert!(Shape::Permutation { n: 20 }.describe().contains("20 identifiers"));
        let schema = serde_json::json!({"type": "object"});
        assert_eq!(Shape::Json { schema: schema.clone() }.json_schema(), Some(&schema));
        assert_eq!(Shape::Permutation { n: 2 }.json_schema(), None);
        assert!(Shape::OneOf { words: vec![] }.lark().is_err());
        assert!(Shape::Select { tables: vec![] }.lark().is_err());
        let (text, _) = decode(&Shape::AgentTurn { tools: vec![] }, scripted("Action: bm25\nInput: x"), 60);
        assert!(text.starts_with("Answer: "), "no tool left: only an answer ({text:?})");
        assert_eq!(sql_name("code"), "code");
        assert_eq!(sql_name("my col"), "\"my col\"");
        assert_eq!(sql_name("a\"b"), "\"a\"\"b\"");
    }
}
