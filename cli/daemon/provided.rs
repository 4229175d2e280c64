//! What plugins provide, as the daemon's CLI shows and calls it: agent providers (beside the
//! built-in ones), forge providers and usage sources.

use paseo_plugin_runtime::host::{ProvidedKind, UsageCall};
use paseo_plugin_runtime::ProvideError;
use serde_json::{json, Value};

use super::providers::scripted;
use super::Daemon;

impl Daemon {
    /// `paseo provider ls`: the built-in providers, then the plugins' ones with their plugin.
    pub fn provider_list(&self) -> Value {
        let mut out: Vec<Value> = scripted::PROVIDERS
            .iter()
            .map(|(id, mcp)| json!({ "id": id, "label": id, "plugin": null, "builtin": true, "mcp": mcp }))
            .collect();
        for p in self.host.provided(ProvidedKind::Provider) {
            // The icon as inline SVG text, as Paseo's registration carries it; absent when the
            // file is not there.
            let icon = self
                .host
                .provided_icon(ProvidedKind::Provider, &p.provided.id)
                .ok()
                .flatten();
            out.push(json!({
                "id": p.provided.id, "label": p.provided.label, "description": p.provided.description,
                "icon": icon, "plugin": p.plugin, "builtin": false, "mcp": true,
            }));
        }
        Value::Array(out)
    }

    /// `paseo forge ls` / `paseo usage ls`: what plugins provide of `kind`.
    pub fn provided_list(&self, kind: ProvidedKind) -> Value {
        let rows: Vec<Value> = self
            .host
            .provided(kind)
            .into_iter()
            .map(|p| {
                let mut row =
                    json!({ "id": p.provided.id, "label": p.provided.label, "plugin": p.plugin });
                for (k, v) in p.provided.details {
                    row[k] = v;
                }
                row
            })
            .collect();
        Value::Array(rows)
    }

    /// `paseo forge call PROVIDER METHOD [INPUT]`: `{ output }`, or `{ error }` with the forge
    /// error's class and fields when the method threw one.
    pub async fn forge_call(
        &self,
        provider: &str,
        method: &str,
        input: Value,
    ) -> Result<Value, String> {
        match self.host.call_forge(provider, method, input).await {
            Ok(output) => Ok(json!({ "output": output })),
            Err(ProvideError::Forge { error, .. }) => Ok(json!({ "error": error })),
            Err(e) => Err(e.to_string()),
        }
    }

    /// `paseo usage fetch|discover SOURCE [INPUT]`.
    pub async fn usage_call(
        &self,
        source: &str,
        call: &str,
        input: Value,
    ) -> Result<Value, String> {
        let call = match call {
            "fetch" => UsageCall::Fetch,
            "discover" => UsageCall::Discover,
            "identify" => UsageCall::Identify,
            other => {
                return Err(format!(
                    "Unknown usage call: {other} (fetch, discover or identify)"
                ))
            }
        };
        self.host
            .call_usage(source, call, input)
            .await
            .map_err(|e| e.to_string())
    }
}
