//! Ops behind `node:crypto` (see js/node/crypto.js): hashes and HMACs here; keys and
//! signatures in keys.rs, ciphers in cipher.rs, key derivation in kdf.rs. A `Hash`/`Hmac` object
//! holds the id of a resource with the running digest state, so `update` streams data through
//! Rust instead of buffering it in JS. Randomness uses `op_crypto_fill_random` (node/mod.rs).

mod cipher;
mod kdf;
mod keys;

use std::borrow::Cow;
use std::cell::RefCell;

use deno_core::{op2, OpState, Resource, ResourceId};
use deno_error::JsErrorBox;
use hmac::{Hmac, Mac};
use sha2::digest::{FixedOutput, Update};

/// One running digest (plain or keyed), type-erased.
trait Hasher {
    fn feed(&mut self, data: &[u8]);
    fn finish(self: Box<Self>) -> Vec<u8>;
    fn fork(&self) -> Box<dyn Hasher>;
}

impl<T: Update + FixedOutput + Clone + 'static> Hasher for T {
    fn feed(&mut self, data: &[u8]) {
        Update::update(self, data)
    }
    fn finish(self: Box<Self>) -> Vec<u8> {
        (*self).finalize_fixed().to_vec()
    }
    fn fork(&self) -> Box<dyn Hasher> {
        Box::new(self.clone())
    }
}

/// Node (OpenSSL) names are case-insensitive and have aliases (`SHA-256`, `RSA-SHA256`, …).
fn canonical(alg: &str) -> Option<&'static str> {
    let lower = alg.to_ascii_lowercase();
    let name = lower.strip_prefix("rsa-").unwrap_or(&lower);
    Some(match name {
        "md5" => "md5",
        "sha1" | "sha-1" => "sha1",
        "sha224" | "sha-224" | "sha2-224" => "sha224",
        "sha256" | "sha-256" | "sha2-256" => "sha256",
        "sha384" | "sha-384" | "sha2-384" => "sha384",
        "sha512" | "sha-512" | "sha2-512" => "sha512",
        "sha512-224" | "sha512/224" | "sha-512/224" | "sha2-512/224" => "sha512-224",
        "sha512-256" | "sha512/256" | "sha-512/256" | "sha2-512/256" => "sha512-256",
        _ => return None,
    })
}

macro_rules! hashers {
    ($alg:expr, $key:expr; $($name:literal => $ty:ty),* $(,)?) => {
        match $alg {
            $($name => match $key {
                None => Box::new(<$ty>::default()) as Box<dyn Hasher>,
                Some(k) => Box::new(<Hmac<$ty> as Mac>::new_from_slice(k).expect("HMAC takes keys of any length")),
            },)*
            _ => unreachable!("canonical() only returns listed names"),
        }
    };
}

/// `key: Some(..)` makes an HMAC. Errors carry Node's texts for createHash / createHmac.
fn new_hasher(alg: &str, key: Option<&[u8]>) -> Result<Box<dyn Hasher>, JsErrorBox> {
    let Some(name) = canonical(alg) else {
        return Err(match key {
            Some(_) => JsErrorBox::type_error(format!("Invalid digest: {alg}")),
            None => JsErrorBox::generic("Digest method not supported"),
        });
    };
    Ok(hashers!(name, key;
        "md5" => md5::Md5,
        "sha1" => sha1::Sha1,
        "sha224" => sha2::Sha224,
        "sha256" => sha2::Sha256,
        "sha384" => sha2::Sha384,
        "sha512" => sha2::Sha512,
        "sha512-224" => sha2::Sha512_224,
        "sha512-256" => sha2::Sha512_256,
    ))
}

/// `None` once digested (JS reports that as ERR_CRYPTO_HASH_FINALIZED before calling in).
struct HashState(RefCell<Option<Box<dyn Hasher>>>);

impl Resource for HashState {
    fn name(&self) -> Cow<'_, str> {
        "cryptoHash".into()
    }
}

fn state(state: &OpState, rid: ResourceId) -> Result<std::rc::Rc<HashState>, JsErrorBox> {
    state
        .resource_table
        .get::<HashState>(rid)
        .map_err(JsErrorBox::from_err)
}

const FINALIZED: &str = "Digest already called";

#[op2(fast)]
#[smi]
fn op_crypto_hash_new(
    op_state: &mut OpState,
    #[string] alg: &str,
    hmac: bool,
    #[buffer] key: &[u8],
) -> Result<ResourceId, JsErrorBox> {
    let hasher = new_hasher(alg, hmac.then_some(key))?;
    Ok(op_state
        .resource_table
        .add(HashState(RefCell::new(Some(hasher)))))
}

#[op2(fast)]
fn op_crypto_hash_update(
    op_state: &mut OpState,
    #[smi] rid: ResourceId,
    #[buffer] data: &[u8],
) -> Result<(), JsErrorBox> {
    let hash = state(op_state, rid)?;
    let mut slot = hash.0.borrow_mut();
    slot.as_mut()
        .ok_or_else(|| JsErrorBox::generic(FINALIZED))?
        .feed(data);
    Ok(())
}

/// Finishes the digest and frees the resource.
#[op2]
#[buffer]
fn op_crypto_hash_digest(
    op_state: &mut OpState,
    #[smi] rid: ResourceId,
) -> Result<Vec<u8>, JsErrorBox> {
    let hash = op_state
        .resource_table
        .take::<HashState>(rid)
        .map_err(JsErrorBox::from_err)?;
    let hasher = hash
        .0
        .borrow_mut()
        .take()
        .ok_or_else(|| JsErrorBox::generic(FINALIZED))?;
    Ok(hasher.finish())
}

/// `hash.copy()`: a new resource with the same running state.
#[op2(fast)]
#[smi]
fn op_crypto_hash_copy(
    op_state: &mut OpState,
    #[smi] rid: ResourceId,
) -> Result<ResourceId, JsErrorBox> {
    let fork = state(op_state, rid)?
        .0
        .borrow()
        .as_ref()
        .ok_or_else(|| JsErrorBox::generic(FINALIZED))?
        .fork();
    Ok(op_state
        .resource_table
        .add(HashState(RefCell::new(Some(fork)))))
}

/// One-shot digest for `crypto.hash()` and `subtle.digest()`.
#[op2]
#[buffer]
fn op_crypto_digest(#[string] alg: &str, #[buffer] data: &[u8]) -> Result<Vec<u8>, JsErrorBox> {
    let mut hasher = new_hasher(alg, None)?;
    hasher.feed(data);
    Ok(hasher.finish())
}

deno_core::extension!(
    paseo_crypto,
    ops = [
        op_crypto_hash_new,
        op_crypto_hash_update,
        op_crypto_hash_digest,
        op_crypto_hash_copy,
        op_crypto_digest,
        keys::op_crypto_key_public_of,
        keys::op_crypto_sign,
        keys::op_crypto_verify,
        keys::op_crypto_generate_key_pair,
        keys::op_crypto_generate_key_pair_async,
        keys::op_crypto_rsa_cipher,
        cipher::op_crypto_aes_cbc,
        cipher::op_crypto_aes_ctr,
        cipher::op_crypto_aead,
        kdf::op_crypto_pbkdf2,
        kdf::op_crypto_pbkdf2_async,
        kdf::op_crypto_hkdf,
        kdf::op_crypto_scrypt,
        kdf::op_crypto_scrypt_async,
    ],
);

#[cfg(test)]
mod tests {
    use super::*;

    fn hex(bytes: Vec<u8>) -> String {
        bytes.iter().map(|b| format!("{b:02x}")).collect()
    }

    #[test]
    fn digests_and_hmac_match_known_vectors() {
        let mut h = new_hasher("SHA-256", None).unwrap();
        h.feed(b"ab");
        h.feed(b"c");
        assert_eq!(
            hex(h.finish()),
            "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"
        );
        // RFC 4231 test case 2.
        let mut m = new_hasher("sha256", Some(b"Jefe")).unwrap();
        m.feed(b"what do ya want for nothing?");
        assert_eq!(
            hex(m.finish()),
            "5bdcc146bf60754e6a042426089575c75a003f089d2739839dec58b964ec3843"
        );
        assert_eq!(
            new_hasher("nope", None).err().unwrap().to_string(),
            "Digest method not supported"
        );
        assert_eq!(
            new_hasher("nope", Some(b"")).err().unwrap().to_string(),
            "Invalid digest: nope"
        );
    }
}
