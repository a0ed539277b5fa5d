//! What the binary's tests share: the tool list the MCP server must offer, and running
//! child processes without leaving any behind.
#![allow(dead_code)]

use std::io::{BufRead, BufReader, Read};
use std::path::Path;
use std::process::{Child, Command, Output, Stdio};
use std::sync::{mpsc, Arc, Mutex};
use std::time::Duration;

/// Every tool, named as the specifications name the operations.
pub const TOOLS: &[&str] = &[
    "mind_map_create",
    "mind_map_get",
    "mind_map_list",
    "mind_map_update_status",
    "mind_map_node_create",
    "mind_map_node_get",
    "mind_map_node_list",
    "mind_map_node_update",
    "mind_map_edge_create",
    "mind_map_edge_delete",
    "mind_map_frontier",
    "mind_map_subtree",
    "curriculum_generate",
    "mind_map_import_outline",
    "curriculum_replan",
    "curriculum_next_node",
    "mastery_record_response",
    "mastery_get_node_history",
    "mastery_get_map_summary",
    "mastery_detect_struggles",
    "spaced_repetition_record_response",
    "spaced_repetition_pending_reviews",
    "spaced_repetition_schedule_cleanup",
    "analytics_get_snapshot",
    "analytics_get_trend",
    "analytics_get_cross_topic",
    "teaching_flow_start",
    "teaching_flow_get",
    "teaching_flow_advance",
    "teaching_flow_abandon",
    "teaching_flow_list",
    "diagnostic_start",
    "diagnostic_record_probe",
    "diagnostic_complete",
    "course_list",
    "course_get",
    "library_assessments",
    "library_skills",
    "session_create",
    "session_run",
    "session_respond",
    "session_get",
    "session_list",
    "session_messages",
    "session_end",
    "preferences_get",
    "preferences_update",
    "fsrs_fit",
    "review_log_export",
    "tutor_thread_create",
    "tutor_thread_list",
    "tutor_thread_get",
    "tutor_turn",
    "tutor_drill_grade",
    "tutor_exam_submit",
    "tutor_support_viewed",
    "tutor_snapshot",
    "tutor_thread_messages",
    "tutor_turn_log",
    "author_ingest",
    "author_documents",
    "author_document_get",
    "author_document_delete",
    "author_draft_outline",
    "author_drafts",
    "author_draft_get",
    "author_draft_edit",
    "author_draft_units",
    "author_draft_export",
    "author_draft_delete",
    "author_draft_publish",
    "author_course_shares",
    "author_course_share",
    "author_course_unshare",
];

/// Kills the child when dropped, so that no test leaves a server behind.
pub struct ChildGuard(pub Child);

impl Drop for ChildGuard {
    fn drop(&mut self) {
        if let Ok(None) = self.0.try_wait() {
            let _ = self.0.kill();
        }
        let _ = self.0.wait();
    }
}

/// Collect a pipe on a thread of its own, so that the child never blocks on a full pipe.
/// Returns what has been read so far, and the thread, which ends when the pipe closes.
pub fn drain(mut pipe: impl Read + Send + 'static) -> (Arc<Mutex<String>>, std::thread::JoinHandle<()>) {
    let collected = Arc::new(Mutex::new(String::new()));
    let sink = collected.clone();
    let reader = std::thread::spawn(move || {
        let mut buffer = [0u8; 4096];
        while let Ok(n) = pipe.read(&mut buffer) {
            if n == 0 {
                break;
            }
            sink.lock().unwrap().push_str(&String::from_utf8_lossy(&buffer[..n]));
        }
    });
    (collected, reader)
}

/// The child's stdout, line by line, read on a thread of its own.
pub fn lines(child: &mut Child) -> mpsc::Receiver<String> {
    let (lines_tx, lines) = mpsc::channel();
    let stdout = child.stdout.take().expect("stdout is piped");
    std::thread::spawn(move || {
        for line in BufReader::new(stdout).lines() {
            let Ok(line) = line else { break };
            if lines_tx.send(line).is_err() {
                break;
            }
        }
    });
    lines
}

/// `pathwise <subcommand> <args>` run to its end in `dir` (so that no `./pathwise.toml` is
/// read) with none of the caller's `PATHWISE_*` variables and quiet logs.
pub fn run_subcommand(dir: &Path, subcommand: &str, args: &[&str]) -> Output {
    let mut command = Command::new(env!("CARGO_BIN_EXE_pathwise"));
    command.arg(subcommand).args(args).current_dir(dir);
    for (name, _) in std::env::vars() {
        if name.starts_with("PATHWISE_") {
            command.env_remove(name);
        }
    }
    command.env("PATHWISE_LOG", "warn").stdin(Stdio::null());
    command.output().expect("the pathwise binary runs")
}

/// A child's output as text.
pub fn text(bytes: &[u8]) -> String {
    String::from_utf8_lossy(bytes).into_owned()
}

pub struct Served {
    _child: ChildGuard,
    pub base: String,
    /// The one-time sign-in link the server printed.
    pub signin: String,
    /// The local learner's token, from the data directory.
    pub token: String,
    /// The server's working directory; its SQLite database is `data/pathwise.db` inside.
    pub dir: tempfile::TempDir,
}

/// `pathwise serve` on a free port with a fresh data directory, the model at `model` (none:
/// offline), and these extra settings (environment variables).
pub fn serve_with(model: Option<&str>, settings: &[(&str, &str)]) -> Served {
    let dir = tempfile::tempdir().unwrap();
    let mut command = Command::new(env!("CARGO_BIN_EXE_pathwise"));
    command.args(["serve", "--port", "0", "--data-dir"]).arg(dir.path().join("data")).current_dir(dir.path());
    for (name, _) in std::env::vars() {
        if name.starts_with("PATHWISE_") {
            command.env_remove(name);
        }
    }
    if let Some(model) = model {
        command.env("PATHWISE_LLM_BASE_URL", model).env("PATHWISE_LLM_MODEL", "tutor");
    }
    command
        .env("PATHWISE_LOG", "warn")
        .env("PATHWISE_SCHEDULER_ENABLED", "false")
        .envs(settings.iter().copied())
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::inherit());
    let mut child = ChildGuard(command.spawn().expect("start pathwise serve"));
    let banner = lines(&mut child.0);
    let deadline = std::time::Instant::now() + Duration::from_secs(60);
    let mut base = None;
    loop {
        let line =
            banner.recv_timeout(deadline.saturating_duration_since(std::time::Instant::now())).expect("the banner");
        if let Some((_, url)) = line.split_once("is listening on ") {
            base = Some(url.split_whitespace().next().unwrap().to_string());
        }
        if let Some((_, link)) = line.split_once("Workspace: ") {
            let signin = link.split_whitespace().next().unwrap().to_string();
            let token = std::fs::read_to_string(dir.path().join("data/local-token")).unwrap().trim().to_string();
            let base = base.expect("the address comes first");
            return Served { _child: child, base, signin, token, dir };
        }
    }
}
