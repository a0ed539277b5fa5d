//! Building the namespaces from a course: what each one searches, what it filters on, and the
//! metadata its hits return (kept beside the index, by ordinal, in the course's order).

use crate::analyzer::{analyzer, distinct_terms};
use crate::confidence::AnchorVocabulary;
use crate::hits::{AnchorHit, ChunkHit, ExamCandidateHit, SupportHit, SupportType};
use crate::namespace::{Namespace, NamespaceBuilder, NewDocument, TextField};
use pathwise_course::Course;

// Searchable fields per namespace. A title, tag or section names what a document is about, so
// a match there counts more than one in running text.
const ANCHOR_TEXTS: [TextField; 4] = [
    TextField { name: "title", boost: 2.0 },
    TextField { name: "tags", boost: 1.5 },
    TextField { name: "misconceptions", boost: 1.0 },
    TextField { name: "anchor_text", boost: 1.0 },
];
const CHUNK_TEXTS: [TextField; 2] = [TextField { name: "section", boost: 1.5 }, TextField { name: "text", boost: 1.0 }];
const EXAM_TEXTS: [TextField; 2] = [TextField { name: "stem", boost: 1.0 }, TextField { name: "tags", boost: 1.5 }];
const SUPPORT_TEXTS: [TextField; 1] = [TextField { name: "text", boost: 1.0 }];

/// Keyword (exact-match filter) fields, by position: anchors, chunks and exam candidates have a
/// unit, exam candidates a tier too, support chunks a question.
pub(crate) const UNIT: usize = 0;
pub(crate) const TIER: usize = 1;
pub(crate) const QUESTION: usize = 0;

/// `unit_anchors`: one document per unit.
pub(crate) struct Anchors {
    pub namespace: Namespace<1>,
    pub hits: Vec<AnchorHit>,
    pub vocabulary: AnchorVocabulary,
}

/// `unit_content_chunks`: one document per chunk.
pub(crate) struct Chunks {
    pub namespace: Namespace<1>,
    pub hits: Vec<ChunkHit>,
}

/// `exam_candidates` (one document per question) and `exam_support_chunks` (its memo, and its
/// video's transcript when it has one).
pub(crate) struct Exams {
    pub candidates: Namespace<2>,
    pub hits: Vec<ExamCandidateHit>,
    /// Searched and embedded, never returned.
    pub stems: Vec<String>,
    pub support: Namespace<1>,
    pub support_hits: Vec<SupportHit>,
}

pub(crate) fn unit_anchors(course: &Course) -> tantivy::Result<Anchors> {
    let mut analyzer = analyzer();
    let mut namespace = NamespaceBuilder::new("unit_anchors", ANCHOR_TEXTS, ["unit"])?;
    let mut hits = Vec::with_capacity(course.units().len());
    let mut vocabulary = AnchorVocabulary::default();
    for unit in course.units() {
        let tags: Vec<&str> = unit.tags.iter().map(String::as_str).collect();
        let misconceptions: Vec<&str> = unit.misconceptions.iter().map(String::as_str).collect();
        let texts = [&[unit.title.as_str()][..], &tags, &misconceptions, &[unit.anchor.as_str()]];
        namespace.add(NewDocument { texts, keywords: [&[unit.id.as_str()]] })?;
        vocabulary.add_document(
            texts
                .iter()
                .flat_map(|field| field.iter())
                .flat_map(|text| distinct_terms(&mut analyzer, text, usize::MAX)),
        );
        hits.push(AnchorHit {
            unit_id: unit.id.clone(),
            title: unit.title.clone(),
            anchor_text: unit.anchor.clone(),
            tags: unit.tags.clone(),
            misconceptions: unit.misconceptions.clone(),
            score: 0.0,
        });
    }
    Ok(Anchors { namespace: namespace.finish()?, hits, vocabulary })
}

pub(crate) fn content_chunks(course: &Course) -> tantivy::Result<Chunks> {
    let mut namespace = NamespaceBuilder::new("unit_content_chunks", CHUNK_TEXTS, ["unit"])?;
    let mut hits = Vec::with_capacity(course.chunks().len());
    for chunk in course.chunks() {
        let section: &[&str] = match &chunk.section {
            Some(section) => &[section.as_str()],
            None => &[],
        };
        namespace.add(NewDocument { texts: [section, &[chunk.text.as_str()]], keywords: [&[chunk.unit.as_str()]] })?;
        hits.push(ChunkHit {
            passage_id: chunk.id.clone(),
            course_id: course.id().to_string(),
            unit_id: chunk.unit.clone(),
            chunk_type: chunk.chunk_type,
            source_id: chunk.source_id.clone(),
            section: chunk.section.clone(),
            text: chunk.text.clone(),
            score: 0.0,
        });
    }
    Ok(Chunks { namespace: namespace.finish()?, hits })
}

pub(crate) fn exams(course: &Course) -> tantivy::Result<Exams> {
    let mut candidates = NamespaceBuilder::new("exam_candidates", EXAM_TEXTS, ["unit", "tier"])?;
    let mut support = NamespaceBuilder::new("exam_support_chunks", SUPPORT_TEXTS, ["question"])?;
    let questions = course.questions();
    let mut hits = Vec::with_capacity(questions.len());
    let mut stems = Vec::with_capacity(questions.len());
    let mut support_hits = Vec::with_capacity(questions.len());
    for question in questions {
        let tags: Vec<&str> = question.tags.iter().map(String::as_str).collect();
        let units: Vec<&str> = question.units.iter().map(String::as_str).collect();
        candidates.add(NewDocument {
            texts: [&[question.stem.as_str()], &tags],
            keywords: [&units, &[question.tier.name()]],
        })?;
        hits.push(ExamCandidateHit {
            course_id: course.id().to_string(),
            question_id: question.id.clone(),
            unit_ids: question.units.clone(),
            difficulty_tier: question.tier,
            tags: question.tags.clone(),
            score: 0.0,
        });
        stems.push(question.stem.clone());
        let memo = Some((SupportType::Memo, &question.memo));
        let video = question.video_transcript.as_ref().map(|transcript| (SupportType::Video, transcript));
        for (support_type, text) in memo.into_iter().chain(video) {
            support.add(NewDocument { texts: [&[text.as_str()]], keywords: [&[question.id.as_str()]] })?;
            support_hits.push(SupportHit {
                question_id: question.id.clone(),
                support_type,
                text: text.clone(),
                score: 0.0,
            });
        }
    }
    Ok(Exams { candidates: candidates.finish()?, hits, stems, support: support.finish()?, support_hits })
}
