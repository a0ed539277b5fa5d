//! Sessions in the browser (tests/e2e/sessions.mjs): an evaluation of the item library
//! taken through the widgets to its score, what it missed practised in a session of its
//! own, and a reload in the middle of a timed session that resumes it. No model is needed for evaluations; the fake one is configured anyway,
//! as a learner's server would have one.

use super::{run_script, serve};
use pathwise_fake_llm::FakeLlm;

#[tokio::test(flavor = "multi_thread")]
async fn an_evaluation_session_to_its_score_and_a_reload_that_resumes_a_session() {
    if !super::ready() {
        return;
    }
    let fake = FakeLlm::start().await;
    let served = serve(fake.base_url());
    let report = run_script("sessions.mjs", &served, []).await;

    // The score the page showed is the one the server computed, with the wrong answers
    // the script gave on purpose counted as wrong.
    let results = &report["server_results"];
    let (score, max) = (results["score"].as_f64().unwrap(), results["max_score"].as_f64().unwrap());
    assert_eq!(report["score_shown"], format!("{score} / {max}"), "{report}");
    assert_eq!((results["items_correct"].as_i64(), max), (Some(8), 10.0), "10 items, 2 wrong on purpose: {report}");
    assert!(fake.requests().is_empty(), "an evaluation never asks the model");

    // Over the reload the timer went on from the server's start time, not from the page's.
    let reload = &report["reload"];
    let (before, after) = (reload["timer_before"].as_i64().unwrap(), reload["timer_after"].as_i64().unwrap());
    assert!(after < before && after > 0, "{reload}");
    assert!((after - reload["server_seconds_left"].as_i64().unwrap()).abs() <= 2, "{reload}");

    // Both sessions are in the database: the finished one scored, the resumed one waiting.
    let db = served.dir.path().join("data/pathwise.db");
    let rows = sessions_in(&db).await;
    assert!(rows.iter().any(|(s, t)| s == "completed" && t.contains("Arithmetic quiz")), "{rows:?}");
    assert!(rows.iter().any(|(s, t)| s == "awaiting_response" && t == "Python basics"), "{rows:?}");
    // "Practise what you missed" made a session of the two items missed, answered right.
    assert!(rows.iter().any(|(s, t)| s == "completed" && t.starts_with("Practice: Arithmetic quiz")), "{rows:?}");
    assert_eq!(report["practice"]["items"], 2, "{report}");
}

/// (status, title) of every session, read from the server's SQLite database.
async fn sessions_in(db: &std::path::Path) -> Vec<(String, String)> {
    use sqlx::Connection;
    let url = format!("sqlite://{}?mode=ro", db.display());
    let mut connection = sqlx::SqliteConnection::connect(&url).await.expect("open the server's database");
    sqlx::query_as("SELECT status, title FROM sessions").fetch_all(&mut connection).await.expect("read the sessions")
}
