//! The actor: the loop on an isolate's thread, once bound, that takes the host's messages,
//! starts and cancels invocations, runs every entry into plugin JS under the watchdog's
//! deadline, and settles what a deadline, a crash or the heap cap ends.

use std::borrow::Cow;
use std::future::Future;
use std::rc::Rc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::task::Poll;
use std::time::{Duration, Instant};

use deno_core::{JsRuntime, PollEventLoopOptions};
use tokio::sync::mpsc;

use super::config::Limits;
use super::protocol::{
    ActorState, Call, CallError, CallKind, HeapUsage, HostCommand, InvocationKind, Ledger, Message,
    Pending,
};
use super::shared::PluginShared;
use super::spin::spin_for_message;
use super::watchdog::Watchdog;
use crate::logs::Stream;

pub(super) struct Actor {
    pub(super) js: JsRuntime,
    pub(super) watchdog: Rc<Watchdog>,
    pub(super) heap_exceeded: Arc<AtomicBool>,
    pub(super) state: Rc<std::cell::RefCell<deno_core::OpState>>,
    pub(super) limits: Limits,
    pub(super) next_id: u32,
    pub(super) shared: Arc<PluginShared>,
    pub(super) timer: std::pin::Pin<Box<tokio::time::Sleep>>,
    /// The host's `pump()`, which runs the queued `HostCommand`s.
    pub(super) pump: Option<deno_core::v8::Global<deno_core::v8::Function>>,
    /// `EngineConfig::spin`.
    pub(super) spin: Duration,
    /// Whether the turn of the event loop just run had the turn budget for its deadline.
    pub(super) turn_budget: bool,
    /// Whether the isolate runs V8's inspector (`EngineConfig::inspector`).
    pub(super) inspector: bool,
    /// How much of the time its debugger held the isolate the pending calls' deadlines have
    /// been given already (`debugger::PauseClock`).
    pub(super) paused_seen: Duration,
}

pub(super) enum Exit {
    Closed,
    Fatal(String),
}

impl Actor {
    pub(super) async fn run(&mut self, rx: &mut mpsc::UnboundedReceiver<Message>) -> Exit {
        std::future::poll_fn(|cx| {
            loop {
                match rx.poll_recv(cx) {
                    Poll::Ready(Some(Message::Call(call))) => self.start(call),
                    Poll::Ready(Some(Message::Cancel(token))) => self.cancel(token),
                    Poll::Ready(Some(Message::Bind(_))) => {} // bound once, before running
                    Poll::Ready(Some(Message::Heap(reply))) => {
                        let heap = self.js.v8_isolate().get_heap_statistics();
                        let _ = reply.send(HeapUsage {
                            total: heap.total_heap_size(),
                            used: heap.used_heap_size(),
                        });
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
        if matches!(call.kind, CallKind::Load { .. }) && self.inspector {
            if let Some(port) = self.shared.debug.as_ref().filter(|p| p.brk) {
                // `--inspect-brk`: the plugin's code waits for a debugger (until it sends
                // Runtime.runIfWaitingForDebugger), then stops at its entry's `debugger`
                // statement; the wait is not the load's time.
                port.clock.pause();
                self.js
                    .inspector()
                    .wait_for_runtime_run_if_waiting_for_debugger();
                port.clock.resume();
                self.paused_seen = port.clock.paused_total();
            }
        }
        self.next_id = self.next_id.wrapping_add(1);
        let id = self.next_id;
        use InvocationKind as K;
        let deadline = Instant::now() + call.timeout;
        let mut tool = None;
        let (kind, name, input): (_, Cow<'static, str>, _) = match call.kind {
            CallKind::Load { entry } => (K::Load, entry.to_string().into(), None),
            CallKind::Hook { hook, input } => (K::Hook, hook.into(), Some(input)),
            CallKind::Rpc { method, input } => (K::Rpc, method.into(), Some(input.into())),
            CallKind::Event { topic, payload } => (K::Event, topic.into(), Some(payload.into())),
            CallKind::Tool { name, input } => {
                tool = Some(name);
                (K::Tool, "".into(), Some(input.into()))
            }
            CallKind::ReleaseTools { agent_id } => (K::Release, agent_id.into(), None),
            CallKind::Provide { call, input } => (K::Provide, call.into(), Some(input.into())),
            CallKind::Stop => (K::Stop, "".into(), None),
        };
        // What the plugin's stats count the call under: the hook, method, topic, provider call
        // or tool; not the entry's URL or an agent's ID.
        let counted_as = match (kind, tool) {
            (K::Tool, Some(tool)) => tool.into(),
            (K::Load | K::Release | K::Stop, _) => Cow::Borrowed(""),
            _ => name.clone(),
        };
        let mut op_state = self.state.borrow_mut();
        let st = op_state.borrow_mut::<ActorState>();
        let recorded = match (kind, &st.ledger.recorder) {
            (K::Hook, Some(_)) => input.clone(),
            _ => None,
        };
        st.pending.insert(
            id,
            Pending {
                reply: call.reply,
                deadline,
                stop: kind == K::Stop,
                token: call.token,
                kind,
                name: counted_as,
                queued_at: call.queued_at,
                input: recorded,
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
        // A debugger may have held the isolate inside: the next entry's deadline counts from
        // where the calls' deadlines stand once that time is given back.
        self.credit_pauses();
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
            if let Some(pending) = st.pending.remove(&id) {
                // Its caller has gone; the stats count it.
                pending.settle(&st.ledger, Err(CallError::Cancelled));
            }
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
        self.credit_pauses();
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
        if expired.is_empty() {
            return Ok(()); // every wake-up comes here; most expire nothing
        }
        let ledger = self.ledger();
        let mut stop_expired = false;
        for (id, pending) in expired {
            stop_expired |= pending.stop;
            pending.settle(&ledger, Err(CallError::TimedOut));
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

    pub(super) fn fail_pending(&mut self, exit: &Exit) {
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
        let ledger = self.ledger();
        for p in pending {
            p.settle(&ledger, Err(CallError::Stopped(reason.clone())));
        }
    }

    /// Moves the pending calls' deadlines by the time a debugger held the isolate since the
    /// last look: a plugin paused at a breakpoint is not timed out for it.
    fn credit_pauses(&mut self) {
        let Some(port) = &self.shared.debug else {
            return;
        };
        let total = port.clock.paused_total();
        let owed = total.saturating_sub(self.paused_seen);
        if owed.is_zero() {
            return;
        }
        self.paused_seen = total;
        let mut op_state = self.state.borrow_mut();
        for pending in op_state.borrow_mut::<ActorState>().pending.values_mut() {
            pending.deadline += owed;
        }
    }

    /// Where the bound plugin's settled calls are accounted.
    fn ledger(&self) -> Ledger {
        self.state.borrow().borrow::<ActorState>().ledger.clone()
    }
}
