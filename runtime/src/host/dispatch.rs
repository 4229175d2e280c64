//! Calls into plugins: hooks (notifications, waiting hooks and the request chain), RPC, agent
//! tools and daemon events.
//!
//! The chain of a waiting request hook across plugins: plugin-ID order, each plugin's handlers
//! in registration order (inside its isolate), the first failure stops the chain. For
//! `agent.open.before`, `env` accumulates across plugins while `tools` and `mcpServers` start
//! empty for each plugin and are merged afterwards, with clashes named on both sides.

use std::collections::BTreeMap;
use std::sync::Arc;

use serde_json::{json, Map, Value};

use std::future::Future;

use futures::future::BoxFuture;

use super::{HostError, PluginHost, HELD_NOTIFICATIONS};
use crate::engine::{CallError, CallKind, Isolate, Limits, PluginStats};
use crate::hooks::catalogue::HookSpec;
use crate::hooks::types::OpenContext;
use crate::hooks::types::{EventHook, RequestHook};
use crate::hooks::validate::{self, check_result};
use crate::hooks::{self, HookError};
use crate::logs::Stream;
use crate::tools::{
    tool_result, AgentToolbox, ToolCall, ToolError, ToolInfo, ToolResult, TOOL_TIMEOUT,
};

impl PluginHost {
    /// Plugins (in ID order) whose current registrations include `hook`. Each isolate knows
    /// its plugin's ID (`shared.id`).
    fn subscribers(&self, hook: &str) -> Vec<(Arc<Isolate>, Limits)> {
        self.slots
            .lock()
            .unwrap()
            .values()
            .filter_map(|slot| {
                slot.subscriber(hook)
                    .map(|iso| (iso.clone(), slot.limits.clone()))
            })
            .collect()
    }

    /// Dispatches a hook by name with a JSON payload (the request of waiting request hooks,
    /// the event otherwise). Waiting hooks return the final request (`null` for
    /// `worktree.create.after`); notifications return `null` once every handler has finished.
    pub async fn run_hook(
        &self,
        hook: &str,
        input: Value,
        open: &OpenContext,
    ) -> Result<Value, HookError> {
        let spec = hooks::catalogue()
            .get(hook)
            .ok_or_else(|| HookError::UnknownHook(hook.to_string()))?;
        hooks::validate::check_input(spec, &input).map_err(|message| HookError::InvalidInput {
            hook: hook.into(),
            message,
        })?;
        // A plugin being reloaded takes part with its new code rather than being skipped.
        self.wait_for_restarts(None).await;
        let subscribers = self.subscribers(hook);
        let hook: &'static str = spec.name.as_str();
        if !spec.returns_request && subscribers.is_empty() {
            // Validated, and nobody listens: nothing to serialise or wait for.
            return Ok(Value::Null);
        }
        if !spec.waiting {
            // Serialised once: every subscriber is given the same text.
            let payload: Arc<str> = Arc::from(input.to_string());
            let calls = subscribers.into_iter().map(|(iso, limits)| {
                let payload = payload.clone();
                async move {
                    let call = CallKind::Hook {
                        hook,
                        input: payload,
                    };
                    // `send`, not `call`: nothing here is worth spinning for an answer.
                    if let Err(e) = iso.send(call, limits.hook_timeout).await {
                        let line = notification_failed(hook, &iso.shared.id, e);
                        iso.shared.logs.write(Stream::Stderr, &line);
                    }
                }
            });
            futures::future::join_all(calls).await;
            return Ok(Value::Null);
        }
        if !spec.returns_request {
            let payload: Arc<str> = Arc::from(input.to_string());
            for (iso, limits) in subscribers {
                let id = &iso.shared.id;
                let call = CallKind::Hook {
                    hook,
                    input: payload.clone(),
                };
                iso.call(call, limits.hook_timeout)
                    .await
                    .map_err(|e| HookError::plugin(id, hook, call_error_message(id, e)))?;
            }
            return Ok(Value::Null);
        }
        let request = run_request_chain(spec, input, subscribers, open).await?;
        if spec.session.is_some() {
            self.sessions.record_open(&request);
        }
        Ok(request)
    }

    /// Fires a notification without waiting; failures are logged under each plugin. Shutdown
    /// waits up to 5 s for the notifications still running. A plugin being reloaded gets it
    /// from its new isolate, after what was emitted before (if its new code still listens).
    pub fn notify_json(self: &Arc<Self>, hook: &str, event: Value) {
        let Some(spec) = hooks::catalogue().get(hook) else {
            tracing::warn!(target: "paseo::host", "Unknown hook: {hook}");
            return;
        };
        if let Err(message) = hooks::validate::check_input(spec, &event) {
            tracing::warn!(target: "paseo::host", "{message}");
            return;
        }
        let hook: &'static str = spec.name.as_str();
        // Serialised once, for the first plugin that takes it: most events have no listener.
        let mut serialised: Option<Arc<str>> = None;
        let mut payload = || {
            serialised
                .get_or_insert_with(|| Arc::from(event.to_string()))
                .clone()
        };
        // Queued now, under the slots lock, so each plugin sees notifications in the order
        // they were emitted, across reloads too.
        let mut dropped = Vec::new();
        let mut held = Vec::new();
        let mut unsent = Vec::new();
        for (id, slot) in self.slots.lock().unwrap().iter_mut() {
            if slot.restarting.is_some() {
                if slot.held.len() < HELD_NOTIFICATIONS {
                    slot.held.push((hook, payload()));
                    held.push(id.clone());
                } else {
                    dropped.push(id.clone());
                }
            } else {
                unsent.extend(slot.notify(hook, &mut payload, &self.in_flight));
            }
        }
        // Logged outside the slots lock: a log listener may call back into the host.
        for id in held {
            PluginStats::add(&self.plugin_stats(&id).notifications_held, 1);
        }
        for id in dropped {
            PluginStats::add(&self.plugin_stats(&id).notifications_dropped, 1);
            self.log_tail(&id).write(Stream::Stderr, &format!("Lifecycle hook {hook} dropped: more than {HELD_NOTIFICATIONS} notifications held during a reload"));
        }
        for (iso, line) in unsent {
            iso.shared.logs.write(Stream::Stderr, &line);
        }
    }

    /// Typed `notify_json`: `host.notify::<AgentTurnAfter>(TurnEndEvent { … })`.
    pub fn notify<H: EventHook>(self: &Arc<Self>, event: H::Event) {
        match serde_json::to_value(&event) {
            Ok(value) => self.notify_json(H::NAME, value),
            Err(e) => tracing::warn!(target: "paseo::host", "cannot encode {} event: {e}", H::NAME),
        }
    }

    /// Runs a waiting request hook with typed payloads, e.g.
    /// `host.before::<AgentCreateBefore>(request).await`.
    pub async fn before<H: RequestHook>(
        &self,
        request: H::Request,
    ) -> Result<H::Request, HookError> {
        self.before_with::<H>(request, &OpenContext::default())
            .await
    }

    /// `before` with the per-open facts `agent.open.before` checks clashes against.
    pub async fn before_with<H: RequestHook>(
        &self,
        request: H::Request,
        open: &OpenContext,
    ) -> Result<H::Request, HookError> {
        let payload_error = |e: serde_json::Error| HookError::InvalidInput {
            hook: H::NAME.into(),
            message: format!("{} payload: {e}", H::NAME),
        };
        let value = serde_json::to_value(&request).map_err(payload_error)?;
        let out = self.run_hook(H::NAME, value, open).await?;
        serde_json::from_value(out).map_err(payload_error)
    }

    /// Dispatches an event hook and waits for every handler: `worktree.create.after` fails
    /// with the first plugin's error (the daemon then removes the worktree); notifications
    /// only log their failures.
    pub async fn emit<H: EventHook>(&self, event: H::Event) -> Result<(), HookError> {
        let value = serde_json::to_value(&event).map_err(|e| HookError::InvalidInput {
            hook: H::NAME.into(),
            message: format!("{} payload: {e}", H::NAME),
        })?;
        self.run_hook(H::NAME, value, &OpenContext::default())
            .await
            .map(|_| ())
    }

    /// The RPC methods a running plugin contributes (sorted, frozen when it became ready).
    pub fn rpc_methods(&self, id: &str) -> Result<Vec<String>, HostError> {
        let slots = self.slots.lock().unwrap();
        match slots.get(id) {
            Some(slot) if slot.isolate.is_some() => Ok(slot.rpc_methods.clone()),
            _ => Err(HostError::NotAvailable(id.to_string())),
        }
    }

    /// Invokes a plugin RPC method: the input and the output go through the contract's zod
    /// schemas inside the plugin; 30 s limit.
    pub async fn call_rpc(&self, id: &str, method: &str, input: Value) -> Result<Value, HostError> {
        self.wait_for_restarts(Some(id)).await;
        let (isolate, known, limits) = {
            let slots = self.slots.lock().unwrap();
            let slot = slots
                .get(id)
                .filter(|s| s.isolate.is_some())
                .ok_or_else(|| HostError::NotAvailable(id.to_string()))?;
            (
                slot.isolate.clone().unwrap(),
                slot.rpc_methods.iter().any(|m| m == method),
                slot.limits.clone(),
            )
        };
        if !known {
            return Err(HostError::UnknownRpc {
                plugin: id.to_string(),
                method: method.to_string(),
            });
        }
        let call = CallKind::Rpc {
            method: method.to_string(),
            input: input.to_string(),
        };
        let failed = |message: String| HostError::Rpc {
            plugin: id.to_string(),
            method: method.to_string(),
            message,
        };
        match isolate.call(call, limits.hook_timeout).await {
            Ok(output) if output.len() > hooks::MAX_MESSAGE_BYTES => Err(failed(format!(
                "Plugin {id} RPC {method} returned {} bytes of JSON; the limit is {} bytes (4 MiB)",
                output.len(),
                hooks::MAX_MESSAGE_BYTES
            ))),
            Ok(output) => serde_json::from_str(&output).map_err(|e| failed(e.to_string())),
            Err(CallError::TimedOut) => Err(failed(format!("Plugin RPC timed out: {id}.invoke"))),
            Err(e) => Err(failed(e.to_string())),
        }
    }

    /// Delivers a daemon event to every plugin whose SDK subscriptions listen to `topic`
    /// (`agent_update`, `agent_stream:<agentId>`, `workspace_update`, `project_update`).
    /// Live and best effort, like notifications.
    pub async fn publish(&self, topic: &str, payload: Value) {
        let isolates: Vec<(Arc<Isolate>, Limits)> = self
            .slots
            .lock()
            .unwrap()
            .values()
            .filter_map(|slot| {
                let iso = slot.isolate.as_ref()?;
                iso.shared
                    .topics
                    .lock()
                    .unwrap()
                    .contains(topic)
                    .then(|| (iso.clone(), slot.limits.clone()))
            })
            .collect();
        let calls = isolates.into_iter().map(|(iso, limits)| {
            let call = CallKind::Event {
                topic: topic.to_string(),
                payload: payload.to_string(),
            };
            async move {
                let _ = iso.call(call, limits.hook_timeout).await;
            }
        });
        futures::future::join_all(calls).await;
    }
}

/// The log line of a notification that failed in plugin `id`, as Paseo's host words it.
pub(super) fn notification_failed(hook: &str, id: &str, e: CallError) -> String {
    format!(
        "Lifecycle hook {hook} failed: {}",
        call_error_message(id, e)
    )
}

/// The text of a failed hook call, as Paseo's host words a hook's timeout.
fn call_error_message(id: &str, e: CallError) -> String {
    match e {
        CallError::TimedOut => format!("Plugin RPC timed out: {id}.hook"),
        e => e.to_string(),
    }
}

pub(crate) async fn run_request_chain(
    spec: &'static HookSpec,
    input: Value,
    subscribers: Vec<(Arc<Isolate>, Limits)>,
    open: &OpenContext,
) -> Result<Value, HookError> {
    let hook = spec.name.as_str();
    // A session hook's per-plugin fields (the catalogue's `session.perPlugin`) accumulate apart.
    let rules = spec
        .session
        .as_ref()
        .filter(|r| r.per_plugin.iter().all(|f| input.get(f).is_some()));
    let mut request = input;
    let mut merged = Merged::default();
    for (iso, limits) in subscribers {
        let id = iso.shared.id.as_str();
        // The plugin is given the request with its per-plugin fields empty; they wait aside.
        let kept: Option<Vec<Value>> = rules.map(|r| {
            r.per_plugin
                .iter()
                .map(|f| {
                    let empty = if request[f].is_array() {
                        json!([])
                    } else {
                        json!({})
                    };
                    std::mem::replace(&mut request[f], empty)
                })
                .collect()
        });
        let call = CallKind::Hook {
            hook,
            input: Arc::from(format!("{{\"request\":{request}}}")),
        };
        let output = iso
            .call(call, limits.hook_timeout)
            .await
            .map_err(|e| HookError::plugin(id, hook, call_error_message(id, e)))?;
        // "" when no handler changed the request. Otherwise the isolate validated every change
        // but the last one, which is checked here against what the plugin was given.
        let mut next: Value = if output.is_empty() {
            std::mem::take(&mut request)
        } else {
            validate::check_result_size(output.len())
                .map_err(|m| HookError::plugin(id, hook, m))?;
            let output = serde_json::from_str(&output)
                .map_err(|e| HookError::plugin(id, hook, format!("invalid request: {e}")))?;
            check_result(spec, &request, output).map_err(|m| HookError::plugin(id, hook, m))?
        };
        if let (Some(rules), Some(kept)) = (rules, kept) {
            let added: Map<String, Value> = rules
                .per_plugin
                .iter()
                .zip(kept)
                .map(|(f, before)| (f.clone(), std::mem::replace(&mut next[f], before)))
                .collect();
            // A request that attaches nothing (a history open) has nothing to merge or clash.
            if rules.attaches(&next) {
                let provider = next["provider"].as_str().unwrap_or_default();
                merged
                    .add(id, added, open, provider)
                    .map_err(|m| HookError::plugin(id, hook, m))?;
            }
        }
        request = next;
    }
    if rules.is_some_and(|r| r.attaches(&request)) {
        merged.append_to(&mut request);
    }
    Ok(request)
}

/// Plugin tools and MCP servers merged in plugin-ID order, remembering who added what.
#[derive(Default)]
struct Merged {
    /// (owning plugin, tool metadata with `plugin` added)
    tools: Vec<(String, Value)>,
    servers: BTreeMap<String, (String, Value)>,
}

impl Merged {
    /// What one plugin added (`tools`, `mcpServers`), unless it clashes with what Paseo or the
    /// agent has, or what an earlier plugin added.
    fn add(
        &mut self,
        plugin: &str,
        added: Map<String, Value>,
        open: &OpenContext,
        provider: &str,
    ) -> Result<(), String> {
        let tools = added["tools"].as_array().cloned().unwrap_or_default();
        let servers: Map<String, Value> =
            added["mcpServers"].as_object().cloned().unwrap_or_default();
        let mut seen: Vec<&str> = Vec::new();
        for tool in &tools {
            let name = tool["name"].as_str().unwrap_or_default();
            if seen.contains(&name) {
                return Err(format!("duplicate tool name {name} in plugin {plugin}"));
            }
            seen.push(name);
            if open.paseo_tools.iter().any(|t| t == name) {
                return Err(format!(
                    "tool {name} of plugin {plugin} conflicts with Paseo tool {name}"
                ));
            }
            if let Some((other, _)) = self.tools.iter().find(|(_, t)| t["name"] == name) {
                return Err(format!(
                    "tool {name} of plugin {plugin} conflicts with tool {name} of plugin {other}"
                ));
            }
        }
        if !servers.is_empty() && open.provider_lacks_mcp {
            return Err(format!(
                "Provider '{provider}' does not support MCP servers (added by plugin {plugin})"
            ));
        }
        for name in servers.keys() {
            if name == "paseo" {
                return Err(format!("MCP server paseo of plugin {plugin} conflicts with Paseo's internal paseo server"));
            }
            if open.saved_mcp_servers.iter().any(|s| s == name) {
                return Err(format!("MCP server {name} of plugin {plugin} conflicts with the agent's saved MCP server {name}"));
            }
            if let Some((other, _)) = self.servers.get(name) {
                return Err(format!("MCP server {name} of plugin {plugin} conflicts with MCP server {name} of plugin {other}"));
            }
        }
        for mut tool in tools {
            tool["plugin"] = json!(plugin);
            self.tools.push((plugin.to_string(), tool));
        }
        for (name, config) in servers {
            self.servers.insert(name, (plugin.to_string(), config));
        }
        Ok(())
    }

    /// Adds every plugin's tools and servers to the request's own.
    fn append_to(self, request: &mut Value) {
        let mut tools = request["tools"].as_array().cloned().unwrap_or_default();
        tools.extend(self.tools.into_iter().map(|(_, t)| t));
        request["tools"] = Value::Array(tools);
        let mut servers = request["mcpServers"]
            .as_object()
            .cloned()
            .unwrap_or_default();
        servers.extend(
            self.servers
                .into_iter()
                .map(|(name, (_, config))| (name, config)),
        );
        request["mcpServers"] = Value::Object(servers);
    }
}

impl PluginHost {
    /// The plugin tools attached to an agent by its latest session opening.
    pub fn agent_tools(&self, agent_id: &str) -> Vec<ToolInfo> {
        self.sessions.tools(agent_id)
    }

    /// Open sessions that must reopen before their next idle prompt (a plugin declaring
    /// `agent.open.before` was started, stopped or reloaded since they opened).
    pub fn stale_sessions(&self) -> Vec<String> {
        self.sessions.stale()
    }

    /// The agent's session closed: its tools disappear, and the plugins forget them.
    pub async fn close_session(&self, agent_id: &str) {
        for plugin in self.sessions.close(agent_id) {
            if let Some((iso, limits)) = self.running(&plugin) {
                let release = CallKind::ReleaseTools {
                    agent_id: agent_id.to_string(),
                };
                let _ = iso.call(release, limits.stop_timeout).await;
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
        let ToolCall { plugin, payload } = match self.sessions.prepare(agent_id, name, input) {
            Ok(call) => call,
            Err(answer) => return answer,
        };
        let Some(iso) = self.isolate(&plugin) else {
            return Ok(ToolResult::error(format!(
                "Plugin is not available: {plugin}"
            )));
        };
        let call = CallKind::Tool {
            name: name.to_string(),
            input: payload,
        };
        tool_result(name, iso.call_until(call, TOOL_TIMEOUT, cancel).await)
    }
}

impl AgentToolbox for PluginHost {
    fn agent_tools(&self, agent_id: &str) -> Vec<ToolInfo> {
        PluginHost::agent_tools(self, agent_id)
    }

    fn call_tool<'a>(
        &'a self,
        agent_id: &'a str,
        name: &'a str,
        input: Value,
        cancel: BoxFuture<'a, ()>,
    ) -> BoxFuture<'a, Result<ToolResult, ToolError>> {
        Box::pin(PluginHost::call_tool(self, agent_id, name, input, cancel))
    }
}
