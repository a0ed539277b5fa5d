//! A server killed with SIGKILL while learners' answers pour in loses none that it
//! acknowledged, and the answers whose acknowledgement was lost, retried with their
//! idempotency keys, are stored once: the real binary, on SQLite and on PostgreSQL. A
//! backup taken while they pour in holds every answer acknowledged before it began.

mod common;

use common::{drain, lines, ChildGuard};
use serde_json::{json, Value};
use std::collections::{HashMap, HashSet};
use std::path::Path;
use std::process::{Command, Stdio};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

const BIN: &str = env!("CARGO_BIN_EXE_pathwise");
const CLIENTS: usize = 16;
/// Answers acknowledged before the server is killed, at least.
const ACKNOWLEDGED_BEFORE_KILL: usize = 1000;

/// Where a server answers, and the local learner's token.
#[derive(Clone)]
struct Endpoint {
    base: String,
    token: String,
}

/// `pathwise serve` on a free port.
struct Server {
    child: ChildGuard,
    at: Endpoint,
}

fn serve(dir: &Path, database_url: Option<&str>) -> Server {
    let mut command = Command::new(BIN);
    command.args(["serve", "--port", "0", "--data-dir"]).arg(dir.join("data")).current_dir(dir);
    if let Some(url) = database_url {
        command.args(["--database-url", url]);
    }
    for (name, _) in std::env::vars() {
        if name.starts_with("PATHWISE_") {
            command.env_remove(name);
        }
    }
    command
        .env("PATHWISE_LOG", "warn")
        .env("PATHWISE_SCHEDULER_ENABLED", "false")
        // Many answers a second from one token: the load this test needs, over any rate.
        .env("PATHWISE_RATE_LIMIT_PER_SECOND", "0")
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    let mut child = ChildGuard(command.spawn().expect("start pathwise serve"));
    let _ = drain(child.0.stderr.take().unwrap());
    let banner = lines(&mut child.0);
    let deadline = Instant::now() + Duration::from_secs(60);
    let (mut base, mut token) = (None, None);
    while base.is_none() || token.is_none() {
        let line = banner.recv_timeout(deadline.saturating_duration_since(Instant::now())).expect("the banner");
        if let Some((_, url)) = line.split_once("is listening on ") {
            base = url.split_whitespace().next().map(str::to_string);
        }
        if let Some(t) = line.strip_prefix("Local learner token: ") {
            token = Some(t.trim().to_string());
        }
    }
    Server { child, at: Endpoint { base: base.unwrap(), token: token.unwrap() } }
}

/// One answer, as a client sends it and may send it again.
#[derive(Clone)]
struct Answer {
    key: String,
    body: Value,
}

/// What the clients saw before the server died: every answer sent, and those acknowledged.
#[derive(Default)]
struct Sent {
    sent: Vec<Answer>,
    acknowledged: HashSet<String>,
}

async fn post(client: &reqwest::Client, server: &Endpoint, answer: &Answer) -> Result<(u16, Value), reqwest::Error> {
    let reply = client
        .post(format!("{}/api/responses", server.base))
        .bearer_auth(&server.token)
        .header("Idempotency-Key", &answer.key)
        .json(&answer.body)
        .send()
        .await?;
    let status = reply.status().as_u16();
    let replayed = reply.headers().get("idempotent-replayed").map(|v| v.to_str().unwrap_or("").to_string());
    let mut body: Value = reply.json().await?;
    body["replayed_header"] = json!(replayed);
    Ok((status, body))
}

/// Every stored response's question, by the map's responses over the API.
async fn stored_questions(client: &reqwest::Client, server: &Endpoint, map: &str) -> Vec<String> {
    let mut questions = Vec::new();
    loop {
        let url = format!("{}/api/quiz-responses?mind_map_id={map}&offset={}&limit=500", server.base, questions.len());
        let page: Value = client.get(url).bearer_auth(&server.token).send().await.unwrap().json().await.unwrap();
        let items = page["items"].as_array().expect("a page of responses");
        questions.extend(items.iter().map(|r| r["question_text"].as_str().unwrap().to_string()));
        if items.is_empty() || questions.len() as u64 >= page["total"].as_u64().unwrap() {
            return questions;
        }
    }
}

/// A map of 30 concepts, so that the answers spread over many nodes: its id and its nodes'.
async fn map_of_thirty(client: &reqwest::Client, at: &Endpoint) -> (String, Vec<String>) {
    let mut nodes = vec![json!({ "label": "Topic", "effort_minutes": 10 })];
    let mut edges = Vec::new();
    for i in 1..30 {
        nodes.push(json!({ "label": format!("Concept {i}"), "effort_minutes": 10 }));
        edges.push(json!({ "parent": "Topic", "child": format!("Concept {i}") }));
    }
    let plan: Value = client
        .post(format!("{}/api/curriculum/generate", at.base))
        .bearer_auth(&at.token)
        .json(&json!({ "topic": "Crash", "decomposition": { "root": "Topic", "nodes": nodes, "edges": edges } }))
        .send()
        .await
        .unwrap()
        .json()
        .await
        .unwrap();
    let map = plan["mind_map_id"].as_str().expect("a map").to_string();
    let aggregate: Value = client
        .get(format!("{}/api/mind-maps/{map}", at.base))
        .bearer_auth(&at.token)
        .send()
        .await
        .unwrap()
        .json()
        .await
        .unwrap();
    let node_ids: Vec<String> =
        aggregate["nodes"].as_array().unwrap().iter().map(|n| n["id"].as_str().unwrap().to_string()).collect();
    (map, node_ids)
}

async fn killed_under_load_loses_nothing_acknowledged(database_url: Option<&str>) {
    let dir = tempfile::tempdir().unwrap();
    let client = reqwest::Client::builder().timeout(Duration::from_secs(20)).build().unwrap();
    let mut server = serve(dir.path(), database_url);
    let at = server.at.clone();
    let (map, node_ids) = map_of_thirty(&client, &at).await;

    // Clients answer as fast as the server takes it, until it dies under them.
    let sent = Arc::new(Mutex::new(Sent::default()));
    let mut clients = Vec::new();
    for c in 0..CLIENTS {
        let (client, sent, server, nodes, map) =
            (client.clone(), sent.clone(), at.clone(), node_ids.clone(), map.clone());
        clients.push(tokio::spawn(async move {
            for n in 0.. {
                let key = format!("crash-{c}-{n}");
                let body = json!({ "node_id": nodes[(c * 7 + n) % nodes.len()], "mind_map_id": map,
                    "question_text": key, "quality": 3, "response_type": "teach" });
                let answer = Answer { key: key.clone(), body };
                sent.lock().unwrap().sent.push(answer.clone());
                match post(&client, &server, &answer).await {
                    Ok((201, _)) => {
                        sent.lock().unwrap().acknowledged.insert(key);
                    }
                    Ok((status, body)) => panic!("{key}: answered {status}: {body}"),
                    Err(_) => return,
                }
            }
        }));
    }
    let deadline = Instant::now() + Duration::from_secs(120);
    while sent.lock().unwrap().acknowledged.len() < ACKNOWLEDGED_BEFORE_KILL {
        assert!(Instant::now() < deadline, "the server acknowledged too few answers");
        tokio::time::sleep(Duration::from_millis(5)).await;
    }
    server.child.0.kill().expect("SIGKILL the server");
    server.child.0.wait().unwrap();
    for client in clients {
        client.await.unwrap();
    }
    let Sent { sent, acknowledged } = std::mem::take(&mut *sent.lock().unwrap());

    // After a restart every acknowledged answer is there, each once.
    let server = serve(dir.path(), database_url);
    let stored = stored_questions(&client, &server.at, &map).await;
    let counted: HashMap<&str, usize> = stored.iter().fold(HashMap::new(), |mut m, q| {
        *m.entry(q.as_str()).or_default() += 1;
        m
    });
    let lost: Vec<&String> = acknowledged.iter().filter(|k| !counted.contains_key(k.as_str())).collect();
    assert!(lost.is_empty(), "acknowledged answers lost in the crash: {lost:?}");
    assert!(counted.values().all(|&n| n == 1), "an answer stored twice");
    let unacknowledged: Vec<&Answer> = sent.iter().filter(|a| !acknowledged.contains(&a.key)).collect();
    let committed_unacknowledged = unacknowledged.iter().filter(|a| counted.contains_key(a.key.as_str())).count();

    // Every answer retried with its key: those stored are found, the others stored now, once.
    let mut replayed = 0;
    for answer in &sent {
        let (status, body) = post(&client, &server.at, answer).await.expect("the restarted server answers");
        assert_eq!(status, 201, "{}: {body}", answer.key);
        replayed += usize::from(body["replayed_header"] == "true");
    }
    let after = stored_questions(&client, &server.at, &map).await;
    let unique: HashSet<&String> = after.iter().collect();
    assert_eq!(unique.len(), after.len(), "no answer is stored twice");
    assert_eq!(after.len(), sent.len(), "every answer sent is stored, once");
    assert_eq!(replayed, stored.len(), "exactly the answers stored before the retry were found by their keys");
    println!(
        "{}: {} answers sent, {} acknowledged before SIGKILL, {} not acknowledged ({} of them committed, found by \
         their keys on retry), {} stored in all",
        if database_url.is_some() { "postgres" } else { "sqlite" },
        sent.len(),
        acknowledged.len(),
        unacknowledged.len(),
        committed_unacknowledged,
        after.len()
    );
}

#[tokio::test(flavor = "multi_thread")]
async fn sqlite_killed_under_load_loses_nothing_acknowledged_and_stores_retries_once() {
    killed_under_load_loses_nothing_acknowledged(None).await;
}

#[tokio::test(flavor = "multi_thread")]
async fn postgres_killed_under_load_loses_nothing_acknowledged_and_stores_retries_once() {
    let Some(database) = pathwise_test_support::TestPgDatabase::create("crash").await else { return };
    killed_under_load_loses_nothing_acknowledged(Some(database.url())).await;
    // Connections the killed server held are gone with it; the restarted one's are ended
    // when the database is dropped.
}

/// `pathwise` run to its end in `dir` without the caller's `PATHWISE_*` variables.
fn pathwise(dir: &Path, args: &[&str]) -> std::process::Output {
    let mut command = Command::new(BIN);
    command.args(args).current_dir(dir).stdin(Stdio::null());
    for (name, _) in std::env::vars() {
        if name.starts_with("PATHWISE_") {
            command.env_remove(name);
        }
    }
    command.output().expect("run pathwise")
}

/// A backup of the SQLite database taken while answers pour in (SQLite's online backup)
/// holds every answer acknowledged before it began; restored into another data directory,
/// a server serves them all. A destination that exists or cannot be written is refused with
/// nothing written, and PostgreSQL is pointed to its own tools.
#[tokio::test(flavor = "multi_thread")]
async fn a_backup_under_load_holds_every_answer_acknowledged_before_it() {
    let dir = tempfile::tempdir().unwrap();
    let client = reqwest::Client::builder().timeout(Duration::from_secs(20)).build().unwrap();
    let server = serve(dir.path(), None);
    let at = server.at.clone();
    let (map, node_ids) = map_of_thirty(&client, &at).await;

    let sent = Arc::new(Mutex::new(Sent::default()));
    let stop = Arc::new(std::sync::atomic::AtomicBool::new(false));
    let mut clients = Vec::new();
    for c in 0..CLIENTS / 2 {
        let (client, sent, at, nodes, map, stop) =
            (client.clone(), sent.clone(), at.clone(), node_ids.clone(), map.clone(), stop.clone());
        clients.push(tokio::spawn(async move {
            for n in 0.. {
                if stop.load(std::sync::atomic::Ordering::Relaxed) {
                    return;
                }
                let key = format!("backup-{c}-{n}");
                let body = json!({ "node_id": nodes[(c * 7 + n) % nodes.len()], "mind_map_id": map,
                    "question_text": key, "quality": 4, "response_type": "teach" });
                let answer = Answer { key: key.clone(), body };
                let (status, body) = post(&client, &at, &answer).await.expect("the server answers");
                assert_eq!(status, 201, "{key}: {body}");
                sent.lock().unwrap().acknowledged.insert(key);
            }
        }));
    }
    let deadline = Instant::now() + Duration::from_secs(120);
    while sent.lock().unwrap().acknowledged.len() < ACKNOWLEDGED_BEFORE_KILL / 2 {
        assert!(Instant::now() < deadline, "the server acknowledged too few answers");
        tokio::time::sleep(Duration::from_millis(5)).await;
    }
    let before = sent.lock().unwrap().acknowledged.clone();
    let backup = dir.path().join("pathwise-backup.db");
    let data = dir.path().join("data");
    let (data, backup_arg) = (data.to_str().unwrap().to_string(), backup.to_str().unwrap().to_string());
    let made = tokio::task::block_in_place(|| pathwise(dir.path(), &["--data-dir", &data, "backup", &backup_arg]));
    assert!(made.status.success(), "backup failed: {}", String::from_utf8_lossy(&made.stderr));
    let report: Value = serde_json::from_slice(&made.stdout).expect("the backup reports what it copied");
    assert!(report["pages"].as_i64() > Some(0), "{report}");
    let during = sent.lock().unwrap().acknowledged.len();
    stop.store(true, std::sync::atomic::Ordering::Relaxed);
    for client in clients {
        client.await.unwrap();
    }
    let total = sent.lock().unwrap().acknowledged.len();
    assert!(during > before.len(), "answers were being acknowledged while the backup ran");

    // Refused, nothing written: a destination that exists, one that cannot be written, and
    // a PostgreSQL server.
    let size = std::fs::metadata(&backup).unwrap().len();
    let again = pathwise(dir.path(), &["--data-dir", &data, "backup", &backup_arg]);
    assert!(!again.status.success());
    assert!(String::from_utf8_lossy(&again.stderr).contains("exists already"), "{again:?}");
    assert_eq!(std::fs::metadata(&backup).unwrap().len(), size, "the backup was overwritten");
    let nowhere = dir.path().join("no-such-dir/backup.db");
    let unwritable = pathwise(dir.path(), &["--data-dir", &data, "backup", nowhere.to_str().unwrap()]);
    assert!(!unwritable.status.success());
    assert!(String::from_utf8_lossy(&unwritable.stderr).contains("cannot write"), "{unwritable:?}");
    assert!(!dir.path().join("no-such-dir").exists());
    let postgres = pathwise(dir.path(), &["--database-url", "postgres://nobody@127.0.0.1:1/none", "backup", "x.db"]);
    assert!(!postgres.status.success());
    assert!(String::from_utf8_lossy(&postgres.stderr).contains("pg_dump"), "{postgres:?}");
    assert!(!dir.path().join("x.db").exists());
    let leftovers: Vec<_> = std::fs::read_dir(dir.path())
        .unwrap()
        .filter_map(|e| e.ok())
        .filter(|e| e.file_name().to_string_lossy().ends_with(".partial"))
        .collect();
    assert!(leftovers.is_empty(), "half-written files: {leftovers:?}");

    // Restored into a new data directory and served: every answer acknowledged before the
    // backup began is there, once.
    let restored = tempfile::tempdir().unwrap();
    let restored_data = restored.path().join("data");
    let put = pathwise(restored.path(), &["--data-dir", restored_data.to_str().unwrap(), "restore", &backup_arg]);
    assert!(put.status.success(), "restore failed: {}", String::from_utf8_lossy(&put.stderr));
    drop(server);
    let server = serve(restored.path(), None);
    let stored = stored_questions(&client, &server.at, &map).await;
    let unique: HashSet<&String> = stored.iter().collect();
    assert_eq!(unique.len(), stored.len(), "an answer stored twice");
    let lost: Vec<&String> = before.iter().filter(|k| !unique.contains(k)).collect();
    assert!(lost.is_empty(), "answers acknowledged before the backup are missing from it: {lost:?}");
    println!(
        "backup under load: {} answers acknowledged before it began, {} while it ran, {} in the backup, {total} in all",
        before.len(),
        during - before.len(),
        stored.len()
    );
}

/// `pathwise restore` with a server up on the same database is refused, naming the server's
/// process, and changes nothing: the server goes on serving every answer. A database file
/// replaced under a running server by other means makes it unready and its writes a 503
/// that says to restart it, never a 500; restarted, it serves the file that is there.
#[tokio::test(flavor = "multi_thread")]
async fn a_restore_is_refused_while_a_server_has_the_database_open() {
    let dir = tempfile::tempdir().unwrap();
    let client = reqwest::Client::builder().timeout(Duration::from_secs(20)).build().unwrap();
    let server = serve(dir.path(), None);
    let (map, nodes) = map_of_thirty(&client, &server.at).await;
    let answer = |key: &str| Answer {
        key: key.to_string(),
        body: json!({ "node_id": nodes[1], "mind_map_id": map, "question_text": key, "quality": 4,
            "response_type": "teach" }),
    };
    assert_eq!(post(&client, &server.at, &answer("before-backup")).await.unwrap().0, 201);
    let data = dir.path().join("data");
    let backup = dir.path().join("backup.db");
    let (data_arg, backup_arg) = (data.to_str().unwrap().to_string(), backup.to_str().unwrap().to_string());
    let made = tokio::task::block_in_place(|| pathwise(dir.path(), &["--data-dir", &data_arg, "backup", &backup_arg]));
    assert!(made.status.success(), "backup failed: {}", String::from_utf8_lossy(&made.stderr));
    assert_eq!(post(&client, &server.at, &answer("after-backup")).await.unwrap().0, 201);

    let refused =
        tokio::task::block_in_place(|| pathwise(dir.path(), &["--data-dir", &data_arg, "restore", &backup_arg]));
    let said = String::from_utf8_lossy(&refused.stderr);
    assert!(!refused.status.success(), "a restore under a running server: {said}");
    let pid = server.child.0.id();
    assert!(said.contains(&format!("pid {pid} (pathwise serve")) && said.contains("stop it first"), "{said}");
    assert_eq!(post(&client, &server.at, &answer("after-refusal")).await.unwrap().0, 201, "the server goes on");
    let stored = stored_questions(&client, &server.at, &map).await;
    assert_eq!(stored.len(), 3, "nothing lost: {stored:?}");
    let ready = client.get(format!("{}/readyz", server.at.base)).send().await.unwrap();
    assert_eq!(ready.status(), 200);

    // Replaced by hand (a copy renamed into place) under the running server.
    let copy = dir.path().join("data/copy.db");
    std::fs::copy(&backup, &copy).unwrap();
    std::fs::rename(&copy, data.join("pathwise.db")).unwrap();
    let ready = client.get(format!("{}/readyz", server.at.base)).send().await.unwrap();
    assert_eq!(ready.status(), 503);
    let readiness: Value = ready.json().await.unwrap();
    assert!(readiness["store"].as_str().unwrap().contains("was replaced"), "{readiness}");
    let (status, body) = post(&client, &server.at, &answer("after-replacement")).await.unwrap();
    assert_eq!((status, body["error"]["code"].as_str()), (503, Some("database_replaced")), "{body}");
    assert!(body["error"]["message"].as_str().unwrap().contains("restart the server"), "{body}");

    // Stopped, the restore goes through; restarted, the server serves the backup.
    drop(server);
    let put = tokio::task::block_in_place(|| pathwise(dir.path(), &["--data-dir", &data_arg, "restore", &backup_arg]));
    assert!(put.status.success(), "restore failed: {}", String::from_utf8_lossy(&put.stderr));
    let server = serve(dir.path(), None);
    assert_eq!(stored_questions(&client, &server.at, &map).await, vec!["before-backup".to_string()]);
}
