//! The web workspace end to end: the real `pathwise serve` with a fake model over HTTP (a
//! tutor that follows the policy), driven in Debian's Chromium by playwright-core and in
//! Debian's Firefox ESR by puppeteer-core over WebDriver BiDi (`tests/e2e/*.mjs`), with
//! screenshots at desktop and phone width saved under `target/e2e-artifacts/`. Skipped, with
//! a note, where a browser or its driver is not installed (`.ci/run` installs them; set
//! PATHWISE_E2E_REQUIRED=1 to fail instead).
//! One browser runs at a time (the scripts' timeouts assume a machine not shared with
//! another browser); each view's tests live in a module beside this file.

mod common;
#[path = "web_e2e/maps.rs"]
mod maps;
#[path = "web_e2e/material.rs"]
mod material;
#[path = "web_e2e/offline_tutor.rs"]
mod offline_tutor;
#[path = "web_e2e/progress.rs"]
mod progress;
#[path = "web_e2e/sessions.rs"]
mod sessions;

pub use common::{serve_with, Served};
use pathwise_fake_llm::{FakeLlm, Script};
use serde_json::{json, Value};
use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::Arc;

const CHROMIUM: &str = "/usr/bin/chromium";
const FIREFOX: &str = "/usr/bin/firefox-esr";

fn e2e_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/e2e")
}

/// Whether Chromium and its driver are here; a note when not.
pub fn ready() -> bool {
    installed(&[
        (Path::new(CHROMIUM).exists(), "Debian's chromium (/usr/bin/chromium)"),
        (e2e_dir().join("node_modules/playwright-core").exists(), "playwright-core (npm ci in crates/cli/tests/e2e)"),
    ])
}

/// Whether Firefox and its driver are here; a note when not.
fn firefox_ready() -> bool {
    installed(&[
        (Path::new(FIREFOX).exists(), "Debian's firefox-esr (/usr/bin/firefox-esr)"),
        (e2e_dir().join("node_modules/puppeteer-core").exists(), "puppeteer-core (npm ci in crates/cli/tests/e2e)"),
    ])
}

fn installed(needs: &[(bool, &str)]) -> bool {
    let node = Command::new("node").arg("--version").output().is_ok();
    let missing: Vec<&str> =
        needs.iter().chain([(node, "node")].iter()).filter(|(here, _)| !here).map(|(_, what)| *what).collect();
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
pub fn policy_following_tutor(request: &Value) -> Script {
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

pub fn serve(model: &str) -> Served {
    serve_with(Some(model), &[])
}

fn artifacts() -> PathBuf {
    let target = std::env::var_os("CARGO_TARGET_DIR")
        .map(PathBuf::from)
        .unwrap_or_else(|| Path::new(env!("CARGO_MANIFEST_DIR")).join("../../target"));
    let dir = target.join("e2e-artifacts");
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

/// Run one browser script against the server, with extra environment variables for it, and
/// return its report (its last line of output, JSON) once it says the run passed.
pub async fn run_script<const N: usize>(
    script: &'static str,
    served: &Served,
    env: [(&'static str, String); N],
) -> Value {
    let base = served.base.clone();
    let signed_in = [("SIGNIN_URL", served.signin.clone()), ("LOCAL_TOKEN", served.token.clone())];
    let env: Vec<(&str, String)> = signed_in.into_iter().chain(env).collect();
    let report = tokio::task::spawn_blocking(move || node_script(script, &base, &env)).await.unwrap();
    println!("{report}");
    assert_eq!(report["ok"], true, "{report}");
    report
}

fn node_script(script: &str, base: &str, env: &[(&str, String)]) -> Value {
    static ONE_AT_A_TIME: std::sync::Mutex<()> = std::sync::Mutex::new(());
    let _turn = ONE_AT_A_TIME.lock().unwrap_or_else(|poisoned| poisoned.into_inner());
    let output = Command::new("node")
        .arg(e2e_dir().join(script))
        .env("BASE_URL", base)
        .env("CHROMIUM", CHROMIUM)
        .env("ARTIFACTS", artifacts())
        .env("EXAM_KEYS", exam_keys().to_string())
        .envs(env.iter().map(|(k, v)| (k, v.as_str())))
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
    run_script("tutor.mjs", &served, []).await;
}

#[tokio::test(flavor = "multi_thread")]
async fn voice_a_lost_connection_a_server_error_and_an_expired_token_lose_nothing() {
    if !ready() {
        return;
    }
    let fake = FakeLlm::start().await;
    fake.respond_with(Arc::new(policy_following_tutor));
    let transcript = "What is a prime number?";
    fake.set_transcript(transcript);
    let served = serve_with(
        Some(fake.base_url()),
        &[("PATHWISE_TRANSCRIPTION_BASE_URL", fake.base_url()), ("PATHWISE_TRANSCRIPTION_MODEL", "whisper-1")],
    );
    let report = run_script("resilience.mjs", &served, [("TRANSCRIPT", transcript.to_string())]).await;
    assert_eq!(fake.recordings().len(), 1, "one recording was transcribed");
    assert!(fake.recordings()[0] > 0, "the recording had sound in it");
    assert!(report["first_load"]["unpacked_bytes"].as_u64().unwrap() < 300 * 1024, "{report}");
    assert_eq!(report["thread_200"]["messages"], 200, "{report}");
}

#[tokio::test(flavor = "multi_thread")]
async fn the_workspace_in_firefox() {
    if !firefox_ready() {
        return;
    }
    let fake = FakeLlm::start().await;
    fake.respond_with(Arc::new(policy_following_tutor));
    let served = serve(fake.base_url());
    run_script("firefox.mjs", &served, [("FIREFOX", FIREFOX.to_string())]).await;
}
