//! Hook traffic recorded for replay (`HostOptions::record_dir`, `paseo daemon --record DIR`):
//! every hook call a plugin receives and what it answered, one JSON line per call in
//! `DIR/<plugin id>.jsonl`, written where the call settles (`protocol::Pending::settle`).
//! `paseo hook replay` plays a recording against a plugin folder and says where the answers
//! differ.
//!
//! A line: `{"atMs", "hook", "input", "ok", "output" | "error", "durationUs"}`. `input` is what
//! the plugin's handlers were given (`{"request": …}` for request hooks, the event otherwise);
//! `output` its answer (`null`: the request unchanged). Env values, `Authorization` headers and
//! strings under keys that name a secret are redacted in both (`redact`); the file is 0600 in a
//! 0700 folder, and stops growing at `RECORD_CAP` with a line in the plugin's log.

use std::io::Write;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};
use std::time::{Duration, SystemTime, UNIX_EPOCH};

use serde_json::{json, Value};

use super::protocol::CallError;
use crate::logs::{LogTail, Stream};

/// What one plugin's recording may grow to in one daemon run.
pub const RECORD_CAP: u64 = 256 * 1024 * 1024;

/// What a redacted value reads.
pub const REDACTED: &str = "<redacted>";

/// One plugin's recording.
pub struct Recorder {
    path: PathBuf,
    logs: Arc<LogTail>,
    state: Mutex<State>,
}

struct State {
    /// `None` once the cap is reached or a write failed.
    file: Option<std::fs::File>,
    written: u64,
}

impl Recorder {
    /// Appends to `<dir>/<plugin id>.jsonl` (made 0600, the folder 0700); a failure is said in
    /// the plugin's log and nothing is recorded.
    pub fn open(dir: &Path, id: &str, logs: Arc<LogTail>) -> Option<Recorder> {
        use std::os::unix::fs::OpenOptionsExt;
        let path = dir.join(format!("{id}.jsonl"));
        let file = crate::private_files::create_private_dir_all(dir).and_then(|()| {
            // Not through a symlink someone left there; an existing file is made 0600 too.
            let file = std::fs::OpenOptions::new()
                .append(true)
                .create(true)
                .mode(0o600)
                .custom_flags(libc::O_NOFOLLOW)
                .open(&path)?;
            file.set_permissions(std::os::unix::fs::PermissionsExt::from_mode(0o600))?;
            Ok(file)
        });
        match file {
            Ok(file) => Some(Recorder {
                path,
                logs,
                state: Mutex::new(State {
                    file: Some(file),
                    written: 0,
                }),
            }),
            Err(e) => {
                logs.write(
                    Stream::Stderr,
                    &format!(
                        "[paseo] Cannot record hook calls to {}: {e}",
                        path.display()
                    ),
                );
                None
            }
        }
    }

    /// Records one settled hook call.
    pub(crate) fn record(
        &self,
        hook: &str,
        input: &str,
        outcome: &Result<String, CallError>,
        took: Duration,
    ) {
        let at_ms = SystemTime::now()
            .duration_since(UNIX_EPOCH)
            .map_or(0, |d| d.as_millis() as u64);
        let mut line = json!({
            "atMs": at_ms,
            "hook": hook,
            "input": redacted(input),
            "durationUs": took.as_micros() as u64,
        });
        match outcome {
            Ok(output) => {
                line["ok"] = json!(true);
                line["output"] = redacted(output);
            }
            Err(e) => {
                line["ok"] = json!(false);
                line["error"] = json!(error_text(e));
            }
        }
        let mut text = line.to_string();
        text.push('\n');
        let mut guard = self.state.lock().unwrap_or_else(|e| e.into_inner());
        let state = &mut *guard;
        let Some(file) = state.file.as_mut() else {
            return;
        };
        let room = RECORD_CAP.saturating_sub(state.written);
        let stopped = if text.len() as u64 > room {
            Some(format!(
                "[paseo] Recording stopped: {} reached {} MiB",
                self.path.display(),
                RECORD_CAP >> 20
            ))
        } else {
            // One write per line, so that a reader of the file never sees half of one.
            file.write_all(text.as_bytes()).err().map(|e| {
                format!(
                    "[paseo] Recording stopped: cannot write {}: {e}",
                    self.path.display()
                )
            })
        };
        match stopped {
            None => state.written += text.len() as u64,
            Some(message) => {
                state.file = None;
                drop(guard);
                self.logs.write(Stream::Stderr, &message);
            }
        }
    }
}

/// How a failed call reads in a recording (and in a replay, to compare with it).
pub fn error_text(e: &CallError) -> String {
    match e {
        CallError::TimedOut => "timed out".into(),
        e => e.to_string(),
    }
}

/// A call's input or output as a recording holds it: parsed, `null` for an empty answer (the
/// request unchanged), text that is not JSON as a string; redacted.
pub fn redacted(text: &str) -> Value {
    let mut value = if text.is_empty() {
        Value::Null
    } else {
        serde_json::from_str(text).unwrap_or_else(|_| Value::String(text.to_string()))
    };
    redact(&mut value);
    value
}

/// Replaces, anywhere in `value`, the values of every `env` object (an agent's environment,
/// as the daemon's views hide it) and every string under a key that names a secret
/// (`Authorization`, `Cookie`, or one containing `token`, `secret`, `password`, `apikey` /
/// `api_key`, any case) with `REDACTED`. Keys are kept, so a replay still sees what was there.
pub fn redact(value: &mut Value) {
    match value {
        Value::Object(map) => {
            for (key, item) in map.iter_mut() {
                if key == "env" {
                    if let Value::Object(env) = item {
                        for v in env.values_mut() {
                            *v = json!(REDACTED);
                        }
                        continue;
                    }
                }
                if item.is_string() && names_a_secret(key) {
                    *item = json!(REDACTED);
                    continue;
                }
                redact(item);
            }
        }
        Value::Array(items) => items.iter_mut().for_each(redact),
        _ => {}
    }
}

fn names_a_secret(key: &str) -> bool {
    let key = key.to_ascii_lowercase();
    key == "authorization"
        || key == "cookie"
        || [
            "token", "secret", "password", "apikey", "api_key", "api-key",
        ]
        .iter()
        .any(|word| key.contains(word))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn env_values_and_authorization_headers_are_redacted_anywhere() {
        let mut v = json!({
            "request": {
                "env": { "TOKEN": "s3cret", "REGION": "eu" },
                "cwd": "/work",
                "mcpServers": { "x": { "headers": { "Authorization": "Bearer abc", "X-Other": "kept" } } },
                "list": [{ "authorization": "Basic zz" }],
                "settings": { "apiKey": "k", "githubToken": "t", "Cookie": "c", "tokens": 3, "model": "m" }
            }
        });
        redact(&mut v);
        assert_eq!(
            v,
            json!({
                "request": {
                    "env": { "TOKEN": REDACTED, "REGION": REDACTED },
                    "cwd": "/work",
                    "mcpServers": { "x": { "headers": { "Authorization": REDACTED, "X-Other": "kept" } } },
                    "list": [{ "authorization": REDACTED }],
                    "settings": { "apiKey": REDACTED, "githubToken": REDACTED, "Cookie": REDACTED, "tokens": 3, "model": "m" }
                }
            })
        );
        assert_eq!(redacted(""), Value::Null);
        assert_eq!(redacted("not json"), json!("not json"));
    }
}
