//! Analytics, the digest, and the learner's scheduled jobs.

use crate::error::{ApiResult, ErrorBody};
use crate::extract::{Auth, PathIds, QueryParams};
use crate::routes::learners::Caller;
use crate::AppState;
use axum::extract::State;
use axum::Json;
use pathwise_analytics::{MapMetrics, Portfolio};
use pathwise_app::analytics::{Analytics, Digest, MapAnalytics};
use pathwise_app::queries::{AnalyticsQuery, JobRunsQuery, JobsQuery};
use pathwise_app::{AppError, ErrorCode, ErrorKind};
use pathwise_domain::MindMapId;
use pathwise_store::{Job, JobRun};

/// A map's figures now (`latest`: every response recorded so far counts), its nightly
/// snapshots of the window before today (the last week unless `days` says otherwise), and
/// the trend from the oldest of them to now.
#[utoipa::path(get, operation_id = "analytics_map", path = "/api/mind-maps/{id}/analytics", tag = "analytics",
    params(("id" = MindMapId, Path), AnalyticsQuery),
    responses((status = 200, body = MapAnalytics), (status = 422, description = "`days` out of range.", body = ErrorBody)),
    security(("bearer" = [])))]
pub async fn map_analytics(
    State(analytics): State<Analytics>,
    Auth(l): Auth,
    PathIds(id): PathIds<MindMapId>,
    QueryParams(q): QueryParams<AnalyticsQuery>,
) -> ApiResult<Json<MapAnalytics>> {
    let days = q.days.unwrap_or(pathwise_app::analytics::TREND_DAYS);
    Ok(Json(analytics.map_analytics_over(l.id, id, days).await?))
}

/// Store the map's figures now as today's snapshot, without waiting for the night (reads
/// are live either way; this keeps today's point in the history).
#[utoipa::path(post, operation_id = "analytics_snapshot", path = "/api/mind-maps/{id}/analytics/snapshot", tag = "analytics", params(("id" = MindMapId, Path)),
    responses((status = 200, body = MapMetrics)), security(("bearer" = [])))]
pub async fn snapshot(
    State(analytics): State<Analytics>,
    Auth(l): Auth,
    PathIds(id): PathIds<MindMapId>,
) -> ApiResult<Json<MapMetrics>> {
    Ok(Json(analytics.snapshot_map(l.id, id).await?))
}

/// Every map of the caller with its figures now, summed up.
#[utoipa::path(get, operation_id = "analytics_portfolio", path = "/api/me/portfolio", tag = "analytics",
    responses((status = 200, body = Portfolio)), security(("bearer" = [])))]
pub async fn portfolio(State(s): State<AppState>, Auth(l): Auth) -> ApiResult<Json<Portfolio>> {
    Ok(Json(s.app.portfolio(l.id).await?))
}

/// This week's digest, as it would be delivered (written by the model when one is
/// configured, from the template otherwise), from each map's figures now and its first
/// snapshot of the week; nothing is sent.
#[utoipa::path(get, operation_id = "analytics_digest", path = "/api/me/digest", tag = "analytics",
    responses((status = 200, body = Digest)), security(("bearer" = [])))]
pub async fn digest(State(analytics): State<Analytics>, Auth(l): Auth) -> ApiResult<Json<Digest>> {
    Ok(Json(analytics.digest(l.id).await?))
}

/// The caller's pending jobs (reviews), soonest first. With the operator token: the server's
/// global jobs (nightly analytics, digests, stale flows), or a learner's with `learner_id`.
#[utoipa::path(get, operation_id = "jobs_list", path = "/api/jobs", tag = "jobs", params(JobsQuery),
    responses((status = 200, body = Vec<Job>),
        (status = 403, description = "A learner's token asked for another learner's jobs (`forbidden`).", body = ErrorBody)),
    security(("bearer" = [])))]
pub async fn jobs(
    State(s): State<AppState>,
    caller: Caller,
    QueryParams(q): QueryParams<JobsQuery>,
) -> ApiResult<Json<Vec<Job>>> {
    Ok(Json(match caller {
        Caller::Operator => s.app.operator_jobs(q.learner_id, q.mind_map_id).await?,
        Caller::Learner(l) => {
            own_only(&l, q.learner_id)?;
            s.app.jobs(l.id, q.mind_map_id).await?
        }
    }))
}

/// The caller's latest job firings, newest first. With the operator token: every firing
/// (a global job's has no `learner_id`), or a learner's with `learner_id`.
#[utoipa::path(get, operation_id = "jobs_runs", path = "/api/jobs/runs", tag = "jobs", params(JobRunsQuery),
    responses((status = 200, body = Vec<JobRun>),
        (status = 403, description = "A learner's token asked for another learner's runs (`forbidden`).", body = ErrorBody)),
    security(("bearer" = [])))]
pub async fn runs(
    State(s): State<AppState>,
    caller: Caller,
    QueryParams(q): QueryParams<JobRunsQuery>,
) -> ApiResult<Json<Vec<JobRun>>> {
    Ok(Json(match caller {
        Caller::Operator => s.app.operator_job_runs(q.learner_id).await?,
        Caller::Learner(l) => {
            own_only(&l, q.learner_id)?;
            s.app.job_runs(l.id).await?
        }
    }))
}

/// A learner's token names only its own learner.
fn own_only(learner: &pathwise_app::Learner, asked: Option<pathwise_domain::LearnerId>) -> Result<(), AppError> {
    match asked {
        Some(other) if other != learner.id => Err(AppError::new(
            ErrorKind::Forbidden,
            ErrorCode::Forbidden,
            "learner_id: only the operator token reads another learner's jobs; leave it out to read your own",
        )),
        _ => Ok(()),
    }
}
