//! Isolates booted from the V8 startup snapshot (runtime/src/engine/snapshot.rs): what the host's
//! bootstrap computes for one isolate at one moment (`performance.timeOrigin`, `process.env`)
//! is each isolate's own, not the snapshot's, and what should be random is.
#![cfg(feature = "v8")]

mod common;

use std::path::Path;
use std::time::{Duration, SystemTime, UNIX_EPOCH};

use common::*;
use paseo_plugin_runtime::engine::snapshot;
use paseo_plugin_runtime::PluginHost;
use serde_json::Value;

/// A plugin that reports, in `agent.open.before`'s env (`PROBE_<id>`), what its isolate saw
/// while its module was evaluated.
fn write_probe(dir: &Path) {
    std::fs::write(
        dir.join("paseo-plugin.json"),
        r#"{ "id": "snapshot-probe", "requirements": { "paseo": ">=0.8.0" } }"#,
    )
    .unwrap();
    std::fs::write(
        dir.join("index.server.ts"),
        r#"import { env } from "node:process";
const seen = {
  timeOrigin: performance.timeOrigin,
  timeOriginJson: performance.toJSON().timeOrigin,
  now: Date.now(),
  perfNow: performance.now(),
  uptime: process.uptime(),
  env: process.env.PASEO_SNAPSHOT_PROBE ?? null,
  importedEnv: env.PASEO_SNAPSHOT_PROBE ?? null,
  random: Math.random(),
  uuid: crypto.randomUUID(),
  deno: typeof Deno,
  start: typeof globalThis[Symbol.for("paseo.start")],
  url: new URL("../b?x=1", "https://example.com/a/").href,
};
export default function contribute(server: any) {
  server.addHook("agent.open.before", async ({ request }: any) => ({
    ...request,
    env: { ...request.env, [`PROBE_${server.pluginId}`]: JSON.stringify(seen) },
  }));
  return () => {};
}
"#,
    )
    .unwrap();
}

fn wall_ms() -> f64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .unwrap()
        .as_secs_f64()
        * 1e3
}

/// Loads the probe as `id` with the environment variable set to `value`, and the wall-clock
/// time before and after the load.
async fn load(host: &PluginHost, dir: &Path, id: &str, value: &str) -> (f64, f64) {
    std::env::set_var("PASEO_SNAPSHOT_PROBE", value);
    let before = wall_ms();
    host.load_with(dir, Some(id), None).await.unwrap();
    (before, wall_ms())
}

#[tokio::test(flavor = "multi_thread")]
async fn isolates_booted_from_the_snapshot_have_their_own_time_origin_environment_and_randomness() {
    let dir = tempfile::tempdir().unwrap();
    write_probe(dir.path());
    // No standby: each load boots its isolate then.
    let host = host();
    let (a_before, a_after) = load(&host, dir.path(), "probe-a", "first").await;
    assert!(
        snapshot::made().is_some(),
        "the V8 build boots isolates from a startup snapshot"
    );
    tokio::time::sleep(Duration::from_millis(150)).await;
    let (b_before, b_after) = load(&host, dir.path(), "probe-b", "second").await;
    std::env::remove_var("PASEO_SNAPSHOT_PROBE");

    let out = open(&host, open_request()).await.unwrap();
    let seen = |id: &str| -> Value {
        serde_json::from_str(out["env"][format!("PROBE_{id}")].as_str().unwrap()).unwrap()
    };
    let (a, b) = (seen("probe-a"), seen("probe-b"));
    let f = |v: &Value, k: &str| v[k].as_f64().unwrap_or_else(|| panic!("{k} in {v}"));
    for (seen, before, after, value) in [
        (&a, a_before, a_after, "first"),
        (&b, b_before, b_after, "second"),
    ] {
        // The isolate's clock started during its load, not when the snapshot was made.
        let origin = f(seen, "timeOrigin");
        assert!(
            before - 2.0 <= origin && origin <= after,
            "timeOrigin {origin} outside its load [{before}, {after}]: {seen}"
        );
        assert_eq!(f(seen, "timeOriginJson"), origin, "{seen}");
        assert!(
            (origin + f(seen, "perfNow") - f(seen, "now")).abs() < 2.0,
            "timeOrigin + performance.now() is not Date.now(): {seen}"
        );
        assert!(f(seen, "uptime") * 1e3 <= after - before + 2.0, "{seen}");
        // The environment as it was when the plugin loaded, through both faces of process.env.
        assert_eq!(seen["env"], value, "{seen}");
        assert_eq!(seen["importedEnv"], value, "{seen}");
        // Host internals are hidden, the bootstrap's globals work.
        assert_eq!(seen["deno"], "undefined", "{seen}");
        assert_eq!(seen["start"], "undefined", "{seen}");
        assert_eq!(seen["url"], "https://example.com/b?x=1", "{seen}");
    }
    assert!(
        f(&b, "timeOrigin") - f(&a, "timeOrigin") >= 150.0,
        "{a} {b}"
    );
    assert_ne!(a["random"], b["random"], "Math.random");
    assert_ne!(a["uuid"], b["uuid"], "crypto.randomUUID");
    host.shutdown().await;
}

/// The isolates of plugins loading at once wait for the snapshot while it is being made, and
/// each has its own `Math.random` state.
#[tokio::test(flavor = "multi_thread")]
async fn plugins_loading_at_once_boot_from_the_one_snapshot() {
    let dir = tempfile::tempdir().unwrap();
    write_probe(dir.path());
    let host = std::sync::Arc::new(host());
    let ids: Vec<String> = (0..6).map(|i| format!("probe-{i}")).collect();
    let loads: Vec<_> = ids
        .iter()
        .map(|id| {
            let (host, dir, id) = (host.clone(), dir.path().to_path_buf(), id.clone());
            tokio::spawn(async move { host.load_with(&dir, Some(&id), None).await })
        })
        .collect();
    for load in loads {
        load.await.unwrap().unwrap();
    }
    assert!(snapshot::made().is_some());
    let out = open(&host, open_request()).await.unwrap();
    let mut randoms = Vec::new();
    for id in &ids {
        let seen: Value =
            serde_json::from_str(out["env"][format!("PROBE_{id}")].as_str().unwrap()).unwrap();
        assert_eq!(seen["deno"], "undefined", "{seen}");
        randoms.push(seen["random"].to_string());
    }
    randoms.sort();
    randoms.dedup();
    assert_eq!(
        randoms.len(),
        ids.len(),
        "each isolate has its own Math.random"
    );
    host.shutdown().await;
}
