//! Sample PDFs for tests and benchmarks, written with lopdf.
//!
//! Pages are US Letter with one-inch margins, set in the standard Helvetica fonts (no font
//! files embedded). A paragraph wraps at the text width, its lines 1.25 × the font size
//! apart, with extra space after it; text larger than [`BODY_FONT_SIZE`] is set bold, the
//! way headings usually are. Everything is deterministic: the same call gives the same
//! bytes.

use lopdf::content::{Content, Operation};
use lopdf::{
    dictionary, Document, EncryptionState, EncryptionVersion, Object, ObjectId, Permissions, Stream, StringFormat,
};

pub const BODY_FONT_SIZE: f32 = 11.0;
pub const CHAPTER_FONT_SIZE: f32 = 18.0;
pub const SECTION_FONT_SIZE: f32 = 14.0;
const FOOTER_FONT_SIZE: f32 = 9.0;

const PAGE_WIDTH: f32 = 612.0;
const PAGE_HEIGHT: f32 = 792.0;
const MARGIN: f32 = 72.0;
const LINE_SPACING: f32 = 1.25;
const PARAGRAPH_SPACING: f32 = 0.75;
/// Helvetica's average character width, as a share of the font size, for wrapping.
const AVERAGE_CHAR_WIDTH: f32 = 0.5;
/// Pages per chapter in [`book`]; every other page opens a section.
const BOOK_CHAPTER_PAGES: u32 = 8;

/// A block of text drawn at one size.
#[derive(Debug, Clone, PartialEq)]
pub struct SampleParagraph {
    pub font_size: f32,
    pub text: String,
}

impl SampleParagraph {
    pub fn body(text: impl Into<String>) -> Self {
        SampleParagraph { font_size: BODY_FONT_SIZE, text: text.into() }
    }

    pub fn heading(font_size: f32, text: impl Into<String>) -> Self {
        SampleParagraph { font_size, text: text.into() }
    }
}

#[derive(Debug, Clone, PartialEq, Default)]
pub struct SamplePage {
    /// Drawn top to bottom.
    pub paragraphs: Vec<SampleParagraph>,
    /// A small line at the bottom centre, such as the page number.
    pub footer: Option<String>,
}

impl SamplePage {
    pub fn new(paragraphs: Vec<SampleParagraph>) -> Self {
        SamplePage { paragraphs, footer: None }
    }

    pub fn with_footer(mut self, footer: impl Into<String>) -> Self {
        self.footer = Some(footer.into());
        self
    }
}

/// A PDF of the given pages.
pub fn pdf(pages: &[SamplePage]) -> Vec<u8> {
    save(text_document(None, pages))
}

/// A PDF of the given pages whose document information carries `title`.
pub fn pdf_with_title(title: &str, pages: &[SamplePage]) -> Vec<u8> {
    save(text_document(Some(title), pages))
}

/// A textbook-like PDF of `pages` pages (see [`book_pages`]) titled "A Field Guide to
/// Networks".
pub fn book(pages: u32) -> Vec<u8> {
    pdf_with_title("A Field Guide to Networks", &book_pages(pages))
}

/// The pages of [`book`]: a chapter every eight pages (18 pt "Chapter N …"), a section every
/// other page (14 pt "N.M …"), four or five body paragraphs of networking prose per page,
/// and the page number as a footer.
pub fn book_pages(pages: u32) -> Vec<SamplePage> {
    (0..pages)
        .map(|index| {
            let chapter = index / BOOK_CHAPTER_PAGES + 1;
            let mut paragraphs = Vec::new();
            if index.is_multiple_of(BOOK_CHAPTER_PAGES) {
                let title = pick(CHAPTER_TITLES, chapter - 1);
                paragraphs.push(SampleParagraph::heading(CHAPTER_FONT_SIZE, format!("Chapter {chapter} {title}")));
            }
            if index.is_multiple_of(2) {
                let section = index % BOOK_CHAPTER_PAGES / 2 + 1;
                let title = pick(SECTION_TITLES, chapter * 7 + section);
                paragraphs.push(SampleParagraph::heading(SECTION_FONT_SIZE, format!("{chapter}.{section} {title}")));
            }
            let body_count = if paragraphs.is_empty() { 5 } else { 4 };
            paragraphs.extend((0..body_count).map(|paragraph| SampleParagraph::body(prose(index, paragraph))));
            SamplePage::new(paragraphs).with_footer((index + 1).to_string())
        })
        .collect()
}

/// A one-page PDF that cannot be opened without its password (`secret`), encrypted with
/// RC4 the way early PDF writers did.
pub fn encrypted_pdf() -> Vec<u8> {
    encrypted("secret", "Nobody may read this without the password.")
}

/// A one-page PDF encrypted only to restrict printing and copying: its user password is
/// empty, so readers open it without asking, and so should an importer.
pub fn restricted_pdf() -> Vec<u8> {
    encrypted("", "Printing is restricted, reading is not.")
}

fn encrypted(user_password: &str, text: &str) -> Vec<u8> {
    let mut document = text_document(Some("Sealed"), &[SamplePage::new(vec![SampleParagraph::body(text)])]);
    // The file identifier salts the encryption key.
    let id = Object::String(b"pathwise-sample!".to_vec(), StringFormat::Hexadecimal);
    document.trailer.set("ID", vec![id.clone(), id]);
    // Revision 2 (40-bit RC4): later revisions pad the user key with random bytes, and the
    // samples must come out the same on every call.
    let version = EncryptionVersion::V1 {
        document: &document,
        owner_password: "owner",
        user_password,
        permissions: Permissions::default(),
    };
    let state = EncryptionState::try_from(version).expect("RC4 parameters are valid");
    document.encrypt(&state).expect("a fresh document encrypts");
    save(document)
}

/// A PDF like a scan without OCR: each page draws an image and no text.
pub fn image_only_pdf(pages: u32) -> Vec<u8> {
    let mut document = Document::with_version("1.5");
    let image = document.add_object(Stream::new(
        dictionary! {
            "Type" => "XObject",
            "Subtype" => "Image",
            "Width" => 2,
            "Height" => 2,
            "ColorSpace" => "DeviceGray",
            "BitsPerComponent" => 8,
        },
        vec![0x00, 0xFF, 0xFF, 0x00],
    ));
    let resources = document.add_object(dictionary! { "XObject" => dictionary! { "Im0" => image } });
    let text_width = PAGE_WIDTH - 2.0 * MARGIN;
    let text_height = PAGE_HEIGHT - 2.0 * MARGIN;
    let draw = Content {
        operations: vec![
            Operation::new("q", vec![]),
            Operation::new(
                "cm",
                vec![text_width.into(), 0.into(), 0.into(), text_height.into(), MARGIN.into(), MARGIN.into()],
            ),
            Operation::new("Do", vec!["Im0".into()]),
            Operation::new("Q", vec![]),
        ],
    };
    let contents = vec![encode(&draw); pages as usize];
    save(assemble(document, resources, None, contents))
}

fn text_document(title: Option<&str>, pages: &[SamplePage]) -> Document {
    let mut document = Document::with_version("1.5");
    let regular = document.add_object(dictionary! {
        "Type" => "Font",
        "Subtype" => "Type1",
        "BaseFont" => "Helvetica",
        "Encoding" => "WinAnsiEncoding",
    });
    let bold = document.add_object(dictionary! {
        "Type" => "Font",
        "Subtype" => "Type1",
        "BaseFont" => "Helvetica-Bold",
        "Encoding" => "WinAnsiEncoding",
    });
    let resources = document.add_object(dictionary! { "Font" => dictionary! { "F1" => regular, "F2" => bold } });
    let contents = pages.iter().map(|page| encode(&Content { operations: page_operations(page) })).collect();
    assemble(document, resources, title, contents)
}

/// Adds the page tree, catalog and document information around the pages' content streams.
fn assemble(mut document: Document, resources: ObjectId, title: Option<&str>, contents: Vec<Vec<u8>>) -> Document {
    let pages_id = document.new_object_id();
    let page_count = contents.len();
    let kids: Vec<Object> = contents
        .into_iter()
        .map(|content| {
            let content_id = document.add_object(Stream::new(dictionary! {}, content));
            document.add_object(dictionary! { "Type" => "Page", "Parent" => pages_id, "Contents" => content_id }).into()
        })
        .collect();
    let media_box: Vec<Object> = vec![0.into(), 0.into(), PAGE_WIDTH.into(), PAGE_HEIGHT.into()];
    document.objects.insert(
        pages_id,
        Object::Dictionary(dictionary! {
            "Type" => "Pages",
            "Kids" => kids,
            "Count" => i64::try_from(page_count).unwrap_or(i64::MAX),
            "Resources" => resources,
            "MediaBox" => media_box,
        }),
    );
    let catalog = document.add_object(dictionary! { "Type" => "Catalog", "Pages" => pages_id });
    document.trailer.set("Root", catalog);
    if let Some(title) = title {
        let info = document.add_object(dictionary! { "Title" => lopdf::text_string(title) });
        document.trailer.set("Info", info);
    }
    // Before any encryption: streams are compressed first and the result encrypted.
    document.compress();
    document
}

fn page_operations(page: &SamplePage) -> Vec<Operation> {
    let mut operations = Vec::new();
    let mut top = PAGE_HEIGHT - MARGIN;
    for (index, paragraph) in page.paragraphs.iter().enumerate() {
        let size = paragraph.font_size;
        let leading = size * LINE_SPACING;
        if index > 0 && size > BODY_FONT_SIZE {
            top -= size * 0.5;
        }
        let font = if size > BODY_FONT_SIZE { "F2" } else { "F1" };
        let baseline = top - size;
        operations.push(Operation::new("BT", vec![]));
        operations.push(Operation::new("Tf", vec![font.into(), size.into()]));
        operations.push(Operation::new("TL", vec![leading.into()]));
        operations.push(Operation::new("Td", vec![MARGIN.into(), baseline.into()]));
        let width_in_chars = ((PAGE_WIDTH - 2.0 * MARGIN) / (size * AVERAGE_CHAR_WIDTH)) as usize;
        let lines = wrap(&paragraph.text, width_in_chars);
        for (line_index, line) in lines.iter().enumerate() {
            if line_index > 0 {
                operations.push(Operation::new("T*", vec![]));
            }
            operations.push(Operation::new("Tj", vec![win_ansi(line)]));
        }
        operations.push(Operation::new("ET", vec![]));
        top -= leading * lines.len() as f32 + size * PARAGRAPH_SPACING;
    }
    if let Some(footer) = &page.footer {
        let x = PAGE_WIDTH / 2.0 - footer.chars().count() as f32 * FOOTER_FONT_SIZE * AVERAGE_CHAR_WIDTH / 2.0;
        operations.extend([
            Operation::new("BT", vec![]),
            Operation::new("Tf", vec!["F1".into(), FOOTER_FONT_SIZE.into()]),
            Operation::new("Td", vec![x.into(), (MARGIN / 2.0).into()]),
            Operation::new("Tj", vec![win_ansi(footer)]),
            Operation::new("ET", vec![]),
        ]);
    }
    operations
}

/// Greedy word wrap; a word longer than a line gets a line of its own.
fn wrap(text: &str, width_in_chars: usize) -> Vec<String> {
    let mut lines: Vec<String> = Vec::new();
    let mut line = String::new();
    for word in text.split_whitespace() {
        if !line.is_empty() && line.chars().count() + 1 + word.chars().count() > width_in_chars {
            lines.push(std::mem::take(&mut line));
        }
        if !line.is_empty() {
            line.push(' ');
        }
        line.push_str(word);
    }
    if !line.is_empty() {
        lines.push(line);
    }
    lines
}

/// The string in the fonts' WinAnsi encoding; characters outside Latin-1 become `?`.
fn win_ansi(text: &str) -> Object {
    let bytes = text
        .chars()
        .map(|c| match u32::from(c) {
            code @ (0x20..=0x7E | 0xA0..=0xFF) => code as u8,
            _ => b'?',
        })
        .collect();
    Object::String(bytes, StringFormat::Literal)
}

fn encode(content: &Content) -> Vec<u8> {
    content.encode().expect("content built from valid operators encodes")
}

fn save(mut document: Document) -> Vec<u8> {
    let mut bytes = Vec::new();
    document.save_to(&mut bytes).expect("writing a PDF to memory does not fail");
    bytes
}

const CHAPTER_TITLES: &[&str] = &[
    "Addresses and Subnets",
    "Routing Basics",
    "Switching and VLANs",
    "Transport Protocols",
    "Name Resolution",
    "Network Security",
    "Wireless Links",
    "Troubleshooting",
];

const SECTION_TITLES: &[&str] = &[
    "Masks",
    "Prefixes",
    "Gateways",
    "Tables",
    "Metrics",
    "Failures",
    "Tools",
    "Practice",
    "Timers",
    "Summaries",
    "Neighbours",
];

const SUBJECTS: &[&str] = &[
    "A router",
    "Every host",
    "The subnet mask",
    "A switch",
    "The default gateway",
    "Each packet",
    "The learner",
    "A careful administrator",
    "The routing table",
    "An access list",
    "The resolver",
];

const VERBS: &[&str] =
    &["forwards", "inspects", "records", "compares", "selects", "rejects", "summarises", "announces", "caches"];

const OBJECTS: &[&str] = &[
    "the destination address",
    "a longer prefix",
    "the broadcast domain",
    "every incoming frame",
    "the shortest path",
    "a private address range",
    "the next hop",
    "the updates of its neighbours",
    "the host portion",
    "a default route",
    "the time to live",
    "a forwarding decision",
    "the checksum",
];

const TAILS: &[&str] = &[
    "before the timer expires",
    "whenever the link state changes",
    "in a small office network",
    "without asking the user",
    "so that loops cannot form",
    "at the edge of the network",
    "when the cache is cold",
    "during the first exercise",
    "after every configuration change",
    "as the worked example shows",
    "on a busy Monday morning",
    "unless the interface is down",
    "long before anyone notices",
    "exactly as the standard describes",
];

/// Four or five sentences, different for every page and paragraph but always the same for
/// the same ones.
fn prose(page: u32, paragraph: u32) -> String {
    let seed = page * 31 + paragraph * 7;
    let sentence_count = 4 + (page + paragraph) % 2;
    let sentences: Vec<String> = (0..sentence_count)
        .map(|sentence| {
            let n = mix(seed * 13 + sentence);
            let mut text = format!(
                "{} {} {} {}",
                pick(SUBJECTS, n),
                pick(VERBS, n / 11),
                pick(OBJECTS, n / 101),
                pick(TAILS, n / 1009)
            );
            if n.is_multiple_of(5) {
                text.push_str(&format!(" (see figure {}.{})", page + 1, sentence + 1));
            }
            text.push('.');
            text
        })
        .collect();
    sentences.join(" ")
}

/// Scrambles an index so neighbouring pages read differently (a fixed integer hash, not
/// randomness: the result depends only on the input).
fn mix(value: u32) -> u32 {
    let mut x = value.wrapping_mul(0x9E37_79B9) ^ 0x85EB_CA6B;
    x ^= x >> 15;
    x = x.wrapping_mul(0xC2B2_AE35);
    x ^ (x >> 13)
}

fn pick(words: &[&'static str], index: u32) -> &'static str {
    words[index as usize % words.len()]
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_same_call_gives_the_same_bytes() {
        assert_eq!(book(3), book(3));
        assert_eq!(encrypted_pdf(), encrypted_pdf());
        assert_eq!(restricted_pdf(), restricted_pdf());
        assert_eq!(image_only_pdf(2), image_only_pdf(2));
        assert!(book(3).starts_with(b"%PDF-1.5"));
    }

    #[test]
    fn book_pages_have_chapters_sections_and_prose() {
        let pages = book_pages(10);
        assert_eq!(pages.len(), 10);
        assert_eq!(pages[0].paragraphs[0].text, "Chapter 1 Addresses and Subnets");
        assert_eq!(pages[0].paragraphs[0].font_size, CHAPTER_FONT_SIZE);
        assert!(pages[0].paragraphs[1].text.starts_with("1.1 "));
        assert_eq!(pages[1].paragraphs.len(), 5);
        assert!(pages[1].paragraphs.iter().all(|paragraph| paragraph.font_size == BODY_FONT_SIZE));
        assert!(pages[8].paragraphs[0].text.starts_with("Chapter 2 "));
        assert_eq!(pages[9].footer.as_deref(), Some("10"));
        let body = &pages[1].paragraphs[0].text;
        assert!(body.len() > 200 && body.ends_with('.'), "{body}");
        assert_ne!(pages[1].paragraphs[0].text, pages[3].paragraphs[0].text);
    }

    #[test]
    fn wrapping_breaks_between_words() {
        assert_eq!(wrap("one two three four", 9), vec!["one two", "three", "four"]);
        assert_eq!(wrap("unbreakable", 4), vec!["unbreakable"]);
    }
}
