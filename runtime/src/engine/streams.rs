//! Event streams out of a plugin (provider connections): what the plugin writes reaches the
//! daemon in order, and a stream fails rather than hold more unread bytes than its cap.

use std::sync::atomic::Ordering;
use std::sync::Arc;

use tokio::sync::mpsc;

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
