//! What a plugin may touch (`plugins.<id>.permissions` in the owner's config.json): the policy
//! as written (`Policy`), compiled against the plugin's places (`Permissions`), and the checks
//! every op that reaches outside the isolate makes where it starts (runtime/src/node/
//! `permission.rs` turns a `Denied` into Node's `ERR_ACCESS_DENIED`). Without a policy a plugin
//! has its owner's rights, as on Paseo's Node host.
//!
//! Paths are compared after `..` and symlinks are resolved (the longest part that exists is
//! canonicalized, the rest appended), so a symlink inside an allowed folder does not lead out of
//! it. A path that changes between the check and the access (a symlink swapped in that instant)
//! is not caught: the check is Deno's and Node's, not a kernel sandbox.

use std::collections::BTreeSet;
use std::path::{Component, Path, PathBuf};
use std::sync::Arc;

use serde::{Deserialize, Serialize};

pub mod audit;

/// A policy as the owner writes it. Every list is of grants; `sys` allows host information.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Policy {
    /// Path prefixes the plugin may read (`$PLUGIN`, `$DATA`, `$WORKSPACES`, `$TMP`, `~/…`, or
    /// absolute paths).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub read: Vec<String>,
    /// Path prefixes the plugin may write, create or remove in.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub write: Vec<String>,
    /// Hosts it may connect to or listen on: `host`, `host:port`, `*.domain` or `*`.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub net: Vec<String>,
    /// Programs it may run: a name (found on the daemon's PATH) or an absolute path.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub run: Vec<String>,
    /// Environment variables it sees in `process.env` (and passes to what it runs).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub env: Vec<String>,
    /// Host information: `os.userInfo()`, `os.hostname()`, `os.networkInterfaces()`, ….
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub sys: bool,
    /// Audit mode (`paseo plugin audit`): the plugin runs with full access and every access
    /// it makes is recorded, for `audit::policy_from` to write the policy that covers it.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub audit: bool,
}

/// The baseline `paseo plugin install --sandbox` gives: its own folder to read, its data to
/// read and write, nothing else.
pub fn sandbox() -> Policy {
    Policy {
        read: vec!["$PLUGIN".into(), "$DATA".into()],
        write: vec!["$DATA".into()],
        ..Policy::default()
    }
}

impl Policy {
    /// Adds `other`'s grants (`paseo plugin allow`), keeping each once and in order.
    pub fn allow(&mut self, other: &Policy) {
        fn add(list: &mut Vec<String>, more: &[String]) {
            for item in more {
                if !list.contains(item) {
                    list.push(item.clone());
                }
            }
        }
        add(&mut self.read, &other.read);
        add(&mut self.write, &other.write);
        add(&mut self.net, &other.net);
        add(&mut self.run, &other.run);
        add(&mut self.env, &other.env);
        self.sys |= other.sys;
    }

    /// Removes `other`'s grants (`paseo plugin deny`).
    pub fn deny(&mut self, other: &Policy) {
        self.read.retain(|g| !other.read.contains(g));
        self.write.retain(|g| !other.write.contains(g));
        self.net.retain(|g| !other.net.contains(g));
        self.run.retain(|g| !other.run.contains(g));
        self.env.retain(|g| !other.env.contains(g));
        self.sys &= !other.sys;
    }
}

/// Why a policy cannot be used: the entry (`permissions.read: …`) and the reason.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("{0}")]
pub struct PolicyError(String);

/// What a check is about; `node_name` is the `permission` of Node's `ERR_ACCESS_DENIED`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Kind {
    Read,
    Write,
    Net,
    Run,
    Env,
    Sys,
}

impl Kind {
    pub fn node_name(self) -> &'static str {
        match self {
            Kind::Read => "FileSystemRead",
            Kind::Write => "FileSystemWrite",
            Kind::Net => "Net",
            Kind::Run => "ChildProcess",
            Kind::Env => "EnvironmentVariable",
            Kind::Sys => "System",
        }
    }

    /// The `paseo plugin allow` flag that grants it.
    pub fn flag(self) -> &'static str {
        match self {
            Kind::Read => "--read",
            Kind::Write => "--write",
            Kind::Net => "--net",
            Kind::Run => "--run",
            Kind::Env => "--env",
            Kind::Sys => "--sys",
        }
    }
}

/// An access the policy does not allow.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Denied {
    pub kind: Kind,
    /// The path (resolved), `host:port`, program or variable asked for.
    pub resource: String,
}

impl Denied {
    /// The command that would allow it: a folder for a path (the file's own, or the path itself
    /// when it is a folder), the host for a connection.
    pub fn grant_command(&self, plugin: &str) -> String {
        let what = match self.kind {
            Kind::Sys => return format!("paseo plugin allow {plugin} --sys"),
            Kind::Read | Kind::Write => {
                let path = Path::new(&self.resource);
                let folder = if path.is_dir() {
                    path
                } else {
                    path.parent().unwrap_or(path)
                };
                folder.display().to_string()
            }
            _ => self.resource.clone(),
        };
        format!(
            "paseo plugin allow {plugin} {} {}",
            self.kind.flag(),
            shell_quoted(&what)
        )
    }
}

fn shell_quoted(s: &str) -> String {
    if !s.is_empty()
        && s.chars()
            .all(|c| c.is_ascii_alphanumeric() || "/._-:*@+=,".contains(c))
    {
        s.to_string()
    } else {
        format!("'{}'", s.replace('\'', r"'\''"))
    }
}

/// Where the placeholders of a policy point for one plugin.
#[derive(Clone)]
pub struct Places {
    /// `$PLUGIN`: the plugin's folder.
    pub plugin: PathBuf,
    /// `$DATA`: its settings and data folder, if the host keeps one.
    pub data: Option<PathBuf>,
    /// `$TMP`.
    pub tmp: PathBuf,
    /// `$WORKSPACES`: the daemon's current workspaces' directories, asked at each check.
    pub workspaces: Option<Arc<dyn Fn() -> Vec<PathBuf> + Send + Sync>>,
    /// The owner's home, for `~/…`.
    pub home: Option<PathBuf>,
}

#[derive(Clone, Debug)]
enum PathGrant {
    Under(PathBuf),
    Workspaces,
}

#[derive(Clone, Debug)]
enum NetGrant {
    Any,
    /// A host (lower case; an IP address as written), any port or one.
    Host(String, Option<u16>),
    /// `*.domain`: the domain's subdomains.
    Suffix(String),
}

/// A policy compiled for one plugin: what the ops check.
pub struct Permissions {
    policy: Policy,
    places: Places,
    read: Vec<PathGrant>,
    write: Vec<PathGrant>,
    net: Vec<NetGrant>,
    /// Programs by canonical path, and names whose PATH lookup failed (matched by name only
    /// when the program asked for is that name and is not found either).
    run: BTreeSet<PathBuf>,
    run_names: BTreeSet<String>,
    env: BTreeSet<String>,
    audit: Option<audit::Audit>,
}

impl Permissions {
    /// Compiles `policy` for a plugin, or says which entry is wrong and why.
    pub fn new(policy: Policy, places: Places) -> Result<Permissions, PolicyError> {
        Self::compile(policy, places).map_err(PolicyError)
    }

    fn compile(policy: Policy, places: Places) -> Result<Permissions, String> {
        let audit = policy
            .audit
            .then(|| audit::Audit::open(places.data.as_ref().map(|d| d.join(audit::FILE))));
        let paths = |field: &str, list: &[String]| -> Result<Vec<PathGrant>, String> {
            list.iter()
                .map(|entry| {
                    path_grant(entry, &places).map_err(|e| format!("permissions.{field}: {e}"))
                })
                .collect()
        };
        let read = paths("read", &policy.read)?;
        let write = paths("write", &policy.write)?;
        let net = policy
            .net
            .iter()
            .map(|e| net_grant(e).map_err(|why| format!("permissions.net: {why}")))
            .collect::<Result<_, _>>()?;
        let mut run = BTreeSet::new();
        let mut run_names = BTreeSet::new();
        for entry in &policy.run {
            if entry.is_empty() {
                return Err("permissions.run: an empty program name".into());
            }
            if entry.contains('/') {
                let path = Path::new(entry);
                if !path.is_absolute() {
                    return Err(format!(
                        "permissions.run: {entry:?} is neither a program name nor an absolute path"
                    ));
                }
                run.insert(resolve(path));
            } else {
                match which(entry, std::env::var_os("PATH").as_deref()) {
                    Some(found) => {
                        run.insert(found);
                    }
                    None => {
                        run_names.insert(entry.clone());
                    }
                }
            }
        }
        for name in &policy.env {
            if name.is_empty() || name.contains('=') || name.contains('\0') {
                return Err(format!("permissions.env: {name:?} is not a variable name"));
            }
        }
        let env = policy.env.iter().cloned().collect();
        Ok(Permissions {
            policy,
            places,
            read,
            write,
            net,
            run,
            run_names,
            env,
            audit,
        })
    }

    /// Whether the plugin runs in audit mode (full access, every access recorded).
    pub fn auditing(&self) -> bool {
        self.audit.is_some()
    }

    /// In audit mode: records the access and allows it.
    fn audited(&self, kind: Kind, resource: &str) -> bool {
        match &self.audit {
            Some(audit) => {
                audit.note(kind, resource);
                true
            }
            None => false,
        }
    }

    /// Records that the plugin read environment variable `name` (audit mode).
    pub fn note_env(&self, name: &str) {
        self.audited(Kind::Env, name);
    }

    /// The policy as written.
    pub fn policy(&self) -> &Policy {
        &self.policy
    }

    /// Whether `path` (relative ones against the daemon's working directory) may be read
    /// (`Kind::Read`) or written (`Kind::Write`).
    pub fn check_path(&self, kind: Kind, path: &Path) -> Result<(), Denied> {
        let resolved = resolve(path);
        if self.audited(kind, &resolved.display().to_string()) {
            return Ok(());
        }
        let grants = match kind {
            Kind::Write => &self.write,
            _ => &self.read,
        };
        if self.path_allowed(grants, &resolved) {
            Ok(())
        } else {
            Err(Denied {
                kind,
                resource: resolved.display().to_string(),
            })
        }
    }

    fn path_allowed(&self, grants: &[PathGrant], path: &Path) -> bool {
        grants.iter().any(|grant| match grant {
            PathGrant::Under(prefix) => path.starts_with(prefix),
            PathGrant::Workspaces => self
                .places
                .workspaces
                .as_ref()
                .is_some_and(|list| list().iter().any(|w| path.starts_with(resolve(w)))),
        })
    }

    /// Whether the plugin may connect to (or listen on) `host` at `port`; without a port (a DNS
    /// lookup), whether some grant names the host.
    pub fn check_net(&self, host: &str, port: Option<u16>) -> Result<(), Denied> {
        let host = host
            .trim_start_matches('[')
            .trim_end_matches(']')
            .to_ascii_lowercase();
        let resource = match (port, host.contains(':')) {
            (Some(p), true) => format!("[{host}]:{p}"),
            (Some(p), false) => format!("{host}:{p}"),
            (None, _) => host.clone(),
        };
        if self.audited(Kind::Net, &resource) {
            return Ok(());
        }
        let allowed = self.net.iter().any(|grant| match grant {
            NetGrant::Any => true,
            // No port (a DNS lookup): the host is enough.
            NetGrant::Host(h, p) => *h == host && (p.is_none() || port.is_none() || *p == port),
            NetGrant::Suffix(domain) => host
                .strip_suffix(domain.as_str())
                .is_some_and(|rest| rest.ends_with('.')),
        });
        if allowed {
            return Ok(());
        }
        Err(Denied {
            kind: Kind::Net,
            resource,
        })
    }

    /// Whether the plugin may run `program` (as given to spawn), looked up on `path_var` (the
    /// PATH the child gets) when it has no slash.
    pub fn check_run(
        &self,
        program: &str,
        path_var: Option<&std::ffi::OsStr>,
    ) -> Result<(), Denied> {
        let found = if program.contains('/') {
            Some(resolve(Path::new(program)))
        } else {
            which(program, path_var)
        };
        let resource = found
            .as_ref()
            .map_or(program.to_string(), |p| p.display().to_string());
        if self.audited(Kind::Run, &resource) {
            return Ok(());
        }
        let allowed = match &found {
            Some(path) => self.run.contains(path),
            None => self.run_names.contains(program),
        };
        if allowed {
            Ok(())
        } else {
            Err(Denied {
                kind: Kind::Run,
                resource,
            })
        }
    }

    /// Whether the plugin sees environment variable `name` (all of them in audit mode, where
    /// each read is recorded as it is made: `note_env`).
    pub fn env_visible(&self, name: &str) -> bool {
        self.audit.is_some() || self.env.contains(name)
    }

    pub fn check_sys(&self, what: &str) -> Result<(), Denied> {
        if self.policy.sys || self.audited(Kind::Sys, what) {
            Ok(())
        } else {
            Err(Denied {
                kind: Kind::Sys,
                resource: what.to_string(),
            })
        }
    }

    /// Node's `process.permission.has(scope, reference)`: `fs`, `fs.read`, `fs.write`,
    /// `child`, `net`, `env`, `sys`; without a reference, whether any of it is granted.
    pub fn has(&self, scope: &str, reference: Option<&str>) -> bool {
        if self.audit.is_some() {
            return true;
        }
        let path = |kind| match reference {
            Some(r) => self.check_path(kind, Path::new(r)).is_ok(),
            None => !match kind {
                Kind::Write => &self.write,
                _ => &self.read,
            }
            .is_empty(),
        };
        match scope {
            "fs" => path(Kind::Read) && path(Kind::Write),
            "fs.read" => path(Kind::Read),
            "fs.write" => path(Kind::Write),
            "child" => match reference {
                Some(r) => self
                    .check_run(r, std::env::var_os("PATH").as_deref())
                    .is_ok(),
                None => !self.run.is_empty() || !self.run_names.is_empty(),
            },
            "net" => match reference {
                Some(r) => {
                    let (host, port) = split_host_port(r);
                    self.check_net(&host, port).is_ok()
                }
                None => !self.net.is_empty(),
            },
            "env" => reference.map_or(!self.env.is_empty(), |r| self.env_visible(r)),
            "sys" => self.policy.sys,
            _ => false,
        }
    }
}

/// `host:port`, `[v6]:port` or a bare host.
pub fn split_host_port(text: &str) -> (String, Option<u16>) {
    if let Some(rest) = text.strip_prefix('[') {
        if let Some((host, after)) = rest.split_once(']') {
            return (
                host.to_string(),
                after.strip_prefix(':').and_then(|p| p.parse().ok()),
            );
        }
    }
    match text.rsplit_once(':') {
        Some((host, port)) if !host.contains(':') => match port.parse() {
            Ok(port) => (host.to_string(), Some(port)),
            Err(_) => (text.to_string(), None),
        },
        _ => (text.to_string(), None),
    }
}

fn path_grant(entry: &str, places: &Places) -> Result<PathGrant, String> {
    let (head, rest) = match entry.split_once('/') {
        Some((head, rest)) => (head, Some(rest)),
        None => (entry, None),
    };
    let base = match head {
        "$WORKSPACES" if rest.is_none() => return Ok(PathGrant::Workspaces),
        "$WORKSPACES" => return Err(format!("{entry:?}: $WORKSPACES takes no sub-path")),
        "$PLUGIN" => Some(places.plugin.clone()),
        "$DATA" => Some(
            places
                .data
                .clone()
                .ok_or_else(|| format!("{entry:?}: this host keeps no data folder"))?,
        ),
        "$TMP" => Some(places.tmp.clone()),
        "~" => Some(
            places
                .home
                .clone()
                .ok_or_else(|| format!("{entry:?}: the home folder is unknown"))?,
        ),
        h if h.starts_with('$') => return Err(format!("{entry:?}: unknown placeholder {h}")),
        _ => None,
    };
    let path = match (base, rest) {
        (Some(base), Some(rest)) => base.join(rest),
        (Some(base), None) => base,
        (None, _) if Path::new(entry).is_absolute() => PathBuf::from(entry),
        (None, _) => {
            return Err(format!(
                "{entry:?} is not an absolute path or one of $PLUGIN, $DATA, $WORKSPACES, $TMP, ~"
            ))
        }
    };
    Ok(PathGrant::Under(resolve(&path)))
}

fn net_grant(entry: &str) -> Result<NetGrant, String> {
    if entry == "*" {
        return Ok(NetGrant::Any);
    }
    if let Some(domain) = entry.strip_prefix("*.") {
        if domain.is_empty() || domain.contains(['*', ':', '/']) {
            return Err(format!("{entry:?} is not a host pattern"));
        }
        return Ok(NetGrant::Suffix(domain.to_ascii_lowercase()));
    }
    let (host, port) = split_host_port(entry);
    if host.is_empty() || host.contains(['*', '/', ' ']) {
        return Err(format!("{entry:?} is not a host, host:port or *"));
    }
    let ipv6 = host.parse::<std::net::Ipv6Addr>().is_ok();
    if entry.ends_with(':') || (host.contains(':') && !ipv6) {
        return Err(format!(
            "{entry:?}: the port is not a number from 0 to 65535"
        ));
    }
    Ok(NetGrant::Host(host.to_ascii_lowercase(), port))
}

/// `path` made absolute (against the working directory) and resolved as the kernel resolves
/// it: component by component, each symlink followed where it is met, so `..` after a symlink
/// climbs from where the link led. What does not exist yet is appended as written.
pub fn resolve(path: &Path) -> PathBuf {
    let absolute = if path.is_absolute() {
        path.to_path_buf()
    } else {
        std::env::current_dir()
            .unwrap_or_else(|_| PathBuf::from("/"))
            .join(path)
    };
    // Most paths exist: one realpath(3) resolves them.
    if let Ok(canonical) = absolute.canonicalize() {
        return canonical;
    }
    let mut current = PathBuf::from("/");
    // Whether `current` exists (and is canonical); once a part is missing, the rest is lexical.
    let mut real = true;
    for part in absolute.components() {
        match part {
            Component::RootDir | Component::Prefix(_) | Component::CurDir => {}
            Component::ParentDir => {
                current.pop();
            }
            Component::Normal(name) => {
                current.push(name);
                if real {
                    match current.canonicalize() {
                        Ok(canonical) => current = canonical,
                        Err(_) => real = false,
                    }
                }
            }
        }
    }
    current
}

/// A program name looked up on `path_var` as a shell would: the first executable file.
pub fn which(name: &str, path_var: Option<&std::ffi::OsStr>) -> Option<PathBuf> {
    use std::os::unix::fs::PermissionsExt;
    std::env::split_paths(path_var?).find_map(|dir| {
        let candidate = dir.join(name);
        let md = std::fs::metadata(&candidate).ok()?;
        (md.is_file() && md.permissions().mode() & 0o111 != 0)
            .then(|| candidate.canonicalize().ok())
            .flatten()
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn places(root: &Path) -> Places {
        Places {
            plugin: root.join("plugin"),
            data: Some(root.join("data")),
            tmp: root.join("tmp"),
            workspaces: None,
            home: Some(root.join("home")),
        }
    }

    #[test]
    fn paths_are_checked_after_dot_dot_and_symlinks() {
        let root = tempfile::tempdir().unwrap();
        let root = root.path().canonicalize().unwrap();
        for d in ["plugin", "data", "tmp", "home", "secret"] {
            std::fs::create_dir(root.join(d)).unwrap();
        }
        std::os::unix::fs::symlink(root.join("secret"), root.join("data/escape")).unwrap();
        let p = Permissions::new(sandbox(), places(&root)).unwrap();
        assert!(p
            .check_path(Kind::Read, &root.join("plugin/index.ts"))
            .is_ok());
        assert!(p
            .check_path(Kind::Write, &root.join("data/new/file"))
            .is_ok());
        assert_eq!(
            p.check_path(Kind::Write, &root.join("plugin/x")),
            Err(Denied {
                kind: Kind::Write,
                resource: root.join("plugin/x").display().to_string()
            })
        );
        // `..` and a symlink out of an allowed folder.
        assert!(p
            .check_path(Kind::Read, &root.join("plugin/../secret/key"))
            .is_err());
        let escaped = p
            .check_path(Kind::Read, &root.join("data/escape/key"))
            .unwrap_err();
        assert_eq!(
            escaped.resource,
            root.join("secret/key").display().to_string()
        );
        // `..` climbs from where the symlink led, as the kernel resolves it.
        let climbed = p
            .check_path(Kind::Read, &root.join("data/escape/../other"))
            .unwrap_err();
        assert_eq!(climbed.resource, root.join("other").display().to_string());
        assert!(p
            .check_path(Kind::Read, &root.join("data/escape/../data/x"))
            .is_ok());
    }

    #[test]
    fn hosts_match_exactly_by_port_or_by_domain() {
        let policy = Policy {
            net: vec![
                "api.example.com".into(),
                "127.0.0.1:8080".into(),
                "*.github.com".into(),
            ],
            ..Policy::default()
        };
        let p = Permissions::new(policy, places(Path::new("/nowhere"))).unwrap();
        assert!(p.check_net("API.example.com", Some(443)).is_ok());
        assert!(p.check_net("127.0.0.1", Some(8080)).is_ok());
        assert_eq!(
            p.check_net("127.0.0.1", Some(8081)).unwrap_err().resource,
            "127.0.0.1:8081"
        );
        assert!(p.check_net("raw.github.com", Some(443)).is_ok());
        assert!(p.check_net("github.com", Some(443)).is_err());
        assert!(p.check_net("evilgithub.com", None).is_err());
        assert_eq!(
            p.check_net("::1", Some(80)).unwrap_err().resource,
            "[::1]:80"
        );
    }

    #[test]
    fn a_wrong_entry_is_named() {
        let bad = |policy: Policy| {
            Permissions::new(policy, places(Path::new("/x")))
                .err()
                .unwrap()
                .to_string()
        };
        assert_eq!(
            bad(Policy { read: vec!["relative/dir".into()], ..Policy::default() }),
            "permissions.read: \"relative/dir\" is not an absolute path or one of $PLUGIN, $DATA, $WORKSPACES, $TMP, ~"
        );
        assert_eq!(
            bad(Policy {
                write: vec!["$HOME/x".into()],
                ..Policy::default()
            }),
            "permissions.write: \"$HOME/x\": unknown placeholder $HOME"
        );
        assert_eq!(
            bad(Policy {
                net: vec!["host:http".into()],
                ..Policy::default()
            }),
            "permissions.net: \"host:http\": the port is not a number from 0 to 65535"
        );
        let parsed: Result<Policy, _> = serde_json::from_str(r#"{"reed": ["/x"]}"#);
        assert!(parsed
            .unwrap_err()
            .to_string()
            .contains("unknown field `reed`"));
    }

    #[test]
    fn programs_are_matched_by_where_they_are() {
        let policy = Policy {
            run: vec!["sh".into()],
            ..Policy::default()
        };
        let p = Permissions::new(policy, places(Path::new("/x"))).unwrap();
        let path = std::env::var_os("PATH");
        assert!(p.check_run("sh", path.as_deref()).is_ok());
        let sh = which("sh", path.as_deref()).unwrap();
        assert!(p.check_run(sh.to_str().unwrap(), None).is_ok());
        assert!(p.check_run("ls", path.as_deref()).is_err());
        // A program of the same name elsewhere is not the one granted.
        let dir = tempfile::tempdir().unwrap();
        let fake = dir.path().join("sh");
        std::fs::write(&fake, "#!/bin/true\n").unwrap();
        std::fs::set_permissions(&fake, std::os::unix::fs::PermissionsExt::from_mode(0o755))
            .unwrap();
        assert!(p.check_run("sh", Some(dir.path().as_os_str())).is_err());
    }

    #[test]
    fn the_grant_command_names_the_folder() {
        let denied = Denied {
            kind: Kind::Read,
            resource: "/etc/passwd".into(),
        };
        assert_eq!(
            denied.grant_command("p"),
            "paseo plugin allow p --read /etc"
        );
        let denied = Denied {
            kind: Kind::Net,
            resource: "example.com:443".into(),
        };
        assert_eq!(
            denied.grant_command("p"),
            "paseo plugin allow p --net example.com:443"
        );
        let denied = Denied {
            kind: Kind::Read,
            resource: "/a b/c".into(),
        };
        assert_eq!(
            denied.grant_command("p"),
            "paseo plugin allow p --read '/a b'"
        );
    }
}
