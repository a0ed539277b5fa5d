//! Conformance tests for `curriculum-planning.md`: one test per `#### Scenario`, named after
//! its title, run against SQLite and (with `PATHWISE_TEST_DATABASE_URL`) PostgreSQL.
//!
//! No language model is involved: `curriculum_generate` is `App::generate_from_decomposition`
//! with the decomposition supplied by the caller (it goes through the same validation a
//! model's output would), `curriculum_replan` is `App::replan` (its `add_nodes` stands in for
//! the concepts a model would add), `curriculum_next_node` is `App::next_node`,
//! `mind_map_node_create` is `App::create_node` and `mind_map_edge_create` is
//! `App::create_edge`. Depth follows README resolution 2 (longest prerequisite path from the
//! root), the lifecycle resolution 1, edges resolution 3, diagnostic seeding resolution 6.
//!
//! Left for the language-model work, because their substance is the model's judgement of a
//! topic: "Basic topic decomposition creates nodes and edges", "Goal-scoped plan excludes
//! off-path nodes" and "No-goal plan covers the topic comprehensively".

#[path = "../support/mod.rs"]
mod support;

mod decomposition;
mod diagnostics;
mod goals;
mod lifecycle;
mod next_node;
mod ordering;
mod replanning;
mod sequence;
mod structure;

use pathwise_app::curriculum::{
    parse_json, AddConceptInput, GenerateInput, PlanInput, PlanSummary, ReplanInput, ReplanResult,
};
use pathwise_app::maps::{CreateEdge, CreateMap, CreateNode, UpdateNode};
use pathwise_app::{AnyStore, AppError, AppResult, ErrorCode, ErrorKind};
use pathwise_domain::model::{Edge, Node};
use pathwise_domain::{EdgeType, MapStatus, MasteryStatus, MindMapId, NodeId, ResponseType};
use serde_json::{json, Value};
use std::collections::{BTreeMap, HashMap};
use support::{chain, TestApp};

// ---------------------------------------------------------------------------------------
// Helpers
// ---------------------------------------------------------------------------------------

/// A decomposition from `(label, effort)` pairs and `parent -> child` prerequisite edges.
fn dag(root: &str, nodes: &[(&str, i64)], edges: &[(&str, &str)]) -> Value {
    let nodes: Vec<Value> = nodes.iter().map(|(l, e)| json!({ "label": l, "effort_minutes": e })).collect();
    let edges: Vec<Value> = edges.iter().map(|(p, c)| json!({ "parent": p, "child": c })).collect();
    json!({ "root": root, "nodes": nodes, "edges": edges })
}

/// A 15-concept "Python Fundamentals" decomposition, deepest node at depth 5.
fn python_15() -> Value {
    dag(
        "Python Fundamentals",
        &[
            ("Python Fundamentals", 15),
            ("Variables", 10),
            ("Data Types", 20),
            ("Operators", 15),
            ("Conditionals", 20),
            ("Loops", 25),
            ("Strings", 20),
            ("Lists", 30),
            ("Functions", 30),
            ("Dictionaries", 25),
            ("List Comprehensions", 20),
            ("Modules", 20),
            ("Exceptions", 25),
            ("File I/O", 30),
            ("Classes", 45),
        ],
        &[
            ("Python Fundamentals", "Variables"),
            ("Python Fundamentals", "Data Types"),
            ("Python Fundamentals", "Operators"),
            ("Variables", "Conditionals"),
            ("Operators", "Conditionals"),
            ("Variables", "Loops"),
            ("Data Types", "Strings"),
            ("Data Types", "Lists"),
            ("Conditionals", "Functions"),
            ("Loops", "Functions"),
            ("Lists", "Dictionaries"),
            ("Lists", "List Comprehensions"),
            ("Loops", "List Comprehensions"),
            ("Functions", "Modules"),
            ("Functions", "Exceptions"),
            ("Functions", "File I/O"),
            ("Strings", "File I/O"),
            ("Modules", "Classes"),
        ],
    )
}

/// The learning order of `python_15` as generated: level (= depth on a fresh map), then
/// effort, then label.
const PYTHON_15_ORDER: [&str; 15] = [
    "Python Fundamentals",
    "Variables",
    "Operators",
    "Data Types",
    "Conditionals",
    "Strings",
    "Loops",
    "Lists",
    "List Comprehensions",
    "Dictionaries",
    "Functions",
    "Modules",
    "Exceptions",
    "File I/O",
    "Classes",
];

async fn try_generate(t: &TestApp, body: Value) -> AppResult<PlanSummary> {
    let input: GenerateInput = serde_json::from_value(body).expect("generate input");
    t.app.curriculum_generate(t.learner, input).await
}

async fn try_plan(t: &TestApp, topic: &str, decomposition: Value) -> AppResult<PlanSummary> {
    try_generate(t, json!({ "topic": topic, "decomposition": decomposition })).await
}

/// Labels in sequence order.
async fn order(t: &TestApp, map: MindMapId) -> Vec<String> {
    let mut nodes = t.map(map).await.nodes;
    nodes.sort_by_key(|n| n.sequence);
    nodes.into_iter().map(|n| n.label).collect()
}

/// Sequence by label.
async fn seqs(t: &TestApp, map: MindMapId) -> BTreeMap<String, i32> {
    t.map(map).await.nodes.into_iter().map(|n| (n.label, n.sequence.expect("every node has a sequence"))).collect()
}

async fn node_by_label(t: &TestApp, map: MindMapId, label: &str) -> Node {
    t.map(map).await.nodes.into_iter().find(|n| n.label == label).unwrap_or_else(|| panic!("no node '{label}'"))
}

fn labels(expected: &[&str]) -> Vec<String> {
    expected.iter().map(|s| s.to_string()).collect()
}

async fn set_status(t: &TestApp, id: NodeId, status: MasteryStatus) -> Node {
    t.app
        .update_node(t.learner, id, UpdateNode { mastery_status: Some(status), ..Default::default() })
        .await
        .unwrap_or_else(|e| panic!("transition to {status}: {e}"))
}

/// Master a node by hand, through the state machine: unseen/diagnosed -> learning ->
/// reviewing -> mastered.
async fn master(t: &TestApp, id: NodeId) {
    loop {
        let next = match t.node(id).await.mastery_status {
            MasteryStatus::Unseen | MasteryStatus::Diagnosed => MasteryStatus::Learning,
            MasteryStatus::Learning => MasteryStatus::Reviewing,
            MasteryStatus::Reviewing => MasteryStatus::Mastered,
            MasteryStatus::Mastered => return,
        };
        set_status(t, id, next).await;
    }
}

/// Master a node through quiz responses: a perfect teach answer and three perfect reviews
/// (graduation: score >= 0.85 and the last three reviews all 4 or 5). Score 1.0.
async fn graduate(t: &TestApp, map: MindMapId, id: NodeId) -> Node {
    t.record_later(map, id, 5, ResponseType::Teach).await;
    for _ in 0..3 {
        t.record_later(map, id, 5, ResponseType::Review).await;
    }
    let node = t.node(id).await;
    assert_eq!(node.mastery_status, MasteryStatus::Mastered);
    assert_eq!(node.mastery_score, 1.0);
    node
}

async fn next_label(t: &TestApp, map: MindMapId) -> Option<String> {
    t.app.next_node(t.learner, map).await.expect("next node").map(|n| n.label)
}

async fn replan(t: &TestApp, map: MindMapId, input: ReplanInput) -> ReplanResult {
    t.app.replan(t.learner, map, input).await.expect("replan")
}

fn concept(label: &str, effort: i64, prerequisites: Vec<NodeId>, prerequisite_of: Vec<NodeId>) -> AddConceptInput {
    AddConceptInput {
        label: label.to_string(),
        description: None,
        effort_minutes: effort,
        prerequisite_ids: prerequisites,
        prerequisite_of,
    }
}

fn edge_input(parent: NodeId, child: NodeId, edge_type: Option<EdgeType>) -> CreateEdge {
    CreateEdge { parent_node_id: parent, child_node_id: child, edge_type }
}

fn count(counts: &[(String, i64)], table: &str) -> i64 {
    counts.iter().find(|(t, _)| t == table).unwrap_or_else(|| panic!("no table {table}")).1
}

fn assert_error(error: &AppError, kind: ErrorKind, code: ErrorCode, message: &str) {
    assert_eq!((error.kind, error.code, error.message.as_str()), (kind, code, message), "{error:?}");
}

fn close(a: f64, b: f64) -> bool {
    (a - b).abs() < 1e-9
}

/// `SELECT label, sequence FROM mind_map_nodes WHERE mind_map_id = $1 ORDER BY sequence ASC`,
/// run directly against the store's database.
async fn sql_by_sequence(t: &TestApp, map: MindMapId) -> Vec<(String, Option<i64>)> {
    const SQL: &str = "SELECT label, sequence FROM mind_map_nodes WHERE mind_map_id = $1 ORDER BY sequence ASC";
    match t.app.store() {
        AnyStore::Postgres(store) => {
            let rows: Vec<(String, Option<i32>)> =
                sqlx::query_as(SQL).bind(map.0).fetch_all(store.pool()).await.expect("query");
            rows.into_iter().map(|(l, s)| (l, s.map(i64::from))).collect()
        }
        AnyStore::Sqlite(store) => {
            use sqlx::sqlite::SqliteConnectOptions;
            use sqlx::{ConnectOptions, Connection};
            let mut conn =
                SqliteConnectOptions::new().filename(store.path()).read_only(true).connect().await.expect("open");
            let rows: Vec<(String, Option<i64>)> =
                sqlx::query_as(SQL).bind(map.0).fetch_all(&mut conn).await.expect("query");
            conn.close().await.ok();
            rows
        }
    }
}
