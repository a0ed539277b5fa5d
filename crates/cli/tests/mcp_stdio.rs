//! `pathwise mcp` as an assistant runs it: the real binary on stdio, driven by the official
//! Rust SDK's client (rmcp), each test in a temporary data directory of its own. A session
//! ends as an assistant ends it, by closing the server's stdin; every server a test starts
//! is killed when the test ends, whether it passed or not.

mod common;

use common::TOOLS;

use rmcp::model::{CallToolRequestParams, CallToolResult, GetPromptRequestParams, ReadResourceRequestParams};
use rmcp::service::RunningService;
use rmcp::transport::{ConfigureCommandExt, TokioChildProcess};
use rmcp::{RoleClient, ServiceExt};
use serde_json::{json, Value};
use std::collections::BTreeSet;
use std::future::Future;
use std::path::Path;
use std::pin::Pin;
use std::process::Stdio;
use std::sync::{Arc, Mutex};
use std::task::{Context, Poll};
use std::time::Duration;
use tokio::io::{AsyncRead, AsyncReadExt, ReadBuf};

const BIN: &str = env!("CARGO_BIN_EXE_pathwise");
/// Generous: the first start of a debug build migrates a fresh database.
const TIMEOUT: Duration = Duration::from_secs(120);

/// The tools an assistant may call without asking: they change nothing the learner sees.
const READ_ONLY: &[&str] = &[
    "mind_map_get",
    "mind_map_list",
    "mind_map_node_get",
    "mind_map_node_list",
    "mind_map_frontier",
    "mind_map_subtree",
    "curriculum_next_node",
    "mastery_get_node_history",
    "mastery_get_map_summary",
    "mastery_detect_struggles",
    "spaced_repetition_pending_reviews",
    "analytics_get_trend",
    "analytics_get_cross_topic",
    "teaching_flow_get",
    "teaching_flow_list",
    "course_list",
    "course_get",
    "library_assessments",
    "library_skills",
    "session_get",
    "session_list",
    "session_messages",
    "preferences_get",
    "review_log_export",
    "tutor_thread_list",
    "tutor_thread_get",
    "tutor_snapshot",
    "tutor_thread_messages",
    "tutor_turn_log",
    "author_documents",
    "author_document_get",
    "author_drafts",
    "author_draft_get",
    "author_draft_export",
    "author_course_shares",
];

const PROMPTS: &[&str] = &["curriculum_planning", "diagnostic", "teaching", "review", "tutor_course", "run_evaluation"];

// ---------------------------------------------------------------------------------------
// Harness
// ---------------------------------------------------------------------------------------

/// Wait for `future`, failing the test after [`TIMEOUT`] instead of hanging.
async fn within<T>(what: &str, future: impl Future<Output = T>) -> T {
    tokio::time::timeout(TIMEOUT, future).await.unwrap_or_else(|_| panic!("{what}: no answer in {TIMEOUT:?}"))
}

/// The binary, run in `dir` (so that no `./pathwise.toml` of the caller's is read) with
/// none of the caller's `PATHWISE_*` variables: logs at their defaults.
fn pathwise(dir: &Path, data: &Path, args: &[&str], env: &[(&str, &str)]) -> tokio::process::Command {
    tokio::process::Command::new(BIN).configure(|command| {
        command.arg("--data-dir").arg(data).args(args).current_dir(dir).kill_on_drop(true);
        for (name, _) in std::env::vars() {
            if name.starts_with("PATHWISE_") {
                command.env_remove(name);
            }
        }
        for (name, value) in env {
            command.env(name, value);
        }
    })
}

/// Run a command that ends by itself; its stdout, after checking that it succeeded.
async fn run(dir: &Path, data: &Path, args: &[&str]) -> String {
    let output =
        within(&format!("pathwise {args:?}"), pathwise(dir, data, args, &[]).output()).await.expect("start pathwise");
    let stdout = String::from_utf8_lossy(&output.stdout).into_owned();
    assert!(
        output.status.success(),
        "pathwise {args:?}: exit {}\nstdout: {stdout}\nstderr: {}",
        output.status,
        String::from_utf8_lossy(&output.stderr)
    );
    stdout
}

/// Collect a pipe until it closes (the process exited).
fn collect(mut pipe: impl AsyncRead + Unpin + Send + 'static) -> (Arc<Mutex<Vec<u8>>>, tokio::task::JoinHandle<()>) {
    let collected = Arc::new(Mutex::new(Vec::new()));
    let sink = collected.clone();
    let reader = tokio::spawn(async move {
        let mut buffer = [0u8; 4096];
        while let Ok(n) = pipe.read(&mut buffer).await {
            if n == 0 {
                break;
            }
            sink.lock().unwrap().extend_from_slice(&buffer[..n]);
        }
    });
    (collected, reader)
}

fn text(bytes: &Mutex<Vec<u8>>) -> String {
    String::from_utf8_lossy(&bytes.lock().unwrap()).into_owned()
}

/// One `pathwise mcp` with an rmcp client connected to it.
struct Mcp {
    client: RunningService<RoleClient, ()>,
    stderr: Arc<Mutex<Vec<u8>>>,
    stderr_reader: tokio::task::JoinHandle<()>,
}

impl Mcp {
    /// `pathwise --data-dir DATA mcp ARGS...` (the local learner, or `--token`'s).
    async fn start(dir: &Path, data: &Path, args: &[&str], env: &[(&str, &str)]) -> Mcp {
        let mut all = vec!["mcp"];
        all.extend_from_slice(args);
        let (transport, stderr) = TokioChildProcess::builder(pathwise(dir, data, &all, env))
            .stderr(Stdio::piped())
            .spawn()
            .expect("start pathwise mcp");
        let (stderr, stderr_reader) = collect(stderr.expect("a piped stderr"));
        let client = match within("initialize", ().serve(transport)).await {
            Ok(client) => client,
            Err(error) => panic!("pathwise mcp did not start a session: {error}\nstderr: {}", text(&stderr)),
        };
        Mcp { client, stderr, stderr_reader }
    }

    fn log(&self) -> String {
        text(&self.stderr)
    }

    async fn call(&self, name: &str, arguments: Value) -> CallToolResult {
        let arguments = match arguments {
            Value::Object(map) => map,
            other => panic!("arguments must be an object, not {other}"),
        };
        let request = CallToolRequestParams::new(name.to_string()).with_arguments(arguments);
        match within(name, self.client.call_tool(request)).await {
            Ok(result) => result,
            Err(error) => panic!("{name}: a protocol error: {error}\nserver log: {}", self.log()),
        }
    }

    /// A call that must succeed: its structured result.
    async fn ok(&self, name: &str, arguments: Value) -> Value {
        let result = self.call(name, arguments).await;
        assert_eq!(result.is_error, Some(false), "{name} failed: {}\nserver log: {}", message(&result), self.log());
        let structured = result.structured_content.clone().unwrap_or_else(|| panic!("{name}: no structured result"));
        // The text block carries the same JSON, for clients that read only text.
        let text: Value = serde_json::from_str(&message(&result)).expect("the text block is the JSON result");
        assert_eq!(text, structured, "{name}: the text and structured results differ");
        structured
    }

    /// A call that must be refused as a tool error: its message.
    async fn refused(&self, name: &str, arguments: Value) -> String {
        let result = self.call(name, arguments).await;
        assert_eq!(result.is_error, Some(true), "{name} was not refused: {result:?}");
        assert!(result.structured_content.is_none(), "{name}: a refusal with a result: {result:?}");
        message(&result)
    }

    /// Disconnect (close its stdin, as an assistant does) and wait for the server to exit;
    /// its log.
    async fn stop(self) -> String {
        let Mcp { client, stderr, stderr_reader } = self;
        within("disconnect", client.cancel()).await.expect("the client's session task");
        // stderr closes when the process has exited.
        within("pathwise mcp to exit", stderr_reader).await.expect("the stderr reader");
        let log = text(&stderr);
        assert!(!log.contains("error:"), "pathwise mcp ended with an error: {log}");
        log
    }
}

fn message(result: &CallToolResult) -> String {
    result.content.iter().filter_map(|block| block.as_text().map(|t| t.text.as_str())).collect::<Vec<_>>().join("\n")
}

fn id(value: &Value) -> String {
    value["id"].as_str().unwrap_or_else(|| panic!("no id in {value}")).to_string()
}

/// A draft map A -> B -> C; its id and the nodes' ids.
async fn chain(mcp: &Mcp, title: &str) -> (String, [String; 3]) {
    let map = id(&mcp.ok("mind_map_create", json!({ "title": title })).await);
    let a =
        id(&mcp.ok("mind_map_node_create", json!({ "mind_map_id": map, "label": "A", "effort_minutes": 10 })).await);
    let b = mcp.ok("mind_map_node_create", json!({ "mind_map_id": map, "label": "B", "prerequisite_ids": [a] })).await;
    let b = id(&b);
    let c = mcp.ok("mind_map_node_create", json!({ "mind_map_id": map, "label": "C", "prerequisite_ids": [b] })).await;
    (map, [a, b, id(&c)])
}

/// A reader that keeps a copy of everything read through it.
struct Recorder<R> {
    inner: R,
    seen: Arc<Mutex<Vec<u8>>>,
}

impl<R: AsyncRead + Unpin> AsyncRead for Recorder<R> {
    fn poll_read(mut self: Pin<&mut Self>, cx: &mut Context<'_>, buf: &mut ReadBuf<'_>) -> Poll<std::io::Result<()>> {
        let before = buf.filled().len();
        let polled = Pin::new(&mut self.inner).poll_read(cx, buf);
        if let Poll::Ready(Ok(())) = polled {
            self.seen.lock().unwrap().extend_from_slice(&buf.filled()[before..]);
        }
        polled
    }
}

// ---------------------------------------------------------------------------------------
// Tests
// ---------------------------------------------------------------------------------------

#[tokio::test]
async fn stdio_lists_every_tool_prompt_and_resource() {
    let tmp = tempfile::tempdir().unwrap();
    let data = tmp.path().join("data");
    // rmcp's client skips lines that are not JSON-RPC, so it would not notice a stray
    // print on stdout: this session records stdout to check every line.
    let mut child = pathwise(tmp.path(), &data, &["mcp"], &[])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("start pathwise mcp");
    let stdout = Arc::new(Mutex::new(Vec::new()));
    let reader = Recorder { inner: child.stdout.take().unwrap(), seen: stdout.clone() };
    let (stderr, stderr_reader) = collect(child.stderr.take().unwrap());
    let client = within("initialize", ().serve((reader, child.stdin.take().unwrap())))
        .await
        .unwrap_or_else(|e| panic!("no session: {e}\nstderr: {}", text(&stderr)));

    let info = client.peer_info().expect("the server's initialize result");
    let info = serde_json::to_value(&*info).unwrap();
    assert_eq!(info["serverInfo"]["name"], "pathwise", "{info}");
    assert!(info["instructions"].as_str().is_some_and(|i| i.contains("teaching_flow_start")), "{info}");
    for capability in ["tools", "prompts", "resources"] {
        assert!(info["capabilities"][capability].is_object(), "no {capability} capability: {info}");
    }

    let tools = within("tools/list", client.list_all_tools()).await.expect("tools/list");
    let names: Vec<&str> = tools.iter().map(|t| t.name.as_ref()).collect();
    assert_eq!(names, TOOLS);
    let registered: Vec<String> =
        pathwise_server::mcp::PathwiseMcp::tools().into_iter().map(|t| t.name.to_string()).collect();
    assert_eq!(names, registered, "tools/list differs from the server's registry");
    for tool in &tools {
        let name = &tool.name;
        assert_eq!(tool.input_schema.get("type"), Some(&json!("object")), "{name}: {:?}", tool.input_schema);
        assert!(tool.description.as_deref().is_some_and(|d| d.len() > 20), "{name} has no description");
        assert!(tool.output_schema.is_some(), "{name} has no output schema");
        let read_only = tool.annotations.as_ref().and_then(|a| a.read_only_hint);
        assert_eq!(read_only, Some(READ_ONLY.contains(&name.as_ref())), "{name}: read-only hint");
    }

    let prompts = within("prompts/list", client.list_all_prompts()).await.expect("prompts/list");
    let prompt_names: Vec<&str> = prompts.iter().map(|p| p.name.as_str()).collect();
    assert_eq!(prompt_names, PROMPTS);
    for (name, arguments) in [
        ("curriculum_planning", json!({ "topic": "Linear algebra", "goal": "eigenvalues" })),
        ("diagnostic", json!({ "topic": "Linear algebra", "flow_id": "0190a0a0-0000-7000-8000-000000000001" })),
        ("teaching", json!({ "topic": "Linear algebra" })),
        ("review", json!({})),
    ] {
        let request = GetPromptRequestParams::new(name).with_arguments(arguments.as_object().unwrap().clone());
        let prompt = within(name, client.get_prompt(request)).await.unwrap_or_else(|e| panic!("{name}: {e}"));
        let rendered = serde_json::to_value(&prompt.messages).unwrap();
        let body = rendered[0]["content"]["text"].as_str().unwrap_or_else(|| panic!("{name}: {rendered}"));
        assert!(body.len() > 200, "{name}: {body}");
        if name != "review" {
            assert!(body.contains("Linear algebra"), "{name} does not name the topic: {body}");
        }
    }
    let missing = GetPromptRequestParams::new("diagnostic");
    let refused = within("a prompt without its argument", client.get_prompt(missing)).await.unwrap_err();
    assert!(refused.to_string().contains("topic"), "{refused}");

    let templates = within("templates", client.list_all_resource_templates()).await.expect("templates/list");
    let templates: Vec<&str> = templates.iter().map(|t| t.uri_template.as_str()).collect();
    assert_eq!(
        templates,
        [
            "pathwise://mind-maps/{mind_map_id}",
            "pathwise://courses/{course_id}",
            "pathwise://courses/{course_id}/snapshot",
            "pathwise://courses/{course_id}/passages/{passage_id}",
            "pathwise://sessions/{session_id}/transcript"
        ]
    );
    // The maps' index, then each shipped course with the learner's snapshot of it.
    let courses: Vec<String> = ["MATH-FOUNDATIONS", "NET-IPV4"]
        .iter()
        .flat_map(|c| [format!("pathwise://courses/{c}"), format!("pathwise://courses/{c}/snapshot")])
        .collect();
    let resources = within("resources/list", client.list_all_resources()).await.expect("resources/list");
    let uris: Vec<&str> = resources.iter().map(|r| r.uri.as_str()).collect();
    assert_eq!(uris[0], "pathwise://mind-maps");
    let mut listed_courses: Vec<String> = uris[1..].iter().map(|u| u.to_string()).collect();
    listed_courses.sort();
    assert_eq!(listed_courses, courses, "{uris:?}");

    let arguments = json!({ "title": "Linear algebra" }).as_object().unwrap().clone();
    let created = within(
        "mind_map_create",
        client.call_tool(CallToolRequestParams::new("mind_map_create").with_arguments(arguments)),
    )
    .await
    .expect("mind_map_create");
    assert_eq!(created.is_error, Some(false), "{created:?}");
    let map_id = id(created.structured_content.as_ref().unwrap());
    let map_uri = format!("pathwise://mind-maps/{map_id}");
    let resources = within("resources/list", client.list_all_resources()).await.expect("resources/list");
    let uris: Vec<&str> = resources.iter().map(|r| r.uri.as_str()).collect();
    assert_eq!(uris[..2], ["pathwise://mind-maps", map_uri.as_str()]);
    let read = |uri: String| {
        let client = &client;
        async move {
            let contents = within(&uri, client.read_resource(ReadResourceRequestParams::new(uri.clone())))
                .await
                .unwrap_or_else(|e| panic!("{uri}: {e}"));
            let contents = serde_json::to_value(&contents.contents).unwrap();
            assert_eq!(contents[0]["mimeType"], "application/json", "{contents}");
            serde_json::from_str::<Value>(contents[0]["text"].as_str().unwrap()).unwrap()
        }
    };
    let index = read("pathwise://mind-maps".into()).await;
    assert_eq!(index["items"][0]["id"], map_id.as_str(), "{index}");
    let map = read(map_uri).await;
    assert_eq!(
        (map["map"]["title"].as_str(), map["nodes"].as_array().map(Vec::len)),
        (Some("Linear algebra"), Some(0))
    );
    assert!(map["summary"].is_object(), "{map}");
    let unknown = ReadResourceRequestParams::new(format!("pathwise://mind-maps/{}", uuid::Uuid::now_v7()));
    assert!(within("an unknown resource", client.read_resource(unknown)).await.is_err());
    let course = read("pathwise://courses/MATH-FOUNDATIONS".into()).await;
    assert!(!course["units"].as_array().unwrap().is_empty(), "{course}");
    let snapshot = read("pathwise://courses/MATH-FOUNDATIONS/snapshot".into()).await;
    assert!(snapshot["snapshotLite"]["focus"]["unitId"].is_string(), "{snapshot}");
    for unknown in [
        "pathwise://courses/NO-SUCH",
        "pathwise://courses/MATH-FOUNDATIONS/grades",
        "pathwise://courses/MATH-FOUNDATIONS/passages/p1",
        "pathwise://sessions/x/transcript",
    ] {
        let unknown = ReadResourceRequestParams::new(unknown.to_string());
        assert!(within("an unknown resource", client.read_resource(unknown)).await.is_err());
    }

    within("disconnect", client.cancel()).await.expect("the client's session task");
    let status = within("pathwise mcp to exit", child.wait()).await.expect("wait");
    within("stderr", stderr_reader).await.unwrap();
    let stderr = text(&stderr);
    assert!(status.success(), "pathwise mcp exited with {status}\nstderr: {stderr}");
    // Logs go to stderr, with the start-up line; stdout carries the protocol only.
    assert!(stderr.contains("serving MCP on stdio"), "no start-up line on stderr: {stderr}");
    let stdout = text(&stdout);
    let lines: Vec<&str> = stdout.lines().collect();
    assert!(lines.len() >= 10, "{stdout}");
    for line in lines {
        let message: Value = serde_json::from_str(line)
            .unwrap_or_else(|e| panic!("stdout carries a line that is not JSON ({e}): {line}"));
        assert_eq!(message["jsonrpc"], "2.0", "stdout carries a line that is not JSON-RPC: {line}");
    }
}

#[tokio::test]
async fn stdio_runs_a_topic_from_start_to_a_scheduled_review() {
    let tmp = tempfile::tempdir().unwrap();
    let data = tmp.path().join("data");
    // An hour between the server's own re-plans: the review job can only come from the
    // flush `pathwise mcp` does when the client disconnects.
    let mcp = Mcp::start(tmp.path(), &data, &[], &[("PATHWISE_SCHEDULER_TICK_MS", "3600000")]).await;

    let flow = mcp.ok("teaching_flow_start", json!({ "topic": "Discrete mathematics", "goal": "counting" })).await;
    assert_eq!(flow["status"], "pending", "{flow}");
    let flow_id = id(&flow);

    // The diagnostic, with the caller's inventory (easiest first) and probes.
    let labels = ["Sets", "Relations", "Functions", "Cardinality", "Countability"];
    let inventory: Vec<Value> =
        labels.iter().map(|l| json!({ "label": l, "description": format!("{l} in discrete mathematics") })).collect();
    let mut step = mcp.ok("diagnostic_start", json!({ "flow_id": flow_id, "inventory": inventory })).await;
    assert_eq!(step["flow"]["status"], "diagnosing", "{step}");
    assert!(step["question"].is_null(), "the caller writes the probes, yet one was written: {step}");
    let mut probed = Vec::new();
    while let Some(concept) = step["next_concept"]["label"].as_str().map(str::to_string) {
        assert!(probed.len() < 7, "more than 7 probes: {probed:?}");
        // The learner knows the two easiest concepts only.
        let known = labels[..2].contains(&concept.as_str());
        let question = json!({
            "concept": concept,
            "text": format!("Which statement about {concept} is right?"),
            "kind": "choice",
            "choices": ["the right one", "a wrong one"],
            "correct": 0,
        });
        let answer = if known { "0" } else { "a wrong one" };
        step = mcp
            .ok("diagnostic_record_probe", json!({ "flow_id": flow_id, "answer": answer, "question": question }))
            .await;
        assert_eq!(step["grade"]["correct"], known, "{concept}: {step}");
        assert_eq!(step["grade"]["graded_by"], "exact", "{step}");
        probed.push(concept);
        assert_eq!(step["probes_answered"], probed.len(), "{step}");
    }
    assert!((3..=5).contains(&probed.len()), "probed {probed:?}");
    let done = mcp.ok("diagnostic_complete", json!({ "flow_id": flow_id })).await;
    assert_eq!(done["flow"]["status"], "planning", "{done}");

    // The plan, from the caller's decomposition.
    let nodes: Vec<Value> = labels
        .iter()
        .map(|l| json!({ "label": l, "description": format!("What {l} are."), "effort_minutes": 20 }))
        .collect();
    let decomposition = json!({
        "root": "Sets",
        "goal_node": "Countability",
        "nodes": nodes,
        "edges": [
            { "parent": "Sets", "child": "Relations" },
            { "parent": "Relations", "child": "Functions" },
            { "parent": "Functions", "child": "Cardinality" },
            { "parent": "Cardinality", "child": "Countability" },
        ],
    });
    let planned = mcp
        .ok("teaching_flow_advance", json!({ "flow_id": flow_id, "step": "plan", "decomposition": decomposition }))
        .await;
    let plan = &planned["plan"];
    assert_eq!((plan["node_count"].as_u64(), plan["edge_count"].as_u64()), (Some(5), Some(4)), "{planned}");
    assert_eq!(plan["status"], "active", "{planned}");
    let map_id = plan["mind_map_id"].as_str().unwrap().to_string();
    let map = mcp.ok("mind_map_get", json!({ "mind_map_id": map_id })).await;
    let status_of = |label: &str| {
        map["nodes"].as_array().unwrap().iter().find(|n| n["label"] == label).unwrap()["mastery_status"].clone()
    };
    // What the diagnostic found seeds the plan.
    assert_eq!(status_of("Sets"), "diagnosed", "{map}");
    assert_eq!(status_of("Countability"), "unseen", "{map}");

    // Teach: the caller explains, from the concept and its context block.
    let taught =
        mcp.ok("teaching_flow_advance", json!({ "flow_id": flow_id, "step": "teach", "caller_explains": true })).await;
    let node = taught["node"].clone();
    let label = node["label"].as_str().unwrap_or_else(|| panic!("no node taught: {taught}")).to_string();
    assert!(taught["explanation"].is_null(), "{taught}");
    assert!(
        taught["context"].as_str().is_some_and(|c| c.contains(&label)),
        "the context block misses {label}: {taught}"
    );

    // Quiz: the caller's question, whose key is not shown back.
    let question = json!({
        "concept": label,
        "text": format!("Which one describes {label}?"),
        "kind": "choice",
        "choices": [format!("What {label} are."), "Something else", "Nothing at all"],
        "correct": 0,
    });
    let quizzed =
        mcp.ok("teaching_flow_advance", json!({ "flow_id": flow_id, "step": "quiz", "question": question })).await;
    assert_eq!(quizzed["flow"]["status"], "quizzing", "{quizzed}");
    assert_eq!(quizzed["question"]["text"], question["text"], "{quizzed}");
    assert!(quizzed["question"].get("correct").is_none(), "the key is shown before the answer: {quizzed}");

    // Answer: graded exactly against the key, recorded, a review scheduled.
    let answer = json!({ "flow_id": flow_id, "step": "answer", "answer": "0", "question_id": quizzed["question_id"] });
    let answered = mcp.ok("teaching_flow_advance", answer).await;
    let grade = &answered["grade"];
    assert_eq!((grade["correct"].as_bool(), grade["graded_by"].as_str()), (Some(true), Some("exact")), "{answered}");
    let node = mcp.ok("mind_map_node_get", json!({ "node_id": node["id"] })).await;
    let next_review = node["next_review_at"].as_str().unwrap_or_else(|| panic!("no review scheduled: {node}"));
    let history = mcp.ok("mastery_get_node_history", json!({ "node_id": node["id"] })).await;
    assert_eq!(history["responses"][0]["response_type"], "teach", "{history}");
    let node_id = id(&node);
    let next_review = next_review.to_string();
    // Not yet planned: the server re-plans changed maps' jobs on its hourly tick, or on exit.
    let jobs = run(tmp.path(), &data, &["jobs", "list", "--map", &map_id]).await;
    assert_eq!(serde_json::from_str::<Value>(&jobs).ok(), Some(json!([])), "{jobs}");
    mcp.stop().await;

    // Once the client has gone, a review job for the map waits in the database for a
    // server's scheduler.
    let jobs = run(tmp.path(), &data, &["jobs", "list", "--map", &map_id]).await;
    let jobs: Value = serde_json::from_str(&jobs).unwrap_or_else(|e| panic!("{e}: {jobs}"));
    let review = jobs
        .as_array()
        .unwrap_or_else(|| panic!("{jobs}"))
        .iter()
        .find(|job| job["kind"] == "review" && job["node_id"] == node_id.as_str())
        .unwrap_or_else(|| panic!("no review job for {node_id} after the session: {jobs}"));
    assert_eq!(review["mind_map_id"], map_id.as_str(), "{review}");
    let run_at = chrono::DateTime::parse_from_rfc3339(review["run_at"].as_str().unwrap()).unwrap();
    assert_eq!(run_at, chrono::DateTime::parse_from_rfc3339(&next_review).unwrap(), "{review}");
}

#[tokio::test]
async fn stdio_calls_every_tool() {
    let tmp = tempfile::tempdir().unwrap();
    let data = tmp.path().join("data");
    let mcp = Mcp::start(tmp.path(), &data, &[], &[]).await;
    let mut called = BTreeSet::new();
    let mut ok = async |name: &'static str, arguments: Value| {
        called.insert(name);
        mcp.ok(name, arguments).await
    };

    // A small map by hand: A -> B -> C.
    let map = id(&ok("mind_map_create", json!({ "title": "Small", "metadata": { "source": "test" } })).await);
    let a = id(&ok("mind_map_node_create", json!({ "mind_map_id": map, "label": "A", "effort_minutes": 10 })).await);
    let b = id(&ok("mind_map_node_create", json!({ "mind_map_id": map, "label": "B", "prerequisite_ids": [a] })).await);
    let c = id(&ok("mind_map_node_create", json!({ "mind_map_id": map, "label": "C", "prerequisite_ids": [b] })).await);
    let got = ok("mind_map_node_get", json!({ "node_id": b })).await;
    assert_eq!(got["label"], "B");
    let updated = ok("mind_map_node_update", json!({ "node_id": c, "description": "The last one" })).await;
    assert_eq!(updated["description"], "The last one");
    let edge = ok("mind_map_edge_create", json!({ "mind_map_id": map, "parent_node_id": a, "child_node_id": c })).await;
    assert_eq!((edge["parent_node_id"].as_str(), edge["child_node_id"].as_str()), (Some(a.as_str()), Some(c.as_str())));
    let deleted =
        ok("mind_map_edge_delete", json!({ "mind_map_id": map, "parent_node_id": a, "child_node_id": c })).await;
    assert_eq!(deleted["deleted"], true);
    let active = ok("mind_map_update_status", json!({ "mind_map_id": map, "status": "active" })).await;
    assert_eq!(active["status"], "active");
    let whole = ok("mind_map_get", json!({ "mind_map_id": map })).await;
    assert_eq!((whole["nodes"].as_array().unwrap().len(), whole["edges"].as_array().unwrap().len()), (3, 2));
    let listed = ok("mind_map_list", json!({ "status": "active" })).await;
    assert_eq!(listed["items"][0]["id"], map.as_str(), "{listed}");
    let nodes = ok("mind_map_node_list", json!({ "mind_map_id": map, "mastery_status": "unseen" })).await;
    assert_eq!(nodes["nodes"].as_array().unwrap().len(), 3);
    let frontier = ok("mind_map_frontier", json!({ "mind_map_id": map })).await;
    assert_eq!(frontier["nodes"][0]["id"], a.as_str(), "{frontier}");
    let subtree = ok("mind_map_subtree", json!({ "node_id": b })).await;
    assert_eq!(subtree["nodes"].as_array().unwrap().len(), 2, "{subtree}");

    // Mastery and reviews on it.
    let next = ok("curriculum_next_node", json!({ "mind_map_id": map })).await;
    assert_eq!(next["node"]["id"], a.as_str(), "{next}");
    let response = json!({ "node_id": a, "mind_map_id": map, "question_text": "What is A?", "user_answer": "A",
                           "quality": 5, "response_type": "teach" });
    ok("mastery_record_response", response).await;
    let review = json!({ "node_id": a, "mind_map_id": map, "question_text": "A again?", "quality": 4 });
    ok("spaced_repetition_record_response", review).await;
    let history = ok("mastery_get_node_history", json!({ "node_id": a, "limit": 10 })).await;
    let types: Vec<&str> =
        history["responses"].as_array().unwrap().iter().map(|r| r["response_type"].as_str().unwrap()).collect();
    assert_eq!(types, ["review", "teach"], "{history}");
    let summary = ok("mastery_get_map_summary", json!({ "mind_map_id": map })).await;
    assert!(summary.is_object(), "{summary}");
    let struggles = ok("mastery_detect_struggles", json!({ "mind_map_id": map })).await;
    assert_eq!(struggles["struggles"], json!([]), "{struggles}");
    let pending = ok("spaced_repetition_pending_reviews", json!({ "mind_map_id": map, "horizon_days": 365 })).await;
    assert_eq!(pending["nodes"][0]["id"], a.as_str(), "{pending}");
    ok("spaced_repetition_schedule_cleanup", json!({ "mind_map_id": map })).await;
    let snapshot = ok("analytics_get_snapshot", json!({ "mind_map_id": map, "refresh": true })).await;
    assert!(snapshot["snapshot"].is_object(), "{snapshot}");
    ok("analytics_get_trend", json!({ "mind_map_id": map })).await;
    ok("analytics_get_cross_topic", json!({})).await;

    // A planned map from a decomposition, re-planned with a missing prerequisite.
    let decomposition = json!({
        "root": "Sets",
        "nodes": [
            { "label": "Sets", "effort_minutes": 10 },
            { "label": "Relations", "effort_minutes": 20 },
        ],
        "edges": [{ "parent": "Sets", "child": "Relations" }],
    });
    let planned = ok("curriculum_generate", json!({ "topic": "Sets", "decomposition": decomposition })).await;
    assert_eq!(planned["node_count"], 2, "{planned}");
    let planned_map = planned["mind_map_id"].as_str().unwrap().to_string();
    let added = json!([{ "label": "Ordered pairs", "effort_minutes": 15 }]);
    ok("curriculum_replan", json!({ "mind_map_id": planned_map, "reason": "pairs were missing", "add_nodes": added }))
        .await;
    let replanned = ok("mind_map_get", json!({ "mind_map_id": planned_map })).await;
    assert_eq!(replanned["nodes"].as_array().unwrap().len(), 3, "{replanned}");

    // A map from a pasted outline, with no model configured: nesting is the prerequisite order.
    let outline = "# Graphs\n- Vertices and edges (20 min)\n  - Paths\n    - Shortest paths\n- Trees\n";
    let imported = ok("mind_map_import_outline", json!({ "outline": outline })).await;
    assert_eq!((imported["node_count"].as_i64(), imported["edge_count"].as_i64()), (Some(5), Some(4)), "{imported}");
    let graphs = ok("mind_map_get", json!({ "mind_map_id": imported["mind_map_id"] })).await;
    assert_eq!(graphs["title"], "Graphs", "{graphs}");
    let vertices = graphs["nodes"].as_array().unwrap().iter().find(|n| n["label"] == "Vertices and edges").unwrap();
    assert_eq!(vertices["effort_minutes"], 20, "{vertices}");

    // A teaching flow through its diagnostic to a plan, then abandoned.
    let flow = id(&ok("teaching_flow_start", json!({ "topic": "Logic" })).await);
    let inventory: Vec<Value> = ["Propositions", "Connectives", "Truth tables", "Quantifiers", "Proofs"]
        .iter()
        .map(|l| json!({ "label": l }))
        .collect();
    let started = ok("diagnostic_start", json!({ "flow_id": flow, "inventory": inventory })).await;
    let concept = started["next_concept"]["label"].as_str().unwrap().to_string();
    let probe = json!({ "concept": concept, "text": format!("Explain {concept}."), "kind": "free_text",
                        "rubric": "A definition." });
    let graded = ok(
        "diagnostic_record_probe",
        json!({ "flow_id": flow, "answer": "I do not know", "question": probe, "quality": 1 }),
    )
    .await;
    assert_eq!(graded["grade"]["graded_by"], "caller", "{graded}");
    ok("diagnostic_complete", json!({ "flow_id": flow })).await;
    let logic = json!({
        "root": "Propositions",
        "nodes": [
            { "label": "Propositions", "effort_minutes": 10 },
            { "label": "Connectives", "effort_minutes": 10 },
        ],
        "edges": [{ "parent": "Propositions", "child": "Connectives" }],
    });
    ok("teaching_flow_advance", json!({ "flow_id": flow, "step": "plan", "decomposition": logic })).await;
    let shown = ok("teaching_flow_get", json!({ "flow_id": flow })).await;
    assert_eq!((shown["status"].as_str(), shown["mind_map_id"].is_string()), (Some("planning"), true), "{shown}");
    let flows = ok("teaching_flow_list", json!({ "status": "planning", "limit": 10 })).await;
    assert_eq!(flows["items"][0]["id"], flow.as_str(), "{flows}");
    let abandoned = ok("teaching_flow_abandon", json!({ "flow_id": flow })).await;
    assert_eq!(abandoned["status"], "abandoned", "{abandoned}");

    // Courses and the item library, found without knowing an id.
    let courses = ok("course_list", json!({})).await;
    let course = courses["courses"][0]["id"].as_str().expect("a shipped course").to_string();
    let outline = ok("course_get", json!({ "course_id": course })).await;
    assert!(!outline["units"].as_array().unwrap().is_empty(), "{outline}");
    let skills = ok("library_skills", json!({})).await;
    assert!(skills["skills"][0]["skill_id"].is_string(), "{skills}");
    let assessments = ok("library_assessments", json!({})).await;
    let fixed = assessments["assessments"]
        .as_array()
        .unwrap()
        .iter()
        .find(|a| a["selection"] == "fixed")
        .unwrap_or_else(|| panic!("no fixed assessment: {assessments}"));
    let blueprint = fixed["blueprint_id"].as_str().unwrap().to_string();

    // An evaluation driven step by step, without a stream.
    let created =
        ok("session_create", json!({ "session_type": "evaluation", "config": { "blueprint_id": blueprint } })).await;
    let session = id(&created);
    let run = ok("session_run", json!({ "session_id": session })).await;
    let action = run["events"]
        .as_array()
        .unwrap()
        .iter()
        .rev()
        .find(|e| e["event"] == "client_action")
        .unwrap_or_else(|| panic!("no widget to answer: {run}"))["data"]
        .clone();
    assert_eq!(run["session"]["status"], "awaiting_response", "{run}");
    assert!(!run.to_string().contains("\"expected\""), "an evaluation showed its key: {run}");
    let response =
        if action["tool"] == "present_choices" { json!({ "selected_index": 0 }) } else { json!({ "text": "7" }) };
    let answered = ok(
        "session_respond",
        json!({ "session_id": session, "tool_call_id": action["tool_call_id"], "response": response }),
    )
    .await;
    assert_eq!(answered["duplicate"], false, "{answered}");
    let next = ok("session_run", json!({ "session_id": session })).await;
    assert!(next["events"].as_array().unwrap().iter().any(|e| e["event"] == "client_action"), "{next}");
    let got = ok("session_get", json!({ "session_id": session })).await;
    assert_eq!(got["status"], "awaiting_response", "{got}");
    let listed = ok("session_list", json!({ "limit": 5 })).await;
    assert_eq!(listed["items"][0]["id"], session.as_str(), "{listed}");
    let transcript = ok("session_messages", json!({ "session_id": session })).await;
    assert!(transcript["messages"].as_array().unwrap().iter().any(|m| m["role"] == "tool"), "{transcript}");
    let ended = ok("session_end", json!({ "session_id": session })).await;
    assert_eq!(
        (ended["status"].as_str(), ended["results"]["items_answered"].as_i64()),
        (Some("terminated"), Some(1)),
        "{ended}"
    );

    // The learner's own choices and history.
    let preferences = ok("preferences_update", json!({ "daily_review_cap": 40, "srs_scheduler": "fsrs" })).await;
    assert_eq!(
        (preferences["daily_review_cap"].as_i64(), preferences["srs_scheduler"].as_str()),
        (Some(40), Some("fsrs"))
    );
    let read = ok("preferences_get", json!({})).await;
    assert_eq!(read, preferences);
    assert_eq!(read["fsrs"]["parameters"], "defaults", "{read}");
    // A few answers are too few to fit FSRS on: the defaults stay, and the reason says why.
    let fit = ok("fsrs_fit", json!({})).await;
    assert_eq!(
        (fit["parameters"].as_str(), fit["weights"].as_array().map(Vec::len)),
        (Some("defaults"), Some(21)),
        "{fit}"
    );
    assert!(fit["reason"].as_str().unwrap().contains("FSRS needs 8 such reviews"), "{fit}");
    assert_eq!(ok("preferences_get", json!({})).await["fsrs"], fit, "the preferences show the fit");
    let log = ok("review_log_export", json!({})).await;
    assert!(log["csv"].as_str().unwrap().starts_with("item_id,timestamp,grade"), "{log}");
    assert!(log["csv"].as_str().unwrap().lines().count() > 1, "{log}");

    // The learner's own material: notes ingested into chunks that cite their headings.
    let notes = "# Subnets\n\nA /24 network holds 256 addresses in all.\n\n## Masks\n\nA mask marks the network bits.\n\n## Hosts\n\n\
                 A /24 has 254 usable hosts.\n";
    let ingested = ok("author_ingest", json!({ "name": "subnets.md", "text": notes })).await;
    let document = ingested["documents"][0]["id"].as_str().expect("the document's id").to_string();
    assert_eq!(ingested["documents"][0]["chunk_count"], 3, "{ingested}");
    let listed = ok("author_documents", json!({})).await;
    assert_eq!(listed["documents"][0]["name"], "subnets.md", "{listed}");
    let read = ok("author_document_get", json!({ "document_id": document })).await;
    assert_eq!(read["chunks"][1]["citation"], "subnets.md, Subnets > Masks", "{read}");
    // A path on the server's machine only under its ingest_dir, which this server has not.
    let refusal = mcp.refused("author_ingest", json!({ "path": "/etc/hostname" })).await;
    assert!(refusal.contains("ingest_dir"), "{refusal}");
    // A course drafted from them: an outline from the headings, edited, exported as a pack.
    let draft = ok("author_draft_outline", json!({ "title": "Subnetting notes" })).await;
    let units: Vec<&str> =
        draft["draft"]["units"].as_array().unwrap().iter().map(|u| u["id"].as_str().unwrap()).collect();
    assert_eq!(units, ["subnets", "masks", "hosts"], "{draft}");
    // An outline has no questions yet: each unit is a problem until drafted.
    let problems = draft["problems"].as_array().unwrap();
    assert_eq!(problems.len(), 3, "{draft}");
    assert!(problems.iter().all(|p| p["message"].as_str().unwrap().contains("has no exam question")), "{draft}");
    let draft_id = id(&draft);
    assert_eq!(ok("author_drafts", json!({})).await["drafts"][0]["course_id"], "SUBNETTING-NOTES");
    let mut edited = draft["draft"].clone();
    edited["units"][1]["title"] = json!("Masks and prefixes");
    let edited = ok("author_draft_edit", json!({ "draft_id": draft_id, "version": 0, "draft": edited })).await;
    assert_eq!(
        (edited["version"].as_i64(), edited["draft"]["units"][1]["title"].as_str()),
        (Some(1), Some("Masks and prefixes"))
    );
    // The same edit from the old version is a conflict, and changes nothing.
    let stale =
        mcp.refused("author_draft_edit", json!({ "draft_id": draft_id, "version": 0, "draft": edited["draft"] })).await;
    assert!(stale.contains("version 1"), "{stale}");
    let read = ok("author_draft_get", json!({ "draft_id": draft_id })).await;
    assert_eq!(read["version"], 1, "{read}");
    assert_eq!(read["passages"][1]["citation"], "subnets.md, Subnets > Masks", "{read}");
    // The units' exam questions and drills, drafted from their own passages.
    let drafted = ok("author_draft_units", json!({ "draft_id": draft_id, "version": 1 })).await;
    let masks = &drafted["draft"]["units"][1];
    assert_eq!((masks["questions"][0]["tier"].as_str(), drafted["stage"].as_str()), (Some("bronze"), Some("units")));
    assert_eq!(masks["questions"][0]["passage"], masks["chunks"][0], "{drafted}");
    assert_eq!(drafted["problems"], json!([]), "{drafted}");
    let exported = ok("author_draft_export", json!({ "draft_id": draft_id })).await;
    assert!(exported["pack"].as_str().unwrap().contains("course_id = \"SUBNETTING-NOTES\""), "{exported}");
    let published = ok("author_draft_publish", json!({ "draft_id": draft_id })).await;
    assert_eq!((published["id"].as_str(), published["changed"].as_bool()), (Some("SUBNETTING-NOTES"), Some(true)));
    let listed = ok("course_list", json!({})).await;
    assert!(listed["courses"].as_array().unwrap().iter().any(|c| c["id"] == "SUBNETTING-NOTES"), "{listed}");
    assert_eq!(ok("author_course_shares", json!({ "course_id": "SUBNETTING-NOTES" })).await["learners"], json!([]));
    let removed = ok("author_draft_delete", json!({ "draft_id": draft_id })).await;
    assert_eq!(removed["removed"], draft_id.as_str(), "{removed}");

    let removed = ok("author_document_delete", json!({ "document_id": document })).await;
    assert_eq!(removed["removed"], document.as_str(), "{removed}");
    assert_eq!(ok("author_documents", json!({})).await["documents"], json!([]));

    // The policy tutor, offline: a turn, a drill asked for and graded once.
    let unknown = mcp.refused("tutor_thread_create", json!({ "course_id": "NO-SUCH-COURSE" })).await;
    assert!(unknown.starts_with("course_id: there is no course 'NO-SUCH-COURSE'"), "{unknown}");
    assert!(unknown.contains("course_list lists them"), "it points at the tool: {unknown}");
    assert_eq!(unknown.matches("course_id").count(), 1, "the field named once: {unknown}");
    assert!(!unknown.contains("/api/"), "no HTTP route: {unknown}");
    let thread = ok("tutor_thread_create", json!({ "courseId": course })).await;
    let thread = id(&thread);
    let turn = ok("tutor_turn", json!({ "thread_id": thread, "messageText": "where do I start?" })).await;
    assert_eq!(turn["messages"].as_array().unwrap().len(), 2, "{turn}");
    let focus = turn["snapshotLite"]["focus"]["unitId"].as_str().expect("a focus unit").to_string();
    let drill =
        ok("tutor_turn", json!({ "thread_id": thread, "clientEvent": { "type": "REQUEST_DRILL", "unitId": focus } }))
            .await;
    let card = drill["messages"][0]["card"].clone();
    assert_eq!(card["type"], "DRILL", "{drill}");
    // The policy may send the learner to a prerequisite first: the card names its unit.
    let unit = card["unitId"].as_str().expect("the drill's unit").to_string();
    // The unit is the drill card's own: no unit_id to pass.
    let graded = ok("tutor_drill_grade", json!({ "thread_id": thread, "drill": card, "student_answer": "42" })).await;
    assert_eq!(graded["drill"]["attempts"], 1, "{graded}");
    // Graded once: the same drill again is answered with the first grade, counted once.
    let again = mcp
        .ok("tutor_drill_grade", json!({ "thread_id": thread, "unitId": unit, "drill": card, "studentAnswer": "42" }))
        .await;
    assert_eq!((again["replayed"].as_bool(), again["drill"]["attempts"].as_i64()), (Some(true), Some(1)), "{again}");
    let shown = ok("tutor_thread_get", json!({ "thread_id": thread })).await;
    assert_eq!(shown["courseId"], course.as_str(), "{shown}");
    let threads = ok("tutor_thread_list", json!({ "courseId": course })).await;
    assert_eq!(threads["total"], 1, "{threads}");
    let timeline = ok("tutor_thread_messages", json!({ "thread_id": thread })).await;
    assert!(timeline["messages"].as_array().unwrap().len() >= 5, "{timeline}");
    let turns = ok("tutor_turn_log", json!({ "thread_id": thread })).await;
    assert_eq!(turns["total"], 2, "{turns}");
    assert!(turns["items"][1]["log"]["allowedActions"].is_array(), "{turns}");
    let snapshot = ok("tutor_snapshot", json!({ "course_id": course })).await;
    assert_eq!(snapshot["snapshot"]["unitProgress"][&unit]["drill"]["attempts"], 1, "{snapshot}");
    // An exam question the tutor did not offer is refused (the whole exam path, lockout
    // included, runs in crates/server/tests/mcp_http.rs, where the test can read the keys).
    for tool in ["tutor_exam_submit", "tutor_support_viewed"] {
        called.insert(tool);
        let arguments = if tool == "tutor_exam_submit" {
            json!({ "thread_id": thread, "unitId": focus, "questionId": "NOT-OFFERED", "selectedIndex": 0 })
        } else {
            json!({ "thread_id": thread, "unitId": focus, "questionId": "NOT-OFFERED", "supportType": "memo" })
        };
        let refusal = mcp.refused(tool, arguments).await;
        assert!(refusal.contains("NOT-OFFERED"), "{tool}: {refusal}");
    }

    // A course shared with nobody who is here: the learner is not found, and nothing changes
    // (sharing between two learners runs over HTTP, in crates/server/tests/author_http.rs).
    let stranger = json!({ "course_id": "SUBNETTING-NOTES", "learner_id": "0190a0a0-0000-7000-8000-000000000009" });
    for tool in ["author_course_share", "author_course_unshare"] {
        called.insert(tool);
        assert!(mcp.refused(tool, stranger.clone()).await.contains("learner"), "{tool}");
    }

    let every: BTreeSet<&str> = TOOLS.iter().copied().collect();
    assert_eq!(called, every, "tools never called: {:?}", every.difference(&called).collect::<Vec<_>>());
    mcp.stop().await;
}

#[tokio::test]
async fn stdio_bad_arguments_are_tool_errors_and_write_nothing() {
    let tmp = tempfile::tempdir().unwrap();
    let data = tmp.path().join("data");
    let mcp = Mcp::start(tmp.path(), &data, &[], &[]).await;
    let (map, [a, b, c]) = chain(&mcp, "Cycles").await;
    let before = mcp.ok("mind_map_get", json!({ "mind_map_id": map })).await;
    let maps_before = mcp.ok("mind_map_list", json!({})).await;

    let unknown = mcp.refused("mind_map_destroy", json!({ "mind_map_id": map })).await;
    assert!(unknown.contains("unknown tool 'mind_map_destroy'") && unknown.contains("mind_map_create"), "{unknown}");

    let missing = mcp.refused("mind_map_edge_create", json!({ "mind_map_id": map, "parent_node_id": c })).await;
    assert!(missing.contains("child_node_id"), "{missing}");
    let missing_id = mcp.refused("mind_map_node_create", json!({ "label": "D", "prerequisite_ids": [c] })).await;
    assert!(missing_id.contains("mind_map_id"), "{missing_id}");

    let mistyped =
        mcp.refused("mind_map_node_create", json!({ "mind_map_id": map, "label": 42, "prerequisite_ids": [c] })).await;
    assert!(mistyped.contains("label") && mistyped.contains("string"), "{mistyped}");
    let bad_id = mcp.refused("mind_map_node_create", json!({ "mind_map_id": "map-1", "label": "D" })).await;
    assert!(bad_id.contains("mind_map_id") && bad_id.contains("UUID"), "{bad_id}");
    let bad_enum = mcp.refused("mind_map_update_status", json!({ "mind_map_id": map, "status": "finished" })).await;
    assert!(bad_enum.contains("status") && bad_enum.contains("finished"), "{bad_enum}");
    let unknown_field =
        mcp.refused("mind_map_node_create", json!({ "mind_map_id": map, "label": "D", "lable": "D" })).await;
    assert!(unknown_field.contains("lable"), "{unknown_field}");

    let cycle = mcp
        .refused("mind_map_edge_create", json!({ "mind_map_id": map, "parent_node_id": c, "child_node_id": a }))
        .await;
    assert!(cycle.contains("cycle: C -> A -> B -> C"), "{cycle}");
    let self_loop = mcp
        .refused("mind_map_edge_create", json!({ "mind_map_id": map, "parent_node_id": b, "child_node_id": b }))
        .await;
    assert!(self_loop.contains("self-loop") && self_loop.contains("'B'"), "{self_loop}");

    let oversized = "x".repeat(300 * 1024);
    let too_big = mcp
        .refused(
            "mind_map_node_create",
            json!({ "mind_map_id": map, "label": "D", "description": oversized, "prerequisite_ids": [c] }),
        )
        .await;
    assert!(too_big.contains("arguments") && too_big.contains(&(256 * 1024).to_string()), "{too_big}");

    // Another learner, on the same database: the first learner's ids are simply not found.
    let created = run(tmp.path(), &data, &["create-learner", "Bob"]).await;
    let created: Value = serde_json::from_str(created.trim()).unwrap_or_else(|e| panic!("{e}: {created}"));
    let token = created["token"].as_str().unwrap();
    let bob = Mcp::start(tmp.path(), &data, &["--token", token], &[]).await;
    let nowhere = uuid::Uuid::now_v7().to_string();
    let unknown_map = bob.refused("mind_map_get", json!({ "mind_map_id": nowhere })).await;
    let foreign_map = bob.refused("mind_map_get", json!({ "mind_map_id": map })).await;
    assert!(foreign_map.contains("not found"), "{foreign_map}");
    assert_eq!(
        foreign_map.replace(&map, "ID"),
        unknown_map.replace(&nowhere, "ID"),
        "another learner's map is told apart"
    );
    for (name, arguments) in [
        ("mind_map_node_create", json!({ "mind_map_id": map, "label": "D", "prerequisite_ids": [c] })),
        ("mind_map_edge_create", json!({ "mind_map_id": map, "parent_node_id": a, "child_node_id": c })),
        ("mind_map_edge_delete", json!({ "mind_map_id": map, "parent_node_id": a, "child_node_id": b })),
        ("mind_map_node_update", json!({ "node_id": b, "label": "Bee" })),
        ("mind_map_update_status", json!({ "mind_map_id": map, "status": "active" })),
        ("mastery_record_response", json!({ "node_id": a, "mind_map_id": map, "question_text": "q", "quality": 5 })),
        ("mind_map_node_get", json!({ "node_id": a })),
    ] {
        let refused = bob.refused(name, arguments).await;
        assert!(refused.contains("not found"), "{name}: {refused}");
    }
    let bobs = bob.ok("mind_map_list", json!({})).await;
    assert_eq!(bobs["total"], 0, "{bobs}");
    bob.stop().await;

    // Nothing was written.
    let after = mcp.ok("mind_map_get", json!({ "mind_map_id": map })).await;
    assert_eq!(after, before);
    let history = mcp.ok("mastery_get_node_history", json!({ "node_id": a })).await;
    assert_eq!(history["responses"], json!([]));
    assert_eq!(mcp.ok("mind_map_list", json!({})).await, maps_before);
    mcp.stop().await;
}

#[tokio::test]
async fn stdio_offline_diagnostic_start_says_to_pass_an_inventory() {
    let tmp = tempfile::tempdir().unwrap();
    let data = tmp.path().join("data");
    let mcp = Mcp::start(tmp.path(), &data, &[], &[]).await;
    let flow = mcp.ok("teaching_flow_start", json!({ "topic": "Graph algorithms" })).await;
    let flow_id = id(&flow);
    // No model is configured: the model cannot write the inventory, the caller can.
    let offline = mcp.refused("diagnostic_start", json!({ "flow_id": flow_id })).await;
    assert!(offline.contains("needs a language model"), "{offline}");
    assert!(offline.contains("pass `inventory`"), "the error names the argument to pass instead: {offline}");
    let unchanged = mcp.ok("teaching_flow_get", json!({ "flow_id": flow_id })).await;
    assert_eq!(unchanged["status"], "pending", "{unchanged}");
    // What to do instead is said in tools, not in the HTTP API's routes.
    let unplanned = mcp.refused("curriculum_generate", json!({ "topic": "Graph algorithms" })).await;
    for tool in ["curriculum_generate with a `decomposition`", "mind_map_import_outline"] {
        assert!(unplanned.contains(tool), "{tool}: {unplanned}");
    }
    assert!(!unplanned.contains("/api/"), "no HTTP route: {unplanned}");

    // Following the message works.
    let inventory: Vec<Value> =
        ["Graphs", "Paths", "Trees", "BFS", "Dijkstra"].iter().map(|l| json!({ "label": l })).collect();
    let step = mcp.ok("diagnostic_start", json!({ "flow_id": flow_id, "inventory": inventory })).await;
    assert_eq!(step["flow"]["status"], "diagnosing", "{step}");
    mcp.stop().await;
}
