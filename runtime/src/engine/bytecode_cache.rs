//! QuickJS's bytecode cache on disk (v8x's; `HostOptions::bytecode_cache_dir`, the daemon's
//! `$PASEO_HOME/cache/quickjs-bytecode`), kept so that nothing in it can crash the process.
//!
//! v8x keys an entry by a module's URL and source and reads it back with QuickJS's
//! `JS_ReadObject`, which trusts what it reads. Two ways that crashed the process:
//!
//! - **A graph loaded partly from the cache and partly from source.** With an import cycle
//!   between a module read from the cache and one compiled afresh (execa@9's `send.js` ↔
//!   `strict.js`, after an update changed one of them), v8x links the cached module's requests
//!   against names that are no longer what they were (we saw a request named `t`), then fails
//!   with "does not provide an export named …" or dies with SIGSEGV. So the cache is never
//!   mixed within a plugin: every module of a plugin's folder ends with a comment naming its
//!   *epoch*, a digest of the path, size and modification time of every code file in that
//!   folder (symlinked packages included). Change any one file and every module of the plugin
//!   misses the cache at once, as on a first load; change none and every one hits. The
//!   host-provided packages (zod) get the epoch of their own folder the same way. Nothing else
//!   is mixed: a plugin's graph reaches the host packages and builtins, never the other way.
//! - **A cache with entries missing or altered** (removed by hand, as the reproduction
//!   did, torn by a crash, damaged on disk): a graph would again be part cached, part not, and
//!   QuickJS would read whatever bytes are there. The folder keeps `integrity`, the SHA-256
//!   and size of every entry this process saw v8x write (listed after each plugin load and at
//!   shutdown). When the first host of a process starts, the folder must match it exactly: an
//!   entry missing, different, or not listed (written by a process killed before it listed
//!   it), and the whole cache is removed, before anything reads it, and built again as on a
//!   first run. Past 128 MiB (each edit of a plugin makes a new set of entries) it is removed
//!   too. While the process runs, each plugin load first looks that every listed entry is still
//!   there at its size; if one is not, every later load compiles everything from source (the
//!   epochs take a salt of this process's), so nothing mixes until the next start removes
//!   the cache.
//!
//! V8 keeps no cache on disk (`code_cache.rs` keeps its caches in memory): there this is off.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Mutex, OnceLock};

use sha2::{Digest, Sha256};

/// Whether this engine has the cache (QuickJS).
pub const ENABLED: bool = !cfg!(feature = "v8");

/// The file in the cache folder listing every entry's digest.
const INTEGRITY: &str = "integrity";
/// Folders an epoch walks no further into, and how many files it looks at most (a plugin
/// beyond that gets the epoch of what was seen).
const SKIPPED_DIRS: &[&str] = &[".git"];
const MAX_FILES: usize = 100_000;
/// How much bytecode the folder keeps at most (zod's is 1.6 MB).
const CAP_BYTES: u64 = 128 << 20;

/// The folder this process's cache is in, once configured (`None`: no cache, or one the user
/// set through v8x's own environment variables, which this leaves alone).
static DIR: OnceLock<Option<PathBuf>> = OnceLock::new();
/// Serialises this process's listings.
static LISTING: Mutex<()> = Mutex::new(());

/// Points v8x at `dir` (or turns its cache off), and removes the entries that cannot be
/// trusted. v8x reads its settings once per process: the first call decides.
pub fn configure(dir: Option<&Path>) {
    DIR.get_or_init(|| {
        if std::env::var_os("V82JSC_BC_CACHE_DIR").is_some()
            || std::env::var_os("V82JSC_NO_BC_CACHE").is_some()
        {
            return None;
        }
        match dir {
            Some(dir) => {
                std::env::set_var("V82JSC_BC_CACHE_DIR", dir);
                if ENABLED {
                    remove_untrusted(dir);
                }
                Some(dir.to_path_buf())
            }
            None => {
                std::env::set_var("V82JSC_NO_BC_CACHE", "1");
                None
            }
        }
    });
}

fn cache_dir() -> Option<&'static Path> {
    DIR.get().and_then(|d| d.as_deref())
}

/// Whether modules go through a bytecode cache this process keeps (QuickJS, with a folder):
/// only then are epochs worth their walk of the plugin's folder.
pub fn active() -> bool {
    ENABLED && cache_dir().is_some()
}

/// An entry as the integrity list has it: its digest and its size.
#[derive(Clone)]
struct Listed {
    digest: String,
    size: u64,
}

fn read_integrity(dir: &Path) -> BTreeMap<String, Listed> {
    let text = std::fs::read_to_string(dir.join(INTEGRITY)).unwrap_or_default();
    text.lines()
        .filter_map(|line| {
            let mut fields = line.split(' ');
            let name = fields.next()?.to_string();
            let digest = fields.next()?.to_string();
            let size = fields.next()?.parse().ok()?;
            Some((name, Listed { digest, size }))
        })
        .collect()
}

/// A file's SHA-256 and size, from one read.
fn digest_file(path: &Path) -> Option<Listed> {
    let bytes = std::fs::read(path).ok()?;
    Some(Listed {
        digest: hex(&Sha256::digest(&bytes)),
        size: bytes.len() as u64,
    })
}

fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

fn entries(dir: &Path) -> Vec<(String, PathBuf)> {
    let Ok(read) = std::fs::read_dir(dir) else {
        return Vec::new();
    };
    read.flatten()
        .filter_map(|e| {
            let name = e.file_name().into_string().ok()?;
            (name.ends_with(".qbc") || name.ends_with(".tmp")).then(|| (name, e.path()))
        })
        .collect()
}

/// Removes the whole cache unless every entry is listed in the integrity list with its
/// digest, and every listed one is there, and it fits the cap.
fn remove_untrusted(dir: &Path) {
    let listed = read_integrity(dir);
    let present = entries(dir);
    let total: u64 = listed.values().map(|l| l.size).sum();
    let trusted = total <= CAP_BYTES
        && present.len() == listed.len()
        && present.iter().all(|(name, path)| {
            listed.get(name).is_some_and(|l| {
                digest_file(path).is_some_and(|d| d.digest == l.digest && d.size == l.size)
            })
        });
    if trusted {
        return;
    }
    for (_, path) in &present {
        let _ = std::fs::remove_file(path);
    }
    let _ = std::fs::remove_file(dir.join(INTEGRITY));
    if !present.is_empty() {
        tracing::debug!(entries = present.len(), dir = %dir.display(),
            "bytecode cache: removed, as it did not match its integrity list (or passed its cap)");
    }
}

/// Set when a listed entry went missing while the process runs: from then on every epoch
/// takes this process's salt, and every load compiles from source.
static SALTED: AtomicBool = AtomicBool::new(false);

/// Before a plugin loads: every listed entry must still be there at its size (a few `stat`s);
/// if one is not, later loads no longer use the cache (see the module docs).
pub fn check() {
    let Some(dir) = cache_dir() else {
        return;
    };
    if !ENABLED || SALTED.load(Ordering::Relaxed) {
        return;
    }
    let listed = read_integrity(dir);
    let whole = listed
        .iter()
        .all(|(name, l)| std::fs::metadata(dir.join(name)).is_ok_and(|m| m.len() == l.size));
    if !whole && !SALTED.swap(true, Ordering::Relaxed) {
        tracing::warn!(dir = %dir.display(),
            "bytecode cache: entries went missing while the daemon runs; plugins load from source until it restarts");
    }
}

fn salted(epoch: String) -> String {
    if SALTED.load(Ordering::Relaxed) {
        static SALT: OnceLock<String> = OnceLock::new();
        let salt = SALT.get_or_init(|| {
            let mut bytes = [0u8; 8];
            let _ = getrandom::fill(&mut bytes);
            hex(&bytes)
        });
        format!("{epoch}-{salt}")
    } else {
        epoch
    }
}

/// Adds the entries v8x has written since the last listing to the integrity list (written
/// atomically, private to the owner). Two processes listing at once may each drop the other's
/// new entries: those are removed at the next start and compiled again, nothing worse.
pub fn record() {
    let Some(dir) = cache_dir() else {
        return;
    };
    if !ENABLED {
        return;
    }
    let _one_at_a_time = LISTING.lock().unwrap_or_else(|e| e.into_inner());
    if SALTED.load(Ordering::Relaxed) {
        // The folder is no longer whole; the next start removes it.
        return;
    }
    let mut listed = read_integrity(dir);
    let before: Vec<String> = listed.keys().cloned().collect();
    let present: Vec<(String, PathBuf)> = entries(dir)
        .into_iter()
        .filter(|(name, _)| name.ends_with(".qbc"))
        .collect();
    for (name, path) in &present {
        if !listed.contains_key(name) {
            if let Some(entry) = digest_file(path) {
                listed.insert(name.clone(), entry);
            }
        }
    }
    // Entries gone from the folder leave the list too.
    listed.retain(|name, _| present.iter().any(|(n, _)| n == name));
    if listed.keys().eq(before.iter()) {
        return;
    }
    let mut text = String::new();
    for (name, l) in &listed {
        text.push_str(&format!("{name} {} {}\n", l.digest, l.size));
    }
    if let Err(e) = crate::private_files::write_atomic(&dir.join(INTEGRITY), text.as_bytes()) {
        tracing::debug!(error = %e, "bytecode cache: integrity list not written");
    }
}

/// The epoch of the code under `dir`: a digest of every code file's path, size and
/// modification time (see the module docs).
pub fn epoch(dir: &Path) -> String {
    let mut files = Vec::new();
    let mut seen_dirs = std::collections::HashSet::new();
    walk(dir, dir, &mut files, &mut seen_dirs);
    files.sort();
    let mut hash = Sha256::new();
    for line in &files {
        hash.update(line.as_bytes());
        hash.update(b"\n");
    }
    hex(&hash.finalize()[..12])
}

fn walk(
    root: &Path,
    dir: &Path,
    out: &mut Vec<String>,
    seen_dirs: &mut std::collections::HashSet<PathBuf>,
) {
    // A symlinked package is followed once (a link back up would loop).
    let Ok(real) = std::fs::canonicalize(dir) else {
        return;
    };
    if !seen_dirs.insert(real) {
        return;
    }
    let Ok(read) = std::fs::read_dir(dir) else {
        return;
    };
    for entry in read.flatten() {
        if out.len() >= MAX_FILES {
            return;
        }
        let path = entry.path();
        // `metadata` follows symlinks: a linked package counts as what it links to.
        let Ok(meta) = std::fs::metadata(&path) else {
            continue;
        };
        if meta.is_dir() {
            let skipped = entry
                .file_name()
                .to_str()
                .is_some_and(|n| SKIPPED_DIRS.contains(&n));
            if !skipped {
                walk(root, &path, out, seen_dirs);
            }
        } else if is_code(&path) {
            let modified = meta
                .modified()
                .ok()
                .and_then(|t| t.duration_since(std::time::UNIX_EPOCH).ok())
                .map_or(0, |d| d.as_nanos());
            let rel = path.strip_prefix(root).unwrap_or(&path);
            out.push(format!("{} {} {modified}", rel.display(), meta.len()));
        }
    }
}

/// Files that can become module code (what the loader serves, and the package.json files
/// that decide a module's type and a package's entry).
fn is_code(path: &Path) -> bool {
    matches!(
        path.extension().and_then(|e| e.to_str()),
        Some("js" | "mjs" | "cjs" | "ts" | "mts" | "cts" | "tsx" | "jsx" | "json")
    )
}

/// The host-provided packages' epoch (their folder's), computed once per process.
pub fn host_epoch(host_packages_dir: &Path) -> &'static str {
    static EPOCH: OnceLock<String> = OnceLock::new();
    EPOCH.get_or_init(|| epoch(host_packages_dir))
}

/// `code` ending with its epoch, on a line of its own after the last (no line moves).
pub fn tag(mut code: String, epoch: &str) -> String {
    if !ENABLED {
        return code;
    }
    if !code.ends_with('\n') {
        code.push('\n');
    }
    code.push_str("//# paseoCacheEpoch=");
    code.push_str(&salted(epoch.to_string()));
    code.push('\n');
    code
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_epoch_changes_with_any_code_file_and_only_with_code_files() {
        let dir = tempfile_dir();
        std::fs::create_dir_all(dir.join("node_modules/dep/lib")).unwrap();
        std::fs::write(dir.join("index.server.ts"), "export {}").unwrap();
        std::fs::write(dir.join("node_modules/dep/lib/a.js"), "export const a = 1;").unwrap();
        std::fs::write(dir.join("README.md"), "hello").unwrap();
        let first = epoch(&dir);
        assert_eq!(epoch(&dir), first, "the same tree, the same epoch");
        std::fs::write(dir.join("README.md"), "hello, longer").unwrap();
        assert_eq!(epoch(&dir), first, "a file that is no code changes nothing");
        std::fs::write(
            dir.join("node_modules/dep/lib/a.js"),
            "export const a = 22;",
        )
        .unwrap();
        let second = epoch(&dir);
        assert_ne!(second, first, "a dependency's file changed");
        std::fs::create_dir_all(dir.join(".git")).unwrap();
        std::fs::write(dir.join(".git/x.json"), "{}").unwrap();
        assert_eq!(epoch(&dir), second, ".git is not walked");
        std::fs::remove_dir_all(&dir).unwrap();
    }

    fn tempfile_dir() -> PathBuf {
        let dir = std::env::temp_dir().join(format!(
            "paseo-epoch-{}-{:?}",
            std::process::id(),
            std::thread::current().id()
        ));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).unwrap();
        dir
    }
}
