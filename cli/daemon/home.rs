//! Where the daemon's home is ([`paseo_home`]; the throwaway host keeps its caches there too),
//! and what the daemon claims before it touches anything in it: an exclusive lock, so a
//! second daemon on the same home stops before it loads a plugin or runs a hook, and a file
//! descriptor limit raised to the hard limit, so sockets and plugin files do not run out at the
//! default 1,024.

use std::fs::File;
use std::io::Write;
use std::os::fd::AsRawFd;
use std::os::unix::fs::{DirBuilderExt, OpenOptionsExt};
use std::path::{Path, PathBuf};

/// `$PASEO_HOME` (default `~/.paseo`), the daemon's home.
pub fn paseo_home() -> PathBuf {
    std::env::var_os("PASEO_HOME")
        .map(PathBuf::from)
        .unwrap_or_else(|| {
            PathBuf::from(std::env::var_os("HOME").unwrap_or_else(|| "/".into())).join(".paseo")
        })
}

/// Held for the daemon's lifetime; the kernel drops the lock when the process ends, however it
/// ends, so a crash never leaves a stale lock behind.
pub struct HomeLock {
    _file: File,
}

/// Creates `home` (0700) if missing and takes `home/daemon.lock` with `flock(LOCK_EX | LOCK_NB)`.
/// The file holds the owner's pid, for the message a second daemon prints.
pub fn lock(home: &Path) -> Result<HomeLock, String> {
    if !home.exists() {
        std::fs::DirBuilder::new()
            .recursive(true)
            .mode(0o700)
            .create(home)
            .map_err(|e| format!("Cannot create {}: {e}", home.display()))?;
    }
    let path = home.join("daemon.lock");
    let mut file = std::fs::OpenOptions::new()
        .read(true)
        .write(true)
        .create(true)
        .truncate(false)
        .mode(0o600)
        .open(&path)
        .map_err(|e| format!("Cannot open {}: {e}", path.display()))?;
    // SAFETY: flock on a descriptor we own; no memory is involved.
    if unsafe { libc::flock(file.as_raw_fd(), libc::LOCK_EX | libc::LOCK_NB) } != 0 {
        let err = std::io::Error::last_os_error();
        if err.raw_os_error() == Some(libc::EWOULDBLOCK) {
            let owner = std::fs::read_to_string(&path).unwrap_or_default();
            let owner = owner.trim();
            let pid = if owner.is_empty() {
                String::new()
            } else {
                format!(" (pid {owner})")
            };
            return Err(format!(
                "A Paseo daemon is already running for {}{pid}",
                home.display()
            ));
        }
        return Err(format!("Cannot lock {}: {err}", path.display()));
    }
    file.set_len(0)
        .and_then(|_| writeln!(file, "{}", std::process::id()))
        .map_err(|e| format!("Cannot write {}: {e}", path.display()))?;
    Ok(HomeLock { _file: file })
}

/// Raises the soft `RLIMIT_NOFILE` to the hard limit (Linux defaults to 1,024 soft), and
/// returns the limit in force.
pub fn raise_fd_limit() -> u64 {
    let mut limit = libc::rlimit {
        rlim_cur: 0,
        rlim_max: 0,
    };
    // SAFETY: getrlimit/setrlimit write to / read from the struct we pass.
    unsafe {
        if libc::getrlimit(libc::RLIMIT_NOFILE, &mut limit) != 0 {
            return 0;
        }
        if limit.rlim_cur < limit.rlim_max {
            let raised = libc::rlimit {
                rlim_cur: limit.rlim_max,
                rlim_max: limit.rlim_max,
            };
            if libc::setrlimit(libc::RLIMIT_NOFILE, &raised) == 0 {
                limit = raised;
            }
        }
    }
    limit.rlim_cur
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_second_lock_on_the_same_home_is_refused_until_the_first_is_dropped() {
        let home = tempfile::tempdir().unwrap();
        let first = lock(home.path()).unwrap();
        let err = lock(home.path()).err().unwrap();
        assert_eq!(
            err,
            format!(
                "A Paseo daemon is already running for {} (pid {})",
                home.path().display(),
                std::process::id()
            )
        );
        drop(first);
        lock(home.path()).unwrap();
    }

    #[test]
    fn a_home_the_lock_creates_is_private() {
        use std::os::unix::fs::PermissionsExt;
        let parent = tempfile::tempdir().unwrap();
        let home = parent.path().join("new-home");
        let _lock = lock(&home).unwrap();
        assert_eq!(
            std::fs::metadata(&home).unwrap().permissions().mode() & 0o777,
            0o700
        );
        assert_eq!(
            std::fs::metadata(home.join("daemon.lock"))
                .unwrap()
                .permissions()
                .mode()
                & 0o777,
            0o600
        );
    }
}
