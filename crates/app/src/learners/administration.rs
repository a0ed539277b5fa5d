//! The operator's view of learners: who there is and when each was last about, and a
//! learner deleted with everything that is theirs.

use crate::paging::{window, Paged};
use crate::stores::SessionStores;
use crate::{App, AppError, AppResult, ErrorCode, ErrorKind};
use chrono::{DateTime, Utc};
use pathwise_domain::{LearnerId, SessionEndReason, SessionId};
use pathwise_store::LearnerActivity;
use pathwise_store::LearnerAdminStore;
use serde::Serialize;

/// A learner as the operator lists them.
#[derive(Debug, Clone, PartialEq, Serialize, utoipa::ToSchema)]
pub struct LearnerSummary {
    pub id: LearnerId,
    pub name: String,
    /// The loopback server's own learner.
    pub is_local: bool,
    pub created_at: DateTime<Utc>,
    /// The latest of: a request with one of their tokens, an answer, a session's step, a
    /// tutor turn, a teaching flow's step. None if they never did anything.
    pub last_active_at: Option<DateTime<Utc>>,
    /// Tokens not revoked.
    pub active_tokens: u64,
}

impl From<LearnerActivity> for LearnerSummary {
    fn from(a: LearnerActivity) -> Self {
        let last_active_at = [a.last_token_use, a.last_response, a.last_session, a.last_tutor_turn, a.last_flow_step]
            .into_iter()
            .flatten()
            .max();
        LearnerSummary {
            id: a.learner.id,
            name: a.learner.name,
            is_local: a.learner.is_local,
            created_at: a.learner.created_at,
            last_active_at,
            active_tokens: a.active_tokens,
        }
    }
}

/// What deleting a learner did.
#[derive(Debug, Clone, PartialEq, Serialize, utoipa::ToSchema)]
pub struct DeletedLearner {
    pub id: LearnerId,
    pub name: String,
    /// The sessions that were open, ended (and their streams closed) before the deletion.
    pub sessions_ended: Vec<SessionId>,
}

impl<S: SessionStores + LearnerAdminStore> App<S> {
    /// Learners in the order they were made, a page at a time.
    pub async fn list_learners(&self, offset: Option<i64>, limit: Option<i64>) -> AppResult<Paged<LearnerSummary>> {
        let (offset, limit) = window(offset, limit)?;
        let page = self.store.learner_activity(offset, limit).await?;
        Ok(Paged {
            items: page.items.into_iter().map(LearnerSummary::from).collect(),
            total: page.total,
            offset,
            limit,
        })
    }

    /// Delete a learner and every row that is theirs, in one transaction. Their open
    /// sessions are ended first, as the operator's doing, so that a stream following one
    /// sees it end and closes. The local learner is refused: the loopback workspace signs
    /// in as them, and would go on handing out a token of nobody.
    pub async fn delete_learner(&self, id: LearnerId) -> AppResult<DeletedLearner> {
        let learner = self.learner(id).await?;
        if learner.is_local {
            return Err(AppError::new(
                ErrorKind::Conflict,
                ErrorCode::LocalLearner,
                format!(
                    "learner {id} is the local learner, whom the loopback workspace signs in as; it is not deleted \
                     (export it with GET /api/learners/{id}/export, or start afresh with a new data directory)"
                ),
            ));
        }
        let mut sessions_ended = Vec::new();
        for session in self.open_sessions(id).await? {
            match self.end_session(id, session, SessionEndReason::Operator).await {
                Ok(_) => sessions_ended.push(session),
                // Ended or gone meanwhile: the deletion takes it either way.
                Err(e) if matches!(e.kind, ErrorKind::NotFound | ErrorKind::Conflict) => {}
                // Whatever kept it from ending (a busy store, say), the deletion erases it,
                // and a stream on it closes when it finds the session gone: a session is
                // never what keeps a learner from being deleted.
                Err(e) => tracing::warn!(%session, error = %e, "could not end a session before deleting its learner"),
            }
        }
        if !self.store.delete_learner(id).await? {
            return Err(AppError::not_found("learner", id));
        }
        self.fsrs.forget(id);
        Ok(DeletedLearner { id, name: learner.name, sessions_ended })
    }

    /// The learner's sessions not yet over.
    async fn open_sessions(&self, learner: LearnerId) -> AppResult<Vec<SessionId>> {
        let mut open = Vec::new();
        let mut offset = 0;
        loop {
            let page = self.store.list_sessions(learner, offset, crate::paging::MAX_LIMIT).await?;
            let read = page.items.len() as i64;
            open.extend(page.items.into_iter().filter(|s| !s.status.is_final()).map(|s| s.id));
            offset += read;
            if read == 0 || offset as u64 >= page.total {
                return Ok(open);
            }
        }
    }
}
