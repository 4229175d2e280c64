//! Audit mode (`"audit": true` in a plugin's policy, `paseo plugin audit ID`): the plugin runs
//! with full access, and every access it makes is recorded (kind, resource, count, first and
//! last time) in `audit.json` in its data folder, so that an audit survives reloads and
//! restarts; `policy_from` turns what was seen into the smallest policy that covers it,
//! generalised as an owner would write it (a folder, not 400 files; `$PLUGIN`, `$DATA`,
//! `$WORKSPACES`, `$TMP`, `~` where they apply).

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};
use std::sync::Mutex;
use std::time::{Duration, Instant, SystemTime, UNIX_EPOCH};

use serde::{Deserialize, Serialize};

use super::{resolve, which, Kind, Places, Policy};

/// The audit's file in the plugin's data folder.
pub const FILE: &str = "audit.json";

/// Distinct accesses one audit records at most; past it, new ones are not recorded (counts of
/// those seen go on).
pub const MAX_ENTRIES: usize = 10_000;
/// How long count and time updates may wait before they are written (a new access is written
/// at once).
const FLUSH_EVERY: Duration = Duration::from_secs(2);

/// One access seen: what kind, on what, how often, first and last (ms since the epoch).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Entry {
    pub kind: String,
    pub resource: String,
    pub count: u64,
    pub first: u64,
    pub last: u64,
}

/// A plugin's audit in progress.
pub struct Audit {
    file: Option<PathBuf>,
    seen: Mutex<Seen>,
}

struct Seen {
    entries: BTreeMap<(String, String), Entry>,
    flushed: Instant,
    dirty: bool,
}

fn kind_name(kind: Kind) -> &'static str {
    match kind {
        Kind::Read => "read",
        Kind::Write => "write",
        Kind::Net => "net",
        Kind::Run => "run",
        Kind::Env => "env",
        Kind::Sys => "sys",
    }
}

fn now_ms() -> u64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map_or(0, |d| d.as_millis() as u64)
}

impl Audit {
    /// Goes on with the audit recorded in `file`, if any (none: kept in memory only).
    pub fn open(file: Option<PathBuf>) -> Audit {
        let entries = file
            .as_deref()
            .map(read_entries)
            .unwrap_or_default()
            .into_iter()
            .map(|e| ((e.kind.clone(), e.resource.clone()), e))
            .collect();
        Audit {
            file,
            seen: Mutex::new(Seen {
                entries,
                flushed: Instant::now(),
                dirty: false,
            }),
        }
    }

    /// Records one access.
    pub fn note(&self, kind: Kind, resource: &str) {
        let now = now_ms();
        let mut seen = self.seen.lock().unwrap_or_else(|e| e.into_inner());
        let key = (kind_name(kind).to_string(), resource.to_string());
        let full = seen.entries.len() >= MAX_ENTRIES;
        let new = match seen.entries.get_mut(&key) {
            Some(entry) => {
                entry.count += 1;
                entry.last = now;
                false
            }
            None if full => return,
            None => {
                let entry = Entry {
                    kind: key.0.clone(),
                    resource: key.1.clone(),
                    count: 1,
                    first: now,
                    last: now,
                };
                seen.entries.insert(key, entry);
                true
            }
        };
        seen.dirty = true;
        if new || seen.flushed.elapsed() >= FLUSH_EVERY {
            self.flush(&mut seen);
        }
    }

    fn flush(&self, seen: &mut Seen) {
        let Some(file) = &self.file else {
            return;
        };
        // Merged with what is on disk: the isolate of a reload and the one it replaces may both
        // write for a moment.
        let mut merged: BTreeMap<(String, String), Entry> = read_entries(file)
            .into_iter()
            .map(|e| ((e.kind.clone(), e.resource.clone()), e))
            .collect();
        for (key, entry) in &seen.entries {
            merged
                .entry(key.clone())
                .and_modify(|e| {
                    e.count = e.count.max(entry.count);
                    e.first = e.first.min(entry.first);
                    e.last = e.last.max(entry.last);
                })
                .or_insert_with(|| entry.clone());
        }
        let entries: Vec<&Entry> = merged.values().collect();
        let text = serde_json::to_vec_pretty(&entries).unwrap_or_default();
        if crate::private_files::write_atomic(file, &text).is_ok() {
            seen.dirty = false;
            seen.flushed = Instant::now();
        }
    }

    /// What was seen so far.
    pub fn entries(&self) -> Vec<Entry> {
        let seen = self.seen.lock().unwrap_or_else(|e| e.into_inner());
        seen.entries.values().cloned().collect()
    }
}

impl Drop for Audit {
    fn drop(&mut self) {
        let mut seen = self.seen.lock().unwrap_or_else(|e| e.into_inner());
        if seen.dirty {
            self.flush(&mut seen);
        }
    }
}

/// The entries an audit wrote to `file` (none if it cannot be read).
pub fn read_entries(file: &Path) -> Vec<Entry> {
    std::fs::read(file)
        .ok()
        .and_then(|bytes| serde_json::from_slice(&bytes).ok())
        .unwrap_or_default()
}

/// The smallest policy that covers `entries`, generalised: a path under the plugin's folder,
/// its data, a workspace or the temp folder is that placeholder; another is the folder it is
/// in (a folder read is itself), and three or more folders side by side are their parent (never
/// `/` or the home folder itself); a host seen with a port keeps it; a program found on PATH
/// is its name.
pub fn policy_from(entries: &[Entry], places: &Places) -> Policy {
    fn of<'e>(entries: &'e [Entry], kind: &'static str) -> impl Iterator<Item = &'e Entry> {
        entries.iter().filter(move |e| e.kind == kind)
    }
    let net = {
        let seen: BTreeSet<String> = of(entries, "net").map(|e| e.resource.clone()).collect();
        let ported: BTreeSet<String> = seen
            .iter()
            .filter_map(|r| match super::split_host_port(r) {
                (host, Some(_)) => Some(host),
                _ => None,
            })
            .collect();
        seen.into_iter()
            .filter(|r| match super::split_host_port(r) {
                (_, Some(_)) => true,
                (host, None) => !ported.contains(&host),
            })
            .collect()
    };
    let path_var = std::env::var_os("PATH");
    let run = of(entries, "run")
        .map(|e| {
            let path = Path::new(&e.resource);
            let name = path.file_name().map(|n| n.to_string_lossy().into_owned());
            match name {
                Some(name) if which(&name, path_var.as_deref()).as_deref() == Some(path) => name,
                _ => e.resource.clone(),
            }
        })
        .collect::<BTreeSet<_>>()
        .into_iter()
        .collect();
    Policy {
        read: paths(of(entries, "read").map(|e| e.resource.as_str()), places),
        write: paths(of(entries, "write").map(|e| e.resource.as_str()), places),
        net,
        run,
        env: of(entries, "env")
            .map(|e| e.resource.clone())
            .collect::<BTreeSet<_>>()
            .into_iter()
            .collect(),
        sys: of(entries, "sys").next().is_some(),
        audit: false,
    }
}

fn paths<'a>(seen: impl Iterator<Item = &'a str>, places: &Places) -> Vec<String> {
    let home = places.home.as_deref().map(resolve);
    let workspaces: Vec<PathBuf> = places
        .workspaces
        .as_ref()
        .map(|list| list().iter().map(|w| resolve(w)).collect())
        .unwrap_or_default();
    let named: Vec<(&str, PathBuf)> = [
        Some(("$PLUGIN", resolve(&places.plugin))),
        places.data.as_deref().map(|d| ("$DATA", resolve(d))),
        Some(("$TMP", resolve(&places.tmp))),
    ]
    .into_iter()
    .flatten()
    .collect();
    let mut grants = BTreeSet::new();
    let mut folders = BTreeSet::new();
    for resource in seen {
        let path = Path::new(resource);
        if let Some((name, _)) = named.iter().find(|(_, p)| path.starts_with(p)) {
            grants.insert(name.to_string());
        } else if workspaces.iter().any(|w| path.starts_with(w)) {
            grants.insert("$WORKSPACES".to_string());
        } else {
            let folder = if path.is_dir() {
                path
            } else {
                path.parent().unwrap_or(path)
            };
            folders.insert(folder.to_path_buf());
        }
    }
    // Three or more folders side by side become their parent, as long as that is neither the
    // root nor the home folder itself.
    loop {
        let mut by_parent: BTreeMap<PathBuf, usize> = BTreeMap::new();
        for f in &folders {
            if let Some(parent) = f.parent() {
                *by_parent.entry(parent.to_path_buf()).or_default() += 1;
            }
        }
        let Some(parent) = by_parent.into_iter().find_map(|(parent, n)| {
            let broad = parent.parent().is_none() || Some(&parent) == home.as_ref();
            (n >= 3 && !broad).then_some(parent)
        }) else {
            break;
        };
        folders.retain(|f| f.parent() != Some(&parent));
        folders.insert(parent);
    }
    // A folder inside another one kept is covered by it.
    let kept: Vec<PathBuf> = folders.iter().cloned().collect();
    folders.retain(|f| !kept.iter().any(|o| o != f && f.starts_with(o)));
    for folder in folders {
        let shown = match home.as_deref().and_then(|h| folder.strip_prefix(h).ok()) {
            Some(rest) if !rest.as_os_str().is_empty() => format!("~/{}", rest.display()),
            _ => folder.display().to_string(),
        };
        grants.insert(shown);
    }
    grants.into_iter().collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn entry(kind: &str, resource: &str) -> Entry {
        Entry {
            kind: kind.into(),
            resource: resource.into(),
            count: 1,
            first: 0,
            last: 0,
        }
    }

    #[test]
    fn what_was_seen_becomes_a_policy_an_owner_would_write() {
        let root = tempfile::tempdir().unwrap();
        let root = root.path().canonicalize().unwrap();
        let home = root.join("home");
        for d in [
            "plugin/server",
            "data",
            "tmp",
            "home/.config/a",
            "home/.config/b",
            "home/.config/c",
            "srv/one",
            "ws",
        ] {
            std::fs::create_dir_all(root.join(d)).unwrap();
        }
        let ws = root.join("ws");
        let places = Places {
            plugin: root.join("plugin"),
            data: Some(root.join("data")),
            tmp: root.join("tmp"),
            workspaces: Some(std::sync::Arc::new(move || vec![ws.clone()])),
            home: Some(home.clone()),
        };
        let p = |s: &str| root.join(s).display().to_string();
        let entries = vec![
            entry("read", &p("plugin/server/x.ts")),
            entry("read", &p("data/settings.json")),
            entry("read", &p("home/.config/a/f")),
            entry("read", &p("home/.config/b/f")),
            entry("read", &p("home/.config/c/f")),
            entry("read", &p("srv/one/a.txt")),
            entry("read", &p("srv/one/b.txt")),
            entry("read", &p("ws/README")),
            entry("write", &p("tmp/out")),
            entry("net", "api.example.com:443"),
            entry("net", "api.example.com"),
            entry("net", "other.example"),
            entry("env", "PATH"),
            entry("env", "PATH"),
            entry("sys", "os.hostname()"),
        ];
        let policy = policy_from(&entries, &places);
        assert_eq!(
            policy.read,
            [
                "$DATA",
                "$PLUGIN",
                "$WORKSPACES",
                &p("srv/one"),
                "~/.config"
            ]
        );
        assert_eq!(policy.write, ["$TMP"]);
        assert_eq!(policy.net, ["api.example.com:443", "other.example"]);
        assert_eq!(policy.env, ["PATH"]);
        assert!(policy.sys);
    }

    #[test]
    fn an_audit_goes_on_from_its_file() {
        let dir = tempfile::tempdir().unwrap();
        let file = dir.path().join("audit.json");
        let audit = Audit::open(Some(file.clone()));
        audit.note(Kind::Read, "/etc/hostname");
        audit.note(Kind::Read, "/etc/hostname");
        drop(audit);
        let again = Audit::open(Some(file.clone()));
        let entries = again.entries();
        assert_eq!(entries.len(), 1);
        assert_eq!((entries[0].kind.as_str(), entries[0].count), ("read", 2));
        use std::os::unix::fs::PermissionsExt;
        assert_eq!(
            std::fs::metadata(&file).unwrap().permissions().mode() & 0o777,
            0o600
        );
    }
}
