//! The plugin registry: what it pins for one of its plugins (the reviewed npm or Git artifact),
//! read over HTTPS with the credentials config.json gives it.

use std::time::Duration;

use serde_json::Value;

use super::parse::npm_name_and_spec;

/// What a registry pins for one of its plugins.
#[derive(Debug, Clone, PartialEq)]
pub(super) enum Artifact {
    Npm {
        package: String,
        version: String,
        resolved: String,
        integrity: String,
    },
    Git {
        remote: String,
        commit: String,
        plugin_path: Option<String>,
    },
}

/// `GET <registry>/plugins/<owner>/<slug>.json` → the plugin's reviewed artifact.
/// `authorization`: the `Authorization` header configured for the registry's host
/// (`pluginRegistries` in config.json), sent only over HTTPS or to a loopback host.
pub(super) async fn fetch_registry(
    url: &str,
    id: &str,
    installing: bool,
    authorization: Option<&str>,
) -> Result<Artifact, String> {
    let base = reqwest::Url::parse(url)
        .ok()
        .filter(|u| {
            matches!(u.scheme(), "http" | "https")
                && u.username().is_empty()
                && u.password().is_none()
        })
        .ok_or("Registry base must be an HTTP(S) URL without credentials")?;
    let host = base.host_str().unwrap_or_default().to_string();
    let loopback = matches!(host.as_str(), "localhost" | "127.0.0.1" | "[::1]" | "::1");
    if authorization.is_some() && base.scheme() != "https" && !loopback {
        return Err("Registry credentials require HTTPS".into());
    }
    let document = format!("{}/plugins/{id}.json", url.trim_end_matches('/'));
    let client = reqwest::Client::builder()
        .redirect(reqwest::redirect::Policy::none())
        .timeout(Duration::from_secs(30))
        .build()
        .map_err(|e| e.to_string())?;
    let mut request = client.get(&document);
    if installing {
        request = request.header("X-Paseo-Install", "1");
    }
    if let Some(authorization) = authorization {
        request = request.header(reqwest::header::AUTHORIZATION, authorization);
    }
    let unreachable = |e: &dyn std::fmt::Display| {
        let then = if installing {
            format!(
                "Plugin {id} was not installed. Retry or use an explicit npm: or github: source."
            )
        } else {
            format!("Could not check updates for {id}. Retry later.")
        };
        format!("Could not reach plugin registry {url}. {then} ({e})")
    };
    let response = request.send().await.map_err(|e| unreachable(&e))?;
    match response.status().as_u16() {
        200 => {}
        404 => {
            let then = if installing {
                format!("If you intended a local directory, use ./{id}. If you intended a GitHub source, use git:{id}, or a full Git URL for another Git host.")
            } else {
                "Check that the installed plugin is still published in this registry before updating.".into()
            };
            return Err(format!(
                "Plugin {id} was not found in registry {host}. {then}"
            ));
        }
        status => return Err(format!("Registry {host} returned {status} for {id}")),
    }
    let body: Value = response.json().await.map_err(|e| unreachable(&e))?;
    if body["id"] != id {
        return Err("Registry returned a different plugin ID".into());
    }
    let artifact = &body["artifact"];
    let text = |key: &str| artifact[key].as_str().map(str::to_string);
    let invalid = || format!("Registry {host} returned an invalid artifact for {id}");
    match artifact["kind"].as_str() {
        Some("npm") => {
            let (package, version, resolved, integrity) = (
                text("package").ok_or_else(invalid)?,
                text("version").ok_or_else(invalid)?,
                text("resolved").ok_or_else(invalid)?,
                text("integrity").ok_or_else(invalid)?,
            );
            let semver = version.split(['-', '+']).next().is_some_and(|core| {
                core.split('.').count() == 3
                    && core
                        .split('.')
                        .all(|n| !n.is_empty() && n.bytes().all(|b| b.is_ascii_digit()))
            });
            if npm_name_and_spec(&package).is_none_or(|(_, spec)| spec.is_some())
                || !semver
                || !integrity.starts_with("sha512-")
                || reqwest::Url::parse(&resolved).is_err()
                || !(resolved.starts_with("https://") || resolved.starts_with("http://"))
            {
                return Err(invalid());
            }
            Ok(Artifact::Npm {
                package,
                version,
                resolved,
                integrity,
            })
        }
        Some("git") => {
            let commit = text("commit").ok_or_else(invalid)?;
            let hex = (40..=64).contains(&commit.len())
                && commit
                    .bytes()
                    .all(|b| b.is_ascii_digit() || (b'a'..=b'f').contains(&b));
            let remote = text("remote")
                .filter(|r| !r.is_empty())
                .ok_or_else(invalid)?;
            let plugin_path = text("pluginPath");
            if !hex
                || plugin_path
                    .as_deref()
                    .is_some_and(|p| p.contains(['\\', ':']))
            {
                return Err(invalid());
            }
            Ok(Artifact::Git {
                remote,
                commit,
                plugin_path,
            })
        }
        _ => Err(invalid()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[tokio::test]
    async fn registry_credentials_go_only_over_https_or_loopback() {
        let refused =
            fetch_registry("http://registry.example", "acme/x", true, Some("Bearer t")).await;
        assert_eq!(refused.unwrap_err(), "Registry credentials require HTTPS");
        let bad = fetch_registry("ftp://registry.example", "acme/x", true, None).await;
        assert_eq!(
            bad.unwrap_err(),
            "Registry base must be an HTTP(S) URL without credentials"
        );
    }
}
