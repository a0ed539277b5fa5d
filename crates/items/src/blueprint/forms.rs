//! Fields a blueprint may write in a short or a long form, as the document does: a
//! difficulty factor as a weight or `{ weight, constraint }`, a distractor strategy as a
//! name or `{ type, description }`.

use serde::de::{self, MapAccess, Visitor};
use serde::{Deserialize, Deserializer, Serialize, Serializer};
use std::fmt;

#[derive(Debug, Clone, PartialEq)]
pub struct DifficultyFactor {
    pub weight: f64,
    /// What the factor means, for authors and reviewers.
    pub constraint: Option<String>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct FactorTable {
    weight: f64,
    #[serde(default)]
    constraint: Option<String>,
}

impl<'de> Deserialize<'de> for DifficultyFactor {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V;
        impl<'de> Visitor<'de> for V {
            type Value = DifficultyFactor;
            fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
                f.write_str("a weight (0-1) or a table { weight, constraint }")
            }
            fn visit_f64<E: de::Error>(self, v: f64) -> Result<DifficultyFactor, E> {
                Ok(DifficultyFactor { weight: v, constraint: None })
            }
            fn visit_i64<E: de::Error>(self, v: i64) -> Result<DifficultyFactor, E> {
                self.visit_f64(v as f64)
            }
            fn visit_u64<E: de::Error>(self, v: u64) -> Result<DifficultyFactor, E> {
                self.visit_f64(v as f64)
            }
            fn visit_map<A: MapAccess<'de>>(self, map: A) -> Result<DifficultyFactor, A::Error> {
                let t = FactorTable::deserialize(de::value::MapAccessDeserializer::new(map))?;
                Ok(DifficultyFactor { weight: t.weight, constraint: t.constraint })
            }
        }
        d.deserialize_any(V)
    }
}

impl Serialize for DifficultyFactor {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        use serde::ser::SerializeStruct;
        match &self.constraint {
            None => s.serialize_f64(self.weight),
            Some(c) => {
                let mut t = s.serialize_struct("DifficultyFactor", 2)?;
                t.serialize_field("weight", &self.weight)?;
                t.serialize_field("constraint", c)?;
                t.end()
            }
        }
    }
}

#[derive(Debug, Clone, PartialEq)]
pub struct DistractorStrategy {
    pub name: String,
    pub description: Option<String>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct StrategyTable {
    #[serde(rename = "type")]
    name: String,
    #[serde(default)]
    description: Option<String>,
}

impl<'de> Deserialize<'de> for DistractorStrategy {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V;
        impl<'de> Visitor<'de> for V {
            type Value = DistractorStrategy;
            fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
                f.write_str("a strategy name or a table { type, description }")
            }
            fn visit_str<E: de::Error>(self, v: &str) -> Result<DistractorStrategy, E> {
                Ok(DistractorStrategy { name: v.to_string(), description: None })
            }
            fn visit_map<A: MapAccess<'de>>(self, map: A) -> Result<DistractorStrategy, A::Error> {
                let t = StrategyTable::deserialize(de::value::MapAccessDeserializer::new(map))?;
                Ok(DistractorStrategy { name: t.name, description: t.description })
            }
        }
        d.deserialize_any(V)
    }
}

impl Serialize for DistractorStrategy {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        use serde::ser::SerializeStruct;
        match &self.description {
            None => s.serialize_str(&self.name),
            Some(d) => {
                let mut t = s.serialize_struct("DistractorStrategy", 2)?;
                t.serialize_field("type", &self.name)?;
                t.serialize_field("description", d)?;
                t.end()
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::BTreeMap;

    #[derive(Deserialize, Serialize)]
    struct Both {
        factors: BTreeMap<String, DifficultyFactor>,
        strategies: Vec<DistractorStrategy>,
    }

    #[test]
    fn short_and_long_forms_read_from_toml_and_json() {
        let text = r#"
            strategies = ["off_by_1", { type = "off_by_10", description = "place value" }]
            [factors]
            no_carry = 0.3
            single_carry = { weight = 0.5, constraint = "exactly one carry" }
            all = 1
        "#;
        let b: Both = toml::from_str(text).unwrap();
        assert_eq!(b.factors["no_carry"].weight, 0.3);
        assert_eq!(b.factors["single_carry"].constraint.as_deref(), Some("exactly one carry"));
        assert_eq!(b.factors["all"].weight, 1.0);
        assert_eq!(b.strategies[1].name, "off_by_10");
        let json = serde_json::to_string(&b).unwrap();
        let again: Both = serde_json::from_str(&json).unwrap();
        assert_eq!(again.factors, b.factors);
        assert_eq!(again.strategies, b.strategies);
    }

    #[test]
    fn typos_in_the_long_forms_name_the_field() {
        let err = toml::from_str::<Both>("strategies = []\n[factors]\nx = { wieght = 0.5 }").err().unwrap().to_string();
        assert!(err.contains("wieght"), "{err}");
        let err = toml::from_str::<Both>("strategies = [{ typ = \"a\" }]\n[factors]").err().unwrap().to_string();
        assert!(err.contains("typ"), "{err}");
        let err = toml::from_str::<Both>("strategies = [3]\n[factors]").err().unwrap().to_string();
        assert!(err.contains("a strategy name or a table"), "{err}");
    }
}
