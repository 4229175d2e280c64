//! `paseo`: the command line of the plugin engine. A throwaway host for trying plugins (`hook
//! run`, `plugin inspect`, `rpc call`, `tool list|call`), the reference daemon and the commands
//! that drive it over its control socket, `plugin dev`, `demo` and `bench`.

mod bench;
mod commands;
mod daemon;
mod demo;
mod dev;

use std::io::Read;
use std::path::PathBuf;
use std::process::ExitCode;
use std::sync::Arc;
use std::time::Duration;

use paseo_plugin_runtime::{
    Caller, HostOptions, LogEntry, MemoryDaemon, OpenContext, PluginHost, PluginStatus,
};
use serde_json::{json, Value};

pub(crate) const USAGE: &str = "\
usage:
  paseo hook run --plugin DIR [--plugin DIR ...] [--timeout-ms N] HOOK [INPUT]
      Loads the plugins into a throwaway host, dispatches HOOK once and prints
      {\"ok\":true,\"output\":...} or {\"ok\":false,\"error\":\"...\"} (exit 1).
      INPUT is JSON, @FILE or - (stdin); for request hooks it is the request.
      Plugin log lines go to stderr as [<plugin-id>] <line>.
  paseo plugin inspect DIR [--json]
      Loads a plugin and prints what it registered, or its load error.
  paseo rpc call --plugin DIR [--plugin DIR ...] PLUGIN-ID METHOD [INPUT]
      Loads the plugins and invokes one of their RPC methods; prints the JSON result.
  paseo tool list --plugin DIR [--plugin DIR ...] [--agent JSON]
  paseo tool call --plugin DIR [--plugin DIR ...] [--agent JSON] NAME [INPUT]
      Opens an agent session (agent.open.before with --agent merged over a default
      agent-1 in the current directory), then lists the plugin tools attached to it, or
      calls one (INPUT: JSON, @FILE or -) and prints {\"ok\":true,\"output\":{text,structuredContent,isError}}.

Daemon and its CLI ($PASEO_HOME, default ~/.paseo; control socket $PASEO_HOME/daemon.sock):
  paseo daemon                      run the daemon in the foreground;  paseo daemon stop
  paseo plugin ls [ID] | enable ID | disable ID | reload ID | remove ID
  paseo plugin install SOURCE [--id ID] [--ref GIT_REF] [--path SUBDIR]
      SOURCE: a directory (runs in place), owner/slug or host/owner/slug (the plugin registry,
      $PASEO_PLUGIN_REGISTRY or https://plugins.paseo.sh), npm:<package>[@version], github:owner/repo
      or git:<url>; append :sub/dir for a subfolder. Managed sources are fetched, built and
      placed under $PASEO_HOME/plugins/<id>/ first.
  paseo plugin update ID|--all [--check] [--yes] [--ref GIT_REF | --version NPM_SELECTOR]
      fetches a managed plugin again and swaps the new version in; a failed update keeps the old
      one; --check only says what an update would install; without --ref/--version it asks
      first (--yes answers for scripts)
  paseo plugin logs ID [--follow] | init DIR [--id ID]          (all take --json)
  paseo plugin types DIR            (re)writes the engine's declarations into DIR/.paseo/types
  paseo plugins enable | disable    the global switch (\"pluginsEnabled\" in config.json), applied at once
  paseo plugin dev DIR [--home DIR]  a daemon with that plugin, reloaded on every file change
  paseo demo                         the whole mission in a temporary home, as a readable trace
  paseo workspace create --dir DIR [--title T] [--worktree BRANCH] | ls | archive ID
  paseo agent create [--workspace ID | --cwd DIR] [--provider P] [--title T] [--label K=V]...
                     [--env K=V]... [--prompt TEXT]
      --env applies to the first launch only and is not saved (as in Paseo), so a
      reload or a restart launches without it; plugins add env on every open.
  paseo agent send ID TEXT [--wait] | wait ID | cancel ID | show ID | ls | archive ID | reload ID
                   | close ID      reload and close interrupt a running turn; close keeps the agent
  paseo permission respond AGENT-ID REQUEST-ID allow|deny [--message TEXT]
  paseo provider ls                 built-in agent providers and the ones plugins provide
      (`agent create --provider ID` runs an agent on a plugin's provider)
  paseo forge ls | call PROVIDER METHOD [INPUT]   plugin forge providers (180 s per call)
  paseo usage ls | fetch SOURCE [INPUT] | discover SOURCE [SCOPE]   plugin usage sources
  paseo attachment search PLUGIN METHOD QUERY   an attachment source's search RPC, checked
  The built-in scripted provider reads each message line as a step: say TEXT, run COMMAND
  (asks permission), ask COMMAND (asks and goes on), tool NAME JSON (over MCP), env NAME,
  credits, fail MESSAGE, sleep MS.

The throwaway host answers context.paseo from memory and prints every SDK call a plugin
makes on stderr as [paseo] sdk <method> <json arguments>. Plugin settings and secrets live in
$PASEO_HOME/plugin-settings ($PASEO_HOME defaults to ~/.paseo).
";

/// The daemon's threads hand memory to one another on every call; see Cargo.toml.
#[global_allocator]
static ALLOCATOR: mimalloc::MiMalloc = mimalloc::MiMalloc;

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    // Without PASEO_LOG: errors, and the daemon's own warnings (a torn journal line dropped, a
    // home others may write to, a refused peer), which a user must see to act on.
    let filter = match std::env::var("PASEO_LOG") {
        Ok(directives) => tracing_subscriber::EnvFilter::new(directives),
        Err(_) if args.first().map(String::as_str) == Some("daemon") => {
            tracing_subscriber::EnvFilter::new("error,paseo::daemon=warn")
        }
        Err(_) => tracing_subscriber::EnvFilter::new("error"),
    };
    tracing_subscriber::fmt()
        .with_env_filter(filter)
        .with_writer(std::io::stderr)
        .init();
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .unwrap();
    let result = match args
        .iter()
        .map(String::as_str)
        .collect::<Vec<_>>()
        .as_slice()
    {
        ["hook", "run", rest @ ..] => runtime.block_on(hook_run(rest)),
        ["plugin", "inspect", rest @ ..] => runtime.block_on(plugin_inspect(rest)),
        ["bench", rest @ ..] => runtime.block_on(bench::run(rest)),
        ["rpc", "call", rest @ ..] => runtime.block_on(rpc_call(rest)),
        ["tool", "list", rest @ ..] => runtime.block_on(tool_command(None, rest)),
        ["daemon", rest @ ..] => runtime.block_on(commands::daemon(&paseo_home(), rest)),
        ["demo"] => runtime.block_on(demo::run()),
        ["plugin", "dev", dir, rest @ ..] => {
            let home = commands::Args::parse(rest)
                .value("--home")
                .map(PathBuf::from);
            runtime.block_on(dev::run(std::path::Path::new(dir), home.as_deref()))
        }
        ["plugin", rest @ ..] => runtime.block_on(commands::plugin(&paseo_home(), rest)),
        ["plugins", rest @ ..] => runtime.block_on(commands::plugins_switch(&paseo_home(), rest)),
        ["agent", rest @ ..] => runtime.block_on(commands::agent(&paseo_home(), rest)),
        ["permission", rest @ ..] => runtime.block_on(commands::permission(&paseo_home(), rest)),
        ["workspace", rest @ ..] => runtime.block_on(commands::workspace(&paseo_home(), rest)),
        ["provider", rest @ ..] => runtime.block_on(commands::provider(&paseo_home(), rest)),
        ["forge", rest @ ..] => runtime.block_on(commands::forge(&paseo_home(), rest)),
        ["usage", rest @ ..] => runtime.block_on(commands::usage(&paseo_home(), rest)),
        ["attachment", rest @ ..] => runtime.block_on(commands::attachment(&paseo_home(), rest)),
        ["tool", "call", rest @ ..] => runtime.block_on(tool_command(Some(()), rest)),
        ["help" | "--help" | "-h"] | [] => {
            print!("{USAGE}");
            return ExitCode::SUCCESS;
        }
        _ => Err(format!("unknown command: {}\n{USAGE}", args.join(" "))),
    };
    match result {
        Ok(code) => code,
        Err(message) => {
            eprintln!("paseo: {message}");
            ExitCode::from(2)
        }
    }
}

/// `$PASEO_HOME` (default `~/.paseo`), the daemon's home.
fn paseo_home() -> PathBuf {
    std::env::var_os("PASEO_HOME")
        .map(PathBuf::from)
        .unwrap_or_else(|| {
            PathBuf::from(std::env::var_os("HOME").unwrap_or_else(|| "/".into())).join(".paseo")
        })
}

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

/// Splits `--plugin DIR` options (and `--timeout-ms N`) from the positional arguments.
fn plugin_args<'a>(
    args: &[&'a str],
    options: &mut HostOptions,
) -> Result<(Vec<PathBuf>, Vec<&'a str>), String> {
    let mut plugins = Vec::new();
    let mut positional = Vec::new();
    let mut it = args.iter();
    while let Some(arg) = it.next() {
        match *arg {
            "--plugin" => plugins.push(PathBuf::from(
                it.next().ok_or("--plugin needs a directory")?,
            )),
            "--timeout-ms" => {
                let ms: u64 = it
                    .next()
                    .and_then(|s| s.parse().ok())
                    .ok_or("--timeout-ms needs a number")?;
                options.limits.hook_timeout = Duration::from_millis(ms);
            }
            other => positional.push(other),
        }
    }
    Ok((plugins, positional))
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

async fn hook_run(args: &[&str]) -> Result<ExitCode, String> {
    let (mut options, daemon) = throwaway_host();
    let (plugins, positional) = plugin_args(args, &mut options)?;
    let (hook, input) = match positional.as_slice() {
        [hook] => (*hook, None),
        [hook, input] => (*hook, Some(*input)),
        _ => return Err(format!("hook run needs HOOK [INPUT]\n{USAGE}")),
    };
    let mut input = read_input(input)?;
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
    // The in-memory daemon knows the agent an event is about, so SDK calls on it succeed.
    if payload["agent"].is_object() {
        daemon.add_agent(payload["agent"].clone());
        if hook == "agent.permission.before" {
            daemon.add_pending_permission(
                payload["agent"]["id"].as_str().unwrap_or_default(),
                payload["request"].clone(),
            );
        }
    }
    let outcome = host
        .run_hook(hook, payload, &OpenContext::default())
        .await
        .map_err(|e| e.to_string());
    host.shutdown().await;
    Ok(print_outcome(outcome))
}

async fn rpc_call(args: &[&str]) -> Result<ExitCode, String> {
    let mut options = stderr_logs();
    let (plugins, positional) = plugin_args(args, &mut options)?;
    let (id, method, input) = match positional.as_slice() {
        [id, method] => (*id, *method, None),
        [id, method, input] => (*id, *method, Some(*input)),
        _ => return Err(format!("rpc call needs PLUGIN-ID METHOD [INPUT]\n{USAGE}")),
    };
    let input = read_input(input)?;
    let host = PluginHost::new(options);
    let outcome = match load_plugins(&host, &plugins).await {
        Ok(()) => host
            .call_rpc(id, method, input)
            .await
            .map_err(|e| e.to_string()),
        Err(e) => Err(e),
    };
    host.shutdown().await;
    Ok(print_outcome(outcome))
}

/// Opens a session for `--agent` (merged over a default agent) and lists or calls its tools.
async fn tool_command(call: Option<()>, args: &[&str]) -> Result<ExitCode, String> {
    let (options, _daemon) = throwaway_host();
    let mut options = options;
    let mut agent = None;
    let mut rest = Vec::new();
    let mut it = args.iter();
    while let Some(arg) = it.next() {
        match *arg {
            "--agent" => agent = Some(read_input(Some(it.next().ok_or("--agent needs JSON")?))?),
            other => rest.push(other),
        }
    }
    let (plugins, positional) = plugin_args(&rest, &mut options)?;
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
        match (call, positional.as_slice()) {
            (None, []) => Ok(serde_json::to_value(host.agent_tools(&agent_id)).unwrap()),
            (Some(()), [name]) | (Some(()), [name, _]) => {
                let input = read_input(positional.get(1).copied())?;
                let result = host
                    .call_tool(&agent_id, name, input, std::future::pending())
                    .await
                    .map_err(|e| e.to_string())?;
                Ok(serde_json::to_value(result).unwrap())
            }
            _ => Err(format!("wrong arguments\n{USAGE}")),
        }
    }
    .await;
    host.shutdown().await;
    Ok(print_outcome(outcome))
}

async fn plugin_inspect(args: &[&str]) -> Result<ExitCode, String> {
    let as_json = args.contains(&"--json");
    let dir = args
        .iter()
        .find(|a| !a.starts_with("--"))
        .ok_or(format!("plugin inspect needs DIR\n{USAGE}"))?;
    let host = PluginHost::new(stderr_logs());
    let loaded = host
        .load(std::path::Path::new(dir))
        .await
        .map_err(|e| e.to_string());
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
