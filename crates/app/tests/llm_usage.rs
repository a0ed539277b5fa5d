//! Token accounting per learner: each call to the model is kept with the learner it served.
//! Run against SQLite and (with `PATHWISE_TEST_DATABASE_URL`) PostgreSQL, with a fake
//! model server over real HTTP.

mod support;

use pathwise_app::usage::TokenCount;
use pathwise_app::ErrorKind;
use pathwise_fake_llm::{FakeLlm, Script};
use pathwise_llm::{Llm, Message, OpenAiClient, OpenAiConfig, Request};
use std::sync::Arc;
use support::TestApp;

async fn model() -> (FakeLlm, Llm) {
    let fake = FakeLlm::start().await;
    let client = OpenAiClient::new(OpenAiConfig::new(fake.base_url(), "test-model")).unwrap();
    (fake, Llm::new(Arc::new(client), 2))
}

async fn each_call_is_counted_for_its_learner_and_operation(t: &TestApp) {
    let (fake, llm) = model().await;
    fake.script([Script::Text("one".into()), Script::Text("two".into()), Script::Text("three".into())]);
    let request = Request::new(vec![Message::user("Teach me something")]);

    let planning = llm.session("planning").await.unwrap();
    planning.chat(&request).await.unwrap();
    planning.chat(&request).await.unwrap();
    t.app().record_llm_session(t.learner, "curriculum_generate", &planning).await.unwrap();
    let grading = llm.session("grading").await.unwrap();
    grading.chat(&request).await.unwrap();
    t.app().record_llm_session(t.learner, "diagnostic_grade", &grading).await.unwrap();

    let usage = t.app().llm_usage(t.learner, None).await.unwrap();
    let operations: Vec<(&str, u64)> =
        usage.by_operation.iter().map(|o| (o.operation.as_str(), o.tokens.calls)).collect();
    assert_eq!(operations, vec![("curriculum_generate", 2), ("diagnostic_grade", 1)]);
    let (p, g) = (planning.usage(), grading.usage());
    assert_eq!(
        usage.total,
        TokenCount {
            calls: 3,
            prompt_tokens: p.prompt_tokens + g.prompt_tokens,
            completion_tokens: p.completion_tokens + g.completion_tokens
        }
    );
    assert!(usage.total.prompt_tokens > 0 && usage.total.completion_tokens > 0);

    // Another learner's account is untouched.
    let other = t.other_learner().await;
    assert_eq!(t.app().llm_usage(other, None).await.unwrap().total, TokenCount::default());
}

async fn usage_can_be_limited_to_recent_days(t: &TestApp) {
    let (fake, llm) = model().await;
    fake.script([Script::Text("old".into()), Script::Text("new".into())]);
    let request = Request::new(vec![Message::user("Hello")]);
    let old = llm.session("t").await.unwrap();
    old.chat(&request).await.unwrap();
    t.app().record_llm_session(t.learner, "teaching", &old).await.unwrap();
    t.clock.advance(chrono::Duration::days(10));
    let new = llm.session("t").await.unwrap();
    new.chat(&request).await.unwrap();
    t.app().record_llm_session(t.learner, "teaching", &new).await.unwrap();

    assert_eq!(t.app().llm_usage(t.learner, Some(7)).await.unwrap().total.calls, 1);
    assert_eq!(t.app().llm_usage(t.learner, Some(30)).await.unwrap().total.calls, 2);
    assert_eq!(t.app().llm_usage(t.learner, None).await.unwrap().total.calls, 2);
    let error = t.app().llm_usage(t.learner, Some(100_000)).await.unwrap_err();
    assert_eq!(error.kind, ErrorKind::Invalid);
    assert!(error.message.contains("since_days"), "{}", error.message);
}

conformance!(each_call_is_counted_for_its_learner_and_operation, usage_can_be_limited_to_recent_days);
