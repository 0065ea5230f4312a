//! One passage's entities and relations as the model wrote them, read into the schema
//! `{"entities": [{"name", "type"}], "relations": [{"source", "relation", "target"}]}` and
//! validated. A reply that is not that JSON is named (what was wrong) and skipped; a relation whose
//! ends the reply did not list as entities is kept, its ends added as entities of type `unknown`.

use serde::{Deserialize, Serialize};

use crate::Result;
use crate::generate::{Generator, prompts};
use crate::progress::Progress;

/// Longest name kept, in characters (a model that writes a paragraph as a name is cut).
pub const MAX_NAME_CHARS: usize = 80;

/// An entity as extracted.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ExtractedEntity {
    /// Its name, as the passage writes it.
    pub name: String,
    /// Its type (`plugin`, `library`), lower-case; `unknown` when not given.
    pub kind: String,
}

/// A relation as extracted.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ExtractedRelation {
    /// The subject's name.
    pub source: String,
    /// The relation, lower-case with underscores (`depends_on`).
    pub relation: String,
    /// The object's name.
    pub target: String,
}

/// One passage's extraction.
#[derive(Debug, Clone, PartialEq, Eq, Default, Serialize, Deserialize)]
pub struct Extraction {
    /// Its entities.
    pub entities: Vec<ExtractedEntity>,
    /// Its relations.
    pub relations: Vec<ExtractedRelation>,
    /// The items of the reply that broke the schema and were dropped, each with what was wrong
    /// (`relation 1 has no \`relation\``): the rest of the reply is kept.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub dropped: Vec<String>,
}

/// The most entities, and the most relations, one passage's reply may list (a reply held to the
/// schema then always closes within the prompt's token budget).
pub const MAX_ITEMS: usize = 10;

/// The JSON schema of an extraction, sent to servers that can hold a reply to one, and the grammar
/// the embedded model's reply is held to.
pub fn schema() -> serde_json::Value {
    let text = |most: usize| serde_json::json!({"type": "string", "minLength": 1, "maxLength": most});
    let name = text(MAX_NAME_CHARS);
    let label = text(40);
    serde_json::json!({
        "type": "object",
        "properties": {
            "entities": {"type": "array", "maxItems": MAX_ITEMS, "items": {"type": "object",
                "properties": {"name": name, "type": label}, "required": ["name", "type"],
                "additionalProperties": false}},
            "relations": {"type": "array", "maxItems": MAX_ITEMS, "items": {"type": "object",
                "properties": {"source": name, "relation": label, "target": name},
                "required": ["source", "relation", "target"], "additionalProperties": false}}
        },
        "required": ["entities", "relations"],
        "additionalProperties": false
    })
}

/// The request for one passage (with [`schema`]).
pub fn extract_request(passage: &str) -> crate::generate::ChatRequest {
    let text: String = passage.split_whitespace().collect::<Vec<_>>().join(" ");
    prompts::EXTRACT.request(&[("passage", &text)]).shaped(crate::generate::Shape::Json { schema: schema() })
}

/// Ask `generator` for one passage's extraction: the reply as written, and the extraction or why
/// it is not one.
pub fn extract(
    generator: &dyn Generator,
    passage: &str,
    progress: &dyn Progress,
) -> Result<(crate::generate::Generated, std::result::Result<Extraction, String>)> {
    let g = generator.chat(&extract_request(passage), &mut |_| {}, progress)?;
    let read = read_extraction(&g.text);
    Ok((g, read))
}

/// A name cleaned: whitespace collapsed, quotes trimmed, cut at [`MAX_NAME_CHARS`].
fn clean_name(s: &str) -> String {
    let t: String = s.split_whitespace().collect::<Vec<_>>().join(" ");
    let t = t.trim_matches(|c: char| c == '"' || c == '\'' || c == '`' || c == '.' || c == ',').trim();
    t.chars().take(MAX_NAME_CHARS).collect()
}

/// A relation or type cleaned: lower-case, words joined by `_`.
fn clean_label(s: &str) -> String {
    s.split(|c: char| !c.is_alphanumeric())
        .filter(|w| !w.is_empty())
        .map(str::to_lowercase)
        .collect::<Vec<_>>()
        .join("_")
}

/// Read a reply into an [`Extraction`]: the JSON object in it (inside a ```json fence, or from
/// its first `{` to its last `}`), checked against the schema. `Err` says what was wrong.
pub fn read_extraction(reply: &str) -> std::result::Result<Extraction, String> {
    let start = reply.find('{').ok_or("the reply holds no JSON object")?;
    let end = object_end(&reply[start..]).map(|e| start + e).ok_or("the reply's JSON object never closes")?;
    let value: serde_json::Value =
        serde_json::from_str(&reply[start..=end]).map_err(|e| format!("the reply is not valid JSON: {e}"))?;
    let object = value.as_object().ok_or("the reply's JSON is not an object")?;
    let list = |key: &str| -> std::result::Result<Vec<serde_json::Value>, String> {
        match object.get(key) {
            None => Ok(Vec::new()),
            Some(serde_json::Value::Array(a)) => Ok(a.clone()),
            Some(_) => Err(format!("`{key}` is not a list")),
        }
    };
    if !object.contains_key("entities") && !object.contains_key("relations") {
        return Err("the JSON has neither `entities` nor `relations`".into());
    }
    let text = |v: &serde_json::Value, key: &str, what: &str, i: usize| -> std::result::Result<String, String> {
        match v.get(key) {
            Some(serde_json::Value::String(s)) if !clean_name(s).is_empty() => Ok(clean_name(s)),
            Some(serde_json::Value::String(_)) => Err(format!("{what} {i} has an empty `{key}`")),
            Some(_) => Err(format!("{what} {i}'s `{key}` is not text")),
            None => Err(format!("{what} {i} has no `{key}`")),
        }
    };
    let mut out = Extraction::default();
    for (i, e) in list("entities")?.iter().enumerate() {
        let name = match e {
            serde_json::Value::String(s) if !clean_name(s).is_empty() => Ok(clean_name(s)),
            _ => text(e, "name", "entity", i + 1),
        };
        match name {
            Ok(name) => {
                let kind = e.get("type").and_then(|t| t.as_str()).map(clean_label).filter(|k| !k.is_empty());
                push_entity(&mut out.entities, name, kind.unwrap_or_else(|| "unknown".into()));
            }
            Err(why) => out.dropped.push(why),
        }
    }
    for (i, r) in list("relations")?.iter().enumerate() {
        let read = (|| {
            let source = text(r, "source", "relation", i + 1)?;
            let target = text(r, "target", "relation", i + 1)?;
            let relation = clean_label(&text(r, "relation", "relation", i + 1)?);
            if relation.is_empty() {
                return Err(format!("relation {} has no words in `relation`", i + 1));
            }
            Ok(ExtractedRelation { source, relation, target })
        })();
        match read {
            Ok(rel) => {
                for end in [&rel.source, &rel.target] {
                    push_entity(&mut out.entities, end.clone(), "unknown".into());
                }
                if !out.relations.contains(&rel) {
                    out.relations.push(rel);
                }
            }
            Err(why) => out.dropped.push(why),
        }
    }
    if out.entities.is_empty()
        && out.relations.is_empty()
        && let Some(first) = out.dropped.first()
    {
        return Err(first.clone());
    }
    Ok(out)
}

/// Where the object that opens `text` closes: the `}` that brings the depth of braces outside
/// strings back to 0 (`None` when it never does: a reply cut off at its token budget).
fn object_end(text: &str) -> Option<usize> {
    let (mut depth, mut in_string, mut escaped) = (0usize, false, false);
    for (i, c) in text.char_indices() {
        match (in_string, c) {
            (true, _) if escaped => escaped = false,
            (true, '\\') => escaped = true,
            (true, '"') => in_string = false,
            (true, _) => {}
            (false, '"') => in_string = true,
            (false, '{') => depth += 1,
            (false, '}') => {
                depth = depth.checked_sub(1)?;
                if depth == 0 {
                    return Some(i);
                }
            }
            _ => {}
        }
    }
    None
}

/// Add an entity unless one of that name (case aside) is there; a known type replaces `unknown`.
fn push_entity(entities: &mut Vec<ExtractedEntity>, name: String, kind: String) {
    match entities.iter_mut().find(|e| e.name.eq_ignore_ascii_case(&name)) {
        Some(e) if e.kind == "unknown" => e.kind = kind,
        Some(_) => {}
        None => entities.push(ExtractedEntity { name, kind }),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_schema_asks_for_both_lists_with_their_caps_and_the_request_carries_it() {
        let s = schema();
        assert_eq!(s["required"], serde_json::json!(["entities", "relations"]));
        assert_eq!(s["additionalProperties"], false);
        for list in ["entities", "relations"] {
            assert_eq!(s["properties"][list]["maxItems"], MAX_ITEMS, "{list}");
        }
        let entity = &s["properties"]["entities"]["items"];
        assert_eq!(entity["required"], serde_json::json!(["name", "type"]));
        assert_eq!(entity["properties"]["name"]["maxLength"], MAX_NAME_CHARS);
        assert_eq!(entity["properties"]["name"]["minLength"], 1);
        let relation = &s["properties"]["relations"]["items"];
        assert_eq!(relation["required"], serde_json::json!(["source", "relation", "target"]));
        assert_eq!(extract_request("a  passage").shape, Some(crate::generate::Shape::Json { schema: s }));
    }

    #[test]
    fn a_name_loses_each_kind_of_wrapping_quote_and_trailing_stop() {
        for wrapped in ["\"E104\"", "'E104'", "`E104`", "E104.", "E104,", "  \"E104\".  "] {
            assert_eq!(clean_name(wrapped), "E104", "{wrapped:?}");
        }
        assert_eq!(clean_name(&"x".repeat(200)).chars().count(), MAX_NAME_CHARS);
    }

    #[test]
    fn a_reply_in_the_schema_is_read_and_cleaned() {
        let reply = "```json\n{\"entities\": [{\"name\": \" E104 \", \"type\": \"Error Code\"}, {\"name\": \"sync token\"}], \
                     \"relations\": [{\"source\": \"E104\", \"relation\": \"caused by\", \"target\": \"sync token\"}, \
                     {\"source\": \"E104\", \"relation\": \"fixed_by\", \"target\": \"signing in\"}]}\n```";
        let x = read_extraction(reply).unwrap();
        let names: Vec<(&str, &str)> = x.entities.iter().map(|e| (e.name.as_str(), e.kind.as_str())).collect();
        assert_eq!(names, [("E104", "error_code"), ("sync token", "unknown"), ("signing in", "unknown")]);
        assert_eq!(x.relations[0].relation, "caused_by");
        assert_eq!(x.relations.len(), 2);
    }

    #[test]
    fn names_as_plain_strings_typed_twice_or_holding_escaped_quotes_are_read() {
        let names = |s: &str| -> Vec<(String, String)> {
            read_extraction(s).unwrap().entities.into_iter().map(|e| (e.name, e.kind)).collect()
        };
        let pair = |n: &str, k: &str| (n.to_string(), k.to_string());
        // An entity may be its name alone.
        assert_eq!(names(r#"{"entities": ["E104"]}"#), [pair("E104", "unknown")]);
        // Named again with a type: the type replaces `unknown`, and a second type does not replace the first.
        assert_eq!(
            names(
                r#"{"entities": [{"name": "E104"}, {"name": "e104", "type": "error"}, {"name": "E104", "type": "code"}]}"#
            ),
            [pair("E104", "error")]
        );
        // An escaped quote does not end a string, so the brace after it is text.
        assert_eq!(names(r#"{"entities": ["a \"}\" b"]} after"#), [pair("a \"}\" b", "unknown")]);
        // A dropped relation is named by its place in the list, counted from 1.
        let x = read_extraction(
            r#"{"relations": [{"source": "a", "target": "b", "relation": "uses"}, {"target": "c", "relation": "uses"},
               {"source": "d", "relation": "uses"}]}"#,
        )
        .unwrap();
        assert_eq!(x.dropped, ["relation 2 has no `source`", "relation 3 has no `target`"]);
    }

    #[test]
    fn an_invalid_reply_says_what_is_wrong() {
        let why = |s: &str| read_extraction(s).unwrap_err();
        assert_eq!(why("I found E104 and a token."), "the reply holds no JSON object");
        assert_eq!(why("{\"entities\": [{\"name\": \"x\"}"), "the reply's JSON object never closes");
        assert!(why("{\"entities\": [oops]}").starts_with("the reply is not valid JSON"));
        assert_eq!(why("{\"names\": []}"), "the JSON has neither `entities` nor `relations`");
        // The first whole object is read; prose after it, braces and all, is not.
        assert!(read_extraction("{\"entities\": [{\"name\": \"a}b\"}]} and {more}").is_ok());
        assert_eq!(object_end("{\"a\": \"\\\"}\"}"), Some(11), "an escaped quote stays in the string");
        assert_eq!(why("{\"entities\": \"E104\"}"), "`entities` is not a list");
        assert_eq!(why("{\"relations\": [{\"source\": \"a\", \"target\": \"b\"}]}"), "relation 1 has no `relation`");
        // A reply with some items right keeps them and counts the others.
        let partial = read_extraction(
            "{\"entities\": [{\"name\": \"E104\"}, {\"message\": \"x\"}], \"relations\": [{\"source\": \"E104\", \"target\": \"token\"}]}",
        )
        .unwrap();
        assert_eq!(partial.entities.len(), 1);
        assert_eq!(partial.dropped, ["entity 2 has no `name`", "relation 1 has no `relation`"]);
        assert_eq!(why("{\"entities\": [{\"name\": 7}]}"), "entity 1's `name` is not text");
        assert_eq!(why("{\"entities\": [{\"name\": \"  \"}]}"), "entity 1 has an empty `name`");
    }

    proptest::proptest! {
        #![proptest_config(proptest::prelude::ProptestConfig::with_cases(crate::proptest_cases()))]
        #[test]
        fn any_reply_reads_or_says_why_without_panicking(reply in proptest::prop_oneof![
            "\\PC{0,200}",
            "(Sure: )?\\{\"entities\": \\[(\"[a-zA-Z ]{0,6}\"(, \\{\"name\": \"[a-zA-Z ]{0,5}\"\\}){0,2})?\\], \
             \"relations\": \\[(\\{\"source\": \"[a-zA-Z]{0,3}\", \"relation\": \"[a-z ]{0,4}\", \"target\": \"[A-Z ]{0,3}\"\\}){0,1}\\]\\}",
        ]) {
            match read_extraction(&reply) {
                Ok(x) => {
                    // Something was read, every name has words, and each relation's ends are entities.
                    proptest::prop_assert!(!x.entities.is_empty() || !x.relations.is_empty() || x.dropped.is_empty());
                    for e in &x.entities {
                        proptest::prop_assert!(!e.name.trim().is_empty() && !e.kind.is_empty(), "{:?}", e);
                    }
                    for r in &x.relations {
                        for end in [&r.source, &r.target] {
                            proptest::prop_assert!(
                                x.entities.iter().any(|e| e.name.eq_ignore_ascii_case(end)),
                                "{:?} not an entity", end
                            );
                        }
                    }
                }
                Err(why) => {
                    proptest::prop_assert!(!why.is_empty());
                    if !reply.contains('{') {
                        proptest::prop_assert_eq!(why, "the reply holds no JSON object");
                    }
                }
            }
        }

        #[test]
        fn an_extraction_written_as_json_reads_back(
            names in proptest::collection::vec("[a-z][a-z0-9 ]{0,12}[a-z0-9]", 1..5),
            rel in "[a-z]{1,8}"
        ) {
            let mut unique: Vec<String> = Vec::new();
            for n in names {
                let n = n.split_whitespace().collect::<Vec<_>>().join(" ");
                if !unique.iter().any(|u| u.eq_ignore_ascii_case(&n)) {
                    unique.push(n);
                }
            }
            let x = Extraction {
                entities: unique.iter().map(|n| ExtractedEntity { name: n.clone(), kind: "thing".into() }).collect(),
                relations: vec![ExtractedRelation { source: unique[0].clone(), relation: rel.clone(), target: unique[unique.len() - 1].clone() }],
                dropped: Vec::new(),
            };
            let json = serde_json::json!({
                "entities": x.entities.iter().map(|e| serde_json::json!({"name": e.name, "type": e.kind})).collect::<Vec<_>>(),
                "relations": x.relations.iter().map(|r| serde_json::json!({"source": r.source, "relation": r.relation, "target": r.target})).collect::<Vec<_>>(),
            });
            proptest::prop_assert_eq!(read_extraction(&json.to_string()).unwrap(), x);
        }
    }
}
