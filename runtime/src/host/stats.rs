//! `PluginHost::stats`: what each plugin costs, live — its engine, state, uptime, heap, CPU
//! time, calls by kind and name (`engine::stats` counts them where they settle), notifications
//! and reloads. Counts live as long as the host and survive reloads; uptime and the heap are the
//! current isolate's.

use std::sync::atomic::Ordering;
use std::sync::Arc;
use std::time::Duration;

use serde::Serialize;

use super::{HostError, PluginHost, PluginStatus};
use crate::engine::{CallStats, PluginStats};

/// One plugin's stats, as `paseo plugin stats --json` prints them.
#[derive(Debug, Clone, Serialize)]
pub struct PluginStatsReport {
    pub id: String,
    /// `v8` or `quickjs`.
    pub engine: &'static str,
    pub status: PluginStatus,
    /// Since its current code loaded; `None` when it is not running.
    pub uptime_ms: Option<u64>,
    /// What the engine allocated for its heap, and what is in use; `None` when not running.
    pub heap_total_bytes: Option<u64>,
    pub heap_used_bytes: Option<u64>,
    /// The heap cap the plugin is stopped at.
    pub heap_limit_bytes: u64,
    /// CPU time of its isolates' threads (boots included), current and ended ones.
    pub cpu_ms: f64,
    pub reloads: u64,
    pub notifications: NotificationStats,
    pub calls: Vec<CallStats>,
}

#[derive(Debug, Clone, Serialize)]
pub struct NotificationStats {
    /// Queued on the plugin's isolate (a notification it subscribes to).
    pub delivered: u64,
    /// Kept while it reloaded, for its next isolate.
    pub held: u64,
    /// Dropped while it reloaded: more than `HELD_NOTIFICATIONS` held.
    pub dropped: u64,
}

impl PluginHost {
    /// The stats of every configured plugin, or of the one with `id`.
    pub async fn stats(&self, id: Option<&str>) -> Result<Vec<PluginStatsReport>, HostError> {
        let plugins: Vec<_> = self
            .plugins()
            .into_iter()
            .filter(|p| id.is_none_or(|id| p.id == id))
            .collect();
        if let (Some(id), true) = (id, plugins.is_empty()) {
            return Err(HostError::NotConfigured(id.to_string()));
        }
        let mut reports = Vec::with_capacity(plugins.len());
        for plugin in plugins {
            let (isolate, limits, loaded_at) = {
                let slots = self.slots.lock().unwrap();
                let Some(slot) = slots.get(&plugin.id) else {
                    continue; // removed meanwhile
                };
                (slot.isolate.clone(), slot.limits.clone(), slot.loaded_at)
            };
            let stats = self.plugin_stats(&plugin.id);
            let running = isolate.as_ref().filter(|i| i.is_alive());
            // Asked of the isolate's thread; the lock is not held meanwhile.
            let heap = match running {
                Some(i) => i.heap().await,
                None => None,
            };
            let live_cpu = running.and_then(|i| i.cpu_time()).unwrap_or_default();
            let ended_cpu = Duration::from_nanos(stats.cpu_ended_ns.load(Ordering::Relaxed));
            let counter = |c: &std::sync::atomic::AtomicU64| c.load(Ordering::Relaxed);
            reports.push(PluginStatsReport {
                engine: crate::engine::backend::NAME,
                status: plugin.status,
                uptime_ms: running
                    .and(loaded_at)
                    .map(|at| u64::try_from(at.elapsed().as_millis()).unwrap_or(u64::MAX)),
                heap_total_bytes: heap.map(|h| h.total as u64),
                heap_used_bytes: heap.map(|h| h.used as u64),
                heap_limit_bytes: limits.heap_bytes as u64,
                cpu_ms: (live_cpu + ended_cpu).as_secs_f64() * 1000.0,
                reloads: counter(&stats.reloads),
                notifications: NotificationStats {
                    delivered: counter(&stats.notifications_delivered),
                    held: counter(&stats.notifications_held),
                    dropped: counter(&stats.notifications_dropped),
                },
                calls: stats.calls(),
                id: plugin.id,
            });
        }
        Ok(reports)
    }

    /// The plugin's stats, made on first use; kept until the plugin is removed.
    pub(crate) fn plugin_stats(&self, id: &str) -> Arc<PluginStats> {
        self.stats
            .lock()
            .unwrap()
            .entry(id.to_string())
            .or_default()
            .clone()
    }
}
