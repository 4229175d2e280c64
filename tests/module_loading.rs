//! Module graphs a dependency can bring: import cycles loaded partly from QuickJS's bytecode
//! cache and partly from source, a torn cache, an import after a regular expression holding
//! `/*`, and Node's rules for a file's module type and a package's entry.
//!
//! QuickJS's bytecode cache is the process's (v8x reads its folder once), so the cache tests run
//! the `paseo` binary, each run with a home of the test's own, as the daemon and the CLI use it.

// The bytecode-cache helpers serve only the QuickJS tests.
#![cfg_attr(feature = "v8", allow(dead_code))]

mod common;
mod skip;

use std::path::{Path, PathBuf};
use std::process::Command;

use common::*;
use serde_json::{json, Value};

const RING: &[&str] = &["index.js", "send.js", "strict.js", "validate.js"];

/// A copy of a fixture folder in `dir` (fixtures are not written to).
fn copy_tree(from: &Path, to: &Path) {
    std::fs::create_dir_all(to).unwrap();
    for entry in std::fs::read_dir(from).unwrap().flatten() {
        let target = to.join(entry.file_name());
        if entry.file_type().unwrap().is_dir() {
            copy_tree(&entry.path(), &target);
        } else {
            std::fs::copy(entry.path(), &target).unwrap();
        }
    }
}

/// `paseo hook run` on the plugin with `home` as PASEO_HOME: the exit status and the JSON
/// answer on stdout.
fn hook_run(home: &Path, plugin: &Path) -> (Option<i32>, String, String) {
    let out = Command::new(env!("CARGO_BIN_EXE_paseo"))
        .env("PASEO_HOME", home)
        .env_remove("V82JSC_BC_CACHE_DIR")
        .env_remove("V82JSC_NO_BC_CACHE")
        .args(["hook", "run", "--plugin"])
        .arg(plugin)
        .args(["agent.open.before", &open_request().to_string()])
        .output()
        .unwrap();
    (
        out.status.code(),
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

fn assert_ring_answers(run: (Option<i32>, String, String), what: &str) {
    let (code, stdout, stderr) = run;
    assert_eq!(
        code,
        Some(0),
        "{what}: exit {code:?} (None: killed by a signal)\nstdout: {stdout}\nstderr: {stderr}"
    );
    let answer: Value = serde_json::from_str(stdout.trim()).unwrap();
    assert_eq!(
        answer["output"]["env"]["RING"],
        json!("HI:send>HI:strict"),
        "{what}: {stdout}"
    );
}

fn cache_files(home: &Path) -> Vec<PathBuf> {
    match std::fs::read_dir(home.join("cache/quickjs-bytecode")) {
        Ok(dir) => dir.flatten().map(|e| e.path()).collect(),
        Err(_) => Vec::new(),
    }
}

fn ring_dir(plugin: &Path) -> PathBuf {
    plugin.join("node_modules/ring/lib")
}

/// Every mix of cached and uncached modules in an import cycle (send ↔ strict ↔ validate):
/// the cache is warmed with the whole graph, then each subset of its modules is changed (a
/// changed module's cache entry no longer fits, so it compiles from source while the rest comes
/// from the cache), the plugin loaded, and the files put back. Before the fix, loading with
/// only `send.js` uncached killed the process with SIGSEGV.
// QuickJS only: V8 keeps no bytecode on disk (its code caches live in memory,
// tests/code_cache.rs).
#[cfg(not(feature = "v8"))]
#[test]
fn import_cycles_load_under_every_mix_of_cached_and_uncached_modules() {
    let root = tempfile::tempdir().unwrap();
    let home = root.path().join("home");
    let plugin = root.path().join("cycle-cache");
    copy_tree(&fixture("cycle-cache"), &plugin);
    let originals: Vec<String> = RING
        .iter()
        .map(|f| std::fs::read_to_string(ring_dir(&plugin).join(f)).unwrap())
        .collect();

    assert_ring_answers(hook_run(&home, &plugin), "cold cache");
    assert_ring_answers(hook_run(&home, &plugin), "warm cache");
    for mask in 1u32..(1 << RING.len()) {
        let changed: Vec<&str> = (0..RING.len())
            .filter(|i| mask & (1 << i) != 0)
            .map(|i| RING[i])
            .collect();
        for (i, file) in RING.iter().enumerate() {
            let mut text = originals[i].clone();
            if changed.contains(file) {
                text.push_str(&format!("// edit {mask}\n"));
            }
            std::fs::write(ring_dir(&plugin).join(file), text).unwrap();
        }
        assert_ring_answers(hook_run(&home, &plugin), &format!("uncached: {changed:?}"));
    }
}

/// Cache entries that were removed one at a time, as the issue's reproduction did with execa
/// (`rm` of the entry for `send.js`), and entries torn or overwritten with junk: each load
/// answers, none crashes.
#[cfg(not(feature = "v8"))]
#[test]
fn a_partial_or_torn_bytecode_cache_never_crashes_a_load() {
    let root = tempfile::tempdir().unwrap();
    let home = root.path().join("home");
    let plugin = root.path().join("cycle-cache");
    copy_tree(&fixture("cycle-cache"), &plugin);
    assert_ring_answers(hook_run(&home, &plugin), "cold cache");
    let entries = cache_files(&home);
    assert!(!entries.is_empty(), "the run left a bytecode cache");
    for (n, entry) in entries.iter().enumerate() {
        // Warm everything again, then lose exactly this entry.
        assert_ring_answers(hook_run(&home, &plugin), "warm cache");
        let _ = std::fs::remove_file(entry);
        assert_ring_answers(hook_run(&home, &plugin), &format!("entry {n} removed"));
    }
    for (n, entry) in cache_files(&home).iter().enumerate() {
        let bytes = std::fs::read(entry).unwrap();
        match n % 3 {
            0 => std::fs::write(entry, &bytes[..bytes.len() / 2]).unwrap(),
            1 => std::fs::write(entry, vec![0xa5u8; bytes.len()]).unwrap(),
            _ => {
                let mut flipped = bytes.clone();
                let at = flipped.len() * 2 / 3;
                flipped[at] ^= 0xff;
                std::fs::write(entry, flipped).unwrap()
            }
        }
    }
    assert_ring_answers(hook_run(&home, &plugin), "torn entries");
    assert_ring_answers(hook_run(&home, &plugin), "after the torn run");
}

/// An import after a regular expression holding `/*` (tar@7), reached by a dynamic import:
/// QuickJS's import scanner read the `/*` as a comment and missed the import, and deno_core
/// panicked linking the module ("Plugin stopped").
#[tokio::test(flavor = "multi_thread")]
async fn an_import_after_a_regular_expression_holding_a_comment_opener_loads() {
    let host = host();
    host.load(&fixture("regex-before-import")).await.unwrap();
    let out = open(&host, open_request()).await.unwrap();
    assert_eq!(out["env"]["TRIMMED"], "/a/b/");
    // And again: the module is linked once, the second call takes it from the map.
    let out = open(&host, open_request()).await.unwrap();
    assert_eq!(out["env"]["TRIMMED"], "/a/b/");
}

/// Node's rules, on packages laid out as `domutils`, `signal-exit` and `css-what` are: the
/// nearest package.json gives a `.js` file its type, and a package's entry comes from `exports`
/// or `main`, never the bundler-only `module` field. The expected values are Node's (the same
/// probe under `node` below).
#[tokio::test(flavor = "multi_thread")]
async fn module_types_and_entries_follow_node() {
    let host = host();
    host.load(&fixture("module-types")).await.unwrap();
    let out = open(&host, open_request()).await.unwrap();
    let env = &out["env"];
    let ours = json!({ "DOM": env["DOM"], "EXIT": env["EXIT"], "WHAT": env["WHAT"] });

    let probe = r#"
const d = await import("dom-like"); const e = await import("exit-like");
const w = (await import("what-like")).default;
console.log(JSON.stringify({ DOM: `${d.kind}/${d.outer()}`, EXIT: `${e.flavour}/${e.onExit()}`, WHAT: `${w.flavour}` }));
"#;
    let dir = tempfile::tempdir().unwrap();
    copy_tree(&fixture("module-types"), dir.path());
    std::fs::write(dir.path().join("probe.mjs"), probe).unwrap();
    let node = match Command::new("node")
        .arg("probe.mjs")
        .current_dir(dir.path())
        .output()
    {
        Ok(out) => out,
        Err(e) if std::env::var_os("CI").is_none() => {
            skip::skipped(
                "module_types_and_entries_follow_node (under node)",
                &e.to_string(),
            );
            assert_eq!(
                ours,
                json!({ "DOM": "esm/esm-outer", "EXIT": "mjs/mjs-exit+cjs", "WHAT": "main" })
            );
            return;
        }
        Err(e) => panic!("node is needed on CI: {e}"),
    };
    assert!(
        node.status.success(),
        "{}",
        String::from_utf8_lossy(&node.stderr)
    );
    let theirs: Value = serde_json::from_slice(&node.stdout).unwrap();
    assert_eq!(
        theirs,
        json!({ "DOM": "esm/esm-outer", "EXIT": "mjs/mjs-exit+cjs", "WHAT": "main" })
    );
    assert_eq!(ours, theirs);
}
