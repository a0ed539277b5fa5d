//! PDF text through pdf-extract (on lopdf), with headings recovered from font sizes.

mod layout;
mod prepare;
mod structure;

use std::panic::{catch_unwind, AssertUnwindSafe};

use lopdf::Document;

use crate::chunk::{title_from_headings, Block};
use crate::clean;
use crate::error::IngestError;
use crate::Limits;
use layout::{LineCollector, PageText};

pub(crate) struct PdfDocument {
    pub(crate) title: Option<String>,
    pub(crate) pages: u32,
    pub(crate) unreadable_pages: Vec<u32>,
    pub(crate) blocks: Vec<Block>,
}

pub(crate) fn read(file: &str, bytes: &[u8], limits: &Limits) -> Result<PdfDocument, IngestError> {
    let document = prepare::load(file, bytes, limits)?;
    let page_numbers: Vec<u32> = document.get_pages().into_keys().collect();
    let page_count = u32::try_from(page_numbers.len()).unwrap_or(u32::MAX);

    let (pages, failures) = extract_pages(&document, &page_numbers);
    let has_text = pages.iter().any(|page| page.lines.iter().any(|line| !line.text.trim().is_empty()));
    if !has_text {
        return Err(match failures.into_iter().next() {
            Some((page, detail)) => IngestError::MalformedPdf {
                file: file.to_owned(),
                detail: format!("page {page} could not be read: {detail}"),
            },
            None => IngestError::NoTextLayer { file: file.to_owned(), pages: page_count },
        });
    }

    let blocks = structure::blocks(&pages);
    let title = info_title(&document).or_else(|| title_from_headings(&blocks));
    let unreadable_pages = failures.into_iter().map(|(page, _)| page).collect();
    Ok(PdfDocument { title, pages: page_count, unreadable_pages, blocks })
}

/// The text of every page that can be read, and why the others could not.
///
/// The whole document is extracted in one pass; if pdf-extract fails (it panics on many
/// kinds of unusual input), the failing page is set aside and the remaining pages are
/// extracted one by one, so one odd page does not cost the rest of the book.
fn extract_pages(document: &Document, page_numbers: &[u32]) -> (Vec<PageText>, Vec<(u32, String)>) {
    let mut collector = LineCollector::default();
    let mut failures = Vec::new();
    let whole = catch_unwind(AssertUnwindSafe(|| pdf_extract::output_doc(document, &mut collector)));
    let Some(failure) = outcome_error(whole) else {
        return (collector.into_pages(), failures);
    };
    let done = collector.completed_pages();
    let Some(&failed_page) = page_numbers.get(done) else {
        return (collector.into_pages(), failures);
    };
    failures.push((failed_page, failure));
    for &page in &page_numbers[done + 1..] {
        let outcome = catch_unwind(AssertUnwindSafe(|| pdf_extract::output_doc_page(document, &mut collector, page)));
        if let Some(failure) = outcome_error(outcome) {
            collector.abandon_page();
            failures.push((page, failure));
        }
    }
    (collector.into_pages(), failures)
}

/// Why a page failed, in words for the learner; a panic's own message is already in the log
/// and means nothing to them.
fn outcome_error(outcome: std::thread::Result<Result<(), pdf_extract::OutputError>>) -> Option<String> {
    match outcome {
        Ok(Ok(())) => None,
        Ok(Err(error)) => Some(error.to_string()),
        Err(_) => Some("the text extractor cannot handle its content".to_owned()),
    }
}

/// The `Title` of the document information dictionary, if it holds real text.
fn info_title(document: &Document) -> Option<String> {
    let info = document.trailer.get(b"Info").ok()?;
    let (_, info) = document.dereference(info).ok()?;
    let title = info.as_dict().ok()?.get(b"Title").ok()?;
    let (_, title) = document.dereference(title).ok()?;
    let title = clean::inline(&lopdf::decode_text_string(title).ok()?);
    let lower = title.to_lowercase();
    // Word processors often store a placeholder or the source file's name as the title.
    let placeholder = lower == "untitled"
        || [".pdf", ".doc", ".docx", ".odt", ".tex", ".ppt", ".pptx", ".rtf"].iter().any(|ext| lower.ends_with(ext));
    (!title.is_empty() && !placeholder).then_some(title)
}
