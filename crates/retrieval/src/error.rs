//! What can go wrong: building the index (a tantivy error, which in memory means a bug) and
//! attaching embeddings that do not fit the documents.

use crate::hits::DocKey;
use thiserror::Error;

#[derive(Debug, Error)]
pub enum RetrievalError {
    #[error("the search index could not be built: {0}")]
    Index(#[from] tantivy::TantivyError),
    #[error("no embedding was given for {0}")]
    MissingEmbedding(DocKey),
    #[error("the embedding of {0} is empty")]
    EmptyEmbedding(DocKey),
    #[error("the embedding of {key} has {found} dimensions; the others have {expected}")]
    EmbeddingDimension { key: DocKey, expected: usize, found: usize },
    #[error("the embedding of {0} holds a value that is not a finite number")]
    NonFiniteEmbedding(DocKey),
    #[error("an embedding was given for {0}, which is not a document of this index")]
    UnknownDocument(DocKey),
}
