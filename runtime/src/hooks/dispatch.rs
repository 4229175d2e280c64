//! The chain of a waiting request hook across plugins: plugin-ID order, each plugin's handlers
//! in registration order (inside its isolate), the first failure stops the chain. For
//! `agent.open.before`, `env` accumulates across plugins while `tools` and `mcpServers` start
//! empty for each plugin and are merged afterwards, with clashes named on both sides.

use std::collections::BTreeMap;
use std::sync::Arc;

use serde_json::{json, Map, Value};

use super::catalogue::HookSpec;
use super::validate::check_result;
use super::HookError;
use crate::engine::{CallKind, Isolate, Limits};
use crate::host::{call_error_message, OpenContext};

const PLUGIN_LOCAL: [&str; 2] = ["tools", "mcpServers"];

pub(crate) async fn run_request_chain(
    spec: &HookSpec,
    input: Value,
    subscribers: Vec<(String, Arc<Isolate>, Limits)>,
    open: &OpenContext,
) -> Result<Value, HookError> {
    let hook = spec.name.as_str();
    // Hooks whose payload has plugin-local fields (agent.open.before) accumulate them apart.
    let plugin_local = PLUGIN_LOCAL.iter().all(|f| input.get(f).is_some());
    let mut request = input;
    let mut merged = Merged::default();
    for (id, iso, limits) in subscribers {
        // The plugin is given the request with its plugin-local fields empty; they wait aside.
        let kept = plugin_local.then(|| {
            (
                std::mem::replace(&mut request["tools"], json!([])),
                std::mem::replace(&mut request["mcpServers"], json!({})),
            )
        });
        let call = CallKind::Hook {
            hook: hook.to_string(),
            input: format!("{{\"request\":{request}}}"),
        };
        let output = iso
            .call(call, limits.hook_timeout)
            .await
            .map_err(|e| HookError::plugin(&id, hook, call_error_message(&id, e)))?;
        // "" when no handler changed the request. Otherwise the isolate validated every change
        // but the last one, which is checked here against what the plugin was given.
        let mut next: Value = if output.is_empty() {
            std::mem::take(&mut request)
        } else {
            super::validate::check_result_size(output.len())
                .map_err(|m| HookError::plugin(&id, hook, m))?;
            let output = serde_json::from_str(&output)
                .map_err(|e| HookError::plugin(&id, hook, format!("invalid request: {e}")))?;
            check_result(spec, &request, output).map_err(|m| HookError::plugin(&id, hook, m))?
        };
        if let Some((tools, servers)) = kept {
            let added_tools = std::mem::replace(&mut next["tools"], tools);
            let added_servers = std::mem::replace(&mut next["mcpServers"], servers);
            // A history open launches no tools or servers, so there is nothing to merge or clash.
            if next["purpose"] != "history" {
                let provider = next["provider"].as_str().unwrap_or_default();
                merged
                    .add(&id, added_tools, added_servers, open, provider)
                    .map_err(|m| HookError::plugin(&id, hook, m))?;
            }
        }
        request = next;
    }
    if plugin_local && request["purpose"] != "history" {
        let mut tools = request["tools"].as_array().cloned().unwrap_or_default();
        tools.extend(merged.tools.into_iter().map(|(_, t)| t));
        request["tools"] = Value::Array(tools);
        let mut servers = request["mcpServers"]
            .as_object()
            .cloned()
            .unwrap_or_default();
        servers.extend(
            merged
                .servers
                .into_iter()
                .map(|(name, (_, config))| (name, config)),
        );
        request["mcpServers"] = Value::Object(servers);
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
    fn add(
        &mut self,
        plugin: &str,
        tools: Value,
        servers: Value,
        open: &OpenContext,
        provider: &str,
    ) -> Result<(), String> {
        let tools = tools.as_array().cloned().unwrap_or_default();
        let servers: Map<String, Value> = servers.as_object().cloned().unwrap_or_default();
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
}
