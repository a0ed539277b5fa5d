//! Review jobs kept in step with the maps (D2). A response changes its node's
//! `next_review_at`; rather than rewrite the map's jobs inside every response (the hot
//! path), the map is marked and its jobs are re-planned in one transaction at the next
//! scheduler tick, however many responses came in between. A map's status change
//! re-plans at once. Planning itself is the domain's `review_jobs::plan`.

use crate::StoreHandle;
use crate::{AppError, AppResult, Clock};
use pathwise_domain::review_jobs::{self, PlannedReview};
use pathwise_domain::{JobKind, LearnerId, MapStatus, MindMapId};
use pathwise_store::{Job, StoreError};
use pathwise_store::{JobStore, MapStore};
use serde::Serialize;
use serde_json::json;
use std::collections::HashSet;
use std::sync::{Arc, Mutex};

/// A map's review jobs after they were re-planned.
#[derive(Debug, Clone, Serialize, utoipa::ToSchema, schemars::JsonSchema)]
pub struct ReviewSchedule {
    pub mind_map_id: MindMapId,
    pub status: MapStatus,
    /// Pending review jobs the map has now.
    pub review_jobs: usize,
}

/// Maps whose review jobs are to be re-planned.
#[derive(Clone, Default)]
pub(crate) struct ChangedMaps(Arc<Mutex<HashSet<(LearnerId, MindMapId)>>>);

impl ChangedMaps {
    fn mark(&self, learner: LearnerId, map: MindMapId) {
        self.0.lock().expect("changed maps lock").insert((learner, map));
    }

    fn take(&self) -> Vec<(LearnerId, MindMapId)> {
        self.0.lock().expect("changed maps lock").drain().collect()
    }
}

/// Review jobs kept in step with the maps: a service of its own over the job and map
/// stores, holding the maps marked since the last re-plan.
#[derive(Clone)]
pub struct ReviewJobs<S = pathwise_store::AnyStore> {
    store: S,
    clock: Arc<dyn Clock>,
    changed: ChangedMaps,
}

impl<S: StoreHandle> ReviewJobs<S> {
    pub fn new(store: S, clock: Arc<dyn Clock>) -> Self {
        ReviewJobs { store, clock, changed: ChangedMaps::default() }
    }

    /// Mark the map's review jobs to be re-planned at the next flush.
    pub(crate) fn changed(&self, learner: LearnerId, map: MindMapId) {
        self.changed.mark(learner, map);
    }
}

impl<S: StoreHandle + JobStore + MapStore> ReviewJobs<S> {
    /// Re-plan the review jobs of every map changed since the last call; how many maps.
    pub async fn flush(&self) -> AppResult<usize> {
        let maps = self.changed.take();
        for (learner, map) in &maps {
            self.sync(*learner, *map).await?;
        }
        Ok(maps.len())
    }

    /// Re-plan one map's review jobs now.
    pub async fn sync(&self, learner: LearnerId, map: MindMapId) -> AppResult<usize> {
        let now = self.clock.now();
        let planned = self
            .store
            .replace_review_jobs(learner, map, now, move |due| {
                review_jobs::plan(due.map_status, &due.nodes, now)
                    .into_iter()
                    .map(|planned| review_job(learner, map, planned, now))
                    .collect()
            })
            .await;
        match planned {
            // A map deleted since it was marked has no jobs left to plan.
            Err(StoreError::NotFound(_)) => Ok(0),
            other => Ok(other?),
        }
    }

    /// Re-plan one of the learner's maps' review jobs now (`spaced_repetition_schedule_cleanup`):
    /// what an active map has due, nothing for a completed or abandoned one.
    pub async fn cleanup(&self, learner: LearnerId, map: MindMapId) -> AppResult<ReviewSchedule> {
        let found = self.store.get_map(learner, map).await?.ok_or_else(|| AppError::not_found("mind map", map))?;
        let review_jobs = self.sync(learner, map).await?;
        Ok(ReviewSchedule { mind_map_id: map, status: found.status, review_jobs })
    }

    /// Re-plan the review jobs of every active map (at start-up and nightly), so that
    /// marks lost in a restart cannot leave a map without its reviews.
    pub async fn sync_all(&self) -> AppResult<usize> {
        let maps = self.store.maps_with_status(MapStatus::Active).await?;
        for map in &maps {
            self.sync(map.learner_id, map.id).await?;
        }
        Ok(maps.len())
    }
}

fn review_job(learner: LearnerId, map: MindMapId, planned: PlannedReview, now: chrono::DateTime<chrono::Utc>) -> Job {
    let (kind, node_id, payload, run_at, expires_at) = match planned {
        PlannedReview::Single { node_id, run_at, expires_at } => {
            (JobKind::Review, Some(node_id), json!({}), run_at, expires_at)
        }
        PlannedReview::Batch { node_ids, run_at, expires_at } => {
            (JobKind::ReviewBatch, None, json!({ "node_ids": node_ids }), run_at, expires_at)
        }
    };
    Job {
        learner_id: Some(learner),
        mind_map_id: Some(map),
        node_id,
        payload,
        expires_at: Some(expires_at),
        ..Job::one_shot(kind, run_at, now)
    }
}
