//! The policy tutor's tools (policy-tutor.md): threads on a course, turns (the reply's cards
//! as structured output), drills graded once, exam answers with their lockouts, opened
//! support, the learner's snapshot and the turn log. Each calls the operation the HTTP
//! route calls, for the calling learner.

use super::args::{CourseArg, Nothing, ThreadArg, With};
use super::registry::{tool, Effect::Reads, Effect::Writes, ToolSpec};
use pathwise_app::course_tutor::{
    CreateThread, DrillGradeRequest, McqSubmitRequest, SupportViewedRequest, TurnRequest, TutorMessage,
};
use pathwise_app::queries::{ListThreadsQuery, MessagesQuery, PageQuery};
use schemars::JsonSchema;
use serde::Serialize;

#[derive(Serialize, JsonSchema)]
pub struct Messages {
    /// The thread's timeline in order: the learner's words and the tutor's replies with
    /// their cards.
    pub messages: Vec<TutorMessage>,
}

pub fn all() -> Vec<ToolSpec> {
    vec![
        tool(
            "tutor_thread_create",
            "Start a tutor thread on a course (course_id from course_list): the learner's snapshot of the \
             course, and their map of it, are made on first use. Then take turns with tutor_turn.",
            Writes,
            |app, l, input: CreateThread| async move { app.create_thread(l, input).await },
        ),
        tool(
            "tutor_thread_list",
            "The learner's tutor threads, most recently active first, optionally of one course (course_id).",
            Reads,
            |app, l, q: ListThreadsQuery| async move { app.list_threads(l, &q).await },
        ),
        tool(
            "tutor_thread_get",
            "A tutor thread: its course, title, how many messages and the tutor's last action.",
            Reads,
            |app, l, a: With<ThreadArg, Nothing>| async move { app.get_thread(l, a.id).await },
        ),
        tool(
            "tutor_turn",
            "One tutor turn: the learner's words (message_text) and/or a button's client_event (REQUEST_DRILL, \
             CHOOSE_UNIT, REQUEST_EXAM, DRILL_CONTINUE, ...). The policy decides what may happen; the reply is a \
             Socratic question, a concept card, a drill (answer it with tutor_drill_grade) or an exam block \
             (answer it with tutor_exam_submit), with SnapshotLite: the learner's place in the course.",
            Writes,
            |app, l, a: With<ThreadArg, TurnRequest>| async move { app.tutor_turn(l, a.id, a.input).await },
        ),
        tool(
            "tutor_drill_grade",
            "Grade the learner's answer to a drill offered in this thread (drill: its card, or just its \
             drill_id; the unit is the drill's). A blueprint drill is graded exactly and only once; the streak \
             counts toward the unit's tier.",
            Writes,
            |app, l, a: With<ThreadArg, DrillGradeRequest>| async move { app.grade_drill(l, a.id, a.input).await },
        ),
        tool(
            "tutor_exam_submit",
            "Answer an exam question the tutor offered in this thread (question_id, selected_index from 0). The \
             exam service grades it; a wrong answer or opened support locks the question until its next \
             eligible time, and a locked question is refused with that time.",
            Writes,
            |app, l, a: With<ThreadArg, McqSubmitRequest>| async move { app.exam_mcq_submit(l, a.id, a.input).await },
        ),
        tool(
            "tutor_support_viewed",
            "Open an exam question's memo or video (support_type): it is returned, and the question locks.",
            Writes,
            |app, l, a: With<ThreadArg, SupportViewedRequest>| async move {
                app.exam_support_viewed(l, a.id, a.input).await
            },
        ),
        tool(
            "tutor_snapshot",
            "The learner's snapshot of a course: per unit the drill streak, tier passed and exam history, the \
             focus, the revisit queue; and SnapshotLite, what the next turn would work on.",
            Reads,
            |app, l, a: With<CourseArg, Nothing>| async move { app.tutor_snapshot(l, &a.id).await },
        ),
        tool(
            "tutor_thread_messages",
            "A thread's timeline: the learner's words and the tutor's replies with their cards, after a seq.",
            Reads,
            |app, l, a: With<ThreadArg, MessagesQuery>| async move {
                Ok(Messages { messages: app.thread_messages(l, a.id, &a.input).await? })
            },
        ),
        tool(
            "tutor_turn_log",
            "A thread's turn log: per turn the mapped units, focus, blocker, allowed actions, exam tier and \
             availability, the action chosen, and whether the model's reply kept the rules or fell back.",
            Reads,
            |app, l, a: With<ThreadArg, PageQuery>| async move { app.thread_turns(l, a.id, &a.input).await },
        ),
    ]
}
