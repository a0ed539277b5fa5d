//! Maps made without a language model, on both stores: from a pasted outline (headings or a
//! nested list) checked by the rules every decomposition meets, refusals placed on the
//! outline's line; the same topic imported twice refused unless the learner asks for a new
//! map or a replacement, every door alike; and a topic that would need a model refused up
//! front when none is configured, storing nothing.

mod support;

use pathwise_app::curriculum::{GenerateInput, ImportOutline, PlanSummary};
use pathwise_app::flows::StartFlow;
use pathwise_app::{AppError, ErrorCode, ErrorKind};
use pathwise_domain::curriculum::OnExisting;
use pathwise_domain::{MapStatus, MindMapId};
use serde_json::{json, Value};
use support::{chain, TestApp};

fn outline(text: &str) -> ImportOutline {
    ImportOutline { outline: text.into(), title: None, on_existing: OnExisting::Refuse }
}

async fn import(t: &TestApp, input: ImportOutline) -> Result<PlanSummary, AppError> {
    t.app().import_outline(t.learner, input).await
}

fn generate(topic: &str, decomposition: Value, on_existing: &str) -> GenerateInput {
    serde_json::from_value(json!({ "topic": topic, "decomposition": decomposition, "on_existing": on_existing }))
        .expect("generate input")
}

/// Every map of the learner: (title, status).
async fn maps(t: &TestApp) -> Vec<(String, MapStatus)> {
    let page = t.app().list_maps(t.learner, None, None, Some(500)).await.unwrap();
    page.items.into_iter().map(|m| (m.title, m.status)).collect()
}

async fn a_pasted_outline_becomes_a_map_nesting_giving_prerequisites(t: &TestApp) {
    let text = "# Rust\nA systems language.\n\n## Ownership (40 min)\n- Moves\n- Borrowing\n  - Lifetimes\n## Traits\n\
                - Generics\n  1. Bounds\n- borrowing\n";
    let plan = import(t, outline(text)).await.expect("imported");
    assert_eq!((plan.node_count, plan.edge_count, plan.status), (8, 8, MapStatus::Active));
    let map = t.map(plan.mind_map_id).await;
    assert_eq!(map.map.title, "Rust", "the root names the map");
    let node = |label: &str| map.nodes.iter().find(|n| n.label == label).unwrap_or_else(|| panic!("{label}"));
    assert_eq!(map.map.root_node_id, Some(node("Rust").id));
    assert_eq!(node("Rust").description.as_deref(), Some("A systems language."));
    assert_eq!((node("Ownership").effort_minutes, node("Moves").effort_minutes), (Some(40), Some(30)));
    let depths: Vec<(&str, i32)> = ["Rust", "Ownership", "Borrowing", "Lifetimes", "Traits", "Bounds"]
        .iter()
        .map(|l| (*l, node(l).depth))
        .collect();
    assert_eq!(
        depths,
        [("Rust", 0), ("Ownership", 1), ("Borrowing", 2), ("Lifetimes", 3), ("Traits", 1), ("Bounds", 3)]
    );
    // "borrowing" under Traits is the same concept: a second prerequisite, not a second node.
    let parents: Vec<&str> = map
        .edges
        .iter()
        .filter(|e| e.child_node_id == node("Borrowing").id)
        .map(|e| map.nodes.iter().find(|n| n.id == e.parent_node_id).unwrap().label.as_str())
        .collect();
    assert_eq!(parents.len(), 2, "{parents:?}");
    assert!(parents.contains(&"Ownership") && parents.contains(&"Traits"), "{parents:?}");
    let next = t.app().next_node(t.learner, plan.mind_map_id).await.unwrap().expect("a next concept");
    assert_eq!(next.label, "Rust");

    // A nested list with a title of the learner's own.
    let titled =
        ImportOutline { title: Some("  My algebra  ".into()), ..outline("- Algebra\n  - Terms\n    - Like terms\n") };
    let plan = import(t, titled).await.expect("imported");
    assert_eq!(t.map(plan.mind_map_id).await.map.title, "My algebra");
}

async fn an_outline_the_rules_refuse_names_its_line_and_stores_nothing(t: &TestApp) {
    let before = t.counts().await;
    let thirty_one: String =
        std::iter::once("# Big\n".to_string()).chain((1..=30).map(|i| format!("- Concept {i}\n"))).collect();
    let cases: Vec<(String, ErrorCode, Option<u64>)> = vec![
        ("# Rust\n## Ownership\n- Borrowing\n  - ownership\n".into(), ErrorCode::Cycle, Some(4)),
        ("# A\n## B\n### C\n#### D\n##### E\n###### F\n- G\n".into(), ErrorCode::MaxDepth, Some(7)),
        (thirty_one, ErrorCode::MaxNodes, Some(31)),
        ("- Rust\n- Traits\n".into(), ErrorCode::Invalid, Some(2)),
        ("# Topic\n- \n".into(), ErrorCode::Invalid, Some(2)),
        ("\n\nNo entries at all.\n".into(), ErrorCode::Invalid, None),
        ("# Topic\n- Idle (0 min)\n".into(), ErrorCode::Invalid, Some(2)),
    ];
    for (text, code, line) in cases {
        let error = import(t, outline(&text)).await.expect_err(&text);
        assert_eq!((error.kind, error.code), (ErrorKind::Invalid, code), "{text:?}: {error}");
        assert_eq!(error.details["field"], "outline", "{text:?}: {}", error.details);
        assert_eq!(error.details["line"].as_u64(), line, "{text:?}: {}", error.details);
        if let Some(line) = line {
            assert!(error.message.starts_with(&format!("outline line {line}: ")), "{}", error.message);
        }
    }
    let cycle = import(t, outline("# Rust\n## Ownership\n- Borrowing\n  - ownership\n")).await.unwrap_err();
    let path: Vec<&str> = cycle.details["cycle"].as_array().unwrap().iter().filter_map(Value::as_str).collect();
    assert_eq!((path.len(), path.first(), path.contains(&"Ownership")), (3, path.last(), true), "{path:?}");
    assert!(path.contains(&"Borrowing"), "{path:?}");
    let deep = import(t, outline("# A\n## B\n### C\n#### D\n##### E\n###### F\n- G\n")).await.unwrap_err();
    assert_eq!((deep.details["max_depth"].as_u64(), deep.details["label"].as_str()), (Some(5), Some("G")));
    assert_eq!(t.counts().await, before, "nothing was stored");
    assert!(maps(t).await.is_empty());
}

async fn the_same_topic_imported_twice_is_refused_naming_the_map(t: &TestApp) {
    let first = t.app().curriculum_generate(t.learner, generate("Rust", chain(&["Rust", "Ownership"]), "refuse")).await;
    let first = first.expect("the first import");
    let before = t.counts().await;
    // Again, by every kind of import, whatever the case and spacing of the title.
    let again = t.app().curriculum_generate(t.learner, generate(" rust ", chain(&["Rust", "Traits"]), "refuse")).await;
    let as_outline = import(t, outline("# RUST\n- Traits\n")).await;
    for refused in [again.unwrap_err(), as_outline.unwrap_err()] {
        assert_eq!((refused.kind, refused.code), (ErrorKind::Conflict, ErrorCode::MapExists), "{refused}");
        assert_eq!(refused.details["mind_map_id"], first.mind_map_id.to_string(), "{}", refused.details);
        assert_eq!(refused.details["field"], "on_existing");
        assert_eq!(refused.details["allowed"], json!(["new", "replace"]));
        assert!(refused.message.contains(&first.mind_map_id.to_string()), "{refused}");
        assert!(refused.message.contains("on_existing = replace") && refused.message.contains("on_existing = new"));
    }
    assert_eq!(t.counts().await, before, "nothing was stored");

    // Another learner's map of the same title is theirs alone.
    let other = t.other_learner().await;
    t.app().curriculum_generate(other, generate("Rust", chain(&["Rust", "Traits"]), "refuse")).await.expect("theirs");

    // An abandoned map is a topic given up: it can be started afresh.
    t.app().update_map_status(t.learner, first.mind_map_id, MapStatus::Abandoned).await.unwrap();
    let fresh = import(t, outline("# Rust\n- Traits\n")).await.expect("a fresh start after abandoning");
    assert_ne!(fresh.mind_map_id, first.mind_map_id);
    assert_eq!(maps(t).await.len(), 2);
}

async fn asked_for_a_new_map_or_a_replacement_the_learner_gets_it(t: &TestApp) {
    let first = t.plan("Graphs", chain(&["Graphs", "Paths"])).await;
    let node = t.ids(first.mind_map_id).await["Graphs"];
    t.record(first.mind_map_id, node, 4, pathwise_domain::ResponseType::Teach).await;

    let kept = t
        .app()
        .curriculum_generate(t.learner, generate("Graphs", chain(&["Graphs", "Trees"]), "new"))
        .await
        .expect("a second map, asked for");
    assert_eq!(kept.replaced_mind_map_id, None);
    assert_eq!(maps(t).await.len(), 2);

    // Replace takes the newest map of the topic, with its progress, and leaves the other.
    let replacing = ImportOutline { on_existing: OnExisting::Replace, ..outline("# Graphs\n- Cycles\n  - Euler\n") };
    let replaced = import(t, replacing).await.expect("replaced");
    assert_eq!(replaced.replaced_mind_map_id, Some(kept.mind_map_id));
    let gone = t.app().get_map(t.learner, kept.mind_map_id).await.unwrap_err();
    assert_eq!(gone.kind, ErrorKind::NotFound);
    let titles = maps(t).await;
    assert_eq!(titles.len(), 2, "{titles:?}");
    let labels: Vec<String> = t.map(replaced.mind_map_id).await.nodes.into_iter().map(|n| n.label).collect();
    assert_eq!(labels, ["Graphs", "Cycles", "Euler"]);
    assert_eq!(t.map(first.mind_map_id).await.nodes.len(), 2, "the older map is untouched");
    // A refused replacement (its outline breaks a rule) deletes nothing.
    let broken = ImportOutline { on_existing: OnExisting::Replace, ..outline("# Graphs\n- A\n  - a\n") };
    assert_eq!(import(t, broken).await.unwrap_err().code, ErrorCode::SelfLoop);
    assert!(t.app().get_map(t.learner, replaced.mind_map_id).await.is_ok());
}

async fn two_imports_of_one_topic_at_once_make_one_map(t: &TestApp) {
    for round in 0..3 {
        let topic = format!("Race {round}");
        let text = format!("# {topic}\n- Step\n");
        let (a, b) = tokio::join!(
            t.app().import_outline(t.learner, outline(&text)),
            t.app().curriculum_generate(t.learner, generate(&topic, chain(&[&topic, "Other step"]), "refuse")),
        );
        let outcomes = [a.map(|p| p.mind_map_id), b.map(|p| p.mind_map_id)];
        let made: Vec<MindMapId> = outcomes.iter().filter_map(|o| o.as_ref().ok().copied()).collect();
        assert_eq!(made.len(), 1, "round {round}: {outcomes:?}");
        let refused = outcomes.iter().find_map(|o| o.as_ref().err()).expect("one refusal");
        assert_eq!(refused.code, ErrorCode::MapExists, "{refused}");
        assert_eq!(refused.details["mind_map_id"], made[0].to_string());
    }
    assert_eq!(maps(t).await.len(), 3);
}

async fn a_topic_needing_a_model_is_refused_up_front_when_none_is_configured(t: &TestApp) {
    assert!(!t.app().llm().is_configured());
    let before = t.counts().await;
    let start = StartFlow { topic: "Graph theory".into(), goal: None, caller_writes_steps: None };
    let generate_offline: GenerateInput = serde_json::from_value(json!({ "topic": "Graph theory" })).unwrap();
    let refusals = [
        t.app().flow_start(t.learner, start).await.unwrap_err(),
        t.app().curriculum_generate(t.learner, generate_offline).await.unwrap_err(),
    ];
    for refused in &refusals {
        assert_eq!((refused.kind, refused.code), (ErrorKind::Unavailable, ErrorCode::LlmNotConfigured), "{refused}");
        for needle in ["PATHWISE_LLM_BASE_URL", "PATHWISE_LLM_MODEL", "pathwise import-map", "decomposition", "outline"]
        {
            assert!(refused.message.contains(needle), "{needle:?} not in: {refused}");
        }
        assert_eq!(refused.details["settings"], json!(["PATHWISE_LLM_BASE_URL", "PATHWISE_LLM_MODEL"]));
    }
    assert!(refusals[0].message.contains("caller_writes_steps"), "{}", refusals[0]);
    assert_eq!(t.counts().await, before, "nothing was stored");
    assert!(t.app().flow_list(t.learner, None, None, None).await.unwrap().items.is_empty());

    // A caller that writes the steps itself needs no model.
    let start = StartFlow { topic: "Graph theory".into(), goal: None, caller_writes_steps: Some(true) };
    t.app().flow_start(t.learner, start).await.expect("a flow the caller runs");
    // A bad topic is still named first.
    let blank = StartFlow { topic: "  ".into(), goal: None, caller_writes_steps: None };
    assert_eq!(t.app().flow_start(t.learner, blank).await.unwrap_err().kind, ErrorKind::Invalid);
}

conformance!(
    a_pasted_outline_becomes_a_map_nesting_giving_prerequisites,
    an_outline_the_rules_refuse_names_its_line_and_stores_nothing,
    the_same_topic_imported_twice_is_refused_naming_the_map,
    asked_for_a_new_map_or_a_replacement_the_learner_gets_it,
    two_imports_of_one_topic_at_once_make_one_map,
    a_topic_needing_a_model_is_refused_up_front_when_none_is_configured,
);
