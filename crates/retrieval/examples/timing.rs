//! How long building the index and each kind of query take on a big generated course.
//!
//! Run in release: `cargo run --release -p pathwise-retrieval --example timing`
//! (optional arguments: units questions chunks queries).

use pathwise_course::synthetic::generated_course;
use pathwise_course::{Course, Tier};
use pathwise_retrieval::{CourseIndex, Query};
use std::time::{Duration, Instant};

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let args: Vec<usize> = std::env::args().skip(1).map(|a| a.parse()).collect::<Result<_, _>>()?;
    let arg = |i: usize, default: usize| args.get(i).copied().unwrap_or(default);
    let (units, questions, chunks, queries) = (arg(0, 2_000), arg(1, 15_000), arg(2, 50_000), arg(3, 2_000));

    let started = Instant::now();
    let course = generated_course(units, questions, chunks, 42);
    println!(
        "course: {units} units, {questions} questions, {chunks} chunks, generated and checked in {:?}",
        started.elapsed()
    );

    let started = Instant::now();
    let index = CourseIndex::build(&course)?;
    println!("index: {} documents built in {:?}", index.len(), started.elapsed());

    let workload = Workload::new(&course, queries);
    let scopes: Vec<Vec<String>> = (0..queries).map(|i| workload.scope(i)).collect();
    report("map_units (all anchors, k=3)", queries, |i| index.map_units(&Query::text(&workload.messages[i]), 3).len());
    report("unit_anchors (6 units, k=6)", queries, |i| {
        index.unit_anchors(&Query::text(&workload.messages[i]), &scopes[i], 6).len()
    });
    report("unit_content_chunks (6 units, k=8)", queries, |i| {
        index.unit_content_chunks(&Query::text(&workload.messages[i]), &scopes[i], 8).len()
    });
    report("exam_candidates (unit + tier, k=10)", queries, |i| {
        let unit = &scopes[i][0];
        index.exam_candidates(&Query::text(&workload.messages[i]), unit, Tier::ALL[i % 3], 10).len()
    });
    report("unit_content_chunks, button press", queries, |i| {
        index.unit_content_chunks(&Query::text(""), &scopes[i], 8).len()
    });

    calibration(&index, &course, queries);
    Ok(())
}

/// Messages made of a unit's words, as a learner would phrase them.
struct Workload<'a> {
    course: &'a Course,
    messages: Vec<String>,
}

impl<'a> Workload<'a> {
    fn new(course: &'a Course, count: usize) -> Workload<'a> {
        let units = course.units();
        let messages = (0..count)
            .map(|i| {
                let unit = &units[(i * 7919) % units.len()];
                match i % 3 {
                    0 => format!("how do I work out the {} here?", unit.title.to_lowercase()),
                    1 => format!("I keep getting {} wrong, can you explain?", unit.tags.join(" and ")),
                    _ => unit.anchor.split(' ').take(12).collect::<Vec<_>>().join(" "),
                }
            })
            .collect();
        Workload { course, messages }
    }

    /// The message's unit, its prerequisites and nearby units: six in all, like a policy scope.
    fn scope(&self, i: usize) -> Vec<String> {
        let units = self.course.units();
        let at = (i * 7919) % units.len();
        let mut scope: Vec<String> = vec![units[at].id.clone()];
        scope.extend(units[at].prerequisites.iter().cloned());
        let mut next = at;
        while scope.len() < 6 {
            next = (next + 1) % units.len();
            if !scope.contains(&units[next].id) {
                scope.push(units[next].id.clone());
            }
        }
        scope.truncate(6);
        scope
    }
}

fn report(name: &str, queries: usize, mut run: impl FnMut(usize) -> usize) {
    for i in 0..queries.min(200) {
        std::hint::black_box(run(i)); // warm-up
    }
    let mut times: Vec<Duration> = Vec::with_capacity(queries);
    let mut hits = 0;
    for i in 0..queries {
        let started = Instant::now();
        hits += std::hint::black_box(run(i));
        times.push(started.elapsed());
    }
    times.sort();
    let at = |q: f64| times[((times.len() - 1) as f64 * q).round() as usize];
    println!(
        "{name:38} p50 {:>9.3?}  p99 {:>9.3?}  max {:>9.3?}  ({:.1} hits/query)",
        at(0.5),
        at(0.99),
        at(1.0),
        hits as f64 / queries as f64
    );
}

/// How often map_units trusts (>= 0.55) the right unit when the message is its title, and
/// how often it trusts anything when the message is a single topic word shared by many units.
fn calibration(index: &CourseIndex, course: &Course, queries: usize) {
    let units = course.units();
    let sample: Vec<_> = (0..queries.min(units.len())).map(|i| &units[(i * 7919) % units.len()]).collect();
    let trusted_title = sample
        .iter()
        .filter(|u| {
            let mapped = index.map_units(&Query::text(&u.title), 1);
            mapped.first().is_some_and(|m| m.unit_id == u.id && m.confidence >= 0.55)
        })
        .count();
    let trusted_word = sample
        .iter()
        .filter(|u| index.map_units(&Query::text(&u.tags[0]), 1).first().is_some_and(|m| m.confidence >= 0.55))
        .count();
    println!(
        "calibration: title as message -> its unit trusted {:.1}%; one topic word -> any unit trusted {:.1}%",
        100.0 * trusted_title as f64 / sample.len() as f64,
        100.0 * trusted_word as f64 / sample.len() as f64
    );
}
