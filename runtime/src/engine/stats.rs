//! What a plugin costs, counted where its calls settle (`protocol::Pending::settle`, on the
//! isolate's thread): per kind and name (a hook, an RPC method, a tool, a daemon event topic, a
//! provider call), how many calls, how they ended, and how long they took from being queued to
//! being answered. One `PluginStats` per plugin ID lives as long as the host, across reloads
//! (`PluginHost::stats` reads it); the host adds what it sees itself (notifications held and
//! dropped during reloads, reloads) and the CPU time of isolate threads that have ended.

use std::collections::HashMap;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Mutex;
use std::time::Duration;

use serde::Serialize;

use super::protocol::{CallError, InvocationKind};

/// Latency percentiles are over each name's latest this many calls; counts and the maximum are
/// over all of them.
pub const WINDOW: usize = 1024;

/// At most this many names are counted apart for one kind of call; calls to later names are
/// counted under `OTHER`, so that a plugin cannot grow the host's memory through names.
pub const NAMES_PER_KIND: usize = 256;

/// The name calls past `NAMES_PER_KIND` are counted under.
pub const OTHER: &str = "(other)";

#[derive(Default)]
pub struct PluginStats {
    /// By `InvocationKind` (its index in `InvocationKind::ALL`), then by name.
    calls: Mutex<[HashMap<String, Calls>; InvocationKind::ALL.len()]>,
    /// Notifications queued on the plugin's isolate.
    pub notifications_delivered: AtomicU64,
    /// Notifications kept while the plugin reloaded, for its next isolate.
    pub notifications_held: AtomicU64,
    /// Notifications dropped while it reloaded (more than `HELD_NOTIFICATIONS` held).
    pub notifications_dropped: AtomicU64,
    pub reloads: AtomicU64,
    /// CPU time of the plugin's isolate threads that have ended, in nanoseconds.
    pub cpu_ended_ns: AtomicU64,
}

#[derive(Default)]
struct Calls {
    count: u64,
    errors: u64,
    timeouts: u64,
    cancelled: u64,
    max_us: u64,
    total_us: u64,
    /// The latest `WINDOW` latencies, in microseconds; `next` is where the next one goes.
    recent: Vec<u32>,
    next: usize,
}

/// One kind and name's calls, as `PluginHost::stats` reports them.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct CallStats {
    /// `load`, `hook`, `rpc`, `event`, `tool`, `release`, `provide` or `stop`.
    pub kind: &'static str,
    /// The hook, RPC method, tool, event topic or provider call; empty for the other kinds.
    pub name: String,
    pub count: u64,
    /// The plugin threw or rejected, or its isolate was gone.
    pub errors: u64,
    pub timeouts: u64,
    /// The caller gave up first (an agent's tool call stopped, a client that went away).
    pub cancelled: u64,
    pub p50_us: u64,
    pub p99_us: u64,
    pub max_us: u64,
    /// All of them together (Prometheus's summary `_sum`).
    pub total_us: u64,
}

impl PluginStats {
    /// Counts one settled call: `took` from when it was queued until its outcome.
    pub(crate) fn record(
        &self,
        kind: InvocationKind,
        name: &str,
        took: Duration,
        outcome: &Result<String, CallError>,
    ) {
        let us = u64::try_from(took.as_micros()).unwrap_or(u64::MAX);
        let mut calls = self.calls.lock().unwrap_or_else(|e| e.into_inner());
        let by_name = &mut calls[kind as usize];
        let key = if by_name.len() < NAMES_PER_KIND || by_name.contains_key(name) {
            name
        } else {
            OTHER
        };
        if !by_name.contains_key(key) {
            by_name.insert(key.to_string(), Calls::default());
        }
        let entry = by_name.get_mut(key).expect("inserted above");
        entry.count += 1;
        match outcome {
            Ok(_) => {}
            Err(CallError::Failed(_) | CallError::Stopped(_)) => entry.errors += 1,
            Err(CallError::TimedOut) => entry.timeouts += 1,
            Err(CallError::Cancelled) => entry.cancelled += 1,
        }
        entry.max_us = entry.max_us.max(us);
        entry.total_us = entry.total_us.saturating_add(us);
        let sample = u32::try_from(us).unwrap_or(u32::MAX);
        if entry.recent.len() < WINDOW {
            entry.recent.push(sample);
        } else {
            entry.recent[entry.next] = sample;
        }
        entry.next = (entry.next + 1) % WINDOW;
    }

    /// Every kind and name called so far, in kind then name order.
    pub fn calls(&self) -> Vec<CallStats> {
        let calls = self.calls.lock().unwrap_or_else(|e| e.into_inner());
        let mut out = Vec::new();
        for (kind, by_name) in InvocationKind::ALL.iter().zip(calls.iter()) {
            let mut names: Vec<_> = by_name.iter().collect();
            names.sort_by(|a, b| a.0.cmp(b.0));
            for (name, c) in names {
                let mut sorted = c.recent.clone();
                sorted.sort_unstable();
                out.push(CallStats {
                    kind: kind.name(),
                    name: name.clone(),
                    count: c.count,
                    errors: c.errors,
                    timeouts: c.timeouts,
                    cancelled: c.cancelled,
                    p50_us: percentile(&sorted, 0.50),
                    p99_us: percentile(&sorted, 0.99),
                    max_us: c.max_us,
                    total_us: c.total_us,
                });
            }
        }
        out
    }

    pub(crate) fn add(counter: &AtomicU64, n: u64) {
        counter.fetch_add(n, Ordering::Relaxed);
    }
}

/// `sorted[floor(len·p)]`, as `paseo bench` takes its percentiles; 0 for no samples.
fn percentile(sorted: &[u32], p: f64) -> u64 {
    if sorted.is_empty() {
        return 0;
    }
    let i = ((sorted.len() as f64 * p) as usize).min(sorted.len() - 1);
    u64::from(sorted[i])
}

/// CPU time a thread has used so far (Linux: its `CLOCK_THREAD_CPUTIME_ID` clock), or `None` if
/// the thread has ended.
pub(crate) fn thread_cpu_time(thread: libc::pthread_t) -> Option<Duration> {
    let mut clock: libc::clockid_t = 0;
    // SAFETY: `thread` is a thread not yet joined (its handle is held), and `clock` is ours.
    if unsafe { libc::pthread_getcpuclockid(thread, &mut clock) } != 0 {
        return None;
    }
    cpu_clock(clock)
}

/// CPU time the calling thread has used so far.
pub(crate) fn own_cpu_time() -> Duration {
    cpu_clock(libc::CLOCK_THREAD_CPUTIME_ID).unwrap_or_default()
}

fn cpu_clock(clock: libc::clockid_t) -> Option<Duration> {
    let mut ts = libc::timespec {
        tv_sec: 0,
        tv_nsec: 0,
    };
    // SAFETY: `ts` is a valid timespec to write to.
    if unsafe { libc::clock_gettime(clock, &mut ts) } != 0 {
        return None;
    }
    Some(Duration::new(
        u64::try_from(ts.tv_sec).ok()?,
        u32::try_from(ts.tv_nsec).ok()?,
    ))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ok() -> Result<String, CallError> {
        Ok(String::new())
    }

    #[test]
    fn counts_outcomes_and_takes_percentiles_of_the_latest_window() {
        let stats = PluginStats::default();
        for us in 1..=100u64 {
            stats.record(
                InvocationKind::Hook,
                "agent.turn.before",
                Duration::from_micros(us),
                &ok(),
            );
        }
        let failed = Err(CallError::Failed("boom".into()));
        stats.record(
            InvocationKind::Rpc,
            "ping",
            Duration::from_micros(5),
            &failed,
        );
        stats.record(
            InvocationKind::Rpc,
            "ping",
            Duration::from_micros(7),
            &Err(CallError::TimedOut),
        );
        stats.record(
            InvocationKind::Rpc,
            "ping",
            Duration::from_micros(9),
            &Err(CallError::Cancelled),
        );
        let calls = stats.calls();
        assert_eq!(calls.len(), 2);
        let hook = &calls[0];
        assert_eq!(
            (hook.kind, hook.name.as_str(), hook.count),
            ("hook", "agent.turn.before", 100)
        );
        assert_eq!((hook.p50_us, hook.p99_us, hook.max_us), (51, 100, 100));
        let rpc = &calls[1];
        assert_eq!(
            (rpc.kind, rpc.count, rpc.errors, rpc.timeouts, rpc.cancelled),
            ("rpc", 3, 1, 1, 1)
        );
        assert_eq!(rpc.max_us, 9);

        // Past the window, percentiles forget the old samples; the maximum does not.
        for _ in 0..WINDOW {
            stats.record(
                InvocationKind::Hook,
                "agent.turn.before",
                Duration::from_micros(3),
                &ok(),
            );
        }
        let hook = &stats.calls()[0];
        assert_eq!(
            (hook.count, hook.p50_us, hook.p99_us, hook.max_us),
            (100 + WINDOW as u64, 3, 3, 100)
        );
    }

    #[test]
    fn kinds_index_their_own_table() {
        for (i, kind) in InvocationKind::ALL.iter().enumerate() {
            assert_eq!(*kind as usize, i, "{}", kind.name());
        }
    }

    #[test]
    fn names_past_the_cap_are_counted_together() {
        let stats = PluginStats::default();
        for i in 0..NAMES_PER_KIND + 10 {
            stats.record(
                InvocationKind::Rpc,
                &format!("m{i:04}"),
                Duration::from_micros(1),
                &ok(),
            );
        }
        let calls = stats.calls();
        // NAMES_PER_KIND names of their own, then one for the rest.
        assert_eq!(calls.len(), NAMES_PER_KIND + 1);
        let other = calls.iter().find(|c| c.name == OTHER).unwrap();
        assert_eq!(other.count, 10);
    }
}
