//! Evidence over HTTP is accepted only where it was offered, once, and a retry stores
//! nothing twice (a real server on 127.0.0.1, SQLite and PostgreSQL): drills by the opaque
//! ids their cards carry, never by an evaluation item's id; the `Idempotency-Key` header on
//! responses (kept with the response) and on other writes (the first reply kept); a
//! response may cite only the learner's own session. Every refusal stores nothing.

mod support;

use reqwest::Method;
use serde_json::{json, Value};
use support::*;

/// A thread on the test course with a blueprint drill offered in it: (thread, the card).
async fn offered_drill(t: &TestApp) -> (String, Value) {
    import_test_course(t).await;
    let thread = text(&t.post(&t.a, "/api/tutor/threads", json!({ "courseId": "TEST-ALG" })).await.expect(201)["id"]);
    let event = json!({ "clientEvent": { "type": "REQUEST_DRILL", "unitId": "ENTRY-00" } });
    let turn = t.post(&t.a, &format!("/api/tutor/threads/{thread}/turn"), event).await.expect(200);
    let card = turn["messages"][0]["card"].clone();
    assert_eq!(card["type"], "DRILL", "{turn}");
    (thread, card)
}

fn keyed(key: &str) -> [(&str, &str); 1] {
    [("Idempotency-Key", key)]
}

async fn a_drill_is_graded_only_as_offered_and_once(t: &TestApp) {
    let (thread, card) = offered_drill(t).await;
    let drill_id = text(&card["drillId"]);
    assert!(drill_id.starts_with("drl_") && !drill_id.contains("~"), "the card's id tells nothing: {drill_id}");
    let grade = format!("/api/tutor/threads/{thread}/drill/grade");

    // An evaluation's item, by the id its session showed or by its own: never gradable here,
    // and no key comes back.
    let session = t
        .post(
            &t.a,
            "/api/session/",
            json!({ "session_type": "evaluation", "config": { "blueprint_id": "MATH-ARITH-QUIZ-10" } }),
        )
        .await
        .expect(201);
    let session_id = text(&session["id"]);
    let stream = t.client.get(format!("{}/api/session/{session_id}/stream", t.base)).bearer_auth(&t.a).send().await;
    let events = stream.unwrap().text().await.unwrap();
    let shown = events
        .lines()
        .filter_map(|l| l.strip_prefix("data: "))
        .filter_map(|d| serde_json::from_str::<Value>(d).ok())
        .find_map(|e| e["data"]["item"]["item_id"].as_str().map(str::to_string))
        .expect("an item presented");
    assert!(shown.starts_with("itm_"), "{shown}");
    assert!(!events.contains("~s="), "no item's own id (with its seed) reaches the learner");
    for forged in [shown.as_str(), "MATH.ARITH.ADD.2DIGIT~s=7~d=easy"] {
        let body = json!({ "unitId": "ENTRY-00", "drill": { "prompt": "?", "drillId": forged }, "studentAnswer": "5" });
        let error = t
            .refused(Method::POST, &grade, Some(&t.a), Body::Json(body), (404, "not_found"), &["not a drill offered"])
            .await;
        assert_eq!(error["details"]["field"], "drill.drillId");
        assert!(!error.to_string().contains("expected"), "{error}");
    }

    // Learner B cannot grade A's drill in A's thread.
    let body = json!({ "unitId": "ENTRY-00", "drill": card, "studentAnswer": "5" });
    t.refused(Method::POST, &grade, Some(&t.b), Body::Json(body.clone()), (404, "not_found"), &["thread"]).await;

    // Graded once; the same post again is answered with the first grading and counts nothing.
    let item = offered_item(t, &thread, &card).await;
    let right = json!({ "unitId": "ENTRY-00", "drill": card, "studentAnswer": item.key.answer });
    let first = t.post(&t.a, &grade, right.clone()).await.expect(200);
    assert_eq!((first["isCorrect"].as_bool(), first["replayed"].as_bool()), (Some(true), Some(false)), "{first}");
    assert_eq!(first["drill"], json!({ "attempts": 1, "correct": 1, "streakCorrect": 1 }));
    let counts = t.counts().await;
    let again = t.post(&t.a, &grade, right).await.expect(200);
    assert_eq!((again["replayed"].as_bool(), &again["drill"]), (Some(true), &first["drill"]), "{again}");
    assert_eq!(t.counts().await, counts, "a replay stores nothing");
}

async fn a_retried_write_with_its_key_is_answered_as_the_first_time(t: &TestApp) {
    let (thread, _) = offered_drill(t).await;
    let turn = format!("/api/tutor/threads/{thread}/turn");
    let body = json!({ "clientEvent": { "type": "REQUEST_DRILL", "unitId": "ENTRY-00" } });
    let first = t.send(Method::POST, &turn, Some(&t.a), Body::Json(body.clone()), &keyed("turn-1")).await;
    let first_json = first.expect(200);
    assert!(first.headers.get("idempotent-replayed").is_none());
    let counts = t.counts().await;
    let again = t.send(Method::POST, &turn, Some(&t.a), Body::Json(body.clone()), &keyed("turn-1")).await;
    assert_eq!(again.expect(200), first_json, "the first reply, as it was");
    assert_eq!(again.headers["idempotent-replayed"], "true");
    assert_eq!(t.counts().await, counts, "the turn did not run again");

    // The same key with another request, or a key no client can mean: refused.
    let other = json!({ "clientEvent": { "type": "REQUEST_DRILL", "unitId": "ALG-00" } });
    let error = t.send(Method::POST, &turn, Some(&t.a), Body::Json(other), &keyed("turn-1")).await;
    error.expect_error(422, "idempotency_key_reused", &["another request"]);
    let bad = t.send(Method::POST, &turn, Some(&t.a), Body::Json(body.clone()), &keyed(&"k".repeat(300))).await;
    bad.expect_error(400, "bad_idempotency_key", &["1-255"]);
    // Keys are each learner's own: B's key of the same name is B's.
    let theirs = text(&t.post(&t.b, "/api/tutor/threads", json!({ "courseId": "TEST-ALG" })).await.expect(201)["id"]);
    let reply = t
        .send(
            Method::POST,
            &format!("/api/tutor/threads/{theirs}/turn"),
            Some(&t.b),
            Body::Json(body),
            &keyed("turn-1"),
        )
        .await;
    assert!(reply.headers.get("idempotent-replayed").is_none());
    reply.expect(200);
    assert_eq!(
        t.counts().await.iter().find(|(n, _)| n == "tutor_turns").unwrap().1,
        counts.iter().find(|(n, _)| n == "tutor_turns").unwrap().1 + 1
    );
}

async fn a_response_retried_with_its_key_is_stored_once(t: &TestApp) {
    let plan = t
        .generate(&t.a, "Closures", json!({ "root": "Closures", "nodes": [{ "label": "Closures", "effort_minutes": 10 }, { "label": "Captures", "effort_minutes": 10 }],
            "edges": [{ "parent": "Closures", "child": "Captures" }] }))
        .await;
    let map = text(&plan["mind_map_id"]);
    let node = t.ids(&t.a, &map).await["Closures"].clone();
    let body = json!({ "node_id": node, "mind_map_id": map, "question_text": "What is a closure?", "quality": 4,
                       "response_type": "teach" });
    let first = t.send(Method::POST, "/api/responses", Some(&t.a), Body::Json(body.clone()), &keyed("r-1")).await;
    let first_json = first.expect(201);
    assert_eq!(first.headers["idempotent-replayed"], "false");
    let counts = t.counts().await;
    let again = t.send(Method::POST, "/api/responses", Some(&t.a), Body::Json(body.clone()), &keyed("r-1")).await;
    let again_json = again.expect(201);
    assert_eq!(again.headers["idempotent-replayed"], "true");
    assert_eq!((&again_json["id"], &again_json["response"]), (&first_json["id"], &first_json["response"]));
    assert_eq!(t.counts().await, counts, "stored once");
    let kept = counts.iter().find(|(table, _)| table == "idempotency_keys").unwrap().1;
    assert_eq!(kept, 0, "a response's key lives in its own row, not in the kept replies");
    // The key in the body works the same; a key in both that differs is refused.
    let mut with_key = body.clone();
    with_key["idempotency_key"] = json!("r-1");
    t.post(&t.a, "/api/responses", with_key.clone()).await.expect(201);
    let clash = t.send(Method::POST, "/api/responses", Some(&t.a), Body::Json(with_key), &keyed("r-2")).await;
    clash.expect_error(422, "invalid", &["differs from the Idempotency-Key header"]);
    let mut changed = body.clone();
    changed["quality"] = json!(1);
    let error = t.send(Method::POST, "/api/responses", Some(&t.a), Body::Json(changed), &keyed("r-1")).await;
    error.expect_error(422, "idempotency_key_reused", &["Idempotency-Key"]);
    assert_eq!(t.counts().await, counts);

    // A session of B's, or none at all, cannot be cited.
    let theirs =
        t.post(&t.b, "/api/flows", json!({ "topic": "Theirs", "caller_writes_steps": true })).await.expect(201);
    let mut citing = body;
    citing["session_id"] = theirs["id"].clone();
    t.refused(Method::POST, "/api/responses", Some(&t.a), Body::Json(citing), (404, "not_found"), &["session"]).await;
}

on_both_stores!(
    a_drill_is_graded_only_as_offered_and_once,
    a_retried_write_with_its_key_is_answered_as_the_first_time,
    a_response_retried_with_its_key_is_stored_once,
);
