//! The package: a zip archive holding the collection (an SQLite database), its media and,
//! since Anki 2.1.50, a `meta` file naming the format. Newer packages also carry a dummy
//! `collection.anki2` that tells older Anki versions to update, so `meta` is read first and
//! the newest collection the package holds is the one read.

use crate::error::{AnkiError, AnkiResult};
use std::io::{Read, Seek};
use zip::result::ZipError;
use zip::ZipArchive;

/// Which collection file a package holds (Anki's `meta` version, where it has one).
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "snake_case")]
pub enum PackageFormat {
    /// `collection.anki2`: Anki 2.0 and 2.1's "support older versions" exports.
    Anki2,
    /// `collection.anki21`: Anki 2.1's exports.
    Anki21,
    /// `collection.anki21b`, zstd-compressed: Anki 2.1.50 and later.
    Anki21b,
}

impl PackageFormat {
    pub fn entry(self) -> &'static str {
        match self {
            PackageFormat::Anki2 => "collection.anki2",
            PackageFormat::Anki21 => "collection.anki21",
            PackageFormat::Anki21b => "collection.anki21b",
        }
    }

    fn of_meta(version: u64) -> Option<PackageFormat> {
        match version {
            1 => Some(PackageFormat::Anki2),
            2 => Some(PackageFormat::Anki21),
            3 => Some(PackageFormat::Anki21b),
            _ => None,
        }
    }
}

/// The largest collection read: a collection of a million reviews is near 200 MB.
const MAX_COLLECTION_BYTES: u64 = 2 << 30;

/// A package opened: its collection's bytes (decompressed), the format they are in and how
/// many media files it carries (counted, not read).
#[derive(Debug)]
pub struct Package {
    pub format: PackageFormat,
    /// The format `meta` names, when it names one this reader does not know (a newer Anki).
    pub newer_format: Option<u64>,
    pub collection: Vec<u8>,
    pub media_files: usize,
}

/// Open a package and take its collection out.
pub fn open_package(reader: impl Read + Seek) -> AnkiResult<Package> {
    let mut zip = ZipArchive::new(reader).map_err(|e| match e {
        ZipError::Io(e) if e.kind() != std::io::ErrorKind::UnexpectedEof => AnkiError::Io(e),
        other => AnkiError::NotAPackage(format!("not a zip archive ({other})")),
    })?;
    let names: Vec<String> = zip.file_names().filter_map(|n| n.ok().map(|n| n.into_owned())).collect();
    let has = |name: &str| names.iter().any(|n| n == name);
    let meta_version = if has("meta") { Some(meta_version(&read_entry(&mut zip, "meta", 1 << 16)?)?) } else { None };
    let known = meta_version.and_then(PackageFormat::of_meta);
    // Without `meta` (or with one from a newer Anki), the newest collection present.
    let format = known
        .filter(|f| has(f.entry()))
        .or_else(|| {
            [PackageFormat::Anki21b, PackageFormat::Anki21, PackageFormat::Anki2].into_iter().find(|f| has(f.entry()))
        })
        .ok_or_else(|| {
            let mut held: Vec<&str> = names.iter().map(String::as_str).take(10).collect();
            if names.len() > 10 {
                held.push("...");
            }
            if names.is_empty() {
                AnkiError::NoCollection("nothing".into())
            } else {
                AnkiError::NoCollection(held.join(", "))
            }
        })?;
    let raw = read_entry(&mut zip, format.entry(), MAX_COLLECTION_BYTES)?;
    let collection = match format {
        PackageFormat::Anki21b => unzstd(&raw, format.entry())?,
        _ => raw,
    };
    Ok(Package {
        format,
        newer_format: meta_version.filter(|_| known.is_none()),
        collection,
        media_files: names.iter().filter(|n| is_media_file(n)).count(),
    })
}

/// Media files are stored under their index (`0`, `1`, ...); `media` lists their names.
fn is_media_file(name: &str) -> bool {
    !name.is_empty() && name.bytes().all(|b| b.is_ascii_digit())
}

fn read_entry<R: Read + Seek>(zip: &mut ZipArchive<R>, name: &str, limit: u64) -> AnkiResult<Vec<u8>> {
    let damaged = |reason: String| AnkiError::Damaged { entry: name.to_string(), reason };
    let file = zip.by_name(name).map_err(|e| match e {
        ZipError::UnsupportedArchive(ZipError::PASSWORD_REQUIRED) | ZipError::InvalidPassword => {
            AnkiError::Encrypted(name.to_string())
        }
        other => damaged(other.to_string()),
    })?;
    if file.encrypted() {
        return Err(AnkiError::Encrypted(name.to_string()));
    }
    if file.size() > limit {
        return Err(damaged(format!("it is {} bytes, more than the {limit} read", file.size())));
    }
    let mut bytes = Vec::with_capacity(file.size() as usize);
    file.take(limit).read_to_end(&mut bytes).map_err(|e| damaged(e.to_string()))?;
    Ok(bytes)
}

fn unzstd(compressed: &[u8], entry: &str) -> AnkiResult<Vec<u8>> {
    let decoder = ruzstd::decoding::StreamingDecoder::new(compressed)
        .map_err(|e| AnkiError::Damaged { entry: entry.into(), reason: format!("not zstd data ({e})") })?;
    let mut bytes = Vec::new();
    decoder
        .take(MAX_COLLECTION_BYTES)
        .read_to_end(&mut bytes)
        .map_err(|e| AnkiError::Damaged { entry: entry.into(), reason: format!("its zstd data is cut short ({e})") })?;
    Ok(bytes)
}

/// `meta` is Anki's `PackageMetadata` protobuf: field 1, the version, a varint.
fn meta_version(bytes: &[u8]) -> AnkiResult<u64> {
    let damaged = |reason: &str| AnkiError::Damaged { entry: "meta".into(), reason: reason.into() };
    match crate::proto::fields(bytes) {
        Some(fields) => Ok(fields
            .iter()
            .find_map(|f| match f {
                (1, crate::proto::Value::Varint(v)) => Some(*v),
                _ => None,
            })
            // Proto3 leaves a zero version out: Anki's "unknown".
            .unwrap_or(0)),
        None => Err(damaged("it is not Anki's package metadata")),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_meta_version_is_field_one() {
        assert_eq!(meta_version(&[0x08, 0x03]).unwrap(), 3);
        assert_eq!(meta_version(&[0x08, 0x01]).unwrap(), 1);
        assert_eq!(meta_version(&[0x12, 0x01, 0xff, 0x08, 0x02]).unwrap(), 2, "another field first");
        assert_eq!(meta_version(&[]).unwrap(), 0);
        assert!(meta_version(&[0x08]).is_err());
        assert!(meta_version(&[0x0f]).is_err(), "no such wire type");
    }

    #[test]
    fn a_non_zip_is_not_a_package() {
        let error = open_package(std::io::Cursor::new(b"%PDF-1.4 not a zip".to_vec())).unwrap_err();
        assert!(matches!(error, AnkiError::NotAPackage(_)), "{error}");
        assert!(error.to_string().contains("not an Anki package"), "{error}");
    }

    #[test]
    fn media_files_are_the_numbered_entries() {
        assert!(is_media_file("0") && is_media_file("152"));
        assert!(!is_media_file("media") && !is_media_file("collection.anki2") && !is_media_file(""));
    }
}
