//! The engine foundation, through the public API: real plugin folders load into isolates,
//! run TypeScript with their imports, and fail with Paseo's exact messages.

mod common;

use common::*;
use paseo_plugin_runtime::{HostOptions, PluginHost, PluginStatus, Stream};
use serde_json::json;
use std::time::Duration;

#[tokio::test(flavor = "multi_thread")]
async fn typescript_plugin_with_relative_imports_and_node_path_injects_env() {
    let host = host();
    load_all(&host, &["env-inject"]).await;
    let out = open(&host, open_request()).await.unwrap();
    assert_eq!(
        out["env"],
        json!({ "COMPANY_ENV": "development", "REGION": "eu", "CWD_BASE": "shop" })
    );
    assert_eq!(out["agentId"], "agent-123");
    let logs = log_lines(&host, "env-inject");
    assert_eq!(logs, ["[paseo] Loading plugin", "[paseo] Plugin ready"]);
    host.shutdown().await;
    assert_eq!(
        log_lines(&host, "env-inject")[2..],
        ["[paseo] Stopping plugin", "[paseo] Plugin stopped"]
    );
}

#[tokio::test(flavor = "multi_thread")]
async fn module_graph_edge_cases_load() {
    // Circular imports, `.js` naming a `.ts` file, JSON, an index file, an import in the
    // middle of the file and a re-export from the entry.
    let host = host();
    load_all(&host, &["modules-mix"]).await;
    let out = open(&host, open_request()).await.unwrap();
    assert_eq!(out["env"]["MIX"], "a>b<a|json-config|late");
}

#[tokio::test(flavor = "multi_thread")]
async fn zod_and_the_sdk_values_are_provided_by_the_host() {
    let host = host();
    load_all(&host, &["with-zod"]).await;
    let mut request = open_request();
    request["labels"]["kind"] = json!("b");
    let out = open(&host, request).await.unwrap();
    assert_eq!(out["env"]["ZOD"], "world:b");
    let info = host.plugin("with-zod").unwrap();
    // Registering settings auto-publishes their read/write/reset RPCs.
    assert_eq!(
        info.registrations.rpc,
        [
            "greet.say",
            "settings.preferences.read",
            "settings.preferences.reset",
            "settings.preferences.write"
        ]
    );
    assert_eq!(info.registrations.settings, ["preferences"]);
}

#[tokio::test(flavor = "multi_thread")]
async fn commonjs_dependency_from_node_modules() {
    let host = host();
    load_all(&host, &["cjs-dep"]).await;
    let out = open(&host, open_request()).await.unwrap();
    assert_eq!(out["env"]["CJS"], ".TS! 1.0.0");
    // Named exports that are reserved words in strict code, as Node's ESM import gives them.
    assert_eq!(out["env"]["RESERVED"], "static class eval arguments");
}

#[tokio::test(flavor = "multi_thread")]
async fn node_builtins_and_web_globals() {
    let dir = tempfile::tempdir().unwrap();
    let host = host();
    load_all(&host, &["node-builtins"]).await;
    let mut request = open_request();
    request["cwd"] = json!(dir.path());
    let out = open(&host, request).await.unwrap();
    assert_eq!(
        out["env"]["CHECKS"],
        "hello,6,evt,aGk=,url,home,n=5,env,1,uuid,é,1,exists,ENOENT"
    );
}

async fn load_error(name: &str) -> String {
    let host = host();
    let err = host.load(&fixture(name)).await.unwrap_err().to_string();
    if let Some(info) = host.plugin(name) {
        assert_eq!(info.status, PluginStatus::Failed);
        assert_eq!(info.error.as_deref(), Some(err.as_str()));
        let last = host.logs(name).last().cloned().unwrap();
        assert_eq!(last.stream, Stream::Stderr);
        assert_eq!(
            last.message,
            format!("[paseo] Plugin failed to load: {err}")
        );
    }
    err
}

#[tokio::test(flavor = "multi_thread")]
async fn load_errors_use_paseos_messages() {
    let dir = fixture("broken-manifest");
    assert_eq!(
        load_error("broken-manifest").await,
        format!(
            "Invalid plugin manifest {}/paseo-plugin.json: unknown key \"entry\"",
            dir.display()
        )
    );
    assert_eq!(
        load_error("async-contribute").await,
        "Plugin contribution must return a cleanup function"
    );
    // Paseo's compiler refuses it before anything runs (tests/paseo_runtime.rs has the rest).
    assert_eq!(
        load_error("no-default").await,
        "Plugin entry point must have exactly one default export function"
    );
    assert_eq!(load_error("throwing-top").await, "boom at load");
    assert_eq!(
        load_error("client-import").await,
        "client-only module cannot be imported into the plugin server bundle: client/ui.ts"
    );
    assert_eq!(
        load_error("old-entry").await,
        "This plugin was made for an older version of Paseo and cannot run on Paseo v0.8. Ask its author to update it. Plugin authors can follow the migration guide: https://paseo.sh/docs/plugins/migration"
    );
    let missing = tempfile::tempdir().unwrap();
    assert_eq!(
        host().load(missing.path()).await.unwrap_err().to_string(),
        format!(
            "Plugin manifest is missing: {}/paseo-plugin.json",
            missing.path().canonicalize().unwrap().display()
        )
    );
}

#[tokio::test(flavor = "multi_thread")]
async fn runaway_handler_is_terminated_and_the_plugin_answers_the_next_call() {
    let host = host_with_timeout(300);
    load_all(&host, &["runaway", "env-inject"]).await;
    let mut looping = open_request();
    looping["labels"] = json!({ "mode": "loop" });
    let started = std::time::Instant::now();
    let err = open(&host, looping).await.unwrap_err();
    assert_eq!(
        err,
        "Plugin runaway agent.open.before failed: Plugin RPC timed out: runaway.hook"
    );
    assert!(started.elapsed() < std::time::Duration::from_secs(5));
    // The same isolate serves the next call; the other plugin never noticed.
    let out = open(&host, open_request()).await.unwrap();
    assert_eq!(out["env"]["CALLS"], "2");
    assert_eq!(out["env"]["REGION"], "eu");
    assert_eq!(
        host.plugin("runaway").unwrap().status,
        PluginStatus::Running
    );
}

#[tokio::test(flavor = "multi_thread")]
async fn heap_bomb_is_stopped_and_marked_failed_without_harming_others() {
    let host = paseo_plugin_runtime::PluginHost::new(paseo_plugin_runtime::HostOptions {
        limits: paseo_plugin_runtime::Limits {
            heap_bytes: 32 * 1024 * 1024,
            ..Default::default()
        },
        ..Default::default()
    });
    load_all(&host, &["env-inject", "heap-bomb"]).await;
    let err = open(&host, open_request()).await.unwrap_err();
    assert_eq!(
        err,
        "Plugin heap-bomb agent.open.before failed: Plugin heap-bomb exceeded its heap limit of 32 MiB and was stopped"
    );
    let info = host.plugin("heap-bomb").unwrap();
    assert_eq!(info.status, PluginStatus::Failed);
    assert_eq!(
        info.error.as_deref(),
        Some("Plugin heap-bomb exceeded its heap limit of 32 MiB and was stopped")
    );
    // The failed plugin is skipped; the other keeps answering.
    let out = open(&host, open_request()).await.unwrap();
    assert_eq!(out["env"]["REGION"], "eu");
}

#[tokio::test(flavor = "multi_thread")]
async fn reload_picks_up_edited_source_and_keeps_the_log_tail() {
    let dir = tempfile::tempdir().unwrap();
    let write = |v: &str| {
        write_plugin(
            dir.path(),
            "edit-me",
            &format!("export default function (s: any) {{ s.addHook(\"agent.open.before\", async ({{ request }}: any) => ({{ ...request, env: {{ V: \"{v}\" }} }})); return () => console.log(\"cleanup {v}\"); }}"),
        )
    };
    write("one");
    let host = host();
    host.load(dir.path()).await.unwrap();
    assert_eq!(
        open(&host, open_request()).await.unwrap()["env"]["V"],
        "one"
    );
    write("two");
    host.reload("edit-me").await.unwrap();
    assert_eq!(
        open(&host, open_request()).await.unwrap()["env"]["V"],
        "two"
    );
    assert_eq!(
        log_lines(&host, "edit-me"),
        [
            "[paseo] Loading plugin",
            "[paseo] Plugin ready",
            "[paseo] Stopping plugin",
            "cleanup one",
            "[paseo] Plugin stopped",
            "[paseo] Loading plugin",
            "[paseo] Plugin ready",
        ]
    );
}

#[tokio::test(flavor = "multi_thread")]
async fn plugin_inspect_shows_registrations() {
    let home = tempfile::tempdir().unwrap();
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_paseo"))
        .env("PASEO_HOME", home.path())
        .args(["plugin", "inspect", "--json"])
        .arg(fixture("legacy-mixed"))
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let info: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(info["status"], "running");
    assert_eq!(
        info["registrations"]["hooks"],
        json!([
            { "hook": "agent.open.before", "via": "before", "as": "agent.session_open" },
            { "hook": "agent.open.before", "via": "addHook", "as": "agent.open.before" },
            { "hook": "agent.create.after", "via": "on", "as": "agent.created" },
        ])
    );
}

#[tokio::test(flavor = "multi_thread")]
async fn hook_run_command_prints_json_and_plugin_logs() {
    let home = tempfile::tempdir().unwrap();
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_paseo"))
        .env("PASEO_HOME", home.path())
        .args(["hook", "run", "--plugin"])
        .arg(fixture("env-inject"))
        .args(["agent.open.before", &open_request().to_string()])
        .output()
        .unwrap();
    assert!(out.status.success());
    let printed: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(printed["ok"], true);
    assert_eq!(printed["output"]["env"]["REGION"], "eu");
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        stderr.contains("[env-inject] [paseo] Plugin ready"),
        "{stderr}"
    );

    let out = std::process::Command::new(env!("CARGO_BIN_EXE_paseo"))
        .env("PASEO_HOME", home.path())
        .args(["hook", "run", "--plugin"])
        .arg(fixture("bad-return"))
        .args(["agent.open.before", &open_request().to_string()])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1));
    let printed: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(
        printed,
        json!({ "ok": false, "error": "Plugin bad-return agent.open.before failed: invalid request: env.PORT: 8080 is not of type \"string\"" })
    );
}

#[tokio::test(flavor = "multi_thread")]
async fn stack_traces_point_at_the_typescript_source() {
    let host = host();
    load_all(&host, &["stack-trace"]).await;
    let out = open(&host, open_request()).await.unwrap();
    let file = fixture("stack-trace").join("index.server.ts");
    // Line 5, column 9 of the .ts file: `throw new Error(...)` inside `explode`.
    assert_eq!(
        out["env"]["FRAME"],
        format!("at explode (file://{}:5:9)", file.display())
    );
}

#[tokio::test(flavor = "multi_thread")]
async fn globals_loaded_on_first_use_are_the_modules_plugins_import() {
    let host = host();
    load_all(&host, &["lazy-globals"]).await;
    let env = open(&host, open_request()).await.unwrap()["env"].clone();
    assert_eq!(
        env["lazyBefore"], "Buffer,fetch,TextEncoder,AbortController",
        "{env}"
    );
    for (key, want) in [
        ("bufferSame", "true"),
        ("buffer", "aGk="),
        ("encoder", "é"),
        ("fetchClasses", "true"),
        ("abort", "false"),
        ("utilSame", "true"),
        ("processEvents", "true"),
        ("assigned", "true"),
    ] {
        assert_eq!(env[key], want, "{key}: {env}");
    }
    assert!(
        log_lines(&host, "lazy-globals").contains(&"logged { n: 1 }".to_string()),
        "{:?}",
        log_lines(&host, "lazy-globals")
    );
}

#[tokio::test(flavor = "multi_thread")]
async fn every_builtin_loads_on_first_use_through_get_builtin_module_and_require() {
    let host = host();
    load_all(&host, &["builtins-on-first-use"]).await;
    let env = open(&host, open_request()).await.unwrap()["env"].clone();
    host.shutdown().await;
    assert!(
        env["count"].as_str().unwrap().parse::<usize>().unwrap() >= 30,
        "{env}"
    );
    for (key, want) in [
        ("evaluatedBefore", "false"),
        ("viaGet", ""),
        ("viaRequire", ""),
        ("same", "true"),
        ("zlib", "round trip"),
        ("unknown", "undefined"),
        (
            "unsupported",
            "process.getBuiltinModule(\"node:cluster\"): node:cluster is not supported by the Paseo plugin host yet",
        ),
    ] {
        assert_eq!(env[key], want, "{key}: {env}");
    }
}

#[tokio::test(flavor = "multi_thread")]
async fn process_becomes_an_event_emitter_on_first_use() {
    let host = host();
    load_all(&host, &["process-events"]).await;
    let env = open(&host, open_request()).await.unwrap()["env"].clone();
    for (key, want) in [
        ("plainBefore", "true"),
        ("got", "7"),
        ("emitted", "true"),
        ("isEmitter", "true"),
        ("count", "1"),
        ("builtin", "true"),
    ] {
        assert_eq!(env[key], want, "{key}: {env}");
    }
}

#[tokio::test(flavor = "multi_thread")]
async fn a_host_that_never_spins_answers_the_same() {
    let host = PluginHost::new(HostOptions {
        spin: Duration::ZERO,
        ..HostOptions::default()
    });
    load_all(&host, &["env-inject"]).await;
    let out = open(&host, open_request()).await.unwrap();
    assert_eq!(out["env"]["CWD_BASE"], "shop", "{out}");
}

// `formatCheckDuration` (`@getpaseo/plugin/server`) formats as Paseo's forge.ts does: whole
// seconds, minutes past 60 (no hours), nothing without a start after the epoch and a later end.
#[tokio::test(flavor = "multi_thread")]
async fn format_check_duration_formats_as_paseos_does() {
    let host = host();
    load_all(&host, &["check-duration"]).await;
    let out = open(&host, open_request()).await.unwrap();
    assert_eq!(
        out["env"]["DURATIONS"],
        "undefined|undefined|undefined|undefined|45s|2m 5s|123m 4s|0s|undefined|undefined|undefined|undefined"
    );
}

// Values published plugins import from Paseo's packages (`defineAttachmentSource`, the forge
// toolkit's errors and helpers, `@getpaseo/protocol/agent-labels`) and a manifest of Paseo
// 0.11+ (`name`, `icon`) load and behave as Paseo's own.
#[tokio::test(flavor = "multi_thread")]
async fn the_runtime_values_of_paseos_packages_that_published_plugins_import() {
    let host = host();
    load_all(&host, &["published-imports"]).await;
    let mut request = open_request();
    request["labels"] = serde_json::json!({ "paseo.parent-agent-id": " agent-7 " });
    let out = open(&host, request).await.unwrap();
    let r: serde_json::Value =
        serde_json::from_str(out["env"]["RESULT"].as_str().unwrap()).unwrap();
    assert_eq!(
        r,
        serde_json::json!({
            "source": "issues",
            "parent": "agent-7",
            "delegated": true,
            "label": "paseo.parent-agent-id",
            "auth": [true, "Error", "auth-failure", "gh auth failed", "token expired", "kind"],
            "command": ["GitHub CLI command failed: gh", "command-error", 1, "pr list", "kind,exitCode"],
            "missing": "missing-cli",
            "methods": 18,
            "checks": ["none", "pending"],
            "order": "cab",
            "kinds": ["change_request", "issue"],
            "time": [0, 1000],
            "unavailable": { "items": [], "featuresEnabled": false, "authState": "unauthenticated", "githubFeaturesEnabled": false },
        })
    );
    assert_eq!(
        host.rpc_methods("published-imports").unwrap(),
        ["issues.search"]
    );
    let err = host
        .load(&fixture("imports-missing-protocol"))
        .await
        .unwrap_err()
        .to_string();
    assert!(
        err.starts_with("Cannot find module '@getpaseo/protocol/messages' imported from ")
            && err.ends_with(": this Paseo plugin host provides @getpaseo/plugin, @getpaseo/plugin/server and @getpaseo/protocol/agent-labels; install other packages in the plugin"),
        "{err}"
    );
}

// Minified dependencies (one line longer than transpile::LONG_LINE, which QuickJS parses in
// quadratic time) are re-emitted over many lines before they run, and behave the same:
// tests/fixtures/minified-deps/shared/probe.mjs runs in the plugin and under node, which loads
// the same packages unchanged, and what each computed must be the same.
#[tokio::test(flavor = "multi_thread")]
async fn minified_dependencies_run_unchanged() {
    let dir = fixture("minified-deps");
    let node = under_node(&format!(
        "const {{ createRequire }} = await import('node:module'), {{ pathToFileURL }} = await import('node:url');\n\
         const require = createRequire({:?});\n\
         const load = (name) => import(pathToFileURL(require.resolve(name)));\n\
         const {{ probe }} = await import({:?});\n\
         console.log(JSON.stringify(probe((await load('min-cjs')).default, await load('min-esm'))));",
        dir.join("index.server.ts").display().to_string(),
        dir.join("shared/probe.mjs").display().to_string(),
    ));
    let without = |mut v: serde_json::Value| {
        // differs from node: a stack frame in a CommonJS module (any, minified or not) names
        // paseo:internal/cjs:<line>:<column> where Node's names the module's file
        // (node_modules/min-cjs/index.js:1:<column>), see issue
        v.as_object_mut().unwrap().remove("frameInPackage");
        v
    };
    let ours = plugin_result("minified-deps").await;
    assert_same_as_node(&without(ours), &without(node));
}

/// `PluginHost::stats`: every call counted where it settles, by kind and name, with how it
/// ended; the heap and CPU of the isolate; counts kept across a reload.
#[tokio::test(flavor = "multi_thread")]
async fn stats_count_calls_by_kind_and_outcome_and_survive_a_reload() {
    let host = std::sync::Arc::new(host_with_timeout(300));
    load_all(&host, &["stats"]).await;
    for _ in 0..20 {
        assert_eq!(
            host.call_rpc("stats", "ping", json!({})).await.unwrap(),
            "pong"
        );
    }
    for _ in 0..3 {
        let error = host.call_rpc("stats", "fail", json!({})).await.unwrap_err();
        assert_eq!(error.to_string(), "asked to fail");
    }
    let error = host.call_rpc("stats", "hang", json!({})).await.unwrap_err();
    assert_eq!(error.to_string(), "Plugin RPC timed out: stats.invoke");
    host.call_rpc("stats", "keep", json!({ "mb": 8 }))
        .await
        .unwrap();
    let event = json!({ "agent": agent(), "turnId": "1", "outcome": { "kind": "completed" }, "timeline": [] });
    for _ in 0..5 {
        host.notify_json("agent.turn.after", event.clone());
    }
    host.notifications_settled().await;

    let report = host.stats(Some("stats")).await.unwrap();
    assert_eq!(report.len(), 1);
    let r = &report[0];
    assert_eq!((r.id.as_str(), r.status), ("stats", PluginStatus::Running));
    assert_eq!(r.engine, paseo_plugin_runtime::engine::backend::NAME);
    let calls = |kind: &str, name: &str| {
        r.calls
            .iter()
            .find(|c| c.kind == kind && c.name == name)
            .unwrap_or_else(|| panic!("no {kind} {name} in {:#?}", r.calls))
            .clone()
    };
    let ping = calls("rpc", "ping");
    assert_eq!((ping.count, ping.errors, ping.timeouts), (20, 0, 0));
    assert!(0 < ping.p50_us && ping.p50_us <= ping.p99_us && ping.p99_us <= ping.max_us);
    let fail = calls("rpc", "fail");
    assert_eq!((fail.count, fail.errors, fail.timeouts), (3, 3, 0));
    let hang = calls("rpc", "hang");
    assert_eq!((hang.count, hang.errors, hang.timeouts), (1, 0, 1));
    assert!(hang.max_us >= 300_000, "{hang:?}");
    assert_eq!(calls("hook", "agent.turn.after").count, 5);
    assert_eq!(calls("load", "").count, 1);
    assert_eq!(r.notifications.delivered, 5);
    assert_eq!((r.notifications.held, r.notifications.dropped), (0, 0));
    // 8 MiB kept alive by the plugin is in the heap it reports, under its cap.
    let used = r.heap_used_bytes.unwrap();
    assert!(used >= 8 << 20, "{r:?}");
    assert!(used <= r.heap_total_bytes.unwrap());
    assert_eq!(
        r.heap_limit_bytes,
        paseo_plugin_runtime::Limits::default().heap_bytes as u64
    );
    assert!(
        r.cpu_ms > 0.0 && r.uptime_ms.is_some() && r.reloads == 0,
        "{r:?}"
    );

    // A reload: the counts go on, the old isolate's CPU time with them.
    host.reload("stats").await.unwrap();
    host.call_rpc("stats", "ping", json!({})).await.unwrap();
    let after = &host.stats(None).await.unwrap()[0];
    assert_eq!(after.reloads, 1);
    assert!(after.cpu_ms >= r.cpu_ms, "{} < {}", after.cpu_ms, r.cpu_ms);
    let find = |kind: &str, name: &str| {
        after
            .calls
            .iter()
            .find(|c| c.kind == kind && c.name == name)
            .unwrap()
            .count
    };
    assert_eq!(
        (find("rpc", "ping"), find("load", ""), find("stop", "")),
        (21, 2, 1)
    );

    // Stopped: counted still, with no isolate to measure.
    host.stop("stats").await.unwrap();
    let stopped = &host.stats(Some("stats")).await.unwrap()[0];
    assert_eq!(stopped.status, PluginStatus::Disabled);
    assert_eq!((stopped.uptime_ms, stopped.heap_used_bytes), (None, None));
    assert_eq!(
        stopped
            .calls
            .iter()
            .find(|c| c.name == "ping")
            .unwrap()
            .count,
        21
    );

    let unknown = host.stats(Some("nope")).await.unwrap_err();
    assert_eq!(unknown.to_string(), "Plugin is not configured: nope");
    host.shutdown().await;
}

/// A plugin paused by its debugger is not timed out for it: the time a debugger holds the
/// isolate does not count against the hook's deadline (1 s here, paused 2 s), and the hook
/// answers once the debugger resumes it. V8's inspector, through `PluginHost::debug_connect`.
#[cfg(feature = "v8")]
#[tokio::test(flavor = "multi_thread")]
async fn a_plugin_paused_in_its_debugger_keeps_its_deadline() {
    use paseo_plugin_runtime::engine::debugger::DebugSession;
    use paseo_plugin_runtime::InspectOptions;

    /// The next message that contains `what`.
    async fn until(session: &mut DebugSession, what: &str) -> String {
        loop {
            let message = tokio::time::timeout(Duration::from_secs(10), session.recv())
                .await
                .unwrap_or_else(|_| panic!("no {what} within 10 s"))
                .expect("the isolate went");
            if message.contains(what) {
                return message;
            }
        }
    }

    let host = std::sync::Arc::new(PluginHost::new(HostOptions {
        limits: paseo_plugin_runtime::Limits {
            hook_timeout: Duration::from_secs(1),
            ..Default::default()
        },
        inspect: Some(InspectOptions::default()),
        ..HostOptions::default()
    }));
    load_all(&host, &["debug-target"]).await;
    let targets = host.debug_targets();
    assert_eq!(targets.len(), 1);
    assert!(targets[0].url.ends_with("/debug-target/index.server.ts"));

    let mut session = host.debug_connect("debug-target").unwrap();
    let send = |session: &DebugSession, id: u32, method: &str| {
        assert!(session.send(json!({ "id": id, "method": method, "params": {} }).to_string()));
    };
    send(&session, 1, "Debugger.enable");
    until(&mut session, r#""id":1"#).await;
    // Stops at the next statement the isolate runs: the hook's.
    send(&session, 2, "Debugger.pause");
    let hook = {
        let host = host.clone();
        tokio::spawn(async move { open(&host, open_request()).await })
    };
    until(&mut session, r#""method":"Debugger.paused""#).await;
    tokio::time::sleep(Duration::from_secs(2)).await;
    send(&session, 3, "Debugger.resume");
    until(&mut session, r#""method":"Debugger.resumed""#).await;
    let answered = tokio::time::timeout(Duration::from_secs(10), hook)
        .await
        .expect("the hook answers after the debugger resumes")
        .unwrap();
    // Nothing was terminated for the pause.
    assert_eq!(
        log_lines(&host, "debug-target"),
        [
            "[paseo] Loading plugin",
            "[paseo] Plugin ready",
            "opening /projects/shop"
        ]
    );
    assert_eq!(answered.unwrap()["env"]["DEBUGGED"], "yes");
    drop(session);
    host.shutdown().await;
}
