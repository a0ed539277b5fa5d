//! Turns a learner's own documents into chunks that can be indexed, retrieved and cited.
//!
//! [`extract`] takes a file name and its bytes and returns an [`Extracted`] document: its
//! [`Format`], a title when one can be found, the page count for PDFs, and the text cut into
//! [`Chunk`]s. Each chunk knows the headings it sits under, the page it is on (PDFs), and a
//! content hash that stays the same as long as its headings and text do, so re-ingesting an
//! edited file can keep the chunks that did not change.
//!
//! | Format | Extensions | Structure |
//! |---|---|---|
//! | Markdown | `.md`, `.markdown` | ATX and setext headings; lists, tables and code blocks kept as lines |
//! | Plain text | `.txt`, `.text` | paragraphs separated by blank lines |
//! | HTML | `.html`, `.htm` | `<title>`, `h1`–`h6`; scripts, styles and navigation dropped; tables flattened |
//! | PDF | `.pdf` (or a `%PDF-` header) | headings by font size, page numbers for every chunk |
//!
//! Chunks are built the same way for every format: a heading always starts a new chunk,
//! paragraphs are packed together up to [`Limits::max_chunk_chars`], a paragraph that is
//! longer is cut between sentences, and in a PDF a chunk never spans two pages.
//!
//! The crate does no I/O of its own — no files, network, clock or randomness: the same bytes
//! always give the same chunks, and walking folders or storing results is up to the caller.
//! Untrusted input is bounded by [`Limits`]; every refusal is an [`IngestError`] whose
//! message can be shown to the learner and whose [`IngestError::code`] is stable.
//!
//! The PDF text extractor panics on some unusual input; those panics are caught and become
//! errors (or, when only some pages are affected, [`Extracted::unreadable_pages`]). That
//! needs unwinding: in a build with `panic = "abort"` such a PDF would end the process.
//!
//! ```
//! let limits = pathwise_ingest::Limits::default();
//! let notes = b"# Subnets\n\n## Masks\n\nA mask selects the network part of an address.";
//! let extracted = pathwise_ingest::extract("notes.md", notes, &limits).unwrap();
//! assert_eq!(extracted.title.as_deref(), Some("Subnets"));
//! let chunk = &extracted.chunks[0];
//! assert_eq!(chunk.text, "A mask selects the network part of an address.");
//! assert_eq!(chunk.citation("notes.md"), "notes.md, Subnets > Masks");
//! ```
//!
//! [`sample`] writes PDFs for tests and benchmarks.

mod builder;
mod chunk;
mod clean;
mod error;
mod format;
mod html;
mod markdown;
mod pdf;
pub mod sample;
mod split;
mod text;

use serde::{Deserialize, Serialize};

pub use chunk::{citation, content_hash, Chunk};
pub use error::IngestError;
pub use format::Format;

use chunk::{chunk_blocks, title_from_headings, Block};

/// Bounds on what one document may cost to ingest.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(default)]
pub struct Limits {
    /// Larger files are refused before any parsing.
    pub max_bytes: usize,
    /// The most characters (Unicode scalar values) in one chunk's text. Values below 1 are
    /// treated as 1.
    pub max_chunk_chars: usize,
    /// PDFs with more pages are refused before any text is extracted.
    pub max_pages: u32,
}

impl Limits {
    pub const DEFAULT_MAX_BYTES: usize = 32 * 1024 * 1024;
    /// Roughly 250 words: a passage that can be quoted as a citation and still fits many
    /// times into a prompt.
    pub const DEFAULT_MAX_CHUNK_CHARS: usize = 1_500;
    pub const DEFAULT_MAX_PAGES: u32 = 2_000;
}

impl Default for Limits {
    fn default() -> Self {
        Limits {
            max_bytes: Limits::DEFAULT_MAX_BYTES,
            max_chunk_chars: Limits::DEFAULT_MAX_CHUNK_CHARS,
            max_pages: Limits::DEFAULT_MAX_PAGES,
        }
    }
}

/// A document's text, cut into chunks.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Extracted {
    pub format: Format,
    /// The first top-level heading (Markdown), the `<title>` (HTML) or the document
    /// information title (PDF), else the first heading; `None` for plain text.
    pub title: Option<String>,
    /// The page count (PDFs only).
    pub pages: Option<u32>,
    /// PDF pages whose text could not be read and are missing from the chunks (the rest of
    /// the document was readable). Worth showing to the learner as a warning.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub unreadable_pages: Vec<u32>,
    /// In document order; `chunks[i].ordinal == i`. Never empty.
    pub chunks: Vec<Chunk>,
}

/// Reads one document. `file_name` picks the format by its extension (see
/// [`Format::detect`]) and names the file in error messages; `bytes` is the whole file.
pub fn extract(file_name: &str, bytes: &[u8], limits: &Limits) -> Result<Extracted, IngestError> {
    let file = || file_name.to_owned();
    let format = Format::detect(file_name, bytes).ok_or_else(|| IngestError::UnsupportedFormat { file: file() })?;
    if bytes.is_empty() {
        return Err(IngestError::Empty { file: file() });
    }
    if bytes.len() > limits.max_bytes {
        return Err(IngestError::TooLarge { file: file(), size: bytes.len(), limit: limits.max_bytes });
    }

    let parsed = parse(file_name, format, bytes, limits)?;
    let chunks = chunk_blocks(parsed.blocks, limits.max_chunk_chars);
    if chunks.is_empty() {
        return Err(IngestError::NoText { file: file() });
    }
    Ok(Extracted {
        format,
        title: parsed.title,
        pages: parsed.pages,
        unreadable_pages: parsed.unreadable_pages,
        chunks,
    })
}

/// A document read in its own format, before chunking.
struct Parsed {
    title: Option<String>,
    pages: Option<u32>,
    unreadable_pages: Vec<u32>,
    blocks: Vec<Block>,
}

impl Parsed {
    fn unpaged(title: Option<String>, blocks: Vec<Block>) -> Self {
        Parsed { title, pages: None, unreadable_pages: Vec::new(), blocks }
    }
}

fn parse(file_name: &str, format: Format, bytes: &[u8], limits: &Limits) -> Result<Parsed, IngestError> {
    Ok(match format {
        Format::Markdown => {
            let blocks = markdown::blocks(text::decode_utf8(file_name, format, bytes)?);
            Parsed::unpaged(title_from_headings(&blocks), blocks)
        }
        Format::Text => Parsed::unpaged(None, text::blocks(text::decode_utf8(file_name, format, bytes)?)),
        Format::Html => {
            let document = html::read(text::decode_utf8(file_name, format, bytes)?);
            let title = document.title.or_else(|| title_from_headings(&document.blocks));
            Parsed::unpaged(title, document.blocks)
        }
        Format::Pdf => {
            let document = pdf::read(file_name, bytes, limits)?;
            Parsed {
                title: document.title,
                pages: Some(document.pages),
                unreadable_pages: document.unreadable_pages,
                blocks: document.blocks,
            }
        }
    })
}
