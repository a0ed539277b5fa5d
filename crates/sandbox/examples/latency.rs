//! How long one `run_tests` with three trivial tests takes: the median of 20 runs.
//!
//! `cargo run -p pathwise-sandbox --example latency --release`

use std::time::{Duration, Instant};

use pathwise_sandbox::{Sandbox, SandboxConfig, Submission, TestCase};
use serde_json::json;

const RUNS: usize = 20;

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let started = Instant::now();
    let sandbox = Sandbox::new(SandboxConfig::default())?;
    println!("Sandbox::new (with its self-test run): {:?}", started.elapsed());
    println!("python: {}", sandbox.python().display());
    println!("isolation: {}", sandbox.isolation());

    let submission = Submission {
        code: "def count_chars(s):\n    return len(s)\n".to_string(),
        function_name: "count_chars".to_string(),
    };
    let tests: Vec<TestCase> = [("hello", 5), ("hello world", 11), ("", 0)]
        .into_iter()
        .map(|(input, expected)| TestCase { input: json!([input]), expected: json!(expected) })
        .collect();

    let mut times: Vec<Duration> = Vec::with_capacity(RUNS);
    for _ in 0..RUNS {
        let started = Instant::now();
        let report = sandbox.run_tests(&submission, &tests)?;
        times.push(started.elapsed());
        assert_eq!(report.passed, 3, "{report:?}");
    }
    times.sort();
    println!(
        "run_tests with 3 trivial tests over {RUNS} runs: median {:?}, min {:?}, max {:?}",
        times[RUNS / 2],
        times[0],
        times[RUNS - 1]
    );
    Ok(())
}
