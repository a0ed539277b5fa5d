//! Checks every test file applies to generated items.
#![allow(dead_code)]

use pathwise_items::{Answer, Item, ItemType};
use std::collections::BTreeSet;

/// The item's key is right where it says, its canonical answer scores full credit, every
/// other option scores nothing (chosen or typed), options are distinct, and the presented
/// view holds no answer.
pub fn assert_sound(item: &Item) {
    assert!((0.0..=1.0).contains(&item.difficulty), "{}: difficulty {}", item.id, item.difficulty);
    assert!(
        !item.stem.contains('{') && !item.stem.contains('}') || item.item_type == ItemType::CodeEditor,
        "{}",
        item.stem
    );
    match item.item_type {
        ItemType::MultipleChoice => {
            let key = item.key.choice.expect("a choice item has a key index");
            assert_eq!(item.options[key], item.key.answer, "{}", item.id);
            let distinct: BTreeSet<&String> = item.options.iter().collect();
            assert_eq!(distinct.len(), item.options.len(), "{}: {:?}", item.id, item.options);
            for (i, option) in item.options.iter().enumerate() {
                let chosen = item.check(&Answer::Choice(i)).unwrap();
                let typed = item.check(&Answer::Text(option.clone())).unwrap();
                assert_eq!(chosen.correct, i == key, "{}: option {i} {option}", item.id);
                assert_eq!(typed.correct, i == key, "{}: typed option {option} (key {})", item.id, item.key.answer);
                assert_eq!(chosen.credit, if i == key { 1.0 } else { 0.0 });
                assert_eq!(chosen.expected, item.key.answer);
            }
            let err = item.check(&Answer::Choice(item.options.len())).unwrap_err().to_string();
            assert!(err.contains(&format!("allowed: 0-{}", item.options.len() - 1)), "{err}");
        }
        ItemType::FreeText => {
            assert!(item.options.is_empty());
            let check = item.check(&Answer::Text(item.key.answer.clone())).unwrap();
            assert!(check.correct && check.credit == 1.0, "{}: {}", item.id, item.key.answer);
            assert!(!item.check(&Answer::Text("not an answer".into())).unwrap().correct);
        }
        ItemType::CodeEditor => {
            assert!(item.check(&Answer::Text("def f(): pass".into())).is_err());
            let n = item.tests().len();
            assert!(n >= 3);
            assert!(item.check_tests(n, n).unwrap().correct);
        }
    }
    assert_presented_has_no_answer(item);
}

/// The presented view's JSON has only the fields meant for the learner, and for code only
/// the visible tests.
pub fn assert_presented_has_no_answer(item: &Item) {
    let presented = serde_json::to_value(item.presented()).unwrap();
    let fields: BTreeSet<&str> = presented.as_object().unwrap().keys().map(String::as_str).collect();
    let allowed: BTreeSet<&str> =
        ["item_id", "item_type", "present_using", "stem", "options", "time_limit_seconds", "code"].into();
    assert!(fields.is_subset(&allowed), "{fields:?}");
    let text = presented.to_string();
    for leaked in ["\"key\"", "\"answer\"", "\"choice\"", "\"difficulty\"", "\"generation_params\"", "\"tests\""] {
        assert!(!text.contains(leaked), "{} leaks {leaked}: {text}", item.id);
    }
    if let Some(code) = &item.code {
        let shown = presented["code"]["examples"].as_array().map_or(0, Vec::len);
        assert_eq!(shown, code.visible_tests);
        for hidden in &code.tests[code.visible_tests..] {
            if code.tests[..code.visible_tests].iter().any(|t| t.input == hidden.input) {
                continue;
            }
            let input = serde_json::to_string(&hidden.input).unwrap();
            assert!(!text.contains(&input), "{}: hidden test {input} is shown", item.id);
        }
    }
}
