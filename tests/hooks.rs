//! The hook contract through real plugins: ordering, both API generations, accumulation rules,
//! validation and failure texts.

mod common;

use common::*;
use paseo_plugin_runtime::OpenContext;
use serde_json::json;

#[tokio::test(flavor = "multi_thread")]
async fn legacy_and_new_registrations_run_in_registration_order_and_removers_are_idempotent() {
    let host = host();
    load_all(&host, &["legacy-mixed"]).await;
    let out = open(&host, open_request()).await.unwrap();
    assert_eq!(out["env"]["ORDER"], "old,new");
    assert!(out["env"].get("STALE").is_none());
    let deprecation: Vec<_> = log_lines(&host, "legacy-mixed")
        .into_iter()
        .filter(|l| l.contains("deprecated"))
        .collect();
    assert_eq!(
        deprecation,
        ["[paseo] server.on and server.before are deprecated and will be removed after 2027-04-30; use server.addHook(\"agent.open.before\") instead of server.before(\"agent.session_open\")"]
    );
    host.run_hook(
        "agent.create.after",
        json!({ "agent": agent() }),
        &OpenContext::default(),
    )
    .await
    .unwrap();
    assert!(log_lines(&host, "legacy-mixed").contains(&"created agent-123".to_string()));
}

#[tokio::test(flavor = "multi_thread")]
async fn mutating_the_request_in_place_and_returning_it_works() {
    let host = host();
    load_all(&host, &["mutate-in-place"]).await;
    let out = open(&host, open_request()).await.unwrap();
    assert_eq!(out["env"]["MUTATED"], "yes");
    assert_eq!(
        out["env"].get("IGNORED"),
        None,
        "a handler that returns nothing changes nothing: {out}"
    );
}

#[tokio::test(flavor = "multi_thread")]
async fn mutating_the_request_without_returning_it_changes_nothing() {
    let host = host();
    load_all(&host, &["mutate-only"]).await;
    let request = open_request();
    let out = open(&host, request.clone()).await.unwrap();
    assert_eq!(out, request);
}

#[tokio::test(flavor = "multi_thread")]
async fn unknown_hook_names_fail_registration() {
    let err = host()
        .load(&fixture("unknown-hook"))
        .await
        .unwrap_err()
        .to_string();
    assert_eq!(err, "Unknown hook: agent.created (server.addHook takes the new names: use \"agent.create.after\")");
}

#[tokio::test(flavor = "multi_thread")]
async fn request_hooks_compose_and_the_first_invalid_result_stops_the_chain() {
    let host = host();
    // chain-title's third handler returns an invalid result for "/bad"; chain-zz-later comes
    // after it (plugins run in ID order).
    load_all(&host, &["chain-title", "chain-zz-later"]).await;
    let request = json!({ "source": { "kind": "directory", "path": "/projects/shop" } });
    let out = host
        .run_hook("workspace.create.before", request, &OpenContext::default())
        .await
        .unwrap();
    assert_eq!(out["title"], "first:second:third");
    assert_eq!(
        log_lines(&host, "chain-zz-later"),
        [
            "[paseo] Loading plugin",
            "[paseo] Plugin ready",
            "chain-zz-later ran for /projects/shop"
        ]
    );
    let bad = json!({ "source": { "kind": "directory", "path": "/bad" } });
    let err = host
        .run_hook("workspace.create.before", bad, &OpenContext::default())
        .await
        .unwrap_err()
        .to_string();
    assert_eq!(
        err,
        "Plugin chain-title workspace.create.before failed: invalid request: source: Additional properties are not allowed ('branchName' was unexpected)"
    );
    // The chain stopped there: the later plugin never saw the bad request.
    assert!(
        !log_lines(&host, "chain-zz-later").contains(&"chain-zz-later ran for /bad".to_string()),
        "{:?}",
        log_lines(&host, "chain-zz-later")
    );
}

#[tokio::test(flavor = "multi_thread")]
async fn agent_create_before_switches_provider_but_guards_cwd_and_prompt() {
    let host = host();
    load_all(&host, &["create-switch"]).await;
    let run = |request: serde_json::Value| {
        let host = &host;
        async move {
            host.run_hook("agent.create.before", request, &OpenContext::default())
                .await
                .map_err(|e| e.to_string())
        }
    };
    let out = run(json!({ "config": { "provider": "codex", "cwd": "/p", "providerOptions": { "web_search": "disabled" } }, "initialPrompt": "Review PR 42" }))
        .await
        .unwrap();
    // Omitting initialPrompt keeps it; config changes are saved; env is the first-launch env.
    assert_eq!(
        out,
        json!({ "config": { "provider": "claude", "cwd": "/p", "providerOptions": { "web_search": "disabled", "sandbox_mode": "workspace-write" } }, "env": { "HOOK_CREATE": "created" }, "initialPrompt": "Review PR 42" })
    );
    assert_eq!(
        run(json!({ "config": { "provider": "claude", "cwd": "/p" }, "initialPrompt": "change cwd" })).await.unwrap_err(),
        "Plugin create-switch agent.create.before failed: agent.create.before hooks cannot change the workspace directory (config.cwd)"
    );
    assert_eq!(
        run(json!({ "config": { "provider": "claude", "cwd": "/p" }, "initialPrompt": "change prompt" })).await.unwrap_err(),
        "Plugin create-switch agent.create.before failed: agent.create.before hooks cannot change the initial prompt (initialPrompt)"
    );
}

#[tokio::test(flavor = "multi_thread")]
async fn open_before_env_accumulates_while_tools_start_empty_per_plugin() {
    let host = host();
    load_all(&host, &["tools-b", "tools-a"]).await; // loaded out of order; dispatch is by ID
    let out = open(&host, open_request()).await.unwrap();
    assert_eq!(out["env"]["FROM_A"], "1");
    assert_eq!(out["env"]["B_SAW"], "0:1");
    let names: Vec<_> = out["tools"]
        .as_array()
        .unwrap()
        .iter()
        .map(|t| (t["name"].clone(), t["plugin"].clone()))
        .collect();
    assert_eq!(
        names,
        [
            (json!("append_workspace_note"), json!("tools-a")),
            (json!("list_notes"), json!("tools-a"))
        ]
    );
    assert_eq!(
        out["tools"][0]["inputSchema"]["properties"]["note"]["description"],
        "Note to append"
    );
    assert_eq!(out["tools"][1]["title"], "List notes");

    let mut clash = open_request();
    clash["labels"]["clash"] = json!("true");
    assert_eq!(
        open(&host, clash).await.unwrap_err(),
        "Plugin tools-b agent.open.before failed: tool append_workspace_note of plugin tools-b conflicts with tool append_workspace_note of plugin tools-a"
    );
    let mut dup = open_request();
    dup["labels"]["dup"] = json!("true");
    assert_eq!(
        open(&host, dup).await.unwrap_err(),
        "Plugin tools-a agent.open.before failed: duplicate tool name append_workspace_note in plugin tools-a"
    );
    let history = {
        let mut r = open_request();
        r["purpose"] = json!("history");
        r["labels"]["clash"] = json!("true");
        r
    };
    let out = open(&host, history).await.unwrap();
    assert_eq!(out["tools"], json!([]));
    let ctx = OpenContext {
        paseo_tools: vec!["list_notes".into()],
        ..Default::default()
    };
    assert_eq!(
        host.run_hook("agent.open.before", open_request(), &ctx).await.unwrap_err().to_string(),
        "Plugin tools-a agent.open.before failed: tool list_notes of plugin tools-a conflicts with Paseo tool list_notes"
    );
}

#[tokio::test(flavor = "multi_thread")]
async fn open_before_mcp_servers_clash_and_provider_support() {
    let host = host();
    load_all(&host, &["servers-a"]).await;
    let out = open(&host, open_request()).await.unwrap();
    assert_eq!(
        out["mcpServers"],
        json!({ "company": { "type": "http", "url": "https://tools.example.com/mcp" } })
    );
    let mut internal = open_request();
    internal["labels"]["server"] = json!("paseo");
    assert_eq!(
        open(&host, internal).await.unwrap_err(),
        "Plugin servers-a agent.open.before failed: MCP server paseo of plugin servers-a conflicts with Paseo's internal paseo server"
    );
    let saved = OpenContext {
        saved_mcp_servers: vec!["company".into()],
        ..Default::default()
    };
    assert_eq!(
        host.run_hook("agent.open.before", open_request(), &saved).await.unwrap_err().to_string(),
        "Plugin servers-a agent.open.before failed: MCP server company of plugin servers-a conflicts with the agent's saved MCP server company"
    );
    let no_mcp = OpenContext {
        provider_lacks_mcp: true,
        ..Default::default()
    };
    assert_eq!(
        host.run_hook("agent.open.before", open_request(), &no_mcp).await.unwrap_err().to_string(),
        "Plugin servers-a agent.open.before failed: Provider 'codex' does not support MCP servers (added by plugin servers-a)"
    );
}

#[tokio::test(flavor = "multi_thread")]
async fn worktree_placement_and_path_rules() {
    let repo = tempfile::tempdir().unwrap();
    let checkout = repo.path().join("paseo");
    std::fs::create_dir_all(checkout.join(".git")).unwrap();
    let host = host();
    load_all(&host, &["worktree-place"]).await;
    let request = |branch: &str| {
        json!({ "kind": "branch-off", "branch": branch, "baseRef": "main", "slug": "x", "path": checkout.join("../wt").to_string_lossy(),
                "repoRoot": checkout.to_string_lossy(), "sourceCheckout": checkout.to_string_lossy() })
    };
    let ctx = OpenContext::default();
    let run = |r| host.run_hook("worktree.create.before", r, &ctx);
    let out = run(request("feature/x")).await.unwrap();
    assert_eq!(
        out["path"],
        json!(repo.path().join("paseo.feature-x").to_string_lossy())
    );
    let err = run(request("into-git")).await.unwrap_err().to_string();
    assert_eq!(
        err,
        format!("Plugin worktree-place worktree.create.before failed: invalid request: path {:?} is inside a .git directory", checkout.join(".git/wt").to_string_lossy())
    );
    assert_eq!(
        run(request("move-repo")).await.unwrap_err().to_string(),
        "Plugin worktree-place worktree.create.before failed: worktree.create.before hooks cannot change repoRoot (repoRoot)"
    );
    let mut missing = request("b");
    missing.as_object_mut().unwrap().remove("baseRef");
    assert_eq!(
        run(missing).await.unwrap_err().to_string(),
        "invalid worktree.create.before input: (root): \"baseRef\" is a required property"
    );
}

#[tokio::test(flavor = "multi_thread")]
async fn worktree_create_after_failure_fails_the_operation() {
    let host = host();
    load_all(&host, &["after-fails"]).await;
    let event = |branch: &str| json!({ "worktree": { "path": "/tmp/wt", "branch": branch, "sourceCheckout": "/tmp/src" } });
    assert_eq!(
        host.run_hook(
            "worktree.create.after",
            event("ok"),
            &OpenContext::default()
        )
        .await
        .unwrap(),
        json!(null)
    );
    assert_eq!(
        host.run_hook(
            "worktree.create.after",
            event("bad"),
            &OpenContext::default()
        )
        .await
        .unwrap_err()
        .to_string(),
        "Plugin after-fails worktree.create.after failed: setup script failed"
    );
}

#[tokio::test(flavor = "multi_thread")]
async fn notification_errors_are_logged_and_later_handlers_still_run() {
    let host = host();
    load_all(&host, &["notify"]).await;
    let event = json!({ "agent": agent(), "turnId": "t1", "outcome": { "kind": "completed" }, "timeline": [] });
    assert_eq!(
        host.run_hook("agent.turn.after", event, &OpenContext::default())
            .await
            .unwrap(),
        json!(null)
    );
    let logs = log_lines(&host, "notify");
    assert_eq!(
        logs[2..],
        [
            "turn ended for agent-123: completed",
            "Lifecycle hook agent.turn.after failed: handler two broke",
            "third still runs"
        ]
    );
    host.shutdown().await;
    assert!(log_lines(&host, "notify").contains(&"cleanup ran".to_string()));
}

#[tokio::test(flavor = "multi_thread")]
async fn a_slow_handler_times_out_aborts_its_signal_and_later_plugins_do_not_run() {
    let host = host_with_timeout(200);
    load_all(&host, &["slow", "slow-zz-after"]).await;
    let err = open(&host, open_request()).await.unwrap_err();
    assert_eq!(
        err,
        "Plugin slow agent.open.before failed: Plugin RPC timed out: slow.hook"
    );
    wait_for_log(
        &host,
        "slow",
        "signal aborted: The operation timed out",
        std::time::Duration::from_secs(10),
    )
    .await;
    // The plugin after the slow one (in ID order) was never called for this request.
    assert!(
        !log_lines(&host, "slow-zz-after").contains(&"slow-zz-after ran for agent-123".to_string()),
        "{:?}",
        log_lines(&host, "slow-zz-after")
    );
}

#[tokio::test(flavor = "multi_thread")]
async fn invalid_daemon_input_is_rejected_before_any_plugin_runs() {
    let host = host();
    load_all(&host, &["env-inject", "a-open-spy"]).await;
    let mut request = open_request();
    request.as_object_mut().unwrap().remove("env");
    assert_eq!(
        open(&host, request).await.unwrap_err(),
        "invalid agent.open.before input: (root): \"env\" is a required property"
    );
    // No plugin was called: the first in line (in ID order) logs every request it gets.
    assert_eq!(
        log_lines(&host, "a-open-spy"),
        ["[paseo] Loading plugin", "[paseo] Plugin ready"]
    );
    // A valid request reaches it (so the assertion above could fail).
    open(&host, open_request()).await.unwrap();
    assert!(log_lines(&host, "a-open-spy").contains(&"a-open-spy ran for agent-123".to_string()));
}

#[tokio::test(flavor = "multi_thread")]
async fn agent_configuration_example_sets_codex_options_and_keeps_the_rest() {
    let host = host();
    host.load(
        &std::path::PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("examples/agent-configuration"),
    )
    .await
    .unwrap();
    let request = json!({ "config": {
        "provider": "codex", "cwd": "/p", "systemPrompt": "Be brief.",
        "providerOptions": { "sandbox_mode": "read-only", "approval_policy": "never", "web_search": "disabled" },
        "mcpServers": { "existing": { "type": "stdio", "command": "tool" } },
    } });
    let out = host
        .run_hook("agent.create.before", request, &OpenContext::default())
        .await
        .unwrap();
    assert_eq!(
        out,
        json!({ "config": {
            "provider": "codex", "cwd": "/p", "systemPrompt": "Be brief.",
            "providerOptions": { "sandbox_mode": "workspace-write", "approval_policy": "on-request", "web_search": "disabled" },
            "mcpServers": { "existing": { "type": "stdio", "command": "tool" }, "company": { "type": "http", "url": "https://tools.example.com/mcp" } },
        } })
    );
    let claude = json!({ "config": { "provider": "claude", "cwd": "/p" } });
    assert_eq!(
        host.run_hook(
            "agent.create.before",
            claude.clone(),
            &OpenContext::default()
        )
        .await
        .unwrap(),
        claude
    );
}

#[tokio::test(flavor = "multi_thread")]
async fn fired_notifications_settle_and_one_past_its_deadline_is_logged_under_its_plugin() {
    // `drain`'s handler takes 300 ms, past this host's 100 ms hook deadline; `notify` answers
    // at once (its second handler throws, which the plugin logs itself).
    let host = std::sync::Arc::new(host_with_timeout(100));
    load_all(&host, &["drain", "notify"]).await;
    let event = |turn: usize| json!({ "agent": agent(), "turnId": turn.to_string(), "outcome": { "kind": "completed" }, "timeline": [] });
    for turn in 0..50 {
        host.notify_json("agent.turn.after", event(turn));
    }
    // Nothing waits for each one; the host knows when all of them are settled.
    host.notifications_settled().await;
    let handled = log_lines(&host, "notify")
        .iter()
        .filter(|l| *l == "turn ended for agent-123: completed")
        .count();
    assert_eq!(handled, 50);
    // Each timed out while its handler slept, and says so under the plugin.
    let timed_out = log_lines(&host, "drain")
        .iter()
        .filter(|l| {
            *l == "Lifecycle hook agent.turn.after failed: Plugin RPC timed out: drain.hook"
        })
        .count();
    assert_eq!(timed_out, 50, "{:?}", log_lines(&host, "drain"));
    // A plugin stopped with notifications queued answers each as stopped, and they settle too.
    for turn in 0..5 {
        host.notify_json("agent.turn.after", event(turn));
    }
    host.stop("drain").await.unwrap();
    tokio::time::timeout(
        std::time::Duration::from_secs(5),
        host.notifications_settled(),
    )
    .await
    .expect("notifications to a stopped plugin settle");
    host.shutdown().await;
}

#[tokio::test(flavor = "multi_thread")]
async fn shutdown_lets_pending_notifications_finish() {
    let host = std::sync::Arc::new(host());
    load_all(&host, &["drain"]).await;
    let event = json!({ "agent": agent(), "turnId": "t", "outcome": { "kind": "completed" }, "timeline": [] });
    host.notify_json("agent.turn.after", event);
    host.shutdown().await;
    let logs = log_lines(&host, "drain");
    let finished = logs
        .iter()
        .position(|l| l == "slow notification finished")
        .expect("the notification finished");
    let stopping = logs
        .iter()
        .position(|l| l == "[paseo] Stopping plugin")
        .unwrap();
    assert!(finished < stopping, "{logs:?}");
}
