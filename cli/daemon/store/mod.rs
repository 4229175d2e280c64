//! The daemon's state on disk under `$PASEO_HOME`:
//! - `config.json`, Paseo's layout (`pluginsEnabled`, `plugins: { id: { source, path, enabled } }`);
//! - `state.json`: agents, workspaces and the id counter. Small, so each change rewrites it
//!   whole, atomically (`write_atomic`);
//! - `timelines/<agentId>.jsonl`: each agent's timeline as an append-only journal, one
//!   `{"seq":N,"item":…}` line per change, N the item's 1-based position (a line for an N already
//!   seen replaces that item, as a plugin row update does). An append costs O(item), however
//!   long the history; a whole-history rewrite per change made every turn slower than the last.
//!
//! Durability: a change is on disk (fsynced) before the call that made it returns; nothing
//! waits for the clean stop (which saves once more anyway). A kill at any moment leaves the
//! previous or the new `state.json`, and at worst a torn last journal line, which the next start
//! drops with a warning (it belonged to an append that had not returned).
//!
//! Everything here is the owner's alone: folders are created 0700, files 0600.
//!
//! This file opens the home and holds the [`Store`]; the rest, by job: `config.rs` reads and
//! writes `config.json`, `state.rs` the `state.json` records and snapshots, `timelines.rs` the
//! agents' journals.

mod config;
mod state;
mod timelines;

#[cfg(test)]
mod tests;

use std::collections::HashMap;
use std::os::unix::fs::PermissionsExt;
use std::path::{Path, PathBuf};
use std::sync::atomic::AtomicU64;
use std::sync::{Arc, Mutex};

use paseo_plugin_runtime::private_files::{create_private_dir_all, remove_stale_temp_files};

pub use config::{Config, PluginConfig};
pub use state::{AgentRecord, State, WorkspaceRecord, WorktreeRecord};
use timelines::Journal;
pub use timelines::VIEW_TIMELINE_ITEMS;

/// The folders the daemon keeps in its home, created 0700: plugin settings and secrets, the
/// bytecode of plugin code, agents' worktrees and timelines are for the owner's eyes only.
/// (v8x writes bytecode files with the process umask, typically 0644, and takes no mode; the
/// 0700 folder around them is what keeps them private.)
pub const PRIVATE_DIRS: &[&str] = &[
    "plugin-settings",
    "cache",
    "cache/quickjs-bytecode",
    "worktrees",
    "timelines",
];

pub struct Store {
    pub home: PathBuf,
    /// Numbers `state.json` snapshots in the order they were taken (under the daemon's state lock).
    snapshots: AtomicU64,
    /// One writer of `state.json` at a time; holds the number of the snapshot on disk, so an
    /// older snapshot never overwrites a newer one.
    on_disk: Mutex<u64>,
    timelines: Mutex<HashMap<String, Arc<Mutex<Journal>>>>,
}

impl Store {
    /// Prepares a home the caller has already created and locked: the private folders, and no
    /// temp files a killed daemon left (only names `write_atomic` makes, only of dead processes).
    /// A home the user made is left as it is, with a warning when others may write to it.
    pub fn open(home: PathBuf) -> Result<Store, String> {
        let mode = std::fs::metadata(&home)
            .map_err(|e| format!("Cannot open {}: {e}", home.display()))?
            .permissions()
            .mode();
        if mode & 0o022 != 0 {
            tracing::warn!(target: "paseo::daemon", "{} is writable by other users (mode {:o}): they could replace the daemon's state; run chmod 700 on it", home.display(), mode & 0o777);
        }
        for dir in PRIVATE_DIRS {
            private_dir(&home.join(dir))?;
        }
        let mut swept = vec![home.clone(), home.join("timelines")];
        if let Ok(entries) = std::fs::read_dir(home.join("plugin-settings")) {
            for entry in entries
                .flatten()
                .filter(|e| e.file_type().is_ok_and(|t| t.is_dir()))
            {
                private_dir(&entry.path())?;
                swept.push(entry.path());
            }
        }
        for dir in swept {
            let removed = remove_stale_temp_files(&dir);
            if !removed.is_empty() {
                tracing::warn!(target: "paseo::daemon", "removed {} temp file(s) an interrupted write left in {}: {}", removed.len(), dir.display(), removed.join(", "));
            }
        }
        Ok(Store {
            home,
            snapshots: AtomicU64::new(0),
            on_disk: Mutex::new(0),
            timelines: Mutex::default(),
        })
    }
}

/// Creates `dir` 0700, or takes an existing one back to 0700 (older versions made them 0755;
/// they are the daemon's own, not the user's).
fn private_dir(dir: &Path) -> Result<(), String> {
    create_private_dir_all(dir).map_err(|e| format!("Cannot create {}: {e}", dir.display()))?;
    let mode = std::fs::metadata(dir)
        .map_err(|e| format!("Cannot open {}: {e}", dir.display()))?
        .permissions()
        .mode();
    if mode & 0o077 != 0 {
        std::fs::set_permissions(dir, std::fs::Permissions::from_mode(0o700))
            .map_err(|e| format!("Cannot make {} private: {e}", dir.display()))?;
    }
    Ok(())
}
