//! How fast the configured model reads and writes, measured from its own replies, and how
//! much of a prompt fits the time a learner should wait for a turn at that speed.
//!
//! A small model on a CPU reads a prompt at a few hundred tokens a second: the tutor's full
//! context (2,600-3,900 tokens) took SmolLM2-135M most of a 30 s turn before it wrote a
//! word, so eight turns in ten fell back to the course's own tutor. Each streamed reply
//! tells when its first token came (the prompt read) and how many tokens each side had
//! (the server's usage), so the speeds are learned from the calls Pathwise makes anyway,
//! and what a turn sends is cut to what the model can read in time. That time is the turn
//! time a learner should wait (a target, 10 s by default), not the deadline past which the
//! tutor gives up: a prompt sized to fill a 30 s deadline made the median turn 20 s. A fast
//! hosted model measures fast and is sent everything.

use std::time::Duration;

/// When a reply's tokens came, measured by the client.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Timing {
    /// From sending the request to the first token of the reply: reading the prompt (and
    /// the network, which is small beside a slow model's reading).
    pub first_token: Duration,
    /// From sending the request to the last event of the reply.
    pub total: Duration,
}

/// What is known of the model's speed: a moving average of the latest calls.
#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub struct Speed {
    /// Prompt tokens read a second.
    pub reading: Option<f64>,
    /// Reply tokens written a second.
    pub writing: Option<f64>,
    /// Tokens a reply has, on average.
    pub reply_tokens: Option<f64>,
    /// Calls measured.
    pub calls: u32,
}

/// How much the newest call counts: enough to follow a model that slows under load, not
/// so much that one odd call moves the budget far.
const WEIGHT: f64 = 0.4;
/// Calls that read a prompt faster than this say nothing of the model's reading (a cache
/// hit, a tiny prompt): the network and the server's overhead are most of their time.
const MIN_READ: Duration = Duration::from_millis(30);
/// Share of a turn's deadline the model may spend; the rest is a margin for the speed
/// varying between calls and for the turn's own work.
const DEADLINE_SHARE: f64 = 0.7;
/// Share of the target turn time the model may spend: the target is what a typical (median)
/// turn should take, so the margin is for the turn's own work and the speed's drift.
const TARGET_SHARE: f64 = 0.85;
/// The smallest prompt budget: the policy and the learner's words always go, whatever the
/// model's speed; below this, retrieved context is all cut anyway.
pub const MIN_PROMPT_TOKENS: usize = 400;

impl Speed {
    /// Take in one answered call.
    pub fn record(&mut self, prompt_tokens: u64, reply_tokens: u64, timing: Timing) {
        let blend = |old: Option<f64>, new: f64| Some(old.map_or(new, |o| o + WEIGHT * (new - o)));
        if prompt_tokens > 0 && timing.first_token >= MIN_READ {
            self.reading = blend(self.reading, prompt_tokens as f64 / timing.first_token.as_secs_f64());
        }
        let writing = timing.total.saturating_sub(timing.first_token);
        if reply_tokens > 1 && writing >= MIN_READ {
            self.writing = blend(self.writing, reply_tokens as f64 / writing.as_secs_f64());
        }
        if reply_tokens > 0 {
            self.reply_tokens = blend(self.reply_tokens, reply_tokens as f64);
        }
        self.calls += 1;
    }

    /// Take in a call given up after `waited` with no reply: the model read its prompt no
    /// faster than `prompt_tokens / waited` (an estimate of the prompt's tokens, since the
    /// server never said), so the reading speed is at most that. Without this a model too
    /// slow for its first prompt would never be measured, and every turn would time out.
    pub fn record_unanswered(&mut self, prompt_tokens: u64, waited: Duration) {
        if prompt_tokens == 0 || waited < MIN_READ {
            return;
        }
        let bound = prompt_tokens as f64 / waited.as_secs_f64();
        self.reading = Some(self.reading.map_or(bound, |r| r.min(bound)));
        self.calls += 1;
    }

    /// The prompt the model reads and answers within `target` at this speed (and well
    /// within `deadline`, should the target be set beyond it), with why; `None` until a call
    /// has shown how fast the model reads.
    pub fn prompt_budget(&self, target: Duration, deadline: Duration) -> Option<PromptBudget> {
        let reading = self.reading?;
        let writing_secs = match (self.writing, self.reply_tokens) {
            (Some(writing), Some(tokens)) if writing > 0.0 => tokens / writing,
            _ => 0.0,
        };
        let by_target = target.as_secs_f64() * TARGET_SHARE;
        let by_deadline = deadline.as_secs_f64() * DEADLINE_SHARE;
        let (turn_secs, of_what) = if by_target <= by_deadline {
            (by_target, format!("{:.0}% of the {} s target turn", TARGET_SHARE * 100.0, target.as_secs()))
        } else {
            (by_deadline, format!("{:.0}% of the {} s deadline", DEADLINE_SHARE * 100.0, deadline.as_secs()))
        };
        let for_reading = (turn_secs - writing_secs).max(0.0);
        let tokens = ((for_reading * reading) as usize).max(MIN_PROMPT_TOKENS);
        let why = format!(
            "measured over {} call{}: reads {reading:.0} tokens/s{}; {of_what} leaves {for_reading:.1} s to read",
            self.calls,
            if self.calls == 1 { "" } else { "s" },
            match (self.writing, self.reply_tokens) {
                (Some(w), Some(t)) => format!(", writes {w:.0} tokens/s ({t:.0} a reply, {writing_secs:.1} s)"),
                _ => String::new(),
            },
        );
        Some(PromptBudget { tokens, why })
    }
}

/// How many prompt tokens a turn may send, and why that many.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PromptBudget {
    pub tokens: usize,
    pub why: String,
}

#[cfg(test)]
mod tests {
    use super::*;

    fn timing(first_ms: u64, total_ms: u64) -> Timing {
        Timing { first_token: Duration::from_millis(first_ms), total: Duration::from_millis(total_ms) }
    }

    const TARGET: Duration = Duration::from_secs(10);
    const DEADLINE: Duration = Duration::from_secs(30);

    #[test]
    fn a_slow_reader_gets_a_prompt_it_answers_within_the_target_turn_time() {
        let mut speed = Speed::default();
        assert_eq!(speed.prompt_budget(TARGET, DEADLINE), None, "nothing measured yet");
        // SmolLM2-135M here: 3,000 tokens read in 10 s, 100 written in 2 s.
        speed.record(3_000, 100, timing(10_000, 12_000));
        let budget = speed.prompt_budget(TARGET, DEADLINE).unwrap();
        // 10 s x 0.85 = 8.5 s, 2 s of it writing: 6.5 s of reading at 300 tokens/s.
        assert_eq!(budget.tokens, 1_950);
        assert!(
            budget.why.contains("reads 300 tokens/s")
                && budget.why.contains("writes 50 tokens/s")
                && budget.why.contains("10 s target turn"),
            "{}",
            budget.why
        );
    }

    #[test]
    fn a_target_beyond_the_deadline_is_held_within_the_deadline() {
        let mut speed = Speed::default();
        speed.record(3_000, 200, timing(15_000, 23_000));
        let budget = speed.prompt_budget(Duration::from_secs(60), DEADLINE).unwrap();
        // 30 s x 0.7 = 21 s, 8 s of it writing: 13 s of reading at 200 tokens/s.
        assert_eq!(budget.tokens, 2_600);
        assert!(budget.why.contains("30 s deadline"), "{}", budget.why);
    }

    #[test]
    fn a_fast_model_is_sent_everything_and_a_hopeless_one_the_least() {
        let mut fast = Speed::default();
        fast.record(3_000, 200, timing(300, 2_300));
        assert!(fast.prompt_budget(TARGET, DEADLINE).unwrap().tokens > 50_000);
        let mut hopeless = Speed::default();
        hopeless.record(1_000, 400, timing(20_000, 60_000));
        assert_eq!(hopeless.prompt_budget(TARGET, DEADLINE).unwrap().tokens, MIN_PROMPT_TOKENS);
    }

    #[test]
    fn a_call_given_up_bounds_the_reading_speed() {
        let mut speed = Speed::default();
        speed.record_unanswered(3_600, DEADLINE);
        assert_eq!(speed.reading, Some(120.0));
        let budget = speed.prompt_budget(TARGET, DEADLINE).unwrap();
        assert_eq!(budget.tokens, 1_020, "{}", budget.why);
        speed.record_unanswered(6_000, DEADLINE);
        assert_eq!(speed.reading, Some(120.0), "a bound above what is known changes nothing");
    }

    #[test]
    fn the_speed_follows_the_latest_calls_without_jumping() {
        let mut speed = Speed::default();
        speed.record(2_000, 0, timing(10_000, 10_000));
        speed.record(2_000, 0, timing(5_000, 5_000));
        let reading = speed.reading.unwrap();
        assert!(reading > 200.0 && reading < 400.0, "{reading}");
        speed.record(10, 0, timing(5, 5));
        assert_eq!(speed.reading.unwrap(), reading, "a call too quick to time says nothing");
    }
}
