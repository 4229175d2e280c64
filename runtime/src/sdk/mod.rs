//! The daemon side of `context.paseo`: a trait the embedding daemon implements. In JS,
//! `server.paseo`, the hook context's `paseo` and the tool context's `paseo` are one `PaseoApi`
//! object per plugin (js/runtime/paseo.js) whose methods call `op_sdk_call`, which lands here
//! with the calling plugin attached, so the daemon can attribute everything a plugin does.

pub mod memory;
pub mod ops;
pub mod storage;

use std::future::Future;
use std::pin::Pin;

use serde_json::Value;

pub type SdkResult<T = Value> = Result<T, SdkError>;
pub type SdkFuture<'a, T = Value> = Pin<Box<dyn Future<Output = SdkResult<T>> + Send + 'a>>;

/// Errors carried to the plugin as a JS `Error` with this text.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum SdkError {
    /// The daemon does not offer this member.
    #[error("paseo.{0} is not implemented by this daemon")]
    NotImplemented(String),
    /// The daemon refused or failed; its own message.
    #[error("{0}")]
    Daemon(String),
}

/// Who is calling: every SDK call is attributed to a plugin.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Caller {
    pub plugin_id: String,
}

fn not_implemented(member: &str) -> SdkFuture<'static> {
    let member = member.to_string();
    Box::pin(async move { Err(SdkError::NotImplemented(member)) })
}

macro_rules! sdk_trait {
    ($($(#[$doc:meta])* $fn:ident => $wire:literal;)*) => {
        /// What a daemon offers plugins through `context.paseo`. Every method receives the
        /// calling plugin and the JSON arguments the SDK documents; a method left at its default
        /// rejects with `paseo.<member> is not implemented by this daemon`.
        pub trait PaseoDaemon: Send + Sync + 'static {
            $(
                $(#[$doc])*
                fn $fn<'a>(&'a self, caller: &'a Caller, args: Value) -> SdkFuture<'a> {
                    let _ = (caller, args);
                    not_implemented($wire)
                }
            )*
        }

        /// Every SDK method by its wire name (the JS member path).
        pub const SDK_METHODS: &[&str] = &[$($wire),*];

        pub(crate) fn dispatch<'a>(daemon: &'a dyn PaseoDaemon, caller: &'a Caller, method: &str, args: Value) -> SdkFuture<'a> {
            match method {
                $($wire => daemon.$fn(caller, args),)*
                other => not_implemented(other),
            }
        }
    };
}

sdk_trait! {
    /// `agents.list(opts?)` → `{ entries: [{ agent, project }], pageInfo }`.
    agents_list => "agents.list";
    /// `agents.create(opts)` with the wire mapping applied (`providerOptions`, `initialPrompt`,
    /// `callerAgentId`) → the created agent.
    agents_create => "agents.create";
    /// `{ agentId }` → `{ agent, project }` or null (`ref(id).refresh()`).
    agents_get => "agents.get";
    /// `{ agentId, text, options }`: send a user message as the plugin.
    agents_send => "agents.send";
    /// `{ agentId, requestId, response }`: answer a pending permission as the plugin.
    agents_respond_to_permission => "agents.respondToPermission";
    /// `{ agentId, options: { direction, cursor, limit, projection } }` → a timeline page.
    agents_timeline_fetch => "agents.timeline.fetch";
    /// `{ agentId, item: { type: "plugin", id, kind, version, data } }` → `{ seq, epoch }`; the
    /// daemon stamps the calling plugin's id on the row.
    agents_timeline_append => "agents.timeline.append";
    /// `{ agentId, requestId? }`: reopen the provider session (`reason: "refresh"`).
    agents_reload => "agents.reload";
    /// `{ agentId }` → `{ archivedAt }`.
    agents_archive => "agents.archive";
    /// `{ agentId, timeoutMs }` → the finish result.
    agents_wait_for_finish => "agents.waitForFinish";
    /// `{ agentId, options }` → the agent's commands.
    agents_commands => "agents.commands";
    /// `workspaces.list(opts?)` → `{ entries: [workspace], pageInfo }` (the entries are the
    /// workspaces themselves, unlike `agents.list`).
    workspaces_list => "workspaces.list";
    /// `{ workspaceId }` → the workspace or null.
    workspaces_get => "workspaces.get";
    /// `{ cwd, requestId? }` → the workspace for that directory.
    workspaces_open => "workspaces.open";
    /// `{ source, title?, firstAgentContext?, idempotencyKey? }` → the created workspace.
    workspaces_create => "workspaces.create";
    /// `{ workspaceId }`.
    workspaces_archive => "workspaces.archive";
    /// `{ workspaceId, title }`.
    workspaces_set_title => "workspaces.setTitle";
    /// `{ workspaceId, label, assigned }`.
    workspaces_set_label => "workspaces.setLabel";
    /// `workspaces.labels.list()`.
    workspaces_labels => "workspaces.labels.list";
    /// `projects.list(opts?)` → `{ projects }`.
    projects_list => "projects.list";
    /// `providers.snapshot()`.
    providers_snapshot => "providers.snapshot";
    /// `config.get()`.
    config_get => "config.get";
    /// `{ patch }` → the new config.
    config_patch => "config.patch";
    /// `server.presence()` → `{ userPresent, clients }`.
    presence => "presence";
}

/// The daemon-enforced rules of `timeline.append`: only `type: "plugin"` rows, at most 64 KiB of
/// `data`, stamped with the calling plugin; the same plugin and `id` replaces the earlier row.
/// Returns the row's 1-based sequence number.
pub fn append_plugin_row(
    timeline: &mut Vec<Value>,
    caller: &Caller,
    mut item: Value,
) -> SdkResult<usize> {
    if item["type"] != "plugin" {
        return Err(SdkError::Daemon(
            "Only plugin timeline items can be appended".into(),
        ));
    }
    if item["data"].to_string().len() > 64 * 1024 {
        return Err(SdkError::Daemon(
            "Plugin timeline item data exceeds 64 KiB".into(),
        ));
    }
    item["pluginId"] = Value::String(caller.plugin_id.clone());
    let same = |i: &Value| {
        i["type"] == "plugin" && i["pluginId"] == item["pluginId"] && i["id"] == item["id"]
    };
    Ok(match timeline.iter().position(same) {
        Some(pos) => {
            timeline[pos] = item;
            pos + 1
        }
        None => {
            timeline.push(item);
            timeline.len()
        }
    })
}

/// A tail page of a timeline: the last `options.limit` items with their sequence numbers.
pub fn timeline_page(items: &[Value], options: &Value, epoch: &str) -> Value {
    let limit = options["limit"]
        .as_u64()
        .map(|l| l as usize)
        .unwrap_or(items.len());
    let start = items.len().saturating_sub(limit);
    let entries: Vec<Value> = items[start..]
        .iter()
        .enumerate()
        .map(|(i, item)| serde_json::json!({ "seq": start + i + 1, "item": item }))
        .collect();
    serde_json::json!({ "entries": entries, "epoch": epoch, "hasOlder": start > 0 })
}

/// A daemon that offers nothing: every member rejects naming itself.
pub struct NoDaemon;
impl PaseoDaemon for NoDaemon {}
