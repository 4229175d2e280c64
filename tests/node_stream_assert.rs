//! `node:stream`, `node:stream/promises`, `node:string_decoder`, `node:assert`,
//! `node:assert/strict`, `node:querystring` and `node:perf_hooks` against Node:
//! tests/fixtures/node-stream-assert/shared/probe.mjs, and every scenario of its
//! server/scenarios.js, run inside the plugin and under `node`, and what each saw (events in
//! order, values, error classes, codes and messages) must be the same. What only the engine does
//! is checked apart: the members it does not support, and a CommonJS stream consumer.

mod common;

use common::*;
use serde_json::{json, Value};

/// The fixture's answer to `request`: its RESULT, and its ENGINE if it has one.
async fn results_with(request: Value) -> (Value, Value) {
    let host = host();
    load_all(&host, &["node-stream-assert"]).await;
    let out = open(&host, request)
        .await
        .unwrap_or_else(|e| panic!("{e}\n{:?}", log_lines(&host, "node-stream-assert")));
    host.shutdown().await;
    let parse = |key: &str| {
        out["env"][key]
            .as_str()
            .map_or(Value::Null, |s| serde_json::from_str(s).unwrap())
    };
    (parse("RESULT"), parse("ENGINE"))
}

/// The modules the probe and the scenarios take, as Node gives them (JS statements).
const NODE_MODULES: &str = "\
    const stream = await import('node:stream'), streamPromises = await import('node:stream/promises');\n\
    const stringDecoder = await import('node:string_decoder'), querystring = await import('node:querystring');\n\
    const assert = (await import('node:assert')).default, strict = (await import('node:assert/strict')).default;\n\
    const perfHooks = await import('node:perf_hooks'), bareStream = await import('stream');\n\
    const util = await import('node:util'), events = await import('node:events');\n\
    const { Buffer } = await import('node:buffer');\n";

#[tokio::test(flavor = "multi_thread")]
async fn streams_decoder_assert_querystring_and_clock_behave_as_nodes() {
    let probe = fixture("node-stream-assert").join("shared/probe.mjs");
    let node = under_node(&format!(
        "{NODE_MODULES}const {{ probe }} = await import({:?});\n\
         const mods = {{ stream, streamPromises, stringDecoder, assert, strict, querystring, perfHooks, bareStream }};\n\
         console.log(JSON.stringify(await probe(mods, Buffer)));",
        probe.display().to_string(),
    ));
    let (ours, _) = results_with(open_request()).await;
    assert_same_as_node(&ours, &node);
}

/// The engine's own texts for what it lacks, and for `assert.ok(0)`, whose source Node quotes
/// ("The expression evaluated to a falsy value: assert.ok(0)") and the engine cannot: it says
/// what Node says for code without a source (the probe compares that case with Node).
#[tokio::test(flavor = "multi_thread")]
async fn gaps_fail_naming_the_member() {
    let (_, engine) = results_with(open_request()).await;
    assert_eq!(
        engine,
        json!({
            "compose": "Error||node:stream.compose is not supported by the Paseo plugin host yet",
            "writableToWeb": "Error||node:stream.Writable.toWeb is not supported by the Paseo plugin host yet",
            "perfMonitor": "Error||node:perf_hooks.monitorEventLoopDelay is not supported by the Paseo plugin host yet",
            "perfHistogram": "Error||node:perf_hooks.createHistogram is not supported by the Paseo plugin host yet",
            "okFalsy": "AssertionError|ERR_ASSERTION|0 == true",
        })
    );
}

// Scenarios whose timing differs from Node's in the engine (none since process.nextTick has
// its own queue).
const NODE_TIMING_ONLY: &[&str] = &[];

// Every scenario in server/scenarios.js logs the same in the engine as under Node.
// (js/node/test/check-stream-assert.mjs also runs them, with the engine's JS on Node's runtime.)
#[tokio::test(flavor = "multi_thread")]
async fn scenarios_log_what_node_logs() {
    let scenarios = fixture("node-stream-assert").join("server/scenarios.js");
    let mut node = under_node(&format!(
        "{NODE_MODULES}const {{ runAll }} = await import({:?});\n\
         const mods = {{ stream, promises: streamPromises, decoder: stringDecoder, assert, qs: querystring, util, events }};\n\
         console.log(JSON.stringify(await runAll(mods)));",
        scenarios.display().to_string(),
    ));
    let mut request = open_request();
    request["env"]["CHECK_SCENARIOS"] = json!("1");
    let (mut ours, _) = results_with(request).await;
    let count = node.as_object().unwrap().len();
    assert!(count > 50, "only {count} scenarios ran under node");
    for label in NODE_TIMING_ONLY {
        node.as_object_mut().unwrap().remove(*label);
        ours.as_object_mut().unwrap().remove(*label);
    }
    assert_same_as_node(&ours, &node);
}

// A CommonJS dependency written like split2/through2: `require("stream")`, `require("string_decoder")`
// and a `util.inherits` Transform subclass. Ignored because `require()` of any builtin that has
// imports of its own (node:os, node:fs, node:stream, …) aborts the process: deno_core's
// op_import_sync asserts its resolve callback only sees "original" (ops_builtin.rs:703), and under
// QuickJS it is also called for the builtin's own imports.
#[tokio::test(flavor = "multi_thread")]
async fn commonjs_stream_consumers_work() {
    let mut request = open_request();
    request["env"]["CHECK_CJS"] = json!("1");
    let (r, _) = results_with(request).await;
    assert_eq!(r["cjsSplit"], "> one|> two é€|> three");
}
