//! The policy tutor over HTTP against a real server on 127.0.0.1 (SQLite, and PostgreSQL
//! when a test database is configured): importing a course, threads, turns, drills, exams,
//! the turn log and the snapshot; and every bad request refused with a 4xx that says what
//! was wrong, with every table unchanged.

mod support;

use pathwise_app::{App, ManualClock};
use pathwise_fake_llm::{FakeLlm, Script};
use pathwise_llm::{Llm, OpenAiClient, OpenAiConfig};
use reqwest::Method;
use serde_json::{json, Value};
use std::sync::Arc;
use support::*;

const COURSE: &str = include_str!("../../app/tests/fixtures/test-course.toml");

fn clock() -> Arc<ManualClock> {
    Arc::new(ManualClock::new("2026-03-02T09:00:00Z".parse().unwrap()))
}

async fn new_thread(t: &TestApp, token: &str) -> String {
    text(&t.post(token, "/api/tutor/threads", json!({ "courseId": "TEST-ALG" })).await.expect(201)["id"])
}

fn model_turn(action: &str, target: &str, extra: Value) -> Script {
    let mut turn = json!({
        "mapped_units": [], "action": action, "target_unit_id": target, "tutor_text": "Next step.",
        "turn_analysis": { "student_intent": "solve", "understanding_signal": "uncertain", "suggested_prereq_units": [] },
        "concept_card": null, "drill_card": null, "exam_suggestion": null,
    });
    for (k, v) in extra.as_object().unwrap() {
        turn[k] = v.clone();
    }
    Script::json(turn)
}

async fn a_course_is_taught_over_http((t, _): &(TestApp, FakeLlm)) {
    import_test_course(t).await;
    let courses = t.get(&t.a, "/api/courses").await.expect(200);
    assert!(courses.as_array().unwrap().iter().any(|c| c["id"] == "TEST-ALG" && c["unitCount"] == 6));
    let outline = t.get(&t.a, "/api/courses/TEST-ALG").await.expect(200);
    assert_eq!(outline["entryUnitId"], "ENTRY-00");
    assert_eq!(outline["units"][0]["id"], "ENTRY-00", "learning order: the entry unit first");
    let thread = new_thread(t, &t.a).await;
    assert_eq!(t.get(&t.a, "/api/tutor/threads").await.expect(200)["total"], 1);
    // Offline turns: a Socratic question, then practice with a blueprint drill.
    let turn = t
        .post(
            &t.a,
            &format!("/api/tutor/threads/{thread}/turn"),
            json!({ "messageText": "warm-up arithmetic please", "clientEvent": { "type": "NONE" } }),
        )
        .await
        .expect(200);
    assert_eq!(turn["messages"].as_array().unwrap().len(), 2);
    assert_eq!(turn["snapshotLite"]["focus"]["unitId"], "ENTRY-00");
    assert!(turn.get("debug").is_none(), "no debug payload unless the setting is on");
    let turn = t
        .post(
            &t.a,
            &format!("/api/tutor/threads/{thread}/turn"),
            json!({ "clientEvent": { "type": "REQUEST_DRILL", "unitId": "ENTRY-00" } }),
        )
        .await
        .expect(200);
    let card = turn["messages"][0]["card"].clone();
    assert_eq!(card["type"], "DRILL");
    let item = offered_item(t, &thread, &card).await;
    let graded = t
        .post(
            &t.a,
            &format!("/api/tutor/threads/{thread}/drill/grade"),
            json!({
                "courseId": "TEST-ALG", "unitId": "ENTRY-00", "drill": card, "studentAnswer": item.key.answer,
            }),
        )
        .await
        .expect(200);
    assert_eq!(graded["isCorrect"], true);
    assert_eq!(graded["drill"], json!({ "attempts": 1, "correct": 1, "streakCorrect": 1 }));
    let messages = t.get(&t.a, &format!("/api/tutor/threads/{thread}/messages")).await.expect(200);
    let seqs: Vec<i64> = messages.as_array().unwrap().iter().map(|m| m["seq"].as_i64().unwrap()).collect();
    assert_eq!(seqs, [1, 2, 3, 4, 5], "two turns (2 + 1 messages) and a graded drill (2)");
    let turns = t.get(&t.a, &format!("/api/tutor/threads/{thread}/turns")).await.expect(200);
    assert_eq!(turns["total"], 2);
    let log = &turns["items"][1]["log"];
    for key in [
        "mappedUnits",
        "focusUnitId",
        "prereqBlockingUnitId",
        "allowedActions",
        "desiredExamTier",
        "examAvailability",
        "nextEligibleAt",
        "action",
        "validated",
    ] {
        assert!(log.get(key).is_some(), "the turn log has {key}: {log}");
    }
    let snapshot = t.get(&t.a, "/api/tutor/courses/TEST-ALG/snapshot").await.expect(200);
    assert_eq!(snapshot["snapshot"]["unitProgress"]["ENTRY-00"]["drill"]["streakCorrect"], 1);
    // Another learner sees none of it.
    t.get(&t.b, &format!("/api/tutor/threads/{thread}")).await.expect_error(404, "not_found", &["thread"]);
    assert_eq!(t.get(&t.b, "/api/tutor/threads").await.expect(200)["total"], 0);
    let doc = t.get(&t.a, "/api/openapi.json").await.expect(200);
    for path in [
        "/api/tutor/threads/{thread_id}/turn",
        "/api/tutor/threads/{thread_id}/drill/grade",
        "/api/tutor/threads/{thread_id}/exam/mcq-submit",
        "/api/tutor/threads/{thread_id}/exam/support-viewed",
        "/api/courses",
    ] {
        assert!(doc["paths"].get(path).is_some(), "{path} is documented");
    }
}

async fn bad_tutor_requests_are_refused_and_store_nothing((t, fake): &(TestApp, FakeLlm)) {
    import_test_course(t).await;
    let thread = new_thread(t, &t.a).await;
    let turn = format!("/api/tutor/threads/{thread}/turn");
    let json_body = |v: Value| Body::Json(v);
    // Unknown course or thread.
    t.refused(
        Method::POST,
        "/api/tutor/threads",
        Some(&t.a),
        json_body(json!({ "courseId": "NOPE" })),
        (404, "not_found"),
        &["NOPE"],
    )
    .await;
    let unknown = "/api/tutor/threads/01a20f0f-0000-7000-8000-000000000000/turn";
    t.refused(
        Method::POST,
        unknown,
        Some(&t.a),
        json_body(json!({ "messageText": "hi" })),
        (404, "not_found"),
        &["thread"],
    )
    .await;
    t.refused(
        Method::POST,
        &turn,
        Some(&t.b),
        json_body(json!({ "messageText": "hi" })),
        (404, "not_found"),
        &["thread"],
    )
    .await;
    t.refused(
        Method::POST,
        "/api/tutor/threads/not-an-id/turn",
        Some(&t.a),
        json_body(json!({ "messageText": "hi" })),
        (400, "bad_path"),
        &[],
    )
    .await;
    t.refused(Method::GET, "/api/courses/NOPE", Some(&t.a), Body::Empty, (404, "not_found"), &["NOPE"]).await;
    // Turns that say nothing, say too much, or name what is not there.
    t.refused(Method::POST, &turn, Some(&t.a), json_body(json!({})), (422, "invalid"), &["messageText", "clientEvent"])
        .await;
    t.refused(
        Method::POST,
        &turn,
        Some(&t.a),
        json_body(json!({ "messageText": "x".repeat(4001) })),
        (422, "invalid"),
        &["4000"],
    )
    .await;
    t.refused(
        Method::POST,
        &turn,
        Some(&t.a),
        json_body(json!({ "courseId": "NET-IPV4", "messageText": "hi" })),
        (409, "other_course"),
        &["TEST-ALG"],
    )
    .await;
    t.refused(
        Method::POST,
        &turn,
        Some(&t.a),
        json_body(json!({ "clientEvent": { "type": "REQUEST_DRILL", "unitId": "NET-BIN" } })),
        (404, "not_found"),
        &["NET-BIN", "TEST-ALG"],
    )
    .await;
    t.refused(
        Method::POST,
        &turn,
        Some(&t.a),
        json_body(json!({ "clientEvent": { "type": "DANCE" } })),
        (400, "malformed_json"),
        &["clientEvent"],
    )
    .await;
    t.refused(
        Method::POST,
        &turn,
        Some(&t.a),
        json_body(json!({ "messageText": "hi", "mood": "happy" })),
        (422, "unknown_field"),
        &["mood: unknown field; allowed: courseId, messageText"],
    )
    .await;
    // Drills for a unit outside the course, or not of the unit.
    let grade = format!("/api/tutor/threads/{thread}/drill/grade");
    let drill =
        json!({ "prompt": "What is 2 + 3?", "question_latex": "", "drill_id": "MATH.ARITH.ADD.1DIGIT~s=1~d=0.20" });
    t.refused(
        Method::POST,
        &grade,
        Some(&t.a),
        json_body(json!({ "unitId": "NET-BIN", "drill": drill, "studentAnswer": "5" })),
        (404, "not_found"),
        &["NET-BIN", "TEST-ALG"],
    )
    .await;
    t.refused(
        Method::POST,
        &grade,
        Some(&t.a),
        json_body(json!({ "unitId": "ALG-01", "drill": drill, "studentAnswer": "5" })),
        (404, "not_found"),
        &["not a drill offered in this thread"],
    )
    .await;
    let forged = json!({ "prompt": "?", "drill_id": "MATH.ARITH.ADD.1DIGIT~garbage" });
    t.refused(
        Method::POST,
        &grade,
        Some(&t.a),
        json_body(json!({ "unitId": "ENTRY-00", "drill": forged, "studentAnswer": "5" })),
        (404, "not_found"),
        &["not a drill offered in this thread"],
    )
    .await;
    t.refused(
        Method::POST,
        &grade,
        Some(&t.a),
        json_body(json!({ "unitId": "ENTRY-00", "drill": { "prompt": "What is 2 + 3?" }, "studentAnswer": "5" })),
        (422, "invalid"),
        &["drill.drillId: is missing"],
    )
    .await;
    t.refused(
        Method::POST,
        &grade,
        Some(&t.a),
        json_body(json!({ "unitId": "ENTRY-00", "drill": drill, "studentAnswer": "  " })),
        (422, "invalid"),
        &["studentAnswer"],
    )
    .await;
    // Exam events for questions that were not offered, are unknown, or are locked.
    let submit = format!("/api/tutor/threads/{thread}/exam/mcq-submit");
    let answer = |q: &str, i: usize| json!({ "unitId": "ALG-01", "questionId": q, "selectedIndex": i });
    t.refused(
        Method::POST,
        &submit,
        Some(&t.a),
        json_body(answer("EX-ALG-01-B1", 0)),
        (404, "not_found"),
        &["not offered"],
    )
    .await;
    t.refused(Method::POST, &submit, Some(&t.a), json_body(answer("EX-NOPE", 0)), (404, "not_found"), &["EX-NOPE"])
        .await;
    t.refused(
        Method::POST,
        &submit,
        Some(&t.a),
        json_body(json!({ "unitId": "ALG-01", "questionId": "EX-ALG-01-B1", "selectedIndex": 0, "isCorrect": true })),
        (422, "unknown_field"),
        &["isCorrect: unknown field; allowed: courseId, unitId, questionId, difficultyTier, selectedIndex"],
    )
    .await;
    offer_exam(t, fake, &thread).await;
    t.refused(Method::POST, &submit, Some(&t.a), json_body(answer("EX-ALG-01-B1", 7)), (422, "invalid"), &["0-3"])
        .await;
    t.refused(
        Method::POST,
        &submit,
        Some(&t.a),
        json_body(json!({ "unitId": "ALG-00", "questionId": "EX-ALG-01-B1", "selectedIndex": 0 })),
        (422, "invalid"),
        &["ALG-01"],
    )
    .await;
    t.refused(
        Method::POST,
        &submit,
        Some(&t.a),
        json_body(
            json!({ "unitId": "ALG-01", "questionId": "EX-ALG-01-B1", "selectedIndex": 0, "difficultyTier": "gold" }),
        ),
        (422, "invalid"),
        &["bronze"],
    )
    .await;
    let wrong = t.post(&t.a, &submit, answer("EX-ALG-01-B1", 1)).await.expect(200);
    assert_eq!(wrong["isCorrect"], false);
    let until = wrong["lockedUntil"].clone();
    let error = t
        .refused(
            Method::POST,
            &submit,
            Some(&t.a),
            json_body(answer("EX-ALG-01-B1", 0)),
            (409, "exam_locked"),
            &["locked until"],
        )
        .await;
    assert_eq!(error["details"]["next_eligible_at"], until, "the refusal names the next eligible time");
    let support = format!("/api/tutor/threads/{thread}/exam/support-viewed");
    t.refused(
        Method::POST,
        &support,
        Some(&t.a),
        json_body(json!({ "unitId": "ALG-01", "questionId": "EX-ALG-01-B1", "supportType": "video" })),
        (422, "invalid"),
        &["no video"],
    )
    .await;
    t.refused(
        Method::POST,
        &support,
        Some(&t.a),
        json_body(json!({ "unitId": "ALG-01", "questionId": "EX-ALG-01-B1", "supportType": "slides" })),
        (400, "malformed_json"),
        &["supportType"],
    )
    .await;
    // Malformed course packs: every problem with its field and line; nothing stored.
    let import = |body: &str, content_type: &'static str| {
        let request = t
            .client
            .post(format!("{}/api/courses", t.base))
            .bearer_auth(OPERATOR_TOKEN)
            .header("content-type", content_type)
            .body(body.to_string());
        async move { request.send().await.unwrap() }
    };
    let before = t.counts().await;
    let broken = COURSE
        .replace("prerequisites = [\"ALG-00\"]", "prerequisites = [\"ALG-99\"]")
        .replace("tier = \"gold\"", "tier = \"platinum\"");
    let reply = import(&broken, "application/toml").await;
    assert_eq!(reply.status(), 422);
    let body: Value = reply.json().await.unwrap();
    assert_eq!(body["error"]["code"], "invalid_course");
    assert!(body["error"]["message"].as_str().unwrap().contains("platinum"), "{body}");
    assert!(body["error"]["details"]["line"].as_u64().is_some(), "a parse error names its line: {body}");
    let unknown_unit = COURSE.replace("prerequisites = [\"ALG-00\"]", "prerequisites = [\"ALG-99\"]");
    let body: Value = import(&unknown_unit, "application/toml").await.json().await.unwrap();
    let problem = &body["error"]["details"]["problems"][0];
    assert_eq!(problem["field"], "units[2].prerequisites[0]");
    assert_eq!(problem["line"], 28, "{body}");
    assert!(problem["message"].as_str().unwrap().contains("ALG-99"));
    let cycle = COURSE.replace(
        "prerequisites = [\"ENTRY-00\"]\nanchor = \"Subtraction",
        "prerequisites = [\"ALG-01\"]\nanchor = \"Subtraction",
    );
    let body: Value = import(&cycle, "application/toml").await.json().await.unwrap();
    assert!(body["error"]["message"].as_str().unwrap().contains("cycle: ALG-00 -> ALG-01 -> ALG-00"), "{body}");
    let reply = import("{\"course_id\": 3}", "application/json").await;
    assert_eq!(reply.status(), 422);
    assert_eq!(t.counts().await, before, "no malformed pack stored anything");
    let reply = t.client.post(format!("{}/api/courses", t.base)).bearer_auth(&t.a).body(COURSE).send().await.unwrap();
    assert_eq!(reply.status(), 401, "importing is the operator's");
}

/// The model offers ALG-01's first bronze question in the thread.
async fn offer_exam(t: &TestApp, fake: &FakeLlm, thread: &str) {
    let learner = t.app.authenticate(&t.a).await.unwrap().id;
    let record =
        pathwise_store::TutorStore::get_tutor_snapshot(t.app.store(), learner, "TEST-ALG").await.unwrap().unwrap();
    let mut snapshot: pathwise_course::StudentSnapshot = serde_json::from_value(record.snapshot.clone()).unwrap();
    let now = pathwise_app::Clock::now(t.app.clock());
    for unit in ["ENTRY-00", "ALG-00"] {
        snapshot.touch(unit, now).mastery_tier = pathwise_course::MasteryTier::Bronze;
    }
    snapshot.record_drill("ALG-01", true, None, now);
    snapshot.record_drill("ALG-01", true, None, now);
    let next = pathwise_store::SnapshotRecord {
        snapshot: serde_json::to_value(&snapshot).unwrap(),
        version: record.version + 1,
        ..record
    };
    pathwise_store::TutorStore::commit_tutor_step(
        t.app.store(),
        pathwise_store::TutorStep { snapshot: Some(&next), ..Default::default() },
    )
    .await
    .unwrap();
    fake.script([model_turn(
        "EXAM_BLOCK",
        "ALG-01",
        json!({ "exam_suggestion": { "question_id": "EX-ALG-01-B1", "difficultyTier": "bronze" } }),
    )]);
    let turn = t
        .post(
            &t.a,
            &format!("/api/tutor/threads/{thread}/turn"),
            json!({ "clientEvent": { "type": "DRILL_CONTINUE", "unitId": "ALG-01", "lastResult": "correct" } }),
        )
        .await
        .expect(200);
    assert_eq!(turn["messages"][0]["card"]["type"], "EXAM", "{turn}");
    assert!(turn["messages"][0]["card"].get("correct").is_none());
}

/// A course from someone's notes: its passages have ids, which CONTEXT shows and a reply
/// must cite (one it was given); a reply citing nothing, or a passage it was not given, is
/// refused like any other broken rule.
const NOTES_COURSE: &str = r#"
course_id = "NOTES-01"
title = "Leaves"
entry_unit = "leaves"
confusion_tags = ["misread_the_material"]

[[units]]
id = "leaves"
title = "Leaves"
anchor = "Photosynthesis turns light into chemical energy."

[[units.drills]]
stem = "Fill in the blank: photosynthesis turns _____ into chemical energy."
answer = "light"
passage = "p1"

[[content]]
id = "p1"
unit = "leaves"
chunk_type = "document"
source_id = "plants.md"
section = "Leaves"
text = "Photosynthesis turns light into chemical energy inside the chloroplasts."
"#;

async fn a_reply_on_a_course_from_notes_cites_a_passage_it_was_given((t, fake): &(TestApp, FakeLlm)) {
    t.call(Method::POST, "/api/courses?format=toml", Some(OPERATOR_TOKEN), Body::Raw(NOTES_COURSE.into()))
        .await
        .expect(201);
    let thread = text(&t.post(&t.a, "/api/tutor/threads", json!({ "courseId": "NOTES-01" })).await.expect(201)["id"]);
    let turn_path = format!("/api/tutor/threads/{thread}/turn");
    let say = || t.post(&t.a, &turn_path, json!({ "messageText": "photosynthesis and light" }));
    let last_log = || async {
        let turns = t.get(&t.a, &format!("/api/tutor/threads/{thread}/turns?limit=100")).await.expect(200);
        turns["items"].as_array().unwrap().last().unwrap()["log"].clone()
    };
    for (sources, violation) in [(json!([]), "uncited"), (json!(["p9"]), "source_not_offered")] {
        fake.script([model_turn("SOCRATIC_QUESTION", "leaves", json!({ "sources": sources }))]);
        say().await.expect(200);
        let log = last_log().await;
        assert_eq!((log["validated"].as_bool(), log["violation"].as_str()), (Some(false), Some(violation)), "{log}");
    }
    let grounded = "Photosynthesis turns light into chemical energy. Where in the leaf does that happen?";
    fake.script([model_turn("SOCRATIC_QUESTION", "leaves", json!({ "sources": ["p1"], "tutor_text": grounded }))]);
    let reply = say().await.expect(200);
    let log = last_log().await;
    assert_eq!((log["validated"].as_bool(), log["sources"].clone()), (Some(true), json!(["p1"])), "{log}");
    let answered = reply["messages"].as_array().unwrap().last().unwrap().clone();
    assert_eq!(answered["text"], grounded, "{reply}");
    // The learner sees what the question draws on, then and when the thread is read again;
    // the refused replies' fallbacks cite the passage whose sentence they quote, and a
    // drill card, which quotes nothing, cites nothing.
    let cited = json!([{ "passageId": "p1", "citation": "plants.md, Leaves" }]);
    assert_eq!(answered["sources"], cited, "{reply}");
    let timeline = t.get(&t.a, &format!("/api/tutor/threads/{thread}/messages")).await.expect(200);
    let replies: Vec<&Value> = timeline.as_array().unwrap().iter().filter(|m| m["role"] == "assistant").collect();
    assert_eq!(replies.last().unwrap()["sources"], cited, "{timeline}");
    assert!(
        replies[..replies.len() - 1].iter().all(|m| m.get("sources").is_none() || m["sources"] == cited),
        "{timeline}"
    );
    // What the model was given: the passage with its id, and a schema that asks for it.
    let asked = fake.requests().last().unwrap().to_string();
    assert!(asked.contains(r#"\"passageId\":\"p1\""#), "{asked}");
    // Its drill is the course's own, graded exactly without a model's help.
    let passage = t.get(&t.a, "/api/courses/NOTES-01/passages/p1").await.expect(200);
    assert_eq!((passage["unitId"].as_str(), passage["citation"].as_str()), (Some("leaves"), Some("plants.md, Leaves")));
    t.get(&t.a, "/api/courses/NOTES-01/passages/p2").await.expect_error(404, "not_found", &["p2"]);
}

async fn with_model(test_store: TestStore) -> (TestApp, FakeLlm) {
    let fake = FakeLlm::start().await;
    let config =
        OpenAiConfig { timeout: std::time::Duration::from_secs(10), ..OpenAiConfig::new(fake.base_url(), "tutor") };
    let llm = Llm::new(Arc::new(OpenAiClient::new(config).unwrap()), 4);
    let clock = clock();
    let t = spawn_app_made(test_store, move |s| App::with_clock(s, clock).with_llm(llm)).await;
    (t, fake)
}

pathwise_test_support::conformance!(
    with_model;
    a_course_is_taught_over_http,
    bad_tutor_requests_are_refused_and_store_nothing,
    a_reply_on_a_course_from_notes_cites_a_passage_it_was_given
);
