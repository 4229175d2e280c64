//! The documented size limits on what plugins return and send: each refused with an error that
//! names the field, the limit and the plugin, and nothing else is affected.

mod common;

use std::sync::Arc;

use common::*;
use paseo_plugin_runtime::{HostOptions, MemoryDaemon, OpenContext, PluginHost};
use serde_json::json;

fn create_request(title: &str) -> serde_json::Value {
    json!({ "config": { "provider": "codex", "cwd": "/projects/shop", "title": title } })
}

#[tokio::test(flavor = "multi_thread")]
async fn oversized_hook_results_are_refused_naming_the_field_and_the_limit() {
    let host = host();
    load_all(&host, &["oversize"]).await;
    let err = host
        .run_hook(
            "agent.create.before",
            create_request("big:2000000"),
            &OpenContext::default(),
        )
        .await
        .unwrap_err();
    assert_eq!(err.to_string(), "Plugin oversize agent.create.before failed: invalid request: config.title: is 2000000 characters long; the limit is 1024");
    let err = host
        .run_hook(
            "agent.create.before",
            create_request("big:5000000"),
            &OpenContext::default(),
        )
        .await
        .unwrap_err();
    assert_eq!(
        err.to_string(),
        "Plugin oversize agent.create.before failed: invalid request: the result is 5000065 bytes of JSON; the limit is 4194304 bytes (4 MiB)"
    );
    // Within the limits the same plugin is fine.
    let ok = host
        .run_hook(
            "agent.create.before",
            create_request("big:1024"),
            &OpenContext::default(),
        )
        .await
        .unwrap();
    assert_eq!(ok["config"]["title"].as_str().unwrap().len(), 1024);
}

#[tokio::test(flavor = "multi_thread")]
async fn oversized_sdk_writes_are_refused_in_the_plugin() {
    let daemon = Arc::new(MemoryDaemon::new(None));
    let host = PluginHost::new(HostOptions {
        daemon: Some(daemon.clone()),
        ..HostOptions::default()
    });
    load_all(&host, &["oversize"]).await;
    let agent = json!({ "id": "agent-1", "workspaceId": null, "parentAgentId": null, "provider": "codex", "cwd": "/p", "title": null });
    daemon.add_agent(agent.clone());
    host.run_hook(
        "agent.create.after",
        json!({ "agent": agent }),
        &OpenContext::default(),
    )
    .await
    .unwrap();
    let lines: Vec<String> = log_lines(&host, "oversize")
        .into_iter()
        .filter(|l| !l.starts_with("[paseo]"))
        .collect();
    assert_eq!(
        lines,
        [
            "RangeError: paseo.agents.send: the arguments are 5242924 bytes of JSON; the limit is 4194304 bytes (4 MiB)",
            "Error: Plugin timeline item data exceeds 64 KiB",
        ]
    );
    // The oversized send never reached the daemon; the timeline row was refused by it, unsaved.
    let state = daemon.state();
    assert!(
        state.calls.iter().all(|c| c.method != "agents.send"),
        "{:?}",
        state.calls
    );
    assert!(state.timelines.get("agent-1").is_none_or(|t| t.is_empty()));
}
