//! Files for the owner's eyes only (settings, secrets, the daemon's state): folders created
//! 0700, files written atomically and 0600 from their first byte, and the temp files a killed
//! writer leaves behind. A leaf: the SDK's storage, the engine (`server.dataDirectory`) and the
//! daemon all write through here.

use std::io::Write;
use std::os::unix::fs::{DirBuilderExt, OpenOptionsExt};
use std::path::Path;
use std::sync::atomic::{AtomicU64, Ordering};

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
