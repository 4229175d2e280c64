//! `node:crypto` keys, signatures, ciphers, KDFs and webcrypto's subtle against Node:
//! tests/fixtures/node-crypto-keys/shared/probe.mjs runs inside the plugin and under `node` over
//! the same fixed keys, and what each saw must be the same (exports byte for byte, deterministic
//! signatures and ciphertexts, Node's errors). What is randomized on the plugin's side (ECDSA and
//! PSS signatures, OAEP ciphertexts, generated keys) must then be accepted by Node's crypto.

mod common;

use common::*;
use serde_json::Value;

/// The probe's comparable cases (RESULT) and its randomized outputs (CROSS).
async fn results() -> (Value, Value) {
    let host = host();
    load_all(&host, &["node-crypto-keys"]).await;
    let out = open(&host, open_request())
        .await
        .unwrap_or_else(|e| panic!("{e}\n{:?}", log_lines(&host, "node-crypto-keys")));
    host.shutdown().await;
    let parse = |key: &str| serde_json::from_str(out["env"][key].as_str().unwrap()).unwrap();
    (parse("RESULT"), parse("CROSS"))
}

#[tokio::test(flavor = "multi_thread")]
async fn keys_signatures_ciphers_and_kdfs_behave_as_nodes() {
    let probe = fixture("node-crypto-keys").join("shared/probe.mjs");
    let node = under_node(&format!(
        "const {{ probe }} = await import({:?});\n\
         const crypto = await import('node:crypto'), {{ Buffer }} = await import('node:buffer');\n\
         console.log(JSON.stringify((await probe(crypto, Buffer)).cases));",
        probe.display().to_string(),
    ));
    let (ours, cross) = results().await;
    assert_same_as_node(&ours, &node);

    // Node verifies and decrypts what the plugin signed and encrypted with randomness.
    let keys = fixture("node-crypto-keys").join("shared/keys.mjs");
    let checked = under_node(&format!(
        "const {{ KEYS }} = await import({:?});\n\
         const c = await import('node:crypto');\n\
         const x = {cross};\n\
         const data = Buffer.from('the quick brown fox'), b = (s) => Buffer.from(s, 'base64');\n\
         const out = {{\n\
           pssMax: c.verify('sha256', data, {{ key: KEYS.rsaSpki, padding: 6 }}, b(x.pssMax)),\n\
           pss32: c.verify('sha256', data, {{ key: KEYS.rsaSpki, padding: 6, saltLength: 32 }}, b(x.pss32)),\n\
           subtlePss: c.verify('sha256', data, {{ key: KEYS.rsaSpki, padding: 6, saltLength: 32 }}, b(x.subtlePss)),\n\
           ecdsaDer256: c.verify('sha256', data, KEYS['P-256spki'], b(x['ecdsaDer.P-256'])),\n\
           ecdsaDer384: c.verify('sha384', data, KEYS['P-384spki'], b(x['ecdsaDer.P-384'])),\n\
           ecdsaP1363: c.verify('sha256', data, {{ key: KEYS['P-256spki'], dsaEncoding: 'ieee-p1363' }}, b(x['ecdsaP1363.P-256'])),\n\
           subtleEcdsa: c.verify('sha256', data, {{ key: KEYS['P-256spki'], dsaEncoding: 'ieee-p1363' }}, b(x.subtleEcdsa)),\n\
           oaep: c.privateDecrypt(KEYS.rsaPkcs8, b(x.oaep)).toString() === 'secret message',\n\
           oaep256: c.privateDecrypt({{ key: KEYS.rsaPkcs8, oaepHash: 'sha256' }}, b(x.oaep256)).toString() === 'with sha256',\n\
           genRsa: c.verify('sha256', data, x.genRsa[0], b(x.genRsa[1])),\n\
         }};\n\
         for (const [name, [pem, sig]] of Object.entries(x).filter(([k]) => k.startsWith('gen.'))) {{\n\
           out[name] = c.verify(name.includes('ed25519') ? null : name.includes('P-256') ? 'sha256' : 'sha384', data, pem, b(sig));\n\
         }}\n\
         console.log(JSON.stringify(out));",
        keys.display().to_string(),
    ));
    let failed: Vec<&String> = checked
        .as_object()
        .unwrap()
        .iter()
        .filter(|(_, ok)| **ok != Value::Bool(true))
        .map(|(name, _)| name)
        .collect();
    assert!(failed.is_empty(), "Node rejected: {failed:?}\n{checked}");
    assert_eq!(checked.as_object().unwrap().len(), 13);
}

/// A published vector, not Node's output: RFC 6070's PBKDF2-HMAC-SHA1, 2 iterations, 20 bytes.
#[tokio::test(flavor = "multi_thread")]
async fn kdfs_match_published_vectors() {
    let r = results().await.0;
    assert_eq!(r["pbkdf2Sha1"], "ea6c014dc72d6f8ccd1ed92ace1d41f0d8de8957");
}

/// Key derivations run outside the plugin's heap: memory or a result past its heap cap is
/// refused before anything is allocated (Node's `maxmem` is the plugin's own to raise).
#[tokio::test(flavor = "multi_thread")]
async fn derivations_past_the_heap_cap_are_refused() {
    let host = host();
    load_all(&host, &["node-crypto-keys"]).await;
    let out = open(&host, open_request()).await.unwrap();
    host.shutdown().await;
    let engine: Value = serde_json::from_str(out["env"]["ENGINE"].as_str().unwrap()).unwrap();
    let cap = paseo_plugin_runtime::Limits::default().heap_bytes / (1024 * 1024);
    let tail = format!("more than the heap cap of plugin node-crypto-keys ({cap} MiB)");
    for (case, what, bytes) in [
        (
            "scryptSync",
            "Invalid scrypt params: scrypt",
            1_073_742_848u64,
        ),
        ("scrypt", "Invalid scrypt params: scrypt", 1_073_742_848),
        ("pbkdf2Sync", "The pbkdf2 key", 2_147_483_647),
    ] {
        assert_eq!(
            engine[case],
            format!("RangeError: {what} needs {bytes} bytes, {tail}"),
            "{engine}"
        );
    }
}
