//! A plugin's slot and its lifecycle: load (manifest, requirements, entry, an isolate from the
//! standby pool), stop (drain, cleanup), reload (notifications held meanwhile), remove and
//! shutdown.

use std::path::{Path, PathBuf};
use std::sync::Arc;

use deno_core::ModuleSpecifier;

use super::dispatch::notification_failed;
use super::manifest::{self, Manifest};
use super::{HostError, InFlight, PluginHost, ProvidedKind, NOTIFICATION_DRAIN};
use crate::engine::{
    Binding, CallError, CallKind, Isolate, Limits, PluginShared, PluginStats, Registrations,
};
use crate::hooks::catalogue;
use crate::logs::{LogTail, Stream};

pub(super) struct Slot {
    /// RPC methods as frozen when the plugin became ready.
    pub(super) rpc_methods: Vec<String>,
    pub(super) directory: PathBuf,
    pub(super) description: Option<String>,
    pub(super) limits: Limits,
    pub(super) isolate: Option<Arc<Isolate>>,
    pub(super) error: Option<String>,
    /// Host-provided packages the plugin's code imported when it last loaded.
    pub(super) host_packages: Option<Vec<ModuleSpecifier>>,
    /// Set while the plugin reloads; turns `true` once its new isolate is up (or failed).
    pub(super) restarting: Option<tokio::sync::watch::Receiver<bool>>,
    /// Notifications emitted while the plugin reloads, in order, for its new isolate.
    pub(super) held: Vec<Held>,
    /// When its current isolate finished loading.
    pub(super) loaded_at: Option<std::time::Instant>,
}

/// A notification kept for a reloading plugin: (hook, event as JSON).
type Held = (&'static str, Arc<str>);

/// At most this many notifications are kept for one reloading plugin; later ones are dropped
/// with a log line (a reload lasts milliseconds, or at most its stop and load timeouts).
pub const HELD_NOTIFICATIONS: usize = 10_000;

impl Slot {
    /// The slot's running isolate, if it is healthy and currently registers `hook`.
    pub(super) fn subscriber(&self, hook: &str) -> Option<&Arc<Isolate>> {
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

    /// Queues a notification on the slot's isolate if it subscribes to `hook` (its event
    /// serialised by `payload` only then). Nobody waits for it: a failure is logged under the
    /// plugin, on the isolate's thread, as `Lifecycle hook <hook> failed: <message>`, and
    /// `in_flight` counts it until it is settled (`PluginHost::notifications_settled`). An
    /// isolate gone already is returned with the message, for the caller to log once it has
    /// let go of the slots.
    pub(super) fn notify(
        &self,
        hook: &'static str,
        payload: impl FnOnce() -> Arc<str>,
        in_flight: &Arc<InFlight>,
    ) -> Option<(Arc<Isolate>, String)> {
        let iso = self.subscriber(hook)?;
        in_flight.start();
        let settled = in_flight.clone();
        let call = CallKind::Hook {
            hook,
            input: payload(),
        };
        let queued = iso.notify(call, self.limits.hook_timeout, move |plugin, outcome| {
            if let Err(e) = outcome {
                let line = notification_failed(hook, &plugin.id, e);
                plugin.logs.write(Stream::Stderr, &line);
            }
            settled.finish();
        });
        match queued {
            Ok(()) => {
                PluginStats::add(&iso.shared.stats.notifications_delivered, 1);
                None
            }
            Err(e) => {
                in_flight.finish();
                let line = notification_failed(hook, &iso.shared.id, e);
                Some((iso.clone(), line))
            }
        }
    }
}

/// How long a stop lets the calls already running in the plugin finish (capped by the plugin's
/// hook timeout) before its cleanup runs and the rest fail with `Plugin stopped: <id>`.
pub const STOP_DRAIN: std::time::Duration = std::time::Duration::from_secs(1);

impl PluginHost {
    /// Loads the plugin in `dir` under its manifest ID.
    pub async fn load(&self, dir: &Path) -> Result<String, HostError> {
        self.load_with(dir, None, None).await
    }

    /// Loads a plugin, optionally under another ID (as `paseo plugin install --id`) and with
    /// its own limits. The plugin is listed even when it fails, with its error.
    pub async fn load_with(
        &self,
        dir: &Path,
        id: Option<&str>,
        limits: Option<Limits>,
    ) -> Result<String, HostError> {
        let directory = dir
            .canonicalize()
            .map_err(|_| HostError::DirectoryNotFound(dir.to_path_buf()))?;
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
                return Err(HostError::AlreadyConfigured(id));
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
                    loaded_at: None,
                },
            );
        }
        self.start(&id, Some(manifest)).await.map(|_| id)
    }

    /// Starts the plugin of an existing slot; records the outcome in the slot.
    async fn start(&self, id: &str, manifest: Option<Manifest>) -> Result<(), HostError> {
        let (directory, limits) = {
            let slots = self.slots.lock().unwrap();
            let slot = slots
                .get(id)
                .ok_or_else(|| HostError::NotConfigured(id.to_string()))?;
            (slot.directory.clone(), slot.limits.clone())
        };
        let logs = self.log_tail(id);
        logs.write(Stream::Stdout, "[paseo] Loading plugin");
        let outcome = self
            .boot(id, &directory, manifest, limits, logs.clone())
            .await;
        if outcome
            .as_ref()
            .is_ok_and(|iso| iso.as_ref().is_some_and(attaches_to_sessions))
        {
            self.sessions.mark_all_stale();
        }
        if outcome.is_ok() {
            // What the load compiled into QuickJS's bytecode cache is vouched for now.
            crate::engine::bytecode_cache::record();
        }
        let mut slots = self.slots.lock().unwrap();
        let slot = slots
            .get_mut(id)
            .ok_or_else(|| HostError::NotConfigured(id.to_string()))?;
        match outcome {
            Ok(isolate) => {
                logs.write(Stream::Stdout, "[paseo] Plugin ready");
                slot.rpc_methods = isolate
                    .as_ref()
                    .map(|i| i.shared.registrations.lock().unwrap().rpc.clone())
                    .unwrap_or_default();
                slot.rpc_methods.sort();
                slot.isolate = isolate.map(Arc::new);
                slot.loaded_at = Some(std::time::Instant::now());
                slot.error = None;
                Ok(())
            }
            Err(error) => {
                // One entry, stack and all, as Paseo's tail keeps it.
                logs.write_whole(
                    Stream::Stderr,
                    &format!("[paseo] Plugin failed to load: {error}"),
                );
                slot.isolate = None;
                slot.error = Some(error.clone());
                Err(HostError::Load {
                    plugin: id.to_string(),
                    message: error,
                })
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
            None => Manifest::read(directory).map_err(|e| e.to_string())?,
        };
        manifest
            .check_requirements(id, self.options.paseo_version.as_deref())
            .map_err(|e| e.to_string())?;
        let Some(entry) = manifest::find_server_entry(directory).map_err(|e| e.to_string())? else {
            return Ok(None); // client-only plugin: nothing runs on the daemon
        };
        let storage_dir = self.options.settings_dir.as_ref().map(|d| d.join(id));
        let permissions = self.plugin_permissions(id, directory, storage_dir.as_deref())?;
        let shared = Arc::new(PluginShared {
            storage_dir,
            stats: self.plugin_stats(id),
            recorder: self.plugin_recorder(id),
            debug: self.debug_port(id),
            permissions,
            ..PluginShared::new(id, directory.to_path_buf(), logs)
        });
        let (load_timeout, stop_timeout) = (limits.load_timeout, limits.stop_timeout);
        let entry_path = entry;
        let entry = ModuleSpecifier::from_file_path(&entry_path)
            .map_err(|_| "Invalid entry path".to_string())?;
        let known = self
            .slots
            .lock()
            .unwrap()
            .get(id)
            .and_then(|s| s.host_packages.clone());
        let wants = self.standbys.kind_for(known, directory, &entry_path);
        let isolate = self
            .standbys
            .isolate_for(Binding { shared, limits }, &wants);
        let started = std::time::Instant::now();
        let loaded = isolate.call(CallKind::Load { entry }, load_timeout).await;
        // Includes the isolate's boot when no standby had booted it ("isolate booted" says).
        tracing::debug!(
            plugin = id,
            ok = loaded.is_ok(),
            ms = started.elapsed().as_secs_f64() * 1e3,
            "plugin's load call answered"
        );
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
        self.standbys.refill();
        let loaded = loaded.and_then(|_| {
            self.check_provided(id, &isolate.shared.registrations.lock().unwrap())
                .map_err(CallError::Failed)
        });
        match loaded {
            Ok(_) => Ok(Some(isolate)),
            Err(e) => {
                let message = match e {
                    CallError::TimedOut => format!("Plugin {id} did not initialize"),
                    CallError::Cancelled => format!("Plugin {id} loading was cancelled"),
                    e => e.to_string(),
                };
                Self::stop_isolate(isolate, stop_timeout).await;
                Err(message)
            }
        }
    }

    /// Runs the plugin's cleanup (at most `timeout`, `Limits::stop_timeout`) and waits for the
    /// isolate's thread to end.
    async fn stop_isolate(isolate: Isolate, timeout: std::time::Duration) {
        let _ = isolate.call(CallKind::Stop, timeout).await;
        let _ = tokio::task::spawn_blocking(move || isolate.join()).await;
    }

    /// Runs the plugin's cleanup, drops its registrations and its isolate. The slot and the
    /// log tail stay (the plugin is then `disabled`).
    pub async fn stop(&self, id: &str) -> Result<(), HostError> {
        let (isolate, limits) = {
            let mut slots = self.slots.lock().unwrap();
            let slot = slots
                .get_mut(id)
                .ok_or_else(|| HostError::NotConfigured(id.to_string()))?;
            (slot.isolate.take(), slot.limits.clone())
        };
        if let Some(isolate) = isolate {
            if attaches_to_sessions(&isolate) {
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
                Ok(isolate) => Self::stop_isolate(isolate, limits.stop_timeout).await,
                Err(shared) => {
                    let _ = shared.call(CallKind::Stop, limits.stop_timeout).await;
                }
            }
            logs.write(Stream::Stdout, "[paseo] Plugin stopped");
        }
        Ok(())
    }

    /// Stop, then start again from the current source. A failed reload leaves the plugin
    /// `failed`; the previous code is not restored. Calls running in the old isolate finish
    /// there (`STOP_DRAIN`); waiting hooks and RPC calls made meanwhile wait for the new one.
    pub async fn reload(&self, id: &str) -> Result<(), HostError> {
        let (done, restarting) = tokio::sync::watch::channel(false);
        PluginStats::add(&self.plugin_stats(id).reloads, 1);
        self.slots
            .lock()
            .unwrap()
            .get_mut(id)
            .ok_or_else(|| HostError::NotConfigured(id.to_string()))?
            .restarting = Some(restarting);
        let result = async {
            self.stop(id).await?;
            self.start(id, None).await
        }
        .await;
        // Under the lock that `notify_json` queues under, so that nothing emitted later
        // overtakes what was held.
        let mut unsent = Vec::new();
        if let Some(slot) = self.slots.lock().unwrap().get_mut(id) {
            slot.restarting = None;
            for (hook, payload) in std::mem::take(&mut slot.held) {
                unsent.extend(slot.notify(hook, || payload, &self.in_flight));
            }
        }
        let _ = done.send(true);
        for (iso, line) in unsent {
            iso.shared.logs.write(Stream::Stderr, &line);
        }
        result
    }

    /// The daemon's rules for the agent providers a plugin registered: none may take a
    /// built-in or configured provider's ID (`HostOptions::reserved_provider`), or one another
    /// running plugin provides.
    fn check_provided(&self, id: &str, registrations: &Registrations) -> Result<(), String> {
        let others = self.provided(ProvidedKind::Provider);
        for provider in &registrations.providers {
            let reserved = self
                .options
                .reserved_provider
                .as_ref()
                .and_then(|r| r(&provider.id));
            if let Some(kind) = reserved {
                return Err(format!(
                    "Plugin {id} cannot register {kind} provider ID \"{}\"",
                    provider.id
                ));
            }
            if others
                .iter()
                .any(|o| o.plugin != id && o.provided.id == provider.id)
            {
                return Err(format!(
                    "Plugin {id} cannot register provider ID \"{}\" twice",
                    provider.id
                ));
            }
        }
        Ok(())
    }

    /// Waits for the reloads in progress (of plugin `id`, or of any plugin), each at most as
    /// long as a stop and a load may take.
    pub(super) async fn wait_for_restarts(&self, id: Option<&str>) {
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
    pub async fn remove(&self, id: &str) -> Result<(), HostError> {
        self.stop(id).await?;
        self.slots.lock().unwrap().remove(id);
        self.logs.lock().unwrap().remove(id);
        self.stats.lock().unwrap().remove(id);
        self.recorders.lock().unwrap().remove(id);
        self.debug_ports.lock().unwrap().remove(id);
        Ok(())
    }

    /// Resolves once every notification fired so far (`notify`) has been settled by its
    /// plugins: handled, failed or timed out.
    pub async fn notifications_settled(&self) {
        loop {
            let idle = self.in_flight.idle.notified();
            if self.in_flight.is_idle() {
                return;
            }
            idle.await;
        }
    }

    /// Gives pending notifications up to 5 s to finish, then stops every plugin.
    pub async fn shutdown(&self) {
        let _ = tokio::time::timeout(NOTIFICATION_DRAIN, self.notifications_settled()).await;
        let ids: Vec<String> = self.slots.lock().unwrap().keys().cloned().collect();
        for id in ids {
            let _ = self.stop(&id).await;
        }
        self.standbys.shutdown().await;
        crate::engine::bytecode_cache::record();
    }
}

/// Whether the plugin declares a hook that attaches things to agent sessions: its start, stop or
/// reload then makes open sessions stale.
fn attaches_to_sessions(isolate: &Isolate) -> bool {
    let registrations = isolate.shared.registrations.lock().unwrap();
    catalogue().attaches_to_sessions(registrations.hooks.iter().map(|h| h.hook.as_str()))
}
