//! The control API: JSON lines over a Unix socket at `$PASEO_HOME/daemon.sock`. Only the daemon's
//! own user gets in: the socket is 0600, and each connection's peer uid (`SO_PEERCRED`) is checked
//! as well, so a home directory whose modes were loosened does not let another user through. A
//! request is `{"method", "params"}` on one line of at most [`MAX_LINE`] bytes; the answer is
//! `{"ok":true,"result":…}` or `{"ok":false,"error":"…"}`. `plugin.logs` with `follow` keeps the
//! connection open and sends one `{"log":…}` line per new entry (and a `{"gap":n}` line when the
//! follower fell behind and `n` entries were skipped).

use paseo_plugin_runtime::host::ProvidedKind;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::Duration;

use serde_json::{json, Value};
use tokio::io::{AsyncBufRead, AsyncBufReadExt, AsyncWriteExt, BufReader};
use tokio::net::{UnixListener, UnixStream};
use tokio::sync::broadcast::error::RecvError;

pub use super::method::Method;
use super::Daemon;

/// The longest request line (a prompt sent with `agent send` is the largest legitimate one).
pub const MAX_LINE: usize = 4 * 1024 * 1024;
/// How long a connection may wait before its next complete request line.
pub const IDLE_TIMEOUT: Duration = Duration::from_secs(10);
/// Connections served at once; more are answered with an error and closed.
pub const MAX_CONNECTIONS: usize = 128;
/// The longest pause of the accept loop after a failed `accept` (out of descriptors, say).
const ACCEPT_BACKOFF_MAX: Duration = Duration::from_secs(1);

pub fn socket_path(home: &Path) -> PathBuf {
    home.join("daemon.sock")
}

/// Serves the control API until `daemon.stop` is requested. The caller holds the home's lock
/// ([`super::home::lock`]), so a socket file found here is a stale one.
pub async fn serve(daemon: Arc<Daemon>) -> Result<(), String> {
    let path = socket_path(&daemon.store.home);
    let _ = std::fs::remove_file(&path);
    let listener = UnixListener::bind(&path)
        .map_err(|e| format!("Cannot listen on {}: {e}", path.display()))?;
    use std::os::unix::fs::PermissionsExt;
    std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o600))
        .map_err(|e| e.to_string())?;
    let stop = Arc::new(tokio::sync::Notify::new());
    let slots = Arc::new(tokio::sync::Semaphore::new(MAX_CONNECTIONS));
    // SAFETY: geteuid has no preconditions.
    let owner = unsafe { libc::geteuid() };
    let mut backoff = Duration::ZERO;
    loop {
        tokio::select! {
            accepted = listener.accept() => {
                let stream = match accepted {
                    Ok((stream, _)) => {
                        backoff = Duration::ZERO;
                        stream
                    }
                    Err(e) => {
                        // EMFILE and friends fail again at once: pause instead of spinning.
                        if backoff.is_zero() {
                            tracing::warn!(target: "paseo::daemon", "control socket: accept failed: {e}");
                        }
                        backoff = (backoff * 2).clamp(Duration::from_millis(10), ACCEPT_BACKOFF_MAX);
                        tokio::time::sleep(backoff).await;
                        continue;
                    }
                };
                let (daemon, stop, slots) = (daemon.clone(), stop.clone(), slots.clone());
                tokio::spawn(async move {
                    if let Err(refusal) = admit(&stream, owner) {
                        tracing::warn!(target: "paseo::daemon", "control socket: {refusal}");
                        refuse(stream, &refusal).await;
                        return;
                    }
                    let Ok(_slot) = slots.try_acquire_owned() else {
                        refuse(stream, &format!("The daemon is serving {MAX_CONNECTIONS} control connections already; try again")).await;
                        return;
                    };
                    connection(daemon, stream, stop).await
                });
            }
            () = stop.notified() => break,
        }
    }
    daemon.shutdown().await;
    let _ = std::fs::remove_file(&path);
    Ok(())
}

/// Lets in only the daemon's own user (the kernel's word for who is connecting).
fn admit(stream: &UnixStream, owner: u32) -> Result<(), String> {
    let cred = stream
        .peer_cred()
        .map_err(|e| format!("connection refused: cannot read the peer's credentials: {e}"))?;
    if cred.uid() != owner {
        return Err(format!(
            "connection refused: uid {} (pid {}) is not the daemon's user (uid {owner})",
            cred.uid(),
            cred.pid()
                .map(|p| p.to_string())
                .unwrap_or_else(|| "?".into())
        ));
    }
    Ok(())
}

/// Answers with `error` and closes. The peer's request is read (up to 64 KiB or 1 s) and
/// dropped first: closing with it unread would reset the connection, and the client would see
/// "broken pipe" instead of why it was refused.
async fn refuse(mut stream: UnixStream, error: &str) {
    use tokio::io::AsyncReadExt;
    let line = format!("{}\n", json!({ "ok": false, "error": error }));
    let _ = tokio::time::timeout(Duration::from_secs(1), async {
        stream.write_all(line.as_bytes()).await?;
        stream.shutdown().await?;
        let mut sink = [0u8; 4096];
        let mut read = 0;
        while read < 64 * 1024 {
            match stream.read(&mut sink).await? {
                0 => break,
                n => read += n,
            }
        }
        std::io::Result::Ok(())
    })
    .await;
}

/// Why a request line could not be read.
#[derive(Debug, PartialEq)]
enum LineError {
    TooLong,
    NotUtf8,
    Io,
}

/// Reads one `\n`-terminated line of at most `max` bytes (without the newline), buffering no
/// more than that: a longer line is refused as soon as it passes the limit. `None` at EOF.
async fn read_line_limited<R: AsyncBufRead + Unpin>(
    reader: &mut R,
    max: usize,
) -> Result<Option<String>, LineError> {
    let mut line = Vec::new();
    loop {
        let chunk = reader.fill_buf().await.map_err(|_| LineError::Io)?;
        if chunk.is_empty() {
            // EOF: a last line without its newline still counts.
            return if line.is_empty() {
                Ok(None)
            } else {
                String::from_utf8(line)
                    .map(Some)
                    .map_err(|_| LineError::NotUtf8)
            };
        }
        let (take, done) = match chunk.iter().position(|&b| b == b'\n') {
            Some(i) => (i, true),
            None => (chunk.len(), false),
        };
        if line.len() + take > max {
            return Err(LineError::TooLong);
        }
        line.extend_from_slice(&chunk[..take]);
        reader.consume(if done { take + 1 } else { take });
        if done {
            return String::from_utf8(line)
                .map(Some)
                .map_err(|_| LineError::NotUtf8);
        }
    }
}

/// A request line, parsed, or the reason it is not one (said in full to the client).
fn parse_request(line: &str) -> Result<(String, Value), String> {
    let request: Value = serde_json::from_str(line)
        .map_err(|e| format!("Invalid request: not JSON ({e}); send {{\"method\": \"…\", \"params\": {{…}}}} on one line"))?;
    let Some(method) = request.get("method").and_then(Value::as_str) else {
        return Err("Invalid request: \"method\" must be a string naming a daemon method".into());
    };
    Ok((
        method.to_string(),
        request.get("params").cloned().unwrap_or(Value::Null),
    ))
}

async fn connection(daemon: Arc<Daemon>, stream: UnixStream, stop: Arc<tokio::sync::Notify>) {
    let (read, mut write) = stream.into_split();
    let mut reader = BufReader::new(read);
    loop {
        let line = match tokio::time::timeout(
            IDLE_TIMEOUT,
            read_line_limited(&mut reader, MAX_LINE),
        )
        .await
        {
            Err(_) | Ok(Ok(None)) | Ok(Err(LineError::Io)) => return,
            Ok(Err(LineError::TooLong)) => Err(format!(
                "Invalid request: the line exceeds {MAX_LINE} bytes, the control socket's limit"
            )),
            Ok(Err(LineError::NotUtf8)) => Err("Invalid request: not UTF-8".to_string()),
            Ok(Ok(Some(line))) => Ok(line),
        };
        let (name, params) = match line.and_then(|line| parse_request(&line)) {
            Ok(request) => request,
            Err(error) => {
                // The rest of a refused line may still be arriving: answer and close.
                let _ = write
                    .write_all(format!("{}\n", json!({ "ok": false, "error": error })).as_bytes())
                    .await;
                return;
            }
        };
        let Some(method) = Method::parse(&name) else {
            let error = format!("Unknown daemon method: {name}");
            let answer = json!({ "ok": false, "error": error });
            if write
                .write_all(format!("{answer}\n").as_bytes())
                .await
                .is_err()
            {
                return;
            }
            continue;
        };
        if method == Method::PluginLogs && params["follow"] == true {
            follow_logs(&daemon, &params, &mut write).await;
            return;
        }
        if method == Method::PluginInstall || method == Method::PluginUpdate {
            // The answer ends the stream of progress lines, and the connection.
            install_with_progress(&daemon, method, &params, &mut write).await;
            return;
        }
        let outcome = handle(&daemon, method, params).await;
        let answer = match outcome {
            Ok(result) => json!({ "ok": true, "result": result }),
            Err(error) => json!({ "ok": false, "error": error }),
        };
        if write
            .write_all(format!("{answer}\n").as_bytes())
            .await
            .is_err()
        {
            return;
        }
        if method == Method::DaemonStop {
            stop.notify_one();
            return;
        }
    }
}

async fn follow_logs(
    daemon: &Arc<Daemon>,
    params: &Value,
    write: &mut tokio::net::unix::OwnedWriteHalf,
) {
    let id = params["id"].as_str().unwrap_or_default().to_string();
    let mut rx = daemon.logs.subscribe();
    match daemon.plugin_logs(&id) {
        Ok(entries) => {
            for entry in entries {
                if write
                    .write_all(format!("{}\n", json!({ "log": entry })).as_bytes())
                    .await
                    .is_err()
                {
                    return;
                }
            }
        }
        Err(error) => {
            let _ = write
                .write_all(format!("{}\n", json!({ "ok": false, "error": error })).as_bytes())
                .await;
            return;
        }
    }
    loop {
        let line = match rx.recv().await {
            Ok((plugin, entry)) if plugin == id => json!({ "log": entry }),
            Ok(_) => continue,
            // A flood outran this follower: say how much it missed, and go on.
            Err(RecvError::Lagged(skipped)) => json!({ "gap": skipped }),
            Err(RecvError::Closed) => return,
        };
        if write
            .write_all(format!("{line}\n").as_bytes())
            .await
            .is_err()
        {
            return;
        }
    }
}

/// `plugin.install` (`path`: a directory; or `source`, with `id`, `ref`, `subpath`) and
/// `plugin.update` (`id`, `ref`, `version`) stream `{"progress": "…"}` lines (fetching, build
/// commands) before their answer.
async fn install_with_progress(
    daemon: &Arc<Daemon>,
    method: Method,
    params: &Value,
    write: &mut tokio::net::unix::OwnedWriteHalf,
) {
    let (tx, mut rx) = tokio::sync::mpsc::unbounded_channel::<String>();
    let send = move |line: String| {
        let _ = tx.send(line);
    };
    let text = |key: &str| params[key].as_str().map(str::to_string);
    let (id, git_ref, subpath) = (text("id"), text("ref"), text("subpath"));
    let install = async {
        match (method, text("source"), text("path")) {
            (Method::PluginUpdate, _, _) => {
                let (all, check) = (params["all"] == true, params["check"] == true);
                let version = text("version");
                match (id.as_deref(), all) {
                    (Some(_), true) | (None, false) => {
                        Err("Choose one plugin ID or pass --all".to_string())
                    }
                    (None, true) if git_ref.is_some() || version.is_some() => {
                        Err("An explicit target requires one plugin ID, without --all".to_string())
                    }
                    (None, true) => daemon.plugin_update_all(check, &send).await,
                    (Some(id), false) if check => {
                        daemon
                            .plugin_update_check(id, git_ref.as_deref(), version.as_deref())
                            .await
                    }
                    (Some(id), false) => {
                        daemon
                            .plugin_update(id, git_ref.as_deref(), version.as_deref(), &send)
                            .await
                    }
                }
            }
            (_, Some(source), _) => {
                daemon
                    .plugin_install_source(
                        &source,
                        id.as_deref(),
                        git_ref.as_deref(),
                        subpath.as_deref(),
                        &send,
                    )
                    .await
            }
            (_, None, path) => {
                let path = path.unwrap_or_default();
                daemon
                    .plugin_install_with(Path::new(&path), id.as_deref(), &send)
                    .await
            }
        }
    };
    // `--sandbox`: the install's plugin gets the baseline policy from its first load on.
    let install = super::install::SANDBOXED.scope(params["sandbox"] == true, install);
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
        let _ = write
            .write_all(format!("{}\n", json!({ "progress": line })).as_bytes())
            .await;
    }
    let answer = match outcome {
        Ok(result) => json!({ "ok": true, "result": result }),
        Err(error) => json!({ "ok": false, "error": error }),
    };
    let _ = write.write_all(format!("{answer}\n").as_bytes()).await;
}

/// A request whose answer may be preceded by `{"progress": …}` lines, shown through `each`.
pub async fn request_with_progress(
    home: &Path,
    method: Method,
    params: Value,
    each: impl Fn(&str),
) -> Result<Value, String> {
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

async fn handle(daemon: &Arc<Daemon>, method: Method, params: Value) -> Result<Value, String> {
    match method {
        Method::DaemonStatus => Ok(
            json!({ "home": daemon.store.home, "pid": std::process::id(), "pluginsEnabled": daemon.plugins_enabled() }),
        ),
        Method::DaemonStop => Ok(json!({ "stopping": true })),
        Method::PluginLs => Ok(json!(daemon.plugin_list())),
        Method::PluginsEnable => daemon.set_plugins_enabled(true).await,
        Method::PluginsDisable => daemon.set_plugins_enabled(false).await,
        Method::PluginEnable => {
            daemon
                .plugin_set_enabled(str_param(&params, "id")?, true)
                .await
        }
        Method::PluginDisable => {
            daemon
                .plugin_set_enabled(str_param(&params, "id")?, false)
                .await
        }
        Method::PluginReload => daemon.plugin_reload(str_param(&params, "id")?).await,
        Method::PluginRemove => daemon.plugin_remove(str_param(&params, "id")?).await,
        Method::PluginLogs => daemon
            .plugin_logs(str_param(&params, "id")?)
            .map(|entries| json!(entries)),
        Method::PluginStats => match &params["id"] {
            Value::Null => daemon.plugin_stats(None).await,
            _ => daemon.plugin_stats(Some(str_param(&params, "id")?)).await,
        },
        Method::PluginPermissions => daemon.plugin_policy(str_param(&params, "id")?),
        Method::PluginQuotas => {
            let id = str_param(&params, "id")?;
            match params.get("set") {
                Some(set) if set.as_object().is_some_and(|o| !o.is_empty()) => {
                    daemon.plugin_set_quotas(id, set)
                }
                _ => Ok(json!({ "id": id, "quotas": daemon.quotas_of(id)? })),
            }
        }
        Method::PluginAudit => {
            let apply = params["apply"] == true;
            daemon.plugin_audit(str_param(&params, "id")?, apply).await
        }
        Method::PluginAllow | Method::PluginDeny => {
            let grants: paseo_plugin_runtime::permissions::Policy =
                serde_json::from_value(params["grants"].clone())
                    .map_err(|e| format!("grants: {e}"))?;
            let allow = method == Method::PluginAllow;
            daemon
                .plugin_change_policy(str_param(&params, "id")?, grants, allow)
                .await
        }
        Method::WorkspaceCreate => {
            let mut request =
                json!({ "source": { "kind": "directory", "path": str_param(&params, "dir")? } });
            if let Some(title) = params["title"].as_str() {
                request["title"] = json!(title);
            }
            if let Some(branch) = params["worktree"].as_str() {
                request["source"] = json!({ "kind": "worktree", "cwd": params["dir"], "action": "branch-off", "branchName": branch });
            }
            daemon.create_workspace(request).await
        }
        Method::WorkspaceLs => Ok(json!(daemon.workspaces())),
        Method::WorkspaceArchive => daemon.archive_workspace(str_param(&params, "id")?).await,
        Method::ProviderLs => Ok(daemon.provider_list()),
        Method::ForgeLs => Ok(daemon.provided_list(ProvidedKind::ForgeProvider)),
        Method::ForgeCall => {
            let input = params["input"].clone();
            daemon
                .forge_call(
                    str_param(&params, "provider")?,
                    str_param(&params, "method")?,
                    input,
                )
                .await
        }
        Method::UsageLs => Ok(daemon.provided_list(ProvidedKind::UsageSource)),
        Method::UsageCall => {
            let input = params["input"].clone();
            daemon
                .usage_call(
                    str_param(&params, "source")?,
                    str_param(&params, "call")?,
                    input,
                )
                .await
        }
        Method::AttachmentSearch => daemon
            .host
            .search_attachments(
                str_param(&params, "plugin")?,
                str_param(&params, "method")?,
                params["query"].as_str().unwrap_or_default(),
            )
            .await
            .map_err(|e| e.to_string()),
        Method::AgentCreate => daemon.create_agent(params).await,
        Method::AgentLs => Ok(json!(daemon.agents())),
        Method::AgentShow => daemon.agent_view(str_param(&params, "id")?).ok_or_else(|| {
            format!(
                "Agent not found: {}",
                params["id"].as_str().unwrap_or_default()
            )
        }),
        Method::AgentSend => {
            let id = str_param(&params, "id")?;
            daemon.send(id, str_param(&params, "text")?, None)?;
            if params["wait"] == true {
                daemon.wait_idle(id, Duration::from_secs(600)).await;
            }
            daemon
                .agent_view(id)
                .ok_or_else(|| format!("Agent not found: {id}"))
        }
        Method::AgentWait => {
            let id = str_param(&params, "id")?;
            daemon
                .wait_idle(
                    id,
                    Duration::from_millis(params["timeoutMs"].as_u64().unwrap_or(600_000)),
                )
                .await;
            daemon
                .agent_view(id)
                .ok_or_else(|| format!("Agent not found: {id}"))
        }
        Method::AgentCancel => daemon.cancel(str_param(&params, "id")?).await,
        Method::AgentClose => daemon.close(str_param(&params, "id")?).await,
        Method::AgentArchive => daemon.archive_agent(str_param(&params, "id")?).await,
        Method::AgentReload => daemon.reload_agent(str_param(&params, "id")?).await,
        Method::PermissionRespond => {
            let behavior = str_param(&params, "behavior")?;
            if behavior != "allow" && behavior != "deny" {
                return Err(format!("behavior must be allow or deny, not {behavior}"));
            }
            let mut response = json!({ "behavior": behavior });
            if let Some(message) = params["message"].as_str() {
                response["message"] = json!(message);
            }
            daemon.respond_permission(
                str_param(&params, "agentId")?,
                str_param(&params, "requestId")?,
                response,
            )?;
            Ok(Value::Null)
        }
        // Their progress lines need the connection: `install_with_progress` answers them.
        Method::PluginInstall | Method::PluginUpdate => Err(format!(
            "{method} streams its answer; send it on a connection of its own"
        )),
    }
}

/// One request to the running daemon.
pub async fn request(home: &Path, method: Method, params: Value) -> Result<Value, String> {
    let mut stream = connect(home).await?;
    let sent = stream
        .write_all(
            format!(
                "{}\n",
                json!({ "method": method.as_str(), "params": params })
            )
            .as_bytes(),
        )
        .await;
    // A refused connection may have been answered already: its reason beats "broken pipe".
    let mut line = String::new();
    let read = BufReader::new(stream).read_line(&mut line).await;
    if line.is_empty() {
        sent.map_err(|e| e.to_string())?;
        read.map_err(|e| e.to_string())?;
    }
    let answer: Value =
        serde_json::from_str(&line).map_err(|_| "The daemon closed the connection".to_string())?;
    if answer["ok"] == true {
        Ok(answer["result"].clone())
    } else {
        Err(answer["error"]
            .as_str()
            .unwrap_or("unknown error")
            .to_string())
    }
}

/// A streaming request: calls `each` for every line until the daemon closes the connection.
pub async fn stream(
    home: &Path,
    method: Method,
    params: Value,
    mut each: impl FnMut(Value) -> Result<(), String>,
) -> Result<(), String> {
    let mut stream = connect(home).await?;
    stream
        .write_all(
            format!(
                "{}\n",
                json!({ "method": method.as_str(), "params": params })
            )
            .as_bytes(),
        )
        .await
        .map_err(|e| e.to_string())?;
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
    UnixStream::connect(socket_path(home)).await.map_err(|_| {
        format!(
            "The Paseo daemon is not running for {} (start it with `paseo daemon`)",
            home.display()
        )
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    async fn lines(input: &[u8], max: usize) -> Vec<Result<Option<String>, LineError>> {
        // A reader that hands out 3 bytes at a time, so lines cross buffer boundaries.
        let mut reader = BufReader::with_capacity(3, input);
        let mut out = Vec::new();
        loop {
            let line = read_line_limited(&mut reader, max).await;
            let end = !matches!(line, Ok(Some(_)));
            out.push(line);
            if end {
                return out;
            }
        }
    }

    #[tokio::test]
    async fn lines_are_split_and_bounded() {
        assert_eq!(
            lines(b"ab\ncdef\ng", 4).await,
            [
                Ok(Some("ab".into())),
                Ok(Some("cdef".into())),
                Ok(Some("g".into())),
                Ok(None)
            ]
        );
        assert_eq!(lines(b"abcde\n", 4).await, [Err(LineError::TooLong)]);
        assert_eq!(lines(b"\xff\n", 4).await, [Err(LineError::NotUtf8)]);
    }

    #[test]
    fn requests_that_are_not_requests_say_why() {
        assert_eq!(
            parse_request(r#"{"method":"plugin.ls"}"#).unwrap(),
            ("plugin.ls".to_string(), Value::Null)
        );
        assert!(parse_request("[1]")
            .unwrap_err()
            .contains("\"method\" must be a string"));
        assert!(parse_request("nope")
            .unwrap_err()
            .starts_with("Invalid request: not JSON (expected ident at line 1 column 2)"));
    }
}
