//! `state.json`: the agents, the workspaces and the id counter, rewritten whole and atomically
//! at each change from numbered snapshots, so that an older one never lands over a newer one.

use std::collections::BTreeMap;
use std::path::PathBuf;
use std::sync::atomic::Ordering;

use serde::{Deserialize, Serialize};
use serde_json::Value;

use paseo_plugin_runtime::private_files::write_atomic;

use super::Store;

#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct AgentRecord {
    pub id: String,
    pub workspace_id: Option<String>,
    pub provider: String,
    pub cwd: String,
    pub title: Option<String>,
    #[serde(default)]
    pub labels: BTreeMap<String, String>,
    /// The saved `AgentSessionConfig` (after `agent.create.before`).
    pub config: Value,
    pub created_at: String,
    #[serde(default)]
    pub archived_at: Option<String>,
}

#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct WorktreeRecord {
    pub path: String,
    pub branch: String,
    pub repo_root: String,
}

#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct WorkspaceRecord {
    pub id: String,
    pub project_id: String,
    pub cwd: String,
    pub name: Option<String>,
    #[serde(default)]
    pub archived_at: Option<String>,
    #[serde(default)]
    pub worktree: Option<WorktreeRecord>,
    #[serde(default)]
    pub idempotency_key: Option<String>,
}

#[derive(Debug, Clone, Default, Serialize, Deserialize)]
pub struct State {
    #[serde(default)]
    pub agents: BTreeMap<String, AgentRecord>,
    #[serde(default)]
    pub workspaces: BTreeMap<String, WorkspaceRecord>,
    /// Only read: timelines that older versions kept inside `state.json`. Loading moves them
    /// into journals, and the next write of `state.json` leaves them out.
    #[serde(default, skip_serializing)]
    pub timelines: BTreeMap<String, Vec<Value>>,
    #[serde(default)]
    pub next_id: u64,
}

/// `state.json` as it was when taken, numbered.
pub struct StateSnapshot {
    number: u64,
    bytes: Vec<u8>,
}

impl Store {
    pub fn state_path(&self) -> PathBuf {
        self.home.join("state.json")
    }

    /// Reads `state.json` and every agent's journal (dropping a torn last line), and moves the
    /// timelines an older `state.json` holds into journals, durably, before rewriting it without
    /// them. A `state.json` that does not parse stops the start: it holds the agents and
    /// workspaces, and starting empty would silently lose them; the message says how to recover.
    pub fn load_state(&self) -> Result<State, String> {
        let path = self.state_path();
        let mut state: State = match std::fs::read(&path) {
            Ok(bytes) => serde_json::from_slice(&bytes).map_err(|e| {
                format!(
                    "Cannot start: {} is not valid JSON ({e}). It lists the daemon's agents and workspaces, so the daemon will not start over it; \
                     restore it from a backup, or move it aside (mv {0} {0}.corrupt) to start with none (their timelines in {1} stay)",
                    path.display(),
                    self.home.join("timelines").display()
                )
            })?,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => State::default(),
            Err(e) => return Err(format!("Cannot read {}: {e}", path.display())),
        };
        let legacy = std::mem::take(&mut state.timelines);
        self.load_timelines(state.agents.keys(), &legacy)?;
        if !legacy.is_empty() {
            write_atomic(&path, &self.snapshot(&state).bytes)
                .map_err(|e| format!("Cannot rewrite {}: {e}", path.display()))?;
            tracing::info!(target: "paseo::daemon", "moved {} timeline(s) from {} into {}", legacy.len(), path.display(), self.home.join("timelines").display());
        }
        Ok(state)
    }

    /// Takes `state` as it is now; call it under the lock that guards `state`, so snapshots are
    /// numbered in the order of the changes they hold.
    pub fn snapshot(&self, state: &State) -> StateSnapshot {
        StateSnapshot {
            number: self.snapshots.fetch_add(1, Ordering::SeqCst) + 1,
            bytes: serde_json::to_vec(state).unwrap(),
        }
    }

    /// Writes a snapshot unless a newer one is already on disk (then the changes it holds are
    /// too). Returns once they are durable, or logs why not.
    pub fn write_state(&self, snapshot: StateSnapshot) {
        let mut on_disk = self.on_disk.lock().unwrap();
        if *on_disk >= snapshot.number {
            return;
        }
        let path = self.state_path();
        match write_atomic(&path, &snapshot.bytes) {
            Ok(()) => *on_disk = snapshot.number,
            Err(e) => {
                tracing::error!(target: "paseo::daemon", "cannot save {}: {e}", path.display())
            }
        }
    }
}
