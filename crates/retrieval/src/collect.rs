//! A tantivy collector that keeps every matching document with its score.
//!
//! Top-k collectors keep the best k by score but break ties by tantivy's document ids, which
//! follow segments rather than the course; ranking needs pack order for ties and, with
//! embeddings, the full BM25 ranking of the filtered set. Filters are narrow (a few units, one
//! unit and tier), and the unfiltered `map_units` query matches at most every unit, so keeping
//! all matches is cheap.

use tantivy::collector::{Collector, SegmentCollector};
use tantivy::{DocId, Score, SegmentOrdinal, SegmentReader};

/// Matches of one segment: the segment's ordinal in the searcher, and (doc, score) pairs.
pub(crate) type SegmentMatches = (SegmentOrdinal, Vec<(DocId, Score)>);

pub(crate) struct AllMatches;

impl Collector for AllMatches {
    type Fruit = Vec<SegmentMatches>;
    type Child = SegmentAllMatches;

    fn for_segment(&self, segment: SegmentOrdinal, _reader: &SegmentReader) -> tantivy::Result<SegmentAllMatches> {
        Ok(SegmentAllMatches { segment, matches: Vec::new() })
    }

    fn requires_scoring(&self) -> bool {
        true
    }

    fn merge_fruits(&self, segments: Vec<SegmentMatches>) -> tantivy::Result<Vec<SegmentMatches>> {
        Ok(segments)
    }
}

pub(crate) struct SegmentAllMatches {
    segment: SegmentOrdinal,
    matches: Vec<(DocId, Score)>,
}

impl SegmentCollector for SegmentAllMatches {
    type Fruit = SegmentMatches;

    fn collect(&mut self, doc: DocId, score: Score) {
        self.matches.push((doc, score));
    }

    fn harvest(self) -> SegmentMatches {
        (self.segment, self.matches)
    }
}
