//! The `pathwise` binary as a user runs it: `serve`, `migrate`, `import-map`,
//! `create-learner` and `bench`, each in a temporary directory of its own. Every server a
//! test starts is killed when the test ends, whether it passed or not.

mod common;

use common::{drain, lines, ChildGuard};

use serde_json::{json, Value};
use std::path::{Path, PathBuf};
use std::process::{Command, ExitStatus, Stdio};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

const BIN: &str = env!("CARGO_BIN_EXE_pathwise");
/// Generous: the first start of a debug build migrates a fresh database.
const START_TIMEOUT: Duration = Duration::from_secs(60);
const RUN_TIMEOUT: Duration = Duration::from_secs(180);

// ---------------------------------------------------------------------------------------
// Harness
// ---------------------------------------------------------------------------------------

/// The binary, run in `dir` (so that no `./pathwise.toml` of the caller's is read) with
/// none of the caller's `PATHWISE_*` variables, and quiet logs.
fn pathwise(dir: &Path, args: &[&str], env: &[(&str, &str)]) -> Command {
    let mut command = Command::new(BIN);
    command.args(args).current_dir(dir);
    for (name, _) in std::env::vars() {
        if name.starts_with("PATHWISE_") {
            command.env_remove(name);
        }
    }
    command.env("PATHWISE_LOG", "warn");
    for (name, value) in env {
        command.env(name, value);
    }
    command.stdin(Stdio::null()).stdout(Stdio::piped()).stderr(Stdio::piped());
    command
}

struct Finished {
    status: ExitStatus,
    stdout: String,
    stderr: String,
}

impl Finished {
    #[track_caller]
    fn success(self) -> Self {
        assert!(self.status.success(), "exit {}\nstdout: {}\nstderr: {}", self.status, self.stdout, self.stderr);
        self
    }

    #[track_caller]
    fn failure(self) -> Self {
        assert!(!self.status.success(), "expected a failure\nstdout: {}\nstderr: {}", self.stdout, self.stderr);
        self
    }
}

/// Run a command that ends by itself, within a time limit.
fn run(dir: &Path, args: &[&str], env: &[(&str, &str)]) -> Finished {
    let mut child = ChildGuard(pathwise(dir, args, env).spawn().expect("start pathwise"));
    let (stdout, stdout_reader) = drain(child.0.stdout.take().unwrap());
    let (stderr, stderr_reader) = drain(child.0.stderr.take().unwrap());
    let deadline = Instant::now() + RUN_TIMEOUT;
    let status = loop {
        if let Some(status) = child.0.try_wait().expect("wait") {
            break status;
        }
        assert!(Instant::now() < deadline, "pathwise {args:?} did not finish in {RUN_TIMEOUT:?}");
        std::thread::sleep(Duration::from_millis(20));
    };
    // The pipes close when the process exits: read them to the end.
    stdout_reader.join().expect("stdout reader");
    stderr_reader.join().expect("stderr reader");
    let stdout = stdout.lock().unwrap().clone();
    let stderr = stderr.lock().unwrap().clone();
    Finished { status, stdout, stderr }
}

/// A running `pathwise serve`.
struct Server {
    child: ChildGuard,
    /// The URL it printed.
    url: String,
    /// Where to reach it (the printed URL, with 127.0.0.1 for an unspecified address).
    base: String,
    /// The local learner's token, when it printed one.
    token: Option<String>,
    banner: Vec<String>,
    stderr: Arc<Mutex<String>>,
}

impl Server {
    /// Start `pathwise serve ...` and read its banner up to the "API reference" line.
    fn start(dir: &Path, args: &[&str], env: &[(&str, &str)]) -> Server {
        let mut all = vec!["serve"];
        all.extend_from_slice(args);
        let mut child = ChildGuard(pathwise(dir, &all, env).spawn().expect("start pathwise serve"));
        let (stderr, _) = drain(child.0.stderr.take().unwrap());
        let lines = lines(&mut child.0);
        let deadline = Instant::now() + START_TIMEOUT;
        let mut banner = Vec::new();
        loop {
            let left = deadline.saturating_duration_since(Instant::now());
            match lines.recv_timeout(left) {
                Ok(line) => {
                    let done = line.starts_with("API reference:");
                    banner.push(line);
                    if done {
                        break;
                    }
                }
                Err(_) => panic!(
                    "pathwise serve {args:?} printed no complete banner in time\nstdout: {}\nstderr: {}",
                    banner.join("\n"),
                    stderr.lock().unwrap()
                ),
            }
        }
        let url = banner
            .iter()
            .find_map(|l| {
                l.split_once(" is listening on ").map(|(_, rest)| rest.split(' ').next().unwrap().to_string())
            })
            .unwrap_or_else(|| panic!("no listening line in {banner:?}"));
        let base = url.replace("0.0.0.0", "127.0.0.1");
        let token = banner.iter().find_map(|l| l.strip_prefix("Local learner token: ")).map(|t| t.trim().to_string());
        Server { child, url, base, token, banner, stderr }
    }

    fn token(&self) -> &str {
        self.token.as_deref().unwrap_or_else(|| panic!("no local token in {:?}", self.banner))
    }

    async fn get(&self, token: &str, path: &str) -> (u16, Value) {
        let response = reqwest::Client::new()
            .get(format!("{}{path}", self.base))
            .bearer_auth(token)
            .send()
            .await
            .unwrap_or_else(|e| panic!("GET {path}: {e}"));
        let status = response.status().as_u16();
        let body = response.json().await.unwrap_or(Value::Null);
        assert!(status < 500, "GET {path} answered {status}: {body}\nserver log: {}", self.stderr.lock().unwrap());
        (status, body)
    }

    async fn post(&self, token: &str, path: &str, body: Value) -> (u16, Value) {
        let response = reqwest::Client::new()
            .post(format!("{}{path}", self.base))
            .bearer_auth(token)
            .json(&body)
            .send()
            .await
            .unwrap_or_else(|e| panic!("POST {path}: {e}"));
        let status = response.status().as_u16();
        (status, response.json().await.unwrap_or(Value::Null))
    }

    /// Stop the server and wait until it has exited.
    fn stop(mut self) {
        let _ = self.child.0.kill();
        let _ = self.child.0.wait();
    }
}

fn data_dir_arg(dir: &Path) -> String {
    dir.to_str().expect("a UTF-8 temp path").to_string()
}

fn write(dir: &Path, name: &str, contents: &str) -> PathBuf {
    let path = dir.join(name);
    std::fs::write(&path, contents).expect("write a test file");
    path
}

/// A decomposition file: Rust -> Ownership -> Borrowing, Rust -> Traits.
fn rust_map_file() -> String {
    serde_json::to_string_pretty(&json!({
        "topic": "Rust",
        "goal": null,
        "decomposition": {
            "root": "Rust",
            "nodes": [
                { "label": "Rust", "effort_minutes": 10 },
                { "label": "Ownership", "effort_minutes": 30, "description": "Who frees what" },
                { "label": "Borrowing", "effort_minutes": 30 },
                { "label": "Traits", "effort_minutes": 20 },
            ],
            "edges": [
                { "parent": "Rust", "child": "Ownership" },
                { "parent": "Ownership", "child": "Borrowing" },
                { "parent": "Rust", "child": "Traits" },
            ],
        },
    }))
    .unwrap()
}

// ---------------------------------------------------------------------------------------
// serve
// ---------------------------------------------------------------------------------------

#[tokio::test]
async fn serve_on_loopback_prints_a_local_token_that_works_and_survives_a_restart() {
    let tmp = tempfile::tempdir().unwrap();
    let data = tmp.path().join("data");
    let data_arg = data_dir_arg(&data);
    let server = Server::start(tmp.path(), &["--port", "0", "--data-dir", &data_arg], &[]);
    assert!(server.url.starts_with("http://127.0.0.1:"), "{}", server.url);
    assert_ne!(server.url, "http://127.0.0.1:0", "port 0 picks a free port and prints it");
    assert!(server.banner.iter().any(|l| l.contains("(sqlite database)")), "{:?}", server.banner);
    let token = server.token().to_string();
    assert!(token.starts_with("pw_") && token.len() > 40, "{token}");

    let (status, maps) = server.get(&token, "/api/mind-maps").await;
    assert_eq!(status, 200, "{maps}");
    assert_eq!(maps["total"], 0);
    let (status, me) = server.get(&token, "/api/me").await;
    assert_eq!((status, me["is_local"].as_bool()), (200, Some(true)), "{me}");
    let (status, error) = server.get("pw_wrong", "/api/mind-maps").await;
    assert_eq!((status, error["error"]["code"].as_str()), (401, Some("unauthorized")));

    // The token is kept in the data directory, readable by its owner only.
    let saved = std::fs::read_to_string(data.join("local-token")).expect("the local token file");
    assert_eq!(saved.trim(), token);
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        let mode = std::fs::metadata(data.join("local-token")).unwrap().permissions().mode();
        assert_eq!(mode & 0o077, 0, "the token file is private (mode {mode:o})");
        // So is everything else in the data directory (the database and its WAL hold every
        // learner's answers), and the directory itself.
        let dir_mode = std::fs::metadata(&data).unwrap().permissions().mode() & 0o777;
        assert_eq!(dir_mode, 0o700, "the data directory is its owner's alone");
        for entry in std::fs::read_dir(&data).unwrap() {
            let path = entry.unwrap().path();
            let mode = std::fs::metadata(&path).unwrap().permissions().mode() & 0o777;
            assert_eq!(mode, 0o600, "{} is private", path.display());
        }
    }

    // The workspace signs the local learner in through the one-time link serve printed, once.
    let link = server.banner.iter().find_map(|l| l.strip_prefix("Workspace: ")).expect("a sign-in link");
    let code = link.split_whitespace().next().unwrap().split_once("?signin=").expect("a link with a code").1;
    let (status, session) = server.post("", "/api/workspace/signin", serde_json::json!({ "code": code })).await;
    assert_eq!((status, session["token"].as_str()), (200, Some(token.as_str())), "{session}");
    let (status, again) = server.post("", "/api/workspace/signin", serde_json::json!({ "code": code })).await;
    assert_eq!((status, again["error"]["code"].as_str()), (401, Some("signin_link_used")), "{again}");
    server.stop();

    // A restart with the same data directory: the same learner, and a token that works.
    let again = Server::start(tmp.path(), &["--port", "0", "--data-dir", &data_arg], &[]);
    let (status, me_again) = again.get(again.token(), "/api/me").await;
    assert_eq!(status, 200);
    assert_eq!(me_again["id"], me["id"], "the local learner survives a restart");
    let (status, _) = again.get(&token, "/api/mind-maps").await;
    assert_eq!(status, 200, "the first token still works after a restart");
    again.stop();

    // A lost token file: a new token is minted for the same learner.
    std::fs::remove_file(data.join("local-token")).unwrap();
    let third = Server::start(tmp.path(), &["--port", "0", "--data-dir", &data_arg], &[]);
    assert_ne!(third.token(), token);
    let (status, me_third) = third.get(third.token(), "/api/me").await;
    assert_eq!((status, &me_third["id"]), (200, &me["id"]));
}

/// With JSON logs the banner is log events like every other line, one JSON object each, and
/// holds no secret: neither the local learner's token nor a sign-in code, only where the
/// token file is.
#[tokio::test]
async fn serve_with_json_logs_writes_only_json_and_never_the_token() {
    let tmp = tempfile::tempdir().unwrap();
    let data = tmp.path().join("data");
    let data_arg = data_dir_arg(&data);
    let env = [("PATHWISE_LOG_FORMAT", "json"), ("PATHWISE_LOG", "info")];
    let mut child =
        ChildGuard(pathwise(tmp.path(), &["serve", "--port", "0", "--data-dir", &data_arg], &env).spawn().unwrap());
    let (stdout, _) = drain(child.0.stdout.take().unwrap());
    let (stderr, _) = drain(child.0.stderr.take().unwrap());
    let deadline = Instant::now() + START_TIMEOUT;
    while !stderr.lock().unwrap().contains("API reference") {
        assert!(Instant::now() < deadline, "no banner in time: {}", stderr.lock().unwrap());
        std::thread::sleep(Duration::from_millis(50));
    }
    let _ = child.0.kill();
    let _ = child.0.wait();
    let token = std::fs::read_to_string(data.join("local-token")).expect("the token file").trim().to_string();
    let (stdout, stderr) = (stdout.lock().unwrap().clone(), stderr.lock().unwrap().clone());
    assert_eq!(stdout.trim(), "", "nothing outside the log stream");
    for line in stderr.lines().filter(|l| !l.trim().is_empty()) {
        let event: Value = serde_json::from_str(line).unwrap_or_else(|e| panic!("not JSON ({e}): {line}"));
        assert!(event["fields"]["message"].is_string(), "{line}");
    }
    assert!(!stderr.contains(&token), "the token is never logged: {stderr}");
    assert!(!stderr.contains("signin="), "nor a sign-in code: {stderr}");
    assert!(stderr.contains("Local learner token: in ") && stderr.contains("local-token"), "{stderr}");
}

#[tokio::test]
async fn serve_on_all_interfaces_needs_an_operator_token() {
    let tmp = tempfile::tempdir().unwrap();
    let data_arg = data_dir_arg(&tmp.path().join("data"));
    let refused =
        run(tmp.path(), &["serve", "--host", "0.0.0.0", "--port", "0", "--data-dir", &data_arg], &[]).failure();
    assert!(refused.stderr.contains("PATHWISE_OPERATOR_TOKEN"), "stderr: {}", refused.stderr);
    assert!(refused.stderr.contains("0.0.0.0"), "stderr: {}", refused.stderr);
    assert!(!refused.stdout.contains("listening"), "stdout: {}", refused.stdout);
    // A blank token is no token.
    let blank = run(
        tmp.path(),
        &["serve", "--host", "0.0.0.0", "--port", "0", "--data-dir", &data_arg],
        &[("PATHWISE_OPERATOR_TOKEN", "   ")],
    )
    .failure();
    assert!(blank.stderr.contains("PATHWISE_OPERATOR_TOKEN"), "stderr: {}", blank.stderr);

    let server = Server::start(
        tmp.path(),
        &["--host", "0.0.0.0", "--port", "0", "--data-dir", &data_arg],
        &[("PATHWISE_OPERATOR_TOKEN", "the-operator")],
    );
    assert!(server.url.starts_with("http://0.0.0.0:"), "{}", server.url);
    assert!(server.token.is_none(), "no local learner off loopback: {:?}", server.banner);
    assert!(server.banner.iter().any(|l| l.contains("/api/learners")), "{:?}", server.banner);
    let (status, created) = server.post("the-operator", "/api/learners", json!({ "name": "Ada" })).await;
    assert_eq!(status, 201, "{created}");
    let token = created["token"].as_str().unwrap();
    let (status, me) = server.get(token, "/api/me").await;
    assert_eq!((status, me["name"].as_str()), (200, Some("Ada")));
    let (status, _) = server.post(token, "/api/learners", json!({ "name": "Eve" })).await;
    assert_eq!(status, 401, "a learner's token does not create learners");
}

#[tokio::test]
async fn serve_reads_the_config_file_and_the_environment() {
    let tmp = tempfile::tempdir().unwrap();

    // A config file given with --config.
    let from_file = tmp.path().join("from-config");
    let config = write(
        tmp.path(),
        "custom.toml",
        &format!("name = \"tutor-under-test\"\nport = 0\ndata_dir = {:?}\n", data_dir_arg(&from_file)),
    );
    let server = Server::start(tmp.path(), &["--config", config.to_str().unwrap()], &[]);
    assert!(server.banner[0].starts_with("tutor-under-test is listening on"), "{:?}", server.banner);
    let saved = std::fs::read_to_string(from_file.join("local-token")).expect("the token in the configured data dir");
    assert_eq!(saved.trim(), server.token());
    assert!(from_file.join("pathwise.db").exists());
    let (status, _) = server.get(server.token(), "/api/mind-maps").await;
    assert_eq!(status, 200);
    server.stop();

    // PATHWISE_DATA_DIR and PATHWISE_PORT.
    let from_env = tmp.path().join("from-env");
    let server =
        Server::start(tmp.path(), &[], &[("PATHWISE_DATA_DIR", from_env.to_str().unwrap()), ("PATHWISE_PORT", "0")]);
    let saved = std::fs::read_to_string(from_env.join("local-token")).expect("the token in PATHWISE_DATA_DIR");
    assert_eq!(saved.trim(), server.token());
    let (status, _) = server.get(server.token(), "/api/mind-maps").await;
    assert_eq!(status, 200);
    server.stop();

    // Flags win over the environment, which wins over the file; PATHWISE_CONFIG names the file.
    let from_flag = tmp.path().join("from-flag");
    let server = Server::start(
        tmp.path(),
        &["--data-dir", from_flag.to_str().unwrap()],
        &[("PATHWISE_CONFIG", config.to_str().unwrap()), ("PATHWISE_NAME", "env-name")],
    );
    assert!(server.banner[0].starts_with("env-name is listening on"), "{:?}", server.banner);
    assert!(from_flag.join("local-token").exists(), "--data-dir wins over the file's data_dir");
    server.stop();

    // A config file that does not exist, or that has a setting Pathwise does not know.
    let missing = run(tmp.path(), &["serve", "--config", "nowhere.toml"], &[]).failure();
    assert!(missing.stderr.contains("nowhere.toml"), "stderr: {}", missing.stderr);
    let typo = write(tmp.path(), "typo.toml", "port = 0\nprot = 8080\n");
    let typo = run(tmp.path(), &["serve", "--config", typo.to_str().unwrap()], &[]).failure();
    assert!(typo.stderr.contains("prot"), "stderr: {}", typo.stderr);
}

#[tokio::test]
async fn serve_adds_the_configured_course_packs_and_refuses_a_broken_one() {
    let tmp = tempfile::tempdir().unwrap();
    let pack = r#"
name = "team-quizzes"

[[assessments]]
assessment_id = "TEAM-ADDITION-3"
title = "Three additions"
time_limit_minutes = 5
selection = "fixed"

[[assessments.sections]]
section_id = "add"
skill_domain = "Addition"
item_count = 3
skill_blueprints = ["MATH.ARITH.ADD.2DIGIT"]
difficulty_distribution = { easy = 1, medium = 1, hard = 1 }
"#;
    write(tmp.path(), "team.toml", pack);
    let config = write(tmp.path(), "pathwise.toml", "port = 0\nitem_packs = [\"team.toml\"]\n");
    let server = Server::start(tmp.path(), &["--config", config.to_str().unwrap()], &[]);
    assert!(server.banner.iter().any(|l| l == "Item pack team.toml: 0 skills, 1 assessments"), "{:?}", server.banner);
    assert!(server.banner.iter().any(|l| l.starts_with("Code sandbox: ")), "{:?}", server.banner);
    let body = json!({ "session_type": "evaluation", "config": { "blueprint_id": "TEAM-ADDITION-3" } });
    let (status, session) = server.post(server.token(), "/api/session/", body).await;
    assert_eq!(status, 201, "{session}");
    assert_eq!(session["context"]["total_items"], 3, "{session}");
    server.stop();

    // A pack naming a skill nobody defines stops the start, naming the file and the skill.
    write(tmp.path(), "broken.toml", &pack.replace("MATH.ARITH.ADD.2DIGIT", "MATH.ARITH.ADD.9DIGIT"));
    let broken = write(tmp.path(), "broken-config.toml", "port = 0\nitem_packs = [\"broken.toml\"]\n");
    let failed = run(tmp.path(), &["serve", "--config", broken.to_str().unwrap()], &[]).failure();
    assert!(
        failed.stderr.contains("broken.toml") && failed.stderr.contains("MATH.ARITH.ADD.9DIGIT"),
        "{}",
        failed.stderr
    );
    let unknown = write(tmp.path(), "pack-config.toml", "port = 0\nitem_packs = [\"team.yaml\"]\n");
    let failed = run(tmp.path(), &["serve", "--config", unknown.to_str().unwrap()], &[]).failure();
    assert!(failed.stderr.contains(".toml or .json"), "{}", failed.stderr);
}

// ---------------------------------------------------------------------------------------
// migrate, import-map, create-learner
// ---------------------------------------------------------------------------------------

#[test]
fn migrate_creates_the_database_and_exits() {
    let tmp = tempfile::tempdir().unwrap();
    let data = tmp.path().join("data");
    let done = run(tmp.path(), &["migrate", "--data-dir", data.to_str().unwrap()], &[]).success();
    assert!(done.stdout.contains("sqlite database is up to date"), "stdout: {}", done.stdout);
    assert!(data.join("pathwise.db").exists());
    // Again: nothing to do, still fine.
    run(tmp.path(), &["migrate", "--data-dir", data.to_str().unwrap()], &[]).success();
    // An unsupported database URL is named, without credentials.
    let bad = run(tmp.path(), &["migrate", "--database-url", "mysql://user:hunter2@db/x"], &[]).failure();
    assert!(bad.stderr.contains("not supported"), "stderr: {}", bad.stderr);
    assert!(!bad.stderr.contains("hunter2"), "the password leaked: {}", bad.stderr);
}

#[tokio::test]
async fn import_map_plans_a_map_the_local_learner_then_sees() {
    let tmp = tempfile::tempdir().unwrap();
    let data_arg = data_dir_arg(&tmp.path().join("data"));
    let file = write(tmp.path(), "rust.json", &rust_map_file());
    let done = run(tmp.path(), &["import-map", file.to_str().unwrap(), "--data-dir", &data_arg], &[]).success();
    let summary: Value = serde_json::from_str(&done.stdout).unwrap_or_else(|e| panic!("{e}: {}", done.stdout));
    assert_eq!(summary["node_count"], 4);
    assert_eq!(summary["edge_count"], 3);
    assert_eq!(summary["status"], "active");
    let map = summary["mind_map_id"].as_str().unwrap().to_string();

    let server = Server::start(tmp.path(), &["--port", "0", "--data-dir", &data_arg], &[]);
    let (status, listed) = server.get(server.token(), "/api/mind-maps").await;
    assert_eq!(status, 200);
    assert_eq!(listed["total"], 1);
    assert_eq!(listed["items"][0]["id"], map.as_str());
    assert_eq!(listed["items"][0]["title"], "Rust");
    let (status, agg) = server.get(server.token(), &format!("/api/mind-maps/{map}")).await;
    assert_eq!(status, 200);
    assert_eq!(agg["nodes"].as_array().unwrap().len(), 4);
    assert_eq!(agg["nodes"][0]["label"], "Rust");
    let (_, next) = server.get(server.token(), &format!("/api/mind-maps/{map}/next-node")).await;
    assert_eq!(next["node"]["label"], "Rust");
    server.stop();

    // PATHWISE_TOKEN (or --token) imports for another learner, who alone sees it.
    let learner = run(tmp.path(), &["create-learner", "Grace", "--data-dir", &data_arg], &[]).success();
    let learner: Value = serde_json::from_str(learner.stdout.trim()).unwrap();
    let token = learner["token"].as_str().unwrap();
    run(tmp.path(), &["import-map", file.to_str().unwrap(), "--data-dir", &data_arg], &[("PATHWISE_TOKEN", token)])
        .success();
    let server = Server::start(tmp.path(), &["--port", "0", "--data-dir", &data_arg], &[]);
    assert_eq!(server.get(token, "/api/mind-maps").await.1["total"], 1);
    assert_eq!(server.get(server.token(), "/api/mind-maps").await.1["total"], 1);
    let refused =
        run(tmp.path(), &["import-map", file.to_str().unwrap(), "--data-dir", &data_arg, "--token", "pw_nope"], &[])
            .failure();
    assert!(refused.stderr.contains("token"), "stderr: {}", refused.stderr);
}

#[tokio::test]
async fn import_course_checks_a_pack_names_each_problems_line_and_stores_only_a_sound_one() {
    let tmp = tempfile::tempdir().unwrap();
    let data_arg = data_dir_arg(&tmp.path().join("data"));
    let course = include_str!("../../app/tests/fixtures/test-course.toml");
    let broken = course
        .replace("prerequisites = [\"ALG-00\"]", "prerequisites = [\"ALG-99\"]")
        .replace("correct = 0\nmemo = \"Subtract 4", "correct = 9\nmemo = \"Subtract 4");
    let file = write(tmp.path(), "broken.toml", &broken);
    let refused = run(tmp.path(), &["import-course", file.to_str().unwrap(), "--data-dir", &data_arg], &[]).failure();
    for needle in [
        "broken.toml",
        "2 problems",
        "line 28, units[2].prerequisites[0]: unknown unit 'ALG-99'",
        "exam_questions[0].correct: 9 is not an option's index; allowed: 0-3",
    ] {
        assert!(refused.stderr.contains(needle), "{needle:?} not in {}", refused.stderr);
    }
    let json = write(tmp.path(), "broken.json", "{\"course_id\": \"X\",\n \"title\": 7}");
    let refused = run(tmp.path(), &["import-course", json.to_str().unwrap(), "--data-dir", &data_arg], &[]).failure();
    assert!(refused.stderr.contains("line 2"), "{}", refused.stderr);
    let odd = write(tmp.path(), "course.yaml", "x: 1");
    let refused = run(tmp.path(), &["import-course", odd.to_str().unwrap(), "--data-dir", &data_arg], &[]).failure();
    assert!(refused.stderr.contains(".toml or .json"), "{}", refused.stderr);

    let file = write(tmp.path(), "course.toml", course);
    let checked =
        run(tmp.path(), &["import-course", file.to_str().unwrap(), "--check", "--data-dir", &data_arg], &[]).success();
    assert!(checked.stdout.contains("\"stored\":false"), "{}", checked.stdout);
    let done = run(tmp.path(), &["import-course", file.to_str().unwrap(), "--data-dir", &data_arg], &[]).success();
    let imported: Value = serde_json::from_str(&done.stdout).unwrap_or_else(|e| panic!("{e}: {}", done.stdout));
    assert_eq!(
        (imported["id"].as_str(), imported["unitCount"].as_i64(), imported["changed"].as_bool()),
        (Some("TEST-ALG"), Some(6), Some(true))
    );
    let again = run(tmp.path(), &["import-course", file.to_str().unwrap(), "--data-dir", &data_arg], &[]).success();
    assert!(again.stdout.contains("\"changed\": false"), "{}", again.stdout);

    // The server serves it beside the shipped courses, and a learner can start a thread on it.
    let server = Server::start(tmp.path(), &["--port", "0", "--data-dir", &data_arg], &[]);
    let (status, courses) = server.get(server.token(), "/api/courses").await;
    assert_eq!(status, 200);
    let ids: Vec<&str> = courses.as_array().unwrap().iter().filter_map(|c| c["id"].as_str()).collect();
    assert_eq!(ids, ["MATH-FOUNDATIONS", "NET-IPV4", "TEST-ALG"]);
    server.stop();
}

/// A binary install has the shipped courses inside it: `course export` writes one out (on a
/// database no server has started on yet), as its TOML source or as JSON, and what it writes
/// passes `import-course --check`; an imported course comes out as stored.
#[test]
fn course_export_writes_a_pack_that_import_course_accepts() {
    let tmp = tempfile::tempdir().unwrap();
    let data_arg = data_dir_arg(&tmp.path().join("data"));
    let toml_file = tmp.path().join("my-course.toml");
    let written = run(
        tmp.path(),
        &["course", "export", "MATH-FOUNDATIONS", "-o", toml_file.to_str().unwrap(), "--data-dir", &data_arg],
        &[],
    )
    .success();
    assert!(written.stdout.contains("\"written\""), "{}", written.stdout);
    let text = std::fs::read_to_string(&toml_file).unwrap();
    assert_eq!(text, pathwise_course::builtin_source("MATH-FOUNDATIONS").unwrap(), "the shipped source, comments kept");
    let checked =
        run(tmp.path(), &["import-course", toml_file.to_str().unwrap(), "--check", "--data-dir", &data_arg], &[])
            .success();
    assert!(checked.stdout.contains("\"id\":\"MATH-FOUNDATIONS\""), "{}", checked.stdout);

    let json_file = tmp.path().join("net.json");
    run(tmp.path(), &["course", "export", "NET-IPV4", "-o", json_file.to_str().unwrap(), "--data-dir", &data_arg], &[])
        .success();
    let pack: Value = serde_json::from_str(&std::fs::read_to_string(&json_file).unwrap()).unwrap();
    assert_eq!(pack["course_id"], "NET-IPV4");
    run(tmp.path(), &["import-course", json_file.to_str().unwrap(), "--check", "--data-dir", &data_arg], &[]).success();

    let to_stdout = run(tmp.path(), &["course", "export", "NET-IPV4", "--data-dir", &data_arg], &[]).success();
    assert!(to_stdout.stdout.starts_with('#') || to_stdout.stdout.contains("course_id"), "{}", to_stdout.stdout);
    let missing = run(tmp.path(), &["course", "export", "NO-SUCH", "--data-dir", &data_arg], &[]).failure();
    assert!(missing.stderr.contains("course") && missing.stderr.contains("not found"), "{}", missing.stderr);
    let odd =
        run(tmp.path(), &["course", "export", "NET-IPV4", "--format", "yaml", "--data-dir", &data_arg], &[]).failure();
    assert!(odd.stderr.contains("allowed: toml, json"), "{}", odd.stderr);
}

#[tokio::test]
async fn import_map_refuses_a_cycle_and_imports_nothing() {
    let tmp = tempfile::tempdir().unwrap();
    let data_arg = data_dir_arg(&tmp.path().join("data"));
    let cyclic = json!({
        "topic": "Loops",
        "decomposition": {
            "root": "Root",
            "nodes": [
                { "label": "Root", "effort_minutes": 5 },
                { "label": "A", "effort_minutes": 5 },
                { "label": "B", "effort_minutes": 5 },
                { "label": "C", "effort_minutes": 5 },
            ],
            "edges": [
                { "parent": "Root", "child": "A" },
                { "parent": "A", "child": "B" },
                { "parent": "B", "child": "C" },
                { "parent": "C", "child": "A" },
            ],
        },
    });
    let file = write(tmp.path(), "cyclic.json", &cyclic.to_string());
    let failed = run(tmp.path(), &["import-map", file.to_str().unwrap(), "--data-dir", &data_arg], &[]).failure();
    assert!(failed.stderr.contains("cycle: "), "stderr: {}", failed.stderr);
    assert!(failed.stderr.contains("cyclic.json"), "the file is named: {}", failed.stderr);
    let cycle = failed.stderr.split("cycle: ").nth(1).unwrap().lines().next().unwrap().to_string();
    let steps: Vec<&str> = cycle.split(" -> ").collect();
    assert_eq!(steps.len(), 4, "a three-node cycle and back: {cycle}");
    assert_eq!(steps.first(), steps.last(), "{cycle}");
    for label in ["A", "B", "C"] {
        assert!(steps.contains(&label), "{cycle}");
    }
    assert!(failed.stdout.trim().is_empty(), "no summary on failure: {}", failed.stdout);

    let server = Server::start(tmp.path(), &["--port", "0", "--data-dir", &data_arg], &[]);
    let (status, listed) = server.get(server.token(), "/api/mind-maps").await;
    assert_eq!((status, listed["total"].as_u64()), (200, Some(0)), "nothing was imported: {listed}");
}

#[tokio::test]
async fn import_map_names_the_line_and_field_of_malformed_json() {
    let tmp = tempfile::tempdir().unwrap();
    let data_arg = data_dir_arg(&tmp.path().join("data"));

    // A value of the wrong type: the field's path and its line.
    let wrong_type = "{\n  \"topic\": \"Rust\",\n  \"decomposition\": {\n    \"root\": \"Rust\",\n    \
                      \"nodes\": [{ \"label\": \"Rust\", \"effort_minutes\": \"ten\" }]\n  }\n}\n";
    let file = write(tmp.path(), "wrong-type.json", wrong_type);
    let failed = run(tmp.path(), &["import-map", file.to_str().unwrap(), "--data-dir", &data_arg], &[]).failure();
    for needle in ["wrong-type.json", "decomposition.nodes[0].effort_minutes", "line 5"] {
        assert!(failed.stderr.contains(needle), "{needle:?} not in: {}", failed.stderr);
    }

    // Broken syntax: the line.
    let broken = "{\n  \"topic\": \"Rust\",\n  \"decomposition\": {\n    \"root\": \"Rust\",,\n  }\n}\n";
    let file = write(tmp.path(), "broken.json", broken);
    let failed = run(tmp.path(), &["import-map", file.to_str().unwrap(), "--data-dir", &data_arg], &[]).failure();
    for needle in ["broken.json", "line 4"] {
        assert!(failed.stderr.contains(needle), "{needle:?} not in: {}", failed.stderr);
    }

    // A missing field and an unknown one are named.
    let file = write(tmp.path(), "missing.json", "{ \"topic\": \"Rust\" }");
    let failed = run(tmp.path(), &["import-map", file.to_str().unwrap(), "--data-dir", &data_arg], &[]).failure();
    assert!(failed.stderr.contains("decomposition"), "stderr: {}", failed.stderr);
    let file = write(
        tmp.path(),
        "unknown.json",
        &json!({ "topic": "Rust", "decomposition": { "root": "Rust", "nodes": [], "colour": 1 } }).to_string(),
    );
    let failed = run(tmp.path(), &["import-map", file.to_str().unwrap(), "--data-dir", &data_arg], &[]).failure();
    assert!(failed.stderr.contains("colour"), "stderr: {}", failed.stderr);

    // A file that is not there.
    let failed = run(tmp.path(), &["import-map", "absent.json", "--data-dir", &data_arg], &[]).failure();
    assert!(failed.stderr.contains("absent.json"), "stderr: {}", failed.stderr);

    // None of it planned a map.
    let server = Server::start(tmp.path(), &["--port", "0", "--data-dir", &data_arg], &[]);
    let (status, listed) = server.get(server.token(), "/api/mind-maps").await;
    assert_eq!((status, listed["total"].as_u64()), (200, Some(0)), "nothing was imported: {listed}");
}

#[tokio::test]
async fn create_learner_prints_a_working_token() {
    let tmp = tempfile::tempdir().unwrap();
    let data_arg = data_dir_arg(&tmp.path().join("data"));
    let done = run(tmp.path(), &["create-learner", "Ada Lovelace", "--data-dir", &data_arg], &[]).success();
    let created: Value = serde_json::from_str(done.stdout.trim()).unwrap_or_else(|e| panic!("{e}: {}", done.stdout));
    assert_eq!(created["name"], "Ada Lovelace");
    assert!(created["id"].is_string());
    let token = created["token"].as_str().unwrap();
    assert!(token.starts_with("pw_"), "{token}");

    let server = Server::start(tmp.path(), &["--port", "0", "--data-dir", &data_arg], &[]);
    let (status, me) = server.get(token, "/api/me").await;
    assert_eq!(status, 200);
    assert_eq!(
        (me["id"].as_str(), me["name"].as_str(), me["is_local"].as_bool()),
        (created["id"].as_str(), Some("Ada Lovelace"), Some(false))
    );
    server.stop();

    let blank = run(tmp.path(), &["create-learner", "  ", "--data-dir", &data_arg], &[]).failure();
    assert!(blank.stderr.contains("name"), "stderr: {}", blank.stderr);
}

#[test]
fn learners_commands_administer_learners_and_move_one_to_another_database() {
    let tmp = tempfile::tempdir().unwrap();
    let (first, second) = (data_dir_arg(&tmp.path().join("first")), data_dir_arg(&tmp.path().join("second")));
    let json = |done: &Finished| -> Value {
        serde_json::from_str(done.stdout.trim()).unwrap_or_else(|e| panic!("{e}: {}", done.stdout))
    };
    let created = json(&run(tmp.path(), &["learners", "create", "Ada", "--data-dir", &first], &[]).success());
    let ada = created["id"].as_str().unwrap().to_string();
    assert!(created["token"].as_str().unwrap().starts_with("pw_"));

    let listed = json(&run(tmp.path(), &["learners", "list", "--data-dir", &first], &[]).success());
    assert_eq!((listed["total"].as_u64(), listed["items"][0]["id"].as_str()), (Some(1), Some(ada.as_str())));
    let issued = json(
        &run(tmp.path(), &["learners", "token-create", &ada, "--name", "laptop", "--data-dir", &first], &[]).success(),
    );
    let laptop = issued["id"].as_str().unwrap().to_string();
    let revoked =
        json(&run(tmp.path(), &["learners", "token-revoke", &ada, &laptop, "--data-dir", &first], &[]).success());
    assert!(revoked["revoked_at"].is_string(), "{revoked}");
    let tokens = json(&run(tmp.path(), &["learners", "tokens", &ada, "--data-dir", &first], &[]).success());
    let default = tokens[0]["id"].as_str().unwrap().to_string();
    let rotated =
        json(&run(tmp.path(), &["learners", "token-rotate", &ada, &default, "--data-dir", &first], &[]).success());
    assert_eq!(rotated["revoked"]["id"], default.as_str());
    let again = run(tmp.path(), &["learners", "token-rotate", &ada, &default, "--data-dir", &first], &[]).failure();
    assert!(again.stderr.contains("revoked"), "stderr: {}", again.stderr);

    // Exported to a private file, imported into another database, deleted from the first.
    let file = tmp.path().join("ada.json");
    run(tmp.path(), &["learners", "export", &ada, "--output", file.to_str().unwrap(), "--data-dir", &first], &[])
        .success();
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        assert_eq!(std::fs::metadata(&file).unwrap().permissions().mode() & 0o777, 0o600);
    }
    let imported =
        json(&run(tmp.path(), &["learners", "import", file.to_str().unwrap(), "--data-dir", &second], &[]).success());
    assert_eq!(imported["id"], ada.as_str());
    let twice = run(tmp.path(), &["learners", "import", file.to_str().unwrap(), "--data-dir", &second], &[]).failure();
    assert!(twice.stderr.contains("already"), "stderr: {}", twice.stderr);
    let deleted = json(&run(tmp.path(), &["learners", "delete", &ada, "--data-dir", &first], &[]).success());
    assert_eq!(deleted["id"], ada.as_str());
    let listed = json(&run(tmp.path(), &["learners", "list", "--data-dir", &first], &[]).success());
    assert_eq!(listed["total"], 0);
    let listed = json(&run(tmp.path(), &["learners", "list", "--data-dir", &second], &[]).success());
    assert_eq!(listed["items"][0]["id"], ada.as_str());
    let missing = run(tmp.path(), &["learners", "delete", &ada, "--data-dir", &first], &[]).failure();
    assert!(missing.stderr.contains("not found"), "stderr: {}", missing.stderr);
}

/// `pathwise import-anki`: a real package (genanki's) brought in for the local learner, the
/// outcome printed as JSON; a file that is not a package fails saying what to export.
#[test]
fn import_anki_brings_a_package_in_and_refuses_what_is_not_one() {
    use pathwise_test_support::anki::{anki_python, make_package, sample_spec};
    let dir = tempfile::tempdir().unwrap();
    let data = data_dir_arg(dir.path());
    let not_a_package = write(dir.path(), "notes.apkg", "just text");
    let refused =
        run(dir.path(), &["import-anki", not_a_package.to_str().unwrap(), "--data-dir", &data], &[]).failure();
    assert!(
        refused.stderr.contains("not an Anki package") && refused.stderr.contains("File > Export"),
        "{}",
        refused.stderr
    );
    let Some(python) = anki_python() else { return };
    let package = make_package(&python, &sample_spec(), dir.path(), "sample.colpkg");
    let done = run(dir.path(), &["import-anki", package.to_str().unwrap(), "--data-dir", &data], &[]).success();
    let report: Value = serde_json::from_str(&done.stdout).unwrap_or_else(|e| panic!("{e}: {}", done.stdout));
    assert_eq!(
        (report["answers_imported"].as_u64(), report["concepts_added"].as_u64()),
        (Some(11), Some(6)),
        "{report}"
    );
    assert_eq!(report["format"], "anki21b");
    let log = run(dir.path(), &["export-reviews", "--data-dir", &data], &[]).success();
    assert_eq!(log.stdout.lines().count(), 12, "a header and the 11 answers: {}", log.stdout);
    assert!(log.stdout.contains("2023-11-14T22:15:00"), "the log's real times: {}", log.stdout);
}

// ---------------------------------------------------------------------------------------
// bench
// ---------------------------------------------------------------------------------------

#[cfg(feature = "bench")]
#[test]
fn bench_quick_prints_one_json_line_per_benchmark() {
    let tmp = tempfile::tempdir().unwrap();
    let done = run(tmp.path(), &["bench", "--quick", "--only", "learning_order"], &[]).success();
    let lines: Vec<Value> = done
        .stdout
        .lines()
        .filter(|l| !l.trim().is_empty())
        .map(|l| serde_json::from_str(l).unwrap_or_else(|e| panic!("{e}: not a JSON line: {l}")))
        .collect();
    assert_eq!(lines.len(), 1, "only the benchmark asked for: {}", done.stdout);
    let line = &lines[0];
    assert_eq!(line["bench"], "learning_order");
    assert!(line["store"].is_string(), "{line}");
    for field in ["ops_per_sec", "p50_ms", "p99_ms"] {
        let value = line[field].as_f64().unwrap_or_else(|| panic!("{field} is not a number in {line}"));
        assert!(value >= 0.0 && value.is_finite(), "{field} = {value}");
    }
    assert!(line["p99_ms"].as_f64() >= line["p50_ms"].as_f64(), "{line}");
    assert!(line["ops"].as_u64() > Some(0), "{line}");
}

/// The benchmarks that run `pathwise serve` in a process of their own run it as an operator
/// would, rate limit and stream cap included, and still measure what they are for.
#[cfg(feature = "bench")]
#[test]
fn bench_quick_runs_the_benchmarks_of_a_served_server() {
    let tmp = tempfile::tempdir().unwrap();
    for (only, expected) in [
        ("slow_clients", &["slow_clients_quiet", "slow_clients_held"][..]),
        ("session_streams", &["session_streams"][..]),
    ] {
        let done = run(tmp.path(), &["bench", "--quick", "--only", only], &[]).success();
        let lines: Vec<Value> = done.stdout.lines().filter_map(|l| serde_json::from_str(l).ok()).collect();
        let names: Vec<&str> = lines.iter().filter_map(|l| l["bench"].as_str()).collect();
        assert_eq!(names, expected, "{}", done.stdout);
        for line in &lines {
            if line["bench"] == "slow_clients_held" {
                assert_eq!((line["idle_connections"].as_u64(), line["slow_clients"].as_u64()), (Some(500), Some(50)));
                assert!(line["slow_heads_closed"].as_u64() >= Some(50), "{line}");
                assert!(line["ops"].as_u64() > Some(0) && line["p99_ms"].as_f64() > Some(0.0), "{line}");
            }
            if line["bench"] == "session_streams" {
                assert_eq!(line["streams"], 200, "{line}");
            }
        }
    }
    // The learner's path at an offered rate, against the server in a process of its own.
    let done = run(tmp.path(), &["bench", "--quick", "--only", "http_fixed_rate", "--rate", "50"], &[]).success();
    let lines: Vec<Value> = done.stdout.lines().filter_map(|l| serde_json::from_str(l).ok()).collect();
    let [line] = &lines[..] else { panic!("one line expected: {}", done.stdout) };
    assert_eq!(line["bench"], "http_record_response_fixed_rate", "{line}");
    assert_eq!((line["offered_per_sec"].as_f64(), line["server"].as_str()), (Some(50.0), Some("a process of its own")));
    assert!(line["ops"].as_u64() >= Some(50) && line["p99_ms"].as_f64() > Some(0.0), "{line}");
}

#[test]
fn the_binary_describes_itself() {
    let tmp = tempfile::tempdir().unwrap();
    let version = run(tmp.path(), &["--version"], &[]).success();
    assert!(version.stdout.starts_with("pathwise "), "{}", version.stdout);
    let help = run(tmp.path(), &["--help"], &[]).success();
    for command in ["serve", "migrate", "import-map", "create-learner", "bench"] {
        assert!(help.stdout.contains(command), "{command} missing from --help: {}", help.stdout);
    }
    let unknown = run(tmp.path(), &["teleport"], &[]).failure();
    assert!(unknown.stderr.contains("teleport"), "{}", unknown.stderr);
}

#[tokio::test]
async fn serve_names_its_language_model_and_refuses_an_incomplete_one() {
    let tmp = tempfile::tempdir().unwrap();
    let data_arg = data_dir_arg(&tmp.path().join("data"));
    let offline = Server::start(tmp.path(), &["--port", "0", "--data-dir", &data_arg], &[]);
    assert!(
        offline.banner.iter().any(|l| l == "Language model: offline (no language model configured)"),
        "{:?}",
        offline.banner
    );
    drop(offline);

    let configured = Server::start(
        tmp.path(),
        &["--port", "0", "--data-dir", &data_arg],
        &[("PATHWISE_LLM_BASE_URL", "http://127.0.0.1:9/v1"), ("PATHWISE_LLM_MODEL", "tutor-model")],
    );
    assert!(
        configured.banner.iter().any(|l| l == "Language model: tutor-model at http://127.0.0.1:9/v1"),
        "{:?}",
        configured.banner
    );
    drop(configured);

    let no_model = run(
        tmp.path(),
        &["serve", "--port", "0", "--data-dir", &data_arg],
        &[("PATHWISE_LLM_BASE_URL", "http://127.0.0.1:9/v1")],
    )
    .failure();
    assert!(no_model.stderr.contains("PATHWISE_LLM_MODEL"), "stderr: {}", no_model.stderr);
    let bad_url = run(
        tmp.path(),
        &["serve", "--port", "0", "--data-dir", &data_arg],
        &[("PATHWISE_LLM_BASE_URL", "127.0.0.1:11434"), ("PATHWISE_LLM_MODEL", "m")],
    )
    .failure();
    assert!(bad_url.stderr.contains("http://"), "stderr: {}", bad_url.stderr);
}

/// Two `pathwise serve` processes on one PostgreSQL database take due jobs by lease: each
/// job runs exactly once, whichever server gets it.
#[tokio::test(flavor = "multi_thread")]
async fn two_servers_on_one_postgres_run_each_job_once() {
    use pathwise_domain::JobKind;
    use pathwise_store::{Job, JobStore, PgStore};
    let Some(database) = pathwise_test_support::TestPgDatabase::create("two").await else {
        return;
    };
    let url = database.url().to_string();
    let store = PgStore::connect(&url, 4).await.expect("migrate");

    let dirs = [tempfile::tempdir().unwrap(), tempfile::tempdir().unwrap()];
    let servers: Vec<Server> = ["server-a", "server-b"]
        .iter()
        .zip(&dirs)
        .map(|(name, dir)| {
            Server::start(
                dir.path(),
                &["--port", "0", "--database-url", &url],
                &[("PATHWISE_SCHEDULER_TICK_MS", "20"), ("PATHWISE_WORKER_NAME", name)],
            )
        })
        .collect();
    let now = chrono::Utc::now();
    let jobs: Vec<Job> =
        (0..400).map(|i| Job::one_shot(JobKind::Noop, now - chrono::Duration::milliseconds(i), now)).collect();
    for chunk in jobs.chunks(100) {
        store.insert_jobs(chunk).await.expect("insert jobs");
    }
    let deadline = Instant::now() + Duration::from_secs(60);
    loop {
        let left: i64 =
            sqlx::query_scalar("SELECT COUNT(*) FROM jobs WHERE kind = 'noop'").fetch_one(store.pool()).await.unwrap();
        if left == 0 {
            break;
        }
        assert!(Instant::now() < deadline, "{left} jobs still due after a minute");
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    let runs: Vec<(uuid::Uuid, String)> = sqlx::query_as("SELECT job_id, worker FROM job_runs WHERE kind = 'noop'")
        .fetch_all(store.pool())
        .await
        .unwrap();
    let distinct: std::collections::HashSet<_> = runs.iter().map(|(id, _)| *id).collect();
    assert_eq!((runs.len(), distinct.len()), (400, 400), "every job ran exactly once");
    let by_a = runs.iter().filter(|(_, worker)| worker == "server-a").count();
    println!("server-a ran {by_a} jobs, server-b {}", runs.len() - by_a);
    assert!(runs.iter().all(|(_, worker)| worker == "server-a" || worker == "server-b"));

    for server in servers {
        server.stop();
    }
    store.pool().close().await;
}

/// The learning loop from the command line: offline, a topic is refused before anything
/// is stored, naming what works without a model; with a model configured (here one that
/// is not running) a flow is started and listed and its model steps name the model they
/// could not reach; jobs run, the digest comes from the template.
#[test]
fn flows_jobs_analytics_and_the_digest_work_from_the_command_line() {
    let dir = tempfile::tempdir().unwrap();
    let data = data_dir_arg(dir.path());
    let start = ["flow", "start", "Graph theory", "--goal", "shortest paths", "--data-dir", &data];
    let offline = run(dir.path(), &start, &[]).failure();
    for needle in ["PATHWISE_LLM_BASE_URL", "PATHWISE_LLM_MODEL", "pathwise import-map", "outline"] {
        assert!(offline.stderr.contains(needle), "{needle:?} not in {}", offline.stderr);
    }
    let listed: Value =
        serde_json::from_str(&run(dir.path(), &["flow", "list", "--data-dir", &data], &[]).success().stdout).unwrap();
    assert_eq!(listed["total"], 0, "nothing was stored");

    let model = [("PATHWISE_LLM_BASE_URL", "http://127.0.0.1:9/v1"), ("PATHWISE_LLM_MODEL", "tutor-model")];
    let started = run(dir.path(), &start, &model).success();
    let flow: Value = serde_json::from_str(&started.stdout).expect("JSON");
    assert_eq!(flow["status"], "pending");
    let id = flow["id"].as_str().unwrap();
    let listed: Value =
        serde_json::from_str(&run(dir.path(), &["flow", "list", "--data-dir", &data], &[]).success().stdout).unwrap();
    assert_eq!(listed["total"], 1);

    let unreachable = run(dir.path(), &["flow", "diagnose", id, "--data-dir", &data], &model).failure();
    assert!(unreachable.stderr.contains("127.0.0.1:9"), "{}", unreachable.stderr);
    let bad = run(dir.path(), &["flow", "show", "not-a-uuid", "--data-dir", &data], &[]).failure();
    assert!(bad.stderr.contains("not-a-uuid") || bad.stderr.contains("invalid"), "{}", bad.stderr);

    let jobs: Value =
        serde_json::from_str(&run(dir.path(), &["jobs", "run", "--data-dir", &data], &[]).success().stdout).unwrap();
    assert_eq!(jobs["failed"], 0, "{jobs}");
    let nightly = run(dir.path(), &["analytics", "nightly", "--data-dir", &data], &[]).success();
    assert!(nightly.stdout.contains("maps snapshotted"), "{}", nightly.stdout);
    let digest: Value =
        serde_json::from_str(&run(dir.path(), &["digest", "--data-dir", &data], &[]).success().stdout).unwrap();
    assert_eq!(digest["written_by"], "template", "{digest}");
    let chosen = run(
        dir.path(),
        &["preferences", "--srs-scheduler", "fsrs", "--daily-review-cap", "30", "--data-dir", &data],
        &[],
    )
    .success();
    let chosen: Value = serde_json::from_str(&chosen.stdout).unwrap();
    assert_eq!((chosen["srs_scheduler"].as_str(), chosen["daily_review_cap"].as_i64()), (Some("fsrs"), Some(30)));
    assert_eq!(chosen["fsrs"]["parameters"], "defaults", "{chosen}");
    let fitted = run(dir.path(), &["preferences", "--fit-fsrs", "--data-dir", &data], &[]).success();
    let fitted: Value = serde_json::from_str(&fitted.stdout).unwrap();
    assert!(fitted["fsrs"]["fitted_at"].is_string(), "{fitted}");
    assert!(fitted["fsrs"]["reason"].as_str().unwrap().contains("FSRS needs 8"), "{fitted}");
    let refused = run(dir.path(), &["preferences", "--daily-review-cap", "0", "--data-dir", &data], &[]).failure();
    assert!(refused.stderr.contains("from 1 to 1000"), "{}", refused.stderr);
    let abandoned = run(dir.path(), &["flow", "abandon", id, "--data-dir", &data], &[]).success();
    assert!(abandoned.stdout.contains("\"abandoned\""), "{}", abandoned.stdout);
}

/// A reader that stops reading (`pathwise jobs list | head -1`): the command ends quietly,
/// with no panic and no backtrace, whatever it prints.
#[test]
fn a_closed_output_pipe_ends_every_command_quietly() {
    let dir = tempfile::tempdir().unwrap();
    let data = data_dir_arg(&dir.path().join("data"));
    let outline = write(dir.path(), "rust.md", "# Rust\n- Ownership\n  - Borrowing\n- Traits\n");
    run(dir.path(), &["import-map", outline.to_str().unwrap(), "--data-dir", &data], &[]).success();
    let commands: [&[&str]; 8] = [
        &["jobs", "list"],
        &["flow", "list"],
        &["analytics", "portfolio"],
        &["analytics", "nightly"],
        &["preferences"],
        &["export-reviews"],
        &["migrate"],
        &["create-learner", "Ada"],
    ];
    let quiet = |what: &str, status: ExitStatus, stderr: &str| {
        #[cfg(unix)]
        let by_sigpipe = std::os::unix::process::ExitStatusExt::signal(&status) == Some(13);
        #[cfg(not(unix))]
        let by_sigpipe = false;
        assert!(status.success() || by_sigpipe, "{what}: {status}\n{stderr}");
        for noise in ["panicked", "Broken pipe", "RUST_BACKTRACE", "error:"] {
            assert!(!stderr.contains(noise), "{what}: {noise:?} on stderr:\n{stderr}");
        }
    };
    for command in commands {
        let mut args = command.to_vec();
        args.extend(["--data-dir", &data]);
        // The reader is gone before the command writes anything.
        let mut child = ChildGuard(pathwise(dir.path(), &args, &[]).spawn().expect("start pathwise"));
        drop(child.0.stdout.take());
        let (stderr, reader) = drain(child.0.stderr.take().unwrap());
        let status = child.0.wait().expect("wait");
        reader.join().unwrap();
        quiet(&format!("{args:?}"), status, &stderr.lock().unwrap());
    }
    let help = pathwise(dir.path(), &["--help"], &[]).spawn().expect("start pathwise");
    let mut help = ChildGuard(help);
    drop(help.0.stdout.take());
    let output = help.0.wait().expect("wait");
    let mut stderr = String::new();
    std::io::Read::read_to_string(&mut help.0.stderr.take().unwrap(), &mut stderr).unwrap();
    quiet("--help", output, &stderr);

    // As a user types it, through a shell, into `head -1`.
    #[cfg(unix)]
    {
        let log = dir.path().join("stderr.log");
        let line = format!(
            "'{BIN}' flow list --data-dir '{data}' 2>'{}' | head -1 >/dev/null; '{BIN}' analytics portfolio \
             --data-dir '{data}' 2>>'{}' | head -c 1 >/dev/null",
            log.display(),
            log.display()
        );
        let mut shell = Command::new("sh");
        shell.arg("-c").arg(line).current_dir(dir.path()).env("PATHWISE_LOG", "warn");
        for (name, _) in std::env::vars().filter(|(name, _)| name.starts_with("PATHWISE_")) {
            shell.env_remove(name);
        }
        let status = shell.env("PATHWISE_LOG", "warn").status().expect("sh runs");
        assert!(status.success(), "{status}");
        let stderr = std::fs::read_to_string(&log).unwrap();
        assert!(!stderr.contains("panicked") && !stderr.contains("Broken pipe"), "{stderr}");
    }
}

/// `import-map` reads a Markdown outline as well as a JSON decomposition: nesting gives
/// prerequisites, a refusal names the outline's line, and a topic imported again is refused
/// unless a new map or a replacement is asked for.
#[tokio::test]
async fn import_map_reads_an_outline_and_refuses_a_second_map_of_a_topic_unless_asked() {
    let tmp = tempfile::tempdir().unwrap();
    let data_arg = data_dir_arg(&tmp.path().join("data"));
    let import = |file: &Path, extra: &[&str]| {
        let mut args = vec!["import-map", file.to_str().unwrap(), "--data-dir", &data_arg];
        args.extend_from_slice(extra);
        run(tmp.path(), &args, &[])
    };
    let outline =
        write(tmp.path(), "rust.md", "# Rust\n## Ownership\n- Borrowing\n  - Lifetimes (45 min)\n## Traits\n");
    let done = import(&outline, &[]).success();
    let first: Value = serde_json::from_str(&done.stdout).unwrap_or_else(|e| panic!("{e}: {}", done.stdout));
    assert_eq!((first["node_count"].as_u64(), first["edge_count"].as_u64()), (Some(5), Some(4)), "{first}");
    assert_eq!(first["status"], "active");
    let first_id = first["mind_map_id"].as_str().unwrap().to_string();

    // The same topic again: refused, naming the map and the flag that answers it.
    let json_twin = write(
        tmp.path(),
        "rust.json",
        &json!({ "topic": "rust", "decomposition": { "root": "Rust", "nodes": [{ "label": "Rust", "effort_minutes": 5 }] } })
            .to_string(),
    );
    for again in [import(&outline, &[]).failure(), import(&json_twin, &[]).failure()] {
        for needle in ["already have a map for 'Rust'", first_id.as_str(), "--on-existing replace", "--on-existing new"]
        {
            assert!(again.stderr.contains(needle), "{needle:?} not in {}", again.stderr);
        }
        assert!(again.stdout.trim().is_empty(), "{}", again.stdout);
    }
    let kept: Value = serde_json::from_str(&import(&json_twin, &["--on-existing", "new"]).success().stdout).unwrap();
    let replaced: Value =
        serde_json::from_str(&import(&outline, &["--on-existing", "replace"]).success().stdout).unwrap();
    assert_eq!(replaced["replaced_mind_map_id"], kept["mind_map_id"], "{replaced}");
    let bad_choice = import(&outline, &["--on-existing", "merge"]).failure();
    assert!(bad_choice.stderr.contains("refuse, new, replace"), "{}", bad_choice.stderr);

    // A label repeated inside itself: the cycle, on the line that closes it.
    let cyclic = write(tmp.path(), "loops.md", "# Loops\n- A\n  - B\n\n    - a\n");
    let refused = import(&cyclic, &[]).failure();
    assert!(refused.stderr.contains("loops.md: outline line 5: cycle: "), "{}", refused.stderr);
    let flat = write(tmp.path(), "flat.md", "- One\n- Two\n");
    let refused = import(&flat, &[]).failure();
    assert!(
        refused.stderr.contains("flat.md: outline line 2: 'Two' is a second top-level entry"),
        "{}",
        refused.stderr
    );
    let odd = write(tmp.path(), "map.yaml", "- One\n");
    assert!(import(&odd, &[]).failure().stderr.contains(".json) or an outline (.md"));
    let titled = write(tmp.path(), "algebra.md", "- Algebra\n  - Terms\n");
    let named: Value = serde_json::from_str(&import(&titled, &["--title", "My algebra"]).success().stdout).unwrap();
    assert_eq!(named["node_count"], 2);

    let server = Server::start(tmp.path(), &["--port", "0", "--data-dir", &data_arg], &[]);
    let (_, listed) = server.get(server.token(), "/api/mind-maps").await;
    let mut titles: Vec<&str> =
        listed["items"].as_array().unwrap().iter().map(|m| m["title"].as_str().unwrap()).collect();
    titles.sort();
    assert_eq!(titles, ["My algebra", "Rust", "Rust"], "the first map, and the one that replaced the second");
    let ids: Vec<&str> = listed["items"].as_array().unwrap().iter().map(|m| m["id"].as_str().unwrap()).collect();
    assert!(ids.contains(&first_id.as_str()) && !ids.contains(&kept["mind_map_id"].as_str().unwrap()));
}

/// With no model configured, serving says so once, as a warning at start; a request that
/// needs a model is a 503 saying what to set, and no ERROR is logged for it.
#[tokio::test]
async fn offline_the_missing_model_is_one_warning_at_start_and_each_request_a_503_saying_what_to_set() {
    let tmp = tempfile::tempdir().unwrap();
    let data_arg = data_dir_arg(&tmp.path().join("data"));
    let server = Server::start(tmp.path(), &["--port", "0", "--data-dir", &data_arg], &[]);
    let token = server.token().to_string();
    for _ in 0..3 {
        for (path, body) in
            [("/api/curriculum/generate", json!({ "topic": "Graphs" })), ("/api/flows", json!({ "topic": "Graphs" }))]
        {
            let (status, reply) = server.post(&token, path, body).await;
            assert_eq!((status, reply["error"]["code"].as_str()), (503, Some("llm_not_configured")), "{path}: {reply}");
            let message = reply["error"]["message"].as_str().unwrap();
            for needle in ["PATHWISE_LLM_BASE_URL", "PATHWISE_LLM_MODEL", "/api/mind-maps/outline"] {
                assert!(message.contains(needle), "{needle:?} not in {message}");
            }
            assert_eq!(reply["error"]["details"]["settings"], json!(["PATHWISE_LLM_BASE_URL", "PATHWISE_LLM_MODEL"]));
        }
    }
    let (status, made) =
        server.post(&token, "/api/mind-maps/outline", json!({ "outline": "# Graphs\n- Paths\n" })).await;
    assert_eq!(status, 201, "{made}");
    let (_, flows) = server.get(&token, "/api/flows").await;
    assert_eq!(flows["total"], 0, "no refused topic was stored");
    tokio::time::sleep(Duration::from_millis(200)).await;
    let log = server.stderr.lock().unwrap().clone();
    assert_eq!(log.matches("no language model configured").count(), 1, "{log}");
    assert!(log.lines().any(|l| l.contains("WARN") && l.contains("no language model configured")), "{log}");
    assert!(!log.contains("ERROR"), "a refusal for want of a model is no server error:\n{log}");
}

/// `pathwise model check` against a fake model that follows the schema of a tutor turn (so
/// its turns are valid: the schema carries the policy) and fails everything else with a
/// 500 whose text must not reach the table.
#[tokio::test(flavor = "multi_thread")]
async fn model_check_counts_valid_replies_and_failures_by_reason_per_operation() {
    use pathwise_fake_llm::{FakeLlm, Script};
    let fake = FakeLlm::start().await;
    fake.respond_with(Arc::new(|request: &Value| {
        let format = &request["response_format"]["json_schema"];
        if format["name"] != "tutor_turn" {
            return Script::Status(500, "Traceback (most recent call last): /srv/secret.py".into());
        }
        let first = |key: &str| format["schema"]["properties"][key]["enum"][0].clone();
        Script::json(json!({
            "mapped_units": [], "action": first("action"), "target_unit_id": first("target_unit_id"),
            "tutor_text": "What do you already know about it?",
            "turn_analysis": { "student_intent": "explain", "understanding_signal": "uncertain",
                               "suggested_prereq_units": [] },
            "concept_card": null, "drill_card": null, "exam_suggestion": null,
        }))
    }));
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path().to_path_buf();
    let base = fake.base_url().to_string();
    let finished = tokio::task::spawn_blocking(move || {
        run(
            &dir,
            &["model", "check", "--turns", "5", "--flows", "1", "--json"],
            &[("PATHWISE_LLM_BASE_URL", &base), ("PATHWISE_LLM_MODEL", "schema-follower")],
        )
    })
    .await
    .unwrap()
    .success();
    let rows: Vec<Value> = finished.stdout.lines().map(|l| serde_json::from_str(l).unwrap()).collect();
    let row = |operation: &str| rows.iter().find(|r| r["operation"] == operation).cloned().unwrap_or(Value::Null);
    let turns = row("tutor_turn");
    assert_eq!((turns["calls"].clone(), turns["valid"].clone()), (json!(5), json!(5)), "{}", finished.stdout);
    assert_eq!(turns["model"], format!("schema-follower at {}", fake.base_url()));
    let inventory = row("diagnostic_inventory");
    assert_eq!(inventory["calls"], 1, "{}", finished.stdout);
    assert_eq!(inventory["not_valid"], json!({ "server_error": 1 }), "{}", finished.stdout);
    assert!(!finished.stdout.contains("secret.py"), "{}", finished.stdout);

    // Without a model there is nothing to check, and it says what to set.
    let tmp = tempfile::tempdir().unwrap();
    let offline = run(tmp.path(), &["model", "check"], &[]).failure();
    assert!(offline.stderr.contains("PATHWISE_LLM_BASE_URL"), "{}", offline.stderr);
}
