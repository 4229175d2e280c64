//! File system ops behind `node:fs` and `node:fs/promises`. Errors are Node's: the message
//! (`ENOENT: no such file or directory, open '/x'`) and the error's `code`, `errno`, `syscall`,
//! `path` and `dest` come from Rust ([`FsError`]), so the JS side adds nothing.

use std::io::{Read, Write};
use std::os::unix::fs::{MetadataExt, OpenOptionsExt, PermissionsExt};
use std::path::Path;
use std::time::UNIX_EPOCH;

use deno_core::{op2, v8, OpState};
use deno_error::JsErrorBox;

use crate::engine::budget::{self, HeapRoom};
use serde::Serialize;

/// An error of an fs op as Node shapes it: its JS class, message and properties.
#[derive(Debug, thiserror::Error)]
#[error("{message}")]
pub(crate) struct FsError {
    class: &'static str,
    message: String,
    code: &'static str,
    /// Node's negative errno, for errors from the OS.
    errno: Option<i32>,
    syscall: Option<&'static str>,
    path: Option<String>,
    dest: Option<String>,
}

impl deno_error::JsErrorClass for FsError {
    fn get_class(&self) -> std::borrow::Cow<'static, str> {
        self.class.into()
    }

    fn get_message(&self) -> std::borrow::Cow<'static, str> {
        self.message.clone().into()
    }

    fn get_additional_properties(&self) -> deno_error::AdditionalProperties {
        use deno_error::PropertyValue;
        // In the order Node sets them (`uvException`).
        let mut properties = Vec::with_capacity(5);
        if let Some(errno) = self.errno {
            properties.push(("errno".into(), PropertyValue::Number(errno.into())));
        }
        properties.push(("code".into(), PropertyValue::String(self.code.into())));
        if let Some(syscall) = self.syscall {
            properties.push(("syscall".into(), PropertyValue::String(syscall.into())));
        }
        for (key, value) in [("path", &self.path), ("dest", &self.dest)] {
            if let Some(value) = value {
                properties.push((key.into(), PropertyValue::String(value.clone().into())));
            }
        }
        Box::new(properties.into_iter())
    }

    fn get_ref(&self) -> &(dyn std::error::Error + Send + Sync + 'static) {
        self
    }
}

/// An OS error of `syscall` on `path` (and `dest`), as Node reports it.
fn node_error(
    e: std::io::Error,
    syscall: &'static str,
    path: &str,
    dest: Option<&str>,
) -> JsErrorBox {
    let (code, text) = super::uv(&e);
    let text = if code == "EIO" {
        e.to_string()
    } else {
        text.to_string()
    };
    let arrow = dest.map(|d| format!(" -> '{d}'")).unwrap_or_default();
    JsErrorBox::from_err(FsError {
        class: "Error",
        message: format!("{code}: {text}, {syscall} '{path}'{arrow}"),
        code,
        errno: Some(-e.raw_os_error().unwrap_or(libc::EIO)),
        syscall: Some(syscall),
        path: Some(path.to_string()),
        dest: dest.map(str::to_string),
    })
}

/// An OS error of a syscall on an open file, which Node reports without a path.
fn syscall_error(e: std::io::Error, syscall: &'static str) -> JsErrorBox {
    let (code, text) = super::uv(&e);
    JsErrorBox::from_err(FsError {
        class: "Error",
        message: format!("{code}: {text}, {syscall}"),
        code,
        errno: Some(-e.raw_os_error().unwrap_or(libc::EIO)),
        syscall: Some(syscall),
        path: None,
        dest: None,
    })
}

/// `node_error` for an error the op finds itself (`errno` from libc).
fn os_error(errno: i32, syscall: &'static str, path: &str, dest: Option<&str>) -> JsErrorBox {
    node_error(
        std::io::Error::from_raw_os_error(errno),
        syscall,
        path,
        dest,
    )
}

/// A `RangeError` with one of Node's `ERR_*` codes.
fn range_error(code: &'static str, message: String) -> JsErrorBox {
    JsErrorBox::from_err(FsError {
        class: "RangeError",
        message,
        code,
        errno: None,
        syscall: None,
        path: None,
        dest: None,
    })
}

/// Node's `ERR_FS_FILE_TOO_LARGE`, with the plugin's limit in place of Node's 2 GiB.
/// `at_least`: the size is not known (a device, a FIFO, a /proc file), only that more than the
/// limit was there.
fn too_large(size: u64, at_least: bool, room: &HeapRoom, parts: usize) -> JsErrorBox {
    let size = if at_least {
        format!("at least {size}")
    } else {
        size.to_string()
    };
    range_error(
        "ERR_FS_FILE_TOO_LARGE",
        format!(
            "File size ({size}) is greater than {}",
            room.describe(parts)
        ),
    )
}

#[op2]
#[buffer]
pub fn op_fs_read(
    scope: &mut v8::PinScope,
    state: &mut OpState,
    #[string] path: &str,
    #[smi] copies: u32,
) -> Result<Vec<u8>, JsErrorBox> {
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
    #[string] path: &str,
    #[buffer] data: &[u8],
    append: bool,
    exclusive: bool,
    mode: u32,
) -> Result<(), JsErrorBox> {
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

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
pub struct StatInfo {
    kind: &'static str,
    size: u64,
    mode: u32,
    uid: u32,
    gid: u32,
    ino: u64,
    dev: u64,
    nlink: u64,
    rdev: u64,
    blksize: u64,
    blocks: u64,
    atime_ms: f64,
    mtime_ms: f64,
    ctime_ms: f64,
    birthtime_ms: f64,
}

fn kind(ft: std::fs::FileType) -> &'static str {
    use std::os::unix::fs::FileTypeExt;
    if ft.is_symlink() {
        "symlink"
    } else if ft.is_dir() {
        "dir"
    } else if ft.is_file() {
        "file"
    } else if ft.is_fifo() {
        "fifo"
    } else if ft.is_socket() {
        "socket"
    } else if ft.is_block_device() {
        "block"
    } else {
        "char"
    }
}

#[op2]
#[serde]
pub fn op_fs_stat(#[string] path: &str, lstat: bool) -> Result<StatInfo, JsErrorBox> {
    let md = if lstat {
        std::fs::symlink_metadata(path)
    } else {
        std::fs::metadata(path)
    }
    .map_err(|e| node_error(e, if lstat { "lstat" } else { "stat" }, path, None))?;
    let ms = |s: i64, ns: i64| s as f64 * 1000.0 + ns as f64 / 1e6;
    let birth = md
        .created()
        .ok()
        .and_then(|t| t.duration_since(UNIX_EPOCH).ok())
        .map(|d| d.as_secs_f64() * 1000.0)
        .unwrap_or_else(|| ms(md.ctime(), md.ctime_nsec()));
    Ok(StatInfo {
        kind: kind(md.file_type()),
        size: md.size(),
        mode: md.mode(),
        uid: md.uid(),
        gid: md.gid(),
        ino: md.ino(),
        dev: md.dev(),
        nlink: md.nlink(),
        rdev: md.rdev(),
        blksize: md.blksize(),
        blocks: md.blocks(),
        atime_ms: ms(md.atime(), md.atime_nsec()),
        mtime_ms: ms(md.mtime(), md.mtime_nsec()),
        ctime_ms: ms(md.ctime(), md.ctime_nsec()),
        birthtime_ms: birth,
    })
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
pub fn op_fs_mkdir(#[string] path: &str, recursive: bool, mode: u32) -> Result<String, JsErrorBox> {
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
    #[string] path: &str,
    #[smi] how: u32,
    recursive: bool,
    force: bool,
) -> Result<(), JsErrorBox> {
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
pub fn op_fs_rename(#[string] from: &str, #[string] to: &str) -> Result<(), JsErrorBox> {
    std::fs::rename(from, to).map_err(|e| node_error(e, "rename", from, Some(to)))
}

#[op2(fast)]
pub fn op_fs_copy(
    #[string] from: &str,
    #[string] to: &str,
    exclusive: bool,
) -> Result<(), JsErrorBox> {
    if exclusive && Path::new(to).exists() {
        return Err(os_error(libc::EEXIST, "copyfile", from, Some(to)));
    }
    std::fs::copy(from, to)
        .map(|_| ())
        .map_err(|e| node_error(e, "copyfile", from, Some(to)))
}

#[op2]
#[string]
pub fn op_fs_realpath(#[string] path: &str) -> Result<String, JsErrorBox> {
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
pub fn op_fs_access(#[string] path: &str, mode: u32) -> Result<(), JsErrorBox> {
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
pub fn op_fs_chmod(#[string] path: &str, mode: u32) -> Result<(), JsErrorBox> {
    std::fs::set_permissions(path, std::fs::Permissions::from_mode(mode))
        .map_err(|e| node_error(e, "chmod", path, None))
}

#[op2(fast)]
pub fn op_fs_symlink(#[string] target: &str, #[string] path: &str) -> Result<(), JsErrorBox> {
    std::os::unix::fs::symlink(target, path)
        .map_err(|e| node_error(e, "symlink", target, Some(path)))
}

#[op2]
#[string]
pub fn op_fs_readlink(#[string] path: &str) -> Result<String, JsErrorBox> {
    std::fs::read_link(path)
        .map(|p| p.to_string_lossy().into_owned())
        .map_err(|e| node_error(e, "readlink", path, None))
}

#[op2(fast)]
pub fn op_fs_link(#[string] from: &str, #[string] to: &str) -> Result<(), JsErrorBox> {
    std::fs::hard_link(from, to).map_err(|e| node_error(e, "link", from, Some(to)))
}

#[op2]
#[string]
pub fn op_fs_mkdtemp(#[string] prefix: &str) -> Result<String, JsErrorBox> {
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
pub fn op_fs_truncate(#[string] path: &str, #[number] len: u64) -> Result<(), JsErrorBox> {
    let file = std::fs::OpenOptions::new()
        .write(true)
        .open(path)
        .map_err(|e| node_error(e, "open", path, None))?;
    file.set_len(len)
        .map_err(|e| node_error(e, "ftruncate", path, None))
}
