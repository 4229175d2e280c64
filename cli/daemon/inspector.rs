//! `--inspect`: the V8 inspector of inspected plugins, served as `node --inspect` serves it, so
//! that Chrome's `chrome://inspect` and VS Code's "attach" find and drive it: `GET /json/list`
//! (and `/json`) lists one target per inspected plugin, `GET /json/version` names the host, and
//! a WebSocket at `/<uuid>` carries the Chrome DevTools Protocol to and from the plugin's
//! isolate (`PluginHost::debug_connect`).
//!
//! Anyone who attaches runs code as the daemon's owner, so, as Node does and more:
//! - it listens where it is told, loopback by default; anything else gets a warning on stderr;
//! - each target's path holds a random UUID;
//! - a request's `Host` header must be `localhost` or an IP address (DNS rebinding);
//! - a connection over loopback must come from a process of the daemon's own user: its uid is
//!   read from the kernel's socket table (`/proc/net/tcp`), as the control socket checks
//!   `SO_PEERCRED`; a connection whose user cannot be told is refused.
//! - 16 connections at once; 10 s to send the headers.

use std::collections::BTreeMap;
use std::convert::Infallible;
use std::net::{IpAddr, SocketAddr};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use futures::{SinkExt, StreamExt};
use http_body_util::Full;
use hyper::body::{Bytes, Incoming};
use hyper::header::{
    CONNECTION, CONTENT_TYPE, HOST, SEC_WEBSOCKET_ACCEPT, SEC_WEBSOCKET_KEY, UPGRADE,
};
use hyper::{Request, Response, StatusCode};
use hyper_util::rt::{TokioIo, TokioTimer};
use paseo_plugin_runtime::PluginHost;
use serde_json::{json, Value};
use tokio::sync::Semaphore;
use tokio_tungstenite::tungstenite::handshake::derive_accept_key;
use tokio_tungstenite::tungstenite::protocol::Role;
use tokio_tungstenite::tungstenite::Message;
use tokio_tungstenite::WebSocketStream;

const CONNECTIONS: usize = 16;
const HEADER_TIMEOUT: Duration = Duration::from_secs(10);
/// How long a debugger that attaches while its plugin's isolate is starting waits for it.
const ATTACH_WAIT: Duration = Duration::from_secs(10);

/// The inspector's server: its address and the UUID of each plugin's target.
pub struct Inspector {
    host: Arc<PluginHost>,
    pub addr: SocketAddr,
    /// Each plugin's target UUID, made the first time the plugin is listed or announced.
    uuids: Mutex<BTreeMap<String, String>>,
    /// Plugins announced on stderr already.
    announced: Mutex<std::collections::BTreeSet<String>>,
}

/// The inspector needs V8: what the QuickJS build says to `--inspect`.
pub fn check_engine() -> Result<(), String> {
    if cfg!(feature = "v8") {
        Ok(())
    } else {
        Err("the inspector needs the V8 engine; this binary runs QuickJS — build with `--features v8`".into())
    }
}

impl Inspector {
    /// Listens on `addr` and serves the inspected plugins of `host`.
    pub async fn serve(host: Arc<PluginHost>, addr: SocketAddr) -> Result<Arc<Inspector>, String> {
        check_engine()?;
        let listener = tokio::net::TcpListener::bind(addr)
            .await
            .map_err(|e| format!("--inspect {addr}: {e}"))?;
        let bound = listener.local_addr().map_err(|e| e.to_string())?;
        if !bound.ip().is_loopback() {
            eprintln!(
                "Warning: the inspector listens on {bound}, beyond this machine's loopback. Anyone \
                 who can reach it and learn a target's URL can run any code as this user. Bind it \
                 to 127.0.0.1 unless you know what you are doing."
            );
        }
        let inspector = Arc::new(Inspector {
            host,
            addr: bound,
            uuids: Mutex::default(),
            announced: Mutex::default(),
        });
        let connections = Arc::new(Semaphore::new(CONNECTIONS));
        let server = inspector.clone();
        tokio::spawn(async move {
            loop {
                let (stream, peer) = match listener.accept().await {
                    Ok(accepted) => accepted,
                    Err(e) => {
                        tracing::warn!("inspector cannot accept connections: {e}");
                        tokio::time::sleep(Duration::from_millis(100)).await;
                        continue;
                    }
                };
                let Ok(permit) = connections.clone().try_acquire_owned() else {
                    continue;
                };
                let local = stream.local_addr().ok();
                if let Err(why) =
                    local.map_or(Err("no local address".into()), |l| own_user(l, peer))
                {
                    tracing::warn!("inspector refused a connection from {peer}: {why}");
                    continue;
                }
                let server = server.clone();
                tokio::spawn(async move {
                    let service = hyper::service::service_fn(move |request| {
                        let server = server.clone();
                        async move { Ok::<_, Infallible>(server.answer(request)) }
                    });
                    let _ = hyper::server::conn::http1::Builder::new()
                        .timer(TokioTimer::new())
                        .header_read_timeout(HEADER_TIMEOUT)
                        .serve_connection(TokioIo::new(stream), service)
                        .with_upgrades()
                        .await;
                    drop(permit);
                });
            }
        });
        Ok(inspector)
    }

    fn uuid(&self, id: &str) -> String {
        self.uuids
            .lock()
            .unwrap()
            .entry(id.to_string())
            .or_insert_with(|| uuid::Uuid::new_v4().to_string())
            .clone()
    }

    /// The WebSocket URL of plugin `id`'s target.
    pub fn url(&self, id: &str) -> String {
        format!("ws://{}/{}", self.addr, self.uuid(id))
    }

    /// Says on stderr, as Node does, where the debugger of each plugin in `ids` (or of every
    /// inspected plugin) not announced yet listens.
    pub fn announce(&self, ids: Option<&[String]>) {
        let ids: Vec<String> = match ids {
            Some(ids) => ids.to_vec(),
            None => self
                .host
                .debug_targets()
                .into_iter()
                .map(|t| t.id)
                .collect(),
        };
        for id in ids {
            if self.announced.lock().unwrap().insert(id.clone()) {
                eprintln!("Debugger listening on {} (plugin {id})", self.url(&id));
            }
        }
        eprintln!("For help, see: https://nodejs.org/en/docs/inspector");
    }

    fn answer(self: &Arc<Self>, request: Request<Incoming>) -> Response<Full<Bytes>> {
        let reply = |status: StatusCode, body: String| {
            let mut response = Response::new(Full::new(Bytes::from(body)));
            *response.status_mut() = status;
            response
        };
        let Some(host) = request
            .headers()
            .get(HOST)
            .and_then(|h| h.to_str().ok())
            .filter(|h| allowed_host(h))
            .map(str::to_string)
        else {
            return reply(
                StatusCode::FORBIDDEN,
                "Host header is not an IP address or localhost\n".into(),
            );
        };
        let path = request.uri().path().trim_end_matches('/');
        match path {
            "/json" | "/json/list" => {
                let list: Vec<Value> = self
                    .host
                    .debug_targets()
                    .into_iter()
                    .map(|t| {
                        let uuid = self.uuid(&t.id);
                        let ws = format!("{host}/{uuid}");
                        json!({
                            "description": format!("paseo plugin {} ({:?})", t.id, t.status).to_lowercase(),
                            "devtoolsFrontendUrl": format!("devtools://devtools/bundled/js_app.html?experiments=true&v8only=true&ws={ws}"),
                            "devtoolsFrontendUrlCompat": format!("devtools://devtools/bundled/inspector.html?experiments=true&v8only=true&ws={ws}"),
                            "faviconUrl": "https://nodejs.org/static/images/favicons/favicon.ico",
                            "id": uuid,
                            "title": format!("paseo plugin {}", t.id),
                            "type": "node",
                            "url": t.url,
                            "webSocketDebuggerUrl": format!("ws://{ws}"),
                        })
                    })
                    .collect();
                json_reply(json!(list))
            }
            "/json/version" => json_reply(json!({
                "Browser": format!("paseo/{}", env!("CARGO_PKG_VERSION")),
                "Protocol-Version": "1.1",
            })),
            _ => {
                let uuid = path.trim_start_matches('/');
                let plugin = self
                    .uuids
                    .lock()
                    .unwrap()
                    .iter()
                    .find(|(_, u)| u.as_str() == uuid)
                    .map(|(id, _)| id.clone());
                match plugin {
                    Some(id) => self.upgrade(request, id),
                    None => reply(StatusCode::NOT_FOUND, "No such target\n".into()),
                }
            }
        }
    }

    /// Takes a WebSocket request for plugin `id`'s target and bridges it to the isolate.
    fn upgrade(
        self: &Arc<Self>,
        mut request: Request<Incoming>,
        id: String,
    ) -> Response<Full<Bytes>> {
        let key = request
            .headers()
            .get(SEC_WEBSOCKET_KEY)
            .map(|k| derive_accept_key(k.as_bytes()));
        let wants = request
            .headers()
            .get(UPGRADE)
            .and_then(|v| v.to_str().ok())
            .is_some_and(|v| v.eq_ignore_ascii_case("websocket"));
        let Some(accept) = key.filter(|_| wants) else {
            let mut response =
                Response::new(Full::new(Bytes::from("WebSocket request was expected\n")));
            *response.status_mut() = StatusCode::BAD_REQUEST;
            return response;
        };
        let upgrade = hyper::upgrade::on(&mut request);
        let host = self.host.clone();
        tokio::spawn(async move {
            let Ok(upgraded) = upgrade.await else {
                return;
            };
            let socket =
                WebSocketStream::from_raw_socket(TokioIo::new(upgraded), Role::Server, None).await;
            bridge(&host, &id, socket).await;
        });
        let mut response = Response::new(Full::new(Bytes::new()));
        *response.status_mut() = StatusCode::SWITCHING_PROTOCOLS;
        let headers = response.headers_mut();
        headers.insert(UPGRADE, "websocket".parse().unwrap());
        headers.insert(CONNECTION, "Upgrade".parse().unwrap());
        headers.insert(SEC_WEBSOCKET_ACCEPT, accept.parse().unwrap());
        response
    }
}

/// Carries the protocol between a debugger's WebSocket and plugin `id`'s isolate until either
/// side goes. A plugin still starting is waited for (`ATTACH_WAIT`).
async fn bridge<S>(host: &PluginHost, id: &str, socket: WebSocketStream<S>)
where
    S: tokio::io::AsyncRead + tokio::io::AsyncWrite + Unpin,
{
    let started = std::time::Instant::now();
    let mut session = loop {
        match host.debug_connect(id) {
            Ok(session) => break session,
            Err(_) if started.elapsed() < ATTACH_WAIT => {
                tokio::time::sleep(Duration::from_millis(50)).await;
            }
            Err(e) => {
                let (mut tx, _) = socket.split();
                let _ = tx.send(Message::Close(None)).await;
                tracing::warn!("debugger for plugin {id}: {e}");
                return;
            }
        }
    };
    let (mut tx, mut rx) = socket.split();
    loop {
        tokio::select! {
            incoming = rx.next() => match incoming {
                Some(Ok(Message::Text(text))) => {
                    if !session.send(text.to_string()) {
                        break;
                    }
                }
                Some(Ok(Message::Ping(_) | Message::Pong(_) | Message::Frame(_) | Message::Binary(_))) => {}
                Some(Ok(Message::Close(_)) | Err(_)) | None => break,
            },
            outgoing = session.recv() => match outgoing {
                Some(text) => {
                    if tx.send(Message::Text(text.into())).await.is_err() {
                        break;
                    }
                }
                // The isolate went (a reload, a stop): the debugger reattaches to the next.
                None => {
                    let _ = tx.send(Message::Close(None)).await;
                    break;
                }
            },
        }
    }
}

fn json_reply(value: Value) -> Response<Full<Bytes>> {
    let mut response = Response::new(Full::new(Bytes::from(value.to_string())));
    response.headers_mut().insert(
        CONTENT_TYPE,
        "application/json; charset=UTF-8".parse().unwrap(),
    );
    response
}

/// Node's rule against DNS rebinding: the `Host` a browser sent names this machine by address
/// or as `localhost`, never by a name someone else's DNS could point here.
fn allowed_host(header: &str) -> bool {
    let name = if let Some(rest) = header.strip_prefix('[') {
        // [v6]:port
        return rest
            .split_once(']')
            .is_some_and(|(ip, _)| ip.parse::<std::net::Ipv6Addr>().is_ok());
    } else {
        header.rsplit_once(':').map_or(header, |(name, _)| name)
    };
    name.eq_ignore_ascii_case("localhost")
        || name.eq_ignore_ascii_case("localhost6")
        || name.parse::<IpAddr>().is_ok()
}

/// Whether the process at the other end of a loopback connection runs as this user: the uid
/// the kernel's TCP table gives the peer's socket. Connections from elsewhere (an inspector
/// bound beyond loopback, with its warning) have no such check.
fn own_user(local: SocketAddr, peer: SocketAddr) -> Result<(), String> {
    if !peer.ip().is_loopback() {
        return Ok(());
    }
    // SAFETY: geteuid has no preconditions.
    let me = unsafe { libc::geteuid() };
    let uid = peer_uid(local, peer).ok_or("cannot tell which user it runs as")?;
    if uid == me {
        Ok(())
    } else {
        Err(format!("it runs as uid {uid}, not {me}"))
    }
}

/// The uid owning the socket bound at `peer` and connected to `local`, from
/// /proc/net/tcp (IPv4) or /proc/net/tcp6.
fn peer_uid(local: SocketAddr, peer: SocketAddr) -> Option<u32> {
    let (file, want_local, want_remote) = match (peer, local) {
        (SocketAddr::V4(p), SocketAddr::V4(l)) => ("/proc/net/tcp", hex_v4(p), hex_v4(l)),
        (p, l) => ("/proc/net/tcp6", hex_v6(p), hex_v6(l)),
    };
    let table = std::fs::read_to_string(file).ok()?;
    table.lines().skip(1).find_map(|line| {
        let fields: Vec<&str> = line.split_whitespace().collect();
        // sl local_address rem_address st tx:rx tr:when retrnsmt uid …
        (fields.len() > 7 && fields[1] == want_local && fields[2] == want_remote)
            .then(|| fields[7].parse().ok())
            .flatten()
    })
}

/// An IPv4 socket address as /proc/net/tcp writes it: the address as a native-endian u32 in
/// hex, then the port.
fn hex_v4(addr: std::net::SocketAddrV4) -> String {
    format!(
        "{:08X}:{:04X}",
        u32::from_ne_bytes(addr.ip().octets()),
        addr.port()
    )
}

/// An address as /proc/net/tcp6 writes it: four native-endian u32 in hex (an IPv4 peer as
/// its mapped IPv6 address), then the port.
fn hex_v6(addr: SocketAddr) -> String {
    let ip = match addr.ip() {
        IpAddr::V4(v4) => v4.to_ipv6_mapped(),
        IpAddr::V6(v6) => v6,
    };
    let octets = ip.octets();
    let words: String = octets
        .chunks(4)
        .map(|c| format!("{:08X}", u32::from_ne_bytes([c[0], c[1], c[2], c[3]])))
        .collect();
    format!("{words}:{:04X}", addr.port())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_addresses_and_localhost_are_hosts_a_browser_may_name() {
        for ok in [
            "127.0.0.1:9229",
            "localhost:9229",
            "LOCALHOST",
            "[::1]:9229",
            "10.0.0.2",
        ] {
            assert!(allowed_host(ok), "{ok}");
        }
        for bad in ["evil.example:9229", "example.com", "[nope]:1", ""] {
            assert!(!allowed_host(bad), "{bad}");
        }
    }

    #[test]
    fn a_loopback_peer_of_this_user_is_found_in_the_socket_table() {
        let rt = tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .build()
            .unwrap();
        rt.block_on(async {
            let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
            let addr = listener.local_addr().unwrap();
            let _client = tokio::net::TcpStream::connect(addr).await.unwrap();
            let (stream, peer) = listener.accept().await.unwrap();
            let local = stream.local_addr().unwrap();
            // SAFETY: geteuid has no preconditions.
            assert_eq!(peer_uid(local, peer), Some(unsafe { libc::geteuid() }));
            assert_eq!(own_user(local, peer), Ok(()));
        });
    }
}
