//! Trust: the roots a context trusts (Mozilla's, as Node bundles them, plus
//! `NODE_EXTRA_CA_CERTS`; or exactly the `ca` the plugin gave) and the check of a peer's chain
//! against them as OpenSSL does it for Node, with the outcome named by Node's codes
//! (`UNABLE_TO_VERIFY_LEAF_SIGNATURE`, `CERT_HAS_EXPIRED`, ...) and OpenSSL's texts for them.

use std::sync::{Arc, Mutex, OnceLock};

use rustls::client::danger::{HandshakeSignatureValid, ServerCertVerified, ServerCertVerifier};
use rustls::pki_types::pem::PemObject;
use rustls::pki_types::{CertificateDer, ServerName, TrustAnchor, UnixTime};
use rustls::server::danger::{ClientCertVerified, ClientCertVerifier};
use rustls::{CertificateError, DigitallySignedStruct, DistinguishedName, SignatureScheme};

use super::{der, provider};

pub(super) struct Anchors {
    ders: Vec<CertificateDer<'static>>,
    anchors: Vec<TrustAnchor<'static>>,
}

impl std::fmt::Debug for Anchors {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{} trust anchors", self.anchors.len())
    }
}

impl Anchors {
    pub(super) fn new(certs: impl IntoIterator<Item = CertificateDer<'static>>) -> Anchors {
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
pub(super) fn default_anchors() -> Arc<Anchors> {
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
pub(super) struct Verdict {
    pub(super) code: Option<&'static str>,
    pub(super) chain: Vec<CertificateDer<'static>>,
}

pub(super) type Record = Arc<Mutex<Option<Verdict>>>;

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
pub(super) fn code_message(code: &str) -> &'static str {
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
pub(super) struct NodeVerifier {
    pub(super) anchors: Arc<Anchors>,
    pub(super) reject: bool,
    pub(super) record: Record,
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
