//! What plugins provide, through the daemon binary: an agent on a plugin's provider (turns,
//! permissions, hooks around them, a throwing, hanging or stopped provider), `paseo provider
//! ls`, the built-in IDs a plugin cannot take, forge providers on a local git repository, and
//! usage sources.

mod daemon_harness;

use std::path::Path;

use daemon_harness::{fixture, git, logged, Daemon, Launch};
use serde_json::{json, Value};

fn timeline(agent: &Value) -> Vec<String> {
    agent["timeline"]
        .as_array()
        .unwrap()
        .iter()
        .map(|i| match i["type"].as_str().unwrap() {
            "user_message" => format!("user: {}", i["text"].as_str().unwrap()),
            "assistant_message" => format!("agent: {}", i["text"].as_str().unwrap()),
            "error" => format!("error: {}", i["message"].as_str().unwrap()),
            other => other.to_string(),
        })
        .collect()
}

fn echo_agent(daemon: &Daemon, cwd: &Path) -> String {
    let agent = daemon.cli(&[
        "agent",
        "create",
        "--cwd",
        cwd.to_str().unwrap(),
        "--provider",
        "echo",
    ]);
    assert_eq!(agent["provider"], "echo");
    agent["id"].as_str().unwrap().to_string()
}

#[test]
fn an_agent_runs_its_turns_on_a_plugins_provider_with_the_same_hooks_around_them() {
    let work = tempfile::tempdir().unwrap();
    let daemon = Daemon::start(&[fixture("provider-kit"), fixture("rules-probe")]);
    let providers = daemon.cli(&["provider", "ls"]);
    let rows: Vec<(String, Value)> = providers
        .as_array()
        .unwrap()
        .iter()
        .map(|p| (p["id"].as_str().unwrap().to_string(), p["plugin"].clone()))
        .collect();
    assert_eq!(
        rows,
        [
            ("scripted".into(), Value::Null),
            ("codex".into(), Value::Null),
            ("claude".into(), Value::Null),
            ("plain".into(), Value::Null),
            ("echo".into(), json!("provider-kit")),
            ("slow-connect".into(), json!("provider-kit")),
        ]
    );
    // The icon as Paseo's registration carries it: the SVG text, not the file name.
    let icons: Vec<Value> = providers.as_array().unwrap()[4..]
        .iter()
        .map(|p| p["icon"].clone())
        .collect();
    let svg = std::fs::read_to_string(fixture("provider-kit").join("icon.svg")).unwrap();
    assert!(icons.contains(&json!(svg)), "{icons:?}");

    let id = echo_agent(&daemon, work.path());
    let agent = daemon.cli(&["agent", "send", &id, "hello\nworld", "--wait"]);
    assert_eq!(
        timeline(&agent),
        [
            "user: hello\nworld",
            "agent: echo: hello",
            "agent: echo: world"
        ]
    );

    // A permission the provider asks for is the daemon's, answered as any other.
    daemon.cli(&["agent", "send", &id, "ask make test"]);
    let pending = daemon.wait_agent(&id, "a pending permission", |a| {
        a["pendingPermissions"]
            .as_array()
            .is_some_and(|p| p.len() == 1)
    });
    let request = pending["pendingPermissions"][0]["id"]
        .as_str()
        .unwrap()
        .to_string();
    daemon.cli(&["permission", "respond", &id, &request, "allow"]);
    let agent = daemon.wait_agent(&id, "the turn's end", |a| a["status"] == "idle");
    assert_eq!(timeline(&agent).last().unwrap(), "agent: ran make test");

    let logs = daemon.wait_logs("rules-probe", "both turns' ends", |l| {
        logged(l, "agent.turn.after", &id).len() == 2
    });
    let outcomes: Vec<&Value> = logged(&logs, "agent.turn.after", &id)
        .iter()
        .map(|p| &p["outcome"])
        .collect();
    assert_eq!(
        outcomes,
        [
            &json!({ "kind": "completed" }),
            &json!({ "kind": "completed" })
        ]
    );
    assert_eq!(logged(&logs, "agent.turn.before", &id).len(), 2);
    assert_eq!(
        logged(&logs, "agent.permission.before", &id)[0]["requestId"],
        request.as_str()
    );
    assert_eq!(
        logged(&logs, "agent.permission.after", &id)[0]["resolution"]["behavior"],
        "allow"
    );
}

#[test]
fn a_provider_that_throws_hangs_or_stops_fails_the_turn_naming_the_plugin_and_the_daemon_carries_on(
) {
    let work = tempfile::tempdir().unwrap();
    let daemon = Launch::new()
        .env("PASEO_PROVIDER_IDLE_MS", "400")
        .start_with(&[fixture("provider-kit")]);
    let id = echo_agent(&daemon, work.path());

    let agent = daemon.cli(&["agent", "send", &id, "throw", "--wait"]);
    assert_eq!(
        timeline(&agent).last().unwrap(),
        "error: Plugin provider-kit provider echo failed: the echo provider refuses"
    );

    let agent = daemon.cli(&["agent", "send", &id, "hang", "--wait"]);
    assert_eq!(
        timeline(&agent).last().unwrap(),
        "error: Plugin provider-kit provider echo: sent nothing for 400ms"
    );

    let agent = daemon.cli(&["agent", "send", &id, "bad", "--wait"]);
    assert_eq!(
        timeline(&agent).last().unwrap(),
        "error: Plugin provider-kit provider echo: sent an invalid event: event timeline.item: item: \"id\" is a required property; item: \"text\" is a required property"
    );

    // The next turn reconnects: the connection that broke the protocol was closed.
    let agent = daemon.cli(&["agent", "send", &id, "still here", "--wait"]);
    assert_eq!(timeline(&agent).last().unwrap(), "agent: echo: still here");

    // A plugin reload ends the connection; the next turn connects to the new isolate.
    daemon.cli(&["plugin", "reload", "provider-kit"]);
    let agent = daemon.cli(&["agent", "send", &id, "after reload", "--wait"]);
    assert_eq!(
        timeline(&agent).last().unwrap(),
        "agent: echo: after reload"
    );

    // The plugin stops in the middle of a turn: the turn fails with why; the daemon goes on.
    daemon.cli(&["agent", "send", &id, "ask anything"]);
    daemon.wait_agent(&id, "a pending permission", |a| {
        a["pendingPermissions"]
            .as_array()
            .is_some_and(|p| p.len() == 1)
    });
    daemon.cli(&["plugin", "disable", "provider-kit"]);
    let agent = daemon.wait_agent(&id, "the failed turn", |a| a["status"] == "idle");
    assert_eq!(
        timeline(&agent).last().unwrap(),
        "error: Plugin provider-kit provider echo: Plugin stopped: provider-kit"
    );
    assert_eq!(agent["pendingPermissions"], json!([]));
    let err = daemon.cli_err(&[
        "agent",
        "create",
        "--cwd",
        work.path().to_str().unwrap(),
        "--provider",
        "echo",
    ]);
    assert_eq!(err, "Unknown provider: echo");
    let scripted = daemon.cli(&[
        "agent",
        "create",
        "--cwd",
        work.path().to_str().unwrap(),
        "--prompt",
        "say fine",
    ]);
    let scripted_id = scripted["id"].as_str().unwrap();
    daemon.wait_agent(scripted_id, "the scripted turn", |a| {
        timeline(a).last().is_some_and(|t| t == "agent: fine")
    });

    let logs = daemon.cli(&["plugin", "logs", "provider-kit"]);
    let closes = logs
        .as_array()
        .unwrap()
        .iter()
        .filter(|e| e["message"].as_str().unwrap().ends_with(" closed"))
        .count();
    let opens = logs
        .as_array()
        .unwrap()
        .iter()
        .filter(|e| e["message"].as_str().unwrap().ends_with(" opened"))
        .count();
    assert_eq!(
        opens, closes,
        "every connection opened was closed once: {logs:#}"
    );
}

#[test]
fn a_plugin_cannot_take_a_built_in_provider_id() {
    let daemon = Daemon::start(&[]);
    let err = daemon.cli_err(&[
        "plugin",
        "install",
        fixture("provider-taken").to_str().unwrap(),
    ]);
    assert_eq!(
        err,
        "Plugin provider-taken cannot register builtin provider ID \"scripted\""
    );
}

#[test]
fn forge_providers_answer_from_a_local_repository_and_keep_their_errors_kind() {
    let work = tempfile::tempdir().unwrap();
    let repo = work.path().join("repo");
    std::fs::create_dir_all(&repo).unwrap();
    git(&repo, &["init", "-q", "-b", "main"]);
    git(&repo, &["commit", "-q", "--allow-empty", "-m", "init"]);
    git(&repo, &["branch", "feature/b"]);
    git(&repo, &["branch", "feature/a"]);
    let daemon = Daemon::start(&[fixture("forge-kit")]);

    let forges = daemon.cli(&["forge", "ls"]);
    assert_eq!(forges[0]["id"], "local-git");
    assert_eq!(forges[0]["plugin"], "forge-kit");
    assert_eq!(forges[0]["hasProbeHost"], true);

    let cwd = json!({ "cwd": repo }).to_string();
    let listed = daemon.cli(&["forge", "call", "local-git", "listPullRequests", &cwd]);
    let heads: Vec<&str> = listed["output"]
        .as_array()
        .unwrap()
        .iter()
        .map(|p| p["headRefName"].as_str().unwrap())
        .collect();
    assert_eq!(heads, ["feature/a", "feature/b"]);
    let head = daemon.cli(&[
        "forge",
        "call",
        "local-git",
        "getPullRequestHeadRef",
        &json!({ "cwd": repo, "number": 2 }).to_string(),
    ]);
    assert_eq!(head["output"], "feature/b");
    assert_eq!(
        daemon.cli(&[
            "forge",
            "call",
            "local-git",
            "probeHost",
            "\"local.invalid\""
        ])["output"],
        true
    );

    // A forge error crosses with its kind and fields.
    let outside = json!({ "cwd": work.path() }).to_string();
    let out = daemon_harness::paseo(daemon.home())
        .args([
            "forge",
            "call",
            "local-git",
            "listPullRequests",
            &outside,
            "--json",
        ])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1));
    let answer: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(answer["error"]["kind"], "command-error");
    assert_eq!(answer["error"]["message"], "Local CLI command failed: git");
    assert_eq!(answer["error"]["args"], json!(["for-each-ref"]));
    assert!(
        answer["error"]["stderr"]
            .as_str()
            .unwrap()
            .contains("not a git repository"),
        "{answer}"
    );

    // A plain error keeps its message; a method the provider lacks is refused before the call.
    let err = daemon.cli_err(&["forge", "call", "local-git", "defaultCheckoutRefs", "{}"]);
    assert_eq!(err, "Plugin forge-kit forge provider local-git failed: Forge provider local-git does not contribute defaultCheckoutRefs");
    let err = daemon.cli_err(&["forge", "call", "nobody", "listIssues", "{}"]);
    assert_eq!(err, "No plugin provides forge provider nobody");
    // What a method returns is checked against what it must return, as Paseo's daemon checks
    // it: a head ref that is not a string (there is no change request 9) is refused.
    let err = daemon.cli_err(&[
        "forge",
        "call",
        "local-git",
        "getPullRequestHeadRef",
        &json!({ "cwd": repo, "number": 9 }).to_string(),
    ]);
    assert!(
        err.starts_with("Plugin forge-kit forge provider local-git failed: Plugin forge getPullRequestHeadRef returned invalid output: "),
        "{err}"
    );

    // Dispose runs once, when the plugin stops.
    daemon.cli(&["plugin", "disable", "forge-kit"]);
    let logs = daemon.cli(&["plugin", "logs", "forge-kit"]);
    let disposed = logs
        .as_array()
        .unwrap()
        .iter()
        .filter(|e| e["message"] == "forge disposed")
        .count();
    assert_eq!(disposed, 1);
}

#[test]
fn usage_sources_are_listed_discovered_and_fetched() {
    let daemon = Daemon::start(&[fixture("provider-kit")]);
    let sources = daemon.cli(&["usage", "ls"]);
    assert_eq!(
        sources,
        json!([{ "id": "echo-usage", "label": "Echo usage", "plugin": "provider-kit", "discover": true }])
    );
    let accounts = daemon.cli(&["usage", "discover", "echo-usage"]);
    assert_eq!(accounts[0]["key"], "main");
    let report = daemon.cli(&["usage", "fetch", "echo-usage", "{\"account\":\"main\"}"]);
    assert_eq!(report["planLabel"], "Echo Pro");
    let err = daemon.cli_err(&["usage", "fetch", "echo-usage", "{}"]);
    assert!(err.starts_with("Plugin provider-kit usage source echo-usage failed: Invalid input for usage source echo-usage: "), "{err}");
}

#[test]
fn attachment_searches_run_through_the_daemon() {
    let daemon = Daemon::start(&[fixture("attachment-source")]);
    let found = daemon.cli(&[
        "attachment",
        "search",
        "attachment-source",
        "issues.search",
        "checkout",
    ]);
    assert_eq!(found["items"][0]["identifier"], "SHOP-1");
    let err = daemon.cli_err(&[
        "attachment",
        "search",
        "attachment-source",
        "broken.search",
        "x",
    ]);
    assert!(err.starts_with("Plugin attachment-source attachment search broken.search returned an invalid payload: items[0].url"), "{err}");
}

#[test]
fn an_agent_runs_on_an_acp_agent_through_run_acp_provider() {
    let work = tempfile::tempdir().unwrap();
    let daemon = Daemon::start(&[fixture("acp-provider")]);
    let agent = daemon.cli(&[
        "agent",
        "create",
        "--cwd",
        work.path().to_str().unwrap(),
        "--provider",
        "fake-acp",
    ]);
    let id = agent["id"].as_str().unwrap();
    let agent = daemon.cli(&["agent", "send", id, "hello", "--wait"]);
    // One user message (the daemon's), and the reply streamed in two chunks recorded once, in
    // its last form.
    assert_eq!(timeline(&agent), ["user: hello", "agent: echo: hello"]);
}
