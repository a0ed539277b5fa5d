//! The policy tutor's retrieval index (policy-tutor.md PF-2.1, PF-3.5), embedded instead of
//! Pinecone.
//!
//! [`CourseIndex`] is built in memory from a [`pathwise_course::Course`] and holds the four
//! namespaces the tutor's prompt draws on: `unit_anchors`, `unit_content_chunks`,
//! `exam_candidates` and `exam_support_chunks`. Ranking is BM25 (tantivy); once embeddings are
//! attached ([`CourseIndex::set_embeddings`]), a query that carries its own embedding is
//! ranked by reciprocal rank fusion of BM25 and cosine similarity.
//!
//! The index is never the source of truth: it is rebuilt from the course at start-up, so
//! nothing in it needs migrating or persisting.

mod analyzer;
mod answer;
mod build;
mod collect;
mod confidence;
mod dense;
mod error;
mod hits;
mod index;
mod namespace;
mod ranking;

pub use error::RetrievalError;
pub use hits::{AnchorHit, ChunkHit, DocKey, ExamCandidateHit, SupportHit, SupportType};
pub use index::{CourseIndex, Query};
