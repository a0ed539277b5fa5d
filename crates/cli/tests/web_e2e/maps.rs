//! Maps and reviews in the browser (tests/e2e/maps.mjs): a 30-node map planned for the local
//! learner over HTTP, some of its concepts learned "days ago" through the application with a
//! manual clock (the API only schedules reviews into the future), then, in Chromium, the map
//! drawn with the next concept highlighted, a concept's history opened, a due review answered
//! in place, and a topic started on a server without a model (the page names the setting).

use super::{ready, run_script, serve, serve_with};
use chrono::{Duration, Utc};
use pathwise_app::mastery::RecordResponse;
use pathwise_app::{App, ManualClock};
use pathwise_domain::{LearnerId, MindMapId, NodeId, ResponseType};
use pathwise_fake_llm::{FakeLlm, Script};
use pathwise_store::{AnyStore, SqliteStore};
use serde_json::{json, Value};
use std::collections::HashMap;
use std::sync::Arc;

/// "Python programming" as 30 concepts, five layers deep: (label, prerequisites).
const CONCEPTS: [(&str, &[&str]); 30] = [
    ("Python programming", &[]),
    ("Variables", &["Python programming"]),
    ("Expressions", &["Python programming"]),
    ("Printing output", &["Python programming"]),
    ("Comments", &["Python programming"]),
    ("Numbers", &["Expressions"]),
    ("Strings", &["Expressions"]),
    ("Booleans", &["Expressions"]),
    ("Input from the user", &["Printing output", "Variables"]),
    ("Arithmetic operators", &["Numbers"]),
    ("Conditionals", &["Booleans"]),
    ("While loops", &["Booleans", "Variables"]),
    ("Lists", &["Variables"]),
    ("String formatting", &["Strings", "Printing output"]),
    ("Type conversion", &["Numbers", "Strings", "Input from the user"]),
    ("For loops", &["Lists", "While loops"]),
    ("Functions", &["Conditionals"]),
    ("Nested conditionals", &["Conditionals"]),
    ("Dictionaries", &["Lists"]),
    ("Tuples", &["Lists"]),
    ("Sets", &["Lists"]),
    ("List slicing", &["Lists", "Strings"]),
    ("Recursion", &["Functions"]),
    ("Scope", &["Functions"]),
    ("List comprehensions", &["For loops", "Lists"]),
    ("Error handling", &["Functions", "Type conversion"]),
    ("Modules", &["Functions"]),
    ("Default arguments", &["Functions"]),
    ("Iterating dictionaries", &["For loops", "Dictionaries"]),
    ("Reading files", &["For loops", "String formatting"]),
];

/// A shipped course; its map is made when the learner opens a thread on it.
const COURSE: &str = "MATH-FOUNDATIONS";

/// Learned three days ago and not reviewed since: due now.
const DUE: [&str; 3] = ["Numbers", "Strings", "Booleans"];

async fn call(
    client: &reqwest::Client,
    method: reqwest::Method,
    url: String,
    token: &str,
    body: Option<Value>,
) -> Value {
    let mut request = client.request(method, &url).bearer_auth(token);
    if let Some(body) = body {
        request = request.json(&body);
    }
    let response = request.send().await.expect("the server answers");
    let status = response.status();
    let value: Value = response.json().await.unwrap_or(Value::Null);
    assert!(status.is_success(), "{url}: {status} {value}");
    value
}

#[tokio::test(flavor = "multi_thread")]
async fn a_thirty_node_map_with_a_review_answered_in_the_browser() {
    if !ready() {
        return;
    }
    // No model configured: a topic is refused, an outline is not.
    let served = serve_with(None, &[]);
    let client = reqwest::Client::new();
    let token = served.token.clone();
    let get = |path: &str| call(&client, reqwest::Method::GET, format!("{}/api{path}", served.base), &token, None);
    let me = get("/me").await;
    let learner: LearnerId = serde_json::from_value(me["id"].clone()).unwrap();

    let nodes: Vec<Value> = CONCEPTS
        .iter()
        .map(|(label, _)| json!({ "label": label, "description": format!("What to know about {label} in Python, with examples."), "effort_minutes": 15 }))
        .collect();
    let edges: Vec<Value> = CONCEPTS
        .iter()
        .flat_map(|(label, needs)| needs.iter().map(move |p| json!({ "parent": p, "child": label })))
        .collect();
    let plan = call(
        &client,
        reqwest::Method::POST,
        format!("{}/api/curriculum/generate", served.base),
        &token,
        Some(json!({ "topic": "Python programming", "goal": "Write small programs that read files",
            "decomposition": { "root": "Python programming", "nodes": nodes, "edges": edges,
                "goal_node": "Reading files" } })),
    )
    .await;
    assert_eq!(plan["node_count"], 30, "{plan}");
    let map_id: MindMapId = serde_json::from_value(plan["mind_map_id"].clone()).unwrap();
    let map = get(&format!("/mind-maps/{map_id}")).await;
    let ids: HashMap<String, NodeId> = map["nodes"]
        .as_array()
        .unwrap()
        .iter()
        .map(|n| (n["label"].as_str().unwrap().to_string(), serde_json::from_value(n["id"].clone()).unwrap()))
        .collect();

    // The past, through the application on the same database with its own clock.
    let store = SqliteStore::open(&served.dir.path().join("data/pathwise.db")).await.unwrap();
    let clock = Arc::new(ManualClock::new(Utc::now() - Duration::days(12)));
    let app = App::with_clock(AnyStore::Sqlite(store), clock.clone());
    let record = |label: &str, quality: i64, kind: ResponseType| {
        clock.advance(Duration::minutes(2));
        let input = RecordResponse::new(
            ids[label],
            map_id,
            format!("Explain {label}."),
            Some("An answer"),
            quality,
            Some(kind),
        );
        let app = &app;
        async move { app.record_response(learner, input).await.unwrap() }
    };
    // Mastered twelve days ago: the root and two first concepts (a teach, then three reviews).
    for label in ["Python programming", "Variables", "Expressions"] {
        record(label, 5, ResponseType::Teach).await;
        for _ in 0..3 {
            record(label, 5, ResponseType::Review).await;
        }
    }
    // Diagnosed as known, never taught.
    record("Printing output", 4, ResponseType::Diagnostic).await;
    // Taught three days ago: a review falls due a day later.
    clock.set(Utc::now() - Duration::days(3));
    for label in DUE {
        record(label, 4, ResponseType::Teach).await;
    }
    let due = get(&format!("/mind-maps/{map_id}/pending-reviews")).await;
    let mut due_labels: Vec<&str> = due.as_array().unwrap().iter().map(|n| n["label"].as_str().unwrap()).collect();
    due_labels.sort();
    assert_eq!(due_labels, ["Booleans", "Numbers", "Strings"], "{due}");
    let summary = get(&format!("/mind-maps/{map_id}/mastery-summary")).await;
    assert_eq!(
        (summary["mastered_count"].as_u64(), summary["learning_count"].as_u64()),
        (Some(3), Some(3)),
        "{summary}"
    );

    // A course's map, made with the learner's first thread on the course: a node per unit.
    let post = |path: &str, body: Value| {
        call(&client, reqwest::Method::POST, format!("{}/api{path}", served.base), &token, Some(body))
    };
    post("/tutor/threads", json!({ "courseId": COURSE })).await;
    let courses = get("/courses").await;
    let course = courses.as_array().unwrap().iter().find(|c| c["id"] == COURSE).expect("the shipped course").clone();
    let snapshot = get(&format!("/tutor/courses/{COURSE}/snapshot")).await;
    let course_map = snapshot["mindMapId"].as_str().expect("the course's map").to_string();
    let course_summary = get(&format!("/mind-maps/{course_map}/mastery-summary")).await;
    assert_eq!(course_summary["total_nodes"], course["unitCount"], "as many concepts as units: {course_summary}");
    assert_eq!(snapshot["snapshotLite"]["progress"]["total"], course["unitCount"], "{snapshot}");

    let env = [
        ("MAP_ID", map_id.to_string()),
        ("REVIEW_LABEL", "Numbers".to_string()),
        ("COURSE_MAP_ID", course_map.clone()),
        ("COURSE_UNITS", course["unitCount"].to_string()),
        ("COURSE_TITLE", course["title"].as_str().unwrap().to_string()),
    ];
    let report = run_script("maps.mjs", &served, env).await;
    assert_eq!(report["nodes_drawn"], 30, "{report}");

    // What the page recorded is what the server holds: the review left the list, the node moved on.
    let node = get(&format!("/nodes/{}", ids["Numbers"])).await;
    assert_eq!(node["mastery_status"], "reviewing", "{node}");
    let history = get(&format!("/nodes/{}/history", ids["Numbers"])).await;
    assert_eq!(history[0]["response_type"], "review", "{history}");
    assert_eq!(history[0]["quality"], 4, "Good is SM-2 quality 4: {history}");
    assert_eq!(history[0]["user_answer"], "Integers and floats, with arithmetic", "{history}");
    let due = get(&format!("/mind-maps/{map_id}/pending-reviews")).await;
    assert_eq!(due.as_array().unwrap().len(), 2, "{due}");
    let flows = get("/flows").await;
    assert_eq!(flows["total"], 0, "the topic refused for want of a model stored nothing: {flows}");
    let maps = get("/mind-maps").await;
    let titles: Vec<&str> = maps["items"].as_array().unwrap().iter().map(|m| m["title"].as_str().unwrap()).collect();
    // The course's map came with the tutor's first turn on it; the outline made one map, not two.
    assert_eq!(
        titles,
        ["Graph algorithms", "Arithmetic to linear equations", "Python programming"],
        "one map of the pasted outline: {maps}"
    );
    // "Study this next" on the course's entry unit asked its tutor for a drill on that unit.
    let threads = get("/tutor/threads").await;
    let thread = threads["items"][0]["id"].as_str().unwrap().to_string();
    let messages = get(&format!("/tutor/threads/{thread}/messages")).await;
    let card = messages.as_array().unwrap().iter().rev().find_map(|m| m.get("card").filter(|c| !c.is_null())).cloned();
    assert!(card.is_some(), "the tutor answered with a card: {messages}");
    let learning = get("/session/").await;
    assert!(
        learning["items"].as_array().unwrap().iter().any(|s| s["session_type"] == "learning"),
        "study this next started a learning session on the map without a topic: {learning}"
    );
}

/// A choice question as the model writes it; "right" (index 0) is the key.
fn choice(concept: &str) -> Script {
    Script::json(json!({ "kind": "choice", "question": format!("Which is true of {concept}?"),
        "choices": ["right", "wrong", "also wrong"], "correct_index": 0 }))
}

#[tokio::test(flavor = "multi_thread")]
async fn a_topic_goes_round_the_learning_loop_in_the_browser() {
    if !ready() {
        return;
    }
    // The model's side of the loop, in the order the page's steps ask for it.
    let fake = FakeLlm::start().await;
    let concepts: Vec<Value> = ["Vertices", "Edges", "Paths", "Trees", "Shortest paths"]
        .iter()
        .map(|l| json!({ "label": l, "description": format!("{l} in a graph") }))
        .collect();
    let create = |l: &str| {
        (
            "mind_map_node_create".to_string(),
            json!({ "label": l, "description": format!("{l} in a graph"), "effort_minutes": 10 }),
        )
    };
    let edge =
        |p: &str, c: &str| ("mind_map_edge_create".to_string(), json!({ "parent_node_id": p, "child_node_id": c }));
    fake.script([
        Script::json(json!({ "concepts": concepts })),
        choice("Paths"),
        choice("Trees"),
        Script::ToolCalls(vec![create("Vertices"), create("Edges"), create("Paths")]),
        Script::ToolCalls(vec![edge("Vertices", "Edges"), edge("Edges", "Paths")]),
        Script::tool("finish", json!({ "goal_node_id": "Paths" })),
        Script::Text("Vertices are the points of a graph.\n\nEdges join two of them.".into()),
        choice("Vertices"),
        // "Study this next" on Vertices from the map.
        Script::Text("Vertices, once more: the points that edges join.".into()),
    ]);
    let served = serve(fake.base_url());
    let env = [("SCENARIO", "loop".to_string())];
    run_script("maps.mjs", &served, env).await;
    assert_eq!(fake.unused(), 0, "every scripted model reply was asked for");
}
