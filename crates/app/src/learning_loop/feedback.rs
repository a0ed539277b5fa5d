//! The sentences Pathwise writes to learners itself, rather than the model: feedback on a
//! drill, a flow's question and a session's item, a session's opening line for a concept,
//! an exam question's verdict, and review reminders. Pure and worded through
//! `pathwise_domain::wording`, so that one test renders every one of them (and the weekly
//! digest's) with every kind of value.

use chrono::{DateTime, Utc};
use pathwise_domain::wording::{count, join_and, tag_words, with_article};

/// A drill graded exactly: the right answer, and for a wrong one the mistake its answer
/// matches, by its tag (`off_by_1` reads "an off by 1 slip").
pub(crate) fn drill_feedback(correct: bool, expected: &str, mistake_tag: Option<&str>) -> String {
    match (correct, mistake_tag) {
        (true, _) => format!("Correct: {expected}."),
        (false, Some(tag)) => {
            format!("Not quite: the answer is {expected}. This looks like {} slip.", with_article(&tag_words(tag)))
        }
        (false, None) => format!("Not quite: the answer is {expected}."),
    }
}

/// A flow's choice question graded by its key; `key` is the right choice's text.
pub(crate) fn choice_feedback(correct: bool, key: &str) -> String {
    if correct {
        "Correct.".to_string()
    } else {
        format!("Not quite: the answer is \"{key}\".")
    }
}

/// A learning session's item, when no model words the feedback.
pub(crate) fn item_feedback(correct: bool, expected: &str) -> String {
    if correct {
        "Correct!".to_string()
    } else {
        format!("Not quite: the answer is {expected}.")
    }
}

/// A learning session's first item on a concept, when no model explains it.
pub(crate) fn practise_intro(concept: &str, description: Option<&str>) -> String {
    match description.map(str::trim).filter(|d| !d.is_empty()) {
        Some(description) => format!("Let's practise {concept}. {description}"),
        None => format!("Let's practise {concept}."),
    }
}

/// An exam question's verdict: passed at its tier, or locked (until when, if it says).
pub(crate) fn exam_verdict(passed: bool, tier: &str, locked_until: Option<DateTime<Utc>>) -> String {
    match (passed, locked_until) {
        (true, _) => format!("Correct: passed ({tier} tier)."),
        (false, Some(until)) => format!(
            "Not this time. The question is locked until {}; it goes on your revisit list.",
            until.format("%-d %B %Y, %H:%M UTC")
        ),
        (false, None) => "Not this time; it goes on your revisit list.".to_string(),
    }
}

/// A reminder that reviews are due: `(subject, body)` naming the concepts.
pub(crate) fn review_reminder<S: AsRef<str>>(labels: &[S]) -> (String, String) {
    match labels {
        [one] => (format!("Time to review: {}", one.as_ref()), format!("{} is due for review.", one.as_ref())),
        many => (
            format!("Time to review {}", count(many.len() as u64, "concept")),
            format!("These {} are due for review: {}.", count(many.len() as u64, "concept"), join_and(many)),
        ),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use chrono::{NaiveDate, TimeZone};
    use pathwise_analytics::digest::{render_text, DigestFacts, DigestMapFacts, NamedNode};
    use pathwise_domain::{MapStatus, MindMapId, NodeId};

    /// Values of every kind a template takes: words starting with a vowel and with a
    /// consonant, tags with underscores and digits, numbers.
    const TAGS: [&str; 7] = ["off_by_1", "sign_error", "8_bit_overflow", "unit_mixup", "place-value", "hour_hand", "x"];
    const WORDS: [&str; 6] = ["Exponents", "Fractions", "unit rates", "Order of operations", "11 times table", "42"];
    const COUNTS: [u32; 4] = [0, 1, 2, 11];

    /// Nouns the templates count; a count must agree with them.
    const NOUNS: [&str; 6] = ["concept", "review", "day", "question", "item", "answer"];

    /// What is wrong with the grammar of `text`: an article that does not fit the next
    /// word by its first letter (words that start with h or u are left alone, their sound
    /// varies), and a count that disagrees with its noun. Independent of the wording
    /// module, so that it checks it rather than repeats it.
    fn grammar_problems(text: &str) -> Vec<String> {
        let words: Vec<&str> = text.split_whitespace().collect();
        let mut problems = Vec::new();
        for pair in words.windows(2) {
            let (word, next) = (pair[0].to_lowercase(), pair[1].trim_start_matches(|c: char| !c.is_alphanumeric()));
            let first = next.chars().next().map(|c| c.to_ascii_lowercase());
            if word == "a" || word == "an" {
                let single_letter = next.chars().filter(|c| c.is_alphanumeric()).count() == 1
                    && first.is_some_and(|c| c.is_alphabetic());
                let wants_an = match first {
                    _ if single_letter => None, // read as the letter's name
                    Some('a' | 'e' | 'i' | 'o') => Some(true),
                    Some('8') => Some(true),
                    Some('1') if next.starts_with("11") || next.starts_with("18") => Some(true),
                    Some('h' | 'u') | None => None,
                    Some(_) => Some(false),
                };
                if wants_an.is_some_and(|an| an != (word == "an")) {
                    problems.push(format!("\"{} {next}\"", pair[0]));
                }
            }
            if let Ok(n) = word.trim_matches(|c: char| !c.is_ascii_digit()).parse::<u64>() {
                if word.chars().all(|c| c.is_ascii_digit()) {
                    let noun = next.trim_end_matches(|c: char| !c.is_alphanumeric()).to_lowercase();
                    for singular in NOUNS {
                        let plural = format!("{singular}s");
                        if (n == 1 && noun == plural) || (n != 1 && noun == singular) {
                            problems.push(format!("\"{n} {noun}\""));
                        }
                    }
                }
            }
        }
        problems
    }

    fn assert_well_worded(text: &str) {
        let problems = grammar_problems(text);
        assert!(problems.is_empty(), "{problems:?} in: {text}");
    }

    #[test]
    fn the_grammar_check_finds_what_it_should() {
        assert_eq!(grammar_problems("This looks like a off by 1 slip."), ["\"a off\""]);
        assert_eq!(grammar_problems("an sign error; a 8 bit value"), ["\"an sign\"", "\"a 8\""]);
        assert_eq!(grammar_problems("1 questions, 2 item, a item"), ["\"1 questions\"", "\"2 item\"", "\"a item\""]);
        assert!(grammar_problems("an off by 1 slip, a unit, an hour, 1 day, 0 days, 11 reviews").is_empty());
    }

    #[test]
    fn drill_feedback_names_the_slip_with_its_article() {
        assert_eq!(
            drill_feedback(false, "42", Some("off_by_1")),
            "Not quite: the answer is 42. This looks like an off by 1 slip."
        );
        assert_eq!(
            drill_feedback(false, "7", Some("sign_error")),
            "Not quite: the answer is 7. This looks like a sign error slip."
        );
        assert_eq!(
            drill_feedback(false, "256", Some("8_bit_overflow")),
            "Not quite: the answer is 256. This looks like an 8 bit overflow slip."
        );
        assert_eq!(
            drill_feedback(false, "3", Some("unit_mixup")),
            "Not quite: the answer is 3. This looks like a unit mixup slip."
        );
        assert_eq!(drill_feedback(true, "42", None), "Correct: 42.");
        assert_eq!(drill_feedback(false, "42", None), "Not quite: the answer is 42.");
    }

    #[test]
    fn reminders_agree_with_how_many_concepts_are_due() {
        assert_eq!(
            review_reminder(&["Exponents"]),
            ("Time to review: Exponents".to_string(), "Exponents is due for review.".to_string())
        );
        assert_eq!(
            review_reminder(&["Exponents", "Fractions"]),
            (
                "Time to review 2 concepts".to_string(),
                "These 2 concepts are due for review: Exponents and Fractions.".to_string()
            )
        );
        assert_eq!(review_reminder(&["a", "b", "c"]).1, "These 3 concepts are due for review: a, b and c.");
    }

    #[test]
    fn the_exam_verdict_says_when_a_question_opens_in_words() {
        let until = Utc.with_ymd_and_hms(2026, 3, 1, 18, 5, 0).unwrap();
        assert_eq!(
            exam_verdict(false, "silver", Some(until)),
            "Not this time. The question is locked until 1 March 2026, 18:05 UTC; it goes on your revisit list."
        );
        assert_eq!(exam_verdict(true, "bronze", None), "Correct: passed (bronze tier).");
    }

    fn digest(counts: u32, labels: &[&str]) -> DigestFacts {
        let day = NaiveDate::from_ymd_opt(2026, 3, 1).unwrap();
        let total = counts as usize;
        let map = |title: &str| DigestMapFacts {
            map_id: MindMapId(uuid::Uuid::nil()),
            title: title.to_string(),
            status: MapStatus::Active,
            snapshot_date: day,
            total_nodes: total,
            mastered_nodes: total.min(1),
            mastery_pct: 0.5,
            newly_mastered: Some(counts),
            answers_this_week: counts,
            sessions_this_week: total,
            completed: false,
            retention_rate_7d: Some(0.5),
            avg_quality_score: Some(3.0),
            trend: None,
            struggling: labels
                .iter()
                .map(|l| NamedNode { id: NodeId(uuid::Uuid::nil()), label: l.to_string() })
                .collect(),
            reviews_due_next_week: counts,
            estimated_completion_days: Some(counts),
        };
        DigestFacts {
            learner_name: Some("Ada".into()),
            week_start: day - chrono::Duration::days(7),
            week_end: day,
            streak_days: Some(counts),
            newly_mastered: counts,
            reviews_due_next_week: counts,
            maps: WORDS.iter().take(2).map(|t| map(t)).collect(),
        }
    }

    /// Every template, with every kind of value, reads as English: articles fit, counts
    /// agree with their nouns, lists are joined with "and".
    #[test]
    fn every_template_is_well_worded_with_every_kind_of_value() {
        let mut rendered = Vec::new();
        for tag in TAGS {
            for word in WORDS {
                rendered.push(drill_feedback(false, word, Some(tag)));
            }
        }
        for word in WORDS {
            for correct in [true, false] {
                rendered.push(drill_feedback(correct, word, None));
                rendered.push(choice_feedback(correct, word));
                rendered.push(item_feedback(correct, word));
                rendered.push(exam_verdict(correct, "gold", None));
            }
            rendered.push(practise_intro(word, Some("An exponent says how many times to multiply.")));
            rendered.push(practise_intro(word, None));
        }
        for n in 1..=4 {
            let (subject, body) = review_reminder(&WORDS[..n]);
            rendered.extend([subject, body]);
        }
        for n in COUNTS {
            for labels in [&WORDS[..0], &WORDS[..1], &WORDS[..3]] {
                let (subject, body) = render_text(&digest(n, labels));
                rendered.extend([subject, body]);
            }
        }
        for text in &rendered {
            assert_well_worded(text);
            assert!(!text.contains('_'), "a tag left as a tag: {text}");
        }
        // The lists and counts themselves, in full.
        let (_, body) = render_text(&digest(1, &WORDS[..3]));
        assert!(body.contains("Exponents: 1 of 1 concept mastered (50%), 1 new this week."), "{body}");
        assert!(body.contains("- Needs more work: Exponents, Fractions and unit rates."), "{body}");
        assert!(body.contains("- 1 review due in the coming week."), "{body}");
        assert!(body.contains("In all: 1 concept mastered this week, 1 review due in the coming week."), "{body}");
        let (subject, body) = render_text(&digest(0, &[]));
        assert_eq!(subject, "Your learning week");
        assert!(body.contains("Exponents: 0 of 0 concepts mastered (50%)."), "{body}");
        assert!(body.contains("In all: 0 concepts mastered this week, 0 reviews due in the coming week."), "{body}");
    }
}
