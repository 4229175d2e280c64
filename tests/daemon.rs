//! End to end: the real daemon binary in a temporary home, driven through the CLI. Each hook is
//! observed at its point, in the documented order (the lifecycle-logger example records them).

mod daemon_harness;
mod skip;

use std::path::Path;
use std::process::Command;
use std::time::{Duration, Instant};

use daemon_harness::{example, fixture, git_repo, paseo, poll, Daemon, Launch};
use serde_json::{json, Value};

/// The hooks the lifecycle-logger example saw, in order (old names, as it registers them).
fn logged_hooks(daemon: &Daemon) -> Vec<String> {
    daemon
        .json_logs("lifecycle-logger")
        .iter()
        .map(|v| v["hook"].as_str().unwrap().to_string())
        .collect()
}

/// The hooks once `count` are in, or those there are after 10 s.
fn wait_for_hooks(daemon: &Daemon, count: usize) -> Vec<String> {
    let mut hooks = Vec::new();
    poll(Duration::from_secs(10), || {
        hooks = logged_hooks(daemon);
        (hooks.len() >= count).then_some(())
    });
    hooks
}

#[test]
fn every_hook_fires_at_its_point_in_the_documented_order() {
    let work = tempfile::tempdir().unwrap();
    let repo = git_repo(work.path());
    let daemon = Daemon::start(&[
        example("lifecycle-logger"),
        example("lifecycle-actions"),
        example("worktree-placement"),
    ]);
    // The lifecycle-actions example turns this titled directory workspace into a worktree, and
    // worktree-placement puts it next to the checkout.
    let ws = daemon.cli(&[
        "workspace",
        "create",
        "--dir",
        repo.to_str().unwrap(),
        "--title",
        "Isolated lifecycle example",
    ]);
    let wt = work
        .path()
        .canonicalize()
        .unwrap()
        .join("repo.lifecycle-example");
    assert_eq!(ws["cwd"], json!(wt));
    assert!(wt.join(".git").exists());
    let ws_id = ws["id"].as_str().unwrap();
    let agent = daemon.cli(&[
        "agent",
        "create",
        "--workspace",
        ws_id,
        "--provider",
        "codex",
        "--prompt",
        "run git status",
    ]);
    let id = agent["id"].as_str().unwrap().to_string();
    assert_eq!(agent["provider"], "claude");
    assert_eq!(agent["launch"]["env"]["PASEO_AGENT_ID"], json!(id));
    assert_eq!(
        agent["launch"]["env"]["PASEO_HOOK_CREATE_EXAMPLE"],
        "created"
    );
    assert_eq!(agent["launch"]["env"]["PASEO_HOOK_OPEN_EXAMPLE"], "opened");
    // `git status` is allowed by the plugin; the turn completes.
    let shown = daemon.cli(&["agent", "wait", &id]);
    assert_eq!(shown["timeline"][1]["status"], "completed");
    daemon.cli(&["agent", "archive", &id]);
    daemon.cli(&["workspace", "archive", ws_id]);
    let hooks = wait_for_hooks(&daemon, 12);
    assert_eq!(
        hooks,
        [
            "workspace.create",
            "workspace.created",
            "agent.create",
            "agent.session_open",
            "agent.created",
            "agent.turn_started",
            "agent.permission_requested",
            "agent.permission_resolved",
            "agent.turn_ended",
            "agent.closed",
            "agent.archived",
            "workspace.archived"
        ]
    );
    daemon.stop();
}

#[test]
fn permission_policy_and_follow_up_and_tools_over_mcp() {
    let work = tempfile::tempdir().unwrap();
    let repo = git_repo(work.path());
    std::fs::write(repo.join("canary.txt"), "alive").unwrap();
    let daemon = Daemon::start(&[
        example("lifecycle-actions"),
        example("agent-tools"),
        example("env-injection"),
    ]);
    let agent = daemon.cli(&[
        "agent",
        "create",
        "--cwd",
        repo.to_str().unwrap(),
        "--label",
        "notes/enabled=true",
    ]);
    let id = agent["id"].as_str().unwrap().to_string();
    assert_eq!(agent["launch"]["tools"], json!(["append_workspace_note"]));
    assert!(agent["launch"]["toolsUrl"]
        .as_str()
        .unwrap()
        .starts_with("http://127.0.0.1:"));
    assert_eq!(agent["launch"]["env"]["COMPANY_ENV"], "development");

    daemon.cli(&["agent", "send", &id, "run rm -rf canary.txt", "--wait"]);
    assert_eq!(
        std::fs::read_to_string(repo.join("canary.txt")).unwrap(),
        "alive"
    );
    daemon.cli(&["agent", "send", &id, "credits", "--wait"]);
    // The lifecycle plugin answers "out of credits" from its agent.turn.after handler with a
    // follow-up message, which starts a turn of its own; let it finish before sending more.
    let mut shown = Value::Null;
    let retried = poll(Duration::from_secs(10), || {
        shown = daemon.cli(&["agent", "wait", &id]);
        let retried = shown["timeline"]
            .as_array()
            .unwrap()
            .iter()
            .any(|i| i["text"] == "RETRY_OK");
        (retried && shown["status"] != "running").then_some(())
    });
    assert!(retried.is_some(), "no follow-up turn: {shown}");
    daemon.cli(&[
        "agent",
        "send",
        &id,
        "tool append_workspace_note {\"note\":\"via mcp\"}",
        "--wait",
    ]);
    let shown = daemon.cli(&["agent", "wait", &id]);
    let texts: Vec<String> = shown["timeline"]
        .as_array()
        .unwrap()
        .iter()
        .map(|i| {
            format!(
                "{}:{}",
                i["type"].as_str().unwrap(),
                i["text"].as_str().or(i["error"].as_str()).unwrap_or("")
            )
        })
        .collect();
    assert!(
        texts.contains(&"tool_call:Recursive deletion is blocked.".to_string()),
        "{texts:?}"
    );
    assert!(
        texts.contains(&"user_message:Try again.".to_string()),
        "{texts:?}"
    );
    assert!(
        texts.contains(&"assistant_message:RETRY_OK".to_string()),
        "{texts:?}"
    );
    assert_eq!(
        std::fs::read_to_string(repo.join("AGENT_NOTES.md")).unwrap(),
        "via mcp\n"
    );

    // A command the policy does not cover waits for the user.
    daemon.cli(&["agent", "send", &id, "run echo hi"]);
    let shown = daemon.wait_agent(&id, "a pending permission request", |a| {
        a["pendingPermissions"]
            .as_array()
            .is_some_and(|p| !p.is_empty())
    });
    let request = shown["pendingPermissions"][0]["id"]
        .as_str()
        .unwrap()
        .to_string();
    daemon.cli(&["permission", "respond", &id, &request, "allow"]);
    let shown = daemon.cli(&["agent", "wait", &id]);
    assert_eq!(
        shown["timeline"].as_array().unwrap().last().unwrap()["detail"]["output"],
        "hi\n"
    );
    daemon.stop();
}

#[test]
fn restart_resumes_agents_and_reload_picks_up_edited_source() {
    let work = tempfile::tempdir().unwrap();
    let plugin = work.path().join("edit-me");
    std::fs::create_dir_all(&plugin).unwrap();
    std::fs::write(
        plugin.join("paseo-plugin.json"),
        r#"{ "id": "edit-me", "requirements": { "paseo": ">=0.14.0" } }"#,
    )
    .unwrap();
    let write = |v: &str| {
        std::fs::write(plugin.join("index.server.ts"), format!("export default function (s: any) {{ s.addHook(\"agent.open.before\", async ({{ request }}: any) => ({{ ...request, env: {{ ...request.env, V: \"{v}\" }} }})); return () => {{}}; }}")).unwrap();
    };
    write("one");
    let daemon = Daemon::start(&[]);
    daemon.cli(&["plugin", "install", plugin.to_str().unwrap()]);
    let agent = daemon.cli(&[
        "agent",
        "create",
        "--cwd",
        work.path().to_str().unwrap(),
        "--env",
        "FIRST=only-on-create",
    ]);
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
    assert_eq!(
        shown["timeline"].as_array().unwrap().last().unwrap()["text"],
        "V=two"
    );
    let daemon = daemon.restart();
    let shown = daemon.cli(&["agent", "show", &id]);
    assert_eq!(shown["launch"]["reason"], "resume");
    assert_eq!(shown["launch"]["env"]["V"], "two");
    assert!(
        shown["launch"]["env"].get("FIRST").is_none(),
        "create-time env is not persisted"
    );
    assert_eq!(
        daemon.cli_err(&["plugin", "reload", "nope"]),
        "Plugin is not configured: nope"
    );
    daemon.cli(&["plugin", "disable", "edit-me"]);
    assert_eq!(
        daemon.cli_err(&["plugin", "reload", "edit-me"]),
        "Plugin is disabled: edit-me"
    );
    assert_eq!(daemon.cli(&["plugin", "ls"])[0]["status"], "disabled");
    daemon.stop();
}

#[test]
fn a_failing_worktree_create_after_leaves_no_worktree() {
    let work = tempfile::tempdir().unwrap();
    let repo = git_repo(work.path());
    let plugin = work.path().join("setup-fails");
    std::fs::create_dir_all(&plugin).unwrap();
    std::fs::write(
        plugin.join("paseo-plugin.json"),
        r#"{ "id": "setup-fails", "requirements": { "paseo": ">=0.14.0" } }"#,
    )
    .unwrap();
    std::fs::write(plugin.join("index.server.ts"), r#"export default function (s: any) { s.addHook("worktree.create.after", async () => { throw new Error("setup failed"); }); return () => {}; }"#).unwrap();
    let daemon = Daemon::start(&[example("worktree-placement")]);
    daemon.cli(&["plugin", "install", plugin.to_str().unwrap()]);
    let err = daemon.cli_err(&[
        "workspace",
        "create",
        "--dir",
        repo.to_str().unwrap(),
        "--worktree",
        "feature/x",
    ]);
    assert_eq!(
        err,
        "Plugin setup-fails worktree.create.after failed: setup failed"
    );
    assert!(!work.path().join("repo.feature-x").exists());
    let branches = Command::new("git")
        .args(["branch", "--list", "feature/x"])
        .current_dir(&repo)
        .output()
        .unwrap();
    assert!(branches.stdout.is_empty(), "the branch is removed too");
    assert_eq!(daemon.cli(&["workspace", "ls"]), json!([]));
    daemon.stop();
}

#[test]
fn the_demo_shows_every_capability() {
    let out = Command::new(env!("CARGO_BIN_EXE_paseo"))
        .arg("demo")
        .output()
        .unwrap();
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success(),
        "{text}\n{}",
        String::from_utf8_lossy(&out.stderr)
    );
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
        "opened a session with provider shell-helper of plugin agent-provider",
        "agent › Backwards: now agents provide plugins",
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
    std::fs::write(
        plugin.join("index.server.ts"),
        "export default function (_server: any) { return () => {}; }",
    )
    .unwrap();
    let daemon = Daemon::start(&[]);
    let (value, stderr) =
        daemon.cli_raw(&["plugin", "install", plugin.to_str().unwrap(), "--json"]);
    assert_eq!(value.unwrap(), json!({ "id": "builds" }));
    assert!(plugin.join("built.txt").exists());
    assert!(
        stderr.contains("building builds [1/2]: touch built.txt"),
        "{stderr}"
    );
    assert!(stderr.contains("Trusting plugin code: server code and preparation commands run unsandboxed on the daemon host"), "{stderr}");

    let broken = work.path().join("broken");
    std::fs::create_dir_all(&broken).unwrap();
    std::fs::write(
        broken.join("paseo-plugin.json"),
        r#"{ "id": "broken", "requirements": { "paseo": ">=0.14.0" }, "build": [["false"]] }"#,
    )
    .unwrap();
    std::fs::write(
        broken.join("index.server.ts"),
        "export default function (_server: any) { return () => {}; }",
    )
    .unwrap();
    let err = daemon.cli_err(&["plugin", "install", broken.to_str().unwrap()]);
    assert!(err.starts_with("Build command false failed"), "{err}");
    let old = work.path().join("old");
    std::fs::create_dir_all(&old).unwrap();
    std::fs::write(
        old.join("paseo-plugin.json"),
        r#"{ "id": "old", "requirements": { "paseo": ">=0.99.0" } }"#,
    )
    .unwrap();
    assert_eq!(
        daemon.cli_err(&["plugin", "install", old.to_str().unwrap()]),
        "Plugin \"old\" requires Paseo >=0.99.0. Your daemon is 0.14.0. Use a compatible plugin version or update the daemon."
    );
    // As in Paseo, the failed installs stay listed, failed with their reasons, until removed.
    let rows: Vec<(Value, Value)> = daemon
        .cli(&["plugin", "ls"])
        .as_array()
        .unwrap()
        .iter()
        .map(|r| (r["id"].clone(), r["status"].clone()))
        .collect();
    assert_eq!(
        rows,
        [
            (json!("broken"), json!("failed")),
            (json!("builds"), json!("running")),
            (json!("old"), json!("failed")),
        ]
    );
    let old_row = daemon.cli(&["plugin", "ls", "old"]);
    let old_row = old_row.as_array().map_or(&old_row, |rows| &rows[0]);
    assert!(
        old_row["error"]
            .as_str()
            .unwrap()
            .starts_with("Plugin \"old\" requires Paseo >=0.99.0"),
        "{old_row}"
    );
    daemon.cli(&["plugin", "remove", "broken"]);
    daemon.cli(&["plugin", "remove", "old"]);
    // A load error leaves it listed too, failed with the error, with its manifest's description.
    let throws = work.path().join("throws");
    std::fs::create_dir_all(&throws).unwrap();
    std::fs::write(
        throws.join("paseo-plugin.json"),
        r#"{ "id": "throws", "description": "Throws when it loads", "requirements": { "paseo": ">=0.14.0" } }"#,
    )
    .unwrap();
    std::fs::write(
        throws.join("index.server.ts"),
        "throw new Error(\"boom at load\");\nexport default function (_server: any) { return () => {}; }",
    )
    .unwrap();
    assert_eq!(
        daemon.cli_err(&["plugin", "install", throws.to_str().unwrap()]),
        "boom at load"
    );
    let row = daemon
        .cli(&["plugin", "ls"])
        .as_array()
        .unwrap()
        .iter()
        .find(|r| r["id"] == "throws")
        .cloned()
        .unwrap();
    assert_eq!(
        (
            row["status"].as_str(),
            row["error"].as_str(),
            row["description"].as_str()
        ),
        (
            Some("failed"),
            Some("boom at load"),
            Some("Throws when it loads")
        )
    );
    daemon.cli(&["plugin", "remove", "throws"]);
    assert_eq!(
        daemon.cli_err(&["plugin", "remove", "nope"]),
        "Plugin is not configured: nope"
    );
    // Paseo's wording for a folder that is not there, and `<dir>:<sub/dir>` for a plugin in a
    // subfolder of a directory source.
    let missing = work.path().join("not-here");
    assert_eq!(
        daemon.cli_err(&["plugin", "install", missing.to_str().unwrap()]),
        format!("Plugin directory does not exist: {}", missing.display())
    );
    let repo = work.path().join("monorepo");
    std::fs::create_dir_all(repo.join("plugins/nested")).unwrap();
    std::fs::write(
        repo.join("plugins/nested/paseo-plugin.json"),
        r#"{ "id": "nested", "requirements": { "paseo": ">=0.14.0" } }"#,
    )
    .unwrap();
    std::fs::write(
        repo.join("plugins/nested/index.server.ts"),
        "export default function (_server: any) { return () => {}; }",
    )
    .unwrap();
    let installed = daemon.cli(&[
        "plugin",
        "install",
        &format!("{}:plugins/nested", repo.display()),
    ]);
    assert_eq!(installed["id"], "nested");
    daemon.stop();
}

#[test]
fn cancelling_a_turn_reports_a_canceled_outcome() {
    let work = tempfile::tempdir().unwrap();
    let daemon = Daemon::start(&[example("lifecycle-logger")]);
    let agent = daemon.cli(&["agent", "create", "--cwd", work.path().to_str().unwrap()]);
    let id = agent["id"].as_str().unwrap().to_string();
    daemon.cli(&["agent", "send", &id, "sleep 60000"]);
    let shown = daemon.cli(&["agent", "cancel", &id]);
    assert_eq!(shown["status"], "idle");
    assert_eq!(
        daemon.cli_err(&["agent", "cancel", &id]),
        format!("Agent {id} has no turn running")
    );
    let logs = daemon.wait_logs("lifecycle-logger", "the canceled turn's end", |l| {
        l.iter().any(|v| v["hook"] == "agent.turn_ended")
    });
    let outcome = logs
        .iter()
        .find(|v| v["hook"] == "agent.turn_ended")
        .unwrap()["payload"]["outcome"]
        .clone();
    assert_eq!(
        outcome,
        json!({ "kind": "canceled", "reason": "Canceled by the user" })
    );
    daemon.stop();
}

// ---- the daemon's own surfaces under abuse (issue 12) ---------------------------------------

fn sock(home: &Path) -> std::os::unix::net::UnixStream {
    std::os::unix::net::UnixStream::connect(home.join("daemon.sock")).unwrap()
}

/// Sends raw bytes on a fresh control connection and reads the one answer line.
fn raw_request(home: &Path, bytes: &[u8]) -> Value {
    use std::io::{BufRead, Write};
    let mut s = sock(home);
    s.set_read_timeout(Some(Duration::from_secs(20))).unwrap();
    // A refused long line closes the connection while we may still be writing.
    let _ = s.write_all(bytes);
    let mut line = String::new();
    std::io::BufReader::new(s).read_line(&mut line).unwrap();
    serde_json::from_str(&line).unwrap_or_else(|_| panic!("not a JSON answer: {line:?}"))
}

#[test]
fn a_second_daemon_on_the_same_home_stops_before_loading_anything() {
    let work = tempfile::tempdir().unwrap();
    let daemon = Daemon::start(&[fixture("data-dir")]);
    // The fixture's agent.open.before writes seen.txt: a daemon that resumed this agent would
    // write it again.
    daemon.cli(&["agent", "create", "--cwd", work.path().to_str().unwrap()]);
    let seen = daemon.home().join("plugin-settings/data-dir/data/seen.txt");
    assert!(seen.exists());
    std::fs::remove_file(&seen).unwrap();
    let out = paseo(daemon.home()).arg("daemon").output().unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{stderr}");
    let pid = daemon.pid();
    assert_eq!(
        stderr.trim(),
        format!(
            "paseo: A Paseo daemon is already running for {} (pid {pid})",
            daemon.home().display()
        )
    );
    assert!(!seen.exists(), "the second daemon resumed the agent");
    // The first daemon keeps its socket and its plugin.
    assert_eq!(daemon.cli(&["plugin", "ls"])[0]["status"], "running");
}

#[test]
fn plugin_ids_are_checked_wherever_they_enter() {
    let work = tempfile::tempdir().unwrap();
    let victim = work.path().join("victim");
    std::fs::create_dir_all(&victim).unwrap();
    // Plugins globally off: install only writes the config, the path the probe used.
    let home = tempfile::tempdir().unwrap();
    std::fs::write(
        home.path().join("config.json"),
        r#"{ "pluginsEnabled": false }"#,
    )
    .unwrap();
    let daemon = Daemon::start_in(home);
    let plugin = fixture("notify");
    let traversal = daemon.cli_err(&[
        "plugin",
        "install",
        plugin.to_str().unwrap(),
        "--id",
        "../../victim",
    ]);
    assert_eq!(traversal, "Invalid plugin ID \"../../victim\": it must start with a lowercase letter, contain only lowercase letters, digits and hyphens, and be at most 64 characters");
    let long = "a".repeat(5000);
    let too_long = daemon.cli_err(&["plugin", "install", plugin.to_str().unwrap(), "--id", &long]);
    assert!(
        too_long.starts_with(&format!("Invalid plugin ID \"{}…\"", "a".repeat(80))),
        "{too_long}"
    );
    let removed = daemon.cli_err(&["plugin", "remove", "../../victim"]);
    assert!(
        removed.starts_with("Invalid plugin ID \"../../victim\""),
        "{removed}"
    );
    assert!(victim.exists());
    assert_eq!(daemon.cli(&["plugin", "ls"]), json!([]));
    daemon.stop();

    // A hand-edited config.json with such an ID: skipped and said, never joined into a path.
    let home = tempfile::tempdir().unwrap();
    let config = json!({ "pluginsEnabled": true, "plugins": { "../victim": { "source": "directory", "path": plugin } } });
    std::fs::write(home.path().join("config.json"), config.to_string()).unwrap();
    let daemon = Daemon::start_in(home);
    let removed = daemon.cli_err(&["plugin", "remove", "../victim"]);
    assert!(
        removed.starts_with("Invalid plugin ID \"../victim\""),
        "{removed}"
    );
    assert!(victim.exists());
}

#[test]
fn the_control_socket_says_what_is_wrong_with_a_request_and_bounds_lines() {
    let daemon = Daemon::start(&[]);
    let home = daemon.home();
    let garbage = raw_request(home, b"\x01garbage\n");
    assert!(
        garbage["error"]
            .as_str()
            .unwrap()
            .starts_with("Invalid request: not JSON (expected value at line 1 column 1)"),
        "{garbage}"
    );
    let truncated = raw_request(home, b"{\"method\": \"plugin.ls\", \"par\n");
    assert!(
        truncated["error"]
            .as_str()
            .unwrap()
            .starts_with("Invalid request: not JSON (EOF while parsing"),
        "{truncated}"
    );
    assert_eq!(
        raw_request(home, b"{}\n")["error"],
        "Invalid request: \"method\" must be a string naming a daemon method"
    );
    assert_eq!(
        raw_request(home, b"{\"method\": \"nope\"}\n")["error"],
        "Unknown daemon method: nope"
    );
    // A line past the limit is refused as soon as it passes it, not buffered whole.
    let mut long = b"{\"method\": \"agent.send\", \"params\": {\"text\": \"".to_vec();
    long.resize(5 * 1024 * 1024, b'x');
    assert_eq!(
        raw_request(home, &long)["error"],
        "Invalid request: the line exceeds 4194304 bytes, the control socket's limit"
    );
    // The daemon is still fine.
    assert_eq!(daemon.cli(&["plugin", "ls"]), json!([]));
}

#[test]
fn idle_control_connections_are_closed_and_capped() {
    use std::io::Read;
    let daemon = Daemon::start(&[]);
    let home = daemon.home();
    // Connections the daemon has accepted on its control socket: /proc/net/unix names the
    // socket's path beside each accepted one (state 03, connected).
    let path = home.join("daemon.sock").display().to_string();
    let accepted = || {
        std::fs::read_to_string("/proc/net/unix")
            .unwrap()
            .lines()
            .filter(|l| l.ends_with(&path) && l.split_whitespace().nth(5) == Some("03"))
            .count()
    };
    // 128 connections that never send a line fill the daemon's slots, once it has accepted
    // them all (on a busy machine that takes a while) and given each a slot…
    let idle: Vec<_> = (0..128).map(|_| sock(home)).collect();
    let deadline = Instant::now() + Duration::from_secs(30);
    while accepted() < 128 {
        assert!(
            Instant::now() < deadline,
            "the daemon accepted {} of 128 connections in 30 s",
            accepted()
        );
        std::thread::sleep(Duration::from_millis(20));
    }
    // Accepted by the kernel is not yet given a slot by the daemon: ask until it refuses, or
    // fail after 30 s. Each ask is a whole line, so one that still gets a slot is answered at
    // once and leaves (an empty ask would hold its slot until the idle timeout closed it).
    let full = "The daemon is serving 128 control connections already; try again";
    loop {
        let over = raw_request(home, b"{}\n");
        if over["error"] == full {
            break;
        }
        assert!(Instant::now() < deadline, "never refused: {over}");
        std::thread::sleep(Duration::from_millis(20));
    }
    // …until the idle timeout (10 s) closes them: each reads EOF, and the owner gets in again.
    let started = Instant::now();
    for mut s in idle {
        s.set_read_timeout(Some(Duration::from_secs(30))).unwrap();
        assert_eq!(s.read(&mut [0; 16]).unwrap(), 0);
    }
    assert!(started.elapsed() < Duration::from_secs(25));
    assert_eq!(daemon.cli(&["plugin", "ls"]), json!([]));
}

#[test]
fn out_of_descriptors_the_accept_loop_backs_off_instead_of_spinning() {
    // SAFETY: setrlimit is async-signal-safe; soft = hard, so the daemon cannot raise it.
    let launch = unsafe {
        Launch::new().pre_exec(|| {
            let limit = libc::rlimit {
                rlim_cur: 96,
                rlim_max: 96,
            };
            if libc::setrlimit(libc::RLIMIT_NOFILE, &limit) != 0 {
                return Err(std::io::Error::last_os_error());
            }
            Ok(())
        })
    };
    let daemon = launch.start();
    let pid = daemon.pid();
    // More connections than the daemon has descriptors: the kernel queues them in the backlog,
    // and every accept fails with EMFILE.
    let held: Vec<_> = (0..200)
        .filter_map(|_| {
            std::os::unix::net::UnixStream::connect(daemon.home().join("daemon.sock")).ok()
        })
        .collect();
    assert!(held.len() > 100);
    let cpu = |pid: u32| -> u64 {
        let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).unwrap();
        let fields: Vec<&str> = stat
            .rsplit_once(')')
            .unwrap()
            .1
            .split_whitespace()
            .collect();
        fields[11].parse::<u64>().unwrap() + fields[12].parse::<u64>().unwrap()
    };
    std::thread::sleep(Duration::from_millis(500));
    let (ticks, wall) = (cpu(pid), Instant::now());
    std::thread::sleep(Duration::from_secs(2));
    let used = (cpu(pid) - ticks) as f64 / 100.0 / wall.elapsed().as_secs_f64();
    // A spinning accept loop uses a whole core (the probe measured 99 %).
    assert!(
        used < 0.5,
        "the daemon used {:.0} % of a core while out of descriptors",
        used * 100.0
    );
    drop(held);
    let recovered = poll(Duration::from_secs(30), || {
        daemon.cli_raw(&["plugin", "ls", "--json"]).0
    });
    assert!(recovered.is_some(), "the daemon did not recover");
}

#[test]
fn another_user_is_refused_on_the_control_socket_even_through_a_loosened_home() {
    use std::os::unix::fs::PermissionsExt;
    use std::os::unix::process::CommandExt;
    // SAFETY: geteuid has no preconditions.
    if unsafe { libc::geteuid() } != 0 {
        skip::skipped(
            "another_user_is_refused_on_the_control_socket_even_through_a_loosened_home",
            "needs root to run a client as another uid",
        );
        return;
    }
    let daemon = Daemon::start(&[]);
    let home = daemon.home();
    // What a careless chmod does: the socket file itself is reachable by everyone now.
    std::fs::set_permissions(home, std::fs::Permissions::from_mode(0o755)).unwrap();
    std::fs::set_permissions(
        home.join("daemon.sock"),
        std::fs::Permissions::from_mode(0o777),
    )
    .unwrap();
    // `nobody` runs its own copy of the client: the build's folder may be one only its owner
    // can enter (a checkout under a private temp folder, as a fresh clone for CI can be).
    let bin = tempfile::tempdir().unwrap();
    std::fs::set_permissions(bin.path(), std::fs::Permissions::from_mode(0o755)).unwrap();
    let client = bin.path().join("paseo");
    std::fs::copy(env!("CARGO_BIN_EXE_paseo"), &client).unwrap();
    std::fs::set_permissions(&client, std::fs::Permissions::from_mode(0o755)).unwrap();
    let out = Command::new(&client)
        .env("PASEO_HOME", home)
        .args(["agent", "ls", "--json"])
        .uid(65534)
        .gid(65534)
        .output()
        .unwrap();
    let answer: Value = serde_json::from_slice(&out.stdout).unwrap_or(Value::Null);
    assert!(!out.status.success());
    let error = answer["error"].as_str().unwrap_or_default();
    assert!(
        error.starts_with("connection refused: uid 65534 (pid "),
        "{answer} {}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(
        error.ends_with(") is not the daemon's user (uid 0)"),
        "{error}"
    );
    assert_eq!(daemon.cli(&["agent", "ls"]), json!([]));
}

#[test]
fn a_log_follower_that_falls_behind_is_told_the_gap_and_goes_on() {
    use std::io::{BufRead, Write};
    let work = tempfile::tempdir().unwrap();
    let daemon = Daemon::start(&[fixture("log-flood")]);
    let mut follower = sock(daemon.home());
    follower
        .write_all(
            format!(
                "{}\n",
                json!({ "method": "plugin.logs", "params": { "id": "log-flood", "follow": true } })
            )
            .as_bytes(),
        )
        .unwrap();
    // The follower reads nothing while 20,000 lines are written: its socket fills, it lags.
    daemon.cli(&["agent", "create", "--cwd", work.path().to_str().unwrap()]);
    let flooded = poll(Duration::from_secs(30), || {
        daemon
            .cli(&["plugin", "logs", "log-flood"])
            .as_array()
            .unwrap()
            .iter()
            .any(|e| e["message"] == "flood done")
            .then_some(())
    });
    assert!(flooded.is_some());
    follower
        .set_read_timeout(Some(Duration::from_secs(20)))
        .unwrap();
    let mut lines = std::io::BufReader::new(follower).lines();
    let mut gap = None;
    let mut after_gap = 0;
    for line in lines.by_ref() {
        let line: Value = serde_json::from_str(&line.unwrap()).unwrap();
        if let Some(n) = line["gap"].as_u64() {
            gap = Some(n);
        } else if gap.is_some() {
            after_gap += 1;
            if line["log"]["message"] == "flood done" {
                break;
            }
        }
    }
    assert!(gap.unwrap() > 0);
    assert!(after_gap > 0, "the follower stopped at the gap");
}

#[test]
fn titles_and_env_follow_the_documented_limits_and_lifetimes() {
    let work = tempfile::tempdir().unwrap();
    let daemon = Daemon::start(&[]);
    let cwd = work.path().to_str().unwrap();
    let long = "t".repeat(2000);
    assert_eq!(
        daemon.cli_err(&["agent", "create", "--cwd", cwd, "--title", &long]),
        "title is 2000 characters long; the limit is 1024"
    );
    assert_eq!(
        daemon.cli_err(&["workspace", "create", "--dir", cwd, "--title", &long]),
        "title is 2000 characters long; the limit is 1024"
    );
    assert_eq!(daemon.cli(&["agent", "ls"]), json!([]));
    // `--env` is the first launch's only (Paseo does not save agent.create.before's env).
    let agent = daemon.cli(&["agent", "create", "--cwd", cwd, "--env", "ONCE=1"]);
    assert_eq!(agent["launch"]["env"]["ONCE"], "1");
    let id = agent["id"].as_str().unwrap();
    let reloaded = daemon.cli(&["agent", "reload", id]);
    assert_eq!(reloaded["launch"]["env"].get("ONCE"), None);
}

#[test]
fn plugin_stats_show_what_each_plugin_costs() {
    let work = tempfile::tempdir().unwrap();
    let daemon = Daemon::start(&[example("lifecycle-logger"), fixture("stats")]);
    daemon.cli(&["agent", "create", "--cwd", work.path().to_str().unwrap()]);
    wait_for_hooks(&daemon, 1);

    let all = daemon.cli(&["plugin", "stats"]);
    let ids: Vec<&str> = all
        .as_array()
        .unwrap()
        .iter()
        .map(|r| r["id"].as_str().unwrap())
        .collect();
    assert_eq!(ids, ["lifecycle-logger", "stats"]);

    let one = daemon.cli(&["plugin", "stats", "lifecycle-logger"]);
    let r = &one[0];
    assert_eq!(r["status"], "running");
    assert!(r["heap_used_bytes"].as_u64().unwrap() > 0);
    assert!(r["cpu_ms"].as_f64().unwrap() > 0.0);
    let opened = r["calls"]
        .as_array()
        .unwrap()
        .iter()
        .find(|c| c["kind"] == "hook" && c["name"] == "agent.open.before")
        .unwrap_or_else(|| panic!("no agent.open.before in {r}"));
    assert_eq!(opened["count"], 1);
    assert_eq!(opened["errors"], 0);

    // The tables a person reads.
    let out = paseo(daemon.home())
        .args(["plugin", "stats"])
        .output()
        .unwrap();
    let text = String::from_utf8(out.stdout).unwrap();
    let mut lines = text.lines();
    assert!(lines.next().unwrap().starts_with("PLUGIN"), "{text}");
    assert!(
        lines
            .next()
            .unwrap()
            .starts_with("lifecycle-logger  running"),
        "{text}"
    );
    let out = paseo(daemon.home())
        .args(["plugin", "stats", "lifecycle-logger"])
        .output()
        .unwrap();
    let text = String::from_utf8(out.stdout).unwrap();
    assert!(
        text.starts_with("plugin         lifecycle-logger (running, "),
        "{text}"
    );
    assert!(
        text.lines()
            .any(|l| l.starts_with("hook") && l.contains("agent.open.before")),
        "{text}"
    );

    // --watch prints again every second; with --json, a line each time.
    let mut watch = paseo(daemon.home())
        .args(["plugin", "stats", "stats", "--watch", "--json"])
        .stdout(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    let mut lines = std::io::BufRead::lines(std::io::BufReader::new(watch.stdout.take().unwrap()));
    for _ in 0..2 {
        let line: Value = serde_json::from_str(&lines.next().unwrap().unwrap()).unwrap();
        assert_eq!(line[0]["id"], "stats");
    }
    watch.kill().unwrap();
    watch.wait().unwrap();

    assert_eq!(
        daemon.cli_err(&["plugin", "stats", "nope"]),
        "Plugin is not configured: nope"
    );
}

/// A GET over a fresh connection: the status code and the body.
fn http_get(addr: &str, path: &str, token: Option<&str>) -> (u16, String) {
    use std::io::{Read, Write};
    let mut stream = std::net::TcpStream::connect(addr).unwrap();
    let auth = token.map_or(String::new(), |t| format!("Authorization: Bearer {t}\r\n"));
    write!(
        stream,
        "GET {path} HTTP/1.1\r\nHost: {addr}\r\n{auth}Connection: close\r\n\r\n"
    )
    .unwrap();
    let mut response = String::new();
    stream.read_to_string(&mut response).unwrap();
    let status = response[9..12].parse().unwrap();
    let body = response.split_once("\r\n\r\n").unwrap().1.to_string();
    (status, body)
}

#[test]
fn metrics_are_served_on_loopback_to_the_token_holder_only() {
    use std::os::unix::fs::PermissionsExt;
    let work = tempfile::tempdir().unwrap();
    let log = work.path().join("daemon.log");
    let daemon = Launch::new()
        .arg("--metrics")
        .arg("127.0.0.1:0")
        .log("warn", &log)
        .start_with(&[example("lifecycle-logger")]);
    daemon.cli(&["agent", "create", "--cwd", work.path().to_str().unwrap()]);
    wait_for_hooks(&daemon, 1);
    let addr = poll(Duration::from_secs(10), || {
        daemon.stderr().lines().find_map(|l| {
            let rest = l.strip_prefix("paseo daemon: metrics on http://")?;
            Some(rest.split('/').next()?.to_string())
        })
    })
    .expect("the daemon says where the metrics are");

    let token_file = daemon.home().join("metrics.token");
    let token = std::fs::read_to_string(&token_file).unwrap();
    assert_eq!(token.len(), 64);
    let mode = std::fs::metadata(&token_file).unwrap().permissions().mode();
    assert_eq!(mode & 0o777, 0o600);
    assert!(
        !daemon.stderr().contains(&token),
        "the token reached the log"
    );

    let (status, body) = http_get(&addr, "/metrics", None);
    assert_eq!(status, 401, "{body}");
    assert_eq!(http_get(&addr, "/metrics", Some("not-the-token")).0, 401);
    assert_eq!(http_get(&addr, "/elsewhere", Some(&token)).0, 404);
    let (status, body) = http_get(&addr, "/metrics", Some(&token));
    assert_eq!(status, 200, "{body}");
    let has = |line: &str| {
        assert!(
            body.lines().any(|l| l.starts_with(line)),
            "no {line} in\n{body}"
        )
    };
    has("paseo_plugin_up{plugin=\"lifecycle-logger\",status=\"running\",engine=\"");
    has("paseo_plugin_calls_total{plugin=\"lifecycle-logger\",kind=\"hook\",name=\"agent.open.before\",outcome=\"ok\"} 1");
    has("# TYPE paseo_plugin_call_duration_seconds summary");
    has("paseo_plugin_call_duration_seconds{plugin=\"lifecycle-logger\",kind=\"hook\",name=\"agent.open.before\",quantile=\"0.99\"} ");
    has("paseo_plugin_call_duration_seconds_count{plugin=\"lifecycle-logger\",kind=\"hook\",name=\"agent.open.before\"} 1");
    has("paseo_plugin_heap_used_bytes{plugin=\"lifecycle-logger\"} ");

    // Only loopback: anything else is refused before the daemon starts.
    let home = tempfile::tempdir().unwrap();
    let out = paseo(home.path())
        .args(["daemon", "--metrics", "0.0.0.0:0"])
        .output()
        .unwrap();
    assert!(!out.status.success());
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        stderr.contains("--metrics 0.0.0.0:0: not a loopback address"),
        "{stderr}"
    );
    assert!(!home.path().join("daemon.lock").exists());
}

/// `paseo daemon --record DIR` writes each hook call a plugin receives, redacted, and `paseo
/// hook replay` plays it against the plugin folder: the same code answers the same, changed
/// code is reported field by field.
#[test]
fn recorded_hook_traffic_replays_against_a_plugin_folder() {
    use std::os::unix::fs::PermissionsExt;
    let work = tempfile::tempdir().unwrap();
    // A copy of the fixture, to change after recording.
    let plugin = work.path().join("record-replay");
    std::fs::create_dir(&plugin).unwrap();
    for file in ["paseo-plugin.json", "index.server.ts"] {
        std::fs::copy(fixture("record-replay").join(file), plugin.join(file)).unwrap();
    }
    let recordings = work.path().join("recordings");
    let log = work.path().join("daemon.log");
    let daemon = Launch::new()
        .arg("--record")
        .arg(recordings.to_str().unwrap())
        .log("warn", &log)
        .start_with(std::slice::from_ref(&plugin));
    let cwd = work.path().to_str().unwrap();
    daemon.cli(&[
        "agent",
        "create",
        "--cwd",
        cwd,
        "--env",
        "API_TOKEN=from-the-owner",
    ]);
    let file = recordings.join("record-replay.jsonl");
    let read = || std::fs::read_to_string(&file).unwrap_or_default();
    poll(Duration::from_secs(10), || {
        read()
            .contains("\"hook\":\"agent.create.after\"")
            .then_some(())
    })
    .unwrap_or_else(|| panic!("no agent.create.after in {}", read()));
    let stderr = daemon.stop();
    assert!(
        stderr.contains(&format!(
            "paseo daemon: recording every plugin's hook calls to {}/<plugin-id>.jsonl",
            recordings.display()
        )),
        "{stderr}"
    );

    // Private, and without the env values the owner and the plugin put in.
    let mode = |p: &Path| std::fs::metadata(p).unwrap().permissions().mode() & 0o777;
    assert_eq!(mode(&file), 0o600);
    assert_eq!(mode(&recordings), 0o700);
    let text = read();
    assert!(!text.contains("from-the-owner"), "{text}");
    assert!(!text.contains("fixture-s3cret-value"), "{text}");
    let lines: Vec<Value> = text
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    let opened = lines
        .iter()
        .find(|l| l["hook"] == "agent.open.before")
        .unwrap_or_else(|| panic!("no agent.open.before in {text}"));
    assert_eq!(opened["ok"], true);
    assert_eq!(opened["input"]["request"]["env"]["API_TOKEN"], "<redacted>");
    assert_eq!(opened["output"]["env"]["RECORDED_BY"], "<redacted>");
    assert_eq!(opened["input"]["request"]["cwd"], cwd);
    assert!(opened["durationUs"].is_u64());

    // The same code answers every call as recorded.
    let replay = |args: &[&str]| {
        let out = paseo(work.path())
            .args(["hook", "replay", "--plugin", plugin.to_str().unwrap()])
            .args(args)
            .arg(&file)
            .output()
            .unwrap();
        (out.status.code(), String::from_utf8(out.stdout).unwrap())
    };
    let (code, out) = replay(&[]);
    let n = lines.len();
    assert_eq!(
        (code, out.as_str()),
        (
            Some(0),
            &*format!("replayed {n} calls against record-replay: {n} same, 0 different\n")
        )
    );

    // Changed code: the call that answers differently, field by field; exit 1.
    let source = plugin.join("index.server.ts");
    let code_text = std::fs::read_to_string(&source).unwrap();
    std::fs::write(
        &source,
        code_text.replace("\"RECORDED_BY\"", "\"RECORDED_BY_V2\""),
    )
    .unwrap();
    let line = 1 + lines
        .iter()
        .position(|l| l["hook"] == "agent.open.before")
        .unwrap();
    let (code, out) = replay(&[]);
    assert_eq!(code, Some(1), "{out}");
    assert_eq!(
        out,
        format!(
            "line {line} agent.open.before: differs\n\
             \x20 output.env.RECORDED_BY: recorded \"<redacted>\", now absent\n\
             \x20 output.env.RECORDED_BY_V2: recorded absent, now \"<redacted>\"\n\
             replayed {n} calls against record-replay: {} same, 1 different\n",
            n - 1
        )
    );
    let (code, out) = replay(&["--json"]);
    assert_eq!(code, Some(1));
    let calls: Vec<Value> = out
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    assert_eq!(calls.len(), n);
    assert_eq!(calls[line - 1]["same"], false);
    assert_eq!(
        calls[line - 1]["differences"][1],
        json!({ "path": "output.env.RECORDED_BY_V2", "now": "<redacted>" })
    );

    // A line that is not a recorded call is named, and nothing is replayed.
    let bad = work.path().join("bad.jsonl");
    std::fs::write(
        &bad,
        format!("{}\n{{\"hook\":3}}\n", text.lines().next().unwrap()),
    )
    .unwrap();
    let out = paseo(work.path())
        .args(["hook", "replay", "--plugin", plugin.to_str().unwrap()])
        .arg(&bad)
        .output()
        .unwrap();
    assert!(!out.status.success());
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        stderr.contains(&format!(
            "{}:2: a recorded hook call needs \"hook\", a string",
            bad.display()
        )),
        "{stderr}"
    );
}

/// A Chrome DevTools Protocol client over the inspector's WebSocket, as a debugger drives it:
/// calls answered by id, events kept until asked for.
#[cfg(feature = "v8")]
struct Cdp {
    ws: tungstenite::WebSocket<std::net::TcpStream>,
    next: u64,
    events: Vec<Value>,
}

#[cfg(feature = "v8")]
impl Cdp {
    fn connect(url: &str) -> Cdp {
        let addr = url.trim_start_matches("ws://").split('/').next().unwrap();
        let stream = std::net::TcpStream::connect(addr).unwrap();
        stream
            .set_read_timeout(Some(Duration::from_secs(20)))
            .unwrap();
        let (ws, _) = tungstenite::client::client(url, stream).unwrap();
        Cdp {
            ws,
            next: 0,
            events: Vec::new(),
        }
    }

    fn read(&mut self) -> Value {
        loop {
            match self.ws.read().expect("a message from the inspector") {
                tungstenite::Message::Text(text) => return serde_json::from_str(&text).unwrap(),
                tungstenite::Message::Close(_) => panic!("the inspector closed the connection"),
                _ => {}
            }
        }
    }

    fn call(&mut self, method: &str, params: Value) -> Value {
        self.next += 1;
        let id = self.next;
        let message = json!({ "id": id, "method": method, "params": params }).to_string();
        self.ws
            .send(tungstenite::Message::Text(message.into()))
            .unwrap();
        loop {
            let message = self.read();
            if message["id"] == id {
                assert!(message.get("error").is_none(), "{method}: {message}");
                return message["result"].clone();
            }
            self.events.push(message);
        }
    }

    fn event(&mut self, method: &str, matches: impl Fn(&Value) -> bool) -> Value {
        let wanted = |m: &Value| m["method"] == method && matches(&m["params"]);
        if let Some(i) = self.events.iter().position(wanted) {
            return self.events.remove(i)["params"].clone();
        }
        loop {
            let message = self.read();
            if wanted(&message) {
                return message["params"].clone();
            }
            self.events.push(message);
        }
    }
}

/// `paseo daemon --inspect`: a debugger finds the plugin's target as chrome://inspect does,
/// evaluates in its isolate, stops at a line of its TypeScript (through the source map the
/// engine inlines), and the hook goes on once it resumes.
#[cfg(feature = "v8")]
#[test]
fn a_debugger_attaches_to_a_plugin_and_stops_at_a_typescript_line() {
    use base64::Engine as _;
    let work = tempfile::tempdir().unwrap();
    let log = work.path().join("daemon.log");
    let daemon = Launch::new()
        .arg("--inspect=127.0.0.1:0")
        .arg("--inspect-plugin")
        .arg("debug-target")
        .log("warn", &log)
        .start_with(&[fixture("debug-target")]);
    let ws_url = poll(Duration::from_secs(10), || {
        daemon.stderr().lines().find_map(|l| {
            let rest = l.strip_prefix("Debugger listening on ")?;
            Some(rest.strip_suffix(" (plugin debug-target)")?.to_string())
        })
    })
    .unwrap_or_else(|| panic!("no target announced: {}", daemon.stderr()));
    let addr = ws_url
        .trim_start_matches("ws://")
        .split('/')
        .next()
        .unwrap()
        .to_string();

    // Listed as Node lists its targets.
    let (status, body) = http_get(&addr, "/json/list", None);
    assert_eq!(status, 200, "{body}");
    let list: Value = serde_json::from_str(&body).unwrap();
    let target = &list[0];
    assert_eq!(target["webSocketDebuggerUrl"], ws_url.as_str());
    assert_eq!(target["title"], "paseo plugin debug-target");
    assert_eq!(target["type"], "node");
    assert!(target["url"]
        .as_str()
        .unwrap()
        .ends_with("/debug-target/index.server.ts"));
    let (status, body) = http_get(&addr, "/json/version", None);
    assert_eq!(status, 200);
    assert!(body.contains("\"Browser\":\"paseo/"), "{body}");
    // A page on another name that resolves here (DNS rebinding) is refused.
    {
        use std::io::{Read, Write};
        let mut stream = std::net::TcpStream::connect(&addr).unwrap();
        write!(
            stream,
            "GET /json/list HTTP/1.1\r\nHost: rebind.example:9229\r\nConnection: close\r\n\r\n"
        )
        .unwrap();
        let mut response = String::new();
        stream.read_to_string(&mut response).unwrap();
        assert!(response.starts_with("HTTP/1.1 403"), "{response}");
    }

    let mut cdp = Cdp::connect(&ws_url);
    cdp.call("Runtime.enable", json!({}));
    let evaluated = cdp.call(
        "Runtime.evaluate",
        json!({ "expression": "globalThis.debugTarget" }),
    );
    assert_eq!(evaluated["result"]["value"], "debug-target");
    cdp.call("Debugger.enable", json!({}));
    let script = cdp.event("Debugger.scriptParsed", |p| {
        p["url"]
            .as_str()
            .unwrap_or_default()
            .ends_with("/debug-target/index.server.ts")
    });

    // The TypeScript line, mapped to the code V8 runs as DevTools maps it.
    let source = std::fs::read_to_string(fixture("debug-target").join("index.server.ts")).unwrap();
    let ts_line = source
        .lines()
        .position(|l| l.contains("// stop here"))
        .unwrap() as u32;
    let map_url = script["sourceMapURL"].as_str().unwrap();
    let map = map_url
        .strip_prefix("data:application/json;base64,")
        .unwrap_or_else(|| panic!("not an inline map: {map_url}"));
    let map = base64::engine::general_purpose::STANDARD
        .decode(map)
        .unwrap();
    let map = sourcemap::SourceMap::from_slice(&map).unwrap();
    let js_line = map
        .tokens()
        .filter(|t| t.get_src_line() == ts_line)
        .map(|t| t.get_dst_line())
        .min()
        .expect("the line is in the source map");
    let set = cdp.call(
        "Debugger.setBreakpointByUrl",
        json!({ "url": script["url"], "lineNumber": js_line }),
    );
    assert!(!set["locations"].as_array().unwrap().is_empty(), "{set}");

    // An agent open runs the hook, which stops there.
    let cwd = work.path().to_str().unwrap().to_string();
    let create = paseo(daemon.home())
        .args(["agent", "create", "--cwd", &cwd])
        .stdout(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    let paused = cdp.event("Debugger.paused", |_| true);
    assert!(
        !paused["hitBreakpoints"].as_array().unwrap().is_empty(),
        "{paused}"
    );
    let frame = &paused["callFrames"][0];
    let at = &frame["location"];
    let token = map
        .lookup_token(
            at["lineNumber"].as_u64().unwrap() as u32,
            at["columnNumber"].as_u64().unwrap() as u32,
        )
        .unwrap();
    assert_eq!(token.get_src_line(), ts_line, "{paused}");
    let seen = cdp.call(
        "Debugger.evaluateOnCallFrame",
        json!({ "callFrameId": frame["callFrameId"], "expression": "request.cwd" }),
    );
    assert_eq!(seen["result"]["value"], cwd.as_str());
    cdp.call("Debugger.resume", json!({}));
    let out = create.wait_with_output().unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stdout)
    );
    // What the plugin logged reached the debugger's console as well as the plugin's log.
    let logged = cdp.event("Runtime.consoleAPICalled", |p| {
        p["args"][0]["value"] == "opening"
    });
    assert_eq!(logged["type"], "log");
    assert_eq!(logged["args"][1]["value"], cwd.as_str());
    let logs = daemon.cli(&["plugin", "logs", "debug-target"]);
    assert!(
        logs.to_string().contains(&format!("opening {cwd}")),
        "{logs}"
    );

    // A reload gives the plugin a new isolate: the old session ends, and the same URL attaches
    // to the new one.
    daemon.cli(&["plugin", "reload", "debug-target"]);
    loop {
        match cdp.ws.read() {
            Ok(tungstenite::Message::Close(_)) | Err(_) => break,
            Ok(_) => {}
        }
    }
    let mut again = Cdp::connect(&ws_url);
    let evaluated = again.call(
        "Runtime.evaluate",
        json!({ "expression": "globalThis.debugTarget" }),
    );
    assert_eq!(evaluated["result"]["value"], "debug-target");
}

/// The QuickJS build has no inspector, and says so.
#[cfg(not(feature = "v8"))]
#[test]
fn the_inspector_needs_v8() {
    let home = tempfile::tempdir().unwrap();
    let out = paseo(home.path())
        .args(["daemon", "--inspect"])
        .output()
        .unwrap();
    assert!(!out.status.success());
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        stderr.contains("the inspector needs the V8 engine; this binary runs QuickJS — build with `--features v8`"),
        "{stderr}"
    );
    assert!(!home.path().join("daemon.lock").exists());
}

/// `paseo plugin dev DIR --inspect-brk`: the plugin's code waits for a debugger, then stops
/// at its entry's first line; resumed, the plugin loads and dev goes on watching it.
#[cfg(feature = "v8")]
#[test]
fn inspect_brk_waits_for_the_debugger_and_stops_at_the_entry() {
    use std::io::BufRead;
    let home = tempfile::tempdir().unwrap();
    let mut dev = paseo(home.path())
        .args(["plugin", "dev"])
        .arg(fixture("debug-target"))
        .args(["--inspect-brk=127.0.0.1:0", "--home"])
        .arg(home.path())
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    let (tx, rx) = std::sync::mpsc::channel::<String>();
    let stderr = dev.stderr.take().unwrap();
    std::thread::spawn(move || {
        for line in std::io::BufReader::new(stderr).lines() {
            let _ = tx.send(line.unwrap_or_default());
        }
    });
    let line_with = |what: &str| loop {
        let line = rx
            .recv_timeout(Duration::from_secs(30))
            .unwrap_or_else(|_| panic!("no line with {what}"));
        if line.contains(what) {
            return line;
        }
    };
    let announced = line_with("Debugger listening on ");
    let ws_url = announced
        .strip_prefix("Debugger listening on ")
        .and_then(|l| l.strip_suffix(" (plugin debug-target)"))
        .unwrap()
        .to_string();

    let mut cdp = Cdp::connect(&ws_url);
    cdp.call("Debugger.enable", json!({}));
    cdp.call("Runtime.runIfWaitingForDebugger", json!({}));
    let paused = cdp.event("Debugger.paused", |_| true);
    let script = cdp.event("Debugger.scriptParsed", |p| {
        p["scriptId"] == paused["callFrames"][0]["location"]["scriptId"]
    });
    assert!(
        script["url"]
            .as_str()
            .unwrap()
            .ends_with("/debug-target/index.server.ts"),
        "{script}"
    );
    assert_eq!(paused["callFrames"][0]["location"]["lineNumber"], 0);
    cdp.call("Debugger.resume", json!({}));
    line_with("paseo dev: watching");
    dev.kill().unwrap();
    dev.wait().unwrap();
}

/// `paseo plugin permissions|allow|deny`: the owner's policy for a plugin, kept in config.json
/// (`plugins.<id>.permissions`) and applied at once with a reload.
#[test]
fn the_owner_grants_and_takes_back_what_a_plugin_may_touch() {
    let work = tempfile::tempdir().unwrap();
    let daemon = Daemon::start(&[fixture("permissions")]);
    let shown = daemon.cli(&["plugin", "permissions", "permissions"]);
    assert_eq!(shown["permissions"], Value::Null);
    assert_eq!(
        shown["quotas"],
        json!({ "timelineRowsPerMinute": 120, "timelineBytesPerMinute": 4194304, "sendsPerMinute": 12 })
    );
    assert_eq!(
        daemon.cli(&["plugin", "ls", "permissions"])[0]["access"],
        "full"
    );
    let out = paseo(daemon.home())
        .args(["plugin", "permissions", "permissions"])
        .output()
        .unwrap();
    assert_eq!(
        String::from_utf8(out.stdout).unwrap(),
        "permissions: full access (no policy: it has your rights, as on Paseo's Node host)\n  \
         quotas per agent per minute: 120 timeline rows, 4194304 bytes of rows, 12 sends\n"
    );
    // Nothing to take back from full access.
    let e = daemon.cli_err(&["plugin", "deny", "permissions", "--sys"]);
    assert!(e.starts_with("Plugin permissions has full access"), "{e}");

    // Allowing gives it a policy of just that, applied at once; relative paths are the
    // caller's.
    let out = paseo(daemon.home())
        .current_dir(work.path())
        .args([
            "plugin",
            "allow",
            "permissions",
            "--read",
            "$PLUGIN",
            "--read",
            "notes",
        ])
        .args(["--net", "api.example.com:443", "--sys", "--json"])
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let allowed: Value = serde_json::from_slice(&out.stdout).unwrap();
    let notes = work.path().join("notes").display().to_string();
    assert_eq!(
        allowed,
        json!({
            "id": "permissions",
            "permissions": { "read": ["$PLUGIN", notes], "net": ["api.example.com:443"], "sys": true },
            "reloaded": true
        })
    );
    let config: Value =
        serde_json::from_str(&std::fs::read_to_string(daemon.home().join("config.json")).unwrap())
            .unwrap();
    assert_eq!(
        config["plugins"]["permissions"]["permissions"],
        allowed["permissions"]
    );
    let plugin = daemon.cli(&["plugin", "ls", "permissions"]);
    assert_eq!(plugin[0]["status"], "running", "{plugin}");
    assert_eq!(plugin[0]["access"], "sandboxed", "{plugin}");

    // Denying takes grants back; the rest stays.
    let denied = daemon.cli(&[
        "plugin",
        "deny",
        "permissions",
        "--sys",
        "--net",
        "api.example.com:443",
    ]);
    assert_eq!(denied["permissions"], json!({ "read": ["$PLUGIN", notes] }));
    let out = paseo(daemon.home())
        .args(["plugin", "permissions", "permissions"])
        .output()
        .unwrap();
    let text = String::from_utf8(out.stdout).unwrap();
    assert!(
        text.starts_with("permissions: sandboxed\n  read   reads $PLUGIN, "),
        "{text}"
    );
    assert!(text.contains("  net    connects to nothing\n"), "{text}");
    assert!(text.contains("  sys    host information: no\n"), "{text}");
    let e = daemon.cli_err(&["plugin", "allow", "permissions"]);
    assert_eq!(
        e,
        "Name at least one grant: --read, --write, --net, --run, --env or --sys"
    );
}

/// `paseo plugin install --sandbox` starts a plugin under the baseline policy; `paseo plugin
/// audit`: started, it records what the plugin does with full access; shown, the policy that
/// covers it; applied, the plugin runs under that policy and still works.
#[test]
fn an_audit_started_shown_and_applied_through_the_cli() {
    let daemon = Daemon::start(&[]);
    // Installed sandboxed, it reads its manifest ($PLUGIN) from its first load on.
    let installed = daemon.cli(&[
        "plugin",
        "install",
        fixture("permissions").to_str().unwrap(),
        "--sandbox",
    ]);
    assert_eq!(installed["id"], "permissions", "{installed}");
    let policy = daemon.cli(&["plugin", "permissions", "permissions"]);
    assert_eq!(
        policy["permissions"],
        json!({ "read": ["$PLUGIN", "$DATA"], "write": ["$DATA"] })
    );
    assert_eq!(
        daemon.cli(&["plugin", "ls", "permissions"])[0]["access"],
        "sandboxed"
    );
    // The baseline held from the first load: its folder yes, /etc no.
    let loaded: Vec<String> = daemon
        .cli(&["plugin", "logs", "permissions"])
        .as_array()
        .unwrap()
        .iter()
        .filter_map(|e| e["message"].as_str().map(str::to_string))
        .collect();
    assert!(
        loaded.contains(&"manifest read".to_string())
            && loaded.contains(&"etc not read: ERR_ACCESS_DENIED".to_string()),
        "{loaded:?}"
    );
    let e = daemon.cli_err(&["plugin", "audit", "permissions", "--apply"]);
    assert_eq!(
        e,
        "Plugin permissions is not audited: `paseo plugin audit permissions` starts an audit"
    );
    let started = daemon.cli(&["plugin", "audit", "permissions"]);
    assert_eq!(started["started"], true, "{started}");
    assert_eq!(
        daemon.cli(&["plugin", "ls", "permissions"])[0]["access"],
        "audit"
    );
    // Reloaded under the audit, the plugin read its manifest at load: seen.
    let shown = daemon.cli(&["plugin", "audit", "permissions"]);
    assert_eq!(shown["auditing"], true, "{shown}");
    // What it read with full access: its folder, and /etc (kept: the audit saw it).
    assert_eq!(
        shown["policy"]["read"],
        json!(["$PLUGIN", "/etc"]),
        "{shown}"
    );
    let out = paseo(daemon.home())
        .args(["plugin", "audit", "permissions"])
        .output()
        .unwrap();
    let text = String::from_utf8(out.stdout).unwrap();
    assert!(
        text.starts_with("permissions is audited; the policy that covers the "),
        "{text}"
    );
    assert!(text.contains("  read   reads $PLUGIN, /etc\n"), "{text}");

    let applied = daemon.cli(&["plugin", "audit", "permissions", "--apply"]);
    assert_eq!(applied["applied"], true, "{applied}");
    let policy = daemon.cli(&["plugin", "permissions", "permissions"]);
    assert_eq!(policy["permissions"], applied["policy"]);
    assert_eq!(policy["permissions"]["read"], json!(["$PLUGIN", "/etc"]));
    let listed = daemon.cli(&["plugin", "ls", "permissions"]);
    assert_eq!(listed[0]["access"], "sandboxed");
    assert_eq!(listed[0]["status"], "running");
    // Under the policy it still reads its manifest (the third load: install, audit, apply).
    let logs = daemon.cli(&["plugin", "logs", "permissions"]);
    let read = logs
        .as_array()
        .unwrap()
        .iter()
        .filter(|e| e["message"] == "manifest read")
        .count();
    assert_eq!(read, 3, "{logs}");
}

/// Quotas on what a plugin writes through the SDK: shown and changed by the owner, enforced per
/// agent per minute with the quota named in the error and a line in the plugin's log.
#[test]
fn a_plugin_that_writes_too_fast_through_the_sdk_is_stopped_at_its_quota() {
    let work = tempfile::tempdir().unwrap();
    let daemon = Daemon::start(&[fixture("quota-notes")]);
    let set = daemon.cli(&[
        "plugin",
        "quotas",
        "quota-notes",
        "--timeline-rows",
        "2",
        "--sends",
        "1",
    ]);
    assert_eq!(
        set["quotas"],
        json!({ "timelineRowsPerMinute": 2, "timelineBytesPerMinute": 4194304, "sendsPerMinute": 1 })
    );
    let config: Value =
        serde_json::from_str(&std::fs::read_to_string(daemon.home().join("config.json")).unwrap())
            .unwrap();
    assert_eq!(config["plugins"]["quota-notes"]["quotas"], set["quotas"]);

    daemon.cli(&["agent", "create", "--cwd", work.path().to_str().unwrap()]);
    let lines = || -> Vec<String> {
        daemon
            .cli(&["plugin", "logs", "quota-notes"])
            .as_array()
            .unwrap()
            .iter()
            .filter_map(|e| e["message"].as_str().map(str::to_string))
            .collect()
    };
    poll(Duration::from_secs(10), || {
        lines()
            .iter()
            .any(|l| l.starts_with("send 2"))
            .then_some(())
    })
    .unwrap_or_else(|| panic!("the plugin did not finish: {:?}", lines()));
    let logged = lines();
    let agent = daemon.cli(&["agent", "ls"])[0]["id"]
        .as_str()
        .unwrap()
        .to_string();
    let row_quota = format!(
        "Plugin quota-notes reached its quota of 2 timeline rows per minute for agent {agent} (plugins.quota-notes.quotas.timelineRowsPerMinute in config.json)"
    );
    let send_quota = format!(
        "Plugin quota-notes reached its quota of 1 sends per minute for agent {agent} (plugins.quota-notes.quotas.sendsPerMinute in config.json)"
    );
    for expected in [
        "row 1 appended".to_string(),
        "row 2 appended".to_string(),
        format!("row 3: {row_quota}"),
        format!("[paseo] {row_quota}"),
        "send 1 sent".to_string(),
        format!("send 2: {send_quota}"),
        format!("[paseo] {send_quota}"),
    ] {
        assert!(logged.contains(&expected), "no {expected:?} in {logged:?}");
    }
}
