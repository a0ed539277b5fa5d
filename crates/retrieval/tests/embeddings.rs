//! Embeddings: validation, and reciprocal rank fusion of BM25 with cosine similarity.

mod common;

use common::units;
use pathwise_retrieval::{CourseIndex, DocKey, Query, RetrievalError};
use std::collections::HashMap;

/// Two-dimensional vectors: every document points along x, except the given ones, which point
/// along y.
fn vectors(index: &CourseIndex, along_y: &[DocKey]) -> HashMap<DocKey, Vec<f32>> {
    index
        .documents()
        .into_iter()
        .map(|(key, _)| {
            let vector = if along_y.contains(&key) { vec![0.0, 1.0] } else { vec![1.0, 0.0] };
            (key, vector)
        })
        .collect()
}

fn anchor_ids(index: &CourseIndex, query: &Query, scope: &[String]) -> Vec<String> {
    index.unit_anchors(query, scope, 6).into_iter().map(|h| h.unit_id).collect()
}

#[test]
fn the_dense_ranking_changes_the_order_by_rrf() {
    let mut index = CourseIndex::build(&common::course()).unwrap();
    let scope = units(&["IP-ADDR", "NET", "BCAST"]);
    let text = "broadcast address";
    // BM25 alone: BCAST (both words), then NET and IP-ADDR (one word each).
    let bm25 = anchor_ids(&index, &Query::text(text), &scope);
    assert_eq!(bm25[0], "BCAST");

    // The embeddings say the message is about IP-ADDR: 1st by cosine, while BCAST is 3rd (NET
    // and BCAST tie on cosine; the tie goes by scope order). IP-ADDR's fused score is at least
    // BCAST's (1/61 + 1/63), and a tie goes to IP-ADDR, first in the scope.
    index.set_embeddings(vectors(&index, &[DocKey::UnitAnchor("IP-ADDR".into())])).unwrap();
    assert_eq!(index.embedding_dimension(), Some(2));
    let query = Query::text(text).with_vector(&[0.0, 1.0]);
    let hits = index.unit_anchors(&query, &scope, 6);
    let ids: Vec<&str> = hits.iter().map(|h| h.unit_id.as_str()).collect();
    assert_ne!(ids, bm25.iter().map(String::as_str).collect::<Vec<_>>(), "the dense ranking moved something");
    assert_eq!(ids[0], "IP-ADDR", "{hits:?}");
    let bm25_rank = |unit: &str| bm25.iter().position(|u| u == unit).unwrap() + 1;
    let rrf = |bm25_rank: usize, dense_rank: usize| 1.0 / (60.0 + bm25_rank as f64) + 1.0 / (60.0 + dense_rank as f64);
    // Dense ranks: IP-ADDR 1st; NET and BCAST tie on cosine and follow scope order.
    assert!((hits[0].score - rrf(bm25_rank("IP-ADDR"), 1)).abs() < 1e-12);
    let bcast = hits.iter().find(|h| h.unit_id == "BCAST").unwrap();
    assert!((bcast.score - rrf(1, 3)).abs() < 1e-12);

    // Without a vector, or with one of another dimension, ranking is BM25 again.
    assert_eq!(anchor_ids(&index, &Query::text(text), &scope), bm25);
    assert_eq!(anchor_ids(&index, &Query::text(text).with_vector(&[0.0, 1.0, 0.0]), &scope), bm25);
    // A button press (no words) keeps scope order even with a vector.
    assert_eq!(anchor_ids(&index, &Query::text("").with_vector(&[0.0, 1.0]), &scope), scope);
}

#[test]
fn fusion_applies_to_every_namespace() {
    let mut index = CourseIndex::build(&common::course()).unwrap();
    let scope = units(&["BCAST", "NET"]);
    let chunks = |index: &CourseIndex, query: &Query| -> Vec<String> {
        index.unit_content_chunks(query, &scope, 8).into_iter().map(|h| h.text).collect()
    };
    let content = common::pack().content;
    let before = chunks(&index, &Query::text("broadcast address"));
    assert_eq!(before, [content[1].text.as_str(), &content[2].text, &content[3].text]);
    // Chunk 3, third by BM25, is first by cosine: 1/63 + 1/61 beats chunk 2's 1/62 + 1/63.
    index.set_embeddings(vectors(&index, &[DocKey::ContentChunk(3)])).unwrap();
    let after = chunks(&index, &Query::text("broadcast address").with_vector(&[0.0, 1.0]));
    assert_eq!(after, [content[1].text.as_str(), &content[3].text, &content[2].text]);
}

#[test]
fn a_query_vector_is_ignored_without_embeddings() {
    let index = CourseIndex::build(&common::course()).unwrap();
    let scope = units(&["IP-ADDR", "NET", "BCAST"]);
    assert_eq!(index.embedding_dimension(), None);
    assert_eq!(
        anchor_ids(&index, &Query::text("broadcast address").with_vector(&[0.0, 1.0]), &scope),
        anchor_ids(&index, &Query::text("broadcast address"), &scope)
    );
}

#[test]
fn embeddings_must_cover_every_document_with_one_dimension() {
    let mut index = CourseIndex::build(&common::course()).unwrap();
    let complete = vectors(&index, &[]);

    let mut missing = complete.clone();
    missing.remove(&DocKey::ContentChunk(3));
    missing.remove(&DocKey::ExamCandidate("Q-B2".into()));
    match index.set_embeddings(missing) {
        Err(RetrievalError::MissingEmbedding(key)) => assert_eq!(key, DocKey::ContentChunk(3)),
        other => panic!("{other:?}"),
    }

    let mut mismatched = complete.clone();
    mismatched.insert(DocKey::ExamCandidate("Q-B2".into()), vec![1.0, 0.0, 0.0]);
    let error = index.set_embeddings(mismatched).unwrap_err();
    assert!(matches!(
        &error,
        RetrievalError::EmbeddingDimension { key: DocKey::ExamCandidate(q), expected: 2, found: 3 } if q == "Q-B2"
    ));
    assert_eq!(error.to_string(), "the embedding of exam_candidates/Q-B2 has 3 dimensions; the others have 2");

    let empty: HashMap<DocKey, Vec<f32>> = complete.keys().map(|k| (k.clone(), Vec::new())).collect();
    assert!(matches!(index.set_embeddings(empty), Err(RetrievalError::EmptyEmbedding(DocKey::UnitAnchor(_)))));

    let mut not_finite = complete.clone();
    not_finite.insert(DocKey::UnitAnchor("NET".into()), vec![f32::NAN, 0.0]);
    assert!(matches!(index.set_embeddings(not_finite), Err(RetrievalError::NonFiniteEmbedding(_))));

    let mut unknown = complete.clone();
    unknown.insert(DocKey::ContentChunk(99), vec![1.0, 0.0]);
    unknown.insert(DocKey::UnitAnchor("NOPE".into()), vec![1.0, 0.0]);
    match index.set_embeddings(unknown) {
        Err(RetrievalError::UnknownDocument(key)) => assert_eq!(key, DocKey::UnitAnchor("NOPE".into())),
        other => panic!("{other:?}"),
    }

    assert_eq!(index.embedding_dimension(), None, "refused vectors change nothing");
    index.set_embeddings(complete).unwrap();
    assert_eq!(index.embedding_dimension(), Some(2));
}
