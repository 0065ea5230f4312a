//! Search-engine responses: the hits in order with their scores and explanations.
//!
//! Shapes read (each from the engines' reference documentation):
//! - Elasticsearch 6–8 and OpenSearch 1–2 `_search` with `"explain": true`: `hits.hits[]` with
//!   `_id`, `_score` and `_explanation` (the total is a number in 6, an object from 7);
//! - their `_explain` API: `{_id, matched, explanation}`, one document;
//! - Solr `select` with `debugQuery=true`: `response.docs[]` with the id field and `score`, and
//!   `debug.explain` mapping each id to a structured node (`debug.explain.structured=true`) or to
//!   Lucene's plain-text explanation (older versions and the default);
//! - Vespa `search/`: `root.children[]` with `id` (`id:namespace:type::user-id`), `relevance` and
//!   `fields.matchfeatures` / `fields.summaryfeatures`.
//!
//! An error body (`{"error": …}`) becomes an error with the engine's own reason. A hit whose
//! explanation cannot be read keeps it raw with the reason; nothing is dropped.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};
use serde_json::Value;

use super::tree::{ExplainNode, number};
use crate::{Error, Result};

/// Which engine's response shape it is.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub enum ResponseShape {
    /// Elasticsearch or OpenSearch `_search`.
    Search,
    /// Elasticsearch or OpenSearch `_explain` (one document).
    Explain,
    /// Solr `select`.
    Solr,
    /// Vespa `search/`.
    Vespa,
}

impl ResponseShape {
    /// The engines that answer in this shape.
    pub fn engines(self) -> &'static str {
        match self {
            ResponseShape::Search => "Elasticsearch / OpenSearch",
            ResponseShape::Explain => "Elasticsearch / OpenSearch _explain",
            ResponseShape::Solr => "Solr",
            ResponseShape::Vespa => "Vespa",
        }
    }
}

/// One hit of a response.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct EngineHit {
    /// The document id (the id field's value, `_id`, or Vespa's user id).
    pub id: String,
    /// The engine's score (`None` when it gave none, e.g. sorted by a field).
    pub score: Option<f64>,
    /// The explanation tree, when the response carries one that could be read.
    pub explanation: Option<ExplainNode>,
    /// An explanation that could not be read, as it came, with why.
    pub raw_explanation: Option<(String, String)>,
    /// Rank features the engine returned (Vespa's match and summary features), name → value.
    pub features: BTreeMap<String, f64>,
}

/// A response: its hits in the engine's order.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct EngineResponse {
    /// How it was written.
    pub shape: ResponseShape,
    /// Hits in the engine's order.
    pub hits: Vec<EngineHit>,
    /// Matches the engine counted (may exceed the hits returned).
    pub total: Option<u64>,
    /// Problems met while reading, each naming where (a hit without an id is one).
    pub problems: Vec<String>,
}

/// Where in a response (`hits.hits[3]`), for messages.
fn path(base: &str, rest: &str) -> String {
    if base.is_empty() { rest.to_string() } else { format!("{base}: {rest}") }
}

/// The engine's own message in an error body, if the body is one.
pub fn error_reason(v: &Value) -> Option<String> {
    let e = v.get("error")?;
    // Elasticsearch / OpenSearch: {"error": {"type", "reason", "root_cause": [...]}, "status"}.
    if let Some(reason) = e.get("reason").and_then(Value::as_str) {
        let kind = e.get("type").and_then(Value::as_str).unwrap_or("error");
        return Some(format!("{kind}: {reason}"));
    }
    // Solr: {"error": {"msg", "code"}}.
    if let Some(msg) = e.get("msg").and_then(Value::as_str) {
        return Some(msg.to_string());
    }
    Some(e.as_str().map_or_else(|| e.to_string(), str::to_string))
}

/// A value as an id (strings as they are, numbers written out).
fn id_of(v: &Value) -> Option<String> {
    match v {
        Value::String(s) => Some(s.clone()),
        Value::Number(n) => Some(n.to_string()),
        Value::Array(a) => a.first().and_then(id_of),
        _ => None,
    }
}

/// A dotted field (`meta.doc_id`) inside an object.
fn field<'a>(v: &'a Value, name: &str) -> Option<&'a Value> {
    name.split('.').try_fold(v, |v, part| v.get(part))
}

impl EngineResponse {
    /// Read a response body. `id_field` names the field that holds the corpus's document id
    /// when it is not the engine's own id (`_source.doc_id`, Solr's `id`, a Vespa field).
    /// `source` names the body in errors.
    pub fn parse(v: &Value, id_field: Option<&str>, source: &str) -> Result<EngineResponse> {
        if let Some(reason) = error_reason(v) {
            return Err(Error::invalid(source, format!("the engine answered with an error: {reason}")));
        }
        if v.get("root")
            .is_some_and(|r| r.get("children").is_some() || r.get("fields").is_some() || r.get("errors").is_some())
        {
            return Self::vespa(v, id_field, source);
        }
        if v.get("response").is_some_and(|r| r.get("docs").is_some()) {
            return Self::solr(v, id_field, source);
        }
        if v.get("explanation").is_some() && v.get("matched").is_some() {
            return Self::explain_api(v, source);
        }
        if let Some(hits) = v.get("hits") {
            return Self::search(hits, id_field, source);
        }
        let keys: Vec<String> = v.as_object().map(|o| o.keys().take(6).cloned().collect()).unwrap_or_default();
        Err(Error::invalid(
            source,
            format!(
                "not a search response: no `hits` (Elasticsearch, OpenSearch), `response.docs` (Solr) or `root` \
                 (Vespa); its keys are {keys:?}"
            ),
        ))
    }

    fn search(hits: &Value, id_field: Option<&str>, source: &str) -> Result<EngineResponse> {
        let total = match hits.get("total") {
            Some(Value::Number(n)) => n.as_u64(),
            Some(t) => t.get("value").and_then(Value::as_u64),
            None => None,
        };
        let Some(list) = hits.get("hits").and_then(Value::as_array) else {
            return Err(Error::invalid(source, "`hits` holds no `hits` list"));
        };
        let mut problems = Vec::new();
        let mut out = Vec::with_capacity(list.len());
        for (i, h) in list.iter().enumerate() {
            let at = format!("hits.hits[{i}]");
            let id = match id_field {
                Some(f) => field(h, &format!("_source.{f}"))
                    .or_else(|| field(h, &format!("fields.{f}")))
                    .or_else(|| field(h, f))
                    .and_then(id_of),
                None => h.get("_id").and_then(id_of),
            };
            let Some(id) = id else {
                problems.push(path(source, &format!("{at} has no {}; skipped", id_field.unwrap_or("_id"))));
                continue;
            };
            let mut hit = EngineHit {
                id,
                score: h.get("_score").and_then(number),
                explanation: None,
                raw_explanation: None,
                features: BTreeMap::new(),
            };
            if let Some(e) = h.get("_explanation") {
                read_tree(&mut hit, e, &format!("{at}._explanation"));
            }
            out.push(hit);
        }
        Ok(EngineResponse { shape: ResponseShape::Search, hits: out, total, problems })
    }

    fn explain_api(v: &Value, source: &str) -> Result<EngineResponse> {
        let id =
            v.get("_id").and_then(id_of).ok_or_else(|| Error::invalid(source, "the _explain response has no _id"))?;
        let mut hit =
            EngineHit { id, score: None, explanation: None, raw_explanation: None, features: BTreeMap::new() };
        if let Some(e) = v.get("explanation") {
            read_tree(&mut hit, e, "explanation");
            hit.score = hit.explanation.as_ref().map(|t| t.value);
        }
        let matched = v.get("matched").and_then(Value::as_bool).unwrap_or(true);
        let mut problems = Vec::new();
        if !matched {
            problems.push(path(source, "the document does not match the query (`matched: false`)"));
        }
        Ok(EngineResponse { shape: ResponseShape::Explain, hits: vec![hit], total: Some(u64::from(matched)), problems })
    }

    fn solr(v: &Value, id_field: Option<&str>, source: &str) -> Result<EngineResponse> {
        let response = &v["response"];
        let Some(docs) = response.get("docs").and_then(Value::as_array) else {
            return Err(Error::invalid(source, "`response.docs` is not a list"));
        };
        let explain = v.get("debug").and_then(|d| d.get("explain"));
        let key = id_field.unwrap_or("id");
        let mut problems = Vec::new();
        let mut hits = Vec::with_capacity(docs.len());
        for (i, d) in docs.iter().enumerate() {
            let at = format!("response.docs[{i}]");
            let Some(id) = field(d, key).and_then(id_of) else {
                problems.push(path(source, &format!("{at} has no `{key}` field; skipped (is `fl` missing it?)")));
                continue;
            };
            let mut hit = EngineHit {
                score: d.get("score").and_then(number),
                explanation: None,
                raw_explanation: None,
                features: BTreeMap::new(),
                id,
            };
            if let Some(e) = explain.and_then(|e| e.get(&hit.id)) {
                let at = format!("debug.explain[{:?}]", hit.id);
                read_tree(&mut hit, e, &at);
            }
            if hit.score.is_none() {
                hit.score = hit.explanation.as_ref().map(|t| t.value);
            }
            hits.push(hit);
        }
        if explain.is_none() && !docs.is_empty() {
            problems.push(path(source, "no `debug.explain` (ask with debugQuery=true): the hits carry no explanation"));
        }
        Ok(EngineResponse {
            shape: ResponseShape::Solr,
            hits,
            total: response.get("numFound").and_then(Value::as_u64),
            problems,
        })
    }

    fn vespa(v: &Value, id_field: Option<&str>, source: &str) -> Result<EngineResponse> {
        let root = &v["root"];
        if let Some(errors) = root.get("errors").and_then(Value::as_array).filter(|e| !e.is_empty()) {
            let msgs: Vec<String> = errors
                .iter()
                .map(|e| {
                    let summary = e.get("summary").and_then(Value::as_str).unwrap_or("error");
                    let message = e.get("message").and_then(Value::as_str).unwrap_or("");
                    format!("{summary} {message}").trim().to_string()
                })
                .collect();
            return Err(Error::invalid(source, format!("the engine answered with an error: {}", msgs.join("; "))));
        }
        let total = root.get("fields").and_then(|f| f.get("totalCount")).and_then(Value::as_u64);
        let children = root.get("children").and_then(Value::as_array).cloned().unwrap_or_default();
        let mut problems = Vec::new();
        let mut hits = Vec::with_capacity(children.len());
        for (i, c) in children.iter().enumerate() {
            let at = format!("root.children[{i}]");
            let fields = c.get("fields");
            let id = match id_field {
                Some(f) => fields.and_then(|x| field(x, f)).and_then(id_of),
                None => c
                    .get("id")
                    .and_then(Value::as_str)
                    .or_else(|| fields.and_then(|x| x.get("documentid")).and_then(Value::as_str))
                    .map(|s| s.rsplit_once("::").map_or(s, |(_, user)| user).to_string()),
            };
            let Some(id) = id else {
                problems.push(path(source, &format!("{at} has no document id; skipped")));
                continue;
            };
            let mut features = BTreeMap::new();
            for group in ["matchfeatures", "summaryfeatures", "rankfeatures"] {
                if let Some(Value::Object(m)) = fields.and_then(|f| f.get(group)) {
                    for (k, x) in m {
                        if k.starts_with("vespa.summaryFeatures") {
                            continue;
                        }
                        match number(x) {
                            Some(n) => {
                                features.insert(k.clone(), n);
                            }
                            None => problems.push(path(source, &format!("{at}.fields.{group}.{k} is not a number"))),
                        }
                    }
                }
            }
            hits.push(EngineHit {
                id,
                score: c.get("relevance").and_then(number),
                explanation: None,
                raw_explanation: None,
                features,
            });
        }
        Ok(EngineResponse { shape: ResponseShape::Vespa, hits, total, problems })
    }

    /// The hits' scores in order, for a run: the engine's score, or 1/rank where it gave none.
    pub fn scored(&self) -> Vec<(String, f64)> {
        let all_scored = self.hits.iter().all(|h| h.score.is_some());
        self.hits
            .iter()
            .enumerate()
            .map(|(i, h)| (h.id.clone(), if all_scored { h.score.unwrap_or(0.0) } else { 1.0 / (i + 1) as f64 }))
            .collect()
    }
}

/// Read a hit's explanation: JSON nodes, or Lucene's text form in a string; kept raw otherwise.
fn read_tree(hit: &mut EngineHit, e: &Value, at: &str) {
    let parsed = match e {
        Value::String(s) => ExplainNode::parse_text(s, at),
        other => ExplainNode::from_json(other, at),
    };
    match parsed {
        Ok(tree) => hit.explanation = Some(tree),
        Err(err) => {
            let raw = match e {
                Value::String(s) => s.clone(),
                other => serde_json::to_string_pretty(other).unwrap_or_default(),
            };
            hit.raw_explanation = Some((raw, err.report()));
        }
    }
}

/// Responses saved to a file: one response (for one question), or JSON Lines of
/// `{"query_id": …, "response": {…}}` (one per query id of a question set).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct SavedResponses {
    /// The column's name (the file name unless given).
    pub name: String,
    /// The file.
    pub source: PathBuf,
    /// The one response of a single-question file.
    pub single: Option<EngineResponse>,
    /// Responses by query id.
    pub by_query: BTreeMap<String, EngineResponse>,
    /// Problems met, each naming the file and line or hit.
    pub problems: Vec<String>,
}

/// The key of a line's query id.
const QUERY_KEYS: [&str; 4] = ["query_id", "qid", "query-id", "queryId"];

impl SavedResponses {
    /// Read a saved response file; `name` overrides the column name.
    pub fn load(path: &Path, name: Option<&str>, id_field: Option<&str>) -> Result<SavedResponses> {
        let bytes = std::fs::read(path).map_err(|e| Error::io(path, e))?;
        let name = name.map(str::to_string).unwrap_or_else(|| crate::eval::RunFile::default_name(path));
        Self::parse(&bytes, path, &name, id_field)
    }

    /// Does this text look like a saved engine response (rather than a run or a corpus)?
    pub fn sniff(text: &str) -> bool {
        let first = text.trim_start();
        let line = first.lines().next().unwrap_or("");
        let probe = |v: &Value| {
            v.get("hits").is_some_and(|h| h.get("hits").is_some())
                || v.get("response").is_some_and(|r| r.get("docs").is_some())
                || v.get("root").is_some_and(|r| r.get("children").is_some() || r.get("fields").is_some())
                || (v.get("explanation").is_some() && v.get("matched").is_some())
                || v.get("response").is_some_and(|r| r.is_object()) && QUERY_KEYS.iter().any(|k| v.get(k).is_some())
        };
        if serde_json::from_str::<Value>(line).ok().is_some_and(|v| probe(&v)) {
            return true;
        }
        if !first.starts_with('{') {
            return false;
        }
        if let Ok(v) = serde_json::from_str::<Value>(first) {
            return probe(&v);
        }
        // The start of a large pretty-printed response: the keys only responses have.
        let has = |k: &str| first.contains(&format!("\"{k}\""));
        has("_explanation")
            || (has("hits") && has("_score"))
            || (has("response") && has("numFound"))
            || (has("root") && has("relevance"))
            || (has("matched") && has("explanation"))
    }

    /// Parse saved responses (`source` names the file in messages).
    pub fn parse(bytes: &[u8], source: &Path, name: &str, id_field: Option<&str>) -> Result<SavedResponses> {
        let text = std::str::from_utf8(bytes)
            .map_err(|e| Error::invalid(source.display().to_string(), format!("not UTF-8 text: {e}")))?;
        let file = source.display().to_string();
        let mut saved = SavedResponses {
            name: name.to_string(),
            source: source.to_path_buf(),
            single: None,
            by_query: BTreeMap::new(),
            problems: Vec::new(),
        };
        // One JSON document (pretty-printed or not) is one response.
        if let Ok(v) = serde_json::from_str::<Value>(text)
            && !QUERY_KEYS.iter().any(|k| v.get(k).is_some())
        {
            {
                let r = EngineResponse::parse(&v, id_field, &file)?;
                saved.problems.extend(r.problems.iter().cloned());
                saved.single = Some(r);
                return Ok(saved);
            }
        }
        for (i, line) in text.lines().enumerate() {
            let at = format!("{file}:{}", i + 1);
            if line.trim().is_empty() {
                continue;
            }
            let v: Value = match serde_json::from_str(line) {
                Ok(v) => v,
                Err(e) => {
                    saved.problems.push(format!("{at}: not JSON ({e}); skipped"));
                    continue;
                }
            };
            let Some(qid) = QUERY_KEYS.iter().find_map(|k| v.get(*k)).and_then(id_of) else {
                saved.problems.push(format!("{at}: no query_id; skipped"));
                continue;
            };
            let body = v.get("response").unwrap_or(&v);
            match EngineResponse::parse(body, id_field, &at) {
                Ok(r) => {
                    saved.problems.extend(r.problems.iter().cloned());
                    if saved.by_query.insert(qid.clone(), r).is_some() {
                        saved.problems.push(format!("{at}: query {qid} answered again; this later response is kept"));
                    }
                }
                Err(e) => saved.problems.push(format!("{}; skipped", e.report())),
            }
        }
        if saved.by_query.is_empty() {
            let why = saved.problems.first().cloned().unwrap_or_else(|| "the file is empty".to_string());
            return Err(Error::invalid(file, format!("no response could be read ({why})")));
        }
        Ok(saved)
    }

    /// The responses of a question set as a run (query id → documents by score), for evaluation.
    pub fn to_run(&self) -> crate::eval::Run {
        let mut run = crate::eval::Run::default();
        for (qid, r) in &self.by_query {
            let mut list = r.scored();
            // trec_eval's order: score descending, then document id descending.
            list.sort_by(|a, b| b.1.total_cmp(&a.1).then_with(|| b.0.cmp(&a.0)));
            run.results.insert(qid.clone(), list);
        }
        run
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn errors_from_each_engine_carry_its_reason() {
        let es = serde_json::json!({"error": {"root_cause": [], "type": "index_not_found_exception", "reason": "no such index [scifact]"}, "status": 404});
        let e = EngineResponse::parse(&es, None, "r.json").unwrap_err().to_string();
        assert_eq!(e, "r.json: the engine answered with an error: index_not_found_exception: no such index [scifact]");
        let solr = serde_json::json!({"responseHeader": {"status": 400}, "error": {"msg": "undefined field texxt", "code": 400}});
        assert!(EngineResponse::parse(&solr, None, "s").unwrap_err().to_string().ends_with("undefined field texxt"));
        let vespa = serde_json::json!({"root": {"id": "toplevel", "relevance": 1.0, "errors": [{"code": 4, "summary": "Invalid query parameter", "message": "Could not parse"}]}});
        assert!(
            EngineResponse::parse(&vespa, None, "v")
                .unwrap_err()
                .to_string()
                .contains("Invalid query parameter Could not parse")
        );
        let other = serde_json::json!({"took": 3});
        assert!(EngineResponse::parse(&other, None, "o").unwrap_err().to_string().contains("not a search response"));
    }

    #[test]
    fn hits_without_ids_or_with_unreadable_explanations_are_kept_or_named() {
        let v = serde_json::json!({"hits": {"total": 3, "hits": [
            {"_id": "a", "_score": 2.0, "_explanation": {"value": 2.0, "description": "weight(t:x in 0)", "details": "oops"}},
            {"_score": 1.0},
            {"_id": 7, "_score": null}
        ]}});
        let r = EngineResponse::parse(&v, None, "r.json").unwrap();
        assert_eq!(r.hits.iter().map(|h| h.id.as_str()).collect::<Vec<_>>(), ["a", "7"]);
        assert_eq!(r.problems, ["r.json: hits.hits[1] has no _id; skipped"]);
        let (raw, why) = r.hits[0].raw_explanation.clone().unwrap();
        assert!(raw.contains("oops") && why.contains("hits.hits[0]._explanation.details"), "{why}");
        // A hit without a score makes the run rank-based.
        assert_eq!(r.scored(), [("a".to_string(), 1.0), ("7".to_string(), 0.5)]);
        let by_source =
            serde_json::json!({"hits": {"hits": [{"_id": "x1", "_score": 1.0, "_source": {"doc": {"id": "d9"}}}]}});
        assert_eq!(EngineResponse::parse(&by_source, Some("doc.id"), "r").unwrap().hits[0].id, "d9");
    }

    #[test]
    fn json_lines_of_responses_by_query_id() {
        let text = concat!(
            "{\"query_id\": \"1\", \"response\": {\"hits\": {\"hits\": [{\"_id\": \"a\", \"_score\": 1.5}]}}}\n",
            "not json\n",
            "{\"qid\": 2, \"hits\": {\"hits\": [{\"_id\": \"b\", \"_score\": 0.5}]}}\n",
            "{\"response\": {\"hits\": {\"hits\": []}}}\n",
        );
        let s = SavedResponses::parse(text.as_bytes(), Path::new("r.jsonl"), "es", None).unwrap();
        assert_eq!(s.by_query.keys().collect::<Vec<_>>(), ["1", "2"]);
        assert_eq!(s.problems.len(), 2);
        assert!(s.problems[0].starts_with("r.jsonl:2: not JSON") && s.problems[1] == "r.jsonl:4: no query_id; skipped");
        assert_eq!(s.to_run().results["2"], [("b".to_string(), 0.5)]);
        assert!(SavedResponses::sniff(text) && !SavedResponses::sniff("1 Q0 d 1 2.0 x\n"));
    }

    proptest::proptest! {
        #![proptest_config(proptest::prelude::ProptestConfig::with_cases(crate::proptest_cases()))]

        /// Any bytes: responses or an error naming the file, never a panic.
        #[test]
        fn arbitrary_bytes_read_or_are_refused(bytes in proptest::collection::vec(proptest::prelude::any::<u8>(), 0..400)) {
            match SavedResponses::parse(&bytes, Path::new("r.json"), "r", None) {
                Ok(s) => {
                    proptest::prop_assert_eq!(&s.name, "r");
                    for p in &s.problems {
                        proptest::prop_assert!(p.contains("r.json"), "{:?}", p);
                    }
                }
                Err(e) => proptest::prop_assert!(e.to_string().contains("r.json"), "{}", e),
            }
        }

        /// Mutations of a valid response: never a panic, and every hit that keeps an id is read.
        #[test]
        fn mutated_responses_read_or_are_refused(
            cut in 0usize..400,
            junk in "[\\[\\]{}\",:0-9a-z_ .-]{0,12}",
            shape in 0usize..3,
        ) {
            let bodies = [
                r#"{"hits":{"total":{"value":2},"hits":[{"_id":"a","_score":1.5,"_explanation":{"value":1.5,"description":"weight(t:x in 0) [P], result of:","details":[]}},{"_id":"b","_score":0.5}]}}"#,
                r#"{"response":{"numFound":1,"docs":[{"id":"a","score":1.0}]},"debug":{"explain":{"a":"\n1.0 = weight(t:x in 0) [S], result of:\n  1.0 = idf\n"}}}"#,
                r#"{"root":{"fields":{"totalCount":1},"children":[{"id":"id:n:d::a","relevance":0.5,"fields":{"matchfeatures":{"bm25(t)":0.5}}}]}}"#,
            ];
            let body = bodies[shape];
            let cut = cut.min(body.len());
            let text = format!("{}{junk}{}", &body[..cut], &body[cut..]);
            let expected_hits = [2, 1, 1][shape];
            match SavedResponses::parse(text.as_bytes(), Path::new("r.json"), "r", None) {
                Ok(s) => {
                    for r in s.single.iter().chain(s.by_query.values()) {
                        proptest::prop_assert!(r.hits.iter().all(|h| h.score.is_none_or(f64::is_finite)));
                        proptest::prop_assert!(r.hits.len() <= expected_hits + 1);
                    }
                }
                Err(e) => proptest::prop_assert!(!junk.is_empty() && e.to_string().contains("r.json"), "{}", e),
            }
        }

        /// Hits written in Elasticsearch's and Solr's documented shapes, alone or as JSON Lines by
        /// query id, read back with their ids, scores and explanation trees.
        #[test]
        fn written_responses_read_back(
            hits in proptest::collection::btree_map(
                "[A-Za-z0-9_.:/-]{1,12}",
                (-1e4f64..1e4, proptest::option::of(crate::external::tree::tests::explain_tree())),
                0..6,
            ),
            solr in proptest::prelude::any::<bool>(),
            lines in proptest::prelude::any::<bool>(),
        ) {
            use serde_json::json;
            let hits: Vec<(String, f64, Option<ExplainNode>)> = hits.into_iter().map(|(id, (s, t))| (id, s, t)).collect();
            let body = if solr {
                let docs: Vec<Value> = hits.iter().map(|(id, s, _)| json!({"id": id, "score": s})).collect();
                let explain: serde_json::Map<String, Value> = hits
                    .iter()
                    .filter_map(|(id, _, t)| Some((id.clone(), serde_json::to_value(t.as_ref()?).ok()?)))
                    .collect();
                json!({"response": {"numFound": hits.len(), "docs": docs}, "debug": {"explain": explain}})
            } else {
                let hs: Vec<Value> = hits
                    .iter()
                    .map(|(id, s, t)| match t {
                        Some(t) => json!({"_id": id, "_score": s, "_explanation": t}),
                        None => json!({"_id": id, "_score": s}),
                    })
                    .collect();
                json!({"hits": {"total": {"value": hits.len()}, "hits": hs}})
            };
            let text = if lines {
                format!("{}\n{}\n", json!({"query_id": "q 1", "response": body}), json!({"query_id": "q2", "response": body}))
            } else {
                body.to_string()
            };
            let saved = SavedResponses::parse(text.as_bytes(), Path::new("r.json"), "r", None).unwrap();
            let responses: Vec<&EngineResponse> =
                if lines { saved.by_query.values().collect() } else { saved.single.iter().collect() };
            proptest::prop_assert_eq!(responses.len(), if lines { 2 } else { 1 });
            if lines {
                proptest::prop_assert!(saved.by_query.contains_key("q 1") && saved.by_query.contains_key("q2"));
            }
            for r in responses {
                let read: Vec<(String, Option<f64>, Option<ExplainNode>)> =
                    r.hits.iter().map(|h| (h.id.clone(), h.score, h.explanation.clone())).collect();
                let want: Vec<(String, Option<f64>, Option<ExplainNode>)> =
                    hits.iter().map(|(id, s, t)| (id.clone(), Some(*s), t.clone())).collect();
                proptest::prop_assert_eq!(read, want);
                proptest::prop_assert_eq!(r.total, Some(hits.len() as u64));
            }
        }
    }
}
