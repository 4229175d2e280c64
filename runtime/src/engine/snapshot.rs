//! How an isolate's `JsRuntime` is made, from a V8 startup snapshot when there is one.
//!
//! On V8 the first isolate a process needs makes the snapshot (isolates booting meanwhile wait
//! for it): a runtime with the same extensions and module loader as every isolate's, with the
//! host's bootstrap (js/runtime/bootstrap.js and what it imports) evaluated, serialised by
//! deno_core's `JsRuntimeForSnapshot`. It is kept in memory for the life of the process, never
//! written anywhere. Every isolate then deserialises it instead of evaluating the host's JS
//! again: its module map already holds the bootstrap's modules. What the bootstrap computes for
//! one isolate at one moment (`performance.timeOrigin`, `process.env`) is made again in each
//! isolate by the bootstrap's `start`, which an isolate booted from the snapshot runs first
//! (`start`, below); ops, op state and the isolate's own callbacks (heap limit, watchdog) are
//! set up as for any runtime. When the snapshot cannot be made, isolates boot as without one
//! (logged once). `PASEO_NO_SNAPSHOT=1` in the environment makes none.
//!
//! Making it costs about three boots (a boot, then V8 serialising a whole isolate), once per
//! process; booting from it a quarter of one. The first isolate waits for it rather than boot
//! without it while it is made beside: that would leave a thread at work, and its memory,
//! behind the first plugin's load.
//!
//! QuickJS (v8x) has no heap snapshots (its snapshot creator replays the calls that built a
//! context), so its isolates always evaluate the bootstrap.

use std::rc::Rc;
use std::sync::OnceLock;

use deno_core::{Extension, JsRuntime, ModuleSpecifier, RuntimeOptions};

use super::{host_js, modules, ops, EngineConfig};

/// The snapshot made in this process, and the extensions it was made with.
struct Snapshot {
    bytes: &'static [u8],
    fingerprint: Vec<&'static str>,
}

static SNAPSHOT: OnceLock<Option<Snapshot>> = OnceLock::new();

/// The size in bytes of the startup snapshot this process made, if it made one.
pub fn made() -> Option<usize> {
    SNAPSHOT.get()?.as_ref().map(|s| s.bytes.len())
}

/// The host's bootstrap module (js/runtime/bootstrap.js).
pub(super) fn bootstrap_url() -> ModuleSpecifier {
    ModuleSpecifier::parse("paseo:internal/bootstrap").unwrap()
}

/// The extensions of every isolate: the engine's ops, the host's capabilities, and the host
/// modules evaluated on first use. A runtime booted from the snapshot must have the same ones,
/// in the same order, as the runtime that made it.
fn extensions(engine: &EngineConfig) -> Vec<Extension> {
    std::iter::once(ops::paseo_host::init())
        .chain((engine.extensions)())
        .chain([host_js::lazy_extension()])
        .collect()
}

/// What deno_core matches between a snapshot and the runtimes booted from it: the extensions,
/// their ops (external references, by position) and their sources, in order.
fn fingerprint(extensions: &[Extension]) -> Vec<&'static str> {
    let mut out = Vec::new();
    for extension in extensions {
        out.push(extension.name);
        out.extend(extension.ops.iter().map(|op| op.name));
        out.extend(
            extension
                .js_files
                .iter()
                .chain(extension.esm_files.iter())
                .chain(extension.lazy_loaded_esm_files.iter())
                .chain(extension.lazy_loaded_js_files.iter())
                .map(|file| file.specifier),
        );
    }
    out
}

/// A new isolate's runtime, with `loader` and a heap capped at `heap_bytes`, and whether it was
/// booted from the startup snapshot: then the bootstrap is evaluated already and `start` must
/// run before anything else; otherwise the caller evaluates the bootstrap.
pub(super) fn runtime(
    engine: &EngineConfig,
    loader: Rc<modules::PluginModuleLoader>,
    heap_bytes: usize,
) -> Result<(JsRuntime, bool), String> {
    let extensions = extensions(engine);
    let snapshot = startup_snapshot(engine, &extensions);
    let options = |extensions, startup_snapshot| RuntimeOptions {
        module_loader: Some(loader.clone()),
        extensions,
        startup_snapshot,
        // The snapshot's op functions serve until the first host module loaded on first use,
        // when deno_core gives them their fast calls; binding every op again at each boot
        // would cost time and heap, also in isolates that never load one.
        skip_op_registration: startup_snapshot.is_some(),
        create_params: Some(deno_core::v8::CreateParams::default().heap_limits(0, heap_bytes)),
        ..Default::default()
    };
    match JsRuntime::try_new(options(extensions, snapshot)) {
        Ok(js) => Ok((js, snapshot.is_some())),
        Err(e) if snapshot.is_some() => {
            static WARNED: std::sync::Once = std::sync::Once::new();
            WARNED.call_once(|| {
                tracing::warn!(
                    "an isolate could not boot from the startup snapshot ({e}); booting without it"
                )
            });
            JsRuntime::try_new(options(self::extensions(engine), None))
                .map(|js| (js, false))
                .map_err(|e| e.to_string())
        }
        Err(e) => Err(e.to_string()),
    }
}

/// Runs, in a runtime booted from the snapshot, what the bootstrap does for each isolate at its
/// start (`start` in js/runtime/bootstrap.js), before any other JS.
pub(super) fn start(js: &mut JsRuntime) -> Result<(), String> {
    js.execute_script(
        "paseo:internal/start",
        "globalThis[Symbol.for(\"paseo.start\")]();",
    )
    .map(drop)
    .map_err(|e| e.to_string())
}

/// The startup snapshot for a runtime with these extensions (V8 only), made by the first
/// isolate that asks; isolates that ask while it is being made wait for it.
fn startup_snapshot(engine: &EngineConfig, extensions: &[Extension]) -> Option<&'static [u8]> {
    if !cfg!(feature = "v8") {
        return None;
    }
    SNAPSHOT
        .get_or_init(|| new_snapshot(engine.clone()))
        .as_ref()
        .filter(|s| s.fingerprint == fingerprint(extensions))
        .map(|s| s.bytes)
}

/// The snapshot, or `None` (logged) when it cannot be made or `PASEO_NO_SNAPSHOT` is set.
fn new_snapshot(engine: EngineConfig) -> Option<Snapshot> {
    if std::env::var_os("PASEO_NO_SNAPSHOT").is_some_and(|v| v != "0" && !v.is_empty()) {
        return None;
    }
    let started = std::time::Instant::now();
    match make(engine) {
        Ok(snapshot) => {
            tracing::debug!(
                bytes = snapshot.bytes.len(),
                ms = started.elapsed().as_secs_f64() * 1e3,
                "startup snapshot made"
            );
            Some(snapshot)
        }
        Err(e) => {
            tracing::warn!(
                "the isolates' startup snapshot could not be made ({e}); they boot without it"
            );
            None
        }
    }
}

/// Makes the snapshot on a thread of its own, outside the caller's async runtime: the runtime
/// that makes it has its own isolate and event loop. V8 is initialised first as for any
/// runtime: initialised by the runtime that makes the snapshot, it would take the flags of
/// snapshot builds (`--predictable`, a fixed random seed) for every isolate of the process.
fn make(engine: EngineConfig) -> Result<Snapshot, String> {
    JsRuntime::init_platform(None);
    std::thread::Builder::new()
        .name("paseo:snapshot".into())
        .spawn(move || {
            tokio::runtime::Builder::new_current_thread()
                .enable_all()
                .build()
                .map_err(|e| e.to_string())?
                .block_on(snapshot_of_bootstrap(engine))
        })
        .map_err(|e| e.to_string())?
        .join()
        .map_err(|panic| {
            panic
                .downcast_ref::<String>()
                .cloned()
                .or_else(|| panic.downcast_ref::<&str>().map(|s| s.to_string()))
                .unwrap_or_else(|| "a panic".into())
        })?
}

async fn snapshot_of_bootstrap(engine: EngineConfig) -> Result<Snapshot, String> {
    let loader = Rc::new(modules::PluginModuleLoader::new(
        std::path::PathBuf::new(),
        engine.host_js_dir.clone(),
    ));
    let extensions = extensions(&engine);
    let fingerprint = fingerprint(&extensions);
    let mut js = deno_core::JsRuntimeForSnapshot::try_new(RuntimeOptions {
        module_loader: Some(loader.clone()),
        extensions,
        ..Default::default()
    })
    .map_err(|e| e.to_string())?;
    // The state the bootstrap's ops may look for, as a standby isolate has it.
    let state = js.op_state();
    state
        .borrow_mut()
        .put(std::sync::Arc::new(super::PluginShared::new(
            "(snapshot)",
            std::path::PathBuf::new(),
            std::sync::Arc::new(crate::logs::LogTail::new("(snapshot)", None)),
        )));
    state.borrow_mut().put(loader);
    drop(state);
    // Tells the bootstrap to leave its per-isolate part to `start`.
    js.execute_script(
        "paseo:internal/snapshot",
        "globalThis[Symbol.for(\"paseo.snapshot\")] = true;",
    )
    .map_err(|e| e.to_string())?;
    let id = js
        .load_side_es_module(&bootstrap_url())
        .await
        .map_err(|e| e.to_string())?;
    let eval = js.mod_evaluate(id);
    js.run_event_loop(Default::default())
        .await
        .map_err(|e| e.to_string())?;
    eval.await.map_err(|e| e.to_string())?;
    Ok(Snapshot {
        bytes: Box::leak(js.snapshot()),
        fingerprint,
    })
}
