//! The adaptive-testing benchmarks: one step of a test (EAP update and item selection over
//! a 1,000-item bank, by each selection rule; MLE with maximum information), and a whole
//! simulation as `pathwise cat-sim` runs it.

use super::stats::Stats;
use anyhow::Result;
use pathwise_irt::synthetic::{random_3pl_bank, standard_normal, standard_normal_thetas};
use pathwise_irt::{Cat, CatSettings, Estimator, Selection, StopRules};
use rand::rngs::StdRng;
use rand::{Rng, SeedableRng};
use serde_json::json;
use std::time::{Duration, Instant};

/// Items in the bank an adaptive step selects from.
const BANK_ITEMS: usize = 1000;
/// Steps per simulated examinee; the cost of a step barely depends on how many came before.
const TEST_LENGTH: usize = 30;
/// Seed of the examinees' abilities and answers, the same for every configuration timed.
const EXAMINEE_SEED: u64 = 29;

/// Times `record` (the estimate's update) plus `next_item` (selection among the unused
/// items) for every step of many 30-item tests: EAP with each selection rule, then MLE
/// with maximum information. Every configuration sees the same abilities; the first
/// selection of each test, which also builds the bank's grid table on the first test of
/// the averaging rules, is not timed.
pub fn adaptive_step(quick: bool) -> Result<()> {
    let bank = random_3pl_bank(BANK_ITEMS, &mut StdRng::seed_from_u64(17))?;
    let examinees = if quick { 20 } else { 2000 };
    let no_stop = StopRules { se_target: None, min_items: 0, max_items: None };
    let configurations = Selection::ALL
        .map(|selection| (Estimator::Eap, selection))
        .into_iter()
        .chain([(Estimator::Mle, Selection::MaxInfo)]);
    for (estimator, selection) in configurations {
        let settings = CatSettings { estimator, selection, ..CatSettings::default() };
        let mut rng = StdRng::seed_from_u64(EXAMINEE_SEED);
        let mut latencies = Vec::with_capacity(examinees * TEST_LENGTH);
        for _ in 0..examinees {
            let theta = standard_normal(&mut rng);
            let mut cat = Cat::new(&bank, settings, no_stop)?;
            let mut item = cat.next_item(&mut rng);
            for _ in 0..TEST_LENGTH {
                let Some(index) = item else { break };
                let correct = rng.gen::<f64>() < bank.items()[index].p(theta);
                let start = Instant::now();
                cat.record(index, correct)?;
                item = cat.next_item(&mut rng);
                latencies.push(start.elapsed());
            }
        }
        let (p50_us, p99_us) = micros(&mut latencies);
        let elapsed = latencies.iter().sum();
        let stats = Stats { ops: latencies.len(), concurrency: 1, elapsed, latencies };
        let extra = json!({
            "estimator": estimator,
            "selection": selection,
            "bank_items": BANK_ITEMS,
            "grid_points": settings.grid.points,
            "test_length": TEST_LENGTH,
            "p50_us": p50_us,
            "p99_us": p99_us,
        });
        stats.print("adaptive_step", "none", extra);
    }
    simulation(if quick { 50 } else { 1000 })
}

/// `pathwise cat-sim`'s work on a 500-item 3PL bank and abilities from N(0, 1): its time and
/// its figures, as one JSON line.
fn simulation(examinees: usize) -> Result<()> {
    let mut rng = StdRng::seed_from_u64(23);
    let bank = random_3pl_bank(500, &mut rng)?;
    let thetas = standard_normal_thetas(examinees, &mut rng);
    let start = Instant::now();
    let report = pathwise_irt::simulate(&bank, &thetas, 1, &CatSettings::default())?;
    let elapsed = start.elapsed();
    let line = json!({
        "bench": "cat_sim",
        "store": "none",
        "ops": examinees,
        "concurrency": 1,
        "ops_per_sec": (examinees as f64 / elapsed.as_secs_f64()).round(),
        "elapsed_ms": (elapsed.as_secs_f64() * 1000.0).round(),
        "bank_items": bank.len(),
        "report": report,
    });
    use std::io::Write;
    let _ = writeln!(std::io::stdout().lock(), "{line}");
    Ok(())
}

/// The median and 99th percentile in microseconds (to 0.1), picked as `Stats::print` picks them.
fn micros(latencies: &mut [Duration]) -> (f64, f64) {
    latencies.sort();
    let pick = |q: f64| {
        let i = ((latencies.len() as f64 - 1.0) * q).round() as usize;
        latencies.get(i).map_or(0.0, |d| (d.as_secs_f64() * 1e7).round() / 10.0)
    };
    (pick(0.5), pick(0.99))
}
