//! `context.paseo`, RPC, settings and secrets through real plugins against the in-memory daemon.

mod common;

use std::sync::Arc;

use common::*;
use paseo_plugin_runtime::{HostOptions, MemoryDaemon, OpenContext, PluginHost};
use serde_json::{json, Value};

fn host_with_daemon(settings: Option<&std::path::Path>) -> (PluginHost, Arc<MemoryDaemon>) {
    let daemon = Arc::new(MemoryDaemon::new(None));
    let host = PluginHost::new(HostOptions {
        daemon: Some(daemon.clone()),
        settings_dir: settings.map(|p| p.to_path_buf()),
        ..HostOptions::default()
    });
    (host, daemon)
}

fn agent_snapshot(id: &str) -> Value {
    json!({ "id": id, "workspaceId": "workspace-456", "parentAgentId": null, "provider": "codex", "cwd": "/projects/shop", "title": null })
}

fn logs_after_ready(host: &PluginHost, id: &str) -> Vec<String> {
    log_lines(host, id)
        .into_iter()
        .filter(|l| !l.starts_with("[paseo]"))
        .collect()
}

#[tokio::test(flavor = "multi_thread")]
async fn lifecycle_actions_answers_permissions_and_sends_a_follow_up() {
    let (host, daemon) = host_with_daemon(None);
    host.load(&PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("examples/lifecycle-actions"))
        .await
        .unwrap();
    daemon.add_agent(agent_snapshot("agent-1"));
    let permission = |id: &str, command: &str| json!({ "id": id, "provider": "claude", "name": "Bash", "kind": "tool", "input": { "command": command } });
    for (id, command) in [("p1", "rm -rf build"), ("p2", "git status"), ("p3", "ls")] {
        daemon.add_pending_permission("agent-1", permission(id, command));
        let event =
            json!({ "agent": agent_snapshot("agent-1"), "request": permission(id, command) });
        host.run_hook("agent.permission.before", event, &OpenContext::default())
            .await
            .unwrap();
    }
    // Denied and allowed requests are answered (attributed to the plugin); `ls` stays pending.
    let state = daemon.state();
    assert_eq!(
        state.pending_permissions["agent-1"]
            .keys()
            .collect::<Vec<_>>(),
        ["p3"]
    );
    let answers: Vec<(String, Value)> = state
        .calls
        .iter()
        .filter(|c| c.method == "agents.respondToPermission")
        .map(|c| (c.plugin_id.clone(), c.args.clone()))
        .collect();
    assert_eq!(
        answers,
        [
            (
                "lifecycle-actions".to_string(),
                json!({ "agentId": "agent-1", "requestId": "p1", "response": { "behavior": "deny", "message": "Recursive deletion is blocked." } })
            ),
            (
                "lifecycle-actions".to_string(),
                json!({ "agentId": "agent-1", "requestId": "p2", "response": { "behavior": "allow" } })
            ),
        ]
    );

    // A turn that ends with "out of credits" gets one follow-up message from the plugin.
    daemon.push_timeline(
        "agent-1",
        json!({ "type": "user_message", "text": "do it" }),
    );
    daemon.push_timeline(
        "agent-1",
        json!({ "type": "assistant_message", "text": "Sorry, I am out of" }),
    );
    daemon.push_timeline(
        "agent-1",
        json!({ "type": "assistant_message", "text": " credits." }),
    );
    let ended = json!({ "agent": agent_snapshot("agent-1"), "turnId": "t1", "outcome": { "kind": "completed" }, "timeline": [] });
    host.run_hook("agent.turn.after", ended.clone(), &OpenContext::default())
        .await
        .unwrap();
    let timeline = &daemon.state().timelines["agent-1"];
    assert_eq!(
        timeline.last().unwrap(),
        &json!({ "type": "user_message", "text": "Try again.", "sentBy": { "pluginId": "lifecycle-actions" } })
    );
    // The follow-up is now the latest user message, so the next turn end sends nothing.
    host.run_hook("agent.turn.after", ended, &OpenContext::default())
        .await
        .unwrap();
    assert_eq!(
        daemon
            .state()
            .calls
            .iter()
            .filter(|c| c.method == "agents.send")
            .count(),
        1
    );

    // The before hooks of the same example: provider switch, env on create and on open, isolation.
    let created = host
        .run_hook("agent.create.before", json!({ "config": { "provider": "codex", "cwd": "/p", "providerOptions": { "x": 1 } } }), &OpenContext::default())
        .await
        .unwrap();
    assert_eq!(
        created,
        json!({ "config": { "provider": "claude", "cwd": "/p", "model": "haiku", "modeId": "default" }, "env": { "PASEO_HOOK_CREATE_EXAMPLE": "created" } })
    );
    let opened = open(&host, open_request()).await.unwrap();
    assert_eq!(opened["env"]["PASEO_HOOK_OPEN_EXAMPLE"], "opened");
    let ws = host
        .run_hook("workspace.create.before", json!({ "source": { "kind": "directory", "path": "/src/app" }, "title": "Isolated lifecycle example" }), &OpenContext::default())
        .await
        .unwrap();
    assert_eq!(
        ws["source"],
        json!({ "kind": "worktree", "cwd": "/src/app", "action": "branch-off", "branchName": "lifecycle-example" })
    );
}

#[tokio::test(flavor = "multi_thread")]
async fn paseo_api_members_reach_the_daemon_as_the_plugin() {
    let settings = tempfile::tempdir().unwrap();
    let (host, daemon) = host_with_daemon(Some(settings.path()));
    load_all(&host, &["sdk-user"]).await;
    daemon.add_agent(json!({ "id": "agent-1", "cwd": "/projects/shop", "provider": "codex" }));
    host.run_hook(
        "agent.create.after",
        json!({ "agent": agent_snapshot("agent-1") }),
        &OpenContext::default(),
    )
    .await
    .unwrap();
    assert_eq!(
        logs_after_ready(&host, "sdk-user"),
        [
            "before refresh: null",
            "after refresh: /projects/shop",
            "append 1 1",
            "agents 1",
            "Expected config.provider in \"provider/model\" format",
            "created agent-2 /x",
            "secret s3cret false api.token",
            "Invalid plugin secret key: Bad Key",
            "presence false 0",
            "paseo.providers.listModels is not implemented by this daemon",
            "config {\"theme\":\"dark\"} {\"theme\":\"dark\"}",
        ]
    );
    let state = daemon.state();
    // timeline.append is stamped with the plugin id and the same id replaces the row.
    assert_eq!(
        state.timelines["agent-1"],
        [
            json!({ "type": "plugin", "id": "note", "kind": "note", "version": 1, "data": { "n": 2 }, "pluginId": "sdk-user" })
        ]
    );
    // agents.create maps options → providerOptions and prompt → initialPrompt.
    let create = state
        .calls
        .iter()
        .find(|c| c.method == "agents.create")
        .unwrap();
    assert_eq!(
        create.args,
        json!({ "config": { "provider": "codex/gpt-5.4", "providerOptions": { "a": 1 } }, "cwd": "/x", "initialPrompt": "hello", "labels": { "notes/enabled": "true" } })
    );
    assert!(state.calls.iter().all(|c| c.plugin_id == "sdk-user"));
    // Secrets: one 0600 file in the plugin's settings directory.
    let file = settings.path().join("sdk-user/_secrets.json");
    assert_eq!(
        std::fs::read_to_string(&file).unwrap(),
        "{\n  \"api.token\": \"s3cret\"\n}"
    );
    use std::os::unix::fs::PermissionsExt;
    assert_eq!(
        std::fs::metadata(&file).unwrap().permissions().mode() & 0o777,
        0o600
    );

    // Daemon events reach subscriptions; they end when the plugin stops.
    host.run_hook(
        "agent.turn.before",
        json!({ "agent": agent_snapshot("agent-1"), "turnId": "t" }),
        &OpenContext::default(),
    )
    .await
    .unwrap();
    host.publish(
        "agent_stream:agent-1",
        json!({ "type": "timeline", "seq": 3 }),
    )
    .await;
    assert_eq!(
        logs_after_ready(&host, "sdk-user").last().unwrap(),
        "stream {\"type\":\"timeline\",\"seq\":3}"
    );
}

#[tokio::test(flavor = "multi_thread")]
async fn rpc_contracts_parse_input_and_output_with_zod() {
    let (host, _) = host_with_daemon(None);
    load_all(&host, &["with-zod"]).await;
    assert_eq!(
        host.call_rpc("with-zod", "greet.say", json!({}))
            .await
            .unwrap(),
        json!({ "text": "hi world" })
    );
    assert_eq!(
        host.call_rpc("with-zod", "greet.say", json!({ "name": "Ada" }))
            .await
            .unwrap(),
        json!({ "text": "hi Ada" })
    );
    let err = host
        .call_rpc("with-zod", "greet.say", json!({ "name": 42 }))
        .await
        .unwrap_err()
        .to_string();
    assert!(err.contains("expected string, received number"), "{err}");
    assert_eq!(
        host.call_rpc("with-zod", "greet.nope", json!({}))
            .await
            .unwrap_err()
            .to_string(),
        "Plugin with-zod does not contribute RPC greet.nope"
    );
    assert_eq!(
        host.call_rpc("nobody", "greet.say", json!({}))
            .await
            .unwrap_err()
            .to_string(),
        "Plugin is not available: nobody"
    );
    // Settings storage is unavailable without a settings directory.
    assert_eq!(
        host.call_rpc("with-zod", "settings.preferences.read", json!({}))
            .await
            .unwrap_err()
            .to_string(),
        "Plugin settings storage is unavailable"
    );
}

#[tokio::test(flavor = "multi_thread")]
async fn settings_document_updated_from_a_hook() {
    let settings = tempfile::tempdir().unwrap();
    let dir = settings.path().join("settings-counter");
    std::fs::create_dir_all(&dir).unwrap();
    // A version-1 document is migrated on first read.
    std::fs::write(
        dir.join("counter.json"),
        r#"{"version":1,"values":{"n":5}}"#,
    )
    .unwrap();
    let (host, _) = host_with_daemon(Some(settings.path()));
    load_all(&host, &["settings-counter"]).await;
    let created = json!({ "agent": agent_snapshot("a") });
    host.run_hook(
        "agent.create.after",
        created.clone(),
        &OpenContext::default(),
    )
    .await
    .unwrap();
    host.run_hook("agent.create.after", created, &OpenContext::default())
        .await
        .unwrap();
    let raw = std::fs::read_to_string(dir.join("counter.json")).unwrap();
    assert_eq!(
        raw,
        r#"{"version":2,"values":{"count":7,"label":"agents"}}"#
    );
    use std::os::unix::fs::PermissionsExt;
    assert_eq!(
        std::fs::metadata(dir.join("counter.json"))
            .unwrap()
            .permissions()
            .mode()
            & 0o777,
        0o600
    );
    assert_eq!(
        logs_after_ready(&host, "settings-counter"),
        [
            "settings changed",
            "settings changed",
            "update saved 6",
            "settings changed",
            "update saved 7"
        ]
    );

    let read = host
        .call_rpc("settings-counter", "settings.counter.read", json!({}))
        .await
        .unwrap();
    let revision = read["revision"].as_str().unwrap().to_string();
    assert_eq!(read["values"], json!({ "count": 7, "label": "agents" }));
    assert_eq!(revision.len(), 64); // sha256 of the file
    let stale = host
        .call_rpc(
            "settings-counter",
            "settings.counter.write",
            json!({ "revision": "missing", "values": { "count": 1 } }),
        )
        .await
        .unwrap();
    assert_eq!(
        stale,
        json!({ "status": "conflict", "error": "Settings changed on another client. Reload before saving again." })
    );
    let saved = host
        .call_rpc(
            "settings-counter",
            "settings.counter.write",
            json!({ "revision": revision, "values": { "count": 1 } }),
        )
        .await
        .unwrap();
    assert_eq!(saved["status"], "saved");
    let reset = host
        .call_rpc(
            "settings-counter",
            "settings.counter.reset",
            json!({ "revision": saved["revision"] }),
        )
        .await
        .unwrap();
    assert_eq!(
        reset,
        json!({ "status": "ready", "revision": "missing", "values": { "count": 0, "label": "agents" } })
    );

    // The mutator rules and their codes.
    host.run_hook(
        "agent.turn.before",
        json!({ "agent": agent_snapshot("a"), "turnId": null }),
        &OpenContext::default(),
    )
    .await
    .unwrap();
    let logs = logs_after_ready(&host, "settings-counter");
    assert_eq!(
        logs[logs.len() - 2..],
        [
            // Reading the document inside its own mutator makes the update invalid, as in
            // Paseo (`reentrant_access`), instead of committing it.
            "thenable_returned,mutator_threw,next_invalid,invalid",
            "The settings update failed before any values were saved."
        ]
    );
}

use std::path::PathBuf;

fn paseo_cli(args: &[&str]) -> (serde_json::Value, String, Option<i32>) {
    let home = tempfile::tempdir().unwrap();
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_paseo"))
        .env("PASEO_HOME", home.path())
        .args(args)
        .output()
        .unwrap();
    (
        serde_json::from_slice(&out.stdout).unwrap(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
        out.status.code(),
    )
}

#[test]
fn throwaway_host_calls_rpcs_and_prints_sdk_calls() {
    let with_zod = fixture("with-zod");
    let (out, _, code) = paseo_cli(&[
        "rpc",
        "call",
        "--plugin",
        with_zod.to_str().unwrap(),
        "with-zod",
        "greet.say",
        r#"{"name":"Ada"}"#,
    ]);
    assert_eq!(
        (out, code),
        (
            json!({ "ok": true, "output": { "text": "hi Ada" } }),
            Some(0)
        )
    );
    let (out, _, code) = paseo_cli(&[
        "rpc",
        "call",
        "--plugin",
        with_zod.to_str().unwrap(),
        "with-zod",
        "greet.nope",
    ]);
    assert_eq!(
        (out, code),
        (
            json!({ "ok": false, "error": "Plugin with-zod does not contribute RPC greet.nope" }),
            Some(1)
        )
    );

    let actions = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("examples/lifecycle-actions");
    let event = json!({ "agent": agent_snapshot("a1"), "request": { "id": "r1", "provider": "codex", "name": "shell", "kind": "tool", "input": { "command": "rm -rf build" } } });
    let (out, stderr, _) = paseo_cli(&[
        "hook",
        "run",
        "--plugin",
        actions.to_str().unwrap(),
        "agent.permission.before",
        &event.to_string(),
    ]);
    assert_eq!(out, json!({ "ok": true, "output": null }));
    assert!(
        stderr.contains(r#"[lifecycle-actions] [paseo] sdk agents.respondToPermission {"agentId":"a1","requestId":"r1","response":{"behavior":"deny","message":"Recursive deletion is blocked."}}"#),
        "{stderr}"
    );
}

#[tokio::test(flavor = "multi_thread")]
async fn data_directory_lives_next_to_the_plugin_settings() {
    let settings = tempfile::tempdir().unwrap();
    let (host, _) = host_with_daemon(Some(settings.path()));
    load_all(&host, &["data-dir"]).await;
    assert_eq!(
        open(&host, open_request()).await.unwrap()["env"]["DATA"],
        "true"
    );
    assert_eq!(
        std::fs::read_to_string(settings.path().join("data-dir/data/seen.txt")).unwrap(),
        "agent-123"
    );
    let (bare, _) = host_with_daemon(None);
    load_all(&bare, &["data-dir"]).await;
    assert_eq!(
        open(&bare, open_request()).await.unwrap()["env"]["DATA"],
        "none"
    );
}
