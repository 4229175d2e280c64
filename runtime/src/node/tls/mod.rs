//! Ops behind `node:tls` and `node:https`: TLS client and server streams on rustls (aws-lc-rs),
//! as resources in the `OpState` resource table, read and written by js/node/tls.js the way
//! js/node/net.js reads and writes TCP streams.
//!
//! A connection goes through three resources: a *pending* transport (a TCP connection this file
//! opened, or one end of an in-memory pipe whose other end JS pumps to a socket of its own, for
//! `tls.connect({ socket })` and the server side), the handshake, then a *stream* of plaintext.
//! Certificates are checked as OpenSSL checks them for Node: the chain against the trusted roots
//! (Mozilla's, as Node bundles them, plus `NODE_EXTRA_CA_CERTS`; or exactly the `ca` the plugin
//! gave), with the outcome named by Node's codes (`UNABLE_TO_VERIFY_LEAF_SIGNATURE`,
//! `CERT_HAS_EXPIRED`, ...). A failed chain fails the handshake unless the plugin passed
//! `rejectUnauthorized: false`; the host name is then checked in JS by `checkServerIdentity`, as
//! Node does. The handshake's own signatures are always verified.
//!
//! This file holds the ops, the secure contexts, the sessions and the handshake's errors; the
//! chain check is in `verify`, the peer certificate as Node describes it in `cert_info`, and the
//! DER reader both use in `der`.

mod cert_info;
mod der;
mod verify;

use std::borrow::Cow;
use std::cell::RefCell;
use std::io;
use std::net::{IpAddr, SocketAddr};
use std::rc::Rc;
use std::sync::{Arc, OnceLock};

use deno_core::{op2, CancelHandle, CancelTryFuture, OpState, RcRef, Resource, ResourceId};
use deno_error::JsErrorBox;
use rustls::client::ResolvesClientCert;
use rustls::crypto::CryptoProvider;
use rustls::pki_types::pem::PemObject;
use rustls::pki_types::{CertificateDer, PrivateKeyDer, ServerName};
use rustls::server::{ClientHello, ResolvesServerCert};
use rustls::sign::CertifiedKey;
use rustls::{CommonState, ProtocolVersion, SignatureScheme, SupportedProtocolVersion};
use serde::{Deserialize, Serialize};
use tokio::io::{AsyncRead, AsyncWrite};
use tokio::net::TcpStream;

use cert_info::{base64, cert_info, CertInfo};
use verify::{code_message, default_anchors, Anchors, NodeVerifier, Record, Verdict};

/// What a TLS session runs over.
trait Io: AsyncRead + AsyncWrite + Unpin {}
impl<T: AsyncRead + AsyncWrite + Unpin> Io for T {}
type Transport = Box<dyn Io>;

fn provider() -> Arc<CryptoProvider> {
    static PROVIDER: OnceLock<Arc<CryptoProvider>> = OnceLock::new();
    PROVIDER
        .get_or_init(|| Arc::new(rustls::crypto::aws_lc_rs::default_provider()))
        .clone()
}

/// An error for js/node/tls.js: `CODE: message` becomes an `Error` with that `code`.
fn coded(code: &str, message: impl std::fmt::Display) -> JsErrorBox {
    JsErrorBox::generic(format!("{code}: {message}"))
}

// ---------------------------------------------------------------------------------------------
// Resources

/// A transport waiting for its handshake.
struct PendingResource {
    io: RefCell<Option<Transport>>,
    cancel: CancelHandle,
}

impl Resource for PendingResource {
    fn name(&self) -> Cow<'_, str> {
        "tlsPending".into()
    }
    fn close(self: Rc<Self>) {
        self.cancel.cancel();
    }
}

// Established TLS streams (plaintext) and JS's ends of pipes (ciphertext) are net.rs's
// `StreamResource`s; connections are described as net.rs describes them.
use super::net::{add_duplex as add_stream, dns_error, sys_error, tcp_conn, Conn};

/// Opens the TCP connection a TLS session will run over.
#[op2]
#[serde]
pub async fn op_tls_connect_tcp(
    state: Rc<RefCell<OpState>>,
    #[string] host: String,
    #[smi] port: u32,
) -> Result<Conn, JsErrorBox> {
    super::permission::check_rc(&state, |p| p.check_net(&host, Some(port as u16)))?;
    let port = port as u16;
    let addrs = tokio::net::lookup_host((host.as_str(), port))
        .await
        .map_err(|e| dns_error(&host, &e))?;
    let mut last: Option<(SocketAddr, io::Error)> = None;
    for addr in addrs {
        match TcpStream::connect(addr).await {
            Ok(stream) => {
                let _ = stream.set_nodelay(true);
                let mut conn = tcp_conn(&stream);
                conn.rid = state.borrow_mut().resource_table.add(PendingResource {
                    io: RefCell::new(Some(Box::new(stream))),
                    cancel: CancelHandle::new(),
                });
                return Ok(conn);
            }
            Err(e) => last = Some((addr, e)),
        }
    }
    let (addr, e) =
        last.ok_or_else(|| JsErrorBox::generic(format!("getaddrinfo ENOTFOUND {host}")))?;
    let detail = if port > 0 {
        format!(" {}:{port}", addr.ip())
    } else {
        format!(" {}", addr.ip())
    };
    Err(sys_error("connect", &e, &detail))
}

/// An in-memory pipe: `[pending, pipe]`. The TLS session runs over the pending end; JS moves the
/// ciphertext between the pipe end (read and written with the stream ops) and a socket of its own.
#[op2]
#[serde]
pub fn op_tls_pipe(state: &mut OpState) -> (ResourceId, ResourceId) {
    let (tls_end, js_end) = tokio::io::duplex(64 * 1024);
    let pending = state.resource_table.add(PendingResource {
        io: RefCell::new(Some(Box::new(tls_end))),
        cancel: CancelHandle::new(),
    });
    (pending, add_stream(state, js_end))
}

// ---------------------------------------------------------------------------------------------
// Contexts (Node's SecureContext): trusted roots, own certificate, protocol versions

/// The options of `tls.createSecureContext` this host honours. PEM texts throughout.
#[derive(Deserialize, Default)]
#[serde(rename_all = "camelCase", default)]
pub struct ContextOptions {
    ca: Option<Vec<String>>,
    cert: Vec<String>,
    key: Vec<String>,
    min_version: Option<String>,
    max_version: Option<String>,
}

struct ContextResource {
    anchors: Arc<Anchors>,
    key: Option<Arc<CertifiedKey>>,
    versions: Vec<&'static SupportedProtocolVersion>,
}

impl Resource for ContextResource {
    fn name(&self) -> Cow<'_, str> {
        "tlsContext".into()
    }
}

fn no_start_line() -> JsErrorBox {
    coded(
        "ERR_OSSL_PEM_NO_START_LINE",
        "error:0480006C:PEM routines::no start line",
    )
}

fn pem_certs(texts: &[String]) -> Result<Vec<CertificateDer<'static>>, JsErrorBox> {
    let mut out = Vec::new();
    for text in texts {
        let before = out.len();
        for cert in CertificateDer::pem_slice_iter(text.as_bytes()) {
            out.push(cert.map_err(|e| {
                coded(
                    "ERR_OSSL_PEM_BAD_BASE64_DECODE",
                    format!("error:1E08010C:DECODER routines::unsupported ({e})"),
                )
            })?);
        }
        if out.len() == before {
            return Err(no_start_line());
        }
    }
    Ok(out)
}

fn versions(
    min: Option<&str>,
    max: Option<&str>,
) -> Result<Vec<&'static SupportedProtocolVersion>, JsErrorBox> {
    let rank = |v: &str| match v {
        "TLSv1" => Ok(0),
        "TLSv1.1" => Ok(1),
        "TLSv1.2" => Ok(2),
        "TLSv1.3" => Ok(3),
        other => Err(coded(
            "ERR_TLS_INVALID_PROTOCOL_VERSION",
            format!("{other} is not a valid TLS protocol version"),
        )),
    };
    let min = min.map(rank).transpose()?.unwrap_or(2);
    let max = max.map(rank).transpose()?.unwrap_or(3);
    let mut out = Vec::new();
    if min <= 2 && max >= 2 {
        out.push(&rustls::version::TLS12);
    }
    if max >= 3 {
        out.push(&rustls::version::TLS13);
    }
    if out.is_empty() {
        return Err(coded(
            "ERR_TLS_PROTOCOL_VERSION_CONFLICT",
            "TLS versions below 1.2 are not supported by the Paseo plugin host",
        ));
    }
    Ok(out)
}

/// Builds a secure context; a bad `cert` or `key` fails here, synchronously, as in Node. As in
/// Node, `ca` texts that hold no certificate are ignored (the default roots stay replaced), and a
/// cert without its key (or the reverse) only fails a handshake that needs them.
#[op2]
#[smi]
pub fn op_tls_context(
    state: &mut OpState,
    #[serde] options: ContextOptions,
) -> Result<ResourceId, JsErrorBox> {
    let anchors = match &options.ca {
        Some(ca) => Arc::new(Anchors::new(ca.iter().flat_map(|text| {
            CertificateDer::pem_slice_iter(text.as_bytes())
                .flatten()
                .collect::<Vec<_>>()
        }))),
        None => default_anchors(),
    };
    let certs = pem_certs(&options.cert)?;
    let mut key = None;
    for text in &options.key {
        key = Some(PrivateKeyDer::from_pem_slice(text.as_bytes()).map_err(|_| {
            coded(
                "ERR_OSSL_UNSUPPORTED",
                "error:1E08010C:DECODER routines::unsupported",
            )
        })?);
    }
    let key = match (certs.is_empty(), key) {
        (false, Some(key)) => {
            let signing = provider()
                .key_provider
                .load_private_key(key)
                .map_err(|e| coded("ERR_OSSL_UNSUPPORTED", e))?;
            Some(Arc::new(CertifiedKey::new(certs, signing)))
        }
        _ => None,
    };
    let versions = versions(
        options.min_version.as_deref(),
        options.max_version.as_deref(),
    )?;
    Ok(state.resource_table.add(ContextResource {
        anchors,
        key,
        versions,
    }))
}

/// Node's PEM texts of the roots it trusts by default (`tls.rootCertificates`).
#[op2]
#[serde]
pub fn op_tls_root_certificates() -> Vec<String> {
    webpki_root_certs::TLS_SERVER_ROOT_CERTS
        .iter()
        .map(|c| {
            let b64 = base64(c.as_ref());
            let mut pem = String::from("-----BEGIN CERTIFICATE-----\n");
            for line in b64.as_bytes().chunks(64) {
                pem.push_str(std::str::from_utf8(line).unwrap_or_default());
                pem.push('\n');
            }
            pem.push_str("-----END CERTIFICATE-----");
            pem
        })
        .collect()
}

#[derive(Debug)]
struct OneKey(Arc<CertifiedKey>);

impl ResolvesServerCert for OneKey {
    fn resolve(&self, _hello: ClientHello<'_>) -> Option<Arc<CertifiedKey>> {
        Some(self.0.clone())
    }
}

impl ResolvesClientCert for OneKey {
    fn resolve(
        &self,
        _root_hint_subjects: &[&[u8]],
        _sigschemes: &[SignatureScheme],
    ) -> Option<Arc<CertifiedKey>> {
        Some(self.0.clone())
    }
    fn has_certs(&self) -> bool {
        true
    }
}

// ---------------------------------------------------------------------------------------------
// Handshakes

#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ClientStart {
    /// SNI to send; none when empty (Node sends SNI only when `servername` is given).
    #[serde(default)]
    servername: String,
    #[serde(default)]
    alpn: Vec<String>,
    reject_unauthorized: bool,
}

#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ServerStart {
    #[serde(default)]
    alpn: Vec<String>,
    request_cert: bool,
    reject_unauthorized: bool,
}

/// An established session, as JS sees it.
#[derive(Serialize, Default)]
#[serde(rename_all = "camelCase")]
pub struct Session {
    rid: ResourceId,
    /// Node's code for what is wrong with the peer's chain (when the plugin let it through).
    verify_error: Option<&'static str>,
    alpn_protocol: Option<String>,
    protocol: Option<&'static str>,
    cipher: Option<String>,
    /// The SNI name a client sent (server side).
    servername: Option<String>,
    /// The peer's chain, leaf first.
    peer_certificates: Vec<CertInfo>,
}

fn session(rid: ResourceId, common: &CommonState, verdict: Option<Verdict>) -> Session {
    let (verify_error, chain) = match verdict {
        Some(v) if !v.chain.is_empty() => (v.code, v.chain),
        Some(v) => (
            v.code,
            common.peer_certificates().unwrap_or_default().to_vec(),
        ),
        None => (
            None,
            common.peer_certificates().unwrap_or_default().to_vec(),
        ),
    };
    Session {
        rid,
        verify_error,
        alpn_protocol: common
            .alpn_protocol()
            .map(|p| String::from_utf8_lossy(p).into_owned()),
        protocol: match common.protocol_version() {
            Some(ProtocolVersion::TLSv1_3) => Some("TLSv1.3"),
            Some(ProtocolVersion::TLSv1_2) => Some("TLSv1.2"),
            _ => None,
        },
        cipher: common.negotiated_cipher_suite().map(|s| {
            s.suite()
                .as_str()
                .map_or_else(|| format!("{:?}", s.suite()), String::from)
        }),
        servername: None,
        peer_certificates: chain.iter().filter_map(|c| cert_info(c)).collect(),
    }
}

/// Node's words for a handshake that failed.
fn handshake_error(e: io::Error, record: &Record) -> JsErrorBox {
    if e.raw_os_error().is_some() {
        let (code, _) = super::uv(&e);
        return JsErrorBox::generic(format!("read {code}"));
    }
    let tls = e
        .get_ref()
        .and_then(|inner| inner.downcast_ref::<rustls::Error>());
    if let Some(rustls::Error::InvalidCertificate(_)) = tls {
        if let Some(code) = record.lock().unwrap().as_ref().and_then(|v| v.code) {
            return coded(code, code_message(code));
        }
    }
    match tls {
        Some(rustls::Error::AlertReceived(alert)) => {
            let name = alert_reason(*alert);
            coded(
                &format!("ERR_SSL_{}", name.to_uppercase().replace([' ', '-'], "_")),
                format!("{name}: SSL alert number {}", u8::from(*alert)),
            )
        }
        Some(rustls::Error::NoApplicationProtocol) => coded(
            "ERR_SSL_NO_APPLICATION_PROTOCOL",
            "no application protocol (the peer offered no ALPN protocol this side accepts)",
        ),
        Some(other) => coded("EPROTO", format!("TLS handshake failed: {other}")),
        None => coded(
            "ECONNRESET",
            "Client network socket disconnected before secure TLS connection was established",
        ),
    }
}

/// OpenSSL's reason text for an alert from the peer (`ssl3_read_bytes`).
fn alert_reason(alert: rustls::AlertDescription) -> String {
    use rustls::AlertDescription as A;
    let (prefix, name) = match alert {
        A::HandshakeFailure => ("sslv3", "handshake failure"),
        A::BadCertificate => ("sslv3", "bad certificate"),
        A::UnsupportedCertificate => ("sslv3", "unsupported certificate"),
        A::CertificateRevoked => ("sslv3", "certificate revoked"),
        A::CertificateExpired => ("sslv3", "certificate expired"),
        A::CertificateUnknown => ("sslv3", "certificate unknown"),
        A::UnexpectedMessage => ("sslv3", "unexpected message"),
        A::BadRecordMac => ("sslv3", "bad record mac"),
        A::IllegalParameter => ("sslv3", "illegal parameter"),
        A::UnknownCA => ("tlsv1", "unknown ca"),
        A::AccessDenied => ("tlsv1", "access denied"),
        A::DecodeError => ("tlsv1", "decode error"),
        A::DecryptError => ("tlsv1", "decrypt error"),
        A::ProtocolVersion => ("tlsv1", "protocol version"),
        A::InsufficientSecurity => ("tlsv1", "insufficient security"),
        A::InternalError => ("tlsv1", "internal error"),
        A::UnrecognisedName => ("tlsv1", "unrecognized name"),
        A::NoApplicationProtocol => ("tlsv1", "alert no application protocol"),
        A::CertificateRequired => ("tlsv13", "alert certificate required"),
        other => return format!("tlsv1 alert {other:?}").to_lowercase(),
    };
    if name.starts_with("alert ") {
        format!("{prefix} {name}")
    } else {
        format!("{prefix} alert {name}")
    }
}

fn take_pending(
    state: &Rc<RefCell<OpState>>,
    rid: ResourceId,
) -> Result<(Rc<PendingResource>, Transport), JsErrorBox> {
    let pending = state
        .borrow()
        .resource_table
        .get::<PendingResource>(rid)
        .map_err(JsErrorBox::from_err)?;
    let io = pending
        .io
        .borrow_mut()
        .take()
        .ok_or_else(|| JsErrorBox::generic("The TLS handshake has already started"))?;
    Ok((pending, io))
}

fn context(
    state: &Rc<RefCell<OpState>>,
    rid: ResourceId,
) -> Result<Rc<ContextResource>, JsErrorBox> {
    state
        .borrow()
        .resource_table
        .get::<ContextResource>(rid)
        .map_err(JsErrorBox::from_err)
}

/// Runs a client handshake over a pending transport; the session's stream replaces it.
#[op2]
#[serde]
pub async fn op_tls_start_client(
    state: Rc<RefCell<OpState>>,
    #[smi] rid: ResourceId,
    #[smi] context_rid: ResourceId,
    #[serde] start: ClientStart,
) -> Result<Session, JsErrorBox> {
    let ctx = context(&state, context_rid)?;
    let (pending, io) = take_pending(&state, rid)?;
    let record = Record::default();
    let verifier = Arc::new(NodeVerifier {
        anchors: ctx.anchors.clone(),
        reject: start.reject_unauthorized,
        record: record.clone(),
    });
    let builder = rustls::ClientConfig::builder_with_provider(provider())
        .with_protocol_versions(&ctx.versions)
        .map_err(|e| coded("ERR_TLS_PROTOCOL_VERSION_CONFLICT", e))?
        .dangerous()
        .with_custom_certificate_verifier(verifier);
    let mut config = match &ctx.key {
        Some(key) => builder.with_client_cert_resolver(Arc::new(OneKey(key.clone()))),
        None => builder.with_no_client_auth(),
    };
    config.alpn_protocols = start.alpn.into_iter().map(String::into_bytes).collect();
    // The name only decides the SNI sent (the verifier above ignores it): none unless asked.
    let name = ServerName::try_from(start.servername.clone())
        .ok()
        .filter(|n| matches!(n, ServerName::DnsName(_)));
    config.enable_sni = name.is_some();
    let name = name.unwrap_or(ServerName::IpAddress(IpAddr::from([0u8, 0, 0, 0]).into()));
    let connector = tokio_rustls::TlsConnector::from(Arc::new(config));
    let cancel = RcRef::map(&pending, |r| &r.cancel);
    let result = connector.connect(name, io).try_or_cancel(cancel).await;
    let _ = state
        .borrow_mut()
        .resource_table
        .take::<PendingResource>(rid);
    let tls = result.map_err(|e| handshake_error(e, &record))?;
    let verdict = record.lock().unwrap().take();
    let mut out = session(0, tls.get_ref().1, verdict);
    out.rid = add_stream(&mut state.borrow_mut(), tls);
    Ok(out)
}

/// Runs a server handshake over a pending transport (an accepted socket, through a pipe).
#[op2]
#[serde]
pub async fn op_tls_start_server(
    state: Rc<RefCell<OpState>>,
    #[smi] rid: ResourceId,
    #[smi] context_rid: ResourceId,
    #[serde] start: ServerStart,
) -> Result<Session, JsErrorBox> {
    let ctx = context(&state, context_rid)?;
    let key = ctx.key.clone().ok_or_else(|| {
        coded(
            "ERR_SSL_NO_SHARED_CIPHER",
            "A TLS server needs a certificate and a key (options.cert, options.key)",
        )
    })?;
    let (pending, io) = take_pending(&state, rid)?;
    let record = Record::default();
    let builder = rustls::ServerConfig::builder_with_provider(provider())
        .with_protocol_versions(&ctx.versions)
        .map_err(|e| coded("ERR_TLS_PROTOCOL_VERSION_CONFLICT", e))?;
    let builder = if start.request_cert {
        builder.with_client_cert_verifier(Arc::new(NodeVerifier {
            anchors: ctx.anchors.clone(),
            reject: start.reject_unauthorized,
            record: record.clone(),
        }))
    } else {
        builder.with_no_client_auth()
    };
    let mut config = builder.with_cert_resolver(Arc::new(OneKey(key)));
    config.alpn_protocols = start.alpn.into_iter().map(String::into_bytes).collect();
    let acceptor = tokio_rustls::TlsAcceptor::from(Arc::new(config));
    let cancel = RcRef::map(&pending, |r| &r.cancel);
    let result = acceptor.accept(io).try_or_cancel(cancel).await;
    let _ = state
        .borrow_mut()
        .resource_table
        .take::<PendingResource>(rid);
    let tls = result.map_err(|e| handshake_error(e, &record))?;
    let verdict = record.lock().unwrap().take();
    let mut out = session(0, tls.get_ref().1, verdict);
    if start.request_cert && out.peer_certificates.is_empty() {
        out.verify_error = Some("UNABLE_TO_GET_ISSUER_CERT");
    }
    out.servername = tls.get_ref().1.server_name().map(String::from);
    out.rid = add_stream(&mut state.borrow_mut(), tls);
    Ok(out)
}

deno_core::extension!(
    paseo_tls,
    ops = [
        op_tls_connect_tcp,
        op_tls_pipe,
        op_tls_context,
        op_tls_root_certificates,
        op_tls_start_client,
        op_tls_start_server,
    ],
);
