//! Turns: a user message starts one in the background (the provider's steps between
//! `agent.turn.before` and `agent.turn.after`); cancelling or interrupting it, waiting for the
//! agent to be idle, and the agent's timeline journal the turn writes.

use std::collections::BTreeMap;
use std::sync::Arc;

use paseo_plugin_runtime::hooks::types::*;
use serde_json::{json, Value};

use super::model::{cleared, hook_agent, Interruption, TurnEnd};
use super::providers::{plugin as plugin_provider, scripted};
use super::store::AgentRecord;
use super::Daemon;

impl Daemon {
    /// Appends to the agent's timeline journal: O(item) however long the history, and on disk
    /// before it returns.
    pub(super) fn push_timeline(&self, agent: &str, item: Value) {
        if let Err(e) = self.store.push_timeline(agent, item) {
            tracing::error!(target: "paseo::daemon", "{e}");
        }
    }

    /// Sends a user message: reopens a stale session first (before the idle prompt), then runs
    /// a turn of the scripted provider in the background.
    pub fn send(
        self: &Arc<Self>,
        agent_id: &str,
        text: &str,
        sent_by: Option<&str>,
    ) -> Result<(), String> {
        let record = self.agent_record(agent_id)?;
        if record.archived_at.is_some() {
            return Err(format!("Agent {agent_id} is archived"));
        }
        {
            let mut live = self.live.lock().unwrap();
            let agent = live
                .get_mut(agent_id)
                .ok_or_else(|| format!("Agent {agent_id} is not open"))?;
            if agent.running {
                return Err(format!("Agent {agent_id} is running a turn"));
            }
            agent.running = true;
        }
        let mut item = json!({ "type": "user_message", "text": text });
        if let Some(plugin) = sent_by {
            item["sentBy"] = json!({ "pluginId": plugin });
        }
        self.push_timeline(agent_id, item);
        let daemon = self.clone();
        let text = text.to_string();
        let turn_id = self.next_id("turn");
        let id = agent_id.to_string();
        let turn = turn_id.clone();
        // Spawned under the lock, so the turn can be interrupted from its first step (a plugin
        // may reload the agent from `agent.turn.before`).
        let mut live = self.live.lock().unwrap();
        let task = tokio::spawn(async move {
            if daemon.host.stale_sessions().iter().any(|s| s == &record.id) {
                if let Err(e) = daemon
                    .open_session(&record, OpenReason::Refresh, BTreeMap::new())
                    .await
                {
                    daemon.push_timeline(&record.id, json!({ "type": "error", "message": e }));
                    daemon.finish_turn(&record.id);
                    return;
                }
            }
            daemon.run_turn(record, text, turn).await;
        });
        match live.get_mut(&id) {
            Some(agent) if agent.running => agent.turn = Some((turn_id, task)),
            // Closed meanwhile.
            _ => task.abort(),
        }
        Ok(())
    }

    /// A turn: `agent.turn.before`, the provider's steps (the scripted provider's, or a plugin
    /// provider's), then the outcome (on the timeline when it failed or was canceled, clearing the
    /// requests still pending), and `agent.turn.after`.
    async fn run_turn(self: &Arc<Self>, record: AgentRecord, text: String, turn_id: String) {
        self.host.notify::<AgentTurnBefore>(TurnStartEvent {
            agent: hook_agent(&record),
            turn_id: Some(turn_id.clone()),
        });
        self.say(format!(
            "agent {} turn {turn_id} started: {text:?}",
            record.id
        ));
        let steps = if scripted::is_known(&record.provider) {
            scripted::run_steps(self, &record, &text)
                .await
                .map_err(TurnEnd::Failed)
        } else {
            plugin_provider::run_turn(self, &record, &text).await
        };
        let outcome = match steps {
            Ok(()) => TurnOutcome::Completed,
            Err(TurnEnd::Canceled(reason)) => {
                self.push_timeline(&record.id, json!({ "type": "error", "message": reason }));
                self.resolve_permissions(&record.id, None, &cleared("Turn canceled"));
                TurnOutcome::Canceled { reason }
            }
            Err(TurnEnd::Failed(message)) => {
                self.push_timeline(&record.id, json!({ "type": "error", "message": message }));
                // As Paseo's daemon: a failed turn clears the requests still pending.
                self.resolve_permissions(&record.id, None, &cleared("Turn failed"));
                TurnOutcome::Failed {
                    error: TurnError {
                        message,
                        code: None,
                    },
                }
            }
        };
        self.say(format!(
            "agent {} turn {turn_id} {}",
            record.id,
            serde_json::to_value(&outcome).unwrap()["kind"]
                .as_str()
                .unwrap_or_default()
        ));
        self.finish_turn(&record.id);
        self.host.notify::<AgentTurnAfter>(TurnEndEvent {
            agent: hook_agent(&record),
            turn_id: Some(turn_id),
            outcome,
            timeline: vec![],
        });
    }

    /// Cancels the running turn: pending permissions clear, `agent.turn.after` reports
    /// `canceled`.
    pub async fn cancel(&self, agent_id: &str) -> Result<Value, String> {
        let record = self.agent_record(agent_id)?;
        let turn = self
            .live
            .lock()
            .unwrap()
            .get_mut(agent_id)
            .and_then(|a| a.turn.take());
        if !self
            .interrupt_turn(&record, turn, Interruption::Canceled)
            .await
        {
            return Err(format!("Agent {agent_id} has no turn running"));
        }
        Ok(self.agent_view(agent_id).unwrap())
    }

    /// Stops `turn` (taken from the agent) and waits for its task to end, so no step of it
    /// runs afterwards; then the agent's pending requests clear and `agent.turn.after` reports
    /// `canceled`. A turn that ended on its own meanwhile keeps its own outcome. The requests
    /// clear even without a turn (the session they belong to goes), except for a cancel, which
    /// then changes nothing. Returns whether a turn was interrupted.
    pub(super) async fn interrupt_turn(
        &self,
        record: &AgentRecord,
        turn: Option<(String, tokio::task::JoinHandle<()>)>,
        why: Interruption,
    ) -> bool {
        let mut interrupted = None;
        if let Some((turn_id, task)) = turn {
            plugin_provider::interrupt(self, &record.id).await;
            task.abort();
            if task.await.is_err() {
                interrupted = Some(turn_id);
            }
        }
        if interrupted.is_none() && why == Interruption::Canceled {
            return false;
        }
        self.resolve_permissions(&record.id, None, &cleared(why.permission_message()));
        let Some(turn_id) = interrupted else {
            return false;
        };
        let message = if why == Interruption::Canceled {
            "Turn canceled"
        } else {
            why.turn_reason()
        };
        self.push_timeline(&record.id, json!({ "type": "error", "message": message }));
        self.say(format!(
            "agent {} turn {turn_id} canceled: {}",
            record.id,
            why.turn_reason()
        ));
        self.finish_turn(&record.id);
        self.host.notify::<AgentTurnAfter>(TurnEndEvent {
            agent: hook_agent(record),
            turn_id: Some(turn_id),
            outcome: TurnOutcome::Canceled {
                reason: why.turn_reason().into(),
            },
            timeline: vec![],
        });
        true
    }

    fn finish_turn(&self, agent_id: &str) {
        if let Some(agent) = self.live.lock().unwrap().get_mut(agent_id) {
            agent.running = false;
            agent.turn = None;
        }
        self.turns_done.notify_waiters();
    }

    /// Waits until the agent is idle (no turn running), up to `timeout`.
    pub async fn wait_idle(&self, agent_id: &str, timeout: std::time::Duration) -> bool {
        let deadline = tokio::time::Instant::now() + timeout;
        loop {
            let done = self.turns_done.notified();
            if !self
                .live
                .lock()
                .unwrap()
                .get(agent_id)
                .is_some_and(|a| a.running)
            {
                return true;
            }
            if tokio::time::timeout_at(deadline, done).await.is_err() {
                return false;
            }
        }
    }
}
