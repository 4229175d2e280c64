//! One plugin = one thread that owns one `JsRuntime` (an actor). An isolate boots without a
//! plugin (`Standby`: engine, deno_core's JS, the host's JS; on V8 from a startup snapshot of
//! them, see `snapshot`) and is then bound to one (`Standby::bind`, which gives the `Isolate`
//! handle). The host talks to it only through `Isolate::call` (and `send` and `notify`, which
//! queue a call without waiting on it; each call's outcome goes to its `Reply`); every entry into
//! plugin JS (the calls queued since the last wake-up, run by `Actor::flush` in one `pump()`, and
//! each turn of the event loop for timers and promise continuations) runs under the watchdog's
//! CPU deadline (a timer callback, and a turn with no call pending, under the shorter turn
//! budget), and the heap cap is enforced by the near-heap-limit callback and, for buffers ops
//! return, by `budget`.

pub mod backend;
pub(crate) mod budget;
pub mod bytecode_cache;
pub mod code_cache;
pub mod entry;
pub mod host_js;
pub mod imports;
pub mod missing_imports;
pub mod modules;
mod ops;
pub mod snapshot;
pub mod transpile;
mod watchdog;

use std::borrow::Cow;
use std::collections::HashMap;
use std::future::Future;
use std::path::PathBuf;
use std::rc::Rc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::task::Poll;
use std::time::{Duration, Instant};

use deno_core::{JsRuntime, ModuleSpecifier, PollEventLoopOptions};
use tokio::sync::{mpsc, oneshot};

use crate::logs::{LogTail, Stream};
pub use ops::{Provided, Registrations};
use watchdog::Watchdog;

/// Per-plugin limits. Defaults follow Paseo's host: 30 s per hook invocation and for
/// initialisation; the heap cap and the turn budget are ours (Node has neither per plugin).
#[derive(Debug, Clone)]
pub struct Limits {
    /// Heap cap of the plugin's isolate, in bytes. Buffers that ops hand to the plugin (file
    /// contents, a child's output) count against it too.
    pub heap_bytes: usize,
    /// Deadline of one hook invocation (all of one plugin's handlers for one event).
    pub hook_timeout: Duration,
    /// CPU budget of one timer callback, and of an event-loop turn while no invocation of the
    /// plugin is pending (background work: I/O callbacks, promise continuations). JS still
    /// running then is terminated, so that a spinning `setInterval` holds the plugin's next hook
    /// call for at most this long instead of the hook timeout. An invocation's own code (also
    /// after an `await`) runs under that invocation's deadline.
    pub turn_timeout: Duration,
    /// Deadline of evaluating the plugin's modules and `contribute(server)`.
    pub load_timeout: Duration,
    /// Deadline of the plugin's cleanup function on unload.
    pub stop_timeout: Duration,
    /// Most bytes of events one stream out of the plugin (a provider connection) may hold
    /// unread by the daemon; past it the stream fails.
    pub queued_event_bytes: usize,
}

pub const DEFAULT_HEAP_BYTES: usize = 128 * 1024 * 1024;

impl Default for Limits {
    fn default() -> Self {
        Limits {
            heap_bytes: DEFAULT_HEAP_BYTES,
            hook_timeout: Duration::from_secs(30),
            // Node has no such limit, but on Paseo's Node host a callback that runs for a
            // second blocks every plugin and the host's IPC; code written for it does not. A
            // second is also about as long as an agent open may wait for a plugin's isolate.
            turn_timeout: Duration::from_secs(1),
            load_timeout: Duration::from_secs(30),
            stop_timeout: Duration::from_secs(2),
            queued_event_bytes: 64 * 1024 * 1024,
        }
    }
}

/// What the isolate knows about its plugin, shared with the host. Capabilities' ops find it in
/// `OpState` as `Arc<PluginShared>` (a standby's is a stand-in until it is bound).
pub struct PluginShared {
    pub id: String,
    pub dir: PathBuf,
    /// `<settings directory>/<plugin id>`, if the host keeps settings and secrets.
    pub storage_dir: Option<PathBuf>,
    pub logs: Arc<LogTail>,
    pub registrations: Mutex<Registrations>,
    /// Set once the isolate is gone for good (heap cap, panic, engine failure), with the reason.
    pub fatal: Mutex<Option<String>>,
    /// Daemon event topics the plugin's SDK subscriptions listen to.
    pub topics: Mutex<std::collections::HashSet<String>>,
    /// Host-provided packages (zod) the plugin's code imported, by URL: a standby isolate for
    /// the next load or reload can have them evaluated ahead.
    pub host_packages: Arc<Mutex<std::collections::BTreeSet<ModuleSpecifier>>>,
    /// Open event streams out of the plugin (provider connections), by stream id: what the
    /// plugin writes with `op_host_stream` goes to the receiver, in order.
    pub streams: Mutex<HashMap<String, EventStream>>,
    /// Set when the isolate's thread stopped coming back (see `watchdog::WEDGED_AFTER`): calls
    /// then fail at once, and nothing waits for the thread any more.
    pub wedged: AtomicBool,
    pub wedge: tokio::sync::Notify,
}

/// The sending end of an event stream out of a plugin (`PluginShared::streams`), with the
/// bytes its reader has not taken yet: a plugin that writes faster than the daemon reads
/// cannot grow the daemon's memory past its cap (`Limits::queued_event_bytes`).
pub struct EventStream {
    tx: mpsc::UnboundedSender<String>,
    queued: Arc<std::sync::atomic::AtomicUsize>,
    cap: usize,
}

/// The reading end of an [`EventStream`].
pub struct EventReceiver {
    rx: mpsc::UnboundedReceiver<String>,
    queued: Arc<std::sync::atomic::AtomicUsize>,
}

impl EventStream {
    /// A stream that fails once more than `cap` bytes of events are unread.
    pub fn new(cap: usize) -> (EventStream, EventReceiver) {
        let (tx, rx) = mpsc::unbounded_channel();
        let queued = Arc::new(std::sync::atomic::AtomicUsize::new(0));
        (
            EventStream {
                tx,
                queued: queued.clone(),
                cap,
            },
            EventReceiver { rx, queued },
        )
    }

    /// Queues one event; `Err` with the reason when the stream must end (its reader is gone,
    /// or too much is unread). Failure events (`stream.failed`) are always queued.
    pub fn send(&self, event: String) -> Result<(), String> {
        let len = event.len();
        let queued = self.queued.fetch_add(len, Ordering::AcqRel) + len;
        if queued > self.cap {
            let _ = self.tx.send(failed(&format!(
                "more than {} bytes of events queued unread",
                self.cap
            )));
            return Err("overflow".into());
        }
        self.tx.send(event).map_err(|_| "closed".to_string())
    }

    /// Queues a `stream.failed` event saying why the stream ends.
    pub fn fail(&self, reason: &str) {
        let _ = self.tx.send(failed(reason));
    }
}

/// The event that ends a stream, with its reason.
fn failed(reason: &str) -> String {
    serde_json::json!({ "type": "stream.failed", "error": { "message": reason } }).to_string()
}

impl EventReceiver {
    pub async fn recv(&mut self) -> Option<String> {
        let event = self.rx.recv().await?;
        // Failure events were never counted; saturate rather than wrap.
        let _ = self
            .queued
            .fetch_update(Ordering::AcqRel, Ordering::Acquire, |q| {
                Some(q.saturating_sub(event.len()))
            });
        Some(event)
    }

    pub fn is_empty(&self) -> bool {
        self.rx.is_empty()
    }

    pub fn len(&self) -> usize {
        self.rx.len()
    }

    pub fn close(&mut self) {
        self.rx.close();
    }
}

impl PluginShared {
    /// A plugin's shared state before anything is registered.
    pub fn new(id: impl Into<String>, dir: PathBuf, logs: Arc<LogTail>) -> PluginShared {
        PluginShared {
            id: id.into(),
            dir,
            storage_dir: None,
            logs,
            registrations: Mutex::default(),
            fatal: Mutex::default(),
            topics: Mutex::default(),
            host_packages: Arc::default(),
            streams: Mutex::default(),
            wedged: AtomicBool::new(false),
            wedge: tokio::sync::Notify::new(),
        }
    }

    /// The isolate is stuck in native code that termination cannot reach: the plugin fails
    /// with the reason, its streams end and every caller waiting on it is answered.
    pub fn wedged(&self, reason: &str) {
        self.logs
            .write(Stream::Stderr, &format!("[paseo] {reason}"));
        self.fatal
            .lock()
            .unwrap()
            .get_or_insert_with(|| reason.to_string());
        self.end_streams(reason);
        self.wedged.store(true, Ordering::Release);
        self.wedge.notify_waiters();
    }

    /// Why calls fail now that the isolate is gone: its fatal error, or that it stopped.
    pub fn stopped_reason(&self) -> String {
        self.fatal
            .lock()
            .unwrap()
            .clone()
            .unwrap_or_else(|| format!("Plugin stopped: {}", self.id))
    }

    /// Resolves once the isolate is wedged.
    async fn until_wedged(&self) {
        loop {
            let notified = self.wedge.notified();
            if self.wedged.load(Ordering::Acquire) {
                return;
            }
            notified.await;
        }
    }

    /// Ends every open stream out of the plugin, telling each reader why: the isolate is gone.
    pub fn end_streams(&self, reason: &str) {
        for (_, stream) in self.streams.lock().unwrap().drain() {
            stream.fail(reason);
        }
    }
}

/// Why a call into the plugin did not produce a value. `Display` gives the plugin's message,
/// the reason it stopped, or a generic text for the other two; a caller whose kind of call has
/// a documented timeout text (`Plugin RPC timed out: <id>.invoke`, …) matches `TimedOut` first.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum CallError {
    /// The plugin's code threw or rejected; the message only.
    #[error("{0}")]
    Failed(String),
    /// The deadline passed; the invocation's signal was aborted.
    #[error("The call timed out")]
    TimedOut,
    /// The isolate is gone (unloaded, crashed, heap cap); the reason.
    #[error("{0}")]
    Stopped(String),
    /// The caller cancelled the call.
    #[error("The call was cancelled")]
    Cancelled,
}

pub enum CallKind {
    Load {
        entry: ModuleSpecifier,
    },
    /// A hook's handlers: the catalogue's name, and the input, which a notification shares
    /// between the plugins it reaches (serialised once).
    Hook {
        hook: &'static str,
        input: Arc<str>,
    },
    /// A plugin RPC method (`server.handle`).
    Rpc {
        method: String,
        input: String,
    },
    /// A daemon event for the plugin's SDK subscriptions.
    Event {
        topic: String,
        payload: String,
    },
    /// An agent tool's `execute` (`{ agentId, name, input, agent }`).
    Tool {
        input: String,
    },
    /// Forget the tool definitions attached to an agent whose session closed.
    ReleaseTools {
        agent_id: String,
    },
    /// A call into something the plugin provides (`providers`): `call` names the family and
    /// the operation (`provider.connect`, `forge.invoke`, `usage.fetch`, …).
    Provide {
        call: String,
        input: String,
    },
    Stop,
}

struct Call {
    kind: CallKind,
    timeout: Duration,
    reply: Reply,
    /// The host's id of this call, for cancelling it.
    token: u64,
}

/// Where the outcome of a call goes.
pub(crate) enum Reply {
    /// A caller waiting for it (`Isolate::call`, `Isolate::send`).
    Waiting(oneshot::Sender<Result<String, CallError>>),
    /// Nobody waits (`Isolate::notify`): a function run with it.
    Done(Done),
}

impl Reply {
    pub(crate) fn send(self, outcome: Result<String, CallError>) {
        match self {
            Reply::Waiting(tx) => {
                let _ = tx.send(outcome);
            }
            Reply::Done(mut done) => done.run(outcome),
        }
    }
}

/// The function that takes the outcome of a call nobody waits for. It runs exactly once: with
/// the outcome where the isolate's thread settles the call, or with `CallError::Stopped` where
/// the call is dropped unanswered (the isolate is gone).
pub(crate) struct Done {
    run: Option<Box<DoneFn>>,
    shared: Arc<PluginShared>,
}

type DoneFn = dyn FnOnce(&PluginShared, Result<String, CallError>) + Send;

impl Done {
    fn run(&mut self, outcome: Result<String, CallError>) {
        if let Some(run) = self.run.take() {
            run(&self.shared, outcome);
        }
    }
}

impl Drop for Done {
    fn drop(&mut self) {
        if self.run.is_some() {
            let reason = self.shared.stopped_reason();
            self.run(Err(CallError::Stopped(reason)));
        }
    }
}

enum Message {
    /// The plugin a standby isolate now serves; always the first message.
    Bind(Box<Binding>),
    Call(Call),
    /// Abort the call with this token: its signal fires and its result is dropped.
    Cancel(u64),
    /// Report the JS heap's size, in bytes (what QuickJS/V8 allocated for this isolate).
    HeapSize(oneshot::Sender<usize>),
}

/// The host's handle on a plugin isolate. Dropping it stops the actor.
pub struct Isolate {
    tx: mpsc::UnboundedSender<Message>,
    next_token: std::sync::atomic::AtomicU64,
    pub shared: Arc<PluginShared>,
    thread: Option<std::thread::JoinHandle<()>>,
    spin: Duration,
}

/// Makes one isolate's capability extensions (ops and the state they keep), on the isolate's
/// thread: deno_core extensions are built for one runtime each.
pub type Extensions = Arc<dyn Fn() -> Vec<deno_core::Extension> + Send + Sync>;

/// What every isolate of a host shares, known before a plugin is chosen: a standby isolate
/// boots from this alone.
#[derive(Clone)]
pub struct EngineConfig {
    pub host_js_dir: PathBuf,
    /// Heap cap of the isolate (fixed when the isolate is created).
    pub heap_bytes: usize,
    /// The capabilities every isolate runs beside the engine's own (`node:` builtins,
    /// `context.paseo`, …): the host's choice.
    pub extensions: Extensions,
    /// Host-provided package modules to evaluate while booting (see `PluginShared::host_packages`).
    pub preload: Vec<ModuleSpecifier>,
    /// How long the isolate's thread, and a caller waiting for an answer, keep looking before
    /// they sleep (`SPIN`); zero never spins.
    pub spin: Duration,
}

/// The plugin an isolate serves.
pub struct Binding {
    pub shared: Arc<PluginShared>,
    pub limits: Limits,
}

/// An isolate booted (or booting) on its own thread with the engine and the host's JS, but no
/// plugin yet. Binding it to a plugin skips the engine's start-up, which is most of a plugin's
/// cold start; the host keeps one ready for the next load or reload.
pub struct Standby {
    tx: mpsc::UnboundedSender<Message>,
    thread: std::thread::JoinHandle<()>,
    heap_bytes: usize,
    preload: Vec<ModuleSpecifier>,
    ready: tokio::sync::watch::Receiver<bool>,
    spin: Duration,
}

impl Standby {
    pub fn spawn(engine: EngineConfig) -> Standby {
        let (tx, rx) = mpsc::unbounded_channel();
        let (ready_tx, ready) = tokio::sync::watch::channel(false);
        let heap_bytes = engine.heap_bytes;
        let preload = engine.preload.clone();
        let spin = engine.spin;
        let thread = std::thread::Builder::new()
            .name("plugin:standby".into())
            .spawn(move || thread_main(engine, rx, ready_tx))
            .expect("spawn plugin thread");
        Standby {
            tx,
            thread,
            heap_bytes,
            preload,
            ready,
            spin,
        }
    }

    /// The heap cap it was created with; only plugins with the same cap can use it.
    pub fn heap_bytes(&self) -> usize {
        self.heap_bytes
    }

    /// The host-package modules it evaluates while booting (`EngineConfig::preload`).
    pub fn preload(&self) -> &[ModuleSpecifier] {
        &self.preload
    }

    /// Resolves once the engine and the host's JS are up (or failed to start); it does not
    /// borrow the standby, so a host can wait without holding its lock.
    pub fn ready_signal(&self) -> impl Future<Output = ()> + Send + 'static {
        let mut ready = self.ready.clone();
        async move {
            let _ = ready.wait_for(|r| *r).await;
        }
    }

    /// Hands the isolate to a plugin. Calls made on the returned handle queue behind the boot
    /// if it is still in progress.
    pub fn bind(self, binding: Binding) -> Isolate {
        let shared = binding.shared.clone();
        let _ = self.tx.send(Message::Bind(Box::new(binding)));
        Isolate {
            tx: self.tx,
            next_token: Default::default(),
            shared,
            thread: Some(self.thread),
            spin: self.spin,
        }
    }

    /// Ends an unused standby and waits for its thread (dropping it ends the thread too, without
    /// waiting): the channel closes before any binding arrives.
    pub fn join(self) {
        let Standby { tx, thread, .. } = self;
        drop(tx);
        let _ = thread.join();
    }
}

/// The body of an isolate's thread: a current-thread runtime driving the actor; a panic marks
/// the plugin (once bound) failed with the reason.
fn thread_main(
    engine: EngineConfig,
    rx: mpsc::UnboundedReceiver<Message>,
    ready: tokio::sync::watch::Sender<bool>,
) {
    let bound: Arc<Mutex<Option<Arc<PluginShared>>>> = Arc::default();
    let ours = bound.clone();
    let result = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
        tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .build()
            .expect("plugin thread runtime")
            .block_on(actor_main(engine, rx, ready, ours))
    }));
    let shared = bound.lock().unwrap().clone();
    if let (Err(panic), Some(shared)) = (result, shared) {
        let reason = panic
            .downcast_ref::<String>()
            .cloned()
            .or_else(|| panic.downcast_ref::<&str>().map(|s| s.to_string()))
            .unwrap_or_else(|| "unknown panic".into());
        let reason = format!("Plugin {} crashed: {reason}", shared.id);
        shared
            .logs
            .write(Stream::Stderr, &format!("[paseo] {reason}"));
        shared.end_streams(&reason);
        shared.fatal.lock().unwrap().get_or_insert(reason);
    }
}

/// Names the calling thread (as /proc shows it: at most 15 bytes).
pub(crate) fn name_current_thread(name: &str) {
    #[cfg(target_os = "linux")]
    {
        let mut end = name.len().min(15);
        while !name.is_char_boundary(end) {
            end -= 1;
        }
        if let Ok(name) = std::ffi::CString::new(&name[..end]) {
            // SAFETY: a NUL-terminated name of at most 15 bytes, for the calling thread.
            unsafe { libc::pthread_setname_np(libc::pthread_self(), name.as_ptr()) };
        }
    }
    #[cfg(not(target_os = "linux"))]
    let _ = name;
}

impl Isolate {
    /// Sends one call to the isolate and waits for its outcome.
    pub async fn call(&self, kind: CallKind, timeout: Duration) -> Result<String, CallError> {
        self.call_until(kind, timeout, std::future::pending()).await
    }

    /// `call`, abandoned when `cancel` completes first: the call's signal is aborted inside the
    /// plugin and its result dropped.
    pub async fn call_until(
        &self,
        kind: CallKind,
        timeout: Duration,
        cancel: impl Future<Output = ()>,
    ) -> Result<String, CallError> {
        let (token, mut rx) = self.enqueue(kind, timeout)?;
        // A small call is answered within `SPIN` more often than not; looking for the answer
        // that long saves this task a wake-up (the isolate's thread does the same for calls).
        let mut early = None;
        spin_until(self.spin, || match rx.try_recv() {
            Err(oneshot::error::TryRecvError::Empty) => false,
            Ok(outcome) => {
                early = Some(outcome);
                true
            }
            Err(oneshot::error::TryRecvError::Closed) => {
                early = Some(Err(CallError::Stopped(self.stopped_reason())));
                true
            }
        });
        if let Some(outcome) = early {
            return outcome;
        }
        tokio::select! {
            outcome = rx => outcome.unwrap_or_else(|_| Err(CallError::Stopped(self.stopped_reason()))),
            () = cancel => {
                let _ = self.tx.send(Message::Cancel(token));
                Err(CallError::Cancelled)
            }
            // The isolate will not answer: no call waits for it.
            () = self.shared.until_wedged() => Err(CallError::Stopped(self.stopped_reason())),
        }
    }

    /// Queues a call now (calls reach the plugin in the order they were queued) and returns
    /// its token and the receiver of its outcome.
    fn enqueue(
        &self,
        kind: CallKind,
        timeout: Duration,
    ) -> Result<(u64, oneshot::Receiver<Result<String, CallError>>), CallError> {
        let (reply, rx) = oneshot::channel();
        match self.queue(kind, timeout, Reply::Waiting(reply)) {
            Ok(token) => Ok((token, rx)),
            Err(_) => Err(CallError::Stopped(self.stopped_reason())),
        }
    }

    /// Queues a call with where its outcome goes; returns its token, or where its outcome was
    /// to go if the isolate is gone.
    fn queue(&self, kind: CallKind, timeout: Duration, reply: Reply) -> Result<u64, Reply> {
        let token = self.next_token.fetch_add(1, Ordering::Relaxed);
        let call = Call {
            kind,
            timeout,
            reply,
            token,
        };
        match self.tx.send(Message::Call(call)) {
            Ok(()) => Ok(token),
            Err(mpsc::error::SendError(Message::Call(call))) => Err(call.reply),
            Err(_) => unreachable!("a call was sent"),
        }
    }

    /// Queues a call nobody waits for (a notification); `done` takes its outcome, once: on
    /// the isolate's thread when the plugin settles it or its deadline passes, or
    /// `CallError::Stopped` if the isolate goes before. No task waits for the answer, so a
    /// notification costs its sender no wake-up. If the isolate is gone already, `done` is
    /// not run and the error is returned: the caller may hold locks `done` must not run under.
    pub fn notify(
        &self,
        kind: CallKind,
        timeout: Duration,
        done: impl FnOnce(&PluginShared, Result<String, CallError>) + Send + 'static,
    ) -> Result<(), CallError> {
        let done = Done {
            run: Some(Box::new(done)),
            shared: self.shared.clone(),
        };
        match self.queue(kind, timeout, Reply::Done(done)) {
            Ok(_) => Ok(()),
            Err(reply) => {
                if let Reply::Done(mut done) = reply {
                    done.run = None;
                }
                Err(CallError::Stopped(self.stopped_reason()))
            }
        }
    }

    /// Queues a call now and returns a future of its outcome: for a caller that queues one
    /// notification on several plugins in emission order and then waits for them all
    /// (`run_hook`); the daemon's own notifications use `notify`, which nothing waits on.
    pub fn send(
        &self,
        kind: CallKind,
        timeout: Duration,
    ) -> impl Future<Output = Result<String, CallError>> + Send + 'static {
        let queued = self.enqueue(kind, timeout);
        let shared = self.shared.clone();
        async move {
            match queued {
                Ok((_, rx)) => rx
                    .await
                    .unwrap_or_else(|_| Err(CallError::Stopped(shared.stopped_reason()))),
                Err(e) => Err(e),
            }
        }
    }

    /// The size of the isolate's JS heap in bytes, or `None` if the isolate is gone.
    pub async fn heap_size(&self) -> Option<usize> {
        let (reply, rx) = oneshot::channel();
        self.tx.send(Message::HeapSize(reply)).ok()?;
        rx.await.ok()
    }

    fn stopped_reason(&self) -> String {
        self.shared.stopped_reason()
    }

    pub fn is_alive(&self) -> bool {
        !self.tx.is_closed()
    }

    /// Waits for the actor thread to end (after `CallKind::Stop` or a fatal error).
    pub fn join(mut self) {
        let thread = self.thread.take();
        let wedged = self.shared.wedged.load(Ordering::Acquire);
        drop(self);
        // A wedged thread may never end; it is left behind (its memory with it) rather than
        // holding up the host.
        if let Some(t) = thread.filter(|_| !wedged) {
            let _ = t.join();
        }
    }
}

pub(crate) struct Pending {
    reply: Reply,
    deadline: Instant,
    stop: bool,
    token: u64,
}

/// How long an isolate's thread keeps looking for its next message before it sleeps, and how
/// long a caller looks for the answer before it does (`Isolate::call`).
///
/// The next call often follows within microseconds (a dispatcher's next hook, a burst of
/// notifications), and a thread that has gone to sleep costs a wake-up to reach: on the virtual
/// machines daemons run on, waking a thread whose CPU went idle takes 20 to 80 µs, more than a
/// small hook call itself. Spinning this long costs at most that much CPU per call.
pub const SPIN: Duration = Duration::from_micros(100);

/// Spins for up to `limit` until `ready` holds, yielding the CPU now and then so that other
/// runnable threads are not held up. Returns whether `ready` held.
pub fn spin_until(limit: Duration, mut ready: impl FnMut() -> bool) -> bool {
    if limit.is_zero() {
        return ready();
    }
    let start = Instant::now();
    let mut turns = 0u32;
    loop {
        if ready() {
            return true;
        }
        turns += 1;
        if turns.is_multiple_of(64) {
            if start.elapsed() >= limit {
                return false;
            }
            std::thread::yield_now();
        } else {
            std::hint::spin_loop();
        }
    }
}

/// Before an isolate's thread sleeps: whether a message arrived within `limit`.
fn spin_for_message(limit: Duration, rx: &mpsc::UnboundedReceiver<Message>) -> bool {
    spin_until(limit, || !rx.is_empty() || rx.is_closed())
}

/// What an invocation is to the JS host, which runs each kind with its own handler
/// (js/runtime/host.js `HANDLERS`). The host checks at boot that it handles exactly these
/// (`op_host_invocation_kinds`), so a kind added on one side only fails every isolate's boot
/// instead of reaching the wrong handler.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum InvocationKind {
    Load,
    Hook,
    Rpc,
    Event,
    Tool,
    Release,
    Provide,
    Stop,
}

impl InvocationKind {
    pub const ALL: [InvocationKind; 8] = [
        InvocationKind::Load,
        InvocationKind::Hook,
        InvocationKind::Rpc,
        InvocationKind::Event,
        InvocationKind::Tool,
        InvocationKind::Release,
        InvocationKind::Provide,
        InvocationKind::Stop,
    ];

    /// The name host.js knows it by.
    pub fn name(self) -> &'static str {
        match self {
            InvocationKind::Load => "load",
            InvocationKind::Hook => "hook",
            InvocationKind::Rpc => "rpc",
            InvocationKind::Event => "event",
            InvocationKind::Tool => "tool",
            InvocationKind::Release => "release",
            InvocationKind::Provide => "provide",
            InvocationKind::Stop => "stop",
        }
    }
}

/// What the JS side of the host must do next, taken by `op_host_commands` when the actor calls
/// the host's `pump` function (one stored function, so no script is compiled per call).
pub(crate) enum HostCommand {
    /// Start invocation `id`: `kind` of `name`, with its JSON input.
    Invoke {
        id: u32,
        kind: InvocationKind,
        name: Cow<'static, str>,
        input: Option<Arc<str>>,
    },
    /// Abort the signal of invocation `id` with this reason.
    Abort { id: u32, reason: String },
}

impl HostCommand {
    /// Appends the command to a JSON array of `[id, kind, name, input]` (invoke) or
    /// `[id, null, reason]` (abort). Inputs are JSON already and go in as they are, so the host
    /// parses each call's commands and inputs with one `JSON.parse`.
    pub(crate) fn write_json(&self, out: &mut String) {
        use std::fmt::Write;
        let quote = |s: &str| serde_json::to_string(s).unwrap_or_else(|_| "\"\"".into());
        // Names are mostly hook names and methods: nothing to escape, nothing to allocate.
        let plain = |s: &str| s.bytes().all(|b| b >= 0x20 && b != b'"' && b != b'\\');
        match self {
            HostCommand::Invoke {
                id,
                kind,
                name,
                input,
            } => {
                let _ = write!(out, "[{id},\"{}\",", kind.name());
                if plain(name) {
                    out.push('"');
                    out.push_str(name);
                    out.push('"');
                } else {
                    out.push_str(&quote(name));
                }
                out.push(',');
                out.push_str(input.as_deref().unwrap_or("null"));
                out.push(']');
            }
            HostCommand::Abort { id, reason } => {
                let _ = write!(out, "[{id},null,{}]", quote(reason));
            }
        }
    }
}

/// The state ops reach through `OpState`.
pub(crate) struct ActorState {
    pub commands: Vec<HostCommand>,
    pub pending: HashMap<u32, Pending>,
    pub stop_settled: bool,
    /// The isolate's heap cap (`budget::heap_room` measures against it).
    pub heap_bytes: usize,
    /// A panic an op caught (`budget::contain`): the plugin fails with it after the entry.
    pub crashed: Option<String>,
    /// `Limits::turn_timeout`.
    pub turn_timeout: Duration,
    pub watchdog: Rc<Watchdog>,
    /// While a timer callback runs: the deadline armed before it, restored when it returns
    /// (`op_host_timer`). Still set after an entry: the callback was terminated.
    pub timer: Option<Option<Instant>>,
}

impl ActorState {
    /// An actor's state with no call queued or pending.
    pub fn new(heap_bytes: usize, turn_timeout: Duration, watchdog: Rc<Watchdog>) -> ActorState {
        ActorState {
            commands: Vec::new(),
            pending: HashMap::new(),
            stop_settled: false,
            heap_bytes,
            crashed: None,
            turn_timeout,
            watchdog,
            timer: None,
        }
    }
}

struct Actor {
    js: JsRuntime,
    watchdog: Rc<Watchdog>,
    heap_exceeded: Arc<AtomicBool>,
    state: Rc<std::cell::RefCell<deno_core::OpState>>,
    limits: Limits,
    next_id: u32,
    shared: Arc<PluginShared>,
    timer: std::pin::Pin<Box<tokio::time::Sleep>>,
    /// The host's `pump()`, which runs the queued `HostCommand`s.
    pump: Option<deno_core::v8::Global<deno_core::v8::Function>>,
    /// `EngineConfig::spin`.
    spin: Duration,
    /// Whether the turn of the event loop just run had the turn budget for its deadline.
    turn_budget: bool,
}

enum Exit {
    Closed,
    Fatal(String),
}

async fn actor_main(
    engine: EngineConfig,
    mut rx: mpsc::UnboundedReceiver<Message>,
    ready: tokio::sync::watch::Sender<bool>,
    bound: Arc<Mutex<Option<Arc<PluginShared>>>>,
) {
    let booted = Actor::boot(engine, bound.clone()).await;
    let _ = ready.send(true);
    // A standby waits here for its plugin; an unused one ends when the host drops it.
    let binding = loop {
        match rx.recv().await {
            Some(Message::Bind(binding)) => break binding,
            Some(_) => continue,
            None => return,
        }
    };
    let shared = binding.shared.clone();
    *bound.lock().unwrap() = Some(shared.clone());
    name_current_thread(&format!("plugin:{}", shared.id));
    let exit = match booted {
        Ok(mut actor) => {
            actor.bind(*binding);
            let exit = actor.run(&mut rx).await;
            // Record the reason before anyone waiting hears about it.
            if let Exit::Fatal(reason) = &exit {
                shared.fatal.lock().unwrap().get_or_insert(reason.clone());
            }
            actor.fail_pending(&exit);
            exit
        }
        Err(e) => Exit::Fatal(format!(
            "Plugin {} could not start its engine: {e}",
            shared.id
        )),
    };
    if let Exit::Fatal(reason) = &exit {
        shared.fatal.lock().unwrap().get_or_insert(reason.clone());
    }
    let reason = match exit {
        Exit::Fatal(r) => r,
        Exit::Closed => format!("Plugin stopped: {}", shared.id),
    };
    shared.end_streams(&reason);
    rx.close();
    while let Ok(message) = rx.try_recv() {
        if let Message::Call(call) = message {
            call.reply.send(Err(CallError::Stopped(reason.clone())));
        }
    }
}

impl Actor {
    /// Starts the engine and runs the host's bootstrap, for no plugin yet (see `bind`). Errors
    /// are the engine's own text; the caller names the plugin.
    async fn boot(
        engine: EngineConfig,
        bound: Arc<Mutex<Option<Arc<PluginShared>>>>,
    ) -> Result<Actor, String> {
        let started = Instant::now();
        // Stands in for the plugin until `bind`; nothing a plugin owns is reachable before.
        let shared = Arc::new(PluginShared::new(
            "(standby)",
            PathBuf::new(),
            Arc::new(LogTail::new("(standby)", None)),
        ));
        let loader = Rc::new(modules::PluginModuleLoader::new(
            PathBuf::new(),
            engine.host_js_dir.clone(),
        ));
        let heap = engine.heap_bytes;
        // From the startup snapshot, when there is one: the bootstrap is evaluated already.
        let (mut js, restored) = snapshot::runtime(&engine, loader.clone(), heap)?;
        let runtime_ms = started.elapsed().as_secs_f64() * 1e3;
        let handle = js.v8_isolate().thread_safe_handle();
        let heap_exceeded = Arc::new(AtomicBool::new(false));
        {
            let flag = heap_exceeded.clone();
            let handle = handle.clone();
            js.add_near_heap_limit_callback(move |current, _initial| {
                // Room to unwind the terminated script is granted once; a script still
                // allocating afterwards (native loops check termination late) gets no more.
                let first = !flag.swap(true, Ordering::SeqCst);
                handle.terminate_execution();
                if first {
                    current + current / 8
                } else {
                    current
                }
            });
        }
        // The plugin the isolate serves once bound (nothing can wedge a standby's JS).
        let on_wedged = Box::new(move || {
            if let Some(shared) = bound.lock().unwrap().clone() {
                shared.wedged(&format!(
                    "Plugin {} stopped answering: its isolate stayed in native code {} s past a deadline, where it cannot be interrupted, and was abandoned",
                    shared.id,
                    watchdog::WEDGED_AFTER.as_secs()
                ));
            }
        });
        let watchdog = Rc::new(Watchdog::start("plugin:standby", handle.clone(), on_wedged));
        let state = js.op_state();
        state.borrow_mut().put(shared.clone());
        state.borrow_mut().put(ActorState::new(
            heap,
            Limits::default().turn_timeout,
            watchdog.clone(),
        ));
        state.borrow_mut().put(handle);
        state.borrow_mut().put(loader.clone());
        let mut actor = Actor {
            js,
            watchdog,
            heap_exceeded,
            state,
            limits: Limits {
                heap_bytes: heap,
                ..Limits::default()
            },
            next_id: 0,
            shared,
            timer: Box::pin(tokio::time::sleep(Duration::from_secs(3600))),
            pump: None,
            spin: engine.spin,
            turn_budget: false,
        };
        let setup_ms = started.elapsed().as_secs_f64() * 1e3;
        actor.bootstrap(restored).await?;
        let start_ms = started.elapsed().as_secs_f64() * 1e3;
        actor.pump = Some(actor.host_function("pump")?);
        tracing::debug!(
            ms = started.elapsed().as_secs_f64() * 1e3,
            runtime_ms,
            setup_ms,
            start_ms,
            snapshot = restored,
            "isolate booted"
        );
        if !engine.preload.is_empty() {
            // Best effort: a package that fails here fails the same way when the plugin imports it.
            loader.set_preload(engine.preload);
            let _ = actor
                .evaluate(&ModuleSpecifier::parse("paseo:internal/preload").unwrap())
                .await;
        }
        Ok(actor)
    }

    /// Gives the booted isolate its plugin: identity, folder, limits, storage and thread names.
    fn bind(&mut self, binding: Binding) {
        let Binding { shared, limits } = binding;
        self.watchdog
            .rename(&format!("plugin:{}:watchdog", shared.id));
        let mut state = self.state.borrow_mut();
        state
            .borrow::<Rc<modules::PluginModuleLoader>>()
            .bind(shared.dir.clone(), shared.host_packages.clone());
        state.put(shared.clone());
        state.borrow_mut::<ActorState>().turn_timeout = limits.turn_timeout;
        drop(state);
        self.limits = Limits {
            heap_bytes: self.limits.heap_bytes,
            ..limits
        };
        self.shared = shared;
    }

    /// Installs the globals and the host module before any plugin code runs. A runtime booted
    /// from the startup snapshot (`restored`) has them already and only makes what is per
    /// isolate.
    async fn bootstrap(&mut self, restored: bool) -> Result<(), String> {
        if restored {
            return snapshot::start(&mut self.js);
        }
        self.evaluate(&snapshot::bootstrap_url()).await
    }

    /// Loads and evaluates one module (and its imports) while booting, before any plugin is
    /// bound, under the load timeout.
    async fn evaluate(&mut self, url: &ModuleSpecifier) -> Result<(), String> {
        let deadline = Instant::now() + self.limits.load_timeout;
        self.watchdog.arm(deadline);
        let result = async {
            let id = self.js.load_side_es_module(url).await?;
            let eval = self.js.mod_evaluate(id);
            self.js.run_event_loop(Default::default()).await?;
            eval.await
        }
        .await;
        self.watchdog.disarm();
        result.map_err(|e| e.to_string())
    }

    /// A function of the JS host object, kept to be called without compiling anything.
    fn host_function(
        &mut self,
        name: &str,
    ) -> Result<deno_core::v8::Global<deno_core::v8::Function>, String> {
        use deno_core::v8;
        let value = self
            .js
            .execute_script(
                "paseo:host",
                format!("globalThis[Symbol.for('paseo.host')].{name}"),
            )
            .map_err(|e| e.to_string())?;
        let js = &mut self.js;
        deno_core::scope!(scope, js);
        let local = v8::Local::new(scope, value);
        let function = v8::Local::<v8::Function>::try_from(local)
            .map_err(|_| format!("host.{name} is not a function"))?;
        Ok(v8::Global::new(scope, function))
    }

    async fn run(&mut self, rx: &mut mpsc::UnboundedReceiver<Message>) -> Exit {
        std::future::poll_fn(|cx| {
            loop {
                match rx.poll_recv(cx) {
                    Poll::Ready(Some(Message::Call(call))) => self.start(call),
                    Poll::Ready(Some(Message::Cancel(token))) => self.cancel(token),
                    Poll::Ready(Some(Message::Bind(_))) => {} // bound once, before running
                    Poll::Ready(Some(Message::HeapSize(reply))) => {
                        let _ = reply
                            .send(self.js.v8_isolate().get_heap_statistics().total_heap_size());
                    }
                    Poll::Ready(None) => return Poll::Ready(Exit::Closed),
                    Poll::Pending => break,
                }
            }
            // Everything that arrived since the last wake-up enters JS at once.
            if let Err(exit) = self.flush() {
                return Poll::Ready(exit);
            }
            if let Err(exit) = self.expire_due() {
                return Poll::Ready(exit);
            }
            let (deadline, budget) = self.turn_deadline();
            let turn = self.enter_js(deadline, budget, |js| {
                let polled = js.poll_event_loop(cx, PollEventLoopOptions::default());
                let uncaught = matches!(polled, Poll::Ready(Err(_)));
                (uncaught, polled.map(|r| r.err().map(|e| e.to_string())))
            });
            match turn {
                Err(exit) => return Poll::Ready(exit),
                // deno_core ends a turn where an uncaught error surfaced (a timer callback that
                // threw), before it arms the wake-up for the timers still pending: the rest of
                // the turn runs in the next one, now, or those timers would wait for a call.
                Ok(true) => cx.waker().wake_by_ref(),
                Ok(false) => {}
            }
            if std::mem::take(
                &mut self
                    .state
                    .borrow_mut()
                    .borrow_mut::<ActorState>()
                    .stop_settled,
            ) {
                return Poll::Ready(Exit::Closed);
            }
            // Wake at the next invocation deadline.
            if let Some(next) = self.next_deadline() {
                self.timer
                    .as_mut()
                    .reset(tokio::time::Instant::from_std(next));
                if self.timer.as_mut().poll(cx).is_ready() {
                    cx.waker().wake_by_ref();
                }
            }
            // Polled again at once (not from inside this poll: tokio's per-poll budget makes
            // `poll_recv` answer Pending after a while, messages or not).
            if spin_for_message(self.spin, rx) {
                cx.waker().wake_by_ref();
            }
            Poll::Pending
        })
        .await
    }

    fn next_deadline(&self) -> Option<Instant> {
        self.state
            .borrow()
            .borrow::<ActorState>()
            .pending
            .values()
            .map(|p| p.deadline)
            .min()
    }

    /// The latest moment the JS entry about to start may run until.
    fn entry_deadline(&self) -> Instant {
        let budget = Instant::now() + self.limits.hook_timeout;
        self.next_deadline().map_or(budget, |d| d.min(budget))
    }

    /// The latest moment a turn of the event loop may run until. While invocations are pending
    /// the turn may be running their code (continuations after an `await`): their deadline.
    /// Otherwise it runs background work (timers, I/O callbacks): the turn budget. A timer
    /// callback gets the turn budget in any case (`op_host_timer`). Also says whether it is the
    /// turn budget.
    fn turn_deadline(&self) -> (Instant, bool) {
        match self.next_deadline() {
            Some(_) => (self.entry_deadline(), false),
            None => (Instant::now() + self.limits.turn_timeout, true),
        }
    }

    /// Handles what a JS entry left behind: a panic caught in an op and heap exhaustion are
    /// fatal; a deadline termination is cancelled so that the isolate serves the next call.
    fn after_entry(&mut self, fired: bool, result: Poll<Option<String>>) -> Result<(), Exit> {
        let (crashed, timer) = {
            let mut op_state = self.state.borrow_mut();
            let st = op_state.borrow_mut::<ActorState>();
            (st.crashed.take(), st.timer.take())
        };
        if let Some(reason) = crashed {
            self.shared
                .logs
                .write(Stream::Stderr, &format!("[paseo] {reason}"));
            return Err(Exit::Fatal(reason));
        }
        if self.heap_exceeded.load(Ordering::SeqCst) {
            let reason = format!(
                "Plugin {} exceeded its heap limit of {} MiB and was stopped",
                self.shared.id,
                self.limits.heap_bytes / (1024 * 1024)
            );
            self.shared
                .logs
                .write(Stream::Stderr, &format!("[paseo] {reason}"));
            return Err(Exit::Fatal(reason));
        }
        if fired || self.js.v8_isolate().is_execution_terminating() {
            self.js.v8_isolate().cancel_terminate_execution();
            // An invocation past its deadline, or else the turn budget (see `turn_deadline`).
            let due = self.next_deadline().is_some_and(|d| d <= Instant::now());
            let budget = self.limits.turn_timeout.as_millis();
            let message = match (due, timer.is_some(), self.turn_budget) {
                (false, true, _) => format!(
                    "Timer callback exceeded the {budget} ms turn budget and was terminated"
                ),
                (false, false, true) => format!(
                    "An event-loop turn exceeded the {budget} ms turn budget and was terminated"
                ),
                _ => "Plugin code ran past its deadline and was terminated".to_string(),
            };
            self.shared
                .logs
                .write(Stream::Stderr, &format!("[paseo] {message}"));
            return self.expire_due();
        }
        if let Poll::Ready(Some(error)) = result {
            // An uncaught exception or rejection outside any invocation (e.g. in a timer).
            self.shared
                .logs
                .write(Stream::Stderr, &format!("[paseo] Uncaught error: {error}"));
        }
        Ok(())
    }

    /// Queues the invocation of a call; `flush` starts it.
    fn start(&mut self, call: Call) {
        self.next_id = self.next_id.wrapping_add(1);
        let id = self.next_id;
        use InvocationKind as K;
        let deadline = Instant::now() + call.timeout;
        let (kind, name, input): (_, Cow<'static, str>, _) = match call.kind {
            CallKind::Load { entry } => (K::Load, entry.to_string().into(), None),
            CallKind::Hook { hook, input } => (K::Hook, hook.into(), Some(input)),
            CallKind::Rpc { method, input } => (K::Rpc, method.into(), Some(input.into())),
            CallKind::Event { topic, payload } => (K::Event, topic.into(), Some(payload.into())),
            CallKind::Tool { input } => (K::Tool, "".into(), Some(input.into())),
            CallKind::ReleaseTools { agent_id } => (K::Release, agent_id.into(), None),
            CallKind::Provide { call, input } => (K::Provide, call.into(), Some(input.into())),
            CallKind::Stop => (K::Stop, "".into(), None),
        };
        let mut op_state = self.state.borrow_mut();
        let st = op_state.borrow_mut::<ActorState>();
        st.pending.insert(
            id,
            Pending {
                reply: call.reply,
                deadline,
                stop: kind == K::Stop,
                token: call.token,
            },
        );
        st.commands.push(HostCommand::Invoke {
            id,
            kind,
            name,
            input,
        });
    }

    /// Queues a command for the JS host and runs it now.
    fn command(&mut self, command: HostCommand) -> Result<(), Exit> {
        self.state
            .borrow_mut()
            .borrow_mut::<ActorState>()
            .commands
            .push(command);
        self.flush()
    }

    /// Runs the queued commands in one entry into JS, inside the deadline of the earliest
    /// pending invocation.
    fn flush(&mut self) -> Result<(), Exit> {
        if self
            .state
            .borrow()
            .borrow::<ActorState>()
            .commands
            .is_empty()
        {
            return Ok(());
        }
        let pump = self.pump.clone().expect("host pump");
        self.enter_js(self.entry_deadline(), false, |js| {
            // `pump` runs synchronously inside `call`; what it starts settles through ops, so
            // the returned future is not needed.
            drop(js.call(&pump));
            ((), Poll::Ready(None))
        })
    }

    /// Every entry into the plugin's JS once it is bound (the commands of `flush`, each turn of
    /// the event loop): `body` runs under the watchdog's `deadline` (`budget`: that deadline is
    /// the turn budget), and what it left behind is handled at once (`after_entry`). `body`
    /// returns its value and an error that escaped it, if any. Only the boot (`evaluate`, before
    /// any plugin is bound) arms the watchdog itself.
    fn enter_js<R>(
        &mut self,
        deadline: Instant,
        budget: bool,
        body: impl FnOnce(&mut JsRuntime) -> (R, Poll<Option<String>>),
    ) -> Result<R, Exit> {
        self.watchdog.arm(deadline);
        let (value, uncaught) = body(&mut self.js);
        let fired = self.watchdog.disarm();
        self.turn_budget = budget;
        let after = self.after_entry(fired, uncaught);
        self.turn_budget = false;
        after.map(|()| value)
    }

    /// Abandons the call with this token: its signal is aborted, its result dropped.
    fn cancel(&mut self, token: u64) {
        let mut op_state = self.state.borrow_mut();
        let st = op_state.borrow_mut::<ActorState>();
        if let Some(id) = st
            .pending
            .iter()
            .find(|(_, p)| p.token == token)
            .map(|(id, _)| *id)
        {
            st.pending.remove(&id);
            // Not started yet: it never will be. Started: its signal is aborted.
            let queued = st
                .commands
                .iter()
                .position(|c| matches!(c, HostCommand::Invoke { id: queued, .. } if *queued == id));
            match queued {
                Some(i) => drop(st.commands.remove(i)),
                None => st.commands.push(HostCommand::Abort {
                    id,
                    reason: "The call was cancelled".into(),
                }),
            }
        }
    }

    /// Fails invocations whose deadline has passed and aborts their signals.
    fn expire_due(&mut self) -> Result<(), Exit> {
        let now = Instant::now();
        let expired: Vec<(u32, Pending)> = {
            let mut op_state = self.state.borrow_mut();
            let st = op_state.borrow_mut::<ActorState>();
            let ids: Vec<u32> = st
                .pending
                .iter()
                .filter(|(_, p)| p.deadline <= now)
                .map(|(id, _)| *id)
                .collect();
            ids.into_iter()
                .filter_map(|id| st.pending.remove(&id).map(|p| (id, p)))
                .collect()
        };
        let mut stop_expired = false;
        for (id, pending) in expired {
            stop_expired |= pending.stop;
            pending.reply.send(Err(CallError::TimedOut));
            self.command(HostCommand::Abort {
                id,
                reason: "The operation timed out".into(),
            })?;
        }
        if stop_expired {
            return Err(Exit::Closed);
        }
        Ok(())
    }

    fn fail_pending(&mut self, exit: &Exit) {
        let reason = match exit {
            Exit::Fatal(r) => r.clone(),
            Exit::Closed => format!("Plugin stopped: {}", self.shared.id),
        };
        let pending: Vec<Pending> = {
            let mut op_state = self.state.borrow_mut();
            op_state
                .borrow_mut::<ActorState>()
                .pending
                .drain()
                .map(|(_, p)| p)
                .collect()
        };
        for p in pending {
            p.reply.send(Err(CallError::Stopped(reason.clone())));
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn spinning_stops_when_ready_or_when_the_limit_passes() {
        let mut polls = 0;
        assert!(spin_until(Duration::from_secs(5), || {
            polls += 1;
            polls == 1000
        }));
        assert_eq!(polls, 1000);

        let start = Instant::now();
        assert!(!spin_until(Duration::from_millis(2), || false));
        assert!(start.elapsed() >= Duration::from_millis(2));

        // Zero: one look, no spinning.
        let mut looks = 0;
        assert!(!spin_until(Duration::ZERO, || {
            looks += 1;
            false
        }));
        assert_eq!(looks, 1);
    }
}
