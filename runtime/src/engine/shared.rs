//! The plugin's identity and state, shared between the host and its isolate (`PluginShared`):
//! what capabilities' ops find in `OpState`, and how an isolate that is gone or wedged is
//! reported to everyone waiting on it.

use std::collections::HashMap;
use std::path::PathBuf;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};

use deno_core::ModuleSpecifier;

use super::debugger::DebugPort;
use super::ops::Registrations;
use super::recorder::Recorder;
use super::stats::PluginStats;
use super::streams::EventStream;
use crate::logs::{LogTail, Stream};

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
    /// What the plugin's calls cost; the host keeps one per plugin ID, across reloads.
    pub stats: Arc<PluginStats>,
    /// Where its hook calls are recorded, if they are (`HostOptions::record_dir`).
    pub recorder: Option<Arc<Recorder>>,
    /// Where a debugger attaches, if the plugin is inspected (`HostOptions::inspect`); its
    /// isolates then boot with V8's inspector.
    pub debug: Option<Arc<DebugPort>>,
    /// What the plugin may touch, if the owner gave it a policy (`crate::permissions`); `None`:
    /// its owner's rights, as on Paseo's Node host.
    pub permissions: Option<Arc<crate::permissions::Permissions>>,
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
            stats: Arc::default(),
            recorder: None,
            debug: None,
            permissions: None,
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
    pub(super) async fn until_wedged(&self) {
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
