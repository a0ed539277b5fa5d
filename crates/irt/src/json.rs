//! Reading JSON input so that an error names the element at fault ("item 3, field c")
//! rather than only a line and column.

use serde::de::DeserializeOwned;
use serde_path_to_error::Segment;

/// A parse error and where it happened, in words.
pub(crate) struct Located {
    pub location: String,
    pub message: String,
}

/// Parses `text` as a whole JSON document; `element` names the array elements ("item",
/// "theta") in the location of an error.
pub(crate) fn parse_located<T: DeserializeOwned>(text: &str, element: &str) -> Result<T, Located> {
    let mut deserializer = serde_json::Deserializer::from_str(text);
    let value = serde_path_to_error::deserialize(&mut deserializer).map_err(|error| Located {
        location: describe(error.path(), element),
        message: error.into_inner().to_string(),
    })?;
    // Trailing text after the document is an error too (a second array, a stray bracket).
    deserializer.end().map_err(|error| Located { location: "the file".to_string(), message: error.to_string() })?;
    Ok(value)
}

fn describe(path: &serde_path_to_error::Path, element: &str) -> String {
    let parts: Vec<String> = path
        .iter()
        .map(|segment| match segment {
            Segment::Seq { index } => format!("{element} {index}"),
            Segment::Map { key } => format!("field {key}"),
            Segment::Enum { variant } => format!("variant {variant}"),
            Segment::Unknown => "?".to_string(),
        })
        .collect();
    if parts.is_empty() {
        "the file".to_string()
    } else {
        parts.join(", ")
    }
}
