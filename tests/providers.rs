//! Agent providers (`server.registerProvider`, provider protocol v1) through `PluginHost`: a
//! real provider plugin, its events in order, the protocol's checks, and cleanup on close,
//! reload and stop.

mod common;

use common::*;
use paseo_plugin_runtime::host::ProvidedKind;
use paseo_plugin_runtime::{ProviderConnection, ProviderEvent};
use serde_json::{json, Value};

async fn next(conn: &mut ProviderConnection) -> Value {
    match tokio::time::timeout(std::time::Duration::from_secs(10), conn.events.next()).await {
        Ok(Some(ProviderEvent::Event(e))) => e,
        other => panic!("expected an event, got {other:?}"),
    }
}

async fn ended(conn: &mut ProviderConnection) -> String {
    match tokio::time::timeout(std::time::Duration::from_secs(10), conn.events.next()).await {
        Ok(Some(ProviderEvent::Ended(why))) => why,
        other => panic!("expected the end, got {other:?}"),
    }
}

fn open_input(session: &str) -> Value {
    json!({ "type": "session.open", "requestId": "r1", "sessionId": session, "history": "skip",
        "config": { "cwd": "/tmp", "env": {}, "mcpServers": {}, "settings": {}, "persist": false } })
}

fn prompt(session: &str, text: &str) -> Value {
    json!({ "type": "session.prompt", "sessionId": session, "prompt": { "clientMessageId": "m1", "delivery": "auto",
        "input": { "type": "message", "content": [{ "type": "text", "text": text }] } } })
}

async fn open_session(host: &paseo_plugin_runtime::PluginHost) -> ProviderConnection {
    let mut conn = host.connect_provider("echo").await.unwrap();
    conn.handle.send(open_input("s1")).await.unwrap();
    let types: Vec<Value> = vec![
        next(&mut conn).await,
        next(&mut conn).await,
        next(&mut conn).await,
    ];
    let types: Vec<&str> = types.iter().map(|e| e["type"].as_str().unwrap()).collect();
    assert_eq!(
        types,
        ["session.opened", "session.ready", "request.completed"]
    );
    conn
}

#[tokio::test]
async fn a_provider_plugin_registers_connects_and_streams_events_in_order() {
    let host = host();
    load_all(&host, &["provider-kit"]).await;
    let listed: Vec<(String, String, Option<String>)> = host
        .provided(ProvidedKind::Provider)
        .into_iter()
        .map(|p| (p.plugin, p.provided.id, p.provided.label))
        .collect();
    assert_eq!(
        listed,
        [
            ("provider-kit".into(), "echo".into(), Some("Echo".into())),
            (
                "provider-kit".into(),
                "slow-connect".into(),
                Some("Slow".into())
            ),
        ]
    );
    let info = host.plugin("provider-kit").unwrap();
    assert_eq!(
        info.registrations.providers[0].description.as_deref(),
        Some("Answers every line with itself.")
    );

    let mut conn = open_session(&host).await;
    assert_eq!(conn.version, 1);
    // Negotiated: what the daemon offered, in its order, that the provider supports.
    assert_eq!(
        conn.capabilities,
        ["prompt.message", "session.configure", "permission"]
    );

    conn.handle
        .send(prompt("s1", "one\ntwo\nthree"))
        .await
        .unwrap();
    let mut seen = Vec::new();
    loop {
        let event = next(&mut conn).await;
        let done = event["type"] == "session.turn" && event["state"] == "completed";
        seen.push(match event["type"].as_str().unwrap() {
            "timeline.item" => event["item"]["text"].as_str().unwrap().to_string(),
            "session.turn" => format!("turn {}", event["state"].as_str().unwrap()),
            other => other.to_string(),
        });
        if done {
            break;
        }
    }
    assert_eq!(
        seen,
        [
            "session.prompt_result",
            "turn started",
            "echo: one",
            "echo: two",
            "echo: three",
            "session.usage",
            "turn completed"
        ]
    );

    assert_eq!(
        host.provider_catalog_key("echo", json!({ "scope": "global" }))
            .await
            .unwrap()
            .as_deref(),
        Some("echo:global")
    );

    conn.handle.close().await.unwrap();
    conn.handle.close().await.unwrap();
    let closed = log_lines(&host, "provider-kit")
        .iter()
        .filter(|l| l.ends_with("closed"))
        .count();
    assert_eq!(
        closed,
        1,
        "close runs once: {:?}",
        log_lines(&host, "provider-kit")
    );
    assert!(conn
        .handle
        .send(prompt("s1", "x"))
        .await
        .unwrap_err()
        .to_string()
        .contains("the connection is closed"));
}

#[tokio::test]
async fn permission_requests_round_trip() {
    let host = host();
    load_all(&host, &["provider-kit"]).await;
    let mut conn = open_session(&host).await;
    conn.handle
        .send(prompt("s1", "ask rm -rf build"))
        .await
        .unwrap();
    let permission = loop {
        let e = next(&mut conn).await;
        if e["type"] == "session.permission" {
            break e;
        }
    };
    assert_eq!(permission["request"]["title"], "Run rm -rf build");
    let id = permission["request"]["id"].as_str().unwrap().to_string();
    conn.handle
        .send(json!({ "type": "session.permission", "sessionId": "s1", "permissionId": id, "response": { "behavior": "deny", "message": "no" } }))
        .await
        .unwrap();
    assert_eq!(next(&mut conn).await["type"], "session.permission_resolved");
    assert_eq!(
        next(&mut conn).await["item"]["text"],
        "not allowed: rm -rf build"
    );
}

#[tokio::test]
async fn what_breaks_the_protocol_is_refused_naming_the_plugin_and_the_rule() {
    let host = host();
    load_all(&host, &["provider-kit"]).await;
    let mut conn = open_session(&host).await;

    // The daemon's side: an input that breaks the protocol never reaches the plugin.
    let mut bad = prompt("s1", "x");
    bad["prompt"]["delivery"] = json!("later");
    assert_eq!(
        conn.handle.send(bad).await.unwrap_err().to_string(),
        "Invalid input for plugin provider-kit provider echo: input session.prompt: prompt.delivery: \"later\" is not one of \"auto\" or \"steer\""
    );

    // The plugin's send throws: the call fails with its message.
    assert_eq!(
        conn.handle
            .send(prompt("s1", "throw"))
            .await
            .unwrap_err()
            .to_string(),
        "Plugin provider-kit provider echo failed: the echo provider refuses"
    );

    // An invalid event ends the connection, saying which rule it broke.
    conn.handle.send(prompt("s1", "bad")).await.unwrap();
    let why = loop {
        match conn.events.next().await.unwrap() {
            ProviderEvent::Event(_) => continue,
            ProviderEvent::Ended(why) => break why,
        }
    };
    assert_eq!(
        why,
        "Plugin provider-kit provider echo: sent an invalid event: event timeline.item: item: \"id\" is a required property; item: \"text\" is a required property"
    );
    assert!(conn.events.next().await.is_none());

    // An event that is not JSON ends it too.
    let mut conn = open_session(&host).await;
    conn.handle.send(prompt("s1", "notjson")).await.unwrap();
    let why = loop {
        match conn.events.next().await.unwrap() {
            ProviderEvent::Event(_) => continue,
            ProviderEvent::Ended(why) => break why,
        }
    };
    assert!(
        why.starts_with("Plugin provider-kit provider echo: Plugin provider echo sent an event that is not JSON: "),
        "{why}"
    );
}

#[tokio::test]
async fn a_connect_that_never_resolves_times_out_and_the_plugin_carries_on() {
    let host = host_with_timeout(300);
    load_all(&host, &["provider-kit"]).await;
    let err = host.connect_provider("slow-connect").await.err().unwrap();
    assert_eq!(
        err.to_string(),
        "Plugin provider connection timed out: provider-kit.slow-connect"
    );
    // A send that never resolves hits the same limit; the connection still works after.
    let mut conn = open_session(&host).await;
    let err = conn
        .handle
        .send(prompt("s1", "hang-send"))
        .await
        .unwrap_err();
    assert_eq!(
        err.to_string(),
        "Plugin RPC timed out: provider-kit.provider.send"
    );
    conn.handle.send(prompt("s1", "still here")).await.unwrap();
    assert_eq!(next(&mut conn).await["type"], "session.prompt_result");
    assert_eq!(
        host.connect_provider("nobody")
            .await
            .err()
            .unwrap()
            .to_string(),
        "No plugin provides provider nobody"
    );
}

#[tokio::test]
async fn reload_and_stop_end_open_connections_after_cleanup_each_once() {
    let host = host();
    load_all(&host, &["provider-kit"]).await;
    let mut first = open_session(&host).await;
    let mut second = open_session(&host).await;
    host.reload("provider-kit").await.unwrap();
    assert_eq!(
        ended(&mut first).await,
        "Plugin provider-kit provider echo: Plugin stopped: provider-kit"
    );
    assert_eq!(
        ended(&mut second).await,
        "Plugin provider-kit provider echo: Plugin stopped: provider-kit"
    );
    let lines = log_lines(&host, "provider-kit");
    let order: Vec<&str> = lines
        .iter()
        .map(String::as_str)
        .filter(|l| *l == "cleanup" || l.ends_with(" closed"))
        .collect();
    assert_eq!(
        order,
        ["cleanup", "connection 1 closed", "connection 2 closed"]
    );
    // Closing a connection of the old isolate is a no-op; the reloaded plugin connects anew.
    first.handle.close().await.unwrap();
    let mut third = open_session(&host).await;
    host.stop("provider-kit").await.unwrap();
    assert_eq!(
        ended(&mut third).await,
        "Plugin provider-kit provider echo: Plugin stopped: provider-kit"
    );
    assert!(host.provided(ProvidedKind::Provider).is_empty());
}

#[tokio::test]
async fn provider_icons_follow_paseos_rules_and_a_bad_one_fails_the_load() {
    let host = host();
    load_all(&host, &["provider-kit"]).await;
    let icon = host
        .provided_icon(ProvidedKind::Provider, "echo")
        .unwrap()
        .unwrap();
    assert!(
        icon.starts_with("<svg") && icon.contains("href=\"#dot\""),
        "{icon}"
    );
    assert_eq!(
        host.provided_icon(ProvidedKind::Provider, "slow-connect")
            .unwrap(),
        None
    );

    let err = host.load(&fixture("provider-bad-icon")).await.unwrap_err();
    assert_eq!(
        err.to_string(),
        "Invalid plugin provider icon \"icon.svg\": event-handler attributes are not allowed"
    );

    use paseo_plugin_runtime::providers::icon::{check_svg, read_icon};
    let cases = [
        ("<html/>", "file is not an SVG document"),
        (
            "<svg><script>x</script></svg>",
            "script elements are not allowed",
        ),
        (
            "<svg><foreignObject/></svg>",
            "foreignObject elements are not allowed",
        ),
        (
            "<svg><style>a{}</style></svg>",
            "style elements are not allowed",
        ),
        (
            "<svg><a href=\"https://example.com\"/></svg>",
            "external href references are not allowed",
        ),
        (
            "<svg><a xlink:href=\"x.svg\"/></svg>",
            "external href references are not allowed",
        ),
        (
            "<svg><a href=\"java&#x09;script:alert(1)\"/></svg>",
            "javascript URLs are not allowed",
        ),
    ];
    for (svg, reason) in cases {
        assert_eq!(check_svg(svg).unwrap_err(), reason, "{svg}");
    }
    let dir = fixture("provider-kit");
    assert_eq!(
        read_icon(&dir, "../provider-bad-icon/icon.svg").unwrap_err(),
        "path leaves the plugin directory"
    );
    assert_eq!(
        read_icon(&dir, "missing.svg").unwrap_err(),
        "file does not exist or is not a regular file"
    );
    let big = std::env::temp_dir().join(format!("paseo-icon-{}", std::process::id()));
    std::fs::create_dir_all(&big).unwrap();
    std::fs::write(
        big.join("big.svg"),
        format!("<svg>{}</svg>", " ".repeat(70_000)),
    )
    .unwrap();
    assert_eq!(
        read_icon(&big, "big.svg").unwrap_err(),
        "file exceeds 64 KiB"
    );
    std::fs::remove_dir_all(&big).unwrap();
}

#[tokio::test]
async fn usage_sources_discover_and_fetch_with_their_input_checked() {
    use paseo_plugin_runtime::host::UsageCall;
    let host = host();
    load_all(&host, &["provider-kit"]).await;
    let sources: Vec<String> = host
        .provided(ProvidedKind::UsageSource)
        .into_iter()
        .map(|p| p.provided.id)
        .collect();
    assert_eq!(sources, ["echo-usage"]);
    let accounts = host
        .call_usage(
            "echo-usage",
            UsageCall::Discover,
            json!({ "kind": "global" }),
        )
        .await
        .unwrap();
    assert_eq!(
        accounts,
        json!([{ "key": "main", "label": "main (global)", "input": { "account": "main" } }])
    );
    let report = host
        .call_usage("echo-usage", UsageCall::Fetch, json!({ "account": "main" }))
        .await
        .unwrap();
    assert_eq!(report["windows"][0]["usedPct"], 42);
    let err = host
        .call_usage("echo-usage", UsageCall::Fetch, json!({ "account": "" }))
        .await
        .unwrap_err()
        .to_string();
    assert!(err.starts_with("Plugin provider-kit usage source echo-usage failed: Invalid input for usage source echo-usage: "), "{err}");
    assert!(err.contains("account"), "{err}");
    let err = host
        .call_usage(
            "echo-usage",
            UsageCall::Fetch,
            json!({ "account": "broken" }),
        )
        .await
        .unwrap_err()
        .to_string();
    assert_eq!(err, "Plugin provider-kit usage source echo-usage failed: returned an invalid report: (root): \"windows\" is a required property");
    let err = host
        .call_usage(
            "echo-usage",
            UsageCall::Discover,
            json!({ "kind": "elsewhere" }),
        )
        .await
        .unwrap_err()
        .to_string();
    assert_eq!(err, "Invalid scope for plugin provider-kit usage source echo-usage: kind: \"elsewhere\" is not one of \"global\" or \"session\"");
    let err = host
        .call_usage(
            "echo-usage",
            UsageCall::Identify,
            json!({ "account": "main" }),
        )
        .await
        .unwrap_err()
        .to_string();
    assert_eq!(err, "Plugin provider-kit usage source echo-usage failed: Usage source echo-usage does not implement identify()");
}

#[tokio::test]
async fn attachment_searches_are_checked_as_paseos_app_checks_them() {
    let host = host();
    load_all(&host, &["attachment-source"]).await;
    let found = host
        .search_attachments("attachment-source", "issues.search", "slow")
        .await
        .unwrap();
    assert_eq!(
        found,
        json!({ "items": [{ "id": "2", "identifier": "SHOP-2", "title": "Slow search", "subtitle": "perf", "url": "https://tracker.example/SHOP-2", "text": "Search takes 3 s.", "resourceType": "issue" }] })
    );
    // The output schema strips unknown keys, as zod's objects do.
    let all = host
        .search_attachments("attachment-source", "issues.search", "")
        .await
        .unwrap();
    assert_eq!(all["items"][0].get("extra"), None);
    assert_eq!(
        host.search_attachments("attachment-source", "broken.search", "x").await.unwrap_err().to_string(),
        "Plugin attachment-source attachment search broken.search returned an invalid payload: items[0].url: \"not a url\" is not a URL (relative URL without a base)"
    );
    let err = host
        .search_attachments("attachment-source", "checked.search", "x")
        .await
        .unwrap_err()
        .to_string();
    assert!(
        err.contains("\"too_small\"") && err.contains("\"identifier\""),
        "{err}"
    );
}

#[tokio::test]
async fn a_provider_cannot_queue_more_than_the_limit_of_unread_events() {
    let host = paseo_plugin_runtime::PluginHost::new(paseo_plugin_runtime::HostOptions {
        limits: paseo_plugin_runtime::Limits {
            queued_event_bytes: 1024 * 1024,
            ..Default::default()
        },
        ..Default::default()
    });
    load_all(&host, &["provider-kit"]).await;
    let mut conn = open_session(&host).await;
    // The daemon reads nothing while the plugin writes 2 MiB.
    conn.handle.send(prompt("s1", "flood")).await.unwrap();
    let mut read = 0;
    let why = loop {
        match conn.events.next().await.unwrap() {
            ProviderEvent::Event(_) => read += 1,
            ProviderEvent::Ended(why) => break why,
        }
    };
    assert_eq!(
        why,
        "Plugin provider-kit provider echo: more than 1048576 bytes of events queued unread"
    );
    assert!(read < 200, "read {read} events");
}

/// A provider plugin that exits (`process.exit`) ends its live sessions at once, with Paseo's
/// reason, so the agent's turn ends instead of waiting out a timeout.
#[tokio::test]
async fn a_provider_plugin_that_exits_ends_its_sessions_at_once() {
    let host = host();
    load_all(&host, &["provider-kit"]).await;
    let mut conn = open_session(&host).await;
    let started = std::time::Instant::now();
    let _ = conn.handle.send(prompt("s1", "exit")).await;
    assert_eq!(
        ended(&mut conn).await,
        "Plugin provider-kit provider echo: Plugin process exited: provider-kit"
    );
    // Seconds to spare on a loaded machine; the point is that no 30 s timeout was waited out.
    assert!(started.elapsed() < std::time::Duration::from_secs(10));
    assert_eq!(
        host.plugin("provider-kit").unwrap().error.as_deref(),
        Some("Plugin process exited: provider-kit")
    );
}
