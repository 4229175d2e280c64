//! Open files: `fs.open` and the fd calls behind `FileHandle`, `ReadStream` and `WriteStream`.
//! An [`OpenFile`] is found by its OS file descriptor, which is what JS sees as `fd`. Regular
//! files are read and written on tokio's blocking pool, within the plugin's share of it; FIFOs,
//! sockets and terminals are non-blocking and woken by epoll.

use std::cell::RefCell;
use std::collections::HashMap;
use std::io::{Read, Write};
use std::os::fd::{AsRawFd, FromRawFd};
use std::os::unix::fs::FileExt;
use std::rc::Rc;
use std::sync::Arc;

use deno_core::{op2, CancelFuture, CancelHandle, OpState, RcRef};
use deno_error::JsErrorBox;
use tokio::io::unix::AsyncFd;

use super::error::{node_error, syscall_error};
use super::stat::{stat_info, timespec, StatInfo};

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

/// May the plugin open `path` with `flags`: read for reading, write for writing, creating,
/// truncating or appending?
fn check_open(state: &OpState, path: &str, flags: i32) -> Result<(), JsErrorBox> {
    let access = flags & libc::O_ACCMODE;
    if access == libc::O_RDONLY || access == libc::O_RDWR {
        crate::node::permission::read(state, path)?;
    }
    let writes = libc::O_CREAT | libc::O_TRUNC | libc::O_APPEND;
    if access == libc::O_WRONLY || access == libc::O_RDWR || flags & writes != 0 {
        crate::node::permission::write(state, path)?;
    }
    Ok(())
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
    check_open(&state.borrow(), &path, flags)?;
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
    check_open(state, path, flags)?;
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

// The open-file ops, as their own extension (the path-based ones are in node/mod.rs's
// `paseo_node`).
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
