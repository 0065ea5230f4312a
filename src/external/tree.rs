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
pub(crate) mod tests {
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

    /// Trees as engines write them: values of any size and sign, descriptions from Lucene's own
    /// and any other text (no line breaks or ` = `, which the text form cannot carry), up to five
    /// levels.
    pub(crate) fn explain_tree() -> impl proptest::strategy::Strategy<Value = ExplainNode> {
        use proptest::prelude::*;
        let description = prop_oneof![
            prop::sample::select(vec![
                "sum of:",
                "max of:",
                "product of:",
                "weight(text:sync in 4) [PerFieldSimilarity], result of:",
                "score(freq=2.0), computed as boost * idf * tf from:",
                "idf, computed as log(1 + (N - n + 0.5) / (n + 0.5)) from:",
                "n, number of documents containing term",
                "tf, computed as freq / (freq + k1 * (1 - b + b * dl / avgdl)) from:",
                "dl, length of field (approximate)",
                "boost",
            ])
            .prop_map(str::to_string),
            "[a-zA-Zé0-9(),:._*+/-][a-zA-Zé0-9 (),:._*+/-]{0,30}[a-zA-Zé0-9():._*+/-]",
        ];
        let value = prop_oneof![-1e6f64..1e6, Just(0.0), (0u32..100).prop_map(f64::from)];
        let leaf = (value.clone(), description.clone()).prop_map(|(v, d)| ExplainNode::leaf(v, d));
        leaf.prop_recursive(5, 48, 4, move |inner| {
            (value.clone(), description.clone(), prop::collection::vec(inner, 1..4))
                .prop_map(|(value, description, details)| ExplainNode { value, description, details })
        })
    }

    /// Every node with its path as the reader names it (`j`, `j.details[1].details[0]`).
    fn paths(node: &ExplainNode, at: String, out: &mut Vec<String>) {
        out.push(at.clone());
        for (i, d) in node.details.iter().enumerate() {
            paths(d, format!("{at}.details[{i}]"), out);
        }
    }

    /// The JSON node at a path, to damage it.
    fn node_at<'a>(v: &'a mut Value, path: &str) -> &'a mut Value {
        let mut v = v;
        for part in path.split(".details[").skip(1) {
            let i: usize = part.trim_end_matches(']').parse().unwrap_or(0);
            v = &mut v["details"][i];
        }
        v
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

        /// A tree written as JSON (as the engines write it) or in Lucene's text form reads back
        /// exactly.
        #[test]
        fn a_written_tree_reads_back_in_both_forms(tree in explain_tree()) {
            let json = serde_json::to_value(&tree).unwrap();
            proptest::prop_assert_eq!(ExplainNode::from_json(&json, "j").unwrap(), tree.clone());
            proptest::prop_assert_eq!(ExplainNode::parse_text(&tree.to_text(), "t").unwrap(), tree);
        }

        /// A damaged node anywhere in a tree is refused with its path named, and nothing panics.
        #[test]
        fn a_damaged_node_is_refused_with_its_path(tree in explain_tree(), pick in 0usize..1000, damage in 0usize..4) {
            let mut all = Vec::new();
            paths(&tree, "j".into(), &mut all);
            let path = all[pick % all.len()].clone();
            let mut json = serde_json::to_value(&tree).unwrap();
            let node = node_at(&mut json, &path);
            let named = match damage {
                0 => { node.as_object_mut().unwrap().remove("value"); path.clone() }
                1 => { node["value"] = Value::String("NaN".into()); format!("{path}.value") }
                2 => { node["details"] = serde_json::json!({"not": "a list"}); format!("{path}.details") }
                _ => { *node = serde_json::json!([1, 2]); path.clone() }
            };
            let e = ExplainNode::from_json(&json, "j").unwrap_err().to_string();
            proptest::prop_assert!(e.starts_with(&format!("{named}:")), "{} should name {}", e, named);
        }

        /// Any JSON value (objects and lists nested in any way): a tree or an error.
        #[test]
        fn any_json_reads_or_is_refused(v in json_value()) {
            if let Ok(tree) = ExplainNode::from_json(&v, "j") {
                proptest::prop_assert!(v.get("value").is_some());
                proptest::prop_assert_eq!(tree.walk().len() <= MAX_TREE_NODES, true);
            }
        }
    }

    /// Any JSON value, objects with the keys explanations use most of the time.
    fn json_value() -> impl proptest::strategy::Strategy<Value = Value> {
        use proptest::prelude::*;
        let leaf = prop_oneof![
            Just(Value::Null),
            any::<bool>().prop_map(Value::Bool),
            (-1e9f64..1e9).prop_map(|x| serde_json::json!(x)),
            "[a-z0-9. ]{0,8}".prop_map(Value::String),
        ];
        leaf.prop_recursive(4, 32, 4, |inner| {
            let key = prop_oneof![
                4 => prop::sample::select(vec!["value", "description", "details", "match"]).prop_map(str::to_string),
                1 => "[a-z]{1,5}",
            ];
            prop_oneof![
                prop::collection::vec(inner.clone(), 0..4).prop_map(Value::Array),
                prop::collection::btree_map(key, inner, 0..4).prop_map(|m| Value::Object(m.into_iter().collect())),
            ]
        })
    }
}
