//! An in-memory daemon: what the throwaway host (`paseo hook run`, `rpc call`) and the tests
//! give plugins as `context.paseo`. It keeps agents, their timelines and pending permissions,
//! workspaces and config, records every call with the plugin that made it, and can report each
//! call as it happens (the CLI prints `[paseo] sdk <method> <json arguments>`).

use std::collections::BTreeMap;
use std::sync::{Arc, Mutex};

use serde_json::{json, Value};

use super::{Caller, PaseoDaemon, SdkError, SdkFuture, SdkResult};

/// Sees each SDK call as it is made.
pub type CallListener = Arc<dyn Fn(&Caller, &str, &Value) + Send + Sync>;

#[derive(Debug, Clone, PartialEq)]
pub struct RecordedCall {
    pub plugin_id: String,
    pub method: String,
    pub args: Value,
}

#[derive(Debug, Default, Clone)]
pub struct MemoryState {
    pub agents: BTreeMap<String, Value>,
    /// Timeline items per agent, in order; plugin rows carry `pluginId`.
    pub timelines: BTreeMap<String, Vec<Value>>,
    /// Pending permission requests per agent, by request id.
    pub pending_permissions: BTreeMap<String, BTreeMap<String, Value>>,
    pub workspaces: BTreeMap<String, Value>,
    pub config: Value,
    pub calls: Vec<RecordedCall>,
    next_id: u64,
}

#[derive(Default)]
pub struct MemoryDaemon {
    state: Mutex<MemoryState>,
    listener: Option<CallListener>,
}

fn arg<'v>(args: &'v Value, key: &str) -> SdkResult<&'v str> {
    args.get(key)
        .and_then(Value::as_str)
        .ok_or_else(|| SdkError::Daemon(format!("Missing {key}")))
}

impl MemoryDaemon {
    pub fn new(listener: Option<CallListener>) -> Self {
        MemoryDaemon {
            state: Mutex::default(),
            listener,
        }
    }

    pub fn state(&self) -> MemoryState {
        self.state.lock().unwrap().clone()
    }

    /// Adds an agent (a `PluginHookAgent`-shaped snapshot plus any extra fields).
    pub fn add_agent(&self, agent: Value) {
        let id = agent["id"].as_str().unwrap_or_default().to_string();
        self.state.lock().unwrap().agents.insert(id, agent);
    }

    pub fn push_timeline(&self, agent_id: &str, item: Value) {
        self.state
            .lock()
            .unwrap()
            .timelines
            .entry(agent_id.into())
            .or_default()
            .push(item);
    }

    pub fn add_pending_permission(&self, agent_id: &str, request: Value) {
        let id = request["id"].as_str().unwrap_or_default().to_string();
        self.state
            .lock()
            .unwrap()
            .pending_permissions
            .entry(agent_id.into())
            .or_default()
            .insert(id, request);
    }

    fn record(&self, caller: &Caller, method: &str, args: &Value) {
        if let Some(listener) = &self.listener {
            listener(caller, method, args);
        }
        self.state.lock().unwrap().calls.push(RecordedCall {
            plugin_id: caller.plugin_id.clone(),
            method: method.into(),
            args: args.clone(),
        });
    }

    fn run<'a>(
        &'a self,
        caller: &'a Caller,
        method: &'static str,
        args: Value,
        f: impl FnOnce(&mut MemoryState, &Value) -> SdkResult + Send + 'a,
    ) -> SdkFuture<'a> {
        Box::pin(async move {
            self.record(caller, method, &args);
            let mut state = self.state.lock().unwrap();
            f(&mut state, &args)
        })
    }
}

fn agent_of<'s>(state: &'s mut MemoryState, args: &Value) -> SdkResult<&'s mut Value> {
    let id = arg(args, "agentId")?;
    state
        .agents
        .get_mut(id)
        .ok_or_else(|| SdkError::Daemon(format!("Agent not found: {id}")))
}

impl PaseoDaemon for MemoryDaemon {
    fn agents_list<'a>(&'a self, caller: &'a Caller, args: Value) -> SdkFuture<'a> {
        self.run(caller, "agents.list", args, |s, _| {
            let entries: Vec<Value> = s
                .agents
                .values()
                .map(|a| json!({ "agent": a, "project": null }))
                .collect();
            Ok(json!({ "entries": entries, "pageInfo": { "hasMore": false, "nextCursor": null } }))
        })
    }

    fn agents_create<'a>(&'a self, caller: &'a Caller, args: Value) -> SdkFuture<'a> {
        self.run(caller, "agents.create", args, |s, a| {
            let id = match a["agentId"].as_str() {
                Some(id) => id.to_string(),
                None => loop {
                    s.next_id += 1;
                    let id = format!("agent-{}", s.next_id);
                    if !s.agents.contains_key(&id) {
                        break id;
                    }
                },
            };
            let provider = a["config"]["provider"].as_str().unwrap_or_default().split('/').next().unwrap_or_default().to_string();
            let agent = json!({
                "id": id, "workspaceId": a.get("workspaceId").cloned().unwrap_or(Value::Null), "parentAgentId": a.get("callerAgentId").cloned().unwrap_or(Value::Null),
                "provider": provider, "cwd": a["cwd"], "title": a.get("title").cloned().unwrap_or(Value::Null),
                "labels": a.get("labels").cloned().unwrap_or(json!({})), "status": "idle", "createdBy": caller.plugin_id,
            });
            s.agents.insert(id.clone(), agent.clone());
            if let Some(prompt) = a["initialPrompt"].as_str() {
                s.timelines.entry(id).or_default().push(json!({ "type": "user_message", "text": prompt }));
            }
            Ok(agent)
        })
    }

    fn agents_get<'a>(&'a self, caller: &'a Caller, args: Value) -> SdkFuture<'a> {
        self.run(caller, "agents.get", args, |s, a| {
            Ok(s.agents
                .get(arg(a, "agentId")?)
                .map(|agent| json!({ "agent": agent, "project": null }))
                .unwrap_or(Value::Null))
        })
    }

    fn agents_send<'a>(&'a self, caller: &'a Caller, args: Value) -> SdkFuture<'a> {
        let plugin = caller.plugin_id.clone();
        self.run(caller, "agents.send", args, move |s, a| {
            agent_of(s, a)?;
            let item = json!({ "type": "user_message", "text": a["text"], "sentBy": { "pluginId": plugin } });
            s.timelines.entry(arg(a, "agentId")?.into()).or_default().push(item);
            Ok(Value::Null)
        })
    }

    fn agents_respond_to_permission<'a>(
        &'a self,
        caller: &'a Caller,
        args: Value,
    ) -> SdkFuture<'a> {
        self.run(caller, "agents.respondToPermission", args, |s, a| {
            let (agent, request) = (arg(a, "agentId")?, arg(a, "requestId")?);
            s.pending_permissions
                .get_mut(agent)
                .and_then(|p| p.remove(request))
                .map(|_| Value::Null)
                .ok_or_else(|| {
                    SdkError::Daemon(format!(
                        "Permission request {request} is not pending for agent {agent}"
                    ))
                })
        })
    }

    fn agents_timeline_fetch<'a>(&'a self, caller: &'a Caller, args: Value) -> SdkFuture<'a> {
        self.run(caller, "agents.timeline.fetch", args, |s, a| {
            agent_of(s, a)?;
            let items = s
                .timelines
                .get(arg(a, "agentId")?)
                .cloned()
                .unwrap_or_default();
            Ok(super::timeline_page(&items, &a["options"], "memory"))
        })
    }

    fn agents_timeline_append<'a>(&'a self, caller: &'a Caller, args: Value) -> SdkFuture<'a> {
        self.run(caller, "agents.timeline.append", args, move |s, a| {
            agent_of(s, a)?;
            let timeline = s.timelines.entry(arg(a, "agentId")?.into()).or_default();
            let seq = super::append_plugin_row(timeline, caller, a["item"].clone())?;
            Ok(json!({ "seq": seq, "epoch": "memory" }))
        })
    }

    fn agents_reload<'a>(&'a self, caller: &'a Caller, args: Value) -> SdkFuture<'a> {
        self.run(caller, "agents.reload", args, |s, a| {
            agent_of(s, a).map(|_| Value::Null)
        })
    }

    fn agents_archive<'a>(&'a self, caller: &'a Caller, args: Value) -> SdkFuture<'a> {
        self.run(caller, "agents.archive", args, |s, a| {
            let agent = agent_of(s, a)?;
            let at = crate::logs::now_iso();
            agent["archivedAt"] = json!(at);
            Ok(json!({ "archivedAt": at }))
        })
    }

    fn agents_wait_for_finish<'a>(&'a self, caller: &'a Caller, args: Value) -> SdkFuture<'a> {
        self.run(caller, "agents.waitForFinish", args, |s, a| {
            let agent = agent_of(s, a)?;
            Ok(json!({ "status": agent["status"], "final": null }))
        })
    }

    fn workspaces_list<'a>(&'a self, caller: &'a Caller, args: Value) -> SdkFuture<'a> {
        self.run(caller, "workspaces.list", args, |s, _| {
            // Paseo's PaseoWorkspaceListResult: the entries are the workspaces themselves.
            let entries: Vec<Value> = s.workspaces.values().cloned().collect();
            Ok(json!({ "entries": entries, "pageInfo": { "hasMore": false, "nextCursor": null } }))
        })
    }

    fn workspaces_get<'a>(&'a self, caller: &'a Caller, args: Value) -> SdkFuture<'a> {
        self.run(caller, "workspaces.get", args, |s, a| {
            Ok(s.workspaces
                .get(arg(a, "workspaceId")?)
                .cloned()
                .unwrap_or(Value::Null))
        })
    }

    fn workspaces_create<'a>(&'a self, caller: &'a Caller, args: Value) -> SdkFuture<'a> {
        self.run(caller, "workspaces.create", args, |s, a| {
            s.next_id += 1;
            let id = format!("workspace-{}", s.next_id);
            let dir = a["source"]["path"].as_str().or(a["source"]["cwd"].as_str()).unwrap_or_default();
            let ws = json!({ "id": id, "projectId": "project-1", "directory": dir, "name": a.get("title").cloned().unwrap_or(Value::Null), "status": "active", "labels": [] });
            s.workspaces.insert(id, ws.clone());
            Ok(ws)
        })
    }

    fn workspaces_set_title<'a>(&'a self, caller: &'a Caller, args: Value) -> SdkFuture<'a> {
        self.run(caller, "workspaces.setTitle", args, |s, a| {
            let id = arg(a, "workspaceId")?;
            let ws = s
                .workspaces
                .get_mut(id)
                .ok_or_else(|| SdkError::Daemon(format!("Workspace not found: {id}")))?;
            ws["name"] = a["title"].clone();
            Ok(ws.clone())
        })
    }

    fn projects_list<'a>(&'a self, caller: &'a Caller, args: Value) -> SdkFuture<'a> {
        self.run(caller, "projects.list", args, |_, _| {
            Ok(json!({ "projects": [] }))
        })
    }

    fn providers_snapshot<'a>(&'a self, caller: &'a Caller, args: Value) -> SdkFuture<'a> {
        self.run(caller, "providers.snapshot", args, |_, _| {
            Ok(json!({ "providers": [] }))
        })
    }

    fn config_get<'a>(&'a self, caller: &'a Caller, args: Value) -> SdkFuture<'a> {
        self.run(caller, "config.get", args, |s, _| {
            Ok(if s.config.is_null() {
                json!({})
            } else {
                s.config.clone()
            })
        })
    }

    fn config_patch<'a>(&'a self, caller: &'a Caller, args: Value) -> SdkFuture<'a> {
        self.run(caller, "config.patch", args, |s, a| {
            if !s.config.is_object() {
                s.config = json!({});
            }
            for (k, v) in a["patch"].as_object().into_iter().flatten() {
                s.config[k] = v.clone();
            }
            Ok(s.config.clone())
        })
    }

    fn presence<'a>(&'a self, caller: &'a Caller, args: Value) -> SdkFuture<'a> {
        self.run(caller, "presence", args, |_, _| {
            Ok(json!({ "userPresent": false, "clients": [] }))
        })
    }
}
