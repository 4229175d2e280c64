//! `PluginHost`: what a daemon embeds. It loads plugin folders into isolates, keeps their status
//! and logs, and dispatches hooks in the documented order.

pub mod logs;
pub mod manifest;

use std::collections::{BTreeMap, HashMap};
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};

use deno_core::ModuleSpecifier;
use serde::Serialize;
use serde_json::Value;

use crate::engine::{
    Binding, CallError, CallKind, EngineConfig, Isolate, Limits, PluginShared, Registrations,
    Standby,
};
use crate::hooks::types::AgentOpenBefore;
use crate::hooks::types::{EventHook, RequestHook};
use crate::hooks::{self, HookError};
use crate::sdk::PaseoDaemon;
use logs::{LogEntry, LogListener, LogTail, Stream};
use manifest::Manifest;

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
}

impl Default for HostOptions {
    fn default() -> Self {
        HostOptions {
            paseo_version: Some(PASEO_VERSION.into()),
            host_js_dir: default_host_js_dir(),
            limits: Limits::default(),
            log_listener: None,
            bytecode_cache_dir: None,
            daemon: None,
            settings_dir: None,
            standby: false,
            spin: crate::engine::SPIN,
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

struct Slot {
    /// RPC methods as frozen when the plugin became ready.
    rpc_methods: Vec<String>,
    directory: PathBuf,
    description: Option<String>,
    limits: Limits,
    isolate: Option<Arc<Isolate>>,
    error: Option<String>,
    /// Host-provided packages the plugin's code imported when it last loaded.
    host_packages: Option<Vec<ModuleSpecifier>>,
    /// Set while the plugin reloads; turns `true` once its new isolate is up (or failed).
    restarting: Option<tokio::sync::watch::Receiver<bool>>,
    /// Notifications emitted while the plugin reloads, in order, for its new isolate.
    held: Vec<Held>,
}

/// A notification kept for a reloading plugin: (hook, event as JSON).
type Held = (&'static str, Arc<str>);

/// At most this many notifications are kept for one reloading plugin; later ones are dropped
/// with a log line (a reload lasts milliseconds, or at most its stop and load timeouts).
pub const HELD_NOTIFICATIONS: usize = 10_000;

impl Slot {
    /// The slot's running isolate, if it is healthy and currently registers `hook`.
    fn subscriber(&self, hook: &str) -> Option<&Arc<Isolate>> {
        let iso = self
            .isolate
            .as_ref()
            .filter(|i| i.is_alive() && i.shared.fatal.lock().unwrap().is_none())?;
        iso.shared
            .registrations
            .lock()
            .unwrap()
            .has_hook(hook)
            .then_some(iso)
    }

    /// Queues a notification on the slot's isolate if it subscribes to `hook`: the hook, the
    /// isolate and the outcome to await (`log_notification_failures`).
    fn notify(
        &self,
        hook: &'static str,
        payload: &str,
    ) -> Option<(
        &'static str,
        Arc<Isolate>,
        impl std::future::Future<Output = Result<String, CallError>> + Send + 'static,
    )> {
        let iso = self.subscriber(hook)?;
        let outcome = iso.send(
            CallKind::Hook {
                hook: hook.to_string(),
                input: payload.to_string(),
            },
            self.limits.hook_timeout,
        );
        Some((hook, iso.clone(), outcome))
    }
}

/// Per-open facts the daemon supplies to `agent.open.before`.
#[derive(Debug, Clone, Default)]
pub struct OpenContext {
    /// Names of Paseo's own tools for this agent.
    pub paseo_tools: Vec<String>,
    /// Names of MCP servers saved in the agent's configuration.
    pub saved_mcp_servers: Vec<String>,
    /// False when the provider cannot take MCP servers.
    pub provider_lacks_mcp: bool,
}

pub struct PluginHost {
    options: HostOptions,
    slots: Mutex<BTreeMap<String, Slot>>,
    logs: Mutex<HashMap<String, Arc<LogTail>>>,
    /// Notifications fired with `notify` and not finished yet (drained at shutdown).
    in_flight: Arc<InFlight>,
    /// The runtime the host was created on; SDK calls from plugins run there.
    runtime: Option<tokio::runtime::Handle>,
    /// Open agent sessions and the plugin tools attached to them.
    pub(crate) sessions: crate::tools::Sessions,
    /// The isolates booted ahead for the next plugins (`HostOptions::standby`), one per kind.
    standbys: Mutex<Vec<Standby>>,
    /// The kinds of standby kept, by the host-package modules each evaluates ahead: none, and
    /// zod's entry when zod is installed.
    standby_kinds: Vec<Vec<ModuleSpecifier>>,
}

#[derive(Default)]
struct InFlight {
    count: std::sync::atomic::AtomicUsize,
    idle: tokio::sync::Notify,
}

/// How long a stop lets the calls already running in the plugin finish (capped by the plugin's
/// hook timeout) before its cleanup runs and the rest fail with `Plugin stopped: <id>`.
pub const STOP_DRAIN: std::time::Duration = std::time::Duration::from_secs(1);

/// How long `shutdown` lets pending notifications finish before stopping plugins.
pub const NOTIFICATION_DRAIN: std::time::Duration = std::time::Duration::from_secs(5);

impl PluginHost {
    pub fn new(options: HostOptions) -> Self {
        configure_bytecode_cache(options.bytecode_cache_dir.as_deref());
        let mut host = PluginHost {
            options,
            slots: Mutex::default(),
            logs: Mutex::default(),
            in_flight: Arc::default(),
            runtime: tokio::runtime::Handle::try_current().ok(),
            sessions: Default::default(),
            standbys: Mutex::default(),
            standby_kinds: Vec::new(),
        };
        if host.options.standby {
            let loader = crate::engine::modules::PluginModuleLoader::new(
                PathBuf::new(),
                host.options.host_js_dir.clone(),
            );
            let zod = loader
                .resolve_specifier("zod", "paseo:internal/preload", true)
                .ok();
            host.standby_kinds = std::iter::once(Vec::new())
                .chain(zod.map(|url| vec![url]))
                .collect();
        }
        host.refill_standby();
        host
    }

    fn engine_config(&self, heap_bytes: usize) -> EngineConfig {
        EngineConfig {
            host_js_dir: self.options.host_js_dir.clone(),
            heap_bytes,
            daemon: self
                .options
                .daemon
                .clone()
                .unwrap_or_else(|| Arc::new(crate::sdk::NoDaemon)),
            runtime: self.runtime.clone(),
            preload: Vec::new(),
            spin: self.options.spin,
        }
    }

    /// Boots a standby of every kind the host keeps and has none of.
    fn refill_standby(&self) {
        let mut standbys = self.standbys.lock().unwrap();
        for kind in &self.standby_kinds {
            if !standbys.iter().any(|s| s.preload() == kind.as_slice()) {
                let engine = EngineConfig {
                    preload: kind.clone(),
                    ..self.engine_config(self.options.limits.heap_bytes)
                };
                standbys.push(Standby::spawn(engine));
            }
        }
    }

    /// An isolate for this plugin: the standby with the plugin's heap cap (fixed when an
    /// isolate is created) whose host packages are the ones the plugin wants, else the plain
    /// one (the plugin then imports its packages itself), else a fresh isolate.
    fn isolate_for(&self, binding: Binding, wants: &[ModuleSpecifier]) -> Isolate {
        let heap = binding.limits.heap_bytes;
        let standby = {
            let mut standbys = self.standbys.lock().unwrap();
            let pick = |packages: &[ModuleSpecifier]| {
                standbys
                    .iter()
                    .position(|s| s.heap_bytes() == heap && s.preload() == packages)
            };
            pick(wants)
                .or_else(|| pick(&[]))
                .map(|i| standbys.swap_remove(i))
        };
        standby
            .unwrap_or_else(|| Standby::spawn(self.engine_config(heap)))
            .bind(binding)
    }

    /// Resolves once the standby isolates (if the host keeps them) have booted.
    pub async fn standby_ready(&self) {
        let signals: Vec<_> = self
            .standbys
            .lock()
            .unwrap()
            .iter()
            .map(|s| s.ready_signal())
            .collect();
        futures::future::join_all(signals).await;
    }

    /// The standby isolates held now, each as the host-package modules it evaluated ahead.
    pub fn standbys(&self) -> Vec<Vec<String>> {
        self.standbys
            .lock()
            .unwrap()
            .iter()
            .map(|s| s.preload().iter().map(|u| u.to_string()).collect())
            .collect()
    }

    fn log_tail(&self, id: &str) -> Arc<LogTail> {
        self.logs
            .lock()
            .unwrap()
            .entry(id.to_string())
            .or_insert_with(|| Arc::new(LogTail::new(id, self.options.log_listener.clone())))
            .clone()
    }

    /// Loads the plugin in `dir` under its manifest ID.
    pub async fn load(&self, dir: &Path) -> Result<String, String> {
        self.load_with(dir, None, None).await
    }

    /// Loads a plugin, optionally under another ID (as `paseo plugin install --id`) and with
    /// its own limits. The plugin is listed even when it fails, with its error.
    pub async fn load_with(
        &self,
        dir: &Path,
        id: Option<&str>,
        limits: Option<Limits>,
    ) -> Result<String, String> {
        let directory = dir
            .canonicalize()
            .map_err(|_| format!("Plugin directory not found: {}", dir.display()))?;
        let manifest = Manifest::read(&directory)?;
        let id = match id {
            Some(id) => {
                manifest::check_plugin_id(id)?;
                id.to_string()
            }
            None => manifest.id.clone(),
        };
        {
            let mut slots = self.slots.lock().unwrap();
            if slots.contains_key(&id) {
                return Err(format!(
                    "Plugin ID \"{id}\" is already configured; choose another ID with --id"
                ));
            }
            slots.insert(
                id.clone(),
                Slot {
                    rpc_methods: Vec::new(),
                    directory: directory.clone(),
                    description: manifest.description.clone(),
                    limits: limits.unwrap_or_else(|| self.options.limits.clone()),
                    isolate: None,
                    error: None,
                    host_packages: None,
                    restarting: None,
                    held: Vec::new(),
                },
            );
        }
        self.start(&id, Some(manifest)).await.map(|_| id)
    }

    /// Starts the plugin of an existing slot; records the outcome in the slot.
    async fn start(&self, id: &str, manifest: Option<Manifest>) -> Result<(), String> {
        let (directory, limits) = {
            let slots = self.slots.lock().unwrap();
            let slot = slots
                .get(id)
                .ok_or_else(|| format!("Plugin is not configured: {id}"))?;
            (slot.directory.clone(), slot.limits.clone())
        };
        let logs = self.log_tail(id);
        logs.write(Stream::Stdout, "[paseo] Loading plugin");
        let outcome = self
            .boot(id, &directory, manifest, limits, logs.clone())
            .await;
        if outcome.as_ref().is_ok_and(|iso| {
            iso.as_ref().is_some_and(|i| {
                i.shared
                    .registrations
                    .lock()
                    .unwrap()
                    .has_hook(AgentOpenBefore::NAME)
            })
        }) {
            self.sessions.mark_all_stale();
        }
        let mut slots = self.slots.lock().unwrap();
        let slot = slots
            .get_mut(id)
            .ok_or_else(|| format!("Plugin is not configured: {id}"))?;
        match outcome {
            Ok(isolate) => {
                logs.write(Stream::Stdout, "[paseo] Plugin ready");
                slot.rpc_methods = isolate
                    .as_ref()
                    .map(|i| i.shared.registrations.lock().unwrap().rpc.clone())
                    .unwrap_or_default();
                slot.rpc_methods.sort();
                slot.isolate = isolate.map(Arc::new);
                slot.error = None;
                Ok(())
            }
            Err(error) => {
                logs.write(
                    Stream::Stderr,
                    &format!("[paseo] Plugin failed to load: {error}"),
                );
                slot.isolate = None;
                slot.error = Some(error.clone());
                Err(error)
            }
        }
    }

    async fn boot(
        &self,
        id: &str,
        directory: &Path,
        manifest: Option<Manifest>,
        limits: Limits,
        logs: Arc<LogTail>,
    ) -> Result<Option<Isolate>, String> {
        let manifest = match manifest {
            Some(m) => m,
            None => Manifest::read(directory)?,
        };
        manifest.check_requirements(id, self.options.paseo_version.as_deref())?;
        let Some(entry) = manifest::find_server_entry(directory)? else {
            return Ok(None); // client-only plugin: nothing runs on the daemon
        };
        let shared = Arc::new(PluginShared::new(id, directory.to_path_buf(), logs));
        let load_timeout = limits.load_timeout;
        let entry_path = entry;
        let entry = ModuleSpecifier::from_file_path(&entry_path)
            .map_err(|_| "Invalid entry path".to_string())?;
        let storage_dir = self.options.settings_dir.as_ref().map(|d| d.join(id));
        // Which standby suits the plugin: what it imported last time, else what its sources say.
        let known = self
            .slots
            .lock()
            .unwrap()
            .get(id)
            .and_then(|s| s.host_packages.clone());
        let wants = known.unwrap_or_else(|| {
            let hint = !self.standby_kinds.is_empty()
                && crate::engine::modules::mentions_host_package(directory, &entry_path);
            self.standby_kinds
                .iter()
                .find(|k| !k.is_empty() && hint)
                .cloned()
                .unwrap_or_default()
        });
        let isolate = self.isolate_for(
            Binding {
                shared,
                limits,
                storage_dir,
            },
            &wants,
        );
        let loaded = isolate.call(CallKind::Load { entry }, load_timeout).await;
        if loaded.is_ok() {
            let packages = isolate
                .shared
                .host_packages
                .lock()
                .unwrap()
                .iter()
                .cloned()
                .collect();
            if let Some(slot) = self.slots.lock().unwrap().get_mut(id) {
                slot.host_packages = Some(packages);
            }
        }
        // The next standby boots after this load, not alongside it.
        self.refill_standby();
        match loaded {
            Ok(_) => Ok(Some(isolate)),
            Err(e) => {
                let message = match e {
                    CallError::Failed(m) | CallError::Stopped(m) => m,
                    CallError::TimedOut => format!("Plugin {id} did not initialize"),
                    CallError::Cancelled => format!("Plugin {id} loading was cancelled"),
                };
                Self::stop_isolate(isolate).await;
                Err(message)
            }
        }
    }

    async fn stop_isolate(isolate: Isolate) {
        let timeout = std::time::Duration::from_secs(2);
        let _ = isolate.call(CallKind::Stop, timeout).await;
        let _ = tokio::task::spawn_blocking(move || isolate.join()).await;
    }

    /// Runs the plugin's cleanup, drops its registrations and its isolate. The slot and the
    /// log tail stay (the plugin is then `disabled`).
    pub async fn stop(&self, id: &str) -> Result<(), String> {
        let (isolate, limits) = {
            let mut slots = self.slots.lock().unwrap();
            let slot = slots
                .get_mut(id)
                .ok_or_else(|| format!("Plugin is not configured: {id}"))?;
            (slot.isolate.take(), slot.limits.clone())
        };
        if let Some(isolate) = isolate {
            if isolate
                .shared
                .registrations
                .lock()
                .unwrap()
                .has_hook(AgentOpenBefore::NAME)
            {
                self.sessions.mark_all_stale();
            }
            let logs = self.log_tail(id);
            logs.write(Stream::Stdout, "[paseo] Stopping plugin");
            // Calls already running finish first: each holds a clone of the isolate, and no new
            // call can get one now that the slot is empty.
            let drain_until = tokio::time::Instant::now() + STOP_DRAIN.min(limits.hook_timeout);
            while Arc::strong_count(&isolate) > 1 && tokio::time::Instant::now() < drain_until {
                tokio::time::sleep(std::time::Duration::from_millis(1)).await;
            }
            // Calls in flight hold clones; the last one ends with the actor.
            match Arc::try_unwrap(isolate) {
                Ok(isolate) => Self::stop_isolate(isolate).await,
                Err(shared) => {
                    let _ = shared
                        .call(CallKind::Stop, std::time::Duration::from_secs(2))
                        .await;
                }
            }
            logs.write(Stream::Stdout, "[paseo] Plugin stopped");
        }
        Ok(())
    }

    /// Stop, then start again from the current source. A failed reload leaves the plugin
    /// `failed`; the previous code is not restored. Calls running in the old isolate finish
    /// there (`STOP_DRAIN`); waiting hooks and RPC calls made meanwhile wait for the new one.
    pub async fn reload(&self, id: &str) -> Result<(), String> {
        let (done, restarting) = tokio::sync::watch::channel(false);
        self.slots
            .lock()
            .unwrap()
            .get_mut(id)
            .ok_or_else(|| format!("Plugin is not configured: {id}"))?
            .restarting = Some(restarting);
        let result = async {
            self.stop(id).await?;
            self.start(id, None).await
        }
        .await;
        // Under the lock that `notify_json` queues under, so that nothing emitted later
        // overtakes what was held.
        let delivered = self.slots.lock().unwrap().get_mut(id).map(|slot| {
            slot.restarting = None;
            let held = std::mem::take(&mut slot.held);
            held.into_iter()
                .filter_map(|(hook, payload)| slot.notify(hook, &payload))
                .collect::<Vec<_>>()
        });
        let _ = done.send(true);
        if let Some(calls) = delivered.filter(|c| !c.is_empty()) {
            self.log_notification_failures(calls);
        }
        result
    }

    /// Waits for the reloads in progress (of plugin `id`, or of any plugin), each at most as
    /// long as a stop and a load may take.
    async fn wait_for_restarts(&self, id: Option<&str>) {
        let restarting: Vec<_> = self
            .slots
            .lock()
            .unwrap()
            .iter()
            .filter(|(slot_id, _)| id.is_none_or(|id| id == slot_id.as_str()))
            .filter_map(|(_, slot)| Some((slot.restarting.clone()?, slot.limits.clone())))
            .collect();
        for (mut done, limits) in restarting {
            let bound = STOP_DRAIN + limits.stop_timeout + limits.load_timeout;
            let _ = tokio::time::timeout(bound, done.wait_for(|d| *d)).await;
        }
    }

    /// Stops the plugin and forgets it, its status and its log tail.
    pub async fn remove(&self, id: &str) -> Result<(), String> {
        self.stop(id).await?;
        self.slots.lock().unwrap().remove(id);
        self.logs.lock().unwrap().remove(id);
        Ok(())
    }

    /// Gives pending notifications up to 5 s to finish, then stops every plugin.
    pub async fn shutdown(&self) {
        let drained = async {
            loop {
                let idle = self.in_flight.idle.notified();
                if self
                    .in_flight
                    .count
                    .load(std::sync::atomic::Ordering::SeqCst)
                    == 0
                {
                    return;
                }
                idle.await;
            }
        };
        let _ = tokio::time::timeout(NOTIFICATION_DRAIN, drained).await;
        let ids: Vec<String> = self.slots.lock().unwrap().keys().cloned().collect();
        for id in ids {
            let _ = self.stop(&id).await;
        }
        let standbys = std::mem::take(&mut *self.standbys.lock().unwrap());
        if !standbys.is_empty() {
            let _ =
                tokio::task::spawn_blocking(move || standbys.into_iter().for_each(Standby::join))
                    .await;
        }
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

    /// Plugins (in ID order) whose current registrations include `hook`.
    fn subscribers(&self, hook: &str) -> Vec<(String, Arc<Isolate>, Limits)> {
        self.slots
            .lock()
            .unwrap()
            .iter()
            .filter_map(|(id, slot)| {
                slot.subscriber(hook)
                    .map(|iso| (id.clone(), iso.clone(), slot.limits.clone()))
            })
            .collect()
    }

    /// Dispatches a hook by name with a JSON payload (the request of waiting request hooks,
    /// the event otherwise). Waiting hooks return the final request (`null` for
    /// `worktree.create.after`); notifications return `null` once every handler has finished.
    pub async fn run_hook(
        &self,
        hook: &str,
        input: Value,
        open: &OpenContext,
    ) -> Result<Value, HookError> {
        let spec = hooks::catalogue()
            .get(hook)
            .ok_or_else(|| HookError::UnknownHook(hook.to_string()))?;
        hooks::validate::check_input(spec, &input).map_err(|message| HookError::InvalidInput {
            hook: hook.into(),
            message,
        })?;
        // A plugin being reloaded takes part with its new code rather than being skipped.
        self.wait_for_restarts(None).await;
        let subscribers = self.subscribers(hook);
        if !spec.waiting {
            let calls = subscribers.into_iter().map(|(id, iso, limits)| {
                let payload = input.to_string();
                async move {
                    let call = CallKind::Hook {
                        hook: hook.to_string(),
                        input: payload,
                    };
                    // `send`, not `call`: nothing here is worth spinning for an answer.
                    if let Err(e) = iso.send(call, limits.hook_timeout).await {
                        let message = call_error_message(&id, e);
                        iso.shared.logs.write(
                            Stream::Stderr,
                            &format!("Lifecycle hook {hook} failed: {message}"),
                        );
                    }
                }
            });
            futures::future::join_all(calls).await;
            return Ok(Value::Null);
        }
        if !spec.returns_request {
            for (id, iso, limits) in subscribers {
                let call = CallKind::Hook {
                    hook: hook.to_string(),
                    input: input.to_string(),
                };
                iso.call(call, limits.hook_timeout)
                    .await
                    .map_err(|e| HookError::plugin(&id, hook, call_error_message(&id, e)))?;
            }
            return Ok(Value::Null);
        }
        let request = hooks::dispatch::run_request_chain(spec, input, subscribers, open).await?;
        if hook == crate::hooks::types::AgentOpenBefore::NAME {
            self.sessions.record_open(&request);
        }
        Ok(request)
    }

    /// Fires a notification without waiting; failures are logged under each plugin. Shutdown
    /// waits up to 5 s for the notifications still running. A plugin being reloaded gets it
    /// from its new isolate, after what was emitted before (if its new code still listens).
    pub fn notify_json(self: &Arc<Self>, hook: &str, event: Value) {
        let Some(spec) = hooks::catalogue().get(hook) else {
            tracing::warn!(target: "paseo::host", "Unknown hook: {hook}");
            return;
        };
        if let Err(message) = hooks::validate::check_input(spec, &event) {
            tracing::warn!(target: "paseo::host", "{message}");
            return;
        }
        let hook: &'static str = spec.name.as_str();
        let payload: Arc<str> = Arc::from(event.to_string());
        // Queued now, under the slots lock, so each plugin sees notifications in the order
        // they were emitted, across reloads too.
        let mut calls = Vec::new();
        let mut dropped = Vec::new();
        for (id, slot) in self.slots.lock().unwrap().iter_mut() {
            if slot.restarting.is_some() {
                if slot.held.len() < HELD_NOTIFICATIONS {
                    slot.held.push((hook, payload.clone()));
                } else {
                    dropped.push(id.clone());
                }
            } else {
                calls.extend(slot.notify(hook, &payload));
            }
        }
        // Logged outside the slots lock: a log listener may call back into the host.
        for id in dropped {
            self.log_tail(&id).write(Stream::Stderr, &format!("Lifecycle hook {hook} dropped: more than {HELD_NOTIFICATIONS} notifications held during a reload"));
        }
        if !calls.is_empty() {
            self.log_notification_failures(calls);
        }
    }

    /// Awaits queued notifications in the background, logging failures under their plugin.
    fn log_notification_failures<F>(&self, calls: Vec<(&'static str, Arc<Isolate>, F)>)
    where
        F: std::future::Future<Output = Result<String, CallError>> + Send + 'static,
    {
        self.in_flight
            .count
            .fetch_add(1, std::sync::atomic::Ordering::SeqCst);
        let in_flight = self.in_flight.clone();
        tokio::spawn(async move {
            for (hook, iso, outcome) in calls {
                if let Err(e) = outcome.await {
                    let message = call_error_message(&iso.shared.id, e);
                    iso.shared.logs.write(
                        Stream::Stderr,
                        &format!("Lifecycle hook {hook} failed: {message}"),
                    );
                }
            }
            if in_flight
                .count
                .fetch_sub(1, std::sync::atomic::Ordering::SeqCst)
                == 1
            {
                in_flight.idle.notify_waiters();
            }
        });
    }

    /// Typed `notify_json`: `host.notify::<AgentTurnAfter>(TurnEndEvent { … })`.
    pub fn notify<H: EventHook>(self: &Arc<Self>, event: H::Event) {
        match serde_json::to_value(&event) {
            Ok(value) => self.notify_json(H::NAME, value),
            Err(e) => tracing::warn!(target: "paseo::host", "cannot encode {} event: {e}", H::NAME),
        }
    }

    /// Runs a waiting request hook with typed payloads, e.g.
    /// `host.before::<AgentCreateBefore>(request).await`.
    pub async fn before<H: RequestHook>(
        &self,
        request: H::Request,
    ) -> Result<H::Request, HookError> {
        self.before_with::<H>(request, &OpenContext::default())
            .await
    }

    /// `before` with the per-open facts `agent.open.before` checks clashes against.
    pub async fn before_with<H: RequestHook>(
        &self,
        request: H::Request,
        open: &OpenContext,
    ) -> Result<H::Request, HookError> {
        let payload_error = |e: serde_json::Error| HookError::InvalidInput {
            hook: H::NAME.into(),
            message: format!("{} payload: {e}", H::NAME),
        };
        let value = serde_json::to_value(&request).map_err(payload_error)?;
        let out = self.run_hook(H::NAME, value, open).await?;
        serde_json::from_value(out).map_err(payload_error)
    }

    /// Dispatches an event hook and waits for every handler: `worktree.create.after` fails
    /// with the first plugin's error (the daemon then removes the worktree); notifications
    /// only log their failures.
    pub async fn emit<H: EventHook>(&self, event: H::Event) -> Result<(), HookError> {
        let value = serde_json::to_value(&event).map_err(|e| HookError::InvalidInput {
            hook: H::NAME.into(),
            message: format!("{} payload: {e}", H::NAME),
        })?;
        self.run_hook(H::NAME, value, &OpenContext::default())
            .await
            .map(|_| ())
    }
}

/// v8x (the QuickJS backend) caches bytecode under `~/.cache/v8x` unless told otherwise through
/// its environment variables, which it reads once. An explicit setting by the user wins.
fn configure_bytecode_cache(dir: Option<&Path>) {
    if std::env::var_os("V82JSC_BC_CACHE_DIR").is_some()
        || std::env::var_os("V82JSC_NO_BC_CACHE").is_some()
    {
        return;
    }
    match dir {
        Some(dir) => std::env::set_var("V82JSC_BC_CACHE_DIR", dir),
        None => std::env::set_var("V82JSC_NO_BC_CACHE", "1"),
    }
}

impl PluginHost {
    /// The RPC methods a running plugin contributes (sorted, frozen when it became ready).
    pub fn rpc_methods(&self, id: &str) -> Result<Vec<String>, String> {
        let slots = self.slots.lock().unwrap();
        match slots.get(id) {
            Some(slot) if slot.isolate.is_some() => Ok(slot.rpc_methods.clone()),
            _ => Err(format!("Plugin is not available: {id}")),
        }
    }

    /// Invokes a plugin RPC method: the input and the output go through the contract's zod
    /// schemas inside the plugin; 30 s limit.
    pub async fn call_rpc(&self, id: &str, method: &str, input: Value) -> Result<Value, String> {
        self.wait_for_restarts(Some(id)).await;
        let (isolate, known, limits) = {
            let slots = self.slots.lock().unwrap();
            let slot = slots
                .get(id)
                .filter(|s| s.isolate.is_some())
                .ok_or_else(|| format!("Plugin is not available: {id}"))?;
            (
                slot.isolate.clone().unwrap(),
                slot.rpc_methods.iter().any(|m| m == method),
                slot.limits.clone(),
            )
        };
        if !known {
            return Err(format!("Plugin {id} does not contribute RPC {method}"));
        }
        let call = CallKind::Rpc {
            method: method.to_string(),
            input: input.to_string(),
        };
        match isolate.call(call, limits.hook_timeout).await {
            Ok(output) if output.len() > crate::hooks::validate::MAX_RESULT_BYTES => Err(format!(
                "Plugin {id} RPC {method} returned {} bytes of JSON; the limit is {} bytes (4 MiB)",
                output.len(),
                crate::hooks::validate::MAX_RESULT_BYTES
            )),
            Ok(output) => serde_json::from_str(&output).map_err(|e| e.to_string()),
            Err(CallError::TimedOut) => Err(format!("Plugin RPC timed out: {id}.invoke")),
            Err(CallError::Failed(m) | CallError::Stopped(m)) => Err(m),
            Err(CallError::Cancelled) => Err("The call was cancelled".into()),
        }
    }

    /// The live isolate of a running plugin.
    pub(crate) fn isolate(&self, id: &str) -> Option<Arc<Isolate>> {
        self.slots
            .lock()
            .unwrap()
            .get(id)
            .and_then(|s| s.isolate.clone())
    }

    /// Delivers a daemon event to every plugin whose SDK subscriptions listen to `topic`
    /// (`agent_update`, `agent_stream:<agentId>`, `workspace_update`, `project_update`).
    /// Live and best effort, like notifications.
    pub async fn publish(&self, topic: &str, payload: Value) {
        let isolates: Vec<(Arc<Isolate>, Limits)> = self
            .slots
            .lock()
            .unwrap()
            .values()
            .filter_map(|slot| {
                let iso = slot.isolate.as_ref()?;
                iso.shared
                    .topics
                    .lock()
                    .unwrap()
                    .contains(topic)
                    .then(|| (iso.clone(), slot.limits.clone()))
            })
            .collect();
        let calls = isolates.into_iter().map(|(iso, limits)| {
            let call = CallKind::Event {
                topic: topic.to_string(),
                payload: payload.to_string(),
            };
            async move {
                let _ = iso.call(call, limits.hook_timeout).await;
            }
        });
        futures::future::join_all(calls).await;
    }
}

pub(crate) fn call_error_message(id: &str, e: CallError) -> String {
    match e {
        CallError::Failed(m) | CallError::Stopped(m) => m,
        CallError::TimedOut => format!("Plugin RPC timed out: {id}.hook"),
        CallError::Cancelled => "The call was cancelled".into(),
    }
}
