//! The control API: JSON lines over a Unix socket at `$PASEO_HOME/daemon.sock` (mode 0600, so
//! only the daemon's user can talk to it). A request is `{"method", "params"}`; the answer is
//! `{"ok":true,"result":…}` or `{"ok":false,"error":"…"}`. `plugin.logs` with `follow` keeps
//! the connection open and sends one `{"log":…}` line per new entry.

use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::Duration;

use serde_json::{json, Value};
use tokio::io::{AsyncBufReadExt, AsyncWriteExt, BufReader};
use tokio::net::{UnixListener, UnixStream};

use super::Daemon;

pub fn socket_path(home: &Path) -> PathBuf {
    home.join("daemon.sock")
}

/// Serves the control API until `daemon.stop` is requested.
pub async fn serve(daemon: Arc<Daemon>) -> Result<(), String> {
    let path = socket_path(&daemon.store.home);
    if UnixStream::connect(&path).await.is_ok() {
        return Err(format!("A Paseo daemon is already running for {}", daemon.store.home.display()));
    }
    let _ = std::fs::remove_file(&path);
    let listener = UnixListener::bind(&path).map_err(|e| format!("Cannot listen on {}: {e}", path.display()))?;
    use std::os::unix::fs::PermissionsExt;
    std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o600)).map_err(|e| e.to_string())?;
    let stop = Arc::new(tokio::sync::Notify::new());
    loop {
        tokio::select! {
            accepted = listener.accept() => {
                let Ok((stream, _)) = accepted else { continue };
                let (daemon, stop) = (daemon.clone(), stop.clone());
                tokio::spawn(async move { connection(daemon, stream, stop).await });
            }
            () = stop.notified() => break,
        }
    }
    daemon.shutdown().await;
    let _ = std::fs::remove_file(&path);
    Ok(())
}

async fn connection(daemon: Arc<Daemon>, stream: UnixStream, stop: Arc<tokio::sync::Notify>) {
    let (read, mut write) = stream.into_split();
    let mut lines = BufReader::new(read).lines();
    while let Ok(Some(line)) = lines.next_line().await {
        let request: Value = serde_json::from_str(&line).unwrap_or_default();
        let method = request["method"].as_str().unwrap_or_default().to_string();
        let params = request["params"].clone();
        if method == "plugin.logs" && params["follow"] == true {
            follow_logs(&daemon, &params, &mut write).await;
            return;
        }
        if method == "plugin.install" {
            // The answer ends the stream of progress lines, and the connection.
            install_with_progress(&daemon, &params, &mut write).await;
            return;
        }
        let outcome = handle(&daemon, &method, params).await;
        let answer = match outcome {
            Ok(result) => json!({ "ok": true, "result": result }),
            Err(error) => json!({ "ok": false, "error": error }),
        };
        if write.write_all(format!("{answer}\n").as_bytes()).await.is_err() {
            return;
        }
        if method == "daemon.stop" {
            stop.notify_one();
            return;
        }
    }
}

async fn follow_logs(daemon: &Arc<Daemon>, params: &Value, write: &mut tokio::net::unix::OwnedWriteHalf) {
    let id = params["id"].as_str().unwrap_or_default().to_string();
    let mut rx = daemon.logs.subscribe();
    match daemon.plugin_logs(&id) {
        Ok(entries) => {
            for entry in entries {
                if write.write_all(format!("{}\n", json!({ "log": entry })).as_bytes()).await.is_err() {
                    return;
                }
            }
        }
        Err(error) => {
            let _ = write.write_all(format!("{}\n", json!({ "ok": false, "error": error })).as_bytes()).await;
            return;
        }
    }
    while let Ok((plugin, entry)) = rx.recv().await {
        if plugin == id && write.write_all(format!("{}\n", json!({ "log": entry })).as_bytes()).await.is_err() {
            return;
        }
    }
}

/// `plugin.install` streams `{"progress": "…"}` lines (build commands) before its answer.
async fn install_with_progress(daemon: &Arc<Daemon>, params: &Value, write: &mut tokio::net::unix::OwnedWriteHalf) {
    let (tx, mut rx) = tokio::sync::mpsc::unbounded_channel::<String>();
    let send = move |line: String| {
        let _ = tx.send(line);
    };
    let path = params["path"].as_str().unwrap_or_default().to_string();
    let id = params["id"].as_str().map(str::to_string);
    let install = daemon.plugin_install_with(Path::new(&path), id.as_deref(), &send);
    tokio::pin!(install);
    let outcome = loop {
        tokio::select! {
            outcome = &mut install => break outcome,
            Some(line) = rx.recv() => {
                let _ = write.write_all(format!("{}\n", json!({ "progress": line })).as_bytes()).await;
            }
        }
    };
    while let Ok(line) = rx.try_recv() {
        let _ = write.write_all(format!("{}\n", json!({ "progress": line })).as_bytes()).await;
    }
    let answer = match outcome {
        Ok(result) => json!({ "ok": true, "result": result }),
        Err(error) => json!({ "ok": false, "error": error }),
    };
    let _ = write.write_all(format!("{answer}\n").as_bytes()).await;
}

/// A request whose answer may be preceded by `{"progress": …}` lines, shown through `each`.
pub async fn request_with_progress(home: &Path, method: &str, params: Value, each: impl Fn(&str)) -> Result<Value, String> {
    let mut result = Err("The daemon closed the connection".to_string());
    stream(home, method, params, |line| {
        if let Some(p) = line["progress"].as_str() {
            each(p);
        } else if line["ok"] == true {
            result = Ok(line["result"].clone());
        }
        Ok(())
    })
    .await?;
    result
}

fn str_param<'v>(params: &'v Value, key: &str) -> Result<&'v str, String> {
    params[key].as_str().ok_or_else(|| format!("missing {key}"))
}

async fn handle(daemon: &Arc<Daemon>, method: &str, params: Value) -> Result<Value, String> {
    match method {
        "daemon.status" => Ok(json!({ "home": daemon.store.home, "pid": std::process::id(), "pluginsEnabled": daemon.plugins_enabled() })),
        "daemon.stop" => Ok(json!({ "stopping": true })),
        "plugin.ls" => Ok(json!(daemon.plugin_list())),
        "plugin.install" => daemon.plugin_install(Path::new(str_param(&params, "path")?), params["id"].as_str()).await,
        "plugin.enable" => daemon.plugin_set_enabled(str_param(&params, "id")?, true).await,
        "plugin.disable" => daemon.plugin_set_enabled(str_param(&params, "id")?, false).await,
        "plugin.reload" => daemon.plugin_reload(str_param(&params, "id")?).await,
        "plugin.remove" => daemon.plugin_remove(str_param(&params, "id")?).await,
        "plugin.logs" => daemon.plugin_logs(str_param(&params, "id")?).map(|entries| json!(entries)),
        "workspace.create" => {
            let mut request = json!({ "source": { "kind": "directory", "path": str_param(&params, "dir")? } });
            if let Some(title) = params["title"].as_str() {
                request["title"] = json!(title);
            }
            if let Some(branch) = params["worktree"].as_str() {
                request["source"] = json!({ "kind": "worktree", "cwd": params["dir"], "action": "branch-off", "branchName": branch });
            }
            daemon.create_workspace(request).await
        }
        "workspace.ls" => Ok(json!(daemon.workspaces())),
        "workspace.archive" => daemon.archive_workspace(str_param(&params, "id")?).await,
        "agent.create" => daemon.create_agent(params).await,
        "agent.ls" => Ok(json!(daemon.agents())),
        "agent.show" => daemon.agent_view(str_param(&params, "id")?).ok_or_else(|| format!("Agent not found: {}", params["id"].as_str().unwrap_or_default())),
        "agent.send" => {
            let id = str_param(&params, "id")?;
            daemon.send(id, str_param(&params, "text")?, None)?;
            if params["wait"] == true {
                daemon.wait_idle(id, Duration::from_secs(600)).await;
            }
            daemon.agent_view(id).ok_or_else(|| format!("Agent not found: {id}"))
        }
        "agent.wait" => {
            let id = str_param(&params, "id")?;
            daemon.wait_idle(id, Duration::from_millis(params["timeoutMs"].as_u64().unwrap_or(600_000))).await;
            daemon.agent_view(id).ok_or_else(|| format!("Agent not found: {id}"))
        }
        "agent.cancel" => daemon.cancel(str_param(&params, "id")?),
        "agent.archive" => daemon.archive_agent(str_param(&params, "id")?).await,
        "agent.reload" => daemon.reload_agent(str_param(&params, "id")?).await,
        "permission.respond" => {
            let behavior = str_param(&params, "behavior")?;
            if behavior != "allow" && behavior != "deny" {
                return Err(format!("behavior must be allow or deny, not {behavior}"));
            }
            let mut response = json!({ "behavior": behavior });
            if let Some(message) = params["message"].as_str() {
                response["message"] = json!(message);
            }
            daemon.respond_permission(str_param(&params, "agentId")?, str_param(&params, "requestId")?, response)?;
            Ok(Value::Null)
        }
        other => Err(format!("Unknown daemon method: {other}")),
    }
}

/// One request to the running daemon.
pub async fn request(home: &Path, method: &str, params: Value) -> Result<Value, String> {
    let mut stream = connect(home).await?;
    stream.write_all(format!("{}\n", json!({ "method": method, "params": params })).as_bytes()).await.map_err(|e| e.to_string())?;
    let mut line = String::new();
    BufReader::new(stream).read_line(&mut line).await.map_err(|e| e.to_string())?;
    let answer: Value = serde_json::from_str(&line).map_err(|_| "The daemon closed the connection".to_string())?;
    if answer["ok"] == true {
        Ok(answer["result"].clone())
    } else {
        Err(answer["error"].as_str().unwrap_or("unknown error").to_string())
    }
}

/// A streaming request: calls `each` for every line until the daemon closes the connection.
pub async fn stream(home: &Path, method: &str, params: Value, mut each: impl FnMut(Value) -> Result<(), String>) -> Result<(), String> {
    let mut stream = connect(home).await?;
    stream.write_all(format!("{}\n", json!({ "method": method, "params": params })).as_bytes()).await.map_err(|e| e.to_string())?;
    let mut lines = BufReader::new(stream).lines();
    while let Some(line) = lines.next_line().await.map_err(|e| e.to_string())? {
        let value: Value = serde_json::from_str(&line).map_err(|e| e.to_string())?;
        if value["ok"] == false {
            return Err(value["error"].as_str().unwrap_or_default().to_string());
        }
        each(value)?;
    }
    Ok(())
}

async fn connect(home: &Path) -> Result<UnixStream, String> {
    UnixStream::connect(socket_path(home))
        .await
        .map_err(|_| format!("The Paseo daemon is not running for {} (start it with `paseo daemon`)", home.display()))
}
