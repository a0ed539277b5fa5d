//! SnapshotLite (policy-tutor.md PF-6.1): the small summary the workspace shows beside the
//! chat, so that no client implements DAG logic; and its smaller cousin in the model's
//! CONTEXT.

use crate::course::Course;
use crate::pack::Tier;
use crate::policy::{first_missing_prerequisite, frontier, ExamStatus, QuestionStatus};
use crate::snapshot::StudentSnapshot;
use crate::tier::MasteryTier;
use chrono::{DateTime, Utc};
use serde::{Deserialize, Serialize};
use std::collections::HashMap;

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, utoipa::ToSchema, schemars::JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct SnapshotLite {
    pub focus: FocusLite,
    /// What must be learned first, when the focus is blocked.
    pub prereq_nudge: Option<UnitRef>,
    pub revisit: RevisitLite,
    pub progress: ProgressLite,
    /// The exam the policy opens now on the unit being learned ("Take the bronze check"),
    /// asked for with a `REQUEST_EXAM` event; null until two drills in a row are right and a
    /// question of the tier is open.
    pub exam_check: Option<ExamCheck>,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, utoipa::ToSchema, schemars::JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct ExamCheck {
    pub unit_id: String,
    pub title: String,
    pub tier: Tier,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, utoipa::ToSchema, schemars::JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct FocusLite {
    pub unit_id: String,
    pub title: String,
    pub mastery_tier: MasteryTier,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, utoipa::ToSchema, schemars::JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct UnitRef {
    pub unit_id: String,
    pub title: String,
}

#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, utoipa::ToSchema, schemars::JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct RevisitLite {
    /// Questions on the revisit queue that are locked now.
    pub locked_count: u32,
    /// When the first of them opens again.
    pub next_eligible_at: Option<DateTime<Utc>>,
    /// The question to revisit next: one open now, else the first to open.
    pub next_question_id: Option<String>,
}

/// Units at each tier (exactly), of all the course's units.
#[derive(
    Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize, utoipa::ToSchema, schemars::JsonSchema,
)]
pub struct ProgressLite {
    pub bronze: u32,
    pub silver: u32,
    pub gold: u32,
    pub total: u32,
}

/// `snapshotLiteForLLM`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct SnapshotLiteForLlm {
    pub focus_unit_id: String,
    pub focus_mastery_tier: MasteryTier,
    pub units_in_progress: Vec<String>,
    pub revisit: RevisitForLlm,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct RevisitForLlm {
    pub locked_count: u32,
    pub next_eligible_at: Option<DateTime<Utc>>,
}

/// What to learn before `unit`: where its first missing prerequisite's route starts.
pub fn prerequisite_nudge<'c>(course: &'c Course, snapshot: &StudentSnapshot, unit: &str) -> Option<&'c str> {
    first_missing_prerequisite(course, snapshot, unit).map(|p| frontier(course, snapshot, p))
}

/// The revisit queue's state, from the exam service's statuses of its questions.
pub fn revisit_summary(
    snapshot: &StudentSnapshot,
    statuses: &HashMap<String, ExamStatus>,
    now: DateTime<Utc>,
) -> RevisitLite {
    let mut locked: Vec<(DateTime<Utc>, &str)> = Vec::new();
    let mut open_now = None;
    for question in snapshot.revisit_queue.keys() {
        match statuses.get(question) {
            Some(ExamStatus { status: QuestionStatus::Locked, locked_until: Some(until) }) if *until > now => {
                locked.push((*until, question));
            }
            Some(ExamStatus { status: QuestionStatus::Passed, .. }) => {}
            _ => {
                open_now.get_or_insert(question.as_str());
            }
        }
    }
    locked.sort();
    RevisitLite {
        locked_count: locked.len() as u32,
        next_eligible_at: locked.first().map(|(t, _)| *t),
        next_question_id: open_now.or(locked.first().map(|(_, q)| *q)).map(str::to_string),
    }
}

/// The course's units at each tier (exactly), of all its units: the tutor's "Progress", and
/// the tier counts beside a course map's mastery.
pub fn progress(course: &Course, snapshot: &StudentSnapshot) -> ProgressLite {
    let mut progress = ProgressLite { total: course.units().len() as u32, ..ProgressLite::default() };
    for (unit, tier) in snapshot.tiers() {
        if !course.has_unit(unit) {
            continue;
        }
        match tier {
            MasteryTier::Bronze => progress.bronze += 1,
            MasteryTier::Silver => progress.silver += 1,
            MasteryTier::Gold => progress.gold += 1,
            MasteryTier::None => {}
        }
    }
    progress
}

/// SnapshotLite for a target unit and its nudge, with the exam the policy opens (if any).
pub fn snapshot_lite(
    course: &Course,
    snapshot: &StudentSnapshot,
    focus: &str,
    nudge: Option<&str>,
    revisit: RevisitLite,
    exam_check: Option<(&str, Tier)>,
) -> SnapshotLite {
    let unit_ref = |unit: &str| UnitRef {
        unit_id: unit.to_string(),
        title: course.unit(unit).map_or_else(|| unit.to_string(), |u| u.title.clone()),
    };
    let progress = progress(course, snapshot);
    let focus_ref = unit_ref(focus);
    SnapshotLite {
        focus: FocusLite { unit_id: focus_ref.unit_id, title: focus_ref.title, mastery_tier: snapshot.tier(focus) },
        prereq_nudge: nudge.map(unit_ref),
        revisit,
        progress,
        exam_check: exam_check.map(|(unit, tier)| {
            let unit = unit_ref(unit);
            ExamCheck { unit_id: unit.unit_id, title: unit.title, tier }
        }),
    }
}

pub fn snapshot_lite_for_llm(snapshot: &StudentSnapshot, focus: &str, revisit: &RevisitLite) -> SnapshotLiteForLlm {
    SnapshotLiteForLlm {
        focus_unit_id: focus.to_string(),
        focus_mastery_tier: snapshot.tier(focus),
        units_in_progress: snapshot.units_in_progress.clone(),
        revisit: RevisitForLlm { locked_count: revisit.locked_count, next_eligible_at: revisit.next_eligible_at },
    }
}
