//! Learners are isolated on every route and every MCP tool, checked by walking what the
//! server itself says it offers: every operation of `/api/openapi.json` and every tool of
//! `tools/list`. Learner A makes one of everything (a map with nodes and a response, a flow,
//! a session, a tutor thread, preferences, an analytics snapshot); then learner B calls each
//! operation and each tool with A's ids, and so do a caller with no token, one with a
//! malformed token and one whose token was revoked. No reply to B may be a success that
//! names any of A's ids, an operation addressed to one of A's resources by its path must
//! answer 404, the others get 401, and A's data, read back through the application before
//! and after, must not have changed. A new route or tool is covered as soon as it is in the
//! document or the tool list; what cannot be called generically is listed below with why.
//! On SQLite, and on PostgreSQL when `PATHWISE_TEST_DATABASE_URL` is set.

mod support;

use pathwise_app::queries::{ListThreadsQuery, PageQuery};
use pathwise_app::ErrorCode;
use pathwise_domain::LearnerId;
use pathwise_store::{ResponseFilter, SnapshotStore};
use reqwest::{Method, StatusCode};
use rmcp::model::{CallToolRequestParams, ReadResourceRequestParams};
use rmcp::transport::streamable_http_client::StreamableHttpClientTransportConfig;
use rmcp::transport::StreamableHttpClientTransport;
use rmcp::ServiceExt;
use serde_json::{json, Map, Value};
use support::*;

/// Operations that answer without a token, by design, with why. Every other operation of
/// the document must need one.
const OPEN_OPERATIONS: [(&str, &str); 1] = [(
    "workspace_sign_in",
    "the workspace's sign-in on a loopback server: it hands out the local learner's token only for a one-time \
     code that `pathwise serve` prints, to a page on a loopback name; this test server has no local learner (404)",
)];

/// The operations only the operator token may call (learner administration, course
/// imports): a learner's token is refused there, 401.
const OPERATOR_OPERATIONS: [&str; 12] = [
    "learners_list",
    "learners_create",
    "learners_delete",
    "learners_list_tokens",
    "learners_create_token",
    "learners_revoke_token",
    "learners_rotate_token",
    "learners_export",
    "learners_import",
    "courses_pack",
    "courses_share",
    "courses_unshare",
];

/// The course every learner may read; not A's data.
const COURSE: &str = "NET-IPV4";

/// One of everything of learner A's.
struct World {
    learner: LearnerId,
    /// The learner's id and one of their tokens' ids, as the operator's routes name them.
    learner_id: String,
    token: String,
    map: String,
    root: String,
    child: String,
    flow: String,
    session: String,
    thread: String,
    /// One of A's own documents, and a course drafted from it.
    document: String,
    draft: String,
    /// A's own course, published from the draft and shared with nobody.
    course: String,
    /// A passage of A's course (a chunk of A's document).
    passage: String,
    /// Every id of A's that B must never see in a success: the above and the responses'.
    secrets: Vec<String>,
}

impl World {
    /// A's id for a named argument or field (`mind_map_id`, `parent_node_id`, `threadId`, ...).
    fn id_for(&self, name: &str, path: &str) -> Option<&str> {
        let name = name.to_ascii_lowercase().replace('_', "");
        Some(match name.as_str() {
            "mindmapid" => &self.map,
            "nodeid" | "parentnodeid" | "parentid" | "prerequisiteids" => &self.root,
            "childnodeid" | "childid" => &self.child,
            "flowid" => &self.flow,
            "sessionid" => &self.session,
            "threadid" => &self.thread,
            "documentid" => &self.document,
            "draftid" => &self.draft,
            "passageid" => &self.passage,
            "learnerid" => &self.learner_id,
            "courseid" => &self.course,
            "tokenid" => &self.token,
            // A bare `id` takes its meaning from the path it is in.
            "id" if path.starts_with("/api/learners/") => &self.learner_id,
            "id" if path.starts_with("/api/mind-maps/") => &self.map,
            "id" if path.starts_with("/api/nodes/") => &self.root,
            "id" if path.starts_with("/api/flows/") => &self.flow,
            "id" if path.starts_with("/api/session/") => &self.session,
            "id" if path.starts_with("/api/author/documents/") => &self.document,
            "id" if path.starts_with("/api/author/drafts/") => &self.draft,
            _ => return None,
        })
    }

    /// Whether a reply names any of A's ids.
    fn leaked_in(&self, text: &str) -> Option<&str> {
        self.secrets.iter().find(|id| text.contains(id.as_str())).map(String::as_str)
    }
}

async fn make_world(t: &TestApp) -> World {
    let a = t.a.as_str();
    t.app.install_builtin_courses().await.expect("the shipped courses");
    let decomposition = json!({
        "root": "Sets",
        "nodes": [{ "label": "Sets", "effort_minutes": 10 }, { "label": "Relations", "effort_minutes": 10 }],
        "edges": [{ "parent": "Sets", "child": "Relations" }],
    });
    let plan = t.generate(a, "Sets", decomposition).await;
    let map = text(&plan["mind_map_id"]);
    let ids = t.ids(a, &map).await;
    let (root, child) = (ids["Sets"].clone(), ids["Relations"].clone());
    let answer = json!({ "node_id": root, "mind_map_id": map, "question_text": "What is a set?", "quality": 4 });
    let response = text(&t.post(a, "/api/responses", answer).await.expect(201)["id"]);
    t.post(a, &format!("/api/mind-maps/{map}/analytics/snapshot"), json!({})).await.expect(200);
    t.patch(a, "/api/me/preferences", json!({ "daily_review_cap": 7 })).await.expect(200);
    let flow = text(
        &t.post(a, "/api/flows", json!({ "topic": "Graphs", "caller_writes_steps": true })).await.expect(201)["id"],
    );
    let evaluation = json!({ "session_type": "evaluation", "config": { "blueprint_id": "MATH-ARITH-QUIZ-10" } });
    let session = text(&t.post(a, "/api/session/", evaluation).await.expect(201)["id"]);
    let thread = text(&t.post(a, "/api/tutor/threads", json!({ "courseId": COURSE })).await.expect(201)["id"]);
    t.post(a, &format!("/api/tutor/threads/{thread}/turn"), json!({ "messageText": "hello" })).await.expect(200);
    let learner = t.app.authenticate(a).await.expect("A's token").id;
    let notes = b"# Sets\n\nA set is a collection of distinct objects called its elements. Two sets are equal \
                  when they hold the same elements. The empty set holds no elements at all.\n"
        .to_vec();
    let document =
        t.app.documents().ingest(learner, "sets.md", notes).await.expect("A's document").document.id.to_string();
    // A's own course, published from a draft and shared with nobody: B never lists it.
    let new_draft =
        pathwise_app::authoring::NewDraft { title: "Ada private sets".into(), documents: None, use_model: false };
    let draft = t.app.draft_course(learner, new_draft).await.expect("A's draft").id;
    let units = pathwise_app::authoring::DraftUnits { version: 0, units: Vec::new(), use_model: false };
    t.app.draft_units(learner, draft, units).await.expect("A's questions");
    let course = t.app.publish_course_draft(learner, draft).await.expect("A's course").course.id;
    let draft = draft.to_string();
    // A passage of A's document, which A's course cites by its id.
    let document_id = document.parse().expect("a document id");
    let passage = t.app.documents().get(learner, document_id).await.expect("A's document").chunks[0].id.to_string();
    let secrets = vec![
        passage.clone(),
        learner.to_string(),
        map.clone(),
        root.clone(),
        child.clone(),
        response,
        flow.clone(),
        session.clone(),
        thread.clone(),
        document.clone(),
        draft.clone(),
        course.clone(),
    ];
    let token = t.app.learner_tokens(learner).await.expect("A's tokens")[0].id.to_string();
    World {
        learner,
        learner_id: learner.to_string(),
        token,
        map,
        root,
        child,
        flow,
        session,
        thread,
        document,
        draft,
        passage,
        course,
        secrets,
    }
}

/// Everything of A's, read through the application (not through the doors under test).
async fn a_data(t: &TestApp, w: &World) -> Value {
    let (app, l) = (&t.app, w.learner);
    let maps = app.list_maps(l, None, Some(0), Some(500)).await.unwrap();
    let mut aggregates = Vec::new();
    for map in &maps.items {
        aggregates.push(json!({
            "map": app.get_map(l, map.id).await.unwrap(),
            // The stored history, and the figures now (without the moment they were computed).
            "snapshots": app.store().snapshots(l, map.id, chrono::NaiveDate::default()).await.unwrap(),
            "figures": app.analytics().map_analytics(l, map.id).await.unwrap().latest.metrics,
        }));
    }
    let tokens = app.learner_tokens(l).await.unwrap();
    let flows = app.flow_list(l, None, Some(0), Some(500)).await.unwrap();
    let sessions = app.list_sessions(l, Some(0), Some(500)).await.unwrap();
    let mut session_messages = Vec::new();
    for session in &sessions.items {
        session_messages.push(app.session_messages(l, session.id).await.unwrap());
    }
    let threads = app.list_threads(l, &ListThreadsQuery { limit: Some(500), ..Default::default() }).await.unwrap();
    let mut thread_logs = Vec::new();
    for thread in &threads.items {
        thread_logs.push(json!({
            "messages": app.thread_messages(l, thread.id, &Default::default()).await.unwrap(),
            "turns": app.thread_turns(l, thread.id, &PageQuery { limit: Some(500), ..Default::default() }).await.unwrap(),
        }));
    }
    let mut documents = Vec::new();
    for document in app.documents().list(l).await.unwrap() {
        documents.push(app.documents().get(l, document.id).await.unwrap());
    }
    let mut drafts = Vec::new();
    for draft in app.course_drafts(l).await.unwrap() {
        drafts.push(app.course_draft(l, draft.id).await.unwrap());
    }
    json!({
        "documents": documents,
        "drafts": drafts,
        "courses": app.list_courses(l).await.unwrap(),
        "shares": app.course_shares(l, "ADA-PRIVATE-SETS").await.unwrap(),
        "maps": maps,
        "aggregates": aggregates,
        "responses": app.list_responses(l, ResponseFilter::default(), Some(0), Some(500)).await.unwrap(),
        "tokens": tokens,
        "flows": flows,
        "sessions": sessions,
        "session_messages": session_messages,
        "threads": threads,
        "thread_logs": thread_logs,
        "snapshot": app.tutor_snapshot(l, COURSE).await.unwrap(),
        "preferences": app.preferences(l).await.unwrap(),
        "jobs": app.jobs(l, None).await.unwrap(),
        "job_runs": app.job_runs(l).await.unwrap(),
        "review_log": app.review_log(l).await.unwrap(),
    })
}

// ---------------------------------------------------------------------------------------
// Requests made from a JSON Schema
// ---------------------------------------------------------------------------------------

/// A value the schema accepts, with A's ids wherever a field names one: required fields
/// only, plus optional ones that take an id (so that a filter or a reference is A's).
/// `root` holds the definitions `$ref`s point into (an OpenAPI document or a tool's schema).
fn sample(schema: &Value, root: &Value, name: &str, path: &str, w: &World) -> Value {
    let schema = resolve(schema, root);
    if let Some(value) = schema.get("const") {
        return value.clone();
    }
    if let Some(first) = schema.get("enum").and_then(Value::as_array).and_then(|e| e.first()) {
        return first.clone();
    }
    // An alternative: the first that is not null. Beside an object's own fields it only
    // adds what it requires (a turn's words, a drill's id), so those are merged in.
    let mut alternative = None;
    for key in ["oneOf", "anyOf"] {
        if let Some(choices) = schema.get(key).and_then(Value::as_array) {
            let choice = choices.iter().find(|c| resolve(c, root).get("type") != Some(&json!("null")));
            let chosen = choice.map_or(Value::Null, |c| sample(c, root, name, path, w));
            if schema.get("properties").is_none() {
                return chosen;
            }
            alternative = Some(chosen);
            break;
        }
    }
    // Parts of an object (a typed schema's `allOf` only adds rules, such as a text's
    // second pattern).
    if let Some(parts) = schema.get("allOf").and_then(Value::as_array).filter(|_| schema.get("type").is_none()) {
        let mut merged = Map::new();
        for part in parts {
            if let Value::Object(fields) = sample(part, root, name, path, w) {
                merged.extend(fields);
            }
        }
        return Value::Object(merged);
    }
    let kind = match &schema["type"] {
        Value::Array(kinds) => kinds.iter().filter_map(Value::as_str).find(|k| *k != "null").unwrap_or("null"),
        Value::String(kind) => kind.as_str(),
        _ if schema.get("properties").is_some() => "object",
        _ => "object",
    };
    match kind {
        "object" => {
            let required: Vec<&str> =
                schema["required"].as_array().into_iter().flatten().filter_map(Value::as_str).collect();
            let mut object = Map::new();
            for (field, property) in schema["properties"].as_object().into_iter().flatten() {
                if required.contains(&field.as_str()) || w.id_for(field, path).is_some() {
                    object.insert(field.clone(), sample(property, root, field, path, w));
                }
            }
            if let Some(Value::Object(fields)) = alternative {
                object.extend(fields);
            }
            Value::Object(object)
        }
        "array" => {
            let item = sample(&schema["items"], root, name, path, w);
            let count = schema["minItems"].as_u64().unwrap_or(1).max(1) as usize;
            Value::Array(vec![item; count])
        }
        "string" => match w.id_for(name, path) {
            Some(id) => json!(id),
            None if schema["format"] == "uuid" => json!(w.map),
            None if schema["format"] == "date-time" => json!("2026-01-01T00:00:00Z"),
            None => json!("x".repeat(schema["minLength"].as_u64().unwrap_or(1).max(1) as usize)),
        },
        "integer" => json!(schema["minimum"].as_i64().unwrap_or(1).max(0)),
        "number" => json!(schema["minimum"].as_f64().unwrap_or(1.0)),
        "boolean" => json!(false),
        _ => Value::Null,
    }
}

fn resolve<'a>(schema: &'a Value, root: &'a Value) -> &'a Value {
    match schema.get("$ref").and_then(Value::as_str) {
        Some(reference) => {
            let pointer = reference.strip_prefix('#').expect("a local reference");
            resolve(root.pointer(pointer).unwrap_or_else(|| panic!("{reference} is not in the document")), root)
        }
        None => schema,
    }
}

/// An operation as B calls it with A's ids.
struct Call {
    operation_id: String,
    method: Method,
    path: String,
    /// The path names one of A's resources.
    targets_a: bool,
    secured: bool,
    body: Option<Value>,
}

/// Bodies (by operationId) and tool arguments (by tool name) that the schema alone does not
/// make valid enough to reach the ownership check, with why.
fn body_for(name: &str, w: &World) -> Option<Value> {
    let plan_step = json!({ "step": "plan", "decomposition": {
        "root": "Graphs", "nodes": [{ "label": "Graphs", "effort_minutes": 10 }], "edges": [] } });
    Some(match name {
        // Parent and child must differ, or the edge is a self-loop refused before anything.
        "maps_create_edge" => json!({ "parent_node_id": w.root, "child_node_id": w.child }),
        "mind_map_edge_create" => json!({ "mind_map_id": w.map, "parent_node_id": w.root, "child_node_id": w.child }),
        "mind_map_edge_delete" => json!({ "mind_map_id": w.map, "parent_node_id": w.root, "child_node_id": w.child }),
        // An advance takes only its step's fields (a stray `node_id` is refused before the
        // flow is looked up); `plan` with a decomposition is the step that needs no model.
        "flows_advance" => plan_step,
        "teaching_flow_advance" => {
            let mut arguments = plan_step;
            arguments["flow_id"] = json!(w.flow);
            arguments
        }
        // A turn needs the learner's words or a button's event; none is required alone.
        "tutor_turn" => json!({ "messageText": "hello" }),
        // Without a decomposition the model is asked, and there is none here (503).
        "curriculum_generate" => json!({ "topic": "Graphs", "decomposition": plan_step["decomposition"] }),
        _ => return None,
    })
}

fn calls(document: &Value, w: &World) -> Vec<Call> {
    let mut all = Vec::new();
    for (path, item) in document["paths"].as_object().expect("paths") {
        for (method, operation) in item.as_object().expect("a path item") {
            let operation_id = text(&operation["operationId"]);
            let mut concrete = path.clone();
            let mut targets_a = false;
            let mut query = Vec::new();
            for parameter in operation["parameters"].as_array().into_iter().flatten() {
                let name = parameter["name"].as_str().unwrap();
                match (parameter["in"].as_str(), name) {
                    (Some("path"), "course_id") => {
                        concrete = concrete.replace("{course_id}", &w.course);
                        targets_a = true;
                    }
                    (Some("path"), _) => {
                        let id = w.id_for(name, path).unwrap_or_else(|| {
                            panic!(
                                "{method} {path}: no id of A's for the path parameter {name}; add it to World::id_for"
                            )
                        });
                        concrete = concrete.replace(&format!("{{{name}}}"), id);
                        targets_a = true;
                    }
                    (Some("query"), _) => {
                        if let Some(id) = w.id_for(name, path) {
                            query.push(format!("{name}={id}"));
                        }
                    }
                    _ => {}
                }
            }
            if !query.is_empty() {
                concrete = format!("{concrete}?{}", query.join("&"));
            }
            let body = operation.get("requestBody").map(|body| {
                body_for(&operation_id, w).unwrap_or_else(|| match body["content"].get("application/json") {
                    Some(json) => sample(&json["schema"], document, "", path, w),
                    None => Value::Null,
                })
            });
            let secured = operation.get("security").and_then(Value::as_array).is_some_and(|s| !s.is_empty());
            let method = Method::from_bytes(method.to_uppercase().as_bytes()).unwrap();
            all.push(Call { operation_id, method, path: concrete, targets_a, secured, body });
        }
    }
    all
}

/// A reply's status and text. Unlike the harness's `call`, a 503 is a reply like another:
/// the operations that need a language model answer it here, where none is configured.
async fn send(t: &TestApp, call: &Call, token: Option<&str>) -> (StatusCode, String) {
    let mut request = t.client.request(call.method.clone(), format!("{}{}", t.base, call.path));
    if let Some(token) = token {
        request = request.bearer_auth(token);
    }
    request = match &call.body {
        // A body that is not JSON (a recording): a few bytes of it.
        Some(Value::Null) => request.header("content-type", "audio/webm").body("x"),
        Some(body) => request.json(body),
        None => request,
    };
    let reply = request.send().await.unwrap_or_else(|e| panic!("{} {}: {e}", call.method, call.path));
    let status = reply.status();
    let text = reply.text().await.unwrap_or_default();
    assert!(
        !status.is_server_error() || status == StatusCode::SERVICE_UNAVAILABLE,
        "{} {} answered {status}: {text}",
        call.method,
        call.path
    );
    (status, text)
}

// ---------------------------------------------------------------------------------------
// Tokens
// ---------------------------------------------------------------------------------------

/// A learner whose token the operator revoked.
async fn revoked_token(t: &TestApp) -> String {
    let created = t.app.create_learner("Revoked").await.expect("a learner");
    let token = t.app.learner_tokens(created.learner.id).await.expect("their tokens")[0].id;
    t.app.revoke_token(created.learner.id, token).await.expect("revoked");
    let refused = t.app.authenticate(&created.token).await.expect_err("the token still works after it was revoked");
    assert_eq!(refused.code, ErrorCode::TokenRevoked);
    created.token
}

// ---------------------------------------------------------------------------------------
// The walks
// ---------------------------------------------------------------------------------------

async fn no_route_lets_another_learner_near_a_learners_data(t: &TestApp) {
    let w = make_world(t).await;
    let before = a_data(t, &w).await;
    let document: Value =
        t.client.get(format!("{}/api/openapi.json", t.base)).send().await.unwrap().json().await.unwrap();
    let calls = calls(&document, &w);
    assert!(calls.len() > 50, "only {} operations in the document", calls.len());
    let aimed = calls.iter().filter(|c| c.targets_a).count();
    assert!(aimed > 40, "only {aimed} operations were aimed at A's resources");
    let revoked = revoked_token(t).await;
    let strangers: [(&str, Option<&str>); 3] =
        [("no token", None), ("a malformed token", Some("pw_not-a-token")), ("a revoked token", Some(&revoked))];

    for call in &calls {
        let what = format!("{} {} ({})", call.method, call.path, call.operation_id);
        if !call.secured {
            assert!(
                OPEN_OPERATIONS.iter().any(|(id, _)| *id == call.operation_id),
                "{what} needs no token; list it in OPEN_OPERATIONS with why, or secure it"
            );
        }
        let (status, reply) = send(t, call, Some(&t.b)).await;
        if status.is_success() {
            assert!(!call.targets_a, "{what}: B reached A's resource: {status} {reply}");
            if let Some(id) = w.leaked_in(&reply) {
                panic!("{what}: B's {status} names A's id {id}: {reply}");
            }
        } else if call.targets_a && OPERATOR_OPERATIONS.contains(&call.operation_id.as_str()) {
            // The operator's routes take no learner's token, whoever's ids they name.
            assert_eq!(status, StatusCode::UNAUTHORIZED, "{what}: B got {status} {reply}");
        } else if call.targets_a {
            // Not found, never forbidden: another learner's ids do not say they exist.
            assert_eq!(status, StatusCode::NOT_FOUND, "{what}: B got {status} {reply}");
        }
        if call.secured {
            for (who, token) in strangers {
                let (status, reply) = send(t, call, token).await;
                assert_eq!(status, StatusCode::UNAUTHORIZED, "{what} with {who}: {reply}");
            }
        }
    }
    assert_eq!(a_data(t, &w).await, before, "A's data changed while B and strangers called every operation");
}

async fn no_tool_lets_another_learner_near_a_learners_data(t: &TestApp) {
    let w = make_world(t).await;
    let before = a_data(t, &w).await;
    let connect = |token: &str| {
        let config = StreamableHttpClientTransportConfig::with_uri(format!("{}/mcp", t.base)).auth_header(token);
        ().serve(StreamableHttpClientTransport::from_config(config))
    };
    let b = connect(&t.b).await.expect("B's MCP client connects");
    let tools = b.list_all_tools().await.expect("tools/list");
    assert!(tools.len() > 20, "only {} tools", tools.len());
    let mut aimed = 0;
    for tool in &tools {
        let schema = Value::Object((*tool.input_schema).clone());
        let required: Vec<&str> =
            schema["required"].as_array().into_iter().flatten().filter_map(Value::as_str).collect();
        let mut arguments = body_for(&tool.name, &w).unwrap_or_else(|| sample(&schema, &schema, "", "", &w));
        // A tool takes the id an HTTP route has in its path beside the body's fields.
        for field in &required {
            if let Some(id) = w.id_for(field, "") {
                arguments[*field] = json!(id);
            }
        }
        let targets_a = required.iter().any(|field| w.id_for(field, "").is_some());
        aimed += usize::from(targets_a);
        let result = b
            .call_tool(
                CallToolRequestParams::new(tool.name.to_string())
                    .with_arguments(arguments.as_object().cloned().unwrap_or_default()),
            )
            .await
            .unwrap_or_else(|e| panic!("{}: a protocol error: {e}", tool.name));
        let said = serde_json::to_string(&result).unwrap();
        if result.is_error == Some(true) {
            if targets_a {
                let not_found =
                    said.contains("not found") || said.contains("(not_found") || said.contains(": there is no ");
                assert!(not_found, "{} with A's ids ({arguments}): {said}", tool.name);
                // The refusal names the argument whose id it did not find.
                let mut given = arguments.as_object().into_iter().flatten().map(|(field, _)| field.as_str());
                let named = given.any(|field| w.id_for(field, "").is_some() && said.contains(&format!("{field}: ")));
                assert!(named, "{} names no argument in its refusal: {said}", tool.name);
            }
        } else {
            assert!(!targets_a, "{} with A's ids ({arguments}) succeeded for B: {said}", tool.name);
            if let Some(id) = w.leaked_in(&said) {
                panic!("{} answered B with A's id {id}: {said}", tool.name);
            }
        }
    }
    assert!(aimed > 20, "only {aimed} tools were aimed at A's resources");
    // A's map as a resource, and the list of them.
    let hidden = b.read_resource(ReadResourceRequestParams::new(format!("pathwise://mind-maps/{}", w.map))).await;
    assert!(hidden.is_err(), "B read A's map as a resource");
    let listed = serde_json::to_string(&b.list_all_resources().await.expect("resources/list")).unwrap();
    assert!(w.leaked_in(&listed).is_none(), "B's resources name A's: {listed}");

    // Strangers do not get as far as MCP.
    let revoked = revoked_token(t).await;
    let initialize = json!({ "jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
        "protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": { "name": "t", "version": "1" } } });
    for (who, token) in
        [("no token", None), ("a malformed token", Some("pw_nope")), ("a revoked token", Some(&revoked))]
    {
        let mut request = t
            .client
            .post(format!("{}/mcp", t.base))
            .header("accept", "application/json, text/event-stream")
            .json(&initialize);
        if let Some(token) = token {
            request = request.bearer_auth(token);
        }
        assert_eq!(request.send().await.unwrap().status(), 401, "/mcp with {who}");
    }
    assert_eq!(a_data(t, &w).await, before, "A's data changed while B called every tool");
}

on_both_stores!(no_route_lets_another_learner_near_a_learners_data, no_tool_lets_another_learner_near_a_learners_data);
