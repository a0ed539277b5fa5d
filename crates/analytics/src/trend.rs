//! How a map moved between the oldest and newest of its recent snapshots.

use crate::metrics::Snapshot;
use chrono::{Duration, NaiveDate};
use serde::{Deserialize, Serialize};
use utoipa::ToSchema;

/// A change smaller than its threshold is `steady`; one of at least the threshold moves.
pub const MASTERY_PCT_THRESHOLD: f64 = 0.01;
/// Retention is noisier than mastery: two percentage points.
pub const RETENTION_THRESHOLD: f64 = 0.02;
/// A tenth of a quality grade (grades run 0-5).
pub const QUALITY_THRESHOLD: f64 = 0.1;
/// Mastered nodes change by whole nodes: any change moves.
pub const MASTERED_NODES_THRESHOLD: i64 = 1;
/// Absorbs floating-point noise, so that a change of exactly a threshold moves.
const EPSILON: f64 = 1e-9;

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, ToSchema, schemars::JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum Direction {
    Improving,
    Steady,
    Declining,
}

impl Direction {
    /// Higher is better for every figure a trend follows.
    fn of(change: f64, threshold: f64) -> Direction {
        if change >= threshold - EPSILON {
            Direction::Improving
        } else if change <= -threshold + EPSILON {
            Direction::Declining
        } else {
            Direction::Steady
        }
    }

    pub fn as_str(&self) -> &'static str {
        match self {
            Direction::Improving => "improving",
            Direction::Steady => "steady",
            Direction::Declining => "declining",
        }
    }
}

/// A rate or mean between two snapshots.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize, ToSchema, schemars::JsonSchema)]
pub struct RateChange {
    pub from: f64,
    pub to: f64,
    /// `to - from`.
    pub change: f64,
    pub direction: Direction,
}

impl RateChange {
    fn new(from: f64, to: f64, threshold: f64) -> Self {
        RateChange { from, to, change: to - from, direction: Direction::of(to - from, threshold) }
    }

    fn between(from: Option<f64>, to: Option<f64>, threshold: f64) -> Option<Self> {
        Some(RateChange::new(from?, to?, threshold))
    }
}

/// A count between two snapshots.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, ToSchema, schemars::JsonSchema)]
pub struct CountChange {
    pub from: usize,
    pub to: usize,
    /// `to - from`.
    pub change: i64,
    pub direction: Direction,
}

/// The change of a map's figures from the oldest to the newest snapshot of a window.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, ToSchema, schemars::JsonSchema)]
pub struct MapTrend {
    pub from_date: NaiveDate,
    pub to_date: NaiveDate,
    /// Threshold 0.01 (one percentage point).
    pub mastery_pct: RateChange,
    /// Any change of a whole node moves.
    pub mastered_nodes: CountChange,
    /// Threshold 0.02; `null` unless both snapshots had review responses.
    pub retention_rate_7d: Option<RateChange>,
    /// Threshold 0.1; `null` unless both snapshots had responses.
    pub avg_quality_score: Option<RateChange>,
    /// Over `mastered_nodes`, `retention_rate_7d` and `avg_quality_score` (not
    /// `mastery_pct`, which mostly repeats `mastered_nodes` and also falls when a re-plan
    /// adds nodes): improving when more of them improve than decline, declining when more
    /// decline than improve, steady otherwise (including one up and one down).
    pub overall: Direction,
}

/// The trend over the `days` days ending `today`: between the oldest and the newest of
/// the snapshots dated from `today - days` to `today` inclusive (so `days = 7` spans a
/// full week of change, Sunday to Sunday). `None` unless two snapshots of different
/// dates fall in that range. Snapshots may come in any order.
pub fn trend(snapshots: &[Snapshot], today: NaiveDate, days: u32) -> Option<MapTrend> {
    let start = today - Duration::days(i64::from(days));
    let in_range = || snapshots.iter().filter(|s| s.snapshot_date >= start && s.snapshot_date <= today);
    let oldest = in_range().min_by_key(|s| s.snapshot_date)?;
    let newest = in_range().max_by_key(|s| s.snapshot_date)?;
    if oldest.snapshot_date == newest.snapshot_date {
        return None;
    }
    let (a, b) = (&oldest.metrics, &newest.metrics);
    let mastered_change = b.mastered_nodes as i64 - a.mastered_nodes as i64;
    let mastered_direction = match mastered_change {
        c if c >= MASTERED_NODES_THRESHOLD => Direction::Improving,
        c if c <= -MASTERED_NODES_THRESHOLD => Direction::Declining,
        _ => Direction::Steady,
    };
    let mut trend = MapTrend {
        from_date: oldest.snapshot_date,
        to_date: newest.snapshot_date,
        mastery_pct: RateChange::new(a.mastery_pct, b.mastery_pct, MASTERY_PCT_THRESHOLD),
        mastered_nodes: CountChange {
            from: a.mastered_nodes,
            to: b.mastered_nodes,
            change: mastered_change,
            direction: mastered_direction,
        },
        retention_rate_7d: RateChange::between(a.retention_rate_7d, b.retention_rate_7d, RETENTION_THRESHOLD),
        avg_quality_score: RateChange::between(a.avg_quality_score, b.avg_quality_score, QUALITY_THRESHOLD),
        overall: Direction::Steady,
    };
    trend.overall = overall(&trend);
    Some(trend)
}

fn overall(trend: &MapTrend) -> Direction {
    let directions = [
        Some(trend.mastered_nodes.direction),
        trend.retention_rate_7d.map(|c| c.direction),
        trend.avg_quality_score.map(|c| c.direction),
    ];
    let count = |d: Direction| directions.iter().filter(|&&x| x == Some(d)).count();
    match count(Direction::Improving).cmp(&count(Direction::Declining)) {
        std::cmp::Ordering::Greater => Direction::Improving,
        std::cmp::Ordering::Less => Direction::Declining,
        std::cmp::Ordering::Equal => Direction::Steady,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::fixtures::date;
    use crate::metrics::MapMetrics;

    fn snapshot(day: &str, mastered: usize, pct: f64, retention: Option<f64>, quality: Option<f64>) -> Snapshot {
        Snapshot {
            snapshot_date: date(day),
            metrics: MapMetrics {
                mastered_nodes: mastered,
                mastery_pct: pct,
                retention_rate_7d: retention,
                avg_quality_score: quality,
                ..Default::default()
            },
        }
    }

    #[test]
    fn compares_the_oldest_and_newest_snapshot_of_the_window_in_any_order() {
        let snapshots = [
            snapshot("2026-03-05", 11, 0.44, Some(0.7), Some(3.5)),
            snapshot("2026-03-08", 13, 0.52, Some(0.8), Some(3.55)),
            snapshot("2026-02-28", 2, 0.08, Some(0.1), Some(1.0)), // 8 days before: outside
            snapshot("2026-03-01", 10, 0.40, Some(0.9), Some(3.6)), // exactly 7 days: inside
        ];
        let t = trend(&snapshots, date("2026-03-08"), 7).unwrap();
        assert_eq!((t.from_date, t.to_date), (date("2026-03-01"), date("2026-03-08")));
        assert_eq!((t.mastered_nodes.change, t.mastered_nodes.direction), (3, Direction::Improving));
        assert!((t.mastery_pct.change - 0.12).abs() < 1e-12);
        assert_eq!(t.mastery_pct.direction, Direction::Improving);
        let retention = t.retention_rate_7d.unwrap();
        assert!((retention.change + 0.1).abs() < 1e-12);
        assert_eq!(retention.direction, Direction::Declining);
        assert_eq!(t.avg_quality_score.unwrap().direction, Direction::Steady, "-0.05 is under 0.1");
        assert_eq!(t.overall, Direction::Steady, "mastered nodes up, retention down, quality steady");
    }

    #[test]
    fn thresholds_decide_between_steady_and_a_move() {
        let at = |pct_to: f64, ret_to: f64| {
            trend(
                &[
                    snapshot("2026-03-01", 5, 0.50, Some(0.80), None),
                    snapshot("2026-03-08", 5, pct_to, Some(ret_to), None),
                ],
                date("2026-03-08"),
                7,
            )
            .unwrap()
        };
        let exactly = at(0.51, 0.78);
        assert_eq!(exactly.mastery_pct.direction, Direction::Improving, "a change of exactly the threshold moves");
        assert_eq!(exactly.retention_rate_7d.unwrap().direction, Direction::Declining);
        assert_eq!(exactly.overall, Direction::Declining, "mastered nodes steady, retention down");
        let under = at(0.509, 0.81);
        assert_eq!(under.mastery_pct.direction, Direction::Steady);
        assert_eq!(under.retention_rate_7d.unwrap().direction, Direction::Steady);
        assert_eq!(under.mastered_nodes.direction, Direction::Steady);
        assert_eq!(under.overall, Direction::Steady);
    }

    #[test]
    fn missing_rates_and_single_snapshots_give_no_change() {
        let t = trend(
            &[snapshot("2026-03-02", 5, 0.5, None, Some(3.0)), snapshot("2026-03-08", 4, 0.4, Some(0.9), Some(2.5))],
            date("2026-03-08"),
            7,
        )
        .unwrap();
        assert_eq!(t.retention_rate_7d, None);
        assert_eq!(t.mastered_nodes.direction, Direction::Declining);
        assert_eq!(t.overall, Direction::Declining);
        assert_eq!(trend(&[snapshot("2026-03-08", 5, 0.5, None, None)], date("2026-03-08"), 7), None);
        assert_eq!(trend(&[], date("2026-03-08"), 7), None);
        let later_than_today = [snapshot("2026-03-08", 5, 0.5, None, None), snapshot("2026-03-09", 6, 0.6, None, None)];
        assert_eq!(trend(&later_than_today, date("2026-03-08"), 7), None);
    }

    #[test]
    fn the_window_length_is_a_parameter() {
        let snapshots = [snapshot("2026-02-08", 1, 0.1, None, None), snapshot("2026-03-08", 9, 0.9, None, None)];
        assert_eq!(trend(&snapshots, date("2026-03-08"), 7), None);
        assert_eq!(trend(&snapshots, date("2026-03-08"), 28).unwrap().mastered_nodes.change, 8);
    }
}
