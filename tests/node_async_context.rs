//! `node:async_hooks`, `node:v8` and `node:vm` against Node:
//! tests/fixtures/node-async-context/shared/probe.mjs runs inside the plugin and under `node`,
//! and what each saw must be the same (a store followed across awaits, timers, immediates, ticks,
//! microtasks and nested or concurrent runs; bound and snapshot callbacks; AsyncResource's scope
//! and hooks; v8's round trip, statistics and errors; vm's contexts, assignments and globals).
//! What only this host can be asked (its stand-ins, the heap cap as V8's limit) is checked here.
mod common;

use common::*;
use serde_json::{json, Value};

#[tokio::test(flavor = "multi_thread")]
async fn async_hooks_v8_and_vm_behave_as_nodes() {
    let probe = fixture("node-async-context").join("shared/probe.mjs");
    let node = under_node(&format!(
        "process.noDeprecation = true;\n\
         const {{ probe }} = await import({:?});\n\
         const asyncHooks = await import('node:async_hooks'), v8 = await import('node:v8'), vm = await import('node:vm');\n\
         const {{ EventEmitter }} = await import('node:events');\n\
         console.log(JSON.stringify(await probe({{ asyncHooks, v8, vm, EventEmitter }})));",
        probe.display().to_string(),
    ));
    assert_same_as_node(&plugin_result("node-async-context").await, &node);
}

#[tokio::test(flavor = "multi_thread")]
async fn stand_ins_name_themselves_and_the_heap_limit_is_the_plugins_cap() {
    let dir = tempfile::tempdir().unwrap();
    let host = host();
    load_all(&host, &["node-async-context"]).await;
    let mut request = open_request();
    request["cwd"] = json!(dir.path());
    let out = open(&host, request).await.unwrap();
    let engine: Value = serde_json::from_str(out["env"]["ENGINE"].as_str().unwrap()).unwrap();
    let missing = |member: &str| json!({ "name": "Error", "message": format!("v8.{member} is not supported by the Paseo plugin host yet") });
    assert_eq!(engine["heapSnapshot"], missing("getHeapSnapshot"));
    assert_eq!(engine["serializerClass"], missing("Serializer"));
    assert_eq!(engine["top"], json!([1, 0]));
    let limit = engine["heapLimit"].as_u64().unwrap();
    assert_eq!(
        limit,
        paseo_plugin_runtime::Limits::default().heap_bytes as u64
    );
    // Accessing a bound function's asyncResource warns once, as Node does (DEP0172).
    let logs = log_lines(&host, "node-async-context");
    assert_eq!(
        logs.iter()
            .filter(|l| l.contains("DEP0172") || l.contains("asyncResource property"))
            .count(),
        1,
        "{logs:?}"
    );
    host.shutdown().await;
}
