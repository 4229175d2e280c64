//! `node:child_process` against Node: tests/fixtures/node-child-process/shared/probe.mjs runs
//! inside the plugin and under `node`, each with a fresh folder, and what each saw (output,
//! events and their order, exit codes and signals, kill, timeouts, AbortSignal, the callback,
//! promisified and sync forms, errors with their fields) must be the same. What only the engine
//! does is checked apart: 'inherit' into the plugin's log, 'ipc' and fork() refused, children
//! ended with their plugin.
mod common;

use common::*;
use serde_json::{json, Value};

/// Runs the fixture's hook (cwd = a fresh temp dir): the probe's result, the engine-only
/// checks, and the plugin's log.
async fn results() -> (Value, Value, Vec<String>) {
    let dir = tempfile::tempdir().unwrap();
    let host = host();
    load_all(&host, &["node-child-process"]).await;
    let mut request = open_request();
    request["cwd"] = json!(dir.path());
    let out = open(&host, request).await.unwrap();
    let parse = |key: &str| serde_json::from_str(out["env"][key].as_str().unwrap()).unwrap();
    let (probe, engine) = (parse("RESULT"), parse("ENGINE"));
    let logs = log_lines(&host, "node-child-process");
    host.shutdown().await;
    (probe, engine, logs)
}

#[tokio::test(flavor = "multi_thread")]
async fn child_process_behaves_like_node() {
    let dir = tempfile::tempdir().unwrap();
    let probe = fixture("node-child-process").join("shared/probe.mjs");
    let node = under_node(&format!(
        "const {{ probe }} = await import({:?});\n\
         const cp = await import('node:child_process'), {{ promisify }} = await import('node:util');\n\
         const {{ Buffer }} = await import('node:buffer');\n\
         console.log(JSON.stringify(await probe({:?}, cp, promisify, Buffer)));",
        probe.display().to_string(),
        dir.path().display().to_string(),
    ));
    let (ours, engine, logs) = results().await;
    assert_same_as_node(&ours, &node);

    // stdio 'inherit' goes to the plugin's log (a plugin has no terminal), and so does the
    // inherited stderr of the probe's failing execSync.
    for line in ["to-log", "err-log", "logged-stderr"] {
        assert!(
            logs.iter().any(|l| l == line),
            "{line} missing from {logs:?}"
        );
    }
    // The engine's limits, in its own words.
    assert_eq!(
        engine,
        json!({
            "ipc": "node:child_process stdio 'ipc' is not supported by the Paseo plugin host yet",
            "fork": "node:child_process.fork is not supported by the Paseo plugin host yet",
        })
    );
}

fn alive(pid: &str) -> bool {
    // A zombie waiting to be reaped counts as gone.
    std::fs::read_to_string(format!("/proc/{pid}/stat"))
        .is_ok_and(|s| !s.split(") ").nth(1).unwrap_or("").starts_with('Z'))
}

#[tokio::test(flavor = "multi_thread")]
async fn children_end_with_their_plugin_unless_detached() {
    let host = host();
    load_all(&host, &["node-child-process"]).await;
    let mut request = open_request();
    request["labels"] = json!({ "cp": "linger" });
    let out = open(&host, request).await.unwrap();
    let pids: Vec<String> = out["env"]["PIDS"]
        .as_str()
        .unwrap()
        .split(',')
        .map(String::from)
        .collect();
    assert!(alive(&pids[0]) && alive(&pids[1]));
    host.stop("node-child-process").await.unwrap();
    for _ in 0..100 {
        if !alive(&pids[0]) {
            break;
        }
        tokio::time::sleep(std::time::Duration::from_millis(20)).await;
    }
    assert!(!alive(&pids[0]), "the attached child outlived its plugin");
    assert!(alive(&pids[1]), "the detached child was killed");
    std::process::Command::new("kill")
        .arg(&pids[1])
        .status()
        .unwrap();
}
