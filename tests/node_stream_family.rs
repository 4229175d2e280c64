//! One stream family: net sockets, HTTP messages and child stdio are node:stream streams
//! (instanceof, 'readable' and read(n), a child's stdout piped through a Transform into a
//! Writable and into a file stream, event order on end and on errors). tests/fixtures/node-stream-family/shared/probe.mjs runs inside the plugin and
//! under `node`; the results must be equal.

mod common;

use common::*;

#[tokio::test(flavor = "multi_thread")]
async fn sockets_http_messages_and_child_stdio_are_node_streams() {
    let ours = plugin_result("node-stream-family").await;
    let probe = fixture("node-stream-family").join("shared/probe.mjs");
    let dir = tempfile::tempdir().unwrap();
    let script = format!(
        "const {{ probe }} = await import({:?});\n\
         const m = async (name) => (await import(name)).default;\n\
         console.log(JSON.stringify(await probe({{ stream: await m('node:stream'), net: await m('node:net'), http: await m('node:http'), child_process: await m('node:child_process'), fs: await m('node:fs'), dir: {:?} }})));",
        probe.display().to_string(),
        dir.path().display().to_string(),
    );
    let node = tokio::task::spawn_blocking(move || under_node(&script))
        .await
        .unwrap();
    assert_eq!(node["instances"]["childStdout"], true, "{node}");
    assert_same_as_node(&ours, &node);
}
