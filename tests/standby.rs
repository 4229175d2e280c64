//! The standby isolate (`HostOptions::standby`): loads and reloads bind an isolate booted ahead
//! of time, which must then behave exactly like one booted for the plugin.

mod common;

use std::path::Path;
use std::time::Duration;

use common::*;
use paseo_plugin_runtime::{HostOptions, Limits, PluginHost, PluginStatus};

fn standby_host(settings: Option<&Path>) -> PluginHost {
    PluginHost::new(HostOptions {
        standby: true,
        settings_dir: settings.map(Path::to_path_buf),
        ..HostOptions::default()
    })
}

/// Thread names of this process that start with `prefix`.
fn threads_named(prefix: &str) -> Vec<String> {
    threads()
        .into_iter()
        .filter(|n| n.starts_with(prefix))
        .collect()
}

#[tokio::test(flavor = "multi_thread")]
async fn a_bound_standby_has_the_plugins_identity_folder_storage_and_logs() {
    let settings = tempfile::tempdir().unwrap();
    let host = standby_host(Some(settings.path()));
    host.standby_ready().await;
    host.load_with(&fixture("standby-probe"), Some("probe-a"), None)
        .await
        .unwrap();
    // The next load takes the standby booted after the first one.
    host.standby_ready().await;
    host.load_with(&fixture("standby-probe"), Some("probe-b"), None)
        .await
        .unwrap();
    for id in ["probe-a", "probe-b"] {
        assert!(
            log_lines(&host, id).contains(&format!("loaded {id} one")),
            "{:?}",
            log_lines(&host, id)
        );
    }
    // Both plugins answer, each with its own ID and data directory (chained in ID order).
    let out = open(&host, open_request()).await.unwrap();
    assert_eq!(out["env"]["PLUGIN_ID"], "probe-b");
    assert_eq!(out["env"]["VERSION"], "one");
    assert_eq!(
        out["env"]["DATA"],
        settings
            .path()
            .join("probe-b/data")
            .to_string_lossy()
            .as_ref()
    );
    assert!(settings.path().join("probe-a/data").is_dir());
    host.shutdown().await;
}

#[tokio::test(flavor = "multi_thread")]
async fn reload_binds_the_standby_to_the_edited_source() {
    let dir = tempfile::tempdir().unwrap();
    let plugin = dir.path().join("probe");
    std::fs::create_dir_all(plugin.join("server")).unwrap();
    for file in ["paseo-plugin.json", "index.server.ts", "server/version.ts"] {
        std::fs::copy(fixture("standby-probe").join(file), plugin.join(file)).unwrap();
    }
    let host = standby_host(None);
    host.load_with(&plugin, Some("probe-edit"), None)
        .await
        .unwrap();
    assert_eq!(
        open(&host, open_request()).await.unwrap()["env"]["VERSION"],
        "one"
    );
    for version in ["two", "three"] {
        std::fs::write(
            plugin.join("server/version.ts"),
            format!("export const VERSION = \"{version}\";\n"),
        )
        .unwrap();
        host.standby_ready().await;
        host.reload("probe-edit").await.unwrap();
        let out = open(&host, open_request()).await.unwrap();
        assert_eq!(
            (
                out["env"]["VERSION"].as_str(),
                out["env"]["PLUGIN_ID"].as_str()
            ),
            (Some(version), Some("probe-edit"))
        );
    }
    host.shutdown().await;
}

#[tokio::test(flavor = "multi_thread")]
async fn a_plugin_with_its_own_heap_cap_gets_an_isolate_with_that_cap() {
    // The standby is created with the host's default cap (128 MiB); this plugin's 32 MiB cap
    // must still hold.
    let host = standby_host(None);
    host.standby_ready().await;
    let limits = Limits {
        heap_bytes: 32 * 1024 * 1024,
        ..Limits::default()
    };
    host.load_with(&fixture("heap-bomb"), Some("bomb"), Some(limits))
        .await
        .unwrap();
    let err = open(&host, open_request()).await.unwrap_err();
    assert_eq!(err, "Plugin bomb agent.open.before failed: Plugin bomb exceeded its heap limit of 32 MiB and was stopped");
    assert_eq!(host.plugin("bomb").unwrap().status, PluginStatus::Failed);
    host.shutdown().await;
}

#[tokio::test(flavor = "multi_thread")]
async fn bound_threads_carry_the_plugin_name_and_end_with_it() {
    let host = standby_host(None);
    host.load_with(&fixture("standby-probe"), Some("probe-named"), None)
        .await
        .unwrap();
    // The actor and its watchdog ("plugin:probe-named:watchdog", cut to 15 bytes).
    assert!(
        settle(|| threads_named("plugin:probe-na").len() == 2),
        "{:?}",
        threads_named("plugin:")
    );
    host.stop("probe-named").await.unwrap();
    host.shutdown().await;
    assert!(
        settle(|| threads_named("plugin:probe-na").is_empty()),
        "{:?}",
        threads_named("plugin:")
    );
}

#[tokio::test(flavor = "multi_thread")]
async fn a_standby_that_evaluated_zod_ahead_serves_the_reloaded_plugin() {
    // After a plugin that imports zod loads, the next standby evaluates zod while booting; the
    // reloaded plugin must get that same module instance (its schemas and errors work).
    let host = standby_host(None);
    host.load(&fixture("with-zod")).await.unwrap();
    for _ in 0..2 {
        host.standby_ready().await;
        host.reload("with-zod").await.unwrap();
        let mut request = open_request();
        request["labels"]["kind"] = serde_json::json!("b");
        assert_eq!(open(&host, request).await.unwrap()["env"]["ZOD"], "world:b");
        assert_eq!(
            host.call_rpc(
                "with-zod",
                "greet.say",
                serde_json::json!({ "name": "Ada" })
            )
            .await
            .unwrap(),
            serde_json::json!({ "text": "hi Ada" })
        );
        let err = host
            .call_rpc("with-zod", "greet.say", serde_json::json!({ "name": 42 }))
            .await
            .unwrap_err()
            .to_string();
        assert!(err.contains("expected string, received number"), "{err}");
    }
    host.shutdown().await;
}

#[tokio::test(flavor = "multi_thread")]
async fn calls_made_during_a_reload_wait_for_the_new_isolate() {
    // The old isolate's cleanup takes 300 ms; calls made meanwhile must reach the new isolate
    // instead of failing (RPC) or running without the plugin (waiting hooks).
    let host = std::sync::Arc::new(standby_host(None));
    host.load(&fixture("slow-cleanup")).await.unwrap();
    let before = host
        .call_rpc("slow-cleanup", "loaded.at", serde_json::json!({}))
        .await
        .unwrap();
    host.standby_ready().await;
    let reload = {
        let host = host.clone();
        tokio::spawn(async move { host.reload("slow-cleanup").await })
    };
    // The reload is under way: the old isolate's cleanup (300 ms) has begun.
    wait_for_log(
        &host,
        "slow-cleanup",
        "cleanup started",
        Duration::from_secs(10),
    )
    .await;
    let request =
        serde_json::json!({ "source": { "kind": "directory", "path": "/projects/shop" } });
    let open = paseo_plugin_runtime::OpenContext::default();
    let (rpc, hook) = tokio::join!(
        host.call_rpc("slow-cleanup", "loaded.at", serde_json::json!({})),
        host.run_hook("workspace.create.before", request, &open),
    );
    reload.await.unwrap().unwrap();
    let after = rpc.unwrap();
    assert_ne!(after, before, "the RPC reached the old isolate");
    assert_eq!(hook.unwrap()["title"], format!("loaded {after}"));
    host.shutdown().await;
}

#[tokio::test(flavor = "multi_thread")]
async fn the_host_keeps_a_plain_standby_and_one_with_zod_and_picks_by_the_plugins_imports() {
    use paseo_plugin_runtime::engine::modules::mentions_host_package;
    assert!(mentions_host_package(
        &fixture("with-zod"),
        &fixture("with-zod/index.server.ts")
    ));
    assert!(!mentions_host_package(
        &fixture("env-inject"),
        &fixture("env-inject/index.server.ts")
    ));

    let host = standby_host(None);
    host.standby_ready().await;
    let kinds = |host: &PluginHost| {
        let mut kinds = host.standbys();
        kinds.sort();
        kinds
    };
    let held = kinds(&host);
    assert_eq!(held.len(), 2, "{held:?}");
    assert!(held[0].is_empty(), "{held:?}");
    assert!(
        held[1].len() == 1 && held[1][0].ends_with("/node_modules/zod/index.js"),
        "{held:?}"
    );
    // Each load takes the standby of its kind and boots another of that kind.
    host.load(&fixture("with-zod")).await.unwrap();
    host.load(&fixture("env-inject")).await.unwrap();
    assert_eq!(kinds(&host), held);
    let out = open(&host, open_request()).await.unwrap();
    assert_eq!(
        (out["env"]["REGION"].as_str(), out["env"]["ZOD"].as_str()),
        (Some("eu"), Some("world:invalid"))
    );
    host.shutdown().await;
    assert!(host.standbys().is_empty());
}

#[tokio::test(flavor = "multi_thread")]
async fn notifications_held_during_a_reload_are_capped_and_the_rest_delivered() {
    let host = std::sync::Arc::new(PluginHost::new(HostOptions::default()));
    host.load(&fixture("held-notifications")).await.unwrap();
    let reload = {
        let host = host.clone();
        tokio::spawn(async move { host.reload("held-notifications").await })
    };
    // The old isolate's cleanup takes 3 s: everything below is emitted during the reload.
    tokio::time::sleep(Duration::from_millis(100)).await;
    let cap = paseo_plugin_runtime::host::HELD_NOTIFICATIONS;
    for i in 0..cap + 2 {
        let event = serde_json::json!({ "agent": agent(), "turnId": i.to_string(), "outcome": { "kind": "completed" }, "timeline": [] });
        host.notify_json("agent.turn.after", event);
    }
    assert!(
        !reload.is_finished(),
        "the reload ended before the notifications were emitted"
    );
    reload.await.unwrap().unwrap();
    let dropped = "Lifecycle hook agent.turn.after dropped: more than 10000 notifications held during a reload";
    assert_eq!(
        log_lines(&host, "held-notifications")
            .iter()
            .filter(|l| *l == dropped)
            .count(),
        2
    );
    // The new isolate got the held ones before anything emitted later.
    let count = host
        .call_rpc("held-notifications", "turns.count", serde_json::json!({}))
        .await
        .unwrap();
    assert_eq!(count, serde_json::json!(cap));
    host.shutdown().await;
}
