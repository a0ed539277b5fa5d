//! The item generation benchmark: items generated per second on one thread for each
//! arithmetic skill blueprint of the built-in library (generation and the presented view,
//! as serving an item does), over several runs; and whole 10-item quiz forms per second.

use super::stats::Stats;
use anyhow::Result;
use pathwise_items::{Band, Library, Target};
use serde_json::json;
use std::hint::black_box;
use std::time::{Duration, Instant};

/// The target for arithmetic blueprints, per core.
const TARGET_ITEMS_PER_SEC: u64 = 100_000;
/// Items per latency sample: timing each item alone would cost as much as making it.
const BATCH: usize = 1000;

pub fn run(quick: bool) -> Result<()> {
    let library = Library::builtin();
    let (runs, per_run) = if quick { (3, 5_000) } else { (7, 200_000) };
    let targets = [Target::Band(Band::Easy), Target::Band(Band::Medium), Target::Band(Band::Hard)];
    for skill in library.skills().filter(|s| s.id().starts_with("MATH.ARITH.")) {
        let mut rates = Vec::with_capacity(runs);
        let mut latencies = Vec::with_capacity(runs * per_run / BATCH);
        let mut elapsed = Duration::ZERO;
        let mut seed = 0u64;
        for _ in 0..runs {
            let start = Instant::now();
            for _ in 0..per_run / BATCH {
                let batch = Instant::now();
                for _ in 0..BATCH {
                    let item = skill.generate(seed, targets[(seed % 3) as usize])?;
                    black_box(item.presented());
                    seed += 1;
                }
                // Per-item time, averaged over the batch.
                latencies.push(batch.elapsed() / BATCH as u32);
            }
            let run = start.elapsed();
            elapsed += run;
            rates.push(per_run as f64 / run.as_secs_f64());
        }
        rates.sort_by(f64::total_cmp);
        let (p50_us, p99_us) = micros(&mut latencies);
        let extra = json!({
            "blueprint": skill.id(),
            "runs": runs,
            "items_per_run": per_run,
            "median_items_per_sec": rates[runs / 2].round(),
            "min_items_per_sec": rates[0].round(),
            "max_items_per_sec": rates[runs - 1].round(),
            "target_items_per_sec": TARGET_ITEMS_PER_SEC,
            "p50_us": p50_us,
            "p99_us": p99_us,
        });
        Stats { ops: runs * per_run, concurrency: 1, elapsed, latencies }.print("item_generation", "none", extra);
    }
    quiz_forms(&library, if quick { 200 } else { 20_000 })
}

/// The median and 99th percentile of the latencies, in microseconds to two decimals.
fn micros(latencies: &mut [Duration]) -> (f64, f64) {
    latencies.sort();
    let pick = |q: f64| {
        let i = ((latencies.len() as f64 - 1.0) * q).round() as usize;
        latencies.get(i).map_or(0.0, |d| (d.as_secs_f64() * 1e8).round() / 100.0)
    };
    (pick(0.5), pick(0.99))
}

/// Planning `MATH-ARITH-QUIZ-10` (ten unique items by section and difficulty band).
fn quiz_forms(library: &Library, forms: usize) -> Result<()> {
    let mut latencies = Vec::with_capacity(forms);
    let start = Instant::now();
    for seed in 0..forms as u64 {
        let t = Instant::now();
        black_box(library.plan_form("MATH-ARITH-QUIZ-10", seed)?);
        latencies.push(t.elapsed());
    }
    let stats = Stats { ops: forms, concurrency: 1, elapsed: start.elapsed(), latencies };
    stats.print("item_generation_quiz_form", "none", json!({ "assessment": "MATH-ARITH-QUIZ-10", "items": 10 }));
    Ok(())
}
