use serde::{Deserialize, Serialize};
use sha2::{Digest, Sha256};

use crate::split::{char_len, split_to_fit};

/// A piece of a document small enough to retrieve and quote, with what is needed to cite it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Chunk {
    /// Position in the document, from 0, without gaps.
    pub ordinal: u32,
    /// The headings the chunk sits under, outermost first; empty before the first heading.
    pub heading_path: Vec<String>,
    /// The 1-based page the chunk is on (PDFs only). A chunk never spans pages.
    pub page: Option<u32>,
    /// Clean text: whitespace normalised within paragraphs, paragraphs separated by a blank
    /// line (`"\n\n"`), line breaks kept only where they carry meaning (code, lists, tables).
    pub text: String,
    /// Lowercase hex SHA-256 of the heading path and the text (see [`content_hash`]).
    /// Neither the ordinal nor the page is part of it, so a chunk that merely moved keeps its
    /// hash; a caller re-ingesting a changed file keeps the chunks whose hash it already has
    /// and updates their position.
    pub content_hash: String,
}

impl Chunk {
    /// A human-readable reference to where the chunk comes from, e.g.
    /// `notes.pdf, p. 3, Chapter 2 Subnets > 2.1 Masks`.
    pub fn citation(&self, file: &str) -> String {
        citation(file, self.page, &self.heading_path)
    }
}

pub use pathwise_domain::citation::citation;

/// The content hash of a chunk: SHA-256 over each heading followed by U+001F (unit
/// separator), then U+001E (record separator), then the text, as lowercase hex. Chunk text
/// and headings never contain control characters, so the encoding is unambiguous.
pub fn content_hash(heading_path: &[String], text: &str) -> String {
    let mut hasher = Sha256::new();
    for heading in heading_path {
        hasher.update(heading.as_bytes());
        hasher.update([0x1F]);
    }
    hasher.update([0x1E]);
    hasher.update(text.as_bytes());
    hex::encode(hasher.finalize())
}

/// What the format readers produce: the document's outline and text in reading order,
/// already cleaned.
#[derive(Debug, Clone, PartialEq)]
pub(crate) enum Block {
    /// `level` 1 is the outermost; a heading closes every open heading of its level or deeper.
    Heading {
        level: u8,
        text: String,
    },
    Paragraph {
        text: String,
        page: Option<u32>,
    },
}

/// The first top-level heading, else the first heading of any level.
pub(crate) fn title_from_headings(blocks: &[Block]) -> Option<String> {
    let headings = blocks.iter().filter_map(|block| match block {
        Block::Heading { level, text } => Some((*level, text)),
        Block::Paragraph { .. } => None,
    });
    let mut first = None;
    for (level, text) in headings {
        if level == 1 {
            return Some(text.clone());
        }
        first.get_or_insert(text);
    }
    first.cloned()
}

/// Groups paragraphs into chunks of at most `max_chars` characters. A heading or a page
/// change always starts a new chunk; a paragraph longer than a chunk is cut (see
/// [`split_to_fit`]).
pub(crate) fn chunk_blocks(blocks: impl IntoIterator<Item = Block>, max_chars: usize) -> Vec<Chunk> {
    let mut chunker = Chunker::new(max_chars.max(1));
    for block in blocks {
        match block {
            Block::Heading { level, text } => chunker.heading(level, text),
            Block::Paragraph { text, page } => chunker.paragraph(&text, page),
        }
    }
    chunker.finish()
}

struct Chunker {
    max_chars: usize,
    headings: Vec<(u8, String)>,
    paragraphs: Vec<String>,
    chars: usize,
    page: Option<u32>,
    chunks: Vec<Chunk>,
}

impl Chunker {
    fn new(max_chars: usize) -> Self {
        Chunker { max_chars, headings: Vec::new(), paragraphs: Vec::new(), chars: 0, page: None, chunks: Vec::new() }
    }

    fn heading(&mut self, level: u8, text: String) {
        self.flush();
        if text.is_empty() {
            return;
        }
        while self.headings.last().is_some_and(|(open, _)| *open >= level) {
            self.headings.pop();
        }
        self.headings.push((level, text));
    }

    fn paragraph(&mut self, text: &str, page: Option<u32>) {
        if text.trim().is_empty() {
            return;
        }
        if page != self.page {
            self.flush();
            self.page = page;
        }
        for piece in split_to_fit(text, self.max_chars) {
            let piece_chars = char_len(&piece);
            if !self.paragraphs.is_empty() && self.chars + 2 + piece_chars > self.max_chars {
                self.flush();
            }
            self.chars += piece_chars + if self.paragraphs.is_empty() { 0 } else { 2 };
            self.paragraphs.push(piece);
        }
    }

    fn flush(&mut self) {
        if self.paragraphs.is_empty() {
            return;
        }
        let text = self.paragraphs.join("\n\n");
        self.paragraphs.clear();
        self.chars = 0;
        let heading_path: Vec<String> = self.headings.iter().map(|(_, heading)| heading.clone()).collect();
        let ordinal = u32::try_from(self.chunks.len()).unwrap_or(u32::MAX);
        let content_hash = content_hash(&heading_path, &text);
        self.chunks.push(Chunk { ordinal, heading_path, page: self.page, text, content_hash });
    }

    fn finish(mut self) -> Vec<Chunk> {
        self.flush();
        self.chunks
    }
}

/// Blocks as one line each (`h2 Masks`, or a paragraph's text), for tests to compare.
#[cfg(test)]
pub(crate) fn render(blocks: &[Block]) -> Vec<String> {
    blocks
        .iter()
        .map(|block| match block {
            Block::Heading { level, text } => format!("h{level} {text}"),
            Block::Paragraph { text, .. } => text.clone(),
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn heading(level: u8, text: &str) -> Block {
        Block::Heading { level, text: text.to_owned() }
    }

    fn paragraph(text: &str) -> Block {
        Block::Paragraph { text: text.to_owned(), page: None }
    }

    fn on_page(text: &str, page: u32) -> Block {
        Block::Paragraph { text: text.to_owned(), page: Some(page) }
    }

    #[test]
    fn headings_nest_and_close_by_level() {
        let chunks = chunk_blocks(
            [
                paragraph("Preface."),
                heading(1, "Chapter 2 Subnets"),
                paragraph("Intro."),
                heading(2, "2.1 Masks"),
                paragraph("Masks."),
                heading(3, "Wildcards"),
                paragraph("Inverse masks."),
                heading(2, "2.2 Gateways"),
                paragraph("Gateways."),
                heading(1, "Chapter 3"),
                paragraph("Routing."),
            ],
            1000,
        );
        let paths: Vec<(Vec<String>, &str)> =
            chunks.iter().map(|chunk| (chunk.heading_path.clone(), chunk.text.as_str())).collect();
        let path = |parts: &[&str]| parts.iter().map(|part| part.to_string()).collect::<Vec<_>>();
        assert_eq!(
            paths,
            vec![
                (path(&[]), "Preface."),
                (path(&["Chapter 2 Subnets"]), "Intro."),
                (path(&["Chapter 2 Subnets", "2.1 Masks"]), "Masks."),
                (path(&["Chapter 2 Subnets", "2.1 Masks", "Wildcards"]), "Inverse masks."),
                (path(&["Chapter 2 Subnets", "2.2 Gateways"]), "Gateways."),
                (path(&["Chapter 3"]), "Routing."),
            ]
        );
        assert_eq!(chunks.iter().map(|chunk| chunk.ordinal).collect::<Vec<_>>(), vec![0, 1, 2, 3, 4, 5]);
    }

    #[test]
    fn paragraphs_are_packed_up_to_the_limit() {
        let chunks = chunk_blocks([paragraph("aaaa"), paragraph("bbbb"), paragraph("cccc"), paragraph("dd")], 10);
        let texts: Vec<&str> = chunks.iter().map(|chunk| chunk.text.as_str()).collect();
        assert_eq!(texts, vec!["aaaa\n\nbbbb", "cccc\n\ndd"]);
    }

    #[test]
    fn a_page_change_starts_a_new_chunk() {
        let chunks = chunk_blocks([on_page("one", 1), on_page("two", 1), on_page("three", 2)], 1000);
        let pages: Vec<(Option<u32>, &str)> = chunks.iter().map(|chunk| (chunk.page, chunk.text.as_str())).collect();
        assert_eq!(pages, vec![(Some(1), "one\n\ntwo"), (Some(2), "three")]);
    }

    #[test]
    fn an_over_long_paragraph_is_split_and_its_tail_shares_a_chunk() {
        let long = "First sentence here. Second sentence here. Third one.";
        let chunks = chunk_blocks([paragraph(long), paragraph("Next.")], 25);
        let texts: Vec<&str> = chunks.iter().map(|chunk| chunk.text.as_str()).collect();
        assert_eq!(texts, vec!["First sentence here.", "Second sentence here.", "Third one.\n\nNext."]);
        assert!(chunks.iter().all(|chunk| char_len(&chunk.text) <= 25));
    }

    #[test]
    fn empty_paragraphs_and_headings_leave_no_chunks() {
        let chunks = chunk_blocks([heading(1, "Only a heading"), paragraph("  "), heading(2, "")], 100);
        assert!(chunks.is_empty());
    }

    #[test]
    fn hash_covers_heading_path_and_text_only() {
        let path = vec!["A".to_owned(), "B".to_owned()];
        let hash = content_hash(&path, "text");
        assert_eq!(hash.len(), 64);
        assert!(hash.chars().all(|c| c.is_ascii_hexdigit() && !c.is_ascii_uppercase()));
        assert_eq!(hash, content_hash(&path, "text"));
        assert_ne!(hash, content_hash(&path, "text!"));
        assert_ne!(hash, content_hash(&["AB".to_owned()], "text"));
        assert_ne!(content_hash(&[], "A\u{1f}text"), content_hash(&["A".to_owned()], "text"));
        // Pinned so a change to the encoding, which would orphan every stored chunk, is noticed.
        assert_eq!(content_hash(&[], "hello"), "dfae44a852d59af05479c288611548d9c39e5b0717856ad22b3b00e848de4e49");
    }

    #[test]
    fn citation_lists_file_page_and_headings() {
        let mut chunk = Chunk {
            ordinal: 0,
            heading_path: vec!["Chapter 2 Subnets".into(), "2.1 Masks".into()],
            page: Some(3),
            text: "x".into(),
            content_hash: String::new(),
        };
        assert_eq!(chunk.citation("notes.pdf"), "notes.pdf, p. 3, Chapter 2 Subnets > 2.1 Masks");
        chunk.page = None;
        assert_eq!(chunk.citation("notes.md"), "notes.md, Chapter 2 Subnets > 2.1 Masks");
        chunk.heading_path.clear();
        assert_eq!(chunk.citation("notes.md"), "notes.md");
    }

    #[test]
    fn title_prefers_the_first_top_level_heading() {
        assert_eq!(
            title_from_headings(&[heading(2, "Intro"), heading(1, "Book"), heading(1, "Other")]),
            Some("Book".into())
        );
        assert_eq!(title_from_headings(&[paragraph("x"), heading(3, "Only")]), Some("Only".into()));
        assert_eq!(title_from_headings(&[paragraph("x")]), None);
    }
}
