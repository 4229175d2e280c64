#![allow(dead_code)]
//! Drives the real daemon binary through the `paseo` CLI and its control socket, for the
//! integration tests that need a daemon (tests/daemon*.rs, tests/mcp_auth.rs): one harness, so
//! that a fix to how a test starts, waits for or stops the daemon reaches them all.

use std::io::{BufRead, BufReader, Write};
use std::os::unix::net::UnixStream;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use serde_json::{json, Value};

/// `git ARGS` in `dir` as a test user (commits need no global config), which must succeed;
/// its trimmed stdout.
pub fn git(dir: &Path, args: &[&str]) -> String {
    let out = Command::new("git")
        .args([
            "-c",
            "user.name=t",
            "-c",
            "user.email=t@t",
            "-c",
            "init.defaultBranch=main",
        ])
        .args(args)
        .current_dir(dir)
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "git {args:?}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8_lossy(&out.stdout).trim().to_string()
}

/// `<dir>/repo`: a git repository on branch `main` with one empty commit, canonicalized.
pub fn git_repo(dir: &Path) -> PathBuf {
    let repo = dir.join("repo");
    std::fs::create_dir_all(&repo).unwrap();
    git(&repo, &["init", "-q", "-b", "main"]);
    git(&repo, &["commit", "-q", "--allow-empty", "-m", "init"]);
    repo.canonicalize().unwrap()
}

/// The payloads a probe plugin logged (`{ hook, payload }` lines) for `hook` about agent `id`.
pub fn logged<'l>(logs: &'l [Value], hook: &str, id: &str) -> Vec<&'l Value> {
    logs.iter()
        .filter(|l| l["hook"] == hook && l["payload"]["agentId"] == id)
        .map(|l| &l["payload"])
        .collect()
}

pub fn example(name: &str) -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("examples")
        .join(name)
}

pub fn fixture(name: &str) -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fixtures")
        .join(name)
}

/// `paseo` on `home`; the caller adds the arguments.
pub fn paseo(home: &Path) -> Command {
    let mut command = Command::new(env!("CARGO_BIN_EXE_paseo"));
    command.env("PASEO_HOME", home);
    command
}

/// Calls `f` every 50 ms until it gives `Some`, for `limit` at most (`None` then).
pub fn poll<T>(limit: Duration, mut f: impl FnMut() -> Option<T>) -> Option<T> {
    let started = Instant::now();
    loop {
        if let Some(value) = f() {
            return Some(value);
        }
        if started.elapsed() >= limit {
            return None;
        }
        std::thread::sleep(Duration::from_millis(50));
    }
}

/// One request on `home`'s control socket, as the CLI sends it: its result, or its error.
pub fn request(home: &Path, method: &str, params: Value) -> Result<Value, String> {
    let mut stream = UnixStream::connect(home.join("daemon.sock")).map_err(|e| e.to_string())?;
    stream
        .write_all(format!("{}\n", json!({ "method": method, "params": params })).as_bytes())
        .map_err(|e| e.to_string())?;
    // `plugin.install` sends progress lines before its answer.
    let answer = BufReader::new(stream)
        .lines()
        .map_while(Result::ok)
        .filter_map(|line| serde_json::from_str::<Value>(&line).ok())
        .find(|answer| answer.get("ok").is_some())
        .ok_or_else(|| format!("no answer to {method}"))?;
    if answer["ok"] == true {
        Ok(answer["result"].clone())
    } else {
        Err(answer["error"].as_str().unwrap_or_default().to_string())
    }
}

/// How to start a daemon: its home, log and process. [`Daemon::restart`] reuses it.
pub struct Launch {
    home: PathBuf,
    /// The temporary home the daemon owns (removed with it); `None` for one the test keeps.
    temp: Option<tempfile::TempDir>,
    /// `PASEO_LOG` and the file the daemon's stderr is appended to.
    log: Option<(String, PathBuf)>,
    pre_exec: Option<fn() -> std::io::Result<()>>,
    /// Environment variables the daemon gets on top of the test's.
    env: Vec<(String, String)>,
    /// Arguments after `paseo daemon`.
    args: Vec<String>,
}

impl Default for Launch {
    fn default() -> Launch {
        Launch::new()
    }
}

impl Launch {
    /// A fresh temporary home with plugins on.
    pub fn new() -> Launch {
        Launch::in_home(tempfile::tempdir().unwrap()).config(r#"{ "pluginsEnabled": true }"#)
    }

    /// `home` as it is, owned by the daemon from now on.
    pub fn in_home(home: tempfile::TempDir) -> Launch {
        Launch {
            home: home.path().to_path_buf(),
            temp: Some(home),
            log: None,
            pre_exec: None,
            env: Vec::new(),
            args: Vec::new(),
        }
    }

    /// A home the test keeps (it need not exist yet), to restart daemons on.
    pub fn at(home: &Path) -> Launch {
        Launch {
            home: home.to_path_buf(),
            temp: None,
            log: None,
            pre_exec: None,
            env: Vec::new(),
            args: Vec::new(),
        }
    }

    pub fn home(&self) -> &Path {
        &self.home
    }

    /// Writes the home's `config.json` now.
    pub fn config(self, json: &str) -> Launch {
        std::fs::write(self.home.join("config.json"), json).unwrap();
        self
    }

    /// Passes `arg` to `paseo daemon`.
    pub fn arg(mut self, arg: &str) -> Launch {
        self.args.push(arg.into());
        self
    }

    /// Runs the daemon with `PASEO_LOG=filter`, appending its stderr to `file` (which restarts
    /// keep appending to); [`Daemon::stderr`] reads it.
    pub fn env(mut self, key: &str, value: &str) -> Launch {
        self.env.push((key.into(), value.into()));
        self
    }

    pub fn log(mut self, filter: &str, file: &Path) -> Launch {
        self.log = Some((filter.to_string(), file.to_path_buf()));
        self
    }

    /// Runs `f` in the daemon's process before it executes (to set resource limits, say).
    ///
    /// # Safety
    /// `f` runs between fork and exec: it must be async-signal-safe ([`CommandExt::pre_exec`]).
    ///
    /// [`CommandExt::pre_exec`]: std::os::unix::process::CommandExt::pre_exec
    pub unsafe fn pre_exec(mut self, f: fn() -> std::io::Result<()>) -> Launch {
        self.pre_exec = Some(f);
        self
    }

    /// Starts the daemon and waits until its control socket answers (30 s at most).
    pub fn start(self) -> Daemon {
        let mut command = paseo(&self.home);
        command
            .arg("daemon")
            .args(&self.args)
            .envs(self.env.iter().map(|(k, v)| (k, v)));
        if let Some((filter, file)) = &self.log {
            let stderr = std::fs::OpenOptions::new()
                .create(true)
                .append(true)
                .open(file)
                .unwrap();
            command.env("PASEO_LOG", filter).stderr(Stdio::from(stderr));
        }
        if let Some(f) = self.pre_exec {
            use std::os::unix::process::CommandExt;
            // SAFETY: what `Launch::pre_exec`'s caller promised.
            unsafe {
                command.pre_exec(f);
            }
        }
        let mut daemon = Daemon {
            child: Some(command.spawn().unwrap()),
            launch: Some(self),
        };
        let ready = poll(Duration::from_secs(30), || {
            if let Some(status) = daemon.child.as_mut().unwrap().try_wait().unwrap() {
                panic!("the daemon exited ({status}): {}", daemon.stderr());
            }
            daemon.request("daemon.status", json!({})).ok()
        });
        assert!(ready.is_some(), "daemon did not start: {}", daemon.stderr());
        daemon
    }

    /// Starts the daemon and installs each of `plugins` (directories).
    pub fn start_with(self, plugins: &[PathBuf]) -> Daemon {
        let daemon = self.start();
        for p in plugins {
            daemon.cli(&["plugin", "install", p.to_str().unwrap()]);
        }
        daemon
    }
}

/// A running daemon; dropping it kills the process (a test that fails leaves none behind).
pub struct Daemon {
    /// `None` only while [`Daemon::restart`] hands it on.
    launch: Option<Launch>,
    child: Option<Child>,
}

impl Daemon {
    /// A daemon in a fresh temporary home with plugins on and each of `plugins` installed.
    pub fn start(plugins: &[PathBuf]) -> Daemon {
        Launch::new().start_with(plugins)
    }

    /// A daemon on `home` as it is.
    pub fn start_in(home: tempfile::TempDir) -> Daemon {
        Launch::in_home(home).start()
    }

    pub fn home(&self) -> &Path {
        self.launch.as_ref().unwrap().home()
    }

    pub fn pid(&self) -> u32 {
        self.child.as_ref().unwrap().id()
    }

    /// What the daemon wrote to stderr so far ([`Launch::log`]; empty without one).
    pub fn stderr(&self) -> String {
        match &self.launch.as_ref().unwrap().log {
            Some((_, file)) => std::fs::read_to_string(file).unwrap_or_default(),
            None => String::new(),
        }
    }

    /// One request on the control socket: its result, or its error.
    pub fn request(&self, method: &str, params: Value) -> Result<Value, String> {
        request(self.home(), method, params)
    }

    /// One request on the control socket, which must succeed.
    pub fn call(&self, method: &str, params: Value) -> Value {
        self.request(method, params)
            .unwrap_or_else(|e| panic!("{method} failed: {e}"))
    }

    /// `paseo ARGS`: its stdout as JSON when it succeeds, and its stderr.
    pub fn cli_raw(&self, args: &[&str]) -> (Option<Value>, String) {
        let out = paseo(self.home()).args(args).output().unwrap();
        let value = if out.status.success() {
            serde_json::from_slice(&out.stdout).ok()
        } else {
            None
        };
        (value, String::from_utf8_lossy(&out.stderr).into_owned())
    }

    /// `paseo ARGS --json`, which must succeed.
    pub fn cli(&self, args: &[&str]) -> Value {
        let mut args = args.to_vec();
        args.push("--json");
        let (value, stderr) = self.cli_raw(&args);
        value.unwrap_or_else(|| panic!("paseo {args:?} failed: {stderr}"))
    }

    /// The error of `paseo ARGS --json`, which must fail.
    pub fn cli_err(&self, args: &[&str]) -> String {
        let out = paseo(self.home())
            .args(args)
            .arg("--json")
            .output()
            .unwrap();
        assert!(!out.status.success(), "paseo {args:?} should fail");
        serde_json::from_slice::<Value>(&out.stdout).unwrap()["error"]
            .as_str()
            .unwrap()
            .to_string()
    }

    /// The plugin's log lines that are JSON, in order.
    pub fn json_logs(&self, plugin: &str) -> Vec<Value> {
        let logs = self.cli(&["plugin", "logs", plugin]);
        logs.as_array()
            .unwrap()
            .iter()
            .filter_map(|e| serde_json::from_str::<Value>(e["message"].as_str()?).ok())
            .collect()
    }

    /// Polls the plugin's JSON log lines until `done` holds for them (10 s at most).
    pub fn wait_logs(
        &self,
        plugin: &str,
        what: &str,
        done: impl Fn(&[Value]) -> bool,
    ) -> Vec<Value> {
        let mut logs = Vec::new();
        let found = poll(Duration::from_secs(10), || {
            logs = self.json_logs(plugin);
            done(&logs).then_some(())
        });
        assert!(
            found.is_some(),
            "waited in vain for {what}; {plugin} logged {logs:#?}"
        );
        logs
    }

    /// Polls `paseo agent show ID` until `done` holds (10 s at most).
    pub fn wait_agent(&self, id: &str, what: &str, done: impl Fn(&Value) -> bool) -> Value {
        let mut agent = Value::Null;
        let found = poll(Duration::from_secs(10), || {
            agent = self.cli(&["agent", "show", id]);
            done(&agent).then_some(())
        });
        assert!(found.is_some(), "waited in vain for {what}: {agent:#}");
        agent
    }

    /// `daemon.stop`, which must succeed, and so must the process exit; returns its stderr.
    pub fn stop(mut self) -> String {
        self.shut_down();
        self.stderr()
    }

    /// Stops the daemon as [`Daemon::stop`] does and starts another on the same home, as launched.
    pub fn restart(mut self) -> Daemon {
        self.shut_down();
        self.launch.take().unwrap().start()
    }

    /// SIGKILL, as a crash or the OOM killer would.
    pub fn kill(mut self) {
        let mut child = self.child.take().unwrap();
        child.kill().unwrap();
        child.wait().unwrap();
    }

    fn shut_down(&mut self) {
        self.call("daemon.stop", json!({}));
        let status = self.child.take().unwrap().wait().unwrap();
        assert!(
            status.success(),
            "daemon stopped with {status}: {}",
            self.stderr()
        );
    }
}

impl Drop for Daemon {
    fn drop(&mut self) {
        if let Some(mut child) = self.child.take() {
            let _ = child.kill();
            let _ = child.wait();
        }
    }
}
