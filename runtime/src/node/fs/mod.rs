//! File system ops behind `node:fs` and `node:fs/promises`. Errors are Node's: the message
//! (`ENOENT: no such file or directory, open '/x'`) and the error's `code`, `errno`, `syscall`,
//! `path` and `dest` come from Rust ([`FsError`]), so the JS side adds nothing.
//!
//! Open files (`fs.open`, `FileHandle`, `ReadStream`, `WriteStream`) are
//! [`OpenFile`](open_files::OpenFile)s, found by their OS file descriptor, which is what JS sees
//! as `fd` (as in Node: a small number, never 0 to 2). Their reads and writes are async ops that
//! never hold the plugin's thread: regular files are read on tokio's blocking pool (as Node
//! reads them on libuv's thread pool), FIFOs, sockets and terminals are non-blocking and woken
//! by epoll, so a read that waits for a writer holds no thread at all and ends with the isolate.
//!
//! This file holds the path-based ops (`readFile`, `stat`, `readdir`, `mkdir`, `rm`, ...), which
//! node/mod.rs registers in `paseo_node`; Node's errors are in `error`, `Stats` in `stat`, and
//! open files with their fd ops (their own extension, `paseo_fs_files`) in `open_files`.

mod error;
mod open_files;
mod stat;

use std::io::{Read, Write};
use std::os::unix::fs::{OpenOptionsExt, PermissionsExt};
use std::path::Path;

use deno_core::{op2, v8, OpState};
use deno_error::JsErrorBox;

use crate::engine::budget;
use crate::node::permission;

pub(super) use error::{node_error, FsError};
use error::{os_error, range_error, syscall_error, too_large};
pub(super) use open_files::{op_fs_futimes, paseo_fs_files};
use stat::{kind, stat_info, timespec, StatInfo};

#[op2]
#[buffer]
pub fn op_fs_read(
    scope: &mut v8::PinScope,
    state: &mut OpState,
    #[string] path: &str,
    #[smi] copies: u32,
) -> Result<Vec<u8>, JsErrorBox> {
    permission::read(state, path)?;
    let copies = copies.max(1) as usize;
    let mut file = std::fs::File::open(path).map_err(|e| node_error(e, "open", path, None))?;
    let size = file
        .metadata()
        .ok()
        .filter(|m| m.is_file())
        .map_or(0, |m| m.len());
    // Up to `SMALL` needs no measuring; past it, the room decides.
    let mut room = None;
    let mut limit = budget::SMALL;
    if size > limit as u64 {
        let r = room.insert(budget::heap_room(scope, state));
        limit = r.bytes / copies;
        if size > limit as u64 {
            return Err(too_large(size, false, r, copies));
        }
    }
    let mut bytes = Vec::with_capacity(size as usize);
    loop {
        // One byte past the limit tells a file that ends at the limit from one that goes on.
        let more = (limit + 1).saturating_sub(bytes.len()) as u64;
        (&mut file)
            .take(more)
            .read_to_end(&mut bytes)
            .map_err(|e| syscall_error(e, "read"))?;
        if bytes.len() <= limit {
            return Ok(bytes);
        }
        match &room {
            Some(r) => return Err(too_large(bytes.len() as u64, true, r, copies)),
            None => {
                let r = room.insert(budget::heap_room(scope, state));
                limit = r.bytes / copies;
                if bytes.len() > limit {
                    return Err(too_large(bytes.len() as u64, true, r, copies));
                }
            }
        }
    }
}

/// Writes (or appends) bytes, creating the file with `mode` (0o666 by default) when missing.
#[op2(fast)]
pub fn op_fs_write(
    state: &mut OpState,
    #[string] path: &str,
    #[buffer] data: &[u8],
    append: bool,
    exclusive: bool,
    mode: u32,
) -> Result<(), JsErrorBox> {
    permission::write(state, path)?;
    let mut options = std::fs::OpenOptions::new();
    options
        .write(true)
        .mode(if mode == 0 { 0o666 } else { mode });
    if exclusive {
        options.create_new(true);
    } else {
        options.create(true);
    }
    if append {
        options.append(true);
    } else {
        options.truncate(true);
    }
    let mut file = options
        .open(path)
        .map_err(|e| node_error(e, "open", path, None))?;
    file.write_all(data)
        .map_err(|e| node_error(e, "write", path, None))
}

#[op2]
#[serde]
pub fn op_fs_stat(
    state: &mut OpState,
    #[string] path: &str,
    lstat: bool,
) -> Result<StatInfo, JsErrorBox> {
    permission::read(state, path)?;
    let md = if lstat {
        std::fs::symlink_metadata(path)
    } else {
        std::fs::metadata(path)
    }
    .map_err(|e| node_error(e, if lstat { "lstat" } else { "stat" }, path, None))?;
    Ok(stat_info(&md))
}

/// What one `[name, kind]` entry costs the plugin's heap besides its name (two arrays and a
/// string header, rounded up).
const DIRENT_BYTES: usize = 128;

/// Directory entries as `[name, kind]`, sorted by name; a listing the plugin's heap has no room
/// for fails (`ERR_FS_DIR_TOO_LARGE`) instead of exhausting it.
#[op2]
#[serde]
pub fn op_fs_readdir(
    scope: &mut v8::PinScope,
    state: &mut OpState,
    #[string] path: &str,
) -> Result<Vec<(String, &'static str)>, JsErrorBox> {
    permission::read(state, path)?;
    let mut out = Vec::new();
    let (mut cost, mut limit, mut measured) = (0usize, budget::SMALL, false);
    for entry in std::fs::read_dir(path).map_err(|e| node_error(e, "scandir", path, None))? {
        let entry = entry.map_err(|e| node_error(e, "scandir", path, None))?;
        let ft = entry
            .file_type()
            .map_err(|e| node_error(e, "scandir", path, None))?;
        let name = entry.file_name().to_string_lossy().into_owned();
        cost += name.len() + DIRENT_BYTES;
        if cost > limit {
            let room = budget::heap_room(scope, state);
            if measured || cost > room.bytes {
                return Err(range_error(
                    "ERR_FS_DIR_TOO_LARGE",
                    format!(
                        "The listing of '{path}' (more than {} entries) is greater than {}",
                        out.len(),
                        room.describe(1)
                    ),
                ));
            }
            (limit, measured) = (room.bytes, true);
        }
        out.push((name, kind(ft)));
    }
    out.sort();
    Ok(out)
}

/// Returns the first directory created (Node's `mkdir` with `recursive` does), or "".
#[op2]
#[string]
pub fn op_fs_mkdir(
    state: &mut OpState,
    #[string] path: &str,
    recursive: bool,
    mode: u32,
) -> Result<String, JsErrorBox> {
    permission::write(state, path)?;
    use std::os::unix::fs::DirBuilderExt;
    let mode = if mode == 0 { 0o777 } else { mode };
    if recursive {
        let mut first = None;
        let mut p = Path::new(path);
        while !p.exists() {
            first = Some(p.to_path_buf());
            match p.parent() {
                Some(parent) => p = parent,
                None => break,
            }
        }
        std::fs::DirBuilder::new()
            .recursive(true)
            .mode(mode)
            .create(path)
            .map_err(|e| node_error(e, "mkdir", path, None))?;
        return Ok(first
            .map(|p| p.to_string_lossy().into_owned())
            .unwrap_or_default());
    }
    std::fs::DirBuilder::new()
        .mode(mode)
        .create(path)
        .map_err(|e| node_error(e, "mkdir", path, None))?;
    Ok(String::new())
}

/// `rm` (`how` 0: files, and directories with `recursive`; `force` ignores a missing path),
/// `rmdir` (1) and `unlink` (2), each failing as Node's does.
#[op2(fast)]
pub fn op_fs_remove(
    state: &mut OpState,
    #[string] path: &str,
    #[smi] how: u32,
    recursive: bool,
    force: bool,
) -> Result<(), JsErrorBox> {
    permission::write(state, path)?;
    match how {
        1 => return std::fs::remove_dir(path).map_err(|e| node_error(e, "rmdir", path, None)),
        2 => return std::fs::remove_file(path).map_err(|e| node_error(e, "unlink", path, None)),
        _ => {}
    }
    let md = match std::fs::symlink_metadata(path) {
        Ok(md) => md,
        Err(e) if force && e.kind() == std::io::ErrorKind::NotFound => return Ok(()),
        Err(e) => return Err(node_error(e, "lstat", path, None)),
    };
    let result = if !md.is_dir() {
        std::fs::remove_file(path)
    } else if recursive {
        std::fs::remove_dir_all(path)
    } else {
        // Node's SystemError (js/node/fs.js `systemError` gives it that class and `info`),
        // with a positive errno, as Node's has.
        return Err(JsErrorBox::from_err(FsError {
            class: "Error",
            message: format!("Path is a directory: rm returned EISDIR (is a directory) {path}"),
            code: "ERR_FS_EISDIR",
            errno: Some(libc::EISDIR),
            syscall: Some("rm"),
            path: Some(path.to_string()),
            dest: None,
        }));
    };
    result.map_err(|e| node_error(e, "rm", path, None))
}

#[op2(fast)]
pub fn op_fs_rename(
    state: &mut OpState,
    #[string] from: &str,
    #[string] to: &str,
) -> Result<(), JsErrorBox> {
    permission::write(state, from)?;
    permission::write(state, to)?;
    std::fs::rename(from, to).map_err(|e| node_error(e, "rename", from, Some(to)))
}

#[op2(fast)]
pub fn op_fs_copy(
    state: &mut OpState,
    #[string] from: &str,
    #[string] to: &str,
    exclusive: bool,
) -> Result<(), JsErrorBox> {
    permission::read(state, from)?;
    permission::write(state, to)?;
    if exclusive && Path::new(to).exists() {
        return Err(os_error(libc::EEXIST, "copyfile", from, Some(to)));
    }
    std::fs::copy(from, to)
        .map(|_| ())
        .map_err(|e| node_error(e, "copyfile", from, Some(to)))
}

#[op2]
#[string]
pub fn op_fs_realpath(state: &mut OpState, #[string] path: &str) -> Result<String, JsErrorBox> {
    permission::read(state, path)?;
    std::fs::canonicalize(path)
        .map(|p| p.to_string_lossy().into_owned())
        .map_err(|e| {
            // Node's realpathSync walks the absolute path with lstat and reports the first
            // part that fails.
            let absolute = std::path::absolute(path).unwrap_or_else(|_| path.into());
            let mut prefix = std::path::PathBuf::new();
            for part in absolute.components() {
                prefix.push(part);
                if let Err(e) = std::fs::symlink_metadata(&prefix) {
                    return node_error(e, "lstat", &prefix.to_string_lossy(), None);
                }
            }
            node_error(e, "lstat", &absolute.to_string_lossy(), None)
        })
}

#[op2(fast)]
pub fn op_fs_access(
    state: &mut OpState,
    #[string] path: &str,
    mode: u32,
) -> Result<(), JsErrorBox> {
    permission::read(state, path)?;
    let md = std::fs::metadata(path).map_err(|e| node_error(e, "access", path, None))?;
    // Checks the permission bits; good enough for the owner, which plugins are.
    let bits = md.permissions().mode();
    let want = |flag: u32, owner_bit: u32| {
        mode & flag == 0 || bits & (owner_bit | owner_bit >> 3 | owner_bit >> 6) != 0
    };
    if want(4, 0o400) && want(2, 0o200) && want(1, 0o100) {
        Ok(())
    } else {
        Err(os_error(libc::EACCES, "access", path, None))
    }
}

#[op2(fast)]
pub fn op_fs_chmod(state: &mut OpState, #[string] path: &str, mode: u32) -> Result<(), JsErrorBox> {
    permission::write(state, path)?;
    std::fs::set_permissions(path, std::fs::Permissions::from_mode(mode))
        .map_err(|e| node_error(e, "chmod", path, None))
}

#[op2(fast)]
pub fn op_fs_symlink(
    state: &mut OpState,
    #[string] target: &str,
    #[string] path: &str,
) -> Result<(), JsErrorBox> {
    permission::write(state, path)?;
    std::os::unix::fs::symlink(target, path)
        .map_err(|e| node_error(e, "symlink", target, Some(path)))
}

#[op2]
#[string]
pub fn op_fs_readlink(state: &mut OpState, #[string] path: &str) -> Result<String, JsErrorBox> {
    permission::read(state, path)?;
    std::fs::read_link(path)
        .map(|p| p.to_string_lossy().into_owned())
        .map_err(|e| node_error(e, "readlink", path, None))
}

#[op2(fast)]
pub fn op_fs_link(
    state: &mut OpState,
    #[string] from: &str,
    #[string] to: &str,
) -> Result<(), JsErrorBox> {
    // The new name reaches the same file: as much as writing to it.
    permission::read(state, from)?;
    permission::write(state, from)?;
    permission::write(state, to)?;
    std::fs::hard_link(from, to).map_err(|e| node_error(e, "link", from, Some(to)))
}

#[op2]
#[string]
pub fn op_fs_mkdtemp(state: &mut OpState, #[string] prefix: &str) -> Result<String, JsErrorBox> {
    permission::write(state, prefix)?;
    const ALPHABET: &[u8] = b"abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789";
    for _ in 0..16 {
        let mut bytes = [0u8; 6];
        getrandom::fill(&mut bytes).map_err(|e| JsErrorBox::generic(e.to_string()))?;
        let suffix: String = bytes
            .iter()
            .map(|b| ALPHABET[*b as usize % ALPHABET.len()] as char)
            .collect();
        let path = format!("{prefix}{suffix}");
        match std::fs::create_dir(&path) {
            Ok(()) => return Ok(path),
            Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => continue,
            Err(e) => return Err(node_error(e, "mkdtemp", &format!("{prefix}XXXXXX"), None)),
        }
    }
    Err(os_error(
        libc::EEXIST,
        "mkdtemp",
        &format!("{prefix}XXXXXX"),
        None,
    ))
}

#[op2(fast)]
pub fn op_fs_truncate(
    state: &mut OpState,
    #[string] path: &str,
    #[number] len: u64,
) -> Result<(), JsErrorBox> {
    permission::write(state, path)?;
    let file = std::fs::OpenOptions::new()
        .write(true)
        .open(path)
        .map_err(|e| node_error(e, "open", path, None))?;
    file.set_len(len)
        .map_err(|e| node_error(e, "ftruncate", path, None))
}

/// `utimes` (follows a symlink) and `lutimes` (changes the link itself).
#[op2(fast)]
pub fn op_fs_utimes(
    state: &mut OpState,
    #[string] path: &str,
    atime: f64,
    mtime: f64,
    follow: bool,
) -> Result<(), JsErrorBox> {
    permission::write(state, path)?;
    let syscall = if follow { "utime" } else { "lutime" };
    let c_path = std::ffi::CString::new(path).map_err(|_| {
        JsErrorBox::type_error("The \"path\" argument must be a string without null bytes")
    })?;
    let times = [timespec(atime), timespec(mtime)];
    let flags = if follow { 0 } else { libc::AT_SYMLINK_NOFOLLOW };
    // SAFETY: a NUL-terminated path and two timespecs, as utimensat(2) takes them.
    let rc = unsafe { libc::utimensat(libc::AT_FDCWD, c_path.as_ptr(), times.as_ptr(), flags) };
    if rc == 0 {
        Ok(())
    } else {
        Err(node_error(
            std::io::Error::last_os_error(),
            syscall,
            path,
            None,
        ))
    }
}
