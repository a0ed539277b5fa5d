//! The tools beside the learning loop: the courses and the item library to discover, the
//! learner's sessions to run step by step, and the learner's own preferences and review
//! log. Each parses its arguments and calls one application operation, as over HTTP.

use super::args::{CourseArg, Nothing, SessionArg, With};
use super::registry::{tool, Effect::Reads, Effect::Writes, ToolSpec};
use pathwise_app::course_tutor::CourseSummary;
use pathwise_app::preferences::UpdatePreferences;
use pathwise_app::queries::PageQuery;
use pathwise_app::sessions::config::CreateSession;
use pathwise_app::sessions::library::{AssessmentSummary, SkillSummary};
use pathwise_app::sessions::{MessageView, Respond};
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

#[derive(Serialize, JsonSchema)]
pub struct Courses {
    pub courses: Vec<CourseSummary>,
}

#[derive(Serialize, JsonSchema)]
pub struct Assessments {
    pub assessments: Vec<AssessmentSummary>,
}

#[derive(Serialize, JsonSchema)]
pub struct Skills {
    pub skills: Vec<SkillSummary>,
}

#[derive(Serialize, JsonSchema)]
pub struct Messages {
    /// The session's conversation in order: system, user, assistant (with its tool calls)
    /// and tool messages.
    pub messages: Vec<MessageView>,
}

#[derive(Serialize, JsonSchema)]
pub struct ReviewLog {
    /// CSV: a header line `item_id,timestamp,grade,rating`, then one line per response, oldest
    /// first.
    pub csv: String,
}

/// Where a run picks up.
#[derive(Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct RunFrom {
    /// Replay the events after this seq (an event's `seq`, 0 for all); by default those after
    /// the learner's latest answer, so the widget waiting now is among them.
    #[schemars(range(min = 0))]
    pub after: Option<i64>,
}

pub fn all() -> Vec<ToolSpec> {
    let mut tools = discovery();
    tools.extend(sessions());
    tools.extend(preferences());
    tools
}

fn discovery() -> Vec<ToolSpec> {
    vec![
        tool(
            "course_list",
            "The courses the policy tutor teaches (shipped with Pathwise or imported by the operator): id, \
             title, how many units and exam questions.",
            Reads,
            |app, l, _: Nothing| async move { Ok(Courses { courses: app.list_courses(l).await? }) },
        ),
        tool(
            "course_get",
            "A course's units in learning order, each with its prerequisites, tags, whether it has drills, \
             and how many exam questions each tier has.",
            Reads,
            |app, l, a: With<CourseArg, Nothing>| async move { app.course_outline(l, &a.id).await },
        ),
        tool(
            "library_assessments",
            "The item library's assessments an evaluation session can take (its config.blueprint_id): items, \
             time limit, selection (fixed, random_from_pool, adaptive), domains and widgets.",
            Reads,
            |app, _, _: Nothing| async move { Ok(Assessments { assessments: app.library_assessments() }) },
        ),
        tool(
            "library_skills",
            "The item library's skill blueprints a learning session can practise (its config.item_templates): \
             id, what the learner can do once mastered, domain, widgets.",
            Reads,
            |app, _, _: Nothing| async move { Ok(Skills { skills: app.library_skills() }) },
        ),
    ]
}

fn sessions() -> Vec<ToolSpec> {
    vec![
        tool(
            "session_create",
            "Create a session: an evaluation (config.blueprint_id from library_assessments, or inline items), a \
             survey (config.survey: its questions), a learning session (config.map_id and item_templates from \
             library_skills) or a thought conversation (needs the server's model). Then call session_run.",
            Writes,
            |app, l, input: CreateSession| async move { app.create_session(l, input).await },
        ),
        tool(
            "session_run",
            "Run a session until it waits for the learner or ends, and return its events (text, items \
             presented, feedback, the client_action widget to answer) and the session. The same session \
             goes on over HTTP and in the web workspace. Answer a client_action with session_respond, then \
             call session_run again. An evaluation shows no answer or score before it ends.",
            Writes,
            |app, l, a: With<SessionArg, RunFrom>| async move { app.run_session(l, a.id, a.input.after).await },
        ),
        tool(
            "session_respond",
            "Answer the widget the session waits on: tool_call_id from its client_action, and response \
             {\"selected_index\": i} for choices (from 0), {\"text\": \"...\"} for free text, {\"code\": \"...\"} \
             for code, or {\"skipped\": true} where skipping is allowed. Answering the same tool_call_id again \
             changes nothing. Then call session_run to continue.",
            Writes,
            |app, l, a: With<SessionArg, Respond>| async move { app.respond_session(l, a.id, a.input).await },
        ),
        tool(
            "session_get",
            "A session: its status, the widget waiting for an answer, its progress, and its results once it \
             has ended.",
            Reads,
            |app, l, a: With<SessionArg, Nothing>| async move { app.get_session(l, a.id).await },
        ),
        tool(
            "session_list",
            "The learner's sessions, most recently active first.",
            Reads,
            |app, l, q: PageQuery| async move { app.list_sessions(l, q.offset, q.limit).await },
        ),
        tool(
            "session_messages",
            "A session's conversation, as stored: the transcript of what was asked and answered.",
            Reads,
            |app, l, a: With<SessionArg, Nothing>| async move {
                Ok(Messages { messages: app.session_messages(l, a.id).await? })
            },
        ),
        tool(
            "session_end",
            "End a session now: what was answered is kept and scored; the rest is not. Cannot be undone.",
            Writes,
            |app, l, a: With<SessionArg, Nothing>| async move { app.terminate_session(l, a.id).await },
        ),
    ]
}

fn preferences() -> Vec<ToolSpec> {
    vec![
        tool(
            "preferences_get",
            "The learner's preferences: the daily review cap, the review scheduler (sm2 or fsrs), and the FSRS \
             parameters in use (their own once fitted, else the defaults) with how well they predict the learner.",
            Reads,
            |app, l, _: Nothing| async move { app.preferences(l).await },
        ),
        tool(
            "preferences_update",
            "Change the learner's preferences: daily_review_cap (1-1000, null for no limit) and srs_scheduler \
             (sm2 or fsrs); a field left out keeps its value.",
            Writes,
            |app, l, input: UpdatePreferences| async move { app.update_preferences(l, input).await },
        ),
        tool(
            "fsrs_fit",
            "Fit the learner's FSRS parameters on their reviews now (a weekly job also does): their own once 8 \
             reviews came a day or more apart and the fit predicts their latest reviews no worse than the \
             defaults.",
            Writes,
            |app, l, _: Nothing| async move { app.fsrs().fit(l).await },
        ),
        tool(
            "review_log_export",
            "The learner's history as a review log (CSV item_id,timestamp,grade,rating, oldest first), the format \
             spaced-repetition tools compare schedulers on.",
            Reads,
            |app, l, _: Nothing| async move { Ok(ReviewLog { csv: app.review_log(l).await? }) },
        ),
    ]
}
