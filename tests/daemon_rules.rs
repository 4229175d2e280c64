//! Three documented rules of the reference daemon (issue 15), driven through the real daemon
//! binary: `paseo.agents.ref(id).reload()` interrupts the running turn (a plugin reload does
//! not); `worktree.create.before` sees the default path with Paseo's existing-path suffix
//! already applied (and a path a plugin chose gets none); and `agent.permission.after` fires
//! exactly once for every way a pending request goes away, saying what happened.

mod daemon_harness;

use std::path::Path;

use daemon_harness::{fixture, git, git_repo, logged, Daemon};
use serde_json::{json, Value};

const PROBE: &str = "rules-probe";

fn new_agent(daemon: &Daemon, cwd: &Path, title: &str) -> String {
    let agent = daemon.cli(&[
        "agent",
        "create",
        "--cwd",
        cwd.to_str().unwrap(),
        "--title",
        title,
    ]);
    agent["id"].as_str().unwrap().to_string()
}

/// The probe's log once it holds `hook` for agent `id` (10 s at most).
fn wait_logged(daemon: &Daemon, hook: &str, id: &str) -> Vec<Value> {
    daemon.wait_logs(PROBE, &format!("{hook} of {id}"), |l| {
        !logged(l, hook, id).is_empty()
    })
}

/// Sends `text`, waits for the turn, and returns the request the probe's
/// `agent.permission.before` saw (a plugin answered it, or the turn went on without it).
fn send_and_logged_request(daemon: &Daemon, id: &str, text: &str) -> String {
    daemon.cli(&["agent", "send", id, text, "--wait"]);
    let logs = wait_logged(daemon, "agent.permission.before", id);
    logged(&logs, "agent.permission.before", id)[0]["requestId"]
        .as_str()
        .unwrap()
        .to_string()
}

/// `workspace create` of a worktree for `branch` off `repo`.
fn worktree_args<'a>(repo: &'a Path, branch: &'a str) -> [&'a str; 6] {
    let dir = repo.to_str().unwrap();
    ["workspace", "create", "--dir", dir, "--worktree", branch]
}

/// A new agent in `cwd` with one permission request pending for `text`: (agent, request).
fn pending_agent(daemon: &Daemon, cwd: &Path, title: &str, text: &str) -> (String, String) {
    let id = new_agent(daemon, cwd, title);
    let request = send_until_pending(daemon, &id, text);
    (id, request)
}

/// Sends `text` and waits until the turn has one permission request pending; returns its id.
fn send_until_pending(daemon: &Daemon, id: &str, text: &str) -> String {
    daemon.cli(&["agent", "send", id, text]);
    let agent = daemon.wait_agent(id, "a pending permission request", |a| {
        a["pendingPermissions"]
            .as_array()
            .is_some_and(|p| p.len() == 1)
    });
    agent["pendingPermissions"][0]["id"]
        .as_str()
        .unwrap()
        .to_string()
}

#[test]
fn an_sdk_reload_interrupts_the_running_turn_and_reopens_the_session_with_refresh() {
    let work = tempfile::tempdir().unwrap();
    let daemon = Daemon::start(&[fixture(PROBE)]);
    // The probe reloads this agent from `agent.turn.before` while the turn sleeps.
    let id = new_agent(&daemon, work.path(), "reload on turn");
    daemon.cli(&["agent", "send", &id, "sleep 60000\nsay never"]);
    let logs = daemon.wait_logs(PROBE, "the interrupted turn's end", |l| {
        !logged(l, "agent.turn.after", &id).is_empty() && !logged(l, "reloaded", &id).is_empty()
    });
    let ended = logged(&logs, "agent.turn.after", &id);
    assert_eq!(ended.len(), 1);
    assert_eq!(
        ended[0]["outcome"],
        json!({ "kind": "canceled", "reason": "Interrupted by an agent reload" })
    );
    assert_eq!(
        ended[0]["turnId"],
        logged(&logs, "agent.turn.before", &id)[0]["turnId"]
    );
    let reasons: Vec<&Value> = logged(&logs, "agent.open.before", &id)
        .iter()
        .map(|p| &p["reason"])
        .collect();
    assert_eq!(reasons, [&json!("create"), &json!("refresh")]);
    let agent = daemon.cli(&["agent", "show", &id]);
    assert_eq!(agent["status"], "idle");
    assert_eq!(agent["launch"]["reason"], "refresh");
    let texts: Vec<&Value> = agent["timeline"]
        .as_array()
        .unwrap()
        .iter()
        .map(|i| i.get("text").or(i.get("message")).unwrap())
        .collect();
    assert_eq!(
        texts,
        [
            &json!("sleep 60000\nsay never"),
            &json!("Interrupted by an agent reload")
        ]
    );
    // The reopened session takes the next prompt (the probe reloads only once).
    let agent = daemon.cli(&["agent", "send", &id, "say again", "--wait"]);
    assert_eq!(
        agent["timeline"].as_array().unwrap().last().unwrap()["text"],
        "again"
    );
    let logs = daemon.wait_logs(PROBE, "the second turn's end", |l| {
        logged(l, "agent.turn.after", &id).len() == 2
    });
    assert_eq!(
        logged(&logs, "agent.turn.after", &id)[1]["outcome"],
        json!({ "kind": "completed" })
    );
    daemon.stop();
}

#[test]
fn a_plugin_reload_lets_the_running_turn_finish() {
    let work = tempfile::tempdir().unwrap();
    let daemon = Daemon::start(&[fixture(PROBE)]);
    // The turn waits on its permission request while the plugin reloads.
    let (id, request) = pending_agent(&daemon, work.path(), "kept", "run echo kept");
    daemon.cli(&["plugin", "reload", PROBE]);
    let agent = daemon.cli(&["agent", "show", &id]);
    assert_eq!(agent["status"], "running");
    assert_eq!(agent["stale"], true);
    assert_eq!(agent["pendingPermissions"][0]["id"], json!(request));
    assert_eq!(agent["launch"]["reason"], "create");
    daemon.cli(&["permission", "respond", &id, &request, "allow"]);
    let agent = daemon.cli(&["agent", "wait", &id]);
    let call = agent["timeline"]
        .as_array()
        .unwrap()
        .last()
        .unwrap()
        .clone();
    assert_eq!(
        (&call["status"], &call["detail"]["output"]),
        (&json!("completed"), &json!("kept\n"))
    );
    let logs = wait_logged(&daemon, "agent.turn.after", &id);
    assert_eq!(
        logged(&logs, "agent.turn.after", &id)[0]["outcome"],
        json!({ "kind": "completed" })
    );
    assert_eq!(
        logged(&logs, "agent.permission.after", &id)[0]["resolution"],
        json!({ "behavior": "allow" })
    );
    daemon.stop();
}

#[test]
fn a_taken_default_worktree_path_gets_paseos_suffix_before_the_hook_sees_it() {
    let work = tempfile::tempdir().unwrap();
    let repo = git_repo(work.path());
    let daemon = Daemon::start(&[fixture(PROBE)]);
    let base = daemon.home().join("worktrees/repo");
    // Someone's folder at the default path (with a file), and an empty one at the first suffix.
    std::fs::create_dir_all(base.join("feature-x")).unwrap();
    std::fs::write(base.join("feature-x/notes.txt"), "mine").unwrap();
    std::fs::create_dir_all(base.join("feature-x-1")).unwrap();
    let ws = daemon.cli(&worktree_args(&repo, "feature/x"));
    let chosen = base.join("feature-x-2");
    assert_eq!(ws["cwd"], json!(chosen));
    assert!(chosen.join(".git").is_file());
    assert_eq!(
        git(&chosen, &["rev-parse", "--abbrev-ref", "HEAD"]),
        "feature/x"
    );
    assert_eq!(
        std::fs::read_to_string(base.join("feature-x/notes.txt")).unwrap(),
        "mine"
    );
    assert_eq!(
        std::fs::read_dir(base.join("feature-x-1")).unwrap().count(),
        0
    );
    // A free default path is used as it is.
    let ws = daemon.cli(&worktree_args(&repo, "free"));
    assert_eq!(ws["cwd"], json!(base.join("free")));
    let seen: Vec<Value> = daemon
        .json_logs(PROBE)
        .into_iter()
        .filter(|l| l["hook"] == "worktree.create.before")
        .map(|l| l["payload"].clone())
        .collect();
    assert_eq!(
        seen,
        [
            json!({ "path": chosen, "branch": "feature/x" }),
            json!({ "path": base.join("free"), "branch": "free" })
        ]
    );
    daemon.stop();
}

#[test]
fn a_path_a_plugin_chose_gets_no_suffix_and_a_taken_one_fails_leaving_nothing_behind() {
    let work = tempfile::tempdir().unwrap();
    let repo = git_repo(work.path());
    // worktree-place puts each worktree next to the checkout: <repo>.<branch>.
    let daemon = Daemon::start(&[fixture("worktree-place")]);
    let taken = repo.parent().unwrap().join("repo.chosen");
    std::fs::create_dir_all(&taken).unwrap();
    std::fs::write(taken.join("notes.txt"), "mine").unwrap();
    let err = daemon.cli_err(&worktree_args(&repo, "chosen"));
    assert_eq!(err, format!("Plugin worktree-place worktree.create.before failed: invalid request: path \"{}\" already exists", taken.display()));
    assert!(!repo.parent().unwrap().join("repo.chosen-1").exists());
    assert_eq!(
        std::fs::read_to_string(taken.join("notes.txt")).unwrap(),
        "mine"
    );
    assert_eq!(
        git(&repo, &["branch", "--list", "chosen"]),
        "",
        "the failed creation left its branch"
    );
    assert_eq!(daemon.cli(&["workspace", "ls"]), json!([]));
    let ws = daemon.cli(&worktree_args(&repo, "free"));
    assert_eq!(ws["cwd"], json!(repo.parent().unwrap().join("repo.free")));
    daemon.stop();
}

#[test]
fn every_way_a_pending_permission_goes_away_emits_one_permission_after_saying_what_happened() {
    let work = tempfile::tempdir().unwrap();
    let daemon = Daemon::start(&[fixture(PROBE)]);
    let cwd = work.path();
    // (agent, request, resolution, how the turn ended)
    let mut cases: Vec<(String, String, Value, Value)> = Vec::new();

    let (id, request) = pending_agent(&daemon, cwd, "answered by the user", "run echo user");
    daemon.cli(&[
        "permission",
        "respond",
        &id,
        &request,
        "deny",
        "--message",
        "Not now",
    ]);
    daemon.cli(&["agent", "wait", &id]);
    cases.push((
        id,
        request,
        json!({ "behavior": "deny", "message": "Not now" }),
        json!({ "kind": "completed" }),
    ));

    let id = new_agent(&daemon, cwd, "answered by a plugin");
    let request = send_and_logged_request(&daemon, &id, "run echo plugin-allows");
    cases.push((
        id,
        request,
        json!({ "behavior": "allow", "respondedBy": { "pluginId": PROBE } }),
        json!({ "kind": "completed" }),
    ));

    let (id, request) = pending_agent(&daemon, cwd, "canceled", "run echo cancel");
    assert_eq!(
        daemon.cli(&["agent", "cancel", &id])["pendingPermissions"],
        json!([])
    );
    cases.push((
        id,
        request,
        json!({ "behavior": "deny", "message": "Turn canceled" }),
        json!({ "kind": "canceled", "reason": "Canceled by the user" }),
    ));

    // `ask` raises a request and goes on; the turn then fails with it pending.
    let id = new_agent(&daemon, cwd, "failed");
    let request = send_and_logged_request(&daemon, &id, "ask echo fail\nfail boom");
    cases.push((
        id,
        request,
        json!({ "behavior": "deny", "message": "Turn failed" }),
        json!({ "kind": "failed", "error": { "message": "boom" } }),
    ));

    let (id, request) = pending_agent(&daemon, cwd, "closed", "run echo close");
    let closed = daemon.cli(&["agent", "close", &id]);
    assert_eq!(
        (&closed["status"], &closed["pendingPermissions"]),
        (&json!("closed"), &json!([]))
    );
    assert_eq!(
        daemon.cli_err(&["agent", "send", &id, "say hi"]),
        format!("Agent {id} is not open")
    );
    assert_eq!(
        daemon.cli_err(&["agent", "close", &id]),
        format!("Agent {id} is not open")
    );
    cases.push((
        id,
        request,
        json!({ "behavior": "deny", "message": "Agent closed" }),
        json!({ "kind": "canceled", "reason": "Agent closed" }),
    ));

    let (id, request) = pending_agent(&daemon, cwd, "archived", "run echo archive");
    daemon.cli(&["agent", "archive", &id]);
    cases.push((
        id,
        request,
        json!({ "behavior": "deny", "message": "Agent archived" }),
        json!({ "kind": "canceled", "reason": "Agent archived" }),
    ));

    // The user's reload interrupts the turn as the SDK's does (Paseo's daemon does both).
    let (id, request) = pending_agent(&daemon, cwd, "reloaded", "run echo reload");
    let reloaded = daemon.cli(&["agent", "reload", &id]);
    assert_eq!(
        (
            &reloaded["status"],
            &reloaded["launch"]["reason"],
            &reloaded["pendingPermissions"]
        ),
        (&json!("idle"), &json!("refresh"), &json!([]))
    );
    cases.push((
        id,
        request,
        json!({ "behavior": "deny", "message": "Agent reloaded" }),
        json!({ "kind": "canceled", "reason": "Interrupted by an agent reload" }),
    ));

    // Notifications reach a plugin in order: once this turn's end is logged, every earlier
    // one is, and a second permission.after for any request would have been too.
    let marker = new_agent(&daemon, cwd, "marker");
    daemon.cli(&["agent", "send", &marker, "say end", "--wait"]);
    let logs = wait_logged(&daemon, "agent.turn.after", &marker);
    for (id, request, resolution, outcome) in &cases {
        let after: Vec<&Value> = logged(&logs, "agent.permission.after", id);
        assert_eq!(
            after,
            [&json!({ "agentId": id, "requestId": request, "resolution": resolution })],
            "agent {id}"
        );
        let ended: Vec<&Value> = logged(&logs, "agent.turn.after", id)
            .iter()
            .map(|p| &p["outcome"])
            .collect();
        assert_eq!(ended, [outcome], "agent {id}");
        assert_eq!(
            daemon.cli_err(&["permission", "respond", id, request, "allow"]),
            format!("Permission request {request} is not pending for agent {id}")
        );
    }
    let closes: Vec<&Value> = logs
        .iter()
        .filter(|l| l["hook"] == "agent.close.after")
        .map(|l| &l["payload"]["agentId"])
        .collect();
    assert_eq!(closes, [&json!(cases[4].0), &json!(cases[5].0)]);
    daemon.stop();
}

/// Paseo's global switch: while `pluginsEnabled` is off an install says so, `plugin ls` says
/// why a plugin is disabled, and `paseo plugins enable|disable` applies at once.
#[test]
fn the_global_plugin_switch_is_explained_and_applied_at_once() {
    let daemon = daemon_harness::Launch::new()
        .config(r#"{ "pluginsEnabled": false }"#)
        .start();
    let plugin = fixture("notify");
    let out = daemon_harness::paseo(daemon.home())
        .args(["plugin", "install", plugin.to_str().unwrap()])
        .output()
        .unwrap();
    assert!(out.status.success());
    let off = "plugins are turned off (\"pluginsEnabled\": false in config.json); run `paseo plugins enable` to turn them on";
    assert!(String::from_utf8_lossy(&out.stderr).contains(&format!("not starting notify: {off}")));
    let row = &daemon.cli(&["plugin", "ls"])[0];
    assert_eq!(
        (row["status"].as_str(), row["error"].as_str()),
        (Some("disabled"), Some(off))
    );

    daemon.cli(&["plugins", "enable"]);
    assert_eq!(daemon.cli(&["plugin", "ls"])[0]["status"], "running");
    let config: Value =
        serde_json::from_slice(&std::fs::read(daemon.home().join("config.json")).unwrap()).unwrap();
    assert_eq!(config["pluginsEnabled"], true);

    daemon.cli(&["plugins", "disable"]);
    assert_eq!(daemon.cli(&["plugin", "ls"])[0]["status"], "disabled");
    // Stopped, not forgotten: turning plugins on again restarts it in place.
    daemon.cli(&["plugins", "enable"]);
    assert_eq!(daemon.cli(&["plugin", "ls"])[0]["status"], "running");
    daemon.cli(&["plugin", "disable", "notify"]);
    let row = &daemon.cli(&["plugin", "ls"])[0];
    assert_eq!(
        row["error"],
        "Disabled with `paseo plugin disable notify`; `paseo plugin enable notify` starts it"
    );
}
