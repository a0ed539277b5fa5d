//! Recovers headings and paragraphs from positioned lines.
//!
//! Headings are found by font size first: a short line set clearly larger than the
//! document's body text; their sizes, largest first, give the levels. Only when a document
//! uses no larger type at all does a textual fallback look for numbered section lines
//! ("2.1 Masks", "Chapter 3 Routing") standing alone. Paragraphs end at a wider vertical gap
//! than the document's usual line spacing, at a change of size, or after a short line that
//! ends a sentence.

use std::collections::HashMap;

use super::layout::{PageText, TextLine};
use crate::chunk::Block;
use crate::clean;

/// How much larger than body text a line must be to count as a heading: both a ratio and an
/// absolute margin, so rounding noise and slightly larger bold lead-ins do not qualify.
const HEADING_SIZE_RATIO: f64 = 1.15;
const HEADING_MIN_EXTRA_POINTS: f64 = 1.0;
const HEADING_MAX_CHARS: usize = 160;
const HEADING_MAX_WORDS: usize = 20;
const NUMBERED_HEADING_MAX_CHARS: usize = 100;
const NUMBERED_HEADING_MAX_WORDS: usize = 12;
const DEEPEST_LEVEL: u8 = 6;
/// A gap this much wider than the usual line spacing separates paragraphs.
const PARAGRAPH_GAP_RATIO: f64 = 1.3;
/// Line spacing assumed when a document has too few consecutive body lines to measure it.
const DEFAULT_LINE_SPACING: f64 = 1.2;
/// A line ending this far short of the text block's right edge (as a share of its width)
/// and ending a sentence is the last line of a paragraph.
const SHORT_LINE_SHARE: f64 = 0.8;

struct Line {
    text: String,
    size: f64,
    top: f64,
    left: f64,
    right: f64,
    heading_level: Option<u8>,
}

pub(crate) fn blocks(pages: &[PageText]) -> Vec<Block> {
    let mut pages: Vec<(u32, Vec<Line>)> = pages.iter().map(|page| (page.number, clean_lines(&page.lines))).collect();
    let body_size = body_font_size(&pages);
    let levels = heading_levels(&pages, body_size);
    for (_, lines) in &mut pages {
        for line in lines.iter_mut() {
            if is_heading_size(line.size, body_size) && looks_like_heading(&line.text) {
                line.heading_level = levels.get(&half_point_key(line.size)).copied();
            }
        }
    }
    let line_spacing = usual_line_spacing(&pages);
    remove_running_furniture(&mut pages, line_spacing);
    let numbered_fallback = levels.is_empty();

    let mut blocks = Vec::new();
    for (number, lines) in &pages {
        page_blocks(*number, lines, line_spacing, numbered_fallback, &mut blocks);
    }
    blocks
}

fn clean_lines(lines: &[TextLine]) -> Vec<Line> {
    let mut cleaned: Vec<Line> = lines
        .iter()
        .filter_map(|line| {
            let text = collapse_dot_leaders(&clean::inline(&expand_ligatures(&line.text)));
            (!text.is_empty()).then_some(Line {
                text,
                size: line.font_size,
                top: line.top,
                left: line.left,
                right: line.right,
                heading_level: None,
            })
        })
        .collect();
    // Running page numbers are furniture, not content.
    if cleaned.last().is_some_and(|line| is_page_number(&line.text)) {
        cleaned.pop();
    }
    if cleaned.first().is_some_and(|line| is_page_number(&line.text)) {
        cleaned.remove(0);
    }
    cleaned
}

fn expand_ligatures(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        match c {
            '\u{FB00}' => out.push_str("ff"),
            '\u{FB01}' => out.push_str("fi"),
            '\u{FB02}' => out.push_str("fl"),
            '\u{FB03}' => out.push_str("ffi"),
            '\u{FB04}' => out.push_str("ffl"),
            '\u{FB05}' | '\u{FB06}' => out.push_str("st"),
            c => out.push(c),
        }
    }
    out
}

/// Tables of contents pad entries to their page numbers with rows of dots, which carry no
/// text; a row of four or more dots (spaced or not) becomes one space.
fn collapse_dot_leaders(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut run = String::new();
    let mut dots = 0;
    for c in text.chars() {
        if c == '.' || (c == ' ' && dots > 0) {
            dots += usize::from(c == '.');
            run.push(c);
            continue;
        }
        if dots >= 4 {
            out.truncate(out.trim_end().len());
            out.push(' ');
        } else {
            out.push_str(&run);
        }
        run.clear();
        dots = 0;
        out.push(c);
    }
    if dots < 4 {
        out.push_str(&run);
    }
    out.trim_end().to_owned()
}

/// Running headers and footers: a line that opens or closes at least two pages with the same
/// wording (numbers aside, so "Chapter 2: Routing 17" repeats as "Chapter 2: Routing 18")
/// and stands apart from the text next to it, by a wider gap or another size. The last line
/// of a paragraph that happens to end two pages the same way is kept, as are headings.
fn remove_running_furniture(pages: &mut [(u32, Vec<Line>)], line_spacing: f64) {
    const MIN_PAGES: usize = 4;
    const MIN_REPEATS: usize = 2;
    if pages.len() < MIN_PAGES {
        return;
    }
    let stands_apart = |line: &Line, neighbour: &Line| {
        line.heading_level.is_none()
            && ((line.top - neighbour.top).abs() > line.size.max(neighbour.size) * line_spacing * 1.5
                || (line.size - neighbour.size).abs() > 0.5)
    };
    let candidates = |lines: &[Line]| -> Vec<usize> {
        let len = lines.len();
        if len < 2 {
            return Vec::new();
        }
        let mut found = Vec::new();
        if stands_apart(&lines[0], &lines[1]) {
            found.push(0);
        }
        if stands_apart(&lines[len - 1], &lines[len - 2]) {
            found.push(len - 1);
        }
        found
    };
    let mut repeats: HashMap<String, usize> = HashMap::new();
    for (_, lines) in pages.iter() {
        for index in candidates(lines) {
            *repeats.entry(furniture_key(&lines[index].text)).or_default() += 1;
        }
    }
    let is_furniture = |line: &Line| repeats.get(&furniture_key(&line.text)).is_some_and(|&count| count >= MIN_REPEATS);
    for (_, lines) in pages.iter_mut() {
        let found = candidates(lines);
        for index in found.into_iter().rev() {
            if is_furniture(&lines[index]) {
                lines.remove(index);
            }
        }
    }
}

fn furniture_key(text: &str) -> String {
    let without_digits: String = text.chars().filter(|c| !c.is_ascii_digit()).collect();
    without_digits.split_whitespace().collect::<Vec<_>>().join(" ").to_lowercase()
}

/// "12", "- 12 -", "Page 12", "p. 12", "12 of 40", "xiv".
fn is_page_number(text: &str) -> bool {
    let lower = text.to_lowercase();
    let mut rest = lower.trim_matches(|c: char| c == '-' || c == '–' || c.is_whitespace());
    for prefix in ["page ", "p. ", "p."] {
        if let Some(stripped) = rest.strip_prefix(prefix) {
            rest = stripped.trim_start();
            break;
        }
    }
    let number = match rest.split_once(" of ").or_else(|| rest.split_once('/')) {
        Some((number, total)) if is_arabic_number(total.trim()) => number.trim(),
        Some(_) => return false,
        None => rest,
    };
    // Front matter is numbered i, ii, … xxx; letters beyond those would match words.
    is_arabic_number(number) || (number.len() <= 6 && !number.is_empty() && number.chars().all(|c| "ivx".contains(c)))
}

fn is_arabic_number(text: &str) -> bool {
    (1..=4).contains(&text.len()) && text.bytes().all(|byte| byte.is_ascii_digit())
}

/// Sizes bucketed to half a point, for counting.
fn half_point_key(size: f64) -> u32 {
    (size * 2.0).round().clamp(0.0, f64::from(u32::MAX)) as u32
}

/// The size most characters are set in.
fn body_font_size(pages: &[(u32, Vec<Line>)]) -> f64 {
    let mut characters_by_size: HashMap<u32, usize> = HashMap::new();
    for line in pages.iter().flat_map(|(_, lines)| lines) {
        *characters_by_size.entry(half_point_key(line.size)).or_default() += line.text.chars().count();
    }
    characters_by_size
        .into_iter()
        .max_by_key(|&(size, count)| (count, std::cmp::Reverse(size)))
        .map_or(0.0, |(size, _)| f64::from(size) / 2.0)
}

fn is_heading_size(size: f64, body_size: f64) -> bool {
    body_size > 0.0 && size >= body_size * HEADING_SIZE_RATIO && size >= body_size + HEADING_MIN_EXTRA_POINTS
}

fn looks_like_heading(text: &str) -> bool {
    text.chars().count() <= HEADING_MAX_CHARS
        && text.split_whitespace().count() <= HEADING_MAX_WORDS
        && text.chars().filter(|c| c.is_alphabetic()).count() >= 2
        && !text.ends_with([',', ';'])
}

/// Level by size among the heading-sized lines: the largest is level 1.
fn heading_levels(pages: &[(u32, Vec<Line>)], body_size: f64) -> HashMap<u32, u8> {
    let mut sizes: Vec<u32> = pages
        .iter()
        .flat_map(|(_, lines)| lines)
        .filter(|line| is_heading_size(line.size, body_size) && looks_like_heading(&line.text))
        .map(|line| half_point_key(line.size))
        .collect();
    sizes.sort_unstable_by(|a, b| b.cmp(a));
    sizes.dedup();
    sizes
        .into_iter()
        .enumerate()
        .map(|(index, size)| (size, (index + 1).min(usize::from(DEEPEST_LEVEL)) as u8))
        .collect()
}

/// The typical baseline-to-baseline distance between lines of a paragraph, as a multiple of
/// the font size: the lower quartile over consecutive body lines of equal size, since
/// paragraph and section gaps only ever widen it.
fn usual_line_spacing(pages: &[(u32, Vec<Line>)]) -> f64 {
    let mut ratios: Vec<f64> = Vec::new();
    for (_, lines) in pages {
        for pair in lines.windows(2) {
            let (above, below) = (&pair[0], &pair[1]);
            if above.heading_level.is_some() || below.heading_level.is_some() || (above.size - below.size).abs() > 0.5 {
                continue;
            }
            let ratio = (below.top - above.top) / above.size;
            if ratio > 0.5 && ratio < 3.0 {
                ratios.push(ratio);
            }
        }
    }
    if ratios.len() < 3 {
        return DEFAULT_LINE_SPACING;
    }
    ratios.sort_unstable_by(f64::total_cmp);
    ratios[ratios.len() / 4]
}

fn page_blocks(page: u32, lines: &[Line], line_spacing: f64, numbered_fallback: bool, blocks: &mut Vec<Block>) {
    let body_lines = lines.iter().filter(|line| line.heading_level.is_none());
    let text_left = body_lines.clone().map(|line| line.left).fold(f64::INFINITY, f64::min);
    let text_right = body_lines.clone().map(|line| line.right).fold(f64::NEG_INFINITY, f64::max);
    let enough_lines_for_edges = body_lines.count() >= 3;

    let mut paragraph = Paragraph::default();
    let mut previous: Option<&Line> = None;
    for line in lines {
        if let Some(level) = line.heading_level {
            paragraph.flush(page, numbered_fallback, blocks);
            let continues_heading = previous.is_some_and(|above| {
                above.heading_level == Some(level) && line.top - above.top <= line.size * 2.0 && line.top > above.top
            });
            match blocks.last_mut() {
                Some(Block::Heading { text, .. }) if continues_heading => join_line(text, &line.text),
                _ => blocks.push(Block::Heading { level, text: line.text.clone() }),
            }
            previous = Some(line);
            continue;
        }
        if let Some(above) = previous.filter(|above| above.heading_level.is_none()) {
            let gap = line.top - above.top;
            let usual_gap = above.size.max(line.size) * line_spacing;
            let short_line = enough_lines_for_edges
                && above.right - text_left < (text_right - text_left) * SHORT_LINE_SHARE
                && ends_sentence(&above.text);
            let starts_new = gap <= above.size * 0.3
                || gap > usual_gap * PARAGRAPH_GAP_RATIO
                || (above.size - line.size).abs() > 0.75
                || short_line;
            if starts_new {
                paragraph.flush(page, numbered_fallback, blocks);
            }
        }
        paragraph.push(&line.text);
        previous = Some(line);
    }
    paragraph.flush(page, numbered_fallback, blocks);
}

fn ends_sentence(text: &str) -> bool {
    let text = text.trim_end_matches(['"', '\'', ')', ']', '’', '”']);
    text.ends_with(['.', '!', '?', ':'])
}

#[derive(Default)]
struct Paragraph {
    text: String,
    lines: usize,
}

impl Paragraph {
    fn push(&mut self, line: &str) {
        join_line(&mut self.text, line);
        self.lines += 1;
    }

    fn flush(&mut self, page: u32, numbered_fallback: bool, blocks: &mut Vec<Block>) {
        let text = std::mem::take(&mut self.text);
        let lines = std::mem::take(&mut self.lines);
        if text.is_empty() {
            return;
        }
        if numbered_fallback && lines == 1 {
            if let Some(level) = numbered_heading_level(&text) {
                blocks.push(Block::Heading { level, text });
                return;
            }
        }
        blocks.push(Block::Paragraph { text, page: Some(page) });
    }
}

/// Appends the next line of a paragraph or heading, rejoining a word that was hyphenated
/// across the break ("exam-" + "ple").
fn join_line(text: &mut String, line: &str) {
    if ends_with_hyphenated_word(text) && line.starts_with(char::is_lowercase) {
        text.pop();
    } else if !text.is_empty() {
        text.push(' ');
    }
    text.push_str(line);
}

fn ends_with_hyphenated_word(text: &str) -> bool {
    let mut tail = text.chars().rev();
    tail.next() == Some('-') && tail.next().is_some_and(char::is_alphabetic)
}

/// The level of a line that reads like a numbered section heading: "Chapter 3 Routing" or
/// "Part II" is 1, "2 Subnets" is 1, "2.1 Masks" is 2, "2.1.4 Wildcards" is 3. "1. Install
/// the tool" is not a heading but a list item, and a line ending in a full stop is a
/// sentence.
pub(crate) fn numbered_heading_level(text: &str) -> Option<u8> {
    if text.chars().count() > NUMBERED_HEADING_MAX_CHARS
        || text.split_whitespace().count() > NUMBERED_HEADING_MAX_WORDS
        || text.ends_with(['.', ',', ';'])
    {
        return None;
    }
    let mut words = text.split_whitespace();
    let first = words.next()?;
    if ["chapter", "part", "appendix"].contains(&first.to_lowercase().as_str()) {
        let label = words.next()?.trim_end_matches([':', '.']);
        let numeric = (1..=3).contains(&label.len()) && label.bytes().all(|b| b.is_ascii_digit());
        let roman = (1..=6).contains(&label.len()) && label.chars().all(|c| "IVXLCivxlc".contains(c));
        let letter = label.chars().count() == 1 && label.chars().all(char::is_alphabetic);
        let is_label = numeric || roman || letter;
        return is_label.then_some(1);
    }
    let title_starts_upper = words.next().is_some_and(|word| word.starts_with(char::is_uppercase));
    let numbering = first.strip_suffix('.').unwrap_or(first);
    let components: Vec<&str> = numbering.split('.').collect();
    let well_formed =
        components.iter().all(|part| (1..=2).contains(&part.len()) && part.bytes().all(|b| b.is_ascii_digit()));
    let single_with_dot = components.len() == 1 && first.ends_with('.');
    if !title_starts_upper || !well_formed || single_with_dot || components.len() > 4 {
        return None;
    }
    u8::try_from(components.len()).ok()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn line(text: &str, size: f64, top: f64, right: f64) -> TextLine {
        TextLine { text: text.to_owned(), font_size: size, top, left: 72.0, right }
    }

    fn render(blocks: &[Block]) -> Vec<String> {
        blocks
            .iter()
            .map(|block| match block {
                Block::Heading { level, text } => format!("h{level} {text}"),
                Block::Paragraph { text, page } => format!("p{} {text}", page.unwrap_or(0)),
            })
            .collect()
    }

    #[test]
    fn larger_lines_become_headings_ranked_by_size() {
        let page = PageText {
            number: 4,
            lines: vec![
                line("Chapter 2 Subnets", 20.0, 80.0, 300.0),
                line("2.1 Masks", 14.0, 110.0, 200.0),
                line("A mask selects the network part of an address and", 11.0, 130.0, 540.0),
                line("leaves the host part for the hosts.", 11.0, 143.75, 400.0),
                line("The second paragraph starts after a gap and is also", 11.0, 166.0, 540.0),
                line("long enough to wrap onto a second line of body text.", 11.0, 179.75, 530.0),
                line("2.2 Gate-", 14.0, 210.0, 200.0),
                line("ways", 14.0, 227.0, 150.0),
                line("Body under the second section, one line only here.", 11.0, 247.0, 520.0),
                line("17", 9.0, 760.0, 90.0),
            ],
        };
        assert_eq!(
            render(&blocks(&[page])),
            vec![
                "h1 Chapter 2 Subnets",
                "h2 2.1 Masks",
                "p4 A mask selects the network part of an address and leaves the host part for the hosts.",
                "p4 The second paragraph starts after a gap and is also long enough to wrap onto a second line of body text.",
                "h2 2.2 Gateways",
                "p4 Body under the second section, one line only here.",
            ]
        );
    }

    #[test]
    fn hyphenated_line_breaks_are_joined_and_ligatures_expanded() {
        let page = PageText {
            number: 1,
            lines: vec![
                line("The de\u{FB01}nition of an exam-", 11.0, 100.0, 540.0),
                line("ple is well-", 11.0, 113.0, 540.0),
                line("Known to all.", 11.0, 126.0, 540.0),
            ],
        };
        assert_eq!(render(&blocks(&[page])), vec!["p1 The definition of an example is well- Known to all."]);
    }

    #[test]
    fn numbered_lines_are_headings_only_without_larger_type() {
        let page = PageText {
            number: 2,
            lines: vec![
                line("Chapter 3 Routing", 11.0, 80.0, 200.0),
                line("3.1 Static Routes", 11.0, 110.0, 200.0),
                line("Static routes are configured by hand and never change on", 11.0, 140.0, 540.0),
                line("their own, unlike dynamic routes learned from neighbours.", 11.0, 153.75, 500.0),
                line("They suit small networks with a single way out.", 11.0, 167.5, 450.0),
                line("1. Install the tool", 11.0, 200.0, 200.0),
            ],
        };
        assert_eq!(
            render(&blocks(&[page])),
            vec![
                "h1 Chapter 3 Routing",
                "h2 3.1 Static Routes",
                "p2 Static routes are configured by hand and never change on their own, unlike dynamic routes learned from neighbours. They suit small networks with a single way out.",
                "p2 1. Install the tool",
            ]
        );
    }

    #[test]
    fn numbered_heading_recognition() {
        assert_eq!(numbered_heading_level("2.1 Masks"), Some(2));
        assert_eq!(numbered_heading_level("2.1. Masks and Prefixes"), Some(2));
        assert_eq!(numbered_heading_level("4 Results"), Some(1));
        assert_eq!(numbered_heading_level("CHAPTER IV"), Some(1));
        assert_eq!(numbered_heading_level("Appendix B: Tables"), Some(1));
        assert_eq!(numbered_heading_level("1. Install the tool"), None);
        assert_eq!(numbered_heading_level("2.1 masks are small"), None);
        assert_eq!(numbered_heading_level("3 Packets arrive in order."), None);
        assert_eq!(numbered_heading_level("2024 Annual Report"), None);
        assert_eq!(numbered_heading_level("Chapter and verse"), None);
    }

    #[test]
    fn running_headers_and_footers_are_dropped() {
        let page = |number: u32, body: &str| PageText {
            number,
            lines: vec![
                line(&format!("Chapter 2: Routing {}", number + 10), 9.0, 40.0, 300.0),
                line(body, 11.0, 100.0, 540.0),
                line("Company Confidential", 9.0, 750.0, 200.0),
            ],
        };
        let bodies = [
            "The first page explains what a route is and why it matters.",
            "The second page explains how routers learn routes from neighbours.",
            "The third page explains static routes and when they are enough.",
            "The fourth page explains default routes and the gateway of last resort.",
        ];
        let pages: Vec<PageText> = (1..).zip(bodies).map(|(number, body)| page(number, body)).collect();
        let expected: Vec<String> = (1..).zip(bodies).map(|(number, body)| format!("p{number} {body}")).collect();
        assert_eq!(render(&blocks(&pages)), expected);
    }

    #[test]
    fn dot_leaders_are_collapsed() {
        assert_eq!(collapse_dot_leaders("2.1 Masks . . . . . . . . 12"), "2.1 Masks 12");
        assert_eq!(collapse_dot_leaders("Introduction..........3"), "Introduction 3");
        assert_eq!(collapse_dot_leaders("Wait... what. Then. . ."), "Wait... what. Then. . .");
        assert_eq!(collapse_dot_leaders("IP 10.0.0.1 is private"), "IP 10.0.0.1 is private");
    }

    #[test]
    fn page_numbers_are_recognised() {
        for number in ["12", "- 12 -", "Page 3", "page 3 of 40", "p. 7", "xiv", "3 / 9"] {
            assert!(is_page_number(number), "{number}");
        }
        for text in ["12 apples", "Page Design", "2.1", "civil"] {
            assert!(!is_page_number(text), "{text}");
        }
    }
}
