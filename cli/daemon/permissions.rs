//! Permission requests: raising one (`agent.permission.before`) and waiting for its answer,
//! answering one, and resolving them, each reported exactly once with
//! `agent.permission.after`.

use paseo_plugin_runtime::hooks::types::*;
use serde_json::Value;
use tokio::sync::oneshot;

use super::model::{cleared, hook_agent, PendingPermission};
use super::store::AgentRecord;
use super::Daemon;

impl Daemon {
    /// How many permission requests of the agent are pending.
    pub(super) fn pending_permissions(&self, agent_id: &str) -> usize {
        self.permissions
            .lock()
            .unwrap()
            .keys()
            .filter(|(a, _)| a == agent_id)
            .count()
    }

    pub fn respond_permission(
        &self,
        agent_id: &str,
        request_id: &str,
        response: Value,
    ) -> Result<(), String> {
        if self.resolve_permissions(agent_id, Some(request_id), &response) == 0 {
            return Err(format!(
                "Permission request {request_id} is not pending for agent {agent_id}"
            ));
        }
        Ok(())
    }

    /// Takes the agent's pending requests away (all, or only `request_id`), gives each waiting
    /// step `resolution` and reports it with `agent.permission.after`. Every way a request goes
    /// away comes through here and removes it under the lock, so each is reported exactly
    /// once. Returns how many were pending.
    pub(super) fn resolve_permissions(
        &self,
        agent_id: &str,
        request_id: Option<&str>,
        resolution: &Value,
    ) -> usize {
        let mut taken: Vec<(String, PendingPermission)> = {
            let mut pending = self.permissions.lock().unwrap();
            let keys: Vec<(String, String)> = pending
                .keys()
                .filter(|(a, r)| a == agent_id && request_id.is_none_or(|id| id == r))
                .cloned()
                .collect();
            keys.into_iter()
                .filter_map(|key| pending.remove(&key).map(|p| (key.1, p)))
                .collect()
        };
        taken.sort_by(|a, b| a.0.cmp(&b.0));
        let count = taken.len();
        for (request_id, pending) in taken {
            let message = resolution["message"]
                .as_str()
                .map(|m| format!(" ({m})"))
                .unwrap_or_default();
            self.say(format!(
                "permission {request_id} → {}{message}",
                resolution["behavior"].as_str().unwrap_or_default()
            ));
            let _ = pending.reply.send(resolution.clone());
            self.host
                .notify::<AgentPermissionAfter>(PermissionResolveEvent {
                    agent: pending.agent,
                    request_id,
                    resolution: resolution.clone(),
                });
        }
        count
    }

    /// Raises a permission request and waits for its answer (from the CLI or a plugin).
    pub(super) async fn ask_permission(&self, record: &AgentRecord, request: Value) -> Value {
        let answer = self.raise_permission(record, request);
        // Whoever resolved it has reported it (`resolve_permissions`).
        answer
            .await
            .unwrap_or_else(|_| cleared("The request was cleared"))
    }

    /// Makes a request pending and emits `agent.permission.before`; the answer comes on the
    /// returned channel, and `agent.permission.after` when it goes away, however it does.
    pub(super) fn raise_permission(
        &self,
        record: &AgentRecord,
        request: Value,
    ) -> oneshot::Receiver<Value> {
        let (reply, answer) = oneshot::channel();
        let request_id = request["id"].as_str().unwrap_or_default().to_string();
        let pending = PendingPermission {
            request: request.clone(),
            agent: hook_agent(record),
            reply,
        };
        self.permissions
            .lock()
            .unwrap()
            .insert((record.id.clone(), request_id.clone()), pending);
        self.say(format!(
            "agent {} asks permission {request_id}: {}",
            record.id, request["input"]["command"]
        ));
        self.host
            .notify::<AgentPermissionBefore>(PermissionRequestEvent {
                agent: hook_agent(record),
                request,
            });
        answer
    }
}
