//! Either store behind one type, chosen at start-up from the configuration.

use crate::{
    AnalyticsStore, FinishedJob, FlowStore, Job, JobRun, JobStore, Learner, LlmCall, NewResponse, NodeActivity,
    OperationUsage, Page, PgStore, PreferenceStore, Preferences, ResponseContext, ResponseDecision, ResponseFilter,
    ReviewDue, Snapshot, SnapshotStore, SqliteStore, Store, StoreResult,
};
use chrono::{DateTime, NaiveDate, Utc};
use pathwise_domain::flow::Flow;
use pathwise_domain::model::{Edge, MapAggregate, MapChanges, MindMap, Node, QuizResponse, ResponseEvent};
use pathwise_domain::{
    CourseDraftId, DomainError, FlowId, FlowStatus, LearnerId, MapStatus, MindMapId, NodeId, SourceChunkId,
    SourceDocumentId,
};
use std::collections::HashMap;
use std::path::Path;

#[derive(Clone, Debug)]
pub enum AnyStore {
    Sqlite(SqliteStore),
    Postgres(PgStore),
}

/// Where the configured database is.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Location {
    Postgres(String),
    Sqlite(std::path::PathBuf),
}

impl Location {
    /// PostgreSQL when `database_url` is a `postgres://` URL; otherwise SQLite, at the
    /// `sqlite://` path given or at `pathwise.db` in `data_dir`.
    pub fn of(database_url: Option<&str>, data_dir: &Path) -> StoreResult<Location> {
        match database_url.map(str::trim).filter(|u| !u.is_empty()) {
            Some(url) if url.starts_with("postgres://") || url.starts_with("postgresql://") => {
                Ok(Location::Postgres(url.to_string()))
            }
            Some(url) if url.starts_with("sqlite://") => {
                Ok(Location::Sqlite(Path::new(url.trim_start_matches("sqlite://")).to_path_buf()))
            }
            Some(url) => Err(crate::StoreError::Config(format!(
                "database URL '{}' is not supported; use postgres://… or sqlite://PATH, or leave it unset for SQLite in the data directory",
                url.split('@').next_back().unwrap_or(url)
            ))),
            None => Ok(Location::Sqlite(data_dir.join("pathwise.db"))),
        }
    }
}

impl AnyStore {
    /// Why the store must not be used any more: its SQLite file was replaced under it.
    /// PostgreSQL's database cannot be swapped under a connection, so never.
    pub fn replaced(&self) -> Option<String> {
        match self {
            AnyStore::Sqlite(store) => store.replaced(),
            AnyStore::Postgres(_) => None,
        }
    }

    /// Open the configured database (see [`Location::of`]) and bring its schema up to date.
    pub async fn open(database_url: Option<&str>, data_dir: &Path, max_connections: u32) -> StoreResult<Self> {
        match Location::of(database_url, data_dir)? {
            Location::Postgres(url) => Ok(AnyStore::Postgres(PgStore::connect(&url, max_connections).await?)),
            Location::Sqlite(path) => Ok(AnyStore::Sqlite(SqliteStore::open(&path).await?)),
        }
    }
}

/// How busy the store's connections are, for the operator's metrics.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct PoolStatus {
    /// Connections open, in use or idle, over the store's pools.
    pub open: u32,
    /// Of those, the idle ones.
    pub idle: u32,
    /// The most the pools may open.
    pub max: u32,
    /// Responses waiting for SQLite's writer thread (none for PostgreSQL).
    pub write_queue: Option<usize>,
}

/// The schema version a database has and the one this build expects.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct SchemaStatus {
    pub applied: i64,
    pub expected: i64,
}

impl SchemaStatus {
    pub fn is_current(&self) -> bool {
        self.applied == self.expected
    }
}

impl AnyStore {
    /// Ask the database for its newest migration: an error when it does not answer.
    pub async fn schema_status(&self) -> StoreResult<SchemaStatus> {
        match self {
            AnyStore::Sqlite(store) => store.schema_status().await,
            AnyStore::Postgres(store) => store.schema_status().await,
        }
    }

    pub fn pool_status(&self) -> PoolStatus {
        match self {
            AnyStore::Sqlite(store) => store.pool_status(),
            AnyStore::Postgres(store) => store.pool_status(),
        }
    }
}

macro_rules! delegate {
    ($self:ident . $method:ident ( $($arg:expr),* )) => {
        match $self {
            AnyStore::Sqlite(store) => store.$method($($arg),*).await,
            AnyStore::Postgres(store) => store.$method($($arg),*).await,
        }
    };
}

impl Store for AnyStore {
    fn engine(&self) -> &'static str {
        match self {
            AnyStore::Sqlite(store) => store.engine(),
            AnyStore::Postgres(store) => store.engine(),
        }
    }

    async fn create_learner(&self, learner: &Learner, token: &crate::NewToken) -> StoreResult<()> {
        delegate!(self.create_learner(learner, token))
    }

    async fn add_token(&self, token: &crate::NewToken) -> StoreResult<()> {
        delegate!(self.add_token(token))
    }

    async fn local_learner(&self) -> StoreResult<Option<Learner>> {
        delegate!(self.local_learner())
    }

    async fn get_map(&self, learner: LearnerId, id: MindMapId) -> StoreResult<Option<MindMap>> {
        delegate!(self.get_map(learner, id))
    }

    async fn load_map(&self, learner: LearnerId, id: MindMapId) -> StoreResult<Option<MapAggregate>> {
        delegate!(self.load_map(learner, id))
    }

    async fn list_maps(
        &self,
        learner: LearnerId,
        status: Option<MapStatus>,
        offset: i64,
        limit: i64,
    ) -> StoreResult<Page<MindMap>> {
        delegate!(self.list_maps(learner, status, offset, limit))
    }

    async fn delete_map(&self, learner: LearnerId, id: MindMapId) -> StoreResult<bool> {
        delegate!(self.delete_map(learner, id))
    }

    async fn insert_map(&self, map: &MindMap, changes: &MapChanges) -> StoreResult<()> {
        delegate!(self.insert_map(map, changes))
    }

    async fn insert_topic_map<F>(&self, map: &MindMap, changes: &MapChanges, place: F) -> StoreResult<Option<MindMapId>>
    where
        F: FnOnce(&[MindMap]) -> Result<Option<MindMapId>, DomainError> + Send + 'static,
    {
        delegate!(self.insert_topic_map(map, changes, place))
    }

    async fn update_map<T, F>(&self, learner: LearnerId, id: MindMapId, decide: F) -> StoreResult<T>
    where
        T: Send + 'static,
        F: FnOnce(&MapAggregate) -> Result<(MapChanges, T), DomainError> + Send + 'static,
    {
        delegate!(self.update_map(learner, id, decide))
    }

    async fn frontier(&self, learner: LearnerId, map: MindMapId) -> StoreResult<Vec<Node>> {
        delegate!(self.frontier(learner, map))
    }

    async fn get_node(&self, learner: LearnerId, id: NodeId) -> StoreResult<Option<Node>> {
        delegate!(self.get_node(learner, id))
    }

    async fn record_response<F>(
        &self,
        learner: LearnerId,
        response: NewResponse,
        decide: F,
    ) -> StoreResult<(QuizResponse, Node)>
    where
        F: Fn(&ResponseContext) -> Result<ResponseDecision, DomainError> + Send + Sync + 'static,
    {
        delegate!(self.record_response(learner, response, decide))
    }

    async fn node_history(
        &self,
        learner: LearnerId,
        node: NodeId,
        limit: Option<i64>,
    ) -> StoreResult<Option<Vec<QuizResponse>>> {
        delegate!(self.node_history(learner, node, limit))
    }

    async fn list_responses(
        &self,
        learner: LearnerId,
        filter: &ResponseFilter,
        offset: i64,
        limit: i64,
    ) -> StoreResult<Page<QuizResponse>> {
        delegate!(self.list_responses(learner, filter, offset, limit))
    }

    async fn recent_qualities(
        &self,
        learner: LearnerId,
        map: MindMapId,
        per_node: i64,
    ) -> StoreResult<HashMap<NodeId, Vec<u8>>> {
        delegate!(self.recent_qualities(learner, map, per_node))
    }

    async fn pending_reviews(
        &self,
        learner: LearnerId,
        map: Option<MindMapId>,
        until: DateTime<Utc>,
    ) -> StoreResult<Vec<Node>> {
        delegate!(self.pending_reviews(learner, map, until))
    }

    async fn record_llm_calls(&self, calls: &[LlmCall]) -> StoreResult<()> {
        delegate!(self.record_llm_calls(calls))
    }

    async fn llm_usage(&self, learner: LearnerId, since: Option<DateTime<Utc>>) -> StoreResult<Vec<OperationUsage>> {
        delegate!(self.llm_usage(learner, since))
    }

    async fn table_counts(&self) -> StoreResult<Vec<(String, i64)>> {
        delegate!(self.table_counts())
    }
}

impl FlowStore for AnyStore {
    async fn insert_flow(&self, flow: &Flow) -> StoreResult<()> {
        delegate!(self.insert_flow(flow))
    }

    async fn get_flow(&self, learner: LearnerId, id: FlowId) -> StoreResult<Option<Flow>> {
        delegate!(self.get_flow(learner, id))
    }

    async fn flow_for_map(&self, learner: LearnerId, map: MindMapId) -> StoreResult<Option<Flow>> {
        delegate!(self.flow_for_map(learner, map))
    }

    async fn list_flows(
        &self,
        learner: LearnerId,
        status: Option<FlowStatus>,
        offset: i64,
        limit: i64,
    ) -> StoreResult<Page<Flow>> {
        delegate!(self.list_flows(learner, status, offset, limit))
    }

    async fn save_flow(&self, flow: &Flow) -> StoreResult<()> {
        delegate!(self.save_flow(flow))
    }

    async fn save_flow_with_map(&self, flow: &Flow, map: &MindMap, changes: &MapChanges) -> StoreResult<()> {
        delegate!(self.save_flow_with_map(flow, map, changes))
    }

    async fn abandon_stale_flows(&self, cutoff: DateTime<Utc>, now: DateTime<Utc>) -> StoreResult<Vec<Flow>> {
        delegate!(self.abandon_stale_flows(cutoff, now))
    }
}

impl JobStore for AnyStore {
    async fn insert_jobs(&self, jobs: &[Job]) -> StoreResult<()> {
        delegate!(self.insert_jobs(jobs))
    }

    async fn ensure_recurring_job(&self, job: &Job) -> StoreResult<()> {
        delegate!(self.ensure_recurring_job(job))
    }

    async fn claim_due_jobs(
        &self,
        worker: &str,
        now: DateTime<Utc>,
        lease_until: DateTime<Utc>,
        limit: i64,
    ) -> StoreResult<Vec<Job>> {
        delegate!(self.claim_due_jobs(worker, now, lease_until, limit))
    }

    async fn release_jobs(&self, worker: &str, jobs: &[pathwise_domain::JobId]) -> StoreResult<u64> {
        delegate!(self.release_jobs(worker, jobs))
    }

    async fn finish_jobs(&self, finished: &[FinishedJob]) -> StoreResult<u64> {
        delegate!(self.finish_jobs(finished))
    }

    async fn replace_review_jobs<F>(
        &self,
        learner: LearnerId,
        map: MindMapId,
        now: DateTime<Utc>,
        plan: F,
    ) -> StoreResult<usize>
    where
        F: FnOnce(&ReviewDue) -> Vec<Job> + Send + 'static,
    {
        delegate!(self.replace_review_jobs(learner, map, now, plan))
    }

    async fn list_jobs(&self, learner: LearnerId, map: Option<MindMapId>) -> StoreResult<Vec<Job>> {
        delegate!(self.list_jobs(learner, map))
    }

    async fn recurring_jobs(&self) -> StoreResult<Vec<Job>> {
        delegate!(self.recurring_jobs())
    }

    async fn job_runs(&self, learner: Option<LearnerId>, limit: i64) -> StoreResult<Vec<JobRun>> {
        delegate!(self.job_runs(learner, limit))
    }
}

impl AnalyticsStore for AnyStore {
    async fn node_activity(&self, learner: LearnerId, map: Option<MindMapId>) -> StoreResult<Vec<NodeActivity>> {
        delegate!(self.node_activity(learner, map))
    }

    async fn map_edges(&self, learner: LearnerId, map: Option<MindMapId>) -> StoreResult<Vec<Edge>> {
        delegate!(self.map_edges(learner, map))
    }

    async fn response_events(
        &self,
        learner: LearnerId,
        map: Option<MindMapId>,
        after: DateTime<Utc>,
        until: DateTime<Utc>,
    ) -> StoreResult<Vec<ResponseEvent>> {
        delegate!(self.response_events(learner, map, after, until))
    }

    async fn review_tallies(
        &self,
        learner: LearnerId,
        map: Option<MindMapId>,
        after: DateTime<Utc>,
        until: DateTime<Utc>,
        retained: u8,
    ) -> StoreResult<Vec<(MindMapId, u32, u32)>> {
        delegate!(self.review_tallies(learner, map, after, until, retained))
    }

    async fn first_snapshots(
        &self,
        learner: LearnerId,
        map: Option<MindMapId>,
        from: NaiveDate,
        before: NaiveDate,
    ) -> StoreResult<Vec<Snapshot>> {
        delegate!(self.first_snapshots(learner, map, from, before))
    }

    async fn study_days(&self, learner: LearnerId, until: NaiveDate, limit: i64) -> StoreResult<Vec<NaiveDate>> {
        delegate!(self.study_days(learner, until, limit))
    }
}

impl SnapshotStore for AnyStore {
    async fn upsert_snapshot(&self, snapshot: &Snapshot) -> StoreResult<()> {
        delegate!(self.upsert_snapshot(snapshot))
    }

    async fn snapshots(&self, learner: LearnerId, map: MindMapId, from: NaiveDate) -> StoreResult<Vec<Snapshot>> {
        delegate!(self.snapshots(learner, map, from))
    }

    async fn latest_snapshots(&self, learner: LearnerId) -> StoreResult<Vec<Snapshot>> {
        delegate!(self.latest_snapshots(learner))
    }

    async fn maps_with_status(&self, status: MapStatus) -> StoreResult<Vec<MindMap>> {
        delegate!(self.maps_with_status(status))
    }

    async fn all_learners(&self) -> StoreResult<Vec<Learner>> {
        delegate!(self.all_learners())
    }

    async fn learner(&self, id: LearnerId) -> StoreResult<Option<Learner>> {
        delegate!(self.learner(id))
    }
}

impl PreferenceStore for AnyStore {
    async fn preferences(&self, learner: LearnerId) -> StoreResult<Preferences> {
        delegate!(self.preferences(learner))
    }

    async fn set_preferences(
        &self,
        learner: LearnerId,
        preferences: &Preferences,
        now: DateTime<Utc>,
    ) -> StoreResult<()> {
        delegate!(self.set_preferences(learner, preferences, now))
    }

    async fn node_fsrs(&self, learner: LearnerId, node: NodeId) -> StoreResult<Option<crate::NodeFsrs>> {
        delegate!(self.node_fsrs(learner, node))
    }

    async fn learner_fsrs(&self, learner: LearnerId) -> StoreResult<Option<crate::LearnerFsrs>> {
        delegate!(self.learner_fsrs(learner))
    }

    async fn set_learner_fsrs(&self, learner: LearnerId, fit: &crate::LearnerFsrs) -> StoreResult<()> {
        delegate!(self.set_learner_fsrs(learner, fit))
    }

    async fn replace_fsrs_memories(
        &self,
        learner: LearnerId,
        memories: &[(NodeId, crate::NodeFsrs)],
        now: DateTime<Utc>,
    ) -> StoreResult<()> {
        delegate!(self.replace_fsrs_memories(learner, memories, now))
    }

    async fn fsrs_learners(&self) -> StoreResult<Vec<LearnerId>> {
        delegate!(self.fsrs_learners())
    }

    async fn apply_fsrs(
        &self,
        learner: LearnerId,
        node: NodeId,
        memory: crate::NodeFsrs,
        interval_days: f64,
        next_review_at: DateTime<Utc>,
        reviewed_at: DateTime<Utc>,
    ) -> StoreResult<bool> {
        delegate!(self.apply_fsrs(learner, node, memory, interval_days, next_review_at, reviewed_at))
    }

    async fn count_responses_since(
        &self,
        learner: LearnerId,
        response_type: pathwise_domain::ResponseType,
        since: DateTime<Utc>,
    ) -> StoreResult<i64> {
        delegate!(self.count_responses_since(learner, response_type, since))
    }
}

impl crate::SessionStore for AnyStore {
    async fn insert_session(&self, session: &crate::SessionRecord, events: &[crate::SessionEvent]) -> StoreResult<()> {
        delegate!(self.insert_session(session, events))
    }

    async fn get_session(
        &self,
        learner: LearnerId,
        id: pathwise_domain::SessionId,
    ) -> StoreResult<Option<crate::SessionRecord>> {
        delegate!(self.get_session(learner, id))
    }

    async fn list_sessions(
        &self,
        learner: LearnerId,
        offset: i64,
        limit: i64,
    ) -> StoreResult<Page<crate::SessionRecord>> {
        delegate!(self.list_sessions(learner, offset, limit))
    }

    async fn save_session(
        &self,
        session: &crate::SessionRecord,
        events: &[crate::SessionEvent],
        messages: &[crate::SessionMessage],
    ) -> StoreResult<()> {
        delegate!(self.save_session(session, events, messages))
    }

    async fn session_events(
        &self,
        learner: LearnerId,
        id: pathwise_domain::SessionId,
        after: i64,
        limit: i64,
    ) -> StoreResult<Vec<crate::SessionEvent>> {
        delegate!(self.session_events(learner, id, after, limit))
    }

    async fn session_messages(
        &self,
        learner: LearnerId,
        id: pathwise_domain::SessionId,
    ) -> StoreResult<Vec<crate::SessionMessage>> {
        delegate!(self.session_messages(learner, id))
    }
}

impl crate::TutorStore for AnyStore {
    async fn put_course(&self, course: &crate::CourseRecord) -> StoreResult<()> {
        delegate!(self.put_course(course))
    }

    async fn get_course(&self, id: &str) -> StoreResult<Option<crate::CourseRecord>> {
        delegate!(self.get_course(id))
    }

    async fn course_hash(&self, id: &str) -> StoreResult<Option<String>> {
        delegate!(self.course_hash(id))
    }

    async fn list_courses(&self) -> StoreResult<Vec<crate::CourseRecord>> {
        delegate!(self.list_courses())
    }

    async fn get_tutor_snapshot(&self, learner: LearnerId, course: &str) -> StoreResult<Option<crate::SnapshotRecord>> {
        delegate!(self.get_tutor_snapshot(learner, course))
    }

    async fn insert_tutor_snapshot(
        &self,
        snapshot: &crate::SnapshotRecord,
        map: Option<&crate::CourseMap>,
    ) -> StoreResult<bool> {
        delegate!(self.insert_tutor_snapshot(snapshot, map))
    }

    async fn course_unit_node(&self, learner: LearnerId, map: MindMapId, unit: &str) -> StoreResult<Option<NodeId>> {
        delegate!(self.course_unit_node(learner, map, unit))
    }

    async fn insert_thread(&self, thread: &crate::ThreadRecord) -> StoreResult<()> {
        delegate!(self.insert_thread(thread))
    }

    async fn get_thread(
        &self,
        learner: LearnerId,
        id: pathwise_domain::ThreadId,
    ) -> StoreResult<Option<crate::ThreadRecord>> {
        delegate!(self.get_thread(learner, id))
    }

    async fn list_threads(
        &self,
        learner: LearnerId,
        course: Option<&str>,
        offset: i64,
        limit: i64,
    ) -> StoreResult<Page<crate::ThreadRecord>> {
        delegate!(self.list_threads(learner, course, offset, limit))
    }

    async fn thread_messages(
        &self,
        learner: LearnerId,
        thread: pathwise_domain::ThreadId,
        after: i64,
        limit: i64,
    ) -> StoreResult<Vec<crate::TutorMessageRecord>> {
        delegate!(self.thread_messages(learner, thread, after, limit))
    }

    async fn thread_offered_question(
        &self,
        learner: LearnerId,
        thread: pathwise_domain::ThreadId,
        question: &str,
    ) -> StoreResult<bool> {
        delegate!(self.thread_offered_question(learner, thread, question))
    }

    async fn commit_tutor_step(&self, step: crate::TutorStep<'_>) -> StoreResult<crate::TutorCommit> {
        delegate!(self.commit_tutor_step(step))
    }

    async fn drill_offer(
        &self,
        learner: LearnerId,
        thread: pathwise_domain::ThreadId,
        id: &str,
    ) -> StoreResult<Option<crate::DrillOfferRecord>> {
        delegate!(self.drill_offer(learner, thread, id))
    }

    async fn list_turns(
        &self,
        learner: LearnerId,
        thread: pathwise_domain::ThreadId,
        offset: i64,
        limit: i64,
    ) -> StoreResult<Page<crate::TurnRecord>> {
        delegate!(self.list_turns(learner, thread, offset, limit))
    }

    async fn exam_statuses(
        &self,
        learner: LearnerId,
        course: &str,
        questions: &[String],
    ) -> StoreResult<Vec<crate::ExamStatusRecord>> {
        delegate!(self.exam_statuses(learner, course, questions))
    }

    async fn record_exam_event(
        &self,
        event: &crate::ExamEventRecord,
        status: &crate::ExamStatusRecord,
    ) -> StoreResult<()> {
        delegate!(self.record_exam_event(event, status))
    }
}

impl crate::AuthoringStore for AnyStore {
    async fn put_source_document(
        &self,
        document: &crate::SourceDocumentRecord,
        chunks: &[crate::SourceChunkRecord],
    ) -> StoreResult<(crate::SourceDocumentRecord, crate::ChunkSync)> {
        delegate!(self.put_source_document(document, chunks))
    }

    async fn source_document(
        &self,
        owner: LearnerId,
        id: SourceDocumentId,
    ) -> StoreResult<Option<crate::SourceDocumentRecord>> {
        delegate!(self.source_document(owner, id))
    }

    async fn source_document_by_name(
        &self,
        owner: LearnerId,
        name: &str,
    ) -> StoreResult<Option<crate::SourceDocumentRecord>> {
        delegate!(self.source_document_by_name(owner, name))
    }

    async fn list_source_documents(&self, owner: LearnerId) -> StoreResult<Vec<crate::SourceDocumentRecord>> {
        delegate!(self.list_source_documents(owner))
    }

    async fn source_chunks(
        &self,
        owner: LearnerId,
        document: SourceDocumentId,
    ) -> StoreResult<Vec<crate::SourceChunkRecord>> {
        delegate!(self.source_chunks(owner, document))
    }

    async fn source_chunks_by_id(
        &self,
        owner: LearnerId,
        ids: &[SourceChunkId],
    ) -> StoreResult<Vec<crate::SourceChunkRecord>> {
        delegate!(self.source_chunks_by_id(owner, ids))
    }

    async fn delete_source_document(&self, owner: LearnerId, id: SourceDocumentId) -> StoreResult<bool> {
        delegate!(self.delete_source_document(owner, id))
    }

    async fn insert_course_draft(&self, draft: &crate::CourseDraftRecord) -> StoreResult<()> {
        delegate!(self.insert_course_draft(draft))
    }

    async fn course_draft(&self, owner: LearnerId, id: CourseDraftId) -> StoreResult<Option<crate::CourseDraftRecord>> {
        delegate!(self.course_draft(owner, id))
    }

    async fn list_course_drafts(&self, owner: LearnerId) -> StoreResult<Vec<crate::CourseDraftRecord>> {
        delegate!(self.list_course_drafts(owner))
    }

    async fn update_course_draft(&self, draft: &crate::CourseDraftRecord, expected_version: i64) -> StoreResult<bool> {
        delegate!(self.update_course_draft(draft, expected_version))
    }

    async fn delete_course_draft(&self, owner: LearnerId, id: CourseDraftId) -> StoreResult<bool> {
        delegate!(self.delete_course_draft(owner, id))
    }

    async fn publish_course(&self, course: &crate::CourseRecord, owner: LearnerId) -> StoreResult<bool> {
        delegate!(self.publish_course(course, owner))
    }

    async fn share_course(&self, course_id: &str, learner: LearnerId, at: DateTime<Utc>) -> StoreResult<()> {
        delegate!(self.share_course(course_id, learner, at))
    }

    async fn unshare_course(&self, course_id: &str, learner: LearnerId) -> StoreResult<bool> {
        delegate!(self.unshare_course(course_id, learner))
    }

    async fn course_shares(&self, course_id: &str) -> StoreResult<Vec<LearnerId>> {
        delegate!(self.course_shares(course_id))
    }

    async fn list_courses_for(&self, learner: LearnerId) -> StoreResult<Vec<crate::CourseRecord>> {
        delegate!(self.list_courses_for(learner))
    }

    async fn course_visible_to(&self, course_id: &str, learner: LearnerId) -> StoreResult<bool> {
        delegate!(self.course_visible_to(course_id, learner))
    }
}

impl crate::ImportStore for AnyStore {
    async fn import_history<T, F>(&self, learner: LearnerId, existing: Option<MindMapId>, decide: F) -> StoreResult<T>
    where
        T: Send + 'static,
        F: FnOnce(Option<crate::ImportedMap<'_>>) -> Result<(crate::HistoryImport, T), DomainError> + Send + 'static,
    {
        delegate!(self.import_history(learner, existing, decide))
    }
}

impl crate::EvidenceStore for AnyStore {
    async fn response_by_key(&self, learner: LearnerId, key: &str) -> StoreResult<Option<QuizResponse>> {
        delegate!(self.response_by_key(learner, key))
    }

    async fn owns_session(&self, learner: LearnerId, id: uuid::Uuid) -> StoreResult<bool> {
        delegate!(self.owns_session(learner, id))
    }

    async fn stored_reply(&self, learner: LearnerId, key: &str) -> StoreResult<Option<crate::StoredReply>> {
        delegate!(self.stored_reply(learner, key))
    }

    async fn keep_reply(&self, learner: LearnerId, key: &str, reply: &crate::StoredReply) -> StoreResult<bool> {
        delegate!(self.keep_reply(learner, key, reply))
    }

    async fn forget_replies(&self, before: DateTime<Utc>) -> StoreResult<u64> {
        delegate!(self.forget_replies(before))
    }
}

impl crate::LearnerAdminStore for AnyStore {
    async fn token_by_hash(&self, token_hash: &str) -> StoreResult<Option<(Learner, crate::TokenRecord)>> {
        delegate!(self.token_by_hash(token_hash))
    }

    async fn record_token_use(
        &self,
        token: pathwise_domain::TokenId,
        at: DateTime<Utc>,
        unless_since: DateTime<Utc>,
    ) -> StoreResult<bool> {
        delegate!(self.record_token_use(token, at, unless_since))
    }

    async fn learner_tokens(&self, learner: LearnerId) -> StoreResult<Vec<crate::TokenRecord>> {
        delegate!(self.learner_tokens(learner))
    }

    async fn revoke_token(
        &self,
        learner: LearnerId,
        token: pathwise_domain::TokenId,
        at: DateTime<Utc>,
    ) -> StoreResult<Option<crate::TokenRecord>> {
        delegate!(self.revoke_token(learner, token, at))
    }

    async fn rotate_token(
        &self,
        learner: LearnerId,
        old: pathwise_domain::TokenId,
        new: &crate::NewToken,
    ) -> StoreResult<crate::TokenRecord> {
        delegate!(self.rotate_token(learner, old, new))
    }

    async fn learner_activity(&self, offset: i64, limit: i64) -> StoreResult<Page<crate::LearnerActivity>> {
        delegate!(self.learner_activity(offset, limit))
    }

    async fn delete_learner(&self, learner: LearnerId) -> StoreResult<bool> {
        delegate!(self.delete_learner(learner))
    }

    async fn learner_rows(&self, learner: LearnerId) -> StoreResult<Option<crate::LearnerRows>> {
        delegate!(self.learner_rows(learner))
    }

    async fn insert_learner_rows(&self, rows: &crate::LearnerRows) -> StoreResult<()> {
        delegate!(self.insert_learner_rows(rows))
    }
}
