//! `config.json`, in Paseo's layout: whether plugins are on, and each plugin's source, path and
//! switch; keys this daemon does not know are kept as they are.

use std::collections::BTreeMap;
use std::path::PathBuf;

use serde::{Deserialize, Serialize};
use serde_json::Value;

use paseo_plugin_runtime::private_files::write_atomic;

use super::Store;

#[derive(Debug, Clone, Default, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct PluginConfig {
    pub source: String,
    pub path: PathBuf,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub enabled: Option<bool>,
    /// What the plugin may touch (`paseo_plugin_runtime::permissions::Policy`), kept as written:
    /// a policy that does not parse fails that plugin's load, not the daemon's start. Absent:
    /// the owner's rights.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub permissions: Option<Value>,
    /// Quotas on what it writes through the SDK (`quotas::Quotas`); absent: the defaults.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub quotas: Option<Value>,
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

impl Store {
    pub fn config_path(&self) -> PathBuf {
        self.home.join("config.json")
    }

    pub fn load_config(&self) -> Result<Config, String> {
        match std::fs::read(self.config_path()) {
            Ok(bytes) => serde_json::from_slice(&bytes)
                .map_err(|e| format!("Invalid {}: {e}", self.config_path().display())),
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(Config::default()),
            Err(e) => Err(e.to_string()),
        }
    }

    pub fn save_config(&self, config: &Config) -> Result<(), String> {
        write_atomic(
            &self.config_path(),
            serde_json::to_string_pretty(config).unwrap().as_bytes(),
        )
        .map_err(|e| e.to_string())
    }
}
