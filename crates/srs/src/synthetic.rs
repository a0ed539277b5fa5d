//! Synthetic review logs for tests and benchmarks: deterministic for a seed, with a
//! forgetting curve behind every grade, so that a fit has something real to find.

use crate::review_log::ReviewRow;
use chrono::{DateTime, Duration, Utc};

/// xorshift64*: a small seeded generator, so the log is the same on every run.
struct Rng(u64);

impl Rng {
    fn next_f64(&mut self) -> f64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        (self.0.wrapping_mul(0x2545_F491_4F6C_DD1D) >> 11) as f64 / (1u64 << 53) as f64
    }

    fn between(&mut self, low: f64, high: f64) -> f64 {
        low + (high - low) * self.next_f64()
    }
}

/// A log of `items` items over a year, the same for the same seed: each item's recall follows
/// an exponential forgetting curve of its own (stability 5-30 days, multiplied by 1.8-3.3 on
/// each recall), reviewed up to 12 times aimed at 90% recall but early or late by up to a
/// factor of three; lapses graded 0-2, half of them relearnt the same day; rows shuffled.
pub fn review_rows(items: usize, seed: u64) -> Vec<ReviewRow> {
    let start = DateTime::parse_from_rfc3339("2026-01-01T00:00:00Z").unwrap().with_timezone(&Utc);
    let mut rng = Rng(seed);
    let mut rows = Vec::new();
    for item in 0..items {
        let item_id = format!("item-{item:03}");
        // Days until recall falls to 1/e (recall is 90% after about a tenth of it), and
        // how much a recall multiplies it.
        let mut stability = rng.between(5.0, 30.0);
        let growth = rng.between(1.8, 3.3);
        let mut day = rng.between(0.0, 60.0);
        rows.push(ReviewRow::graded(item_id.clone(), at(start, day), 4));
        for _ in 0..12 {
            // Reviews aimed at 90% recall, early or late by up to a factor of three.
            let elapsed = (stability * 0.105 * rng.between(0.3, 3.0)).max(1.0);
            day += elapsed;
            if day > 365.0 {
                break;
            }
            let recall = (-elapsed / stability).exp();
            if rng.next_f64() < recall {
                stability *= growth;
                let grade = if recall > 0.9 {
                    5
                } else if recall > 0.75 {
                    4
                } else {
                    3
                };
                rows.push(ReviewRow::graded(item_id.clone(), at(start, day), grade));
            } else {
                stability = (stability * 0.4).max(5.0);
                let grade = (rng.next_f64() * 3.0) as u8;
                rows.push(ReviewRow::graded(item_id.clone(), at(start, day), grade));
                // Half the lapses are relearnt a quarter of an hour later, the same day.
                if rng.next_f64() < 0.5 {
                    day += 0.01;
                    rows.push(ReviewRow::graded(item_id.clone(), at(start, day), 4));
                }
            }
        }
    }
    // Shuffle, so the parser has to put each item's rows back in time order.
    for index in (1..rows.len()).rev() {
        let other = (rng.next_f64() * (index + 1) as f64) as usize;
        rows.swap(index, other.min(index));
    }
    rows
}

fn at(start: DateTime<Utc>, day: f64) -> DateTime<Utc> {
    start + Duration::seconds((day * 86_400.0) as i64)
}
