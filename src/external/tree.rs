//! A search engine's score explanation as the tree it is: every Lucene-based engine
//! (Elasticsearch, OpenSearch, Solr) explains a score as nodes of `value`, `description` and
//! `details`, in JSON or, in Solr's plain debug output, as indented `value = description` lines.
//!
//! Both readers are bounded: at most [`MAX_TREE_DEPTH`] levels and [`MAX_TREE_NODES`] nodes, so a
//! hostile response is an error that names where it was refused, never a stack overflow.

use serde::{Deserialize, Serialize};
use serde_json::Value;

use crate::{Error, Result};

/// The deepest explanation tree read.
pub const MAX_TREE_DEPTH: usize = 100;
/// The most nodes in one explanation tree.
pub const MAX_TREE_NODES: usize = 100_000;

/// One node of an engine's explanation: its value, what it says it computed, and its parts.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ExplainNode {
    /// The node's value.
    pub value: f64,
    /// The engine's description (`weight(text:sync in 12) [PerFieldSimilarity], result of:`).
    pub description: String,
    /// Sub-explanations.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub details: Vec<ExplainNode>,
}

/// Counts nodes while a tree is read, refusing past the limits.
struct Budget {
    nodes: usize,
}

impl Budget {
    fn enter(&mut self, depth: usize, at: &str) -> Result<()> {
        self.nodes += 1;
        if depth > MAX_TREE_DEPTH {
            return Err(Error::invalid(at, format!("the explanation nests more than {MAX_TREE_DEPTH} levels deep")));
        }
        if self.nodes > MAX_TREE_NODES {
            return Err(Error::invalid(at, format!("the explanation has more than {MAX_TREE_NODES} nodes")));
        }
        Ok(())
    }
}

/// A number as engines write it: a JSON number, or a string holding one (some clients quote
/// floats). Non-finite values are refused.
pub(crate) fn number(v: &Value) -> Option<f64> {
    let x = match v {
        Value::Number(n) => n.as_f64()?,
        Value::String(s) => s.trim().parse().ok()?,
        _ => return None,
    };
    x.is_finite().then_some(x)
}

impl ExplainNode {
    /// A leaf.
    pub fn leaf(value: f64, description: impl Into<String>) -> Self {
        Self { value, description: description.into(), details: Vec::new() }
    }

    /// Read a JSON explanation (`{"value", "description", "details"}`, Solr's structured form with
    /// its extra `match`). `at` names the node in errors (`hits[2]._explanation`).
    pub fn from_json(v: &Value, at: &str) -> Result<Self> {
        Self::from_json_in(v, at, 0, &mut Budget { nodes: 0 })
    }

    fn from_json_in(v: &Value, at: &str, depth: usize, budget: &mut Budget) -> Result<Self> {
        budget.enter(depth, at)?;
        let Value::Object(o) = v else {
            return Err(Error::invalid(at, "an explanation node must be an object with value and description"));
        };
        let value = match o.get("value") {
            Some(x) => {
                number(x).ok_or_else(|| Error::invalid(format!("{at}.value"), format!("not a finite number: {x}")))?
            }
            None => return Err(Error::invalid(at, "an explanation node without a value")),
        };
        let description = match o.get("description") {
            Some(Value::String(s)) => s.clone(),
            Some(other) => other.to_string(),
            None => String::new(),
        };
        let details = match o.get("details") {
            None | Some(Value::Null) => Vec::new(),
            Some(Value::Array(items)) => items
                .iter()
                .enumerate()
                .map(|(i, d)| Self::from_json_in(d, &format!("{at}.details[{i}]"), depth + 1, budget))
                .collect::<Result<_>>()?,
            Some(_) => return Err(Error::invalid(format!("{at}.details"), "details must be a list")),
        };
        Ok(Self { value, description, details })
    }

    /// Read Lucene's plain-text explanation (`Explanation.toString()`, Solr's `debug.explain`
    /// strings): one `value = description` line per node, indented two spaces per level. A
    /// description that runs over several lines (Lucene 7's `score(doc=0,freq=1.0 = termFreq=1.0\n)`)
    /// is joined back.
    pub fn parse_text(text: &str, at: &str) -> Result<Self> {
        let mut budget = Budget { nodes: 0 };
        // (indent, node) for the open path from the root.
        let mut stack: Vec<(usize, ExplainNode)> = Vec::new();
        let mut roots: Vec<ExplainNode> = Vec::new();
        fn close(stack: &mut Vec<(usize, ExplainNode)>, roots: &mut Vec<ExplainNode>) {
            if let Some((_, node)) = stack.pop() {
                match stack.last_mut() {
                    Some((_, parent)) => parent.details.push(node),
                    None => roots.push(node),
                }
            }
        }
        for (i, line) in text.lines().enumerate() {
            if line.trim().is_empty() {
                continue;
            }
            let indent = line.len() - line.trim_start().len();
            let body = line.trim();
            let parsed = body
                .split_once(" = ")
                .or_else(|| body.strip_suffix(" =").map(|v| (v, "")))
                .and_then(|(v, d)| Some((v.trim().parse::<f64>().ok()?, d)));
            let Some((value, description)) = parsed else {
                // A continuation of the description above (`)` after a multi-line `score(...`).
                match stack.last_mut() {
                    Some((_, node)) => {
                        node.description.push(' ');
                        node.description.push_str(body);
                        continue;
                    }
                    None => {
                        return Err(Error::invalid(
                            format!("{at}:{}", i + 1),
                            "expected `value = description` (a Lucene explanation line)",
                        ));
                    }
                }
            };
            if !value.is_finite() {
                return Err(Error::invalid(format!("{at}:{}", i + 1), "the value is not a finite number"));
            }
            while stack.last().is_some_and(|(d, _)| *d >= indent) {
                close(&mut stack, &mut roots);
            }
            budget.enter(stack.len(), &format!("{at}:{}", i + 1))?;
            stack.push((indent, ExplainNode::leaf(value, description.trim_end())));
        }
        while !stack.is_empty() {
            close(&mut stack, &mut roots);
        }
        match roots.len() {
            0 => Err(Error::invalid(at, "the explanation is empty")),
            1 => Ok(roots.remove(0)),
            _ => {
                // Several top-level lines: an implicit sum, as Lucene prints a BooleanQuery's clauses.
                let value = roots.iter().map(|r| r.value).sum();
                Ok(ExplainNode { value, description: "sum of:".into(), details: roots })
            }
        }
    }

    /// The tree in Lucene's plain-text form, two spaces per level.
    pub fn to_text(&self) -> String {
        let mut out = String::new();
        self.write_text(0, &mut out);
        out
    }

    fn write_text(&self, depth: usize, out: &mut String) {
        out.push_str(&"  ".repeat(depth));
        out.push_str(&format!("{} = {}\n", self.value, self.description.replace('\n', " ")));
        for d in &self.details {
            d.write_text(depth + 1, out);
        }
    }

    /// Every node, depth first, with its depth.
    pub fn walk(&self) -> Vec<(usize, &ExplainNode)> {
        let mut out = Vec::new();
        let mut stack = vec![(0usize, self)];
        while let Some((depth, n)) = stack.pop() {
            out.push((depth, n));
            for d in n.details.iter().rev() {
                stack.push((depth + 1, d));
            }
        }
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn json_and_text_forms_read_the_same_tree() {
        let json = serde_json::json!({
            "value": 1.6943597, "description": "weight(message:elasticsearch in 0) [PerFieldSimilarity], result of:",
            "details": [{"value": 1.6943597, "description": "score(freq=1.0), product of:", "details": [
                {"value": 2.2, "description": "boost", "details": []},
                {"value": "1.3862944", "description": "idf", "details": []},
                {"value": 0.5555555, "description": "tf", "details": []}]}]
        });
        let tree = ExplainNode::from_json(&json, "hit").unwrap();
        assert_eq!(tree.details[0].details[1].value, 1.3862944);
        let again = ExplainNode::parse_text(&tree.to_text(), "text").unwrap();
        assert_eq!(again, tree);
        assert_eq!(tree.walk().iter().map(|(d, _)| *d).collect::<Vec<_>>(), [0, 1, 2, 2, 2]);
    }

    #[test]
    fn lucene_7_multi_line_descriptions_are_joined() {
        let text = "\n1.55 = weight(message:elasticsearch in 0) [PerFieldSimilarity], result of:\n  1.55 = score(doc=0,freq=1.0 = termFreq=1.0\n), product of:\n    1.38 = idf\n    1.12 = tfNorm\n";
        let tree = ExplainNode::parse_text(text, "solr").unwrap();
        assert_eq!(tree.details[0].description, "score(doc=0,freq=1.0 = termFreq=1.0 ), product of:");
        assert_eq!(tree.details[0].details.len(), 2);
    }

    #[test]
    fn hostile_trees_are_errors_that_say_where() {
        let mut v = serde_json::json!({"value": 1.0, "description": "leaf"});
        for _ in 0..(MAX_TREE_DEPTH + 5) {
            v = serde_json::json!({"value": 1.0, "description": "sum of:", "details": [v]});
        }
        let e = ExplainNode::from_json(&v, "hits[0]._explanation").unwrap_err().to_string();
        assert!(e.contains("nests more than 100 levels") && e.contains("hits[0]._explanation.details[0]"), "{e}");
        let e = ExplainNode::from_json(&serde_json::json!({"value": "NaN", "description": "x"}), "h").unwrap_err();
        assert!(e.to_string().contains("h.value: not a finite number"), "{e}");
        let e = ExplainNode::from_json(&serde_json::json!({"description": "x"}), "h").unwrap_err();
        assert!(e.to_string().contains("without a value"), "{e}");
        let deep: String = (0..300).map(|d| format!("{}1 = sum of:\n", "  ".repeat(d))).collect();
        let e = ExplainNode::parse_text(&deep, "resp.json").unwrap_err().to_string();
        assert!(e.contains("resp.json:102") && e.contains("nests more than 100"), "{e}");
        assert!(ExplainNode::parse_text("not an explanation", "x").is_err());
    }

    proptest::proptest! {
        #![proptest_config(proptest::prelude::ProptestConfig::with_cases(crate::proptest_cases()))]

        /// Any text: a tree or an error, never a panic; a tree printed reads back the same.
        #[test]
        fn any_text_reads_or_is_refused(text in "((  ){0,4}-?[0-9]{1,3}(\\.[0-9]{1,3})? = [a-z (),:]{0,12}\n){0,12}|\\PC{0,60}") {
            if let Ok(tree) = ExplainNode::parse_text(&text, "t") {
                let again = ExplainNode::parse_text(&tree.to_text(), "t");
                proptest::prop_assert_eq!(again.ok(), Some(tree));
            }
        }

        /// Any JSON value: a tree or an error.
        #[test]
        fn any_json_reads_or_is_refused(text in "[\\[\\]{}\",:0-9a-z .-]{0,80}") {
            if let Ok(v) = serde_json::from_str::<Value>(&text) {
                let _ = ExplainNode::from_json(&v, "j");
            }
        }
    }
}
