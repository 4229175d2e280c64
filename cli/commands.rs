//! CLI commands that talk to the running daemon (`paseo plugin …`, `agent …`, `permission …`,
//! `workspace …`), plus `paseo daemon` itself and `paseo plugin init`.

use std::path::{Path, PathBuf};
use std::process::ExitCode;

use serde_json::{json, Value};

use crate::daemon::{control, Daemon};

/// Flags (`--name value`, repeatable) and positional arguments.
pub struct Args<'a> {
    pub positional: Vec<&'a str>,
    flags: Vec<(&'a str, Option<&'a str>)>,
}

/// Flags that take no value.
const SWITCHES: &[&str] = &["--json", "--follow", "--wait", "--check", "--all", "--yes"];

impl<'a> Args<'a> {
    pub fn parse(args: &[&'a str]) -> Args<'a> {
        let mut positional = Vec::new();
        let mut flags = Vec::new();
        let mut it = args.iter();
        while let Some(arg) = it.next() {
            if arg.starts_with("--") {
                if SWITCHES.contains(arg) {
                    flags.push((*arg, None));
                } else {
                    flags.push((*arg, it.next().copied()));
                }
            } else {
                positional.push(*arg);
            }
        }
        Args { positional, flags }
    }
    pub fn has(&self, flag: &str) -> bool {
        self.flags.iter().any(|(f, _)| *f == flag)
    }
    pub fn value(&self, flag: &str) -> Option<&'a str> {
        self.flags
            .iter()
            .find(|(f, _)| *f == flag)
            .and_then(|(_, v)| *v)
    }
    pub fn values(&self, flag: &str) -> Vec<&'a str> {
        self.flags
            .iter()
            .filter(|(f, _)| *f == flag)
            .filter_map(|(_, v)| *v)
            .collect()
    }
}

fn key_values(items: Vec<&str>) -> Result<Value, String> {
    let mut map = serde_json::Map::new();
    for item in items {
        let (k, v) = item
            .split_once('=')
            .ok_or_else(|| format!("expected KEY=VALUE, got {item}"))?;
        map.insert(k.to_string(), json!(v));
    }
    Ok(Value::Object(map))
}

fn table(headers: &[&str], rows: Vec<Vec<String>>) {
    let mut widths: Vec<usize> = headers.iter().map(|h| h.len()).collect();
    for row in &rows {
        for (i, cell) in row.iter().enumerate() {
            widths[i] = widths[i].max(cell.len());
        }
    }
    let line = |cells: Vec<String>| {
        let text: Vec<String> = cells
            .iter()
            .enumerate()
            .map(|(i, c)| format!("{c:<w$}", w = widths[i]))
            .collect();
        println!("{}", text.join("  ").trim_end());
    };
    line(headers.iter().map(|h| h.to_string()).collect());
    for row in rows {
        line(row);
    }
}

fn cell(v: &Value) -> String {
    match v {
        Value::Null => "-".into(),
        Value::String(s) => s.clone(),
        other => other.to_string(),
    }
}

fn done(result: Result<Value, String>, json_out: bool, human: impl FnOnce(&Value)) -> ExitCode {
    match result {
        Ok(value) => {
            if json_out {
                println!("{}", serde_json::to_string_pretty(&value).unwrap());
            } else {
                human(&value);
            }
            ExitCode::SUCCESS
        }
        Err(error) => {
            if json_out {
                println!("{}", json!({ "error": error }));
            } else {
                eprintln!("error: {error}");
            }
            ExitCode::from(1)
        }
    }
}

/// `paseo daemon [stop]`: runs the daemon in the foreground until `paseo daemon stop`.
pub async fn daemon(home: &Path, args: &[&str]) -> Result<ExitCode, String> {
    if args.first() == Some(&"stop") {
        control::request(home, "daemon.stop", json!({})).await?;
        return Ok(ExitCode::SUCCESS);
    }
    let daemon = Daemon::start(home.to_path_buf()).await?;
    eprintln!(
        "paseo daemon: listening on {} (home {})",
        control::socket_path(home).display(),
        home.display()
    );
    let serve = control::serve(daemon.clone());
    tokio::select! {
        result = serve => result?,
        _ = tokio::signal::ctrl_c() => daemon.shutdown().await,
    }
    Ok(ExitCode::SUCCESS)
}

pub async fn plugin(home: &Path, args: &[&str]) -> Result<ExitCode, String> {
    let a = Args::parse(args);
    let json_out = a.has("--json");
    let id = a.positional.get(1).copied();
    let need_id = || id.ok_or_else(|| "this command needs a plugin id".to_string());
    Ok(match a.positional.first().copied() {
        Some("ls" | "status") => {
            let rows = control::request(home, "plugin.ls", json!({}))
                .await
                .map(|v| {
                    let rows: Vec<Value> = v
                        .as_array()
                        .cloned()
                        .unwrap_or_default()
                        .into_iter()
                        .filter(|r| id.is_none_or(|i| r["id"] == i))
                        .collect();
                    json!(rows)
                });
            done(rows, json_out, |rows| {
                table(
                    &[
                        "PLUGIN",
                        "STATUS",
                        "ENABLED",
                        "SOURCE",
                        "REVISION",
                        "DIRECTORY",
                        "ERROR",
                    ],
                    rows.as_array()
                        .unwrap()
                        .iter()
                        .map(|r| {
                            [
                                "id",
                                "status",
                                "enabled",
                                "source",
                                "revision",
                                "directory",
                                "error",
                            ]
                            .iter()
                            .map(|k| cell(&r[*k]))
                            .collect()
                        })
                        .collect(),
                )
            })
        }
        Some("install" | "add") => {
            let source = id.ok_or("plugin install needs a source: a directory, owner/slug, npm:<package>, github:owner/repo or git:<url>")?;
            eprintln!("Trusting plugin code: server code and preparation commands run unsandboxed on the daemon host; client code runs inside Paseo. Dependencies and future updates are part of the codebase you trust.");
            // As in Paseo, a directory is a source that looks like a path (`./`, `../`, `/`,
            // `~`), with an optional `:sub/dir`; a bare `owner/slug` is the registry's even
            // when a folder of that name is here. The daemon parses everything else.
            let params = if let Some((dir, sub)) = directory_source(source) {
                if a.value("--ref").is_some() {
                    return Err("Plugin --ref is only valid for Git sources".into());
                }
                let dir = match dir.strip_prefix("~") {
                    Some(rest) => PathBuf::from(std::env::var_os("HOME").unwrap_or_default())
                        .join(rest.trim_start_matches('/')),
                    None => PathBuf::from(dir),
                };
                // A folder that is not there is the daemon's to report, in Paseo's words.
                let path = std::fs::canonicalize(&dir).unwrap_or_else(|_| {
                    std::env::current_dir()
                        .map(|cwd| cwd.join(&dir))
                        .unwrap_or(dir)
                });
                let path = match sub.or(a.value("--path")) {
                    Some(sub) => path.join(sub),
                    None => path,
                };
                json!({ "path": path, "id": a.value("--id") })
            } else {
                json!({ "source": source, "id": a.value("--id"), "ref": a.value("--ref"), "subpath": a.value("--path") })
            };
            let started = std::time::Instant::now();
            let result = control::request_with_progress(home, "plugin.install", params, |line| {
                eprintln!("  {line}  ({:.1} s)", started.elapsed().as_secs_f64())
            })
            .await;
            done(result, json_out, |v| {
                println!("Installed plugin {}", cell(&v["id"]))
            })
        }
        Some("update") => {
            let started = std::time::Instant::now();
            let params = json!({
                "id": id, "all": a.has("--all"), "check": a.has("--check"),
                "ref": a.value("--ref"), "version": a.value("--version"),
            });
            // As in Paseo: an update to whatever is newest is shown first and applied only when
            // confirmed (`--yes`, or `y` at a terminal); an explicit --ref/--version applies.
            let explicit = a.value("--ref").is_some() || a.value("--version").is_some();
            if !a.has("--check") && !explicit && !a.has("--yes") {
                let preview = json!({ "id": id, "all": a.has("--all"), "check": true });
                let preview =
                    match control::request_with_progress(home, "plugin.update", preview, |_| {})
                        .await
                    {
                        Ok(preview) => preview,
                        Err(e) => return Ok(done(Err(e), json_out, |_| {})),
                    };
                let rows = match &preview {
                    Value::Array(rows) => rows.clone(),
                    one => vec![one.clone()],
                };
                let pending: Vec<&Value> =
                    rows.iter().filter(|r| r["status"] == "update").collect();
                for r in &rows {
                    match (r["status"].as_str(), r["error"].as_str()) {
                        (_, Some(error)) => eprintln!("{}: {error}", cell(&r["id"])),
                        (Some("current"), _) => {
                            eprintln!("{}: up to date ({})", cell(&r["id"]), cell(&r["revision"]))
                        }
                        _ => eprintln!(
                            "{}: {} → {}",
                            cell(&r["id"]),
                            cell(&r["revision"]),
                            cell(&r["target"])
                        ),
                    }
                }
                if pending.is_empty() {
                    return Ok(done(Ok(preview), json_out, |_| {}));
                }
                use std::io::IsTerminal;
                if json_out || !std::io::stdin().is_terminal() {
                    let refused = Err("Confirmation required; rerun with --yes.".to_string());
                    return Ok(done(refused, json_out, |_| {}));
                }
                let question = if pending.len() == 1 && !a.has("--all") {
                    format!("Update {}? [y/N] ", cell(&pending[0]["id"]))
                } else {
                    "Update these plugins? [y/N] ".to_string()
                };
                eprint!("{question}");
                let mut answer = String::new();
                let _ = std::io::stdin().read_line(&mut answer);
                if !matches!(answer.trim(), "y" | "Y" | "yes") {
                    eprintln!("Not updated");
                    return Ok(ExitCode::SUCCESS);
                }
            }
            let result = control::request_with_progress(home, "plugin.update", params, |line| {
                eprintln!("  {line}  ({:.1} s)", started.elapsed().as_secs_f64())
            })
            .await;
            done(result, json_out, |v| {
                let rows = match v {
                    Value::Array(rows) => rows.clone(),
                    one => vec![one.clone()],
                };
                for v in rows {
                    if let Some(error) = v["error"].as_str() {
                        println!("{}: {error}", cell(&v["id"]));
                    } else if let Some(status) = v["status"].as_str() {
                        let what = if status == "current" {
                            "up to date".to_string()
                        } else {
                            format!("-> {}", cell(&v["target"]))
                        };
                        println!("{}: {} {what}", cell(&v["id"]), cell(&v["revision"]));
                    } else {
                        println!(
                            "Updated plugin {}: {} -> {}",
                            cell(&v["id"]),
                            cell(&v["previous"]),
                            cell(&v["revision"])
                        );
                    }
                    if let Some(w) = v["warning"].as_str() {
                        eprintln!("{w}");
                    }
                }
            })
        }
        Some(verb @ ("enable" | "disable" | "reload" | "remove")) => {
            let result =
                control::request(home, &format!("plugin.{verb}"), json!({ "id": need_id()? }))
                    .await;
            done(result, json_out, |_| {
                println!("{} plugin {}", capitalise(verb), id.unwrap())
            })
        }
        Some("logs") => {
            if a.has("--follow") {
                control::stream(home, "plugin.logs", json!({ "id": need_id()?, "follow": true }), |line| {
                    if let Some(skipped) = line["gap"].as_u64() {
                        eprintln!("paseo: the log stream outran this follower; up to {skipped} entries were skipped");
                        return Ok(());
                    }
                    let e = &line["log"];
                    if json_out {
                        println!("{e}");
                    } else {
                        println!("{}  {:<6}  {}", cell(&e["timestamp"]), cell(&e["stream"]), cell(&e["message"]));
                    }
                    Ok(())
                })
                .await?;
                ExitCode::SUCCESS
            } else {
                let result =
                    control::request(home, "plugin.logs", json!({ "id": need_id()? })).await;
                done(result, json_out, |v| {
                    table(
                        &["TIME", "STREAM", "MESSAGE"],
                        v.as_array()
                            .unwrap()
                            .iter()
                            .map(|e| {
                                vec![
                                    cell(&e["timestamp"]),
                                    cell(&e["stream"]),
                                    cell(&e["message"]),
                                ]
                            })
                            .collect(),
                    )
                })
            }
        }
        Some("init") => init(
            Path::new(id.ok_or("plugin init needs a directory")?),
            a.value("--id"),
        )?,
        Some("types") => {
            let dir = Path::new(id.ok_or("plugin types needs a plugin directory")?);
            write_types(dir)?;
            println!(
                "Wrote the Paseo plugin declarations to {}",
                dir.join(".paseo/types").display()
            );
            ExitCode::SUCCESS
        }
        _ => return Err(format!("unknown plugin command\n{}", crate::USAGE)),
    })
}

/// `paseo plugins enable|disable`: Paseo's global plugin switch.
pub async fn plugins_switch(home: &Path, args: &[&str]) -> Result<ExitCode, String> {
    let a = Args::parse(args);
    let on = match a.positional.first().copied() {
        Some("enable") => true,
        Some("disable") => false,
        _ => return Err(format!("plugins needs enable or disable\n{}", crate::USAGE)),
    };
    let result = control::request(
        home,
        if on {
            "plugins.enable"
        } else {
            "plugins.disable"
        },
        json!({}),
    )
    .await;
    Ok(done(result, a.has("--json"), |_| {
        println!("Plugins {}", if on { "enabled" } else { "disabled" })
    }))
}

fn capitalise(verb: &str) -> String {
    let past = match verb {
        "enable" => "Enabled",
        "disable" => "Disabled",
        "reload" => "Reloaded",
        _ => "Removed",
    };
    past.to_string()
}

/// `paseo plugin init <dir> [--id <id>]`: a plugin to start from.
fn init(dir: &Path, id: Option<&str>) -> Result<ExitCode, String> {
    let id = id.map(str::to_string).unwrap_or_else(|| {
        dir.file_name()
            .map(|n| n.to_string_lossy().to_lowercase())
            .unwrap_or_default()
    });
    paseo_plugin_runtime::host::manifest::check_plugin_id(&id)
        .map_err(|e| format!("{e} (choose one with --id)"))?;
    if dir.join("paseo-plugin.json").exists() {
        return Err(format!("{} already has a paseo-plugin.json", dir.display()));
    }
    std::fs::create_dir_all(dir.join("server")).map_err(|e| e.to_string())?;
    let files = [
        ("paseo-plugin.json", format!("{{\n  \"id\": \"{id}\",\n  \"description\": \"Describe what {id} does.\",\n  \"requirements\": {{ \"paseo\": \">={}\" }}\n}}\n", paseo_plugin_runtime::PASEO_VERSION)),
        ("index.server.ts", INIT_ENTRY.to_string()),
        ("server/greeting.ts", "export function greeting(cwd: string): string {\n  return `hello from ${cwd}`;\n}\n".to_string()),
        ("request.json", SAMPLE_OPEN_REQUEST.to_string()),
    ];
    for (name, text) in files {
        std::fs::write(dir.join(name), text).map_err(|e| e.to_string())?;
    }
    // An editor and `tsc --noEmit` resolve `@getpaseo/plugin*` to the engine's declarations.
    for (name, text) in [
        ("package.json", init_package_json(&id)),
        ("tsconfig.json", INIT_TSCONFIG.to_string()),
    ] {
        if !dir.join(name).exists() {
            std::fs::write(dir.join(name), text).map_err(|e| e.to_string())?;
        }
    }
    write_types(dir)?;
    println!("Created plugin {id} in {}", dir.display());
    println!(
        "Types: npm install in {} (typescript, zod), then npx tsc",
        dir.display()
    );
    println!(
        "Try it: paseo hook run --plugin {0} agent.open.before @{0}/request.json",
        dir.display()
    );
    println!("Edit and retry: paseo plugin dev {}", dir.display());
    Ok(ExitCode::SUCCESS)
}

/// The engine's declarations for plugin authors (types/), by their path under a plugin's
/// `.paseo/types/`: what `@getpaseo/plugin`, `@getpaseo/plugin/server`, `@getpaseo/client` and
/// `@getpaseo/protocol/agent-types` resolve to through the `paths` of the tsconfig that
/// `plugin init` writes.
const TYPES: &[(&str, &str)] = &[
    (
        "hooks.generated.d.ts",
        include_str!("../types/hooks.generated.d.ts"),
    ),
    (
        "plugin/index.d.ts",
        include_str!("../types/plugin/index.d.ts"),
    ),
    (
        "plugin/server.d.ts",
        include_str!("../types/plugin/server.d.ts"),
    ),
    (
        "plugin/paseo.d.ts",
        include_str!("../types/plugin/paseo.d.ts"),
    ),
    (
        "plugin/provider.d.ts",
        include_str!("../types/plugin/provider.d.ts"),
    ),
    (
        "plugin/forge-toolkit.d.ts",
        include_str!("../types/plugin/forge-toolkit.d.ts"),
    ),
    (
        "plugin/usage.d.ts",
        include_str!("../types/plugin/usage.d.ts"),
    ),
    ("plugin/acp.d.ts", include_str!("../types/plugin/acp.d.ts")),
    (
        "protocol/agent-types.d.ts",
        include_str!("../types/protocol/agent-types.d.ts"),
    ),
    (
        "protocol/agent-labels.d.ts",
        include_str!("../types/protocol/agent-labels.d.ts"),
    ),
];

/// Writes (or refreshes) the declarations into `<dir>/.paseo/types/`.
pub fn write_types(dir: &Path) -> Result<(), String> {
    let root = dir.join(".paseo/types");
    for (name, text) in TYPES {
        let path = root.join(name);
        std::fs::create_dir_all(path.parent().unwrap()).map_err(|e| e.to_string())?;
        std::fs::write(&path, text).map_err(|e| format!("Cannot write {}: {e}", path.display()))?;
    }
    Ok(())
}

fn init_package_json(id: &str) -> String {
    let package = json!({
        "name": id,
        "private": true,
        "type": "module",
        "scripts": { "typecheck": "tsc" },
        "devDependencies": { "@types/node": "^20.19.0", "typescript": "^5.9.3", "zod": "^4.1.12" },
    });
    format!("{}\n", serde_json::to_string_pretty(&package).unwrap())
}

const INIT_TSCONFIG: &str = r#"{
  // `@getpaseo/plugin*` resolve to the declarations in .paseo/types, which `paseo plugin init`
  // wrote and `paseo plugin types .` refreshes after an upgrade of paseo.
  "compilerOptions": {
    "strict": true,
    "noEmit": true,
    "target": "ES2023",
    "lib": ["ES2023"],
    "module": "ESNext",
    "moduleResolution": "Bundler",
    "allowImportingTsExtensions": true,
    "skipLibCheck": true,
    "types": ["node"],
    "paths": {
      "@getpaseo/plugin": ["./.paseo/types/plugin/index.d.ts"],
      "@getpaseo/plugin/server": ["./.paseo/types/plugin/server.d.ts"],
      "@getpaseo/plugin/server/provider": ["./.paseo/types/plugin/provider.d.ts"],
      "@getpaseo/plugin/server/forge-toolkit": ["./.paseo/types/plugin/forge-toolkit.d.ts"],
      "@getpaseo/plugin/server/usage": ["./.paseo/types/plugin/usage.d.ts"],
      "@getpaseo/plugin/server/acp": ["./.paseo/types/plugin/acp.d.ts"],
      "@getpaseo/client": ["./.paseo/types/plugin/paseo.d.ts"],
      "@getpaseo/protocol/agent-types": ["./.paseo/types/protocol/agent-types.d.ts"],
      "@getpaseo/protocol/agent-labels": ["./.paseo/types/protocol/agent-labels.d.ts"]
    }
  },
  "include": ["**/*.ts", "**/*.tsx", ".paseo/types/**/*.d.ts"],
  "exclude": ["node_modules"]
}
"#;

const SAMPLE_OPEN_REQUEST: &str = r#"{
  "agentId": "agent-123",
  "workspaceId": "workspace-456",
  "provider": "codex",
  "cwd": "/projects/shop",
  "title": "Workspace notes",
  "labels": {},
  "tools": [],
  "mcpServers": {},
  "reason": "create",
  "purpose": "interactive",
  "env": {}
}
"#;

const INIT_ENTRY: &str = r#"import type { PluginServerContext } from "@getpaseo/plugin/server";
import { greeting } from "./server/greeting";

export default function contribute(server: PluginServerContext) {
  const remove = server.addHook("agent.open.before", async ({ request }) => ({
    ...request,
    env: { ...request.env, GREETING: greeting(request.cwd) },
  }));
  return remove;
}
"#;

pub async fn agent(home: &Path, args: &[&str]) -> Result<ExitCode, String> {
    let a = Args::parse(args);
    let json_out = a.has("--json");
    let id = a.positional.get(1).copied();
    let need_id = || id.ok_or_else(|| "this command needs an agent id".to_string());
    let show = |v: &Value| print_agent(v);
    Ok(match a.positional.first().copied() {
        Some("create") => {
            let params = json!({
                "workspaceId": a.value("--workspace"),
                "cwd": a.value("--cwd").map(|c| std::fs::canonicalize(c).map(|p| p.to_string_lossy().into_owned()).unwrap_or(c.to_string())),
                "provider": a.value("--provider").unwrap_or("scripted"),
                "title": a.value("--title"),
                "prompt": a.value("--prompt"),
                "labels": key_values(a.values("--label"))?,
                "env": key_values(a.values("--env"))?,
            });
            done(
                control::request(home, "agent.create", params).await,
                json_out,
                show,
            )
        }
        Some("send") => {
            let text = a.positional.get(2).ok_or("agent send needs ID TEXT")?;
            let result = control::request(
                home,
                "agent.send",
                json!({ "id": need_id()?, "text": text, "wait": a.has("--wait") }),
            )
            .await;
            done(result, json_out, show)
        }
        Some("cancel") => done(
            control::request(home, "agent.cancel", json!({ "id": need_id()? })).await,
            json_out,
            show,
        ),
        Some("close") => done(
            control::request(home, "agent.close", json!({ "id": need_id()? })).await,
            json_out,
            show,
        ),
        Some("wait") => done(
            control::request(home, "agent.wait", json!({ "id": need_id()? })).await,
            json_out,
            show,
        ),
        Some("show") => done(
            control::request(home, "agent.show", json!({ "id": need_id()? })).await,
            json_out,
            show,
        ),
        Some("ls") => done(
            control::request(home, "agent.ls", json!({})).await,
            json_out,
            |v| {
                table(
                    &["AGENT", "PROVIDER", "STATUS", "WORKSPACE", "CWD", "TITLE"],
                    v.as_array()
                        .unwrap()
                        .iter()
                        .map(|r| {
                            ["id", "provider", "status", "workspaceId", "cwd", "title"]
                                .iter()
                                .map(|k| cell(&r[*k]))
                                .collect()
                        })
                        .collect(),
                )
            },
        ),
        Some("archive") => done(
            control::request(home, "agent.archive", json!({ "id": need_id()? })).await,
            json_out,
            |v| println!("Archived at {}", cell(&v["archivedAt"])),
        ),
        Some("reload") => done(
            control::request(home, "agent.reload", json!({ "id": need_id()? })).await,
            json_out,
            show,
        ),
        _ => return Err(format!("unknown agent command\n{}", crate::USAGE)),
    })
}

fn print_agent(v: &Value) {
    println!(
        "agent     {}  ({}, {})",
        cell(&v["id"]),
        cell(&v["provider"]),
        cell(&v["status"])
    );
    println!("cwd       {}", cell(&v["cwd"]));
    if let Some(launch) = v["launch"].as_object() {
        println!(
            "opened    {} with env {} tools {}",
            cell(&launch["reason"]),
            launch["env"],
            launch["tools"]
        );
    }
    for p in v["pendingPermissions"].as_array().into_iter().flatten() {
        println!("pending   {} {}", cell(&p["id"]), cell(&p["title"]));
    }
    let shown = v["timeline"].as_array().map_or(0, Vec::len) as u64;
    let earlier = v["timelineLength"]
        .as_u64()
        .unwrap_or(shown)
        .saturating_sub(shown);
    if earlier > 0 {
        println!("  … {earlier} earlier timeline items (plugins page through them with timeline.refetch)");
    }
    for item in v["timeline"].as_array().into_iter().flatten() {
        let text = match item["type"].as_str() {
            Some("user_message") => format!("user: {}", cell(&item["text"])),
            Some("assistant_message") => format!("agent: {}", cell(&item["text"])),
            Some("error") => format!("error: {}", cell(&item["message"])),
            Some("tool_call") => {
                let what = item["detail"]["command"]
                    .as_str()
                    .or(item["detail"]["output"].as_str())
                    .unwrap_or_default();
                let why = item["error"]
                    .as_str()
                    .map(|e| format!(" ({e})"))
                    .unwrap_or_default();
                format!(
                    "tool {} {}: {what}{why}",
                    cell(&item["name"]),
                    cell(&item["status"])
                )
            }
            Some("plugin") => format!("plugin {}: {}", cell(&item["pluginId"]), item["data"]),
            _ => item.to_string(),
        };
        println!("  {text}");
    }
}

pub async fn permission(home: &Path, args: &[&str]) -> Result<ExitCode, String> {
    let a = Args::parse(args);
    match a.positional.as_slice() {
        ["respond", agent, request, behavior] => {
            let result = control::request(home, "permission.respond", json!({ "agentId": agent, "requestId": request, "behavior": behavior, "message": a.value("--message") })).await;
            Ok(done(result, a.has("--json"), |_| {
                println!("Answered {request}: {behavior}")
            }))
        }
        _ => Err(format!(
            "usage: paseo permission respond AGENT-ID REQUEST-ID allow|deny [--message TEXT]\n{}",
            crate::USAGE
        )),
    }
}

pub async fn workspace(home: &Path, args: &[&str]) -> Result<ExitCode, String> {
    let a = Args::parse(args);
    let json_out = a.has("--json");
    let print_ws = |v: &Value| {
        println!(
            "workspace {}  {}{}",
            cell(&v["id"]),
            cell(&v["cwd"]),
            v["worktree"]["branch"]
                .as_str()
                .map(|b| format!("  (worktree, branch {b})"))
                .unwrap_or_default()
        )
    };
    Ok(match a.positional.first().copied() {
        Some("create") => {
            let dir = a.value("--dir").ok_or("workspace create needs --dir DIR")?;
            let dir =
                std::fs::canonicalize(dir).map_err(|_| format!("Directory not found: {dir}"))?;
            let params = json!({ "dir": dir, "title": a.value("--title"), "worktree": a.value("--worktree") });
            done(
                control::request(home, "workspace.create", params).await,
                json_out,
                print_ws,
            )
        }
        Some("ls") => done(
            control::request(home, "workspace.ls", json!({})).await,
            json_out,
            |v| {
                table(
                    &["WORKSPACE", "PROJECT", "DIRECTORY", "TITLE", "ARCHIVED"],
                    v.as_array()
                        .unwrap()
                        .iter()
                        .map(|r| {
                            ["id", "projectId", "cwd", "name", "archivedAt"]
                                .iter()
                                .map(|k| cell(&r[*k]))
                                .collect()
                        })
                        .collect(),
                )
            },
        ),
        Some("archive") => {
            let id = a.positional.get(1).ok_or("workspace archive needs an id")?;
            done(
                control::request(home, "workspace.archive", json!({ "id": id })).await,
                json_out,
                |v| println!("Archived {}", cell(&v["id"])),
            )
        }
        _ => return Err(format!("unknown workspace command\n{}", crate::USAGE)),
    })
}

/// `paseo provider ls`: the built-in agent providers and the ones plugins provide.
pub async fn provider(home: &Path, args: &[&str]) -> Result<ExitCode, String> {
    let a = Args::parse(args);
    match a.positional.as_slice() {
        ["ls"] => Ok(done(
            control::request(home, "provider.ls", json!({})).await,
            a.has("--json"),
            |v| {
                let rows = v.as_array().unwrap().iter().map(|r| {
                    let plugin = if r["builtin"] == true {
                        "(built-in)".into()
                    } else {
                        cell(&r["plugin"])
                    };
                    vec![
                        cell(&r["id"]),
                        cell(&r["label"]),
                        plugin,
                        cell(&r["description"]),
                    ]
                });
                table(
                    &["PROVIDER", "LABEL", "PLUGIN", "DESCRIPTION"],
                    rows.collect(),
                )
            },
        )),
        _ => Err(format!(
            "usage: paseo provider ls [--json]\n{}",
            crate::USAGE
        )),
    }
}

/// Prints what plugins provide of one kind (`forge ls`, `usage ls`).
fn provided_table(v: &Value, first: &str) {
    let rows = v
        .as_array()
        .unwrap()
        .iter()
        .map(|r| vec![cell(&r["id"]), cell(&r["label"]), cell(&r["plugin"])]);
    table(&[first, "LABEL", "PLUGIN"], rows.collect())
}

/// `paseo forge ls` and `paseo forge call PROVIDER METHOD [INPUT]`.
pub async fn forge(home: &Path, args: &[&str]) -> Result<ExitCode, String> {
    let a = Args::parse(args);
    let json_out = a.has("--json");
    match a.positional.as_slice() {
        ["ls"] => Ok(done(
            control::request(home, "forge.ls", json!({})).await,
            json_out,
            |v| provided_table(v, "FORGE"),
        )),
        ["call", provider, method, rest @ ..] if rest.len() <= 1 => {
            let input = crate::read_input(rest.first().copied())?;
            let params = json!({ "provider": provider, "method": method, "input": input });
            let result = control::request(home, "forge.call", params).await;
            // A forge error is the method's outcome: printed with its kind, exit 1.
            if let Ok(answer) = &result {
                if let Some(error) = answer.get("error") {
                    if json_out {
                        println!("{}", serde_json::to_string_pretty(answer).unwrap());
                    } else {
                        let kind = error["kind"]
                            .as_str()
                            .map(|k| format!(" ({k})"))
                            .unwrap_or_default();
                        eprintln!("error: {}{kind}", cell(&error["message"]));
                    }
                    return Ok(ExitCode::from(1));
                }
            }
            Ok(done(result, json_out, |v| {
                println!("{}", serde_json::to_string_pretty(&v["output"]).unwrap())
            }))
        }
        _ => Err(format!(
            "usage: paseo forge ls | call PROVIDER METHOD [INPUT] [--json]\n{}",
            crate::USAGE
        )),
    }
}

/// `paseo usage ls` and `paseo usage fetch|discover|identify SOURCE [INPUT]`.
pub async fn usage(home: &Path, args: &[&str]) -> Result<ExitCode, String> {
    let a = Args::parse(args);
    let json_out = a.has("--json");
    match a.positional.as_slice() {
        ["ls"] => Ok(done(
            control::request(home, "usage.ls", json!({})).await,
            json_out,
            |v| provided_table(v, "SOURCE"),
        )),
        [call @ ("fetch" | "discover" | "identify"), source, rest @ ..] if rest.len() <= 1 => {
            let input = match rest.first() {
                Some(arg) => crate::read_input(Some(arg))?,
                None if *call == "discover" => json!({ "kind": "global" }),
                None => json!({}),
            };
            let params = json!({ "source": source, "call": call, "input": input });
            Ok(done(
                control::request(home, "usage.call", params).await,
                json_out,
                |v| println!("{}", serde_json::to_string_pretty(v).unwrap()),
            ))
        }
        _ => Err(format!(
            "usage: paseo usage ls | fetch SOURCE [INPUT] | discover SOURCE [SCOPE] [--json]\n{}",
            crate::USAGE
        )),
    }
}

/// `paseo attachment search PLUGIN METHOD QUERY`: an attachment source's search, as the app
/// runs it (the plugin's search RPC with `{ query }`, its result checked).
pub async fn attachment(home: &Path, args: &[&str]) -> Result<ExitCode, String> {
    let a = Args::parse(args);
    match a.positional.as_slice() {
        ["search", plugin, method, query] => {
            let params = json!({ "plugin": plugin, "method": method, "query": query });
            Ok(done(
                control::request(home, "attachment.search", params).await,
                a.has("--json"),
                |v| {
                    let rows = v["items"].as_array().into_iter().flatten().map(|i| {
                        ["identifier", "title", "resourceType", "url"]
                            .iter()
                            .map(|k| cell(&i[*k]))
                            .collect()
                    });
                    table(&["ITEM", "TITLE", "TYPE", "URL"], rows.collect())
                },
            ))
        }
        _ => Err(format!(
            "usage: paseo attachment search PLUGIN METHOD QUERY [--json]\n{}",
            crate::USAGE
        )),
    }
}

/// A directory source as Paseo recognises one: it looks like a path, and may end with
/// `:relative/sub/dir`. `None` for anything else (registry, npm, Git).
fn directory_source(source: &str) -> Option<(&str, Option<&str>)> {
    let looks_like_path = source.starts_with("./")
        || source.starts_with("../")
        || source.starts_with('/')
        || source.starts_with('~')
        || source == "."
        || source == "..";
    if !looks_like_path {
        return None;
    }
    match source.rsplit_once(':') {
        Some((dir, sub))
            if !sub.is_empty()
                && !sub.starts_with('/')
                && sub.split('/').all(|s| !s.is_empty() && s != "..")
                && !std::path::Path::new(source).exists() =>
        {
            Some((dir, Some(sub)))
        }
        _ => Some((source, None)),
    }
}

#[cfg(test)]
mod tests {
    use super::directory_source;

    #[test]
    fn a_directory_source_looks_like_a_path() {
        assert_eq!(directory_source("./p"), Some(("./p", None)));
        assert_eq!(
            directory_source("/abs/repo:plugins/p"),
            Some(("/abs/repo", Some("plugins/p")))
        );
        assert_eq!(directory_source("~/p"), Some(("~/p", None)));
        // A registry ID, an npm package and Git stay the daemon's to parse, whatever folder
        // of that name is here.
        assert_eq!(directory_source("acme/greeter"), None);
        assert_eq!(directory_source("examples"), None);
        assert_eq!(directory_source("git:file:///r:sub"), None);
        // `..` may not climb out of the source.
        assert_eq!(
            directory_source("/abs/repo:../x"),
            Some(("/abs/repo:../x", None))
        );
    }
}
