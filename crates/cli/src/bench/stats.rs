//! What a benchmark measured, printed as one JSON line: ops, concurrency, throughput and
//! latency percentiles.

use serde_json::json;
use std::time::Duration;

pub(crate) struct Stats {
    pub ops: usize,
    pub concurrency: usize,
    pub elapsed: Duration,
    pub latencies: Vec<Duration>,
}

impl Stats {
    pub fn print(mut self, bench: &str, store: &str, extra: serde_json::Value) {
        self.latencies.sort();
        let pick = |q: f64| {
            let i = ((self.latencies.len() as f64 - 1.0) * q).round() as usize;
            self.latencies.get(i).map(|d| d.as_secs_f64() * 1000.0).unwrap_or(0.0)
        };
        let mut line = json!({
            "bench": bench,
            "store": store,
            "ops": self.ops,
            "concurrency": self.concurrency,
            "ops_per_sec": (self.ops as f64 / self.elapsed.as_secs_f64()).round(),
            "p50_ms": round3(pick(0.5)),
            "p99_ms": round3(pick(0.99)),
        });
        if let (Some(line), Some(extra)) = (line.as_object_mut(), extra.as_object()) {
            line.extend(extra.clone());
        }
        // A closed pipe (`| head`) ends the output, not the process with a panic.
        use std::io::Write;
        let _ = writeln!(std::io::stdout().lock(), "{line}");
    }
}

fn round3(x: f64) -> f64 {
    (x * 1000.0).round() / 1000.0
}
