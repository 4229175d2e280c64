//! Calls into what plugins provide: agent provider connections, forge provider methods and
//! usage sources (the protocol and its checks are in `providers`).

use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;

use serde::Serialize;
use serde_json::{json, Value};

use super::PluginHost;
use crate::engine::{Isolate, Limits, Provided, Registrations};
use crate::providers::{
    self, Named, ProvideError, ProviderConnection, ProviderEvents, ProviderHandle, FORGE_TIMEOUT,
    PROBE_TIMEOUT,
};

/// The kinds of things plugins provide.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub enum ProvidedKind {
    Provider,
    ForgeProvider,
    UsageSource,
}

impl ProvidedKind {
    /// How errors name it.
    pub fn noun(self) -> &'static str {
        match self {
            ProvidedKind::Provider => "provider",
            ProvidedKind::ForgeProvider => "forge provider",
            ProvidedKind::UsageSource => "usage source",
        }
    }

    fn of(self, registrations: &Registrations) -> &[Provided] {
        match self {
            ProvidedKind::Provider => &registrations.providers,
            ProvidedKind::ForgeProvider => &registrations.forge_providers,
            ProvidedKind::UsageSource => &registrations.usage_sources,
        }
    }
}

/// One thing a running plugin provides.
#[derive(Debug, Clone, Serialize)]
pub struct ProvidedBy {
    pub plugin: String,
    #[serde(flatten)]
    pub provided: Provided,
}

/// The usage-source calls (`registerUsageSource`): `fetch` is required, the others optional.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum UsageCall {
    Fetch,
    Discover,
    Identify,
}

impl PluginHost {
    /// What running plugins provide of one kind, by plugin, in plugin order.
    pub fn provided(&self, kind: ProvidedKind) -> Vec<ProvidedBy> {
        let slots = self.slots.lock().unwrap();
        let mut out = Vec::new();
        for (plugin, slot) in slots.iter() {
            let Some(iso) = slot.isolate.as_ref() else {
                continue;
            };
            if iso.shared.fatal.lock().unwrap().is_some() {
                continue;
            }
            let registrations = iso.shared.registrations.lock().unwrap();
            out.extend(kind.of(&registrations).iter().map(|p| ProvidedBy {
                plugin: plugin.clone(),
                provided: p.clone(),
            }));
        }
        out
    }

    /// The running plugin that provides `id` of `kind`: its name in errors, isolate and limits
    /// (and, through `provided_by`, what it registered), once reloads in progress are done.
    async fn provider_of(
        &self,
        kind: ProvidedKind,
        id: &str,
    ) -> Result<(Named, Arc<Isolate>, Limits), ProvideError> {
        self.provided_by(kind, id)
            .await
            .map(|(name, isolate, limits, _)| (name, isolate, limits))
    }

    async fn provided_by(
        &self,
        kind: ProvidedKind,
        id: &str,
    ) -> Result<(Named, Arc<Isolate>, Limits, Provided), ProvideError> {
        self.wait_for_restarts(None).await;
        let by = self
            .provided(kind)
            .into_iter()
            .find(|p| p.provided.id == id)
            .ok_or_else(|| ProvideError::Unknown {
                kind: kind.noun(),
                id: id.to_string(),
            })?;
        let (isolate, limits) = self
            .running(&by.plugin)
            .ok_or_else(|| ProvideError::Unknown {
                kind: kind.noun(),
                id: id.to_string(),
            })?;
        let name = Named {
            plugin: by.plugin,
            kind: kind.noun(),
            id: id.to_string(),
        };
        Ok((name, isolate, limits, by.provided))
    }

    /// Opens a connection to agent provider `id` (`connect({ versions, capabilities })`,
    /// within the plugin's call limit, 30 s by default), offering every capability of protocol
    /// v1. Events the plugin emits from the moment it connects are kept in order. The version
    /// and capabilities the connection selects are checked as Paseo's daemon checks them; its
    /// capabilities come back known ones only, in the protocol's order.
    pub async fn connect_provider(&self, id: &str) -> Result<ProviderConnection, ProvideError> {
        static NEXT: AtomicU64 = AtomicU64::new(0);
        let (name, isolate, limits) = self.provider_of(ProvidedKind::Provider, id).await?;
        let stream = format!("{id}#{}", NEXT.fetch_add(1, Ordering::Relaxed));
        let (tx, rx) = crate::engine::EventStream::new(limits.queued_event_bytes);
        isolate
            .shared
            .streams
            .lock()
            .unwrap()
            .insert(stream.clone(), tx);
        let offered = providers::capabilities();
        let request = json!({
            "provider": id, "stream": stream,
            "request": { "versions": [providers::protocol_version()], "capabilities": offered },
        });
        let timed_out = format!("Plugin provider connection timed out: {}.{id}", name.plugin);
        let handle =
            ProviderHandle::new(name.clone(), stream.clone(), &isolate, limits.hook_timeout);
        let connected = providers::call(
            &isolate,
            &name,
            "provider.connect",
            request,
            (limits.hook_timeout, timed_out),
        )
        .await
        .and_then(|out| negotiated(&name, &out));
        match connected {
            Ok((version, capabilities)) => Ok(ProviderConnection {
                version,
                events: ProviderEvents::new(name, rx, capabilities.clone()),
                capabilities,
                handle,
            }),
            Err(e) => {
                // A connection that selected what was not offered is closed at once.
                let _ = handle.close().await;
                Err(e)
            }
        }
    }

    /// `getCatalogCacheKey(options)` of provider `id`; `None` if it has none or returns
    /// undefined.
    pub async fn provider_catalog_key(
        &self,
        id: &str,
        options: Value,
    ) -> Result<Option<String>, ProvideError> {
        let (name, isolate, limits) = self.provider_of(ProvidedKind::Provider, id).await?;
        let input = json!({ "provider": id, "options": options });
        let limit = (
            limits.hook_timeout,
            format!("Plugin RPC timed out: {}.provider.catalog_key", name.plugin),
        );
        let out = providers::call(&isolate, &name, "provider.catalogKey", input, limit).await?;
        Ok(out.as_str().map(str::to_string))
    }

    /// The SVG icon of what a plugin provides, as text, read from the plugin's folder (checked
    /// when the plugin registered it, see `read_icon`).
    pub fn provided_icon(
        &self,
        kind: ProvidedKind,
        id: &str,
    ) -> Result<Option<String>, ProvideError> {
        let Some(by) = self
            .provided(kind)
            .into_iter()
            .find(|p| p.provided.id == id)
        else {
            return Err(ProvideError::Unknown {
                kind: kind.noun(),
                id: id.to_string(),
            });
        };
        let Some(icon) = by.provided.icon.as_deref() else {
            return Ok(None);
        };
        let directory = self
            .plugin(&by.plugin)
            .map(|p| p.directory)
            .unwrap_or_default();
        let name = Named {
            plugin: by.plugin,
            kind: kind.noun(),
            id: id.to_string(),
        };
        match providers::icon::read_icon(&directory, icon) {
            Ok(text) => Ok(Some(text)),
            // As in Paseo, an icon file that is not there is no icon.
            Err(e) if e == providers::icon::NOT_A_FILE => Ok(None),
            Err(e) => Err(name.failed(format!("Invalid plugin provider icon \"{icon}\": {e}"))),
        }
    }

    /// Calls method `method` of forge provider `id` with `input`: 180 s limit, 30 s for
    /// `probeHost`. A forge error keeps its class, `kind` and fields (`ProvideError::Forge`).
    pub async fn call_forge(
        &self,
        id: &str,
        method: &str,
        input: Value,
    ) -> Result<Value, ProvideError> {
        // What it offers is read after any reload in progress, from the registration found.
        let (name, isolate, _, provided) =
            self.provided_by(ProvidedKind::ForgeProvider, id).await?;
        let details = Value::Object(provided.details);
        let offers = |m: &str| {
            details["methods"]
                .as_array()
                .is_some_and(|ms| ms.iter().any(|x| x == m))
        };
        let known = if method == "probeHost" {
            details["hasProbeHost"] == true
        } else {
            offers(method)
        };
        if !known {
            return Err(name.failed(format!("Forge provider {id} does not contribute {method}")));
        }
        let timeout = if method == "probeHost" {
            PROBE_TIMEOUT
        } else {
            FORGE_TIMEOUT
        };
        let timed_out = format!(
            "Plugin forge request timed out: {}.{id}.{method}",
            name.plugin
        );
        let input = json!({ "provider": id, "method": method, "input": input });
        let out =
            providers::call(&isolate, &name, "forge.invoke", input, (timeout, timed_out)).await?;
        if let Some(error) = out.get("error") {
            let error =
                serde_json::from_value(error.clone()).map_err(|e| name.failed(e.to_string()))?;
            return Err(ProvideError::Forge {
                plugin: name.plugin,
                id: id.to_string(),
                method: method.to_string(),
                error: Box::new(error),
            });
        }
        let output = out.get("output").cloned().unwrap_or(Value::Null);
        // Checked per method against what it must return, as Paseo's daemon checks it
        // (`forge` in providers/protocol.json).
        providers::check_forge_result(method, &output).map_err(|e| {
            name.failed(format!(
                "Plugin forge {method} returned invalid output: {e}"
            ))
        })?;
        Ok(output)
    }

    /// Calls usage source `id`: `fetch` and `identify` take an account's input (the source's
    /// `input` schema parses it first, in the plugin); `discover` takes a scope
    /// (`{ kind: "global" }` or `{ kind: "session", provider, model?, env }`). What comes back
    /// is checked: a usage report, or a list of accounts.
    pub async fn call_usage(
        &self,
        id: &str,
        call: UsageCall,
        input: Value,
    ) -> Result<Value, ProvideError> {
        let (name, isolate, limits) = self.provider_of(ProvidedKind::UsageSource, id).await?;
        let call_name = match call {
            UsageCall::Fetch => "usage.fetch",
            UsageCall::Discover => "usage.discover",
            UsageCall::Identify => "usage.identify",
        };
        if call == UsageCall::Discover {
            providers::check_usage("scope", &input).map_err(|e| name.invalid("scope", e))?;
        }
        let limit = (
            limits.hook_timeout,
            format!("Plugin RPC timed out: {}.{call_name}", name.plugin),
        );
        let out = providers::call(
            &isolate,
            &name,
            call_name,
            json!({ "source": id, "input": input }),
            limit,
        )
        .await?;
        let what = match call {
            UsageCall::Fetch => "report",
            UsageCall::Discover => "accounts",
            UsageCall::Identify => "account",
        };
        providers::check_usage(what, &out)
            .map_err(|e| name.failed(format!("returned an invalid {what}: {e}")))?;
        Ok(out)
    }
}

impl PluginHost {
    /// An attachment source's search: the plugin's search RPC (`source.search`, served with
    /// `server.handle`) called with `{ query }`, its result checked as Paseo's app checks it
    /// (`PluginAttachmentSearchPayloadSchema`).
    pub async fn search_attachments(
        &self,
        plugin: &str,
        method: &str,
        query: &str,
    ) -> Result<Value, super::HostError> {
        let payload = self
            .call_rpc(plugin, method, json!({ "query": query }))
            .await?;
        providers::check_attachment_search(&payload).map_err(|e| super::HostError::Rpc {
            plugin: plugin.to_string(),
            method: method.to_string(),
            message: format!(
                "Plugin {plugin} attachment search {method} returned an invalid payload: {e}"
            ),
        })?;
        Ok(payload)
    }
}

/// The version and capabilities a connection selected, checked against the offer.
fn negotiated(name: &Named, out: &Value) -> Result<(u32, Vec<String>), ProvideError> {
    let version = out["version"].as_i64().filter(|v| *v > 0);
    let Some(version) = version else {
        return Err(name.failed(format!(
            "Plugin provider selected invalid version: {}",
            out["version"]
        )));
    };
    if version != providers::protocol_version() as i64 {
        return Err(name.failed(format!(
            "Plugin provider selected an unoffered version: {version}"
        )));
    }
    let selected: Vec<String> =
        serde_json::from_value(out["capabilities"].clone()).map_err(|_| {
            name.failed(format!(
                "Plugin provider selected invalid capabilities: {}",
                out["capabilities"]
            ))
        })?;
    let known = providers::capabilities();
    // Every capability is offered, so an unoffered one is one the protocol does not know;
    // Paseo's daemon checks only known ones, and so keeps unknown ones out by filtering.
    let capabilities = known
        .iter()
        .filter(|k| selected.contains(k))
        .cloned()
        .collect();
    Ok((version as u32, capabilities))
}
