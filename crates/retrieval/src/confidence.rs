//! How sure `map_units` is that a message is about a unit: a number in 0..1 meant to be read
//! against a threshold (the tutor trusts a mapping from about 0.55).
//!
//! `confidence = share * coverage * specificity`, where
//!
//! - `share` says how clearly the unit wins: a softmax over the top three units' BM25 scores,
//!   with a fourth, constant contender standing for "none of them". Scores are first divided
//!   by the largest IDF the course can give (that of a word in one anchor), which makes them
//!   independent of the course's size: 1 is roughly one rare word matched once in the anchor
//!   text, 2-3 a rare word in the title. A unit that matches only weakly cannot beat "none";
//!   units that match equally split the share.
//! - `coverage` says how much of the message the unit explains: the IDF-weighted fraction of the
//!   message's terms that the unit's anchor contains, counting only terms that occur in some
//!   anchor of the course (words the course never uses, like "help", neither count for nor
//!   against a unit).
//! - `specificity` says whether the shared words can tell units apart at all: the IDF of the
//!   covered terms over the largest IDF, capped at 1. One word found in a single anchor is
//!   enough; "address" in a course where half the units are about addresses is not, however
//!   often one anchor repeats it (BM25 rewards repetition, which `share` inherits).
//!
//! Confidences are rounded to three decimals.

use crate::namespace::Scored;
use std::collections::HashMap;

/// How strongly (in IDF-normalized BM25) a unit must match to be even odds against "none of
/// the units": about one rare word in a unit's title.
const NONE_STRENGTH: f64 = 2.0;

/// How many of the best units compete for the share.
pub(crate) const CONTENDERS: usize = 3;

/// The terms of each unit's anchor document (title, tags, misconceptions and anchor text), and
/// in how many anchors each term occurs.
#[derive(Debug, Default)]
pub(crate) struct AnchorVocabulary {
    ids: HashMap<String, u32>,
    document_frequency: Vec<u32>,
    /// Per anchor, by ordinal: its distinct term ids, sorted.
    documents: Vec<Vec<u32>>,
}

impl AnchorVocabulary {
    /// Adds the next anchor, with its terms as the index's analyzer makes them.
    pub fn add_document(&mut self, terms: impl IntoIterator<Item = String>) {
        let mut ids: Vec<u32> = Vec::new();
        for term in terms {
            let next = self.document_frequency.len() as u32;
            let id = *self.ids.entry(term).or_insert(next);
            if id == next {
                self.document_frequency.push(0);
            }
            ids.push(id);
        }
        ids.sort_unstable();
        ids.dedup();
        for &id in &ids {
            self.document_frequency[id as usize] += 1;
        }
        self.documents.push(ids);
    }

    /// BM25's IDF of a term occurring in `frequency` of the anchors.
    fn idf(&self, frequency: u32) -> f64 {
        let documents = self.documents.len() as f64;
        let frequency = f64::from(frequency);
        (1.0 + (documents - frequency + 0.5) / (frequency + 0.5)).ln()
    }

    /// The confidence of each of `ranked` (the best BM25 matches of `terms`, best first).
    pub fn confidences(&self, terms: &[String], ranked: &[Scored]) -> Vec<f64> {
        let known: Vec<(u32, f64)> = terms
            .iter()
            .filter_map(|t| self.ids.get(t))
            .map(|&id| (id, self.idf(self.document_frequency[id as usize])))
            .collect();
        let message_weight: f64 = known.iter().map(|(_, idf)| idf).sum();
        if known.is_empty() || message_weight <= 0.0 {
            return vec![0.0; ranked.len()];
        }
        let largest_idf = self.idf(1);
        let strength = |s: &Scored| s.score / largest_idf;
        // Softmax, shifted by the largest exponent so that nothing overflows.
        let top = ranked.iter().map(strength).fold(NONE_STRENGTH, f64::max);
        let contenders: f64 = ranked.iter().take(CONTENDERS).map(|s| (strength(s) - top).exp()).sum();
        let denominator = (NONE_STRENGTH - top).exp() + contenders;
        ranked
            .iter()
            .map(|s| {
                let share = (strength(s) - top).exp() / denominator;
                let anchor = self.documents.get(s.ordinal as usize).map_or(&[][..], Vec::as_slice);
                let covered: f64 =
                    known.iter().filter(|(id, _)| anchor.binary_search(id).is_ok()).map(|(_, idf)| idf).sum();
                let coverage = covered / message_weight;
                let specificity = (covered / largest_idf).min(1.0);
                round3(share * coverage * specificity)
            })
            .collect()
    }
}

fn round3(x: f64) -> f64 {
    (x.clamp(0.0, 1.0) * 1000.0).round() / 1000.0
}

#[cfg(test)]
mod tests {
    use super::*;

    fn vocabulary(anchors: &[&[&str]]) -> AnchorVocabulary {
        let mut v = AnchorVocabulary::default();
        for terms in anchors {
            v.add_document(terms.iter().map(|t| t.to_string()));
        }
        v
    }

    fn terms(words: &[&str]) -> Vec<String> {
        words.iter().map(|w| w.to_string()).collect()
    }

    #[test]
    fn words_the_course_never_uses_do_not_count() {
        let v = vocabulary(&[&["mask", "subnet"], &["graph", "line"]]);
        let ranked = [Scored { ordinal: 0, score: 10.0 }];
        let with_noise = v.confidences(&terms(&["mask", "help", "please"]), &ranked);
        assert_eq!(with_noise, v.confidences(&terms(&["mask"]), &ranked));
        assert!(with_noise[0] > 0.9);
        assert_eq!(v.confidences(&terms(&["help"]), &ranked), [0.0], "nothing the course knows");
    }

    #[test]
    fn coverage_is_idf_weighted() {
        // "line" is in both anchors, "mask" in one: covering "mask" is worth more.
        let v = vocabulary(&[&["mask", "line"], &["graph", "line"]]);
        let ranked = [Scored { ordinal: 0, score: 50.0 }, Scored { ordinal: 1, score: 0.0 }];
        let c = v.confidences(&terms(&["mask", "line"]), &ranked);
        assert!(c[0] > 0.99, "{c:?}");
        let only_line = [Scored { ordinal: 1, score: 50.0 }];
        let c = v.confidences(&terms(&["mask", "line"]), &only_line);
        assert!(c[0] < 0.5, "{c:?}");
    }

    #[test]
    fn words_many_anchors_share_are_not_specific() {
        let v = vocabulary(&[&["address", "broadcast"], &["address", "network"], &["address"], &["graph"]]);
        let ranked = [Scored { ordinal: 0, score: 50.0 }];
        let common = v.confidences(&terms(&["address"]), &ranked);
        let rare = v.confidences(&terms(&["broadcast"]), &ranked);
        assert!(common[0] < 0.35 && rare[0] > 0.99, "{common:?} {rare:?}");
    }

    #[test]
    fn confidences_are_rounded() {
        assert_eq!(round3(0.123_456), 0.123);
        assert_eq!(round3(1.2), 1.0);
    }
}
