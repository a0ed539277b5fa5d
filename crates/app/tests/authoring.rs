//! A learner's own material, on both stores: files ingested into chunks that cite their
//! file, page and headings; a changed file updated in place, keeping the chunks it still
//! has; bad files refused with what was wrong, storing nothing; ingestion by path held to
//! the server's folder; and another learner's material not found.

mod support;

use pathwise_app::authoring::documents::{files_under, FoundFile};
use pathwise_app::authoring::AuthoringSettings;
use pathwise_app::{ErrorCode, ErrorKind};
use pathwise_ingest::sample::{self, SamplePage, SampleParagraph};
use support::TestApp;

conformance!(
    a_markdown_file_is_stored_as_chunks_that_cite_its_headings,
    a_changed_file_keeps_the_chunks_it_still_has_and_an_unchanged_one_is_not_read_again,
    a_pdf_chunk_cites_its_page_and_heading,
    bad_files_are_refused_saying_what_was_wrong_and_store_nothing,
    a_folder_is_ingested_whole_or_not_at_all,
    ingestion_by_path_reads_only_under_the_servers_folder,
    another_learners_material_is_not_found,
);

const NOTES: &str =
    "# Subnetting\n\nNotes for the exam.\n\n## Masks\n\nA mask selects the network part of an address.\n\n\
    ## Hosts\n\nA /24 network has 254 usable hosts.\n";

fn no_progress(_: usize, _: usize, _: &str) {}

async fn a_markdown_file_is_stored_as_chunks_that_cite_its_headings(t: &TestApp) {
    let ingested = t.app.documents().ingest(t.learner, " notes.md ", NOTES.as_bytes().to_vec()).await.unwrap();
    assert_eq!(ingested.document.name, "notes.md");
    assert_eq!(
        (ingested.document.format.as_str(), ingested.document.title.as_deref()),
        ("markdown", Some("Subnetting"))
    );
    assert_eq!((ingested.added, ingested.kept, ingested.removed, ingested.unchanged), (3, 0, 0, false));
    let listed = t.app.documents().list(t.learner).await.unwrap();
    assert_eq!(listed.iter().map(|d| d.id).collect::<Vec<_>>(), vec![ingested.document.id]);
    let read = t.app.documents().get(t.learner, ingested.document.id).await.unwrap();
    let citations: Vec<&str> = read.chunks.iter().map(|c| c.citation.as_str()).collect();
    assert_eq!(citations, ["notes.md, Subnetting", "notes.md, Subnetting > Masks", "notes.md, Subnetting > Hosts"]);
    assert_eq!(read.chunks[2].text, "A /24 network has 254 usable hosts.");
    assert_eq!(read.chunks.iter().map(|c| c.ordinal).collect::<Vec<_>>(), [0, 1, 2]);
}

async fn a_changed_file_keeps_the_chunks_it_still_has_and_an_unchanged_one_is_not_read_again(t: &TestApp) {
    let first = t.app.documents().ingest(t.learner, "notes.md", NOTES.as_bytes().to_vec()).await.unwrap();
    let before = t.app.documents().get(t.learner, first.document.id).await.unwrap();
    let again = t.app.documents().ingest(t.learner, "notes.md", NOTES.as_bytes().to_vec()).await.unwrap();
    assert!(again.unchanged);
    assert_eq!((again.added, again.kept, again.removed), (0, 3, 0));

    t.clock.advance(chrono::Duration::minutes(5));
    let edited = NOTES.replace("254 usable hosts", "254 usable hosts (256 addresses less two)")
        + "\n## Gateways\n\nThe gateway is usually the first host.\n";
    let changed = t.app.documents().ingest(t.learner, "notes.md", edited.into_bytes()).await.unwrap();
    assert_eq!(changed.document.id, first.document.id, "the same name is the same document");
    assert_eq!(changed.document.ingested_at, first.document.ingested_at);
    assert_eq!(changed.document.updated_at, t.clock_now());
    assert_eq!((changed.added, changed.kept, changed.removed, changed.unchanged), (2, 2, 1, false));
    let after = t.app.documents().get(t.learner, first.document.id).await.unwrap();
    assert_eq!(after.chunks.len(), 4);
    assert_eq!(after.chunks[0].id, before.chunks[0].id, "an unchanged chunk keeps its id");
    assert_eq!(after.chunks[1].id, before.chunks[1].id);
    assert_ne!(after.chunks[2].id, before.chunks[2].id, "an edited chunk is a new one");
    assert!(after.chunks[2].text.contains("256 addresses"));
    assert_eq!(after.chunks[3].citation, "notes.md, Subnetting > Gateways");
}

async fn a_pdf_chunk_cites_its_page_and_heading(t: &TestApp) {
    let pdf = sample::pdf(&[
        SamplePage::new(vec![
            SampleParagraph::heading(sample::CHAPTER_FONT_SIZE, "Chapter 1 Addresses"),
            SampleParagraph::body("An IPv4 address has thirty-two bits, written as four octets."),
        ]),
        SamplePage::new(vec![
            SampleParagraph::heading(sample::SECTION_FONT_SIZE, "1.1 Masks"),
            SampleParagraph::body("A mask marks which bits name the network and which name the host."),
        ]),
    ]);
    let ingested = t.app.documents().ingest(t.learner, "book.pdf", pdf).await.unwrap();
    assert_eq!((ingested.document.format.as_str(), ingested.document.pages), ("pdf", Some(2)));
    let read = t.app.documents().get(t.learner, ingested.document.id).await.unwrap();
    let masks = read.chunks.iter().find(|c| c.text.contains("which bits name the network")).expect("the page 2 text");
    assert_eq!(masks.page, Some(2));
    assert_eq!(masks.citation, "book.pdf, p. 2, Chapter 1 Addresses > 1.1 Masks");
}

async fn bad_files_are_refused_saying_what_was_wrong_and_store_nothing(t: &TestApp) {
    let app = t.app.clone().with_authoring_settings(AuthoringSettings {
        limits: pathwise_ingest::Limits { max_bytes: 64 * 1024, ..Default::default() },
        ..Default::default()
    });
    let cases: Vec<(&str, Vec<u8>, ErrorKind, ErrorCode, &str)> = vec![
        ("empty.md", Vec::new(), ErrorKind::Invalid, ErrorCode::Empty, "empty"),
        ("blank.txt", b" \n\n\t ".to_vec(), ErrorKind::Invalid, ErrorCode::Empty, "no readable text"),
        ("big.txt", vec![b'a'; 64 * 1024 + 1], ErrorKind::TooLarge, ErrorCode::TooLarge, "over the 65536-byte limit"),
        (
            "report.docx",
            b"PK\x03\x04".to_vec(),
            ErrorKind::Invalid,
            ErrorCode::UnsupportedFormat,
            "not a supported format",
        ),
        ("binary.md", b"\x00\x01\x02 ELF".to_vec(), ErrorKind::Invalid, ErrorCode::Binary, "binary data"),
        (
            "noise.pdf",
            b"%PDF-1.4 this is not a PDF at all".to_vec(),
            ErrorKind::Invalid,
            ErrorCode::MalformedPdf,
            "not a readable PDF",
        ),
        ("locked.pdf", sample::encrypted_pdf(), ErrorKind::Invalid, ErrorCode::EncryptedPdf, "remove the password"),
        ("scan.pdf", sample::image_only_pdf(2), ErrorKind::Invalid, ErrorCode::NoTextLayer, "run OCR"),
    ];
    for (name, bytes, kind, code, says) in cases {
        let refused = app.documents().ingest(t.learner, name, bytes).await.unwrap_err();
        assert_eq!((refused.kind, refused.code), (kind, code), "{name}: {}", refused.message);
        assert!(refused.message.contains(name) && refused.message.contains(says), "{name}: {}", refused.message);
        assert_eq!(refused.details["file"], name);
    }
    let blank = app.documents().ingest(t.learner, "  ", b"text".to_vec()).await.unwrap_err();
    assert_eq!((blank.kind, blank.details["field"].as_str()), (ErrorKind::Invalid, Some("name")));
    assert!(app.documents().list(t.learner).await.unwrap().is_empty(), "nothing is stored");
}

async fn a_folder_is_ingested_whole_or_not_at_all(t: &TestApp) {
    let folder = tempfile::tempdir().unwrap();
    let course = folder.path().join("course");
    std::fs::create_dir_all(course.join("part2")).unwrap();
    std::fs::write(course.join("a.md"), NOTES).unwrap();
    std::fs::write(course.join("part2/b.txt"), "Routing\n\nA router forwards packets between networks.").unwrap();
    std::fs::write(course.join(".hidden.md"), "# Hidden").unwrap();
    std::fs::write(course.join("picture.png"), [0x89, b'P', b'N', b'G']).unwrap();

    let files = files_under(&course, 10).unwrap();
    let names: Vec<&str> = files.iter().map(|f| f.name.as_str()).collect();
    assert_eq!(names, ["course/a.md", "course/part2/b.txt"], "hidden and unsupported files are left out");
    let too_many = files_under(&course, 1).unwrap_err();
    assert_eq!(too_many.code, ErrorCode::TooManyFiles);

    let with_bad =
        [files.clone(), vec![FoundFile { name: "bad.md".into(), path: course.join("picture.png") }]].concat();
    let refused = t.app.documents().ingest_files(t.learner, &with_bad, &no_progress).await.unwrap_err();
    assert_eq!((refused.code, refused.details["file"].as_str()), (ErrorCode::Binary, Some("bad.md")));
    assert!(t.app.documents().list(t.learner).await.unwrap().is_empty(), "one bad file stores none");

    let seen = std::sync::Mutex::new(Vec::new());
    let progress = |done: usize, total: usize, name: &str| seen.lock().unwrap().push((done, total, name.to_string()));
    let ingested = t.app.documents().ingest_files(t.learner, &files, &progress).await.unwrap();
    assert_eq!(ingested.len(), 2);
    assert_eq!(
        seen.into_inner().unwrap(),
        [(0, 2, "course/a.md".to_string()), (1, 2, "course/part2/b.txt".to_string()), (2, 2, String::new())]
    );
}

async fn ingestion_by_path_reads_only_under_the_servers_folder(t: &TestApp) {
    let root = tempfile::tempdir().unwrap();
    let allowed = root.path().join("material");
    std::fs::create_dir_all(&allowed).unwrap();
    std::fs::write(allowed.join("notes.md"), NOTES).unwrap();
    std::fs::write(root.path().join("secret.md"), "# Secret\n\nNot for ingestion.").unwrap();

    let refused = t.app.documents().ingest_path(t.learner, &allowed.join("notes.md"), &no_progress).await.unwrap_err();
    assert_eq!((refused.kind, refused.code), (ErrorKind::Forbidden, ErrorCode::IngestPathDisabled));
    assert!(refused.message.contains("ingest_dir"), "{}", refused.message);

    let app = t
        .app
        .clone()
        .with_authoring_settings(AuthoringSettings { ingest_dir: Some(allowed.clone()), ..Default::default() });
    for outside in [root.path().join("secret.md"), allowed.join("../secret.md"), "../secret.md".into()] {
        let refused = app.documents().ingest_path(t.learner, &outside, &no_progress).await.unwrap_err();
        assert_eq!(
            (refused.kind, refused.code),
            (ErrorKind::Forbidden, ErrorCode::OutsideIngestDir),
            "{}",
            outside.display()
        );
    }
    let missing = app.documents().ingest_path(t.learner, "nothing-here.md".as_ref(), &no_progress).await.unwrap_err();
    assert_eq!(missing.kind, ErrorKind::NotFound);
    assert!(app.documents().list(t.learner).await.unwrap().is_empty());

    let ingested = app.documents().ingest_path(t.learner, "notes.md".as_ref(), &no_progress).await.unwrap();
    assert_eq!(ingested.iter().map(|d| d.document.name.as_str()).collect::<Vec<_>>(), ["notes.md"]);
    let folder = app.documents().ingest_path(t.learner, &allowed, &no_progress).await.unwrap();
    assert_eq!(folder[0].document.name, "material/notes.md");
}

async fn another_learners_material_is_not_found(t: &TestApp) {
    let mine = t.app.documents().ingest(t.learner, "notes.md", NOTES.as_bytes().to_vec()).await.unwrap();
    let other = t.app.create_learner("Grace").await.unwrap().learner.id;
    assert!(t.app.documents().list(other).await.unwrap().is_empty());
    let read = t.app.documents().get(other, mine.document.id).await.unwrap_err();
    assert_eq!(read.kind, ErrorKind::NotFound);
    let delete = t.app.documents().delete(other, mine.document.id).await.unwrap_err();
    assert_eq!(delete.kind, ErrorKind::NotFound);
    // The same name is another document of theirs; mine is untouched.
    let theirs = t.app.documents().ingest(other, "notes.md", b"# Theirs\n\nSomething else.".to_vec()).await.unwrap();
    assert_ne!(theirs.document.id, mine.document.id);
    assert_eq!(t.app.documents().get(t.learner, mine.document.id).await.unwrap().chunks.len(), 3);
    t.app.documents().delete(t.learner, mine.document.id).await.unwrap();
    assert!(t.app.documents().list(t.learner).await.unwrap().is_empty());
    assert_eq!(t.app.documents().list(other).await.unwrap().len(), 1);
}
