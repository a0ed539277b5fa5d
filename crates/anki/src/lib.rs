//! Anki packages read: `.apkg` (decks) and `.colpkg` (whole collections) of every format
//! Anki writes (`collection.anki2`, `collection.anki21` and the zstd-compressed
//! `collection.anki21b` named by the package's `meta`), and what they become in Pathwise: a
//! map per deck, a concept per card, the review log as answers with their real times and
//! grades (`plan`). Reading touches only the package given; planning is pure.

mod collection;
mod error;
mod package;
mod plan;
mod proto;
pub mod synthetic;
pub mod text;

pub use collection::{read_collection, Card, Collection, Deck, Note, Notetype, RevlogEntry, Template, NEWEST_SCHEMA};
pub use error::{AnkiError, AnkiResult};
pub use package::{open_package, Package, PackageFormat};
pub use plan::{plan, Answer, AnswerKind, CardPlan, DeckPlan, ImportPlan, SkipReason, UniqueLabels};

/// Open a package and read its collection.
pub fn read(reader: impl std::io::Read + std::io::Seek) -> AnkiResult<Collection> {
    read_collection(open_package(reader)?)
}
