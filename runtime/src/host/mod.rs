//! `PluginHost`: what a daemon embeds. It loads plugin folders into isolates, keeps their status
//! and logs, and dispatches hooks in the documented order.
//!
//! - `standby`: isolates booted ahead for the next load or reload.
//! - `lifecycle`: a plugin's slot: load, start, stop, reload, remove, shutdown.
//! - `dispatch`: calls into plugins: hooks (and the request chain), notifications held across
//!   reloads, RPC, agent tools, daemon events.
//! - `provide`: calls into what plugins provide (provider connections, forge, usage).
//! - `manifest`: `paseo.plugin.json` and the server entry.
//! - `stats`: what each plugin costs, live (`PluginHost::stats`).
//! - `permissions`: each plugin's policy compiled against its places at load.
//! - `debug`: debuggers attached to inspected plugins (`HostOptions::inspect`).
//! - `record`: hook traffic recorded (`HostOptions::record_dir`) and replayed (`replay_hook`).

mod debug;
mod dispatch;
mod error;
mod lifecycle;
pub mod manifest;
mod permissions;
mod provide;
mod record;
mod standby;
mod stats;

use std::collections::{BTreeMap, HashMap};
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};

use serde::Serialize;

use crate::engine::{EngineConfig, Isolate, Limits, Registrations};
use crate::logs::{LogEntry, LogListener, LogTail};
use crate::sdk::PaseoDaemon;
pub use debug::{DebugTarget, InspectOptions};
pub use error::HostError;
use lifecycle::Slot;
pub use lifecycle::{HELD_NOTIFICATIONS, STOP_DRAIN};
pub use provide::{ProvidedBy, ProvidedKind, UsageCall};
use standby::StandbyPool;
pub use stats::{NotificationStats, PluginStatsReport};

/// The Paseo version this engine implements (`server.addHook` arrived in 0.14).
pub const PASEO_VERSION: &str = "0.14.0";

#[derive(Clone)]
pub struct HostOptions {
    /// The daemon's Paseo version, checked against `requirements.paseo`; `None` if unknown.
    pub paseo_version: Option<String>,
    /// Where host-provided npm packages (zod) are installed: the folder holding `node_modules`.
    pub host_js_dir: PathBuf,
    /// Default limits for every plugin.
    pub limits: Limits,
    /// Sees every plugin log line as it is written.
    pub log_listener: Option<LogListener>,
    /// Where QuickJS may keep compiled bytecode between runs (the daemon's home, e.g.
    /// `$PASEO_HOME/cache/quickjs-bytecode`). `None` disables the cache, so nothing is
    /// written outside the daemon's home by accident and tests never depend on its state.
    /// The engine reads this once per process: the first host created decides.
    pub bytecode_cache_dir: Option<PathBuf>,
    /// Where the V8 build keeps the isolates' startup snapshot between runs (the daemon's home,
    /// e.g. `$PASEO_HOME/cache/v8-snapshot`), so that only the first process after an install
    /// or upgrade makes it; `None`: each process makes it in memory. Read once per process, as
    /// the bytecode cache's folder. Unused on QuickJS.
    pub snapshot_cache_dir: Option<PathBuf>,
    /// What plugins reach through `context.paseo`; `None`: every member rejects naming itself.
    pub daemon: Option<Arc<dyn PaseoDaemon>>,
    /// Base folder of plugin settings and secrets (`<dir>/<plugin id>/`); `None`: unavailable.
    pub settings_dir: Option<PathBuf>,
    /// Keep isolates booted ahead (engine and host JS, no plugin) for the next load or reload,
    /// which then skips the engine's start-up: one plain, and one with zod evaluated for plugins
    /// that import it. Costs two idle isolates' memory and a background boot after each load.
    /// The daemon turns it on; off by default, so that an embedder or a test runs nothing it
    /// did not ask for.
    pub standby: bool,
    /// How long an isolate's thread keeps looking for its next call, and a caller for its
    /// answer, before sleeping (`engine::SPIN`, 100 µs, by default): a sleeping thread costs a
    /// wake-up to reach, 20 to 80 µs on a virtual machine. Each call then costs up to this much
    /// CPU more; zero never spins (battery-powered or heavily shared machines).
    pub spin: std::time::Duration,
    /// Where every hook call each plugin receives, and its answer, is recorded as JSON lines
    /// (`<dir>/<plugin id>.jsonl`, `engine::recorder`); `None`: nothing is recorded.
    pub record_dir: Option<PathBuf>,
    /// Each plugin's permission policy, asked at every load and reload (the daemon answers from
    /// `plugins.<id>.permissions` in config.json); `None`, or no policy for a plugin: the
    /// owner's rights, as on Paseo's Node host.
    pub permissions: Option<PolicyLookup>,
    /// The daemon's current workspaces' directories, for `$WORKSPACES` in policies.
    pub workspaces: Option<Arc<dyn Fn() -> Vec<PathBuf> + Send + Sync>>,
    /// Plugins a debugger may attach to (`debug_targets`, `debug_connect`): their isolates boot
    /// fresh with V8's inspector, and the time a debugger holds one is not counted against its
    /// deadlines. V8 only.
    pub inspect: Option<InspectOptions>,
    /// Whether an agent provider ID is the daemon's own: `Some("builtin")` or
    /// `Some("configured")` refuses a plugin registering it (`Plugin <id> cannot register
    /// builtin provider ID "<provider>"`).
    pub reserved_provider: Option<ReservedProvider>,
}

/// See `HostOptions::reserved_provider`.
pub type ReservedProvider = Arc<dyn Fn(&str) -> Option<&'static str> + Send + Sync>;

/// The policy of a plugin, by its ID (`HostOptions::permissions`).
/// A policy that cannot be read is an error naming why; the plugin then does not load.
pub type PolicyLookup =
    Arc<dyn Fn(&str) -> Option<Result<crate::permissions::Policy, String>> + Send + Sync>;

impl Default for HostOptions {
    fn default() -> Self {
        HostOptions {
            paseo_version: Some(PASEO_VERSION.into()),
            host_js_dir: default_host_js_dir(),
            limits: Limits::default(),
            log_listener: None,
            bytecode_cache_dir: None,
            snapshot_cache_dir: None,
            daemon: None,
            settings_dir: None,
            standby: false,
            spin: crate::engine::SPIN,
            record_dir: None,
            permissions: None,
            workspaces: None,
            inspect: None,
            reserved_provider: None,
        }
    }
}

/// `PASEO_HOST_JS_DIR`, else the `js/` folder of this source tree (set up by `npm ci`).
pub fn default_host_js_dir() -> PathBuf {
    std::env::var_os("PASEO_HOST_JS_DIR")
        .map(PathBuf::from)
        .unwrap_or_else(|| Path::new(env!("CARGO_MANIFEST_DIR")).join("../js"))
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum PluginStatus {
    Running,
    Disabled,
    Failed,
}

#[derive(Debug, Clone, Serialize)]
pub struct PluginInfo {
    pub id: String,
    pub directory: PathBuf,
    pub description: Option<String>,
    pub status: PluginStatus,
    pub error: Option<String>,
    pub registrations: Registrations,
}

pub struct PluginHost {
    options: HostOptions,
    slots: Mutex<BTreeMap<String, Slot>>,
    logs: Mutex<HashMap<String, Arc<LogTail>>>,
    /// What each plugin's calls cost, by plugin ID (`stats`), across reloads.
    stats: Mutex<HashMap<String, Arc<crate::engine::PluginStats>>>,
    /// Each plugin's recorder while hook calls are recorded (`HostOptions::record_dir`).
    recorders: Mutex<HashMap<String, Option<Arc<crate::engine::recorder::Recorder>>>>,
    /// Each inspected plugin's debug port (`HostOptions::inspect`), across reloads.
    debug_ports: Mutex<HashMap<String, Arc<crate::engine::debugger::DebugPort>>>,
    /// Notifications fired with `notify` and not finished yet (drained at shutdown).
    in_flight: Arc<InFlight>,
    /// Open agent sessions and the plugin tools attached to them.
    pub(crate) sessions: crate::tools::Sessions,
    /// The isolates booted ahead for the next plugins (`HostOptions::standby`).
    standbys: StandbyPool,
}

/// Notifications queued and not settled yet.
#[derive(Default)]
pub(crate) struct InFlight {
    count: std::sync::atomic::AtomicUsize,
    idle: tokio::sync::Notify,
}

impl InFlight {
    pub(crate) fn start(&self) {
        self.count.fetch_add(1, std::sync::atomic::Ordering::SeqCst);
    }

    pub(crate) fn finish(&self) {
        if self.count.fetch_sub(1, std::sync::atomic::Ordering::SeqCst) == 1 {
            self.idle.notify_waiters();
        }
    }

    fn is_idle(&self) -> bool {
        self.count.load(std::sync::atomic::Ordering::SeqCst) == 0
    }
}

/// How long `shutdown` lets pending notifications finish before stopping plugins.
pub const NOTIFICATION_DRAIN: std::time::Duration = std::time::Duration::from_secs(5);

impl PluginHost {
    pub fn new(options: HostOptions) -> Self {
        crate::engine::bytecode_cache::configure(options.bytecode_cache_dir.as_deref());
        crate::engine::snapshot::configure_cache(options.snapshot_cache_dir.as_deref());
        let daemon = options
            .daemon
            .clone()
            .unwrap_or_else(|| Arc::new(crate::sdk::NoDaemon));
        // SDK calls from plugins run on the runtime the host was created on.
        let runtime = tokio::runtime::Handle::try_current().ok();
        let engine = EngineConfig {
            host_js_dir: options.host_js_dir.clone(),
            heap_bytes: options.limits.heap_bytes,
            extensions: Arc::new(move || {
                let mut extensions = crate::node::extensions();
                extensions.push(crate::sdk::ops::paseo_sdk::init(
                    daemon.clone(),
                    runtime.clone(),
                ));
                extensions.push(crate::providers::icon::paseo_provide::init());
                extensions
            }),
            preload: Vec::new(),
            spin: options.spin,
            inspector: false,
        };
        PluginHost {
            standbys: StandbyPool::new(engine, options.standby),
            options,
            slots: Mutex::default(),
            logs: Mutex::default(),
            stats: Mutex::default(),
            recorders: Mutex::default(),
            debug_ports: Mutex::default(),
            in_flight: Arc::default(),
            sessions: Default::default(),
        }
    }

    /// Resolves once the standby isolates (if the host keeps them) have booted.
    pub async fn standby_ready(&self) {
        self.standbys.booted().await;
    }

    /// The standby isolates held now, each as the host-package modules it evaluated ahead.
    pub fn standbys(&self) -> Vec<Vec<String>> {
        self.standbys.list()
    }

    fn log_tail(&self, id: &str) -> Arc<LogTail> {
        self.logs
            .lock()
            .unwrap()
            .entry(id.to_string())
            .or_insert_with(|| Arc::new(LogTail::new(id, self.options.log_listener.clone())))
            .clone()
    }

    /// Writes a line into plugin `id`'s log, as the host's own lines are (`[paseo] …`): for
    /// what the embedder refuses a plugin (a quota, say).
    pub fn log(&self, id: &str, line: &str) {
        self.log_tail(id)
            .write(crate::logs::Stream::Stderr, &format!("[paseo] {line}"));
    }

    /// The size of a running plugin's JS heap in bytes.
    pub async fn heap_size(&self, id: &str) -> Option<usize> {
        let isolate = self.isolate(id)?;
        isolate.heap_size().await
    }

    pub fn plugins(&self) -> Vec<PluginInfo> {
        self.slots
            .lock()
            .unwrap()
            .iter()
            .map(|(id, slot)| {
                let (status, error) = match (&slot.isolate, &slot.error) {
                    (Some(iso), _) => match iso.shared.fatal.lock().unwrap().clone() {
                        Some(reason) => (PluginStatus::Failed, Some(reason)),
                        None => (PluginStatus::Running, None),
                    },
                    (None, Some(e)) => (PluginStatus::Failed, Some(e.clone())),
                    (None, None)
                        if slot.directory.join("index.server.ts").exists()
                            || slot.directory.join("index.server.tsx").exists() =>
                    {
                        (PluginStatus::Disabled, None)
                    }
                    (None, None) => (PluginStatus::Running, None),
                };
                PluginInfo {
                    id: id.clone(),
                    directory: slot.directory.clone(),
                    description: slot.description.clone(),
                    status,
                    error,
                    registrations: slot
                        .isolate
                        .as_ref()
                        .map(|i| i.shared.registrations.lock().unwrap().clone())
                        .unwrap_or_default(),
                }
            })
            .collect()
    }

    pub fn plugin(&self, id: &str) -> Option<PluginInfo> {
        self.plugins().into_iter().find(|p| p.id == id)
    }

    pub fn logs(&self, id: &str) -> Vec<LogEntry> {
        self.logs
            .lock()
            .unwrap()
            .get(id)
            .map(|t| t.entries())
            .unwrap_or_default()
    }

    /// The live isolate of a running plugin, with the plugin's limits.
    pub(crate) fn running(&self, id: &str) -> Option<(Arc<Isolate>, Limits)> {
        let slots = self.slots.lock().unwrap();
        let slot = slots.get(id)?;
        Some((slot.isolate.clone()?, slot.limits.clone()))
    }

    /// The live isolate of a running plugin.
    pub(crate) fn isolate(&self, id: &str) -> Option<Arc<Isolate>> {
        self.slots
            .lock()
            .unwrap()
            .get(id)
            .and_then(|s| s.isolate.clone())
    }
}
