//! Quotas on what a plugin writes through the SDK (`plugins.<id>.quotas` in config.json, shown
//! with its permissions): timeline rows and their bytes, and plugin-initiated sends, per agent
//! per minute. The defaults are far above what published plugins do (a few rows and at most a
//! send per turn), and stop what was measured going wrong: 3,000 rows of 10 kB in 4.7 s, and a
//! plugin that sends a follow-up on every `agent.turn.after`, looping for ever. A refused call
//! fails with the quota and the config key that changes it, and one line in the plugin's log.

use std::collections::{HashMap, VecDeque};
use std::sync::Mutex;
use std::time::{Duration, Instant};

use serde::{Deserialize, Serialize};

const WINDOW: Duration = Duration::from_secs(60);

/// A plugin's quotas, each per agent per minute.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields, default)]
pub struct Quotas {
    pub timeline_rows_per_minute: u64,
    pub timeline_bytes_per_minute: u64,
    pub sends_per_minute: u64,
}

impl Default for Quotas {
    fn default() -> Self {
        Quotas {
            timeline_rows_per_minute: 120,
            timeline_bytes_per_minute: 4 * 1024 * 1024,
            sends_per_minute: 12,
        }
    }
}

/// What a charge is for.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Spend {
    TimelineRow,
    Send,
}

/// Whose calls, for what: (plugin, agent, spend).
type Key = (String, String, Spend);

/// The calls each plugin made per agent in the last minute.
#[derive(Default)]
pub struct Meter {
    /// The calls' times and bytes, oldest first.
    windows: Mutex<HashMap<Key, VecDeque<(Instant, u64)>>>,
}

impl Meter {
    /// Counts one call of `bytes` against `quotas`, or says which quota it would exceed.
    pub fn charge(
        &self,
        quotas: &Quotas,
        plugin: &str,
        agent: &str,
        spend: Spend,
        bytes: u64,
    ) -> Result<(), String> {
        let now = Instant::now();
        let mut windows = self.windows.lock().unwrap();
        // Nothing older than the window is kept, for any key.
        windows.retain(|_, calls| {
            while calls
                .front()
                .is_some_and(|(at, _)| now.duration_since(*at) >= WINDOW)
            {
                calls.pop_front();
            }
            !calls.is_empty()
        });
        let calls = windows
            .entry((plugin.to_string(), agent.to_string(), spend))
            .or_default();
        let count = calls.len() as u64 + 1;
        let total = calls.iter().map(|(_, b)| b).sum::<u64>() + bytes;
        let over = match spend {
            Spend::TimelineRow if count > quotas.timeline_rows_per_minute => Some((
                format!("{} timeline rows", quotas.timeline_rows_per_minute),
                "timelineRowsPerMinute",
            )),
            Spend::TimelineRow if total > quotas.timeline_bytes_per_minute => Some((
                format!(
                    "{} bytes of timeline rows",
                    quotas.timeline_bytes_per_minute
                ),
                "timelineBytesPerMinute",
            )),
            Spend::Send if count > quotas.sends_per_minute => Some((
                format!("{} sends", quotas.sends_per_minute),
                "sendsPerMinute",
            )),
            _ => None,
        };
        if let Some((limit, key)) = over {
            return Err(format!(
                "Plugin {plugin} reached its quota of {limit} per minute for agent {agent} \
                 (plugins.{plugin}.quotas.{key} in config.json)"
            ));
        }
        calls.push_back((now, bytes));
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_plugin_and_agent_has_its_own_minute() {
        let meter = Meter::default();
        let quotas = Quotas {
            timeline_rows_per_minute: 2,
            timeline_bytes_per_minute: 100,
            sends_per_minute: 1,
        };
        let row =
            |plugin, agent, bytes| meter.charge(&quotas, plugin, agent, Spend::TimelineRow, bytes);
        assert!(row("p", "a", 10).is_ok());
        assert!(row("p", "a", 10).is_ok());
        assert_eq!(
            row("p", "a", 10).unwrap_err(),
            "Plugin p reached its quota of 2 timeline rows per minute for agent a (plugins.p.quotas.timelineRowsPerMinute in config.json)"
        );
        assert!(row("p", "b", 10).is_ok());
        assert!(row("q", "a", 10).is_ok());
        assert!(row("q", "b", 60).is_ok());
        assert!(row("q", "b", 60)
            .unwrap_err()
            .contains("100 bytes of timeline rows"));
        assert!(meter.charge(&quotas, "p", "a", Spend::Send, 0).is_ok());
        assert!(meter
            .charge(&quotas, "p", "a", Spend::Send, 0)
            .unwrap_err()
            .contains("1 sends"));
    }

    #[test]
    fn a_config_names_what_it_changes() {
        let q: Quotas = serde_json::from_str(r#"{"sendsPerMinute": 3}"#).unwrap();
        assert_eq!(
            q,
            Quotas {
                sends_per_minute: 3,
                ..Quotas::default()
            }
        );
        let e = serde_json::from_str::<Quotas>(r#"{"sends": 3}"#)
            .unwrap_err()
            .to_string();
        assert!(e.contains("unknown field `sends`"), "{e}");
    }
}
