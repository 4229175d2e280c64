//! The throwaway host: `paseo hook run`, `rpc call`, `tool list|call`, `plugin inspect` and
//! `hook replay` (`replay`) load plugins into a host of their own, answer `context.paseo` from memory and print every SDK call
//! a plugin makes on stderr as `[<plugin-id>] [paseo] sdk <method> <json arguments>`.

use std::io::Read;
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::sync::Arc;
use std::time::Duration;

use paseo_plugin_runtime::{
    Caller, HostOptions, LogEntry, MemoryDaemon, OpenContext, PluginHost, PluginStatus,
};
use serde_json::{json, Value};

use crate::args::{HookCommand, HostFlags, RpcCommand, ToolCommand};
use crate::daemon::home::paseo_home;

mod replay;

/// The throwaway host: plugin logs and SDK calls on stderr, an in-memory daemon.
fn stderr_logs() -> HostOptions {
    throwaway_host().0
}

fn throwaway_host() -> (HostOptions, Arc<MemoryDaemon>) {
    // Created private here, before the QuickJS layer would make it with the umask's modes.
    let _ = paseo_plugin_runtime::private_files::create_private_dir_all(
        &paseo_home().join("cache/quickjs-bytecode"),
    );
    let sdk_log: paseo_plugin_runtime::sdk::memory::CallListener =
        Arc::new(|caller: &Caller, method: &str, args: &Value| {
            eprintln!("[{}] [paseo] sdk {method} {args}", caller.plugin_id)
        });
    let daemon = Arc::new(MemoryDaemon::new(Some(sdk_log)));
    let options = HostOptions {
        log_listener: Some(Arc::new(|id: &str, entry: &LogEntry| {
            eprintln!("[{id}] {}", entry.message)
        })),
        bytecode_cache_dir: Some(paseo_home().join("cache/quickjs-bytecode")),
        snapshot_cache_dir: Some(paseo_home().join("cache/v8-snapshot")),
        daemon: Some(daemon.clone()),
        settings_dir: Some(paseo_home().join("plugin-settings")),
        ..HostOptions::default()
    };
    (options, daemon)
}

/// Applies `--timeout-ms` and the policy flags (`--allow-*`, `--permissions`); the plugins to
/// load.
fn host_flags(flags: &HostFlags, options: &mut HostOptions) -> Result<Vec<PathBuf>, String> {
    if let Some(ms) = flags.timeout_ms {
        options.limits.hook_timeout = Duration::from_millis(ms);
    }
    if let Some(policy) = flags.allow.policy()? {
        options.permissions = Some(Arc::new(move |_id: &str| Some(Ok(policy.clone()))));
    }
    Ok(flags.plugins.clone())
}

/// Loads every plugin, or returns the first load error.
async fn load_plugins(host: &PluginHost, plugins: &[PathBuf]) -> Result<(), String> {
    for dir in plugins {
        host.load(dir).await.map_err(|e| e.to_string())?;
    }
    Ok(())
}

pub(crate) fn read_input(arg: Option<&str>) -> Result<Value, String> {
    let text = match arg {
        None => return Ok(json!({})),
        Some("-") => {
            let mut s = String::new();
            std::io::stdin()
                .read_to_string(&mut s)
                .map_err(|e| format!("cannot read stdin: {e}"))?;
            s
        }
        Some(a) if a.starts_with('@') => {
            std::fs::read_to_string(&a[1..]).map_err(|e| format!("cannot read {}: {e}", &a[1..]))?
        }
        Some(a) => a.to_string(),
    };
    serde_json::from_str(&text).map_err(|e| format!("INPUT is not valid JSON: {e}"))
}

fn print_outcome(outcome: Result<Value, String>) -> ExitCode {
    match outcome {
        Ok(output) => {
            println!("{}", json!({ "ok": true, "output": output }));
            ExitCode::SUCCESS
        }
        Err(error) => {
            println!("{}", json!({ "ok": false, "error": error }));
            ExitCode::from(1)
        }
    }
}

/// `paseo hook run` and `paseo hook replay`.
pub async fn hook(command: HookCommand) -> Result<ExitCode, String> {
    match command {
        HookCommand::Run { host, hook, input } => run_hook(host, &hook, input).await,
        HookCommand::Replay { host, file, json } => replay::replay(host, &file, json).await,
    }
}

/// The in-memory daemon learns the agent an event is about, so that SDK calls on it succeed.
fn seed_daemon(daemon: &MemoryDaemon, hook: &str, payload: &Value) {
    if payload["agent"].is_object() {
        daemon.add_agent(payload["agent"].clone());
        if hook == "agent.permission.before" {
            daemon.add_pending_permission(
                payload["agent"]["id"].as_str().unwrap_or_default(),
                payload["request"].clone(),
            );
        }
    }
}

/// `paseo hook run`.
async fn run_hook(host: HostFlags, hook: &str, input: Option<String>) -> Result<ExitCode, String> {
    let (mut options, daemon) = throwaway_host();
    let plugins = host_flags(&host, &mut options)?;
    let mut input = read_input(input.as_deref())?;
    let spec = paseo_plugin_runtime::hooks::catalogue().get(hook);
    // The INPUT of a request hook is the request; `{ "request": … }` is accepted too.
    if let Some(spec) = spec {
        if spec.returns_request
            && !(input
                .as_object()
                .is_some_and(|o| o.len() == 1 && o.contains_key("request")))
        {
            input = json!({ "request": input });
        }
    }
    let host = PluginHost::new(options);
    if let Err(e) = load_plugins(&host, &plugins).await {
        host.shutdown().await;
        return Ok(print_outcome(Err(e)));
    }
    let payload = match spec {
        Some(spec) if spec.returns_request => input["request"].take(),
        _ => input,
    };
    seed_daemon(&daemon, hook, &payload);
    let outcome = host
        .run_hook(hook, payload, &OpenContext::default())
        .await
        .map_err(|e| e.to_string());
    host.shutdown().await;
    Ok(print_outcome(outcome))
}

/// `paseo rpc call`.
pub async fn rpc(command: RpcCommand) -> Result<ExitCode, String> {
    let RpcCommand::Call {
        host,
        plugin_id: id,
        method,
        input,
    } = command;
    let mut options = stderr_logs();
    let plugins = host_flags(&host, &mut options)?;
    let input = read_input(input.as_deref())?;
    let host = PluginHost::new(options);
    let outcome = match load_plugins(&host, &plugins).await {
        Ok(()) => host
            .call_rpc(&id, &method, input)
            .await
            .map_err(|e| e.to_string()),
        Err(e) => Err(e),
    };
    host.shutdown().await;
    Ok(print_outcome(outcome))
}

/// Opens a session for `--agent` (merged over a default agent) and lists or calls its tools.
pub async fn tool(command: ToolCommand) -> Result<ExitCode, String> {
    let (flags, call) = match command {
        ToolCommand::List { flags } => (flags, None),
        ToolCommand::Call { flags, name, input } => (flags, Some((name, input))),
    };
    let (mut options, _daemon) = throwaway_host();
    let agent = flags
        .agent
        .as_deref()
        .map(|a| read_input(Some(a)))
        .transpose()?;
    let plugins = host_flags(&flags.host, &mut options)?;
    let cwd = std::env::current_dir()
        .map(|p| p.to_string_lossy().into_owned())
        .unwrap_or_else(|_| "/".into());
    let mut request = json!({
        "agentId": "agent-1", "workspaceId": null, "provider": "codex", "cwd": cwd, "title": null, "labels": {},
        "tools": [], "mcpServers": {}, "reason": "create", "purpose": "interactive", "env": {}
    });
    for (k, v) in agent
        .as_ref()
        .and_then(Value::as_object)
        .into_iter()
        .flatten()
    {
        request[k] = v.clone();
    }
    let agent_id = request["agentId"].as_str().unwrap_or("agent-1").to_string();
    let host = PluginHost::new(options);
    let outcome = async {
        load_plugins(&host, &plugins).await?;
        host.run_hook("agent.open.before", request, &OpenContext::default())
            .await
            .map_err(|e| e.to_string())?;
        match call {
            None => Ok(serde_json::to_value(host.agent_tools(&agent_id)).unwrap()),
            Some((name, input)) => {
                let input = read_input(input.as_deref())?;
                let result = host
                    .call_tool(&agent_id, &name, input, std::future::pending())
                    .await
                    .map_err(|e| e.to_string())?;
                Ok(serde_json::to_value(result).unwrap())
            }
        }
    }
    .await;
    host.shutdown().await;
    Ok(print_outcome(outcome))
}

/// `paseo plugin inspect DIR [--json]`.
pub async fn plugin_inspect(dir: &Path, as_json: bool) -> Result<ExitCode, String> {
    let host = PluginHost::new(stderr_logs());
    let loaded = host.load(dir).await.map_err(|e| e.to_string());
    let info = match &loaded {
        Ok(id) => host.plugin(id),
        Err(_) => host.plugins().into_iter().next(),
    };
    host.shutdown().await;
    let Some(info) = info else {
        let error = loaded.err().unwrap_or_default();
        if as_json {
            println!("{}", json!({ "ok": false, "error": error }));
        } else {
            println!("error: {error}");
        }
        return Ok(ExitCode::from(1));
    };
    let failed = info.status == PluginStatus::Failed;
    if as_json {
        println!("{}", serde_json::to_string_pretty(&info).unwrap());
    } else {
        println!("plugin   {}", info.id);
        println!("dir      {}", info.directory.display());
        println!(
            "status   {}",
            serde_json::to_value(info.status).unwrap().as_str().unwrap()
        );
        if let Some(e) = &info.error {
            println!("error    {e}");
        }
        println!("hooks");
        for h in &info.registrations.hooks {
            if h.registered_as == h.hook {
                println!("  {:<26} server.{}", h.hook, h.via);
            } else {
                println!("  {:<26} server.{}(\"{}\")", h.hook, h.via, h.registered_as);
            }
        }
        println!("rpc      {}", info.registrations.rpc.join(", "));
        println!("settings {}", info.registrations.settings.join(", "));
        let regs = &info.registrations;
        for (what, list) in [
            ("providers", &regs.providers),
            ("forge", &regs.forge_providers),
            ("usage", &regs.usage_sources),
        ] {
            if !list.is_empty() {
                let ids: Vec<&str> = list.iter().map(|p| p.id.as_str()).collect();
                println!("{what:<8} {}", ids.join(", "));
            }
        }
    }
    Ok(if failed {
        ExitCode::from(1)
    } else {
        ExitCode::SUCCESS
    })
}
