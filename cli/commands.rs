//! CLI commands that talk to the running daemon (`paseo plugin …`, `agent …`, `permission …`,
//! `workspace …`, `provider …`, `forge …`, `usage …`, `attachment …`), plus `paseo daemon`
//! itself. Their arguments are in `args.rs`, how they print in `output.rs`.

use std::path::{Path, PathBuf};
use std::process::ExitCode;

use serde_json::{json, Value};

use crate::args::{
    AgentCommand, AttachmentCommand, ForgeCommand, GrantFlags, ListCommand, PermissionCommand,
    PluginCommand, SwitchCommand, UsageCommand, WorkspaceCommand,
};
use crate::daemon::control::{self, Method};
use crate::daemon::Daemon;
use crate::output::{
    cell, done, print_agent, print_audit, print_policy, print_quotas, print_stats, provided_table,
    table,
};
use paseo_plugin_runtime::permissions::Policy;

fn key_values(items: &[String]) -> Result<Value, String> {
    let mut map = serde_json::Map::new();
    for item in items {
        let (k, v) = item
            .split_once('=')
            .ok_or_else(|| format!("expected KEY=VALUE, got {item}"))?;
        map.insert(k.to_string(), json!(v));
    }
    Ok(Value::Object(map))
}

/// `paseo daemon [stop] [--metrics ADDR]`: runs the daemon in the foreground until `paseo
/// daemon stop`.
pub async fn daemon(
    home: &Path,
    stop: bool,
    metrics: Option<std::net::SocketAddr>,
    inspect: Option<(std::net::SocketAddr, paseo_plugin_runtime::InspectOptions)>,
    record: Option<PathBuf>,
) -> Result<ExitCode, String> {
    if stop {
        control::request(home, Method::DaemonStop, json!({})).await?;
        return Ok(ExitCode::SUCCESS);
    }
    if let Some(addr) = metrics {
        crate::daemon::metrics::check(addr)?;
    }
    if inspect.is_some() {
        crate::daemon::inspector::check_engine()?;
    }
    let record_dir = record
        .map(|dir| {
            std::path::absolute(&dir).map_err(|e| format!("--record {}: {e}", dir.display()))
        })
        .transpose()?;
    let startup = crate::daemon::Startup {
        record_dir: record_dir.clone(),
        inspect,
    };
    let daemon = Daemon::start_with(home.to_path_buf(), startup).await?;
    eprintln!(
        "paseo daemon: listening on {} (home {})",
        control::socket_path(home).display(),
        home.display()
    );
    if let Some(dir) = record_dir {
        eprintln!(
            "paseo daemon: recording every plugin's hook calls to {}/<plugin-id>.jsonl (env values and secrets redacted)",
            dir.display()
        );
    }
    if let Some(addr) = metrics {
        let served = crate::daemon::metrics::serve(daemon.clone(), home, addr).await;
        let (bound, token) = match served {
            Ok(served) => served,
            Err(e) => {
                daemon.shutdown().await;
                return Err(e);
            }
        };
        eprintln!(
            "paseo daemon: metrics on http://{bound}/metrics (bearer token in {})",
            token.display()
        );
    }
    let serve = control::serve(daemon.clone());
    tokio::select! {
        result = serve => result?,
        _ = tokio::signal::ctrl_c() => daemon.shutdown().await,
    }
    Ok(ExitCode::SUCCESS)
}

pub async fn plugin(
    home: &Path,
    command: PluginCommand,
    json_out: bool,
) -> Result<ExitCode, String> {
    Ok(match command {
        PluginCommand::Inspect { dir } => crate::throwaway::plugin_inspect(&dir, json_out).await?,
        PluginCommand::Dev { dir, home, inspect } => {
            crate::dev::run(&dir, home.as_deref(), inspect.chosen()).await?
        }
        PluginCommand::Ls { id } => {
            let rows = control::request(home, Method::PluginLs, json!({}))
                .await
                .map(|v| {
                    let rows: Vec<Value> = v
                        .as_array()
                        .cloned()
                        .unwrap_or_default()
                        .into_iter()
                        .filter(|r| id.as_ref().is_none_or(|i| r["id"] == *i))
                        .collect();
                    json!(rows)
                });
            done(rows, json_out, |rows| {
                table(
                    &[
                        "PLUGIN",
                        "STATUS",
                        "ENABLED",
                        "ACCESS",
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
                                "access",
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
        PluginCommand::Install {
            source,
            id,
            git_ref,
            path,
            sandbox,
        } => {
            if sandbox {
                eprintln!("Sandboxed: the plugin's server code may read its own folder and read and write its data, nothing else (`paseo plugin allow` grants more). Its preparation commands still run with your rights.");
            } else {
                eprintln!("Trusting plugin code: server code and preparation commands run unsandboxed on the daemon host; client code runs inside Paseo. Dependencies and future updates are part of the codebase you trust.");
            }
            // As in Paseo, a directory is a source that looks like a path (`./`, `../`, `/`,
            // `~`), with an optional `:sub/dir`; a bare `owner/slug` is the registry's even
            // when a folder of that name is here. The daemon parses everything else.
            let params = if let Some((dir, sub)) = directory_source(&source) {
                if git_ref.is_some() {
                    return Err("Plugin --ref is only valid for Git sources".into());
                }
                let dir = match dir.strip_prefix("~") {
                    Some(rest) => PathBuf::from(std::env::var_os("HOME").unwrap_or_default())
                        .join(rest.trim_start_matches('/')),
                    None => PathBuf::from(dir),
                };
                // A folder that is not there is the daemon's to report, in Paseo's words.
                let dir_path = std::fs::canonicalize(&dir).unwrap_or_else(|_| {
                    std::env::current_dir()
                        .map(|cwd| cwd.join(&dir))
                        .unwrap_or(dir)
                });
                let dir_path = match sub.or(path.as_deref()) {
                    Some(sub) => dir_path.join(sub),
                    None => dir_path,
                };
                json!({ "path": dir_path, "id": id, "sandbox": sandbox })
            } else {
                json!({ "source": source, "id": id, "ref": git_ref, "subpath": path, "sandbox": sandbox })
            };
            let started = std::time::Instant::now();
            let result =
                control::request_with_progress(home, Method::PluginInstall, params, |line| {
                    eprintln!("  {line}  ({:.1} s)", started.elapsed().as_secs_f64())
                })
                .await;
            done(result, json_out, |v| {
                println!("Installed plugin {}", cell(&v["id"]))
            })
        }
        PluginCommand::Update {
            id,
            all,
            check,
            yes,
            git_ref,
            version,
        } => {
            let started = std::time::Instant::now();
            // As in Paseo: an update to whatever is newest is shown first and applied only when
            // confirmed (`--yes`, or `y` at a terminal); an explicit --ref/--version applies.
            let explicit = git_ref.is_some() || version.is_some();
            let params = json!({
                "id": id, "all": all, "check": check,
                "ref": git_ref, "version": version,
            });
            if !check && !explicit && !yes {
                let preview = json!({ "id": id, "all": all, "check": true });
                let preview = match control::request_with_progress(
                    home,
                    Method::PluginUpdate,
                    preview,
                    |_| {},
                )
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
                let question = if pending.len() == 1 && !all {
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
            let result =
                control::request_with_progress(home, Method::PluginUpdate, params, |line| {
                    eprintln!("  {line}  ({:.1} s)", started.elapsed().as_secs_f64())
                })
                .await;
            done(result, json_out, print_updates)
        }
        PluginCommand::Enable { id } => {
            switch_plugin(home, Method::PluginEnable, &id, json_out).await
        }
        PluginCommand::Disable { id } => {
            switch_plugin(home, Method::PluginDisable, &id, json_out).await
        }
        PluginCommand::Reload { id } => {
            switch_plugin(home, Method::PluginReload, &id, json_out).await
        }
        PluginCommand::Remove { id } => {
            switch_plugin(home, Method::PluginRemove, &id, json_out).await
        }
        PluginCommand::Logs { id, follow: true } => {
            control::stream(home, Method::PluginLogs, json!({ "id": id, "follow": true }), |line| {
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
        }
        PluginCommand::Logs { id, follow: false } => {
            let result = control::request(home, Method::PluginLogs, json!({ "id": id })).await;
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
        PluginCommand::Stats { id, watch } => {
            let params = json!({ "id": id });
            if !watch {
                let result = control::request(home, Method::PluginStats, params).await;
                return Ok(done(result, json_out, |v| print_stats(v, id.is_some())));
            }
            loop {
                let stats = control::request(home, Method::PluginStats, params.clone()).await?;
                if json_out {
                    println!("{stats}");
                } else {
                    // Clears the terminal and prints the table from its top-left corner.
                    print!("\x1b[2J\x1b[H");
                    print_stats(&stats, id.is_some());
                }
                tokio::select! {
                    () = tokio::time::sleep(std::time::Duration::from_secs(1)) => {}
                    _ = tokio::signal::ctrl_c() => break ExitCode::SUCCESS,
                }
            }
        }
        PluginCommand::Permissions { id } => {
            let result =
                control::request(home, Method::PluginPermissions, json!({ "id": id })).await;
            done(result, json_out, print_policy)
        }
        PluginCommand::Quotas {
            id,
            timeline_rows,
            timeline_bytes,
            sends,
        } => {
            let mut set = serde_json::Map::new();
            for (key, value) in [
                ("timelineRowsPerMinute", timeline_rows),
                ("timelineBytesPerMinute", timeline_bytes),
                ("sendsPerMinute", sends),
            ] {
                if let Some(value) = value {
                    set.insert(key.into(), json!(value));
                }
            }
            let params = json!({ "id": id, "set": set });
            let result = control::request(home, Method::PluginQuotas, params).await;
            done(result, json_out, print_quotas)
        }
        PluginCommand::Audit { id, apply } => {
            let params = json!({ "id": id, "apply": apply });
            let result = control::request(home, Method::PluginAudit, params).await;
            done(result, json_out, print_audit)
        }
        PluginCommand::Allow { id, grants } => {
            change_policy(home, Method::PluginAllow, &id, &grants, json_out).await?
        }
        PluginCommand::Deny { id, grants } => {
            change_policy(home, Method::PluginDeny, &id, &grants, json_out).await?
        }
        PluginCommand::Init { dir, id } => crate::scaffold::init(&dir, id.as_deref())?,
        PluginCommand::Types { dir } => crate::scaffold::types(&dir)?,
    })
}

/// What `plugin update` did (or, with `--check`, would do) to each plugin.
fn print_updates(v: &Value) {
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
}

/// `paseo plugin allow|deny ID …`.
async fn change_policy(
    home: &Path,
    method: Method,
    id: &str,
    grants: &GrantFlags,
    json_out: bool,
) -> Result<ExitCode, String> {
    let policy = grants.policy()?;
    if policy == Policy::default() {
        let none = "Name at least one grant: --read, --write, --net, --run, --env or --sys";
        return Ok(done(Err(none.into()), json_out, print_policy));
    }
    let params = json!({ "id": id, "grants": policy });
    let result = control::request(home, method, params).await;
    Ok(done(result, json_out, print_policy))
}

/// `paseo plugin enable|disable|reload|remove ID`.
async fn switch_plugin(home: &Path, method: Method, id: &str, json_out: bool) -> ExitCode {
    let result = control::request(home, method, json!({ "id": id })).await;
    let past = match method {
        Method::PluginEnable => "Enabled",
        Method::PluginDisable => "Disabled",
        Method::PluginReload => "Reloaded",
        _ => "Removed",
    };
    done(result, json_out, |_| println!("{past} plugin {id}"))
}

/// `paseo plugins enable|disable`: Paseo's global plugin switch.
pub async fn plugins_switch(
    home: &Path,
    command: SwitchCommand,
    json_out: bool,
) -> Result<ExitCode, String> {
    let on = matches!(command, SwitchCommand::Enable);
    let result = control::request(
        home,
        if on {
            Method::PluginsEnable
        } else {
            Method::PluginsDisable
        },
        json!({}),
    )
    .await;
    Ok(done(result, json_out, |_| {
        println!("Plugins {}", if on { "enabled" } else { "disabled" })
    }))
}

pub async fn agent(home: &Path, command: AgentCommand, json_out: bool) -> Result<ExitCode, String> {
    let show = |v: &Value| print_agent(v);
    let by_id = |method: Method, id: String| async move {
        control::request(home, method, json!({ "id": id })).await
    };
    Ok(match command {
        AgentCommand::Create {
            workspace,
            cwd,
            provider,
            title,
            label,
            env,
            prompt,
        } => {
            let params = json!({
                "workspaceId": workspace,
                "cwd": cwd.map(|c| std::fs::canonicalize(&c).map(|p| p.to_string_lossy().into_owned()).unwrap_or(c)),
                "provider": provider.as_deref().unwrap_or("scripted"),
                "title": title,
                "prompt": prompt,
                "labels": key_values(&label)?,
                "env": key_values(&env)?,
            });
            done(
                control::request(home, Method::AgentCreate, params).await,
                json_out,
                show,
            )
        }
        AgentCommand::Send { id, text, wait } => {
            let result = control::request(
                home,
                Method::AgentSend,
                json!({ "id": id, "text": text, "wait": wait }),
            )
            .await;
            done(result, json_out, show)
        }
        AgentCommand::Cancel { id } => done(by_id(Method::AgentCancel, id).await, json_out, show),
        AgentCommand::Close { id } => done(by_id(Method::AgentClose, id).await, json_out, show),
        AgentCommand::Wait { id } => done(by_id(Method::AgentWait, id).await, json_out, show),
        AgentCommand::Show { id } => done(by_id(Method::AgentShow, id).await, json_out, show),
        AgentCommand::Ls => done(
            control::request(home, Method::AgentLs, json!({})).await,
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
        AgentCommand::Archive { id } => {
            done(by_id(Method::AgentArchive, id).await, json_out, |v| {
                println!("Archived at {}", cell(&v["archivedAt"]))
            })
        }
        AgentCommand::Reload { id } => done(by_id(Method::AgentReload, id).await, json_out, show),
    })
}

pub async fn permission(
    home: &Path,
    command: PermissionCommand,
    json_out: bool,
) -> Result<ExitCode, String> {
    let PermissionCommand::Respond {
        agent_id,
        request_id,
        behavior,
        message,
    } = command;
    let result = control::request(home, Method::PermissionRespond, json!({ "agentId": agent_id, "requestId": request_id, "behavior": behavior, "message": message })).await;
    Ok(done(result, json_out, |_| {
        println!("Answered {request_id}: {behavior}")
    }))
}

pub async fn workspace(
    home: &Path,
    command: WorkspaceCommand,
    json_out: bool,
) -> Result<ExitCode, String> {
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
    Ok(match command {
        WorkspaceCommand::Create {
            dir,
            title,
            worktree,
        } => {
            let dir =
                std::fs::canonicalize(&dir).map_err(|_| format!("Directory not found: {dir}"))?;
            let params = json!({ "dir": dir, "title": title, "worktree": worktree });
            done(
                control::request(home, Method::WorkspaceCreate, params).await,
                json_out,
                print_ws,
            )
        }
        WorkspaceCommand::Ls => done(
            control::request(home, Method::WorkspaceLs, json!({})).await,
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
        WorkspaceCommand::Archive { id } => done(
            control::request(home, Method::WorkspaceArchive, json!({ "id": id })).await,
            json_out,
            |v| println!("Archived {}", cell(&v["id"])),
        ),
    })
}

/// `paseo provider ls`: the built-in agent providers and the ones plugins provide.
pub async fn provider(
    home: &Path,
    command: ListCommand,
    json_out: bool,
) -> Result<ExitCode, String> {
    let ListCommand::Ls = command;
    Ok(done(
        control::request(home, Method::ProviderLs, json!({})).await,
        json_out,
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
    ))
}

/// `paseo forge ls` and `paseo forge call PROVIDER METHOD [INPUT]`.
pub async fn forge(home: &Path, command: ForgeCommand, json_out: bool) -> Result<ExitCode, String> {
    match command {
        ForgeCommand::Ls => Ok(done(
            control::request(home, Method::ForgeLs, json!({})).await,
            json_out,
            |v| provided_table(v, "FORGE"),
        )),
        ForgeCommand::Call {
            provider,
            method,
            input,
        } => {
            let input = crate::throwaway::read_input(input.as_deref())?;
            let params = json!({ "provider": provider, "method": method, "input": input });
            let result = control::request(home, Method::ForgeCall, params).await;
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
    }
}

/// `paseo usage ls` and `paseo usage fetch|discover|identify SOURCE [INPUT]`.
pub async fn usage(home: &Path, command: UsageCommand, json_out: bool) -> Result<ExitCode, String> {
    let (call, source, input) = match command {
        UsageCommand::Ls => {
            return Ok(done(
                control::request(home, Method::UsageLs, json!({})).await,
                json_out,
                |v| provided_table(v, "SOURCE"),
            ))
        }
        UsageCommand::Fetch { source, input } => ("fetch", source, input),
        UsageCommand::Discover { source, scope } => ("discover", source, scope),
        UsageCommand::Identify { source, input } => ("identify", source, input),
    };
    let input = match input {
        Some(arg) => crate::throwaway::read_input(Some(&arg))?,
        None if call == "discover" => json!({ "kind": "global" }),
        None => json!({}),
    };
    let params = json!({ "source": source, "call": call, "input": input });
    Ok(done(
        control::request(home, Method::UsageCall, params).await,
        json_out,
        |v| println!("{}", serde_json::to_string_pretty(v).unwrap()),
    ))
}

/// `paseo attachment search PLUGIN METHOD QUERY`: an attachment source's search, as the app
/// runs it (the plugin's search RPC with `{ query }`, its result checked).
pub async fn attachment(
    home: &Path,
    command: AttachmentCommand,
    json_out: bool,
) -> Result<ExitCode, String> {
    let AttachmentCommand::Search {
        plugin,
        method,
        query,
    } = command;
    let params = json!({ "plugin": plugin, "method": method, "query": query });
    Ok(done(
        control::request(home, Method::AttachmentSearch, params).await,
        json_out,
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
