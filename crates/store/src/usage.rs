//! The calls made to the language model for each learner, kept to be summed.

use crate::{LlmCall, OperationUsage, StoreResult};
use chrono::{DateTime, Utc};
use pathwise_domain::LearnerId;

#[pathwise_store_macros::capability]
pub trait UsageStore {
    /// Keep calls to the language model, in one transaction.
    async fn record_llm_calls(&self, calls: &[LlmCall]) -> StoreResult<()> {
        let mut tx = self.begin_write().await?;
        for call in calls {
            let tokens = |n: u64| i64::try_from(n).map_err(StoreError::corrupt);
            sqlx::query(
                "INSERT INTO llm_calls (learner_id, operation, prompt_tokens, completion_tokens, created_at) \
                 VALUES ($1, $2, $3, $4, $5)",
            )
            .bind(call.learner_id.0)
            .bind(&call.operation)
            .bind(tokens(call.prompt_tokens)?)
            .bind(tokens(call.completion_tokens)?)
            .bind(Ts(call.at))
            .execute(&mut *tx)
            .await?;
        }
        tx.commit().await?;
        Ok(())
    }

    /// A learner's calls to the language model since `since` (all when `None`), summed per
    /// operation, in operation order.
    async fn llm_usage(&self, learner: LearnerId, since: Option<DateTime<Utc>>) -> StoreResult<Vec<OperationUsage>> {
        let mut query = QueryBuilder::<Db>::new(
            "SELECT operation, COUNT(*) AS calls, CAST(SUM(prompt_tokens) AS BIGINT) AS prompt_tokens, \
             CAST(SUM(completion_tokens) AS BIGINT) AS completion_tokens FROM llm_calls WHERE learner_id = ",
        );
        query.push_bind(learner.0);
        if let Some(since) = since {
            query.push(" AND created_at >= ").push_bind(Ts(since));
        }
        query.push(" GROUP BY operation ORDER BY operation");
        let count = |n: i64| u64::try_from(n).map_err(StoreError::corrupt);
        query
            .build()
            .fetch_all(self.reader())
            .await?
            .iter()
            .map(|row| {
                Ok(OperationUsage {
                    operation: row.try_get("operation")?,
                    calls: count(row.try_get("calls")?)?,
                    prompt_tokens: count(row.try_get("prompt_tokens")?)?,
                    completion_tokens: count(row.try_get("completion_tokens")?)?,
                })
            })
            .collect()
    }
}
