//! `map_units`: which units a learner's message is about, and how sure that is.

mod common;

use pathwise_retrieval::{CourseIndex, Query};

const TRUSTED: f64 = 0.55;

fn mapped(index: &CourseIndex, message: &str) -> Vec<(String, f64)> {
    index.map_units(&Query::text(message), 5).into_iter().map(|m| (m.unit_id, m.confidence)).collect()
}

#[test]
fn a_message_clearly_about_one_unit_is_trusted() {
    let index = CourseIndex::build(&common::course()).unwrap();
    for (message, unit) in [
        ("how do I find the broadcast address of a /26", "BCAST"),
        ("What is the broadcast address?", "BCAST"),
        ("how do I read a line graph", "LINE-GRAPH"),
        ("bar graphs", "BAR-GRAPH"),
        ("how do I add fractions", "FRAC"),
        ("what is a CIDR prefix", "MASK"),
        ("network address of 10.0.0.77/26", "NET"),
        ("how do I write an IPv4 address in dotted decimal", "IP-ADDR"),
    ] {
        let mapped = mapped(&index, message);
        assert_eq!(mapped[0].0, unit, "{message}: {mapped:?}");
        assert!(mapped[0].1 >= TRUSTED, "{message}: {mapped:?}");
        assert!(mapped[1..].iter().all(|(_, c)| *c < TRUSTED), "{message}: {mapped:?}");
    }
}

#[test]
fn a_message_equally_about_several_units_is_not_trusted() {
    let index = CourseIndex::build(&common::course()).unwrap();
    let graphs = mapped(&index, "I need help with graphs");
    let units: Vec<&str> = graphs.iter().map(|(u, _)| u.as_str()).collect();
    assert_eq!(units.len(), 3, "{graphs:?}");
    for unit in ["LINE-GRAPH", "BAR-GRAPH", "PLOT"] {
        assert!(units.contains(&unit), "{graphs:?}");
    }
    for message in
        ["graphs", "I need help with graphs", "address", "what does /26 mean", "broadcast address and fractions"]
    {
        let mapped = mapped(&index, message);
        assert!(!mapped.is_empty() && mapped.iter().all(|(_, c)| *c < TRUSTED), "{message}: {mapped:?}");
    }
}

#[test]
fn a_message_sharing_only_a_weak_word_is_not_trusted() {
    let index = CourseIndex::build(&common::course()).unwrap();
    // "whole", "find" and "data" each occur once in one anchor's running text.
    for message in ["my cat ate the whole pizza", "I need to find my keys", "the data is on my laptop"] {
        let mapped = mapped(&index, message);
        assert_eq!(mapped.len(), 1, "{message}: {mapped:?}");
        assert!(mapped[0].1 < TRUSTED, "{message}: {mapped:?}");
    }
}

#[test]
fn unrelated_or_empty_messages_map_nothing() {
    let index = CourseIndex::build(&common::course()).unwrap();
    for message in ["what's the weather like today", "", "   ", "what is this?", "a AND (b", "title:"] {
        assert!(mapped(&index, message).is_empty(), "{message}");
    }
}

#[test]
fn confidences_are_ordered_rounded_and_at_most_k() {
    let index = CourseIndex::build(&common::course()).unwrap();
    let all = index.map_units(&Query::text("address bits subnet"), 10);
    assert!(all.len() > 2);
    assert!(all.windows(2).all(|w| w[0].confidence >= w[1].confidence), "{all:?}");
    for unit in &all {
        assert!((0.0..=1.0).contains(&unit.confidence));
        assert_eq!((unit.confidence * 1000.0).round() / 1000.0, unit.confidence);
    }
    assert_eq!(index.map_units(&Query::text("address bits subnet"), 2), all[..2]);
    assert!(index.map_units(&Query::text("address"), 0).is_empty());
}

#[test]
fn embeddings_do_not_change_the_mapping() {
    let course = common::course();
    let plain = CourseIndex::build(&course).unwrap();
    let mut dense = CourseIndex::build(&course).unwrap();
    let vectors = dense.documents().into_iter().enumerate().map(|(i, (key, _))| (key, vec![1.0, i as f32])).collect();
    dense.set_embeddings(vectors).unwrap();
    let message = "how do I find the broadcast address of a /26";
    assert_eq!(
        dense.map_units(&Query::text(message).with_vector(&[0.0, 1.0]), 3),
        plain.map_units(&Query::text(message), 3)
    );
}
