//! Isolates booted from the V8 startup snapshot (runtime/src/engine/snapshot.rs): what the host's
//! bootstrap computes for one isolate at one moment (`performance.timeOrigin`, `process.env`)
//! is each isolate's own, not the snapshot's, and what should be random is. A process keeps the
//! snapshot in its cache folder for the next one, which boots from it and sees its own process.
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
    write_plugin(
        dir,
        "snapshot-probe",
        r#"import { env, pid, execPath } from "node:process";
const seen = {
  timeOrigin: performance.timeOrigin,
  timeOriginJson: performance.toJSON().timeOrigin,
  now: Date.now(),
  perfNow: performance.now(),
  uptime: process.uptime(),
  env: process.env.PASEO_SNAPSHOT_PROBE ?? null,
  importedEnv: env.PASEO_SNAPSHOT_PROBE ?? null,
  pid: process.pid,
  importedPid: pid,
  ppid: process.ppid,
  execPath: process.execPath,
  importedExecPath: execPath,
  argv0: process.argv[0],
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
    );
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
        // The isolate's clock started during its load, not when the snapshot was made. The
        // 2 ms below `before` are no timing guess: the origin is `Date.now()` (whole ms) less
        // the monotonic clock, and `before` is read in whole ms too, so each may round down 1 ms.
        let origin = f(seen, "timeOrigin");
        assert!(
            before - 2.0 <= origin && origin <= after,
            "timeOrigin {origin} outside its load [{before}, {after}]: {seen}"
        );
        assert_eq!(f(seen, "timeOriginJson"), origin, "{seen}");
        // `now` and `perfNow` are read one after the other, which took 2.7 ms once in a debug
        // build on a loaded machine. The bounds above are what tell the isolate's origin from
        // the snapshot's; this checks the clocks agree.
        assert!(
            (origin + f(seen, "perfNow") - f(seen, "now")).abs() < 20.0,
            "timeOrigin + performance.now() is not Date.now(): {seen}"
        );
        assert!(f(seen, "uptime") * 1e3 <= after - before + 2.0, "{seen}");
        // The environment as it was when the plugin loaded, through both faces of process.env.
        assert_eq!(seen["env"], value, "{seen}");
        assert_eq!(seen["importedEnv"], value, "{seen}");
        assert_eq!(seen["pid"], std::process::id(), "{seen}");
        assert_eq!(seen["importedPid"], std::process::id(), "{seen}");
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

/// One `paseo hook run` of the probe with `home` as PASEO_HOME: what the probe saw, the
/// process's pid and its stderr (with the snapshot's debug log).
fn run_cli(home: &Path, plugin: &Path, value: &str) -> (Value, u32, String) {
    let child = std::process::Command::new(env!("CARGO_BIN_EXE_paseo"))
        .args(["hook", "run", "--plugin"])
        .arg(plugin)
        .args(["agent.open.before", &open_request().to_string()])
        .env("PASEO_HOME", home)
        .env("PASEO_SNAPSHOT_PROBE", value)
        .env("PASEO_LOG", "paseo_plugin_runtime::engine::snapshot=debug")
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    let pid = child.id();
    let out = child.wait_with_output().unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr).into_owned();
    assert!(out.status.success(), "{stderr}");
    let printed: Value = serde_json::from_slice(&out.stdout).unwrap();
    let seen = printed["output"]["env"]["PROBE_snapshot-probe"]
        .as_str()
        .unwrap_or_else(|| panic!("{printed}"));
    (serde_json::from_str(seen).unwrap(), pid, stderr)
}

/// The snapshot files in the cache folder.
fn cached(home: &Path) -> Vec<std::path::PathBuf> {
    let dir = home.join("cache/v8-snapshot");
    let mut files: Vec<_> = std::fs::read_dir(dir)
        .map(|d| d.flatten().map(|e| e.path()).collect())
        .unwrap_or_default();
    files.sort();
    files
}

#[test]
fn the_next_process_boots_from_the_kept_snapshot_and_sees_its_own_process() {
    use std::os::unix::fs::PermissionsExt;
    let (home, plugin) = (tempfile::tempdir().unwrap(), tempfile::tempdir().unwrap());
    write_probe(plugin.path());
    let exe = std::fs::canonicalize(env!("CARGO_BIN_EXE_paseo")).unwrap();
    let exe = exe.to_str().unwrap();

    let (_, _, log) = run_cli(home.path(), plugin.path(), "first");
    assert!(log.contains("startup snapshot made"), "{log}");
    assert!(log.contains("startup snapshot written"), "{log}");
    let files = cached(home.path());
    assert_eq!(files.len(), 1, "{files:?}");
    let file = &files[0];
    let name = file.file_name().unwrap().to_str().unwrap();
    assert!(
        name.starts_with("v8-") && name.ends_with(".snapshot"),
        "{name}"
    );
    let mode = std::fs::metadata(file).unwrap().permissions().mode() & 0o777;
    assert_eq!(mode, 0o600);

    // The next process reads it and makes none; its isolate knows the process it runs in.
    let (seen, pid, log) = run_cli(home.path(), plugin.path(), "second");
    assert!(log.contains("startup snapshot read"), "{log}");
    assert!(!log.contains("startup snapshot made"), "{log}");
    assert_eq!(seen["pid"], pid, "{seen}");
    assert_eq!(seen["importedPid"], pid, "{seen}");
    assert_eq!(seen["ppid"], std::process::id(), "{seen}");
    assert_eq!(seen["execPath"], exe, "{seen}");
    assert_eq!(seen["importedExecPath"], exe, "{seen}");
    assert_eq!(seen["argv0"], exe, "{seen}");
    assert_eq!(seen["env"], "second", "{seen}");
    assert_eq!(seen["importedEnv"], "second", "{seen}");
    assert_eq!(seen["deno"], "undefined", "{seen}");

    // A damaged file is not used: the process makes the snapshot again and replaces it.
    let mut bytes = std::fs::read(file).unwrap();
    *bytes.last_mut().unwrap() ^= 1;
    std::fs::write(file, &bytes).unwrap();
    let (seen, _, log) = run_cli(home.path(), plugin.path(), "third");
    assert!(
        log.contains("is not used (its checksum does not match); making it again"),
        "{log}"
    );
    assert!(log.contains("startup snapshot made"), "{log}");
    assert_eq!(seen["env"], "third", "{seen}");
    assert_ne!(std::fs::read(file).unwrap(), bytes);

    // Nor is one others could have written.
    std::fs::set_permissions(file, std::fs::Permissions::from_mode(0o644)).unwrap();
    let (_, _, log) = run_cli(home.path(), plugin.path(), "fourth");
    assert!(
        log.contains("is not used (mode 644, open to others)"),
        "{log}"
    );
    assert!(log.contains("startup snapshot written"), "{log}");
    let mode = std::fs::metadata(file).unwrap().permissions().mode() & 0o777;
    assert_eq!(mode, 0o600);
    let (_, _, log) = run_cli(home.path(), plugin.path(), "fifth");
    assert!(log.contains("startup snapshot read"), "{log}");

    // A snapshot of another build (another file name) is removed when this one is written.
    let stale = home
        .path()
        .join("cache/v8-snapshot/v8-00000000000000000000000000000000.snapshot");
    std::fs::write(&stale, b"stale").unwrap();
    std::fs::remove_file(file).unwrap();
    let (_, _, log) = run_cli(home.path(), plugin.path(), "sixth");
    assert!(log.contains("startup snapshot written"), "{log}");
    assert_eq!(cached(home.path()), vec![file.clone()]);
}
