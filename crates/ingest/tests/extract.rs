//! End-to-end: whole documents through `extract`, as a caller sees them.

use pathwise_domain::ErrorCode;
use pathwise_ingest::sample::{self, SamplePage, SampleParagraph, CHAPTER_FONT_SIZE, SECTION_FONT_SIZE};
use pathwise_ingest::{extract, Chunk, Extracted, Format, IngestError, Limits};

fn limits() -> Limits {
    Limits::default()
}

fn path(parts: &[&str]) -> Vec<String> {
    parts.iter().map(|part| (*part).to_owned()).collect()
}

/// (page, heading path, text) of every chunk, for whole-document comparisons.
fn outline(extracted: &Extracted) -> Vec<(Option<u32>, Vec<String>, String)> {
    extracted.chunks.iter().map(|chunk| (chunk.page, chunk.heading_path.clone(), chunk.text.clone())).collect()
}

fn hashes(chunks: &[Chunk]) -> Vec<String> {
    chunks.iter().map(|chunk| chunk.content_hash.clone()).collect()
}

const MASKS: &str = "A subnet mask marks which bits of an address name the network. The remaining bits \
    number the hosts inside it, so a longer mask means a smaller subnet with fewer hosts.";
const PREFIXES: &str = "Prefix notation writes the mask as a count of leading one bits: /24 is \
    255.255.255.0 and leaves eight bits, 254 usable addresses, for hosts.";
const GATEWAYS: &str = "A host sends everything outside its own subnet to the default gateway, which \
    is usually the router interface on that subnet.";

fn subnet_notes_pages() -> Vec<SamplePage> {
    vec![
        SamplePage::new(vec![
            SampleParagraph::heading(CHAPTER_FONT_SIZE, "Chapter 2 Subnets"),
            SampleParagraph::body("Subnets split one network into several smaller ones."),
            SampleParagraph::heading(SECTION_FONT_SIZE, "2.1 Masks"),
            SampleParagraph::body(MASKS),
            SampleParagraph::body(PREFIXES),
        ])
        .with_footer("1"),
        SamplePage::new(vec![
            SampleParagraph::body("Masks are checked before every forwarding decision."),
            SampleParagraph::heading(SECTION_FONT_SIZE, "2.2 Gateways"),
            SampleParagraph::body(GATEWAYS),
        ])
        .with_footer("2"),
        SamplePage::new(vec![
            SampleParagraph::heading(CHAPTER_FONT_SIZE, "Chapter 3 Routing"),
            SampleParagraph::body("Routers choose the most specific route."),
        ])
        .with_footer("3"),
    ]
}

#[test]
fn pdf_headings_pages_and_citations() {
    let bytes = sample::pdf_with_title("Subnetting Notes", &subnet_notes_pages());
    let extracted = extract("notes.pdf", &bytes, &limits()).unwrap();
    assert_eq!(extracted.format, Format::Pdf);
    assert_eq!(extracted.title.as_deref(), Some("Subnetting Notes"));
    assert_eq!(extracted.pages, Some(3));
    assert!(extracted.unreadable_pages.is_empty());

    let chapter_2 = path(&["Chapter 2 Subnets"]);
    let masks = path(&["Chapter 2 Subnets", "2.1 Masks"]);
    let gateways = path(&["Chapter 2 Subnets", "2.2 Gateways"]);
    assert_eq!(
        outline(&extracted),
        vec![
            (Some(1), chapter_2, "Subnets split one network into several smaller ones.".to_owned()),
            (Some(1), masks.clone(), format!("{MASKS}\n\n{PREFIXES}")),
            (Some(2), masks, "Masks are checked before every forwarding decision.".to_owned()),
            (Some(2), gateways, GATEWAYS.to_owned()),
            (Some(3), path(&["Chapter 3 Routing"]), "Routers choose the most specific route.".to_owned()),
        ]
    );
    assert_eq!(extracted.chunks[1].citation("notes.pdf"), "notes.pdf, p. 1, Chapter 2 Subnets > 2.1 Masks");
    assert_eq!(extracted.chunks[2].citation("notes.pdf"), "notes.pdf, p. 2, Chapter 2 Subnets > 2.1 Masks");
    assert_eq!(extracted.chunks[4].citation("notes.pdf"), "notes.pdf, p. 3, Chapter 3 Routing");
    assert_eq!(extracted.chunks.iter().map(|chunk| chunk.ordinal).collect::<Vec<_>>(), vec![0, 1, 2, 3, 4]);
}

#[test]
fn pdf_without_an_info_title_is_titled_by_its_first_heading() {
    let extracted = extract("notes.pdf", &sample::pdf(&subnet_notes_pages()), &limits()).unwrap();
    assert_eq!(extracted.title.as_deref(), Some("Chapter 2 Subnets"));
}

#[test]
fn pdf_is_recognised_by_its_header_without_an_extension() {
    let extracted = extract("upload-7f3a", &sample::pdf(&subnet_notes_pages()), &limits()).unwrap();
    assert_eq!(extracted.format, Format::Pdf);
    assert_eq!(extracted.chunks.len(), 5);
}

#[test]
fn book_text_round_trips_page_by_page() {
    let pages = sample::book_pages(24);
    let extracted = extract("book.pdf", &sample::book(24), &limits()).unwrap();
    assert_eq!(extracted.title.as_deref(), Some("A Field Guide to Networks"));
    assert_eq!(extracted.pages, Some(24));

    for (index, page) in pages.iter().enumerate() {
        let number = u32::try_from(index + 1).unwrap();
        let expected: Vec<&str> = page
            .paragraphs
            .iter()
            .filter(|paragraph| paragraph.font_size == sample::BODY_FONT_SIZE)
            .map(|paragraph| paragraph.text.as_str())
            .collect();
        let on_page: Vec<&str> = extracted
            .chunks
            .iter()
            .filter(|chunk| chunk.page == Some(number))
            .map(|chunk| chunk.text.as_str())
            .collect();
        assert_eq!(on_page.join("\n\n"), expected.join("\n\n"), "page {number}");
    }
    for chunk in &extracted.chunks {
        assert!(chunk.text.chars().count() <= Limits::DEFAULT_MAX_CHUNK_CHARS);
        assert!(!chunk.text.contains(|c: char| c.is_control() && c != '\n'));
        assert_eq!(chunk.heading_path.len(), 2, "chunk {} sits under a chapter and a section", chunk.ordinal);
    }

    let page_9 = extracted.chunks.iter().find(|chunk| chunk.page == Some(9)).unwrap();
    assert_eq!(page_9.heading_path, [pages[8].paragraphs[0].text.clone(), pages[8].paragraphs[1].text.clone()]);
    assert!(page_9.heading_path[0].starts_with("Chapter 2 "));
    assert!(page_9.heading_path[1].starts_with("2.1 "));
    // A page without a heading continues the section of the page before.
    let page_10 = extracted.chunks.iter().find(|chunk| chunk.page == Some(10)).unwrap();
    assert_eq!(page_10.heading_path, page_9.heading_path);
}

#[test]
fn pdf_chunks_never_span_pages_even_when_small() {
    let limits = Limits { max_chunk_chars: 200, ..Limits::default() };
    let extracted = extract("book.pdf", &sample::book(6), &limits).unwrap();
    let pages = sample::book_pages(6);
    for chunk in &extracted.chunks {
        assert!(chunk.text.chars().count() <= 200, "{}", chunk.text);
        let page = &pages[chunk.page.unwrap() as usize - 1];
        let page_text: String =
            page.paragraphs.iter().map(|paragraph| paragraph.text.as_str()).collect::<Vec<_>>().join(" ");
        for paragraph in chunk.text.split("\n\n") {
            assert!(page_text.contains(paragraph), "{paragraph:?} is not on page {:?}", chunk.page);
        }
    }
}

#[test]
fn markdown_notes_with_nested_headings_code_and_lists() {
    let markdown = "\
Networking Notes
================

Collected while studying for the exam.

## Subnets

A subnet is a slice of an address space.

### Masks

Masks are written in prefix notation:

```sh
ip addr add 192.168.1.10/24 dev eth0
ip route show
```

Subnet sizes
------------

- /24: 254 hosts
- /30: 2 hosts
  - used on point-to-point links

# Routing

1. Read the destination.
2. Find the longest matching prefix.
";
    let extracted = extract("notes.md", markdown.as_bytes(), &limits()).unwrap();
    assert_eq!(extracted.format, Format::Markdown);
    assert_eq!(extracted.title.as_deref(), Some("Networking Notes"));
    assert_eq!(extracted.pages, None);
    let notes = "Networking Notes";
    assert_eq!(
        outline(&extracted),
        vec![
            (None, path(&[notes]), "Collected while studying for the exam.".to_owned()),
            (None, path(&[notes, "Subnets"]), "A subnet is a slice of an address space.".to_owned()),
            (
                None,
                path(&[notes, "Subnets", "Masks"]),
                "Masks are written in prefix notation:\n\nip addr add 192.168.1.10/24 dev eth0\nip route show"
                    .to_owned()
            ),
            (
                None,
                path(&[notes, "Subnet sizes"]),
                "- /24: 254 hosts\n- /30: 2 hosts\n  - used on point-to-point links".to_owned()
            ),
            (None, path(&["Routing"]), "1. Read the destination.\n2. Find the longest matching prefix.".to_owned()),
        ]
    );
    assert_eq!(extracted.chunks[2].citation("notes.md"), "notes.md, Networking Notes > Subnets > Masks");
}

#[test]
fn html_page_with_title_chrome_nested_headings_and_table() {
    let html = r#"<!DOCTYPE html>
<html lang="en">
<head>
  <meta charset="utf-8">
  <title>Subnetting Cheat Sheet</title>
  <style>body { font-family: sans-serif }</style>
  <script>window.analytics = { track() {} };</script>
</head>
<body>
  <nav><ul><li><a href="/">Home</a></li><li><a href="/blog">Blog</a></li></ul></nav>
  <main>
    <h1>Subnetting</h1>
    <p>Subnetting divides a network into <em>smaller</em> networks.</p>
    <section>
      <h2>Common prefixes</h2>
      <table>
        <tr><th>Prefix</th><th>Mask</th><th>Hosts</th></tr>
        <tr><td>/24</td><td>255.255.255.0</td><td>254</td></tr>
        <tr><td>/30</td><td>255.255.255.252</td><td>2</td></tr>
      </table>
      <h3>Why /31 is special</h3>
      <p>Point-to-point links need no broadcast address.</p>
    </section>
  </main>
  <script src="/app.js"></script>
</body>
</html>"#;
    let extracted = extract("cheatsheet.html", html.as_bytes(), &limits()).unwrap();
    assert_eq!(extracted.format, Format::Html);
    assert_eq!(extracted.title.as_deref(), Some("Subnetting Cheat Sheet"));
    assert_eq!(
        outline(&extracted),
        vec![
            (None, path(&["Subnetting"]), "Subnetting divides a network into smaller networks.".to_owned()),
            (
                None,
                path(&["Subnetting", "Common prefixes"]),
                "Prefix | Mask | Hosts\n/24 | 255.255.255.0 | 254\n/30 | 255.255.255.252 | 2".to_owned()
            ),
            (
                None,
                path(&["Subnetting", "Common prefixes", "Why /31 is special"]),
                "Point-to-point links need no broadcast address.".to_owned()
            ),
        ]
    );
    let all_text: String = extracted.chunks.iter().map(|chunk| chunk.text.as_str()).collect();
    for chrome in ["Home", "Blog", "analytics", "font-family"] {
        assert!(!all_text.contains(chrome), "{chrome} leaked into the text");
    }
}

#[test]
fn plain_text_paragraphs_are_packed_into_chunks() {
    let paragraph = |n: usize| format!("Paragraph {n} explains one idea\nand wraps over two lines.");
    let text = (1..=6).map(paragraph).collect::<Vec<_>>().join("\n\n\n");
    let limits = Limits { max_chunk_chars: 120, ..Limits::default() };
    let extracted = extract("lecture.txt", text.as_bytes(), &limits).unwrap();
    assert_eq!(extracted.format, Format::Text);
    assert_eq!(extracted.title, None);
    let texts: Vec<&str> = extracted.chunks.iter().map(|chunk| chunk.text.as_str()).collect();
    assert_eq!(
        texts,
        vec![
            "Paragraph 1 explains one idea and wraps over two lines.\n\nParagraph 2 explains one idea and wraps over two lines.",
            "Paragraph 3 explains one idea and wraps over two lines.\n\nParagraph 4 explains one idea and wraps over two lines.",
            "Paragraph 5 explains one idea and wraps over two lines.\n\nParagraph 6 explains one idea and wraps over two lines.",
        ]
    );
    assert!(extracted.chunks.iter().all(|chunk| chunk.heading_path.is_empty() && chunk.page.is_none()));
}

#[test]
fn extraction_is_deterministic() {
    let bytes = sample::book(5);
    assert_eq!(extract("book.pdf", &bytes, &limits()).unwrap(), extract("book.pdf", &bytes, &limits()).unwrap());
}

const SECTIONS: [(&str, &str); 4] = [
    ("Masks", "A mask marks the network bits of an address."),
    ("Prefixes", "A prefix length counts the leading one bits of a mask."),
    ("Gateways", "A gateway forwards traffic that leaves the subnet."),
    ("Routes", "A route maps a destination prefix to a next hop."),
];

fn markdown_sections(sections: &[(&str, &str)]) -> String {
    sections.iter().map(|(heading, body)| format!("## {heading}\n\n{body}\n\n")).collect()
}

#[test]
fn changing_one_paragraph_changes_only_its_chunk_hash() {
    let original = extract("notes.md", markdown_sections(&SECTIONS).as_bytes(), &limits()).unwrap();
    let mut edited_sections = SECTIONS;
    edited_sections[2].1 = "A gateway forwards packets that leave the subnet.";
    let edited = extract("notes.md", markdown_sections(&edited_sections).as_bytes(), &limits()).unwrap();

    let before = hashes(&original.chunks);
    let after = hashes(&edited.chunks);
    assert_eq!(before.len(), 4);
    let changed: Vec<usize> = (0..4).filter(|&index| before[index] != after[index]).collect();
    assert_eq!(changed, vec![2]);
}

#[test]
fn a_chunk_that_moved_keeps_its_hash() {
    let original = extract("notes.md", markdown_sections(&SECTIONS).as_bytes(), &limits()).unwrap();
    let moved = format!("## Preface\n\nA new first section.\n\n{}", markdown_sections(&SECTIONS));
    let moved = extract("notes.md", moved.as_bytes(), &limits()).unwrap();
    assert_eq!(hashes(&moved.chunks)[1..], hashes(&original.chunks)[..]);
    assert_eq!(moved.chunks[1].ordinal, 1);
    assert_eq!(original.chunks[0].ordinal, 0);
}

#[test]
fn changing_one_pdf_paragraph_changes_only_its_chunk_hash() {
    let mut pages = subnet_notes_pages();
    let original = extract("notes.pdf", &sample::pdf(&pages), &limits()).unwrap();
    pages[1].paragraphs[0] = SampleParagraph::body("Masks are checked before each forwarding decision.");
    let edited = extract("notes.pdf", &sample::pdf(&pages), &limits()).unwrap();
    let before = hashes(&original.chunks);
    let after = hashes(&edited.chunks);
    let changed: Vec<usize> = (0..before.len()).filter(|&index| before[index] != after[index]).collect();
    assert_eq!(changed, vec![2]);
    assert_eq!(edited.chunks[2].text, "Masks are checked before each forwarding decision.");
}

#[test]
fn the_same_text_under_another_heading_hashes_differently() {
    let a = extract("a.md", b"# One\n\nSame text.", &limits()).unwrap();
    let b = extract("b.md", b"# Two\n\nSame text.", &limits()).unwrap();
    assert_ne!(a.chunks[0].content_hash, b.chunks[0].content_hash);
}

#[test]
fn output_has_no_control_characters() {
    let text = "Tabs\tand\u{7}bells\r\nand\u{1b}[31m escapes\u{0b} stay out.\r\n\r\nSecond\u{c} paragraph.";
    let extracted = extract("messy.txt", text.as_bytes(), &limits()).unwrap();
    let texts: Vec<&str> = extracted.chunks.iter().map(|chunk| chunk.text.as_str()).collect();
    assert_eq!(texts, vec!["Tabs and bells and [31m escapes stay out.\n\nSecond paragraph."]);
}

// --- errors ---

fn error(file: &str, bytes: &[u8], limits: &Limits) -> IngestError {
    extract(file, bytes, limits).expect_err("the document should be refused")
}

#[test]
fn empty_file_is_refused() {
    let error = error("notes.md", b"", &limits());
    assert_eq!(error, IngestError::Empty { file: "notes.md".into() });
    assert_eq!(error.code(), ErrorCode::Empty);
    assert_eq!(error.to_string(), "notes.md is empty (0 bytes); upload a document that has text in it");
}

#[test]
fn whitespace_or_markup_only_is_refused() {
    let whitespace = error("notes.txt", b" \n\t\r\n  \n", &limits());
    assert_eq!(whitespace, IngestError::NoText { file: "notes.txt".into() });
    assert_eq!(whitespace.code(), ErrorCode::Empty);
    let markup = error(
        "page.html",
        b"<html><head><title>T</title></head><body><nav>Home</nav><script>x()</script></body></html>",
        &limits(),
    );
    assert_eq!(markup.code(), ErrorCode::Empty);
    assert!(markup.to_string().contains("page.html contains no readable text"));
}

#[test]
fn too_large_file_is_refused_with_size_and_limit() {
    let bytes = vec![b'a'; Limits::DEFAULT_MAX_BYTES + 1];
    let error = error("huge.txt", &bytes, &limits());
    assert_eq!(
        error,
        IngestError::TooLarge {
            file: "huge.txt".into(),
            size: Limits::DEFAULT_MAX_BYTES + 1,
            limit: Limits::DEFAULT_MAX_BYTES
        }
    );
    assert_eq!(error.code(), ErrorCode::TooLarge);
    assert!(error.to_string().contains("33554433 bytes, over the 33554432-byte limit"), "{error}");

    let small = Limits { max_bytes: 10, ..Limits::default() };
    assert_eq!(super_error_code("notes.md", b"exactly 10", &small), None);
    assert_eq!(super_error_code("notes.md", b"eleven byte", &small), Some(ErrorCode::TooLarge));
}

fn super_error_code(file: &str, bytes: &[u8], limits: &Limits) -> Option<ErrorCode> {
    extract(file, bytes, limits).err().map(|error| error.code())
}

#[test]
fn binary_data_in_a_text_format_is_refused() {
    let bytes = b"# Notes\n\n\x00\x01\x02\x03PK\x00\x00binary";
    let error = error("notes.md", bytes, &limits());
    assert_eq!(error, IngestError::NulBytes { file: "notes.md".into(), format: Format::Markdown, offset: 9 });
    assert_eq!(error.code(), ErrorCode::Binary);
    assert!(error.to_string().contains("Markdown files must be UTF-8 text"), "{error}");

    let latin1 = error_of("notes.txt", b"Caf\xe9 au lait");
    assert_eq!(latin1.code(), ErrorCode::Binary);
    assert!(latin1.to_string().contains("notes.txt is not valid UTF-8 (first bad byte at offset 3)"), "{latin1}");

    let html = error_of("page.html", b"<p>\xff\xfe</p>");
    assert_eq!(html.code(), ErrorCode::Binary);
}

fn error_of(file: &str, bytes: &[u8]) -> IngestError {
    error(file, bytes, &limits())
}

/// Bytes that look random but are the same on every run.
fn noise(length: usize) -> Vec<u8> {
    let mut state: u64 = 0x2545_F491_4F6C_DD1D;
    (0..length)
        .map(|_| {
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            (state >> 24) as u8
        })
        .collect()
}

#[test]
fn random_bytes_named_pdf_are_a_malformed_pdf() {
    let error = error_of("paper.pdf", &noise(4096));
    assert_eq!(error.code(), ErrorCode::MalformedPdf);
    assert!(error.to_string().starts_with("paper.pdf is not a readable PDF ("), "{error}");

    let mut header_then_noise = b"%PDF-1.7\n".to_vec();
    header_then_noise.extend(noise(4096));
    assert_eq!(error_of("paper.pdf", &header_then_noise).code(), ErrorCode::MalformedPdf);
}

#[test]
fn truncated_pdf_is_a_malformed_pdf() {
    let book = sample::book(4);
    for cut in [10, book.len() / 4, book.len() / 2, book.len() - 40] {
        let error = error_of("cut.pdf", &book[..cut]);
        assert_eq!(error.code(), ErrorCode::MalformedPdf, "cut at {cut}: {error}");
        assert!(error.to_string().contains("re-export or re-save it as a standard PDF"), "{error}");
    }
}

#[test]
fn encrypted_pdf_is_refused() {
    let error = error_of("sealed.pdf", &sample::encrypted_pdf());
    assert_eq!(error, IngestError::EncryptedPdf { file: "sealed.pdf".into() });
    assert_eq!(error.code(), ErrorCode::EncryptedPdf);
    assert!(error.to_string().contains("encrypted PDF; remove the password first"), "{error}");
}

#[test]
fn pdf_encrypted_only_against_printing_is_read() {
    let extracted = extract("restricted.pdf", &sample::restricted_pdf(), &limits()).unwrap();
    assert_eq!(extracted.title.as_deref(), Some("Sealed"));
    let texts: Vec<&str> = extracted.chunks.iter().map(|chunk| chunk.text.as_str()).collect();
    assert_eq!(texts, vec!["Printing is restricted, reading is not."]);
}

#[test]
fn image_only_pdf_is_refused_as_lacking_a_text_layer() {
    let error = error_of("scan.pdf", &sample::image_only_pdf(3));
    assert_eq!(error, IngestError::NoTextLayer { file: "scan.pdf".into(), pages: 3 });
    assert_eq!(error.code(), ErrorCode::NoTextLayer);
    assert_eq!(
        error.to_string(),
        "scan.pdf has 3 pages but no text layer — a scanned document? run OCR first so the text can be read"
    );
}

#[test]
fn unknown_extension_is_refused_listing_the_supported_ones() {
    let error = error_of("thesis.docx", b"PK\x03\x04 a zip archive");
    assert_eq!(error, IngestError::UnsupportedFormat { file: "thesis.docx".into() });
    assert_eq!(error.code(), ErrorCode::UnsupportedFormat);
    let message = error.to_string();
    for supported in [".md", ".markdown", ".txt", ".html", ".htm", ".pdf"] {
        assert!(message.contains(supported), "{message} lacks {supported}");
    }
}

#[test]
fn too_many_pages_is_refused_before_extraction() {
    let limits = Limits { max_pages: 3, ..Limits::default() };
    let error = error("book.pdf", &sample::book(5), &limits);
    assert_eq!(error, IngestError::TooManyPages { file: "book.pdf".into(), pages: 5, limit: 3 });
    assert_eq!(error.code(), ErrorCode::TooManyPages);
    assert!(error.to_string().contains("5 pages, over the 3-page limit"));
    assert!(extract("book.pdf", &sample::book(3), &limits).is_ok());
}

// --- PDFs that make pdf-extract panic or recurse ---

/// Replaces the content of the given 1-based pages of a PDF.
fn with_page_content(bytes: &[u8], pages: &[u32], content: &[u8]) -> Vec<u8> {
    let mut document = lopdf::Document::load_mem(bytes).unwrap();
    let page_ids = document.get_pages();
    for page in pages {
        let stream = document.add_object(lopdf::Stream::new(lopdf::Dictionary::new(), content.to_vec()));
        let page = document.get_object_mut(page_ids[page]).unwrap().as_dict_mut().unwrap();
        page.set("Contents", stream);
    }
    let mut out = Vec::new();
    document.save_to(&mut out).unwrap();
    out
}

/// Shows text before selecting a font, which pdf-extract answers with a panic.
const PANICKING_CONTENT: &[u8] = b"BT 72 700 Td (no font selected) Tj ET";

#[test]
fn a_page_that_crashes_the_extractor_is_skipped_and_reported() {
    let bytes = with_page_content(&sample::book(3), &[2], PANICKING_CONTENT);
    let extracted = extract("book.pdf", &bytes, &limits()).unwrap();
    assert_eq!(extracted.unreadable_pages, vec![2]);
    let pages: Vec<u32> = extracted.chunks.iter().filter_map(|chunk| chunk.page).collect();
    assert!(pages.contains(&1) && pages.contains(&3) && !pages.contains(&2), "{pages:?}");
}

#[test]
fn a_pdf_whose_every_page_crashes_the_extractor_is_malformed() {
    let bytes = with_page_content(&sample::book(2), &[1, 2], PANICKING_CONTENT);
    let error = error_of("book.pdf", &bytes);
    assert_eq!(error.code(), ErrorCode::MalformedPdf);
    assert!(error.to_string().contains("page 1 could not be read"), "{error}");
}

#[test]
fn a_form_that_draws_itself_is_refused_instead_of_overflowing_the_stack() {
    let mut document = lopdf::Document::load_mem(&sample::book(1)).unwrap();
    let form_id = document.new_object_id();
    let resources = lopdf::dictionary! { "XObject" => lopdf::dictionary! { "Loop" => form_id } };
    document.objects.insert(
        form_id,
        lopdf::Object::Stream(lopdf::Stream::new(
            lopdf::dictionary! { "Type" => "XObject", "Subtype" => "Form", "Resources" => resources.clone() },
            b"/Loop Do".to_vec(),
        )),
    );
    let page_id = document.get_pages()[&1];
    let content = document.add_object(lopdf::Stream::new(lopdf::Dictionary::new(), b"/Loop Do".to_vec()));
    let page = document.get_object_mut(page_id).unwrap().as_dict_mut().unwrap();
    page.set("Contents", content);
    page.set("Resources", resources);
    let mut bytes = Vec::new();
    document.save_to(&mut bytes).unwrap();

    let error = error_of("loop.pdf", &bytes);
    assert_eq!(error.code(), ErrorCode::MalformedPdf);
    assert!(error.to_string().contains("refer to themselves in a loop"), "{error}");
}
