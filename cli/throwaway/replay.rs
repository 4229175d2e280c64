//! `paseo hook replay`: plays a recording (`paseo daemon --record DIR`, one JSON line per hook
//! call a plugin received, `engine::recorder`) against a plugin folder in the throwaway host, and
//! reports, call by call, where the plugin now answers differently: field by field for an
//! output, the text for an error.

use std::path::Path;
use std::process::ExitCode;

use paseo_plugin_runtime::hooks;
use paseo_plugin_runtime::PluginHost;
use serde_json::{json, Value};

use super::{host_flags, seed_daemon, throwaway_host};
use crate::args::HostFlags;

/// At most this many differences are listed for one call; the rest are counted.
const SHOWN_PER_CALL: usize = 20;

/// One recorded call, as read back.
struct Recorded {
    /// Its line in the file, from 1.
    line: usize,
    hook: &'static str,
    input: Value,
    answer: Answer,
    duration_us: Option<u64>,
}

/// What a plugin answered a hook call, in the recording's form.
#[derive(Debug, PartialEq)]
enum Answer {
    /// The output (`null`: a request left unchanged, or a notification's handlers done).
    Output(Value),
    Error(String),
}

/// Where an answer differs: the path of the field (`output.env.X`), and its two values
/// (`None`: absent on that side).
#[derive(Debug, PartialEq)]
struct Difference {
    path: String,
    recorded: Option<Value>,
    now: Option<Value>,
}

pub async fn replay(host: HostFlags, file: &Path, as_json: bool) -> Result<ExitCode, String> {
    let calls = read_recording(file)?;
    let (mut options, daemon) = throwaway_host();
    let plugins = host_flags(&host, &mut options)?;
    let [dir] = plugins.as_slice() else {
        return Err(format!(
            "hook replay plays one plugin's recording: give one --plugin DIR, not {}",
            plugins.len()
        ));
    };
    let host = PluginHost::new(options);
    let id = match host.load(dir).await {
        Ok(id) => id,
        Err(e) => {
            host.shutdown().await;
            return Err(e.to_string());
        }
    };
    let recorded_for = file.file_stem().map(|s| s.to_string_lossy().into_owned());
    if recorded_for.as_deref().is_some_and(|stem| stem != id) {
        eprintln!(
            "[paseo] {} holds plugin {}'s calls; replaying them against {id}",
            file.display(),
            recorded_for.unwrap_or_default()
        );
    }
    let (mut same, mut differ) = (0usize, 0usize);
    for call in &calls {
        let payload = match call.input.get("request") {
            Some(request) if request_hook(call.hook) => request,
            _ => &call.input,
        };
        seed_daemon(&daemon, call.hook, payload);
        let started = std::time::Instant::now();
        let now = match host.replay_hook(&id, call.hook, &call.input).await {
            Ok(Ok(output)) => Answer::Output(output),
            Ok(Err(error)) => Answer::Error(error),
            Err(e) => {
                host.shutdown().await;
                return Err(format!("{}:{}: {e}", file.display(), call.line));
            }
        };
        let took_us = started.elapsed().as_micros() as u64;
        let differences = compare(&call.answer, &now);
        if differences.is_empty() {
            same += 1;
        } else {
            differ += 1;
        }
        if as_json {
            // A side where the field is absent has no key (`null` is a value a field can have).
            let listed: Vec<Value> = differences
                .iter()
                .map(|d| {
                    let mut entry = json!({ "path": d.path });
                    if let Some(v) = &d.recorded {
                        entry["recorded"] = v.clone();
                    }
                    if let Some(v) = &d.now {
                        entry["now"] = v.clone();
                    }
                    entry
                })
                .collect();
            println!(
                "{}",
                json!({
                    "line": call.line,
                    "hook": call.hook,
                    "same": differences.is_empty(),
                    "differences": listed,
                    "recordedUs": call.duration_us,
                    "nowUs": took_us,
                })
            );
        } else if !differences.is_empty() {
            println!("line {} {}: differs", call.line, call.hook);
            for d in differences.iter().take(SHOWN_PER_CALL) {
                println!(
                    "  {}: recorded {}, now {}",
                    d.path,
                    shown(&d.recorded),
                    shown(&d.now)
                );
            }
            if differences.len() > SHOWN_PER_CALL {
                println!("  … and {} more", differences.len() - SHOWN_PER_CALL);
            }
        }
    }
    host.shutdown().await;
    if !as_json {
        let calls = if calls.len() == 1 { "call" } else { "calls" };
        println!(
            "replayed {} {calls} against {id}: {same} same, {differ} different",
            same + differ
        );
    }
    Ok(if differ == 0 {
        ExitCode::SUCCESS
    } else {
        ExitCode::from(1)
    })
}

fn request_hook(hook: &str) -> bool {
    hooks::catalogue()
        .get(hook)
        .is_some_and(|spec| spec.returns_request)
}

/// Reads every line of a recording, or says which line is not a recorded call and why.
fn read_recording(file: &Path) -> Result<Vec<Recorded>, String> {
    let text = std::fs::read_to_string(file)
        .map_err(|e| format!("cannot read {}: {e}", file.display()))?;
    let mut calls = Vec::new();
    for (i, line) in text.lines().enumerate() {
        if line.trim().is_empty() {
            continue;
        }
        let at = || format!("{}:{}", file.display(), i + 1);
        let value: Value = serde_json::from_str(line)
            .map_err(|e| format!("{}: not a recorded hook call: {e}", at()))?;
        calls.push(parse_call(i + 1, value).map_err(|e| format!("{}: {e}", at()))?);
    }
    if calls.is_empty() {
        return Err(format!("{} holds no recorded hook call", file.display()));
    }
    Ok(calls)
}

fn parse_call(line: usize, mut value: Value) -> Result<Recorded, String> {
    let hook = value["hook"]
        .as_str()
        .ok_or("a recorded hook call needs \"hook\", a string")?;
    let spec = hooks::catalogue()
        .get(hook)
        .ok_or_else(|| format!("Unknown hook: {hook}"))?;
    let answer = match value["ok"].as_bool() {
        Some(true) => Answer::Output(value["output"].take()),
        Some(false) => Answer::Error(
            value["error"]
                .as_str()
                .ok_or("a failed call needs \"error\", a string")?
                .to_string(),
        ),
        None => return Err("a recorded hook call needs \"ok\", true or false".into()),
    };
    let input = value["input"].take();
    if !input.is_object() {
        return Err("a recorded hook call needs \"input\", an object".into());
    }
    Ok(Recorded {
        line,
        hook: spec.name.as_str(),
        input,
        answer,
        duration_us: value["durationUs"].as_u64(),
    })
}

/// Where `now` differs from `recorded`.
fn compare(recorded: &Answer, now: &Answer) -> Vec<Difference> {
    let mut out = Vec::new();
    match (recorded, now) {
        (Answer::Output(a), Answer::Output(b)) => diff("output", a, b, &mut out),
        (Answer::Error(a), Answer::Error(b)) if a == b => {}
        (a, b) => {
            let side = |answer: &Answer| match answer {
                Answer::Output(v) => ("output", v.clone()),
                Answer::Error(e) => ("error", json!(e)),
            };
            let ((path_a, a), (path_b, b)) = (side(a), side(b));
            if path_a == path_b {
                out.push(Difference {
                    path: path_a.into(),
                    recorded: Some(a),
                    now: Some(b),
                });
            } else {
                out.push(Difference {
                    path: path_a.into(),
                    recorded: Some(a),
                    now: None,
                });
                out.push(Difference {
                    path: path_b.into(),
                    recorded: None,
                    now: Some(b),
                });
            }
        }
    }
    out
}

/// The fields where `b` differs from `a`, by path: objects key by key (the recorded order, then
/// keys only `b` has), arrays item by item; anything else as a whole.
fn diff(path: &str, a: &Value, b: &Value, out: &mut Vec<Difference>) {
    match (a, b) {
        (Value::Object(a), Value::Object(b)) => {
            for (key, va) in a {
                let at = field(path, key);
                match b.get(key) {
                    Some(vb) => diff(&at, va, vb, out),
                    None => out.push(Difference {
                        path: at,
                        recorded: Some(va.clone()),
                        now: None,
                    }),
                }
            }
            for (key, vb) in b.iter().filter(|(k, _)| !a.contains_key(*k)) {
                out.push(Difference {
                    path: field(path, key),
                    recorded: None,
                    now: Some(vb.clone()),
                });
            }
        }
        (Value::Array(a), Value::Array(b)) => {
            for i in 0..a.len().max(b.len()) {
                let at = format!("{path}[{i}]");
                match (a.get(i), b.get(i)) {
                    (Some(va), Some(vb)) => diff(&at, va, vb, out),
                    (va, vb) => out.push(Difference {
                        path: at,
                        recorded: va.cloned(),
                        now: vb.cloned(),
                    }),
                }
            }
        }
        (a, b) if a == b => {}
        (a, b) => out.push(Difference {
            path: path.to_string(),
            recorded: Some(a.clone()),
            now: Some(b.clone()),
        }),
    }
}

/// `path.key`, or `path["key"]` for a key that is not a plain name.
fn field(path: &str, key: &str) -> String {
    let plain = !key.is_empty()
        && key
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '-');
    if plain {
        format!("{path}.{key}")
    } else {
        format!("{path}[{}]", json!(key))
    }
}

/// A value as the report shows it: compact JSON, cut at 120 characters; `absent`.
fn shown(value: &Option<Value>) -> String {
    let Some(value) = value else {
        return "absent".into();
    };
    let text = value.to_string();
    if text.chars().count() <= 120 {
        return text;
    }
    let cut: String = text.chars().take(117).collect();
    format!("{cut}…")
}

#[cfg(test)]
mod tests {
    use super::*;

    fn paths(a: Value, b: Value) -> Vec<(String, String, String)> {
        compare(&Answer::Output(a), &Answer::Output(b))
            .into_iter()
            .map(|d| (d.path, shown(&d.recorded), shown(&d.now)))
            .collect()
    }

    #[test]
    fn differences_are_listed_field_by_field() {
        let t = |p: &str, a: &str, b: &str| (p.to_string(), a.to_string(), b.to_string());
        assert_eq!(
            paths(
                json!({ "env": { "A": "1", "B": "2" }, "tools": [1, 2], "cwd": "/w" }),
                json!({ "env": { "A": "1", "C": "3" }, "tools": [1, 5, 6], "cwd": "/w" }),
            ),
            [
                t("output.env.B", "\"2\"", "absent"),
                t("output.env.C", "absent", "\"3\""),
                t("output.tools[1]", "2", "5"),
                t("output.tools[2]", "absent", "6"),
            ]
        );
        assert_eq!(
            paths(json!({ "a b": 1 }), json!({ "a b": 2 })),
            [t("output[\"a b\"]", "1", "2")]
        );
        assert!(paths(json!(null), json!(null)).is_empty());
        assert_eq!(paths(json!(null), json!({})), [t("output", "null", "{}")]);
    }

    #[test]
    fn an_error_in_place_of_an_output_is_a_difference() {
        let d = compare(&Answer::Output(json!(null)), &Answer::Error("boom".into()));
        assert_eq!(
            d,
            [
                Difference {
                    path: "output".into(),
                    recorded: Some(json!(null)),
                    now: None
                },
                Difference {
                    path: "error".into(),
                    recorded: None,
                    now: Some(json!("boom"))
                },
            ]
        );
        assert!(compare(&Answer::Error("x".into()), &Answer::Error("x".into())).is_empty());
        assert_eq!(
            compare(&Answer::Error("x".into()), &Answer::Error("y".into()))[0].path,
            "error"
        );
    }

    #[test]
    fn a_line_that_is_not_a_recorded_call_is_named() {
        let err = |v: Value| parse_call(1, v).err().unwrap();
        assert_eq!(
            err(json!({ "hook": "agent.nope", "ok": true, "input": {} })),
            "Unknown hook: agent.nope"
        );
        assert_eq!(
            err(json!({ "hook": "agent.create.after", "input": {} })),
            "a recorded hook call needs \"ok\", true or false"
        );
        assert_eq!(
            err(json!({ "hook": "agent.create.after", "ok": true, "input": 3 })),
            "a recorded hook call needs \"input\", an object"
        );
        let call = parse_call(
            4,
            json!({ "hook": "agent.create.after", "ok": false, "error": "boom", "input": {} }),
        )
        .unwrap();
        assert_eq!(call.answer, Answer::Error("boom".into()));
        assert_eq!(call.line, 4);
    }
}
