//! Plugin tools over MCP (Streamable HTTP on loopback) with rmcp's own client: listing per agent
//! at request time, calls with their text / structured content / isError, unknown tools, and
//! cancellation reaching the plugin's `signal` (dropped call, closed client, 2026 stateless mode).
//! Every client authenticates with its agent's grant (tests/mcp_auth.rs covers the refusals).

mod common;

use std::sync::Arc;
use std::time::Duration;

use common::*;
use paseo_plugin_runtime::tools::mcp::{AgentSecret, McpServer};
use paseo_plugin_runtime::PluginHost;
use rmcp::model::{
    CallToolRequestParams, CallToolResult, ClientConfig, ContentBlock, ErrorCode, ProtocolVersion,
};
use rmcp::service::{ClientLifecycleMode, ClientServiceExt, RoleClient, RunningService};
use rmcp::transport::streamable_http_client::StreamableHttpClientTransportConfig;
use rmcp::transport::StreamableHttpClientTransport;
use rmcp::{ServiceError, ServiceExt};
use serde_json::{json, Value};

const ABORTED: &str = "tool signal aborted: The call was cancelled";
/// Long enough for a `slow` call to be running in the plugin.
const STARTED: Duration = Duration::from_millis(300);

async fn setup(cwd: &str) -> (Arc<PluginHost>, McpServer, AgentSecret) {
    let host = Arc::new(host());
    load_all(&host, &["tool-kit"]).await;
    open(&host, open_with_tools("agent-1", cwd)).await.unwrap();
    let server = McpServer::start(host.clone(), "127.0.0.1:0".parse().unwrap())
        .await
        .unwrap();
    let secret = server.grant("agent-1").unwrap();
    (host, server, secret)
}

fn authenticated(url: String, secret: &AgentSecret) -> StreamableHttpClientTransportConfig {
    StreamableHttpClientTransportConfig::with_uri(url).auth_header(secret.expose())
}

/// The default rmcp client: `initialize` handshake, a session per client.
async fn connect(url: String, secret: &AgentSecret) -> RunningService<RoleClient, ()> {
    ().serve(StreamableHttpClientTransport::from_config(authenticated(
        url, secret,
    )))
    .await
    .unwrap()
}

async fn call(
    client: &RunningService<RoleClient, ()>,
    name: &'static str,
    input: Value,
) -> Result<CallToolResult, ServiceError> {
    let Value::Object(arguments) = input else {
        panic!("input must be an object")
    };
    client
        .call_tool(CallToolRequestParams::new(name).with_arguments(arguments))
        .await
}

fn text(result: &CallToolResult) -> Vec<&str> {
    result
        .content
        .iter()
        .map(|c| match c {
            ContentBlock::Text(t) => t.text.as_str(),
            other => panic!("not text: {other:?}"),
        })
        .collect()
}

async fn tool_names(client: &RunningService<RoleClient, ()>) -> Vec<String> {
    client
        .list_all_tools()
        .await
        .unwrap()
        .into_iter()
        .map(|t| t.name.to_string())
        .collect()
}

/// Waits (briefly) until the plugin has logged `line` `times` times.
async fn wait_for_log(host: &PluginHost, line: &str, times: usize) {
    for _ in 0..100 {
        if log_lines(host, "tool-kit")
            .iter()
            .filter(|l| *l == line)
            .count()
            >= times
        {
            return;
        }
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    panic!(
        "plugin did not log {line:?} {times} time(s): {:?}",
        log_lines(host, "tool-kit")
    );
}

#[tokio::test(flavor = "multi_thread")]
async fn agent_tools_are_listed_and_called_over_mcp() {
    let dir = tempfile::tempdir().unwrap();
    let (host, server, secret) = setup(dir.path().to_str().unwrap()).await;
    assert_eq!(
        server.agent_url("agent-1"),
        format!("http://{}/agents/agent-1/mcp", server.local_addr())
    );
    assert_eq!(
        server.agent_url("a/b c"),
        format!("http://{}/agents/a%2Fb%20c/mcp", server.local_addr())
    );

    let client = connect(server.agent_url("agent-1"), &secret).await;
    assert_eq!(
        client
            .peer_info()
            .unwrap()
            .server_info
            .as_ref()
            .unwrap()
            .name,
        "paseo-plugin-tools"
    );
    let tools = client.list_all_tools().await.unwrap();
    let names: Vec<&str> = tools.iter().map(|t| t.name.as_ref()).collect();
    assert_eq!(
        names,
        [
            "append_workspace_note",
            "throws",
            "bad_content",
            "structured",
            "defaults",
            "slow"
        ]
    );
    let note = &tools[0];
    assert_eq!(
        note.description.as_deref(),
        Some("Append a note to AGENT_NOTES.md in this agent's working directory.")
    );
    assert_eq!(note.title, None);
    // The plugin's JSON Schema, as is.
    assert_eq!(
        Value::Object((*note.input_schema).clone()),
        host.agent_tools("agent-1")[0].input_schema
    );
    assert_eq!(
        note.input_schema["properties"]["note"],
        json!({ "type": "string", "minLength": 1, "description": "Note to append" })
    );
    assert_eq!(note.input_schema["required"], json!(["note"]));

    let notes = dir.path().join("AGENT_NOTES.md");
    let saved = call(
        &client,
        "append_workspace_note",
        json!({ "note": "via mcp" }),
    )
    .await
    .unwrap();
    assert_eq!(text(&saved), [format!("Saved note to {}", notes.display())]);
    assert_eq!(saved.structured_content, Some(json!({ "path": notes })));
    assert_eq!(saved.is_error, Some(false));
    assert_eq!(std::fs::read_to_string(&notes).unwrap(), "via mcp\n");

    // Tool errors are isError results the model can read.
    let invalid = call(&client, "append_workspace_note", json!({ "note": "" }))
        .await
        .unwrap();
    assert_eq!(
        text(&invalid),
        ["Invalid input for tool append_workspace_note: note: \"\" is shorter than 1 character"]
    );
    assert_eq!(
        (invalid.is_error, invalid.structured_content),
        (Some(true), None)
    );
    assert_eq!(std::fs::read_to_string(&notes).unwrap(), "via mcp\n");
    let thrown = call(&client, "throws", json!({})).await.unwrap();
    assert_eq!(
        (text(&thrown), thrown.is_error),
        (vec!["kaboom"], Some(true))
    );
    let structured = call(&client, "structured", json!({})).await.unwrap();
    assert_eq!(text(&structured), ["{\n  \"a\": 1\n}"]);
    assert_eq!(structured.structured_content, Some(json!({ "a": 1 })));
    // No arguments at all is the empty object (zod defaults apply in the plugin).
    let defaults = client
        .call_tool(CallToolRequestParams::new("defaults"))
        .await
        .unwrap();
    assert_eq!(text(&defaults), ["XXX"]);

    // An unknown tool is a JSON-RPC invalid-params error.
    match call(&client, "nope", json!({})).await {
        Err(ServiceError::McpError(e)) => {
            assert_eq!(
                (e.code, e.message.as_ref()),
                (
                    ErrorCode::INVALID_PARAMS,
                    "Agent agent-1 has no tool named nope"
                )
            );
        }
        other => panic!("expected an MCP error, got {other:?}"),
    }

    // Another agent's URL shows only its own tools, read at request time.
    let other = connect(
        server.agent_url("agent-2"),
        &server.grant("agent-2").unwrap(),
    )
    .await;
    assert!(tool_names(&other).await.is_empty());
    match call(&other, "append_workspace_note", json!({ "note": "x" })).await {
        Err(ServiceError::McpError(e)) => assert_eq!(
            e.message,
            "Agent agent-2 has no tool named append_workspace_note"
        ),
        other => panic!("expected an MCP error, got {other:?}"),
    }
    open(&host, open_with_tools("agent-2", "/tmp"))
        .await
        .unwrap();
    assert_eq!(tool_names(&other).await.len(), 6);
    host.close_session("agent-1").await;
    assert!(tool_names(&client).await.is_empty());

    client.cancel().await.unwrap();
    other.cancel().await.unwrap();
    server.shutdown().await;
}

#[tokio::test(flavor = "multi_thread")]
async fn cancelled_mcp_calls_abort_the_tool_signal() {
    let (host, server, secret) = setup("/tmp").await;
    let client = connect(server.agent_url("agent-1"), &secret).await;

    // Dropping the call future sends notifications/cancelled.
    let dropped = tokio::time::timeout(STARTED, call(&client, "slow", json!({}))).await;
    assert!(dropped.is_err(), "slow returned: {dropped:?}");
    wait_for_log(&host, ABORTED, 1).await;
    // The session and the plugin carry on.
    assert_eq!(
        text(&call(&client, "defaults", json!({})).await.unwrap()),
        ["XXX"]
    );

    // Closing the client ends its session, which cancels what is in flight.
    let peer = client.peer().clone();
    let in_flight =
        tokio::spawn(async move { peer.call_tool(CallToolRequestParams::new("slow")).await });
    wait_for_log(&host, "slow tool started", 2).await;
    let started = std::time::Instant::now();
    client.cancel().await.unwrap();
    wait_for_log(&host, ABORTED, 2).await;
    // Cancelling takes milliseconds; 2 s is a margin for a loaded CI machine, far below the
    // call's own lifetime (it never ends by itself).
    assert!(
        started.elapsed() < Duration::from_secs(2),
        "closing took {:?}",
        started.elapsed()
    );
    assert!(in_flight.await.unwrap().is_err());

    // Shutting the server down cancels the calls still running.
    let client = connect(server.agent_url("agent-1"), &secret).await;
    let in_flight =
        tokio::spawn(async move { client.call_tool(CallToolRequestParams::new("slow")).await });
    wait_for_log(&host, "slow tool started", 3).await;
    let started = std::time::Instant::now();
    server.shutdown().await;
    wait_for_log(&host, ABORTED, 3).await;
    assert!(
        started.elapsed() < Duration::from_secs(2),
        "shutdown took {:?}",
        started.elapsed()
    );
    // rmcp's client keeps trying to resume the call's stream from a server that is gone.
    in_flight.abort();
}

/// A 2026-07-28 client (`server/discover`, no session): every request is its own HTTP exchange.
#[tokio::test(flavor = "multi_thread")]
async fn stateless_clients_list_call_and_cancel() {
    let (host, server, secret) = setup("/tmp").await;
    let transport = StreamableHttpClientTransport::from_config(authenticated(
        server.agent_url("agent-1"),
        &secret,
    ));
    let lifecycle = ClientLifecycleMode::Discover {
        preferred_versions: vec![ProtocolVersion::V_2026_07_28],
    };
    let client = ClientConfig::default()
        .serve_with_lifecycle(transport, lifecycle)
        .await
        .unwrap();
    assert_eq!(client.list_all_tools().await.unwrap().len(), 6);
    let thrown = client
        .call_tool(CallToolRequestParams::new("throws"))
        .await
        .unwrap();
    assert_eq!(
        (text(&thrown), thrown.is_error),
        (vec!["kaboom"], Some(true))
    );

    let dropped = tokio::time::timeout(
        STARTED,
        client.call_tool(CallToolRequestParams::new("slow")),
    )
    .await;
    assert!(dropped.is_err(), "slow returned: {dropped:?}");
    wait_for_log(&host, ABORTED, 1).await;
    client.cancel().await.unwrap();

    // Dropping the server (without `shutdown`) stops it too.
    let addr = server.local_addr();
    drop(server);
    for _ in 0..40 {
        if tokio::net::TcpStream::connect(addr).await.is_err() {
            return;
        }
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    panic!("{addr} still accepts connections after the server was dropped");
}
