//! What an answer earns. Every kind of evidence a learner gives (an exam or session answer,
//! a drill, a choice, a free-text answer graded by the model or the caller, a concept the
//! diagnostic inferred, one of Anki's buttons, the learner's own rating) is mapped here, and
//! only here, to the quality that moves mastery and SM-2 and to the rating FSRS schedules by.
//! So the same success earns the same whatever door it came through.
//!
//! Where kinds differ it is deliberate:
//! - an answer recalled and typed, checked exactly, is the strongest evidence a check can
//!   give (5); one recognised among options shown is weaker (4). Right answers alone still
//!   reach the mastery threshold (0.85 needs recall: five right answers recognised among
//!   options score 0.8). No door gives a hint on a question still waiting for its answer
//!   (help in the tutor moves on to a fresh drill; an exam's memo locks its question for
//!   hours), so no right answer is marked down for one.
//! - FSRS reads a quality as a rating (0-2 Again, 3 Hard, 4 Good), but a 5 from a check
//!   is Good: Easy says the learner found it effortless, which only the learner (their own
//!   rating, Anki's Easy button) can say, never an automatic grade.

use crate::mastery::Quality;
use serde::{Deserialize, Serialize};
use utoipa::ToSchema;

/// FSRS's four ratings of a review.
#[derive(
    Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize, ToSchema, schemars::JsonSchema,
)]
#[serde(rename_all = "snake_case")]
pub enum Rating {
    Again,
    Hard,
    Good,
    Easy,
}

impl Rating {
    /// A rating the learner stated as a 0-5 quality (their own rating, a review log from
    /// elsewhere): 0-2 Again, 3 Hard, 4 Good, 5 Easy.
    pub fn stated(quality: Quality) -> Rating {
        match quality.value() {
            0..=2 => Rating::Again,
            3 => Rating::Hard,
            4 => Rating::Good,
            _ => Rating::Easy,
        }
    }

    /// The rating of an automatic grade: as stated, but never Easy.
    pub fn graded(quality: Quality) -> Rating {
        Rating::stated(quality).min(Rating::Good)
    }

    /// FSRS's rating number, 1 (Again) to 4 (Easy); also how the store keeps it.
    pub fn number(self) -> u8 {
        match self {
            Rating::Again => 1,
            Rating::Hard => 2,
            Rating::Good => 3,
            Rating::Easy => 4,
        }
    }

    /// The rating of FSRS's number 1-4, or `None`.
    pub fn from_number(number: i64) -> Option<Rating> {
        match number {
            1 => Some(Rating::Again),
            2 => Some(Rating::Hard),
            3 => Some(Rating::Good),
            4 => Some(Rating::Easy),
            _ => None,
        }
    }

    pub fn as_str(self) -> &'static str {
        match self {
            Rating::Again => "again",
            Rating::Hard => "hard",
            Rating::Good => "good",
            Rating::Easy => "easy",
        }
    }

    /// The rating of its name (`again`, `hard`, `good`, `easy`), or `None`.
    pub fn parse(name: &str) -> Option<Rating> {
        [Rating::Again, Rating::Hard, Rating::Good, Rating::Easy].into_iter().find(|r| r.as_str() == name)
    }
}

/// What a piece of evidence earns: the quality mastery and SM-2 read, the rating FSRS reads.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Earned {
    pub quality: Quality,
    pub rating: Rating,
}

/// How an answer Pathwise checks itself was given.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Form {
    /// Recalled and typed (a drill, a number, a word, code).
    Recalled,
    /// Recognised among options shown (a choice question, an exam's options).
    Recognised,
}

/// How a checked answer went.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Outcome {
    Right,
    /// Partly right: the share of the credit it earned, below 1.
    Partial(f64),
    Wrong,
    /// Passed over without an answer ("I don't know").
    Skipped,
}

impl Outcome {
    /// A check's verdict as an outcome: right, or wrong with the credit it earned.
    pub fn of(correct: bool, credit: f64) -> Outcome {
        if correct {
            Outcome::Right
        } else if credit > 0.0 {
            Outcome::Partial(credit)
        } else {
            Outcome::Wrong
        }
    }
}

/// One kind of evidence of what the learner knows.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Evidence {
    /// An answer Pathwise checked against a computed key.
    Checked { form: Form, outcome: Outcome },
    /// A free-text answer graded 0-5 by the model or by the caller for the learner.
    Graded(Quality),
    /// A free-text answer the model judged right or wrong, without saying how well.
    Judged { correct: bool },
    /// A concept below the diagnostic's boundary, inferred known without being asked.
    Inferred,
    /// One of Anki's answer buttons.
    Anki(AnkiButton),
    /// The learner's own 0-5 rating of their recall (a response recorded with its quality).
    OwnRating(Quality),
}

/// Anki's four answer buttons.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum AnkiButton {
    Again,
    Hard,
    Good,
    Easy,
}

impl AnkiButton {
    /// The button of a review log's `ease` (1 Again ... 4 Easy), or `None`.
    pub fn of_ease(ease: i64) -> Option<AnkiButton> {
        match ease {
            1 => Some(AnkiButton::Again),
            2 => Some(AnkiButton::Hard),
            3 => Some(AnkiButton::Good),
            4 => Some(AnkiButton::Easy),
            _ => None,
        }
    }
}

/// The quality a diagnostic gives a concept it infers known without asking: the least that
/// seeds `diagnosed`.
pub const INFERRED_QUALITY: Quality = Quality::PASS;

impl Evidence {
    /// What this evidence earns.
    pub fn earned(self) -> Earned {
        let graded = |value: u8| {
            let quality = Quality::of(value);
            Earned { quality, rating: Rating::graded(quality) }
        };
        match self {
            Evidence::Checked { outcome: Outcome::Right, form: Form::Recalled } => graded(5),
            Evidence::Checked { outcome: Outcome::Right, form: Form::Recognised } => graded(4),
            // Partial credit is not a pass: it shows as 1 or 2, by how much was right.
            Evidence::Checked { outcome: Outcome::Partial(credit), .. } => {
                graded((credit * 5.0).round().clamp(1.0, 2.0) as u8)
            }
            Evidence::Checked { outcome: Outcome::Wrong, .. } => graded(1),
            Evidence::Checked { outcome: Outcome::Skipped, .. } => graded(0),
            Evidence::Graded(quality) => Earned { quality, rating: Rating::graded(quality) },
            // Right is an ordinary recall (4), never the exact recall a checked key shows.
            Evidence::Judged { correct } => graded(if correct { 4 } else { 1 }),
            Evidence::Inferred => Earned { quality: INFERRED_QUALITY, rating: Rating::graded(INFERRED_QUALITY) },
            Evidence::Anki(button) => {
                let (value, rating) = match button {
                    AnkiButton::Again => (1, Rating::Again),
                    AnkiButton::Hard => (3, Rating::Hard),
                    AnkiButton::Good => (4, Rating::Good),
                    AnkiButton::Easy => (5, Rating::Easy),
                };
                Earned { quality: Quality::of(value), rating }
            }
            Evidence::OwnRating(quality) => Earned { quality, rating: Rating::stated(quality) },
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::mastery::{score, GRADUATION_SCORE};

    fn checked(form: Form, outcome: Outcome) -> Earned {
        Evidence::Checked { form, outcome }.earned()
    }

    #[test]
    fn recall_is_stronger_than_recognition_and_both_are_good() {
        let recalled = checked(Form::Recalled, Outcome::Right);
        let recognised = checked(Form::Recognised, Outcome::Right);
        assert_eq!([recalled.quality, recognised.quality].map(Quality::value), [5, 4]);
        assert!(recognised.quality.passes() && !checked(Form::Recalled, Outcome::Partial(0.4)).quality.passes());
        assert_eq!([recalled.rating, recognised.rating], [Rating::Good, Rating::Good]);
    }

    #[test]
    fn no_automatic_grade_is_easy() {
        let automatic = (0..=5).map(|v| Evidence::Graded(Quality::of(v)).earned().rating);
        assert!(automatic.clone().all(|rating| rating != Rating::Easy));
        for form in [Form::Recalled, Form::Recognised] {
            for outcome in [Outcome::Right, Outcome::Partial(0.5), Outcome::Wrong, Outcome::Skipped] {
                assert_ne!(checked(form, outcome).rating, Rating::Easy, "{form:?} {outcome:?}");
            }
        }
        assert_ne!(Evidence::Inferred.earned().rating, Rating::Easy);
        assert_ne!(Evidence::Judged { correct: true }.earned().rating, Rating::Easy);
    }

    #[test]
    fn a_models_right_or_wrong_is_an_ordinary_recall_or_a_miss() {
        let (right, wrong) =
            (Evidence::Judged { correct: true }.earned(), Evidence::Judged { correct: false }.earned());
        assert_eq!((right.quality.value(), right.rating), (4, Rating::Good));
        assert_eq!((wrong.quality.value(), wrong.rating), (1, Rating::Again));
        assert!(right.quality < checked(Form::Recalled, Outcome::Right).quality, "weaker than a key checked exactly");
    }

    #[test]
    fn only_the_learner_or_ankis_easy_button_say_easy() {
        assert_eq!(Evidence::OwnRating(Quality::of(5)).earned().rating, Rating::Easy);
        assert_eq!(Evidence::Anki(AnkiButton::Easy).earned(), Earned { quality: Quality::of(5), rating: Rating::Easy });
        let buttons = [AnkiButton::Again, AnkiButton::Hard, AnkiButton::Good].map(|b| Evidence::Anki(b).earned());
        assert_eq!(
            buttons.map(|e| (e.quality.value(), e.rating)),
            [(1, Rating::Again), (3, Rating::Hard), (4, Rating::Good)]
        );
    }

    #[test]
    fn a_miss_fails_and_a_skip_is_a_blackout() {
        let missed = checked(Form::Recognised, Outcome::Wrong);
        assert_eq!((missed.quality.value(), missed.rating), (1, Rating::Again));
        assert_eq!(checked(Form::Recalled, Outcome::Skipped).quality.value(), 0);
        assert_eq!(checked(Form::Recalled, Outcome::Partial(0.2)).quality.value(), 1);
        assert_eq!(checked(Form::Recalled, Outcome::Partial(0.4)).quality.value(), 2);
        assert_eq!(checked(Form::Recalled, Outcome::Partial(0.9)).quality.value(), 2);
        assert_eq!(Outcome::of(false, 0.0), Outcome::Wrong);
        assert_eq!(Outcome::of(true, 1.0), Outcome::Right);
    }

    #[test]
    fn right_answers_alone_reach_the_mastery_threshold() {
        let recalled = [checked(Form::Recalled, Outcome::Right).quality.value(); 5];
        assert!(score(&recalled) >= GRADUATION_SCORE);
        // Recognition alone stays below it: knowing an answer when shown it is not recall.
        let recognised = [checked(Form::Recognised, Outcome::Right).quality.value(); 5];
        assert!(score(&recognised) < GRADUATION_SCORE);
    }

    #[test]
    fn ratings_round_trip_through_their_numbers_and_names() {
        for rating in [Rating::Again, Rating::Hard, Rating::Good, Rating::Easy] {
            assert_eq!(Rating::from_number(i64::from(rating.number())), Some(rating));
            assert_eq!(Rating::parse(rating.as_str()), Some(rating));
            assert_eq!(serde_json::to_value(rating).unwrap(), rating.as_str());
        }
        assert_eq!(Rating::from_number(0), None);
    }
}
