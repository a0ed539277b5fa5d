use thiserror::Error;

/// Why a file could not be read as an Anki package. Each says what was wrong and what a
/// package is, so that whoever chose the file knows what to choose instead.
#[derive(Debug, Error)]
pub enum AnkiError {
    #[error(
        "the file is not an Anki package: {0}. Export a deck from Anki (File > Export, \
         \"Anki Deck Package (*.apkg)\" or \"Anki Collection Package (*.colpkg)\")"
    )]
    NotAPackage(String),
    #[error(
        "the package is encrypted ({0} needs a password); Anki never encrypts its exports, so \
         export the deck from Anki again"
    )]
    Encrypted(String),
    #[error(
        "the package holds no collection (no collection.anki2, collection.anki21 or \
         collection.anki21b); it holds: {0}"
    )]
    NoCollection(String),
    #[error("the package's {entry} is damaged: {reason}")]
    Damaged { entry: String, reason: String },
    #[error("the package's collection is not one Anki wrote: {0}")]
    NotACollection(String),
    #[error(
        "the package was written by a newer Anki (package format {0}; formats 1 to 3 are read) \
         and its collection could not be read: {1}"
    )]
    Newer(u64, String),
    #[error("reading the package failed: {0}")]
    Io(#[from] std::io::Error),
}

pub type AnkiResult<T> = Result<T, AnkiError>;
