use pathwise_domain::ErrorCode;
use thiserror::Error;

use crate::format::Format;

/// Why a document could not be turned into chunks.
///
/// Every message names the file, says what was wrong and what would be accepted, so it can
/// be shown to the learner as is. [`IngestError::code`] gives a stable machine-readable code
/// for callers that map errors to HTTP statuses or UI hints.
#[derive(Debug, Clone, PartialEq, Eq, Error)]
pub enum IngestError {
    #[error("{file} is empty (0 bytes); upload a document that has text in it")]
    Empty { file: String },

    #[error("{file} contains no readable text, only whitespace or markup; upload a document that has text in it")]
    NoText { file: String },

    #[error("{file} is {size} bytes, over the {limit}-byte limit; split it into smaller documents")]
    TooLarge { file: String, size: usize, limit: usize },

    #[error("{file} is not a supported format; supported are Markdown (.md, .markdown), plain text (.txt, .text), HTML (.html, .htm) and PDF (.pdf)")]
    UnsupportedFormat { file: String },

    #[error("{file} contains binary data (a NUL byte at offset {offset}), but {} files must be UTF-8 text", format.label())]
    NulBytes { file: String, format: Format, offset: usize },

    #[error("{file} is not valid UTF-8 (first bad byte at offset {offset}); {} files must be UTF-8 text, so save it as UTF-8 and try again", format.label())]
    NotUtf8 { file: String, format: Format, offset: usize },

    #[error("{file} is an encrypted PDF; remove the password first (for example by printing it to a new PDF) and upload it again")]
    EncryptedPdf { file: String },

    #[error("{file} has {pages} pages but no text layer — a scanned document? run OCR first so the text can be read")]
    NoTextLayer { file: String, pages: u32 },

    #[error("{file} is not a readable PDF ({detail}); re-export or re-save it as a standard PDF and try again")]
    MalformedPdf { file: String, detail: String },

    #[error("{file} has {pages} pages, over the {limit}-page limit; split it into smaller documents")]
    TooManyPages { file: String, pages: u32, limit: u32 },
}

impl IngestError {
    /// A stable identifier of the kind of failure, safe to match on and to show in APIs.
    pub fn code(&self) -> ErrorCode {
        match self {
            IngestError::Empty { .. } | IngestError::NoText { .. } => ErrorCode::Empty,
            IngestError::TooLarge { .. } => ErrorCode::TooLarge,
            IngestError::UnsupportedFormat { .. } => ErrorCode::UnsupportedFormat,
            IngestError::NulBytes { .. } | IngestError::NotUtf8 { .. } => ErrorCode::Binary,
            IngestError::EncryptedPdf { .. } => ErrorCode::EncryptedPdf,
            IngestError::NoTextLayer { .. } => ErrorCode::NoTextLayer,
            IngestError::MalformedPdf { .. } => ErrorCode::MalformedPdf,
            IngestError::TooManyPages { .. } => ErrorCode::TooManyPages,
        }
    }

    /// The file name the error is about, as given to [`crate::extract`].
    pub fn file(&self) -> &str {
        match self {
            IngestError::Empty { file }
            | IngestError::NoText { file }
            | IngestError::TooLarge { file, .. }
            | IngestError::UnsupportedFormat { file }
            | IngestError::NulBytes { file, .. }
            | IngestError::NotUtf8 { file, .. }
            | IngestError::EncryptedPdf { file }
            | IngestError::NoTextLayer { file, .. }
            | IngestError::MalformedPdf { file, .. }
            | IngestError::TooManyPages { file, .. } => file,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn messages_name_the_file_and_what_is_allowed() {
        let too_large = IngestError::TooLarge { file: "big.pdf".into(), size: 40, limit: 32 };
        assert_eq!(
            too_large.to_string(),
            "big.pdf is 40 bytes, over the 32-byte limit; split it into smaller documents"
        );
        assert_eq!(too_large.code(), ErrorCode::TooLarge);
        assert_eq!(too_large.file(), "big.pdf");

        let unsupported = IngestError::UnsupportedFormat { file: "cv.docx".into() };
        let message = unsupported.to_string();
        assert!(message.starts_with("cv.docx is not a supported format"), "{message}");
        for extension in [".md", ".txt", ".html", ".pdf"] {
            assert!(message.contains(extension), "{message} lacks {extension}");
        }

        let binary = IngestError::NulBytes { file: "x.md".into(), format: Format::Markdown, offset: 3 };
        assert_eq!(
            binary.to_string(),
            "x.md contains binary data (a NUL byte at offset 3), but Markdown files must be UTF-8 text"
        );
        let not_utf8 = IngestError::NotUtf8 { file: "x.txt".into(), format: Format::Text, offset: 7 };
        assert!(not_utf8.to_string().contains("not valid UTF-8 (first bad byte at offset 7)"));
        assert_eq!(binary.code(), not_utf8.code());
    }
}
