//! `node:crypto` against Node: tests/fixtures/node-crypto/shared/probe.mjs runs inside the
//! plugin and under `node`, and what each saw (digests and HMACs in every input and output
//! form, the one-shot `hash`, Node's error classes, codes and texts, the shape of random
//! values, webcrypto's subtle.digest) must be the same. Digests and HMACs are also held to
//! their published vectors, and the members the engine does not support must name themselves.

mod common;

use common::*;
use serde_json::{json, Value};

/// The probe's result (RESULT) and the engine-only checks (ENGINE).
async fn results() -> (Value, Value) {
    let host = host();
    load_all(&host, &["node-crypto"]).await;
    let out = open(&host, open_request())
        .await
        .unwrap_or_else(|e| panic!("{e}\n{:?}", log_lines(&host, "node-crypto")));
    host.shutdown().await;
    let parse = |key: &str| serde_json::from_str(out["env"][key].as_str().unwrap()).unwrap();
    (parse("RESULT"), parse("ENGINE"))
}

#[tokio::test(flavor = "multi_thread")]
async fn crypto_behaves_as_nodes() {
    let probe = fixture("node-crypto").join("shared/probe.mjs");
    let node = under_node(&format!(
        "const {{ probe }} = await import({:?});\n\
         const crypto = await import('node:crypto'), {{ Buffer }} = await import('node:buffer');\n\
         console.log(JSON.stringify(await probe(crypto, Buffer)));",
        probe.display().to_string(),
    ));
    assert_same_as_node(&results().await.0, &node);
}

const SHA256_ABC: &str = "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad";

/// The expected values are the published test vectors (FIPS 180-2's "abc" and empty input,
/// RFC 1321's MD5 suite), not Node's output.
#[tokio::test(flavor = "multi_thread")]
async fn hashes_match_known_digests() {
    let r = results().await.0;
    assert_eq!(r["abc.md5"], "900150983cd24fb0d6963f7d28e17f72");
    assert_eq!(r["abc.sha1"], "a9993e364706816aba3e25717850c26c9cd0d89d");
    assert_eq!(
        r["abc.sha224"],
        "23097d223405d8228642a477bda255b32aadbce4bda0b3f7e36c9da7"
    );
    assert_eq!(r["abc.sha256"], SHA256_ABC);
    assert_eq!(
        r["abc.sha384"],
        "cb00753f45a35e8bb5a03d699ac65007272c32ab0eded1631a8b605a43ff5bed8086072ba1e7cc2358baeca134c825a7"
    );
    assert_eq!(
        r["abc.sha512"],
        "ddaf35a193617abacc417349ae20413112e6fa4e89a97ea20a9eeee64b55d39a2192992a274fc1a836ba3c23a3feebbd454d4423643ce80e2a9ac94fa54ca49f"
    );
    assert_eq!(
        r["empty"],
        "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"
    );
    assert_eq!(r["subtle"], format!("true:{SHA256_ABC}"));
}

/// The expected values are RFC 4231's (test case 2 for SHA-256 and SHA-512, 6 for a key longer
/// than a block) and RFC 2104's for MD5, not Node's output.
#[tokio::test(flavor = "multi_thread")]
async fn hmac_matches_rfc_vectors() {
    let r = results().await.0;
    assert_eq!(
        r["hmacSha256"],
        "5bdcc146bf60754e6a042426089575c75a003f089d2739839dec58b964ec3843"
    );
    assert_eq!(
        r["hmacSha512"],
        "164b7a7bfcf819e2e395fbe73b56e0a387bd64222e831fd610270cd7ea2505549758bf75c05a994a6d034f65f8f0e6fdcaeab1a34d4a6b4b636e070a38bce737"
    );
    assert_eq!(
        r["hmacLongKey"],
        "60e431591ee0b67f0d8a26aacbf5b77f8e0bc6213728c5140546040f0ee37f54"
    );
    assert_eq!(r["hmacMd5"], "750c783e6ab0b503eaa86e310a5db738");
}

#[tokio::test(flavor = "multi_thread")]
async fn unsupported_members_name_themselves() {
    let engine = results().await.1;
    assert_eq!(
        engine,
        json!({
            "diffieHellman": "Error||node:crypto.createDiffieHellman is not supported by the Paseo plugin host yet",
            "ecdh": "Error||node:crypto.createECDH is not supported by the Paseo plugin host yet",
            "publicDecrypt": "Error||node:crypto.publicDecrypt is not supported by the Paseo plugin host yet",
            "subtleWrapKey": "Error||node:crypto.subtle.wrapKey is not supported by the Paseo plugin host yet",
        })
    );
}
