//! The task queues: process.nextTick runs before promise continuations already queued, after
//! each timer callback, I/O callback and immediate, and setImmediate runs in the check phase
//! (before a 0 ms timeout queued beside it from an I/O callback), as in Node.
//! tests/fixtures/node-task-queues/shared/probe.mjs runs inside the plugin and under `node`; the
//! results must be equal.

mod common;

use common::*;

#[tokio::test(flavor = "multi_thread")]
async fn ticks_continuations_immediates_and_timers_run_in_nodes_order() {
    let ours = plugin_result("node-task-queues").await;
    let probe = fixture("node-task-queues").join("shared/probe.mjs");
    let dir = tempfile::tempdir().unwrap();
    let script = format!(
        "const {{ probe }} = await import({:?});\n\
         const fs = (await import('node:fs')).default;\n\
         console.log(JSON.stringify(await probe({{ fs, dir: {:?} }})));",
        probe.display().to_string(),
        dir.path().display().to_string(),
    );
    let node = tokio::task::spawn_blocking(move || under_node(&script))
        .await
        .unwrap();
    assert_eq!(node["fromTimer"][1], "sync end", "{node}");
    assert_eq!(
        node["betweenIoCallbacks"],
        serde_json::json!([
            "1",
            "1.tick",
            "1.promise",
            "2",
            "2.tick",
            "2.promise",
            "3",
            "3.tick",
            "3.promise"
        ]),
        "{node}"
    );
    assert_same_as_node(&ours, &node);
}

/// A tick, an immediate, a timer, a microtask or an I/O callback that throws is reported in the
/// plugin's log (Node would end the process; a plugin cannot end the daemon), the ticks and
/// immediates queued after it still run, and the plugin goes on serving.
#[tokio::test(flavor = "multi_thread")]
async fn a_throwing_tick_immediate_or_timer_is_logged_and_the_plugin_goes_on() {
    let dir = tempfile::tempdir().unwrap();
    write_plugin(
        dir.path(),
        "throwing-queues",
        r#"import fs from "node:fs";
export default function (s: any) {
  s.addHook("agent.open.before", async ({ request }: any) => {
    const ran: string[] = [];
    process.nextTick(() => { throw new Error("tick boom"); });
    process.nextTick(() => ran.push("tick"));
    setImmediate(() => { throw new Error("immediate boom"); });
    setImmediate(() => ran.push("immediate"));
    setTimeout(() => { throw new Error("timer boom"); }, 0);
    queueMicrotask(() => { throw new Error("microtask boom"); });
    fs.close(fs.openSync("/dev/null", "r"), () => { throw new Error("io boom"); });
    fs.close(fs.openSync("/dev/null", "r"), () => ran.push("io"));
    await new Promise((resolve) => setTimeout(resolve, 30));
    return { ...request, env: { ...request.env, RAN: ran.join(",") } };
  });
  return () => {};
}
"#,
    );
    let host = host();
    host.load(dir.path()).await.unwrap();
    let out = open(&host, open_request()).await.unwrap();
    assert_eq!(out["env"]["RAN"], "tick,io,immediate", "{out}");
    let logs = log_lines(&host, "throwing-queues");
    for boom in [
        "tick boom",
        "immediate boom",
        "timer boom",
        "microtask boom",
        "io boom",
    ] {
        assert!(
            logs.iter()
                .any(|l| l.starts_with("[paseo] Uncaught error: Error: ") && l.contains(boom)),
            "{boom} not logged: {logs:#?}"
        );
    }
    // Still serving.
    let again = open(&host, open_request()).await.unwrap();
    assert_eq!(again["env"]["RAN"], "tick,io,immediate", "{again}");
    host.shutdown().await;
}
