//! Naming the mistake behind a wrong answer: `diagnose` finds the distractor strategy that
//! gives a typed answer. The mistakes are made here from the item's number with strings,
//! independently of the generators, and typed as a learner would write them.

use pathwise_items::{Answer, Band, Item, Library, Target};
use std::collections::BTreeMap;

const PLACES: [&str; 9] = [
    "ones",
    "tens",
    "hundreds",
    "thousands",
    "ten thousands",
    "hundred thousands",
    "millions",
    "ten millions",
    "hundred millions",
];

fn items(library: &Library, prefix: &str, seeds: u64) -> Vec<Item> {
    let mut out = Vec::new();
    for skill in library.skills().filter(|s| s.id().starts_with(prefix)) {
        for seed in 0..seeds {
            for band in Band::ALL {
                out.push(skill.generate(seed, Target::Band(band)).unwrap());
            }
        }
    }
    assert!(!out.is_empty(), "no skill starts with {prefix}");
    out
}

/// `bits` with the character at `i` replaced.
fn with_char(bits: &str, i: usize, c: char) -> String {
    bits.char_indices().map(|(j, b)| if j == i { c } else { b }).collect()
}

fn value_of(bits: &str) -> u64 {
    u64::from_str_radix(bits, 2).unwrap()
}

/// The mistakes of a binary question, in the order the generator tries its strategies,
/// each with the bit strings it writes.
fn bit_mistakes(bits: &str, octet: bool) -> Vec<(&'static str, Vec<String>)> {
    let len = bits.len();
    let reversed: String = bits.chars().rev().collect();
    let shifted = if octet {
        vec![format!("{}0", &bits[1..]), format!("0{}", &bits[..len - 1])]
    } else {
        vec![format!("{bits}0"), bits[..len - 1].to_string()]
    };
    let flipped = |from: char, to: char| -> Vec<String> {
        bits.char_indices().filter(|(_, b)| *b == from).map(|(i, _)| with_char(bits, i, to)).collect()
    };
    let mut mistakes = Vec::new();
    if octet {
        mistakes.push(("missing_leading_zeros", vec![bits.trim_start_matches('0').to_string()]));
    }
    mistakes.push(("reversed_bit_order", vec![reversed]));
    if !octet {
        // A 0 with a 1 somewhere to its right left out.
        let placeholders = bits
            .char_indices()
            .filter(|(i, b)| *b == '0' && bits[i + 1..].contains('1'))
            .map(|(i, _)| format!("{}{}", &bits[..i], &bits[i + 1..]))
            .collect();
        mistakes.push(("missing_zero_placeholder", placeholders));
    }
    mistakes.push(("off_by_power", shifted));
    mistakes.push(("dropped_bit", flipped('1', '0')));
    mistakes.push(("extra_bit", flipped('0', '1')));
    // No strategy gives 0, so none is named for it.
    for (_, answers) in &mut mistakes {
        answers.retain(|a| !a.is_empty() && value_of(a) > 0);
    }
    mistakes
}

/// The same mistakes made reading a binary number: their decimal values, and off by one.
fn decimal_mistakes(bits: &str) -> Vec<(&'static str, Vec<String>)> {
    let n = value_of(bits);
    let mut mistakes: Vec<(&str, Vec<String>)> = bit_mistakes(bits, false)
        .into_iter()
        .filter(|(s, _)| *s != "missing_zero_placeholder")
        .map(|(s, answers)| (s, answers.iter().map(|a| value_of(a).to_string()).collect()))
        .collect();
    // Read with place values 256 down to 2 (or 64 down to 1/2), a number is doubled (halved).
    mistakes[1].1 = [2 * n, n / 2].iter().filter(|v| **v > 0).map(u64::to_string).collect();
    mistakes.push(("off_by_1", vec![(n + 1).to_string(), (n - 1).to_string()]));
    mistakes
}

/// The mistakes of a place-value question about the digit `place` places from the right.
fn place_mistakes(number: &str, place: usize, names: bool) -> Vec<(&'static str, Vec<String>)> {
    let digit = &number[number.len() - 1 - place..number.len() - place];
    let answer = |p: usize| if names { PLACES[p].to_string() } else { format!("{digit}{}", "0".repeat(p)) };
    let zeros = number[number.len() - place..].matches('0').count();
    let mut mistakes = Vec::new();
    if !names {
        mistakes.push(("digit_only", vec![digit.to_string()]));
    }
    mistakes.push(("missing_zero_placeholder", if zeros > 0 { vec![answer(place - zeros)] } else { vec![] }));
    mistakes.push(("counted_from_left", vec![answer(number.len() - 1 - place)]));
    let around = [place + 1, place - 1].into_iter().filter(|p| *p < PLACES.len());
    mistakes.push(("wrong_place", around.map(answer).collect()));
    mistakes
}

fn mistakes_of(item: &Item) -> Vec<(&'static str, Vec<String>)> {
    let p = &item.generation_params;
    let n = p["number"].as_u64().unwrap();
    match p["question"].as_str().unwrap() {
        "to_binary" => bit_mistakes(&format!("{n:b}"), false),
        "octet_to_binary" => bit_mistakes(&format!("{n:08b}"), true),
        "from_binary" => decimal_mistakes(&format!("{n:b}")),
        "octet_to_decimal" => {
            let mut mistakes = decimal_mistakes(&format!("{n:08b}"));
            // Reading an octet, every one of its eight bits may be misread.
            let bits = format!("{n:08b}");
            mistakes[0].1 = vec![value_of(&bits.chars().rev().collect::<String>()).to_string()];
            let flipped = |from: char, to: char| -> Vec<String> {
                let positions = bits.char_indices().filter(|(_, b)| *b == from);
                positions
                    .map(|(i, _)| value_of(&with_char(&bits, i, to)))
                    .filter(|v| *v > 0)
                    .map(|v| v.to_string())
                    .collect()
            };
            mistakes[2].1 = flipped('1', '0');
            mistakes[3].1 = flipped('0', '1');
            mistakes
        }
        "digit_value" => place_mistakes(&n.to_string(), p["place"].as_u64().unwrap() as usize, false),
        "place_name" => place_mistakes(&n.to_string(), p["place"].as_u64().unwrap() as usize, true),
        other => panic!("{other}"),
    }
}

/// Two answers a learner may give for the same thing: binary numbers of free width compare
/// by value, everything else as written.
fn same(item: &Item, a: &str, b: &str) -> bool {
    if item.generation_params["question"] == "to_binary" {
        value_of(a) == value_of(b)
    } else {
        a == b
    }
}

#[test]
fn a_typed_mistake_is_named_by_the_first_strategy_that_makes_it() {
    let library = Library::builtin();
    let mut named: BTreeMap<String, usize> = BTreeMap::new();
    let mut all = items(&library, "NET.BIN.", 60);
    all.extend(items(&library, "MATH.NUM.", 60));
    for item in &all {
        assert_eq!(library.diagnose(&item.id, &item.key.answer), None, "{}: the key is no mistake", item.stem);
        assert_eq!(library.diagnose(&item.id, "not an answer"), None);
        let mistakes = mistakes_of(item);
        for (i, (strategy, answers)) in mistakes.iter().enumerate() {
            for answer in answers {
                if item.check(&Answer::Text(answer.clone())).unwrap().correct {
                    // The mistake happens to give the right answer (a palindrome reversed).
                    continue;
                }
                let first = mistakes[..=i]
                    .iter()
                    .find(|(_, earlier)| earlier.iter().any(|e| same(item, e, answer)))
                    .map(|(s, _)| *s);
                assert_eq!(
                    library.diagnose(&item.id, answer),
                    first,
                    "{} (key {}): {answer} is a {strategy} mistake",
                    item.stem,
                    item.key.answer
                );
                *named.entry(format!("{} {}", item.generation_params["question"], first.unwrap())).or_default() += 1;
            }
        }
    }
    let expected = [
        "\"digit_value\" counted_from_left",
        "\"digit_value\" digit_only",
        "\"digit_value\" missing_zero_placeholder",
        "\"digit_value\" wrong_place",
        "\"from_binary\" dropped_bit",
        "\"from_binary\" extra_bit",
        "\"from_binary\" off_by_1",
        "\"from_binary\" off_by_power",
        "\"from_binary\" reversed_bit_order",
        "\"octet_to_binary\" dropped_bit",
        "\"octet_to_binary\" extra_bit",
        "\"octet_to_binary\" missing_leading_zeros",
        "\"octet_to_binary\" off_by_power",
        "\"octet_to_binary\" reversed_bit_order",
        "\"octet_to_decimal\" dropped_bit",
        "\"octet_to_decimal\" extra_bit",
        "\"octet_to_decimal\" off_by_1",
        "\"octet_to_decimal\" off_by_power",
        "\"octet_to_decimal\" reversed_bit_order",
        "\"place_name\" counted_from_left",
        "\"place_name\" missing_zero_placeholder",
        "\"place_name\" wrong_place",
        "\"to_binary\" dropped_bit",
        "\"to_binary\" extra_bit",
        "\"to_binary\" missing_zero_placeholder",
        "\"to_binary\" off_by_power",
        "\"to_binary\" reversed_bit_order",
    ];
    assert_eq!(named.keys().map(String::as_str).collect::<Vec<_>>(), expected, "every strategy is named somewhere");
}

#[test]
fn typed_forms_of_a_mistake_are_named_like_the_mistake() {
    let library = Library::builtin();
    let item = library.regenerate("NET.BIN.OCTET~s=3~d=easy").unwrap();
    let n = item.generation_params["number"].as_u64().unwrap();
    let reversed: String = format!("{n:08b}").chars().rev().collect();
    // In nibbles, with a prefix: still the bits in reverse order.
    let spaced = format!("0b{} {}", &reversed[..4], &reversed[4..]);
    if reversed != item.key.answer {
        assert_eq!(library.diagnose(&item.id, &spaced), Some("reversed_bit_order"), "{spaced} for {}", item.stem);
    }
    let item = library.regenerate("MATH.NUM.PLACEVALUE~s=5~d=medium").unwrap();
    let digit = item.generation_params["digit"].as_u64().unwrap();
    assert_eq!(library.diagnose(&item.id, &format!(" {digit}.0 ")), Some("digit_only"), "{}", item.stem);
}

#[test]
fn chosen_options_are_named_by_their_strategy() {
    let library = Library::builtin();
    for skill in ["NET.BIN.OCTET.CHOICE", "MATH.NUM.PLACEVALUE.CHOICE", "MATH.NUM.PLACENAME.CHOICE"] {
        let blueprint = library.skill(skill).unwrap();
        let strategies: Vec<&str> =
            blueprint.spec().presentation.distractor_strategies.iter().map(|s| s.name.as_str()).collect();
        let mut named = 0;
        for seed in 0..100 {
            let item = blueprint.generate(seed, Target::Band(Band::Medium)).unwrap();
            for option in item.options.iter().filter(|o| **o != item.key.answer) {
                // An option made by a strategy is named; one from the fallback run may be
                // named or not, but never as the key.
                if let Some(strategy) = library.diagnose(&item.id, option) {
                    assert!(item.check(&Answer::Text(option.clone())).is_ok_and(|c| !c.correct));
                    named += usize::from(strategies.contains(&strategy));
                }
            }
        }
        assert!(named >= 200, "{skill}: only {named} of 300 wrong options are named by the blueprint's strategies");
    }
}
