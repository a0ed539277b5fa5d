//! Collects the characters pdf-extract reports into positioned lines, keeping the font size
//! of each so headings can be told from body text.

use std::collections::HashMap;

use pdf_extract::{MediaBox, OutputDev, OutputError, Transform};

/// One line of text as drawn on a page, in reading (content-stream) order.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct TextLine {
    pub(crate) text: String,
    /// The size most of the line's characters are drawn at, in points.
    pub(crate) font_size: f64,
    /// Baseline distance from the top of the page, in points.
    pub(crate) top: f64,
    pub(crate) left: f64,
    pub(crate) right: f64,
}

#[derive(Debug, Clone, PartialEq)]
pub(crate) struct PageText {
    /// 1-based.
    pub(crate) number: u32,
    pub(crate) lines: Vec<TextLine>,
}

/// Sizes are compared at a tenth of a point: finer differences are rounding noise.
fn size_key(size: f64) -> u32 {
    (size * 10.0).round().clamp(0.0, f64::from(u32::MAX)) as u32
}

struct LineInProgress {
    text: String,
    top: f64,
    left: f64,
    right: f64,
    /// Visible characters per size key.
    sizes: HashMap<u32, usize>,
}

impl LineInProgress {
    fn finish(self) -> Option<TextLine> {
        if self.text.trim().is_empty() {
            return None;
        }
        let dominant = self.sizes.iter().max_by_key(|(size, count)| (**count, **size)).map(|(size, _)| *size)?;
        Some(TextLine {
            text: self.text,
            font_size: f64::from(dominant) / 10.0,
            top: self.top,
            left: self.left,
            right: self.right,
        })
    }
}

/// An [`OutputDev`] that records lines page by page.
#[derive(Default)]
pub(crate) struct LineCollector {
    page_height: f64,
    page_number: u32,
    line: Option<LineInProgress>,
    lines: Vec<TextLine>,
    pages: Vec<PageText>,
}

impl LineCollector {
    /// How many pages were drawn to the end.
    pub(crate) fn completed_pages(&self) -> usize {
        self.pages.len()
    }

    /// Forgets the page being drawn, after its extraction failed half-way.
    pub(crate) fn abandon_page(&mut self) {
        self.line = None;
        self.lines.clear();
    }

    pub(crate) fn into_pages(self) -> Vec<PageText> {
        self.pages
    }

    fn finish_line(&mut self) {
        if let Some(line) = self.line.take().and_then(LineInProgress::finish) {
            self.lines.push(line);
        }
    }
}

impl OutputDev for LineCollector {
    fn begin_page(
        &mut self,
        page_num: u32,
        media_box: &MediaBox,
        _: Option<(f64, f64, f64, f64)>,
    ) -> Result<(), OutputError> {
        self.abandon_page();
        self.page_number = page_num;
        self.page_height = media_box.ury - media_box.lly;
        Ok(())
    }

    fn end_page(&mut self) -> Result<(), OutputError> {
        self.finish_line();
        self.pages.push(PageText { number: self.page_number, lines: std::mem::take(&mut self.lines) });
        Ok(())
    }

    fn output_character(
        &mut self,
        trm: &Transform,
        width: f64,
        _spacing: f64,
        font_size: f64,
        char: &str,
    ) -> Result<(), OutputError> {
        // The rendering matrix scales the nominal font size; the drawn size is the side of the
        // square with the same area as the scaled glyph box.
        let scaled_x = font_size * (trm.m11 + trm.m21);
        let scaled_y = font_size * (trm.m12 + trm.m22);
        let mut size = (scaled_x * scaled_y).abs().sqrt();
        if !size.is_finite() || size <= 0.0 {
            size = font_size.abs();
        }
        if !size.is_finite() || size <= 0.0 {
            size = 1.0;
        }
        let x = trm.m31;
        let top = self.page_height - trm.m32;
        if !x.is_finite() || !top.is_finite() {
            return Ok(());
        }
        let advance = if width.is_finite() { width * size } else { 0.0 };

        let starts_new_line = self.line.as_ref().is_none_or(|line| (top - line.top).abs() > size * 0.5);
        if starts_new_line {
            self.finish_line();
            self.line = Some(LineInProgress { text: String::new(), top, left: x, right: x, sizes: HashMap::new() });
        }
        let Some(line) = self.line.as_mut() else {
            return Ok(());
        };
        // Many PDFs position words instead of drawing spaces; a visible gap is a space.
        let gap = x - line.right;
        if !line.text.is_empty() && gap > size * 0.15 && !line.text.ends_with(' ') && char != " " {
            line.text.push(' ');
        }
        line.text.push_str(char);
        line.left = line.left.min(x);
        line.right = line.right.max(x + advance);
        let visible = char.chars().filter(|c| !c.is_whitespace()).count();
        if visible > 0 {
            *line.sizes.entry(size_key(size)).or_default() += visible;
        }
        Ok(())
    }

    fn begin_word(&mut self) -> Result<(), OutputError> {
        Ok(())
    }

    fn end_word(&mut self) -> Result<(), OutputError> {
        Ok(())
    }

    fn end_line(&mut self) -> Result<(), OutputError> {
        Ok(())
    }
}
