//! IPv4 subnetting: from an address and a prefix (or dotted mask), the network and broadcast
//! addresses, the first and last host, the number of hosts, and converting between a prefix
//! and a mask. Difficulty follows the document: a classful prefix (the address's class
//! boundary) is easiest, another byte boundary next, a prefix inside an octet hardest.

use super::{factor, Answered, Domain, FactorInfo, Question, SpecError};
use crate::answer::value::mask_of;
use crate::answer::value::{write_ipv4, Value};
use crate::answer::AnswerForm;
use crate::dice::Dice;
use serde::{Deserialize, Serialize};
use serde_json::json;
use std::fmt::Write;

/// `kind = "ipv4_subnet"`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct SubnetSpec {
    pub question: SubnetQuestion,
    /// Smallest and largest prefix length; at most 30 for questions about hosts and
    /// addresses (a /31 or /32 has no separate network, broadcast and hosts).
    #[serde(default = "default_prefix_range")]
    pub prefix_range: [u8; 2],
}

fn default_prefix_range() -> [u8; 2] {
    [8, 30]
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum SubnetQuestion {
    NetworkAddress,
    BroadcastAddress,
    FirstHost,
    LastHost,
    HostCount,
    MaskFromPrefix,
    PrefixFromMask,
}

impl SubnetQuestion {
    pub fn name(self) -> &'static str {
        match self {
            SubnetQuestion::NetworkAddress => "network_address",
            SubnetQuestion::BroadcastAddress => "broadcast_address",
            SubnetQuestion::FirstHost => "first_host",
            SubnetQuestion::LastHost => "last_host",
            SubnetQuestion::HostCount => "host_count",
            SubnetQuestion::MaskFromPrefix => "mask_from_prefix",
            SubnetQuestion::PrefixFromMask => "prefix_from_mask",
        }
    }

    fn about_masks(self) -> bool {
        matches!(self, SubnetQuestion::MaskFromPrefix | SubnetQuestion::PrefixFromMask)
    }

    /// Whether the question is about an address, rather than only about a prefix length
    /// (masks and host counts), which the address's class does not change.
    fn about_an_address(self) -> bool {
        !matches!(self, SubnetQuestion::MaskFromPrefix | SubnetQuestion::PrefixFromMask | SubnetQuestion::HostCount)
    }
}

/// `ip` (dotted), `cidr` (the prefix length as a number), `prefix` (`/26`), `mask`
/// (`255.255.255.192`).
const PLACEHOLDERS: &[&str] = &["ip", "cidr", "prefix", "mask"];
const CLASSFUL: usize = 0;
const SIMPLE: usize = 1;
const COMPLEX: usize = 2;
const FACTORS: &[FactorInfo] = &[factor("classful", 0.3), factor("simple_cidr", 0.5), factor("complex_cidr", 0.7)];

const NETWORK_STRATEGIES: &[&str] = &["broadcast_address", "host_address", "off_by_one_host", "wrong_mask_application"];
const BROADCAST_STRATEGIES: &[&str] = &["network_address", "host_address", "off_by_one_host", "wrong_mask_application"];
const HOST_STRATEGIES: &[&str] =
    &["network_address", "broadcast_address", "host_address", "off_by_one_host", "wrong_mask_application"];
const COUNT_STRATEGIES: &[&str] = &["forgot_reserved", "off_by_one_host", "wrong_mask_application"];
const MASK_STRATEGIES: &[&str] = &["wrong_mask_application", "wildcard_mask"];
const PREFIX_STRATEGIES: &[&str] = &["wrong_mask_application", "host_bits"];

#[derive(Debug, Clone)]
pub(crate) struct Subnet {
    question: SubnetQuestion,
    min: u8,
    max: u8,
}

/// The default prefix of an address's class: A (1-126) /8, B (128-191) /16, C (192-223) /24.
fn class_prefix(ip: u32) -> u8 {
    match ip >> 24 {
        0..=127 => 8,
        128..=191 => 16,
        _ => 24,
    }
}

fn address_in_class(dice: &mut Dice, class_prefix: u8) -> u32 {
    let first = match class_prefix {
        8 => dice.int(1, 126),
        16 => dice.int(128, 191),
        _ => dice.int(192, 223),
    } as u32;
    (first << 24) | (dice.next_u64() as u32 & 0x00FF_FFFF)
}

impl Subnet {
    pub fn compile(spec: &SubnetSpec) -> Result<Subnet, SpecError> {
        let [min, max] = spec.prefix_range;
        let top = if spec.question.about_masks() { 32 } else { 30 };
        if min < 1 || max > top || min > max {
            return Err(SpecError::new(
                "prefix_range",
                format!(
                    "[{min}, {max}] is not allowed for {}; allowed: 1 <= min <= max <= {top}",
                    spec.question.name()
                ),
            ));
        }
        Ok(Subnet { question: spec.question, min, max })
    }

    fn byte_prefixes(&self) -> impl Iterator<Item = u8> + '_ {
        [8u8, 16, 24, 32].into_iter().filter(|p| (self.min..=self.max).contains(p))
    }

    fn pick_prefix(&self, dice: &mut Dice, index: usize) -> u8 {
        let byte: Vec<u8> = self.byte_prefixes().filter(|p| *p <= 24).collect();
        match index {
            CLASSFUL | SIMPLE if !byte.is_empty() => byte[dice.index(byte.len())],
            _ => {
                let inside: Vec<u8> = (self.min..=self.max).filter(|p| p % 8 != 0).collect();
                if inside.is_empty() {
                    self.min
                } else {
                    inside[dice.index(inside.len())]
                }
            }
        }
    }
}

impl Domain for Subnet {
    type Question = SubnetItem;

    fn describe(&self) -> String {
        format!("ipv4_subnet ({})", self.question.name())
    }

    fn placeholders(&self) -> &'static [&'static str] {
        PLACEHOLDERS
    }

    fn factors(&self) -> &'static [FactorInfo] {
        FACTORS
    }

    fn strategies(&self) -> &'static [&'static str] {
        match self.question {
            SubnetQuestion::NetworkAddress => NETWORK_STRATEGIES,
            SubnetQuestion::BroadcastAddress => BROADCAST_STRATEGIES,
            SubnetQuestion::FirstHost | SubnetQuestion::LastHost => HOST_STRATEGIES,
            SubnetQuestion::HostCount => COUNT_STRATEGIES,
            SubnetQuestion::MaskFromPrefix => MASK_STRATEGIES,
            SubnetQuestion::PrefixFromMask => PREFIX_STRATEGIES,
        }
    }

    fn impossible(&self, index: usize) -> Option<String> {
        let (min, max) = (self.min, self.max);
        let byte = self.byte_prefixes().any(|p| p <= 24);
        match index {
            CLASSFUL if !self.question.about_an_address() => Some(format!(
                "{} does not involve an address's class; use simple_cidr and complex_cidr",
                self.question.name()
            )),
            CLASSFUL | SIMPLE if !byte => Some(format!("prefix_range [{min}, {max}] holds none of /8, /16, /24")),
            COMPLEX if (min..=max).all(|p| p % 8 == 0) => {
                Some(format!("prefix_range [{min}, {max}] holds no prefix inside an octet"))
            }
            _ => None,
        }
    }

    fn answer_form(&self) -> AnswerForm {
        match self.question {
            SubnetQuestion::HostCount => AnswerForm::Number { variable: None },
            SubnetQuestion::MaskFromPrefix | SubnetQuestion::PrefixFromMask => AnswerForm::SubnetMask,
            _ => AnswerForm::Ipv4Address,
        }
    }

    fn make(&self, index: usize, dice: &mut Dice) -> SubnetItem {
        let prefix = self.pick_prefix(dice, index);
        let class = match index {
            CLASSFUL if prefix.is_multiple_of(8) && prefix <= 24 => prefix,
            // Another class than the prefix's own, so the boundary is not the classful one.
            SIMPLE => {
                let others: Vec<u8> = [8u8, 16, 24].into_iter().filter(|c| *c != prefix).collect();
                others[dice.index(others.len())]
            }
            _ => [8u8, 16, 24][dice.index(3)],
        };
        let mut ip = address_in_class(dice, class);
        let host_bits = 32 - u32::from(prefix);
        if host_bits >= 2 {
            // Neither the network nor the broadcast address itself, which would give the
            // answer away.
            let host_mask = !mask_of(prefix);
            let mut host = ip & host_mask;
            if host == 0 || host == host_mask {
                host = 1 + (dice.next_u64() as u32 % (host_mask - 1));
            }
            ip = (ip & mask_of(prefix)) | host;
        }
        SubnetItem { question: self.question, ip, prefix }
    }
}

#[derive(Debug, Clone)]
pub(crate) struct SubnetItem {
    question: SubnetQuestion,
    ip: u32,
    prefix: u8,
}

impl SubnetItem {
    fn network(&self, prefix: u8) -> u32 {
        self.ip & mask_of(prefix)
    }

    fn broadcast(&self, prefix: u8) -> u32 {
        self.network(prefix) | !mask_of(prefix)
    }

    /// The answer to this question computed with another prefix.
    fn answer_with(&self, prefix: u8) -> Value {
        match self.question {
            SubnetQuestion::NetworkAddress => Value::Ipv4(self.network(prefix)),
            SubnetQuestion::BroadcastAddress => Value::Ipv4(self.broadcast(prefix)),
            SubnetQuestion::FirstHost => Value::Ipv4(self.network(prefix).wrapping_add(1)),
            SubnetQuestion::LastHost => Value::Ipv4(self.broadcast(prefix).wrapping_sub(1)),
            SubnetQuestion::HostCount => Value::int(hosts(prefix)),
            SubnetQuestion::MaskFromPrefix => Value::Mask(prefix),
            SubnetQuestion::PrefixFromMask => Value::Prefix(prefix),
        }
    }

    /// Prefixes learners apply instead: the octet boundaries around it, then its neighbours.
    fn wrong_prefixes(&self) -> impl Iterator<Item = u8> {
        let p = self.prefix;
        let down = if p.is_multiple_of(8) { p.saturating_sub(8) } else { p - p % 8 };
        let up = p - p % 8 + 8;
        [down, up, p.saturating_sub(1), p + 1].into_iter().filter(move |q| (1..=32).contains(q) && *q != p)
    }
}

fn hosts(prefix: u8) -> i64 {
    (1i64 << (32 - u32::from(prefix))) - 2
}

impl Question for SubnetItem {
    fn fill(&self, slot: usize, out: &mut String) {
        let _ = match slot {
            0 => write_ipv4(out, self.ip),
            1 => write!(out, "{}", self.prefix),
            2 => write!(out, "/{}", self.prefix),
            _ => write_ipv4(out, mask_of(self.prefix)),
        };
    }

    fn factor(&self) -> usize {
        if !self.prefix.is_multiple_of(8) {
            COMPLEX
        } else if self.prefix == class_prefix(self.ip) && self.question.about_an_address() {
            CLASSFUL
        } else {
            SIMPLE
        }
    }

    fn params(&self, out: &mut serde_json::Map<String, serde_json::Value>) {
        let mut ip = String::with_capacity(15);
        let _ = write_ipv4(&mut ip, self.ip);
        out.insert("question".into(), json!(self.question.name()));
        out.insert("ip".into(), json!(ip));
        out.insert("prefix".into(), json!(self.prefix));
    }

    fn content_key(&self) -> String {
        // Only the prefix matters when the address plays no part.
        if !self.question.about_an_address() {
            return format!("ipv4:{}:{}", self.question.name(), self.prefix);
        }
        let mut key = String::with_capacity(40);
        let _ = write!(key, "ipv4:{}:", self.question.name());
        let _ = write_ipv4(&mut key, self.ip);
        let _ = write!(key, "/{}", self.prefix);
        key
    }
}

impl Answered for SubnetItem {
    fn key(&self) -> Value {
        self.answer_with(self.prefix)
    }

    fn distractors(&self, strategy: &str, _dice: &mut Dice, out: &mut Vec<Value>) {
        let p = self.prefix;
        let (net, bcast) = (self.network(p), self.broadcast(p));
        let host_bits = 32 - i64::from(p);
        match (strategy, self.question) {
            ("network_address", _) => out.push(Value::Ipv4(net)),
            ("broadcast_address", _) => out.push(Value::Ipv4(bcast)),
            ("host_address", _) => out.push(Value::Ipv4(self.ip)),
            ("off_by_one_host", SubnetQuestion::NetworkAddress) => out.push(Value::Ipv4(net.wrapping_add(1))),
            ("off_by_one_host", SubnetQuestion::BroadcastAddress) => out.push(Value::Ipv4(bcast.wrapping_sub(1))),
            ("off_by_one_host", SubnetQuestion::FirstHost) => {
                out.extend([Value::Ipv4(net.wrapping_add(2)), Value::Ipv4(net)])
            }
            ("off_by_one_host", SubnetQuestion::LastHost) => {
                out.extend([Value::Ipv4(bcast.wrapping_sub(2)), Value::Ipv4(bcast)])
            }
            ("off_by_one_host", SubnetQuestion::HostCount) => out.push(Value::int(hosts(p) + 1)),
            ("forgot_reserved", _) => out.push(Value::int(1 << host_bits)),
            ("wrong_mask_application", SubnetQuestion::HostCount) => {
                out.extend(self.wrong_prefixes().filter(|q| *q <= 30).map(|q| self.answer_with(q)))
            }
            ("wrong_mask_application", _) => out.extend(self.wrong_prefixes().map(|q| self.answer_with(q))),
            // The inverse mask, as written in ACLs.
            ("wildcard_mask", _) => out.push(Value::Ipv4(!mask_of(p))),
            ("host_bits", _) => out.push(Value::Prefix(32 - p)),
            _ => {}
        }
    }

    fn fallback(&self, k: u32) -> Option<Value> {
        let step = k / 2 + 1;
        let up = k.is_multiple_of(2);
        match self.key() {
            Value::Ipv4(ip) => Some(Value::Ipv4(if up { ip.wrapping_add(step) } else { ip.wrapping_sub(step) })),
            Value::Number(n) => super::nearby_integer(n.num(), k, true),
            Value::Mask(p) | Value::Prefix(p) => {
                let q = if up { u32::from(p) + step } else { u32::from(p).checked_sub(step)? };
                let q = u8::try_from(q).ok().filter(|q| (1..=32).contains(q))?;
                Some(if matches!(self.key(), Value::Mask(_)) { Value::Mask(q) } else { Value::Prefix(q) })
            }
            // Subnet answers are never in binary or place names.
            Value::Bits { .. } | Value::Place(_) => None,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn subnet(question: SubnetQuestion, range: [u8; 2]) -> Subnet {
        Subnet::compile(&SubnetSpec { question, prefix_range: range }).unwrap()
    }

    #[test]
    fn each_factor_is_built_with_an_address_that_is_a_host() {
        let g = subnet(SubnetQuestion::NetworkAddress, [8, 30]);
        let mut dice = Dice::new(4, 4);
        for index in 0..FACTORS.len() {
            for _ in 0..300 {
                let q = g.make(index, &mut dice);
                assert_eq!(q.factor(), index, "{:08x}/{}", q.ip, q.prefix);
                assert_ne!(q.ip, q.network(q.prefix));
                assert_ne!(q.ip, q.broadcast(q.prefix));
                assert!((1..=223).contains(&(q.ip >> 24)) && q.ip >> 24 != 127);
            }
        }
    }

    #[test]
    fn factor_names_tell_impossible_ranges() {
        let g = subnet(SubnetQuestion::NetworkAddress, [25, 30]);
        assert!(g.impossible(CLASSFUL).unwrap().contains("none of /8, /16, /24"));
        assert!(g.impossible(COMPLEX).is_none());
        let g = subnet(SubnetQuestion::MaskFromPrefix, [24, 24]);
        assert!(g.impossible(COMPLEX).unwrap().contains("inside an octet"));
        assert!(g.impossible(CLASSFUL).unwrap().contains("use simple_cidr and complex_cidr"));
        assert!(subnet(SubnetQuestion::HostCount, [8, 30]).impossible(CLASSFUL).is_some());
    }

    #[test]
    fn prefix_ranges_are_checked_per_question() {
        let bad = |q, r| Subnet::compile(&SubnetSpec { question: q, prefix_range: r }).unwrap_err().message;
        assert!(bad(SubnetQuestion::HostCount, [8, 31]).contains("max <= 30"));
        assert!(bad(SubnetQuestion::NetworkAddress, [20, 10]).contains("min <= max"));
        assert!(bad(SubnetQuestion::NetworkAddress, [0, 10]).contains("1 <= min"));
        assert!(
            Subnet::compile(&SubnetSpec { question: SubnetQuestion::MaskFromPrefix, prefix_range: [1, 32] }).is_ok()
        );
    }
}
