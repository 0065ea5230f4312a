//! The chat-server client against a loopback server in the test answering in OpenAI's documented
//! chat-completions shapes, plain and streamed: the request it sends (path, model, bearer key,
//! messages carrying the numbered passages, temperature) and every failure named.
//!
//! Set RANKLENS_LLM_SERVER to a base URL (scripts/llama-server.sh does, with a real llama.cpp
//! server on loopback) and `a_rag_prompt_is_answered_by_the_server_named_in_ranklens_llm_server_else_the_loopback_stand_in` runs against it; without it,
//! that test asks the loopback stand-in (its name says so).

mod common;

use common::http::{raw, serve};
use ranklens::generate::tasks::{self, rag_prompt};
use ranklens::generate::{ChatServer, Finish, Generator, ServerConfig};
use ranklens::progress::NoProgress;
use serde_json::Value;
use std::io::Write;

fn passages() -> Vec<(String, String)> {
    vec![
        ("errors-3".into(), "E140 appears when a file is bigger than the upload limit.".into()),
        ("sync-1".into(), "Sync pauses while the laptop sleeps.".into()),
    ]
}

const PLAIN: &str = r#"{"id":"chatcmpl-1","object":"chat.completion","created":1,"model":"m",
  "choices":[{"index":0,"message":{"role":"assistant","content":"E140 means the file is too big [1]. See also [3]."},
  "finish_reason":"stop"}],"usage":{"prompt_tokens":57,"completion_tokens":12,"total_tokens":69}}"#;

fn stream_of(pieces: &[&str], done: bool) -> String {
    let mut out = String::new();
    out.push_str("data: {\"id\":\"c\",\"object\":\"chat.completion.chunk\",\"choices\":[{\"index\":0,\"delta\":{\"role\":\"assistant\"},\"finish_reason\":null}]}\n\n");
    for p in pieces {
        let chunk = serde_json::json!({"id": "c", "object": "chat.completion.chunk",
            "choices": [{"index": 0, "delta": {"content": p}, "finish_reason": null}]});
        out.push_str(&format!("data: {chunk}\n\n"));
    }
    out.push_str("data: {\"id\":\"c\",\"object\":\"chat.completion.chunk\",\"choices\":[{\"index\":0,\"delta\":{},\"finish_reason\":\"length\"}]}\n\n");
    if done {
        out.push_str("data: [DONE]\n\n");
    }
    out
}

fn client(url: &str, stream: bool, key_env: Option<&str>) -> ChatServer {
    let mut c = ServerConfig::new(format!("{url}/v1"), "smollm2-test");
    c.stream = stream;
    c.key_env = key_env.map(str::to_string);
    c.timeout_secs = 5;
    ChatServer::new(c).unwrap()
}

#[test]
fn a_plain_answer_and_the_request_that_asked_for_it() {
    let server = serve(|_, _, _| (200, PLAIN.to_string(), 0));
    let c = client(&server.url, false, None);
    let mut seen = String::new();
    let (prompt, g, a) =
        tasks::answer(&c, "What is E140?", &passages(), &mut |p| seen.push_str(p), &NoProgress).unwrap();
    assert_eq!(prompt, rag_prompt("What is E140?", &passages()));
    assert_eq!(g.text, "E140 means the file is too big [1]. See also [3].");
    assert_eq!(seen, g.text);
    assert_eq!((g.finish, g.prompt_tokens, g.completion_tokens), (Finish::Stop, 57, 12));
    assert_eq!(g.model, format!("smollm2-test ({}/v1)", server.url));

    let requests = server.requests.lock().unwrap();
    assert_eq!(requests.len(), 1);
    let (method, path, headers, body) = &requests[0];
    assert_eq!((method.as_str(), path.as_str()), ("POST", "/v1/chat/completions"));
    assert!(!headers.to_ascii_lowercase().contains("authorization"), "no key was asked for: {headers}");
    let body: Value = serde_json::from_str(body).unwrap();
    assert_eq!(body["model"], "smollm2-test");
    assert_eq!(body["temperature"], 0.0);
    assert_eq!(body["stream"], false);
    assert_eq!(body["messages"][0]["role"], "system");
    assert_eq!(body["messages"][1]["role"], "user");
    let user = body["messages"][1]["content"].as_str().unwrap();
    assert!(user.contains("[1] (errors-3) E140 appears when a file is bigger than the upload limit."), "{user}");
    assert!(user.contains("[2] (sync-1) Sync pauses while the laptop sleeps."), "{user}");
    assert!(user.ends_with("Question: What is E140?\nAnswer:"), "{user}");

    // Read back against the prompt's passages: [3] was not in the prompt.
    assert_eq!(a.stray(), vec![3]);
    assert_eq!(a.citations[0].id.as_deref(), Some("errors-3"));
}

#[test]
fn a_streamed_answer_arrives_piece_by_piece() {
    let server = serve(|_, _, _| (200, stream_of(&["E140 ", "means ", "too big", " [1]."], true), 0));
    let c = client(&server.url, true, None);
    let mut pieces = Vec::new();
    let g = c.chat(&tasks::rewrite_request("What is E140?"), &mut |p| pieces.push(p.to_string()), &NoProgress).unwrap();
    assert_eq!(pieces, ["E140 ", "means ", "too big", " [1]."]);
    assert_eq!(g.text, "E140 means too big [1].");
    assert_eq!(g.finish, Finish::Length);
    assert_eq!(g.completion_tokens, 4, "counted pieces when the server sends no usage");
    let requests = server.requests.lock().unwrap();
    let (_, _, headers, body) = &requests[0];
    assert!(!headers.to_ascii_lowercase().contains("authorization"), "no key was asked for: {headers}");
    let body: Value = serde_json::from_str(body).unwrap();
    assert_eq!(body["stream"], true);
    // The rewrite's worked example travels as a previous turn.
    let roles: Vec<&str> = body["messages"].as_array().unwrap().iter().map(|m| m["role"].as_str().unwrap()).collect();
    assert_eq!(roles, ["system", "user", "assistant", "user"]);
    assert_eq!(body["messages"][3]["content"], "What is E140?");
}

fn failure(status: u16, body: &str, key_env: Option<&str>) -> String {
    let body = body.to_string();
    let server = serve(move |_, _, _| (status, body.clone(), 0));
    let c = client(&server.url, false, key_env);
    match c.chat(&tasks::rewrite_request("q"), &mut |_| {}, &NoProgress) {
        Ok(g) => panic!("HTTP {status} gave text {:?}", g.text),
        Err(e) => e.report(),
    }
}

#[test]
fn every_failure_is_named_with_what_to_do() {
    let openai_error = |m: &str| format!(r#"{{"error":{{"message":"{m}","type":"x"}}}}"#);
    let e = failure(401, "{}", None);
    // The library names the setting; the command line adds its flag (below).
    assert!(e.contains("wants an API key") && e.contains("chat server API key variable"), "{e}");
    assert!(!e.contains("--llm"), "a library error names no flag: {e}");
    let e = failure(404, &openai_error("model 'smollm2-test' not found"), None);
    assert!(e.contains("HTTP 404") && e.contains("no model `smollm2-test`") && e.contains("/v1"), "{e}");
    let e = failure(429, r#"{"error":"slow down"}"#, None);
    assert!(e.contains("HTTP 429") && e.contains("slow down") && e.contains("wait"), "{e}");
    let e = failure(503, "upstream gone", None);
    assert!(e.contains("HTTP 503") && e.contains("its log"), "{e}");
    let e = failure(200, r#"{"choices":[]}"#, None);
    assert!(e.contains("not a chat completion") && e.contains("no choices[0]"), "{e}");
    let e = failure(200, r#"{"choices":[{"message":{"role":"assistant"}}]}"#, None);
    assert!(e.contains("no choices[0].message.content"), "{e}");
    let e = failure(200, "<html>proxy login</html>", None);
    assert!(e.contains("not JSON") && e.contains("proxy login"), "{e}");
    // A stream cut before `data: [DONE]`.
    let cut = stream_of(&["half"], false);
    let server = serve(move |_, _, _| (200, cut.clone(), 0));
    let e = client(&server.url, true, None).chat(&tasks::rewrite_request("q"), &mut |_| {}, &NoProgress).unwrap_err();
    assert!(e.report().contains("without `data: [DONE]`"), "{}", e.report());
    // A stream that carries an error event.
    let server = serve(|_, _, _| (200, "data: {\"error\":{\"message\":\"out of memory\"}}\n\n".to_string(), 0));
    let e = client(&server.url, true, None).chat(&tasks::rewrite_request("q"), &mut |_| {}, &NoProgress).unwrap_err();
    assert!(e.report().contains("out of memory"), "{}", e.report());
    // The key's variable is not set.
    let server = serve(|_, _, _| (200, PLAIN.to_string(), 0));
    let e = client(&server.url, false, Some("RANKLENS_TEST_LLM_KEY_NEVER_SET"))
        .chat(&tasks::rewrite_request("q"), &mut |_| {}, &NoProgress)
        .unwrap_err();
    assert!(e.report().contains("RANKLENS_TEST_LLM_KEY_NEVER_SET") && e.report().contains("not set"), "{}", e.report());
    assert!(server.requests.lock().unwrap().is_empty(), "nothing is sent without the key");
    // Nobody listening.
    let port = std::net::TcpListener::bind("127.0.0.1:0").unwrap().local_addr().unwrap().port();
    let e = client(&format!("http://127.0.0.1:{port}"), false, None)
        .chat(&tasks::rewrite_request("q"), &mut |_| {}, &NoProgress)
        .unwrap_err();
    assert!(e.report().contains("cannot connect"), "{}", e.report());
    // No answer in time.
    let server = serve(|_, _, _| (200, PLAIN.to_string(), 3_000));
    let mut c = ServerConfig::new(format!("{}/v1", server.url), "m");
    c.timeout_secs = 1;
    let e = ChatServer::new(c).unwrap().chat(&tasks::rewrite_request("q"), &mut |_| {}, &NoProgress).unwrap_err();
    assert!(e.report().contains("no answer within 1 s"), "{}", e.report());
    // Configuration refused before anything is sent.
    assert!(ChatServer::new(ServerConfig::new("localhost:8080", "m")).is_err());
    assert!(ChatServer::new(ServerConfig::new("http://x/v1", " ")).is_err());
}

/// `ranklens rewrite` against the loopback server, with the key in the environment of the CLI's
/// process (this test process's own environment is never changed).
fn cli_rewrite(url: &str, key: Option<&str>) -> std::process::Output {
    let dir = tempfile::tempdir().unwrap();
    let mut cmd = std::process::Command::new(env!("CARGO_BIN_EXE_ranklens"));
    cmd.args(["rewrite", "What is E140?", "--format", "json", "--llm", &format!("{url}/v1"), "--llm-model", "m"])
        .args(["--llm-key-env", "RANKLENS_TEST_LLM_KEY"])
        .env("XDG_CACHE_HOME", dir.path().join("no-models"))
        .env("RANKLENS_WORKSPACE", dir.path().join("ws"));
    match key {
        Some(k) => cmd.env("RANKLENS_TEST_LLM_KEY", k),
        None => cmd.env_remove("RANKLENS_TEST_LLM_KEY"),
    };
    cmd.output().unwrap()
}

#[test]
fn the_cli_sends_the_key_from_the_variable_it_names() {
    let server = serve(|_, _, _| {
        (200, PLAIN.replace("E140 means the file is too big [1]. See also [3].", "E140 upload limit"), 0)
    });
    let out = cli_rewrite(&server.url, Some("sk-test-123"));
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let v: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(v["text"], "E140 upload limit");
    assert_eq!(v["task"], "rewrite");
    let headers = server.requests.lock().unwrap()[0].2.to_ascii_lowercase();
    assert!(headers.contains("authorization: bearer sk-test-123"), "{headers}");

    let refusing = serve(|_, _, _| (401, r#"{"error":{"message":"Incorrect API key provided"}}"#.into(), 0));
    let out = cli_rewrite(&refusing.url, Some("wrong"));
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2));
    assert!(err.contains("refused the API key") && err.contains("Incorrect API key provided"), "{err}");
    assert!(
        err.contains("RANKLENS_TEST_LLM_KEY") && !err.contains("wrong"),
        "names the variable, never the key: {err}"
    );

    let out = cli_rewrite(&server.url, None);
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("RANKLENS_TEST_LLM_KEY") && err.contains("not set"), "{err}");
    // The command line says which of its flags gives the setting the library names.
    assert!(err.contains("chat server API key variable (--llm-key-env)"), "{err}");
}

#[test]
fn a_rag_prompt_is_answered_by_the_server_named_in_ranklens_llm_server_else_the_loopback_stand_in() {
    let (url, _server) = match std::env::var("RANKLENS_LLM_SERVER") {
        Ok(url) => (url, None),
        Err(_) => {
            let s = serve(|_, _, _| (200, stream_of(&["E140 is a file ", "over the limit [1]."], true), 0));
            (format!("{}/v1", s.url), Some(s))
        }
    };
    let mut config = ServerConfig::new(url, std::env::var("RANKLENS_LLM_SERVER_MODEL").unwrap_or("smollm2".into()));
    config.timeout_secs = 120;
    let c = ChatServer::new(config).unwrap();
    let prompt = rag_prompt("What is E140?", &passages());
    for stream in [true, false] {
        let mut c2 = ServerConfig::new(c.info().place.to_string(), c.info().model.clone());
        c2.stream = stream;
        let c2 = ChatServer::new(c2).unwrap();
        let mut streamed = String::new();
        let g = c2.chat(&tasks::rag_request(&prompt), &mut |p| streamed.push_str(p), &NoProgress).unwrap();
        assert!(!g.text.trim().is_empty(), "an answer");
        assert_eq!(streamed, g.text, "the pieces make the text");
        eprintln!("{} (stream {stream}): {:?} in {:.2} s, {} tokens", g.model, g.text, g.seconds, g.completion_tokens);
        // Whatever the model wrote, its citations are read against the prompt's passages.
        let a = ranklens::generate::citations::read_answer(&g.text, &passages());
        let read: std::collections::BTreeSet<usize> = a.citations.iter().map(|c| c.n).collect();
        assert!(common::bracketed_numbers(&g.text).is_subset(&read), "{:?} read as {read:?}", g.text);
        if std::env::var("RANKLENS_LLM_SERVER").is_err() {
            assert_eq!(read, [1].into(), "the scripted answer cites [1]");
        }
        for c in &a.citations {
            assert_eq!(c.in_prompt, (1..=2).contains(&c.n));
        }
        if std::env::var("RANKLENS_LLM_SERVER").is_err() {
            break;
        }
    }
}

// ---- Hostile servers: what comes back is read with limits, never trusted ----------------------

const EVENT_HEAD: &str = "HTTP/1.1 200 OK\r\nContent-Type: text/event-stream\r\nConnection: close\r\n\r\n";

fn delta(piece: &str) -> String {
    let chunk = serde_json::json!({"choices": [{"index": 0, "delta": {"content": piece}, "finish_reason": null}]});
    format!("data: {chunk}\n\n")
}

fn ask(url: &str, stream: bool, timeout_secs: u64, key_env: Option<&str>) -> Result<String, String> {
    let mut c = ServerConfig::new(format!("{url}/v1"), "m");
    c.stream = stream;
    c.timeout_secs = timeout_secs;
    c.key_env = key_env.map(str::to_string);
    ChatServer::new(c)
        .unwrap()
        .chat(&tasks::rewrite_request("q"), &mut |_| {}, &NoProgress)
        .map(|g| g.text)
        .map_err(|e| e.report())
}

#[test]
fn an_event_that_is_not_json_is_named_with_what_it_said() {
    let url = raw(|_, s| {
        let _ = write!(s, "{EVENT_HEAD}{}data: {{oops, not json\n\n", delta("half "));
    });
    let e = ask(&url.url, true, 5, None).unwrap_err();
    assert!(e.contains("an event is not JSON") && e.contains("{oops, not json"), "{e}");
}

#[test]
fn a_stream_that_trickles_on_past_the_time_allowed_is_cut_and_said() {
    // One piece every 200 ms, for ever: with 1 s to answer, the body has 10 s.
    let url = raw(|_, s| {
        if write!(s, "{EVENT_HEAD}").is_err() {
            return;
        }
        for _ in 0..600 {
            if s.write_all(delta("drip ").as_bytes()).and_then(|_| s.flush()).is_err() {
                return;
            }
            std::thread::sleep(std::time::Duration::from_millis(200));
        }
    });
    let started = std::time::Instant::now();
    let e = ask(&url.url, true, 1, None).unwrap_err();
    let waited = started.elapsed().as_secs_f64();
    assert!(e.contains("did not finish within 10 s") && e.contains("words had arrived"), "{e}");
    // Not a bound on speed: only that it gave up rather than reading for the 120 s on offer.
    assert!(waited < 60.0, "{waited} s");
}

#[test]
fn an_endless_line_is_refused_at_its_limit_not_held_in_memory() {
    // `data: xxxx…` for 3 MiB with no end of line.
    let url = raw(|_, s| {
        let _ = write!(s, "{EVENT_HEAD}data: ");
        let block = vec![b'x'; 64 << 10];
        for _ in 0..48 {
            if s.write_all(&block).is_err() {
                return;
            }
        }
    });
    let e = ask(&url.url, true, 5, None).unwrap_err();
    assert!(e.contains("runs past 1024 KiB"), "{e}");
    assert!(e.len() < 2_000, "the error quotes a little of the line, not all of it: {} bytes", e.len());
}

#[test]
fn chunked_answers_plain_and_streamed_are_read() {
    fn chunked(s: &mut std::net::TcpStream, kind: &str, body: &str) {
        let mut out = format!("HTTP/1.1 200 OK\r\nContent-Type: {kind}\r\nTransfer-Encoding: chunked\r\n\r\n");
        // Cut into chunks of 7 bytes, across the JSON's tokens and the events' lines.
        for piece in body.as_bytes().chunks(7) {
            out.push_str(&format!("{:x}\r\n{}\r\n", piece.len(), String::from_utf8_lossy(piece)));
        }
        out.push_str("0\r\n\r\n");
        let _ = s.write_all(out.as_bytes());
    }
    let url = raw(|_, s| chunked(s, "application/json", PLAIN));
    assert_eq!(ask(&url.url, false, 5, None).unwrap(), "E140 means the file is too big [1]. See also [3].");
    let url = raw(|_, s| chunked(s, "text/event-stream", &stream_of(&["E140 ", "is ", "big."], true)));
    assert_eq!(ask(&url.url, true, 5, None).unwrap(), "E140 is big.");
}

#[test]
fn a_redirect_is_reported_and_the_key_never_follows_it() {
    // The other host records whatever reaches it.
    let elsewhere = raw(|_, s| {
        let _ = s.write_all(format!("HTTP/1.1 200 OK\r\nContent-Length: {}\r\n\r\n{PLAIN}", PLAIN.len()).as_bytes());
    });
    let to = elsewhere.url.replace("127.0.0.1", "localhost");
    for status in [301, 302, 307, 308] {
        let target = format!("{to}/v1/chat/completions");
        let named = raw(move |_, s| {
            let _ = write!(s, "HTTP/1.1 {status} Moved\r\nLocation: {target}\r\nContent-Length: 0\r\n\r\n");
        });
        // PATH is set wherever tests run: it stands in for a key without touching this process's
        // environment.
        let e = ask(&named.url, false, 5, Some("PATH")).unwrap_err();
        assert!(e.contains(&format!("HTTP {status}")) && e.contains(&to) && e.contains("does not follow"), "{e}");
        let asked = named.requests.lock().unwrap();
        assert!(asked[0].2.to_ascii_lowercase().contains("authorization: bearer"), "the server named was sent the key");
    }
    assert!(elsewhere.requests.lock().unwrap().is_empty(), "nothing, and no key, went to the other host");
}

#[test]
fn an_extraction_asks_for_json_of_its_schema_and_a_server_that_refuses_json_mode_is_asked_without_it() {
    let request = ranklens::graphrag::extract_request("The e2e plugin depends on libsodium.");
    // A server that takes JSON mode gets the schema.
    let server = serve(|_, _, _| (200, PLAIN.to_string(), 0));
    let c = client(&server.url, false, None);
    c.chat(&request, &mut |_| {}, &NoProgress).unwrap();
    let body: Value = serde_json::from_str(&server.requests.lock().unwrap()[0].3).unwrap();
    assert_eq!(body["response_format"]["type"], "json_object");
    assert_eq!(body["response_format"]["schema"]["required"], serde_json::json!(["entities", "relations"]));
    // Without a schema, no response_format.
    c.chat(&tasks::rewrite_request("q"), &mut |_| {}, &NoProgress).unwrap();
    let body: Value = serde_json::from_str(&server.requests.lock().unwrap()[1].3).unwrap();
    assert!(body.get("response_format").is_none(), "{body}");
    // A server that refuses it (llama-cpp-python's words for a type it does not take): asked
    // again at once without it, and not with it again.
    let refusing = serve(|_, _, body| {
        if body.contains("response_format") {
            (400, r#"{"error":{"message":"body.response_format.type: Input should be 'text'","type":"x"}}"#.into(), 0)
        } else {
            (200, PLAIN.to_string(), 0)
        }
    });
    let c = client(&refusing.url, false, None);
    let g = c.chat(&request, &mut |_| {}, &NoProgress).unwrap();
    assert_eq!(g.text, "E140 means the file is too big [1]. See also [3].");
    c.chat(&request, &mut |_| {}, &NoProgress).unwrap();
    let with: Vec<bool> =
        refusing.requests.lock().unwrap().iter().map(|(_, _, _, b)| b.contains("response_format")).collect();
    assert_eq!(with, [true, false, false]);
    // Any other refusal is not retried.
    let failing = serve(|_, _, _| (400, r#"{"error":{"message":"context too long","type":"x"}}"#.into(), 0));
    let e = client(&failing.url, false, None).chat(&request, &mut |_| {}, &NoProgress).unwrap_err().report();
    assert!(e.contains("context too long"), "{e}");
    assert_eq!(failing.requests.lock().unwrap().len(), 1);
}

#[test]
fn a_streamed_answer_past_8_mib_is_cut_at_the_cap_and_said() {
    // Pieces of 512 KiB (each event's line under the 1 MiB line limit), 17 of them: 8.5 MiB.
    let url = raw(|_, s| {
        let piece = "y".repeat(512 << 10);
        if write!(s, "{EVENT_HEAD}").is_err() {
            return;
        }
        for _ in 0..17 {
            if s.write_all(delta(&piece).as_bytes()).is_err() {
                return;
            }
        }
        let _ = s.write_all(b"data: [DONE]\n\n");
    });
    let e = ask(&url.url, true, 10, None).unwrap_err();
    assert!(e.contains("the answer is longer than 8 MiB"), "{e}");
    // Sixteen pieces (exactly 8 MiB) are an answer.
    let url = raw(|_, s| {
        let piece = "y".repeat(512 << 10);
        let _ = write!(s, "{EVENT_HEAD}");
        for _ in 0..16 {
            let _ = s.write_all(delta(&piece).as_bytes());
        }
        let _ = s.write_all(b"data: [DONE]\n\n");
    });
    assert_eq!(ask(&url.url, true, 10, None).unwrap().len(), 8 << 20);
}

#[test]
fn an_event_without_a_delta_is_named_not_skipped() {
    let url = raw(|_, s| {
        let _ = write!(
            s,
            "{EVENT_HEAD}{}data: {{\"choices\": [{{}}]}}\n\n{}data: [DONE]\n\n",
            delta("half "),
            delta("more")
        );
    });
    let e = ask(&url.url, true, 5, None).unwrap_err();
    assert!(e.contains("an event has no choices[0].delta"), "{e}");
}

#[test]
fn a_plain_answer_that_trickles_past_the_time_allowed_is_cut_and_said() {
    // A plain (not streamed) body promising 100 KB, one byte every 200 ms: with 1 s to answer,
    // the body has 10 s.
    let url = raw(|_, s| {
        if write!(s, "HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: 100000\r\n\r\n").is_err() {
            return;
        }
        for _ in 0..600 {
            if s.write_all(b" ").and_then(|_| s.flush()).is_err() {
                return;
            }
            std::thread::sleep(std::time::Duration::from_millis(200));
        }
    });
    let started = std::time::Instant::now();
    let e = ask(&url.url, false, 1, None).unwrap_err();
    assert!(e.contains("reading the answer"), "{e}");
    assert!(started.elapsed().as_secs_f64() < 60.0, "it gave up rather than reading for 120 s");
}
