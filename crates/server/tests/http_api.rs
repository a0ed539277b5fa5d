//! The HTTP API end to end: a real server on 127.0.0.1, real HTTP requests, and the store
//! behind it checked after every refused write. The core flows run on SQLite, and on
//! PostgreSQL too when `PATHWISE_TEST_DATABASE_URL` is set (each test in a schema of its own).

mod support;

use reqwest::{Method, StatusCode};
use serde_json::{json, Value};
use std::collections::HashMap;
use support::*;

fn labels(items: &Value) -> Vec<String> {
    items.as_array().unwrap_or_else(|| panic!("{items} is not an array")).iter().map(|n| text(&n["label"])).collect()
}

fn field_ids(items: &Value, field: &str) -> Vec<String> {
    items.as_array().unwrap_or_else(|| panic!("{items} is not an array")).iter().map(|n| text(&n[field])).collect()
}

/// A decomposition: every label a concept of 10 minutes, the first the root.
fn decomposition(nodes: &[&str], edges: &[(&str, &str)]) -> Value {
    json!({
        "root": nodes[0],
        "nodes": nodes.iter().map(|l| json!({ "label": l, "effort_minutes": 10 })).collect::<Vec<_>>(),
        "edges": edges.iter().map(|(p, c)| json!({ "parent": p, "child": c })).collect::<Vec<_>>(),
    })
}

fn response_body(node: &str, map: &str, quality: i64, response_type: &str) -> Value {
    json!({
        "node_id": node,
        "mind_map_id": map,
        "question_text": "What does this concept mean?",
        "user_answer": "An answer",
        "quality": quality,
        "response_type": response_type,
    })
}

fn random_id() -> String {
    uuid::Uuid::new_v4().to_string()
}

on_both_stores!(
    full_learning_flow,
    building_a_map_node_by_node,
    bad_input_is_refused_with_the_field_named,
    learners_are_isolated,
    fsrs_parameters_are_shown_and_fitted_on_request
);

// ---------------------------------------------------------------------------------------
// The full flow
// ---------------------------------------------------------------------------------------

async fn full_learning_flow(t: &TestApp) {
    let a = t.a.as_str();
    let rust = decomposition(
        &["Rust", "Ownership", "Borrowing", "Lifetimes", "Traits"],
        &[("Rust", "Ownership"), ("Ownership", "Borrowing"), ("Borrowing", "Lifetimes"), ("Rust", "Traits")],
    );
    let summary = t.generate(a, "Rust", rust).await;
    assert_eq!(summary["node_count"], 5);
    assert_eq!(summary["edge_count"], 4);
    assert_eq!(summary["status"], "active");
    let map = text(&summary["mind_map_id"]);
    let root = text(&summary["root_node_id"]);
    let go =
        text(&t.generate(a, "Go", decomposition(&["Go", "Goroutines"], &[("Go", "Goroutines")])).await["mind_map_id"]);
    t.generate(a, "Zig", decomposition(&["Zig", "Comptime"], &[("Zig", "Comptime")])).await;

    // Paging through three maps, newest first.
    let page = t.get(a, "/api/mind-maps?limit=2").await.expect(200);
    assert_eq!((page["total"].as_u64(), page["offset"].as_i64(), page["limit"].as_i64()), (Some(3), Some(0), Some(2)));
    assert_eq!(field_ids(&page["items"], "title"), ["Zig", "Go"]);
    let page = t.get(a, "/api/mind-maps?offset=2&limit=2").await.expect(200);
    assert_eq!((page["total"].as_u64(), page["offset"].as_i64(), page["limit"].as_i64()), (Some(3), Some(2), Some(2)));
    assert_eq!(field_ids(&page["items"], "title"), ["Rust"]);
    let page = t.get(a, "/api/mind-maps").await.expect(200);
    assert_eq!((page["total"].as_u64(), page["limit"].as_i64()), (Some(3), Some(50)), "default paging");
    assert_eq!(t.get(a, "/api/mind-maps?status=active").await.expect(200)["total"], 3);
    assert_eq!(t.get(a, "/api/mind-maps?status=draft").await.expect(200)["total"], 0);
    let page = t.get(a, "/api/mind-maps?offset=10").await.expect(200);
    assert_eq!((page["total"].as_u64(), page["items"].as_array().map(Vec::len)), (Some(3), Some(0)));

    // The map with its nodes in learning order, and its edges.
    let agg = t.get(a, &format!("/api/mind-maps/{map}")).await.expect(200);
    assert_eq!((agg["id"].as_str(), agg["title"].as_str()), (Some(map.as_str()), Some("Rust")));
    assert_eq!(agg["status"], "active");
    assert_eq!(agg["root_node_id"], root.as_str());
    assert_eq!(agg["nodes"].as_array().unwrap().len(), 5);
    assert_eq!(agg["edges"].as_array().unwrap().len(), 4);
    assert_eq!(agg["nodes"][0]["id"], root.as_str(), "the root comes first in learning order");
    assert_eq!(agg["nodes"][0]["depth"], 0);
    for node in agg["nodes"].as_array().unwrap() {
        assert_eq!(node["mind_map_id"], map.as_str());
        assert_eq!(node["mastery_status"], "unseen");
    }
    let ids = t.ids(a, &map).await;
    let node_list = t.get(a, &format!("/api/mind-maps/{map}/nodes")).await.expect(200);
    assert_eq!(node_list.as_array().unwrap().len(), 5);
    let unseen = t.get(a, &format!("/api/mind-maps/{map}/nodes?mastery_status=unseen")).await.expect(200);
    assert_eq!(unseen.as_array().unwrap().len(), 5);
    let node = t.get(a, &format!("/api/nodes/{}", ids["Lifetimes"])).await.expect(200);
    assert_eq!((node["label"].as_str(), node["depth"].as_i64()), (Some("Lifetimes"), Some(3)));

    // Before anything is learnt, the root is all there is to learn.
    assert_eq!(labels(&t.get(a, &format!("/api/mind-maps/{map}/frontier")).await.expect(200)), ["Rust"]);
    let next = t.get(a, &format!("/api/mind-maps/{map}/next-node")).await.expect(200);
    assert_eq!(next["node"]["id"], root.as_str());

    // A first teaching response of quality 4.
    let recorded = t.post(a, "/api/responses", response_body(&root, &map, 4, "teach")).await.expect(201);
    let response_id = text(&recorded["id"]);
    assert_eq!(recorded["response"]["id"], response_id.as_str());
    assert_eq!(recorded["response"]["quality"], 4);
    assert_eq!(recorded["response"]["rating"], "good", "a stated quality is the learner's rating");
    assert_eq!(recorded["response"]["response_type"], "teach");
    assert_eq!(recorded["response"]["node_id"], root.as_str());
    assert_eq!(recorded["node"]["id"], root.as_str());
    let score = recorded["node"]["mastery_score"].as_f64().unwrap();
    assert!((score - 0.8).abs() < 1e-9, "mastery score {score}, expected 0.8");
    assert_eq!(recorded["node"]["mastery_status"], "learning");
    assert_eq!(recorded["node"]["repetitions"], 1);
    assert_eq!(recorded["node"]["interval_days"].as_f64(), Some(1.0));
    assert!(recorded["node"]["next_review_at"].is_string());

    let history = t.get(a, &format!("/api/nodes/{root}/history")).await.expect(200);
    assert_eq!(field_ids(&history, "id"), [response_id.as_str()]);

    let summary = t.get(a, &format!("/api/mind-maps/{map}/mastery-summary")).await.expect(200);
    assert_eq!(summary["total_nodes"], 5);
    assert_eq!(summary["unseen_count"], 4);
    assert_eq!(summary["learning_count"], 1);
    assert_eq!(summary["mastered_count"], 0);
    assert!((summary["avg_mastery_score"].as_f64().unwrap() - 0.16).abs() < 1e-9, "{summary}");
    assert_eq!(summary["struggling_node_ids"], json!([]));
    assert_eq!(t.get(a, &format!("/api/mind-maps/{map}/struggles")).await.expect(200), json!([]));

    // Due in a day: inside a two-day horizon, not due now.
    let due = t.get(a, &format!("/api/mind-maps/{map}/pending-reviews?horizon_days=2")).await.expect(200);
    assert_eq!(field_ids(&due, "id"), [root.as_str()]);
    let due = t.get(a, &format!("/api/mind-maps/{map}/pending-reviews?horizon_days=0")).await.expect(200);
    assert_eq!(due, json!([]));
    assert_eq!(t.get(a, &format!("/api/mind-maps/{map}/pending-reviews")).await.expect(200), json!([]));
    let due = t.get(a, "/api/reviews/pending?horizon_days=2").await.expect(200);
    assert_eq!(field_ids(&due, "id"), [root.as_str()]);

    // More responses: a diagnostic, three failures, a good review of the root.
    t.post(a, "/api/responses", response_body(&ids["Ownership"], &map, 3, "diagnostic")).await.expect(201);
    for _ in 0..3 {
        t.post(a, "/api/responses", response_body(&ids["Lifetimes"], &map, 1, "review")).await.expect(201);
    }
    let last = t.post(a, "/api/responses", response_body(&root, &map, 5, "review")).await.expect(201);
    assert_eq!(last["node"]["mastery_status"], "reviewing");

    // Paging and filtering the responses.
    let page = t.get(a, "/api/quiz-responses?limit=4").await.expect(200);
    assert_eq!((page["total"].as_u64(), page["items"].as_array().map(Vec::len)), (Some(6), Some(4)));
    assert_eq!(page["items"][0]["id"], last["id"], "newest first");
    let page = t.get(a, "/api/quiz-responses?offset=4&limit=4").await.expect(200);
    assert_eq!((page["total"].as_u64(), page["items"].as_array().map(Vec::len)), (Some(6), Some(2)));
    assert_eq!(page["items"][1]["id"], response_id.as_str(), "the oldest is last");
    let count = |query: String| async move {
        let page = t.get(a, &format!("/api/quiz-responses?{query}")).await.expect(200);
        assert_eq!(page["total"].as_u64(), page["items"].as_array().map(|i| i.len() as u64), "{query}");
        page["total"].as_u64().unwrap()
    };
    assert_eq!(count(format!("node_id={root}")).await, 2);
    assert_eq!(count("response_type=review".into()).await, 4);
    assert_eq!(count("response_type=diagnostic".into()).await, 1);
    assert_eq!(count(format!("mind_map_id={map}")).await, 6);
    assert_eq!(count(format!("mind_map_id={go}")).await, 0);
    assert_eq!(count(format!("node_id={root}&response_type=teach")).await, 1);
    assert_eq!(count(format!("mind_map_id={map}&node_id={}&response_type=review", ids["Lifetimes"])).await, 3);
    let newest = t.get(a, &format!("/api/nodes/{root}/history?limit=1")).await.expect(200);
    assert_eq!(field_ids(&newest, "id"), [text(&last["id"])]);

    // Three failures in a row are a struggle.
    let struggles = t.get(a, &format!("/api/mind-maps/{map}/struggles")).await.expect(200);
    assert_eq!(labels(&struggles), ["Lifetimes"]);
    assert!(struggles[0]["reasons"].as_array().unwrap().contains(&json!("consecutive_low_quality")));
    let summary = t.get(a, &format!("/api/mind-maps/{map}/mastery-summary")).await.expect(200);
    assert_eq!(summary["struggling_node_ids"], json!([ids["Lifetimes"]]));

    // Re-planning, with no body and with a missing concept.
    let replanned =
        t.call(Method::POST, &format!("/api/mind-maps/{map}/replan"), Some(a), Body::Empty).await.expect(200);
    assert_eq!(replanned["node_count"], 5);
    assert_eq!(replanned["sequence"].as_array().unwrap().len(), 5);
    assert_eq!(replanned["added_node_ids"], json!([]));
    let replanned = t
        .post(
            a,
            &format!("/api/mind-maps/{map}/replan"),
            json!({ "reason": "needs the tooling first", "add_nodes": [{ "label": "Cargo", "effort_minutes": 15 }] }),
        )
        .await
        .expect(200);
    assert_eq!((replanned["node_count"].as_u64(), replanned["edge_count"].as_u64()), (Some(6), Some(5)));
    assert_eq!(replanned["added_node_ids"].as_array().unwrap().len(), 1);
    assert_eq!(replanned["sequence"].as_array().unwrap().len(), 6);
    let cargo = text(&replanned["added_node_ids"][0]);
    assert_eq!(t.get(a, &format!("/api/nodes/{cargo}")).await.expect(200)["label"], "Cargo");

    // The root is mastered by hand (reviewing -> mastered); its dependants open up.
    let mastered = t.patch(a, &format!("/api/nodes/{root}"), json!({ "mastery_status": "mastered" })).await.expect(200);
    assert_eq!(mastered["mastery_status"], "mastered");
    let mut frontier = labels(&t.get(a, &format!("/api/mind-maps/{map}/frontier")).await.expect(200));
    frontier.sort();
    assert_eq!(frontier, ["Cargo", "Ownership", "Traits"]);
    let next = t.get(a, &format!("/api/mind-maps/{map}/next-node")).await.expect(200);
    assert!(frontier.contains(&text(&next["node"]["label"])), "{next}");
    let replanned =
        t.call(Method::POST, &format!("/api/mind-maps/{map}/replan"), Some(a), Body::Empty).await.expect(200);
    assert_eq!(replanned["skippable_node_ids"], json!([root]), "mastered at 14/15 is skippable");

    // The subtree of a concept: it and everything that needs it.
    let subtree = t.get(a, &format!("/api/nodes/{}/subtree", ids["Ownership"])).await.expect(200);
    assert_eq!(subtree["root_id"], ids["Ownership"].as_str());
    let mut in_subtree = labels(&subtree["nodes"]);
    in_subtree.sort();
    assert_eq!(in_subtree, ["Borrowing", "Lifetimes", "Ownership"]);
    assert_eq!(subtree["edges"].as_array().unwrap().len(), 2);

    // Node status changes follow the state machine.
    let patched = t
        .patch(a, &format!("/api/nodes/{}", ids["Traits"]), json!({ "mastery_status": "diagnosed" }))
        .await
        .expect(200);
    assert_eq!(patched["mastery_status"], "diagnosed");
    t.refused(
        Method::PATCH,
        &format!("/api/nodes/{}", ids["Ownership"]),
        Some(a),
        Body::Json(json!({ "mastery_status": "reviewing" })),
        (409, "invalid_transition"),
        &["mastery_status", "'diagnosed'", "'reviewing'", "learning"],
    )
    .await;
    t.refused(
        Method::PATCH,
        &format!("/api/nodes/{root}"),
        Some(a),
        Body::Json(json!({ "mastery_status": "learning" })),
        (409, "invalid_transition"),
        &["mastery_status", "mastered is final"],
    )
    .await;
    t.refused(
        Method::PATCH,
        &format!("/api/nodes/{root}"),
        Some(a),
        Body::Json(json!({ "mastery_score": 1.5 })),
        (422, "invalid"),
        &["mastery_score"],
    )
    .await;
    assert_eq!(t.get(a, &format!("/api/nodes/{}", ids["Ownership"])).await.expect(200)["mastery_status"], "diagnosed");

    // Abandoning the map closes it to re-planning and to new responses.
    let abandoned = t.patch(a, &format!("/api/mind-maps/{map}"), json!({ "status": "abandoned" })).await.expect(200);
    assert_eq!(abandoned["status"], "abandoned");
    t.refused(
        Method::POST,
        &format!("/api/mind-maps/{map}/replan"),
        Some(a),
        Body::Empty,
        (409, "map_not_open"),
        &["abandoned", "curriculum_replan"],
    )
    .await;
    t.refused(
        Method::POST,
        "/api/responses",
        Some(a),
        Body::Json(response_body(&ids["Traits"], &map, 4, "teach")),
        (409, "map_not_open"),
        &["abandoned"],
    )
    .await;
    t.refused(
        Method::PATCH,
        &format!("/api/mind-maps/{map}"),
        Some(a),
        Body::Json(json!({ "status": "active" })),
        (409, "invalid_transition"),
        &["status", "'abandoned'", "'active'"],
    )
    .await;
    let next = t.get(a, &format!("/api/mind-maps/{map}/next-node")).await.expect(200);
    assert_eq!(next["node"], Value::Null, "an abandoned map has no next node");
    assert_eq!(t.get(a, "/api/mind-maps?status=abandoned").await.expect(200)["total"], 1);

    // Deleting the map takes its nodes and responses with it.
    let before = t.counts().await;
    t.delete(a, &format!("/api/mind-maps/{map}")).await.expect(204);
    assert_ne!(t.counts().await, before);
    t.get(a, &format!("/api/mind-maps/{map}")).await.expect_error(404, "not_found", &[&map]);
    t.get(a, &format!("/api/nodes/{root}")).await.expect_error(404, "not_found", &[&root]);
    t.refused(Method::DELETE, &format!("/api/mind-maps/{map}"), Some(a), Body::Empty, (404, "not_found"), &[&map])
        .await;
    assert_eq!(t.get(a, "/api/mind-maps").await.expect(200)["total"], 2);
    assert_eq!(count(format!("mind_map_id={map}")).await, 0);
}

// ---------------------------------------------------------------------------------------
// Building a map node by node
// ---------------------------------------------------------------------------------------

async fn create_map(t: &TestApp, token: &str, title: &str) -> String {
    let map = t.post(token, "/api/mind-maps", json!({ "title": title })).await.expect(201);
    assert_eq!(map["status"], "draft");
    assert_eq!(map["root_node_id"], Value::Null);
    text(&map["id"])
}

async fn add_node(t: &TestApp, token: &str, map: &str, label: &str, prerequisites: &[&str]) -> String {
    let node = t
        .post(
            token,
            &format!("/api/mind-maps/{map}/nodes"),
            json!({ "label": label, "effort_minutes": 10, "prerequisite_ids": prerequisites }),
        )
        .await
        .expect(201);
    assert_eq!(node["label"], label);
    text(&node["id"])
}

async fn add_edge(t: &TestApp, token: &str, map: &str, parent: &str, child: &str, edge_type: &str) -> Value {
    t.post(
        token,
        &format!("/api/mind-maps/{map}/edges"),
        json!({ "parent_node_id": parent, "child_node_id": child, "edge_type": edge_type }),
    )
    .await
    .expect(201)
}

async fn building_a_map_node_by_node(t: &TestApp) {
    let a = t.a.as_str();
    let map = create_map(t, a, "Graphs").await;
    let nodes_path = format!("/api/mind-maps/{map}/nodes");
    let edges_path = format!("/api/mind-maps/{map}/edges");

    // The first node becomes the root; later ones need a prerequisite.
    let root = add_node(t, a, &map, "Graphs", &[]).await;
    let agg = t.get(a, &format!("/api/mind-maps/{map}")).await.expect(200);
    assert_eq!(agg["root_node_id"], root.as_str());
    assert_eq!(agg["status"], "draft");
    t.refused(
        Method::POST,
        &nodes_path,
        Some(a),
        Body::Json(json!({ "label": "Orphan", "effort_minutes": 10 })),
        // At odds with the map (it has a root), not with the request's shape.
        (409, "conflict"),
        &["prerequisite_ids", "Graphs"],
    )
    .await;
    t.refused(
        Method::POST,
        &nodes_path,
        Some(a),
        Body::Json(json!({ "label": " graphs ", "prerequisite_ids": [root] })),
        (409, "duplicate_label"),
        &["label", "graphs"],
    )
    .await;
    t.refused(
        Method::POST,
        &nodes_path,
        Some(a),
        Body::Json(json!({ "label": "Lazy", "effort_minutes": 0, "prerequisite_ids": [root] })),
        (422, "invalid"),
        &["effort_minutes", "1 to 10000"],
    )
    .await;
    t.refused(
        Method::POST,
        &nodes_path,
        Some(a),
        Body::Json(json!({ "label": "   ", "prerequisite_ids": [root] })),
        (422, "invalid"),
        &["label", "must not be empty"],
    )
    .await;

    // A -> B -> C, then C -> A closes a cycle, reported as its path.
    let na = add_node(t, a, &map, "A", &[&root]).await;
    let nb = add_node(t, a, &map, "B", &[&root]).await;
    let nc = add_node(t, a, &map, "C", &[&root]).await;
    let edge = add_edge(t, a, &map, &na, &nb, "prerequisite").await;
    assert_eq!(
        (edge["parent_node_id"].as_str(), edge["child_node_id"].as_str()),
        (Some(na.as_str()), Some(nb.as_str()))
    );
    assert_eq!(edge["edge_type"], "prerequisite");
    add_edge(t, a, &map, &nb, &nc, "prerequisite").await;
    let before = t.get(a, &format!("/api/mind-maps/{map}")).await.expect(200);
    let error = t
        .refused(
            Method::POST,
            &edges_path,
            Some(a),
            Body::Json(json!({ "parent_node_id": nc, "child_node_id": na })),
            (422, "cycle"),
            &["cycle: C -> A -> B -> C"],
        )
        .await;
    assert_eq!(error["details"]["cycle"], json!(["C", "A", "B", "C"]));
    t.refused(
        Method::POST,
        &edges_path,
        Some(a),
        Body::Json(json!({ "parent_node_id": na, "child_node_id": na })),
        (422, "self_loop"),
        &["self-loop", "'A'"],
    )
    .await;
    t.refused(
        Method::POST,
        &edges_path,
        Some(a),
        Body::Json(json!({ "parent_node_id": na, "child_node_id": nb })),
        (409, "duplicate_edge"),
        &["'A' -> 'B'"],
    )
    .await;
    assert_eq!(t.get(a, &format!("/api/mind-maps/{map}")).await.expect(200), before, "refusals left the map as it was");
    let depths: HashMap<String, i64> =
        before["nodes"].as_array().unwrap().iter().map(|n| (text(&n["label"]), n["depth"].as_i64().unwrap())).collect();
    assert_eq!((depths["A"], depths["B"], depths["C"]), (1, 2, 3), "depth is the longest prerequisite path");

    // An edge to a node of another map.
    let other = create_map(t, a, "Elsewhere").await;
    let stranger = add_node(t, a, &other, "Stranger", &[]).await;
    t.refused(
        Method::POST,
        &edges_path,
        Some(a),
        Body::Json(json!({ "parent_node_id": stranger, "child_node_id": na })),
        (404, "cross_map_edge"),
        &["parent_node_id", &stranger, &map],
    )
    .await;
    t.refused(
        Method::POST,
        &edges_path,
        Some(a),
        Body::Json(json!({ "parent_node_id": na, "child_node_id": stranger })),
        (404, "cross_map_edge"),
        &["child_node_id", &stranger],
    )
    .await;
    t.refused(
        Method::POST,
        &nodes_path,
        Some(a),
        Body::Json(json!({ "label": "Smuggled", "prerequisite_ids": [stranger] })),
        (404, "cross_map_edge"),
        &["prerequisite_ids", &stranger],
    )
    .await;

    // A related edge is informational: it may point backwards, and it gates nothing.
    let nd = add_node(t, a, &map, "D", &[&root]).await;
    let related = add_edge(t, a, &map, &nc, &nd, "related").await;
    assert_eq!(related["edge_type"], "related");
    add_edge(t, a, &map, &nc, &na, "related").await;
    for status in ["diagnosed", "learning", "reviewing", "mastered"] {
        t.patch(a, &format!("/api/nodes/{root}"), json!({ "mastery_status": status })).await.expect(200);
    }
    let mut frontier = labels(&t.get(a, &format!("/api/mind-maps/{map}/frontier")).await.expect(200));
    frontier.sort();
    assert_eq!(frontier, ["A", "D"], "D's only prerequisite is mastered; its related edge from C does not gate it");

    // Removing an edge that is a node's only path from the root is refused; others are not.
    t.refused(
        Method::DELETE,
        &format!("/api/mind-maps/{map}/edges/{root}/{nd}"),
        Some(a),
        Body::Empty,
        (409, "unreachable"),
        &["'D'", "reachable"],
    )
    .await;
    t.delete(a, &format!("/api/mind-maps/{map}/edges/{root}/{nb}")).await.expect(204);
    t.refused(
        Method::DELETE,
        &format!("/api/mind-maps/{map}/edges/{root}/{nb}"),
        Some(a),
        Body::Empty,
        (404, "not_found"),
        &["edge"],
    )
    .await;
    t.refused(Method::DELETE, &format!("/api/nodes/{root}"), Some(a), Body::Empty, (409, "conflict"), &["root"]).await;
    let edges = t.get(a, &format!("/api/mind-maps/{map}")).await.expect(200)["edges"].clone();
    assert_eq!(edges.as_array().unwrap().len(), 7);

    // Depth: a chain of seven puts the seventh at depth 6, past the limit of 5.
    let deep = create_map(t, a, "Deep").await;
    let mut previous = add_node(t, a, &deep, "Level 0", &[]).await;
    for level in 1..=5 {
        previous = add_node(t, a, &deep, &format!("Level {level}"), &[&previous]).await;
    }
    let error = t
        .refused(
            Method::POST,
            &format!("/api/mind-maps/{deep}/nodes"),
            Some(a),
            Body::Json(json!({ "label": "Level 6", "prerequisite_ids": [previous] })),
            (422, "max_depth"),
            &["depth", "'Level 6'", "6", "5"],
        )
        .await;
    assert_eq!((error["details"]["depth"].as_u64(), error["details"]["max_depth"].as_u64()), (Some(6), Some(5)));
    assert_eq!(t.get(a, &format!("/api/mind-maps/{deep}/nodes")).await.expect(200).as_array().unwrap().len(), 6);

    // Size: thirty nodes fit, the thirty-first does not.
    let wide = create_map(t, a, "Wide").await;
    let hub = add_node(t, a, &wide, "Hub", &[]).await;
    for i in 1..30 {
        add_node(t, a, &wide, &format!("Spoke {i}"), &[&hub]).await;
    }
    let error = t
        .refused(
            Method::POST,
            &format!("/api/mind-maps/{wide}/nodes"),
            Some(a),
            Body::Json(json!({ "label": "Spoke 30", "prerequisite_ids": [hub] })),
            (422, "max_nodes"),
            &["30", "31"],
        )
        .await;
    assert_eq!(error["details"]["max_nodes"], 30);

    // A draft map becomes active once it has nodes, and gets a learning order.
    let activated = t.patch(a, &format!("/api/mind-maps/{deep}"), json!({ "status": "active" })).await.expect(200);
    assert_eq!(activated["status"], "active");
    let next = t.get(a, &format!("/api/mind-maps/{deep}/next-node")).await.expect(200);
    assert_eq!(next["node"]["label"], "Level 0");
    let empty = create_map(t, a, "Empty").await;
    t.refused(
        Method::PATCH,
        &format!("/api/mind-maps/{empty}"),
        Some(a),
        Body::Json(json!({ "status": "active" })),
        (409, "conflict"),
        &["status", "root"],
    )
    .await;
    t.refused(
        Method::PATCH,
        &format!("/api/mind-maps/{empty}"),
        Some(a),
        Body::Json(json!({ "status": "completed" })),
        (409, "invalid_transition"),
        &["'draft'", "'completed'", "active, abandoned"],
    )
    .await;

    // Planning an empty draft map from a decomposition, all or nothing.
    t.refused(
        Method::POST,
        &format!("/api/mind-maps/{empty}/plan"),
        Some(a),
        Body::Json(json!({ "decomposition": decomposition(&["X", "Y"], &[("X", "Y"), ("Y", "X")]) })),
        (422, "cycle"),
        &["cycle:"],
    )
    .await;
    let planned = t
        .post(
            a,
            &format!("/api/mind-maps/{empty}/plan"),
            json!({ "decomposition": decomposition(&["X", "Y"], &[("X", "Y")]) }),
        )
        .await
        .expect(200);
    assert_eq!((planned["node_count"].as_u64(), planned["status"].as_str()), (Some(2), Some("active")));
    t.refused(
        Method::POST,
        &format!("/api/mind-maps/{empty}/plan"),
        Some(a),
        Body::Json(json!({ "decomposition": decomposition(&["X"], &[]) })),
        (409, "conflict"),
        &["plan", "replan"],
    )
    .await;
}

// ---------------------------------------------------------------------------------------
// Bad input
// ---------------------------------------------------------------------------------------

async fn bad_input_is_refused_with_the_field_named(t: &TestApp) {
    let (a, b) = (t.a.as_str(), t.b.as_str());
    let summary = t.generate(a, "Rust", decomposition(&["Rust", "Ownership"], &[("Rust", "Ownership")])).await;
    let map = text(&summary["mind_map_id"]);
    let root = text(&summary["root_node_id"]);
    let other = t.generate(a, "Go", decomposition(&["Go"], &[])).await;
    let other_map = text(&other["mind_map_id"]);
    let bs = t.generate(b, "Bob's", decomposition(&["Bob's root"], &[])).await;
    let b_map = text(&bs["mind_map_id"]);
    let b_root = text(&bs["root_node_id"]);

    // Quality out of range.
    for quality in [-1, 6] {
        t.refused(
            Method::POST,
            "/api/responses",
            Some(a),
            Body::Json(response_body(&root, &map, quality, "teach")),
            (422, "invalid"),
            &["quality", &quality.to_string(), "0 to 5"],
        )
        .await;
    }
    // Not a quality at all, or none.
    let mut wrong_type = response_body(&root, &map, 3, "teach");
    wrong_type["quality"] = json!("good");
    t.refused(Method::POST, "/api/responses", Some(a), Body::Json(wrong_type), (400, "malformed_json"), &["quality"])
        .await;
    let mut missing = response_body(&root, &map, 3, "teach");
    missing.as_object_mut().unwrap().remove("quality");
    t.refused(Method::POST, "/api/responses", Some(a), Body::Json(missing), (400, "malformed_json"), &["quality"])
        .await;
    // An unknown response type.
    let error = t
        .refused(
            Method::POST,
            "/api/responses",
            Some(a),
            Body::Json(response_body(&root, &map, 3, "exam")),
            (400, "malformed_json"),
            &["response_type", "exam"],
        )
        .await;
    assert_eq!(error["details"]["field"], "response_type");
    // Text holding a NUL (which PostgreSQL cannot store): refused the same on either store,
    // the field named, in an answer and in a new map's title.
    let mut nul = response_body(&root, &map, 3, "teach");
    nul["user_answer"] = json!("before\u{0}after");
    let error = t
        .refused(Method::POST, "/api/responses", Some(a), Body::Json(nul), (422, "unstorable_text"), &["U+0000"])
        .await;
    assert_eq!(error["details"]["field"], "user_answer");
    let error = t
        .refused(
            Method::POST,
            "/api/mind-maps",
            Some(a),
            Body::Json(json!({ "title": "a\u{0}b" })),
            (422, "unstorable_text"),
            &["title"],
        )
        .await;
    assert_eq!(error["details"]["field"], "title");
    // An unknown field: well-formed JSON that breaks the operation's shape, named with what is allowed.
    let mut extra = response_body(&root, &map, 3, "teach");
    extra["score"] = json!(1);
    let error = t
        .refused(
            Method::POST,
            "/api/responses",
            Some(a),
            Body::Json(extra),
            (422, "unknown_field"),
            &["score: unknown field; allowed: node_id, mind_map_id, question_text"],
        )
        .await;
    assert_eq!(error["details"]["field"], "score");
    assert_eq!(error["details"]["allowed"][0], "node_id");
    // A node of another map, a node of another learner, a node that does not exist.
    t.refused(
        Method::POST,
        "/api/responses",
        Some(a),
        Body::Json(response_body(&root, &other_map, 3, "teach")),
        (404, "cross_map_edge"),
        &["node_id", &root, &other_map],
    )
    .await;
    t.refused(
        Method::POST,
        "/api/responses",
        Some(a),
        Body::Json(response_body(&b_root, &b_map, 3, "teach")),
        (404, "not_found"),
        &[&b_root],
    )
    .await;
    let ghost = random_id();
    t.refused(
        Method::POST,
        "/api/responses",
        Some(a),
        Body::Json(response_body(&ghost, &map, 3, "teach")),
        (404, "not_found"),
        &[&ghost],
    )
    .await;
    // An empty question.
    let mut blank = response_body(&root, &map, 3, "teach");
    blank["question_text"] = json!("  ");
    t.refused(Method::POST, "/api/responses", Some(a), Body::Json(blank), (422, "invalid"), &["question_text"]).await;
    // Not a UUID in the body.
    let mut bad_id = response_body(&root, &map, 3, "teach");
    bad_id["node_id"] = json!("node-1");
    t.refused(Method::POST, "/api/responses", Some(a), Body::Json(bad_id), (400, "malformed_json"), &["node_id"]).await;

    // Malformed JSON, an empty body, a body that is not an object.
    let error = t
        .refused(
            Method::POST,
            "/api/responses",
            Some(a),
            Body::Raw(format!("{{\"node_id\": \"{root}\",\n \"quality\": 3,,}}")),
            (400, "malformed_json"),
            &["line 2"],
        )
        .await;
    assert_eq!(error["details"]["line"], 2);
    t.refused(Method::POST, "/api/responses", Some(a), Body::Raw(String::new()), (400, "malformed_json"), &["body"])
        .await;
    t.refused(
        Method::POST,
        "/api/responses",
        Some(a),
        Body::Raw("\"hello\"".into()),
        (400, "malformed_json"),
        &["body", "JSON object"],
    )
    .await;
    t.refused(
        Method::POST,
        "/api/responses",
        Some(a),
        Body::Raw("[\"a\", \"b\"]".into()),
        (400, "malformed_json"),
        &["body", "JSON object"],
    )
    .await;
    t.refused(
        Method::POST,
        "/api/mind-maps",
        Some(a),
        Body::Raw("{\"title\": \"unterminated".into()),
        (400, "malformed_json"),
        &["title", "EOF", "line 1"],
    )
    .await;

    // A body over 1 MiB.
    let mut huge = response_body(&root, &map, 3, "teach");
    huge["question_text"] = json!("x".repeat(1024 * 1024 + 1));
    let error = t
        .refused(Method::POST, "/api/responses", Some(a), Body::Json(huge), (413, "body_too_large"), &["1048576"])
        .await;
    assert_eq!(error["details"]["max_bytes"], 1024 * 1024);
    let mut huge_map = json!({ "title": "Big" });
    huge_map["metadata"] = json!({ "padding": "y".repeat(2 * 1024 * 1024) });
    t.refused(Method::POST, "/api/mind-maps", Some(a), Body::Json(huge_map), (413, "body_too_large"), &["body"]).await;

    // Ids that are unknown, and ids that are not ids.
    let unknown = random_id();
    for path in [
        format!("/api/mind-maps/{unknown}"),
        format!("/api/mind-maps/{unknown}/nodes"),
        format!("/api/mind-maps/{unknown}/frontier"),
        format!("/api/mind-maps/{unknown}/next-node"),
        format!("/api/mind-maps/{unknown}/mastery-summary"),
        format!("/api/mind-maps/{unknown}/struggles"),
        format!("/api/mind-maps/{unknown}/pending-reviews"),
        format!("/api/nodes/{unknown}"),
        format!("/api/nodes/{unknown}/history"),
        format!("/api/nodes/{unknown}/subtree"),
    ] {
        t.get(a, &path).await.expect_error(404, "not_found", &[&unknown]);
    }
    t.refused(
        Method::PATCH,
        &format!("/api/mind-maps/{unknown}"),
        Some(a),
        Body::Json(json!({ "status": "abandoned" })),
        (404, "not_found"),
        &[&unknown],
    )
    .await;
    t.refused(Method::DELETE, &format!("/api/nodes/{unknown}"), Some(a), Body::Empty, (404, "not_found"), &[&unknown])
        .await;
    t.refused(
        Method::POST,
        &format!("/api/mind-maps/{unknown}/nodes"),
        Some(a),
        Body::Json(json!({ "label": "Lost" })),
        (404, "not_found"),
        &[&unknown],
    )
    .await;
    for path in ["/api/mind-maps/not-a-uuid", "/api/nodes/42/history", "/api/mind-maps/123/frontier"] {
        t.get(a, path).await.expect_error(400, "bad_path", &["path", "UUID"]);
    }
    t.refused(
        Method::DELETE,
        &format!("/api/mind-maps/{map}/edges/{root}/nope"),
        Some(a),
        Body::Empty,
        (400, "bad_path"),
        &["UUID"],
    )
    .await;

    // Query strings: the parameter at fault is named.
    let error =
        t.get(a, "/api/mind-maps?colour=blue").await.expect_error(400, "bad_query", &["colour", "unknown field"]);
    assert_eq!(error["details"]["field"], "colour");
    let error =
        t.get(a, "/api/mind-maps?offset=abc").await.expect_error(400, "bad_query", &["offset", "invalid digit"]);
    assert_eq!(error["details"]["field"], "offset");
    t.get(a, "/api/mind-maps?limit=1.5").await.expect_error(400, "bad_query", &["limit"]);
    t.get(a, "/api/mind-maps?status=finished").await.expect_error(400, "bad_query", &["status", "finished"]);
    t.get(a, "/api/mind-maps?offset=-1").await.expect_error(422, "invalid", &["offset", "-1"]);
    t.get(a, "/api/mind-maps?limit=0").await.expect_error(422, "invalid", &["limit", "1 to 500"]);
    t.get(a, "/api/mind-maps?limit=501").await.expect_error(422, "invalid", &["limit", "501"]);
    t.get(a, "/api/quiz-responses?offset=-5").await.expect_error(422, "invalid", &["offset"]);
    t.get(a, "/api/quiz-responses?response_type=exam").await.expect_error(400, "bad_query", &["response_type", "exam"]);
    t.get(a, "/api/quiz-responses?node_id=abc").await.expect_error(400, "bad_query", &["node_id", "UUID"]);
    t.get(a, &format!("/api/nodes/{root}/history?limit=0")).await.expect_error(422, "invalid", &["limit"]);
    t.get(a, &format!("/api/mind-maps/{map}/pending-reviews?horizon_days=-1")).await.expect_error(
        422,
        "invalid",
        &["horizon_days", "0 to 3650"],
    );
    t.get(a, &format!("/api/mind-maps/{map}/pending-reviews?days=1")).await.expect_error(
        400,
        "bad_query",
        &["days", "horizon_days"],
    );
    t.get(a, &format!("/api/mind-maps/{map}/nodes?mastery_status=bored")).await.expect_error(
        400,
        "bad_query",
        &["mastery_status", "bored"],
    );

    // Decompositions that break a rule plan nothing.
    t.refused(
        Method::POST,
        "/api/curriculum/generate",
        Some(a),
        Body::Json(json!({ "topic": "Loop", "decomposition": decomposition(
            &["Root", "A", "B", "C"],
            &[("Root", "A"), ("A", "B"), ("B", "C"), ("C", "A")],
        ) })),
        (422, "cycle"),
        &["cycle:", "A", "B", "C"],
    )
    .await;
    let many: Vec<String> = (0..31).map(|i| format!("Concept {i}")).collect();
    let many: Vec<&str> = many.iter().map(String::as_str).collect();
    let spokes: Vec<(&str, &str)> = many[1..].iter().map(|c| (many[0], *c)).collect();
    t.refused(
        Method::POST,
        "/api/curriculum/generate",
        Some(a),
        Body::Json(json!({ "topic": "Too big", "decomposition": decomposition(&many, &spokes) })),
        (422, "max_nodes"),
        &["30", "31"],
    )
    .await;
    let chain: Vec<String> = (0..7).map(|i| format!("Step {i}")).collect();
    let chain: Vec<&str> = chain.iter().map(String::as_str).collect();
    let links: Vec<(&str, &str)> = chain.windows(2).map(|w| (w[0], w[1])).collect();
    t.refused(
        Method::POST,
        "/api/curriculum/generate",
        Some(a),
        Body::Json(json!({ "topic": "Too deep", "decomposition": decomposition(&chain, &links) })),
        (422, "max_depth"),
        &["'Step 6'", "depth 6"],
    )
    .await;
    t.refused(
        Method::POST,
        "/api/curriculum/generate",
        Some(a),
        Body::Json(json!({ "topic": "Typo", "decomposition": decomposition(&["Root", "A"], &[("Root", "Aa")]) })),
        (422, "invalid"),
        &["edges[0].child", "'Aa'"],
    )
    .await;
    t.refused(
        Method::POST,
        "/api/curriculum/generate",
        Some(a),
        Body::Json(json!({ "topic": "Effort", "decomposition": {
            "root": "Root", "nodes": [{ "label": "Root", "effort_minutes": -3 }] } })),
        (422, "invalid"),
        &["nodes[0].effort_minutes", "-3"],
    )
    .await;
    t.refused(
        Method::POST,
        "/api/curriculum/generate",
        Some(a),
        Body::Json(json!({ "topic": "Effort", "decomposition": {
            "root": "Root", "nodes": [{ "label": "Root", "effort_minutes": "ten" }] } })),
        (400, "malformed_json"),
        &["decomposition.nodes[0].effort_minutes"],
    )
    .await;
    t.refused(
        Method::POST,
        "/api/curriculum/generate",
        Some(a),
        Body::Json(json!({ "topic": "  ", "decomposition": decomposition(&["Root"], &[]) })),
        (422, "invalid"),
        &["title"],
    )
    .await;

    // Routes and methods that do not exist answer in JSON too.
    for path in ["/api/nope", "/nope", "/api/mind-maps/x/y/z"] {
        let reply = t.get(a, path).await;
        reply.expect_error(404, "not_found", &[path]);
    }
    let reply = t.call(Method::PUT, "/api/mind-maps", Some(a), Body::Json(json!({}))).await;
    reply.expect_error(405, "method_not_allowed", &["PUT", "/api/mind-maps"]);
    let reply = t.call(Method::DELETE, "/api/responses", Some(a), Body::Empty).await;
    reply.expect_error(405, "method_not_allowed", &["DELETE"]);
    let reply = t.call(Method::POST, "/healthz", None, Body::Empty).await;
    reply.expect_error(405, "method_not_allowed", &["POST"]);
    assert_eq!(t.call(Method::GET, "/healthz", None, Body::Empty).await.expect(200), Value::Null);
}

// ---------------------------------------------------------------------------------------
// Isolation between learners
// ---------------------------------------------------------------------------------------

async fn learners_are_isolated(t: &TestApp) {
    let (a, b) = (t.a.as_str(), t.b.as_str());
    let summary = t.generate(a, "Ada's map", decomposition(&["Root", "Child"], &[("Root", "Child")])).await;
    let map = text(&summary["mind_map_id"]);
    let root = text(&summary["root_node_id"]);
    let child = t.ids(a, &map).await["Child"].clone();
    t.post(a, "/api/responses", response_body(&root, &map, 4, "teach")).await.expect(201);
    let bobs = text(&t.generate(b, "Bob's map", decomposition(&["Bob's root"], &[])).await["mind_map_id"]);

    // Every read of A's map, node or history is "not found" for B.
    for path in [
        format!("/api/mind-maps/{map}"),
        format!("/api/mind-maps/{map}/nodes"),
        format!("/api/mind-maps/{map}/frontier"),
        format!("/api/mind-maps/{map}/next-node"),
        format!("/api/mind-maps/{map}/mastery-summary"),
        format!("/api/mind-maps/{map}/struggles"),
        format!("/api/mind-maps/{map}/pending-reviews?horizon_days=30"),
        format!("/api/nodes/{root}"),
        format!("/api/nodes/{root}/history"),
        format!("/api/nodes/{root}/subtree"),
    ] {
        t.get(b, &path).await.expect_error(404, "not_found", &[]);
    }
    // And every write.
    let not_found = (404, "not_found");
    t.refused(
        Method::POST,
        "/api/responses",
        Some(b),
        Body::Json(response_body(&root, &map, 5, "teach")),
        not_found,
        &[&root],
    )
    .await;
    t.refused(
        Method::POST,
        "/api/responses",
        Some(b),
        Body::Json(response_body(&root, &bobs, 5, "teach")),
        not_found,
        &[&root],
    )
    .await;
    t.refused(
        Method::PATCH,
        &format!("/api/mind-maps/{map}"),
        Some(b),
        Body::Json(json!({ "status": "abandoned" })),
        not_found,
        &[&map],
    )
    .await;
    t.refused(Method::DELETE, &format!("/api/mind-maps/{map}"), Some(b), Body::Empty, not_found, &[&map]).await;
    t.refused(
        Method::POST,
        &format!("/api/mind-maps/{map}/nodes"),
        Some(b),
        Body::Json(json!({ "label": "Intruder", "prerequisite_ids": [root] })),
        not_found,
        &[&map],
    )
    .await;
    t.refused(
        Method::POST,
        &format!("/api/mind-maps/{map}/edges"),
        Some(b),
        Body::Json(json!({ "parent_node_id": child, "child_node_id": root, "edge_type": "related" })),
        not_found,
        &[&map],
    )
    .await;
    t.refused(
        Method::DELETE,
        &format!("/api/mind-maps/{map}/edges/{root}/{child}"),
        Some(b),
        Body::Empty,
        not_found,
        &[&map],
    )
    .await;
    t.refused(Method::POST, &format!("/api/mind-maps/{map}/replan"), Some(b), Body::Empty, not_found, &[&map]).await;
    t.refused(
        Method::PATCH,
        &format!("/api/nodes/{root}"),
        Some(b),
        Body::Json(json!({ "label": "Mine now" })),
        not_found,
        &[&root],
    )
    .await;
    t.refused(Method::DELETE, &format!("/api/nodes/{child}"), Some(b), Body::Empty, not_found, &[&child]).await;
    // B cannot hang A's nodes into B's own map either.
    t.refused(
        Method::POST,
        &format!("/api/mind-maps/{bobs}/nodes"),
        Some(b),
        Body::Json(json!({ "label": "Borrowed", "prerequisite_ids": [root] })),
        (404, "cross_map_edge"),
        &[&root],
    )
    .await;

    // Listings only show one's own.
    let listed = t.get(a, "/api/mind-maps").await.expect(200);
    assert_eq!(field_ids(&listed["items"], "id"), [map.as_str()]);
    assert_eq!(listed["total"], 1);
    let listed = t.get(b, "/api/mind-maps").await.expect(200);
    assert_eq!(field_ids(&listed["items"], "id"), [bobs.as_str()]);
    let responses = t.get(b, "/api/quiz-responses").await.expect(200);
    assert_eq!(responses["total"], 0);
    let responses = t.get(b, &format!("/api/quiz-responses?mind_map_id={map}")).await.expect(200);
    assert_eq!(responses["total"], 0);
    assert_eq!(t.get(b, "/api/reviews/pending?horizon_days=30").await.expect(200), json!([]));
    assert_eq!(t.get(a, "/api/quiz-responses").await.expect(200)["total"], 1);
    let due = t.get(a, "/api/reviews/pending?horizon_days=30").await.expect(200);
    assert_eq!(field_ids(&due, "id"), [root.as_str()]);

    // Nothing B tried changed A's map.
    let agg = t.get(a, &format!("/api/mind-maps/{map}")).await.expect(200);
    assert_eq!((agg["status"].as_str(), agg["nodes"].as_array().map(Vec::len)), (Some("active"), Some(2)));
    let me = t.get(b, "/api/me").await.expect(200);
    assert_eq!((me["name"].as_str(), me["is_local"].as_bool()), (Some("Bob"), Some(false)));
}

// ---------------------------------------------------------------------------------------
// Authentication and learners
// ---------------------------------------------------------------------------------------

#[tokio::test]
async fn requests_without_a_valid_token_are_unauthorized() {
    let t = spawn_app().await;
    for path in ["/api/mind-maps", "/api/me", "/api/quiz-responses", "/api/reviews/pending"] {
        let reply = t.call(Method::GET, path, None, Body::Empty).await;
        reply.expect_error(401, "unauthorized", &["Authorization: Bearer"]);
        let challenge = reply.headers.get("www-authenticate").and_then(|v| v.to_str().ok());
        assert_eq!(challenge, Some("Bearer"), "{path}");
    }
    let reply = t.call(Method::GET, "/api/mind-maps", Some("pw_not-a-real-token"), Body::Empty).await;
    reply.expect_error(401, "unauthorized", &["not valid"]);
    assert!(reply.headers.contains_key("www-authenticate"));
    // The operator token is not a learner's token.
    t.call(Method::GET, "/api/me", Some(OPERATOR_TOKEN), Body::Empty).await.expect_error(401, "unauthorized", &[]);
    // Another scheme is no bearer token.
    let reply =
        t.client.get(format!("{}/api/me", t.base)).header("authorization", format!("Basic {}", t.a)).send().await;
    assert_eq!(reply.expect("request").status(), StatusCode::UNAUTHORIZED);
    // Writes without a token change nothing.
    t.refused(
        Method::POST,
        "/api/curriculum/generate",
        None,
        Body::Json(json!({ "topic": "Sneaky", "decomposition": decomposition(&["Root"], &[]) })),
        (401, "unauthorized"),
        &[],
    )
    .await;
    t.refused(
        Method::POST,
        "/api/mind-maps",
        Some("wrong"),
        Body::Json(json!({ "title": "x" })),
        (401, "unauthorized"),
        &[],
    )
    .await;
    // The right token works, and the scheme is case-insensitive.
    let me = t.get(&t.a, "/api/me").await.expect(200);
    assert_eq!(me["name"], "Ada");
    let reply =
        t.client.get(format!("{}/api/me", t.base)).header("authorization", format!("bearer {}", t.a)).send().await;
    assert_eq!(reply.expect("request").status(), StatusCode::OK);
}

#[tokio::test]
async fn the_operator_creates_learners() {
    let t = spawn_app().await;
    let created = t
        .call(Method::POST, "/api/learners", Some(OPERATOR_TOKEN), Body::Json(json!({ "name": "Grace" })))
        .await
        .expect(201);
    assert_eq!(created["name"], "Grace");
    let token = text(&created["token"]);
    assert!(token.starts_with("pw_"), "{token}");
    let me = t.get(&token, "/api/me").await.expect(200);
    assert_eq!((me["id"].as_str(), me["name"].as_str()), (created["id"].as_str(), Some("Grace")));
    assert_eq!(t.get(&token, "/api/mind-maps").await.expect(200)["total"], 0);

    // A learner's token is not the operator's; neither is none.
    for token in [Some(t.a.as_str()), Some(token.as_str()), Some("operator-secret-not"), None] {
        t.refused(
            Method::POST,
            "/api/learners",
            token,
            Body::Json(json!({ "name": "Mallory" })),
            (401, "unauthorized"),
            &["operator token"],
        )
        .await;
    }
    // The operator's request is still checked.
    t.refused(
        Method::POST,
        "/api/learners",
        Some(OPERATOR_TOKEN),
        Body::Json(json!({ "name": "   " })),
        (422, "invalid"),
        &["name", "must not be empty"],
    )
    .await;
    t.refused(
        Method::POST,
        "/api/learners",
        Some(OPERATOR_TOKEN),
        Body::Json(json!({ "nom": "Grace" })),
        (422, "unknown_field"),
        &["nom: unknown field; allowed: name"],
    )
    .await;

    // A server with no operator token configured cannot create learners at all.
    let closed = spawn_server(t.app.clone(), None).await;
    let before = t.counts().await;
    for token in [Some(OPERATOR_TOKEN), Some(t.a.as_str()), None] {
        let mut request = t.client.post(format!("{closed}/api/learners")).json(&json!({ "name": "Eve" }));
        if let Some(token) = token {
            request = request.bearer_auth(token);
        }
        let response = request.send().await.expect("request");
        assert_eq!(response.status(), StatusCode::FORBIDDEN);
        let body: Value = response.json().await.expect("JSON error");
        assert_eq!(body["error"]["code"], "no_operator_token");
        assert!(body["error"]["message"].as_str().unwrap().contains("PATHWISE_OPERATOR_TOKEN"), "{body}");
    }
    assert_eq!(t.counts().await, before);
    // Learners' tokens still work there.
    let response = t.client.get(format!("{closed}/api/me")).bearer_auth(&t.b).send().await.expect("request");
    assert_eq!(response.status(), StatusCode::OK);
}

// ---------------------------------------------------------------------------------------
// The API's own description
// ---------------------------------------------------------------------------------------

#[tokio::test]
async fn the_api_describes_itself() {
    let t = spawn_app().await;
    let reply = t.call(Method::GET, "/api/openapi.json", None, Body::Empty).await;
    let doc = reply.expect(200);
    assert!(doc.is_object(), "openapi.json is not JSON: {}", reply.text);
    let version = doc["openapi"].as_str().unwrap_or("");
    assert!(version.starts_with("3.1"), "openapi version {version}");
    assert_eq!(doc["info"]["title"], "Pathwise API");
    let paths = doc["paths"].as_object().expect("paths");
    for path in [
        "/api/mind-maps",
        "/api/mind-maps/{id}",
        "/api/mind-maps/{id}/plan",
        "/api/responses",
        "/api/curriculum/generate",
        "/api/quiz-responses",
        "/api/learners",
    ] {
        assert!(paths.contains_key(path), "openapi.json lacks {path}");
    }
    assert!(paths["/api/mind-maps"].get("get").is_some() && paths["/api/mind-maps"].get("post").is_some());
    assert!(doc["components"]["securitySchemes"]["bearer"].is_object());
    assert!(doc["components"]["schemas"]["ErrorBody"].is_object());

    let reply = t.call(Method::GET, "/api/docs", None, Body::Empty).await;
    assert_eq!(reply.status, StatusCode::OK);
    let content_type = reply.headers.get("content-type").and_then(|v| v.to_str().ok()).unwrap_or("");
    assert!(content_type.starts_with("text/html"), "{content_type}");
    assert!(reply.text.contains("<html") && reply.text.contains("/api/openapi.json"));
}

#[tokio::test]
async fn a_learner_reads_their_own_token_usage() {
    let t = spawn_app().await;
    let usage = t.get(&t.a, "/api/me/llm-usage").await.expect(200);
    assert_eq!(
        usage,
        json!({ "total": { "calls": 0, "prompt_tokens": 0, "completion_tokens": 0 }, "by_operation": [] })
    );
    t.get(&t.a, "/api/me/llm-usage?since_days=7").await.expect(200);
    t.get(&t.a, "/api/me/llm-usage?since_days=100000").await.expect_error(422, "invalid", &["since_days"]);
    t.get(&t.a, "/api/me/llm-usage?since_days=soon").await.expect_error(400, "bad_query", &["since_days"]);
    t.call(Method::GET, "/api/me/llm-usage", None, Body::Empty).await.expect_error(401, "unauthorized", &[]);
}

// ---------------------------------------------------------------------------------------
// FSRS parameters of one's own
// ---------------------------------------------------------------------------------------

/// Reviews a day or more apart, answered on both of a map's concepts, then a fit on request:
/// too few to fit, so the defaults stay with the reason; the preferences show it after.
async fn fsrs_parameters_are_shown_and_fitted_on_request(t: &TestApp) {
    let a = t.a.as_str();
    let before = t.get(a, "/api/me/preferences").await.expect(200);
    assert_eq!(
        (before["srs_scheduler"].as_str(), before["fsrs"]["parameters"].as_str()),
        (Some("sm2"), Some("defaults"))
    );
    assert!(before["fsrs"]["fitted_at"].is_null() && before["fsrs"]["weights"].as_array().unwrap().len() == 21);

    let map =
        text(&t.generate(a, "Go", decomposition(&["Go", "Goroutines"], &[("Go", "Goroutines")])).await["mind_map_id"]);
    let ids = t.ids(a, &map).await;
    for (node, quality, kind) in [("Go", 4, "teach"), ("Goroutines", 5, "teach"), ("Go", 2, "review")] {
        t.post(a, "/api/responses", response_body(&ids[node], &map, quality, kind)).await.expect(201);
    }
    let chosen = t.patch(a, "/api/me/preferences", json!({ "srs_scheduler": "fsrs" })).await.expect(200);
    assert_eq!(chosen["srs_scheduler"], "fsrs");
    assert_eq!(t.counts().await.iter().find(|(table, _)| table == "node_fsrs").unwrap().1, 2, "both concepts replayed");

    let fit = t.call(Method::POST, "/api/me/preferences/fsrs/fit", Some(a), Body::Empty).await.expect(200);
    assert_eq!((fit["parameters"].as_str(), fit["reviews"].as_i64()), (Some("defaults"), Some(1)), "{fit}");
    assert!(fit["reason"].as_str().unwrap().contains("FSRS needs 8 such reviews"), "{fit}");
    assert!(fit["fitted_at"].is_string(), "{fit}");
    assert_eq!(t.get(a, "/api/me/preferences").await.expect(200)["fsrs"], fit);
    // Another learner's preferences are theirs: nothing of A's fit shows there.
    assert!(t.get(&t.b, "/api/me/preferences").await.expect(200)["fsrs"]["fitted_at"].is_null());
}
