//! A learner's own material over HTTP: a file's bytes uploaded into chunks that cite their
//! file, page and headings; the same file again is unchanged; refusals name the file and
//! the rule and store nothing; another learner's documents are not found.

mod support;

use pathwise_app::authoring::AuthoringSettings;
use pathwise_app::App;
use pathwise_fake_llm::{FakeLlm, Script};
use pathwise_ingest::sample::{self, SamplePage, SampleParagraph};
use reqwest::Method;
use serde_json::Value;
use support::*;

const NOTES: &str = "# Sets\n\nA set is a collection of distinct objects.\n\n## Subsets\n\nA is a subset of B when \
every element of A is in B.\n";

async fn upload(t: &TestApp, token: &str, name: &str, bytes: Vec<u8>, media_type: &'static str) -> Reply {
    let path = format!("/api/author/documents?name={}", urlencoding(name));
    t.call(Method::POST, &path, Some(token), Body::File(bytes, media_type)).await
}

/// Enough of percent-encoding for the names these tests use.
fn urlencoding(name: &str) -> String {
    name.replace(' ', "%20")
}

async fn a_learner_uploads_notes_and_reads_them_back_with_citations(t: &TestApp) {
    let stored = upload(t, &t.a, "sets.md", NOTES.as_bytes().to_vec(), "text/markdown").await.expect(201);
    assert_eq!((stored["format"].as_str(), stored["title"].as_str()), (Some("markdown"), Some("Sets")), "{stored}");
    assert_eq!((stored["added"].as_u64(), stored["unchanged"].as_bool()), (Some(2), Some(false)), "{stored}");
    let id = text(&stored["id"]);

    // The same bytes again: nothing read, nothing changed.
    let again = upload(t, &t.a, "sets.md", NOTES.as_bytes().to_vec(), "text/markdown").await.expect(200);
    assert_eq!((again["id"].as_str(), again["unchanged"].as_bool()), (Some(id.as_str()), Some(true)), "{again}");

    let listed = t.get(&t.a, "/api/author/documents").await.expect(200);
    assert_eq!(listed.as_array().map(Vec::len), Some(1), "{listed}");
    assert_eq!(listed[0]["chunk_count"], 2, "{listed}");

    let document = t.get(&t.a, &format!("/api/author/documents/{id}")).await.expect(200);
    let citations: Vec<&str> =
        document["chunks"].as_array().unwrap().iter().map(|c| c["citation"].as_str().unwrap()).collect();
    assert_eq!(citations, ["sets.md, Sets", "sets.md, Sets > Subsets"], "{document}");
    assert!(document["chunks"][1]["text"].as_str().unwrap().contains("every element of A is in B"), "{document}");

    // Another learner neither lists it nor reaches it.
    assert_eq!(t.get(&t.b, "/api/author/documents").await.expect(200), Value::Array(vec![]));
    t.get(&t.b, &format!("/api/author/documents/{id}")).await.expect_error(404, "not_found", &["document"]);
    t.delete(&t.b, &format!("/api/author/documents/{id}")).await.expect_error(404, "not_found", &["document"]);

    t.delete(&t.a, &format!("/api/author/documents/{id}")).await.expect(204);
    t.get(&t.a, &format!("/api/author/documents/{id}")).await.expect_error(404, "not_found", &["document"]);
    assert_eq!(t.get(&t.a, "/api/author/documents").await.expect(200), Value::Array(vec![]));
}

async fn a_pdf_keeps_its_pages_and_an_edited_file_keeps_the_chunks_it_still_has(t: &TestApp) {
    let page = |heading: &str, body: &str| {
        SamplePage::new(vec![SampleParagraph::heading(sample::CHAPTER_FONT_SIZE, heading), SampleParagraph::body(body)])
    };
    let pdf = sample::pdf(&[
        page("Graphs", "A graph has vertices and edges."),
        page("Trees", "A tree is a connected graph without cycles."),
    ]);
    let stored = upload(t, &t.a, "graphs.pdf", pdf, "application/pdf").await.expect(201);
    assert_eq!((stored["format"].as_str(), stored["pages"].as_u64()), (Some("pdf"), Some(2)), "{stored}");
    let id = text(&stored["id"]);
    let document = t.get(&t.a, &format!("/api/author/documents/{id}")).await.expect(200);
    let citations: Vec<&str> =
        document["chunks"].as_array().unwrap().iter().map(|c| c["citation"].as_str().unwrap()).collect();
    assert_eq!(citations, ["graphs.pdf, p. 1, Graphs", "graphs.pdf, p. 2, Trees"], "{document}");
    let first_chunk = document["chunks"][0]["id"].clone();

    // The second page rewritten: the first page's chunk keeps its id.
    let edited =
        sample::pdf(&[page("Graphs", "A graph has vertices and edges."), page("Trees", "A forest is a set of trees.")]);
    let updated = upload(t, &t.a, "graphs.pdf", edited, "application/pdf").await.expect(201);
    assert_eq!(
        (updated["id"].as_str(), updated["kept"].as_u64(), updated["added"].as_u64(), updated["removed"].as_u64()),
        (Some(id.as_str()), Some(1), Some(1), Some(1)),
        "{updated}"
    );
    let document = t.get(&t.a, &format!("/api/author/documents/{id}")).await.expect(200);
    assert_eq!(document["chunks"][0]["id"], first_chunk, "{document}");
    assert!(document["chunks"][1]["text"].as_str().unwrap().contains("forest"), "{document}");
}

async fn a_file_that_cannot_be_read_is_refused_naming_it_and_nothing_is_stored(t: &TestApp) {
    type Refusal = (&'static str, Vec<u8>, &'static str, &'static str, &'static [&'static str]);
    let refusals: [Refusal; 6] = [
        ("blank.md", b"  \n\n ".to_vec(), "text/markdown", "empty", &["blank.md"]),
        (
            "slides.pptx",
            b"PK\x03\x04".to_vec(),
            "application/octet-stream",
            "unsupported_format",
            &["slides.pptx", ".pdf"],
        ),
        ("notes.txt", b"caf\xe9 latin-1".to_vec(), "text/plain", "binary", &["notes.txt", "UTF-8"]),
        ("locked.pdf", sample::encrypted_pdf(), "application/pdf", "encrypted_pdf", &["locked.pdf"]),
        ("scan.pdf", sample::image_only_pdf(2), "application/pdf", "no_text_layer", &["scan.pdf"]),
        (
            "broken.pdf",
            b"%PDF-1.7\n1 0 obj\n<< /Type /Catalog".to_vec(),
            "application/pdf",
            "malformed_pdf",
            &["broken.pdf"],
        ),
    ];
    for (name, bytes, media_type, code, needles) in refusals {
        let path = format!("/api/author/documents?name={name}");
        let error =
            t.refused(Method::POST, &path, Some(&t.a), Body::File(bytes, media_type), (422, code), needles).await;
        assert_eq!(error["details"]["file"], name, "{error}");
    }
    // A name is needed, and says the format.
    t.refused(
        Method::POST,
        "/api/author/documents",
        Some(&t.a),
        Body::File(NOTES.as_bytes().to_vec(), "text/markdown"),
        (400, "bad_query"),
        &["name"],
    )
    .await;
    t.refused(
        Method::POST,
        "/api/author/documents?name=%20",
        Some(&t.a),
        Body::File(NOTES.as_bytes().to_vec(), "text/markdown"),
        (422, "invalid"),
        &["name"],
    )
    .await;
    t.refused(
        Method::POST,
        "/api/author/documents?name=a.md",
        None,
        Body::File(NOTES.into(), "text/markdown"),
        (401, "unauthorized"),
        &[],
    )
    .await;
}

/// Notes drafted into a course offline, edited under compare-and-set, refused for export
/// while they have problems, exported once they have none, and imported by the operator.
async fn notes_become_a_draft_course_the_author_edits_and_exports(t: &TestApp) {
    // Nothing ingested yet: nothing to draft from.
    t.refused(
        Method::POST,
        "/api/author/drafts",
        Some(&t.a),
        Body::Json(serde_json::json!({ "title": "Sets" })),
        (422, "invalid"),
        &["ingest a document first"],
    )
    .await;
    let notes = "# Sets\n\nA set is a collection of distinct objects.\n\n## Subsets\n\nA is a subset of B when \
                 every element of A is in B.\n\n## Power sets\n\nThe power set of A is the set of its subsets.\n";
    upload(t, &t.a, "sets.md", notes.as_bytes().to_vec(), "text/markdown").await.expect(201);
    let draft = t.post(&t.a, "/api/author/drafts", serde_json::json!({ "title": "Set theory" })).await.expect(201);
    let id = text(&draft["id"]);
    let units: Vec<(&str, Vec<&str>)> = draft["draft"]["units"]
        .as_array()
        .unwrap()
        .iter()
        .map(|u| {
            (
                u["id"].as_str().unwrap(),
                u["prerequisites"].as_array().unwrap().iter().map(|p| p.as_str().unwrap()).collect(),
            )
        })
        .collect();
    assert_eq!(units, [("sets", vec![]), ("subsets", vec!["sets"]), ("power-sets", vec!["subsets"])], "{draft}");
    // An outline has no questions yet: no tier could be earned in any unit.
    let fields: Vec<&str> =
        draft["problems"].as_array().unwrap().iter().map(|p| p["field"].as_str().unwrap()).collect();
    assert_eq!(fields, ["units[0].questions", "units[1].questions", "units[2].questions"], "{draft}");
    assert_eq!(draft["passages"][2]["citation"], "sets.md, Sets > Power sets", "{draft}");
    let draft =
        t.post(&t.a, &format!("/api/author/drafts/{id}/units"), serde_json::json!({ "version": 0 })).await.expect(200);
    assert_eq!((draft["version"].as_i64(), draft["problems"].clone()), (Some(1), serde_json::json!([])), "{draft}");

    // An edit that leaves a unit without material is kept, and its problem is named.
    let mut edited = draft["draft"].clone();
    edited["units"][2]["chunks"] = serde_json::json!([]);
    let path = format!("/api/author/drafts/{id}");
    let put = |version: i64, draft: Value| {
        t.call(Method::PUT, &path, Some(&t.a), Body::Json(serde_json::json!({ "version": version, "draft": draft })))
    };
    let shown = put(1, edited.clone()).await.expect(200);
    assert_eq!(shown["version"], 2, "{shown}");
    assert_eq!(shown["problems"][0]["field"], "units[2].chunks", "{shown}");
    // An edit made from the old version is a conflict, and nothing changes.
    let error = put(1, draft["draft"].clone()).await.expect_error(409, "version_conflict", &["version 2"]);
    assert_eq!(error["details"]["version"], 2, "{error}");
    let error = t.get(&t.a, &format!("/api/author/drafts/{id}/pack")).await.expect_error(
        422,
        "draft_has_problems",
        &["units[2].chunks"],
    );
    assert_eq!(error["details"]["problems"][0]["field"], "units[2].chunks", "{error}");

    // Mended: the pack is a course the operator's import accepts.
    let shown = put(2, draft["draft"].clone()).await.expect(200);
    assert_eq!((shown["version"].as_i64(), shown["problems"].clone()), (Some(3), serde_json::json!([])), "{shown}");
    let pack = t.get(&t.a, &format!("/api/author/drafts/{id}/pack")).await;
    assert_eq!(pack.status, 200, "{}", pack.text);
    assert!(
        pack.text.contains("source_id = \"sets.md\"") && pack.text.contains("section = \"Sets > Subsets\""),
        "{}",
        pack.text
    );
    let imported = t
        .call(Method::POST, "/api/courses?format=toml", Some(OPERATOR_TOKEN), Body::Raw(pack.text.clone()))
        .await
        .expect(201);
    assert_eq!((imported["id"].as_str(), imported["unitCount"].as_i64()), (Some("SET-THEORY"), Some(3)), "{imported}");

    // Listed; another learner reaches none of it.
    let listed = t.get(&t.a, "/api/author/drafts").await.expect(200);
    assert_eq!(
        (listed[0]["course_id"].as_str(), listed[0]["units"].as_u64()),
        (Some("SET-THEORY"), Some(3)),
        "{listed}"
    );
    assert_eq!(t.get(&t.b, "/api/author/drafts").await.expect(200), Value::Array(vec![]));
    t.get(&t.b, &format!("/api/author/drafts/{id}")).await.expect_error(404, "not_found", &["draft"]);
    t.get(&t.b, &format!("/api/author/drafts/{id}/pack")).await.expect_error(404, "not_found", &["draft"]);
    put(3, draft["draft"].clone()).await.expect(200);
    t.call(
        Method::PUT,
        &format!("/api/author/drafts/{id}"),
        Some(&t.b),
        Body::Json(serde_json::json!({ "version": 4, "draft": draft["draft"] })),
    )
    .await
    .expect_error(404, "not_found", &["draft"]);
    t.delete(&t.b, &format!("/api/author/drafts/{id}")).await.expect_error(404, "not_found", &["draft"]);
    t.delete(&t.a, &format!("/api/author/drafts/{id}")).await.expect(204);
    t.get(&t.a, &format!("/api/author/drafts/{id}")).await.expect_error(404, "not_found", &["draft"]);
}

/// A draft published is the author's course: listed and taught to them, to nobody else
/// until shared, and its id cannot take over someone else's course.
async fn a_published_draft_is_its_authors_course_until_shared(t: &TestApp) {
    let notes = "# Logic\n\nA proposition is a statement that is either true or false. Logic studies how the truth \
                 of a proposition follows from others.\n\n## Negation\n\nThe negation of a proposition reverses its \
                 truth value. The negation of a true proposition is false.\n\n## Conjunction\n\nA conjunction joins \
                 two propositions with and. A conjunction is true only when both of its propositions are true.\n";
    upload(t, &t.a, "logic.md", notes.as_bytes().to_vec(), "text/markdown").await.expect(201);
    let draft = t.post(&t.a, "/api/author/drafts", serde_json::json!({ "title": "Logic basics" })).await.expect(201);
    let id = text(&draft["id"]);
    // An outline alone is no course: no tier could be earned in any of its units.
    let refused = t.post(&t.a, &format!("/api/author/drafts/{id}/publish"), serde_json::json!({})).await.expect_error(
        422,
        "draft_has_problems",
        &["unit 'logic' has no exam question", "unit 'negation' has no exam question"],
    );
    assert_eq!(refused["details"]["problems"][0]["field"], "units[0].questions", "{refused}");
    let units = serde_json::json!({ "version": 0 });
    t.post(&t.a, &format!("/api/author/drafts/{id}/units"), units).await.expect(200);
    let published = t.post(&t.a, &format!("/api/author/drafts/{id}/publish"), serde_json::json!({})).await.expect(201);
    assert_eq!(
        (published["id"].as_str(), published["unitCount"].as_i64()),
        (Some("LOGIC-BASICS"), Some(3)),
        "{published}"
    );
    let again = t.post(&t.a, &format!("/api/author/drafts/{id}/publish"), serde_json::json!({})).await.expect(200);
    assert_eq!(again["changed"], false, "{again}");

    let listed = |token: String| async move {
        let courses = t.get(&token, "/api/courses").await.expect(200);
        courses.as_array().unwrap().iter().map(|c| text(&c["id"])).collect::<Vec<_>>()
    };
    assert!(listed(t.a.clone()).await.contains(&"LOGIC-BASICS".to_string()));
    assert!(!listed(t.b.clone()).await.contains(&"LOGIC-BASICS".to_string()));
    let outline = t.get(&t.a, "/api/courses/LOGIC-BASICS").await.expect(200);
    assert_eq!(outline["entryUnitId"], "logic", "{outline}");
    t.get(&t.b, "/api/courses/LOGIC-BASICS").await.expect_error(404, "not_found", &["LOGIC-BASICS"]);
    t.post(&t.b, "/api/tutor/threads", serde_json::json!({ "courseId": "LOGIC-BASICS" })).await.expect_error(
        404,
        "not_found",
        &["LOGIC-BASICS"],
    );
    t.get(&t.b, "/api/tutor/courses/LOGIC-BASICS/snapshot").await.expect_error(404, "not_found", &["LOGIC-BASICS"]);

    // The author teaches from it: a thread, and a turn without a model.
    let thread =
        t.post(&t.a, "/api/tutor/threads", serde_json::json!({ "courseId": "LOGIC-BASICS" })).await.expect(201);
    let turn = t
        .post(
            &t.a,
            &format!("/api/tutor/threads/{}/turn", text(&thread["id"])),
            serde_json::json!({ "messageText": "where do I start?" }),
        )
        .await
        .expect(200);
    assert_eq!(turn["snapshotLite"]["focus"]["unitId"], "logic", "{turn}");

    // Shared with B: listed, and taught; unshared: gone again.
    let b_id = text(&t.get(&t.b, "/api/me").await.expect(200)["id"]);
    let shares = t
        .post(&t.a, "/api/author/courses/LOGIC-BASICS/shares", serde_json::json!({ "learner_id": b_id }))
        .await
        .expect(200);
    assert_eq!(shares["learners"], serde_json::json!([b_id]), "{shares}");
    assert!(listed(t.b.clone()).await.contains(&"LOGIC-BASICS".to_string()));
    t.post(&t.b, "/api/tutor/threads", serde_json::json!({ "courseId": "LOGIC-BASICS" })).await.expect(201);
    // B cannot pass it on, nor read who it is shared with.
    t.get(&t.b, "/api/author/courses/LOGIC-BASICS/shares").await.expect_error(404, "not_found", &["LOGIC-BASICS"]);
    let a_id = text(&t.get(&t.a, "/api/me").await.expect(200)["id"]);
    t.post(&t.b, "/api/author/courses/LOGIC-BASICS/shares", serde_json::json!({ "learner_id": a_id }))
        .await
        .expect_error(404, "not_found", &["LOGIC-BASICS"]);
    let shares = t.delete(&t.a, &format!("/api/author/courses/LOGIC-BASICS/shares/{b_id}")).await.expect(200);
    assert_eq!(shares["learners"], serde_json::json!([]), "{shares}");
    assert!(!listed(t.b.clone()).await.contains(&"LOGIC-BASICS".to_string()));

    // The operator decides too: shares A's course with B, and takes it back; a course of the
    // server's is every learner's already.
    let share = serde_json::json!({ "learner_id": b_id });
    let shares = t
        .call(Method::POST, "/api/courses/LOGIC-BASICS/shares", Some(OPERATOR_TOKEN), Body::Json(share.clone()))
        .await
        .expect(200);
    assert_eq!(shares["learners"], serde_json::json!([b_id]), "{shares}");
    assert!(listed(t.b.clone()).await.contains(&"LOGIC-BASICS".to_string()));
    t.call(Method::POST, "/api/courses/LOGIC-BASICS/shares", Some(&t.b), Body::Json(share.clone())).await.expect_error(
        401,
        "unauthorized",
        &["operator"],
    );
    let path = format!("/api/courses/LOGIC-BASICS/shares/{b_id}");
    t.call(Method::DELETE, &path, Some(OPERATOR_TOKEN), Body::Empty).await.expect(200);
    assert!(!listed(t.b.clone()).await.contains(&"LOGIC-BASICS".to_string()));
    t.app.install_builtin_courses().await.unwrap();
    t.call(Method::POST, "/api/courses/MATH-FOUNDATIONS/shares", Some(OPERATOR_TOKEN), Body::Json(share))
        .await
        .expect_error(422, "invalid", &["every learner sees it already"]);

    // A course id someone else holds is not taken over: B's draft of the same title.
    upload(t, &t.b, "logic.md", notes.as_bytes().to_vec(), "text/markdown").await.expect(201);
    let bs = t.post(&t.b, "/api/author/drafts", serde_json::json!({ "title": "Logic basics" })).await.expect(201);
    let bs = t
        .post(&t.b, &format!("/api/author/drafts/{}/units", text(&bs["id"])), serde_json::json!({ "version": 0 }))
        .await
        .expect(200);
    let before = t.counts().await;
    let error = t
        .post(&t.b, &format!("/api/author/drafts/{}/publish", text(&bs["id"])), serde_json::json!({}))
        .await
        .expect_error(409, "course_id_taken", &["LOGIC-BASICS"]);
    assert_eq!(error["details"]["field"], "draft.course_id", "{error}");
    assert_eq!(t.counts().await, before);
    // Nor a shipped one.
    let mut shipped = bs["draft"].clone();
    shipped["course_id"] = serde_json::json!("MATH-FOUNDATIONS");
    t.app.install_builtin_courses().await.unwrap();
    let path = format!("/api/author/drafts/{}", text(&bs["id"]));
    t.call(Method::PUT, &path, Some(&t.b), Body::Json(serde_json::json!({ "version": 1, "draft": shipped })))
        .await
        .expect(200);
    t.post(&t.b, &format!("{path}/publish"), serde_json::json!({})).await.expect_error(
        409,
        "course_id_taken",
        &["MATH-FOUNDATIONS"],
    );
}

const PLANTS: &str = "# Plant biology\n\n## Photosynthesis\n\nPhotosynthesis turns light energy into chemical energy \
inside the chloroplasts of a leaf. Chlorophyll absorbs mostly red and blue light and reflects green light. The process \
takes in carbon dioxide and water and releases oxygen as a product.\n\n## Respiration\n\nCellular respiration releases \
the energy stored in glucose inside the mitochondria. Aerobic respiration needs oxygen and produces carbon dioxide and \
water. Anaerobic respiration in muscles produces lactic acid when oxygen runs short.\n\n## Transport\n\nXylem vessels \
carry water and minerals upward from the roots to the leaves. Phloem tubes carry dissolved sugars from the leaves to \
the rest of the plant. Transpiration pulls water up the xylem as it evaporates from the leaves.\n";

async fn grade_drill(t: &TestApp, path: &str, card: Value, answer: String) -> Value {
    t.post(&t.a, path, serde_json::json!({ "unitId": "photosynthesis", "drill": card, "studentAnswer": answer }))
        .await
        .expect(200)
}

/// A request that asks for the model on a server without one: 503 `llm_not_configured`
/// saying what to set, and no table changed.
async fn needs_a_model(t: &TestApp, path: &str, body: Value) {
    let before = t.counts().await;
    let reply = t.client.post(format!("{}{path}", t.base)).bearer_auth(&t.a).json(&body).send().await.unwrap();
    assert_eq!(reply.status(), 503, "{path}");
    let error: Value = reply.json().await.unwrap();
    assert_eq!(error["error"]["code"], "llm_not_configured", "{error}");
    assert!(text(&error["error"]["message"]).contains("needs a language model"), "{error}");
    assert_eq!(t.counts().await, before, "{path}: nothing stored");
}

/// The answer a drafted drill card asks for, found in the draft by its stem.
fn drill_answer(draft: &Value, card: &Value) -> String {
    let drills = draft["units"].as_array().unwrap().iter().flat_map(|u| u["drills"].as_array().unwrap().iter());
    drills.clone().find(|d| d["stem"] == card["prompt"]).map(|d| text(&d["answer"])).unwrap_or_else(|| {
        panic!("{card} is none of the draft's drills: {:?}", drills.collect::<Vec<_>>());
    })
}

/// Notes drafted offline into units with exam questions and drills that cite their
/// passages; a key its passage does not hold is a problem; published, the course takes a
/// learner without a model to bronze, and the tutor's concept card cites the passage it
/// teaches from.
async fn notes_become_questions_and_drills_that_teach_to_a_tier_citing_their_source(t: &TestApp) {
    upload(t, &t.a, "plants.md", PLANTS.as_bytes().to_vec(), "text/markdown").await.expect(201);
    // Without a model, asking for one is refused, and nothing is stored.
    needs_a_model(t, "/api/author/drafts", serde_json::json!({ "title": "Plant biology", "use_model": true })).await;
    let draft = t.post(&t.a, "/api/author/drafts", serde_json::json!({ "title": "Plant biology" })).await.expect(201);
    let id = text(&draft["id"]);
    let units_path = format!("/api/author/drafts/{id}/units");
    needs_a_model(t, &units_path, serde_json::json!({ "version": 0, "use_model": true })).await;
    t.refused(
        Method::POST,
        &units_path,
        Some(&t.a),
        Body::Json(serde_json::json!({ "version": 0, "units": ["botany"] })),
        (422, "invalid"),
        &["units[0]", "no unit 'botany'"],
    )
    .await;
    let drafted = t.post(&t.a, &units_path, serde_json::json!({ "version": 0 })).await.expect(200);
    assert_eq!((drafted["stage"].as_str(), drafted["version"].as_i64()), (Some("units"), Some(1)), "{drafted}");
    assert_eq!(drafted["problems"], serde_json::json!([]), "{drafted}");
    let passages: std::collections::HashMap<String, String> = drafted["passages"]
        .as_array()
        .unwrap()
        .iter()
        .map(|p| (text(&p["id"]), text(&p["text"]).to_lowercase()))
        .collect();
    for unit in drafted["draft"]["units"].as_array().unwrap() {
        let tiers: Vec<&str> =
            unit["questions"].as_array().unwrap().iter().map(|q| q["tier"].as_str().unwrap()).collect();
        assert_eq!(tiers, ["bronze", "silver", "gold"], "{unit}");
        assert!(!unit["drills"].as_array().unwrap().is_empty(), "{unit}");
        for q in unit["questions"].as_array().unwrap() {
            assert!(unit["chunks"].as_array().unwrap().contains(&q["passage"]), "{q} cites its unit's passage");
            let key = text(&q["options"][q["correct"].as_u64().unwrap() as usize]).to_lowercase();
            assert!(passages[&text(&q["passage"])].contains(&key), "{q}: its key is in its passage");
        }
    }
    // Made again from the old version: a conflict, nothing changes.
    t.refused(
        Method::POST,
        &units_path,
        Some(&t.a),
        Body::Json(serde_json::json!({ "version": 0 })),
        (409, "version_conflict"),
        &["version 1"],
    )
    .await;

    // A key its passage does not hold is a problem on that question.
    let mut edited = drafted["draft"].clone();
    let bronze = &mut edited["units"][0]["questions"][0];
    let wrong = (bronze["correct"].as_u64().unwrap() + 1) % bronze["options"].as_array().unwrap().len() as u64;
    bronze["correct"] = wrong.into();
    let path = format!("/api/author/drafts/{id}");
    let shown = t
        .call(Method::PUT, &path, Some(&t.a), Body::Json(serde_json::json!({ "version": 1, "draft": edited })))
        .await
        .expect(200);
    assert_eq!(shown["problems"][0]["field"], "units[0].questions[0].correct", "{shown}");
    assert!(text(&shown["problems"][0]["message"]).contains("is not in the passage it cites"), "{shown}");
    t.post(&t.a, &format!("{path}/publish"), serde_json::json!({})).await.expect_error(
        422,
        "draft_has_problems",
        &["units[0].questions[0].correct"],
    );
    // Drafted again for that unit: mended.
    let drafted =
        t.post(&t.a, &units_path, serde_json::json!({ "version": 2, "units": ["photosynthesis"] })).await.expect(200);
    assert_eq!(drafted["problems"], serde_json::json!([]), "{drafted}");
    let draft = drafted["draft"].clone();
    let pack = t.get(&t.a, &format!("{path}/pack")).await;
    assert!(pack.text.contains("[[units.drills]]") && pack.text.contains("passage = \""), "{}", pack.text);
    t.post(&t.a, &format!("{path}/publish"), serde_json::json!({})).await.expect(201);

    // Taught without a model: two drills right open the bronze exam, which earns bronze.
    let thread = text(
        &t.post(&t.a, "/api/tutor/threads", serde_json::json!({ "courseId": "PLANT-BIOLOGY" })).await.expect(201)["id"],
    );
    let turn = |event: Value| {
        let path = format!("/api/tutor/threads/{thread}/turn");
        async move { t.post(&t.a, &path, event).await.expect(200) }
    };
    let drill = || async {
        let reply =
            turn(serde_json::json!({ "clientEvent": { "type": "REQUEST_DRILL", "unitId": "photosynthesis" } })).await;
        let card = reply["messages"][0]["card"].clone();
        assert_eq!(card["type"], "DRILL", "{reply}");
        card
    };
    let grade_path = format!("/api/tutor/threads/{thread}/drill/grade");
    let grade = |card: Value, answer: String| {
        let path = grade_path.clone();
        async move { grade_drill(t, &path, card, answer).await }
    };
    for _ in 0..2 {
        let card = drill().await;
        let graded = grade(card.clone(), drill_answer(&draft, &card).to_uppercase()).await;
        assert_eq!(
            (graded["isCorrect"].as_bool(), graded["gradedBy"].as_str()),
            (Some(true), Some("written")),
            "{graded}"
        );
    }
    let reply =
        turn(serde_json::json!({ "clientEvent": { "type": "REQUEST_EXAM", "unitId": "photosynthesis" } })).await;
    let exam = reply["messages"][0]["card"].clone();
    assert_eq!(
        (exam["type"].as_str(), exam["questionId"].as_str()),
        (Some("EXAM"), Some("photosynthesis-bronze")),
        "{reply}"
    );
    let question = &draft["units"][0]["questions"][0];
    let key = &question["options"][question["correct"].as_u64().unwrap() as usize];
    let selected = exam["options"].as_array().unwrap().iter().position(|o| o == key).unwrap();
    t.post(
        &t.a,
        &format!("/api/tutor/threads/{thread}/exam/mcq-submit"),
        serde_json::json!({ "unitId": "photosynthesis", "questionId": "photosynthesis-bronze", "selectedIndex": selected }),
    )
    .await
    .expect(200);
    let snapshot = t.get(&t.a, "/api/tutor/courses/PLANT-BIOLOGY/snapshot").await.expect(200);
    assert_eq!(snapshot["snapshot"]["unitProgress"]["photosynthesis"]["masteryTier"], "bronze", "{snapshot}");

    // Stuck after two wrong drills: the concept card cites the passage it comes from.
    for _ in 0..2 {
        let graded = grade(drill().await, "no idea".into()).await;
        assert_eq!(graded["isCorrect"], false, "{graded}");
    }
    let reply = turn(serde_json::json!({
        "clientEvent": { "type": "DRILL_CONTINUE", "unitId": "photosynthesis", "lastResult": "incorrect" }
    }))
    .await;
    let card = reply["messages"].as_array().unwrap().iter().find_map(|m| m.get("card")).cloned().unwrap_or_default();
    assert_eq!(card["type"], "CONCEPT", "{reply}");
    let source = &card["sources"][0];
    assert_eq!(source["citation"], "plants.md, Plant biology > Photosynthesis", "{card}");
    let passage_id = text(&source["passageId"]);
    assert_eq!(passage_id, text(&draft["units"][0]["chunks"][0]), "{card}");
    let passage = t.get(&t.a, &format!("/api/courses/PLANT-BIOLOGY/passages/{passage_id}")).await.expect(200);
    assert!(text(&passage["text"]).contains(text(&card["keyIdeas"][0]).trim_end_matches('.')), "{passage}");
    t.get(&t.b, &format!("/api/courses/PLANT-BIOLOGY/passages/{passage_id}")).await.expect_error(
        404,
        "not_found",
        &["PLANT-BIOLOGY"],
    );
    let turns = t.get(&t.a, &format!("/api/tutor/threads/{thread}/turns?limit=100")).await.expect(200);
    let last = turns["items"].as_array().unwrap().last().unwrap().clone();
    assert_eq!(last["log"]["sources"], serde_json::json!([passage_id]), "{last}");
}

fn proposal(stem: &str, options: &[&str], drill: (&str, &str)) -> Script {
    Script::json(serde_json::json!({
        "anchor": "What the passage says.",
        "misconceptions": [],
        "questions": [{ "tier": "bronze", "stem": stem, "options": options, "correct": 0, "memo": "", "passage": "P1" }],
        "drills": [{ "stem": drill.0, "answer": drill.1, "passage": "P1" }],
    }))
}

/// With a model: its cost estimated before it is asked; each unit's proposal kept only when
/// every answer is in the passage it cites; a refused one explained to the model once; a unit
/// refused twice drafted from its material instead.
async fn a_models_questions_are_kept_only_when_their_passages_hold_their_answers((t, fake): &(TestApp, FakeLlm)) {
    upload(t, &t.a, "plants.md", PLANTS.as_bytes().to_vec(), "text/markdown").await.expect(201);
    let draft = t.post(&t.a, "/api/author/drafts", serde_json::json!({ "title": "Plant biology" })).await.expect(201);
    let estimate = &draft["model_estimate"];
    assert_eq!((estimate["units"].as_u64(), estimate["calls"].as_u64()), (Some(3), Some(3)), "{draft}");
    assert!(estimate["prompt_tokens"].as_u64() > Some(300), "{draft}");
    let bad = || proposal("What pulls things down?", &["gravity", "light"], ("Things fall by ____.", "gravity"));
    fake.script([
        proposal(
            "Where does photosynthesis happen?",
            &["in the chloroplasts", "in the roots"],
            ("It releases ____.", "oxygen"),
        ),
        bad(),
        bad(),
        bad(),
        proposal(
            "What carries water upward?",
            &["xylem vessels", "phloem tubes"],
            ("Water rises in the ____.", "xylem"),
        ),
    ]);
    let id = text(&draft["id"]);
    let drafted = t
        .post(&t.a, &format!("/api/author/drafts/{id}/units"), serde_json::json!({ "version": 0, "use_model": true }))
        .await
        .expect(200);
    let by: Vec<(&str, &str)> = drafted["drafted"]
        .as_array()
        .unwrap()
        .iter()
        .map(|d| (d["unit_id"].as_str().unwrap(), d["by"].as_str().unwrap()))
        .collect();
    assert_eq!(by, [("photosynthesis", "model"), ("respiration", "material"), ("transport", "model")], "{drafted}");
    assert!(text(&drafted["drafted"][1]["refused"]).contains("'gravity' is not in P1"), "{drafted}");
    let units = &drafted["draft"]["units"];
    assert_eq!(units[0]["questions"][0]["stem"], "Where does photosynthesis happen?", "{drafted}");
    assert!(text(&units[1]["questions"][0]["stem"]).starts_with("Which completes this sentence?"), "{drafted}");
    assert_eq!(units[2]["drills"][0]["answer"], "xylem", "{drafted}");
    assert_eq!(drafted["problems"], serde_json::json!([]), "{drafted}");
    assert!(drafted.get("model_estimate").is_none(), "every unit has questions now: {drafted}");
    // Five calls: one per unit, and one more for each unit refused the first time.
    let requests = fake.requests();
    assert_eq!(requests.len(), 5);
    let retry = requests[4].to_string();
    assert!(retry.contains("That proposal was refused") && retry.contains("gravity"), "{retry}");
    assert_eq!(fake.unused(), 0);
}

/// With a model, the outline: the headings' sections grouped and ordered by it, kept only
/// when every section is in exactly one unit; refused twice, the headings' outline stands.
async fn a_models_outline_is_kept_only_when_it_places_every_section_once((t, fake): &(TestApp, FakeLlm)) {
    upload(t, &t.a, "plants.md", PLANTS.as_bytes().to_vec(), "text/markdown").await.expect(201);
    let bad = || Script::json(serde_json::json!({ "units": [{ "title": "Energy", "sections": ["S1", "S9"] }] }));
    fake.script([
        bad(),
        Script::json(serde_json::json!({ "units": [
            { "title": "Energy", "sections": ["S1", "S2"] },
            { "title": "Moving water", "sections": ["S3"] }
        ] })),
    ]);
    let body = serde_json::json!({ "title": "Plant biology", "use_model": true });
    let draft = t.post(&t.a, "/api/author/drafts", body).await.expect(201);
    assert_eq!(draft["outlined"], serde_json::json!({ "by": "model" }), "{draft}");
    let units: Vec<(&str, usize, Value)> = draft["draft"]["units"]
        .as_array()
        .unwrap()
        .iter()
        .map(|u| (u["id"].as_str().unwrap(), u["chunks"].as_array().unwrap().len(), u["prerequisites"].clone()))
        .collect();
    assert_eq!(
        units,
        [("energy", 2, serde_json::json!([])), ("moving-water", 1, serde_json::json!(["energy"]))],
        "{draft}"
    );
    assert_eq!(draft["problems"].as_array().map(Vec::len), Some(2), "only its units without questions: {draft}");
    let retry = fake.requests()[1].to_string();
    assert!(retry.contains("That proposal was refused") && retry.contains("'S9' is not a section"), "{retry}");
    // Refused twice: the headings' outline, and why.
    fake.script([bad(), bad()]);
    let body = serde_json::json!({ "title": "Plant biology again", "use_model": true });
    let draft = t.post(&t.a, "/api/author/drafts", body).await.expect(201);
    assert_eq!(draft["outlined"]["by"], "headings", "{draft}");
    assert!(text(&draft["outlined"]["refused"]).contains("S2, S3 in no unit"), "{draft}");
    assert_eq!(draft["draft"]["units"].as_array().unwrap().len(), 3, "{draft}");
    assert_eq!(fake.unused(), 0);
}

const SUBNETS: &str = "# Subnetting\n\n## Broadcast addresses\n\nThe subnet 192.168.4.64/26 has its broadcast address \
at 192.168.4.127: every host bit is set to one. A prefix of 26 bits leaves six host bits.\n\n## History\n\nClassful \
addressing gave way to classless routing as the internet grew and addresses ran short.\n";

/// Notes that work a computation (a subnet's broadcast address) give their unit the
/// blueprint that computes drills like it, shown to the author with a question it makes;
/// published, the tutor's drills on that unit are computed afresh and graded exactly, beside
/// the recall drills written from the notes.
async fn notes_that_work_a_computation_get_drills_computed_like_it(t: &TestApp) {
    upload(t, &t.a, "subnets.md", SUBNETS.as_bytes().to_vec(), "text/markdown").await.expect(201);
    let draft = t.post(&t.a, "/api/author/drafts", serde_json::json!({ "title": "Subnetting" })).await.expect(201);
    let id = text(&draft["id"]);
    let drafted =
        t.post(&t.a, &format!("/api/author/drafts/{id}/units"), serde_json::json!({ "version": 0 })).await.expect(200);
    assert_eq!(drafted["problems"], serde_json::json!([]), "{drafted}");
    let units = drafted["draft"]["units"].as_array().unwrap();
    let broadcast = &units[0]["blueprints"];
    assert_eq!(broadcast.as_array().map(Vec::len), Some(1), "{drafted}");
    assert_eq!(
        (broadcast[0]["skill_id"].as_str(), broadcast[0]["example"].as_str(), &broadcast[0]["passage"]),
        (Some("NET.IP.SUBNET.BROADCAST"), Some("192.168.4.64/26"), &units[0]["chunks"][0]),
        "{drafted}"
    );
    assert!(units[1].get("blueprints").is_none(), "prose without a computation gets none: {drafted}");
    let skill = &drafted["skills"][0];
    assert_eq!(skill["statement"], "Calculate the broadcast address of a subnet", "{drafted}");
    assert!(text(&skill["sample"]).contains("broadcast"), "{skill}");
    let pack = t.get(&t.a, &format!("/api/author/drafts/{id}/pack")).await;
    assert!(pack.text.contains("blueprints = [\"NET.IP.SUBNET.BROADCAST\"]"), "{}", pack.text);
    t.post(&t.a, &format!("/api/author/drafts/{id}/publish"), serde_json::json!({})).await.expect(201);

    let thread = text(
        &t.post(&t.a, "/api/tutor/threads", serde_json::json!({ "courseId": "SUBNETTING" })).await.expect(201)["id"],
    );
    let unit = text(&units[0]["id"]);
    let mut graded_by = std::collections::BTreeSet::new();
    // Which kind a turn offers follows its seed: a third are computed here (one blueprint,
    // two written drills), so forty turns all but surely see both.
    for _ in 0..40 {
        if graded_by.len() == 2 {
            break;
        }
        let reply = t
            .post(
                &t.a,
                &format!("/api/tutor/threads/{thread}/turn"),
                serde_json::json!({ "clientEvent": { "type": "REQUEST_DRILL", "unitId": unit } }),
            )
            .await
            .expect(200);
        let card = reply["messages"][0]["card"].clone();
        assert_eq!(card["type"], "DRILL", "{reply}");
        let answer = offered_item_of(t, "SUBNETTING", &thread, &card).await.key.answer;
        let graded = t
            .post(
                &t.a,
                &format!("/api/tutor/threads/{thread}/drill/grade"),
                serde_json::json!({ "unitId": unit, "drill": card, "studentAnswer": answer }),
            )
            .await
            .expect(200);
        assert_eq!(graded["isCorrect"], true, "{graded}");
        graded_by.insert(text(&graded["gradedBy"]));
    }
    assert_eq!(graded_by.into_iter().collect::<Vec<_>>(), ["blueprint", "written"], "both kinds of drill, in turn");
}

async fn with_model(test_store: TestStore) -> (TestApp, FakeLlm) {
    let fake = FakeLlm::start().await;
    let config = pathwise_llm::OpenAiConfig {
        timeout: std::time::Duration::from_secs(10),
        ..pathwise_llm::OpenAiConfig::new(fake.base_url(), "author")
    };
    let llm = pathwise_llm::Llm::new(std::sync::Arc::new(pathwise_llm::OpenAiClient::new(config).unwrap()), 4);
    let t = spawn_app_made(test_store, move |s| App::new(s).with_llm(llm)).await;
    (t, fake)
}

mod with_a_model {
    use super::*;
    pathwise_test_support::conformance!(
        with_model;
        a_models_questions_are_kept_only_when_their_passages_hold_their_answers,
        a_models_outline_is_kept_only_when_it_places_every_section_once
    );
}

on_both_stores!(
    notes_become_questions_and_drills_that_teach_to_a_tier_citing_their_source,
    notes_that_work_a_computation_get_drills_computed_like_it,
    a_published_draft_is_its_authors_course_until_shared,
    notes_become_a_draft_course_the_author_edits_and_exports,
    a_learner_uploads_notes_and_reads_them_back_with_citations,
    a_pdf_keeps_its_pages_and_an_edited_file_keeps_the_chunks_it_still_has,
    a_file_that_cannot_be_read_is_refused_naming_it_and_nothing_is_stored,
);

/// A file over the server's `ingest_max_mb` is a 413 before it is read, even with an
/// `Idempotency-Key` (a file may be larger than a kept request), and a 100 MB one against
/// the default limit.
#[tokio::test]
async fn a_file_over_the_servers_limit_is_413_before_it_is_read() {
    let mut settings = AuthoringSettings::default();
    settings.limits.max_bytes = 1024 * 1024;
    let t = spawn_app_made(TestStore::sqlite().await, move |s| App::new(s).with_authoring_settings(settings)).await;
    let large = format!("# Big\n\n{}", "word ".repeat(300_000)).into_bytes();
    let before = t.counts().await;
    let reply = t
        .send(
            Method::POST,
            "/api/author/documents?name=big.md",
            Some(&t.a),
            Body::File(large, "text/markdown"),
            &[("idempotency-key", "upload-1")],
        )
        .await;
    let error = reply.expect_error(413, "too_large", &["1 MiB", "ingest_max_mb"]);
    assert_eq!(error["details"]["max_bytes"], 1024 * 1024, "{error}");
    assert_eq!(t.counts().await, before);

    // A 100 MB file against the default limit (32 MiB): refused before it is read.
    let t = spawn_app().await;
    let before = t.counts().await;
    let huge = vec![b'a'; 100_000_000];
    let reply =
        t.call(Method::POST, "/api/author/documents?name=huge.txt", Some(&t.a), Body::File(huge, "text/plain")).await;
    let error = reply.expect_error(413, "too_large", &["32 MiB"]);
    assert_eq!(error["details"]["max_bytes"], 32 * 1024 * 1024, "{error}");
    assert_eq!(t.counts().await, before);

    // Under the limit, a keyed upload larger than an ordinary request's 1 MiB goes through.
    let mut settings = AuthoringSettings::default();
    settings.limits.max_bytes = 4 * 1024 * 1024;
    let t = spawn_app_made(TestStore::sqlite().await, move |s| App::new(s).with_authoring_settings(settings)).await;
    let paragraphs: String =
        (0..3_000).map(|i| format!("Paragraph {i} says something about sets and subsets.\n\n")).collect();
    let bytes = format!("# Long notes\n\n{paragraphs}{}", "x".repeat(1_200_000)).into_bytes();
    let reply = t
        .send(
            Method::POST,
            "/api/author/documents?name=long.md",
            Some(&t.a),
            Body::File(bytes, "text/markdown"),
            &[("idempotency-key", "upload-2")],
        )
        .await;
    let stored = reply.expect(201);
    assert!(stored["added"].as_u64().unwrap() > 100, "{stored}");
}
