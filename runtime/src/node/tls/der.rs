//! The DER reader behind the peer certificate's description: just enough DER to read what Node
//! shows of a certificate (names, validity, extensions, key). Every read is bounds-checked; a
//! malformed certificate shows as absent rather than failing anything.

use std::fmt::Write as _;

pub(super) const OID_SAN: &[u8] = &[0x55, 0x1d, 0x11];
pub(super) const OID_BASIC_CONSTRAINTS: &[u8] = &[0x55, 0x1d, 0x13];
pub(super) const OID_EXT_KEY_USAGE: &[u8] = &[0x55, 0x1d, 0x25];
pub(super) const OID_INFO_ACCESS: &[u8] = &[0x2b, 0x06, 0x01, 0x05, 0x05, 0x07, 0x01, 0x01];
pub(super) const OID_RSA: &[u8] = &[0x2a, 0x86, 0x48, 0x86, 0xf7, 0x0d, 0x01, 0x01, 0x01];
pub(super) const OID_EC: &[u8] = &[0x2a, 0x86, 0x48, 0xce, 0x3d, 0x02, 0x01];

pub(super) struct Reader<'a>(&'a [u8]);

impl<'a> Reader<'a> {
    pub(super) fn new(data: &'a [u8]) -> Self {
        Reader(data)
    }
    pub(super) fn is_empty(&self) -> bool {
        self.0.is_empty()
    }
    /// The next element: (tag, contents, whole encoding).
    pub(super) fn next(&mut self) -> Option<(u8, &'a [u8], &'a [u8])> {
        let data = self.0;
        let tag = *data.first()?;
        if tag & 0x1f == 0x1f {
            return None; // multi-byte tags do not occur in what we read
        }
        let first = *data.get(1)? as usize;
        let (len, header) = if first < 0x80 {
            (first, 2)
        } else {
            let n = first & 0x7f;
            if n == 0 || n > 4 {
                return None;
            }
            let mut len = 0usize;
            for i in 0..n {
                len = (len << 8) | *data.get(2 + i)? as usize;
            }
            (len, 2 + n)
        };
        let end = header.checked_add(len)?;
        if end > data.len() {
            return None;
        }
        self.0 = &data[end..];
        Some((tag, &data[header..end], &data[..end]))
    }
    pub(super) fn expect(&mut self, tag: u8) -> Option<&'a [u8]> {
        self.expect_whole(tag).map(|(contents, _)| contents)
    }
    fn expect_whole(&mut self, tag: u8) -> Option<(&'a [u8], &'a [u8])> {
        let (t, contents, whole) = self.next()?;
        (t == tag).then_some((contents, whole))
    }
    /// The next element if it has `tag`.
    pub(super) fn optional(&mut self, tag: u8) -> Option<&'a [u8]> {
        if self.0.first() == Some(&tag) {
            self.expect(tag)
        } else {
            None
        }
    }
}

pub(super) struct Time {
    pub(super) unix: i64,
    parts: (i64, u32, u32, u32, u32, u32),
}

impl Time {
    /// `ASN1_TIME_print`: `Jan  1 00:00:00 2024 GMT`.
    pub(super) fn openssl(&self) -> String {
        const MONTHS: [&str; 12] = [
            "Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec",
        ];
        let (y, mo, d, h, mi, s) = self.parts;
        let month = MONTHS[(mo.clamp(1, 12) - 1) as usize];
        format!("{month} {d:2} {h:02}:{mi:02}:{s:02} {y} GMT")
    }
}

fn time(tag: u8, contents: &[u8]) -> Option<Time> {
    let text = std::str::from_utf8(contents).ok()?;
    let text = text.strip_suffix('Z')?;
    let (year, rest) = match tag {
        0x17 if text.len() == 12 => {
            let yy: i64 = text[..2].parse().ok()?;
            (if yy < 50 { 2000 + yy } else { 1900 + yy }, &text[2..])
        }
        0x18 if text.len() == 14 => (text[..4].parse().ok()?, &text[4..]),
        _ => return None,
    };
    let num = |i: usize| rest.get(i..i + 2)?.parse::<u32>().ok();
    let (mo, d, h, mi, s) = (num(0)?, num(2)?, num(4)?, num(6)?, num(8)?);
    // Days from the civil date (Howard Hinnant's algorithm).
    let (y, m) = if mo <= 2 {
        (year - 1, mo + 9)
    } else {
        (year, mo - 3)
    };
    let era = y.div_euclid(400);
    let yoe = y - era * 400;
    let doy = (153 * m as i64 + 2) / 5 + d as i64 - 1;
    let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    let days = era * 146097 + doe - 719468;
    Some(Time {
        unix: days * 86400 + h as i64 * 3600 + mi as i64 * 60 + s as i64,
        parts: (year, mo, d, h, mi, s),
    })
}

pub(super) struct Extension<'a> {
    pub(super) oid: &'a [u8],
    pub(super) value: &'a [u8],
}

pub(super) struct Cert<'a> {
    pub(super) serial: &'a [u8],
    /// The issuer and subject `Name`s, whole encodings.
    pub(super) issuer: &'a [u8],
    pub(super) subject: &'a [u8],
    pub(super) not_before: Time,
    pub(super) not_after: Time,
    pub(super) spki: &'a [u8],
    pub(super) extensions: Vec<Extension<'a>>,
}

pub(super) fn parse_cert(data: &[u8]) -> Option<Cert<'_>> {
    let cert = Reader::new(data).expect(0x30)?;
    let tbs = Reader::new(cert).expect(0x30)?;
    let mut t = Reader::new(tbs);
    t.optional(0xa0);
    let serial = t.expect(0x02)?;
    t.expect(0x30)?;
    let (_, issuer) = t.expect_whole(0x30)?;
    let mut validity = Reader::new(t.expect(0x30)?);
    let (tag, contents, _) = validity.next()?;
    let not_before = time(tag, contents)?;
    let (tag, contents, _) = validity.next()?;
    let not_after = time(tag, contents)?;
    let (_, subject) = t.expect_whole(0x30)?;
    let (_, spki) = t.expect_whole(0x30)?;
    t.optional(0x81);
    t.optional(0x82);
    let mut extensions = Vec::new();
    if let Some(exts) = t.optional(0xa3) {
        let mut list = Reader::new(Reader::new(exts).expect(0x30)?);
        while !list.is_empty() {
            let mut ext = Reader::new(list.expect(0x30)?);
            let oid = ext.expect(0x06)?;
            ext.optional(0x01);
            let value = ext.expect(0x04)?;
            extensions.push(Extension { oid, value });
        }
    }
    Some(Cert {
        serial,
        issuer,
        subject,
        not_before,
        not_after,
        spki,
        extensions,
    })
}

pub(super) fn oid_text(oid: &[u8]) -> String {
    let mut out = String::new();
    let mut value: u64 = 0;
    for (i, &b) in oid.iter().enumerate() {
        value = (value << 7) | u64::from(b & 0x7f);
        if b & 0x80 != 0 {
            continue;
        }
        if out.is_empty() && i < oid.len() {
            let (a, rest) = match value {
                0..=39 => (0, value),
                40..=79 => (1, value - 40),
                _ => (2, value - 80),
            };
            let _ = write!(out, "{a}.{rest}");
        } else {
            let _ = write!(out, ".{value}");
        }
        value = 0;
    }
    out
}

/// OpenSSL's short names for the attributes of names.
fn attribute_name(oid: &[u8]) -> String {
    let text = oid_text(oid);
    let short = match text.as_str() {
        "2.5.4.3" => "CN",
        "2.5.4.4" => "SN",
        "2.5.4.5" => "serialNumber",
        "2.5.4.6" => "C",
        "2.5.4.7" => "L",
        "2.5.4.8" => "ST",
        "2.5.4.9" => "street",
        "2.5.4.10" => "O",
        "2.5.4.11" => "OU",
        "2.5.4.12" => "title",
        "2.5.4.13" => "description",
        "2.5.4.15" => "businessCategory",
        "2.5.4.17" => "postalCode",
        "2.5.4.41" => "name",
        "2.5.4.42" => "GN",
        "2.5.4.43" => "initials",
        "2.5.4.44" => "generationQualifier",
        "2.5.4.46" => "dnQualifier",
        "2.5.4.65" => "pseudonym",
        "2.5.4.97" => "organizationIdentifier",
        "1.2.840.113549.1.9.1" => "emailAddress",
        "0.9.2342.19200300.100.1.25" => "DC",
        "0.9.2342.19200300.100.1.1" => "UID",
        "1.3.6.1.4.1.311.60.2.1.1" => "jurisdictionL",
        "1.3.6.1.4.1.311.60.2.1.2" => "jurisdictionST",
        "1.3.6.1.4.1.311.60.2.1.3" => "jurisdictionC",
        _ => return text,
    };
    short.into()
}

fn string_value(tag: u8, contents: &[u8]) -> String {
    match tag {
        // BMPString: UTF-16BE.
        0x1e => String::from_utf16_lossy(
            &contents
                .chunks_exact(2)
                .map(|c| u16::from_be_bytes([c[0], c[1]]))
                .collect::<Vec<_>>(),
        ),
        // UniversalString: UTF-32BE.
        0x1c => contents
            .chunks_exact(4)
            .filter_map(|c| char::from_u32(u32::from_be_bytes([c[0], c[1], c[2], c[3]])))
            .collect(),
        // TeletexString: read as Latin-1, as OpenSSL does.
        0x14 => contents.iter().map(|&b| b as char).collect(),
        _ => String::from_utf8_lossy(contents).into_owned(),
    }
}

/// A `Name`'s attributes in order, as `[shortName, value]`.
pub(super) fn name_entries(name: &[u8]) -> Vec<(String, String)> {
    let mut out = Vec::new();
    let Some(seq) = Reader::new(name).expect(0x30) else {
        return out;
    };
    let mut rdns = Reader::new(seq);
    while let Some(set) = rdns.expect(0x31) {
        let mut atvs = Reader::new(set);
        while let Some(atv) = atvs.expect(0x30) {
            let mut r = Reader::new(atv);
            if let (Some(oid), Some((tag, value, _))) = (r.expect(0x06), r.next()) {
                out.push((attribute_name(oid), string_value(tag, value)));
            }
        }
    }
    out
}

/// Node's escaping of names in `subjectaltname`: JSON-quoted when they hold a character
/// that would make the list ambiguous.
fn safe_name(prefix: &str, value: &str) -> String {
    let safe = value
        .chars()
        .all(|c| !matches!(c, '"' | '\\' | ',' | '\'') && (' '..='~').contains(&c));
    if safe {
        return format!("{prefix}:{value}");
    }
    let mut out = format!("{prefix}:\"");
    for c in value.chars() {
        match c {
            '"' | '\\' => {
                out.push('\\');
                out.push(c);
            }
            ' '..='~' => out.push(c),
            _ => {
                let mut units = [0u16; 2];
                for u in c.encode_utf16(&mut units) {
                    let _ = write!(out, "\\u{u:04x}");
                }
            }
        }
    }
    out.push('"');
    out
}

fn general_name(tag: u8, contents: &[u8]) -> String {
    let text = || String::from_utf8_lossy(contents).into_owned();
    match tag {
        0x82 => safe_name("DNS", &text()),
        0x81 => safe_name("email", &text()),
        0x86 => safe_name("URI", &text()),
        0x87 => match contents.len() {
            4 => format!(
                "IP Address:{}",
                std::net::Ipv4Addr::from([contents[0], contents[1], contents[2], contents[3]])
            ),
            16 => {
                let mut b = [0u8; 16];
                b.copy_from_slice(contents);
                format!("IP Address:{}", std::net::Ipv6Addr::from(b))
            }
            _ => "IP Address:<invalid>".into(),
        },
        0x88 => format!("Registered ID:{}", oid_text(contents)),
        0xa4 => {
            let entries = name_entries(contents);
            let text: String = entries.iter().map(|(k, v)| format!("/{k}={v}")).collect();
            format!("DirName:{text}")
        }
        0xa0 => "othername:<unsupported>".into(),
        0xa3 => "X400Name:<unsupported>".into(),
        _ => "EdiPartyName:<unsupported>".into(),
    }
}

pub(super) fn alt_names(value: &[u8]) -> Option<String> {
    let mut names = Reader::new(Reader::new(value).expect(0x30)?);
    let mut out = Vec::new();
    while let Some((tag, contents, _)) = names.next() {
        out.push(general_name(tag, contents));
    }
    Some(out.join(", "))
}

pub(super) fn is_ca(value: &[u8]) -> bool {
    Reader::new(value)
        .expect(0x30)
        .and_then(|seq| {
            Reader::new(seq)
                .optional(0x01)
                .map(|b| b.first() == Some(&0xff))
        })
        .unwrap_or(false)
}

pub(super) fn oid_list(value: &[u8]) -> Option<Vec<String>> {
    let mut list = Reader::new(Reader::new(value).expect(0x30)?);
    let mut out = Vec::new();
    while let Some(oid) = list.expect(0x06) {
        out.push(oid_text(oid));
    }
    Some(out)
}

pub(super) fn info_access(value: &[u8]) -> Option<Vec<(String, String)>> {
    let mut list = Reader::new(Reader::new(value).expect(0x30)?);
    let mut out = Vec::new();
    while let Some(desc) = list.expect(0x30) {
        let mut r = Reader::new(desc);
        let method = match oid_text(r.expect(0x06)?).as_str() {
            "1.3.6.1.5.5.7.48.1" => "OCSP".to_string(),
            "1.3.6.1.5.5.7.48.2" => "CA Issuers".to_string(),
            other => other.to_string(),
        };
        let (tag, contents, _) = r.next()?;
        let name = general_name(tag, contents);
        let (kind, rest) = name.split_once(':').unwrap_or((&name, ""));
        out.push((format!("{method} - {kind}"), rest.to_string()));
    }
    Some(out)
}
