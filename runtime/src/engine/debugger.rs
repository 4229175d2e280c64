//! The V8 inspector of one plugin's isolate (`HostOptions::inspect`, `paseo daemon --inspect`):
//! the port a debugger's sessions come in through (`DebugPort`, kept by the host per plugin and
//! given to each isolate the plugin gets, across reloads), a session as the CLI's WebSocket
//! bridge drives it (`DebugSession`), and the clock of the time the debugger held the isolate
//! (`PauseClock`), which the watchdog and the actor's call deadlines do not count: a plugin
//! paused at a breakpoint is not killed for it, and its deadlines resume where they stood.

use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use deno_core::futures::channel::mpsc::{self, UnboundedReceiver, UnboundedSender};
use deno_core::futures::StreamExt;
use deno_core::{
    InspectorMsg, InspectorSessionChannels, InspectorSessionKind, InspectorSessionProxy,
};

/// The time a debugger has held an isolate: paused at a breakpoint or a `debugger` statement.
/// Lock-free; read on every wake-up of the actor and the watchdog.
pub struct PauseClock {
    origin: Instant,
    /// Nanoseconds since `origin` when the current pause began, plus one; 0: not paused.
    since: AtomicU64,
    /// Nanoseconds of the pauses that ended.
    ended: AtomicU64,
}

impl Default for PauseClock {
    fn default() -> Self {
        PauseClock {
            origin: Instant::now(),
            since: AtomicU64::new(0),
            ended: AtomicU64::new(0),
        }
    }
}

impl PauseClock {
    fn now_ns(&self) -> u64 {
        self.origin.elapsed().as_nanos() as u64 + 1
    }

    pub fn pause(&self) {
        let _ = self
            .since
            .compare_exchange(0, self.now_ns(), Ordering::AcqRel, Ordering::Acquire);
    }

    pub fn resume(&self) {
        let since = self.since.swap(0, Ordering::AcqRel);
        if since != 0 {
            self.ended
                .fetch_add(self.now_ns().saturating_sub(since), Ordering::AcqRel);
        }
    }

    pub fn is_paused(&self) -> bool {
        self.since.load(Ordering::Acquire) != 0
    }

    /// All the time paused so far, the pause in progress included.
    pub fn paused_total(&self) -> Duration {
        let since = self.since.load(Ordering::Acquire);
        let current = if since == 0 {
            0
        } else {
            self.now_ns().saturating_sub(since)
        };
        Duration::from_nanos(self.ended.load(Ordering::Acquire) + current)
    }
}

/// Where a debugger attaches to a plugin: the host keeps one per inspected plugin, and each of
/// its isolates, once bound, takes new sessions through it.
pub struct DebugPort {
    /// Whether the plugin's code waits for a debugger, and stops at its first line (`--inspect-brk`).
    pub brk: bool,
    pub clock: PauseClock,
    /// The bound isolate's inspector, which takes new sessions; `None` between isolates.
    sessions: Mutex<Option<UnboundedSender<InspectorSessionProxy>>>,
}

impl DebugPort {
    pub fn new(brk: bool) -> DebugPort {
        DebugPort {
            brk,
            clock: PauseClock::default(),
            sessions: Mutex::default(),
        }
    }

    /// An isolate with an inspector was bound to the plugin (or `None`: it went).
    pub(crate) fn attach(&self, sessions: Option<UnboundedSender<InspectorSessionProxy>>) {
        *self.sessions.lock().unwrap() = sessions;
        // A debugger that held the old isolate holds nothing now.
        self.clock.resume();
    }

    /// A new debugger session on the isolate bound now, or `None` if there is none.
    pub fn connect(self: &Arc<Self>) -> Option<DebugSession> {
        let (to_isolate, rx) = mpsc::unbounded::<String>();
        let (tx, from_isolate) = mpsc::unbounded::<InspectorMsg>();
        let proxy = InspectorSessionProxy {
            channels: InspectorSessionChannels::Regular { tx, rx },
            kind: InspectorSessionKind::NonBlocking {
                wait_for_disconnect: false,
            },
        };
        let sessions = self.sessions.lock().unwrap();
        sessions.as_ref()?.unbounded_send(proxy).ok()?;
        Some(DebugSession {
            to_isolate,
            from_isolate,
            port: self.clone(),
        })
    }
}

/// One debugger's session with a plugin's isolate: Chrome DevTools Protocol messages, as text.
pub struct DebugSession {
    to_isolate: UnboundedSender<String>,
    from_isolate: UnboundedReceiver<InspectorMsg>,
    port: Arc<DebugPort>,
}

impl DebugSession {
    /// Sends a message from the debugger; false once the isolate is gone.
    pub fn send(&self, message: String) -> bool {
        self.to_isolate.unbounded_send(message).is_ok()
    }

    /// The next message for the debugger; `None` once the isolate is gone. Seeing the isolate
    /// pause or resume, it starts or stops the plugin's pause clock.
    pub async fn recv(&mut self) -> Option<String> {
        let message = self.from_isolate.next().await?.content;
        if let Some(rest) = message.strip_prefix(r#"{"method":"Debugger."#) {
            if rest.starts_with(r#"paused""#) {
                self.port.clock.pause();
            } else if rest.starts_with(r#"resumed""#) {
                self.port.clock.resume();
            }
        }
        Some(message)
    }
}

impl Drop for DebugSession {
    fn drop(&mut self) {
        // V8 resumes an isolate whose debugger went.
        self.port.clock.resume();
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_clock_counts_pauses_only() {
        let clock = PauseClock::default();
        assert_eq!(clock.paused_total(), Duration::ZERO);
        clock.pause();
        std::thread::sleep(Duration::from_millis(20));
        assert!(clock.is_paused());
        let during = clock.paused_total();
        assert!(during >= Duration::from_millis(20), "{during:?}");
        clock.pause(); // a second notification does not restart the pause
        clock.resume();
        let after = clock.paused_total();
        assert!(after >= during && !clock.is_paused());
        std::thread::sleep(Duration::from_millis(10));
        assert_eq!(clock.paused_total(), after);
        clock.resume();
        assert_eq!(clock.paused_total(), after);
    }
}
