//! Installing, updating and removing plugins from managed sources (`sources` fetches them):
//! the daemon's side, with the config, `plugins/sources.json` and the running plugin kept
//! consistent whatever fails.

use std::path::{Path, PathBuf};

use paseo_plugin_runtime::host::manifest::check_plugin_id;
use serde_json::{json, Value};

use super::sources::{self, Fetched, Source, SourceRecord, Target};
use crate::daemon::store::PluginConfig;
use crate::daemon::Daemon;

impl Daemon {
    /// `$PASEO_HOME/plugins`: the managed plugins' trees and `sources.json`.
    pub(in crate::daemon) fn plugins_dir(&self) -> PathBuf {
        self.store.home.join("plugins")
    }

    fn registry_url() -> String {
        std::env::var("PASEO_PLUGIN_REGISTRY")
            .ok()
            .filter(|u| !u.trim().is_empty())
            .unwrap_or_else(|| sources::DEFAULT_REGISTRY.to_string())
    }

    /// The `Authorization` header config.json gives a registry (`pluginRegistries`, by
    /// `host:port` or `host`), if any. Never logged.
    fn registry_credentials(&self, url: &str) -> Option<String> {
        let parsed = reqwest::Url::parse(url).ok()?;
        let host = parsed.host_str()?.to_string();
        let with_port = parsed.port().map(|p| format!("{host}:{p}"));
        let config = self.config.lock().unwrap();
        let registries = config.other.get("pluginRegistries")?;
        let found = [with_port.as_deref(), Some(host.as_str())]
            .into_iter()
            .flatten()
            .find_map(|key| {
                registries[key]["authorization"]
                    .as_str()
                    .map(str::to_string)
            });
        found
    }

    /// Deletes a managed plugin's tree and its record (nothing for a directory source).
    pub(in crate::daemon) fn forget_managed(&self, id: &str) -> Result<(), String> {
        let plugins = self.plugins_dir();
        let mut records = sources::read_records(&plugins);
        if records.remove(id).is_some() {
            sources::write_records(&plugins, &records)?;
            let _ = std::fs::remove_dir_all(plugins.join(id));
        }
        Ok(())
    }

    /// `paseo plugin install SOURCE`: a directory runs in place; any other source is fetched,
    /// prepared and placed first. The plugin must reach `running` (when plugins are on).
    pub async fn plugin_install_source(
        &self,
        reference: &str,
        id: Option<&str>,
        git_ref: Option<&str>,
        path: Option<&str>,
        progress: &(dyn Fn(String) + Sync),
    ) -> Result<Value, String> {
        let reference = match path {
            Some(p) => format!("{reference}:{p}"),
            None => reference.to_string(),
        };
        let source = sources::parse(&reference, &Self::registry_url())?;
        if let Source::Directory(dir) = &source {
            if git_ref.is_some() {
                return Err("Plugin --ref is only valid for Git sources".into());
            }
            let dir = expand_home(dir);
            return self.plugin_install_with(&dir, id, progress).await;
        }
        if let Some(id) = id {
            check_plugin_id(id).map_err(|e| e.to_string())?;
        }
        let (target, registry) = Target::of(source, git_ref.map(str::to_string), true, &|url| {
            self.registry_credentials(url)
        })
        .await?;
        let plugins = self.plugins_dir();
        let fetched = target.fetch(&plugins, registry, progress).await?;
        let outcome = self.prepare_and_start(&fetched, id, None, progress).await;
        if outcome.is_err() {
            let _ = std::fs::remove_dir_all(&fetched.root);
        }
        let (id, path) = outcome?;
        self.record(&id, fetched.record.clone())?;
        self.say(format!("plugin {id} installed from {reference}"));
        Ok(
            json!({ "id": id, "directory": path, "revision": sources::revision(&plugins, &id, &path) }),
        )
    }

    /// Checks the fetched plugin (manifest, ID, requirements), builds it (`check_and_build`),
    /// places it and starts it; `replacing`: the configured plugin an update replaces. Returns
    /// the ID and the placed plugin folder. On failure the placed tree is removed again (the
    /// staging folder is the caller's).
    async fn prepare_and_start(
        &self,
        fetched: &Fetched,
        id: Option<&str>,
        replacing: Option<&str>,
        progress: &(dyn Fn(String) + Sync),
    ) -> Result<(String, PathBuf), String> {
        let id = self
            .check_and_build(&fetched.plugin_dir, id, replacing, progress)
            .await
            .map_err(|unprepared| unprepared.error)?;
        let path = sources::place(&self.plugins_dir(), &id, fetched)?;
        let root = sources::version_root(&self.plugins_dir(), &id, &path);
        let discard = || {
            if let Some(root) = &root {
                let _ = std::fs::remove_dir_all(root);
            }
        };
        if replacing.is_some() {
            return Ok((id, path)); // the update swaps it in
        }
        if let Err(e) = self.start_and_configure(&id, &path, progress).await {
            discard();
            return Err(e);
        }
        Ok((id, path))
    }

    fn record(&self, id: &str, record: SourceRecord) -> Result<(), String> {
        let plugins = self.plugins_dir();
        let mut records = sources::read_records(&plugins);
        records.insert(id.to_string(), record);
        sources::write_records(&plugins, &records)
    }

    /// `paseo plugin update ID`: fetches the source again (a Git `--ref`, an npm `--version`,
    /// or what the registry pins now), prepares the new version beside the running one and swaps
    /// it in. If anything fails, the previous version keeps running and the new tree is removed.
    pub async fn plugin_update(
        &self,
        id: &str,
        git_ref: Option<&str>,
        version: Option<&str>,
        progress: &(dyn Fn(String) + Sync),
    ) -> Result<Value, String> {
        let UpdatePlan {
            configured,
            old_root,
            before,
            target,
            registry,
        } = self.update_plan(id, git_ref, version).await?;
        let plugins = self.plugins_dir();
        let fetched = target.fetch(&plugins, registry, progress).await?;
        let prepared = self
            .prepare_and_start(&fetched, None, Some(id), progress)
            .await;
        let path = match prepared {
            Ok((_, path)) => path,
            Err(e) => {
                let _ = std::fs::remove_dir_all(&fetched.root);
                return Err(format!(
                    "Plugin {id} was not updated; the installed version is kept: {e}"
                ));
            }
        };
        let new_root = sources::version_root(&plugins, id, &path);
        // Swap: the new version replaces the running one; if it does not start, the old one
        // is started again from its untouched tree.
        let running = self.plugins_enabled() && configured.is_enabled();
        if running {
            progress(format!("starting {id} from the new version"));
            let _ = self.host.remove(id).await;
            if let Err(e) = self.host.load_with(&path, Some(id), None).await {
                let _ = self.host.remove(id).await;
                let restored = self.host.load_with(&configured.path, Some(id), None).await;
                if let Some(root) = &new_root {
                    let _ = std::fs::remove_dir_all(root);
                }
                let kept = match restored {
                    Ok(_) => "the installed version is running again".to_string(),
                    Err(r) => format!("the installed version failed to restart too: {r}"),
                };
                return Err(format!("Plugin {id} was not updated ({kept}): {e}"));
            }
        }
        {
            let mut config = self.config.lock().unwrap();
            if let Some(p) = config.plugins.get_mut(id) {
                p.path = path.clone();
            }
            self.store.save_config(&config)?;
        }
        self.record(id, fetched.record.clone())?;
        let mut warning = None;
        if let Err(e) = std::fs::remove_dir_all(&old_root) {
            warning = Some(format!(
                "Plugin updated, but previous installation cleanup failed: {e}"
            ));
        }
        let after = sources::revision(&plugins, id, &path);
        self.say(format!(
            "plugin {id} updated: {} -> {}",
            before.as_deref().unwrap_or("?"),
            after.as_deref().unwrap_or("?")
        ));
        Ok(
            json!({ "id": id, "directory": path, "previous": before, "revision": after, "warning": warning }),
        )
    }

    /// What an update of `id` would fetch: the configured plugin, its version root and
    /// revision, and the target (a `--ref`, a `--version`, or the registry's pin).
    async fn update_plan(
        &self,
        id: &str,
        git_ref: Option<&str>,
        version: Option<&str>,
    ) -> Result<UpdatePlan, String> {
        let configured = self.configured(id)?;
        if git_ref.is_some() && version.is_some() {
            return Err("Choose --ref or --version, not both".into());
        }
        let plugins = self.plugins_dir();
        let Some(record) = sources::read_records(&plugins).remove(id) else {
            return Err(format!(
                "Plugin {id} is a local directory; use `paseo plugin reload {id}` after editing"
            ));
        };
        let old_root = sources::version_root(&plugins, id, &configured.path)
            .ok_or_else(|| format!("Plugin {id} is not inside {}", plugins.display()))?;
        let layout = sources::layout(&old_root, &configured.path);
        let before = sources::revision(&plugins, id, &configured.path);
        let source = match (&record, record.registry()) {
            (_, Some(registry)) => {
                if git_ref.is_some() || version.is_some() {
                    return Err("Registry updates use only the reviewed registry pin".into());
                }
                Source::Registry {
                    url: registry.url.clone(),
                    id: registry.id.clone(),
                }
            }
            (SourceRecord::Git { remote, .. }, None) => {
                if version.is_some() {
                    return Err("Plugin --version is only valid for npm sources".into());
                }
                Source::Git {
                    remote: remote.clone(),
                    subpath: layout.subpath.clone(),
                }
            }
            (SourceRecord::Npm { .. }, None) => {
                if git_ref.is_some() {
                    return Err("Plugin --ref is only valid for Git sources; use npm:package@version for npm".into());
                }
                Source::Npm {
                    package: layout
                        .package
                        .clone()
                        .ok_or("The npm plugin's package is unknown")?,
                    spec: version.unwrap_or("latest").to_string(),
                    subpath: layout.subpath.clone(),
                }
            }
        };
        let (target, registry) = Target::of(source, git_ref.map(str::to_string), false, &|url| {
            self.registry_credentials(url)
        })
        .await?;
        Ok(UpdatePlan {
            configured,
            old_root,
            before,
            target,
            registry,
        })
    }

    /// `paseo plugin update ID --check`: the installed revision and the one an update would
    /// install, without fetching or changing anything.
    pub async fn plugin_update_check(
        &self,
        id: &str,
        git_ref: Option<&str>,
        version: Option<&str>,
    ) -> Result<Value, String> {
        let plan = self.update_plan(id, git_ref, version).await?;
        let latest = plan.target.latest().await?;
        let status = if plan.before.as_deref() == Some(latest.as_str()) {
            "current"
        } else {
            "update"
        };
        Ok(json!({ "id": id, "revision": plan.before, "target": latest, "status": status }))
    }

    /// `paseo plugin update --all [--check]`: every managed plugin, in ID order; one failing
    /// does not stop the others (its row carries the error).
    pub async fn plugin_update_all(
        &self,
        check: bool,
        progress: &(dyn Fn(String) + Sync),
    ) -> Result<Value, String> {
        let ids: Vec<String> = sources::read_records(&self.plugins_dir())
            .into_keys()
            .collect();
        let mut rows = Vec::new();
        for id in ids {
            let outcome = if check {
                self.plugin_update_check(&id, None, None).await
            } else {
                self.plugin_update(&id, None, None, progress).await
            };
            rows.push(outcome.unwrap_or_else(|error| json!({ "id": id, "error": error })));
        }
        Ok(Value::Array(rows))
    }
}

/// See `Daemon::update_plan`.
struct UpdatePlan {
    configured: PluginConfig,
    old_root: PathBuf,
    before: Option<String>,
    target: Target,
    registry: Option<super::sources::RegistryRef>,
}

/// `~/x` → `$HOME/x`.
fn expand_home(dir: &Path) -> PathBuf {
    match dir.strip_prefix("~") {
        Ok(rest) => std::env::var_os("HOME")
            .map(PathBuf::from)
            .unwrap_or_default()
            .join(rest),
        Err(_) => dir.to_path_buf(),
    }
}
