//! `node:zlib` on `flate2` (zlib-rs): gzip, zlib deflate and raw deflate, each way, and `unzip`
//! (gzip or zlib, told by the header). A codec is a writer whose output JS takes after every
//! chunk, so the stream forms really stream; the one-shot forms are a codec fed once. Output is
//! bounded while it grows (`maxOutputLength`, and the room in the plugin's heap), so a small
//! bomb cannot make a large buffer. Errors are Node's (`Z_DATA_ERROR`, `Z_BUF_ERROR`,
//! `ERR_BUFFER_TOO_LARGE`).

use std::collections::HashMap;
use std::io::Write;

use deno_core::{op2, v8, OpState};
use deno_error::JsErrorBox;
use flate2::write::{
    DeflateDecoder, DeflateEncoder, GzDecoder, GzEncoder, ZlibDecoder, ZlibEncoder,
};
use flate2::Compression;

use crate::engine::budget;

/// One direction of one format, writing into a `Vec` that JS drains.
enum Codec {
    Gzip(GzEncoder<Vec<u8>>),
    Gunzip(GzDecoder<Vec<u8>>),
    Deflate(ZlibEncoder<Vec<u8>>),
    Inflate(ZlibDecoder<Vec<u8>>),
    DeflateRaw(DeflateEncoder<Vec<u8>>),
    InflateRaw(DeflateDecoder<Vec<u8>>),
    /// `unzip` before its first two bytes say gzip or zlib.
    Unzip(Vec<u8>),
    /// Brotli compression: the input, compressed at the end (the encoder has no drainable
    /// writer), at `quality`.
    BrotliCompress {
        input: Vec<u8>,
        quality: i32,
    },
    /// Brotli decompression, streaming; `done` once the stream's last block was read.
    BrotliDecompress {
        state: Box<BrotliDecoder>,
        done: bool,
    },
}

type BrotliDecoder = brotli::BrotliState<
    brotli::HeapAlloc<u8>,
    brotli::HeapAlloc<u32>,
    brotli::HeapAlloc<brotli::HuffmanCode>,
>;

macro_rules! each {
    ($codec:expr, $w:ident => $body:expr) => {
        match $codec {
            Codec::Gzip($w) => $body,
            Codec::Gunzip($w) => $body,
            Codec::Deflate($w) => $body,
            Codec::Inflate($w) => $body,
            Codec::DeflateRaw($w) => $body,
            Codec::InflateRaw($w) => $body,
            Codec::Unzip(_) | Codec::BrotliCompress { .. } | Codec::BrotliDecompress { .. } => {
                unreachable!("unzip picks its format first; brotli has its own path")
            }
        }
    };
}

impl Codec {
    fn new(kind: u32, level: i32) -> Option<Codec> {
        match kind {
            7 => {
                return (0..=11).contains(&level).then(|| Codec::BrotliCompress {
                    input: Vec::new(),
                    quality: level,
                })
            }
            8 => {
                let state = brotli::BrotliState::new(
                    brotli::HeapAlloc::new(0),
                    brotli::HeapAlloc::new(0),
                    brotli::HeapAlloc::new(brotli::HuffmanCode::default()),
                );
                return Some(Codec::BrotliDecompress {
                    state: Box::new(state),
                    done: false,
                });
            }
            _ => {}
        }
        let level = match level {
            -1 => Compression::default(),
            0..=9 => Compression::new(level as u32),
            _ => return None,
        };
        Some(match kind {
            0 => Codec::Gzip(GzEncoder::new(Vec::new(), level)),
            1 => Codec::Gunzip(GzDecoder::new(Vec::new())),
            2 => Codec::Deflate(ZlibEncoder::new(Vec::new(), level)),
            3 => Codec::Inflate(ZlibDecoder::new(Vec::new())),
            4 => Codec::DeflateRaw(DeflateEncoder::new(Vec::new(), level)),
            5 => Codec::InflateRaw(DeflateDecoder::new(Vec::new())),
            6 => Codec::Unzip(Vec::new()),
            _ => return None,
        })
    }

    fn decodes(&self) -> bool {
        matches!(
            self,
            Codec::Gunzip(_) | Codec::Inflate(_) | Codec::InflateRaw(_) | Codec::Unzip(_)
        )
    }

    /// For `unzip`: once two bytes are in, becomes the gzip or zlib decoder they name.
    fn pick(&mut self, input: &[u8]) -> Result<Vec<u8>, std::io::Error> {
        let Codec::Unzip(head) = self else {
            return Ok(input.to_vec());
        };
        head.extend_from_slice(input);
        if head.len() < 2 {
            return Ok(Vec::new());
        }
        let head = std::mem::take(head);
        *self = if head[0] == 0x1f && head[1] == 0x8b {
            Codec::Gunzip(GzDecoder::new(Vec::new()))
        } else {
            Codec::Inflate(ZlibDecoder::new(Vec::new()))
        };
        Ok(head)
    }

    fn output(&mut self) -> &mut Vec<u8> {
        each!(self, w => w.get_mut())
    }
}

#[derive(Default)]
struct Codecs {
    next: u32,
    open: HashMap<u32, (Codec, Header)>,
}

/// The first bytes a decoder has seen, until its header is known good: zlib rejects a bad
/// header at once, where flate2 would wait for more input or call the stream corrupt.
#[derive(Default)]
struct Header {
    seen: Vec<u8>,
    checked: bool,
}

impl Header {
    /// Checks the header once enough of it is in (gzip: magic and method; zlib: the check bits,
    /// method and window), with zlib's messages. `Ok(false)`: not enough bytes yet.
    fn check(&mut self, codec: &Codec, input: &[u8]) -> Result<bool, JsErrorBox> {
        if self.checked || !matches!(codec, Codec::Gunzip(_) | Codec::Inflate(_)) {
            return Ok(true);
        }
        self.seen
            .extend(input.iter().take(3usize.saturating_sub(self.seen.len())));
        let h = &self.seen;
        let bad = |m: &str| Err(data_error_text(m));
        match codec {
            Codec::Gunzip(_) => {
                if h.len() >= 2 && (h[0] != 0x1f || h[1] != 0x8b) {
                    return bad("incorrect header check");
                }
                if h.len() >= 3 && h[2] != 8 {
                    return bad("unknown compression method");
                }
                self.checked = h.len() >= 3;
            }
            _ => {
                if h.len() >= 2 {
                    let (cmf, flg) = (u32::from(h[0]), u32::from(h[1]));
                    if (cmf * 256 + flg) % 31 != 0 {
                        return bad("incorrect header check");
                    }
                    if cmf & 0x0f != 8 {
                        return bad("unknown compression method");
                    }
                    if (cmf >> 4) + 8 > 15 {
                        return bad("invalid window size");
                    }
                    self.checked = true;
                }
            }
        }
        Ok(self.checked)
    }
}

#[derive(Debug, thiserror::Error)]
#[error("{message}")]
struct ZlibError {
    class: &'static str,
    message: String,
    code: &'static str,
    errno: Option<i32>,
}

impl deno_error::JsErrorClass for ZlibError {
    fn get_class(&self) -> std::borrow::Cow<'static, str> {
        self.class.into()
    }
    fn get_message(&self) -> std::borrow::Cow<'static, str> {
        self.message.clone().into()
    }
    fn get_additional_properties(&self) -> deno_error::AdditionalProperties {
        use deno_error::PropertyValue;
        let mut properties = Vec::new();
        if let Some(errno) = self.errno {
            properties.push(("errno".into(), PropertyValue::Number(errno.into())));
        }
        properties.push(("code".into(), PropertyValue::String(self.code.into())));
        Box::new(properties.into_iter())
    }
    fn get_ref(&self) -> &(dyn std::error::Error + Send + Sync + 'static) {
        self
    }
}

/// A decoder's failure. Headers are checked first (`Header`) with zlib's messages; past them,
/// flate2 words a corrupt stream its own way.
fn data_error(e: std::io::Error) -> JsErrorBox {
    let text = e.to_string();
    let message = if text.contains("header") || text.contains("invalid gzip") {
        "incorrect header check".to_string()
    } else {
        text
    };
    data_error_text(&message)
}

fn data_error_text(message: &str) -> JsErrorBox {
    JsErrorBox::from_err(ZlibError {
        class: "Error",
        message: message.into(),
        code: "Z_DATA_ERROR",
        errno: Some(-3),
    })
}

fn truncated() -> JsErrorBox {
    JsErrorBox::from_err(ZlibError {
        class: "Error",
        message: "unexpected end of file".into(),
        code: "Z_BUF_ERROR",
        errno: Some(-5),
    })
}

fn too_large(limit: usize) -> JsErrorBox {
    JsErrorBox::from_err(ZlibError {
        class: "RangeError",
        message: format!("Cannot create a Buffer larger than {limit} bytes"),
        code: "ERR_BUFFER_TOO_LARGE",
        errno: None,
    })
}

fn not_open() -> JsErrorBox {
    JsErrorBox::from_err(ZlibError {
        class: "Error",
        message: "zlib binding closed".into(),
        code: "ERR_ZLIB_BINDING_CLOSED",
        errno: None,
    })
}

/// A codec: `kind` 0 gzip, 1 gunzip, 2 deflate, 3 inflate, 4 deflateRaw, 5 inflateRaw, 6 unzip.
#[op2(fast)]
#[smi]
fn op_zlib_new(
    state: &mut OpState,
    #[smi] kind: u32,
    #[smi] level: i32,
) -> Result<u32, JsErrorBox> {
    let codec = Codec::new(kind, level).ok_or_else(|| {
        JsErrorBox::from_err(ZlibError {
            class: "RangeError",
            message: format!(
                "The value of \"options.level\" is out of range. It must be >= -1 and <= 9. Received {level}"
            ),
            code: "ERR_OUT_OF_RANGE",
            errno: None,
        })
    })?;
    let codecs = state.borrow_mut::<Codecs>();
    codecs.next += 1;
    codecs.open.insert(codecs.next, (codec, Header::default()));
    Ok(codecs.next)
}

/// Feeds `input` (all of it, or with `finish` also ends the stream) and returns the output so
/// far, failing once it passes `max_output` bytes or the plugin's heap room.
#[op2]
#[buffer]
fn op_zlib_write(
    scope: &mut v8::PinScope,
    state: &mut OpState,
    #[smi] id: u32,
    #[buffer] input: &[u8],
    finish: bool,
    sync_flush: bool,
    max_output: f64,
) -> Result<Vec<u8>, JsErrorBox> {
    let room = budget::heap_room(scope, state).bytes;
    let limit = (max_output as usize).min(room);
    let codecs = state.borrow_mut::<Codecs>();
    let (mut codec, mut header) = codecs.open.remove(&id).ok_or_else(not_open)?;
    if matches!(
        codec,
        Codec::BrotliCompress { .. } | Codec::BrotliDecompress { .. }
    ) {
        let out = brotli_step(&mut codec, input, finish, limit);
        if out.is_ok() && !finish {
            state
                .borrow_mut::<Codecs>()
                .open
                .insert(id, (codec, header));
        }
        return out;
    }
    let decodes = codec.decodes();
    let result = (move || {
        let input = codec.pick(input).map_err(data_error)?;
        let mut out = Vec::new();
        if matches!(codec, Codec::Unzip(_)) {
            if finish {
                return Err(truncated());
            }
            return Ok((out, Some((codec, header))));
        }
        if !header.check(&codec, &input)? && finish {
            return Err(truncated());
        }
        // In slices, so that output is measured while it grows.
        for piece in input.chunks(16 * 1024) {
            each!(&mut codec, w => w.write_all(piece)).map_err(|e| {
                if decodes {
                    data_error(e)
                } else {
                    JsErrorBox::generic(e.to_string())
                }
            })?;
            out.append(codec.output());
            if out.len() > limit {
                return Err(too_large(limit));
            }
        }
        // Z_SYNC_FLUSH / Z_FULL_FLUSH (`flush()`, minizlib's writes): everything written so far
        // comes out now, on a byte boundary; the stream goes on.
        if sync_flush && !finish {
            each!(&mut codec, w => w.flush()).map_err(|e| JsErrorBox::generic(e.to_string()))?;
            out.append(codec.output());
            if out.len() > limit {
                return Err(too_large(limit));
            }
        }
        if finish {
            let rest = match codec {
                Codec::Gzip(w) => w.finish(),
                Codec::Deflate(w) => w.finish(),
                Codec::DeflateRaw(w) => w.finish(),
                Codec::Gunzip(w) => w.finish(),
                Codec::Inflate(w) => w.finish(),
                Codec::InflateRaw(w) => w.finish(),
                Codec::Unzip(_) | Codec::BrotliCompress { .. } | Codec::BrotliDecompress { .. } => {
                    unreachable!("handled before")
                }
            };
            let rest = rest.map_err(|e| {
                if e.kind() == std::io::ErrorKind::UnexpectedEof || e.to_string().contains("EOF") {
                    truncated()
                } else {
                    data_error(e)
                }
            })?;
            out.extend_from_slice(&rest);
            if out.len() > limit {
                return Err(too_large(limit));
            }
            return Ok((out, None));
        }
        Ok((out, Some((codec, header))))
    })();
    match result {
        Ok((out, Some(kept))) => {
            state.borrow_mut::<Codecs>().open.insert(id, kept);
            Ok(out)
        }
        Ok((out, None)) => Ok(out),
        Err(e) => Err(e),
    }
}

/// One brotli step: compression keeps the input until `finish`; decompression streams, with
/// the decoder's own error (Node's `ERR__ERROR_FORMAT_…` codes, errno the decoder's number).
fn brotli_step(
    codec: &mut Codec,
    input: &[u8],
    finish: bool,
    limit: usize,
) -> Result<Vec<u8>, JsErrorBox> {
    match codec {
        Codec::BrotliCompress {
            input: kept,
            quality,
        } => {
            kept.extend_from_slice(input);
            if !finish {
                return Ok(Vec::new());
            }
            let params = brotli::enc::BrotliEncoderParams {
                quality: *quality,
                ..Default::default()
            };
            let mut out = Vec::new();
            brotli::BrotliCompress(&mut &kept[..], &mut out, &params)
                .map_err(|e| JsErrorBox::generic(e.to_string()))?;
            if out.len() > limit {
                return Err(too_large(limit));
            }
            Ok(out)
        }
        Codec::BrotliDecompress { state, done } => {
            let mut out = Vec::new();
            let mut buffer = vec![0u8; 64 * 1024];
            let (mut available_in, mut input_offset) = (input.len(), 0usize);
            while !*done {
                let (mut available_out, mut output_offset, mut total) =
                    (buffer.len(), 0usize, 0usize);
                let result = brotli::BrotliDecompressStream(
                    &mut available_in,
                    &mut input_offset,
                    input,
                    &mut available_out,
                    &mut output_offset,
                    &mut buffer,
                    &mut total,
                    state,
                );
                out.extend_from_slice(&buffer[..output_offset]);
                if out.len() > limit {
                    return Err(too_large(limit));
                }
                match result {
                    brotli::BrotliResult::NeedsMoreOutput => continue,
                    brotli::BrotliResult::NeedsMoreInput => break,
                    brotli::BrotliResult::ResultSuccess => *done = true,
                    brotli::BrotliResult::ResultFailure => {
                        return Err(brotli_error(state.error_code as i32))
                    }
                }
            }
            if finish && !*done {
                return Err(truncated());
            }
            Ok(out)
        }
        _ => unreachable!("only brotli codecs come here"),
    }
}

/// The brotli decoder's error as Node reports it: `ERR_` and the C enum's name without its
/// `BROTLI_DECODER` prefix, errno its value.
fn brotli_error(errno: i32) -> JsErrorBox {
    let name = match errno {
        -1 => "_ERROR_FORMAT_EXUBERANT_NIBBLE",
        -2 => "_ERROR_FORMAT_RESERVED",
        -3 => "_ERROR_FORMAT_EXUBERANT_META_NIBBLE",
        -4 => "_ERROR_FORMAT_SIMPLE_HUFFMAN_ALPHABET",
        -5 => "_ERROR_FORMAT_SIMPLE_HUFFMAN_SAME",
        -6 => "_ERROR_FORMAT_CL_SPACE",
        -7 => "_ERROR_FORMAT_HUFFMAN_SPACE",
        -8 => "_ERROR_FORMAT_CONTEXT_MAP_REPEAT",
        -9 => "_ERROR_FORMAT_BLOCK_LENGTH_1",
        -10 => "_ERROR_FORMAT_BLOCK_LENGTH_2",
        -11 => "_ERROR_FORMAT_TRANSFORM",
        -12 => "_ERROR_FORMAT_DICTIONARY",
        -13 => "_ERROR_FORMAT_WINDOW_BITS",
        -14 => "_ERROR_FORMAT_PADDING_1",
        -15 => "_ERROR_FORMAT_PADDING_2",
        -16 => "_ERROR_FORMAT_DISTANCE",
        -19 => "_ERROR_DICTIONARY_NOT_SET",
        -20 => "_ERROR_INVALID_ARGUMENTS",
        _ => "_ERROR_UNREACHABLE",
    };
    JsErrorBox::from_err(ZlibError {
        class: "Error",
        message: "Decompression failed".into(),
        code: Box::leak(format!("ERR_{name}").into_boxed_str()),
        errno: Some(errno),
    })
}

/// Drops a codec (a destroyed stream).
#[op2(fast)]
fn op_zlib_close(state: &mut OpState, #[smi] id: u32) {
    state.borrow_mut::<Codecs>().open.remove(&id);
}

/// `zlib.crc32(data, value)`.
#[op2(fast)]
fn op_zlib_crc32(#[buffer] data: &[u8], value: u32) -> u32 {
    let mut crc = crc32_from(value);
    crc.update_slice(data);
    crc.finish()
}

/// A running CRC-32 (IEEE), which, unlike `flate2::Crc`, can go on from a previous value.
struct Crc32(u32);

fn crc32_from(value: u32) -> Crc32 {
    Crc32(!value)
}

impl Crc32 {
    fn update_slice(&mut self, data: &[u8]) {
        for &b in data {
            let mut c = (self.0 ^ u32::from(b)) & 0xff;
            for _ in 0..8 {
                c = if c & 1 != 0 {
                    0xEDB8_8320 ^ (c >> 1)
                } else {
                    c >> 1
                };
            }
            self.0 = c ^ (self.0 >> 8);
        }
    }
    fn finish(&self) -> u32 {
        !self.0
    }
}

deno_core::extension!(
    paseo_zlib,
    ops = [op_zlib_new, op_zlib_write, op_zlib_close, op_zlib_crc32],
    state = |state| {
        state.put(Codecs::default());
    },
);
