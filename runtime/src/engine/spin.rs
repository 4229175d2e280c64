//! Spinning before sleeping: how long an isolate's thread looks for its next message, and a
//! caller for its answer, before either goes to sleep and costs a wake-up (`SPIN`).

use std::time::{Duration, Instant};

use tokio::sync::mpsc;

use super::protocol::Message;

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
pub(super) fn spin_for_message(limit: Duration, rx: &mpsc::UnboundedReceiver<Message>) -> bool {
    spin_until(limit, || !rx.is_empty() || rx.is_closed())
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
