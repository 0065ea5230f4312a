//! A language model that uses RankLens's own tools — agentic search, text to SQL on the error
//! table, GraphRAG — against a loopback server scripted to behave well, badly and hostilely. What
//! each run must return is worked out here apart from the code under test: BM25's own ranking for
//! the query the script sends, the passages numbered as they were first shown, the file's bytes.

mod common;

use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};

use common::chat::{self, Reply};
use ranklens::config::Settings;
use ranklens::corpus::{self, LoadOptions};
use ranklens::generate::text_to_sql::{self, SqlOutcome};
use ranklens::graphrag::BuildOptions;
use ranklens::progress::NoProgress;
use ranklens::retrieve::agent::{AgentLimits, AgentRetriever, Protocol, Stop};
use ranklens::retrieve::{Detail, MethodKind, QueryContext, ScoreSplit};
use ranklens::structured::SqlLimits;
use ranklens::workbench::Workbench;
use serde_json::Value;
use sha2::Digest;

/// The sample with its tables and graph, in a workspace of its own.
struct Sample {
    _dir: tempfile::TempDir,
    engine: Workbench,
}

fn sample() -> Sample {
    let dir = tempfile::tempdir().unwrap();
    let corpus = corpus::load(&common::sample("acme-sync"), LoadOptions::default()).unwrap();
    let mut engine = Workbench::new(corpus).with_workspace(dir.path().to_path_buf());
    engine.load_structured(&common::sample("acme-sync")).unwrap();
    Sample { _dir: dir, engine }
}

/// BM25's top `n` ids for `query`, by the BM25 column itself.
fn bm25(engine: &Workbench, query: &str, n: usize) -> Vec<String> {
    let r = engine.retriever(MethodKind::Bm25, &Settings::default()).unwrap();
    let ranking = r.search(&QueryContext::new(query), n).unwrap();
    ranking.hits.iter().map(|h| engine.corpus().external_id(h.doc).to_string()).collect()
}

fn agent(engine: &Workbench, server: &common::http::Server, limits: AgentLimits) -> AgentRetriever {
    engine.set_generator(Arc::new(chat::client(server))).unwrap();
    let tools = engine.agent_tools(&Settings::default()).unwrap();
    AgentRetriever::new(engine.generator().unwrap(), tools, limits)
}

fn requests(server: &common::http::Server) -> Vec<Value> {
    server.requests.lock().unwrap().iter().map(|(_, _, _, b)| serde_json::from_str(b).unwrap()).collect()
}

const QUESTION: &str = "What does E104 mean and how do I fix it?";

#[test]
fn a_model_that_calls_tools_in_order_and_answers_leaves_that_trace_and_that_column() {
    let s = sample();
    // Round 1: BM25; round 2: SQL; round 3: the answer, citing [5] (the SQL row's passage) then [2].
    let server = chat::serve(|body| match chat::tool_results(body).len() {
        0 => Reply::Raw(chat::tool_calls(&[("bm25", r#"{"query": "server plugin disk"}"#)], 12)),
        1 => Reply::Raw(chat::tool_calls(
            &[("sql", r#"{"sql": "SELECT code, fix, passage FROM errors WHERE code = 'E104'"}"#)],
            20,
        )),
        _ => Reply::Text("E104 means the sync token expired [5]; sign in again [2].".into()),
    });
    let a = agent(&s.engine, &server, AgentLimits::default());
    let mut seen = Vec::new();
    let run = a.run(&QueryContext::new(QUESTION), &mut |step| seen.push(step.tool.clone()), &NoProgress).unwrap();

    // The passages as the model was shown them: BM25's top 4 for its query, numbered 1–4, then
    // the SQL row's passage (errors-2), which BM25 did not return, as [5].
    let first = bm25(&s.engine, "server plugin disk", 4);
    assert_eq!(first.len(), 4);
    assert!(!first.contains(&"errors-2".to_string()), "the test needs errors-2 outside BM25's top 4: {first:?}");
    assert_eq!(run.protocol, Protocol::Tools);
    assert_eq!(run.steps.len(), 2);
    assert_eq!(seen, [Some("bm25".to_string()), Some("sql".to_string())], "each step is passed on as it is made");
    assert_eq!(run.steps[0].tool.as_deref(), Some("bm25"));
    assert_eq!(run.steps[0].ids, first);
    assert_eq!(run.steps[0].arguments["query"], "server plugin disk");
    assert_eq!(run.steps[0].tokens, 12);
    assert_eq!(run.steps[1].tool.as_deref(), Some("sql"));
    assert_eq!(run.steps[1].ids, ["errors-2"]);
    let mut read: Vec<String> = first.clone();
    read.push("errors-2".into());
    assert_eq!(run.read.iter().map(|r| r.id.clone()).collect::<Vec<_>>(), read);
    // What the model read in round 2 is what the tools returned, numbered.
    let shown = &chat::tool_results(&requests(&server)[2]);
    assert!(shown[0].contains(&format!("[1] ({})", first[0])), "{}", shown[0]);
    assert!(shown[1].contains("code=E104"), "{}", shown[1]);
    // The answer's citations resolve to what those numbers showed; the column puts the cited
    // passages first in the order cited, then the others in the order read.
    let cited: Vec<String> = vec!["errors-2".into(), first[1].clone()];
    assert_eq!(run.cited_ids(), cited);
    let mut column = cited.clone();
    column.extend(read.iter().filter(|id| !cited.contains(id)).cloned());
    assert_eq!(run.hits, column);
    assert_eq!(run.stopped, Stop::Answered);
    assert_eq!(run.tokens, 12 + 20 + 3);
    assert!(run.summary().starts_with("2 tool calls in 2 rounds"), "{}", run.summary());
    // The tools were offered as the chat API's tools, with their JSON schemas.
    let offered: Vec<String> = requests(&server)[0]["tools"]
        .as_array()
        .unwrap()
        .iter()
        .map(|t| t["function"]["name"].as_str().unwrap().to_string())
        .collect();
    assert_eq!(offered, ["bm25", "sql", "graph"], "no dense or SPLADE model is loaded here");

    // The column, through the workbench, ranks the same passages and explains each.
    let settings = Settings { methods: vec![MethodKind::Agent], ..Settings::default() };
    let r = s.engine.retriever(MethodKind::Agent, &settings).unwrap();
    let p = r.prepare(&QueryContext::new(QUESTION)).unwrap();
    let ranking = p.search(10).unwrap();
    let ids: Vec<String> = ranking.hits.iter().map(|h| s.engine.corpus().external_id(h.doc).to_string()).collect();
    assert_eq!(ids, column);
    let scores: Vec<f64> = ranking.hits.iter().map(|h| h.score).collect();
    let n = column.len() as f64;
    assert_eq!(scores, (0..column.len()).map(|i| n - i as f64).collect::<Vec<_>>(), "N + 1 − position");
    assert!(ranking.agent.is_some());
    let top = p.explain(ranking.hits[0].doc).unwrap();
    assert_eq!(top.value, n);
    match &top.detail {
        Detail::Agent { position, cited, steps, .. } => {
            assert_eq!((*position, *cited), (Some(1), Some(1)));
            assert!(steps.iter().any(|st| st.tool.as_deref() == Some("sql")));
        }
        other => panic!("{other:?}"),
    }
    assert!(matches!(top.split(), ScoreSplit::Unsplit(_)), "a place in an order is not a sum of parts");
    let never = s.engine.corpus().lookup("sync-1").unwrap();
    if !column.contains(&"sync-1".to_string()) {
        assert_eq!(p.explain(never).unwrap().value, 0.0);
    }
}

#[test]
fn an_unknown_tool_and_arguments_that_are_not_json_are_told_to_the_model_and_recorded() {
    let s = sample();
    let server = chat::serve(|body| match chat::tool_results(body).len() {
        0 => Reply::Raw(chat::tool_calls(&[("web_search", r#"{"query": "acme"}"#), ("bm25", "E104 token")], 5)),
        _ => Reply::Text("I could not search the web [1], and [9] is not a passage.".into()),
    });
    let run = agent(&s.engine, &server, AgentLimits::default())
        .run(&QueryContext::new(QUESTION), &mut |_| {}, &NoProgress)
        .unwrap();
    assert_eq!(run.steps.len(), 2);
    let unknown = &run.steps[0];
    assert_eq!(unknown.tool.as_deref(), Some("web_search"));
    assert!(unknown.ids.is_empty());
    let problem = unknown.problem.as_deref().unwrap();
    assert!(problem.contains("there is no tool `web_search`") && problem.contains("bm25, sql, graph"), "{problem}");
    // The model was told the same, in the tool's message.
    let told = chat::tool_results(&requests(&server)[1]);
    assert!(told[0].contains("there is no tool `web_search`"), "{told:?}");
    // Plain text where JSON belongs is taken as the query.
    assert_eq!(run.steps[1].ids, bm25(&s.engine, "E104 token", 4));
    // [9] names no passage read: the answer's reader flags it.
    assert_eq!(run.answer.stray(), [9]);
}

#[test]
fn a_model_that_never_stops_hits_the_bound_and_is_told_to_answer() {
    let s = sample();
    let server = chat::serve(|body| {
        if body.get("tools").is_none() {
            // The last word: no tools offered.
            return Reply::Text("From what I read: sign in again [1].".into());
        }
        Reply::Raw(chat::tool_calls(&[("bm25", r#"{"query": "token"}"#)], 7))
    });
    let limits = AgentLimits { rounds: 3, ..AgentLimits::default() };
    let run = agent(&s.engine, &server, limits).run(&QueryContext::new(QUESTION), &mut |_| {}, &NoProgress).unwrap();
    assert_eq!(run.steps.len(), 3);
    assert_eq!(run.stopped, Stop::Rounds { rounds: 3 });
    assert!(run.summary().contains("the bound of 3 rounds was hit"), "{}", run.summary());
    let sent = requests(&server);
    assert_eq!(sent.len(), 4, "three rounds, then one request to answer");
    assert!(chat::last(&sent[3]).contains("You have used every search you may"));
    assert_eq!(run.answer.text, "From what I read: sign in again [1].");
    // The same passages came back each round: read once, numbered once.
    assert_eq!(run.read.len(), bm25(&s.engine, "token", 4).len());
    assert!(chat::tool_results(&sent[3]).last().unwrap().contains("read before"));

    // A token budget stops it the same way.
    let limits = AgentLimits { rounds: 10, max_tokens: 14, ..AgentLimits::default() };
    let run = agent(&s.engine, &server, limits).run(&QueryContext::new(QUESTION), &mut |_| {}, &NoProgress).unwrap();
    assert_eq!(run.stopped, Stop::Tokens { max_tokens: 14 });
    assert_eq!(run.steps.len(), 2, "7 + 7 tokens reach the budget of 14 after two rounds");
}

#[test]
fn a_server_that_refuses_tools_is_asked_in_the_text_protocol() {
    let s = sample();
    let turns = Arc::new(AtomicUsize::new(0));
    let t = turns.clone();
    let server = chat::serve(move |body| {
        if body.get("tools").is_some() {
            return Reply::Status(400, r#"{"error": {"message": "tools are not supported"}}"#.into());
        }
        match t.fetch_add(1, Ordering::SeqCst) {
            0 => Reply::Text("Thought: look the code up\n**Action:** search with BM25\nInput: \"E104\"".into()),
            _ => Reply::Text("Answer: E104 is an expired sync token; sign in again [1].".into()),
        }
    });
    let run = agent(&s.engine, &server, AgentLimits::default())
        .run(&QueryContext::new(QUESTION), &mut |_| {}, &NoProgress)
        .unwrap();
    assert_eq!(run.protocol, Protocol::Text);
    assert!(run.steps[0].problem.as_deref().unwrap().contains("the server refused tools"));
    let call = &run.steps[1];
    assert_eq!(call.tool.as_deref(), Some("bm25"));
    assert_eq!(call.thought, "look the code up");
    assert_eq!(call.ids, bm25(&s.engine, "E104", 4));
    assert!(call.problem.as_deref().unwrap_or("").contains("the tool was read from"), "{:?}", call.problem);
    assert_eq!(run.cited_ids(), [bm25(&s.engine, "E104", 1)[0].clone()]);
    assert_eq!(run.stopped, Stop::Answered);
}

#[test]
fn a_server_whose_model_calls_no_tool_in_the_first_round_is_asked_in_the_text_protocol() {
    // The server takes `tools`, but its chat format drops them: the model answers from nothing.
    let s = sample();
    let server = chat::serve(move |body| {
        if body.get("tools").is_some() {
            return Reply::Text("E104 is probably a network error; restart your router.".into());
        }
        if chat::tool_results(body).is_empty() && !chat::last(body).starts_with("Observation:") {
            return Reply::Text("Thought: look the code up\nAction: bm25\nInput: E104".into());
        }
        Reply::Text("Answer: E104 is an expired sync token; sign in again [1].".into())
    });
    let run = agent(&s.engine, &server, AgentLimits::default())
        .run(&QueryContext::new(QUESTION), &mut |_| {}, &NoProgress)
        .unwrap();
    assert_eq!(run.protocol, Protocol::Text);
    let first = &run.steps[0];
    assert!(first.problem.as_deref().unwrap().contains("called no tool in the first round"), "{first:?}");
    assert!(first.thought.contains("restart your router"), "the unread answer is kept in the trace");
    assert_eq!(run.steps[1].tool.as_deref(), Some("bm25"));
    assert_eq!(run.cited_ids(), [bm25(&s.engine, "E104", 1)[0].clone()], "the answer cites what it read");
    let asked = requests(&server);
    assert!(asked[0].get("tools").is_some() && asked[1].get("tools").is_none(), "asked again in words");
}

#[test]
fn graph_local_search_without_a_graph_says_how_to_build_one_in_one_clean_line() {
    let s = sample();
    let e = match s.engine.retriever(MethodKind::GraphLocal, &Settings::default()) {
        Err(e) => e.to_string(),
        Ok(_) => panic!("no graph was built"),
    };
    assert!(
        e.contains("ranklens graphrag build --corpus C") && e.contains("Structured → Build the model's graph"),
        "{e}"
    );
    assert!(!e.contains("  ") && !e.contains('\n'), "{e:?}");
}

/// The database file's bytes.
fn digest(path: &std::path::Path) -> Vec<u8> {
    sha2::Sha256::digest(std::fs::read(path).unwrap()).to_vec()
}

#[test]
fn sql_that_writes_or_stacks_statements_changes_nothing_and_says_why() {
    let s = sample();
    let db = s.engine.structured().sql.clone().unwrap();
    let before = digest(db.path());
    let rows = |sql: &str| db.query(sql, SqlLimits::default()).unwrap().rows.len();
    let errors = rows("SELECT * FROM errors");
    assert_eq!(errors, 5);
    let hostile: [(&str, &str); 7] = [
        ("DROP TABLE errors;", "DROP statement"),
        ("SELECT code FROM errors; DROP TABLE errors;", "more than one statement"),
        ("ATTACH DATABASE 'stolen.db' AS x;", "ATTACH statement"),
        ("PRAGMA query_only = 0;", "PRAGMA statement"),
        ("```sql\nDELETE FROM errors\n```", "DELETE statement"),
        ("UPDATE errors SET fix = 'none'", "UPDATE statement"),
        // Past the first check (it starts as a read), refused by the read-only connection.
        ("WITH x AS (SELECT 1) DELETE FROM errors", "refused"),
    ];
    for (reply, why) in hostile {
        let server = chat::serve(move |_| Reply::Text(reply.into()));
        let generator = chat::client(&server);
        let asked = text_to_sql::write_sql(&generator, &db, "Which errors stop sync?", &NoProgress).unwrap();
        // The prompt showed the schema and three example rows.
        let prompt = chat::last(&requests(&server)[0]);
        assert!(prompt.contains("errors(code TEXT") && prompt.contains("Example rows of errors:"), "{prompt}");
        assert_eq!(prompt.matches("\n  code=").count(), 3, "{prompt}");
        match text_to_sql::run(&db, &asked.sql, SqlLimits::default()) {
            SqlOutcome::Refused(m) => assert!(m.contains(why), "{reply}: {m}"),
            other => panic!("{reply}: {other:?}"),
        }
        assert_eq!(digest(db.path()), before, "{reply} changed the database file");
        assert_eq!(rows("SELECT * FROM errors"), errors);
    }
    // One SELECT runs.
    let server = chat::serve(|_| Reply::Text("SQL: SELECT code FROM errors WHERE stops_sync = 1;".into()));
    let asked = text_to_sql::write_sql(&chat::client(&server), &db, "Which errors stop sync?", &NoProgress).unwrap();
    match text_to_sql::run(&db, &asked.sql, SqlLimits::default()) {
        SqlOutcome::Rows(r) => assert_eq!(r.rows.len(), rows("SELECT code FROM errors WHERE stops_sync = 1")),
        other => panic!("{other:?}"),
    }
    // The agent's SQL tool refuses the same way, and tells the model.
    let server = chat::serve(|body| match chat::tool_results(body).len() {
        0 => Reply::Raw(chat::tool_calls(&[("sql", r#"{"sql": "DROP TABLE errors"}"#)], 5)),
        _ => Reply::Text("I could not.".into()),
    });
    let run = agent(&s.engine, &server, AgentLimits::default())
        .run(&QueryContext::new(QUESTION), &mut |_| {}, &NoProgress)
        .unwrap();
    assert!(run.steps[0].problem.as_deref().unwrap().starts_with("sql refused: the model wrote a DROP statement"));
    assert_eq!(digest(db.path()), before);
}

/// The CLI prints `{"sql", "rows"}` or `{"sql", "refused"}`.
#[test]
fn ranklens_sql_ask_prints_the_statement_with_its_rows_or_why_it_was_refused() {
    let run = |reply: &'static str| {
        let server = chat::serve(move |_| Reply::Text(reply.into()));
        let dir = tempfile::tempdir().unwrap();
        let out = std::process::Command::new(env!("CARGO_BIN_EXE_ranklens"))
            .args(["sql", "--corpus"])
            .arg(common::sample("acme-sync"))
            .args(["--ask", "Which errors stop sync?", "--format", "json", "--llm"])
            .arg(format!("{}/v1", server.url))
            .args(["--llm-model", "scripted"])
            .env("RANKLENS_WORKSPACE", dir.path())
            .output()
            .unwrap();
        (out.status.code(), serde_json::from_slice::<Value>(&out.stdout).unwrap_or(Value::Null))
    };
    let (code, v) = run("SELECT code FROM errors WHERE stops_sync = 1;");
    assert_eq!(code, Some(0), "{v}");
    assert_eq!(v["sql"], "SELECT code FROM errors WHERE stops_sync = 1;");
    assert_eq!(v["rows"], serde_json::json!([["E104"], ["E180"], ["E210"]]), "errors.csv's stops_sync = 1 rows");
    assert!(v.get("refused").is_none());
    let (code, v) = run("DROP TABLE errors;");
    assert_eq!(code, Some(1));
    assert_eq!(v["sql"], "DROP TABLE errors;");
    assert!(v["refused"].as_str().unwrap().contains("DROP"), "{v}");
    assert!(v.get("rows").is_none());
}

/// `ranklens agent --format json` prints the trace in the shape the issue names.
#[test]
fn ranklens_agent_prints_its_trace_as_json() {
    let server = chat::serve(|body| match chat::tool_results(body).len() {
        0 => Reply::Raw(chat::tool_calls(&[("bm25", r#"{"query": "E104"}"#)], 9)),
        _ => Reply::Text("Sign in again [1].".into()),
    });
    let dir = tempfile::tempdir().unwrap();
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_ranklens"))
        .args(["agent", "--corpus"])
        .arg(common::sample("acme-sync"))
        .args(["--tools", "bm25", "--format", "json", "--offline", "--llm"])
        .arg(format!("{}/v1", server.url))
        .args(["--llm-model", "scripted", QUESTION])
        .env("RANKLENS_WORKSPACE", dir.path())
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let v: Value = serde_json::from_slice(&out.stdout).unwrap();
    let step = &v["trace"][0];
    for key in ["tool", "arguments", "ids", "tokens", "seconds"] {
        assert!(step.get(key).is_some(), "{key} missing: {v}");
    }
    assert_eq!(step["tool"], "bm25");
    assert_eq!(step["tokens"], 9);
    let s = sample();
    let top = bm25(&s.engine, "E104", 4);
    assert_eq!(step["ids"], serde_json::json!(top));
    assert_eq!(v["answer"], "Sign in again [1].");
    assert_eq!(v["citations"][0]["id"], top[0].as_str());
    assert_eq!(v["hits"], serde_json::json!(top));
}

#[test]
fn graphrag_skips_and_counts_invalid_extractions_keeps_every_edges_passage_and_searches_locally() {
    let s = sample();
    let first: Vec<String> = s.engine.corpus().docs()[..6].iter().map(|d| d.id.clone()).collect();
    // errors-1 answers prose, errors-3 JSON of the wrong shape; the others a valid extraction
    // naming the passage's title as an entity linked to "Acme Sync".
    let titles: Vec<(String, String)> =
        s.engine.corpus().docs()[..6].iter().map(|d| (d.text.clone(), d.title.clone())).collect();
    let server = chat::serve(move |body| {
        let asked = chat::last(body);
        if asked.starts_with("Entities:") {
            return Reply::Text("These entities are parts of Acme Sync.".into());
        }
        let Some((_, title)) = titles
            .iter()
            .find(|(text, _)| asked.contains(text.split_whitespace().take(8).collect::<Vec<_>>().join(" ").as_str()))
        else {
            return Reply::Text("?".into());
        };
        match title.as_str() {
            "Error codes at a glance" => Reply::Text("Sure! The passage is about error codes.".into()),
            "E140" => Reply::Text(r#"{"entities": "E140"}"#.into()),
            t => Reply::Text(format!(
                r#"{{"entities": [{{"name": "{t}", "type": "error"}}, {{"name": "Acme Sync", "type": "product"}}], "relations": [{{"source": "{t}", "relation": "is shown by", "target": "Acme Sync"}}]}}"#
            )),
        }
    });
    s.engine.set_generator(Arc::new(chat::client(&server))).unwrap();
    let generator = s.engine.generator().unwrap();
    let (graph, cached) = s
        .engine
        .build_model_graph(generator.as_ref(), BuildOptions { limit: Some(6), summaries: true }, &NoProgress)
        .unwrap();
    assert!(!cached);
    let d = graph.data();
    assert_eq!(d.passages, 6);
    let skipped: Vec<(&str, &str)> = d.skipped.iter().map(|x| (x.passage.as_str(), x.reason.as_str())).collect();
    assert_eq!(skipped, [("errors-1", "the reply holds no JSON object"), ("errors-3", "`entities` is not a list")]);
    // Four good passages: four titles and Acme Sync, one edge per passage, each from its passage.
    assert_eq!(d.nodes.len(), 5);
    assert_eq!(d.edges.len(), 4);
    let good: Vec<&String> = first.iter().filter(|id| *id != "errors-1" && *id != "errors-3").collect();
    let from: Vec<&String> = d.edges.iter().map(|e| &e.provenance.passage).collect();
    assert_eq!(from, good);
    assert!(d.edges.iter().all(|e| e.provenance.model.starts_with("scripted-model") && e.relation == "is_shown_by"));
    assert!(d.edges.iter().all(|e| e.provenance.prompt == ranklens::generate::prompts::EXTRACT.hash()));
    // A star around Acme Sync is one community, summarised.
    assert_eq!(d.communities[0].members.len(), 5);
    assert_eq!(d.communities[0].summary.as_deref(), Some("These entities are parts of Acme Sync."));
    // Built again: read from the cache, not asked again.
    let asked = server.requests.lock().unwrap().len();
    let (_, cached) = s
        .engine
        .build_model_graph(generator.as_ref(), BuildOptions { limit: Some(6), summaries: true }, &NoProgress)
        .unwrap();
    assert!(cached);
    assert_eq!(server.requests.lock().unwrap().len(), asked);

    // Local search: the question names E104; its neighbour Acme Sync brings the others at ½.
    let r = s.engine.retriever(MethodKind::GraphLocal, &Settings::default()).unwrap();
    let p = r.prepare(&QueryContext::new("What is E104?")).unwrap();
    let ranking = p.search(10).unwrap();
    let e104 = s.engine.corpus().lookup("errors-2").unwrap();
    assert_eq!((ranking.hits[0].doc, ranking.hits[0].score), (e104, 1.5), "E104 (1) + Acme Sync (½)");
    assert_eq!(ranking.hits.len(), 4);
    assert!(ranking.hits[1..].iter().all(|h| h.score == 0.5));
    let e = p.explain(e104).unwrap();
    assert_eq!(e.parts_sum(), Some(1.5));

    // The hand-built graph beside it: E104 is in both.
    let o = ranklens::graphrag::compare(&graph, s.engine.structured().graph.as_ref().unwrap());
    assert!(o.entities_both.iter().any(|e| e.eq_ignore_ascii_case("e104")), "{o:?}");
}

#[test]
fn global_search_maps_every_summary_and_reduces_the_helpful_ones() {
    let s = sample();
    let server = chat::serve(|body| {
        let asked = chat::last(body);
        if asked.starts_with("Passage:") {
            let name = if asked.contains("E104") { "E104" } else { "E140" };
            return Reply::Text(format!(
                r#"{{"entities": [{{"name": "{name}"}}, {{"name": "sign in"}}], "relations": [{{"source": "{name}", "relation": "fixed by", "target": "sign in"}}]}}"#
            ));
        }
        if asked.starts_with("Entities:") {
            return Reply::Text("Error codes and how to fix them.".into());
        }
        if asked.starts_with("Summary:") {
            return Reply::Text("Error codes are fixed by signing in.\nScore: 70".into());
        }
        Reply::Text("Errors are fixed by signing in [1].".into())
    });
    s.engine.set_generator(Arc::new(chat::client(&server))).unwrap();
    let g = s.engine.generator().unwrap();
    let (graph, _) =
        s.engine.build_model_graph(g.as_ref(), BuildOptions { limit: Some(3), summaries: true }, &NoProgress).unwrap();
    let a = ranklens::graphrag::global_answer(g.as_ref(), &graph, "What goes wrong?", &NoProgress).unwrap();
    assert_eq!(a.notes.len(), 1);
    assert_eq!((a.notes[0].score, a.notes[0].scored), (70, true));
    assert_eq!(a.notes[0].text, "Error codes are fixed by signing in.");
    assert_eq!(a.used, [0]);
    assert_eq!(a.answer, "Errors are fixed by signing in [1].");
    let reduce = chat::last(&requests(&server).last().unwrap().clone());
    assert!(reduce.contains("[1] Error codes are fixed by signing in."), "{reduce}");
}

/// `ranklens graphrag build` and `global` on the command line, against a scripted server: the
/// build's JSON counts what the replies held, `--no-summaries` leaves the communities unsummarised
/// (and global search says so), and a build with summaries lets global search answer from them.
#[test]
fn ranklens_graphrag_build_and_global_print_their_figures_and_answer() {
    let server = chat::serve(|body| {
        let asked = chat::last(body);
        if asked.starts_with("Passage:") {
            let name = if asked.contains("E104") { "E104" } else { "E140" };
            return Reply::Text(format!(
                r#"{{"entities": [{{"name": "{name}"}}, {{"name": "sign in"}}], "relations": [{{"source": "{name}", "relation": "fixed by", "target": "sign in"}}]}}"#
            ));
        }
        if asked.starts_with("Entities:") {
            return Reply::Text("Error codes and how to fix them.".into());
        }
        if asked.starts_with("Summary:") {
            return Reply::Text("Error codes are fixed by signing in.\nScore: 70".into());
        }
        Reply::Text("Errors are fixed by signing in [1].".into())
    });
    let dir = tempfile::tempdir().unwrap();
    let run = |args: &[&str]| {
        let out = std::process::Command::new(env!("CARGO_BIN_EXE_ranklens"))
            .args(args)
            .arg("--corpus")
            .arg(common::sample("acme-sync"))
            .args(["--format", "json", "--offline", "--llm"])
            .arg(format!("{}/v1", server.url))
            .args(["--llm-model", "scripted"])
            .env("RANKLENS_WORKSPACE", dir.path())
            .output()
            .unwrap();
        let v: Value = serde_json::from_slice(&out.stdout).unwrap_or(Value::Null);
        (out.status.code(), v, String::from_utf8_lossy(&out.stderr).to_string())
    };
    let (code, v, err) = run(&["graphrag", "build", "--limit", "3", "--no-summaries"]);
    assert_eq!(code, Some(0), "{err}");
    assert_eq!(v["passages"], 3, "{v}");
    assert_eq!((v["skipped"].as_u64(), v["summaries"].as_u64()), (Some(0), Some(0)), "{v}");
    // Every reply links an error code to "sign in": each passage one relation, the codes and
    // "sign in" the entities.
    assert_eq!(v["relations"], 3, "{v}");
    let entities = v["entities"].as_u64().unwrap();
    assert!((2..=3).contains(&entities), "{v}");
    let (code, _, err) = run(&["graphrag", "global", "What goes wrong?"]);
    assert_eq!(code, Some(2));
    assert!(err.contains("no community summaries") && err.contains("--no-summaries"), "{err}");

    let (code, v, err) = run(&["graphrag", "build", "--limit", "3"]);
    assert_eq!(code, Some(0), "{err}");
    assert!(v["summaries"].as_u64().unwrap() >= 1, "summarised this time: {v}");
    let (code, v, err) = run(&["graphrag", "global", "What goes wrong?"]);
    assert_eq!(code, Some(0), "{err}");
    assert_eq!(v["answer"], "Errors are fixed by signing in [1].", "{v}");
    assert_eq!(v["notes"][0]["score"], 70, "{v}");
}
