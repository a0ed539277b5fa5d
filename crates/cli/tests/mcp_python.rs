//! Pathwise's MCP server as another SDK sees it: `mcp_client.py` (the official Python SDK,
//! `mcp` from PyPI) over stdio against `pathwise mcp` and over streamable HTTP against
//! `pathwise serve`'s `/mcp`. The Python is `PATHWISE_MCP_PYTHON` (a venv's python with
//! `mcp` installed; `scripts/test` prepares one); without it these tests say so and pass.
//!
//! No client is ever shown an answer key, so the client asks the harness's [`KeyOracle`]
//! for the key of the drill or exam question it was offered, as a learner who knows the
//! answer would type it.

mod common;

use common::{drain, lines, ChildGuard, TOOLS};

use serde_json::Value;
use std::io::{BufRead, BufReader, Write};
use std::net::TcpListener;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

const BIN: &str = env!("CARGO_BIN_EXE_pathwise");
/// Generous: the first start of a debug build migrates a fresh database.
const START_TIMEOUT: Duration = Duration::from_secs(60);
const RUN_TIMEOUT: Duration = Duration::from_secs(240);

// ---------------------------------------------------------------------------------------
// Harness
// ---------------------------------------------------------------------------------------

/// The Python to run the client with, or none (with a note) when it is not configured.
fn python() -> Option<PathBuf> {
    match std::env::var_os("PATHWISE_MCP_PYTHON").filter(|p| !p.is_empty()) {
        Some(python) => Some(PathBuf::from(python)),
        None => {
            eprintln!(
                "PATHWISE_MCP_PYTHON is not set; skipping the Python SDK client test \
                 (scripts/test prepares a venv with `mcp` and sets it)"
            );
            None
        }
    }
}

fn client_script() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests").join("mcp_client.py")
}

/// A command run in `dir` (so that no `./pathwise.toml` of the caller's is read) with none
/// of the caller's `PATHWISE_*` variables.
fn command(program: &Path, dir: &Path, args: &[&str]) -> Command {
    let mut command = Command::new(program);
    command.args(args).current_dir(dir);
    for (name, _) in std::env::vars() {
        if name.starts_with("PATHWISE_") {
            command.env_remove(name);
        }
    }
    command.stdin(Stdio::null()).stdout(Stdio::piped()).stderr(Stdio::piped());
    command
}

/// Run the Python client to its end; what it printed, after checking it succeeded.
fn run_client(python: &Path, dir: &Path, args: &[&str], server_log: impl Fn() -> String) -> Value {
    let script = client_script();
    let mut all = vec![script.to_str().expect("a UTF-8 path")];
    all.extend_from_slice(args);
    let mut child = ChildGuard(command(python, dir, &all).spawn().expect("start the Python client"));
    let (stdout, stdout_reader) = drain(child.0.stdout.take().unwrap());
    let (stderr, stderr_reader) = drain(child.0.stderr.take().unwrap());
    let deadline = Instant::now() + RUN_TIMEOUT;
    let status = loop {
        if let Some(status) = child.0.try_wait().expect("wait") {
            break status;
        }
        assert!(
            Instant::now() < deadline,
            "mcp_client.py {args:?} did not finish in {RUN_TIMEOUT:?}\nstdout: {}\nstderr: {}\nserver log: {}",
            stdout.lock().unwrap(),
            stderr.lock().unwrap(),
            server_log()
        );
        std::thread::sleep(Duration::from_millis(20));
    };
    stdout_reader.join().expect("stdout reader");
    stderr_reader.join().expect("stderr reader");
    let (stdout, stderr) = (stdout.lock().unwrap().clone(), stderr.lock().unwrap().clone());
    assert!(
        status.success(),
        "mcp_client.py {args:?}: exit {status}\nstdout: {stdout}\nstderr: {stderr}\nserver log: {}",
        server_log()
    );
    let last = stdout.lines().last().unwrap_or_default();
    serde_json::from_str(last).unwrap_or_else(|e| panic!("mcp_client.py printed no JSON ({e}): {stdout}"))
}

/// Answer keys, over HTTP on loopback, for the client to answer right: `GET /drill/{id}`
/// regenerates the item the server offered under that drill id (read from the server's
/// SQLite database) and answers its key; `GET /exam/{course}/{question}` answers the index
/// of a shipped course's exam question's right option. A 404 for anything else.
struct KeyOracle {
    url: String,
}

impl KeyOracle {
    fn start(data_dir: &Path) -> KeyOracle {
        let listener = TcpListener::bind("127.0.0.1:0").expect("bind the key oracle");
        let url = format!("http://{}", listener.local_addr().unwrap());
        let database = data_dir.join("pathwise.db");
        std::thread::spawn(move || {
            let runtime = tokio::runtime::Builder::new_current_thread().enable_all().build().unwrap();
            let library = pathwise_items::Library::builtin();
            let courses = pathwise_course::builtin_courses(&library);
            for stream in listener.incoming() {
                let Ok(mut stream) = stream else { continue };
                let mut request = String::new();
                if BufReader::new(&stream).read_line(&mut request).is_err() {
                    continue;
                }
                let path = request.split_whitespace().nth(1).unwrap_or_default().to_string();
                let answer = runtime.block_on(Self::answer(&database, &courses, &path));
                let (status, body) = match answer {
                    Some(key) => ("200 OK", key),
                    None => ("404 Not Found", format!("no key for {path}")),
                };
                let _ = write!(
                    stream,
                    "HTTP/1.1 {status}\r\ncontent-type: text/plain\r\ncontent-length: {}\r\nconnection: close\r\n\r\n{body}",
                    body.len()
                );
            }
        });
        KeyOracle { url }
    }

    async fn answer(database: &Path, courses: &[pathwise_course::Course], path: &str) -> Option<String> {
        let parts: Vec<&str> = path.trim_start_matches('/').split('/').collect();
        match parts.as_slice() {
            ["drill", drill_id] => {
                let options = sqlx::sqlite::SqliteConnectOptions::new().filename(database).read_only(true);
                let mut connection = sqlx::ConnectOptions::connect(&options).await.ok()?;
                let (course_id, item_ref): (String, Option<String>) = sqlx::query_as(
                    "SELECT t.course_id, o.item_ref FROM drill_offers o \
                     JOIN tutor_threads t ON t.id = o.thread_id WHERE o.id = ?",
                )
                .bind(drill_id)
                .fetch_optional(&mut connection)
                .await
                .ok()??;
                let course = courses.iter().find(|c| c.id() == course_id)?;
                Some(course.library().regenerate(&item_ref?).ok()?.key.answer)
            }
            ["exam", course_id, question] => {
                let course = courses.iter().find(|c| c.id() == *course_id)?;
                Some(course.question(question)?.correct.to_string())
            }
            _ => None,
        }
    }
}

/// What the client saw, as both transports must show it.
#[track_caller]
fn check(seen: &Value) {
    let tools: Vec<&str> = seen["tools"].as_array().expect("tools").iter().map(|t| t.as_str().unwrap()).collect();
    let mut expected = TOOLS.to_vec();
    expected.sort_unstable();
    assert_eq!(tools, expected, "{seen}");
    assert_eq!(
        seen["prompts"],
        serde_json::json!([
            "curriculum_planning",
            "diagnostic",
            "review",
            "run_evaluation",
            "teaching",
            "tutor_course"
        ])
    );
    assert_eq!(seen["planning_prompt_mentions_decomposition"], true, "{seen}");

    // The maps, each shipped course with the learner's snapshot of it, and open sessions.
    let resources: Vec<&str> =
        seen["resources"].as_array().expect("resources").iter().filter_map(Value::as_str).collect();
    assert!(resources.contains(&"pathwise://mind-maps"), "{seen}");
    assert_eq!(resources.iter().filter(|r| r.starts_with("pathwise://mind-maps/")).count(), 1, "{seen}");
    assert!(resources.contains(&"pathwise://courses/MATH-FOUNDATIONS"), "{seen}");
    assert!(resources.contains(&"pathwise://courses/MATH-FOUNDATIONS/snapshot"), "{seen}");
    assert_eq!(
        seen["resource_templates"],
        serde_json::json!([
            "pathwise://courses/{course_id}",
            "pathwise://courses/{course_id}/passages/{passage_id}",
            "pathwise://courses/{course_id}/snapshot",
            "pathwise://mind-maps/{mind_map_id}",
            "pathwise://sessions/{session_id}/transcript"
        ]),
        "{seen}"
    );
    assert_eq!(seen["resource_nodes"], 3, "{seen}");

    assert_eq!(seen["graded"]["correct"], true, "{seen}");
    assert_eq!(seen["graded"]["graded_by"], "exact", "{seen}");
    assert!(seen["next_review_at"].is_string(), "no review scheduled: {seen}");

    let mistyped = seen["mistyped_error"].as_str().unwrap_or_default();
    assert!(mistyped.contains("quality") && mistyped.contains("five"), "{mistyped}");
    let missing = seen["missing_error"].as_str().unwrap_or_default();
    assert!(missing.contains("parent_node_id"), "{missing}");
    let unknown = seen["unknown_error"].as_str().unwrap_or_default();
    assert!(unknown.contains("no_such_tool") && unknown.contains("mind_map_create"), "{unknown}");

    // An evaluation to its score, item by item, and a tutor thread to a graded drill.
    let evaluation = &seen["evaluation"];
    assert_eq!(evaluation["answered"], evaluation["item_count"], "{seen}");
    assert_eq!(evaluation["items_answered"], evaluation["item_count"], "{seen}");
    assert_eq!(evaluation["has_score"], true, "{seen}");
    assert!(evaluation["transcript_messages"].as_i64() > evaluation["answered"].as_i64(), "{seen}");
    // Right drills in a row open the unit's check; a wrong exam answer locks the question.
    let tutor = &seen["tutor"];
    assert_eq!(tutor["streak"], tutor["snapshot_streak"], "{seen}");
    assert!(tutor["streak"].as_i64() >= Some(1), "{seen}");
    assert_eq!(tutor["replayed"], true, "a drill is graded once: {seen}");
    assert_eq!(tutor["exam_card_shows_key"], false, "{seen}");
    assert_eq!(tutor["wrong_answer_correct"], false, "{seen}");
    let locked = tutor["second_answer_error"].as_str().unwrap_or_default();
    assert!(locked.contains("locked"), "{seen}");
    assert_eq!(tutor["memo"], true, "{seen}");
}

// ---------------------------------------------------------------------------------------
// Tests
// ---------------------------------------------------------------------------------------

#[test]
fn the_python_sdk_drives_pathwise_mcp_over_stdio() {
    let Some(python) = python() else { return };
    let tmp = tempfile::tempdir().unwrap();
    let data = tmp.path().join("data");
    let data = data.to_str().expect("a UTF-8 temp path");
    let oracle = KeyOracle::start(Path::new(data));
    let seen = run_client(&python, tmp.path(), &["stdio", BIN, data, &oracle.url], String::new);
    check(&seen);
}

#[test]
fn the_python_sdk_drives_pathwise_serve_over_streamable_http() {
    let Some(python) = python() else { return };
    let tmp = tempfile::tempdir().unwrap();
    let data = tmp.path().join("data");
    let data = data.to_str().expect("a UTF-8 temp path");
    let args = ["--data-dir", data, "serve", "--port", "0"];
    let mut server = ChildGuard(command(Path::new(BIN), tmp.path(), &args).spawn().expect("start pathwise serve"));
    let (server_log, _) = drain(server.0.stderr.take().unwrap());
    let lines = lines(&mut server.0);
    // The banner, up to the line naming the MCP endpoint.
    let deadline = Instant::now() + START_TIMEOUT;
    let mut banner = Vec::new();
    let endpoint = loop {
        match lines.recv_timeout(deadline.saturating_duration_since(Instant::now())) {
            Ok(line) => {
                let endpoint = line.strip_prefix("MCP (streamable HTTP): ").map(|u| u.trim().to_string());
                banner.push(line);
                if let Some(endpoint) = endpoint {
                    break endpoint;
                }
            }
            Err(_) => panic!(
                "pathwise serve printed no MCP endpoint in time\nstdout: {}\nstderr: {}",
                banner.join("\n"),
                server_log.lock().unwrap()
            ),
        }
    };
    let base = banner
        .iter()
        .find_map(|l| l.split_once(" is listening on ").map(|(_, rest)| rest.split(' ').next().unwrap().to_string()))
        .unwrap_or_else(|| panic!("no listening line in {banner:?}"));
    let token = banner
        .iter()
        .find_map(|l| l.strip_prefix("Local learner token: "))
        .map(|t| t.trim().to_string())
        .unwrap_or_else(|| panic!("no local token in {banner:?}"));
    assert_eq!(endpoint, format!("{base}/mcp"), "{banner:?}");

    let oracle = KeyOracle::start(Path::new(data));
    let seen = run_client(&python, tmp.path(), &["http", &endpoint, &token, &oracle.url], || {
        server_log.lock().unwrap().clone()
    });
    check(&seen);
    drop(server);
}
