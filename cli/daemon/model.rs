//! The types the daemon's jobs share, kept below them all so that agents, turns, permissions
//! and providers depend on these rather than on one another: what an agent was launched with,
//! its live session, a pending permission request, why a turn is interrupted and how a
//! provider's turn ended; what hooks see of an agent; and why no plugin runs while plugins are
//! off (`plugins` lists it, `install` reports it).

use std::collections::BTreeMap;

use paseo_plugin_runtime::hooks::types::PluginHookAgent;
use paseo_plugin_runtime::tools::mcp::{AgentSecret, SERVER_NAME};
use serde_json::{json, Value};
use tokio::sync::oneshot;

use super::store::AgentRecord;

/// Why no plugin runs while the global switch is off, and how to turn it on.
pub(super) const PLUGINS_OFF: &str = "plugins are turned off (\"pluginsEnabled\": false in config.json); run `paseo plugins enable` to turn them on";

/// A live agent session: what the provider was launched with.
#[derive(Debug, Clone, Default, serde::Serialize)]
#[serde(rename_all = "camelCase")]
pub(super) struct Launch {
    pub reason: String,
    pub env: BTreeMap<String, String>,
    pub tools: Vec<String>,
    pub mcp_servers: Value,
    /// Where the agent reaches its plugin tools.
    pub tools_url: Option<String>,
    /// The credential for `tools_url`, made when the tools were attached. `mcp_servers` shows
    /// it as `REDACTED_AUTHORIZATION`; only the provider gets it (`provider_mcp_servers`).
    #[serde(skip)]
    pub tools_secret: Option<AgentSecret>,
}

impl Launch {
    /// The MCP servers as the provider is launched with them: paseo's own entry carries the
    /// agent's real `Authorization` header.
    pub(super) fn provider_mcp_servers(&self) -> Value {
        let mut servers = self.mcp_servers.clone();
        if let (Some(secret), Some(entry)) = (&self.tools_secret, servers.get_mut(SERVER_NAME)) {
            entry["headers"]["Authorization"] = json!(secret.authorization());
        }
        servers
    }
}

pub(super) struct LiveAgent {
    pub(super) launch: Launch,
    pub(super) running: bool,
    /// The turn in progress: its id and the task running it (interrupting it waits for the
    /// task to end, so no step of it runs afterwards).
    pub(super) turn: Option<(String, tokio::task::JoinHandle<()>)>,
}

/// A permission request waiting for an answer.
pub(super) struct PendingPermission {
    pub(super) request: Value,
    pub(super) agent: PluginHookAgent,
    /// The provider step waiting for the answer, if it still is.
    pub(super) reply: oneshot::Sender<Value>,
}

/// Why a turn stops before its end, and what plugins are told about it.
#[derive(Debug, Clone, Copy, PartialEq)]
pub(super) enum Interruption {
    Canceled,
    Reloaded,
    Closed,
    Archived,
}

impl Interruption {
    /// `agent.turn.after`'s `outcome.reason`.
    pub(super) fn turn_reason(self) -> &'static str {
        match self {
            Interruption::Canceled => "Canceled by the user",
            Interruption::Reloaded => "Interrupted by an agent reload",
            Interruption::Closed => "Agent closed",
            Interruption::Archived => "Agent archived",
        }
    }

    /// The `resolution.message` of each pending request this clears.
    pub(super) fn permission_message(self) -> &'static str {
        match self {
            Interruption::Canceled => "Turn canceled",
            Interruption::Reloaded => "Agent reloaded",
            Interruption::Closed => "Agent closed",
            Interruption::Archived => "Agent archived",
        }
    }
}

/// The resolution of a request cleared rather than answered.
pub(super) fn cleared(message: &str) -> Value {
    json!({ "behavior": "deny", "message": message })
}

/// How a turn of a provider ended, when it did not complete.
pub(super) enum TurnEnd {
    Failed(String),
    Canceled(String),
}

pub(super) fn hook_agent(record: &AgentRecord) -> PluginHookAgent {
    PluginHookAgent {
        id: record.id.clone(),
        workspace_id: record.workspace_id.clone(),
        parent_agent_id: record.labels.get("paseo.parent-agent-id").cloned(),
        provider: record.provider.clone(),
        cwd: record.cwd.clone(),
        title: record.title.clone(),
    }
}
