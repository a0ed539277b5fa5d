//! Jobs: recurring ones from cron, one-shot review jobs planned from the maps (D2), claimed
//! by lease so that each firing runs once however many workers there are; expiry, retries,
//! the stale-flow check. On SQLite and (with `PATHWISE_TEST_DATABASE_URL`) PostgreSQL.

mod support;

use chrono::{Duration, Timelike};
use pathwise_app::flows::StartFlow;
use pathwise_app::scheduler::{Schedule, WorkerOptions, MAX_ATTEMPTS};
use pathwise_app::{Clock, ErrorKind, Notifier};
use pathwise_domain::{FlowStatus, JobId, JobKind, JobOutcome, MapStatus, ResponseType};
use pathwise_notify::{Delivery, Message, NotifyError};
use pathwise_store::{FlowStore, Job, JobStore};
use serde_json::{json, Value};
use std::collections::HashSet;
use std::future::Future;
use std::pin::Pin;
use std::sync::Arc;
use support::TestApp;

/// A root with `n` concepts that need only it.
fn star(n: usize) -> Value {
    let mut nodes = vec![json!({ "label": "Root", "effort_minutes": 10 })];
    let mut edges = Vec::new();
    for i in 0..n {
        nodes.push(json!({ "label": format!("Concept {i:02}"), "effort_minutes": 10 }));
        edges.push(json!({ "parent": "Root", "child": format!("Concept {i:02}") }));
    }
    json!({ "root": "Root", "nodes": nodes, "edges": edges })
}

fn noop(run_at: chrono::DateTime<chrono::Utc>) -> Job {
    Job::one_shot(JobKind::Noop, run_at, run_at)
}

async fn review_jobs_follow_next_review_at_and_more_than_twenty_are_batched(t: &TestApp) {
    let map = t.plan("Many concepts", star(24)).await.mind_map_id;
    let ids = t.ids(map).await;
    let mut labels: Vec<&String> = ids.keys().collect();
    labels.sort();
    for label in &labels[..3] {
        t.record_later(map, ids[*label], 4, ResponseType::Teach).await;
    }
    t.app().review_jobs().flush().await.unwrap();
    let jobs = t.app().store().list_jobs(t.learner, Some(map)).await.unwrap();
    assert_eq!(jobs.len(), 3);
    for job in &jobs {
        let node = t.node(job.node_id.unwrap()).await;
        assert_eq!((job.kind, Some(job.run_at)), (JobKind::Review, node.next_review_at));
        assert_eq!(job.expires_at, Some(job.run_at + Duration::hours(24)));
    }

    for label in &labels[3..] {
        t.record_later(map, ids[*label], 4, ResponseType::Teach).await;
    }
    t.app().review_jobs().flush().await.unwrap();
    let jobs = t.app().store().list_jobs(t.learner, Some(map)).await.unwrap();
    assert_eq!(jobs.len(), 20, "at most 20 pending per map");
    let batches: Vec<&Job> = jobs.iter().filter(|j| j.kind == JobKind::ReviewBatch).collect();
    assert_eq!(batches.len(), 1);
    assert_eq!(batches[0].payload["node_ids"].as_array().unwrap().len(), 25 - 19);

    // A map that is no longer active keeps no pending reviews.
    t.app().update_map_status(t.learner, map, MapStatus::Abandoned).await.unwrap();
    assert!(t.app().store().list_jobs(t.learner, Some(map)).await.unwrap().is_empty());
}

async fn two_workers_at_once_run_each_job_exactly_once(t: &TestApp) {
    let now = t.clock.now();
    let jobs: Vec<Job> = (0..300).map(|i| noop(now - Duration::seconds(i))).collect();
    t.app().store().insert_jobs(&jobs).await.unwrap();
    let worker = |name: &'static str| {
        let app = t.app().clone();
        tokio::spawn(async move {
            let options = WorkerOptions { batch: 25, ..WorkerOptions::new(name) };
            let mut done = 0;
            loop {
                let run = app.run_due_jobs(&options).await.unwrap();
                done += run.done;
                if run.claimed == 0 {
                    return done;
                }
            }
        })
    };
    let (a, b) = (worker("a"), worker("b"));
    let (a, b) = (a.await.unwrap(), b.await.unwrap());
    assert_eq!(a + b, 300, "a ran {a}, b ran {b}");
    let runs = t.app().store().job_runs(None, 1_000).await.unwrap();
    let distinct: HashSet<JobId> = runs.iter().map(|r| r.job_id).collect();
    assert_eq!((runs.len(), distinct.len()), (300, 300));
}

async fn a_recurring_job_fires_once_per_firing_then_moves_to_the_next(t: &TestApp) {
    let hourly = Schedule { name: "hourly-noop".into(), job: JobKind::Noop, cron: "0 * * * *".into() };
    t.app().install_schedules(std::slice::from_ref(&hourly)).await.unwrap();
    let options = WorkerOptions::new("w");
    assert_eq!(t.app().run_due_jobs(&options).await.unwrap().claimed, 0, "not due before 10:00");
    t.clock.advance(Duration::minutes(61));
    assert_eq!(t.app().run_due_jobs(&options).await.unwrap().done, 1);
    assert_eq!(t.app().run_due_jobs(&options).await.unwrap().claimed, 0, "a firing runs once");
    // Three hours missed: one run, then the next firing after now.
    t.clock.advance(Duration::hours(3));
    assert_eq!(t.app().run_due_jobs(&options).await.unwrap().done, 1);
    let job = t.app().store().recurring_jobs().await.unwrap().pop().unwrap();
    assert!(job.run_at > t.clock.now() && job.run_at.minute() == 0, "{job:?}");
    // Installing the same schedule again keeps the next firing; a new cron moves it.
    t.app().install_schedules(std::slice::from_ref(&hourly)).await.unwrap();
    assert_eq!(t.app().store().recurring_jobs().await.unwrap()[0].run_at, job.run_at);
    let nightly = Schedule { cron: "30 2 * * *".into(), ..hourly };
    t.app().install_schedules(&[nightly]).await.unwrap();
    let moved = t.app().store().recurring_jobs().await.unwrap().pop().unwrap();
    assert_eq!((moved.run_at.hour(), moved.run_at.minute()), (2, 30));
    assert_eq!(t.app().store().job_runs(None, 10).await.unwrap().len(), 2);
}

async fn a_bad_schedule_is_refused_by_name_and_nothing_is_written(t: &TestApp) {
    let before = t.counts().await;
    let good = Schedule { name: "fine".into(), job: JobKind::Noop, cron: "0 3 * * *".into() };
    let bad = Schedule { name: "broken".into(), job: JobKind::Noop, cron: "at three".into() };
    let error = t.app().install_schedules(&[good.clone(), bad]).await.unwrap_err();
    assert_eq!(error.kind, ErrorKind::Invalid);
    assert!(error.message.contains("schedules.broken.cron") && error.message.contains("at three"), "{error}");
    let review = Schedule { name: "reviews".into(), job: JobKind::Review, cron: "0 3 * * *".into() };
    let error = t.app().install_schedules(&[good, review]).await.unwrap_err();
    assert!(error.message.contains("planned from the maps"), "{error}");
    assert_eq!(t.counts().await, before);
}

async fn a_review_job_not_run_within_a_day_expires(t: &TestApp) {
    let map = t.plan("Expiry", star(1)).await.mind_map_id;
    let node = t.ids(map).await["Concept 00"];
    t.record(map, node, 4, ResponseType::Teach).await;
    t.app().review_jobs().flush().await.unwrap();
    let job = t.app().store().list_jobs(t.learner, Some(map)).await.unwrap().pop().unwrap();
    t.clock.advance(Duration::days(2) + Duration::hours(2));
    let run = t.app().run_due_jobs(&WorkerOptions::new("late")).await.unwrap();
    assert_eq!(run.expired, 1, "{run:?}");
    let runs = t.app().store().job_runs(Some(t.learner), 10).await.unwrap();
    assert_eq!((runs[0].job_id, runs[0].outcome), (job.id, JobOutcome::Expired));
    assert!(t.app().store().list_jobs(t.learner, Some(map)).await.unwrap().is_empty());
}

/// A notifier that never delivers.
struct Unreachable;

impl Notifier for Unreachable {
    fn send<'a>(&'a self, _: &'a Message) -> Pin<Box<dyn Future<Output = Result<Delivery, NotifyError>> + Send + 'a>> {
        Box::pin(async {
            Err(NotifyError::Transport { notifier: self.describe(), attempts: 1, problem: "connection refused".into() })
        })
    }

    fn describe(&self) -> String {
        "webhook http://127.0.0.1:9/unreachable".into()
    }
}

async fn a_failing_review_job_is_retried_then_given_up(t: &TestApp) {
    let app = t.app().clone().with_notifiers(vec![Arc::new(Unreachable)]);
    let map = t.plan("Retries", star(1)).await.mind_map_id;
    let node = t.ids(map).await["Concept 00"];
    t.record(map, node, 4, ResponseType::Teach).await;
    app.review_jobs().flush().await.unwrap();
    t.clock.advance(Duration::days(1) + Duration::minutes(1));
    let options = WorkerOptions::new("w");
    for attempt in 1..=MAX_ATTEMPTS {
        let run = app.run_due_jobs(&options).await.unwrap();
        assert_eq!(run.failed, 1, "attempt {attempt}: {run:?}");
        let pending = t.app().store().list_jobs(t.learner, Some(map)).await.unwrap();
        if attempt < MAX_ATTEMPTS {
            assert!(pending[0].last_error.as_deref().unwrap().contains("connection refused"), "{pending:?}");
        } else {
            assert!(pending.is_empty(), "given up after {MAX_ATTEMPTS} attempts");
        }
        t.clock.advance(Duration::minutes(5));
    }
    let runs = t.app().store().job_runs(Some(t.learner), 10).await.unwrap();
    assert_eq!(runs.len() as i32, MAX_ATTEMPTS);
    assert!(runs.iter().all(|r| r.outcome == JobOutcome::Failed));
}

async fn flows_idle_for_thirty_days_are_abandoned_with_their_reviews(t: &TestApp) {
    let map = t.plan("Idle", star(2)).await.mind_map_id;
    let flow = t
        .app()
        .flow_start(t.learner, StartFlow { topic: "Idle".into(), goal: None, caller_writes_steps: Some(true) })
        .await
        .unwrap();
    let read = t.app().store().get_flow(t.learner, flow.id).await.unwrap().unwrap();
    let mut planned = read.step(FlowStatus::Diagnosing, t.clock.now()).unwrap();
    planned.mind_map_id = Some(map);
    t.app().store().save_flow(&planned).await.unwrap();
    let also_idle = t
        .app()
        .flow_start(t.learner, StartFlow { topic: "Fresh".into(), goal: None, caller_writes_steps: Some(true) })
        .await
        .unwrap();
    let node = t.ids(map).await["Concept 00"];
    t.record(map, node, 4, ResponseType::Teach).await;
    t.app().review_jobs().flush().await.unwrap();
    assert_eq!(t.app().store().list_jobs(t.learner, Some(map)).await.unwrap().len(), 1);

    t.clock.advance(Duration::days(30));
    assert_eq!(t.app().abandon_stale_flows().await.unwrap(), 0, "30 days is not yet stale");
    t.clock.advance(Duration::hours(1));
    t.app()
        .flow_start(t.learner, StartFlow { topic: "New".into(), goal: None, caller_writes_steps: Some(true) })
        .await
        .unwrap();
    assert_eq!(t.app().abandon_stale_flows().await.unwrap(), 2);
    assert_eq!(t.app().flow_get(t.learner, flow.id).await.unwrap().status, FlowStatus::Abandoned);
    assert_eq!(t.app().flow_get(t.learner, also_idle.id).await.unwrap().status, FlowStatus::Abandoned);
    assert_eq!(t.map(map).await.map.status, MapStatus::Abandoned);
    assert!(t.app().store().list_jobs(t.learner, Some(map)).await.unwrap().is_empty());
}

async fn the_daily_review_cap_bounds_the_reviews_offered_each_day(t: &TestApp) {
    use pathwise_app::preferences::UpdatePreferences;
    let map = t.plan("Capped", star(3)).await.mind_map_id;
    for (_, node) in t.ids(map).await {
        t.record(map, node, 4, ResponseType::Teach).await;
    }
    t.clock.advance(Duration::days(2));
    assert_eq!(t.app().pending_reviews(t.learner, None, None).await.unwrap().len(), 4, "no cap: all due");

    let before = t.counts().await;
    for bad in [json!({ "daily_review_cap": 0 }), json!({ "daily_review_cap": 5000 })] {
        let input: UpdatePreferences = serde_json::from_value(bad).unwrap();
        let error = t.app().update_preferences(t.learner, input).await.unwrap_err();
        assert!(error.message.contains("from 1 to 1000"), "{error}");
    }
    assert_eq!(t.counts().await, before, "a refused change writes nothing");

    let cap: UpdatePreferences = serde_json::from_value(json!({ "daily_review_cap": 2 })).unwrap();
    assert_eq!(t.app().update_preferences(t.learner, cap).await.unwrap().daily_review_cap, Some(2));
    let due = t.app().pending_reviews(t.learner, None, None).await.unwrap();
    assert_eq!(due.len(), 2);
    t.record(map, due[0].id, 4, ResponseType::Review).await;
    assert_eq!(t.app().pending_reviews(t.learner, None, None).await.unwrap().len(), 1, "one review left today");
    t.clock.advance(Duration::days(1));
    assert_eq!(t.app().pending_reviews(t.learner, None, None).await.unwrap().len(), 2, "a new day, a new allowance");

    let unchanged: UpdatePreferences = serde_json::from_value(json!({})).unwrap();
    assert_eq!(t.app().update_preferences(t.learner, unchanged).await.unwrap().daily_review_cap, Some(2));
    let cleared: UpdatePreferences = serde_json::from_value(json!({ "daily_review_cap": null })).unwrap();
    assert_eq!(t.app().update_preferences(t.learner, cleared).await.unwrap().daily_review_cap, None);
}

conformance!(
    the_daily_review_cap_bounds_the_reviews_offered_each_day,
    review_jobs_follow_next_review_at_and_more_than_twenty_are_batched,
    two_workers_at_once_run_each_job_exactly_once,
    a_recurring_job_fires_once_per_firing_then_moves_to_the_next,
    a_bad_schedule_is_refused_by_name_and_nothing_is_written,
    a_review_job_not_run_within_a_day_expires,
    a_failing_review_job_is_retried_then_given_up,
    flows_idle_for_thirty_days_are_abandoned_with_their_reviews,
);
