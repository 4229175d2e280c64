//! Ops behind `node:child_process`. `spawn` starts a tokio child whose handle and pipes live in
//! the resource table; async ops wait for it and move bytes. The `*Sync` forms block the
//! plugin's own thread (as they block Node's) using std::process and helper threads.
//! Errors come back as Node's code names (`ENOENT`); js/node/child_process.js builds the errors.

use std::borrow::Cow;
use std::cell::RefCell;
use std::io::{Read, Write};
use std::os::unix::process::{CommandExt, ExitStatusExt};
use std::process::{ExitStatus, Stdio};
use std::rc::Rc;
use std::sync::mpsc;
use std::time::{Duration, Instant};

use deno_core::{
    op2, v8, AsyncRefCell, CancelHandle, CancelTryFuture, JsBuffer, OpState, RcRef, Resource,
    ResourceId, ToJsBuffer,
};
use deno_error::JsErrorBox;
use serde::{Deserialize, Serialize};
use tokio::io::{AsyncRead, AsyncReadExt, AsyncWriteExt};

#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct SpawnOptions {
    file: String,
    args: Vec<String>,
    argv0: Option<String>,
    cwd: Option<String>,
    env: Vec<(String, String)>,
    /// "pipe" or "ignore" for stdin, stdout, stderr.
    stdio: [String; 3],
    detached: bool,
    uid: Option<u32>,
    gid: Option<u32>,
}

/// May the plugin run `o.file`? Looked up on the PATH the child gets (else the daemon's), a
/// relative path against the child's working directory.
fn check_run(state: &OpState, o: &SpawnOptions) -> Result<(), JsErrorBox> {
    let program = match &o.cwd {
        Some(cwd) if o.file.contains('/') && !o.file.starts_with('/') => std::path::Path::new(cwd)
            .join(&o.file)
            .to_string_lossy()
            .into_owned(),
        _ => o.file.clone(),
    };
    let path_var = o
        .env
        .iter()
        .find(|(k, _)| k == "PATH")
        .map(|(_, v)| std::ffi::OsString::from(v))
        .or_else(|| std::env::var_os("PATH"));
    super::permission::check(state, |p| p.check_run(&program, path_var.as_deref()))
}

fn command(o: &SpawnOptions) -> std::process::Command {
    let mut cmd = std::process::Command::new(&o.file);
    cmd.args(&o.args)
        .env_clear()
        .envs(o.env.iter().map(|(k, v)| (k, v)));
    if let Some(argv0) = &o.argv0 {
        cmd.arg0(argv0);
    }
    if let Some(cwd) = &o.cwd {
        cmd.current_dir(cwd);
    }
    if o.detached {
        cmd.process_group(0);
    }
    if let Some(uid) = o.uid {
        cmd.uid(uid);
    }
    if let Some(gid) = o.gid {
        cmd.gid(gid);
    }
    let stdio = |s: &str| {
        if s == "pipe" {
            Stdio::piped()
        } else {
            Stdio::null()
        }
    };
    cmd.stdin(stdio(&o.stdio[0]))
        .stdout(stdio(&o.stdio[1]))
        .stderr(stdio(&o.stdio[2]));
    cmd
}

/// Node's code name and (negative) errno for a failed spawn.
fn error_code(e: &std::io::Error) -> (&'static str, i32) {
    match e.raw_os_error() {
        Some(2) => ("ENOENT", -2),
        Some(13) => ("EACCES", -13),
        Some(1) => ("EPERM", -1),
        Some(20) => ("ENOTDIR", -20),
        Some(7) => ("E2BIG", -7),
        Some(8) => ("ENOEXEC", -8),
        Some(11) => ("EAGAIN", -11),
        Some(24) => ("EMFILE", -24),
        Some(22) => ("EINVAL", -22),
        _ => ("EIO", -5),
    }
}

fn exit_of(status: ExitStatus) -> (Option<i32>, Option<i32>) {
    (status.code(), status.signal())
}

struct ChildResource(RefCell<Option<tokio::process::Child>>);
impl Resource for ChildResource {
    fn name(&self) -> Cow<'_, str> {
        "childProcess".into()
    }
}

struct ReadPipe {
    reader: AsyncRefCell<Box<dyn AsyncRead + Unpin>>,
    cancel: CancelHandle,
}
impl Resource for ReadPipe {
    fn name(&self) -> Cow<'_, str> {
        "childReadPipe".into()
    }
    fn close(self: Rc<Self>) {
        self.cancel.cancel();
    }
}

/// Closing it (dropping the last reference, after pending writes) is the child's EOF.
struct WritePipe(AsyncRefCell<tokio::process::ChildStdin>);
impl Resource for WritePipe {
    fn name(&self) -> Cow<'_, str> {
        "childWritePipe".into()
    }
}

#[derive(Serialize, Default)]
#[serde(rename_all = "camelCase")]
pub struct Spawned {
    pid: u32,
    rid: ResourceId,
    stdin: Option<ResourceId>,
    stdout: Option<ResourceId>,
    stderr: Option<ResourceId>,
    error: Option<&'static str>,
    errno: i32,
}

#[op2]
#[serde]
pub fn op_cp_spawn(state: &mut OpState, #[serde] o: SpawnOptions) -> Result<Spawned, JsErrorBox> {
    check_run(state, &o)?;
    let mut cmd = tokio::process::Command::from(command(&o));
    // A plugin's children end with the plugin unless asked to live on (`detached`).
    cmd.kill_on_drop(!o.detached);
    let mut child = match cmd.spawn() {
        Ok(child) => child,
        Err(e) => {
            let (code, errno) = error_code(&e);
            return Ok(Spawned {
                error: Some(code),
                errno,
                ..Default::default()
            });
        }
    };
    let table = &mut state.resource_table;
    let mut reader = |r: Option<Box<dyn AsyncRead + Unpin>>| {
        r.map(|r| {
            table.add(ReadPipe {
                reader: AsyncRefCell::new(r),
                cancel: CancelHandle::new(),
            })
        })
    };
    let stdout = reader(child.stdout.take().map(|r| Box::new(r) as _));
    let stderr = reader(child.stderr.take().map(|r| Box::new(r) as _));
    let stdin = child
        .stdin
        .take()
        .map(|w| table.add(WritePipe(AsyncRefCell::new(w))));
    let pid = child.id().unwrap_or(0);
    let rid = table.add(ChildResource(RefCell::new(Some(child))));
    Ok(Spawned {
        pid,
        rid,
        stdin,
        stdout,
        stderr,
        error: None,
        errno: 0,
    })
}

/// Waits for the child to end: `[exit code, signal number]`, one of them null.
#[op2]
#[serde]
pub async fn op_cp_wait(
    state: Rc<RefCell<OpState>>,
    #[smi] rid: ResourceId,
) -> Result<(Option<i32>, Option<i32>), JsErrorBox> {
    let res = state
        .borrow_mut()
        .resource_table
        .take::<ChildResource>(rid)
        .map_err(JsErrorBox::from_err)?;
    let mut child = res
        .0
        .borrow_mut()
        .take()
        .ok_or_else(|| JsErrorBox::generic("child already awaited"))?;
    let status = child
        .wait()
        .await
        .map_err(|e| JsErrorBox::generic(e.to_string()))?;
    Ok(exit_of(status))
}

/// The next chunk from a child's stdout/stderr; empty at EOF (or once the pipe is closed).
#[op2]
#[buffer]
pub async fn op_cp_read(
    state: Rc<RefCell<OpState>>,
    #[smi] rid: ResourceId,
) -> Result<Vec<u8>, JsErrorBox> {
    let pipe = state
        .borrow()
        .resource_table
        .get::<ReadPipe>(rid)
        .map_err(JsErrorBox::from_err)?;
    let mut reader = RcRef::map(&pipe, |p| &p.reader).borrow_mut().await;
    let mut buf = vec![0; 64 * 1024];
    // A cancelled (closed) or failed read ends the stream.
    let n = reader
        .read(&mut buf)
        .try_or_cancel(RcRef::map(&pipe, |p| &p.cancel))
        .await
        .unwrap_or_default();
    buf.truncate(n);
    Ok(buf)
}

/// Writes to a child's stdin; fails with `EPIPE` once the child stopped reading.
#[op2]
pub async fn op_cp_write(
    state: Rc<RefCell<OpState>>,
    #[smi] rid: ResourceId,
    #[buffer] data: JsBuffer,
) -> Result<(), JsErrorBox> {
    let pipe = state
        .borrow()
        .resource_table
        .get::<WritePipe>(rid)
        .map_err(JsErrorBox::from_err)?;
    let mut w = RcRef::map(&pipe, |p| &p.0).borrow_mut().await;
    w.write_all(&data).await.map_err(|e| match e.kind() {
        std::io::ErrorKind::BrokenPipe => JsErrorBox::generic("EPIPE"),
        _ => JsErrorBox::generic(e.to_string()),
    })
}

/// Closes a pipe (stdin: EOF after pending writes; stdout/stderr: stop reading).
#[op2(fast)]
pub fn op_cp_close(state: &mut OpState, #[smi] rid: ResourceId) {
    if let Ok(res) = state.resource_table.take_any(rid) {
        res.close();
    }
}

/// `kill(2)`: 0 on success, otherwise the (negative) errno.
#[op2(fast)]
pub fn op_cp_kill(pid: i32, signal: i32) -> i32 {
    if pid <= 0 {
        return -libc::ESRCH;
    }
    // SAFETY: kill(2) takes plain integers and touches no memory.
    if unsafe { libc::kill(pid, signal) } == 0 {
        0
    } else {
        -std::io::Error::last_os_error()
            .raw_os_error()
            .unwrap_or(libc::EINVAL)
    }
}

#[derive(Serialize, Default)]
#[serde(rename_all = "camelCase")]
pub struct SyncResult {
    pid: u32,
    status: Option<i32>,
    signal: Option<i32>,
    stdout: Option<ToJsBuffer>,
    stderr: Option<ToJsBuffer>,
    /// Set when spawning failed (then nothing else is) or on ETIMEDOUT / ENOBUFS.
    error: Option<&'static str>,
    errno: i32,
    /// Set when the `maxBuffer` asked for was lowered to fit the plugin's heap: the limit that
    /// applied, in words (for the ENOBUFS error).
    clamped: Option<String>,
}

enum SyncEvent {
    Exit(std::io::Result<ExitStatus>),
    Data(usize, Vec<u8>),
    Eof,
}

/// `spawnSync`: feeds `input`, collects output, and kills the child with `kill_signal` past
/// `timeout_ms` (0: none) or once a stream holds more than `max_buffer` bytes. Like Node, it waits
/// for the pipes to close too, except after such a kill: then a grandchild holding a pipe
/// does not keep the caller waiting (its reader thread ends once the pipe does).
///
/// Both streams' bytes are handed to the plugin at once, so `max_buffer` is clamped to a quarter
/// of the room in its heap (two streams, each decoded to text next to its bytes): output past
/// it fails with ENOBUFS, as past `maxBuffer`, instead of a buffer the heap cannot take.
#[op2]
#[serde]
pub fn op_cp_spawn_sync(
    scope: &mut v8::PinScope,
    state: &mut OpState,
    #[serde] o: SpawnOptions,
    #[buffer] input: &[u8],
    timeout_ms: f64,
    kill_signal: i32,
    max_buffer: f64,
) -> Result<SyncResult, JsErrorBox> {
    check_run(state, &o)?;
    let room = crate::engine::budget::heap_room(scope, state);
    let asked = if max_buffer.is_finite() && max_buffer >= 0.0 {
        max_buffer as usize
    } else {
        usize::MAX
    };
    let (max, clamped) = match room.bytes / 4 {
        fits if asked > fits => (
            fits,
            Some(format!(
                "maxBuffer was clamped to {fits} bytes, {}",
                room.describe(4)
            )),
        ),
        _ => (asked, None),
    };
    crate::engine::budget::contain(state, "spawnSync", |_| {
        Ok(spawn_sync(o, input, timeout_ms, kill_signal, max, clamped))
    })
}

fn spawn_sync(
    o: SpawnOptions,
    input: &[u8],
    timeout_ms: f64,
    kill_signal: i32,
    max: usize,
    clamped: Option<String>,
) -> SyncResult {
    let mut child = match command(&o).spawn() {
        Ok(child) => child,
        Err(e) => {
            let (code, errno) = error_code(&e);
            return SyncResult {
                error: Some(code),
                errno,
                ..Default::default()
            };
        }
    };
    let pid = child.id();
    if let Some(mut w) = child.stdin.take() {
        let input = input.to_vec();
        std::thread::spawn(move || {
            let _ = w.write_all(&input);
        });
    }
    // Bounded, so that readers faster than this loop wait instead of piling up output.
    let (tx, rx) = mpsc::sync_channel(4);
    let mut open = 0;
    let mut collect = |i: usize, pipe: Option<Box<dyn Read + Send>>| {
        let mut pipe = pipe?;
        let tx = tx.clone();
        open += 1;
        std::thread::spawn(move || {
            let mut buf = vec![0u8; 64 * 1024];
            while let Ok(n @ 1..) = pipe.read(&mut buf) {
                if tx.send(SyncEvent::Data(i, buf[..n].to_vec())).is_err() {
                    return;
                }
            }
            let _ = tx.send(SyncEvent::Eof);
        });
        Some(Vec::new())
    };
    let mut out = [
        collect(0, child.stdout.take().map(|p| Box::new(p) as _)),
        collect(1, child.stderr.take().map(|p| Box::new(p) as _)),
    ];
    std::thread::spawn(move || {
        let _ = tx.send(SyncEvent::Exit(child.wait()));
    });
    // A timeout too far off to represent (Node accepts any integer, 1e300 too) is none.
    let mut deadline = (timeout_ms > 0.0)
        .then(|| {
            Duration::try_from_secs_f64(timeout_ms / 1000.0)
                .ok()
                .and_then(|d| Instant::now().checked_add(d))
        })
        .flatten();
    let (mut status, mut exited, mut error): (_, _, Option<(&str, i32)>) = (None, false, None);
    // Signals only a child not yet reaped (its pid cannot have been reused).
    let kill = |exited: bool| {
        if !exited {
            // SAFETY: kill(2) takes plain integers and touches no memory.
            unsafe { libc::kill(pid as i32, kill_signal) };
        }
    };
    // Once killed (`error` set), the pipes are not waited for.
    while !(exited && (open == 0 || error.is_some())) {
        let event = match deadline {
            Some(d) => rx.recv_timeout(d.saturating_duration_since(Instant::now())),
            None => rx.recv().map_err(|_| mpsc::RecvTimeoutError::Disconnected),
        };
        match event {
            Ok(SyncEvent::Exit(s)) => (status, exited) = (s.ok(), true),
            Ok(SyncEvent::Eof) => open -= 1,
            // Past maxBuffer the child is being killed: what it still wrote is dropped.
            Ok(SyncEvent::Data(..)) if error.is_some_and(|e| e.0 == "ENOBUFS") => {}
            Ok(SyncEvent::Data(i, bytes)) => {
                let buf = out[i].as_mut().expect("piped stream");
                buf.extend_from_slice(&bytes);
                // Node keeps the chunk that went over (it does not truncate).
                if buf.len() > max && error.is_none() {
                    error = Some(("ENOBUFS", -libc::ENOBUFS));
                    kill(exited);
                }
            }
            Err(mpsc::RecvTimeoutError::Timeout) => {
                error.get_or_insert(("ETIMEDOUT", -libc::ETIMEDOUT));
                kill(exited);
                deadline = None;
            }
            Err(mpsc::RecvTimeoutError::Disconnected) => break,
        }
    }
    let (status, signal) = status.map(exit_of).unwrap_or((None, None));
    let [stdout, stderr] = out.map(|o| o.map(ToJsBuffer::from));
    let clamped = clamped.filter(|_| error.is_some_and(|e| e.0 == "ENOBUFS"));
    SyncResult {
        pid,
        status,
        signal,
        stdout,
        stderr,
        error: error.map(|e| e.0),
        errno: error.map_or(0, |e| e.1),
        clamped,
    }
}

deno_core::extension!(
    paseo_child_process,
    ops = [
        op_cp_spawn,
        op_cp_wait,
        op_cp_read,
        op_cp_write,
        op_cp_close,
        op_cp_kill,
        op_cp_spawn_sync
    ]
);
