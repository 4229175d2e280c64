//! Plugin settings documents and secrets on the daemon host, in `<settings dir>/<plugin id>/`:
//! one `<settingsId>.json` per settings document and `_secrets.json`, written atomically
//! (`private_files::write_atomic`: mode 0600, in a folder created 0700). A settings revision is the sha256 of
//! the raw file, or `"missing"` when there is none.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use deno_core::{op2, OpState};
use deno_error::JsErrorBox;
use serde::Serialize;
use sha2::{Digest, Sha256};

use crate::engine::PluginShared;
use crate::private_files::write_atomic;

const SETTINGS_UNAVAILABLE: &str = "Plugin settings storage is unavailable";
const SECRETS_UNAVAILABLE: &str = "Plugin secret storage is unavailable";

fn dir(state: &OpState, unavailable: &'static str) -> Result<PathBuf, JsErrorBox> {
    state
        .borrow::<Arc<PluginShared>>()
        .storage_dir
        .clone()
        .ok_or_else(|| JsErrorBox::generic(unavailable))
}

pub fn revision_of(raw: Option<&[u8]>) -> String {
    match raw {
        None => "missing".into(),
        Some(bytes) => Sha256::digest(bytes)
            .iter()
            .map(|b| format!("{b:02x}"))
            .collect(),
    }
}

fn settings_path(state: &OpState, id: &str) -> Result<PathBuf, JsErrorBox> {
    if id.is_empty()
        || !id
            .bytes()
            .all(|b| b.is_ascii_lowercase() || b.is_ascii_digit() || b == b'_' || b == b'-')
    {
        return Err(JsErrorBox::generic("Invalid settings ID"));
    }
    Ok(dir(state, SETTINGS_UNAVAILABLE)?.join(format!("{id}.json")))
}

#[derive(Serialize)]
pub struct StoredDocument {
    raw: Option<String>,
    revision: String,
}

#[op2]
#[serde]
pub fn op_settings_read(
    state: &mut OpState,
    #[string] id: &str,
) -> Result<StoredDocument, JsErrorBox> {
    let path = settings_path(state, id)?;
    match std::fs::read(&path) {
        Ok(bytes) => Ok(StoredDocument {
            revision: revision_of(Some(&bytes)),
            raw: Some(String::from_utf8_lossy(&bytes).into_owned()),
        }),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(StoredDocument {
            raw: None,
            revision: revision_of(None),
        }),
        Err(e) => Err(JsErrorBox::generic(format!(
            "Cannot read settings {id}: {e}"
        ))),
    }
}

/// Writes a settings document if the stored revision is still `expected`; returns the new
/// revision, or `null` on a conflict.
#[op2]
#[string]
pub fn op_settings_write(
    state: &mut OpState,
    #[string] id: &str,
    #[string] raw: &str,
    #[string] expected: &str,
) -> Result<Option<String>, JsErrorBox> {
    let path = settings_path(state, id)?;
    let current = std::fs::read(&path).ok();
    if revision_of(current.as_deref()) != expected {
        return Ok(None);
    }
    write_atomic(&path, raw.as_bytes())
        .map_err(|e| JsErrorBox::generic(format!("Cannot write settings {id}: {e}")))?;
    Ok(Some(revision_of(Some(raw.as_bytes()))))
}

/// Removes a settings document if the stored revision is still `expected`.
#[op2(fast)]
pub fn op_settings_delete(
    state: &mut OpState,
    #[string] id: &str,
    #[string] expected: &str,
) -> Result<bool, JsErrorBox> {
    let path = settings_path(state, id)?;
    let current = std::fs::read(&path).ok();
    if revision_of(current.as_deref()) != expected {
        return Ok(false);
    }
    match std::fs::remove_file(&path) {
        Ok(()) => Ok(true),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(true),
        Err(e) => Err(JsErrorBox::generic(format!(
            "Cannot reset settings {id}: {e}"
        ))),
    }
}

fn secret_key(key: &str) -> Result<(), JsErrorBox> {
    let mut bytes = key.bytes();
    let ok = matches!(bytes.next(), Some(b'a'..=b'z' | b'0'..=b'9'))
        && bytes.all(|b| matches!(b, b'a'..=b'z' | b'0'..=b'9' | b'.' | b'_' | b'-'));
    if ok {
        Ok(())
    } else {
        Err(JsErrorBox::generic(format!(
            "Invalid plugin secret key: {key}"
        )))
    }
}

/// Reads `_secrets.json`, migrating a legacy `secrets.json` once. As in Paseo, only a flat
/// map of strings is a legacy secrets file: a settings document that happens to be named
/// `secrets.json` (its `{ version, values }` envelope) stays where it is. A `_secrets.json`
/// that does not read as such a map reads as empty, as in Paseo, but is first kept aside
/// (`_secrets.json.corrupt-<unix time>`, 0600), with a warning in the plugin's log, so the
/// next write loses nothing.
fn load_secrets(state: &OpState) -> Result<(PathBuf, BTreeMap<String, String>), JsErrorBox> {
    let dir = dir(state, SECRETS_UNAVAILABLE)?;
    let path = dir.join("_secrets.json");
    let legacy = dir.join("secrets.json");
    if !path.exists() {
        let flat = std::fs::read(&legacy)
            .ok()
            .filter(|bytes| serde_json::from_slice::<BTreeMap<String, String>>(bytes).is_ok());
        if let Some(bytes) = flat {
            write_atomic(&path, &bytes)
                .map_err(|e| JsErrorBox::generic(format!("{SECRETS_UNAVAILABLE}: {e}")))?;
            let _ = std::fs::remove_file(&legacy);
        }
    }
    let map = match std::fs::read(&path) {
        Ok(bytes) => match serde_json::from_slice(&bytes) {
            Ok(map) => map,
            Err(_) => {
                let (aside, new) = keep_secrets_aside(&path, &bytes)
                    .map_err(|e| JsErrorBox::generic(format!("{SECRETS_UNAVAILABLE}: {e}")))?;
                // Said once, when the copy is made; every read until a write reads as empty.
                if new {
                    state.borrow::<Arc<PluginShared>>().logs.write(
                    crate::logs::Stream::Stderr,
                    &format!(
                        "[paseo] Plugin secrets file is not readable; it reads as empty and is kept at {}",
                        aside.display()
                    ),
                );
                }
                BTreeMap::new()
            }
        },
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => BTreeMap::new(),
        Err(e) => return Err(JsErrorBox::generic(format!("{SECRETS_UNAVAILABLE}: {e}"))),
    };
    Ok((path, map))
}

/// Copies an unreadable secrets file aside, once per content (it may hold secrets: 0600,
/// written atomically), and returns where it is and whether this call made the copy.
fn keep_secrets_aside(path: &Path, bytes: &[u8]) -> std::io::Result<(PathBuf, bool)> {
    let dir = path.parent().unwrap_or(Path::new("."));
    if let Ok(entries) = std::fs::read_dir(dir) {
        for entry in entries.flatten() {
            let name = entry.file_name();
            if name.to_string_lossy().starts_with("_secrets.json.corrupt-")
                && std::fs::read(entry.path()).is_ok_and(|kept| kept == bytes)
            {
                return Ok((entry.path(), false));
            }
        }
    }
    let seconds = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_secs());
    let aside = dir.join(format!("_secrets.json.corrupt-{seconds}"));
    write_atomic(&aside, bytes)?;
    Ok((aside, true))
}

fn save_secrets(path: &Path, map: &BTreeMap<String, String>) -> Result<(), JsErrorBox> {
    write_atomic(path, serde_json::to_string_pretty(map).unwrap().as_bytes())
        .map_err(|e| JsErrorBox::generic(format!("{SECRETS_UNAVAILABLE}: {e}")))
}

#[op2]
#[string]
pub fn op_secrets_get(
    state: &mut OpState,
    #[string] key: &str,
) -> Result<Option<String>, JsErrorBox> {
    secret_key(key)?;
    Ok(load_secrets(state)?.1.get(key).cloned())
}

#[op2]
#[serde]
pub fn op_secrets_keys(state: &mut OpState) -> Result<Vec<String>, JsErrorBox> {
    Ok(load_secrets(state)?.1.into_keys().collect())
}

#[op2(fast)]
pub fn op_secrets_set(
    state: &mut OpState,
    #[string] key: &str,
    #[string] value: &str,
) -> Result<(), JsErrorBox> {
    secret_key(key)?;
    let (path, mut map) = load_secrets(state)?;
    map.insert(key.to_string(), value.to_string());
    save_secrets(&path, &map)
}

#[op2(fast)]
pub fn op_secrets_delete(state: &mut OpState, #[string] key: &str) -> Result<bool, JsErrorBox> {
    secret_key(key)?;
    let (path, mut map) = load_secrets(state)?;
    let had = map.remove(key).is_some();
    if had {
        save_secrets(&path, &map)?;
    }
    Ok(had)
}
