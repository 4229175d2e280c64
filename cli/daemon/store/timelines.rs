//! The agents' timelines: one append-only journal per agent under `timelines/`, read back on
//! the first use (a torn last line dropped), appended to one fsynced line per change, and
//! rewritten whole when a change could not be written or replaced rows pile up.

use std::collections::BTreeMap;
use std::io::Write;
use std::os::unix::fs::OpenOptionsExt;
use std::path::PathBuf;
use std::sync::{Arc, Mutex};

use serde::{Deserialize, Serialize};
use serde_json::Value;

use paseo_plugin_runtime::private_files::{sync_dir, write_atomic};
use paseo_plugin_runtime::sdk::storage::revision_of;

use super::Store;

/// How many of an agent's latest timeline items its view (`agent show`, the answers to `agent
/// send`, `agents.get` for plugins) carries: the whole history would make each of them cost more
/// the longer the agent lives. Plugins page through all of it with `timeline.refetch`.
pub const VIEW_TIMELINE_ITEMS: usize = 100;

impl Store {
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

    /// For `load_state`: reads the journal of each of `agents` and of `legacy`, then moves the
    /// `legacy` timelines (those an older `state.json` holds) into journals, durably.
    pub(super) fn load_timelines<'a>(
        &self,
        agents: impl Iterator<Item = &'a String>,
        legacy: &'a BTreeMap<String, Vec<Value>>,
    ) -> Result<(), String> {
        for agent in agents.chain(legacy.keys()) {
            self.journal(agent)?;
        }
        for (agent, items) in legacy {
            let journal = self.journal(agent)?;
            let mut journal = journal.lock().unwrap();
            // A journal already on disk is newer than what `state.json` still holds.
            if !journal.on_disk {
                journal.items = items.clone();
                journal.rewrite()?;
            }
        }
        Ok(())
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

/// An agent id names its journal only when it is plainly a file name (daemon ids, `agent-N`,
/// are); any other id a caller gave `agent create` (`../x`, `.`, 5,000 characters) is never
/// joined into a path: its journal is named by the id's sha256 instead (`~` cannot start a
/// plain name, so the two never meet).
pub(super) fn journal_file_name(agent: &str) -> String {
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
pub(super) struct Journal {
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
