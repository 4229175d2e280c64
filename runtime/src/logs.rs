//! A plugin's log tail: what its `console.*` and the host wrote about it, bounded like Paseo's
//! (500 entries, 256 KiB, 16 KiB a line). It survives reloads and failures; removal clears it.

use std::collections::VecDeque;
use std::sync::Mutex;

use serde::Serialize;

pub const MAX_ENTRIES: usize = 500;
pub const MAX_BYTES: usize = 256 * 1024;
pub const MAX_LINE_BYTES: usize = 16 * 1024;

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Stream {
    Stdout,
    Stderr,
}

#[derive(Debug, Clone, Serialize)]
pub struct LogEntry {
    pub sequence: u64,
    /// ISO 8601, UTC.
    pub timestamp: String,
    pub stream: Stream,
    pub message: String,
}

/// Called for every entry as it is written (e.g. the CLI prints `[<id>] <line>` on stderr).
pub type LogListener = std::sync::Arc<dyn Fn(&str, &LogEntry) + Send + Sync>;

#[derive(Default)]
struct Inner {
    entries: VecDeque<LogEntry>,
    bytes: usize,
    next_sequence: u64,
}

pub struct LogTail {
    plugin_id: String,
    inner: Mutex<Inner>,
    listener: Option<LogListener>,
}

impl LogTail {
    pub fn new(plugin_id: &str, listener: Option<LogListener>) -> Self {
        LogTail {
            plugin_id: plugin_id.to_string(),
            inner: Mutex::default(),
            listener,
        }
    }

    /// Appends one message; each line becomes an entry, cut at 16 KiB, trailing `\r` stripped.
    pub fn write(&self, stream: Stream, message: &str) {
        for line in message.split('\n') {
            self.push(stream, line.strip_suffix('\r').unwrap_or(line));
        }
    }

    /// Appends one message as one entry, however many lines it has (`\r\n` made `\n`, cut at
    /// 16 KiB): how Paseo keeps a plugin's load failure, stack and all.
    pub fn write_whole(&self, stream: Stream, message: &str) {
        self.push(stream, &message.replace("\r\n", "\n"));
    }

    fn push(&self, stream: Stream, line: &str) {
        let mut line = line;
        if line.len() > MAX_LINE_BYTES {
            let mut cut = MAX_LINE_BYTES;
            while !line.is_char_boundary(cut) {
                cut -= 1;
            }
            line = &line[..cut];
        }
        let entry = {
            let mut inner = self.inner.lock().unwrap();
            inner.next_sequence += 1;
            let entry = LogEntry {
                sequence: inner.next_sequence,
                timestamp: now_iso(),
                stream,
                message: line.to_string(),
            };
            inner.bytes += entry.message.len();
            inner.entries.push_back(entry.clone());
            while inner.entries.len() > MAX_ENTRIES || inner.bytes > MAX_BYTES {
                let old = inner.entries.pop_front().unwrap();
                inner.bytes -= old.message.len();
            }
            entry
        };
        match stream {
            Stream::Stdout => {
                tracing::info!(target: "paseo::plugin", plugin_id = %self.plugin_id, sequence = entry.sequence, "{}", entry.message)
            }
            Stream::Stderr => {
                tracing::warn!(target: "paseo::plugin", plugin_id = %self.plugin_id, sequence = entry.sequence, "{}", entry.message)
            }
        }
        if let Some(listener) = &self.listener {
            listener(&self.plugin_id, &entry);
        }
    }

    pub fn entries(&self) -> Vec<LogEntry> {
        self.inner.lock().unwrap().entries.iter().cloned().collect()
    }
}

/// UTC now as `YYYY-MM-DDTHH:MM:SS.mmmZ`, without a date crate.
pub fn now_iso() -> String {
    let now = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .unwrap_or_default();
    let secs = now.as_secs() as i64;
    let (days, rem) = (secs.div_euclid(86_400), secs.rem_euclid(86_400));
    // Howard Hinnant's civil-from-days.
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z - era * 146_097;
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let d = doy - (153 * mp + 2) / 5 + 1;
    let m = if mp < 10 { mp + 3 } else { mp - 9 };
    let y = yoe + era * 400 + if m <= 2 { 1 } else { 0 };
    format!(
        "{y:04}-{m:02}-{d:02}T{:02}:{:02}:{:02}.{:03}Z",
        rem / 3600,
        rem % 3600 / 60,
        rem % 60,
        now.subsec_millis()
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tail_is_bounded_by_entries_bytes_and_line_length() {
        let tail = LogTail::new("t", None);
        for i in 0..600 {
            tail.write(Stream::Stdout, &format!("line {i}"));
        }
        let entries = tail.entries();
        assert_eq!(entries.len(), MAX_ENTRIES);
        assert_eq!(entries[0].message, "line 100");
        tail.write(Stream::Stderr, &"x".repeat(20_000));
        assert_eq!(tail.entries().last().unwrap().message.len(), MAX_LINE_BYTES);
        for _ in 0..40 {
            tail.write(Stream::Stdout, &"y".repeat(MAX_LINE_BYTES));
        }
        let total: usize = tail.entries().iter().map(|e| e.message.len()).sum();
        assert!(total <= MAX_BYTES);
        tail.write(Stream::Stdout, "a\r\nb");
        let last: Vec<_> = tail
            .entries()
            .iter()
            .rev()
            .take(2)
            .map(|e| e.message.clone())
            .collect();
        assert_eq!(last, ["b", "a"]);
    }
}
