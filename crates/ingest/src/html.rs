//! HTML through html5ever (via scraper), walked without recursion so deeply nested markup
//! cannot exhaust the stack.

use ego_tree::iter::Edge;
use scraper::{ElementRef, Html, Node};

use crate::builder::BlockBuilder;
use crate::chunk::Block;
use crate::clean;

pub(crate) struct HtmlDocument {
    pub(crate) title: Option<String>,
    pub(crate) blocks: Vec<Block>,
}

/// Elements whose content is not part of the document's text: code, styling, site
/// navigation and embedded widgets.
const SKIPPED: &[&str] =
    &["head", "script", "style", "nav", "noscript", "template", "svg", "iframe", "object", "canvas", "select"];

/// Elements that end the running paragraph. Anything not listed here or handled specially
/// is inline.
const BLOCK_LEVEL: &[&str] = &[
    "address",
    "article",
    "aside",
    "blockquote",
    "body",
    "br",
    "caption",
    "center",
    "dd",
    "details",
    "dialog",
    "div",
    "dl",
    "dt",
    "fieldset",
    "figcaption",
    "figure",
    "footer",
    "form",
    "header",
    "hgroup",
    "hr",
    "html",
    "legend",
    "main",
    "p",
    "section",
    "summary",
];

pub(crate) fn read(html: &str) -> HtmlDocument {
    let document = Html::parse_document(html);
    let title = head_title(&document);
    let mut reader = Reader::default();
    for edge in document.tree.root().traverse() {
        match edge {
            Edge::Open(node) => reader.open(node.value()),
            Edge::Close(node) => reader.close(node.value()),
        }
    }
    HtmlDocument { title, blocks: reader.builder.finish() }
}

fn head_title(document: &Html) -> Option<String> {
    let root = document.root_element();
    let head = root.children().filter_map(ElementRef::wrap).find(|element| element.value().name() == "head")?;
    let title = head.children().filter_map(ElementRef::wrap).find(|element| element.value().name() == "title")?;
    let text = clean::inline(&title.text().collect::<String>());
    (!text.is_empty()).then_some(text)
}

#[derive(Default)]
struct Reader {
    builder: BlockBuilder,
    /// How many skipped elements enclose the current node.
    skipping: usize,
    /// How many tables enclose the current node; only the outermost one's rows and cells are
    /// structure, a table nested in a cell reads as text of that cell.
    tables: usize,
}

impl Reader {
    fn open(&mut self, node: &Node) {
        match node {
            Node::Element(element) => {
                let name = element.name();
                if self.skipping > 0 || SKIPPED.contains(&name) {
                    self.skipping += 1;
                    return;
                }
                let builder = &mut self.builder;
                match name {
                    "h1" | "h2" | "h3" | "h4" | "h5" | "h6" => builder.start_heading(),
                    "pre" | "listing" | "xmp" => builder.start_code(),
                    "ul" | "menu" => builder.start_list(None),
                    "ol" => {
                        let start = element.attr("start").and_then(|start| start.trim().parse().ok()).unwrap_or(1);
                        builder.start_list(Some(start));
                    }
                    "li" => builder.start_item(),
                    "table" => {
                        self.tables += 1;
                        if self.tables == 1 {
                            builder.start_table();
                        } else {
                            builder.text(" ");
                        }
                    }
                    "tr" if self.tables == 1 => builder.start_row(),
                    "td" | "th" if self.tables == 1 => builder.start_cell(),
                    "tr" | "td" | "th" => builder.text(" "),
                    name if BLOCK_LEVEL.contains(&name) => builder.boundary(),
                    _ => {}
                }
            }
            Node::Text(text) if self.skipping == 0 => self.builder.text(text),
            _ => {}
        }
    }

    fn close(&mut self, node: &Node) {
        let Node::Element(element) = node else {
            return;
        };
        if self.skipping > 0 {
            self.skipping -= 1;
            return;
        }
        let builder = &mut self.builder;
        match element.name() {
            "h1" => builder.end_heading(1),
            "h2" => builder.end_heading(2),
            "h3" => builder.end_heading(3),
            "h4" => builder.end_heading(4),
            "h5" => builder.end_heading(5),
            "h6" => builder.end_heading(6),
            "pre" | "listing" | "xmp" => builder.end_code(),
            "ul" | "menu" | "ol" => builder.end_list(),
            "li" => builder.end_item(),
            "table" => {
                if self.tables == 1 {
                    builder.end_table();
                } else {
                    builder.text(" ");
                }
                self.tables = self.tables.saturating_sub(1);
            }
            "tr" if self.tables == 1 => builder.end_row(),
            "td" | "th" if self.tables == 1 => builder.end_cell(),
            "tr" | "td" | "th" => builder.text(" "),
            name if BLOCK_LEVEL.contains(&name) => builder.boundary(),
            _ => {}
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::chunk::render;

    #[test]
    fn title_comes_from_head_and_chrome_is_dropped() {
        let html = r#"<!doctype html><html><head><title> Subnetting
            Guide </title><style>p { color: red }</style><script>var x = "<p>nope</p>";</script></head>
            <body><nav><a href="/">Home</a> | <a href="/about">About</a></nav>
            <h1>Subnetting</h1><p>A <b>subnet</b> is&nbsp;a slice of an address&nbsp;space.</p>
            <noscript>Enable JavaScript</noscript><svg><title>icon</title><text>svg text</text></svg>
            <p>Second<br>line.</p><!-- a comment --></body></html>"#;
        let document = read(html);
        assert_eq!(document.title.as_deref(), Some("Subnetting Guide"));
        assert_eq!(
            render(&document.blocks),
            vec!["h1 Subnetting", "A subnet is a slice of an address space.", "Second", "line."]
        );
    }

    #[test]
    fn nested_headings_lists_and_preformatted_text() {
        let html = "<body><h1>Book</h1><section><h2>Masks</h2><div>Intro <em>text</em></div>\
            <ol start=\"3\"><li>three</li><li>four<ul><li>nested</li></ul></li></ol>\
            <pre><code>ip addr\n  show</code></pre><h3>Wildcards</h3>tail text</section></body>";
        assert_eq!(
            render(&read(html).blocks),
            vec![
                "h1 Book",
                "h2 Masks",
                "Intro text",
                "3. three\n4. four\n  - nested",
                "ip addr\n  show",
                "h3 Wildcards",
                "tail text"
            ]
        );
    }

    #[test]
    fn tables_are_flattened_row_by_row() {
        let html = "<table><caption>Prefixes</caption><thead><tr><th>Prefix</th><th>Hosts</th></tr></thead>\
            <tbody><tr><td>/24</td><td><p>254</p><p>usable</p></td></tr>\
            <tr><td>/30</td><td><table><tr><td>2</td><td>hosts</td></tr></table></td></tr></tbody></table><p>After.</p>";
        assert_eq!(
            render(&read(html).blocks),
            vec!["Prefixes\nPrefix | Hosts\n/24 | 254 usable\n/30 | 2 hosts", "After."]
        );
    }

    #[test]
    fn entities_are_decoded_and_a_missing_title_is_none() {
        let document = read("<p>5 &lt; 7 &amp;&amp; caf&eacute; &#x263A;</p>");
        assert_eq!(document.title, None);
        assert_eq!(render(&document.blocks), vec!["5 < 7 && café ☺"]);
    }
}
