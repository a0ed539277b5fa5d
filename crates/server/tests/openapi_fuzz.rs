//! The server against its own OpenAPI document under a property-based fuzzer: schemathesis
//! (PyPI) generates valid and invalid requests for every operation of `/api/openapi.json`
//! and checks that no reply is a 5xx and none contradicts the document (status codes,
//! response schemas, content types). The server is the real one on 127.0.0.1 over a fresh
//! SQLite store, with learner A's map, flow, session and tutor thread in it; the document
//! handed to the fuzzer names their ids as examples, so that requests reach real data and
//! not only 404s.
//!
//! The fuzzer runs with `PATHWISE_FUZZ_PYTHON`, a venv's python with schemathesis installed
//! (`scripts/test` prepares one); without it the test says so and passes, unless
//! `PATHWISE_FUZZ_REQUIRED=1` (CI), which makes it fail instead.

mod support;

use serde_json::{json, Value};
use std::collections::BTreeSet;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};
use support::*;

/// Test cases generated per operation and phase. With the coverage phase's own cases this
/// keeps a run to about five minutes on a 2-core machine (BENCHMARKS.md has the figures):
/// the document has 86 operations, and a run costs about 1.5 s per example of each, most
/// of it the fuzzer's own generating. `PATHWISE_FUZZ_EXAMPLES`, `PATHWISE_FUZZ_SEED` and
/// `PATHWISE_FUZZ_CHECKS` change them, to explore further.
const MAX_EXAMPLES: &str = "150";
/// What every reply is checked for: not a 5xx (but see schemathesis.toml for 503), a status
/// the document lists for the operation, its content type and its schema; and that a
/// request the document allows is not refused (schemathesis_hooks.py: save for the rules
/// between parts of one body that no schema states, each listed there).
const CHECKS: &str = "not_a_server_error,status_code_conformance,content_type_conformance,response_schema_conformance,\
                      schema_valid_requests_accepted";
/// A fixed seed: a failure found once is found again on the next run.
const SEED: &str = "20240611";
/// Well past the run's expected length; a hung run fails rather than blocking CI.
const RUN_TIMEOUT: Duration = Duration::from_secs(15 * 60);

/// The venv's python, or none (with a note) when it is not configured.
fn fuzz_python() -> Option<PathBuf> {
    match std::env::var_os("PATHWISE_FUZZ_PYTHON").filter(|p| !p.is_empty()) {
        Some(python) => Some(PathBuf::from(python)),
        None => {
            let message = "PATHWISE_FUZZ_PYTHON is not set; skipping the schemathesis run \
                           (scripts/test prepares a venv with schemathesis and sets it)";
            assert!(std::env::var("PATHWISE_FUZZ_REQUIRED").map_or(true, |v| v != "1"), "{message}");
            eprintln!("{message}");
            None
        }
    }
}

/// A's ids, by the path parameter names of the routes that take them.
struct Seeded {
    map: String,
    node: String,
    child: String,
    /// A second map, with its root and leaf, for the operations that delete: the examples
    /// phase would otherwise delete the map the other examples need.
    doomed_map: String,
    doomed_root: String,
    doomed_leaf: String,
    flow: String,
    session: String,
    thread: String,
    course: String,
}

async fn seed(t: &TestApp) -> Seeded {
    let a = t.a.as_str();
    t.app.install_builtin_courses().await.expect("the shipped courses");
    let decomposition = json!({
        "root": "Sets",
        "nodes": [{ "label": "Sets", "effort_minutes": 10 }, { "label": "Relations", "effort_minutes": 10 }],
        "edges": [{ "parent": "Sets", "child": "Relations" }],
    });
    let plan = t.generate(a, "Sets", decomposition.clone()).await;
    let map = text(&plan["mind_map_id"]);
    let ids = t.ids(a, &map).await;
    let doomed_map = text(&t.generate(a, "Doomed", decomposition).await["mind_map_id"]);
    let doomed = t.ids(a, &doomed_map).await;
    let flow = text(
        &t.post(a, "/api/flows", json!({ "topic": "Graphs", "caller_writes_steps": true })).await.expect(201)["id"],
    );
    let session = text(
        &t.post(
            a,
            "/api/session/",
            json!({ "session_type": "evaluation", "config": { "blueprint_id": "MATH-ARITH-QUIZ-10" } }),
        )
        .await
        .expect(201)["id"],
    );
    let course = "NET-IPV4".to_string();
    let thread = text(&t.post(a, "/api/tutor/threads", json!({ "courseId": course })).await.expect(201)["id"]);
    Seeded {
        map,
        node: ids["Sets"].clone(),
        child: ids["Relations"].clone(),
        doomed_map,
        doomed_root: doomed["Sets"].clone(),
        doomed_leaf: doomed["Relations"].clone(),
        flow,
        session,
        thread,
        course,
    }
}

/// Valid bodies for operations whose random bodies rarely pass validation, so that the
/// examples phase also checks their successful replies (turn cards, teaching steps, recorded
/// responses) against the document, by operationId.
fn example_body(operation_id: &str, ids: &Seeded) -> Option<Value> {
    let decomposition = json!({
        "root": "Graphs", "nodes": [{ "label": "Graphs", "effort_minutes": 10 }, { "label": "Trees", "effort_minutes": 5 }],
        "edges": [{ "parent": "Graphs", "child": "Trees" }] });
    Some(match operation_id {
        "tutor_turn" => json!({ "clientEvent": { "type": "REQUEST_DRILL", "unitId": "NET-BIN" } }),
        "flows_advance" => json!({ "step": "plan", "decomposition": decomposition }),
        "curriculum_generate" => json!({ "topic": "Graphs", "decomposition": decomposition }),
        "mastery_record_response" => json!({
            "node_id": ids.node, "mind_map_id": ids.map, "question_text": "What is a set?", "quality": 4 }),
        "maps_create_node" => json!({ "label": "Functions", "prerequisite_ids": [ids.child] }),
        "curriculum_replan" => json!({}),
        "nodes_update" => json!({ "description": "Collections of distinct objects." }),
        "workspace_render_math" => json!({ "latex": ["x^2", "\\frac{1}{2}", "\\unknowncommand{"] }),
        "learners_update_preferences" => json!({ "daily_review_cap": 10, "srs_scheduler": "fsrs" }),
        "sessions_create" => {
            json!({ "session_type": "evaluation", "config": { "blueprint_id": "MATH-ARITH-QUIZ-10" } })
        }
        _ => return None,
    })
}

/// The served document with A's ids as the examples of the path parameters that take them,
/// and valid example bodies where `example_body` has one.
fn with_examples(mut document: Value, ids: &Seeded) -> Value {
    let Some(paths) = document["paths"].as_object_mut() else { panic!("the document has no paths") };
    for (path, item) in paths.iter_mut() {
        let Some(operations) = item.as_object_mut() else { continue };
        for (method, operation) in operations.iter_mut() {
            let deletes = method == "delete";
            let example = example_body(operation["operationId"].as_str().unwrap_or(""), ids);
            let json_body = operation.get_mut("requestBody").and_then(|b| b.pointer_mut("/content/application~1json"));
            if let (Some(example), Some(json_body)) = (example, json_body) {
                json_body["example"] = example;
            }
            // `get_mut`, not indexing: indexing a JSON object mutably adds the key as null.
            let Some(parameters) = operation.get_mut("parameters").and_then(Value::as_array_mut) else { continue };
            for parameter in parameters.iter_mut().filter(|p| p["in"] == "path") {
                let example = match parameter["name"].as_str().unwrap_or("") {
                    "id" if deletes && path.starts_with("/api/mind-maps/") => &ids.doomed_map,
                    "id" if deletes && path.starts_with("/api/nodes/") => &ids.doomed_leaf,
                    "parent_id" if deletes => &ids.doomed_root,
                    "child_id" if deletes => &ids.doomed_leaf,
                    "id" if path.starts_with("/api/mind-maps/") => &ids.map,
                    "id" if path.starts_with("/api/nodes/") => &ids.node,
                    "id" if path.starts_with("/api/flows/") => &ids.flow,
                    "id" if path.starts_with("/api/session/") => &ids.session,
                    "parent_id" => &ids.node,
                    "child_id" => &ids.child,
                    "thread_id" => &ids.thread,
                    "course_id" => &ids.course,
                    _ => continue,
                };
                parameter["example"] = json!(example);
            }
        }
    }
    document
}

/// The operations only the operator token may call: the learner's run sees their 401s, and a
/// second run calls them with the operator token.
const OPERATOR_OPERATIONS: [&str; 10] = [
    "learners_list",
    "learners_create",
    "learners_delete",
    "learners_list_tokens",
    "learners_create_token",
    "learners_revoke_token",
    "learners_rotate_token",
    "learners_export",
    "learners_import",
    "courses_import",
];

/// The environment's value for `name`, else `default`.
fn setting(name: &str, default: &str) -> String {
    std::env::var(name).ok().filter(|v| !v.trim().is_empty()).unwrap_or_else(|| default.to_string())
}

/// What one schemathesis run did.
struct Run {
    /// Requests sent, from the run's report.
    requests: usize,
    /// The operations it tested, by label (`GET /api/me`).
    operations: BTreeSet<String>,
}

/// Run schemathesis over `schema` with `token`, on the operations `only` names (all when
/// empty); panics with its output when it finds a failure.
async fn schemathesis(python: &Path, schema: &Path, base: &str, token: &str, only: &[&str], report: &Path) -> Run {
    let tests = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests");
    let mut command = tokio::process::Command::new(python);
    command
        .args(["-m", "schemathesis.cli", "--config-file"])
        .arg(tests.join("schemathesis.toml"))
        .arg("run")
        .arg(schema)
        .args(["--url", base])
        .args(["--header", &format!("Authorization: Bearer {token}")])
        .args(["--checks", &setting("PATHWISE_FUZZ_CHECKS", CHECKS)])
        .args(["--max-examples", &setting("PATHWISE_FUZZ_EXAMPLES", MAX_EXAMPLES)])
        .args(["--seed", &setting("PATHWISE_FUZZ_SEED", SEED)])
        .args(["--workers", "2", "--request-timeout", "20", "--no-color"])
        .args(["--generation-database", "none", "--report", "ndjson", "--report-ndjson-path"])
        .arg(report)
        .env("SCHEMATHESIS_HOOKS", "schemathesis_hooks")
        .env("PYTHONPATH", &tests)
        .current_dir(schema.parent().expect("the document's directory"))
        .kill_on_drop(true);
    for operation in only {
        command.args(["--include-operation-id", operation]);
    }
    let output = tokio::time::timeout(RUN_TIMEOUT, command.output())
        .await
        .unwrap_or_else(|_| panic!("schemathesis did not finish in {RUN_TIMEOUT:?}"))
        .expect("run schemathesis");
    let stdout = String::from_utf8_lossy(&output.stdout);
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(
        output.status.success(),
        "schemathesis found replies that contradict the document (exit {}):\n{stdout}\n{stderr}",
        output.status
    );
    read_report(report)
}

/// The requests and operations of a run, from its NDJSON report: each finished scenario
/// records the requests it made as its interactions.
fn read_report(report: &Path) -> Run {
    let text = std::fs::read_to_string(report).expect("the run's report");
    let mut run = Run { requests: 0, operations: BTreeSet::new() };
    for line in text.lines() {
        let event: Value = serde_json::from_str(line).expect("a report line is JSON");
        let Some(scenario) = event.get("ScenarioFinished") else { continue };
        let interactions = scenario["recorder"]["interactions"].as_object().map_or(0, |i| i.len());
        run.requests += interactions;
        // The stateful phase (sequences that follow the document's links, such as a token
        // created and then revoked) is one scenario labelled "Stateful tests": its requests
        // count, but it is no operation of the document.
        let label = text_of(&scenario["recorder"]["label"]);
        if interactions > 0 && label != "Stateful tests" {
            run.operations.insert(label);
        }
    }
    run
}

fn text_of(value: &Value) -> String {
    value.as_str().unwrap_or_default().to_string()
}

/// Every operation of the document, labelled as schemathesis labels them.
fn operation_labels(document: &Value) -> BTreeSet<String> {
    let paths = document["paths"].as_object().expect("the document has paths");
    paths
        .iter()
        .flat_map(|(path, item)| {
            item.as_object().into_iter().flatten().map(move |(method, _)| format!("{} {path}", method.to_uppercase()))
        })
        .collect()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_server_keeps_to_its_openapi_document_under_fuzzing() {
    let Some(python) = fuzz_python() else { return };
    let t = spawn_app().await;
    let ids = seed(&t).await;
    let served = t.client.get(format!("{}/api/openapi.json", t.base)).send().await.expect("the document");
    let document: Value = served.json().await.expect("the document is JSON");
    let every_operation = operation_labels(&document);
    let dir = tempfile::tempdir().expect("temp dir");
    let schema = dir.path().join("openapi.json");
    std::fs::write(&schema, serde_json::to_vec(&with_examples(document, &ids)).unwrap()).expect("write the document");
    // The reports outlive the run, for a look at what was sent.
    let reports = Path::new(env!("CARGO_TARGET_TMPDIR"));

    let started = Instant::now();
    let learner =
        schemathesis(&python, &schema, &t.base, &t.a, &[], &reports.join("openapi-fuzz-learner.ndjson")).await;
    let operator = schemathesis(
        &python,
        &schema,
        &t.base,
        OPERATOR_TOKEN,
        &OPERATOR_OPERATIONS,
        &reports.join("openapi-fuzz-operator.ndjson"),
    )
    .await;
    let elapsed = started.elapsed();

    let untested: Vec<&String> = every_operation.difference(&learner.operations).collect();
    assert!(untested.is_empty(), "the fuzzer sent no request to {untested:?}");
    assert_eq!(operator.operations.len(), OPERATOR_OPERATIONS.len(), "the operator's run: {:?}", operator.operations);
    println!(
        "schemathesis: {} requests over {} operations in {:.0} s (max {} examples per operation and phase, seed \
         {}), no reply contradicting the document",
        learner.requests + operator.requests,
        every_operation.len(),
        elapsed.as_secs_f64(),
        setting("PATHWISE_FUZZ_EXAMPLES", MAX_EXAMPLES),
        setting("PATHWISE_FUZZ_SEED", SEED),
    );
}
