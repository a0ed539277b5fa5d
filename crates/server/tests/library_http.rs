//! The item library as the workspace reads it (`GET /api/library/assessments` and
//! `/api/library/skills`) against a real server on 127.0.0.1: what a learner needs to
//! choose, every listed assessment and skill usable in a session, and no answer keys.

mod support;

use reqwest::Method;
use serde_json::{json, Value};
use support::*;

#[tokio::test]
async fn the_assessments_are_listed_with_what_a_learner_chooses_by_and_each_one_starts_an_evaluation() {
    let t = spawn_app().await;
    let library = pathwise_items::Library::builtin();
    let listed = t.get(&t.a, "/api/library/assessments").await.expect(200);
    let listed = listed.as_array().expect("a list").clone();
    assert_eq!(listed.len(), library.assessments().count(), "every assessment of the library: {listed:?}");

    let quiz = listed.iter().find(|a| a["blueprint_id"] == "MATH-ARITH-QUIZ-10").expect("the arithmetic quiz");
    assert_eq!(quiz["title"], "Arithmetic quiz: addition and subtraction");
    assert_eq!((quiz["item_count"].as_u64(), quiz["time_limit_minutes"].as_u64()), (Some(10), Some(10)));
    assert_eq!(quiz["domains"], json!(["Addition", "Subtraction"]));
    assert_eq!(quiz["item_kinds"], json!(["multiple_choice"]));
    assert_eq!(quiz["sections"].as_array().map(Vec::len), Some(2));
    let python = listed.iter().find(|a| a["blueprint_id"] == "PROG-PYTHON-BASICS").expect("the Python quiz");
    assert_eq!(python["item_kinds"], json!(["code_editor"]));
    let adaptive = listed.iter().find(|a| a["selection"] == "adaptive").expect("an adaptive assessment");
    assert!(adaptive["item_count"].as_u64().unwrap() >= 1, "{adaptive}");

    // What the list names is what an evaluation takes: each id starts a session whose
    // item count and time limit are the ones listed.
    for assessment in &listed {
        let id = text(&assessment["blueprint_id"]);
        let session = t
            .post(&t.a, "/api/session/", json!({ "session_type": "evaluation", "config": { "blueprint_id": id } }))
            .await
            .expect(201);
        if assessment["selection"] != "adaptive" {
            assert_eq!(session["context"]["total_items"], assessment["item_count"], "{id}: {session}");
        }
        let summary: u64 =
            assessment["sections"].as_array().unwrap().iter().map(|s| s["item_count"].as_u64().unwrap()).sum();
        assert!(summary >= 1, "{id}");
    }
    let body = listed.iter().map(Value::to_string).collect::<String>();
    for leak in ["\"key\"", "\"correct\"", "\"pool\"", "generator"] {
        assert!(!body.contains(leak), "the list shows {leak}: {body}");
    }
}

#[tokio::test]
async fn the_skills_are_listed_with_their_domain_and_item_kind_and_each_one_is_a_learning_template() {
    let t = spawn_app().await;
    let library = pathwise_items::Library::builtin();
    let listed = t.get(&t.a, "/api/library/skills").await.expect(200);
    let listed = listed.as_array().expect("a list").clone();
    assert_eq!(listed.len(), library.skills().count());
    let add = listed.iter().find(|s| s["skill_id"] == "MATH.ARITH.ADD.2DIGIT").expect("two-digit addition");
    assert_eq!(add["item_kinds"], json!(["multiple_choice"]));
    assert!(text(&add["domain"]).contains("Addition"), "{add}");
    assert!(!text(&add["title"]).is_empty(), "{add}");
    for skill in &listed {
        let kinds = skill["item_kinds"].as_array().expect("item kinds");
        assert!(
            kinds.len() == 1 && ["multiple_choice", "free_text", "code_editor"].contains(&kinds[0].as_str().unwrap()),
            "{skill}"
        );
        assert_eq!(skill["language"].is_string(), kinds[0] == "code_editor", "{skill}");
    }

    // Every listed skill id is a template a learning session accepts.
    let plan = t
        .generate(
            &t.a,
            "Anything",
            json!({ "root": "Basics", "nodes": [{"label": "Basics", "effort_minutes": 10}], "edges": [] }),
        )
        .await;
    let map = text(&plan["mind_map_id"]);
    let skills: Vec<String> = listed.iter().map(|s| text(&s["skill_id"])).collect();
    t.post(
        &t.a,
        "/api/session/",
        json!({ "session_type": "learning", "config": { "map_id": map, "item_templates": { "Basics": skills } } }),
    )
    .await
    .expect(201);
}

#[tokio::test]
async fn the_library_needs_a_learner_and_is_in_the_openapi_document() {
    let t = spawn_app().await;
    for path in ["/api/library/assessments", "/api/library/skills"] {
        t.call(Method::GET, path, None, Body::Empty).await.expect_error(401, "unauthorized", &[]);
        t.call(Method::GET, path, Some("pw_wrong"), Body::Empty).await.expect_error(401, "unauthorized", &[]);
    }
    let doc = t.call(Method::GET, "/api/openapi.json", None, Body::Empty).await.expect(200);
    for path in ["/api/library/assessments", "/api/library/skills"] {
        assert!(doc["paths"][path]["get"].is_object(), "{path} is not documented");
    }
    assert!(doc["components"]["schemas"]["AssessmentSummary"].is_object());
    assert!(doc["components"]["schemas"]["SkillSummary"].is_object());
}
