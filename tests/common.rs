#![allow(dead_code)]
//! Helpers shared by the integration tests: fixture paths and typical payloads.

use std::path::PathBuf;
use std::time::Duration;

use paseo_plugin_runtime::{HostOptions, Limits, OpenContext, PluginHost};
use serde_json::{json, Value};

pub fn fixture(name: &str) -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fixtures")
        .join(name)
}

pub fn host() -> PluginHost {
    PluginHost::new(HostOptions::default())
}

/// A host whose hooks time out after `ms` (tests never wait 30 s).
pub fn host_with_timeout(ms: u64) -> PluginHost {
    PluginHost::new(HostOptions {
        limits: Limits {
            hook_timeout: Duration::from_millis(ms),
            ..Limits::default()
        },
        ..HostOptions::default()
    })
}

/// Writes a plugin folder: a manifest with `id` and its `index.server.ts`.
pub fn write_plugin(dir: &std::path::Path, id: &str, code: &str) {
    std::fs::write(
        dir.join("paseo-plugin.json"),
        format!(r#"{{ "id": "{id}", "requirements": {{ "paseo": ">=0.8.0" }} }}"#),
    )
    .unwrap();
    std::fs::write(dir.join("index.server.ts"), code).unwrap();
}

pub async fn load_all(host: &PluginHost, names: &[&str]) {
    for name in names {
        host.load(&fixture(name))
            .await
            .unwrap_or_else(|e| panic!("{name} failed to load: {e}"));
    }
}

pub fn open_request() -> Value {
    json!({
        "agentId": "agent-123", "workspaceId": "workspace-456", "provider": "codex",
        "cwd": "/projects/shop", "title": "Workspace notes", "labels": { "notes/enabled": "true" },
        "tools": [], "mcpServers": {}, "reason": "resume", "purpose": "interactive",
        "env": { "COMPANY_ENV": "development" }
    })
}

/// An `agent.open.before` request for `agent` in `cwd` that the tool-kit fixture attaches tools to.
pub fn open_with_tools(agent: &str, cwd: &str) -> Value {
    let mut request = open_request();
    request["agentId"] = json!(agent);
    request["cwd"] = json!(cwd);
    request["labels"] = json!({ "tools": "on" });
    request
}

pub async fn open(host: &PluginHost, request: Value) -> Result<Value, String> {
    host.run_hook("agent.open.before", request, &OpenContext::default())
        .await
        .map_err(|e| e.to_string())
}

pub fn agent() -> Value {
    json!({ "id": "agent-123", "workspaceId": "workspace-456", "parentAgentId": null, "provider": "codex", "cwd": "/projects/shop", "title": null })
}

pub fn log_lines(host: &PluginHost, id: &str) -> Vec<String> {
    host.logs(id).into_iter().map(|e| e.message).collect()
}

/// Names of this process's threads (as /proc shows them: at most 15 bytes), sorted.
pub fn threads() -> Vec<String> {
    let mut names: Vec<String> = std::fs::read_dir("/proc/self/task")
        .unwrap()
        .filter_map(|t| std::fs::read_to_string(t.ok()?.path().join("comm")).ok())
        .map(|n| n.trim_end().to_string())
        .collect();
    names.sort();
    names
}

/// Waits up to 5 s for `done` (threads that were told to end leave /proc a moment later).
pub fn settle(done: impl Fn() -> bool) -> bool {
    let until = std::time::Instant::now() + Duration::from_secs(5);
    while !done() && std::time::Instant::now() < until {
        std::thread::sleep(Duration::from_millis(20));
    }
    done()
}

/// Differential tests against real Node (which set-up installs): `script` is an ES module run
/// with `node --input-type=module -e` that prints one JSON value.
pub fn under_node(script: &str) -> Value {
    let out = std::process::Command::new("node")
        .args(["--input-type=module", "-e", script])
        .output()
        .expect("node runs (scripts/setup installs it)");
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    serde_json::from_slice(&out.stdout).unwrap()
}

/// Loads fixture `name`, whose `agent.open.before` puts what it measured (in `request.cwd`,
/// a fresh folder) as JSON in `env.RESULT`, and returns that.
pub async fn plugin_result(name: &str) -> Value {
    let dir = tempfile::tempdir().unwrap();
    let host = host();
    load_all(&host, &[name]).await;
    let mut request = open_request();
    request["cwd"] = json!(dir.path());
    let out = open(&host, request).await.unwrap();
    host.shutdown().await;
    serde_json::from_str(out["env"]["RESULT"].as_str().unwrap()).unwrap()
}

/// Every case must be the same here as in Node, both ways: a case only one side reports is a
/// difference too, and a probe that reports nothing fails (it would compare nothing). The
/// failure lists each difference.
pub fn assert_same_as_node(ours: &Value, node: &Value) {
    let node_cases = node.as_object().expect("node's probe result is an object");
    let our_cases = ours
        .as_object()
        .expect("the plugin's probe result is an object");
    assert!(!node_cases.is_empty(), "node's probe reported no case");
    assert!(!our_cases.is_empty(), "the plugin's probe reported no case");
    let mut cases: Vec<&String> = node_cases.keys().chain(our_cases.keys()).collect();
    cases.sort();
    cases.dedup();
    let differences: Vec<String> = cases
        .into_iter()
        .filter(|case| our_cases.get(*case) != node_cases.get(*case))
        .map(|case| {
            let show = |v: Option<&Value>| v.map_or("(no such case)".to_string(), Value::to_string);
            format!(
                "{case}:\n  node: {}\n  here: {}",
                show(node_cases.get(case)),
                show(our_cases.get(case))
            )
        })
        .collect();
    assert!(differences.is_empty(), "{}", differences.join("\n"));
}

/// Waits until plugin `id` has logged `line` (polling its tail every 5 ms), and fails, showing
/// what it did log, if it has not within `within`: a wait for the event, not a guess at how
/// long it takes. The bound is only there so that a broken engine fails instead of hanging.
pub async fn wait_for_log(host: &PluginHost, id: &str, line: &str, within: Duration) {
    let deadline = tokio::time::Instant::now() + within;
    loop {
        let lines = log_lines(host, id);
        if lines.iter().any(|l| l == line) {
            return;
        }
        assert!(
            tokio::time::Instant::now() < deadline,
            "{id} did not log {line:?} within {within:?}; it logged {lines:#?}"
        );
        tokio::time::sleep(Duration::from_millis(5)).await;
    }
}
