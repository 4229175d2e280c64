//! `node:dgram` against Node: tests/fixtures/node-dgram/shared/probe.mjs runs inside the plugin
//! and under `node` over 127.0.0.1 (and ::1 where the machine has it), and what each saw must be
//! the same: echo round trips of strings, sliced buffers, arrays and typed arrays with their
//! rinfo, connected sockets, send callbacks, the order of events and callbacks, socket options,
//! multicast memberships, closing, and Node's error codes and messages. Then a plugin's socket
//! reached from outside, and released when the plugin stops.

mod common;

use std::net::UdpSocket;
use std::time::Duration;

use common::*;
use serde_json::json;

#[tokio::test(flavor = "multi_thread")]
async fn dgram_behaves_as_nodes() {
    let probe = fixture("node-dgram").join("shared/probe.mjs");
    let node = under_node(&format!(
        "const {{ probe }} = await import({probe:?});\n\
         const dgram = (await import('node:dgram')).default;\n\
         const {{ Buffer }} = await import('node:buffer');\n\
         console.log(JSON.stringify(await probe({{ dgram, Buffer }})));",
        probe = probe.display().to_string(),
    ));
    assert_eq!(node["leftOpen"], json!(0), "the probe closes what it opens");
    assert_same_as_node(&plugin_result("node-dgram").await, &node);
}

#[tokio::test(flavor = "multi_thread")]
async fn a_plugins_socket_answers_from_outside_and_is_released_when_it_stops() {
    let host = host();
    load_all(&host, &["node-dgram"]).await;
    let mut request = open_request();
    request["title"] = json!("keep");
    let out = open(&host, request)
        .await
        .unwrap_or_else(|e| panic!("{e}\n{:?}", log_lines(&host, "node-dgram")));
    let port: u16 = out["env"]["PORT"].as_str().unwrap().parse().unwrap();

    let client = UdpSocket::bind("127.0.0.1:0").unwrap();
    client
        .set_read_timeout(Some(Duration::from_secs(10)))
        .unwrap();
    let mut buf = [0u8; 100];
    for payload in [&b"ping"[..], b"", &[0xff, 0, 1]] {
        client.send_to(payload, ("127.0.0.1", port)).unwrap();
        let (n, from) = client.recv_from(&mut buf).unwrap();
        assert_eq!(from.port(), port);
        assert_eq!(&buf[..n], [&b"echo:"[..], payload].concat());
    }
    // The plugin never closes its socket: stopping the plugin releases it.
    assert!(
        UdpSocket::bind(("127.0.0.1", port)).is_err(),
        "the plugin's socket holds the port"
    );
    host.shutdown().await;
    assert!(
        settle(|| UdpSocket::bind(("127.0.0.1", port)).is_ok()),
        "port {port} is still bound after the plugin stopped"
    );
}
