//! What an isolate is configured with: the per-plugin `Limits`, the `EngineConfig` every
//! isolate of a host shares (a standby boots from it alone, with the capability `Extensions`
//! the host hands it), and the `Binding` that gives a booted isolate its plugin.

use std::path::PathBuf;
use std::sync::Arc;
use std::time::Duration;

use deno_core::ModuleSpecifier;

use super::shared::PluginShared;

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
    /// Whether the isolate runs V8's inspector, for a debugger to attach (`engine::debugger`);
    /// only isolates of inspected plugins do.
    pub inspector: bool,
}

/// The plugin an isolate serves.
pub struct Binding {
    pub shared: Arc<PluginShared>,
    pub limits: Limits,
}
