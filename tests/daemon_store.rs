//! The daemon's state on disk, abused: the real daemon binary in a temporary home, driven over
//! its control socket by many clients at once, killed with SIGKILL in the middle of writes, and
//! restarted on what it left. Nothing acknowledged may be lost, no write may tear, and what the
//! daemon creates is the owner's alone.

mod daemon_harness;

use std::io::Write;
use std::os::unix::fs::{MetadataExt, PermissionsExt};
use std::path::Path;
use std::process::Command;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::Mutex;
use std::time::Duration;

use daemon_harness::{fixture, paseo, poll, request, Daemon, Launch};
use serde_json::{json, Value};

/// A daemon on `home`, its stderr (with warnings) appended to `log`.
fn start(home: &Path, log: &Path) -> Daemon {
    Launch::at(home).log("paseo=warn", log).start()
}

fn create_agent(home: &Path, cwd: &Path) -> Result<String, String> {
    let agent = request(
        home,
        "agent.create",
        json!({ "cwd": cwd, "provider": "scripted" }),
    )?;
    Ok(agent["id"].as_str().unwrap().to_string())
}

/// The prompt that has the scripted provider `say` each word.
fn say(words: &[String]) -> String {
    words
        .iter()
        .map(|w| format!("say {w}"))
        .collect::<Vec<_>>()
        .join("\n")
}

/// `say` once per word: the user message and one assistant message per word.
fn expected_items(words: &[String]) -> Vec<Value> {
    let text = say(words);
    let mut items = vec![json!({ "type": "user_message", "text": text })];
    items.extend(
        words
            .iter()
            .map(|w| json!({ "type": "assistant_message", "text": w })),
    );
    items
}

fn send_and_wait(home: &Path, agent: &str, words: &[String]) -> Result<(), String> {
    let text = say(words);
    request(
        home,
        "agent.send",
        json!({ "id": agent, "text": text, "wait": true }),
    )
    .map(|_| ())
}

/// The agent's whole timeline (the tests keep them under the 100 items a view carries).
fn timeline(daemon: &Daemon, agent: &str) -> Vec<Value> {
    let shown = daemon.call("agent.show", json!({ "id": agent }));
    let items = shown["timeline"].as_array().unwrap().clone();
    assert_eq!(
        shown["timelineLength"],
        items.len(),
        "{agent}'s view holds only the latest items"
    );
    items
}

/// Temp files an interrupted write would leave (`.<name>.<pid>[.<n>].tmp`).
fn temp_files(dir: &Path) -> Vec<String> {
    std::fs::read_dir(dir)
        .map(|entries| {
            entries
                .map(|e| e.unwrap().file_name().into_string().unwrap())
                .filter(|n| n.starts_with('.') && n.ends_with(".tmp"))
                .collect()
        })
        .unwrap_or_default()
}

/// A pid no process has: that of a child already reaped.
fn dead_pid() -> u32 {
    let mut child = Command::new("true").spawn().unwrap();
    let pid = child.id();
    child.wait().unwrap();
    pid
}

fn mode(path: &Path) -> u32 {
    std::fs::metadata(path)
        .unwrap_or_else(|e| panic!("{}: {e}", path.display()))
        .permissions()
        .mode()
        & 0o777
}

#[test]
fn many_concurrent_turns_lose_nothing_and_never_fail_a_save() {
    let (home, work) = (tempfile::tempdir().unwrap(), tempfile::tempdir().unwrap());
    let log = work.path().join("daemon.log");
    let daemon = start(home.path(), &log);
    // 20 agents created at once (20 concurrent state saves), then 10 turns each, all agents in
    // parallel: 200 sends, 600 timeline items.
    let sent: Vec<(String, Vec<Value>)> = std::thread::scope(|s| {
        let threads: Vec<_> = (0..20)
            .map(|a| {
                let (home, cwd) = (home.path(), work.path());
                s.spawn(move || {
                    let agent = create_agent(home, cwd).unwrap();
                    let mut expected = vec![];
                    for turn in 0..10 {
                        let words = vec![format!("a{a}-t{turn}-one"), format!("a{a}-t{turn}-two")];
                        send_and_wait(home, &agent, &words).unwrap();
                        expected.extend(expected_items(&words));
                    }
                    (agent, expected)
                })
            })
            .collect();
        threads.into_iter().map(|t| t.join().unwrap()).collect()
    });
    let daemon = daemon.restart();
    assert_eq!(
        daemon.call("agent.ls", json!({})).as_array().unwrap().len(),
        20
    );
    for (agent, expected) in &sent {
        assert_eq!(&timeline(&daemon, agent), expected, "timeline of {agent}");
    }
    daemon.stop();
    let stderr = std::fs::read_to_string(&log).unwrap();
    assert!(!stderr.contains("cannot save"), "{stderr}");
    assert_eq!(temp_files(home.path()), Vec::<String>::new());
}

#[test]
fn a_kill_during_heavy_writes_leaves_a_home_the_daemon_restarts_on_with_every_acknowledged_change()
{
    let (home, work) = (tempfile::tempdir().unwrap(), tempfile::tempdir().unwrap());
    let log = work.path().join("daemon.log");
    let acked_agents = Mutex::new(Vec::<String>::new());
    let acked_items = Mutex::new(std::collections::BTreeMap::<String, Vec<Value>>::new());
    let pad = "x".repeat(4000);
    for round in 0..3 {
        let daemon = start(home.path(), &log);
        let (stop, acks) = (AtomicBool::new(false), AtomicUsize::new(0));
        std::thread::scope(|s| {
            // Agent creations rewrite state.json while the turns append to journals.
            s.spawn(|| {
                for _ in 0..30 {
                    if stop.load(Ordering::SeqCst) {
                        return;
                    }
                    match create_agent(home.path(), work.path()) {
                        Ok(agent) => acked_agents.lock().unwrap().push(agent),
                        Err(_) => return,
                    }
                }
            });
            for t in 0..4 {
                let (stop, acks, acked_items, pad) = (&stop, &acks, &acked_items, &pad);
                let (home, cwd) = (home.path(), work.path());
                s.spawn(move || {
                    let Ok(agent) = create_agent(home, cwd) else {
                        return;
                    };
                    for turn in 0.. {
                        if stop.load(Ordering::SeqCst) {
                            return;
                        }
                        let words = vec![
                            format!("r{round}-t{t}-{turn}-{pad}"),
                            format!("r{round}-t{t}-{turn}-end"),
                        ];
                        if send_and_wait(home, &agent, &words).is_err() {
                            return;
                        }
                        acked_items
                            .lock()
                            .unwrap()
                            .entry(agent.clone())
                            .or_default()
                            .extend(expected_items(&words));
                        acks.fetch_add(1, Ordering::SeqCst);
                    }
                });
            }
            // Bounded: a daemon that stopped acknowledging fails the test instead of hanging it.
            let deadline = std::time::Instant::now() + Duration::from_secs(60);
            while acks.load(Ordering::SeqCst) < 25 {
                assert!(
                    std::time::Instant::now() < deadline,
                    "the daemon acknowledged only {} writes in 60 s",
                    acks.load(Ordering::SeqCst)
                );
                std::thread::sleep(Duration::from_millis(5));
            }
            // SIGKILL with writes in flight: the clients see the connection drop and stop.
            daemon.kill();
            stop.store(true, Ordering::SeqCst);
        });
        // What a kill of an older version left besides (it wrote `.state.json.<pid>.tmp`).
        let dead = dead_pid();
        std::fs::write(home.path().join(format!(".state.json.{dead}.tmp")), &pad).unwrap();
        std::fs::write(
            home.path()
                .join(format!("timelines/.agent-1.jsonl.{dead}.7.tmp")),
            &pad,
        )
        .unwrap();
        let daemon = start(home.path(), &log);
        assert_eq!(
            temp_files(home.path()),
            Vec::<String>::new(),
            "round {round}"
        );
        assert_eq!(
            temp_files(&home.path().join("timelines")),
            Vec::<String>::new(),
            "round {round}"
        );
        let state: Value =
            serde_json::from_slice(&std::fs::read(home.path().join("state.json")).unwrap())
                .unwrap();
        for agent in acked_agents.lock().unwrap().iter() {
            assert!(
                state["agents"].get(agent).is_some(),
                "round {round}: acknowledged agent {agent} is missing"
            );
        }
        for (agent, items) in acked_items.lock().unwrap().iter() {
            let kept = timeline(&daemon, agent);
            // Everything acknowledged is there, in order; at most the turn the kill cut short follows.
            assert!(
                kept.len() >= items.len(),
                "round {round}: {agent} kept {} of {} items",
                kept.len(),
                items.len()
            );
            assert_eq!(
                &kept[..items.len()],
                &items[..],
                "round {round}: timeline of {agent}"
            );
        }
        daemon.stop();
    }
    let stderr = std::fs::read_to_string(&log).unwrap();
    assert!(!stderr.contains("cannot save"), "{stderr}");
}

#[test]
fn a_torn_last_journal_line_is_dropped_with_a_warning_and_the_daemon_starts() {
    let (home, work) = (tempfile::tempdir().unwrap(), tempfile::tempdir().unwrap());
    let log = work.path().join("daemon.log");
    let daemon = start(home.path(), &log);
    let agent = create_agent(home.path(), work.path()).unwrap();
    let words = vec!["kept".to_string()];
    send_and_wait(home.path(), &agent, &words).unwrap();
    daemon.stop();
    // What a kill in the middle of an append leaves.
    let journal = home.path().join("timelines").join(format!("{agent}.jsonl"));
    let torn = r#"{"seq":3,"item":{"type":"assistant_mess"#;
    std::fs::OpenOptions::new()
        .append(true)
        .open(&journal)
        .unwrap()
        .write_all(torn.as_bytes())
        .unwrap();
    let daemon = start(home.path(), &log);
    assert!(
        daemon.stderr().contains(&format!("dropped the torn last line of {} ({} bytes): the daemon stopped in the middle of appending it", journal.display(), torn.len())),
        "{}",
        daemon.stderr()
    );
    assert_eq!(timeline(&daemon, &agent), expected_items(&words));
    let more = vec!["after".to_string()];
    send_and_wait(home.path(), &agent, &more).unwrap();
    let daemon = daemon.restart();
    assert_eq!(
        timeline(&daemon, &agent),
        [expected_items(&words), expected_items(&more)].concat()
    );
    daemon.stop();
    assert_eq!(
        std::fs::read_to_string(&journal).unwrap().lines().count(),
        4
    );
}

#[test]
fn a_timeline_append_writes_one_journal_line_and_never_rewrites_state_json_nor_grows_the_answer() {
    let (home, work) = (tempfile::tempdir().unwrap(), tempfile::tempdir().unwrap());
    let daemon = start(home.path(), &work.path().join("daemon.log"));
    let agent = create_agent(home.path(), work.path()).unwrap();
    let state = home.path().join("state.json");
    let journal = home.path().join("timelines").join(format!("{agent}.jsonl"));
    let before = std::fs::metadata(&state).unwrap();
    let big = "y".repeat(10_000);
    let mut answer = Value::Null;
    for turn in 1..=60 {
        answer = daemon.call(
            "agent.send",
            json!({ "id": agent, "text": format!("say {turn}-{big}"), "wait": true }),
        );
        // One user message and one reply: two lines, whatever came before.
        assert_eq!(
            std::fs::read_to_string(&journal).unwrap().lines().count(),
            2 * turn
        );
    }
    let after = std::fs::metadata(&state).unwrap();
    assert_eq!(
        (after.ino(), after.len(), after.mtime(), after.mtime_nsec()),
        (
            before.ino(),
            before.len(),
            before.mtime(),
            before.mtime_nsec()
        )
    );
    // Nor does the answer to a turn grow with the history: it carries the latest 100 items.
    let items = answer["timeline"].as_array().unwrap();
    assert_eq!((items.len(), &answer["timelineLength"]), (100, &json!(120)));
    assert_eq!(
        items[0],
        json!({ "type": "user_message", "text": format!("say 11-{big}") })
    );
    assert_eq!(
        items[99],
        json!({ "type": "assistant_message", "text": format!("60-{big}") })
    );
    daemon.stop();
}

#[test]
fn an_old_state_json_with_timelines_inside_is_read_and_moved_into_journals() {
    let (home, work) = (tempfile::tempdir().unwrap(), tempfile::tempdir().unwrap());
    let items = vec![
        json!({ "type": "user_message", "text": "from an older version" }),
        json!({ "type": "assistant_message", "text": "still here" }),
    ];
    let old = json!({
        "agents": { "agent-1": { "id": "agent-1", "workspaceId": null, "provider": "scripted", "cwd": work.path(), "title": null,
            "labels": {}, "config": { "provider": "scripted", "cwd": work.path() }, "createdAt": "2025-01-01T00:00:00.000Z" } },
        "workspaces": {}, "timelines": { "agent-1": items }, "next_id": 1,
    });
    std::fs::write(home.path().join("state.json"), old.to_string()).unwrap();
    let daemon = start(home.path(), &work.path().join("daemon.log"));
    assert_eq!(timeline(&daemon, "agent-1"), items);
    let state: Value =
        serde_json::from_slice(&std::fs::read(home.path().join("state.json")).unwrap()).unwrap();
    assert_eq!(state.get("timelines"), None);
    assert_eq!(state["agents"]["agent-1"]["provider"], "scripted");
    assert_eq!(
        std::fs::read_to_string(home.path().join("timelines/agent-1.jsonl"))
            .unwrap()
            .lines()
            .count(),
        2
    );
    // Ids keep counting from where the old file left off.
    assert_eq!(create_agent(home.path(), work.path()).unwrap(), "agent-2");
    daemon.stop();
}

#[test]
fn a_corrupt_state_json_is_refused_with_a_message_that_says_how_to_recover() {
    let (home, work) = (tempfile::tempdir().unwrap(), tempfile::tempdir().unwrap());
    let state = home.path().join("state.json");
    // What an older version's torn write left.
    std::fs::write(
        &state,
        r#"{"agents":{},"workspaces":{},"next_id":3}"next_id":2}"#,
    )
    .unwrap();
    let out = paseo(home.path()).arg("daemon").output().unwrap();
    assert_eq!(out.status.code(), Some(2));
    let p = state.display();
    assert_eq!(
        String::from_utf8_lossy(&out.stderr).trim_end(),
        format!(
            "paseo: Cannot start: {p} is not valid JSON (trailing characters at line 1 column 42). It lists the daemon's agents and workspaces, so the daemon will not start over it; \
             restore it from a backup, or move it aside (mv {p} {p}.corrupt) to start with none (their timelines in {} stay)",
            home.path().join("timelines").display()
        )
    );
    // Nothing was touched: moving it aside, as the message says, starts the daemon.
    assert_eq!(
        std::fs::read_to_string(&state).unwrap(),
        r#"{"agents":{},"workspaces":{},"next_id":3}"next_id":2}"#
    );
    std::fs::rename(&state, home.path().join("state.json.corrupt")).unwrap();
    start(home.path(), &work.path().join("daemon.log")).stop();
}

#[test]
fn everything_the_daemon_creates_is_the_owners_alone() {
    let (parent, work) = (tempfile::tempdir().unwrap(), tempfile::tempdir().unwrap());
    let home = parent.path().join("new-home");
    let log = work.path().join("daemon.log");
    let daemon = start(&home, &log);
    std::fs::write(home.join("config.json"), r#"{ "pluginsEnabled": true }"#).unwrap();
    let daemon = daemon.restart();
    // sdk-user sets a secret and appends a plugin row, settings-counter writes a settings
    // document, data-dir writes into its data directory, all when an agent is created.
    for plugin in ["sdk-user", "settings-counter", "data-dir"] {
        daemon.call("plugin.install", json!({ "path": fixture(plugin) }));
    }
    let agent = create_agent(&home, work.path()).unwrap();
    let secrets = home.join("plugin-settings/sdk-user/_secrets.json");
    let counter = home.join("plugin-settings/settings-counter");
    let written = poll(Duration::from_secs(20), || {
        (secrets.exists() && counter.read_dir().unwrap().count() > 0).then_some(())
    });
    assert!(
        written.is_some(),
        "the plugins did not write: {}",
        daemon.stderr()
    );
    daemon.stop();

    let mut dirs = vec![home.clone()];
    let mut files = vec![];
    let mut bytecode = 0;
    while let Some(dir) = dirs.pop() {
        assert_eq!(mode(&dir), 0o700, "{}", dir.display());
        for entry in std::fs::read_dir(&dir).unwrap() {
            let path = entry.unwrap().path();
            if path.is_dir() {
                dirs.push(path);
            } else if path.starts_with(home.join("cache/quickjs-bytecode")) {
                // v8x writes these with the umask; the 0700 folders above keep them private.
                bytecode += 1;
            } else if path != home.join("daemon.sock") {
                files.push(path);
            }
        }
    }
    // The bytecode cache is QuickJS's (v8x); the V8 build keeps none.
    #[cfg(not(feature = "v8"))]
    assert!(bytecode > 0, "no bytecode was cached");
    #[cfg(feature = "v8")]
    assert_eq!(bytecode, 0);
    for file in &files {
        // What a plugin writes into its data directory with node:fs is its own (mode as in Node);
        // the 0700 folders above keep it private all the same.
        if !file.parent().unwrap().ends_with("data") {
            assert_eq!(mode(file), 0o600, "{}", file.display());
        }
    }
    let names: Vec<String> = files
        .iter()
        .map(|f| {
            f.strip_prefix(&home)
                .unwrap()
                .to_string_lossy()
                .into_owned()
        })
        .collect();
    for expected in [
        "config.json",
        "state.json",
        &format!("timelines/{agent}.jsonl"),
        "plugin-settings/sdk-user/_secrets.json",
        "plugin-settings/data-dir/data/seen.txt",
    ] {
        assert!(
            names.iter().any(|n| n == expected),
            "{expected} not in {names:?}"
        );
    }
    for dir in [
        "plugin-settings",
        "plugin-settings/sdk-user",
        "cache",
        "cache/quickjs-bytecode",
        "worktrees",
        "timelines",
    ] {
        assert_eq!(mode(&home.join(dir)), 0o700, "{dir}");
    }
    // sdk-user appended its row twice under one id: two journal lines, one item after a restart.
    let daemon = start(&home, &log);
    let rows: Vec<Value> = timeline(&daemon, &agent)
        .into_iter()
        .filter(|i| i["type"] == "plugin")
        .collect();
    assert_eq!(
        rows,
        [
            json!({ "type": "plugin", "id": "note", "kind": "note", "version": 1, "data": { "n": 2 }, "pluginId": "sdk-user" })
        ]
    );
    daemon.stop();
}

#[test]
fn a_home_others_may_write_to_is_left_as_it_is_with_a_warning() {
    let (home, work) = (tempfile::tempdir().unwrap(), tempfile::tempdir().unwrap());
    std::fs::set_permissions(home.path(), std::fs::Permissions::from_mode(0o777)).unwrap();
    let daemon = start(home.path(), &work.path().join("daemon.log"));
    let warning = format!("{} is writable by other users (mode 777): they could replace the daemon's state; run chmod 700 on it", home.path().display());
    assert!(daemon.stderr().contains(&warning), "{}", daemon.stderr());
    daemon.stop();
    assert_eq!(mode(home.path()), 0o777);
    assert_eq!(mode(&home.path().join("plugin-settings")), 0o700);
}
