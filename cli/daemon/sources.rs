//! Managed plugin sources, as Paseo installs them (reference §3.6): a source string names a
//! directory, a registry entry (`owner/slug`, `host/owner/slug`), an npm package
//! (`npm:<name>[@selector]`, or a bare name) or a Git repository (`github:owner/repo`,
//! `git:<url|scp>`), with `:relative/path` for a subfolder. A managed source is fetched into
//! `$PASEO_HOME/plugins/.staging/<uuid>`, prepared (the manifest's `build` commands) and only
//! then placed at `$PASEO_HOME/plugins/<id>/<uuid>/checkout[/<subpath>]` (Git) or
//! `…/<uuid>/node_modules/<pkg>[/<subpath>]` (npm); `plugins/sources.json` says where each one
//! came from. Whatever fails on the way removes what it made, and a staging folder left by a
//! killed daemon is removed at the next start.

use std::collections::BTreeMap;
use std::path::{Component, Path, PathBuf};
use std::time::Duration;

use serde::{Deserialize, Serialize};
use serde_json::{json, Value};

use paseo_plugin_runtime::private_files::{create_private_dir_all, write_atomic};

/// Paseo's registry, unless `PASEO_PLUGIN_REGISTRY` names another.
pub const DEFAULT_REGISTRY: &str = "https://plugins.paseo.sh";

/// How long one git or npm command, or one registry request, may take.
const FETCH_TIMEOUT: Duration = Duration::from_secs(120);

/// A parsed source string.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Source {
    Directory(PathBuf),
    /// `id` is `owner/slug`; `url` the registry's origin.
    Registry {
        url: String,
        id: String,
    },
    /// `spec`: a version, tag or range, or a tarball URL (a registry pin).
    Npm {
        package: String,
        spec: String,
        subpath: Option<String>,
    },
    Git {
        remote: String,
        subpath: Option<String>,
    },
}

/// Where a managed plugin came from, as `plugins/sources.json` keeps it (Paseo's shape; the npm
/// package and the subfolder are read back from the plugin's path).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "lowercase")]
pub enum SourceRecord {
    Git {
        remote: String,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        registry: Option<RegistryRef>,
    },
    Npm {
        #[serde(default, skip_serializing_if = "Option::is_none")]
        registry: Option<RegistryRef>,
    },
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct RegistryRef {
    pub url: String,
    pub id: String,
}

impl SourceRecord {
    pub fn kind(&self) -> &'static str {
        match self {
            SourceRecord::Git { .. } => "git",
            SourceRecord::Npm { .. } => "npm",
        }
    }

    pub fn registry(&self) -> Option<&RegistryRef> {
        match self {
            SourceRecord::Git { registry, .. } | SourceRecord::Npm { registry } => {
                registry.as_ref()
            }
        }
    }
}

fn registry_id(s: &str) -> bool {
    let part = |p: &str| {
        !p.is_empty()
            && p.split('-').all(|w| {
                !w.is_empty()
                    && w.bytes()
                        .all(|b| b.is_ascii_lowercase() || b.is_ascii_digit())
            })
    };
    matches!(s.split_once('/'), Some((owner, slug)) if part(owner) && part(slug))
}

/// Paseo's portable relative path: `.`, or segments that are neither empty, `.` nor `..`,
/// without a leading slash, a drive letter or another colon.
fn portable(path: &str) -> bool {
    path == "."
        || (!path.starts_with(['/', '\\'])
            && !path.contains(':')
            && path
                .split(['/', '\\'])
                .all(|s| !s.is_empty() && s != "." && s != ".."))
}

/// Splits a trailing `:relative/path` off a source (never the colon of `scheme://` or of an
/// scp `user@host:path`).
fn split_subpath(source: &str, npm: bool) -> (String, Option<String>) {
    let Some(at) = source.rfind(':') else {
        return (source.to_string(), None);
    };
    let (head, tail) = (&source[..at], &source[at + 1..]);
    if let Some(scheme_end) = source.find("://") {
        // The colon must come after the first `/` of the URL's path.
        let path_start = source[scheme_end + 3..]
            .find('/')
            .map(|i| scheme_end + 3 + i);
        if path_start.is_none_or(|p| at < p) {
            return (source.to_string(), None);
        }
    } else if !npm && !head.contains(':') && head.contains('@') && !head.contains('/') {
        return (source.to_string(), None); // scp form: user@host:path
    }
    if tail.is_empty() || !portable(tail) {
        return (source.to_string(), None);
    }
    (head.to_string(), Some(tail.to_string()))
}

/// Parses a source string as Paseo does: directory, then registry, then npm, then Git.
pub fn parse(reference: &str, registry: &str) -> Result<Source, String> {
    let reference = reference.trim();
    if reference.is_empty() {
        return Err("A plugin source is required".into());
    }
    if reference.starts_with("./")
        || reference.starts_with("../")
        || reference.starts_with('/')
        || reference.starts_with('~')
    {
        return Ok(Source::Directory(PathBuf::from(reference)));
    }
    let segments: Vec<&str> = reference.split('/').collect();
    if segments.len() == 2 && registry_id(reference) {
        return Ok(Source::Registry {
            url: registry.trim_end_matches('/').to_string(),
            id: reference.to_string(),
        });
    }
    if segments.len() == 3
        && segments[0].contains(['.', ':'])
        && !segments[0].contains(['@', '?', '#', '\\'])
        && registry_id(&segments[1..].join("/"))
    {
        return Ok(Source::Registry {
            url: format!("https://{}", segments[0]),
            id: segments[1..].join("/"),
        });
    }
    if let Some(rest) = reference.strip_prefix("npm:") {
        let (rest, subpath) = split_subpath(rest, true);
        return npm_source(&rest, subpath, reference);
    }
    if npm_name_and_spec(reference).is_some() {
        return npm_source(reference, None, reference);
    }
    // The prefix is not part of the subpath rule (`github:owner/repo:sub`).
    let prefix = ["github:", "git:"]
        .into_iter()
        .find(|p| reference.starts_with(p) && !reference.starts_with("git://"))
        .unwrap_or("");
    let (rest, subpath) = split_subpath(&reference[prefix.len()..], false);
    let head = format!("{prefix}{rest}");
    if let Some(repo) = head.strip_prefix("github:") {
        return Ok(Source::Git {
            remote: github(repo).ok_or("Use github:owner/repository for a GitHub plugin source")?,
            subpath,
        });
    }
    let remote = match head
        .strip_prefix("git:")
        .filter(|_| !head.starts_with("git://"))
    {
        Some(rest) => match github(rest) {
            Some(url) => url,
            None => rest.to_string(),
        },
        None => head.clone(),
    };
    let url = ["http://", "https://", "ssh://", "git://", "file://"]
        .iter()
        .any(|s| remote.starts_with(s));
    let scp = remote.split_once(':').is_some_and(|(user_host, path)| {
        user_host.contains('@')
            && !user_host.contains('/')
            && !path.is_empty()
            && !remote.contains(char::is_whitespace)
    });
    if !url && !scp {
        return Err(format!(
            "Plugin source is neither an existing directory nor a Git URL: {reference}"
        ));
    }
    Ok(Source::Git { remote, subpath })
}

/// `owner/repo` → its GitHub URL.
fn github(repo: &str) -> Option<String> {
    let (owner, name) = repo.split_once('/')?;
    let ok = |s: &str| {
        !s.is_empty()
            && s.bytes()
                .all(|b| b.is_ascii_alphanumeric() || b"-_.".contains(&b))
    };
    let name = name.strip_suffix(".git").unwrap_or(name);
    (ok(owner) && ok(name)).then(|| format!("https://github.com/{owner}/{name}.git"))
}

/// `name`, `@scope/name`, optionally `@spec` (no `:`, `@`, `/` or `\` in it).
fn npm_name_and_spec(s: &str) -> Option<(String, Option<String>)> {
    let name_part = |p: &str| {
        let mut bytes = p.bytes();
        bytes
            .next()
            .is_some_and(|b| b.is_ascii_lowercase() || b.is_ascii_digit())
            && bytes.all(|b| b.is_ascii_lowercase() || b.is_ascii_digit() || b"._-".contains(&b))
    };
    let (scope, rest) = match s.strip_prefix('@') {
        Some(rest) => {
            let (scope, rest) = rest.split_once('/')?;
            (Some(scope), rest)
        }
        None => (None, s),
    };
    let (name, spec) = match rest.split_once('@') {
        Some((name, spec)) => (name, Some(spec)),
        None => (rest, None),
    };
    if scope.is_some_and(|s| !name_part(s)) || !name_part(name) {
        return None;
    }
    if spec.is_some_and(|s| s.is_empty() || s.contains([':', '@', '/', '\\'])) {
        return None;
    }
    let package = match scope {
        Some(scope) => format!("@{scope}/{name}"),
        None => name.to_string(),
    };
    Some((package, spec.map(str::to_string)))
}

fn npm_source(s: &str, subpath: Option<String>, reference: &str) -> Result<Source, String> {
    if let Some((_, Some(spec))) = s.split_once('@').map(|(a, b)| (a, Some(b))) {
        if spec.is_empty() || spec.trim() != spec {
            return Err(
                "An npm version, tag, or range must be non-empty without surrounding spaces".into(),
            );
        }
    }
    let (package, spec) = npm_name_and_spec(s).ok_or_else(|| {
        format!(
            "Invalid npm plugin source: {reference}. Use npm:package or npm:@scope/package@version, tag, or range."
        )
    })?;
    Ok(Source::Npm {
        package,
        spec: spec.unwrap_or_else(|| "latest".into()),
        subpath,
    })
}

/// A subfolder given with `:path` or `--path`, checked once more against the tree it names.
fn join_inside(root: &Path, subpath: Option<&str>) -> Result<PathBuf, String> {
    let Some(sub) = subpath.filter(|s| *s != ".") else {
        return Ok(root.to_path_buf());
    };
    if !portable(sub) {
        return Err("Plugin path must be a portable path relative to the repository".into());
    }
    let joined = root.join(sub);
    let real = joined
        .canonicalize()
        .map_err(|_| format!("Plugin path not found in the source: {sub}"))?;
    let root = root.canonicalize().map_err(|e| e.to_string())?;
    if !real.starts_with(&root) {
        return Err("Plugin path escapes the repository".into());
    }
    Ok(real)
}

/// `scheme://user:secret@host/…` → `scheme://***@host/…`, wherever it occurs in `text`.
pub fn redact_credentials(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut rest = text;
    while let Some(at) = rest.find("://") {
        let (head, tail) = rest.split_at(at + 3);
        out.push_str(head);
        let authority_end = tail.find(['/', ' ', '\t', '\n']).unwrap_or(tail.len());
        match tail[..authority_end].rfind('@') {
            Some(user_end) => {
                out.push_str("***");
                rest = &tail[user_end..];
            }
            None => rest = tail,
        }
    }
    out.push_str(rest);
    out
}

/// Runs a command with a deadline; its trimmed stdout, or an error naming it.
async fn run(
    program: &str,
    args: &[&str],
    cwd: &Path,
    env: &[(&str, &str)],
) -> Result<String, String> {
    // Shown in errors and progress: a URL's credentials are left out.
    let what = redact_credentials(&format!("{program} {}", args.join(" ")));
    let mut command = tokio::process::Command::new(program);
    command
        .args(args)
        .current_dir(cwd)
        .stdin(std::process::Stdio::null())
        .kill_on_drop(true);
    for (k, v) in env {
        command.env(k, v);
    }
    let out = match tokio::time::timeout(FETCH_TIMEOUT, command.output()).await {
        Err(_) => return Err(format!("{what} timed out after 120 s")),
        Ok(Err(e)) if e.kind() == std::io::ErrorKind::NotFound && program == "npm" => {
            return Err("npm is required on the daemon host to acquire or check npm plugins. Install Node.js with npm and make npm available on the daemon's PATH.".into())
        }
        Ok(Err(e)) => return Err(format!("{what} failed to start: {e}")),
        Ok(Ok(out)) => out,
    };
    if !out.status.success() {
        let stderr = String::from_utf8_lossy(&out.stderr);
        let tail: String = stderr
            .trim()
            .chars()
            .rev()
            .take(2000)
            .collect::<Vec<_>>()
            .into_iter()
            .rev()
            .collect();
        return Err(format!("{what} failed ({}): {tail}", out.status));
    }
    Ok(String::from_utf8_lossy(&out.stdout).trim().to_string())
}

/// What a registry pins for one of its plugins.
#[derive(Debug, Clone, PartialEq)]
pub enum Artifact {
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
pub async fn fetch_registry(
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

/// A fetched, not yet prepared, version of a plugin in its staging folder.
pub struct Fetched {
    /// `plugins/.staging/<uuid>`: the version's root.
    pub root: PathBuf,
    /// The plugin folder inside it.
    pub plugin_dir: PathBuf,
    pub record: SourceRecord,
}

/// What to fetch: the source (already resolved through the registry) and, for Git, the ref.
pub enum Target {
    Git {
        remote: String,
        git_ref: Option<String>,
        subpath: Option<String>,
    },
    Npm {
        package: String,
        spec: String,
        subpath: Option<String>,
        /// A registry pin: the version and integrity the lockfile must show.
        pin: Option<(String, String)>,
    },
}

impl Target {
    /// Resolves a managed source (a registry entry through its registry).
    pub async fn of(
        source: Source,
        git_ref: Option<String>,
        installing: bool,
        credentials: &(dyn Fn(&str) -> Option<String> + Sync),
    ) -> Result<(Target, Option<RegistryRef>), String> {
        Ok(match source {
            Source::Directory(_) => unreachable!("directories are not fetched"),
            Source::Registry { url, id } => {
                if git_ref.is_some() {
                    return Err(
                        "Registry sources use their reviewed artifact path and revision".into(),
                    );
                }
                let registry = Some(RegistryRef {
                    url: url.clone(),
                    id: id.clone(),
                });
                let authorization = credentials(&url);
                match fetch_registry(&url, &id, installing, authorization.as_deref()).await? {
                    Artifact::Npm {
                        package,
                        version,
                        resolved,
                        integrity,
                    } => (
                        Target::Npm {
                            package,
                            spec: resolved,
                            subpath: None,
                            pin: Some((version, integrity)),
                        },
                        registry,
                    ),
                    Artifact::Git {
                        remote,
                        commit,
                        plugin_path,
                    } => (
                        Target::Git {
                            remote,
                            git_ref: Some(commit),
                            subpath: plugin_path,
                        },
                        registry,
                    ),
                }
            }
            Source::Npm {
                package,
                spec,
                subpath,
            } => {
                if git_ref.is_some() {
                    return Err("Plugin --ref is only valid for Git sources; use npm:package@version for npm".into());
                }
                (
                    Target::Npm {
                        package,
                        spec,
                        subpath,
                        pin: None,
                    },
                    None,
                )
            }
            Source::Git { remote, subpath } => (
                Target::Git {
                    remote,
                    git_ref,
                    subpath,
                },
                None,
            ),
        })
    }

    /// The revision an install of this target would get now, without fetching it: the commit
    /// the remote's ref (or HEAD) points at, or the npm version the selector picks.
    pub async fn latest(&self) -> Result<String, String> {
        let here = std::env::temp_dir();
        match self {
            Target::Git {
                git_ref: Some(r), ..
            } if r.len() >= 40 && r.bytes().all(|b| b.is_ascii_hexdigit()) => Ok(r.clone()),
            Target::Git {
                remote, git_ref, ..
            } => {
                let wanted = git_ref.clone().unwrap_or_else(|| "HEAD".into());
                let env = [("GIT_TERMINAL_PROMPT", "0")];
                let out = run("git", &["ls-remote", "--", remote, &wanted], &here, &env).await?;
                out.lines()
                    .filter_map(|l| l.split_once('\t'))
                    .find(|(_, name)| {
                        *name == wanted
                            || name.ends_with(&format!("/{wanted}"))
                            || name.ends_with(&format!("/{wanted}^{{}}"))
                    })
                    .or_else(|| out.lines().filter_map(|l| l.split_once('\t')).next())
                    .map(|(hash, _)| hash.to_string())
                    .ok_or_else(|| {
                        format!(
                            "Git ref {wanted} was not found in {}",
                            redact_credentials(remote)
                        )
                    })
            }
            Target::Npm {
                pin: Some((version, _)),
                ..
            } => Ok(version.clone()),
            Target::Npm { package, spec, .. } => {
                let out = run(
                    "npm",
                    &["view", &format!("{package}@{spec}"), "version", "--json"],
                    &here,
                    &[],
                )
                .await?;
                let value: Value = serde_json::from_str(&out)
                    .map_err(|_| format!("npm view {package}@{spec} gave no version"))?;
                match value {
                    Value::String(v) => Ok(v),
                    // A range matching several versions: npm lists them in order.
                    Value::Array(vs) => vs
                        .last()
                        .and_then(|v| v.as_str())
                        .map(str::to_string)
                        .ok_or_else(|| format!("No version of {package} matches {spec}")),
                    _ => Err(format!("No version of {package} matches {spec}")),
                }
            }
        }
    }

    /// Fetches into a new staging folder under `plugins`; nothing is left behind on failure.
    pub async fn fetch(
        &self,
        plugins: &Path,
        registry: Option<RegistryRef>,
        progress: &(dyn Fn(String) + Sync),
    ) -> Result<Fetched, String> {
        let root = plugins
            .join(".staging")
            .join(uuid::Uuid::new_v4().to_string());
        create_private_dir_all(&root)
            .map_err(|e| format!("Cannot create {}: {e}", root.display()))?;
        let fetched = self.fetch_into(&root, registry, progress).await;
        if fetched.is_err() {
            let _ = std::fs::remove_dir_all(&root);
        }
        fetched
    }

    async fn fetch_into(
        &self,
        root: &Path,
        registry: Option<RegistryRef>,
        progress: &(dyn Fn(String) + Sync),
    ) -> Result<Fetched, String> {
        match self {
            Target::Git {
                remote,
                git_ref,
                subpath,
            } => {
                if git_ref.as_deref().is_some_and(|r| r.starts_with('-')) {
                    return Err("Plugin Git ref cannot start with '-'".into());
                }
                progress(format!("cloning {}", redact_credentials(remote)));
                let env = [("GIT_TERMINAL_PROMPT", "0")];
                run(
                    "git",
                    &[
                        "clone",
                        "--quiet",
                        "--no-checkout",
                        "--",
                        remote,
                        "checkout",
                    ],
                    root,
                    &env,
                )
                .await?;
                let checkout = root.join("checkout");
                let commit = match git_ref {
                    None => {
                        run(
                            "git",
                            &["rev-parse", "--verify", "refs/remotes/origin/HEAD^{commit}"],
                            &checkout,
                            &env,
                        )
                        .await?
                    }
                    Some(r) => {
                        let mut found = None;
                        for candidate in
                            [format!("refs/remotes/origin/{r}"), format!("refs/tags/{r}")]
                        {
                            if run(
                                "git",
                                &["show-ref", "--verify", "--quiet", &candidate],
                                &checkout,
                                &env,
                            )
                            .await
                            .is_ok()
                            {
                                found = Some(candidate);
                                break;
                            }
                        }
                        let name = found.unwrap_or_else(|| r.clone());
                        run(
                            "git",
                            &["rev-parse", "--verify", &format!("{name}^{{commit}}")],
                            &checkout,
                            &env,
                        )
                        .await
                        .map_err(|_| {
                            format!(
                                "Git ref {r} was not found in {}",
                                redact_credentials(remote)
                            )
                        })?
                    }
                };
                run(
                    "git",
                    &["checkout", "--quiet", "--detach", &commit],
                    &checkout,
                    &env,
                )
                .await?;
                run(
                    "git",
                    &["submodule", "update", "--quiet", "--init", "--recursive"],
                    &checkout,
                    &env,
                )
                .await?;
                let plugin_dir = join_inside(&checkout, subpath.as_deref())?;
                Ok(Fetched {
                    root: root.to_path_buf(),
                    plugin_dir,
                    record: SourceRecord::Git {
                        remote: remote.clone(),
                        registry,
                    },
                })
            }
            Target::Npm {
                package,
                spec,
                subpath,
                pin,
            } => {
                progress(format!("installing {package}@{spec} with npm"));
                let manifest = json!({
                    "name": "paseo-plugin-installation", "version": "1.0.0", "private": true,
                    "dependencies": { package.as_str(): spec },
                });
                write_atomic(
                    &root.join("package.json"),
                    serde_json::to_string_pretty(&manifest).unwrap().as_bytes(),
                )
                .map_err(|e| e.to_string())?;
                run(
                    "npm",
                    &[
                        "install",
                        "--ignore-scripts",
                        "--legacy-peer-deps",
                        "--no-audit",
                        "--no-fund",
                        "--package-lock=true",
                        "--lockfile-version=3",
                        "--include=prod",
                        "--omit=dev",
                        "--global=false",
                        "--workspaces=false",
                    ],
                    root,
                    &[],
                )
                .await?;
                let package_dir = root.join("node_modules").join(package);
                if let Some((version, integrity)) = pin {
                    let locked = lock_entry(root, package);
                    if locked["version"] != version.as_str()
                        || locked["integrity"] != integrity.as_str()
                    {
                        return Err(format!(
                            "The npm package {package} does not match the registry's pin ({version}, {integrity})"
                        ));
                    }
                }
                let plugin_dir = join_inside(&package_dir, subpath.as_deref())?;
                Ok(Fetched {
                    root: root.to_path_buf(),
                    plugin_dir,
                    record: SourceRecord::Npm { registry },
                })
            }
        }
    }
}

fn lock_entry(root: &Path, package: &str) -> Value {
    let lock: Value = std::fs::read_to_string(root.join("package-lock.json"))
        .ok()
        .and_then(|s| serde_json::from_str(&s).ok())
        .unwrap_or_default();
    lock["packages"][format!("node_modules/{package}")].clone()
}

/// The version root (`plugins/<id>/<uuid>`) a managed plugin's path lies in.
pub fn version_root(plugins: &Path, id: &str, plugin_path: &Path) -> Option<PathBuf> {
    let base = plugins.join(id);
    let rest = plugin_path.strip_prefix(&base).ok()?;
    let first = rest.components().next()?;
    matches!(first, Component::Normal(_)).then(|| base.join(first))
}

/// How a managed plugin's path sits in its version root: the npm package and the subfolder.
pub struct Layout {
    pub package: Option<String>,
    pub subpath: Option<String>,
}

pub fn layout(root: &Path, plugin_path: &Path) -> Layout {
    let rest = plugin_path.strip_prefix(root).unwrap_or(plugin_path);
    let parts: Vec<String> = rest
        .components()
        .map(|c| c.as_os_str().to_string_lossy().into_owned())
        .collect();
    let join = |p: &[String]| (!p.is_empty()).then(|| p.join("/"));
    match parts.first().map(String::as_str) {
        Some("node_modules") => {
            let scoped = parts.get(1).is_some_and(|p| p.starts_with('@'));
            let n = if scoped { 3 } else { 2 };
            Layout {
                package: (parts.len() >= n).then(|| parts[1..n].join("/")),
                subpath: join(parts.get(n..).unwrap_or_default()),
            }
        }
        _ => Layout {
            package: None,
            subpath: join(parts.get(1..).unwrap_or_default()),
        },
    }
}

/// The revision of a managed plugin, read from its files: the commit Git checked out, or the
/// version npm locked.
pub fn revision(plugins: &Path, id: &str, plugin_path: &Path) -> Option<String> {
    let root = version_root(plugins, id, plugin_path)?;
    match layout(&root, plugin_path).package {
        Some(package) => lock_entry(&root, &package)["version"]
            .as_str()
            .map(str::to_string),
        None => std::fs::read_to_string(root.join("checkout/.git/HEAD"))
            .ok()
            .map(|h| h.trim().to_string())
            .filter(|h| !h.starts_with("ref:")),
    }
}

/// One record of `sources.json`: ours, or Paseo's earlier layout (`remote`, `requestedRef`,
/// `trackingBranch`, `commit`, `pluginPath`, `checkoutRoot`, no `kind`), which is a Git source
/// whose checkout and revision are read back from the plugin's folder, as ours are.
fn parse_record(value: &serde_json::Value) -> Option<SourceRecord> {
    if value.get("kind").is_some() {
        return serde_json::from_value(value.clone()).ok();
    }
    let remote = value.get("remote")?.as_str()?;
    Some(SourceRecord::Git {
        remote: remote.to_string(),
        registry: None,
    })
}

/// What `sources.json` holds: the records that can be read, and the raw JSON of those that
/// cannot (kept as they are by `write_records`).
fn read_file(
    plugins: &Path,
) -> (
    BTreeMap<String, SourceRecord>,
    serde_json::Map<String, serde_json::Value>,
) {
    let path = plugins.join("sources.json");
    let text = match std::fs::read_to_string(&path) {
        Ok(text) => text,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Default::default(),
        Err(e) => {
            tracing::warn!(path = %path.display(), error = %e, "cannot read the plugin source records");
            return Default::default();
        }
    };
    let mut records = BTreeMap::new();
    let mut unreadable = serde_json::Map::new();
    match serde_json::from_str::<serde_json::Value>(&text) {
        Ok(serde_json::Value::Object(entries)) => {
            for (id, value) in entries {
                match parse_record(&value) {
                    Some(record) => {
                        records.insert(id, record);
                    }
                    None => {
                        unreadable.insert(id, value);
                    }
                }
            }
            if !unreadable.is_empty() {
                let ids: Vec<&String> = unreadable.keys().collect();
                tracing::warn!(path = %path.display(), records = ?ids,
                    "plugin source records that cannot be read are kept as they are; those plugins cannot be updated");
            }
        }
        _ => {
            // Nothing in it can be read: kept aside whole before anything overwrites it.
            let aside = keep_aside(&path, &text);
            tracing::warn!(path = %path.display(), kept = %aside,
                "the plugin source records cannot be read; the file is kept aside");
        }
    }
    (records, unreadable)
}

/// Copies an unreadable file to `<file>.corrupt-<unix time>` (0600, written atomically), once
/// per content: the same bytes already kept aside are not copied again.
fn keep_aside(path: &Path, text: &str) -> String {
    let dir = path.parent().unwrap_or(Path::new("."));
    let name = path.file_name().unwrap_or_default().to_string_lossy();
    let prefix = format!("{name}.corrupt-");
    if let Ok(entries) = std::fs::read_dir(dir) {
        for entry in entries.flatten() {
            let kept = entry.file_name().to_string_lossy().starts_with(&prefix)
                && std::fs::read_to_string(entry.path()).is_ok_and(|t| t == text);
            if kept {
                return entry.path().display().to_string();
            }
        }
    }
    let seconds = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_secs());
    let aside = dir.join(format!("{prefix}{seconds}"));
    let _ = write_atomic(&aside, text.as_bytes());
    aside.display().to_string()
}

/// `plugins/sources.json`: every record that can be read. One that cannot (hand-edited, or
/// from a newer version) costs only its own plugin's updates, never the others' records.
pub fn read_records(plugins: &Path) -> BTreeMap<String, SourceRecord> {
    read_file(plugins).0
}

/// Writes the records, keeping every record of the file that could not be read, unchanged,
/// unless `records` now has one of its own for that plugin.
pub fn write_records(
    plugins: &Path,
    records: &BTreeMap<String, SourceRecord>,
) -> Result<(), String> {
    let mut all = read_file(plugins).1;
    for (id, record) in records {
        all.insert(id.clone(), serde_json::to_value(record).unwrap());
    }
    let text = serde_json::to_string_pretty(&all).unwrap();
    write_atomic(&plugins.join("sources.json"), text.as_bytes()).map_err(|e| {
        format!(
            "Cannot write {}: {e}",
            plugins.join("sources.json").display()
        )
    })
}

/// Moves a prepared version from staging to `plugins/<id>/<uuid>`; returns the plugin folder's
/// new path.
pub fn place(plugins: &Path, id: &str, fetched: &Fetched) -> Result<PathBuf, String> {
    let parent = plugins.join(id);
    create_private_dir_all(&parent).map_err(|e| e.to_string())?;
    let name = fetched.root.file_name().expect("staging folder has a name");
    let target = parent.join(name);
    std::fs::rename(&fetched.root, &target).map_err(|e| format!("Cannot place the plugin: {e}"))?;
    let relative = fetched
        .plugin_dir
        .strip_prefix(fetched.root.canonicalize().unwrap_or(fetched.root.clone()))
        .or_else(|_| fetched.plugin_dir.strip_prefix(&fetched.root))
        .map(Path::to_path_buf)
        .unwrap_or_default();
    Ok(target.join(relative))
}

/// Removes what a killed install or update left in staging.
pub fn clean_staging(plugins: &Path) {
    let _ = std::fs::remove_dir_all(plugins.join(".staging"));
}

#[cfg(test)]
mod tests {
    use super::*;

    fn p(s: &str) -> Result<Source, String> {
        parse(s, DEFAULT_REGISTRY)
    }

    #[test]
    fn sources_parse_as_paseos() {
        assert_eq!(p("./x").unwrap(), Source::Directory("./x".into()));
        assert_eq!(p("/abs/dir").unwrap(), Source::Directory("/abs/dir".into()));
        assert_eq!(
            p("acme/notes").unwrap(),
            Source::Registry {
                url: DEFAULT_REGISTRY.into(),
                id: "acme/notes".into()
            }
        );
        assert_eq!(
            p("127.0.0.1:8080/acme/notes").unwrap(),
            Source::Registry {
                url: "https://127.0.0.1:8080".into(),
                id: "acme/notes".into()
            }
        );
        assert_eq!(
            p("npm:@scope/pkg@^1.2:server").unwrap(),
            Source::Npm {
                package: "@scope/pkg".into(),
                spec: "^1.2".into(),
                subpath: Some("server".into())
            }
        );
        assert_eq!(
            p("some-plugin").unwrap(),
            Source::Npm {
                package: "some-plugin".into(),
                spec: "latest".into(),
                subpath: None
            }
        );
        assert_eq!(
            p("github:acme/tools:plugins/notes").unwrap(),
            Source::Git {
                remote: "https://github.com/acme/tools.git".into(),
                subpath: Some("plugins/notes".into())
            }
        );
        assert_eq!(
            p("git:git@example.com:acme/tools.git").unwrap(),
            Source::Git {
                remote: "git@example.com:acme/tools.git".into(),
                subpath: None
            }
        );
        assert_eq!(
            p("file:///srv/repo:sub/dir").unwrap(),
            Source::Git {
                remote: "file:///srv/repo".into(),
                subpath: Some("sub/dir".into())
            }
        );
        assert_eq!(
            p("https://example.com:8443/r.git").unwrap(),
            Source::Git {
                remote: "https://example.com:8443/r.git".into(),
                subpath: None
            }
        );
        assert_eq!(
            p("github:acme").unwrap_err(),
            "Use github:owner/repository for a GitHub plugin source"
        );
        assert_eq!(
            p("Not A Source").unwrap_err(),
            "Plugin source is neither an existing directory nor a Git URL: Not A Source"
        );
        assert_eq!(
            p("npm:Bad Name").unwrap_err(),
            "Invalid npm plugin source: npm:Bad Name. Use npm:package or npm:@scope/package@version, tag, or range."
        );
        assert_eq!(
            p("npm:pkg@").unwrap_err(),
            "An npm version, tag, or range must be non-empty without surrounding spaces"
        );
    }

    #[test]
    fn credentials_in_urls_are_not_shown() {
        assert_eq!(
            redact_credentials("git clone -- https://me:t0ken@example.com/r.git checkout"),
            "git clone -- https://***@example.com/r.git checkout"
        );
        assert_eq!(redact_credentials("file:///srv/repo"), "file:///srv/repo");
    }

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

    #[test]
    fn a_version_root_and_its_layout_are_read_back_from_the_path() {
        let plugins = Path::new("/h/plugins");
        let npm = Path::new("/h/plugins/x/u1/node_modules/@s/p/server");
        let root = version_root(plugins, "x", npm).unwrap();
        assert_eq!(root, Path::new("/h/plugins/x/u1"));
        let l = layout(&root, npm);
        assert_eq!(
            (l.package.as_deref(), l.subpath.as_deref()),
            (Some("@s/p"), Some("server"))
        );
        let git = Path::new("/h/plugins/x/u2/checkout/a/b");
        let l = layout(&version_root(plugins, "x", git).unwrap(), git);
        assert_eq!((l.package, l.subpath.as_deref()), (None, Some("a/b")));
        assert!(version_root(plugins, "x", Path::new("/elsewhere/x")).is_none());
    }
}
