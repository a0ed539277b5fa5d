//! Learning analytics (D6) and what is built on them. A map's figures are computed live
//! (`live`) whenever they are read: the portfolio, the digest and a map's analytics count
//! a response the moment it is recorded. The nightly job keeps the history: it stores each
//! active map's figures as the day's snapshot (the points of a trend before today), re-plans
//! the maps the feedback rule flags, and tidies up. Also the weekly digest (written by the
//! model when one is configured, from the template otherwise) and review reminders,
//! delivered through the configured notifiers.

mod live;

use crate::maps::curriculum::ReplanInput;
use crate::stores::AnalyticsStores;
use crate::{App, AppError, AppResult, Clock, ErrorCode, ErrorKind, StoreHandle};
use chrono::{DateTime, Duration, Utc};
use live::LiveMap;
use pathwise_analytics::{self as analytics, DigestFacts, MapMetrics, MapTrend, Portfolio};
use pathwise_domain::model::MindMap;
use pathwise_domain::{LearnerId, MapStatus, MindMapId};
use pathwise_llm::{prompts, schema, Llm, Message, Request};
use pathwise_notify::{Message as Notification, Notifier, Recipient};
use pathwise_store::{AnalyticsStore, Job, LearnerAdminStore, MapStore, Snapshot, SnapshotStore, UsageStore};
use serde::{Deserialize, Serialize};
use serde_json::json;
use std::sync::Arc;
use utoipa::ToSchema;

/// Snapshots shown and trended unless a window is asked for: the last week.
pub const TREND_DAYS: u32 = 7;
/// The longest window a map's analytics cover: a year (and a leap day).
pub const MAX_TREND_DAYS: u32 = 366;
pub const DIGEST: &str = "digest";

/// A map's analytics: its figures now, the nightly snapshots of the window before today,
/// and the trend from the oldest of them to now.
#[derive(Debug, Clone, Serialize, ToSchema, schemars::JsonSchema)]
pub struct MapAnalytics {
    pub mind_map_id: MindMapId,
    /// The window covered: the snapshots of the last this many days, and today.
    pub days: u32,
    /// Today's point: the map's figures computed at the moment of the request (`created_at`),
    /// every response recorded so far included. Not stored; the nightly job stores the
    /// day's figures as its snapshot.
    pub latest: Snapshot,
    /// The nightly snapshots of the window, oldest first, then `latest` in place of any
    /// stored for today.
    pub snapshots: Vec<Snapshot>,
    /// From the oldest point of the window to today's; `null` with today's alone.
    pub trend: Option<MapTrend>,
}

/// A weekly digest as delivered.
#[derive(Debug, Clone, Serialize, ToSchema, schemars::JsonSchema)]
pub struct Digest {
    pub subject: String,
    pub body: String,
    /// `model` or `template`.
    pub written_by: String,
    pub facts: DigestFacts,
}

#[derive(Deserialize, schemars::JsonSchema)]
struct DigestReply {
    subject: String,
    body: String,
}

/// What the analytics service asks of its store: the live reads, the snapshots, the maps
/// and learners they are of, and the model calls a digest makes.
pub trait AnalyticsReads:
    StoreHandle + AnalyticsStore + LearnerAdminStore + MapStore + SnapshotStore + UsageStore
{
}
impl<T: StoreHandle + AnalyticsStore + LearnerAdminStore + MapStore + SnapshotStore + UsageStore> AnalyticsReads for T {}

/// Learning analytics: a service of its own, with the model that writes digests and the
/// notifiers that deliver them and the review reminders.
#[derive(Clone)]
pub struct Analytics<S = pathwise_store::AnyStore> {
    store: S,
    clock: Arc<dyn Clock>,
    llm: Llm,
    notifiers: Arc<Vec<Arc<dyn Notifier>>>,
}

impl<S: StoreHandle> Analytics<S> {
    /// Offline (digests from the template), delivering through no notifier.
    pub fn new(store: S, clock: Arc<dyn Clock>) -> Self {
        Analytics { store, clock, llm: Llm::offline(), notifiers: Arc::new(Vec::new()) }
    }

    /// The same service writing digests with this model.
    pub fn with_llm(mut self, llm: Llm) -> Self {
        self.llm = llm;
        self
    }

    /// The same service delivering digests and reminders through these notifiers.
    pub fn with_notifiers(mut self, notifiers: Arc<Vec<Arc<dyn Notifier>>>) -> Self {
        self.notifiers = notifiers;
        self
    }

    fn now(&self) -> DateTime<Utc> {
        self.clock.now()
    }
}

impl<S: AnalyticsStores> App<S> {
    /// Snapshot every active map for today, re-plan those the feedback rule flags, and
    /// re-plan review jobs; a summary of what was done.
    pub async fn nightly_analytics(&self) -> AppResult<String> {
        let maps = self.store.maps_with_status(MapStatus::Active).await?;
        let mut replanned = 0;
        for map in &maps {
            let live = self.analytics.store_snapshot(map).await?;
            if let Some(trigger) = analytics::replan_trigger(&live.metrics, &live.nodes) {
                let input = ReplanInput { reason: Some(trigger.reason.clone()), ..ReplanInput::default() };
                match self.replan(map.learner_id, map.id, input).await {
                    Ok(_) => replanned += 1,
                    Err(error) => tracing::warn!(map = %map.id, %error, "the feedback re-plan failed"),
                }
            }
        }
        self.review_jobs.sync_all().await?;
        let forgotten = self.forget_old_replies().await?;
        Ok(format!(
            "{} maps snapshotted, {replanned} re-planned, {forgotten} old idempotent replies forgotten",
            maps.len()
        ))
    }

    /// Every map of the learner with its figures now, summed up, and on a course's map the
    /// course's units at each tier.
    pub async fn portfolio(&self, learner: LearnerId) -> AppResult<Portfolio> {
        let maps = self.store.list_maps(learner, None, 0, crate::paging::MAX_LIMIT).await?.items;
        let mut tiers = std::collections::HashMap::new();
        for map in &maps {
            if let Some(counts) = self.course_tiers(learner, map).await? {
                tiers.insert(map.id, counts);
            }
        }
        let mut portfolio = self.analytics.portfolio_of(learner, maps).await?;
        for entry in &mut portfolio.maps {
            entry.tiers = tiers.remove(&entry.map_id);
        }
        Ok(portfolio)
    }
}

impl<S: AnalyticsReads> Analytics<S> {
    /// Store one map's figures now as today's snapshot (replacing one taken earlier today).
    pub async fn snapshot_map(&self, learner: LearnerId, map: MindMapId) -> AppResult<MapMetrics> {
        let map = self.store.get_map(learner, map).await?.ok_or_else(|| AppError::not_found("mind map", map))?;
        Ok(self.store_snapshot(&map).await?.metrics)
    }

    pub(crate) async fn store_snapshot(&self, map: &MindMap) -> AppResult<LiveMap> {
        let now = self.now();
        let live = self.live_map(map, now).await?;
        self.store.upsert_snapshot(&stored(map, &live.metrics, now)?).await?;
        Ok(live)
    }

    /// One map's figures at `now`.
    async fn live_map(&self, map: &MindMap, now: DateTime<Utc>) -> AppResult<LiveMap> {
        let mut figures = self.live_metrics(map.learner_id, std::slice::from_ref(map), Some(map.id), now).await?;
        figures
            .remove(&map.id)
            .ok_or_else(|| AppError::internal(format!("no figures were computed for map {}", map.id)))
    }

    /// A map's figures now, its snapshots of the last week, and the trend.
    pub async fn map_analytics(&self, learner: LearnerId, map: MindMapId) -> AppResult<MapAnalytics> {
        self.map_analytics_over(learner, map, TREND_DAYS).await
    }

    /// A map's figures now, its snapshots of the last `days` days (1 to
    /// [`MAX_TREND_DAYS`]), and the trend from the oldest to now.
    pub async fn map_analytics_over(&self, learner: LearnerId, map: MindMapId, days: u32) -> AppResult<MapAnalytics> {
        if !(1..=MAX_TREND_DAYS).contains(&days) {
            return Err(AppError::invalid("days", format!("{days} is out of range; allowed: 1-{MAX_TREND_DAYS}")));
        }
        let found = self.store.get_map(learner, map).await?.ok_or_else(|| AppError::not_found("mind map", map))?;
        let now = self.now();
        let today = analytics::snapshot_date(now);
        let (history, live) = tokio::try_join!(
            async {
                Ok::<_, AppError>(self.store.snapshots(learner, map, today - Duration::days(i64::from(days))).await?)
            },
            self.live_map(&found, now),
        )?;
        let latest = stored(&found, &live.metrics, now)?;
        let mut snapshots: Vec<Snapshot> = history.into_iter().filter(|s| s.snapshot_date < today).collect();
        snapshots.push(latest.clone());
        let trend = analytics::trend(&parse_snapshots(&snapshots)?, today, days);
        Ok(MapAnalytics { mind_map_id: map, days, latest, snapshots, trend })
    }

    /// The learner's maps (`maps`, all of them) with their figures now, summed up; no tiers.
    pub(crate) async fn portfolio_of(&self, learner: LearnerId, maps: Vec<MindMap>) -> AppResult<Portfolio> {
        let now = self.now();
        let today = analytics::snapshot_date(now);
        let mut live = self.live_metrics(learner, &maps, None, now).await?;
        let entries: Vec<analytics::PortfolioMap> = maps
            .into_iter()
            .map(|map| analytics::PortfolioMap {
                latest: live
                    .remove(&map.id)
                    .map(|figures| analytics::Snapshot { snapshot_date: today, metrics: figures.metrics }),
                map_id: map.id,
                title: map.title,
                status: map.status,
            })
            .collect();
        Ok(analytics::portfolio(&entries))
    }

    /// The learner's digest for this week, written but not sent: each active or completed
    /// map's week from its first snapshot of the week to its figures now.
    pub async fn digest(&self, learner: LearnerId) -> AppResult<Digest> {
        let now = self.now();
        let today = analytics::snapshot_date(now);
        let week_start = today - Duration::days(i64::from(analytics::digest::DIGEST_DAYS));
        let (found, maps) = tokio::try_join!(
            self.store.learner(learner),
            self.store.list_maps(learner, None, 0, crate::paging::MAX_LIMIT)
        )?;
        let learner_name = found.map(|l| l.name);
        let maps: Vec<MindMap> =
            maps.items.into_iter().filter(|m| matches!(m.status, MapStatus::Active | MapStatus::Completed)).collect();
        let (mut live, week_first, streak) = tokio::try_join!(
            self.live_metrics(learner, &maps, None, now),
            async { Ok::<_, AppError>(self.store.first_snapshots(learner, None, week_start, today).await?) },
            self.study_streak(learner, today),
        )?;
        let week_ahead = now + Duration::days(7);
        let week_ago = now - Duration::days(i64::from(analytics::digest::DIGEST_DAYS));
        let mut inputs = Vec::with_capacity(maps.len());
        for map in maps {
            let Some(figures) = live.remove(&map.id) else { continue };
            let mut snapshots = vec![analytics::Snapshot { snapshot_date: today, metrics: figures.metrics }];
            if let Some(first) = week_first.iter().find(|s| s.mind_map_id == map.id) {
                snapshots.push(parse_snapshot(first)?);
            }
            inputs.push(analytics::DigestMapInput {
                map_id: map.id,
                title: map.title,
                status: map.status,
                // By the time of the evidence that mastered each: old reviews imported this
                // week mastered their concepts when they were given.
                mastered_this_week: figures
                    .nodes
                    .iter()
                    .filter(|n| n.mastered_at.is_some_and(|at| at > week_ago && at <= now))
                    .count() as u32,
                snapshots,
                reviews_due_next_week: figures
                    .nodes
                    .iter()
                    .filter(|n| n.next_review_at.is_some_and(|at| at <= week_ahead))
                    .count() as u32,
                labels: figures.nodes.into_iter().map(|n| (n.id, n.label)).collect(),
            });
        }
        let facts = analytics::digest_facts(&analytics::DigestInput {
            learner_name,
            today,
            streak_days: Some(streak),
            maps: inputs,
        });
        if self.llm.is_configured() {
            match self.digest_by_model(learner, &facts).await {
                Ok(digest) => return Ok(digest),
                Err(error) => tracing::warn!(%learner, %error, "the model's digest failed; using the template"),
            }
        }
        let (subject, body) = analytics::render_text(&facts);
        Ok(Digest { subject, body, written_by: "template".into(), facts })
    }

    async fn digest_by_model(&self, learner: LearnerId, facts: &DigestFacts) -> AppResult<Digest> {
        let prompt = prompts::render(
            "digest",
            json!({ "learner_name": facts.learner_name, "facts": serde_json::to_string(facts).unwrap_or_default() }),
        );
        let request = Request {
            output: Some(schema::output_schema::<DigestReply>("digest")),
            ..Request::new(vec![Message::system(prompt), Message::user("Write the digest now.")])
        };
        let session = self.llm.session(DIGEST).await?;
        let reply = session.structured::<DigestReply>(&request).await;
        crate::usage::record_session(&self.store, self.now(), learner, DIGEST, &session).await?;
        let (reply, _) = reply?;
        if reply.subject.trim().is_empty() || reply.body.trim().is_empty() {
            return Err(crate::learning_loop::model_tasks::invalid_reply("the language model's digest is empty"));
        }
        Ok(Digest { subject: reply.subject, body: reply.body, written_by: "model".into(), facts: facts.clone() })
    }

    /// Write and deliver every learner's digest; a summary.
    pub async fn weekly_digests(&self) -> AppResult<String> {
        let mut sent = 0;
        for learner in self.store.all_learners().await? {
            if self.send_digest(learner.id).await?.is_some() {
                sent += 1;
            }
        }
        Ok(format!("{sent} digests written"))
    }

    /// Write one learner's digest and deliver it; how it went, or `None` when the learner
    /// has nothing to report on.
    pub async fn send_digest(&self, learner: LearnerId) -> AppResult<Option<String>> {
        let digest = self.digest(learner).await?;
        if digest.facts.maps.is_empty() {
            return Ok(None);
        }
        let Some(found) = self.store.learner(learner).await? else {
            return Ok(None);
        };
        self.deliver(&found, &digest.subject, &digest.body).await.map(Some)
    }

    /// A review job fired: remind the learner of what is due.
    pub(crate) async fn remind_review(&self, job: &Job) -> AppResult<Option<String>> {
        let (Some(learner_id), Some(map)) = (job.learner_id, job.mind_map_id) else {
            return Ok(Some("the job names no learner or map".into()));
        };
        let Some(learner) = self.store.learner(learner_id).await? else {
            return Ok(Some("the learner is gone".into()));
        };
        let due = self.store.pending_reviews(learner_id, Some(map), job.run_at.max(self.now())).await?;
        let due: Vec<_> = match job.node_id {
            Some(node) => due.into_iter().filter(|n| n.id == node).collect(),
            None => due,
        };
        if due.is_empty() {
            return Ok(Some("nothing due any more".into()));
        }
        let labels: Vec<&str> = due.iter().map(|n| n.label.as_str()).collect();
        let (subject, body) = crate::learning_loop::feedback::review_reminder(&labels);
        self.deliver(&learner, &subject, &body).await.map(Some)
    }

    /// Send a message to a learner through every notifier; fails only if all fail.
    async fn deliver(&self, learner: &crate::Learner, subject: &str, body: &str) -> AppResult<String> {
        if self.notifiers.is_empty() {
            return Ok("no notifiers configured".into());
        }
        let message = Notification::new(subject, body, Recipient::new(&learner.name).with_id(learner.id.to_string()))
            .with_sent_at(self.now());
        let mut delivered = Vec::new();
        let mut failed = Vec::new();
        for notifier in self.notifiers.iter() {
            match notifier.send(&message).await {
                Ok(delivery) => delivered.push(delivery.notifier),
                Err(error) => failed.push(format!("{}: {error}", notifier.describe())),
            }
        }
        if delivered.is_empty() {
            return Err(AppError::new(ErrorKind::Upstream, ErrorCode::DeliveryFailed, failed.join("; ")));
        }
        Ok(format!("delivered by {}", delivered.join(", ")))
    }
}

fn parse_snapshot(snapshot: &Snapshot) -> AppResult<analytics::Snapshot> {
    analytics::Snapshot::from_json(snapshot.snapshot_date, &snapshot.metrics)
        .map_err(|e| AppError::internal(format!("snapshot of {} is unreadable: {e}", snapshot.snapshot_date)))
}

fn parse_snapshots(snapshots: &[Snapshot]) -> AppResult<Vec<analytics::Snapshot>> {
    snapshots.iter().map(parse_snapshot).collect()
}

/// A map's figures at `now` as a snapshot row of today.
fn stored(map: &MindMap, metrics: &MapMetrics, now: DateTime<Utc>) -> AppResult<Snapshot> {
    Ok(Snapshot {
        mind_map_id: map.id,
        learner_id: map.learner_id,
        snapshot_date: analytics::snapshot_date(now),
        metrics: serde_json::to_value(metrics).map_err(|e| AppError::internal(e.to_string()))?,
        created_at: now,
    })
}
