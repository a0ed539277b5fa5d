//! What the learner's words ask for, read without a model: one table of phrasings for every
//! request the tutor understands (teach me, an example, a hint, what next, test me, I already
//! know this, simpler, something else, I'm stuck, practice), then questions by their kind
//! ("why ...?", "where does ... come from?"). Whatever is in neither is plain talk, which the
//! turn maps onto units as before.
//!
//! Matching is on whole words in order (a phrase "dont get" matches "I don't get it"), after
//! lowercasing and dropping apostrophes, so contractions need one spelling only.

use serde::{Deserialize, Serialize};

/// A request the tutor understands, whatever the words it comes in.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize, utoipa::ToSchema, schemars::JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum Request {
    /// "What should I learn next?": the next unit, and why it is next.
    Next,
    /// "I already know this": the check that would prove it.
    AlreadyKnow,
    /// "I'm stuck", "I don't get it": the next rung of the unit's help ladder.
    Stuck,
    /// "Can you give me an example?".
    Example,
    /// "A hint, please".
    Hint,
    /// "Simpler, please", "say it another way", "again".
    Simpler,
    /// "Something else", "can we move on?".
    SomethingElse,
    /// "What can you do?", "help".
    Help,
    /// "Test me", "I'm ready for the exam".
    Exam,
    /// "Give me a drill", "another one".
    Drill,
    /// "Teach me X", "explain X", "tell me about X": the words after it name the topic.
    Explain,
}

/// What kind of answer a question wants, which tells which sentence of the material answers
/// it ("why" wants a reason, "where ... from" an origin).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize, utoipa::ToSchema, schemars::JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum QuestionKind {
    /// "What is X?", "what are X?", "define X", "explain X": what X is.
    Definition,
    /// "What does X do?": what X does.
    Function,
    /// "Why ...?": a reason.
    Reason,
    /// "Where does X come from?": an origin.
    Origin,
    /// "Where ...?": a place.
    Place,
    /// "How does ...?": a process or a means.
    Process,
    /// "When ...?": a time or a condition.
    Time,
    /// "Who ...?".
    Agent,
    /// Any other question ("which ...?", "is it true that ...?").
    Other,
}

/// How the turn reads the learner's words.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Reading {
    Request(Request),
    Question(QuestionKind),
    /// Neither: words about a topic, or an answer to the tutor's question.
    Talk,
}

/// Every phrasing of every request, in the order they are tried: the first request with a
/// phrase in the words wins, so the more particular ones come first ("explain it again" is
/// `Simpler` before it is `Explain`; "I don't get it, give me a hint" is `Stuck`).
pub const PHRASINGS: &[(Request, &[&str])] = &[
    (
        Request::Next,
        &[
            "what next",
            "whats next",
            "what now",
            "what should i learn",
            "what should i study",
            "what should i do next",
            "what do i learn next",
            "what do i do next",
            "what do i study next",
            "what comes next",
            "what is next",
            "where next",
            "where do i go from here",
            "where should i start",
            "next step",
            "next topic",
            "next unit",
            "learn next",
            "study next",
            "do next",
        ],
    ),
    (
        Request::AlreadyKnow,
        &[
            "already know",
            "i know this",
            "i know that",
            "i know it",
            "i know all this",
            "know this already",
            "already learned",
            "already learnt",
            "already done this",
            "already covered",
            "already understand",
            "ive learned this",
            "ive done this",
            "this is easy",
            "too easy",
            "i get it already",
            "i got this",
        ],
    ),
    (
        Request::Stuck,
        &[
            "stuck",
            "dont get it",
            "dont get this",
            "dont get that",
            "dont understand",
            "do not understand",
            "didnt understand",
            "dont follow",
            "dont see why",
            "dont see how",
            "confused",
            "confusing",
            "im lost",
            "i am lost",
            "lost me",
            "no idea",
            "no clue",
            "makes no sense",
            "doesnt make sense",
            "does not make sense",
            "i give up",
            "cant do this",
            "cant figure",
            "not getting it",
            "help me understand",
            "struggling",
        ],
    ),
    (
        Request::Example,
        &[
            "example",
            "examples",
            "for instance",
            "show me how",
            "worked example",
            "illustrate",
            "a case of",
            "demonstrate",
            "demo",
        ],
    ),
    (Request::Hint, &["hint", "hints", "clue", "nudge", "a tip", "tips", "point me", "help me start"]),
    (
        Request::Simpler,
        &[
            "simpler",
            "more simply",
            "simple terms",
            "simple words",
            "plain english",
            "plain words",
            "eli5",
            "like im five",
            "another way",
            "different way",
            "other words",
            "rephrase",
            "put differently",
            "say that differently",
            "say it differently",
            "explain again",
            "explain it again",
            "explain that again",
            "once more",
            "one more time",
            "again please",
            "say again",
            "repeat",
            "too hard",
            "too complicated",
            "slow down",
            "easier",
        ],
    ),
    (
        Request::SomethingElse,
        &[
            "something else",
            "something different",
            "anything else",
            "another topic",
            "other topic",
            "different topic",
            "change topic",
            "change the topic",
            "change subject",
            "move on",
            "skip this",
            "skip it",
            "im bored",
            "bored",
            "not this",
            "rather do",
            "rather learn",
        ],
    ),
    (
        Request::Help,
        &[
            "help",
            "what can you do",
            "what can i do",
            "how does this work",
            "what are my options",
            "options",
            "commands",
            "menu",
        ],
    ),
];

/// Phrasings that ask to be taught a topic; the words after them name it.
const EXPLAIN: &[&str] = &[
    "explain",
    "teach me",
    "tell me about",
    "tell me more about",
    "talk me through",
    "walk me through",
    "go over",
    "describe",
    "i want to learn",
    "i want to understand",
    "id like to learn",
    "can we learn",
    "lets learn",
    "lets do",
    "lets look at",
    "learn about",
    "show me",
    "teach",
];

/// Words that open a question.
const QUESTION_OPENERS: &[&str] = &[
    "what", "whats", "why", "how", "where", "wheres", "when", "who", "whom", "whose", "which", "is", "are", "does",
    "do", "did", "can", "could", "should", "would", "will", "was", "were", "has", "have", "define", "name",
];

/// The learner's words, read. A request's phrase anywhere in the words makes it that request,
/// except that "explain X"/"teach me X" is a request to be taught X only when it opens the
/// words; words asking something ("what is X?", "why ...?") are questions; the rest is talk.
pub fn read(text: &str) -> Reading {
    let words = normalized(text);
    if words.is_empty() {
        return Reading::Talk;
    }
    if asks_for_exam(text) {
        return Reading::Request(Request::Exam);
    }
    for (request, phrases) in PHRASINGS {
        if phrases.iter().any(|p| contains_phrase(&words, p)) {
            // "Help" alone, or with little else; "help with fractions" is talk about fractions.
            if *request == Request::Help && words.len() > 4 && !contains_phrase(&words, "what can you do") {
                continue;
            }
            return Reading::Request(*request);
        }
    }
    if asks_for_drill(text) {
        return Reading::Request(Request::Drill);
    }
    if explained_topic(text).is_some() {
        return Reading::Request(Request::Explain);
    }
    match question_kind(&words, text.trim_end().ends_with('?')) {
        Some(kind) => Reading::Question(kind),
        None => Reading::Talk,
    }
}

/// What a request to be taught asks: the kind of its topic's question ("explain why leaves
/// are green" wants a reason), else what the topic is.
pub fn explained_kind(topic: &str) -> QuestionKind {
    question_kind(&normalized(topic), false).unwrap_or(QuestionKind::Definition)
}

/// The topic of "explain X", "teach me about X", "tell me about X": X, in the learner's words.
/// None when the words do not open with such a phrase or name nothing after it.
pub fn explained_topic(text: &str) -> Option<String> {
    let words = normalized(text);
    let lead = ["please", "can", "could", "would", "you", "will", "pls", "ok", "okay", "so", "now", "me"];
    let start = words.iter().take_while(|w| lead.contains(&w.as_str())).count();
    let rest = &words[start..];
    let phrase = EXPLAIN.iter().filter(|p| starts_with_phrase(rest, p)).max_by_key(|p| p.split(' ').count())?;
    let after: Vec<&str> = rest[phrase.split(' ').count()..]
        .iter()
        .map(String::as_str)
        .skip_while(|w| matches!(*w, "me" | "about" | "to" | "on" | "the" | "a" | "an" | "how" | "what"))
        .collect();
    (!after.is_empty()).then(|| after.join(" "))
}

/// The kind of question the words ask, if they ask one: by the first question word, or by a
/// question mark.
fn question_kind(words: &[String], question_mark: bool) -> Option<QuestionKind> {
    let opens = words.first().is_some_and(|w| QUESTION_OPENERS.contains(&w.as_str()));
    let has = |w: &str| words.iter().any(|x| x == w);
    if !opens && !question_mark && !has("why") {
        return None;
    }
    let first_wh = words.iter().find(|w| {
        matches!(w.as_str(), "what" | "whats" | "why" | "how" | "where" | "wheres" | "when" | "who" | "whom" | "which")
    });
    let kind = match first_wh.map(String::as_str) {
        Some("why") => QuestionKind::Reason,
        Some("where" | "wheres") if has("from") => QuestionKind::Origin,
        Some("where" | "wheres") => QuestionKind::Place,
        Some("how") => QuestionKind::Process,
        Some("when") => QuestionKind::Time,
        Some("who" | "whom") => QuestionKind::Agent,
        Some("what" | "whats") if has("do") || has("does") => {
            // "what does X do?" asks what X does; "what does X mean?" what X is.
            if has("mean") || has("means") || has("stand") {
                QuestionKind::Definition
            } else {
                QuestionKind::Function
            }
        }
        Some("what" | "whats") => QuestionKind::Definition,
        Some(_) => QuestionKind::Other,
        None if words.first().is_some_and(|w| w == "define" || w == "name") => QuestionKind::Definition,
        None => QuestionKind::Other,
    };
    Some(kind)
}

/// The learner asks to be examined ("test me", "I'm ready for the exam", "give me the bronze
/// check", "quiz me").
pub fn asks_for_exam(text: &str) -> bool {
    let words = normalized(text);
    let has = |w: &str| words.iter().any(|x| x == w);
    has("exam")
        || has("exams")
        || (has("test") && (has("me") || has("ready")))
        || (has("check") && (has("bronze") || has("silver") || has("gold")))
        || (has("quiz") && has("me"))
}

/// The learner asks for practice ("give me a drill", "another one", "can I practise?",
/// "more problems").
pub fn asks_for_drill(text: &str) -> bool {
    let words = normalized(text);
    let has = |w: &str| words.iter().any(|x| x == w);
    let any = |ws: &[&str]| ws.iter().any(|w| has(w));
    any(&["drill", "drills", "practice", "practise", "practising", "practicing", "exercise", "exercises"])
        || (any(&["another", "more", "give"]) && any(&["one", "question", "questions", "problem", "problems"]))
}

/// The words, lowercased, apostrophes dropped ("don't" is "dont"), split on anything else that
/// is not a letter or digit.
fn normalized(text: &str) -> Vec<String> {
    text.to_lowercase()
        .replace(['\'', '\u{2019}', '\u{2018}'], "")
        .split(|c: char| !c.is_alphanumeric())
        .filter(|w| !w.is_empty())
        .map(str::to_string)
        .collect()
}

fn contains_phrase(words: &[String], phrase: &str) -> bool {
    let phrase: Vec<&str> = phrase.split(' ').collect();
    words.windows(phrase.len()).any(|window| window.iter().zip(&phrase).all(|(w, p)| w == p))
}

fn starts_with_phrase(words: &[String], phrase: &str) -> bool {
    let phrase: Vec<&str> = phrase.split(' ').collect();
    words.len() >= phrase.len() && words.iter().zip(&phrase).all(|(w, p)| w == p)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn request(text: &str) -> Option<Request> {
        match read(text) {
            Reading::Request(r) => Some(r),
            _ => None,
        }
    }

    fn kind(text: &str) -> Option<QuestionKind> {
        match read(text) {
            Reading::Question(k) => Some(k),
            _ => None,
        }
    }

    #[test]
    fn each_request_is_understood_in_many_phrasings() {
        let cases: &[(Request, &[&str])] = &[
            (
                Request::Next,
                &[
                    "what should I learn next?",
                    "What's next",
                    "what now?",
                    "ok what do I do next",
                    "where do I go from here?",
                    "next topic please",
                    "What comes next?",
                ],
            ),
            (
                Request::AlreadyKnow,
                &[
                    "I already know this",
                    "i know this stuff",
                    "I've learned this before",
                    "this is too easy",
                    "I know it already, skip ahead",
                    "already covered this at school",
                ],
            ),
            (
                Request::Stuck,
                &[
                    "I'm stuck, I don't get it",
                    "I dont understand",
                    "this is confusing",
                    "I'm lost",
                    "that makes no sense",
                    "I give up",
                    "no idea how to do this",
                    "I do not understand the calvin cycle",
                ],
            ),
            (
                Request::Example,
                &[
                    "can you give me an example?",
                    "example please",
                    "show me how it works",
                    "for instance?",
                    "an example of a limiting factor",
                ],
            ),
            (Request::Hint, &["hint?", "give me a hint", "can I have a clue", "a nudge please", "any tips?"]),
            (
                Request::Simpler,
                &[
                    "simpler please",
                    "explain it again",
                    "can you say that in another way",
                    "in plain English?",
                    "rephrase that",
                    "too complicated",
                    "explain like I'm five",
                ],
            ),
            (
                Request::SomethingElse,
                &[
                    "something else",
                    "can we do something different",
                    "let's move on",
                    "I'm bored of this",
                    "change the topic",
                ],
            ),
            (Request::Help, &["help", "what can you do?", "help!", "how does this work?"]),
            (Request::Exam, &["test me", "I'm ready for the exam", "quiz me please", "give me the bronze check"]),
            (Request::Drill, &["give me a drill", "another one", "can I practise?", "more problems"]),
            (
                Request::Explain,
                &[
                    "explain the Calvin cycle",
                    "teach me photosynthesis",
                    "tell me about chloroplasts",
                    "Describe photolysis",
                ],
            ),
        ];
        for (want, phrasings) in cases {
            for text in *phrasings {
                assert_eq!(request(text), Some(*want), "{text}");
            }
        }
    }

    #[test]
    fn questions_are_read_by_their_kind() {
        let cases: &[(QuestionKind, &[&str])] = &[
            (QuestionKind::Reason, &["why do leaves look green?", "Why is the sky blue", "so why?"]),
            (QuestionKind::Origin, &["where does the oxygen come from?", "Where do the electrons come from"]),
            (QuestionKind::Place, &["where does the Calvin cycle happen?", "where is chlorophyll found"]),
            (QuestionKind::Function, &["what does RuBisCO do", "What does ATP synthase do?"]),
            (
                QuestionKind::Definition,
                &[
                    "what is the stroma?",
                    "what are thylakoids",
                    "whats photolysis",
                    "what does NADPH mean?",
                    "define RuBP",
                ],
            ),
            (QuestionKind::Process, &["how does light split water?", "How is glucose made?"]),
            (QuestionKind::Time, &["when does the rate fall?"]),
            (QuestionKind::Agent, &["who discovered it?"]),
            (QuestionKind::Other, &["is the Calvin cycle light dependent?", "which factor limits the rate?"]),
        ];
        for (want, questions) in cases {
            for text in *questions {
                assert_eq!(kind(text), Some(*want), "{text}");
            }
        }
    }

    #[test]
    fn topics_to_explain_are_the_words_after_the_request() {
        assert_eq!(explained_topic("explain the Calvin cycle").as_deref(), Some("calvin cycle"));
        assert_eq!(explained_topic("Can you teach me about limiting factors?").as_deref(), Some("limiting factors"));
        assert_eq!(explained_topic("please tell me about the stroma").as_deref(), Some("stroma"));
        assert_eq!(explained_topic("explain"), None);
        assert_eq!(explained_topic("I said explain it"), None);
    }

    #[test]
    fn plain_talk_is_neither_a_request_nor_a_question() {
        for text in [
            "fractions",
            "5000",
            "the denominator",
            "I think it is the stroma",
            "",
            "help with fractions and decimals please",
        ] {
            assert_eq!(read(text), Reading::Talk, "{text}");
        }
    }

    #[test]
    fn requests_for_an_exam_are_recognised() {
        for yes in ["I'm ready for an exam", "test me", "give me the bronze check", "quiz me please", "Exam!"] {
            assert!(asks_for_exam(yes), "{yes}");
        }
        for no in ["how do I check my answer?", "what is a test of divisibility", "explain fractions"] {
            assert!(!asks_for_exam(no), "{no}");
        }
    }

    #[test]
    fn requests_for_practice_are_recognised() {
        for yes in
            ["give me a drill", "Drill me!", "can I practise?", "another one please", "more problems", "practice"]
        {
            assert!(asks_for_drill(yes), "{yes}");
        }
        for no in ["explain fractions", "what is one half", "I don't get it", "5000"] {
            assert!(!asks_for_drill(no), "{no}");
        }
    }
}
