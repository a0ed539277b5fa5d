//! The facts of a learner's weekly digest, and a plain-text rendering of them for when no
//! language model is configured. The facts serialise to JSON for a model to phrase.

use crate::metrics::{MapMetrics, Snapshot};
use crate::trend::{trend, Direction, MapTrend};
use chrono::{Duration, NaiveDate};
use pathwise_domain::wording::{count, count_as, join_and};
use pathwise_domain::{MapStatus, MindMapId, NodeId};
use serde::{Deserialize, Serialize};
use std::collections::HashMap;
use std::fmt::Write as _;
use utoipa::ToSchema;

/// A digest covers this many days of change, ending on its date.
pub const DIGEST_DAYS: u32 = 7;

/// What the weekly job loads for one learner.
#[derive(Debug, Clone, PartialEq)]
pub struct DigestInput {
    pub learner_name: Option<String>,
    /// The digest's date (a snapshot date, see `metrics::snapshot_date`).
    pub today: NaiveDate,
    /// The current streak (`activity::current_streak_days`), if the job computed it.
    pub streak_days: Option<u32>,
    pub maps: Vec<DigestMapInput>,
}

#[derive(Debug, Clone, PartialEq)]
pub struct DigestMapInput {
    pub map_id: MindMapId,
    pub title: String,
    pub status: MapStatus,
    /// Concepts first mastered in the last [`DIGEST_DAYS`] days, dated by the evidence that
    /// mastered them (`Node::mastered_at`): reviews imported this week from weeks ago
    /// mastered their concepts weeks ago, not this week.
    pub mastered_this_week: u32,
    /// The map's snapshots of the last [`DIGEST_DAYS`] days and today, in any order (today's
    /// being its figures now).
    pub snapshots: Vec<Snapshot>,
    /// Labels of the map's nodes (at least the struggling ones); others go by id.
    pub labels: HashMap<NodeId, String>,
    /// Reviews falling due in the coming week, as the job counted them.
    pub reviews_due_next_week: u32,
}

/// A node named for people.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, ToSchema, schemars::JsonSchema)]
pub struct NamedNode {
    pub id: NodeId,
    pub label: String,
}

/// One map's week, from its newest snapshot and the trend of the week.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, ToSchema, schemars::JsonSchema)]
pub struct DigestMapFacts {
    pub map_id: MindMapId,
    pub title: String,
    pub status: MapStatus,
    pub snapshot_date: NaiveDate,
    pub total_nodes: usize,
    pub mastered_nodes: usize,
    pub mastery_pct: f64,
    /// Concepts first mastered during the week, by the time of the evidence that mastered
    /// them (an imported review keeps its own time, so old reviews imported this week do
    /// not count). Always given; optional only in the schema.
    pub newly_mastered: Option<u32>,
    /// Answers of the last 7 days (the newest snapshot's), and the study sessions they made.
    pub answers_this_week: u32,
    pub sessions_this_week: usize,
    /// Every node of the map is mastered.
    pub completed: bool,
    pub retention_rate_7d: Option<f64>,
    pub avg_quality_score: Option<f64>,
    pub trend: Option<MapTrend>,
    /// The newest snapshot's struggling nodes.
    pub struggling: Vec<NamedNode>,
    pub reviews_due_next_week: u32,
    pub estimated_completion_days: Option<u32>,
}

/// Everything a weekly digest says, as facts.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, ToSchema, schemars::JsonSchema)]
pub struct DigestFacts {
    pub learner_name: Option<String>,
    pub week_start: NaiveDate,
    pub week_end: NaiveDate,
    pub streak_days: Option<u32>,
    /// Sum of the maps' `newly_mastered`.
    pub newly_mastered: u32,
    /// Sum of the maps' `reviews_due_next_week`.
    pub reviews_due_next_week: u32,
    /// Maps with a snapshot during the week, in the order given; others are left out.
    pub maps: Vec<DigestMapFacts>,
}

/// The facts of a learner's digest for the week ending `input.today`.
pub fn digest_facts(input: &DigestInput) -> DigestFacts {
    let week_start = input.today - Duration::days(i64::from(DIGEST_DAYS));
    let maps: Vec<DigestMapFacts> =
        input.maps.iter().filter_map(|map| map_facts(map, week_start, input.today)).collect();
    DigestFacts {
        learner_name: input.learner_name.clone(),
        week_start,
        week_end: input.today,
        streak_days: input.streak_days,
        newly_mastered: maps.iter().filter_map(|m| m.newly_mastered).sum(),
        reviews_due_next_week: maps.iter().map(|m| m.reviews_due_next_week).sum(),
        maps,
    }
}

fn map_facts(map: &DigestMapInput, week_start: NaiveDate, today: NaiveDate) -> Option<DigestMapFacts> {
    let latest = map
        .snapshots
        .iter()
        .filter(|s| s.snapshot_date >= week_start && s.snapshot_date <= today)
        .max_by_key(|s| s.snapshot_date)?;
    let metrics: &MapMetrics = &latest.metrics;
    let trend = trend(&map.snapshots, today, DIGEST_DAYS);
    Some(DigestMapFacts {
        map_id: map.map_id,
        title: map.title.clone(),
        status: map.status,
        snapshot_date: latest.snapshot_date,
        total_nodes: metrics.total_nodes,
        mastered_nodes: metrics.mastered_nodes,
        mastery_pct: metrics.mastery_pct,
        newly_mastered: Some(map.mastered_this_week),
        answers_this_week: metrics.time_of_day_distribution.total(),
        sessions_this_week: metrics.sessions_this_period,
        completed: metrics.total_nodes > 0 && metrics.mastered_nodes == metrics.total_nodes,
        retention_rate_7d: metrics.retention_rate_7d,
        avg_quality_score: metrics.avg_quality_score,
        trend,
        struggling: metrics
            .struggling_nodes
            .iter()
            .map(|&id| NamedNode { id, label: map.labels.get(&id).cloned().unwrap_or_else(|| id.to_string()) })
            .collect(),
        reviews_due_next_week: map.reviews_due_next_week,
        estimated_completion_days: metrics.estimated_completion_days,
    })
}

fn percent(rate: f64) -> String {
    format!("{:.0}%", rate * 100.0)
}

fn day(date: NaiveDate) -> String {
    date.format("%-d %B %Y").to_string()
}

/// The digest as a plain-text message: `(subject, body)`. Deterministic; used when no
/// language model is configured.
pub fn render_text(facts: &DigestFacts) -> (String, String) {
    let subject = match (facts.newly_mastered, facts.reviews_due_next_week) {
        (0, 0) => "Your learning week".to_string(),
        (0, due) => format!("Your learning week: {} ahead", count(due.into(), "review")),
        (new, _) => format!("Your learning week: {} mastered", count(new.into(), "new concept")),
    };
    let mut body = String::new();
    let name = facts.learner_name.as_deref().map(|n| format!(" {n}")).unwrap_or_default();
    let _ = writeln!(body, "Hello{name},\n");
    let _ = writeln!(body, "Here is your week, {} to {}.", day(facts.week_start), day(facts.week_end));
    if let Some(streak) = facts.streak_days.filter(|&s| s >= 2) {
        let _ = writeln!(body, "You have studied {} in a row. Keep it going!", count(streak.into(), "day"));
    }
    if facts.maps.is_empty() {
        let _ = writeln!(body, "\nNo progress was recorded in your maps this week.");
    }
    for map in &facts.maps {
        body.push('\n');
        render_map(&mut body, map);
    }
    let _ = write!(
        body,
        "\nIn all: {} this week, {} in the coming week.\n",
        count_as(facts.newly_mastered.into(), "concept mastered", "concepts mastered"),
        count_as(facts.reviews_due_next_week.into(), "review due", "reviews due"),
    );
    (subject, body)
}

fn render_map(body: &mut String, map: &DigestMapFacts) {
    let _ = write!(
        body,
        "{}: {} of {} mastered ({})",
        map.title,
        map.mastered_nodes,
        count(map.total_nodes as u64, "concept"),
        percent(map.mastery_pct)
    );
    if let Some(new) = map.newly_mastered.filter(|&n| n > 0) {
        let _ = write!(body, ", {new} new this week");
    }
    match &map.trend {
        Some(trend) => {
            let _ = writeln!(body, ". Trend: {}.", trend.overall.as_str());
        }
        None => body.push_str(".\n"),
    }
    if map.answers_this_week > 0 {
        let _ = writeln!(
            body,
            "- {} in {} this week.",
            count(map.answers_this_week.into(), "answer"),
            count(map.sessions_this_week as u64, "study session")
        );
    }
    if map.completed {
        let _ = writeln!(body, "- Completed: every concept mastered. Well done!");
    }
    if let Some(rate) = map.retention_rate_7d {
        let _ = write!(body, "- Remembered in reviews: {}", percent(rate));
        if let Some(change) = map.trend.as_ref().and_then(|t| t.retention_rate_7d) {
            let points = (change.change * 100.0).round().abs();
            match change.direction {
                Direction::Improving => {
                    let _ = write!(body, " (up {points} points)");
                }
                Direction::Declining => {
                    let _ = write!(body, " (down {points} points)");
                }
                Direction::Steady => {}
            }
        }
        body.push_str(".\n");
    }
    if let Some(quality) = map.avg_quality_score {
        let _ = writeln!(body, "- Average answer quality: {quality:.1} of 5.");
    }
    if !map.struggling.is_empty() {
        let labels: Vec<&str> = map.struggling.iter().map(|n| n.label.as_str()).collect();
        let _ = writeln!(body, "- Needs more work: {}.", join_and(&labels));
    }
    if map.reviews_due_next_week > 0 {
        let _ = writeln!(
            body,
            "- {} in the coming week.",
            count_as(map.reviews_due_next_week.into(), "review due", "reviews due")
        );
    }
    if let Some(days) = map.estimated_completion_days.filter(|&d| d > 0 && !map.completed) {
        let _ = writeln!(body, "- At this pace, about {} to finish.", count(days.into(), "day"));
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::fixtures::{date, map_id, node_id};

    fn snapshot(day: &str, mastered: usize, retention: Option<f64>, struggling: &[u128]) -> Snapshot {
        Snapshot {
            snapshot_date: date(day),
            metrics: MapMetrics {
                total_nodes: 25,
                mastered_nodes: mastered,
                mastery_pct: mastered as f64 / 25.0,
                retention_rate_7d: retention,
                avg_quality_score: Some(3.84),
                struggling_nodes: struggling.iter().map(|&n| node_id(n)).collect(),
                estimated_completion_days: Some(14),
                ..Default::default()
            },
        }
    }

    fn input() -> DigestInput {
        DigestInput {
            learner_name: Some("Ana".into()),
            today: date("2026-03-08"),
            streak_days: Some(5),
            maps: vec![
                DigestMapInput {
                    map_id: map_id(1),
                    title: "Rust".into(),
                    status: MapStatus::Active,
                    mastered_this_week: 3,
                    snapshots: vec![
                        snapshot("2026-03-08", 13, Some(0.8), &[3, 4]),
                        snapshot("2026-03-01", 10, Some(0.9), &[3]),
                        snapshot("2026-03-04", 11, Some(0.85), &[3]),
                    ],
                    labels: HashMap::from([(node_id(3), "Borrowing".to_string()), (node_id(4), "Lifetimes".into())]),
                    reviews_due_next_week: 14,
                },
                DigestMapInput {
                    map_id: map_id(2),
                    title: "Go".into(),
                    status: MapStatus::Active,
                    mastered_this_week: 0,
                    snapshots: vec![snapshot("2026-03-07", 2, None, &[])],
                    labels: HashMap::new(),
                    reviews_due_next_week: 6,
                },
                DigestMapInput {
                    map_id: map_id(3),
                    title: "Forgotten".into(),
                    status: MapStatus::Abandoned,
                    mastered_this_week: 0,
                    snapshots: vec![snapshot("2026-02-20", 2, None, &[])],
                    labels: HashMap::new(),
                    reviews_due_next_week: 0,
                },
            ],
        }
    }

    #[test]
    fn facts_carry_the_week_per_map() {
        let facts = digest_facts(&input());
        assert_eq!((facts.week_start, facts.week_end), (date("2026-03-01"), date("2026-03-08")));
        assert_eq!(facts.maps.len(), 2, "a map without a snapshot this week is left out");
        let rust = &facts.maps[0];
        assert_eq!(rust.newly_mastered, Some(3));
        assert_eq!(rust.trend.as_ref().unwrap().overall, Direction::Steady, "mastery up, retention down");
        assert_eq!(
            rust.struggling,
            vec![
                NamedNode { id: node_id(3), label: "Borrowing".into() },
                NamedNode { id: node_id(4), label: "Lifetimes".into() }
            ]
        );
        let go = &facts.maps[1];
        assert_eq!((go.newly_mastered, go.trend.is_none()), (Some(0), true));
        assert_eq!((facts.newly_mastered, facts.reviews_due_next_week), (3, 20));
    }

    #[test]
    fn facts_round_trip_as_json_for_a_language_model() {
        let facts = digest_facts(&input());
        let json = serde_json::to_value(&facts).unwrap();
        assert_eq!(json["maps"][0]["trend"]["mastered_nodes"]["change"], 3);
        assert_eq!(json["maps"][0]["struggling"][1]["label"], "Lifetimes");
        assert_eq!(serde_json::from_value::<DigestFacts>(json).unwrap(), facts);
    }

    #[test]
    fn the_text_names_the_numbers() {
        let (subject, body) = render_text(&digest_facts(&input()));
        assert_eq!(subject, "Your learning week: 3 new concepts mastered");
        for expected in [
            "Hello Ana,",
            "1 March 2026 to 8 March 2026",
            "5 days in a row",
            "Rust: 13 of 25 concepts mastered (52%), 3 new this week. Trend: steady.",
            "Remembered in reviews: 80% (down 10 points).",
            "Average answer quality: 3.8 of 5.",
            "Needs more work: Borrowing and Lifetimes.",
            "14 reviews due in the coming week.",
            "about 14 days to finish",
            "Go: 2 of 25 concepts mastered (8%).",
            "In all: 3 concepts mastered this week, 20 reviews due in the coming week.",
        ] {
            assert!(body.contains(expected), "missing {expected:?} in:\n{body}");
        }
        assert!(!body.contains("Forgotten"));
        assert!(body.lines().count() < 25, "short:\n{body}");
    }

    #[test]
    fn a_map_begun_this_week_counts_what_it_mastered_this_week_and_its_answers() {
        let mut today = snapshot("2026-03-08", 2, Some(1.0), &[]);
        today.metrics.time_of_day_distribution.evening = 3;
        today.metrics.sessions_this_period = 1;
        let mut input = input();
        input.maps = vec![DigestMapInput {
            map_id: map_id(4),
            title: "Brand new".into(),
            status: MapStatus::Active,
            mastered_this_week: 2,
            snapshots: vec![today.clone()],
            labels: HashMap::new(),
            reviews_due_next_week: 2,
        }];
        let facts = digest_facts(&input);
        let map = &facts.maps[0];
        assert_eq!((map.newly_mastered, map.trend.is_none()), (Some(2), true));
        assert_eq!((map.answers_this_week, map.sessions_this_week), (3, 1));
        assert_eq!(facts.newly_mastered, 2);
        let (subject, body) = render_text(&facts);
        assert_eq!(subject, "Your learning week: 2 new concepts mastered");
        assert!(body.contains("Brand new: 2 of 25 concepts mastered (8%), 2 new this week."), "{body}");
        assert!(body.contains("- 3 answers in 1 study session this week."), "{body}");
        assert!(!body.contains("No progress was recorded"), "{body}");
    }

    #[test]
    fn concepts_mastered_weeks_ago_by_reviews_imported_this_week_are_not_new() {
        // A deck imported this week: five concepts mastered by reviews of weeks ago, none
        // since. The map is new and its mastered count rose from nothing, yet nothing was
        // mastered this week.
        let mut input = input();
        input.maps = vec![DigestMapInput {
            map_id: map_id(5),
            title: "Languages::Spanish basics".into(),
            status: MapStatus::Active,
            mastered_this_week: 0,
            snapshots: vec![snapshot("2026-03-08", 5, Some(1.0), &[])],
            labels: HashMap::new(),
            reviews_due_next_week: 0,
        }];
        let facts = digest_facts(&input);
        assert_eq!((facts.maps[0].mastered_nodes, facts.maps[0].newly_mastered), (5, Some(0)));
        assert_eq!(facts.newly_mastered, 0);
        let (subject, body) = render_text(&facts);
        assert_eq!(subject, "Your learning week");
        assert!(!body.contains("new this week"), "{body}");
        assert!(body.contains("In all: 0 concepts mastered this week"), "{body}");
    }

    #[test]
    fn a_quiet_week_renders_without_maps() {
        let facts = digest_facts(&DigestInput {
            learner_name: None,
            today: date("2026-03-08"),
            streak_days: Some(1),
            maps: vec![],
        });
        let (subject, body) = render_text(&facts);
        assert_eq!(subject, "Your learning week");
        assert!(body.starts_with("Hello,\n"));
        assert!(!body.contains("in a row"));
        assert!(body.contains("No progress was recorded"));
        assert!(body.contains("In all: 0 concepts mastered this week, 0 reviews due in the coming week."));
    }

    #[test]
    fn a_completed_map_says_so_and_rendering_is_deterministic() {
        let mut input = input();
        input.maps.truncate(1);
        input.maps[0].snapshots.push({
            let mut s = snapshot("2026-03-08", 25, Some(0.95), &[]);
            s.metrics.estimated_completion_days = Some(0);
            s
        });
        input.maps[0].snapshots.retain(|s| s.metrics.mastered_nodes != 13);
        input.maps[0].reviews_due_next_week = 1;
        input.maps[0].mastered_this_week = 15;
        let facts = digest_facts(&input);
        assert!(facts.maps[0].completed);
        let (subject, body) = render_text(&facts);
        assert_eq!(subject, "Your learning week: 15 new concepts mastered");
        assert!(body.contains("Completed: every concept mastered."));
        assert!(body.contains("1 review due in the coming week."));
        assert!(!body.contains("to finish"));
        assert_eq!(render_text(&facts), (subject, body));
    }
}
