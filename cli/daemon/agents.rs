//! Agents and their sessions: creating one (its hooks, its provider, the launch), opening its
//! session and resuming them all at start, its view, and reloading, closing and archiving one.

use std::collections::BTreeMap;
use std::sync::Arc;

use paseo_plugin_runtime::hooks::types::*;
use paseo_plugin_runtime::logs::now_iso;
use paseo_plugin_runtime::tools::mcp::{REDACTED_AUTHORIZATION, SERVER_NAME};
use paseo_plugin_runtime::OpenContext;
use serde_json::{json, Value};

use super::model::{hook_agent, Interruption, Launch, LiveAgent};
use super::providers::{plugin as plugin_provider, scripted};
use super::store::{self, AgentRecord};
use super::{check_title, Daemon};

/// Tools Paseo itself gives every agent (plugin tools may not reuse these names).
pub(super) const PASEO_TOOLS: &[&str] = &[
    "create_agent",
    "send_agent_prompt",
    "list_agents",
    "wait_for_agent",
];

impl Daemon {
    /// The documented order: `agent.create.before` → resolve defaults and validate the provider
    /// → `agent.open.before` → `PASEO_AGENT_ID` / `PASEO_AGENT_CWD` → open the provider session
    /// and save the agent → `agent.create.after` → the initial prompt, if any.
    pub async fn create_agent(self: &Arc<Self>, params: Value) -> Result<Value, String> {
        let (cwd, workspace_id) = match params["workspaceId"].as_str() {
            Some(ws) => {
                let state = self.state.lock().unwrap();
                let w = state
                    .workspaces
                    .get(ws)
                    .ok_or_else(|| format!("Workspace not found: {ws}"))?;
                (w.cwd.clone(), Some(ws.to_string()))
            }
            None => (
                params["cwd"]
                    .as_str()
                    .ok_or("agent create needs a workspace or a cwd")?
                    .to_string(),
                None,
            ),
        };
        check_title(params["title"].as_str())?;
        let provider = params["provider"]
            .as_str()
            .unwrap_or("scripted")
            .split('/')
            .next()
            .unwrap_or("scripted")
            .to_string();
        let mut config = AgentSessionConfig {
            provider,
            cwd: cwd.clone(),
            ..Default::default()
        };
        if let Some(title) = params["title"].as_str() {
            config.title = Some(Some(title.to_string()));
        }
        if let Some(options) = params["providerOptions"].as_object() {
            config.provider_options = Some(
                options
                    .iter()
                    .map(|(k, v)| (k.clone(), v.clone()))
                    .collect(),
            );
        }
        let created = self
            .host
            .before::<AgentCreateBefore>(AgentCreateRequest {
                config,
                env: params["env"].as_object().map(|m| {
                    m.iter()
                        .map(|(k, v)| (k.clone(), v.as_str().unwrap_or_default().to_string()))
                        .collect()
                }),
                initial_prompt: params["prompt"].as_str().map(str::to_string),
            })
            .await
            .map_err(|e| e.to_string())?;
        if !scripted::is_known(&created.config.provider)
            && !plugin_provider::is_plugin_provider(self, &created.config.provider)
        {
            return Err(format!("Unknown provider: {}", created.config.provider));
        }
        self.say(format!(
            "agent.create.before → provider {}",
            created.config.provider
        ));
        let id = params["agentId"]
            .as_str()
            .map(str::to_string)
            .unwrap_or_else(|| self.next_id("agent"));
        let labels: BTreeMap<String, String> = params["labels"]
            .as_object()
            .map(|m| {
                m.iter()
                    .map(|(k, v)| (k.clone(), v.as_str().unwrap_or_default().to_string()))
                    .collect()
            })
            .unwrap_or_default();
        let record = AgentRecord {
            id: id.clone(),
            workspace_id,
            provider: created.config.provider.clone(),
            cwd,
            title: created.config.title.clone().flatten(),
            labels,
            config: serde_json::to_value(&created.config).unwrap(),
            created_at: now_iso(),
            archived_at: None,
        };
        self.open_session(
            &record,
            OpenReason::Create,
            created.env.clone().unwrap_or_default(),
        )
        .await?;
        self.state
            .lock()
            .unwrap()
            .agents
            .insert(id.clone(), record.clone());
        self.save();
        self.host.notify::<AgentCreateAfter>(AgentEvent {
            agent: hook_agent(&record),
        });
        self.say(format!("agent {id} created ({})", record.provider));
        if let Some(prompt) = &created.initial_prompt {
            self.send(&id, prompt, None)?;
        }
        Ok(self.agent_view(&id).unwrap())
    }

    /// `agent.open.before`, then the launch: env overrides, plugin tools, MCP servers.
    pub(super) async fn open_session(
        self: &Arc<Self>,
        agent: &AgentRecord,
        reason: OpenReason,
        env: BTreeMap<String, String>,
    ) -> Result<(), String> {
        let saved: Vec<String> = agent.config["mcpServers"]
            .as_object()
            .map(|m| m.keys().cloned().collect())
            .unwrap_or_default();
        let from_plugin = !scripted::is_known(&agent.provider);
        let lacks_mcp = !from_plugin && !scripted::supports_mcp(&agent.provider);
        let request = AgentOpenRequest {
            agent_id: agent.id.clone(),
            workspace_id: agent.workspace_id.clone(),
            provider: agent.provider.clone(),
            cwd: agent.cwd.clone(),
            title: agent.title.clone(),
            labels: agent.labels.clone(),
            tools: vec![],
            mcp_servers: BTreeMap::new(),
            reason,
            purpose: if agent.archived_at.is_some() {
                OpenPurpose::History
            } else {
                OpenPurpose::Interactive
            },
            env,
        };
        let ctx = OpenContext {
            paseo_tools: PASEO_TOOLS.iter().map(|s| s.to_string()).collect(),
            saved_mcp_servers: saved,
            provider_lacks_mcp: lacks_mcp,
        };
        let opened = self
            .host
            .before_with::<AgentOpenBefore>(request, &ctx)
            .await
            .map_err(|e| e.to_string())?;
        // Set after the hooks, so hooks cannot override them.
        let mut env = opened.env.clone();
        env.insert("PASEO_AGENT_ID".into(), agent.id.clone());
        env.insert("PASEO_AGENT_CWD".into(), agent.cwd.clone());
        let mut servers = agent.config["mcpServers"]
            .as_object()
            .cloned()
            .unwrap_or_default();
        servers.extend(
            opened
                .mcp_servers
                .iter()
                .map(|(k, v)| (k.clone(), v.clone())),
        );
        if lacks_mcp && !servers.is_empty() {
            return Err(format!(
                "Provider '{}' does not support MCP servers",
                agent.provider
            ));
        }
        let tools: Vec<String> = opened.tools.iter().map(|t| t.name.clone()).collect();
        // Each opening that attaches tools gets a new secret (the old one stops working); one
        // that attaches none leaves the agent's endpoint closed.
        let mcp = self.mcp.lock().unwrap().clone();
        let (tools_url, tools_secret) = match mcp {
            Some(mcp) if !tools.is_empty() && agent.archived_at.is_none() => {
                let secret = mcp
                    .grant(&agent.id)
                    .map_err(|e| format!("Cannot attach plugin tools: {e}"))?;
                (Some(mcp.agent_url(&agent.id)), Some(secret))
            }
            Some(mcp) => {
                mcp.revoke(&agent.id);
                (None, None)
            }
            None => (None, None),
        };
        if let Some(url) = &tools_url {
            // Added after the hooks: plugins never see the agent's secret.
            servers.insert(SERVER_NAME.into(), json!({ "type": "http", "url": url, "headers": { "Authorization": REDACTED_AUTHORIZATION } }));
        }
        let reason_name = serde_json::to_value(reason)
            .unwrap()
            .as_str()
            .unwrap()
            .to_string();
        self.say(format!(
            "agent.open.before ({reason_name}) → env {:?}, tools {:?}{}",
            env.keys().collect::<Vec<_>>(),
            tools,
            tools_url
                .as_ref()
                .map(|u| format!(" served at {u}"))
                .unwrap_or_default()
        ));
        let launch = Launch {
            reason: reason_name,
            env,
            tools,
            mcp_servers: Value::Object(servers),
            tools_url,
            tools_secret,
        };
        // A plugin's provider opens its session with the launch (and fails the opening if it
        // cannot); the built-in ones need nothing more.
        if from_plugin {
            plugin_provider::open(self, agent, &launch).await?;
        }
        let mut live = self.live.lock().unwrap();
        let running = live.get(&agent.id).map(|l| l.running).unwrap_or(false);
        let turn = live.remove(&agent.id).and_then(|l| l.turn);
        live.insert(
            agent.id.clone(),
            LiveAgent {
                launch,
                running,
                turn,
            },
        );
        Ok(())
    }

    pub(super) async fn resume_agents(self: &Arc<Self>) {
        let agents: Vec<AgentRecord> = self
            .state
            .lock()
            .unwrap()
            .agents
            .values()
            .filter(|a| a.archived_at.is_none())
            .cloned()
            .collect();
        for agent in agents {
            match self
                .open_session(&agent, OpenReason::Resume, BTreeMap::new())
                .await
            {
                Ok(()) => self.say(format!("agent {} resumed", agent.id)),
                Err(e) => self.say(format!("agent {} could not resume: {e}", agent.id)),
            }
        }
    }

    pub(super) fn agent_record(&self, id: &str) -> Result<AgentRecord, String> {
        self.state
            .lock()
            .unwrap()
            .agents
            .get(id)
            .cloned()
            .ok_or_else(|| format!("Agent not found: {id}"))
    }

    pub fn agent_view(&self, id: &str) -> Option<Value> {
        let record = self.state.lock().unwrap().agents.get(id).cloned()?;
        let (timeline, timeline_length) = self.store.timeline_tail(id, store::VIEW_TIMELINE_ITEMS);
        let live = self.live.lock().unwrap();
        let launch = live.get(id).map(|l| &l.launch);
        let pending: Vec<Value> = self
            .permissions
            .lock()
            .unwrap()
            .iter()
            .filter(|((a, _), _)| a == id)
            .map(|(_, p)| p.request.clone())
            .collect();
        Some(json!({
            "id": record.id, "workspaceId": record.workspace_id, "parentAgentId": record.labels.get("paseo.parent-agent-id"),
            "provider": record.provider, "cwd": record.cwd, "title": record.title, "labels": record.labels,
            "config": record.config, "archivedAt": record.archived_at,
            "status": if record.archived_at.is_some() { "archived" } else if live.get(id).is_some_and(|l| l.running) { "running" } else if live.contains_key(id) { "idle" } else { "closed" },
            "launch": launch, "pendingPermissions": pending,
            "stale": self.host.stale_sessions().iter().any(|s| s == id),
            // The latest items only (see VIEW_TIMELINE_ITEMS); `timelineLength` counts them all.
            "timeline": timeline, "timelineLength": timeline_length,
        }))
    }

    pub fn agents(&self) -> Vec<Value> {
        let ids: Vec<String> = self.state.lock().unwrap().agents.keys().cloned().collect();
        ids.iter().filter_map(|id| self.agent_view(id)).collect()
    }

    /// Reopens the session with `reason: "refresh"`. As in Paseo's daemon (for the user's
    /// reload and `paseo.agents.ref(id).reload()` alike), the running turn is interrupted
    /// first; a plugin reload never comes here and lets the turn run on.
    pub async fn reload_agent(self: &Arc<Self>, agent_id: &str) -> Result<Value, String> {
        let record = self.agent_record(agent_id)?;
        let turn = self
            .live
            .lock()
            .unwrap()
            .get_mut(agent_id)
            .and_then(|a| a.turn.take());
        self.interrupt_turn(&record, turn, Interruption::Reloaded)
            .await;
        self.open_session(&record, OpenReason::Refresh, BTreeMap::new())
            .await?;
        Ok(self.agent_view(agent_id).unwrap())
    }

    /// Closes an open agent's session (`paseo agent close`): its running turn stops, its
    /// pending requests clear, `agent.close.after` fires; the agent stays, and a reload or a
    /// daemon restart opens it again.
    pub async fn close(&self, agent_id: &str) -> Result<Value, String> {
        let record = self.agent_record(agent_id)?;
        if !self.close_agent(&record, Interruption::Closed).await {
            return Err(format!("Agent {agent_id} is not open"));
        }
        Ok(self.agent_view(agent_id).unwrap())
    }

    pub async fn archive_agent(self: &Arc<Self>, agent_id: &str) -> Result<Value, String> {
        let record = {
            let mut state = self.state.lock().unwrap();
            let agent = state
                .agents
                .get_mut(agent_id)
                .ok_or_else(|| format!("Agent not found: {agent_id}"))?;
            if agent.archived_at.is_some() {
                return Ok(json!({ "archivedAt": agent.archived_at }));
            }
            agent.archived_at = Some(now_iso());
            agent.clone()
        };
        self.save();
        self.close_agent(&record, Interruption::Archived).await;
        let archived_at = record.archived_at.clone().unwrap();
        self.host.notify::<AgentArchiveAfter>(AgentArchiveEvent {
            agent: hook_agent(&record),
            archived_at: archived_at.clone(),
        });
        Ok(json!({ "archivedAt": archived_at }))
    }

    /// Closes the live session once: the running turn stops and pending requests clear (told
    /// `why`), then `agent.close.after`, emitted only for a live agent. Returns whether it was.
    async fn close_agent(&self, record: &AgentRecord, why: Interruption) -> bool {
        // Out of `live` first: no new turn starts on a closing session.
        let Some(agent) = self.live.lock().unwrap().remove(&record.id) else {
            return false;
        };
        self.interrupt_turn(record, agent.turn, why).await;
        // The secret dies with the session: the endpoint answers 404 from now on.
        let mcp = self.mcp.lock().unwrap().clone();
        if let Some(mcp) = mcp {
            mcp.revoke(&record.id);
        }
        plugin_provider::close(self, &record.id).await;
        self.host.close_session(&record.id).await;
        self.host.notify::<AgentCloseAfter>(AgentEvent {
            agent: hook_agent(record),
        });
        true
    }
}
