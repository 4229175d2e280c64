//! Who gets into the MCP endpoint, and what a client can hold there: the per-agent bearer
//! secret (missing, wrong, another agent's, replaced, revoked), `Origin` / `Host` checks, 404s
//! that keep no state, DELETE of sessions, the session, connection and header-time limits; then
//! the real daemon binary: the secret reaches the scripted provider and nothing else (logs,
//! `agent show`, plugin logs), and another user of the machine is refused.

mod common;
mod daemon_harness;
mod skip;

use std::net::SocketAddr;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::Arc;
use std::time::{Duration, Instant};

use common::*;
use daemon_harness::{example, Daemon, Launch};
use paseo_plugin_runtime::tools::mcp::{AgentSecret, McpLimits, McpServer};
use paseo_plugin_runtime::PluginHost;
use rmcp::model::CallToolRequestParams;
use rmcp::service::{RoleClient, RunningService};
use rmcp::transport::streamable_http_client::StreamableHttpClientTransportConfig;
use rmcp::transport::StreamableHttpClientTransport;
use rmcp::ServiceExt;
use serde_json::{json, Value};
use tokio::io::{AsyncReadExt, AsyncWriteExt};

const INITIALIZE: &str = r#"{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"probe","version":"1"}}}"#;
const MISSING: &str =
    "Unauthorized: this agent's MCP endpoint needs its Authorization: Bearer credential";
const INVALID: &str = "Unauthorized: the bearer credential is not valid for this agent";
const NO_AGENT: &str = "Not Found: no open agent session serves plugin tools at this path";

struct Reply {
    status: u16,
    head: String,
    body: String,
}

impl Reply {
    fn header(&self, name: &str) -> Option<&str> {
        self.head.lines().skip(1).find_map(|l| {
            let (k, v) = l.split_once(':')?;
            k.eq_ignore_ascii_case(name).then(|| v.trim())
        })
    }

    fn error(&self) -> Value {
        let body: Value = serde_json::from_str(&self.body)
            .unwrap_or_else(|e| panic!("not JSON ({e}): {}\n{}", self.head, self.body));
        assert_eq!(
            (&body["jsonrpc"], &body["id"]),
            (&json!("2.0"), &Value::Null),
            "{body}"
        );
        body["error"].clone()
    }

    fn message(&self) -> String {
        self.error()["message"].as_str().unwrap().to_string()
    }

    /// The status and the error's message, which a refusal is checked by.
    fn refusal(&self) -> (u16, String) {
        (self.status, self.message())
    }
}

/// One HTTP/1.1 exchange on its own connection, written by hand so that any header can be
/// left out or forged.
async fn http(
    addr: SocketAddr,
    method: &str,
    path: &str,
    headers: &[(&str, &str)],
    body: &str,
) -> Reply {
    let mut request = format!(
        "{method} {path} HTTP/1.1\r\nConnection: close\r\nContent-Length: {}\r\n",
        body.len()
    );
    if !headers.iter().any(|(k, _)| k.eq_ignore_ascii_case("host")) {
        request += &format!("Host: {addr}\r\n");
    }
    for (k, v) in headers {
        request += &format!("{k}: {v}\r\n");
    }
    request += "\r\n";
    request += body;
    let mut stream = tokio::net::TcpStream::connect(addr).await.unwrap();
    stream.write_all(request.as_bytes()).await.unwrap();
    let mut raw = Vec::new();
    tokio::time::timeout(Duration::from_secs(10), stream.read_to_end(&mut raw))
        .await
        .expect("no answer in 10 s")
        .unwrap();
    let raw = String::from_utf8_lossy(&raw).into_owned();
    let (head, body) = raw.split_once("\r\n\r\n").unwrap_or((&raw, ""));
    let status = head
        .split(' ')
        .nth(1)
        .and_then(|s| s.parse().ok())
        .unwrap_or_else(|| panic!("not HTTP: {raw:?}"));
    Reply {
        status,
        head: head.to_string(),
        body: body.to_string(),
    }
}

/// An MCP `initialize` POST (which opens a session when it is let in).
async fn initialize(addr: SocketAddr, path: &str, extra: &[(&str, &str)]) -> Reply {
    let mut headers = vec![
        ("Content-Type", "application/json"),
        ("Accept", "application/json, text/event-stream"),
    ];
    headers.extend_from_slice(extra);
    http(addr, "POST", path, &headers, INITIALIZE).await
}

/// An `initialize` POST with `Authorization: <authorization>`.
async fn authorized(addr: SocketAddr, path: &str, authorization: &str) -> Reply {
    initialize(addr, path, &[("Authorization", authorization)]).await
}

fn path_of(url: &str) -> String {
    url.split_once("/agents/")
        .map(|(_, rest)| format!("/agents/{rest}"))
        .unwrap()
}

/// A host with the tool-kit fixture, tools attached to agent-1 and agent-2, and a server.
async fn setup(limits: McpLimits, cwd: &str) -> (Arc<PluginHost>, McpServer) {
    let host = Arc::new(host());
    load_all(&host, &["tool-kit"]).await;
    for agent in ["agent-1", "agent-2"] {
        open(&host, open_with_tools(agent, cwd)).await.unwrap();
    }
    let server = McpServer::start_with(host.clone(), "127.0.0.1:0".parse().unwrap(), limits)
        .await
        .unwrap();
    (host, server)
}

async fn connect(url: String, secret: &AgentSecret) -> RunningService<RoleClient, ()> {
    let config = StreamableHttpClientTransportConfig::with_uri(url).auth_header(secret.expose());
    ().serve(StreamableHttpClientTransport::from_config(config))
        .await
        .unwrap()
}

/// Polls `done` for up to 10 s.
async fn eventually(what: &str, done: impl Fn() -> bool) {
    let until = Instant::now() + Duration::from_secs(10);
    while !done() {
        assert!(Instant::now() < until, "{what} did not happen within 10 s");
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
}

#[tokio::test(flavor = "multi_thread")]
async fn requests_without_the_agents_secret_are_refused_and_keep_no_state() {
    let dir = tempfile::tempdir().unwrap();
    let (_host, server) = setup(McpLimits::default(), dir.path().to_str().unwrap()).await;
    let (one, two) = (
        server.grant("agent-1").unwrap(),
        server.grant("agent-2").unwrap(),
    );
    assert_eq!(format!("{one:?}"), "AgentSecret(<redacted>)");
    assert_eq!(one.expose().len(), 64, "256 bits, hex");
    assert_ne!(one.expose(), two.expose());
    let addr = server.local_addr();
    let path = path_of(&server.agent_url("agent-1"));

    let none = initialize(addr, &path, &[]).await;
    assert_eq!(
        (none.status, none.header("www-authenticate")),
        (401, Some("Bearer"))
    );
    assert_eq!(none.error(), json!({ "code": -32000, "message": MISSING }));
    assert_eq!(none.header("mcp-session-id"), None);
    let basic = authorized(addr, &path, "Basic dXNlcjpwYXNz").await;
    assert_eq!(basic.refusal(), (401, MISSING.to_string()));
    let wrong = format!("Bearer {}", "0".repeat(64));
    for forged in [
        wrong.as_str(),
        "Bearer",
        "Bearer ",
        &format!("Bearer {}", &one.expose()[..63]),
    ] {
        let reply = authorized(addr, &path, forged).await;
        assert_eq!(reply.status, 401, "{forged}");
        assert!(
            reply
                .header("www-authenticate")
                .unwrap()
                .starts_with("Bearer"),
            "{forged}"
        );
    }
    let wrong = authorized(addr, &path, &wrong).await;
    assert_eq!(
        (wrong.message(), wrong.header("www-authenticate")),
        (INVALID.to_string(), Some("Bearer error=\"invalid_token\""))
    );
    // Another agent's valid secret does not open this agent's tools.
    let other = authorized(addr, &path, &two.authorization()).await;
    assert_eq!(other.refusal(), (401, INVALID.to_string()));
    // A tool call without the secret does not reach the plugin.
    let call = r#"{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"append_workspace_note","arguments":{"note":"intruder"}}}"#;
    let headers = [
        ("Content-Type", "application/json"),
        ("Accept", "application/json, text/event-stream"),
        ("MCP-Protocol-Version", "2025-06-18"),
    ];
    assert_eq!(http(addr, "POST", &path, &headers, call).await.status, 401);
    assert!(!dir.path().join("AGENT_NOTES.md").exists());

    // DNS rebinding: a foreign Origin or Host is refused even with the right secret.
    let bearer = one.authorization();
    let auth = ("Authorization", bearer.as_str());
    for origin in [
        "http://evil.example",
        "null",
        "https://127.0.0.1",
        "http://127.0.0.1.evil.example",
        "http://localhost:80x",
    ] {
        let reply = initialize(addr, &path, &[auth, ("Origin", origin)]).await;
        assert_eq!(
            reply.refusal(),
            (
                403,
                "Forbidden: the Origin header is not a loopback origin".to_string()
            ),
            "{origin}"
        );
    }
    let host = initialize(addr, &path, &[auth, ("Host", "evil.example")]).await;
    assert_eq!(
        host.refusal(),
        (
            403,
            "Forbidden: the Host header is not a loopback address".to_string()
        )
    );
    for origin in [
        "http://localhost:5173".to_string(),
        format!("http://{addr}"),
        "http://[::1]".to_string(),
    ] {
        let reply = initialize(addr, &path, &[auth, ("Origin", &origin)]).await;
        assert_eq!(reply.status, 200, "{origin}: {}", reply.body);
    }
    let opened = initialize(addr, &path, &[auth]).await;
    assert_eq!(opened.status, 200);
    assert!(opened.header("mcp-session-id").is_some());

    // Unknown agents and other paths are 404 whatever the credential.
    let unknown = initialize(addr, "/agents/agent-3/mcp", &[auth]).await;
    assert_eq!(unknown.refusal(), (404, NO_AGENT.to_string()));
    assert_eq!(http(addr, "GET", "/", &[], "").await.status, 404);
    assert_eq!(
        http(addr, "POST", "/agents/agent-1/mcp/x", &[auth], "")
            .await
            .status,
        404
    );

    // Thousands of refused requests leave the server as it was: 2 agents, the 4 sessions let in.
    let before = server.stats();
    assert_eq!((before.agents, before.sessions), (2, 4));
    for i in 0..2000 {
        assert_eq!(
            initialize(addr, &format!("/agents/agent-{i}-x/mcp"), &[auth])
                .await
                .status,
            404
        );
    }
    for _ in 0..1000 {
        assert_eq!(initialize(addr, &path, &[]).await.status, 401);
    }
    let after = server.stats();
    assert_eq!((after.agents, after.sessions), (2, 4));
    server.shutdown().await;
}

#[tokio::test(flavor = "multi_thread")]
async fn a_new_grant_replaces_the_secret_and_a_revoked_agent_is_gone() {
    let (host, server) = setup(McpLimits::default(), "/tmp").await;
    let url = server.agent_url("agent-1");
    let (addr, path) = (server.local_addr(), path_of(&url));
    let old = server.grant("agent-1").unwrap();
    let client = connect(url.clone(), &old).await;
    let call = |client: &RunningService<RoleClient, ()>| {
        let peer = client.peer().clone();
        async move { peer.call_tool(CallToolRequestParams::new("defaults")).await }
    };
    assert!(call(&client).await.is_ok());
    let peer = client.peer().clone();
    let slow =
        tokio::spawn(async move { peer.call_tool(CallToolRequestParams::new("slow")).await });
    eventually("the slow call starting", || {
        server.stats().sessions == 1
            && log_lines(&host, "tool-kit").contains(&"slow tool started".to_string())
    })
    .await;

    // The session reopens: the old secret stops working at once, and its sessions and calls end.
    let new = server.grant("agent-1").unwrap();
    let refused = authorized(addr, &path, &old.authorization()).await;
    assert_eq!(refused.refusal(), (401, INVALID.to_string()));
    eventually("the old session's call being cancelled", || {
        log_lines(&host, "tool-kit")
            .iter()
            .any(|l| l == "tool signal aborted: The call was cancelled")
    })
    .await;
    assert!(call(&client).await.is_err(), "the old session is closed");
    slow.abort();
    let fresh = connect(url.clone(), &new).await;
    assert!(call(&fresh).await.is_ok());

    // Revoked (the agent closed): 404 for any credential, and nothing kept for it.
    server.revoke("agent-1");
    let gone = authorized(addr, &path, &new.authorization()).await;
    assert_eq!(gone.refusal(), (404, NO_AGENT.to_string()));
    assert!(call(&fresh).await.is_err());
    eventually("the revoked agent's sessions closing", || {
        server.stats().sessions == 0
    })
    .await;
    assert_eq!(server.stats().agents, 0);
    let _ = client.cancel().await;
    let _ = fresh.cancel().await;
    server.shutdown().await;
}

#[tokio::test(flavor = "multi_thread")]
async fn delete_of_an_unknown_session_is_404_and_of_a_real_one_200() {
    let (_host, server) = setup(McpLimits::default(), "/tmp").await;
    let secret = server.grant("agent-1").unwrap();
    let (addr, path) = (server.local_addr(), path_of(&server.agent_url("agent-1")));
    let auth = secret.authorization();
    let opened = authorized(addr, &path, &auth).await;
    let session = opened.header("mcp-session-id").unwrap().to_string();
    assert_eq!(server.stats().sessions, 1);

    let unknown = http(
        addr,
        "DELETE",
        &path,
        &[
            ("Authorization", &auth),
            ("Mcp-Session-Id", "no-such-session"),
        ],
        "",
    )
    .await;
    assert_eq!(unknown.status, 404);
    assert_eq!(
        unknown.error(),
        json!({ "code": -32001, "message": "Session not found" })
    );
    // The secret is checked first: without it, a real session's id is no use.
    assert_eq!(
        http(addr, "DELETE", &path, &[("Mcp-Session-Id", &session)], "")
            .await
            .status,
        401
    );
    assert_eq!(server.stats().sessions, 1);
    let deleted = http(
        addr,
        "DELETE",
        &path,
        &[("Authorization", &auth), ("Mcp-Session-Id", &session)],
        "",
    )
    .await;
    assert_eq!((deleted.status, deleted.body.as_str()), (200, ""));
    assert_eq!(server.stats().sessions, 0);
    assert_eq!(
        http(
            addr,
            "DELETE",
            &path,
            &[("Authorization", &auth), ("Mcp-Session-Id", &session)],
            ""
        )
        .await
        .status,
        404
    );
    server.shutdown().await;
}

#[tokio::test(flavor = "multi_thread")]
async fn sessions_are_capped_per_agent_and_in_all_and_idle_ones_expire() {
    let limits = McpLimits {
        sessions_per_agent: 3,
        sessions_total: 4,
        session_idle: Duration::from_millis(400),
        ..McpLimits::default()
    };
    let (host, server) = setup(limits, "/tmp").await;
    let addr = server.local_addr();
    let (one, two) = (
        server.grant("agent-1").unwrap(),
        server.grant("agent-2").unwrap(),
    );
    let (path1, path2) = (
        path_of(&server.agent_url("agent-1")),
        path_of(&server.agent_url("agent-2")),
    );
    let (auth1, auth2) = (one.authorization(), two.authorization());

    for _ in 0..3 {
        assert_eq!(authorized(addr, &path1, &auth1).await.status, 200);
    }
    let over = authorized(addr, &path1, &auth1).await;
    assert_eq!(over.status, 503);
    assert_eq!(over.message(), "Too many MCP sessions for this agent (limit 3 per agent); close one (DELETE) or let an idle one expire");
    assert_eq!(authorized(addr, &path2, &auth2).await.status, 200);
    let over = authorized(addr, &path2, &auth2).await;
    assert_eq!(over.refusal(), (503, "Too many MCP sessions on this server (limit 4 in all); close one (DELETE) or let an idle one expire".to_string()));
    assert_eq!(server.stats().sessions, 4);

    // Idle sessions expire and free their places.
    eventually("idle sessions expiring", || server.stats().sessions == 0).await;
    assert_eq!(authorized(addr, &path1, &auth1).await.status, 200);

    // A session with a call running outlives the idle expiry (a call may run 10 minutes).
    let client = connect(server.agent_url("agent-2"), &two).await;
    let peer = client.peer().clone();
    let slow =
        tokio::spawn(async move { peer.call_tool(CallToolRequestParams::new("slow")).await });
    tokio::time::sleep(Duration::from_millis(2000)).await;
    assert!(!slow.is_finished());
    assert!(
        !log_lines(&host, "tool-kit")
            .iter()
            .any(|l| l.starts_with("tool signal aborted")),
        "{:?}",
        log_lines(&host, "tool-kit")
    );
    assert_eq!(
        server.stats().sessions,
        1,
        "only the session with the running call is left"
    );
    client.cancel().await.unwrap();
    eventually("the call being cancelled with its session", || {
        log_lines(&host, "tool-kit")
            .iter()
            .any(|l| l == "tool signal aborted: The call was cancelled")
    })
    .await;
    slow.abort();
    server.shutdown().await;
}

/// Reads until the peer closes; `None` if it was still open after 5 s.
async fn read_until_closed(stream: &mut tokio::net::TcpStream) -> Option<String> {
    let mut raw = Vec::new();
    match tokio::time::timeout(Duration::from_secs(5), stream.read_to_end(&mut raw)).await {
        Ok(_) => Some(String::from_utf8_lossy(&raw).into_owned()),
        Err(_) => None,
    }
}

#[tokio::test(flavor = "multi_thread")]
async fn connections_are_capped_and_slow_headers_time_out() {
    let limits = McpLimits {
        connections: 4,
        header_timeout: Duration::from_millis(500),
        ..McpLimits::default()
    };
    let (_host, server) = setup(limits, "/tmp").await;
    let secret = server.grant("agent-1").unwrap();
    let (addr, path) = (server.local_addr(), path_of(&server.agent_url("agent-1")));

    let mut idle = Vec::new();
    for _ in 0..4 {
        idle.push(tokio::net::TcpStream::connect(addr).await.unwrap());
    }
    eventually("4 connections being served", || {
        server.stats().connections == 4
    })
    .await;
    let mut over = tokio::net::TcpStream::connect(addr).await.unwrap();
    let answer = read_until_closed(&mut over)
        .await
        .expect("a connection over the limit is closed at once");
    assert!(
        answer.starts_with("HTTP/1.1 503 Service Unavailable\r\n"),
        "{answer}"
    );
    let body: Value = serde_json::from_str(answer.split_once("\r\n\r\n").unwrap().1).unwrap();
    assert_eq!(
        body,
        json!({ "jsonrpc": "2.0", "id": null, "error": { "code": -32000, "message": "Too many connections to the MCP server (limit 4)" } })
    );

    // Idle connections and half-sent headers are cut by the header timeout.
    for stream in &mut idle {
        assert!(
            read_until_closed(stream).await.is_some(),
            "an idle connection stayed open"
        );
    }
    let mut half = tokio::net::TcpStream::connect(addr).await.unwrap();
    half.write_all(
        format!("POST {path} HTTP/1.1\r\nHost: {addr}\r\nContent-Type: application/json\r\n")
            .as_bytes(),
    )
    .await
    .unwrap();
    assert!(
        read_until_closed(&mut half).await.is_some(),
        "a half-sent header kept its connection"
    );
    eventually("the connections being released", || {
        server.stats().connections == 0
    })
    .await;
    let reply = authorized(addr, &path, &secret.authorization()).await;
    assert_eq!(reply.status, 200);
    server.shutdown().await;
}

// ---- the daemon binary ----------------------------------------------------------------------

/// A daemon logging at debug level into `log`, with `plugins` (examples) installed.
fn start_daemon(log: &Path, plugins: &[&str]) -> Daemon {
    let plugins: Vec<PathBuf> = plugins.iter().map(|p| example(p)).collect();
    Launch::new().log("debug", log).start_with(&plugins)
}

/// The agent's MCP endpoint as `agent show` gives it.
fn endpoint(agent: &Value) -> (SocketAddr, String) {
    let url = agent["launch"]["toolsUrl"].as_str().unwrap();
    let addr = url
        .strip_prefix("http://")
        .unwrap()
        .split('/')
        .next()
        .unwrap()
        .parse()
        .unwrap();
    (addr, path_of(url))
}

/// Anything that looks like one of our secrets (64 hex digits) or an unredacted bearer header.
fn leaks(text: &str) -> Vec<String> {
    let mut found = Vec::new();
    let mut run = String::new();
    for c in text.chars().chain(std::iter::once(' ')) {
        if c.is_ascii_hexdigit() {
            run.push(c);
        } else {
            if run.len() >= 64 {
                found.push(run.clone());
            }
            run.clear();
        }
    }
    for (i, _) in text.match_indices("Bearer ") {
        let rest = &text[i + 7..];
        if !rest.starts_with("<redacted>") && !rest.starts_with("credential") {
            found.push(rest.chars().take(80).collect());
        }
    }
    found
}

fn note_lines(cwd: &Path) -> Vec<String> {
    std::fs::read_to_string(cwd.join("AGENT_NOTES.md"))
        .unwrap_or_default()
        .lines()
        .map(str::to_string)
        .collect()
}

/// Has the scripted provider of agent `id` call `append_workspace_note` over MCP; returns the
/// call (or the error) its turn ended with.
fn append_note(daemon: &Daemon, id: &str, note: &str) -> Value {
    let call = format!("tool append_workspace_note {}", json!({ "note": note }));
    daemon.cli(&["agent", "send", id, &call, "--wait"]);
    let shown = daemon.cli(&["agent", "wait", id]);
    shown["timeline"]
        .as_array()
        .unwrap()
        .iter()
        .rev()
        .find(|i| i["type"] == "tool_call" || i["type"] == "error")
        .cloned()
        .unwrap()
}

#[test]
fn the_daemon_admits_each_agent_with_its_own_secret_and_never_shows_it() {
    let work = tempfile::tempdir().unwrap();
    let cwd = work.path().canonicalize().unwrap();
    let daemon = start_daemon(
        &work.path().join("daemon.stderr"),
        &["agent-tools", "lifecycle-logger"],
    );
    let create = || {
        daemon.cli(&[
            "agent",
            "create",
            "--cwd",
            cwd.to_str().unwrap(),
            "--label",
            "notes/enabled=true",
        ])
    };
    let (a, b) = (create(), create());
    let (id_a, id_b) = (
        a["id"].as_str().unwrap().to_string(),
        b["id"].as_str().unwrap().to_string(),
    );
    // The provider's MCP entry for plugin tools carries the credential as a header, shown redacted.
    assert_eq!(
        a["launch"]["mcpServers"]["paseo-plugin-tools"],
        json!({ "type": "http", "url": a["launch"]["toolsUrl"], "headers": { "Authorization": "Bearer <redacted>" } })
    );
    assert!(
        !a["launch"]["toolsUrl"].as_str().unwrap().contains('?'),
        "nothing secret in the URL"
    );

    let rt = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .unwrap();
    let (addr, path) = endpoint(&a);
    rt.block_on(async {
        let none = initialize(addr, &path, &[]).await;
        assert_eq!(
            (none.status, none.header("www-authenticate"), none.message()),
            (401, Some("Bearer"), MISSING.to_string())
        );
        let wrong = authorized(addr, &path, &format!("Bearer {}", "a".repeat(64))).await;
        assert_eq!(wrong.refusal(), (401, INVALID.to_string()));
        let origin = initialize(addr, &path, &[("Origin", "http://evil.example")]).await;
        assert_eq!(origin.status, 403);
        let unknown = initialize(addr, "/agents/agent-999/mcp", &[]).await;
        assert_eq!(unknown.refusal(), (404, NO_AGENT.to_string()));
    });

    // The scripted provider's MCP client sends the secret it was launched with.
    let call = append_note(&daemon, &id_a, "from a");
    assert_eq!(call["status"], "completed", "{call}");
    // A reopened session gets a new secret, and the provider the new one.
    let reloaded = daemon.cli(&["agent", "reload", &id_a]);
    assert_eq!(reloaded["launch"]["reason"], "refresh");
    assert_eq!(
        append_note(&daemon, &id_a, "after reload")["status"],
        "completed"
    );
    assert_eq!(note_lines(&cwd), ["from a", "after reload"]);

    // Another user of the machine gets nowhere, and the plugin writes nothing for it.
    other_user_is_refused(addr, &path);
    assert_eq!(note_lines(&cwd), ["from a", "after reload"]);

    // A closed (archived) agent's endpoint is gone; the other agent's still works.
    daemon.cli(&["agent", "archive", &id_a]);
    let closed = rt.block_on(initialize(addr, &path, &[]));
    assert_eq!(closed.refusal(), (404, NO_AGENT.to_string()));
    assert_eq!(append_note(&daemon, &id_b, "from b")["status"], "completed");
    assert_eq!(note_lines(&cwd), ["from a", "after reload", "from b"]);

    // The secret is nowhere to be read: not in `agent show` / `agent ls`, plugin logs or the daemon's log.
    let mut seen = String::new();
    for args in [
        &["agent", "show", id_a.as_str()][..],
        &["agent", "show", &id_b],
        &["agent", "ls"],
        &["plugin", "logs", "lifecycle-logger"],
        &["plugin", "logs", "agent-tools"],
    ] {
        seen += &daemon.cli(args).to_string();
    }
    assert!(
        seen.contains("Bearer <redacted>") && seen.contains("agent.session_open"),
        "{seen}"
    );
    let log = daemon.stop();
    assert!(log.contains("served at http://127.0.0.1:"), "{log}");
    assert_eq!(leaks(&seen), Vec::<String>::new());
    assert_eq!(leaks(&log), Vec::<String>::new(), "{log}");
}

/// As root: `nobody` with curl, without and with a guessed credential, is refused (401).
fn other_user_is_refused(addr: SocketAddr, path: &str) {
    use std::os::unix::fs::MetadataExt;
    if std::fs::metadata("/proc/self")
        .map(|m| m.uid())
        .unwrap_or(1)
        != 0
    {
        skip::skipped(
            "the request from another uid (mcp_auth)",
            "not root, so a client cannot run as another uid",
        );
        return;
    }
    if Command::new("curl").arg("--version").output().is_err() {
        skip::skipped(
            "the request from another uid (mcp_auth)",
            "curl is not installed",
        );
        return;
    }
    use std::os::unix::process::CommandExt;
    let call = r#"{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"append_workspace_note","arguments":{"note":"from nobody"}}}"#;
    for extra in [&[][..], &["-H", "Authorization: Bearer 0000000000000000000000000000000000000000000000000000000000000000"]] {
        let out = Command::new("curl")
            .args(["-s", "-o", "/dev/null", "-w", "%{http_code}", "-X", "POST", "-H", "Content-Type: application/json", "-H", "Accept: application/json, text/event-stream"])
            .args(extra)
            .args(["--data", call, &format!("http://{addr}{path}")])
            .uid(65534)
            .gid(65534)
            .output()
            .unwrap();
        assert_eq!(String::from_utf8_lossy(&out.stdout), "401", "{}", String::from_utf8_lossy(&out.stderr));
    }
}
