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
//!
//! Each job has its file: `config` (the limits, what every isolate of a host shares, the
//! binding to a plugin), `shared` (the plugin's identity and state, shared with the host),
//! `streams` (event streams out of a plugin), `protocol` (calls, their outcomes, and the
//! host-command/invocation-kind contract that ops and `budget` read), `isolate` (the host's
//! handle), `spin` (looking before sleeping), `standby` (boot, standby and binding), `actor` (the
//! loop that runs calls and every entry into JS), `stats` (what each plugin's calls cost),
//! `recorder` (hook traffic recorded for replay) and `debugger` (the V8 inspector's sessions and
//! the time a debugger holds the isolate, which deadlines do not count).

mod actor;
pub mod backend;
pub(crate) mod budget;
pub mod bytecode_cache;
pub mod code_cache;
mod config;
pub mod debugger;
pub mod entry;
pub mod host_js;
pub mod imports;
mod isolate;
pub mod missing_imports;
pub mod modules;
mod ops;
mod protocol;
pub mod recorder;
mod shared;
pub mod snapshot;
mod spin;
mod standby;
pub mod stats;
mod streams;
pub mod transpile;
mod watchdog;

pub use config::{Binding, EngineConfig, Extensions, Limits, DEFAULT_HEAP_BYTES};
pub use isolate::Isolate;
pub use ops::{Provided, Registrations};
pub(crate) use protocol::{ActorState, HostCommand, InvocationKind};
pub use protocol::{CallError, CallKind, HeapUsage};
pub use shared::PluginShared;
pub use spin::{spin_until, SPIN};
pub(crate) use standby::name_current_thread;
pub use standby::Standby;
pub use stats::{CallStats, PluginStats};
pub use streams::{EventReceiver, EventStream};
