//! One namespace: its own tantivy index in RAM, so that BM25's statistics (document frequency,
//! average length) are those of its own documents, not a mix of anchors and transcripts.
//!
//! A namespace knows its documents only by ordinal (their position in the course); what a hit
//! returns lives in the caller's metadata vectors, so nothing is stored in or read back from
//! tantivy's document store.

use crate::analyzer::{analyzer, ANALYZER_NAME};
use crate::collect::AllMatches;
use tantivy::merge_policy::NoMergePolicy;
use tantivy::query::{BooleanQuery, BoostQuery, ConstScoreQuery, Occur, Query as TantivyQuery, TermQuery};
use tantivy::schema::{Field, IndexRecordOption, Schema, TextFieldIndexing, TextOptions, FAST, STRING};
use tantivy::{Index, IndexWriter, ReloadPolicy, Score, Searcher, TantivyDocument, Term};

/// Documents are buffered up to this size before tantivy writes a segment; big enough that a
/// course makes one segment (the arena grows on demand, so small courses use little).
const WRITER_MEMORY_BYTES: usize = 512 << 20;
const ORDINAL_FIELD: &str = "ordinal";

/// A searchable text field and how much a match in it counts.
#[derive(Debug, Clone, Copy)]
pub(crate) struct TextField {
    pub name: &'static str,
    pub boost: Score,
}

/// A document being added: text values per searchable field and exact values per keyword field,
/// each in the order the namespace declared its fields.
pub(crate) struct NewDocument<'a, const TEXTS: usize, const KEYWORDS: usize> {
    pub texts: [&'a [&'a str]; TEXTS],
    pub keywords: [&'a [&'a str]; KEYWORDS],
}

pub(crate) struct NamespaceBuilder<const TEXTS: usize, const KEYWORDS: usize> {
    name: &'static str,
    index: Index,
    writer: IndexWriter,
    texts: [(Field, Score); TEXTS],
    keywords: [Field; KEYWORDS],
    ordinal: Field,
    added: u32,
}

impl<const TEXTS: usize, const KEYWORDS: usize> NamespaceBuilder<TEXTS, KEYWORDS> {
    pub fn new(
        name: &'static str,
        texts: [TextField; TEXTS],
        keywords: [&'static str; KEYWORDS],
    ) -> tantivy::Result<Self> {
        let mut schema = Schema::builder();
        // Frequencies but no positions: nothing here searches phrases.
        let text_options = TextOptions::default().set_indexing_options(
            TextFieldIndexing::default().set_tokenizer(ANALYZER_NAME).set_index_option(IndexRecordOption::WithFreqs),
        );
        let texts = texts.map(|t| (schema.add_text_field(t.name, text_options.clone()), t.boost));
        let keywords = keywords.map(|name| schema.add_text_field(name, STRING));
        let ordinal = schema.add_u64_field(ORDINAL_FIELD, FAST);
        let index = Index::create_in_ram(schema.build());
        index.tokenizers().register(ANALYZER_NAME, analyzer());
        let writer = index.writer_with_num_threads(1, WRITER_MEMORY_BYTES)?;
        writer.set_merge_policy(Box::new(NoMergePolicy));
        Ok(NamespaceBuilder { name, index, writer, texts, keywords, ordinal, added: 0 })
    }

    /// Adds the next document; its ordinal is the number of documents added before it.
    pub fn add(&mut self, document: NewDocument<'_, TEXTS, KEYWORDS>) -> tantivy::Result<()> {
        let mut doc = TantivyDocument::new();
        for ((field, _), values) in self.texts.iter().zip(document.texts) {
            for value in values {
                doc.add_text(*field, value);
            }
        }
        for (field, values) in self.keywords.iter().zip(document.keywords) {
            for value in values {
                doc.add_text(*field, value);
            }
        }
        doc.add_u64(self.ordinal, u64::from(self.added));
        self.writer.add_document(doc)?;
        self.added += 1;
        Ok(())
    }

    pub fn finish(mut self) -> tantivy::Result<Namespace<KEYWORDS>> {
        self.writer.commit()?;
        self.writer.wait_merging_threads()?;
        let reader = self.index.reader_builder().reload_policy(ReloadPolicy::Manual).try_into()?;
        let searcher = reader.searcher();
        let mut ordinals = Vec::with_capacity(searcher.segment_readers().len());
        for segment in searcher.segment_readers() {
            let column = segment.fast_fields().u64(ORDINAL_FIELD)?;
            let mut table = Vec::with_capacity(segment.max_doc() as usize);
            for doc in 0..segment.max_doc() {
                let ordinal = column.first(doc).ok_or_else(|| {
                    tantivy::TantivyError::InternalError(format!("{}: document {doc} has no ordinal", self.name))
                })?;
                table.push(ordinal as u32);
            }
            ordinals.push(table);
        }
        Ok(Namespace { name: self.name, searcher, texts: self.texts.to_vec(), keywords: self.keywords, ordinals })
    }
}

/// A built namespace. One [`Searcher`] serves every query: the index never changes after it is
/// built.
pub(crate) struct Namespace<const KEYWORDS: usize> {
    name: &'static str,
    searcher: Searcher,
    texts: Vec<(Field, Score)>,
    keywords: [Field; KEYWORDS],
    /// Per segment of the searcher, the ordinal of each of its documents.
    ordinals: Vec<Vec<u32>>,
}

/// A document that matched: its ordinal and BM25 score (0 when it passed the filter without
/// matching any term).
#[derive(Debug, Clone, Copy, PartialEq)]
pub(crate) struct Scored {
    pub ordinal: u32,
    pub score: f64,
}

impl<const KEYWORDS: usize> Namespace<KEYWORDS> {
    pub fn name(&self) -> &'static str {
        self.name
    }

    /// In how many documents an analyzed `term` occurs, in any searchable field.
    pub fn doc_freq(&self, term: &str) -> u64 {
        self.texts
            .iter()
            .map(|&(field, _)| self.searcher.doc_freq(&Term::from_field_text(field, term)).unwrap_or(0))
            .max()
            .unwrap_or(0)
    }

    /// Documents whose keyword field `keyword` (by declaration order) is one of `values`.
    ///
    /// A union of term queries: for the handful of values a scope has, it is several times
    /// faster than tantivy's `TermSetQuery`, which compiles the set into an automaton and walks
    /// the term dictionary with it.
    pub fn keyword_in(&self, keyword: usize, values: &[String]) -> Box<dyn TantivyQuery> {
        Box::new(BooleanQuery::union(values.iter().map(|value| self.keyword_is(keyword, value)).collect()))
    }

    /// Documents whose keyword field `keyword` (by declaration order) is `value`.
    pub fn keyword_is(&self, keyword: usize, value: &str) -> Box<dyn TantivyQuery> {
        Box::new(TermQuery::new(Term::from_field_text(self.keywords[keyword], value), IndexRecordOption::Basic))
    }

    /// BM25 over the searchable fields for analyzed `terms`. With a filter, every document that
    /// passes it is returned (score 0 when no term matched); without one, only documents that
    /// match a term. Unordered.
    pub fn search(&self, terms: &[String], filter: Option<Box<dyn TantivyQuery>>) -> tantivy::Result<Vec<Scored>> {
        if terms.is_empty() && filter.is_none() {
            return Ok(Vec::new());
        }
        let mut clauses: Vec<(Occur, Box<dyn TantivyQuery>)> = Vec::with_capacity(terms.len() * self.texts.len() + 1);
        for term in terms {
            for &(field, boost) in &self.texts {
                let query = Box::new(TermQuery::new(Term::from_field_text(field, term), IndexRecordOption::WithFreqs));
                clauses
                    .push((Occur::Should, if boost == 1.0 { query } else { Box::new(BoostQuery::new(query, boost)) }));
            }
        }
        if let Some(filter) = filter {
            // The filter decides membership only; a score of 0 keeps BM25 scores pure.
            clauses.push((Occur::Must, Box::new(ConstScoreQuery::new(filter, 0.0))));
        }
        let matches = self.searcher.search(&BooleanQuery::new(clauses), &AllMatches)?;
        let mut scored = Vec::with_capacity(matches.iter().map(|(_, docs)| docs.len()).sum());
        for (segment, docs) in matches {
            let table = &self.ordinals[segment as usize];
            scored.extend(
                docs.into_iter().map(|(doc, score)| Scored { ordinal: table[doc as usize], score: score.into() }),
            );
        }
        Ok(scored)
    }
}
