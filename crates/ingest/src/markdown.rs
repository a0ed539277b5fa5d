//! Markdown (CommonMark with the common GitHub extensions) through pulldown-cmark's event
//! stream.

use pulldown_cmark::{Event, Options, Parser, Tag, TagEnd};

use crate::builder::BlockBuilder;
use crate::chunk::Block;

pub(crate) fn blocks(markdown: &str) -> Vec<Block> {
    let options = Options::ENABLE_TABLES
        | Options::ENABLE_STRIKETHROUGH
        | Options::ENABLE_TASKLISTS
        | Options::ENABLE_FOOTNOTES
        | Options::ENABLE_HEADING_ATTRIBUTES
        | Options::ENABLE_YAML_STYLE_METADATA_BLOCKS
        | Options::ENABLE_PLUSES_DELIMITED_METADATA_BLOCKS;
    let mut reader = Reader::default();
    for event in Parser::new_ext(markdown, options) {
        reader.event(event);
    }
    reader.builder.finish()
}

#[derive(Default)]
struct Reader {
    builder: BlockBuilder,
    /// Front matter is configuration, not prose.
    in_metadata: bool,
}

impl Reader {
    fn event(&mut self, event: Event<'_>) {
        let builder = &mut self.builder;
        match event {
            Event::Start(tag) => self.start(tag),
            Event::End(tag) => self.end(tag),
            Event::Text(_) if self.in_metadata => {}
            Event::Text(text) | Event::Code(text) | Event::InlineMath(text) | Event::DisplayMath(text) => {
                builder.text(&text)
            }
            Event::SoftBreak | Event::HardBreak => builder.text(" "),
            Event::TaskListMarker(done) => builder.text(if done { "[x] " } else { "[ ] " }),
            Event::Rule => builder.boundary(),
            // Raw HTML in Markdown is mostly comments and layout wrappers.
            Event::Html(_) | Event::InlineHtml(_) | Event::FootnoteReference(_) => {}
        }
    }

    fn start(&mut self, tag: Tag<'_>) {
        let builder = &mut self.builder;
        match tag {
            Tag::Heading { .. } => builder.start_heading(),
            Tag::CodeBlock(_) => builder.start_code(),
            Tag::List(first_number) => builder.start_list(first_number),
            Tag::Item => builder.start_item(),
            Tag::Table(_) => builder.start_table(),
            Tag::TableHead | Tag::TableRow => builder.start_row(),
            Tag::TableCell => builder.start_cell(),
            Tag::MetadataBlock(_) => self.in_metadata = true,
            Tag::Paragraph
            | Tag::BlockQuote(_)
            | Tag::HtmlBlock
            | Tag::FootnoteDefinition(_)
            | Tag::DefinitionList
            | Tag::DefinitionListTitle
            | Tag::DefinitionListDefinition => builder.boundary(),
            Tag::Emphasis
            | Tag::Strong
            | Tag::Strikethrough
            | Tag::Superscript
            | Tag::Subscript
            | Tag::Link { .. }
            | Tag::Image { .. } => {}
        }
    }

    fn end(&mut self, tag: TagEnd) {
        let builder = &mut self.builder;
        match tag {
            TagEnd::Heading(level) => builder.end_heading(level as u8),
            TagEnd::CodeBlock => builder.end_code(),
            TagEnd::List(_) => builder.end_list(),
            TagEnd::Item => builder.end_item(),
            TagEnd::Table => builder.end_table(),
            TagEnd::TableHead | TagEnd::TableRow => builder.end_row(),
            TagEnd::TableCell => builder.end_cell(),
            TagEnd::MetadataBlock(_) => self.in_metadata = false,
            TagEnd::Paragraph
            | TagEnd::BlockQuote(_)
            | TagEnd::HtmlBlock
            | TagEnd::FootnoteDefinition
            | TagEnd::DefinitionList
            | TagEnd::DefinitionListTitle
            | TagEnd::DefinitionListDefinition => builder.boundary(),
            TagEnd::Emphasis
            | TagEnd::Strong
            | TagEnd::Strikethrough
            | TagEnd::Superscript
            | TagEnd::Subscript
            | TagEnd::Link
            | TagEnd::Image => {}
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::chunk::render;

    #[test]
    fn atx_and_setext_headings_with_their_levels() {
        let markdown = "Course Notes\n============\n\nIntro text.\n\nSubnets\n-------\n\n### 2.1 Masks {#masks}\n\nBody *with* `code`.\n";
        assert_eq!(
            render(&blocks(markdown)),
            vec!["h1 Course Notes", "Intro text.", "h2 Subnets", "h3 2.1 Masks", "Body with code."]
        );
    }

    #[test]
    fn code_blocks_keep_their_lines() {
        let markdown =
            "Run:\n\n```rust\nfn main() {\n\tprintln!(\"hi\");\n}\n```\n\n    indented code\n    second line\n";
        assert_eq!(
            render(&blocks(markdown)),
            vec!["Run:", "fn main() {\n    println!(\"hi\");\n}", "indented code\nsecond line"]
        );
    }

    #[test]
    fn lists_become_one_paragraph_with_one_line_per_item() {
        let markdown = "Steps:\n\n1. Plan\n2. Build\n   - unit tests\n   - integration tests\n3. Ship\n\n- [x] done\n- [ ] open\n\nBetween.\n\n- loose item\n\n  with a second paragraph\n";
        assert_eq!(
            render(&blocks(markdown)),
            vec![
                "Steps:",
                "1. Plan\n2. Build\n  - unit tests\n  - integration tests\n3. Ship",
                "- [x] done\n- [ ] open",
                "Between.",
                "- loose item\n  with a second paragraph",
            ]
        );
    }

    #[test]
    fn tables_are_flattened_row_by_row() {
        let markdown = "| Prefix | Hosts |\n|---|---|\n| /24 | 254 |\n| /30 | 2 |\n";
        assert_eq!(render(&blocks(markdown)), vec!["Prefix | Hosts\n/24 | 254\n/30 | 2"]);
    }

    #[test]
    fn front_matter_html_and_link_targets_are_dropped() {
        let markdown = "---\ntitle: secret config\n---\n\n<!-- draft note -->\n\nSee [the RFC](https://example.com/rfc) and ![a diagram](d.png).\n\n> Quoted wisdom.\n\n---\n\nAfter the rule.";
        assert_eq!(render(&blocks(markdown)), vec!["See the RFC and a diagram.", "Quoted wisdom.", "After the rule."]);
    }
}
