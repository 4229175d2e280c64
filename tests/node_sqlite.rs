//! node:sqlite (`DatabaseSync`) as Node 22 documents it, loaded as a published plugin reaches it:
//! `process.getBuiltinModule("node:sqlite")`, and as an import. Fixture: tests/fixtures/node-sqlite.
mod common;

use common::*;
use serde_json::{json, Value};

#[tokio::test(flavor = "multi_thread")]
async fn database_sync_stores_reads_and_fails_as_node_does() {
    let dir = tempfile::tempdir().unwrap();
    let host = host();
    load_all(&host, &["node-sqlite"]).await;
    let mut request = open_request();
    request["cwd"] = json!(dir.path());
    let out = open(&host, request).await.unwrap();
    let r: Value = serde_json::from_str(out["env"]["RESULT"].as_str().unwrap()).unwrap();
    host.shutdown().await;
    assert_eq!(r["first"], json!({ "changes": 1, "lastInsertRowid": 1 }));
    assert_eq!(r["second"], 2);
    assert_eq!(
        r["rows"],
        json!([{ "id": 1, "body": "hello", "score": 1.5 }, { "id": 2, "body": "named", "score": null }])
    );
    assert_eq!(r["proto"], true);
    assert_eq!(r["raw"], json!([1, 2, 255]));
    assert_eq!(
        r["tooBig"],
        json!({ "message": "Value is too large to be represented as a JavaScript number: 9007199254740993", "code": "ERR_OUT_OF_RANGE" })
    );
    assert_eq!(r["bigValue"], "9007199254740993");
    assert_eq!(r["missing"], true);
    assert_eq!(r["iterated"], json!(["hello", "named"]));
    assert_eq!(
        r["syntax"],
        json!({ "message": "near \"SELEC\": syntax error", "code": "ERR_SQLITE_ERROR", "errcode": 1, "errstr": "SQL logic error" })
    );
    assert_eq!(
        r["constraint"],
        json!({ "message": "NOT NULL constraint failed: notes.body", "code": "ERR_SQLITE_ERROR", "errcode": 1299, "errstr": "constraint failed" })
    );
    assert_eq!(
        r["closed"],
        json!({ "message": "database is not open", "code": "ERR_INVALID_STATE" })
    );
    assert_eq!(r["count"], 2);
    assert_eq!(r["readOnly"]["code"], "ERR_SQLITE_ERROR");
    assert_eq!(
        r["readOnly"]["message"],
        "attempt to write a readonly database"
    );
    assert_eq!(r["isOpen"], false);
}
