//! Isolates booted ahead (engine and host JS, no plugin) for the next load or reload
//! (`HostOptions::standby`). Binding one to a plugin skips the engine's start-up, which is most
//! of a plugin's cold start. One kind is plain; another has zod evaluated ahead, for plugins
//! that import it.

use std::path::{Path, PathBuf};
use std::sync::Mutex;

use deno_core::ModuleSpecifier;

use crate::engine::{modules, Binding, EngineConfig, Isolate, Standby};

pub(super) struct StandbyPool {
    /// What every isolate of the host boots; `heap_bytes` (the host's default) and `preload`
    /// are set per isolate.
    engine: EngineConfig,
    /// The kinds kept, by the host-package modules each evaluates ahead: none, and zod's entry
    /// when zod is installed. Empty when the host keeps no standby.
    kinds: Vec<Vec<ModuleSpecifier>>,
    ready: Mutex<Vec<Standby>>,
}

impl StandbyPool {
    /// A pool that keeps one standby of each kind when `keep`, and none otherwise.
    pub fn new(engine: EngineConfig, keep: bool) -> StandbyPool {
        let kinds = if keep {
            let loader =
                modules::PluginModuleLoader::new(PathBuf::new(), engine.host_js_dir.clone());
            let zod = loader
                .resolve_specifier("zod", "paseo:internal/preload", true)
                .ok();
            std::iter::once(Vec::new())
                .chain(zod.map(|url| vec![url]))
                .collect()
        } else {
            Vec::new()
        };
        let pool = StandbyPool {
            engine,
            kinds,
            ready: Mutex::default(),
        };
        pool.refill();
        pool
    }

    fn config(&self, heap_bytes: usize, preload: Vec<ModuleSpecifier>) -> EngineConfig {
        EngineConfig {
            heap_bytes,
            preload,
            ..self.engine.clone()
        }
    }

    /// Boots a standby of every kind kept that has none ready.
    pub fn refill(&self) {
        let mut ready = self.ready.lock().unwrap();
        for kind in &self.kinds {
            if !ready.iter().any(|s| s.preload() == kind.as_slice()) {
                let engine = self.config(self.engine.heap_bytes, kind.clone());
                ready.push(Standby::spawn(engine));
            }
        }
    }

    /// The kind that suits a plugin: the host packages it imported when it last loaded
    /// (`known`), else the kind its sources hint at (`modules::mentions_host_package`).
    pub fn kind_for(
        &self,
        known: Option<Vec<ModuleSpecifier>>,
        directory: &Path,
        entry: &Path,
    ) -> Vec<ModuleSpecifier> {
        known.unwrap_or_else(|| {
            let hint = !self.kinds.is_empty() && modules::mentions_host_package(directory, entry);
            self.kinds
                .iter()
                .find(|k| !k.is_empty() && hint)
                .cloned()
                .unwrap_or_default()
        })
    }

    /// An isolate for this plugin: the standby with the plugin's heap cap (fixed when an
    /// isolate is created) whose host packages are the ones the plugin wants, else the plain
    /// one (the plugin then imports its packages itself), else a fresh isolate.
    /// An inspected plugin always gets a fresh isolate, booted with V8's inspector.
    pub fn isolate_for(&self, binding: Binding, wants: &[ModuleSpecifier]) -> Isolate {
        let heap = binding.limits.heap_bytes;
        if binding.shared.debug.is_some() {
            let engine = EngineConfig {
                inspector: true,
                ..self.config(heap, Vec::new())
            };
            return Standby::spawn(engine).bind(binding);
        }
        let standby = {
            let mut ready = self.ready.lock().unwrap();
            let pick = |packages: &[ModuleSpecifier]| {
                ready
                    .iter()
                    .position(|s| s.heap_bytes() == heap && s.preload() == packages)
            };
            pick(wants)
                .or_else(|| pick(&[]))
                .map(|i| ready.swap_remove(i))
        };
        standby
            .unwrap_or_else(|| Standby::spawn(self.config(heap, Vec::new())))
            .bind(binding)
    }

    /// Resolves once the standbys held now have booted.
    pub async fn booted(&self) {
        let signals: Vec<_> = self
            .ready
            .lock()
            .unwrap()
            .iter()
            .map(|s| s.ready_signal())
            .collect();
        futures::future::join_all(signals).await;
    }

    /// The standbys held now, each as the host-package modules it evaluated ahead.
    pub fn list(&self) -> Vec<Vec<String>> {
        self.ready
            .lock()
            .unwrap()
            .iter()
            .map(|s| s.preload().iter().map(|u| u.to_string()).collect())
            .collect()
    }

    /// Ends every standby held and waits for their threads (off the runtime's threads).
    pub async fn shutdown(&self) {
        let ready = std::mem::take(&mut *self.ready.lock().unwrap());
        if !ready.is_empty() {
            let _ = tokio::task::spawn_blocking(move || ready.into_iter().for_each(Standby::join))
                .await;
        }
    }
}
