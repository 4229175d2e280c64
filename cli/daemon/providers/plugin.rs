//! Agents whose provider a plugin provides (`server.registerProvider`): each open agent holds a
//! connection to its provider with one session in it. The session opens after
//! `agent.open.before` with the launch the hooks made (cwd, env, MCP servers); each turn sends
//! the user's text as a prompt and turns the provider's events into the agent's timeline,
//! permission requests and the turn's outcome. A connection that ended (the plugin stopped,
//! reloaded, failed or broke the protocol) fails the turn it was in, naming the plugin, and the
//! next turn connects again.

use std::sync::Arc;
use std::time::Duration;

use paseo_plugin_runtime::host::ProvidedKind;
use paseo_plugin_runtime::{ProviderConnection, ProviderEvent, ProviderHandle};
use serde_json::{json, Value};

use crate::daemon::model::{cleared, Launch, TurnEnd};
use crate::daemon::store::AgentRecord;
use crate::daemon::Daemon;

/// Longest a provider may stay silent during a turn before the turn fails (it may be waiting
/// for a permission answer: that does not count). `PASEO_PROVIDER_IDLE_MS` overrides it.
const IDLE: Duration = Duration::from_secs(10 * 60);

/// What a permission request the provider resolved itself is resolved with.
const RESOLVED_BY_PROVIDER: &str = "Resolved by the provider";

/// One agent's session with its plugin provider.
pub(in crate::daemon) struct Session {
    plugin: String,
    provider: String,
    session_id: String,
    handle: ProviderHandle,
    /// The connection's events; a turn holds them while it runs.
    events: tokio::sync::Mutex<paseo_plugin_runtime::providers::ProviderEvents>,
}

fn idle() -> Duration {
    std::env::var("PASEO_PROVIDER_IDLE_MS")
        .ok()
        .and_then(|v| v.parse().ok())
        .map(Duration::from_millis)
        .unwrap_or(IDLE)
}

/// Whether a plugin provides agent provider `id`.
pub(in crate::daemon) fn is_plugin_provider(daemon: &Daemon, id: &str) -> bool {
    daemon
        .host
        .provided(ProvidedKind::Provider)
        .iter()
        .any(|p| p.provided.id == id)
}

/// The MCP servers of a launch in the protocol's shape (`stdio` or `http`/`sse`, nothing
/// else), with paseo's own entry carrying the agent's credential.
fn mcp_servers(launch: &Launch) -> Value {
    let mut out = serde_json::Map::new();
    for (name, server) in launch
        .provider_mcp_servers()
        .as_object()
        .into_iter()
        .flatten()
    {
        let mut entry = serde_json::Map::new();
        let keys: &[&str] = match server["type"].as_str() {
            Some("stdio") => &["type", "command", "args", "env", "alwaysLoad"],
            Some("http") | Some("sse") => &["type", "url", "headers", "alwaysLoad"],
            // Paseo's shape without a type is a command.
            None if server["command"].is_string() => {
                entry.insert("type".into(), json!("stdio"));
                &["command", "args", "env", "alwaysLoad"]
            }
            _ => &["type", "url", "headers", "alwaysLoad"],
        };
        for key in keys {
            if let Some(v) = server.get(*key).filter(|v| !v.is_null()) {
                entry.insert(key.to_string(), v.clone());
            }
        }
        out.insert(name.clone(), Value::Object(entry));
    }
    Value::Object(out)
}

/// Connects to the agent's provider and opens its session with the launch; waits for the
/// provider to report the session open (or failed) within the plugin's call limit.
pub(in crate::daemon) async fn open(
    daemon: &Arc<Daemon>,
    agent: &AgentRecord,
    launch: &Launch,
) -> Result<(), String> {
    close(daemon, &agent.id).await;
    let ProviderConnection {
        handle, mut events, ..
    } = daemon
        .host
        .connect_provider(&agent.provider)
        .await
        .map_err(|e| e.to_string())?;
    let session_id = agent.id.clone();
    let request_id = daemon.next_id("open");
    let mut config = json!({
        "cwd": agent.cwd, "env": launch.env, "mcpServers": mcp_servers(launch),
        "settings": {}, "persist": false,
    });
    if let Some(title) = &agent.title {
        config["title"] = json!(title);
    }
    if let Some(options) = agent
        .config
        .get("providerOptions")
        .filter(|o| o.is_object())
    {
        config["providerOptions"] = options.clone();
    }
    let input = json!({ "type": "session.open", "requestId": request_id, "sessionId": session_id, "config": config, "history": "skip" });
    let opened = async {
        handle.send(input).await.map_err(|e| e.to_string())?;
        let mut ready = false;
        while !ready {
            let event = match events.next().await {
                Some(ProviderEvent::Event(e)) => e,
                Some(ProviderEvent::Ended(why)) => return Err(why),
                None => return Err(format!("Plugin provider {} closed", agent.provider)),
            };
            let ours = event["requestId"] == request_id.as_str()
                || event["sessionId"] == session_id.as_str();
            match event["type"].as_str().unwrap_or_default() {
                "request.failed" if ours => {
                    return Err(format!(
                        "Plugin provider {} could not open the session: {}",
                        agent.provider,
                        event["error"]["message"].as_str().unwrap_or("failed")
                    ))
                }
                "session.ready" | "request.completed" if ours => ready = true,
                _ => {}
            }
        }
        Ok(())
    };
    let limit = paseo_plugin_runtime::Limits::default().hook_timeout;
    match tokio::time::timeout(limit, opened).await {
        Ok(Ok(())) => {}
        Ok(Err(e)) => {
            let _ = handle.close().await;
            return Err(e);
        }
        Err(_) => {
            let _ = handle.close().await;
            return Err(format!(
                "Plugin provider {} did not open the session within {} s",
                agent.provider,
                limit.as_secs()
            ));
        }
    }
    let session = Session {
        plugin: handle.plugin().to_string(),
        provider: agent.provider.clone(),
        session_id,
        handle,
        events: tokio::sync::Mutex::new(events),
    };
    daemon.say(format!(
        "agent {} opened a session with provider {} of plugin {}",
        agent.id, session.provider, session.plugin
    ));
    daemon
        .plugin_sessions
        .lock()
        .unwrap()
        .insert(agent.id.clone(), Arc::new(session));
    Ok(())
}

/// Closes the agent's provider session, if it has one (`session.close`, then the connection).
pub(in crate::daemon) async fn close(daemon: &Daemon, agent_id: &str) {
    let Some(session) = daemon.plugin_sessions.lock().unwrap().remove(agent_id) else {
        return;
    };
    let request = json!({ "type": "session.close", "requestId": daemon.next_id("close"), "sessionId": session.session_id });
    let _ = tokio::time::timeout(Duration::from_secs(2), session.handle.send(request)).await;
    let _ = session.handle.close().await;
}

/// Asks the provider to stop the running turn (best effort: the daemon stops waiting anyway).
pub(in crate::daemon) async fn interrupt(daemon: &Daemon, agent_id: &str) {
    let session = daemon
        .plugin_sessions
        .lock()
        .unwrap()
        .get(agent_id)
        .cloned();
    if let Some(session) = session {
        let request = json!({ "type": "session.interrupt", "requestId": daemon.next_id("interrupt"), "sessionId": session.session_id });
        let _ = tokio::time::timeout(Duration::from_secs(2), session.handle.send(request)).await;
    }
}

/// The agent's live session, reconnecting first if its connection ended (a reload of the
/// plugin, for instance).
async fn session(daemon: &Arc<Daemon>, record: &AgentRecord) -> Result<Arc<Session>, String> {
    let current = daemon
        .plugin_sessions
        .lock()
        .unwrap()
        .get(&record.id)
        .cloned();
    if let Some(session) = current.filter(|s| s.handle.is_open()) {
        return Ok(session);
    }
    let launch = daemon
        .live
        .lock()
        .unwrap()
        .get(&record.id)
        .map(|l| l.launch.clone())
        .ok_or_else(|| format!("Agent {} is not open", record.id))?;
    open(daemon, record, &launch).await?;
    daemon
        .plugin_sessions
        .lock()
        .unwrap()
        .get(&record.id)
        .cloned()
        .ok_or_else(|| format!("Agent {} is not open", record.id))
}

/// One turn: the prompt, then the provider's events until the turn ends.
pub(in crate::daemon) async fn run_turn(
    daemon: &Arc<Daemon>,
    record: &AgentRecord,
    text: &str,
) -> Result<(), TurnEnd> {
    let session = session(daemon, record).await.map_err(TurnEnd::Failed)?;
    let mut events = session.events.lock().await;
    // What is left of earlier turns (a canceled turn's last events) does not count for this one.
    while let Some(event) = events.try_next() {
        if let ProviderEvent::Ended(why) = event {
            close(daemon, &record.id).await;
            return Err(TurnEnd::Failed(why));
        }
    }
    let client_message_id = daemon.next_id("message");
    let prompt = json!({ "type": "session.prompt", "sessionId": session.session_id, "prompt": {
        "clientMessageId": client_message_id, "delivery": "auto",
        "input": { "type": "message", "content": [{ "type": "text", "text": text }] } } });
    if let Err(e) = session.handle.send(prompt).await {
        return Err(TurnEnd::Failed(e.to_string()));
    }
    let mut timeline = Timeline::default();
    let outcome = turn_events(
        daemon,
        record,
        &session,
        &mut events,
        &client_message_id,
        &mut timeline,
    )
    .await;
    timeline.flush(daemon, &record.id);
    outcome
}

/// The timeline items of a turn as they stream in: a provider sends an item again, under the
/// same id, each time it grows (a message chunk by chunk); the daemon records its last form,
/// once the next item starts or the turn ends.
#[derive(Default)]
struct Timeline {
    pending: Option<(Value, Value)>,
}

impl Timeline {
    fn item(&mut self, daemon: &Daemon, agent: &str, mut item: Value) {
        let id = item.get("id").cloned().unwrap_or(Value::Null);
        if let Some(map) = item.as_object_mut() {
            map.remove("id");
            map.remove("revertToken");
        }
        if self
            .pending
            .as_ref()
            .is_some_and(|(pending, _)| *pending != id)
        {
            self.flush(daemon, agent);
        }
        self.pending = Some((id, item));
    }

    fn flush(&mut self, daemon: &Daemon, agent: &str) {
        if let Some((_, item)) = self.pending.take() {
            if item["type"] == "assistant_message" {
                daemon.say(format!(
                    "agent {agent} says {:?}",
                    item["text"].as_str().unwrap_or_default()
                ));
            }
            daemon.push_timeline(agent, item);
        }
    }
}

/// The provider's events for one turn, until it ends.
async fn turn_events(
    daemon: &Arc<Daemon>,
    record: &AgentRecord,
    session: &Arc<Session>,
    events: &mut paseo_plugin_runtime::providers::ProviderEvents,
    client_message_id: &str,
    timeline: &mut Timeline,
) -> Result<(), TurnEnd> {
    let named = |why: &str| {
        format!(
            "Plugin {} provider {}: {why}",
            session.plugin, session.provider
        )
    };
    let mut turn_id: Option<String> = None;
    let limit = idle();
    loop {
        let waiting = daemon.pending_permissions(&record.id) > 0;
        let next = if waiting {
            Ok(events.next().await)
        } else {
            tokio::time::timeout(limit, events.next()).await
        };
        let event = match next {
            Err(_) => {
                interrupt(daemon, &record.id).await;
                return Err(TurnEnd::Failed(named(&format!(
                    "sent nothing for {limit:?}"
                ))));
            }
            Ok(Some(ProviderEvent::Event(e))) => e,
            // The connection is over: closed here too, so the next turn connects again.
            Ok(Some(ProviderEvent::Ended(why))) => {
                close(daemon, &record.id).await;
                return Err(TurnEnd::Failed(why));
            }
            Ok(None) => {
                close(daemon, &record.id).await;
                return Err(TurnEnd::Failed(named("the connection closed")));
            }
        };
        if event["sessionId"] != session.session_id.as_str() {
            continue;
        }
        let error = || {
            event["error"]["message"]
                .as_str()
                .unwrap_or("failed")
                .to_string()
        };
        match event["type"].as_str().unwrap_or_default() {
            // The daemon recorded the user's message when it was sent.
            "timeline.item" if event["item"]["type"] == "user_message" => {}
            "timeline.item" => timeline.item(daemon, &record.id, event["item"].clone()),
            "session.prompt_result" if event["clientMessageId"] == client_message_id => {
                match event["result"]["type"].as_str() {
                    Some("failed") => {
                        let why = event["result"]["error"]["message"].as_str();
                        return Err(TurnEnd::Failed(named(why.unwrap_or("the prompt failed"))));
                    }
                    Some("completed") => return Ok(()),
                    _ => turn_id = event["result"]["turnId"].as_str().map(str::to_string),
                }
            }
            // This turn's: the id the provider gave the prompt (`session.prompt_result`).
            "session.turn"
                if turn_id.is_some() && event["turnId"].as_str() == turn_id.as_deref() =>
            {
                match event["state"].as_str() {
                    Some("completed") => return Ok(()),
                    Some("failed") => return Err(TurnEnd::Failed(error())),
                    Some("canceled") => {
                        return Err(TurnEnd::Canceled("Canceled by the provider".into()))
                    }
                    _ => {}
                }
            }
            "session.runtime_failed" => return Err(TurnEnd::Failed(named(&error()))),
            "session.closed" => {
                let why = event["error"]["message"]
                    .as_str()
                    .unwrap_or("the session closed");
                return Err(TurnEnd::Failed(named(why)));
            }
            "session.permission" => {
                // What the user sees before the question is on the timeline first.
                timeline.flush(daemon, &record.id);
                ask(daemon, record, session, &event["request"])
            }
            "session.permission_resolved" => {
                if let Some(id) = event["permissionId"].as_str() {
                    daemon.resolve_permissions(
                        &record.id,
                        Some(id),
                        &cleared(RESOLVED_BY_PROVIDER),
                    );
                }
            }
            "session.usage" => daemon.say(format!("agent {} usage {}", record.id, event["usage"])),
            _ => {}
        }
    }
}

/// Raises the provider's permission request with the daemon; its answer goes back to the
/// provider (unless the provider resolved it itself).
fn ask(daemon: &Arc<Daemon>, record: &AgentRecord, session: &Arc<Session>, request: &Value) {
    let id = request["id"].as_str().unwrap_or_default().to_string();
    let mut pending = json!({ "id": id, "provider": record.provider, "name": request["name"], "kind": request["kind"] });
    for key in ["title", "description", "input"] {
        if let Some(v) = request.get(key) {
            pending[key] = v.clone();
        }
    }
    let answer = daemon.raise_permission(record, pending);
    let session = session.clone();
    tokio::spawn(async move {
        let Ok(resolution) = answer.await else {
            return;
        };
        if resolution["message"] == RESOLVED_BY_PROVIDER {
            return;
        }
        let response = if resolution["behavior"] == "allow" {
            json!({ "behavior": "allow" })
        } else {
            let mut deny = json!({ "behavior": "deny" });
            if let Some(m) = resolution["message"].as_str() {
                deny["message"] = json!(m);
            }
            deny
        };
        let input = json!({ "type": "session.permission", "sessionId": session.session_id, "permissionId": id, "response": response });
        let _ = session.handle.send(input).await;
    });
}
