//! What goes to a chat model and what comes back, independent of any provider's wire format.

use serde::{Deserialize, Serialize};
use serde_json::Value;

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Role {
    System,
    User,
    Assistant,
    Tool,
}

/// One message of a conversation.
#[derive(Debug, Clone, PartialEq)]
pub struct Message {
    pub role: Role,
    pub content: String,
    /// The tool calls an assistant message made.
    pub tool_calls: Vec<ToolCall>,
    /// For a `tool` message: the call it answers.
    pub tool_call_id: Option<String>,
}

impl Message {
    pub fn system(content: impl Into<String>) -> Self {
        Message { role: Role::System, content: content.into(), tool_calls: Vec::new(), tool_call_id: None }
    }

    pub fn user(content: impl Into<String>) -> Self {
        Message { role: Role::User, content: content.into(), tool_calls: Vec::new(), tool_call_id: None }
    }

    /// The model's own turn, to be sent back as part of the conversation.
    pub fn assistant(reply: &Reply) -> Self {
        Message {
            role: Role::Assistant,
            content: reply.content.clone().unwrap_or_default(),
            tool_calls: reply.tool_calls.clone(),
            tool_call_id: None,
        }
    }

    /// The result of one tool call.
    pub fn tool_result(call: &ToolCall, content: impl Into<String>) -> Self {
        Message {
            role: Role::Tool,
            content: content.into(),
            tool_calls: Vec::new(),
            tool_call_id: Some(call.id.clone()),
        }
    }
}

/// A function the model may call; `parameters` is a JSON Schema.
#[derive(Debug, Clone, PartialEq)]
pub struct Tool {
    pub name: String,
    pub description: String,
    pub parameters: Value,
}

#[derive(Debug, Clone, PartialEq)]
pub struct ToolCall {
    pub id: String,
    pub name: String,
    /// The arguments as the model wrote them; parse and validate before use.
    pub arguments: String,
}

/// A reply that must be one JSON value of this schema.
#[derive(Debug, Clone, PartialEq)]
pub struct OutputSchema {
    pub name: String,
    pub schema: Value,
}

#[derive(Debug, Clone, PartialEq, Default)]
pub struct Request {
    pub messages: Vec<Message>,
    pub tools: Vec<Tool>,
    pub output: Option<OutputSchema>,
    /// A stricter form of `output`'s schema for servers that constrain decoding to the
    /// schema sent with `json_object` (llama-cpp-python turns it into a grammar): it may
    /// use what OpenAI's strict JSON Schema mode refuses, such as `anyOf` at the root and
    /// string lengths. Unset, `output`'s schema is sent either way.
    pub decoding_schema: Option<Value>,
    pub temperature: Option<f32>,
    pub max_tokens: Option<u32>,
}

impl Request {
    pub fn new(messages: Vec<Message>) -> Self {
        Request { messages, ..Request::default() }
    }
}

/// Tokens a call used, as the server counted them.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
pub struct Usage {
    pub prompt_tokens: u64,
    pub completion_tokens: u64,
}

impl std::ops::AddAssign for Usage {
    fn add_assign(&mut self, other: Usage) {
        self.prompt_tokens += other.prompt_tokens;
        self.completion_tokens += other.completion_tokens;
    }
}

#[derive(Debug, Clone, PartialEq)]
pub struct Reply {
    pub content: Option<String>,
    pub tool_calls: Vec<ToolCall>,
    pub usage: Usage,
    /// Why the model stopped (`stop`, `length`, `tool_calls`), when the server says.
    pub finish_reason: Option<String>,
    /// When its tokens came, for a streamed reply.
    pub timing: Option<crate::speed::Timing>,
}

impl Reply {
    /// Characters the model wrote: its text and its tool calls' names and arguments.
    pub fn written_chars(&self) -> usize {
        let text = self.content.as_deref().map_or(0, |c| c.chars().count());
        let calls: usize = self.tool_calls.iter().map(|c| c.name.chars().count() + c.arguments.chars().count()).sum();
        text + calls
    }
}
