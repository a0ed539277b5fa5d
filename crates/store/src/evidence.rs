//! What keeps evidence honest beyond a single write: responses found again by their
//! idempotency key, the replies other evidence-recording requests gave (so that a retry
//! with the same key gets the first one), and which sessions a response may cite.

use crate::StoreResult;
use chrono::{DateTime, Utc};
use pathwise_domain::model::QuizResponse;
use pathwise_domain::LearnerId;

/// A request's reply kept under its idempotency key.
#[derive(Debug, Clone, PartialEq)]
pub struct StoredReply {
    /// SHA-256 of what was asked; the same key for another request is refused.
    pub fingerprint: String,
    pub status: u16,
    /// The reply's body (JSON text), as it was sent.
    pub body: String,
    pub created_at: DateTime<Utc>,
}

#[pathwise_store_macros::capability]
pub trait EvidenceStore {
    /// The learner's response stored with idempotency key `key`, if any.
    async fn response_by_key(&self, learner: LearnerId, key: &str) -> StoreResult<Option<QuizResponse>> {
        let sql = format!("SELECT {RESPONSE_COLUMNS} FROM quiz_responses r WHERE r.idempotency_key = $1");
        sqlx::query(&sql)
            .bind(crate::scoped_key(learner, key))
            .fetch_optional(self.reader())
            .await?
            .as_ref()
            .map(response_from_row)
            .transpose()
    }

    /// Whether `id` is one of the learner's sessions, tutor threads or teaching flows: what
    /// a response's `session_id` may cite.
    async fn owns_session(&self, learner: LearnerId, id: uuid::Uuid) -> StoreResult<bool> {
        let owned: bool = sqlx::query_scalar(
            "SELECT EXISTS (SELECT 1 FROM sessions WHERE id = $1 AND learner_id = $2) \
             OR EXISTS (SELECT 1 FROM tutor_threads WHERE id = $1 AND learner_id = $2) \
             OR EXISTS (SELECT 1 FROM teaching_flows WHERE id = $1 AND learner_id = $2)",
        )
        .bind(id)
        .bind(learner.0)
        .fetch_one(self.reader())
        .await?;
        Ok(owned)
    }

    /// The reply kept under the learner's key `key`.
    async fn stored_reply(&self, learner: LearnerId, key: &str) -> StoreResult<Option<StoredReply>> {
        let row = sqlx::query(
            "SELECT fingerprint, status, body, created_at FROM idempotency_keys WHERE learner_id = $1 AND key = $2",
        )
        .bind(learner.0)
        .bind(key)
        .fetch_optional(self.reader())
        .await?;
        row.map(|row| {
            Ok(StoredReply {
                fingerprint: row.try_get("fingerprint")?,
                status: u16::try_from(row.try_get::<i32, _>("status")?).map_err(StoreError::corrupt)?,
                body: row.try_get("body")?,
                created_at: row.try_get::<Ts, _>("created_at")?.0,
            })
        })
        .transpose()
    }

    /// Keep a reply under the learner's key; a reply already kept there stays (false).
    async fn keep_reply(&self, learner: LearnerId, key: &str, reply: &StoredReply) -> StoreResult<bool> {
        let done = sqlx::query(
            "INSERT INTO idempotency_keys (learner_id, key, fingerprint, status, body, created_at) \
             VALUES ($1, $2, $3, $4, $5, $6) ON CONFLICT (learner_id, key) DO NOTHING",
        )
        .bind(learner.0)
        .bind(key)
        .bind(&reply.fingerprint)
        .bind(i32::from(reply.status))
        .bind(&reply.body)
        .bind(Ts(reply.created_at))
        .execute(self.writer())
        .await?;
        Ok(done.rows_affected() == 1)
    }

    /// Forget replies kept since before `before`; answers how many.
    async fn forget_replies(&self, before: DateTime<Utc>) -> StoreResult<u64> {
        let done = sqlx::query("DELETE FROM idempotency_keys WHERE created_at < $1")
            .bind(Ts(before))
            .execute(self.writer())
            .await?;
        Ok(done.rows_affected())
    }
}

/// The SQL of [`EvidenceStore`], the same for both stores.
macro_rules! evidence_store {
    ($store:ty) => {
        pub(crate) use crate::evidence::StoredReply;
    };
}

pub(crate) use evidence_store;
