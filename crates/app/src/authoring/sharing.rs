//! Who sees a course a learner published: its owner shares it with other learners, one by
//! one, and may take it back. A course that is not theirs is not found, as if there were none.

use crate::StoreHandle;
use crate::{App, AppError, AppResult};
use pathwise_domain::LearnerId;
use pathwise_store::StoreError;
use pathwise_store::{AuthoringStore, MapStore, TutorStore};
use serde::Serialize;

/// The learners a published course is shared with.
#[derive(Debug, Clone, Serialize, utoipa::ToSchema, schemars::JsonSchema)]
pub struct CourseShares {
    pub course_id: String,
    /// In the order they were shared with.
    pub learners: Vec<LearnerId>,
}

impl<S: StoreHandle + AuthoringStore + MapStore + TutorStore> App<S> {
    /// Let `learner` see the owner's course (sharing twice is sharing once).
    pub async fn share_course(&self, owner: LearnerId, course_id: &str, learner: LearnerId) -> AppResult<CourseShares> {
        let owner = self.course_owner(Some(owner), course_id).await?;
        self.share_with(owner, course_id, learner).await
    }

    /// Stop sharing the owner's course with `learner`; their threads on it stay theirs, and
    /// no new one starts.
    pub async fn unshare_course(
        &self,
        owner: LearnerId,
        course_id: &str,
        learner: LearnerId,
    ) -> AppResult<CourseShares> {
        self.course_owner(Some(owner), course_id).await?;
        self.unshare_with(course_id, learner).await
    }

    pub async fn course_shares(&self, owner: LearnerId, course_id: &str) -> AppResult<CourseShares> {
        self.course_owner(Some(owner), course_id).await?;
        self.shares_of(course_id).await
    }

    /// The operator shares any learner's course (one without an owner every learner sees
    /// already).
    pub async fn operator_share_course(&self, course_id: &str, learner: LearnerId) -> AppResult<CourseShares> {
        let owner = self.course_owner(None, course_id).await?;
        self.share_with(owner, course_id, learner).await
    }

    pub async fn operator_unshare_course(&self, course_id: &str, learner: LearnerId) -> AppResult<CourseShares> {
        self.course_owner(None, course_id).await?;
        self.unshare_with(course_id, learner).await
    }

    async fn share_with(&self, owner: LearnerId, course_id: &str, learner: LearnerId) -> AppResult<CourseShares> {
        if learner == owner {
            return Err(AppError::invalid("learner_id", "the course is theirs: its owner sees it already"));
        }
        match self.store.share_course(course_id, learner, self.now()).await {
            Err(StoreError::NotFound(_)) => return Err(AppError::not_found("learner", learner)),
            done => done?,
        }
        self.shares_of(course_id).await
    }

    async fn unshare_with(&self, course_id: &str, learner: LearnerId) -> AppResult<CourseShares> {
        if !self.store.unshare_course(course_id, learner).await? {
            return Err(AppError::not_found("share with learner", learner));
        }
        self.shares_of(course_id).await
    }

    async fn shares_of(&self, course_id: &str) -> AppResult<CourseShares> {
        let learners = self.store.course_shares(course_id).await?;
        Ok(CourseShares { course_id: course_id.to_string(), learners })
    }

    /// The owner of a learner's course: the caller's own (`Some(caller)`), or any learner's
    /// for the operator (`None`); another's is not found.
    async fn course_owner(&self, caller: Option<LearnerId>, course_id: &str) -> AppResult<LearnerId> {
        let owner = self.store.get_course(course_id).await?.map(|c| c.owner_id);
        match (owner, caller) {
            (Some(Some(owner)), Some(caller)) if owner == caller => Ok(owner),
            (Some(Some(owner)), None) => Ok(owner),
            (Some(None), None) => Err(AppError::invalid(
                "course_id",
                format!("{course_id} is the server's course: every learner sees it already"),
            )),
            (None, None) => Err(AppError::not_found("course", course_id)),
            (_, Some(_)) => Err(AppError::not_found("course of yours", course_id)),
        }
    }
}
