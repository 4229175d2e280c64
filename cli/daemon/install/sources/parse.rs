//! Source strings, read as Paseo reads them: a directory, then a registry entry, then an npm
//! package, then a Git repository, each with an optional `:relative/path` subfolder.

use std::path::PathBuf;

use super::Source;

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
pub(super) fn portable(path: &str) -> bool {
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
pub(crate) fn parse(reference: &str, registry: &str) -> Result<Source, String> {
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
pub(super) fn npm_name_and_spec(s: &str) -> Option<(String, Option<String>)> {
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

#[cfg(test)]
mod tests {
    use super::super::DEFAULT_REGISTRY;
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
}
