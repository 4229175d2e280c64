//! `node:tty`, `diagnostics_channel`, `constants`, `punycode`, `util/types`, `stream/web`,
//! `worker_threads`, `http2`, `readline` and `readline/promises` against Node:
//! tests/fixtures/node-builtins-more/shared/probe.mjs runs inside the plugin and under `node`, and
//! what each saw must be the same (tty and the colour libraries on it, channel publish order and
//! tracing contexts, the constants' values, RFC 3492's samples, lines read from chunked streams,
//! questions, cursor sequences, the settings and constants of http2). What only this host can be
//! asked (what its stand-ins for workers, http2 sessions and the missing web streams throw, a
//! terminal stream's size) is checked here from the fixture's `env.ENGINE`.
mod common;

use common::*;
use serde_json::{json, Value};
use std::time::Duration;

#[tokio::test(flavor = "multi_thread")]
async fn more_builtins_behave_as_nodes() {
    let fixture = fixture("node-builtins-more");
    let probe = fixture.join("shared/probe.mjs");
    let package = |path: &str| {
        fixture
            .join("node_modules")
            .join(path)
            .display()
            .to_string()
    };
    // node:constants first: Node adds `defaultCipherList` to it when node:crypto was loaded before.
    // A subscriber's error is rethrown in a later tick (Node's uncaughtException; the engine logs
    // it, see below): the script takes that one and fails on anything else.
    let node = under_node(&format!(
        "const later = [];\n\
         process.on('uncaughtException', (e) => {{ if (e?.message !== 'subscriber boom') {{ console.error(e); process.exit(1); }} later.push(e.message); }});\n\
         const constants = (await import('node:constants')).default, constantsNs = await import('node:constants');\n\
         const {{ probe }} = await import({probe:?});\n\
         const tty = (await import('node:tty')).default, diagnosticsChannel = await import('node:diagnostics_channel');\n\
         const punycode = (await import('node:punycode')).default, utilTypes = await import('node:util/types');\n\
         const util = (await import('node:util')).default, streamWeb = await import('node:stream/web');\n\
         const workerThreads = await import('node:worker_threads'), http2 = await import('node:http2');\n\
         const readline = await import('node:readline'), readlinePromises = await import('node:readline/promises');\n\
         const stream = (await import('node:stream')).default, net = (await import('node:net')).default;\n\
         const {{ Buffer }} = await import('node:buffer');\n\
         const chalk = (await import({chalk:?})).default, debug = (await import({debug:?})).default;\n\
         const supportsColor = (await import({supports:?})).default;\n\
         const result = await probe({{ tty, diagnosticsChannel, constants, constantsNs, punycode, utilTypes, util, streamWeb,\n\
           workerThreads, http2, readline, readlinePromises, stream, net, Buffer, chalk, debug, supportsColor }});\n\
         await new Promise((resolve) => setTimeout(resolve, 10));\n\
         if (!later.includes('subscriber boom')) throw new Error('the subscriber error was not reported');\n\
         console.log(JSON.stringify(result));",
        probe = probe.display().to_string(),
        chalk = package("chalk/source/index.js"),
        debug = package("debug/src/index.js"),
        supports = package("supports-color/index.js"),
    ));
    assert_same_as_node(&plugin_result("node-builtins-more").await, &node);
}

/// Node's error text for a member this host does not have yet.
fn missing(member: &str) -> Value {
    json!({ "name": "Error", "message": format!("{member} is not supported by the Paseo plugin host yet") })
}

#[tokio::test(flavor = "multi_thread")]
async fn stand_ins_throw_naming_themselves_and_subscriber_errors_are_reported() {
    let dir = tempfile::tempdir().unwrap();
    let host = host();
    load_all(&host, &["node-builtins-more"]).await;
    let mut request = open_request();
    request["cwd"] = json!(dir.path());
    let out = open(&host, request).await.unwrap();
    let engine: Value = serde_json::from_str(out["env"]["ENGINE"].as_str().unwrap()).unwrap();

    // A terminal stream, made anyway: a net.Socket writing to the log, 80×24, no colours.
    assert_eq!(
        engine["ttyChain"],
        json!([true, true, true, true, "function", "function"])
    );
    assert_eq!(
        engine["ttyWriteStream"],
        json!([true, 80, 24, [80, 24], 1, false, true, true, true, true])
    );
    assert_eq!(
        engine["ttyReadStream"],
        json!([true, false, true, true, true])
    );
    assert_eq!(
        engine["cursorOnStream"],
        json!([[true, true], ["\u{1b}[1;1H", "\u{1b}[1C"]])
    );

    let web: Vec<Value> = [
        "WritableStream",
        "WritableStreamDefaultWriter",
        "WritableStreamDefaultController",
        "TransformStream",
        "TransformStreamDefaultController",
        "ReadableByteStreamController",
        "ReadableStreamBYOBReader",
        "ReadableStreamBYOBRequest",
        "TextEncoderStream",
        "TextDecoderStream",
        "CompressionStream",
        "DecompressionStream",
    ]
    .into_iter()
    .map(missing)
    .collect();
    assert_eq!(engine["webMissing"], json!(web));
    assert_eq!(
        engine["worker"],
        json!([
            missing("worker_threads.Worker"),
            missing("worker_threads.receiveMessageOnPort"),
            missing("worker_threads.moveMessagePortToContext"),
            missing("worker_threads.postMessageToThread"),
        ])
    );
    assert_eq!(
        engine["http2"],
        json!([
            missing("http2.connect"),
            missing("http2.createServer"),
            missing("http2.createSecureServer"),
            missing("http2.performServerHandshake"),
            missing("http2.Http2ServerRequest"),
            missing("http2.Http2ServerResponse"),
        ])
    );

    // The subscriber that threw during publish: rethrown from a process.nextTick callback, which
    // the engine reports as an uncaught error (Node's uncaughtException), the plugin going on.
    let deadline = tokio::time::Instant::now() + Duration::from_secs(5);
    loop {
        let lines = log_lines(&host, "node-builtins-more");
        if lines
            .iter()
            .any(|l| l.starts_with("[paseo] Uncaught error: Error: subscriber boom"))
        {
            // What a tty.WriteStream on descriptor 2 writes goes to the log.
            assert!(lines.iter().any(|l| l == "to stderr"), "{lines:#?}");
            break;
        }
        assert!(
            tokio::time::Instant::now() < deadline,
            "the subscriber's error was not reported: {lines:#?}"
        );
        tokio::time::sleep(Duration::from_millis(5)).await;
    }
    host.shutdown().await;
}
