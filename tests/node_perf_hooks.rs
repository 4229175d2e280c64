//! `node:perf_hooks`' User Timing against Node: tests/fixtures/node-perf-hooks/shared/probe.mjs
//! runs inside the plugin and under `node`, and what each saw must be the same (marks and
//! measures and their shapes, the entry buffer and its lookups and clears, observers delivered
//! later in a batch, buffered observers, `timerify`'s function entries, Node's errors).
mod common;

use common::*;

#[tokio::test(flavor = "multi_thread")]
async fn user_timing_behaves_as_nodes() {
    let probe = fixture("node-perf-hooks").join("shared/probe.mjs");
    let node = under_node(&format!(
        "const {{ probe }} = await import({:?});\n\
         console.log(JSON.stringify(await probe(await import('node:perf_hooks'))));",
        probe.display().to_string(),
    ));
    assert_same_as_node(&plugin_result("node-perf-hooks").await, &node);
}
