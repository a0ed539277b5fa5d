//! The collection: decks, note types, notes, cards and the review log, read from the SQLite
//! database a package holds. Two layouts: schema 11 (decks and note types as JSON in the
//! `col` row: `collection.anki2` and `collection.anki21`) and schema 18 (tables of their
//! own, deck names split by U+001F: `collection.anki21b`).

use crate::error::{AnkiError, AnkiResult};
use crate::package::{Package, PackageFormat};
use rusqlite::{Connection, OpenFlags};
use serde::Deserialize;
use std::collections::HashMap;
use std::io::Write;

/// The newest collection schema this reader knows (Anki 2.1.50 and later write 18).
pub const NEWEST_SCHEMA: i64 = 18;

#[derive(Debug, Clone, PartialEq)]
pub struct Deck {
    pub id: i64,
    /// The full name, parents first, joined with `::` as Anki shows it.
    pub name: String,
    /// A filtered deck: its cards belong to their home decks.
    pub filtered: bool,
}

#[derive(Debug, Clone, PartialEq)]
pub struct Notetype {
    pub id: i64,
    pub name: String,
    pub fields: Vec<String>,
    /// Templates by ordinal (a cloze note type has one for every cloze).
    pub templates: Vec<Template>,
    pub cloze: bool,
}

#[derive(Debug, Clone, PartialEq)]
pub struct Template {
    pub name: String,
    /// The front's format (`{{Front}}`, `{{cloze:Text}}`, ...).
    pub question: String,
}

impl Notetype {
    /// The field a template's front asks (the first it shows), by position.
    pub fn question_field(&self, ord: i64) -> Option<usize> {
        let template = self.templates.get(usize::try_from(ord).ok()?)?;
        template.question.split("{{").skip(1).find_map(|part| {
            let reference = part.split("}}").next()?.trim();
            if reference.starts_with(['#', '^', '/', '!']) {
                return None;
            }
            // `{{type:Back}}`, `{{cloze:Text}}`, `{{furigana:Word}}`: the field follows the filters.
            let name = reference.rsplit(':').next()?.trim();
            self.fields.iter().position(|f| f == name)
        })
    }
}

#[derive(Debug, Clone, PartialEq)]
pub struct Note {
    pub id: i64,
    pub guid: String,
    pub notetype_id: i64,
    /// The fields as stored (HTML), in the note type's order.
    pub fields: Vec<String>,
    pub tags: Vec<String>,
}

#[derive(Debug, Clone, PartialEq)]
pub struct Card {
    pub id: i64,
    pub note_id: i64,
    /// The card's home deck (for a card in a filtered deck, the deck it came from).
    pub deck_id: i64,
    /// Which template (or, for a cloze, which cloze number minus one) made the card.
    pub ord: i64,
    /// Anki's queue: negative for suspended (-1) and buried (-2, -3) cards.
    pub queue: i64,
}

/// One row of Anki's review log.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct RevlogEntry {
    /// When the answer was given, in milliseconds since the epoch (also the row's id).
    pub id: i64,
    pub card_id: i64,
    /// 1 Again, 2 Hard, 3 Good, 4 Easy; 0 for rows that record no answer.
    pub ease: i64,
    /// The interval given: days if positive, seconds if negative.
    pub interval: i64,
    pub last_interval: i64,
    /// The ease factor, in permille.
    pub factor: i64,
    /// Time taken to answer, in milliseconds.
    pub time_ms: i64,
    /// 0 learning, 1 review, 2 relearning, 3 filtered (cram), 4 manual, 5 rescheduled.
    pub kind: i64,
}

/// A collection as read: everything a deck needs to become a map, and nothing else.
#[derive(Debug, Clone)]
pub struct Collection {
    pub format: PackageFormat,
    /// `col.ver`.
    pub schema: i64,
    pub decks: Vec<Deck>,
    pub notetypes: HashMap<i64, Notetype>,
    pub notes: Vec<Note>,
    pub cards: Vec<Card>,
    /// Oldest first.
    pub revlog: Vec<RevlogEntry>,
    pub media_files: usize,
    /// Set when the package or the collection is newer than this reader knows: it was read
    /// as far as the known layout goes.
    pub newer: Option<String>,
}

/// Read the collection a package holds.
pub fn read_collection(package: Package) -> AnkiResult<Collection> {
    let newer_format = package.newer_format;
    let read = read_database(&package.collection).map(|parts| (package.format, parts));
    let (format, (schema, decks, notetypes, notes, cards, revlog)) = match (read, newer_format) {
        (Ok(read), _) => read,
        (Err(e), Some(version)) => return Err(AnkiError::Newer(version, e.to_string())),
        (Err(e), None) => return Err(e),
    };
    let newer = match (newer_format, schema > NEWEST_SCHEMA) {
        (Some(version), _) => Some(format!("package format {version} (formats 1 to 3 are known)")),
        (None, true) => Some(format!("collection schema {schema} (schemas up to {NEWEST_SCHEMA} are known)")),
        (None, false) => None,
    };
    Ok(Collection { format, schema, decks, notetypes, notes, cards, revlog, media_files: package.media_files, newer })
}

type Parts = (i64, Vec<Deck>, HashMap<i64, Notetype>, Vec<Note>, Vec<Card>, Vec<RevlogEntry>);

fn read_database(bytes: &[u8]) -> AnkiResult<Parts> {
    if !bytes.starts_with(b"SQLite format 3\0") {
        return Err(AnkiError::NotACollection("it is not an SQLite database".into()));
    }
    // SQLite reads a database from a file; the file is private and removed when dropped.
    let mut file = tempfile::NamedTempFile::new()?;
    file.write_all(bytes)?;
    file.flush()?;
    let db =
        Connection::open_with_flags(file.path(), OpenFlags::SQLITE_OPEN_READ_ONLY | OpenFlags::SQLITE_OPEN_NO_MUTEX)
            .map_err(not_a_collection)?;
    // Anki's case-insensitive collation, which schema 18's names are declared with.
    db.create_collation("unicase", |a, b| a.to_lowercase().cmp(&b.to_lowercase())).map_err(not_a_collection)?;
    let tables: Vec<String> = db
        .prepare("SELECT name FROM sqlite_master WHERE type = 'table'")
        .and_then(|mut s| s.query_map([], |r| r.get(0))?.collect())
        .map_err(not_a_collection)?;
    let missing: Vec<&str> =
        ["col", "notes", "cards", "revlog"].into_iter().filter(|t| !tables.iter().any(|have| have == t)).collect();
    if !missing.is_empty() {
        return Err(AnkiError::NotACollection(format!("it has no {} table", missing.join(", "))));
    }
    let (schema, models_json, decks_json): (i64, String, String) = db
        .query_row("SELECT ver, COALESCE(models, ''), COALESCE(decks, '') FROM col LIMIT 1", [], |r| {
            Ok((r.get(0)?, r.get(1)?, r.get(2)?))
        })
        .map_err(not_a_collection)?;
    let has_table = |name: &str| tables.iter().any(|t| t == name);
    let decks = if has_table("decks") { decks_of_tables(&db)? } else { decks_of_json(&decks_json)? };
    let notetypes = if has_table("notetypes") { notetypes_of_tables(&db)? } else { notetypes_of_json(&models_json)? };
    let notes = query(&db, "SELECT id, guid, mid, flds, tags FROM notes ORDER BY id", |r| {
        let fields: String = r.get(3)?;
        let tags: String = r.get(4)?;
        Ok(Note {
            id: r.get(0)?,
            guid: r.get(1)?,
            notetype_id: r.get(2)?,
            fields: fields.split('\u{1f}').map(str::to_string).collect(),
            tags: tags.split_whitespace().map(str::to_string).collect(),
        })
    })?;
    let cards = query(
        &db,
        "SELECT id, nid, CASE WHEN odid != 0 THEN odid ELSE did END, ord, queue FROM cards ORDER BY nid, ord",
        |r| Ok(Card { id: r.get(0)?, note_id: r.get(1)?, deck_id: r.get(2)?, ord: r.get(3)?, queue: r.get(4)? }),
    )?;
    let revlog = query(&db, "SELECT id, cid, ease, ivl, lastIvl, factor, time, type FROM revlog ORDER BY id", |r| {
        Ok(RevlogEntry {
            id: r.get(0)?,
            card_id: r.get(1)?,
            ease: r.get(2)?,
            interval: r.get(3)?,
            last_interval: r.get(4)?,
            factor: r.get(5)?,
            time_ms: r.get(6)?,
            kind: r.get(7)?,
        })
    })?;
    Ok((schema, decks, notetypes, notes, cards, revlog))
}

fn query<T>(
    db: &Connection,
    sql: &str,
    row: impl FnMut(&rusqlite::Row<'_>) -> rusqlite::Result<T>,
) -> AnkiResult<Vec<T>> {
    db.prepare(sql).and_then(|mut s| s.query_map([], row)?.collect()).map_err(not_a_collection)
}

fn not_a_collection(e: rusqlite::Error) -> AnkiError {
    AnkiError::NotACollection(e.to_string())
}

#[derive(Deserialize)]
struct JsonDeck {
    id: i64,
    name: String,
    #[serde(default, rename = "dyn")]
    filtered: serde_json::Value,
}

fn decks_of_json(json: &str) -> AnkiResult<Vec<Deck>> {
    let decks: HashMap<String, JsonDeck> = serde_json::from_str(json)
        .map_err(|e| AnkiError::NotACollection(format!("its deck list is not Anki's ({e})")))?;
    let mut decks: Vec<Deck> = decks
        .into_values()
        .map(|d| Deck {
            id: d.id,
            name: d.name,
            filtered: d.filtered.as_i64().map(|f| f != 0).or(d.filtered.as_bool()).unwrap_or(false),
        })
        .collect();
    decks.sort_by_key(|d| d.id);
    Ok(decks)
}

fn decks_of_tables(db: &Connection) -> AnkiResult<Vec<Deck>> {
    query(db, "SELECT id, name, kind FROM decks ORDER BY id", |r| {
        let name: String = r.get(1)?;
        let kind: Vec<u8> = r.get(2)?;
        // `DeckKindContainer` is a oneof: field 1 a normal deck, field 2 a filtered one.
        let filtered = crate::proto::fields(&kind).is_some_and(|f| f.iter().any(|(n, _)| *n == 2));
        Ok(Deck { id: r.get(0)?, name: name.split('\u{1f}').collect::<Vec<_>>().join("::"), filtered })
    })
}

#[derive(Deserialize)]
struct JsonNotetype {
    id: serde_json::Value,
    name: String,
    #[serde(default, rename = "type")]
    kind: i64,
    #[serde(default)]
    flds: Vec<JsonNamed>,
    #[serde(default)]
    tmpls: Vec<JsonNamed>,
}

#[derive(Deserialize)]
struct JsonNamed {
    name: String,
    #[serde(default)]
    ord: Option<i64>,
    #[serde(default)]
    qfmt: String,
}

fn by_ord(mut named: Vec<JsonNamed>) -> Vec<JsonNamed> {
    named.sort_by_key(|n| n.ord.unwrap_or(i64::MAX));
    named
}

fn notetypes_of_json(json: &str) -> AnkiResult<HashMap<i64, Notetype>> {
    let models: HashMap<String, JsonNotetype> = serde_json::from_str(json)
        .map_err(|e| AnkiError::NotACollection(format!("its note types are not Anki's ({e})")))?;
    Ok(models
        .into_iter()
        .filter_map(|(key, m)| {
            // Anki 2.0 wrote ids as numbers, some tools as strings; the key is the id too.
            let id =
                m.id.as_i64().or_else(|| m.id.as_str().and_then(|s| s.parse().ok())).or_else(|| key.parse().ok())?;
            let fields = by_ord(m.flds).into_iter().map(|f| f.name).collect();
            let templates = by_ord(m.tmpls).into_iter().map(|t| Template { name: t.name, question: t.qfmt }).collect();
            Some((id, Notetype { id, name: m.name, fields, templates, cloze: m.kind == 1 }))
        })
        .collect())
}

fn notetypes_of_tables(db: &Connection) -> AnkiResult<HashMap<i64, Notetype>> {
    let mut notetypes: HashMap<i64, Notetype> = query(db, "SELECT id, name, config FROM notetypes", |r| {
        let config: Vec<u8> = r.get(2)?;
        // `Notetype.Config.kind` (field 1) is 1 for a cloze note type.
        let cloze = crate::proto::varint_field(&config, 1) == 1;
        Ok(Notetype { id: r.get(0)?, name: r.get(1)?, fields: Vec::new(), templates: Vec::new(), cloze })
    })?
    .into_iter()
    .map(|n| (n.id, n))
    .collect();
    for (ntid, name) in
        query(db, "SELECT ntid, name FROM fields ORDER BY ntid, ord", |r| Ok((r.get::<_, i64>(0)?, r.get(1)?)))?
    {
        if let Some(n) = notetypes.get_mut(&ntid) {
            n.fields.push(name);
        }
    }
    let templates = query(db, "SELECT ntid, name, config FROM templates ORDER BY ntid, ord", |r| {
        Ok((r.get::<_, i64>(0)?, r.get::<_, String>(1)?, r.get::<_, Vec<u8>>(2)?))
    })?;
    for (ntid, name, config) in templates {
        if let Some(n) = notetypes.get_mut(&ntid) {
            // `Notetype.Template.Config.q_format` is field 1.
            n.templates.push(Template { name, question: crate::proto::text_field(&config, 1).unwrap_or_default() });
        }
    }
    Ok(notetypes)
}
