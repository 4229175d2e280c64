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
    assert_same_as_node(&ours, &node);
}
