//! The host's handle on a plugin isolate (`Isolate`): calls queued to it and waited for,
//! cancelled, or left to a function (`notify`); the heap size it reports; joining its thread.

use std::future::Future;
use std::sync::atomic::Ordering;
use std::sync::Arc;
use std::time::Duration;

use tokio::sync::{mpsc, oneshot};

use super::protocol::{Call, CallError, CallKind, Done, HeapUsage, Message, Reply};
use super::shared::PluginShared;
use super::spin::spin_until;

/// The host's handle on a plugin isolate. Dropping it stops the actor.
pub struct Isolate {
    pub(super) tx: mpsc::UnboundedSender<Message>,
    pub(super) next_token: std::sync::atomic::AtomicU64,
    pub shared: Arc<PluginShared>,
    pub(super) thread: Option<std::thread::JoinHandle<()>>,
    pub(super) spin: Duration,
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
            queued_at: std::time::Instant::now(),
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
        Some(self.heap().await?.total)
    }

    /// The isolate's JS heap, or `None` if the isolate is gone. Answered between two entries
    /// into JS: a plugin busy in a long call answers when that call yields.
    pub async fn heap(&self) -> Option<HeapUsage> {
        let (reply, rx) = oneshot::channel();
        self.tx.send(Message::Heap(reply)).ok()?;
        rx.await.ok()
    }

    /// The CPU time the isolate's thread has used (its boot included), or `None` once it has
    /// ended (its time is then in the plugin's `PluginStats::cpu_ended_ns`).
    pub fn cpu_time(&self) -> Option<Duration> {
        use std::os::unix::thread::JoinHandleExt;
        if !self.is_alive() {
            return None;
        }
        super::stats::thread_cpu_time(self.thread.as_ref()?.as_pthread_t())
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
