//! Real Anki packages for tests: decks written by `genanki` (PyPI) with review-log rows added,
//! packaged in each format Anki writes, by `crates/anki/tests/fixtures/make_package.py`
//! under `PATHWISE_ANKI_PYTHON` (a venv's python with genanki, zstandard and pyzipper, which
//! `scripts/test` prepares).

use std::path::{Path, PathBuf};
use std::process::Command;

/// The python that makes packages.
pub const ANKI_PYTHON: &str = "PATHWISE_ANKI_PYTHON";
/// Set to `1` (CI does) to make the Anki package tests fail, rather than skip, without it.
pub const ANKI_REQUIRED: &str = "PATHWISE_ANKI_REQUIRED";

/// The script that writes packages.
pub fn package_script() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../anki/tests/fixtures/make_package.py")
}

/// The sample spec the tests share: two decks (one nested), notes of every model, review
/// rows of every kind.
pub fn sample_spec() -> serde_json::Value {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("../anki/tests/fixtures/sample.json");
    let text = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    serde_json::from_str(&text).expect("the sample spec is JSON")
}

/// The python to make packages with, or `None` to skip (a note says why); panics when none
/// is set but [`ANKI_REQUIRED`] is.
pub fn anki_python() -> Option<String> {
    let python = std::env::var(ANKI_PYTHON).ok().filter(|p| !p.trim().is_empty());
    if python.is_none() {
        if std::env::var(ANKI_REQUIRED).is_ok_and(|v| !v.is_empty() && v != "0") {
            panic!("{ANKI_REQUIRED} is set but {ANKI_PYTHON} is not: scripts/test prepares the venv with genanki");
        }
        eprintln!("note: {ANKI_PYTHON} is not set; skipping a test with real Anki packages");
    }
    python
}

/// Write the package `spec` describes (its `format` field picks the format) to `dir/name`.
pub fn make_package(python: &str, spec: &serde_json::Value, dir: &Path, name: &str) -> PathBuf {
    let spec_path = dir.join(format!("{name}.json"));
    std::fs::write(&spec_path, serde_json::to_vec_pretty(spec).expect("spec")).expect("writing the spec");
    let out = dir.join(name);
    run(python, &[spec_path.to_str().expect("utf-8 path"), out.to_str().expect("utf-8 path")]);
    out
}

/// A password-protected zip holding a collection.
pub fn make_encrypted_package(python: &str, dir: &Path) -> PathBuf {
    let out = dir.join("encrypted.apkg");
    run(python, &["--encrypted", out.to_str().expect("utf-8 path")]);
    out
}

fn run(python: &str, args: &[&str]) {
    let output = Command::new(python).arg(package_script()).args(args).output().expect("running make_package.py");
    assert!(
        output.status.success(),
        "make_package.py {args:?} failed: {}\n{}",
        String::from_utf8_lossy(&output.stderr),
        String::from_utf8_lossy(&output.stdout)
    );
}
