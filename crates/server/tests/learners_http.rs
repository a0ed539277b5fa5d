//! Learner administration over HTTP with the operator token, on both stores: the list,
//! named tokens (a revoked one answers 401 saying so), rotation, export to another server and
//! import there, deletion; every refusal a 4xx naming what was wrong, with nothing written.

mod support;

use reqwest::Method;
use serde_json::{json, Value};
use support::*;

on_both_stores!(
    the_operator_lists_learners_and_manages_their_tokens,
    a_learner_moves_to_another_server_and_is_deleted_from_the_first,
    the_operator_reads_every_job_run_with_its_learner_or_none,
    the_operator_exports_a_shipped_courses_pack_that_imports_again,
    a_learner_uploads_their_anki_reviews_and_a_file_that_is_not_a_package_is_refused,
);

/// An Anki package uploaded: the decks become the learner's maps (and nobody else's), the
/// review log their answers; the same upload again adds nothing; what is not a package is a
/// 422 that says what to export instead, and nothing is stored.
async fn a_learner_uploads_their_anki_reviews_and_a_file_that_is_not_a_package_is_refused(t: &TestApp) {
    use pathwise_test_support::anki::{anki_python, make_package, sample_spec};
    t.refused(
        Method::POST,
        "/api/me/anki-import",
        Some(&t.a),
        Body::File(b"%PDF-1.7 a document".to_vec(), "application/octet-stream"),
        (422, "not_an_anki_package"),
        &["not an Anki package", ".apkg"],
    )
    .await;
    let Some(python) = anki_python() else { return };
    let dir = tempfile::tempdir().unwrap();
    let package = std::fs::read(make_package(&python, &sample_spec(), dir.path(), "sample.apkg")).unwrap();
    let upload = || Body::File(package.clone(), "application/octet-stream");
    let imported = t.call(Method::POST, "/api/me/anki-import", Some(&t.a), upload()).await.expect(200);
    assert_eq!((imported["answers_imported"].as_u64(), imported["review_log_rows"].as_u64()), (Some(11), Some(13)));
    assert_eq!(imported["decks"].as_array().unwrap().len(), 2, "{imported}");
    assert_eq!(imported["media_files"], 1);
    let french = text(&imported["decks"][1]["mind_map_id"]);
    let map = t.get(&t.a, &format!("/api/mind-maps/{french}")).await.expect(200);
    assert_eq!(map["title"], "Languages::French", "{map}");
    t.get(&t.b, &format!("/api/mind-maps/{french}")).await.expect_error(404, "not_found", &[]);
    let again = t.call(Method::POST, "/api/me/anki-import", Some(&t.a), upload()).await.expect(200);
    assert_eq!(again["answers_imported"], 0, "{again}");
    let already = again["skipped"].as_array().unwrap().iter().find(|s| s["reason"] == "already_imported").unwrap();
    assert_eq!(already["rows"], 11, "{again}");
}

async fn operator(t: &TestApp, method: Method, path: &str, body: Option<Value>) -> Reply {
    let body = body.map_or(Body::Empty, Body::Json);
    t.call(method, path, Some(OPERATOR_TOKEN), body).await
}

async fn the_operator_lists_learners_and_manages_their_tokens(t: &TestApp) {
    t.get(&t.a, "/api/me").await.expect(200);
    let listed = operator(t, Method::GET, "/api/learners", None).await.expect(200);
    assert_eq!(listed["total"], 2, "A and B: {listed}");
    assert!(listed["items"][0]["last_active_at"].is_string(), "A has used her token: {listed}");
    assert_eq!(listed["items"][0]["active_tokens"], 1);
    let a = text(&listed["items"][0]["id"]);
    operator(t, Method::GET, "/api/learners?limit=0", None).await.expect_error(422, "invalid", &["limit"]);
    t.call(Method::GET, "/api/learners", Some(&t.a), Body::Empty).await.expect_error(
        401,
        "unauthorized",
        &["operator token"],
    );

    let tokens = operator(t, Method::GET, &format!("/api/learners/{a}/tokens"), None).await.expect(200);
    let default = text(&tokens[0]["id"]);
    assert_eq!((tokens[0]["name"].as_str(), tokens[0]["revoked_at"].is_null()), (Some("default"), true));
    assert!(tokens[0].get("token").is_none() && tokens[0].get("token_hash").is_none(), "{tokens}");

    let issued = operator(t, Method::POST, &format!("/api/learners/{a}/tokens"), Some(json!({ "name": "phone" })))
        .await
        .expect(201);
    let phone = text(&issued["token"]);
    assert_eq!(issued["name"], "phone");
    assert_eq!(t.get(&phone, "/api/me").await.expect(200)["id"], a);
    let before = t.counts().await;
    operator(t, Method::POST, &format!("/api/learners/{a}/tokens"), Some(json!({ "name": "" }))).await.expect_error(
        422,
        "invalid",
        &["name", "must not be empty"],
    );
    operator(t, Method::POST, &format!("/api/learners/{a}/tokens"), Some(json!({ "label": "x" }))).await.expect_error(
        422,
        "unknown_field",
        &["label: unknown field; allowed: name"],
    );
    let nobody = uuid::Uuid::now_v7();
    operator(t, Method::POST, &format!("/api/learners/{nobody}/tokens"), Some(json!({ "name": "x" })))
        .await
        .expect_error(404, "not_found", &["learner"]);
    operator(t, Method::GET, "/api/learners/not-a-uuid/tokens", None).await.expect_error(400, "bad_path", &["UUID"]);
    assert_eq!(t.counts().await, before, "no refusal wrote anything");

    // Revoked: a request with it is told so, and when; an unknown token is told it is unknown.
    let revoked = operator(t, Method::DELETE, &format!("/api/learners/{a}/tokens/{}", text(&issued["id"])), None)
        .await
        .expect(200);
    assert!(revoked["revoked_at"].is_string());
    let refused = t.get(&phone, "/api/me").await.expect_error(401, "token_revoked", &["revoked at", "phone"]);
    assert_eq!(refused["details"]["revoked_at"], revoked["revoked_at"]);
    t.get("pw_unknown", "/api/me").await.expect_error(401, "unauthorized", &["not valid"]);
    operator(t, Method::DELETE, &format!("/api/learners/{a}/tokens/{nobody}"), None).await.expect_error(
        404,
        "not_found",
        &["token"],
    );

    // Rotated: the new token works, the old one is revoked at the same moment.
    let rotated =
        operator(t, Method::POST, &format!("/api/learners/{a}/tokens/{default}/rotate"), None).await.expect(201);
    assert_eq!(rotated["issued"]["name"], "default");
    assert_eq!(rotated["revoked"]["revoked_at"], rotated["issued"]["created_at"]);
    t.get(&t.a, "/api/me").await.expect_error(401, "token_revoked", &["revoked at"]);
    assert_eq!(t.get(&text(&rotated["issued"]["token"]), "/api/me").await.expect(200)["id"], a);
    operator(t, Method::POST, &format!("/api/learners/{a}/tokens/{default}/rotate"), None).await.expect_error(
        409,
        "token_revoked",
        &["revoked"],
    );
}

async fn a_learner_moves_to_another_server_and_is_deleted_from_the_first(t: &TestApp) {
    let a = text(&t.get(&t.a, "/api/me").await.expect(200)["id"]);
    t.generate(&t.a, "Sets", json!({ "root": "Sets", "nodes": [{ "label": "Sets", "effort_minutes": 10 }, { "label": "Maps", "effort_minutes": 10 }],
        "edges": [{ "parent": "Sets", "child": "Maps" }] }))
        .await;
    let document = operator(t, Method::GET, &format!("/api/learners/{a}/export"), None).await.expect(200);
    assert_eq!((document["format"].as_str(), document["version"].as_u64()), (Some("pathwise-learner"), Some(1)));
    assert_eq!(document["tables"]["mind_maps"].as_array().map(Vec::len), Some(1));

    // Here already: refused whole.
    let before = t.counts().await;
    operator(t, Method::POST, "/api/learners/import", Some(document.clone())).await.expect_error(
        409,
        "learner_exists",
        &[&a],
    );
    let mut wrong = document.clone();
    wrong["tables"]["mind_maps"][0]["status"] = json!(7);
    operator(t, Method::POST, "/api/learners/import", Some(wrong)).await.expect_error(
        422,
        "invalid",
        &["tables.mind_maps[0].status", "a string"],
    );
    let mut unknown = document.clone();
    unknown["secrets"] = json!([]);
    operator(t, Method::POST, "/api/learners/import", Some(unknown)).await.expect_error(
        422,
        "unknown_field",
        &["secrets"],
    );
    // A later version's document is refused for its version, whatever fields it has.
    let mut later = document.clone();
    later["version"] = json!(2);
    later["secrets"] = json!([]);
    operator(t, Method::POST, "/api/learners/import", Some(later)).await.expect_error(
        422,
        "invalid",
        &["version 2 is not read by this server"],
    );
    assert_eq!(t.counts().await, before);

    // Another server, on a fresh SQLite store: the learner arrives whole, and her token works.
    let other = spawn_with(pathwise_test_support::TestStore::sqlite().await).await;
    let imported = other
        .call(Method::POST, "/api/learners/import", Some(OPERATOR_TOKEN), Body::Json(document.clone()))
        .await
        .expect(201);
    assert_eq!(imported["id"], a);
    assert_eq!(other.get(&t.a, "/api/mind-maps").await.expect(200)["total"], 1);
    let again = other
        .call(Method::GET, &format!("/api/learners/{a}/export"), Some(OPERATOR_TOKEN), Body::Empty)
        .await
        .expect(200);
    assert_eq!(again["tables"], document["tables"]);

    // Deleted from the first: nothing of hers is left there, B is untouched.
    let b_maps = t.get(&t.b, "/api/mind-maps").await.expect(200);
    let deleted = operator(t, Method::DELETE, &format!("/api/learners/{a}"), None).await.expect(200);
    assert_eq!(deleted["id"], a);
    t.get(&t.a, "/api/me").await.expect_error(401, "unauthorized", &[]);
    operator(t, Method::DELETE, &format!("/api/learners/{a}"), None).await.expect_error(404, "not_found", &["learner"]);
    operator(t, Method::GET, &format!("/api/learners/{a}/export"), None).await.expect_error(
        404,
        "not_found",
        &["learner"],
    );
    assert_eq!(t.get(&t.b, "/api/mind-maps").await.expect(200), b_maps);
    let listed = operator(t, Method::GET, "/api/learners", None).await.expect(200);
    assert_eq!(listed["total"], 1);
}

/// The operator token reads every job firing: the server's own (global) jobs, which no
/// learner owns, and each learner's; a learner's token reads only its own.
async fn the_operator_reads_every_job_run_with_its_learner_or_none(t: &TestApp) {
    use pathwise_domain::JobKind;
    use pathwise_store::{Job, JobStore};
    let me = t.get(&t.a, "/api/me").await.expect(200);
    let a = text(&me["id"]);
    let due = chrono::Utc::now() - chrono::Duration::minutes(1);
    let mut mine = Job::one_shot(JobKind::Noop, due, due);
    mine.learner_id = Some(serde_json::from_value(json!(a)).unwrap());
    t.app.store().insert_jobs(&[Job::one_shot(JobKind::Noop, due, due), mine]).await.unwrap();
    let run = t.app.run_due_jobs(&pathwise_app::scheduler::WorkerOptions::new("operator-test")).await.unwrap();
    assert_eq!(run.done, 2, "{run:?}");

    let all = operator(t, Method::GET, "/api/jobs/runs", None).await.expect(200);
    let runs = all.as_array().unwrap();
    assert_eq!(runs.len(), 2, "{all}");
    assert!(runs.iter().any(|r| r["learner_id"].is_null()), "a global job's run: {all}");
    assert!(runs.iter().any(|r| r["learner_id"] == a), "a learner's run: {all}");
    let hers = operator(t, Method::GET, &format!("/api/jobs/runs?learner_id={a}"), None).await.expect(200);
    assert_eq!(hers.as_array().unwrap().len(), 1, "{hers}");
    operator(t, Method::GET, "/api/jobs", None).await.expect(200);

    let own = t.get(&t.a, "/api/jobs/runs").await.expect(200);
    assert_eq!(own.as_array().unwrap().len(), 1, "a learner sees only her own: {own}");
    let b = text(&t.get(&t.b, "/api/me").await.expect(200)["id"]);
    t.get(&t.a, &format!("/api/jobs/runs?learner_id={b}")).await.expect_error(403, "forbidden", &["operator"]);
    assert!(t.get(&t.b, "/api/jobs/runs").await.expect(200).as_array().unwrap().is_empty());
}

/// A shipped course's pack comes out as its own TOML source, which imports again as the same
/// course; JSON on request. It holds the exam's keys, so a learner's token is refused.
async fn the_operator_exports_a_shipped_courses_pack_that_imports_again(t: &TestApp) {
    t.app.install_builtin_courses().await.unwrap();
    let reply = operator(t, Method::GET, "/api/courses/MATH-FOUNDATIONS/pack", None).await;
    assert_eq!(reply.status.as_u16(), 200, "{}", reply.text);
    assert!(reply.text.contains("course_id = \"MATH-FOUNDATIONS\""), "{}", &reply.text[..200.min(reply.text.len())]);
    let again = t
        .call(Method::POST, "/api/courses?format=toml", Some(OPERATOR_TOKEN), Body::Raw(reply.text.clone()))
        .await
        .expect(200);
    assert_eq!((again["id"].as_str(), again["changed"].as_bool()), (Some("MATH-FOUNDATIONS"), Some(false)));
    let json_pack = operator(t, Method::GET, "/api/courses/MATH-FOUNDATIONS/pack?format=json", None).await.expect(200);
    assert_eq!(json_pack["course_id"], "MATH-FOUNDATIONS");
    operator(t, Method::GET, "/api/courses/MATH-FOUNDATIONS/pack?format=yaml", None).await.expect_error(
        422,
        "invalid",
        &["format", "toml, json"],
    );
    operator(t, Method::GET, "/api/courses/NO-SUCH/pack", None).await.expect_error(404, "not_found", &["course"]);
    t.get(&t.a, "/api/courses/MATH-FOUNDATIONS/pack").await.expect_error(401, "unauthorized", &["operator token"]);
}
