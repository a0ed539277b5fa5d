//! The learner snapshot (policy-tutor.md `StudentSnapshot`): one per learner and course,
//! sparse (a unit has progress only once touched; only exam questions interacted with are
//! marked), and changed only by hard evidence: drill grades, exam answers, viewed support,
//! and the turn's deterministic focus.

use crate::pack::{ExamQuestionSpec, Tier};
use crate::tier::{tier_from_evidence, MasteryTier, PassedByTier};
use chrono::{DateTime, Utc};
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;

/// How many units the snapshot keeps as in progress, most recent first.
pub const MAX_UNITS_IN_PROGRESS: usize = 5;

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, utoipa::ToSchema, schemars::JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct StudentSnapshot {
    pub student_id: String,
    pub course_id: String,
    pub focus_unit_id: String,
    /// The unit the learner asked to reach (in words, by a choice, or from the map). The
    /// focus works through its missing prerequisites and comes back to it as they earn tiers.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub goal_unit_id: Option<String>,
    pub units_in_progress: Vec<String>,
    pub unit_progress: BTreeMap<String, UnitProgress>,
    pub exam_touched: BTreeMap<String, bool>,
    /// Questions to come back to once their lockout ends.
    pub revisit_queue: BTreeMap<String, RevisitEntry>,
    pub last_turn_analysis: Option<TurnAnalysis>,
    pub last_turn_at: DateTime<Utc>,
}

#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, utoipa::ToSchema, schemars::JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct UnitProgress {
    pub status: UnitStatus,
    pub mastery_tier: MasteryTier,
    pub last_touched_at: Option<DateTime<Utc>>,
    pub drill: DrillCounters,
    pub exam: ExamCounters,
    /// Mistake tag to how often drill grading gave it.
    pub confusion_tags: BTreeMap<String, u32>,
}

#[derive(
    Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize, utoipa::ToSchema, schemars::JsonSchema,
)]
#[serde(rename_all = "snake_case")]
pub enum UnitStatus {
    #[default]
    InProgress,
    /// Gold: nothing left to earn.
    Completed,
}

#[derive(
    Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize, utoipa::ToSchema, schemars::JsonSchema,
)]
#[serde(rename_all = "camelCase")]
pub struct DrillCounters {
    pub attempts: u32,
    pub correct: u32,
    pub streak_correct: u32,
    /// Right drills in a row since the unit's last exam answer, right or wrong; absent until
    /// its first. A tier's check needs two of them, so that no tier follows another, nor a
    /// second try a wrong answer, without new evidence in between.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub streak_since_check: Option<u32>,
}

impl DrillCounters {
    /// The drills' part of exam readiness: two right in a row, since the unit's last exam
    /// answer once it has one.
    pub fn ready_for_check(&self) -> bool {
        self.streak_since_check.unwrap_or(self.streak_correct) >= 2
    }

    /// The streak that counts towards the next check.
    pub fn streak_for_check(&self) -> u32 {
        self.streak_since_check.unwrap_or(self.streak_correct)
    }
}

#[derive(
    Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize, utoipa::ToSchema, schemars::JsonSchema,
)]
#[serde(rename_all = "camelCase")]
pub struct ExamCounters {
    pub passed_by_tier: PassedByTier,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, utoipa::ToSchema, schemars::JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct RevisitEntry {
    pub unit_id: String,
    pub tier: Tier,
}

/// What the model said about the learner's last message (never confusion tags).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, utoipa::ToSchema, schemars::JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct TurnAnalysis {
    pub mapped_units: Vec<MappedUnit>,
    pub student_intent: String,
    pub understanding_signal: String,
    pub suggested_prereq_units: Vec<String>,
}

/// A unit a message is about, with how sure the mapping is (0..1).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, utoipa::ToSchema, schemars::JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct MappedUnit {
    pub unit_id: String,
    pub confidence: f64,
}

impl StudentSnapshot {
    /// A new learner's snapshot: focus on the course's entry unit, nothing else
    /// (`getOrCreateSnapshot`).
    pub fn new(student_id: &str, course_id: &str, entry_unit: &str, now: DateTime<Utc>) -> StudentSnapshot {
        StudentSnapshot {
            student_id: student_id.to_string(),
            course_id: course_id.to_string(),
            focus_unit_id: entry_unit.to_string(),
            goal_unit_id: None,
            units_in_progress: Vec::new(),
            unit_progress: BTreeMap::new(),
            exam_touched: BTreeMap::new(),
            revisit_queue: BTreeMap::new(),
            last_turn_analysis: None,
            last_turn_at: now,
        }
    }

    pub fn progress(&self, unit: &str) -> Option<&UnitProgress> {
        self.unit_progress.get(unit)
    }

    pub fn tier(&self, unit: &str) -> MasteryTier {
        self.progress(unit).map_or(MasteryTier::None, |p| p.mastery_tier)
    }

    /// Marks a unit as worked on now: it gets progress if it had none and moves to the front
    /// of the units in progress (a completed unit leaves that list).
    pub fn touch(&mut self, unit: &str, now: DateTime<Utc>) -> &mut UnitProgress {
        self.units_in_progress.retain(|u| u != unit);
        let progress = self.unit_progress.entry(unit.to_string()).or_default();
        progress.last_touched_at = Some(now);
        if progress.status == UnitStatus::InProgress {
            self.units_in_progress.insert(0, unit.to_string());
            self.units_in_progress.truncate(MAX_UNITS_IN_PROGRESS);
        }
        self.unit_progress.get_mut(unit).expect("just inserted")
    }

    /// A graded drill: attempts, correct answers and the streak move; a wrong answer's
    /// mistake tag (from grading, and only from grading) is counted.
    pub fn record_drill(&mut self, unit: &str, correct: bool, mistake_tag: Option<&str>, now: DateTime<Utc>) {
        let progress = self.touch(unit, now);
        progress.drill.attempts += 1;
        if correct {
            progress.drill.correct += 1;
            progress.drill.streak_correct += 1;
            progress.drill.streak_since_check = progress.drill.streak_since_check.map(|n| n + 1);
        } else {
            progress.drill.streak_correct = 0;
            progress.drill.streak_since_check = progress.drill.streak_since_check.map(|_| 0);
            if let Some(tag) = mistake_tag {
                *progress.confusion_tags.entry(tag.to_string()).or_default() += 1;
            }
        }
    }

    /// An exam answer on `unit`. A pass counts for the question's tier and may raise the
    /// unit's mastery tier (never lower it) and takes the question off the revisit queue; a
    /// wrong answer puts it there. Either way the unit's next check waits for two new right
    /// drills ([`DrillCounters::ready_for_check`]).
    pub fn record_exam(&mut self, unit: &str, question: &ExamQuestionSpec, correct: bool, now: DateTime<Utc>) {
        self.exam_touched.insert(question.id.clone(), true);
        let progress = self.touch(unit, now);
        let streak = progress.drill.streak_for_check();
        progress.drill.streak_since_check = Some(0);
        if correct {
            progress.exam.passed_by_tier.add(question.tier);
            progress.mastery_tier =
                progress.mastery_tier.max(tier_from_evidence(streak, &progress.exam.passed_by_tier));
            if progress.mastery_tier == MasteryTier::Gold {
                progress.status = UnitStatus::Completed;
                self.units_in_progress.retain(|u| u != unit);
            }
            self.revisit_queue.remove(&question.id);
        } else {
            self.revisit_queue
                .insert(question.id.clone(), RevisitEntry { unit_id: unit.to_string(), tier: question.tier });
        }
    }

    /// The memo or video of a question was viewed: the question is locked (by the exam
    /// service) and comes back on the revisit queue.
    pub fn record_support_viewed(&mut self, unit: &str, question: &ExamQuestionSpec, now: DateTime<Utc>) {
        self.exam_touched.insert(question.id.clone(), true);
        self.touch(unit, now);
        self.revisit_queue.insert(question.id.clone(), RevisitEntry { unit_id: unit.to_string(), tier: question.tier });
    }

    /// After a turn: the policy's focus and target become the snapshot's, with what the model
    /// made of the message.
    ///
    /// A turn is not evidence: the focus joins the units in progress, but gets no entry of
    /// progress of its own until a drill or an exam gives it one (the snapshot stays sparse).
    pub fn record_turn(&mut self, focus: &str, goal: &str, analysis: Option<TurnAnalysis>, now: DateTime<Utc>) {
        self.focus_unit_id = focus.to_string();
        self.goal_unit_id = Some(goal.to_string());
        let completed = match self.unit_progress.get_mut(focus) {
            Some(progress) => {
                progress.last_touched_at = Some(now);
                progress.status == UnitStatus::Completed
            }
            None => false,
        };
        self.units_in_progress.retain(|u| u != focus);
        if !completed {
            self.units_in_progress.insert(0, focus.to_string());
            self.units_in_progress.truncate(MAX_UNITS_IN_PROGRESS);
        }
        if analysis.is_some() {
            self.last_turn_analysis = analysis;
        }
        self.last_turn_at = now;
    }

    /// Mastery tier per unit, for the units that have one.
    pub fn tiers(&self) -> impl Iterator<Item = (&str, MasteryTier)> {
        self.unit_progress.iter().map(|(u, p)| (u.as_str(), p.mastery_tier))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use chrono::TimeZone;

    fn at(h: u32) -> DateTime<Utc> {
        Utc.with_ymd_and_hms(2026, 1, 1, h, 0, 0).unwrap()
    }

    fn question(id: &str, tier: Tier) -> ExamQuestionSpec {
        ExamQuestionSpec {
            id: id.into(),
            units: vec!["U1".into()],
            tier,
            tags: vec![],
            stem: "?".into(),
            options: vec!["a".into(), "b".into()],
            correct: 0,
            memo: "m".into(),
            video: None,
            video_transcript: None,
            passage: None,
        }
    }

    #[test]
    fn a_new_snapshot_is_sparse_and_focused_on_the_entry_unit() {
        let s = StudentSnapshot::new("S1", "C", "ENTRY-00", at(0));
        assert_eq!(s.focus_unit_id, "ENTRY-00");
        assert!(s.unit_progress.is_empty() && s.units_in_progress.is_empty() && s.exam_touched.is_empty());
        let json = serde_json::to_value(&s).unwrap();
        for key in [
            "studentId",
            "courseId",
            "focusUnitId",
            "unitsInProgress",
            "unitProgress",
            "examTouched",
            "revisitQueue",
            "lastTurnAnalysis",
            "lastTurnAt",
        ] {
            assert!(json.get(key).is_some(), "{key} missing from {json}");
        }
    }

    #[test]
    fn drills_move_counters_and_only_wrong_answers_count_tags() {
        let mut s = StudentSnapshot::new("S1", "C", "U1", at(0));
        s.record_drill("U1", true, Some("sign_error"), at(1));
        s.record_drill("U1", true, None, at(1));
        let p = s.progress("U1").unwrap();
        assert_eq!((p.drill.attempts, p.drill.correct, p.drill.streak_correct), (2, 2, 2));
        assert!(p.confusion_tags.is_empty(), "a correct answer's tag is ignored");
        s.record_drill("U1", false, Some("sign_error"), at(2));
        s.record_drill("U1", false, None, at(2));
        let p = s.progress("U1").unwrap();
        assert_eq!((p.drill.attempts, p.drill.correct, p.drill.streak_correct), (4, 2, 0));
        assert_eq!(p.confusion_tags.get("sign_error"), Some(&1));
        assert_eq!(s.units_in_progress, vec!["U1"]);
    }

    #[test]
    fn exams_raise_tiers_and_keep_the_revisit_queue() {
        let mut s = StudentSnapshot::new("S1", "C", "U1", at(0));
        let bronze = question("Q1", Tier::Bronze);
        s.record_exam("U1", &bronze, false, at(1));
        assert!(s.revisit_queue.contains_key("Q1"));
        assert_eq!(s.exam_touched.get("Q1"), Some(&true));
        s.record_drill("U1", true, None, at(1));
        s.record_drill("U1", true, None, at(1));
        s.record_exam("U1", &bronze, true, at(2));
        assert!(!s.revisit_queue.contains_key("Q1"));
        assert_eq!(s.tier("U1"), MasteryTier::Bronze);
        // A wrong drill later resets the streak but never takes the tier away.
        s.record_drill("U1", false, None, at(3));
        s.record_exam("U1", &question("Q2", Tier::Silver), true, at(4));
        assert_eq!(s.tier("U1"), MasteryTier::Bronze, "silver needs drill readiness at the time");
        s.record_drill("U1", true, None, at(5));
        s.record_drill("U1", true, None, at(5));
        s.record_exam("U1", &question("Q3", Tier::Gold), true, at(6));
        assert_eq!(s.tier("U1"), MasteryTier::Gold, "silver and gold passes with readiness");
        assert_eq!(s.progress("U1").unwrap().status, UnitStatus::Completed);
        assert!(s.units_in_progress.is_empty());
    }

    #[test]
    fn each_check_needs_two_new_right_drills_after_the_last_one() {
        let mut s = StudentSnapshot::new("S1", "C", "U1", at(0));
        let ready = |s: &StudentSnapshot| s.progress("U1").unwrap().drill.ready_for_check();
        s.record_drill("U1", true, None, at(1));
        s.record_drill("U1", true, None, at(1));
        assert!(ready(&s), "two right drills make the first check ready");
        s.record_exam("U1", &question("B1", Tier::Bronze), true, at(2));
        assert_eq!(s.tier("U1"), MasteryTier::Bronze);
        assert!(!ready(&s), "silver is not offered straight after bronze");
        s.record_drill("U1", true, None, at(3));
        assert!(!ready(&s), "one new right drill is not enough");
        s.record_drill("U1", true, None, at(3));
        assert!(ready(&s));
        s.record_exam("U1", &question("S1", Tier::Silver), false, at(4));
        assert!(!ready(&s), "a wrong answer holds the tier's checks until new evidence");
        s.record_drill("U1", true, None, at(5));
        s.record_drill("U1", false, None, at(5));
        s.record_drill("U1", true, None, at(5));
        assert!(!ready(&s), "the two must be in a row");
        s.record_drill("U1", true, None, at(5));
        assert!(ready(&s));
        s.record_exam("U1", &question("S2", Tier::Silver), true, at(6));
        assert_eq!(s.tier("U1"), MasteryTier::Silver);
        let json = serde_json::to_value(s.progress("U1").unwrap().drill).unwrap();
        assert_eq!(json["streakSinceCheck"], 0);
    }

    #[test]
    fn viewed_support_queues_the_question() {
        let mut s = StudentSnapshot::new("S1", "C", "U1", at(0));
        s.record_support_viewed("U1", &question("Q1", Tier::Gold), at(1));
        assert_eq!(s.revisit_queue["Q1"], RevisitEntry { unit_id: "U1".into(), tier: Tier::Gold });
    }

    #[test]
    fn a_turn_moves_the_focus_without_making_progress_entries() {
        let mut s = StudentSnapshot::new("S1", "C", "U0", at(0));
        s.record_turn("U1", "U1", None, at(1));
        assert_eq!(s.focus_unit_id, "U1");
        assert_eq!(s.units_in_progress, vec!["U1"]);
        assert!(s.unit_progress.is_empty(), "no evidence, no progress entry");
        s.record_drill("U1", true, None, at(2));
        s.record_turn("U1", "U1", None, at(3));
        assert_eq!(s.progress("U1").unwrap().last_touched_at, Some(at(3)));
    }

    #[test]
    fn units_in_progress_stay_few_and_recent() {
        let mut s = StudentSnapshot::new("S1", "C", "U0", at(0));
        for i in 0..8 {
            s.touch(&format!("U{i}"), at(1));
        }
        assert_eq!(s.units_in_progress, vec!["U7", "U6", "U5", "U4", "U3"]);
    }
}
