//! Courses: importing a pack (checked whole, stored whole), installing the shipped ones, and
//! the in-memory copy each server keeps of a course with its retrieval index, rebuilt from
//! the store whenever the stored course changes.

use crate::StoreHandle;
use crate::{App, AppError, AppResult, ErrorCode, ErrorKind};
use pathwise_course::{builtin_courses, Course, CourseError, CoursePack, PackFormat, Tier};
use pathwise_domain::LearnerId;
use pathwise_retrieval::CourseIndex;
use pathwise_store::CourseRecord;
use pathwise_store::{AuthoringStore, MapStore, TutorStore};
use serde::Serialize;
use serde_json::json;
use sha2::{Digest, Sha256};
use std::collections::HashMap;
use std::sync::{Arc, RwLock};

/// A course ready to tutor with: checked, indexed.
pub struct LoadedCourse {
    pub course: Course,
    pub index: CourseIndex,
    pub hash: String,
}

/// Courses loaded on this server, by id.
#[derive(Clone, Default)]
pub(crate) struct CourseCache(Arc<RwLock<HashMap<String, Arc<LoadedCourse>>>>);

impl CourseCache {
    fn get(&self, id: &str, hash: &str) -> Option<Arc<LoadedCourse>> {
        let cached = self.0.read().expect("course cache lock").get(id).cloned();
        cached.filter(|c| c.hash == hash)
    }

    fn put(&self, id: &str, course: Arc<LoadedCourse>) {
        self.0.write().expect("course cache lock").insert(id.to_string(), course);
    }
}

/// A course as listed.
#[derive(Debug, Clone, Serialize, utoipa::ToSchema, schemars::JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct CourseSummary {
    pub id: String,
    pub title: String,
    pub unit_count: i32,
    pub question_count: i32,
    /// Shipped with Pathwise.
    pub builtin: bool,
    pub content_hash: String,
    pub imported_at: chrono::DateTime<chrono::Utc>,
}

impl From<&CourseRecord> for CourseSummary {
    fn from(r: &CourseRecord) -> Self {
        CourseSummary {
            id: r.id.clone(),
            title: r.title.clone(),
            unit_count: r.unit_count,
            question_count: r.question_count,
            builtin: r.builtin,
            content_hash: r.content_hash.clone(),
            imported_at: r.imported_at,
        }
    }
}

/// A course's structure, for a client to draw: its units in learning order.
#[derive(Debug, Clone, Serialize, utoipa::ToSchema, schemars::JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct CourseOutline {
    pub id: String,
    pub title: String,
    pub description: Option<String>,
    pub entry_unit_id: String,
    pub confusion_tags: Vec<String>,
    pub units: Vec<UnitOutline>,
}

#[derive(Debug, Clone, Serialize, utoipa::ToSchema, schemars::JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct UnitOutline {
    pub id: String,
    pub title: String,
    pub prerequisites: Vec<String>,
    pub tags: Vec<String>,
    /// Drills can be given (generated, or written in the course) and graded exactly without
    /// a model.
    pub has_drills: bool,
    pub exam_questions: HashMap<Tier, usize>,
}

/// A passage of a course's material, as a tutor's card cites it (`sources[].passageId`).
#[derive(Debug, Clone, Serialize, utoipa::ToSchema, schemars::JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct CoursePassage {
    pub passage_id: String,
    pub unit_id: String,
    /// The file, page and headings it comes from (`notes.pdf, p. 3, Masks`).
    pub citation: String,
    pub text: String,
}

/// What an import did.
#[derive(Debug, Clone, Serialize, utoipa::ToSchema, schemars::JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct ImportedCourse {
    #[serde(flatten)]
    pub course: CourseSummary,
    /// False when the stored course was already this content.
    pub changed: bool,
}

fn content_hash(pack: &serde_json::Value) -> String {
    hex::encode(Sha256::digest(pack.to_string().as_bytes()))
}

/// A pack's problems as a client error: each with its field and line.
pub(crate) fn course_error(error: CourseError) -> AppError {
    let problems: Vec<serde_json::Value> = error
        .problems()
        .iter()
        .map(|p| json!({ "field": p.field.to_string(), "line": p.line, "message": p.message }))
        .collect();
    let details = match &error {
        CourseError::Parse { line, .. } => json!({ "line": line }),
        CourseError::Invalid(_) => json!({ "problems": problems }),
    };
    AppError::new(ErrorKind::Invalid, ErrorCode::InvalidCourse, error.to_string()).with_details(details)
}

impl<S: StoreHandle + AuthoringStore + MapStore + TutorStore> App<S> {
    /// Check a course pack and store it (replacing a course of the same id). Nothing is
    /// stored when anything is wrong.
    pub async fn import_course(&self, text: &str, format: PackFormat) -> AppResult<ImportedCourse> {
        let course = Course::parse(text, format, self.library()).map_err(course_error)?;
        self.store_course(course.pack(), false).await
    }

    /// Check a course built in code (a generated one, say) and store it.
    pub async fn install_course(&self, pack: CoursePack) -> AppResult<ImportedCourse> {
        let course = Course::from_pack(pack, self.library()).map_err(course_error)?;
        self.store_course(course.pack(), false).await
    }

    /// Install the shipped courses whose stored copy is missing or different.
    pub async fn install_builtin_courses(&self) -> AppResult<Vec<ImportedCourse>> {
        let mut installed = Vec::new();
        for course in builtin_courses(self.library()) {
            installed.push(self.store_course(course.pack(), true).await?);
        }
        Ok(installed)
    }

    async fn store_course(&self, pack: &CoursePack, builtin: bool) -> AppResult<ImportedCourse> {
        let record = self.course_record(pack, builtin, None)?;
        if let Some(stored) = self.store.get_course(&pack.course_id).await? {
            if stored.content_hash == record.content_hash {
                return Ok(ImportedCourse { course: CourseSummary::from(&stored), changed: false });
            }
        }
        self.store.put_course(&record).await?;
        Ok(ImportedCourse { course: CourseSummary::from(&record), changed: true })
    }

    /// A checked pack as the store keeps it, with the hash that tells a changed one.
    pub(crate) fn course_record(
        &self,
        pack: &CoursePack,
        builtin: bool,
        owner: Option<LearnerId>,
    ) -> AppResult<CourseRecord> {
        let value = serde_json::to_value(pack).map_err(|e| AppError::internal(format!("course pack to JSON: {e}")))?;
        Ok(CourseRecord {
            id: pack.course_id.clone(),
            title: pack.title.clone(),
            content_hash: content_hash(&value),
            pack: value,
            builtin,
            unit_count: pack.units.len() as i32,
            question_count: pack.exam_questions.len() as i32,
            imported_at: self.now(),
            owner_id: owner,
        })
    }

    /// A stored course's pack as a file its author can edit and import again: a shipped
    /// course's own source (comments and all) when TOML is asked for, any other course
    /// written out from its stored pack. It holds the exam bank's keys, so it is the
    /// operator's to read, never a learner's.
    pub async fn course_pack_text(&self, id: &str, format: PackFormat) -> AppResult<String> {
        let record = self.store.get_course(id).await?.ok_or_else(|| AppError::not_found("course", id))?;
        if record.builtin && format == PackFormat::Toml {
            if let Some(source) = pathwise_course::builtin_source(id) {
                return Ok(source.to_string());
            }
        }
        let pack: CoursePack = serde_json::from_value(record.pack)
            .map_err(|e| AppError::internal(format!("stored course {id} is unreadable: {e}")))?;
        pack.to_text(format).map_err(|e| AppError::internal(format!("writing course {id} as a pack: {e}")))
    }

    /// The courses the learner may see: the operator's and the shipped ones, their own, and
    /// those shared with them.
    pub async fn list_courses(&self, learner: LearnerId) -> AppResult<Vec<CourseSummary>> {
        Ok(self.store.list_courses_for(learner).await?.iter().map(CourseSummary::from).collect())
    }

    pub async fn course_outline(&self, learner: LearnerId, id: &str) -> AppResult<CourseOutline> {
        let loaded = self.course_for(learner, id).await?;
        let course = &loaded.course;
        let units = course
            .learning_order()
            .into_iter()
            .map(|u| UnitOutline {
                id: u.id.clone(),
                title: u.title.clone(),
                prerequisites: u.prerequisites.clone(),
                tags: u.tags.clone(),
                has_drills: !u.blueprints.is_empty() || !u.drills.is_empty(),
                exam_questions: Tier::ALL.into_iter().map(|t| (t, course.questions_for(&u.id, t).count())).collect(),
            })
            .collect();
        Ok(CourseOutline {
            id: course.id().to_string(),
            title: course.title().to_string(),
            description: course.description().map(str::to_string),
            entry_unit_id: course.entry_unit().to_string(),
            confusion_tags: course.confusion_tags().to_vec(),
            units,
        })
    }

    /// A passage of a course the learner may see, by the id a card cites it by.
    pub async fn course_passage(&self, learner: LearnerId, course: &str, passage: &str) -> AppResult<CoursePassage> {
        let loaded = self.course_for(learner, course).await?;
        let chunk = loaded.course.passage(passage).ok_or_else(|| AppError::not_found("passage", passage))?;
        Ok(CoursePassage {
            passage_id: passage.to_string(),
            unit_id: chunk.unit.clone(),
            citation: chunk.citation(),
            text: chunk.text.clone(),
        })
    }

    /// A course the learner may see (else not found, as if there were none), checked and
    /// indexed.
    pub async fn course_for(&self, learner: LearnerId, id: &str) -> AppResult<Arc<LoadedCourse>> {
        if !self.store.course_visible_to(id, learner).await? {
            return Err(AppError::not_found("course", id));
        }
        self.course(id).await
    }

    /// A course, checked and indexed; loaded from the store when this server has no current
    /// copy.
    pub async fn course(&self, id: &str) -> AppResult<Arc<LoadedCourse>> {
        let hash = self.store.course_hash(id).await?.ok_or_else(|| AppError::not_found("course", id))?;
        if let Some(loaded) = self.courses.get(id, &hash) {
            return Ok(loaded);
        }
        let record = self.store.get_course(id).await?.ok_or_else(|| AppError::not_found("course", id))?;
        let pack: CoursePack = serde_json::from_value(record.pack)
            .map_err(|e| AppError::internal(format!("stored course {id} is unreadable: {e}")))?;
        let library = self.library.clone();
        let mut loaded = tokio::task::spawn_blocking(move || -> AppResult<LoadedCourse> {
            let course = Course::from_pack(pack, &library)
                .map_err(|e| AppError::internal(format!("stored course no longer checks: {e}")))?;
            let index =
                CourseIndex::build(&course).map_err(|e| AppError::internal(format!("indexing the course: {e}")))?;
            Ok(LoadedCourse { course, index, hash: record.content_hash })
        })
        .await
        .map_err(|e| AppError::internal(format!("loading a course: {e}")))??;
        if let Some(embedder) = &self.embedder {
            // Without its embeddings a course is still searched by BM25; the next load tries again.
            if let Err(e) = embed_documents(embedder, &mut loaded.index).await {
                tracing::warn!(course = id, error = %e, "course embeddings unavailable; retrieval uses BM25 alone");
            }
        }
        let loaded = Arc::new(loaded);
        self.courses.put(id, loaded.clone());
        Ok(loaded)
    }
}

/// Embed every document of the index and attach the vectors.
async fn embed_documents(embedder: &pathwise_llm::Embedder, index: &mut CourseIndex) -> AppResult<()> {
    let documents = index.documents();
    let texts: Vec<String> = documents.iter().map(|(_, text)| text.clone()).collect();
    let vectors = embedder.embed(&texts).await?;
    let vectors = documents.into_iter().map(|(key, _)| key).zip(vectors).collect();
    index.set_embeddings(vectors).map_err(|e| AppError::internal(format!("course embeddings: {e}")))
}
