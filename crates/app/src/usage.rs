//! Token accounting: every call to the language model is kept with the learner it served,
//! so that a learner (or an operator) can see what teaching them costs.

use crate::StoreHandle;
use crate::{App, AppError, AppResult};
use pathwise_domain::LearnerId;
use pathwise_llm::Session;
use pathwise_store::LlmCall;
use pathwise_store::{MapStore, UsageStore};
use serde::Serialize;
use utoipa::ToSchema;

/// Calls and tokens, summed.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, ToSchema, schemars::JsonSchema)]
pub struct TokenCount {
    pub calls: u64,
    pub prompt_tokens: u64,
    pub completion_tokens: u64,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, ToSchema, schemars::JsonSchema)]
pub struct OperationTokens {
    /// What the calls were for, e.g. `curriculum_generate`.
    pub operation: String,
    #[serde(flatten)]
    pub tokens: TokenCount,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, ToSchema, schemars::JsonSchema)]
pub struct LlmUsage {
    pub total: TokenCount,
    pub by_operation: Vec<OperationTokens>,
}

/// The longest look-back `llm_usage` takes, in days.
pub const MAX_SINCE_DAYS: u32 = 36_500;

impl<S: StoreHandle + MapStore + UsageStore> App<S> {
    /// Keep every turn of a conversation with the model as a call made for `learner`.
    pub async fn record_llm_session(&self, learner: LearnerId, operation: &str, session: &Session) -> AppResult<()> {
        record_session(&self.store, self.now(), learner, operation, session).await
    }

    /// The learner's calls to the model and their tokens, over the last `since_days` days
    /// or ever.
    pub async fn llm_usage(&self, learner: LearnerId, since_days: Option<u32>) -> AppResult<LlmUsage> {
        let since = match since_days {
            Some(0) | None => None,
            Some(days) if days > MAX_SINCE_DAYS => {
                return Err(AppError::invalid("since_days", format!("{days} is too many; at most {MAX_SINCE_DAYS}")))
            }
            Some(days) => Some(self.now() - chrono::Duration::days(i64::from(days))),
        };
        let rows = self.store.llm_usage(learner, since).await?;
        let mut total = TokenCount::default();
        let by_operation = rows
            .into_iter()
            .map(|row| {
                total.calls += row.calls;
                total.prompt_tokens += row.prompt_tokens;
                total.completion_tokens += row.completion_tokens;
                OperationTokens {
                    operation: row.operation,
                    tokens: TokenCount {
                        calls: row.calls,
                        prompt_tokens: row.prompt_tokens,
                        completion_tokens: row.completion_tokens,
                    },
                }
            })
            .collect();
        Ok(LlmUsage { total, by_operation })
    }
}

/// Keep every turn of a conversation with the model as a call made for `learner` at `at`: the
/// one place a capability's model calls are counted, whichever capability made them.
pub(crate) async fn record_session<S: UsageStore>(
    store: &S,
    at: chrono::DateTime<chrono::Utc>,
    learner: LearnerId,
    operation: &str,
    session: &Session,
) -> AppResult<()> {
    let calls: Vec<LlmCall> = session
        .turns()
        .into_iter()
        .map(|turn| LlmCall {
            learner_id: learner,
            operation: operation.to_string(),
            prompt_tokens: turn.prompt_tokens,
            completion_tokens: turn.completion_tokens,
            at,
        })
        .collect();
    if calls.is_empty() {
        return Ok(());
    }
    Ok(store.record_llm_calls(&calls).await?)
}
