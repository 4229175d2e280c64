//! Validation of hook payloads in Rust: JSON Schema from the catalogue (`jsonschema`), then the
//! per-hook invariants the catalogue declares (read-only fields, mutable-only fields, fields kept
//! when omitted, stripped unknown keys, the worktree path rules). Every message names the field
//! and the rule.

use std::path::{Component, Path, PathBuf};

use serde_json::Value;

use super::catalogue::HookSpec;

/// Checks a payload the daemon hands to a hook: the request of request hooks, else the event.
pub fn check_input(hook: &HookSpec, input: &Value) -> Result<(), String> {
    schema_errors(hook, input).map_err(|e| format!("invalid {} input: {e}", hook.name))
}

/// Checks what one handler returned against the request it was given, and returns the request
/// the next handler sees.
pub fn check_result(hook: &HookSpec, previous: &Value, output: Value) -> Result<Value, String> {
    let mut output = match output {
        Value::Object(map) => map,
        other => {
            return Err(format!(
                "invalid request: expected an object or undefined, got {}",
                json_type(&other)
            ))
        }
    };
    for field in &hook.keep_if_omitted {
        if !output.contains_key(field) {
            if let Some(kept) = previous.get(field) {
                output.insert(field.clone(), kept.clone());
            }
        }
    }
    for (field, known) in &hook.strip_unknown {
        if let Some(Value::Object(inner)) = output.get_mut(field) {
            inner.retain(|key, _| known.iter().any(|k| k == key));
        }
    }
    let output = Value::Object(output);
    schema_errors(hook, &output).map_err(|e| format!("invalid request: {e}"))?;

    if let Some(mutable) = &hook.mutable {
        let changed: Vec<&str> = union_keys(previous, &output)
            .into_iter()
            .filter(|k| !mutable.iter().any(|m| m == k) && previous.get(k) != output.get(k))
            .collect();
        if !changed.is_empty() {
            return Err(format!(
                "{} hooks can only change {} (changed: {})",
                hook.name,
                english_list(mutable),
                changed.join(", ")
            ));
        }
    }
    for ro in &hook.readonly {
        if lookup(previous, &ro.field) != lookup(&output, &ro.field) {
            return Err(format!("{} hooks {} ({})", hook.name, ro.rule, ro.field));
        }
    }
    if let Some(field) = &hook.check_path {
        if previous.get(field) != output.get(field) {
            let path = output[field].as_str().unwrap_or_default();
            let repo_root = output["repoRoot"].as_str().unwrap_or_default();
            check_worktree_path(Path::new(path), Path::new(repo_root))
                .map_err(|rule| format!("invalid request: {field} {path:?} {rule}"))?;
        }
    }
    Ok(output)
}

/// The documented rules for a worktree target directory, with symlinks in existing parent
/// directories resolved first. Returns the broken rule.
pub fn check_worktree_path(path: &Path, repo_root: &Path) -> Result<(), &'static str> {
    if !path.is_absolute() {
        return Err("must be an absolute path");
    }
    let resolved = resolve_parents(path);
    if resolved.parent().is_none() {
        return Err("is the filesystem root");
    }
    if let Some(home) = std::env::var_os("HOME").filter(|h| !h.is_empty()) {
        if resolved == resolve_parents(Path::new(&home)) {
            return Err("is the home directory");
        }
    }
    let repo = resolve_parents(repo_root);
    if resolved == repo {
        return Err("is the repository root");
    }
    if repo.starts_with(&resolved) {
        return Err("is an ancestor of the repository");
    }
    if resolved.components().any(|c| c.as_os_str() == ".git") {
        return Err("is inside a .git directory");
    }
    if path.symlink_metadata().is_ok() || resolved.symlink_metadata().is_ok() {
        return Err("already exists");
    }
    Ok(())
}

/// Where the OS would put `path`: components are resolved one at a time, following symlinks
/// (dangling ones too, by their target) before `..` applies, as the kernel does.
fn resolve_parents(path: &Path) -> PathBuf {
    use std::collections::VecDeque;
    let mut pending: VecDeque<std::ffi::OsString> = path
        .components()
        .map(|c| c.as_os_str().to_owned())
        .collect();
    let mut resolved = PathBuf::from("/");
    let mut links_followed = 0;
    while let Some(part) = pending.pop_front() {
        match Path::new(&part).components().next() {
            Some(Component::RootDir) | Some(Component::Prefix(_)) => resolved = PathBuf::from("/"),
            Some(Component::CurDir) | None => {}
            Some(Component::ParentDir) => {
                resolved.pop();
            }
            Some(Component::Normal(name)) => {
                let candidate = resolved.join(name);
                match std::fs::read_link(&candidate) {
                    // A symlink loop: nothing can be created beneath it; it stands for itself.
                    Ok(_) if links_followed >= 40 => return candidate,
                    Ok(target) => {
                        links_followed += 1;
                        if target.is_absolute() {
                            resolved = PathBuf::from("/");
                        }
                        for c in target.components().rev() {
                            pending.push_front(c.as_os_str().to_owned());
                        }
                    }
                    _ => resolved = candidate,
                }
            }
        }
    }
    resolved
}

/// The most bytes of JSON a waiting hook's result may have when it reaches the host.
pub const MAX_RESULT_BYTES: usize = super::MAX_MESSAGE_BYTES;

/// The longest title (agent or workspace) a request may carry: the catalogue's `Title`.
pub const MAX_TITLE_CHARS: usize = 1024;

/// How much of a schema error's text is shown: errors quote the offending value, which may be
/// a plugin's 40 MiB string.
const MAX_ERROR_CHARS: usize = 300;

/// Checks the size of a result before it is parsed.
pub fn check_result_size(bytes: usize) -> Result<(), String> {
    if bytes > MAX_RESULT_BYTES {
        return Err(format!("invalid request: the result is {bytes} bytes of JSON; the limit is {MAX_RESULT_BYTES} bytes (4 MiB)"));
    }
    Ok(())
}

fn schema_errors(hook: &HookSpec, value: &Value) -> Result<(), String> {
    schema_check(&hook.validator, value)
}

/// The first three errors of `value` against a schema, each naming its field and the rule.
pub fn schema_check(validator: &jsonschema::Validator, value: &Value) -> Result<(), String> {
    // The common case, without building an error iterator.
    if validator.is_valid(value) {
        return Ok(());
    }
    let errors: Vec<String> = validator
        .iter_errors(value)
        .take(3)
        .map(|e| {
            format!(
                "{}: {}",
                field_path(e.instance_path().as_str()),
                describe(&e)
            )
        })
        .collect();
    if errors.is_empty() {
        Ok(())
    } else {
        Err(errors.join("; "))
    }
}

fn describe(error: &jsonschema::ValidationError) -> String {
    if let jsonschema::error::ValidationErrorKind::MaxLength { limit } = error.kind() {
        let length = error.instance().as_str().map_or(0, |s| s.chars().count());
        return format!("is {length} characters long; the limit is {limit}");
    }
    let text = error.to_string();
    if text.chars().count() <= MAX_ERROR_CHARS {
        return text;
    }
    text.chars().take(MAX_ERROR_CHARS).chain(['…']).collect()
}

/// `/tools/0/name` → `tools[0].name`; the root is `(root)`.
pub fn field_path(pointer: &str) -> String {
    let mut out = String::new();
    for seg in pointer.split('/').skip(1) {
        let seg = seg.replace("~1", "/").replace("~0", "~");
        if !seg.is_empty() && seg.bytes().all(|b| b.is_ascii_digit()) {
            out.push_str(&format!("[{seg}]"));
        } else {
            if !out.is_empty() {
                out.push('.');
            }
            out.push_str(&seg);
        }
    }
    if out.is_empty() {
        "(root)".into()
    } else {
        out
    }
}

fn lookup<'v>(value: &'v Value, dotted: &str) -> Option<&'v Value> {
    dotted.split('.').try_fold(value, |v, key| v.get(key))
}

fn union_keys<'a>(a: &'a Value, b: &'a Value) -> Vec<&'a str> {
    let mut keys: Vec<&str> = a
        .as_object()
        .into_iter()
        .flat_map(|m| m.keys())
        .map(String::as_str)
        .collect();
    for k in b.as_object().into_iter().flat_map(|m| m.keys()) {
        if !keys.contains(&k.as_str()) {
            keys.push(k);
        }
    }
    keys
}

fn english_list(items: &[String]) -> String {
    match items {
        [] => String::new(),
        [one] => one.clone(),
        [init @ .., last] => format!("{} and {last}", init.join(", ")),
    }
}

pub fn json_type(v: &Value) -> &'static str {
    match v {
        Value::Null => "null",
        Value::Bool(_) => "boolean",
        Value::Number(_) => "number",
        Value::String(_) => "string",
        Value::Array(_) => "array",
        Value::Object(_) => "object",
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::hooks::catalogue::catalogue;
    use serde_json::json;

    fn open_request() -> Value {
        json!({"agentId":"a","workspaceId":null,"provider":"codex","cwd":"/p","title":null,"labels":{},
               "tools":[],"mcpServers":{},"reason":"create","purpose":"interactive","env":{}})
    }

    #[test]
    fn open_before_may_change_only_env_tools_and_servers() {
        let hook = catalogue().get("agent.open.before").unwrap();
        let prev = open_request();
        let mut out = prev.clone();
        out["env"] = json!({"A":"1"});
        assert!(check_result(hook, &prev, out).is_ok());
        let mut out = prev.clone();
        out["provider"] = json!("claude");
        assert_eq!(
            check_result(hook, &prev, out).unwrap_err(),
            "agent.open.before hooks can only change env, tools and mcpServers (changed: provider)"
        );
    }

    // Paseo's worktree sources carry refName, githubPrNumber, baseBranch and worktreeSlug, and
    // directory sources a projectId; a plugin may pass them through or set them.
    #[test]
    fn workspace_sources_take_paseos_fields() {
        let hook = catalogue().get("workspace.create.before").unwrap();
        let request = json!({ "source": { "kind": "worktree", "cwd": "/repo", "action": "checkout",
            "refName": "feature/x", "githubPrNumber": 12, "baseBranch": "main", "worktreeSlug": "x" } });
        assert!(check_input(hook, &request).is_ok());
        let mut bad = request.clone();
        bad["source"]["githubPrNumber"] = json!(0);
        assert!(check_input(hook, &bad).is_err());
        let directory =
            json!({ "source": { "kind": "directory", "path": "/repo", "projectId": "p1" } });
        assert!(check_input(hook, &directory).is_ok());
    }

    #[test]
    fn schema_errors_name_the_field() {
        let hook = catalogue().get("agent.open.before").unwrap();
        let prev = open_request();
        let mut out = prev.clone();
        out["env"] = json!({"A": 42});
        assert_eq!(
            check_result(hook, &prev, out).unwrap_err(),
            r#"invalid request: env.A: 42 is not of type "string""#
        );
        let mut out = prev.clone();
        out["tools"] = json!([{"name":"Bad-Name","description":"d","inputSchema":{}}]);
        let err = check_result(hook, &prev, out).unwrap_err();
        assert!(err.starts_with("invalid request: tools[0].name: "), "{err}");
    }

    #[test]
    fn sizes_are_bounded_and_errors_do_not_echo_huge_values() {
        let hook = catalogue().get("agent.create.before").unwrap();
        let prev = json!({"config":{"provider":"codex","cwd":"/p"}});
        let title = "t".repeat(40 * 1024 * 1024);
        let err = check_result(
            hook,
            &prev,
            json!({"config":{"provider":"codex","cwd":"/p","title":title}}),
        )
        .unwrap_err();
        assert_eq!(
            err,
            "invalid request: config.title: is 41943040 characters long; the limit is 1024"
        );
        let err = check_result(
            hook,
            &prev,
            json!({"config":{"provider":"codex","cwd":"/p"},"env":{"A":"v".repeat(200_000)}}),
        )
        .unwrap_err();
        assert_eq!(
            err,
            "invalid request: env.A: is 200000 characters long; the limit is 131072"
        );
        let err = check_result(
            hook,
            &prev,
            json!({"config":{"provider":"codex","cwd":"/p"},"env":{"A":["x".repeat(10_000)]}}),
        )
        .unwrap_err();
        assert!(err.len() < 400 && err.ends_with('…'), "{err}");
        assert_eq!(check_result_size(MAX_RESULT_BYTES), Ok(()));
        assert_eq!(
            check_result_size(MAX_RESULT_BYTES + 1).unwrap_err(),
            "invalid request: the result is 4194305 bytes of JSON; the limit is 4194304 bytes (4 MiB)"
        );
        let schema: Value = serde_json::from_str(include_str!("catalogue.json")).unwrap();
        assert_eq!(
            schema["$defs"]["Title"]["maxLength"],
            json!(MAX_TITLE_CHARS)
        );
    }

    #[test]
    fn create_before_keeps_prompt_strips_config_and_guards_cwd() {
        let hook = catalogue().get("agent.create.before").unwrap();
        let prev = json!({"config":{"provider":"codex","cwd":"/p"},"initialPrompt":"hi"});
        let out = check_result(
            hook,
            &prev,
            json!({"config":{"provider":"claude","cwd":"/p","bogus":1}}),
        )
        .unwrap();
        assert_eq!(
            out,
            json!({"config":{"provider":"claude","cwd":"/p"},"initialPrompt":"hi"})
        );
        let err = check_result(
            hook,
            &prev,
            json!({"config":{"provider":"codex","cwd":"/q"}}),
        )
        .unwrap_err();
        assert_eq!(
            err,
            "agent.create.before hooks cannot change the workspace directory (config.cwd)"
        );
        let err = check_result(
            hook,
            &prev,
            json!({"config":{"provider":"codex","cwd":"/p"},"initialPrompt":"x"}),
        )
        .unwrap_err();
        assert_eq!(
            err,
            "agent.create.before hooks cannot change the initial prompt (initialPrompt)"
        );
        let err = check_result(
            hook,
            &prev,
            json!({"config":{"provider":"codex","cwd":"/p"},"extra":1}),
        )
        .unwrap_err();
        assert_eq!(err, "invalid request: (root): Additional properties are not allowed ('extra' was unexpected)");
    }

    #[test]
    fn worktree_path_rules() {
        let tmp = std::env::temp_dir().join(format!("paseo-path-rules-{}", std::process::id()));
        let repo = tmp.join("repo");
        std::fs::create_dir_all(repo.join(".git")).unwrap();
        assert_eq!(
            check_worktree_path(Path::new("rel/x"), &repo),
            Err("must be an absolute path")
        );
        assert_eq!(
            check_worktree_path(&repo, &repo),
            Err("is the repository root")
        );
        assert_eq!(
            check_worktree_path(&repo.join(".git/wt"), &repo),
            Err("is inside a .git directory")
        );
        assert_eq!(
            check_worktree_path(&repo.join("sub/../.."), &repo),
            Err("is an ancestor of the repository")
        );
        assert_eq!(
            check_worktree_path(Path::new("/"), &repo),
            Err("is the filesystem root")
        );
        std::fs::create_dir_all(tmp.join("taken")).unwrap();
        assert_eq!(
            check_worktree_path(&tmp.join("taken"), &repo),
            Err("already exists")
        );
        assert!(check_worktree_path(&tmp.join("repo.feature-x"), &repo).is_ok());
        // A symlinked parent is resolved before the rules apply.
        #[cfg(unix)]
        {
            std::os::unix::fs::symlink(&repo, tmp.join("link")).unwrap();
            assert_eq!(
                check_worktree_path(&tmp.join("link/.git/x"), &repo),
                Err("is inside a .git directory")
            );
        }
        std::fs::remove_dir_all(&tmp).unwrap();
    }
}
