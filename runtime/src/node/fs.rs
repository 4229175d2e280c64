//! File system ops behind `node:fs` and `node:fs/promises`. Errors are Node's: the message
//! (`ENOENT: no such file or directory, open '/x'`) and the error's `code`, `errno`, `syscall`,
//! `path` and `dest` come from Rust ([`FsError`]), so the JS side adds nothing.
//!
//! Open files (`fs.open`, `FileHandle`, `ReadStream`, `WriteStream`) are [`OpenFile`]s, found by
//! their OS file descriptor, which is what JS sees as `fd` (as in Node: a small number, never 0
//! to 2). Their reads and writes are async ops that never hold the plugin's thread: regular
//! files are read on tokio's blocking pool (as Node reads them on libuv's thread pool), FIFOs,
//! sockets and terminals are non-blocking and woken by epoll, so a read that waits for a writer
//! holds no thread at all and ends with the isolate.

use std::cell::RefCell;
use std::collections::HashMap;
use std::io::{Read, Write};
use std::os::fd::{AsRawFd, FromRawFd};
use std::os::unix::fs::{FileExt, MetadataExt, OpenOptionsExt, PermissionsExt};
use std::path::Path;
use std::rc::Rc;
use std::sync::Arc;
use std::time::UNIX_EPOCH;

use deno_core::{op2, v8, CancelFuture, CancelHandle, OpState, RcRef};
use deno_error::JsErrorBox;
use tokio::io::unix::AsyncFd;

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

impl FsError {
    /// An OS error whose message is not libuv's usual text for `code`.
    pub(super) fn new(
        code: &'static str,
        message: String,
        errno: i32,
        syscall: &'static str,
        path: &str,
    ) -> Self {
        FsError {
            class: "Error",
            message,
            code,
            errno: Some(-errno),
            syscall: Some(syscall),
            path: Some(path.to_string()),
            dest: None,
        }
    }
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
pub(super) fn node_error(
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
    Ok(stat_info(&md))
}

fn stat_info(md: &std::fs::Metadata) -> StatInfo {
    let ms = |s: i64, ns: i64| s as f64 * 1000.0 + ns as f64 / 1e6;
    let birth = md
        .created()
        .ok()
        .and_then(|t| t.duration_since(UNIX_EPOCH).ok())
        .map(|d| d.as_secs_f64() * 1000.0)
        .unwrap_or_else(|| ms(md.ctime(), md.ctime_nsec()));
    StatInfo {
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
    }
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

// ---------------------------------------------------------------------------------------------
// Open files: `fs.open` and the fd calls, `FileHandle`, `ReadStream` and `WriteStream`.

/// One async read returns at most this much (reads may return less than asked, and
/// `ReadStream` and `FileHandle.read` handle short reads), so a huge `highWaterMark` or
/// `length` does not allocate outside the plugin's heap all at once.
const MAX_READ: usize = 8 * 1024 * 1024;

/// The plugin's open files, by fd. Dropped with the isolate's `OpState`, which closes them.
#[derive(Default)]
struct OpenFiles(HashMap<i32, Rc<OpenFile>>);

/// An open file, and how its reads and writes wait.
struct OpenFile {
    io: FileIo,
    /// Cancels the polled reads and writes pending when the fd is closed.
    cancel: CancelHandle,
}

enum FileIo {
    /// Regular files, directories and devices epoll refuses (/dev/null): each read and write
    /// runs on tokio's blocking pool, where it cannot wait long. The `Arc` keeps the fd open
    /// until an operation in flight when the plugin closes it has finished (so the number is
    /// not reused under it).
    Blocking(Arc<std::fs::File>),
    /// FIFOs, sockets and terminals, non-blocking: a read waits on epoll for a writer.
    Polled(AsyncFd<std::fs::File>),
}

impl OpenFile {
    fn file(&self) -> &std::fs::File {
        match &self.io {
            FileIo::Blocking(file) => file,
            FileIo::Polled(fd) => fd.get_ref(),
        }
    }
}

/// `EBADF: bad file descriptor, <syscall>`: an fd this plugin has not opened, or closed.
fn bad_fd(syscall: &'static str) -> JsErrorBox {
    syscall_error(std::io::Error::from_raw_os_error(libc::EBADF), syscall)
}

fn open_file(state: &OpState, fd: i32, syscall: &'static str) -> Result<Rc<OpenFile>, JsErrorBox> {
    state
        .try_borrow::<OpenFiles>()
        .and_then(|files| files.0.get(&fd).cloned())
        .ok_or_else(|| bad_fd(syscall))
}

fn open_raw(path: &str, flags: i32, mode: u32) -> std::io::Result<std::fs::File> {
    let c_path = std::ffi::CString::new(path)
        .map_err(|_| std::io::Error::from_raw_os_error(libc::EINVAL))?;
    loop {
        // SAFETY: a NUL-terminated path; the fd returned is owned by the `File` below.
        let fd = unsafe { libc::open(c_path.as_ptr(), flags | libc::O_CLOEXEC, mode) };
        if fd >= 0 {
            // SAFETY: `fd` was just opened and nothing else owns it.
            return Ok(unsafe { std::fs::File::from_raw_fd(fd) });
        }
        let e = std::io::Error::last_os_error();
        if e.kind() != std::io::ErrorKind::Interrupted {
            return Err(e);
        }
    }
}

fn set_nonblocking(file: &std::fs::File, on: bool) -> std::io::Result<()> {
    let fd = file.as_raw_fd();
    // SAFETY: fcntl on an fd the caller owns.
    unsafe {
        let flags = libc::fcntl(fd, libc::F_GETFL);
        if flags < 0 {
            return Err(std::io::Error::last_os_error());
        }
        let flags = if on {
            flags | libc::O_NONBLOCK
        } else {
            flags & !libc::O_NONBLOCK
        };
        if libc::fcntl(fd, libc::F_SETFL, flags) < 0 {
            return Err(std::io::Error::last_os_error());
        }
    }
    Ok(())
}

fn is_fifo(path: &str) -> bool {
    use std::os::unix::fs::FileTypeExt;
    std::fs::metadata(path).is_ok_and(|m| m.file_type().is_fifo())
}

/// Keeps an opened file: polled when epoll takes it (FIFOs, sockets, terminals), else blocking.
fn add_file(state: &mut OpState, file: std::fs::File) -> std::io::Result<i32> {
    use std::os::unix::fs::FileTypeExt;
    let ft = file.metadata()?.file_type();
    let fd = file.as_raw_fd();
    let io = if ft.is_fifo() || ft.is_socket() || ft.is_char_device() {
        set_nonblocking(&file, true)?;
        // SAFETY: a `File` owns its fd, open and the same, until the `AsyncFd` drops it.
        match unsafe { AsyncFd::register(file) } {
            Ok(polled) => FileIo::Polled(polled),
            Err(refused) => {
                // epoll refuses some devices (/dev/null, /dev/zero: EPERM); a read of one
                // never waits.
                let (file, _) = refused.into_parts();
                set_nonblocking(&file, false)?;
                FileIo::Blocking(Arc::new(file))
            }
        }
    } else {
        FileIo::Blocking(Arc::new(file))
    };
    if !state.has::<OpenFiles>() {
        state.put(OpenFiles::default());
    }
    state.borrow_mut::<OpenFiles>().0.insert(
        fd,
        Rc::new(OpenFile {
            io,
            cancel: CancelHandle::new(),
        }),
    );
    Ok(fd)
}

/// At most this many opens, reads, writes and fsyncs of one plugin run on the blocking pool at
/// once (libuv's thread pool has 4 threads); the others wait their turn, holding no thread.
const POOL_THREADS: usize = 4;

struct FsPool(Rc<tokio::sync::Semaphore>);

/// Runs `work` on tokio's blocking pool, within the plugin's share of it.
async fn on_pool<T: Send + 'static>(
    state: &Rc<RefCell<OpState>>,
    work: impl FnOnce() -> std::io::Result<T> + Send + 'static,
) -> std::io::Result<T> {
    let pool = {
        let mut state = state.borrow_mut();
        if !state.has::<FsPool>() {
            state.put(FsPool(Rc::new(tokio::sync::Semaphore::new(POOL_THREADS))));
        }
        state.borrow::<FsPool>().0.clone()
    };
    let _turn = pool.acquire().await.map_err(std::io::Error::other)?;
    tokio::task::spawn_blocking(work)
        .await
        .map_err(|e| std::io::Error::other(e.to_string()))?
}

/// Opens `path` with Node's numeric `flags` and `mode`, off the plugin's thread. A FIFO opens
/// without waiting for its other end: for reading at once (a read then waits on epoll for a
/// writer), for writing once a reader is there (tried again every 20 ms: Node waits in its
/// thread pool), so no thread is held on it and the wait ends with the isolate.
#[op2]
pub async fn op_fs_open(
    state: Rc<RefCell<OpState>>,
    #[string] path: String,
    flags: i32,
    mode: u32,
) -> Result<i32, JsErrorBox> {
    let file = if is_fifo(&path) {
        loop {
            match open_raw(&path, flags | libc::O_NONBLOCK, mode) {
                Err(e) if e.raw_os_error() == Some(libc::ENXIO) => {
                    tokio::time::sleep(std::time::Duration::from_millis(20)).await
                }
                other => break other,
            }
        }
    } else {
        let p = path.clone();
        on_pool(&state, move || open_raw(&p, flags, mode)).await
    }
    .map_err(|e| node_error(e, "open", &path, None))?;
    add_file(&mut state.borrow_mut(), file).map_err(|e| node_error(e, "open", &path, None))
}

/// `fs.openSync`: blocks as Node's does (a FIFO waits for its other end).
#[op2(fast)]
pub fn op_fs_open_sync(
    state: &mut OpState,
    #[string] path: &str,
    flags: i32,
    mode: u32,
) -> Result<i32, JsErrorBox> {
    let file = open_raw(path, flags, mode).map_err(|e| node_error(e, "open", path, None))?;
    add_file(state, file).map_err(|e| node_error(e, "open", path, None))
}

/// A read at `position`, or at the file's offset when it is negative.
fn read_once(file: &std::fs::File, buf: &mut [u8], position: f64) -> std::io::Result<usize> {
    loop {
        let r = if position >= 0.0 {
            file.read_at(buf, position as u64)
        } else {
            let mut f = file;
            f.read(buf)
        };
        match r {
            Err(e) if e.kind() == std::io::ErrorKind::Interrupted => continue,
            r => return r,
        }
    }
}

/// A write at `position`, or at the file's offset when it is negative; returns what it wrote.
fn write_once(file: &std::fs::File, data: &[u8], position: f64) -> std::io::Result<usize> {
    loop {
        let r = if position >= 0.0 {
            file.write_at(data, position as u64)
        } else {
            let mut f = file;
            f.write(data)
        };
        match r {
            Err(e) if e.kind() == std::io::ErrorKind::Interrupted => continue,
            r => return r,
        }
    }
}

/// Waits (blocking the thread, for the `*Sync` calls) until a polled fd is ready.
fn wait_ready(file: &std::fs::File, events: libc::c_short) {
    let mut poll = libc::pollfd {
        fd: file.as_raw_fd(),
        events,
        revents: 0,
    };
    // SAFETY: one valid pollfd; errors (EINTR) end the wait and the caller tries again.
    unsafe { libc::poll(&mut poll, 1, -1) };
}

/// Up to `len` bytes (at most [`MAX_READ`]) at `position` (negative: at the file's offset);
/// empty at the end of the file.
#[op2]
#[buffer]
pub async fn op_fs_fd_read(
    state: Rc<RefCell<OpState>>,
    fd: i32,
    len: u32,
    position: f64,
) -> Result<Vec<u8>, JsErrorBox> {
    let file = open_file(&state.borrow(), fd, "read")?;
    let len = (len as usize).min(MAX_READ);
    let result = match &file.io {
        FileIo::Blocking(f) => {
            let f = f.clone();
            on_pool(&state, move || {
                let mut buf = vec![0; len];
                let n = read_once(&f, &mut buf, position)?;
                buf.truncate(n);
                Ok(buf)
            })
            .await
        }
        FileIo::Polled(polled) => {
            let cancel = RcRef::map(&file, |f| &f.cancel);
            let read = async {
                let mut buf = vec![0; len];
                loop {
                    let mut ready = polled.readable().await?;
                    if let Ok(n) = ready.try_io(|f| read_once(f.get_ref(), &mut buf, position)) {
                        buf.truncate(n?);
                        return Ok(buf);
                    }
                }
            };
            read.or_cancel(cancel).await.map_err(|_| bad_fd("read"))?
        }
    };
    result.map_err(|e| syscall_error(e, "read"))
}

/// Writes all of `data` at `position` (negative: at the file's offset); returns its length.
#[op2]
pub async fn op_fs_fd_write(
    state: Rc<RefCell<OpState>>,
    fd: i32,
    #[buffer(copy)] data: Vec<u8>,
    position: f64,
) -> Result<u32, JsErrorBox> {
    let file = open_file(&state.borrow(), fd, "write")?;
    let len = data.len();
    let result = match &file.io {
        FileIo::Blocking(f) => {
            let f = f.clone();
            on_pool(&state, move || {
                let mut done = 0;
                while done < data.len() {
                    let at = if position >= 0.0 {
                        position + done as f64
                    } else {
                        -1.0
                    };
                    match write_once(&f, &data[done..], at)? {
                        0 => return Err(std::io::ErrorKind::WriteZero.into()),
                        n => done += n,
                    }
                }
                Ok(())
            })
            .await
        }
        FileIo::Polled(polled) => {
            let cancel = RcRef::map(&file, |f| &f.cancel);
            let write = async {
                let mut done = 0;
                while done < data.len() {
                    let mut ready = polled.writable().await?;
                    let at = if position >= 0.0 {
                        position + done as f64
                    } else {
                        -1.0
                    };
                    if let Ok(n) = ready.try_io(|f| write_once(f.get_ref(), &data[done..], at)) {
                        done += n?;
                    }
                }
                Ok(())
            };
            write.or_cancel(cancel).await.map_err(|_| bad_fd("write"))?
        }
    };
    result.map_err(|e| syscall_error(e, "write"))?;
    Ok(len as u32)
}

/// `fs.readSync`: one read into `buf`; returns how much it read.
#[op2(fast)]
pub fn op_fs_fd_read_sync(
    state: &mut OpState,
    fd: i32,
    #[buffer] buf: &mut [u8],
    position: f64,
) -> Result<u32, JsErrorBox> {
    let file = open_file(state, fd, "read")?;
    loop {
        match read_once(file.file(), buf, position) {
            Err(e) if e.kind() == std::io::ErrorKind::WouldBlock => {
                wait_ready(file.file(), libc::POLLIN)
            }
            r => return r.map(|n| n as u32).map_err(|e| syscall_error(e, "read")),
        }
    }
}

/// `fs.writeSync`: one write from `data`; returns how much it wrote.
#[op2(fast)]
pub fn op_fs_fd_write_sync(
    state: &mut OpState,
    fd: i32,
    #[buffer] data: &[u8],
    position: f64,
) -> Result<u32, JsErrorBox> {
    let file = open_file(state, fd, "write")?;
    loop {
        match write_once(file.file(), data, position) {
            Err(e) if e.kind() == std::io::ErrorKind::WouldBlock => {
                wait_ready(file.file(), libc::POLLOUT)
            }
            r => return r.map(|n| n as u32).map_err(|e| syscall_error(e, "write")),
        }
    }
}

#[op2]
#[serde]
pub fn op_fs_fstat(state: &mut OpState, fd: i32) -> Result<StatInfo, JsErrorBox> {
    let file = open_file(state, fd, "fstat")?;
    let md = file
        .file()
        .metadata()
        .map_err(|e| syscall_error(e, "fstat"))?;
    Ok(stat_info(&md))
}

/// Seconds since the epoch, as Node's `utimes` family takes them (fractions to the ns).
fn timespec(seconds: f64) -> libc::timespec {
    let whole = seconds.floor();
    libc::timespec {
        tv_sec: whole as libc::time_t,
        tv_nsec: ((seconds - whole) * 1e9).round().min(999_999_999.0) as libc::c_long,
    }
}

/// `utimes` (follows a symlink) and `lutimes` (changes the link itself).
#[op2(fast)]
pub fn op_fs_utimes(
    #[string] path: &str,
    atime: f64,
    mtime: f64,
    follow: bool,
) -> Result<(), JsErrorBox> {
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

#[op2(fast)]
pub fn op_fs_futimes(
    state: &mut OpState,
    fd: i32,
    atime: f64,
    mtime: f64,
) -> Result<(), JsErrorBox> {
    let file = open_file(state, fd, "futime")?;
    let times = [timespec(atime), timespec(mtime)];
    use std::os::fd::AsRawFd;
    // SAFETY: an open descriptor this plugin owns and two timespecs, as futimens(3) takes them.
    let rc = unsafe { libc::futimens(file.file().as_raw_fd(), times.as_ptr()) };
    if rc == 0 {
        Ok(())
    } else {
        Err(syscall_error(std::io::Error::last_os_error(), "futime"))
    }
}

#[op2(fast)]
pub fn op_fs_ftruncate(state: &mut OpState, fd: i32, #[number] len: u64) -> Result<(), JsErrorBox> {
    let file = open_file(state, fd, "ftruncate")?;
    file.file()
        .set_len(len)
        .map_err(|e| syscall_error(e, "ftruncate"))
}

fn fsync(file: &std::fs::File, data_only: bool) -> Result<(), JsErrorBox> {
    let (result, syscall) = if data_only {
        (file.sync_data(), "fdatasync")
    } else {
        (file.sync_all(), "fsync")
    };
    result.map_err(|e| syscall_error(e, syscall))
}

#[op2(fast)]
pub fn op_fs_fsync(state: &mut OpState, fd: i32, data_only: bool) -> Result<(), JsErrorBox> {
    fsync(open_file(state, fd, "fsync")?.file(), data_only)
}

/// `fsync` off the plugin's thread (`WriteStream`'s `flush`, `FileHandle.sync`).
#[op2]
pub async fn op_fs_fsync_async(
    state: Rc<RefCell<OpState>>,
    fd: i32,
    data_only: bool,
) -> Result<(), JsErrorBox> {
    let file = open_file(&state.borrow(), fd, "fsync")?;
    match &file.io {
        FileIo::Blocking(f) => {
            let f = f.clone();
            let syscall = if data_only { "fdatasync" } else { "fsync" };
            on_pool(&state, move || match data_only {
                true => f.sync_data(),
                false => f.sync_all(),
            })
            .await
            .map_err(|e| syscall_error(e, syscall))
        }
        FileIo::Polled(polled) => fsync(polled.get_ref(), data_only),
    }
}

/// Closes an fd; its pending polled reads and writes fail. The OS fd itself closes once no
/// read or write on the blocking pool uses it any more.
#[op2(fast)]
pub fn op_fs_close(state: &mut OpState, fd: i32) -> Result<(), JsErrorBox> {
    let file = state
        .try_borrow_mut::<OpenFiles>()
        .and_then(|files| files.0.remove(&fd))
        .ok_or_else(|| bad_fd("close"))?;
    file.cancel.cancel();
    Ok(())
}

// The open-file ops, as their own extension (the path-based ones are in mod.rs's `paseo_node`).
deno_core::extension!(
    paseo_fs_files,
    ops = [
        op_fs_open,
        op_fs_open_sync,
        op_fs_fd_read,
        op_fs_fd_write,
        op_fs_fd_read_sync,
        op_fs_fd_write_sync,
        op_fs_fstat,
        op_fs_ftruncate,
        op_fs_fsync,
        op_fs_fsync_async,
        op_fs_close,
    ],
);
