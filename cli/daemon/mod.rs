//! The reference daemon: a small but real Paseo daemon around the engine. It keeps agents and
//! workspaces in `$PASEO_HOME`, creates real git worktrees, runs a built-in scripted agent
//! provider so every hook fires at its documented point without an LLM, serves plugin tools over
//! MCP, implements `context.paseo` for plugins, and answers the CLI on a Unix socket.

pub mod control;
pub mod home;
mod managed;
mod mcp_client;
mod plugin_provider;
mod provided;
mod provider;
pub mod sources;
pub mod store;

use std::collections::{BTreeMap, HashMap};
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex, OnceLock, Weak};

use paseo_plugin_runtime::hooks::types::*;
use paseo_plugin_runtime::host::manifest::check_plugin_id;
use paseo_plugin_runtime::logs::{now_iso, LogEntry};
use paseo_plugin_runtime::sdk::{Caller, PaseoDaemon, SdkError, SdkFuture};
use paseo_plugin_runtime::tools::mcp::{AgentSecret, REDACTED_AUTHORIZATION, SERVER_NAME};
use paseo_plugin_runtime::{HostOptions, OpenContext, PluginHost, PluginStatus};
use serde_json::{json, Value};
use tokio::sync::{broadcast, oneshot};

use store::{AgentRecord, Config, PluginConfig, State, Store, WorkspaceRecord, WorktreeRecord};

/// Why no plugin runs while the global switch is off, and how to turn it on.
const PLUGINS_OFF: &str = "plugins are turned off (\"pluginsEnabled\": false in config.json); run `paseo plugins enable` to turn them on";

/// Tools Paseo itself gives every agent (plugin tools may not reuse these names).
pub const PASEO_TOOLS: &[&str] = &[
    "create_agent",
    "send_agent_prompt",
    "list_agents",
    "wait_for_agent",
];

/// A live agent session: what the provider was launched with.
#[derive(Debug, Clone, Default, serde::Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Launch {
    pub reason: String,
    pub env: BTreeMap<String, String>,
    pub tools: Vec<String>,
    pub mcp_servers: Value,
    /// Where the agent reaches its plugin tools.
    pub tools_url: Option<String>,
    /// The credential for `tools_url`, made when the tools were attached. `mcp_servers` shows
    /// it as `REDACTED_AUTHORIZATION`; only the provider gets it (`provider_mcp_servers`).
    #[serde(skip)]
    pub tools_secret: Option<AgentSecret>,
}

impl Launch {
    /// The MCP servers as the provider is launched with them: paseo's own entry carries the
    /// agent's real `Authorization` header.
    pub fn provider_mcp_servers(&self) -> Value {
        let mut servers = self.mcp_servers.clone();
        if let (Some(secret), Some(entry)) = (&self.tools_secret, servers.get_mut(SERVER_NAME)) {
            entry["headers"]["Authorization"] = json!(secret.authorization());
        }
        servers
    }
}

struct LiveAgent {
    launch: Launch,
    running: bool,
    /// The turn in progress: its id and the task running it (interrupting it waits for the
    /// task to end, so no step of it runs afterwards).
    turn: Option<(String, tokio::task::JoinHandle<()>)>,
}

/// A permission request waiting for an answer.
struct PendingPermission {
    request: Value,
    agent: PluginHookAgent,
    /// The provider step waiting for the answer, if it still is.
    reply: oneshot::Sender<Value>,
}

/// Why a turn stops before its end, and what plugins are told about it.
#[derive(Debug, Clone, Copy, PartialEq)]
enum Interruption {
    Canceled,
    Reloaded,
    Closed,
    Archived,
}

impl Interruption {
    /// `agent.turn.after`'s `outcome.reason`.
    fn turn_reason(self) -> &'static str {
        match self {
            Interruption::Canceled => "Canceled by the user",
            Interruption::Reloaded => "Interrupted by an agent reload",
            Interruption::Closed => "Agent closed",
            Interruption::Archived => "Agent archived",
        }
    }

    /// The `resolution.message` of each pending request this clears.
    fn permission_message(self) -> &'static str {
        match self {
            Interruption::Canceled => "Turn canceled",
            Interruption::Reloaded => "Agent reloaded",
            Interruption::Closed => "Agent closed",
            Interruption::Archived => "Agent archived",
        }
    }
}

/// The resolution of a request cleared rather than answered.
fn cleared(message: &str) -> Value {
    json!({ "behavior": "deny", "message": message })
}

pub struct Daemon {
    pub store: Store,
    pub host: Arc<PluginHost>,
    state: Mutex<State>,
    config: Mutex<Config>,
    live: Mutex<HashMap<String, LiveAgent>>,
    /// Pending requests by (agent, request id); `resolve_permissions` alone removes them.
    permissions: Mutex<HashMap<(String, String), PendingPermission>>,
    /// Every plugin log line, for `paseo plugin logs --follow`.
    pub logs: broadcast::Sender<(String, LogEntry)>,
    /// A human-readable trace of what the daemon did (the demo prints it).
    pub trace: broadcast::Sender<String>,
    turns_done: tokio::sync::Notify,
    mcp: Mutex<Option<Arc<paseo_plugin_runtime::tools::mcp::McpServer>>>,
    /// Open agents' sessions with plugin providers, by agent.
    plugin_sessions: Mutex<HashMap<String, Arc<plugin_provider::Session>>>,
    /// Why a configured plugin that never got a host slot failed (its requirements, build or
    /// load at install), for `plugin ls` until it starts or is removed.
    install_errors: Mutex<HashMap<String, String>>,
    /// Exclusive ownership of `$PASEO_HOME` for as long as the daemon lives.
    _home_lock: home::HomeLock,
}

/// `context.paseo` for plugins, answered by the daemon.
struct Sdk(OnceLock<Weak<Daemon>>);

fn sdk_err(e: impl std::fmt::Display) -> SdkError {
    SdkError::Daemon(e.to_string())
}

impl Daemon {
    pub async fn start(home: PathBuf) -> Result<Arc<Daemon>, String> {
        // Before anything reads the home or loads a plugin: a second daemon stops here.
        let home_lock = home::lock(&home)?;
        home::raise_fd_limit();
        let store = Store::open(home.clone())?;
        // A managed install or update the last daemon did not finish leaves nothing behind.
        sources::clean_staging(&home.join("plugins"));
        let config = store.load_config()?;
        let state = store.load_state()?;
        let (logs, _) = broadcast::channel(1024);
        let (trace, _) = broadcast::channel(1024);
        let sdk = Arc::new(Sdk(OnceLock::new()));
        let log_tx = logs.clone();
        let host = Arc::new(PluginHost::new(HostOptions {
            log_listener: Some(Arc::new(move |id: &str, entry: &LogEntry| {
                let _ = log_tx.send((id.to_string(), entry.clone()));
            })),
            bytecode_cache_dir: Some(home.join("cache/quickjs-bytecode")),
            snapshot_cache_dir: Some(home.join("cache/v8-snapshot")),
            daemon: Some(sdk.clone()),
            settings_dir: Some(home.join("plugin-settings")),
            // Installs, enables and `paseo plugin reload` take an isolate booted ahead.
            standby: true,
            reserved_provider: Some(Arc::new(|id: &str| {
                provider::is_known(id).then_some("builtin")
            })),
            ..HostOptions::default()
        }));
        let daemon = Arc::new(Daemon {
            store,
            host,
            state: Mutex::new(state),
            config: Mutex::new(config),
            live: Mutex::default(),
            permissions: Mutex::default(),
            logs,
            trace,
            turns_done: Default::default(),
            mcp: Mutex::default(),
            plugin_sessions: Mutex::default(),
            install_errors: Mutex::default(),
            _home_lock: home_lock,
        });
        let _ = sdk.0.set(Arc::downgrade(&daemon));
        let mcp = paseo_plugin_runtime::tools::mcp::McpServer::start(
            daemon.host.clone(),
            "127.0.0.1:0".parse().unwrap(),
        )
        .await
        .map_err(|e| format!("Cannot start the MCP server: {e}"))?;
        *daemon.mcp.lock().unwrap() = Some(Arc::new(mcp));
        daemon.start_plugins().await;
        daemon.resume_agents().await;
        Ok(daemon)
    }

    fn say(&self, line: impl Into<String>) {
        let line = line.into();
        tracing::info!(target: "paseo::daemon", "{line}");
        let _ = self.trace.send(line);
    }

    fn next_id(&self, prefix: &str) -> String {
        let mut state = self.state.lock().unwrap();
        state.next_id += 1;
        format!("{prefix}-{}", state.next_id)
    }

    /// Saves agents, workspaces and the id counter (timelines have journals of their own).
    /// Durable before it returns: the snapshot is taken under the state lock, so it holds every
    /// change made before the call, and writes are serialized so that an older snapshot never
    /// lands over a newer one (a save that finds a newer one on disk is done).
    fn save(&self) {
        let snapshot = self.store.snapshot(&self.state.lock().unwrap());
        self.store.write_state(snapshot);
    }

    // ---- plugins -------------------------------------------------------------------------

    async fn start_plugins(&self) {
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
                })
            })
            .collect()
    }

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
        let manifest = paseo_plugin_runtime::host::manifest::Manifest::read(&dir)?;
        let id = id.map(str::to_string).unwrap_or(manifest.id.clone());
        check_plugin_id(&id)?;
        if self.config.lock().unwrap().plugins.contains_key(&id) {
            return Err(format!(
                "Plugin ID \"{id}\" is already configured; choose another ID with --id"
            ));
        }
        // As in Paseo, a plugin whose manifest names it stays listed once installed, `failed`
        // with the reason, when its requirements, build or load fail: the owner sees why in
        // `plugin ls` and can fix and `plugin reload` it, or remove it.
        let prepared =
            match manifest.check_requirements(&id, Some(paseo_plugin_runtime::PASEO_VERSION)) {
                Ok(()) => run_build(&dir, &manifest, &id, progress).await,
                Err(e) => Err(e),
            };
        if let Err(e) = prepared {
            self.configure(&id, &dir)?;
            self.install_errors
                .lock()
                .unwrap()
                .insert(id.clone(), e.clone());
            return Err(e);
        }
        self.start_and_configure(&id, &dir, progress).await?;
        self.say(format!("plugin {id} installed"));
        Ok(json!({ "id": id }))
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
        let entry = PluginConfig {
            source: "directory".into(),
            path: path.to_path_buf(),
            enabled: None,
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

    /// Starts a configured plugin: reloads it if the host still has its slot (stopped by a
    /// disable or the global switch, it keeps its log tail), else loads it from `path`.
    async fn reload_or_load(&self, id: &str, path: &Path) -> Result<(), String> {
        let started = if self.host.plugin(id).is_some() {
            self.host.reload(id).await
        } else {
            self.host.load_with(path, Some(id), None).await.map(|_| ())
        };
        started.map_err(|e| e.to_string())
    }

    /// The configuration of plugin `id`; the ID is checked first, so callers may join it into
    /// a path.
    fn configured(&self, id: &str) -> Result<PluginConfig, String> {
        check_plugin_id(id)?;
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

    pub fn plugin_logs(&self, id: &str) -> Result<Vec<LogEntry>, String> {
        self.configured(id)?;
        Ok(self.host.logs(id))
    }

    // ---- workspaces and worktrees ---------------------------------------------------------

    /// `workspace.create.before` → (worktree: `worktree.create.before` → `git worktree add` →
    /// `worktree.create.after`, whose failure removes the worktree) → register the workspace →
    /// `workspace.create.after`.
    pub async fn create_workspace(self: &Arc<Self>, request: Value) -> Result<Value, String> {
        if let Some(key) = request["idempotencyKey"].as_str() {
            let existing = self
                .state
                .lock()
                .unwrap()
                .workspaces
                .values()
                .find(|w| w.idempotency_key.as_deref() == Some(key))
                .cloned();
            if let Some(ws) = existing {
                return Ok(serde_json::to_value(ws).unwrap());
            }
        }
        check_title(request["title"].as_str())?;
        let request = self
            .host
            .run_hook("workspace.create.before", request, &OpenContext::default())
            .await
            .map_err(|e| e.to_string())?;
        self.say(format!("workspace.create.before → {}", request["source"]));
        let source = &request["source"];
        let (cwd, worktree) = match source["kind"].as_str() {
            Some("worktree") => {
                let wt = self.create_worktree(source).await?;
                (wt.path.clone(), Some(wt))
            }
            _ => {
                let path = source["path"].as_str().unwrap_or_default();
                let dir = Path::new(path)
                    .canonicalize()
                    .map_err(|_| format!("Directory not found: {path}"))?;
                (dir.to_string_lossy().into_owned(), None)
            }
        };
        let id = self.next_id("workspace");
        let project_root = worktree
            .as_ref()
            .map(|w| w.repo_root.clone())
            .unwrap_or_else(|| cwd.clone());
        let ws = WorkspaceRecord {
            id: id.clone(),
            project_id: format!(
                "project-{}",
                Path::new(&project_root)
                    .file_name()
                    .map(|n| n.to_string_lossy().into_owned())
                    .unwrap_or_default()
            ),
            cwd,
            name: request["title"].as_str().map(str::to_string),
            archived_at: None,
            worktree,
            idempotency_key: request["idempotencyKey"].as_str().map(str::to_string),
        };
        self.state
            .lock()
            .unwrap()
            .workspaces
            .insert(id.clone(), ws.clone());
        self.save();
        self.say(format!("workspace {id} registered at {}", ws.cwd));
        self.host.notify::<WorkspaceCreateAfter>(WorkspaceEvent {
            workspace: hook_workspace(&ws),
        });
        Ok(serde_json::to_value(ws).unwrap())
    }

    async fn create_worktree(&self, source: &Value) -> Result<WorktreeRecord, String> {
        let from = source["cwd"].as_str().unwrap_or_default();
        let git = |args: &[&str], dir: &str| {
            let out = std::process::Command::new("git")
                .args(args)
                .current_dir(dir)
                .output()
                .map_err(|e| format!("git: {e}"))?;
            if out.status.success() {
                Ok(String::from_utf8_lossy(&out.stdout).trim().to_string())
            } else {
                Err(format!(
                    "git {} failed: {}",
                    args.join(" "),
                    String::from_utf8_lossy(&out.stderr).trim()
                ))
            }
        };
        let source_checkout = git(&["rev-parse", "--show-toplevel"], from)?;
        let common = git(
            &["rev-parse", "--path-format=absolute", "--git-common-dir"],
            from,
        )?;
        let repo_root = Path::new(&common)
            .parent()
            .map(|p| p.to_string_lossy().into_owned())
            .unwrap_or(source_checkout.clone());
        let base = git(&["rev-parse", "--abbrev-ref", "HEAD"], from)?;
        let branch = source["branchName"]
            .as_str()
            .map(str::to_string)
            .unwrap_or_else(|| format!("paseo/{}", self.next_id("wt")));
        let slug = branch.replace('/', "-");
        let default_path = unused_path(
            self.store
                .home
                .join("worktrees")
                .join(Path::new(&repo_root).file_name().unwrap_or_default())
                .join(&slug),
        );
        let request = WorktreeCreateRequest {
            kind: "branch-off".into(),
            branch,
            base_ref: Some(base),
            slug,
            path: default_path.to_string_lossy().into_owned(),
            repo_root: repo_root.clone(),
            source_checkout: source_checkout.clone(),
            ..Default::default()
        };
        let request = self
            .host
            .before::<WorktreeCreateBefore>(request)
            .await
            .map_err(|e| e.to_string())?;
        self.say(format!("worktree.create.before → {}", request.path));
        // The host refuses a taken path a plugin returns; this catches one taken during the
        // hooks, here rather than in `git worktree add`, which would leave the new branch behind.
        if Path::new(&request.path).symlink_metadata().is_ok() {
            return Err(format!("Worktree path already exists: {}", request.path));
        }
        let mut add = vec!["worktree", "add"];
        if request.kind == "branch-off" {
            add.extend([
                "-b",
                request.branch.as_str(),
                request.path.as_str(),
                request.base_ref.as_deref().unwrap_or("HEAD"),
            ]);
        } else {
            add.extend([request.path.as_str(), request.branch.as_str()]);
        }
        git(&add, &source_checkout)?;
        self.say(format!("git worktree add {}", request.path));
        let created = WorktreeEvent {
            worktree: CreatedWorktree {
                path: request.path.clone(),
                branch: request.branch.clone(),
                source_checkout: source_checkout.clone(),
            },
        };
        if let Err(e) = self.host.emit::<WorktreeCreateAfter>(created).await {
            let _ = git(
                &["worktree", "remove", "--force", &request.path],
                &source_checkout,
            );
            if request.kind == "branch-off" {
                let _ = git(&["branch", "-D", &request.branch], &source_checkout);
            }
            self.say(format!(
                "worktree.create.after failed; removed {}",
                request.path
            ));
            return Err(e.to_string());
        }
        Ok(WorktreeRecord {
            path: request.path,
            branch: request.branch,
            repo_root,
        })
    }

    pub fn workspaces(&self) -> Vec<WorkspaceRecord> {
        self.state
            .lock()
            .unwrap()
            .workspaces
            .values()
            .cloned()
            .collect()
    }

    pub async fn archive_workspace(self: &Arc<Self>, id: &str) -> Result<Value, String> {
        let ws = {
            let mut state = self.state.lock().unwrap();
            let ws = state
                .workspaces
                .get_mut(id)
                .ok_or_else(|| format!("Workspace not found: {id}"))?;
            ws.archived_at.get_or_insert_with(now_iso);
            ws.clone()
        };
        self.save();
        self.host.notify::<WorkspaceArchiveAfter>(WorkspaceEvent {
            workspace: hook_workspace(&ws),
        });
        let agents: Vec<String> = self
            .state
            .lock()
            .unwrap()
            .agents
            .values()
            .filter(|a| a.workspace_id.as_deref() == Some(id) && a.archived_at.is_none())
            .map(|a| a.id.clone())
            .collect();
        for agent in agents {
            self.archive_agent(&agent).await?;
        }
        Ok(serde_json::to_value(ws).unwrap())
    }

    // ---- agents ---------------------------------------------------------------------------

    /// The documented order: `agent.create.before` → resolve defaults and validate the provider
    /// → `agent.open.before` → `PASEO_AGENT_ID` / `PASEO_AGENT_CWD` → open the provider session
    /// and save the agent → `agent.create.after` → the initial prompt, if any.
    pub async fn create_agent(self: &Arc<Self>, params: Value) -> Result<Value, String> {
        let (cwd, workspace_id) = match params["workspaceId"].as_str() {
            Some(ws) => {
                let state = self.state.lock().unwrap();
                let w = state
                    .workspaces
                    .get(ws)
                    .ok_or_else(|| format!("Workspace not found: {ws}"))?;
                (w.cwd.clone(), Some(ws.to_string()))
            }
            None => (
                params["cwd"]
                    .as_str()
                    .ok_or("agent create needs a workspace or a cwd")?
                    .to_string(),
                None,
            ),
        };
        check_title(params["title"].as_str())?;
        let provider = params["provider"]
            .as_str()
            .unwrap_or("scripted")
            .split('/')
            .next()
            .unwrap_or("scripted")
            .to_string();
        let mut config = AgentSessionConfig {
            provider,
            cwd: cwd.clone(),
            ..Default::default()
        };
        if let Some(title) = params["title"].as_str() {
            config.title = Some(Some(title.to_string()));
        }
        if let Some(options) = params["providerOptions"].as_object() {
            config.provider_options = Some(
                options
                    .iter()
                    .map(|(k, v)| (k.clone(), v.clone()))
                    .collect(),
            );
        }
        let created = self
            .host
            .before::<AgentCreateBefore>(AgentCreateRequest {
                config,
                env: params["env"].as_object().map(|m| {
                    m.iter()
                        .map(|(k, v)| (k.clone(), v.as_str().unwrap_or_default().to_string()))
                        .collect()
                }),
                initial_prompt: params["prompt"].as_str().map(str::to_string),
            })
            .await
            .map_err(|e| e.to_string())?;
        if !provider::is_known(&created.config.provider)
            && !plugin_provider::is_plugin_provider(self, &created.config.provider)
        {
            return Err(format!("Unknown provider: {}", created.config.provider));
        }
        self.say(format!(
            "agent.create.before → provider {}",
            created.config.provider
        ));
        let id = params["agentId"]
            .as_str()
            .map(str::to_string)
            .unwrap_or_else(|| self.next_id("agent"));
        let labels: BTreeMap<String, String> = params["labels"]
            .as_object()
            .map(|m| {
                m.iter()
                    .map(|(k, v)| (k.clone(), v.as_str().unwrap_or_default().to_string()))
                    .collect()
            })
            .unwrap_or_default();
        let record = AgentRecord {
            id: id.clone(),
            workspace_id,
            provider: created.config.provider.clone(),
            cwd,
            title: created.config.title.clone().flatten(),
            labels,
            config: serde_json::to_value(&created.config).unwrap(),
            created_at: now_iso(),
            archived_at: None,
        };
        self.open_session(
            &record,
            OpenReason::Create,
            created.env.clone().unwrap_or_default(),
        )
        .await?;
        self.state
            .lock()
            .unwrap()
            .agents
            .insert(id.clone(), record.clone());
        self.save();
        self.host.notify::<AgentCreateAfter>(AgentEvent {
            agent: hook_agent(&record),
        });
        self.say(format!("agent {id} created ({})", record.provider));
        if let Some(prompt) = &created.initial_prompt {
            self.send(&id, prompt, None)?;
        }
        Ok(self.agent_view(&id).unwrap())
    }

    /// `agent.open.before`, then the launch: env overrides, plugin tools, MCP servers.
    async fn open_session(
        self: &Arc<Self>,
        agent: &AgentRecord,
        reason: OpenReason,
        env: BTreeMap<String, String>,
    ) -> Result<(), String> {
        let saved: Vec<String> = agent.config["mcpServers"]
            .as_object()
            .map(|m| m.keys().cloned().collect())
            .unwrap_or_default();
        let from_plugin = !provider::is_known(&agent.provider);
        let lacks_mcp = !from_plugin && !provider::supports_mcp(&agent.provider);
        let request = AgentOpenRequest {
            agent_id: agent.id.clone(),
            workspace_id: agent.workspace_id.clone(),
            provider: agent.provider.clone(),
            cwd: agent.cwd.clone(),
            title: agent.title.clone(),
            labels: agent.labels.clone(),
            tools: vec![],
            mcp_servers: BTreeMap::new(),
            reason,
            purpose: if agent.archived_at.is_some() {
                OpenPurpose::History
            } else {
                OpenPurpose::Interactive
            },
            env,
        };
        let ctx = OpenContext {
            paseo_tools: PASEO_TOOLS.iter().map(|s| s.to_string()).collect(),
            saved_mcp_servers: saved,
            provider_lacks_mcp: lacks_mcp,
        };
        let opened = self
            .host
            .before_with::<AgentOpenBefore>(request, &ctx)
            .await
            .map_err(|e| e.to_string())?;
        // Set after the hooks, so hooks cannot override them.
        let mut env = opened.env.clone();
        env.insert("PASEO_AGENT_ID".into(), agent.id.clone());
        env.insert("PASEO_AGENT_CWD".into(), agent.cwd.clone());
        let mut servers = agent.config["mcpServers"]
            .as_object()
            .cloned()
            .unwrap_or_default();
        servers.extend(
            opened
                .mcp_servers
                .iter()
                .map(|(k, v)| (k.clone(), v.clone())),
        );
        if lacks_mcp && !servers.is_empty() {
            return Err(format!(
                "Provider '{}' does not support MCP servers",
                agent.provider
            ));
        }
        let tools: Vec<String> = opened.tools.iter().map(|t| t.name.clone()).collect();
        // Each opening that attaches tools gets a new secret (the old one stops working); one
        // that attaches none leaves the agent's endpoint closed.
        let mcp = self.mcp.lock().unwrap().clone();
        let (tools_url, tools_secret) = match mcp {
            Some(mcp) if !tools.is_empty() && agent.archived_at.is_none() => {
                let secret = mcp
                    .grant(&agent.id)
                    .map_err(|e| format!("Cannot attach plugin tools: {e}"))?;
                (Some(mcp.agent_url(&agent.id)), Some(secret))
            }
            Some(mcp) => {
                mcp.revoke(&agent.id);
                (None, None)
            }
            None => (None, None),
        };
        if let Some(url) = &tools_url {
            // Added after the hooks: plugins never see the agent's secret.
            servers.insert(SERVER_NAME.into(), json!({ "type": "http", "url": url, "headers": { "Authorization": REDACTED_AUTHORIZATION } }));
        }
        let reason_name = serde_json::to_value(reason)
            .unwrap()
            .as_str()
            .unwrap()
            .to_string();
        self.say(format!(
            "agent.open.before ({reason_name}) → env {:?}, tools {:?}{}",
            env.keys().collect::<Vec<_>>(),
            tools,
            tools_url
                .as_ref()
                .map(|u| format!(" served at {u}"))
                .unwrap_or_default()
        ));
        let launch = Launch {
            reason: reason_name,
            env,
            tools,
            mcp_servers: Value::Object(servers),
            tools_url,
            tools_secret,
        };
        // A plugin's provider opens its session with the launch (and fails the opening if it
        // cannot); the built-in ones need nothing more.
        if from_plugin {
            plugin_provider::open(self, agent, &launch).await?;
        }
        let mut live = self.live.lock().unwrap();
        let running = live.get(&agent.id).map(|l| l.running).unwrap_or(false);
        let turn = live.remove(&agent.id).and_then(|l| l.turn);
        live.insert(
            agent.id.clone(),
            LiveAgent {
                launch,
                running,
                turn,
            },
        );
        Ok(())
    }

    /// How many permission requests of the agent are pending.
    fn pending_permissions(&self, agent_id: &str) -> usize {
        self.permissions
            .lock()
            .unwrap()
            .keys()
            .filter(|(a, _)| a == agent_id)
            .count()
    }

    async fn resume_agents(self: &Arc<Self>) {
        let agents: Vec<AgentRecord> = self
            .state
            .lock()
            .unwrap()
            .agents
            .values()
            .filter(|a| a.archived_at.is_none())
            .cloned()
            .collect();
        for agent in agents {
            match self
                .open_session(&agent, OpenReason::Resume, BTreeMap::new())
                .await
            {
                Ok(()) => self.say(format!("agent {} resumed", agent.id)),
                Err(e) => self.say(format!("agent {} could not resume: {e}", agent.id)),
            }
        }
    }

    fn agent_record(&self, id: &str) -> Result<AgentRecord, String> {
        self.state
            .lock()
            .unwrap()
            .agents
            .get(id)
            .cloned()
            .ok_or_else(|| format!("Agent not found: {id}"))
    }

    pub fn agent_view(&self, id: &str) -> Option<Value> {
        let record = self.state.lock().unwrap().agents.get(id).cloned()?;
        let (timeline, timeline_length) = self.store.timeline_tail(id, store::VIEW_TIMELINE_ITEMS);
        let live = self.live.lock().unwrap();
        let launch = live.get(id).map(|l| &l.launch);
        let pending: Vec<Value> = self
            .permissions
            .lock()
            .unwrap()
            .iter()
            .filter(|((a, _), _)| a == id)
            .map(|(_, p)| p.request.clone())
            .collect();
        Some(json!({
            "id": record.id, "workspaceId": record.workspace_id, "parentAgentId": record.labels.get("paseo.parent-agent-id"),
            "provider": record.provider, "cwd": record.cwd, "title": record.title, "labels": record.labels,
            "config": record.config, "archivedAt": record.archived_at,
            "status": if record.archived_at.is_some() { "archived" } else if live.get(id).is_some_and(|l| l.running) { "running" } else if live.contains_key(id) { "idle" } else { "closed" },
            "launch": launch, "pendingPermissions": pending,
            "stale": self.host.stale_sessions().iter().any(|s| s == id),
            // The latest items only (see VIEW_TIMELINE_ITEMS); `timelineLength` counts them all.
            "timeline": timeline, "timelineLength": timeline_length,
        }))
    }

    pub fn agents(&self) -> Vec<Value> {
        let ids: Vec<String> = self.state.lock().unwrap().agents.keys().cloned().collect();
        ids.iter().filter_map(|id| self.agent_view(id)).collect()
    }

    /// Appends to the agent's timeline journal: O(item) however long the history, and on disk
    /// before it returns.
    fn push_timeline(&self, agent: &str, item: Value) {
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
            provider::run_turn(daemon.clone(), record, text, turn).await;
        });
        match live.get_mut(&id) {
            Some(agent) if agent.running => agent.turn = Some((turn_id, task)),
            // Closed meanwhile.
            _ => task.abort(),
        }
        Ok(())
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
    async fn interrupt_turn(
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
    fn resolve_permissions(
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

    /// Reopens the session with `reason: "refresh"`. As in Paseo's daemon (for the user's
    /// reload and `paseo.agents.ref(id).reload()` alike), the running turn is interrupted
    /// first; a plugin reload never comes here and lets the turn run on.
    pub async fn reload_agent(self: &Arc<Self>, agent_id: &str) -> Result<Value, String> {
        let record = self.agent_record(agent_id)?;
        let turn = self
            .live
            .lock()
            .unwrap()
            .get_mut(agent_id)
            .and_then(|a| a.turn.take());
        self.interrupt_turn(&record, turn, Interruption::Reloaded)
            .await;
        self.open_session(&record, OpenReason::Refresh, BTreeMap::new())
            .await?;
        Ok(self.agent_view(agent_id).unwrap())
    }

    /// Closes an open agent's session (`paseo agent close`): its running turn stops, its
    /// pending requests clear, `agent.close.after` fires; the agent stays, and a reload or a
    /// daemon restart opens it again.
    pub async fn close(&self, agent_id: &str) -> Result<Value, String> {
        let record = self.agent_record(agent_id)?;
        if !self.close_agent(&record, Interruption::Closed).await {
            return Err(format!("Agent {agent_id} is not open"));
        }
        Ok(self.agent_view(agent_id).unwrap())
    }

    pub async fn archive_agent(self: &Arc<Self>, agent_id: &str) -> Result<Value, String> {
        let record = {
            let mut state = self.state.lock().unwrap();
            let agent = state
                .agents
                .get_mut(agent_id)
                .ok_or_else(|| format!("Agent not found: {agent_id}"))?;
            if agent.archived_at.is_some() {
                return Ok(json!({ "archivedAt": agent.archived_at }));
            }
            agent.archived_at = Some(now_iso());
            agent.clone()
        };
        self.save();
        self.close_agent(&record, Interruption::Archived).await;
        let archived_at = record.archived_at.clone().unwrap();
        self.host.notify::<AgentArchiveAfter>(AgentArchiveEvent {
            agent: hook_agent(&record),
            archived_at: archived_at.clone(),
        });
        Ok(json!({ "archivedAt": archived_at }))
    }

    /// Closes the live session once: the running turn stops and pending requests clear (told
    /// `why`), then `agent.close.after`, emitted only for a live agent. Returns whether it was.
    async fn close_agent(&self, record: &AgentRecord, why: Interruption) -> bool {
        // Out of `live` first: no new turn starts on a closing session.
        let Some(agent) = self.live.lock().unwrap().remove(&record.id) else {
            return false;
        };
        self.interrupt_turn(record, agent.turn, why).await;
        // The secret dies with the session: the endpoint answers 404 from now on.
        let mcp = self.mcp.lock().unwrap().clone();
        if let Some(mcp) = mcp {
            mcp.revoke(&record.id);
        }
        plugin_provider::close(self, &record.id).await;
        self.host.close_session(&record.id).await;
        self.host.notify::<AgentCloseAfter>(AgentEvent {
            agent: hook_agent(record),
        });
        true
    }

    /// Stops the daemon: pending notifications get up to 5 s, then plugins stop.
    pub async fn shutdown(&self) {
        self.host.shutdown().await;
        // Every change was saved as it was made; this catches one whose write failed.
        self.save();
        self.store.flush_timelines();
        if let Some(mcp) = self.mcp.lock().unwrap().take() {
            if let Ok(mcp) = Arc::try_unwrap(mcp) {
                tokio::spawn(mcp.shutdown());
            }
        }
    }
}

/// The default worktree location with Paseo's existing-path suffix applied: `path` when
/// nothing is there, else the first free one of `<path>-1`, `<path>-2`, …
/// Runs a plugin's `build` commands in its folder, in order and without a shell, reporting
/// progress; each may take 5 minutes.
pub(crate) async fn run_build(
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

fn unused_path(path: PathBuf) -> PathBuf {
    let taken = |p: &Path| p.symlink_metadata().is_ok();
    if !taken(&path) {
        return path;
    }
    (1u64..)
        .map(|n| {
            let mut candidate = path.clone().into_os_string();
            candidate.push(format!("-{n}"));
            PathBuf::from(candidate)
        })
        .find(|p| !taken(p))
        .unwrap()
}

/// Titles are saved and listed: the catalogue's limit applies to what callers send, as it does
/// to what hooks return.
fn check_title(title: Option<&str>) -> Result<(), String> {
    let limit = paseo_plugin_runtime::hooks::validate::MAX_TITLE_CHARS;
    match title.map(|t| t.chars().count()) {
        Some(length) if length > limit => Err(format!(
            "title is {length} characters long; the limit is {limit}"
        )),
        _ => Ok(()),
    }
}

pub fn hook_agent(record: &AgentRecord) -> PluginHookAgent {
    PluginHookAgent {
        id: record.id.clone(),
        workspace_id: record.workspace_id.clone(),
        parent_agent_id: record.labels.get("paseo.parent-agent-id").cloned(),
        provider: record.provider.clone(),
        cwd: record.cwd.clone(),
        title: record.title.clone(),
    }
}

fn hook_workspace(ws: &WorkspaceRecord) -> PluginHookWorkspace {
    PluginHookWorkspace {
        id: ws.id.clone(),
        project_id: ws.project_id.clone(),
        cwd: ws.cwd.clone(),
        name: ws.name.clone(),
        archived_at: ws.archived_at.clone(),
    }
}

impl Sdk {
    fn daemon(&self) -> Result<Arc<Daemon>, SdkError> {
        self.0
            .get()
            .and_then(Weak::upgrade)
            .ok_or_else(|| SdkError::Daemon("The daemon is stopping".into()))
    }
}

fn arg<'v>(args: &'v Value, key: &str) -> Result<&'v str, SdkError> {
    args[key]
        .as_str()
        .ok_or_else(|| SdkError::Daemon(format!("Missing {key}")))
}

impl PaseoDaemon for Sdk {
    fn agents_list<'a>(&'a self, _caller: &'a Caller, _args: Value) -> SdkFuture<'a> {
        Box::pin(async move {
            let d = self.daemon()?;
            let entries: Vec<Value> = d
                .agents()
                .into_iter()
                .map(|a| json!({ "agent": a, "project": null }))
                .collect();
            Ok(json!({ "entries": entries, "pageInfo": { "hasMore": false, "nextCursor": null } }))
        })
    }
    fn agents_get<'a>(&'a self, _caller: &'a Caller, args: Value) -> SdkFuture<'a> {
        Box::pin(async move {
            Ok(self
                .daemon()?
                .agent_view(arg(&args, "agentId")?)
                .map(|a| json!({ "agent": a, "project": null }))
                .unwrap_or(Value::Null))
        })
    }
    fn agents_create<'a>(&'a self, caller: &'a Caller, args: Value) -> SdkFuture<'a> {
        Box::pin(async move {
            let d = self.daemon()?;
            let mut params = json!({ "cwd": args["cwd"], "provider": args["config"]["provider"], "prompt": args["initialPrompt"], "labels": args["labels"], "title": args["title"], "providerOptions": args["config"]["providerOptions"] });
            params["labels"]["paseo.created-by-plugin"] = json!(caller.plugin_id);
            d.create_agent(params).await.map_err(sdk_err)
        })
    }
    fn agents_send<'a>(&'a self, caller: &'a Caller, args: Value) -> SdkFuture<'a> {
        Box::pin(async move {
            let d = self.daemon()?;
            d.send(
                arg(&args, "agentId")?,
                arg(&args, "text")?,
                Some(&caller.plugin_id),
            )
            .map_err(sdk_err)?;
            d.say(format!(
                "plugin {} sent {:?} to {}",
                caller.plugin_id,
                args["text"].as_str().unwrap_or_default(),
                args["agentId"].as_str().unwrap_or_default()
            ));
            Ok(Value::Null)
        })
    }
    fn agents_respond_to_permission<'a>(
        &'a self,
        caller: &'a Caller,
        args: Value,
    ) -> SdkFuture<'a> {
        Box::pin(async move {
            let d = self.daemon()?;
            let mut response = args["response"].clone();
            response["respondedBy"] = json!({ "pluginId": caller.plugin_id });
            d.respond_permission(arg(&args, "agentId")?, arg(&args, "requestId")?, response)
                .map_err(sdk_err)?;
            Ok(Value::Null)
        })
    }
    fn agents_timeline_fetch<'a>(&'a self, _caller: &'a Caller, args: Value) -> SdkFuture<'a> {
        Box::pin(async move {
            let d = self.daemon()?;
            let id = arg(&args, "agentId")?;
            d.agent_record(id).map_err(sdk_err)?;
            Ok(d.store.read_timeline(id, |items| {
                paseo_plugin_runtime::sdk::timeline_page(items, &args["options"], "daemon")
            }))
        })
    }
    fn agents_timeline_append<'a>(&'a self, caller: &'a Caller, args: Value) -> SdkFuture<'a> {
        Box::pin(async move {
            let d = self.daemon()?;
            let id = arg(&args, "agentId")?.to_string();
            d.agent_record(&id).map_err(sdk_err)?;
            let item = args["item"].clone();
            let seq = d
                .store
                .edit_timeline(&id, |items| {
                    paseo_plugin_runtime::sdk::append_plugin_row(items, caller, item)
                })?
                .map_err(sdk_err)?;
            Ok(json!({ "seq": seq, "epoch": "daemon" }))
        })
    }
    fn agents_reload<'a>(&'a self, _caller: &'a Caller, args: Value) -> SdkFuture<'a> {
        Box::pin(async move {
            self.daemon()?
                .reload_agent(arg(&args, "agentId")?)
                .await
                .map(|_| Value::Null)
                .map_err(sdk_err)
        })
    }
    fn agents_archive<'a>(&'a self, _caller: &'a Caller, args: Value) -> SdkFuture<'a> {
        Box::pin(async move {
            self.daemon()?
                .archive_agent(arg(&args, "agentId")?)
                .await
                .map_err(sdk_err)
        })
    }
    fn agents_wait_for_finish<'a>(&'a self, _caller: &'a Caller, args: Value) -> SdkFuture<'a> {
        Box::pin(async move {
            let d = self.daemon()?;
            let id = arg(&args, "agentId")?;
            let timeout =
                std::time::Duration::from_millis(args["timeoutMs"].as_u64().unwrap_or(600_000));
            let finished = d.wait_idle(id, timeout).await;
            Ok(json!({ "status": if finished { "idle" } else { "timeout" } }))
        })
    }
    fn workspaces_list<'a>(&'a self, _caller: &'a Caller, _args: Value) -> SdkFuture<'a> {
        Box::pin(async move {
            // Paseo's PaseoWorkspaceListResult: the entries are the workspaces themselves.
            let entries: Vec<Value> = self
                .daemon()?
                .workspaces()
                .into_iter()
                .map(|w| json!(w))
                .collect();
            Ok(json!({ "entries": entries, "pageInfo": { "hasMore": false, "nextCursor": null } }))
        })
    }
    fn workspaces_create<'a>(&'a self, _caller: &'a Caller, args: Value) -> SdkFuture<'a> {
        Box::pin(async move { self.daemon()?.create_workspace(args).await.map_err(sdk_err) })
    }
    fn workspaces_archive<'a>(&'a self, _caller: &'a Caller, args: Value) -> SdkFuture<'a> {
        Box::pin(async move {
            self.daemon()?
                .archive_workspace(arg(&args, "workspaceId")?)
                .await
                .map_err(sdk_err)
        })
    }
    fn config_get<'a>(&'a self, _caller: &'a Caller, _args: Value) -> SdkFuture<'a> {
        Box::pin(async move {
            Ok(serde_json::to_value(self.daemon()?.config.lock().unwrap().clone()).unwrap())
        })
    }
    fn presence<'a>(&'a self, _caller: &'a Caller, _args: Value) -> SdkFuture<'a> {
        Box::pin(async move { Ok(json!({ "userPresent": false, "clients": [] })) })
    }
}

impl Daemon {
    /// Raises a permission request and waits for its answer (from the CLI or a plugin).
    async fn ask_permission(&self, record: &AgentRecord, request: Value) -> Value {
        let answer = self.raise_permission(record, request);
        // Whoever resolved it has reported it (`resolve_permissions`).
        answer
            .await
            .unwrap_or_else(|_| cleared("The request was cleared"))
    }

    /// Makes a request pending and emits `agent.permission.before`; the answer comes on the
    /// returned channel, and `agent.permission.after` when it goes away, however it does.
    fn raise_permission(&self, record: &AgentRecord, request: Value) -> oneshot::Receiver<Value> {
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
