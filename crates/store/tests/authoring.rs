//! Authoring on SQLite and on PostgreSQL: the files a learner ingests, kept as chunks that
//! keep their ids while their content is unchanged; the drafts of their courses, replaced
//! only from the version read; and the courses they publish, seen by whom they are shared
//! with. Everything is the owner's: another learner finds none of it.

use chrono::{DateTime, Duration, Utc};
use pathwise_domain::{CourseDraftId, DomainError, LearnerId, SourceChunkId, SourceDocumentId, TokenId};
use pathwise_store::{
    AnyStore, AuthoringStore, ChunkSync, CourseDraftRecord, CourseRecord, Learner, LearnerAdminStore, NewToken,
    SourceChunkRecord, SourceDocumentRecord, Store, StoreError, TutorStore,
};
use serde_json::json;
use std::collections::HashMap;
use uuid::Uuid;

pathwise_test_support::conformance!(
    a_learner_publishes_a_course_id_only_they_hold,
    an_ingested_document_is_stored_with_its_chunks_in_order,
    ingesting_a_changed_file_keeps_the_unchanged_chunks_and_the_documents_id,
    a_long_file_is_stored_and_synced_whole,
    the_same_name_for_another_learner_is_another_document,
    another_learners_documents_and_chunks_are_not_found,
    a_repeated_content_hash_is_refused_and_writes_nothing,
    a_failed_ingestion_leaves_the_stored_document_as_it_was,
    deleting_a_document_deletes_its_chunks,
    a_draft_is_listed_newest_first_and_replaced_only_from_the_version_read_by_its_owner,
    a_published_course_keeps_its_owner_and_is_seen_by_whom_it_is_shared_with,
    deleting_a_learner_deletes_their_documents_drafts_and_courses,
);

/// `minutes` after 09:00 UTC on 2 March 2026 (whole seconds, which both databases keep
/// exactly).
fn at(minutes: i64) -> DateTime<Utc> {
    DateTime::parse_from_rfc3339("2026-03-02T09:00:00Z").unwrap().with_timezone(&Utc) + Duration::minutes(minutes)
}

fn id() -> Uuid {
    Uuid::now_v7()
}

async fn new_learner(store: &AnyStore, name: &str) -> LearnerId {
    let learner = Learner { id: LearnerId(id()), name: name.into(), is_local: false, created_at: at(0) };
    let token = NewToken {
        id: TokenId(id()),
        learner_id: learner.id,
        name: "default".into(),
        token_hash: format!("hash-of-{name}-{}", learner.id),
        created_at: at(0),
    };
    store.create_learner(&learner, &token).await.expect("create learner");
    learner.id
}

/// A document of `owner`'s named `name`, as ingested at `minute`, with `chunks` chunks.
fn document(owner: LearnerId, name: &str, minute: i64, chunks: usize) -> SourceDocumentRecord {
    SourceDocumentRecord {
        id: SourceDocumentId(id()),
        owner_id: owner,
        name: name.into(),
        format: "markdown".into(),
        title: Some(format!("{name} as of minute {minute}")),
        pages: None,
        byte_size: 1_000 + minute,
        file_hash: format!("{name}-at-{minute}"),
        chunk_count: chunks as i32,
        ingested_at: at(minute),
        updated_at: at(minute),
    }
}

/// The chunk of content `content` at `ordinal`, under a new id. Its hash is the content's,
/// as the ingester's would be.
fn chunk(content: &str, ordinal: i32) -> SourceChunkRecord {
    SourceChunkRecord {
        id: SourceChunkId(id()),
        // Whatever the caller says here, the chunk is stored under the document it is
        // written with.
        document_id: SourceDocumentId(id()),
        ordinal,
        content_hash: format!("hash-of-{content}"),
        heading_path: vec!["Sets".into(), content.to_uppercase()],
        page: Some(ordinal + 1),
        text: format!("What {content} says."),
    }
}

/// Chunks of `contents`, in that order.
fn chunks(contents: &[&str]) -> Vec<SourceChunkRecord> {
    contents.iter().enumerate().map(|(i, content)| chunk(content, i as i32)).collect()
}

/// A chunk as it is read back from `document`.
fn stored(chunk: &SourceChunkRecord, document: SourceDocumentId) -> SourceChunkRecord {
    SourceChunkRecord { document_id: document, ..chunk.clone() }
}

fn sync(added: usize, kept: usize, removed: usize) -> ChunkSync {
    ChunkSync { added, kept, removed }
}

fn count(counts: &[(String, i64)], table: &str) -> i64 {
    counts.iter().find(|(name, _)| name == table).map(|(_, n)| *n).expect("a counted table")
}

async fn an_ingested_document_is_stored_with_its_chunks_in_order(store: &AnyStore) {
    let ada = new_learner(store, "Ada").await;
    let notes = document(ada, "notes/sets.md", 1, 3);
    // Given out of order: they are read back by their place in the document.
    let mut given = chunks(&["union", "intersection", "complement"]);
    given[2].page = None;
    given.swap(0, 2);
    let (written, synced) = store.put_source_document(&notes, &given).await.unwrap();
    assert_eq!(written, notes, "a new document is stored as given");
    assert_eq!(synced, sync(3, 0, 0));

    assert_eq!(store.source_document(ada, notes.id).await.unwrap().as_ref(), Some(&notes));
    assert_eq!(store.source_document_by_name(ada, "notes/sets.md").await.unwrap().as_ref(), Some(&notes));
    assert_eq!(store.source_document_by_name(ada, "notes/other.md").await.unwrap(), None);
    let mut in_order: Vec<SourceChunkRecord> = given.iter().map(|c| stored(c, notes.id)).collect();
    in_order.sort_by_key(|c| c.ordinal);
    assert_eq!(store.source_chunks(ada, notes.id).await.unwrap(), in_order);

    let earlier = document(ada, "a-first.txt", 2, 0);
    let earlier = SourceDocumentRecord { format: "text".into(), title: None, pages: Some(4), ..earlier };
    assert_eq!(store.put_source_document(&earlier, &[]).await.unwrap(), (earlier.clone(), sync(0, 0, 0)));
    assert_eq!(store.list_source_documents(ada).await.unwrap(), vec![earlier.clone(), notes.clone()], "by name");
    assert_eq!(store.source_chunks(ada, earlier.id).await.unwrap(), vec![]);

    let wanted = [in_order[2].id, in_order[0].id, SourceChunkId(id()), in_order[0].id];
    let mut found = store.source_chunks_by_id(ada, &wanted).await.unwrap();
    found.sort_by_key(|c| c.ordinal);
    assert_eq!(found, vec![in_order[0].clone(), in_order[2].clone()], "each chunk once, and only those there are");
    assert_eq!(store.source_chunks_by_id(ada, &[]).await.unwrap(), vec![]);
}

async fn ingesting_a_changed_file_keeps_the_unchanged_chunks_and_the_documents_id(store: &AnyStore) {
    let ada = new_learner(store, "Ada").await;
    let first = document(ada, "sets.md", 1, 4);
    let before = chunks(&["union", "intersection", "complement", "power set"]);
    store.put_source_document(&first, &before).await.unwrap();

    // The file edited: "union" gone, "difference" new, the rest moved; the caller knows
    // nothing of the stored ids, and gives new ones throughout.
    let edited = document(ada, "sets.md", 30, 4);
    let after = chunks(&["intersection", "difference", "power set", "complement"]);
    let (written, synced) = store.put_source_document(&edited, &after).await.unwrap();
    assert_eq!(synced, sync(1, 3, 1));
    let expected = SourceDocumentRecord { id: first.id, ingested_at: first.ingested_at, ..edited.clone() };
    assert_eq!(written, expected, "the document keeps its id and first ingestion; the rest is the new file's");
    assert_eq!(store.source_document(ada, first.id).await.unwrap().as_ref(), Some(&expected));
    assert_eq!(store.source_document(ada, edited.id).await.unwrap(), None, "no second document");
    assert_eq!(store.list_source_documents(ada).await.unwrap(), vec![expected.clone()]);

    let by_content: HashMap<&str, SourceChunkId> = before.iter().map(|c| (c.content_hash.as_str(), c.id)).collect();
    let kept_or_given = |c: &SourceChunkRecord| SourceChunkRecord {
        id: by_content.get(c.content_hash.as_str()).copied().unwrap_or(c.id),
        ..stored(c, first.id)
    };
    let now: Vec<SourceChunkRecord> = after.iter().map(kept_or_given).collect();
    assert_eq!(store.source_chunks(ada, first.id).await.unwrap(), now, "kept chunks keep their ids in their new place");
    assert_eq!(now[1].id, after[1].id, "the new chunk has the id it was given");
    assert_eq!(store.source_chunks_by_id(ada, &[before[0].id]).await.unwrap(), vec![], "the vanished chunk is gone");

    // The same file again changes nothing; a chunk whose text moved under the same hash
    // takes the new text.
    let (_, synced) = store.put_source_document(&edited, &after).await.unwrap();
    assert_eq!(synced, sync(0, 4, 0));
    let mut retitled = after.clone();
    retitled[0].text = "What intersection says, reworded.".into();
    retitled[0].heading_path = vec!["Operations".into()];
    retitled[0].page = None;
    let (_, synced) = store.put_source_document(&edited, &retitled).await.unwrap();
    assert_eq!(synced, sync(0, 4, 0));
    let read = store.source_chunks(ada, first.id).await.unwrap();
    assert_eq!(read[0], SourceChunkRecord { id: now[0].id, ..stored(&retitled[0], first.id) });

    // Emptied, the document stays, without chunks.
    let emptied = document(ada, "sets.md", 40, 0);
    let (written, synced) = store.put_source_document(&emptied, &[]).await.unwrap();
    assert_eq!((written.id, synced), (first.id, sync(0, 0, 4)));
    assert_eq!(store.source_chunks(ada, first.id).await.unwrap(), vec![]);
}

async fn a_long_file_is_stored_and_synced_whole(store: &AnyStore) {
    let ada = new_learner(store, "Ada").await;
    let contents: Vec<String> = (0..3_000).map(|i| format!("passage {i}")).collect();
    let names: Vec<&str> = contents.iter().map(String::as_str).collect();
    let book = document(ada, "book.pdf", 1, names.len());
    let before = chunks(&names);
    assert_eq!(store.put_source_document(&book, &before).await.unwrap().1, sync(3_000, 0, 0));

    // A page inserted near the start moves everything after it; the first passage is cut.
    let mut edited: Vec<&str> = names[1..].to_vec();
    edited.insert(10, "a new passage");
    let after = chunks(&edited);
    assert_eq!(store.put_source_document(&book, &after).await.unwrap().1, sync(1, 2_999, 1));
    let read = store.source_chunks(ada, book.id).await.unwrap();
    assert_eq!(read.len(), 3_000);
    assert!(read.iter().enumerate().all(|(i, c)| c.ordinal == i as i32), "in their new order");
    assert_eq!(read[10].content_hash, "hash-of-a new passage");
    assert_eq!(read[11].id, before[11].id, "moved, kept");
    assert_eq!(read[2_999].id, before[2_999].id);
    let ids: Vec<SourceChunkId> = before.iter().map(|c| c.id).collect();
    assert_eq!(store.source_chunks_by_id(ada, &ids).await.unwrap().len(), 2_999, "all but the cut one");
}

async fn the_same_name_for_another_learner_is_another_document(store: &AnyStore) {
    let (ada, bob) = (new_learner(store, "Ada").await, new_learner(store, "Bob").await);
    let adas = document(ada, "notes.md", 1, 2);
    store.put_source_document(&adas, &chunks(&["union", "intersection"])).await.unwrap();
    let bobs = document(bob, "notes.md", 2, 2);
    let (written, synced) = store.put_source_document(&bobs, &chunks(&["union", "intersection"])).await.unwrap();
    assert_eq!((written, synced), (bobs.clone(), sync(2, 0, 0)), "nothing of Ada's is Bob's to keep");
    assert_eq!(store.list_source_documents(ada).await.unwrap(), vec![adas.clone()]);
    assert_eq!(store.list_source_documents(bob).await.unwrap(), vec![bobs.clone()]);
    assert_eq!(store.source_document_by_name(bob, "notes.md").await.unwrap(), Some(bobs));
}

async fn another_learners_documents_and_chunks_are_not_found(store: &AnyStore) {
    let (ada, bob) = (new_learner(store, "Ada").await, new_learner(store, "Bob").await);
    let adas = document(ada, "private.md", 1, 2);
    let given = chunks(&["diary", "secrets"]);
    store.put_source_document(&adas, &given).await.unwrap();
    let ids: Vec<SourceChunkId> = given.iter().map(|c| c.id).collect();

    assert_eq!(store.source_document(bob, adas.id).await.unwrap(), None);
    assert_eq!(store.source_document_by_name(bob, "private.md").await.unwrap(), None);
    assert_eq!(store.list_source_documents(bob).await.unwrap(), vec![]);
    assert_eq!(store.source_chunks(bob, adas.id).await.unwrap(), vec![]);
    assert_eq!(store.source_chunks_by_id(bob, &ids).await.unwrap(), vec![]);
    assert!(!store.delete_source_document(bob, adas.id).await.unwrap());
    assert_eq!(store.source_document(ada, adas.id).await.unwrap(), Some(adas.clone()), "still Ada's");
    assert_eq!(store.source_chunks(ada, adas.id).await.unwrap().len(), 2);
}

async fn a_repeated_content_hash_is_refused_and_writes_nothing(store: &AnyStore) {
    let ada = new_learner(store, "Ada").await;
    let before = store.table_counts().await.unwrap();
    let twice = chunks(&["union", "intersection", "union"]);
    let refused = store.put_source_document(&document(ada, "sets.md", 1, 3), &twice).await;
    match refused {
        Err(StoreError::Rejected(DomainError::Invalid { field, message })) => {
            assert_eq!(field, "chunks");
            assert!(message.contains("hash-of-union"), "{message}");
        }
        other => panic!("{other:?}"),
    }
    assert_eq!(store.table_counts().await.unwrap(), before);

    let stored = document(ada, "sets.md", 2, 1);
    store.put_source_document(&stored, &chunks(&["union"])).await.unwrap();
    let refused = store.put_source_document(&document(ada, "sets.md", 3, 3), &twice).await;
    assert!(matches!(refused, Err(StoreError::Rejected(DomainError::Invalid { .. }))), "{refused:?}");
    assert_eq!(store.source_document(ada, stored.id).await.unwrap(), Some(stored.clone()), "unchanged");
}

async fn a_failed_ingestion_leaves_the_stored_document_as_it_was(store: &AnyStore) {
    let ada = new_learner(store, "Ada").await;
    let other = document(ada, "other.md", 1, 1);
    let others = chunks(&["elsewhere"]);
    store.put_source_document(&other, &others).await.unwrap();
    let sets = document(ada, "sets.md", 2, 3);
    let before = chunks(&["union", "intersection", "complement"]);
    store.put_source_document(&sets, &before).await.unwrap();
    let chunks_before = store.source_chunks(ada, sets.id).await.unwrap();
    let counts = store.table_counts().await.unwrap();

    // The edit deletes a chunk and moves another before its one new chunk fails (its id is
    // taken): the whole of it is undone.
    let mut after = chunks(&["complement", "intersection", "difference"]);
    after[2].id = others[0].id;
    let failed = store.put_source_document(&document(ada, "sets.md", 3, 3), &after).await;
    assert!(failed.is_err(), "{failed:?}");
    assert_eq!(store.source_document(ada, sets.id).await.unwrap().as_ref(), Some(&sets));
    assert_eq!(store.source_chunks(ada, sets.id).await.unwrap(), chunks_before);
    assert_eq!(store.table_counts().await.unwrap(), counts);
}

async fn deleting_a_document_deletes_its_chunks(store: &AnyStore) {
    let ada = new_learner(store, "Ada").await;
    let kept = document(ada, "kept.md", 1, 1);
    store.put_source_document(&kept, &chunks(&["kept"])).await.unwrap();
    let before = store.table_counts().await.unwrap();
    let gone = document(ada, "gone.md", 2, 2);
    let given = chunks(&["union", "intersection"]);
    store.put_source_document(&gone, &given).await.unwrap();

    assert!(store.delete_source_document(ada, gone.id).await.unwrap());
    assert!(!store.delete_source_document(ada, gone.id).await.unwrap(), "deleted once");
    assert_eq!(store.table_counts().await.unwrap(), before, "its chunks went with it");
    let ids: Vec<SourceChunkId> = given.iter().map(|c| c.id).collect();
    assert_eq!(store.source_chunks_by_id(ada, &ids).await.unwrap(), vec![]);
    assert_eq!(store.list_source_documents(ada).await.unwrap(), vec![kept]);
}

fn draft(owner: LearnerId, title: &str, minute: i64) -> CourseDraftRecord {
    CourseDraftRecord {
        id: CourseDraftId(id()),
        owner_id: owner,
        title: title.into(),
        stage: "outline".into(),
        version: 0,
        created_at: at(minute),
        updated_at: at(minute),
        draft: json!({ "title": title, "units": [{ "title": "Basics", "cites": [] }] }),
    }
}

async fn a_draft_is_listed_newest_first_and_replaced_only_from_the_version_read_by_its_owner(store: &AnyStore) {
    let (ada, bob) = (new_learner(store, "Ada").await, new_learner(store, "Bob").await);
    let sets = draft(ada, "Sets", 1);
    let logic = draft(ada, "Logic", 2);
    store.insert_course_draft(&sets).await.unwrap();
    store.insert_course_draft(&logic).await.unwrap();
    assert_eq!(store.course_draft(ada, sets.id).await.unwrap().as_ref(), Some(&sets));
    assert_eq!(store.list_course_drafts(ada).await.unwrap(), vec![logic.clone(), sets.clone()], "newest first");

    let drafted = CourseDraftRecord {
        title: "Sets, drafted".into(),
        stage: "units".into(),
        version: 1,
        updated_at: at(10),
        draft: json!({ "title": "Sets, drafted", "units": [{ "title": "Basics", "text": "A set is…" }] }),
        ..sets.clone()
    };
    assert!(store.update_course_draft(&drafted, 0).await.unwrap());
    assert_eq!(store.course_draft(ada, sets.id).await.unwrap().as_ref(), Some(&drafted));
    assert_eq!(store.list_course_drafts(ada).await.unwrap(), vec![drafted.clone(), logic.clone()], "updated, newest");

    // Written from the version read before: refused, and nothing changes.
    let stale = CourseDraftRecord { title: "Sets, stale".into(), version: 1, updated_at: at(11), ..sets.clone() };
    assert!(!store.update_course_draft(&stale, 0).await.unwrap());
    assert_eq!(store.course_draft(ada, sets.id).await.unwrap().as_ref(), Some(&drafted));

    // Bob finds nothing of Ada's, whatever he knows of it.
    assert_eq!(store.course_draft(bob, sets.id).await.unwrap(), None);
    assert_eq!(store.list_course_drafts(bob).await.unwrap(), vec![]);
    let bobs = CourseDraftRecord { owner_id: bob, title: "Mine now".into(), version: 2, ..drafted.clone() };
    assert!(!store.update_course_draft(&bobs, 1).await.unwrap());
    assert!(!store.delete_course_draft(bob, sets.id).await.unwrap());
    assert_eq!(store.course_draft(ada, sets.id).await.unwrap().as_ref(), Some(&drafted));

    assert!(store.delete_course_draft(ada, sets.id).await.unwrap());
    assert!(!store.delete_course_draft(ada, sets.id).await.unwrap(), "deleted once");
    assert_eq!(store.course_draft(ada, sets.id).await.unwrap(), None);
    assert_eq!(store.list_course_drafts(ada).await.unwrap(), vec![logic]);
}

fn course(id: &str, owner: Option<LearnerId>) -> CourseRecord {
    CourseRecord {
        id: id.into(),
        title: format!("The {id} course"),
        pack: json!({ "units": [{ "id": "u1" }] }),
        content_hash: format!("hash-of-{id}"),
        builtin: owner.is_none(),
        unit_count: 1,
        question_count: 2,
        imported_at: at(0),
        owner_id: owner,
    }
}

fn listed(course: &CourseRecord) -> CourseRecord {
    CourseRecord { pack: serde_json::Value::Null, ..course.clone() }
}

async fn a_published_course_keeps_its_owner_and_is_seen_by_whom_it_is_shared_with(store: &AnyStore) {
    let (ada, bob, cleo) =
        (new_learner(store, "Ada").await, new_learner(store, "Bob").await, new_learner(store, "Cleo").await);
    let shipped = course("algebra", None);
    let adas = course("ada-sets", Some(ada));
    let bobs = course("bob-logic", Some(bob));
    for c in [&shipped, &adas, &bobs] {
        store.put_course(c).await.unwrap();
    }
    assert_eq!(store.get_course("ada-sets").await.unwrap().as_ref(), Some(&adas), "the owner is kept");
    assert_eq!(store.list_courses().await.unwrap(), vec![listed(&adas), listed(&shipped), listed(&bobs)]);

    assert_eq!(store.list_courses_for(ada).await.unwrap(), vec![listed(&adas), listed(&shipped)]);
    assert_eq!(store.list_courses_for(bob).await.unwrap(), vec![listed(&shipped), listed(&bobs)]);
    assert_eq!(store.list_courses_for(cleo).await.unwrap(), vec![listed(&shipped)]);
    assert!(store.course_visible_to("algebra", cleo).await.unwrap());
    assert!(store.course_visible_to("ada-sets", ada).await.unwrap());
    assert!(!store.course_visible_to("ada-sets", cleo).await.unwrap());
    assert!(!store.course_visible_to("nowhere", ada).await.unwrap());

    store.share_course("ada-sets", cleo, at(5)).await.unwrap();
    store.share_course("ada-sets", cleo, at(6)).await.unwrap();
    store.share_course("ada-sets", bob, at(7)).await.unwrap();
    assert_eq!(store.course_shares("ada-sets").await.unwrap(), vec![cleo, bob], "once each, in the order shared");
    assert_eq!(store.course_shares("bob-logic").await.unwrap(), vec![]);
    assert_eq!(store.list_courses_for(cleo).await.unwrap(), vec![listed(&adas), listed(&shipped)]);
    assert_eq!(store.list_courses_for(bob).await.unwrap(), vec![listed(&adas), listed(&shipped), listed(&bobs)]);
    assert!(store.course_visible_to("ada-sets", cleo).await.unwrap());
    assert!(!store.course_visible_to("bob-logic", cleo).await.unwrap());
    // Shared with whom sees it anyway: listed once.
    store.share_course("bob-logic", bob, at(8)).await.unwrap();
    store.share_course("algebra", cleo, at(8)).await.unwrap();
    assert_eq!(store.list_courses_for(bob).await.unwrap(), vec![listed(&adas), listed(&shipped), listed(&bobs)]);
    assert_eq!(store.list_courses_for(cleo).await.unwrap(), vec![listed(&adas), listed(&shipped)]);

    assert!(store.unshare_course("ada-sets", cleo).await.unwrap());
    assert!(!store.unshare_course("ada-sets", cleo).await.unwrap(), "unshared once");
    assert_eq!(store.course_shares("ada-sets").await.unwrap(), vec![bob]);
    assert_eq!(store.list_courses_for(cleo).await.unwrap(), vec![listed(&shipped)]);
    assert!(!store.course_visible_to("ada-sets", cleo).await.unwrap());

    let missing = store.share_course("nowhere", cleo, at(9)).await;
    assert!(matches!(missing, Err(StoreError::NotFound(_))), "{missing:?}");

    // Imported again by the operator, a course is the operator's, seen by everyone.
    let taken_over = course("ada-sets", None);
    store.put_course(&taken_over).await.unwrap();
    assert_eq!(store.get_course("ada-sets").await.unwrap().unwrap().owner_id, None);
    assert!(store.course_visible_to("ada-sets", cleo).await.unwrap());
}

async fn deleting_a_learner_deletes_their_documents_drafts_and_courses(store: &AnyStore) {
    let bob = new_learner(store, "Bob").await;
    store.put_course(&course("algebra", None)).await.unwrap();
    let bobs_course = course("bob-logic", Some(bob));
    store.put_course(&bobs_course).await.unwrap();
    store.put_source_document(&document(bob, "notes.md", 1, 1), &chunks(&["logic"])).await.unwrap();
    store.insert_course_draft(&draft(bob, "Logic", 1)).await.unwrap();
    let only_bob = store.table_counts().await.unwrap();

    let ada = new_learner(store, "Ada").await;
    store.put_source_document(&document(ada, "notes.md", 2, 2), &chunks(&["union", "logic"])).await.unwrap();
    store.insert_course_draft(&draft(ada, "Sets", 2)).await.unwrap();
    store.put_course(&course("ada-sets", Some(ada))).await.unwrap();
    store.share_course("ada-sets", bob, at(3)).await.unwrap();
    store.share_course("bob-logic", ada, at(3)).await.unwrap();
    let with_ada = store.table_counts().await.unwrap();
    for table in ["source_documents", "source_chunks", "course_drafts", "courses", "course_shares"] {
        assert!(count(&with_ada, table) > count(&only_bob, table), "Ada has rows in {table}");
    }

    assert!(store.delete_learner(ada).await.unwrap());
    assert_eq!(store.table_counts().await.unwrap(), only_bob, "nothing of Ada's is left, and all of Bob's is");
    assert_eq!(store.get_course("ada-sets").await.unwrap(), None);
    assert_eq!(
        store.list_courses_for(bob).await.unwrap(),
        vec![listed(&course("algebra", None)), listed(&bobs_course)]
    );
    assert_eq!(store.course_shares("bob-logic").await.unwrap(), vec![]);
}

async fn a_learner_publishes_a_course_id_only_they_hold(store: &AnyStore) {
    let (ada, bob) = (new_learner(store, "Ada").await, new_learner(store, "Bob").await);
    store.put_course(&course("algebra", None)).await.unwrap();
    let adas = course("ada-sets", None);
    assert!(store.publish_course(&adas, ada).await.unwrap(), "a new id is published");
    assert_eq!(store.get_course("ada-sets").await.unwrap().unwrap().owner_id, Some(ada));
    let mut again = course("ada-sets", Some(bob));
    again.title = "Sets, again".into();
    assert!(store.publish_course(&again, ada).await.unwrap(), "the owner publishes again");
    let stored = store.get_course("ada-sets").await.unwrap().unwrap();
    assert_eq!((stored.title.as_str(), stored.owner_id), ("Sets, again", Some(ada)), "the owner is the publisher's");

    // Someone else's id: another learner's, or the operator's, is not taken over.
    let before = store.table_counts().await.unwrap();
    assert!(!store.publish_course(&course("ada-sets", None), bob).await.unwrap());
    assert!(!store.publish_course(&course("algebra", None), bob).await.unwrap());
    assert_eq!(store.table_counts().await.unwrap(), before);
    assert_eq!(store.get_course("ada-sets").await.unwrap().unwrap().title, "Sets, again");
    assert_eq!(store.get_course("algebra").await.unwrap().unwrap().owner_id, None);
}
