//! A hand-built knowledge graph: typed entities joined by typed links, each link citing the
//! passages it was read from, queried with join patterns.
//!
//! `desktop-app loads ?p . ?p depends_on libsodium` joins two facts that sit in two different
//! passages; text search finds both passages but cannot join them. The answer is complete only
//! relative to the graph: a fact nobody entered is an answer nobody gets.

use std::collections::{BTreeMap, HashMap};
use std::path::Path;

use petgraph::graph::{DiGraph, NodeIndex};
use serde::{Deserialize, Serialize};

use crate::corpus::LoadWarning;
use crate::{Error, Result};

/// An entity.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Entity {
    /// Identifier used in patterns.
    pub id: String,
    /// Type (`plugin`, `library`, ...).
    pub kind: String,
    /// Names matched in text; the first is the label.
    pub names: Vec<String>,
}

/// A typed link with its sources.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, PartialOrd, Ord)]
pub struct Fact {
    /// Subject entity id.
    pub subject: String,
    /// Relation name.
    pub relation: String,
    /// Object entity id.
    pub object: String,
    /// Passage ids the fact was read from.
    pub passages: Vec<String>,
}

impl std::fmt::Display for Fact {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "({}, {}, {})", self.subject, self.relation, self.object)
    }
}

/// The graph.
#[derive(Debug, Clone, Default)]
pub struct KnowledgeGraph {
    graph: DiGraph<Entity, Fact>,
    by_id: HashMap<String, NodeIndex>,
}

/// One solution of a pattern: variable bindings and the facts that matched each triple.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, PartialOrd, Ord)]
pub struct GraphMatch {
    /// Variable → entity id.
    pub bindings: BTreeMap<String, String>,
    /// The matched path, one fact per triple of the pattern.
    pub path: Vec<Fact>,
}

/// Every solution of a pattern.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct GraphResult {
    /// The pattern as given.
    pub pattern: String,
    /// Variables in order of first appearance.
    pub variables: Vec<String>,
    /// Solutions, sorted.
    pub matches: Vec<GraphMatch>,
    /// What "complete" means here.
    pub note: String,
}

#[derive(Debug, Clone, PartialEq, Eq)]
enum Term {
    Var(String),
    Const(String),
}

/// The longest pattern, in bytes.
pub const MAX_PATTERN_BYTES: usize = 16_384;
/// The most triples in one pattern.
pub const MAX_TRIPLES: usize = 16;
/// The most partial solutions kept while joining; a pattern that would pass it is refused.
pub const MAX_PARTIAL_MATCHES: usize = 100_000;

/// A pattern as written, before its names are looked up in a graph: triples of terms
/// `subject relation object`, separated by a standalone `.` (a `.` closing the last term also
/// separates, as in SPARQL). Printed with [`std::fmt::Display`], it parses back to itself.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct GraphPattern {
    /// The triples; no term is empty, holds whitespace or ends with `.`.
    pub triples: Vec<[String; 3]>,
}

impl std::fmt::Display for GraphPattern {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let triples: Vec<String> = self.triples.iter().map(|t| t.join(" ")).collect();
        f.write_str(&triples.join(" . "))
    }
}

impl std::str::FromStr for GraphPattern {
    type Err = Error;
    fn from_str(pattern: &str) -> Result<GraphPattern> {
        if pattern.len() > MAX_PATTERN_BYTES {
            return Err(Error::Query(format!(
                "the pattern is {} bytes long; the limit is {MAX_PATTERN_BYTES}",
                pattern.len()
            )));
        }
        let mut triples = Vec::new();
        let mut terms: Vec<String> = Vec::new();
        let close = |terms: &mut Vec<String>, triples: &mut Vec<[String; 3]>| -> Result<()> {
            if terms.is_empty() {
                return Ok(());
            }
            let n = triples.len() + 1;
            let triple: [String; 3] = std::mem::take(terms).try_into().map_err(|t: Vec<String>| {
                Error::Query(format!(
                    "triple {n} (`{}`) has {} terms; write `subject relation object`",
                    t.join(" "),
                    t.len()
                ))
            })?;
            if triples.len() == MAX_TRIPLES {
                return Err(Error::Query(format!("the pattern has more than {MAX_TRIPLES} triples")));
            }
            triples.push(triple);
            Ok(())
        };
        for token in pattern.split_whitespace() {
            let term = token.trim_end_matches('.');
            if !term.is_empty() {
                terms.push(term.to_string());
            }
            if term.len() < token.len() {
                close(&mut terms, &mut triples)?;
            }
        }
        close(&mut terms, &mut triples)?;
        if triples.is_empty() {
            return Err(Error::Query("the pattern is empty; write e.g. `desktop-app loads ?p`".into()));
        }
        Ok(GraphPattern { triples })
    }
}

/// Where a node's name occurs in a text.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Mention {
    /// Entity id.
    pub entity: String,
    /// Byte offset of the start of the name.
    pub start: usize,
    /// Byte offset after the name.
    pub end: usize,
}

impl KnowledgeGraph {
    /// Load the plain-text format; bad lines become warnings naming file and line.
    pub fn load(path: &Path) -> Result<(KnowledgeGraph, Vec<LoadWarning>)> {
        let bytes = std::fs::read(path).map_err(|e| Error::io(path, e))?;
        Ok(Self::parse(&String::from_utf8_lossy(&bytes), path))
    }

    /// Parse `node id | type | names` and `fact subject relation object | passages` lines.
    pub fn parse(text: &str, path: &Path) -> (KnowledgeGraph, Vec<LoadWarning>) {
        let mut g = KnowledgeGraph::default();
        let mut warnings = Vec::new();
        let mut warn = |line: usize, message: String| {
            warnings.push(LoadWarning { file: path.to_path_buf(), line: Some(line), message })
        };
        let mut facts = Vec::new();
        for (i, raw) in text.lines().enumerate() {
            let n = i + 1;
            let line = raw.trim();
            if line.is_empty() || line.starts_with('#') {
                continue;
            }
            if let Some(rest) = line.strip_prefix("node ") {
                let parts: Vec<&str> = rest.split('|').map(str::trim).collect();
                match parts.as_slice() {
                    [id, kind, names] if !id.is_empty() && !id.contains(' ') => {
                        let mut names: Vec<String> =
                            names.split(',').map(|s| s.trim().to_string()).filter(|s| !s.is_empty()).collect();
                        if names.is_empty() {
                            names.push(id.to_string());
                        }
                        if g.by_id.contains_key(*id) {
                            warn(n, format!("node {id:?} is defined twice; the first is kept"));
                            continue;
                        }
                        let idx = g.graph.add_node(Entity { id: id.to_string(), kind: kind.to_string(), names });
                        g.by_id.insert(id.to_string(), idx);
                    }
                    _ => warn(n, "expected `node <id> | <type> | <names>`; skipped".into()),
                }
            } else if let Some(rest) = line.strip_prefix("fact ") {
                let (triple, sources) = rest.split_once('|').unwrap_or((rest, ""));
                let terms: Vec<&str> = triple.split_whitespace().collect();
                let passages: Vec<String> =
                    sources.split(',').map(|s| s.trim().to_string()).filter(|s| !s.is_empty()).collect();
                match terms.as_slice() {
                    [s, r, o] if !passages.is_empty() => {
                        facts.push((n, s.to_string(), r.to_string(), o.to_string(), passages))
                    }
                    [_, _, _] => warn(n, "a fact must cite at least one passage after `|`; skipped".into()),
                    _ => warn(n, "expected `fact <subject> <relation> <object> | <passages>`; skipped".into()),
                }
            } else {
                warn(n, "lines start with `node`, `fact` or `#`; skipped".into());
            }
        }
        for (n, s, r, o, passages) in facts {
            match (g.by_id.get(&s), g.by_id.get(&o)) {
                (Some(&a), Some(&b)) => {
                    g.graph.add_edge(a, b, Fact { subject: s, relation: r, object: o, passages });
                }
                _ => {
                    let missing = if g.by_id.contains_key(&s) { o } else { s };
                    warn(n, format!("unknown entity {missing:?} (declare it with a `node` line); fact skipped"));
                }
            }
        }
        // Facts are checked after every node is read; the warnings are listed in line order.
        warnings.sort_by_key(|w| w.line);
        (g, warnings)
    }

    /// Entities in id order.
    pub fn entities(&self) -> Vec<&Entity> {
        let mut v: Vec<&Entity> = self.graph.node_weights().collect();
        v.sort_by(|a, b| a.id.cmp(&b.id));
        v
    }

    /// Every fact, sorted.
    pub fn facts(&self) -> Vec<&Fact> {
        let mut v: Vec<&Fact> = self.graph.edge_weights().collect();
        v.sort();
        v
    }

    /// Relation names, sorted.
    pub fn relations(&self) -> Vec<String> {
        let mut v: Vec<String> = self.graph.edge_weights().map(|f| f.relation.clone()).collect();
        v.sort();
        v.dedup();
        v
    }

    /// An entity by id.
    pub fn entity(&self, id: &str) -> Option<&Entity> {
        self.by_id.get(id).and_then(|&i| self.graph.node_weight(i))
    }

    /// Facts citing a passage.
    pub fn facts_from_passage(&self, passage: &str) -> Vec<&Fact> {
        self.facts().into_iter().filter(|f| f.passages.iter().any(|p| p == passage)).collect()
    }

    /// Resolve an id or any name (case-insensitive) to an entity id.
    pub fn resolve(&self, name: &str) -> Option<String> {
        if self.by_id.contains_key(name) {
            return Some(name.to_string());
        }
        let lower = name.to_lowercase().replace('_', " ");
        self.graph
            .node_weights()
            .find(|e| e.id.to_lowercase() == lower || e.names.iter().any(|n| n.to_lowercase() == lower))
            .map(|e| e.id.clone())
    }

    /// Entity names occurring in a text (case-insensitive, whole words), longest match first.
    pub fn mentions(&self, text: &str) -> Vec<Mention> {
        let lower = text.to_lowercase();
        let mut names: Vec<(String, String)> = self
            .graph
            .node_weights()
            .flat_map(|e| e.names.iter().map(move |n| (n.to_lowercase(), e.id.clone())))
            .collect();
        names.sort_by(|a, b| b.0.len().cmp(&a.0.len()).then(a.cmp(b)));
        let mut taken = vec![false; lower.len()];
        let mut out = Vec::new();
        for (name, id) in names {
            if name.is_empty() {
                continue;
            }
            let mut from = 0;
            while let Some(pos) = lower[from..].find(&name) {
                let start = from + pos;
                let end = start + name.len();
                let boundary = |c: Option<char>| c.is_none_or(|c| !c.is_alphanumeric() && c != '-');
                let before = lower[..start].chars().next_back();
                let after = lower[end..].chars().next();
                if boundary(before) && boundary(after) && !taken[start..end].iter().any(|&t| t) {
                    taken[start..end].iter_mut().for_each(|t| *t = true);
                    out.push(Mention { entity: id.clone(), start, end });
                }
                from = end;
            }
        }
        out.sort_by_key(|m| m.start);
        out
    }

    fn parse_term(&self, s: &str, relation: bool) -> Result<Term> {
        if let Some(v) = s.strip_prefix('?') {
            if v.is_empty() {
                return Err(Error::Query("a variable needs a name after `?`".into()));
            }
            return Ok(Term::Var(format!("?{v}")));
        }
        if relation {
            let known = self.relations();
            if known.iter().any(|r| r == s) {
                return Ok(Term::Const(s.to_string()));
            }
            return Err(Error::Query(format!("unknown relation `{s}`; the graph has: {}", known.join(", "))));
        }
        self.resolve(s).map(Term::Const).ok_or_else(|| {
            let ids: Vec<String> = self.entities().iter().map(|e| e.id.clone()).collect();
            Error::Query(format!("unknown entity `{s}`; the graph has: {}", ids.join(", ")))
        })
    }

    /// Parse and run a pattern: triples `subject relation object` separated by ` . `; terms
    /// starting with `?` are variables shared across triples (a join).
    pub fn query(&self, pattern: &str) -> Result<GraphResult> {
        let parsed: GraphPattern = pattern.parse()?;
        let mut triples = Vec::new();
        for [s, r, o] in &parsed.triples {
            triples.push((self.parse_term(s, false)?, self.parse_term(r, true)?, self.parse_term(o, false)?));
        }
        let mut variables = Vec::new();
        for (s, r, o) in &triples {
            for t in [s, r, o] {
                if let Term::Var(v) = t
                    && !variables.contains(v)
                {
                    variables.push(v.clone());
                }
            }
        }
        let mut partial: Vec<GraphMatch> = vec![GraphMatch { bindings: BTreeMap::new(), path: Vec::new() }];
        for (partial_step, (s, r, o)) in triples.iter().enumerate() {
            let mut next = Vec::new();
            for m in &partial {
                for edge in self.graph.edge_references() {
                    let fact = edge.weight();
                    let mut b = m.bindings.clone();
                    if unify(s, &fact.subject, &mut b)
                        && unify(r, &fact.relation, &mut b)
                        && unify(o, &fact.object, &mut b)
                    {
                        if next.len() == MAX_PARTIAL_MATCHES {
                            return Err(Error::Query(format!(
                                "the pattern joins to more than {MAX_PARTIAL_MATCHES} partial answers by triple \
                                 {} of {}; bind more of its terms",
                                1 + partial_step,
                                triples.len()
                            )));
                        }
                        let mut path = m.path.clone();
                        path.push(fact.clone());
                        next.push(GraphMatch { bindings: b, path });
                    }
                }
            }
            partial = next;
        }
        partial.sort();
        partial.dedup();
        Ok(GraphResult {
            pattern: pattern.trim().to_string(),
            variables,
            note: "Complete only relative to the graph: a fact that was never entered gives no answer.".into(),
            matches: partial,
        })
    }
}

fn unify(term: &Term, value: &str, bindings: &mut BTreeMap<String, String>) -> bool {
    match term {
        Term::Const(c) => c == value,
        Term::Var(v) => match bindings.get(v) {
            Some(bound) => bound == value,
            None => {
                bindings.insert(v.clone(), value.to_string());
                true
            }
        },
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const SAMPLE: &str = "node app | app | desktop app\nnode enc | plugin | e2e-encrypt, end-to-end encryption\n\
        node share | plugin | share-links\nnode sodium | library | libsodium\nnode svc | service | link service\n\
        fact app loads enc | p1\nfact app loads share | p2\nfact enc depends_on sodium | p3\nfact share depends_on svc | p4\n";

    fn graph() -> KnowledgeGraph {
        let (g, w) = KnowledgeGraph::parse(SAMPLE, Path::new("g.txt"));
        assert!(w.is_empty(), "{w:?}");
        g
    }

    #[test]
    fn join_returns_only_the_plugin_that_depends_on_the_library() {
        let r = graph().query("app loads ?p . ?p depends_on sodium").unwrap();
        assert_eq!(r.matches.len(), 1);
        assert_eq!(r.matches[0].bindings["?p"], "enc");
        assert_eq!(r.matches[0].path.iter().map(|f| f.passages[0].as_str()).collect::<Vec<_>>(), ["p1", "p3"]);
        let all = graph().query("app loads ?p").unwrap();
        assert_eq!(all.matches.iter().map(|m| m.bindings["?p"].as_str()).collect::<Vec<_>>(), ["enc", "share"]);
    }

    #[test]
    fn names_resolve_and_unknowns_are_specific_errors() {
        let g = graph();
        assert_eq!(g.query("?x loads e2e-encrypt").unwrap().matches.len(), 1);
        let e = g.query("app loads ?p . ?p depends_on openssl").unwrap_err().to_string();
        assert!(e.contains("unknown entity `openssl`"), "{e}");
        let e = g.query("app needs ?p").unwrap_err().to_string();
        assert!(e.contains("unknown relation `needs`"), "{e}");
        assert!(g.query("app loads").is_err());
    }

    #[test]
    fn bad_lines_warn_with_their_line_number() {
        let (g, w) =
            KnowledgeGraph::parse("node a | t | A\nnonsense\nfact a rel b | p\nfact a rel a\n", Path::new("g.txt"));
        assert_eq!(w.iter().map(|w| w.line).collect::<Vec<_>>(), [Some(2), Some(3), Some(4)], "in line order");
        assert_eq!(g.entities().len(), 1);
    }

    #[test]
    fn mentions_prefer_longest_names_at_word_boundaries() {
        let g = graph();
        let m = g.mentions("The desktop app loads e2e-encrypt; end-to-end encryption uses libsodium.");
        let ids: Vec<&str> = m.iter().map(|m| m.entity.as_str()).collect();
        assert_eq!(ids, ["app", "enc", "enc", "sodium"]);
        assert!(g.mentions("libsodiumx").is_empty());
    }

    #[test]
    fn patterns_are_bounded_with_errors_that_say_where() {
        let g = graph();
        let e = g.query("app loads ?p . ?p depends_on").unwrap_err().to_string();
        assert!(e.contains("triple 2 (`?p depends_on`) has 2 terms"), "{e}");
        let seventeen = vec!["app loads ?p"; 17].join(" . ");
        let e = g.query(&seventeen).unwrap_err().to_string();
        assert!(e.contains("more than 16 triples"), "{e}");
        assert!(g.query(&vec!["app loads ?p"; 16].join(" . ")).is_ok());
        assert!(g.query(&"x".repeat(20_000)).unwrap_err().to_string().contains("limit is 16384"));
        // SPARQL habit: a dot closing the last term.
        assert_eq!(g.query("app loads ?p. ?p depends_on sodium.").unwrap().matches.len(), 1);
        // 400 facts joined with themselves twice would be 64 million partial answers.
        let mut text = String::new();
        for i in 0..20 {
            text.push_str(&format!("node n{i} | t | n{i}\n"));
        }
        for i in 0..20 {
            for j in 0..20 {
                text.push_str(&format!("fact n{i} r n{j} | p\n"));
            }
        }
        let (big, w) = KnowledgeGraph::parse(&text, Path::new("g.txt"));
        assert!(w.is_empty());
        assert_eq!(big.query("?a r ?b . ?b r ?c").unwrap().matches.len(), 8000);
        let e = big.query("?a r ?b . ?c r ?d . ?e r ?f").unwrap_err().to_string();
        assert!(e.contains("more than 100000 partial answers by triple 2 of 3"), "{e}");
    }

    fn term() -> impl proptest::strategy::Strategy<Value = String> {
        use proptest::prelude::*;
        prop_oneof!["[a-z][a-z0-9_.-]{0,8}", "\\?[a-z]{1,4}", "\\PZ{1,6}"]
            .prop_map(|t| t.trim_end_matches('.').to_string())
            .prop_filter("a term", |t| !t.is_empty() && !t.chars().any(char::is_whitespace))
    }

    proptest::proptest! {
        #![proptest_config(proptest::prelude::ProptestConfig::with_cases(crate::proptest_cases()))]

        /// Patterns made of the sample's own names and two variables, so that many answer: the
        /// answers are exactly the ways of giving each triple one fact of the graph with every
        /// variable bound alike (counted here by trying every combination), each binding every
        /// variable and walking one fact per triple.
        #[test]
        fn patterns_of_the_graph_s_own_names_answer_every_consistent_walk(
            triples in proptest::collection::vec((0usize..6, 0usize..2, 0usize..6), 1..4),
        ) {
            const ENDS: [&str; 6] = ["app", "enc", "share", "sodium", "?p", "?q"];
            const RELATIONS: [&str; 2] = ["loads", "depends_on"];
            const FACTS: [[&str; 3]; 4] =
                [["app", "loads", "enc"], ["app", "loads", "share"], ["enc", "depends_on", "sodium"], ["share", "depends_on", "svc"]];
            let pattern: Vec<[&str; 3]> = triples.iter().map(|&(s, r, o)| [ENDS[s], RELATIONS[r], ENDS[o]]).collect();
            let text = pattern.iter().map(|t| t.join(" ")).collect::<Vec<_>>().join(" . ");
            let mut walks = 0;
            for choice in 0..FACTS.len().pow(pattern.len() as u32) {
                let mut bound: BTreeMap<&str, &str> = BTreeMap::new();
                let mut fits = true;
                for (k, t) in pattern.iter().enumerate() {
                    let fact = FACTS[choice / FACTS.len().pow(k as u32) % FACTS.len()];
                    for (term, value) in t.iter().zip(fact) {
                        fits &= if term.starts_with('?') { *bound.entry(term).or_insert(value) == value } else { *term == value };
                    }
                }
                walks += usize::from(fits);
            }
            let r = graph().query(&text).map_err(|e| proptest::test_runner::TestCaseError::fail(format!("{text}: {e}")))?;
            proptest::prop_assert_eq!(r.matches.len(), walks, "{}", text);
            let variables = ENDS.iter().filter(|v| v.starts_with('?') && text.contains(*v)).count();
            for m in &r.matches {
                proptest::prop_assert_eq!(m.bindings.len(), variables);
                proptest::prop_assert_eq!(m.path.len(), pattern.len());
            }
        }

        #[test]
        fn any_string_gives_answers_or_an_error(s in "\\PC{0,120}|((app|loads|depends_on|\\?p|sodium|enc|\\.| ){0,30})") {
            let parsed = s.parse::<GraphPattern>();
            if let Ok(p) = &parsed {
                let back = p.to_string().parse::<GraphPattern>().ok();
                proptest::prop_assert_eq!(back.as_ref(), Some(p));
            }
            match graph().query(&s) {
                Ok(r) => {
                    // A pattern that does not parse never answers; each answer binds every variable
                    // and walks one fact per triple.
                    proptest::prop_assert!(parsed.is_ok(), "{:?} answered but does not parse", s);
                    let triples = parsed.as_ref().map_or(0, |p| p.triples.len());
                    for m in &r.matches {
                        proptest::prop_assert_eq!(m.bindings.len(), r.variables.len());
                        proptest::prop_assert_eq!(m.path.len(), triples);
                    }
                }
                Err(e) => proptest::prop_assert!(!e.to_string().is_empty()),
            }
        }

        #[test]
        fn a_printed_pattern_parses_back_to_the_same_triples(
            triples in proptest::collection::vec([term(), term(), term()], 1..=MAX_TRIPLES)
        ) {
            let p = GraphPattern { triples };
            proptest::prop_assert_eq!(p.to_string().parse::<GraphPattern>().ok(), Some(p));
        }

        /// A graph written in the file format (nodes, facts, comments, bad lines among them) reads
        /// back with every node and fact, and a warning naming each bad line and no other.
        #[test]
        fn a_written_graph_reads_back_and_bad_lines_are_named(
            nodes in proptest::collection::btree_map(
                "[A-Za-z0-9_-][A-Za-z0-9_.é-]{0,8}",
                ("[a-z]{0,8}", proptest::collection::vec("[A-Za-z0-9][A-Za-z0-9 é-]{0,10}[A-Za-z0-9]", 1..3)),
                1..6,
            ),
            facts in proptest::collection::vec((0usize..6, "[a-z_]{1,10}", 0usize..6, proptest::collection::vec("[a-z0-9 -]{1,8}", 1..3)), 0..8),
            bad in proptest::collection::vec((0usize..20, 0usize..5), 0..4),
        ) {
            let ids: Vec<&String> = nodes.keys().collect();
            let mut lines: Vec<(String, bool)> = vec![("# a comment".into(), false), (String::new(), false)];
            for (id, (kind, names)) in &nodes {
                lines.push((format!("node {id} | {kind} | {}", names.join(", ")), false));
            }
            let mut want: Vec<Fact> = Vec::new();
            for (s, r, o, passages) in &facts {
                let (s, o) = (ids[s % ids.len()].clone(), ids[o % ids.len()].clone());
                let passages: Vec<String> = passages.iter().map(|p| p.trim().to_string()).filter(|p| !p.is_empty()).collect();
                if passages.is_empty() {
                    continue;
                }
                lines.push((format!("fact {s} {r} {o} | {}", passages.join(", ")), false));
                want.push(Fact { subject: s, relation: r.clone(), object: o, passages });
            }
            let bad_lines = [
                "node only-an-id",
                "fact a b | p",
                "fact x y z",
                "fact nobody knows-of nothing | p1",
                "edge a b c",
            ];
            for (at, which) in &bad {
                lines.insert(at % (lines.len() + 1), (bad_lines[which % bad_lines.len()].to_string(), true));
            }
            let text = lines.iter().map(|(l, _)| l.as_str()).collect::<Vec<_>>().join("\n");
            let (g, warnings) = KnowledgeGraph::parse(&text, Path::new("graph.txt"));
            let entities: Vec<(String, String, Vec<String>)> =
                g.entities().into_iter().map(|e| (e.id.clone(), e.kind.clone(), e.names.clone())).collect();
            let expected: Vec<(String, String, Vec<String>)> =
                nodes.iter().map(|(id, (kind, names))| (id.clone(), kind.clone(), names.clone())).collect();
            proptest::prop_assert_eq!(entities, expected);
            want.sort();
            proptest::prop_assert_eq!(g.facts().into_iter().cloned().collect::<Vec<_>>(), want);
            let named: Vec<usize> = warnings.iter().filter_map(|w| w.line).collect();
            let bad_at: Vec<usize> = lines.iter().enumerate().filter(|(_, (_, b))| *b).map(|(i, _)| i + 1).collect();
            proptest::prop_assert_eq!(named, bad_at, "{:?}", warnings);
            proptest::prop_assert!(warnings.iter().all(|w| w.file == Path::new("graph.txt")));
        }
    }
}
