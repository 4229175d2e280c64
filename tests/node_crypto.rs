//! `node:crypto` through a real plugin: digests and HMACs against published vectors, Node's
//! error texts, randomness, webcrypto's subtle.digest, and the members that are not supported.

mod common;

use common::*;
use serde_json::{json, Value};

async fn results() -> Value {
    let host = host();
    load_all(&host, &["node-crypto"]).await;
    let out = open(&host, open_request())
        .await
        .unwrap_or_else(|e| panic!("{e}\n{:?}", log_lines(&host, "node-crypto")));
    serde_json::from_str(out["env"]["RESULT"].as_str().unwrap()).unwrap()
}

const SHA256_ABC: &str = "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad";

#[tokio::test(flavor = "multi_thread")]
async fn hashes_match_known_digests() {
    let r = results().await;
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
    // OpenSSL's aliases, as Node accepts them.
    assert_eq!(r["abc.SHA256"], SHA256_ABC);
    assert_eq!(r["abc.sha-256"], SHA256_ABC);
    assert_eq!(r["abc.RSA-SHA1"], r["abc.sha1"]);
    assert_eq!(
        r["empty"],
        "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"
    );
    for key in ["chained", "inputHex", "inputDataView"] {
        assert_eq!(r[key], SHA256_ABC, "{key}");
    }
    assert_eq!(r["base64"], "ungWv48Bz+pBQUDeXa4iI7ADYaOWF3qctBD/YfIAFa0=");
    assert_eq!(
        r["base64url"],
        "ungWv48Bz-pBQUDeXa4iI7ADYaOWF3qctBD_YfIAFa0"
    );
    assert_eq!(r["latin1Length"], 32);
    assert_eq!(r["buffer"], "true:32:ba7816bf");
    assert_eq!(r["utf8Input"], "21b1ae5bc147bb564254200a4731e337");
    assert_eq!(
        r["copy"],
        format!("{SHA256_ABC}|b2bdab4230154046ad0b7dfa830a9260caa5bd6ae230e582a2244ab4bf0b4ca5")
    );
    assert_eq!(r["streamed"], "true");
    assert_eq!(
        r["oneShot"],
        "a9993e364706816aba3e25717850c26c9cd0d89d|kAFQmDzST7DWlj99KOF/cg==|true"
    );
    assert_eq!(r["getHashes"], true);
    assert_eq!(r["subtle"], format!("true:{SHA256_ABC}"));
    assert_eq!(r["subtleObject"], r["abc.sha1"]);
}

#[tokio::test(flavor = "multi_thread")]
async fn hmac_matches_rfc_vectors() {
    let r = results().await;
    // RFC 4231 test case 2 (SHA-256, SHA-512) and 6 (key longer than a block); RFC 2104 for MD5.
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
    // Node's Hmac answers a second digest() with an empty result.
    assert_eq!(r["hmacTwice"], "40|\"\"|0");
}

#[tokio::test(flavor = "multi_thread")]
async fn errors_read_like_nodes() {
    let r = results().await;
    let cases = json!({
        "digestTwice": "Error|ERR_CRYPTO_HASH_FINALIZED|Digest already called",
        "updateAfter": "Error|ERR_CRYPTO_HASH_FINALIZED|Digest already called",
        "unknownHash": "Error||Digest method not supported",
        "hashNotString": "TypeError|ERR_INVALID_ARG_TYPE|The \"algorithm\" argument must be of type string. Received type number (123)",
        "updateBad": "TypeError|ERR_INVALID_ARG_TYPE|The \"data\" argument must be of type string or an instance of Buffer, TypedArray, or DataView. Received type number (123)",
        "hmacUpdateAfter": "Error|ERR_CRYPTO_HASH_FINALIZED|Digest already called",
        "hmacUnknown": "TypeError|ERR_CRYPTO_INVALID_DIGEST|Invalid digest: nope",
        "hmacNoKey": "TypeError|ERR_INVALID_ARG_TYPE|The \"key\" argument must be of type string or an instance of ArrayBuffer, Buffer, TypedArray, DataView, KeyObject, or CryptoKey. Received undefined",
        "oneShotBadEncoding": "TypeError|ERR_INVALID_ARG_VALUE|The argument 'outputEncoding' is invalid. Received 'nope'",
        "oneShotBadInput": "TypeError|ERR_INVALID_ARG_TYPE|The \"input\" argument must be of type string or an instance of Buffer, TypedArray, or DataView. Received type number (1)",
        "oneShotUnknown": "Error||Digest method nope is not supported",
        "tseLength": "RangeError|ERR_CRYPTO_TIMING_SAFE_EQUAL_LENGTH|Input buffers must have the same byte length",
        "tseType": "TypeError|ERR_INVALID_ARG_TYPE|The \"buf1\" argument must be an instance of ArrayBuffer, Buffer, TypedArray, or DataView.",
        "randomBytesNegative": "RangeError|ERR_OUT_OF_RANGE|The value of \"size\" is out of range. It must be >= 0 && <= 2147483647. Received -1",
        "randomBytesType": "TypeError|ERR_INVALID_ARG_TYPE|The \"size\" argument must be of type number. Received type string ('8')",
        "randomIntFloat": "TypeError|ERR_INVALID_ARG_TYPE|The \"max\" argument must be a safe integer. Received type number (1.5)",
        "randomIntEmpty": "RangeError|ERR_OUT_OF_RANGE|The value of \"max\" is out of range. It must be greater than the value of \"min\" (0). Received 0",
        "randomIntOrder": "RangeError|ERR_OUT_OF_RANGE|The value of \"max\" is out of range. It must be greater than the value of \"min\" (5). Received 2",
        "randomIntWide": "RangeError|ERR_OUT_OF_RANGE|The value of \"max - min\" is out of range. It must be <= 281474976710655. Received 281_474_976_710_657",
        "getRandomValuesFloat": "TypeMismatchError|17|The data argument must be an integer-type TypedArray",
        "subtleUnknown": "NotSupportedError|9|Unrecognized algorithm name",
        "subtleBadData": "TypeError|ERR_INVALID_ARG_TYPE|Failed to execute 'digest' on 'SubtleCrypto': 2nd argument is not instance of ArrayBuffer, Buffer, TypedArray, or DataView.",
    });
    for (key, want) in cases.as_object().unwrap() {
        assert_eq!(&r[key], want, "{key}");
    }
}

#[tokio::test(flavor = "multi_thread")]
async fn randomness_and_comparison() {
    let r = results().await;
    assert_eq!(r["tseTrue"], true);
    assert_eq!(r["tseFalse"], false);
    assert_eq!(r["randomBytes"], "true:16:0");
    assert_eq!(r["randomBytesCallback"], "null:8:async");
    assert_eq!(r["randomIntRange"], true);
    assert_eq!(r["randomIntOne"], 5);
    assert_eq!(r["randomIntMaxOnly"], true);
    assert_eq!(r["randomIntCallback"], "undefined:true");
    // randomFillSync with offset == length fills nothing.
    assert_eq!(r["randomFill"], "00000000");
    assert_eq!(r["uuid"], true);
    assert_eq!(r["getRandomValues"], true);
    assert_eq!(r["constants"], 1);
    assert_eq!(r["defaultExport"], true);
}

#[tokio::test(flavor = "multi_thread")]
async fn unsupported_members_name_themselves() {
    let r = results().await;
    assert_eq!(
        r["cipher"],
        "Error||node:crypto.createCipheriv is not supported by the Paseo plugin host yet"
    );
    assert_eq!(
        r["pbkdf2"],
        "Error||node:crypto.pbkdf2Sync is not supported by the Paseo plugin host yet"
    );
    assert_eq!(
        r["subtleSign"],
        "Error||node:crypto.subtle.sign is not supported by the Paseo plugin host yet"
    );
}
