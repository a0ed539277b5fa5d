//! Who sees a course a learner published: its owner shares it with other learners, one by
//! one, and may take it back. A course that is not theirs is not found, as if there were none.

use crate::{App, AppError, AppResult};
use pathwise_domain::LearnerId;
use pathwise_store::{Store, StoreError};
use serde::Serialize;

/// The learners a published course is shared with.
#[derive(Debug, Clone, Serialize, utoipa::ToSchema, schemars::JsonSchema)]
pub struct CourseShares {
    pub course_id: String,
    /// In the order they were shared with.
    pub learners: Vec<LearnerId>,
}

impl<S: Store> App<S> {
    /// Let `learner` see the owner's course (sharing twice is sharing once).
    pub async fn share_course(&self, owner: LearnerId, course_id: &str, learner: LearnerId) -> AppResult<CourseShares> {
        self.owned_course(owner, course_id).await?;
        if learner == owner {
            return Err(AppError::invalid("learner_id", "the course is yours: you see it already"));
        }
        match self.store.share_course(course_id, learner, self.now()).await {
            Err(StoreError::NotFound(_)) => return Err(AppError::not_found("learner", learner)),
            done => done?,
        }
        self.course_shares(owner, course_id).await
    }

    /// Stop sharing the owner's course with `learner`; their threads on it stay theirs, and
    /// no new one starts.
    pub async fn unshare_course(
        &self,
        owner: LearnerId,
        course_id: &str,
        learner: LearnerId,
    ) -> AppResult<CourseShares> {
        self.owned_course(owner, course_id).await?;
        if !self.store.unshare_course(course_id, learner).await? {
            return Err(AppError::not_found("share with learner", learner));
        }
        self.course_shares(owner, course_id).await
    }

    pub async fn course_shares(&self, owner: LearnerId, course_id: &str) -> AppResult<CourseShares> {
        self.owned_course(owner, course_id).await?;
        let learners = self.store.course_shares(course_id).await?;
        Ok(CourseShares { course_id: course_id.to_string(), learners })
    }

    async fn owned_course(&self, owner: LearnerId, course_id: &str) -> AppResult<()> {
        match self.store.get_course(course_id).await? {
            Some(course) if course.owner_id == Some(owner) => Ok(()),
            _ => Err(AppError::not_found("course of yours", course_id)),
        }
    }
}
