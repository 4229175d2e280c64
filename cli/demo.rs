//! `paseo demo`: a daemon in a temporary home with the example plugins, and a scripted session
//! that shows each capability, printed as a readable trace.

use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::sync::Arc;
use std::time::Duration;

use serde_json::{json, Value};

use crate::daemon::Daemon;

const EXAMPLES: &[&str] = &[
    "lifecycle-logger",
    "lifecycle-actions",
    "worktree-placement",
    "agent-configuration",
    "agent-tools",
    "env-injection",
    "agent-provider",
];

fn examples_dir() -> PathBuf {
    std::env::var_os("PASEO_EXAMPLES")
        .map(PathBuf::from)
        .unwrap_or_else(|| Path::new(env!("CARGO_MANIFEST_DIR")).join("examples"))
}

fn step(title: &str) {
    use std::io::IsTerminal;
    if std::io::stdout().is_terminal() {
        println!("\n\x1b[1m== {title}\x1b[0m");
    } else {
        println!("\n== {title}");
    }
}

fn git(dir: &Path, args: &[&str]) -> Result<(), String> {
    let status = std::process::Command::new("git")
        .args([
            "-c",
            "user.name=demo",
            "-c",
            "user.email=demo@paseo.invalid",
        ])
        .args(args)
        .current_dir(dir)
        .status()
        .map_err(|e| e.to_string())?;
    status
        .success()
        .then_some(())
        .ok_or_else(|| format!("git {} failed", args.join(" ")))
}

pub async fn run() -> Result<ExitCode, String> {
    let temp = tempfile_dir()?;
    let home = temp.join("paseo-home");
    std::fs::create_dir_all(&home).map_err(|e| e.to_string())?;
    std::fs::write(home.join("config.json"), r#"{ "pluginsEnabled": true }"#)
        .map_err(|e| e.to_string())?;
    let repo = temp.join("shop");
    std::fs::create_dir_all(&repo).map_err(|e| e.to_string())?;
    std::fs::write(repo.join("canary.txt"), "still here\n").map_err(|e| e.to_string())?;
    git(&repo, &["init", "-q", "-b", "main"])?;
    git(&repo, &["add", "."])?;
    git(&repo, &["commit", "-q", "-m", "init"])?;

    println!(
        "Paseo plugin engine demo — temporary home {}",
        home.display()
    );
    let daemon = Daemon::start(home.clone()).await?;
    let mut trace = daemon.trace.subscribe();
    let printer = tokio::spawn(async move {
        while let Ok(line) = trace.recv().await {
            println!("  · {line}");
        }
    });
    let result = session(&daemon, &repo).await;
    tokio::time::sleep(Duration::from_millis(200)).await;
    step("notifications, as the lifecycle-logger example logged them (env values redacted)");
    for entry in daemon
        .host
        .logs("lifecycle-logger")
        .iter()
        .filter(|e| e.message.starts_with('{'))
    {
        let v: Value = serde_json::from_str(&entry.message).unwrap_or_default();
        let payload = &v["payload"];
        // Show what each notification was about; for session opens, the redacted env.
        let about = match payload["request"]["env"].as_object() {
            Some(_) => format!("env {}", payload["request"]["env"]),
            None => [("agent", "id"), ("workspace", "id")]
                .iter()
                .find_map(|(k, f)| payload[*k][*f].as_str().map(|id| format!("{k} {id}")))
                .or_else(|| {
                    payload["request"]["source"]["kind"]
                        .as_str()
                        .map(|k| format!("source {k}"))
                })
                .or_else(|| {
                    payload["request"]["config"]["provider"]
                        .as_str()
                        .map(|p| format!("provider {p}"))
                })
                .unwrap_or_default(),
        };
        let detail = ["turnId", "requestId"]
            .iter()
            .find_map(|k| payload[*k].as_str().map(|v| format!(" {k} {v}")))
            .unwrap_or_default();
        println!(
            "  {:<28} {about}{detail}",
            v["hook"].as_str().unwrap_or_default()
        );
    }
    daemon.shutdown().await;
    printer.abort();
    let _ = std::fs::remove_dir_all(&temp);
    result?;
    println!("\nDone. Every step above ran real plugins from examples/ in their own isolates.");
    Ok(ExitCode::SUCCESS)
}

/// Waits for the agent's turn to finish and lets the trace catch up.
async fn settle(daemon: &Daemon, id: &str) {
    daemon.wait_idle(id, Duration::from_secs(30)).await;
    tokio::time::sleep(Duration::from_millis(100)).await;
}

fn tempfile_dir() -> Result<PathBuf, String> {
    let dir = std::env::temp_dir().join(format!("paseo-demo-{}", std::process::id()));
    std::fs::create_dir_all(&dir).map_err(|e| e.to_string())?;
    dir.canonicalize().map_err(|e| e.to_string())
}

fn show_timeline(daemon: &Daemon, agent: &str, from: usize) -> usize {
    let view = daemon.agent_view(agent).unwrap_or_default();
    let items = view["timeline"].as_array().cloned().unwrap_or_default();
    for item in &items[from.min(items.len())..] {
        let line = match item["type"].as_str() {
            Some("user_message") => format!(
                "user  › {}{}",
                item["text"].as_str().unwrap_or_default(),
                item["sentBy"]["pluginId"]
                    .as_str()
                    .map(|p| format!("   (sent by plugin {p})"))
                    .unwrap_or_default()
            ),
            Some("assistant_message") => {
                format!("agent › {}", item["text"].as_str().unwrap_or_default())
            }
            Some("tool_call") => format!(
                "tool  › {} {}{}",
                item["name"].as_str().unwrap_or_default(),
                item["status"].as_str().unwrap_or_default(),
                item["error"]
                    .as_str()
                    .map(|e| format!(": {e}"))
                    .unwrap_or_default()
            ),
            Some("error") => format!("error › {}", item["message"].as_str().unwrap_or_default()),
            _ => item.to_string(),
        };
        println!("  {line}");
    }
    items.len()
}

async fn session(daemon: &Arc<Daemon>, repo: &Path) -> Result<(), String> {
    step("install the example plugins (each runs in its own isolate)");
    for name in EXAMPLES {
        daemon
            .plugin_install(&examples_dir().join(name), None)
            .await?;
    }
    for row in daemon.plugin_list() {
        println!(
            "  {:<22} {}",
            row["id"].as_str().unwrap_or_default(),
            row["status"].as_str().unwrap_or_default()
        );
    }

    step("workspace isolation: a directory workspace titled \"Isolated lifecycle example\" becomes a worktree");
    let ws = daemon.create_workspace(json!({ "source": { "kind": "directory", "path": repo }, "title": "Isolated lifecycle example" })).await?;
    println!(
        "  workspace {} at {}",
        ws["id"].as_str().unwrap_or_default(),
        ws["cwd"].as_str().unwrap_or_default()
    );
    println!(
        "  (worktree-placement put it next to the checkout: {})",
        repo.display()
    );

    step("provider switch and saved options: a codex agent is configured, then switched to claude");
    let agent = daemon
        .create_agent(json!({ "workspaceId": ws["id"], "provider": "codex", "labels": { "notes/enabled": "true" }, "providerOptions": { "web_search": "disabled" } }))
        .await?;
    let id = agent["id"].as_str().unwrap_or_default().to_string();
    println!("  saved config: {}", agent["config"]);

    step("env injection on every open");
    println!("  launch env: {}", agent["launch"]["env"]);

    step("a tool attached by label, called by the agent over MCP");
    println!(
        "  tools {} served at {}",
        agent["launch"]["tools"],
        agent["launch"]["toolsUrl"].as_str().unwrap_or("-")
    );
    // The provider gets the agent's secret in this entry; every view shows it redacted.
    println!(
        "  provider's MCP entry: {}",
        agent["launch"]["mcpServers"][paseo_plugin_runtime::tools::mcp::SERVER_NAME]
    );
    let mut seen = 0;
    daemon.send(
        &id,
        "tool append_workspace_note {\"note\":\"Remember the demo\"}",
        None,
    )?;
    settle(daemon, &id).await;
    seen = show_timeline(daemon, &id, seen);
    let notes = Path::new(ws["cwd"].as_str().unwrap_or_default()).join("AGENT_NOTES.md");
    println!(
        "  {} now contains: {:?}",
        notes.display(),
        std::fs::read_to_string(&notes).unwrap_or_default()
    );

    step("permissions: lifecycle-actions denies `rm -rf` and allows `git status`");
    daemon.send(&id, "run rm -rf canary.txt\nrun git status", None)?;
    settle(daemon, &id).await;
    seen = show_timeline(daemon, &id, seen);
    println!(
        "  canary.txt still exists: {}",
        Path::new(ws["cwd"].as_str().unwrap_or_default())
            .join("canary.txt")
            .exists()
    );

    step("an agent on a plugin's provider: agent-provider's shell-helper runs the turn, and lifecycle-actions answers its permission requests");
    let helper = daemon
        .create_agent(
            json!({ "workspaceId": ws["id"], "provider": "shell-helper", "title": "Shell helper" }),
        )
        .await?;
    let helper_id = helper["id"].as_str().unwrap_or_default().to_string();
    daemon.send(
        &helper_id,
        "plugins provide agents now\n$ git status\n$ rm -rf canary.txt",
        None,
    )?;
    settle(daemon, &helper_id).await;
    show_timeline(daemon, &helper_id, 0);
    println!(
        "  canary.txt still exists: {}",
        Path::new(ws["cwd"].as_str().unwrap_or_default())
            .join("canary.txt")
            .exists()
    );

    step("a follow-up after \"out of credits\"");
    daemon.send(&id, "credits", None)?;
    settle(daemon, &id).await;
    // The plugin's follow-up starts a second turn.
    tokio::time::sleep(Duration::from_millis(300)).await;
    settle(daemon, &id).await;
    seen = show_timeline(daemon, &id, seen);

    step("reload a plugin: open sessions go stale and reopen (reason refresh) before the next prompt");
    daemon.plugin_reload("env-injection").await?;
    daemon.send(&id, "env COMPANY_ENV", None)?;
    settle(daemon, &id).await;
    show_timeline(daemon, &id, seen);
    println!(
        "  reopened with reason {}",
        daemon.agent_view(&id).unwrap_or_default()["launch"]["reason"]
    );

    step("archive the agent and the workspace");
    daemon.archive_agent(&id).await?;
    daemon
        .archive_workspace(ws["id"].as_str().unwrap_or_default())
        .await?;
    Ok(())
}
