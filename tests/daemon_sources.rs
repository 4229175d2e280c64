//! Managed plugin sources, driven through the daemon binary and offline: a Git source is a
//! repository the test makes (file://), the registry and the npm registry are a small HTTP
//! server on 127.0.0.1 that the test runs, npm packages are `npm pack` tarballs. Checked: the
//! layout under $PASEO_HOME/plugins, sources.json, revisions, updates (and failed ones, which
//! keep the running version), removal, and that a failed install leaves nothing behind.
mod daemon_harness;

use std::io::{BufRead, BufReader, Read, Write};
use std::net::TcpListener;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::{Arc, Mutex};

use daemon_harness::*;
use serde_json::{json, Value};

/// Writes the greeter plugin at `dir`: it logs `greeter <version>` when it starts, and its
/// build command copies `build.txt` (or runs `build`, when given) into `built.txt`.
fn write_greeter(dir: &Path, id: &str, version: &str, build: Option<Value>, code: Option<&str>) {
    std::fs::create_dir_all(dir).unwrap();
    let build = build.unwrap_or(json!([["cp", "build.txt", "built.txt"]]));
    std::fs::write(
        dir.join("paseo-plugin.json"),
        json!({ "id": id, "requirements": { "paseo": ">=0.14.0" }, "build": build }).to_string(),
    )
    .unwrap();
    std::fs::write(dir.join("build.txt"), format!("built {version}\n")).unwrap();
    let code = code.map(str::to_string).unwrap_or_else(|| {
        format!("export default function contribute(_server: any) {{ console.log(\"greeter {version}\"); return () => {{}}; }}\n")
    });
    std::fs::write(dir.join("index.server.ts"), code).unwrap();
}

/// A repository holding the greeter in `plugins/greeter`, at its first commit.
fn greeter_repo() -> (tempfile::TempDir, String) {
    let repo = tempfile::tempdir().unwrap();
    git(repo.path(), &["init", "-q"]);
    write_greeter(
        &repo.path().join("plugins/greeter"),
        "greeter",
        "v1",
        None,
        None,
    );
    let commit = commit_all(repo.path(), "v1");
    (repo, commit)
}

fn commit_all(repo: &Path, message: &str) -> String {
    git(repo, &["add", "-A"]);
    git(repo, &["commit", "-q", "-m", message]);
    git(repo, &["rev-parse", "HEAD"])
}

fn row(daemon: &Daemon, id: &str) -> Value {
    let rows = daemon.cli(&["plugin", "ls"]);
    rows.as_array()
        .unwrap()
        .iter()
        .find(|r| r["id"] == id)
        .cloned()
        .unwrap_or(Value::Null)
}

fn logs(daemon: &Daemon, id: &str) -> Vec<String> {
    daemon
        .cli(&["plugin", "logs", id])
        .as_array()
        .unwrap()
        .iter()
        .filter_map(|l| l["message"].as_str().map(str::to_string))
        .collect()
}

/// The version folders of a managed plugin.
fn versions(home: &Path, id: &str) -> Vec<PathBuf> {
    std::fs::read_dir(home.join("plugins").join(id))
        .map(|d| d.flatten().map(|e| e.path()).collect())
        .unwrap_or_default()
}

fn staging_is_empty(home: &Path) -> bool {
    std::fs::read_dir(home.join("plugins/.staging")).map_or(true, |mut d| d.next().is_none())
}

fn sources_json(home: &Path) -> Value {
    serde_json::from_str(&std::fs::read_to_string(home.join("plugins/sources.json")).unwrap())
        .unwrap()
}

#[test]
fn a_git_source_installs_updates_keeps_the_running_version_on_failure_and_removes() {
    let (repo, v1) = greeter_repo();
    let daemon = Launch::new().start();
    let home = daemon.home().to_path_buf();
    let remote = format!("file://{}", repo.path().display());
    let source = format!("git:{remote}:plugins/greeter");

    let installed = daemon.cli(&["plugin", "install", &source]);
    assert_eq!(installed["id"], "greeter");
    let dir = PathBuf::from(installed["directory"].as_str().unwrap());
    let version = versions(&home, "greeter");
    assert_eq!(version.len(), 1);
    assert_eq!(dir, version[0].join("checkout/plugins/greeter"));
    assert_eq!(
        std::fs::read_to_string(dir.join("built.txt")).unwrap(),
        "built v1\n"
    );
    assert_eq!(
        sources_json(&home),
        json!({ "greeter": { "kind": "git", "remote": remote } })
    );
    let r = row(&daemon, "greeter");
    assert_eq!(
        (r["status"].as_str(), r["source"].as_str()),
        (Some("running"), Some("git"))
    );
    assert_eq!(r["revision"], v1);
    assert!(logs(&daemon, "greeter").contains(&"greeter v1".to_string()));
    assert!(staging_is_empty(&home));
    // The private home: the version tree is the owner's only.
    use std::os::unix::fs::PermissionsExt;
    let mode = std::fs::metadata(home.join("plugins/greeter"))
        .unwrap()
        .permissions()
        .mode();
    assert_eq!(mode & 0o777, 0o700);

    // A new commit: update fetches it, builds it and swaps it in; the old tree goes.
    write_greeter(
        &repo.path().join("plugins/greeter"),
        "greeter",
        "v2",
        None,
        None,
    );
    let v2 = commit_all(repo.path(), "v2");
    // --check says what an update would install, and changes nothing.
    assert_eq!(
        daemon.cli(&["plugin", "update", "greeter", "--check"]),
        json!({ "id": "greeter", "revision": v1, "target": v2, "status": "update" })
    );
    assert_eq!(row(&daemon, "greeter")["revision"], v1);
    assert_eq!(
        daemon.cli_err(&["plugin", "update"]),
        "Choose one plugin ID or pass --all"
    );
    assert_eq!(
        daemon.cli_err(&["plugin", "update", "--all", "--ref", "main"]),
        "An explicit target requires one plugin ID, without --all"
    );
    assert_eq!(
        daemon.cli_err(&["plugin", "update", "greeter"]),
        "Confirmation required; rerun with --yes."
    );
    let updated = daemon.cli(&["plugin", "update", "greeter", "--yes"]);
    assert_eq!(
        (updated["previous"].as_str(), updated["revision"].as_str()),
        (Some(v1.as_str()), Some(v2.as_str()))
    );
    assert_eq!(row(&daemon, "greeter")["revision"], v2);
    assert!(logs(&daemon, "greeter").contains(&"greeter v2".to_string()));
    assert_eq!(versions(&home, "greeter").len(), 1);
    assert!(!version[0].exists());
    assert_eq!(
        daemon.cli(&["plugin", "update", "--all", "--check"]),
        json!([{ "id": "greeter", "revision": v2, "target": v2, "status": "current" }])
    );

    // A build that fails: the update fails, v2 keeps running, nothing new stays on disk.
    write_greeter(
        &repo.path().join("plugins/greeter"),
        "greeter",
        "v3",
        Some(json!([["false"]])),
        None,
    );
    commit_all(repo.path(), "v3 breaks the build");
    let error = daemon.cli_err(&["plugin", "update", "greeter", "--yes"]);
    assert!(
        error.starts_with("Plugin greeter was not updated; the installed version is kept: Build command false failed"),
        "{error}"
    );
    let r = row(&daemon, "greeter");
    assert_eq!(
        (r["status"].as_str(), r["revision"].as_str()),
        (Some("running"), Some(v2.as_str()))
    );
    assert_eq!(versions(&home, "greeter").len(), 1);
    assert!(staging_is_empty(&home));

    // Code that does not load: the old version is started again.
    write_greeter(
        &repo.path().join("plugins/greeter"),
        "greeter",
        "v4",
        None,
        Some("throw new Error(\"v4 is broken\");\nexport default function contribute(_server: any) { return () => {}; }\n"),
    );
    commit_all(repo.path(), "v4 throws");
    let error = daemon.cli_err(&["plugin", "update", "greeter", "--yes"]);
    assert_eq!(
        error,
        "Plugin greeter was not updated (the installed version is running again): v4 is broken"
    );
    let r = row(&daemon, "greeter");
    assert_eq!(
        (r["status"].as_str(), r["revision"].as_str()),
        (Some("running"), Some(v2.as_str()))
    );
    assert_eq!(versions(&home, "greeter").len(), 1);

    // --ref pins a commit (here the first one).
    let pinned = daemon.cli(&["plugin", "update", "greeter", "--ref", &v1]);
    assert_eq!(pinned["revision"], v1);
    assert!(daemon
        .cli_err(&["plugin", "update", "greeter", "--version", "1.0.0"])
        .contains("only valid for npm sources"));

    // remove deletes the staged tree and the record, never the repository.
    daemon.cli(&["plugin", "remove", "greeter"]);
    assert!(!home.join("plugins/greeter").exists());
    assert_eq!(sources_json(&home), json!({}));
    assert!(repo.path().join("plugins/greeter/index.server.ts").exists());
    assert_eq!(row(&daemon, "greeter"), Value::Null);
    daemon.stop();
}

#[test]
fn a_failed_install_leaves_nothing_behind_and_bad_sources_say_why() {
    let (repo, _) = greeter_repo();
    write_greeter(
        &repo.path().join("plugins/greeter"),
        "greeter",
        "v1",
        Some(json!([["false"]])),
        None,
    );
    commit_all(repo.path(), "the build fails");
    let daemon = Launch::new().start();
    let home = daemon.home().to_path_buf();
    let source = format!("git:file://{}:plugins/greeter", repo.path().display());
    let error = daemon.cli_err(&["plugin", "install", &source]);
    assert!(error.starts_with("Build command false failed"), "{error}");
    assert!(!home.join("plugins/greeter").exists());
    assert!(staging_is_empty(&home));
    assert_eq!(daemon.cli(&["plugin", "ls"]), json!([]));

    // A subfolder that escapes, a ref that is not there, sources that are not sources.
    let error = daemon.cli_err(&[
        "plugin",
        "install",
        &format!("git:file://{}", repo.path().display()),
        "--ref",
        "nope",
    ]);
    assert!(
        error.starts_with("Git ref nope was not found in file://"),
        "{error}"
    );
    assert_eq!(
        daemon.cli_err(&["plugin", "install", "Not A Source"]),
        "Plugin source is neither an existing directory nor a Git URL: Not A Source"
    );
    assert_eq!(
        daemon.cli_err(&["plugin", "install", "npm:some-plugin", "--ref", "main"]),
        "Plugin --ref is only valid for Git sources; use npm:package@version for npm"
    );
    assert_eq!(
        daemon.cli_err(&["plugin", "install", "github:acme"]),
        "Use github:owner/repository for a GitHub plugin source"
    );
    assert!(staging_is_empty(&home));
    daemon.stop();
}

/// Paths and the bodies served for them.
type Routes = Arc<Mutex<Vec<(String, Vec<u8>)>>>;

/// A registry and an npm registry on 127.0.0.1: `routes` maps a path to a body (JSON or bytes).
struct Server {
    url: String,
    routes: Routes,
    seen: Arc<Mutex<Vec<String>>>,
}

impl Server {
    fn start() -> Server {
        let listener = TcpListener::bind("127.0.0.1:0").unwrap();
        let url = format!("http://{}", listener.local_addr().unwrap());
        let routes: Routes = Arc::default();
        let seen: Arc<Mutex<Vec<String>>> = Arc::default();
        let (r, s) = (routes.clone(), seen.clone());
        std::thread::spawn(move || {
            // Bounded: the test makes a few dozen requests at most.
            for stream in listener.incoming().take(200).flatten() {
                let mut reader = BufReader::new(stream.try_clone().unwrap());
                let mut line = String::new();
                if reader.read_line(&mut line).is_err() {
                    continue;
                }
                let mut headers = Vec::new();
                loop {
                    let mut h = String::new();
                    if reader.read_line(&mut h).unwrap_or(0) == 0 || h == "\r\n" {
                        break;
                    }
                    headers.push(h.trim().to_lowercase());
                }
                let path = line.split_whitespace().nth(1).unwrap_or("/").to_string();
                let install = headers.iter().any(|h| h == "x-paseo-install: 1");
                let auth = headers.iter().any(|h| h == "authorization: bearer t0ken");
                s.lock().unwrap().push(format!(
                    "{path}{}{}",
                    if install { " install" } else { "" },
                    if auth { " auth" } else { "" }
                ));
                let body = r
                    .lock()
                    .unwrap()
                    .iter()
                    .find(|(p, _)| *p == path)
                    .map(|(_, b)| b.clone());
                let mut stream = stream;
                let _ = match body {
                    Some(body) => {
                        let _ = write!(
                            stream,
                            "HTTP/1.1 200 OK\r\nContent-Length: {}\r\nConnection: close\r\n\r\n",
                            body.len()
                        );
                        stream.write_all(&body)
                    }
                    None => stream.write_all(
                        b"HTTP/1.1 404 Not Found\r\nContent-Length: 0\r\nConnection: close\r\n\r\n",
                    ),
                };
                let _ = reader.read(&mut [0u8; 0]);
            }
        });
        Server { url, routes, seen }
    }

    fn route(&self, path: &str, body: impl Into<Vec<u8>>) {
        let mut routes = self.routes.lock().unwrap();
        routes.retain(|(p, _)| p != path);
        routes.push((path.to_string(), body.into()));
    }
}

/// `npm pack` of a greeter package named `name` at `version`: (tarball bytes, integrity).
fn npm_tarball(name: &str, version: &str) -> (Vec<u8>, String) {
    let dir = tempfile::tempdir().unwrap();
    write_greeter(dir.path(), "npm-greeter", version, None, None);
    std::fs::write(
        dir.path().join("package.json"),
        json!({ "name": name, "version": version }).to_string(),
    )
    .unwrap();
    let out = Command::new("npm")
        .args(["pack", "--json", "--silent"])
        .current_dir(dir.path())
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "npm pack: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    let packed: Value = serde_json::from_slice(&out.stdout).unwrap();
    let file = dir.path().join(packed[0]["filename"].as_str().unwrap());
    (
        std::fs::read(file).unwrap(),
        packed[0]["integrity"].as_str().unwrap().to_string(),
    )
}

#[test]
fn registry_and_npm_sources_resolve_offline() {
    let (repo, v1) = greeter_repo();
    let server = Server::start();
    let remote = format!("file://{}", repo.path().display());
    server.route(
        "/plugins/acme/greeter.json",
        json!({ "id": "acme/greeter", "artifact": { "kind": "git", "remote": remote, "commit": v1, "pluginPath": "plugins/greeter" } }).to_string(),
    );
    // An npm package, served as a tarball the registry pins, and from an npm registry.
    let (tgz1, integrity1) = npm_tarball("npm-greeter", "1.0.0");
    let (tgz2, integrity2) = npm_tarball("npm-greeter", "1.1.0");
    server.route("/tarballs/npm-greeter-1.0.0.tgz", tgz1);
    server.route("/tarballs/npm-greeter-1.1.0.tgz", tgz2);
    let tarball = |v: &str| format!("{}/tarballs/npm-greeter-{v}.tgz", server.url);
    server.route(
        "/plugins/acme/npm-greeter.json",
        json!({ "id": "acme/npm-greeter", "artifact": { "kind": "npm", "package": "npm-greeter", "version": "1.0.0", "resolved": tarball("1.0.0"), "integrity": integrity1 } }).to_string(),
    );
    let packument = |latest: &str| {
        json!({
            "name": "npm-greeter",
            "dist-tags": { "latest": latest },
            "versions": {
                "1.0.0": { "name": "npm-greeter", "version": "1.0.0", "dist": { "tarball": tarball("1.0.0"), "integrity": integrity1 } },
                "1.1.0": { "name": "npm-greeter", "version": "1.1.0", "dist": { "tarball": tarball("1.1.0"), "integrity": integrity2 } },
            },
        })
        .to_string()
    };
    server.route("/npm-greeter", packument("1.0.0"));
    let npm_cache = tempfile::tempdir().unwrap();
    // Credentials for the registry's host:port (sent to it, over loopback http here).
    let host_port = server.url.trim_start_matches("http://").to_string();
    let config = json!({ "pluginsEnabled": true, "pluginRegistries": { host_port: { "authorization": "Bearer t0ken" } } });
    let daemon = Launch::new()
        .config(&config.to_string())
        .env("PASEO_PLUGIN_REGISTRY", &server.url)
        .env("npm_config_registry", &format!("{}/", server.url))
        .env("npm_config_cache", npm_cache.path().to_str().unwrap())
        .start();
    let home = daemon.home().to_path_buf();

    // owner/slug through the registry: a Git artifact, pinned to its commit.
    let installed = daemon.cli(&["plugin", "install", "acme/greeter"]);
    assert_eq!(installed["revision"], v1);
    let registry = json!({ "url": server.url, "id": "acme/greeter" });
    assert_eq!(
        sources_json(&home)["greeter"],
        json!({ "kind": "git", "remote": remote, "registry": registry })
    );
    assert!(server
        .seen
        .lock()
        .unwrap()
        .contains(&"/plugins/acme/greeter.json install auth".to_string()));
    assert_eq!(
        daemon.cli_err(&["plugin", "update", "greeter", "--ref", "main"]),
        "Registry updates use only the reviewed registry pin"
    );
    let error = daemon.cli_err(&["plugin", "install", "acme/missing"]);
    assert!(
        error.starts_with("Plugin acme/missing was not found in registry 127.0.0.1."),
        "{error}"
    );
    assert_eq!(
        daemon.cli_err(&["plugin", "install", "acme/greeter", "--ref", "main"]),
        "Registry sources use their reviewed artifact path and revision"
    );

    // An npm artifact: the pinned tarball, checked against the lockfile.
    let installed = daemon.cli(&["plugin", "install", "acme/npm-greeter"]);
    assert_eq!(
        (installed["id"].as_str(), installed["revision"].as_str()),
        (Some("npm-greeter"), Some("1.0.0"))
    );
    let dir = PathBuf::from(installed["directory"].as_str().unwrap());
    assert!(
        dir.ends_with("node_modules/npm-greeter"),
        "{}",
        dir.display()
    );
    let root = dir.parent().unwrap().parent().unwrap();
    assert!(root.join("package-lock.json").exists());
    assert_eq!(
        std::fs::read_to_string(dir.join("built.txt")).unwrap(),
        "built 1.0.0\n"
    );
    assert_eq!(row(&daemon, "npm-greeter")["source"], "npm");
    daemon.cli(&["plugin", "remove", "npm-greeter"]);

    // npm:<name>[@selector] from the npm registry, then an update to a newer latest.
    let installed = daemon.cli(&[
        "plugin",
        "install",
        "npm:npm-greeter@1.0.0",
        "--id",
        "greeter-npm",
    ]);
    assert_eq!(
        (installed["id"].as_str(), installed["revision"].as_str()),
        (Some("greeter-npm"), Some("1.0.0"))
    );
    assert_eq!(sources_json(&home)["greeter-npm"], json!({ "kind": "npm" }));
    server.route("/npm-greeter", packument("1.1.0"));
    assert_eq!(
        daemon.cli(&["plugin", "update", "greeter-npm", "--check"])["target"],
        "1.1.0"
    );
    let updated = daemon.cli(&["plugin", "update", "greeter-npm", "--yes"]);
    assert_eq!(
        (updated["previous"].as_str(), updated["revision"].as_str()),
        (Some("1.0.0"), Some("1.1.0"))
    );
    assert!(logs(&daemon, "greeter-npm").contains(&"greeter 1.1.0".to_string()));
    assert_eq!(versions(&home, "greeter-npm").len(), 1);
    let back = daemon.cli(&["plugin", "update", "greeter-npm", "--version", "1.0.0"]);
    assert_eq!(back["revision"], "1.0.0");
    assert!(staging_is_empty(&home));
    daemon.stop();
}

#[test]
fn a_staging_folder_left_by_a_killed_install_is_removed_at_start() {
    let home = tempfile::tempdir().unwrap();
    let leftover = home.path().join("plugins/.staging/0b5e-left-over");
    std::fs::create_dir_all(leftover.join("checkout")).unwrap();
    let daemon = Launch::at(home.path())
        .config(r#"{ "pluginsEnabled": true }"#)
        .start();
    assert!(!leftover.exists());
    daemon.stop();
}

/// One record of `sources.json` that cannot be read costs only its own plugin: the others stay
/// updatable and every write keeps the bad record as it was. A file that cannot be read at all
/// is kept aside (0600) before anything replaces it. Paseo's earlier record layout (no `kind`)
/// is read as the Git source it is.
#[test]
fn an_unreadable_source_record_costs_no_other_plugin_its_record() {
    let (repo, v1) = greeter_repo();
    let daemon = Launch::new().start();
    let home = daemon.home().to_path_buf();
    let remote = format!("file://{}", repo.path().display());
    daemon.cli(&[
        "plugin",
        "install",
        &format!("git:{remote}:plugins/greeter"),
    ]);
    write_greeter(
        &repo.path().join("plugins/other"),
        "other",
        "v1",
        None,
        None,
    );
    commit_all(repo.path(), "other");
    daemon.cli(&["plugin", "install", &format!("git:{remote}:plugins/other")]);

    // The greeter's record is damaged; the other's is Paseo's earlier layout.
    let bad = json!({ "kind": 42, "remote": ["not", "a", "string"] });
    let records = json!({
        "greeter": bad,
        "other": { "remote": remote, "requestedRef": null, "trackingBranch": "main",
                   "commit": "0000000000000000000000000000000000000000",
                   "pluginPath": "plugins/other", "checkoutRoot": "checkout" },
    });
    std::fs::write(home.join("plugins/sources.json"), records.to_string()).unwrap();

    write_greeter(
        &repo.path().join("plugins/other"),
        "other",
        "v2",
        None,
        None,
    );
    let v2 = commit_all(repo.path(), "other v2");
    let updated = daemon.cli(&["plugin", "update", "other", "--yes"]);
    assert_eq!(updated["revision"], v2.as_str(), "{updated}");
    assert_eq!(row(&daemon, "other")["revision"], v2.as_str());
    // The write upgraded the other's record and kept the damaged one as it was.
    assert_eq!(
        sources_json(&home),
        json!({ "greeter": bad, "other": { "kind": "git", "remote": remote } })
    );
    // The damaged plugin still runs; it is only its updates that cannot be made.
    assert_eq!(row(&daemon, "greeter")["revision"], v1.as_str());

    // A file that cannot be read at all: kept aside, then a new file for what is written next.
    std::fs::write(home.join("plugins/sources.json"), "{ torn").unwrap();
    daemon.cli(&["plugin", "remove", "other"]);
    let aside: Vec<PathBuf> = std::fs::read_dir(home.join("plugins"))
        .unwrap()
        .flatten()
        .map(|e| e.path())
        .filter(|p| {
            p.file_name()
                .unwrap()
                .to_string_lossy()
                .starts_with("sources.json.corrupt-")
        })
        .collect();
    assert_eq!(aside.len(), 1, "{aside:?}");
    assert_eq!(std::fs::read_to_string(&aside[0]).unwrap(), "{ torn");
    use std::os::unix::fs::PermissionsExt;
    assert_eq!(
        std::fs::metadata(&aside[0]).unwrap().permissions().mode() & 0o777,
        0o600
    );
}
