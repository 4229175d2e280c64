//! The HTTP side of the MCP server: the accept loop (connection cap, header timeout) and each
//! request's checks before rmcp sees it (Origin and Host loopback, the agent's grant, its bearer
//! secret), then routing to the agent's service; `DELETE` of a session is answered here.

use std::cell::Cell;
use std::convert::Infallible;
use std::net::IpAddr;
use std::sync::Arc;
use std::time::Duration;

use http_body_util::combinators::BoxBody;
use http_body_util::{BodyExt, Full};
use hyper::body::{Bytes, Incoming};
use hyper::header::{
    HeaderMap, HeaderValue, AUTHORIZATION, CONTENT_TYPE, HOST, ORIGIN, WWW_AUTHENTICATE,
};
use hyper::{Method, Request, Response, StatusCode};
use hyper_util::rt::{TokioIo, TokioTimer};
use rmcp::transport::streamable_http_server::session::{SessionId, SessionManager};
use serde_json::json;
use tokio_util::sync::CancellationToken;

use super::sessions::{REFUSED, SESSION_HEADER};
use super::{Grant, Shared};

/// Pause after a failed `accept` (out of descriptors, say) before the next, instead of spinning.
const ACCEPT_BACKOFF: Duration = Duration::from_millis(200);

type HttpBody = BoxBody<Bytes, Infallible>;

/// A refusal with a JSON-RPC error body (MCP clients show its message).
fn refuse(status: StatusCode, code: i32, message: &str) -> Response<HttpBody> {
    let body =
        json!({ "jsonrpc": "2.0", "id": null, "error": { "code": code, "message": message } })
            .to_string();
    let mut response = Response::new(Full::new(Bytes::from(body)).boxed());
    *response.status_mut() = status;
    response
        .headers_mut()
        .insert(CONTENT_TYPE, HeaderValue::from_static("application/json"));
    response
}

fn unauthorized(message: &str, challenge: &'static str) -> Response<HttpBody> {
    let mut response = refuse(StatusCode::UNAUTHORIZED, -32000, message);
    response
        .headers_mut()
        .insert(WWW_AUTHENTICATE, HeaderValue::from_static(challenge));
    response
}

/// `/agents/<agentId>/mcp`, with the id percent-decoded; `None` for any other path.
fn agent_of(path: &str) -> Option<String> {
    let segment = path.strip_prefix("/agents/")?.strip_suffix("/mcp")?;
    if segment.is_empty() || segment.contains('/') {
        return None;
    }
    percent_decode(segment)
}

/// `host[:port]` names this machine's loopback: `127.0.0.1`, `localhost`, `[::1]` or the bound IP.
fn loopback_authority(authority: &str, bound: IpAddr) -> bool {
    let authority = authority.to_ascii_lowercase();
    let bound = match bound {
        IpAddr::V4(ip) => ip.to_string(),
        IpAddr::V6(ip) => format!("[{ip}]"),
    };
    ["127.0.0.1", "localhost", "[::1]", bound.as_str()]
        .iter()
        .any(|host| match authority.strip_prefix(host) {
            Some("") => true,
            Some(port) => port.strip_prefix(':').is_some_and(|p| {
                (1..=5).contains(&p.len()) && p.bytes().all(|b| b.is_ascii_digit())
            }),
            None => false,
        })
}

/// The MCP specification asks servers to validate `Origin` against DNS rebinding: a page in a
/// browser can reach loopback, but its origin is its own.
fn foreign_origin(headers: &HeaderMap, bound: IpAddr) -> bool {
    headers.get_all(ORIGIN).iter().any(|origin| {
        let origin = origin.to_str().unwrap_or_default();
        !origin
            .strip_prefix("http://")
            .is_some_and(|authority| loopback_authority(authority, bound))
    })
}

fn foreign_host(headers: &HeaderMap, bound: IpAddr) -> bool {
    headers
        .get(HOST)
        .is_some_and(|host| !loopback_authority(host.to_str().unwrap_or_default(), bound))
}

/// The token of `Authorization: Bearer <token>`.
fn bearer_token(headers: &HeaderMap) -> Option<&[u8]> {
    let value = headers.get(AUTHORIZATION)?.as_bytes();
    let space = value.iter().position(|b| *b == b' ')?;
    let (scheme, token) = value.split_at(space);
    scheme
        .eq_ignore_ascii_case(b"Bearer")
        .then(|| token.trim_ascii())
}

async fn serve(shared: Arc<Shared>, request: Request<Incoming>) -> Response<HttpBody> {
    // Nothing is kept for a request refused here: grants are made by the embedder only.
    let headers = request.headers();
    if foreign_origin(headers, shared.bound) {
        return refuse(
            StatusCode::FORBIDDEN,
            -32000,
            "Forbidden: the Origin header is not a loopback origin",
        );
    }
    if foreign_host(headers, shared.bound) {
        return refuse(
            StatusCode::FORBIDDEN,
            -32000,
            "Forbidden: the Host header is not a loopback address",
        );
    }
    let Some(agent_id) = agent_of(request.uri().path()) else {
        return refuse(
            StatusCode::NOT_FOUND,
            -32000,
            "Not Found: MCP endpoints are at /agents/<agentId>/mcp",
        );
    };
    let Some(grant) = shared.grants.lock().unwrap().get(&agent_id).cloned() else {
        return refuse(
            StatusCode::NOT_FOUND,
            -32000,
            "Not Found: no open agent session serves plugin tools at this path",
        );
    };
    match bearer_token(headers) {
        None => return unauthorized(
            "Unauthorized: this agent's MCP endpoint needs its Authorization: Bearer credential",
            "Bearer",
        ),
        Some(token) if !grant.secret.matches(token) => {
            return unauthorized(
                "Unauthorized: the bearer credential is not valid for this agent",
                "Bearer error=\"invalid_token\"",
            );
        }
        Some(_) => {}
    }
    if request.method() == Method::DELETE {
        return delete_session(&grant, request.headers()).await;
    }
    let (response, refused) = REFUSED
        .scope(Cell::new(None), async {
            let response = grant.service.handle(request).await;
            (response, REFUSED.with(Cell::get))
        })
        .await;
    match refused {
        Some(limit) => refuse(StatusCode::SERVICE_UNAVAILABLE, -32000, &limit.to_string()),
        None => response,
    }
}

/// The client ends its session. The MCP specification answers an unknown session 404; a
/// closed one gets 200 (some clients treat rmcp's 202 as a failure).
async fn delete_session(grant: &Grant, headers: &HeaderMap) -> Response<HttpBody> {
    let Some(session) = headers.get(SESSION_HEADER).and_then(|v| v.to_str().ok()) else {
        return refuse(
            StatusCode::BAD_REQUEST,
            -32000,
            "Bad Request: DELETE needs an Mcp-Session-Id header",
        );
    };
    if !grant.sessions.knows(session) {
        return refuse(StatusCode::NOT_FOUND, -32001, "Session not found");
    }
    let _ = grant
        .sessions
        .close_session(&SessionId::from(session))
        .await;
    Response::new(Full::new(Bytes::new()).boxed())
}

/// The accept loop: at most `limits.connections` connections, each served by hyper with a
/// header-read timeout (axum's `serve` cannot set one).
pub(super) async fn accept_connections(
    listener: tokio::net::TcpListener,
    shared: Arc<Shared>,
    stop: CancellationToken,
) {
    let mut failing = false;
    loop {
        let accepted = tokio::select! {
            accepted = listener.accept() => accepted,
            _ = stop.cancelled() => break,
        };
        let stream = match accepted {
            Ok((stream, _)) => stream,
            Err(e)
                if matches!(
                    e.kind(),
                    std::io::ErrorKind::ConnectionAborted | std::io::ErrorKind::ConnectionReset
                ) =>
            {
                continue
            }
            Err(e) => {
                if !failing {
                    tracing::warn!("MCP server cannot accept connections: {e}");
                }
                failing = true;
                tokio::time::sleep(ACCEPT_BACKOFF).await;
                continue;
            }
        };
        failing = false;
        let Ok(permit) = shared.connections.clone().try_acquire_owned() else {
            refuse_connection(stream, shared.limits.connections);
            continue;
        };
        let (shared, stop) = (shared.clone(), stop.clone());
        tokio::spawn(async move {
            let mut builder = hyper::server::conn::http1::Builder::new();
            builder
                .timer(TokioTimer::new())
                .header_read_timeout(shared.limits.header_timeout);
            let service = hyper::service::service_fn(move |request| {
                let shared = shared.clone();
                async move { Ok::<_, Infallible>(serve(shared, request).await) }
            });
            let connection = builder.serve_connection(TokioIo::new(stream), service);
            tokio::pin!(connection);
            tokio::select! {
                _ = connection.as_mut() => {}
                _ = stop.cancelled() => {
                    connection.as_mut().graceful_shutdown();
                    let _ = connection.await;
                }
            }
            drop(permit);
        });
    }
    // Stop listening, then let the connections finish (`shutdown` waits up to 5 s for this).
    drop(listener);
    let _ = shared
        .connections
        .acquire_many(shared.limits.connections as u32)
        .await;
}

/// Over the connection limit: a 503 written without waiting (the socket is fresh, so its send
/// buffer is empty), then the connection closes, so that it holds no descriptor.
fn refuse_connection(stream: tokio::net::TcpStream, limit: usize) {
    use std::io::Write;
    let body = json!({ "jsonrpc": "2.0", "id": null, "error": { "code": -32000, "message": format!("Too many connections to the MCP server (limit {limit})") } }).to_string();
    let response = format!(
        "HTTP/1.1 503 Service Unavailable\r\ncontent-type: application/json\r\ncontent-length: {}\r\nconnection: close\r\n\r\n{body}",
        body.len()
    );
    if let Ok(mut stream) = stream.into_std() {
        let _ = stream.write(response.as_bytes());
    }
}

/// Agent ids are opaque: anything outside RFC 3986's unreserved set is escaped.
pub(super) fn percent_encode(segment: &str) -> String {
    segment
        .bytes()
        .map(|b| match b {
            b'A'..=b'Z' | b'a'..=b'z' | b'0'..=b'9' | b'-' | b'.' | b'_' | b'~' => {
                (b as char).to_string()
            }
            _ => format!("%{b:02X}"),
        })
        .collect()
}

fn percent_decode(segment: &str) -> Option<String> {
    let bytes = segment.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        if bytes[i] == b'%' {
            let hex = std::str::from_utf8(bytes.get(i + 1..i + 3)?).ok()?;
            out.push(u8::from_str_radix(hex, 16).ok()?);
            i += 3;
        } else {
            out.push(bytes[i]);
            i += 1;
        }
    }
    String::from_utf8(out).ok()
}
