//! What the thread showed the learner lately, read from its latest messages, so that the
//! deterministic tutor does not say the same thing twice: the sentences it quoted, the help it
//! gave on each unit, and the drills it asked.

use crate::answer::sentences;
use crate::card::TutorCard;
use crate::help::Rung;
use std::collections::{HashMap, HashSet};

/// What the latest messages of a thread showed.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Shown {
    /// Sentences the tutor showed, squeezed (see [`squeeze`]).
    sentences: HashSet<String>,
    /// The rung of each unit's latest concept card.
    last_rung: HashMap<String, Rung>,
    /// Units whose worked example a card showed.
    examples: HashSet<String>,
    /// The prompts of the drills asked, oldest first.
    drills: Vec<String>,
}

impl Shown {
    /// Reads the tutor's messages, oldest first (the learner's own are passed over).
    pub fn from_messages<'a>(messages: impl IntoIterator<Item = (&'a str, &'a str, Option<TutorCard>)>) -> Shown {
        let mut shown = Shown::default();
        for (role, text, card) in messages {
            if role != "assistant" {
                continue;
            }
            shown.saw_text(text);
            match card {
                Some(TutorCard::Concept { unit_id, key_ideas, worked_example, .. }) => {
                    for idea in &key_ideas {
                        shown.saw_text(idea);
                    }
                    let rung = if worked_example.is_some() || text.contains("an example") {
                        Rung::Example
                    } else if key_ideas.iter().any(|k| k.starts_with(SLIP)) {
                        Rung::Slip
                    } else if text.contains(" builds on ") {
                        Rung::Prerequisite
                    } else {
                        Rung::Passage
                    };
                    shown.last_rung.insert(unit_id.clone(), rung);
                    if worked_example.is_some() {
                        shown.examples.insert(unit_id);
                    }
                }
                Some(TutorCard::Drill { prompt, .. }) => shown.drills.push(prompt),
                _ => {}
            }
        }
        shown
    }

    fn saw_text(&mut self, text: &str) {
        for sentence in sentences(&text.replace(['\u{201c}', '\u{201d}'], " ")) {
            self.sentences.insert(squeeze(&sentence));
            // A slip shown as "Watch out: X" showed X.
            if let Some(rest) = sentence.strip_prefix(SLIP) {
                self.sentences.insert(squeeze(rest));
            }
        }
        // A quotation inside a longer sentence of the tutor's own counts as shown whole.
        for quoted in text.split('\u{201c}').skip(1).filter_map(|q| q.split('\u{201d}').next()) {
            for sentence in sentences(quoted) {
                self.sentences.insert(squeeze(&sentence));
            }
        }
    }

    /// Whether the thread showed this sentence lately.
    pub fn has_sentence(&self, sentence: &str) -> bool {
        self.sentences.contains(&squeeze(sentence))
    }

    /// The rung of the latest help card on `unit`, if the thread showed one lately.
    pub fn last_rung(&self, unit: &str) -> Option<Rung> {
        self.last_rung.get(unit).copied()
    }

    pub fn example_shown(&self, unit: &str) -> bool {
        self.examples.contains(unit)
    }

    /// Whether `prompt` is the drill asked last.
    pub fn is_last_drill(&self, prompt: &str) -> bool {
        self.drills.last().is_some_and(|p| p == prompt)
    }

    /// Whether `prompt` was asked lately.
    pub fn drill_asked(&self, prompt: &str) -> bool {
        self.drills.iter().any(|p| p == prompt)
    }

    /// Records a sentence as shown (a turn that shows two things keeps them apart).
    pub fn add_sentence(&mut self, sentence: &str) {
        self.sentences.insert(squeeze(sentence));
    }
}

/// How a slip to watch for is introduced.
pub const SLIP: &str = "Watch out: ";

/// A sentence as compared: lowercased letters and digits, single spaces, no end stop.
pub fn squeeze(text: &str) -> String {
    text.to_lowercase().split(|c: char| !c.is_alphanumeric()).filter(|w| !w.is_empty()).collect::<Vec<_>>().join(" ")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_tutors_sentences_cards_and_drills_are_remembered() {
        let concept = TutorCard::Concept {
            unit_id: "U1".into(),
            key_ideas: vec!["Chloroplasts hold chlorophyll.".into()],
            worked_example: None,
            sources: vec![],
        };
        let drill = TutorCard::Drill {
            unit_id: "U1".into(),
            prompt: "Fill in the blank".into(),
            question_latex: String::new(),
            drill_id: None,
            options: vec![],
        };
        let shown = Shown::from_messages([
            ("user", "Leaves are green.", None),
            (
                "assistant",
                "Your material says: \u{201c}The stroma is a fluid. It surrounds them.\u{201d} Shall we go on?",
                None,
            ),
            ("assistant", "Here is the key idea.", Some(concept)),
            ("assistant", "Try this.", Some(drill)),
        ]);
        assert!(!shown.has_sentence("Leaves are green."), "the learner's words are theirs");
        assert!(shown.has_sentence("the stroma is a fluid"));
        assert!(shown.has_sentence("It surrounds them."));
        assert!(shown.has_sentence("Chloroplasts hold chlorophyll"));
        assert_eq!((shown.last_rung("U1"), shown.last_rung("U2")), (Some(Rung::Passage), None));
        assert!(shown.is_last_drill("Fill in the blank"));
    }
}
