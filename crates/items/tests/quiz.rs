//! The phase 1A success criteria (session-flow.md 14): a 10-item arithmetic quiz from the
//! built-in library, every item unique, scored 100% accurately, answers never in what is
//! presented.

mod support;

use pathwise_items::{Answer, Band, Item, Library, Selection};
use std::collections::HashSet;

fn quiz(library: &Library, seed: u64) -> Vec<Item> {
    library.plan_form("MATH-ARITH-QUIZ-10", seed).unwrap()
}

#[test]
fn a_ten_item_quiz_scores_every_answer_exactly() {
    let library = Library::builtin();
    for seed in 0..50 {
        let items = quiz(&library, seed);
        assert_eq!(items.len(), 10);
        let unique: HashSet<&str> = items.iter().map(|i| i.content_key.as_str()).collect();
        assert_eq!(unique.len(), 10, "seed {seed}");
        let ids: HashSet<&str> = items.iter().map(|i| i.id.as_str()).collect();
        assert_eq!(ids.len(), 10);
        let mut score = 0.0;
        for item in &items {
            support::assert_sound(item);
            let key = item.key.choice.unwrap();
            score += item.check(&Answer::Choice(key)).unwrap().credit;
            for wrong in (0..item.options.len()).filter(|i| *i != key) {
                assert!(!item.check(&Answer::Choice(wrong)).unwrap().correct);
            }
        }
        assert_eq!(score, 10.0, "seed {seed}");
    }
}

#[test]
fn the_quiz_follows_its_sections_and_difficulty_distribution() {
    let library = Library::builtin();
    for seed in 0..50 {
        let items = quiz(&library, seed);
        let (addition, subtraction) = items.split_at(5);
        assert!(addition.iter().all(|i| i.blueprint_id.starts_with("MATH.ARITH.ADD.")));
        assert!(subtraction.iter().all(|i| i.blueprint_id.starts_with("MATH.ARITH.SUB.")));
        for section in [addition, subtraction] {
            let bands: Vec<Band> = section.iter().map(Item::band).collect();
            assert_eq!(bands, [Band::Easy, Band::Easy, Band::Medium, Band::Medium, Band::Hard], "seed {seed}");
        }
    }
}

#[test]
fn random_forms_differ_between_sessions_and_fixed_forms_do_not() {
    let library = Library::builtin();
    assert_eq!(library.assessment("MATH-ARITH-QUIZ-10").unwrap().selection(), Selection::RandomFromPool);
    let a: Vec<String> = quiz(&library, 1).into_iter().map(|i| i.id).collect();
    let b: Vec<String> = quiz(&library, 2).into_iter().map(|i| i.id).collect();
    assert_ne!(a, b);
    assert_eq!(a, quiz(&library, 1).into_iter().map(|i| i.id).collect::<Vec<_>>());

    let fixed = |seed| library.plan_form("MATH-FUNDAMENTALS-L1", seed).unwrap();
    let first = fixed(1);
    assert_eq!(first.len(), 20);
    assert_eq!(first, fixed(99));
    for item in &first {
        support::assert_sound(item);
    }
}

#[test]
fn every_planned_item_regenerates_from_its_id() {
    let library = Library::builtin();
    for id in ["MATH-ARITH-QUIZ-10", "MATH-FUNDAMENTALS-L1", "NET-SUBNETTING-8", "PROG-PYTHON-BASICS"] {
        for item in library.plan_form(id, 7).unwrap() {
            assert_eq!(library.regenerate(&item.id).unwrap(), item);
        }
    }
}

#[test]
fn the_other_builtin_forms_are_sound() {
    let library = Library::builtin();
    for id in ["NET-SUBNETTING-8", "PROG-PYTHON-BASICS"] {
        for seed in 0..20 {
            let items = library.plan_form(id, seed).unwrap();
            let unique: HashSet<&str> = items.iter().map(|i| i.content_key.as_str()).collect();
            assert_eq!(unique.len(), items.len());
            items.iter().for_each(support::assert_sound);
        }
    }
}

#[test]
fn adaptive_assessments_give_candidates_spanning_difficulty() {
    let library = Library::builtin();
    let err = library.plan_form("MATH-ARITH-ADAPTIVE", 1).unwrap_err().to_string();
    assert!(err.contains("adaptive_candidates"), "{err}");
    let rules = library.assessment("MATH-ARITH-ADAPTIVE").unwrap().adaptive().unwrap();
    assert_eq!((rules.max_items, rules.min_items, rules.randomesque), (20, 8, 3));

    let candidates = library.adaptive_candidates("MATH-ARITH-ADAPTIVE", 5, 12).unwrap();
    let unique: HashSet<&str> = candidates.iter().map(|i| i.content_key.as_str()).collect();
    assert_eq!(unique.len(), candidates.len());
    for band in Band::ALL {
        assert!(candidates.iter().filter(|i| i.band() == band).count() >= 10, "{band}");
    }
    let bs: Vec<f64> = candidates.iter().map(|i| i.irt.b).collect();
    assert!(bs.iter().cloned().fold(f64::INFINITY, f64::min) < -1.0);
    assert!(bs.iter().cloned().fold(f64::NEG_INFINITY, f64::max) > 0.8);
    candidates.iter().for_each(support::assert_sound);
    // Thirteen skills, twelve each, less what tiny skills (1-digit facts) run out of.
    assert!(candidates.len() > 100, "{}", candidates.len());
}
