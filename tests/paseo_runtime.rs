//! Where Paseo's own runtime (its forked plugin process and esbuild bundle,
//! `getpaseo/paseo` packages/server/src/server/plugins/) behaves in a way published plugins
//! can observe: a plugin that exits, its output framed as log entries, client-only
//! registrations on the server side, and a named import that does not exist.

mod common;

use common::*;
use paseo_plugin_runtime::PluginStatus;
use serde_json::json;

/// `process.exit(code)` ends that plugin as Paseo's dead child process does: `failed` with
/// `Plugin process exited: <id>`, its hooks and RPC gone, nothing after the call run; the
/// other plugins carry on, and a reload starts it again.
#[tokio::test(flavor = "multi_thread")]
async fn a_plugin_that_exits_fails_alone_and_a_reload_starts_it_again() {
    let host = host();
    load_all(&host, &["exits", "env-inject"]).await;
    let mut request = open_request();
    request["env"]["EXIT"] = json!("17");
    assert_eq!(
        open(&host, request).await.unwrap_err(),
        "Plugin exits agent.open.before failed: Plugin process exited: exits"
    );
    let info = host.plugin("exits").unwrap();
    assert_eq!(
        (info.status, info.error.as_deref()),
        (PluginStatus::Failed, Some("Plugin process exited: exits"))
    );
    let logs = log_lines(&host, "exits");
    assert!(logs.contains(&"about to exit".to_string()), "{logs:?}");
    assert!(
        logs.contains(&"[paseo] Plugin process exited with code 17".to_string()),
        "{logs:?}"
    );
    assert!(
        !logs.iter().any(|l| l.contains("still running")),
        "{logs:?}"
    );
    // Its registrations are gone; the other plugin answers.
    let out = open(&host, open_request()).await.unwrap();
    assert_eq!(out["env"].get("ALIVE"), None, "{out}");
    assert_eq!(out["env"]["REGION"], "eu");
    let err = host
        .call_rpc("exits", "ping", json!({}))
        .await
        .unwrap_err()
        .to_string();
    assert!(err.contains("exits"), "{err}");
    // A reload starts it again.
    host.reload("exits").await.unwrap();
    assert_eq!(host.plugin("exits").unwrap().status, PluginStatus::Running);
    assert_eq!(
        open(&host, open_request()).await.unwrap()["env"]["ALIVE"],
        "yes"
    );
    assert_eq!(
        host.call_rpc("exits", "ping", json!({})).await.unwrap(),
        json!("pong")
    );
    host.shutdown().await;
}

/// The app-side registrations Paseo's compiler strips from the server bundle are accepted on
/// the server side and do nothing; the plugin's server registrations work.
#[tokio::test(flavor = "multi_thread")]
async fn client_only_registrations_in_the_server_entry_do_nothing() {
    let host = host();
    load_all(&host, &["client-registrations"]).await;
    assert_eq!(
        open(&host, open_request()).await.unwrap()["env"]["SERVER_SIDE"],
        "ran"
    );
    host.shutdown().await;
}

fn plugin_output(host: &paseo_plugin_runtime::PluginHost, id: &str) -> Vec<(String, String)> {
    host.logs(id)
        .into_iter()
        .filter(|e| !e.message.starts_with("[paseo]"))
        .map(|e| (format!("{:?}", e.stream).to_lowercase(), e.message))
        .collect()
}

/// stdout and stderr framed as Paseo frames them: a line written in pieces is one entry,
/// `\r\n` is a newline, no empty entry for a final newline, and what is left without one is
/// written once when the plugin stops.
#[tokio::test(flavor = "multi_thread")]
async fn output_is_framed_into_entries_as_paseo_frames_it() {
    let host = host();
    load_all(&host, &["output-framing"]).await;
    open(&host, open_request()).await.unwrap();
    let pair = |s: &str, m: &str| (s.to_string(), m.to_string());
    assert_eq!(
        plugin_output(&host, "output-framing"),
        [
            pair("stdout", "first"),
            pair("stderr", "problem"),
            pair("stdout", "final stdoutbytes"),
            pair("stdout", "more"),
        ]
    );
    host.stop("output-framing").await.unwrap();
    assert_eq!(
        plugin_output(&host, "output-framing")[4..],
        [pair("stderr", "final stderr")]
    );
}

/// A plugin that fails to load leaves the loading line and one stderr entry with the whole
/// error, however many lines it has.
#[tokio::test(flavor = "multi_thread")]
async fn a_load_failure_is_one_entry() {
    let host = host();
    let err = host
        .load(&fixture("load-throws-multiline"))
        .await
        .unwrap_err()
        .to_string();
    assert!(err.contains("second line of the reason"), "{err}");
    let logs = host.logs("load-throws-multiline");
    assert_eq!(logs.len(), 2, "{logs:?}");
    assert_eq!(logs[0].message, "[paseo] Loading plugin");
    assert!(
        logs[1]
            .message
            .starts_with("[paseo] Plugin failed to load: ")
            && logs[1]
                .message
                .contains("first line of the reason\nsecond line of the reason"),
        "{:?}",
        logs[1]
    );
}

/// A named import its module does not export is `undefined`, as in Paseo's esbuild bundle, and
/// the plugin loads; one warning per name says so. Names that exist (through `export *` too)
/// keep working.
#[tokio::test(flavor = "multi_thread")]
async fn a_named_import_that_does_not_exist_is_undefined_with_a_warning() {
    let host = host();
    load_all(&host, &["missing-names"]).await;
    assert_eq!(
        open(&host, open_request()).await.unwrap()["env"]["NAMES"],
        "function,undefined,helper+more,undefined"
    );
    let warnings: Vec<String> = host
        .logs("missing-names")
        .into_iter()
        .filter(|e| e.stream == paseo_plugin_runtime::logs::Stream::Stderr)
        .map(|e| e.message)
        .collect();
    assert_eq!(
        warnings,
        [
            "[paseo] Import \"notInThisSdk\" will always be undefined because there is no matching export in \"@getpaseo/plugin/server\" (index.server.ts)",
            "[paseo] Import \"removedHelper\" will always be undefined because there is no matching export in \"./server/lib.js\" (index.server.ts)",
        ]
    );
    host.shutdown().await;
}

/// The entry's shape, with the messages of Paseo's compiler, which refuses anything else
/// before it bundles a plugin.
#[tokio::test(flavor = "multi_thread")]
async fn an_entry_paseo_would_not_bundle_is_refused_with_its_message() {
    let cases = [
        (
            "export function contribute(server: any) { return () => {}; }",
            "Plugin entry point must have exactly one default export function",
        ),
        (
            "export default { contribute() {} };",
            "Plugin default export must be a function receiving its context",
        ),
        (
            "export default function ({ addHook }: any) { return () => {}; }",
            "Plugin default export must receive one named context parameter",
        ),
        (
            "export default (server: any) => () => {};",
            "Plugin default export must have a block body",
        ),
    ];
    for (code, message) in cases {
        let dir = tempfile::tempdir().unwrap();
        write_plugin(dir.path(), "entry-shape", code);
        let err = host().load(dir.path()).await.unwrap_err().to_string();
        assert_eq!(err, message, "{code}");
    }
}

/// A provider whose icon file does not exist: the plugin starts and the registration stands,
/// without an icon, as in Paseo. (An icon that leaves the folder or could run something is
/// still refused: tests/providers.rs.)
#[tokio::test(flavor = "multi_thread")]
async fn a_provider_icon_that_is_not_there_is_simply_absent() {
    use paseo_plugin_runtime::host::ProvidedKind;
    let host = host();
    load_all(&host, &["provider-missing-icon"]).await;
    let provided = host.provided(ProvidedKind::Provider);
    assert_eq!(provided.len(), 1);
    assert_eq!(provided[0].provided.id, "iconless");
    assert_eq!(
        host.provided_icon(ProvidedKind::Provider, "iconless")
            .unwrap(),
        None
    );
    host.shutdown().await;
}
