//! The tutor turn benchmark (policy-tutor.md on a large course): a generated course of
//! 2,000 units, 15,000 exam questions and 50,000 content chunks; learners whose turns mix
//! typed messages and button events, some of them exam ready. A turn's own work is timed
//! (snapshot, policy, exam availability, retrieval, prompt, validation, persistence), with an
//! in-process model that answers at once with a valid turn, so that the model's time is
//! left out; retrieval is timed alone as well; prompt tokens are counted (cl100k_base).
//!
//! `tutor_turn_drafted` runs the same turns on a course drafted from someone's material
//! without a model: 2,000 passages of 100 documents, outlined from their headings, every
//! unit's questions and drills drafted from its passages; its replies cite a passage.
//! `tutor_turn_questions` is that course with no model, the learner's words questions and
//! requests ("what does the router do?", "I'm stuck", "what next?") answered from its
//! passages.

use super::stats::Stats;
use anyhow::{Context, Result};
use pathwise_app::course_tutor::{CreateThread, TurnRequest};
use pathwise_app::App;
use pathwise_course::synthetic::generated_pack;
use pathwise_course::{ClientEvent, MasteryTier, StudentSnapshot};
use pathwise_llm::{LanguageModel, Llm, LlmError, Reply, Request, Usage};
use pathwise_retrieval::Query;
use pathwise_store::{TutorStep, TutorStore};
use rand::rngs::StdRng;
use rand::{Rng, SeedableRng};
use serde_json::{json, Value};
use std::future::Future;
use std::pin::Pin;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

pub const UNITS: usize = 2_000;
pub const QUESTIONS: usize = 15_000;
pub const CHUNKS: usize = 50_000;
const LEARNERS: usize = 8;

/// Answers every turn at once with a valid Socratic question on the policy's focus, and
/// keeps the prompts for counting their tokens afterwards.
#[derive(Default)]
struct InstantTutor {
    prompts: Mutex<Vec<String>>,
}

impl LanguageModel for InstantTutor {
    fn chat<'a>(&'a self, request: &'a Request) -> Pin<Box<dyn Future<Output = Result<Reply, LlmError>> + Send + 'a>> {
        Box::pin(async move {
            let prompt: String = request.messages.iter().map(|m| m.content.as_str()).collect::<Vec<_>>().join("\n");
            let focus = request
                .messages
                .iter()
                .find_map(|m| m.content.strip_prefix("POLICY: "))
                .and_then(|p| serde_json::from_str::<Value>(p).ok())
                .and_then(|p| p["focusUnitId"].as_str().map(str::to_string))
                .unwrap_or_default();
            // On a course drafted from someone's material a reply cites a passage it was given.
            let cited: Vec<String> = prompt
                .split("\"passageId\":\"")
                .nth(1)
                .and_then(|rest| rest.split('"').next())
                .map(|id| vec![id.to_string()])
                .unwrap_or_default();
            self.prompts.lock().expect("prompts lock").push(prompt);
            let content = json!({
                "sources": cited,
                "mapped_units": [{ "unit_id": focus, "confidence": 0.8 }],
                "action": "SOCRATIC_QUESTION",
                "target_unit_id": focus,
                "tutor_text": "What do you think the first step is, and why?",
                "turn_analysis": { "student_intent": "solve", "understanding_signal": "uncertain", "suggested_prereq_units": [] },
                "concept_card": null, "drill_card": null, "exam_suggestion": null,
            });
            Ok(Reply {
                content: Some(content.to_string()),
                tool_calls: Vec::new(),
                usage: Usage { prompt_tokens: 0, completion_tokens: 60 },
                finish_reason: Some("stop".into()),
                timing: None,
            })
        })
    }

    fn describe(&self) -> String {
        "instant tutor (benchmark)".into()
    }
}

fn tokens(text: &str) -> usize {
    tiktoken_rs::cl100k_base_singleton().encode_with_special_tokens(text).len()
}

/// Whether the turns ask a model (an instant stand-in) or run offline, where every turn is
/// the deterministic one.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Tutor {
    Model,
    Offline,
}

pub async fn turns(app: App, store: &str, turns: usize, tutor: Tutor) -> Result<()> {
    let name = match tutor {
        Tutor::Model => "tutor_turn",
        Tutor::Offline => "tutor_turn_offline",
    };
    run(app, store, turns, tutor, generated_pack(UNITS, QUESTIONS, CHUNKS, 7), name).await
}

/// Passages in a course drafted from material.
pub const DRAFTED_PASSAGES: usize = 2_000;

pub async fn drafted_turns(app: App, store: &str, turns: usize) -> Result<()> {
    run(app, store, turns, Tutor::Model, drafted_pack(DRAFTED_PASSAGES), "tutor_turn_drafted").await
}

/// The offline tutor on the drafted course, its words the learner's questions and requests:
/// each answered from the course's passages (retrieval by question kind, the answering
/// sentences quoted and cited) or met by the help ladder.
pub async fn question_turns(app: App, store: &str, turns: usize) -> Result<()> {
    run(app, store, turns, Tutor::Offline, drafted_pack(DRAFTED_PASSAGES), "tutor_turn_questions").await
}

/// What a learner says in `tutor_turn_questions`, `{}` a term of the material.
const LEARNER_QUESTIONS: [&str; 10] = [
    "what does the {} do?",
    "why does the {} carry it?",
    "where does the {} come from?",
    "how does a {} form?",
    "what is a {}?",
    "explain the {} to me",
    "can you give me an example?",
    "I'm stuck, I don't get it",
    "what should I learn next?",
    "I already know this",
];

/// A course drafted without a model from `passages` passages: 100 documents of sections of
/// ten passages each, with their questions and drills.
fn drafted_pack(passages: usize) -> pathwise_course::CoursePack {
    use pathwise_course::draft::{outline_from_headings, DraftSource, Passage};
    use pathwise_domain::{SourceChunkId, SourceDocumentId};
    const WORDS: [&str; 24] = [
        "network",
        "address",
        "packet",
        "router",
        "prefix",
        "gateway",
        "subnet",
        "switch",
        "frame",
        "protocol",
        "header",
        "checksum",
        "segment",
        "window",
        "socket",
        "port",
        "latency",
        "bandwidth",
        "route",
        "table",
        "broadcast",
        "multicast",
        "tunnel",
        "firewall",
    ];
    let mut rng = StdRng::seed_from_u64(23);
    let documents = 100;
    let per_section = 10;
    let sections = passages.div_ceil(documents * per_section).max(1);
    let mut n = 0u128;
    let sources: Vec<DraftSource> = (0..documents)
        .map(|d| {
            let document = SourceDocumentId(uuid::Uuid::from_u128(1_000_000 + d as u128));
            let name = format!("chapter-{d:03}.md");
            let passages = (0..sections * per_section)
                .map(|i| {
                    n += 1;
                    let topic = WORDS[(d * sections + i / per_section) % WORDS.len()];
                    let sentences: Vec<String> = (0..3)
                        .map(|_| {
                            let words: Vec<&str> = (0..9).map(|_| WORDS[rng.gen_range(0..WORDS.len())]).collect();
                            format!("The {topic} {} carries {} {}.", words[..4].join(" "), n, words[4..].join(" "))
                        })
                        .collect();
                    Passage {
                        id: SourceChunkId(uuid::Uuid::from_u128(n)),
                        document_id: document,
                        document: name.clone(),
                        heading_path: vec![format!("Chapter {d}"), format!("Section {d}.{}", i / per_section)],
                        page: None,
                        text: sentences.join(" "),
                    }
                })
                .collect();
            DraftSource { id: document, name, title: Some(format!("Chapter {d}")), passages }
        })
        .collect();
    let by_id = sources.iter().flat_map(|s| s.passages.iter()).map(|p| (p.id, p.clone())).collect();
    let mut draft = outline_from_headings("Drafted network notes", &sources);
    draft.draft_units(&by_id, &pathwise_items::Library::builtin(), &[]);
    draft.to_pack(&by_id)
}

async fn run(
    app: App,
    store: &str,
    turns: usize,
    tutor: Tutor,
    pack: pathwise_course::CoursePack,
    name: &str,
) -> Result<()> {
    let model = Arc::new(InstantTutor::default());
    let app = match tutor {
        Tutor::Model => app.with_llm(Llm::new(model.clone(), 64)),
        Tutor::Offline => app,
    };
    let (unit_count, question_count, chunk_count) = (pack.units.len(), pack.exam_questions.len(), pack.content.len());
    let course_id = pack.course_id.clone();
    let started = Instant::now();
    app.install_course(pack).await.context("install the generated course")?;
    let import_ms = started.elapsed().as_millis();
    let started = Instant::now();
    let loaded = app.course(&course_id).await.context("load the generated course")?;
    let load_ms = started.elapsed().as_millis();
    let units: Vec<(String, String, Vec<String>)> =
        loaded.course.units().iter().map(|u| (u.id.clone(), u.title.clone(), u.prerequisites.clone())).collect();

    // Learners with a thread each; half are exam ready on a unit with prerequisites.
    let mut rng = StdRng::seed_from_u64(11);
    let mut learners = Vec::new();
    let mut first_use = Vec::new();
    for i in 0..LEARNERS {
        let learner = app.create_learner(&format!("learner {i}")).await?.learner.id;
        let started = Instant::now();
        let thread = app.create_thread(learner, CreateThread { course_id: course_id.clone(), title: None }).await?.id;
        first_use.push(started.elapsed());
        let focus = loop {
            let (id, _, prereqs) = &units[rng.gen_range(0..units.len())];
            if !prereqs.is_empty() {
                break id.clone();
            }
        };
        if i % 2 == 0 {
            exam_ready(&app, learner, &course_id, &units, &focus).await?;
        }
        learners.push((learner, thread, focus, None::<String>));
    }
    let mut exam_requests = 0;

    let mut latencies = Vec::with_capacity(turns);
    // The turns that carry the learner's words (a third): mapping, reading and answering.
    let mut worded = Vec::with_capacity(turns / 3 + 1);
    let mut retrieval = Vec::with_capacity(turns);
    let elapsed_start = Instant::now();
    for i in 0..turns {
        let (learner, thread, focus, open_exam) = learners[i % LEARNERS].clone();
        let (_, title, _) = &units[rng.gen_range(0..units.len())];
        // Each learner in turn: a drill asked for on their unit; the check the reply offered
        // (else another drill); words, which may move the route elsewhere.
        let button = |client_event| (TurnRequest { client_event, ..TurnRequest::default() }, String::new());
        let (request, text) = match (i / LEARNERS) % 3 {
            0 => button(ClientEvent::RequestDrill { unit_id: focus.clone() }),
            1 => match open_exam {
                Some(unit_id) => {
                    exam_requests += 1;
                    button(ClientEvent::RequestExam { unit_id })
                }
                None => button(ClientEvent::RequestDrill { unit_id: focus.clone() }),
            },
            _ if name == "tutor_turn_questions" => {
                let term = title.split_whitespace().last().unwrap_or("network").to_lowercase();
                let text = LEARNER_QUESTIONS[(i / LEARNERS / 3) % LEARNER_QUESTIONS.len()].replace("{}", &term);
                (TurnRequest { message_text: Some(text.clone()), ..TurnRequest::default() }, text)
            }
            _ => {
                let text = if (i / LEARNERS / 3).is_multiple_of(2) {
                    format!("how do I do {}", title.to_lowercase())
                } else {
                    "what is 7+8? I am not sure what to do next".to_string()
                };
                (TurnRequest { message_text: Some(text.clone()), ..TurnRequest::default() }, text)
            }
        };
        let started = Instant::now();
        let reply = app.tutor_turn(learner, thread, request).await?;
        latencies.push(started.elapsed());
        if !text.is_empty() {
            worded.push(started.elapsed());
        }
        learners[i % LEARNERS].3 = reply.snapshot_lite.exam_check.as_ref().map(|check| check.unit_id.clone());
        std::hint::black_box(reply);
        // Retrieval alone, for the same words: mapping, anchors and chunks of six units, the
        // focus unit's exam candidates.
        let query = Query { text: &text, vector: None };
        let scoped: Vec<String> = units.iter().skip(i % (units.len() - 6)).take(6).map(|u| u.0.clone()).collect();
        let started = Instant::now();
        std::hint::black_box(loaded.index.map_units(&query, 3));
        std::hint::black_box(loaded.index.unit_anchors(&query, &scoped, 6));
        std::hint::black_box(loaded.index.unit_content_chunks(&query, &scoped, 8));
        std::hint::black_box(loaded.index.exam_candidates(&query, &focus, pathwise_course::Tier::Bronze, 10));
        retrieval.push(started.elapsed());
    }
    let elapsed = elapsed_start.elapsed();
    let prompts = std::mem::take(&mut *model.prompts.lock().expect("prompts lock"));
    let mut counts: Vec<usize> = prompts.iter().map(|p| tokens(p)).collect();
    counts.sort_unstable();
    let exam_turns = {
        let turns_log = app
            .thread_turns(
                learners[0].0,
                learners[0].1,
                &pathwise_app::queries::PageQuery { limit: Some(500), ..Default::default() },
            )
            .await?;
        turns_log.items.iter().filter(|t| t.log["examReady"] == true).count()
    };
    first_use.sort();
    let p99 = |v: &mut Vec<Duration>| {
        v.sort();
        let i = ((v.len() as f64 - 1.0) * 0.99).round() as usize;
        (v[i].as_secs_f64() * 1e5).round() / 100.0
    };
    let retrieval_p50 = {
        let mut r = retrieval.clone();
        r.sort();
        (r[r.len() / 2].as_secs_f64() * 1e5).round() / 100.0
    };
    let retrieval_p99 = p99(&mut retrieval);
    let worded_p99 = p99(&mut worded);
    let worded_p50 = (worded[worded.len() / 2].as_secs_f64() * 1e5).round() / 100.0;
    let extra = json!({
        "units": unit_count, "exam_questions": question_count, "content_chunks": chunk_count, "learners": LEARNERS,
        "import_ms": import_ms,
        "load_and_index_ms": load_ms,
        "first_use_ms_median": first_use[first_use.len() / 2].as_millis(),
        "retrieval_p50_ms": retrieval_p50,
        "retrieval_p99_ms": retrieval_p99,
        "worded_turns": worded.len(), "worded_p50_ms": worded_p50, "worded_p99_ms": worded_p99,
        "prompt_tokens_median": counts.get(counts.len() / 2),
        "prompt_tokens_max": counts.last(),
        "exam_ready_turns_of_learner_0": exam_turns,
        "exam_requests": exam_requests,
        "target_p99_ms": 5, "target_retrieval_p99_ms": 10,
    });
    Stats { ops: turns, concurrency: 1, elapsed, latencies }.print(name, store, extra);
    Ok(())
}

/// Bronze on the prerequisites of `unit` and a drill streak of two on it: the learner is
/// exam ready there.
async fn exam_ready(
    app: &App,
    learner: pathwise_domain::LearnerId,
    course: &str,
    units: &[(String, String, Vec<String>)],
    unit: &str,
) -> Result<()> {
    let record = app.store().get_tutor_snapshot(learner, course).await?.context("a snapshot")?;
    let mut snapshot: StudentSnapshot = serde_json::from_value(record.snapshot.clone())?;
    let now = chrono::Utc::now();
    let prerequisites = units.iter().find(|u| u.0 == unit).map(|u| u.2.clone()).unwrap_or_default();
    for p in &prerequisites {
        snapshot.touch(p, now).mastery_tier = MasteryTier::Bronze;
    }
    snapshot.record_drill(unit, true, None, now);
    snapshot.record_drill(unit, true, None, now);
    snapshot.focus_unit_id = unit.to_string();
    let next = pathwise_store::SnapshotRecord {
        snapshot: serde_json::to_value(&snapshot)?,
        version: record.version + 1,
        ..record
    };
    app.store().commit_tutor_step(TutorStep { snapshot: Some(&next), ..TutorStep::default() }).await?;
    Ok(())
}
