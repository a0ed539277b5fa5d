//! The four namespaces: exact filters, deterministic order, and hits shaped like the spec's
//! metadata.

mod common;

use common::units;
use pathwise_course::Tier;
use pathwise_retrieval::{CourseIndex, DocKey, Query, SupportType};

fn index() -> CourseIndex {
    CourseIndex::build(&common::course()).unwrap()
}

#[test]
fn anchors_stay_within_the_scope_and_rank_by_the_message() {
    let index = index();
    let scope = units(&["NET", "BCAST", "FRAC"]);
    let hits = index.unit_anchors(&Query::text("broadcast address"), &scope, 6);
    let ids: Vec<&str> = hits.iter().map(|h| h.unit_id.as_str()).collect();
    // BCAST and NET match; FRAC passes the filter without matching and comes last.
    assert_eq!(ids, ["BCAST", "NET", "FRAC"]);
    assert!(hits[0].score > hits[1].score && hits[2].score == 0.0);
    assert_eq!(hits[0].anchor_text, common::pack().units[3].anchor);
    // Graphs match nothing in scope; out-of-scope units never appear.
    let hits = index.unit_anchors(&Query::text("line graphs"), &units(&["MASK", "NET"]), 6);
    assert!(hits.iter().all(|h| h.unit_id == "MASK" || h.unit_id == "NET"));
    assert!(index.unit_anchors(&Query::text("broadcast"), &[], 6).is_empty());
    assert!(index.unit_anchors(&Query::text("broadcast"), &units(&["NOPE"]), 6).is_empty());
}

#[test]
fn without_searchable_words_anchors_come_in_scope_order() {
    let index = index();
    let scope = units(&["FRAC", "IP-ADDR", "BCAST", "NOPE", "MASK"]);
    for text in ["", "the", "ok, thanks!"] {
        let ids: Vec<String> =
            index.unit_anchors(&Query::text(text), &scope, 3).into_iter().map(|h| h.unit_id).collect();
        assert_eq!(ids, ["FRAC", "IP-ADDR", "BCAST"], "{text:?}");
    }
}

#[test]
fn chunks_stay_within_the_scope_in_pack_order_for_ties() {
    let index = index();
    let scope = units(&["BCAST", "NET"]);
    let hits = index.unit_content_chunks(&Query::text("finding the network address"), &scope, 8);
    assert_eq!(hits.len(), 3);
    assert_eq!(hits[0].unit_id, "NET");
    assert!(hits.iter().all(|h| scope.contains(&h.unit_id)));
    let empty: Vec<String> = index
        .unit_content_chunks(&Query::text(""), &scope, 8)
        .into_iter()
        .map(|h| h.section.unwrap_or_default())
        .collect();
    assert_eq!(empty, ["Finding the broadcast address", "", "Finding the network address"]);
    assert_eq!(index.unit_content_chunks(&Query::text("host"), &scope, 1).len(), 1);
}

#[test]
fn exam_candidates_are_of_the_unit_and_tier_only() {
    let index = index();
    let ids = |text: &str, unit: &str, tier: Tier| -> Vec<String> {
        index.exam_candidates(&Query::text(text), unit, tier, 10).into_iter().map(|h| h.question_id).collect()
    };
    assert_eq!(ids("", "BCAST", Tier::Bronze), ["Q-B1", "Q-B2", "Q-B4"]);
    assert_eq!(ids("which mask", "BCAST", Tier::Bronze), ["Q-B2", "Q-B1", "Q-B4"]);
    assert_eq!(ids("", "MASK", Tier::Bronze), ["Q-B2"], "a question of two units is a candidate for both");
    assert_eq!(ids("fractions", "BCAST", Tier::Silver), ["Q-B3"]);
    assert!(ids("", "BCAST", Tier::Gold).is_empty());
    assert!(ids("", "NOPE", Tier::Bronze).is_empty());
}

#[test]
fn exam_candidates_never_carry_the_stem_or_answer() {
    let index = index();
    let hit = &index.exam_candidates(&Query::text("broadcast"), "BCAST", Tier::Bronze, 1)[0];
    let json = serde_json::to_value(hit).unwrap();
    assert_eq!(
        json,
        serde_json::json!({
            "courseId": "MIXED-01",
            "questionId": "Q-B1",
            "unitIds": ["BCAST"],
            "difficultyTier": "bronze",
            "tags": ["broadcast_address"],
        })
    );
}

#[test]
fn hits_serialize_as_the_spec_metadata() {
    let index = index();
    let chunk = &index.unit_content_chunks(&Query::text("broadcast"), &units(&["BCAST"]), 1)[0];
    assert_eq!(
        serde_json::to_value(chunk).unwrap(),
        serde_json::json!({
            "courseId": "MIXED-01",
            "unitId": "BCAST",
            "chunkType": "document",
            "sourceId": "lesson-BCAST",
            "section": "Finding the broadcast address",
            "text": common::pack().content[1].text,
        })
    );
    let anchor = &index.unit_anchors(&Query::text(""), &units(&["BCAST"]), 1)[0];
    let json = serde_json::to_value(anchor).unwrap();
    let keys: Vec<&str> = json.as_object().unwrap().keys().map(String::as_str).collect();
    assert_eq!(keys, ["anchorText", "misconceptions", "tags", "title", "unitId"]);
    let support = &index.exam_support_chunks(&Query::text("video"), &units(&["Q-B1"]), 2);
    let json = serde_json::to_value(support).unwrap();
    assert_eq!(json[0]["questionId"], "Q-B1");
    assert!(json[0]["supportType"] == "memo" || json[0]["supportType"] == "video");
}

#[test]
fn support_chunks_are_memos_and_transcripts_of_the_given_questions() {
    let index = index();
    let questions = units(&["Q-B1", "Q-F1", "Q-N1"]);
    let hits = index.exam_support_chunks(&Query::text(""), &questions, 10);
    let keys: Vec<(&str, SupportType)> = hits.iter().map(|h| (h.question_id.as_str(), h.support_type)).collect();
    assert_eq!(
        keys,
        [
            ("Q-B1", SupportType::Memo),
            ("Q-B1", SupportType::Video),
            ("Q-N1", SupportType::Memo),
            ("Q-F1", SupportType::Memo),
            ("Q-F1", SupportType::Video)
        ]
    );
    let hits = index.exam_support_chunks(&Query::text("common denominator"), &questions, 2);
    assert!(hits.iter().all(|h| h.question_id == "Q-F1"), "{hits:?}");
    assert!(index.exam_support_chunks(&Query::text("x"), &[], 5).is_empty());
}

#[test]
fn query_syntax_in_messages_is_just_text() {
    let index = index();
    let scope = units(&["MASK", "NET", "BCAST"]);
    for text in ["a AND (b", "title:", "mask:\"", "*", "broadcast^3 OR", "-(", "[1 TO 2]", "\\", "🙂 ∑ 𝑥"] {
        let anchors = index.unit_anchors(&Query::text(text), &scope, 6);
        assert_eq!(anchors.len(), 3, "{text}");
        index.unit_content_chunks(&Query::text(text), &scope, 8);
        index.exam_candidates(&Query::text(text), "BCAST", Tier::Bronze, 10);
        index.map_units(&Query::text(text), 3);
    }
    let hits = index.unit_anchors(&Query::text("title: broadcast AND ("), &scope, 1);
    assert_eq!(hits[0].unit_id, "BCAST");
}

#[test]
fn results_are_deterministic() {
    let course = common::course();
    let a = CourseIndex::build(&course).unwrap();
    let b = CourseIndex::build(&course).unwrap();
    let scope = units(&["IP-ADDR", "MASK", "NET", "BCAST"]);
    for text in ["address", "bits", "host bits set", ""] {
        assert_eq!(a.unit_anchors(&Query::text(text), &scope, 6), b.unit_anchors(&Query::text(text), &scope, 6));
        assert_eq!(
            a.unit_content_chunks(&Query::text(text), &scope, 8),
            b.unit_content_chunks(&Query::text(text), &scope, 8)
        );
        assert_eq!(a.map_units(&Query::text(text), 6), b.map_units(&Query::text(text), 6));
    }
}

#[test]
fn every_document_is_listed_once() {
    let index = index();
    let documents = index.documents();
    // 8 anchors, 6 chunks, 6 candidates, 6 memos and 2 transcripts.
    assert_eq!((index.len(), documents.len()), (28, 28));
    assert!(!index.is_empty());
    assert_eq!(documents[0].0, DocKey::UnitAnchor("IP-ADDR".into()));
    assert!(documents[0].1.starts_with("IPv4 addresses\n"));
    assert_eq!(documents[8].0, DocKey::ContentChunk(0));
    assert_eq!(documents[27].0, DocKey::ExamSupport("Q-F1".into(), SupportType::Video));
    assert_eq!(documents[27].0.to_string(), "exam_support_chunks/Q-F1/video");
    let candidate = documents.iter().find(|(k, _)| *k == DocKey::ExamCandidate("Q-B1".into())).unwrap();
    assert!(candidate.1.starts_with("What is the broadcast address") && !candidate.1.contains("10.0.0.63"));
}

#[test]
fn the_index_can_be_shared_between_threads() {
    fn shareable<T: Send + Sync>() {}
    shareable::<CourseIndex>();
}
