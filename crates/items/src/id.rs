//! Item ids. A generated item's id holds what regenerates it: `<skill_id>~s=<seed>~d=<target>`,
//! e.g. `MATH.ARITH.ADD.2DIGIT~s=1234~d=0.50` or `...~d=hard`. An inline item's id is
//! `inline~<16 hex digits>`, a hash of its content.

use crate::band::Target;
use crate::error::ItemError;

pub(crate) const INLINE_PREFIX: &str = "inline~";

pub(crate) fn generated_id(skill_id: &str, seed: u64, target: Target) -> String {
    format!("{skill_id}~s={seed}~d={target}")
}

#[derive(Debug, Clone, Copy, PartialEq)]
pub(crate) enum ParsedId<'a> {
    Generated { skill_id: &'a str, seed: u64, target: Target },
    Inline,
}

pub(crate) fn parse_id(id: &str) -> Result<ParsedId<'_>, ItemError> {
    let malformed = |reason: &str| ItemError::MalformedId { id: id.to_string(), reason: reason.to_string() };
    if let Some(hash) = id.strip_prefix(INLINE_PREFIX) {
        return if hash.len() == 16 && hash.bytes().all(|b| b.is_ascii_hexdigit()) {
            Ok(ParsedId::Inline)
        } else {
            Err(malformed("an inline id ends with 16 hex digits"))
        };
    }
    let mut parts = id.split('~');
    let skill_id = parts.next().filter(|s| !s.is_empty()).ok_or_else(|| malformed("no skill id"))?;
    let seed = parts.next().and_then(|p| p.strip_prefix("s=")).ok_or_else(|| malformed("no '~s=' seed"))?;
    let seed: u64 = seed.parse().map_err(|_| malformed("the seed is not a whole number 0-18446744073709551615"))?;
    let target = parts.next().and_then(|p| p.strip_prefix("d=")).ok_or_else(|| malformed("no '~d=' target"))?;
    let target: Target = target.parse()?;
    if parts.next().is_some() {
        return Err(malformed("text after the target"));
    }
    Ok(ParsedId::Generated { skill_id, seed, target })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::band::Band;

    #[test]
    fn ids_round_trip() {
        let id = generated_id("MATH.ARITH.ADD.2DIGIT", 1234, Target::Difficulty(0.5));
        assert_eq!(id, "MATH.ARITH.ADD.2DIGIT~s=1234~d=0.50");
        assert_eq!(
            parse_id(&id).unwrap(),
            ParsedId::Generated { skill_id: "MATH.ARITH.ADD.2DIGIT", seed: 1234, target: Target::Difficulty(0.5) }
        );
        let id = generated_id("X", u64::MAX, Target::Band(Band::Hard));
        assert_eq!(
            parse_id(&id).unwrap(),
            ParsedId::Generated { skill_id: "X", seed: u64::MAX, target: Target::Band(Band::Hard) }
        );
        assert_eq!(parse_id("inline~00ff00ff00ff00ff").unwrap(), ParsedId::Inline);
    }

    #[test]
    fn malformed_ids_say_what_is_expected() {
        for (id, reason) in [
            ("", "no skill id"),
            ("X", "no '~s=' seed"),
            ("X~s=-1~d=0.5", "not a whole number"),
            ("X~s=1", "no '~d=' target"),
            ("X~s=1~d=0.5~more", "text after the target"),
            ("inline~xyz", "16 hex digits"),
        ] {
            let err = parse_id(id).unwrap_err().to_string();
            assert!(err.contains(reason) && err.contains("expected '<skill_id>~s=<seed>~d=<target>'"), "{id}: {err}");
        }
        let err = parse_id("X~s=1~d=2.5").unwrap_err().to_string();
        assert!(err.contains("allowed: 0-1 or easy, medium, hard"), "{err}");
    }
}
