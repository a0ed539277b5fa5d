//! The courses shipped with Pathwise are complete enough to teach and examine with: 15 or
//! more units, each with an anchor, teaching content and at least three exam questions per
//! tier; drill blueprints for most units.

use pathwise_course::{builtin_courses, Tier};
use pathwise_items::{Band, Library, Target};
use std::collections::HashSet;

#[test]
fn shipped_courses_are_valid_and_complete() {
    let courses = builtin_courses(&Library::builtin());
    assert!(courses.len() >= 2, "at least two courses ship");
    let ids: HashSet<&str> = courses.iter().map(|c| c.id()).collect();
    assert_eq!(ids.len(), courses.len(), "course ids are unique");
    for course in &courses {
        let name = course.id();
        assert!(course.units().len() >= 15, "{name}: {} units, 15 or more wanted", course.units().len());
        let mut with_drills = 0;
        for unit in course.units() {
            assert!(unit.anchor.split_whitespace().count() >= 12, "{name}/{}: the anchor is too short", unit.id);
            assert!(!unit.tags.is_empty(), "{name}/{}: no tags", unit.id);
            assert!(!unit.misconceptions.is_empty(), "{name}/{}: no misconceptions", unit.id);
            let chunks = course.chunks().iter().filter(|c| c.unit == unit.id).count();
            assert!(chunks >= 2, "{name}/{}: {chunks} content chunks, 2 or more wanted", unit.id);
            for tier in Tier::ALL {
                let n = course.questions_for(&unit.id, tier).count();
                assert!(n >= 3, "{name}/{}: {n} {tier} exam questions, 3 or more wanted", unit.id);
            }
            if !unit.blueprints.is_empty() {
                with_drills += 1;
                for skill in &unit.blueprints {
                    let item = course.library().generate(skill, 7, Target::Band(Band::Medium));
                    assert!(item.is_ok(), "{name}/{}: blueprint {skill} does not generate: {item:?}", unit.id);
                }
            }
        }
        assert!(
            with_drills * 3 >= course.units().len() * 2,
            "{name}: only {with_drills} of {} units have drill blueprints; two thirds or more wanted",
            course.units().len()
        );
        for q in course.questions() {
            assert!(q.options.len() >= 3, "{name}/{}: exam questions offer 3 or more options", q.id);
            assert!(q.memo.split_whitespace().count() >= 8, "{name}/{}: the memo is too short", q.id);
        }
    }
}
