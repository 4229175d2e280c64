//! Symmetric ciphers behind `node:crypto`'s `createCipheriv`/`createDecipheriv` and
//! `subtle.encrypt`/`decrypt`, on aws-lc-rs. The ops are stateless: JS keeps the running state
//! (the CBC chaining block, the CTR counter and offset, the pending partial block and the
//! padding), and AEAD modes take the whole message at once (see js/node/crypto.js).

use aws_lc_rs::aead::{self, Aad, LessSafeKey, Nonce, UnboundKey};
use aws_lc_rs::cipher::{
    DecryptingKey, DecryptionContext, EncryptingKey, EncryptionContext, UnboundCipherKey, AES_128,
    AES_192, AES_256,
};
use aws_lc_rs::iv::FixedLength;
use deno_core::op2;
use deno_error::JsErrorBox;

fn aes(key: &[u8]) -> Result<UnboundCipherKey, JsErrorBox> {
    let alg = match key.len() {
        16 => &AES_128,
        24 => &AES_192,
        32 => &AES_256,
        _ => return Err(JsErrorBox::range_error("Invalid key length")),
    };
    UnboundCipherKey::new(alg, key).map_err(|_| JsErrorBox::range_error("Invalid key length"))
}

fn iv16(iv: &[u8]) -> Result<FixedLength<16>, JsErrorBox> {
    FixedLength::<16>::try_from(iv)
        .map_err(|_| JsErrorBox::generic("Invalid initialization vector"))
}

/// AES-CBC without padding over whole blocks (JS pads and unpads).
#[op2]
#[buffer]
pub fn op_crypto_aes_cbc(
    encrypt: bool,
    #[buffer] key: &[u8],
    #[buffer] iv: &[u8],
    #[buffer] data: &[u8],
) -> Result<Vec<u8>, JsErrorBox> {
    let failed = |_| JsErrorBox::generic("cipher operation failed");
    let mut out = data.to_vec();
    if out.is_empty() {
        return Ok(out);
    }
    if encrypt {
        EncryptingKey::cbc(aes(key)?)
            .map_err(failed)?
            .less_safe_encrypt(&mut out, EncryptionContext::Iv128(iv16(iv)?))
            .map_err(failed)?;
    } else {
        DecryptingKey::cbc(aes(key)?)
            .map_err(failed)?
            .decrypt(&mut out, DecryptionContext::Iv128(iv16(iv)?))
            .map_err(failed)?;
    }
    Ok(out)
}

/// AES-CTR from `counter` (a whole 128-bit block, as OpenSSL counts), `offset` bytes into it.
#[op2]
#[buffer]
pub fn op_crypto_aes_ctr(
    #[buffer] key: &[u8],
    #[buffer] counter: &[u8],
    #[smi] offset: u32,
    #[buffer] data: &[u8],
) -> Result<Vec<u8>, JsErrorBox> {
    let failed = |_| JsErrorBox::generic("cipher operation failed");
    let skip = (offset as usize).min(15);
    let mut out = vec![0; skip];
    out.extend_from_slice(data);
    EncryptingKey::ctr(aes(key)?)
        .map_err(failed)?
        .less_safe_encrypt(&mut out, EncryptionContext::Iv128(iv16(counter)?))
        .map_err(failed)?;
    out.drain(..skip);
    Ok(out)
}

/// One AEAD message: sealing returns ciphertext and the 16-byte tag; opening takes the
/// ciphertext with the tag at its end and fails without telling why (Node's "Unsupported
/// state or unable to authenticate data").
#[op2]
#[buffer]
pub fn op_crypto_aead(
    #[string] alg: &str,
    encrypt: bool,
    #[buffer] key: &[u8],
    #[buffer] iv: &[u8],
    #[buffer] aad: &[u8],
    #[buffer] data: &[u8],
) -> Result<Vec<u8>, JsErrorBox> {
    let alg = match alg {
        "aes-128-gcm" => &aead::AES_128_GCM,
        "aes-192-gcm" => &aead::AES_192_GCM,
        "aes-256-gcm" => &aead::AES_256_GCM,
        "chacha20-poly1305" => &aead::CHACHA20_POLY1305,
        _ => return Err(JsErrorBox::generic("Unknown cipher")),
    };
    let key = LessSafeKey::new(
        UnboundKey::new(alg, key).map_err(|_| JsErrorBox::range_error("Invalid key length"))?,
    );
    let nonce = || {
        Nonce::try_assume_unique_for_key(iv)
            .map_err(|_| JsErrorBox::generic("Invalid initialization vector"))
    };
    let mut buf = data.to_vec();
    let fail = |_| JsErrorBox::generic("Unsupported state or unable to authenticate data");
    if encrypt {
        let tag = key
            .seal_in_place_separate_tag(nonce()?, Aad::from(aad), &mut buf)
            .map_err(fail)?;
        buf.extend_from_slice(tag.as_ref());
        Ok(buf)
    } else {
        let n = key
            .open_in_place(nonce()?, Aad::from(aad), &mut buf)
            .map_err(fail)?
            .len();
        buf.truncate(n);
        Ok(buf)
    }
}
