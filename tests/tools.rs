//! Agent tools end to end through a real plugin: attach in `agent.open.before`, list per agent,
//! call with validation in Rust and zod in the plugin, errors, cancellation, stale sessions.

mod common;

use std::time::Duration;

use common::*;
use paseo_plugin_runtime::{PluginHost, ToolError, ToolResult};
use serde_json::{json, Value};

async fn call(
    host: &PluginHost,
    agent: &str,
    name: &str,
    input: Value,
) -> Result<ToolResult, ToolError> {
    host.call_tool(agent, name, input, std::future::pending())
        .await
}

#[tokio::test(flavor = "multi_thread")]
async fn tools_attach_per_agent_and_run_in_the_plugin() {
    let dir = tempfile::tempdir().unwrap();
    let cwd = dir.path().to_str().unwrap();
    let host = host();
    load_all(&host, &["tool-kit"]).await;
    let out = open(&host, open_with_tools("agent-1", cwd)).await.unwrap();
    assert_eq!(out["tools"].as_array().unwrap().len(), 6);
    let listed: Vec<_> = host
        .agent_tools("agent-1")
        .into_iter()
        .map(|t| (t.name, t.plugin))
        .collect();
    assert_eq!(
        listed[0],
        ("append_workspace_note".to_string(), "tool-kit".to_string())
    );
    assert_eq!(
        host.agent_tools("agent-1")[0].input_schema["properties"]["note"]["minLength"],
        1
    );
    // Only the agent that got the tools sees them.
    assert!(host.agent_tools("agent-2").is_empty());
    assert_eq!(
        call(
            &host,
            "agent-2",
            "append_workspace_note",
            json!({ "note": "x" })
        )
        .await
        .unwrap_err(),
        ToolError::UnknownTool {
            agent: "agent-2".into(),
            name: "append_workspace_note".into()
        }
    );

    let notes = dir.path().join("AGENT_NOTES.md");
    let result = call(
        &host,
        "agent-1",
        "append_workspace_note",
        json!({ "note": "remember" }),
    )
    .await
    .unwrap();
    assert_eq!(
        result,
        ToolResult {
            text: Some(format!("Saved note to {}", notes.display())),
            structured_content: Some(json!({ "path": notes })),
            is_error: false
        }
    );
    assert_eq!(std::fs::read_to_string(&notes).unwrap(), "remember\n");

    // Invalid input never reaches execute.
    let invalid = call(
        &host,
        "agent-1",
        "append_workspace_note",
        json!({ "note": "" }),
    )
    .await
    .unwrap();
    assert_eq!(
        invalid,
        ToolResult::error(
            "Invalid input for tool append_workspace_note: note: \"\" is shorter than 1 character"
        )
    );
    let missing = call(&host, "agent-1", "append_workspace_note", json!({}))
        .await
        .unwrap();
    assert_eq!(
        missing,
        ToolResult::error(
            "Invalid input for tool append_workspace_note: (root): \"note\" is a required property"
        )
    );
    assert_eq!(std::fs::read_to_string(&notes).unwrap(), "remember\n");

    assert_eq!(
        call(&host, "agent-1", "throws", json!({})).await.unwrap(),
        ToolResult::error("kaboom")
    );
    assert_eq!(
        call(&host, "agent-1", "bad_content", json!({})).await.unwrap(),
        ToolResult::error("Tool bad_content returned structuredContent that is not JSON: structuredContent.when is a Date")
    );
    assert_eq!(
        call(&host, "agent-1", "structured", json!({}))
            .await
            .unwrap(),
        ToolResult {
            text: Some("{\n  \"a\": 1\n}".into()),
            structured_content: Some(json!({ "a": 1 })),
            is_error: false
        }
    );
    // zod defaults and transforms apply inside the plugin; the plugin survived the throw.
    assert_eq!(
        call(&host, "agent-1", "defaults", json!({}))
            .await
            .unwrap()
            .text
            .as_deref(),
        Some("XXX")
    );
    assert_eq!(
        call(
            &host,
            "agent-1",
            "defaults",
            json!({ "count": 2, "word": "ab" })
        )
        .await
        .unwrap()
        .text
        .as_deref(),
        Some("ABAB")
    );
}

#[tokio::test(flavor = "multi_thread")]
async fn cancelling_a_call_aborts_its_signal_and_drops_the_result() {
    let host = host();
    load_all(&host, &["tool-kit"]).await;
    open(&host, open_with_tools("agent-1", "/tmp"))
        .await
        .unwrap();
    let outcome = host
        .call_tool(
            "agent-1",
            "slow",
            json!({}),
            tokio::time::sleep(Duration::from_millis(100)),
        )
        .await;
    assert_eq!(outcome, Err(ToolError::Cancelled));
    // The abort reaches the plugin's listener soon after (a busy machine may take a while).
    let aborted = "tool signal aborted: The call was cancelled".to_string();
    let since = std::time::Instant::now();
    while !log_lines(&host, "tool-kit").contains(&aborted)
        && since.elapsed() < Duration::from_secs(5)
    {
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    assert!(
        log_lines(&host, "tool-kit").contains(&aborted),
        "{:?}",
        log_lines(&host, "tool-kit")
    );
    // The plugin still answers.
    assert_eq!(
        call(&host, "agent-1", "defaults", json!({}))
            .await
            .unwrap()
            .text
            .as_deref(),
        Some("XXX")
    );
}

#[tokio::test(flavor = "multi_thread")]
async fn sessions_go_stale_on_reload_and_closing_removes_tools() {
    let host = host();
    load_all(&host, &["tool-kit", "env-inject"]).await;
    open(&host, open_with_tools("agent-1", "/tmp"))
        .await
        .unwrap();
    let mut history = open_with_tools("agent-2", "/tmp");
    history["purpose"] = json!("history");
    let out = open(&host, history).await.unwrap();
    assert_eq!(out["tools"], json!([]));
    assert!(host.agent_tools("agent-2").is_empty());
    assert!(host.stale_sessions().is_empty());
    host.reload("tool-kit").await.unwrap();
    assert_eq!(host.stale_sessions(), ["agent-1"]);
    // Reopening (reason "refresh") replaces the definitions and clears the mark.
    let mut refresh = open_with_tools("agent-1", "/tmp");
    refresh["reason"] = json!("refresh");
    open(&host, refresh).await.unwrap();
    assert!(host.stale_sessions().is_empty());
    assert_eq!(
        call(&host, "agent-1", "defaults", json!({}))
            .await
            .unwrap()
            .text
            .as_deref(),
        Some("XXX")
    );
    host.close_session("agent-1").await;
    assert!(host.agent_tools("agent-1").is_empty());
    assert!(matches!(
        call(&host, "agent-1", "defaults", json!({})).await,
        Err(ToolError::UnknownTool { .. })
    ));
}

#[test]
fn seed_example_works_through_paseo_tool_call() {
    let cwd = tempfile::tempdir().unwrap();
    let home = tempfile::tempdir().unwrap();
    let example = std::path::PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("examples/agent-tools");
    let run = |args: &[&str]| {
        let out = std::process::Command::new(env!("CARGO_BIN_EXE_paseo"))
            .current_dir(cwd.path())
            .env("PASEO_HOME", home.path())
            .args(args)
            .output()
            .unwrap();
        serde_json::from_slice::<Value>(&out.stdout).unwrap()
    };
    let agent = r#"{"labels":{"notes/enabled":"true"}}"#;
    let listed = run(&[
        "tool",
        "list",
        "--plugin",
        example.to_str().unwrap(),
        "--agent",
        agent,
    ]);
    assert_eq!(listed["output"][0]["name"], "append_workspace_note");
    assert_eq!(
        run(&["tool", "list", "--plugin", example.to_str().unwrap()]),
        json!({ "ok": true, "output": [] })
    );
    let notes = cwd.path().canonicalize().unwrap().join("AGENT_NOTES.md");
    let called = run(&[
        "tool",
        "call",
        "--plugin",
        example.to_str().unwrap(),
        "--agent",
        agent,
        "append_workspace_note",
        r#"{"note":"from the cli"}"#,
    ]);
    assert_eq!(
        called,
        json!({ "ok": true, "output": { "text": format!("Saved note to {}", notes.display()), "structuredContent": { "path": notes } } })
    );
    assert_eq!(std::fs::read_to_string(&notes).unwrap(), "from the cli\n");
}
