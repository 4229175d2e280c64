//! File system ops behind `node:fs` and `node:fs/promises`. Errors read like Node's
//! (`ENOENT: no such file or directory, open '/x'`); the JS side adds `code`, `syscall`, `path`.

use std::io::{Read, Write};
use std::os::unix::fs::{MetadataExt, OpenOptionsExt, PermissionsExt};
use std::path::Path;
use std::time::UNIX_EPOCH;

use deno_core::{op2, v8, OpState};
use deno_error::JsErrorBox;

use crate::engine::budget::{self, HeapRoom};
use serde::Serialize;

fn node_error(e: std::io::Error, syscall: &str, path: &str, dest: Option<&str>) -> JsErrorBox {
    let (code, text) = super::uv(&e);
    let text = if code == "EIO" {
        e.to_string()
    } else {
        text.to_string()
    };
    let dest = dest.map(|d| format!(" -> '{d}'")).unwrap_or_default();
    JsErrorBox::generic(format!("{code}: {text}, {syscall} '{path}'{dest}"))
}

/// Node's `ERR_FS_FILE_TOO_LARGE`, with the plugin's limit in place of Node's 2 GiB; the JS
/// side makes it a `RangeError` with that code. `at_least`: the size is not known (a device, a
/// FIFO, a /proc file), only that more than the limit was there.
fn too_large(size: u64, at_least: bool, room: &HeapRoom, parts: usize) -> JsErrorBox {
    let size = if at_least {
        format!("at least {size}")
    } else {
        size.to_string()
    };
    JsErrorBox::range_error(format!(
        "ERR_FS_FILE_TOO_LARGE: File size ({size}) is greater than {}",
        room.describe(parts)
    ))
}

/// Reads a whole file, bounded while reading: at most what the plugin's heap has room for
/// (`1/copies` of it: text is decoded into a string next to the bytes), whatever the file's
/// reported size (0 for /dev/zero, FIFOs and /proc files).
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
            .map_err(|e| node_error(e, "read", path, None))?;
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
                return Err(JsErrorBox::range_error(format!(
                    "ERR_FS_DIR_TOO_LARGE: The listing of '{path}' (more than {} entries) is greater than {}",
                    out.len(),
                    room.describe(1)
                )));
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

/// `rm`, `rmdir` and `unlink` in one: `dir_only` is rmdir, otherwise files (and, with
/// `recursive`, directories); `force` ignores a missing path.
#[op2(fast)]
pub fn op_fs_remove(
    #[string] path: &str,
    recursive: bool,
    force: bool,
    dir_only: bool,
) -> Result<(), JsErrorBox> {
    let md = match std::fs::symlink_metadata(path) {
        Ok(md) => md,
        Err(e) if force && e.kind() == std::io::ErrorKind::NotFound => return Ok(()),
        Err(e) => {
            return Err(node_error(
                e,
                if dir_only { "rmdir" } else { "rm" },
                path,
                None,
            ))
        }
    };
    let result = if dir_only {
        std::fs::remove_dir(path)
    } else if md.is_dir() {
        if recursive {
            std::fs::remove_dir_all(path)
        } else {
            return Err(JsErrorBox::generic(format!(
                "ERR_FS_EISDIR: Path is a directory: rm returned EISDIR (is a directory) {path}"
            )));
        }
    } else {
        std::fs::remove_file(path)
    };
    result.map_err(|e| node_error(e, if dir_only { "rmdir" } else { "unlink" }, path, None))
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
        return Err(JsErrorBox::generic(format!(
            "EEXIST: file already exists, copyfile '{from}' -> '{to}'"
        )));
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
        .map_err(|e| node_error(e, "realpath", path, None))
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
        Err(JsErrorBox::generic(format!(
            "EACCES: permission denied, access '{path}'"
        )))
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
    Err(JsErrorBox::generic(format!(
        "EEXIST: file already exists, mkdtemp '{prefix}XXXXXX'"
    )))
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
