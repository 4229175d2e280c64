//! Node behaviours that npm packages rely on (Buffer's statics, `node:process`'s named exports
//! and tag, `events.on`, `util.aborted`, `util.types.isProxy`, the `MessageEvent`, `File` and
//! `MessageChannel` globals, `node:console`, the legacy `url` API): one probe
//! (tests/fixtures/node-compat/shared/probe.mjs) runs in the plugin and under `node`, and every
//! case must answer alike.

mod common;

use common::*;

#[tokio::test(flavor = "multi_thread")]
async fn npm_packages_find_node_as_node_has_it() {
    let ours = plugin_result("node-compat").await;
    let probe = fixture("node-compat").join("shared/probe.mjs");
    let dir = tempfile::tempdir().unwrap();
    let node = under_node(&format!(
        "const {{ probe }} = await import({:?});\n\
         import {{ Buffer }} from \"node:buffer\"; import * as processModule from \"node:process\";\n\
         import events from \"node:events\"; import util from \"node:util\"; import url from \"node:url\";\n\
         import * as consoleModule from \"node:console\"; import fs from \"node:fs\"; import zlib from \"node:zlib\";\n\
         const dir = {:?};\n\
         console.log(JSON.stringify(await probe({{ Buffer, processModule, events, util, url, consoleModule, fs, dir, zlib }})));",
        probe.display().to_string(),
        dir.path().display().to_string()
    ));
    assert_same_as_node(&ours, &node);
}
