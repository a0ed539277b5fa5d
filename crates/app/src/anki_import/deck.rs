//! One deck's import as records: the map (made, or found and updated), a concept per card
//! hung from a root standing for the deck (a grouping, not a concept to learn: never next to
//! learn, never counted among the concepts), and each card's new answers recorded through the
//! mastery rules in the order they were given, exactly as if they were answered here.
//! What the learner did in Pathwise since an earlier import stays: answers are only ever
//! added, and a concept is matched to its card by the card's id.

use chrono::{DateTime, Utc};
use pathwise_anki::{AnswerKind, DeckPlan, UniqueLabels};
use pathwise_domain::evidence::{AnkiButton, Evidence};
use pathwise_domain::graph::{recompute_depths, GraphLimits, ANKI_DECK_KEY};
use pathwise_domain::model::{Edge, MapAggregate, MapChanges, Metadata, MindMap, Node, QuizResponse, GROUPING_KEY};
use pathwise_domain::order::assign_sequence;
use pathwise_domain::recording::{ResponseContext, ResponseRules};
use pathwise_domain::{DomainError, EdgeType, LearnerId, MapStatus, MindMapId, NodeId, ResponseId, ResponseType};
use pathwise_store::{HistoryImport, ImportedMap};
use serde::Serialize;
use serde_json::json;
use std::collections::{HashMap, HashSet};
use utoipa::ToSchema;
use uuid::Uuid;

/// Node metadata: the card a concept stands for, and the newest review-log row brought in
/// for it (a later import brings in only what is newer).
pub const CARD_KEY: &str = "anki_card_id";
pub const REVIEWS_THROUGH_KEY: &str = "anki_reviews_through";
const NOTE_KEY: &str = "anki_note_id";
const GUID_KEY: &str = "anki_note_guid";
const TAGS_KEY: &str = "anki_tags";
const SUSPENDED_KEY: &str = "anki_suspended";
const DECK_ROOT_KEY: &str = "anki_deck_root";

/// What became of one deck.
#[derive(Debug, Clone, PartialEq, Serialize, ToSchema, schemars::JsonSchema)]
pub struct DeckImport {
    /// The deck's full name in Anki (`Languages::French`), the map's title.
    pub deck: String,
    pub anki_deck_id: i64,
    pub mind_map_id: MindMapId,
    /// The map was made by this import (not found from an earlier one).
    pub created: bool,
    /// Cards of the deck in the package.
    pub cards: usize,
    pub concepts_added: usize,
    /// Concepts whose label, description, tags or answers changed.
    pub concepts_updated: usize,
    pub answers_imported: usize,
    /// Concepts of an earlier import whose cards are no longer in the package: kept, with
    /// their answers.
    pub concepts_without_card: usize,
}

/// The deck's import: what to write, and the account of it. `found` is the map an earlier
/// import made, read under its write lock; `new_id` makes ids.
pub(crate) fn import_deck(
    deck: &DeckPlan,
    learner: LearnerId,
    found: Option<ImportedMap<'_>>,
    now: DateTime<Utc>,
    new_id: &mut impl FnMut() -> Uuid,
) -> Result<(HistoryImport, DeckImport), DomainError> {
    let created = found.is_none();
    let (before, mut histories) = match found {
        Some(found) => (Some(found.aggregate.clone()), found.histories.clone()),
        None => (None, HashMap::new()),
    };
    let mut agg = before.clone().unwrap_or_else(|| new_deck_map(deck, learner, now, new_id));
    if agg.map.title != deck.name {
        agg.map.title = deck.name.clone();
        agg.map.updated_at = now;
    }
    let root = agg.map.root_node_id.ok_or_else(|| DomainError::invalid("map", "the deck's map has no root"))?;
    let in_package: HashSet<i64> = deck.cards.iter().map(|c| c.card_id).collect();
    let mut of_card: HashMap<i64, usize> = HashMap::new();
    let mut labels = UniqueLabels::default();
    for (at, node) in agg.nodes.iter().enumerate() {
        match card_of(node) {
            Some(card) if in_package.contains(&card) => {
                of_card.insert(card, at);
            }
            _ => labels.reserve(&node.label),
        }
    }
    let concepts_without_card =
        agg.nodes.iter().filter(|n| card_of(n).is_some_and(|card| !in_package.contains(&card))).count();
    let mut account = DeckImport {
        deck: deck.name.clone(),
        anki_deck_id: deck.deck_id,
        mind_map_id: agg.map.id,
        created,
        cards: deck.cards.len(),
        concepts_added: 0,
        concepts_updated: 0,
        answers_imported: 0,
        concepts_without_card,
    };
    let mut responses = Vec::new();
    let mut answered = Vec::new();
    for card in &deck.cards {
        let label = labels.take(&card.label);
        let mut metadata = match of_card.get(&card.card_id) {
            Some(&at) => agg.nodes[at].metadata.clone(),
            None => Metadata::new(),
        };
        metadata.insert(CARD_KEY.into(), json!(card.card_id));
        metadata.insert(NOTE_KEY.into(), json!(card.note_id));
        metadata.insert(GUID_KEY.into(), json!(card.note_guid));
        metadata.insert(TAGS_KEY.into(), json!(card.tags));
        metadata.insert(SUSPENDED_KEY.into(), json!(card.suspended));
        let at = match of_card.get(&card.card_id) {
            Some(&at) => at,
            None => {
                let node = Node::new(NodeId(new_id()), agg.map.id, label.clone(), None, None, Metadata::new(), now);
                agg.edges.push(Edge {
                    mind_map_id: agg.map.id,
                    parent_node_id: root,
                    child_node_id: node.id,
                    edge_type: EdgeType::Prerequisite,
                    created_at: now,
                });
                agg.nodes.push(node);
                account.concepts_added += 1;
                agg.nodes.len() - 1
            }
        };
        let node = &mut agg.nodes[at];
        let through = node.metadata.get(REVIEWS_THROUGH_KEY).and_then(|v| v.as_i64()).unwrap_or(i64::MIN);
        let answers: Vec<_> = card.answers.iter().filter(|a| a.revlog_id > through).collect();
        if let Some(last) = answers.last() {
            metadata.insert(REVIEWS_THROUGH_KEY.into(), json!(last.revlog_id));
        }
        let changed = node.label != label || node.description != card.description || node.metadata != metadata;
        if of_card.contains_key(&card.card_id) && (changed || !answers.is_empty()) {
            account.concepts_updated += 1;
        }
        node.label = label;
        node.description = card.description.clone();
        node.metadata = metadata;
        let mut history = histories.remove(&node.id).unwrap_or_default();
        for answer in &answers {
            let response_type = match answer.kind {
                AnswerKind::Learning => ResponseType::Teach,
                AnswerKind::Review => ResponseType::Review,
            };
            let button = AnkiButton::of_ease(i64::from(answer.ease))
                .ok_or_else(|| DomainError::invalid("ease", format!("{} is not an Anki button (1-4)", answer.ease)))?;
            let earned = Evidence::Anki(button).earned();
            let rules = ResponseRules { quality: earned.quality, response_type, now: answer.at, floor: None };
            let decided = rules.decide(&ResponseContext { map_status: agg.map.status, node: node.clone(), history })?;
            *node = decided.node;
            history = decided.history;
            responses.push(QuizResponse {
                id: ResponseId(new_id()),
                node_id: node.id,
                mind_map_id: agg.map.id,
                question_text: node.label.clone(),
                user_answer: None,
                quality: earned.quality.value(),
                rating: earned.rating,
                response_type,
                session_id: None,
                responded_at: answer.at,
            });
        }
        if !answers.is_empty() {
            account.answers_imported += answers.len();
            answered.push((node.id, history));
        }
    }
    // A node the import changed carries the import's time; one it did not is left as it was.
    let limits = GraphLimits::SINGLE_TOPIC.for_map(&agg.map);
    recompute_depths(&mut agg, limits)?;
    assign_sequence(&mut agg);
    let import = match &before {
        Some(before) => {
            let mut changes = MapChanges::between(before, &agg);
            for node in &mut changes.update_nodes {
                node.updated_at = node.updated_at.max(now);
            }
            HistoryImport { new_map: None, changes, histories: answered, responses }
        }
        None => HistoryImport {
            new_map: Some(agg.map.clone()),
            changes: MapChanges { insert_nodes: agg.nodes, insert_edges: agg.edges, ..MapChanges::default() },
            histories: answered,
            responses,
        },
    };
    Ok((import, account))
}

fn card_of(node: &Node) -> Option<i64> {
    node.metadata.get(CARD_KEY).and_then(|v| v.as_i64())
}

/// A new map for the deck: its root stands for the deck itself, grouping the cards; it is
/// not a concept to learn (`Node::is_grouping`).
fn new_deck_map(
    deck: &DeckPlan,
    learner: LearnerId,
    now: DateTime<Utc>,
    new_id: &mut impl FnMut() -> Uuid,
) -> MapAggregate {
    let map_id = MindMapId(new_id());
    let mut root_meta = Metadata::new();
    root_meta.insert(DECK_ROOT_KEY.into(), json!(true));
    root_meta.insert(GROUPING_KEY.into(), json!(true));
    let root = Node::new(
        NodeId(new_id()),
        map_id,
        deck.name.clone(),
        Some(format!("The Anki deck {}: its cards are the concepts that follow.", deck.name)),
        None,
        root_meta,
        now,
    );
    let mut metadata = Metadata::new();
    metadata.insert(ANKI_DECK_KEY.into(), json!(deck.deck_id));
    let map = MindMap {
        id: map_id,
        learner_id: learner,
        title: deck.name.clone(),
        root_node_id: Some(root.id),
        status: MapStatus::Active,
        metadata,
        created_at: now,
        updated_at: now,
    };
    MapAggregate { map, nodes: vec![root], edges: Vec::new() }
}

#[cfg(test)]
mod tests {
    use super::*;
    use pathwise_anki::{Answer, CardPlan};
    use pathwise_domain::mastery::RecentHistory;
    use pathwise_domain::MasteryStatus;

    fn at(text: &str) -> DateTime<Utc> {
        DateTime::parse_from_rfc3339(text).unwrap().with_timezone(&Utc)
    }

    fn answer(revlog_id: i64, ease: u8, kind: AnswerKind) -> Answer {
        Answer { revlog_id, at: chrono::TimeZone::timestamp_millis_opt(&Utc, revlog_id).unwrap(), ease, kind }
    }

    fn deck(answers: Vec<Answer>) -> DeckPlan {
        DeckPlan {
            deck_id: 7,
            name: "French".into(),
            cards: vec![
                CardPlan {
                    card_id: 1,
                    note_id: 10,
                    note_guid: "g".into(),
                    label: "être".into(),
                    description: Some("to be".into()),
                    tags: vec!["verb".into()],
                    suspended: false,
                    answers,
                },
                CardPlan {
                    card_id: 2,
                    note_id: 11,
                    note_guid: "h".into(),
                    label: "French".into(),
                    description: None,
                    tags: vec![],
                    suspended: false,
                    answers: vec![],
                },
            ],
        }
    }

    fn ids() -> impl FnMut() -> Uuid {
        let mut n = 0u128;
        move || {
            n += 1;
            Uuid::from_u128(n)
        }
    }

    #[test]
    fn a_new_deck_is_a_map_whose_cards_hang_from_the_deck_and_whose_answers_move_them() {
        let answers = vec![
            answer(1_700_000_000_000, 3, AnswerKind::Learning),
            answer(1_700_100_000_000, 3, AnswerKind::Review),
            answer(1_700_900_000_000, 4, AnswerKind::Review),
        ];
        let now = at("2026-11-29T10:00:00Z");
        let (import, account) = import_deck(&deck(answers), LearnerId(Uuid::nil()), None, now, &mut ids()).unwrap();
        let map = import.new_map.as_ref().expect("a new map");
        assert_eq!(map.metadata[ANKI_DECK_KEY], json!(7));
        let nodes = &import.changes.insert_nodes;
        assert_eq!(nodes.len(), 3, "the deck's root and a concept per card");
        assert_eq!(nodes[0].label, "French");
        assert!(nodes[0].is_grouping() && nodes[0].sequence.is_none(), "the deck groups its cards, not learned");
        assert_eq!(nodes[2].label, "French (2)", "a card labelled like the deck is numbered");
        assert_eq!(import.changes.insert_edges.len(), 2);
        let etre = &nodes[1];
        assert_eq!(etre.metadata[REVIEWS_THROUGH_KEY], json!(1_700_900_000_000i64));
        assert_eq!(etre.last_reviewed_at, Some(answer(1_700_900_000_000, 4, AnswerKind::Review).at));
        assert_eq!(etre.repetitions, 3);
        assert_ne!(etre.mastery_status, MasteryStatus::Unseen);
        assert_eq!(import.responses.len(), 3);
        assert_eq!(import.responses[0].response_type, ResponseType::Teach);
        assert_eq!(import.histories.len(), 1);
        assert_eq!(import.histories[0].1.qualities, vec![5, 4, 4]);
        assert_eq!((account.concepts_added, account.answers_imported, account.created), (2, 3, true));
    }

    #[test]
    fn importing_again_adds_only_new_answers_on_top_of_what_was_done_here() {
        let first = vec![answer(1_700_000_000_000, 3, AnswerKind::Learning)];
        let now = at("2026-11-29T10:00:00Z");
        let (import, _) = import_deck(&deck(first.clone()), LearnerId(Uuid::nil()), None, now, &mut ids()).unwrap();
        let mut agg = MapAggregate {
            map: import.new_map.unwrap(),
            nodes: import.changes.insert_nodes,
            edges: import.changes.insert_edges,
        };
        // A review in Pathwise since.
        let etre = agg.nodes[1].clone();
        let histories: HashMap<NodeId, RecentHistory> = [(etre.id, import.histories[0].1.clone())].into();
        let reviewed = ResponseRules {
            quality: pathwise_domain::mastery::Quality::of(5),
            response_type: ResponseType::Review,
            now: at("2026-11-28T09:00:00Z"),
            floor: None,
        }
        .decide(&ResponseContext {
            map_status: MapStatus::Active,
            node: etre.clone(),
            history: histories[&etre.id].clone(),
        })
        .unwrap();
        agg.nodes[1] = reviewed.node.clone();
        let histories: HashMap<NodeId, RecentHistory> = [(etre.id, reviewed.history)].into();
        let mut again = deck([first, vec![answer(1_795_900_000_000, 2, AnswerKind::Review)]].concat());
        again.cards[0].label = "être (verb)".into();
        let found = ImportedMap { aggregate: &agg, histories: &histories };
        let (import, account) = import_deck(&again, LearnerId(Uuid::nil()), Some(found), now, &mut ids()).unwrap();
        assert!(import.new_map.is_none());
        assert!(import.changes.insert_nodes.is_empty(), "no duplicates");
        assert_eq!(import.responses.len(), 1, "only the newer answer");
        assert_eq!(import.histories[0].1.qualities, vec![3, 5, 4], "on top of the Pathwise review");
        let updated = import.changes.update_nodes.iter().find(|n| n.id == etre.id).unwrap();
        assert_eq!(updated.label, "être (verb)");
        assert_eq!(updated.repetitions, reviewed.node.repetitions + 1);
        assert_eq!((account.concepts_added, account.concepts_updated, account.answers_imported), (0, 1, 1));
    }
}
