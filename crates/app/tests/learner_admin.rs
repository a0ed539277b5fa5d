//! Learner administration, on both stores: tokens named, used, revoked and rotated; the
//! operator's list with each learner's last activity; a learner deleted with every row of
//! theirs (their open sessions ended first); and a learner with something in every kind of
//! record exported, imported into a fresh store (and from SQLite into PostgreSQL) and
//! exported again, the two documents equal.

mod support;

use chrono::Duration;
use pathwise_app::course_tutor::{CreateThread, DrillGradeRequest, DrillText, TurnRequest};
use pathwise_app::learners::transfer::LearnerDocument;
use pathwise_app::mastery::RecordResponse;
use pathwise_app::preferences::UpdatePreferences;
use pathwise_app::sessions::config::CreateSession;
use pathwise_app::{AnyStore, App, Clock, ErrorCode, ErrorKind, ManualClock};
use pathwise_course::TutorCard;
use pathwise_domain::{LearnerId, ResponseType, SessionStatus};
use pathwise_store::prelude::*;
use pathwise_store::LlmCall;
use pathwise_test_support::{Backend, TestStore};
use serde_json::{json, Value};
use std::sync::Arc;
use support::{chain, start_time, TestApp};

conformance!(
    a_revoked_token_is_refused_saying_when_and_a_rotation_swaps_tokens_at_once,
    a_tokens_use_is_noted_once_a_minute_and_shows_in_the_learners_last_activity,
    deleting_a_learner_ends_their_sessions_and_leaves_nothing_of_theirs,
    a_learner_exported_and_imported_into_a_fresh_store_exports_the_same,
    an_import_is_refused_whole_for_a_learner_here_a_missing_course_or_a_bad_row,
);

// ---------------------------------------------------------------------------------------
// Tokens
// ---------------------------------------------------------------------------------------

async fn a_revoked_token_is_refused_saying_when_and_a_rotation_swaps_tokens_at_once(t: &TestApp) {
    let created = t.app.create_learner("Ada").await.unwrap();
    let ada = created.learner.id;
    let tokens = t.app.learner_tokens(ada).await.unwrap();
    assert_eq!(tokens.len(), 1);
    assert_eq!((tokens[0].name.as_str(), tokens[0].revoked_at), ("default", None));

    let laptop = t.app.create_token(ada, "  laptop ").await.unwrap();
    assert_eq!(laptop.info.name, "laptop");
    assert!(laptop.token.starts_with("pw_"));
    assert_eq!(t.app.authenticate(&laptop.token).await.unwrap().id, ada);
    let blank = t.app.create_token(ada, " ").await.unwrap_err();
    assert_eq!((blank.kind, blank.details["field"].as_str()), (ErrorKind::Invalid, Some("name")));

    t.clock.advance(Duration::minutes(5));
    let revoked = t.app.revoke_token(ada, laptop.info.id).await.unwrap();
    assert_eq!(revoked.revoked_at, Some(t.clock_now()));
    let refused = t.app.authenticate(&laptop.token).await.unwrap_err();
    assert_eq!((refused.kind, refused.code), (ErrorKind::Unauthorized, ErrorCode::TokenRevoked));
    assert!(refused.message.contains("revoked at") && refused.message.contains("laptop"), "{}", refused.message);
    let unknown = t.app.authenticate("pw_nobody").await.unwrap_err();
    assert_eq!(
        (unknown.kind, unknown.code),
        (ErrorKind::Unauthorized, ErrorCode::Unauthorized),
        "unknown is not revoked"
    );
    // Revoking again keeps the first time; another learner's token is not found.
    t.clock.advance(Duration::minutes(1));
    assert_eq!(t.app.revoke_token(ada, laptop.info.id).await.unwrap().revoked_at, revoked.revoked_at);
    let theirs = t.app.revoke_token(t.learner, laptop.info.id).await.unwrap_err();
    assert_eq!(theirs.kind, ErrorKind::NotFound);

    let rotated = t.app.rotate_token(ada, tokens[0].id).await.unwrap();
    assert_eq!((rotated.issued.info.name.as_str(), rotated.revoked.id), ("default", tokens[0].id));
    assert!(t.app.authenticate(&created.token).await.is_err(), "the old token goes with the rotation");
    assert_eq!(t.app.authenticate(&rotated.issued.token).await.unwrap().id, ada);
    let again = t.app.rotate_token(ada, tokens[0].id).await.unwrap_err();
    assert_eq!((again.kind, again.code), (ErrorKind::Conflict, ErrorCode::TokenRevoked));
    let listed = t.app.learner_tokens(ada).await.unwrap();
    assert_eq!(listed.iter().filter(|t| t.revoked_at.is_none()).count(), 1);
    assert_eq!(listed.len(), 3);
    let nobody = t.app.learner_tokens(LearnerId(uuid::Uuid::now_v7())).await.unwrap_err();
    assert_eq!(nobody.kind, ErrorKind::NotFound);
}

async fn a_tokens_use_is_noted_once_a_minute_and_shows_in_the_learners_last_activity(t: &TestApp) {
    let created = t.app.create_learner("Ada").await.unwrap();
    let listed = t.app.list_learners(None, None).await.unwrap();
    let ada = listed.items.iter().find(|l| l.id == created.learner.id).expect("Ada is listed");
    assert_eq!((ada.last_active_at, ada.active_tokens), (None, 1), "never seen");

    let first_use = t.clock_now();
    t.app.authenticate(&created.token).await.unwrap();
    t.clock.advance(Duration::seconds(30));
    t.app.authenticate(&created.token).await.unwrap();
    let token = &t.app.learner_tokens(created.learner.id).await.unwrap()[0];
    assert_eq!(token.last_used_at, Some(first_use), "not noted again within the minute");
    t.clock.advance(Duration::seconds(31));
    t.app.authenticate(&created.token).await.unwrap();
    let token = &t.app.learner_tokens(created.learner.id).await.unwrap()[0];
    assert_eq!(token.last_used_at, Some(t.clock_now()), "noted again after a minute");

    // An answer later than any token use is the latest activity.
    t.clock.advance(Duration::hours(1));
    let map = t
        .app
        .curriculum_generate(
            created.learner.id,
            serde_json::from_value(json!({
        "topic": "Sets", "decomposition": chain(&["Sets", "Relations"]) }))
            .unwrap(),
        )
        .await
        .unwrap();
    let root = t.app.get_map(created.learner.id, map.mind_map_id).await.unwrap().nodes[0].id;
    t.app
        .record_response(
            created.learner.id,
            RecordResponse::new(root, map.mind_map_id, "q?", Some("a"), 4, Some(ResponseType::Teach)),
        )
        .await
        .unwrap();
    let listed = t.app.list_learners(None, Some(500)).await.unwrap();
    let ada = listed.items.iter().find(|l| l.id == created.learner.id).unwrap();
    assert_eq!(ada.last_active_at, Some(t.clock_now()));
    assert_eq!(listed.total, 2, "the test's learner and Ada");
    let bad = t.app.list_learners(Some(-1), None).await.unwrap_err();
    assert_eq!(bad.details["field"], "offset");
}

// ---------------------------------------------------------------------------------------
// A learner with something in every kind of record
// ---------------------------------------------------------------------------------------

const MATH: &str = "MATH-FOUNDATIONS";

fn survey() -> CreateSession {
    serde_json::from_value(json!({
        "session_type": "survey",
        "config": { "survey": {
            "survey_id": "check-in", "title": "Check-in",
            "questions": [
                {"question_id": "mood", "text": "How is it going?", "question_type": "multiple_choice", "options": ["Well", "Badly"]},
                {"question_id": "why", "text": "Why?", "question_type": "free_text"}
            ]
        }}
    }))
    .unwrap()
}

/// Build, through the application, a learner with maps, nodes, edges, answers and reviews
/// (with idempotency keys), a planned flow, FSRS preferences, sessions (one finished, one
/// waiting for an answer), a tutor thread with messages, turns, a graded drill and its
/// snapshot, a nightly snapshot, review jobs, a kept reply and calls to the model. Answers
/// which tables it filled.
async fn rich_learner(app: &App<AnyStore>, clock: &ManualClock) -> LearnerId {
    let learner = app.create_learner("Grace Hopper").await.unwrap().learner.id;
    app.create_token(learner, "assistant").await.unwrap();
    app.update_preferences(
        learner,
        UpdatePreferences {
            daily_review_cap: Some(Some(30)),
            srs_scheduler: Some(pathwise_domain::SrsScheduler::Fsrs),
        },
    )
    .await
    .unwrap();
    let plan = app
        .curriculum_generate(
            learner,
            serde_json::from_value(
                json!({ "topic": "Compilers", "decomposition": chain(&["Lexing", "Parsing", "Codegen"]) }),
            )
            .unwrap(),
        )
        .await
        .unwrap();
    let map = plan.mind_map_id;
    let nodes = app.get_map(learner, map).await.unwrap().nodes;
    for (i, (quality, kind)) in
        [(4, ResponseType::Teach), (5, ResponseType::Review), (2, ResponseType::Review)].iter().enumerate()
    {
        clock.advance(Duration::hours(1));
        let mut response =
            RecordResponse::new(nodes[0].id, map, "What does a lexer make?", Some("tokens"), *quality, Some(*kind));
        response.idempotency_key = Some(format!("answer-{i}"));
        app.record_response(learner, response).await.unwrap();
    }
    app.review_jobs().flush().await.unwrap();
    app.analytics().snapshot_map(learner, map).await.unwrap();

    let flow = app
        .flow_start(learner, serde_json::from_value(json!({ "topic": "Graphs", "caller_writes_steps": true })).unwrap())
        .await
        .unwrap();
    app.flow_advance(
        learner,
        flow.id,
        serde_json::from_value(json!({ "step": "plan", "decomposition": chain(&["Vertices", "Edges"]) })).unwrap(),
    )
    .await
    .unwrap();

    let finished = app.create_session(learner, survey()).await.unwrap().id;
    let waiting = app.create_session(learner, survey()).await.unwrap().id;
    for session in [finished, waiting] {
        let run = app.run_session(learner, session, None).await.unwrap();
        let call = run.session.pending.expect("a question")["tool_call_id"].as_str().unwrap().to_string();
        app.respond_session(
            learner,
            session,
            serde_json::from_value(json!({ "tool_call_id": call, "response": { "selected_index": 0 } })).unwrap(),
        )
        .await
        .unwrap();
    }
    let run = app.run_session(learner, finished, None).await.unwrap();
    let call = run.session.pending.expect("the second question")["tool_call_id"].as_str().unwrap().to_string();
    app.respond_session(
        learner,
        finished,
        serde_json::from_value(json!({ "tool_call_id": call, "response": { "text": "It is going well" } })).unwrap(),
    )
    .await
    .unwrap();
    assert_eq!(app.run_session(learner, finished, None).await.unwrap().session.status, SessionStatus::Completed);
    app.run_session(learner, waiting, None).await.unwrap();

    app.install_builtin_courses().await.unwrap();
    let thread = app.create_thread(learner, CreateThread { course_id: MATH.into(), title: None }).await.unwrap().id;
    let mut drill = None;
    for words in ["hello", "I want to practise adding numbers", "let me practise"] {
        let request = TurnRequest { message_text: Some(words.into()), ..TurnRequest::default() };
        let reply = app.tutor_turn(learner, thread, request).await.unwrap();
        if let Some(TutorCard::Drill { unit_id, prompt, question_latex, drill_id, options }) =
            reply.messages.last().and_then(|m| m.card.clone())
        {
            drill = Some((unit_id, DrillText { prompt, question_latex, drill_id, options }));
            break;
        }
    }
    let (unit_id, drill) = drill.expect("the tutor offered a drill");
    app.grade_drill(
        learner,
        thread,
        DrillGradeRequest { course_id: None, unit_id: Some(unit_id), drill, student_answer: "not an answer".into() },
    )
    .await
    .unwrap();

    app.keep_reply(learner, "retry-key", "fingerprint", 201, "{\"ok\":true}".to_string()).await.unwrap();
    app.store()
        .record_llm_calls(&[LlmCall {
            learner_id: learner,
            operation: "tutor_turn".into(),
            prompt_tokens: 900,
            completion_tokens: 120,
            at: clock.now(),
        }])
        .await
        .unwrap();
    learner
}

/// The tables a document has rows in.
fn filled(document: &LearnerDocument) -> Vec<&str> {
    document
        .tables
        .iter()
        .filter(|(_, rows)| rows.as_array().is_some_and(|r| !r.is_empty()))
        .map(|(t, _)| t.as_str())
        .collect()
}

/// A document as two exports of the same learner must agree: all but when it was made.
fn content(document: &LearnerDocument) -> Value {
    json!({ "format": document.format, "version": document.version, "learner": document.learner, "tables": document.tables })
}

/// Where two documents first differ (a path and both values), if they do.
fn first_difference(a: &Value, b: &Value) -> Option<String> {
    match (a, b) {
        (Value::Object(x), Value::Object(y)) => {
            let keys: std::collections::BTreeSet<&String> = x.keys().chain(y.keys()).collect();
            keys.into_iter().find_map(|k| {
                let (left, right) = (x.get(k).unwrap_or(&Value::Null), y.get(k).unwrap_or(&Value::Null));
                first_difference(left, right).map(|d| format!(".{k}{d}"))
            })
        }
        (Value::Array(x), Value::Array(y)) if x.len() == y.len() => {
            x.iter().zip(y).enumerate().find_map(|(i, (l, r))| first_difference(l, r).map(|d| format!("[{i}]{d}")))
        }
        _ if a == b => None,
        _ => Some(format!(": {a} != {b}")),
    }
}

async fn deleting_a_learner_ends_their_sessions_and_leaves_nothing_of_theirs(t: &TestApp) {
    let before = t.counts().await;
    let grace = rich_learner(&t.app, &t.clock).await;
    // A session another server is running: a stream here follows its log until it ends.
    let followed = t.app.create_session(grace, survey()).await.unwrap().id;
    let mut record = t.app.store().get_session(grace, followed).await.unwrap().unwrap();
    record.status = SessionStatus::Running;
    record.version += 1;
    record.lease_owner = Some("another server".into());
    record.lease_until = Some(t.clock_now() + Duration::hours(1));
    t.app.store().save_session(&record, &[], &[]).await.unwrap();
    let mut open: Vec<_> = t
        .app
        .list_sessions(grace, None, None)
        .await
        .unwrap()
        .items
        .into_iter()
        .filter(|s| !s.status.is_final())
        .map(|s| s.id)
        .collect();
    assert_eq!(open.len(), 2, "one session waits for an answer, one runs elsewhere");
    let stream = t.app.session_stream(grace, followed, None).await.unwrap();
    let following = tokio::spawn(async move {
        let mut stream = stream;
        let mut ends = Vec::new();
        while let Some(item) = stream.recv().await {
            if let pathwise_app::sessions::StreamItem::Event(event) = item {
                if event.kind.as_str() == "session_terminated" {
                    ends.push(event.payload["reason"].clone());
                }
            }
        }
        ends
    });
    tokio::time::sleep(std::time::Duration::from_millis(300)).await;

    let mut deleted = t.app.delete_learner(grace).await.unwrap();
    deleted.sessions_ended.sort();
    open.sort();
    assert_eq!((deleted.name.as_str(), deleted.sessions_ended), ("Grace Hopper", open));
    // The stream that followed her session saw it end by the operator's doing, and closed.
    let ends = tokio::time::timeout(std::time::Duration::from_secs(10), following)
        .await
        .expect("the stream of a deleted learner's session did not end")
        .unwrap();
    assert!(ends.is_empty() || ends == vec![json!("operator")], "{ends:?}");
    // Courses are shared: installing them is the one change left.
    let mut after = t.counts().await;
    let mut expected = before;
    for ((table, count), (_, was)) in after.iter_mut().zip(expected.iter_mut()) {
        if table == "courses" {
            *was = *count;
        }
    }
    assert_eq!(after, expected, "every row of Grace's went, and only hers");
    assert_eq!(t.app.delete_learner(grace).await.unwrap_err().kind, ErrorKind::NotFound);

    let local = t.app.local_learner(None).await.unwrap().learner.id;
    let refused = t.app.delete_learner(local).await.unwrap_err();
    assert_eq!((refused.kind, refused.code), (ErrorKind::Conflict, ErrorCode::LocalLearner));
}

async fn a_learner_exported_and_imported_into_a_fresh_store_exports_the_same(t: &TestApp) {
    let grace = rich_learner(&t.app, &t.clock).await;
    let exported = t.app.export_learner(grace).await.unwrap();
    let tables = filled(&exported);
    for table in [
        "api_tokens",
        "mind_maps",
        "mind_map_nodes",
        "mind_map_edges",
        "quiz_responses",
        "llm_calls",
        "teaching_flows",
        "jobs",
        "analytics_snapshots",
        "learner_preferences",
        "node_fsrs",
        "sessions",
        "session_events",
        "session_messages",
        "tutor_snapshots",
        "course_unit_nodes",
        "tutor_threads",
        "tutor_messages",
        "tutor_turns",
        "drill_offers",
        "idempotency_keys",
        "study_days",
    ] {
        assert!(tables.contains(&table), "the rich learner has nothing in {table}: {tables:?}");
    }
    // The document is plain JSON, read back as it was written.
    let text = serde_json::to_string(&exported).unwrap();
    let read: LearnerDocument = serde_json::from_str(&text).unwrap();
    assert_eq!(first_difference(&content(&read), &content(&exported)), None, "the document reads back as written");
    assert!(!text.contains("pw_"), "no token in the document, only hashes");

    // Into a fresh store of each kind, whichever this one is: from SQLite into PostgreSQL is
    // the move an operator makes when one machine is no longer enough.
    for backend in [Backend::Sqlite, Backend::Postgres] {
        let Some(fresh) = TestStore::on(backend).await else { continue };
        let TestStore { store, database: _database } = fresh;
        let other = App::with_clock(store, Arc::new(ManualClock::new(start_time() + Duration::days(3))));
        other.install_builtin_courses().await.unwrap();
        let imported = other.import_learner(&read).await.unwrap();
        assert_eq!((imported.id, imported.name.as_str()), (grace, "Grace Hopper"));
        let again = other.export_learner(grace).await.unwrap();
        assert_eq!(
            first_difference(&content(&again), &content(&exported)),
            None,
            "the round trip into {backend:?} lost or changed something"
        );
        // The learner goes on there: their maps (their own, their flow's, their course's) and
        // their tutor thread.
        assert_eq!(other.list_maps(grace, None, None, None).await.unwrap().total, 3);
        let threads = other.list_threads(grace, &Default::default()).await.unwrap();
        assert_eq!(threads.total, 1);
        assert_eq!(other.import_learner(&read).await.unwrap_err().code, ErrorCode::LearnerExists);
    }
}

async fn an_import_is_refused_whole_for_a_learner_here_a_missing_course_or_a_bad_row(t: &TestApp) {
    let grace = rich_learner(&t.app, &t.clock).await;
    let document = t.app.export_learner(grace).await.unwrap();
    let before = t.counts().await;
    let here = t.app.import_learner(&document).await.unwrap_err();
    assert_eq!((here.kind, here.code), (ErrorKind::Conflict, ErrorCode::LearnerExists));

    let Some(fresh) = TestStore::on(Backend::Sqlite).await else { unreachable!() };
    let TestStore { store, database: _database } = fresh;
    let other = App::new(store);
    let empty = other.store().table_counts().await.unwrap();
    let missing = other.import_learner(&document).await.unwrap_err();
    assert_eq!((missing.kind, missing.code), (ErrorKind::Conflict, ErrorCode::CourseMissing));
    assert_eq!(missing.details["courses"], json!([MATH]));

    let mut wrong = document.clone();
    wrong.version = 2;
    assert_eq!(other.import_learner(&wrong).await.unwrap_err().details["field"], "version");
    // Read from its text, a later version's document is refused for its version, not for a
    // field this version does not know; the text of this version's reads back the same.
    let mut later = serde_json::to_value(&document).unwrap();
    later["version"] = json!(2);
    later["signatures"] = json!([]);
    let error = LearnerDocument::from_json(&later.to_string()).unwrap_err();
    assert_eq!((error.kind, error.details["field"].as_str()), (ErrorKind::Invalid, Some("version")));
    assert!(error.message.contains("version 2 is not read by this server"), "{}", error.message);
    assert_eq!(LearnerDocument::from_json("[]").unwrap_err().code, ErrorCode::MalformedJson);
    assert_eq!(LearnerDocument::from_json(&serde_json::to_string(&document).unwrap()).unwrap(), document);
    let mut wrong = document.clone();
    wrong.format = "something else".into();
    assert_eq!(other.import_learner(&wrong).await.unwrap_err().details["field"], "format");
    let mut wrong = document.clone();
    wrong.tables["mind_maps"][0]["title"] = json!(42);
    let error = other.import_learner(&wrong).await.unwrap_err();
    assert_eq!((error.kind, error.details["field"].as_str()), (ErrorKind::Invalid, Some("tables.mind_maps[0].title")));
    // A word the server reads back as a status or a kind is one it knows, or the row would
    // be unreadable later (a job's kind, by the scheduler of every learner's jobs).
    let mut wrong = document.clone();
    wrong.tables["mind_maps"][0]["status"] = json!("paused");
    let error = other.import_learner(&wrong).await.unwrap_err();
    assert_eq!((error.kind, error.details["field"].as_str()), (ErrorKind::Invalid, Some("tables.mind_maps[0].status")));
    assert!(error.message.contains("'paused' is not one of: draft, active"), "{}", error.message);
    let mut wrong = document.clone();
    let first = wrong.tables["mind_maps"][0].clone();
    wrong.tables["mind_maps"].as_array_mut().unwrap().push(first);
    let error = other.import_learner(&wrong).await.unwrap_err();
    assert_eq!(error.kind, ErrorKind::Invalid, "a document repeating a row is at fault: {}", error.message);
    assert!(error.details["field"].as_str().is_some_and(|f| f.starts_with("tables.mind_maps[")), "{error:?}");
    let mut wrong = document.clone();
    wrong.tables["sessions"][0]["learner_id"] = json!(t.learner);
    let error = other.import_learner(&wrong).await.unwrap_err();
    assert_eq!(error.details["field"], "tables.sessions[0].learner_id", "{}", error.message);
    assert_eq!(other.store().table_counts().await.unwrap(), empty, "nothing was written by any refusal");
    assert_eq!(t.counts().await, before);
}
