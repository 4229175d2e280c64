//! Typed payloads of the 14 hooks, for daemons that prefer structs to JSON. Each hook has a
//! marker type naming it; a test checks every marker and payload against the catalogue, so the
//! catalogue stays the one source of truth.
//!
//! The creation flow a daemon follows (seed, "ordering and returned values"):
//! `workspace.create.before` → `worktree.create.before` → `git worktree add` →
//! `worktree.create.after` (failure: remove the worktree) → register the workspace →
//! `workspace.create.after` → `agent.create.before` → resolve defaults, validate the provider
//! config → `agent.open.before` → set `PASEO_AGENT_ID` / `PASEO_AGENT_CWD` → open the provider
//! session, save the agent → `agent.create.after`.

use std::collections::BTreeMap;

use serde::de::DeserializeOwned;
use serde::{Deserialize, Serialize};
use serde_json::Value;

pub type StringMap = BTreeMap<String, String>;

/// Per-open facts the daemon supplies to `agent.open.before`: what plugin tools and MCP
/// servers must not clash with.
#[derive(Debug, Clone, Default)]
pub struct OpenContext {
    /// Names of Paseo's own tools for this agent.
    pub paseo_tools: Vec<String>,
    /// Names of MCP servers saved in the agent's configuration.
    pub saved_mcp_servers: Vec<String>,
    /// False when the provider cannot take MCP servers.
    pub provider_lacks_mcp: bool,
}

/// A waiting hook whose handlers receive `{ request }` and may replace it.
pub trait RequestHook {
    const NAME: &'static str;
    type Request: Serialize + DeserializeOwned;
}

/// A hook whose handlers receive an event (waited for or not, as the catalogue says).
pub trait EventHook {
    const NAME: &'static str;
    type Event: Serialize;
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct PluginHookAgent {
    pub id: String,
    pub workspace_id: Option<String>,
    pub parent_agent_id: Option<String>,
    pub provider: String,
    pub cwd: String,
    pub title: Option<String>,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct PluginHookWorkspace {
    pub id: String,
    pub project_id: String,
    pub cwd: String,
    pub name: Option<String>,
    pub archived_at: Option<String>,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "lowercase")]
pub enum TurnOutcome {
    Completed,
    Failed { error: TurnError },
    Canceled { reason: String },
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct TurnError {
    pub message: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub code: Option<String>,
}

/// `{ type: "stdio" | "http" | "sse", … }`, kept as JSON: the provider interprets it.
pub type McpServerConfig = Value;

#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct AgentSessionConfig {
    pub provider: String,
    pub cwd: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub system_prompt: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub mode_id: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub model: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub thinking_option_id: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub feature_values: Option<BTreeMap<String, Value>>,
    #[serde(
        default,
        skip_serializing_if = "Option::is_none",
        with = "double_option"
    )]
    pub title: Option<Option<String>>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub provider_options: Option<BTreeMap<String, Value>>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub tool_policy: Option<Value>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub mcp_servers: Option<BTreeMap<String, McpServerConfig>>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub internal: Option<bool>,
}

/// `title: null` and an absent title differ.
mod double_option {
    use serde::{Deserialize, Deserializer, Serialize, Serializer};
    pub fn serialize<S: Serializer>(v: &Option<Option<String>>, s: S) -> Result<S::Ok, S::Error> {
        v.as_ref().unwrap_or(&None).serialize(s)
    }
    pub fn deserialize<'de, D: Deserializer<'de>>(
        d: D,
    ) -> Result<Option<Option<String>>, D::Error> {
        Option::<String>::deserialize(d).map(Some)
    }
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct AgentCreateRequest {
    pub config: AgentSessionConfig,
    /// First launch only; never saved.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub env: Option<StringMap>,
    /// Read-only for hooks.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub initial_prompt: Option<String>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum OpenReason {
    Create,
    Resume,
    Refresh,
    Import,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum OpenPurpose {
    Interactive,
    History,
}

/// A plugin tool attached in `agent.open.before`, as the daemon registers it with the provider.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct AgentToolSpec {
    pub name: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub title: Option<String>,
    pub description: String,
    pub input_schema: Value,
    /// The plugin that owns the tool (set by the host after the hooks).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub plugin: Option<String>,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct AgentOpenRequest {
    pub agent_id: String,
    pub workspace_id: Option<String>,
    pub provider: String,
    pub cwd: String,
    pub title: Option<String>,
    pub labels: StringMap,
    pub tools: Vec<AgentToolSpec>,
    pub mcp_servers: BTreeMap<String, McpServerConfig>,
    pub reason: OpenReason,
    pub purpose: OpenPurpose,
    /// Launch overrides only; never persisted.
    pub env: StringMap,
}

// A payload as it travels once per workspace creation: boxing the larger variant would only
// make it clumsier to build.
#[allow(clippy::large_enum_variant)]
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "lowercase")]
pub enum WorkspaceSource {
    Directory {
        path: String,
        #[serde(rename = "projectId", default, skip_serializing_if = "Option::is_none")]
        project_id: Option<String>,
    },
    Worktree {
        cwd: String,
        action: String,
        #[serde(rename = "branchName", skip_serializing_if = "Option::is_none")]
        branch_name: Option<String>,
        /// The ref to check out (`checkout`) or branch off from.
        #[serde(rename = "refName", default, skip_serializing_if = "Option::is_none")]
        ref_name: Option<String>,
        /// Legacy: a GitHub pull request to check out (Paseo prefers `checkoutSource`).
        #[serde(
            rename = "githubPrNumber",
            default,
            skip_serializing_if = "Option::is_none"
        )]
        github_pr_number: Option<u64>,
        #[serde(
            rename = "baseBranch",
            default,
            skip_serializing_if = "Option::is_none"
        )]
        base_branch: Option<String>,
        #[serde(
            rename = "worktreeSlug",
            default,
            skip_serializing_if = "Option::is_none"
        )]
        worktree_slug: Option<String>,
        #[serde(rename = "checkoutSource", skip_serializing_if = "Option::is_none")]
        checkout_source: Option<Value>,
        #[serde(rename = "projectId", skip_serializing_if = "Option::is_none")]
        project_id: Option<String>,
    },
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct WorkspaceCreateRequest {
    pub source: WorkspaceSource,
    #[serde(
        default,
        skip_serializing_if = "Option::is_none",
        with = "double_option"
    )]
    pub title: Option<Option<String>>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub first_agent_context: Option<Value>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub idempotency_key: Option<String>,
}

#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct WorktreeCreateRequest {
    /// `branch-off`, `checkout-branch`, `checkout-change-request` or `checkout-github-pr`.
    pub kind: String,
    pub branch: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub base_ref: Option<String>,
    pub slug: String,
    pub path: String,
    pub repo_root: String,
    pub source_checkout: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub forge: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub change_request_number: Option<u64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub github_pr_number: Option<u64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub head_ref: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub head_repository_owner: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub head_repository: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub checkout_refs: Option<Vec<Value>>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub push_remote_url: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub track_origin_head: Option<bool>,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct CreatedWorktree {
    pub path: String,
    pub branch: String,
    pub source_checkout: String,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct WorktreeEvent {
    pub worktree: CreatedWorktree,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct WorkspaceEvent {
    pub workspace: PluginHookWorkspace,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct AgentEvent {
    pub agent: PluginHookAgent,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct AgentArchiveEvent {
    pub agent: PluginHookAgent,
    pub archived_at: String,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct TurnStartEvent {
    pub agent: PluginHookAgent,
    pub turn_id: Option<String>,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct TurnEndEvent {
    pub agent: PluginHookAgent,
    pub turn_id: Option<String>,
    pub outcome: TurnOutcome,
    /// Deprecated, always empty: plugins read history through the SDK.
    pub timeline: Vec<Value>,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct PermissionRequestEvent {
    pub agent: PluginHookAgent,
    /// The SDK's `AgentPermissionRequest`.
    pub request: Value,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct PermissionResolveEvent {
    pub agent: PluginHookAgent,
    pub request_id: String,
    /// The SDK's `AgentPermissionResponse`.
    pub resolution: Value,
}

macro_rules! request_hooks {
    ($($marker:ident = $name:literal : $request:ty;)*) => {$(
        #[doc = concat!("`", $name, "`")]
        pub struct $marker;
        impl RequestHook for $marker {
            const NAME: &'static str = $name;
            type Request = $request;
        }
    )*};
}

macro_rules! event_hooks {
    ($($marker:ident = $name:literal : $event:ty;)*) => {$(
        #[doc = concat!("`", $name, "`")]
        pub struct $marker;
        impl EventHook for $marker {
            const NAME: &'static str = $name;
            type Event = $event;
        }
    )*};
}

request_hooks! {
    WorkspaceCreateBefore = "workspace.create.before": WorkspaceCreateRequest;
    WorktreeCreateBefore = "worktree.create.before": WorktreeCreateRequest;
    AgentCreateBefore = "agent.create.before": AgentCreateRequest;
    AgentOpenBefore = "agent.open.before": AgentOpenRequest;
}

event_hooks! {
    WorktreeCreateAfter = "worktree.create.after": WorktreeEvent;
    WorkspaceCreateAfter = "workspace.create.after": WorkspaceEvent;
    WorkspaceArchiveAfter = "workspace.archive.after": WorkspaceEvent;
    AgentCreateAfter = "agent.create.after": AgentEvent;
    AgentCloseAfter = "agent.close.after": AgentEvent;
    AgentArchiveAfter = "agent.archive.after": AgentArchiveEvent;
    AgentTurnBefore = "agent.turn.before": TurnStartEvent;
    AgentTurnAfter = "agent.turn.after": TurnEndEvent;
    AgentPermissionBefore = "agent.permission.before": PermissionRequestEvent;
    AgentPermissionAfter = "agent.permission.after": PermissionResolveEvent;
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::hooks::catalogue::catalogue;
    use serde_json::json;

    fn agent() -> PluginHookAgent {
        PluginHookAgent {
            id: "a".into(),
            workspace_id: None,
            parent_agent_id: None,
            provider: "codex".into(),
            cwd: "/p".into(),
            title: None,
        }
    }

    fn check_request<H: RequestHook>(sample: H::Request) {
        let spec = catalogue().get(H::NAME).expect("in catalogue");
        assert!(spec.waiting && spec.returns_request, "{}", H::NAME);
        let value = serde_json::to_value(&sample).unwrap();
        crate::hooks::validate::check_input(spec, &value).unwrap();
        let back: H::Request = serde_json::from_value(value.clone()).unwrap();
        assert_eq!(serde_json::to_value(back).unwrap(), value);
    }

    fn check_event<H: EventHook>(sample: H::Event, waiting: bool) {
        let spec = catalogue().get(H::NAME).expect("in catalogue");
        assert_eq!(
            (spec.waiting, spec.returns_request),
            (waiting, false),
            "{}",
            H::NAME
        );
        crate::hooks::validate::check_input(spec, &serde_json::to_value(&sample).unwrap()).unwrap();
    }

    #[test]
    fn typed_payloads_match_the_catalogue() {
        check_request::<WorkspaceCreateBefore>(WorkspaceCreateRequest {
            source: WorkspaceSource::Directory {
                path: "/p".into(),
                project_id: None,
            },
            title: Some(None),
            first_agent_context: None,
            idempotency_key: Some("k".into()),
        });
        check_request::<WorktreeCreateBefore>(WorktreeCreateRequest {
            kind: "branch-off".into(),
            branch: "b".into(),
            base_ref: Some("main".into()),
            slug: "b".into(),
            path: "/w".into(),
            repo_root: "/r".into(),
            source_checkout: "/r".into(),
            ..Default::default()
        });
        check_request::<AgentCreateBefore>(AgentCreateRequest {
            config: AgentSessionConfig {
                provider: "codex".into(),
                cwd: "/p".into(),
                title: Some(None),
                ..Default::default()
            },
            env: None,
            initial_prompt: Some("hi".into()),
        });
        check_request::<AgentOpenBefore>(AgentOpenRequest {
            agent_id: "a".into(),
            workspace_id: None,
            provider: "codex".into(),
            cwd: "/p".into(),
            title: None,
            labels: StringMap::new(),
            tools: vec![],
            mcp_servers: BTreeMap::new(),
            reason: OpenReason::Create,
            purpose: OpenPurpose::Interactive,
            env: StringMap::new(),
        });
        check_event::<WorktreeCreateAfter>(
            WorktreeEvent {
                worktree: CreatedWorktree {
                    path: "/w".into(),
                    branch: "b".into(),
                    source_checkout: "/r".into(),
                },
            },
            true,
        );
        let ws = PluginHookWorkspace {
            id: "w".into(),
            project_id: "p".into(),
            cwd: "/p".into(),
            name: None,
            archived_at: None,
        };
        check_event::<WorkspaceCreateAfter>(
            WorkspaceEvent {
                workspace: ws.clone(),
            },
            false,
        );
        check_event::<WorkspaceArchiveAfter>(WorkspaceEvent { workspace: ws }, false);
        check_event::<AgentCreateAfter>(AgentEvent { agent: agent() }, false);
        check_event::<AgentCloseAfter>(AgentEvent { agent: agent() }, false);
        check_event::<AgentArchiveAfter>(
            AgentArchiveEvent {
                agent: agent(),
                archived_at: "2026-11-30T00:00:00.000Z".into(),
            },
            false,
        );
        check_event::<AgentTurnBefore>(
            TurnStartEvent {
                agent: agent(),
                turn_id: Some("t".into()),
            },
            false,
        );
        for outcome in [
            TurnOutcome::Completed,
            TurnOutcome::Failed {
                error: TurnError {
                    message: "m".into(),
                    code: None,
                },
            },
            TurnOutcome::Canceled { reason: "r".into() },
        ] {
            check_event::<AgentTurnAfter>(
                TurnEndEvent {
                    agent: agent(),
                    turn_id: None,
                    outcome,
                    timeline: vec![],
                },
                false,
            );
        }
        check_event::<AgentPermissionBefore>(
            PermissionRequestEvent {
                agent: agent(),
                request: json!({"id":"r","provider":"codex","name":"shell","kind":"tool","input":{"command":"ls"}}),
            },
            false,
        );
        check_event::<AgentPermissionAfter>(
            PermissionResolveEvent {
                agent: agent(),
                request_id: "r".into(),
                resolution: json!({"behavior":"allow"}),
            },
            false,
        );
        // Every catalogue hook has a marker above.
        assert_eq!(catalogue().iter().count(), 14);
    }
}
