//! How a call travels into a plugin, and the contract that ops and `budget` read. The host's
//! side: what a call is (`CallKind`), how it fails (`CallError`), the `Message`s an isolate's
//! channel carries and where a call's outcome goes (`Reply`). The JS side: the invocation kinds
//! host.js handles (`InvocationKind`), the commands it runs and their JSON wire format
//! (`HostCommand`), and the `ActorState` ops reach through `OpState`.

use std::borrow::Cow;
use std::collections::HashMap;
use std::rc::Rc;
use std::sync::Arc;
use std::time::{Duration, Instant};

use deno_core::ModuleSpecifier;
use tokio::sync::oneshot;

use super::config::Binding;
use super::recorder::Recorder;
use super::shared::PluginShared;
use super::stats::PluginStats;
use super::watchdog::Watchdog;

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
    /// An agent tool's `execute` (`{ agentId, name, input, agent }`); `name` again, for the
    /// plugin's stats.
    Tool {
        name: String,
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

pub(super) struct Call {
    pub(super) kind: CallKind,
    pub(super) timeout: Duration,
    pub(super) reply: Reply,
    /// The host's id of this call, for cancelling it.
    pub(super) token: u64,
    /// When the host queued it: its latency in the plugin's stats counts from here.
    pub(super) queued_at: Instant,
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
    pub(super) run: Option<Box<DoneFn>>,
    pub(super) shared: Arc<PluginShared>,
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

pub(super) enum Message {
    /// The plugin a standby isolate now serves; always the first message.
    Bind(Box<Binding>),
    Call(Call),
    /// Abort the call with this token: its signal fires and its result is dropped.
    Cancel(u64),
    /// Report the JS heap's size (what QuickJS/V8 allocated for this isolate) and use.
    Heap(oneshot::Sender<HeapUsage>),
}

/// An isolate's JS heap, in bytes.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, serde::Serialize)]
pub struct HeapUsage {
    /// What the engine allocated for the heap.
    pub total: usize,
    /// What live and not yet collected objects take of it.
    pub used: usize,
}

pub(crate) struct Pending {
    pub(super) reply: Reply,
    pub(super) deadline: Instant,
    pub(super) stop: bool,
    pub(super) token: u64,
    /// What the plugin's stats count it under (`PluginStats::record`).
    pub(super) kind: InvocationKind,
    pub(super) name: Cow<'static, str>,
    pub(super) queued_at: Instant,
    /// A hook call's input, kept while the plugin's hook calls are recorded.
    pub(super) input: Option<Arc<str>>,
}

impl Pending {
    /// Answers the call's caller, counts the call in the plugin's stats, and records it if the
    /// plugin's hook calls are recorded.
    pub(crate) fn settle(self, ledger: &Ledger, outcome: Result<String, CallError>) {
        let took = self.queued_at.elapsed();
        ledger.stats.record(self.kind, &self.name, took, &outcome);
        if let (Some(recorder), Some(input)) = (&ledger.recorder, &self.input) {
            recorder.record(&self.name, input, &outcome, took);
        }
        self.reply.send(outcome);
    }
}

/// Where settled calls are accounted: the plugin's stats, and its recorder while its hook calls
/// are recorded (`HostOptions::record_dir`). A stand-in until the isolate is bound.
#[derive(Default, Clone)]
pub(crate) struct Ledger {
    pub stats: Arc<PluginStats>,
    pub recorder: Option<Arc<Recorder>>,
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
    /// Where settled calls are accounted.
    pub ledger: Ledger,
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
            ledger: Ledger::default(),
        }
    }
}
