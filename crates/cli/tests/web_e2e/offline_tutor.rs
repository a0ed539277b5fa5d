//! The whole offline path in the browser: no model configured, a learner goes from the first
//! turn to a bronze tier on the shipped math course (words acknowledged, drills, the check the
//! policy opens, the exam passed), with screenshots of each step.
//!
//! A browser cannot know a drill's answer (cards carry only an opaque id), so the test serves
//! the keys itself: a small HTTP endpoint on 127.0.0.1 that looks the drill's offer up in the
//! server's SQLite database and regenerates its item, as the grader does.

use super::{ready, run_script, serve_with};
use pathwise_course::builtin_courses;
use pathwise_items::Library;
use sqlx::sqlite::{SqliteConnectOptions, SqlitePoolOptions};
use sqlx::Row;
use std::path::Path;
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::TcpListener;

/// The answer key of each offered drill, by its `drl_` id, over HTTP (`GET /drill-key/{id}`).
async fn drill_keys(database: &Path) -> String {
    let options = SqliteConnectOptions::new().filename(database).read_only(true);
    let pool = SqlitePoolOptions::new().max_connections(1).connect_with(options).await.expect("the server's database");
    let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
    let base = format!("http://{}", listener.local_addr().unwrap());
    tokio::spawn(async move {
        let library = Library::builtin();
        let courses = builtin_courses(&library);
        loop {
            let Ok((mut socket, _)) = listener.accept().await else { return };
            let mut request = vec![0u8; 2048];
            let read = socket.read(&mut request).await.unwrap_or(0);
            let line = String::from_utf8_lossy(&request[..read]).lines().next().unwrap_or("").to_string();
            let id =
                line.split_whitespace().nth(1).and_then(|p| p.strip_prefix("/drill-key/")).unwrap_or("").to_string();
            let item_ref: Option<String> = sqlx::query("SELECT item_ref FROM drill_offers WHERE id = ?")
                .bind(&id)
                .fetch_optional(&pool)
                .await
                .ok()
                .flatten()
                .and_then(|row| row.get(0));
            let answer = item_ref.and_then(|r| courses.iter().find_map(|c| c.library().regenerate(&r).ok()));
            let (status, body) = match answer {
                Some(item) => ("200 OK", serde_json::json!({ "answer": item.key.answer }).to_string()),
                None => ("404 Not Found", serde_json::json!({ "error": format!("no drill {id}") }).to_string()),
            };
            let reply = format!(
                "HTTP/1.1 {status}\r\nContent-Type: application/json\r\nAccess-Control-Allow-Origin: *\r\nContent-Length: {}\r\nConnection: close\r\n\r\n{body}",
                body.len()
            );
            let _ = socket.write_all(reply.as_bytes()).await;
        }
    });
    base
}

#[tokio::test(flavor = "multi_thread")]
async fn the_whole_offline_path_from_the_first_turn_to_a_tier() {
    if !ready() {
        return;
    }
    let served = serve_with(None, &[]);
    let keys = drill_keys(&served.dir.path().join("data/pathwise.db")).await;
    let report = run_script("offline_tutor.mjs", &served, [("DRILL_KEYS", keys)]).await;
    assert_eq!(report["tier"], "bronze", "{report}");
}
