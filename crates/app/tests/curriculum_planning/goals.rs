//! Requirement: Goal-directed planning optimizes path to stated goal.

use super::*;

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

conformance!(goal_is_recorded_on_the_mind_map_metadata, goal_directed_sequence_puts_critical_path_nodes_first,);
