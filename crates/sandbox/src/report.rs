//! The outcome of a run, graded outside the sandbox.

use serde::{Deserialize, Serialize};
use serde_json::Value;

use crate::compare;
use crate::protocol::{CaseResult, RunnerOutput};
use crate::supervise::{Ending, Finished, Stopped};
use crate::TestCase;

/// Which limit stopped or hampered the run.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum LimitHit {
    CpuTime,
    WallClock,
    Memory,
    Output,
}

/// One test case: what went in, what was expected, what came out.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct CaseOutcome {
    pub input: Value,
    pub expected: Value,
    /// What the function returned, if it returned.
    pub actual: Option<Value>,
    pub passed: bool,
    /// Why there is no value: the exception it raised, or why the test did not run.
    pub error: Option<String>,
}

/// The graded run.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct TestReport {
    pub passed: usize,
    pub total: usize,
    /// `passed / total`.
    pub credit: f64,
    pub cases: Vec<CaseOutcome>,
    pub limit: Option<LimitHit>,
    /// What stopped every test at once: the code did not load, the function is missing,
    /// or a limit ended the run. Per-test exceptions are in the cases.
    pub error: Option<String>,
    /// What the code printed (stdout and stderr), and tracebacks, cut at the output limit.
    pub stderr: String,
}

/// The limits as the report words them.
pub(crate) struct LimitsInForce {
    pub cpu_seconds: u64,
    pub wall_clock_ms: u128,
    pub memory_bytes: u64,
    pub max_output_bytes: usize,
}

impl LimitsInForce {
    fn describe(&self, limit: LimitHit) -> String {
        match limit {
            LimitHit::CpuTime => format!("the CPU time limit of {} s was reached", self.cpu_seconds),
            LimitHit::WallClock => format!("the time limit of {} was reached", milliseconds(self.wall_clock_ms)),
            LimitHit::Memory => format!("the memory limit of {} MiB was reached", self.memory_bytes / (1024 * 1024)),
            LimitHit::Output => format!("the output limit of {} bytes was reached", self.max_output_bytes),
        }
    }
}

fn milliseconds(ms: u128) -> String {
    if ms.is_multiple_of(1000) {
        format!("{} s", ms / 1000)
    } else {
        format!("{ms} ms")
    }
}

pub(crate) fn assemble(
    tests: &[TestCase],
    runner: RunnerOutput,
    finished: &Finished,
    limits: &LimitsInForce,
) -> TestReport {
    let limit = limit_hit(&runner, finished, limits);
    let error = run_error(&runner, finished, limit, limits);
    let not_run = error.clone().unwrap_or_else(|| "the test did not run".to_string());

    let cases: Vec<CaseOutcome> = tests
        .iter()
        .zip(runner.cases)
        .map(|(test, result)| {
            let (actual, error) = match result {
                Some(CaseResult::Returned(value)) => (Some(value), None),
                Some(CaseResult::Raised(message)) if message.starts_with("MemoryError") => {
                    let limit = limits.describe(LimitHit::Memory);
                    (None, Some(format!("{message}: {limit}")))
                }
                Some(CaseResult::Raised(message)) => (None, Some(message)),
                None => (None, Some(not_run.clone())),
            };
            let passed = actual.as_ref().is_some_and(|value| compare::matches(value, &test.expected));
            CaseOutcome { input: test.input.clone(), expected: test.expected.clone(), actual, passed, error }
        })
        .collect();

    let passed = cases.iter().filter(|case| case.passed).count();
    let total = cases.len();
    TestReport {
        passed,
        total,
        credit: if total == 0 { 0.0 } else { passed as f64 / total as f64 },
        cases,
        limit,
        error,
        stderr: String::from_utf8_lossy(&finished.output).into_owned(),
    }
}

fn limit_hit(runner: &RunnerOutput, finished: &Finished, limits: &LimitsInForce) -> Option<LimitHit> {
    match finished.stopped {
        Some(Stopped::Output) => return Some(LimitHit::Output),
        Some(Stopped::WallClock) => return Some(LimitHit::WallClock),
        None => {}
    }
    // SIGXCPU at the soft limit; SIGKILL at the hard one, one second later, if the code
    // ignored SIGXCPU.
    let over_cpu = finished.cpu_time.as_secs() >= limits.cpu_seconds;
    match finished.ending {
        Ending::Signaled(libc::SIGXCPU) => return Some(LimitHit::CpuTime),
        Ending::Signaled(libc::SIGKILL) if over_cpu => return Some(LimitHit::CpuTime),
        _ => {}
    }
    let out_of_memory_crash = matches!(finished.ending, Ending::Signaled(_))
        && String::from_utf8_lossy(&finished.output).contains("MemoryError");
    if runner.memory_error || out_of_memory_crash {
        return Some(LimitHit::Memory);
    }
    None
}

fn run_error(
    runner: &RunnerOutput,
    finished: &Finished,
    limit: Option<LimitHit>,
    limits: &LimitsInForce,
) -> Option<String> {
    if let Some(load_error) = &runner.load_error {
        return Some(format!("the code did not load: {load_error}"));
    }
    if runner.done {
        // Every test ran; a limit met along the way (memory) is in the cases that met it.
        return None;
    }
    if let Some(limit) = limit {
        return Some(format!("stopped: {}", limits.describe(limit)));
    }
    Some(match finished.ending {
        Ending::Signaled(signal) => format!("the program was killed by signal {signal}"),
        Ending::Exited(status) => {
            format!("the program exited (status {status}) before all tests ran")
        }
    })
}
