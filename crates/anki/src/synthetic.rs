//! Generated Anki packages, for the import benchmark: a collection as Anki 2.1 writes it
//! (schema 11 in `collection.anki21`, `meta` naming it), its decks of basic notes, and a
//! review log of a chosen length, the same for the same seed. Each card is learned (two
//! learning steps the same day), then reviewed at intervals that grow on Good and Easy and
//! start again after Again, graded about as Anki users grade (Again 10%, Hard 10%, Good
//! 70%, Easy 10%); intervals stop growing at two months.

use std::io::{Seek, Write};
use zip::write::SimpleFileOptions;

/// What to generate.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Synthetic {
    pub decks: usize,
    pub cards: usize,
    pub reviews: usize,
    pub seed: u64,
}

const SCHEMA_11: &str = "
CREATE TABLE col (id integer primary key, crt integer not null, mod integer not null, scm integer not null,
  ver integer not null, dty integer not null, usn integer not null, ls integer not null, conf text not null,
  models text not null, decks text not null, dconf text not null, tags text not null);
CREATE TABLE notes (id integer primary key, guid text not null, mid integer not null, mod integer not null,
  usn integer not null, tags text not null, flds text not null, sfld integer not null, csum integer not null,
  flags integer not null, data text not null);
CREATE TABLE cards (id integer primary key, nid integer not null, did integer not null, ord integer not null,
  mod integer not null, usn integer not null, type integer not null, queue integer not null, due integer not null,
  ivl integer not null, factor integer not null, reps integer not null, lapses integer not null, left integer not null,
  odue integer not null, odid integer not null, flags integer not null, data text not null);
CREATE TABLE revlog (id integer primary key, cid integer not null, usn integer not null, ease integer not null,
  ivl integer not null, lastIvl integer not null, factor integer not null, time integer not null, type integer not null);
CREATE TABLE graves (usn integer not null, oid integer not null, type integer not null);
CREATE INDEX ix_cards_nid on cards (nid);
CREATE INDEX ix_revlog_cid on revlog (cid);
";

/// The model every generated note uses.
const MODEL_ID: i64 = 1_342_697_561_419;
/// 2021-12-20, the first review's day: early enough that a card started a year later and
/// reviewed for two and a half years is still in the past (a review dated after the
/// importing server's clock is skipped).
const START_MS: i64 = 1_640_000_000_000;
const DAY_MS: i64 = 86_400_000;
/// The longest interval given: twenty reviews then span about two and a half years.
const MAX_INTERVAL_DAYS: i64 = 60;

/// Write the package `spec` describes to `out`.
pub fn write_package(spec: Synthetic, out: impl Write + Seek) -> Result<(), Box<dyn std::error::Error + Send + Sync>> {
    let file = tempfile::NamedTempFile::new()?;
    fill_collection(spec, file.path())?;
    let mut zip = zip::ZipWriter::new(out);
    let stored = SimpleFileOptions::default().compression_method(zip::CompressionMethod::Stored);
    zip.start_file("meta", stored)?;
    zip.write_all(&[0x08, 0x02])?;
    zip.start_file("collection.anki21", SimpleFileOptions::default())?;
    std::io::copy(&mut std::fs::File::open(file.path())?, &mut zip)?;
    zip.start_file("media", SimpleFileOptions::default())?;
    zip.write_all(b"{}")?;
    zip.finish()?;
    Ok(())
}

fn fill_collection(spec: Synthetic, path: &std::path::Path) -> rusqlite::Result<()> {
    let mut db = rusqlite::Connection::open(path)?;
    db.execute_batch(SCHEMA_11)?;
    let decks: serde_json::Map<String, serde_json::Value> = (0..spec.decks)
        .map(|d| {
            let id = 1_600_000_000_000 + d as i64;
            (id.to_string(), serde_json::json!({ "id": id, "name": format!("Generated::Deck {d}"), "dyn": 0 }))
        })
        .collect();
    let models = serde_json::json!({ MODEL_ID.to_string(): {
        "id": MODEL_ID, "name": "Basic", "type": 0,
        "flds": [{ "name": "Front", "ord": 0 }, { "name": "Back", "ord": 1 }],
        "tmpls": [{ "name": "Card 1", "ord": 0, "qfmt": "{{Front}}", "afmt": "{{FrontSide}}<hr id=answer>{{Back}}" }]
    }});
    let tx = db.transaction()?;
    tx.execute(
        "INSERT INTO col VALUES (1, 1700000000, 0, 0, 11, 0, 0, 0, '{}', ?1, ?2, '{}', '{}')",
        (models.to_string(), serde_json::Value::Object(decks).to_string()),
    )?;
    let mut random = Xorshift(spec.seed.max(1));
    {
        let mut note = tx.prepare("INSERT INTO notes VALUES (?1, ?2, ?3, 0, -1, '', ?4, ?5, 0, 0, '')")?;
        let mut card =
            tx.prepare("INSERT INTO cards VALUES (?1, ?2, ?3, 0, 0, -1, 2, 2, 0, 1, 2500, 0, 0, 0, 0, 0, 0, '')")?;
        let mut review = tx.prepare("INSERT INTO revlog VALUES (?1, ?2, -1, ?3, ?4, ?5, 2500, ?6, ?7)")?;
        let mut used = std::collections::HashSet::with_capacity(spec.reviews);
        for c in 0..spec.cards {
            let (note_id, card_id) = (1_500_000_000_000 + c as i64, 1_400_000_000_000 + c as i64);
            let deck = 1_600_000_000_000 + (c % spec.decks.max(1)) as i64;
            note.execute((
                note_id,
                format!("g{c}"),
                MODEL_ID,
                format!("word {c}\u{1f}meaning {c}"),
                format!("word {c}"),
            ))?;
            card.execute((card_id, note_id, deck))?;
            // This card's share of the reviews, its first on a day of its own.
            let count = spec.reviews / spec.cards.max(1) + usize::from(c < spec.reviews % spec.cards.max(1));
            let mut at = START_MS + (c as i64 % 365) * DAY_MS;
            let mut interval = 1i64;
            for n in 0..count {
                let ease = match random.next() % 10 {
                    0 => 1,
                    1 => 2,
                    9 => 4,
                    _ => 3,
                };
                let kind = if n < 2 { 0 } else { 1 };
                let last = interval;
                interval = match (kind, ease) {
                    (0, _) => 1,
                    (_, 1) => 1,
                    (_, 2) => (interval as f64 * 1.2).ceil() as i64,
                    (_, 4) => interval * 3,
                    _ => (interval as f64 * 2.5).ceil() as i64,
                }
                .min(MAX_INTERVAL_DAYS);
                // Row ids are the answers' times, unique across the log.
                let mut id = at;
                while !used.insert(id) {
                    id += 1;
                }
                review.execute((id, card_id, ease, interval, last, 3_000 + (random.next() % 9_000) as i64, kind))?;
                at += if kind == 0 { 600_000 } else { interval * DAY_MS };
            }
        }
    }
    tx.commit()
}

/// A small generator, the same sequence for the same seed (no dependency for it).
struct Xorshift(u64);

impl Xorshift {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_generated_package_reads_back_with_every_review() {
        let mut bytes = std::io::Cursor::new(Vec::new());
        write_package(Synthetic { decks: 3, cards: 40, reviews: 1_000, seed: 7 }, &mut bytes).unwrap();
        bytes.set_position(0);
        let collection = crate::read(bytes).unwrap();
        assert_eq!(collection.format, crate::PackageFormat::Anki21);
        assert_eq!((collection.decks.len(), collection.cards.len(), collection.revlog.len()), (3, 40, 1_000));
        let plan = crate::plan(&collection, &Default::default(), chrono::DateTime::<chrono::Utc>::MAX_UTC);
        assert_eq!(plan.answers, 1_000, "every row an answer");
        assert_eq!(plan.decks.len(), 3);
    }
}
