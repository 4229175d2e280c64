#![allow(dead_code)]
//! Drives the real daemon binary in a temporary home through the `paseo` CLI, for the
//! integration tests that need a daemon (one copy of what tests/daemon.rs does inline).

use std::path::PathBuf;
use std::process::{Child, Command};
use std::time::{Duration, Instant};

use serde_json::Value;

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

pub struct Daemon {
    pub home: tempfile::TempDir,
    child: Option<Child>,
}

impl Daemon {
    pub fn start_in(home: tempfile::TempDir) -> Daemon {
        let child = Command::new(env!("CARGO_BIN_EXE_paseo"))
            .env("PASEO_HOME", home.path())
            .arg("daemon")
            .spawn()
            .unwrap();
        let daemon = Daemon {
            home,
            child: Some(child),
        };
        let started = Instant::now();
        while daemon.cli_raw(&["plugin", "ls", "--json"]).0.is_none() {
            assert!(
                started.elapsed() < Duration::from_secs(30),
                "daemon did not start"
            );
            std::thread::sleep(Duration::from_millis(50));
        }
        daemon
    }

    /// A daemon with plugins on and each of `plugins` (directories) installed.
    pub fn start(plugins: &[PathBuf]) -> Daemon {
        let home = tempfile::tempdir().unwrap();
        std::fs::write(
            home.path().join("config.json"),
            r#"{ "pluginsEnabled": true }"#,
        )
        .unwrap();
        let daemon = Daemon::start_in(home);
        for p in plugins {
            daemon.cli(&["plugin", "install", p.to_str().unwrap()]);
        }
        daemon
    }

    pub fn cli_raw(&self, args: &[&str]) -> (Option<Value>, String) {
        let out = Command::new(env!("CARGO_BIN_EXE_paseo"))
            .env("PASEO_HOME", self.home.path())
            .args(args)
            .output()
            .unwrap();
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
        let out = Command::new(env!("CARGO_BIN_EXE_paseo"))
            .env("PASEO_HOME", self.home.path())
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
        let started = Instant::now();
        loop {
            let logs = self.json_logs(plugin);
            if done(&logs) {
                return logs;
            }
            assert!(
                started.elapsed() < Duration::from_secs(10),
                "waited in vain for {what}; {plugin} logged {logs:#?}"
            );
            std::thread::sleep(Duration::from_millis(50));
        }
    }

    /// Polls `paseo agent show ID` until `done` holds (10 s at most).
    pub fn wait_agent(&self, id: &str, what: &str, done: impl Fn(&Value) -> bool) -> Value {
        let started = Instant::now();
        loop {
            let agent = self.cli(&["agent", "show", id]);
            if done(&agent) {
                return agent;
            }
            assert!(
                started.elapsed() < Duration::from_secs(10),
                "waited in vain for {what}: {agent:#}"
            );
            std::thread::sleep(Duration::from_millis(50));
        }
    }

    pub fn stop(mut self) -> tempfile::TempDir {
        self.cli_raw(&["daemon", "stop"]);
        if let Some(mut child) = self.child.take() {
            child.wait().unwrap();
        }
        std::mem::replace(&mut self.home, tempfile::tempdir().unwrap())
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
