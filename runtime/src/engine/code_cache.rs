//! V8 code caches of the host-provided packages isolates load on demand (zod).
//!
//! zod is the same for every isolate of the process, but each isolate would parse and compile
//! it again: for a plugin importing it, that was most of its cold start and of its reload (72
//! modules; V8 spent a third of a zod plugin's load in `CompileModule`). The first isolate that
//! compiles one of its modules hands V8's code cache of it to the process (deno_core's
//! `code_cache_ready`); every later one compiles from it. Nothing is written to disk: a code
//! cache is code, and one made by this process needs no trust.
//!
//! A cache is used only for the very source it was made from: the key is the module's URL and
//! a hash, keyed at random per process, of its whole source (V8 itself checks only the source's
//! length). A file changed under the process (zod reinstalled) is compiled again and its new
//! cache replaces the old one. The plugin's own files are not cached: they change with every
//! edit, and each is loaded by one isolate. The host's own modules (`node:` builtins, `paseo:`
//! modules) are not loaded through the plugin's module loader but by deno_core as lazily loaded
//! extension modules, which take no cache.
//!
//! QuickJS (v8x) keeps its own bytecode cache (`HostOptions::bytecode_cache_dir`), so there
//! this is off.

use std::borrow::Cow;
use std::collections::HashMap;
use std::hash::{BuildHasher, RandomState};
use std::sync::{Mutex, OnceLock};

use deno_core::{ModuleSpecifier, SourceCodeCacheInfo};

/// A module's cache: the hash of the source it was made from, and V8's bytes.
type Entry = (u64, Box<[u8]>);

struct Caches {
    keys: RandomState,
    /// By module URL: the hash of the source the cache was made from and V8's cache, or
    /// `None` for a module that must not be cached (`purge`).
    by_url: Mutex<HashMap<String, Option<Entry>>>,
    /// How many caches V8 has made: one per module compiled without a usable cache.
    made: std::sync::atomic::AtomicUsize,
}

/// What the process holds (`stats`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Stats {
    /// Modules with a cache.
    pub modules: usize,
    /// Their caches' bytes together.
    pub bytes: usize,
    /// Caches made so far, kept or since replaced: a module compiled from its cache makes none.
    pub made: usize,
}

fn caches() -> &'static Caches {
    static CACHES: OnceLock<Caches> = OnceLock::new();
    CACHES.get_or_init(|| Caches {
        keys: RandomState::new(),
        by_url: Mutex::default(),
        made: Default::default(),
    })
}

/// Whether this build keeps code caches (V8); the loader looks no further when it does not.
pub const ENABLED: bool = cfg!(feature = "v8");

/// What to hand deno_core with the source of a host-provided module: the cache made from this
/// source, or a request to make one (no data). `None` on QuickJS.
pub(super) fn for_source(url: &ModuleSpecifier, source: &str) -> Option<SourceCodeCacheInfo> {
    if !ENABLED {
        return None;
    }
    let caches = caches();
    let hash = caches.keys.hash_one(source);
    let data = match caches.by_url.lock().unwrap().get(url.as_str()) {
        Some(None) => return None,
        Some(Some((made_from, bytes))) if *made_from == hash => Some(Cow::Owned(bytes.to_vec())),
        _ => None,
    };
    Some(SourceCodeCacheInfo { hash, data })
}

/// Keeps the cache V8 made of the module at `url` from the source that hashed to `hash`.
pub(super) fn made(url: &ModuleSpecifier, hash: u64, bytes: &[u8]) {
    let caches = caches();
    caches
        .made
        .fetch_add(1, std::sync::atomic::Ordering::Relaxed);
    let mut by_url = caches.by_url.lock().unwrap();
    match by_url.get_mut(url.as_str()) {
        Some(None) => {}
        Some(Some(entry)) => *entry = (hash, bytes.into()),
        None => {
            by_url.insert(url.to_string(), Some((hash, bytes.into())));
        }
    }
}

/// Forgets the module's cache and makes no other (deno_core asks when V8 warned about the
/// module, whose cache would skip the warning).
pub(super) fn purge(url: &str) {
    caches()
        .by_url
        .lock()
        .unwrap()
        .insert(url.to_string(), None);
}

/// What the process holds (`paseo bench` prints it; the tests check it).
pub fn stats() -> Stats {
    let caches = caches();
    let by_url = caches.by_url.lock().unwrap();
    let kept = by_url.values().flatten();
    Stats {
        modules: kept.clone().count(),
        bytes: kept.map(|(_, b)| b.len()).sum(),
        made: caches.made.load(std::sync::atomic::Ordering::Relaxed),
    }
}
