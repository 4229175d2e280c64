//! The CPU deadline of an isolate: a thread that sleeps until the deadline of the JS entry in
//! progress and terminates execution if the isolate is still inside it then. If the isolate is
//! still inside it `WEDGED_AFTER` later (native code, a blocking op or ICU, that termination
//! cannot reach), the isolate is wedged: `on_wedged` runs once, and the host gives up on it.

use std::sync::{Arc, Condvar, Mutex};
use std::time::{Duration, Instant};

use deno_core::v8::IsolateHandle;

use super::debugger::DebugPort;

/// How long an isolate told to terminate may take to come back before it counts as wedged.
pub const WEDGED_AFTER: Duration = Duration::from_secs(2);

#[derive(Default)]
struct State {
    deadline: Option<Instant>,
    fired: bool,
    /// When `fired` was set (the entry in progress was told to terminate).
    fired_at: Option<Instant>,
    wedged: bool,
    quit: bool,
    /// A new name for the thread (a standby isolate's watchdog takes its plugin's name).
    rename: Option<String>,
    /// When the thread wakes up next on its own; `None`: only when notified.
    sleeping_until: Option<Instant>,
    /// The inspected plugin's debugger, whose pauses the deadline does not count, and how much
    /// of its pause time the deadline armed now has been given already.
    debugger: Option<(Arc<DebugPort>, Duration)>,
}

pub struct Watchdog {
    shared: Arc<(Mutex<State>, Condvar)>,
    thread: Option<std::thread::JoinHandle<()>>,
}

impl Watchdog {
    pub fn start(name: &str, isolate: IsolateHandle, on_wedged: Box<dyn Fn() + Send>) -> Self {
        let shared: Arc<(Mutex<State>, Condvar)> = Arc::default();
        let theirs = shared.clone();
        let thread = std::thread::Builder::new()
            .name(format!("{name}:watchdog"))
            .spawn(move || {
                let (lock, cv) = &*theirs;
                let mut st = lock.lock().unwrap();
                loop {
                    if st.quit {
                        return;
                    }
                    if let Some(name) = st.rename.take() {
                        super::name_current_thread(&name);
                    }
                    st = match (st.deadline, st.fired_at) {
                        // Told to terminate and not back yet: wedged once WEDGED_AFTER passes.
                        (None, Some(fired_at)) if st.fired && !st.wedged => {
                            let now = Instant::now();
                            if now >= fired_at + WEDGED_AFTER {
                                st.wedged = true;
                                drop(st);
                                on_wedged();
                                lock.lock().unwrap()
                            } else {
                                let wake = fired_at + WEDGED_AFTER;
                                st.sleeping_until = Some(wake);
                                cv.wait_timeout(st, wake - now).unwrap().0
                            }
                        }
                        (None, _) => {
                            st.sleeping_until = None;
                            cv.wait(st).unwrap()
                        }
                        (Some(deadline), _) => {
                            let now = Instant::now();
                            // Time a debugger held the isolate is added to the deadline when
                            // it comes; while the debugger holds it, the deadline keeps moving.
                            let owed = (now >= deadline)
                                .then(|| st.debugger.as_mut())
                                .flatten()
                                .and_then(|(port, credited)| {
                                    let total = port.clock.paused_total();
                                    let owed = total.saturating_sub(*credited);
                                    *credited = total;
                                    (!owed.is_zero()).then_some(owed)
                                });
                            if let Some(owed) = owed {
                                st.deadline = Some(deadline + owed);
                                continue;
                            }
                            if now >= deadline {
                                isolate.terminate_execution();
                                st.deadline = None;
                                st.fired = true;
                                st.fired_at = Some(now);
                                st
                            } else {
                                st.sleeping_until = Some(deadline);
                                cv.wait_timeout(st, deadline - now).unwrap().0
                            }
                        }
                    };
                }
            })
            .expect("spawn watchdog thread");
        Watchdog {
            shared,
            thread: Some(thread),
        }
    }

    /// Renames the watchdog's thread.
    pub fn rename(&self, name: &str) {
        let (lock, cv) = &*self.shared;
        lock.lock().unwrap().rename = Some(name.to_string());
        cv.notify_one();
    }

    /// Marks the start of a JS entry that must finish by `deadline`. The thread is woken only
    /// if it would otherwise wake after the deadline: entries come and go far more often than
    /// deadlines pass (a hook call enters JS at least twice), and each wake-up is two context
    /// switches. A thread that wakes early for a deadline since disarmed just sleeps again.
    pub fn arm(&self, deadline: Instant) {
        let (lock, cv) = &*self.shared;
        let mut st = lock.lock().unwrap();
        if let Some((port, credited)) = st.debugger.as_mut() {
            *credited = port.clock.paused_total();
        }
        st.deadline = Some(deadline);
        st.fired = false;
        st.fired_at = None;
        if st.sleeping_until.is_none_or(|wake| deadline < wake) {
            cv.notify_one();
        }
    }

    /// Stops counting, from now on, the time the plugin's debugger holds the isolate.
    pub fn watch_pauses(&self, port: Arc<DebugPort>) {
        let credited = port.clock.paused_total();
        self.shared.0.lock().unwrap().debugger = Some((port, credited));
    }

    /// The deadline of the JS entry in progress, if any.
    pub fn armed(&self) -> Option<Instant> {
        self.shared.0.lock().unwrap().deadline
    }

    /// Moves the deadline of the JS entry in progress (a timer callback's budget inside a turn,
    /// and back), keeping whether it already fired.
    pub fn retarget(&self, deadline: Instant) {
        let (lock, cv) = &*self.shared;
        let mut st = lock.lock().unwrap();
        if st.fired {
            return;
        }
        st.deadline = Some(deadline);
        if st.sleeping_until.is_none_or(|wake| deadline < wake) {
            cv.notify_one();
        }
    }

    /// Marks the end of the JS entry; returns whether the watchdog terminated it.
    pub fn disarm(&self) -> bool {
        let mut st = self.shared.0.lock().unwrap();
        st.deadline = None;
        st.fired_at = None;
        std::mem::take(&mut st.fired)
    }
}

impl Drop for Watchdog {
    fn drop(&mut self) {
        self.shared.0.lock().unwrap().quit = true;
        self.shared.1.notify_one();
        if let Some(t) = self.thread.take() {
            let _ = t.join();
        }
    }
}
