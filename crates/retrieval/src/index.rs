//! [`CourseIndex`]: the four namespaces of a course and the queries the tutor runs on them
//! (policy-tutor.md PF-3.5 `ragRetrieve`).

use crate::analyzer::{analyzer, distinct_terms, MAX_QUERY_TERMS};
use crate::build::{self, Anchors, Chunks, Exams, QUESTION, TIER, UNIT};
use crate::confidence::CONTENDERS;
use crate::dense::{unit_query, Vectors};
use crate::error::RetrievalError;
use crate::hits::{AnchorHit, ChunkHit, DocKey, ExamCandidateHit, SupportHit};
use crate::namespace::{Namespace, Scored};
use crate::ranking::{by_score, fused};
use pathwise_course::{Course, MappedUnit, Tier};
use std::collections::HashMap;
use tantivy::query::{BooleanQuery, Query as TantivyQuery};
use tantivy::tokenizer::TextAnalyzer;

/// What to search for: the learner's text and, when embeddings are on, its embedding (of the
/// dimension given to [`CourseIndex::set_embeddings`]; any other vector is ignored).
#[derive(Debug, Clone, Copy, Default)]
pub struct Query<'a> {
    pub text: &'a str,
    pub vector: Option<&'a [f32]>,
}

impl<'a> Query<'a> {
    pub fn text(text: &'a str) -> Query<'a> {
        Query { text, vector: None }
    }

    pub fn with_vector(self, vector: &'a [f32]) -> Query<'a> {
        Query { vector: Some(vector), ..self }
    }
}

/// A course's retrieval index, in memory. Build it from the course whenever the course is
/// loaded; it holds copies of what hits return, so the course need not outlive it.
///
/// Queries take `&self` and the index is `Send + Sync`: share one per course version.
pub struct CourseIndex {
    course_id: String,
    pub(crate) analyzer: TextAnalyzer,
    pub(crate) anchors: Anchors,
    pub(crate) chunks: Chunks,
    exams: Exams,
    embeddings: Option<Embeddings>,
}

/// The vectors of every document, all of one dimension.
struct Embeddings {
    dimension: usize,
    anchors: Vectors,
    chunks: Vectors,
    exams: Vectors,
    support: Vectors,
}

impl CourseIndex {
    /// Builds the four namespaces (about 1.5 s for 2,000 units, 15,000 questions and 50,000
    /// chunks on two cores; tantivy indexes on a thread of its own while this one feeds it).
    pub fn build(course: &Course) -> Result<CourseIndex, RetrievalError> {
        Ok(CourseIndex {
            course_id: course.id().to_string(),
            analyzer: analyzer(),
            anchors: build::unit_anchors(course)?,
            chunks: build::content_chunks(course)?,
            exams: build::exams(course)?,
            embeddings: None,
        })
    }

    pub fn course_id(&self) -> &str {
        &self.course_id
    }

    /// Units a learner's message is about, most likely first: BM25 over the anchors of the whole
    /// course, at most `k`, each with a confidence in 0..1 (see the `confidence` module: a
    /// message clearly about one unit gets 0.55 or more; one that fits several units equally,
    /// or shares only a weak word with one, stays below). Units with confidence 0 are left out;
    /// a message without searchable words maps to nothing.
    ///
    /// Lexical only, even with embeddings: the confidence is calibrated on BM25 scores and on
    /// which of the message's words an anchor contains, which cosine similarity cannot say.
    pub fn map_units(&self, query: &Query, k: usize) -> Vec<MappedUnit> {
        let terms = self.terms(query.text);
        if terms.is_empty() || k == 0 {
            return Vec::new();
        }
        let Some(mut ranked) = self.searched(&self.anchors.namespace, &terms, None) else {
            return Vec::new();
        };
        by_score(&mut ranked, |ordinal| ordinal as usize);
        ranked.truncate(k.max(CONTENDERS));
        let confidences = self.anchors.vocabulary.confidences(&terms, &ranked);
        let mut mapped: Vec<(usize, MappedUnit)> = ranked
            .iter()
            .zip(confidences)
            .enumerate()
            .filter(|(_, (_, confidence))| *confidence > 0.0)
            .map(|(rank, (scored, confidence))| {
                let unit_id = self.anchors.hits[scored.ordinal as usize].unit_id.clone();
                (rank, MappedUnit { unit_id, confidence })
            })
            .collect();
        mapped.sort_by(|(rank_a, a), (rank_b, b)| b.confidence.total_cmp(&a.confidence).then(rank_a.cmp(rank_b)));
        mapped.into_iter().map(|(_, unit)| unit).take(k).collect()
    }

    /// The anchors of `scoped_units` that best fit the query, at most `k` (the spec asks for 6).
    /// Units outside the scope never appear. Without searchable words, or past the units that
    /// match a word, anchors come in the order of `scoped_units`.
    pub fn unit_anchors(&self, query: &Query, scoped_units: &[String], k: usize) -> Vec<AnchorHit> {
        if scoped_units.is_empty() || k == 0 {
            return Vec::new();
        }
        let mut scope_position: HashMap<&str, usize> = HashMap::with_capacity(scoped_units.len());
        for (position, unit) in scoped_units.iter().enumerate() {
            scope_position.entry(unit.as_str()).or_insert(position);
        }
        let tie = |ordinal: u32| {
            let unit = self.anchors.hits[ordinal as usize].unit_id.as_str();
            scope_position.get(unit).copied().unwrap_or(usize::MAX)
        };
        let filter = self.anchors.namespace.keyword_in(UNIT, scoped_units);
        let vectors = self.embeddings.as_ref().map(|e| &e.anchors);
        self.ranked(&self.anchors.namespace, query, filter, vectors, tie, k)
            .into_iter()
            .map(|s| AnchorHit { score: s.score, ..self.anchors.hits[s.ordinal as usize].clone() })
            .collect()
    }

    /// The content chunk at `position` among the course's chunks ([`pathwise_course::Course::chunks`]).
    pub fn content_chunk(&self, position: usize) -> Option<ChunkHit> {
        self.chunks.hits.get(position).cloned()
    }

    /// The content chunks of `scoped_units` that best fit the query, at most `k` (the spec asks
    /// for 8). Without searchable words, or past the chunks that match a word, chunks come in
    /// the course's order.
    pub fn unit_content_chunks(&self, query: &Query, scoped_units: &[String], k: usize) -> Vec<ChunkHit> {
        if scoped_units.is_empty() || k == 0 {
            return Vec::new();
        }
        let filter = self.chunks.namespace.keyword_in(UNIT, scoped_units);
        let vectors = self.embeddings.as_ref().map(|e| &e.chunks);
        self.ranked(&self.chunks.namespace, query, filter, vectors, |ordinal| ordinal as usize, k)
            .into_iter()
            .map(|s| ChunkHit { score: s.score, ..self.chunks.hits[s.ordinal as usize].clone() })
            .collect()
    }

    /// Exam questions that examine `unit` at `tier`, best fit first, at most `k` (the spec asks
    /// for 10); metadata only. Without searchable words, or past the questions that match a
    /// word, questions come in the course's order.
    pub fn exam_candidates(&self, query: &Query, unit: &str, tier: Tier, k: usize) -> Vec<ExamCandidateHit> {
        if k == 0 {
            return Vec::new();
        }
        let filter = Box::new(BooleanQuery::intersection(vec![
            self.exams.candidates.keyword_is(UNIT, unit),
            self.exams.candidates.keyword_is(TIER, tier.name()),
        ]));
        let vectors = self.embeddings.as_ref().map(|e| &e.exams);
        self.ranked(&self.exams.candidates, query, filter, vectors, |ordinal| ordinal as usize, k)
            .into_iter()
            .map(|s| ExamCandidateHit { score: s.score, ..self.exams.hits[s.ordinal as usize].clone() })
            .collect()
    }

    /// Memos and video transcripts of the given questions that best fit the query, at most `k`.
    /// Without searchable words, or past the ones that match a word, they come in the course's
    /// order (a question's memo before its video).
    pub fn exam_support_chunks(&self, query: &Query, question_ids: &[String], k: usize) -> Vec<SupportHit> {
        if question_ids.is_empty() || k == 0 {
            return Vec::new();
        }
        let filter = self.exams.support.keyword_in(QUESTION, question_ids);
        let vectors = self.embeddings.as_ref().map(|e| &e.support);
        self.ranked(&self.exams.support, query, filter, vectors, |ordinal| ordinal as usize, k)
            .into_iter()
            .map(|s| SupportHit { score: s.score, ..self.exams.support_hits[s.ordinal as usize].clone() })
            .collect()
    }

    /// Every document with the text to embed for it, in a fixed order (anchors, chunks, exam
    /// candidates, support), for callers that compute embeddings and then call
    /// [`CourseIndex::set_embeddings`]. Exam candidates are embedded by their stem and tags: the
    /// stem is what a learner's words resemble, even though hits never return it.
    pub fn documents(&self) -> Vec<(DocKey, String)> {
        let mut documents = Vec::with_capacity(self.len());
        for hit in &self.anchors.hits {
            documents.push((DocKey::UnitAnchor(hit.unit_id.clone()), anchor_text(hit)));
        }
        for (position, hit) in self.chunks.hits.iter().enumerate() {
            let text = match &hit.section {
                Some(section) => format!("{section}\n{}", hit.text),
                None => hit.text.clone(),
            };
            documents.push((DocKey::ContentChunk(position), text));
        }
        for (hit, stem) in self.exams.hits.iter().zip(&self.exams.stems) {
            let text =
                if hit.tags.is_empty() { stem.clone() } else { format!("{stem}\nTags: {}", hit.tags.join(", ")) };
            documents.push((DocKey::ExamCandidate(hit.question_id.clone()), text));
        }
        for hit in &self.exams.support_hits {
            documents.push((DocKey::ExamSupport(hit.question_id.clone(), hit.support_type), hit.text.clone()));
        }
        documents
    }

    /// Attaches one embedding per document (every key of [`CourseIndex::documents`], all of one
    /// non-zero dimension, finite values). From then on, a query with a vector of that dimension
    /// is ranked by reciprocal rank fusion of BM25 and cosine similarity. Nothing changes when
    /// the vectors are refused; the error names the first document at fault, in the order of
    /// `documents()`.
    pub fn set_embeddings(&mut self, mut vectors: HashMap<DocKey, Vec<f32>>) -> Result<(), RetrievalError> {
        let keys = self.document_keys();
        let dimension = match keys.first() {
            Some(first) => match vectors.get(first) {
                Some(vector) if vector.is_empty() => return Err(RetrievalError::EmptyEmbedding(first.clone())),
                Some(vector) => vector.len(),
                None => return Err(RetrievalError::MissingEmbedding(first.clone())),
            },
            None => 0,
        };
        let counts =
            [self.anchors.hits.len(), self.chunks.hits.len(), self.exams.hits.len(), self.exams.support_hits.len()];
        let mut namespaces = counts.map(|count| Vectors::with_capacity(dimension, count));
        let mut key_iter = keys.into_iter();
        for (namespace, count) in namespaces.iter_mut().zip(counts) {
            for key in key_iter.by_ref().take(count) {
                let Some(vector) = vectors.remove(&key) else {
                    return Err(RetrievalError::MissingEmbedding(key));
                };
                if vector.len() != dimension {
                    return Err(RetrievalError::EmbeddingDimension { key, expected: dimension, found: vector.len() });
                }
                if !vector.iter().all(|x| x.is_finite()) {
                    return Err(RetrievalError::NonFiniteEmbedding(key));
                }
                namespace.push(&vector);
            }
        }
        if let Some(unknown) = vectors.into_keys().min() {
            return Err(RetrievalError::UnknownDocument(unknown));
        }
        let [anchors, chunks, exams, support] = namespaces;
        self.embeddings = Some(Embeddings { dimension, anchors, chunks, exams, support });
        Ok(())
    }

    /// The dimension of the attached embeddings, if any.
    pub fn embedding_dimension(&self) -> Option<usize> {
        self.embeddings.as_ref().map(|e| e.dimension)
    }

    /// The number of documents, over all four namespaces.
    pub fn len(&self) -> usize {
        self.anchors.hits.len() + self.chunks.hits.len() + self.exams.hits.len() + self.exams.support_hits.len()
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// The keys of [`CourseIndex::documents`], in the same order.
    fn document_keys(&self) -> Vec<DocKey> {
        let anchors = self.anchors.hits.iter().map(|h| DocKey::UnitAnchor(h.unit_id.clone()));
        let chunks = (0..self.chunks.hits.len()).map(DocKey::ContentChunk);
        let exams = self.exams.hits.iter().map(|h| DocKey::ExamCandidate(h.question_id.clone()));
        let support =
            self.exams.support_hits.iter().map(|h| DocKey::ExamSupport(h.question_id.clone(), h.support_type));
        anchors.chain(chunks).chain(exams).chain(support).collect()
    }

    fn terms(&self, text: &str) -> Vec<String> {
        distinct_terms(&mut self.analyzer.clone(), text, MAX_QUERY_TERMS)
    }

    /// The filtered documents of a namespace, best first, at most `k`: by BM25, or by RRF with
    /// the dense ranking when the index has embeddings and the query a usable vector; in `tie`
    /// order when the text has no searchable words (a button press has nothing to rank by).
    fn ranked<const KEYWORDS: usize>(
        &self,
        namespace: &Namespace<KEYWORDS>,
        query: &Query,
        filter: Box<dyn TantivyQuery>,
        vectors: Option<&Vectors>,
        tie: impl Fn(u32) -> usize,
        k: usize,
    ) -> Vec<Scored> {
        let terms = self.terms(query.text);
        let Some(mut candidates) = self.searched(namespace, &terms, Some(filter)) else {
            return Vec::new();
        };
        let dense_query = match (self.embeddings.as_ref(), query.vector) {
            (Some(embeddings), Some(vector)) if !terms.is_empty() => unit_query(vector, embeddings.dimension),
            _ => None,
        };
        let mut ranked = match (vectors, dense_query) {
            (Some(vectors), Some(unit)) => fused(&candidates, |ordinal| vectors.similarity(ordinal, &unit), &tie),
            _ => {
                by_score(&mut candidates, &tie);
                candidates
            }
        };
        ranked.truncate(k);
        ranked
    }

    /// A namespace's matches, or `None` (logged) if tantivy failed, which in memory can only be
    /// a bug: retrieval is context for the model, and a turn goes on without it.
    pub(crate) fn searched<const KEYWORDS: usize>(
        &self,
        namespace: &Namespace<KEYWORDS>,
        terms: &[String],
        filter: Option<Box<dyn TantivyQuery>>,
    ) -> Option<Vec<Scored>> {
        match namespace.search(terms, filter) {
            Ok(matches) => Some(matches),
            Err(error) => {
                tracing::error!(namespace = namespace.name(), %error, "retrieval failed; returning no hits");
                None
            }
        }
    }
}

/// An anchor as one text: what the unit is, its tags and the mistakes made there.
fn anchor_text(hit: &AnchorHit) -> String {
    let mut text = format!("{}\n{}", hit.title, hit.anchor_text);
    if !hit.tags.is_empty() {
        text.push_str(&format!("\nTags: {}", hit.tags.join(", ")));
    }
    if !hit.misconceptions.is_empty() {
        text.push_str(&format!("\nCommon mistakes: {}", hit.misconceptions.join("; ")));
    }
    text
}
