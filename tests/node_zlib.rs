//! `node:zlib` against Node: tests/fixtures/node-zlib/shared/probe.mjs runs inside the plugin
//! and under `node` (which set-up installs), and what each saw (round trips through every
//! format, the sync, callback, promisified and stream forms, errors with their class, code and
//! errno, crc32) must be the same.
mod common;

use std::process::Command;

use common::*;
use serde_json::{json, Value};

fn under_node() -> Value {
    let probe = fixture("node-zlib").join("shared/probe.mjs");
    let script = format!(
        "const {{ probe }} = await import({probe:?});\n\
         const zlib = (await import('node:zlib')).default, stream = (await import('node:stream')).default;\n\
         const util = (await import('node:util')).default, {{ Buffer }} = await import('node:buffer');\n\
         console.log(JSON.stringify(await probe(zlib, stream, util, Buffer)));",
        probe = probe.display().to_string(),
    );
    let out = Command::new("node")
        .args(["--input-type=module", "-e", &script])
        .output()
        .expect("node runs (scripts/setup installs it)");
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    serde_json::from_slice(&out.stdout).unwrap()
}

async fn in_plugin() -> Value {
    let dir = tempfile::tempdir().unwrap();
    let host = host();
    load_all(&host, &["node-zlib"]).await;
    let mut request = open_request();
    request["cwd"] = json!(dir.path());
    let out = open(&host, request).await.unwrap();
    host.shutdown().await;
    serde_json::from_str(out["env"]["RESULT"].as_str().unwrap()).unwrap()
}

#[tokio::test(flavor = "multi_thread")]
async fn zlib_behaves_as_nodes() {
    let (ours, node) = (in_plugin().await, under_node());
    let mut differences = Vec::new();
    for (case, expected) in node.as_object().unwrap() {
        if ours[case] != *expected {
            differences.push(format!(
                "{case}:\n  node: {expected}\n  here: {}",
                ours[case]
            ));
        }
    }
    assert!(differences.is_empty(), "{}", differences.join("\n"));
}
