//! `context.paseo` for plugins: each call of the SDK forwarded to the daemon's own method.

use std::sync::{Arc, OnceLock, Weak};

use paseo_plugin_runtime::sdk::{Caller, PaseoDaemon, SdkError, SdkFuture};
use serde_json::{json, Value};

use super::quotas::Spend;
use super::Daemon;

/// `context.paseo` for plugins, answered by the daemon.
pub(super) struct Sdk(pub(super) OnceLock<Weak<Daemon>>);

fn sdk_err(e: impl std::fmt::Display) -> SdkError {
    SdkError::Daemon(e.to_string())
}

impl Sdk {
    fn daemon(&self) -> Result<Arc<Daemon>, SdkError> {
        self.0
            .get()
            .and_then(Weak::upgrade)
            .ok_or_else(|| SdkError::Daemon("The daemon is stopping".into()))
    }
}

fn arg<'v>(args: &'v Value, key: &str) -> Result<&'v str, SdkError> {
    args[key]
        .as_str()
        .ok_or_else(|| SdkError::Daemon(format!("Missing {key}")))
}

impl PaseoDaemon for Sdk {
    fn agents_list<'a>(&'a self, _caller: &'a Caller, _args: Value) -> SdkFuture<'a> {
        Box::pin(async move {
            let d = self.daemon()?;
            let entries: Vec<Value> = d
                .agents()
                .into_iter()
                .map(|a| json!({ "agent": a, "project": null }))
                .collect();
            Ok(json!({ "entries": entries, "pageInfo": { "hasMore": false, "nextCursor": null } }))
        })
    }
    fn agents_get<'a>(&'a self, _caller: &'a Caller, args: Value) -> SdkFuture<'a> {
        Box::pin(async move {
            Ok(self
                .daemon()?
                .agent_view(arg(&args, "agentId")?)
                .map(|a| json!({ "agent": a, "project": null }))
                .unwrap_or(Value::Null))
        })
    }
    fn agents_create<'a>(&'a self, caller: &'a Caller, args: Value) -> SdkFuture<'a> {
        Box::pin(async move {
            let d = self.daemon()?;
            let mut params = json!({ "cwd": args["cwd"], "provider": args["config"]["provider"], "prompt": args["initialPrompt"], "labels": args["labels"], "title": args["title"], "providerOptions": args["config"]["providerOptions"] });
            params["labels"]["paseo.created-by-plugin"] = json!(caller.plugin_id);
            d.create_agent(params).await.map_err(sdk_err)
        })
    }
    fn agents_send<'a>(&'a self, caller: &'a Caller, args: Value) -> SdkFuture<'a> {
        Box::pin(async move {
            let d = self.daemon()?;
            let agent = arg(&args, "agentId")?;
            d.charge(&caller.plugin_id, agent, Spend::Send, 0)
                .map_err(sdk_err)?;
            d.send(agent, arg(&args, "text")?, Some(&caller.plugin_id))
                .map_err(sdk_err)?;
            d.say(format!(
                "plugin {} sent {:?} to {}",
                caller.plugin_id,
                args["text"].as_str().unwrap_or_default(),
                args["agentId"].as_str().unwrap_or_default()
            ));
            Ok(Value::Null)
        })
    }
    fn agents_respond_to_permission<'a>(
        &'a self,
        caller: &'a Caller,
        args: Value,
    ) -> SdkFuture<'a> {
        Box::pin(async move {
            let d = self.daemon()?;
            let mut response = args["response"].clone();
            response["respondedBy"] = json!({ "pluginId": caller.plugin_id });
            d.respond_permission(arg(&args, "agentId")?, arg(&args, "requestId")?, response)
                .map_err(sdk_err)?;
            Ok(Value::Null)
        })
    }
    fn agents_timeline_fetch<'a>(&'a self, _caller: &'a Caller, args: Value) -> SdkFuture<'a> {
        Box::pin(async move {
            let d = self.daemon()?;
            let id = arg(&args, "agentId")?;
            d.agent_record(id).map_err(sdk_err)?;
            Ok(d.store.read_timeline(id, |items| {
                paseo_plugin_runtime::sdk::timeline_page(items, &args["options"], "daemon")
            }))
        })
    }
    fn agents_timeline_append<'a>(&'a self, caller: &'a Caller, args: Value) -> SdkFuture<'a> {
        Box::pin(async move {
            let d = self.daemon()?;
            let id = arg(&args, "agentId")?.to_string();
            d.agent_record(&id).map_err(sdk_err)?;
            let item = args["item"].clone();
            let bytes = item.to_string().len() as u64;
            d.charge(&caller.plugin_id, &id, Spend::TimelineRow, bytes)
                .map_err(sdk_err)?;
            let seq = d
                .store
                .edit_timeline(&id, |items| {
                    paseo_plugin_runtime::sdk::append_plugin_row(items, caller, item)
                })?
                .map_err(sdk_err)?;
            Ok(json!({ "seq": seq, "epoch": "daemon" }))
        })
    }
    fn agents_reload<'a>(&'a self, _caller: &'a Caller, args: Value) -> SdkFuture<'a> {
        Box::pin(async move {
            self.daemon()?
                .reload_agent(arg(&args, "agentId")?)
                .await
                .map(|_| Value::Null)
                .map_err(sdk_err)
        })
    }
    fn agents_archive<'a>(&'a self, _caller: &'a Caller, args: Value) -> SdkFuture<'a> {
        Box::pin(async move {
            self.daemon()?
                .archive_agent(arg(&args, "agentId")?)
                .await
                .map_err(sdk_err)
        })
    }
    fn agents_wait_for_finish<'a>(&'a self, _caller: &'a Caller, args: Value) -> SdkFuture<'a> {
        Box::pin(async move {
            let d = self.daemon()?;
            let id = arg(&args, "agentId")?;
            let timeout =
                std::time::Duration::from_millis(args["timeoutMs"].as_u64().unwrap_or(600_000));
            let finished = d.wait_idle(id, timeout).await;
            Ok(json!({ "status": if finished { "idle" } else { "timeout" } }))
        })
    }
    fn workspaces_list<'a>(&'a self, _caller: &'a Caller, _args: Value) -> SdkFuture<'a> {
        Box::pin(async move {
            // Paseo's PaseoWorkspaceListResult: the entries are the workspaces themselves.
            let entries: Vec<Value> = self
                .daemon()?
                .workspaces()
                .into_iter()
                .map(|w| json!(w))
                .collect();
            Ok(json!({ "entries": entries, "pageInfo": { "hasMore": false, "nextCursor": null } }))
        })
    }
    fn workspaces_create<'a>(&'a self, _caller: &'a Caller, args: Value) -> SdkFuture<'a> {
        Box::pin(async move { self.daemon()?.create_workspace(args).await.map_err(sdk_err) })
    }
    fn workspaces_archive<'a>(&'a self, _caller: &'a Caller, args: Value) -> SdkFuture<'a> {
        Box::pin(async move {
            self.daemon()?
                .archive_workspace(arg(&args, "workspaceId")?)
                .await
                .map_err(sdk_err)
        })
    }
    fn config_get<'a>(&'a self, _caller: &'a Caller, _args: Value) -> SdkFuture<'a> {
        Box::pin(async move {
            Ok(serde_json::to_value(self.daemon()?.config.lock().unwrap().clone()).unwrap())
        })
    }
    fn presence<'a>(&'a self, _caller: &'a Caller, _args: Value) -> SdkFuture<'a> {
        Box::pin(async move { Ok(json!({ "userPresent": false, "clients": [] })) })
    }
}
