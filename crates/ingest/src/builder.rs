//! Turns the structure events of a markup document (Markdown or HTML) into [`Block`]s, so
//! both readers only translate their own syntax and share how lists, tables and code end up
//! as text.

use crate::chunk::Block;
use crate::clean;

#[derive(Default)]
pub(crate) struct BlockBuilder {
    blocks: Vec<Block>,
    /// Running text of the paragraph, heading, item or cell being read.
    inline: String,
    code: Option<String>,
    /// One entry per open list: the next number of an ordered list, `None` for bullets.
    lists: Vec<Option<u64>>,
    item_marker: Option<String>,
    /// Lists and tables become one paragraph each, one line per item or row, so the chunker
    /// keeps them together and a bullet is never separated from its list.
    group_lines: Vec<String>,
    group_depth: usize,
    table_cells: Vec<String>,
    in_cell: bool,
}

impl BlockBuilder {
    pub(crate) fn text(&mut self, text: &str) {
        match &mut self.code {
            Some(code) => code.push_str(text),
            None => self.inline.push_str(text),
        }
    }

    /// The end of a paragraph-like element: what was read so far becomes its own paragraph
    /// (or list line). Inside a table cell it is only a space, since a cell is one line.
    pub(crate) fn boundary(&mut self) {
        if let Some(code) = &mut self.code {
            code.push('\n');
        } else if self.in_cell {
            self.inline.push(' ');
        } else {
            self.flush_inline();
        }
    }

    pub(crate) fn start_heading(&mut self) {
        self.boundary();
    }

    pub(crate) fn end_heading(&mut self, level: u8) {
        if self.in_cell {
            self.inline.push(' ');
            return;
        }
        let text = clean::inline(&std::mem::take(&mut self.inline));
        if self.group_depth > 0 {
            self.push_group_line(text);
        } else if !text.is_empty() {
            self.blocks.push(Block::Heading { level, text });
        }
    }

    pub(crate) fn start_code(&mut self) {
        self.boundary();
        self.code = Some(String::new());
    }

    pub(crate) fn end_code(&mut self) {
        let code = clean::preformatted(&self.code.take().unwrap_or_default());
        if code.is_empty() {
            return;
        }
        if self.in_cell {
            self.inline.push(' ');
            self.inline.push_str(&code);
            self.inline.push(' ');
        } else if self.group_depth > 0 {
            let indent = "  ".repeat(self.lists.len());
            for line in code.lines() {
                self.group_lines.push(format!("{indent}{line}"));
            }
        } else {
            self.blocks.push(Block::Paragraph { text: code, page: None });
        }
    }

    pub(crate) fn start_list(&mut self, first_number: Option<u64>) {
        self.boundary();
        self.lists.push(first_number);
        self.group_depth += 1;
    }

    pub(crate) fn end_list(&mut self) {
        self.boundary();
        self.lists.pop();
        self.close_group();
    }

    pub(crate) fn start_item(&mut self) {
        self.boundary();
        let marker = match self.lists.last_mut() {
            Some(Some(number)) => {
                let marker = format!("{number}.");
                *number += 1;
                marker
            }
            _ => "-".to_owned(),
        };
        let indent = "  ".repeat(self.lists.len().saturating_sub(1));
        self.item_marker = Some(format!("{indent}{marker} "));
    }

    pub(crate) fn end_item(&mut self) {
        self.boundary();
        self.item_marker = None;
    }

    pub(crate) fn start_table(&mut self) {
        self.boundary();
        self.group_depth += 1;
    }

    pub(crate) fn end_table(&mut self) {
        self.close_group();
    }

    pub(crate) fn start_row(&mut self) {
        self.table_cells.clear();
    }

    pub(crate) fn start_cell(&mut self) {
        self.inline.clear();
        self.in_cell = true;
    }

    pub(crate) fn end_cell(&mut self) {
        let cell = clean::inline(&std::mem::take(&mut self.inline));
        self.table_cells.push(cell);
        self.in_cell = false;
    }

    pub(crate) fn end_row(&mut self) {
        if self.table_cells.iter().any(|cell| !cell.is_empty()) {
            let row = self.table_cells.join(" | ");
            self.group_lines.push(row);
        }
        self.table_cells.clear();
    }

    pub(crate) fn finish(mut self) -> Vec<Block> {
        self.in_cell = false;
        self.flush_inline();
        if self.group_depth > 0 {
            self.group_depth = 1;
            self.close_group();
        }
        self.blocks
    }

    fn flush_inline(&mut self) {
        let text = clean::inline(&std::mem::take(&mut self.inline));
        if text.is_empty() {
            return;
        }
        if self.group_depth > 0 {
            self.push_group_line(text);
        } else {
            self.blocks.push(Block::Paragraph { text, page: None });
        }
    }

    fn push_group_line(&mut self, text: String) {
        if text.is_empty() {
            return;
        }
        // A second paragraph of an item is indented under the item's text.
        let prefix = self.item_marker.take().unwrap_or_else(|| "  ".repeat(self.lists.len()));
        self.group_lines.push(format!("{prefix}{text}"));
    }

    fn close_group(&mut self) {
        self.group_depth = self.group_depth.saturating_sub(1);
        if self.group_depth > 0 {
            return;
        }
        let text = std::mem::take(&mut self.group_lines).join("\n");
        if !text.trim().is_empty() {
            self.blocks.push(Block::Paragraph { text, page: None });
        }
    }
}
