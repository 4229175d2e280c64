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

use std::collections::{BTreeMap, HashMap};
use std::io::Write;
use std::os::unix::fs::{OpenOptionsExt, PermissionsExt};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};

use serde::{Deserialize, Serialize};
use serde_json::Value;

use paseo_plugin_runtime::private_files::{
    create_private_dir_all, remove_stale_temp_files, sync_dir, write_atomic,
};
use paseo_plugin_runtime::sdk::storage::revision_of;

/// The folders the daemon keeps in its home, created 0700: plugin settings and secrets, the
/// bytecode of plugin code, agents' worktrees and timelines are for the owner's eyes only.
/// (v8x writes bytecode files with the process umask, typically 0644, and takes no mode; the
/// 0700 folder around them is what keeps them private.)
/// How many of an agent's latest timeline items its view (`agent show`, the answers to `agent
/// send`, `agents.get` for plugins) carries: the whole history would make each of them cost more
/// the longer the agent lives. Plugins page through all of it with `timeline.refetch`.
pub const VIEW_TIMELINE_ITEMS: usize = 100;

pub const PRIVATE_DIRS: &[&str] = &[
    "plugin-settings",
    "cache",
    "cache/quickjs-bytecode",
    "worktrees",
    "timelines",
];

#[derive(Debug, Clone, Default, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct PluginConfig {
    pub source: String,
    pub path: PathBuf,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub enabled: Option<bool>,
}

impl PluginConfig {
    /// Paseo's rule: `enabled !== false` means enabled.
    pub fn is_enabled(&self) -> bool {
        self.enabled != Some(false)
    }
}

#[derive(Debug, Clone, Default, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Config {
    #[serde(default)]
    pub plugins_enabled: bool,
    #[serde(default)]
    pub plugins: BTreeMap<String, PluginConfig>,
    /// Keys we do not know are kept as they are.
    #[serde(flatten)]
    pub other: BTreeMap<String, Value>,
}

#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct AgentRecord {
    pub id: String,
    pub workspace_id: Option<String>,
    pub provider: String,
    pub cwd: String,
    pub title: Option<String>,
    #[serde(default)]
    pub labels: BTreeMap<String, String>,
    /// The saved `AgentSessionConfig` (after `agent.create.before`).
    pub config: Value,
    pub created_at: String,
    #[serde(default)]
    pub archived_at: Option<String>,
}

#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct WorktreeRecord {
    pub path: String,
    pub branch: String,
    pub repo_root: String,
}

#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct WorkspaceRecord {
    pub id: String,
    pub project_id: String,
    pub cwd: String,
    pub name: Option<String>,
    #[serde(default)]
    pub archived_at: Option<String>,
    #[serde(default)]
    pub worktree: Option<WorktreeRecord>,
    #[serde(default)]
    pub idempotency_key: Option<String>,
}

#[derive(Debug, Clone, Default, Serialize, Deserialize)]
pub struct State {
    #[serde(default)]
    pub agents: BTreeMap<String, AgentRecord>,
    #[serde(default)]
    pub workspaces: BTreeMap<String, WorkspaceRecord>,
    /// Only read: timelines that older versions kept inside `state.json`. Loading moves them
    /// into journals, and the next write of `state.json` leaves them out.
    #[serde(default, skip_serializing)]
    pub timelines: BTreeMap<String, Vec<Value>>,
    #[serde(default)]
    pub next_id: u64,
}

pub struct Store {
    pub home: PathBuf,
    /// Numbers `state.json` snapshots in the order they were taken (under the daemon's state lock).
    snapshots: AtomicU64,
    /// One writer of `state.json` at a time; holds the number of the snapshot on disk, so an
    /// older snapshot never overwrites a newer one.
    on_disk: Mutex<u64>,
    timelines: Mutex<HashMap<String, Arc<Mutex<Journal>>>>,
}

/// `state.json` as it was when taken, numbered.
pub struct StateSnapshot {
    number: u64,
    bytes: Vec<u8>,
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

    pub fn config_path(&self) -> PathBuf {
        self.home.join("config.json")
    }

    pub fn state_path(&self) -> PathBuf {
        self.home.join("state.json")
    }

    pub fn load_config(&self) -> Result<Config, String> {
        match std::fs::read(self.config_path()) {
            Ok(bytes) => serde_json::from_slice(&bytes)
                .map_err(|e| format!("Invalid {}: {e}", self.config_path().display())),
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(Config::default()),
            Err(e) => Err(e.to_string()),
        }
    }

    pub fn save_config(&self, config: &Config) -> Result<(), String> {
        write_atomic(
            &self.config_path(),
            serde_json::to_string_pretty(config).unwrap().as_bytes(),
        )
        .map_err(|e| e.to_string())
    }

    /// Reads `state.json` and every agent's journal (dropping a torn last line), and moves the
    /// timelines an older `state.json` holds into journals, durably, before rewriting it without
    /// them. A `state.json` that does not parse stops the start: it holds the agents and
    /// workspaces, and starting empty would silently lose them; the message says how to recover.
    pub fn load_state(&self) -> Result<State, String> {
        let path = self.state_path();
        let mut state: State = match std::fs::read(&path) {
            Ok(bytes) => serde_json::from_slice(&bytes).map_err(|e| {
                format!(
                    "Cannot start: {} is not valid JSON ({e}). It lists the daemon's agents and workspaces, so the daemon will not start over it; \
                     restore it from a backup, or move it aside (mv {0} {0}.corrupt) to start with none (their timelines in {1} stay)",
                    path.display(),
                    self.home.join("timelines").display()
                )
            })?,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => State::default(),
            Err(e) => return Err(format!("Cannot read {}: {e}", path.display())),
        };
        let legacy = std::mem::take(&mut state.timelines);
        for agent in state.agents.keys().chain(legacy.keys()) {
            self.journal(agent)?;
        }
        for (agent, items) in &legacy {
            let journal = self.journal(agent)?;
            let mut journal = journal.lock().unwrap();
            // A journal already on disk is newer than what `state.json` still holds.
            if !journal.on_disk {
                journal.items = items.clone();
                journal.rewrite()?;
            }
        }
        if !legacy.is_empty() {
            write_atomic(&path, &self.snapshot(&state).bytes)
                .map_err(|e| format!("Cannot rewrite {}: {e}", path.display()))?;
            tracing::info!(target: "paseo::daemon", "moved {} timeline(s) from {} into {}", legacy.len(), path.display(), self.home.join("timelines").display());
        }
        Ok(state)
    }

    /// Takes `state` as it is now; call it under the lock that guards `state`, so snapshots are
    /// numbered in the order of the changes they hold.
    pub fn snapshot(&self, state: &State) -> StateSnapshot {
        StateSnapshot {
            number: self.snapshots.fetch_add(1, Ordering::SeqCst) + 1,
            bytes: serde_json::to_vec(state).unwrap(),
        }
    }

    /// Writes a snapshot unless a newer one is already on disk (then the changes it holds are
    /// too). Returns once they are durable, or logs why not.
    pub fn write_state(&self, snapshot: StateSnapshot) {
        let mut on_disk = self.on_disk.lock().unwrap();
        if *on_disk >= snapshot.number {
            return;
        }
        let path = self.state_path();
        match write_atomic(&path, &snapshot.bytes) {
            Ok(()) => *on_disk = snapshot.number,
            Err(e) => {
                tracing::error!(target: "paseo::daemon", "cannot save {}: {e}", path.display())
            }
        }
    }

    /// Appends `item` to the agent's timeline; returns its sequence number once it is on disk.
    pub fn push_timeline(&self, agent: &str, item: Value) -> Result<usize, String> {
        self.edit_timeline(agent, |items| {
            items.push(item);
            Ok::<_, std::convert::Infallible>(items.len())
        })
        .unwrap_or_else(|never| match never {})
    }

    /// Changes one item of the agent's timeline: `edit` appends or replaces it and returns its
    /// sequence number, which is then journalled. `Err(E)`: `edit` refused (nothing changed);
    /// `Ok(Err(_))`: the change is in memory but could not be written (it will be with the next
    /// change, or at the clean stop).
    pub fn edit_timeline<E>(
        &self,
        agent: &str,
        edit: impl FnOnce(&mut Vec<Value>) -> Result<usize, E>,
    ) -> Result<Result<usize, String>, E> {
        let journal = match self.journal(agent) {
            Ok(journal) => journal,
            Err(e) => return Ok(Err(e)),
        };
        let mut journal = journal.lock().unwrap();
        let seq = edit(&mut journal.items)?;
        Ok(journal.record(seq).map(|()| seq))
    }

    /// Reads the agent's timeline (empty when it has none).
    pub fn read_timeline<T>(&self, agent: &str, read: impl FnOnce(&[Value]) -> T) -> T {
        let journal = self.timelines.lock().unwrap().get(agent).cloned();
        match journal {
            Some(journal) => read(&journal.lock().unwrap().items),
            None => read(&[]),
        }
    }

    /// The last `limit` items of the agent's timeline, and how many it has in all.
    pub fn timeline_tail(&self, agent: &str, limit: usize) -> (Vec<Value>, usize) {
        self.read_timeline(agent, |items| {
            (
                items[items.len().saturating_sub(limit)..].to_vec(),
                items.len(),
            )
        })
    }

    #[cfg(test)]
    pub fn timeline(&self, agent: &str) -> Vec<Value> {
        self.read_timeline(agent, <[Value]>::to_vec)
    }

    /// Rewrites the journals whose last change could not be written (the clean stop calls it).
    pub fn flush_timelines(&self) {
        let journals: Vec<_> = self.timelines.lock().unwrap().values().cloned().collect();
        for journal in journals {
            let mut journal = journal.lock().unwrap();
            if journal.dirty {
                if let Err(e) = journal.rewrite() {
                    tracing::error!(target: "paseo::daemon", "{e}");
                }
            }
        }
    }

    pub fn journal_path(&self, agent: &str) -> PathBuf {
        self.home.join("timelines").join(journal_file_name(agent))
    }

    /// The agent's journal, read from disk the first time it is needed.
    fn journal(&self, agent: &str) -> Result<Arc<Mutex<Journal>>, String> {
        let mut timelines = self.timelines.lock().unwrap();
        if let Some(journal) = timelines.get(agent) {
            return Ok(journal.clone());
        }
        let journal = Arc::new(Mutex::new(Journal::load(self.journal_path(agent))?));
        timelines.insert(agent.to_string(), journal.clone());
        Ok(journal)
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

/// An agent id names its journal only when it is plainly a file name (daemon ids, `agent-N`,
/// are); any other id a caller gave `agent create` (`../x`, `.`, 5,000 characters) is never
/// joined into a path: its journal is named by the id's sha256 instead (`~` cannot start a
/// plain name, so the two never meet).
pub fn journal_file_name(agent: &str) -> String {
    let plain = agent.len() <= 128
        && agent
            .bytes()
            .next()
            .is_some_and(|b| b.is_ascii_alphanumeric())
        && agent
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || matches!(b, b'.' | b'_' | b'-'));
    if plain {
        format!("{agent}.jsonl")
    } else {
        format!("~{}.jsonl", revision_of(Some(agent.as_bytes())))
    }
}

#[derive(Deserialize)]
struct JournalLine {
    seq: usize,
    item: Value,
}

#[derive(Serialize)]
struct JournalLineRef<'a> {
    seq: usize,
    item: &'a Value,
}

/// One agent's timeline: the items in memory, the journal on disk.
struct Journal {
    path: PathBuf,
    items: Vec<Value>,
    /// Lines in the file (more than items when rows were replaced).
    lines: usize,
    on_disk: bool,
    /// The last change could not be written: the next one rewrites the whole file instead of
    /// appending after what may be a partial line.
    dirty: bool,
}

impl Journal {
    fn load(path: PathBuf) -> Result<Journal, String> {
        let bytes = match std::fs::read(&path) {
            Ok(bytes) => bytes,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
                return Ok(Journal {
                    path,
                    items: vec![],
                    lines: 0,
                    on_disk: false,
                    dirty: false,
                })
            }
            Err(e) => return Err(format!("Cannot read {}: {e}", path.display())),
        };
        let complete = bytes.iter().rposition(|&b| b == b'\n').map_or(0, |i| i + 1);
        if complete < bytes.len() {
            tracing::warn!(target: "paseo::daemon", "dropped the torn last line of {} ({} bytes): the daemon stopped in the middle of appending it", path.display(), bytes.len() - complete);
            // Cut it off, so the next append starts a line of its own.
            let cut = std::fs::OpenOptions::new()
                .write(true)
                .open(&path)
                .and_then(|f| f.set_len(complete as u64).and_then(|()| f.sync_all()));
            cut.map_err(|e| format!("Cannot repair {}: {e}", path.display()))?;
        }
        let mut items: Vec<Value> = vec![];
        let mut lines = 0;
        for (n, line) in bytes[..complete]
            .split(|&b| b == b'\n')
            .enumerate()
            .filter(|(_, l)| !l.is_empty())
        {
            lines += 1;
            match serde_json::from_slice::<JournalLine>(line) {
                Ok(JournalLine { seq, item }) if (1..=items.len()).contains(&seq) => {
                    items[seq - 1] = item
                }
                Ok(JournalLine { seq, item }) if seq == items.len() + 1 => items.push(item),
                Ok(JournalLine { seq, .. }) => {
                    tracing::warn!(target: "paseo::daemon", "skipped line {} of {}: item {seq} does not follow item {}", n + 1, path.display(), items.len())
                }
                Err(e) => {
                    tracing::warn!(target: "paseo::daemon", "skipped line {} of {}: {e}", n + 1, path.display())
                }
            }
        }
        let mut journal = Journal {
            path,
            items,
            lines,
            on_disk: true,
            dirty: false,
        };
        // Many replaced rows (progress updates): start again from one line per item.
        if journal.lines > 2 * journal.items.len() + 64 {
            journal.rewrite()?;
        }
        Ok(journal)
    }

    /// Appends the line for item `seq`, fsynced (and the folder, when it creates the file).
    fn record(&mut self, seq: usize) -> Result<(), String> {
        if self.dirty {
            return self.rewrite();
        }
        let mut line = serde_json::to_vec(&JournalLineRef {
            seq,
            item: &self.items[seq - 1],
        })
        .unwrap();
        line.push(b'\n');
        let appended = std::fs::OpenOptions::new()
            .append(true)
            .create(true)
            .mode(0o600)
            .open(&self.path)
            .and_then(|mut file| {
                file.write_all(&line)?;
                file.sync_data()?;
                if !self.on_disk {
                    sync_dir(self.path.parent().unwrap())?;
                }
                Ok(())
            });
        match appended {
            Ok(()) => {
                self.on_disk = true;
                self.lines += 1;
                Ok(())
            }
            Err(e) => {
                self.dirty = true;
                Err(format!("cannot save {}: {e}", self.path.display()))
            }
        }
    }

    /// Writes the whole journal again, one line per item, atomically.
    fn rewrite(&mut self) -> Result<(), String> {
        let mut bytes = Vec::new();
        for (i, item) in self.items.iter().enumerate() {
            serde_json::to_writer(&mut bytes, &JournalLineRef { seq: i + 1, item }).unwrap();
            bytes.push(b'\n');
        }
        match write_atomic(&self.path, &bytes) {
            Ok(()) => {
                (self.on_disk, self.dirty, self.lines) = (true, false, self.items.len());
                Ok(())
            }
            Err(e) => {
                self.dirty = true;
                Err(format!("cannot save {}: {e}", self.path.display()))
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn store() -> (tempfile::TempDir, Store) {
        let home = tempfile::tempdir().unwrap();
        let store = Store::open(home.path().to_path_buf()).unwrap();
        (home, store)
    }

    /// A store whose saved state holds one agent.
    fn store_with_agent(id: &str) -> (tempfile::TempDir, Store) {
        let (home, store) = store();
        let mut state = State::default();
        state.agents.insert(id.into(), agent(id));
        store.write_state(store.snapshot(&state));
        (home, store)
    }

    fn reopen(home: &tempfile::TempDir) -> (Store, State) {
        let store = Store::open(home.path().to_path_buf()).unwrap();
        let state = store.load_state().unwrap();
        (store, state)
    }

    fn agent(id: &str) -> AgentRecord {
        AgentRecord {
            id: id.into(),
            workspace_id: None,
            provider: "scripted".into(),
            cwd: "/".into(),
            title: None,
            labels: BTreeMap::new(),
            config: json!({}),
            created_at: "now".into(),
            archived_at: None,
        }
    }

    fn lines(path: &Path) -> Vec<String> {
        std::fs::read_to_string(path)
            .unwrap()
            .lines()
            .map(str::to_string)
            .collect()
    }

    fn mode(path: &Path) -> u32 {
        std::fs::metadata(path).unwrap().permissions().mode() & 0o777
    }

    /// A pid no process has: one of a child that has been reaped.
    fn dead_pid() -> u32 {
        let mut child = std::process::Command::new("true").spawn().unwrap();
        let pid = child.id();
        child.wait().unwrap();
        pid
    }

    #[test]
    fn concurrent_atomic_writes_of_one_file_never_collide_nor_tear() {
        let (home, _store) = store();
        let path = home.path().join("state.json");
        std::thread::scope(|s| {
            for t in 0..8 {
                let path = &path;
                s.spawn(move || {
                    for i in 0..50 {
                        let body = serde_json::to_vec(
                            &json!({ "writer": t, "i": i, "pad": "x".repeat(20_000) }),
                        )
                        .unwrap();
                        write_atomic(path, &body).unwrap();
                        // A reader in the middle of it all sees a whole file.
                        serde_json::from_slice::<Value>(&std::fs::read(path).unwrap()).unwrap();
                    }
                });
            }
        });
        assert_eq!(mode(&path), 0o600);
        let left: Vec<_> = std::fs::read_dir(home.path())
            .unwrap()
            .map(|e| e.unwrap().file_name().into_string().unwrap())
            .filter(|n| n.ends_with(".tmp"))
            .collect();
        assert_eq!(left, Vec::<String>::new());
    }

    #[test]
    fn an_older_snapshot_never_lands_over_a_newer_one() {
        let (_home, store) = store();
        let mut state = State {
            next_id: 1,
            ..State::default()
        };
        let older = store.snapshot(&state);
        state.next_id = 2;
        let newer = store.snapshot(&state);
        store.write_state(newer);
        store.write_state(older);
        assert_eq!(store.load_state().unwrap().next_id, 2);
    }

    #[test]
    fn timelines_are_journals_that_grow_one_line_per_item_and_leave_state_json_alone() {
        let (home, store) = store_with_agent("agent-1");
        let before = std::fs::read(store.state_path()).unwrap();
        for n in 1..=3 {
            assert_eq!(
                store.push_timeline("agent-1", json!({ "type": "assistant_message", "text": n })),
                Ok(n)
            );
            assert_eq!(lines(&store.journal_path("agent-1")).len(), n);
        }
        assert_eq!(std::fs::read(store.state_path()).unwrap(), before);
        let line: Value = serde_json::from_str(&lines(&store.journal_path("agent-1"))[2]).unwrap();
        assert_eq!(
            line,
            json!({ "seq": 3, "item": { "type": "assistant_message", "text": 3 } })
        );
        // A replaced row is one more line; replaying gives the replaced item in its place.
        let replaced = store.edit_timeline("agent-1", |items| {
            items[1] = json!({ "type": "plugin", "id": "p" });
            Ok::<_, String>(2)
        });
        assert_eq!(replaced, Ok(Ok(2)));
        assert_eq!(lines(&store.journal_path("agent-1")).len(), 4);
        let refused = store.edit_timeline("agent-1", |_| Err::<usize, _>("no".to_string()));
        assert_eq!(refused, Err("no".to_string()));
        let (store, _) = reopen(&home);
        assert_eq!(
            store.timeline("agent-1"),
            [
                json!({ "type": "assistant_message", "text": 1 }),
                json!({ "type": "plugin", "id": "p" }),
                json!({ "type": "assistant_message", "text": 3 })
            ]
        );
        assert_eq!(mode(&store.journal_path("agent-1")), 0o600);
        assert_eq!(mode(&home.path().join("timelines")), 0o700);
    }

    #[test]
    fn a_torn_last_line_is_dropped_and_the_next_append_starts_a_line_of_its_own() {
        let (home, store) = store_with_agent("agent-1");
        store
            .push_timeline("agent-1", json!({ "type": "user_message", "text": "kept" }))
            .unwrap();
        let path = store.journal_path("agent-1");
        drop(store);
        std::fs::OpenOptions::new()
            .append(true)
            .open(&path)
            .unwrap()
            .write_all(br#"{"seq":2,"item":{"type":"user_mes"#)
            .unwrap();
        let (store, _) = reopen(&home);
        assert_eq!(
            store.timeline("agent-1"),
            [json!({ "type": "user_message", "text": "kept" })]
        );
        assert_eq!(
            store.push_timeline("agent-1", json!({ "type": "user_message", "text": "next" })),
            Ok(2)
        );
        let (store, _) = reopen(&home);
        assert_eq!(store.timeline("agent-1").len(), 2);
        assert_eq!(lines(&path).len(), 2);
    }

    #[test]
    fn timelines_inside_an_old_state_json_move_into_journals() {
        let home = tempfile::tempdir().unwrap();
        let old = json!({
            "agents": { "agent-1": agent("agent-1") }, "workspaces": {}, "next_id": 7,
            "timelines": { "agent-1": [{ "type": "user_message", "text": "hi" }, { "type": "assistant_message", "text": "hello" }] },
        });
        std::fs::write(home.path().join("state.json"), old.to_string()).unwrap();
        let (store, state) = reopen(&home);
        assert_eq!((state.next_id, state.agents.len()), (7, 1));
        assert_eq!(store.timeline("agent-1").len(), 2);
        assert_eq!(lines(&store.journal_path("agent-1")).len(), 2);
        let saved: Value =
            serde_json::from_slice(&std::fs::read(store.state_path()).unwrap()).unwrap();
        assert_eq!(saved.get("timelines"), None);
        assert_eq!(saved["next_id"], 7);
        let (store, _) = reopen(&home);
        assert_eq!(
            store.timeline("agent-1")[1],
            json!({ "type": "assistant_message", "text": "hello" })
        );
    }

    #[test]
    fn a_corrupt_state_json_stops_the_start_with_how_to_recover() {
        let home = tempfile::tempdir().unwrap();
        let path = home.path().join("state.json");
        std::fs::write(&path, r#"{"agents":{}}{"agents""#).unwrap();
        let store = Store::open(home.path().to_path_buf()).unwrap();
        let p = path.display();
        assert_eq!(
            store.load_state().err().unwrap(),
            format!(
                "Cannot start: {p} is not valid JSON (trailing characters at line 1 column 14). It lists the daemon's agents and workspaces, so the daemon will not start over it; \
                 restore it from a backup, or move it aside (mv {p} {p}.corrupt) to start with none (their timelines in {} stay)",
                home.path().join("timelines").display()
            )
        );
        assert_eq!(
            std::fs::read_to_string(&path).unwrap(),
            r#"{"agents":{}}{"agents""#
        );
    }

    #[test]
    fn opening_removes_only_the_temp_files_of_dead_writers() {
        let home = tempfile::tempdir().unwrap();
        let dead = dead_pid();
        let settings = home.path().join("plugin-settings/notes");
        std::fs::create_dir_all(&settings).unwrap();
        let stale = [
            home.path().join(format!(".state.json.{dead}.3.tmp")),
            home.path().join(format!(".state.json.{dead}.tmp")),
            home.path()
                .join(format!("timelines/.agent-1.jsonl.{dead}.0.tmp")),
            settings.join(format!("._secrets.json.{dead}.1.tmp")),
        ];
        let kept = [
            home.path().join(format!(
                ".state.json.{}.0.tmp",
                std::os::unix::process::parent_id()
            )),
            home.path().join(".notes.tmp"),
            home.path().join("cache/quickjs-bytecode/00ff.tmp"),
            settings.join("prefs.json"),
        ];
        std::fs::create_dir_all(home.path().join("timelines")).unwrap();
        std::fs::create_dir_all(home.path().join("cache/quickjs-bytecode")).unwrap();
        for file in stale.iter().chain(&kept) {
            std::fs::write(file, "x").unwrap();
        }
        Store::open(home.path().to_path_buf()).unwrap();
        for file in &stale {
            assert!(!file.exists(), "{} was left", file.display());
        }
        for file in &kept {
            assert!(file.exists(), "{} was removed", file.display());
        }
        // Folders older versions made 0755 are the daemon's: taken back to 0700.
        for dir in PRIVATE_DIRS
            .iter()
            .map(|d| home.path().join(d))
            .chain([settings])
        {
            assert_eq!(mode(&dir), 0o700, "{}", dir.display());
        }
    }

    #[test]
    fn an_agent_id_that_is_not_a_plain_file_name_never_reaches_a_path() {
        assert_eq!(journal_file_name("agent-12"), "agent-12.jsonl");
        for id in [
            "../../escape",
            "..",
            ".",
            "",
            ".hidden",
            "a/b",
            &"x".repeat(5000),
            "caf\u{e9}",
        ] {
            let name = journal_file_name(id);
            assert!(
                name.starts_with('~') && name.len() == 71 && !name.contains('/'),
                "{id:?} → {name}"
            );
        }
        assert_ne!(journal_file_name("../a"), journal_file_name("../b"));
    }
}
