//! How an isolate's `JsRuntime` is made, from a V8 startup snapshot when there is one.
//!
//! On V8 every isolate boots from a startup snapshot: a runtime with the same extensions and
//! module loader as every isolate's, with the host's bootstrap (js/runtime/bootstrap.js and
//! what it imports) evaluated, serialised by deno_core's `JsRuntimeForSnapshot`. Every isolate
//! deserialises it instead of evaluating the host's JS again: its module map already holds the
//! bootstrap's modules. What the bootstrap computes for one isolate at one moment
//! (`performance.timeOrigin`, `process.env`, `process.pid`) is made again in each isolate by
//! the bootstrap's `start`, which an isolate booted from the snapshot runs first (`start`,
//! below); ops, op state and the isolate's own callbacks (heap limit, watchdog) are set up as
//! for any runtime.
//!
//! The first isolate a process needs gets the snapshot (isolates booting meanwhile wait for
//! it): read from the cache folder the host names (`configure_cache`; the daemon's is
//! `$PASEO_HOME/cache/v8-snapshot`), else made, and then written there for the next process.
//! Making it costs about three boots (a boot, then V8 serialising a whole isolate); booting
//! from it a quarter of one. A cached snapshot is only read when it was written for this very
//! executable (its device, inode, size and modification time), these extensions, this host JS
//! folder and these `PASEO_V8_FLAGS`, which its file name hashes, by this user, 0600, and when
//! its checksum holds: V8 aborts the process on a snapshot of another build, and deserialising
//! one is running its code. When the snapshot can be neither read nor made, isolates boot
//! without it (logged once).
//!
//! One snapshot per process: its isolates share V8's read-only heap, set up from the first
//! snapshot, and isolates booting beside each other from two (a plain one and one with zod
//! evaluated) crashed.
//! `PASEO_NO_SNAPSHOT=1` in the environment makes none and reads none.
//!
//! QuickJS (v8x) has no heap snapshots (its snapshot creator replays the calls that built a
//! context), so its isolates always evaluate the bootstrap.

use std::io::Read;
use std::path::{Path, PathBuf};
use std::rc::Rc;
use std::sync::OnceLock;

use sha2::{Digest, Sha256};

use deno_core::{Extension, JsRuntime, ModuleSpecifier, RuntimeOptions};

use super::{host_js, modules, ops, EngineConfig};

/// The snapshot of this process, the extensions it was made with, and where it came from.
struct Snapshot {
    bytes: &'static [u8],
    fingerprint: Vec<&'static str>,
    origin: Origin,
}

/// Where this process's snapshot came from.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Origin {
    /// Made by this process (and written to the cache folder, if there is one).
    Made,
    /// Read from the cache folder, as an earlier process wrote it.
    Read,
}

static SNAPSHOT: OnceLock<Option<Snapshot>> = OnceLock::new();
static CACHE_DIR: OnceLock<Option<PathBuf>> = OnceLock::new();

/// The size in bytes of this process's startup snapshot, if it has one.
pub fn made() -> Option<usize> {
    SNAPSHOT.get()?.as_ref().map(|s| s.bytes.len())
}

/// Whether this process's startup snapshot was made or read, if it has one.
pub fn origin() -> Option<Origin> {
    SNAPSHOT.get()?.as_ref().map(|s| s.origin)
}

/// Where the startup snapshot is kept between processes (`None`: made in memory by each one).
/// The first setting of a process wins, as the snapshot is one per process.
pub fn configure_cache(dir: Option<&Path>) {
    let _ = CACHE_DIR.set(dir.map(Path::to_path_buf));
}

/// The largest snapshot file read (the bootstrap's is under 1 MB).
const MAX_SNAPSHOT_FILE: u64 = 64 << 20;
const MAGIC: &[u8] = b"paseo v8 startup snapshot 1\n";
/// A cached file's magic line and the SHA-256 of the snapshot after it.
const HEADER: usize = MAGIC.len() + 32;

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
    init_platform();
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
        inspector: engine.inspector,
        is_main: true,
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

/// Initialises V8 once per process, before any runtime (the snapshot's or an isolate's) would
/// with its own flags. `PASEO_V8_FLAGS` (V8 only) passes V8 flags for diagnosis, as
/// `node --v8-options` lists them (`--trace-gc`, `--single-threaded`, …); flags V8 does not
/// know are logged and ignored.
pub(super) fn init_platform() {
    static INIT: std::sync::Once = std::sync::Once::new();
    INIT.call_once(|| {
        #[cfg(feature = "v8")]
        if let Some(flags) = std::env::var("PASEO_V8_FLAGS")
            .ok()
            .filter(|f| !f.trim().is_empty())
        {
            let argv = std::iter::once("paseo".to_string())
                .chain(flags.split_whitespace().map(str::to_string))
                .collect();
            let unknown = deno_core::v8_set_flags(argv);
            if unknown.len() > 1 {
                tracing::warn!("PASEO_V8_FLAGS: V8 does not know {:?}", &unknown[1..]);
            }
        }
        JsRuntime::init_platform(None);
    });
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
    let wanted = fingerprint(extensions);
    SNAPSHOT
        .get_or_init(|| new_snapshot(engine.clone(), &wanted))
        .as_ref()
        .filter(|s| s.fingerprint == wanted)
        .map(|s| s.bytes)
}

/// The snapshot, read from the cache or made (and cached), or `None` (logged) when it can be
/// neither or `PASEO_NO_SNAPSHOT` is set.
fn new_snapshot(engine: EngineConfig, fingerprint: &[&'static str]) -> Option<Snapshot> {
    if std::env::var_os("PASEO_NO_SNAPSHOT").is_some_and(|v| v != "0" && !v.is_empty()) {
        return None;
    }
    let cached = CACHE_DIR
        .get()
        .cloned()
        .flatten()
        .and_then(|dir| cache_path(&dir, &engine.host_js_dir, fingerprint));
    if let Some(path) = &cached {
        match read_cached(path) {
            Ok(Some(file)) => {
                // Kept for the life of the process, header and all: no copy of the snapshot.
                let bytes = &Vec::leak(file)[HEADER..];
                tracing::debug!(path = %path.display(), bytes = bytes.len(), "startup snapshot read");
                return Some(Snapshot {
                    bytes,
                    fingerprint: fingerprint.to_vec(),
                    origin: Origin::Read,
                });
            }
            Ok(None) => {}
            Err(e) => tracing::warn!(
                "the cached startup snapshot {} is not used ({e}); making it again",
                path.display()
            ),
        }
    }
    let started = std::time::Instant::now();
    match make(engine) {
        Ok(snapshot) => {
            tracing::debug!(
                bytes = snapshot.bytes.len(),
                ms = started.elapsed().as_secs_f64() * 1e3,
                "startup snapshot made"
            );
            if let Some(path) = &cached {
                match write_cached(path, snapshot.bytes) {
                    Ok(()) => tracing::debug!(path = %path.display(), "startup snapshot written"),
                    Err(e) => tracing::warn!(
                        "the startup snapshot could not be written to {} ({e}); the next process makes it again",
                        path.display()
                    ),
                }
            }
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

/// The cache file of a snapshot for this executable, host JS folder, V8 flags and extensions,
/// or `None` when the executable cannot be identified.
fn cache_path(dir: &Path, host_js_dir: &Path, fingerprint: &[&str]) -> Option<PathBuf> {
    use std::os::unix::fs::MetadataExt;
    let exe = std::env::current_exe().ok()?;
    let meta = std::fs::metadata(&exe).ok()?;
    let mut key = Sha256::new();
    key.update(MAGIC);
    key.update(env!("CARGO_PKG_VERSION"));
    for n in [meta.dev(), meta.ino(), meta.size()] {
        key.update(n.to_le_bytes());
    }
    key.update(meta.mtime().to_le_bytes());
    key.update(meta.mtime_nsec().to_le_bytes());
    key.update(host_js_dir.as_os_str().as_encoded_bytes());
    // V8's flags shape what it serialises; a snapshot made under other flags is another one.
    key.update(std::env::var("PASEO_V8_FLAGS").unwrap_or_default());
    for part in fingerprint {
        key.update([0]);
        key.update(part);
    }
    let hash = key.finalize();
    let name: String = hash[..16].iter().map(|b| format!("{b:02x}")).collect();
    Some(dir.join(format!("v8-{name}.snapshot")))
}

/// The cached file in `path`, checked (its snapshot starts at `HEADER`): `Ok(None)` when there
/// is none, an error when the file is there but not one to trust (another owner, open to
/// others, too large, damaged).
fn read_cached(path: &Path) -> Result<Option<Vec<u8>>, String> {
    use std::os::unix::fs::{MetadataExt, OpenOptionsExt};
    let mut file = match std::fs::OpenOptions::new()
        .read(true)
        .custom_flags(libc::O_NOFOLLOW)
        .open(path)
    {
        Ok(file) => file,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(None),
        Err(e) => return Err(e.to_string()),
    };
    let meta = file.metadata().map_err(|e| e.to_string())?;
    // SAFETY: geteuid has no preconditions.
    let uid = unsafe { libc::geteuid() };
    if !meta.is_file() || meta.uid() != uid {
        return Err("not a file of this user".into());
    }
    if meta.mode() & 0o077 != 0 {
        return Err(format!("mode {:o}, open to others", meta.mode() & 0o777));
    }
    if meta.len() > MAX_SNAPSHOT_FILE {
        return Err(format!("{} bytes, more than a snapshot", meta.len()));
    }
    let mut bytes = Vec::with_capacity(meta.len() as usize);
    file.read_to_end(&mut bytes).map_err(|e| e.to_string())?;
    if bytes.len() < HEADER || !bytes.starts_with(MAGIC) {
        return Err("not a startup snapshot".into());
    }
    if Sha256::digest(&bytes[HEADER..])[..] != bytes[MAGIC.len()..HEADER] {
        return Err("its checksum does not match".into());
    }
    Ok(Some(bytes))
}

/// Writes the snapshot to `path` (0600, atomically), after removing the snapshots of other
/// builds and the temp files of writers that died.
fn write_cached(path: &Path, bytes: &[u8]) -> std::io::Result<()> {
    let dir = path.parent().unwrap_or(Path::new("."));
    crate::private_files::create_private_dir_all(dir)?;
    crate::private_files::remove_stale_temp_files(dir);
    for entry in std::fs::read_dir(dir)?.flatten() {
        let name = entry.file_name();
        let name = name.to_string_lossy();
        if name.starts_with("v8-") && name.ends_with(".snapshot") && entry.path() != path {
            let _ = std::fs::remove_file(entry.path());
        }
    }
    let mut framed = Vec::with_capacity(HEADER + bytes.len());
    framed.extend_from_slice(MAGIC);
    framed.extend_from_slice(&Sha256::digest(bytes));
    framed.extend_from_slice(bytes);
    crate::private_files::write_atomic(path, &framed)
}

/// Makes the snapshot on a thread of its own, outside the caller's async runtime: the runtime
/// that makes it has its own isolate and event loop. V8 is initialised first as for any
/// runtime: initialised by the runtime that makes the snapshot, it would take the flags of
/// snapshot builds (`--predictable`, a fixed random seed) for every isolate of the process.
fn make(engine: EngineConfig) -> Result<Snapshot, String> {
    init_platform();
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
        origin: Origin::Made,
    })
}
