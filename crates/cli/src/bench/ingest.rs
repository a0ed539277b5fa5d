//! Ingesting a learner's own material: a 500-page PDF the benchmark writes itself (chapters,
//! sections, several paragraphs a page), read into chunks and stored, from the file's bytes
//! to the last chunk committed; then the same file again (not read: its hash is stored), and
//! the file with one page changed (read again; the chunks it still has are kept).

use super::stats::Stats;
use anyhow::Result;
use pathwise_app::App;
use pathwise_ingest::sample;
use serde_json::json;
use std::time::{Duration, Instant};

pub(crate) async fn pdf(app: &App, store: &str, pages: u32, runs: usize) -> Result<()> {
    let book = sample::book(pages);
    let mut edited_pages = sample::book_pages(pages);
    edited_pages[pages as usize / 2] = sample::SamplePage::new(vec![sample::SampleParagraph::body(
        "This page was rewritten since the last ingestion.",
    )]);
    let edited = sample::pdf(&edited_pages);
    let mut first = Vec::new();
    let mut unchanged = Vec::new();
    let mut one_page = Vec::new();
    let mut chunks = 0;
    let mut kept = 0;
    for run in 0..runs {
        let learner = app.create_learner(&format!("ingest {run}")).await?.learner.id;
        let started = Instant::now();
        let ingested = app.documents().ingest(learner, "book.pdf", book.clone()).await?;
        first.push(started.elapsed());
        chunks = ingested.added;
        let started = Instant::now();
        app.documents().ingest(learner, "book.pdf", book.clone()).await?;
        unchanged.push(started.elapsed());
        let started = Instant::now();
        kept = app.documents().ingest(learner, "book.pdf", edited.clone()).await?.kept;
        one_page.push(started.elapsed());
    }
    let print = |bench: &str, latencies: Vec<Duration>| {
        let elapsed = latencies.iter().sum();
        Stats { ops: latencies.len(), concurrency: 1, elapsed, latencies }.print(
            bench,
            store,
            json!({ "pages": pages, "bytes": book.len(), "chunks": chunks, "kept_after_one_page_changed": kept }),
        );
    };
    print("ingest_pdf", first);
    print("ingest_pdf_unchanged", unchanged);
    print("ingest_pdf_one_page_changed", one_page);
    Ok(())
}
