//! The deterministic turn (policy-tutor.md PF-3.7): what the tutor says when the model broke
//! a rule, failed, or is not configured. Never a retry. It goes the whole way without a model:
//! a question in the learner's words answered from the material and cited, the requests of
//! [`crate::intent`] (what next, an example, a hint, I already know this, something else), a
//! Socratic question, drills, help that is new each time when the learner is stuck (see
//! [`crate::help`]), the exam the policy opens, and clickable choices when the learner's words
//! could mean several units or none. It only ever takes an action the policy allows.

use crate::answer::{listed, quoted, MaterialAnswer};
use crate::card::{Source, TutorCard, UnitChoice, WorkedExample};
use crate::course::Course;
use crate::event::{ClientEvent, DrillResult, ExamResult};
use crate::help::{next_rung, Rung};
use crate::intent::{asks_for_drill, asks_for_exam, Reading, Request};
use crate::pack::UnitSpec;
use crate::policy::{Action, Availability, TutorPolicy};
use crate::shown::Shown;
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
    /// The passages the text or the card quotes.
    pub sources: Vec<Source>,
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
    /// How the learner's words read (talk when there are none).
    pub reading: Reading,
    /// The material's answer to the learner's question (or to the topic they asked to be
    /// taught), found by retrieval.
    pub answer: Option<&'a MaterialAnswer>,
    /// What the thread showed lately.
    pub shown: &'a Shown,
    /// Units other than the focus the learner can start now, in learning order.
    pub open_units: &'a [String],
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
    if *input.event == ClientEvent::None && input.words.is_some() {
        if let Some(turn) = words_turn(input) {
            return turn;
        }
    }
    let focus = input.policy.focus_unit_id.clone();
    let turn = |action: Action, text: String, card: Option<TutorCard>, sources: Vec<Source>| FallbackTurn {
        action,
        target_unit_id: focus.clone(),
        tutor_text: with_acknowledgement(input, text),
        card,
        sources,
    };
    match fallback_action(input) {
        Action::ExamBlock => {
            if let Some(card) = input.exam_candidates.first().and_then(|q| exam_card(input.course, q, &focus)) {
                return turn(Action::ExamBlock, exam_text(input), Some(card), Vec::new());
            }
        }
        Action::ConceptCard => {
            if let Some((text, card, sources)) = help_card(input, None) {
                return turn(Action::ConceptCard, text, card, sources);
            }
        }
        Action::DrillCard => {
            if let Some(card) = blueprint_drill(input) {
                let text = match &card {
                    // The unit has no other drill: say so, rather than pass it off as new.
                    TutorCard::Drill { prompt, .. } if input.shown.is_last_drill(prompt) => format!(
                        "Your material gives only this drill on {}, so here it is again.",
                        unit_title(input.course, &input.policy.focus_unit_id)
                    ),
                    _ => drill_text(input),
                };
                return turn(Action::DrillCard, text, Some(card), Vec::new());
            }
        }
        Action::SocraticQuestion => {}
    }
    if !input.policy.allows(Action::DrillCard) {
        let (text, card) = clarifier(input);
        return FallbackTurn {
            action: Action::SocraticQuestion,
            target_unit_id: focus,
            tutor_text: text,
            card,
            sources: Vec::new(),
        };
    }
    let (text, sources) = socratic_text(input);
    turn(Action::SocraticQuestion, text, None, sources)
}

/// The learner's words asked something the tutor answers in a way of its own: a question (or
/// a topic to be taught) answered from the material, what next, the check that proves they
/// know it, help, other units, what the tutor can do. `None` for talk, an exam or a drill,
/// which the policy's own actions answer.
fn words_turn(input: &FallbackInput<'_>) -> Option<FallbackTurn> {
    let focus = input.policy.focus_unit_id.clone();
    let socratic = |text: String, card: Option<TutorCard>, sources: Vec<Source>| FallbackTurn {
        action: Action::SocraticQuestion,
        target_unit_id: focus.clone(),
        tutor_text: text,
        card,
        sources,
    };
    let help = |first: Option<Rung>| {
        if let Some((text, card, sources)) = help_card(input, first) {
            let action = if matches!(card, Some(TutorCard::Concept { .. })) {
                Action::ConceptCard
            } else {
                Action::SocraticQuestion
            };
            return FallbackTurn { action, target_unit_id: focus.clone(), tutor_text: text, card, sources };
        }
        // Everything the material says was shown: now the way forward is to try one, with the
        // answer's sentence shown if it goes wrong.
        let title = unit_title(input.course, &focus);
        if input.policy.allows(Action::DrillCard) {
            if let Some(card) = blueprint_drill(input) {
                return FallbackTurn {
                    action: Action::DrillCard,
                    target_unit_id: focus.clone(),
                    tutor_text: format!(
                        "You have seen everything {} says about {title}. The best next step is to try one: if it \
                         goes wrong, I will show you the sentence that holds the answer.",
                        material_name(input.course)
                    ),
                    card: Some(card),
                    sources: Vec::new(),
                };
            }
        }
        let (text, card) = menu(input, None);
        socratic(
            format!("You have seen everything {} says about {title}. {text}", material_name(input.course)),
            card,
            Vec::new(),
        )
    };
    match input.reading {
        Reading::Talk | Reading::Request(Request::Exam | Request::Drill) => None,
        Reading::Question(_) | Reading::Request(Request::Explain) => {
            let (text, card, sources) = answer_reply(input);
            Some(socratic(text, card, sources))
        }
        Reading::Request(Request::Next) => {
            let (text, card, sources) = next_reply(input);
            Some(socratic(text, card, sources))
        }
        Reading::Request(Request::AlreadyKnow) => Some(prove_it(input)),
        Reading::Request(Request::Stuck) => Some(help(None)),
        Reading::Request(Request::Simpler) => Some(help(Some(Rung::Passage))),
        Reading::Request(Request::Example) => Some(help(Some(Rung::Example))),
        Reading::Request(Request::Hint) => Some(help(Some(Rung::Slip))),
        Reading::Request(Request::SomethingElse) => {
            let (text, card) = elsewhere(input);
            Some(socratic(text, card, Vec::new()))
        }
        Reading::Request(Request::Help) => {
            let (text, card) = menu(input, None);
            Some(socratic(text, card, Vec::new()))
        }
    }
}

/// "Your material" for a course drafted from the learner's own, "the course" for one written
/// for them.
fn material_name(course: &Course) -> &'static str {
    if course.grounded() {
        "your material"
    } else {
        "the course"
    }
}

fn capitalized_name(course: &Course) -> String {
    capitalized(material_name(course))
}

/// A question answered from the material, quoted and cited, then back to the work: or, when
/// the material does not answer it, saying so and quoting the nearest it comes.
fn answer_reply(input: &FallbackInput<'_>) -> (String, Option<TutorCard>, Vec<Source>) {
    let (course, policy) = (input.course, input.policy);
    let focus = policy.focus_unit_id.as_str();
    let words = input.words.unwrap_or_default();
    let answer = match input.answer {
        Some(answer) if !answer.sentences.is_empty() => answer,
        other => {
            let (menu_text, card) = menu(input, None);
            let what = match other {
                Some(answer) if !answer.missing.is_empty() => listed(&answer.missing),
                _ => quote(words),
            };
            return (format!("{} does not mention {what}. {menu_text}", capitalized_name(course)), card, Vec::new());
        }
    };
    let sources: Vec<Source> = answer.chunk.and_then(|c| course.source_at(c)).into_iter().collect();
    let unit = unit_title(course, &answer.unit_id);
    let said = quoted(&answer.sentences);
    let lead = if answer.answers {
        format!("{} says: {said}", capitalized_name(course))
    } else if answer.missing.is_empty() {
        format!(
            "{} does not say that in so many words. The nearest it comes is in {unit}: {said}",
            capitalized_name(course)
        )
    } else {
        format!(
            "{} does not say anything about {}. The nearest it comes is in {unit}: {said}",
            capitalized_name(course),
            listed(&answer.missing)
        )
    };
    let target = policy.primary_target_unit_id.as_str();
    let check = |on: &str| {
        if drillable(input) {
            format!("Want to check it? Ask for a drill on {on}, or ask me more.")
        } else {
            format!("What else would you like to know about {on}?")
        }
    };
    // The words named a unit: the policy now works towards it, through its missing
    // prerequisites first.
    if input.named {
        let target_title = unit_title(course, target);
        let route = if focus == target {
            check(&target_title)
        } else {
            format!("It builds on {}, so we start there and come back to it.", unit_title(course, focus))
        };
        return (format!("{lead} You asked about {target_title}. {route}"), None, sources);
    }
    if answer.unit_id == focus {
        return (format!("{lead} {}", check(&unit)), None, sources);
    }
    let steer = format!(
        "That is from {unit}; we are working on {}. Carry on with it, or pick {unit} below to go there.",
        unit_title(course, focus)
    );
    (format!("{lead} {steer}"), choices(course, focus, &[focus, answer.unit_id.as_str()]), sources)
}

/// What to learn next, and why it is next.
fn next_reply(input: &FallbackInput<'_>) -> (String, Option<TutorCard>, Vec<Source>) {
    let (course, policy) = (input.course, input.policy);
    let focus = policy.focus_unit_id.as_str();
    let target = policy.primary_target_unit_id.as_str();
    let title = unit_title(course, focus);
    let why = match (&policy.prereq_blocking_unit_id, input.focus_tier) {
        (Some(_), _) => {
            format!("{} builds on it, and it has no tier yet, so it comes first", unit_title(course, target))
        }
        (None, MasteryTier::None) if course.prerequisites(focus).is_empty() => {
            "it needs nothing before it: it is where the course starts".to_string()
        }
        (None, MasteryTier::None) => "everything it builds on already has a tier".to_string(),
        (None, MasteryTier::Gold) => "it is the next one short of gold".to_string(),
        (None, tier) => {
            format!("you have {} in it, and {} is the next tier to earn", tier.name(), input.policy.desired_exam_tier)
        }
    };
    let (gist, sources) = gist(input, focus);
    let text = format!("Next is {title}: {why}. {gist}Pick it below to start, or ask for a drill on it.");
    let mut offered = vec![focus];
    if target != focus {
        offered.push(target);
    }
    (text.replace("  ", " "), choices(course, focus, &offered), sources)
}

/// "I already know this": the check that would prove it.
fn prove_it(input: &FallbackInput<'_>) -> FallbackTurn {
    let (course, policy) = (input.course, input.policy);
    let focus = policy.focus_unit_id.clone();
    let title = unit_title(course, &focus);
    let tier = policy.desired_exam_tier;
    let turn = |action, text: String, card| FallbackTurn {
        action,
        target_unit_id: focus.clone(),
        tutor_text: text,
        card,
        sources: Vec::new(),
    };
    if policy.allows(Action::ExamBlock) {
        if let Some(card) = input.exam_candidates.first().and_then(|q| exam_card(course, q, &focus)) {
            return turn(
                Action::ExamBlock,
                format!("Then let's prove it: here is the {tier} check on {title}. Answer it right to earn {tier}."),
                Some(card),
            );
        }
    }
    if policy.allows(Action::DrillCard) {
        if let Some(card) = blueprint_drill(input) {
            return turn(
                Action::DrillCard,
                format!(
                    "Then let's prove it: two right drills in a row on {title} open its {tier} check, and the check \
                     earns {tier}. Here is the first."
                ),
                Some(card),
            );
        }
    }
    turn(
        Action::SocraticQuestion,
        format!("Then tell me, in your own words, what {title} is about, and I will tell you what to try next."),
        None,
    )
}

/// "Something else": the other units the learner can start now.
fn elsewhere(input: &FallbackInput<'_>) -> (String, Option<TutorCard>) {
    let course = input.course;
    let focus = input.policy.focus_unit_id.as_str();
    let open: Vec<&str> =
        input.open_units.iter().map(String::as_str).filter(|u| *u != focus).take(MAX_CHOICES).collect();
    if open.is_empty() {
        let (text, card) = menu(input, None);
        return (
            format!("Everything else in the course builds on {}, so it stays next. {text}", unit_title(course, focus)),
            card,
        );
    }
    let titles: Vec<String> = open.iter().map(|u| unit_title(course, u)).collect();
    let titles: Vec<&str> = titles.iter().map(String::as_str).collect();
    (
        format!(
            "Sure. You can start {} now: pick one below. Or ask me anything about {}.",
            join_or(&titles),
            course.title()
        ),
        choices(course, focus, &open),
    )
}

/// What the tutor can do here, with the unit it is on (and the goal) to pick. `unplaced` is
/// the learner's words it could not place, quoted first.
fn menu(input: &FallbackInput<'_>, unplaced: Option<&str>) -> (String, Option<TutorCard>) {
    let (course, policy) = (input.course, input.policy);
    let focus = policy.focus_unit_id.as_str();
    let lead = unplaced.map(|w| format!("I am not sure what you mean by {}. ", quote(w))).unwrap_or_default();
    let text = format!(
        "{lead}Here is what I can do: answer a question about {} in your own words (“why …?”, \
         “what is …?”), explain a unit, give you a drill, an example or a hint, check what you \
         already know, and tell you what comes next. We are on {}: pick it below, or just ask.",
        course.title(),
        unit_title(course, focus)
    );
    let mut offered = vec![focus];
    if policy.primary_target_unit_id != focus {
        offered.push(policy.primary_target_unit_id.as_str());
    }
    (text, choices(course, focus, &offered))
}

/// A `CHOICES` card offering `units` (those of the course).
fn choices(course: &Course, focus: &str, units: &[&str]) -> Option<TutorCard> {
    let choices: Vec<UnitChoice> = units
        .iter()
        .filter_map(|u| course.unit(u))
        .map(|u| UnitChoice { unit_id: u.id.clone(), title: u.title.clone() })
        .collect();
    (!choices.is_empty()).then(|| TutorCard::Choices { unit_id: focus.to_string(), choices })
}

/// The help ladder's next rung on the focus unit as a concept card (or, where the policy does
/// not allow one, as a question quoting it), with what the tutor says first.
fn help_card(input: &FallbackInput<'_>, first: Option<Rung>) -> Option<(String, Option<TutorCard>, Vec<Source>)> {
    let unit = input.course.unit(&input.policy.focus_unit_id)?;
    // A different seed from the turn's drill, so that the example does not answer it.
    let computed = blueprint_item(input, unit, input.seed.rotate_left(17) ^ 0x5eed).map(|item| WorkedExample {
        problem_latex: latex_text(&item.stem),
        final_answer_latex: latex_text(&item.key.answer),
        steps_latex: Vec::new(),
    });
    let budget = input.policy.constraints.max_concept_words as usize;
    let help = next_rung(input.course, &unit.id, input.shown, first, computed, budget)?;
    if input.policy.allows(Action::ConceptCard) {
        let card = TutorCard::Concept {
            unit_id: unit.id.clone(),
            key_ideas: help.key_ideas,
            worked_example: help.worked_example,
            sources: help.sources.clone(),
        };
        return Some((format!("{} Then try a drill.", help.lead), Some(card), help.sources));
    }
    let ideas = quoted(&help.key_ideas);
    Some((format!("{} {ideas} Which part of it is unclear?", help.lead), None, help.sources))
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
    // A computed drill is new each time; one that came out as the drill just asked is drawn again.
    let computed = || {
        blueprint_item(input, unit, input.seed)
            .filter(|item| !input.shown.is_last_drill(&item.stem))
            .or_else(|| blueprint_item(input, unit, input.seed.wrapping_add(1)))
    };
    let item = if computed_first {
        computed().or_else(|| written_drill(input, unit))
    } else {
        written_drill(input, unit).or_else(computed)
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

/// One of the unit's written drills, by the turn's seed: one the thread has not asked lately
/// where there is one, and never the one just asked when there is another.
fn written_drill(input: &FallbackInput<'_>, unit: &UnitSpec) -> Option<pathwise_items::Item> {
    let drills = input.course.written_drills(&unit.id);
    let count = drills.len();
    if count == 0 {
        return None;
    }
    let start = (input.seed % count as u64) as usize;
    let in_turn = || (0..count).map(|i| &drills[(start + i) % count]);
    in_turn()
        .find(|d| !input.shown.drill_asked(&d.stem))
        .or_else(|| in_turn().find(|d| !input.shown.is_last_drill(&d.stem)))
        .or_else(|| drills.get(start))
        .cloned()
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
        // Asked to practise one unit and given a drill on another: say why.
        return format!(
            "{target} builds on {title}, which has no tier yet, so {title} comes first. {lead}, on {title}."
        );
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
            let (text, card) = menu(input, input.words);
            return (text, card);
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

fn socratic_text(input: &FallbackInput<'_>) -> (String, Vec<Source>) {
    let (course, policy) = (input.course, input.policy);
    let focus = course.unit(&policy.focus_unit_id);
    let focus_title = unit_title(course, &policy.focus_unit_id);
    let (gist, sources) = gist(input, &policy.focus_unit_id);
    if let ClientEvent::DrillStuck { .. } = input.event {
        let slip = focus
            .and_then(|u| {
                u.misconceptions.iter().find(|m| !input.shown.has_sentence(&format!("A common slip here: {m}")))
            })
            .map(|m| format!("A common slip here: {} ", ensure_period(m)))
            .unwrap_or_default();
        return (
            format!("Let's take it one step at a time. {slip}{gist}What is the very first step you would take?"),
            sources,
        );
    }
    if policy.focus_unit_id != policy.primary_target_unit_id && !input.named {
        let target = unit_title(course, &policy.primary_target_unit_id);
        return (
            format!("Before {target}, let's make sure {focus_title} is solid. {gist}How would you explain it in your own words?"),
            sources,
        );
    }
    (
        format!(
            "Let's look at {focus_title}. {gist}What do you already know about it, or where does it get confusing?"
        ),
        sources,
    )
}

/// The first sentence of a unit's material the thread has not shown lately, quoted, with a
/// space after it, and the passage it is from; empty when every sentence was shown.
fn gist(input: &FallbackInput<'_>, unit: &str) -> (String, Vec<Source>) {
    let Some(spec) = input.course.unit(unit) else { return (String::new(), Vec::new()) };
    let anchor = crate::answer::sentences(&spec.anchor);
    let first_unshown = anchor
        .iter()
        .filter(|s| !s.ends_with('\u{2026}'))
        .find(|s| !input.shown.has_sentence(s))
        .cloned()
        .map(|s| (s, None))
        .or_else(|| {
            input.course.chunks().iter().enumerate().filter(|(_, c)| c.unit == unit).find_map(|(i, c)| {
                crate::answer::sentences(&c.text)
                    .into_iter()
                    .find(|s| crate::answer::word_count(s) >= 4 && !input.shown.has_sentence(s))
                    .map(|s| (s, Some(i)))
            })
        });
    let Some((sentence, chunk)) = first_unshown else { return (String::new(), Vec::new()) };
    let chunk = chunk.or_else(|| {
        let squeezed = crate::shown::squeeze(&sentence);
        input.course.chunks().iter().position(|c| c.unit == unit && crate::shown::squeeze(&c.text).contains(&squeezed))
    });
    let sources = chunk.and_then(|c| input.course.source_at(c)).into_iter().collect();
    (format!("{} ", ensure_period(&sentence)), sources)
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
