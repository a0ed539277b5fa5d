//! A learner's maps side by side, from each map's figures (its snapshot of today, computed
//! when the portfolio is read).

use crate::metrics::Snapshot;
use chrono::NaiveDate;
use pathwise_domain::mastery::TierCounts;
use pathwise_domain::{MapStatus, MindMapId};
use serde::{Deserialize, Serialize};
use std::cmp::Ordering;
use utoipa::ToSchema;

/// One of the learner's maps as the caller loaded it.
#[derive(Debug, Clone, PartialEq)]
pub struct PortfolioMap {
    pub map_id: MindMapId,
    pub title: String,
    pub status: MapStatus,
    /// The map's figures: today's snapshot as computed now; `None` leaves them at 0.
    pub latest: Option<Snapshot>,
}

/// One map's line in the portfolio.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, ToSchema, schemars::JsonSchema)]
pub struct PortfolioEntry {
    pub map_id: MindMapId,
    pub title: String,
    pub status: MapStatus,
    /// The day of the figures (today: they are computed when the portfolio is read);
    /// `null` (and figures 0) without any.
    pub snapshot_date: Option<NaiveDate>,
    pub total_nodes: usize,
    pub mastered_nodes: usize,
    pub mastery_pct: f64,
    pub retention_rate_7d: Option<f64>,
    pub struggling_count: usize,
    pub estimated_completion_days: Option<u32>,
    /// On a course's map, the course's units at each tier (the same counts as the map's
    /// mastery summary); absent on other maps.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tiers: Option<TierCounts>,
}

/// Totals across a learner's maps.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, ToSchema, schemars::JsonSchema)]
pub struct Portfolio {
    /// Every map passed, whatever its status.
    pub maps_total: usize,
    pub maps_active: usize,
    pub maps_completed: usize,
    /// Sums over every map passed that has a snapshot.
    pub total_nodes: usize,
    pub mastered_nodes: usize,
    /// `mastered_nodes / total_nodes`; 0 without nodes.
    pub mastery_pct: f64,
    /// Retained reviews over all reviews of the last 7 days, across maps: each map's
    /// `retention_rate_7d` weighted by its `review_responses_7d`. `null` without reviews.
    pub retention_rate_7d: Option<f64>,
    pub review_responses_7d: u32,
    /// The active map needing most attention: the most struggling nodes, then the lowest
    /// 7-day retention (a map without reviews ranks after any map with them), then the
    /// lowest mastery, then title and id. Relative: it names the neediest active map with
    /// a snapshot even when all are doing well; `feedback::replan_trigger` says whether a
    /// map needs action. `null` when no active map has a snapshot.
    pub needs_attention: Option<MindMapId>,
    /// Active maps first, then draft, completed and abandoned; within each status in the
    /// order of `needs_attention` (neediest first); maps without a snapshot last in their
    /// status.
    pub maps: Vec<PortfolioEntry>,
}

fn status_rank(status: MapStatus) -> u8 {
    match status {
        MapStatus::Active => 0,
        MapStatus::Draft => 1,
        MapStatus::Completed => 2,
        MapStatus::Abandoned => 3,
    }
}

/// Neediest first: more struggling, then lower retention (none last), then lower mastery.
fn attention_order(a: &PortfolioEntry, b: &PortfolioEntry) -> Ordering {
    let retention = |e: &PortfolioEntry| e.retention_rate_7d.unwrap_or(f64::INFINITY);
    b.struggling_count
        .cmp(&a.struggling_count)
        .then_with(|| retention(a).total_cmp(&retention(b)))
        .then_with(|| a.mastery_pct.total_cmp(&b.mastery_pct))
        .then_with(|| a.title.cmp(&b.title))
        .then_with(|| a.map_id.cmp(&b.map_id))
}

fn entry(map: &PortfolioMap) -> PortfolioEntry {
    let metrics = map.latest.as_ref().map(|s| &s.metrics);
    PortfolioEntry {
        map_id: map.map_id,
        title: map.title.clone(),
        status: map.status,
        snapshot_date: map.latest.as_ref().map(|s| s.snapshot_date),
        total_nodes: metrics.map_or(0, |m| m.total_nodes),
        mastered_nodes: metrics.map_or(0, |m| m.mastered_nodes),
        mastery_pct: metrics.map_or(0.0, |m| m.mastery_pct),
        retention_rate_7d: metrics.and_then(|m| m.retention_rate_7d),
        struggling_count: metrics.map_or(0, |m| m.struggling_nodes.len()),
        estimated_completion_days: metrics.and_then(|m| m.estimated_completion_days),
        tiers: None,
    }
}

/// The portfolio of the maps passed (the caller chooses which: typically all of a
/// learner's maps).
pub fn portfolio(maps: &[PortfolioMap]) -> Portfolio {
    let mut entries: Vec<PortfolioEntry> = maps.iter().map(entry).collect();
    entries.sort_by(|a, b| {
        status_rank(a.status)
            .cmp(&status_rank(b.status))
            .then_with(|| a.snapshot_date.is_none().cmp(&b.snapshot_date.is_none()))
            .then_with(|| attention_order(a, b))
    });
    let snapshots = || maps.iter().filter_map(|m| m.latest.as_ref().map(|s| &s.metrics));
    let total_nodes = snapshots().map(|m| m.total_nodes).sum();
    let mastered_nodes = snapshots().map(|m| m.mastered_nodes).sum();
    let (retained, reviews) = snapshots().fold((0.0, 0u32), |(retained, reviews), m| match m.retention_rate_7d {
        Some(rate) => (retained + rate * f64::from(m.review_responses_7d), reviews + m.review_responses_7d),
        None => (retained, reviews),
    });
    let count = |status: MapStatus| maps.iter().filter(|m| m.status == status).count();
    Portfolio {
        maps_total: maps.len(),
        maps_active: count(MapStatus::Active),
        maps_completed: count(MapStatus::Completed),
        total_nodes,
        mastered_nodes,
        mastery_pct: if total_nodes == 0 { 0.0 } else { mastered_nodes as f64 / total_nodes as f64 },
        retention_rate_7d: (reviews > 0).then(|| retained / f64::from(reviews)),
        review_responses_7d: reviews,
        needs_attention: entries
            .iter()
            .find(|e| e.status == MapStatus::Active && e.snapshot_date.is_some())
            .map(|e| e.map_id),
        maps: entries,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::fixtures::{date, map_id, node_id};
    use crate::metrics::MapMetrics;

    fn map(n: u128, title: &str, status: MapStatus, metrics: Option<MapMetrics>) -> PortfolioMap {
        PortfolioMap {
            map_id: map_id(n),
            title: title.into(),
            status,
            latest: metrics.map(|metrics| Snapshot { snapshot_date: date("2026-03-08"), metrics }),
        }
    }

    fn metrics(total: usize, mastered: usize, struggling: usize, retention: Option<(f64, u32)>) -> MapMetrics {
        MapMetrics {
            total_nodes: total,
            mastered_nodes: mastered,
            mastery_pct: mastered as f64 / total as f64,
            struggling_nodes: (0..struggling as u128).map(node_id).collect(),
            retention_rate_7d: retention.map(|(rate, _)| rate),
            review_responses_7d: retention.map_or(0, |(_, n)| n),
            ..Default::default()
        }
    }

    #[test]
    fn totals_count_maps_by_status_and_sum_nodes() {
        let p = portfolio(&[
            map(1, "Rust", MapStatus::Active, Some(metrics(20, 5, 0, None))),
            map(2, "Go", MapStatus::Completed, Some(metrics(10, 10, 0, None))),
            map(3, "Zig", MapStatus::Active, None),
            map(4, "C", MapStatus::Abandoned, Some(metrics(10, 1, 0, None))),
        ]);
        assert_eq!((p.maps_total, p.maps_active, p.maps_completed), (4, 2, 1));
        assert_eq!((p.total_nodes, p.mastered_nodes), (40, 16));
        assert_eq!(p.mastery_pct, 0.4);
        assert_eq!(p.retention_rate_7d, None);
        let order: Vec<&str> = p.maps.iter().map(|e| e.title.as_str()).collect();
        assert_eq!(order, vec!["Rust", "Zig", "Go", "C"]);
        assert_eq!(portfolio(&[]).mastery_pct, 0.0);
    }

    #[test]
    fn overall_retention_is_weighted_by_reviews() {
        let p = portfolio(&[
            map(1, "Rust", MapStatus::Active, Some(metrics(10, 1, 0, Some((0.9, 30))))),
            map(2, "Go", MapStatus::Active, Some(metrics(10, 1, 0, Some((0.5, 10))))),
            map(3, "Zig", MapStatus::Active, Some(metrics(10, 1, 0, None))),
        ]);
        // (27 + 5) / 40, not the plain mean 0.7.
        assert!((p.retention_rate_7d.unwrap() - 0.8).abs() < 1e-12);
        assert_eq!(p.review_responses_7d, 40);
    }

    #[test]
    fn the_map_needing_attention_has_most_struggles_then_lowest_retention() {
        let p = portfolio(&[
            map(1, "Rust", MapStatus::Active, Some(metrics(10, 1, 1, Some((0.4, 5))))),
            map(2, "Go", MapStatus::Active, Some(metrics(10, 1, 2, Some((0.9, 5))))),
            map(3, "Zig", MapStatus::Active, Some(metrics(10, 1, 2, Some((0.7, 5))))),
            map(4, "C", MapStatus::Active, Some(metrics(10, 1, 2, None))),
            map(5, "Old", MapStatus::Abandoned, Some(metrics(10, 1, 9, Some((0.1, 5))))),
        ]);
        assert_eq!(p.needs_attention, Some(map_id(3)), "Zig: 2 struggling, the lowest retention among them");
        let order: Vec<&str> = p.maps.iter().map(|e| e.title.as_str()).collect();
        assert_eq!(order, vec!["Zig", "Go", "C", "Rust", "Old"]);
        let none_active = portfolio(&[map(1, "Rust", MapStatus::Completed, Some(metrics(10, 10, 0, None)))]);
        assert_eq!(none_active.needs_attention, None);
    }
}
