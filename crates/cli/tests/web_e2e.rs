//! The web workspace end to end: the real `pathwise serve` with a fake model over HTTP (a
//! tutor that follows the policy), driven in Debian's Chromium by playwright-core
//! (`tests/e2e/*.mjs`), with screenshots at desktop and phone width saved under
//! `target/e2e-artifacts/`. Skipped, with a note, where Chromium or playwright-core is not
//! installed (`.ci/run` installs both; set PATHWISE_E2E_REQUIRED=1 to fail instead).

mod common;

use common::{lines, ChildGuard};
use pathwise_fake_llm::{FakeLlm, Script};
use serde_json::{json, Value};
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::sync::Arc;
use std::time::Duration;

const BIN: &str = env!("CARGO_BIN_EXE_pathwise");
const CHROMIUM: &str = "/usr/bin/chromium";

fn e2e_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/e2e")
}

/// Whether the browser and the driver are here; a note when not.
fn ready() -> bool {
    let missing: Vec<&str> = [
        (!Path::new(CHROMIUM).exists()).then_some("Debian's chromium (/usr/bin/chromium)"),
        (!e2e_dir().join("node_modules/playwright-core").exists())
            .then_some("playwright-core (npm ci in crates/cli/tests/e2e)"),
        Command::new("node").arg("--version").output().is_err().then_some("node"),
    ]
    .into_iter()
    .flatten()
    .collect();
    if missing.is_empty() {
        return true;
    }
    let message = format!("the browser tests need {}", missing.join(", "));
    assert!(std::env::var("PATHWISE_E2E_REQUIRED").is_err(), "{message}");
    eprintln!("note: {message}; skipped");
    false
}

/// A tutor that keeps to the policy it is given: an exam question when one is allowed and
/// offered, a drill when the learner asks to practise, a Socratic question otherwise; and a
/// grader that takes 42 as the right answer.
fn policy_following_tutor(request: &Value) -> Script {
    let messages = request["messages"].as_array().cloned().unwrap_or_default();
    let text = |m: &Value| m["content"].as_str().unwrap_or("").to_string();
    if request["response_format"]["json_schema"]["name"] == "drill_grade" {
        let prompt = messages.first().map(text).unwrap_or_default();
        let answer =
            prompt.split("Student answer:").nth(1).unwrap_or("").lines().next().unwrap_or("").trim().to_string();
        let correct = answer.contains("42");
        return Script::json(json!({ "isCorrect": correct,
            "feedbackText": if correct { "Right: six sevens are 42." } else { "Not quite: six sevens are 42." },
            "commonMistakeTag": Value::Null }));
    }
    let part = |prefix: &str| -> Value {
        messages
            .iter()
            .find_map(|m| text(m).strip_prefix(prefix).map(|j| serde_json::from_str(j).unwrap_or(Value::Null)))
            .unwrap_or(Value::Null)
    };
    let (policy, context) = (part("POLICY: "), part("CONTEXT: "));
    let focus = policy["focusUnitId"].as_str().unwrap_or("").to_string();
    let allowed = |a: &str| policy["allowedActions"].as_array().is_some_and(|v| v.iter().any(|x| x == a));
    let event = context["clientEvent"]["type"].as_str().unwrap_or("NONE").to_string();
    let student = messages.last().map(text).unwrap_or_default().to_lowercase();
    let asks_for_practice = student.contains("drill") || student.contains("practi");
    let base = json!({ "mapped_units": [], "target_unit_id": focus, "turn_analysis": { "student_intent": "solve",
        "understanding_signal": "uncertain", "suggested_prereq_units": [] }, "concept_card": null, "drill_card": null,
        "exam_suggestion": null });
    let mut turn = base;
    if let (true, Some(candidate)) = (allowed("EXAM_BLOCK"), context["examCandidates"].get(0)) {
        turn["action"] = json!("EXAM_BLOCK");
        turn["tutor_text"] = json!("You are ready for an exam question.");
        turn["exam_suggestion"] =
            json!({ "question_id": candidate["questionId"], "difficultyTier": policy["desiredExamTier"] });
    } else if allowed("DRILL_CARD") && ((event != "NONE" && event != "DRILL_STUCK") || asks_for_practice) {
        turn["action"] = json!("DRILL_CARD");
        turn["tutor_text"] = json!("Try this one.");
        turn["drill_card"] = json!({ "prompt": "Multiply", "question_latex": "6 \\times 7" });
    } else {
        turn["action"] = json!("SOCRATIC_QUESTION");
        turn["tutor_text"] = json!("What do you already know about this? Try a drill when you are ready.");
    }
    Script::json(turn)
}

struct Served {
    _child: ChildGuard,
    base: String,
    _dir: tempfile::TempDir,
}

fn serve(model: &str) -> Served {
    let dir = tempfile::tempdir().unwrap();
    let mut command = Command::new(BIN);
    command.args(["serve", "--port", "0", "--data-dir"]).arg(dir.path().join("data")).current_dir(dir.path());
    for (name, _) in std::env::vars() {
        if name.starts_with("PATHWISE_") {
            command.env_remove(name);
        }
    }
    command
        .env("PATHWISE_LOG", "warn")
        .env("PATHWISE_LLM_BASE_URL", model)
        .env("PATHWISE_LLM_MODEL", "tutor")
        .env("PATHWISE_SCHEDULER_ENABLED", "false")
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::inherit());
    let mut child = ChildGuard(command.spawn().expect("start pathwise serve"));
    let banner = lines(&mut child.0);
    let deadline = std::time::Instant::now() + Duration::from_secs(60);
    loop {
        let line =
            banner.recv_timeout(deadline.saturating_duration_since(std::time::Instant::now())).expect("the banner");
        if let Some((_, url)) = line.split_once("is listening on ") {
            let base = url.split_whitespace().next().unwrap().to_string();
            return Served { _child: child, base, _dir: dir };
        }
    }
}

fn artifacts() -> PathBuf {
    let target = std::env::var_os("CARGO_TARGET_DIR")
        .map(PathBuf::from)
        .unwrap_or_else(|| Path::new(env!("CARGO_MANIFEST_DIR")).join("../../target"));
    let dir = target.join("e2e-artifacts");
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

/// Run one browser script against the server; its last line of output is a JSON report.
fn browser(script: &str, base: &str) -> Value {
    let output = Command::new("node")
        .arg(e2e_dir().join(script))
        .env("BASE_URL", base)
        .env("CHROMIUM", CHROMIUM)
        .env("ARTIFACTS", artifacts())
        .env("EXAM_KEYS", exam_keys().to_string())
        .current_dir(e2e_dir())
        .output()
        .expect("run node");
    let stdout = String::from_utf8_lossy(&output.stdout);
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(output.status.success(), "{script} failed\nstdout:\n{stdout}\nstderr:\n{stderr}");
    let report = stdout.lines().last().unwrap_or("{}");
    serde_json::from_str(report)
        .unwrap_or_else(|e| panic!("{script}: the last line is not a JSON report ({e}): {stdout}"))
}

/// The key of every shipped exam question, so that a script can answer wrongly on purpose.
fn exam_keys() -> Value {
    let library = pathwise_items::Library::builtin();
    let keys: serde_json::Map<String, Value> = pathwise_course::builtin_courses(&library)
        .iter()
        .flat_map(|c| c.questions().iter().map(|q| (q.id.clone(), json!(q.correct))))
        .collect();
    Value::Object(keys)
}

#[tokio::test(flavor = "multi_thread")]
async fn a_full_tutor_loop_in_the_browser() {
    if !ready() {
        return;
    }
    let fake = FakeLlm::start().await;
    fake.respond_with(Arc::new(policy_following_tutor));
    let served = serve(fake.base_url());
    let base = served.base.clone();
    let report = tokio::task::spawn_blocking(move || browser("tutor.mjs", &base)).await.unwrap();
    println!("{report}");
    assert_eq!(report["ok"], true, "{report}");
}
