//! Agent tools (`defineAgentTool`): the per-agent catalogue kept from each successful
//! `agent.open.before` ([`Sessions`]), input validation in Rust, and the MCP endpoint. The host
//! runs the calls (host/dispatch.rs) through [`AgentToolbox`]. Only the agent a tool was attached
//! to can see or call it.

pub mod mcp;

use std::collections::HashMap;
use std::sync::Arc;
use std::time::Duration;

use futures::future::BoxFuture;
use serde::{Deserialize, Serialize};
use serde_json::{json, Value};

use crate::engine::CallError;
use crate::hooks::catalogue;
use crate::hooks::validate::field_path;

/// Longest an `execute` may run, separate from the 30 s hook limit.
pub const TOOL_TIMEOUT: Duration = Duration::from_secs(10 * 60);

/// What a tool call returns to the agent.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ToolResult {
    #[serde(skip_serializing_if = "Option::is_none")]
    pub text: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub structured_content: Option<Value>,
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub is_error: bool,
}

impl ToolResult {
    pub fn error(text: impl Into<String>) -> Self {
        ToolResult {
            text: Some(text.into()),
            structured_content: None,
            is_error: true,
        }
    }
}

/// Why a call produced no result for the agent.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ToolError {
    #[error("Agent {agent} has no tool named {name}")]
    UnknownTool { agent: String, name: String },
    /// The caller cancelled (or its transport closed); the result was dropped.
    #[error("The tool call was cancelled")]
    Cancelled,
}

/// A tool as the daemon registers it with the agent's provider.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct ToolInfo {
    pub name: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub title: Option<String>,
    pub description: String,
    pub input_schema: Value,
    /// The plugin that owns it.
    pub plugin: String,
}

struct ToolEntry {
    info: ToolInfo,
    validator: Arc<jsonschema::Validator>,
}

/// An open agent session as the host saw it in `agent.open.before`.
struct Session {
    /// The agent as `PluginHookAgent`, handed to `execute` as `context.agent`.
    agent: Value,
    tools: Vec<ToolEntry>,
    /// A plugin declaring `agent.open.before` started, stopped or reloaded since the open:
    /// the daemon reopens the session before its next idle prompt.
    stale: bool,
}

#[derive(Default)]
pub struct Sessions(std::sync::Mutex<HashMap<String, Session>>);

impl Sessions {
    /// Records the outcome of a successful interactive `agent.open.before`; reopening replaces
    /// the old definitions.
    pub fn record_open(&self, request: &Value) {
        if !catalogue().session_rules().attaches(request) {
            return;
        }
        let agent_id = request["agentId"].as_str().unwrap_or_default().to_string();
        let agent = json!({
            "id": agent_id,
            "workspaceId": request["workspaceId"],
            "parentAgentId": request["labels"]["paseo.parent-agent-id"],
            "provider": request["provider"],
            "cwd": request["cwd"],
            "title": request["title"],
        });
        let tools = request["tools"]
            .as_array()
            .into_iter()
            .flatten()
            .filter_map(|t| {
                let info = ToolInfo {
                    name: t["name"].as_str()?.to_string(),
                    title: t["title"].as_str().map(str::to_string),
                    description: t["description"].as_str().unwrap_or_default().to_string(),
                    input_schema: t["inputSchema"].clone(),
                    plugin: t["plugin"].as_str()?.to_string(),
                };
                // Schemas come from zod's converter; one that does not compile validates nothing.
                let validator = jsonschema::options()
                    .should_validate_formats(false)
                    .build(&info.input_schema)
                    .ok()?;
                Some(ToolEntry {
                    info,
                    validator: Arc::new(validator),
                })
            })
            .collect();
        self.0.lock().unwrap().insert(
            agent_id,
            Session {
                agent,
                tools,
                stale: false,
            },
        );
    }

    pub fn mark_all_stale(&self) {
        for session in self.0.lock().unwrap().values_mut() {
            session.stale = true;
        }
    }

    /// The plugin tools attached to an agent by its latest session opening.
    pub fn tools(&self, agent_id: &str) -> Vec<ToolInfo> {
        self.0
            .lock()
            .unwrap()
            .get(agent_id)
            .map(|s| s.tools.iter().map(|t| t.info.clone()).collect())
            .unwrap_or_default()
    }

    /// Open sessions that must reopen before their next idle prompt, in ID order.
    pub fn stale(&self) -> Vec<String> {
        let mut ids: Vec<String> = self
            .0
            .lock()
            .unwrap()
            .iter()
            .filter(|(_, s)| s.stale)
            .map(|(id, _)| id.clone())
            .collect();
        ids.sort();
        ids
    }

    /// Forgets a closed session; returns the plugins whose tools it had (once per tool).
    pub fn close(&self, agent_id: &str) -> Vec<String> {
        match self.0.lock().unwrap().remove(agent_id) {
            Some(session) => session
                .tools
                .iter()
                .map(|t| t.info.plugin.clone())
                .collect(),
            None => Vec::new(),
        }
    }

    /// Checks a call before any plugin code runs: the agent must have the tool, and the input
    /// must match its JSON Schema (issues come back as a tool error, `Err(Ok(..))`). Otherwise
    /// the owning plugin and the payload of `execute`.
    pub fn prepare(
        &self,
        agent_id: &str,
        name: &str,
        input: Value,
    ) -> Result<ToolCall, Result<ToolResult, ToolError>> {
        let (plugin, validator, agent) = {
            let sessions = self.0.lock().unwrap();
            let unknown = || {
                Err(ToolError::UnknownTool {
                    agent: agent_id.into(),
                    name: name.into(),
                })
            };
            let session = sessions.get(agent_id).ok_or_else(unknown)?;
            let entry = session
                .tools
                .iter()
                .find(|t| t.info.name == name)
                .ok_or_else(unknown)?;
            (
                entry.info.plugin.clone(),
                entry.validator.clone(),
                session.agent.clone(),
            )
        };
        let issues: Vec<String> = validator
            .iter_errors(&input)
            .take(5)
            .map(|e| format!("{}: {e}", field_path(e.instance_path().as_str())))
            .collect();
        if !issues.is_empty() {
            return Err(Ok(ToolResult::error(format!(
                "Invalid input for tool {name}: {}",
                issues.join("; ")
            ))));
        }
        let payload = json!({ "agentId": agent_id, "name": name, "input": input, "agent": agent })
            .to_string();
        Ok(ToolCall { plugin, payload })
    }
}

/// A checked tool call: the plugin to run it in, and what its `execute` receives.
pub struct ToolCall {
    pub plugin: String,
    /// `{ agentId, name, input, agent }` as JSON.
    pub payload: String,
}

/// What the agent gets from the outcome of a tool's `execute`: its result, or the error as a
/// tool error (`Cancelled` is not the agent's to see). Structured results without text are
/// also shown as JSON, since the model reads text.
pub fn tool_result(
    name: &str,
    outcome: Result<String, CallError>,
) -> Result<ToolResult, ToolError> {
    let mut result: ToolResult = match outcome {
        Ok(json) => serde_json::from_str(&json).unwrap_or_else(|e| {
            ToolResult::error(format!("Tool {name} returned an invalid result: {e}"))
        }),
        Err(CallError::Cancelled) => return Err(ToolError::Cancelled),
        Err(CallError::TimedOut) => {
            ToolResult::error(format!("Tool {name} timed out after 10 minutes"))
        }
        Err(e) => ToolResult::error(e.to_string()),
    };
    if result.text.is_none() {
        if let Some(content) = &result.structured_content {
            result.text = Some(serde_json::to_string_pretty(content).unwrap_or_default());
        }
    }
    Ok(result)
}

/// What serves agents their plugin tools: `PluginHost` (host/dispatch.rs). The MCP endpoint
/// takes any, so it does not depend on the host.
pub trait AgentToolbox: Send + Sync + 'static {
    /// The tools attached to the agent now.
    fn agent_tools(&self, agent_id: &str) -> Vec<ToolInfo>;
    /// Calls one; `cancel` completing first aborts the call's signal and drops its result.
    fn call_tool<'a>(
        &'a self,
        agent_id: &'a str,
        name: &'a str,
        input: Value,
        cancel: BoxFuture<'a, ()>,
    ) -> BoxFuture<'a, Result<ToolResult, ToolError>>;
}
