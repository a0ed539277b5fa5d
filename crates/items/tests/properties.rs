//! Properties over all built-in skills, seeds and targets.

mod support;

use pathwise_items::{Answer, Band, InlineItem, Item, Library, Pack, PackFormat, SessionItems, Target};
use proptest::prelude::*;
use std::collections::HashSet;
use std::sync::OnceLock;

fn library() -> &'static Library {
    static LIBRARY: OnceLock<Library> = OnceLock::new();
    LIBRARY.get_or_init(Library::builtin)
}

fn skill_ids() -> Vec<String> {
    library().skills().map(|s| s.id().to_string()).collect()
}

fn target() -> impl Strategy<Value = Target> {
    prop_oneof![
        prop::sample::select(Band::ALL.to_vec()).prop_map(Target::Band),
        (0u32..=100).prop_map(|h| Target::difficulty(f64::from(h) / 100.0).unwrap()),
    ]
}

fn generated() -> impl Strategy<Value = Item> {
    (prop::sample::select(skill_ids()), any::<u64>(), target())
        .prop_map(|(skill, seed, target)| library().generate(&skill, seed, target).unwrap())
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(512))]

    #[test]
    fn the_key_is_always_among_distinct_options_and_scores(item in generated()) {
        support::assert_sound(&item);
        if let Some(key) = item.key.choice {
            prop_assert!(key < item.options.len());
            prop_assert_eq!(&item.options[key], &item.key.answer);
        }
    }

    #[test]
    fn regenerating_an_id_gives_the_identical_item(item in generated()) {
        let again = library().regenerate(&item.id).unwrap();
        prop_assert_eq!(&again, &item);
        // Through storage too.
        let stored: Item = serde_json::from_str(&serde_json::to_string(&item).unwrap()).unwrap();
        prop_assert_eq!(stored, item);
    }

    #[test]
    fn band_targets_give_items_of_that_band(skill in prop::sample::select(skill_ids()), seed in any::<u64>(), band in prop::sample::select(Band::ALL.to_vec())) {
        let blueprint = library().skill(&skill).unwrap();
        let item = blueprint.generate(seed, Target::Band(band)).unwrap();
        if blueprint.can_produce(band) {
            prop_assert_eq!(item.band(), band, "{}", item.id);
        }
        prop_assert!((item.irt.b - 4.0 * (item.difficulty - 0.5)).abs() < 1e-12);
    }

    #[test]
    fn items_are_unique_within_a_session(seed in any::<u64>(), target in target()) {
        let mut session = SessionItems::new();
        let mut keys = HashSet::new();
        let skills = ["MATH.ARITH.ADD.2DIGIT", "MATH.ARITH.ADD.2DIGIT.TYPED", "MATH.ALG.LINEAR.CHOICE", "NET.IP.SUBNET.CALC", "MATH.FRAC.ADD", "NET.BIN.OCTET", "MATH.NUM.PLACEVALUE.CHOICE"];
        for skill in skills {
            let blueprint = library().skill(skill).unwrap();
            for i in 0..12u64 {
                // The same seed every time: only the session's memory makes them differ.
                let item = session.generate(blueprint, seed.wrapping_add(i % 2), target).unwrap();
                prop_assert!(keys.insert(item.content_key.clone()), "{} repeats", item.id);
                prop_assert_eq!(library().regenerate(&item.id).unwrap(), item);
            }
        }
        prop_assert_eq!(session.len(), 12 * skills.len());
    }

    #[test]
    fn any_typed_answer_is_checked_without_panicking(item in generated(), text in ".{0,40}") {
        if item.code.is_none() {
            let check = item.check(&Answer::Text(text)).unwrap();
            prop_assert!(check.credit == 0.0 || check.credit == 1.0);
        }
    }

    #[test]
    fn equivalent_numbers_are_accepted(seed in any::<u64>()) {
        let item = library().generate("MATH.ALG.LINEAR.TWOSTEP", seed, Target::Band(Band::Medium)).unwrap();
        let x: i64 = item.key.answer.parse().unwrap();
        for form in [format!("x = {x}"), format!("x={x}"), format!("{x}.0"), format!("{}/2", 2 * x), format!(" {x} ")] {
            let check = item.check(&Answer::Text(form.clone())).unwrap();
            prop_assert!(check.correct, "{}", form);
        }
        let wrong = format!("x = {}", x + 1);
        let check = item.check(&Answer::Text(wrong)).unwrap();
        prop_assert!(!check.correct);
    }

    #[test]
    fn arbitrary_pack_text_is_refused_or_loaded_without_panicking(text in ".{0,200}") {
        let _ = Pack::parse(&text, PackFormat::Toml);
        let _ = Pack::parse(&text, PackFormat::Json);
    }

    #[test]
    fn inline_items_validate_their_choices(
        options in prop::collection::vec("[a-z]{1,5}", 0..8),
        correct in -2i64..9,
    ) {
        let inline = InlineItem {
            stem: "Pick one".into(),
            options: Some(options.clone()),
            correct: correct.into(),
            difficulty: None,
            a: None,
            skill_domain: None,
            time_limit_seconds: None,
            evaluation: None,
        };
        let distinct = options.iter().collect::<HashSet<_>>().len() == options.len();
        match inline.to_item() {
            Ok(item) => {
                prop_assert!((2..=6).contains(&options.len()) && distinct);
                prop_assert_eq!(item.key.choice, Some(correct as usize));
                prop_assert!(item.check(&Answer::Choice(correct as usize)).unwrap().correct);
                support::assert_presented_has_no_answer(&item);
            }
            Err(_) => prop_assert!(!(2..=6).contains(&options.len()) || !distinct || correct < 0 || correct as usize >= options.len()),
        }
    }
}
