//! MCP over streamable HTTP end to end: a real server on 127.0.0.1, the official Rust SDK's
//! client with a learner's bearer token, and the store checked after every refused call.
//! On SQLite, and on PostgreSQL when `PATHWISE_TEST_DATABASE_URL` is set.

mod support;

use rmcp::model::{CallToolRequestParams, CallToolResult, GetPromptRequestParams, ReadResourceRequestParams};
use rmcp::service::RunningService;
use rmcp::transport::streamable_http_client::StreamableHttpClientTransportConfig;
use rmcp::transport::StreamableHttpClientTransport;
use rmcp::{RoleClient, ServiceExt};
use serde_json::{json, Value};
use support::*;

type Client = RunningService<RoleClient, ()>;

async fn connect(t: &TestApp, token: &str) -> Client {
    let config = StreamableHttpClientTransportConfig::with_uri(format!("{}/mcp", t.base)).auth_header(token);
    ().serve(StreamableHttpClientTransport::from_config(config)).await.expect("MCP client connects")
}

async fn call(client: &Client, name: &str, arguments: Value) -> CallToolResult {
    let arguments = arguments.as_object().cloned().expect("arguments are an object");
    client
        .call_tool(CallToolRequestParams::new(name.to_string()).with_arguments(arguments))
        .await
        .unwrap_or_else(|e| panic!("{name}: a protocol error instead of a result: {e}"))
}

/// A call that must succeed; its structured result.
async fn ok(client: &Client, name: &str, arguments: Value) -> Value {
    let result = call(client, name, arguments).await;
    assert_eq!(result.is_error, Some(false), "{name} failed: {}", text(&result));
    result.structured_content.unwrap_or_else(|| panic!("{name}: no structured content"))
}

/// A call that must be refused as a tool error naming every needle, writing nothing.
async fn refused(t: &TestApp, client: &Client, name: &str, arguments: Value, needles: &[&str]) -> String {
    let before = t.counts().await;
    let result = call(client, name, arguments).await;
    let message = text(&result);
    assert_eq!(result.is_error, Some(true), "{name} was accepted: {message}");
    for needle in needles {
        assert!(message.contains(needle), "{name}: {message:?} does not mention {needle:?}");
    }
    assert_eq!(t.counts().await, before, "{name} was refused but changed the tables");
    message
}

/// The code a tool error carries for a client to branch on: the HTTP API's `error.code`.
fn code(result: &CallToolResult) -> Option<&str> {
    result.meta.as_ref()?.0.get("pathwise/code")?.as_str()
}

fn text(result: &CallToolResult) -> String {
    result.content.iter().filter_map(|c| c.as_text().map(|t| t.text.clone())).collect::<Vec<_>>().join(" ")
}

fn chain_decomposition() -> Value {
    json!({
        "root": "Sets",
        "nodes": [
            { "label": "Sets", "description": "Collections of objects.", "effort_minutes": 20 },
            { "label": "Relations", "effort_minutes": 30 },
            { "label": "Functions", "effort_minutes": 30 },
        ],
        "edges": [{ "parent": "Sets", "child": "Relations" }, { "parent": "Relations", "child": "Functions" }],
    })
}

/// Every property name in a schema, at any depth.
fn property_names(schema: &Value) -> Vec<String> {
    let mut names = Vec::new();
    match schema {
        Value::Object(map) => {
            if let Some(Value::Object(properties)) = map.get("properties") {
                names.extend(properties.keys().cloned());
            }
            map.values().for_each(|v| names.extend(property_names(v)));
        }
        Value::Array(items) => items.iter().for_each(|v| names.extend(property_names(v))),
        _ => {}
    }
    names
}

/// Every `format` value in a schema, at any depth.
fn formats(schema: &Value) -> Vec<String> {
    let mut found = Vec::new();
    match schema {
        Value::Object(map) => {
            if let Some(Value::String(format)) = map.get("format") {
                found.push(format.clone());
            }
            map.values().for_each(|v| found.extend(formats(v)));
        }
        Value::Array(items) => items.iter().for_each(|v| found.extend(formats(v))),
        _ => {}
    }
    found
}

async fn lists_tools_prompts_and_resources(t: &TestApp) {
    let client = connect(t, &t.a).await;
    let tools = client.list_all_tools().await.expect("tools/list");
    let names: Vec<&str> = tools.iter().map(|t| t.name.as_ref()).collect();
    for expected in [
        "mind_map_create",
        "mind_map_node_create",
        "mind_map_edge_create",
        "curriculum_generate",
        "mastery_record_response",
        "spaced_repetition_pending_reviews",
        "diagnostic_record_probe",
        "teaching_flow_advance",
        "analytics_get_cross_topic",
    ] {
        assert!(names.contains(&expected), "{expected} missing from {names:?}");
    }
    for tool in &tools {
        assert!(tool.description.as_ref().is_some_and(|d| d.len() > 30), "{} has no useful description", tool.name);
        assert_eq!(tool.input_schema.get("type"), Some(&json!("object")), "{}", tool.name);
        assert!(tool.output_schema.is_some(), "{} has no output schema", tool.name);
        let arguments = Value::Object((*tool.input_schema).clone());
        for name in property_names(&arguments) {
            assert!(!name.chars().any(|c| c.is_ascii_uppercase()), "{}: argument {name} is not snake_case", tool.name);
        }
    }
    // An assistant loads the whole list into its context: it stays small, and says nothing
    // a client cannot read (only JSON Schema's own formats).
    let listed = serde_json::to_string(&tools).unwrap();
    assert!(listed.len() < 100_000, "tools/list is {} bytes", listed.len());
    let standard =
        ["date-time", "date", "time", "duration", "email", "uri", "uuid", "ipv4", "ipv6", "hostname", "regex"];
    for format in formats(&serde_json::to_value(&tools).unwrap()) {
        assert!(standard.contains(&format.as_str()), "format {format} is not one of JSON Schema's");
    }
    println!("tools/list: {} tools, {} bytes", tools.len(), listed.len());
    let prompts = client.list_all_prompts().await.expect("prompts/list");
    let mut prompt_names: Vec<&str> = prompts.iter().map(|p| p.name.as_str()).collect();
    prompt_names.sort();
    assert_eq!(
        prompt_names,
        ["curriculum_planning", "diagnostic", "review", "run_evaluation", "teaching", "tutor_course"]
    );
    let teaching = client
        .get_prompt(
            GetPromptRequestParams::new("teaching")
                .with_arguments(json!({ "topic": "Set theory", "flow_id": "f-1" }).as_object().cloned().unwrap()),
        )
        .await
        .expect("prompts/get");
    let rendered = serde_json::to_value(&teaching.messages).unwrap().to_string();
    assert!(rendered.contains("Set theory") && rendered.contains("teaching_flow_advance"), "{rendered}");

    let summary =
        ok(&client, "curriculum_generate", json!({ "topic": "Sets", "decomposition": chain_decomposition() })).await;
    let map_id = summary["mind_map_id"].as_str().unwrap().to_string();
    let resources = client.list_all_resources().await.expect("resources/list");
    let uris: Vec<&str> = resources.iter().map(|r| r.uri.as_str()).collect();
    assert!(uris.contains(&"pathwise://mind-maps"), "{uris:?}");
    assert!(uris.contains(&format!("pathwise://mind-maps/{map_id}").as_str()), "{uris:?}");
    let templates = client.list_all_resource_templates().await.expect("resources/templates/list");
    assert_eq!(templates[0].uri_template, "pathwise://mind-maps/{mind_map_id}");
    let read = client
        .read_resource(ReadResourceRequestParams::new(format!("pathwise://mind-maps/{map_id}")))
        .await
        .expect("resources/read");
    let body = serde_json::to_value(&read.contents[0]).unwrap();
    let map: Value = serde_json::from_str(body["text"].as_str().unwrap()).unwrap();
    assert_eq!(map["nodes"].as_array().unwrap().len(), 3);
    assert_eq!(map["summary"]["total_nodes"], 3, "{map}");
    // Another learner cannot read it.
    let other = connect(t, &t.b).await;
    let hidden = other.read_resource(ReadResourceRequestParams::new(format!("pathwise://mind-maps/{map_id}"))).await;
    let Err(rmcp::ServiceError::McpError(hidden)) = hidden else { panic!("learner B read learner A's map") };
    assert_eq!(hidden.data, Some(json!({ "code": "not_found" })), "{hidden:?}");

    // A session's transcript is its learner's only.
    let evaluation = json!({ "session_type": "evaluation", "config": { "blueprint_id": "MATH-ARITH-QUIZ-10" } });
    let session = ok(&client, "session_create", evaluation).await["id"].as_str().unwrap().to_string();
    ok(&client, "session_run", json!({ "session_id": session })).await;
    let transcript = format!("pathwise://sessions/{session}/transcript");
    let uris: Vec<String> =
        client.list_all_resources().await.expect("resources/list").iter().map(|r| r.uri.to_string()).collect();
    assert!(uris.contains(&transcript), "an open session's transcript is listed: {uris:?}");
    let read = client.read_resource(ReadResourceRequestParams::new(transcript.clone())).await.expect("the transcript");
    let body: Value =
        serde_json::from_str(serde_json::to_value(&read.contents[0]).unwrap()["text"].as_str().unwrap()).unwrap();
    assert!(!body["messages"].as_array().unwrap().is_empty(), "{body}");
    assert!(other.read_resource(ReadResourceRequestParams::new(transcript)).await.is_err(), "B read A's transcript");
}

async fn runs_a_topic_to_a_scheduled_review(t: &TestApp) {
    let client = connect(t, &t.a).await;
    let flow = ok(&client, "teaching_flow_start", json!({ "topic": "Discrete mathematics" })).await;
    let flow_id = flow["id"].as_str().unwrap();
    let step = ok(
        &client,
        "teaching_flow_advance",
        json!({ "flow_id": flow_id, "step": "plan", "decomposition": chain_decomposition() }),
    )
    .await;
    let map_id = step["plan"]["mind_map_id"].as_str().unwrap().to_string();
    let step =
        ok(&client, "teaching_flow_advance", json!({ "flow_id": flow_id, "step": "teach", "caller_explains": true }))
            .await;
    assert_eq!(step["node"]["label"], "Sets");
    assert!(step["context"].as_str().is_some_and(|c| c.contains("Sets")), "{step}");
    let node_id = step["node"]["id"].as_str().unwrap().to_string();
    let question = json!({ "concept": "Sets", "text": "Which is a set?", "kind": "choice",
                           "choices": ["{1, 2}", "1 + 2"], "correct": 0 });
    let asked =
        ok(&client, "teaching_flow_advance", json!({ "flow_id": flow_id, "step": "quiz", "question": question })).await;
    let answer = json!({ "flow_id": flow_id, "step": "answer", "answer": "0", "question_id": asked["question_id"] });
    let step = ok(&client, "teaching_flow_advance", answer).await;
    assert_eq!(step["grade"]["correct"], true, "{step}");
    let node = ok(&client, "mind_map_node_get", json!({ "node_id": node_id })).await;
    assert!(node["next_review_at"].is_string(), "no review scheduled: {node}");

    let cleanup = ok(&client, "spaced_repetition_schedule_cleanup", json!({ "mind_map_id": map_id })).await;
    assert_eq!(cleanup["review_jobs"], 1, "{cleanup}");
    let learner = t.app.authenticate(&t.a).await.unwrap().id;
    let jobs = t.app.jobs(learner, None).await.unwrap();
    assert!(jobs.iter().any(|j| j.kind == pathwise_domain::JobKind::Review), "no review job in {jobs:?}");
    // Seen the same from the HTTP API: one state behind every door.
    let via_http = t.get(&t.a, &format!("/api/nodes/{node_id}")).await.expect(200);
    assert_eq!(via_http["next_review_at"], node["next_review_at"]);
}

async fn bad_calls_are_tool_errors_that_write_nothing(t: &TestApp) {
    let client = connect(t, &t.a).await;
    let map = ok(&client, "mind_map_create", json!({ "title": "Cycles" })).await;
    let map_id = map["id"].as_str().unwrap().to_string();
    let a = ok(&client, "mind_map_node_create", json!({ "mind_map_id": map_id, "label": "A" })).await;
    let b = ok(
        &client,
        "mind_map_node_create",
        json!({ "mind_map_id": map_id, "label": "B", "prerequisite_ids": [a["id"]] }),
    )
    .await;
    let c = ok(
        &client,
        "mind_map_node_create",
        json!({ "mind_map_id": map_id, "label": "C", "prerequisite_ids": [b["id"]] }),
    )
    .await;
    let (a, c) = (a["id"].as_str().unwrap(), c["id"].as_str().unwrap());

    refused(
        t,
        &client,
        "mind_map_edge_create",
        json!({ "mind_map_id": map_id, "parent_node_id": c, "child_node_id": a }),
        &["cycle: C -> A -> B -> C"],
    )
    .await;
    let cycle = call(
        &client,
        "mind_map_edge_create",
        json!({ "mind_map_id": map_id, "parent_node_id": c, "child_node_id": a }),
    )
    .await;
    assert_eq!(code(&cycle), Some("cycle"), "{cycle:?}");
    refused(
        t,
        &client,
        "mind_map_edge_create",
        json!({ "mind_map_id": map_id, "parent_node_id": c }),
        &["child_node_id"],
    )
    .await;
    refused(
        t,
        &client,
        "mastery_record_response",
        json!({ "node_id": a, "mind_map_id": map_id, "question_text": "q", "quality": "five" }),
        &["quality"],
    )
    .await;
    refused(
        t,
        &client,
        "mastery_record_response",
        json!({ "node_id": a, "mind_map_id": map_id, "question_text": "q", "quality": 9 }),
        &["quality"],
    )
    .await;
    // An argument the tool does not take is named, with those it does, in the HTTP API's words.
    refused(
        t,
        &client,
        "mind_map_create",
        json!({ "title": "x", "colour": "red" }),
        &["colour: unknown field; allowed: title, metadata"],
    )
    .await;
    refused(
        t,
        &client,
        "mind_map_node_update",
        json!({ "node_id": a, "lable": "A2" }),
        &["lable: unknown field; allowed: node_id, label, description, effort_minutes, metadata"],
    )
    .await;
    refused(t, &client, "mind_map_fly", json!({}), &["unknown tool", "mind_map_create"]).await;
    refused(t, &client, "mind_map_get", json!({ "mind_map_id": "not-a-uuid" }), &["mind_map_id"]).await;
    let huge = "x".repeat(300 * 1024);
    refused(t, &client, "mind_map_create", json!({ "title": huge.clone() }), &["at most"]).await;
    // The registry's own refusals carry a code as the application's do.
    let codes = [
        (call(&client, "mind_map_fly", json!({})).await, "unknown_tool"),
        (call(&client, "mind_map_node_update", json!({ "node_id": a, "lable": "A2" })).await, "invalid"),
        (call(&client, "mind_map_create", json!({ "title": huge })).await, "body_too_large"),
    ];
    for (result, expected) in codes {
        assert_eq!(code(&result), Some(expected), "{result:?}");
    }

    // Learner B sees none of learner A's ids.
    let other = connect(t, &t.b).await;
    refused(t, &other, "mind_map_get", json!({ "mind_map_id": map_id }), &["not found"]).await;
    refused(t, &other, "mind_map_node_create", json!({ "mind_map_id": map_id, "label": "D" }), &["not found"]).await;
    refused(t, &other, "mind_map_node_update", json!({ "node_id": a, "label": "Mine" }), &["not found"]).await;
    let hidden = call(&other, "mind_map_get", json!({ "mind_map_id": map_id })).await;
    assert_eq!(code(&hidden), Some("not_found"), "{hidden:?}");
    let untouched = ok(&client, "mind_map_node_get", json!({ "node_id": a })).await;
    assert_eq!(untouched["label"], "A");
}

/// Sessions, courses and preferences over MCP keep the HTTP API's rules: bad arguments and
/// another learner's ids are tool errors naming the field, and change nothing.
async fn sessions_and_courses_refuse_bad_calls_and_other_learners_ids(t: &TestApp) {
    t.app.install_builtin_courses().await.expect("the shipped courses");
    let client = connect(t, &t.a).await;
    let blueprint = ok(&client, "library_assessments", json!({})).await["assessments"]
        .as_array()
        .unwrap()
        .iter()
        .find(|a| a["selection"] == "fixed")
        .expect("a fixed assessment")["blueprint_id"]
        .clone();
    let evaluation =
        |blueprint: Value| json!({ "session_type": "evaluation", "config": { "blueprint_id": blueprint } });
    refused(t, &client, "session_create", evaluation(json!("NO-SUCH-QUIZ")), &["blueprint_id", "NO-SUCH-QUIZ"]).await;
    refused(t, &client, "session_create", json!({ "session_type": "lecture", "config": {} }), &["session_type"]).await;
    let session = ok(&client, "session_create", evaluation(blueprint)).await["id"].as_str().unwrap().to_string();
    refused(
        t,
        &client,
        "session_respond",
        json!({ "session_id": session, "tool_call_id": "call_0", "response": { "text": "1" } }),
        &["not awaiting a response"],
    )
    .await;
    refused(t, &client, "session_run", json!({ "session_id": session, "after": -1 }), &["after"]).await;
    let run = ok(&client, "session_run", json!({ "session_id": session })).await;
    let action =
        run["events"].as_array().unwrap().iter().rev().find(|e| e["event"] == "client_action").unwrap()["data"].clone();
    let wrong = if action["tool"] == "present_choices" {
        json!({ "selected_index": 99 })
    } else {
        json!({ "selected_index": 0, "text": "both" })
    };
    refused(
        t,
        &client,
        "session_respond",
        json!({ "session_id": session, "tool_call_id": action["tool_call_id"], "response": wrong }),
        &["response"],
    )
    .await;
    refused(t, &client, "session_get", json!({ "session_id": "not-a-uuid" }), &["session_id"]).await;
    refused(t, &client, "course_get", json!({ "course_id": "NO-SUCH-COURSE" }), &["NO-SUCH-COURSE"]).await;
    // The field is named once, and what to call instead is a tool.
    let unknown = json!({ "course_id": "NO-SUCH-COURSE" });
    let message = refused(t, &client, "tutor_thread_create", unknown, &["course_list lists them"]).await;
    assert!(message.starts_with("course_id: there is no course 'NO-SUCH-COURSE'"), "{message}");
    assert_eq!(message.matches("course_id").count(), 1, "{message}");
    assert!(!message.contains("/api/"), "{message}");
    refused(t, &client, "preferences_update", json!({ "daily_review_cap": 0 }), &["daily_review_cap"]).await;
    refused(t, &client, "preferences_update", json!({ "srs_scheduler": "leitner" }), &["srs_scheduler"]).await;

    // Learner B reaches none of learner A's sessions.
    let other = connect(t, &t.b).await;
    for (tool, arguments) in [
        ("session_get", json!({ "session_id": session })),
        ("session_run", json!({ "session_id": session })),
        ("session_messages", json!({ "session_id": session })),
        ("session_end", json!({ "session_id": session })),
        (
            "session_respond",
            json!({ "session_id": session, "tool_call_id": action["tool_call_id"], "response": { "selected_index": 0 } }),
        ),
    ] {
        refused(t, &other, tool, arguments, &["not found"]).await;
    }
    let still = ok(&client, "session_get", json!({ "session_id": session })).await;
    assert_eq!(still["status"], "awaiting_response", "{still}");
}

/// The policy tutor over MCP, without a model: two right drills open the unit's check, the
/// exam question answered wrong locks, a second answer is refused with the lock, and the
/// memo can be read; another learner reaches none of the thread.
async fn a_tutor_thread_runs_to_a_drill_streak_and_an_exam_lockout(t: &TestApp) {
    import_test_course(t).await;
    let client = connect(t, &t.a).await;
    let thread = ok(&client, "tutor_thread_create", json!({ "course_id": "TEST-ALG" })).await["id"]
        .as_str()
        .unwrap()
        .to_string();
    let turn =
        ok(&client, "tutor_turn", json!({ "thread_id": thread, "message_text": "warm-up arithmetic please" })).await;
    let unit = turn["snapshotLite"]["focus"]["unitId"].as_str().unwrap().to_string();
    let mut reply = ok(
        &client,
        "tutor_turn",
        json!({ "thread_id": thread, "client_event": { "type": "REQUEST_DRILL", "unit_id": unit } }),
    )
    .await;
    let mut check = Value::Null;
    for streak in 1..=2 {
        let card = reply["messages"][0]["card"].clone();
        assert_eq!(card["type"], "DRILL", "{reply}");
        let key = offered_item(t, &thread, &card).await.key.answer;
        // The unit is the drill's own: the first names it anyway, the second sends only the
        // drill's id.
        let arguments = if streak == 1 {
            json!({ "thread_id": thread, "unit_id": unit, "drill": card, "student_answer": key })
        } else {
            json!({ "thread_id": thread, "drill": { "drill_id": card["drillId"] }, "student_answer": key })
        };
        let graded = ok(&client, "tutor_drill_grade", arguments).await;
        assert_eq!(
            (graded["isCorrect"].as_bool(), graded["drill"]["streakCorrect"].as_i64()),
            (Some(true), Some(streak))
        );
        check = graded["snapshotLite"]["examCheck"].clone();
        if streak == 1 {
            let event = json!({ "type": "DRILL_CONTINUE", "unit_id": unit, "last_result": "correct" });
            reply = ok(&client, "tutor_turn", json!({ "thread_id": thread, "client_event": event })).await;
        }
    }
    assert_eq!(check["unitId"], unit.as_str(), "two right in a row open the check: {check}");
    let exam = ok(
        &client,
        "tutor_turn",
        json!({ "thread_id": thread, "client_event": { "type": "REQUEST_EXAM", "unit_id": unit } }),
    )
    .await;
    let card = exam["messages"][0]["card"].clone();
    assert_eq!(card["type"], "EXAM", "{exam}");
    assert!(card.get("correct").is_none(), "the card shows no key: {card}");
    let question = card["questionId"].as_str().unwrap().to_string();
    let correct = t.app.course("TEST-ALG").await.unwrap().course.question(&question).unwrap().correct;
    let wrong = (correct + 1) % card["options"].as_array().unwrap().len();
    let answer = json!({ "thread_id": thread, "unit_id": unit, "question_id": question, "selected_index": wrong });
    let submitted = ok(&client, "tutor_exam_submit", answer.clone()).await;
    assert_eq!(submitted["isCorrect"], false, "{submitted}");
    refused(t, &client, "tutor_exam_submit", answer, &["locked"]).await;
    let memo = ok(
        &client,
        "tutor_support_viewed",
        json!({ "thread_id": thread, "unit_id": unit, "question_id": question, "support_type": "memo" }),
    )
    .await;
    assert!(memo["memo"].as_str().is_some_and(|m| !m.is_empty()), "{memo}");
    let snapshot = ok(&client, "tutor_snapshot", json!({ "course_id": "TEST-ALG" })).await;
    assert_eq!(snapshot["snapshot"]["unitProgress"][&unit]["drill"]["streakCorrect"], 2, "{snapshot}");

    let other = connect(t, &t.b).await;
    refused(t, &other, "tutor_thread_get", json!({ "thread_id": thread }), &["not found"]).await;
    refused(t, &other, "tutor_turn", json!({ "thread_id": thread, "message_text": "hello" }), &["not found"]).await;
    refused(t, &client, "tutor_turn", json!({ "thread_id": thread, "clientEvnt": {} }), &["clientEvnt"]).await;
    // A refusal names the fields as the tool shows them.
    let event = json!({ "type": "REQUEST_DRILL", "unit_id": "NOPE-99" });
    let message = refused(
        t,
        &client,
        "tutor_turn",
        json!({ "thread_id": thread, "client_event": event }),
        &["client_event.unit_id"],
    )
    .await;
    assert!(!message.contains("clientEvent") && !message.contains("unitId"), "{message}");
}

/// The `id:` and `event:` of each event of an SSE body, but those without an id.
fn sse_events(body: &str) -> Vec<(i64, String)> {
    body.split("\n\n")
        .filter_map(|block| {
            let field = |name: &str| block.lines().find_map(|l| l.strip_prefix(name)).map(|v| v.trim().to_string());
            Some((field("id:")?.parse().ok()?, field("event:")?))
        })
        .collect()
}

/// The widget a run ends waiting on, and an answer it takes.
fn waiting(run: &Value) -> (String, Value) {
    let action =
        run["events"].as_array().unwrap().iter().rev().find(|e| e["event"] == "client_action").unwrap()["data"].clone();
    let answer =
        if action["tool"] == "present_choices" { json!({ "selected_index": 0 }) } else { json!({ "text": "7" }) };
    (action["tool_call_id"].as_str().unwrap().to_string(), answer)
}

/// A session run over MCP goes on over HTTP and back: one session, one log of events.
async fn a_session_run_over_mcp_goes_on_over_http(t: &TestApp) {
    let client = connect(t, &t.a).await;
    let evaluation = json!({ "session_type": "evaluation", "config": { "blueprint_id": "MATH-ARITH-QUIZ-10" } });
    let session = ok(&client, "session_create", evaluation).await["id"].as_str().unwrap().to_string();
    let run = ok(&client, "session_run", json!({ "session_id": session })).await;
    let ran: Vec<(i64, String)> = run["events"]
        .as_array()
        .unwrap()
        .iter()
        .map(|e| (e["seq"].as_i64().unwrap(), e["event"].as_str().unwrap().to_string()))
        .collect();
    let stream = |last: Option<&str>| {
        let mut request = t.client.get(format!("{}/api/session/{session}/stream", t.base)).bearer_auth(&t.a);
        if let Some(last) = last {
            request = request.header("Last-Event-ID", last);
        }
        async move { request.send().await.unwrap().text().await.unwrap() }
    };
    // The stream replays the very events the tool returned.
    assert_eq!(sse_events(&stream(Some("0")).await), ran);

    // Answered over HTTP, continued over MCP.
    let (call, answer) = waiting(&run);
    let reply = t
        .post(&t.a, &format!("/api/session/{session}/respond"), json!({ "tool_call_id": call, "response": answer }))
        .await;
    reply.expect(200);
    let next = ok(&client, "session_run", json!({ "session_id": session })).await;
    let (next_call, answer) = waiting(&next);
    assert_ne!(next_call, call, "{next}");
    let shown = t.get(&t.a, &format!("/api/session/{session}")).await.expect(200);
    assert_eq!(shown["pending"]["tool_call_id"], next_call.as_str(), "{shown}");
    assert_eq!(shown["context"]["items_completed"], 1, "{shown}");

    // Answered over MCP, its stream over HTTP shows the item after.
    ok(&client, "session_respond", json!({ "session_id": session, "tool_call_id": next_call, "response": answer }))
        .await;
    let streamed = stream(None).await;
    let after = ok(&client, "session_run", json!({ "session_id": session })).await;
    let (third, _) = waiting(&after);
    assert!(streamed.contains(&third), "the HTTP stream and the tool wait on the same widget: {streamed}");
    assert_eq!(after["session"]["context"]["items_completed"], 2, "{after}");
}

async fn needs_a_learner_token_and_a_known_host(t: &TestApp) {
    let initialize = json!({ "jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
        "protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": { "name": "t", "version": "1" } } });
    let post = |token: Option<&str>, host: Option<&str>| {
        let mut request = t
            .client
            .post(format!("{}/mcp", t.base))
            .header("accept", "application/json, text/event-stream")
            .json(&initialize);
        if let Some(token) = token {
            request = request.bearer_auth(token);
        }
        if let Some(host) = host {
            request = request.header("host", host);
        }
        request.send()
    };
    let anonymous = post(None, None).await.unwrap();
    assert_eq!(anonymous.status(), 401);
    assert!(anonymous.headers().contains_key("www-authenticate"));
    assert_eq!(post(Some("not-a-token"), None).await.unwrap().status(), 401);
    assert_eq!(post(Some(&t.a), None).await.unwrap().status(), 200);
    let rebound = post(Some(&t.a), Some("evil.example")).await.unwrap();
    assert!(rebound.status().is_client_error(), "a foreign Host was answered {}", rebound.status());
}

on_both_stores!(
    lists_tools_prompts_and_resources,
    runs_a_topic_to_a_scheduled_review,
    bad_calls_are_tool_errors_that_write_nothing,
    sessions_and_courses_refuse_bad_calls_and_other_learners_ids,
    a_tutor_thread_runs_to_a_drill_streak_and_an_exam_lockout,
    a_session_run_over_mcp_goes_on_over_http,
    needs_a_learner_token_and_a_known_host
);
