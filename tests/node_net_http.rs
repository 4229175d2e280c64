//! `node:net`, `node:http` and `node:dns` through a real plugin: an HTTP server on 127.0.0.1
//! requested from inside the plugin, exact keep-alive wire bytes, unix-socket echo and HTTP,
//! Node's error texts, `localhost` lookups, and a plugin's server called from outside.

mod common;

use std::io::{Read, Write};

use common::*;
use paseo_plugin_runtime::PluginHost;
use serde_json::{json, Value};

async fn open_titled(title: &str, cwd: &std::path::Path) -> (PluginHost, Value) {
    let host = host();
    load_all(&host, &["node-net-http"]).await;
    let mut request = open_request();
    request["title"] = json!(title);
    request["cwd"] = json!(cwd);
    let out = open(&host, request)
        .await
        .unwrap_or_else(|e| panic!("{e}\n{:?}", log_lines(&host, "node-net-http")));
    (host, out)
}

#[tokio::test(flavor = "multi_thread")]
async fn http_server_and_client_on_loopback() {
    let dir = tempfile::tempdir().unwrap();
    let (host, out) = open_titled("all", dir.path()).await;
    let r: Value = serde_json::from_str(out["env"]["RESULT"].as_str().unwrap()).unwrap();
    assert_eq!(
        r["http"],
        json!({
            "address": "127.0.0.1", "family": "IPv4", "port": "number", "listening": false,
            "get": r#"200 application/json yes 61 {"method":"GET","url":"/hello?x=1","body":"","version":"1.1"}"#,
            "post": r#"200 - {"method":"POST","url":"/echo","body":"part1,part2","version":"1.1"}"#,
        })
    );
    // Two pipelined requests on one connection: keep-alive, then `Connection: close` honoured.
    assert_eq!(
        r["raw"],
        "HTTP/1.1 201 Created\r\nX-A: 1\r\nDate: *\r\nConnection: keep-alive\r\nKeep-Alive: timeout=5\r\n\
         Transfer-Encoding: chunked\r\n\r\n2\r\n/1\r\n1\r\n!\r\n0\r\n\r\n\
         HTTP/1.1 201 Created\r\nX-A: 1\r\nDate: *\r\nConnection: close\r\n\
         Transfer-Encoding: chunked\r\n\r\n2\r\n/2\r\n1\r\n!\r\n0\r\n\r\n"
    );
    assert_eq!(
        r["unix"],
        json!({ "reply": "PING PONG", "address": true, "unlinked": true, "body": "unix /over-unix localhost" })
    );
    assert_eq!(
        r["streams"],
        json!({
            "big": "3000000 3000000 chunked",
            "events": ["got \"data: one\\n\\n\"", "res close finished=false", "req close"],
            "whilePaused": true, "total": 1000000,
        })
    );
    assert_eq!(
        r["errors"],
        json!({
            "inUse": "listen EADDRINUSE: address already in use 127.0.0.1:<port>|EADDRINUSE|listen|-98|127.0.0.1|true",
            "refused": "connect ECONNREFUSED 127.0.0.1:<port>|ECONNREFUSED|connect|-111|127.0.0.1|true",
            "clientRefused": "connect ECONNREFUSED 127.0.0.1:<port>",
            "missing": "connect ENOENT /nonexistent-dir/x.sock|ENOENT",
            "https": "ERR_INVALID_PROTOCOL: Protocol \"https:\" not supported. Expected \"http:\"",
            "resolve4": "node:dns.resolve4 is not supported by the Paseo plugin host yet",
        })
    );
    assert_eq!(
        r["dns"],
        json!({
            "viaCallback": "127.0.0.1/4", "viaPromise": { "address": "127.0.0.1", "family": 4 },
            "hasLoopback": true, "literal": { "address": "::1", "family": 6 }, "isIP": [4, 6, 0, true, false],
        })
    );
    assert_eq!(
        log_lines(&host, "node-net-http"),
        ["[paseo] Loading plugin", "[paseo] Plugin ready"]
    );
    host.shutdown().await;
}

fn get(port: u16, path: &str) -> std::io::Result<String> {
    let mut stream = std::net::TcpStream::connect(("127.0.0.1", port))?;
    write!(
        stream,
        "GET {path} HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n"
    )?;
    let mut text = String::new();
    stream.read_to_string(&mut text)?;
    Ok(text)
}

#[tokio::test(flavor = "multi_thread")]
async fn a_plugins_server_outlives_the_hook_and_stops_with_the_plugin() {
    let dir = tempfile::tempdir().unwrap();
    let (host, out) = open_titled("serve", dir.path()).await;
    let port: u16 = out["env"]["PORT"].as_str().unwrap().parse().unwrap();
    let text = tokio::task::spawn_blocking(move || get(port, "/mcp?x=1"))
        .await
        .unwrap()
        .unwrap();
    let text = text
        .split("\r\n")
        .filter(|l| !l.starts_with("Date: "))
        .collect::<Vec<_>>()
        .join("\r\n");
    assert_eq!(
        text,
        "HTTP/1.1 200 OK\r\nContent-Type: text/plain\r\nConnection: close\r\nTransfer-Encoding: chunked\r\n\r\n\
         23\r\nhello from the plugin: GET /mcp?x=1\r\n0\r\n\r\n"
    );
    host.shutdown().await;
    let refused = tokio::task::spawn_blocking(move || get(port, "/"))
        .await
        .unwrap()
        .unwrap_err();
    assert_eq!(refused.kind(), std::io::ErrorKind::ConnectionRefused);
}
