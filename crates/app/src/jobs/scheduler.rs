//! The job scheduler: recurring jobs from the configuration (cron, via `croner`) and
//! one-shot review jobs, all in the `jobs` table and claimed by lease, so that with several
//! `pathwise serve` processes on one database each firing runs once. A worker claims a
//! batch of due jobs, runs them, and records each firing and the job's next run in one
//! transaction.

use crate::stores::SchedulerStores;
use crate::{App, AppError, AppResult, ErrorCode, ErrorKind};
use chrono::{DateTime, Duration, Utc};
use croner::Cron;
use pathwise_domain::{JobKind, JobOutcome};
use pathwise_store::{FinishedJob, Job, JobNext};
use serde::{Deserialize, Serialize};
use std::str::FromStr;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use utoipa::ToSchema;

/// Job firings listed per learner.
const RUNS_SHOWN: i64 = 100;
/// A failed one-shot job is tried this many times in all.
pub const MAX_ATTEMPTS: i32 = 3;
/// Wait before retrying a failed one-shot job, times the attempts so far.
const RETRY_AFTER_SECONDS: i64 = 60;

/// A recurring job as the configuration names it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, ToSchema, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Schedule {
    pub name: String,
    /// `nightly_analytics`, `weekly_digest`, `stale_flows`, `fsrs_fit` or `noop`.
    pub job: JobKind,
    /// Five-field cron, in UTC: minute hour day-of-month month day-of-week.
    pub cron: String,
}

/// The recurring jobs of learning-loop-design.md: nightly analytics at 03:00, the weekly
/// digest on Sunday at 09:00, the stale-flow check on Monday at 04:00 (UTC); and every FSRS
/// learner's parameters fitted again on Sunday at 02:00, before the digest reports on them.
pub fn default_schedules() -> Vec<Schedule> {
    vec![
        Schedule { name: "nightly-analytics".into(), job: JobKind::NightlyAnalytics, cron: "0 3 * * *".into() },
        Schedule { name: "weekly-progress-digest".into(), job: JobKind::WeeklyDigest, cron: "0 9 * * 0".into() },
        Schedule { name: "stale-flow-check".into(), job: JobKind::StaleFlows, cron: "0 4 * * 1".into() },
        Schedule { name: "weekly-fsrs-fit".into(), job: JobKind::FsrsFit, cron: "0 2 * * 0".into() },
    ]
}

/// The first firing of `cron` strictly after `after`.
pub fn next_firing(cron: &str, after: DateTime<Utc>) -> Result<DateTime<Utc>, String> {
    let parsed = Cron::from_str(cron).map_err(|e| format!("'{cron}' is not a cron expression: {e}"))?;
    parsed.find_next_occurrence(&after, false).map_err(|e| format!("'{cron}' has no next firing: {e}"))
}

/// How one worker takes jobs.
#[derive(Debug, Clone)]
pub struct WorkerOptions {
    /// This worker's name in leases and in the record of runs.
    pub worker: String,
    /// Jobs claimed at once.
    pub batch: i64,
    /// How long a claimed job is this worker's; another takes it over only after that.
    pub lease: Duration,
    /// Set when the worker is stopping: it finishes the job it is running and gives back
    /// the rest of its batch.
    pub stopping: Arc<AtomicBool>,
}

impl WorkerOptions {
    pub fn new(worker: impl Into<String>) -> Self {
        WorkerOptions {
            worker: worker.into(),
            batch: 100,
            lease: Duration::minutes(10),
            stopping: Arc::new(AtomicBool::new(false)),
        }
    }
}

/// What one pass of a worker did.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, ToSchema, schemars::JsonSchema)]
pub struct JobsRun {
    pub claimed: usize,
    pub done: usize,
    pub failed: usize,
    pub expired: usize,
}

impl<S: SchedulerStores> App<S> {
    /// Create or update the recurring jobs; a bad cron expression names its schedule and
    /// nothing is written.
    pub async fn install_schedules(&self, schedules: &[Schedule]) -> AppResult<()> {
        let now = self.now();
        let mut jobs = Vec::new();
        for schedule in schedules {
            if schedule.name.trim().is_empty() {
                return Err(AppError::invalid("schedules.name", "is empty; every schedule needs a name"));
            }
            let run_at = next_firing(&schedule.cron, now)
                .map_err(|e| AppError::invalid(&format!("schedules.{}.cron", schedule.name), e))?;
            if matches!(schedule.job, JobKind::Review | JobKind::ReviewBatch) {
                return Err(AppError::invalid(
                    &format!("schedules.{}.job", schedule.name),
                    "review jobs are planned from the maps; a schedule runs nightly_analytics, weekly_digest, \
                     stale_flows, fsrs_fit or noop",
                ));
            }
            jobs.push(Job {
                name: Some(schedule.name.clone()),
                cron: Some(schedule.cron.clone()),
                ..Job::one_shot(schedule.job, run_at, now)
            });
        }
        for job in &jobs {
            self.store.ensure_recurring_job(job).await?;
        }
        Ok(())
    }

    /// Claim the due jobs (up to a batch), run them, and record how each went.
    pub async fn run_due_jobs(&self, options: &WorkerOptions) -> AppResult<JobsRun> {
        let now = self.now();
        let claimed = self.store.claim_due_jobs(&options.worker, now, now + options.lease, options.batch).await?;
        let mut run = JobsRun { claimed: claimed.len(), ..JobsRun::default() };
        let mut finished = Vec::with_capacity(claimed.len());
        let mut unstarted = Vec::new();
        for job in claimed {
            if options.stopping.load(Ordering::Relaxed) {
                unstarted.push(job.id);
                continue;
            }
            let kind = job.kind.as_str();
            // How late the job starts: the scheduler lagging shows here first.
            let late = (now - job.run_at).num_milliseconds().max(0) as f64 / 1000.0;
            metrics::gauge!("pathwise_jobs_lag_seconds", "job" => kind).set(late);
            let started = std::time::Instant::now();
            let (outcome, detail) = if job.expires_at.is_some_and(|at| at <= now) {
                (JobOutcome::Expired, Some("not run before it expired".to_string()))
            } else {
                // Everything the job logs (its model calls, its notifications) carries its id.
                let span = tracing::info_span!("job", job_id = %job.id, job = kind, worker = %options.worker);
                match tracing::Instrument::instrument(self.run_job(&job), span).await {
                    Ok(detail) => (JobOutcome::Done, detail),
                    Err(error) => {
                        tracing::warn!(job = %job.id, kind = %job.kind, %error, "job failed");
                        (JobOutcome::Failed, Some(error.to_string()))
                    }
                }
            };
            let finished_at = self.now();
            let next = match (&job.cron, outcome) {
                (Some(cron), _) => JobNext::RunAt(next_firing(cron, job.run_at.max(finished_at)).map_err(|e| {
                    AppError::new(ErrorKind::Internal, ErrorCode::BadSchedule, format!("job {}: {e}", job.id))
                })?),
                (None, JobOutcome::Failed) if job.attempts < MAX_ATTEMPTS => {
                    JobNext::RunAt(finished_at + Duration::seconds(RETRY_AFTER_SECONDS * i64::from(job.attempts)))
                }
                (None, _) => JobNext::Delete,
            };
            metrics::counter!("pathwise_jobs_runs_total", "job" => kind, "outcome" => outcome.as_str()).increment(1);
            metrics::histogram!("pathwise_job_duration_seconds", "job" => kind).record(started.elapsed().as_secs_f64());
            match outcome {
                JobOutcome::Done => run.done += 1,
                JobOutcome::Failed => run.failed += 1,
                JobOutcome::Expired => run.expired += 1,
            }
            finished.push(FinishedJob { job, worker: options.worker.clone(), outcome, detail, next, finished_at });
        }
        if !finished.is_empty() {
            self.store.finish_jobs(&finished).await?;
        }
        if !unstarted.is_empty() {
            let released = self.store.release_jobs(&options.worker, &unstarted).await?;
            tracing::info!(released, "stopping: gave back the leases of jobs not started");
        }
        Ok(run)
    }

    /// Run one job; what it did, for the record of runs.
    async fn run_job(&self, job: &Job) -> AppResult<Option<String>> {
        match job.kind {
            JobKind::Noop => Ok(None),
            JobKind::Review | JobKind::ReviewBatch => self.analytics.remind_review(job).await,
            JobKind::NightlyAnalytics => self.nightly_analytics().await.map(Some),
            JobKind::WeeklyDigest => self.analytics.weekly_digests().await.map(Some),
            JobKind::StaleFlows => self.abandon_stale_flows().await.map(|n| Some(format!("{n} stale flows abandoned"))),
            JobKind::FsrsFit => self.fsrs.refit_learners().await.map(Some),
        }
    }

    /// A learner's pending jobs (of one map), soonest first.
    pub async fn jobs(
        &self,
        learner: pathwise_domain::LearnerId,
        map: Option<pathwise_domain::MindMapId>,
    ) -> AppResult<Vec<Job>> {
        Ok(self.store.list_jobs(learner, map).await?)
    }

    /// A learner's latest job firings, newest first.
    pub async fn job_runs(&self, learner: pathwise_domain::LearnerId) -> AppResult<Vec<pathwise_store::JobRun>> {
        Ok(self.store.job_runs(Some(learner), RUNS_SHOWN).await?)
    }

    /// The operator's view of pending jobs: one learner's, or the server's own recurring
    /// (global) jobs such as the nightly analytics and the weekly digests.
    pub async fn operator_jobs(
        &self,
        learner: Option<pathwise_domain::LearnerId>,
        map: Option<pathwise_domain::MindMapId>,
    ) -> AppResult<Vec<Job>> {
        match learner {
            Some(learner) => self.jobs(learner, map).await,
            None => {
                let mut global = self.store.recurring_jobs().await?;
                global.retain(|job| map.is_none() || job.mind_map_id == map);
                Ok(global)
            }
        }
    }

    /// The operator's view of job firings, newest first: every learner's and the global
    /// jobs' (no learner), or one learner's.
    pub async fn operator_job_runs(
        &self,
        learner: Option<pathwise_domain::LearnerId>,
    ) -> AppResult<Vec<pathwise_store::JobRun>> {
        Ok(self.store.job_runs(learner, RUNS_SHOWN).await?)
    }

    /// Abandon flows idle longer than the domain allows, with their maps and reviews.
    pub async fn abandon_stale_flows(&self) -> AppResult<usize> {
        let now = self.now();
        let cutoff = now - Duration::days(pathwise_domain::flow::STALE_AFTER_DAYS);
        let flows = self.store.abandon_stale_flows(cutoff, now).await?;
        Ok(flows.len())
    }
}

/// Run the scheduler until `shutdown` resolves: re-plan changed maps' reviews, then run
/// due jobs, every `tick`.
pub async fn run_scheduler<S: SchedulerStores>(
    app: App<S>,
    options: WorkerOptions,
    tick: std::time::Duration,
    shutdown: impl std::future::Future<Output = ()>,
) {
    tokio::pin!(shutdown);
    let stopping = Arc::clone(&options.stopping);
    let work = run_until_stopped(app, options, tick);
    tokio::pin!(work);
    tokio::select! {
        () = &mut work => {}
        () = &mut shutdown => {
            // Let the job under way finish; the batch's others are given back.
            stopping.store(true, Ordering::Relaxed);
            work.await;
        }
    }
}

async fn run_until_stopped<S: SchedulerStores>(app: App<S>, options: WorkerOptions, tick: std::time::Duration) {
    let stopped = || options.stopping.load(Ordering::Relaxed);
    if let Err(error) = app.review_jobs().sync_all().await {
        tracing::warn!(%error, "could not re-plan review jobs at start-up");
    }
    while !stopped() {
        if let Err(error) = app.review_jobs().flush().await {
            tracing::warn!(%error, "could not re-plan review jobs");
        }
        while !stopped() {
            match app.run_due_jobs(&options).await {
                Ok(run) if run.claimed as i64 == options.batch => continue,
                Ok(_) => break,
                Err(error) => {
                    tracing::warn!(%error, "the scheduler could not run due jobs");
                    break;
                }
            }
        }
        tokio::time::sleep(tick).await;
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use chrono::TimeZone;

    #[test]
    fn the_next_firing_is_strictly_after_and_bad_expressions_are_named() {
        let at = Utc.with_ymd_and_hms(2026, 3, 1, 3, 0, 0).unwrap();
        assert_eq!(next_firing("0 3 * * *", at).unwrap(), at + Duration::days(1));
        assert_eq!(
            next_firing("0 9 * * 0", at).unwrap(),
            Utc.with_ymd_and_hms(2026, 3, 1, 9, 0, 0).unwrap(),
            "1 March 2026 is a Sunday"
        );
        assert!(next_firing("every day", at).unwrap_err().contains("'every day'"));
    }
}
