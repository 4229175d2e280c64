//! `fetch` and its classes, through a real plugin (tests/fixtures/web-fetch) talking to a tiny
//! HTTP/1.1 server run here on 127.0.0.1. Each test runs one group of checks in the plugin
//! (request.labels.case) and compares the JSON it returns.

mod common;

use std::sync::{Arc, Mutex};
use std::time::Duration;

use common::*;
use serde_json::{json, Value};
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::{TcpListener, TcpStream};

type Events = Arc<Mutex<Vec<String>>>;

struct Server {
    url: String,
    /// What the server noticed, e.g. "slow: client closed".
    events: Events,
}

async fn serve() -> Server {
    let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
    let url = format!("http://{}", listener.local_addr().unwrap());
    let events: Events = Arc::default();
    let ev = events.clone();
    tokio::spawn(async move {
        while let Ok((sock, _)) = listener.accept().await {
            tokio::spawn(handle(sock, ev.clone()));
        }
    });
    Server { url, events }
}

/// `"hello from gzip " * 50`, gzipped.
const GZIP_BODY: &[u8] = &[
    31, 139, 8, 0, 0, 0, 0, 0, 2, 3, 203, 72, 205, 201, 201, 87, 72, 43, 202, 207, 85, 72, 175,
    202, 44, 80, 200, 24, 229, 143, 242, 71, 249, 112, 62, 0, 162, 247, 72, 92, 32, 3, 0, 0,
];
/// `"hello from deflate " * 50`, zlib-deflated.
const DEFLATE_BODY: &[u8] = &[
    120, 156, 203, 72, 205, 201, 201, 87, 72, 43, 202, 207, 85, 72, 73, 77, 203, 73, 44, 73, 85,
    200, 24, 21, 26, 21, 26, 21, 26, 204, 66, 0, 142, 94, 93, 122,
];

async fn respond(sock: &mut TcpStream, status: &str, headers: &[(&str, &str)], body: &[u8]) {
    let mut out = format!(
        "HTTP/1.1 {status}\r\ncontent-length: {}\r\nconnection: close\r\n",
        body.len()
    );
    for (k, v) in headers {
        out.push_str(&format!("{k}: {v}\r\n"));
    }
    out.push_str("\r\n");
    let mut bytes = out.into_bytes();
    bytes.extend_from_slice(body);
    let _ = sock.write_all(&bytes).await;
}

/// Waits until the client hangs up (or 10 s pass) and records it.
async fn until_closed(sock: &mut TcpStream, events: &Events, what: &str) {
    let mut buf = [0u8; 64];
    let closed = tokio::time::timeout(Duration::from_secs(10), async {
        while sock.read(&mut buf).await.map(|n| n > 0).unwrap_or(false) {}
    })
    .await
    .is_ok();
    if closed {
        events
            .lock()
            .unwrap()
            .push(format!("{what}: client closed"));
    }
}

async fn handle(mut sock: TcpStream, events: Events) {
    let mut buf = Vec::new();
    let head_end = loop {
        let mut chunk = [0u8; 4096];
        let n = sock.read(&mut chunk).await.unwrap_or(0);
        if n == 0 {
            return;
        }
        buf.extend_from_slice(&chunk[..n]);
        if let Some(i) = buf.windows(4).position(|w| w == b"\r\n\r\n") {
            break i + 4;
        }
    };
    let head = String::from_utf8_lossy(&buf[..head_end]).to_string();
    let mut lines = head.split("\r\n");
    let mut start = lines.next().unwrap().split(' ');
    let (method, path) = (
        start.next().unwrap().to_string(),
        start.next().unwrap().to_string(),
    );
    let headers: Vec<(String, String)> = lines
        .filter_map(|l| {
            l.split_once(':')
                .map(|(k, v)| (k.to_lowercase(), v.trim().to_string()))
        })
        .collect();
    let header = |name: &str| {
        headers
            .iter()
            .find(|(k, _)| k == name)
            .map(|(_, v)| v.clone())
    };
    let len: usize = header("content-length")
        .and_then(|v| v.parse().ok())
        .unwrap_or(0);
    let mut body = buf[head_end..].to_vec();
    while body.len() < len {
        let mut chunk = [0u8; 4096];
        let n = sock.read(&mut chunk).await.unwrap_or(0);
        if n == 0 {
            break;
        }
        body.extend_from_slice(&chunk[..n]);
    }
    match path.split('?').next().unwrap() {
        "/text" => {
            let headers = [
                ("content-type", "text/plain"),
                ("set-cookie", "a=1"),
                ("set-cookie", "b=2"),
                ("x-custom", "yes"),
            ];
            let body: &[u8] = if method == "HEAD" { b"" } else { b"hello" };
            respond(&mut sock, "200 OK", &headers, body).await;
        }
        "/json" => {
            respond(
                &mut sock,
                "200 OK",
                &[("content-type", "application/json")],
                br#"{"a":1,"b":[true,null]}"#,
            )
            .await
        }
        "/empty" => respond(&mut sock, "204 No Content", &[], b"").await,
        // Bodies compressed by Python's gzip (mtime 0) and zlib modules.
        "/gzip" => {
            respond(
                &mut sock,
                "200 OK",
                &[("content-encoding", "gzip")],
                GZIP_BODY,
            )
            .await
        }
        "/deflate" => {
            respond(
                &mut sock,
                "200 OK",
                &[("content-encoding", "deflate")],
                DEFLATE_BODY,
            )
            .await
        }
        "/bad-gzip" => {
            respond(
                &mut sock,
                "200 OK",
                &[("content-encoding", "gzip")],
                b"not gzip at all",
            )
            .await
        }
        "/gzip-head" => respond(&mut sock, "200 OK", &[("content-encoding", "gzip")], b"").await,
        "/brotli" => {
            let mut body = Vec::new();
            brotli::BrotliCompress(
                &mut &b"hello from brotli ".repeat(50)[..],
                &mut body,
                &Default::default(),
            )
            .unwrap();
            respond(&mut sock, "200 OK", &[("content-encoding", "br")], &body).await
        }
        "/echo" => {
            let pick = |n: &str| header(n).map_or(Value::Null, Value::from);
            let echo = json!({
                "method": method, "path": path, "body": String::from_utf8_lossy(&body),
                "contentType": pick("content-type"), "xTest": pick("x-test"), "accept": pick("accept"),
                "userAgent": pick("user-agent"), "contentLength": pick("content-length"),
                "acceptEncoding": pick("accept-encoding"),
            });
            respond(
                &mut sock,
                "200 OK",
                &[("content-type", "application/json")],
                echo.to_string().as_bytes(),
            )
            .await;
        }
        "/redirect" => respond(&mut sock, "302 Found", &[("location", "/text")], b"").await,
        "/loop" => respond(&mut sock, "302 Found", &[("location", "/loop")], b"").await,
        "/chunked" => {
            let _ = sock
                .write_all(
                    b"HTTP/1.1 200 OK\r\ntransfer-encoding: chunked\r\nconnection: close\r\n\r\n",
                )
                .await;
            for part in ["one", "two", "three"] {
                let _ = sock
                    .write_all(format!("{:x}\r\n{part}\r\n", part.len()).as_bytes())
                    .await;
                tokio::time::sleep(Duration::from_millis(40)).await;
            }
            let _ = sock.write_all(b"0\r\n\r\n").await;
        }
        "/slow" => until_closed(&mut sock, &events, "slow").await,
        "/slow-body" => {
            let _ = sock.write_all(b"HTTP/1.1 200 OK\r\ntransfer-encoding: chunked\r\nconnection: close\r\n\r\n5\r\nfirst\r\n").await;
            until_closed(&mut sock, &events, "slow-body").await;
        }
        "/truncated" => {
            let _ = sock
                .write_all(b"HTTP/1.1 200 OK\r\ncontent-length: 10\r\nconnection: close\r\n\r\nabc")
                .await;
        }
        _ => {
            respond(
                &mut sock,
                "404 Not Found",
                &[("content-type", "text/plain")],
                b"no such page",
            )
            .await
        }
    }
}

/// Loads the fixture, runs one group of checks and returns its JSON.
async fn run_case(case: &str, server: &Server, extra: &[(&str, String)]) -> Value {
    let host = host();
    load_all(&host, &["web-fetch"]).await;
    let mut request = open_request();
    request["labels"] = json!({ "case": case, "url": server.url });
    for (k, v) in extra {
        request["labels"][k] = json!(v);
    }
    let out = open(&host, request)
        .await
        .unwrap_or_else(|e| panic!("{case}: {e}\nlogs: {:?}", log_lines(&host, "web-fetch")));
    host.shutdown().await;
    serde_json::from_str(out["env"]["RESULT"].as_str().unwrap()).unwrap()
}

#[tokio::test(flavor = "multi_thread")]
async fn responses_headers_and_redirects() {
    let server = serve().await;
    let out = run_case("basics", &server, &[]).await;
    assert_eq!(
        out["text"],
        json!([
            200,
            "OK",
            true,
            "basic",
            true,
            false,
            "text/plain",
            ["a=1", "b=2"],
            false,
            "hello",
            true,
            "TypeError: Body is unusable: Body has already been read"
        ])
    );
    assert_eq!(out["json"], json!({ "a": 1, "b": [true, null] }));
    assert_eq!(
        out["missing"],
        json!([404, "Not Found", false, "no such page"])
    );
    assert_eq!(
        out["echo"],
        json!({ "method": "GET", "path": "/echo?q=1", "body": "", "contentType": null, "xTest": "req",
            "accept": "*/*", "userAgent": "node", "contentLength": null, "acceptEncoding": "gzip, deflate" })
    );
    assert_eq!(out["follow"], json!([200, true, "/text", "hello"]));
    assert_eq!(out["manual"], json!([302, false, "/text"]));
    assert_eq!(out["head"], json!([200, null, "0"]));
    assert_eq!(out["empty"], json!([204, null, ""]));
    assert_eq!(
        out["headerNames"],
        json!([
            "connection",
            "content-length",
            "content-type",
            "set-cookie",
            "set-cookie",
            "x-custom"
        ])
    );
}

#[tokio::test(flavor = "multi_thread")]
async fn request_and_response_bodies() {
    let server = serve().await;
    let out = run_case("bodies", &server, &[]).await;
    let echo = |method: &str, body: &str, ty: Value, len: &str, x: Value| {
        json!({ "method": method, "path": "/echo", "body": body, "contentType": ty, "xTest": x,
            "accept": "*/*", "userAgent": "node", "contentLength": len, "acceptEncoding": "gzip, deflate" })
    };
    assert_eq!(
        out["string"],
        echo(
            "POST",
            r#"{"n":1}"#,
            json!("application/json"),
            "7",
            json!("s")
        )
    );
    assert_eq!(
        out["params"],
        echo(
            "POST",
            "a=1&b=x+y",
            json!("application/x-www-form-urlencoded;charset=UTF-8"),
            "9",
            Value::Null
        )
    );
    assert_eq!(
        out["bytes"],
        echo("PUT", "hi", Value::Null, "2", Value::Null)
    );
    assert_eq!(
        out["buffer"],
        echo("POST", "ab", Value::Null, "2", Value::Null)
    );
    assert_eq!(
        out["blob"],
        echo("POST", "blob", json!("text/x-blob"), "4", Value::Null)
    );
    assert_eq!(
        out["stream"],
        echo("POST", "stream", Value::Null, "6", Value::Null)
    );
    assert_eq!(
        out["clone"],
        json!([r#"{"a":1,"b":[true,null]}"#, { "a": 1, "b": [true, null] }])
    );
    assert_eq!(out["arrayBuffer"], 5);
    assert_eq!(out["bytesBody"], json!([104, 101, 108, 108, 111]));
    assert_eq!(out["blobBody"], json!([5, "text/plain", "hello"]));
}

#[tokio::test(flavor = "multi_thread")]
async fn streamed_bodies_arrive_chunk_by_chunk() {
    let server = serve().await;
    let out = run_case("streams", &server, &[]).await;
    assert_eq!(
        out,
        json!({
            "viaReader": ["one", "two", "three"],
            "viaFor": ["one", "two", "three"],
            "first": "one",
            "afterBreak": [true, false],
            "chunkedText": "onetwothree",
            "teeText": ["onetwothree"],
        })
    );
}

#[tokio::test(flavor = "multi_thread")]
async fn abort_rejects_with_the_reason_and_drops_the_connection() {
    let server = serve().await;
    let out = run_case("abort", &server, &[]).await;
    assert_eq!(
        out,
        json!({
            "before": "AbortError: This operation was aborted",
            "during": "AbortError: This operation was aborted",
            "custom": "Error: custom reason",
            "timeout": "TimeoutError: The operation was aborted due to timeout",
            "quick": true,
            "body": ["first", "AbortError: This operation was aborted"],
            "text": "AbortError: This operation was aborted",
            "late": "hello",
        })
    );
    // The Rust side let go of every aborted connection (3 waiting for a head, 2 mid-body).
    let mut seen = Vec::new();
    for _ in 0..100 {
        seen = server.events.lock().unwrap().clone();
        if seen.len() == 5 {
            break;
        }
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    seen.sort();
    assert_eq!(
        seen,
        [
            "slow-body: client closed",
            "slow-body: client closed",
            "slow: client closed",
            "slow: client closed",
            "slow: client closed"
        ]
    );
}

#[tokio::test(flavor = "multi_thread")]
async fn failures_have_nodes_shapes() {
    let server = serve().await;
    let closed = {
        let l = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
        l.local_addr().unwrap().port()
    };
    let out = run_case(
        "errors",
        &server,
        &[("closed", format!("http://127.0.0.1:{closed}/"))],
    )
    .await;
    let unsupported = "(only http:, https: and data:)";
    assert_eq!(
        out,
        json!({
            "refused": format!("TypeError: fetch failed | cause Error: connect ECONNREFUSED 127.0.0.1:{closed} (ECONNREFUSED)"),
            "refusedFields": ["ECONNREFUSED", -111, "connect", "127.0.0.1", closed],
            "badPort": "TypeError: fetch failed | cause Error: bad port",
            "badUrl": "TypeError: Failed to parse URL from /relative | cause TypeError: Invalid URL: /relative (ERR_INVALID_URL)",
            "ftp": format!("TypeError: fetch failed | cause Error: fetch of ftp: URLs is not supported by the Paseo plugin host {unsupported}"),
            "file": format!("TypeError: fetch failed | cause Error: fetch of file: URLs is not supported by the Paseo plugin host {unsupported}"),
            "getBody": "TypeError: Request with GET/HEAD method cannot have body.",
            "badHeader": "TypeError: Headers.append: \"bad name\" is an invalid header name.",
            "badValue": "TypeError: Headers.append: \"a\nb\" is an invalid header value.",
            "badMethod": "TypeError: 'CONNECT' HTTP method is unsupported.",
            "badRedirect": "TypeError: Request constructor: nope is not an accepted type. Expected one of follow, manual, error.",
            "noDuplex": "TypeError: RequestInit: duplex option is required when sending a body.",
            "redirectError": "TypeError: fetch failed | cause Error: unexpected redirect",
            "redirectLoop": "TypeError: fetch failed | cause Error: redirect count exceeded",
            "truncated": "TypeError: terminated | cause Error: end of file before message length reached",
            "formData": "Error: Response.formData is not supported by the Paseo plugin host yet",
            "newFormData": "Error: FormData is not supported by the Paseo plugin host yet",
            "credentials": "TypeError: Request cannot be constructed from a URL that includes credentials: http://user:pw@127.0.0.1/",
            "immutable": "TypeError: immutable",
            "dataText": "a b",
            "dataB64": [200, "text/plain", "hello"],
            "dataDefaultType": "text/plain;charset=US-ASCII",
        })
    );
}

#[tokio::test(flavor = "multi_thread")]
async fn web_classes_without_the_network() {
    let server = serve().await;
    let out = run_case("classes", &server, &[]).await;
    assert_eq!(
        out,
        json!({
            "get": ["1, 2", null, true],
            "entries": [["content-type", "text/plain"], ["set-cookie", "a=1"], ["set-cookie", "b=2"], ["x-a", "1, 2"]],
            "seen": ["content-type=text/plain", "set-cookie=a=1", "set-cookie=b=2", "x-a=1, 2"],
            "getSetCookie": ["a=1", "b=2"],
            "h2": [["set-cookie", "a=1"], ["set-cookie", "b=2"], ["x-a", "3"]],
            "badName": "TypeError: Headers.get: \"a b\" is an invalid header name.",
            "pairs": "TypeError: Headers constructor: expected name/value pair to be length 2, found 3.",
            "response": [201, "Created", true, "text/plain;charset=UTF-8", "y", "hi"],
            "json": [202, "application/json", { "a": 1 }],
            "error": ["error", 0, false, null],
            "redirect": [301, "http://a.example/x", "RangeError: Invalid status code 200"],
            "badStatus": "RangeError: init[\"status\"] must be in the range of 200 to 599, inclusive.",
            "nullBodyStatus": "TypeError: Response constructor: Invalid response status code 204",
            "clone": ["abc", "abc", "TypeError: Response.clone: Body has already been consumed."],
            "request": ["POST", "http://a.example/p", "text/plain;charset=UTF-8", "b", "follow", false, "x", "x"],
            "userStream": "ab",
            "counted": [0, 1, 2],
            "from": ["x", "y"],
            "tee": ["t", "t"],
            "blob": [3, "text/plain", "abc", "bc", "text/plain"],
            "released": "TypeError: Invalid state: The reader is not attached to a stream",
            "lockedTwice": "TypeError: Invalid state: ReadableStream is locked",
            "byob": "Error: ReadableStream.getReader({ mode: \"byob\" }) is not supported by the Paseo plugin host yet",
            "nonBytes": "TypeError: Received non-Uint8Array chunk",
            "globals": ["function", "function", "function", "function", "function", "function", "function", "function"],
        })
    );
}

// Bodies with a Content-Encoding undici decodes (gzip, deflate, br) reach the plugin decoded,
// with the header kept; a body that does not decode fails the read; an empty one is empty.
#[tokio::test(flavor = "multi_thread")]
async fn compressed_bodies_are_decoded() {
    let server = serve().await;
    let out = run_case("encodings", &server, &[]).await;
    assert_eq!(
        out,
        json!({
            "gzip": ["hello from gzip ".repeat(50), "gzip"],
            "deflate": ["hello from deflate ".repeat(50), "deflate"],
            "brotli": ["hello from brotli ".repeat(50), "br"],
            "bad": ["TypeError", true],
            "empty": "",
        })
    );
}
