//! The agent's tools: RankLens's own methods over the corpus (each search a retriever the app
//! shows as a column), a read-only SQL statement over the corpus's tables, and a look-up in the
//! hand-built knowledge graph. Each call returns the passages it found, numbered as the model sees
//! them, and never fails the run: a bad call is told to the model as its observation.

use std::sync::Arc;

use serde_json::{Value, json};

use super::super::{QueryContext, Retriever};
use crate::corpus::{Corpus, DocId};
use crate::generate::ToolSpec;
use crate::generate::text_to_sql::{self, SqlOutcome};
use crate::structured::{KnowledgeGraph, SqlDatabase, SqlLimits};

/// Words of a passage an observation shows.
pub const OBSERVATION_WORDS: usize = 60;
/// Rows of a SQL result an observation shows.
pub const SQL_ROWS: usize = 20;

/// Every tool the agent may be given, by name.
pub const TOOL_NAMES: [&str; 5] = ["bm25", "dense", "splade", "sql", "graph"];

/// The tools of one run.
#[derive(Clone)]
pub struct Toolbox {
    corpus: Arc<Corpus>,
    /// Search tools: (name, retriever), in the order offered.
    search: Vec<(String, Arc<dyn Retriever>)>,
    sql: Option<SqlDatabase>,
    graph: Option<KnowledgeGraph>,
}

/// What one call found.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct ToolResult {
    /// The passages it returned, best first.
    pub docs: Vec<DocId>,
    /// Lines to show the model before the passages (SQL rows, graph facts).
    pub lines: Vec<String>,
    /// What was wrong with the call (the model is told).
    pub problem: Option<String>,
    /// The arguments as read.
    pub arguments: Value,
}

impl Toolbox {
    /// Tools over `corpus`: `search` as (name, retriever) pairs (`bm25`, `dense`, `splade`: those
    /// that can run here), the tables and the graph when the corpus has them.
    pub fn new(
        corpus: Arc<Corpus>,
        search: Vec<(String, Arc<dyn Retriever>)>,
        sql: Option<SqlDatabase>,
        graph: Option<KnowledgeGraph>,
    ) -> Self {
        Self { corpus, search, sql, graph }
    }

    /// Offer only the search tools named in `names` (SQL and the graph stay when the corpus has
    /// them).
    pub fn keep(&mut self, names: &[String]) {
        self.search.retain(|(n, _)| names.iter().any(|k| k.trim().eq_ignore_ascii_case(n)));
    }

    /// The corpus the tools search.
    pub fn corpus(&self) -> &Arc<Corpus> {
        &self.corpus
    }

    /// The tools' names, in the order offered.
    pub fn names(&self) -> Vec<String> {
        let mut out: Vec<String> = self.search.iter().map(|(n, _)| n.clone()).collect();
        if self.sql.is_some() {
            out.push("sql".into());
        }
        if self.graph.is_some() {
            out.push("graph".into());
        }
        out
    }

    /// The tools as the chat API offers them (name, description, JSON schema of the arguments).
    pub fn specs(&self) -> Vec<ToolSpec> {
        let query = json!({"type": "object", "properties": {"query": {"type": "string",
            "description": "what to search for, in words a passage would use"}}, "required": ["query"]});
        let mut out: Vec<ToolSpec> = self
            .search
            .iter()
            .map(|(name, r)| ToolSpec {
                name: name.clone(),
                description: format!(
                    "{}: search the collection; returns the best passages, numbered",
                    describe(name, r)
                ),
                parameters: query.clone(),
            })
            .collect();
        if let Some(db) = &self.sql {
            let schema = text_to_sql::schema_text(db).unwrap_or_default();
            out.push(ToolSpec {
                name: "sql".into(),
                description: format!(
                    "run one SQLite SELECT over the tables (read-only); rows with a passage column return those \
                     passages. Tables:\n{schema}"
                ),
                parameters: json!({"type": "object", "properties": {"sql": {"type": "string"}}, "required": ["sql"]}),
            });
        }
        if self.graph.is_some() {
            out.push(ToolSpec {
                name: "graph".into(),
                description: "look an entity up in the knowledge graph: its facts and the passages they cite".into(),
                parameters: json!({"type": "object", "properties": {"entity": {"type": "string"}},
                    "required": ["entity"]}),
            });
        }
        out
    }

    /// The tools for the text protocol's instructions: `- bm25: …`, one per line.
    pub fn described(&self) -> String {
        self.specs()
            .iter()
            .map(|s| {
                let what = s.description.lines().next().unwrap_or("");
                let input = match s.name.as_str() {
                    "sql" => "a SQL SELECT statement",
                    "graph" => "an entity's name",
                    _ => "a search query",
                };
                format!("- {}: {what}. Input: {input}.", s.name)
            })
            .collect::<Vec<_>>()
            .join("\n")
    }

    /// Run one call: `name` with `arguments` as the model wrote them (JSON, or plain text taken as
    /// the tool's one input), `per_call` passages at most from a search. `question` carries the question's filter to every search.
    pub fn call(&self, name: &str, arguments: &str, question: &QueryContext, per_call: usize) -> ToolResult {
        let name = name.trim().trim_matches(|c: char| c == '`' || c == '"' || c == '\'').to_ascii_lowercase();
        let (arguments, not_json) = read_arguments(arguments, &name);
        let input = |keys: &[&str]| -> String {
            keys.iter()
                .find_map(|k| arguments.get(*k).and_then(Value::as_str))
                .map(str::to_string)
                .or_else(|| arguments.as_object().and_then(|o| o.values().find_map(Value::as_str).map(str::to_string)))
                .unwrap_or_default()
        };
        let mut result = ToolResult { arguments: arguments.clone(), ..ToolResult::default() };
        if let Some(how) = not_json {
            result.problem = Some(how);
        }
        if let Some((_, retriever)) = self.search.iter().find(|(n, _)| *n == name) {
            let query = input(&["query", "q", "text", "input"]);
            if query.trim().is_empty() {
                result.problem = Some(format!("{name} was called without a query"));
                return result;
            }
            match retriever.prepare(&question.with_text(query.as_str())).and_then(|p| p.search(per_call.max(1))) {
                Ok(r) => result.docs = r.docs(),
                Err(e) => result.problem = Some(format!("{name} failed: {e}")),
            }
            return result;
        }
        match (name.as_str(), &self.sql, &self.graph) {
            ("sql", Some(db), _) => {
                let sql = text_to_sql::extract_sql(&input(&["sql", "query", "statement"]));
                match text_to_sql::run(db, &sql, SqlLimits { max_rows: SQL_ROWS, ..SqlLimits::default() }) {
                    SqlOutcome::Rows(rows) => {
                        result.lines.push(format!(
                            "{} row{}",
                            rows.rows.len(),
                            if rows.rows.len() == 1 { "" } else { "s" }
                        ));
                        for row in &rows.rows {
                            let cells: Vec<String> =
                                rows.columns.iter().zip(row).map(|(c, v)| format!("{c}={v}")).collect();
                            result.lines.push(cells.join(" | "));
                        }
                        result.docs = unique(rows.passages.iter().filter_map(|p| self.corpus.lookup(p)));
                    }
                    SqlOutcome::Refused(why) => result.problem = Some(format!("sql refused: {why}")),
                    SqlOutcome::Failed(why) => result.problem = Some(format!("sql failed: {why}")),
                }
            }
            ("graph", _, Some(g)) => {
                let name = input(&["entity", "name", "query"]);
                match g.resolve(name.trim()) {
                    None => {
                        let known: Vec<String> = g.entities().iter().map(|e| e.id.clone()).collect();
                        result.problem =
                            Some(format!("the graph has no entity `{}`; it has {}", name.trim(), known.join(", ")));
                    }
                    Some(id) => {
                        let facts: Vec<_> =
                            g.facts().into_iter().filter(|f| f.subject == id || f.object == id).collect();
                        result.lines.push(format!(
                            "{} fact{} about {id}",
                            facts.len(),
                            if facts.len() == 1 { "" } else { "s" }
                        ));
                        for f in &facts {
                            result.lines.push(format!(
                                "{} {} {} ({})",
                                f.subject,
                                f.relation,
                                f.object,
                                f.passages.join(", ")
                            ));
                        }
                        result.docs =
                            unique(facts.iter().flat_map(|f| f.passages.iter()).filter_map(|p| self.corpus.lookup(p)));
                    }
                }
            }
            _ => result.problem = Some(format!("there is no tool `{name}`; the tools are {}", self.names().join(", "))),
        }
        result
    }
}

/// How a search tool is described to the model.
fn describe(name: &str, retriever: &Arc<dyn Retriever>) -> String {
    match name {
        "bm25" => "keyword search (BM25): finds passages sharing the query's words".into(),
        "dense" => "meaning search (dense embeddings): finds passages that say the same in other words".into(),
        "splade" => "learned sparse search (SPLADE): keywords expanded with related terms".into(),
        _ => retriever.label(),
    }
}

/// The arguments as JSON: an object as written, a JSON string or any other text taken as the one
/// input the tool needs (with a note that it was not JSON).
fn read_arguments(text: &str, tool: &str) -> (Value, Option<String>) {
    let key = match tool {
        "sql" => "sql",
        "graph" => "entity",
        _ => "query",
    };
    let trimmed = text.trim();
    match serde_json::from_str::<Value>(trimmed) {
        Ok(v @ Value::Object(_)) => (v, None),
        Ok(Value::String(s)) => (json!({ key: s }), None),
        _ if trimmed.is_empty() => (json!({}), None),
        _ if trimmed.starts_with('{') => {
            (json!({ key: trimmed }), Some("the arguments were not valid JSON; their text was used".into()))
        }
        _ => (json!({ key: trimmed }), None),
    }
}

fn unique(docs: impl Iterator<Item = DocId>) -> Vec<DocId> {
    let mut out: Vec<DocId> = Vec::new();
    for d in docs {
        if !out.contains(&d) {
            out.push(d);
        }
    }
    out
}
