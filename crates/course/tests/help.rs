//! Help when stuck is new each time: on a course made of a learner's notes, each card climbs a
//! rung (another passage, an example, the slip to watch for, the prerequisite's idea), never
//! shows a sentence the thread already showed, and cites the passage it quotes.

use pathwise_course::help::{next_rung, Help, Rung};
use pathwise_course::shown::Shown;
use pathwise_course::synthetic::notes_course;
use pathwise_course::{Course, TutorCard};

fn photosynthesis() -> Course {
    notes_course("notes.md", "Photosynthesis", include_str!("../../app/tests/fixtures/photosynthesis.md"))
}

/// The thread's messages so far, as the tutor's cards.
fn card(unit: &str, help: &Help) -> TutorCard {
    TutorCard::Concept {
        unit_id: unit.into(),
        key_ideas: help.key_ideas.clone(),
        worked_example: help.worked_example.clone(),
        sources: help.sources.clone(),
    }
}

/// Asks for help `times` times on `unit`, the thread showing each card, after the tutor's
/// question quoted `already`.
fn climb(course: &Course, unit: &str, already: &str, times: usize) -> Vec<Help> {
    let mut messages: Vec<(String, Option<TutorCard>)> = vec![(format!("Let's look at it. {already}"), None)];
    let mut given = Vec::new();
    for _ in 0..times {
        let shown = Shown::from_messages(messages.iter().map(|(t, c)| ("assistant", t.as_str(), c.clone())));
        let Some(help) = next_rung(course, unit, &shown, None, None, 170) else { break };
        messages.push((help.lead.clone(), Some(card(unit, &help))));
        given.push(help);
    }
    given
}

#[test]
fn each_rung_says_something_the_thread_has_not_shown() {
    let course = photosynthesis();
    let first = "The light-dependent reactions take place in the thylakoid membranes.";
    let given = climb(&course, "U2", first, 4);
    let rungs: Vec<Rung> = given.iter().map(|h| h.rung).collect();
    assert_eq!(rungs, [Rung::Passage, Rung::Slip, Rung::Prerequisite, Rung::Passage], "{given:#?}");
    let mut seen = vec![first.to_string()];
    for help in &given {
        for idea in &help.key_ideas {
            let plain = idea.trim_start_matches("Watch out: ").to_string();
            assert!(!seen.contains(&plain), "{plain:?} was shown already");
            seen.push(plain);
        }
        assert!(!help.sources.is_empty(), "{:?} cites its passage", help.rung);
        assert!(help.sources.iter().all(|s| s.citation.starts_with("notes.md, Photosynthesis")));
    }
    assert!(given[1].key_ideas[0].starts_with("Watch out: The oxygen that plants release comes from the water"));
    assert!(given[2].lead.starts_with("Light-dependent reactions builds on Chloroplasts"), "{}", given[2].lead);
    assert!(given[2].key_ideas[0].contains("chloroplasts"), "{:?}", given[2].key_ideas);
}

#[test]
fn an_example_is_the_materials_own_and_one_it_lacks_is_said_so() {
    let course = photosynthesis();
    let shown = Shown::default();
    let calvin = next_rung(&course, "U3", &shown, Some(Rung::Example), None, 170).unwrap();
    assert_eq!(calvin.rung, Rung::Example);
    assert!(calvin.key_ideas[0].starts_with("For example, six turns of the cycle"), "{:?}", calvin.key_ideas);
    let none = next_rung(&course, "U0", &shown, Some(Rung::Example), None, 170).unwrap();
    assert_ne!(none.rung, Rung::Example);
    assert!(none.lead.starts_with("Your material gives no example of Photosynthesis"), "{}", none.lead);
}

#[test]
fn once_everything_was_shown_it_is_summed_up_once_then_nothing_more() {
    let course = photosynthesis();
    let given = climb(&course, "U0", "", 6);
    let last = given.last().unwrap();
    assert!(last.lead.starts_with("That is everything your material says about Photosynthesis"), "{given:#?}");
    assert_eq!(last.key_ideas.len(), 3, "the unit's three sentences together");
    assert!(given.len() < 6, "after the summary there is nothing new to show");
}
