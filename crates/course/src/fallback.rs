//! The deterministic turn (policy-tutor.md PF-3.7): what the tutor says when the model broke
//! a rule, failed, or is not configured. Never a retry. It goes the whole way without a model:
//! a Socratic question, drills, a concept card built from the course's own anchor when the
//! learner is stuck, the exam the policy opens, and clickable choices when the learner's words
//! could mean several units or none. It only ever takes an action the policy allows.

use crate::card::{TutorCard, UnitChoice, WorkedExample};
use crate::course::Course;
use crate::event::{ClientEvent, DrillResult, ExamResult};
use crate::notation::{asks_for_drill, asks_for_exam};
use crate::pack::UnitSpec;
use crate::policy::{Action, Availability, TutorPolicy};
use crate::snapshot::MappedUnit;
use crate::tier::MasteryTier;
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
    /// The learner's words this turn, if any.
    pub words: Option<&'a str>,
    /// The turn's mapping of the learner's words, most confident first.
    pub mapped: &'a [MappedUnit],
    /// Whether the words named a unit (the policy's target came from them).
    pub named: bool,
    /// The tutor's previous action in this thread.
    pub previous_action: Option<Action>,
    /// The focus unit's mastery tier, which sets the drill's difficulty.
    pub focus_tier: MasteryTier,
    /// Right drills in a row on the focus unit.
    pub focus_streak: u32,
    /// Exam questions of the focus unit at the desired tier that can be attempted now.
    pub exam_candidates: &'a [String],
    /// Picks the blueprint and the item; derive it from the turn, so that a turn's drill is
    /// reproducible.
    pub seed: u64,
}

/// How many units a clarifying question offers at most.
const MAX_CHOICES: usize = 3;
/// How much of the learner's words a reply quotes.
const QUOTE_CHARS: usize = 60;

/// The action the deterministic turn takes, always one the policy allows:
///
/// 1. a `REQUEST_EXAM`, or words asking for an exam, get the exam when it is open;
/// 2. a stuck learner gets a concept card, once, before more drills (A4), unless they asked
///    for a drill;
/// 3. "Continue" after a right drill gets the exam when it is open (A5);
/// 4. a request to practise (a button, or words such as "give me a drill"), words answering
///    the tutor's question, and an exam asked for too early get a drill when the unit has
///    blueprints;
/// 5. anything else gets a Socratic question.
pub fn fallback_action(input: &FallbackInput<'_>) -> Action {
    let policy = input.policy;
    let exam_open = policy.allows(Action::ExamBlock) && !input.exam_candidates.is_empty();
    let wants_exam = matches!(input.event, ClientEvent::RequestExam { .. }) || input.words.is_some_and(asks_for_exam);
    if wants_exam && exam_open {
        return Action::ExamBlock;
    }
    if !policy.allows(Action::DrillCard) {
        return Action::SocraticQuestion;
    }
    let asked_for_drill =
        matches!(input.event, ClientEvent::RequestDrill { .. }) || input.words.is_some_and(asks_for_drill);
    if policy.allows(Action::ConceptCard)
        && input.previous_action != Some(Action::ConceptCard)
        && !asked_for_drill
        && !input.named
    {
        return Action::ConceptCard;
    }
    let continued_right = matches!(input.event, ClientEvent::DrillContinue { last_result: DrillResult::Correct, .. });
    if continued_right && exam_open {
        return Action::ExamBlock;
    }
    let answered_question = *input.event == ClientEvent::None
        && input.previous_action == Some(Action::SocraticQuestion)
        && input.words.is_some()
        && !input.named;
    let wants_practice = input.event.asks_for_practice() || asked_for_drill || answered_question || wants_exam;
    if wants_practice && drillable(input) {
        Action::DrillCard
    } else {
        Action::SocraticQuestion
    }
}

pub fn fallback_turn(input: &FallbackInput<'_>) -> FallbackTurn {
    let focus = input.policy.focus_unit_id.clone();
    let turn = |action: Action, text: String, card: Option<TutorCard>| FallbackTurn {
        action,
        target_unit_id: focus.clone(),
        tutor_text: with_acknowledgement(input, text),
        card,
    };
    match fallback_action(input) {
        Action::ExamBlock => {
            if let Some(card) = input.exam_candidates.first().and_then(|q| exam_card(input.course, q, &focus)) {
                return turn(Action::ExamBlock, exam_text(input), Some(card));
            }
        }
        Action::ConceptCard => {
            if let Some(card) = concept_card(input) {
                return turn(Action::ConceptCard, concept_text(input), Some(card));
            }
        }
        Action::DrillCard => {
            if let Some(card) = blueprint_drill(input) {
                return turn(Action::DrillCard, drill_text(input), Some(card));
            }
        }
        Action::SocraticQuestion => {}
    }
    if !input.policy.allows(Action::DrillCard) {
        let (text, card) = clarifier(input);
        return FallbackTurn { action: Action::SocraticQuestion, target_unit_id: focus, tutor_text: text, card };
    }
    turn(Action::SocraticQuestion, socratic_text(input), None)
}

fn drillable(input: &FallbackInput<'_>) -> bool {
    input.course.unit(&input.policy.focus_unit_id).is_some_and(|u| !u.blueprints.is_empty() || !u.drills.is_empty())
}

/// A drill from one of the focus unit's blueprints, pitched at the unit's tier, or one of its
/// written drills: a unit with both (a course drafted from material that works
/// computations) takes them in turn by the turn's seed.
pub fn blueprint_drill(input: &FallbackInput<'_>) -> Option<TutorCard> {
    let unit = input.course.unit(&input.policy.focus_unit_id)?;
    let slots = (unit.blueprints.len() + unit.drills.len()) as u64;
    let computed_first = slots == 0 || input.seed % slots < unit.blueprints.len() as u64;
    let item = if computed_first {
        blueprint_item(input, unit, input.seed).or_else(|| written_drill(input, unit))
    } else {
        written_drill(input, unit).or_else(|| blueprint_item(input, unit, input.seed))
    }?;
    Some(TutorCard::Drill {
        unit_id: unit.id.clone(),
        prompt: item.stem.clone(),
        question_latex: String::new(),
        drill_id: Some(item.id.clone()),
        options: item.options.clone(),
    })
}

fn blueprint_item(input: &FallbackInput<'_>, unit: &UnitSpec, seed: u64) -> Option<pathwise_items::Item> {
    let band = match input.focus_tier {
        _ if input.policy.stuck => Band::Easy,
        MasteryTier::None => Band::Easy,
        MasteryTier::Bronze => Band::Medium,
        MasteryTier::Silver | MasteryTier::Gold => Band::Hard,
    };
    let count = unit.blueprints.len() as u64;
    (0..count).find_map(|i| {
        let skill = &unit.blueprints[((seed + i) % count) as usize];
        input.course.library().generate(skill, seed, Target::Band(band)).ok()
    })
}

/// One of the unit's written drills, by the turn's seed.
fn written_drill(input: &FallbackInput<'_>, unit: &UnitSpec) -> Option<pathwise_items::Item> {
    let drills = input.course.written_drills(&unit.id);
    let count = drills.len() as u64;
    (count > 0).then(|| drills[(input.seed % count) as usize].clone())
}

/// A concept card from the course's own words: the unit's anchor, its first misconception as
/// the slip to watch for, and, when the unit has drills, one worked with its computed answer.
pub fn concept_card(input: &FallbackInput<'_>) -> Option<TutorCard> {
    let unit = input.course.unit(&input.policy.focus_unit_id)?;
    let budget = input.policy.constraints.max_concept_words as usize;
    let mut key_ideas: Vec<String> = Vec::new();
    let mut words = 0;
    let slip = unit.misconceptions.first().map(|m| format!("Watch out: {}", ensure_period(m)));
    let sentences = sentences(&unit.anchor);
    let room_for_slip = slip.as_ref().map_or(0, |s| word_count(s));
    for sentence in sentences.iter().take(2) {
        if words + word_count(sentence) + room_for_slip > budget && !key_ideas.is_empty() {
            break;
        }
        words += word_count(sentence);
        key_ideas.push(sentence.clone());
    }
    if let Some(slip) = slip.filter(|s| words + word_count(s) <= budget) {
        key_ideas.push(slip);
    }
    if key_ideas.is_empty() {
        return None;
    }
    // A different seed from the turn's drill, so that the example does not answer it.
    let worked_example = blueprint_item(input, unit, input.seed.rotate_left(17) ^ 0x5eed).map(|item| WorkedExample {
        problem_latex: latex_text(&item.stem),
        final_answer_latex: latex_text(&item.key.answer),
        steps_latex: Vec::new(),
    });
    let sources = cited_passages(input.course, &unit.id, &key_ideas);
    Some(TutorCard::Concept { unit_id: unit.id.clone(), key_ideas, worked_example, sources })
}

/// The unit's passages that hold one of `ideas` word for word.
fn cited_passages(course: &Course, unit: &str, ideas: &[String]) -> Vec<crate::card::Source> {
    let squeeze = |text: &str| text.split_whitespace().collect::<Vec<_>>().join(" ");
    let ideas: Vec<String> = ideas.iter().map(|i| squeeze(i)).collect();
    course
        .chunks()
        .iter()
        .filter(|c| c.unit == unit)
        .filter(|c| {
            let text = squeeze(&c.text);
            ideas.iter().any(|i| text.contains(i.as_str()))
        })
        .filter_map(|c| c.id.as_deref().and_then(|id| course.source(id)))
        .collect()
}

/// An EXAM card for a question of the bank: what may be shown before it is answered.
pub fn exam_card(course: &Course, question: &str, unit: &str) -> Option<TutorCard> {
    let q = course.question(question)?;
    Some(TutorCard::Exam {
        unit_id: unit.to_string(),
        question_id: q.id.clone(),
        tier: q.tier,
        stem: q.stem.clone(),
        options: q.options.clone(),
        has_memo: true,
        video: q.video.clone(),
        locked_until: None,
    })
}

/// Text in LaTeX's text mode, its special characters escaped.
fn latex_text(text: &str) -> String {
    let mut out = String::from("\\text{");
    for c in text.chars() {
        match c {
            '\\' => out.push_str("\\backslash "),
            '{' | '}' | '$' | '%' | '#' | '&' | '_' => {
                out.push('\\');
                out.push(c);
            }
            '^' | '~' => out.push(' '),
            '\n' => out.push(' '),
            _ => out.push(c),
        }
    }
    out.push('}');
    out
}

/// The learner's words, acknowledged before the tutor's reply: what they named, and the
/// route to it when it starts elsewhere.
fn with_acknowledgement(input: &FallbackInput<'_>, text: String) -> String {
    let (course, policy) = (input.course, input.policy);
    if input.words.is_none() || !input.named {
        return text;
    }
    let target = unit_title(course, &policy.primary_target_unit_id);
    if policy.focus_unit_id == policy.primary_target_unit_id {
        format!("You asked about {target}. {text}")
    } else {
        let focus = unit_title(course, &policy.focus_unit_id);
        format!("You asked about {target}. It builds on {focus}, so we start there and come back to it. {text}")
    }
}

fn exam_text(input: &FallbackInput<'_>) -> String {
    let title = unit_title(input.course, &input.policy.focus_unit_id);
    let tier = input.policy.desired_exam_tier;
    format!(
        "Time for the {tier} check on {title}: one question from the course's bank. Answer it to earn {tier}; \
         a wrong answer locks it for a while and it comes back later."
    )
}

fn concept_text(input: &FallbackInput<'_>) -> String {
    let title = unit_title(input.course, &input.policy.focus_unit_id);
    format!("Let's pause the drills and look at the key idea of {title} again. Then try a drill.")
}

fn drill_text(input: &FallbackInput<'_>) -> String {
    let policy = input.policy;
    let title = unit_title(input.course, &policy.focus_unit_id);
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
        _ if input.words.is_some_and(asks_for_exam) => format!("{}. Here is a drill", exam_not_open(input)),
        _ if input.words.is_some() => "Let's check that with a drill".to_string(),
        _ => "Try this one".to_string(),
    };
    if policy.focus_unit_id != policy.primary_target_unit_id && !input.named {
        let target = unit_title(input.course, &policy.primary_target_unit_id);
        return format!("On the way to {target}, a quick one on {title}. {lead}.");
    }
    format!("{lead}, on {title}.")
}

/// Why the exam the learner asked for is not open yet.
fn exam_not_open(input: &FallbackInput<'_>) -> String {
    let policy = input.policy;
    let (tier, title) = (policy.desired_exam_tier, unit_title(input.course, &policy.focus_unit_id));
    if policy.exam_availability == Availability::Locked {
        return format!("The {tier} questions on {title} are locked for now; they open again later");
    }
    if policy.exam_ready {
        return format!("There is no open {tier} question on {title} right now");
    }
    let streak = match input.focus_streak {
        0 => "none yet".to_string(),
        1 => "one so far".to_string(),
        n => n.to_string(),
    };
    format!("The {tier} check on {title} opens after two right drills in a row (you have {streak})")
}

/// The clarifying question when the learner's words could mean several units (or none):
/// the units as choices to click, and the unit the tutor was on.
fn clarifier(input: &FallbackInput<'_>) -> (String, Option<TutorCard>) {
    let (course, policy) = (input.course, input.policy);
    let focus = &policy.focus_unit_id;
    let choice = |unit: &UnitSpec| UnitChoice { unit_id: unit.id.clone(), title: unit.title.clone() };
    let mapped: Vec<&UnitSpec> =
        input.mapped.iter().take(MAX_CHOICES).filter_map(|m| course.unit(&m.unit_id)).collect();
    let quoted = input.words.map(quote).unwrap_or_default();
    let (text, units): (String, Vec<&UnitSpec>) = match mapped.as_slice() {
        [] => {
            let focus_title = unit_title(course, focus);
            let mut units: Vec<&UnitSpec> = course.unit(focus).into_iter().collect();
            if let Some(goal) = course.unit(&policy.primary_target_unit_id).filter(|g| g.id != *focus) {
                units.push(goal);
            }
            (
                format!(
                    "I couldn't match {quoted} to anything in {}. We were working on {focus_title}: carry on with it, \
                     or tell me more about what you would like to learn.",
                    course.title()
                ),
                units,
            )
        }
        [one] => (
            format!(
                "Do you mean {}? Pick it below, or tell me a little more about what you are working on.",
                one.title
            ),
            vec![*one],
        ),
        many => {
            let titles: Vec<&str> = many.iter().map(|u| u.title.as_str()).collect();
            (
                format!(
                    "{quoted} could be about {}. Which do you mean? Pick one below, or say more about what you are \
                     working on.",
                    join_or(&titles)
                ),
                many.to_vec(),
            )
        }
    };
    let card = (!units.is_empty())
        .then(|| TutorCard::Choices { unit_id: focus.clone(), choices: units.into_iter().map(choice).collect() });
    (capitalized(&text), card)
}

fn socratic_text(input: &FallbackInput<'_>) -> String {
    let (course, policy) = (input.course, input.policy);
    let focus = course.unit(&policy.focus_unit_id);
    let focus_title = unit_title(course, &policy.focus_unit_id);
    let gist = focus.map(first_sentence).unwrap_or_default();
    if let ClientEvent::DrillStuck { .. } = input.event {
        let slip = focus
            .and_then(|u| u.misconceptions.first())
            .map(|m| format!(" A common slip here: {}", ensure_period(m)))
            .unwrap_or_default();
        return format!("Let's take it one step at a time.{slip} {gist} What is the very first step you would take?");
    }
    if policy.focus_unit_id != policy.primary_target_unit_id && !input.named {
        let target = unit_title(course, &policy.primary_target_unit_id);
        return format!(
            "Before {target}, let's make sure {focus_title} is solid. {gist} How would you explain it in your own words?"
        );
    }
    format!("Let's look at {focus_title}. {gist} What do you already know about it, or where does it get confusing?")
}

fn quote(words: &str) -> String {
    let words = words.trim();
    if words.chars().count() <= QUOTE_CHARS {
        format!("\u{201c}{words}\u{201d}")
    } else {
        let cut: String = words.chars().take(QUOTE_CHARS).collect();
        format!("\u{201c}{}\u{2026}\u{201d}", cut.trim_end())
    }
}

fn capitalized(text: &str) -> String {
    let mut chars = text.chars();
    match chars.next() {
        Some(first) if first.is_lowercase() => first.to_uppercase().chain(chars).collect(),
        _ => text.to_string(),
    }
}

fn unit_title(course: &Course, unit: &str) -> String {
    course.unit(unit).map_or_else(|| unit.to_string(), |u| u.title.clone())
}

fn first_sentence(unit: &UnitSpec) -> String {
    sentences(&unit.anchor).into_iter().next().unwrap_or_default()
}

/// The text's sentences, each ending with its stop.
fn sentences(text: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut rest = text.trim();
    while !rest.is_empty() {
        let end = rest.find(". ").map_or(rest.len(), |i| i + 1);
        out.push(ensure_period(&rest[..end]));
        rest = rest[end..].trim_start();
    }
    out
}

fn word_count(text: &str) -> usize {
    text.split_whitespace().count()
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
