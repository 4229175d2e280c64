//! `node:fs` streams, FileHandle and watchers. The probe
//! (tests/fixtures/node-fs-streams/shared/probe.mjs) runs inside the plugin and under `node`,
//! each in a fresh folder, and what each saw (event order, chunk sizes, contents, bytesRead and
//! bytesWritten, errors, watch events) must be the same. Then, on plugins loaded as the daemon
//! loads them: a Transform between a read and a write stream, FIFOs read and written without
//! holding the plugin's thread, watchers ending with their isolate (stop, reload), and
//! node:stream left unevaluated for a plugin that only reads files.
mod common;

use common::*;
use serde_json::{json, Value};

#[tokio::test(flavor = "multi_thread")]
async fn fs_streams_and_watchers_behave_as_nodes() {
    let _one_at_a_time = WATCHING.lock().await;
    let dir = tempfile::tempdir().unwrap();
    let probe = fixture("node-fs-streams").join("shared/probe.mjs");
    let node = under_node(&format!(
        "const {{ probe }} = await import({:?});\n\
         const fs = await import('node:fs'), fsp = await import('node:fs/promises'), stream = await import('node:stream');\n\
         console.log(JSON.stringify(await probe({:?}, fs.default, fsp.default, stream.default)));",
        probe.display().to_string(),
        dir.path().display().to_string(),
    ));
    assert_same_as_node(&plugin_result("node-fs-streams").await, &node);
}

/// Watchers make threads (notify's) that these tests count: one test at a time.
static WATCHING: tokio::sync::Mutex<()> = tokio::sync::Mutex::const_new(());

/// notify's inotify thread, as /proc shows its name.
const NOTIFY_THREAD: &str = "notify-rs inoti";

fn notify_threads() -> usize {
    threads().iter().filter(|t| *t == NOTIFY_THREAD).count()
}

fn request_in(dir: &std::path::Path, action: &str) -> Value {
    let mut request = open_request();
    request["cwd"] = json!(dir);
    request["labels"] = json!({ "do": action });
    request
}

#[tokio::test(flavor = "multi_thread")]
async fn a_plugin_streams_a_file_through_a_transform_into_a_write_stream() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(
        dir.path().join("input.txt"),
        "alpha\nbeta\ngamma delta\nlast",
    )
    .unwrap();
    let host = host();
    load_all(&host, &["node-fs-transform"]).await;
    let out = open(&host, request_in(dir.path(), "")).await.unwrap();
    host.shutdown().await;
    let result: Value = serde_json::from_str(out["env"]["RESULT"].as_str().unwrap()).unwrap();
    let expected = "1: ALPHA\n2: BETA\n3: GAMMA DELTA\n4: LAST\n";
    assert_eq!(result["written"], expected, "{result}");
    assert_eq!(
        std::fs::read_to_string(dir.path().join("output.txt")).unwrap(),
        expected
    );
    assert_eq!(result["bytesRead"], 27);
    assert_eq!(result["bytesWritten"], expected.len());
    assert_eq!(result["lines"], 4);
    assert_eq!(result["closed"], json!([true, true]));
}

/// Watchers (fs.watch, recursive or not, and watchFile) end with their isolate: after a stop or
/// a reload no notify thread is left, and the plugin (reloaded twice, watching again each
/// time) still answers, with no crash in its log.
#[tokio::test(flavor = "multi_thread")]
async fn watchers_end_when_the_plugin_is_stopped_or_reloaded() {
    let _one_at_a_time = WATCHING.lock().await;
    let before = notify_threads();
    let dir = tempfile::tempdir().unwrap();
    let id = "node-fs-watch-reload";
    let host = host();
    load_all(&host, &[id]).await;
    let seen = |out: Value| -> Vec<String> {
        serde_json::from_str(out["env"]["SEEN"].as_str().unwrap()).unwrap()
    };
    for round in 0..3 {
        open(&host, request_in(dir.path(), "watch")).await.unwrap();
        // One notify thread for all of the isolate's watchers.
        assert_eq!(notify_threads(), before + 1, "round {round}");
        let file = dir.path().join(format!("file-{round}"));
        std::fs::write(&file, "x").unwrap();
        std::fs::write(dir.path().join("polled"), "grown").unwrap();
        let name = format!("file-{round}");
        let mut events = Vec::new();
        for _ in 0..300 {
            events = seen(open(&host, request_in(dir.path(), "events")).await.unwrap());
            let all = [
                format!("rename:{name}"),
                format!("recursive rename:{name}"),
                "polled:5".to_string(),
            ];
            if all.iter().all(|e| events.contains(e)) {
                break;
            }
            tokio::time::sleep(std::time::Duration::from_millis(10)).await;
        }
        assert!(events.contains(&format!("rename:{name}")), "{events:?}");
        assert!(
            events.contains(&format!("recursive rename:{name}")),
            "{events:?}"
        );
        assert!(events.contains(&"polled:5".to_string()), "{events:?}");
        if round < 2 {
            host.reload(id).await.unwrap();
        } else {
            host.stop(id).await.unwrap();
        }
        assert!(
            settle(|| notify_threads() == before),
            "round {round}: {:?}",
            threads()
        );
        // Changes while no isolate watches reach nobody; the reloaded plugin starts afresh.
        std::fs::write(&file, "changed").unwrap();
        if round < 2 {
            let events = seen(open(&host, request_in(dir.path(), "events")).await.unwrap());
            assert!(events.is_empty(), "round {round}: {events:?}");
        }
    }
    let logs = log_lines(&host, id);
    assert!(
        logs.iter()
            .all(|l| !l.contains("crashed") && !l.contains("panic")),
        "{logs:?}"
    );
    host.shutdown().await;
}

/// A read stream on a FIFO waits for a writer without holding the plugin's thread (the plugin
/// answers meanwhile), a write stream waits for a reader the same way, and a plugin stopped
/// with a read still waiting stops at once.
#[tokio::test(flavor = "multi_thread")]
async fn fifos_are_streamed_without_holding_the_plugin() {
    let dir = tempfile::tempdir().unwrap();
    for name in ["fifo-in", "fifo-out"] {
        let path = dir.path().join(name);
        let made = std::process::Command::new("mkfifo")
            .arg(&path)
            .status()
            .unwrap();
        assert!(made.success());
    }
    let host = host();
    load_all(&host, &["node-fs-fifo"]).await;
    let state = |out: Value| {
        (
            out["env"]["TEXT"].as_str().unwrap().to_string(),
            out["env"]["EVENTS"].as_str().unwrap().to_string(),
        )
    };
    open(&host, request_in(dir.path(), "read")).await.unwrap();
    open(&host, request_in(dir.path(), "write")).await.unwrap();
    // Nobody has opened the other ends yet: the plugin still answers.
    tokio::time::sleep(std::time::Duration::from_millis(100)).await;
    let (text, events) = state(open(&host, request_in(dir.path(), "state")).await.unwrap());
    assert_eq!((text.as_str(), events.as_str()), ("", "read open"));

    let (fifo_in, fifo_out) = (dir.path().join("fifo-in"), dir.path().join("fifo-out"));
    let written = tokio::task::spawn_blocking(move || {
        std::fs::write(&fifo_in, "through a fifo").unwrap();
        std::fs::read_to_string(&fifo_out).unwrap()
    });
    let written = tokio::time::timeout(std::time::Duration::from_secs(10), written)
        .await
        .expect("the plugin opens, writes and closes fifo-out")
        .unwrap();
    assert_eq!(written, "from the plugin");
    let mut seen = (String::new(), String::new());
    for _ in 0..300 {
        seen = state(open(&host, request_in(dir.path(), "state")).await.unwrap());
        if seen.1.contains("read end") && seen.1.contains("write finish") {
            break;
        }
        tokio::time::sleep(std::time::Duration::from_millis(10)).await;
    }
    assert_eq!(seen.0, "through a fifo", "{seen:?}");
    // The read and the write go on side by side: each in its own order.
    let events: Vec<&str> = seen.1.split(',').collect();
    let of = |side: &str| -> Vec<&str> {
        events
            .iter()
            .copied()
            .filter(|e| e.starts_with(side))
            .collect()
    };
    assert_eq!(of("read"), ["read open", "read end"], "{seen:?}");
    assert_eq!(of("write"), ["write open", "write finish 15"], "{seen:?}");

    // A read waiting on a FIFO nobody writes does not keep the plugin from stopping.
    open(&host, request_in(dir.path(), "read")).await.unwrap();
    tokio::time::timeout(
        std::time::Duration::from_secs(10),
        host.stop("node-fs-fifo"),
    )
    .await
    .expect("the plugin stops with a FIFO read pending")
    .unwrap();
    host.shutdown().await;
}

/// A plugin that only uses readFileSync does not evaluate node:stream (`process.moduleLoadList`,
/// as in Node, lists the builtins evaluated); its first file stream does.
#[tokio::test(flavor = "multi_thread")]
async fn read_file_sync_alone_does_not_evaluate_node_stream() {
    let dir = tempfile::tempdir().unwrap();
    let host = host();
    load_all(&host, &["node-fs-lazy/reads"]).await;
    let evaluated = |out: &serde_json::Value| -> Vec<String> {
        assert_eq!(out["env"]["LENGTH"], "400", "{out}");
        out["env"]["EVALUATED"]
            .as_str()
            .unwrap()
            .split(',')
            .map(String::from)
            .collect()
    };
    let reading = evaluated(&open(&host, request_in(dir.path(), "read")).await.unwrap());
    assert!(
        reading.contains(&"NativeModule fs".to_string()),
        "{reading:?}"
    );
    assert!(
        !reading.contains(&"NativeModule stream".to_string()),
        "{reading:?}"
    );
    let streaming = evaluated(&open(&host, request_in(dir.path(), "stream")).await.unwrap());
    assert!(
        streaming.contains(&"NativeModule stream".to_string()),
        "{streaming:?}"
    );
    host.shutdown().await;
}
