//! The public entry point: check the host once, then run submissions.

use std::ffi::CString;
use std::os::unix::ffi::OsStrExt;
use std::os::unix::process::CommandExt;
use std::path::Path;
use std::process::{Command, Stdio};

use serde::{Deserialize, Serialize};
use serde_json::{json, Value};

use crate::confine::{self, Confinement, Limit};
use crate::interpreter::{self, Interpreter};
use crate::isolation::{self, Isolation};
use crate::protocol::{self, Payload, RUNNER};
use crate::report::{self, LimitsInForce};
use crate::supervise::{self, Caps};
use crate::syscall_filter::{self, SyscallFilters};
use crate::{SandboxConfig, SandboxError, TestReport};

/// The learner's code and the function the tests call.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Submission {
    pub code: String,
    pub function_name: String,
}

/// One test: the positional arguments (a JSON array) and the value the function should
/// return. Only `input` enters the sandbox.
///
/// Grading is JSON-semantic: `3` equals `3.0`; numbers that are not both integers are
/// equal within 1e-9 relative (1e-12 absolute); a tuple is an array; `true` is not `1`;
/// values that have no JSON form (sets, NaN) fail their test.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct TestCase {
    pub input: Value,
    pub expected: Value,
}

/// Runs Python submissions in a confined child process. Cheap to share: wrap it in an
/// `Arc` and call [`Sandbox::run_tests`] from blocking threads.
#[derive(Debug, Clone)]
pub struct Sandbox {
    config: SandboxConfig,
    interpreter: Interpreter,
    isolation: Isolation,
    filters: SyscallFilters,
    /// The second-stage filter as the runner loads it.
    after_start_hex: String,
}

/// Longest error message kept per test.
const MAX_ERROR_CHARS: usize = 500;
/// Most files the code may have open at once.
const MAX_OPEN_FILES: u64 = 64;
/// Overhead of one result line beyond the value itself.
const RESULT_LINE_OVERHEAD: usize = 256;

const SELF_TEST_CODE: &str = "def answer(x):\n    return x + 1\n";

impl Sandbox {
    /// Checks the configuration, resolves the interpreter, checks the kernel's isolation
    /// features, and runs one trivial submission through the full sandbox. Any failure is
    /// an error naming what is missing: code is never run with less isolation.
    pub fn new(config: SandboxConfig) -> Result<Sandbox, SandboxError> {
        config.validate()?;
        let interpreter = interpreter::resolve(config.python.as_deref())?;
        let isolation = isolation::detect()?;
        let filters = syscall_filter::build()?;
        let after_start_hex = syscall_filter::to_hex(&filters.after_start);
        let sandbox = Sandbox { config, interpreter, isolation, filters, after_start_hex };
        sandbox.self_test()?;
        Ok(sandbox)
    }

    /// The isolation layers in force, for start-up logs and health reports.
    pub fn isolation(&self) -> Isolation {
        self.isolation
    }

    pub fn config(&self) -> &SandboxConfig {
        &self.config
    }

    /// The real interpreter executable the sandbox runs.
    pub fn python(&self) -> &Path {
        &self.interpreter.executable
    }

    /// The interpreter's version (major, minor, micro).
    pub fn python_version(&self) -> (u32, u32, u32) {
        self.interpreter.version
    }

    /// Runs `submission` against every test and grades the results. Blocking: call it
    /// from a thread that may wait (for example `tokio::task::spawn_blocking`).
    ///
    /// Errors are reserved for bad requests and host problems; whatever the code does
    /// (a syntax error, exceptions, limits) is in the report.
    pub fn run_tests(&self, submission: &Submission, tests: &[TestCase]) -> Result<TestReport, SandboxError> {
        self.check_request(submission, tests)?;

        let scratch = tempfile::Builder::new()
            .prefix("pathwise-sandbox-")
            .tempdir()
            .map_err(SandboxError::io("creating the scratch directory"))?;
        let max_value_bytes = self.config.max_output_bytes / tests.len();
        let payload = serde_json::to_vec(&Payload {
            code: &submission.code,
            function: &submission.function_name,
            inputs: tests.iter().map(|test| &test.input).collect(),
            seccomp: &self.after_start_hex,
            max_error_chars: MAX_ERROR_CHARS,
            max_value_bytes,
        })
        .map_err(|e| SandboxError::Io { context: "encoding the payload", source: e.into() })?;

        let confinement = self.confinement(scratch.path())?;
        let mut command = self.command();
        // SAFETY: `Confinement::apply` only makes async-signal-safe system calls on data
        // prepared before the fork.
        unsafe {
            command.pre_exec(move || confinement.apply());
        }
        let child = command.spawn().map_err(spawn_error)?;
        // The parent's copies of the ruleset descriptor go with the command.
        drop(command);

        let caps = Caps {
            wall_clock: self.config.wall_clock,
            results: self.config.max_output_bytes + RESULT_LINE_OVERHEAD * (tests.len() + 4),
            output: self.config.max_output_bytes,
        };
        let finished = supervise::supervise(child, &payload, &caps)?;
        let runner = protocol::parse(&finished.results, tests.len());
        if !runner.ready {
            return Err(SandboxError::RunnerFailed {
                detail: runner.fatal.unwrap_or_else(|| {
                    let output = String::from_utf8_lossy(&finished.output);
                    let last = output.lines().last().unwrap_or("").trim().to_string();
                    format!("it ended ({:?}) before it was ready: {last}", finished.ending)
                }),
            });
        }
        let report = report::assemble(tests, runner, &finished, &self.limits_in_force());
        scratch.close().map_err(SandboxError::io("removing the scratch directory"))?;
        Ok(report)
    }

    fn check_request(&self, submission: &Submission, tests: &[TestCase]) -> Result<(), SandboxError> {
        let size = submission.code.len();
        if size > self.config.max_code_bytes {
            return Err(SandboxError::CodeTooLarge { size, limit: self.config.max_code_bytes });
        }
        if !is_identifier(&submission.function_name) {
            return Err(SandboxError::InvalidFunctionName { name: submission.function_name.clone() });
        }
        if tests.is_empty() {
            return Err(SandboxError::NoTests);
        }
        for (index, test) in tests.iter().enumerate() {
            if !test.input.is_array() {
                return Err(SandboxError::InvalidTestInput { index, found: json_kind(&test.input) });
            }
        }
        Ok(())
    }

    fn command(&self) -> Command {
        let mut command = Command::new(&self.interpreter.executable);
        // -S: no site packages (pure-Python tasks need none); -B: no bytecode files. The
        // environment is ours alone, so PYTHON* variables are trusted (isolated mode -I
        // would also drop PYTHONHASHSEED, which makes runs repeatable).
        command
            .args(["-S", "-B", "-c", RUNNER])
            .env_clear()
            .env("PYTHONHASHSEED", "0")
            .env("PYTHONDONTWRITEBYTECODE", "1")
            .env("PYTHONUTF8", "1")
            .env("PYTHONIOENCODING", "utf-8")
            .env("LC_ALL", "C.UTF-8")
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .process_group(0);
        command
    }

    fn confinement(&self, scratch: &Path) -> Result<Confinement, SandboxError> {
        // SAFETY: getters without side effects.
        let (uid, gid) = unsafe { (libc::geteuid(), libc::getegid()) };
        let memory = self.config.memory_bytes;
        let cpu = self.config.cpu_seconds();
        let scratch_bytes = self.config.scratch_bytes;
        let limits: Vec<Limit> = vec![
            // SIGXCPU at the soft limit, SIGKILL a second later if it is ignored.
            (libc::RLIMIT_CPU, cpu, cpu + 1),
            (libc::RLIMIT_AS, memory, memory),
            (libc::RLIMIT_FSIZE, scratch_bytes, scratch_bytes),
            (libc::RLIMIT_NOFILE, MAX_OPEN_FILES, MAX_OPEN_FILES),
            (libc::RLIMIT_NPROC, 1, 1),
            (libc::RLIMIT_CORE, 0, 0),
            (libc::RLIMIT_MEMLOCK, 0, 0),
            (libc::RLIMIT_MSGQUEUE, 0, 0),
        ];
        let c_string = |text: String| {
            CString::new(text).map_err(|_| SandboxError::Io {
                context: "preparing the confinement",
                source: std::io::Error::other("a path contains a NUL byte"),
            })
        };
        let scratch_path = CString::new(scratch.as_os_str().as_bytes()).map_err(|_| SandboxError::Io {
            context: "preparing the confinement",
            source: std::io::Error::other("the scratch path contains a NUL byte"),
        })?;
        Ok(Confinement {
            uid_map: c_string(format!("0 {uid} 1"))?,
            gid_map: c_string(format!("0 {gid} 1"))?,
            scratch: scratch_path,
            tmpfs_options: c_string(format!("size={scratch_bytes},nr_inodes=1024,mode=0700"))?,
            landlock_ruleset: crate::filesystem::ruleset_for_run(&self.interpreter)?,
            scratch_access: crate::filesystem::scratch_access(self.isolation.landlock_abi),
            limits,
            seccomp: self.filters.before_exec.clone(),
        })
    }

    fn limits_in_force(&self) -> LimitsInForce {
        LimitsInForce {
            cpu_seconds: self.config.cpu_seconds(),
            wall_clock_ms: self.config.wall_clock.as_millis(),
            memory_bytes: self.config.memory_bytes,
            max_output_bytes: self.config.max_output_bytes,
        }
    }

    fn self_test(&self) -> Result<(), SandboxError> {
        let submission = Submission { code: SELF_TEST_CODE.to_string(), function_name: "answer".to_string() };
        let tests = [TestCase { input: json!([41]), expected: json!(42) }];
        let report = self.run_tests(&submission, &tests).map_err(|error| match error {
            SandboxError::Confinement { step, mechanism, source } => SandboxError::Unavailable {
                mechanism: mechanism.to_string(),
                reason: format!("{step} failed: {source}"),
            },
            other => other,
        })?;
        if report.passed != 1 {
            return Err(SandboxError::RunnerFailed {
                detail: format!(
                    "the self-test did not pass: {}; output: {}",
                    report.error.or_else(|| report.cases[0].error.clone()).unwrap_or_default(),
                    report.stderr.trim()
                ),
            });
        }
        Ok(())
    }
}

fn spawn_error(error: std::io::Error) -> SandboxError {
    let (step, cause) = confine::decode_failure(&error);
    match step {
        Some(step) => SandboxError::Confinement { step: step.describe(), mechanism: step.mechanism(), source: cause },
        None => SandboxError::Io { context: "starting the interpreter", source: cause },
    }
}

fn is_identifier(name: &str) -> bool {
    let mut chars = name.chars();
    chars.next().is_some_and(|first| first == '_' || first.is_alphabetic())
        && chars.all(|c| c == '_' || c.is_alphanumeric())
}

fn json_kind(value: &Value) -> &'static str {
    match value {
        Value::Null => "null",
        Value::Bool(_) => "boolean",
        Value::Number(_) => "number",
        Value::String(_) => "string",
        Value::Array(_) => "array",
        Value::Object(_) => "object",
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn identifiers_follow_python() {
        assert!(is_identifier("count_chars"));
        assert!(is_identifier("_private2"));
        assert!(is_identifier("größe"));
        assert!(!is_identifier(""));
        assert!(!is_identifier("2fast"));
        assert!(!is_identifier("a-b"));
        assert!(!is_identifier("f(); import os"));
    }
}
