//! A map's metrics (D6): what every analytics read shows, and the `metrics` JSON of one
//! `analytics_snapshots` row.

use crate::activity::{count_sessions, within_days, TimeOfDayDistribution};
use chrono::{DateTime, Duration, NaiveDate, Utc};
use pathwise_domain::graph::Prerequisites;
use pathwise_domain::mastery::{struggle_reasons, STRUGGLE_HISTORY};
use pathwise_domain::model::{Edge, MindMap, NodeProgress, ResponseEvent};
use pathwise_domain::srs::INITIAL_EASE_FACTOR;
use pathwise_domain::{MasteryStatus, NodeId, ResponseType};
use serde::{Deserialize, Serialize};
use std::collections::HashMap;
use utoipa::ToSchema;

/// The short retention window and the window sessions and time of day are counted in.
pub const WEEK_DAYS: i64 = 7;
/// The long retention window; the job must pass at least this many days of responses.
pub const MONTH_DAYS: i64 = 30;
/// Velocity compares with the oldest earlier snapshot at most this many days old.
pub const VELOCITY_LOOKBACK_DAYS: i64 = 28;
/// A review response of at least this quality counts as retained (SM-2's pass mark).
pub const RETAINED_QUALITY: u8 = pathwise_domain::mastery::Quality::PASS.value();

/// Totals of responses that are not in [`MapInput::responses`], so that a caller which
/// loads only recent responses still reports all-time figures.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct ResponseTotals {
    pub count: u64,
    /// The sum of their qualities.
    pub quality_sum: u64,
}

/// The `review` responses of a window and how many of them were retained (quality >= 3).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct ReviewTally {
    pub reviews: u32,
    pub retained: u32,
}

/// Everything the metrics of one map are computed from.
#[derive(Debug, Clone, PartialEq)]
pub struct MapInput {
    pub map: MindMap,
    pub nodes: Vec<NodeProgress>,
    pub edges: Vec<Edge>,
    /// The map's responses, in any order: all of them, or every response after some
    /// cut-off at least [`MONTH_DAYS`] before `now` (the 30-day retention needs them), or
    /// [`WEEK_DAYS`] before it when `month_reviews` is given. The windowed metrics read only
    /// these; responses after `now` are ignored everywhere.
    pub responses: Vec<ResponseEvent>,
    /// The `review` responses of the [`MONTH_DAYS`] up to `now`, counted where they are kept
    /// (so that a read need not load a month of responses); `None` counts them in
    /// `responses`.
    pub month_reviews: Option<ReviewTally>,
    /// Count and quality sum of the map's responses left out of `responses` (those
    /// before the cut-off); zero when `responses` holds them all.
    pub older_responses: ResponseTotals,
    /// Each node's latest qualities, newest first, at least
    /// [`STRUGGLE_HISTORY`] of them when it has that many, as
    /// nodes keep them (`RecentHistory`). `None` derives them from `responses`
    /// (newest first; of two at the same instant the one listed later is newer), which is
    /// exact when `responses` holds every response. Given lists are used as they are.
    pub recent_qualities: Option<HashMap<NodeId, Vec<u8>>>,
}

/// One stored snapshot: `snapshot_date` and the `metrics` JSON of an
/// `analytics_snapshots` row.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, ToSchema, schemars::JsonSchema)]
pub struct Snapshot {
    pub snapshot_date: NaiveDate,
    pub metrics: MapMetrics,
}

impl Snapshot {
    /// A stored row, read back. Fields missing from older JSON take their defaults.
    pub fn from_json(snapshot_date: NaiveDate, metrics: &serde_json::Value) -> Result<Self, serde_json::Error> {
        Ok(Snapshot { snapshot_date, metrics: MapMetrics::deserialize(metrics)? })
    }
}

/// The date a snapshot taken at `now` is stored under: `now`'s UTC calendar date. Every
/// comparison between snapshot dates in this crate is in these UTC days.
pub fn snapshot_date(now: DateTime<Utc>) -> NaiveDate {
    now.date_naive()
}

/// A map's metrics at one moment, serialised with D6's field names. Windows ("the last 7
/// days") are the 7 × 24 hours ending at `now`, excluding the instant exactly 7 days before
/// (see [`within_days`]).
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, ToSchema, schemars::JsonSchema)]
#[serde(default)]
pub struct MapMetrics {
    /// Every node of the map.
    pub total_nodes: usize,
    /// Nodes whose status is `mastered`.
    pub mastered_nodes: usize,
    /// `mastered_nodes / total_nodes`, from 0 to 1; 0 for a map without nodes.
    pub mastery_pct: f64,
    /// Mean SM-2 ease factor of the nodes that have been through SM-2 at least once (a
    /// `teach` or `review` response sets `last_reviewed_at`); the initial 2.5 when none has.
    pub avg_ease_factor: f64,
    /// Share of the last 7 days' `review` responses with quality >= 3; `null` when there
    /// were none. Diagnostic and teach responses never count (D8).
    pub retention_rate_7d: Option<f64>,
    /// The same over the last 30 days.
    pub retention_rate_30d: Option<f64>,
    /// Nodes mastered per week: (mastered now − mastered in the oldest earlier snapshot
    /// dated 1 to 28 days before today) ÷ the weeks between the two dates, never below 0
    /// (deleting mastered nodes is not negative progress). Without such a snapshot:
    /// mastered now ÷ weeks since the map was created, counting at least one week.
    pub velocity_nodes_per_week: f64,
    /// Days to master the remaining nodes at this velocity, rounded up; 0 when every
    /// node is mastered; `null` when the velocity is 0 or the map has no nodes.
    pub estimated_completion_days: Option<u32>,
    /// Nodes that `pathwise_domain::mastery::struggle_reasons` flags on their latest
    /// qualities (newest first), in the order of the map's nodes.
    pub struggling_nodes: Vec<NodeId>,
    /// The node heading the strongest subtree: among nodes whose subtree (the node and
    /// everything that depends on it through prerequisite edges) has at least 2 nodes, and
    /// which are neither the map's root nor head the whole map (that subtree would say
    /// nothing the map's own figures do not), the one with the
    /// highest mean mastery score; ties go to the shallower node, then the label, then
    /// the id. `null` when there is no such subtree or the best mean is 0.
    pub strongest_subtree: Option<NodeId>,
    /// Every response the map ever had.
    pub total_quiz_responses: u64,
    /// Mean quality (0-5) of every response the map ever had; `null` without responses.
    pub avg_quality_score: Option<f64>,
    /// Study sessions among the last 7 days' responses: distinct session ids, plus
    /// responses without one grouped by gaps of over 30 minutes (see `count_sessions`).
    pub sessions_this_period: usize,
    /// The last 7 days' responses by part of the learner's day (morning 05-12, afternoon
    /// 12-17, evening 17-22, night 22-05, local hours at the offset the job passes).
    pub time_of_day_distribution: TimeOfDayDistribution,
    /// Beyond D6: the number of `review` responses behind `retention_rate_7d`, so that
    /// retention can be weighted across maps.
    pub review_responses_7d: u32,
    /// Beyond D6: the number of `review` responses behind `retention_rate_30d`.
    pub review_responses_30d: u32,
}

/// The metrics of one map at `now`, given the map's earlier snapshots (in any order;
/// those dated today or later are ignored) and the learner's clock as minutes east of UTC.
pub fn compute(input: &MapInput, earlier: &[Snapshot], now: DateTime<Utc>, utc_offset_minutes: i32) -> MapMetrics {
    let responses: Vec<&ResponseEvent> = input.responses.iter().filter(|r| r.responded_at <= now).collect();
    let nodes = &input.nodes;
    let total_nodes = nodes.len();
    let mastered_nodes = nodes.iter().filter(|n| n.mastery_status == MasteryStatus::Mastered).count();
    let (retention_rate_7d, review_responses_7d) = retention(&responses, now, WEEK_DAYS);
    let (retention_rate_30d, review_responses_30d) = match input.month_reviews {
        Some(tally) => (ratio(tally.retained as usize, tally.reviews as usize), tally.reviews),
        None => retention(&responses, now, MONTH_DAYS),
    };
    let velocity = velocity(mastered_nodes, earlier, input.map.created_at, now);
    let total_quiz_responses = responses.len() as u64 + input.older_responses.count;
    let quality_sum = responses.iter().map(|r| u64::from(r.quality)).sum::<u64>() + input.older_responses.quality_sum;
    let this_week: Vec<&ResponseEvent> =
        responses.iter().copied().filter(|r| within_days(r.responded_at, now, WEEK_DAYS)).collect();
    MapMetrics {
        total_nodes,
        mastered_nodes,
        mastery_pct: ratio(mastered_nodes, total_nodes).unwrap_or(0.0),
        avg_ease_factor: avg_ease_factor(nodes),
        retention_rate_7d,
        retention_rate_30d,
        velocity_nodes_per_week: velocity,
        estimated_completion_days: estimated_completion_days(total_nodes, mastered_nodes, velocity),
        struggling_nodes: struggling_nodes(input, &responses),
        strongest_subtree: strongest_subtree(nodes, &input.edges, input.map.root_node_id),
        total_quiz_responses,
        avg_quality_score: (total_quiz_responses > 0).then(|| quality_sum as f64 / total_quiz_responses as f64),
        sessions_this_period: count_sessions(this_week.iter().copied()),
        time_of_day_distribution: TimeOfDayDistribution::of(
            this_week.iter().map(|r| r.responded_at),
            utc_offset_minutes,
        ),
        review_responses_7d,
        review_responses_30d,
    }
}

fn ratio(part: usize, whole: usize) -> Option<f64> {
    (whole > 0).then(|| part as f64 / whole as f64)
}

fn avg_ease_factor(nodes: &[NodeProgress]) -> f64 {
    let reviewed: Vec<f64> = nodes.iter().filter(|n| n.last_reviewed_at.is_some()).map(|n| n.ease_factor).collect();
    if reviewed.is_empty() {
        INITIAL_EASE_FACTOR
    } else {
        reviewed.iter().sum::<f64>() / reviewed.len() as f64
    }
}

/// Share of `review` responses in the window with quality >= 3, and how many there were.
fn retention(responses: &[&ResponseEvent], now: DateTime<Utc>, days: i64) -> (Option<f64>, u32) {
    let reviews: Vec<u8> = responses
        .iter()
        .filter(|r| r.response_type == ResponseType::Review && within_days(r.responded_at, now, days))
        .map(|r| r.quality)
        .collect();
    let retained = reviews.iter().filter(|&&q| q >= RETAINED_QUALITY).count();
    (ratio(retained, reviews.len()), u32::try_from(reviews.len()).unwrap_or(u32::MAX))
}

fn velocity(mastered_now: usize, earlier: &[Snapshot], created_at: DateTime<Utc>, now: DateTime<Utc>) -> f64 {
    let today = snapshot_date(now);
    let oldest = earlier
        .iter()
        .filter(|s| s.snapshot_date < today && s.snapshot_date >= today - Duration::days(VELOCITY_LOOKBACK_DAYS))
        .min_by_key(|s| s.snapshot_date);
    match oldest {
        Some(then) => {
            let weeks = (today - then.snapshot_date).num_days() as f64 / 7.0;
            (mastered_now as f64 - then.metrics.mastered_nodes as f64).max(0.0) / weeks
        }
        None => {
            let weeks = ((now - created_at).num_seconds() as f64 / Duration::weeks(1).num_seconds() as f64).max(1.0);
            mastered_now as f64 / weeks
        }
    }
}

fn estimated_completion_days(total: usize, mastered: usize, velocity_per_week: f64) -> Option<u32> {
    let remaining = total.saturating_sub(mastered);
    if total == 0 {
        None
    } else if remaining == 0 {
        Some(0)
    } else if velocity_per_week > 0.0 {
        // `as` saturates: a crawl gives u32::MAX days rather than wrapping.
        Some((remaining as f64 * 7.0 / velocity_per_week).ceil() as u32)
    } else {
        None
    }
}

fn struggling_nodes(input: &MapInput, responses: &[&ResponseEvent]) -> Vec<NodeId> {
    let derived;
    let recent = match &input.recent_qualities {
        Some(given) => given,
        None => {
            derived = recent_qualities(responses);
            &derived
        }
    };
    input
        .nodes
        .iter()
        .filter(|node| {
            recent.get(&node.id).is_some_and(|qualities| !struggle_reasons(node.mastery_status, qualities).is_empty())
        })
        .map(|node| node.id)
        .collect()
}

/// Each node's latest [`STRUGGLE_HISTORY`] qualities, newest first; of two responses at
/// the same instant the one listed later is taken as newer.
fn recent_qualities(responses: &[&ResponseEvent]) -> HashMap<NodeId, Vec<u8>> {
    let mut ordered: Vec<(usize, &ResponseEvent)> = responses.iter().copied().enumerate().collect();
    ordered.sort_by(|(i, a), (j, b)| b.responded_at.cmp(&a.responded_at).then(j.cmp(i)));
    let mut recent: HashMap<NodeId, Vec<u8>> = HashMap::new();
    for (_, response) in ordered {
        let qualities = recent.entry(response.node_id).or_default();
        if qualities.len() < STRUGGLE_HISTORY {
            qualities.push(response.quality);
        }
    }
    recent
}

fn strongest_subtree(nodes: &[NodeProgress], edges: &[Edge], root: Option<NodeId>) -> Option<NodeId> {
    let graph = Prerequisites::new(nodes.iter().map(|n| n.id), edges);
    let mut best: Option<(f64, &NodeProgress)> = None;
    for (i, node) in nodes.iter().enumerate() {
        let members = graph.descendants(i);
        if Some(node.id) == root || members.len() < 2 || members.len() == nodes.len() {
            continue;
        }
        let mean = members.iter().map(|&m| nodes[m].mastery_score).sum::<f64>() / members.len() as f64;
        let key = |n: &NodeProgress| (n.depth, n.label.clone(), n.id);
        let better = match best {
            None => true,
            Some((best_mean, best_node)) => mean > best_mean || (mean == best_mean && key(node) < key(best_node)),
        };
        if better {
            best = Some((mean, node));
        }
    }
    best.filter(|(mean, _)| *mean > 0.0).map(|(_, node)| node.id)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::fixtures::*;
    use pathwise_domain::MasteryStatus::*;
    use ResponseType::{Diagnostic, Review, Teach};

    const NOW: &str = "2026-03-08T03:00:00Z";

    fn now() -> DateTime<Utc> {
        at(NOW)
    }

    fn days_ago(days: i64) -> DateTime<Utc> {
        now() - Duration::days(days)
    }

    fn input(nodes: Vec<NodeProgress>, edges: Vec<Edge>, responses: Vec<ResponseEvent>) -> MapInput {
        MapInput {
            map: mind_map(at("2026-02-01T00:00:00Z"), nodes.first().map(|n| n.id)),
            nodes,
            edges,
            responses,
            older_responses: ResponseTotals::default(),
            month_reviews: None,
            recent_qualities: None,
        }
    }

    fn earlier(date_: &str, mastered: usize) -> Snapshot {
        Snapshot { snapshot_date: date(date_), metrics: MapMetrics { mastered_nodes: mastered, ..Default::default() } }
    }

    fn five_nodes() -> Vec<NodeProgress> {
        vec![
            node(1, "Rust", Mastered, 0.95),
            node(2, "Ownership", Mastered, 0.9),
            node(3, "Borrowing", Reviewing, 0.7),
            node(4, "Lifetimes", Learning, 0.4),
            node(5, "Traits", Unseen, 0.0),
        ]
    }

    #[test]
    fn serialises_with_exactly_the_d6_field_names_and_nulls() {
        let json = serde_json::to_value(compute(&input(vec![], vec![], vec![]), &[], now(), 0)).unwrap();
        let mut keys: Vec<&str> = json.as_object().unwrap().keys().map(String::as_str).collect();
        keys.sort_unstable();
        let mut expected = vec![
            "total_nodes",
            "mastered_nodes",
            "mastery_pct",
            "avg_ease_factor",
            "retention_rate_7d",
            "retention_rate_30d",
            "velocity_nodes_per_week",
            "estimated_completion_days",
            "struggling_nodes",
            "strongest_subtree",
            "total_quiz_responses",
            "avg_quality_score",
            "sessions_this_period",
            "time_of_day_distribution",
            "review_responses_7d",
            "review_responses_30d",
        ];
        expected.sort_unstable();
        assert_eq!(keys, expected);
        assert!(json["retention_rate_7d"].is_null());
        assert!(json["avg_quality_score"].is_null());
        assert!(json["strongest_subtree"].is_null());
        assert_eq!(
            json["time_of_day_distribution"],
            serde_json::json!({"morning": 0, "afternoon": 0, "evening": 0, "night": 0})
        );
    }

    #[test]
    fn a_stored_snapshot_reads_back_and_tolerates_missing_fields() {
        let metrics = compute(&input(five_nodes(), vec![edge(1, 2)], vec![]), &[], now(), 0);
        let json = serde_json::to_value(&metrics).unwrap();
        assert_eq!(Snapshot::from_json(date("2026-03-08"), &json).unwrap().metrics, metrics);
        let d6_example = serde_json::json!({"total_nodes": 25, "mastered_nodes": 12, "struggling_nodes": ["00000000-0000-0000-0000-000000000001"],
            "time_of_day_distribution": {"morning": 8, "afternoon": 5, "evening": 2}});
        let read = Snapshot::from_json(date("2026-03-08"), &d6_example).unwrap().metrics;
        assert_eq!(
            (read.mastered_nodes, read.struggling_nodes.clone(), read.time_of_day_distribution.night),
            (12, vec![node_id(1)], 0)
        );
    }

    #[test]
    fn counts_mastery_and_averages_ease_over_reviewed_nodes() {
        let mut nodes = five_nodes();
        nodes[0].ease_factor = 2.6;
        nodes[1].ease_factor = 2.2;
        nodes[2].ease_factor = 1.9;
        nodes[3].ease_factor = 2.1;
        nodes[4].ease_factor = 9.9; // unseen: not counted
        let m = compute(&input(nodes, vec![], vec![]), &[], now(), 0);
        assert_eq!((m.total_nodes, m.mastered_nodes), (5, 2));
        assert_eq!(m.mastery_pct, 0.4);
        assert!((m.avg_ease_factor - 2.2).abs() < 1e-12);
        let unseen = compute(&input(vec![node(1, "Rust", Unseen, 0.0)], vec![], vec![]), &[], now(), 0);
        assert_eq!(unseen.avg_ease_factor, INITIAL_EASE_FACTOR);
        assert_eq!(compute(&input(vec![], vec![], vec![]), &[], now(), 0).mastery_pct, 0.0);
    }

    #[test]
    fn retention_counts_review_responses_only() {
        let n = node_id(3);
        let responses = vec![
            response(n, 4, Review, days_ago(1)),
            response(n, 2, Review, days_ago(2)),
            response(n, 0, Teach, days_ago(1)),
            response(n, 1, Diagnostic, days_ago(1)),
            response(n, 5, Teach, days_ago(3)),
        ];
        let m = compute(&input(five_nodes(), vec![], responses), &[], now(), 0);
        assert_eq!(m.retention_rate_7d, Some(0.5));
        assert_eq!(m.review_responses_7d, 2);
        let no_reviews = vec![response(n, 5, Teach, days_ago(1)), response(n, 4, Diagnostic, days_ago(1))];
        let m = compute(&input(five_nodes(), vec![], no_reviews), &[], now(), 0);
        assert_eq!((m.retention_rate_7d, m.retention_rate_30d), (None, None));
    }

    #[test]
    fn retention_windows_exclude_a_review_exactly_seven_or_thirty_days_old() {
        let n = node_id(3);
        let just_inside = |days: i64| days_ago(days) + Duration::seconds(1);
        let responses = vec![
            response(n, 5, Review, just_inside(7)),
            response(n, 0, Review, days_ago(7)),
            response(n, 0, Review, just_inside(30)),
            response(n, 5, Review, days_ago(30)),
            response(n, 5, Review, now() + Duration::minutes(1)),
        ];
        let m = compute(&input(five_nodes(), vec![], responses), &[], now(), 0);
        assert_eq!((m.retention_rate_7d, m.review_responses_7d), (Some(1.0), 1));
        assert_eq!((m.retention_rate_30d, m.review_responses_30d), (Some(1.0 / 3.0), 3));
        assert_eq!(m.total_quiz_responses, 4, "the response after now is left for the next run");
    }

    #[test]
    fn totals_and_average_quality_include_responses_left_out_of_the_list() {
        let n = node_id(3);
        let mut i =
            input(five_nodes(), vec![], vec![response(n, 4, Teach, days_ago(1)), response(n, 2, Review, days_ago(40))]);
        let m = compute(&i, &[], now(), 0);
        assert_eq!((m.total_quiz_responses, m.avg_quality_score), (2, Some(3.0)));
        i.older_responses = ResponseTotals { count: 8, quality_sum: 34 };
        let m = compute(&i, &[], now(), 0);
        assert_eq!((m.total_quiz_responses, m.avg_quality_score), (10, Some(4.0)));
        assert_eq!(compute(&input(five_nodes(), vec![], vec![]), &[], now(), 0).avg_quality_score, None);
    }

    #[test]
    fn sessions_and_time_of_day_cover_the_last_seven_days_at_the_learners_offset() {
        let n = node_id(3);
        let mut identified = response(n, 4, Review, at("2026-03-07T08:00:00Z"));
        identified.session_id = Some(uuid::Uuid::from_u128(7));
        let responses = vec![
            identified,
            response(n, 4, Review, at("2026-03-07T20:00:00Z")),
            response(n, 4, Review, at("2026-03-07T20:20:00Z")),
            response(n, 4, Review, at("2026-03-06T13:00:00Z")),
            response(n, 4, Review, at("2026-03-01T03:00:00Z")), // exactly 7 days: outside
        ];
        let m = compute(&input(five_nodes(), vec![], responses.clone()), &[], now(), 0);
        assert_eq!(m.sessions_this_period, 3);
        assert_eq!(
            m.time_of_day_distribution,
            TimeOfDayDistribution { morning: 1, afternoon: 1, evening: 2, night: 0 }
        );
        // At UTC-05:00: 03:00, 15:00, 15:20 and 08:00 local.
        let m = compute(&input(five_nodes(), vec![], responses), &[], now(), -300);
        assert_eq!(
            m.time_of_day_distribution,
            TimeOfDayDistribution { morning: 1, afternoon: 2, evening: 0, night: 1 }
        );
    }

    #[test]
    fn velocity_without_earlier_snapshots_uses_weeks_since_creation() {
        let mut i = input(five_nodes(), vec![], vec![]);
        i.map.created_at = now() - Duration::weeks(4);
        let m = compute(&i, &[], now(), 0);
        assert_eq!(m.velocity_nodes_per_week, 0.5);
        // 3 nodes left at 0.5 a week: 42 days.
        assert_eq!(m.estimated_completion_days, Some(42));
        i.map.created_at = now() - Duration::days(2);
        assert_eq!(compute(&i, &[], now(), 0).velocity_nodes_per_week, 2.0, "a map counts at least one week old");
    }

    #[test]
    fn velocity_compares_with_the_oldest_snapshot_of_the_last_28_days() {
        let i = input(five_nodes(), vec![], vec![]); // 2 mastered, today 2026-03-08
        let snapshots = [
            earlier("2026-02-07", 0), // 29 days: too old
            earlier("2026-02-22", 1), // 14 days: the oldest in range
            earlier("2026-03-01", 1),
            earlier("2026-03-08", 2), // today: ignored
        ];
        let m = compute(&i, &snapshots, now(), 0);
        assert_eq!(m.velocity_nodes_per_week, 0.5);
        assert_eq!(m.estimated_completion_days, Some(42));
        let exactly_28 = compute(&i, &[earlier("2026-02-08", 0)], now(), 0);
        assert_eq!(exactly_28.velocity_nodes_per_week, 0.5);
        let stalled = compute(&i, &[earlier("2026-03-01", 2)], now(), 0);
        assert_eq!((stalled.velocity_nodes_per_week, stalled.estimated_completion_days), (0.0, None));
        let shrunk = compute(&i, &[earlier("2026-03-01", 4)], now(), 0);
        assert_eq!(shrunk.velocity_nodes_per_week, 0.0, "deleting mastered nodes is not negative velocity");
    }

    #[test]
    fn a_fully_mastered_map_completes_in_zero_days() {
        let nodes = vec![node(1, "Rust", Mastered, 1.0), node(2, "Ownership", Mastered, 0.9)];
        let m = compute(&input(nodes, vec![], vec![]), &[earlier("2026-03-01", 2)], now(), 0);
        assert_eq!((m.velocity_nodes_per_week, m.estimated_completion_days), (0.0, Some(0)));
        assert_eq!(compute(&input(vec![], vec![], vec![]), &[], now(), 0).estimated_completion_days, None);
    }

    #[test]
    fn struggling_nodes_use_the_domain_rule_on_the_latest_qualities() {
        let nodes = five_nodes();
        let mut responses = Vec::new();
        // Borrowing: 1, 2, 1 newest: consecutive low quality.
        for (q, h) in [(4, 10), (1, 3), (2, 2), (1, 1)] {
            responses.push(response(node_id(3), q, Teach, now() - Duration::hours(h)));
        }
        // Lifetimes: 5, 3, 1 newest first in time order: declining.
        for (q, h) in [(5, 3), (3, 2), (1, 1)] {
            responses.push(response(node_id(4), q, Review, now() - Duration::hours(h)));
        }
        // Ownership is mastered: never struggling, whatever its qualities.
        for h in 1..=3 {
            responses.push(response(node_id(2), 0, Review, now() - Duration::hours(h)));
        }
        // Traits: two low answers are not enough.
        for h in 1..=2 {
            responses.push(response(node_id(5), 0, Teach, now() - Duration::hours(h)));
        }
        responses.reverse();
        let m = compute(&input(nodes.clone(), vec![], responses.clone()), &[], now(), 0);
        assert_eq!(m.struggling_nodes, vec![node_id(3), node_id(4)]);
        // Given recent qualities win over the responses passed.
        let mut i = input(nodes, vec![], responses);
        i.recent_qualities = Some(HashMap::from([(node_id(5), vec![1, 1, 0])]));
        assert_eq!(compute(&i, &[], now(), 0).struggling_nodes, vec![node_id(5)]);
    }

    #[test]
    fn responses_at_the_same_instant_take_the_later_listed_as_newer() {
        let t = now() - Duration::hours(1);
        let early = now() - Duration::hours(2);
        // Listed order at one instant: 5, 3, 1 → newest first 1, 3, 5: declining.
        let responses = vec![
            response(node_id(4), 5, Review, t),
            response(node_id(4), 3, Review, t),
            response(node_id(4), 1, Review, t),
            response(node_id(4), 5, Review, early),
        ];
        let m = compute(&input(five_nodes(), vec![], responses), &[], now(), 0);
        assert_eq!(m.struggling_nodes, vec![node_id(4)]);
    }

    const ROOT: Option<NodeId> = Some(NodeId(uuid::Uuid::from_u128(1)));

    fn tree() -> (Vec<NodeProgress>, Vec<Edge>) {
        // Rust(1) -> Ownership(2) -> Borrowing(3), Lifetimes(4); Rust -> Traits(5) -> Generics(6)
        let mut nodes = vec![
            node(1, "Rust", Mastered, 1.0),
            node(2, "Ownership", Reviewing, 0.75),
            node(3, "Borrowing", Reviewing, 0.5),
            node(4, "Lifetimes", Learning, 0.25),
            node(5, "Traits", Reviewing, 0.75),
            node(6, "Generics", Learning, 0.25),
        ];
        for (n, depth) in nodes.iter_mut().zip([0, 1, 2, 2, 1, 2]) {
            n.depth = depth;
        }
        (nodes, vec![edge(1, 2), edge(2, 3), edge(2, 4), edge(1, 5), edge(5, 6)])
    }

    #[test]
    fn strongest_subtree_has_the_highest_mean_and_is_never_the_whole_map() {
        let (nodes, edges) = tree();
        // Ownership: (0.75+0.5+0.25)/3 = 0.5; Traits: (0.75+0.25)/2 = 0.5; tie, both at depth 1 → label.
        assert_eq!(strongest_subtree(&nodes, &edges, ROOT), Some(node_id(2)));
        let mut stronger = nodes.clone();
        stronger[5].mastery_score = 0.5;
        assert_eq!(strongest_subtree(&stronger, &edges, ROOT), Some(node_id(5)));
        // Without a root recorded, the subtree that is the whole map is still excluded.
        let mut root_only = nodes.clone();
        for n in &mut root_only[1..] {
            n.mastery_score = 0.0;
        }
        root_only[0].mastery_score = 1.0;
        assert_eq!(strongest_subtree(&root_only, &edges, None), None, "all proper subtrees score 0");
        assert_eq!(strongest_subtree(&nodes[..1], &[], ROOT), None);
    }

    #[test]
    fn strongest_subtree_ties_prefer_the_shallower_node() {
        // Rust(1) -> A(2) -> B(3) -> C(4): A's subtree {A,B,C}, B's {B,C}.
        let mut nodes = vec![
            node(1, "Rust", Mastered, 1.0),
            node(2, "Z", Learning, 0.5),
            node(3, "A", Learning, 0.5),
            node(4, "C", Learning, 0.5),
        ];
        for (n, depth) in nodes.iter_mut().zip([0, 1, 2, 3]) {
            n.depth = depth;
        }
        let edges = vec![edge(1, 2), edge(2, 3), edge(3, 4)];
        assert_eq!(strongest_subtree(&nodes, &edges, ROOT), Some(node_id(2)));
    }

    #[test]
    fn related_edges_do_not_make_subtrees() {
        let (nodes, mut edges) = tree();
        edges.retain(|e| e.child_node_id != node_id(6));
        let mut related = edge(5, 6);
        related.edge_type = pathwise_domain::EdgeType::Related;
        edges.push(related);
        // Traits heads no subtree of 2 any more; the root's (mean 0.65) is not the whole map
        // now, but the root is never a candidate, so Ownership's (0.5) is the only one.
        assert_eq!(strongest_subtree(&nodes, &edges, ROOT), Some(node_id(2)));
    }
}
