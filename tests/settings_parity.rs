//! Settings documents behave as Paseo's own store does
//! (packages/server/src/server/plugins/settings/index.ts and its index.test.ts): real plugin
//! folders, driven through the host's RPCs, against a settings directory on disk.

mod common;

use std::path::Path;

use common::*;
use paseo_plugin_runtime::{HostOptions, PluginHost};
use serde_json::{json, Value};

const REENTRANT: &str = "A settings mutator cannot access the same document recursively.";
const OTHER_VERSION: &str = "Reload or reset settings before saving a different schema version";
const NEWER: &str = "Settings were saved by a newer plugin version";
const CONFLICT: &str = "Settings changed on another client. Reload before saving again.";

fn settings_host(dir: &Path) -> PluginHost {
    PluginHost::new(HostOptions {
        settings_dir: Some(dir.to_path_buf()),
        ..HostOptions::default()
    })
}

async fn rpc(host: &PluginHost, plugin: &str, method: &str, input: Value) -> Value {
    host.call_rpc(plugin, method, input)
        .await
        .unwrap_or_else(|e| panic!("{plugin} {method}: {e}"))
}

/// A revision as the store mints it: the sha256 of the file, in hex.
fn revision(value: &Value) -> String {
    let revision = value["revision"]
        .as_str()
        .unwrap_or_else(|| panic!("no revision in {value}"));
    assert!(
        revision.len() == 64 && revision.bytes().all(|b| b.is_ascii_hexdigit()),
        "{revision}"
    );
    revision.to_string()
}

/// Replaces whichever version of `settings-versions` is loaded by the one in `fixture_name`.
async fn switch_to(host: &PluginHost, fixture_name: &str) {
    let _ = host.remove("settings-versions").await;
    load_all(host, &[fixture_name]).await;
}

fn read_file(path: &Path) -> Vec<u8> {
    std::fs::read(path).unwrap()
}

// Paseo's test "server settings read current values and notify after successful writes":
// `listener(copySettingsState(state))`, a copy for each subscriber.
#[tokio::test(flavor = "multi_thread")]
async fn subscribers_get_their_own_copy_of_the_new_state() {
    let settings = tempfile::tempdir().unwrap();
    let host = settings_host(settings.path());
    load_all(&host, &["settings-subscribe"]).await;
    let id = "settings-subscribe";
    let file = settings.path().join("settings-subscribe/display.json");

    assert_eq!(
        rpc(&host, id, "settings.display.read", json!({})).await,
        json!({ "status": "ready", "revision": "missing", "values": { "enabled": true, "count": 5 } })
    );
    let saved = rpc(
        &host,
        id,
        "settings.display.write",
        json!({ "revision": "missing", "values": { "enabled": false, "count": 10 } }),
    )
    .await;
    let r1 = revision(&saved);
    assert_eq!(
        saved,
        json!({ "status": "saved", "revision": r1, "values": { "enabled": false, "count": 10 } })
    );
    // The first subscriber set count to 99 in its copy: the store never saw it.
    assert_eq!(
        rpc(&host, id, "settings.display.read", json!({})).await,
        json!({ "status": "ready", "revision": r1, "values": { "enabled": false, "count": 10 } })
    );
    assert_eq!(
        rpc(&host, id, "probe.notifications", json!({})).await,
        json!({
            "mutated": [{ "status": "ready", "revision": r1, "values": { "enabled": false, "count": 99 } }],
            "seen": [{ "status": "ready", "revision": r1, "values": { "enabled": false, "count": 10 } }],
        })
    );

    // A server-side update notifies the same way; its caller's values are not the copies.
    let updated = rpc(&host, id, "probe.update", json!({})).await;
    let r2 = revision(&updated);
    assert_eq!(
        updated,
        json!({ "status": "saved", "revision": r2, "values": { "enabled": false, "count": 11 }, "result": "bumped" })
    );
    assert_eq!(
        String::from_utf8(read_file(&file)).unwrap(),
        r#"{"version":1,"values":{"enabled":false,"count":11}}"#
    );

    // A refused write notifies nobody (Paseo: only commits notify), and its answer is the
    // write contract's `{ status, error }` with zod's issue messages.
    assert_eq!(
        rpc(
            &host,
            id,
            "settings.display.write",
            json!({ "revision": r2, "values": { "count": -1 } })
        )
        .await,
        json!({ "status": "invalid", "error": "Too small: expected number to be >=1" })
    );
    assert_eq!(
        rpc(&host, id, "probe.notifications", json!({})).await,
        json!({
            "mutated": [
                { "status": "ready", "revision": r1, "values": { "enabled": false, "count": 99 } },
                { "status": "ready", "revision": r2, "values": { "enabled": false, "count": 99 } },
            ],
            "seen": [
                { "status": "ready", "revision": r1, "values": { "enabled": false, "count": 10 } },
                { "status": "ready", "revision": r2, "values": { "enabled": false, "count": 11 } },
            ],
        })
    );
    host.shutdown().await;
}

// Paseo's `write`: after the revision check, "Reload or reset settings before saving a
// different schema version" when the stored envelope's version is not the definition's; its
// test "migrates once, persists the validated version, and rejects old clients".
#[tokio::test(flavor = "multi_thread")]
async fn a_write_across_schema_versions_is_refused_and_the_document_kept() {
    let settings = tempfile::tempdir().unwrap();
    let host = settings_host(settings.path());
    let id = "settings-versions";
    let file = settings.path().join("settings-versions/display.json");

    // Version 1 saves a document.
    switch_to(&host, "settings-versions-v1").await;
    let saved = rpc(
        &host,
        id,
        "settings.display.write",
        json!({ "revision": "missing", "values": { "count": 7 } }),
    )
    .await;
    let r1 = revision(&saved);
    let v1_document = read_file(&file);
    assert_eq!(v1_document, br#"{"version":1,"values":{"count":7}}"#);

    // Version 2 refuses a client still holding version 1's revision, and keeps its document.
    switch_to(&host, "settings-versions-v2").await;
    assert_eq!(
        rpc(
            &host,
            id,
            "settings.display.write",
            json!({ "revision": r1, "values": { "total": 1 } })
        )
        .await,
        json!({ "status": "invalid", "error": OTHER_VERSION })
    );
    assert_eq!(read_file(&file), v1_document);
    // A read migrates it, once; version 2 then saves over its own document.
    let read = rpc(&host, id, "settings.display.read", json!({})).await;
    let r2 = revision(&read);
    assert_eq!(
        read,
        json!({ "status": "ready", "revision": r2, "values": { "total": 7 } })
    );
    assert_eq!(read_file(&file), br#"{"version":2,"values":{"total":7}}"#);
    let saved = rpc(
        &host,
        id,
        "settings.display.write",
        json!({ "revision": r2, "values": { "total": 8 } }),
    )
    .await;
    let r3 = revision(&saved);
    let v2_document = read_file(&file);
    assert_eq!(v2_document, br#"{"version":2,"values":{"total":8}}"#);

    // Back to version 1: the newer document is invalid to it...
    switch_to(&host, "settings-versions-v1").await;
    assert_eq!(
        rpc(&host, id, "settings.display.read", json!({})).await,
        json!({ "status": "invalid", "revision": r3, "error": NEWER })
    );
    // ...and a write carrying its revision is refused: the newer document stays as it was.
    assert_eq!(
        rpc(
            &host,
            id,
            "settings.display.write",
            json!({ "revision": r3, "values": { "count": 9 } })
        )
        .await,
        json!({ "status": "invalid", "error": OTHER_VERSION })
    );
    assert_eq!(read_file(&file), v2_document);
    assert_eq!(
        rpc(
            &host,
            id,
            "settings.display.write",
            json!({ "revision": r1, "values": { "count": 9 } })
        )
        .await,
        json!({ "status": "conflict", "error": CONFLICT })
    );
    assert_eq!(
        rpc(&host, id, "probe.update", json!({})).await,
        json!({ "status": "invalid", "revision": r3, "error": NEWER, "code": "stored_invalid" })
    );
    assert_eq!(read_file(&file), v2_document);

    // Version 2 finds its values where it left them.
    switch_to(&host, "settings-versions-v2").await;
    assert_eq!(
        rpc(&host, id, "settings.display.read", json!({})).await,
        json!({ "status": "ready", "revision": r3, "values": { "total": 8 } })
    );
    host.shutdown().await;
}

// Paseo's `update` ("migration and mutation persist once, including migration plus
// unchanged"; "thenables, reentry, throws, and invalid next values do not commit") and
// `load` ("failed migrations and corrupt data survive reads until an explicit reset").
#[tokio::test(flavor = "multi_thread")]
async fn update_outcomes_after_migration_reentry_and_failed_migration() {
    let settings = tempfile::tempdir().unwrap();
    let dir = settings.path().join("settings-mutators");
    std::fs::create_dir_all(&dir).unwrap();
    let display = dir.join("display.json");
    let broken = dir.join("broken.json");
    std::fs::write(&display, r#"{"version":1,"values":{"count":7}}"#).unwrap();
    std::fs::write(&broken, r#"{"version":1,"values":{"count":3}}"#).unwrap();
    let host = settings_host(settings.path());
    load_all(&host, &["settings-mutators"]).await;
    let id = "settings-mutators";

    // A migration followed by "unchanged" rewrote the document: saved.
    let migrated = rpc(&host, id, "probe.unchanged", json!({})).await;
    let r = revision(&migrated);
    assert_eq!(
        migrated,
        json!({ "status": "saved", "revision": r, "values": { "enabled": true, "count": 7 }, "result": 7 })
    );
    let document = read_file(&display);
    assert_eq!(
        document,
        br#"{"version":2,"values":{"enabled":true,"count":7}}"#
    );
    assert_eq!(
        rpc(&host, id, "settings.display.read", json!({})).await,
        json!({ "status": "ready", "revision": r, "values": { "enabled": true, "count": 7 } })
    );
    // Without a migration, "unchanged" is unchanged.
    assert_eq!(
        rpc(&host, id, "probe.unchanged", json!({})).await,
        json!({ "status": "unchanged", "revision": r, "values": { "enabled": true, "count": 7 }, "result": 7 })
    );

    // Reading or updating the document inside its own mutator: the whole update is invalid,
    // the nested access too (revision "unknown"), and nothing is written.
    for probe in ["probe.reentrant-read", "probe.reentrant-update"] {
        assert_eq!(
            rpc(&host, id, probe, json!({})).await,
            json!({
                "outcome": { "status": "invalid", "revision": r, "error": REENTRANT, "code": "reentrant_access" },
                "nested": { "status": "invalid", "revision": "unknown", "error": REENTRANT, "code": "reentrant_access" },
            }),
            "{probe}"
        );
        assert_eq!(read_file(&display), document, "{probe}");
    }
    // The queue is still usable.
    let committed = rpc(&host, id, "probe.commit", json!({})).await;
    assert_eq!(
        committed,
        json!({ "status": "saved", "revision": revision(&committed), "values": { "enabled": true, "count": 8 }, "result": "committed" })
    );

    // A failing migration reports its own message and leaves the stored document alone.
    let before = read_file(&broken);
    let read = rpc(&host, id, "settings.broken.read", json!({})).await;
    let rb = revision(&read);
    assert_eq!(
        read,
        json!({ "status": "invalid", "revision": rb, "error": "migration failed" })
    );
    let failed = json!({ "status": "invalid", "revision": rb, "error": "migration failed", "code": "migration_failed" });
    assert_eq!(
        rpc(&host, id, "probe.broken", json!({})).await,
        json!({ "read": failed, "update": failed })
    );
    assert_eq!(read_file(&broken), before);
    host.shutdown().await;
}
