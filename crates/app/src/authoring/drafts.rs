//! Draft courses from a learner's documents: an outline drafted from their headings, edited
//! by its author under compare-and-set (a stale edit is refused, never merged silently),
//! checked as a whole on every read, and written out as a course pack once it has no
//! problems. A draft is its author's alone.

use crate::course_tutor::catalog::{course_error, CourseSummary, ImportedCourse};
use crate::StoreHandle;
use crate::{App, AppError, AppResult, ErrorCode, ErrorKind};
use chrono::{DateTime, Utc};
use pathwise_course::draft::{outline_from_headings, CourseDraft, DraftSource, Passage};
use pathwise_course::{Course, CoursePack, PackFormat};
use pathwise_domain::{CourseDraftId, LearnerId, SourceChunkId, SourceDocumentId};
use pathwise_items::{Band, Target};
use pathwise_store::{AuthoringStore, MapStore, TutorStore, UsageStore};
use pathwise_store::{CourseDraftRecord, SourceDocumentRecord};
use serde::{Deserialize, Serialize};
use serde_json::json;
use std::collections::{HashMap, HashSet};

/// The longest title a draft may have, as a course's.
const MAX_TITLE_CHARS: usize = 200;
/// The most units a draft holds: a course larger than this is several courses.
pub const MAX_UNITS: usize = 500;

/// What to draft a course from.
#[derive(Debug, Clone, Deserialize, utoipa::ToSchema, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct NewDraft {
    /// The course's title; its id is made from it (`Networking notes` is `NETWORKING-NOTES`).
    #[schema(min_length = 1, max_length = 200)]
    #[schemars(length(min = 1, max = 200))]
    pub title: String,
    /// The documents to draft from, in the order the course takes them; all of the
    /// learner's documents, by name, when left out.
    #[serde(default)]
    pub documents: Option<Vec<SourceDocumentId>>,
    /// Have the configured model group the headings' sections into units and order them
    /// (checked; refused twice, the headings' outline stands).
    #[serde(default)]
    pub use_model: bool,
}

/// An edit of a draft: the whole draft, and the version it was read at.
#[derive(Debug, Clone, Deserialize, utoipa::ToSchema, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct DraftEdit {
    /// The `version` the edit was made from; another edit in between makes it a conflict.
    pub version: i64,
    pub draft: CourseDraft,
}

/// Drafting units' questions and drills, from the version the request was made at.
#[derive(Debug, Clone, Deserialize, utoipa::ToSchema, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct DraftUnits {
    /// The `version` the request was made from; another edit in between makes it a conflict.
    pub version: i64,
    /// The units to draft (their earlier questions and drills are replaced); every unit
    /// that has none yet when left out.
    #[serde(default)]
    pub units: Vec<String>,
    /// Written by the configured model (see `model_estimate`); a unit it fails twice is
    /// drafted from its material.
    #[serde(default)]
    pub use_model: bool,
}

/// A problem of a draft: the field at fault (`units[2].chunks[0]`) and what is wrong.
#[derive(Debug, Clone, Serialize, utoipa::ToSchema, schemars::JsonSchema)]
pub struct DraftProblem {
    pub field: String,
    pub message: String,
}

/// A draft with what its author needs to review it.
#[derive(Debug, Clone, Serialize, utoipa::ToSchema, schemars::JsonSchema)]
pub struct DraftView {
    pub id: CourseDraftId,
    /// `outline`, then `units` once questions and drills are drafted.
    pub stage: String,
    /// Changes with every edit; an edit names the version it was made from.
    pub version: i64,
    pub created_at: DateTime<Utc>,
    pub updated_at: DateTime<Utc>,
    pub draft: CourseDraft,
    /// Everything that keeps it from being a course; empty when it can be exported.
    pub problems: Vec<DraftProblem>,
    /// Units without a question of every tier (not a problem).
    pub gaps: Vec<DraftProblem>,
    /// The passages its units cover, each with its citation.
    pub passages: Vec<DraftPassage>,
    /// The skill blueprints its units name, each with what it asks (a question it makes).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub skills: Vec<DraftSkill>,
    /// With a model: what drafting the units without questions takes.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub model_estimate: Option<super::ModelEstimate>,
    /// How each unit was just drafted.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub drafted: Vec<super::UnitDrafted>,
    /// How the outline was just drafted, when a model was asked.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub outlined: Option<super::OutlineDrafted>,
}

/// A passage a draft's unit covers.
#[derive(Debug, Clone, Serialize, utoipa::ToSchema, schemars::JsonSchema)]
pub struct DraftPassage {
    pub id: SourceChunkId,
    pub document_id: SourceDocumentId,
    /// File, page and headings, as a reader looks the passage up.
    pub citation: String,
    pub text: String,
}

/// A skill blueprint a draft's unit names, as the author reviews it.
#[derive(Debug, Clone, Serialize, utoipa::ToSchema, schemars::JsonSchema)]
pub struct DraftSkill {
    pub skill_id: String,
    /// What the skill is (`Calculate the broadcast address of a subnet`).
    pub statement: String,
    /// A question it makes, as a learner would be asked it: each drill is a fresh one.
    pub sample: String,
}

impl From<&Passage> for DraftPassage {
    fn from(p: &Passage) -> Self {
        DraftPassage { id: p.id, document_id: p.document_id, citation: p.citation(), text: p.text.clone() }
    }
}

/// A draft as listed.
#[derive(Debug, Clone, Serialize, utoipa::ToSchema, schemars::JsonSchema)]
pub struct DraftSummary {
    pub id: CourseDraftId,
    pub title: String,
    pub course_id: String,
    pub stage: String,
    pub version: i64,
    pub units: usize,
    pub updated_at: DateTime<Utc>,
}

fn check_title(field: &str, title: &str) -> AppResult<String> {
    let title = title.trim();
    if title.is_empty() {
        return Err(AppError::invalid(field, "a course needs a title"));
    }
    if title.chars().count() > MAX_TITLE_CHARS {
        return Err(AppError::invalid(field, format!("at most {MAX_TITLE_CHARS} characters")));
    }
    Ok(title.to_string())
}

fn read_draft(record: &CourseDraftRecord) -> AppResult<CourseDraft> {
    serde_json::from_value(record.draft.clone())
        .map_err(|e| AppError::internal(format!("stored draft {} is unreadable: {e}", record.id)))
}

impl<S: StoreHandle + AuthoringStore + MapStore + TutorStore + UsageStore> App<S> {
    /// Draft a course's outline from the learner's documents, without a model: a unit per
    /// section of their headings, in document order, each the prerequisite of the next.
    pub async fn draft_course(&self, learner: LearnerId, input: NewDraft) -> AppResult<DraftView> {
        let title = check_title("title", &input.title)?;
        let all = self.store.list_source_documents(learner).await?;
        let documents: Vec<SourceDocumentRecord> = match input.documents {
            None => all,
            Some(ids) => {
                let mut seen = HashSet::new();
                let mut chosen = Vec::new();
                for (i, id) in ids.iter().enumerate() {
                    if !seen.insert(*id) {
                        return Err(AppError::invalid(
                            &format!("documents[{i}]"),
                            format!("document {id} is named twice"),
                        ));
                    }
                    let found = all.iter().find(|d| d.id == *id).ok_or_else(|| AppError::not_found("document", id))?;
                    chosen.push(found.clone());
                }
                chosen
            }
        };
        if documents.is_empty() {
            return Err(AppError::invalid(
                "documents",
                "there is nothing to draft from: ingest a document first (pathwise author ingest, or an upload)",
            ));
        }
        let mut sources = Vec::with_capacity(documents.len());
        for document in documents {
            let passages = self.store.source_chunks(learner, document.id).await?;
            let passages = passages.into_iter().map(|c| passage_of(c, &document.name)).collect();
            sources.push(DraftSource { id: document.id, name: document.name, title: document.title, passages });
        }
        let mut draft = outline_from_headings(&title, &sources);
        if draft.units.len() > MAX_UNITS {
            return Err(AppError::invalid(
                "documents",
                format!(
                    "the documents have {} sections, over the {MAX_UNITS} units a draft holds; draft from fewer",
                    draft.units.len()
                ),
            ));
        }
        let outlined = if input.use_model { Some(self.outline_with_model(learner, &mut draft).await?) } else { None };
        let now = self.now();
        let record = CourseDraftRecord {
            id: CourseDraftId(Self::new_id()),
            owner_id: learner,
            title: draft.title.clone(),
            stage: "outline".into(),
            version: 0,
            created_at: now,
            updated_at: now,
            draft: serde_json::to_value(&draft).map_err(|e| AppError::internal(format!("a draft to JSON: {e}")))?,
        };
        self.store.insert_course_draft(&record).await?;
        let mut view = self.draft_view(learner, record).await?;
        view.outlined = outlined;
        Ok(view)
    }

    /// The learner's drafts, most recently edited first.
    pub async fn course_drafts(&self, learner: LearnerId) -> AppResult<Vec<DraftSummary>> {
        let records = self.store.list_course_drafts(learner).await?;
        records
            .iter()
            .map(|r| {
                let draft = read_draft(r)?;
                Ok(DraftSummary {
                    id: r.id,
                    title: r.title.clone(),
                    course_id: draft.course_id,
                    stage: r.stage.clone(),
                    version: r.version,
                    units: draft.units.len(),
                    updated_at: r.updated_at,
                })
            })
            .collect()
    }

    /// One of the learner's drafts, checked, with the passages it covers.
    pub async fn course_draft(&self, learner: LearnerId, id: CourseDraftId) -> AppResult<DraftView> {
        let record = self.draft_record(learner, id).await?;
        self.draft_view(learner, record).await
    }

    /// Replace a draft with its author's edit, if nobody edited it since `edit.version`
    /// (409 `version_conflict` otherwise, with the version it is at). An edit may leave
    /// problems (they are shown on every read); it may not break the draft's shape.
    pub async fn edit_course_draft(
        &self,
        learner: LearnerId,
        id: CourseDraftId,
        edit: DraftEdit,
    ) -> AppResult<DraftView> {
        let mut draft = edit.draft;
        draft.title = check_title("draft.title", &draft.title)?;
        if draft.units.len() > MAX_UNITS {
            return Err(AppError::invalid("draft.units", format!("at most {MAX_UNITS} units")));
        }
        let stored = self.draft_record(learner, id).await?;
        let stage = stored.stage.clone();
        self.save_draft(learner, stored, edit.version, &draft, stage).await
    }

    /// Draft the units' questions and drills from their passages, without a model: for
    /// each, exam questions bronze to gold and drills, each a sentence of one of the unit's
    /// passages with a key term to fill in (see `pathwise_course::recall`), citing it.
    pub async fn draft_units(
        &self,
        learner: LearnerId,
        id: CourseDraftId,
        request: DraftUnits,
    ) -> AppResult<DraftView> {
        let stored = self.draft_record(learner, id).await?;
        let mut draft = read_draft(&stored)?;
        for (i, unit) in request.units.iter().enumerate() {
            if !draft.units.iter().any(|u| &u.id == unit) {
                return Err(AppError::invalid(
                    &format!("units[{i}]"),
                    format!("the draft has no unit '{unit}'; name units by their id"),
                ));
            }
        }
        let passages = self.passages_of(learner, &draft).await?;
        let mut offline = draft.clone();
        let chosen = offline.draft_units(&passages, self.library(), &request.units);
        let report = if request.use_model {
            self.draft_units_with_model(learner, &mut draft, &offline, &passages, &chosen).await?
        } else {
            draft = offline;
            let by = |unit_id: String| super::UnitDrafted { unit_id, by: "material".into(), refused: None };
            chosen.into_iter().map(by).collect()
        };
        let mut view = self.save_draft(learner, stored, request.version, &draft, "units".into()).await?;
        view.drafted = report;
        Ok(view)
    }

    /// Write the draft over `stored` if it is still at `version` (409 `version_conflict`
    /// otherwise, with the version it is at).
    async fn save_draft(
        &self,
        learner: LearnerId,
        stored: CourseDraftRecord,
        version: i64,
        draft: &CourseDraft,
        stage: String,
    ) -> AppResult<DraftView> {
        let id = stored.id;
        let record = CourseDraftRecord {
            title: draft.title.clone(),
            stage,
            version: stored.version + 1,
            updated_at: self.now(),
            draft: serde_json::to_value(draft).map_err(|e| AppError::internal(format!("a draft to JSON: {e}")))?,
            ..stored.clone()
        };
        if stored.version != version || !self.store.update_course_draft(&record, version).await? {
            let now = self.draft_record(learner, id).await?.version;
            return Err(AppError::new(
                ErrorKind::Conflict,
                ErrorCode::VersionConflict,
                format!(
                    "the change was made from version {version}, but the draft is at version {now}: read it again \
                     and redo the change"
                ),
            )
            .with_details(json!({ "field": "version", "version": now })));
        }
        self.draft_view(learner, record).await
    }

    pub async fn delete_course_draft(&self, learner: LearnerId, id: CourseDraftId) -> AppResult<()> {
        if self.store.delete_course_draft(learner, id).await? {
            Ok(())
        } else {
            Err(AppError::not_found("draft", id))
        }
    }

    /// The draft as a course pack an operator can check and import (`import-course`); a
    /// draft with problems is refused with them (422 `draft_has_problems`).
    pub async fn export_course_draft(
        &self,
        learner: LearnerId,
        id: CourseDraftId,
        format: PackFormat,
    ) -> AppResult<String> {
        let pack = self.draft_pack(learner, id).await?;
        pack.to_text(format).map_err(|e| AppError::internal(format!("writing a draft as a pack: {e}")))
    }

    /// Publish a draft as a course of the learner's: the tutor, sessions, maps and MCP see
    /// it like a shipped one, and so do the learners it is shared with. Publishing again
    /// replaces it. A draft with problems is refused with them; a course id someone else
    /// holds (another learner, the operator, a shipped course) is a conflict.
    pub async fn publish_course_draft(&self, learner: LearnerId, id: CourseDraftId) -> AppResult<ImportedCourse> {
        let pack = self.draft_pack(learner, id).await?;
        let course = Course::from_pack(pack, self.library()).map_err(course_error)?;
        let record = self.course_record(course.pack(), false, Some(learner))?;
        if let Some(stored) = self.store.get_course(&record.id).await? {
            if stored.owner_id == Some(learner) && stored.content_hash == record.content_hash {
                return Ok(ImportedCourse { course: CourseSummary::from(&stored), changed: false });
            }
        }
        if !self.store.publish_course(&record, learner).await? {
            return Err(AppError::new(
                ErrorKind::Conflict,
                ErrorCode::CourseIdTaken,
                format!(
                    "draft.course_id: another course is '{}' (someone else's, or the server's); give the draft a \
                     course_id of its own",
                    record.id
                ),
            )
            .with_details(json!({ "field": "draft.course_id", "course_id": record.id })));
        }
        Ok(ImportedCourse { course: CourseSummary::from(&record), changed: true })
    }

    /// The draft as a pack, or its problems (422 `draft_has_problems`, each with its field).
    async fn draft_pack(&self, learner: LearnerId, id: CourseDraftId) -> AppResult<CoursePack> {
        let record = self.draft_record(learner, id).await?;
        let draft = read_draft(&record)?;
        let passages = self.passages_of(learner, &draft).await?;
        let problems = draft.problems(&passages, self.library());
        if !problems.is_empty() {
            let listed: Vec<_> =
                problems.iter().map(|p| json!({ "field": p.field.to_string(), "message": p.message })).collect();
            return Err(AppError::new(
                ErrorKind::Invalid,
                ErrorCode::DraftHasProblems,
                format!(
                    "the draft has {} problem{} to fix before it is a course: {}",
                    problems.len(),
                    if problems.len() == 1 { "" } else { "s" },
                    problems.iter().map(ToString::to_string).collect::<Vec<_>>().join("; ")
                ),
            )
            .with_details(json!({ "problems": listed })));
        }
        Ok(draft.to_pack(&passages))
    }

    async fn draft_record(&self, learner: LearnerId, id: CourseDraftId) -> AppResult<CourseDraftRecord> {
        self.store.course_draft(learner, id).await?.ok_or_else(|| AppError::not_found("draft", id))
    }

    /// The learner's passages a draft's units name, by id (those still there).
    async fn passages_of(&self, learner: LearnerId, draft: &CourseDraft) -> AppResult<HashMap<SourceChunkId, Passage>> {
        let ids: Vec<SourceChunkId> =
            draft.units.iter().flat_map(|u| u.chunks.iter().copied()).collect::<HashSet<_>>().into_iter().collect();
        let chunks = self.store.source_chunks_by_id(learner, &ids).await?;
        let names: HashMap<SourceDocumentId, String> =
            self.store.list_source_documents(learner).await?.into_iter().map(|d| (d.id, d.name)).collect();
        Ok(chunks
            .into_iter()
            .filter_map(|c| {
                let name = names.get(&c.document_id)?.clone();
                Some((c.id, passage_of(c, &name)))
            })
            .collect())
    }

    async fn draft_view(&self, learner: LearnerId, record: CourseDraftRecord) -> AppResult<DraftView> {
        let draft = read_draft(&record)?;
        let passages = self.passages_of(learner, &draft).await?;
        let listed = |problems: Vec<pathwise_course::Problem>| -> Vec<DraftProblem> {
            problems.into_iter().map(|p| DraftProblem { field: p.field.to_string(), message: p.message }).collect()
        };
        let problems = listed(draft.problems(&passages, self.library()));
        let gaps = listed(draft.gaps());
        // In the order the units name them.
        let mut seen = HashSet::new();
        let cited = draft
            .units
            .iter()
            .flat_map(|u| u.chunks.iter())
            .filter(|id| seen.insert(**id))
            .filter_map(|id| passages.get(id))
            .map(DraftPassage::from)
            .collect();
        let model_estimate = self
            .llm
            .is_configured()
            .then(|| {
                super::model_drafting::estimate(&draft, &passages, |u| u.questions.is_empty() && u.drills.is_empty())
            })
            .filter(|e| e.units > 0);
        let mut named = HashSet::new();
        let skills = draft
            .units
            .iter()
            .flat_map(|u| u.blueprints.iter())
            .filter(|b| named.insert(b.skill_id.as_str()))
            .filter_map(|b| {
                let skill = self.library().skill(&b.skill_id)?;
                let sample = self.library().generate(&b.skill_id, 0, Target::Band(Band::Medium)).ok()?;
                let statement = skill.spec().skill_statement.clone();
                Some(DraftSkill { skill_id: b.skill_id.clone(), statement, sample: sample.stem })
            })
            .collect();
        Ok(DraftView {
            skills,
            model_estimate,
            drafted: Vec::new(),
            outlined: None,
            id: record.id,
            stage: record.stage,
            version: record.version,
            created_at: record.created_at,
            updated_at: record.updated_at,
            draft,
            problems,
            gaps,
            passages: cited,
        })
    }
}

fn passage_of(chunk: pathwise_store::SourceChunkRecord, document: &str) -> Passage {
    Passage {
        id: chunk.id,
        document: document.to_string(),
        heading_path: chunk.heading_path,
        page: chunk.page.and_then(|p| u32::try_from(p).ok()),
        text: chunk.text,
        document_id: chunk.document_id,
    }
}
