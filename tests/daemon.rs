//! End to end: the real daemon binary in a temporary home, driven through the CLI. Each hook is
//! observed at its point, in the documented order (the lifecycle-logger example records them).

mod common;

use std::path::{Path, PathBuf};
use std::process::{Child, Command};
use std::time::{Duration, Instant};

use serde_json::{json, Value};

struct Daemon {
    home: tempfile::TempDir,
    child: Option<Child>,
}

fn example(name: &str) -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("examples").join(name)
}

impl Daemon {
    fn start_in(home: tempfile::TempDir) -> Daemon {
        let child = Command::new(env!("CARGO_BIN_EXE_paseo")).env("PASEO_HOME", home.path()).arg("daemon").spawn().unwrap();
        let daemon = Daemon { home, child: Some(child) };
        let started = Instant::now();
        while daemon.cli_raw(&["plugin", "ls", "--json"]).0.is_none() {
            assert!(started.elapsed() < Duration::from_secs(30), "daemon did not start");
            std::thread::sleep(Duration::from_millis(50));
        }
        daemon
    }

    fn start(plugins: &[&str]) -> Daemon {
        let home = tempfile::tempdir().unwrap();
        std::fs::write(home.path().join("config.json"), r#"{ "pluginsEnabled": true }"#).unwrap();
        let daemon = Daemon::start_in(home);
        for p in plugins {
            daemon.cli(&["plugin", "install", example(p).to_str().unwrap()]);
        }
        daemon
    }

    fn cli_raw(&self, args: &[&str]) -> (Option<Value>, String) {
        let out = Command::new(env!("CARGO_BIN_EXE_paseo")).env("PASEO_HOME", self.home.path()).args(args).output().unwrap();
        let value = if out.status.success() { serde_json::from_slice(&out.stdout).ok() } else { None };
        (value, String::from_utf8_lossy(&out.stderr).into_owned())
    }

    fn cli(&self, args: &[&str]) -> Value {
        let mut args = args.to_vec();
        args.push("--json");
        let (value, stderr) = self.cli_raw(&args);
        value.unwrap_or_else(|| panic!("paseo {args:?} failed: {stderr}"))
    }

    fn cli_err(&self, args: &[&str]) -> String {
        let out = Command::new(env!("CARGO_BIN_EXE_paseo")).env("PASEO_HOME", self.home.path()).args(args).arg("--json").output().unwrap();
        assert!(!out.status.success(), "paseo {args:?} should fail");
        serde_json::from_slice::<Value>(&out.stdout).unwrap()["error"].as_str().unwrap().to_string()
    }

    fn stop(mut self) -> tempfile::TempDir {
        self.cli_raw(&["daemon", "stop"]);
        if let Some(mut child) = self.child.take() {
            child.wait().unwrap();
        }
        std::mem::replace(&mut self.home, tempfile::tempdir().unwrap())
    }

    /// The hooks the lifecycle-logger example saw, in order (old names, as it registers them).
    fn logged_hooks(&self) -> Vec<String> {
        let logs = self.cli(&["plugin", "logs", "lifecycle-logger"]);
        logs.as_array()
            .unwrap()
            .iter()
            .filter_map(|e| serde_json::from_str::<Value>(e["message"].as_str()?).ok())
            .map(|v| v["hook"].as_str().unwrap().to_string())
            .collect()
    }

    fn wait_for_hooks(&self, count: usize) -> Vec<String> {
        let started = Instant::now();
        loop {
            let hooks = self.logged_hooks();
            if hooks.len() >= count || started.elapsed() > Duration::from_secs(10) {
                return hooks;
            }
            std::thread::sleep(Duration::from_millis(50));
        }
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

fn git_repo(dir: &Path) -> PathBuf {
    let repo = dir.join("repo");
    std::fs::create_dir_all(&repo).unwrap();
    for args in [&["init", "-q", "-b", "main"][..], &["-c", "user.name=t", "-c", "user.email=t@t", "commit", "-q", "--allow-empty", "-m", "init"]] {
        assert!(Command::new("git").args(args).current_dir(&repo).status().unwrap().success());
    }
    repo.canonicalize().unwrap()
}

#[test]
fn every_hook_fires_at_its_point_in_the_documented_order() {
    let work = tempfile::tempdir().unwrap();
    let repo = git_repo(work.path());
    let daemon = Daemon::start(&["lifecycle-logger", "lifecycle-actions", "worktree-placement"]);
    // The lifecycle-actions example turns this titled directory workspace into a worktree, and
    // worktree-placement puts it next to the checkout.
    let ws = daemon.cli(&["workspace", "create", "--dir", repo.to_str().unwrap(), "--title", "Isolated lifecycle example"]);
    let wt = work.path().canonicalize().unwrap().join("repo.lifecycle-example");
    assert_eq!(ws["cwd"], json!(wt));
    assert!(wt.join(".git").exists());
    let ws_id = ws["id"].as_str().unwrap();
    let agent = daemon.cli(&["agent", "create", "--workspace", ws_id, "--provider", "codex", "--prompt", "run git status"]);
    let id = agent["id"].as_str().unwrap().to_string();
    assert_eq!(agent["provider"], "claude");
    assert_eq!(agent["launch"]["env"]["PASEO_AGENT_ID"], json!(id));
    assert_eq!(agent["launch"]["env"]["PASEO_HOOK_CREATE_EXAMPLE"], "created");
    assert_eq!(agent["launch"]["env"]["PASEO_HOOK_OPEN_EXAMPLE"], "opened");
    // `git status` is allowed by the plugin; the turn completes.
    let shown = daemon.cli(&["agent", "wait", &id]);
    assert_eq!(shown["timeline"][1]["status"], "completed");
    daemon.cli(&["agent", "archive", &id]);
    daemon.cli(&["workspace", "archive", ws_id]);
    let hooks = daemon.wait_for_hooks(13);
    assert_eq!(
        hooks,
        [
            "workspace.create", "workspace.created", "agent.create", "agent.session_open", "agent.created",
            "agent.turn_started", "agent.permission_requested", "agent.permission_resolved", "agent.turn_ended",
            "agent.closed", "agent.archived", "workspace.archived"
        ][..hooks.len().min(12)]
    );
    daemon.stop();
}

#[test]
fn permission_policy_and_follow_up_and_tools_over_mcp() {
    let work = tempfile::tempdir().unwrap();
    let repo = git_repo(work.path());
    std::fs::write(repo.join("canary.txt"), "alive").unwrap();
    let daemon = Daemon::start(&["lifecycle-actions", "agent-tools", "env-injection"]);
    let agent = daemon.cli(&["agent", "create", "--cwd", repo.to_str().unwrap(), "--label", "notes/enabled=true"]);
    let id = agent["id"].as_str().unwrap().to_string();
    assert_eq!(agent["launch"]["tools"], json!(["append_workspace_note"]));
    assert!(agent["launch"]["toolsUrl"].as_str().unwrap().starts_with("http://127.0.0.1:"));
    assert_eq!(agent["launch"]["env"]["COMPANY_ENV"], "development");

    daemon.cli(&["agent", "send", &id, "run rm -rf canary.txt", "--wait"]);
    assert_eq!(std::fs::read_to_string(repo.join("canary.txt")).unwrap(), "alive");
    daemon.cli(&["agent", "send", &id, "credits", "--wait"]);
    // The lifecycle plugin answers "out of credits" from its agent.turn.after handler with a
    // follow-up message, which starts a turn of its own; let it finish before sending more.
    let deadline = std::time::Instant::now() + Duration::from_secs(10);
    loop {
        let shown = daemon.cli(&["agent", "wait", &id]);
        let retried = shown["timeline"].as_array().unwrap().iter().any(|i| i["text"] == "RETRY_OK");
        if retried && shown["status"] != "running" {
            break;
        }
        assert!(std::time::Instant::now() < deadline, "no follow-up turn: {shown}");
        std::thread::sleep(Duration::from_millis(20));
    }
    daemon.cli(&["agent", "send", &id, "tool append_workspace_note {\"note\":\"via mcp\"}", "--wait"]);
    let shown = daemon.cli(&["agent", "wait", &id]);
    let texts: Vec<String> = shown["timeline"].as_array().unwrap().iter().map(|i| format!("{}:{}", i["type"].as_str().unwrap(), i["text"].as_str().or(i["error"].as_str()).unwrap_or(""))).collect();
    assert!(texts.contains(&"tool_call:Recursive deletion is blocked.".to_string()), "{texts:?}");
    assert!(texts.contains(&"user_message:Try again.".to_string()), "{texts:?}");
    assert!(texts.contains(&"assistant_message:RETRY_OK".to_string()), "{texts:?}");
    assert_eq!(std::fs::read_to_string(repo.join("AGENT_NOTES.md")).unwrap(), "via mcp\n");

    // A command the policy does not cover waits for the user.
    daemon.cli(&["agent", "send", &id, "run echo hi"]);
    let started = Instant::now();
    let request = loop {
        let shown = daemon.cli(&["agent", "show", &id]);
        if let Some(p) = shown["pendingPermissions"].as_array().and_then(|p| p.first()) {
            break p["id"].as_str().unwrap().to_string();
        }
        assert!(started.elapsed() < Duration::from_secs(10));
        std::thread::sleep(Duration::from_millis(50));
    };
    daemon.cli(&["permission", "respond", &id, &request, "allow"]);
    let shown = daemon.cli(&["agent", "wait", &id]);
    assert_eq!(shown["timeline"].as_array().unwrap().last().unwrap()["detail"]["output"], "hi\n");
    daemon.stop();
}

#[test]
fn restart_resumes_agents_and_reload_picks_up_edited_source() {
    let work = tempfile::tempdir().unwrap();
    let plugin = work.path().join("edit-me");
    std::fs::create_dir_all(&plugin).unwrap();
    std::fs::write(plugin.join("paseo-plugin.json"), r#"{ "id": "edit-me", "requirements": { "paseo": ">=0.14.0" } }"#).unwrap();
    let write = |v: &str| {
        std::fs::write(plugin.join("index.server.ts"), format!("export default function (s: any) {{ s.addHook(\"agent.open.before\", async ({{ request }}: any) => ({{ ...request, env: {{ ...request.env, V: \"{v}\" }} }})); return () => {{}}; }}")).unwrap();
    };
    write("one");
    let daemon = Daemon::start(&[]);
    daemon.cli(&["plugin", "install", plugin.to_str().unwrap()]);
    let agent = daemon.cli(&["agent", "create", "--cwd", work.path().to_str().unwrap(), "--env", "FIRST=only-on-create"]);
    let id = agent["id"].as_str().unwrap().to_string();
    assert_eq!(agent["launch"]["env"]["V"], "one");
    assert_eq!(agent["launch"]["env"]["FIRST"], "only-on-create");
    write("two");
    daemon.cli(&["plugin", "reload", "edit-me"]);
    // The reload marks the session stale; it reopens (reason refresh) before the next prompt.
    assert_eq!(daemon.cli(&["agent", "show", &id])["stale"], true);
    daemon.cli(&["agent", "send", &id, "env V", "--wait"]);
    let shown = daemon.cli(&["agent", "show", &id]);
    assert_eq!(shown["launch"]["reason"], "refresh");
    assert_eq!(shown["timeline"].as_array().unwrap().last().unwrap()["text"], "V=two");
    let home = daemon.stop();
    let daemon = Daemon::start_in(home);
    let shown = daemon.cli(&["agent", "show", &id]);
    assert_eq!(shown["launch"]["reason"], "resume");
    assert_eq!(shown["launch"]["env"]["V"], "two");
    assert!(shown["launch"]["env"].get("FIRST").is_none(), "create-time env is not persisted");
    assert_eq!(daemon.cli_err(&["plugin", "reload", "nope"]), "Plugin is not configured: nope");
    daemon.cli(&["plugin", "disable", "edit-me"]);
    assert_eq!(daemon.cli_err(&["plugin", "reload", "edit-me"]), "Plugin is disabled: edit-me");
    assert_eq!(daemon.cli(&["plugin", "ls"])[0]["status"], "disabled");
    daemon.stop();
}

#[test]
fn a_failing_worktree_create_after_leaves_no_worktree() {
    let work = tempfile::tempdir().unwrap();
    let repo = git_repo(work.path());
    let plugin = work.path().join("setup-fails");
    std::fs::create_dir_all(&plugin).unwrap();
    std::fs::write(plugin.join("paseo-plugin.json"), r#"{ "id": "setup-fails", "requirements": { "paseo": ">=0.14.0" } }"#).unwrap();
    std::fs::write(plugin.join("index.server.ts"), r#"export default function (s: any) { s.addHook("worktree.create.after", async () => { throw new Error("setup failed"); }); return () => {}; }"#).unwrap();
    let daemon = Daemon::start(&["worktree-placement"]);
    daemon.cli(&["plugin", "install", plugin.to_str().unwrap()]);
    let err = daemon.cli_err(&["workspace", "create", "--dir", repo.to_str().unwrap(), "--worktree", "feature/x"]);
    assert_eq!(err, "Plugin setup-fails worktree.create.after failed: setup failed");
    assert!(!work.path().join("repo.feature-x").exists());
    let branches = Command::new("git").args(["branch", "--list", "feature/x"]).current_dir(&repo).output().unwrap();
    assert!(branches.stdout.is_empty(), "the branch is removed too");
    assert_eq!(daemon.cli(&["workspace", "ls"]), json!([]));
    daemon.stop();
}

#[test]
fn the_demo_shows_every_capability() {
    let out = Command::new(env!("CARGO_BIN_EXE_paseo")).arg("demo").output().unwrap();
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(out.status.success(), "{text}\n{}", String::from_utf8_lossy(&out.stderr));
    for expected in [
        "git worktree add",
        "agent.create.before → provider claude",
        "\"mcpServers\":{\"company\":{\"type\":\"http\",\"url\":\"https://tools.example.com/mcp\"}}",
        "\"COMPANY_ENV\":\"development\"",
        "called tool append_workspace_note over MCP",
        "tool  › shell failed: Recursive deletion is blocked.",
        "permission perm-call-7 → allow",
        "user  › Try again.   (sent by plugin lifecycle-actions)",
        "agent › RETRY_OK",
        "reopened with reason \"refresh\"",
        "agent.session_open           env {\"PASEO_HOOK_CREATE_EXAMPLE\":\"[redacted]\"",
        "workspace.archived           workspace workspace-1",
    ] {
        assert!(text.contains(expected), "missing {expected:?} in:\n{text}");
    }
}

#[test]
fn install_runs_build_commands_with_progress_and_rejects_failures() {
    let work = tempfile::tempdir().unwrap();
    let plugin = work.path().join("builds");
    std::fs::create_dir_all(&plugin).unwrap();
    std::fs::write(plugin.join("paseo-plugin.json"), r#"{ "id": "builds", "requirements": { "paseo": ">=0.14.0" }, "build": [["touch", "built.txt"], ["true"]] }"#).unwrap();
    std::fs::write(plugin.join("index.server.ts"), "export default function () { return () => {}; }").unwrap();
    let daemon = Daemon::start(&[]);
    let (value, stderr) = daemon.cli_raw(&["plugin", "install", plugin.to_str().unwrap(), "--json"]);
    assert_eq!(value.unwrap(), json!({ "id": "builds" }));
    assert!(plugin.join("built.txt").exists());
    assert!(stderr.contains("building builds [1/2]: touch built.txt"), "{stderr}");
    assert!(stderr.contains("Trusting plugin code: server code and preparation commands run unsandboxed on the daemon host"), "{stderr}");

    let broken = work.path().join("broken");
    std::fs::create_dir_all(&broken).unwrap();
    std::fs::write(broken.join("paseo-plugin.json"), r#"{ "id": "broken", "requirements": { "paseo": ">=0.14.0" }, "build": [["false"]] }"#).unwrap();
    std::fs::write(broken.join("index.server.ts"), "export default function () { return () => {}; }").unwrap();
    let err = daemon.cli_err(&["plugin", "install", broken.to_str().unwrap()]);
    assert!(err.starts_with("Build command false failed"), "{err}");
    let old = work.path().join("old");
    std::fs::create_dir_all(&old).unwrap();
    std::fs::write(old.join("paseo-plugin.json"), r#"{ "id": "old", "requirements": { "paseo": ">=0.99.0" } }"#).unwrap();
    assert_eq!(
        daemon.cli_err(&["plugin", "install", old.to_str().unwrap()]),
        "Plugin \"old\" requires Paseo >=0.99.0. Your daemon is 0.14.0. Use a compatible plugin version or update the daemon."
    );
    let ids: Vec<Value> = daemon.cli(&["plugin", "ls"]).as_array().unwrap().iter().map(|r| r["id"].clone()).collect();
    assert_eq!(ids, [json!("builds")]);
    assert_eq!(daemon.cli_err(&["plugin", "remove", "nope"]), "Plugin is not configured: nope");
    daemon.stop();
}

#[test]
fn cancelling_a_turn_reports_a_canceled_outcome() {
    let work = tempfile::tempdir().unwrap();
    let daemon = Daemon::start(&["lifecycle-logger"]);
    let agent = daemon.cli(&["agent", "create", "--cwd", work.path().to_str().unwrap()]);
    let id = agent["id"].as_str().unwrap().to_string();
    daemon.cli(&["agent", "send", &id, "sleep 60000"]);
    let shown = daemon.cli(&["agent", "cancel", &id]);
    assert_eq!(shown["status"], "idle");
    assert_eq!(daemon.cli_err(&["agent", "cancel", &id]), format!("Agent {id} has no turn running"));
    let started = Instant::now();
    let outcome = loop {
        let logs = daemon.cli(&["plugin", "logs", "lifecycle-logger"]);
        let ended = logs.as_array().unwrap().iter().filter_map(|e| serde_json::from_str::<Value>(e["message"].as_str()?).ok()).find(|v| v["hook"] == "agent.turn_ended");
        if let Some(v) = ended {
            break v["payload"]["outcome"].clone();
        }
        assert!(started.elapsed() < Duration::from_secs(10));
        std::thread::sleep(Duration::from_millis(50));
    };
    assert_eq!(outcome, json!({ "kind": "canceled", "reason": "Canceled by the user" }));
    daemon.stop();
}
