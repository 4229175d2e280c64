//! node:sqlite (`DatabaseSync`) against Node: tests/fixtures/node-sqlite/shared/probe.mjs runs
//! inside the plugin and under `node`, each in a fresh folder, reaching the module as a
//! published plugin does (`process.getBuiltinModule("node:sqlite")`) and as an import, and what
//! each saw (changes and row ids, rows, blobs, big integers, errors with their codes) must be
//! the same. node:sqlite is Node 22's (unflagged from 22.13): under an older `node` the
//! comparison cannot run, and the test says so and holds the plugin to Node 22.23's answers.
mod common;
mod skip;

use common::*;
use serde_json::{json, Value};

/// Node 22.23's answers to the probe, for a `node` without node:sqlite.
fn recorded() -> Value {
    json!({
        "same": true,
        "first": { "changes": 1, "lastInsertRowid": 1 },
        "second": 2,
        "rows": [{ "id": 1, "body": "hello", "score": 1.5 }, { "id": 2, "body": "named", "score": null }],
        "proto": true,
        "raw": [1, 2, 255],
        "rawType": "[object Uint8Array]",
        "tooBig": { "message": "Value is too large to be represented as a JavaScript number: 9007199254740993", "code": "ERR_OUT_OF_RANGE" },
        "bigValue": "9007199254740993",
        "missing": true,
        "iterated": ["hello", "named"],
        "syntax": { "message": "near \"SELEC\": syntax error", "code": "ERR_SQLITE_ERROR", "errcode": 1, "errstr": "SQL logic error" },
        "constraint": { "message": "NOT NULL constraint failed: notes.body", "code": "ERR_SQLITE_ERROR", "errcode": 1299, "errstr": "constraint failed" },
        "closed": { "message": "database is not open", "code": "ERR_INVALID_STATE" },
        "count": 2,
        "readOnly": { "message": "attempt to write a readonly database", "code": "ERR_SQLITE_ERROR", "errcode": 8, "errstr": "attempt to write a readonly database" },
        "isOpen": false,
    })
}

#[tokio::test(flavor = "multi_thread")]
async fn database_sync_stores_reads_and_fails_as_node_does() {
    let dir = tempfile::tempdir().unwrap();
    let probe = fixture("node-sqlite").join("shared/probe.mjs");
    // `{ "node": version }` when this node has no node:sqlite, else the probe's result.
    let node = under_node(&format!(
        "const sqlite = await import('node:sqlite').catch(() => null);\n\
         if (!sqlite) {{ console.log(JSON.stringify({{ node: process.version }})); process.exit(0); }}\n\
         const {{ probe }} = await import({:?});\n\
         console.log(JSON.stringify(await probe({:?}, sqlite.DatabaseSync)));",
        probe.display().to_string(),
        dir.path().display().to_string(),
    ));
    let ours = plugin_result("node-sqlite").await;
    if let Some(version) = node.get("node") {
        skip::skipped(
            "database_sync_stores_reads_and_fails_as_node_does (under node)",
            &format!(
                "node {} has no node:sqlite (22.13 or later has): compared with Node 22.23's recorded answers",
                version.as_str().unwrap_or_default()
            ),
        );
        assert_same_as_node(&ours, &recorded());
        return;
    }
    assert_same_as_node(&ours, &node);
}
