//! Stem templates such as `What is {op1} + {op2}?`, parsed once when a blueprint is loaded
//! into text runs and numbered slots, so that rendering an item is a few appends.
//! `{{` and `}}` stand for literal braces.

use std::fmt;

#[derive(Debug, Clone, PartialEq)]
pub(crate) struct StemTemplate {
    segments: Vec<Segment>,
}

#[derive(Debug, Clone, PartialEq)]
enum Segment {
    Text(String),
    /// An index into the generator's placeholder list.
    Slot(usize),
}

#[derive(Debug, Clone, PartialEq)]
pub(crate) enum TemplateError {
    Unclosed { at: usize },
    StrayClosingBrace { at: usize },
    EmptyPlaceholder { at: usize },
    UnknownPlaceholder { name: String },
    Empty,
}

impl fmt::Display for TemplateError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            TemplateError::Unclosed { at } => {
                write!(f, "the '{{' at character {at} is never closed (write '{{{{' for a literal brace)")
            }
            TemplateError::StrayClosingBrace { at } => {
                write!(f, "the '}}' at character {at} closes nothing (write '}}}}' for a literal brace)")
            }
            TemplateError::EmptyPlaceholder { at } => write!(f, "the placeholder at character {at} has no name"),
            TemplateError::UnknownPlaceholder { name } => write!(f, "uses {{{name}}}"),
            TemplateError::Empty => f.write_str("is empty"),
        }
    }
}

impl StemTemplate {
    pub fn parse(text: &str, placeholders: &[&str]) -> Result<StemTemplate, TemplateError> {
        if text.trim().is_empty() {
            return Err(TemplateError::Empty);
        }
        let mut segments = Vec::new();
        let mut literal = String::new();
        let mut chars = text.char_indices().peekable();
        while let Some((at, c)) = chars.next() {
            match c {
                '{' if chars.peek().map(|&(_, n)| n) == Some('{') => {
                    chars.next();
                    literal.push('{');
                }
                '}' if chars.peek().map(|&(_, n)| n) == Some('}') => {
                    chars.next();
                    literal.push('}');
                }
                '}' => return Err(TemplateError::StrayClosingBrace { at: char_position(text, at) }),
                '{' => {
                    let start = at + 1;
                    let end = loop {
                        match chars.next() {
                            Some((i, '}')) => break i,
                            Some((_, '{')) | None => {
                                return Err(TemplateError::Unclosed { at: char_position(text, at) })
                            }
                            Some(_) => {}
                        }
                    };
                    let name = text[start..end].trim();
                    if name.is_empty() {
                        return Err(TemplateError::EmptyPlaceholder { at: char_position(text, at) });
                    }
                    let slot = placeholders
                        .iter()
                        .position(|p| *p == name)
                        .ok_or_else(|| TemplateError::UnknownPlaceholder { name: name.to_string() })?;
                    if !literal.is_empty() {
                        segments.push(Segment::Text(std::mem::take(&mut literal)));
                    }
                    segments.push(Segment::Slot(slot));
                }
                c => literal.push(c),
            }
        }
        if !literal.is_empty() {
            segments.push(Segment::Text(literal));
        }
        Ok(StemTemplate { segments })
    }

    /// Appends the stem to `out`, asking `fill` to write each slot's value.
    pub fn render(&self, out: &mut String, mut fill: impl FnMut(usize, &mut String)) {
        for segment in &self.segments {
            match segment {
                Segment::Text(t) => out.push_str(t),
                Segment::Slot(i) => fill(*i, out),
            }
        }
    }

    /// A rough size of a rendered stem, to allocate once.
    pub fn capacity_hint(&self) -> usize {
        self.segments.iter().map(|s| if let Segment::Text(t) = s { t.len() } else { 16 }).sum()
    }
}

fn char_position(text: &str, byte: usize) -> usize {
    text[..byte].chars().count() + 1
}

#[cfg(test)]
mod tests {
    use super::*;

    const NAMES: &[&str] = &["op1", "op2"];

    fn render(t: &StemTemplate) -> String {
        let mut out = String::new();
        t.render(&mut out, |i, out| out.push_str(["47", "38"][i]));
        out
    }

    #[test]
    fn fills_placeholders_and_keeps_escaped_braces() {
        let t = StemTemplate::parse("What is {op1} + { op2 }? {{not a slot}}", NAMES).unwrap();
        assert_eq!(render(&t), "What is 47 + 38? {not a slot}");
        assert_eq!(render(&StemTemplate::parse("{op2}{op1}", NAMES).unwrap()), "3847");
    }

    #[test]
    fn malformed_templates_are_refused_with_their_position() {
        let cases = [
            ("What is {op1 + 2?", "'{' at character 9 is never closed"),
            ("What is op1} ?", "'}' at character 12 closes nothing"),
            ("What is {}?", "at character 9 has no name"),
            ("What is {op3}?", "uses {op3}"),
            ("   ", "is empty"),
            ("What {is {op1}}", "never closed"),
        ];
        for (text, expected) in cases {
            let err = StemTemplate::parse(text, NAMES).unwrap_err().to_string();
            assert!(err.contains(expected), "{text}: {err}");
        }
    }
}
