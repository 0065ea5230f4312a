//! The text protocol for a model that cannot take the chat API's tools (the embedded one): each
//! turn it writes `Thought:`, `Action:` and `Input:` lines, or `Answer:`. Small models get the
//! format wrong in many small ways, so the reader is tolerant and says what it repaired: keys in
//! any case, with markdown or ReAct's `Action Input:`; the tool named anywhere on the action line
//! (`Action: search with BM25`, `bm25("E104")`, `bm25: E104`); a JSON object instead of lines; an
//! answer with no `Answer:` label after a turn that names no tool; an observation the model wrote
//! for itself after its action (dropped: only the tool's result is true).

/// One turn, read.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct TextTurn {
    /// What the model said it was doing.
    pub thought: String,
    /// The tool it named and the input it gave.
    pub action: Option<(String, String)>,
    /// Its answer, when it answered.
    pub answer: Option<String>,
    /// What the reader had to repair, in words.
    pub repairs: Vec<String>,
}

/// The labels a line may start with, lower-cased without markdown.
fn label_of(line: &str) -> Option<(&'static str, String)> {
    let clean: String = line.trim().trim_start_matches(['-', '*', '#', '>', ' ']).replace("**", "");
    let lower = clean.to_ascii_lowercase();
    for (label, key) in [
        ("final answer:", "answer"),
        ("answer:", "answer"),
        ("thought:", "thought"),
        ("action input:", "input"),
        ("input:", "input"),
        ("action:", "action"),
        ("observation:", "observation"),
        ("tool:", "action"),
        ("query:", "input"),
    ] {
        if lower.starts_with(label) {
            return Some((key, clean[label.len()..].trim().to_string()));
        }
    }
    None
}

/// Strip the brackets and quotes around an input (`("E104")` → `E104`).
fn unwrap_input(s: &str) -> String {
    let t = s.trim().trim_start_matches([':', '=']).trim();
    let t = t.strip_prefix('(').and_then(|x| x.strip_suffix(')')).unwrap_or(t);
    let t = t.strip_prefix('[').and_then(|x| x.strip_suffix(']')).unwrap_or(t);
    t.trim().trim_matches(|c: char| c == '"' || c == '\'' || c == '`' || c == '“' || c == '”').trim().to_string()
}

/// The first of `tools` named as a word in `line` (case aside), with where it ends.
fn tool_in(line: &str, tools: &[String]) -> Option<(String, usize)> {
    let lower = line.to_ascii_lowercase();
    let mut best: Option<(usize, String, usize)> = None;
    for t in tools {
        let mut from = 0;
        while let Some(p) = lower[from..].find(t.as_str()) {
            let start = from + p;
            let end = start + t.len();
            let before = lower[..start].chars().next_back();
            let after = lower[end..].chars().next();
            let word = |c: Option<char>| c.is_some_and(|c| c.is_ascii_alphanumeric() || c == '_');
            if !word(before) && !word(after) {
                if best.as_ref().is_none_or(|b| start < b.0) {
                    best = Some((start, t.clone(), end));
                }
                break;
            }
            from = end;
        }
    }
    best.map(|(_, t, end)| (t, end))
}

/// Read a JSON object the model wrote instead of lines: `{"tool": "bm25", "query": "…"}`.
fn read_json(text: &str, tools: &[String]) -> Option<(String, String)> {
    let start = text.find('{')?;
    let end = text.rfind('}')?;
    if end <= start {
        return None;
    }
    let v: serde_json::Value = serde_json::from_str(&text[start..=end]).ok()?;
    let o = v.as_object()?;
    let tool = ["tool", "action", "name", "function"].iter().find_map(|k| o.get(*k).and_then(|x| x.as_str()))?;
    let tool = tool_in(tool, tools).map(|(t, _)| t).unwrap_or_else(|| tool.trim().to_ascii_lowercase());
    let input = ["input", "query", "arguments", "args", "sql", "entity"]
        .iter()
        .find_map(|k| {
            o.get(*k).map(|x| match x {
                serde_json::Value::String(s) => s.clone(),
                serde_json::Value::Object(m) => {
                    m.values().find_map(|v| v.as_str().map(str::to_string)).unwrap_or_default()
                }
                other => other.to_string(),
            })
        })
        .unwrap_or_default();
    Some((tool, input))
}

/// Read one turn of the text protocol against the names of the tools offered.
pub fn read_turn(text: &str, tools: &[String]) -> TextTurn {
    let mut turn = TextTurn::default();
    let mut action_line: Option<String> = None;
    let mut input: Option<String> = None;
    let mut answer: Option<Vec<String>> = None;
    let mut thought: Vec<String> = Vec::new();
    let mut current = "thought";
    let mut saw_label = false;
    for line in text.lines() {
        match label_of(line) {
            Some(("observation", _)) if action_line.is_some() => {
                turn.repairs.push("the model wrote an observation of its own; it was dropped".into());
                break;
            }
            Some(("answer", rest)) if action_line.is_none() => {
                saw_label = true;
                current = "answer";
                answer = Some(vec![rest]);
            }
            Some(("answer", _)) => {
                turn.repairs.push("the model answered after its action; the action ran and the answer waits".into());
                break;
            }
            Some((key, rest)) => {
                saw_label = true;
                current = key;
                match key {
                    "thought" => thought.push(rest),
                    "action" if action_line.is_none() => action_line = Some(rest),
                    "input" if input.is_none() => input = Some(rest),
                    _ => {}
                }
            }
            None => match current {
                "answer" => answer.get_or_insert_with(Vec::new).push(line.trim().to_string()),
                "thought" => thought.push(line.trim().to_string()),
                "input" if input.as_deref().is_some_and(str::is_empty) => input = Some(line.trim().to_string()),
                _ => {}
            },
        }
    }
    turn.thought = thought.join(" ").split_whitespace().collect::<Vec<_>>().join(" ");
    if let Some(line) = action_line {
        let (tool, rest) = match tool_in(&line, tools) {
            Some((t, end)) => {
                if line.trim().to_ascii_lowercase() != t {
                    turn.repairs.push(format!("the tool was read from “{}”", line.trim()));
                }
                (t, line[end..].to_string())
            }
            None => {
                (unwrap_input(line.split(['(', '[', ':']).next().unwrap_or("")).to_ascii_lowercase(), String::new())
            }
        };
        let given = input.map(|i| unwrap_input(&i)).filter(|i| !i.is_empty());
        let inline = Some(unwrap_input(&rest)).filter(|i| !i.is_empty());
        let input = match (given, inline) {
            (Some(i), _) => i,
            (None, Some(i)) => {
                turn.repairs.push("the input was read from the action line".into());
                i
            }
            (None, None) => String::new(),
        };
        turn.action = Some((tool, input));
        return turn;
    }
    if let Some(lines) = answer {
        turn.answer = Some(lines.join("\n").trim().to_string());
        return turn;
    }
    if let Some(call) = read_json(text, tools) {
        turn.repairs.push("the action was read from a JSON object".into());
        turn.action = Some(call);
        return turn;
    }
    if !saw_label && !text.trim().is_empty() {
        // No label at all: a tool named at the start of the text is an action
        // (`bm25: E104 token`), anything else the model's answer in its own words.
        let first = text.trim().lines().next().unwrap_or("").trim();
        if let Some((t, end)) = tool_in(first, tools)
            && first[..end].eq_ignore_ascii_case(&t)
        {
            turn.repairs.push("the action had no `Action:` label".into());
            turn.action = Some((t, unwrap_input(&first[end..])));
            return turn;
        }
        turn.repairs.push("the reply had no `Answer:` label; it was read as the answer".into());
        turn.answer = Some(text.trim().to_string());
        turn.thought.clear();
    }
    turn
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_input_loses_each_kind_of_quote_around_it() {
        for wrapped in ["(\"E104\")", "'E104'", "`E104`", "“E104”", "[E104]", ": E104", "= \"E104\""] {
            assert_eq!(unwrap_input(wrapped), "E104", "{wrapped:?}");
        }
    }

    #[test]
    fn the_tool_named_first_on_the_line_is_the_one_run() {
        let tools = tools();
        // bm25 is offered first, but dense is named first.
        assert_eq!(tool_in("dense, not bm25", &tools), Some(("dense".into(), 5)));
        assert_eq!(tool_in("bm25 then dense", &tools), Some(("bm25".into(), 4)));
        assert_eq!(tool_in("bm25x densest", &tools), None, "a tool is named as a whole word");
    }

    #[test]
    fn each_label_keeps_its_own_lines_and_the_first_action_wins() {
        let read = |s: &str| read_turn(s, &tools());
        // An observation before any action is only a label: the answer after it is read.
        assert_eq!(read("Thought: x\nObservation: nothing yet\nAnswer: y").answer.as_deref(), Some("y"));
        // An answer after the action waits, and says so.
        let t = read("Action: bm25\nInput: q\nAnswer: done");
        assert_eq!((t.action, t.answer), (Some(("bm25".into(), "q".into())), None));
        assert!(t.repairs.iter().any(|r| r.contains("answered after its action")), "{:?}", t.repairs);
        // The first action and the first input are the ones run.
        let t = read("Action: bm25\nInput: q\nAction: dense\nInput: r");
        assert_eq!(t.action, Some(("bm25".into(), "q".into())));
        // Lines under a label belong to it: the answer's, the thought's, an empty input's.
        assert_eq!(read("Answer: first\nsecond line").answer.as_deref(), Some("first\nsecond line"));
        assert_eq!(read("Thought: a\nb\nAction: bm25\nInput: q").thought, "a b");
        assert_eq!(read("Action: bm25\nInput:\nE104 token").action, Some(("bm25".into(), "E104 token".into())));
        assert_eq!(read("Action: bm25\nInput: q\nmore words").action, Some(("bm25".into(), "q".into())));
        // A thought alone is neither an action nor an answer: the model has not finished.
        let t = read("Thought: I am not sure yet");
        assert_eq!((t.action, t.answer, t.thought.as_str()), (None, None, "I am not sure yet"));
        assert!(t.repairs.is_empty(), "{:?}", t.repairs);
    }

    fn tools() -> Vec<String> {
        ["bm25", "dense", "sql", "graph"].map(String::from).to_vec()
    }

    #[test]
    fn the_format_as_asked_is_read_as_written() {
        let t = read_turn("Thought: I need the error's meaning.\nAction: bm25\nInput: E104 sync token", &tools());
        assert_eq!(t.thought, "I need the error's meaning.");
        assert_eq!(t.action, Some(("bm25".into(), "E104 sync token".into())));
        assert!(t.repairs.is_empty(), "{:?}", t.repairs);
        let t = read_turn("Answer: Sign in again [1].", &tools());
        assert_eq!(t.answer.as_deref(), Some("Sign in again [1]."));
        assert_eq!(t.action, None);
    }

    #[test]
    fn the_mistakes_of_a_small_model_are_repaired_and_said() {
        let read = |s: &str| read_turn(s, &tools());
        assert_eq!(
            read("**Action:** Search with BM25\n**Input:** \"E104\"").action,
            Some(("bm25".into(), "E104".into()))
        );
        assert_eq!(read("action: bm25(\"disk full\")").action, Some(("bm25".into(), "disk full".into())));
        assert_eq!(
            read("Action: dense: plugin fails to load").action,
            Some(("dense".into(), "plugin fails to load".into()))
        );
        assert_eq!(read("Thought: x\nAction: bm25\nAction Input: token").action, Some(("bm25".into(), "token".into())));
        let own = read("Action: bm25\nInput: E104\nObservation: [1] E104 means…\nAnswer: It expired [1].");
        assert_eq!(own.action, Some(("bm25".into(), "E104".into())));
        assert_eq!(own.answer, None);
        assert!(own.repairs[0].contains("observation of its own"), "{:?}", own.repairs);
        let json = read("I will search. {\"tool\": \"dense\", \"query\": \"sync stops\"}");
        assert_eq!(json.action, Some(("dense".into(), "sync stops".into())));
        assert_eq!(read("bm25: sync token expired").action, Some(("bm25".into(), "sync token expired".into())));
        let words = read("The token expired, so sign in again [2].");
        assert_eq!(words.answer.as_deref(), Some("The token expired, so sign in again [2]."));
        assert!(words.repairs[0].contains("no `Answer:` label"));
        // An unknown tool is kept as named: the run tells the model there is no such tool.
        assert_eq!(read("Action: web_search\nInput: acme").action, Some(("web_search".into(), "acme".into())));
        assert_eq!(read("Final Answer: none [1]").answer.as_deref(), Some("none [1]"));
        // `bm25x` is not `bm25`.
        assert_eq!(read("Action: bm25x\nInput: q").action, Some(("bm25x".into(), "q".into())));
    }

    proptest::proptest! {
        #![proptest_config(proptest::prelude::ProptestConfig::with_cases(crate::proptest_cases()))]
        #[test]
        fn any_reply_reads_without_panicking_and_an_action_names_a_tool_or_its_words(text in "\\PC{0,300}") {
            let t = read_turn(&text, &tools());
            if let Some((tool, _)) = &t.action {
                proptest::prop_assert!(!tool.contains('\n'));
            }
            proptest::prop_assert!(!(t.action.is_some() && t.answer.is_some()));
        }

        #[test]
        fn a_well_formed_turn_round_trips(q in "[a-z0-9 ]{1,40}", tool in 0usize..4) {
            let name = &tools()[tool];
            let t = read_turn(&format!("Thought: look it up\nAction: {name}\nInput: {q}"), &tools());
            proptest::prop_assert_eq!(t.action, Some((name.clone(), q.trim().to_string())));
        }
    }
}
