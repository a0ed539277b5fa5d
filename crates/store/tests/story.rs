//! The store told as a learner's story, on SQLite and on PostgreSQL: every method of the
//! store's traits is called, and every answer is checked for the values it must hold.
//!
//! SQLite runs in a temporary directory. PostgreSQL runs whenever
//! `PATHWISE_TEST_DATABASE_URL` is set, each test in a schema of its own that is dropped when
//! the test ends, however it ends; with `PATHWISE_POSTGRES_REQUIRED=1` a missing database
//! fails the PostgreSQL tests instead of skipping them (`pathwise-test-support`).

use chrono::{DateTime, Duration, NaiveDate, Utc};
use pathwise_domain::evidence::Rating;
use pathwise_domain::flow::{Flow, FlowState};
use pathwise_domain::mastery::{Quality, RecentHistory};
use pathwise_domain::model::{Edge, MapChanges, MindMap, Node, QuizResponse, ResponseEvent};
use pathwise_domain::session::SessionEventKind;
use pathwise_domain::{
    DomainError, EdgeType, FlowId, FlowStatus, JobId, JobKind, JobOutcome, LearnerId, MapStatus, MasteryStatus,
    MindMapId, NodeId, ResponseId, ResponseType, SessionId, SessionStatus, SessionType, SrsScheduler, ThreadId,
    TokenId, TurnId,
};
use pathwise_store::prelude::*;
use pathwise_store::{
    AnyStore, CourseMap, CourseRecord, DrillOfferRecord, ExamEventRecord, ExamStatusRecord, FinishedJob, Job, JobNext,
    Learner, LlmCall, NewResponse, NewToken, NodeFsrs, OperationUsage, Preferences, ResponseContext, ResponseDecision,
    ResponseFilter, SessionEvent, SessionMessage, SessionRecord, Snapshot, SnapshotRecord, StepResponse, StoreError,
    StoredReply, ThreadRecord, TurnRecord, TutorMessageRecord, TutorStep,
};
use serde_json::json;
use std::collections::HashMap;
use std::sync::{Arc, Mutex};
use uuid::Uuid;

pathwise_test_support::conformance!(
    a_learner_is_found_by_each_of_their_tokens_and_by_id,
    a_map_is_stored_whole_and_read_back_in_learning_order_by_its_learner_only,
    a_map_changes_as_its_decision_says_and_a_refusal_writes_nothing,
    a_response_moves_its_node_and_responses_are_read_back_newest_first,
    reviews_come_due_soonest_first_and_only_on_active_maps,
    live_analytics_read_one_map_or_all_of_a_learners_maps,
    a_map_keeps_one_snapshot_a_day_and_the_first_and_latest_are_found,
    language_model_calls_are_summed_per_operation_since_a_time,
    a_flow_moves_on_only_from_the_version_it_read,
    a_due_job_is_claimed_by_one_worker_and_each_firing_recorded_once,
    recurring_jobs_keep_their_next_firing_until_their_schedule_changes,
    review_jobs_are_replaced_from_the_map_as_it_is,
    preferences_and_fsrs_memory_belong_to_their_learner,
    a_session_step_writes_its_state_log_and_conversation_together,
    a_tutor_thread_keeps_its_course_snapshot_messages_drills_and_turns,
    exam_answers_move_a_question_on_only_from_the_status_they_read,
    a_reply_is_kept_once_under_its_key_and_forgotten_once_old,
    a_tokens_use_is_noted_at_most_once_a_minute_and_a_revoked_token_stays_revoked,
    a_rotation_stores_the_new_token_and_revokes_the_old_together,
    learners_are_listed_with_their_latest_activity_of_each_kind,
);

// ---------------------------------------------------------------------------------------
// What the stories are made of
// ---------------------------------------------------------------------------------------

/// The story's clock: `minutes` after 09:00 UTC on 2 March 2026 (whole seconds, which both
/// databases keep exactly).
fn at(minutes: i64) -> DateTime<Utc> {
    DateTime::parse_from_rfc3339("2026-03-02T09:00:00Z").unwrap().with_timezone(&Utc) + Duration::minutes(minutes)
}

const DAY: i64 = 24 * 60;

fn day(n: i64) -> NaiveDate {
    at(n * DAY).date_naive()
}

fn id() -> Uuid {
    Uuid::now_v7()
}

/// A token of `learner`'s to store, with a hash of the test's choosing.
fn token(learner: LearnerId, name: &str, hash: &str, created_at: DateTime<Utc>) -> NewToken {
    NewToken { id: TokenId(id()), learner_id: learner, name: name.into(), token_hash: hash.into(), created_at }
}

/// The learner a token hash belongs to, without the token.
async fn owner(store: &AnyStore, hash: &str) -> Option<Learner> {
    store.token_by_hash(hash).await.unwrap().map(|(learner, _)| learner)
}

async fn new_learner(store: &AnyStore, name: &str) -> Learner {
    let learner = Learner { id: LearnerId(id()), name: name.into(), is_local: false, created_at: at(0) };
    store
        .create_learner(&learner, &token(learner.id, "default", &format!("hash-of-{name}"), at(0)))
        .await
        .expect("create learner");
    learner
}

/// An active map of `labels`, each the prerequisite of the next, in that learning order:
/// the map, its nodes and the changes that write them.
fn chain_map(learner: LearnerId, title: &str, labels: &[&str], now: DateTime<Utc>) -> (MindMap, Vec<Node>, MapChanges) {
    let map_id = MindMapId(id());
    let nodes: Vec<Node> = labels
        .iter()
        .enumerate()
        .map(|(i, label)| {
            let metadata = json!({ "tags": [title], "optional": i > 0 }).as_object().unwrap().clone();
            let mut node = Node::new(
                NodeId(id()),
                map_id,
                label.to_string(),
                Some(format!("What {label} is")),
                Some(10 + i as i32),
                metadata,
                now,
            );
            node.depth = i as i32;
            node.sequence = Some(i as i32 + 1);
            node
        })
        .collect();
    let edges = nodes
        .windows(2)
        .map(|pair| Edge {
            mind_map_id: map_id,
            parent_node_id: pair[0].id,
            child_node_id: pair[1].id,
            edge_type: EdgeType::Prerequisite,
            created_at: now,
        })
        .collect::<Vec<_>>();
    let map = MindMap {
        id: map_id,
        learner_id: learner,
        title: title.into(),
        root_node_id: nodes.first().map(|n| n.id),
        status: MapStatus::Active,
        metadata: json!({ "goal": format!("know {title}") }).as_object().unwrap().clone(),
        created_at: now,
        updated_at: now,
    };
    let changes = MapChanges { insert_nodes: nodes.clone(), insert_edges: edges, ..MapChanges::default() };
    (map, nodes, changes)
}

async fn stored_map(
    store: &AnyStore,
    learner: LearnerId,
    title: &str,
    labels: &[&str],
    now: DateTime<Utc>,
) -> (MindMap, Vec<Node>) {
    let (map, nodes, changes) = chain_map(learner, title, labels, now);
    store.insert_map(&map, &changes).await.expect("insert map");
    (map, nodes)
}

fn response_to(node: &Node, quality: u8, kind: ResponseType, now: DateTime<Utc>) -> QuizResponse {
    QuizResponse {
        id: ResponseId(id()),
        node_id: node.id,
        mind_map_id: node.mind_map_id,
        question_text: format!("What is {}?", node.label),
        user_answer: Some(format!("answer of quality {quality}")),
        quality,
        rating: Rating::stated(Quality::of(quality)),
        response_type: kind,
        session_id: None,
        responded_at: now,
    }
}

/// Every context the store handed the rules, in order.
#[derive(Clone, Default)]
struct Seen(Arc<Mutex<Vec<ResponseContext>>>);

impl Seen {
    fn all(&self) -> Vec<ResponseContext> {
        self.0.lock().unwrap().clone()
    }
}

/// The story's own rules, simple enough to check by hand: the node's score is the quality
/// out of five, it is due again a day after the response, and a 5 masters it. What the
/// store read for them is kept in `seen`.
fn rules(
    response: &QuizResponse,
    seen: &Seen,
) -> impl Fn(&ResponseContext) -> Result<ResponseDecision, DomainError> + Send + Sync + 'static {
    let (quality, kind, now, seen) = (response.quality, response.response_type, response.responded_at, seen.clone());
    move |context: &ResponseContext| {
        seen.0.lock().unwrap().push(context.clone());
        let mut node = context.node.clone();
        node.mastery_score = f64::from(quality) / 5.0;
        node.mastery_status = if quality == 5 { MasteryStatus::Mastered } else { MasteryStatus::Learning };
        node.repetitions += 1;
        node.interval_days = 1.0;
        node.next_review_at = Some(now + Duration::days(1));
        node.last_reviewed_at = Some(now);
        node.updated_at = now;
        Ok(ResponseDecision {
            became_mastered: quality == 5 && context.node.mastery_status != MasteryStatus::Mastered,
            history: context.history.after(quality, kind),
            node,
        })
    }
}

/// Record `response` under the story's rules: the response as stored and its node after.
async fn answer(store: &AnyStore, learner: LearnerId, response: &QuizResponse) -> (QuizResponse, Node) {
    let new = NewResponse { response: response.clone(), idempotency_key: None };
    store.record_response(learner, new, rules(response, &Seen::default())).await.expect("record response")
}

fn counts(list: Vec<(String, i64)>) -> HashMap<String, i64> {
    list.into_iter().collect()
}

fn refused_as_conflict<T: std::fmt::Debug>(result: Result<T, StoreError>) {
    assert!(
        matches!(result, Err(StoreError::Rejected(DomainError::Conflict { .. }))),
        "expected a conflict, got {result:?}"
    );
}

// ---------------------------------------------------------------------------------------
// Learners
// ---------------------------------------------------------------------------------------

async fn a_learner_is_found_by_each_of_their_tokens_and_by_id(store: &AnyStore) {
    let engine = match store {
        AnyStore::Sqlite(_) => "sqlite",
        AnyStore::Postgres(_) => "postgres",
    };
    assert_eq!(store.engine(), engine);
    assert_eq!(store.local_learner().await.unwrap(), None, "no local learner before one is made");
    assert!(store.all_learners().await.unwrap().is_empty());

    let ada = Learner { id: LearnerId(id()), name: "Ada".into(), is_local: false, created_at: at(0) };
    let first = token(ada.id, "default", "hash-ada-1", at(0));
    store.create_learner(&ada, &first).await.unwrap();
    let second = token(ada.id, "laptop", "hash-ada-2", at(1));
    store.add_token(&second).await.unwrap();
    assert_eq!(store.token_by_hash("hash-ada-1").await.unwrap(), Some((ada.clone(), first.record())));
    assert_eq!(owner(store, "hash-ada-2").await, Some(ada.clone()));
    assert_eq!(store.token_by_hash("hash-of-nobody").await.unwrap(), None);
    assert_eq!(store.learner_tokens(ada.id).await.unwrap(), vec![first.record(), second.record()], "oldest first");

    let local = Learner { id: LearnerId(id()), name: "me".into(), is_local: true, created_at: at(2) };
    store.create_learner(&local, &token(local.id, "default", "hash-local", at(2))).await.unwrap();
    assert_eq!(store.local_learner().await.unwrap(), Some(local.clone()));
    assert_eq!(store.learner(ada.id).await.unwrap(), Some(ada.clone()));
    assert_eq!(store.learner(LearnerId(id())).await.unwrap(), None);
    assert_eq!(store.all_learners().await.unwrap(), vec![ada.clone(), local.clone()], "oldest first");

    // A token's hash names one learner only; the refused token is not kept.
    assert!(store.add_token(&token(local.id, "stolen", "hash-ada-1", at(3))).await.is_err());
    assert_eq!(owner(store, "hash-ada-1").await, Some(ada));
    let counts = counts(store.table_counts().await.unwrap());
    assert_eq!((counts["learners"], counts["api_tokens"]), (2, 3));
}

// ---------------------------------------------------------------------------------------
// Maps
// ---------------------------------------------------------------------------------------

async fn a_map_is_stored_whole_and_read_back_in_learning_order_by_its_learner_only(store: &AnyStore) {
    let ada = new_learner(store, "ada").await;
    let bob = new_learner(store, "bob").await;
    let (rust, nodes, changes) = chain_map(ada.id, "Rust", &["Ownership", "Borrowing", "Lifetimes"], at(0));
    store.insert_map(&rust, &changes).await.unwrap();

    assert_eq!(store.get_map(ada.id, rust.id).await.unwrap(), Some(rust.clone()));
    let whole = store.load_map(ada.id, rust.id).await.unwrap().expect("the map");
    assert_eq!(whole.map, rust);
    assert_eq!(whole.nodes, nodes, "every node as written, in learning order");
    assert_eq!(whole.edges, changes.insert_edges);
    assert_eq!(store.get_node(ada.id, nodes[1].id).await.unwrap(), Some(nodes[1].clone()));
    let frontier = store.frontier(ada.id, rust.id).await.unwrap();
    assert_eq!(frontier, vec![nodes[0].clone()], "only the root has every prerequisite mastered");

    // Another learner finds none of it.
    assert_eq!(store.get_map(bob.id, rust.id).await.unwrap(), None);
    assert_eq!(store.load_map(bob.id, rust.id).await.unwrap(), None);
    assert_eq!(store.get_node(bob.id, nodes[0].id).await.unwrap(), None);
    assert!(store.frontier(bob.id, rust.id).await.unwrap().is_empty());
    assert!(!store.delete_map(bob.id, rust.id).await.unwrap());

    let (mut draft, _, draft_changes) = chain_map(ada.id, "Go", &["Goroutines"], at(10));
    draft.status = MapStatus::Draft;
    store.insert_map(&draft, &draft_changes).await.unwrap();
    let all = store.list_maps(ada.id, None, 0, 10).await.unwrap();
    assert_eq!((all.items, all.total), (vec![draft.clone(), rust.clone()], 2), "newest first");
    let active = store.list_maps(ada.id, Some(MapStatus::Active), 0, 10).await.unwrap();
    assert_eq!((active.items, active.total), (vec![rust.clone()], 1));
    let second = store.list_maps(ada.id, None, 1, 1).await.unwrap();
    assert_eq!((second.items, second.total), (vec![rust.clone()], 2));
    assert_eq!(store.list_maps(bob.id, None, 0, 10).await.unwrap().total, 0);
    assert_eq!(store.maps_with_status(MapStatus::Active).await.unwrap(), vec![rust.clone()]);
    assert_eq!(store.maps_with_status(MapStatus::Draft).await.unwrap(), vec![draft.clone()]);

    assert!(store.delete_map(ada.id, draft.id).await.unwrap());
    assert!(!store.delete_map(ada.id, draft.id).await.unwrap(), "deleted once");
    let counts = counts(store.table_counts().await.unwrap());
    assert_eq!((counts["mind_maps"], counts["mind_map_nodes"], counts["mind_map_edges"]), (1, 3, 2));
}

async fn a_map_changes_as_its_decision_says_and_a_refusal_writes_nothing(store: &AnyStore) {
    let ada = new_learner(store, "ada").await;
    let (rust, nodes) = stored_map(store, ada.id, "Rust", &["Ownership", "Borrowing"], at(0)).await;
    let before = store.table_counts().await.unwrap();

    let refused = store
        .update_map(ada.id, rust.id, |_| Err::<(MapChanges, ()), _>(DomainError::Conflict { message: "no".into() }))
        .await;
    refused_as_conflict(refused);
    assert_eq!(store.table_counts().await.unwrap(), before, "a refused decision writes nothing");
    assert!(matches!(
        store.update_map(ada.id, MindMapId(id()), |_| Ok((MapChanges::default(), ()))).await,
        Err(StoreError::NotFound("mind map"))
    ));

    // Rename the map and a node, add a node after it, and drop the map's edge for one
    // from the root to the new node.
    let lifetimes_id = NodeId(id());
    let (renamed, grown) = store
        .update_map(ada.id, rust.id, move |whole| {
            let mut after = whole.clone();
            after.map.title = "Rust, the book".into();
            after.map.updated_at = at(5);
            after.nodes[1].label = "References".into();
            after.nodes[1].updated_at = at(5);
            let mut lifetimes =
                Node::new(lifetimes_id, whole.map.id, "Lifetimes".into(), None, None, Default::default(), at(5));
            lifetimes.depth = 1;
            lifetimes.sequence = Some(3);
            after.nodes.push(lifetimes);
            after.edges = vec![Edge {
                mind_map_id: whole.map.id,
                parent_node_id: whole.nodes[0].id,
                child_node_id: lifetimes_id,
                edge_type: EdgeType::Related,
                created_at: at(5),
            }];
            Ok((MapChanges::between(whole, &after), (after.map.title.clone(), after.nodes.len())))
        })
        .await
        .unwrap();
    assert_eq!((renamed.as_str(), grown), ("Rust, the book", 3));
    let whole = store.load_map(ada.id, rust.id).await.unwrap().unwrap();
    assert_eq!((whole.map.title.as_str(), whole.map.updated_at), ("Rust, the book", at(5)));
    let labels: Vec<&str> = whole.nodes.iter().map(|n| n.label.as_str()).collect();
    assert_eq!(labels, ["Ownership", "References", "Lifetimes"]);
    assert_eq!(whole.nodes[1].updated_at, at(5));
    assert_eq!(whole.nodes[2].description, None);
    assert_eq!(
        whole.edges.iter().map(|e| (e.parent_node_id, e.child_node_id, e.edge_type)).collect::<Vec<_>>(),
        vec![(nodes[0].id, lifetimes_id, EdgeType::Related)]
    );

    // A map for a topic replaces the map its placement names, in the same transaction.
    let (again, _, again_changes) = chain_map(ada.id, "Rust again", &["Traits"], at(20));
    let replaced = store
        .insert_topic_map(&again, &again_changes, |maps| {
            assert_eq!(maps.len(), 1, "placement sees the learner's maps");
            Ok(maps.iter().find(|m| m.title == "Rust, the book").map(|m| m.id))
        })
        .await
        .unwrap();
    assert_eq!(replaced, Some(rust.id));
    assert_eq!(store.get_map(ada.id, rust.id).await.unwrap(), None);
    assert_eq!(store.get_map(ada.id, again.id).await.unwrap(), Some(again.clone()));

    // A placement that refuses writes nothing.
    let (third, _, third_changes) = chain_map(ada.id, "Rust thrice", &["Macros"], at(30));
    let before = store.table_counts().await.unwrap();
    let refused = store
        .insert_topic_map(&third, &third_changes, |_| Err(DomainError::Conflict { message: "exists".into() }))
        .await;
    refused_as_conflict(refused);
    assert_eq!(store.table_counts().await.unwrap(), before);
    assert_eq!(store.get_map(ada.id, third.id).await.unwrap(), None);
}

// ---------------------------------------------------------------------------------------
// Responses
// ---------------------------------------------------------------------------------------

async fn a_response_moves_its_node_and_responses_are_read_back_newest_first(store: &AnyStore) {
    let ada = new_learner(store, "ada").await;
    let bob = new_learner(store, "bob").await;
    let (rust, nodes) = stored_map(store, ada.id, "Rust", &["Ownership", "Borrowing"], at(0)).await;
    let (ownership, borrowing) = (&nodes[0], &nodes[1]);
    let seen = Seen::default();

    let mut first = response_to(ownership, 3, ResponseType::Teach, at(10));
    first.session_id = Some(id());
    let new = NewResponse { response: first.clone(), idempotency_key: Some("key-1".into()) };
    let (stored, after_first) = store.record_response(ada.id, new, rules(&first, &seen)).await.unwrap();
    assert_eq!(stored, first);
    assert_eq!(after_first.mastery_status, MasteryStatus::Learning);
    assert_eq!(after_first.mastery_score, 0.6);
    assert_eq!(after_first.next_review_at, Some(at(10 + DAY)));
    assert_eq!(store.get_node(ada.id, ownership.id).await.unwrap(), Some(after_first.clone()));

    let second = response_to(ownership, 4, ResponseType::Review, at(20));
    let new = NewResponse { response: second.clone(), idempotency_key: None };
    let (_, after_second) = store.record_response(ada.id, new, rules(&second, &seen)).await.unwrap();
    let third = response_to(borrowing, 2, ResponseType::Review, at(30));
    let new = NewResponse { response: third.clone(), idempotency_key: Some("key-3".into()) };
    store.record_response(ada.id, new, rules(&third, &seen)).await.unwrap();

    // The rules saw the node as stored, its map's status and its history so far.
    let contexts = seen.all();
    assert_eq!(contexts.len(), 3);
    assert!(contexts.iter().all(|c| c.map_status == MapStatus::Active));
    assert_eq!((&contexts[0].node, &contexts[0].history), (ownership, &RecentHistory::default()));
    assert_eq!(contexts[1].node, after_first);
    assert_eq!(contexts[1].history, RecentHistory { qualities: vec![3], review_qualities: vec![] });
    assert_eq!((&contexts[2].node, &contexts[2].history), (borrowing, &RecentHistory::default()));
    assert_eq!(store.get_node(ada.id, ownership.id).await.unwrap(), Some(after_second));

    // History, newest first.
    let history = store.node_history(ada.id, ownership.id, None).await.unwrap();
    assert_eq!(history, Some(vec![second.clone(), first.clone()]));
    assert_eq!(store.node_history(ada.id, ownership.id, Some(1)).await.unwrap(), Some(vec![second.clone()]));
    assert_eq!(store.node_history(ada.id, borrowing.id, None).await.unwrap(), Some(vec![third.clone()]));
    assert_eq!(store.node_history(bob.id, ownership.id, None).await.unwrap(), None, "not bob's node");

    let all = store.list_responses(ada.id, &ResponseFilter::default(), 0, 10).await.unwrap();
    assert_eq!((all.items, all.total), (vec![third.clone(), second.clone(), first.clone()], 3));
    let of_node = ResponseFilter { node_id: Some(ownership.id), ..ResponseFilter::default() };
    let page = store.list_responses(ada.id, &of_node, 0, 10).await.unwrap();
    assert_eq!((page.items, page.total), (vec![second.clone(), first.clone()], 2));
    let reviews = ResponseFilter { response_type: Some(ResponseType::Review), ..ResponseFilter::default() };
    let page = store.list_responses(ada.id, &reviews, 0, 10).await.unwrap();
    assert_eq!((page.items, page.total), (vec![third.clone(), second.clone()], 2));
    let of_map = ResponseFilter { mind_map_id: Some(rust.id), ..ResponseFilter::default() };
    let page = store.list_responses(ada.id, &of_map, 1, 1).await.unwrap();
    assert_eq!((page.items, page.total), (vec![second.clone()], 3));
    assert_eq!(store.list_responses(bob.id, &ResponseFilter::default(), 0, 10).await.unwrap().total, 0);

    let recent = store.recent_qualities(ada.id, rust.id, 7).await.unwrap();
    assert_eq!(recent, HashMap::from([(ownership.id, vec![4, 3]), (borrowing.id, vec![2])]));
    let latest = store.recent_qualities(ada.id, rust.id, 1).await.unwrap();
    assert_eq!(latest, HashMap::from([(ownership.id, vec![4]), (borrowing.id, vec![2])]));
    assert!(store.recent_qualities(bob.id, rust.id, 7).await.unwrap().is_empty());

    assert_eq!(store.count_responses_since(ada.id, ResponseType::Review, at(0)).await.unwrap(), 2);
    assert_eq!(store.count_responses_since(ada.id, ResponseType::Review, at(25)).await.unwrap(), 1);
    assert_eq!(store.count_responses_since(ada.id, ResponseType::Teach, at(0)).await.unwrap(), 1);

    // A response is found again by its key, the learner's own.
    assert_eq!(store.response_by_key(ada.id, "key-1").await.unwrap(), Some(first.clone()));
    assert_eq!(store.response_by_key(ada.id, "key-3").await.unwrap(), Some(third.clone()));
    assert_eq!(store.response_by_key(bob.id, "key-1").await.unwrap(), None);
    assert_eq!(store.response_by_key(ada.id, "key-2").await.unwrap(), None);

    // Refusals write nothing: a key used before, the rules' refusal, a node of another map,
    // a node that is not the learner's.
    let before = store.table_counts().await.unwrap();
    let again = response_to(borrowing, 5, ResponseType::Review, at(40));
    let new = NewResponse { response: again.clone(), idempotency_key: Some("key-1".into()) };
    let duplicate = store.record_response(ada.id, new, rules(&again, &seen)).await;
    assert!(matches!(duplicate, Err(StoreError::Duplicate(_))), "{duplicate:?}");
    let new = NewResponse { response: again.clone(), idempotency_key: None };
    let refused = store
        .record_response(ada.id, new, |_: &ResponseContext| Err(DomainError::Conflict { message: "no".into() }))
        .await;
    refused_as_conflict(refused);
    let (other_map, _) = stored_map(store, ada.id, "Go", &["Channels"], at(0)).await;
    let before_other = store.table_counts().await.unwrap();
    let mut astray = again.clone();
    astray.mind_map_id = other_map.id;
    let new = NewResponse { response: astray.clone(), idempotency_key: None };
    let crossed = store.record_response(ada.id, new, rules(&astray, &seen)).await;
    assert!(matches!(crossed, Err(StoreError::Rejected(DomainError::CrossMap { .. }))), "{crossed:?}");
    let new = NewResponse { response: again.clone(), idempotency_key: None };
    let not_bobs = store.record_response(bob.id, new, rules(&again, &seen)).await;
    assert!(matches!(not_bobs, Err(StoreError::NotFound("node"))), "{not_bobs:?}");
    assert_eq!(store.table_counts().await.unwrap(), before_other);
    let mut before = counts(before);
    *before.get_mut("mind_maps").unwrap() += 1;
    *before.get_mut("mind_map_nodes").unwrap() += 1;
    assert_eq!(counts(store.table_counts().await.unwrap()), before);

    // Mastering the map's last unmastered node completes it.
    let mastered = response_to(ownership, 5, ResponseType::Review, at(50));
    let (_, node) = answer(store, ada.id, &mastered).await;
    assert_eq!(node.mastery_status, MasteryStatus::Mastered);
    assert_eq!(store.get_map(ada.id, rust.id).await.unwrap().unwrap().status, MapStatus::Active);
    let last = response_to(borrowing, 5, ResponseType::Review, at(60));
    answer(store, ada.id, &last).await;
    let completed = store.get_map(ada.id, rust.id).await.unwrap().unwrap();
    assert_eq!((completed.status, completed.updated_at), (MapStatus::Completed, at(60)));
}

async fn reviews_come_due_soonest_first_and_only_on_active_maps(store: &AnyStore) {
    let ada = new_learner(store, "ada").await;
    let bob = new_learner(store, "bob").await;
    let (rust, rust_nodes) = stored_map(store, ada.id, "Rust", &["Ownership", "Borrowing"], at(0)).await;
    let (go, go_nodes) = stored_map(store, ada.id, "Go", &["Channels"], at(0)).await;
    assert!(store.pending_reviews(ada.id, None, at(100 * DAY)).await.unwrap().is_empty(), "nothing reviewed yet");

    let (_, ownership) = answer(store, ada.id, &response_to(&rust_nodes[0], 3, ResponseType::Teach, at(0))).await;
    let (_, channels) = answer(store, ada.id, &response_to(&go_nodes[0], 4, ResponseType::Teach, at(10))).await;
    let (_, borrowing) = answer(store, ada.id, &response_to(&rust_nodes[1], 2, ResponseType::Teach, at(20))).await;

    let due = store.pending_reviews(ada.id, None, at(DAY + 15)).await.unwrap();
    assert_eq!(due, vec![ownership.clone(), channels.clone()], "due by then, soonest first");
    let due = store.pending_reviews(ada.id, None, at(2 * DAY)).await.unwrap();
    assert_eq!(due, vec![ownership.clone(), channels.clone(), borrowing.clone()]);
    let due = store.pending_reviews(ada.id, Some(rust.id), at(2 * DAY)).await.unwrap();
    assert_eq!(due, vec![ownership.clone(), borrowing.clone()], "one map's");
    assert!(store.pending_reviews(ada.id, Some(go.id), at(DAY)).await.unwrap().is_empty(), "not yet due");
    assert!(store.pending_reviews(bob.id, None, at(2 * DAY)).await.unwrap().is_empty());

    // Mastering Go's only node completes its map, whose reviews are no longer pending.
    answer(store, ada.id, &response_to(&go_nodes[0], 5, ResponseType::Review, at(30))).await;
    let due = store.pending_reviews(ada.id, None, at(2 * DAY)).await.unwrap();
    assert_eq!(due, vec![ownership, borrowing]);
}

// ---------------------------------------------------------------------------------------
// Live analytics, snapshots, usage
// ---------------------------------------------------------------------------------------

async fn live_analytics_read_one_map_or_all_of_a_learners_maps(store: &AnyStore) {
    let ada = new_learner(store, "ada").await;
    let bob = new_learner(store, "bob").await;
    let (rust, rust_nodes) = stored_map(store, ada.id, "Rust", &["Ownership", "Borrowing"], at(0)).await;
    let (go, go_nodes) = stored_map(store, ada.id, "Go", &["Channels", "Select"], at(0)).await;
    let (a, b, c) = (&rust_nodes[0], &rust_nodes[1], &go_nodes[0]);
    let session = id();
    let mut taught = response_to(a, 3, ResponseType::Teach, at(0));
    taught.session_id = Some(session);
    let answers = [
        taught,
        response_to(a, 4, ResponseType::Review, at(DAY)),
        response_to(b, 2, ResponseType::Review, at(DAY + 60)),
        response_to(c, 1, ResponseType::Review, at(3 * DAY)),
    ];
    let mut after = HashMap::new();
    for response in &answers {
        let (_, node) = answer(store, ada.id, response).await;
        after.insert(node.id, node);
    }

    // Nodes: map by map (in id order), each map's in learning order, with their totals.
    let (first_map, second_map) = if rust.id < go.id { (rust.id, go.id) } else { (go.id, rust.id) };
    let activity = store.node_activity(ada.id, None).await.unwrap();
    let maps: Vec<MindMapId> = activity.iter().map(|n| n.node.mind_map_id).collect();
    assert_eq!(maps, [first_map, first_map, second_map, second_map]);
    let rust_activity = store.node_activity(ada.id, Some(rust.id)).await.unwrap();
    let read: Vec<_> = rust_activity
        .iter()
        .map(|n| (n.node.clone(), n.recent_qualities.clone(), n.responses, n.quality_sum))
        .collect();
    assert_eq!(
        read,
        vec![
            (pathwise_domain::model::NodeProgress::from(&after[&a.id]), vec![4, 3], 2, 7),
            (pathwise_domain::model::NodeProgress::from(&after[&b.id]), vec![2], 1, 2),
        ]
    );
    let go_activity = store.node_activity(ada.id, Some(go.id)).await.unwrap();
    assert_eq!(
        go_activity.iter().map(|n| (n.node.id, n.responses)).collect::<Vec<_>>(),
        vec![(c.id, 1), (go_nodes[1].id, 0)]
    );
    assert_eq!(go_activity[1].recent_qualities, Vec::<u8>::new());
    assert!(store.node_activity(bob.id, None).await.unwrap().is_empty());

    // Edges.
    let edges = store.map_edges(ada.id, None).await.unwrap();
    let ends: Vec<_> = edges.iter().map(|e| (e.mind_map_id, e.parent_node_id, e.child_node_id)).collect();
    let mut expected = vec![(rust.id, a.id, b.id), (go.id, c.id, go_nodes[1].id)];
    expected.sort();
    assert_eq!(ends, expected);
    let rust_edges = store.map_edges(ada.id, Some(rust.id)).await.unwrap();
    assert_eq!(rust_edges.len(), 1);
    assert_eq!((rust_edges[0].edge_type, rust_edges[0].created_at), (EdgeType::Prerequisite, at(0)));
    assert!(store.map_edges(bob.id, Some(rust.id)).await.unwrap().is_empty());

    // Responses answered after one time and no later than another.
    let event = |r: &QuizResponse| ResponseEvent {
        node_id: r.node_id,
        mind_map_id: r.mind_map_id,
        quality: r.quality,
        rating: r.rating,
        response_type: r.response_type,
        session_id: r.session_id,
        responded_at: r.responded_at,
    };
    let sorted = |mut events: Vec<ResponseEvent>| {
        events.sort_by_key(|e| e.responded_at);
        events
    };
    let events = sorted(store.response_events(ada.id, None, at(-1), at(3 * DAY)).await.unwrap());
    assert_eq!(events, answers.iter().map(event).collect::<Vec<_>>());
    let events = sorted(store.response_events(ada.id, None, at(0), at(DAY + 60)).await.unwrap());
    assert_eq!(events, vec![event(&answers[1]), event(&answers[2])], "after is left out, until is in");
    let events = store.response_events(ada.id, Some(go.id), at(-1), at(10 * DAY)).await.unwrap();
    assert_eq!(events, vec![event(&answers[3])]);
    assert!(store.response_events(bob.id, None, at(-1), at(10 * DAY)).await.unwrap().is_empty());

    // Reviews counted by map, with those of quality 3 or more.
    let mut tallies = store.review_tallies(ada.id, None, at(-1), at(10 * DAY), 3).await.unwrap();
    tallies.sort();
    let mut expected = vec![(rust.id, 2, 1), (go.id, 1, 0)];
    expected.sort();
    assert_eq!(tallies, expected);
    assert_eq!(store.review_tallies(ada.id, Some(go.id), at(-1), at(10 * DAY), 1).await.unwrap(), vec![(go.id, 1, 1)]);
    assert_eq!(
        store.review_tallies(ada.id, Some(rust.id), at(DAY), at(10 * DAY), 3).await.unwrap(),
        vec![(rust.id, 1, 0)]
    );
    assert!(store.review_tallies(bob.id, None, at(-1), at(10 * DAY), 3).await.unwrap().is_empty());

    // The days studied, newest first.
    assert_eq!(store.study_days(ada.id, day(3), 10).await.unwrap(), vec![day(3), day(1), day(0)]);
    assert_eq!(store.study_days(ada.id, day(3), 2).await.unwrap(), vec![day(3), day(1)]);
    assert_eq!(store.study_days(ada.id, day(2), 10).await.unwrap(), vec![day(1), day(0)]);
    assert!(store.study_days(bob.id, day(3), 10).await.unwrap().is_empty());
}

async fn a_map_keeps_one_snapshot_a_day_and_the_first_and_latest_are_found(store: &AnyStore) {
    let ada = new_learner(store, "ada").await;
    let bob = new_learner(store, "bob").await;
    let (rust, _) = stored_map(store, ada.id, "Rust", &["Ownership"], at(0)).await;
    let (go, _) = stored_map(store, ada.id, "Go", &["Channels"], at(0)).await;
    let snapshot = |map: &MindMap, d: i64, mastered: i64| Snapshot {
        mind_map_id: map.id,
        learner_id: ada.id,
        snapshot_date: day(d),
        metrics: json!({ "mastered": mastered }),
        created_at: at(d * DAY + 3),
    };
    for s in [snapshot(&rust, 1, 1), snapshot(&rust, 2, 2), snapshot(&rust, 2, 3), snapshot(&go, 1, 7)] {
        store.upsert_snapshot(&s).await.unwrap();
    }

    assert_eq!(
        store.snapshots(ada.id, rust.id, day(1)).await.unwrap(),
        vec![snapshot(&rust, 1, 1), snapshot(&rust, 2, 3)],
        "oldest first, the day's latest kept"
    );
    assert_eq!(store.snapshots(ada.id, rust.id, day(2)).await.unwrap(), vec![snapshot(&rust, 2, 3)]);
    assert!(store.snapshots(bob.id, rust.id, day(0)).await.unwrap().is_empty());

    let by_map = |mut list: Vec<Snapshot>| {
        list.sort_by_key(|s| s.mind_map_id);
        list
    };
    assert_eq!(store.latest_snapshots(ada.id).await.unwrap(), by_map(vec![snapshot(&rust, 2, 3), snapshot(&go, 1, 7)]));
    assert!(store.latest_snapshots(bob.id).await.unwrap().is_empty());

    assert_eq!(
        store.first_snapshots(ada.id, None, day(1), day(3)).await.unwrap(),
        by_map(vec![snapshot(&rust, 1, 1), snapshot(&go, 1, 7)])
    );
    assert_eq!(store.first_snapshots(ada.id, None, day(2), day(3)).await.unwrap(), vec![snapshot(&rust, 2, 3)]);
    assert_eq!(store.first_snapshots(ada.id, Some(go.id), day(0), day(3)).await.unwrap(), vec![snapshot(&go, 1, 7)]);
    assert!(store.first_snapshots(ada.id, None, day(0), day(1)).await.unwrap().is_empty(), "before is left out");
    assert!(store.first_snapshots(bob.id, None, day(0), day(3)).await.unwrap().is_empty());
}

async fn language_model_calls_are_summed_per_operation_since_a_time(store: &AnyStore) {
    let ada = new_learner(store, "ada").await;
    let bob = new_learner(store, "bob").await;
    let call = |learner: &Learner, operation: &str, prompt, completion, minutes| LlmCall {
        learner_id: learner.id,
        operation: operation.into(),
        prompt_tokens: prompt,
        completion_tokens: completion,
        at: at(minutes),
    };
    store
        .record_llm_calls(&[
            call(&ada, "curriculum_generate", 100, 50, 0),
            call(&ada, "diagnostic_grade", 10, 5, 10),
            call(&ada, "curriculum_generate", 200, 70, 20),
            call(&bob, "curriculum_generate", 1, 1, 0),
        ])
        .await
        .unwrap();
    let usage = |operation: &str, calls, prompt_tokens, completion_tokens| OperationUsage {
        operation: operation.into(),
        calls,
        prompt_tokens,
        completion_tokens,
    };
    assert_eq!(
        store.llm_usage(ada.id, None).await.unwrap(),
        vec![usage("curriculum_generate", 2, 300, 120), usage("diagnostic_grade", 1, 10, 5)]
    );
    assert_eq!(
        store.llm_usage(ada.id, Some(at(10))).await.unwrap(),
        vec![usage("curriculum_generate", 1, 200, 70), usage("diagnostic_grade", 1, 10, 5)]
    );
    assert!(store.llm_usage(ada.id, Some(at(30))).await.unwrap().is_empty());
    assert_eq!(store.llm_usage(bob.id, None).await.unwrap(), vec![usage("curriculum_generate", 1, 1, 1)]);

    // Every table is counted, once.
    let list = store.table_counts().await.unwrap();
    let counted = counts(list.clone());
    assert_eq!(counted.len(), list.len(), "each table once");
    for table in ["learners", "api_tokens", "mind_maps", "quiz_responses", "jobs", "sessions", "study_days"] {
        assert!(counted.contains_key(table), "{table} is counted");
    }
    assert_eq!((counted["learners"], counted["api_tokens"], counted["llm_calls"]), (2, 2, 4));
    assert_eq!(counted["quiz_responses"], 0);
}

// ---------------------------------------------------------------------------------------
// The learning loop: flows, jobs, preferences
// ---------------------------------------------------------------------------------------

fn flow(learner: LearnerId, topic: &str, status: FlowStatus, started: DateTime<Utc>) -> Flow {
    Flow {
        id: FlowId(id()),
        learner_id: learner,
        topic: topic.into(),
        goal: Some(format!("use {topic} at work")),
        mind_map_id: None,
        status,
        version: 1,
        session_count: 1,
        state: FlowState::default(),
        started_at: started,
        last_session_at: started,
    }
}

async fn a_flow_moves_on_only_from_the_version_it_read(store: &AnyStore) {
    let ada = new_learner(store, "ada").await;
    let bob = new_learner(store, "bob").await;
    let rust = flow(ada.id, "Rust", FlowStatus::Pending, at(0));
    let go = flow(ada.id, "Go", FlowStatus::Completed, at(10));
    store.insert_flow(&rust).await.unwrap();
    store.insert_flow(&go).await.unwrap();
    assert_eq!(store.get_flow(ada.id, rust.id).await.unwrap(), Some(rust.clone()));
    assert_eq!(store.get_flow(bob.id, rust.id).await.unwrap(), None);
    let all = store.list_flows(ada.id, None, 0, 10).await.unwrap();
    assert_eq!((all.items, all.total), (vec![go.clone(), rust.clone()], 2), "newest first");
    let pending = store.list_flows(ada.id, Some(FlowStatus::Pending), 0, 10).await.unwrap();
    assert_eq!((pending.items, pending.total), (vec![rust.clone()], 1));
    let second = store.list_flows(ada.id, None, 1, 5).await.unwrap();
    assert_eq!((second.items, second.total), (vec![rust.clone()], 2));
    assert!(store.owns_session(ada.id, rust.id.0).await.unwrap(), "a flow is a session a response may cite");
    assert!(!store.owns_session(bob.id, rust.id.0).await.unwrap());

    let mut diagnosing = rust.clone();
    diagnosing.version = 2;
    diagnosing.status = FlowStatus::Diagnosing;
    diagnosing.session_count = 2;
    diagnosing.last_session_at = at(5);
    store.save_flow(&diagnosing).await.unwrap();
    assert_eq!(store.get_flow(ada.id, rust.id).await.unwrap(), Some(diagnosing.clone()));
    refused_as_conflict(store.save_flow(&diagnosing).await);
    let mut stranger = flow(ada.id, "Zig", FlowStatus::Pending, at(0));
    stranger.version = 2;
    assert!(matches!(store.save_flow(&stranger).await, Err(StoreError::NotFound("flow"))));

    // The planned map and the flow that now teaches it, in one transaction.
    let (map, nodes, changes) = chain_map(ada.id, "Rust", &["Ownership", "Borrowing"], at(6));
    let mut teaching = diagnosing.clone();
    teaching.version = 3;
    teaching.status = FlowStatus::Teaching;
    teaching.mind_map_id = Some(map.id);
    teaching.state.current_node_id = Some(nodes[0].id);
    teaching.last_session_at = at(6);
    store.save_flow_with_map(&teaching, &map, &changes).await.unwrap();
    assert_eq!(store.flow_for_map(ada.id, map.id).await.unwrap(), Some(teaching.clone()));
    assert_eq!(store.flow_for_map(bob.id, map.id).await.unwrap(), None);
    assert_eq!(store.load_map(ada.id, map.id).await.unwrap().unwrap().nodes, nodes);
    // A stale step writes neither the flow nor its map.
    let (other, _, other_changes) = chain_map(ada.id, "Rust 2", &["Traits"], at(7));
    refused_as_conflict(store.save_flow_with_map(&teaching, &other, &other_changes).await);
    assert_eq!(store.get_map(ada.id, other.id).await.unwrap(), None);

    // Flows idle since before the cutoff are abandoned with their active maps and review
    // jobs; finished flows are left alone.
    let mut review = Job::one_shot(JobKind::Review, at(2 * DAY), at(6));
    review.learner_id = Some(ada.id);
    review.mind_map_id = Some(map.id);
    store.insert_jobs(&[review]).await.unwrap();
    let abandoned = store.abandon_stale_flows(at(100), at(200)).await.unwrap();
    let mut expected = teaching.clone();
    expected.version = 4;
    expected.status = FlowStatus::Abandoned;
    assert_eq!(abandoned, vec![expected.clone()]);
    assert_eq!(store.get_flow(ada.id, rust.id).await.unwrap(), Some(expected));
    assert_eq!(store.get_flow(ada.id, go.id).await.unwrap(), Some(go));
    let map_now = store.get_map(ada.id, map.id).await.unwrap().unwrap();
    assert_eq!((map_now.status, map_now.updated_at), (MapStatus::Abandoned, at(200)));
    assert!(store.list_jobs(ada.id, Some(map.id)).await.unwrap().is_empty());
    assert!(store.abandon_stale_flows(at(100), at(300)).await.unwrap().is_empty(), "once");
}

fn job_of(learner: &Learner, kind: JobKind, run_at: DateTime<Utc>) -> Job {
    let mut job = Job::one_shot(kind, run_at, at(0));
    job.learner_id = Some(learner.id);
    job
}

async fn a_due_job_is_claimed_by_one_worker_and_each_firing_recorded_once(store: &AnyStore) {
    let ada = new_learner(store, "ada").await;
    let bob = new_learner(store, "bob").await;
    let (map, nodes) = stored_map(store, ada.id, "Rust", &["Ownership"], at(0)).await;
    let mut review = job_of(&ada, JobKind::Review, at(10));
    review.mind_map_id = Some(map.id);
    review.node_id = Some(nodes[0].id);
    review.payload = json!({ "label": "Ownership" });
    review.expires_at = Some(at(1000));
    let noop = job_of(&ada, JobKind::Noop, at(20));
    let later = job_of(&bob, JobKind::Noop, at(500));
    store.insert_jobs(&[review.clone(), noop.clone(), later.clone()]).await.unwrap();
    assert_eq!(store.list_jobs(ada.id, None).await.unwrap(), vec![review.clone(), noop.clone()], "soonest first");
    assert_eq!(store.list_jobs(ada.id, Some(map.id)).await.unwrap(), vec![review.clone()]);
    assert_eq!(store.list_jobs(bob.id, None).await.unwrap(), vec![later.clone()]);

    // Claimed soonest first, by one worker; attempts counted.
    let claimed = store.claim_due_jobs("w1", at(30), at(40), 10).await.unwrap();
    let attempted = |job: &Job, attempts| Job { attempts, ..job.clone() };
    assert_eq!(claimed, vec![attempted(&review, 1), attempted(&noop, 1)]);
    assert!(store.claim_due_jobs("w2", at(35), at(45), 10).await.unwrap().is_empty(), "w1 holds them");
    // Once the lease ends, another worker may take one.
    let taken = store.claim_due_jobs("w2", at(41), at(60), 1).await.unwrap();
    assert_eq!(taken, vec![attempted(&review, 2)]);

    let finished = |job: Job, worker: &str, outcome, detail: Option<&str>, next, minutes| FinishedJob {
        job,
        worker: worker.into(),
        outcome,
        detail: detail.map(str::to_string),
        next,
        finished_at: at(minutes),
    };
    let recorded = store
        .finish_jobs(&[
            // w1's lease on the review was taken over: its firing is not recorded.
            finished(attempted(&review, 1), "w1", JobOutcome::Done, None, JobNext::Delete, 42),
            finished(attempted(&review, 2), "w2", JobOutcome::Done, None, JobNext::Delete, 43),
            finished(attempted(&noop, 1), "w1", JobOutcome::Failed, Some("boom"), JobNext::RunAt(at(90)), 44),
        ])
        .await
        .unwrap();
    assert_eq!(recorded, 2);
    let retried = Job { run_at: at(90), attempts: 1, last_error: Some("boom".into()), ..noop.clone() };
    assert_eq!(store.list_jobs(ada.id, None).await.unwrap(), vec![retried.clone()], "the review is done and gone");

    let runs = store.job_runs(Some(ada.id), 10).await.unwrap();
    let summary: Vec<_> =
        runs.iter().map(|r| (r.job_id, r.worker.as_str(), r.outcome, r.detail.as_deref(), r.scheduled_for)).collect();
    assert_eq!(
        summary,
        vec![
            (noop.id, "w1", JobOutcome::Failed, Some("boom"), at(20)),
            (review.id, "w2", JobOutcome::Done, None, at(10)),
        ],
        "newest first"
    );
    assert_eq!(runs[0].finished_at, at(44));
    assert_eq!((runs[1].kind, runs[1].learner_id, runs[1].mind_map_id), (JobKind::Review, Some(ada.id), Some(map.id)));
    assert_eq!(store.job_runs(None, 1).await.unwrap(), runs[..1].to_vec());
    assert!(store.job_runs(Some(bob.id), 10).await.unwrap().is_empty());

    // A stopping worker gives back a lease it did not use: the job is due again at once,
    // its attempt not counted; another worker's lease is not its to give.
    let unused = store.claim_due_jobs("w4", at(91), at(99), 10).await.unwrap();
    assert_eq!(unused, vec![Job { attempts: 2, ..retried.clone() }]);
    assert_eq!(store.release_jobs("w5", &[retried.id]).await.unwrap(), 0);
    assert_eq!(store.release_jobs("w4", &[retried.id]).await.unwrap(), 1);
    assert_eq!(store.list_jobs(ada.id, None).await.unwrap(), vec![retried.clone()]);

    // The same firing finished again records nothing.
    let again = store.claim_due_jobs("w3", at(95), at(99), 10).await.unwrap();
    assert_eq!(again, vec![Job { attempts: 2, ..retried.clone() }]);
    let twice = finished(Job { run_at: at(20), ..again[0].clone() }, "w3", JobOutcome::Done, None, JobNext::Delete, 96);
    assert_eq!(store.finish_jobs(&[twice]).await.unwrap(), 0, "that firing was recorded before");
    assert!(store.list_jobs(ada.id, None).await.unwrap().is_empty());
    assert_eq!(store.job_runs(Some(ada.id), 10).await.unwrap().len(), 2);
}

async fn recurring_jobs_keep_their_next_firing_until_their_schedule_changes(store: &AnyStore) {
    let nightly = Job {
        name: Some("nightly-analytics".into()),
        cron: Some("0 3 * * *".into()),
        payload: json!({ "version": 1 }),
        ..Job::one_shot(JobKind::NightlyAnalytics, at(100), at(0))
    };
    let digest = Job {
        name: Some("weekly-digest".into()),
        cron: Some("0 8 * * 1".into()),
        ..Job::one_shot(JobKind::WeeklyDigest, at(200), at(0))
    };
    store.ensure_recurring_job(&digest).await.unwrap();
    store.ensure_recurring_job(&nightly).await.unwrap();
    assert_eq!(store.recurring_jobs().await.unwrap(), vec![nightly.clone(), digest.clone()], "by name");

    // The same schedule again: the payload is brought up to date, the next firing kept.
    let same_cron = Job { id: JobId(id()), run_at: at(999), payload: json!({ "version": 2 }), ..nightly.clone() };
    store.ensure_recurring_job(&same_cron).await.unwrap();
    let updated = Job { payload: json!({ "version": 2 }), ..nightly.clone() };
    assert_eq!(store.recurring_jobs().await.unwrap(), vec![updated.clone(), digest.clone()]);
    // A new schedule moves the next firing.
    let new_cron = Job { id: JobId(id()), run_at: at(999), cron: Some("0 4 * * *".into()), ..updated.clone() };
    store.ensure_recurring_job(&new_cron).await.unwrap();
    let moved = Job { run_at: at(999), cron: Some("0 4 * * *".into()), ..updated };
    assert_eq!(store.recurring_jobs().await.unwrap(), vec![moved, digest]);
    assert_eq!(counts(store.table_counts().await.unwrap())["jobs"], 2);
}

async fn review_jobs_are_replaced_from_the_map_as_it_is(store: &AnyStore) {
    let ada = new_learner(store, "ada").await;
    let bob = new_learner(store, "bob").await;
    let (map, nodes) = stored_map(store, ada.id, "Rust", &["Ownership", "Borrowing"], at(0)).await;
    let (_, ownership) = answer(store, ada.id, &response_to(&nodes[0], 3, ResponseType::Teach, at(10))).await;
    let review_of = |node: &Node, run_at| {
        let mut job = job_of(&ada, JobKind::Review, run_at);
        job.mind_map_id = Some(map.id);
        job.node_id = Some(node.id);
        job
    };

    let planned = vec![review_of(&nodes[0], at(DAY + 10)), review_of(&nodes[1], at(DAY + 20))];
    let plan = planned.clone();
    let expected_nodes = {
        let mut list = vec![(nodes[0].id, ownership.next_review_at), (nodes[1].id, None)];
        list.sort();
        list
    };
    let written = store
        .replace_review_jobs(ada.id, map.id, at(20), move |due| {
            assert_eq!(due.map_status, MapStatus::Active);
            let mut read = due.nodes.clone();
            read.sort();
            assert_eq!(read, expected_nodes, "every node with its next review");
            plan
        })
        .await
        .unwrap();
    assert_eq!(written, 2);
    assert_eq!(store.list_jobs(ada.id, Some(map.id)).await.unwrap(), planned);

    // Replaced again, but for the job a worker holds.
    let held = store.claim_due_jobs("w1", at(DAY + 15), at(DAY + 100), 1).await.unwrap();
    assert_eq!(held.iter().map(|j| j.id).collect::<Vec<_>>(), vec![planned[0].id]);
    let replacement = review_of(&nodes[1], at(DAY + 30));
    let plan = vec![replacement.clone()];
    assert_eq!(store.replace_review_jobs(ada.id, map.id, at(DAY + 16), move |_| plan).await.unwrap(), 1);
    let ids: Vec<JobId> = store.list_jobs(ada.id, Some(map.id)).await.unwrap().iter().map(|j| j.id).collect();
    assert_eq!(ids, vec![planned[0].id, replacement.id]);

    let missing = store.replace_review_jobs(bob.id, map.id, at(30), |_| Vec::new()).await;
    assert!(matches!(missing, Err(StoreError::NotFound("mind map"))), "not bob's map");
}

async fn preferences_and_fsrs_memory_belong_to_their_learner(store: &AnyStore) {
    let ada = new_learner(store, "ada").await;
    let bob = new_learner(store, "bob").await;
    assert_eq!(store.preferences(ada.id).await.unwrap(), Preferences::default());
    let chosen = Preferences { daily_review_cap: Some(20), srs_scheduler: SrsScheduler::Fsrs };
    store.set_preferences(ada.id, &chosen, at(0)).await.unwrap();
    assert_eq!(store.preferences(ada.id).await.unwrap(), chosen);
    assert_eq!(store.preferences(bob.id).await.unwrap(), Preferences::default());
    let uncapped = Preferences { daily_review_cap: None, srs_scheduler: SrsScheduler::Sm2 };
    store.set_preferences(ada.id, &uncapped, at(1)).await.unwrap();
    assert_eq!(store.preferences(ada.id).await.unwrap(), uncapped);

    let (_, nodes) = stored_map(store, ada.id, "Rust", &["Ownership"], at(0)).await;
    let node = &nodes[0];
    assert_eq!(store.node_fsrs(ada.id, node.id).await.unwrap(), None);
    let (_, reviewed) = answer(store, ada.id, &response_to(node, 4, ResponseType::Review, at(10))).await;
    let memory = NodeFsrs { stability: 3.5, difficulty: 5.25 };
    assert!(store.apply_fsrs(ada.id, node.id, memory, 4.0, at(10 + 4 * DAY), at(10)).await.unwrap());
    let scheduled = store.get_node(ada.id, node.id).await.unwrap().unwrap();
    assert_eq!((scheduled.interval_days, scheduled.next_review_at), (4.0, Some(at(10 + 4 * DAY))));
    assert_eq!(scheduled.mastery_score, reviewed.mastery_score);
    assert_eq!(store.node_fsrs(ada.id, node.id).await.unwrap(), Some(memory));

    // A schedule for an older review, or from another learner, is not applied.
    let newer = NodeFsrs { stability: 9.0, difficulty: 1.0 };
    assert!(!store.apply_fsrs(ada.id, node.id, newer, 9.0, at(9 * DAY), at(5)).await.unwrap());
    assert!(!store.apply_fsrs(bob.id, node.id, newer, 9.0, at(9 * DAY), at(10)).await.unwrap());
    assert_eq!(store.get_node(ada.id, node.id).await.unwrap(), Some(scheduled));
    assert_eq!(store.node_fsrs(ada.id, node.id).await.unwrap(), Some(memory));
    assert_eq!(store.node_fsrs(bob.id, node.id).await.unwrap(), None);
}

// ---------------------------------------------------------------------------------------
// Sessions and the tutor
// ---------------------------------------------------------------------------------------

async fn a_session_step_writes_its_state_log_and_conversation_together(store: &AnyStore) {
    let ada = new_learner(store, "ada").await;
    let bob = new_learner(store, "bob").await;
    let session = SessionRecord {
        id: SessionId(id()),
        learner_id: ada.id,
        session_type: SessionType::Learning,
        status: SessionStatus::Created,
        version: 1,
        title: "Warm-up".into(),
        config: json!({ "topic": "Rust", "items": [{ "answer": "secret" }] }),
        state: json!({}),
        lease_owner: None,
        lease_until: None,
        created_at: at(0),
        updated_at: at(0),
    };
    let created =
        SessionEvent { seq: 1, kind: SessionEventKind::SessionCreated, payload: json!({}), created_at: at(0) };
    store.insert_session(&session, std::slice::from_ref(&created)).await.unwrap();
    assert_eq!(store.get_session(ada.id, session.id).await.unwrap(), Some(session.clone()));
    assert_eq!(store.get_session(bob.id, session.id).await.unwrap(), None);
    let survey = SessionRecord {
        id: SessionId(id()),
        session_type: SessionType::Survey,
        title: "How did it go?".into(),
        created_at: at(10),
        updated_at: at(10),
        ..session.clone()
    };
    store.insert_session(&survey, &[]).await.unwrap();
    let all = store.list_sessions(ada.id, 0, 10).await.unwrap();
    assert_eq!((all.items, all.total), (vec![survey.clone(), session.clone()], 2), "newest first");
    let second = store.list_sessions(ada.id, 1, 1).await.unwrap();
    assert_eq!((second.items, second.total), (vec![session.clone()], 2));
    assert_eq!(store.list_sessions(bob.id, 0, 10).await.unwrap().total, 0);
    assert!(store.owns_session(ada.id, session.id.0).await.unwrap());
    assert!(!store.owns_session(bob.id, session.id.0).await.unwrap());
    assert!(!store.owns_session(ada.id, id()).await.unwrap());

    let running = SessionRecord {
        status: SessionStatus::Running,
        version: 2,
        state: json!({ "item": 1 }),
        lease_owner: Some("server-1".into()),
        lease_until: Some(at(20)),
        updated_at: at(1),
        ..session.clone()
    };
    let events = [
        SessionEvent { seq: 2, kind: SessionEventKind::SessionStarted, payload: json!({}), created_at: at(1) },
        SessionEvent {
            seq: 3,
            kind: SessionEventKind::TextDelta,
            payload: json!({ "text": "Hello" }),
            created_at: at(1),
        },
    ];
    let messages = [
        SessionMessage {
            seq: 1,
            role: "user".into(),
            content: "hi".into(),
            tool_calls: json!([]),
            tool_call_id: None,
            created_at: at(1),
        },
        SessionMessage {
            seq: 2,
            role: "assistant".into(),
            content: String::new(),
            tool_calls: json!([{ "id": "call-1", "name": "present_item", "arguments": "{}" }]),
            tool_call_id: None,
            created_at: at(1),
        },
        SessionMessage {
            seq: 3,
            role: "tool".into(),
            content: "{\"shown\":true}".into(),
            tool_calls: json!([]),
            tool_call_id: Some("call-1".into()),
            created_at: at(1),
        },
    ];
    store.save_session(&running, &events, &messages).await.unwrap();
    assert_eq!(store.get_session(ada.id, session.id).await.unwrap(), Some(running.clone()));

    // A step from a stale version writes nothing.
    let before = store.table_counts().await.unwrap();
    refused_as_conflict(store.save_session(&running, &events, &messages).await);
    assert_eq!(store.table_counts().await.unwrap(), before);
    let unknown = SessionRecord { id: SessionId(id()), ..running.clone() };
    assert!(matches!(store.save_session(&unknown, &[], &[]).await, Err(StoreError::NotFound("session"))));

    let all_events = store.session_events(ada.id, session.id, 0, 10).await.unwrap();
    assert_eq!(all_events, [vec![created], events.to_vec()].concat());
    assert_eq!(store.session_events(ada.id, session.id, 1, 1).await.unwrap(), vec![events[0].clone()]);
    assert!(store.session_events(bob.id, session.id, 0, 10).await.unwrap().is_empty());
    assert_eq!(store.session_messages(ada.id, session.id).await.unwrap(), messages.to_vec());
    assert!(store.session_messages(bob.id, session.id).await.unwrap().is_empty());
}

fn course(id: &str, hash: &str) -> CourseRecord {
    CourseRecord {
        id: id.into(),
        title: format!("The {id} course"),
        pack: json!({ "units": [{ "id": "u1" }, { "id": "u2" }] }),
        content_hash: hash.into(),
        builtin: true,
        unit_count: 2,
        question_count: 5,
        imported_at: at(0),
        owner_id: None,
    }
}

async fn a_tutor_thread_keeps_its_course_snapshot_messages_drills_and_turns(store: &AnyStore) {
    let ada = new_learner(store, "ada").await;
    let bob = new_learner(store, "bob").await;

    // Courses, replaced whole; listed without their packs.
    store.put_course(&course("algebra", "hash-1")).await.unwrap();
    let algebra = course("algebra", "hash-2");
    store.put_course(&algebra).await.unwrap();
    store.put_course(&course("geometry", "hash-g")).await.unwrap();
    assert_eq!(store.get_course("algebra").await.unwrap(), Some(algebra.clone()));
    assert_eq!(store.get_course("calculus").await.unwrap(), None);
    assert_eq!(store.course_hash("algebra").await.unwrap(), Some("hash-2".into()));
    assert_eq!(store.course_hash("calculus").await.unwrap(), None);
    let listed = store.list_courses().await.unwrap();
    assert_eq!(
        listed,
        vec![
            CourseRecord { pack: serde_json::Value::Null, ..algebra.clone() },
            CourseRecord { pack: serde_json::Value::Null, ..course("geometry", "hash-g") }
        ]
    );

    // The learner's snapshot of the course, made once, with the map its evidence lands on.
    let (map, nodes, changes) = chain_map(ada.id, "Algebra", &["Linear equations", "Quadratics"], at(0));
    let course_map = CourseMap {
        map: map.clone(),
        changes,
        unit_nodes: vec![("u1".into(), nodes[0].id), ("u2".into(), nodes[1].id)],
    };
    let snapshot = SnapshotRecord {
        learner_id: ada.id,
        course_id: "algebra".into(),
        snapshot: json!({ "mastery": { "u1": 0.1 } }),
        version: 1,
        mind_map_id: Some(map.id),
        updated_at: at(0),
    };
    assert!(store.insert_tutor_snapshot(&snapshot, Some(&course_map)).await.unwrap());
    assert!(!store.insert_tutor_snapshot(&snapshot, None).await.unwrap(), "made once");
    assert_eq!(store.get_tutor_snapshot(ada.id, "algebra").await.unwrap(), Some(snapshot.clone()));
    assert_eq!(store.get_tutor_snapshot(bob.id, "algebra").await.unwrap(), None);
    assert_eq!(store.load_map(ada.id, map.id).await.unwrap().unwrap().nodes, nodes);
    assert_eq!(store.course_unit_node(ada.id, map.id, "u2").await.unwrap(), Some(nodes[1].id));
    assert_eq!(store.course_unit_node(ada.id, map.id, "u3").await.unwrap(), None);
    assert_eq!(store.course_unit_node(bob.id, map.id, "u2").await.unwrap(), None);

    // Threads.
    let thread = ThreadRecord {
        id: ThreadId(id()),
        learner_id: ada.id,
        course_id: "algebra".into(),
        title: "Factoring".into(),
        last_action: None,
        message_count: 0,
        created_at: at(1),
        updated_at: at(1),
    };
    let shapes = ThreadRecord {
        id: ThreadId(id()),
        course_id: "geometry".into(),
        title: "Shapes".into(),
        updated_at: at(2),
        ..thread.clone()
    };
    store.insert_thread(&thread).await.unwrap();
    store.insert_thread(&shapes).await.unwrap();
    assert_eq!(store.get_thread(ada.id, thread.id).await.unwrap(), Some(thread.clone()));
    assert_eq!(store.get_thread(bob.id, thread.id).await.unwrap(), None);
    let all = store.list_threads(ada.id, None, 0, 10).await.unwrap();
    assert_eq!((all.items, all.total), (vec![shapes.clone(), thread.clone()], 2), "most recently active first");
    let of_algebra = store.list_threads(ada.id, Some("algebra"), 0, 10).await.unwrap();
    assert_eq!((of_algebra.items, of_algebra.total), (vec![thread.clone()], 1));
    let second = store.list_threads(ada.id, None, 1, 1).await.unwrap();
    assert_eq!((second.items, second.total), (vec![thread.clone()], 2));
    assert!(store.owns_session(ada.id, thread.id.0).await.unwrap(), "a thread is a session a response may cite");

    // A step: the snapshot, two messages, the turn's log, a drill offered and a response
    // recorded, all at once.
    let turn = TurnRecord {
        id: TurnId(id()),
        thread_id: thread.id,
        learner_id: ada.id,
        course_id: "algebra".into(),
        action: "drill".into(),
        validated: true,
        fallback_reason: None,
        log: json!({ "policy": "deterministic" }),
        created_at: at(3),
    };
    let message = |role: &str, text: &str| TutorMessageRecord {
        seq: 0,
        id: id(),
        role: role.into(),
        text: text.into(),
        latex: None,
        card: None,
        exam_question_id: None,
        turn_id: Some(turn.id),
        created_at: at(3),
        outcome: None,
        sources: None,
    };
    let messages = [
        message("user", "Can we practise?"),
        TutorMessageRecord {
            latex: Some("x^2 - 1".into()),
            card: Some(json!({ "kind": "exam", "question": "q1" })),
            exam_question_id: Some("q1".into()),
            sources: Some(json!([{ "passageId": "p1", "citation": "notes.md, Factoring" }])),
            ..message("assistant", "Factor this.")
        },
    ];
    let offer = DrillOfferRecord {
        id: "drill-1".into(),
        learner_id: ada.id,
        thread_id: thread.id,
        unit_id: "u1".into(),
        item_ref: Some("item-7".into()),
        prompt: "Solve 2x = 4".into(),
        question_latex: "2x = 4".into(),
        options: vec!["1".into(), "2".into()],
        offered_at: at(3),
        graded_at: None,
        grade: None,
    };
    let stepped = SnapshotRecord {
        version: 2,
        snapshot: json!({ "mastery": { "u1": 0.4 } }),
        updated_at: at(3),
        ..snapshot.clone()
    };
    let mut evidence = response_to(&nodes[0], 4, ResponseType::Review, at(3));
    evidence.session_id = Some(thread.id.0);
    let new = NewResponse { response: evidence.clone(), idempotency_key: None };
    let seen = Seen::default();
    let decide = rules(&evidence, &seen);
    let committed = store
        .commit_tutor_step(TutorStep {
            snapshot: Some(&stepped),
            thread: Some(thread.id),
            messages: &messages,
            last_action: Some("drill"),
            turn: Some(&turn),
            at: Some(at(3)),
            offers: std::slice::from_ref(&offer),
            graded: None,
            response: Some(StepResponse { learner: ada.id, new: &new, decide: &decide }),
        })
        .await
        .unwrap();
    assert_eq!(committed.first_seq, 1);
    let (recorded, node) = committed.response.expect("the step's response");
    assert_eq!((recorded, node.mastery_score), (evidence.clone(), 0.8));
    assert_eq!(seen.all()[0].node, nodes[0], "the step's rules read the node as stored");
    assert_eq!(store.node_history(ada.id, nodes[0].id, None).await.unwrap(), Some(vec![evidence]));

    let numbered: Vec<TutorMessageRecord> =
        messages.iter().zip(1..).map(|(m, seq)| TutorMessageRecord { seq, ..m.clone() }).collect();
    assert_eq!(store.thread_messages(ada.id, thread.id, 0, 10).await.unwrap(), numbered);
    assert_eq!(store.thread_messages(ada.id, thread.id, 1, 10).await.unwrap(), numbered[1..].to_vec());
    assert!(store.thread_messages(bob.id, thread.id, 0, 10).await.unwrap().is_empty());
    let moved = store.get_thread(ada.id, thread.id).await.unwrap().unwrap();
    assert_eq!((moved.message_count, moved.last_action.as_deref(), moved.updated_at), (2, Some("drill"), at(3)));
    assert_eq!(store.get_tutor_snapshot(ada.id, "algebra").await.unwrap(), Some(stepped.clone()));
    assert!(store.thread_offered_question(ada.id, thread.id, "q1").await.unwrap());
    assert!(!store.thread_offered_question(ada.id, thread.id, "q2").await.unwrap());
    assert!(!store.thread_offered_question(bob.id, thread.id, "q1").await.unwrap());
    assert_eq!(store.drill_offer(ada.id, thread.id, "drill-1").await.unwrap(), Some(offer.clone()));
    assert_eq!(store.drill_offer(bob.id, thread.id, "drill-1").await.unwrap(), None);
    let turns = store.list_turns(ada.id, thread.id, 0, 10).await.unwrap();
    assert_eq!((turns.items, turns.total), (vec![turn.clone()], 1));
    assert_eq!(store.list_turns(bob.id, thread.id, 0, 10).await.unwrap().total, 0);

    // The drill is graded once; a second grading, or a step from a stale snapshot, writes
    // nothing.
    let grade = json!({ "correct": true });
    let reply = [TutorMessageRecord { outcome: Some(json!({ "correct": true })), ..message("assistant", "Right.") }];
    let graded = store
        .commit_tutor_step(TutorStep {
            thread: Some(thread.id),
            messages: &reply,
            at: Some(at(4)),
            graded: Some(("drill-1", &grade)),
            ..TutorStep::default()
        })
        .await
        .unwrap();
    assert_eq!((graded.first_seq, graded.response), (3, None));
    let offered = store.drill_offer(ada.id, thread.id, "drill-1").await.unwrap().unwrap();
    assert_eq!((offered.graded_at, offered.grade), (Some(at(4)), Some(grade.clone())));
    let before = store.table_counts().await.unwrap();
    let regraded = store
        .commit_tutor_step(TutorStep {
            thread: Some(thread.id),
            messages: &reply,
            graded: Some(("drill-1", &grade)),
            ..TutorStep::default()
        })
        .await;
    assert!(matches!(regraded, Err(StoreError::Duplicate(_))), "{regraded:?}");
    let stale = store
        .commit_tutor_step(TutorStep {
            snapshot: Some(&stepped),
            thread: Some(thread.id),
            messages: &reply,
            ..TutorStep::default()
        })
        .await;
    refused_as_conflict(stale);
    assert_eq!(store.table_counts().await.unwrap(), before);
    assert_eq!(store.thread_messages(ada.id, thread.id, 0, 10).await.unwrap().len(), 3);
}

async fn exam_answers_move_a_question_on_only_from_the_status_they_read(store: &AnyStore) {
    let ada = new_learner(store, "ada").await;
    let bob = new_learner(store, "bob").await;
    store.put_course(&course("algebra", "hash-1")).await.unwrap();
    let questions = vec!["q1".to_string(), "q2".to_string()];
    assert!(store.exam_statuses(ada.id, "algebra", &questions).await.unwrap().is_empty(), "untouched");
    assert!(store.exam_statuses(ada.id, "algebra", &[]).await.unwrap().is_empty());

    let event = |kind: &str, selected: Option<i32>, correct: Option<bool>, minutes| ExamEventRecord {
        id: id(),
        learner_id: ada.id,
        course_id: "algebra".into(),
        question_id: "q1".into(),
        kind: kind.into(),
        selected_index: selected,
        correct,
        locked_until: None,
        at: at(minutes),
    };
    let locked = ExamStatusRecord {
        question_id: "q1".into(),
        status: "locked".into(),
        locked_until: Some(at(60)),
        attempts: 1,
        updated_at: at(10),
    };
    store
        .record_exam_event(
            &ExamEventRecord { locked_until: Some(at(60)), ..event("submit", Some(2), Some(false), 10) },
            &locked,
        )
        .await
        .unwrap();
    assert_eq!(store.exam_statuses(ada.id, "algebra", &questions).await.unwrap(), vec![locked.clone()]);
    assert!(store.exam_statuses(bob.id, "algebra", &questions).await.unwrap().is_empty());
    assert!(store.exam_statuses(ada.id, "geometry", &questions).await.unwrap().is_empty());

    // An answer that read the question before the first one is refused.
    let before = store.table_counts().await.unwrap();
    refused_as_conflict(store.record_exam_event(&event("submit", Some(1), Some(true), 11), &locked).await);
    assert_eq!(store.table_counts().await.unwrap(), before);

    let passed =
        ExamStatusRecord { status: "passed".into(), locked_until: None, attempts: 2, updated_at: at(70), ..locked };
    store.record_exam_event(&event("submit", Some(1), Some(true), 70), &passed).await.unwrap();
    assert_eq!(store.exam_statuses(ada.id, "algebra", &questions).await.unwrap(), vec![passed.clone()]);
    refused_as_conflict(store.record_exam_event(&event("memo", None, None, 71), &passed).await);
    let counted = counts(store.table_counts().await.unwrap());
    assert_eq!((counted["exam_status"], counted["exam_events"]), (1, 2));
}

// ---------------------------------------------------------------------------------------
// Replies kept under idempotency keys
// ---------------------------------------------------------------------------------------

async fn a_reply_is_kept_once_under_its_key_and_forgotten_once_old(store: &AnyStore) {
    let ada = new_learner(store, "ada").await;
    let bob = new_learner(store, "bob").await;
    let reply =
        StoredReply { fingerprint: "sha-1".into(), status: 201, body: "{\"ok\":true}".into(), created_at: at(0) };
    assert!(store.keep_reply(ada.id, "key", &reply).await.unwrap());
    let other = StoredReply { fingerprint: "sha-2".into(), status: 200, body: "{}".into(), created_at: at(1) };
    assert!(!store.keep_reply(ada.id, "key", &other).await.unwrap(), "the first reply stays");
    assert_eq!(store.stored_reply(ada.id, "key").await.unwrap(), Some(reply.clone()));
    assert_eq!(store.stored_reply(ada.id, "other key").await.unwrap(), None);
    assert_eq!(store.stored_reply(bob.id, "key").await.unwrap(), None, "keys are the learner's own");

    let later = StoredReply { created_at: at(10), ..other };
    assert!(store.keep_reply(bob.id, "key", &later).await.unwrap());
    assert_eq!(store.forget_replies(at(5)).await.unwrap(), 1);
    assert_eq!(store.stored_reply(ada.id, "key").await.unwrap(), None);
    assert_eq!(store.stored_reply(bob.id, "key").await.unwrap(), Some(later));
    assert_eq!(store.forget_replies(at(5)).await.unwrap(), 0);
}

// ---------------------------------------------------------------------------------------
// Tokens and the operator's list
// ---------------------------------------------------------------------------------------

async fn a_tokens_use_is_noted_at_most_once_a_minute_and_a_revoked_token_stays_revoked(store: &AnyStore) {
    let ada = new_learner(store, "Ada").await;
    let (_, default) = store.token_by_hash("hash-of-Ada").await.unwrap().expect("Ada's token");
    assert_eq!((default.name.as_str(), default.last_used_at, default.revoked_at), ("default", None, None));

    assert!(store.record_token_use(default.id, at(5), at(4)).await.unwrap(), "never used: noted");
    assert!(
        !store
            .record_token_use(default.id, at(5) + Duration::seconds(30), at(5) - Duration::seconds(30))
            .await
            .unwrap(),
        "used since: not noted again"
    );
    assert!(store.record_token_use(default.id, at(7), at(6)).await.unwrap(), "a minute on: noted");
    let (_, used) = store.token_by_hash("hash-of-Ada").await.unwrap().unwrap();
    assert_eq!(used.last_used_at, Some(at(7)));

    let stranger = new_learner(store, "Bob").await;
    assert_eq!(store.revoke_token(stranger.id, default.id, at(8)).await.unwrap(), None, "another learner's token");
    let revoked = store.revoke_token(ada.id, default.id, at(8)).await.unwrap().expect("Ada's token");
    assert_eq!(revoked.revoked_at, Some(at(8)));
    let again = store.revoke_token(ada.id, default.id, at(9)).await.unwrap().unwrap();
    assert_eq!(again.revoked_at, Some(at(8)), "revoked once, when it was first revoked");
    assert_eq!(store.token_by_hash("hash-of-Ada").await.unwrap().unwrap().1.revoked_at, Some(at(8)));
    assert!(!store.record_token_use(default.id, at(20), at(19)).await.unwrap(), "a revoked token's use is not noted");
    assert_eq!(store.revoke_token(ada.id, TokenId(id()), at(9)).await.unwrap(), None);
}

async fn a_rotation_stores_the_new_token_and_revokes_the_old_together(store: &AnyStore) {
    let ada = new_learner(store, "Ada").await;
    let bob = new_learner(store, "Bob").await;
    let (_, old) = store.token_by_hash("hash-of-Ada").await.unwrap().unwrap();
    let new = token(ada.id, "default", "hash-ada-new", at(10));
    let revoked = store.rotate_token(ada.id, old.id, &new).await.unwrap();
    assert_eq!((revoked.id, revoked.revoked_at), (old.id, Some(at(10))));
    assert_eq!(store.learner_tokens(ada.id).await.unwrap(), vec![revoked.clone(), new.record()]);

    // A revoked token, another learner's, or none at all: nothing is written.
    let before = store.table_counts().await.unwrap();
    let refused = store.rotate_token(ada.id, old.id, &token(ada.id, "default", "hash-ada-3", at(11))).await;
    assert!(matches!(refused, Err(StoreError::Rejected(DomainError::Conflict { .. }))), "{refused:?}");
    let others = store.rotate_token(bob.id, new.id, &token(bob.id, "x", "hash-bob-2", at(11))).await;
    assert!(matches!(others, Err(StoreError::NotFound("token"))), "{others:?}");
    // A new token whose hash is taken fails the whole rotation: the old one stays in force.
    let taken = store.rotate_token(ada.id, new.id, &token(ada.id, "default", "hash-of-Bob", at(12))).await;
    assert!(taken.is_err());
    assert_eq!(store.table_counts().await.unwrap(), before);
    assert_eq!(store.token_by_hash("hash-ada-new").await.unwrap().unwrap().1.revoked_at, None);
}

async fn learners_are_listed_with_their_latest_activity_of_each_kind(store: &AnyStore) {
    let ada = new_learner(store, "Ada").await;
    let idle = Learner { id: LearnerId(id()), name: "Idle".into(), is_local: false, created_at: at(1) };
    store.create_learner(&idle, &token(idle.id, "default", "hash-idle", at(1))).await.unwrap();
    let (map, nodes, changes) = chain_map(ada.id, "Sets", &["Sets", "Relations"], at(2));
    store.insert_map(&map, &changes).await.unwrap();
    answer(store, ada.id, &response_to(&nodes[0], 4, ResponseType::Teach, at(30))).await;
    let (_, ada_token) = store.token_by_hash("hash-of-Ada").await.unwrap().unwrap();
    store.record_token_use(ada_token.id, at(40), at(39)).await.unwrap();
    store.add_token(&token(ada.id, "laptop", "hash-ada-laptop", at(41))).await.unwrap();
    store.revoke_token(ada.id, ada_token.id, at(42)).await.unwrap();

    let page = store.learner_activity(0, 10).await.unwrap();
    assert_eq!(page.total, 2);
    let listed: Vec<_> = page.items.iter().map(|a| a.learner.clone()).collect();
    assert_eq!(listed, vec![ada.clone(), idle.clone()], "in the order they were made");
    let a = &page.items[0];
    assert_eq!((a.active_tokens, a.last_token_use, a.last_response), (1, Some(at(40)), Some(at(30))));
    assert_eq!((a.last_session, a.last_tutor_turn, a.last_flow_step), (None, None, None));
    let i = &page.items[1];
    assert_eq!((i.active_tokens, i.last_token_use, i.last_response), (1, None, None));
    let second = store.learner_activity(1, 10).await.unwrap();
    assert_eq!((second.total, second.items.len(), second.items[0].learner.id), (2, 1, idle.id));
}
