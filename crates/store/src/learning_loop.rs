//! What the learning loop keeps beside the learner model: teaching flows (guarded by
//! compare-and-set), scheduled jobs claimed by lease with a record of each firing, and the
//! nightly analytics snapshots.

use crate::{Page, StoreResult};
use chrono::{DateTime, NaiveDate, Utc};
use pathwise_domain::flow::Flow;
use pathwise_domain::model::{MapChanges, MindMap};
use pathwise_domain::{FlowId, FlowStatus, JobId, JobKind, JobOutcome, LearnerId, MapStatus, MindMapId, NodeId};
use serde::Serialize;
use serde_json::Value;
use std::future::Future;
use utoipa::ToSchema;

#[derive(Debug, Clone, PartialEq, Serialize, ToSchema, schemars::JsonSchema)]
pub struct Job {
    pub id: JobId,
    pub kind: JobKind,
    /// Recurring jobs have a unique name (`nightly-analytics`).
    pub name: Option<String>,
    pub learner_id: Option<LearnerId>,
    pub mind_map_id: Option<MindMapId>,
    pub node_id: Option<NodeId>,
    #[schema(value_type = Object)]
    pub payload: Value,
    /// A cron expression for recurring jobs; none for one-shot jobs.
    pub cron: Option<String>,
    pub run_at: DateTime<Utc>,
    /// A one-shot job not run by then is dropped as expired.
    pub expires_at: Option<DateTime<Utc>>,
    pub attempts: i32,
    pub last_error: Option<String>,
    pub created_at: DateTime<Utc>,
}

impl Job {
    /// A one-shot job of `kind` due at `run_at`, created at `now`, about nothing in
    /// particular until its fields say otherwise.
    pub fn one_shot(kind: JobKind, run_at: DateTime<Utc>, now: DateTime<Utc>) -> Job {
        Job {
            id: JobId(uuid::Uuid::now_v7()),
            kind,
            name: None,
            learner_id: None,
            mind_map_id: None,
            node_id: None,
            payload: Value::Object(Default::default()),
            cron: None,
            run_at,
            expires_at: None,
            attempts: 0,
            last_error: None,
            created_at: now,
        }
    }
}

/// What happens to a job after one firing.
#[derive(Debug, Clone, PartialEq)]
pub enum JobNext {
    /// A one-shot job is done (or given up): it is deleted.
    Delete,
    /// A recurring job's next firing, or a failed one-shot job's retry.
    RunAt(DateTime<Utc>),
}

/// One firing of a claimed job, finished.
#[derive(Debug, Clone, PartialEq)]
pub struct FinishedJob {
    pub job: Job,
    pub worker: String,
    pub outcome: JobOutcome,
    pub detail: Option<String>,
    pub next: JobNext,
    pub finished_at: DateTime<Utc>,
}

#[derive(Debug, Clone, PartialEq, Serialize, ToSchema, schemars::JsonSchema)]
pub struct JobRun {
    pub job_id: JobId,
    pub kind: JobKind,
    pub learner_id: Option<LearnerId>,
    pub mind_map_id: Option<MindMapId>,
    /// The firing this run was: the job's `run_at` when it was claimed.
    pub scheduled_for: DateTime<Utc>,
    pub worker: String,
    pub outcome: JobOutcome,
    pub detail: Option<String>,
    pub finished_at: DateTime<Utc>,
}

/// A map's status and every node's `next_review_at`, as review jobs are planned from.
#[derive(Debug, Clone, PartialEq)]
pub struct ReviewDue {
    pub map_status: MapStatus,
    pub nodes: Vec<(NodeId, Option<DateTime<Utc>>)>,
}

#[derive(Debug, Clone, PartialEq, Serialize, ToSchema, schemars::JsonSchema)]
pub struct Snapshot {
    pub mind_map_id: MindMapId,
    #[serde(skip)]
    pub learner_id: LearnerId,
    pub snapshot_date: NaiveDate,
    #[schema(value_type = Object)]
    pub metrics: Value,
    pub created_at: DateTime<Utc>,
}

/// What a learner chose about their own learning.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, serde::Deserialize, ToSchema, schemars::JsonSchema)]
pub struct Preferences {
    /// Reviews a day at most; none for no limit.
    pub daily_review_cap: Option<u32>,
    /// Which scheduler spaces the learner's reviews.
    pub srs_scheduler: pathwise_domain::SrsScheduler,
}

impl Default for Preferences {
    fn default() -> Self {
        Preferences { daily_review_cap: None, srs_scheduler: pathwise_domain::SrsScheduler::Sm2 }
    }
}

/// FSRS's memory of one node.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct NodeFsrs {
    pub stability: f64,
    pub difficulty: f64,
}

/// A learner's own FSRS parameters as last fitted, with how well the fitting predicted
/// their latest reviews; `weights` is `None` when the defaults were kept (`reason` says why).
#[derive(Debug, Clone, PartialEq)]
pub struct LearnerFsrs {
    pub weights: Option<Vec<f32>>,
    /// Reviews in the learner's log when fitted.
    pub reviews: i64,
    /// Reviews the optimiser fitted on (a day or more after the concept's previous answer).
    pub fitted_on_reviews: i64,
    pub initial_stability_only: bool,
    /// The latest reviews held out to check the fitting on, and the log losses there.
    pub checked_reviews: i64,
    pub log_loss: Option<f64>,
    pub default_log_loss: Option<f64>,
    pub reason: Option<String>,
    pub fitted_at: DateTime<Utc>,
}

pub trait PreferenceStore {
    /// The learner's preferences; the defaults when they never set any.
    fn preferences(&self, learner: LearnerId) -> impl Future<Output = StoreResult<Preferences>> + Send;
    fn set_preferences(
        &self,
        learner: LearnerId,
        preferences: &Preferences,
        now: DateTime<Utc>,
    ) -> impl Future<Output = StoreResult<()>> + Send;
    /// FSRS's memory of a learner's node, if it has one.
    fn node_fsrs(&self, learner: LearnerId, node: NodeId)
        -> impl Future<Output = StoreResult<Option<NodeFsrs>>> + Send;
    /// Keep FSRS's memory of a node and its schedule: the node's interval and next review,
    /// provided it was last reviewed at `reviewed_at` (a later response has not moved it
    /// since). Whether it was applied.
    fn apply_fsrs(
        &self,
        learner: LearnerId,
        node: NodeId,
        memory: NodeFsrs,
        interval_days: f64,
        next_review_at: DateTime<Utc>,
        reviewed_at: DateTime<Utc>,
    ) -> impl Future<Output = StoreResult<bool>> + Send;
    /// The learner's own FSRS parameters, if they were ever fitted.
    fn learner_fsrs(&self, learner: LearnerId) -> impl Future<Output = StoreResult<Option<LearnerFsrs>>> + Send;
    fn set_learner_fsrs(&self, learner: LearnerId, fit: &LearnerFsrs) -> impl Future<Output = StoreResult<()>> + Send;
    /// Replace FSRS's memory of the learner's nodes: `memories` for those given, none for the
    /// learner's other nodes. Nodes not the learner's are left alone.
    fn replace_fsrs_memories(
        &self,
        learner: LearnerId,
        memories: &[(NodeId, NodeFsrs)],
        now: DateTime<Utc>,
    ) -> impl Future<Output = StoreResult<()>> + Send;
    /// The learners who chose FSRS.
    fn fsrs_learners(&self) -> impl Future<Output = StoreResult<Vec<LearnerId>>> + Send;
    /// How many responses of this type the learner gave since `since`.
    fn count_responses_since(
        &self,
        learner: LearnerId,
        response_type: pathwise_domain::ResponseType,
        since: DateTime<Utc>,
    ) -> impl Future<Output = StoreResult<i64>> + Send;
}

pub trait FlowStore {
    fn insert_flow(&self, flow: &Flow) -> impl Future<Output = StoreResult<()>> + Send;
    fn get_flow(&self, learner: LearnerId, id: FlowId) -> impl Future<Output = StoreResult<Option<Flow>>> + Send;
    fn flow_for_map(
        &self,
        learner: LearnerId,
        map: MindMapId,
    ) -> impl Future<Output = StoreResult<Option<Flow>>> + Send;
    fn list_flows(
        &self,
        learner: LearnerId,
        status: Option<FlowStatus>,
        offset: i64,
        limit: i64,
    ) -> impl Future<Output = StoreResult<Page<Flow>>> + Send;
    /// Store `flow` if the stored one is still at `flow.version - 1`; otherwise refuse with
    /// a conflict and write nothing.
    fn save_flow(&self, flow: &Flow) -> impl Future<Output = StoreResult<()>> + Send;
    /// Create the map a flow planned and store the flow, in one transaction (compare-and-set
    /// as [`FlowStore::save_flow`]).
    fn save_flow_with_map(
        &self,
        flow: &Flow,
        map: &MindMap,
        changes: &MapChanges,
    ) -> impl Future<Output = StoreResult<()>> + Send;
    /// Abandon every unfinished flow last active before `cutoff`, and its map if active;
    /// the flows as they are now.
    fn abandon_stale_flows(
        &self,
        cutoff: DateTime<Utc>,
        now: DateTime<Utc>,
    ) -> impl Future<Output = StoreResult<Vec<Flow>>> + Send;
}

pub trait JobStore {
    fn insert_jobs(&self, jobs: &[Job]) -> impl Future<Output = StoreResult<()>> + Send;
    /// Create a named recurring job, or bring its schedule up to date; the next firing is
    /// kept unless the cron expression changed.
    fn ensure_recurring_job(&self, job: &Job) -> impl Future<Output = StoreResult<()>> + Send;
    /// Lease up to `limit` jobs due at `now` that nobody holds, soonest first, to `worker`
    /// until `lease_until`. Two workers never hold the same job.
    fn claim_due_jobs(
        &self,
        worker: &str,
        now: DateTime<Utc>,
        lease_until: DateTime<Utc>,
        limit: i64,
    ) -> impl Future<Output = StoreResult<Vec<Job>>> + Send;
    /// Give back `worker`'s leases on jobs it claimed and did not start (a server that is
    /// stopping), undoing the attempt the claim counted, so that another worker takes them
    /// at once. The number released.
    fn release_jobs(&self, worker: &str, jobs: &[JobId]) -> impl Future<Output = StoreResult<u64>> + Send;
    /// Record each firing once and move each job on (delete, or set its next run), in one
    /// transaction; a job whose lease another worker has taken since is left alone. The
    /// number of firings recorded.
    fn finish_jobs(&self, finished: &[FinishedJob]) -> impl Future<Output = StoreResult<u64>> + Send;
    /// Replace a map's pending review jobs by `plan`'s, computed from the map as it is in
    /// the same transaction; jobs under a live lease are left to finish.
    fn replace_review_jobs<F>(
        &self,
        learner: LearnerId,
        map: MindMapId,
        now: DateTime<Utc>,
        plan: F,
    ) -> impl Future<Output = StoreResult<usize>> + Send
    where
        F: FnOnce(&ReviewDue) -> Vec<Job> + Send + 'static;
    /// A learner's pending jobs (of one map), soonest first.
    fn list_jobs(
        &self,
        learner: LearnerId,
        map: Option<MindMapId>,
    ) -> impl Future<Output = StoreResult<Vec<Job>>> + Send;
    /// Recurring jobs (those with a name), for operators.
    fn recurring_jobs(&self) -> impl Future<Output = StoreResult<Vec<Job>>> + Send;
    /// Recorded firings, newest first: of one learner, or all when `None`.
    fn job_runs(&self, learner: Option<LearnerId>, limit: i64)
        -> impl Future<Output = StoreResult<Vec<JobRun>>> + Send;
}

pub trait SnapshotStore {
    /// Store a map's snapshot for a day, replacing that day's earlier one.
    fn upsert_snapshot(&self, snapshot: &Snapshot) -> impl Future<Output = StoreResult<()>> + Send;
    /// A map's snapshots from `from` on, oldest first.
    fn snapshots(
        &self,
        learner: LearnerId,
        map: MindMapId,
        from: NaiveDate,
    ) -> impl Future<Output = StoreResult<Vec<Snapshot>>> + Send;
    /// The latest snapshot of each of a learner's maps.
    fn latest_snapshots(&self, learner: LearnerId) -> impl Future<Output = StoreResult<Vec<Snapshot>>> + Send;
    /// Maps of every learner with this status, for jobs that visit them all.
    fn maps_with_status(&self, status: MapStatus) -> impl Future<Output = StoreResult<Vec<MindMap>>> + Send;
    fn all_learners(&self) -> impl Future<Output = StoreResult<Vec<crate::Learner>>> + Send;
    /// One learner, if there is one with this id.
    fn learner(&self, id: LearnerId) -> impl Future<Output = StoreResult<Option<crate::Learner>>> + Send;
}
