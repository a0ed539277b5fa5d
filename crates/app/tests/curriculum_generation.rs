//! `curriculum_generate` with a language model (the LLM half of curriculum-planning.md):
//! a fake OpenAI-compatible server over real HTTP plays the model, scripted with the tool
//! calls a model would make. Run against SQLite and (with `PATHWISE_TEST_DATABASE_URL`)
//! PostgreSQL. The scenarios that depend on the model's judgement check what Pathwise
//! controls: what the model is told, and what is stored from what it proposes.

mod support;

use pathwise_app::curriculum::{GenerateInput, PlanSummary, ReplanInput};
use pathwise_app::{App, AppError, ErrorCode, ErrorKind};
use pathwise_domain::{MapStatus, MasteryStatus};
use pathwise_fake_llm::{FakeLlm, Script};
use pathwise_llm::{Llm, OpenAiClient, OpenAiConfig};
use serde_json::{json, Value};
use std::sync::Arc;
use std::time::Duration;
use support::TestApp;

async fn with_model(t: &TestApp) -> (FakeLlm, App) {
    let fake = FakeLlm::start().await;
    let config = OpenAiConfig { timeout: Duration::from_millis(500), ..OpenAiConfig::new(fake.base_url(), "planner") };
    let llm = Llm::new(Arc::new(OpenAiClient::new(config).unwrap()), 2);
    (fake, t.app().clone().with_llm(llm))
}

fn create(label: &str, minutes: i64) -> (String, Value) {
    (
        "mind_map_node_create".into(),
        json!({ "label": label, "description": format!("About {label}."), "effort_minutes": minutes }),
    )
}

fn edge(parent: &str, child: &str) -> (String, Value) {
    ("mind_map_edge_create".into(), json!({ "parent_node_id": parent, "child_node_id": child }))
}

fn finish(goal: Option<&str>) -> Script {
    Script::tool("finish", goal.map_or(json!({}), |g| json!({ "goal_node_id": g })))
}

/// A model's turns for a chain `labels[0] -> labels[1] -> ...`.
fn chain_script(labels: &[&str]) -> Vec<Script> {
    vec![
        Script::ToolCalls(labels.iter().map(|l| create(l, 20)).collect()),
        Script::ToolCalls(labels.windows(2).map(|w| edge(w[0], w[1])).collect()),
        finish(None),
    ]
}

async fn generate(app: &App, t: &TestApp, body: Value) -> Result<PlanSummary, AppError> {
    let input: GenerateInput = serde_json::from_value(body).unwrap();
    app.curriculum_generate(t.learner, input).await
}

/// The text of every message sent in the model's last request.
fn last_conversation(fake: &FakeLlm) -> String {
    fake.requests().last().map(|r| r["messages"].to_string()).unwrap_or_default()
}

async fn basic_topic_decomposition_creates_nodes_and_edges(t: &TestApp) {
    let (fake, app) = with_model(t).await;
    fake.script(chain_script(&["Python Fundamentals", "Variables", "Control Flow", "Functions"]));
    let plan = generate(&app, t, json!({ "topic": "Python Fundamentals" })).await.expect("generated");
    assert_eq!((plan.node_count, plan.edge_count, plan.status), (4, 3, MapStatus::Active));

    let map = t.map(plan.mind_map_id).await;
    assert!(map.nodes.iter().all(|n| n.mind_map_id == plan.mind_map_id));
    assert!(map.nodes.iter().all(|n| n.effort_minutes == Some(20) && n.description.is_some()));
    let root = map.nodes.iter().find(|n| Some(n.id) == map.map.root_node_id).expect("root recorded");
    assert_eq!(root.label, "Python Fundamentals");
    // The model was given the creation tools, and the conversation was counted.
    let tools: Vec<Value> =
        fake.requests()[0]["tools"].as_array().unwrap().iter().map(|t| t["function"]["name"].clone()).collect();
    assert!(
        tools.contains(&json!("mind_map_node_create")) && tools.contains(&json!("mind_map_edge_create")),
        "{tools:?}"
    );
    let usage = t.app().llm_usage(t.learner, None).await.unwrap();
    assert_eq!(usage.by_operation[0].operation, "curriculum_generate");
    assert_eq!(usage.by_operation[0].tokens.calls, 3);
}

async fn goal_scoped_plan_excludes_off_path_nodes(t: &TestApp) {
    let (fake, app) = with_model(t).await;
    // The goal reaches the model with the instruction to stay on its path ...
    fake.script([
        Script::ToolCalls(vec![
            create("Python", 30),
            create("HTTP", 30),
            create("Routing", 30),
            create("Requests and responses", 30),
            create("REST APIs", 45),
        ]),
        Script::ToolCalls(vec![
            edge("Python", "HTTP"),
            edge("HTTP", "Routing"),
            edge("HTTP", "Requests and responses"),
            edge("Routing", "REST APIs"),
            edge("Requests and responses", "REST APIs"),
        ]),
        finish(Some("REST APIs")),
    ]);
    let plan = generate(&app, t, json!({ "topic": "Python", "goal": "build a REST API" })).await.expect("generated");
    let told = last_conversation(&fake);
    assert!(told.contains("build a REST API") && told.contains("Include only the concepts on the way"), "{told}");
    // ... and the stored graph is what the model proposed, with the goal on the map.
    let map = t.map(plan.mind_map_id).await;
    let labels: Vec<&str> = map.nodes.iter().map(|n| n.label.as_str()).collect();
    assert!(!labels.iter().any(|l| l.contains("GUI") || l.contains("game")), "{labels:?}");
    assert_eq!(map.map.metadata.get("goal"), Some(&json!("build a REST API")));

    // Without the goal the model is asked for the whole topic.
    let (fake, app) = with_model(t).await;
    let whole = ["Syntax", "Data types", "Functions", "Classes", "Modules", "HTTP", "GUI programming"];
    fake.script([
        Script::ToolCalls(std::iter::once("Python").chain(whole).map(|l| create(l, 30)).collect()),
        Script::ToolCalls(whole.iter().map(|l| edge("Python", l)).collect()),
        finish(None),
    ]);
    // A second map of the topic, asked for (one map per topic otherwise).
    let comprehensive = generate(&app, t, json!({ "topic": "Python", "on_existing": "new" })).await.expect("generated");
    assert!(plan.node_count < comprehensive.node_count);
}

async fn no_goal_plan_covers_the_topic_comprehensively(t: &TestApp) {
    let (fake, app) = with_model(t).await;
    fake.script(chain_script(&["Python Fundamentals", "Variables", "Loops", "Functions", "Classes", "Decorators"]));
    let plan = generate(&app, t, json!({ "topic": "Python Fundamentals" })).await.expect("generated");
    let told = last_conversation(&fake);
    assert!(told.contains("cover the topic comprehensively, from its foundations"), "{told}");
    let map = t.map(plan.mind_map_id).await;
    assert!(
        map.nodes.iter().all(|n| n.metadata.get("optional").is_none_or(|v| v == &json!(false))),
        "no node is optional"
    );
}

async fn diagnostic_results_seed_the_generated_graph(t: &TestApp) {
    let (fake, app) = with_model(t).await;
    fake.script(chain_script(&["Python", "Variables", "Loops"]));
    let body = json!({ "topic": "Python", "diagnostic_results": { "node_label": "Variables", "quality": 4 } });
    let plan = generate(&app, t, body).await.expect("generated");
    assert!(fake.requests()[0]["messages"].to_string().contains("The learner already knows: Variables"));
    let ids = t.ids(plan.mind_map_id).await;
    assert_eq!(t.node(ids["Variables"]).await.mastery_status, MasteryStatus::Diagnosed);
}

/// A generation that must fail: the error, and nothing stored.
async fn refused(t: &TestApp, app: &App, body: Value, kind: ErrorKind, code: ErrorCode, says: &str) {
    let before = t.counts().await;
    let maps_before = t.app().list_maps(t.learner, None, Some(0), Some(100)).await.unwrap().total;
    let error = generate(app, t, body).await.expect_err("generation must fail");
    assert_eq!((error.kind, error.code), (kind, code), "{error}");
    assert!(error.message.contains(says), "{:?} should say {says:?}", error.message);
    let after = t.counts().await;
    let changed: Vec<_> = before.iter().zip(&after).filter(|(b, a)| b != a && b.0 != "llm_calls").collect();
    assert!(changed.is_empty(), "nothing but token accounting may change: {changed:?}");
    assert_eq!(t.app().list_maps(t.learner, None, Some(0), Some(100)).await.unwrap().total, maps_before);
}

async fn a_rejected_graph_is_explained_once_then_refused_with_nothing_stored(t: &TestApp) {
    let (fake, app) = with_model(t).await;
    let cycle = || {
        vec![
            Script::ToolCalls(vec![create("A", 10), create("B", 10), create("C", 10)]),
            Script::ToolCalls(vec![edge("A", "B"), edge("B", "C"), edge("C", "A")]),
            finish(None),
        ]
    };
    let mut script = cycle();
    script.push(finish(None)); // The same graph again, uncorrected.
    fake.script(script);
    refused(t, &app, json!({ "topic": "Cycles" }), ErrorKind::Upstream, ErrorCode::LlmInvalidGraph, "cycle").await;
    let explained = last_conversation(&fake);
    assert!(explained.contains("the graph was rejected") && explained.contains("->"), "{explained}");

    // Corrected after the explanation: stored.
    let mut script = cycle();
    script.push(Script::ToolCalls(vec![(
        "mind_map_edge_delete".into(),
        json!({ "parent_node_id": "C", "child_node_id": "A" }),
    )]));
    script.push(finish(None));
    fake.script(script);
    let plan = generate(&app, t, json!({ "topic": "Cycles" })).await.expect("the corrected graph is stored");
    assert_eq!((plan.node_count, plan.edge_count), (3, 2));
}

async fn too_many_nodes_and_too_deep_are_refused(t: &TestApp) {
    let (fake, app) = with_model(t).await;
    let labels: Vec<String> = (0..31).map(|i| format!("Concept {i}")).collect();
    let too_many = || {
        vec![
            Script::ToolCalls(labels.iter().map(|l| create(l, 10)).collect()),
            Script::ToolCalls(labels[1..].iter().map(|l| edge(&labels[0], l)).collect()),
            finish(None),
        ]
    };
    let mut script = too_many();
    script.push(finish(None));
    fake.script(script);
    refused(t, &app, json!({ "topic": "Huge" }), ErrorKind::Upstream, ErrorCode::LlmInvalidGraph, "30").await;

    let deep = ["D0", "D1", "D2", "D3", "D4", "D5", "D6"];
    let mut script = chain_script(&deep);
    script.push(finish(None));
    fake.script(script);
    refused(t, &app, json!({ "topic": "Deep" }), ErrorKind::Upstream, ErrorCode::LlmInvalidGraph, "depth").await;
}

async fn unknown_labels_and_malformed_arguments_are_explained_to_the_model(t: &TestApp) {
    let (fake, app) = with_model(t).await;
    fake.script([
        Script::ToolCalls(vec![create("Root", 10), create("Leaf", 10)]),
        Script::ToolCalls(vec![edge("Root", "Ghost"), ("mind_map_edge_create".into(), json!("not an object"))]),
        Script::Text("I think I am done.".into()),
        Script::ToolCalls(vec![edge("Root", "Leaf")]),
        finish(None),
    ]);
    let plan = generate(&app, t, json!({ "topic": "Care" })).await.expect("generated after corrections");
    assert_eq!((plan.node_count, plan.edge_count), (2, 1));
    let told = last_conversation(&fake);
    assert!(told.contains("there is no node") && told.contains("Ghost"), "{told}");
    assert!(told.contains("are not valid"), "{told}");
    assert!(told.contains("Build the graph with the tools"), "{told}");
}

async fn a_failing_model_leaves_nothing_behind(t: &TestApp) {
    let (fake, app) = with_model(t).await;
    fake.script([Script::Status(500, "model crashed".into())]);
    refused(t, &app, json!({ "topic": "Down" }), ErrorKind::Upstream, ErrorCode::LlmError, "500").await;
    fake.script([
        Script::ToolCalls(vec![create("Root", 10)]),
        Script::Slow(Duration::from_secs(2), Box::new(finish(None))),
    ]);
    refused(t, &app, json!({ "topic": "Slow" }), ErrorKind::Upstream, ErrorCode::LlmTimeout, "did not answer").await;
    fake.script([Script::Text("{ not json".into())]);
    fake.script([Script::Status(503, "still down".into())]);
    refused(t, &app, json!({ "topic": "Chatty" }), ErrorKind::Upstream, ErrorCode::LlmError, "503").await;
}

async fn a_model_that_calls_no_tools_plans_in_one_schema_constrained_reply(t: &TestApp) {
    let (fake, app) = with_model(t).await;
    let node = |label: &str| json!({ "label": label, "description": format!("About {label}."), "effort_minutes": 20 });
    let link = |parent: &str, child: &str| json!({ "parent": parent, "child": child });
    let cyclic = json!({ "root": "Sets", "nodes": [node("Sets"), node("Relations"), node("Functions")],
        "edges": [link("Sets", "Relations"), link("Relations", "Functions"), link("Functions", "Relations")],
        "goal_node": null });
    let corrected = json!({ "root": "Sets", "nodes": [node("Sets"), node("Relations"), node("Functions")],
        "edges": [link("Sets", "Relations"), link("Relations", "Functions")], "goal_node": "Functions" });
    fake.script([
        Script::Text("Sure! Sets come first, then relations and functions.".into()),
        Script::json(cyclic),
        Script::json(corrected),
    ]);
    let plan = generate(&app, t, json!({ "topic": "Sets", "goal": "Read function notation" })).await.unwrap();
    assert_eq!((plan.node_count, plan.edge_count), (3, 2));
    let requests = fake.requests();
    assert_eq!(requests.len(), 3);
    assert!(requests[0]["tools"].is_array(), "tools first");
    for asked in &requests[1..] {
        assert!(asked.get("tools").is_none(), "{asked}");
        assert_eq!(asked["response_format"]["json_schema"]["name"], "concept_graph");
        assert_eq!(asked["max_tokens"], 2500);
    }
    assert!(last_conversation(&fake).contains("cycle"), "the rejection is explained: {}", last_conversation(&fake));
    let map = t.map(plan.mind_map_id).await;
    let labels: Vec<&str> = map.nodes.iter().map(|n| n.label.as_str()).collect();
    assert_eq!(labels, ["Sets", "Relations", "Functions"]);

    // The faults small models make are mended before the checks: a repeated concept, an
    // edge to a concept never listed, a root not among the concepts, a stray concept.
    // The model is not offered tools again: it has shown that it does not call them.
    let sloppy = json!({ "root": "Logic", "nodes": [node("Statements"), node("statements"), node("Truth tables"),
            node("Proofs")],
        "edges": [link("Logic", "Statements"), link("Statements", "Truth tables"), link("Truth tables", "Quantifiers")],
        "goal_node": null });
    fake.script([Script::json(sloppy)]);
    let plan = generate(&app, t, json!({ "topic": "Logic" })).await.expect("the mended graph is stored");
    assert_eq!((plan.node_count, plan.edge_count), (4, 3));
    let asked = fake.requests().pop().unwrap();
    assert!(asked.get("tools").is_none(), "{asked}");
    let mut labels: Vec<String> = t.map(plan.mind_map_id).await.nodes.into_iter().map(|n| n.label).collect();
    labels.sort();
    assert_eq!(labels, ["Logic", "Proofs", "Statements", "Truth tables"]);

    // What only the model can decide is not mended: a graph rejected twice stores nothing.
    let broken = json!({ "root": "Sets", "nodes": [node("Sets"), node("A"), node("B")],
        "edges": [link("Sets", "A"), link("A", "B"), link("B", "A")], "goal_node": null });
    fake.script([Script::json(broken.clone()), Script::json(broken)]);
    refused(
        t,
        &app,
        json!({ "topic": "Ghosts" }),
        ErrorKind::Upstream,
        ErrorCode::LlmInvalidGraph,
        "after one correction",
    )
    .await;
}

async fn generation_without_a_model_names_the_setting(t: &TestApp) {
    refused(
        t,
        t.app(),
        json!({ "topic": "Offline" }),
        ErrorKind::Unavailable,
        ErrorCode::LlmNotConfigured,
        "llm_base_url",
    )
    .await;
}

fn replan_with(reason: &str) -> ReplanInput {
    ReplanInput { reason: Some(reason.into()), add_nodes: Vec::new() }
}

async fn re_plan_with_a_reason_asks_the_model_for_missing_prerequisites(t: &TestApp) {
    let plan = t.plan("Programming", support::chain(&["Programming", "Functions", "Recursion"])).await;
    let (fake, app) = with_model(t).await;
    fake.script([
        Script::tool(
            "add_prerequisite",
            json!({ "label": "Stack Frames", "description": "What a call leaves on the stack.", "effort_minutes": 15,
                    "prerequisite_of": ["Recursion"], "prerequisites": ["Functions"] }),
        ),
        finish(None),
    ]);
    let result =
        app.replan(t.learner, plan.mind_map_id, replan_with("user struggling with recursion subtree")).await.unwrap();
    assert_eq!(result.added_node_ids.len(), 1);
    let told = fake.requests()[0]["messages"].to_string();
    assert!(told.contains("user struggling with recursion subtree") && told.contains("Recursion"), "{told}");

    let map = t.map(plan.mind_map_id).await;
    let ids = t.ids(plan.mind_map_id).await;
    let frames = t.node(ids["Stack Frames"]).await;
    assert_eq!((frames.depth, frames.effort_minutes), (2, Some(15)));
    assert!(map.edges.iter().any(|e| e.parent_node_id == ids["Stack Frames"] && e.child_node_id == ids["Recursion"]));
    assert_eq!(t.node(ids["Recursion"]).await.depth, 3);
    let mut sequence: Vec<i32> = map.nodes.iter().filter_map(|n| n.sequence).collect();
    sequence.sort();
    assert_eq!(sequence, vec![1, 2, 3, 4]);
    let usage = t.app().llm_usage(t.learner, None).await.unwrap();
    assert_eq!(usage.by_operation[0].operation, "curriculum_replan");
}

async fn re_plan_proposals_that_break_the_rules_are_explained_then_refused(t: &TestApp) {
    let plan = t.plan("Programming", support::chain(&["Programming", "Functions", "Recursion"])).await;
    let (fake, app) = with_model(t).await;
    let ghost = json!({ "label": "Ghost", "description": "x", "effort_minutes": 5, "prerequisite_of": ["Nowhere"] });
    let deep = |label: &str| {
        json!({ "label": label, "description": "x", "effort_minutes": 5, "prerequisite_of": ["Programming"],
                "prerequisites": ["Recursion"] })
    };
    // An unknown label is answered at once; a cycle (a prerequisite of the root that
    // needs Recursion) is caught on finish, explained, proposed again, and refused.
    fake.script([
        Script::tool("add_prerequisite", ghost),
        Script::tool("add_prerequisite", deep("Loop back")),
        finish(None),
        Script::tool("add_prerequisite", deep("Loop back again")),
        finish(None),
    ]);
    let before = t.map(plan.mind_map_id).await;
    let error = app.replan(t.learner, plan.mind_map_id, replan_with("struggling")).await.unwrap_err();
    assert_eq!((error.kind, error.code), (ErrorKind::Upstream, ErrorCode::LlmInvalidGraph), "{error}");
    let told = last_conversation(&fake);
    assert!(told.contains("there is no concept") && told.contains("the proposals were rejected"), "{told}");
    let after = t.map(plan.mind_map_id).await;
    assert_eq!((after.nodes.len(), after.edges.len()), (before.nodes.len(), before.edges.len()));
}

async fn re_plan_without_a_model_recomputes_the_sequence_alone(t: &TestApp) {
    let plan = t.plan("Programming", support::chain(&["Programming", "Functions"])).await;
    let result = t.app().replan(t.learner, plan.mind_map_id, replan_with("struggling")).await.unwrap();
    assert!(result.added_node_ids.is_empty());
    assert_eq!(result.summary.node_count, 2);
}

async fn a_failing_model_leaves_the_plan_unchanged(t: &TestApp) {
    let plan = t.plan("Programming", support::chain(&["Programming", "Functions"])).await;
    let (fake, app) = with_model(t).await;
    fake.script([Script::Status(502, "gateway".into())]);
    let before = t.map(plan.mind_map_id).await;
    let error = app.replan(t.learner, plan.mind_map_id, replan_with("struggling")).await.unwrap_err();
    assert_eq!((error.kind, error.code), (ErrorKind::Upstream, ErrorCode::LlmError));
    assert_eq!(t.map(plan.mind_map_id).await, before);
}

conformance!(
    basic_topic_decomposition_creates_nodes_and_edges,
    goal_scoped_plan_excludes_off_path_nodes,
    no_goal_plan_covers_the_topic_comprehensively,
    diagnostic_results_seed_the_generated_graph,
    a_rejected_graph_is_explained_once_then_refused_with_nothing_stored,
    too_many_nodes_and_too_deep_are_refused,
    unknown_labels_and_malformed_arguments_are_explained_to_the_model,
    a_failing_model_leaves_nothing_behind,
    a_model_that_calls_no_tools_plans_in_one_schema_constrained_reply,
    generation_without_a_model_names_the_setting,
    re_plan_with_a_reason_asks_the_model_for_missing_prerequisites,
    re_plan_proposals_that_break_the_rules_are_explained_then_refused,
    re_plan_without_a_model_recomputes_the_sequence_alone,
    a_failing_model_leaves_the_plan_unchanged,
);
