//! What the parent sends the runner (stdin, one JSON document) and what the runner sends
//! back (stdout, one JSON object per line).
//!
//! Expected values never cross: the runner reports what the function returned, and the
//! parent compares. Everything on the result stream may be forged by hostile code (it runs
//! in the same process), which is harmless: forging a value is no easier than returning it.

use serde::{Deserialize, Serialize};
use serde_json::Value;

/// The runner, embedded so the crate carries everything it runs.
pub(crate) const RUNNER: &str = include_str!("runner.py");

#[derive(Serialize)]
pub(crate) struct Payload<'a> {
    pub code: &'a str,
    pub function: &'a str,
    pub inputs: Vec<&'a Value>,
    /// The second-stage seccomp program, hex-encoded `struct sock_filter` entries.
    pub seccomp: &'a str,
    pub max_error_chars: usize,
    pub max_value_bytes: usize,
}

/// One line of the result stream. Each kind of line sets its own fields.
#[derive(Deserialize, Default)]
#[serde(default)]
struct Line {
    ready: bool,
    fatal: Option<String>,
    load_error: Option<String>,
    case: Option<usize>,
    value: Option<String>,
    error: Option<String>,
    memory: bool,
    done: bool,
}

/// What one test produced inside the sandbox.
#[derive(Debug, Clone, PartialEq)]
pub(crate) enum CaseResult {
    Returned(Value),
    Raised(String),
}

#[derive(Debug, Default)]
pub(crate) struct RunnerOutput {
    /// The runner started and installed its filter: learner code may have run from here on.
    pub ready: bool,
    /// The runner could not set itself up (before any learner code ran).
    pub fatal: Option<String>,
    pub load_error: Option<String>,
    /// A `MemoryError` was raised somewhere.
    pub memory_error: bool,
    pub cases: Vec<Option<CaseResult>>,
    pub done: bool,
}

pub(crate) fn parse(stream: &[u8], case_count: usize) -> RunnerOutput {
    let mut output = RunnerOutput { cases: vec![None; case_count], ..RunnerOutput::default() };
    for raw in stream.split(|&b| b == b'\n') {
        // A cut-off last line or garbage written to the stream is skipped, not fatal.
        let Ok(line) = serde_json::from_slice::<Line>(raw) else {
            continue;
        };
        output.ready |= line.ready;
        output.done |= line.done;
        output.memory_error |= line.memory;
        if output.fatal.is_none() {
            output.fatal = line.fatal;
        }
        if line.load_error.is_some() && output.load_error.is_none() {
            output.load_error = line.load_error;
        }
        let Some(slot) = line.case.and_then(|i| output.cases.get_mut(i)) else {
            continue;
        };
        // The first report of a case counts; later ones are ignored.
        if slot.is_some() {
            continue;
        }
        *slot = match (line.value, line.error) {
            (Some(text), _) => Some(match serde_json::from_str(&text) {
                Ok(value) => CaseResult::Returned(value),
                Err(e) => CaseResult::Raised(format!("the return value could not be read: {e}")),
            }),
            (None, Some(error)) => Some(CaseResult::Raised(error)),
            (None, None) => None,
        };
    }
    output
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn lines_are_read_and_the_first_report_of_a_case_wins() {
        let stream = concat!(
            "{\"ready\": true}\n",
            "{\"case\": 0, \"value\": \"5\"}\n",
            "{\"case\": 0, \"value\": \"6\"}\n",
            "not json at all\n",
            "{\"case\": 1, \"error\": \"ZeroDivisionError: division by zero\"}\n",
            "{\"case\": 7, \"value\": \"1\"}\n",
            "{\"done\": true}\n",
            "{\"case\": 2, \"value\": \"[1, 2",
        );
        let output = parse(stream.as_bytes(), 3);
        assert!(output.ready && output.done);
        assert_eq!(output.cases[0], Some(CaseResult::Returned(json!(5))));
        assert_eq!(output.cases[1], Some(CaseResult::Raised("ZeroDivisionError: division by zero".into())));
        assert_eq!(output.cases[2], None);
    }

    #[test]
    fn an_unreadable_value_fails_only_its_case() {
        let output = parse(b"{\"case\": 0, \"value\": \"[1,\"}\n", 1);
        assert!(matches!(output.cases[0], Some(CaseResult::Raised(_))));
    }
}
