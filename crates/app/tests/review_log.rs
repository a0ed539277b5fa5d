//! A learner's history exported as a review log, read back by the same parser `pathwise
//! srs-eval` uses. On SQLite and (with `PATHWISE_TEST_DATABASE_URL`) PostgreSQL.

mod support;

use pathwise_domain::ResponseType;
use support::{chain, TestApp};

async fn a_learners_history_exports_as_a_review_log_oldest_first(t: &TestApp) {
    let map = t.plan("Export", chain(&["A", "B"])).await.mind_map_id;
    let ids = t.ids(map).await;
    t.record_later(map, ids["A"], 4, ResponseType::Teach).await;
    t.record_later(map, ids["B"], 2, ResponseType::Teach).await;
    t.record_later(map, ids["A"], 5, ResponseType::Review).await;
    let other = t.other_learner().await;
    let csv = t.app().review_log(t.learner).await.unwrap();
    assert!(csv.starts_with("item_id,timestamp,grade,rating\n"), "{csv}");
    let log = pathwise_srs::parse_review_log(&csv).unwrap();
    assert_eq!(log.rows().len(), 3);
    assert_eq!(log.review_count(), 1, "each concept's first response is its introduction");
    let a = log.items().iter().find(|i| i.item_id == ids["A"].to_string()).expect("A");
    // A quality stated by the caller is the learner's own rating: 5 is Easy.
    assert_eq!((a.reviews()[0].grade, a.reviews()[0].rating), (5, pathwise_domain::evidence::Rating::Easy));
    assert_eq!(t.app().review_log(other).await.unwrap(), "item_id,timestamp,grade,rating\n", "only the learner's own");
}

conformance!(a_learners_history_exports_as_a_review_log_oldest_first);
