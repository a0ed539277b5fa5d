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

mod support;

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

// ---------------------------------------------------------------------------------------
// Requirement: Topic decomposition into concept graph
// ---------------------------------------------------------------------------------------

async fn every_node_has_a_populated_effort_estimate(t: &TestApp) {
    let plan = t.plan("Python Fundamentals", python_15()).await;
    let agg = t.map(plan.mind_map_id).await;
    assert_eq!(agg.nodes.len(), 15);
    for node in &agg.nodes {
        let effort = node.effort_minutes.unwrap_or_else(|| panic!("'{}' has no effort", node.label));
        assert!(effort > 0, "'{}' has effort {effort}", node.label);
    }
    let efforts: HashMap<String, Option<i32>> = agg.nodes.iter().map(|n| (n.label.clone(), n.effort_minutes)).collect();
    assert_eq!(efforts["Variables"], Some(10));
    assert_eq!(efforts["Classes"], Some(45));

    let before = t.counts().await;
    // Zero and negative efforts are refused, naming the field.
    for bad in [0, -5] {
        let err =
            try_plan(t, "Bad", dag("Root", &[("Root", 10), ("Zero", bad)], &[("Root", "Zero")])).await.unwrap_err();
        assert_error(
            &err,
            ErrorKind::Invalid,
            ErrorCode::Invalid,
            &format!(
                "nodes[1].effort_minutes: {bad} is not allowed; effort is a whole number of minutes from 1 to 10000"
            ),
        );
    }
    // A missing or null effort does not even parse.
    for node in [json!({ "label": "Missing" }), json!({ "label": "Null", "effort_minutes": null })] {
        let body = json!({
            "topic": "Bad",
            "decomposition": { "root": "Root", "nodes": [{ "label": "Root", "effort_minutes": 10 }, node], "edges": [] }
        });
        let err = parse_json::<GenerateInput>(&body.to_string()).unwrap_err();
        assert_eq!(err.kind, ErrorKind::BadRequest);
        assert_eq!(err.code, ErrorCode::MalformedJson);
        assert!(err.message.starts_with("decomposition.nodes[1]"), "{}", err.message);
        assert!(err.message.contains("effort_minutes"), "{}", err.message);
    }
    // A node created one at a time is held to the same rule.
    let ids = t.ids(plan.mind_map_id).await;
    let input = CreateNode {
        label: "Zero effort".into(),
        description: None,
        effort_minutes: Some(0),
        prerequisite_ids: vec![ids["Variables"]],
        metadata: None,
    };
    let err = t.app.create_node(t.learner, plan.mind_map_id, input).await.unwrap_err();
    assert_error(
        &err,
        ErrorKind::Invalid,
        ErrorCode::Invalid,
        "effort_minutes: 0 is not allowed; effort is a whole number of minutes from 1 to 10000",
    );
    assert_eq!(t.counts().await, before);
}

async fn root_node_is_recorded_on_the_mind_map(t: &TestApp) {
    // The root is listed last, and "Deepest" is reachable by a short and a long path.
    let decomposition = dag(
        "Topic",
        &[("Basics", 10), ("Deeper", 10), ("Deepest", 10), ("Shortcut", 10), ("Topic", 20)],
        &[
            ("Topic", "Basics"),
            ("Basics", "Deeper"),
            ("Deeper", "Deepest"),
            ("Topic", "Deepest"),
            ("Topic", "Shortcut"),
        ],
    );
    let plan = t.plan("Topic", decomposition).await;
    let agg = t.map(plan.mind_map_id).await;
    let ids = t.ids(plan.mind_map_id).await;
    assert_eq!(agg.map.root_node_id, Some(ids["Topic"]));
    assert_eq!(plan.root_node_id, Some(ids["Topic"]));
    let depths: BTreeMap<String, i32> = agg.nodes.iter().map(|n| (n.label.clone(), n.depth)).collect();
    assert_eq!(
        depths,
        BTreeMap::from([
            ("Basics".to_string(), 1),
            ("Deeper".to_string(), 2),
            ("Deepest".to_string(), 3),
            ("Shortcut".to_string(), 1),
            ("Topic".to_string(), 0),
        ])
    );
    for node in agg.nodes.iter().filter(|n| n.id != ids["Topic"]) {
        assert!(node.depth >= 1, "'{}' has depth {}", node.label, node.depth);
    }
}

async fn all_edges_are_prerequisite_edges_by_default(t: &TestApp) {
    let mut decomposition =
        dag("Root", &[("Root", 10), ("A", 10), ("B", 10), ("C", 10)], &[("Root", "A"), ("Root", "B"), ("Root", "C")]);
    decomposition["edges"].as_array_mut().unwrap().push(json!({ "parent": "A", "child": "C", "edge_type": "related" }));
    let plan = t.plan("Edges", decomposition).await;
    let ids = t.ids(plan.mind_map_id).await;
    let agg = t.map(plan.mind_map_id).await;
    for edge in &agg.edges {
        let expected = if (edge.parent_node_id, edge.child_node_id) == (ids["A"], ids["C"]) {
            EdgeType::Related
        } else {
            EdgeType::Prerequisite
        };
        assert_eq!(edge.edge_type, expected);
    }

    // mind_map_edge_create without an edge_type.
    let created =
        t.app.create_edge(t.learner, plan.mind_map_id, edge_input(ids["A"], ids["B"], None)).await.expect("edge");
    assert_eq!(created.edge_type, EdgeType::Prerequisite);
    let stored = t.map(plan.mind_map_id).await;
    let persisted =
        stored.edges.iter().find(|e| (e.parent_node_id, e.child_node_id) == (ids["A"], ids["B"])).expect("persisted");
    assert_eq!(persisted.edge_type, EdgeType::Prerequisite);
    // It gates like a prerequisite: B is now a level deeper.
    assert_eq!(stored.node(ids["B"]).unwrap().depth, 2);
}

// ---------------------------------------------------------------------------------------
// Requirement: Structural constraints on concept graph
// ---------------------------------------------------------------------------------------

async fn edge_creating_a_cycle_is_rejected(t: &TestApp) {
    let plan = t.plan("Cycle", chain(&["A", "B", "C"])).await;
    let ids = t.ids(plan.mind_map_id).await;
    let map_before = t.map(plan.mind_map_id).await;
    let before = t.counts().await;

    let err = t.app.create_edge(t.learner, plan.mind_map_id, edge_input(ids["C"], ids["A"], None)).await.unwrap_err();
    assert_error(&err, ErrorKind::Invalid, ErrorCode::Cycle, "cycle: C -> A -> B -> C");
    assert_eq!(err.details["cycle"], json!(["C", "A", "B", "C"]));

    let err = t
        .app
        .create_edge(t.learner, plan.mind_map_id, edge_input(ids["C"], ids["B"], Some(EdgeType::Prerequisite)))
        .await
        .unwrap_err();
    assert_error(&err, ErrorKind::Invalid, ErrorCode::Cycle, "cycle: C -> B -> C");

    assert_eq!(t.counts().await, before);
    assert_eq!(t.map(plan.mind_map_id).await, map_before);

    // A decomposition holding a cycle is refused as a whole.
    let cyclic = dag(
        "Root",
        &[("Root", 10), ("A", 10), ("B", 10), ("C", 10)],
        &[("Root", "A"), ("A", "B"), ("B", "C"), ("C", "A")],
    );
    let err = try_plan(t, "Cyclic", cyclic).await.unwrap_err();
    assert_error(&err, ErrorKind::Invalid, ErrorCode::Cycle, "cycle: A -> B -> C -> A");
    assert_eq!(t.counts().await, before);
}

async fn graph_exceeding_30_nodes_is_rejected(t: &TestApp) {
    let star = |n: usize| {
        let mut nodes = vec![("Root".to_string(), 10)];
        nodes.extend((1..n).map(|i| (format!("Concept {i}"), 10)));
        let nodes: Vec<(&str, i64)> = nodes.iter().map(|(l, e)| (l.as_str(), *e)).collect();
        let edges: Vec<(&str, &str)> = nodes[1..].iter().map(|(l, _)| ("Root", *l)).collect();
        dag("Root", &nodes, &edges)
    };
    let before = t.counts().await;
    let err = try_plan(t, "Too big", star(31)).await.unwrap_err();
    assert_error(
        &err,
        ErrorKind::Invalid,
        ErrorCode::MaxNodes,
        "node_count: a single-topic map holds at most 30 nodes; this would make 31",
    );
    assert_eq!(err.details, json!({ "field": "nodes", "count": 31, "max_nodes": 30 }));
    // Rolled back: no map, no nodes, no edges.
    assert_eq!(t.counts().await, before);
    assert_eq!(t.app.list_maps(t.learner, None, None, None).await.unwrap().total, 0);

    // A full map refuses a 31st node, one at a time or through a re-plan.
    let plan = t.plan("Full", star(30)).await;
    let root = plan.root_node_id.unwrap();
    let full = t.counts().await;
    let input = CreateNode {
        label: "One too many".into(),
        description: None,
        effort_minutes: Some(5),
        prerequisite_ids: vec![root],
        metadata: None,
    };
    let err = t.app.create_node(t.learner, plan.mind_map_id, input).await.unwrap_err();
    assert_eq!(err.code, ErrorCode::MaxNodes);
    assert_eq!(err.message, "node_count: a single-topic map holds at most 30 nodes; this would make 31");
    let input = ReplanInput { reason: None, add_nodes: vec![concept("One too many", 5, vec![root], vec![])] };
    let err = t.app.replan(t.learner, plan.mind_map_id, input).await.unwrap_err();
    assert_eq!(err.code, ErrorCode::MaxNodes);
    assert_eq!(t.counts().await, full);
}

async fn node_at_depth_exceeding_5_is_rejected(t: &TestApp) {
    let mut decomposition = chain(&["L0", "L1", "L2", "L3", "L4", "L5"]);
    decomposition["nodes"].as_array_mut().unwrap().push(json!({ "label": "Side", "effort_minutes": 10 }));
    decomposition["edges"].as_array_mut().unwrap().push(json!({ "parent": "L0", "child": "Side" }));
    let plan = t.plan("Deep", decomposition).await;
    let ids = t.ids(plan.mind_map_id).await;
    assert_eq!(t.node(ids["L5"]).await.depth, 5);
    let map_before = t.map(plan.mind_map_id).await;
    let before = t.counts().await;

    // mind_map_node_create at depth 6.
    let input = CreateNode {
        label: "L6".into(),
        description: None,
        effort_minutes: Some(10),
        prerequisite_ids: vec![ids["L5"]],
        metadata: None,
    };
    let err = t.app.create_node(t.learner, plan.mind_map_id, input).await.unwrap_err();
    assert_error(
        &err,
        ErrorKind::Invalid,
        ErrorCode::MaxDepth,
        "depth: 'L6' would be at depth 6, and the deepest allowed is 5 (the root is depth 0)",
    );
    assert_eq!(err.details, json!({ "field": "depth", "label": "L6", "depth": 6, "max_depth": 5 }));

    // An edge that would push an existing node to depth 6.
    let err =
        t.app.create_edge(t.learner, plan.mind_map_id, edge_input(ids["L5"], ids["Side"], None)).await.unwrap_err();
    assert_error(
        &err,
        ErrorKind::Invalid,
        ErrorCode::MaxDepth,
        "depth: 'Side' would be at depth 6, and the deepest allowed is 5 (the root is depth 0)",
    );

    // A concept a re-plan would add below the deepest node.
    let input =
        ReplanInput { reason: Some("too shallow".into()), add_nodes: vec![concept("L6", 10, vec![ids["L5"]], vec![])] };
    let err = t.app.replan(t.learner, plan.mind_map_id, input).await.unwrap_err();
    assert_eq!(err.code, ErrorCode::MaxDepth);

    assert_eq!(t.counts().await, before);
    assert_eq!(t.map(plan.mind_map_id).await, map_before);

    // A decomposition seven levels deep.
    let err = try_plan(t, "Too deep", chain(&["L0", "L1", "L2", "L3", "L4", "L5", "L6"])).await.unwrap_err();
    assert_error(
        &err,
        ErrorKind::Invalid,
        ErrorCode::MaxDepth,
        "depth: 'L6' would be at depth 6, and the deepest allowed is 5 (the root is depth 0)",
    );
    assert_eq!(t.counts().await, before);
}

async fn a_graph_with_exactly_30_nodes_and_depth_5_is_accepted(t: &TestApp) {
    // A spine C0 -> ... -> C5 and 24 more concepts hanging from it at depths 1 to 5, some
    // also reachable by a shortcut from the root.
    let mut nodes: Vec<(String, i64)> = (0..=5).map(|i| (format!("C{i}"), 10 + i as i64)).collect();
    let mut edges: Vec<(String, String)> = (1..=5).map(|i| (format!("C{}", i - 1), format!("C{i}"))).collect();
    for i in 1..=24usize {
        nodes.push((format!("N{i}"), (i as i64 % 7) * 5 + 5));
        edges.push((format!("C{}", (i - 1) % 5), format!("N{i}")));
        if i % 3 == 0 && (i - 1) % 5 != 0 {
            edges.push(("C0".to_string(), format!("N{i}")));
        }
    }
    assert_eq!((nodes.len(), edges.len()), (30, 35));
    let node_refs: Vec<(&str, i64)> = nodes.iter().map(|(l, e)| (l.as_str(), *e)).collect();
    let edge_refs: Vec<(&str, &str)> = edges.iter().map(|(p, c)| (p.as_str(), c.as_str())).collect();

    let before = t.counts().await;
    let plan = t.plan("Thirty", dag("C0", &node_refs, &edge_refs)).await;
    assert_eq!(plan.node_count, 30);
    assert_eq!(plan.edge_count, 35);
    assert_eq!(plan.status, MapStatus::Active);

    let after = t.counts().await;
    assert_eq!(count(&after, "mind_maps") - count(&before, "mind_maps"), 1);
    assert_eq!(count(&after, "mind_map_nodes") - count(&before, "mind_map_nodes"), 30);
    assert_eq!(count(&after, "mind_map_edges") - count(&before, "mind_map_edges"), 35);

    let agg = t.map(plan.mind_map_id).await;
    assert_eq!((agg.nodes.len(), agg.edges.len()), (30, 35));
    assert_eq!(agg.nodes.iter().map(|n| n.depth).max(), Some(5));
    let mut sequences: Vec<i32> = agg.nodes.iter().filter_map(|n| n.sequence).collect();
    sequences.sort_unstable();
    assert_eq!(sequences, (1..=30).collect::<Vec<_>>());
}

async fn a_self_loop_edge_is_rejected(t: &TestApp) {
    let plan = t.plan("Loops", chain(&["Root", "X"])).await;
    let ids = t.ids(plan.mind_map_id).await;
    let map_before = t.map(plan.mind_map_id).await;
    let before = t.counts().await;
    for (label, edge_type) in [("X", None), ("Root", None), ("X", Some(EdgeType::Related))] {
        let id = ids[label];
        let err = t.app.create_edge(t.learner, plan.mind_map_id, edge_input(id, id, edge_type)).await.unwrap_err();
        assert_error(
            &err,
            ErrorKind::Invalid,
            ErrorCode::SelfLoop,
            &format!("self-loop: '{label}' cannot be its own prerequisite"),
        );
    }
    assert_eq!(t.counts().await, before);
    assert_eq!(t.map(plan.mind_map_id).await, map_before);

    let looped = dag("Root", &[("Root", 10), ("X", 10)], &[("Root", "X"), ("X", "X")]);
    let err = try_plan(t, "Looped", looped).await.unwrap_err();
    assert_error(&err, ErrorKind::Invalid, ErrorCode::SelfLoop, "self-loop: 'X' cannot be its own prerequisite");
    assert_eq!(t.counts().await, before);
}

// ---------------------------------------------------------------------------------------
// Requirement: Topological sort with tie-breaking
// ---------------------------------------------------------------------------------------

async fn shallower_node_ranks_before_deeper_node_at_same_topological_level(t: &TestApp) {
    // A is shallow but costly; B is deep but quick. Depth decides.
    let decomposition =
        dag("Root", &[("Root", 10), ("A", 60), ("M", 5), ("B", 5)], &[("Root", "A"), ("Root", "M"), ("M", "B")]);
    let plan = t.plan("Depth", decomposition).await;
    let map = plan.mind_map_id;
    let ids = t.ids(map).await;
    master(t, ids["Root"]).await;
    master(t, ids["M"]).await;
    replan(t, map, ReplanInput::default()).await;

    let (a, b) = (t.node(ids["A"]).await, t.node(ids["B"]).await);
    assert_eq!((a.depth, b.depth), (1, 2));
    let frontier: Vec<NodeId> = t.app.frontier(t.learner, map).await.unwrap().iter().map(|n| n.id).collect();
    assert_eq!(frontier, vec![ids["A"], ids["B"]], "both are topologically available");
    assert!(a.sequence < b.sequence);
    assert_eq!(order(t, map).await, labels(&["A", "B", "Root", "M"]));
    assert_eq!(t.app.next_node(t.learner, map).await.unwrap().unwrap().id, ids["A"]);
}

async fn lower_effort_node_ranks_before_higher_effort_node_at_same_depth(t: &TestApp) {
    let decomposition =
        dag("Root", &[("Root", 10), ("P", 10), ("D", 45), ("C", 10)], &[("Root", "P"), ("P", "D"), ("P", "C")]);
    let plan = t.plan("Effort", decomposition).await;
    let map = plan.mind_map_id;
    let ids = t.ids(map).await;
    assert_eq!((t.node(ids["C"]).await.depth, t.node(ids["D"]).await.depth), (2, 2));
    assert_eq!(order(t, map).await, labels(&["Root", "P", "C", "D"]));

    // Both topologically available.
    master(t, ids["Root"]).await;
    master(t, ids["P"]).await;
    replan(t, map, ReplanInput::default()).await;
    let (c, d) = (t.node(ids["C"]).await, t.node(ids["D"]).await);
    assert_eq!((c.sequence, d.sequence), (Some(1), Some(2)));
    assert_eq!(t.app.next_node(t.learner, map).await.unwrap().unwrap().id, ids["C"]);

    // Effort, not the label, decides.
    let decomposition = dag(
        "Root",
        &[("Root", 10), ("P", 10), ("Alpha", 45), ("Omega", 10)],
        &[("Root", "P"), ("P", "Alpha"), ("P", "Omega")],
    );
    let plan = t.plan("Effort again", decomposition).await;
    assert_eq!(order(t, plan.mind_map_id).await, labels(&["Root", "P", "Omega", "Alpha"]));
}

async fn diagnosed_node_ranks_before_unseen_node_at_same_depth_and_effort(t: &TestApp) {
    let decomposition =
        |_: ()| dag("Root", &[("Root", 10), ("P", 10), ("F", 20), ("E", 20)], &[("Root", "P"), ("P", "F"), ("P", "E")]);
    let plan = t
        .plan_with(json!({
            "topic": "Diagnosed first",
            "diagnostic_results": { "node_label": "E", "quality": 4 },
            "decomposition": decomposition(()),
        }))
        .await;
    let map = plan.mind_map_id;
    let (e, f) = (node_by_label(t, map, "E").await, node_by_label(t, map, "F").await);
    assert_eq!((e.depth, e.effort_minutes, e.mastery_status), (2, Some(20), MasteryStatus::Diagnosed));
    assert_eq!((f.depth, f.effort_minutes, f.mastery_status), (2, Some(20), MasteryStatus::Unseen));
    assert_eq!((e.sequence, f.sequence), (Some(3), Some(4)));

    // Still so once both are available.
    let ids = t.ids(map).await;
    master(t, ids["Root"]).await;
    master(t, ids["P"]).await;
    replan(t, map, ReplanInput::default()).await;
    assert_eq!(order(t, map).await, labels(&["E", "F", "Root", "P"]));

    // The status decides, not the label: diagnose F instead and F comes first.
    let plan = t
        .plan_with(json!({
            "topic": "Diagnosed first, mirrored",
            "diagnostic_results": [{ "node_label": "F", "quality": 4 }],
            "decomposition": decomposition(()),
        }))
        .await;
    assert_eq!(order(t, plan.mind_map_id).await, labels(&["Root", "P", "F", "E"]));

    // A node in `learning` is partially known too.
    let plan = t.plan("Learning first", decomposition(())).await;
    let map = plan.mind_map_id;
    let ids = t.ids(map).await;
    assert_eq!(order(t, map).await, labels(&["Root", "P", "E", "F"]));
    set_status(t, ids["F"], MasteryStatus::Learning).await;
    replan(t, map, ReplanInput::default()).await;
    assert_eq!(order(t, map).await, labels(&["Root", "P", "F", "E"]));
}

async fn topological_constraint_takes_precedence_over_all_tie_breaking_criteria(t: &TestApp) {
    // G (depth 1, 5 min) needs H; I (depth 3, 60 min) needs K, which is mastered (and so
    // is J before it).
    let decomposition = dag(
        "H",
        &[("H", 10), ("G", 5), ("J", 10), ("K", 10), ("I", 60)],
        &[("H", "G"), ("H", "J"), ("J", "K"), ("K", "I")],
    );
    let plan = t.plan("Precedence", decomposition).await;
    let map = plan.mind_map_id;
    let ids = t.ids(map).await;
    assert_eq!(order(t, map).await, labels(&["H", "G", "J", "K", "I"]));
    master(t, ids["J"]).await;
    master(t, ids["K"]).await;
    replan(t, map, ReplanInput::default()).await;

    let (g, i) = (t.node(ids["G"]).await, t.node(ids["I"]).await);
    assert_eq!((g.depth, g.effort_minutes), (1, Some(5)));
    assert_eq!((i.depth, i.effort_minutes), (3, Some(60)));
    assert_eq!(t.node(ids["H"]).await.mastery_status, MasteryStatus::Unseen);
    assert!(i.sequence < g.sequence, "I {:?} must come before G {:?}", i.sequence, g.sequence);
    assert_eq!(order(t, map).await, labels(&["H", "I", "G", "J", "K"]));
}

async fn sort_is_deterministic_across_multiple_calls(t: &TestApp) {
    let body = |decomposition: Value| {
        json!({
            "topic": "Python Fundamentals",
            "diagnostic_results": [{ "node_label": "Strings", "quality": 4 }],
            "decomposition": decomposition,
            // The same topic planned again on purpose, to compare the plans.
            "on_existing": "new",
        })
    };
    let first = t.plan_with(body(python_15())).await;
    let second = t.plan_with(body(python_15())).await;
    assert_ne!(first.mind_map_id, second.mind_map_id);
    let expected = seqs(t, first.mind_map_id).await;
    assert_eq!(seqs(t, second.mind_map_id).await, expected);
    // The diagnosed "Strings" goes before "Conditionals" (same depth and effort).
    assert_eq!((expected["Strings"], expected["Conditionals"]), (5, 6));

    // The same graph written in another order.
    let mut shuffled = python_15();
    shuffled["nodes"].as_array_mut().unwrap().reverse();
    shuffled["edges"].as_array_mut().unwrap().reverse();
    let third = t.plan_with(body(shuffled)).await;
    assert_eq!(seqs(t, third.mind_map_id).await, expected);

    // Re-plans of an unchanged graph agree too.
    for plan in [&first, &second, &third] {
        replan(t, plan.mind_map_id, ReplanInput::default()).await;
        assert_eq!(seqs(t, plan.mind_map_id).await, expected);
    }

    // Full ties (same depth, effort and status) are settled by label, every time.
    let star = dag(
        "Root",
        &[("Root", 10), ("Kiwi", 10), ("apple", 10), ("Mango", 10), ("banana", 10)],
        &[("Root", "Kiwi"), ("Root", "apple"), ("Root", "Mango"), ("Root", "banana")],
    );
    for _ in 0..2 {
        let plan = t.plan_with(json!({ "topic": "Fruit", "decomposition": star, "on_existing": "new" })).await;
        assert_eq!(order(t, plan.mind_map_id).await, labels(&["Root", "apple", "banana", "Kiwi", "Mango"]));
    }
}

// ---------------------------------------------------------------------------------------
// Requirement: Sequence numbering on nodes
// ---------------------------------------------------------------------------------------

async fn all_nodes_receive_unique_sequence_numbers_after_generation(t: &TestApp) {
    let plan = t.plan("Python Fundamentals", python_15()).await;
    assert_eq!(plan.node_count, 15);
    let agg = t.map(plan.mind_map_id).await;
    let mut sequences: Vec<i32> = agg.nodes.iter().map(|n| n.sequence.expect("non-null sequence")).collect();
    sequences.sort_unstable();
    assert_eq!(sequences, (1..=15).collect::<Vec<_>>());
    assert_eq!(order(t, plan.mind_map_id).await, labels(&PYTHON_15_ORDER));
    // And it is a learning order: every prerequisite comes first.
    let seq: HashMap<NodeId, i32> = agg.nodes.iter().map(|n| (n.id, n.sequence.unwrap())).collect();
    for edge in &agg.edges {
        assert!(seq[&edge.parent_node_id] < seq[&edge.child_node_id]);
    }
}

async fn sequence_numbers_are_stable_across_node_additions(t: &TestApp) {
    let decomposition = dag(
        "Algebra",
        &[
            ("Algebra", 10),
            ("Numbers", 10),
            ("Symbols", 15),
            ("Equality", 20),
            ("Expressions", 10),
            ("Terms", 15),
            ("Balance", 20),
            ("Like Terms", 10),
            ("Linear Equations", 20),
            ("Substitution", 30),
        ],
        &[
            ("Algebra", "Numbers"),
            ("Algebra", "Symbols"),
            ("Algebra", "Equality"),
            ("Numbers", "Expressions"),
            ("Symbols", "Expressions"),
            ("Symbols", "Terms"),
            ("Equality", "Balance"),
            ("Terms", "Like Terms"),
            ("Expressions", "Linear Equations"),
            ("Balance", "Linear Equations"),
            ("Expressions", "Substitution"),
        ],
    );
    let plan = t.plan("Algebra", decomposition).await;
    let map = plan.mind_map_id;
    let ids = t.ids(map).await;
    let original = seqs(t, map).await;
    assert_eq!(
        order(t, map).await,
        labels(&[
            "Algebra",
            "Numbers",
            "Symbols",
            "Equality",
            "Expressions",
            "Terms",
            "Balance",
            "Like Terms",
            "Linear Equations",
            "Substitution",
        ])
    );

    let input = ReplanInput {
        reason: Some("extend the plan".into()),
        add_nodes: vec![
            concept("Systems of Equations", 30, vec![ids["Linear Equations"]], vec![]),
            concept("Inequalities", 40, vec![ids["Linear Equations"]], vec![]),
        ],
    };
    let result = replan(t, map, input).await;
    assert_eq!(result.summary.node_count, 12);
    assert_eq!(result.added_node_ids.len(), 2);
    let after = seqs(t, map).await;
    for (label, sequence) in &original {
        assert_eq!(after[label], *sequence, "'{label}' moved");
    }
    assert_eq!((after["Systems of Equations"], after["Inequalities"]), (11, 12));
    assert_eq!(t.node(result.added_node_ids[0]).await.label, "Systems of Equations");

    // A node created one at a time goes last until the next re-plan places it.
    let input = CreateNode {
        label: "Quadratics".into(),
        description: None,
        effort_minutes: Some(50),
        prerequisite_ids: vec![ids["Linear Equations"]],
        metadata: None,
    };
    let created = t.app.create_node(t.learner, map, input).await.expect("node");
    assert_eq!(created.sequence, Some(13));
    replan(t, map, ReplanInput::default()).await;
    let mut expected = after.clone();
    expected.insert("Quadratics".into(), 13);
    assert_eq!(seqs(t, map).await, expected);
}

async fn sequence_is_queryable_and_sortable_via_sql(t: &TestApp) {
    let plan = t.plan("Python Fundamentals", python_15()).await;
    let map = plan.mind_map_id;
    let rows = sql_by_sequence(t, map).await;
    let expected: Vec<(String, Option<i64>)> =
        PYTHON_15_ORDER.iter().enumerate().map(|(i, l)| (l.to_string(), Some(i as i64 + 1))).collect();
    assert_eq!(rows, expected);

    // After progress and a re-plan the stored order is still the learning order: the root,
    // mastered with a perfect score and so skippable, has left the sequence; the others are
    // numbered 1..14 without gaps.
    let ids = t.ids(map).await;
    graduate(t, map, ids["Python Fundamentals"]).await;
    replan(t, map, ReplanInput::default()).await;
    let rows: Vec<(String, Option<i64>)> =
        sql_by_sequence(t, map).await.into_iter().filter(|(_, sequence)| sequence.is_some()).collect();
    let learning_order: Vec<&str> = PYTHON_15_ORDER[1..].to_vec();
    assert_eq!(rows.iter().map(|(l, _)| l.as_str()).collect::<Vec<_>>(), learning_order);
    assert_eq!(rows.iter().map(|(_, s)| *s).collect::<Vec<_>>(), (1..=14).map(Some).collect::<Vec<_>>());
    assert_eq!(t.node(ids["Python Fundamentals"]).await.sequence, None);
}

// ---------------------------------------------------------------------------------------
// Requirement: Re-planning updates sequence without destroying structure
// ---------------------------------------------------------------------------------------

async fn re_plan_reorders_sequence_after_mastery_state_change(t: &TestApp) {
    let decomposition = dag(
        "Root",
        &[("Root", 10), ("A", 30), ("B", 5), ("C", 10), ("D", 10), ("F", 20)],
        &[("Root", "A"), ("A", "B"), ("Root", "C"), ("C", "D"), ("Root", "F")],
    );
    let plan = t.plan("Replan", decomposition).await;
    let map = plan.mind_map_id;
    let ids = t.ids(map).await;
    assert_eq!(order(t, map).await, labels(&["Root", "C", "F", "A", "B", "D"]));
    master(t, ids["Root"]).await;
    replan(t, map, ReplanInput::default()).await;
    let last_plan = seqs(t, map).await;
    assert_eq!(order(t, map).await, labels(&["C", "F", "A", "B", "D", "Root"]));
    assert_eq!(t.node(ids["A"]).await.mastery_status, MasteryStatus::Unseen);

    // A goes from unseen to mastered.
    master(t, ids["A"]).await;
    let result = replan(t, map, ReplanInput::default()).await;
    let now = seqs(t, map).await;
    assert_eq!(
        result.sequence.iter().map(|n| n.label.as_str()).collect::<Vec<_>>(),
        vec!["C", "F", "B", "D", "A", "Root"]
    );
    // A left the active sequence: everything still to learn comes before it.
    let open = ["C", "F", "B", "D"];
    assert!(open.iter().all(|l| now[*l] < now["A"]));
    assert_ne!(t.app.next_node(t.learner, map).await.unwrap().unwrap().id, ids["A"]);
    // B, blocked only by A, moved up (4 -> 3) and is on the frontier now.
    assert_eq!((last_plan["B"], now["B"]), (4, 3));
    let frontier: Vec<NodeId> = t.app.frontier(t.learner, map).await.unwrap().iter().map(|n| n.id).collect();
    assert!(frontier.contains(&ids["B"]));
}

async fn re_plan_with_reason_triggers_optional_llm_node_addition(t: &TestApp) {
    let decomposition = dag(
        "Python",
        &[("Python", 10), ("Functions", 20), ("Loops", 15), ("Recursion", 30), ("Tail Recursion", 25)],
        &[("Python", "Functions"), ("Python", "Loops"), ("Functions", "Recursion"), ("Recursion", "Tail Recursion")],
    );
    let plan = t.plan("Python", decomposition).await;
    let map = plan.mind_map_id;
    let ids = t.ids(map).await;
    assert_eq!(order(t, map).await, labels(&["Python", "Loops", "Functions", "Recursion", "Tail Recursion"]));

    let stack_frames = AddConceptInput {
        label: "Stack Frames".into(),
        description: Some("How each call gets its own frame on the call stack".into()),
        effort_minutes: 15,
        prerequisite_ids: vec![ids["Functions"]],
        prerequisite_of: vec![ids["Recursion"], ids["Tail Recursion"]],
    };
    let input =
        ReplanInput { reason: Some("user struggling with recursion subtree".into()), add_nodes: vec![stack_frames] };
    let result = replan(t, map, input).await;
    assert_eq!(result.added_node_ids.len(), 1);
    let added = t.node(result.added_node_ids[0]).await;
    assert_eq!(added.label, "Stack Frames");
    assert_eq!(added.effort_minutes, Some(15));
    assert_eq!(added.depth, 2);
    assert_eq!(added.mastery_status, MasteryStatus::Unseen);

    let agg = t.map(map).await;
    for (parent, child) in
        [(ids["Functions"], added.id), (added.id, ids["Recursion"]), (added.id, ids["Tail Recursion"])]
    {
        let edge = agg.edges.iter().find(|e| (e.parent_node_id, e.child_node_id) == (parent, child)).expect("edge");
        assert_eq!(edge.edge_type, EdgeType::Prerequisite);
    }
    assert_eq!((result.summary.node_count, result.summary.edge_count), (6, 7));
    // Depths follow the new prerequisite, and the whole sequence is recomputed.
    assert_eq!(agg.node(ids["Recursion"]).unwrap().depth, 3);
    assert_eq!(agg.node(ids["Tail Recursion"]).unwrap().depth, 4);
    let expected = ["Python", "Loops", "Functions", "Stack Frames", "Recursion", "Tail Recursion"];
    assert_eq!(order(t, map).await, labels(&expected));
    assert_eq!(result.sequence.iter().map(|n| n.label.as_str()).collect::<Vec<_>>(), expected);
    assert_eq!(result.sequence.iter().map(|n| n.sequence).collect::<Vec<_>>(), (1..=6).map(Some).collect::<Vec<_>>());
}

async fn re_plan_preserves_existing_edge_structure(t: &TestApp) {
    let nodes: Vec<(&str, i64)> = vec![
        ("Topic", 10),
        ("A1", 10),
        ("A2", 20),
        ("A3", 30),
        ("A4", 40),
        ("B1", 10),
        ("B2", 20),
        ("B3", 30),
        ("B4", 40),
        ("B5", 50),
        ("C1", 10),
        ("C2", 20),
        ("C3", 30),
        ("C4", 40),
        ("C5", 50),
        ("D1", 10),
        ("D2", 20),
        ("D3", 30),
        ("D4", 40),
        ("E1", 10),
    ];
    let edges = [
        ("Topic", "A1"),
        ("Topic", "A2"),
        ("Topic", "A3"),
        ("Topic", "A4"),
        ("A1", "B1"),
        ("A1", "B2"),
        ("A2", "B2"),
        ("A2", "B3"),
        ("A3", "B4"),
        ("A3", "B5"),
        ("A4", "B5"),
        ("B1", "C1"),
        ("B2", "C2"),
        ("B3", "C2"),
        ("B3", "C3"),
        ("B4", "C4"),
        ("B5", "C5"),
        ("C1", "D1"),
        ("C2", "D1"),
        ("C3", "D2"),
        ("C4", "D3"),
        ("C5", "D4"),
        ("D1", "E1"),
        ("D4", "E1"),
    ];
    let mut decomposition = dag("Topic", &nodes, &edges);
    for (p, c) in [("A1", "A4"), ("C1", "C5")] {
        decomposition["edges"].as_array_mut().unwrap().push(json!({ "parent": p, "child": c, "edge_type": "related" }));
    }
    let plan = t.plan("Twenty", decomposition).await;
    let map = plan.mind_map_id;
    assert_eq!((plan.node_count, plan.edge_count), (20, 26));
    let ids = t.ids(map).await;
    graduate(t, map, ids["Topic"]).await;
    master(t, ids["A1"]).await;

    let sorted_edges = |mut edges: Vec<Edge>| {
        edges.sort_by_key(|e| (e.parent_node_id, e.child_node_id));
        edges
    };
    let before_edges = sorted_edges(t.map(map).await.edges);
    let before = t.counts().await;

    let result = replan(t, map, ReplanInput::default()).await;
    assert_eq!((result.summary.node_count, result.summary.edge_count), (20, 26));
    assert_eq!(sorted_edges(t.map(map).await.edges), before_edges);
    assert_eq!(t.counts().await, before);

    // Even a re-plan that adds a concept keeps every existing edge as it was.
    let input = ReplanInput {
        reason: Some("struggling with C3".into()),
        add_nodes: vec![concept("Extra", 15, vec![ids["A2"]], vec![ids["C3"]])],
    };
    let result = replan(t, map, input).await;
    assert_eq!((result.summary.node_count, result.summary.edge_count), (21, 28));
    let after_edges = t.map(map).await.edges;
    assert!(after_edges.len() >= before_edges.len());
    for edge in &before_edges {
        assert!(after_edges.contains(edge), "edge {edge:?} was changed or removed");
    }
    let after = t.counts().await;
    assert_eq!(count(&after, "mind_map_edges"), count(&before, "mind_map_edges") + 2);
    assert_eq!(count(&after, "mind_map_nodes"), count(&before, "mind_map_nodes") + 1);
}

async fn re_plan_marks_a_node_as_skippable_based_on_mastery(t: &TestApp) {
    let decomposition =
        dag("Root", &[("Root", 10), ("A", 10), ("B", 10), ("C", 20)], &[("Root", "A"), ("A", "B"), ("Root", "C")]);
    let plan = t.plan("Skippable", decomposition).await;
    let map = plan.mind_map_id;
    let ids = t.ids(map).await;
    assert_eq!(order(t, map).await, labels(&["Root", "A", "C", "B"]));

    // Root: mastered with a perfect score.
    let root = graduate(t, map, ids["Root"]).await;
    assert!(root.mastery_score >= 0.9);
    // C: mastered, but with a score under 0.9 (teach 3, then reviews 4, 4, 4, 5).
    t.record_later(map, ids["C"], 3, ResponseType::Teach).await;
    for q in [4, 4, 4, 5] {
        t.record_later(map, ids["C"], q, ResponseType::Review).await;
    }
    let c = t.node(ids["C"]).await;
    assert_eq!(c.mastery_status, MasteryStatus::Mastered);
    assert!(close(c.mastery_score, 139.0 / 155.0), "{}", c.mastery_score);

    let result = replan(t, map, ReplanInput::default()).await;
    assert_eq!(result.skippable_node_ids, vec![ids["Root"]]);
    let root = t.node(ids["Root"]).await;
    assert_eq!(Value::Object(root.metadata.clone()), json!({ "skippable": true }));
    assert!(root.is_skippable());
    assert!(!t.node(ids["C"]).await.is_skippable());
    // Out of the active learning sequence: no sequence position at all, never next; the
    // others are numbered 1..N without gaps, the mastered C after every node still to learn.
    assert_eq!(t.node(ids["Root"]).await.sequence, None);
    let sequenced: Vec<(String, i32)> = {
        let mut nodes: Vec<(String, i32)> =
            t.map(map).await.nodes.into_iter().filter_map(|n| Some((n.label, n.sequence?))).collect();
        nodes.sort_by_key(|(_, s)| *s);
        nodes
    };
    assert_eq!(sequenced, vec![("A".to_string(), 1), ("B".to_string(), 2), ("C".to_string(), 3)]);
    let last = result.sequence.last().unwrap();
    assert_eq!((last.id, last.sequence), (ids["Root"], None), "listed last, with no position");
    assert_eq!(t.app.next_node(t.learner, map).await.unwrap().unwrap().id, ids["A"]);
    let frontier = t.app.frontier(t.learner, map).await.unwrap();
    assert_eq!(frontier.iter().map(|n| n.label.as_str()).collect::<Vec<_>>(), ["A"]);
    // A re-plan later keeps it out, and new mastery does not bring it back.
    replan(t, map, ReplanInput::default()).await;
    assert_eq!(t.node(ids["Root"]).await.sequence, None);
}

async fn re_planning_is_idempotent_on_a_stable_graph(t: &TestApp) {
    let plan = t.plan("Python Fundamentals", python_15()).await;
    let map = plan.mind_map_id;
    // A fresh plan re-planned changes nothing.
    let generated = t.map(map).await;
    let counts = t.counts().await;
    t.clock.advance(chrono::Duration::hours(1));
    replan(t, map, ReplanInput::default()).await;
    assert_eq!(t.map(map).await, generated);
    assert_eq!(t.counts().await, counts);

    // After progress, the first re-plan moves things; the next ones do not.
    let ids = t.ids(map).await;
    graduate(t, map, ids["Python Fundamentals"]).await;
    master(t, ids["Variables"]).await;
    let first = replan(t, map, ReplanInput::default()).await;
    let planned = t.map(map).await;
    let counts = t.counts().await;
    for _ in 0..2 {
        t.clock.advance(chrono::Duration::hours(1));
        let again = replan(t, map, ReplanInput::default()).await;
        assert_eq!(again.sequence, first.sequence);
        assert_eq!(again.skippable_node_ids, first.skippable_node_ids);
        assert!(again.added_node_ids.is_empty());
        assert_eq!(t.map(map).await, planned);
        assert_eq!(t.counts().await, counts);
    }
}

// ---------------------------------------------------------------------------------------
// Requirement: Goal-directed planning optimizes path to stated goal
// ---------------------------------------------------------------------------------------

fn aws_decomposition() -> Value {
    let mut decomposition = dag(
        "AWS",
        &[
            ("AWS", 10),
            ("Compute", 30),
            ("Storage", 30),
            ("Architecture Patterns", 60),
            ("Exam Readiness", 45),
            ("Billing Trivia", 5),
        ],
        &[
            ("AWS", "Compute"),
            ("AWS", "Storage"),
            ("Compute", "Architecture Patterns"),
            ("Storage", "Architecture Patterns"),
            ("Architecture Patterns", "Exam Readiness"),
            ("AWS", "Billing Trivia"),
        ],
    );
    decomposition["goal_node"] = json!("Exam Readiness");
    decomposition
}

async fn goal_is_recorded_on_the_mind_map_metadata(t: &TestApp) {
    let goal = "pass the AWS Solutions Architect exam";
    let plan = t.plan_with(json!({ "topic": "AWS", "goal": goal, "decomposition": aws_decomposition() })).await;
    let agg = t.map(plan.mind_map_id).await;
    assert_eq!(Value::Object(agg.map.metadata.clone()), json!({ "goal": "pass the AWS Solutions Architect exam" }));
    assert_eq!(agg.map.goal(), Some(goal));
    let listed = t.app.list_maps(t.learner, None, None, None).await.unwrap();
    assert_eq!(listed.items[0].metadata.get("goal"), Some(&json!(goal)));

    // Planning an existing draft map with a goal records it the same way.
    let draft = t.app.create_map(t.learner, CreateMap { title: "AWS again".into(), metadata: None }).await.unwrap();
    let input: PlanInput =
        serde_json::from_value(json!({ "goal": goal, "decomposition": aws_decomposition() })).unwrap();
    t.app.plan_map(t.learner, draft.id, input).await.expect("plan");
    assert_eq!(Value::Object(t.map(draft.id).await.map.metadata), json!({ "goal": goal }));

    // Without a goal there is no goal key.
    let mut no_goal = aws_decomposition();
    no_goal.as_object_mut().unwrap().remove("goal_node");
    let plan = t.plan("AWS, no goal", no_goal).await;
    assert!(t.map(plan.mind_map_id).await.map.metadata.get("goal").is_none());

    // A goal needs the concept that achieves it, named in the decomposition.
    let before = t.counts().await;
    let mut missing = aws_decomposition();
    missing.as_object_mut().unwrap().remove("goal_node");
    let err = try_generate(t, json!({ "topic": "AWS", "goal": goal, "decomposition": missing })).await.unwrap_err();
    assert_eq!((err.kind, err.code), (ErrorKind::Invalid, ErrorCode::Invalid));
    assert!(err.message.starts_with("goal_node: "), "{}", err.message);
    let mut unknown = aws_decomposition();
    unknown["goal_node"] = json!("Certification");
    let err = try_generate(t, json!({ "topic": "AWS", "goal": goal, "decomposition": unknown })).await.unwrap_err();
    assert_eq!(err.message, "goal_node: 'Certification' is not the label of a node in this decomposition");
    assert_eq!(t.counts().await, before);
}

async fn goal_directed_sequence_puts_critical_path_nodes_first(t: &TestApp) {
    let mut decomposition = dag(
        "Python",
        &[
            ("Python", 10),
            ("HTTP Basics", 60),
            ("Games", 5),
            ("GUI Toolkits", 5),
            ("Request Handling", 20),
            ("Routing", 30),
            ("Sprites", 5),
            ("REST API", 40),
            ("Testing APIs", 10),
        ],
        &[
            ("Python", "HTTP Basics"),
            ("Python", "Games"),
            ("Python", "GUI Toolkits"),
            ("HTTP Basics", "Request Handling"),
            ("HTTP Basics", "Routing"),
            ("Games", "Sprites"),
            ("Request Handling", "REST API"),
            ("Routing", "REST API"),
            ("REST API", "Testing APIs"),
        ],
    );
    decomposition["goal_node"] = json!("REST API");
    let plan =
        t.plan_with(json!({ "topic": "Python", "goal": "build a REST API", "decomposition": decomposition })).await;
    let map = plan.mind_map_id;
    let ids = t.ids(map).await;
    let agg = t.map(map).await;

    let critical = ["Python", "HTTP Basics", "Request Handling", "Routing", "REST API"];
    for node in &agg.nodes {
        let on_path = critical.contains(&node.label.as_str());
        assert_eq!(node.is_optional(), !on_path, "'{}'", node.label);
        if !on_path {
            assert_eq!(Value::Object(node.metadata.clone()), json!({ "optional": true }));
        }
    }
    // At every depth, critical-path nodes come before optional ones, whatever their effort.
    for a in agg.nodes.iter().filter(|n| !n.is_optional()) {
        for b in agg.nodes.iter().filter(|n| n.is_optional() && n.depth == a.depth) {
            assert!(
                a.sequence < b.sequence,
                "'{}' {:?} vs optional '{}' {:?}",
                a.label,
                a.sequence,
                b.label,
                b.sequence
            );
        }
    }
    assert_eq!(
        order(t, map).await,
        labels(&[
            "Python",
            "HTTP Basics",
            "Games",
            "GUI Toolkits",
            "Request Handling",
            "Routing",
            "Sprites",
            "REST API",
            "Testing APIs",
        ])
    );

    // Next-node picks the critical path whenever it is on the frontier with optional nodes:
    // as the learner progresses without a re-plan...
    assert_eq!(next_label(t, map).await.as_deref(), Some("Python"));
    graduate(t, map, ids["Python"]).await;
    assert_eq!(next_label(t, map).await.as_deref(), Some("HTTP Basics"));
    graduate(t, map, ids["HTTP Basics"]).await;
    let frontier: Vec<String> = t.app.frontier(t.learner, map).await.unwrap().into_iter().map(|n| n.label).collect();
    assert!(frontier.contains(&"Games".to_string()) && frontier.contains(&"Request Handling".to_string()));
    assert_eq!(next_label(t, map).await.as_deref(), Some("Request Handling"));
    // ...and after one.
    replan(t, map, ReplanInput::default()).await;
    assert_eq!(next_label(t, map).await.as_deref(), Some("Request Handling"));
    graduate(t, map, ids["Request Handling"]).await;
    assert_eq!(next_label(t, map).await.as_deref(), Some("Routing"));
    graduate(t, map, ids["Routing"]).await;
    assert_eq!(next_label(t, map).await.as_deref(), Some("REST API"));

    // Optional marking never outranks a prerequisite: a concept added below an optional
    // one still comes after it.
    let input = ReplanInput { reason: None, add_nodes: vec![concept("Game Loops", 5, vec![ids["Games"]], vec![])] };
    let result = replan(t, map, input).await;
    let position = |label: &str| result.sequence.iter().position(|n| n.label == label).unwrap();
    assert!(position("Games") < position("Game Loops"));
}

// ---------------------------------------------------------------------------------------
// Requirement: Diagnostic results inform sequence ordering
// ---------------------------------------------------------------------------------------

async fn high_scoring_diagnostic_node_gets_diagnosed_status(t: &TestApp) {
    let plan = t
        .plan_with(json!({
            "topic": "Python Fundamentals",
            "diagnostic_results": { "node_label": "Variables", "quality": 4 },
            "decomposition": python_15(),
        }))
        .await;
    let agg = t.map(plan.mind_map_id).await;
    for node in &agg.nodes {
        if node.label == "Variables" {
            assert_eq!(node.mastery_status, MasteryStatus::Diagnosed);
            assert!(close(node.mastery_score, 0.72), "{}", node.mastery_score);
            assert!((0.3..=0.9).contains(&node.mastery_score));
        } else {
            assert_eq!((node.mastery_status, node.mastery_score), (MasteryStatus::Unseen, 0.0), "'{}'", node.label);
        }
    }
    assert_eq!(plan.status, MapStatus::Active);

    // Labels match case-insensitively after trimming.
    let plan = t
        .plan_with(json!({
            "topic": "Python Fundamentals",
            "diagnostic_results": [{ "node_label": "  variables ", "quality": 4 }],
            "decomposition": python_15(),
            "on_existing": "new",
        }))
        .await;
    let variables = node_by_label(t, plan.mind_map_id, "Variables").await;
    assert_eq!(variables.mastery_status, MasteryStatus::Diagnosed);
    assert!(close(variables.mastery_score, 0.72));
}

async fn low_scoring_diagnostic_node_remains_unseen(t: &TestApp) {
    let decomposition = dag(
        "Python",
        &[("Python", 10), ("Functions", 20), ("Decorators", 30), ("Generators", 30), ("Closures", 30)],
        &[("Python", "Functions"), ("Functions", "Decorators"), ("Functions", "Generators"), ("Functions", "Closures")],
    );
    let plan = t
        .plan_with(json!({
            "topic": "Python",
            "diagnostic_results": [
                { "node_label": "Decorators", "quality": 1 },
                { "node_label": "Generators", "quality": 2 },
                { "node_label": "Closures", "quality": 0 },
                { "node_label": "Functions", "quality": 3 },
            ],
            "decomposition": decomposition,
        }))
        .await;
    let map = plan.mind_map_id;
    for label in ["Decorators", "Generators", "Closures"] {
        let node = node_by_label(t, map, label).await;
        assert_eq!((node.mastery_status, node.mastery_score), (MasteryStatus::Unseen, 0.0), "'{label}'");
    }
    // The boundary: quality 3 is enough.
    let functions = node_by_label(t, map, "Functions").await;
    assert_eq!(functions.mastery_status, MasteryStatus::Diagnosed);
    assert!(close(functions.mastery_score, 0.54));
}

async fn diagnosed_nodes_rank_before_unseen_nodes_in_sequence(t: &TestApp) {
    let decomposition = dag(
        "Root",
        &[("Root", 10), ("Alpha", 15), ("Bravo", 15), ("Charlie", 15), ("Delta", 15), ("Echo", 15)],
        &[("Root", "Alpha"), ("Root", "Bravo"), ("Root", "Charlie"), ("Root", "Delta"), ("Root", "Echo")],
    );
    let plan = t
        .plan_with(json!({
            "topic": "Diagnosed first",
            "diagnostic_results": [
                { "node_label": "Echo", "quality": 5 },
                { "node_label": "Delta", "quality": 3 },
                { "node_label": "Bravo", "quality": 2 },
            ],
            "decomposition": decomposition,
        }))
        .await;
    let map = plan.mind_map_id;
    assert_eq!(order(t, map).await, labels(&["Root", "Delta", "Echo", "Alpha", "Bravo", "Charlie"]));
    let agg = t.map(map).await;
    for diagnosed in agg.nodes.iter().filter(|n| n.mastery_status == MasteryStatus::Diagnosed) {
        for unseen in
            agg.nodes.iter().filter(|n| n.mastery_status == MasteryStatus::Unseen && n.depth == diagnosed.depth)
        {
            assert!(diagnosed.sequence < unseen.sequence);
        }
    }
}

async fn diagnostic_results_for_unknown_node_labels_are_ignored(t: &TestApp) {
    let before = t.counts().await;
    let plan = t
        .plan_with(json!({
            "topic": "Python Fundamentals",
            "diagnostic_results": [
                { "node_label": "Quantum Entanglement", "quality": 5 },
                { "node_label": "Variables", "quality": 4 },
                { "node_label": "Web Scraping", "quality": 1 },
                { "node_label": "loops ", "quality": 2 },
                { "node_label": "Strings", "quality": 3 },
            ],
            "decomposition": python_15(),
        }))
        .await;
    assert_eq!(plan.node_count, 15);
    let after = t.counts().await;
    assert_eq!(count(&after, "mind_map_nodes") - count(&before, "mind_map_nodes"), 15);
    let agg = t.map(plan.mind_map_id).await;
    assert!(agg.nodes.iter().all(|n| n.label != "Quantum Entanglement" && n.label != "Web Scraping"));
    let statuses: BTreeMap<String, MasteryStatus> =
        agg.nodes.iter().map(|n| (n.label.clone(), n.mastery_status)).collect();
    for (label, status) in &statuses {
        let expected = match label.as_str() {
            "Variables" | "Strings" => MasteryStatus::Diagnosed,
            _ => MasteryStatus::Unseen,
        };
        assert_eq!(*status, expected, "'{label}'");
    }
    assert!(close(agg.node(t.ids(plan.mind_map_id).await["Strings"]).unwrap().mastery_score, 0.54));
}

async fn mastery_seeded_conservatively_from_diagnostic_scores(t: &TestApp) {
    let decomposition = dag(
        "Python",
        &[("Python", 10), ("Variables", 10), ("Types", 10)],
        &[("Python", "Variables"), ("Python", "Types")],
    );
    let plan = t
        .plan_with(json!({
            "topic": "Python",
            "diagnostic_results": [{ "node_label": "Python", "quality": 5 }, { "node_label": "Variables", "quality": 5 }],
            "decomposition": decomposition.clone(),
        }))
        .await;
    let map = plan.mind_map_id;
    assert_eq!(plan.status, MapStatus::Active);
    for label in ["Python", "Variables"] {
        let node = node_by_label(t, map, label).await;
        assert_eq!(node.mastery_status, MasteryStatus::Diagnosed, "'{label}'");
        assert!(node.mastery_score <= 0.9);
        assert!(close(node.mastery_score, 0.9));
    }
    // Still in the learning sequence, for reinforcement: the root is studied first.
    assert_eq!(order(t, map).await, labels(&["Python", "Variables", "Types"]));
    assert_eq!(t.app.next_node(t.learner, map).await.unwrap().unwrap().label, "Python");
    let result = replan(t, map, ReplanInput::default()).await;
    assert!(result.skippable_node_ids.is_empty());
    assert_eq!(order(t, map).await, labels(&["Python", "Variables", "Types"]));

    // A quality outside 0-5 is refused, whatever label it names.
    let before = t.counts().await;
    let err = try_generate(
        t,
        json!({
            "topic": "Python",
            "diagnostic_results": [{ "node_label": "Nowhere", "quality": 6 }],
            "decomposition": decomposition,
        }),
    )
    .await
    .unwrap_err();
    assert_error(
        &err,
        ErrorKind::Invalid,
        ErrorCode::Invalid,
        "diagnostic_results[0].quality: 6 is out of range; quality is an integer from 0 to 5",
    );
    assert_eq!(t.counts().await, before);
}

// ---------------------------------------------------------------------------------------
// Requirement: Next-node selection returns highest-priority frontier node
// ---------------------------------------------------------------------------------------

async fn returns_frontier_node_with_lowest_sequence(t: &TestApp) {
    let decomposition = dag(
        "Root",
        &[
            ("Root", 10),
            ("A", 10),
            ("B", 20),
            ("C", 30),
            ("D", 10),
            ("E", 20),
            ("F", 30),
            ("G", 40),
            ("H", 10),
            ("I", 20),
            ("J", 30),
            ("K", 40),
        ],
        &[
            ("Root", "A"),
            ("Root", "B"),
            ("Root", "C"),
            ("B", "D"),
            ("C", "E"),
            ("A", "F"),
            ("B", "G"),
            ("D", "H"),
            ("D", "I"),
            ("G", "J"),
            ("E", "K"),
        ],
    );
    let plan = t.plan("Frontier", decomposition).await;
    let map = plan.mind_map_id;
    let ids = t.ids(map).await;
    assert_eq!(order(t, map).await, labels(&["Root", "A", "B", "C", "D", "E", "F", "G", "H", "I", "J", "K"]));
    for label in ["Root", "A", "C", "E"] {
        master(t, ids[label]).await;
    }
    let frontier: Vec<Option<i32>> = t.app.frontier(t.learner, map).await.unwrap().iter().map(|n| n.sequence).collect();
    assert_eq!(frontier, vec![Some(3), Some(7), Some(12)]);
    let next = t.app.next_node(t.learner, map).await.unwrap().expect("a next node");
    assert_eq!((next.label.as_str(), next.sequence), ("B", Some(3)));
}

async fn non_frontier_node_is_never_returned_even_if_it_has_a_low_sequence_number(t: &TestApp) {
    let decomposition = dag(
        "Root",
        &[("Root", 10), ("X", 5), ("A", 10), ("B", 15), ("Z", 20), ("M", 1), ("Y", 5)],
        &[("Root", "X"), ("Root", "A"), ("Root", "B"), ("Root", "Z"), ("Root", "M"), ("M", "Y")],
    );
    let plan = t.plan("Not the frontier", decomposition).await;
    let map = plan.mind_map_id;
    let ids = t.ids(map).await;
    master(t, ids["Root"]).await;
    master(t, ids["M"]).await;
    replan(t, map, ReplanInput::default()).await;
    assert_eq!(order(t, map).await, labels(&["X", "A", "B", "Z", "Y", "Root", "M"]));
    master(t, ids["A"]).await;
    master(t, ids["B"]).await;
    set_status(t, ids["Y"], MasteryStatus::Learning).await;
    // X now needs Y, which is still being learned; X keeps sequence 1 until a re-plan.
    t.app.create_edge(t.learner, map, edge_input(ids["Y"], ids["X"], None)).await.expect("edge");

    let (x, y, z) = (t.node(ids["X"]).await, t.node(ids["Y"]).await, t.node(ids["Z"]).await);
    assert_eq!(x.sequence, Some(1));
    assert_eq!(y.mastery_status, MasteryStatus::Learning);
    assert_eq!(z.sequence, Some(4));
    let next = t.app.next_node(t.learner, map).await.unwrap().expect("a next node");
    assert_eq!(next.id, ids["Z"]);
}

async fn returns_none_when_all_nodes_are_mastered(t: &TestApp) {
    let plan = t.plan("All mastered", chain(&["Root", "A", "B"])).await;
    let map = plan.mind_map_id;
    let ids = t.ids(map).await;
    for label in ["Root", "A"] {
        graduate(t, map, ids[label]).await;
    }
    master(t, ids["B"]).await;
    assert!(t.map(map).await.nodes.iter().all(|n| n.mastery_status == MasteryStatus::Mastered));
    assert!(t.app.frontier(t.learner, map).await.unwrap().is_empty());
    assert_eq!(t.app.next_node(t.learner, map).await.unwrap(), None);
}

async fn returns_none_for_a_completed_or_abandoned_mind_map(t: &TestApp) {
    // Abandoned: its frontier still holds the root, but next-node does not look.
    let plan = t.plan("Abandoned", chain(&["Root", "A"])).await;
    let map = plan.mind_map_id;
    t.app.update_map_status(t.learner, map, MapStatus::Abandoned).await.expect("abandon");
    assert_eq!(t.app.frontier(t.learner, map).await.unwrap().len(), 1);
    assert_eq!(t.app.next_node(t.learner, map).await.unwrap(), None);

    // Completed.
    let plan = t.plan("Completed", chain(&["Root", "A"])).await;
    let map = plan.mind_map_id;
    let ids = t.ids(map).await;
    graduate(t, map, ids["Root"]).await;
    graduate(t, map, ids["A"]).await;
    assert_eq!(t.map(map).await.map.status, MapStatus::Completed);
    assert_eq!(t.app.next_node(t.learner, map).await.unwrap(), None);
}

async fn root_node_is_on_the_frontier_for_a_fresh_mind_map(t: &TestApp) {
    // The root is listed last, costs the most and sorts last by label.
    let decomposition = dag(
        "Web Development",
        &[("APIs", 5), ("CSS", 5), ("HTML", 5), ("Web Development", 90)],
        &[("Web Development", "APIs"), ("Web Development", "CSS"), ("Web Development", "HTML")],
    );
    let plan = t.plan("Web Development", decomposition).await;
    let map = plan.mind_map_id;
    let root = plan.root_node_id.expect("root");
    let frontier = t.app.frontier(t.learner, map).await.unwrap();
    assert_eq!(frontier.iter().map(|n| n.id).collect::<Vec<_>>(), vec![root]);
    let next = t.app.next_node(t.learner, map).await.unwrap().expect("a next node");
    assert_eq!((next.id, next.depth, next.sequence), (root, 0, Some(1)));
    assert_eq!(next.label, "Web Development");
}

async fn node_in_learning_state_is_returned_by_next_node_if_on_frontier(t: &TestApp) {
    let decomposition = dag(
        "Root",
        &[("Root", 10), ("B", 10), ("C", 20), ("D", 30), ("A", 40), ("F", 50), ("E", 10)],
        &[("Root", "B"), ("Root", "C"), ("Root", "D"), ("Root", "A"), ("Root", "F"), ("A", "E")],
    );
    let plan = t.plan("Learning", decomposition).await;
    let map = plan.mind_map_id;
    let ids = t.ids(map).await;
    assert_eq!(order(t, map).await, labels(&["Root", "B", "C", "D", "A", "F", "E"]));
    for label in ["Root", "B", "C", "D"] {
        master(t, ids[label]).await;
    }
    let out = t.record_later(map, ids["A"], 2, ResponseType::Teach).await;
    assert_eq!(out.node.mastery_status, MasteryStatus::Learning);

    let frontier: Vec<(String, Option<i32>)> =
        t.app.frontier(t.learner, map).await.unwrap().into_iter().map(|n| (n.label, n.sequence)).collect();
    assert_eq!(frontier, vec![("A".to_string(), Some(5)), ("F".to_string(), Some(6))]);
    let next = t.app.next_node(t.learner, map).await.unwrap().expect("a next node");
    assert_eq!((next.id, next.mastery_status, next.sequence), (ids["A"], MasteryStatus::Learning, Some(5)));
}

// ---------------------------------------------------------------------------------------
// Requirement: Syllabus lifecycle governs mind map state transitions
// ---------------------------------------------------------------------------------------

async fn mind_map_transitions_to_active_after_curriculum_generate_completes(t: &TestApp) {
    let plan = t.plan("Active", chain(&["Root", "A"])).await;
    assert_eq!(plan.status, MapStatus::Active);
    assert_eq!(t.map(plan.mind_map_id).await.map.status, MapStatus::Active);

    // A map created first is a draft until its graph is planned (never active while empty).
    let draft = t.app.create_map(t.learner, CreateMap { title: "Later".into(), metadata: None }).await.unwrap();
    assert_eq!(draft.status, MapStatus::Draft);
    let err = t.app.update_map_status(t.learner, draft.id, MapStatus::Active).await.unwrap_err();
    assert_eq!(err.kind, ErrorKind::Conflict);
    let input: PlanInput = serde_json::from_value(json!({ "decomposition": chain(&["Root", "A", "B"]) })).unwrap();
    let planned = t.app.plan_map(t.learner, draft.id, input.clone()).await.expect("plan");
    assert_eq!(planned.status, MapStatus::Active);
    assert_eq!(t.map(draft.id).await.map.status, MapStatus::Active);
    // Planning again is refused: a plan is changed by re-planning.
    let err = t.app.plan_map(t.learner, draft.id, input).await.unwrap_err();
    assert_eq!(err.kind, ErrorKind::Conflict);

    // A refused generation leaves no map behind, draft or otherwise.
    let maps = t.app.list_maps(t.learner, None, None, None).await.unwrap().total;
    try_plan(t, "Broken", chain(&["Only", "Only"])).await.unwrap_err();
    assert_eq!(t.app.list_maps(t.learner, None, None, None).await.unwrap().total, maps);
}

async fn mind_map_transitions_to_completed_when_all_nodes_are_mastered(t: &TestApp) {
    // Through quiz responses.
    let plan = t.plan("By responses", chain(&["Root", "A", "B"])).await;
    let map = plan.mind_map_id;
    let ids = t.ids(map).await;
    graduate(t, map, ids["Root"]).await;
    graduate(t, map, ids["A"]).await;
    assert_eq!(t.map(map).await.map.status, MapStatus::Active);
    graduate(t, map, ids["B"]).await;
    assert_eq!(t.map(map).await.map.status, MapStatus::Completed);
    assert_eq!(t.app.next_node(t.learner, map).await.unwrap(), None);

    // Through status updates.
    let plan = t.plan("By hand", chain(&["Root", "A"])).await;
    let map = plan.mind_map_id;
    let ids = t.ids(map).await;
    master(t, ids["Root"]).await;
    set_status(t, ids["A"], MasteryStatus::Learning).await;
    set_status(t, ids["A"], MasteryStatus::Reviewing).await;
    assert_eq!(t.map(map).await.map.status, MapStatus::Active);
    set_status(t, ids["A"], MasteryStatus::Mastered).await;
    assert_eq!(t.map(map).await.map.status, MapStatus::Completed);
    assert_eq!(t.app.next_node(t.learner, map).await.unwrap(), None);
}

async fn curriculum_replan_rejects_abandoned_mind_maps(t: &TestApp) {
    let plan = t.plan("Abandoned", chain(&["Root", "A", "B"])).await;
    let map = plan.mind_map_id;
    let ids = t.ids(map).await;
    master(t, ids["Root"]).await;
    t.app.update_map_status(t.learner, map, MapStatus::Abandoned).await.expect("abandon");
    let map_before = t.map(map).await;
    let before = t.counts().await;

    let input = ReplanInput {
        reason: Some("try again".into()),
        add_nodes: vec![concept("Extra", 10, vec![ids["A"]], vec![ids["B"]])],
    };
    let err = t.app.replan(t.learner, map, input).await.unwrap_err();
    assert_error(
        &err,
        ErrorKind::Conflict,
        ErrorCode::MapNotOpen,
        "status: mind map is abandoned; curriculum_replan needs a map that is active",
    );
    assert_eq!(err.details, json!({ "field": "status", "status": "abandoned" }));
    assert_eq!(t.map(map).await, map_before);
    assert_eq!(t.counts().await, before);
}

async fn curriculum_generate_returns_the_mind_map_dict_on_success(t: &TestApp) {
    let plan = t.plan("Dict", chain(&["Root", "A", "B"])).await;
    let dict = serde_json::to_value(&plan).unwrap();
    let agg = t.map(plan.mind_map_id).await;
    assert_eq!(
        dict,
        json!({
            "mind_map_id": agg.map.id.to_string(),
            "node_count": 3,
            "edge_count": 2,
            "status": "active",
            "root_node_id": agg.map.root_node_id.unwrap().to_string(),
        })
    );
    assert_eq!(agg.map.title, "Dict");
    assert_eq!((agg.nodes.len(), agg.edges.len()), (3, 2));
}

conformance!(
    every_node_has_a_populated_effort_estimate,
    root_node_is_recorded_on_the_mind_map,
    all_edges_are_prerequisite_edges_by_default,
    edge_creating_a_cycle_is_rejected,
    graph_exceeding_30_nodes_is_rejected,
    node_at_depth_exceeding_5_is_rejected,
    a_graph_with_exactly_30_nodes_and_depth_5_is_accepted,
    a_self_loop_edge_is_rejected,
    shallower_node_ranks_before_deeper_node_at_same_topological_level,
    lower_effort_node_ranks_before_higher_effort_node_at_same_depth,
    diagnosed_node_ranks_before_unseen_node_at_same_depth_and_effort,
    topological_constraint_takes_precedence_over_all_tie_breaking_criteria,
    sort_is_deterministic_across_multiple_calls,
    all_nodes_receive_unique_sequence_numbers_after_generation,
    sequence_numbers_are_stable_across_node_additions,
    sequence_is_queryable_and_sortable_via_sql,
    re_plan_reorders_sequence_after_mastery_state_change,
    re_plan_with_reason_triggers_optional_llm_node_addition,
    re_plan_preserves_existing_edge_structure,
    re_plan_marks_a_node_as_skippable_based_on_mastery,
    re_planning_is_idempotent_on_a_stable_graph,
    goal_is_recorded_on_the_mind_map_metadata,
    goal_directed_sequence_puts_critical_path_nodes_first,
    high_scoring_diagnostic_node_gets_diagnosed_status,
    low_scoring_diagnostic_node_remains_unseen,
    diagnosed_nodes_rank_before_unseen_nodes_in_sequence,
    diagnostic_results_for_unknown_node_labels_are_ignored,
    mastery_seeded_conservatively_from_diagnostic_scores,
    returns_frontier_node_with_lowest_sequence,
    non_frontier_node_is_never_returned_even_if_it_has_a_low_sequence_number,
    returns_none_when_all_nodes_are_mastered,
    returns_none_for_a_completed_or_abandoned_mind_map,
    root_node_is_on_the_frontier_for_a_fresh_mind_map,
    node_in_learning_state_is_returned_by_next_node_if_on_frontier,
    mind_map_transitions_to_active_after_curriculum_generate_completes,
    mind_map_transitions_to_completed_when_all_nodes_are_mastered,
    curriculum_replan_rejects_abandoned_mind_maps,
    curriculum_generate_returns_the_mind_map_dict_on_success,
);
