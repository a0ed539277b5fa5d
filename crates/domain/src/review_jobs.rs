//! Which review jobs a map should have (learning-loop-design.md D2): one one-shot job per
//! node at its `next_review_at`, each expiring 24 hours later so that a missed review does
//! not fire days late; at most [`MAX_PENDING_PER_MAP`] pending per map, the soonest ones
//! kept single and the rest gathered into one batch review; none for a map that is not
//! active. The store replaces a map's pending review jobs with this plan.

use crate::status::MapStatus;
use crate::NodeId;
use chrono::{DateTime, Duration, Utc};

pub const MAX_PENDING_PER_MAP: usize = 20;
/// How long after it falls due a review job may still run.
pub const EXPIRES_AFTER_HOURS: i64 = 24;

/// A review job the map should have.
#[derive(Debug, Clone, PartialEq)]
pub enum PlannedReview {
    Single {
        node_id: NodeId,
        run_at: DateTime<Utc>,
        expires_at: DateTime<Utc>,
    },
    /// The reviews beyond the cap, in one session at the soonest of them.
    Batch {
        node_ids: Vec<NodeId>,
        run_at: DateTime<Utc>,
        expires_at: DateTime<Utc>,
    },
}

/// Plan a map's review jobs from its nodes' `next_review_at`. Reviews whose window has
/// already closed get no job (the node stays due and is listed by pending reviews).
pub fn plan(status: MapStatus, due: &[(NodeId, Option<DateTime<Utc>>)], now: DateTime<Utc>) -> Vec<PlannedReview> {
    if status != MapStatus::Active {
        return Vec::new();
    }
    let window = Duration::hours(EXPIRES_AFTER_HOURS);
    let mut open: Vec<(DateTime<Utc>, NodeId)> =
        due.iter().filter_map(|(id, at)| at.map(|at| (at, *id))).filter(|(at, _)| *at + window > now).collect();
    open.sort();
    if open.len() <= MAX_PENDING_PER_MAP {
        return open
            .into_iter()
            .map(|(run_at, node_id)| PlannedReview::Single { node_id, run_at, expires_at: run_at + window })
            .collect();
    }
    let rest = open.split_off(MAX_PENDING_PER_MAP - 1);
    let run_at = rest[0].0;
    let mut jobs: Vec<PlannedReview> = open
        .into_iter()
        .map(|(run_at, node_id)| PlannedReview::Single { node_id, run_at, expires_at: run_at + window })
        .collect();
    jobs.push(PlannedReview::Batch {
        node_ids: rest.into_iter().map(|(_, id)| id).collect(),
        run_at,
        expires_at: run_at + window,
    });
    jobs
}

#[cfg(test)]
mod tests {
    use super::*;
    use chrono::TimeZone;
    use uuid::Uuid;

    fn now() -> DateTime<Utc> {
        Utc.with_ymd_and_hms(2026, 3, 1, 10, 0, 0).unwrap()
    }

    fn nodes(n: usize) -> Vec<(NodeId, Option<DateTime<Utc>>)> {
        (0..n).map(|i| (NodeId(Uuid::from_u128(i as u128 + 1)), Some(now() + Duration::hours(i as i64 + 1)))).collect()
    }

    #[test]
    fn each_due_node_gets_a_one_shot_job_expiring_a_day_later() {
        let jobs = plan(MapStatus::Active, &nodes(3), now());
        assert_eq!(jobs.len(), 3);
        let PlannedReview::Single { run_at, expires_at, .. } = &jobs[0] else { panic!("{jobs:?}") };
        assert_eq!(*run_at, now() + Duration::hours(1));
        assert_eq!(*expires_at - *run_at, Duration::hours(24));
    }

    #[test]
    fn twenty_reviews_stay_single_and_more_are_batched_into_one_job() {
        assert!(plan(MapStatus::Active, &nodes(20), now()).iter().all(|j| matches!(j, PlannedReview::Single { .. })));
        let jobs = plan(MapStatus::Active, &nodes(25), now());
        assert_eq!(jobs.len(), MAX_PENDING_PER_MAP);
        let PlannedReview::Batch { node_ids, run_at, .. } = jobs.last().unwrap() else { panic!("{jobs:?}") };
        assert_eq!(node_ids.len(), 6);
        assert_eq!(*run_at, now() + Duration::hours(20));
    }

    #[test]
    fn maps_that_are_not_active_and_closed_windows_get_no_jobs() {
        assert!(plan(MapStatus::Completed, &nodes(3), now()).is_empty());
        assert!(plan(MapStatus::Abandoned, &nodes(3), now()).is_empty());
        let late = vec![(NodeId(Uuid::from_u128(9)), Some(now() - Duration::hours(25))), (NodeId(Uuid::nil()), None)];
        assert!(plan(MapStatus::Active, &late, now()).is_empty());
    }
}
