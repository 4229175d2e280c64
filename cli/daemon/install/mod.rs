//! Installing a plugin. Every install goes through one pipeline: the checks
//! (`check_and_build`: the manifest, the ID, not already configured, the requirements, the
//! `build` commands), then the start and the config entry (`start_and_configure`). A directory
//! plugin runs in place (here); a managed source is fetched, checked, placed and recorded first
//! (`managed`, with `sources` fetching it).

mod managed;
pub(super) mod sources;

use std::path::Path;

use paseo_plugin_runtime::host::manifest::{check_plugin_id, Manifest};
use serde_json::{json, Value};

use super::model::PLUGINS_OFF;
use super::store::PluginConfig;
use super::Daemon;

/// Why an install's checks failed: the message, and the plugin's ID when the failure came after
/// the ID was settled and checked (its requirements or its build failed).
struct Unprepared {
    id: Option<String>,
    error: String,
}

impl From<paseo_plugin_runtime::HostError> for Unprepared {
    fn from(e: paseo_plugin_runtime::HostError) -> Self {
        Unprepared::from(e.to_string())
    }
}

impl From<String> for Unprepared {
    fn from(error: String) -> Self {
        Unprepared { id: None, error }
    }
}

tokio::task_local! {
    /// Set for an install asked with `--sandbox` (`paseo plugin install SOURCE --sandbox`), for
    /// as long as it runs.
    pub(super) static SANDBOXED: bool;
}

impl Daemon {
    pub async fn plugin_install(&self, dir: &Path, id: Option<&str>) -> Result<Value, String> {
        self.plugin_install_with(dir, id, &|_| {}).await
    }

    /// Installs a directory plugin: checks its manifest and requirements, runs its `build`
    /// commands (without a shell, in the plugin directory, reporting progress), and starts it;
    /// it must reach `running`.
    pub async fn plugin_install_with(
        &self,
        dir: &Path,
        id: Option<&str>,
        progress: &(dyn Fn(String) + Sync),
    ) -> Result<Value, String> {
        let dir = dir
            .canonicalize()
            .map_err(|_| format!("Plugin directory does not exist: {}", dir.display()))?;
        // As in Paseo, a plugin whose manifest names it stays listed once installed, `failed`
        // with the reason, when its requirements, build or load fail: the owner sees why in
        // `plugin ls` and can fix and `plugin reload` it, or remove it.
        let id = match self.check_and_build(&dir, id, None, progress).await {
            Ok(id) => id,
            Err(Unprepared {
                id: Some(id),
                error,
            }) => {
                self.configure(&id, &dir)?;
                self.install_errors
                    .lock()
                    .unwrap()
                    .insert(id.clone(), error.clone());
                return Err(error);
            }
            Err(Unprepared { id: None, error }) => return Err(error),
        };
        self.start_and_configure(&id, &dir, progress).await?;
        self.say(format!("plugin {id} installed"));
        Ok(json!({ "id": id }))
    }

    /// The checks every install makes on the plugin folder `dir`, in order, before the plugin
    /// is placed or started: its manifest; its ID (`replacing`, the configured plugin an update
    /// replaces, else `id`, else the manifest's), which must be valid and, unless it replaces
    /// one, not configured yet; its requirements; then its `build` commands. Returns the ID.
    async fn check_and_build(
        &self,
        dir: &Path,
        id: Option<&str>,
        replacing: Option<&str>,
        progress: &(dyn Fn(String) + Sync),
    ) -> Result<String, Unprepared> {
        let manifest = Manifest::read(dir)?;
        let id = replacing
            .or(id)
            .map(str::to_string)
            .unwrap_or(manifest.id.clone());
        check_plugin_id(&id)?;
        if replacing.is_none() && self.config.lock().unwrap().plugins.contains_key(&id) {
            return Err(format!(
                "Plugin ID \"{id}\" is already configured; choose another ID with --id"
            )
            .into());
        }
        let prepared =
            match manifest.check_requirements(&id, Some(paseo_plugin_runtime::PASEO_VERSION)) {
                Ok(()) => run_build(dir, &manifest, &id, progress).await,
                Err(e) => Err(e.to_string()),
            };
        match prepared {
            Ok(()) => Ok(id),
            Err(error) => Err(Unprepared {
                id: Some(id),
                error,
            }),
        }
    }

    /// The end of every install: starts the plugin from `path` (if plugins are on; it must
    /// reach `running`) and saves it in config.json. Nothing is left behind on failure: a
    /// plugin that started is removed again when the config cannot be written.
    async fn start_and_configure(
        &self,
        id: &str,
        path: &Path,
        progress: &(dyn Fn(String) + Sync),
    ) -> Result<(), String> {
        // `--sandbox`: the baseline policy from the first load on (the config entry that will
        // hold it is written after the start).
        let sandboxed = SANDBOXED.try_with(|s| *s).unwrap_or(false);
        let configured = self
            .config
            .lock()
            .unwrap()
            .plugins
            .get(id)
            .is_some_and(|e| e.permissions.is_some());
        if sandboxed && !configured {
            let baseline = serde_json::json!(paseo_plugin_runtime::permissions::sandbox());
            self.pending_policies
                .lock()
                .unwrap()
                .insert(id.to_string(), baseline);
        }
        if !self.plugins_enabled() {
            progress(format!("not starting {id}: {PLUGINS_OFF}"));
        } else {
            progress(format!("starting {id}"));
            if let Err(e) = self.host.load_with(path, Some(id), None).await {
                // Listed as failed with the reason (the host keeps its slot and log tail).
                if self.host.plugin(id).is_none() {
                    self.install_errors
                        .lock()
                        .unwrap()
                        .insert(id.to_string(), e.to_string());
                }
                self.configure(id, path)?;
                return Err(e.to_string());
            }
        }
        self.configure(id, path)
    }

    /// Records a directory plugin in config.json.
    fn configure(&self, id: &str, path: &Path) -> Result<(), String> {
        let mut config = self.config.lock().unwrap();
        // A reinstall keeps the policy the owner gave the plugin; `--sandbox` gives the baseline.
        let pending = self.pending_policies.lock().unwrap().remove(id);
        let permissions = config
            .plugins
            .get(id)
            .and_then(|e| e.permissions.clone())
            .or(pending);
        let quotas = config.plugins.get(id).and_then(|e| e.quotas.clone());
        let entry = PluginConfig {
            source: "directory".into(),
            path: path.to_path_buf(),
            enabled: None,
            permissions,
            quotas,
        };
        config.plugins.insert(id.to_string(), entry);
        if let Err(e) = self.store.save_config(&config) {
            config.plugins.remove(id);
            drop(config);
            // Not awaited under the lock; the plugin stops in the background.
            let host = self.host.clone();
            let id = id.to_string();
            tokio::spawn(async move {
                let _ = host.remove(&id).await;
            });
            return Err(e);
        }
        Ok(())
    }
}

/// Runs a plugin's `build` commands in its folder, in order and without a shell, reporting
/// progress; each may take 5 minutes.
async fn run_build(
    dir: &Path,
    manifest: &paseo_plugin_runtime::host::manifest::Manifest,
    id: &str,
    progress: &(dyn Fn(String) + Sync),
) -> Result<(), String> {
    let total = manifest.build.len();
    for (i, argv) in manifest.build.iter().enumerate() {
        let started = std::time::Instant::now();
        let command = argv.join(" ");
        progress(format!("building {id} [{}/{total}]: {command}", i + 1));
        let run = tokio::process::Command::new(&argv[0])
            .args(&argv[1..])
            .current_dir(dir)
            .stdin(std::process::Stdio::null())
            .kill_on_drop(true)
            .output();
        let out = tokio::time::timeout(std::time::Duration::from_secs(300), run)
            .await
            .map_err(|_| format!("Plugin build command timed out after 300000ms: {command}"))?
            .map_err(|e| format!("Build command {command} failed to start: {e}"))?;
        if !out.status.success() {
            return Err(format!(
                "Build command {command} failed ({}): {}",
                out.status,
                String::from_utf8_lossy(&out.stderr).trim()
            ));
        }
        progress(format!(
            "building {id} [{}/{total}]: done in {:.1} s",
            i + 1,
            started.elapsed().as_secs_f64()
        ));
    }
    Ok(())
}
