//! Years of Anki reviews brought in: real packages (genanki's decks with review-log rows,
//! packaged as Anki does) imported into maps whose answers carry the log's real times and
//! grades; imported again without duplicates and without losing what was done here; a file
//! that is not a package stores nothing; the learner's FSRS memory and parameters follow.
//! On SQLite and (with `PATHWISE_TEST_DATABASE_URL`) PostgreSQL.

mod support;

use pathwise_app::anki_import::AnkiImport;
use pathwise_app::fsrs_parameters::FsrsParametersInUse;
use pathwise_app::preferences::UpdatePreferences;
use pathwise_app::{ErrorCode, ErrorKind};
use pathwise_domain::{NodeId, ResponseType};
use pathwise_store::prelude::*;
use pathwise_store::ResponseFilter;
use pathwise_test_support::anki::{anki_python, make_package, sample_spec};
use serde_json::{json, Value};
use std::fs::File;
use support::TestApp;

async fn import(t: &TestApp, spec: &Value, name: &str) -> AnkiImport {
    let python = anki_python().expect("checked by the scenario");
    let dir = tempfile::tempdir().unwrap();
    let path = make_package(&python, spec, dir.path(), name);
    t.app().anki().import(t.learner, File::open(path).unwrap(), |_| {}).await.expect("imported")
}

fn skipped(report: &AnkiImport, reason: &str) -> usize {
    report.skipped.iter().find(|s| s.reason == reason).map_or(0, |s| s.rows)
}

async fn node_by_label(t: &TestApp, map: pathwise_domain::MindMapId, label: &str) -> NodeId {
    t.ids(map).await[label]
}

async fn responses_of(t: &TestApp, node: NodeId) -> Vec<pathwise_domain::model::QuizResponse> {
    let filter = ResponseFilter { node_id: Some(node), ..ResponseFilter::default() };
    let mut found = t.app().store().list_responses(t.learner, &filter, 0, 100).await.unwrap().items;
    found.sort_by_key(|r| r.responded_at);
    found
}

async fn an_anki_collection_becomes_a_map_per_deck_with_its_review_history(t: &TestApp) {
    if anki_python().is_none() {
        return;
    }
    let report = import(t, &sample_spec(), "sample.apkg").await;
    assert_eq!(report.format, "anki21b");
    let decks: Vec<(&str, usize, bool)> = report.decks.iter().map(|d| (d.deck.as_str(), d.cards, d.created)).collect();
    assert_eq!(decks, [("Languages", 3, true), ("Languages::French", 3, true)]);
    assert_eq!((report.concepts_added, report.answers_imported, report.review_log_rows), (6, 11, 13));
    assert_eq!((skipped(&report, "manual"), skipped(&report, "rescheduled")), (1, 1));
    let accounted: usize = report.answers_imported + report.skipped.iter().map(|s| s.rows).sum::<usize>();
    assert_eq!(accounted, report.review_log_rows, "every row used or skipped with a reason");
    assert_eq!(report.media_files, 1, "counted and left");

    let french = report.decks[1].mind_map_id;
    let map = t.map(french).await;
    assert_eq!(map.map.title, "Languages::French");
    let labels: Vec<&str> = map.nodes.iter().map(|n| n.label.as_str()).collect();
    assert!(labels.contains(&"bonjour") && labels.contains(&"chat") && labels.contains(&"cat"), "{labels:?}");
    assert_eq!(map.nodes.len(), 4, "the deck's root and a concept per card");

    let bonjour = node_by_label(t, french, "bonjour").await;
    let answers = responses_of(t, bonjour).await;
    let grades: Vec<(u8, ResponseType)> = answers.iter().map(|r| (r.quality, r.response_type)).collect();
    use ResponseType::{Review, Teach};
    assert_eq!(grades, [(1, Teach), (4, Teach), (4, Teach), (4, Review), (1, Review), (4, Review), (5, Review)]);
    assert_eq!(answers[0].responded_at.timestamp_millis(), 1_700_000_100_000, "the log's real time");
    let node = t.node(bonjour).await;
    assert_eq!(node.last_reviewed_at.map(|at| at.timestamp_millis()), Some(1_700_432_600_000));
    assert!(node.next_review_at.is_some() && node.repetitions > 0, "scheduled from its history");
    let summary = t.app().map_summary(t.learner, french).await.unwrap();
    assert_eq!(summary.total_nodes, 3, "a concept per card; the deck groups them");
}

async fn importing_again_adds_only_what_is_new_and_keeps_what_was_done_here(t: &TestApp) {
    if anki_python().is_none() {
        return;
    }
    let first = import(t, &sample_spec(), "sample.apkg").await;
    let french = first.decks[1].mind_map_id;
    let bonjour = node_by_label(t, french, "bonjour").await;
    // A review in Pathwise since.
    t.record(french, bonjour, 5, ResponseType::Review).await;

    let mut later = sample_spec();
    let notes = later["decks"][1]["notes"].as_array_mut().unwrap();
    notes[0]["fields"][1] = json!("hello (a greeting)");
    notes[0]["cards"][0]["revlog"].as_array_mut().unwrap().push(
        json!({"id": 1_772_400_000_000i64, "ease": 3, "ivl": 12, "lastIvl": 4, "factor": 2450, "time": 4000, "type": 1}),
    );
    notes.push(
        json!({"id": 1_700_000_000_005i64, "guid": "sampleBasic5", "model": "basic", "fields": ["merci", "thank you"],
        "tags": [], "cards": [{"ord": 0, "id": 1_700_000_000_501i64, "revlog": []}]}),
    );
    let again = import(t, &later, "later.apkg").await;
    assert!(again.decks.iter().all(|d| !d.created), "the maps of the first import, found again");
    assert_eq!((again.concepts_added, again.answers_imported), (1, 1));
    assert_eq!(skipped(&again, "already_imported"), 11);
    assert_eq!(again.concepts_updated, 1, "bonjour: a new description and a new answer");
    assert_eq!(t.app().list_maps(t.learner, None, None, None).await.unwrap().items.len(), 2, "no duplicate maps");

    let answers = responses_of(t, bonjour).await;
    assert_eq!(answers.len(), 9, "seven from the first import, the review here, the new one");
    assert!(answers.iter().any(|r| r.user_answer.as_deref() == Some("answer")), "the review here is kept");
    let node = t.node(bonjour).await;
    assert_eq!(node.description.as_deref(), Some("Front: bonjour\nBack: hello (a greeting)"));
    assert_eq!(node.last_reviewed_at.map(|at| at.timestamp_millis()), Some(1_772_400_000_000));
    assert!(t.ids(french).await.contains_key("merci"));

    let same = import(t, &later, "same.apkg").await;
    assert_eq!((same.concepts_added, same.concepts_updated, same.answers_imported), (0, 0, 0), "nothing new");
}

async fn a_file_that_is_not_an_anki_package_stores_nothing(t: &TestApp) {
    let before = t.counts().await;
    for (bytes, code) in [
        (b"%PDF-1.7 a document".to_vec(), ErrorCode::NotAnAnkiPackage),
        (b"PK\x03\x04 cut short".to_vec(), ErrorCode::NotAnAnkiPackage),
    ] {
        let refused = t.app().anki().import(t.learner, std::io::Cursor::new(bytes), |_| {}).await.unwrap_err();
        assert_eq!((refused.kind, refused.code), (ErrorKind::Invalid, code), "{}", refused.message);
        assert!(refused.message.contains("Export a deck from Anki"), "says what to do: {}", refused.message);
        assert_eq!(refused.details["field"], json!("file"));
    }
    assert_eq!(t.counts().await, before, "nothing stored");
}

/// A deck of 24 cards with long memories: each learned (Good), then reviewed 3, 10, 25 and
/// 60 days later, nearly always Easy, the history ending before today (the test's clock).
/// FSRS's defaults expect these memories to fade sooner than they do.
fn long_memories() -> Value {
    let start = (support::start_time() - chrono::Duration::days(80)).timestamp_millis();
    let notes: Vec<Value> = (0..24i64)
        .map(|i| {
            let first = start + (i % 6) * DAY_MS + i * 60_000;
            let mut revlog =
                vec![json!({"id": first, "ease": 3, "ivl": 1, "lastIvl": 0, "factor": 2500, "time": 5000, "type": 0})];
            for (step, gap) in [3i64, 10, 25, 60].into_iter().enumerate() {
                let ease = if (i as usize * 3 + step).is_multiple_of(7) { 1 } else { 4 };
                revlog.push(json!({"id": first + gap * DAY_MS, "ease": ease, "ivl": gap, "lastIvl": 1, "factor": 2500,
                    "time": 5000, "type": 1}));
            }
            json!({"id": 1_600_000_000_000i64 + i, "guid": format!("long{i}"), "model": "basic",
                "fields": [format!("word {i}"), format!("meaning {i}")], "tags": [],
                "cards": [{"ord": 0, "id": 1_600_000_100_000i64 + i, "revlog": revlog}]})
        })
        .collect();
    json!({"format": "anki21b", "decks": [{"id": 1_600_000_000i64, "name": "Vocabulary", "notes": notes}]})
}

const DAY_MS: i64 = 86_400_000;

async fn imported_reviews_give_an_fsrs_learner_memories_and_their_own_parameters(t: &TestApp) {
    if anki_python().is_none() {
        return;
    }
    let choose: UpdatePreferences = serde_json::from_value(json!({ "srs_scheduler": "fsrs" })).unwrap();
    t.app().update_preferences(t.learner, choose).await.unwrap();
    let report = import(t, &long_memories(), "long.apkg").await;
    let reviews = report.answers_imported - 24;
    assert_eq!(reviews, 96, "four reviews of each card after it was learned");
    let fsrs = &report.fsrs;
    assert_eq!(fsrs.reviews as usize, reviews, "fitted on every review the import brought");
    assert!(fsrs.fitted_at.is_some() && fsrs.checked_reviews > 0, "{fsrs:?}");
    assert_eq!(fsrs.parameters, FsrsParametersInUse::Fitted, "a curve of its own beats the defaults: {fsrs:?}");
    let counts = t.counts().await;
    let memories = counts.iter().find(|(table, _)| table == "node_fsrs").unwrap().1;
    assert_eq!(memories, 24, "every card's FSRS memory replayed from its history");
    assert_eq!(t.app().fsrs().status(t.learner).await.unwrap().parameters, FsrsParametersInUse::Fitted);

    // Each card scheduled as FSRS with the learner's own parameters would have.
    let map = report.decks[0].mind_map_id;
    let card = node_by_label(t, map, "word 1").await;
    let log = pathwise_srs::parse_review_log(&t.app().review_log(t.learner).await.unwrap()).unwrap();
    let events = &log.items().iter().find(|i| i.item_id == card.to_string()).unwrap().events;
    let own = pathwise_srs::FsrsScheduler::new(pathwise_srs::FsrsParameters::new(&fsrs.weights).unwrap()).unwrap();
    let expected = own.replay_schedule(events, pathwise_srs::DEFAULT_DESIRED_RETENTION).unwrap().unwrap();
    let node = t.node(card).await;
    assert_eq!(node.interval_days, expected.interval_days);
    let last = node.last_reviewed_at.unwrap();
    assert_eq!(node.next_review_at, Some(pathwise_domain::srs::due_at(last, expected.interval_days)));
}

async fn an_anki_deck_groups_its_cards_and_is_not_a_concept_to_learn(t: &TestApp) {
    if anki_python().is_none() {
        return;
    }
    // The sample, with a new card (never answered) in the French deck.
    let mut spec = sample_spec();
    spec["decks"][1]["notes"].as_array_mut().unwrap().push(
        json!({"id": 1_700_000_000_005i64, "guid": "sampleBasic5", "model": "basic", "fields": ["merci", "thank you"],
        "tags": [], "cards": [{"ord": 0, "id": 1_700_000_000_501i64, "revlog": []}]}),
    );
    let report = import(t, &spec, "sample.apkg").await;
    let french = report.decks[1].mind_map_id;
    let map = t.map(french).await;
    let deck = map.nodes.iter().find(|n| Some(n.id) == map.map.root_node_id).expect("the deck's node, on the map");
    assert_eq!(deck.label, "Languages::French");
    assert!(deck.is_grouping() && deck.sequence.is_none(), "a grouping, not in the learning order: {deck:?}");
    assert_eq!(map.edges.iter().filter(|e| e.parent_node_id == deck.id).count(), 4, "the cards hang from it");

    // Never next to learn, never a card to recall (the frontier), never counted.
    let next = t.app().next_node(t.learner, french).await.unwrap().expect("a card to learn next");
    assert_eq!(next.label, "merci", "the new card, not the deck");
    let frontier = t.app().frontier(t.learner, french).await.unwrap();
    let labels: Vec<&str> = frontier.iter().map(|n| n.label.as_str()).collect();
    assert_eq!(labels, ["merci"], "the one card to learn; the deck is none");
    assert_eq!(t.app().map_summary(t.learner, french).await.unwrap().total_nodes, 4, "a concept per card");
    let analytics = t.app().analytics().map_analytics(t.learner, french).await.unwrap();
    assert_eq!(analytics.latest.metrics["total_nodes"], json!(4), "{:?}", analytics.latest.metrics);
    assert_eq!(t.app().portfolio(t.learner).await.unwrap().total_nodes, 7, "seven cards in two decks");
}

/// A Spanish deck of six cards, each learned (Good) then reviewed Easy four times: five of
/// them weeks before today (the test's clock), the sixth in the last six days.
fn spanish_basics() -> Value {
    let now = support::start_time().timestamp_millis();
    let notes: Vec<Value> = (0..6i64)
        .map(|i| {
            let first = if i < 5 { now - 50 * DAY_MS + i * 60_000 } else { now - 6 * DAY_MS };
            let mut revlog =
                vec![json!({"id": first, "ease": 3, "ivl": 1, "lastIvl": 0, "factor": 2500, "time": 5000, "type": 0})];
            for step in 1..=4i64 {
                let gap = if i < 5 { step * 5 } else { step };
                revlog.push(json!({"id": first + gap * DAY_MS, "ease": 4, "ivl": gap, "lastIvl": 1, "factor": 2500,
                    "time": 5000, "type": 1}));
            }
            json!({"id": 1_650_000_000_000i64 + i, "guid": format!("es{i}"), "model": "basic",
                "fields": [format!("palabra {i}"), format!("word {i}")], "tags": [],
                "cards": [{"ord": 0, "id": 1_650_000_100_000i64 + i, "revlog": revlog}]})
        })
        .collect();
    json!({"format": "anki21b", "decks": [{"id": 1_650_000_000i64, "name": "Languages::Spanish basics", "notes": notes}]})
}

async fn the_digest_counts_mastery_reached_this_week_not_imported_reviews_of_weeks_ago(t: &TestApp) {
    if anki_python().is_none() {
        return;
    }
    let report = import(t, &spanish_basics(), "spanish.apkg").await;
    assert_eq!(report.answers_imported, 30);
    let map = report.decks[0].mind_map_id;
    let week_ago = t.clock_now() - chrono::Duration::days(7);
    let old = t.node(node_by_label(t, map, "palabra 0").await).await;
    let mastered_at = old.mastered_at.expect("mastered by its imported reviews");
    assert!(mastered_at < week_ago, "dated by the review that mastered it: {mastered_at}");
    assert_eq!(Some(mastered_at), old.last_reviewed_at.map(|at| at - chrono::Duration::days(5)), "the third review");

    let digest = t.app().analytics().digest(t.learner).await.unwrap();
    let facts = &digest.facts.maps[0];
    assert_eq!((facts.total_nodes, facts.mastered_nodes), (6, 6), "the deck itself is not a concept");
    assert_eq!(facts.newly_mastered, Some(1), "only the card whose reviews of this week mastered it");
    assert_eq!(digest.facts.newly_mastered, 1);
    assert!(digest.subject.contains("1 new concept mastered"), "{}", digest.subject);
}

async fn a_review_dated_after_the_servers_clock_is_skipped_and_counted(t: &TestApp) {
    if anki_python().is_none() {
        return;
    }
    let mut spec = sample_spec();
    let tomorrow = (t.clock_now() + chrono::Duration::days(1)).timestamp_millis();
    spec["decks"][1]["notes"][0]["cards"][0]["revlog"]
        .as_array_mut()
        .unwrap()
        .push(json!({"id": tomorrow, "ease": 4, "ivl": 30, "lastIvl": 12, "factor": 2500, "time": 3000, "type": 1}));
    let report = import(t, &spec, "wrong-clock.apkg").await;
    assert_eq!((report.review_log_rows, report.answers_imported), (14, 11), "the sample's answers, not tomorrow's");
    let future = report.skipped.iter().find(|s| s.reason == "future_dated").expect("counted with its reason");
    assert_eq!(future.rows, 1);
    assert!(future.meaning.contains("after the server's clock"), "{}", future.meaning);
    let accounted: usize = report.answers_imported + report.skipped.iter().map(|s| s.rows).sum::<usize>();
    assert_eq!(accounted, report.review_log_rows, "every row used or skipped with a reason");
    let bonjour = node_by_label(t, report.decks[1].mind_map_id, "bonjour").await;
    let answers = responses_of(t, bonjour).await;
    assert!(answers.iter().all(|r| r.responded_at <= t.clock_now()), "no answer from the future");
    assert_eq!(answers.len(), 7);

    // Once the server's clock has passed it, a later import brings it in.
    t.clock.advance(chrono::Duration::days(2));
    let later = import(t, &spec, "wrong-clock-later.apkg").await;
    assert_eq!((later.answers_imported, skipped(&later, "future_dated")), (1, 0));
}

conformance!(
    an_anki_collection_becomes_a_map_per_deck_with_its_review_history,
    an_anki_deck_groups_its_cards_and_is_not_a_concept_to_learn,
    the_digest_counts_mastery_reached_this_week_not_imported_reviews_of_weeks_ago,
    a_review_dated_after_the_servers_clock_is_skipped_and_counted,
    importing_again_adds_only_what_is_new_and_keeps_what_was_done_here,
    a_file_that_is_not_an_anki_package_stores_nothing,
    imported_reviews_give_an_fsrs_learner_memories_and_their_own_parameters,
);
