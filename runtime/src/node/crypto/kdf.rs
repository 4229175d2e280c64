//! Key derivation behind `node:crypto` and `subtle.deriveBits`: PBKDF2, HKDF and scrypt. The
//! async forms run on tokio's blocking pool so a plugin's event loop goes on meanwhile.

use deno_core::{op2, OpState};
use deno_error::JsErrorBox;
use hmac::{Hmac, Mac};
use std::cell::RefCell;
use std::rc::Rc;

fn unknown(hash: &str) -> JsErrorBox {
    JsErrorBox::type_error(format!("Invalid digest: {hash}"))
}

macro_rules! with_digest {
    ($hash:expr, $d:ident => $body:expr) => {
        match super::canonical($hash) {
            Some("md5") => {
                type $d = md5::Md5;
                $body
            }
            Some("sha1") => {
                type $d = sha1::Sha1;
                $body
            }
            Some("sha224") => {
                type $d = sha2::Sha224;
                $body
            }
            Some("sha256") => {
                type $d = sha2::Sha256;
                $body
            }
            Some("sha384") => {
                type $d = sha2::Sha384;
                $body
            }
            Some("sha512") => {
                type $d = sha2::Sha512;
                $body
            }
            Some("sha512-224") => {
                type $d = sha2::Sha512_224;
                $body
            }
            Some("sha512-256") => {
                type $d = sha2::Sha512_256;
                $body
            }
            _ => return Err(unknown($hash)),
        }
    };
}

pub fn pbkdf2(
    hash: &str,
    password: &[u8],
    salt: &[u8],
    iterations: u32,
    len: usize,
) -> Result<Vec<u8>, JsErrorBox> {
    let mut out = vec![0; len];
    with_digest!(hash, D => pbkdf2::pbkdf2_hmac::<D>(password, salt, iterations, &mut out));
    Ok(out)
}

/// RFC 5869; JS has checked `len <= 255 * digest size`.
pub fn hkdf(
    hash: &str,
    ikm: &[u8],
    salt: &[u8],
    info: &[u8],
    len: usize,
) -> Result<Vec<u8>, JsErrorBox> {
    let mut out = Vec::with_capacity(len);
    with_digest!(hash, D => {
        let mac = |key: &[u8]| <Hmac<D> as Mac>::new_from_slice(key).expect("HMAC takes keys of any length");
        let mut extract = mac(salt);
        extract.update(ikm);
        let prk = extract.finalize().into_bytes();
        let mut block: Vec<u8> = Vec::new();
        let mut counter = 1u8;
        while out.len() < len {
            let mut m = mac(&prk);
            m.update(&block);
            m.update(info);
            m.update(&[counter]);
            block = m.finalize().into_bytes().to_vec();
            out.extend_from_slice(&block);
            counter = counter.wrapping_add(1);
        }
    });
    out.truncate(len);
    Ok(out)
}

pub fn scrypt(
    password: &[u8],
    salt: &[u8],
    n: u64,
    r: u32,
    p: u32,
    len: usize,
) -> Result<Vec<u8>, JsErrorBox> {
    let invalid = || JsErrorBox::range_error("Invalid scrypt params");
    if n < 2 || !n.is_power_of_two() {
        return Err(invalid());
    }
    let params =
        scrypt::Params::new(n.trailing_zeros() as u8, r, p, len.max(10)).map_err(|_| invalid())?;
    let mut out = vec![0; len];
    scrypt::scrypt(password, salt, &params, &mut out).map_err(|_| invalid())?;
    Ok(out)
}

/// A derivation's working memory and its result live outside the plugin's heap: each may take at
/// most the plugin's heap cap, so a plugin cannot make the host allocate past what it may hold
/// (Node's own `maxmem` for scrypt is the plugin's to raise).
fn within_cap(
    state: &OpState,
    bytes: u128,
    what: impl FnOnce() -> String,
) -> Result<(), JsErrorBox> {
    let cap = state.borrow::<crate::engine::ActorState>().heap_bytes;
    if bytes <= cap as u128 {
        return Ok(());
    }
    let id = &state
        .borrow::<std::sync::Arc<crate::engine::PluginShared>>()
        .id;
    Err(JsErrorBox::range_error(format!(
        "{} needs {bytes} bytes, more than the heap cap of plugin {id} ({} MiB)",
        what(),
        cap / (1024 * 1024)
    )))
}

fn check_output(state: &OpState, len: usize, what: &str) -> Result<(), JsErrorBox> {
    within_cap(state, len as u128, || format!("The {what} key"))
}

fn check_scrypt(state: &OpState, n: u64, r: u32, p: u32, len: usize) -> Result<(), JsErrorBox> {
    check_output(state, len, "scrypt")?;
    // scrypt's V array (128·N·r bytes) and its B blocks (128·r·p bytes).
    let memory = 128 * n as u128 * r as u128 + 128 * r as u128 * p as u128;
    within_cap(state, memory, || {
        "Invalid scrypt params: scrypt".to_string()
    })
}

async fn blocking<T: Send + 'static>(
    work: impl FnOnce() -> Result<T, JsErrorBox> + Send + 'static,
) -> Result<T, JsErrorBox> {
    tokio::task::spawn_blocking(work)
        .await
        .map_err(|e| JsErrorBox::generic(e.to_string()))?
}

#[op2]
#[buffer]
pub fn op_crypto_pbkdf2(
    state: &mut OpState,
    #[string] hash: &str,
    #[buffer] password: &[u8],
    #[buffer] salt: &[u8],
    iterations: u32,
    #[number] len: usize,
) -> Result<Vec<u8>, JsErrorBox> {
    check_output(state, len, "pbkdf2")?;
    pbkdf2(hash, password, salt, iterations, len)
}

#[op2]
#[buffer]
pub async fn op_crypto_pbkdf2_async(
    state: Rc<RefCell<OpState>>,
    #[string] hash: String,
    #[buffer(copy)] password: Vec<u8>,
    #[buffer(copy)] salt: Vec<u8>,
    iterations: u32,
    #[number] len: usize,
) -> Result<Vec<u8>, JsErrorBox> {
    check_output(&state.borrow(), len, "pbkdf2")?;
    blocking(move || pbkdf2(&hash, &password, &salt, iterations, len)).await
}

#[op2]
#[buffer]
pub fn op_crypto_hkdf(
    state: &mut OpState,
    #[string] hash: &str,
    #[buffer] ikm: &[u8],
    #[buffer] salt: &[u8],
    #[buffer] info: &[u8],
    #[number] len: usize,
) -> Result<Vec<u8>, JsErrorBox> {
    check_output(state, len, "hkdf")?;
    hkdf(hash, ikm, salt, info, len)
}

#[op2]
#[buffer]
pub fn op_crypto_scrypt(
    state: &mut OpState,
    #[buffer] password: &[u8],
    #[buffer] salt: &[u8],
    #[number] n: u64,
    r: u32,
    p: u32,
    #[number] len: usize,
) -> Result<Vec<u8>, JsErrorBox> {
    check_scrypt(state, n, r, p, len)?;
    scrypt(password, salt, n, r, p, len)
}

#[op2]
#[buffer]
pub async fn op_crypto_scrypt_async(
    state: Rc<RefCell<OpState>>,
    #[buffer(copy)] password: Vec<u8>,
    #[buffer(copy)] salt: Vec<u8>,
    #[number] n: u64,
    r: u32,
    p: u32,
    #[number] len: usize,
) -> Result<Vec<u8>, JsErrorBox> {
    check_scrypt(&state.borrow(), n, r, p, len)?;
    blocking(move || scrypt(&password, &salt, n, r, p, len)).await
}
