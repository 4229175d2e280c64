//! The store's tests: atomic writes, snapshots, journals, the move of old timelines, the start
//! over a corrupt or interrupted home.

use std::collections::BTreeMap;
use std::io::Write;

use serde_json::{json, Value};

use paseo_plugin_runtime::private_files::write_atomic;

use super::timelines::journal_file_name;
use super::*;

fn store() -> (tempfile::TempDir, Store) {
    let home = tempfile::tempdir().unwrap();
    let store = Store::open(home.path().to_path_buf()).unwrap();
    (home, store)
}

/// A store whose saved state holds one agent.
fn store_with_agent(id: &str) -> (tempfile::TempDir, Store) {
    let (home, store) = store();
    let mut state = State::default();
    state.agents.insert(id.into(), agent(id));
    store.write_state(store.snapshot(&state));
    (home, store)
}

fn reopen(home: &tempfile::TempDir) -> (Store, State) {
    let store = Store::open(home.path().to_path_buf()).unwrap();
    let state = store.load_state().unwrap();
    (store, state)
}

fn agent(id: &str) -> AgentRecord {
    AgentRecord {
        id: id.into(),
        workspace_id: None,
        provider: "scripted".into(),
        cwd: "/".into(),
        title: None,
        labels: BTreeMap::new(),
        config: json!({}),
        created_at: "now".into(),
        archived_at: None,
    }
}

fn lines(path: &Path) -> Vec<String> {
    std::fs::read_to_string(path)
        .unwrap()
        .lines()
        .map(str::to_string)
        .collect()
}

fn mode(path: &Path) -> u32 {
    std::fs::metadata(path).unwrap().permissions().mode() & 0o777
}

/// A pid no process has: one of a child that has been reaped.
fn dead_pid() -> u32 {
    let mut child = std::process::Command::new("true").spawn().unwrap();
    let pid = child.id();
    child.wait().unwrap();
    pid
}

#[test]
fn concurrent_atomic_writes_of_one_file_never_collide_nor_tear() {
    let (home, _store) = store();
    let path = home.path().join("state.json");
    std::thread::scope(|s| {
        for t in 0..8 {
            let path = &path;
            s.spawn(move || {
                for i in 0..50 {
                    let body = serde_json::to_vec(
                        &json!({ "writer": t, "i": i, "pad": "x".repeat(20_000) }),
                    )
                    .unwrap();
                    write_atomic(path, &body).unwrap();
                    // A reader in the middle of it all sees a whole file.
                    serde_json::from_slice::<Value>(&std::fs::read(path).unwrap()).unwrap();
                }
            });
        }
    });
    assert_eq!(mode(&path), 0o600);
    let left: Vec<_> = std::fs::read_dir(home.path())
        .unwrap()
        .map(|e| e.unwrap().file_name().into_string().unwrap())
        .filter(|n| n.ends_with(".tmp"))
        .collect();
    assert_eq!(left, Vec::<String>::new());
}

#[test]
fn an_older_snapshot_never_lands_over_a_newer_one() {
    let (_home, store) = store();
    let mut state = State {
        next_id: 1,
        ..State::default()
    };
    let older = store.snapshot(&state);
    state.next_id = 2;
    let newer = store.snapshot(&state);
    store.write_state(newer);
    store.write_state(older);
    assert_eq!(store.load_state().unwrap().next_id, 2);
}

#[test]
fn timelines_are_journals_that_grow_one_line_per_item_and_leave_state_json_alone() {
    let (home, store) = store_with_agent("agent-1");
    let before = std::fs::read(store.state_path()).unwrap();
    for n in 1..=3 {
        assert_eq!(
            store.push_timeline("agent-1", json!({ "type": "assistant_message", "text": n })),
            Ok(n)
        );
        assert_eq!(lines(&store.journal_path("agent-1")).len(), n);
    }
    assert_eq!(std::fs::read(store.state_path()).unwrap(), before);
    let line: Value = serde_json::from_str(&lines(&store.journal_path("agent-1"))[2]).unwrap();
    assert_eq!(
        line,
        json!({ "seq": 3, "item": { "type": "assistant_message", "text": 3 } })
    );
    // A replaced row is one more line; replaying gives the replaced item in its place.
    let replaced = store.edit_timeline("agent-1", |items| {
        items[1] = json!({ "type": "plugin", "id": "p" });
        Ok::<_, String>(2)
    });
    assert_eq!(replaced, Ok(Ok(2)));
    assert_eq!(lines(&store.journal_path("agent-1")).len(), 4);
    let refused = store.edit_timeline("agent-1", |_| Err::<usize, _>("no".to_string()));
    assert_eq!(refused, Err("no".to_string()));
    let (store, _) = reopen(&home);
    assert_eq!(
        store.timeline("agent-1"),
        [
            json!({ "type": "assistant_message", "text": 1 }),
            json!({ "type": "plugin", "id": "p" }),
            json!({ "type": "assistant_message", "text": 3 })
        ]
    );
    assert_eq!(mode(&store.journal_path("agent-1")), 0o600);
    assert_eq!(mode(&home.path().join("timelines")), 0o700);
}

#[test]
fn a_torn_last_line_is_dropped_and_the_next_append_starts_a_line_of_its_own() {
    let (home, store) = store_with_agent("agent-1");
    store
        .push_timeline("agent-1", json!({ "type": "user_message", "text": "kept" }))
        .unwrap();
    let path = store.journal_path("agent-1");
    drop(store);
    std::fs::OpenOptions::new()
        .append(true)
        .open(&path)
        .unwrap()
        .write_all(br#"{"seq":2,"item":{"type":"user_mes"#)
        .unwrap();
    let (store, _) = reopen(&home);
    assert_eq!(
        store.timeline("agent-1"),
        [json!({ "type": "user_message", "text": "kept" })]
    );
    assert_eq!(
        store.push_timeline("agent-1", json!({ "type": "user_message", "text": "next" })),
        Ok(2)
    );
    let (store, _) = reopen(&home);
    assert_eq!(store.timeline("agent-1").len(), 2);
    assert_eq!(lines(&path).len(), 2);
}

#[test]
fn timelines_inside_an_old_state_json_move_into_journals() {
    let home = tempfile::tempdir().unwrap();
    let old = json!({
        "agents": { "agent-1": agent("agent-1") }, "workspaces": {}, "next_id": 7,
        "timelines": { "agent-1": [{ "type": "user_message", "text": "hi" }, { "type": "assistant_message", "text": "hello" }] },
    });
    std::fs::write(home.path().join("state.json"), old.to_string()).unwrap();
    let (store, state) = reopen(&home);
    assert_eq!((state.next_id, state.agents.len()), (7, 1));
    assert_eq!(store.timeline("agent-1").len(), 2);
    assert_eq!(lines(&store.journal_path("agent-1")).len(), 2);
    let saved: Value = serde_json::from_slice(&std::fs::read(store.state_path()).unwrap()).unwrap();
    assert_eq!(saved.get("timelines"), None);
    assert_eq!(saved["next_id"], 7);
    let (store, _) = reopen(&home);
    assert_eq!(
        store.timeline("agent-1")[1],
        json!({ "type": "assistant_message", "text": "hello" })
    );
}

#[test]
fn a_corrupt_state_json_stops_the_start_with_how_to_recover() {
    let home = tempfile::tempdir().unwrap();
    let path = home.path().join("state.json");
    std::fs::write(&path, r#"{"agents":{}}{"agents""#).unwrap();
    let store = Store::open(home.path().to_path_buf()).unwrap();
    let p = path.display();
    assert_eq!(
        store.load_state().err().unwrap(),
        format!(
            "Cannot start: {p} is not valid JSON (trailing characters at line 1 column 14). It lists the daemon's agents and workspaces, so the daemon will not start over it; \
             restore it from a backup, or move it aside (mv {p} {p}.corrupt) to start with none (their timelines in {} stay)",
            home.path().join("timelines").display()
        )
    );
    assert_eq!(
        std::fs::read_to_string(&path).unwrap(),
        r#"{"agents":{}}{"agents""#
    );
}

#[test]
fn opening_removes_only_the_temp_files_of_dead_writers() {
    let home = tempfile::tempdir().unwrap();
    let dead = dead_pid();
    let settings = home.path().join("plugin-settings/notes");
    std::fs::create_dir_all(&settings).unwrap();
    let stale = [
        home.path().join(format!(".state.json.{dead}.3.tmp")),
        home.path().join(format!(".state.json.{dead}.tmp")),
        home.path()
            .join(format!("timelines/.agent-1.jsonl.{dead}.0.tmp")),
        settings.join(format!("._secrets.json.{dead}.1.tmp")),
    ];
    let kept = [
        home.path().join(format!(
            ".state.json.{}.0.tmp",
            std::os::unix::process::parent_id()
        )),
        home.path().join(".notes.tmp"),
        home.path().join("cache/quickjs-bytecode/00ff.tmp"),
        settings.join("prefs.json"),
    ];
    std::fs::create_dir_all(home.path().join("timelines")).unwrap();
    std::fs::create_dir_all(home.path().join("cache/quickjs-bytecode")).unwrap();
    for file in stale.iter().chain(&kept) {
        std::fs::write(file, "x").unwrap();
    }
    Store::open(home.path().to_path_buf()).unwrap();
    for file in &stale {
        assert!(!file.exists(), "{} was left", file.display());
    }
    for file in &kept {
        assert!(file.exists(), "{} was removed", file.display());
    }
    // Folders older versions made 0755 are the daemon's: taken back to 0700.
    for dir in PRIVATE_DIRS
        .iter()
        .map(|d| home.path().join(d))
        .chain([settings])
    {
        assert_eq!(mode(&dir), 0o700, "{}", dir.display());
    }
}

#[test]
fn an_agent_id_that_is_not_a_plain_file_name_never_reaches_a_path() {
    assert_eq!(journal_file_name("agent-12"), "agent-12.jsonl");
    for id in [
        "../../escape",
        "..",
        ".",
        "",
        ".hidden",
        "a/b",
        &"x".repeat(5000),
        "caf\u{e9}",
    ] {
        let name = journal_file_name(id);
        assert!(
            name.starts_with('~') && name.len() == 71 && !name.contains('/'),
            "{id:?} → {name}"
        );
    }
    assert_ne!(journal_file_name("../a"), journal_file_name("../b"));
}
