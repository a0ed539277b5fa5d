//! Where in a pack's text a value stands, so that a problem found after parsing (an unknown
//! unit, a cycle) can name its line as well as its field.

use crate::pack::PackFormat;
use std::fmt;

/// A step into a pack's tree: a field or an element.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Segment {
    Key(String),
    Index(usize),
}

/// A field of a pack, e.g. `units[3].prerequisites[0]`.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct FieldPath(Vec<Segment>);

impl FieldPath {
    pub fn root() -> FieldPath {
        FieldPath(Vec::new())
    }

    pub fn key(&self, key: &str) -> FieldPath {
        let mut path = self.clone();
        path.0.push(Segment::Key(key.to_string()));
        path
    }

    pub fn index(&self, index: usize) -> FieldPath {
        let mut path = self.clone();
        path.0.push(Segment::Index(index));
        path
    }

    pub fn segments(&self) -> &[Segment] {
        &self.0
    }
}

impl fmt::Display for FieldPath {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for (i, segment) in self.0.iter().enumerate() {
            match segment {
                Segment::Key(k) if i == 0 => write!(f, "{k}")?,
                Segment::Key(k) => write!(f, ".{k}")?,
                Segment::Index(n) => write!(f, "[{n}]")?,
            }
        }
        Ok(())
    }
}

/// Finds the line of a field in the text it was parsed from.
pub(crate) struct Locator<'a> {
    text: &'a str,
    tree: Tree<'a>,
}

enum Tree<'a> {
    Toml(Box<toml_edit::ImDocument<&'a str>>),
    Json(Box<jsonc_parser::ast::Value<'a>>),
    /// The text was not parsed (a pack built in code): no lines to give.
    None,
}

impl<'a> Locator<'a> {
    pub(crate) fn new(text: &'a str, format: PackFormat) -> Locator<'a> {
        let tree = match format {
            PackFormat::Toml => {
                toml_edit::ImDocument::parse(text).map(|doc| Tree::Toml(Box::new(doc))).unwrap_or(Tree::None)
            }
            PackFormat::Json => jsonc_parser::parse_to_ast(text, &Default::default(), &Default::default())
                .ok()
                .and_then(|parsed| parsed.value)
                .map(|value| Tree::Json(Box::new(value)))
                .unwrap_or(Tree::None),
        };
        Locator { text, tree }
    }

    pub(crate) fn none() -> Locator<'static> {
        Locator { text: "", tree: Tree::None }
    }

    /// The 1-based line of the deepest part of `path` present in the text.
    pub(crate) fn line_of(&self, path: &FieldPath) -> Option<usize> {
        let offset = match &self.tree {
            Tree::Toml(doc) => toml_offset(doc.as_table(), path.segments()),
            Tree::Json(value) => json_offset(value, path.segments()),
            Tree::None => None,
        }?;
        Some(line_at(self.text, offset))
    }
}

/// 1-based line of a byte offset.
pub(crate) fn line_at(text: &str, offset: usize) -> usize {
    let end = offset.min(text.len());
    text.as_bytes()[..end].iter().filter(|&&b| b == b'\n').count() + 1
}

#[derive(Clone, Copy)]
enum TomlNode<'t> {
    Table(&'t toml_edit::Table),
    Item(&'t toml_edit::Item),
    Value(&'t toml_edit::Value),
}

impl TomlNode<'_> {
    fn span(&self) -> Option<usize> {
        match self {
            TomlNode::Table(t) => t.span(),
            TomlNode::Item(i) => i.span(),
            TomlNode::Value(v) => v.span(),
        }
        .map(|r| r.start)
    }
}

fn toml_offset(root: &toml_edit::Table, path: &[Segment]) -> Option<usize> {
    let mut node = TomlNode::Table(root);
    let mut best = None;
    for segment in path {
        let next = match (node, segment) {
            (TomlNode::Table(t), Segment::Key(k)) => t.get(k).map(TomlNode::Item),
            (TomlNode::Item(toml_edit::Item::Table(t)), Segment::Key(k)) => t.get(k).map(TomlNode::Item),
            (TomlNode::Item(toml_edit::Item::Value(v)), Segment::Key(k)) | (TomlNode::Value(v), Segment::Key(k)) => {
                v.as_inline_table().and_then(|t| t.get(k)).map(TomlNode::Value)
            }
            (TomlNode::Item(toml_edit::Item::ArrayOfTables(a)), Segment::Index(n)) => a.get(*n).map(TomlNode::Table),
            (TomlNode::Item(toml_edit::Item::Value(v)), Segment::Index(n))
            | (TomlNode::Value(v), Segment::Index(n)) => v.as_array().and_then(|a| a.get(*n)).map(TomlNode::Value),
            _ => None,
        };
        let Some(next) = next else { break };
        best = next.span().or(best);
        node = next;
    }
    best
}

fn json_offset(root: &jsonc_parser::ast::Value<'_>, path: &[Segment]) -> Option<usize> {
    use jsonc_parser::ast::Value;
    use jsonc_parser::common::Ranged;
    let mut node = root;
    let mut best = Some(root.range().start);
    for segment in path {
        let next = match (node, segment) {
            (Value::Object(o), Segment::Key(k)) => o.get(k).map(|p| &p.value),
            (Value::Array(a), Segment::Index(n)) => a.elements.get(*n),
            _ => None,
        };
        let Some(next) = next else { break };
        best = Some(next.range().start);
        node = next;
    }
    best
}

#[cfg(test)]
mod tests {
    use super::*;

    fn path() -> FieldPath {
        FieldPath::root().key("units").index(1).key("prerequisites").index(0)
    }

    #[test]
    fn paths_read_like_fields() {
        assert_eq!(path().to_string(), "units[1].prerequisites[0]");
    }

    #[test]
    fn toml_lines_of_fields() {
        let text =
            "course_id = \"C\"\n\n[[units]]\nid = \"A\"\n\n[[units]]\nid = \"B\"\nprerequisites = [\n  \"X\",\n]\n";
        let locator = Locator::new(text, PackFormat::Toml);
        assert_eq!(locator.line_of(&path()), Some(9));
        assert_eq!(locator.line_of(&FieldPath::root().key("units").index(1)), Some(6));
        // A field that is not there: the line of its nearest present ancestor.
        assert_eq!(locator.line_of(&FieldPath::root().key("units").index(1).key("title")), Some(6));
        assert_eq!(locator.line_of(&FieldPath::root().key("course_id")), Some(1));
    }

    #[test]
    fn json_lines_of_fields() {
        let text = "{\n \"units\": [\n  {\"id\": \"A\"},\n  {\"id\": \"B\",\n   \"prerequisites\": [\"X\"]}\n ]\n}";
        let locator = Locator::new(text, PackFormat::Json);
        assert_eq!(locator.line_of(&path()), Some(5));
        assert_eq!(locator.line_of(&FieldPath::root().key("units").index(0)), Some(3));
    }
}
