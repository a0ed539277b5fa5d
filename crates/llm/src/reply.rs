//! Getting the JSON out of what a model wrote: models wrap it in code fences or a sentence
//! even when asked not to.

use crate::LlmError;
use serde_json::Value;

/// The JSON value in a model's reply: the whole text, else the inside of a code fence, else
/// the span from the first `{` or `[` to the last matching bracket.
pub fn parse_json_reply(text: &str) -> Result<Value, LlmError> {
    let text = text.trim();
    if text.is_empty() {
        return Err(LlmError::Malformed("the reply is empty; a JSON value was asked for".into()));
    }
    // Small models write line breaks and tabs inside strings as they are; JSON wants them
    // escaped. Nothing else about the reply is changed.
    let escaped = escape_control_characters_in_strings(text);
    let text = escaped.as_str();
    if let Ok(value) = serde_json::from_str(text) {
        return Ok(value);
    }
    if let Some(inside) = fenced(text) {
        if let Ok(value) = serde_json::from_str(inside) {
            return Ok(value);
        }
    }
    for (open, close) in [('{', '}'), ('[', ']')] {
        if let (Some(start), Some(end)) = (text.find(open), text.rfind(close)) {
            if start < end {
                if let Ok(value) = serde_json::from_str(&text[start..=end]) {
                    return Ok(value);
                }
            }
        }
    }
    let error = serde_json::from_str::<Value>(text).expect_err("not JSON, as checked above");
    Err(LlmError::Malformed(format!("the reply is not valid JSON ({error}): {}", truncate(text, 160))))
}

/// `text` with every control character inside a JSON string written as its escape.
fn escape_control_characters_in_strings(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let (mut in_string, mut escaped) = (false, false);
    for c in text.chars() {
        if in_string && !escaped && c.is_control() {
            match c {
                '\n' => out.push_str("\\n"),
                '\r' => out.push_str("\\r"),
                '\t' => out.push_str("\\t"),
                other => out.push_str(&format!("\\u{:04x}", u32::from(other))),
            }
            continue;
        }
        out.push(c);
        if in_string {
            if escaped {
                escaped = false;
            } else if c == '\\' {
                escaped = true;
            } else if c == '"' {
                in_string = false;
            }
        } else if c == '"' {
            in_string = true;
        }
    }
    out
}

fn fenced(text: &str) -> Option<&str> {
    let start = text.find("```")?;
    let after = &text[start + 3..];
    // Skip a language tag such as `json`.
    let body_start = after.find('\n').map_or(0, |i| i + 1);
    let body = &after[body_start..];
    body.find("```").map(|end| body[..end].trim())
}

/// At most `max` characters of `text`, marked when cut.
pub(crate) fn truncate(text: &str, max: usize) -> String {
    match text.char_indices().nth(max) {
        Some((end, _)) => format!("{}…", &text[..end]),
        None => text.to_string(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn plain_fenced_and_embedded_json_are_all_found() {
        assert_eq!(parse_json_reply(r#"{"a": 1}"#).unwrap(), json!({"a": 1}));
        assert_eq!(parse_json_reply("```json\n{\"a\": 2}\n```").unwrap(), json!({"a": 2}));
        assert_eq!(parse_json_reply("Here it is: {\"a\": 3}. Hope that helps!").unwrap(), json!({"a": 3}));
        assert_eq!(parse_json_reply("[1, 2]").unwrap(), json!([1, 2]));
    }

    #[test]
    fn line_breaks_written_inside_strings_are_read_as_escapes() {
        let raw = "{\"tutor_text\": \"First line\nsecond\tline\", \"n\": 1}";
        assert_eq!(parse_json_reply(raw).unwrap(), json!({ "tutor_text": "First line\nsecond\tline", "n": 1 }));
        // Escapes already there, and quotes inside strings, are left alone.
        let fine = r#"{"a": "say \"hi\"\n", "b": "x\\"}"#;
        assert_eq!(parse_json_reply(fine).unwrap(), json!({ "a": "say \"hi\"\n", "b": "x\\" }));
        // Between values, a line break is whitespace, as it always was.
        assert_eq!(parse_json_reply("{\n\"a\":\n1\n}").unwrap(), json!({ "a": 1 }));
    }

    #[test]
    fn text_without_json_is_malformed_with_a_preview() {
        let error = parse_json_reply("I cannot help with that {").unwrap_err();
        assert!(matches!(&error, LlmError::Malformed(m) if m.contains("I cannot help")), "{error}");
        assert!(matches!(parse_json_reply("  "), Err(LlmError::Malformed(_))));
    }
}
