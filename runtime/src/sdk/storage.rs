//! Plugin settings documents and secrets on the daemon host, in `<settings dir>/<plugin id>/`:
//! one `<settingsId>.json` per settings document and `_secrets.json`, written atomically
//! (`write_atomic`: mode 0600, in a folder created 0700). A settings revision is the sha256 of
//! the raw file, or `"missing"` when there is none.

use std::collections::BTreeMap;
use std::io::Write;
use std::os::unix::fs::{DirBuilderExt, OpenOptionsExt};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};

use deno_core::{op2, OpState};
use deno_error::JsErrorBox;
use serde::Serialize;
use sha2::{Digest, Sha256};

use super::ops::SdkState;

const SETTINGS_UNAVAILABLE: &str = "Plugin settings storage is unavailable";
const SECRETS_UNAVAILABLE: &str = "Plugin secret storage is unavailable";

fn dir(state: &OpState, unavailable: &'static str) -> Result<PathBuf, JsErrorBox> {
    state
        .borrow::<SdkState>()
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

/// Numbers this process's temp files, so concurrent writes never share one.
static TEMP_SEQ: AtomicU64 = AtomicU64::new(0);

/// Writes `bytes` to `path` so that a reader, or a crash at any moment, sees either the old file or
/// the new one, never a mix: a temp file of this write's own in the same directory (created
/// exclusively and 0600 from the first byte, since it may hold secrets), written and fsynced,
/// renamed over `path`, then the directory fsynced so the rename itself survives a power cut.
/// Concurrent writers of one path each rename a whole file; which lands last is the caller's to
/// order. Missing parent directories are created 0700.
pub fn write_atomic(path: &Path, bytes: &[u8]) -> std::io::Result<()> {
    let parent = match path.parent() {
        Some(p) if !p.as_os_str().is_empty() => p,
        _ => Path::new("."),
    };
    let name = path.file_name().ok_or_else(|| {
        std::io::Error::new(
            std::io::ErrorKind::InvalidInput,
            format!("{} names no file", path.display()),
        )
    })?;
    create_private_dir_all(parent)?;
    let (tmp, mut file) = loop {
        let tmp = parent.join(format!(
            ".{}.{}.{}.tmp",
            name.to_string_lossy(),
            std::process::id(),
            TEMP_SEQ.fetch_add(1, Ordering::Relaxed)
        ));
        match std::fs::OpenOptions::new()
            .write(true)
            .create_new(true)
            .mode(0o600)
            .open(&tmp)
        {
            Ok(file) => break (tmp, file),
            // A leftover of an earlier process that had our pid: take the next number.
            Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => continue,
            Err(e) => return Err(e),
        }
    };
    let written = file.write_all(bytes).and_then(|()| file.sync_all());
    drop(file);
    if let Err(e) = written.and_then(|()| std::fs::rename(&tmp, path)) {
        let _ = std::fs::remove_file(&tmp);
        return Err(e);
    }
    sync_dir(parent)
}

/// Makes the directory entries of `dir` (a create, a rename) durable.
pub fn sync_dir(dir: &Path) -> std::io::Result<()> {
    std::fs::File::open(dir)?.sync_all()
}

/// Creates `dir` and any missing parents 0700 (the mode is set at creation, never loosened
/// after); an existing directory is left as it is.
pub fn create_private_dir_all(dir: &Path) -> std::io::Result<()> {
    std::fs::DirBuilder::new()
        .recursive(true)
        .mode(0o700)
        .create(dir)
}

/// The pid in a temp-file name `write_atomic` makes (`.<name>.<pid>.<n>.tmp`), or an older
/// version made (`.<name>.<pid>.tmp`); `None` for any other name.
pub fn temp_file_pid(file_name: &str) -> Option<u32> {
    let rest = file_name.strip_prefix('.')?.strip_suffix(".tmp")?;
    let mut parts = rest.rsplitn(3, '.');
    let (last, before, stem) = (parts.next()?, parts.next()?, parts.next());
    let digits = |s: &str| !s.is_empty() && s.bytes().all(|b| b.is_ascii_digit());
    if !digits(last) {
        return None;
    }
    match stem {
        Some(stem) if digits(before) && !stem.is_empty() => before.parse().ok(),
        _ if !before.is_empty() => last.parse().ok(),
        _ => None,
    }
}

/// Removes the temp files a killed writer left in `dir` (only names `write_atomic` makes, only
/// of processes no longer running; not recursive). Returns the names removed.
pub fn remove_stale_temp_files(dir: &Path) -> Vec<String> {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return vec![];
    };
    let mut removed = vec![];
    for entry in entries.flatten() {
        let name = entry.file_name().to_string_lossy().into_owned();
        let Some(pid) = temp_file_pid(&name) else {
            continue;
        };
        // Our own pid can only be an earlier process's: this runs before we write anything.
        let running = pid != std::process::id() && pid_is_running(pid);
        if !running
            && entry.file_type().is_ok_and(|t| t.is_file())
            && std::fs::remove_file(entry.path()).is_ok()
        {
            removed.push(name);
        }
    }
    removed
}

fn pid_is_running(pid: u32) -> bool {
    let Ok(pid) = libc::pid_t::try_from(pid) else {
        return false;
    };
    // SAFETY: signal 0 only checks that the process exists; nothing is sent.
    pid > 0
        && (unsafe { libc::kill(pid, 0) } == 0
            || std::io::Error::last_os_error().raw_os_error() == Some(libc::EPERM))
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

/// Reads `_secrets.json`, migrating a legacy `secrets.json` once.
fn load_secrets(state: &OpState) -> Result<(PathBuf, BTreeMap<String, String>), JsErrorBox> {
    let dir = dir(state, SECRETS_UNAVAILABLE)?;
    let path = dir.join("_secrets.json");
    let legacy = dir.join("secrets.json");
    if !path.exists() && legacy.exists() {
        let bytes = std::fs::read(&legacy)
            .map_err(|e| JsErrorBox::generic(format!("{SECRETS_UNAVAILABLE}: {e}")))?;
        write_atomic(&path, &bytes)
            .map_err(|e| JsErrorBox::generic(format!("{SECRETS_UNAVAILABLE}: {e}")))?;
        let _ = std::fs::remove_file(&legacy);
    }
    let map = match std::fs::read(&path) {
        Ok(bytes) => serde_json::from_slice(&bytes)
            .map_err(|e| JsErrorBox::generic(format!("{SECRETS_UNAVAILABLE}: {e}")))?,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => BTreeMap::new(),
        Err(e) => return Err(JsErrorBox::generic(format!("{SECRETS_UNAVAILABLE}: {e}"))),
    };
    Ok((path, map))
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
