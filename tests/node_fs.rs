//! `node:fs` errors against Node's own: tests/fixtures/node-fs-errors/shared/probe.mjs runs inside
//! the plugin and under `node`, each in a fresh folder, and what each saw (class name, message,
//! errno, code, syscall, path, dest, own keys) must be the same.
mod common;

use common::*;

#[tokio::test(flavor = "multi_thread")]
async fn fs_errors_are_nodes() {
    let dir = tempfile::tempdir().unwrap();
    let probe = fixture("node-fs-errors").join("shared/probe.mjs");
    let node = under_node(&format!(
        "const {{ probe }} = await import({:?});\n\
         const fs = await import('node:fs'), fsp = await import('node:fs/promises');\n\
         console.log(JSON.stringify(await probe({:?}, fs.default, fsp.default)));",
        probe.display().to_string(),
        dir.path().display().to_string(),
    ));
    assert_same_as_node(&plugin_result("node-fs-errors").await, &node);
}
