//! Per-plugin permissions, through the public API with a real plugin folder: without a policy a
//! plugin has its owner's rights; with one, each kind of access is allowed as granted and
//! otherwise fails as Node's permission model fails it (`ERR_ACCESS_DENIED`, `permission`,
//! `resource`) with a log line naming the command that would grant it.

mod common;

use std::io::{Read, Write};
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};

use common::*;
use paseo_plugin_runtime::{HostOptions, PluginHost};
use serde_json::{json, Value};

/// A host whose plugins get `policy` (none: full access), with `$DATA` under `settings` and
/// `$WORKSPACES` the folders in `workspaces`.
fn host_with(
    policy: Option<Value>,
    settings: &Path,
    workspaces: Arc<Mutex<Vec<PathBuf>>>,
) -> PluginHost {
    PluginHost::new(HostOptions {
        settings_dir: Some(settings.to_path_buf()),
        permissions: Some(Arc::new(move |_id: &str| {
            policy
                .clone()
                .map(|v| serde_json::from_value(v).map_err(|e| format!("permissions: {e}")))
        })),
        workspaces: Some(Arc::new(move || workspaces.lock().unwrap().clone())),
        ..HostOptions::default()
    })
}

async fn call(host: &PluginHost, method: &str, input: Value) -> Value {
    host.call_rpc("permissions", method, input).await.unwrap()
}

/// The denial a call met: its code, permission and resource.
fn denied(outcome: &Value) -> (String, String, String) {
    assert_eq!(outcome["ok"], false, "{outcome}");
    let text = |k: &str| outcome[k].as_str().unwrap_or_default().to_string();
    (text("code"), text("permission"), text("resource"))
}

fn access_denied(permission: &str, resource: impl Into<String>) -> (String, String, String) {
    (
        "ERR_ACCESS_DENIED".into(),
        permission.into(),
        resource.into(),
    )
}

/// An HTTP server on 127.0.0.1 answering every request with `response`, on a thread.
fn http_server(response: String) -> u16 {
    let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let port = listener.local_addr().unwrap().port();
    std::thread::spawn(move || {
        for stream in listener.incoming() {
            let Ok(mut stream) = stream else { return };
            let mut buf = [0u8; 4096];
            let _ = stream.read(&mut buf);
            let _ = stream.write_all(response.as_bytes());
        }
    });
    port
}

#[tokio::test(flavor = "multi_thread")]
async fn without_a_policy_a_plugin_has_its_owners_rights() {
    let settings = tempfile::tempdir().unwrap();
    let host = host_with(None, settings.path(), Arc::default());
    load_all(&host, &["permissions"]).await;
    let read = call(&host, "read", json!({ "path": "/etc/hostname" })).await;
    assert_eq!(read["ok"], true, "{read}");
    assert_eq!(
        call(&host, "has", json!({ "scope": "fs" })).await["value"],
        "no permission model"
    );
    assert_eq!(
        call(&host, "env", json!({ "name": "PATH" })).await["value"],
        std::env::var("PATH").unwrap()
    );
    assert_eq!(call(&host, "sys", json!({})).await["ok"], true);
    host.shutdown().await;
}

#[tokio::test(flavor = "multi_thread")]
async fn each_kind_of_access_is_allowed_as_granted_and_denied_otherwise() {
    let root = tempfile::tempdir().unwrap();
    let root = root.path().canonicalize().unwrap();
    let settings = root.join("settings");
    let data = settings.join("permissions");
    let shared = root.join("shared");
    let secret = root.join("secret");
    for dir in [&data, &shared, &secret] {
        std::fs::create_dir_all(dir).unwrap();
    }
    std::fs::write(shared.join("notes.txt"), "shared notes").unwrap();
    std::fs::write(secret.join("key"), "secret key").unwrap();
    std::os::unix::fs::symlink(&secret, data.join("escape")).unwrap();
    let allowed_port =
        http_server("HTTP/1.1 200 OK\r\nContent-Length: 2\r\nConnection: close\r\n\r\nok".into());
    let other_port =
        http_server("HTTP/1.1 200 OK\r\nContent-Length: 2\r\nConnection: close\r\n\r\nno".into());
    let redirecting_port = http_server(format!(
        "HTTP/1.1 302 Found\r\nLocation: http://127.0.0.1:{other_port}/\r\nContent-Length: 0\r\nConnection: close\r\n\r\n"
    ));
    let policy = json!({
        "read": ["$DATA", shared.to_str().unwrap()],
        "write": ["$DATA"],
        "net": [format!("127.0.0.1:{allowed_port}"), format!("127.0.0.1:{redirecting_port}")],
        "run": ["echo"],
        "env": ["PATH"],
    });
    let host = host_with(Some(policy), &settings, Arc::default());
    load_all(&host, &["permissions"]).await;

    // Files: what is granted, and nothing past it (`..`, a symlink out, another folder).
    let ok = call(&host, "read", json!({ "path": shared.join("notes.txt") })).await;
    assert_eq!(ok["value"], "shared notes", "{ok}");
    let etc = call(&host, "read", json!({ "path": "/etc/hostname" })).await;
    assert_eq!(
        denied(&etc),
        access_denied("FileSystemRead", "/etc/hostname")
    );
    assert_eq!(etc["message"], "Access to this API has been restricted");
    let promised = call(&host, "read.async", json!({ "path": secret.join("key") })).await;
    assert_eq!(
        denied(&promised),
        access_denied("FileSystemRead", secret.join("key").display().to_string())
    );
    let dotdot = call(
        &host,
        "read",
        json!({ "path": data.join("../../secret/key") }),
    )
    .await;
    assert_eq!(
        denied(&dotdot),
        access_denied("FileSystemRead", secret.join("key").display().to_string())
    );
    let through_link = call(&host, "read", json!({ "path": data.join("escape/key") })).await;
    assert_eq!(
        denied(&through_link),
        access_denied("FileSystemRead", secret.join("key").display().to_string())
    );
    assert_eq!(
        call(&host, "write", json!({ "path": data.join("out.txt") })).await["ok"],
        true
    );
    assert_eq!(
        std::fs::read_to_string(data.join("out.txt")).unwrap(),
        "written"
    );
    let readonly = call(&host, "write", json!({ "path": shared.join("notes.txt") })).await;
    assert_eq!(
        denied(&readonly),
        access_denied(
            "FileSystemWrite",
            shared.join("notes.txt").display().to_string()
        )
    );
    assert_eq!(
        std::fs::read_to_string(shared.join("notes.txt")).unwrap(),
        "shared notes"
    );
    assert_eq!(
        call(
            &host,
            "open",
            json!({ "path": shared.join("notes.txt"), "flags": "r" })
        )
        .await["ok"],
        true
    );
    let open_w = call(
        &host,
        "open",
        json!({ "path": shared.join("notes.txt"), "flags": "a" }),
    )
    .await;
    assert_eq!(denied(&open_w).1, "FileSystemWrite");
    assert_eq!(
        call(&host, "sqlite", json!({ "path": data.join("db.sqlite") })).await["ok"],
        true
    );
    let db = call(&host, "sqlite", json!({ "path": secret.join("db.sqlite") })).await;
    assert_eq!(denied(&db).1, "FileSystemRead");
    assert!(!secret.join("db.sqlite").exists());

    // Programs: the one granted, found where it was on PATH.
    let echoed = call(&host, "run", json!({ "program": "echo", "args": ["hi"] })).await;
    assert_eq!(echoed["value"], "hi", "{echoed}");
    let ls = call(&host, "run", json!({ "program": "ls", "args": ["/"] })).await;
    let ls_path =
        paseo_plugin_runtime::permissions::which("ls", std::env::var_os("PATH").as_deref())
            .unwrap();
    assert_eq!(
        denied(&ls),
        access_denied("ChildProcess", ls_path.display().to_string())
    );

    // The network: the hosts granted; a redirect elsewhere is a connection of its own.
    let fetched = call(
        &host,
        "fetch",
        json!({ "url": format!("http://127.0.0.1:{allowed_port}/") }),
    )
    .await;
    assert_eq!(fetched["value"], 200, "{fetched}");
    let other = call(
        &host,
        "fetch",
        json!({ "url": format!("http://127.0.0.1:{other_port}/") }),
    )
    .await;
    assert_eq!(
        denied(&other),
        access_denied("Net", format!("127.0.0.1:{other_port}"))
    );
    let redirected = call(
        &host,
        "fetch",
        json!({ "url": format!("http://127.0.0.1:{redirecting_port}/") }),
    )
    .await;
    assert_eq!(redirected["ok"], false, "{redirected}");
    let cause = redirected["cause"].as_str().unwrap_or_default();
    assert!(
        cause.contains(&format!(
            "a redirect to 127.0.0.1:{other_port} (permission Net)"
        )),
        "{redirected}"
    );
    assert_eq!(
        call(&host, "connect", json!({ "port": allowed_port })).await["value"],
        "connected"
    );
    let connect = call(&host, "connect", json!({ "port": other_port })).await;
    assert_eq!(
        denied(&connect),
        access_denied("Net", format!("127.0.0.1:{other_port}"))
    );

    // The environment it was granted; host information it was not.
    assert_eq!(
        call(&host, "env", json!({ "name": "PATH" })).await["value"],
        std::env::var("PATH").unwrap()
    );
    assert_eq!(
        call(&host, "env", json!({ "name": "HOME" })).await["value"],
        Value::Null
    );
    let sys = call(&host, "sys", json!({})).await;
    assert_eq!(denied(&sys), access_denied("System", "os.hostname()"));

    // process.permission.has answers from the same policy.
    let has =
        |scope: &str, reference: Option<&Path>| json!({ "scope": scope, "reference": reference });
    assert_eq!(
        call(&host, "has", has("fs.read", Some(&shared))).await["value"],
        true
    );
    assert_eq!(
        call(&host, "has", has("fs.read", Some(&secret))).await["value"],
        false
    );
    assert_eq!(
        call(&host, "has", has("fs.write", Some(&shared))).await["value"],
        false
    );
    assert_eq!(call(&host, "has", has("child", None)).await["value"], true);

    // One line per denial, with the command that would grant it.
    let logs = log_lines(&host, "permissions");
    assert!(
        logs.contains(&"[paseo] Permission denied: FileSystemRead /etc/hostname; to allow it: paseo plugin allow permissions --read /etc".to_string()),
        "{logs:?}"
    );
    assert!(
        logs.contains(&format!("[paseo] Permission denied: Net 127.0.0.1:{other_port}; to allow it: paseo plugin allow permissions --net 127.0.0.1:{other_port}")),
        "{logs:?}"
    );
    host.shutdown().await;
}

#[tokio::test(flavor = "multi_thread")]
async fn workspaces_are_followed_as_they_come() {
    let settings = tempfile::tempdir().unwrap();
    let checkout = tempfile::tempdir().unwrap();
    std::fs::write(checkout.path().join("README"), "a checkout").unwrap();
    let workspaces: Arc<Mutex<Vec<PathBuf>>> = Arc::default();
    let host = host_with(
        Some(json!({ "read": ["$WORKSPACES"] })),
        settings.path(),
        workspaces.clone(),
    );
    load_all(&host, &["permissions"]).await;
    let path = checkout.path().join("README");
    let before = call(&host, "read", json!({ "path": path })).await;
    assert_eq!(denied(&before).1, "FileSystemRead");
    // A workspace created after the policy, without a reload.
    workspaces
        .lock()
        .unwrap()
        .push(checkout.path().to_path_buf());
    assert_eq!(
        call(&host, "read", json!({ "path": path })).await["value"],
        "a checkout"
    );
    host.shutdown().await;
}

#[tokio::test(flavor = "multi_thread")]
async fn a_policy_that_cannot_be_used_fails_the_load_and_says_why() {
    let settings = tempfile::tempdir().unwrap();
    let load_error = |policy: Value| {
        let host = host_with(Some(policy), settings.path(), Arc::default());
        async move {
            host.load(&fixture("permissions"))
                .await
                .unwrap_err()
                .to_string()
        }
    };
    let e = load_error(json!({ "reed": ["/tmp"] })).await;
    assert!(
        e.starts_with("Plugin permissions has a policy that cannot be used: permissions: unknown field `reed`"),
        "{e}"
    );
    assert_eq!(
        load_error(json!({ "read": ["relative"] })).await,
        "Plugin permissions has a policy that cannot be used: permissions.read: \"relative\" is not an absolute path or one of $PLUGIN, $DATA, $WORKSPACES, $TMP, ~"
    );
}

/// The throwaway host takes a policy too (`--allow-*` or `--permissions JSON`), so an author
/// can try a plugin under one.
#[test]
fn an_author_tries_a_plugin_under_a_policy_in_the_throwaway_host() {
    let home = tempfile::tempdir().unwrap();
    let rpc = |flags: &[&str]| {
        let out = std::process::Command::new(env!("CARGO_BIN_EXE_paseo"))
            .env("PASEO_HOME", home.path())
            .args(["rpc", "call", "--plugin"])
            .arg(fixture("permissions"))
            .args(flags)
            .args(["permissions", "read", r#"{"path":"/etc/hostname"}"#])
            .output()
            .unwrap();
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
        let printed: Value = serde_json::from_slice(&out.stdout).unwrap();
        assert_eq!(printed["ok"], true, "{printed}");
        (
            printed["output"].clone(),
            String::from_utf8_lossy(&out.stderr).into_owned(),
        )
    };
    let (printed, stderr) = rpc(&["--allow-read", "$PLUGIN"]);
    assert_eq!(
        denied(&printed),
        access_denied("FileSystemRead", "/etc/hostname"),
        "{printed}"
    );
    assert!(
        stderr.contains("[permissions] [paseo] Permission denied: FileSystemRead /etc/hostname; to allow it: paseo plugin allow permissions --read /etc"),
        "{stderr}"
    );
    let (printed, _) = rpc(&["--permissions", r#"{"read":["/etc"]}"#]);
    assert_eq!(printed["ok"], true, "{printed}");
    let (printed, _) = rpc(&[]);
    assert_eq!(printed["ok"], true, "{printed}");
}

/// Audit: the plugin runs with full access while what it does is recorded; the policy written
/// from it lets the same plugin do the same again, and nothing new.
#[tokio::test(flavor = "multi_thread")]
async fn an_audit_writes_the_policy_that_lets_a_plugin_do_what_it_did_and_no_more() {
    let root = tempfile::tempdir().unwrap();
    let root = root.path().canonicalize().unwrap();
    let settings = root.join("settings");
    let shared = root.join("shared");
    std::fs::create_dir_all(&shared).unwrap();
    std::fs::write(shared.join("notes.txt"), "shared notes").unwrap();
    let port =
        http_server("HTTP/1.1 200 OK\r\nContent-Length: 2\r\nConnection: close\r\n\r\nok".into());
    let policy: Arc<Mutex<Value>> = Arc::new(Mutex::new(json!({ "audit": true })));
    let current = policy.clone();
    let host = PluginHost::new(HostOptions {
        settings_dir: Some(settings.clone()),
        permissions: Some(Arc::new(move |_id: &str| {
            Some(serde_json::from_value(current.lock().unwrap().clone()).map_err(|e| e.to_string()))
        })),
        ..HostOptions::default()
    });
    load_all(&host, &["permissions"]).await;
    let did = || async {
        let notes = call(&host, "read", json!({ "path": shared.join("notes.txt") })).await;
        assert_eq!(notes["value"], "shared notes", "{notes}");
        let fetched = call(
            &host,
            "fetch",
            json!({ "url": format!("http://127.0.0.1:{port}/") }),
        )
        .await;
        assert_eq!(fetched["value"], 200, "{fetched}");
        let echoed = call(&host, "run", json!({ "program": "echo", "args": ["hi"] })).await;
        assert_eq!(echoed["value"], "hi", "{echoed}");
        let path = call(&host, "env", json!({ "name": "PATH" })).await;
        assert_eq!(path["value"], std::env::var("PATH").unwrap());
    };
    did().await;
    // Full access while audited: /etc/hostname is read too, and seen.
    assert_eq!(
        call(&host, "read", json!({ "path": "/etc/hostname" })).await["ok"],
        true
    );
    let audit_file = settings.join("permissions/audit.json");
    use std::os::unix::fs::PermissionsExt;
    assert_eq!(
        std::fs::metadata(&audit_file).unwrap().permissions().mode() & 0o777,
        0o600
    );

    let (written, seen) = host.audit_policy("permissions").unwrap();
    assert!(seen >= 6, "{seen}");
    // The shared folder is in the temp folder here: $TMP.
    assert_eq!(written.read, ["$PLUGIN", "$TMP", "/etc"]);
    assert_eq!(written.net, [format!("127.0.0.1:{port}")]);
    assert_eq!(written.run, ["echo"]);
    assert!(
        written.env.contains(&"PATH".to_string()),
        "{:?}",
        written.env
    );
    assert!(!written.sys && !written.audit);

    // Applied without /etc (the owner's edit): the same again works, the rest is denied.
    let mut applied = written.clone();
    applied.read.retain(|r| r != "/etc");
    *policy.lock().unwrap() = serde_json::to_value(&applied).unwrap();
    host.reload("permissions").await.unwrap();
    did().await;
    let etc = call(&host, "read", json!({ "path": "/etc/hostname" })).await;
    assert_eq!(
        denied(&etc),
        access_denied("FileSystemRead", "/etc/hostname")
    );
    let sys = call(&host, "sys", json!({})).await;
    assert_eq!(denied(&sys).1, "System");
    assert!(
        log_lines(&host, "permissions")
            .iter()
            .filter(|l| *l == "manifest read")
            .count()
            == 2
    );
    host.shutdown().await;
}
