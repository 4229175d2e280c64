//! Ops behind `fetch` (js/web/fetch.js). A request is a resource: `op_fetch_request` builds it,
//! `op_fetch_send` waits for the response head, `op_fetch_read` yields the body chunk by chunk
//! and `op_fetch_close` drops it, cancelling whatever is in flight (that is how `abort()` reaches
//! Rust). Errors carry Node's cause text (`connect ECONNREFUSED 127.0.0.1:1`); the JS side wraps
//! them in `TypeError: fetch failed`.
//!
//! The clients are per isolate, built on first use and kept in `OpState`: reqwest's pooled
//! connections are driven by tasks on the runtime that opened them, and every plugin thread has
//! its own current-thread runtime that ends with the plugin.

use std::borrow::Cow;
use std::cell::RefCell;
use std::error::Error as _;
use std::rc::Rc;

use deno_core::{
    op2, AsyncRefCell, CancelFuture, CancelHandle, OpState, RcRef, Resource, ResourceId,
};
use deno_error::JsErrorBox;
use serde::Serialize;

/// One client follows redirects (up to 20, as fetch does), the other hands 3xx back.
struct Clients {
    follow: reqwest::Client,
    manual: reqwest::Client,
}

fn clients(state: &mut OpState) -> Result<&Clients, JsErrorBox> {
    if !state.has::<Clients>() {
        // Each redirect followed is a connection of its own: the plugin's policy checks it.
        let permissions = state
            .try_borrow::<std::sync::Arc<crate::engine::PluginShared>>()
            .and_then(|shared| shared.permissions.clone());
        let build = |policy| {
            reqwest::Client::builder()
                .redirect(policy)
                .no_proxy() // Node's fetch ignores HTTP(S)_PROXY too
                .build()
                .map_err(|e| JsErrorBox::type_error(format!("fetch failed: {e}")))
        };
        let follow = reqwest::redirect::Policy::custom(move |attempt| {
            let url = attempt.url();
            let denied = permissions.as_ref().and_then(|p| {
                let host = url.host_str()?;
                p.check_net(host, url.port_or_known_default()).err()
            });
            if let Some(denied) = denied {
                let text = format!(
                    "Access to this API has been restricted: a redirect to {} (permission Net)",
                    denied.resource
                );
                attempt.error(text)
            } else if attempt.previous().len() > 20 {
                attempt.error("redirect count exceeded")
            } else {
                attempt.follow()
            }
        });
        let clients = Clients {
            follow: build(follow)?,
            manual: build(reqwest::redirect::Policy::none())?,
        };
        state.put(clients);
    }
    Ok(state.borrow::<Clients>())
}

struct FetchResource {
    request: RefCell<Option<reqwest::RequestBuilder>>,
    response: AsyncRefCell<Option<reqwest::Response>>,
    /// Decodes the body as its `Content-Encoding` says (gzip, deflate, br), as undici does.
    /// With whether it has been given any bytes (a HEAD, 204 or 304 has none to decode).
    decoder: RefCell<Option<(BodyDecoder, bool)>>,
    cancel: CancelHandle,
}

/// A response body's decoder, writing what it decodes into a `Vec` the reader drains.
enum BodyDecoder {
    Gzip(flate2::write::GzDecoder<Vec<u8>>),
    Deflate(flate2::write::ZlibDecoder<Vec<u8>>),
    Brotli(Box<brotli::DecompressorWriter<Vec<u8>>>),
}

impl BodyDecoder {
    /// The decoder for a `Content-Encoding` value; `None` for identity, or an encoding (or a
    /// chain of them) not decoded here, whose bytes then pass through as they are.
    fn for_encoding(value: &str) -> Option<BodyDecoder> {
        match value.trim().to_ascii_lowercase().as_str() {
            "gzip" | "x-gzip" => Some(BodyDecoder::Gzip(flate2::write::GzDecoder::new(Vec::new()))),
            "deflate" => Some(BodyDecoder::Deflate(flate2::write::ZlibDecoder::new(
                Vec::new(),
            ))),
            "br" => Some(BodyDecoder::Brotli(Box::new(
                brotli::DecompressorWriter::new(Vec::new(), 16 * 1024),
            ))),
            _ => None,
        }
    }

    fn write(&mut self, chunk: &[u8]) -> std::io::Result<Vec<u8>> {
        use std::io::Write;
        match self {
            BodyDecoder::Gzip(d) => {
                d.write_all(chunk)?;
                Ok(std::mem::take(d.get_mut()))
            }
            BodyDecoder::Deflate(d) => {
                d.write_all(chunk)?;
                Ok(std::mem::take(d.get_mut()))
            }
            BodyDecoder::Brotli(d) => {
                d.write_all(chunk)?;
                Ok(std::mem::take(d.get_mut()))
            }
        }
    }

    fn finish(self) -> std::io::Result<Vec<u8>> {
        match self {
            BodyDecoder::Gzip(d) => d.finish(),
            BodyDecoder::Deflate(d) => d.finish(),
            BodyDecoder::Brotli(mut d) => {
                d.close()?;
                let rest = std::mem::take(d.get_mut());
                Ok(rest)
            }
        }
    }
}

impl Resource for FetchResource {
    fn name(&self) -> Cow<'_, str> {
        "fetch".into()
    }
    fn close(self: Rc<Self>) {
        self.cancel.cancel();
    }
}

/// Node's wording for the underlying failure (undici puts it in `cause`).
fn cause(e: &reqwest::Error) -> JsErrorBox {
    let addr = e
        .url()
        .map(|u| {
            format!(
                "{}:{}",
                u.host_str().unwrap_or_default(),
                u.port_or_known_default().unwrap_or(0)
            )
        })
        .unwrap_or_default();
    let mut innermost = e.to_string();
    let mut source = e.source();
    while let Some(s) = source {
        if let Some(io) = s.downcast_ref::<std::io::Error>() {
            use std::io::ErrorKind::*;
            let text = match io.kind() {
                ConnectionRefused => Some(format!("connect ECONNREFUSED {addr}")),
                ConnectionReset => Some("read ECONNRESET".to_string()),
                TimedOut => Some(format!("connect ETIMEDOUT {addr}")),
                _ if io.to_string().contains("failed to lookup address") => Some(format!(
                    "getaddrinfo ENOTFOUND {}",
                    e.url().and_then(|u| u.host_str()).unwrap_or_default()
                )),
                _ => None,
            };
            if let Some(text) = text {
                return JsErrorBox::generic(text);
            }
        }
        innermost = s.to_string();
        source = s.source();
    }
    JsErrorBox::generic(innermost)
}

fn aborted() -> JsErrorBox {
    JsErrorBox::generic("This operation was aborted")
}

/// Builds the request; nothing goes out until `op_fetch_send`.
#[op2]
#[smi]
pub fn op_fetch_request(
    state: &mut OpState,
    #[string] method: &str,
    #[string] url: &str,
    #[serde] headers: Vec<(String, String)>,
    #[buffer(copy)] body: Vec<u8>,
    has_body: bool,
    follow: bool,
) -> Result<ResourceId, JsErrorBox> {
    let method = reqwest::Method::from_bytes(method.as_bytes())
        .map_err(|_| JsErrorBox::type_error(format!("'{method}' is not a valid HTTP method.")))?;
    let url = reqwest::Url::parse(url)
        .map_err(|_| JsErrorBox::type_error(format!("Failed to parse URL from {url}")))?;
    if let Some(host) = url.host_str() {
        super::permission::net(state, host, url.port_or_known_default())?;
    }
    let client = clients(state).map(|c| {
        if follow {
            c.follow.clone()
        } else {
            c.manual.clone()
        }
    })?;
    let mut request = client.request(method, url);
    // As undici: bodies may come compressed unless the plugin says otherwise.
    if !headers
        .iter()
        .any(|(name, _)| name.eq_ignore_ascii_case("accept-encoding"))
    {
        request = request.header(reqwest::header::ACCEPT_ENCODING, "gzip, deflate");
    }
    for (name, value) in headers {
        // Header values are byte strings: each JS char below 256 is one byte.
        let bytes: Vec<u8> = value.chars().map(|c| c as u32 as u8).collect();
        let value = reqwest::header::HeaderValue::from_bytes(&bytes).map_err(|_| {
            JsErrorBox::type_error(format!(
                "Headers.append: \"{value}\" is an invalid header value."
            ))
        })?;
        let name = reqwest::header::HeaderName::from_bytes(name.as_bytes()).map_err(|_| {
            JsErrorBox::type_error(format!(
                "Headers.append: \"{name}\" is an invalid header name."
            ))
        })?;
        request = request.header(name, value);
    }
    if has_body {
        request = request.body(body);
    }
    let resource = FetchResource {
        request: RefCell::new(Some(request)),
        response: AsyncRefCell::new(None),
        decoder: RefCell::new(None),
        cancel: CancelHandle::new(),
    };
    Ok(state.resource_table.add(resource))
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
pub struct ResponseHead {
    status: u16,
    status_text: String,
    headers: Vec<(String, String)>,
    url: String,
}

fn resource(
    state: &Rc<RefCell<OpState>>,
    rid: ResourceId,
) -> Result<Rc<FetchResource>, JsErrorBox> {
    state
        .borrow()
        .resource_table
        .get::<FetchResource>(rid)
        .map_err(|_| aborted())
}

#[op2]
#[serde]
pub async fn op_fetch_send(
    state: Rc<RefCell<OpState>>,
    #[smi] rid: ResourceId,
) -> Result<ResponseHead, JsErrorBox> {
    let res = resource(&state, rid)?;
    let request = res.request.borrow_mut().take().ok_or_else(aborted)?;
    let response = request
        .send()
        .or_cancel(RcRef::map(&res, |r| &r.cancel))
        .await
        .map_err(|_| aborted())?
        .map_err(|e| cause(&e))?;
    let head = ResponseHead {
        status: response.status().as_u16(),
        status_text: response
            .status()
            .canonical_reason()
            .unwrap_or_default()
            .to_string(),
        // Latin-1, as undici decodes header bytes.
        headers: response
            .headers()
            .iter()
            .map(|(k, v)| {
                (
                    k.as_str().to_string(),
                    v.as_bytes().iter().map(|&b| b as char).collect(),
                )
            })
            .collect(),
        url: response.url().to_string(),
    };
    let encoding = response
        .headers()
        .get(reqwest::header::CONTENT_ENCODING)
        .and_then(|v| v.to_str().ok());
    *res.decoder.borrow_mut() = encoding
        .and_then(BodyDecoder::for_encoding)
        .map(|d| (d, false));
    *RcRef::map(&res, |r| &r.response).borrow_mut().await = Some(response);
    Ok(head)
}

/// The next body chunk; empty at the end. A chunk is one of hyper's reads (at most its 400 KiB
/// read buffer), which the engine's headroom over the heap cap always holds (engine/budget.rs),
/// so it is returned without measuring the heap; the body as a whole is the plugin's to keep.
#[op2]
#[buffer]
pub async fn op_fetch_read(
    state: Rc<RefCell<OpState>>,
    #[smi] rid: ResourceId,
) -> Result<Vec<u8>, JsErrorBox> {
    let res = resource(&state, rid)?;
    let mut slot = RcRef::map(&res, |r| &r.response).borrow_mut().await;
    let Some(response) = slot.as_mut() else {
        return Ok(Vec::new());
    };
    loop {
        match response
            .chunk()
            .or_cancel(RcRef::map(&res, |r| &r.cancel))
            .await
        {
            Err(_) => return Err(aborted()),
            Ok(Err(e)) => return Err(cause(&e)),
            Ok(Ok(Some(chunk))) if chunk.is_empty() => continue,
            Ok(Ok(Some(chunk))) => {
                let mut decoder = res.decoder.borrow_mut();
                let Some((decoder, fed)) = decoder.as_mut() else {
                    return Ok(chunk.to_vec());
                };
                *fed = true;
                let decoded = decoder.write(&chunk).map_err(|e| decode_error(&e))?;
                // An empty chunk would read as the end; read on until there is output.
                if !decoded.is_empty() {
                    return Ok(decoded);
                }
            }
            Ok(Ok(None)) => {
                *slot = None;
                let decoder = res.decoder.borrow_mut().take();
                return match decoder {
                    Some((decoder, true)) => decoder.finish().map_err(|e| decode_error(&e)),
                    _ => Ok(Vec::new()),
                };
            }
        }
    }
}

/// A body that does not decode as its `Content-Encoding` says: undici's `terminated`, with the
/// zlib error as its cause.
fn decode_error(e: &std::io::Error) -> JsErrorBox {
    JsErrorBox::type_error(format!("terminated: {e}"))
}

/// Drops the request, cancelling a pending send or read.
#[op2(fast)]
pub fn op_fetch_close(state: &mut OpState, #[smi] rid: ResourceId) {
    if let Ok(res) = state.resource_table.take_any(rid) {
        res.close();
    }
}

deno_core::extension!(
    paseo_fetch,
    ops = [
        op_fetch_request,
        op_fetch_send,
        op_fetch_read,
        op_fetch_close
    ]
);
