//! The deterministic turn (policy-tutor.md PF-3.7): what the tutor says when the model broke
//! a rule, failed, or is not configured. Never a retry, and never anything but a Socratic
//! question or a drill: a drill when the learner asked to practise (or has just answered a
//! question in words) and the unit has a drill blueprint, a Socratic question otherwise.

use crate::course::Course;
use crate::pack::UnitSpec;
use crate::policy::{Action, TutorPolicy};
use crate::snapshot::MappedUnit;
use crate::tier::MasteryTier;
use crate::turn::{ClientEvent, DrillResult, ExamResult, TutorCard};
use pathwise_items::{Band, Target};

/// What the deterministic turn shows.
#[derive(Debug, Clone, PartialEq)]
pub struct FallbackTurn {
    pub action: Action,
    pub target_unit_id: String,
    pub tutor_text: String,
    pub card: Option<TutorCard>,
}

#[derive(Debug, Clone, Copy)]
pub struct FallbackInput<'a> {
    pub policy: &'a TutorPolicy,
    pub course: &'a Course,
    pub event: &'a ClientEvent,
    /// The turn's mapping of the learner's words, most confident first.
    pub mapped: &'a [MappedUnit],
    /// The tutor's previous action in this thread.
    pub previous_action: Option<Action>,
    /// The focus unit's mastery tier, which sets the drill's difficulty.
    pub focus_tier: MasteryTier,
    /// Picks the blueprint and the item; derive it from the turn, so that a turn's drill is
    /// reproducible.
    pub seed: u64,
}

/// SOCRATIC_QUESTION, unless a drill fits (see the module's description).
pub fn fallback_action(input: &FallbackInput<'_>) -> Action {
    let wants_practice = input.event.asks_for_practice()
        || (*input.event == ClientEvent::None && input.previous_action == Some(Action::SocraticQuestion));
    let drillable = input.course.unit(&input.policy.focus_unit_id).is_some_and(|u| !u.blueprints.is_empty());
    if input.policy.allows(Action::DrillCard) && wants_practice && drillable {
        Action::DrillCard
    } else {
        Action::SocraticQuestion
    }
}

pub fn fallback_turn(input: &FallbackInput<'_>) -> FallbackTurn {
    let policy = input.policy;
    let focus = policy.focus_unit_id.clone();
    if fallback_action(input) == Action::DrillCard {
        if let Some(card) = blueprint_drill(input) {
            return FallbackTurn {
                action: Action::DrillCard,
                target_unit_id: focus,
                tutor_text: drill_text(input),
                card: Some(card),
            };
        }
    }
    FallbackTurn {
        action: Action::SocraticQuestion,
        target_unit_id: focus,
        tutor_text: socratic_text(input),
        card: None,
    }
}

/// A drill from one of the focus unit's blueprints, pitched at the unit's tier.
pub fn blueprint_drill(input: &FallbackInput<'_>) -> Option<TutorCard> {
    let unit = input.course.unit(&input.policy.focus_unit_id)?;
    let band = match input.focus_tier {
        _ if input.policy.stuck => Band::Easy,
        MasteryTier::None => Band::Easy,
        MasteryTier::Bronze => Band::Medium,
        MasteryTier::Silver | MasteryTier::Gold => Band::Hard,
    };
    let count = unit.blueprints.len() as u64;
    (0..count).find_map(|i| {
        let skill = &unit.blueprints[((input.seed + i) % count) as usize];
        let item = input.course.library().generate(skill, input.seed, Target::Band(band)).ok()?;
        Some(TutorCard::Drill {
            unit_id: unit.id.clone(),
            prompt: item.stem.clone(),
            question_latex: String::new(),
            drill_id: Some(item.id.clone()),
            options: item.options.clone(),
        })
    })
}

fn drill_text(input: &FallbackInput<'_>) -> String {
    let title = unit_title(input.course, &input.policy.focus_unit_id);
    let lead = match input.event {
        ClientEvent::DrillContinue { last_result: DrillResult::Correct, .. } => {
            "Nice work. Here is another one".to_string()
        }
        ClientEvent::DrillContinue { last_result: DrillResult::Incorrect, .. } => "Let's try another one".to_string(),
        ClientEvent::ExamContinue { result: ExamResult::Passed, .. } => {
            "Well done on the exam question. Let's keep practising".to_string()
        }
        ClientEvent::ExamContinue { result: ExamResult::Locked, .. } => {
            "That question is locked for now; let's practise in the meantime".to_string()
        }
        _ => "Try this one".to_string(),
    };
    match &input.policy.prereq_blocking_unit_id {
        Some(blocker) if *blocker == input.policy.focus_unit_id => {
            let target = unit_title(input.course, &input.policy.primary_target_unit_id);
            format!("Before {target}, a quick one on {title}. {lead}.")
        }
        _ => format!("{lead}, on {title}."),
    }
}

fn socratic_text(input: &FallbackInput<'_>) -> String {
    let (course, policy) = (input.course, input.policy);
    let focus = course.unit(&policy.focus_unit_id);
    let focus_title = unit_title(course, &policy.focus_unit_id);
    let gist = focus.map(first_sentence).unwrap_or_default();
    if !policy.allows(Action::DrillCard) {
        // The learner's words were about nothing the mapping is sure of: clarify.
        let titles: Vec<&str> =
            input.mapped.iter().take(3).filter_map(|m| course.unit(&m.unit_id)).map(|u| u.title.as_str()).collect();
        return match titles.as_slice() {
            [] => format!("What would you like to work on? We were looking at {focus_title}: {gist}"),
            [one] => format!("Do you mean {one}? Tell me a little more about what you are working on."),
            many => format!(
                "Which do you mean: {}? Tell me which one, or say more about what you are working on.",
                join_or(many)
            ),
        };
    }
    if let ClientEvent::DrillStuck { .. } = input.event {
        let slip = focus
            .and_then(|u| u.misconceptions.first())
            .map(|m| format!(" A common slip here: {}", ensure_period(m)))
            .unwrap_or_default();
        return format!("Let's take it one step at a time.{slip} {gist} What is the very first step you would take?");
    }
    if let Some(blocker) = &policy.prereq_blocking_unit_id {
        let target = unit_title(course, &policy.primary_target_unit_id);
        let blocker_title = unit_title(course, blocker);
        return format!(
            "Before {target}, let's make sure {blocker_title} is solid. {gist} How would you explain it in your own words?"
        );
    }
    format!("Let's look at {focus_title}. {gist} What do you already know about it, or where does it get confusing?")
}

fn unit_title(course: &Course, unit: &str) -> String {
    course.unit(unit).map_or_else(|| unit.to_string(), |u| u.title.clone())
}

fn first_sentence(unit: &UnitSpec) -> String {
    let anchor = unit.anchor.trim();
    let end = anchor.find(". ").map_or(anchor.len(), |i| i + 1);
    ensure_period(&anchor[..end])
}

fn ensure_period(text: &str) -> String {
    let text = text.trim();
    if text.ends_with(['.', '?', '!']) {
        text.to_string()
    } else {
        format!("{text}.")
    }
}

fn join_or(items: &[&str]) -> String {
    match items.split_last() {
        Some((last, rest)) if !rest.is_empty() => format!("{}, or {last}", rest.join(", ")),
        _ => items.join(""),
    }
}
