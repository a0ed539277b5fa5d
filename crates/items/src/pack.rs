//! Item packs: a TOML or JSON file of `[[skills]]` (skill blueprints) and
//! `[[assessments]]`.

use crate::assessment::AssessmentBlueprint;
use crate::blueprint::SkillBlueprint;
use crate::error::PackError;
use serde::{Deserialize, Serialize};

#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Pack {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub name: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub description: Option<String>,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub skills: Vec<SkillBlueprint>,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub assessments: Vec<AssessmentBlueprint>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum PackFormat {
    Toml,
    Json,
}

impl PackFormat {
    /// The format of a file by its extension (`.toml`, `.json`).
    pub fn from_path(path: &str) -> Option<PackFormat> {
        let ext = path.rsplit_once('.')?.1;
        if ext.eq_ignore_ascii_case("toml") {
            Some(PackFormat::Toml)
        } else if ext.eq_ignore_ascii_case("json") {
            Some(PackFormat::Json)
        } else {
            None
        }
    }

    pub fn name(self) -> &'static str {
        match self {
            PackFormat::Toml => "TOML",
            PackFormat::Json => "JSON",
        }
    }
}

impl Pack {
    /// Reads a pack; a syntax error or a misspelt field is reported with its line and
    /// column.
    pub fn parse(text: &str, format: PackFormat) -> Result<Pack, PackError> {
        let parse_error = |message: String| PackError::Parse { format: format.name(), message };
        match format {
            PackFormat::Toml => toml::from_str(text).map_err(|e| parse_error(e.to_string().trim_end().to_string())),
            PackFormat::Json => serde_json::from_str(text).map_err(|e| parse_error(e.to_string())),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn formats_from_file_names() {
        assert_eq!(PackFormat::from_path("packs/math.toml"), Some(PackFormat::Toml));
        assert_eq!(PackFormat::from_path("PACK.JSON"), Some(PackFormat::Json));
        assert_eq!(PackFormat::from_path("pack.yaml"), None);
        assert_eq!(PackFormat::from_path("pack"), None);
    }

    #[test]
    fn errors_give_the_position() {
        let err = Pack::parse("[[skills]]\nskill_id = 3\n", PackFormat::Toml).unwrap_err().to_string();
        assert!(err.contains("line 2"), "{err}");
        let err = Pack::parse("{\"skils\": []}", PackFormat::Json).unwrap_err().to_string();
        assert!(err.contains("skils") && err.contains("line 1"), "{err}");
    }
}
