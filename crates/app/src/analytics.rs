//! Learning analytics (D6) and what is built on them: the nightly snapshot of every active
//! map (metrics by `pathwise-analytics`), the feedback loop that re-plans a struggling map,
//! trends and the portfolio for the doors, the weekly digest (written by the model when one
//! is configured, from the template otherwise) and review reminders, delivered through the
//! configured notifiers.

use crate::curriculum::ReplanInput;
use crate::{App, AppError, AppResult, ErrorKind, Store};
use chrono::{Duration, NaiveDate};
use pathwise_analytics::{self as analytics, DigestFacts, MapInput, MapMetrics, MapTrend, Portfolio};
use pathwise_domain::model::QuizResponse;
use pathwise_domain::{LearnerId, MapStatus, MindMapId};
use pathwise_llm::{prompts, Message, OutputSchema, Request};
use pathwise_notify::{Message as Notification, Recipient};
use pathwise_store::{Job, ResponseFilter, Snapshot};
use serde::{Deserialize, Serialize};
use serde_json::json;
use utoipa::ToSchema;

/// Responses read per query when a map's history is loaded for its snapshot.
const RESPONSE_PAGE: i64 = 500;
/// Snapshots shown and trended unless a window is asked for: the last week.
pub const TREND_DAYS: u32 = 7;
/// The longest window a map's analytics cover: a year (and a leap day).
pub const MAX_TREND_DAYS: u32 = 366;
pub const DIGEST: &str = "digest";

/// A map's analytics: the latest snapshot, the recent ones, and their trend.
#[derive(Debug, Clone, Serialize, ToSchema, schemars::JsonSchema)]
pub struct MapAnalytics {
    pub mind_map_id: MindMapId,
    /// The window covered: the snapshots of the last this many days (and today's).
    pub days: u32,
    pub latest: Option<Snapshot>,
    pub snapshots: Vec<Snapshot>,
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

#[derive(Deserialize)]
struct DigestReply {
    subject: String,
    body: String,
}

impl<S: Store> App<S> {
    /// Snapshot every active map for today, re-plan those the feedback rule flags, and
    /// re-plan review jobs; a summary of what was done.
    pub async fn nightly_analytics(&self) -> AppResult<String> {
        let maps = self.store.maps_with_status(MapStatus::Active).await?;
        let mut replanned = 0;
        for map in &maps {
            let metrics = self.snapshot_map(map.learner_id, map.id).await?;
            let nodes = self.get_map(map.learner_id, map.id).await?.nodes;
            if let Some(trigger) = analytics::replan_trigger(&metrics, &nodes) {
                let input = ReplanInput { reason: Some(trigger.reason.clone()), ..ReplanInput::default() };
                match self.replan(map.learner_id, map.id, input).await {
                    Ok(_) => replanned += 1,
                    Err(error) => tracing::warn!(map = %map.id, %error, "the feedback re-plan failed"),
                }
            }
        }
        self.sync_all_review_jobs().await?;
        let forgotten = self.forget_old_replies().await?;
        Ok(format!(
            "{} maps snapshotted, {replanned} re-planned, {forgotten} old idempotent replies forgotten",
            maps.len()
        ))
    }

    /// Compute and store today's snapshot of one map.
    pub async fn snapshot_map(&self, learner: LearnerId, map: MindMapId) -> AppResult<MapMetrics> {
        let now = self.now();
        let today = analytics::snapshot_date(now);
        let aggregate = self.get_map(learner, map).await?;
        let responses = self.all_responses(learner, map).await?;
        let recent =
            self.store.recent_qualities(learner, map, pathwise_domain::mastery::STRUGGLE_HISTORY as i64).await?;
        let earlier = self.earlier_snapshots(learner, map, today - Duration::days(28)).await?;
        let mut input = MapInput::from_aggregate(aggregate, responses);
        input.recent_qualities = Some(recent);
        let metrics = analytics::compute(&input, &earlier, now, 0);
        let snapshot = Snapshot {
            mind_map_id: map,
            learner_id: learner,
            snapshot_date: today,
            metrics: serde_json::to_value(&metrics).map_err(|e| AppError::internal(e.to_string()))?,
            created_at: now,
        };
        self.store.upsert_snapshot(&snapshot).await?;
        Ok(metrics)
    }

    /// A map's latest snapshot, those of the last week, and their trend.
    pub async fn map_analytics(&self, learner: LearnerId, map: MindMapId) -> AppResult<MapAnalytics> {
        self.map_analytics_over(learner, map, TREND_DAYS).await
    }

    /// A map's snapshots of the last `days` days (1 to [`MAX_TREND_DAYS`]) and their trend.
    pub async fn map_analytics_over(&self, learner: LearnerId, map: MindMapId, days: u32) -> AppResult<MapAnalytics> {
        if !(1..=MAX_TREND_DAYS).contains(&days) {
            return Err(AppError::invalid("days", format!("{days} is out of range; allowed: 1-{MAX_TREND_DAYS}")));
        }
        self.store.get_map(learner, map).await?.ok_or_else(|| AppError::not_found("mind map", map))?;
        let today = analytics::snapshot_date(self.now());
        let snapshots = self.store.snapshots(learner, map, today - Duration::days(i64::from(days))).await?;
        let parsed = parse_snapshots(&snapshots)?;
        Ok(MapAnalytics {
            mind_map_id: map,
            days,
            latest: snapshots.last().cloned(),
            trend: analytics::trend(&parsed, today, days),
            snapshots,
        })
    }

    /// Every map of the learner with its latest snapshot, summed up.
    pub async fn portfolio(&self, learner: LearnerId) -> AppResult<Portfolio> {
        let latest = self.store.latest_snapshots(learner).await?;
        let maps = self.store.list_maps(learner, None, 0, crate::paging::MAX_LIMIT).await?.items;
        let mut entries = Vec::with_capacity(maps.len());
        for map in maps {
            let snapshot = latest.iter().find(|s| s.mind_map_id == map.id);
            entries.push(analytics::PortfolioMap {
                map_id: map.id,
                title: map.title,
                status: map.status,
                latest: snapshot.map(parse_snapshot).transpose()?,
            });
        }
        Ok(analytics::portfolio(&entries))
    }

    /// The learner's digest for this week, written but not sent.
    pub async fn digest(&self, learner: LearnerId) -> AppResult<Digest> {
        let now = self.now();
        let today = analytics::snapshot_date(now);
        let learner_name = self.store.all_learners().await?.into_iter().find(|l| l.id == learner).map(|l| l.name);
        let maps = self.store.list_maps(learner, None, 0, crate::paging::MAX_LIMIT).await?.items;
        let mut inputs = Vec::new();
        let mut times = Vec::new();
        for map in maps.into_iter().filter(|m| matches!(m.status, MapStatus::Active | MapStatus::Completed)) {
            let aggregate = self.get_map(learner, map.id).await?;
            let snapshots = self.store.snapshots(learner, map.id, today - Duration::days(7)).await?;
            let week_ahead = now + Duration::days(7);
            let reviews_due_next_week =
                aggregate.nodes.iter().filter(|n| n.next_review_at.is_some_and(|at| at <= week_ahead)).count() as u32;
            times.extend(self.all_responses(learner, map.id).await?.into_iter().map(|r| r.responded_at));
            inputs.push(analytics::DigestMapInput {
                map_id: map.id,
                title: map.title.clone(),
                status: map.status,
                snapshots: parse_snapshots(&snapshots)?,
                labels: aggregate.nodes.iter().map(|n| (n.id, n.label.clone())).collect(),
                reviews_due_next_week,
            });
        }
        let facts = analytics::digest_facts(&analytics::DigestInput {
            learner_name,
            today,
            streak_days: Some(analytics::current_streak_days(times, now, 0)),
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
        let schema = json!({ "type": "object", "properties": { "subject": { "type": "string" }, "body": { "type": "string" } },
            "required": ["subject", "body"], "additionalProperties": false });
        let request = Request {
            output: Some(OutputSchema { name: "digest".into(), schema }),
            ..Request::new(vec![Message::system(prompt), Message::user("Write the digest now.")])
        };
        let session = self.llm.session(DIGEST).await?;
        let reply = session.structured::<DigestReply>(&request).await;
        self.record_llm_session(learner, DIGEST, &session).await?;
        let (reply, _) = reply?;
        if reply.subject.trim().is_empty() || reply.body.trim().is_empty() {
            return Err(crate::tutor::invalid_reply("the language model's digest is empty"));
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
        let Some(found) = self.store.all_learners().await?.into_iter().find(|l| l.id == learner) else {
            return Ok(None);
        };
        self.deliver(&found, &digest.subject, &digest.body).await.map(Some)
    }

    /// A review job fired: remind the learner of what is due.
    pub(crate) async fn remind_review(&self, job: &Job) -> AppResult<Option<String>> {
        let (Some(learner_id), Some(map)) = (job.learner_id, job.mind_map_id) else {
            return Ok(Some("the job names no learner or map".into()));
        };
        let Some(learner) = self.store.all_learners().await?.into_iter().find(|l| l.id == learner_id) else {
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
        let (subject, body) = crate::feedback::review_reminder(&labels);
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
            return Err(AppError::new(ErrorKind::Upstream, "delivery_failed", failed.join("; ")));
        }
        Ok(format!("delivered by {}", delivered.join(", ")))
    }

    async fn all_responses(&self, learner: LearnerId, map: MindMapId) -> AppResult<Vec<QuizResponse>> {
        let filter = ResponseFilter { mind_map_id: Some(map), ..Default::default() };
        let mut all = Vec::new();
        loop {
            let page = self.store.list_responses(learner, &filter, all.len() as i64, RESPONSE_PAGE).await?;
            let done = (page.items.len() as i64) < RESPONSE_PAGE;
            all.extend(page.items);
            if done {
                return Ok(all);
            }
        }
    }

    async fn earlier_snapshots(
        &self,
        learner: LearnerId,
        map: MindMapId,
        from: NaiveDate,
    ) -> AppResult<Vec<analytics::Snapshot>> {
        parse_snapshots(&self.store.snapshots(learner, map, from).await?)
    }
}

fn parse_snapshot(snapshot: &Snapshot) -> AppResult<analytics::Snapshot> {
    analytics::Snapshot::from_json(snapshot.snapshot_date, &snapshot.metrics)
        .map_err(|e| AppError::internal(format!("snapshot of {} is unreadable: {e}", snapshot.snapshot_date)))
}

fn parse_snapshots(snapshots: &[Snapshot]) -> AppResult<Vec<analytics::Snapshot>> {
    snapshots.iter().map(parse_snapshot).collect()
}
