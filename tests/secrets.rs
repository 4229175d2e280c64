//! `server.secrets` kept as Paseo keeps them (`packages/server/src/server/plugins/secrets.ts`),
//! and nothing lost: a `_secrets.json` that cannot be read reads as empty, as in Paseo, but is
//! kept aside first; only Paseo's real legacy layout (a flat map in `secrets.json`) is migrated.

mod common;

use std::path::Path;

use common::*;
use paseo_plugin_runtime::{HostOptions, PluginHost};
use serde_json::json;

fn host_with_settings(dir: &Path) -> PluginHost {
    PluginHost::new(HostOptions {
        settings_dir: Some(dir.to_path_buf()),
        ..HostOptions::default()
    })
}

async fn secrets(host: &PluginHost, set: Option<&str>) -> (String, String) {
    let mut request = open_request();
    if let Some(key) = set {
        request["env"]["SET"] = json!(key);
    }
    let out = open(host, request).await.unwrap();
    (
        out["env"]["KEYS"].as_str().unwrap().to_string(),
        out["env"]["VALUES"].as_str().unwrap().to_string(),
    )
}

#[tokio::test(flavor = "multi_thread")]
async fn an_unreadable_secrets_file_reads_as_empty_and_is_kept_aside() {
    let settings = tempfile::tempdir().unwrap();
    let dir = settings.path().join("secrets-probe");
    std::fs::create_dir_all(&dir).unwrap();
    std::fs::write(dir.join("_secrets.json"), "{ \"token\": \"abc\", torn").unwrap();
    let host = host_with_settings(settings.path());
    load_all(&host, &["secrets-probe"]).await;

    assert_eq!(secrets(&host, None).await, (String::new(), String::new()));
    assert_eq!(secrets(&host, Some("fresh")).await.0, "fresh");
    // The unreadable bytes are kept, once, private to the owner.
    let aside: Vec<_> = std::fs::read_dir(&dir)
        .unwrap()
        .flatten()
        .filter(|e| {
            e.file_name()
                .to_string_lossy()
                .starts_with("_secrets.json.corrupt-")
        })
        .map(|e| e.path())
        .collect();
    assert_eq!(aside.len(), 1, "{aside:?}");
    assert_eq!(
        std::fs::read_to_string(&aside[0]).unwrap(),
        "{ \"token\": \"abc\", torn"
    );
    use std::os::unix::fs::PermissionsExt;
    assert_eq!(
        std::fs::metadata(&aside[0]).unwrap().permissions().mode() & 0o777,
        0o600
    );
    let warned = log_lines(&host, "secrets-probe")
        .iter()
        .filter(|l| {
            l.starts_with(
                "[paseo] Plugin secrets file is not readable; it reads as empty and is kept at ",
            )
        })
        .count();
    assert_eq!(warned, 1);
    host.shutdown().await;
}

#[tokio::test(flavor = "multi_thread")]
async fn only_a_flat_legacy_secrets_file_is_migrated() {
    // A settings document whose ID is `secrets`: Paseo's envelope, left alone.
    let settings = tempfile::tempdir().unwrap();
    let dir = settings.path().join("secrets-probe");
    std::fs::create_dir_all(&dir).unwrap();
    let document = r#"{"version":1,"revision":"r","values":{"theme":"dark"}}"#;
    std::fs::write(dir.join("secrets.json"), document).unwrap();
    let host = host_with_settings(settings.path());
    load_all(&host, &["secrets-probe"]).await;
    assert_eq!(secrets(&host, None).await.0, "");
    assert_eq!(
        std::fs::read_to_string(dir.join("secrets.json")).unwrap(),
        document
    );
    host.shutdown().await;

    // Paseo's legacy secrets: a flat map of strings, moved once to `_secrets.json`.
    let settings = tempfile::tempdir().unwrap();
    let dir = settings.path().join("secrets-probe");
    std::fs::create_dir_all(&dir).unwrap();
    std::fs::write(dir.join("secrets.json"), r#"{"api.token":"legacy"}"#).unwrap();
    let host = host_with_settings(settings.path());
    load_all(&host, &["secrets-probe"]).await;
    assert_eq!(
        secrets(&host, None).await,
        ("api.token".to_string(), "legacy".to_string())
    );
    assert!(!dir.join("secrets.json").exists());
    assert!(dir.join("_secrets.json").exists());
    host.shutdown().await;
}
