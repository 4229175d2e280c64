//! Asymmetric keys behind `node:crypto` (js/node/crypto.js): checking a private key and deriving
//! its public half, signing and verifying (RSA PKCS#1 v1.5 and PSS, ECDSA, Ed25519), generating
//! key pairs, and RSA encryption (OAEP, PKCS#1 v1.5), on aws-lc-rs. JS parses and writes every
//! key format (PEM, PKCS#1, SEC1, PKCS#8, SPKI, JWK); the ops take private keys as PKCS#8 DER
//! and public keys in their raw form (RSAPublicKey DER, an uncompressed EC point, 32 Ed25519
//! bytes). `kind` is "rsa", "ec" (with `curve` "P-256", "P-384" or "P-521") or "ed25519".
//! Errors are short texts that JS turns into Node's errors; they never carry key material.

use std::collections::HashMap;
use std::sync::Mutex;

use aws_lc_rs::rand::SystemRandom;
use aws_lc_rs::rsa::{
    KeySize, OaepPrivateDecryptingKey, OaepPublicEncryptingKey, Pkcs1PrivateDecryptingKey,
    Pkcs1PublicEncryptingKey, PrivateDecryptingKey, PublicEncryptingKey, OAEP_SHA1_MGF1SHA1,
    OAEP_SHA256_MGF1SHA256, OAEP_SHA384_MGF1SHA384, OAEP_SHA512_MGF1SHA512,
};
use aws_lc_rs::signature::{
    self, EcdsaKeyPair, EcdsaSigningAlgorithm, EcdsaVerificationAlgorithm, Ed25519KeyPair, KeyPair,
    RsaKeyPair, RsaParameters, RsaPssSaltLength, RsaSignatureEncoding, UnparsedPublicKey,
};
use deno_core::op2;
use deno_error::JsErrorBox;

/// Node's `RSA_PKCS1_PSS_PADDING`; anything else signs with PKCS#1 v1.5.
const PSS: i32 = 6;
/// Node's `RSA_PSS_SALTLEN_DIGEST`, and `RSA_PSS_SALTLEN_MAX_SIGN` / `RSA_PSS_SALTLEN_AUTO`.
const SALT_DIGEST: i32 = -1;
const SALT_MAX_OR_AUTO: i32 = -2;

fn err(text: &str) -> JsErrorBox {
    JsErrorBox::generic(text.to_string())
}

fn ec_signing(curve: &str, hash: &str) -> Result<&'static EcdsaSigningAlgorithm, JsErrorBox> {
    Ok(match (curve, hash) {
        ("P-256", "sha256") => &signature::ECDSA_P256_SHA256_ASN1_SIGNING,
        ("P-384", "sha384") => &signature::ECDSA_P384_SHA384_ASN1_SIGNING,
        ("P-521", "sha224") => &signature::ECDSA_P521_SHA224_ASN1_SIGNING,
        ("P-521", "sha256") => &signature::ECDSA_P521_SHA256_ASN1_SIGNING,
        ("P-521", "sha384") => &signature::ECDSA_P521_SHA384_ASN1_SIGNING,
        ("P-521", "sha512") => &signature::ECDSA_P521_SHA512_ASN1_SIGNING,
        ("P-256" | "P-384" | "P-521", _) => return Err(err("unsupported digest for this curve")),
        _ => return Err(err("unsupported curve")),
    })
}

fn ec_verifying(
    curve: &str,
    hash: &str,
) -> Result<&'static EcdsaVerificationAlgorithm, JsErrorBox> {
    Ok(match (curve, hash) {
        ("P-256", "sha1") => &signature::ECDSA_P256_SHA1_ASN1,
        ("P-256", "sha256") => &signature::ECDSA_P256_SHA256_ASN1,
        ("P-256", "sha384") => &signature::ECDSA_P256_SHA384_ASN1,
        ("P-256", "sha512") => &signature::ECDSA_P256_SHA512_ASN1,
        ("P-384", "sha256") => &signature::ECDSA_P384_SHA256_ASN1,
        ("P-384", "sha384") => &signature::ECDSA_P384_SHA384_ASN1,
        ("P-384", "sha512") => &signature::ECDSA_P384_SHA512_ASN1,
        ("P-521", "sha1") => &signature::ECDSA_P521_SHA1_ASN1,
        ("P-521", "sha224") => &signature::ECDSA_P521_SHA224_ASN1,
        ("P-521", "sha256") => &signature::ECDSA_P521_SHA256_ASN1,
        ("P-521", "sha384") => &signature::ECDSA_P521_SHA384_ASN1,
        ("P-521", "sha512") => &signature::ECDSA_P521_SHA512_ASN1,
        ("P-256" | "P-384" | "P-521", _) => return Err(err("unsupported digest for this curve")),
        _ => return Err(err("unsupported curve")),
    })
}

/// Any signing algorithm of `curve`, to load a key of that curve.
fn ec_any(curve: &str) -> Result<&'static EcdsaSigningAlgorithm, JsErrorBox> {
    ec_signing(
        curve,
        match curve {
            "P-384" => "sha384",
            _ if curve == "P-521" => "sha512",
            _ => "sha256",
        },
    )
}

fn salt_length(salt: i32) -> RsaPssSaltLength {
    match salt {
        SALT_DIGEST => RsaPssSaltLength::Digest,
        SALT_MAX_OR_AUTO => RsaPssSaltLength::Max,
        n => RsaPssSaltLength::Custom(u16::try_from(n.max(0)).unwrap_or(u16::MAX)),
    }
}

/// aws-lc-rs wants `'static` encodings; one per (digest, salt length) is made once and kept
/// (a few hundred at most: salt lengths are bounded by the modulus).
fn rsa_encoding(
    hash: &str,
    padding: i32,
    salt: i32,
) -> Result<&'static RsaSignatureEncoding, JsErrorBox> {
    static PSS_CACHE: Mutex<Option<HashMap<(u8, i32), &'static RsaSignatureEncoding>>> =
        Mutex::new(None);
    let (index, pkcs1, pss) = match hash {
        "sha256" => (0, &signature::RSA_PKCS1_SHA256, signature::RSA_PSS_SHA256),
        "sha384" => (1, &signature::RSA_PKCS1_SHA384, signature::RSA_PSS_SHA384),
        "sha512" => (2, &signature::RSA_PKCS1_SHA512, signature::RSA_PSS_SHA512),
        _ => return Err(err("unsupported digest for RSA signing")),
    };
    if padding != PSS {
        return Ok(pkcs1);
    }
    let mut cache = PSS_CACHE.lock().unwrap_or_else(|e| e.into_inner());
    Ok(*cache
        .get_or_insert_with(HashMap::new)
        .entry((index, salt))
        .or_insert_with(|| Box::leak(Box::new(pss.with_pss_salt_length(salt_length(salt))))))
}

fn rsa_parameters(
    hash: &str,
    padding: i32,
    salt: RsaPssSaltLength,
) -> Result<&'static RsaParameters, JsErrorBox> {
    static PSS_CACHE: Mutex<Option<HashMap<(u8, RsaPssSaltLengthKey), &'static RsaParameters>>> =
        Mutex::new(None);
    if padding != PSS {
        return Ok(match hash {
            "sha1" => &signature::RSA_PKCS1_1024_8192_SHA1_FOR_LEGACY_USE_ONLY,
            "sha256" => &signature::RSA_PKCS1_1024_8192_SHA256_FOR_LEGACY_USE_ONLY,
            "sha384" => &signature::RSA_PKCS1_2048_8192_SHA384,
            "sha512" => &signature::RSA_PKCS1_1024_8192_SHA512_FOR_LEGACY_USE_ONLY,
            _ => return Err(err("unsupported digest for RSA verification")),
        });
    }
    let (index, params) = match hash {
        "sha256" => (0, signature::RSA_PSS_2048_8192_SHA256),
        "sha384" => (1, signature::RSA_PSS_2048_8192_SHA384),
        "sha512" => (2, signature::RSA_PSS_2048_8192_SHA512),
        _ => return Err(err("unsupported digest for RSA verification")),
    };
    let key = match salt {
        RsaPssSaltLength::Digest => RsaPssSaltLengthKey::Digest,
        RsaPssSaltLength::Max => RsaPssSaltLengthKey::Max,
        RsaPssSaltLength::Custom(n) => RsaPssSaltLengthKey::Custom(n),
        _ => RsaPssSaltLengthKey::Digest,
    };
    let mut cache = PSS_CACHE.lock().unwrap_or_else(|e| e.into_inner());
    Ok(*cache
        .get_or_insert_with(HashMap::new)
        .entry((index, key))
        .or_insert_with(|| Box::leak(Box::new(params.with_pss_salt_length(salt)))))
}

#[derive(Clone, Copy, PartialEq, Eq, Hash)]
enum RsaPssSaltLengthKey {
    Digest,
    Max,
    Custom(u16),
}

/// Checks a private key (PKCS#8 DER) and returns its public half in raw form: the uncompressed
/// point for EC, the 32 bytes for Ed25519, nothing for RSA (JS reads `n` and `e` itself).
pub fn public_of(kind: &str, curve: &str, pkcs8: &[u8]) -> Result<Vec<u8>, JsErrorBox> {
    let invalid = |_| err("invalid private key");
    Ok(match kind {
        "rsa" => {
            RsaKeyPair::from_pkcs8(pkcs8).map_err(invalid)?;
            Vec::new()
        }
        "ec" => EcdsaKeyPair::from_pkcs8(ec_any(curve)?, pkcs8)
            .map_err(invalid)?
            .public_key()
            .as_ref()
            .to_vec(),
        "ed25519" => Ed25519KeyPair::from_pkcs8_maybe_unchecked(pkcs8)
            .map_err(invalid)?
            .public_key()
            .as_ref()
            .to_vec(),
        _ => return Err(err("unsupported key type")),
    })
}

#[op2]
#[buffer]
pub fn op_crypto_key_public_of(
    #[string] kind: &str,
    #[string] curve: &str,
    #[buffer] pkcs8: &[u8],
) -> Result<Vec<u8>, JsErrorBox> {
    public_of(kind, curve, pkcs8)
}

/// Signs `data`; ECDSA signatures are DER (JS turns them into IEEE P1363 when asked).
#[allow(clippy::too_many_arguments)]
#[op2]
#[buffer]
pub fn op_crypto_sign(
    #[string] kind: &str,
    #[string] curve: &str,
    #[string] hash: &str,
    #[buffer] pkcs8: &[u8],
    padding: i32,
    salt: i32,
    #[buffer] data: &[u8],
) -> Result<Vec<u8>, JsErrorBox> {
    let rng = SystemRandom::new();
    let failed = |_| err("signing failed");
    match kind {
        "rsa" => {
            let encoding = rsa_encoding(hash, padding, salt)?;
            let key = RsaKeyPair::from_pkcs8(pkcs8).map_err(|_| err("invalid private key"))?;
            let mut out = vec![0; key.public_modulus_len()];
            key.sign(encoding, &rng, data, &mut out).map_err(failed)?;
            Ok(out)
        }
        "ec" => {
            let key = EcdsaKeyPair::from_pkcs8(ec_signing(curve, hash)?, pkcs8)
                .map_err(|_| err("invalid private key"))?;
            Ok(key.sign(&rng, data).map_err(failed)?.as_ref().to_vec())
        }
        "ed25519" => {
            let key = Ed25519KeyPair::from_pkcs8_maybe_unchecked(pkcs8)
                .map_err(|_| err("invalid private key"))?;
            Ok(key.sign(data).as_ref().to_vec())
        }
        _ => Err(err("unsupported key type")),
    }
}

#[allow(clippy::too_many_arguments)]
#[op2(fast)]
pub fn op_crypto_verify(
    #[string] kind: &str,
    #[string] curve: &str,
    #[string] hash: &str,
    #[buffer] public: &[u8],
    padding: i32,
    salt: i32,
    #[buffer] data: &[u8],
    #[buffer] sig: &[u8],
) -> Result<bool, JsErrorBox> {
    Ok(match kind {
        "rsa" if padding == PSS && salt == SALT_MAX_OR_AUTO => {
            // Node's RSA_PSS_SALTLEN_AUTO: the salt lengths Node and WebCrypto sign with.
            [RsaPssSaltLength::Max, RsaPssSaltLength::Digest]
                .into_iter()
                .try_fold(false, |ok, s| {
                    Ok::<_, JsErrorBox>(
                        ok || UnparsedPublicKey::new(rsa_parameters(hash, padding, s)?, public)
                            .verify(data, sig)
                            .is_ok(),
                    )
                })?
        }
        "rsa" => UnparsedPublicKey::new(rsa_parameters(hash, padding, salt_length(salt))?, public)
            .verify(data, sig)
            .is_ok(),
        "ec" => UnparsedPublicKey::new(ec_verifying(curve, hash)?, public)
            .verify(data, sig)
            .is_ok(),
        "ed25519" => UnparsedPublicKey::new(&signature::ED25519, public)
            .verify(data, sig)
            .is_ok(),
        _ => return Err(err("unsupported key type")),
    })
}

/// A new private key as PKCS#8 DER. RSA takes 2048, 3072, 4096 or 8192 bits and exponent 65537
/// (what aws-lc-rs generates).
pub fn generate(kind: &str, curve: &str, bits: u32) -> Result<Vec<u8>, JsErrorBox> {
    let failed = |_| err("key generation failed");
    Ok(match kind {
        "rsa" => {
            let size = match bits {
                2048 => KeySize::Rsa2048,
                3072 => KeySize::Rsa3072,
                4096 => KeySize::Rsa4096,
                8192 => KeySize::Rsa8192,
                _ => return Err(err("unsupported modulus length")),
            };
            use aws_lc_rs::encoding::AsDer;
            let key = RsaKeyPair::generate(size).map_err(failed)?;
            AsDer::<aws_lc_rs::encoding::Pkcs8V1Der>::as_der(&key)
                .map_err(failed)?
                .as_ref()
                .to_vec()
        }
        "ec" => EcdsaKeyPair::generate(ec_any(curve)?)
            .map_err(failed)?
            .to_pkcs8v1()
            .map_err(failed)?
            .as_ref()
            .to_vec(),
        "ed25519" => Ed25519KeyPair::generate()
            .map_err(failed)?
            .to_pkcs8v1()
            .map_err(failed)?
            .as_ref()
            .to_vec(),
        _ => return Err(err("unsupported key type")),
    })
}

#[op2]
#[buffer]
pub fn op_crypto_generate_key_pair(
    #[string] kind: &str,
    #[string] curve: &str,
    bits: u32,
) -> Result<Vec<u8>, JsErrorBox> {
    generate(kind, curve, bits)
}

/// The same, off the plugin's thread (RSA generation takes a while).
#[op2]
#[buffer]
pub async fn op_crypto_generate_key_pair_async(
    #[string] kind: String,
    #[string] curve: String,
    bits: u32,
) -> Result<Vec<u8>, JsErrorBox> {
    tokio::task::spawn_blocking(move || generate(&kind, &curve, bits))
        .await
        .map_err(|e| JsErrorBox::generic(e.to_string()))?
}

fn oaep(hash: &str) -> Result<&'static aws_lc_rs::rsa::OaepAlgorithm, JsErrorBox> {
    Ok(match hash {
        "sha1" => &OAEP_SHA1_MGF1SHA1,
        "sha256" => &OAEP_SHA256_MGF1SHA256,
        "sha384" => &OAEP_SHA384_MGF1SHA384,
        "sha512" => &OAEP_SHA512_MGF1SHA512,
        _ => return Err(err("unsupported OAEP digest")),
    })
}

/// `publicEncrypt` (key: SPKI DER) or `privateDecrypt` (key: PKCS#8 DER); `padding` is Node's
/// RSA_PKCS1_OAEP_PADDING (4) or RSA_PKCS1_PADDING (1).
#[op2]
#[buffer]
pub fn op_crypto_rsa_cipher(
    encrypt: bool,
    #[buffer] key: &[u8],
    padding: i32,
    #[string] hash: &str,
    #[buffer] label: &[u8],
    #[buffer] data: &[u8],
) -> Result<Vec<u8>, JsErrorBox> {
    let label = (!label.is_empty()).then_some(label);
    if encrypt {
        let key = PublicEncryptingKey::from_der(key).map_err(|_| err("invalid public key"))?;
        let failed = |_| err("data too large for key size");
        if padding == 1 {
            let key = Pkcs1PublicEncryptingKey::new(key).map_err(failed)?;
            let mut out = vec![0; key.ciphertext_size()];
            let n = key.encrypt(data, &mut out).map_err(failed)?.len();
            out.truncate(n);
            Ok(out)
        } else {
            let key = OaepPublicEncryptingKey::new(key).map_err(failed)?;
            let mut out = vec![0; key.ciphertext_size()];
            let n = key
                .encrypt(oaep(hash)?, data, &mut out, label)
                .map_err(failed)?
                .len();
            out.truncate(n);
            Ok(out)
        }
    } else {
        let key = PrivateDecryptingKey::from_pkcs8(key).map_err(|_| err("invalid private key"))?;
        let failed = |_| err("decryption failed");
        if padding == 1 {
            let key = Pkcs1PrivateDecryptingKey::new(key).map_err(failed)?;
            let mut out = vec![0; key.min_output_size()];
            let n = key.decrypt(data, &mut out).map_err(failed)?.len();
            out.truncate(n);
            Ok(out)
        } else {
            let key = OaepPrivateDecryptingKey::new(key).map_err(failed)?;
            let mut out = vec![0; key.min_output_size()];
            let n = key
                .decrypt(oaep(hash)?, data, &mut out, label)
                .map_err(failed)?
                .len();
            out.truncate(n);
            Ok(out)
        }
    }
}
