//! The daemon's state on disk under `$PASEO_HOME`: `config.json` (Paseo's layout:
//! `pluginsEnabled`, `plugins: { id: { source, path, enabled } }`) and `state.json` (agents,
//! workspaces, timelines). Every write is atomic (temp file + rename).

use std::collections::BTreeMap;
use std::path::PathBuf;

use serde::{Deserialize, Serialize};
use serde_json::Value;

use paseo_plugin_runtime::sdk::storage::write_atomic;

#[derive(Debug, Clone, Default, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct PluginConfig {
    pub source: String,
    pub path: PathBuf,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub enabled: Option<bool>,
}

impl PluginConfig {
    /// Paseo's rule: `enabled !== false` means enabled.
    pub fn is_enabled(&self) -> bool {
        self.enabled != Some(false)
    }
}

#[derive(Debug, Clone, Default, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Config {
    #[serde(default)]
    pub plugins_enabled: bool,
    #[serde(default)]
    pub plugins: BTreeMap<String, PluginConfig>,
    /// Keys we do not know are kept as they are.
    #[serde(flatten)]
    pub other: BTreeMap<String, Value>,
}

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
    #[serde(default)]
    pub timelines: BTreeMap<String, Vec<Value>>,
    #[serde(default)]
    pub next_id: u64,
}

pub struct Store {
    pub home: PathBuf,
}

impl Store {
    pub fn config_path(&self) -> PathBuf {
        self.home.join("config.json")
    }

    pub fn load_config(&self) -> Result<Config, String> {
        match std::fs::read(self.config_path()) {
            Ok(bytes) => serde_json::from_slice(&bytes).map_err(|e| format!("Invalid {}: {e}", self.config_path().display())),
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(Config::default()),
            Err(e) => Err(e.to_string()),
        }
    }

    pub fn save_config(&self, config: &Config) -> Result<(), String> {
        write_atomic(&self.config_path(), serde_json::to_string_pretty(config).unwrap().as_bytes()).map_err(|e| e.to_string())
    }

    pub fn load_state(&self) -> Result<State, String> {
        let path = self.home.join("state.json");
        match std::fs::read(&path) {
            Ok(bytes) => serde_json::from_slice(&bytes).map_err(|e| format!("Invalid {}: {e}", path.display())),
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(State::default()),
            Err(e) => Err(e.to_string()),
        }
    }

    pub fn save_state(&self, state: &State) {
        let path = self.home.join("state.json");
        if let Err(e) = write_atomic(&path, serde_json::to_string(state).unwrap().as_bytes()) {
            tracing::error!(target: "paseo::daemon", "cannot save {}: {e}", path.display());
        }
    }
}
