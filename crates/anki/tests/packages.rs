//! Real packages: decks written by genanki with review-log rows added, packaged the three
//! ways Anki does (`collection.anki2`, `collection.anki21`, zstd `collection.anki21b` named
//! by `meta`), read back; and files that are not packages, refused with the reason.

use pathwise_anki::{plan, read, AnkiError, AnswerKind, PackageFormat, SkipReason};
use pathwise_test_support::anki::{anki_python, make_encrypted_package, make_package, sample_spec};
use serde_json::{json, Value};
use std::collections::HashMap;
use std::fs::File;
use std::io::{Cursor, Write};

fn spec(format: &str) -> Value {
    let mut spec = sample_spec();
    spec["format"] = json!(format);
    spec
}

fn read_file(path: &std::path::Path) -> Result<pathwise_anki::Collection, AnkiError> {
    read(File::open(path).expect("the package"))
}

#[test]
fn every_format_anki_writes_is_read_with_its_whole_review_log() {
    let Some(python) = anki_python() else { return };
    let dir = tempfile::tempdir().unwrap();
    for (format, name, expected) in [
        ("anki2", "legacy.apkg", PackageFormat::Anki2),
        ("anki21", "anki21.apkg", PackageFormat::Anki21),
        ("anki21b", "latest.apkg", PackageFormat::Anki21b),
        ("anki21b", "collection.colpkg", PackageFormat::Anki21b),
    ] {
        let path = make_package(&python, &spec(format), dir.path(), name);
        let collection = read_file(&path).unwrap_or_else(|e| panic!("{name}: {e}"));
        assert_eq!(collection.format, expected, "{name}");
        assert_eq!(collection.newer, None);
        assert_eq!((collection.notes.len(), collection.cards.len(), collection.revlog.len()), (4, 6, 13), "{name}");
        assert_eq!(collection.media_files, 1, "{name}: the sound file, counted");
        let decks: Vec<&str> = collection.decks.iter().map(|d| d.name.as_str()).collect();
        assert!(decks.contains(&"Languages") && decks.contains(&"Languages::French"), "{name}: {decks:?}");
        assert!(collection.notetypes.values().any(|t| t.cloze && t.name == "Cloze"), "{name}");

        let plan = plan(&collection, &HashMap::new(), chrono::DateTime::<chrono::Utc>::MAX_UTC);
        let names: Vec<&str> = plan.decks.iter().map(|d| d.name.as_str()).collect();
        assert_eq!(names, ["Languages", "Languages::French"], "{name}: decks with cards, each a map");
        let labels: Vec<&str> = plan.decks.iter().flat_map(|d| &d.cards).map(|c| c.label.as_str()).collect();
        assert_eq!(
            labels,
            ["Paris is the [...] of France.", "Paris is the capital of [...].", "maison", "bonjour", "chat", "cat"],
            "{name}: what each card's front asks"
        );
        let maison = &plan.decks[0].cards[2];
        assert_eq!(maison.description.as_deref(), Some("Word: maison\nMeaning: house\nExample: La maison est grande."));
        assert_eq!(maison.tags, ["vocab", "noun"]);
        let bonjour = &plan.decks[1].cards[0];
        let answers: Vec<(u8, AnswerKind)> = bonjour.answers.iter().map(|a| (a.ease, a.kind)).collect();
        use AnswerKind::{Learning, Review};
        assert_eq!(
            answers,
            [(1, Learning), (3, Learning), (3, Learning), (3, Review), (1, Review), (3, Review), (4, Review)]
        );
        assert_eq!(bonjour.answers[0].at.timestamp_millis(), 1_700_000_100_000, "the real time");
        assert_eq!(plan.answers, 11);
        let skipped: Vec<(SkipReason, usize)> = plan.skipped.into_iter().collect();
        assert_eq!(skipped, [(SkipReason::Manual, 1), (SkipReason::Rescheduled, 1)], "{name}");
    }
}

#[test]
fn a_package_without_meta_is_read_from_its_newest_collection() {
    let Some(python) = anki_python() else { return };
    let dir = tempfile::tempdir().unwrap();
    for (format, expected) in [("anki21", PackageFormat::Anki21), ("anki21b", PackageFormat::Anki21b)] {
        let mut spec = spec(format);
        spec["meta"] = json!(false);
        let path = make_package(&python, &spec, dir.path(), &format!("{format}-no-meta.apkg"));
        let collection = read_file(&path).unwrap();
        assert_eq!(collection.format, expected, "not the dummy collection.anki2 beside it");
        assert_eq!(collection.revlog.len(), 13);
    }
}

#[test]
fn a_newer_package_is_read_as_far_as_the_known_layout_goes() {
    let Some(python) = anki_python() else { return };
    let dir = tempfile::tempdir().unwrap();
    let latest = make_package(&python, &spec("anki21b"), dir.path(), "latest.apkg");
    // The same package with `meta` naming a format after 3.
    let mut source = zip::ZipArchive::new(File::open(&latest).unwrap()).unwrap();
    let mut newer = zip::ZipWriter::new(Cursor::new(Vec::new()));
    for i in 0..source.len() {
        let file = source.by_index_raw(i).unwrap();
        if file.name().unwrap() == "meta" {
            continue;
        }
        newer.raw_copy_file(file).unwrap();
    }
    newer
        .start_file("meta", zip::write::SimpleFileOptions::default().compression_method(zip::CompressionMethod::Stored))
        .unwrap();
    newer.write_all(&[0x08, 0x04]).unwrap();
    let bytes = newer.finish().unwrap().into_inner();
    let collection = read(Cursor::new(bytes)).unwrap();
    assert_eq!(collection.format, PackageFormat::Anki21b, "the newest collection the reader knows");
    assert!(collection.newer.as_deref().is_some_and(|n| n.contains("package format 4")), "{:?}", collection.newer);
}

#[test]
fn a_package_with_an_unknown_note_type_or_deleted_cards_is_read_as_far_as_it_can_be() {
    let Some(python) = anki_python() else { return };
    let dir = tempfile::tempdir().unwrap();
    for format in ["anki2", "anki21b"] {
        let mut spec = spec(format);
        spec["drop_notetype"] = json!(true);
        spec["orphan_revlog"] = json!([
            {"id": 1_700_500_000_000i64, "cid": 999, "ease": 3, "ivl": 1, "lastIvl": 0, "factor": 2500, "time": 4000, "type": 1}
        ]);
        let path = make_package(&python, &spec, dir.path(), &format!("partial-{format}.apkg"));
        let collection = read_file(&path).unwrap();
        let plan = plan(&collection, &HashMap::new(), chrono::DateTime::<chrono::Utc>::MAX_UTC);
        let maison = plan.decks[0].cards.iter().find(|c| c.label == "maison").expect("kept, by its first field");
        assert_eq!(maison.description.as_deref(), Some("maison\nhouse\nLa maison est grande."), "{format}");
        assert!(
            plan.warnings.iter().any(|w| w.contains("note type") && w.contains("first field")),
            "{:?}",
            plan.warnings
        );
        assert_eq!(plan.skipped.get(&SkipReason::CardMissing), Some(&1), "{format}: the deleted card's row, counted");
        assert_eq!(plan.answers, 11, "{format}: everything else brought in");
    }
}

/// A zip holding `entries`.
fn zip_of(entries: &[(&str, &[u8])]) -> Vec<u8> {
    let mut zip = zip::ZipWriter::new(Cursor::new(Vec::new()));
    for (name, bytes) in entries {
        zip.start_file(
            *name,
            zip::write::SimpleFileOptions::default().compression_method(zip::CompressionMethod::Stored),
        )
        .unwrap();
        zip.write_all(bytes).unwrap();
    }
    zip.finish().unwrap().into_inner()
}

#[test]
fn what_is_not_an_anki_package_is_refused_saying_why() {
    let refused = |bytes: Vec<u8>| read(Cursor::new(bytes)).unwrap_err();
    let pdf = refused(b"%PDF-1.7\n1 0 obj".to_vec());
    assert!(matches!(pdf, AnkiError::NotAPackage(_)) && pdf.to_string().contains("Export a deck from Anki"), "{pdf}");
    let other_zip = refused(zip_of(&[("notes.txt", b"hello")]));
    assert!(
        matches!(other_zip, AnkiError::NoCollection(_)) && other_zip.to_string().contains("notes.txt"),
        "{other_zip}"
    );
    let not_sqlite = refused(zip_of(&[("collection.anki2", b"not a database")]));
    assert!(matches!(not_sqlite, AnkiError::NotACollection(_)), "{not_sqlite}");
    let not_zstd = refused(zip_of(&[("collection.anki21b", b"not zstd"), ("meta", &[0x08, 0x03])]));
    assert!(matches!(not_zstd, AnkiError::Damaged { .. }) && not_zstd.to_string().contains("zstd"), "{not_zstd}");
    let broken_meta = refused(zip_of(&[("collection.anki2", b""), ("meta", &[0x08])]));
    assert!(matches!(broken_meta, AnkiError::Damaged { ref entry, .. } if entry == "meta"), "{broken_meta}");

    // An SQLite database that is not Anki's.
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("other.sqlite");
    rusqlite::Connection::open(&db).unwrap().execute("CREATE TABLE t (x)", []).unwrap();
    let foreign = refused(zip_of(&[("collection.anki2", &std::fs::read(&db).unwrap())]));
    assert!(foreign.to_string().contains("no col, notes, cards, revlog table"), "{foreign}");
}

#[test]
fn an_encrypted_or_cut_short_package_is_refused_saying_why() {
    let Some(python) = anki_python() else { return };
    let dir = tempfile::tempdir().unwrap();
    let encrypted = read_file(&make_encrypted_package(&python, dir.path())).unwrap_err();
    assert!(matches!(encrypted, AnkiError::Encrypted(_)), "{encrypted}");
    assert!(encrypted.to_string().contains("encrypted"), "{encrypted}");
    let whole = std::fs::read(make_package(&python, &spec("anki21b"), dir.path(), "whole.apkg")).unwrap();
    let cut = read(Cursor::new(whole[..whole.len() / 2].to_vec())).unwrap_err();
    assert!(matches!(cut, AnkiError::NotAPackage(_) | AnkiError::Damaged { .. }), "{cut}");
}
