//! Where the application gets the time; tests and benchmarks substitute their own.

use chrono::{DateTime, Duration, DurationRound, Utc};
use std::sync::Mutex;

pub trait Clock: Send + Sync {
    /// The current time, to the microsecond (what both databases keep).
    fn now(&self) -> DateTime<Utc>;
}

pub struct SystemClock;

impl Clock for SystemClock {
    fn now(&self) -> DateTime<Utc> {
        to_micros(Utc::now())
    }
}

/// A clock that only moves when told to.
pub struct ManualClock(Mutex<DateTime<Utc>>);

impl ManualClock {
    pub fn new(start: DateTime<Utc>) -> Self {
        ManualClock(Mutex::new(to_micros(start)))
    }

    pub fn set(&self, at: DateTime<Utc>) {
        *self.0.lock().expect("clock lock") = to_micros(at);
    }

    pub fn advance(&self, by: Duration) {
        let mut now = self.0.lock().expect("clock lock");
        *now = to_micros(*now + by);
    }
}

impl Clock for ManualClock {
    fn now(&self) -> DateTime<Utc> {
        *self.0.lock().expect("clock lock")
    }
}

fn to_micros(at: DateTime<Utc>) -> DateTime<Utc> {
    at.duration_trunc(Duration::microseconds(1)).unwrap_or(at)
}
