//! What a collection becomes: a map per deck holding a concept per card (labelled by its
//! note), and the review log as answers with their real times and grades, each row of the
//! log either used or skipped for a counted reason. Pure: the application turns the plan
//! into records.

use crate::collection::{Card, Collection, Note, Notetype, RevlogEntry};
use crate::text;
use chrono::{DateTime, TimeZone, Utc};
use serde::Serialize;
use std::collections::{BTreeMap, HashMap, HashSet};

/// Longest label kept (a concept's label holds at most 200 characters).
const MAX_LABEL_CHARS: usize = 200;
/// Longest description kept.
const MAX_DESCRIPTION_CHARS: usize = 4_000;

/// What kind of answer a used review-log row was.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum AnswerKind {
    /// A learning step of a new card: the card being taught.
    Learning,
    /// A review, a relearning step after a lapse, or a review in a filtered deck.
    Review,
}

/// One answer from the review log.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Answer {
    pub revlog_id: i64,
    pub at: DateTime<Utc>,
    /// The button pressed: Anki's `ease`, 1 (Again), 2 (Hard), 3 (Good) or 4 (Easy). What
    /// each earns is decided with every other kind of evidence, in `domain::evidence`.
    pub ease: u8,
    pub kind: AnswerKind,
}

/// Why a review-log row was not brought in.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum SkipReason {
    /// "Set due date" or another change made by hand (type 4): no answer was given.
    Manual,
    /// Rescheduled by Anki or by hand (type 5, Anki 23.10 and later): no answer.
    Rescheduled,
    /// A card reset with "Forget": the answers before it belong to a card learned anew.
    BeforeReset,
    /// A review in a filtered (cram) deck that did not grade the card.
    FilteredWithoutGrade,
    /// `ease` 0 in a row of another kind: no answer button was pressed.
    NoGrade,
    /// An `ease` or type Anki does not write.
    Unknown,
    /// The card the row belongs to is not in the collection (deleted in Anki).
    CardMissing,
    /// The row was brought in by an earlier import of the collection.
    AlreadyImported,
    /// Dated after the server's clock (a device whose clock was wrong): not an answer
    /// given yet, so not stored as one.
    FutureDated,
}

impl SkipReason {
    pub fn describe(self) -> &'static str {
        match self {
            SkipReason::Manual => "changed by hand (set due date, reposition): no answer given",
            SkipReason::Rescheduled => "rescheduled: no answer given",
            SkipReason::BeforeReset => "before the card was reset with Forget",
            SkipReason::FilteredWithoutGrade => "a filtered-deck (cram) review that did not grade the card",
            SkipReason::NoGrade => "no answer button pressed (ease 0)",
            SkipReason::Unknown => "of a kind or grade Anki does not write",
            SkipReason::CardMissing => "of a card no longer in the collection",
            SkipReason::AlreadyImported => "brought in by an earlier import",
            SkipReason::FutureDated => "dated after the server's clock (a device with a wrong clock)",
        }
    }
}

/// A card as a concept.
#[derive(Debug, Clone, PartialEq)]
pub struct CardPlan {
    pub card_id: i64,
    pub note_id: i64,
    pub note_guid: String,
    pub label: String,
    pub description: Option<String>,
    pub tags: Vec<String>,
    /// Suspended or buried in Anki.
    pub suspended: bool,
    /// Oldest first.
    pub answers: Vec<Answer>,
}

/// A deck as a map.
#[derive(Debug, Clone, PartialEq)]
pub struct DeckPlan {
    pub deck_id: i64,
    /// The full name (`Languages::French`).
    pub name: String,
    pub cards: Vec<CardPlan>,
}

/// The whole collection's plan, with what was left out and why.
#[derive(Debug, Clone, PartialEq)]
pub struct ImportPlan {
    pub decks: Vec<DeckPlan>,
    pub answers: usize,
    pub skipped: BTreeMap<SkipReason, usize>,
    /// Things brought in only in part, in sentences.
    pub warnings: Vec<String>,
}

/// Plan the import of `collection` at `now` (the server's clock). Rows of the review log
/// whose id is in `already_imported` for their card (`card id -> newest revlog id brought
/// in before`) are skipped as already imported, and rows dated after `now` as future-dated.
pub fn plan(collection: &Collection, already_imported: &HashMap<i64, i64>, now: DateTime<Utc>) -> ImportPlan {
    let mut warnings = Vec::new();
    let notes: HashMap<i64, &Note> = collection.notes.iter().map(|n| (n.id, n)).collect();
    let mut cards_of_deck: BTreeMap<i64, Vec<&Card>> = BTreeMap::new();
    let mut unknown_notetypes: BTreeMap<i64, usize> = BTreeMap::new();
    let mut cards_without_note = 0;
    for card in &collection.cards {
        match notes.get(&card.note_id) {
            Some(note) => {
                if !collection.notetypes.contains_key(&note.notetype_id) {
                    *unknown_notetypes.entry(note.notetype_id).or_default() += 1;
                }
                cards_of_deck.entry(card.deck_id).or_default().push(card);
            }
            None => cards_without_note += 1,
        }
    }
    for (id, count) in &unknown_notetypes {
        warnings.push(format!(
            "{count} card(s) of note type {id}, which the collection does not describe: labelled by their first field"
        ));
    }
    if cards_without_note > 0 {
        warnings.push(format!("{cards_without_note} card(s) without their note were left out"));
    }
    let deck_names: HashMap<i64, &str> = collection.decks.iter().map(|d| (d.id, d.name.as_str())).collect();
    let (answers_of, skipped) = answers_by_card(collection, already_imported, now);
    let mut decks = Vec::new();
    for (deck_id, cards) in cards_of_deck {
        let name = match deck_names.get(&deck_id) {
            Some(name) => name.to_string(),
            None => {
                warnings.push(format!("deck {deck_id} is not described by the collection: named by its id"));
                format!("Anki deck {deck_id}")
            }
        };
        let mut labels = UniqueLabels::default();
        let cards = cards
            .into_iter()
            .map(|card| {
                let note = notes[&card.note_id];
                let (label, description) = card_text(card, note, collection.notetypes.get(&note.notetype_id));
                CardPlan {
                    card_id: card.id,
                    note_id: note.id,
                    note_guid: note.guid.clone(),
                    label: labels.take(&label),
                    description,
                    tags: note.tags.clone(),
                    suspended: card.queue < 0,
                    answers: answers_of.get(&card.id).cloned().unwrap_or_default(),
                }
            })
            .collect();
        decks.push(DeckPlan { deck_id, name, cards });
    }
    let answers = decks.iter().flat_map(|d| &d.cards).map(|c| c.answers.len()).sum();
    ImportPlan { decks, answers, skipped, warnings }
}

/// Every row of the review log either as an answer of its card or as a skip with a reason.
fn answers_by_card(
    collection: &Collection,
    already_imported: &HashMap<i64, i64>,
    now: DateTime<Utc>,
) -> (HashMap<i64, Vec<Answer>>, BTreeMap<SkipReason, usize>) {
    let cards: HashSet<i64> = collection.cards.iter().map(|c| c.id).collect();
    // A card reset with Forget starts again: only what follows its last reset is its history.
    let mut last_reset: HashMap<i64, i64> = HashMap::new();
    for entry in collection.revlog.iter().filter(|e| is_reset(e)) {
        last_reset.insert(entry.card_id, entry.id);
    }
    let mut answers: HashMap<i64, Vec<Answer>> = HashMap::new();
    let mut skipped: BTreeMap<SkipReason, usize> = BTreeMap::new();
    for entry in &collection.revlog {
        match answer_of(entry, &cards, &last_reset, already_imported, now) {
            Ok(answer) => answers.entry(entry.card_id).or_default().push(answer),
            Err(reason) => *skipped.entry(reason).or_default() += 1,
        }
    }
    (answers, skipped)
}

fn answer_of(
    entry: &RevlogEntry,
    cards: &HashSet<i64>,
    last_reset: &HashMap<i64, i64>,
    already_imported: &HashMap<i64, i64>,
    now: DateTime<Utc>,
) -> Result<Answer, SkipReason> {
    if !cards.contains(&entry.card_id) {
        return Err(SkipReason::CardMissing);
    }
    let kind = match entry.kind {
        0 => AnswerKind::Learning,
        1..=3 => AnswerKind::Review,
        4 => return Err(SkipReason::Manual),
        5 => return Err(SkipReason::Rescheduled),
        _ => return Err(SkipReason::Unknown),
    };
    let ease = match (entry.ease, entry.kind) {
        (0, 3) => return Err(SkipReason::FilteredWithoutGrade),
        (0, _) => return Err(SkipReason::NoGrade),
        (ease @ 1..=4, _) => ease as u8,
        _ => return Err(SkipReason::Unknown),
    };
    if last_reset.get(&entry.card_id).is_some_and(|&reset| entry.id < reset) {
        return Err(SkipReason::BeforeReset);
    }
    if already_imported.get(&entry.card_id).is_some_and(|&through| entry.id <= through) {
        return Err(SkipReason::AlreadyImported);
    }
    let at = Utc.timestamp_millis_opt(entry.id).single().ok_or(SkipReason::Unknown)?;
    if at > now {
        return Err(SkipReason::FutureDated);
    }
    Ok(Answer { revlog_id: entry.id, at, ease, kind })
}

/// Anki's Forget: a manual entry that leaves the card new (no interval, no ease factor).
fn is_reset(entry: &RevlogEntry) -> bool {
    entry.kind == 4 && entry.ease == 0 && entry.interval == 0 && entry.factor == 0
}

/// The card's label and description: what its front asks and what the note says in full.
fn card_text(card: &Card, note: &Note, notetype: Option<&Notetype>) -> (String, Option<String>) {
    let cloze = notetype.is_some_and(|t| t.cloze) || note.fields.first().is_some_and(|f| text::has_clozes(f));
    let fields: Vec<String> = if cloze {
        note.fields.iter().map(|f| text::plain(&text::clozes_shown(f))).collect()
    } else {
        note.fields.iter().map(|f| text::plain(f)).collect()
    };
    // The field the card's front asks, else the first with text.
    let asked = notetype
        .and_then(|t| t.question_field(card.ord))
        .filter(|&at| fields.get(at).is_some_and(|f| !f.is_empty()))
        .or_else(|| fields.iter().position(|f| !f.is_empty()));
    let mut label = match (cloze, asked) {
        (true, Some(at)) => text::plain(&text::cloze_asked(&note.fields[at], card.ord + 1)),
        (false, Some(at)) => fields[at].clone(),
        (_, None) => format!("Card {}", card.id),
    };
    // Two templates asking the same field: told apart by the template's name.
    let first_asks = notetype.and_then(|t| t.question_field(0));
    if !cloze && card.ord > 0 && notetype.and_then(|t| t.question_field(card.ord)) == first_asks {
        let template = notetype.and_then(|t| t.templates.get(card.ord as usize)).map(|t| t.name.clone());
        label = format!("{label} ({})", template.unwrap_or_else(|| format!("card {}", card.ord + 1)));
    }
    let described: Vec<String> = match notetype {
        Some(t) if fields.len() > 1 => fields
            .iter()
            .enumerate()
            .filter(|(_, f)| !f.is_empty())
            .map(|(i, f)| match t.fields.get(i) {
                Some(name) => format!("{name}: {f}"),
                None => f.clone(),
            })
            .collect(),
        _ => fields.iter().filter(|f| !f.is_empty()).cloned().collect(),
    };
    let description = Some(described.join("\n")).filter(|d| !d.is_empty()).map(|d| clip(&d, MAX_DESCRIPTION_CHARS));
    (clip(&label, MAX_LABEL_CHARS), description)
}

fn clip(text: &str, max: usize) -> String {
    if text.chars().count() <= max {
        return text.to_string();
    }
    let mut clipped: String = text.chars().take(max - 1).collect();
    clipped.push('…');
    clipped
}

/// Labels unique within a deck (case-insensitively, as a map's are): a repeated one is
/// numbered.
#[derive(Default)]
pub struct UniqueLabels(HashSet<String>);

impl UniqueLabels {
    /// Mark `label` taken (a concept already in the map).
    pub fn reserve(&mut self, label: &str) {
        self.0.insert(label.trim().to_lowercase());
    }

    /// `label`, or `label (2)`, `label (3)`, ... if taken; the one returned is then taken.
    pub fn take(&mut self, label: &str) -> String {
        let mut candidate = label.to_string();
        let mut n = 1;
        while !self.0.insert(candidate.trim().to_lowercase()) {
            n += 1;
            let suffix = format!(" ({n})");
            candidate = format!("{}{suffix}", clip(label, MAX_LABEL_CHARS - suffix.chars().count()));
        }
        candidate
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::collection::{Deck, Template};
    use crate::package::PackageFormat;

    /// The server's clock in these tests: after every row of the logs but the future-dated.
    fn now() -> DateTime<Utc> {
        Utc.timestamp_millis_opt(1_750_000_000_000).unwrap()
    }

    fn entry(id: i64, card_id: i64, ease: i64, kind: i64) -> RevlogEntry {
        RevlogEntry { id, card_id, ease, interval: 1, last_interval: 0, factor: 2500, time_ms: 5000, kind }
    }

    fn collection(revlog: Vec<RevlogEntry>) -> Collection {
        let basic = Notetype {
            id: 10,
            name: "Basic (and reversed card)".into(),
            fields: vec!["Front".into(), "Back".into()],
            templates: vec![
                Template { name: "Card 1".into(), question: "{{Front}}".into() },
                Template { name: "Card 2".into(), question: "{{#Back}}{{Back}}{{/Back}}".into() },
            ],
            cloze: false,
        };
        let cloze = Notetype {
            id: 11,
            name: "Cloze".into(),
            fields: vec!["Text".into(), "Back Extra".into()],
            templates: vec![Template { name: "Cloze".into(), question: "{{cloze:Text}}".into() }],
            cloze: true,
        };
        Collection {
            format: PackageFormat::Anki21b,
            schema: 18,
            decks: vec![
                Deck { id: 1, name: "Default".into(), filtered: false },
                Deck { id: 2, name: "French::Verbs".into(), filtered: false },
            ],
            notetypes: [(10, basic), (11, cloze)].into_iter().collect(),
            notes: vec![
                Note {
                    id: 100,
                    guid: "g1".into(),
                    notetype_id: 10,
                    fields: vec!["<b>être</b>".into(), "to be".into()],
                    tags: vec!["verb".into()],
                },
                Note {
                    id: 101,
                    guid: "g2".into(),
                    notetype_id: 11,
                    fields: vec!["{{c1::Paris}} is in {{c2::France}}".into(), "".into()],
                    tags: vec![],
                },
                Note {
                    id: 102,
                    guid: "g3".into(),
                    notetype_id: 99,
                    fields: vec!["avoir".into(), "to have".into()],
                    tags: vec![],
                },
            ],
            cards: vec![
                Card { id: 1000, note_id: 100, deck_id: 2, ord: 0, queue: 2 },
                Card { id: 1001, note_id: 100, deck_id: 2, ord: 1, queue: -1 },
                Card { id: 1002, note_id: 101, deck_id: 1, ord: 0, queue: 0 },
                Card { id: 1003, note_id: 101, deck_id: 1, ord: 1, queue: 0 },
                Card { id: 1004, note_id: 102, deck_id: 2, ord: 0, queue: 0 },
            ],
            revlog,
            media_files: 0,
            newer: None,
        }
    }

    #[test]
    fn decks_become_maps_and_cards_concepts_labelled_by_their_notes() {
        let plan = plan(&collection(Vec::new()), &HashMap::new(), now());
        let names: Vec<&str> = plan.decks.iter().map(|d| d.name.as_str()).collect();
        assert_eq!(names, ["Default", "French::Verbs"]);
        let labels: Vec<&str> = plan.decks.iter().flat_map(|d| &d.cards).map(|c| c.label.as_str()).collect();
        assert_eq!(labels, ["[...] is in France", "Paris is in [...]", "être", "to be", "avoir"]);
        let verbs = &plan.decks[1].cards;
        assert_eq!(verbs[0].description.as_deref(), Some("Front: être\nBack: to be"));
        assert!(verbs[1].suspended && !verbs[0].suspended);
        assert_eq!(verbs[2].description.as_deref(), Some("avoir\nto have"), "an unknown note type's fields in order");
        assert!(plan.warnings.iter().any(|w| w.contains("note type 99")), "{:?}", plan.warnings);
    }

    #[test]
    fn every_row_of_the_log_is_used_or_skipped_for_a_reason() {
        let revlog = vec![
            entry(1_700_000_000_000, 1000, 3, 0),
            entry(1_700_000_100_000, 1000, 1, 1),
            entry(1_700_000_200_000, 1000, 0, 4),
            entry(1_700_000_300_000, 1000, 4, 2),
            entry(1_700_000_400_000, 1000, 0, 3),
            entry(1_700_000_500_000, 1000, 2, 3),
            entry(1_700_000_600_000, 1000, 3, 5),
            entry(1_700_000_700_000, 9999, 3, 1),
            entry(1_700_000_800_000, 1000, 0, 1),
            entry(1_700_000_900_000, 1000, 7, 1),
        ];
        let plan = plan(&collection(revlog), &HashMap::new(), now());
        let answers: Vec<(u8, AnswerKind)> = plan.decks[1].cards[0].answers.iter().map(|a| (a.ease, a.kind)).collect();
        assert_eq!(
            answers,
            [(3, AnswerKind::Learning), (1, AnswerKind::Review), (4, AnswerKind::Review), (2, AnswerKind::Review)]
        );
        assert_eq!(plan.decks[1].cards[0].answers[0].at.timestamp_millis(), 1_700_000_000_000, "the real time");
        assert_eq!(plan.answers, 4);
        let skipped: Vec<(SkipReason, usize)> = plan.skipped.into_iter().collect();
        assert_eq!(
            skipped,
            [
                (SkipReason::Manual, 1),
                (SkipReason::Rescheduled, 1),
                (SkipReason::FilteredWithoutGrade, 1),
                (SkipReason::NoGrade, 1),
                (SkipReason::Unknown, 1),
                (SkipReason::CardMissing, 1)
            ]
        );
    }

    #[test]
    fn a_reset_card_keeps_only_what_follows_its_reset_and_a_reimport_only_what_is_new() {
        let mut reset = entry(1_700_000_200_000, 1000, 0, 4);
        (reset.interval, reset.factor) = (0, 0);
        let revlog = vec![
            entry(1_700_000_000_000, 1000, 3, 0),
            entry(1_700_000_100_000, 1000, 3, 1),
            reset,
            entry(1_700_000_300_000, 1000, 3, 0),
            entry(1_700_000_400_000, 1000, 4, 1),
        ];
        let first = plan(&collection(revlog.clone()), &HashMap::new(), now());
        assert_eq!(first.decks[1].cards[0].answers.len(), 2);
        assert_eq!(first.skipped[&SkipReason::BeforeReset], 2);
        assert_eq!(first.skipped[&SkipReason::Manual], 1);
        let again = plan(&collection(revlog), &[(1000, 1_700_000_300_000)].into_iter().collect(), now());
        assert_eq!(again.decks[1].cards[0].answers.len(), 1, "only the newer answer");
        assert_eq!(again.skipped[&SkipReason::AlreadyImported], 1);
    }

    #[test]
    fn a_review_dated_after_the_servers_clock_is_skipped_and_counted() {
        let revlog = vec![
            entry(1_700_000_000_000, 1000, 3, 0),
            entry(1_700_000_100_000, 1000, 4, 1),
            entry(now().timestamp_millis() + 1, 1000, 4, 1),
            entry(1_900_000_000_000, 1004, 3, 0),
        ];
        let plan = plan(&collection(revlog), &HashMap::new(), now());
        let answered: Vec<i64> = plan.decks[1].cards[0].answers.iter().map(|a| a.revlog_id).collect();
        assert_eq!(answered, [1_700_000_000_000, 1_700_000_100_000], "only what was answered by now");
        assert!(plan.decks[1].cards[2].answers.is_empty(), "a card answered only in the future has no answers");
        assert_eq!((plan.answers, plan.skipped[&SkipReason::FutureDated]), (2, 2));
        assert_eq!(plan.skipped.len(), 1, "no other reason: {:?}", plan.skipped);
        assert!(SkipReason::FutureDated.describe().contains("after the server's clock"));
    }

    #[test]
    fn two_templates_asking_the_same_field_are_told_apart_by_name() {
        let mut collection = collection(Vec::new());
        let basic = collection.notetypes.get_mut(&10).unwrap();
        basic.templates[1] = Template { name: "Typed".into(), question: "{{type:Front}}".into() };
        let plan = plan(&collection, &HashMap::new(), now());
        let labels: Vec<&str> = plan.decks[1].cards.iter().map(|c| c.label.as_str()).collect();
        assert_eq!(labels, ["être", "être (Typed)", "avoir"]);
    }

    #[test]
    fn labels_are_numbered_when_repeated() {
        let mut labels = UniqueLabels::default();
        labels.reserve("Chat");
        assert_eq!(labels.take("chat"), "chat (2)");
        assert_eq!(labels.take("Chat"), "Chat (3)");
        assert_eq!(labels.take("chien"), "chien");
    }
}
