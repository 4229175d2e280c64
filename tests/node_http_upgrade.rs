//! HTTP upgrades against Node: tests/fixtures/node-http-upgrade/shared/probe.mjs runs inside the
//! plugin and under `node`, each against servers it starts on 127.0.0.1, and what each saw must
//! be the same: a 101 handed to the client's 'upgrade' listener with the bytes after the head and
//! a socket that keeps talking, a 101 nobody listens for, CONNECT's 'connect', and the `ws`
//! package (8.18.3, in the fixture's node_modules) as client and server, text, binary and a frame
//! past 64 KiB, a close with its code and reason, and a handshake the server refuses.
mod common;

use common::*;

#[tokio::test(flavor = "multi_thread")]
async fn upgrades_and_the_ws_package_behave_as_on_node() {
    let fixture = fixture("node-http-upgrade");
    let node = under_node(&format!(
        "const {{ probe }} = await import({probe:?});\n\
         const http = (await import('node:http')).default, net = (await import('node:net')).default;\n\
         const {{ WebSocket, WebSocketServer }} = await import({ws:?});\n\
         console.log(JSON.stringify(await probe({{ http, net, WebSocket, WebSocketServer }})));",
        probe = fixture.join("shared/probe.mjs").display().to_string(),
        ws = fixture
            .join("node_modules/ws/wrapper.mjs")
            .display()
            .to_string(),
    ));
    assert_same_as_node(&plugin_result("node-http-upgrade").await, &node);
}
