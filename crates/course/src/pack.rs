//! Course packs as authors write them, in TOML or JSON (policy-tutor.md EPIC B and C):
//! units with their prerequisites and anchors, content chunks, the exam question bank with
//! tiers, the course's fixed confusion tags, and item blueprints for drills.
//!
//! Nothing here is checked beyond its shape; [`crate::Course::from_pack`] checks the rest.

use pathwise_items::SkillBlueprint;

/// Course packs come in the item library's formats, TOML or JSON.
pub use pathwise_items::PackFormat;
use serde::{Deserialize, Serialize};

/// A drill is one or two steps: its prompt and question together stay short, whoever wrote
/// it (an author's pack, a draft, the model's card).
pub const MAX_DRILL_CHARS: usize = 400;

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct CoursePack {
    /// Letters, digits, `.`, `_` and `-`, e.g. `MATH-FOUNDATIONS`.
    pub course_id: String,
    pub title: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub description: Option<String>,
    /// Where a new learner's focus starts; it has no prerequisites.
    pub entry_unit: String,
    /// The only tags drill grading may give a mistake (snake_case).
    pub confusion_tags: Vec<String>,
    pub units: Vec<UnitSpec>,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub content: Vec<ChunkSpec>,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub exam_questions: Vec<ExamQuestionSpec>,
    /// The course's own skill blueprints, in the item library's format; units may name these
    /// and the built-in ones.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub skills: Vec<SkillBlueprint>,
}

impl CoursePack {
    /// The pack written out in `format`, as an author would import it.
    pub fn to_text(&self, format: PackFormat) -> Result<String, String> {
        match format {
            PackFormat::Toml => toml::to_string_pretty(self).map_err(|e| e.to_string()),
            PackFormat::Json => serde_json::to_string_pretty(self).map(|text| text + "\n").map_err(|e| e.to_string()),
        }
    }
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct UnitSpec {
    pub id: String,
    /// Unique within the course (it names the unit's concept on the learner's map).
    pub title: String,
    /// Units that must be learned first.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub prerequisites: Vec<String>,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub tags: Vec<String>,
    /// Mistakes learners commonly make here, in words.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub misconceptions: Vec<String>,
    /// The short canonical statement of what the unit is about.
    pub anchor: String,
    /// Skill blueprints drills for this unit are generated from.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub blueprints: Vec<String>,
    /// Drills written out, such as recall questions on the unit's passages; the tutor asks
    /// them when the unit has no blueprints.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub drills: Vec<WrittenDrill>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub effort_minutes: Option<u32>,
}

/// A piece of teaching content: part of a lesson's transcript or a section of a document.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ChunkSpec {
    /// The passage's id, by which questions and drills cite it (unique in the course).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub id: Option<String>,
    pub unit: String,
    pub chunk_type: ChunkType,
    /// The lesson or document it comes from, e.g. `lesson-ALG-01`.
    pub source_id: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub section: Option<String>,
    pub text: String,
}

impl ChunkSpec {
    /// Where the passage comes from, as a learner looks it up (`notes.pdf, p. 3, Masks`).
    pub fn citation(&self) -> String {
        pathwise_domain::citation::cite(&self.source_id, self.section.as_deref())
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize, utoipa::ToSchema, schemars::JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum ChunkType {
    Transcript,
    /// A section of a document (`pdf` in policy-tutor.md).
    #[serde(alias = "pdf")]
    Document,
}

impl ChunkType {
    pub fn name(self) -> &'static str {
        match self {
            ChunkType::Transcript => "transcript",
            ChunkType::Document => "document",
        }
    }
}

/// An exam question: a multiple-choice question with a worked memo and optionally a video.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ExamQuestionSpec {
    pub id: String,
    /// The units it examines (at least one).
    pub units: Vec<String>,
    pub tier: Tier,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub tags: Vec<String>,
    pub stem: String,
    /// 2-6 distinct options.
    pub options: Vec<String>,
    /// The index of the correct option, from 0.
    pub correct: usize,
    /// The worked solution, shown on request (which locks the question).
    pub memo: String,
    /// A link to a video walking through the solution.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub video: Option<String>,
    /// What the video says, for tutoring context (`exam_support_chunks`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub video_transcript: Option<String>,
    /// The passage (a content chunk's `id`) the correct answer comes from.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub passage: Option<String>,
}

/// A drill written out rather than generated: answered by typing, or by picking one of its
/// options, and graded exactly.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct WrittenDrill {
    pub stem: String,
    /// 2-6 choices; without them the answer is typed.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub options: Vec<String>,
    /// The answer (with options, the correct option's text). A number also accepts its
    /// equivalent forms (`0.5` for `1/2`); text is compared without regard to case.
    pub answer: String,
    /// The passage (a content chunk's `id`) the answer comes from.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub passage: Option<String>,
}

impl WrittenDrill {
    /// The drill as an inline item of the library, which grades it.
    pub fn to_inline(&self) -> pathwise_items::InlineItem {
        pathwise_items::InlineItem {
            stem: self.stem.clone(),
            options: (!self.options.is_empty()).then(|| self.options.clone()),
            correct: serde_json::Value::String(self.answer.clone()),
            difficulty: None,
            a: None,
            skill_domain: None,
            time_limit_seconds: None,
            evaluation: None,
        }
    }
}

/// An exam question's support material: its worked memo, or its video.
#[derive(
    Debug,
    Clone,
    Copy,
    PartialEq,
    Eq,
    Hash,
    PartialOrd,
    Ord,
    Serialize,
    Deserialize,
    utoipa::ToSchema,
    schemars::JsonSchema,
)]
#[serde(rename_all = "snake_case")]
pub enum SupportType {
    Memo,
    Video,
}

impl SupportType {
    pub fn name(self) -> &'static str {
        match self {
            SupportType::Memo => "memo",
            SupportType::Video => "video",
        }
    }
}

/// Exam difficulty tiers; passing one earns the mastery tier of the same name.
#[derive(
    Debug,
    Clone,
    Copy,
    PartialEq,
    Eq,
    Hash,
    PartialOrd,
    Ord,
    Serialize,
    Deserialize,
    utoipa::ToSchema,
    schemars::JsonSchema,
)]
#[serde(rename_all = "lowercase")]
pub enum Tier {
    Bronze,
    Silver,
    Gold,
}

impl Tier {
    pub const ALL: [Tier; 3] = [Tier::Bronze, Tier::Silver, Tier::Gold];

    pub fn name(self) -> &'static str {
        match self {
            Tier::Bronze => "bronze",
            Tier::Silver => "silver",
            Tier::Gold => "gold",
        }
    }

    pub fn parse(text: &str) -> Option<Tier> {
        Tier::ALL.into_iter().find(|t| t.name() == text)
    }
}

impl std::fmt::Display for Tier {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.name())
    }
}
