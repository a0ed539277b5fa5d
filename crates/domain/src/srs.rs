//! SM-2 spaced repetition, exactly as learning-loop-design.md D2 gives it.

use chrono::{DateTime, Duration, Utc};

pub const INITIAL_EASE_FACTOR: f64 = 2.5;
pub const MIN_EASE_FACTOR: f64 = 1.3;
/// Intervals stop growing at 100 years: SM-2's geometric growth would otherwise overflow
/// any calendar after some sixty successful reviews.
pub const MAX_INTERVAL_DAYS: f64 = 36_500.0;

/// A node's spaced-repetition state.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Sm2State {
    pub ease_factor: f64,
    pub repetitions: i32,
    /// The last interval in days (0 before the first review).
    pub interval_days: f64,
}

impl Default for Sm2State {
    fn default() -> Self {
        Sm2State { ease_factor: INITIAL_EASE_FACTOR, repetitions: 0, interval_days: 0.0 }
    }
}

/// One SM-2 review: 1 day, then 6 days, then the previous interval times the ease factor
/// as it stood before this review; a failure (quality < 3) resets to 1 day. The ease
/// factor moves on every review and never drops below 1.3.
pub fn review(state: Sm2State, quality: u8) -> Sm2State {
    let q = f64::from(quality.min(5));
    let (interval_days, repetitions) = if quality >= crate::mastery::Quality::PASS.value() {
        let interval = match state.repetitions {
            0 => 1.0,
            1 => 6.0,
            _ => state.interval_days * state.ease_factor,
        };
        (interval.min(MAX_INTERVAL_DAYS), state.repetitions + 1)
    } else {
        (1.0, 0)
    };
    let ease_factor = (state.ease_factor + (0.1 - (5.0 - q) * (0.08 + (5.0 - q) * 0.02))).max(MIN_EASE_FACTOR);
    Sm2State { ease_factor, repetitions, interval_days }
}

/// When a review given at `now` with this interval falls due.
pub fn due_at(now: DateTime<Utc>, interval_days: f64) -> DateTime<Utc> {
    let millis = (interval_days.clamp(0.0, MAX_INTERVAL_DAYS) * 86_400_000.0).round() as i64;
    now.checked_add_signed(Duration::milliseconds(millis)).unwrap_or(DateTime::<Utc>::MAX_UTC)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn first_success_is_one_day_then_six_then_interval_times_previous_ease() {
        let first = review(Sm2State::default(), 4);
        assert_eq!((first.repetitions, first.interval_days), (1, 1.0));
        assert!((first.ease_factor - 2.5).abs() < 1e-12);
        let second = review(first, 5);
        assert_eq!((second.repetitions, second.interval_days), (2, 6.0));
        assert!((second.ease_factor - 2.6).abs() < 1e-12);
        let third = review(second, 3);
        // 6 days times the ease factor before this review (2.6), not after it.
        assert!((third.interval_days - 15.6).abs() < 1e-9);
        assert!((third.ease_factor - 2.46).abs() < 1e-9);
    }

    #[test]
    fn failure_resets_repetitions_and_gives_one_day() {
        let state = Sm2State { ease_factor: 2.5, repetitions: 4, interval_days: 30.0 };
        let after = review(state, 2);
        assert_eq!((after.repetitions, after.interval_days), (0, 1.0));
        assert!((after.ease_factor - 2.18).abs() < 1e-9);
    }

    #[test]
    fn ease_factor_is_floored_at_one_point_three() {
        let mut state = Sm2State::default();
        for _ in 0..20 {
            state = review(state, 0);
        }
        assert_eq!(state.ease_factor, MIN_EASE_FACTOR);
    }

    #[test]
    fn intervals_stop_growing_at_one_hundred_years() {
        let mut state = Sm2State::default();
        for _ in 0..200 {
            state = review(state, 5);
        }
        assert_eq!(state.interval_days, MAX_INTERVAL_DAYS);
        let now = DateTime::parse_from_rfc3339("2026-03-01T10:00:00Z").unwrap().with_timezone(&Utc);
        assert!(due_at(now, state.interval_days) > now);
    }

    #[test]
    fn due_date_is_interval_days_later() {
        let now = DateTime::parse_from_rfc3339("2026-03-01T10:00:00Z").unwrap().with_timezone(&Utc);
        assert_eq!(due_at(now, 6.0), now + Duration::days(6));
        assert_eq!(due_at(now, 1.5), now + Duration::hours(36));
    }
}
