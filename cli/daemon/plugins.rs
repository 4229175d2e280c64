//! The configured plugins: Paseo's global switch, starting them with the daemon, the rows of
//! `plugin ls`, and enabling, disabling, reloading, removing one and reading its logs.
//! Installing and updating one is `install`'s job.

use std::collections::HashMap;
use std::path::Path;

use paseo_plugin_runtime::host::manifest::check_plugin_id;
use paseo_plugin_runtime::logs::LogEntry;
use paseo_plugin_runtime::{HostError, PluginStatus};
use serde_json::{json, Value};

use super::install::sources;
use super::model::PLUGINS_OFF;
use super::store::PluginConfig;
use super::Daemon;

impl Daemon {
    pub(super) async fn start_plugins(&self) {
        let config = self.config.lock().unwrap().clone();
        if !config.plugins_enabled {
            return;
        }
        for (id, plugin) in &config.plugins {
            if let Err(e) = check_plugin_id(id) {
                // A hand-edited config.json: never load it, nor join its ID into a path.
                self.say(format!("plugin entry in config.json skipped: {e}"));
                continue;
            }
            if plugin.is_enabled() {
                match self.reload_or_load(id, &plugin.path).await {
                    Ok(()) => self.say(format!("plugin {id} running")),
                    Err(e) => self.say(format!("plugin {id} failed: {e}")),
                }
            }
        }
    }

    pub fn plugins_enabled(&self) -> bool {
        self.config.lock().unwrap().plugins_enabled
    }

    /// `paseo plugins enable|disable`: Paseo's global switch (`pluginsEnabled` in config.json),
    /// applied at once: turning it on starts every enabled plugin, off stops them all.
    pub async fn set_plugins_enabled(&self, on: bool) -> Result<Value, String> {
        let changed = {
            let mut config = self.config.lock().unwrap();
            let changed = config.plugins_enabled != on;
            config.plugins_enabled = on;
            self.store.save_config(&config)?;
            changed
        };
        if changed && on {
            self.start_plugins().await;
        } else if changed {
            for info in self.host.plugins() {
                self.host.stop(&info.id).await.ok();
            }
        }
        self.say(format!(
            "plugins {}",
            if on { "enabled" } else { "disabled" }
        ));
        Ok(json!({ "pluginsEnabled": on, "plugins": self.plugin_list() }))
    }

    /// The rows of `paseo plugin ls`.
    pub fn plugin_list(&self) -> Vec<Value> {
        let config = self.config.lock().unwrap().clone();
        let records = sources::read_records(&self.plugins_dir());
        let loaded: HashMap<String, paseo_plugin_runtime::PluginInfo> = self
            .host
            .plugins()
            .into_iter()
            .map(|p| (p.id.clone(), p))
            .collect();
        config
            .plugins
            .iter()
            .map(|(id, p)| {
                let info = loaded.get(id);
                let (status, error) = if !config.plugins_enabled {
                    ("disabled", Some(PLUGINS_OFF.to_string()))
                } else if !p.is_enabled() {
                    ("disabled", Some(format!("Disabled with `paseo plugin disable {id}`; `paseo plugin enable {id}` starts it")))
                } else {
                    match info {
                        Some(i) if i.status == PluginStatus::Running => ("running", None),
                        Some(i) => ("failed", i.error.clone()),
                        None => (
                            "failed",
                            Some(
                                self.install_errors
                                    .lock()
                                    .unwrap()
                                    .get(id)
                                    .cloned()
                                    .unwrap_or_else(|| format!("Plugin failed to start: {id}")),
                            ),
                        ),
                    }
                };
                // A plugin that is not running still shows what its manifest says of it.
                let description = info.and_then(|i| i.description.clone()).or_else(|| {
                    paseo_plugin_runtime::host::manifest::Manifest::read(&p.path)
                        .ok()
                        .and_then(|m| m.description)
                });
                json!({
                    "id": id, "status": status, "enabled": p.is_enabled(),
                    "source": records.get(id).map_or(p.source.as_str(), |r| r.kind()),
                    "revision": sources::revision(&self.plugins_dir(), id, &p.path),
                    "directory": p.path, "error": error, "description": description,
                    // What it may touch: `full` (its owner's rights), `sandboxed` (a policy) or
                    // `audit` (full, each access recorded).
                    "access": match &p.permissions {
                        None => "full",
                        Some(policy) if policy["audit"] == true => "audit",
                        Some(_) => "sandboxed",
                    },
                })
            })
            .collect()
    }

    /// Starts a configured plugin: reloads it if the host still has its slot (stopped by a
    /// disable or the global switch, it keeps its log tail), else loads it from `path`.
    pub(super) async fn reload_or_load(&self, id: &str, path: &Path) -> Result<(), String> {
        let started = if self.host.plugin(id).is_some() {
            self.host.reload(id).await
        } else {
            self.host.load_with(path, Some(id), None).await.map(|_| ())
        };
        started.map_err(|e| e.to_string())
    }

    /// The IDs of the plugins in config.json, in order.
    pub(super) fn configured_ids(&self) -> Vec<String> {
        self.config
            .lock()
            .unwrap()
            .plugins
            .keys()
            .cloned()
            .collect()
    }

    /// The configuration of plugin `id`; the ID is checked first, so callers may join it into
    /// a path.
    pub(super) fn configured(&self, id: &str) -> Result<PluginConfig, String> {
        check_plugin_id(id).map_err(|e| e.to_string())?;
        self.config
            .lock()
            .unwrap()
            .plugins
            .get(id)
            .cloned()
            .ok_or_else(|| format!("Plugin is not configured: {id}"))
    }

    pub async fn plugin_set_enabled(&self, id: &str, enabled: bool) -> Result<Value, String> {
        let plugin = self.configured(id)?;
        {
            let mut config = self.config.lock().unwrap();
            config.plugins.get_mut(id).unwrap().enabled = if enabled { None } else { Some(false) };
            self.store.save_config(&config)?;
        }
        if enabled && self.plugins_enabled() {
            self.reload_or_load(id, &plugin.path).await?;
        } else if !enabled {
            self.host.stop(id).await.ok();
        }
        Ok(json!({ "id": id, "enabled": enabled }))
    }

    pub async fn plugin_reload(&self, id: &str) -> Result<Value, String> {
        let plugin = self.configured(id)?;
        if !self.plugins_enabled() {
            return Err("Plugins are globally disabled".into());
        }
        if !plugin.is_enabled() {
            return Err(format!("Plugin is disabled: {id}"));
        }
        let started = std::time::Instant::now();
        self.reload_or_load(id, &plugin.path).await?;
        self.say(format!(
            "plugin {id} reloaded in {} ms",
            started.elapsed().as_millis()
        ));
        Ok(json!({ "id": id, "reloadMs": started.elapsed().as_secs_f64() * 1000.0 }))
    }

    pub async fn plugin_remove(&self, id: &str) -> Result<Value, String> {
        self.configured(id)?;
        self.host.remove(id).await.ok();
        let mut config = self.config.lock().unwrap();
        config.plugins.remove(id);
        self.store.save_config(&config)?;
        // A managed plugin's staged tree goes too; a directory source is never touched.
        self.forget_managed(id)?;
        let _ = std::fs::remove_dir_all(self.store.home.join("plugin-settings").join(id));
        Ok(json!({ "id": id, "removed": true }))
    }

    /// What each configured plugin costs (`PluginHost::stats`), or the one with `id`.
    pub async fn plugin_stats(&self, id: Option<&str>) -> Result<Value, String> {
        let configured: Vec<String> = match id {
            Some(id) => vec![self.configured(id).map(|_| id.to_string())?],
            None => self.configured_ids(),
        };
        // Asked of that plugin alone: each report asks its isolate for its heap.
        let reports = match self.host.stats(id).await {
            Ok(reports) => reports,
            // Configured, but its install failed: the host never had it.
            Err(HostError::NotConfigured(id)) => return Err(format!("Plugin has not run: {id}")),
            Err(e) => return Err(e.to_string()),
        };
        let reports: Vec<_> = reports
            .into_iter()
            .filter(|r| configured.contains(&r.id))
            .collect();
        Ok(json!(reports))
    }

    pub fn plugin_logs(&self, id: &str) -> Result<Vec<LogEntry>, String> {
        self.configured(id)?;
        Ok(self.host.logs(id))
    }
}
