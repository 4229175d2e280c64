//! Certificates as Node shows them: a peer's as `getPeerCertificate()` describes it (subject,
//! issuer, alt names, key, validity, fingerprints, ...), and the base64 that writes the
//! default roots as PEM text for `tls.rootCertificates`.

use std::fmt::Write as _;

use deno_core::ToJsBuffer;
use serde::Serialize;
use sha2::Digest;

use super::der;

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
pub(super) struct CertInfo {
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

pub(super) fn cert_info(der_bytes: &[u8]) -> Option<CertInfo> {
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
    public_key(c.spki, &mut info);
    Some(info)
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
fn public_key(spki: &[u8], info: &mut CertInfo) {
    let parse = || {
        let mut r = der::Reader::new(der::Reader::new(spki).expect(0x30)?);
        let mut alg = der::Reader::new(r.expect(0x30)?);
        let oid = alg.expect(0x06)?;
        let params = alg.optional(0x06);
        let key = r.expect(0x03)?.get(1..)?;
        Some((oid, params, key))
    };
    let Some((oid, params, key)) = parse() else {
        return;
    };
    if oid == der::OID_RSA {
        let Some(seq) = der::Reader::new(key).expect(0x30) else {
            return;
        };
        let mut r = der::Reader::new(seq);
        if let (Some(n), Some(e)) = (r.expect(0x02), r.expect(0x02)) {
            info.modulus = Some(bn_hex(n));
            info.bits = Some(bit_length(n));
            let e = e.iter().fold(0u64, |acc, &b| (acc << 8) | u64::from(b));
            info.exponent = Some(format!("0x{e:x}"));
            info.pubkey = Some(spki.to_vec().into());
        }
    } else if oid == der::OID_EC {
        let curve = match params.map(der::oid_text).as_deref() {
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

pub(super) fn base64(data: &[u8]) -> String {
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
