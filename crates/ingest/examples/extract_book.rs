//! Times `extract` on a generated book: `cargo run --release -p pathwise-ingest --example
//! extract_book -- 500`. With `--show`, prints every chunk's citation and text.

use std::time::Instant;

use pathwise_ingest::{extract, sample, Limits};

fn main() {
    let mut pages = 500;
    let mut show = false;
    for argument in std::env::args().skip(1) {
        match argument.as_str() {
            "--show" => show = true,
            number => pages = number.parse().expect("the page count is a whole number"),
        }
    }
    let started = Instant::now();
    let bytes = sample::book(pages);
    let written = started.elapsed();
    let started = Instant::now();
    let extracted = extract("book.pdf", &bytes, &Limits::default()).expect("the sample book is readable");
    let extracted_in = started.elapsed();
    if show {
        for chunk in &extracted.chunks {
            println!("[{}] {}\n{}\n", chunk.ordinal, chunk.citation("book.pdf"), chunk.text);
        }
    }
    println!(
        "book({pages}): {} bytes written in {written:.2?}; {} chunks extracted in {extracted_in:.2?}",
        bytes.len(),
        extracted.chunks.len()
    );
}
