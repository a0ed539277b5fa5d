//! A learner's own choices: the daily review cap, which bounds how many reviews are offered
//! a day (the due list and a flow's review step), so that a backlog after a break comes back
//! over several days instead of all at once; and the scheduler, with the FSRS parameters
//! that would schedule them and how well those predict them.

use crate::fsrs::parameters::FsrsStatus;
use crate::stores::FsrsStores;
use crate::{App, AppError, AppResult};
use chrono::{DateTime, NaiveTime, Utc};
use pathwise_domain::SrsScheduler;
use pathwise_domain::{LearnerId, ResponseType};
use pathwise_store::Preferences;
use serde::{Deserialize, Serialize};
use utoipa::ToSchema;

pub const MAX_DAILY_REVIEW_CAP: u32 = 1_000;

/// A change of preferences; a field left out keeps its value, `null` clears it.
#[derive(Debug, Clone, Default, Deserialize, ToSchema, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct UpdatePreferences {
    /// Reviews a day at most, 1-1000; `null` for no limit.
    #[serde(default, deserialize_with = "present")]
    #[schema(value_type = Option<i64>, minimum = 1, maximum = 1000)]
    pub daily_review_cap: Option<Option<i64>>,
    /// `sm2` (the default) or `fsrs`: which scheduler spaces the learner's reviews.
    #[serde(default)]
    pub srs_scheduler: Option<pathwise_domain::SrsScheduler>,
}

/// A field that is present, even as `null` (`Some(None)`); left out it stays `None`.
fn present<'de, D: serde::Deserializer<'de>>(deserializer: D) -> Result<Option<Option<i64>>, D::Error> {
    Option::<i64>::deserialize(deserializer).map(Some)
}

/// A learner's preferences, with the FSRS parameters that schedule them (or would, on SM-2).
#[derive(Debug, Clone, PartialEq, Serialize, ToSchema, schemars::JsonSchema)]
pub struct LearnerPreferences {
    /// Reviews a day at most; none for no limit.
    pub daily_review_cap: Option<u32>,
    /// Which scheduler spaces the learner's reviews.
    pub srs_scheduler: SrsScheduler,
    /// FSRS's parameters for this learner: their own once fitted on enough reviews (weekly,
    /// or when asked), FSRS's defaults until then, with how well each predicts them.
    pub fsrs: FsrsStatus,
}

impl<S: FsrsStores> App<S> {
    pub async fn preferences(&self, learner: LearnerId) -> AppResult<LearnerPreferences> {
        let preferences = self.store.preferences(learner).await?;
        self.with_fsrs_status(learner, preferences).await
    }

    async fn with_fsrs_status(&self, learner: LearnerId, preferences: Preferences) -> AppResult<LearnerPreferences> {
        Ok(LearnerPreferences {
            daily_review_cap: preferences.daily_review_cap,
            srs_scheduler: preferences.srs_scheduler,
            fsrs: self.fsrs.status(learner).await?,
        })
    }

    /// Change the learner's preferences. Choosing FSRS replays their history into each
    /// concept's FSRS memory (with their own parameters if fitted), so that FSRS schedules
    /// their next reviews from everything they did, not from nothing.
    pub async fn update_preferences(
        &self,
        learner: LearnerId,
        input: UpdatePreferences,
    ) -> AppResult<LearnerPreferences> {
        let mut preferences = self.store.preferences(learner).await?;
        let was = preferences.srs_scheduler;
        if let Some(cap) = input.daily_review_cap {
            preferences.daily_review_cap = match cap {
                None => None,
                Some(cap) if (1..=i64::from(MAX_DAILY_REVIEW_CAP)).contains(&cap) => Some(cap as u32),
                Some(cap) => {
                    return Err(AppError::invalid(
                        "daily_review_cap",
                        format!("{cap} is not allowed; the cap is from 1 to {MAX_DAILY_REVIEW_CAP} reviews a day, or null for none"),
                    ))
                }
            };
        }
        if let Some(scheduler) = input.srs_scheduler {
            preferences.srs_scheduler = scheduler;
        }
        if was != SrsScheduler::Fsrs && preferences.srs_scheduler == SrsScheduler::Fsrs {
            // Before the choice is stored, so that no answer FSRS schedules can land between
            // and have its memory replaced by a replay that did not see it.
            self.fsrs.replay_memories(learner).await?;
        }
        self.store.set_preferences(learner, &preferences, self.now()).await?;
        self.fsrs.forget(learner);
        self.with_fsrs_status(learner, preferences).await
    }

    /// Reviews the learner may still take today (UTC), or `None` without a cap.
    pub(crate) async fn reviews_left_today(&self, learner: LearnerId) -> AppResult<Option<usize>> {
        let Some(cap) = self.store.preferences(learner).await?.daily_review_cap else {
            return Ok(None);
        };
        let now = self.now();
        let midnight = DateTime::<Utc>::from_naive_utc_and_offset(now.date_naive().and_time(NaiveTime::MIN), Utc);
        let done = self.store.count_responses_since(learner, ResponseType::Review, midnight).await?;
        Ok(Some((i64::from(cap) - done).max(0) as usize))
    }
}
