//! Review logs in CSV: the header `item_id,timestamp,grade` (or `item_id,timestamp,grade,rating`),
//! then one row per response.
//!
//! Timestamps are RFC 3339; grades are SM-2 qualities, integers 0 to 5 (3 or more is a
//! successful recall). The optional `rating` is FSRS's (`again`, `hard`, `good`, `easy`);
//! without it a grade states its rating (5 is Easy). Pathwise writes it, because its
//! automatic grades of 5 are Good (`domain::evidence`). Each item's chronologically first row is its introduction (first
//! learning), not a review. Rows may come in any order: the parser groups them by item and
//! sorts each item's rows by time (stably, so rows at the same instant keep file order).
//!
//! Parsing and writing use the `csv` crate rather than splitting on commas, so that an
//! item id holding a comma or a quote survives the round trip. Whitespace around fields is
//! trimmed.

use chrono::{DateTime, SecondsFormat, Utc};
use pathwise_domain::evidence::Rating;
use pathwise_domain::mastery::Quality;
use std::collections::BTreeMap;
use thiserror::Error;

/// The header of a review log without ratings.
pub const HEADER: &str = "item_id,timestamp,grade";
/// The header of a review log with ratings, as Pathwise writes it.
pub const HEADER_WITH_RATING: &str = "item_id,timestamp,grade,rating";
/// The highest grade (SM-2 quality); grades run from 0 to this.
pub const MAX_GRADE: u8 = 5;
/// The lowest grade that counts as a successful recall.
pub const PASSING_GRADE: u8 = pathwise_domain::mastery::Quality::PASS.value();

/// One row of a review log.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ReviewRow {
    pub item_id: String,
    pub timestamp: DateTime<Utc>,
    pub grade: u8,
    pub rating: Rating,
}

impl ReviewRow {
    /// A row whose grade states its rating (5 is Easy), as in a log without ratings.
    pub fn graded(item_id: impl Into<String>, timestamp: DateTime<Utc>, grade: u8) -> ReviewRow {
        ReviewRow { item_id: item_id.into(), timestamp, grade, rating: Rating::stated(Quality::of(grade)) }
    }
}

/// One response to an item: when, the grade given (SM-2 reads it) and its rating (FSRS
/// reads it).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ReviewEvent {
    pub timestamp: DateTime<Utc>,
    pub grade: u8,
    pub rating: Rating,
}

/// One item's responses in time order: `events[0]` is its introduction, the rest reviews.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ItemHistory {
    pub item_id: String,
    pub events: Vec<ReviewEvent>,
}

impl ItemHistory {
    /// The reviews, i.e. every event after the introduction.
    pub fn reviews(&self) -> &[ReviewEvent] {
        self.events.get(1..).unwrap_or_default()
    }
}

/// A parsed review log: items in id order, each with its events in time order.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ReviewLog {
    items: Vec<ItemHistory>,
}

impl ReviewLog {
    /// Groups rows by item and sorts each item's rows by time.
    pub fn from_rows(rows: impl IntoIterator<Item = ReviewRow>) -> ReviewLog {
        let mut by_item: BTreeMap<String, Vec<ReviewEvent>> = BTreeMap::new();
        for row in rows {
            by_item.entry(row.item_id).or_default().push(ReviewEvent {
                timestamp: row.timestamp,
                grade: row.grade,
                rating: row.rating,
            });
        }
        let items = by_item
            .into_iter()
            .map(|(item_id, mut events)| {
                events.sort_by_key(|event| event.timestamp);
                ItemHistory { item_id, events }
            })
            .collect();
        ReviewLog { items }
    }

    pub fn items(&self) -> &[ItemHistory] {
        &self.items
    }

    /// How many reviews the log holds (rows that are not an item's introduction).
    pub fn review_count(&self) -> usize {
        self.items.iter().map(|item| item.reviews().len()).sum()
    }

    /// The log as it stood just before `at`: the responses before it.
    pub fn before(&self, at: DateTime<Utc>) -> ReviewLog {
        let items = self
            .items
            .iter()
            .map(|item| ItemHistory {
                item_id: item.item_id.clone(),
                events: item.events.iter().copied().filter(|event| event.timestamp < at).collect(),
            })
            .filter(|item| !item.events.is_empty())
            .collect();
        ReviewLog { items }
    }

    /// Every row, item by item, each item's rows in time order.
    pub fn rows(&self) -> Vec<ReviewRow> {
        self.items
            .iter()
            .flat_map(|item| {
                item.events.iter().map(|event| ReviewRow {
                    item_id: item.item_id.clone(),
                    timestamp: event.timestamp,
                    grade: event.grade,
                    rating: event.rating,
                })
            })
            .collect()
    }
}

/// What is wrong with a review log, and where.
#[derive(Debug, Clone, PartialEq, Eq, Error)]
pub enum ReviewLogError {
    #[error("line 1: the log is empty; expected the header `{HEADER}` and at least one row")]
    Empty,
    #[error("line {line}: expected the header `{HEADER}` or `{HEADER_WITH_RATING}`, found `{found}`")]
    BadHeader { line: u64, found: String },
    #[error("line {line}: no review rows after the header; expected at least one row `item_id,timestamp,grade`")]
    NoRows { line: u64 },
    #[error("line {line}: expected {expected} columns, as in the header, found {found}")]
    ColumnCount { line: u64, expected: usize, found: usize },
    #[error("line {line}: item_id is empty; expected a non-empty identifier")]
    EmptyItemId { line: u64 },
    #[error("line {line}: timestamp `{found}` is not RFC 3339; expected e.g. 2026-03-01T10:00:00Z or 2026-03-01T11:00:00+01:00")]
    BadTimestamp { line: u64, found: String },
    #[error("line {line}: grade `{found}` is not allowed; expected an integer from 0 to 5 (3 or more is a recall)")]
    BadGrade { line: u64, found: String },
    #[error("line {line}: rating `{found}` is not allowed; expected again, hard, good or easy")]
    BadRating { line: u64, found: String },
    #[error("line {line}: unreadable CSV: {message}")]
    Csv { line: u64, message: String },
}

impl ReviewLogError {
    /// The line (counted from 1) the error is on.
    pub fn line(&self) -> u64 {
        match self {
            ReviewLogError::Empty => 1,
            ReviewLogError::BadHeader { line, .. }
            | ReviewLogError::NoRows { line }
            | ReviewLogError::ColumnCount { line, .. }
            | ReviewLogError::EmptyItemId { line }
            | ReviewLogError::BadTimestamp { line, .. }
            | ReviewLogError::BadGrade { line, .. }
            | ReviewLogError::BadRating { line, .. }
            | ReviewLogError::Csv { line, .. } => *line,
        }
    }
}

/// Parses a review log; the first error found is returned.
pub fn parse_review_log(text: &str) -> Result<ReviewLog, ReviewLogError> {
    let mut reader =
        csv::ReaderBuilder::new().has_headers(false).flexible(true).trim(csv::Trim::All).from_reader(text.as_bytes());
    let mut records = reader.records();
    let header = match records.next() {
        None => return Err(ReviewLogError::Empty),
        Some(record) => record.map_err(|error| csv_error(text, error))?,
    };
    let header_line = line_of(text, &header);
    let found = header.iter().collect::<Vec<_>>().join(",");
    let columns = match found.as_str() {
        HEADER => 3,
        HEADER_WITH_RATING => 4,
        _ => return Err(ReviewLogError::BadHeader { line: header_line, found }),
    };
    let mut rows = Vec::new();
    for record in records {
        let record = record.map_err(|error| csv_error(text, error))?;
        rows.push(parse_row(&record, columns, line_of(text, &record))?);
    }
    if rows.is_empty() {
        return Err(ReviewLogError::NoRows { line: header_line + 1 });
    }
    Ok(ReviewLog::from_rows(rows))
}

fn parse_row(record: &csv::StringRecord, columns: usize, line: u64) -> Result<ReviewRow, ReviewLogError> {
    let [item_id, timestamp, grade, rating] = [0, 1, 2, 3].map(|i| record.get(i).unwrap_or_default());
    if record.len() != columns {
        return Err(ReviewLogError::ColumnCount { line, expected: columns, found: record.len() });
    }
    if item_id.is_empty() {
        return Err(ReviewLogError::EmptyItemId { line });
    }
    let timestamp = DateTime::parse_from_rfc3339(timestamp)
        .map_err(|_| ReviewLogError::BadTimestamp { line, found: timestamp.to_string() })?
        .with_timezone(&Utc);
    let grade = grade
        .parse::<u8>()
        .ok()
        .filter(|grade| *grade <= MAX_GRADE)
        .ok_or_else(|| ReviewLogError::BadGrade { line, found: grade.to_string() })?;
    let row = ReviewRow::graded(item_id, timestamp, grade);
    if columns == 3 {
        return Ok(row);
    }
    let rating = Rating::parse(rating).ok_or_else(|| ReviewLogError::BadRating { line, found: rating.to_string() })?;
    Ok(ReviewRow { rating, ..row })
}

/// The line a record starts on, counted from its byte offset: the csv crate's own line
/// count misses blank lines in CRLF files, and its offset may point at the line break
/// before the record.
fn line_of(text: &str, record: &csv::StringRecord) -> u64 {
    record.position().map_or(1, |position| line_at(text, position.byte()))
}

fn line_at(text: &str, byte: u64) -> u64 {
    let bytes = text.as_bytes();
    let mut end = usize::try_from(byte).unwrap_or(usize::MAX).min(bytes.len());
    while end < bytes.len() && matches!(bytes[end], b'\r' | b'\n') {
        end += 1;
    }
    bytes[..end].iter().filter(|&&b| b == b'\n').count() as u64 + 1
}

fn csv_error(text: &str, error: csv::Error) -> ReviewLogError {
    let line = error.position().map_or(1, |position| line_at(text, position.byte()));
    ReviewLogError::Csv { line, message: error.to_string() }
}

/// Writes rows, in the order given, in the format [`parse_review_log`] reads. Timestamps are
/// written in UTC (`2026-03-01T10:00:00Z`, with fractional seconds only when present).
pub fn write_review_log(rows: &[ReviewRow]) -> String {
    let mut writer = csv::WriterBuilder::new().terminator(csv::Terminator::Any(b'\n')).from_writer(Vec::new());
    let header: Vec<&str> = HEADER_WITH_RATING.split(',').collect();
    // Writing to a Vec cannot fail.
    writer.write_record(&header).expect("writing to memory");
    for row in rows {
        let timestamp = row.timestamp.to_rfc3339_opts(SecondsFormat::AutoSi, true);
        writer
            .write_record([row.item_id.as_str(), &timestamp, &row.grade.to_string(), row.rating.as_str()])
            .expect("writing to memory");
    }
    let bytes = writer.into_inner().expect("writing to memory");
    String::from_utf8(bytes).expect("the CSV writer only writes the UTF-8 it is given")
}

#[cfg(test)]
mod tests {
    use super::*;

    fn at(text: &str) -> DateTime<Utc> {
        DateTime::parse_from_rfc3339(text).unwrap().with_timezone(&Utc)
    }

    fn error_of(text: &str) -> ReviewLogError {
        parse_review_log(text).unwrap_err()
    }

    #[test]
    fn rows_in_any_order_are_grouped_by_item_and_sorted_by_time() {
        let log = parse_review_log(
            "item_id,timestamp,grade\n\
             b,2026-03-05T10:00:00Z,4\n\
             a,2026-03-02T10:00:00Z,3\n\
             a,2026-03-01T10:00:00Z,5\n\
             b,2026-03-01T09:00:00+00:00,2\n",
        )
        .unwrap();
        let items = log.items();
        assert_eq!(items.len(), 2);
        assert_eq!(items[0].item_id, "a");
        let first = ReviewEvent { timestamp: at("2026-03-01T10:00:00Z"), grade: 5, rating: Rating::Easy };
        assert_eq!(items[0].events[0], first);
        let review = ReviewEvent { timestamp: at("2026-03-02T10:00:00Z"), grade: 3, rating: Rating::Hard };
        assert_eq!(items[0].reviews(), &[review]);
        assert_eq!(items[1].events.iter().map(|e| e.grade).collect::<Vec<_>>(), vec![2, 4]);
        assert_eq!(log.review_count(), 2);
    }

    #[test]
    fn offsets_are_converted_to_utc_and_whitespace_is_trimmed() {
        let log = parse_review_log("item_id, timestamp ,grade\n x , 2026-03-01T11:00:00+01:00 , 4 \n").unwrap();
        assert_eq!(log.items()[0].item_id, "x");
        assert_eq!(log.items()[0].events[0].timestamp, at("2026-03-01T10:00:00Z"));
    }

    #[test]
    fn an_item_with_one_row_has_an_introduction_and_no_reviews() {
        let log = parse_review_log("item_id,timestamp,grade\nx,2026-03-01T10:00:00Z,0\n").unwrap();
        assert_eq!(log.items()[0].reviews(), &[]);
        assert_eq!(log.review_count(), 0);
    }

    #[test]
    fn empty_text_is_rejected_as_an_empty_log() {
        assert_eq!(error_of(""), ReviewLogError::Empty);
        assert!(error_of("").to_string().starts_with("line 1: the log is empty"));
    }

    #[test]
    fn a_header_without_rows_is_rejected_naming_the_line_after_it() {
        let error = error_of("item_id,timestamp,grade\n");
        assert_eq!(error, ReviewLogError::NoRows { line: 2 });
        assert!(error.to_string().contains("at least one row"), "{error}");
    }

    #[test]
    fn a_wrong_header_is_rejected_showing_the_expected_one() {
        let error = error_of("item,time,grade\nx,2026-03-01T10:00:00Z,4\n");
        assert_eq!(error, ReviewLogError::BadHeader { line: 1, found: "item,time,grade".into() });
        assert_eq!(
            error.to_string(),
            "line 1: expected the header `item_id,timestamp,grade` or `item_id,timestamp,grade,rating`, found \
             `item,time,grade`"
        );
    }

    #[test]
    fn a_missing_header_is_rejected_on_line_one() {
        let error = error_of("x,2026-03-01T10:00:00Z,4\n");
        assert!(matches!(error, ReviewLogError::BadHeader { line: 1, .. }), "{error:?}");
    }

    #[test]
    fn a_row_with_the_wrong_column_count_names_its_line_and_the_columns() {
        let error = error_of("item_id,timestamp,grade\nx,2026-03-01T10:00:00Z,4\ny,2026-03-01T10:00:00Z\n");
        assert_eq!(error, ReviewLogError::ColumnCount { line: 3, expected: 3, found: 2 });
        assert_eq!(error.to_string(), "line 3: expected 3 columns, as in the header, found 2");
        assert_eq!(
            error_of("item_id,timestamp,grade\nx,2026-03-01T10:00:00Z,4,extra\n"),
            ReviewLogError::ColumnCount { line: 2, expected: 3, found: 4 }
        );
        assert_eq!(
            error_of("item_id,timestamp,grade,rating\nx,2026-03-01T10:00:00Z,4\n"),
            ReviewLogError::ColumnCount { line: 2, expected: 4, found: 3 }
        );
    }

    #[test]
    fn a_bad_timestamp_names_its_line_and_the_format() {
        let error = error_of("item_id,timestamp,grade\nx,2026-03-01 10:00,4\n");
        assert_eq!(error, ReviewLogError::BadTimestamp { line: 2, found: "2026-03-01 10:00".into() });
        assert!(error.to_string().contains("is not RFC 3339; expected e.g. 2026-03-01T10:00:00Z"), "{error}");
    }

    #[test]
    fn a_grade_out_of_range_or_not_an_integer_names_its_line_and_the_range() {
        let error = error_of("item_id,timestamp,grade\nx,2026-03-01T10:00:00Z,6\n");
        assert_eq!(error, ReviewLogError::BadGrade { line: 2, found: "6".into() });
        assert_eq!(
            error.to_string(),
            "line 2: grade `6` is not allowed; expected an integer from 0 to 5 (3 or more is a recall)"
        );
        for bad in ["-1", "3.5", "good", ""] {
            let text = format!("item_id,timestamp,grade\nx,2026-03-01T10:00:00Z,{bad}\n");
            assert_eq!(error_of(&text), ReviewLogError::BadGrade { line: 2, found: bad.into() });
        }
    }

    #[test]
    fn a_rating_column_is_read_and_an_unknown_rating_names_the_four() {
        let log = parse_review_log("item_id,timestamp,grade,rating\nx,2026-03-01T10:00:00Z,5,good\n").unwrap();
        assert_eq!((log.items()[0].events[0].grade, log.items()[0].events[0].rating), (5, Rating::Good));
        let error = error_of("item_id,timestamp,grade,rating\nx,2026-03-01T10:00:00Z,5,great\n");
        assert_eq!(error, ReviewLogError::BadRating { line: 2, found: "great".into() });
        assert!(error.to_string().contains("expected again, hard, good or easy"), "{error}");
    }

    #[test]
    fn an_empty_item_id_is_rejected() {
        assert_eq!(
            error_of("item_id,timestamp,grade\n,2026-03-01T10:00:00Z,4\n"),
            ReviewLogError::EmptyItemId { line: 2 }
        );
    }

    #[test]
    fn line_numbers_count_blank_lines_and_crlf_files_parse() {
        let error = error_of("item_id,timestamp,grade\r\n\r\nx,2026-03-01T10:00:00Z,4\r\ny,yesterday,4\r\n");
        assert_eq!(error.line(), 4, "{error}");
        assert_eq!(error_of("item_id,timestamp,grade\n\n\nx,2026-03-01T10:00:00Z,9\n").line(), 4);
        assert!(parse_review_log("item_id,timestamp,grade\r\nx,2026-03-01T10:00:00Z,4\r\n").is_ok());
    }

    #[test]
    fn written_logs_parse_back_to_the_same_rows() {
        let rows = vec![
            ReviewRow::graded("plain", at("2026-03-01T10:00:00Z"), 4),
            ReviewRow::graded("with, comma \"and quote\"", at("2026-03-01T10:00:00.250Z"), 0),
            ReviewRow { rating: Rating::Good, ..ReviewRow::graded("plain", at("2026-03-03T10:00:00Z"), 5) },
        ];
        let text = write_review_log(&rows);
        assert!(text.starts_with("item_id,timestamp,grade,rating\nplain,2026-03-01T10:00:00Z,4,good\n"), "{text}");
        let parsed = parse_review_log(&text).unwrap();
        assert_eq!(parsed.rows(), vec![rows[0].clone(), rows[2].clone(), rows[1].clone()]);
        assert_eq!(parse_review_log(&write_review_log(&parsed.rows())).unwrap(), parsed);
    }
}
