//! `pathwise cat-sim` as a user runs it: on a generated bank and abilities in a temporary
//! directory, and on files it must refuse.

mod common;

use common::{run_subcommand, text};
use serde_json::Value;
use std::path::Path;
use std::process::Output;

fn cat_sim(dir: &Path, args: &[&str]) -> Output {
    run_subcommand(dir, "cat-sim", args)
}

/// A uniform draw in [0, 1) from a linear congruential generator, for reproducible files.
fn uniform(state: &mut u64) -> f64 {
    *state = state.wrapping_mul(6_364_136_223_846_793_005).wrapping_add(1_442_695_040_888_963_407);
    (*state >> 11) as f64 / (1u64 << 53) as f64
}

/// 150 3PL items with a in [0.8, 2.0], b in [-2.5, 2.5], c in [0.1, 0.25].
fn bank() -> String {
    let mut state = 42;
    let items: Vec<Value> = (0..150)
        .map(|_| {
            let a = 0.8 + 1.2 * uniform(&mut state);
            let b = -2.5 + 5.0 * uniform(&mut state);
            let c = 0.1 + 0.15 * uniform(&mut state);
            serde_json::json!({ "a": a, "b": b, "c": c })
        })
        .collect();
    serde_json::to_string(&items).unwrap()
}

/// 200 abilities spread over [-2, 2].
fn thetas() -> String {
    let mut state = 7;
    let thetas: Vec<f64> = (0..200).map(|_| -2.0 + 4.0 * uniform(&mut state)).collect();
    serde_json::to_string(&thetas).unwrap()
}

fn write_inputs(dir: &Path, bank: &str) {
    std::fs::write(dir.join("bank.json"), bank).unwrap();
    std::fs::write(dir.join("thetas.json"), thetas()).unwrap();
}

/// Runs on the files and returns the error message, checking that the run failed cleanly.
fn refusal(bank: &str) -> String {
    let dir = tempfile::tempdir().unwrap();
    write_inputs(dir.path(), bank);
    let output = cat_sim(dir.path(), &["--bank", "bank.json", "--thetas", "thetas.json"]);
    let (stdout, stderr) = (text(&output.stdout), text(&output.stderr));
    assert!(!output.status.success(), "stdout: {stdout}\nstderr: {stderr}");
    assert!(stdout.is_empty(), "{stdout}");
    assert!(!stderr.contains("panicked"), "{stderr}");
    stderr
}

#[test]
fn cat_sim_prints_one_report_whose_precision_grows_with_length_and_repeats_for_a_seed() {
    let dir = tempfile::tempdir().unwrap();
    write_inputs(dir.path(), &bank());
    let args = ["--bank", "bank.json", "--thetas", "thetas.json", "--seed", "9"];
    let output = cat_sim(dir.path(), &args);
    let (stdout, stderr) = (text(&output.stdout), text(&output.stderr));
    assert!(output.status.success(), "stdout: {stdout}\nstderr: {stderr}");
    let report: Value = serde_json::from_str(&stdout).expect("exactly one JSON object");
    for checkpoint in ["at_5", "at_10", "at_20", "at_30"] {
        for figure in ["bias", "rmse", "mean_se"] {
            assert!(report[checkpoint][figure].is_f64(), "{checkpoint}.{figure} in {report}");
        }
    }
    let length = report["mean_length_to_se_0.3"].as_f64().expect("mean_length_to_se_0.3");
    assert!((1.0..=60.0).contains(&length), "{length}");
    assert_eq!((report["examinees"].as_u64(), report["bank_size"].as_u64()), (Some(200), Some(150)));
    let rmse = |at: &str| report[at]["rmse"].as_f64().unwrap();
    assert!(rmse("at_30") < rmse("at_5"), "{report}");

    let again = cat_sim(dir.path(), &args);
    assert_eq!(text(&again.stdout), stdout, "the same seed gives the same report");
    let other = cat_sim(dir.path(), &["--bank", "bank.json", "--thetas", "thetas.json", "--seed", "10"]);
    assert!(other.status.success());
    assert_ne!(text(&other.stdout), stdout, "another seed draws other answers");
}

#[test]
fn cat_sim_accepts_mle_and_randomesque() {
    let dir = tempfile::tempdir().unwrap();
    write_inputs(dir.path(), &bank());
    let output = cat_sim(
        dir.path(),
        &["--bank", "bank.json", "--thetas", "thetas.json", "--estimator", "mle", "--randomesque", "3"],
    );
    assert!(output.status.success(), "{}", text(&output.stderr));
    let report: Value = serde_json::from_str(&text(&output.stdout)).unwrap();
    assert_eq!(
        (report["settings"]["estimator"].as_str(), report["settings"]["randomesque"].as_u64()),
        (Some("mle"), Some(3))
    );
}

#[test]
fn a_malformed_bank_is_refused_naming_the_file_item_and_field() {
    let stderr = refusal(r#"[{"a": 1.0, "b": 0.0}, {"a": 1.2, "b": "hard", "c": 0.2}]"#);
    assert!(stderr.contains("bank.json: item 1, field b: invalid type: string \"hard\", expected f64"), "{stderr}");
    let stderr = refusal(r#"[{"a": 1.0, "b": 0.0"#);
    assert!(stderr.contains("bank.json: "), "{stderr}");
    assert!(stderr.contains("EOF"), "{stderr}");
    let stderr = refusal(r#"{"a": 1.0, "b": 0.0}"#);
    assert!(stderr.contains("bank.json: the file: invalid type: map, expected a sequence"), "{stderr}");
    assert!(stderr.contains("a bank is a JSON array of items"), "{stderr}");
}

#[test]
fn an_item_with_c_not_below_d_is_refused_with_the_allowed_range() {
    let stderr =
        refusal(r#"[{"a": 1.0, "b": 0.0}, {"a": 1.0, "b": 0.5, "c": 0.3}, {"a": 1.0, "b": 1.0, "c": 0.5, "d": 0.4}]"#);
    assert!(stderr.contains("bank.json: item 2: c = 0.5 is not below d = 0.4; allowed: 0 <= c < d <= 1"), "{stderr}");
}

#[test]
fn an_empty_bank_is_refused() {
    let stderr = refusal("[]");
    assert!(stderr.contains("bank.json: the bank is empty; a bank needs at least one item"), "{stderr}");
}

#[test]
fn bad_abilities_and_missing_files_are_refused_naming_the_file() {
    let dir = tempfile::tempdir().unwrap();
    write_inputs(dir.path(), &bank());
    std::fs::write(dir.path().join("bad.json"), r#"[0.5, null]"#).unwrap();
    std::fs::write(dir.path().join("empty.json"), "[]").unwrap();
    let run = |thetas: &str| {
        let output = cat_sim(dir.path(), &["--bank", "bank.json", "--thetas", thetas]);
        assert!(!output.status.success());
        text(&output.stderr)
    };
    let stderr = run("bad.json");
    assert!(stderr.contains("bad.json: theta 1: invalid type: null, expected f64"), "{stderr}");
    assert!(run("empty.json").contains("empty.json: the list of abilities is empty"));
    assert!(run("missing.json").contains("cannot read missing.json"));
}
