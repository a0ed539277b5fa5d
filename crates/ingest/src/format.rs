use serde::{Deserialize, Serialize};

/// The document formats [`crate::extract`] reads.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Format {
    Markdown,
    Text,
    Html,
    Pdf,
}

/// PDF readers accept the header anywhere in the first kilobyte; so do we.
const PDF_MAGIC_WINDOW: usize = 1024;

impl Format {
    /// A stable lowercase identifier (`markdown`, `text`, `html`, `pdf`), the same string
    /// serde uses.
    pub fn name(self) -> &'static str {
        match self {
            Format::Markdown => "markdown",
            Format::Text => "text",
            Format::Html => "html",
            Format::Pdf => "pdf",
        }
    }

    /// How the format is called in messages meant for people.
    pub fn label(self) -> &'static str {
        match self {
            Format::Markdown => "Markdown",
            Format::Text => "plain text",
            Format::Html => "HTML",
            Format::Pdf => "PDF",
        }
    }

    /// The format a file name's extension stands for (case-insensitive), if it is one this
    /// crate reads.
    pub fn from_file_name(file_name: &str) -> Option<Format> {
        let (_, extension) = file_name.rsplit_once('.')?;
        match extension.to_ascii_lowercase().as_str() {
            "md" | "markdown" => Some(Format::Markdown),
            "txt" | "text" => Some(Format::Text),
            "html" | "htm" => Some(Format::Html),
            "pdf" => Some(Format::Pdf),
            _ => None,
        }
    }

    /// The format by extension, or — when the extension is missing or unknown — a PDF if the
    /// bytes carry the `%PDF-` header. Other content is not guessed: an unknown extension on
    /// text could be anything from source code to CSV.
    pub fn detect(file_name: &str, bytes: &[u8]) -> Option<Format> {
        Format::from_file_name(file_name).or_else(|| has_pdf_magic(bytes).then_some(Format::Pdf))
    }
}

fn has_pdf_magic(bytes: &[u8]) -> bool {
    let window = &bytes[..bytes.len().min(PDF_MAGIC_WINDOW)];
    window.windows(5).any(|candidate| candidate == b"%PDF-")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn extensions_are_matched_case_insensitively() {
        assert_eq!(Format::from_file_name("notes.md"), Some(Format::Markdown));
        assert_eq!(Format::from_file_name("Notes.MarkDown"), Some(Format::Markdown));
        assert_eq!(Format::from_file_name("a.b.TXT"), Some(Format::Text));
        assert_eq!(Format::from_file_name("readme.text"), Some(Format::Text));
        assert_eq!(Format::from_file_name("page.HTM"), Some(Format::Html));
        assert_eq!(Format::from_file_name("page.html"), Some(Format::Html));
        assert_eq!(Format::from_file_name("book.Pdf"), Some(Format::Pdf));
        assert_eq!(Format::from_file_name("cv.docx"), None);
        assert_eq!(Format::from_file_name("Makefile"), None);
        assert_eq!(Format::from_file_name("pdf"), None);
    }

    #[test]
    fn pdf_header_is_sniffed_only_without_a_known_extension() {
        assert_eq!(Format::detect("scan", b"%PDF-1.7\n..."), Some(Format::Pdf));
        assert_eq!(Format::detect("scan.bin", b"\n\n%PDF-1.4"), Some(Format::Pdf));
        assert_eq!(Format::detect("scan.bin", b"PK\x03\x04"), None);
        assert_eq!(Format::detect("notes.txt", b"%PDF-1.4"), Some(Format::Text));
        assert_eq!(Format::detect("empty", b""), None);
    }

    #[test]
    fn serde_uses_the_stable_name() {
        for format in [Format::Markdown, Format::Text, Format::Html, Format::Pdf] {
            assert_eq!(serde_json::to_string(&format).unwrap(), format!("\"{}\"", format.name()));
        }
    }
}
