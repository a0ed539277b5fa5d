//! README.md is executable. The server is started as its one block marked `serve`
//! (```` ```sh serve ````) says, in a fresh directory and with no model: its lines run in
//! bash, `cargo install` there doing nothing (the binary under test is on `PATH` already, as
//! the install puts it) and `pathwise serve` listening on a free port (`PATHWISE_PORT=0`).
//! Then its fenced blocks marked `runnable` (```` ```sh runnable ````) run in order, in one
//! bash process with `set -euo pipefail` (so that `TOKEN`, `MAP` and the other values a
//! block captures reach the blocks after it), against that server:
//!
//! - the shell starts in the server's directory, so that `./data` is the server's data
//!   directory and the files the `serve` block wrote are there; `crates` there links to the
//!   checkout's, for the files the README reads;
//! - `pathwise` on `PATH` is the binary under test, and `cargo run --release -- ARGS` runs it;
//! - `curl` is a function that adds `--fail-with-body --show-error` (an HTTP error fails the
//!   block);
//! - the README names the server's address once, `URL=http://127.0.0.1:8080`, and every
//!   example reads it from `$URL`; the runner sets that line to the test's server (and a
//!   test checks that no runnable block writes the address anywhere else);
//! - nothing else is given to it: an operator token, say, is what the README's own blocks
//!   read, as a reader's shell would.
//!
//! A block that fails fails the test, naming its line in README.md and showing its output.
//! Every `sh` block is marked `serve`, `runnable` or `norun` (one that needs a model, another
//! host or a long-running process; the README says why beside it), so that a new example
//! cannot be left unchecked by accident.
//!
//! Needs bash, curl, jq and openssl; without them the test is skipped with a note, unless
//! `PATHWISE_README_REQUIRED` is set (CI), when it fails instead.

mod common;

use common::{drain, lines, ChildGuard};
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

const BIN: &str = env!("CARGO_BIN_EXE_pathwise");
/// Where the README's examples address the server.
const README_URL: &str = "http://127.0.0.1:8080";
/// The one line that says so; every example reads `$URL`.
const ADDRESS_LINE: &str = "URL=http://127.0.0.1:8080";
/// Generous: a debug build migrates a fresh database and installs the shipped courses.
const START_TIMEOUT: Duration = Duration::from_secs(60);
const RUN_TIMEOUT: Duration = Duration::from_secs(600);
/// What the shell prints before each block, with the block's line, to tell whose output is whose.
const MARKER: &str = "@@README.md:";
const DONE: &str = "@@README.md:done";

/// A fenced block of README.md.
#[derive(Debug)]
struct Block {
    /// The line of its opening fence, counted from 1.
    line: usize,
    language: String,
    flags: Vec<String>,
    code: String,
}

impl Block {
    fn is_runnable(&self) -> bool {
        self.flags.iter().any(|f| f == "runnable")
    }

    fn starts_the_server(&self) -> bool {
        self.flags.iter().any(|f| f == "serve")
    }
}

fn readme_path() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../README.md")
}

fn checkout() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..").canonicalize().expect("the checkout's root")
}

/// A fenced block being read: its first line, language, flags, fence length and lines so far.
type OpenBlock<'a> = (usize, String, Vec<String>, usize, Vec<&'a str>);

/// Every fenced block, with its info string split into a language and flags.
fn fenced_blocks(markdown: &str) -> Vec<Block> {
    let mut blocks = Vec::new();
    let mut open: Option<OpenBlock<'_>> = None;
    for (index, line) in markdown.lines().enumerate() {
        let trimmed = line.trim_start();
        let ticks = trimmed.chars().take_while(|c| *c == '`').count();
        match &mut open {
            None if ticks >= 3 => {
                let mut info = trimmed[ticks..].split_whitespace().map(str::to_string);
                let language = info.next().unwrap_or_default();
                open = Some((index + 1, language, info.collect(), ticks, Vec::new()));
            }
            None => {}
            Some((_, _, _, fence, _)) if ticks >= *fence && trimmed[ticks..].trim().is_empty() => {
                let (line, language, flags, _, code) = open.take().unwrap();
                blocks.push(Block { line, language, flags, code: code.join("\n") });
            }
            Some((_, _, _, _, code)) => code.push(line),
        }
    }
    assert!(open.is_none(), "README.md: a fenced block is never closed: {open:?}");
    blocks
}

/// Whether the tools the blocks use are here; a note (or, when required, a failure) if not.
fn tools_present() -> bool {
    let missing: Vec<&str> = ["bash", "curl", "jq", "openssl"]
        .into_iter()
        .filter(|tool| {
            !Command::new("sh")
                .args(["-c", &format!("command -v {tool}")])
                .stdout(Stdio::null())
                .status()
                .is_ok_and(|s| s.success())
        })
        .collect();
    if missing.is_empty() {
        return true;
    }
    let required = std::env::var("PATHWISE_README_REQUIRED").is_ok_and(|v| !v.is_empty() && v != "0");
    assert!(!required, "PATHWISE_README_REQUIRED is set, but {} cannot be found", missing.join(", "));
    eprintln!("note: README test skipped: {} not found (apt-get install {})", missing.join(", "), missing.join(" "));
    false
}

/// The README's `serve` block as the test runs it: `cargo install` does nothing (the binary
/// under test is on `PATH`), and the shell becomes the server (`exec`), so that stopping
/// the child stops the server.
fn serve_script(block: &Block) -> String {
    let serving: Vec<&str> = block.code.lines().filter(|l| l.contains("pathwise serve")).collect();
    assert_eq!(serving.len(), 1, "README.md:{}: the serve block starts `pathwise serve` once", block.line);
    let mut script = String::from(
        r#"set -euo pipefail
cargo() {
  if [ "${1-}" = install ]; then
    command -v pathwise >/dev/null   # installed: the binary under test is on PATH
  else
    echo "the README test runs no cargo command in the serve block but 'cargo install': cargo $*" >&2
    return 1
  fi
}
"#,
    );
    script.push_str(&block.code.replacen("pathwise serve", "exec pathwise serve", 1));
    script.push('\n');
    script
}

/// `pathwise serve` as the README's `serve` block starts it, in `dir` (so `./data` is its
/// data directory), on a free port; returns the server, its URL and its log.
fn start_server(
    dir: &Path,
    bin: &Path,
    block: &Block,
) -> (ChildGuard, String, std::sync::Arc<std::sync::Mutex<String>>) {
    let script = dir.join("../serve.sh");
    std::fs::write(&script, serve_script(block)).unwrap();
    let mut command = Command::new("bash");
    command.arg(&script).current_dir(dir);
    for (name, _) in std::env::vars() {
        if name.starts_with("PATHWISE_") {
            command.env_remove(name);
        }
    }
    let path = format!("{}:{}", bin.display(), std::env::var("PATH").unwrap_or_default());
    command
        .env("PATH", path)
        .env("PATHWISE_PORT", "0")
        .env("PATHWISE_LOG", "warn")
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    let mut child = ChildGuard(command.spawn().expect("start pathwise serve"));
    let (log, _) = drain(child.0.stderr.take().unwrap());
    let banner = lines(&mut child.0);
    let deadline = Instant::now() + START_TIMEOUT;
    let mut url = None;
    loop {
        let line = banner.recv_timeout(deadline.saturating_duration_since(Instant::now())).unwrap_or_else(|_| {
            panic!(
                "README.md:{}: the serve block started no server that printed a complete banner in time\n{}\nlog: {}",
                block.line,
                block.code,
                log.lock().unwrap()
            )
        });
        if let Some((_, rest)) = line.split_once(" is listening on ") {
            url = rest.split(' ').next().map(str::to_string);
        }
        if line.starts_with("API reference:") {
            break;
        }
    }
    // The rest of the banner (a used sign-in link prints the next one) is read and dropped.
    std::thread::spawn(move || while banner.recv().is_ok() {});
    (child, url.expect("a listening line in the banner"), log)
}

/// The script: what the runner defines, then each runnable block after its marker.
fn script(blocks: &[&Block]) -> String {
    let mut script = String::from(
        r#"set -euo pipefail
exec 2>&1
# An HTTP error fails the block.
curl() {
  command curl --fail-with-body --show-error "$@"
}
# `cargo run --release -- ARGS` as the README writes it: the binary under test.
cargo() {
  if [ "${1-}" = run ] && [ "${2-}" = --release ] && [ "${3-}" = -- ]; then
    shift 3
    pathwise "$@"
  else
    echo "the README test runs no cargo command but 'cargo run --release -- ...': cargo $*" >&2
    return 1
  fi
}
"#,
    );
    for block in blocks {
        script.push_str(&format!("printf '\\n{MARKER}%d\\n' {}\n", block.line));
        // The README's address is the test server's.
        let code = block.code.replace(ADDRESS_LINE, "URL=$README_TEST_SERVER_URL");
        script.push_str(&code);
        script.push('\n');
    }
    script.push_str(&format!("printf '\\n{DONE}\\n'\n"));
    script
}

#[test]
fn every_sh_block_is_marked_runnable_or_norun() {
    let readme = std::fs::read_to_string(readme_path()).expect("README.md");
    let unmarked: Vec<String> = fenced_blocks(&readme)
        .iter()
        .filter(|b| matches!(b.language.as_str(), "sh" | "bash" | "shell" | "console"))
        .filter(|b| !b.flags.iter().any(|f| f == "runnable" || f == "norun" || f == "serve"))
        .map(|b| format!("README.md:{}", b.line))
        .collect();
    assert!(
        unmarked.is_empty(),
        "mark each of these blocks ```sh runnable (the README test runs it, in order, in one shell) or \
         ```sh norun (and say why beside it): {}",
        unmarked.join(", ")
    );
    let serve: Vec<usize> = fenced_blocks(&readme).iter().filter(|b| b.starts_the_server()).map(|b| b.line).collect();
    assert_eq!(serve.len(), 1, "README.md: one block (```sh serve) starts the server the examples run on: {serve:?}");
}

#[test]
fn the_readme_names_the_servers_address_once_and_every_example_reads_it() {
    let readme = std::fs::read_to_string(readme_path()).expect("README.md");
    let blocks = fenced_blocks(&readme);
    let mut definitions = Vec::new();
    let mut elsewhere = Vec::new();
    for block in blocks.iter().filter(|b| b.is_runnable()) {
        for (offset, line) in block.code.lines().enumerate() {
            let at = format!("README.md:{}", block.line + 1 + offset);
            if line.trim_start().starts_with(ADDRESS_LINE) {
                definitions.push(at);
            } else if line.contains("127.0.0.1:8080") || line.contains("localhost:8080") {
                elsewhere.push(format!("{at}: {}", line.trim()));
            }
        }
    }
    assert_eq!(
        definitions.len(),
        1,
        "the README defines `{ADDRESS_LINE}` once in its runnable blocks: {definitions:?}"
    );
    assert!(
        elsewhere.is_empty(),
        "these examples write the server's address instead of reading $URL:\n{}",
        elsewhere.join("\n")
    );
}

#[test]
fn the_runnable_blocks_of_the_readme_run_in_order_against_a_fresh_server() {
    if !tools_present() {
        return;
    }
    let readme = std::fs::read_to_string(readme_path()).expect("README.md");
    let blocks = fenced_blocks(&readme);
    let runnable: Vec<&Block> = blocks.iter().filter(|b| b.is_runnable()).collect();
    assert!(runnable.len() >= 5, "README.md has only {} runnable blocks", runnable.len());
    let serve = blocks.iter().find(|b| b.starts_the_server()).expect("README.md: a ```sh serve block");
    assert!(
        runnable.first().is_some_and(|first| first.line > serve.line),
        "README.md: the server is started (```sh serve) before the first runnable block"
    );

    let tmp = tempfile::tempdir().unwrap();
    let work = tmp.path().join("work");
    let bin = tmp.path().join("bin");
    std::fs::create_dir_all(&work).unwrap();
    std::fs::create_dir_all(&bin).unwrap();
    std::os::unix::fs::symlink(BIN, bin.join("pathwise")).unwrap();
    std::os::unix::fs::symlink(checkout().join("crates"), work.join("crates")).unwrap();
    let (_server, url, server_log) = start_server(&work, &bin, serve);
    assert_ne!(url, README_URL, "the test's server is on a port of its own");

    let script_path = tmp.path().join("readme.sh");
    std::fs::write(&script_path, script(&runnable)).unwrap();
    let mut command = Command::new("bash");
    command.arg(&script_path).current_dir(&work);
    for (name, _) in std::env::vars() {
        if name.starts_with("PATHWISE_") {
            command.env_remove(name);
        }
    }
    let path = format!("{}:{}", bin.display(), std::env::var("PATH").unwrap_or_default());
    command
        .env("PATH", path)
        .env("README_TEST_SERVER_URL", &url)
        .env("PATHWISE_LOG", "warn")
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    std::os::unix::process::CommandExt::process_group(&mut command, 0);
    let mut shell = ChildGuard(command.spawn().expect("start bash"));
    let (output, reader) = drain(shell.0.stdout.take().unwrap());
    let deadline = Instant::now() + RUN_TIMEOUT;
    let status = loop {
        if let Some(status) = shell.0.try_wait().expect("wait for bash") {
            break Some(status);
        }
        if Instant::now() > deadline {
            // The whole group: a block's own children (a stream that never closes) too.
            let _ = Command::new("kill").args(["-KILL", &format!("-{}", shell.0.id())]).status();
            break None;
        }
        std::thread::sleep(Duration::from_millis(50));
    };
    if status.is_some() {
        reader.join().expect("the output reader");
    }
    let output = output.lock().unwrap().clone();
    // Shown with --nocapture.
    println!("{output}");
    if status.is_some_and(|s| s.success()) && output.contains(DONE) {
        return;
    }

    // Name the block that was running, with its code and what it printed.
    let last = output.rfind(MARKER).map(|at| {
        let rest = &output[at + MARKER.len()..];
        let (line, printed) = rest.split_once('\n').unwrap_or((rest, ""));
        (line.trim().parse::<usize>().ok(), printed.to_string())
    });
    let (line, printed) = last.unwrap_or((None, output.clone()));
    let block = line.and_then(|line| runnable.iter().find(|b| b.line == line));
    let what = match status {
        None => format!("did not finish within {RUN_TIMEOUT:?}"),
        Some(status) => format!("failed ({status})"),
    };
    let log = server_log.lock().unwrap().clone();
    let log_tail: String = log.chars().rev().take(3000).collect::<Vec<_>>().into_iter().rev().collect();
    panic!(
        "README.md:{}: this runnable block {what}:\n{}\n--- its output ---\n{printed}\n--- the server's log (end) ---\n{log_tail}",
        line.map_or("?".to_string(), |l| l.to_string()),
        block.map_or("(before the first block: the runner's own prelude)".to_string(), |b| b.code.clone()),
    );
}

#[test]
fn the_readme_lists_every_mcp_prompt_with_its_arguments() {
    let readme = std::fs::read_to_string(readme_path()).expect("README.md");
    for prompt in pathwise_server::mcp::prompts::list() {
        let name = prompt.name.to_string();
        let row = readme
            .lines()
            .find(|l| l.starts_with(&format!("| `{name}` |")))
            .unwrap_or_else(|| panic!("README.md: no row `| `{name}` | ...` in the MCP section's table of prompts"));
        let arguments_cell = row.split('|').nth(2).unwrap_or_default();
        for argument in prompt.arguments.unwrap_or_default() {
            let shown = format!("`{}`", argument.name);
            assert!(arguments_cell.contains(&shown), "README.md: the {name} prompt's row misses {shown}: {row}");
            let optional = format!("`{}` (optional", argument.name);
            assert_eq!(
                arguments_cell.contains(&optional),
                argument.required != Some(true),
                "README.md: the {name} prompt's row must say whether `{}` is optional: {row}",
                argument.name
            );
        }
    }
}
