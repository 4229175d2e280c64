//! `node:tls` and `node:https` against Node: TLS servers on 127.0.0.1 (tokio-rustls) with
//! certificates made per run by rcgen (a private CA and its leaf, an expired and a not-yet-valid
//! leaf, a self-signed one, a server that sends its CA along), and
//! tests/fixtures/node-tls/shared/probe.mjs run inside the plugin and under `node`: events,
//! `authorized`/`authorizationError`, `getPeerCertificate()`, ALPN, Node's error codes and
//! messages for each failed check, https requests, and the plugin's own TLS and HTTPS servers
//! must be the same. fetch, which has no `ca` option, must fail promptly and say why.
mod common;

use std::net::{IpAddr, Ipv4Addr};
use std::sync::Arc;

use common::*;
use rcgen::{
    BasicConstraints, CertificateParams, DistinguishedName, DnType, ExtendedKeyUsagePurpose, IsCa,
    Issuer, KeyPair, KeyUsagePurpose, SanType,
};
use serde_json::{json, Value};
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::TcpListener;
use tokio_rustls::rustls::{self, pki_types};

struct Leaf {
    pem: String,
    der: pki_types::CertificateDer<'static>,
    key: KeyPair,
}

fn name(cn: &str) -> DistinguishedName {
    let mut dn = DistinguishedName::new();
    dn.push(DnType::CommonName, cn);
    dn.push(DnType::OrganizationName, "Paseo Tests");
    dn
}

fn leaf_params(from: (i32, u8, u8), to: (i32, u8, u8)) -> CertificateParams {
    let mut params = CertificateParams::new(vec!["localhost".to_string()]).unwrap();
    params
        .subject_alt_names
        .push(SanType::IpAddress(IpAddr::V4(Ipv4Addr::LOCALHOST)));
    params.distinguished_name = name("localhost");
    params.extended_key_usages = vec![ExtendedKeyUsagePurpose::ServerAuth];
    params.not_before = rcgen::date_time_ymd(from.0, from.1, from.2);
    params.not_after = rcgen::date_time_ymd(to.0, to.1, to.2);
    params
}

fn signed(params: CertificateParams, issuer: &Issuer<'_, KeyPair>) -> Leaf {
    let key = KeyPair::generate().unwrap();
    let cert = params.signed_by(&key, issuer).unwrap();
    Leaf {
        pem: cert.pem(),
        der: cert.der().clone(),
        key,
    }
}

struct Pki {
    ca: Leaf,
    good: Leaf,
    expired: Leaf,
    future: Leaf,
    self_signed: Leaf,
}

fn pki() -> Pki {
    let ca_key = KeyPair::generate().unwrap();
    let mut ca_params = CertificateParams::new(Vec::<String>::new()).unwrap();
    ca_params.distinguished_name = name("Paseo Test CA");
    ca_params.is_ca = IsCa::Ca(BasicConstraints::Unconstrained);
    ca_params.key_usages = vec![KeyUsagePurpose::KeyCertSign, KeyUsagePurpose::CrlSign];
    ca_params.not_before = rcgen::date_time_ymd(2020, 1, 1);
    ca_params.not_after = rcgen::date_time_ymd(2120, 1, 1);
    let ca_cert = ca_params.self_signed(&ca_key).unwrap();
    let ca = Leaf {
        pem: ca_cert.pem(),
        der: ca_cert.der().clone(),
        key: KeyPair::generate().unwrap(), // unused: the issuer below holds the CA's key
    };
    let issuer = Issuer::new(ca_params, ca_key);
    let self_key = KeyPair::generate().unwrap();
    let self_cert = leaf_params((2021, 6, 1), (2099, 12, 31))
        .self_signed(&self_key)
        .unwrap();
    Pki {
        good: signed(leaf_params((2021, 6, 1), (2099, 12, 31)), &issuer),
        expired: signed(leaf_params((2020, 2, 1), (2021, 2, 1)), &issuer),
        future: signed(leaf_params((2090, 1, 1), (2095, 1, 1)), &issuer),
        self_signed: Leaf {
            pem: self_cert.pem(),
            der: self_cert.der().clone(),
            key: self_key,
        },
        ca,
    }
}

/// A TLS server on 127.0.0.1 sending `chain`: JSON about the request for HTTP, `echo:<bytes>`
/// for anything else; then close_notify and FIN.
async fn serve(chain: Vec<pki_types::CertificateDer<'static>>, key: &KeyPair) -> u16 {
    let key = pki_types::PrivateKeyDer::Pkcs8(key.serialize_der().into());
    let provider = Arc::new(rustls::crypto::aws_lc_rs::default_provider());
    let mut config = rustls::ServerConfig::builder_with_provider(provider)
        .with_safe_default_protocol_versions()
        .unwrap()
        .with_no_client_auth()
        .with_single_cert(chain, key)
        .unwrap();
    config.alpn_protocols = vec![b"x-paseo".to_vec(), b"http/1.1".to_vec()];
    let acceptor = tokio_rustls::TlsAcceptor::from(Arc::new(config));
    let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
    let port = listener.local_addr().unwrap().port();
    tokio::spawn(async move {
        while let Ok((tcp, _)) = listener.accept().await {
            let acceptor = acceptor.clone();
            tokio::spawn(async move {
                if let Ok(tls) = acceptor.accept(tcp).await {
                    let _ = answer(tls).await;
                }
            });
        }
    });
    port
}

async fn answer(
    mut tls: tokio_rustls::server::TlsStream<tokio::net::TcpStream>,
) -> std::io::Result<()> {
    let (sni, alpn) = {
        let conn = tls.get_ref().1;
        (
            conn.server_name().map(String::from),
            conn.alpn_protocol()
                .map(|p| String::from_utf8_lossy(p).into_owned()),
        )
    };
    let mut buf = Vec::new();
    let mut chunk = [0u8; 16 * 1024];
    let reply = loop {
        let n = tls.read(&mut chunk).await?;
        buf.extend_from_slice(&chunk[..n]);
        let http = [&b"GET "[..], b"POST ", b"PUT "]
            .iter()
            .any(|m| buf.starts_with(m));
        if !http {
            if n == 0 && buf.is_empty() {
                return Ok(());
            }
            let mut reply = b"echo:".to_vec();
            reply.extend_from_slice(&buf);
            break reply;
        }
        let Some(end) = buf.windows(4).position(|w| w == b"\r\n\r\n") else {
            if n == 0 {
                return Ok(());
            }
            continue;
        };
        let head = String::from_utf8_lossy(&buf[..end]).into_owned();
        let header = |name: &str| {
            head.lines().find_map(|l| {
                let (k, v) = l.split_once(':')?;
                k.eq_ignore_ascii_case(name).then(|| v.trim().to_string())
            })
        };
        let mut body = buf[end + 4..].to_vec();
        if header("transfer-encoding").is_some_and(|v| v.contains("chunked")) {
            // Read to the last chunk, then decode.
            while !body.ends_with(b"0\r\n\r\n") && n != 0 {
                let n = tls.read(&mut chunk).await?;
                if n == 0 {
                    break;
                }
                body.extend_from_slice(&chunk[..n]);
            }
            body = dechunk(&body);
        } else {
            let len: usize = header("content-length")
                .and_then(|v| v.parse().ok())
                .unwrap_or(0);
            while body.len() < len {
                let n = tls.read(&mut chunk).await?;
                if n == 0 {
                    break;
                }
                body.extend_from_slice(&chunk[..n]);
            }
        }
        let mut first = head.lines().next().unwrap_or_default().split(' ');
        let json = json!({
            "method": first.next(), "path": first.next(), "host": header("host"),
            "body": String::from_utf8_lossy(&body), "sni": sni, "alpn": alpn,
        })
        .to_string();
        break format!(
            "HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: {}\r\nConnection: close\r\n\r\n{json}",
            json.len()
        )
        .into_bytes();
    };
    tls.write_all(&reply).await?;
    tls.shutdown().await
}

fn dechunk(mut data: &[u8]) -> Vec<u8> {
    let mut out = Vec::new();
    while let Some(line) = data.windows(2).position(|w| w == b"\r\n") {
        let size =
            usize::from_str_radix(String::from_utf8_lossy(&data[..line]).trim(), 16).unwrap_or(0);
        if size == 0 || data.len() < line + 2 + size {
            break;
        }
        out.extend_from_slice(&data[line + 2..line + 2 + size]);
        data = &data[(line + 4 + size).min(data.len())..];
    }
    out
}

async fn config(pki: &Pki) -> Value {
    let closed = TcpListener::bind("127.0.0.1:0").await.unwrap();
    let closed_port = closed.local_addr().unwrap().port();
    drop(closed);
    json!({
        "ca": pki.ca.pem,
        "selfCert": pki.self_signed.pem,
        "cert": pki.good.pem,
        "key": pki.good.key.serialize_pem(),
        "goodPort": serve(vec![pki.good.der.clone()], &pki.good.key).await,
        "expiredPort": serve(vec![pki.expired.der.clone()], &pki.expired.key).await,
        "futurePort": serve(vec![pki.future.der.clone()], &pki.future.key).await,
        "selfPort": serve(vec![pki.self_signed.der.clone()], &pki.self_signed.key).await,
        "chainPort": serve(vec![pki.good.der.clone(), pki.ca.der.clone()], &pki.good.key).await,
        "closedPort": closed_port,
    })
}

/// Runs the fixture with `cfg` (passed as the request's title) and returns its env.
async fn plugin_env(cfg: &Value) -> Value {
    let dir = tempfile::tempdir().unwrap();
    let host = host();
    load_all(&host, &["node-tls"]).await;
    let mut request = open_request();
    request["cwd"] = json!(dir.path());
    request["title"] = json!(cfg.to_string());
    let out = open(&host, request)
        .await
        .unwrap_or_else(|e| panic!("{e}\n{:?}", log_lines(&host, "node-tls")));
    host.shutdown().await;
    out["env"].clone()
}

#[tokio::test(flavor = "multi_thread")]
async fn tls_and_https_behave_as_nodes() {
    let pki = pki();
    let mut cfg = config(&pki).await;
    let sockets = tempfile::tempdir().unwrap();
    let node_sockets = tempfile::tempdir().unwrap();
    cfg["dir"] = json!(node_sockets.path());
    let node_cfg = cfg.clone();
    cfg["dir"] = json!(sockets.path());
    let probe = fixture("node-tls").join("shared/probe.mjs");
    let script = format!(
        "const {{ probe }} = await import({:?});\n\
         const tls = (await import('node:tls')).default, https = (await import('node:https')).default;\n\
         const net = (await import('node:net')).default;\n\
         console.log(JSON.stringify(await probe({node_cfg}, {{ tls, https, net }})));",
        probe.display().to_string(),
    );
    // Node runs beside the servers, which need this runtime's threads.
    let node = tokio::task::spawn_blocking(move || under_node(&script))
        .await
        .unwrap();
    let env = plugin_env(&cfg).await;
    let ours: Value = serde_json::from_str(env["RESULT"].as_str().unwrap()).unwrap();
    assert_same_as_node(&ours, &node);

    // What Node says, pinned down: the checks this host must never get wrong.
    let code = |case: &str| ours[case]["error"]["code"].clone();
    assert_eq!(ours["good"]["authorized"], true);
    assert_eq!(ours["good"]["data"], "echo:hello");
    assert_eq!(
        ours["good"]["cert"]["subject"],
        json!({ "CN": "localhost", "O": "Paseo Tests" })
    );
    assert_eq!(code("unknownCA"), "UNABLE_TO_VERIFY_LEAF_SIGNATURE");
    assert_eq!(code("selfSigned"), "DEPTH_ZERO_SELF_SIGNED_CERT");
    assert_eq!(code("chainUntrusted"), "SELF_SIGNED_CERT_IN_CHAIN");
    assert_eq!(code("expired"), "CERT_HAS_EXPIRED");
    assert_eq!(code("notYetValid"), "CERT_NOT_YET_VALID");
    assert_eq!(code("wrongHost"), "ERR_TLS_CERT_ALTNAME_INVALID");
    assert_eq!(
        ours["wrongHost"]["error"]["message"],
        "Hostname/IP does not match certificate's altnames: Host: wrong.example. is not in the cert's altnames: DNS:localhost, IP Address:127.0.0.1"
    );
    assert_eq!(ours["noRejectSelf"]["authorized"], false);
    assert_eq!(
        ours["noRejectSelf"]["authorizationError"],
        "DEPTH_ZERO_SELF_SIGNED_CERT"
    );
    assert_eq!(ours["identityAccepted"]["authorized"], true);
    assert_eq!(ours["alpn"]["alpnProtocol"], "http/1.1");
    assert_eq!(ours["httpsGet"]["status"], 200);
    assert_eq!(ours["httpsGet"]["body"]["path"], "/json?x=1");

    // fetch has no `ca`: both servers are refused, at once, with the reason in the cause.
    let fetched: Value = serde_json::from_str(env["FETCH"].as_str().unwrap()).unwrap();
    for case in ["unknownCA", "selfSigned"] {
        let f = &fetched[case];
        assert_eq!(f["name"], "TypeError", "{case}: {f}");
        assert_eq!(f["message"], "fetch failed", "{case}: {f}");
        assert_eq!(f["fast"], true, "{case}: {f}");
        assert!(
            f["cause"].as_str().unwrap().contains("certificate"),
            "{case}: {f}"
        );
    }
}

#[tokio::test(flavor = "multi_thread")]
async fn tls_is_evaluated_only_for_plugins_that_import_it() {
    let host = host();
    load_all(&host, &["node-tls/untouched"]).await;
    let env = open(&host, open_request()).await.unwrap()["env"].clone();
    host.shutdown().await;
    for name in ["TLS", "HTTPS"] {
        assert_eq!(env[name], "not evaluated", "{env}");
    }
    assert_eq!(env["HTTP"], "function");
    let list = env["LIST"].as_str().unwrap();
    for name in ["http", "net", "events", "buffer"] {
        assert!(
            list.split(',').any(|m| m == format!("NativeModule {name}")),
            "{list}"
        );
    }
}
