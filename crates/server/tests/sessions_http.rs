//! Sessions over SSE against a real server on 127.0.0.1 (session-flow.md D1): create,
//! stream until a widget suspends the run, respond, stream again; replay, idempotency,
//! resumption on another server, the time limit, and every bad answer refused with the
//! tables unchanged. Evaluations and surveys run without a model; thought and learning
//! sessions talk to a fake OpenAI-compatible server.

mod support;

use pathwise_app::{App, ManualClock};
use pathwise_fake_llm::{FakeLlm, Script};
use pathwise_llm::{Llm, OpenAiClient, OpenAiConfig};
use pathwise_server::AppState;
use reqwest::Method;
use serde_json::{json, Value};
use std::sync::Arc;
use support::*;

struct Event {
    id: Option<i64>,
    name: String,
    data: Value,
}

fn parse_sse(text: &str) -> Vec<Event> {
    let mut events = Vec::new();
    for block in text.split("\n\n").filter(|b| !b.trim().is_empty()) {
        let (mut id, mut name, mut data) = (None, String::from("message"), String::new());
        for line in block.lines() {
            if let Some(v) = line.strip_prefix("id:") {
                id = v.trim().parse().ok();
            } else if let Some(v) = line.strip_prefix("event:") {
                name = v.trim().to_string();
            } else if let Some(v) = line.strip_prefix("data:") {
                data.push_str(v.trim_start());
            }
        }
        if !block.lines().all(|l| l.starts_with(':')) {
            events.push(Event { id, name, data: serde_json::from_str(&data).unwrap_or(Value::Null) });
        }
    }
    events
}

/// Open the stream and read it to its end (D1: it closes once the run suspends).
async fn stream_from(base: &str, token: &str, session: &str, last_event_id: Option<&str>) -> (String, Vec<Event>) {
    let mut request = reqwest::Client::new().get(format!("{base}/api/session/{session}/stream")).bearer_auth(token);
    if let Some(id) = last_event_id {
        request = request.header("Last-Event-ID", id);
    }
    let response = request.send().await.expect("stream");
    assert_eq!(response.status(), 200, "stream answered {}", response.status());
    let text = tokio::time::timeout(std::time::Duration::from_secs(30), response.text())
        .await
        .expect("the stream closes after the run suspends")
        .expect("stream body");
    let events = parse_sse(&text);
    assert_eq!(events.first().map(|e| e.name.as_str()), Some("connected"), "{text}");
    (text, events)
}

async fn stream(t: &TestApp, session: &str) -> Vec<Event> {
    stream_from(&t.base, &t.a, session, None).await.1
}

fn named<'a>(events: &'a [Event], name: &str) -> Vec<&'a Event> {
    events.iter().filter(|e| e.name == name).collect()
}

/// The waiting client action of a stream that suspended: (tool_call_id, tool, arguments).
fn action(events: &[Event]) -> (String, String, Value) {
    let last = events.last().expect("events");
    assert_eq!(
        last.name,
        "run_suspended",
        "the stream ends suspended: {:?}",
        events.iter().map(|e| &e.name).collect::<Vec<_>>()
    );
    let action = named(events, "client_action").pop().expect("a client action").data["data"].clone();
    (text(&action["tool_call_id"]), text(&action["tool"]), action["arguments"].clone())
}

/// The test's oracle: the item behind the opaque id a session showed, regenerated from the
/// item's own id, which only the session's stored state holds.
async fn item_behind(t: &TestApp, session: &str, presented: &Value) -> pathwise_items::Item {
    use pathwise_store::SessionStore;
    let shown = text(&presented["item"]["item_id"]);
    assert!(shown.starts_with("itm_") && !shown.contains("~s="), "the shown id tells nothing: {shown}");
    let learner = t.app.authenticate(&t.a).await.unwrap().id;
    let id = pathwise_domain::SessionId(session.parse().unwrap());
    let record = t.app.store().get_session(learner, id).await.unwrap().expect("the session");
    let own = record.state["shown"]
        .as_array()
        .unwrap()
        .iter()
        .find(|pair| pair[0] == shown.as_str())
        .map(|pair| text(&pair[1]))
        .expect("the shown id is recorded with the session");
    pathwise_items::Library::builtin().regenerate(&own).expect("reproducible from its own id")
}

async fn create(t: &TestApp, body: Value) -> String {
    let session = t.post(&t.a, "/api/session/", body).await.expect(201);
    assert_eq!(session["status"], "created");
    text(&session["id"])
}

async fn respond(t: &TestApp, session: &str, call: &str, response: Value) -> Value {
    t.post(&t.a, &format!("/api/session/{session}/respond"), json!({ "tool_call_id": call, "response": response }))
        .await
        .expect(200)
}

fn survey() -> Value {
    json!({
        "session_type": "survey",
        "config": { "survey": {
            "survey_id": "course-feedback", "title": "Course feedback",
            "questions": [
                {"question_id": "took", "text": "Did you finish the course?", "question_type": "multiple_choice", "options": ["Yes", "No"]},
                {"question_id": "rating", "text": "How useful was it?", "question_type": "rating"},
                {"question_id": "best", "text": "What was best?", "question_type": "free_text", "required": false},
                {"question_id": "why_not", "text": "Why not?", "question_type": "free_text"},
                {"question_id": "again", "text": "Would you take another?", "question_type": "multiple_choice", "options": ["Yes", "No"]}
            ],
            "skip_logic": { "took": [{"answer_in": ["No"], "skip_to": "why_not"}] }
        }}
    })
}

fn inline_quiz(time_limit: Option<u32>) -> Value {
    json!({
        "session_type": "evaluation",
        "config": {
            "items": [
                {"stem": "What is 2 + 2?", "options": ["3", "4", "5"], "correct": 1},
                {"stem": "Name the capital of France.", "correct": "Paris"}
            ],
            "time_limit_minutes": time_limit
        }
    })
}

async fn survey_runs_in_order_with_skip_logic_and_reports_its_answers((t, _): &(TestApp, Arc<ManualClock>)) {
    let id = create(t, survey()).await;
    let events = stream(t, &id).await;
    let names: Vec<&str> = events.iter().map(|e| e.name.as_str()).collect();
    assert_eq!(names, ["connected", "session_created", "session_started", "client_action", "run_suspended"]);
    let (call, tool, arguments) = action(&events);
    assert_eq!((tool.as_str(), arguments["prompt"].as_str()), ("present_choices", Some("Did you finish the course?")));
    assert_eq!(arguments["options"], json!(["Yes", "No"]));
    // Ids count from 1 and rise (backend tool calls stay in the log, off the stream).
    let ids: Vec<i64> = events.iter().filter_map(|e| e.id).collect();
    assert!(ids[0] == 1 && ids.windows(2).all(|w| w[0] < w[1]), "{ids:?}");

    let answered = respond(t, &id, &call, json!({ "selected_index": 1 })).await;
    assert_eq!((answered["duplicate"].as_bool(), answered["status"].as_str()), (Some(false), Some("running")));
    let events = stream(t, &id).await;
    assert_eq!(events[1].name, "client_action", "a stream starts after the learner's last answer");
    let (call, _, arguments) = action(&events);
    assert_eq!(arguments["prompt"], "Why not?", "a 'No' skips to why_not");
    let view = t.get(&t.a, &format!("/api/session/{id}")).await.expect(200);
    assert_eq!(view["context"]["skipped_questions"], json!(["rating", "best"]));
    assert_eq!(view["pending"]["tool_call_id"], call);

    respond(t, &id, &call, json!({ "text": "No time" })).await;
    let (call, _, arguments) = action(&stream(t, &id).await);
    assert_eq!(arguments["prompt"], "Would you take another?");
    respond(t, &id, &call, json!({ "selected_index": 0 })).await;
    let events = stream(t, &id).await;
    let done = named(&events, "session_completed").pop().expect("completed").data["data"].clone();
    assert_eq!(done["reason"], "finished");
    assert_eq!(done["results"]["answers"]["why_not"]["text"]["text"], "No time", "{done}");
    assert!(named(&events, "text_delta")[0].data["data"]["text"].as_str().unwrap().contains("Thank you"));
    let view = t.get(&t.a, &format!("/api/session/{id}")).await.expect(200);
    assert_eq!((view["status"].as_str(), view["end_reason"].as_str()), (Some("completed"), Some("finished")));
    // The conversation holds every widget call and its answer.
    let messages = t.get(&t.a, &format!("/api/session/{id}/messages")).await.expect(200);
    let tool_results = messages.as_array().unwrap().iter().filter(|m| m["role"] == "tool").count();
    assert!(tool_results >= 3 + 4, "three answers and the backend tools' results: {messages}");
}

async fn evaluation_scores_inline_items_exactly_and_reveals_nothing_before_the_end(
    (t, _): &(TestApp, Arc<ManualClock>),
) {
    let id = create(t, inline_quiz(None)).await;
    let (first, events) = stream_from(&t.base, &t.a, &id, None).await;
    let (call, tool, arguments) = action(&events);
    assert_eq!((tool.as_str(), arguments["prompt"].as_str()), ("present_choices", Some("What is 2 + 2?")));
    let presented = named(&events, "item_presented")[0].data["data"].clone();
    assert_eq!((presented["item_number"].as_i64(), presented["total_items"].as_i64()), (Some(1), Some(2)));
    respond(t, &id, &call, json!({ "selected_index": 1 })).await;
    let (second, events) = stream_from(&t.base, &t.a, &id, None).await;
    let (call, tool, _) = action(&events);
    assert_eq!(tool, "request_free_text");
    // No feedback, no key: neither stream nor the session's view says how an answer scored.
    for text in [&first, &second] {
        for leak in ["Paris", "\"correct\"", "\"expected\"", "item_evaluated", "tool_called"] {
            assert!(!text.contains(leak), "the stream shows {leak}: {text}");
        }
    }
    let view = t.get(&t.a, &format!("/api/session/{id}")).await;
    assert!(!view.text.contains("Paris") && !view.text.contains("\"correct\""), "{}", view.text);
    let messages = t.get(&t.a, &format!("/api/session/{id}/messages")).await;
    assert!(!messages.text.contains("\"correct\""), "{}", messages.text);

    respond(t, &id, &call, json!({ "text": "  paris " })).await;
    let events = stream(t, &id).await;
    let done = named(&events, "session_completed").pop().expect("completed").data["data"].clone();
    assert_eq!(done["reason"], "finished");
    let results = &done["results"];
    assert_eq!((results["items_correct"].as_i64(), results["percent"].as_f64()), (Some(2), Some(100.0)));
    assert_eq!(results["items"][1]["expected"], "Paris");
}

async fn a_ten_item_arithmetic_quiz_runs_end_to_end_with_unique_items_scored_correctly(
    (t, _): &(TestApp, Arc<ManualClock>),
) {
    let id =
        create(t, json!({ "session_type": "evaluation", "config": { "blueprint_id": "MATH-ARITH-QUIZ-10" } })).await;
    let mut stems = std::collections::HashSet::new();
    let mut events = stream(t, &id).await;
    for number in 1..=10 {
        let presented = named(&events, "item_presented").pop().expect("an item").data["data"].clone();
        assert_eq!(presented["item_number"], number);
        let (call, tool, arguments) = action(&events);
        assert_eq!(tool, "present_choices");
        let prompt = text(&arguments["prompt"]);
        assert!(stems.insert(prompt.clone()), "item {number} repeats '{prompt}'");
        let item = item_behind(t, &id, &presented).await;
        assert_eq!(item.stem, prompt, "the presentation is verbatim");
        let options = arguments["options"].as_array().unwrap();
        let right = (0..options.len())
            .find(|&i| item.check(&pathwise_items::Answer::Choice(i)).unwrap().correct)
            .expect("one option is right");
        respond(t, &id, &call, json!({ "selected_index": right })).await;
        events = stream(t, &id).await;
    }
    let done = named(&events, "session_completed").pop().expect("completed after 10 items").data["data"].clone();
    let results = &done["results"];
    assert_eq!((results["items_answered"].as_i64(), results["items_correct"].as_i64()), (Some(10), Some(10)));
    assert_eq!(results["percent"], 100.0);
}

/// "Practise what you missed": a finished evaluation's wrong answers come back as an
/// evaluation of their own, each a fresh item of the missed item's skill (never the missed
/// item itself); an inline quiz's missed items come back as they were. Asking for it on a
/// session that is not over, not an evaluation, with nothing missed, or not yours is
/// refused with nothing stored.
async fn practising_what_was_missed_brings_back_the_missed_skills((t, _): &(TestApp, Arc<ManualClock>)) {
    let quiz = create(
        t,
        json!({ "session_type": "evaluation", "title": "Arithmetic",
        "config": { "blueprint_id": "MATH-ARITH-QUIZ-10" } }),
    )
    .await;
    let practise =
        |source: &str| Body::Json(json!({ "session_type": "evaluation", "config": { "missed_in": source } }));
    t.refused(
        Method::POST,
        "/api/session/",
        Some(&t.a),
        practise(&quiz),
        (422, "invalid"),
        &["config.missed_in", "is not over yet"],
    )
    .await;
    let mut events = stream(t, &quiz).await;
    let mut missed = Vec::new();
    for number in 1..=10 {
        let presented = named(&events, "item_presented").pop().expect("an item").data["data"].clone();
        let (call, _, arguments) = action(&events);
        let item = item_behind(t, &quiz, &presented).await;
        let options = arguments["options"].as_array().unwrap().len();
        let right = (0..options).find(|&i| item.check(&pathwise_items::Answer::Choice(i)).unwrap().correct).unwrap();
        let answer = if number == 2 || number == 5 {
            missed.push(item);
            (right + 1) % options
        } else {
            right
        };
        respond(t, &quiz, &call, json!({ "selected_index": answer })).await;
        events = stream(t, &quiz).await;
    }
    assert!(!named(&events, "session_completed").is_empty());

    let reply = t
        .post(
            &t.a,
            "/api/session/",
            json!({ "session_type": "evaluation", "title": "Practice: Arithmetic",
        "config": { "missed_in": quiz } }),
        )
        .await
        .expect(201);
    let practice = text(&reply["id"]);
    assert_eq!(reply["config"]["missed_in"], quiz.as_str(), "{reply}");
    assert_eq!(reply["context"]["total_items"], 2, "one item per item missed: {reply}");
    assert_eq!(reply["deadline"], Value::Null, "practice has no time limit");
    let mut events = stream(t, &practice).await;
    for missed in &missed {
        let presented = named(&events, "item_presented").pop().expect("an item").data["data"].clone();
        let item = item_behind(t, &practice, &presented).await;
        assert_eq!(item.blueprint_id, missed.blueprint_id, "the skill of the item missed");
        assert!((item.difficulty - missed.difficulty).abs() <= 0.35, "{} vs {}", item.difficulty, missed.difficulty);
        assert_ne!(item.content_key, missed.content_key, "a fresh item, not the one whose answer was shown");
        let (call, _, arguments) = action(&events);
        let options = arguments["options"].as_array().unwrap().len();
        let right = (0..options).find(|&i| item.check(&pathwise_items::Answer::Choice(i)).unwrap().correct).unwrap();
        respond(t, &practice, &call, json!({ "selected_index": right })).await;
        events = stream(t, &practice).await;
    }
    let done = named(&events, "session_completed").pop().expect("completed").data["data"].clone();
    assert_eq!(
        (done["results"]["items_answered"].as_i64(), done["results"]["items_correct"].as_i64()),
        (Some(2), Some(2))
    );

    // Nothing was missed in the practice; a survey has nothing to practise; others' and
    // unknown sessions are not found; one source only.
    t.refused(
        Method::POST,
        "/api/session/",
        Some(&t.a),
        practise(&practice),
        (422, "invalid"),
        &["config.missed_in", "nothing to practise"],
    )
    .await;
    let survey = create(t, survey()).await;
    t.refused(Method::POST, "/api/session/", Some(&t.a), practise(&survey), (422, "invalid"), &["is a survey session"])
        .await;
    t.refused(Method::POST, "/api/session/", Some(&t.b), practise(&quiz), (404, "not_found"), &["session"]).await;
    let unknown = uuid::Uuid::now_v7().to_string();
    t.refused(Method::POST, "/api/session/", Some(&t.a), practise(&unknown), (404, "not_found"), &["session"]).await;
    let both = Body::Json(json!({ "session_type": "evaluation",
        "config": { "missed_in": quiz, "blueprint_id": "MATH-ARITH-QUIZ-10" } }));
    t.refused(
        Method::POST,
        "/api/session/",
        Some(&t.a),
        both,
        (422, "invalid"),
        &["one of blueprint_id, items and missed_in"],
    )
    .await;

    // An inline quiz: the item missed comes back as it was.
    let inline = create(t, inline_quiz(None)).await;
    let (call, _, _) = action(&stream(t, &inline).await);
    respond(t, &inline, &call, json!({ "selected_index": 1 })).await;
    let (call, _, _) = action(&stream(t, &inline).await);
    respond(t, &inline, &call, json!({ "text": "Lyon" })).await;
    stream(t, &inline).await;
    let again = t
        .post(&t.a, "/api/session/", json!({ "session_type": "evaluation", "config": { "missed_in": inline } }))
        .await
        .expect(201);
    let events = stream(t, &text(&again["id"])).await;
    let (_, tool, arguments) = action(&events);
    assert_eq!(
        (tool.as_str(), arguments["prompt"].as_str()),
        ("request_free_text", Some("Name the capital of France."))
    );
    assert_eq!(again["context"]["total_items"], 1);
}

async fn bad_answers_are_refused_with_the_session_unchanged((t, clock): &(TestApp, Arc<ManualClock>)) {
    let id = create(t, inline_quiz(Some(1))).await;
    let path = format!("/api/session/{id}/respond");
    let body = |call: &str, response: Value| Body::Json(json!({ "tool_call_id": call, "response": response }));
    // Not awaiting a response: nothing has been asked yet.
    t.refused(
        Method::POST,
        &path,
        Some(&t.a),
        body("call_1", json!({"selected_index": 0})),
        (409, "not_awaiting_response"),
        &["not awaiting a response"],
    )
    .await;
    let (call, _, _) = action(&stream(t, &id).await);
    let before = t.get(&t.a, &format!("/api/session/{id}")).await.expect(200);
    t.refused(
        Method::POST,
        &path,
        Some(&t.a),
        body("call_99", json!({"selected_index": 0})),
        (409, "not_awaiting_call"),
        &["call_99", &call],
    )
    .await;
    t.refused(
        Method::POST,
        &path,
        Some(&t.a),
        body(&call, json!({"selected_index": 3})),
        (422, "invalid"),
        &["3 is out of range; allowed: 0-2"],
    )
    .await;
    t.refused(
        Method::POST,
        &path,
        Some(&t.a),
        body(&call, json!({"text": "4"})),
        (422, "invalid"),
        &["selected_index"],
    )
    .await;
    t.refused(
        Method::POST,
        &path,
        Some(&t.a),
        Body::Json(json!({"tool_call_id": call})),
        (400, "malformed_json"),
        &["response"],
    )
    .await;
    // Another learner's session is not found.
    t.refused(
        Method::POST,
        &path,
        Some(&t.b),
        body(&call, json!({"selected_index": 1})),
        (404, "not_found"),
        &["session"],
    )
    .await;
    clock.advance(chrono::Duration::seconds(61));
    t.refused(
        Method::POST,
        &path,
        Some(&t.a),
        body(&call, json!({"selected_index": 1})),
        (409, "time_limit_passed"),
        &["time limit passed"],
    )
    .await;
    let after = t.get(&t.a, &format!("/api/session/{id}")).await.expect(200);
    assert_eq!((&before["pending"], &before["last_event_id"]), (&after["pending"], &after["last_event_id"]));
    // The next stream ends the session on its time limit.
    let events = stream(t, &id).await;
    let done = named(&events, "session_completed").pop().expect("completed").data["data"].clone();
    assert_eq!(done["reason"], "time_limit");
    t.refused(
        Method::POST,
        &path,
        Some(&t.a),
        body(&call, json!({"selected_index": 1})),
        (409, "not_awaiting_response"),
        &["completed"],
    )
    .await;
    // A session of an unknown type, or a config that breaks a rule or names what is not
    // there (404), is refused whole.
    let create = "/api/session/";
    t.refused(
        Method::POST,
        create,
        Some(&t.a),
        Body::Json(json!({"session_type": "workflow"})),
        (400, "malformed_json"),
        &["session_type"],
    )
    .await;
    t.refused(
        Method::POST,
        create,
        Some(&t.a),
        Body::Json(
            json!({"session_type": "evaluation", "config": {"items": [{"stem": "?", "options": ["a"], "correct": 0}]}}),
        ),
        (422, "invalid"),
        &["config.items[0]"],
    )
    .await;
    t.refused(
        Method::POST,
        create,
        Some(&t.a),
        Body::Json(json!({"session_type": "evaluation", "config": {"blueprint_id": "NOPE"}})),
        (404, "not_found"),
        &["'NOPE' is not an assessment", "MATH-ARITH-QUIZ-10"],
    )
    .await;
    // A thought session needs a model: 503, naming the setting, and nothing stored.
    let before = t.counts().await;
    let reply = t
        .client
        .post(format!("{}{create}", t.base))
        .bearer_auth(&t.a)
        .json(&json!({"session_type": "thought"}))
        .send()
        .await
        .unwrap();
    assert_eq!(reply.status(), 503);
    assert!(reply.text().await.unwrap().contains("llm_base_url"));
    assert_eq!(t.counts().await, before);
}

async fn a_repeated_respond_for_the_same_call_is_answered_idempotently((t, _): &(TestApp, Arc<ManualClock>)) {
    let id = create(t, survey()).await;
    let (call, _, _) = action(&stream(t, &id).await);
    let first = respond(t, &id, &call, json!({ "selected_index": 0 })).await;
    let before = t.counts().await;
    let again = respond(t, &id, &call, json!({ "selected_index": 1 })).await;
    assert_eq!(again["duplicate"], true);
    assert_eq!(again["response"], first["response"], "the first answer stands");
    assert_eq!(t.counts().await, before, "a repeated respond writes nothing");
}

async fn last_event_id_replays_what_the_client_missed((t, _): &(TestApp, Arc<ManualClock>)) {
    let id = create(t, survey()).await;
    let (_, events) = stream_from(&t.base, &t.a, &id, None).await;
    let last = events.last().unwrap().id.unwrap();
    let seen: Vec<i64> = events.iter().filter_map(|e| e.id).collect();
    let (_, replay) = stream_from(&t.base, &t.a, &id, Some("2")).await;
    let ids: Vec<i64> = replay.iter().filter_map(|e| e.id).collect();
    assert_eq!(ids, seen.into_iter().filter(|i| *i > 2).collect::<Vec<_>>());
    let (_, replay) = stream_from(&t.base, &t.a, &id, Some(&last.to_string())).await;
    assert_eq!(replay.len(), 1, "nothing missed: only 'connected'");
    let reply = reqwest::Client::new()
        .get(format!("{}/api/session/{id}/stream", t.base))
        .bearer_auth(&t.a)
        .header("Last-Event-ID", "yesterday")
        .send()
        .await
        .unwrap();
    assert_eq!(reply.status(), 400);
    assert!(reply.text().await.unwrap().contains("Last-Event-ID"));
}

async fn a_session_resumes_on_another_server_process((t, clock): &(TestApp, Arc<ManualClock>)) {
    // A second server over the same database, as another replica would be.
    let other = App::with_clock(t.app.store().clone(), clock.clone());
    let other = serve_state(AppState::new(other, None)).await;
    let id = create(t, survey()).await;
    let (call, _, _) = action(&stream(t, &id).await);
    let reply = reqwest::Client::new()
        .post(format!("{other}/api/session/{id}/respond"))
        .bearer_auth(&t.a)
        .json(&json!({ "tool_call_id": call, "response": { "selected_index": 0 } }))
        .send()
        .await
        .unwrap();
    assert_eq!(reply.status(), 200);
    let (_, events) = stream_from(&other, &t.a, &id, None).await;
    let (call, _, arguments) = action(&events);
    assert_eq!(arguments["prompt"], "How useful was it?");
    respond(t, &id, &call, json!({ "selected_index": 4 })).await;
    let (_, _, arguments) = action(&stream(t, &id).await);
    assert_eq!(arguments["prompt"], "What was best?");
}

async fn the_learner_can_end_a_session((t, _): &(TestApp, Arc<ManualClock>)) {
    // The collection answers with or without its trailing slash.
    let session = t.post(&t.a, "/api/session", inline_quiz(None)).await.expect(201);
    let id = text(&session["id"]);
    let listed = t.get(&t.a, "/api/session").await.expect(200);
    assert!(listed.to_string().contains(&id), "{listed}");
    let (call, _, _) = action(&stream(t, &id).await);
    respond(t, &id, &call, json!({ "selected_index": 1 })).await;
    let ended = t.delete(&t.a, &format!("/api/session/{id}")).await.expect(200);
    assert_eq!((ended["status"].as_str(), ended["end_reason"].as_str()), (Some("terminated"), Some("learner")));
    assert_eq!(ended["results"]["items_answered"], 1, "what was answered is kept");
    let events = stream(t, &id).await;
    assert_eq!(events.last().unwrap().name, "session_terminated");
    let again = t.delete(&t.a, &format!("/api/session/{id}")).await.expect(200);
    assert_eq!(again["status"], "terminated");
}

/// A quiz of ten ended after one right answer scores 1 of 10 (10%), not 1 of 1 (100%), and
/// lists what was not answered: the item on screen by the id the learner saw, the rest by
/// their number (an item's own id tells its answer, so it never leaves the server).
async fn an_evaluation_ended_after_one_answer_is_scored_over_all_its_items((t, _): &(TestApp, Arc<ManualClock>)) {
    let id =
        create(t, json!({ "session_type": "evaluation", "config": { "blueprint_id": "MATH-ARITH-QUIZ-10" } })).await;
    let events = stream(t, &id).await;
    let presented = named(&events, "item_presented").pop().expect("an item").data["data"].clone();
    let (call, _, arguments) = action(&events);
    let item = item_behind(t, &id, &presented).await;
    let options = arguments["options"].as_array().unwrap();
    let right = (0..options.len()).find(|&i| item.check(&pathwise_items::Answer::Choice(i)).unwrap().correct).unwrap();
    respond(t, &id, &call, json!({ "selected_index": right })).await;
    let events = stream(t, &id).await;
    let on_screen = named(&events, "item_presented").pop().expect("the second item").data["data"].clone();
    let ended = t.delete(&t.a, &format!("/api/session/{id}")).await.expect(200);
    let results = &ended["results"];
    assert_eq!(
        (results["items_total"].as_i64(), results["items_answered"].as_i64(), results["items_unanswered"].as_i64()),
        (Some(10), Some(1), Some(9))
    );
    assert_eq!((results["score"].as_f64(), results["max_score"].as_i64()), (Some(1.0), Some(10)));
    assert_eq!(results["percent"], 10.0);
    let unanswered = results["unanswered"].as_array().expect("the unanswered items listed");
    assert_eq!(unanswered.len(), 9);
    assert_eq!(unanswered[0]["item_id"], on_screen["item"]["item_id"], "the item on screen, by its shown id");
    assert_eq!((unanswered[0]["item_number"].as_i64(), unanswered[0]["reached"].as_bool()), (Some(2), Some(true)));
    for (n, rest) in unanswered.iter().enumerate().skip(1) {
        assert!(rest["item_id"].is_null() && rest["reached"] == false, "{rest}");
        assert_eq!(rest["item_number"].as_u64(), Some(n as u64 + 2));
        assert!(rest["stem"].as_str().is_some_and(|s| !s.is_empty()) && !rest["expected"].is_null(), "{rest}");
    }
    let view = t.get(&t.a, &format!("/api/session/{id}")).await;
    assert!(!view.text.contains("~s="), "no item's own id: {}", view.text);
}

async fn a_learning_session_picks_the_concept_and_records_every_answer_as_mastery(
    (t, _): &(TestApp, Arc<ManualClock>),
) {
    let plan = t
        .generate(
            &t.a,
            "Arithmetic",
            json!({ "root": "Adding", "nodes": [
            {"label": "Adding", "description": "Adding two-digit numbers.", "effort_minutes": 20}
        ], "edges": [] }),
        )
        .await;
    let map = text(&plan["mind_map_id"]);
    let ids = t.ids(&t.a, &map).await;
    let body = json!({ "session_type": "learning", "config": {
        "map_id": map, "item_templates": { "Adding": ["MATH.ARITH.ADD.2DIGIT"] }, "max_items": 3 } });
    let id = create(t, body).await;
    let mut events = stream(t, &id).await;
    assert!(
        named(&events, "text_delta")[0].data["data"]["text"].as_str().unwrap().contains("Adding"),
        "introduced first"
    );
    for i in 0..3 {
        let presented = named(&events, "item_presented").pop().expect("an item").data["data"].clone();
        assert_eq!(presented["concept"], "Adding");
        let (call, _, arguments) = action(&events);
        let item = item_behind(t, &id, &presented).await;
        let options = arguments["options"].as_array().unwrap();
        let right =
            (0..options.len()).find(|&o| item.check(&pathwise_items::Answer::Choice(o)).unwrap().correct).unwrap();
        // Right, wrong, right.
        let pick = if i == 1 { (right + 1) % options.len() } else { right };
        respond(t, &id, &call, json!({ "selected_index": pick })).await;
        events = stream(t, &id).await;
        let evaluated = named(&events, "item_evaluated")[0].data["data"].clone();
        assert_eq!(evaluated["correct"], i != 1, "feedback is immediate in a learning session");
        let feedback = text(&evaluated["feedback"]);
        assert!(if i == 1 { feedback.starts_with("Not quite") } else { feedback == "Correct!" }, "{feedback}");
    }
    let done = named(&events, "session_completed").pop().expect("completed").data["data"].clone();
    assert_eq!(done["reason"], "max_items");
    let history = t.get(&t.a, &format!("/api/nodes/{}/history", ids["Adding"])).await.expect(200);
    let responses = history.as_array().unwrap();
    assert_eq!(responses.len(), 3, "every answer went through mastery_record_response: {history}");
    assert!(responses.iter().all(|r| r["session_id"] == json!(id)), "{history}");
    // Picked among the options shown: recognised, 4 (a typed answer would earn 5), and Good
    // for FSRS either way; the miss is Again.
    let earned: Vec<(i64, &str)> =
        responses.iter().rev().map(|r| (r["quality"].as_i64().unwrap(), r["rating"].as_str().unwrap())).collect();
    assert_eq!(earned, [(4, "good"), (1, "again"), (4, "good")]);
}

/// A reference solution for each Python task, written from the task's statement.
fn solution(task: &str, function: &str) -> String {
    let body = match task {
        "count_chars" => "return len(s)",
        "reverse_string" => "return s[::-1]",
        "count_vowels" => "return sum(1 for c in s if c.lower() in 'aeiou')",
        "sum_list" => "return sum(numbers)",
        "max_of_list" => "return max(numbers)",
        "fizzbuzz" => {
            "return 'FizzBuzz' if n % 15 == 0 else 'Fizz' if n % 3 == 0 else 'Buzz' if n % 5 == 0 else str(n)"
        }
        other => panic!("no reference solution for {other}"),
    };
    let parameter = match task {
        "sum_list" | "max_of_list" => "numbers",
        "fizzbuzz" => "n",
        _ => "s",
    };
    format!("def {function}({parameter}):\n    {body}\n")
}

async fn a_programming_quiz_runs_learner_code_in_the_sandbox_with_partial_credit((t, _): &(TestApp, Arc<ManualClock>)) {
    let id =
        create(t, json!({ "session_type": "evaluation", "config": { "blueprint_id": "PROG-PYTHON-BASICS" } })).await;

    // 1: a correct solution passes every generated test.
    let events = stream(t, &id).await;
    let presented = named(&events, "item_presented").pop().expect("an item").data["data"].clone();
    let item = item_behind(t, &id, &presented).await;
    let task = item.code.clone().expect("a code task");
    let (call, tool, arguments) = action(&events);
    assert_eq!((tool.as_str(), arguments["language"].as_str()), ("present_code_editor", Some("python")));
    assert_eq!(arguments["starter_code"], task.starter_code.as_str());
    let kind = text(&item.generation_params["task"]);
    respond(t, &id, &call, json!({ "code": solution(&kind, &task.function_name) })).await;

    // 2: code over 64 KiB is refused with nothing changed; code that only knows the
    // visible example earns partial credit: the share of tests with that input.
    let events = stream(t, &id).await;
    let presented = named(&events, "item_presented").pop().expect("an item").data["data"].clone();
    let item = item_behind(t, &id, &presented).await;
    let task = item.code.clone().expect("a code task");
    let (call, _, _) = action(&events);
    let before = t.get(&t.a, &format!("/api/session/{id}")).await.expect(200);
    let counts = t.counts().await;
    let huge = format!("def {}(x):\n    return 0\n# {}\n", task.function_name, "x".repeat(64 * 1024));
    t.refused(
        Method::POST,
        &format!("/api/session/{id}/respond"),
        Some(&t.a),
        Body::Json(json!({ "tool_call_id": call, "response": { "code": huge } })),
        (422, "invalid"),
        &["at most 65536 (64 KiB)"],
    )
    .await;
    assert_eq!(t.get(&t.a, &format!("/api/session/{id}")).await.expect(200), before);
    assert_eq!(t.counts().await, counts);
    let example = &task.tests[0];
    let memorized = format!(
        "def {}(*args):\n    return {} if list(args) == {} else None\n",
        task.function_name,
        python_literal(&example.expected),
        python_literal(&Value::Array(example.input.clone()))
    );
    respond(t, &id, &call, json!({ "code": memorized })).await;
    let same = task.tests.iter().filter(|case| case.input == example.input).count();
    let partial = same as f64 / task.tests.len() as f64;

    // 3: an endless loop is stopped by a limit and scores nothing.
    let events = stream(t, &id).await;
    let presented = named(&events, "item_presented").pop().expect("an item").data["data"].clone();
    let item = item_behind(t, &id, &presented).await;
    let function = item.code.expect("a code task").function_name;
    let (call, _, _) = action(&events);
    respond(t, &id, &call, json!({ "code": format!("def {function}(*args):\n    while True:\n        pass\n") })).await;

    let events = stream(t, &id).await;
    let done = named(&events, "session_completed").pop().expect("completed after 3 items").data["data"].clone();
    let items = done["results"]["items"].as_array().expect("items").clone();
    assert_eq!(items.len(), 3);
    assert_eq!((items[0]["credit"].as_f64(), items[0]["correct"].as_bool()), (Some(1.0), Some(true)), "{}", items[0]);
    assert_eq!(items[0]["tests"]["passed"], items[0]["tests"]["total"]);
    assert!((items[1]["credit"].as_f64().unwrap() - partial).abs() < 1e-9, "{} vs {partial}", items[1]);
    assert!(0.0 < partial && partial < 1.0 && items[1]["tests"]["passed"] == same, "{}", items[1]);
    assert_eq!((items[2]["credit"].as_f64(), items[2]["tests"]["passed"].as_i64()), (Some(0.0), Some(0)));
    let limit = text(&items[2]["tests"]["limit"]);
    assert!(limit == "cpu_time" || limit == "wall_clock", "{}", items[2]);
}

/// A JSON value of strings, integers and lists as Python source: the same text.
fn python_literal(value: &Value) -> String {
    serde_json::to_string(value).unwrap()
}

fn clock() -> Arc<ManualClock> {
    Arc::new(ManualClock::new(chrono::Utc::now()))
}

/// One sandbox for every server in this file (it checks the host once).
fn sandbox() -> Arc<pathwise_sandbox::Sandbox> {
    static SANDBOX: std::sync::OnceLock<Arc<pathwise_sandbox::Sandbox>> = std::sync::OnceLock::new();
    SANDBOX
        .get_or_init(|| {
            let sandbox = pathwise_sandbox::Sandbox::new(Default::default());
            Arc::new(sandbox.unwrap_or_else(|e| panic!("programming items need the sandbox on this host: {e}")))
        })
        .clone()
}

/// A server with the sandbox, whose application reads the time from a clock the scenario
/// moves.
async fn with_a_clock(test_store: TestStore) -> (TestApp, Arc<ManualClock>) {
    let clock = clock();
    let made = clock.clone();
    (spawn_app_made(test_store, move |s| App::with_clock(s, made).with_sandbox(sandbox())).await, clock)
}

pathwise_test_support::conformance!(
    with_a_clock;
    survey_runs_in_order_with_skip_logic_and_reports_its_answers,
    evaluation_scores_inline_items_exactly_and_reveals_nothing_before_the_end,
    a_ten_item_arithmetic_quiz_runs_end_to_end_with_unique_items_scored_correctly,
    bad_answers_are_refused_with_the_session_unchanged,
    a_repeated_respond_for_the_same_call_is_answered_idempotently,
    last_event_id_replays_what_the_client_missed,
    a_session_resumes_on_another_server_process,
    the_learner_can_end_a_session,
    an_evaluation_ended_after_one_answer_is_scored_over_all_its_items,
    a_learning_session_picks_the_concept_and_records_every_answer_as_mastery,
    a_programming_quiz_runs_learner_code_in_the_sandbox_with_partial_credit,
    practising_what_was_missed_brings_back_the_missed_skills,
);

// ---------------------------------------------------------------------------------------
// With a model
// ---------------------------------------------------------------------------------------

async fn with_model(heartbeat: std::time::Duration) -> (TestApp, FakeLlm, String) {
    let fake = FakeLlm::start().await;
    let config =
        OpenAiConfig { timeout: std::time::Duration::from_secs(10), ..OpenAiConfig::new(fake.base_url(), "partner") };
    let llm = Llm::new(Arc::new(OpenAiClient::new(config).unwrap()), 4);
    let t = spawn_app_made(TestStore::sqlite().await, move |s| App::new(s).with_llm(llm)).await;
    let base = serve_state(AppState::new(t.app.clone(), None).with_session_heartbeat(heartbeat)).await;
    (t, fake, base)
}

#[tokio::test]
async fn a_thought_session_keeps_recent_turns_verbatim_and_summarizes_older_ones() {
    let (t, fake, base) = with_model(std::time::Duration::from_secs(15)).await;
    let id =
        create(&t, json!({ "session_type": "thought", "config": { "topic": "changing careers", "window_turns": 2 } }))
            .await;
    fake.script([Script::Text("What feels unfulfilling now?".into())]);
    let (_, events) = stream_from(&base, &t.a, &id, None).await;
    assert_eq!(named(&events, "text_delta")[0].data["data"]["text"], "What feels unfulfilling now?");
    let (mut call, tool, _) = action(&events);
    assert_eq!(tool, "request_free_text");
    let answers = ["The repetition.", "Teaching others.", "Maybe a course."];
    for (turn, answer) in answers.iter().enumerate() {
        respond(&t, &id, &call, json!({ "text": answer })).await;
        if turn == 2 {
            // The third answer pushes the first out of the two-turn window: summarized first.
            fake.script([
                Script::Text("SUMMARY: finds the work repetitive.".into()),
                Script::Text("Which course?".into()),
            ]);
        } else {
            fake.script([Script::Text(format!("Reply {turn}"))]);
        }
        let (_, events) = stream_from(&base, &t.a, &id, None).await;
        call = action(&events).0;
    }
    let requests = fake.requests();
    let last = requests.last().unwrap().to_string();
    assert!(last.contains("SUMMARY: finds the work repetitive."), "the summary goes to the model: {last}");
    assert!(!last.contains("The repetition."), "turns older than the window are not sent verbatim: {last}");
    assert!(last.contains("Teaching others.") && last.contains("Maybe a course."), "{last}");
    let view = t.get(&t.a, &format!("/api/session/{id}")).await.expect(200);
    assert_eq!(view["context"]["turns"], 3);
    assert_eq!(view["context"]["summary"], "SUMMARY: finds the work repetitive.");
}

#[tokio::test]
async fn a_learning_step_that_fails_after_recording_the_answer_records_it_once() {
    let (t, fake, base) = with_model(std::time::Duration::from_secs(15)).await;
    let plan = t
        .generate(
            &t.a,
            "Arithmetic",
            json!({ "root": "Adding", "nodes": [{"label": "Adding", "effort_minutes": 20}], "edges": [] }),
        )
        .await;
    let map = text(&plan["mind_map_id"]);
    let node = t.ids(&t.a, &map).await["Adding"].clone();
    let body = json!({ "session_type": "learning", "config": {
        "map_id": map, "item_templates": { "Adding": ["MATH.ARITH.ADD.2DIGIT"] }, "max_items": 1 } });
    let id = create(&t, body).await;
    fake.script([Script::Text("Adding puts two amounts together.".into())]);
    let (_, events) = stream_from(&base, &t.a, &id, None).await;
    let (call, _, _) = action(&events);
    respond(&t, &id, &call, json!({ "selected_index": 0 })).await;

    // The answer is recorded, then the model fails to word the feedback: the step stores
    // nothing and the stream says so.
    fake.script([Script::Status(500, "the model is down".into())]);
    let (_, events) = stream_from(&base, &t.a, &id, None).await;
    assert_eq!(
        events.last().map(|e| e.name.as_str()),
        Some("error"),
        "{:?}",
        events.iter().map(|e| &e.name).collect::<Vec<_>>()
    );
    // The next stream runs the step again, and finds the response it recorded.
    fake.script([Script::Text("Here is how to check it.".into())]);
    let (_, events) = stream_from(&base, &t.a, &id, None).await;
    assert!(
        named(&events, "session_completed").pop().is_some(),
        "{:?}",
        events.iter().map(|e| &e.name).collect::<Vec<_>>()
    );
    let history = t.get(&t.a, &format!("/api/nodes/{node}/history")).await.expect(200);
    assert_eq!(history.as_array().unwrap().len(), 1, "one answer, one response: {history}");
    let evaluated = named(&events, "item_evaluated")[0].data["data"].clone();
    let concept = t.get(&t.a, &format!("/api/nodes/{node}")).await.expect(200);
    assert_eq!(evaluated["mastery_score"], concept["mastery_score"], "the mastery the response left");
}

#[tokio::test]
async fn an_open_stream_sends_heartbeats_while_the_model_works() {
    let (t, fake, base) = with_model(std::time::Duration::from_millis(100)).await;
    let id = create(&t, json!({ "session_type": "thought" })).await;
    fake.script([Script::Slow(std::time::Duration::from_millis(700), Box::new(Script::Text("Hello.".into())))]);
    let (_, events) = stream_from(&base, &t.a, &id, None).await;
    let names: Vec<&str> = events.iter().map(|e| e.name.as_str()).collect();
    let first_text = names.iter().position(|n| *n == "text_delta").unwrap();
    assert!(names[..first_text].iter().filter(|n| **n == "heartbeat").count() >= 3, "{names:?}");
}

#[tokio::test]
async fn evaluations_never_ask_the_model_even_when_one_is_configured() {
    let (t, fake, base) = with_model(std::time::Duration::from_secs(15)).await;
    let id = create(&t, inline_quiz(None)).await;
    let (_, events) = stream_from(&base, &t.a, &id, None).await;
    let (call, _, _) = action(&events);
    respond(&t, &id, &call, json!({ "selected_index": 0 })).await;
    stream_from(&base, &t.a, &id, None).await;
    assert!(fake.requests().is_empty(), "an evaluation's items and answers never reach a prompt");
}
