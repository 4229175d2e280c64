//! `node:zlib` against Node: tests/fixtures/node-zlib/shared/probe.mjs runs inside the plugin
//! and under `node`, and what each saw (round trips through every format, the sync, callback,
//! promisified and stream forms, errors with their class, code and errno, crc32) must be the
//! same.
mod common;

use common::*;

#[tokio::test(flavor = "multi_thread")]
async fn zlib_behaves_as_nodes() {
    let probe = fixture("node-zlib").join("shared/probe.mjs");
    let node = under_node(&format!(
        "const {{ probe }} = await import({:?});\n\
         const zlib = (await import('node:zlib')).default, stream = (await import('node:stream')).default;\n\
         const util = (await import('node:util')).default, {{ Buffer }} = await import('node:buffer');\n\
         console.log(JSON.stringify(await probe(zlib, stream, util, Buffer)));",
        probe.display().to_string(),
    ));
    assert_same_as_node(&plugin_result("node-zlib").await, &node);
}
