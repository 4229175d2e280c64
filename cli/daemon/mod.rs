//! The reference daemon: a small but real Paseo daemon around the engine. It keeps agents and
//! workspaces in `$PASEO_HOME`, creates real git worktrees, runs a built-in scripted agent
//! provider so every hook fires at its documented point without an LLM, serves plugin tools over
//! MCP, implements `context.paseo` for plugins, and answers the CLI on a Unix socket.
//!
//! Each job is an `impl Daemon` of its own: `plugins` (the configured plugins), `install`
//! (installs and updates, from a directory or a managed source), `workspaces`, `agents`,
//! `turns`, `permissions`, `provided` (what plugins provide), `sdk` (`context.paseo`); the
//! types they share are in `model`, the agent providers in `providers`. `control` answers the
//! CLI on the Unix socket, `metrics` serves the plugins' stats to Prometheus.

mod agents;
pub mod control;
pub mod home;
pub mod inspector;
mod install;
mod method;
pub mod metrics;
mod model;
mod permissions;
mod plugins;
mod policies;
mod provided;
mod providers;
mod quotas;
mod sdk;
pub mod store;
mod turns;
mod workspaces;

use std::collections::HashMap;
use std::path::PathBuf;
use std::sync::{Arc, Mutex, OnceLock};

use paseo_plugin_runtime::logs::LogEntry;
use paseo_plugin_runtime::{HostOptions, PluginHost};
use tokio::sync::broadcast;

use install::sources;
use model::{LiveAgent, PendingPermission};
use sdk::Sdk;
use store::{Config, State, Store};

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
    plugin_sessions: Mutex<HashMap<String, Arc<providers::plugin::Session>>>,
    /// Why a configured plugin that never got a host slot failed (its requirements, build or
    /// load at install), for `plugin ls` until it starts or is removed.
    install_errors: Mutex<HashMap<String, String>>,
    /// Policies of plugins being installed with `--sandbox`, until their config entry is
    /// written (`policies::policy_lookup` reads them).
    pending_policies: Mutex<HashMap<String, serde_json::Value>>,
    /// What each plugin wrote through the SDK in the last minute, per agent (`quotas`).
    quota_meter: quotas::Meter,
    /// The debugger's server, with `--inspect`.
    pub inspector: Mutex<Option<Arc<inspector::Inspector>>>,
    /// Exclusive ownership of `$PASEO_HOME` for as long as the daemon lives.
    _home_lock: home::HomeLock,
}

/// How a daemon is started beyond its home (`paseo daemon`'s flags).
#[derive(Default)]
pub struct Startup {
    /// `--record DIR`: every hook call each plugin receives, and its answer, as JSON lines in
    /// `DIR/<plugin id>.jsonl`, for `paseo hook replay`.
    pub record_dir: Option<PathBuf>,
    /// `--inspect`: where the inspector listens, and which plugins it serves.
    pub inspect: Option<(std::net::SocketAddr, paseo_plugin_runtime::InspectOptions)>,
}

impl Daemon {
    pub async fn start(home: PathBuf) -> Result<Arc<Daemon>, String> {
        Self::start_with(home, Startup::default()).await
    }

    pub async fn start_with(home: PathBuf, startup: Startup) -> Result<Arc<Daemon>, String> {
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
        // The host asks the daemon for policies and workspaces, once the daemon exists.
        let later: policies::Later = Arc::default();
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
            record_dir: startup.record_dir,
            permissions: Some(policies::policy_lookup(later.clone())),
            workspaces: Some(policies::workspace_dirs(later.clone())),
            inspect: startup.inspect.as_ref().map(|(_, options)| options.clone()),
            reserved_provider: Some(Arc::new(|id: &str| {
                providers::scripted::is_known(id).then_some("builtin")
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
            inspector: Mutex::default(),
            pending_policies: Mutex::default(),
            quota_meter: quotas::Meter::default(),
            _home_lock: home_lock,
        });
        let _ = sdk.0.set(Arc::downgrade(&daemon));
        let _ = later.set(Arc::downgrade(&daemon));
        let mcp = paseo_plugin_runtime::tools::mcp::McpServer::start(
            daemon.host.clone(),
            "127.0.0.1:0".parse().unwrap(),
        )
        .await
        .map_err(|e| format!("Cannot start the MCP server: {e}"))?;
        *daemon.mcp.lock().unwrap() = Some(Arc::new(mcp));
        if let Some((addr, options)) = &startup.inspect {
            // Listening, and said where, before a plugin loads: with --inspect-brk each waits.
            let inspector = inspector::Inspector::serve(daemon.host.clone(), *addr).await?;
            let ids: Vec<String> = match &options.plugins {
                Some(ids) => ids.clone(),
                None => daemon.configured_ids(),
            };
            inspector.announce(Some(&ids));
            *daemon.inspector.lock().unwrap() = Some(inspector);
        }
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
