//! Persistence for the learner model.
//!
//! One [`Store`] trait, two implementations with their own migrations: [`SqliteStore`]
//! (embedded, the default) and [`PgStore`] (production and scale-out). Both run the same
//! conformance suite. Stores decide nothing: every rule comes from `pathwise-domain`,
//! applied inside the store's transaction through the closures the application passes.

mod admin;
mod analytics;
mod any;
mod authoring;
mod error;
mod evidence;
mod fsrs;
mod history_import;
pub mod learner_rows;
mod learning_loop;
mod maps;
mod postgres;
pub mod private_files;
mod sessions;
mod sql;
mod sql_authoring;
mod sql_loop;
mod sql_sessions;
mod sql_tutor;
mod sqlite;
pub mod sqlite_backup;
mod sqlite_batch;
mod sqlite_checkpoint;
pub mod sqlite_lock;
mod sqlite_read;
mod ts;
mod tutor;
mod usage;

pub use admin::{LearnerActivity, LearnerAdminStore, NewToken, TokenRecord};
pub use analytics::{AnalyticsStore, NodeActivity};
pub use any::{AnyStore, Location, PoolStatus, SchemaStatus};
pub use authoring::{AuthoringStore, ChunkSync, CourseDraftRecord, SourceChunkRecord, SourceDocumentRecord};
pub use error::{StoreError, StoreResult};
pub use evidence::{EvidenceStore, StoredReply};
pub use fsrs::{FsrsStore, LearnerFsrs, NodeFsrs};
pub use history_import::{HistoryImport, ImportStore, ImportedMap};
pub use learner_rows::LearnerRows;
pub use learning_loop::{
    FinishedJob, FlowStore, Job, JobNext, JobRun, JobStore, PreferenceStore, Preferences, ReviewDue, Snapshot,
    SnapshotStore,
};
pub use maps::MapStore;
pub use postgres::PgStore;
pub use sessions::{SessionEvent, SessionMessage, SessionRecord, SessionStore};
pub use sqlite::SqliteStore;
pub use tutor::{
    CourseMap, CourseRecord, DrillOfferRecord, ExamEventRecord, ExamStatusRecord, SnapshotRecord, StepResponse,
    ThreadRecord, TurnRecord, TutorCommit, TutorMessageRecord, TutorStep, TutorStore,
};
pub use usage::UsageStore;

/// Every capability trait, for code that calls a concrete store's methods (a method of a
/// trait is callable only where the trait is in scope).
pub mod prelude {
    pub use crate::{
        AnalyticsStore, AuthoringStore, EvidenceStore, FlowStore, FsrsStore, ImportStore, JobStore, LearnerAdminStore,
        MapStore, PreferenceStore, SessionStore, SnapshotStore, Store, TutorStore, UsageStore,
    };
}

use chrono::{DateTime, Utc};
use pathwise_domain::model::QuizResponse;
use pathwise_domain::{DomainError, LearnerId, MindMapId, NodeId, ResponseType};

#[derive(Debug, Clone, PartialEq)]
pub struct Learner {
    pub id: LearnerId,
    pub name: String,
    /// The learner `pathwise serve` creates for itself on a loopback address.
    pub is_local: bool,
    pub created_at: DateTime<Utc>,
}

/// A response to record, exactly as it will be stored.
#[derive(Debug, Clone, PartialEq)]
pub struct NewResponse {
    pub response: QuizResponse,
    /// The caller's idempotency key, scoped to the learner: a second response with the same
    /// key is refused with [`StoreError::Duplicate`] and stores nothing.
    pub idempotency_key: Option<String>,
}

impl std::ops::Deref for NewResponse {
    type Target = QuizResponse;

    fn deref(&self) -> &QuizResponse {
        &self.response
    }
}

impl NewResponse {
    /// The key as stored: unique across learners, so that one learner's key never meets
    /// another's.
    pub fn stored_key(&self, learner: LearnerId) -> Option<Vec<u8>> {
        self.idempotency_key.as_ref().map(|k| scoped_key(learner, k))
    }
}

/// An idempotency key as stored on a response: the key, then the learner's id, so that the
/// same key of two learners is two keys. A key that is a UUID (what the workspace sends) is
/// kept as its 16 bytes, any other as its text and a NUL (no key contains one), each behind a
/// byte that says which. The key comes first so that time-ordered keys (UUIDv7) are stored
/// in order: SQLite appends those to its index on the same few pages, where random keys
/// dirty a page of their own for every response; short entries keep both cheap.
pub fn scoped_key(learner: LearnerId, key: &str) -> Vec<u8> {
    let mut stored = Vec::with_capacity(key.len() + 18);
    match uuid::Uuid::try_parse(key) {
        Ok(uuid) => {
            stored.push(1);
            stored.extend_from_slice(uuid.as_bytes());
        }
        Err(_) => {
            stored.push(2);
            stored.extend_from_slice(key.as_bytes());
            stored.push(0);
        }
    }
    stored.extend_from_slice(learner.0.as_bytes());
    stored
}

/// The mastery rules as a store applies them to a response, inside its transaction.
pub type Decide = dyn Fn(&ResponseContext) -> Result<ResponseDecision, DomainError> + Send + Sync;
/// [`Decide`] owned, as the response writers queue it.
pub(crate) type BoxedDecide = Box<Decide>;

/// What the mastery rules read, and what they decide, are the domain's.
pub use pathwise_domain::recording::{ResponseContext, ResponseDecision};

/// One call to the language model made for a learner.
#[derive(Debug, Clone, PartialEq)]
pub struct LlmCall {
    pub learner_id: LearnerId,
    /// What the call was for (`curriculum_generate`, `diagnostic_grade`, ...).
    pub operation: String,
    pub prompt_tokens: u64,
    pub completion_tokens: u64,
    pub at: DateTime<Utc>,
}

/// Calls and tokens of one operation, summed.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct OperationUsage {
    pub operation: String,
    pub calls: u64,
    pub prompt_tokens: u64,
    pub completion_tokens: u64,
}

#[derive(Debug, Clone, Default, PartialEq)]
pub struct ResponseFilter {
    pub mind_map_id: Option<MindMapId>,
    pub node_id: Option<NodeId>,
    pub response_type: Option<ResponseType>,
}

#[derive(Debug, Clone, PartialEq)]
pub struct Page<T> {
    pub items: Vec<T>,
    pub total: u64,
}

/// Everything Pathwise keeps: every capability, and what concerns the store as a whole.
#[pathwise_store_macros::capability]
pub trait Store:
    MapStore
    + UsageStore
    + FlowStore
    + JobStore
    + SnapshotStore
    + AnalyticsStore
    + PreferenceStore
    + FsrsStore
    + SessionStore
    + TutorStore
    + AuthoringStore
    + EvidenceStore
    + ImportStore
    + LearnerAdminStore
    + Clone
    + Send
    + Sync
    + 'static
{
    /// Which engine this is (`sqlite` or `postgres`), for logs and benchmarks.
    fn engine(&self) -> &'static str {
        Self::ENGINE
    }

    /// Row counts of every table, for tests that prove a refused request wrote nothing.
    async fn table_counts(&self) -> StoreResult<Vec<(String, i64)>> {
        let mut counts = Vec::new();
        for table in TABLES {
            let count: i64 =
                sqlx::query_scalar(&format!("SELECT COUNT(*) FROM {table}")).fetch_one(self.reader()).await?;
            counts.push((table.to_string(), count));
        }
        Ok(counts)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_stored_key_is_the_learners_own_and_a_uuid_is_kept_as_its_bytes() {
        let (a, b) = (LearnerId(uuid::Uuid::now_v7()), LearnerId(uuid::Uuid::now_v7()));
        let key = "0190f3c2-7d1e-7aaa-8bbb-0123456789ab";
        assert_eq!(scoped_key(a, key), scoped_key(a, &key.to_uppercase()), "one UUID, however it is written");
        assert_eq!(scoped_key(a, key).len(), 1 + 16 + 16);
        assert_ne!(scoped_key(a, key), scoped_key(b, key), "two learners' same key are two keys");
        // A text key cannot pass for a UUID key, nor for a longer text key.
        assert_ne!(scoped_key(a, "ab"), scoped_key(a, "abc"));
        assert_ne!(scoped_key(a, key), scoped_key(a, &key.replace('-', "_")));
        // Time-ordered keys are stored in order.
        let (earlier, later) = (uuid::Uuid::now_v7().to_string(), {
            std::thread::sleep(std::time::Duration::from_millis(2));
            uuid::Uuid::now_v7().to_string()
        });
        assert!(scoped_key(a, &earlier) < scoped_key(a, &later));
    }
}
