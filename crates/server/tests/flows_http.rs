//! Teaching flows, analytics and jobs over HTTP: a real server on 127.0.0.1 over SQLite,
//! with a fake OpenAI-compatible server playing the model.

use pathwise_app::App;
use pathwise_fake_llm::{FakeLlm, Script};
use pathwise_llm::{Llm, OpenAiClient, OpenAiConfig};
use pathwise_server::AppState;
use pathwise_test_support::{TestDatabase, TestStore};
use serde_json::{json, Value};
use std::sync::Arc;

struct Server {
    base: String,
    token: String,
    other: String,
    fake: FakeLlm,
    app: App,
    _database: TestDatabase,
}

async fn start() -> Server {
    let TestStore { store, database } = TestStore::sqlite().await;
    let fake = FakeLlm::start().await;
    let config =
        OpenAiConfig { timeout: std::time::Duration::from_millis(500), ..OpenAiConfig::new(fake.base_url(), "tutor") };
    let llm = Llm::new(Arc::new(OpenAiClient::new(config).unwrap()), 2);
    let app = App::new(store).with_llm(llm);
    let token = app.create_learner("Ada").await.unwrap().token;
    let other = app.create_learner("Bob").await.unwrap().token;
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let base = format!("http://{}", listener.local_addr().unwrap());
    let state = AppState::new(app.clone(), None);
    tokio::spawn(async move { pathwise_server::serve(listener, state, std::future::pending()).await.unwrap() });
    Server { base, token, other, fake, app, _database: database }
}

impl Server {
    async fn call(&self, method: reqwest::Method, token: &str, path: &str, body: Option<Value>) -> (u16, Value) {
        let mut request = reqwest::Client::new().request(method, format!("{}{path}", self.base)).bearer_auth(token);
        if let Some(body) = body {
            request = request.json(&body);
        }
        let response = request.send().await.unwrap();
        let status = response.status().as_u16();
        (status, response.json().await.unwrap_or(Value::Null))
    }

    async fn post(&self, path: &str, body: Value) -> (u16, Value) {
        self.call(reqwest::Method::POST, &self.token, path, Some(body)).await
    }

    async fn get(&self, path: &str) -> (u16, Value) {
        self.call(reqwest::Method::GET, &self.token, path, None).await
    }
}

fn question(concept: &str) -> Script {
    Script::json(json!({ "kind": "choice", "question": format!("About {concept}?"),
        "choices": ["right", "wrong", "also wrong"], "correct_index": 0 }))
}

#[tokio::test]
async fn a_flow_is_driven_step_by_step_over_http() {
    let s = start().await;
    let (status, flow) = s.post("/api/flows", json!({ "topic": "Graphs", "goal": "shortest paths" })).await;
    assert_eq!(status, 201, "{flow}");
    assert_eq!(flow["status"], "pending");
    let id = flow["id"].as_str().unwrap().to_string();

    // A step out of order is a conflict that names where the flow is.
    let (status, error) = s.post(&format!("/api/flows/{id}/teach"), json!({})).await;
    assert_eq!(status, 409, "{error}");
    assert!(error["error"]["message"].as_str().unwrap().contains("pending"), "{error}");

    let concepts: Vec<Value> = ["Vertices", "Edges", "Paths", "Trees", "Shortest paths"]
        .iter()
        .map(|l| json!({ "label": l, "description": "d" }))
        .collect();
    s.fake.script([Script::json(json!({ "concepts": concepts })), question("Paths")]);
    let (status, step) = s.post(&format!("/api/flows/{id}/diagnostic/start"), json!({})).await;
    assert_eq!(status, 200, "{step}");
    assert_eq!(step["question"]["concept"], "Paths", "the median concept first");
    assert!(step["question"].get("correct").is_none(), "the key stays on the server: {step}");

    // A bad answer is refused with what is allowed; the flow does not move.
    let probe = step["question_id"].clone();
    assert!(probe.as_str().is_some_and(|p| p.starts_with("q_")), "{step}");
    let (status, error) =
        s.post(&format!("/api/flows/{id}/diagnostic/answer"), json!({ "answer": "9", "question_id": probe })).await;
    assert_eq!(status, 422, "{error}");
    assert!(error["error"]["message"].as_str().unwrap().contains("index from 0 to 2"), "{error}");
    let (status, error) = s.post(&format!("/api/flows/{id}/diagnostic/answer"), json!({ "reply": "0" })).await;
    assert_eq!((status, &error["error"]["code"]), (422, &json!("unknown_field")), "{error}");
    assert_eq!(error["error"]["details"]["field"], "reply", "{error}");

    s.fake.script([question("Trees")]);
    // The answer names its probe: without it, or with another, it is at odds with the
    // question waiting (409).
    let (status, error) = s.post(&format!("/api/flows/{id}/diagnostic/answer"), json!({ "answer": "right" })).await;
    assert_eq!((status, error["error"]["details"]["field"].as_str()), (409, Some("question_id")), "{error}");
    let (status, error) = s
        .post(&format!("/api/flows/{id}/diagnostic/answer"), json!({ "answer": "right", "question_id": "q_other" }))
        .await;
    assert_eq!((status, error["error"]["details"]["field"].as_str()), (409, Some("question_id")), "{error}");
    assert!(error["error"]["message"].as_str().unwrap().contains("is not the question waiting"), "{error}");
    let (status, step) =
        s.post(&format!("/api/flows/{id}/diagnostic/answer"), json!({ "answer": "right", "question_id": probe })).await;
    assert_eq!(status, 200, "{step}");
    assert_eq!(step["grade"]["correct"], true);
    let (status, done) = s.post(&format!("/api/flows/{id}/diagnostic/complete"), json!({})).await;
    assert_eq!((status, done["flow"]["status"].as_str()), (200, Some("planning")), "{done}");

    // Another learner cannot see or step this flow.
    let (status, _) = s.call(reqwest::Method::GET, &s.other, &format!("/api/flows/{id}"), None).await;
    assert_eq!(status, 404);

    // Offline-style failure: the model answers 5xx, the plan fails with 502, nothing moves.
    s.fake.script([Script::Status(500, "down".into())]);
    let (status, error) = s.post(&format!("/api/flows/{id}/plan"), json!({})).await;
    assert_eq!(status, 502, "{error}");
    let (_, unchanged) = s.get(&format!("/api/flows/{id}")).await;
    assert_eq!((unchanged["status"].as_str(), unchanged["version"].as_i64()), (Some("planning"), Some(3)));

    let create =
        |l: &str| ("mind_map_node_create".to_string(), json!({ "label": l, "description": "d", "effort_minutes": 10 }));
    let edge =
        |p: &str, c: &str| ("mind_map_edge_create".to_string(), json!({ "parent_node_id": p, "child_node_id": c }));
    s.fake.script([
        Script::ToolCalls(vec![create("Vertices"), create("Edges"), create("Paths")]),
        Script::ToolCalls(vec![edge("Vertices", "Edges"), edge("Edges", "Paths")]),
        Script::tool("finish", json!({ "goal_node_id": "Paths" })),
    ]);
    let (status, planned) = s.post(&format!("/api/flows/{id}/plan"), json!({})).await;
    assert_eq!(status, 200, "{planned}");
    let map = planned["plan"]["mind_map_id"].as_str().unwrap().to_string();

    s.fake.script([Script::Text("Vertices are the points of a graph.".into())]);
    let (status, taught) = s.post(&format!("/api/flows/{id}/teach"), json!({})).await;
    assert_eq!((status, taught["node"]["label"].as_str()), (200, Some("Vertices")), "{taught}");
    s.fake.script([question("Vertices")]);
    let (status, quiz) = s.post(&format!("/api/flows/{id}/quiz"), json!({})).await;
    assert_eq!((status, quiz["flow"]["status"].as_str()), (200, Some("quizzing")), "{quiz}");
    let answer = json!({ "answer": "0", "question_id": quiz["question_id"] });
    let (status, answered) = s.post(&format!("/api/flows/{id}/answer"), answer.clone()).await;
    assert_eq!(status, 200, "{answered}");
    // Sent again (a lost reply, a retry): the first grade, nothing recorded twice.
    let before = pathwise_app::Store::table_counts(s.app.store()).await.unwrap();
    let (status, again) = s.post(&format!("/api/flows/{id}/answer"), answer).await;
    assert_eq!(
        (status, again["replayed"].as_bool(), &again["grade"]),
        (200, Some(true), &answered["grade"]),
        "{again}"
    );
    assert_eq!(pathwise_app::Store::table_counts(s.app.store()).await.unwrap(), before);
    assert_eq!(answered["grade"]["quality"], 4);
    assert_eq!(answered["flow"]["status"], "reviewing");

    s.app.review_jobs().flush().await.unwrap();
    let (status, jobs) = s.get(&format!("/api/jobs?mind_map_id={map}")).await;
    assert_eq!(status, 200, "{jobs}");
    assert!(jobs.as_array().unwrap().iter().any(|j| j["kind"] == "review"), "{jobs}");
    let (status, _) = s.get("/api/jobs?map=1").await;
    assert_eq!(status, 400, "unknown query parameters are refused");

    let (status, metrics) = s.post(&format!("/api/mind-maps/{map}/analytics/snapshot"), json!({})).await;
    assert_eq!(status, 200, "{metrics}");
    assert_eq!(metrics["total_nodes"], 3);
    let (status, analytics) = s.get(&format!("/api/mind-maps/{map}/analytics")).await;
    assert_eq!((status, analytics["latest"]["metrics"]["total_nodes"].as_i64()), (200, Some(3)), "{analytics}");
    assert_eq!(analytics["days"], 7, "the last week unless asked");
    let (status, month) = s.get(&format!("/api/mind-maps/{map}/analytics?days=90")).await;
    assert_eq!((status, month["days"].as_i64(), month["snapshots"].as_array().map(Vec::len)), (200, Some(90), Some(1)));
    let (status, refused) = s.get(&format!("/api/mind-maps/{map}/analytics?days=400")).await;
    assert_eq!(status, 422, "{refused}");
    assert!(refused["error"]["message"].as_str().unwrap().contains("allowed: 1-366"), "{refused}");
    let (status, _) = s.get(&format!("/api/mind-maps/{map}/analytics?days=week")).await;
    assert_eq!(status, 400, "a window that is not a number");
    let (status, portfolio) = s.get("/api/me/portfolio").await;
    assert_eq!(status, 200, "{portfolio}");
    s.fake.script([Script::Status(500, "down".into())]);
    let (status, digest) = s.get("/api/me/digest").await;
    assert_eq!(
        (status, digest["written_by"].as_str()),
        (200, Some("template")),
        "a failing model falls back: {digest}"
    );

    let (status, list) = s.get("/api/flows?status=reviewing").await;
    assert_eq!((status, list["total"].as_i64()), (200, Some(1)), "{list}");
    let (status, abandoned) = s.post(&format!("/api/flows/{id}/abandon"), json!({})).await;
    assert_eq!((status, abandoned["status"].as_str()), (200, Some("abandoned")), "{abandoned}");
    let (_, jobs) = s.get(&format!("/api/jobs?mind_map_id={map}")).await;
    assert_eq!(jobs, json!([]), "an abandoned flow's map keeps no reviews");
}

fn caller_choice(concept: &str) -> Value {
    json!({ "concept": concept, "text": format!("About {concept}?"), "kind": "choice",
            "choices": ["right", "wrong"], "correct": 0 })
}

#[tokio::test]
async fn a_caller_drives_a_flow_over_http_with_its_own_content_and_no_model_call() {
    let s = start().await;
    let (_, flow) = s.post("/api/flows", json!({ "topic": "Graphs" })).await;
    let id = flow["id"].as_str().unwrap().to_string();
    let labels = ["Vertices", "Edges", "Paths", "Trees", "Shortest paths"];
    let inventory: Vec<Value> = labels.iter().map(|l| json!({ "label": l })).collect();
    let (status, step) = s.post(&format!("/api/flows/{id}/diagnostic/start"), json!({ "inventory": inventory })).await;
    assert_eq!(status, 200, "{step}");
    assert_eq!((step["question"].clone(), step["next_concept"]["label"].as_str()), (Value::Null, Some("Paths")));
    let probe = json!({ "answer": "right", "question": caller_choice("Paths") });
    let (status, step) = s.post(&format!("/api/flows/{id}/diagnostic/answer"), probe).await;
    assert_eq!((status, step["grade"]["graded_by"].as_str()), (200, Some("exact")), "{step}");
    s.post(&format!("/api/flows/{id}/diagnostic/complete"), json!({})).await;

    let path = format!("/api/flows/{id}/advance");
    let advance = |body: Value| s.post(&path, body);
    let decomposition = json!({ "root": "Vertices", "nodes": [
        { "label": "Vertices", "effort_minutes": 10 }, { "label": "Edges", "effort_minutes": 10 }],
        "edges": [{ "parent": "Vertices", "child": "Edges" }] });
    let (status, error) = advance(json!({ "step": "teach", "decomposition": decomposition })).await;
    assert_eq!(status, 422, "{error}");
    assert!(error["error"]["message"].as_str().unwrap().contains("does not belong to the teach step"), "{error}");
    let (status, error) = advance(json!({ "step": "leap" })).await;
    assert_eq!(status, 400, "{error}");
    let (status, planned) = advance(json!({ "step": "plan", "decomposition": decomposition })).await;
    assert_eq!((status, planned["plan"]["node_count"].as_i64()), (200, Some(2)), "{planned}");
    let (status, taught) = advance(json!({ "step": "teach", "caller_explains": true })).await;
    assert_eq!((status, taught["explanation"].clone()), (200, Value::Null), "{taught}");
    assert!(taught["context"].as_str().unwrap().contains("Vertices"), "{taught}");
    let (status, asked) = advance(json!({ "step": "quiz", "question": caller_choice("Vertices") })).await;
    assert_eq!((status, asked["flow"]["status"].as_str()), (200, Some("quizzing")), "{asked}");
    assert!(asked["question"].get("correct").is_none(), "the key stays on the server: {asked}");
    let asked_id = asked["question_id"].clone();
    let (status, error) =
        advance(json!({ "step": "answer", "answer": "0", "question_id": asked_id, "quality": 5 })).await;
    assert_eq!(status, 422, "{error}");
    let (status, answered) = advance(json!({ "step": "answer", "answer": "0", "question_id": asked_id })).await;
    assert_eq!((status, answered["grade"]["quality"].as_i64()), (200, Some(4)), "{answered}");
    assert!(s.fake.requests().is_empty(), "the model was never asked");

    // The model's diagnostic still starts from an empty body.
    let (_, other) = s.post("/api/flows", json!({ "topic": "Trees" })).await;
    let concepts: Vec<Value> = labels.iter().map(|l| json!({ "label": l, "description": "d" })).collect();
    s.fake.script([Script::json(json!({ "concepts": concepts })), question("Paths")]);
    let path = format!("/api/flows/{}/diagnostic/start", other["id"].as_str().unwrap());
    let (status, step) = s.call(reqwest::Method::POST, &s.token, &path, None).await;
    assert_eq!((status, step["question"]["concept"].as_str()), (200, Some("Paths")), "{step}");
}

#[tokio::test]
async fn the_openapi_document_lists_the_learning_loop() {
    let s = start().await;
    let (status, doc) = s.get("/api/openapi.json").await;
    assert_eq!(status, 200);
    for path in [
        "/api/flows",
        "/api/flows/{id}/diagnostic/start",
        "/api/flows/{id}/diagnostic/answer",
        "/api/flows/{id}/diagnostic/complete",
        "/api/flows/{id}/plan",
        "/api/flows/{id}/teach",
        "/api/flows/{id}/quiz",
        "/api/flows/{id}/answer",
        "/api/flows/{id}/review",
        "/api/flows/{id}/advance",
        "/api/mind-maps/{id}/analytics",
        "/api/me/portfolio",
        "/api/me/digest",
        "/api/jobs",
        "/api/jobs/runs",
    ] {
        assert!(doc["paths"].get(path).is_some(), "{path} missing from the OpenAPI document");
    }
    for schema in ["AdvanceFlow", "FlowStep", "StartDiagnostic", "RecordProbe", "NextConcept"] {
        assert!(doc["components"]["schemas"].get(schema).is_some(), "{schema} missing from the OpenAPI schemas");
    }
}
