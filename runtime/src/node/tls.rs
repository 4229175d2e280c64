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

use std::borrow::Cow;
use std::cell::RefCell;
use std::fmt::Write as _;
use std::io;
use std::net::{IpAddr, SocketAddr};
use std::rc::Rc;
use std::sync::{Arc, Mutex, OnceLock};

use deno_core::{
    op2, CancelHandle, CancelTryFuture, OpState, RcRef, Resource, ResourceId, ToJsBuffer,
};
use deno_error::JsErrorBox;
use rustls::client::danger::{HandshakeSignatureValid, ServerCertVerified, ServerCertVerifier};
use rustls::client::ResolvesClientCert;
use rustls::crypto::CryptoProvider;
use rustls::pki_types::pem::PemObject;
use rustls::pki_types::{CertificateDer, PrivateKeyDer, ServerName, TrustAnchor, UnixTime};
use rustls::server::danger::{ClientCertVerified, ClientCertVerifier};
use rustls::server::{ClientHello, ResolvesServerCert};
use rustls::sign::CertifiedKey;
use rustls::{
    CertificateError, CommonState, DigitallySignedStruct, DistinguishedName, ProtocolVersion,
    SignatureScheme, SupportedProtocolVersion,
};
use serde::{Deserialize, Serialize};
use sha2::Digest;
use tokio::io::{AsyncRead, AsyncWrite};
use tokio::net::TcpStream;

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
// Trust: roots, chains, Node's verification codes

struct Anchors {
    ders: Vec<CertificateDer<'static>>,
    anchors: Vec<TrustAnchor<'static>>,
}

impl std::fmt::Debug for Anchors {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{} trust anchors", self.anchors.len())
    }
}

impl Anchors {
    fn new(certs: impl IntoIterator<Item = CertificateDer<'static>>) -> Anchors {
        let (mut ders, mut anchors) = (Vec::new(), Vec::new());
        for der in certs {
            if let Ok(anchor) = webpki::anchor_from_trusted_cert(&der) {
                anchors.push(anchor.to_owned());
                ders.push(der);
            }
        }
        Anchors { ders, anchors }
    }
}

/// Mozilla's roots (what Node bundles), and those `NODE_EXTRA_CA_CERTS` names, read once.
fn default_anchors() -> Arc<Anchors> {
    static ROOTS: OnceLock<Arc<Anchors>> = OnceLock::new();
    ROOTS
        .get_or_init(|| {
            let mut certs: Vec<CertificateDer<'static>> =
                webpki_root_certs::TLS_SERVER_ROOT_CERTS.to_vec();
            if let Some(path) = std::env::var_os("NODE_EXTRA_CA_CERTS") {
                match std::fs::read(&path) {
                    Ok(pem) => certs.extend(CertificateDer::pem_slice_iter(&pem).flatten()),
                    Err(e) => tracing::warn!(
                        "Ignoring extra certs from `{}`, load failed: {e}",
                        path.to_string_lossy()
                    ),
                }
            }
            Arc::new(Anchors::new(certs))
        })
        .clone()
}

/// The outcome of checking one peer's chain: Node's code for what is wrong, if anything, and the
/// chain as `getPeerCertificate(true)` walks it (leaf first; the trusted root last when found).
#[derive(Default, Debug)]
struct Verdict {
    code: Option<&'static str>,
    chain: Vec<CertificateDer<'static>>,
}

type Record = Arc<Mutex<Option<Verdict>>>;

fn verify_chain(
    anchors: &Anchors,
    ee: &CertificateDer<'_>,
    intermediates: &[CertificateDer<'_>],
    now: UnixTime,
    usage: webpki::KeyUsage,
) -> Verdict {
    let presented = || {
        let pool: Vec<&[u8]> = intermediates.iter().map(|c| c.as_ref()).collect();
        let mut chain = vec![ee.clone().into_owned()];
        chain.extend(
            issuer_walk(ee, &pool)
                .into_iter()
                .map(|i| intermediates[i].clone().into_owned()),
        );
        chain
    };
    // A certificate trusted as itself (a pinned self-signed server, even one marked as a CA, as
    // OpenSSL allows): only its validity period can still be wrong.
    if anchors.ders.iter().any(|d| d.as_ref() == ee.as_ref()) {
        let code = der::parse_cert(ee).and_then(|c| time_error(&c, now));
        return Verdict {
            code,
            chain: vec![ee.clone().into_owned()],
        };
    }
    let algs = provider().signature_verification_algorithms.all;
    let result = webpki::EndEntityCert::try_from(ee).and_then(|cert| {
        cert.verify_for_usage(
            algs,
            &anchors.anchors,
            intermediates,
            now,
            usage,
            None,
            None,
        )
        .map(|_| ())
    });
    match result {
        Ok(()) => {
            let mut chain = presented();
            // The trusted root that signed the top of the presented chain ends it.
            let top = chain.last().and_then(|c| {
                der::parse_cert(c).map(|p| (p.issuer.to_vec(), p.issuer == p.subject))
            });
            if let Some((issuer, false)) = top {
                let root = anchors
                    .ders
                    .iter()
                    .find(|d| der::parse_cert(d).is_some_and(|p| p.subject == issuer.as_slice()));
                if let Some(root) = root {
                    chain.push(root.clone());
                }
            }
            Verdict { code: None, chain }
        }
        Err(e) => Verdict {
            code: Some(node_code(&e, ee, intermediates)),
            chain: presented(),
        },
    }
}

/// Indices into `pool` of the issuers above `ee`, each found by its subject, as OpenSSL builds
/// the untrusted part of a chain.
fn issuer_walk(ee: &[u8], pool: &[&[u8]]) -> Vec<usize> {
    let mut out = Vec::new();
    let Some(mut cur) = der::parse_cert(ee) else {
        return out;
    };
    while out.len() < 10 && cur.issuer != cur.subject {
        let next = pool.iter().enumerate().find(|(i, c)| {
            !out.contains(i) && der::parse_cert(c).is_some_and(|p| p.subject == cur.issuer)
        });
        match next.and_then(|(i, c)| Some((i, der::parse_cert(c)?))) {
            Some((i, parsed)) => {
                out.push(i);
                cur = parsed;
            }
            None => break,
        }
    }
    out
}

fn time_error(cert: &der::Cert<'_>, now: UnixTime) -> Option<&'static str> {
    let now = now.as_secs() as i64;
    if now < cert.not_before.unix {
        Some("CERT_NOT_YET_VALID")
    } else if now > cert.not_after.unix {
        Some("CERT_HAS_EXPIRED")
    } else {
        None
    }
}

/// Node's (OpenSSL's) name for why a chain failed.
#[allow(deprecated)]
fn node_code(
    e: &webpki::Error,
    ee: &CertificateDer<'_>,
    intermediates: &[CertificateDer<'_>],
) -> &'static str {
    use webpki::Error::*;
    match e {
        CertExpired { .. } | InvalidCertValidity => "CERT_HAS_EXPIRED",
        CertNotValidYet { .. } => "CERT_NOT_YET_VALID",
        UnknownIssuer => {
            // OpenSSL names the top of the chain it could build from what the peer sent.
            let pool: Vec<&[u8]> = intermediates.iter().map(|c| c.as_ref()).collect();
            let walk = issuer_walk(ee, &pool);
            let top = walk.last().map_or(ee.as_ref(), |&i| pool[i]);
            let self_signed = der::parse_cert(top).is_some_and(|c| c.issuer == c.subject);
            match (walk.is_empty(), self_signed) {
                (true, true) => "DEPTH_ZERO_SELF_SIGNED_CERT",
                (false, true) => "SELF_SIGNED_CERT_IN_CHAIN",
                (true, false) => "UNABLE_TO_VERIFY_LEAF_SIGNATURE",
                (false, false) => "UNABLE_TO_GET_ISSUER_CERT_LOCALLY",
            }
        }
        InvalidSignatureForPublicKey
        | UnsupportedSignatureAlgorithm
        | UnsupportedSignatureAlgorithmForPublicKey
        | UnsupportedSignatureAlgorithmContext(_)
        | UnsupportedSignatureAlgorithmForPublicKeyContext(_)
        | SignatureAlgorithmMismatch => "CERT_SIGNATURE_FAILURE",
        RequiredEkuNotFound
        | RequiredEkuNotFoundContext(_)
        | CaUsedAsEndEntity
        | EmptyEkuExtension => "INVALID_PURPOSE",
        EndEntityUsedAsCa => "INVALID_CA",
        UnsupportedCriticalExtension => "UNHANDLED_CRITICAL_EXTENSION",
        PathLenConstraintViolated => "PATH_LENGTH_EXCEEDED",
        NameConstraintViolation => "PERMITTED_VIOLATION",
        MaximumPathDepthExceeded => "CERT_CHAIN_TOO_LONG",
        CertRevoked => "CERT_REVOKED",
        _ => "CERT_REJECTED",
    }
}

/// OpenSSL's text for each code (`X509_verify_cert_error_string`).
fn code_message(code: &str) -> &'static str {
    match code {
        "CERT_HAS_EXPIRED" => "certificate has expired",
        "CERT_NOT_YET_VALID" => "certificate is not yet valid",
        "DEPTH_ZERO_SELF_SIGNED_CERT" => "self-signed certificate",
        "SELF_SIGNED_CERT_IN_CHAIN" => "self-signed certificate in certificate chain",
        "UNABLE_TO_VERIFY_LEAF_SIGNATURE" => "unable to verify the first certificate",
        "UNABLE_TO_GET_ISSUER_CERT_LOCALLY" => "unable to get local issuer certificate",
        "CERT_SIGNATURE_FAILURE" => "certificate signature failure",
        "INVALID_PURPOSE" => "unsupported certificate purpose",
        "INVALID_CA" => "invalid CA certificate",
        "UNHANDLED_CRITICAL_EXTENSION" => "unhandled critical extension",
        "PATH_LENGTH_EXCEEDED" => "path length constraint exceeded",
        "PERMITTED_VIOLATION" => "permitted subtree violation",
        "CERT_CHAIN_TOO_LONG" => "certificate chain too long",
        "CERT_REVOKED" => "certificate revoked",
        _ => "certificate rejected",
    }
}

/// The rustls error that fails a handshake whose chain Node would reject (it picks the alert).
fn rejection(code: &str) -> rustls::Error {
    rustls::Error::InvalidCertificate(match code {
        "CERT_HAS_EXPIRED" => CertificateError::Expired,
        "CERT_NOT_YET_VALID" => CertificateError::NotValidYet,
        "CERT_SIGNATURE_FAILURE" => CertificateError::BadSignature,
        "INVALID_PURPOSE" => CertificateError::InvalidPurpose,
        "CERT_REVOKED" => CertificateError::Revoked,
        c if c.contains("ISSUER") || c.contains("SELF_SIGNED") || c.contains("LEAF") => {
            CertificateError::UnknownIssuer
        }
        _ => CertificateError::ApplicationVerificationFailure,
    })
}

/// Checks the peer's chain as OpenSSL does for Node (a client's of the server, a server's of
/// its clients), recording the outcome for JS.
#[derive(Debug)]
struct NodeVerifier {
    anchors: Arc<Anchors>,
    reject: bool,
    record: Record,
}

impl NodeVerifier {
    /// Checks the peer's chain for `usage`, records the verdict for the session, and fails the
    /// handshake on a bad chain unless the plugin asked not to.
    fn check(
        &self,
        end_entity: &CertificateDer<'_>,
        intermediates: &[CertificateDer<'_>],
        now: UnixTime,
        usage: webpki::KeyUsage,
    ) -> Result<(), rustls::Error> {
        let verdict = verify_chain(&self.anchors, end_entity, intermediates, now, usage);
        let code = verdict.code;
        *self.record.lock().unwrap() = Some(verdict);
        match code {
            Some(code) if self.reject => Err(rejection(code)),
            _ => Ok(()),
        }
    }
}

/// The handshake's own signatures are always verified, with the provider's algorithms.
fn tls12_signature(
    message: &[u8],
    cert: &CertificateDer<'_>,
    dss: &DigitallySignedStruct,
) -> Result<HandshakeSignatureValid, rustls::Error> {
    rustls::crypto::verify_tls12_signature(
        message,
        cert,
        dss,
        &provider().signature_verification_algorithms,
    )
}

fn tls13_signature(
    message: &[u8],
    cert: &CertificateDer<'_>,
    dss: &DigitallySignedStruct,
) -> Result<HandshakeSignatureValid, rustls::Error> {
    rustls::crypto::verify_tls13_signature(
        message,
        cert,
        dss,
        &provider().signature_verification_algorithms,
    )
}

fn verify_schemes() -> Vec<SignatureScheme> {
    provider()
        .signature_verification_algorithms
        .supported_schemes()
}

/// A client's check of the server's chain. The server's name is not checked here: Node does
/// that afterwards with `checkServerIdentity`.
impl ServerCertVerifier for NodeVerifier {
    fn verify_server_cert(
        &self,
        end_entity: &CertificateDer<'_>,
        intermediates: &[CertificateDer<'_>],
        _server_name: &ServerName<'_>,
        _ocsp_response: &[u8],
        now: UnixTime,
    ) -> Result<ServerCertVerified, rustls::Error> {
        self.check(
            end_entity,
            intermediates,
            now,
            webpki::KeyUsage::server_auth(),
        )
        .map(|()| ServerCertVerified::assertion())
    }
    fn verify_tls12_signature(
        &self,
        message: &[u8],
        cert: &CertificateDer<'_>,
        dss: &DigitallySignedStruct,
    ) -> Result<HandshakeSignatureValid, rustls::Error> {
        tls12_signature(message, cert, dss)
    }
    fn verify_tls13_signature(
        &self,
        message: &[u8],
        cert: &CertificateDer<'_>,
        dss: &DigitallySignedStruct,
    ) -> Result<HandshakeSignatureValid, rustls::Error> {
        tls13_signature(message, cert, dss)
    }
    fn supported_verify_schemes(&self) -> Vec<SignatureScheme> {
        verify_schemes()
    }
}

/// A server's check of client certificates (`requestCert`), in the same terms.
impl ClientCertVerifier for NodeVerifier {
    fn offer_client_auth(&self) -> bool {
        true
    }
    fn client_auth_mandatory(&self) -> bool {
        self.reject
    }
    fn root_hint_subjects(&self) -> &[DistinguishedName] {
        &[]
    }
    fn verify_client_cert(
        &self,
        end_entity: &CertificateDer<'_>,
        intermediates: &[CertificateDer<'_>],
        now: UnixTime,
    ) -> Result<ClientCertVerified, rustls::Error> {
        self.check(
            end_entity,
            intermediates,
            now,
            webpki::KeyUsage::client_auth(),
        )
        .map(|()| ClientCertVerified::assertion())
    }
    fn verify_tls12_signature(
        &self,
        message: &[u8],
        cert: &CertificateDer<'_>,
        dss: &DigitallySignedStruct,
    ) -> Result<HandshakeSignatureValid, rustls::Error> {
        tls12_signature(message, cert, dss)
    }
    fn verify_tls13_signature(
        &self,
        message: &[u8],
        cert: &CertificateDer<'_>,
        dss: &DigitallySignedStruct,
    ) -> Result<HandshakeSignatureValid, rustls::Error> {
        tls13_signature(message, cert, dss)
    }
    fn supported_verify_schemes(&self) -> Vec<SignatureScheme> {
        verify_schemes()
    }
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

fn base64(data: &[u8]) -> String {
    const ABC: &[u8; 64] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    let mut out = String::with_capacity(data.len().div_ceil(3) * 4);
    for chunk in data.chunks(3) {
        let b = [
            chunk[0],
            *chunk.get(1).unwrap_or(&0),
            *chunk.get(2).unwrap_or(&0),
        ];
        let n = (u32::from(b[0]) << 16) | (u32::from(b[1]) << 8) | u32::from(b[2]);
        for i in 0..4 {
            if i <= chunk.len() {
                out.push(ABC[((n >> (18 - 6 * i)) & 63) as usize] as char);
            } else {
                out.push('=');
            }
        }
    }
    out
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

// ---------------------------------------------------------------------------------------------
// Certificates as `getPeerCertificate()` shows them

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
pub struct CertInfo {
    subject: Vec<(String, String)>,
    issuer: Vec<(String, String)>,
    subjectaltname: Option<String>,
    info_access: Option<Vec<(String, String)>>,
    ca: bool,
    modulus: Option<String>,
    bits: Option<u32>,
    exponent: Option<String>,
    pubkey: Option<ToJsBuffer>,
    asn1_curve: Option<&'static str>,
    nist_curve: Option<&'static str>,
    valid_from: String,
    valid_to: String,
    fingerprint: String,
    fingerprint256: String,
    fingerprint512: String,
    ext_key_usage: Option<Vec<String>>,
    serial_number: String,
    raw: ToJsBuffer,
}

fn colon_hex(bytes: &[u8]) -> String {
    let mut out = String::with_capacity(bytes.len() * 3);
    for (i, b) in bytes.iter().enumerate() {
        if i > 0 {
            out.push(':');
        }
        let _ = write!(out, "{b:02X}");
    }
    out
}

/// OpenSSL's `BN_bn2hex`: uppercase, whole bytes, leading zero bytes dropped.
fn bn_hex(bytes: &[u8]) -> String {
    let start = bytes.iter().position(|&b| b != 0).unwrap_or(bytes.len());
    if start == bytes.len() {
        return "0".into();
    }
    bytes[start..].iter().fold(String::new(), |mut s, b| {
        let _ = write!(s, "{b:02X}");
        s
    })
}

fn cert_info(der_bytes: &[u8]) -> Option<CertInfo> {
    let c = der::parse_cert(der_bytes)?;
    let mut info = CertInfo {
        subject: der::name_entries(c.subject),
        issuer: der::name_entries(c.issuer),
        subjectaltname: None,
        info_access: None,
        ca: false,
        modulus: None,
        bits: None,
        exponent: None,
        pubkey: None,
        asn1_curve: None,
        nist_curve: None,
        valid_from: c.not_before.openssl(),
        valid_to: c.not_after.openssl(),
        fingerprint: colon_hex(&sha1::Sha1::digest(der_bytes)),
        fingerprint256: colon_hex(&sha2::Sha256::digest(der_bytes)),
        fingerprint512: colon_hex(&sha2::Sha512::digest(der_bytes)),
        ext_key_usage: None,
        serial_number: bn_hex(c.serial),
        raw: der_bytes.to_vec().into(),
    };
    for ext in &c.extensions {
        match ext.oid {
            der::OID_SAN => info.subjectaltname = der::alt_names(ext.value),
            der::OID_BASIC_CONSTRAINTS => info.ca = der::is_ca(ext.value),
            der::OID_EXT_KEY_USAGE => info.ext_key_usage = der::oid_list(ext.value),
            der::OID_INFO_ACCESS => info.info_access = der::info_access(ext.value),
            _ => {}
        }
    }
    der::public_key(c.spki, &mut info);
    Some(info)
}

/// Just enough DER to read what Node shows of a certificate. Every read is bounds-checked; a
/// malformed certificate shows as absent rather than failing anything.
mod der {
    use std::fmt::Write as _;

    pub const OID_SAN: &[u8] = &[0x55, 0x1d, 0x11];
    pub const OID_BASIC_CONSTRAINTS: &[u8] = &[0x55, 0x1d, 0x13];
    pub const OID_EXT_KEY_USAGE: &[u8] = &[0x55, 0x1d, 0x25];
    pub const OID_INFO_ACCESS: &[u8] = &[0x2b, 0x06, 0x01, 0x05, 0x05, 0x07, 0x01, 0x01];
    const OID_RSA: &[u8] = &[0x2a, 0x86, 0x48, 0x86, 0xf7, 0x0d, 0x01, 0x01, 0x01];
    const OID_EC: &[u8] = &[0x2a, 0x86, 0x48, 0xce, 0x3d, 0x02, 0x01];

    pub struct Reader<'a>(&'a [u8]);

    impl<'a> Reader<'a> {
        pub fn new(data: &'a [u8]) -> Self {
            Reader(data)
        }
        pub fn is_empty(&self) -> bool {
            self.0.is_empty()
        }
        /// The next element: (tag, contents, whole encoding).
        pub fn next(&mut self) -> Option<(u8, &'a [u8], &'a [u8])> {
            let data = self.0;
            let tag = *data.first()?;
            if tag & 0x1f == 0x1f {
                return None; // multi-byte tags do not occur in what we read
            }
            let first = *data.get(1)? as usize;
            let (len, header) = if first < 0x80 {
                (first, 2)
            } else {
                let n = first & 0x7f;
                if n == 0 || n > 4 {
                    return None;
                }
                let mut len = 0usize;
                for i in 0..n {
                    len = (len << 8) | *data.get(2 + i)? as usize;
                }
                (len, 2 + n)
            };
            let end = header.checked_add(len)?;
            if end > data.len() {
                return None;
            }
            self.0 = &data[end..];
            Some((tag, &data[header..end], &data[..end]))
        }
        pub fn expect(&mut self, tag: u8) -> Option<&'a [u8]> {
            self.expect_whole(tag).map(|(contents, _)| contents)
        }
        fn expect_whole(&mut self, tag: u8) -> Option<(&'a [u8], &'a [u8])> {
            let (t, contents, whole) = self.next()?;
            (t == tag).then_some((contents, whole))
        }
        /// The next element if it has `tag`.
        pub fn optional(&mut self, tag: u8) -> Option<&'a [u8]> {
            if self.0.first() == Some(&tag) {
                self.expect(tag)
            } else {
                None
            }
        }
    }

    pub struct Time {
        pub unix: i64,
        parts: (i64, u32, u32, u32, u32, u32),
    }

    impl Time {
        /// `ASN1_TIME_print`: `Jan  1 00:00:00 2024 GMT`.
        pub fn openssl(&self) -> String {
            const MONTHS: [&str; 12] = [
                "Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec",
            ];
            let (y, mo, d, h, mi, s) = self.parts;
            let month = MONTHS[(mo.clamp(1, 12) - 1) as usize];
            format!("{month} {d:2} {h:02}:{mi:02}:{s:02} {y} GMT")
        }
    }

    fn time(tag: u8, contents: &[u8]) -> Option<Time> {
        let text = std::str::from_utf8(contents).ok()?;
        let text = text.strip_suffix('Z')?;
        let (year, rest) = match tag {
            0x17 if text.len() == 12 => {
                let yy: i64 = text[..2].parse().ok()?;
                (if yy < 50 { 2000 + yy } else { 1900 + yy }, &text[2..])
            }
            0x18 if text.len() == 14 => (text[..4].parse().ok()?, &text[4..]),
            _ => return None,
        };
        let num = |i: usize| rest.get(i..i + 2)?.parse::<u32>().ok();
        let (mo, d, h, mi, s) = (num(0)?, num(2)?, num(4)?, num(6)?, num(8)?);
        // Days from the civil date (Howard Hinnant's algorithm).
        let (y, m) = if mo <= 2 {
            (year - 1, mo + 9)
        } else {
            (year, mo - 3)
        };
        let era = y.div_euclid(400);
        let yoe = y - era * 400;
        let doy = (153 * m as i64 + 2) / 5 + d as i64 - 1;
        let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
        let days = era * 146097 + doe - 719468;
        Some(Time {
            unix: days * 86400 + h as i64 * 3600 + mi as i64 * 60 + s as i64,
            parts: (year, mo, d, h, mi, s),
        })
    }

    pub struct Extension<'a> {
        pub oid: &'a [u8],
        pub value: &'a [u8],
    }

    pub struct Cert<'a> {
        pub serial: &'a [u8],
        /// The issuer and subject `Name`s, whole encodings.
        pub issuer: &'a [u8],
        pub subject: &'a [u8],
        pub not_before: Time,
        pub not_after: Time,
        pub spki: &'a [u8],
        pub extensions: Vec<Extension<'a>>,
    }

    pub fn parse_cert(data: &[u8]) -> Option<Cert<'_>> {
        let cert = Reader::new(data).expect(0x30)?;
        let tbs = Reader::new(cert).expect(0x30)?;
        let mut t = Reader::new(tbs);
        t.optional(0xa0);
        let serial = t.expect(0x02)?;
        t.expect(0x30)?;
        let (_, issuer) = t.expect_whole(0x30)?;
        let mut validity = Reader::new(t.expect(0x30)?);
        let (tag, contents, _) = validity.next()?;
        let not_before = time(tag, contents)?;
        let (tag, contents, _) = validity.next()?;
        let not_after = time(tag, contents)?;
        let (_, subject) = t.expect_whole(0x30)?;
        let (_, spki) = t.expect_whole(0x30)?;
        t.optional(0x81);
        t.optional(0x82);
        let mut extensions = Vec::new();
        if let Some(exts) = t.optional(0xa3) {
            let mut list = Reader::new(Reader::new(exts).expect(0x30)?);
            while !list.is_empty() {
                let mut ext = Reader::new(list.expect(0x30)?);
                let oid = ext.expect(0x06)?;
                ext.optional(0x01);
                let value = ext.expect(0x04)?;
                extensions.push(Extension { oid, value });
            }
        }
        Some(Cert {
            serial,
            issuer,
            subject,
            not_before,
            not_after,
            spki,
            extensions,
        })
    }

    pub fn oid_text(oid: &[u8]) -> String {
        let mut out = String::new();
        let mut value: u64 = 0;
        for (i, &b) in oid.iter().enumerate() {
            value = (value << 7) | u64::from(b & 0x7f);
            if b & 0x80 != 0 {
                continue;
            }
            if out.is_empty() && i < oid.len() {
                let (a, rest) = match value {
                    0..=39 => (0, value),
                    40..=79 => (1, value - 40),
                    _ => (2, value - 80),
                };
                let _ = write!(out, "{a}.{rest}");
            } else {
                let _ = write!(out, ".{value}");
            }
            value = 0;
        }
        out
    }

    /// OpenSSL's short names for the attributes of names.
    fn attribute_name(oid: &[u8]) -> String {
        let text = oid_text(oid);
        let short = match text.as_str() {
            "2.5.4.3" => "CN",
            "2.5.4.4" => "SN",
            "2.5.4.5" => "serialNumber",
            "2.5.4.6" => "C",
            "2.5.4.7" => "L",
            "2.5.4.8" => "ST",
            "2.5.4.9" => "street",
            "2.5.4.10" => "O",
            "2.5.4.11" => "OU",
            "2.5.4.12" => "title",
            "2.5.4.13" => "description",
            "2.5.4.15" => "businessCategory",
            "2.5.4.17" => "postalCode",
            "2.5.4.41" => "name",
            "2.5.4.42" => "GN",
            "2.5.4.43" => "initials",
            "2.5.4.44" => "generationQualifier",
            "2.5.4.46" => "dnQualifier",
            "2.5.4.65" => "pseudonym",
            "2.5.4.97" => "organizationIdentifier",
            "1.2.840.113549.1.9.1" => "emailAddress",
            "0.9.2342.19200300.100.1.25" => "DC",
            "0.9.2342.19200300.100.1.1" => "UID",
            "1.3.6.1.4.1.311.60.2.1.1" => "jurisdictionL",
            "1.3.6.1.4.1.311.60.2.1.2" => "jurisdictionST",
            "1.3.6.1.4.1.311.60.2.1.3" => "jurisdictionC",
            _ => return text,
        };
        short.into()
    }

    fn string_value(tag: u8, contents: &[u8]) -> String {
        match tag {
            // BMPString: UTF-16BE.
            0x1e => String::from_utf16_lossy(
                &contents
                    .chunks_exact(2)
                    .map(|c| u16::from_be_bytes([c[0], c[1]]))
                    .collect::<Vec<_>>(),
            ),
            // UniversalString: UTF-32BE.
            0x1c => contents
                .chunks_exact(4)
                .filter_map(|c| char::from_u32(u32::from_be_bytes([c[0], c[1], c[2], c[3]])))
                .collect(),
            // TeletexString: read as Latin-1, as OpenSSL does.
            0x14 => contents.iter().map(|&b| b as char).collect(),
            _ => String::from_utf8_lossy(contents).into_owned(),
        }
    }

    /// A `Name`'s attributes in order, as `[shortName, value]`.
    pub fn name_entries(name: &[u8]) -> Vec<(String, String)> {
        let mut out = Vec::new();
        let Some(seq) = Reader::new(name).expect(0x30) else {
            return out;
        };
        let mut rdns = Reader::new(seq);
        while let Some(set) = rdns.expect(0x31) {
            let mut atvs = Reader::new(set);
            while let Some(atv) = atvs.expect(0x30) {
                let mut r = Reader::new(atv);
                if let (Some(oid), Some((tag, value, _))) = (r.expect(0x06), r.next()) {
                    out.push((attribute_name(oid), string_value(tag, value)));
                }
            }
        }
        out
    }

    /// Node's escaping of names in `subjectaltname`: JSON-quoted when they hold a character
    /// that would make the list ambiguous.
    fn safe_name(prefix: &str, value: &str) -> String {
        let safe = value
            .chars()
            .all(|c| !matches!(c, '"' | '\\' | ',' | '\'') && (' '..='~').contains(&c));
        if safe {
            return format!("{prefix}:{value}");
        }
        let mut out = format!("{prefix}:\"");
        for c in value.chars() {
            match c {
                '"' | '\\' => {
                    out.push('\\');
                    out.push(c);
                }
                ' '..='~' => out.push(c),
                _ => {
                    let mut units = [0u16; 2];
                    for u in c.encode_utf16(&mut units) {
                        let _ = write!(out, "\\u{u:04x}");
                    }
                }
            }
        }
        out.push('"');
        out
    }

    fn general_name(tag: u8, contents: &[u8]) -> String {
        let text = || String::from_utf8_lossy(contents).into_owned();
        match tag {
            0x82 => safe_name("DNS", &text()),
            0x81 => safe_name("email", &text()),
            0x86 => safe_name("URI", &text()),
            0x87 => match contents.len() {
                4 => format!(
                    "IP Address:{}",
                    std::net::Ipv4Addr::from([contents[0], contents[1], contents[2], contents[3]])
                ),
                16 => {
                    let mut b = [0u8; 16];
                    b.copy_from_slice(contents);
                    format!("IP Address:{}", std::net::Ipv6Addr::from(b))
                }
                _ => "IP Address:<invalid>".into(),
            },
            0x88 => format!("Registered ID:{}", oid_text(contents)),
            0xa4 => {
                let entries = name_entries(contents);
                let text: String = entries.iter().map(|(k, v)| format!("/{k}={v}")).collect();
                format!("DirName:{text}")
            }
            0xa0 => "othername:<unsupported>".into(),
            0xa3 => "X400Name:<unsupported>".into(),
            _ => "EdiPartyName:<unsupported>".into(),
        }
    }

    pub fn alt_names(value: &[u8]) -> Option<String> {
        let mut names = Reader::new(Reader::new(value).expect(0x30)?);
        let mut out = Vec::new();
        while let Some((tag, contents, _)) = names.next() {
            out.push(general_name(tag, contents));
        }
        Some(out.join(", "))
    }

    pub fn is_ca(value: &[u8]) -> bool {
        Reader::new(value)
            .expect(0x30)
            .and_then(|seq| {
                Reader::new(seq)
                    .optional(0x01)
                    .map(|b| b.first() == Some(&0xff))
            })
            .unwrap_or(false)
    }

    pub fn oid_list(value: &[u8]) -> Option<Vec<String>> {
        let mut list = Reader::new(Reader::new(value).expect(0x30)?);
        let mut out = Vec::new();
        while let Some(oid) = list.expect(0x06) {
            out.push(oid_text(oid));
        }
        Some(out)
    }

    pub fn info_access(value: &[u8]) -> Option<Vec<(String, String)>> {
        let mut list = Reader::new(Reader::new(value).expect(0x30)?);
        let mut out = Vec::new();
        while let Some(desc) = list.expect(0x30) {
            let mut r = Reader::new(desc);
            let method = match oid_text(r.expect(0x06)?).as_str() {
                "1.3.6.1.5.5.7.48.1" => "OCSP".to_string(),
                "1.3.6.1.5.5.7.48.2" => "CA Issuers".to_string(),
                other => other.to_string(),
            };
            let (tag, contents, _) = r.next()?;
            let name = general_name(tag, contents);
            let (kind, rest) = name.split_once(':').unwrap_or((&name, ""));
            out.push((format!("{method} - {kind}"), rest.to_string()));
        }
        Some(out)
    }

    fn bit_length(integer: &[u8]) -> u32 {
        let start = integer
            .iter()
            .position(|&b| b != 0)
            .unwrap_or(integer.len());
        match integer.get(start) {
            Some(&b) => (integer.len() - start - 1) as u32 * 8 + (8 - b.leading_zeros()),
            None => 0,
        }
    }

    /// The key fields Node shows: modulus, bits, exponent and pubkey for RSA; bits, pubkey and
    /// the curve's names for EC.
    pub fn public_key(spki: &[u8], info: &mut super::CertInfo) {
        let parse = || {
            let mut r = Reader::new(Reader::new(spki).expect(0x30)?);
            let mut alg = Reader::new(r.expect(0x30)?);
            let oid = alg.expect(0x06)?;
            let params = alg.optional(0x06);
            let key = r.expect(0x03)?.get(1..)?;
            Some((oid, params, key))
        };
        let Some((oid, params, key)) = parse() else {
            return;
        };
        if oid == OID_RSA {
            let Some(seq) = Reader::new(key).expect(0x30) else {
                return;
            };
            let mut r = Reader::new(seq);
            if let (Some(n), Some(e)) = (r.expect(0x02), r.expect(0x02)) {
                info.modulus = Some(super::bn_hex(n));
                info.bits = Some(bit_length(n));
                let e = e.iter().fold(0u64, |acc, &b| (acc << 8) | u64::from(b));
                info.exponent = Some(format!("0x{e:x}"));
                info.pubkey = Some(spki.to_vec().into());
            }
        } else if oid == OID_EC {
            let curve = match params.map(oid_text).as_deref() {
                Some("1.2.840.10045.3.1.7") => Some(("prime256v1", "P-256", 256)),
                Some("1.3.132.0.34") => Some(("secp384r1", "P-384", 384)),
                Some("1.3.132.0.35") => Some(("secp521r1", "P-521", 521)),
                _ => None,
            };
            if let Some((asn1, nist, bits)) = curve {
                info.bits = Some(bits);
                info.pubkey = Some(key.to_vec().into());
                info.asn1_curve = Some(asn1);
                info.nist_curve = Some(nist);
            }
        }
    }
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
