//! Agent tools (`defineAgentTool`): the per-agent catalogue the host keeps from each successful
//! `agent.open.before`, input validation in Rust, and `call_tool` into the owning plugin's
//! isolate. Only the agent a tool was attached to can see or call it.

pub mod mcp;

use std::collections::HashMap;
use std::future::Future;
use std::sync::Arc;
use std::time::Duration;

use serde::{Deserialize, Serialize};
use serde_json::{json, Value};

use crate::engine::{CallError, CallKind};
use crate::hooks::validate::field_path;
use crate::host::PluginHost;

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

pub(crate) struct ToolEntry {
    info: ToolInfo,
    validator: Arc<jsonschema::Validator>,
}

/// An open agent session as the host saw it in `agent.open.before`.
pub(crate) struct Session {
    /// The agent as `PluginHookAgent`, handed to `execute` as `context.agent`.
    agent: Value,
    tools: Vec<ToolEntry>,
    /// A plugin declaring `agent.open.before` started, stopped or reloaded since the open:
    /// the daemon reopens the session before its next idle prompt.
    pub stale: bool,
}

#[derive(Default)]
pub(crate) struct Sessions(pub std::sync::Mutex<HashMap<String, Session>>);

impl Sessions {
    /// Records the outcome of a successful interactive `agent.open.before`; reopening replaces
    /// the old definitions.
    pub fn record_open(&self, request: &Value) {
        if request["purpose"] == "history" {
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
}

impl PluginHost {
    /// The plugin tools attached to an agent by its latest session opening.
    pub fn agent_tools(&self, agent_id: &str) -> Vec<ToolInfo> {
        self.sessions
            .0
            .lock()
            .unwrap()
            .get(agent_id)
            .map(|s| s.tools.iter().map(|t| t.info.clone()).collect())
            .unwrap_or_default()
    }

    /// Open sessions that must reopen before their next idle prompt (a plugin declaring
    /// `agent.open.before` was started, stopped or reloaded since they opened).
    pub fn stale_sessions(&self) -> Vec<String> {
        let mut ids: Vec<String> = self
            .sessions
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

    /// The agent's session closed: its tools disappear, and the plugins forget them.
    pub async fn close_session(&self, agent_id: &str) {
        let plugins: Vec<String> = match self.sessions.0.lock().unwrap().remove(agent_id) {
            Some(session) => session
                .tools
                .iter()
                .map(|t| t.info.plugin.clone())
                .collect(),
            None => return,
        };
        for plugin in plugins {
            if let Some(iso) = self.isolate(&plugin) {
                let _ = iso
                    .call(
                        CallKind::ReleaseTools {
                            agent_id: agent_id.to_string(),
                        },
                        Duration::from_secs(5),
                    )
                    .await;
            }
        }
    }

    /// Calls a plugin tool for an agent: the input is validated against the tool's JSON Schema
    /// before any plugin code runs (schema issues come back as a tool error), then zod parses
    /// it inside the plugin and `execute(input, { agent, paseo, signal })` runs there. When
    /// `cancel` completes first, the call's signal is aborted and the result dropped.
    pub async fn call_tool(
        &self,
        agent_id: &str,
        name: &str,
        input: Value,
        cancel: impl Future<Output = ()>,
    ) -> Result<ToolResult, ToolError> {
        let (plugin, validator, agent) = {
            let sessions = self.sessions.0.lock().unwrap();
            let unknown = || ToolError::UnknownTool {
                agent: agent_id.into(),
                name: name.into(),
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
            return Ok(ToolResult::error(format!(
                "Invalid input for tool {name}: {}",
                issues.join("; ")
            )));
        }
        let Some(iso) = self.isolate(&plugin) else {
            return Ok(ToolResult::error(format!(
                "Plugin is not available: {plugin}"
            )));
        };
        let payload = json!({ "agentId": agent_id, "name": name, "input": input, "agent": agent })
            .to_string();
        let outcome = iso
            .call_until(CallKind::Tool { input: payload }, TOOL_TIMEOUT, cancel)
            .await;
        let mut result: ToolResult = match outcome {
            Ok(json) => serde_json::from_str(&json).unwrap_or_else(|e| {
                ToolResult::error(format!("Tool {name} returned an invalid result: {e}"))
            }),
            Err(CallError::Cancelled) => return Err(ToolError::Cancelled),
            Err(CallError::TimedOut) => {
                ToolResult::error(format!("Tool {name} timed out after 10 minutes"))
            }
            Err(CallError::Failed(m) | CallError::Stopped(m)) => ToolResult::error(m),
        };
        // The model reads text: structured results without text are shown as JSON.
        if result.text.is_none() {
            if let Some(content) = &result.structured_content {
                result.text = Some(serde_json::to_string_pretty(content).unwrap_or_default());
            }
        }
        Ok(result)
    }
}
