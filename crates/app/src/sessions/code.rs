//! Programming items (14, phase 1B): the learner's code runs in the sandbox against the
//! item's generated tests; credit is the share of tests passed. Only the test inputs enter
//! the sandbox; the outputs are compared outside it.

use super::bank::{BankItem, Scored};
use crate::StoreHandle;
use crate::{App, AppError, AppResult, ErrorCode, ErrorKind};
use pathwise_sandbox::{Submission, TestCase};
use pathwise_store::MapStore;
use serde_json::json;

pub(crate) async fn run<S: StoreHandle + MapStore>(app: &App<S>, item: &BankItem, code: &str) -> AppResult<Scored> {
    let task = item.code.as_ref().ok_or_else(|| {
        AppError::invalid("response.code", format!("item {} is not a code item; answer it with its widget", item.id))
    })?;
    let sandbox = app.sandbox().ok_or_else(|| {
        AppError::new(
            ErrorKind::Unavailable,
            ErrorCode::SandboxUnavailable,
            "code items need the sandbox, which is not available on this server (it needs python3 and Linux \
             namespaces, landlock and seccomp); the server log says which is missing",
        )
    })?;
    let submission = Submission { code: code.to_string(), function_name: task.function_name.clone() };
    let tests: Vec<TestCase> = task
        .tests
        .iter()
        .map(|t| TestCase { input: serde_json::Value::Array(t.input.clone()), expected: t.expected.clone() })
        .collect();
    let item_id = item.id.clone();
    let report = tokio::task::spawn_blocking(move || sandbox.run_tests(&submission, &tests))
        .await
        .map_err(|e| AppError::internal(format!("the sandbox task failed: {e}")))?
        .map_err(|e| match e {
            pathwise_sandbox::SandboxError::CodeTooLarge { .. } => AppError::invalid("response.code", e),
            e if e.is_unavailable() => {
                AppError::new(ErrorKind::Unavailable, ErrorCode::SandboxUnavailable, e.to_string())
            }
            // The item's own tests or function name are wrong: a bug in the item, not the answer.
            e => AppError::internal(format!("item {} could not be run: {e}", item_id)),
        })?;
    let check = item.check_tests(report.passed, report.total).map_err(|e| AppError::internal(e.to_string()))?;
    Ok(Scored {
        correct: check.correct,
        credit: check.credit,
        expected: check.expected,
        detail: json!({ "passed": report.passed, "total": report.total, "limit": report.limit, "cases": report.cases }),
    })
}

/// What an evaluation keeps of a code run for its results: the counts and the limit, not
/// the hidden tests' inputs.
pub(crate) fn summary(detail: &serde_json::Value) -> Option<serde_json::Value> {
    let passed = detail.get("passed")?;
    Some(json!({ "passed": passed, "total": detail["total"], "limit": detail["limit"] }))
}
