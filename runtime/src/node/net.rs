//! Ops behind `node:net`, `node:http` and `node:dns`: TCP and unix-socket listeners and streams
//! as resources in the `OpState` resource table, and `getaddrinfo` lookups. Errors carry Node's
//! exact messages (`connect ECONNREFUSED 127.0.0.1:9`,
//! `listen EADDRINUSE: address already in use 127.0.0.1:80`); js/node/net.js reads `code` and
//! `syscall` back out of them.

use std::borrow::Cow;
use std::cell::RefCell;
use std::io;
use std::net::{SocketAddr, ToSocketAddrs};
use std::path::PathBuf;
use std::rc::Rc;

use deno_core::{
    op2, AsyncRefCell, CancelHandle, CancelTryFuture, OpState, RcRef, Resource, ResourceId,
};
use deno_error::JsErrorBox;
use serde::Serialize;
use tokio::io::{AsyncRead, AsyncReadExt, AsyncWrite, AsyncWriteExt};
use tokio::net::{TcpListener, TcpStream, UnixListener, UnixStream};

/// Node's `host:port` detail: the port only when positive.
fn detail(address: &str, port: u16) -> String {
    if port > 0 {
        format!(" {address}:{port}")
    } else {
        format!(" {address}")
    }
}

/// `connect ECONNREFUSED 127.0.0.1:9` (Node's `exceptionWithHostPort`).
pub(super) fn sys_error(syscall: &str, e: &io::Error, detail: &str) -> JsErrorBox {
    JsErrorBox::generic(format!("{syscall} {}{detail}", super::uv(e).0))
}

/// `listen EADDRINUSE: address already in use 127.0.0.1:80` (Node's `uvExceptionWithHostPort`).
fn listen_error(e: &io::Error, detail: &str) -> JsErrorBox {
    let (code, text) = super::uv(e);
    JsErrorBox::generic(format!("listen {code}: {text}{detail}"))
}

pub(super) fn dns_error(host: &str, e: &io::Error) -> JsErrorBox {
    let code = if e.to_string().contains("Temporary failure") {
        "EAI_AGAIN"
    } else {
        "ENOTFOUND"
    };
    JsErrorBox::generic(format!("getaddrinfo {code} {host}"))
}

fn family(addr: &SocketAddr) -> &'static str {
    if addr.is_ipv4() {
        "IPv4"
    } else {
        "IPv6"
    }
}

struct ListenerResource {
    listener: Listener,
    cancel: CancelHandle,
}

enum Listener {
    Tcp(TcpListener),
    Unix(UnixListener, PathBuf),
}

impl Resource for ListenerResource {
    fn name(&self) -> Cow<'_, str> {
        "netListener".into()
    }
    fn close(self: Rc<Self>) {
        self.cancel.cancel();
        // libuv unlinks a pipe server's socket file when it closes; so do we.
        if let Listener::Unix(_, path) = &self.listener {
            let _ = std::fs::remove_file(path);
        }
    }
}

/// One connected socket, split so that a pending read does not block writes (node:tls keeps
/// its established sessions and pipe ends in these too).
pub(super) struct StreamResource {
    pub(super) rd: AsyncRefCell<Box<dyn AsyncRead + Unpin>>,
    pub(super) wr: AsyncRefCell<Box<dyn AsyncWrite + Unpin>>,
    pub(super) cancel: CancelHandle,
}

impl Resource for StreamResource {
    fn name(&self) -> Cow<'_, str> {
        "netStream".into()
    }
    fn close(self: Rc<Self>) {
        self.cancel.cancel();
    }
}

/// What JS learns about a listener or a connection. Unix sockets leave the TCP fields empty.
#[derive(Serialize, Default)]
#[serde(rename_all = "camelCase")]
pub struct Conn {
    pub(super) rid: ResourceId,
    local_address: String,
    local_port: u16,
    remote_address: String,
    remote_port: u16,
    family: &'static str,
}

fn add_tcp(state: &Rc<RefCell<OpState>>, stream: TcpStream) -> Conn {
    // Node's HTTP sets TCP_NODELAY on its sockets; doing it for all keeps small writes prompt.
    let _ = stream.set_nodelay(true);
    let mut conn = tcp_conn(&stream);
    let (rd, wr) = stream.into_split();
    conn.rid = add_stream(state, Box::new(rd), Box::new(wr));
    conn
}

/// What JS learns of a TCP connection's two ends (`rid` left to the caller).
pub(super) fn tcp_conn(stream: &TcpStream) -> Conn {
    let (local, remote) = (stream.local_addr().ok(), stream.peer_addr().ok());
    Conn {
        rid: 0,
        local_address: local.map(|a| a.ip().to_string()).unwrap_or_default(),
        local_port: local.map_or(0, |a| a.port()),
        remote_address: remote.map(|a| a.ip().to_string()).unwrap_or_default(),
        remote_port: remote.map_or(0, |a| a.port()),
        family: remote.as_ref().map_or("", family),
    }
}

/// Keeps any duplex stream as a `StreamResource`, split in two halves.
pub(super) fn add_duplex<T: AsyncRead + AsyncWrite + Unpin + 'static>(
    state: &mut OpState,
    stream: T,
) -> ResourceId {
    let (rd, wr) = tokio::io::split(stream);
    state.resource_table.add(StreamResource {
        rd: AsyncRefCell::new(Box::new(rd)),
        wr: AsyncRefCell::new(Box::new(wr)),
        cancel: CancelHandle::new(),
    })
}

fn add_unix(state: &Rc<RefCell<OpState>>, stream: UnixStream, path: String) -> Conn {
    let (rd, wr) = stream.into_split();
    Conn {
        rid: add_stream(state, Box::new(rd), Box::new(wr)),
        local_address: path,
        ..Default::default()
    }
}

fn add_stream(
    state: &Rc<RefCell<OpState>>,
    rd: Box<dyn AsyncRead + Unpin>,
    wr: Box<dyn AsyncWrite + Unpin>,
) -> ResourceId {
    let resource = StreamResource {
        rd: AsyncRefCell::new(rd),
        wr: AsyncRefCell::new(wr),
        cancel: CancelHandle::new(),
    };
    state.borrow_mut().resource_table.add(resource)
}

pub(super) fn stream(
    state: &Rc<RefCell<OpState>>,
    rid: ResourceId,
) -> Result<Rc<StreamResource>, JsErrorBox> {
    state
        .borrow()
        .resource_table
        .get::<StreamResource>(rid)
        .map_err(JsErrorBox::from_err)
}

/// Binds a TCP listener. An empty host means every interface (`::`, else `0.0.0.0`), as Node's
/// `listen(port)` does.
#[op2]
#[serde]
pub fn op_net_listen_tcp(
    state: &mut OpState,
    #[string] host: &str,
    #[smi] port: u32,
) -> Result<Conn, JsErrorBox> {
    super::permission::net(state, host, Some(port as u16))?;
    let port = port as u16;
    let candidates: Vec<SocketAddr> = if host.is_empty() {
        vec![
            SocketAddr::from(([0u16; 8], port)),
            SocketAddr::from(([0u8; 4], port)),
        ]
    } else {
        let addrs = (host, port)
            .to_socket_addrs()
            .map_err(|e| dns_error(host, &e))?;
        addrs.take(1).collect()
    };
    let mut last = None;
    for addr in candidates {
        match std::net::TcpListener::bind(addr) {
            Ok(std_listener) => {
                std_listener
                    .set_nonblocking(true)
                    .map_err(|e| listen_error(&e, &detail(&addr.ip().to_string(), port)))?;
                let listener =
                    TcpListener::from_std(std_listener).map_err(|e| listen_error(&e, ""))?;
                let local = listener.local_addr().map_err(|e| listen_error(&e, ""))?;
                let rid = state.resource_table.add(ListenerResource {
                    listener: Listener::Tcp(listener),
                    cancel: CancelHandle::new(),
                });
                return Ok(Conn {
                    rid,
                    local_address: local.ip().to_string(),
                    local_port: local.port(),
                    family: family(&local),
                    ..Default::default()
                });
            }
            Err(e) => last = Some((addr, e)),
        }
    }
    let (addr, e) =
        last.ok_or_else(|| JsErrorBox::generic(format!("getaddrinfo ENOTFOUND {host}")))?;
    Err(listen_error(&e, &detail(&addr.ip().to_string(), port)))
}

#[op2]
#[serde]
pub fn op_net_listen_unix(state: &mut OpState, #[string] path: String) -> Result<Conn, JsErrorBox> {
    super::permission::write(state, &path)?;
    let std_listener = std::os::unix::net::UnixListener::bind(&path)
        .map_err(|e| listen_error(&e, &format!(" {path}")))?;
    std_listener
        .set_nonblocking(true)
        .map_err(|e| listen_error(&e, &format!(" {path}")))?;
    let listener =
        UnixListener::from_std(std_listener).map_err(|e| listen_error(&e, &format!(" {path}")))?;
    let rid = state.resource_table.add(ListenerResource {
        listener: Listener::Unix(listener, PathBuf::from(&path)),
        cancel: CancelHandle::new(),
    });
    Ok(Conn {
        rid,
        local_address: path,
        ..Default::default()
    })
}

/// Waits for the next connection; rejects once the listener is closed.
#[op2]
#[serde]
pub async fn op_net_accept(
    state: Rc<RefCell<OpState>>,
    #[smi] rid: ResourceId,
) -> Result<Conn, JsErrorBox> {
    let resource = state
        .borrow()
        .resource_table
        .get::<ListenerResource>(rid)
        .map_err(JsErrorBox::from_err)?;
    let cancel = RcRef::map(&resource, |r| &r.cancel);
    match &resource.listener {
        Listener::Tcp(l) => {
            let (stream, _) = l
                .accept()
                .try_or_cancel(cancel)
                .await
                .map_err(|e| sys_error("accept", &e, ""))?;
            Ok(add_tcp(&state, stream))
        }
        Listener::Unix(l, path) => {
            let (stream, _) = l
                .accept()
                .try_or_cancel(cancel)
                .await
                .map_err(|e| sys_error("accept", &e, ""))?;
            Ok(add_unix(
                &state,
                stream,
                path.to_string_lossy().into_owned(),
            ))
        }
    }
}

/// Connects to the first address of `host` that accepts; the error names the last one tried.
#[op2]
#[serde]
pub async fn op_net_connect_tcp(
    state: Rc<RefCell<OpState>>,
    #[string] host: String,
    #[smi] port: u32,
) -> Result<Conn, JsErrorBox> {
    super::permission::check_rc(&state, |p| p.check_net(&host, Some(port as u16)))?;
    let port = port as u16;
    let addrs = tokio::net::lookup_host((host.as_str(), port))
        .await
        .map_err(|e| dns_error(&host, &e))?;
    let mut last = None;
    for addr in addrs {
        match TcpStream::connect(addr).await {
            Ok(stream) => return Ok(add_tcp(&state, stream)),
            Err(e) => last = Some((addr, e)),
        }
    }
    let (addr, e) =
        last.ok_or_else(|| JsErrorBox::generic(format!("getaddrinfo ENOTFOUND {host}")))?;
    Err(sys_error(
        "connect",
        &e,
        &detail(&addr.ip().to_string(), port),
    ))
}

#[op2]
#[serde]
pub async fn op_net_connect_unix(
    state: Rc<RefCell<OpState>>,
    #[string] path: String,
) -> Result<Conn, JsErrorBox> {
    super::permission::check_rc(&state, |p| {
        p.check_path(crate::permissions::Kind::Read, std::path::Path::new(&path))
    })?;
    let stream = UnixStream::connect(&path)
        .await
        .map_err(|e| sys_error("connect", &e, &format!(" {path}")))?;
    Ok(add_unix(&state, stream, String::new()))
}

// The stream ops, for every stream resource: TCP and unix sockets, TLS sessions (tls/) and
// the in-memory pipes a TLS session runs over.

/// The next chunk (up to 64 KiB); empty at end of stream. A TLS peer that closes without
/// close_notify (as many HTTPS servers do) ends the stream too, as under Node.
#[op2]
#[buffer]
pub async fn op_net_read(
    state: Rc<RefCell<OpState>>,
    #[smi] rid: ResourceId,
) -> Result<Vec<u8>, JsErrorBox> {
    let resource = stream(&state, rid)?;
    let mut rd = RcRef::map(&resource, |r| &r.rd).borrow_mut().await;
    let cancel = RcRef::map(&resource, |r| &r.cancel);
    let mut buf = vec![0; 64 * 1024];
    let n = match rd.read(&mut buf).try_or_cancel(cancel).await {
        Ok(n) => n,
        Err(e) if e.kind() == io::ErrorKind::UnexpectedEof => 0,
        Err(e) => return Err(stream_error("read", &e)),
    };
    buf.truncate(n);
    Ok(buf)
}

/// Writes all of `data` (and flushes it out of a TLS session's buffers).
#[op2]
pub async fn op_net_write(
    state: Rc<RefCell<OpState>>,
    #[smi] rid: ResourceId,
    #[buffer(copy)] data: Vec<u8>,
) -> Result<(), JsErrorBox> {
    let resource = stream(&state, rid)?;
    let mut wr = RcRef::map(&resource, |r| &r.wr).borrow_mut().await;
    let cancel = RcRef::map(&resource, |r| &r.cancel);
    async {
        wr.write_all(&data).await?;
        wr.flush().await
    }
    .try_or_cancel(cancel)
    .await
    .map_err(|e| stream_error("write", &e))
}

/// Half-closes the write side: FIN on a socket; close_notify, then FIN, on a TLS session.
#[op2]
pub async fn op_net_shutdown(
    state: Rc<RefCell<OpState>>,
    #[smi] rid: ResourceId,
) -> Result<(), JsErrorBox> {
    let resource = stream(&state, rid)?;
    let mut wr = RcRef::map(&resource, |r| &r.wr).borrow_mut().await;
    let cancel = RcRef::map(&resource, |r| &r.cancel);
    wr.shutdown()
        .try_or_cancel(cancel)
        .await
        .map_err(|e| stream_error("shutdown", &e))
}

/// A stream I/O error: the OS's code, or for failures the OS did not report (TLS's), `EPROTO`
/// for a protocol error, `EPIPE` or `ECONNRESET`.
fn stream_error(syscall: &str, e: &io::Error) -> JsErrorBox {
    if e.raw_os_error().is_some() {
        return sys_error(syscall, e, "");
    }
    match e.kind() {
        io::ErrorKind::InvalidData => JsErrorBox::generic(format!("{syscall} EPROTO")),
        io::ErrorKind::BrokenPipe => JsErrorBox::generic(format!("{syscall} EPIPE")),
        _ => JsErrorBox::generic(format!("{syscall} ECONNRESET")),
    }
}

/// Closes a listener or stream; its pending ops reject. Closing twice is harmless.
#[op2(fast)]
pub fn op_net_close(state: &mut OpState, #[smi] rid: ResourceId) {
    if let Ok(resource) = state.resource_table.take_any(rid) {
        resource.close();
    }
}

/// `getaddrinfo` results as `[address, family]`, in the resolver's order, without duplicates.
#[op2]
#[serde]
pub async fn op_dns_lookup(
    state: Rc<RefCell<OpState>>,
    #[string] host: String,
) -> Result<Vec<(String, u8)>, JsErrorBox> {
    super::permission::check_rc(&state, |p| p.check_net(&host, None))?;
    let addrs = tokio::net::lookup_host((host.as_str(), 0))
        .await
        .map_err(|e| dns_error(&host, &e))?;
    let mut out: Vec<(String, u8)> = Vec::new();
    for addr in addrs {
        let entry = (addr.ip().to_string(), if addr.is_ipv4() { 4 } else { 6 });
        if !out.contains(&entry) {
            out.push(entry);
        }
    }
    if out.is_empty() {
        return Err(JsErrorBox::generic(format!("getaddrinfo ENOTFOUND {host}")));
    }
    Ok(out)
}

deno_core::extension!(
    paseo_net,
    ops = [
        op_net_listen_tcp,
        op_net_listen_unix,
        op_net_accept,
        op_net_connect_tcp,
        op_net_connect_unix,
        op_net_read,
        op_net_write,
        op_net_shutdown,
        op_net_close,
        op_dns_lookup,
    ],
);
