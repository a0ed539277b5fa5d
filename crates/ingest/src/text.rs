//! Plain text, and the UTF-8 check every text format goes through first.

use crate::chunk::Block;
use crate::clean;
use crate::error::IngestError;
use crate::format::Format;

/// The bytes as text. A UTF-8 byte-order mark is skipped; a NUL byte or invalid UTF-8 means
/// the file is not text (or not in an encoding we read) and is refused rather than guessed.
pub(crate) fn decode_utf8<'a>(file: &str, format: Format, bytes: &'a [u8]) -> Result<&'a str, IngestError> {
    let (bom, bytes) = match bytes.strip_prefix(b"\xEF\xBB\xBF") {
        Some(rest) => (3, rest),
        None => (0, bytes),
    };
    if let Some(position) = bytes.iter().position(|&byte| byte == 0) {
        return Err(IngestError::NulBytes { file: file.to_owned(), format, offset: bom + position });
    }
    std::str::from_utf8(bytes).map_err(|error| IngestError::NotUtf8 {
        file: file.to_owned(),
        format,
        offset: bom + error.valid_up_to(),
    })
}

/// Paragraphs are separated by blank lines; the lines inside one are joined, since plain
/// text wraps at arbitrary widths.
pub(crate) fn blocks(text: &str) -> Vec<Block> {
    let mut blocks = Vec::new();
    let mut paragraph = String::new();
    for line in text.lines() {
        if line.trim().is_empty() {
            push_paragraph(&mut blocks, &mut paragraph);
        } else {
            paragraph.push_str(line);
            paragraph.push('\n');
        }
    }
    push_paragraph(&mut blocks, &mut paragraph);
    blocks
}

fn push_paragraph(blocks: &mut Vec<Block>, paragraph: &mut String) {
    let text = clean::inline(paragraph);
    paragraph.clear();
    if !text.is_empty() {
        blocks.push(Block::Paragraph { text, page: None });
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn blank_lines_separate_paragraphs() {
        let text = "First line\nwraps here.\n\n  \n\tSecond   paragraph.\r\n\r\nThird.";
        let texts: Vec<String> = blocks(text)
            .into_iter()
            .map(|block| match block {
                Block::Paragraph { text, .. } => text,
                Block::Heading { .. } => panic!("plain text has no headings"),
            })
            .collect();
        assert_eq!(texts, vec!["First line wraps here.", "Second paragraph.", "Third."]);
    }

    #[test]
    fn utf8_is_required_and_a_bom_is_skipped() {
        assert_eq!(decode_utf8("a.txt", Format::Text, b"\xEF\xBB\xBFhi").unwrap(), "hi");
        let nul = decode_utf8("a.md", Format::Markdown, b"ab\0cd").unwrap_err();
        assert_eq!(nul, IngestError::NulBytes { file: "a.md".into(), format: Format::Markdown, offset: 2 });
        let latin1 = decode_utf8("a.txt", Format::Text, b"caf\xE9").unwrap_err();
        assert_eq!(latin1, IngestError::NotUtf8 { file: "a.txt".into(), format: Format::Text, offset: 3 });
    }
}
