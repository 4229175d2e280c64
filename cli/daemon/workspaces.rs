//! Workspaces and worktrees: creating a workspace (in a directory, or in a new git worktree,
//! with their hooks), listing them and archiving one with its agents.

use std::path::{Path, PathBuf};
use std::sync::Arc;

use paseo_plugin_runtime::hooks::types::*;
use paseo_plugin_runtime::logs::now_iso;
use paseo_plugin_runtime::OpenContext;
use serde_json::Value;

use super::store::{WorkspaceRecord, WorktreeRecord};
use super::{check_title, Daemon};

impl Daemon {
    /// `workspace.create.before` → (worktree: `worktree.create.before` → `git worktree add` →
    /// `worktree.create.after`, whose failure removes the worktree) → register the workspace →
    /// `workspace.create.after`.
    pub async fn create_workspace(self: &Arc<Self>, request: Value) -> Result<Value, String> {
        if let Some(key) = request["idempotencyKey"].as_str() {
            let existing = self
                .state
                .lock()
                .unwrap()
                .workspaces
                .values()
                .find(|w| w.idempotency_key.as_deref() == Some(key))
                .cloned();
            if let Some(ws) = existing {
                return Ok(serde_json::to_value(ws).unwrap());
            }
        }
        check_title(request["title"].as_str())?;
        let request = self
            .host
            .run_hook("workspace.create.before", request, &OpenContext::default())
            .await
            .map_err(|e| e.to_string())?;
        self.say(format!("workspace.create.before → {}", request["source"]));
        let source = &request["source"];
        let (cwd, worktree) = match source["kind"].as_str() {
            Some("worktree") => {
                let wt = self.create_worktree(source).await?;
                (wt.path.clone(), Some(wt))
            }
            _ => {
                let path = source["path"].as_str().unwrap_or_default();
                let dir = Path::new(path)
                    .canonicalize()
                    .map_err(|_| format!("Directory not found: {path}"))?;
                (dir.to_string_lossy().into_owned(), None)
            }
        };
        let id = self.next_id("workspace");
        let project_root = worktree
            .as_ref()
            .map(|w| w.repo_root.clone())
            .unwrap_or_else(|| cwd.clone());
        let ws = WorkspaceRecord {
            id: id.clone(),
            project_id: format!(
                "project-{}",
                Path::new(&project_root)
                    .file_name()
                    .map(|n| n.to_string_lossy().into_owned())
                    .unwrap_or_default()
            ),
            cwd,
            name: request["title"].as_str().map(str::to_string),
            archived_at: None,
            worktree,
            idempotency_key: request["idempotencyKey"].as_str().map(str::to_string),
        };
        self.state
            .lock()
            .unwrap()
            .workspaces
            .insert(id.clone(), ws.clone());
        self.save();
        self.say(format!("workspace {id} registered at {}", ws.cwd));
        self.host.notify::<WorkspaceCreateAfter>(WorkspaceEvent {
            workspace: hook_workspace(&ws),
        });
        Ok(serde_json::to_value(ws).unwrap())
    }

    async fn create_worktree(&self, source: &Value) -> Result<WorktreeRecord, String> {
        let from = source["cwd"].as_str().unwrap_or_default();
        let git = |args: &[&str], dir: &str| {
            let out = std::process::Command::new("git")
                .args(args)
                .current_dir(dir)
                .output()
                .map_err(|e| format!("git: {e}"))?;
            if out.status.success() {
                Ok(String::from_utf8_lossy(&out.stdout).trim().to_string())
            } else {
                Err(format!(
                    "git {} failed: {}",
                    args.join(" "),
                    String::from_utf8_lossy(&out.stderr).trim()
                ))
            }
        };
        let source_checkout = git(&["rev-parse", "--show-toplevel"], from)?;
        let common = git(
            &["rev-parse", "--path-format=absolute", "--git-common-dir"],
            from,
        )?;
        let repo_root = Path::new(&common)
            .parent()
            .map(|p| p.to_string_lossy().into_owned())
            .unwrap_or(source_checkout.clone());
        let base = git(&["rev-parse", "--abbrev-ref", "HEAD"], from)?;
        let branch = source["branchName"]
            .as_str()
            .map(str::to_string)
            .unwrap_or_else(|| format!("paseo/{}", self.next_id("wt")));
        let slug = branch.replace('/', "-");
        let default_path = unused_path(
            self.store
                .home
                .join("worktrees")
                .join(Path::new(&repo_root).file_name().unwrap_or_default())
                .join(&slug),
        );
        let request = WorktreeCreateRequest {
            kind: "branch-off".into(),
            branch,
            base_ref: Some(base),
            slug,
            path: default_path.to_string_lossy().into_owned(),
            repo_root: repo_root.clone(),
            source_checkout: source_checkout.clone(),
            ..Default::default()
        };
        let request = self
            .host
            .before::<WorktreeCreateBefore>(request)
            .await
            .map_err(|e| e.to_string())?;
        self.say(format!("worktree.create.before → {}", request.path));
        // The host refuses a taken path a plugin returns; this catches one taken during the
        // hooks, here rather than in `git worktree add`, which would leave the new branch behind.
        if Path::new(&request.path).symlink_metadata().is_ok() {
            return Err(format!("Worktree path already exists: {}", request.path));
        }
        let mut add = vec!["worktree", "add"];
        if request.kind == "branch-off" {
            add.extend([
                "-b",
                request.branch.as_str(),
                request.path.as_str(),
                request.base_ref.as_deref().unwrap_or("HEAD"),
            ]);
        } else {
            add.extend([request.path.as_str(), request.branch.as_str()]);
        }
        git(&add, &source_checkout)?;
        self.say(format!("git worktree add {}", request.path));
        let created = WorktreeEvent {
            worktree: CreatedWorktree {
                path: request.path.clone(),
                branch: request.branch.clone(),
                source_checkout: source_checkout.clone(),
            },
        };
        if let Err(e) = self.host.emit::<WorktreeCreateAfter>(created).await {
            let _ = git(
                &["worktree", "remove", "--force", &request.path],
                &source_checkout,
            );
            if request.kind == "branch-off" {
                let _ = git(&["branch", "-D", &request.branch], &source_checkout);
            }
            self.say(format!(
                "worktree.create.after failed; removed {}",
                request.path
            ));
            return Err(e.to_string());
        }
        Ok(WorktreeRecord {
            path: request.path,
            branch: request.branch,
            repo_root,
        })
    }

    pub fn workspaces(&self) -> Vec<WorkspaceRecord> {
        self.state
            .lock()
            .unwrap()
            .workspaces
            .values()
            .cloned()
            .collect()
    }

    pub async fn archive_workspace(self: &Arc<Self>, id: &str) -> Result<Value, String> {
        let ws = {
            let mut state = self.state.lock().unwrap();
            let ws = state
                .workspaces
                .get_mut(id)
                .ok_or_else(|| format!("Workspace not found: {id}"))?;
            ws.archived_at.get_or_insert_with(now_iso);
            ws.clone()
        };
        self.save();
        self.host.notify::<WorkspaceArchiveAfter>(WorkspaceEvent {
            workspace: hook_workspace(&ws),
        });
        let agents: Vec<String> = self
            .state
            .lock()
            .unwrap()
            .agents
            .values()
            .filter(|a| a.workspace_id.as_deref() == Some(id) && a.archived_at.is_none())
            .map(|a| a.id.clone())
            .collect();
        for agent in agents {
            self.archive_agent(&agent).await?;
        }
        Ok(serde_json::to_value(ws).unwrap())
    }
}

/// The default worktree location with Paseo's existing-path suffix applied: `path` when
/// nothing is there, else the first free one of `<path>-1`, `<path>-2`, …
fn unused_path(path: PathBuf) -> PathBuf {
    let taken = |p: &Path| p.symlink_metadata().is_ok();
    if !taken(&path) {
        return path;
    }
    (1u64..)
        .map(|n| {
            let mut candidate = path.clone().into_os_string();
            candidate.push(format!("-{n}"));
            PathBuf::from(candidate)
        })
        .find(|p| !taken(p))
        .unwrap()
}

fn hook_workspace(ws: &WorkspaceRecord) -> PluginHookWorkspace {
    PluginHookWorkspace {
        id: ws.id.clone(),
        project_id: ws.project_id.clone(),
        cwd: ws.cwd.clone(),
        name: ws.name.clone(),
        archived_at: ws.archived_at.clone(),
    }
}
