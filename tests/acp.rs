//! `runAcpProvider` (`@getpaseo/plugin/server/acp`) through `PluginHost`: the acp-provider
//! fixture turns tests/fixtures/acp-provider/fake-agent.mjs, an ACP agent run by real Node,
//! into provider "fake-acp"; its events are checked in order, with permissions, interrupts, a
//! crash, and the agent process ending when the session or the connection closes.

mod common;

use std::path::Path;
use std::time::Duration;

use common::*;
use paseo_plugin_runtime::{PluginHost, ProviderConnection, ProviderEvent};
use serde_json::{json, Value};

async fn next(conn: &mut ProviderConnection) -> Value {
    match tokio::time::timeout(Duration::from_secs(15), conn.events.next()).await {
        Ok(Some(ProviderEvent::Event(e))) => e,
        other => panic!("expected an event, got {other:?}"),
    }
}

/// Events up to and including the first that `last` accepts.
async fn until(conn: &mut ProviderConnection, last: impl Fn(&Value) -> bool) -> Vec<Value> {
    let mut seen = Vec::new();
    loop {
        let event = next(conn).await;
        let done = last(&event);
        seen.push(event);
        if done {
            return seen;
        }
    }
}

fn turn_ended(e: &Value) -> bool {
    e["type"] == "session.turn" && e["state"] != "started"
}

/// One line per event: its type and what matters about it.
fn summary(events: &[Value]) -> Vec<String> {
    events
        .iter()
        .map(|e| {
            let kind = e["type"].as_str().unwrap();
            match kind {
                "timeline.item" => {
                    let item = &e["item"];
                    match item["type"].as_str().unwrap() {
                        "tool_call" => format!(
                            "tool_call {} {} {}",
                            item["id"].as_str().unwrap(),
                            item["status"].as_str().unwrap(),
                            item["detail"]["type"].as_str().unwrap()
                        ),
                        "todo" => format!("todo {}", item["items"].as_array().unwrap().len()),
                        other => format!("{other} {}", item["text"].as_str().unwrap()),
                    }
                }
                "session.turn" => format!("turn {}", e["state"].as_str().unwrap()),
                "session.prompt_result" => {
                    format!("prompt_result {}", e["result"]["type"].as_str().unwrap())
                }
                _ => kind.to_string(),
            }
        })
        .collect()
}

fn open_input(session: &str, env: Value) -> Value {
    json!({ "type": "session.open", "requestId": format!("open-{session}"), "sessionId": session, "history": "skip",
        "config": { "cwd": "/tmp", "env": env, "settings": {}, "persist": false, "title": "Fake",
            "mcpServers": {
                "files": { "type": "stdio", "command": "mcp-files", "args": ["--root", "/tmp"], "env": { "TOKEN": "t" } },
                "web": { "type": "http", "url": "https://mcp.example/x", "headers": { "Authorization": "Bearer b" } },
                "old": { "type": "sse", "url": "https://mcp.example/sse" }
            } } })
}

fn prompt(session: &str, id: &str, text: &str) -> Value {
    json!({ "type": "session.prompt", "sessionId": session, "prompt": { "clientMessageId": id, "delivery": "auto",
        "input": { "type": "message", "content": [{ "type": "text", "text": text }] } } })
}

async fn host_with(fixture_name: &str) -> PluginHost {
    let host = host();
    load_all(&host, &[fixture_name]).await;
    host
}

/// Connects to `provider` and opens session `s1`; returns the connection and the open events.
async fn open_session(
    host: &PluginHost,
    provider: &str,
    env: Value,
) -> (ProviderConnection, Vec<Value>) {
    let mut conn = host.connect_provider(provider).await.unwrap();
    conn.handle.send(open_input("s1", env)).await.unwrap();
    let events = until(&mut conn, |e| {
        e["type"] == "request.completed" || e["type"] == "request.failed"
    })
    .await;
    (conn, events)
}

fn pid_file(dir: &Path) -> (std::path::PathBuf, Value) {
    let path = dir.join("agent.pid");
    let env =
        json!({ "FAKE_ACP_PID_FILE": path.to_str().unwrap(), "FAKE_ACP_SESSION": "from-session" });
    (path, env)
}

fn read_pid(path: &Path) -> u32 {
    std::fs::read_to_string(path)
        .unwrap()
        .trim()
        .parse()
        .unwrap()
}

/// Whether process `pid` still runs (a zombie does not count).
fn alive(pid: u32) -> bool {
    match std::fs::read_to_string(format!("/proc/{pid}/stat")) {
        Ok(stat) => {
            let state = stat.rsplit(')').next().unwrap_or("").trim_start();
            !state.starts_with('Z') && !state.starts_with('X')
        }
        Err(_) => false,
    }
}

#[tokio::test]
async fn a_session_opens_and_a_prompt_streams_the_agents_chunks_in_order() {
    let host = host_with("acp-provider").await;
    let info = host.plugin("acp-provider").unwrap();
    let ids: Vec<&str> = info
        .registrations
        .providers
        .iter()
        .map(|p| p.id.as_str())
        .collect();
    assert_eq!(ids, ["fake-acp", "missing-acp", "sdk-acp"]);
    assert_eq!(
        info.registrations.providers[0].description.as_deref(),
        Some("A fake ACP agent")
    );
    // Options runAcpProvider refuses, with Paseo's messages.
    let refused: Vec<String> = log_lines(&host, "acp-provider")
        .into_iter()
        .filter(|l| l.starts_with("refused: ") || l == "accepted")
        .collect();
    assert_eq!(
        refused,
        [
            "refused: ACP provider requires exactly one command or SDK connector",
            "refused: ACP provider requires exactly one command or SDK connector",
            "refused: ACP provider command must contain an executable",
            "refused: ACP provider command must contain an executable",
        ]
    );

    let dir = tempfile::tempdir().unwrap();
    let (pid_path, env) = pid_file(dir.path());
    let (mut conn, opened) = open_session(&host, "fake-acp", env).await;
    assert_eq!(conn.version, 1);
    assert_eq!(
        conn.capabilities,
        ["prompt.message", "prompt.command", "permission"]
    );
    assert_eq!(
        summary(&opened),
        [
            "session.opened",
            "session.config",
            "session.commands",
            "session.ready",
            "request.completed"
        ]
    );
    assert_eq!(
        opened[0],
        json!({ "type": "session.opened", "requestId": "open-s1", "sessionId": "s1", "restoration": "core",
            "capabilities": ["prompt.message", "prompt.command", "permission"], "title": "Fake", "cwd": "/tmp" })
    );
    assert_eq!(
        opened[1]["config"],
        json!({ "model": "fast", "mode": "ask",
            "models": [{ "id": "fast", "label": "Fast" }, { "id": "smart", "label": "Smart" }],
            "modes": [{ "id": "ask", "label": "Ask" }, { "id": "code", "label": "Code", "description": "Writes code" }],
            "thinkingOptions": [], "settings": [] })
    );
    assert_eq!(
        opened[2]["commands"],
        json!([{ "name": "review", "description": "Review the changes", "argumentHint": "what to review" }])
    );
    assert!(alive(read_pid(&pid_path)));

    conn.handle
        .send(prompt("s1", "m1", "hello there"))
        .await
        .unwrap();
    let events = until(&mut conn, turn_ended).await;
    assert_eq!(
        summary(&events),
        [
            "user_message hello there",
            "prompt_result turn",
            "turn started",
            "assistant_message echo: ",
            "assistant_message echo: hello there",
            "session.usage",
            "turn completed"
        ]
    );
    let turn = events[1]["result"]["turnId"].clone();
    assert_eq!(events[2]["turnId"], turn);
    assert_eq!(events[6]["turnId"], turn);
    assert_eq!(events[0]["item"]["clientMessageId"], "m1");
    // Both chunks are one message: the second event replaces the first.
    assert_eq!(events[3]["item"]["id"], events[4]["item"]["id"]);
    assert_eq!(
        events[5],
        json!({ "type": "session.usage", "sessionId": "s1", "turnId": turn, "usage": { "inputTokens": 11, "outputTokens": 2 } })
    );

    // What session/new and the environment carried to the agent: ACP's shapes, the http server
    // (the agent takes http) but not the sse one.
    conn.handle
        .send(prompt("s1", "m2", "config"))
        .await
        .unwrap();
    let events = until(&mut conn, turn_ended).await;
    let answer = events
        .iter()
        .find(|e| e["item"]["type"] == "assistant_message")
        .unwrap();
    let seen: Value = serde_json::from_str(answer["item"]["text"].as_str().unwrap()).unwrap();
    assert_eq!(
        seen,
        json!({ "cwd": "/tmp", "flavour": "vanilla", "session": "from-session", "mcpServers": [
            { "name": "files", "command": "mcp-files", "args": ["--root", "/tmp"], "env": [{ "name": "TOKEN", "value": "t" }] },
            { "type": "http", "name": "web", "url": "https://mcp.example/x", "headers": [{ "name": "Authorization", "value": "Bearer b" }] }
        ] })
    );
    assert!(
        log_lines(&host, "acp-provider")
            .iter()
            .any(|l| l.contains("does not take sse MCP servers; old is left out")),
        "{:?}",
        log_lines(&host, "acp-provider")
    );
    conn.handle.close().await.unwrap();
}

#[tokio::test]
async fn tool_calls_plans_thoughts_and_vendor_notifications_become_paseo_events() {
    let host = host_with("acp-provider").await;
    let (mut conn, _) = open_session(&host, "fake-acp", json!({})).await;
    conn.handle.send(prompt("s1", "m1", "tools")).await.unwrap();
    let events = until(&mut conn, turn_ended).await;
    assert_eq!(
        summary(&events),
        [
            "user_message tools",
            "prompt_result turn",
            "turn started",
            "todo 2",
            "reasoning thinking",
            "tool_call read-1 running read",
            "tool_call read-1 completed read",
            "tool_call edit-1 running edit",
            "assistant_message done",
            // A tool call still running when the turn ends is settled with it.
            "tool_call edit-1 completed edit",
            "turn completed"
        ]
    );
    assert_eq!(
        events[3]["item"]["items"],
        json!([{ "id": "0", "text": "Look", "completed": true, "status": "completed" },
            { "id": "1", "text": "Answer", "completed": false, "status": "in_progress" }])
    );
    assert_eq!(
        events[6]["item"]["detail"],
        json!({ "type": "read", "filePath": "/tmp/notes.md", "content": "# notes" })
    );
    assert_eq!(events[6]["item"]["name"], "Read notes.md");
    assert_eq!(
        events[7]["item"]["detail"],
        json!({ "type": "edit", "filePath": "/tmp/notes.md", "oldString": "a", "newString": "b" })
    );

    conn.handle
        .send(prompt("s1", "m2", "notice"))
        .await
        .unwrap();
    let events = until(&mut conn, turn_ended).await;
    let notice = events
        .iter()
        .find(|e| e["type"] == "session.notice")
        .unwrap();
    assert_eq!(
        notice["notice"],
        json!({ "id": "notice-s1", "severity": "info", "title": "Heads up" })
    );
    conn.handle.close().await.unwrap();
}

#[tokio::test]
async fn permission_requests_round_trip_to_the_agent() {
    let host = host_with("acp-provider").await;
    let (mut conn, _) = open_session(&host, "fake-acp", json!({})).await;
    conn.handle
        .send(prompt("s1", "m1", "ask rm -rf build"))
        .await
        .unwrap();
    let events = until(&mut conn, |e| e["type"] == "session.permission").await;
    assert_eq!(
        summary(&events),
        [
            "user_message ask rm -rf build",
            "prompt_result turn",
            "turn started",
            "tool_call call-1 running shell",
            "session.permission"
        ]
    );
    assert_eq!(
        events[3]["item"]["detail"],
        json!({ "type": "shell", "command": "rm -rf build" })
    );
    let request = &events[4]["request"];
    assert_eq!(
        *request,
        json!({ "id": "permission:call-1", "name": "Run rm -rf build", "kind": "tool", "title": "Run rm -rf build",
            "input": { "command": "rm -rf build" }, "detail": { "type": "shell", "command": "rm -rf build" },
            "actions": [
                { "id": "allow", "label": "Allow", "behavior": "allow" },
                { "id": "always", "label": "Always allow", "behavior": "allow" },
                { "id": "reject", "label": "Reject", "behavior": "deny" }
            ] })
    );
    conn.handle
        .send(json!({ "type": "session.permission", "sessionId": "s1", "permissionId": "permission:call-1",
            "response": { "behavior": "allow", "selectedActionId": "always" } }))
        .await
        .unwrap();
    let events = until(&mut conn, turn_ended).await;
    assert_eq!(
        summary(&events),
        [
            "session.permission_resolved",
            "tool_call call-1 completed shell",
            "assistant_message ran rm -rf build (always)",
            "turn completed"
        ]
    );
    assert_eq!(
        events[1]["item"]["detail"],
        json!({ "type": "shell", "command": "rm -rf build", "output": "ran rm -rf build", "exitCode": 0 })
    );

    // A deny without an action picks the agent's reject option; the tool call fails.
    conn.handle
        .send(prompt("s1", "m2", "ask make"))
        .await
        .unwrap();
    until(&mut conn, |e| e["type"] == "session.permission").await;
    conn.handle
        .send(json!({ "type": "session.permission", "sessionId": "s1", "permissionId": "permission:call-1",
            "response": { "behavior": "deny", "message": "no" } }))
        .await
        .unwrap();
    let events = until(&mut conn, turn_ended).await;
    assert_eq!(
        summary(&events),
        [
            "session.permission_resolved",
            "tool_call call-1 failed shell",
            "assistant_message not allowed: make",
            "turn completed"
        ]
    );
    assert_eq!(events[1]["item"]["error"], json!({ "reason": "rejected" }));
    // An answer to a permission nobody asks for is refused.
    let err = conn
        .handle
        .send(json!({ "type": "session.permission", "sessionId": "s1", "permissionId": "permission:call-1",
            "response": { "behavior": "allow" } }))
        .await
        .unwrap_err()
        .to_string();
    assert!(
        err.ends_with("Unknown ACP permission: permission:call-1"),
        "{err}"
    );
    conn.handle.close().await.unwrap();
}

#[tokio::test]
async fn an_interrupt_cancels_the_turn_and_pending_permissions() {
    let host = host_with("acp-provider").await;
    let (mut conn, _) = open_session(&host, "fake-acp", json!({})).await;
    conn.handle.send(prompt("s1", "m1", "hang")).await.unwrap();
    until(&mut conn, |e| e["type"] == "session.turn").await;
    conn.handle
        .send(json!({ "type": "session.interrupt", "requestId": "i1", "sessionId": "s1" }))
        .await
        .unwrap();
    let events = until(&mut conn, turn_ended).await;
    assert_eq!(summary(&events), ["request.completed", "turn canceled"]);
    assert_eq!(events[0]["requestId"], "i1");

    // Interrupted while it waits for a permission: the permission is withdrawn ("cancelled"),
    // the running tool call is canceled with the turn.
    conn.handle
        .send(prompt("s1", "m2", "ask deploy"))
        .await
        .unwrap();
    until(&mut conn, |e| e["type"] == "session.permission").await;
    conn.handle
        .send(json!({ "type": "session.interrupt", "requestId": "i2", "sessionId": "s1" }))
        .await
        .unwrap();
    let events = until(&mut conn, turn_ended).await;
    assert_eq!(
        summary(&events),
        [
            "session.permission_resolved",
            "request.completed",
            "tool_call call-1 canceled shell",
            "turn canceled"
        ]
    );

    // The session still works afterwards.
    conn.handle.send(prompt("s1", "m3", "again")).await.unwrap();
    let events = until(&mut conn, turn_ended).await;
    assert_eq!(events.last().unwrap()["state"], "completed");
    conn.handle.close().await.unwrap();
}

#[tokio::test]
async fn a_crashing_agent_fails_the_turn_and_the_session_naming_the_command() {
    let host = host_with("acp-provider").await;
    let (mut conn, _) = open_session(&host, "fake-acp", json!({})).await;
    conn.handle.send(prompt("s1", "m1", "crash")).await.unwrap();
    let events = until(&mut conn, |e| e["type"] == "session.runtime_failed").await;
    assert_eq!(
        summary(&events),
        [
            "user_message crash",
            "prompt_result turn",
            "turn started",
            "turn failed",
            "session.runtime_failed"
        ]
    );
    let agent = fixture("acp-provider").join("fake-agent.mjs");
    let message = format!(
        "ACP agent `node {}` exited with code 3: fake agent crashed",
        agent.display()
    );
    assert_eq!(events[3]["error"]["message"], message);
    assert_eq!(
        events[4],
        json!({ "type": "session.runtime_failed", "sessionId": "s1", "error": { "message": message } })
    );
    // Later prompts fail with the same message; the connection itself carries on.
    conn.handle.send(prompt("s1", "m2", "hello")).await.unwrap();
    let failed = next(&mut conn).await;
    assert_eq!(
        failed,
        json!({ "type": "session.prompt_result", "sessionId": "s1", "clientMessageId": "m2",
            "result": { "type": "failed", "error": { "message": message } } })
    );
    conn.handle.send(open_input("s2", json!({}))).await.unwrap();
    let events = until(&mut conn, |e| e["type"] == "request.completed").await;
    assert_eq!(events[0]["sessionId"], "s2");
    conn.handle.close().await.unwrap();
}

#[tokio::test]
async fn a_command_that_cannot_start_fails_the_open_naming_it() {
    let host = host_with("acp-provider").await;
    let (conn, events) = open_session(&host, "missing-acp", json!({})).await;
    assert_eq!(
        events,
        [
            json!({ "type": "request.failed", "requestId": "open-s1", "error": {
            "message": "ACP agent `/nonexistent/acp-agent --acp` could not start: spawn /nonexistent/acp-agent ENOENT" } })
        ]
    );
    let err = conn
        .handle
        .send(prompt("s1", "m1", "x"))
        .await
        .unwrap_err()
        .to_string();
    assert!(err.ends_with("Unknown session: s1"), "{err}");
    conn.handle.close().await.unwrap();
}

#[tokio::test]
async fn an_agent_that_exits_or_stays_silent_at_startup_fails_the_open() {
    let host = host_with("acp-provider").await;
    let agent = fixture("acp-provider").join("fake-agent.mjs");
    let (conn, events) = open_session(&host, "fake-acp", json!({ "FAKE_ACP_START": "exit" })).await;
    assert_eq!(
        events[0]["error"]["message"],
        format!(
            "ACP agent `node {}` exited with code 2: no API key",
            agent.display()
        )
    );
    conn.handle.close().await.unwrap();

    // startupTimeoutMs is 5 s in the fixture; the silent agent is ended after it.
    let dir = tempfile::tempdir().unwrap();
    let (pid_path, mut env) = pid_file(dir.path());
    env["FAKE_ACP_START"] = json!("silent");
    let (conn, events) = open_session(&host, "fake-acp", env).await;
    assert_eq!(
        events,
        [
            json!({ "type": "request.failed", "requestId": "open-s1", "error": { "message": format!(
            "ACP agent `node {}` did not answer initialize within 5000 ms",
            agent.display()
        ) } })
        ]
    );
    let pid = read_pid(&pid_path);
    assert!(settle(|| !alive(pid)), "the silent agent {pid} still runs");
    conn.handle.close().await.unwrap();
}

#[tokio::test]
async fn closing_the_session_or_the_connection_ends_the_agent_process() {
    let host = host_with("acp-provider").await;
    let dir = tempfile::tempdir().unwrap();

    let (pid_path, env) = pid_file(dir.path());
    let (mut conn, _) = open_session(&host, "fake-acp", env).await;
    let pid = read_pid(&pid_path);
    assert!(alive(pid));
    conn.handle
        .send(json!({ "type": "session.close", "requestId": "c1", "sessionId": "s1" }))
        .await
        .unwrap();
    let events = until(&mut conn, |e| e["type"] == "request.completed").await;
    assert_eq!(summary(&events), ["session.closed", "request.completed"]);
    assert!(settle(|| !alive(pid)), "the agent {pid} still runs");
    conn.handle.close().await.unwrap();

    std::fs::remove_file(&pid_path).unwrap();
    let (pid_path, env) = pid_file(dir.path());
    let (mut conn, _) = open_session(&host, "fake-acp", env).await;
    let pid = read_pid(&pid_path);
    assert!(alive(pid));
    // Mid-turn: nothing is reported once the connection is closed.
    conn.handle.send(prompt("s1", "m1", "hang")).await.unwrap();
    until(&mut conn, |e| e["type"] == "session.turn").await;
    conn.handle.close().await.unwrap();
    assert!(!alive(pid), "the agent {pid} still runs after close()");

    // Stopping the plugin closes its connections, and so their agents.
    std::fs::remove_file(&pid_path).unwrap();
    let (pid_path, env) = pid_file(dir.path());
    let (_conn, _) = open_session(&host, "fake-acp", env).await;
    let pid = read_pid(&pid_path);
    host.stop("acp-provider").await.unwrap();
    assert!(
        settle(|| !alive(pid)),
        "the agent {pid} outlived the plugin"
    );
}

#[tokio::test]
async fn a_catalog_comes_from_the_agents_session_and_an_sdk_connector_works_in_process() {
    let host = host_with("acp-provider").await;
    let mut conn = host.connect_provider("fake-acp").await.unwrap();
    conn.handle
        .send(json!({ "type": "catalog", "requestId": "k1", "cwd": "/tmp" }))
        .await
        .unwrap();
    assert_eq!(
        next(&mut conn).await,
        json!({ "type": "catalog", "requestId": "k1", "catalog": {
            "models": [{ "id": "fast", "label": "Fast" }, { "id": "smart", "label": "Smart" }],
            "modes": [{ "id": "ask", "label": "Ask" }, { "id": "code", "label": "Code", "description": "Writes code" }],
            "thinkingOptions": [], "defaultModel": "fast", "defaultMode": "ask" } })
    );
    conn.handle.close().await.unwrap();

    let (mut conn, opened) = open_session(&host, "sdk-acp", json!({})).await;
    assert_eq!(
        summary(&opened),
        ["session.opened", "session.ready", "request.completed"]
    );
    conn.handle.send(prompt("s1", "m1", "hi")).await.unwrap();
    let events = until(&mut conn, turn_ended).await;
    assert_eq!(
        summary(&events),
        [
            "user_message hi",
            "prompt_result turn",
            "turn started",
            "assistant_message in-process: hi",
            "turn completed"
        ]
    );
    conn.handle.close().await.unwrap();
}

/// A `toolCall` transformer that describes an edit through its input
/// (`{ filePath, oldString, newString }`) yields Paseo's edit detail with both texts.
#[tokio::test]
async fn an_edit_described_by_a_transformers_input_carries_its_texts() {
    let host = host_with("acp-provider").await;
    let (mut conn, _) = open_session(&host, "fake-acp", json!({})).await;
    conn.handle.send(prompt("s1", "m1", "patch")).await.unwrap();
    let events = until(&mut conn, turn_ended).await;
    let item = events
        .iter()
        .find(|e| e["item"]["id"] == "patch-1")
        .unwrap_or_else(|| panic!("no patch-1 item in {events:?}"));
    assert_eq!(
        item["item"]["detail"],
        json!({ "type": "edit", "filePath": "/tmp/notes.md", "oldString": "x", "newString": "y" })
    );
    conn.handle.close().await.unwrap();
}
