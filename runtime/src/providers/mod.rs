//! What plugins provide the daemon: agent providers (provider protocol v1), forge providers and
//! usage sources. This module holds the protocol as data (`protocol.json`: the schema of every
//! input and event, by type), the checks of what crosses it, and the daemon's end of a provider
//! connection ([`ProviderConnection`]). The host makes the calls (host/provide.rs).

pub mod icon;

use std::collections::HashMap;
use std::sync::{Arc, OnceLock, Weak};
use std::time::Duration;

use serde::Serialize;
use serde_json::{json, Value};

use crate::engine::{CallError, CallKind, EventReceiver, Isolate};
use crate::hooks::validate::schema_check;

/// Longest a forge provider's method may run (Paseo's `FORGE_REQUEST_TIMEOUT_MS`).
pub const FORGE_TIMEOUT: Duration = Duration::from_secs(180);
/// Longest a forge provider's `probeHost` may run.
pub const PROBE_TIMEOUT: Duration = Duration::from_secs(30);
/// Events a connection may have queued for the daemon before it is failed (bytes are bounded
/// where they enter, `Limits::queued_event_bytes`).
pub const MAX_QUEUED_EVENTS: usize = 10_000;

/// The protocol's schema, compiled once.
struct Protocol {
    version: u32,
    capabilities: Vec<String>,
    inputs: HashMap<String, jsonschema::Validator>,
    events: HashMap<String, jsonschema::Validator>,
    usage: HashMap<String, jsonschema::Validator>,
    attachments: HashMap<String, jsonschema::Validator>,
    forge: HashMap<String, jsonschema::Validator>,
}

fn protocol() -> &'static Protocol {
    static PROTOCOL: OnceLock<Protocol> = OnceLock::new();
    PROTOCOL.get_or_init(|| {
        let raw: Value =
            serde_json::from_str(include_str!("protocol.json")).expect("protocol.json is JSON");
        let compile = |family: &str, strict: bool| -> HashMap<String, jsonschema::Validator> {
            let types = raw[family].as_object().expect("protocol family");
            types
                .iter()
                .map(|(ty, spec)| {
                    let mut properties = spec["properties"].clone();
                    properties["type"] = json!({ "const": ty });
                    let mut required = spec["required"].clone();
                    required.as_array_mut().unwrap().insert(0, json!("type"));
                    let document = json!({
                        "$defs": raw["$defs"], "type": "object", "required": required,
                        "properties": properties, "additionalProperties": !strict,
                    });
                    let validator = jsonschema::options()
                        .should_validate_formats(false)
                        .build(&document)
                        .unwrap_or_else(|e| panic!("protocol {family} {ty} does not compile: {e}"));
                    (ty.clone(), validator)
                })
                .collect()
        };
        let plain = |family: &str| -> HashMap<String, jsonschema::Validator> {
            raw[family]
                .as_object()
                .expect("protocol family")
                .iter()
                .filter(|(k, _)| !k.starts_with('$'))
                .map(|(what, schema)| {
                    let document = json!({ "$defs": raw["$defs"], "allOf": [schema] });
                    let validator = jsonschema::options()
                        .should_validate_formats(false)
                        .build(&document)
                        .unwrap_or_else(|e| {
                            panic!("protocol {family} {what} does not compile: {e}")
                        });
                    (what.clone(), validator)
                })
                .collect()
        };
        let usage = plain("usage");
        let attachments = plain("attachments");
        let forge = plain("forge");
        Protocol {
            usage,
            attachments,
            forge,
            version: raw["version"].as_u64().unwrap() as u32,
            capabilities: serde_json::from_value(raw["capabilities"].clone()).unwrap(),
            inputs: compile("inputs", true),
            events: compile("events", false),
        }
    })
}

/// The provider protocol version the daemon speaks.
pub fn protocol_version() -> u32 {
    protocol().version
}

/// Every capability of protocol v1, as a daemon offers them.
pub fn capabilities() -> &'static [String] {
    &protocol().capabilities
}

fn check(
    family: &HashMap<String, jsonschema::Validator>,
    what: &str,
    value: &Value,
) -> Result<(), String> {
    let ty = value["type"]
        .as_str()
        .ok_or_else(|| format!("{what} has no type"))?;
    let validator = family
        .get(ty)
        .ok_or_else(|| format!("unknown {what} type {ty:?}"))?;
    schema_check(validator, value).map_err(|e| format!("{what} {ty}: {e}"))
}

/// Checks an input the daemon sends a provider connection.
pub fn check_input(input: &Value) -> Result<(), String> {
    check(&protocol().inputs, "input", input)
}

/// Checks an event a provider connection sent.
pub fn check_event(event: &Value) -> Result<(), String> {
    check(&protocol().events, "event", event)
}

/// Checks what forge service method `method` returned (`probeHost` too); a method the schema
/// does not name is not checked.
pub fn check_forge_result(method: &str, value: &Value) -> Result<(), String> {
    match protocol().forge.get(method) {
        Some(validator) => schema_check(validator, value),
        None => Ok(()),
    }
}

/// Checks a usage source's value: `scope`, `report`, `accounts` or `account`.
pub fn check_usage(what: &str, value: &Value) -> Result<(), String> {
    let validator = protocol().usage.get(what).expect("a usage schema");
    schema_check(validator, value)
}

/// Checks what an attachment source's search returned (`PluginAttachmentSearchPayloadSchema`):
/// the schema, then every item's `url` parsed as a URL.
pub fn check_attachment_search(payload: &Value) -> Result<(), String> {
    schema_check(&protocol().attachments["searchPayload"], payload)?;
    for (i, item) in payload["items"]
        .as_array()
        .into_iter()
        .flatten()
        .enumerate()
    {
        let url = item["url"].as_str().unwrap_or_default();
        if let Err(e) = url::Url::parse(url) {
            return Err(format!("items[{i}].url: {url:?} is not a URL ({e})"));
        }
    }
    Ok(())
}

/// Why a call into something a plugin provides failed. `Display` names the plugin and what it
/// provides, so the daemon can show it as it is.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ProvideError {
    #[error("No plugin provides {kind} {id}")]
    Unknown { kind: &'static str, id: String },
    /// The plugin's code failed, timed out, or the plugin stopped.
    #[error("Plugin {plugin} {kind} {id} failed: {message}")]
    Failed {
        plugin: String,
        kind: &'static str,
        id: String,
        message: String,
    },
    /// The call passed its limit; the text is Paseo's (`Plugin provider connection timed out:
    /// <plugin>.<provider>`, `Plugin forge request timed out: …`, `Plugin RPC timed out: …`).
    #[error("{0}")]
    TimedOut(String),
    /// A forge provider's method threw: the error as Paseo serialises forge errors.
    #[error("{}", .error.message)]
    Forge {
        plugin: String,
        id: String,
        method: String,
        error: Box<ForgeError>,
    },
    /// What the daemon was about to send breaks the protocol (a daemon bug, named).
    #[error("Invalid {what} for plugin {plugin} {kind} {id}: {message}")]
    Invalid {
        plugin: String,
        kind: &'static str,
        id: String,
        what: &'static str,
        message: String,
    },
}

/// A forge provider's error, with the fields of Paseo's forge errors that crossed (class name,
/// `kind`: `missing-cli`, `auth-failure` or `command-error`, and the command's details).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, serde::Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ForgeError {
    pub message: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub name: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub kind: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub stderr: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub args: Option<Vec<String>>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cwd: Option<String>,
    /// `Some(None)`: the command's exit code was `null` (killed).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub exit_code: Option<Option<i64>>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub brand: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub binary: Option<String>,
}

/// What one provided thing is called by, in errors: plugin, kind (`provider`, `forge provider`,
/// `usage source`) and id.
#[derive(Debug, Clone)]
pub(crate) struct Named {
    pub plugin: String,
    pub kind: &'static str,
    pub id: String,
}

impl Named {
    pub(crate) fn failed(&self, message: impl Into<String>) -> ProvideError {
        ProvideError::Failed {
            plugin: self.plugin.clone(),
            kind: self.kind,
            id: self.id.clone(),
            message: message.into(),
        }
    }

    pub(crate) fn invalid(&self, what: &'static str, message: String) -> ProvideError {
        ProvideError::Invalid {
            plugin: self.plugin.clone(),
            kind: self.kind,
            id: self.id.clone(),
            what,
            message,
        }
    }
}

/// One call into the plugin's `providers.js`, with its deadline and the text of its timeout
/// (`timed_out`); the JSON result.
pub(crate) async fn call(
    isolate: &Isolate,
    name: &Named,
    call: &str,
    input: Value,
    (timeout, timed_out): (Duration, String),
) -> Result<Value, ProvideError> {
    let kind = CallKind::Provide {
        call: call.to_string(),
        input: input.to_string(),
    };
    let output = isolate.call(kind, timeout).await.map_err(|e| match e {
        CallError::TimedOut => ProvideError::TimedOut(timed_out),
        e => name.failed(e.to_string()),
    })?;
    if output.len() > crate::hooks::MAX_MESSAGE_BYTES {
        return Err(name.failed(format!(
            "{call} returned {} bytes of JSON; the limit is {} bytes (4 MiB)",
            output.len(),
            crate::hooks::MAX_MESSAGE_BYTES
        )));
    }
    serde_json::from_str(&output).map_err(|e| name.failed(e.to_string()))
}

/// The daemon's end of an open provider connection: what was negotiated, inputs to send, and
/// the connection's events in the order the plugin emitted them. Closing it (or dropping the
/// last handle) closes the plugin's end once; a stop or reload of the plugin ends it, and the
/// events say why.
pub struct ProviderConnection {
    pub version: u32,
    pub capabilities: Vec<String>,
    pub handle: ProviderHandle,
    pub events: ProviderEvents,
}

/// Sends inputs to an open connection and closes it; cheap to clone.
#[derive(Clone)]
pub struct ProviderHandle {
    inner: Arc<HandleInner>,
}

struct HandleInner {
    name: Named,
    stream: String,
    isolate: Weak<Isolate>,
    timeout: Duration,
    closed: std::sync::atomic::AtomicBool,
}

impl ProviderHandle {
    pub(crate) fn new(
        name: Named,
        stream: String,
        isolate: &Arc<Isolate>,
        timeout: Duration,
    ) -> Self {
        ProviderHandle {
            inner: Arc::new(HandleInner {
                name,
                stream,
                isolate: Arc::downgrade(isolate),
                timeout,
                closed: Default::default(),
            }),
        }
    }

    pub fn plugin(&self) -> &str {
        &self.inner.name.plugin
    }

    pub fn provider(&self) -> &str {
        &self.inner.name.id
    }

    /// Whether the connection is still open: not closed, and its plugin's isolate still holds
    /// its end (a stop or reload of the plugin ends it).
    pub fn is_open(&self) -> bool {
        !self.inner.closed.load(std::sync::atomic::Ordering::Acquire)
            && self.inner.isolate.upgrade().is_some_and(|iso| {
                iso.shared
                    .streams
                    .lock()
                    .unwrap()
                    .contains_key(&self.inner.stream)
            })
    }

    fn isolate(&self) -> Result<Arc<Isolate>, ProvideError> {
        self.inner.isolate.upgrade().ok_or_else(|| {
            self.inner
                .name
                .failed(format!("Plugin stopped: {}", self.plugin()))
        })
    }

    /// Sends one input (checked against the protocol first); resolves when the plugin's
    /// `send` does. 30 s limit.
    pub async fn send(&self, input: Value) -> Result<(), ProvideError> {
        check_input(&input).map_err(|e| self.inner.name.invalid("input", e))?;
        if self.inner.closed.load(std::sync::atomic::Ordering::Acquire) {
            return Err(self.inner.name.failed("the connection is closed"));
        }
        let isolate = self.isolate()?;
        let input = json!({ "stream": self.inner.stream, "input": input });
        call(
            &isolate,
            &self.inner.name,
            "provider.send",
            input,
            self.limit("send"),
        )
        .await?;
        Ok(())
    }

    /// Closes the connection (the plugin's `close()`), once; later calls do nothing.
    pub async fn close(&self) -> Result<(), ProvideError> {
        if self
            .inner
            .closed
            .swap(true, std::sync::atomic::Ordering::AcqRel)
        {
            return Ok(());
        }
        let Ok(isolate) = self.isolate() else {
            return Ok(());
        };
        isolate
            .shared
            .streams
            .lock()
            .unwrap()
            .remove(&self.inner.stream);
        let input = json!({ "stream": self.inner.stream });
        call(
            &isolate,
            &self.inner.name,
            "provider.close",
            input,
            self.limit("close"),
        )
        .await?;
        Ok(())
    }

    fn limit(&self, call: &str) -> (Duration, String) {
        let name = &self.inner.name;
        (
            self.inner.timeout,
            format!("Plugin RPC timed out: {}.provider.{call}", name.plugin),
        )
    }
}

impl Drop for HandleInner {
    /// A connection the daemon let go of without closing it is closed in the background.
    fn drop(&mut self) {
        if self.closed.load(std::sync::atomic::Ordering::Acquire) {
            return;
        }
        let Some(isolate) = self.isolate.upgrade() else {
            return;
        };
        isolate.shared.streams.lock().unwrap().remove(&self.stream);
        let Ok(runtime) = tokio::runtime::Handle::try_current() else {
            return;
        };
        let kind = CallKind::Provide {
            call: "provider.close".into(),
            input: json!({ "stream": self.stream }).to_string(),
        };
        let timeout = self.timeout;
        runtime.spawn(async move {
            let _ = isolate.call(kind, timeout).await;
        });
    }
}

/// The events of a connection, in order.
pub struct ProviderEvents {
    name: Named,
    rx: EventReceiver,
    /// What the connection negotiated: its sessions may select only these.
    capabilities: Vec<String>,
    ended: bool,
}

/// What reading a connection's events gives.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub enum ProviderEvent {
    /// An event that passed the protocol's checks.
    Event(Value),
    /// The connection is over: the plugin stopped or failed, it sent something that breaks the
    /// protocol, or it was closed. The text names the plugin and the provider. Nothing follows.
    Ended(String),
}

impl ProviderEvents {
    pub(crate) fn new(name: Named, rx: EventReceiver, capabilities: Vec<String>) -> Self {
        ProviderEvents {
            name,
            rx,
            capabilities,
            ended: false,
        }
    }

    /// The rules of Paseo's daemon beyond the schema (`publishProviderEvent`).
    fn check_rules(&self, event: &Value) -> Result<(), String> {
        let item = &event["item"];
        if event["type"] == "timeline.item"
            && item["type"] == "plugin"
            && item["pluginId"] != self.name.plugin.as_str()
        {
            return Err(format!(
                "Provider plugin {} cannot emit timeline items for {}",
                self.name.plugin,
                item["pluginId"].as_str().unwrap_or_default()
            ));
        }
        if event["type"] == "session.opened" {
            let selected = event["capabilities"].as_array().into_iter().flatten();
            if let Some(c) = selected
                .filter_map(Value::as_str)
                .find(|c| !self.capabilities.iter().any(|k| k == c))
            {
                return Err(format!(
                    "Provider session selected an unoffered capability: {c}"
                ));
            }
        }
        Ok(())
    }

    /// The next event if one is queued already, without waiting.
    pub fn try_next(&mut self) -> Option<ProviderEvent> {
        if self.ended || self.rx.is_empty() {
            return None;
        }
        futures::FutureExt::now_or_never(self.next()).flatten()
    }

    /// The next event; `None` once the connection ended and that was reported.
    pub async fn next(&mut self) -> Option<ProviderEvent> {
        if self.ended {
            return None;
        }
        let ended = |this: &mut Self, why: String| {
            this.ended = true;
            this.rx.close();
            Some(ProviderEvent::Ended(format!(
                "Plugin {} provider {}: {why}",
                this.name.plugin, this.name.id
            )))
        };
        if self.rx.len() > MAX_QUEUED_EVENTS {
            return ended(
                self,
                format!("more than {MAX_QUEUED_EVENTS} events queued unread"),
            );
        }
        let Some(raw) = self.rx.recv().await else {
            return ended(self, "the connection closed".into());
        };
        let event: Value = match serde_json::from_str(&raw) {
            Ok(v) => v,
            Err(e) => return ended(self, format!("sent an event that is not JSON: {e}")),
        };
        if event["type"] == "stream.failed" {
            let why = event["error"]["message"]
                .as_str()
                .unwrap_or("failed")
                .to_string();
            return ended(self, why);
        }
        if let Err(e) = check_event(&event) {
            return ended(self, format!("sent an invalid event: {e}"));
        }
        match self.check_rules(&event) {
            Ok(()) => Some(ProviderEvent::Event(event)),
            Err(e) => ended(self, e),
        }
    }
}
