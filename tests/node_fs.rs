//! `node:fs` errors against Node's own: tests/fixtures/node-fs-errors/shared/probe.mjs runs inside the
//! plugin and under `node` (which set-up installs), each in a fresh folder, and what each saw
//! (class name, message, errno, code, syscall, path, dest, own keys) must be the same.
mod common;

use std::process::Command;

use common::*;
use serde_json::{json, Value};

fn under_node() -> Value {
    let dir = tempfile::tempdir().unwrap();
    let probe = fixture("node-fs-errors").join("shared/probe.mjs");
    let script = format!(
        "const {{ probe }} = await import({probe:?});\n\
         const fs = await import('node:fs'), fsp = await import('node:fs/promises');\n\
         console.log(JSON.stringify(await probe({dir:?}, fs.default, fsp.default)));",
        probe = probe.display().to_string(),
        dir = dir.path().display().to_string(),
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
    load_all(&host, &["node-fs-errors"]).await;
    let mut request = open_request();
    request["cwd"] = json!(dir.path());
    let out = open(&host, request).await.unwrap();
    host.shutdown().await;
    serde_json::from_str(out["env"]["RESULT"].as_str().unwrap()).unwrap()
}

#[tokio::test(flavor = "multi_thread")]
async fn fs_errors_are_nodes() {
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
