//! A learner's figures as they are at this moment. Every read (the portfolio, the digest,
//! a map's analytics) and the nightly snapshot compute them here, with the same
//! `pathwise_analytics::compute`, so that a response counts the moment it is recorded and
//! a stored snapshot is exactly what a read would have shown at the time it was taken.
//!
//! The cost does not grow with the learner's history: all-time totals and each node's
//! latest qualities are kept on the node by the response path, so only the responses of
//! the last [`WEEK_DAYS`] are read (sessions and time of day look at them), the 30-day
//! retention's reviews are counted by the database rather than loaded, and velocity needs
//! one earlier snapshot per map. Five queries cover every map of the learner at once.

use super::Analytics;
use crate::{AppResult, StoreHandle};
use chrono::{DateTime, Duration, NaiveDate, Utc};
use pathwise_analytics::metrics::{MONTH_DAYS, RETAINED_QUALITY, VELOCITY_LOOKBACK_DAYS, WEEK_DAYS};
use pathwise_analytics::{self as analytics, MapInput, MapMetrics, ResponseTotals, ReviewTally};
use pathwise_domain::model::{Edge, MindMap, NodeProgress, ResponseEvent};
use pathwise_domain::{LearnerId, MindMapId, NodeId};
use pathwise_store::AnalyticsStore;
use std::collections::{BTreeSet, HashMap};

/// Study days read per query while the streak goes on.
const STUDY_DAYS_PAGE: usize = 100;

/// One map's figures now, with the nodes they were computed from.
#[derive(Debug, Clone)]
pub(crate) struct LiveMap {
    pub metrics: MapMetrics,
    /// In learning order.
    pub nodes: Vec<NodeProgress>,
}

/// Everything loaded for one map.
#[derive(Default)]
struct Loaded {
    nodes: Vec<NodeProgress>,
    recent_qualities: HashMap<NodeId, Vec<u8>>,
    totals: ResponseTotals,
    edges: Vec<Edge>,
    responses: Vec<ResponseEvent>,
}

impl<S: StoreHandle + AnalyticsStore> Analytics<S> {
    /// The figures of each of `maps` (the learner's own) at `now`. With `only` set, just
    /// that map's rows are read; `maps` must then hold it.
    pub(crate) async fn live_metrics(
        &self,
        learner: LearnerId,
        maps: &[MindMap],
        only: Option<MindMapId>,
        now: DateTime<Utc>,
    ) -> AppResult<HashMap<MindMapId, LiveMap>> {
        let today = analytics::snapshot_date(now);
        let (nodes, edges, responses, reviews, earlier) = tokio::try_join!(
            self.store.node_activity(learner, only),
            self.store.map_edges(learner, only),
            self.store.response_events(learner, only, now - Duration::days(WEEK_DAYS), now),
            self.store.review_tallies(learner, only, now - Duration::days(MONTH_DAYS), now, RETAINED_QUALITY),
            self.store.first_snapshots(learner, only, today - Duration::days(VELOCITY_LOOKBACK_DAYS), today),
        )?;
        let reviews: HashMap<MindMapId, ReviewTally> =
            reviews.into_iter().map(|(map, reviews, retained)| (map, ReviewTally { reviews, retained })).collect();
        let mut loaded: HashMap<MindMapId, Loaded> = HashMap::with_capacity(maps.len());
        for activity in nodes {
            let map = loaded.entry(activity.node.mind_map_id).or_default();
            map.totals.count += activity.responses;
            map.totals.quality_sum += activity.quality_sum;
            if !activity.recent_qualities.is_empty() {
                map.recent_qualities.insert(activity.node.id, activity.recent_qualities);
            }
            map.nodes.push(activity.node);
        }
        for edge in edges {
            loaded.entry(edge.mind_map_id).or_default().edges.push(edge);
        }
        for response in responses {
            loaded.entry(response.mind_map_id).or_default().responses.push(response);
        }
        let earlier: HashMap<MindMapId, analytics::Snapshot> = earlier
            .iter()
            .map(|s| super::parse_snapshot(s).map(|parsed| (s.mind_map_id, parsed)))
            .collect::<AppResult<_>>()?;
        let mut figures = HashMap::with_capacity(maps.len());
        for map in maps.iter().filter(|m| only.is_none_or(|id| id == m.id)) {
            let Loaded { nodes, recent_qualities, totals, edges, responses } =
                loaded.remove(&map.id).unwrap_or_default();
            let input = MapInput {
                map: map.clone(),
                nodes,
                edges,
                older_responses: older_than_window(totals, &responses),
                responses,
                month_reviews: Some(reviews.get(&map.id).copied().unwrap_or_default()),
                recent_qualities: Some(recent_qualities),
            };
            let earlier = earlier.get(&map.id).map(std::slice::from_ref).unwrap_or_default();
            let metrics = analytics::compute(&input, earlier, now, 0);
            figures.insert(map.id, LiveMap { metrics, nodes: input.nodes });
        }
        Ok(figures)
    }

    /// The learner's study streak on `today`: consecutive (UTC) days with an answer on any
    /// map, counting back from today, or from yesterday when today has none yet.
    pub(crate) async fn study_streak(&self, learner: LearnerId, today: NaiveDate) -> AppResult<u32> {
        let mut days = BTreeSet::new();
        let mut until = today;
        loop {
            let page = self.store.study_days(learner, until, STUDY_DAYS_PAGE as i64).await?;
            let (full, oldest) = (page.len() == STUDY_DAYS_PAGE, page.last().copied());
            days.extend(page);
            let streak = analytics::streak_through(&days, today);
            // Another page only while every day read so far belongs to the streak.
            match oldest {
                Some(oldest) if full && streak as usize == days.len() => until = oldest - Duration::days(1),
                _ => return Ok(streak),
            }
        }
    }
}

/// The totals of a map's responses other than those read for the windows: its node totals
/// less the window's. The two come from separate reads, so a response recorded between
/// them may be in one and not the other: a total can then be a response behind for that
/// read, never count one twice.
fn older_than_window(all: ResponseTotals, window: &[ResponseEvent]) -> ResponseTotals {
    let quality_sum: u64 = window.iter().map(|r| u64::from(r.quality)).sum();
    ResponseTotals {
        count: all.count.saturating_sub(window.len() as u64),
        quality_sum: all.quality_sum.saturating_sub(quality_sum),
    }
}

#[cfg(test)]
mod tests {
    //! The streak's paging, against a fake of the one store trait this capability uses.
    use super::*;
    use pathwise_store::{NodeActivity, Snapshot, StoreResult};
    use std::sync::atomic::{AtomicUsize, Ordering};
    use std::sync::Arc;

    /// The days a learner studied, newest first, and how many pages were read.
    #[derive(Clone, Default)]
    struct StudyDays {
        days: Arc<Vec<NaiveDate>>,
        pages: Arc<AtomicUsize>,
    }

    impl AnalyticsStore for StudyDays {
        async fn node_activity(&self, _: LearnerId, _: Option<MindMapId>) -> StoreResult<Vec<NodeActivity>> {
            unreachable!("the streak reads study days only")
        }
        async fn map_edges(&self, _: LearnerId, _: Option<MindMapId>) -> StoreResult<Vec<Edge>> {
            unreachable!("the streak reads study days only")
        }
        async fn response_events(
            &self,
            _: LearnerId,
            _: Option<MindMapId>,
            _: DateTime<Utc>,
            _: DateTime<Utc>,
        ) -> StoreResult<Vec<ResponseEvent>> {
            unreachable!("the streak reads study days only")
        }
        async fn review_tallies(
            &self,
            _: LearnerId,
            _: Option<MindMapId>,
            _: DateTime<Utc>,
            _: DateTime<Utc>,
            _: u8,
        ) -> StoreResult<Vec<(MindMapId, u32, u32)>> {
            unreachable!("the streak reads study days only")
        }
        async fn first_snapshots(
            &self,
            _: LearnerId,
            _: Option<MindMapId>,
            _: NaiveDate,
            _: NaiveDate,
        ) -> StoreResult<Vec<Snapshot>> {
            unreachable!("the streak reads study days only")
        }
        async fn study_days(&self, _: LearnerId, until: NaiveDate, limit: i64) -> StoreResult<Vec<NaiveDate>> {
            self.pages.fetch_add(1, Ordering::SeqCst);
            Ok(self.days.iter().copied().filter(|d| *d <= until).take(limit as usize).collect())
        }
    }

    fn streak_of(days: Vec<NaiveDate>, today: NaiveDate) -> (u32, usize) {
        let store = StudyDays { days: Arc::new(days), ..Default::default() };
        let analytics = Analytics::new(store.clone(), Arc::new(crate::SystemClock));
        let streak = tokio::runtime::Builder::new_current_thread()
            .build()
            .unwrap()
            .block_on(analytics.study_streak(LearnerId(uuid::Uuid::nil()), today))
            .unwrap();
        (streak, store.pages.load(Ordering::SeqCst))
    }

    #[test]
    fn a_long_streak_is_read_page_by_page_and_a_gap_ends_it() {
        let today = NaiveDate::from_ymd_opt(2026, 12, 7).unwrap();
        let run = |days: i64| (0..days).map(|d| today - Duration::days(d));
        // 250 days in a row: three pages of a hundred.
        assert_eq!(streak_of(run(250).collect(), today), (250, 3));
        // A gap after 120 days: the second page finds it, and no third is read.
        let gapped = run(120).chain((122..400).map(|d| today - Duration::days(d))).collect();
        assert_eq!(streak_of(gapped, today), (120, 2));
        // Nothing yet today: the streak counts back from yesterday.
        assert_eq!(streak_of(run(5).skip(1).collect(), today), (4, 1));
    }
}
