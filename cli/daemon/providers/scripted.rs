//! The built-in scripted agent provider: hooks fire for real without an LLM. Each line of a
//! user message is a step:
//!
//! | line | what the agent does |
//! | --- | --- |
//! | `say <text>` | replies `<text>` |
//! | `run <command>` | asks permission to run a shell command; runs it in the agent's cwd if allowed |
//! | `ask <command>` | asks permission to run a shell command and goes on without the answer; runs nothing |
//! | `tool <name> <json>` | calls one of its plugin tools over MCP |
//! | `env <NAME>` | replies with the value of `NAME` in its launch environment |
//! | `credits` | replies "Sorry, I am out of credits." |
//! | `fail <message>` | the turn fails |
//! | `sleep <ms>` | works for a while |
//! | anything else | replies `RETRY_OK` to "Try again.", otherwise `ok: <line>` |
//!
//! Providers `scripted`, `codex` and `claude` support MCP servers; `plain` does not. Any other
//! provider is a plugin's (`plugin`), and its turns run there.

use std::sync::Arc;

use serde_json::{json, Value};

use crate::daemon::store::AgentRecord;
use crate::daemon::Daemon;

pub(in crate::daemon) const PROVIDERS: &[(&str, bool)] = &[
    ("scripted", true),
    ("codex", true),
    ("claude", true),
    ("plain", false),
];

pub(in crate::daemon) fn is_known(provider: &str) -> bool {
    PROVIDERS.iter().any(|(p, _)| *p == provider)
}

pub(in crate::daemon) fn supports_mcp(provider: &str) -> bool {
    PROVIDERS.iter().any(|(p, mcp)| *p == provider && *mcp)
}

fn reply(daemon: &Daemon, agent: &str, text: &str) {
    daemon.push_timeline(agent, json!({ "type": "assistant_message", "text": text }));
    daemon.say(format!("agent {agent} says {text:?}"));
}

pub(in crate::daemon) async fn run_steps(
    daemon: &Arc<Daemon>,
    record: &AgentRecord,
    text: &str,
) -> Result<(), String> {
    for line in text.lines().map(str::trim).filter(|l| !l.is_empty()) {
        let (step, rest) = line.split_once(' ').unwrap_or((line, ""));
        match step {
            "say" => reply(daemon, &record.id, rest),
            "credits" => reply(daemon, &record.id, "Sorry, I am out of credits."),
            "fail" => return Err(rest.to_string()),
            "sleep" => {
                tokio::time::sleep(std::time::Duration::from_millis(
                    rest.parse().unwrap_or(100),
                ))
                .await
            }
            "env" => {
                let value = daemon
                    .live
                    .lock()
                    .unwrap()
                    .get(&record.id)
                    .and_then(|l| l.launch.env.get(rest).cloned());
                reply(
                    daemon,
                    &record.id,
                    &format!("{rest}={}", value.unwrap_or_default()),
                );
            }
            "run" => run_command(daemon, record, rest).await,
            // A provider that keeps working while a request is pending (so it may fail with one).
            "ask" => {
                drop(daemon.raise_permission(record, permission_request(daemon, record, rest).1))
            }
            "tool" => call_tool(daemon, record, rest).await?,
            _ if line == "Try again." => reply(daemon, &record.id, "RETRY_OK"),
            _ => reply(daemon, &record.id, &format!("ok: {line}")),
        }
    }
    Ok(())
}

/// A new call id and the request to run `command` in it.
fn permission_request(daemon: &Daemon, record: &AgentRecord, command: &str) -> (String, Value) {
    let call_id = daemon.next_id("call");
    let request = json!({
        "id": format!("perm-{call_id}"), "provider": record.provider, "name": "shell", "kind": "tool",
        "title": format!("Run {command}"), "input": { "command": command },
    });
    (call_id, request)
}

async fn run_command(daemon: &Arc<Daemon>, record: &AgentRecord, command: &str) {
    let (call_id, request) = permission_request(daemon, record, command);
    let resolution = daemon.ask_permission(record, request).await;
    let item = if resolution["behavior"] == "allow" {
        let out = tokio::process::Command::new("sh")
            .arg("-c")
            .arg(command)
            .current_dir(&record.cwd)
            .output()
            .await;
        match out {
            Ok(out) => {
                json!({ "type": "tool_call", "callId": call_id, "name": "shell", "status": if out.status.success() { "completed" } else { "failed" },
                "detail": { "type": "shell", "command": command, "output": String::from_utf8_lossy(&out.stdout), "exitCode": out.status.code() }, "error": null })
            }
            Err(e) => {
                json!({ "type": "tool_call", "callId": call_id, "name": "shell", "status": "failed", "detail": { "type": "shell", "command": command }, "error": e.to_string() })
            }
        }
    } else {
        json!({ "type": "tool_call", "callId": call_id, "name": "shell", "status": "failed", "detail": { "type": "shell", "command": command },
            "error": resolution["message"].as_str().unwrap_or("Permission denied") })
    };
    daemon.push_timeline(&record.id, item);
}

async fn call_tool(daemon: &Arc<Daemon>, record: &AgentRecord, rest: &str) -> Result<(), String> {
    let (name, input) = rest.split_once(' ').unwrap_or((rest, "{}"));
    let input: Value =
        serde_json::from_str(input).map_err(|e| format!("tool input is not JSON: {e}"))?;
    let result = super::mcp_client::call(daemon, &record.id, name, input).await?;
    daemon.push_timeline(&record.id, json!({ "type": "tool_call", "callId": daemon.next_id("call"), "name": name, "status": if result.is_error { "failed" } else { "completed" },
        "detail": { "type": "unknown", "input": rest, "output": result.text }, "error": null }));
    daemon.say(format!(
        "agent {} called tool {name} over MCP → {}",
        record.id,
        result.text.as_deref().unwrap_or("")
    ));
    Ok(())
}
