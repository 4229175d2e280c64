//! Fetching a managed source into a new staging folder: the target it resolves to (a registry
//! entry through its registry), a Git clone at its ref or an `npm install` of its package, and
//! the revision an update would get.

use std::path::{Path, PathBuf};
use std::time::Duration;

use serde_json::{json, Value};

use paseo_plugin_runtime::private_files::{create_private_dir_all, write_atomic};

use super::parse::portable;
use super::records::lock_entry;
use super::registry::{fetch_registry, Artifact};
use super::{RegistryRef, Source, SourceRecord};

/// How long one git or npm command, or one registry request, may take.
const FETCH_TIMEOUT: Duration = Duration::from_secs(120);

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
fn redact_credentials(text: &str) -> String {
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

/// A fetched, not yet prepared, version of a plugin in its staging folder.
pub(crate) struct Fetched {
    /// `plugins/.staging/<uuid>`: the version's root.
    pub root: PathBuf,
    /// The plugin folder inside it.
    pub plugin_dir: PathBuf,
    pub record: SourceRecord,
}

/// What to fetch: the source (already resolved through the registry) and, for Git, the ref.
pub(crate) enum Target {
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
    pub(crate) async fn of(
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
    pub(crate) async fn latest(&self) -> Result<String, String> {
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
    pub(crate) async fn fetch(
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn credentials_in_urls_are_not_shown() {
        assert_eq!(
            redact_credentials("git clone -- https://me:t0ken@example.com/r.git checkout"),
            "git clone -- https://***@example.com/r.git checkout"
        );
        assert_eq!(redact_credentials("file:///srv/repo"), "file:///srv/repo");
    }
}
