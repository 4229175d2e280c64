//! What is on disk of the managed plugins: the version root a plugin's path lies in and how it
//! sits there, its revision, the records of `plugins/sources.json`, and placing a prepared
//! version from staging.

use std::collections::BTreeMap;
use std::path::{Component, Path, PathBuf};

use serde_json::Value;

use paseo_plugin_runtime::private_files::{create_private_dir_all, write_atomic};

use super::fetch::Fetched;
use super::SourceRecord;

pub(super) fn lock_entry(root: &Path, package: &str) -> Value {
    let lock: Value = std::fs::read_to_string(root.join("package-lock.json"))
        .ok()
        .and_then(|s| serde_json::from_str(&s).ok())
        .unwrap_or_default();
    lock["packages"][format!("node_modules/{package}")].clone()
}

/// The version root (`plugins/<id>/<uuid>`) a managed plugin's path lies in.
pub(crate) fn version_root(plugins: &Path, id: &str, plugin_path: &Path) -> Option<PathBuf> {
    let base = plugins.join(id);
    let rest = plugin_path.strip_prefix(&base).ok()?;
    let first = rest.components().next()?;
    matches!(first, Component::Normal(_)).then(|| base.join(first))
}

/// How a managed plugin's path sits in its version root: the npm package and the subfolder.
pub(crate) struct Layout {
    pub package: Option<String>,
    pub subpath: Option<String>,
}

pub(crate) fn layout(root: &Path, plugin_path: &Path) -> Layout {
    let rest = plugin_path.strip_prefix(root).unwrap_or(plugin_path);
    let parts: Vec<String> = rest
        .components()
        .map(|c| c.as_os_str().to_string_lossy().into_owned())
        .collect();
    let join = |p: &[String]| (!p.is_empty()).then(|| p.join("/"));
    match parts.first().map(String::as_str) {
        Some("node_modules") => {
            let scoped = parts.get(1).is_some_and(|p| p.starts_with('@'));
            let n = if scoped { 3 } else { 2 };
            Layout {
                package: (parts.len() >= n).then(|| parts[1..n].join("/")),
                subpath: join(parts.get(n..).unwrap_or_default()),
            }
        }
        _ => Layout {
            package: None,
            subpath: join(parts.get(1..).unwrap_or_default()),
        },
    }
}

/// The revision of a managed plugin, read from its files: the commit Git checked out, or the
/// version npm locked.
pub(crate) fn revision(plugins: &Path, id: &str, plugin_path: &Path) -> Option<String> {
    let root = version_root(plugins, id, plugin_path)?;
    match layout(&root, plugin_path).package {
        Some(package) => lock_entry(&root, &package)["version"]
            .as_str()
            .map(str::to_string),
        None => std::fs::read_to_string(root.join("checkout/.git/HEAD"))
            .ok()
            .map(|h| h.trim().to_string())
            .filter(|h| !h.starts_with("ref:")),
    }
}

/// One record of `sources.json`: ours, or Paseo's earlier layout (`remote`, `requestedRef`,
/// `trackingBranch`, `commit`, `pluginPath`, `checkoutRoot`, no `kind`), which is a Git source
/// whose checkout and revision are read back from the plugin's folder, as ours are.
fn parse_record(value: &serde_json::Value) -> Option<SourceRecord> {
    if value.get("kind").is_some() {
        return serde_json::from_value(value.clone()).ok();
    }
    let remote = value.get("remote")?.as_str()?;
    Some(SourceRecord::Git {
        remote: remote.to_string(),
        registry: None,
    })
}

/// What `sources.json` holds: the records that can be read, and the raw JSON of those that
/// cannot (kept as they are by `write_records`).
fn read_file(
    plugins: &Path,
) -> (
    BTreeMap<String, SourceRecord>,
    serde_json::Map<String, serde_json::Value>,
) {
    let path = plugins.join("sources.json");
    let text = match std::fs::read_to_string(&path) {
        Ok(text) => text,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Default::default(),
        Err(e) => {
            tracing::warn!(path = %path.display(), error = %e, "cannot read the plugin source records");
            return Default::default();
        }
    };
    let mut records = BTreeMap::new();
    let mut unreadable = serde_json::Map::new();
    match serde_json::from_str::<serde_json::Value>(&text) {
        Ok(serde_json::Value::Object(entries)) => {
            for (id, value) in entries {
                match parse_record(&value) {
                    Some(record) => {
                        records.insert(id, record);
                    }
                    None => {
                        unreadable.insert(id, value);
                    }
                }
            }
            if !unreadable.is_empty() {
                let ids: Vec<&String> = unreadable.keys().collect();
                tracing::warn!(path = %path.display(), records = ?ids,
                    "plugin source records that cannot be read are kept as they are; those plugins cannot be updated");
            }
        }
        _ => {
            // Nothing in it can be read: kept aside whole before anything overwrites it.
            let aside = keep_aside(&path, &text);
            tracing::warn!(path = %path.display(), kept = %aside,
                "the plugin source records cannot be read; the file is kept aside");
        }
    }
    (records, unreadable)
}

/// Copies an unreadable file to `<file>.corrupt-<unix time>` (0600, written atomically), once
/// per content: the same bytes already kept aside are not copied again.
fn keep_aside(path: &Path, text: &str) -> String {
    let dir = path.parent().unwrap_or(Path::new("."));
    let name = path.file_name().unwrap_or_default().to_string_lossy();
    let prefix = format!("{name}.corrupt-");
    if let Ok(entries) = std::fs::read_dir(dir) {
        for entry in entries.flatten() {
            let kept = entry.file_name().to_string_lossy().starts_with(&prefix)
                && std::fs::read_to_string(entry.path()).is_ok_and(|t| t == text);
            if kept {
                return entry.path().display().to_string();
            }
        }
    }
    let seconds = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_secs());
    let aside = dir.join(format!("{prefix}{seconds}"));
    let _ = write_atomic(&aside, text.as_bytes());
    aside.display().to_string()
}

/// `plugins/sources.json`: every record that can be read. One that cannot (hand-edited, or
/// from a newer version) costs only its own plugin's updates, never the others' records.
pub(crate) fn read_records(plugins: &Path) -> BTreeMap<String, SourceRecord> {
    read_file(plugins).0
}

/// Writes the records, keeping every record of the file that could not be read, unchanged,
/// unless `records` now has one of its own for that plugin.
pub(crate) fn write_records(
    plugins: &Path,
    records: &BTreeMap<String, SourceRecord>,
) -> Result<(), String> {
    let mut all = read_file(plugins).1;
    for (id, record) in records {
        all.insert(id.clone(), serde_json::to_value(record).unwrap());
    }
    let text = serde_json::to_string_pretty(&all).unwrap();
    write_atomic(&plugins.join("sources.json"), text.as_bytes()).map_err(|e| {
        format!(
            "Cannot write {}: {e}",
            plugins.join("sources.json").display()
        )
    })
}

/// Moves a prepared version from staging to `plugins/<id>/<uuid>`; returns the plugin folder's
/// new path.
pub(crate) fn place(plugins: &Path, id: &str, fetched: &Fetched) -> Result<PathBuf, String> {
    let parent = plugins.join(id);
    create_private_dir_all(&parent).map_err(|e| e.to_string())?;
    let name = fetched.root.file_name().expect("staging folder has a name");
    let target = parent.join(name);
    std::fs::rename(&fetched.root, &target).map_err(|e| format!("Cannot place the plugin: {e}"))?;
    let relative = fetched
        .plugin_dir
        .strip_prefix(fetched.root.canonicalize().unwrap_or(fetched.root.clone()))
        .or_else(|_| fetched.plugin_dir.strip_prefix(&fetched.root))
        .map(Path::to_path_buf)
        .unwrap_or_default();
    Ok(target.join(relative))
}

/// Removes what a killed install or update left in staging.
pub(crate) fn clean_staging(plugins: &Path) {
    let _ = std::fs::remove_dir_all(plugins.join(".staging"));
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_version_root_and_its_layout_are_read_back_from_the_path() {
        let plugins = Path::new("/h/plugins");
        let npm = Path::new("/h/plugins/x/u1/node_modules/@s/p/server");
        let root = version_root(plugins, "x", npm).unwrap();
        assert_eq!(root, Path::new("/h/plugins/x/u1"));
        let l = layout(&root, npm);
        assert_eq!(
            (l.package.as_deref(), l.subpath.as_deref()),
            (Some("@s/p"), Some("server"))
        );
        let git = Path::new("/h/plugins/x/u2/checkout/a/b");
        let l = layout(&version_root(plugins, "x", git).unwrap(), git);
        assert_eq!((l.package, l.subpath.as_deref()), (None, Some("a/b")));
        assert!(version_root(plugins, "x", Path::new("/elsewhere/x")).is_none());
    }
}
