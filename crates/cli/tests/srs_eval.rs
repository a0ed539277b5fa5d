//! `pathwise srs-eval` as a user runs it: on a review log in a temporary directory, as a
//! table, as JSON, and on files it must refuse.

mod common;

use common::{run_subcommand, text};
use serde_json::Value;
use std::path::Path;
use std::process::Output;

fn srs_eval(dir: &Path, args: &[&str]) -> Output {
    run_subcommand(dir, "srs-eval", args)
}

/// A deterministic log: 60 items introduced over the first month, each reviewed every few
/// days, forgotten when a review comes late (which a linear congruential generator decides).
fn review_log() -> String {
    let mut state: u64 = 42;
    let mut next = move || {
        state = state.wrapping_mul(6_364_136_223_846_793_005).wrapping_add(1_442_695_040_888_963_407);
        (state >> 33) as f64 / (1u64 << 31) as f64
    };
    let mut csv = String::from("item_id,timestamp,grade\n");
    for item in 0..60 {
        let mut hour = (next() * 30.0 * 24.0) as i64;
        let mut stability_hours = 72.0;
        csv.push_str(&format!("card-{item},{},4\n", timestamp(hour)));
        for _ in 0..8 {
            let gap = (stability_hours * (0.2 + next())) as i64 + 24;
            hour += gap;
            let recalled = next() < (-(gap as f64) / (stability_hours * 3.0)).exp();
            let grade = if recalled { 3 + (next() * 3.0) as u8 } else { (next() * 3.0) as u8 };
            stability_hours = if recalled { stability_hours * 2.2 } else { 72.0 };
            csv.push_str(&format!("card-{item},{},{grade}\n", timestamp(hour)));
        }
    }
    csv
}

fn timestamp(hours_after_start: i64) -> String {
    let start = chrono::DateTime::parse_from_rfc3339("2026-01-01T00:00:00Z").unwrap();
    (start + chrono::Duration::hours(hours_after_start)).to_rfc3339_opts(chrono::SecondsFormat::Secs, true)
}

#[test]
fn srs_eval_prints_a_table_of_the_three_schedulers_with_the_split() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("log.csv"), review_log()).unwrap();
    let output = srs_eval(dir.path(), &["log.csv"]);
    let (stdout, stderr) = (text(&output.stdout), text(&output.stderr));
    assert!(output.status.success(), "stdout: {stdout}\nstderr: {stderr}");
    assert!(stdout.contains("60 items, 480 reviews: the 240 before"), "{stdout}");
    assert!(stdout.contains("scored on the 240 after"), "{stdout}");
    let header = stdout.lines().find(|line| line.starts_with("scheduler")).expect("a header row");
    for column in ["log loss", "RMSE(bins)", "AUC"] {
        assert!(header.contains(column), "{header}");
    }
    for scheduler in ["sm2", "fsrs_default", "fsrs_fitted", "fsrs_refitted"] {
        let row = stdout.lines().find(|line| line.starts_with(&format!("{scheduler} "))).expect(scheduler);
        let figures: Vec<f64> = row.split_whitespace().skip(1).filter_map(|cell| cell.parse().ok()).collect();
        assert_eq!(figures.len(), 3, "{row}");
    }
    assert!(stdout.contains("lowest log loss: "), "{stdout}");
    assert!(stdout.contains("the scored reviews in 4 periods, each predicted with the parameters fitted"), "{stdout}");
}

#[test]
fn srs_eval_json_prints_one_object_with_each_scheduler_under_its_name() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("log.csv"), review_log()).unwrap();
    let output = srs_eval(dir.path(), &["log.csv", "--json"]);
    let stdout = text(&output.stdout);
    assert!(output.status.success(), "stdout: {stdout}\nstderr: {}", text(&output.stderr));
    assert_eq!(stdout.trim().lines().count(), 1, "one line: {stdout}");
    let report: Value = serde_json::from_str(stdout.trim()).expect("stdout is one JSON object");
    assert_eq!(report["evaluated"], true);
    assert_eq!(report["items"], 60);
    assert_eq!(report["reviews"], 480);
    assert_eq!(report["fitting_reviews"], 240);
    assert_eq!(report["scored_reviews"], 240);
    assert_eq!(report["fsrs_fitted"]["available"], true, "{report}");
    for scheduler in ["sm2", "fsrs_default", "fsrs_fitted", "fsrs_refitted"] {
        for figure in ["log_loss", "rmse_bins", "auc"] {
            let value = report[scheduler][figure].as_f64().unwrap_or_else(|| panic!("{scheduler}.{figure}: {report}"));
            assert!(value.is_finite() && value >= 0.0, "{scheduler}.{figure} = {value}");
        }
    }
    assert_eq!(report["fsrs_fitted"]["parameters"].as_array().map(Vec::len), Some(21));
    // 240 reviews before the scored ones: every period is predicted with a fit of its own.
    assert_eq!(
        (report["fsrs_refitted"]["periods"].as_u64(), report["fsrs_refitted"]["periods_fitted"].as_u64()),
        (Some(4), Some(4)),
        "{report}"
    );
}

#[test]
fn srs_eval_reports_fsrs_fitted_unavailable_on_a_log_too_small_to_fit() {
    let dir = tempfile::tempdir().unwrap();
    let csv = "item_id,timestamp,grade\n\
               a,2026-01-01T10:00:00Z,4\n\
               a,2026-01-02T10:00:00Z,4\n\
               a,2026-01-08T10:00:00Z,2\n\
               b,2026-01-01T10:00:00Z,5\n\
               b,2026-01-05T10:00:00Z,4\n";
    std::fs::write(dir.path().join("small.csv"), csv).unwrap();
    let output = srs_eval(dir.path(), &["small.csv", "--json"]);
    assert!(output.status.success(), "stderr: {}", text(&output.stderr));
    let report: Value = serde_json::from_slice(&output.stdout).unwrap();
    assert_eq!(report["fsrs_fitted"]["available"], false);
    assert!(report["fsrs_fitted"]["reason"].as_str().unwrap().contains("too few reviews"), "{report}");
    assert!(report["sm2"]["log_loss"].is_number());

    let table = text(&srs_eval(dir.path(), &["small.csv"]).stdout);
    assert!(table.contains("fsrs_fitted    unavailable: too few reviews"), "{table}");
}

#[test]
fn srs_eval_on_a_fresh_export_says_there_is_nothing_to_evaluate_yet_and_exits_0() {
    let dir = tempfile::tempdir().unwrap();
    let data = dir.path().join("data");
    let data = data.to_str().unwrap();
    // A new learner's export: the header alone.
    let export = run_subcommand(dir.path(), "export-reviews", &["--data-dir", data]);
    assert!(export.status.success(), "stderr: {}", text(&export.stderr));
    std::fs::write(dir.path().join("fresh.csv"), &export.stdout).unwrap();
    let output = srs_eval(dir.path(), &["fresh.csv"]);
    let (stdout, stderr) = (text(&output.stdout), text(&output.stderr));
    assert_eq!(output.status.code(), Some(0), "stdout: {stdout}\nstderr: {stderr}");
    assert!(stdout.starts_with("nothing to evaluate yet in fresh.csv: the log has no responses yet"), "{stdout}");
    assert!(stderr.is_empty(), "{stderr}");
    let output = srs_eval(dir.path(), &["fresh.csv", "--json"]);
    assert_eq!(output.status.code(), Some(0));
    let report: Value = serde_json::from_slice(&output.stdout).expect("one JSON object");
    assert_eq!(
        (report["evaluated"].as_bool(), report["items"].as_u64(), report["reviews"].as_u64()),
        (Some(false), Some(0), Some(0))
    );

    // A few answers, each concept once: every item has its introduction and no review.
    let csv = "item_id,timestamp,grade\n\
               a,2026-01-01T10:00:00Z,4\n\
               b,2026-01-01T10:05:00Z,2\n";
    std::fs::write(dir.path().join("introductions.csv"), csv).unwrap();
    let output = srs_eval(dir.path(), &["introductions.csv"]);
    let stdout = text(&output.stdout);
    assert_eq!(output.status.code(), Some(0), "{stdout}{}", text(&output.stderr));
    assert!(stdout.contains("each of its 2 items has only its introduction"), "{stdout}");
    let output = srs_eval(dir.path(), &["introductions.csv", "--json"]);
    let report: Value = serde_json::from_slice(&output.stdout).expect("one JSON object");
    assert_eq!((report["evaluated"].as_bool(), report["items"].as_u64()), (Some(false), Some(2)), "{report}");
    assert!(report["reason"].as_str().is_some_and(|r| r.contains("introduction")), "{report}");
}

#[test]
fn srs_eval_refuses_a_bad_file_naming_it_and_the_line_and_exits_1() {
    let dir = tempfile::tempdir().unwrap();
    let csv = "item_id,timestamp,grade\na,2026-01-01T10:00:00Z,4\na,2026-01-02T10:00:00Z,9\n";
    std::fs::write(dir.path().join("bad.csv"), csv).unwrap();
    let output = srs_eval(dir.path(), &["bad.csv"]);
    assert_eq!(output.status.code(), Some(1));
    assert!(output.stdout.is_empty(), "nothing on stdout: {}", text(&output.stdout));
    assert_eq!(
        text(&output.stderr).trim(),
        "error: bad.csv: line 3: grade `9` is not allowed; expected an integer from 0 to 5 (3 or more is a recall)"
    );

    std::fs::write(dir.path().join("header.csv"), "id,when,grade\na,2026-01-01T10:00:00Z,4\n").unwrap();
    let output = srs_eval(dir.path(), &["header.csv", "--json"]);
    assert_eq!(output.status.code(), Some(1));
    assert_eq!(
        text(&output.stderr).trim(),
        "error: header.csv: line 1: expected the header `item_id,timestamp,grade` or `item_id,timestamp,grade,rating`, \
         found `id,when,grade`"
    );

    let output = srs_eval(dir.path(), &["missing.csv"]);
    assert_eq!(output.status.code(), Some(1));
    assert!(text(&output.stderr).starts_with("error: cannot read missing.csv"), "{}", text(&output.stderr));
}
