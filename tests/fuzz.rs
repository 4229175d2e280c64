//! Property tests (proptest) of what plugins can hand back to the host: the result of every
//! request hook (`check_result`) and the `worktree.create.before` target path rules
//! (`check_worktree_path`). Nothing panics, every rejection is one of the documented forms and
//! names a field that is really there, and an accepted path obeys the rules.

use std::ffi::OsString;
use std::path::{Component, Path, PathBuf};
use std::sync::LazyLock;

use paseo_plugin_runtime::hooks::catalogue;
use paseo_plugin_runtime::hooks::catalogue::HookSpec;
use paseo_plugin_runtime::hooks::validate::{check_input, check_result, check_worktree_path};
use proptest::prelude::*;
use proptest::test_runner::Config;
use serde_json::{json, Value};

/// Cases per property: enough to reach every rule (validation takes microseconds), few enough
/// to run in well under a second.
fn config() -> Config {
    Config {
        cases: 1024,
        failure_persistence: None,
        ..Config::default()
    }
}

/// A scratch tree with a repository, files and symlinks of every awkward kind.
struct Tree {
    _dir: tempfile::TempDir,
    base: PathBuf,
}

static TREE: LazyLock<Tree> = LazyLock::new(|| {
    let dir = tempfile::tempdir().unwrap();
    let base = dir.path().canonicalize().unwrap();
    std::fs::create_dir_all(base.join("repo/.git/objects")).unwrap();
    std::fs::create_dir_all(base.join("repo/src")).unwrap();
    std::fs::write(base.join("file"), "").unwrap();
    let link =
        |target: &Path, name: &str| std::os::unix::fs::symlink(target, base.join(name)).unwrap();
    link(&base.join("repo"), "link-repo");
    link(&base.join("repo/.git/objects"), "link-git");
    link(Path::new("/"), "link-root");
    link(&base.join("missing/deeper"), "dangling");
    link(&base.join("repo/.git/new"), "dangling-git");
    link(&base.join("loop"), "loop");
    Tree { _dir: dir, base }
});

const KEYS: &[&str] = &[
    "agentId",
    "workspaceId",
    "provider",
    "cwd",
    "title",
    "labels",
    "tools",
    "mcpServers",
    "reason",
    "purpose",
    "env",
    "config",
    "initialPrompt",
    "model",
    "modeId",
    "toolPolicy",
    "preapproved",
    "source",
    "kind",
    "path",
    "action",
    "firstAgentContext",
    "idempotencyKey",
    "branch",
    "slug",
    "baseRef",
    "repoRoot",
    "sourceCheckout",
    "changeRequestNumber",
    "checkoutRefs",
    "remoteRef",
    "name",
    "description",
    "inputSchema",
    "type",
    "command",
    "url",
    "args",
    "headers",
    "bogus",
    "0",
    "a/b",
    "~1",
    "~0x",
    "",
    "x y",
];

const STRINGS: &[&str] = &[
    "",
    "codex",
    "claude",
    "stdio",
    "http",
    "directory",
    "worktree",
    "branch-off",
    "checkout-branch",
    "create",
    "resume",
    "interactive",
    "history",
    "mcp",
    "good_name",
    "Bad-Name",
    "/",
    "relative/path",
    "../..",
    ".git",
    "/projects/shop",
];

/// Paths under the scratch tree (and a few others) that strings may take.
fn tree_strings() -> Vec<String> {
    let b = TREE.base.display();
    [
        "repo",
        "repo/.git/x",
        "repo/..",
        "link-git/../wt",
        "dangling-git/x",
        "file",
        "new-wt",
        "repo.feature-x",
    ]
    .iter()
    .map(|p| format!("{b}/{p}"))
    .chain([format!("{b}"), "/".into()])
    .collect()
}

fn string() -> BoxedStrategy<String> {
    prop_oneof![
        prop::sample::select(STRINGS).prop_map(String::from),
        prop::sample::select(tree_strings()),
        "\\PC{0,12}",
    ]
    .boxed()
}

fn json_value() -> BoxedStrategy<Value> {
    let leaf = prop_oneof![
        Just(Value::Null),
        any::<bool>().prop_map(Value::Bool),
        any::<i64>().prop_map(Value::from),
        (-1e6f64..1e6).prop_map(Value::from),
        string().prop_map(Value::String),
    ];
    leaf.prop_recursive(3, 32, 5, |inner| {
        prop_oneof![
            prop::collection::vec(inner.clone(), 0..4).prop_map(Value::Array),
            prop::collection::vec((prop::sample::select(KEYS), inner), 0..5).prop_map(|kv| {
                Value::Object(kv.into_iter().map(|(k, v)| (k.to_string(), v)).collect())
            }),
        ]
    })
    .boxed()
}

/// What a handler may return, in terms of the request it was given.
#[derive(Debug, Clone)]
enum Output {
    /// Something else entirely.
    Whole(Value),
    /// The request with some fields set or removed: each edit picks a place that exists in the
    /// request (any depth, the root included), maybe goes a few unknown keys deeper, and sets a
    /// value there (`Some`) or removes it (`None`).
    Edits(Vec<(prop::sample::Index, Vec<&'static str>, Option<Value>)>),
}

fn output() -> impl Strategy<Value = Output> {
    let deeper = prop_oneof![3 => Just(vec![]), 1 => prop::collection::vec(prop::sample::select(KEYS), 1..3)];
    let value = prop_oneof![3 => string().prop_map(Value::String), 2 => json_value()];
    prop_oneof![
        1 => json_value().prop_map(Output::Whole),
        4 => prop::collection::vec((any::<prop::sample::Index>(), deeper, prop::option::weighted(0.8, value)), 1..4)
            .prop_map(Output::Edits),
    ]
}

#[derive(Debug, Clone)]
enum Seg {
    Key(String),
    Index(usize),
}

/// Every place in `value`: the root, then each member and item, depth first.
fn places(value: &Value, at: Vec<Seg>, out: &mut Vec<Vec<Seg>>) {
    out.push(at.clone());
    let children: Vec<(Seg, &Value)> = match value {
        Value::Object(map) => map.iter().map(|(k, v)| (Seg::Key(k.clone()), v)).collect(),
        Value::Array(items) => items
            .iter()
            .enumerate()
            .map(|(i, v)| (Seg::Index(i), v))
            .collect(),
        _ => vec![],
    };
    for (seg, child) in children {
        let mut path = at.clone();
        path.push(seg);
        places(child, path, out);
    }
}

/// The place `seg` under `value`, made to exist (a scalar in the way becomes an object/array).
fn slot<'v>(value: &'v mut Value, seg: &Seg) -> &'v mut Value {
    match seg {
        Seg::Key(key) => {
            if !value.is_object() {
                *value = json!({});
            }
            value
                .as_object_mut()
                .unwrap()
                .entry(key.clone())
                .or_insert(Value::Null)
        }
        Seg::Index(i) => {
            if !value.is_array() {
                *value = json!([]);
            }
            let items = value.as_array_mut().unwrap();
            items.resize(items.len().max(i + 1), Value::Null);
            &mut items[*i]
        }
    }
}

fn apply(previous: &Value, out: Output) -> Value {
    let edits = match out {
        Output::Whole(v) => return v,
        Output::Edits(edits) => edits,
    };
    let mut all = Vec::new();
    places(previous, vec![], &mut all);
    let mut value = previous.clone();
    for (pick, deeper, new) in edits {
        let mut path = all[pick.index(all.len())].clone();
        path.extend(deeper.iter().map(|k| Seg::Key(k.to_string())));
        let Some((last, parents)) = path.split_last() else {
            value = new.unwrap_or(Value::Null);
            continue;
        };
        let parent = parents.iter().fold(&mut value, slot);
        match (new, last, parent) {
            (Some(v), seg, parent) => *slot(parent, seg) = v,
            (None, Seg::Key(k), Value::Object(map)) => {
                map.remove(k);
            }
            (None, Seg::Index(i), Value::Array(items)) if *i < items.len() => {
                items.remove(*i);
            }
            (None, ..) => {}
        }
    }
    value
}

/// A valid request of each request hook, as the daemon would pass it.
fn valid_request(hook: &str) -> Value {
    let b = TREE.base.display();
    match hook {
        "workspace.create.before" => {
            json!({ "source": { "kind": "directory", "path": "/projects/shop" }, "title": "Shop" })
        }
        "worktree.create.before" => json!({
            "kind": "branch-off", "branch": "feature-x", "slug": "feature-x", "baseRef": "main",
            "path": format!("{b}/repo.feature-x"), "repoRoot": format!("{b}/repo"), "sourceCheckout": format!("{b}/repo"),
        }),
        "agent.create.before" => {
            json!({ "config": { "provider": "codex", "cwd": "/projects/shop", "model": "gpt" }, "initialPrompt": "hi", "env": { "A": "1" } })
        }
        "agent.open.before" => json!({
            "agentId": "agent-1", "workspaceId": null, "provider": "codex", "cwd": "/projects/shop", "title": null,
            "labels": { "team": "shop" }, "reason": "create", "purpose": "interactive", "env": { "A": "1" },
            "tools": [{ "name": "note", "description": "Adds a note", "inputSchema": { "type": "object" } }],
            "mcpServers": { "files": { "type": "stdio", "command": "mcp-files" } },
        }),
        other => panic!("no request for {other}"),
    }
}

fn request_hooks() -> Vec<&'static HookSpec> {
    catalogue().iter().filter(|h| h.returns_request).collect()
}

/// Whether `path` (as `field_path` writes it: `a.b[0].c`, `(root)`) leads somewhere in `value`.
fn resolves(value: &Value, path: &str) -> bool {
    if path == "(root)" {
        return true;
    }
    let mut at = value;
    for part in path.split('.') {
        let (name, indices) = part
            .split_once('[')
            .map_or((part, ""), |(n, rest)| (n, rest));
        if !name.is_empty() || indices.is_empty() {
            match at.get(name) {
                Some(v) => at = v,
                None => return false,
            }
        }
        for index in indices.split('[').filter(|s| !s.is_empty()) {
            let index = index.trim_end_matches(']');
            // `[0]` is also how a key "0" of an object is written.
            let next = match at {
                Value::Array(items) => index.parse::<usize>().ok().and_then(|i| items.get(i)),
                other => other.get(index),
            };
            match next {
                Some(v) => at = v,
                None => return false,
            }
        }
    }
    true
}

const PATH_RULES: &[&str] = &[
    "must be an absolute path",
    "is the filesystem root",
    "is the home directory",
    "is the repository root",
    "is an ancestor of the repository",
    "is inside a .git directory",
    "already exists",
];

/// Checks a rejection against the documented forms; returns what is wrong with it.
fn explain(hook: &HookSpec, previous: &Value, output: &Value, message: &str) -> Result<(), String> {
    let name = &hook.name;
    if let Some(rest) = message.strip_prefix("invalid request: ") {
        if !output.is_object() {
            let kind = match output {
                Value::Null => "null",
                Value::Bool(_) => "boolean",
                Value::Number(_) => "number",
                Value::String(_) => "string",
                _ => "array",
            };
            return (rest == format!("expected an object or undefined, got {kind}"))
                .then_some(())
                .ok_or("wrong root rule".into());
        }
        if let (Some(field), Some(path)) =
            (&hook.check_path, output.get("path").and_then(Value::as_str))
        {
            if let Some(rule) = rest.strip_prefix(&format!("{field} {path:?} ")) {
                return PATH_RULES
                    .contains(&rule)
                    .then_some(())
                    .ok_or(format!("undocumented path rule {rule:?}"));
            }
        }
        let field = rest.split_once(": ").ok_or("no field named")?.0;
        return (resolves(output, field) || resolves(previous, field))
            .then_some(())
            .ok_or(format!("the field {field:?} is not in the result"));
    }
    if let Some(rest) = message.strip_prefix(&format!("{name} hooks can only change ")) {
        let mutable = hook
            .mutable
            .as_ref()
            .ok_or("a mutable-only rule on a hook without one")?;
        let changed = rest
            .rsplit_once(" (changed: ")
            .ok_or("no changed fields named")?
            .1
            .trim_end_matches(')');
        for field in changed.split(", ") {
            if mutable.iter().any(|m| m == field) || previous.get(field) == output.get(field) {
                return Err(format!("{field} is not a changed read-only field"));
            }
        }
        return Ok(());
    }
    if hook
        .readonly
        .iter()
        .any(|ro| message == format!("{name} hooks {} ({})", ro.rule, ro.field))
    {
        return Ok(());
    }
    Err("not a documented form".into())
}

proptest! {
    #![proptest_config(config())]

    #[test]
    fn every_request_hook_result_is_accepted_valid_or_rejected_naming_the_field(
        hook in prop::sample::select(request_hooks().iter().map(|h| h.name.clone()).collect::<Vec<_>>()),
        out in output(),
    ) {
        let spec = catalogue().get(&hook).unwrap();
        let previous = valid_request(&hook);
        let output = apply(&previous, out);
        match check_result(spec, &previous, output.clone()) {
            // What is accepted is what the next handler and the daemon can rely on.
            Ok(accepted) => prop_assert_eq!(check_input(spec, &accepted), Ok(())),
            Err(message) => {
                let verdict = explain(spec, &previous, &output, &message);
                prop_assert!(verdict.is_ok(), "{}: {:?} for {}", hook, message, output);
            }
        }
    }
}

#[test]
fn the_valid_requests_are_valid_and_returning_them_unchanged_is_accepted() {
    let hooks = request_hooks();
    assert_eq!(hooks.len(), 4);
    for spec in hooks {
        let request = valid_request(&spec.name);
        assert_eq!(check_input(spec, &request), Ok(()), "{}", spec.name);
        assert_eq!(
            check_result(spec, &request, request.clone()),
            Ok(request),
            "{}",
            spec.name
        );
    }
}

const SEGMENTS: &[&str] = &[
    ".",
    "..",
    ".git",
    "",
    "repo",
    "src",
    "objects",
    "file",
    "link-repo",
    "link-git",
    "link-root",
    "dangling",
    "dangling-git",
    "loop",
    "missing",
    "new",
    "wt",
];

fn home() -> String {
    std::env::var("HOME").unwrap_or_default()
}

/// A path: absolute under the tree, under $HOME or from `/`, or relative; then some segments.
fn path() -> impl Strategy<Value = PathBuf> {
    let start = prop_oneof![
        Just(TREE.base.display().to_string()),
        Just(home()),
        Just(String::new()),
        Just("rel".to_string())
    ];
    (
        start,
        prop::collection::vec(prop::sample::select(SEGMENTS), 0..5),
        any::<bool>(),
    )
        .prop_map(|(start, segs, slash)| {
            let mut p = format!("{start}/{}", segs.join("/"));
            if slash {
                p.push('/');
            }
            if p.starts_with("rel/") {
                p = p["rel/".len()..].to_string();
            }
            PathBuf::from(p)
        })
}

fn repo_root() -> impl Strategy<Value = PathBuf> {
    prop::sample::select(vec!["repo", "link-repo", "repo/.", "repo/src/.."])
        .prop_map(|r| TREE.base.join(r))
}

/// Where the OS would put `path` (`realpath -m`): symlinks are followed, dangling ones too, and
/// `..` applies to the resolved directory.
fn os_resolve(path: &Path) -> PathBuf {
    let mut out = PathBuf::from("/");
    let mut todo: Vec<OsString> = path
        .components()
        .rev()
        .map(|c| c.as_os_str().to_owned())
        .collect();
    let mut hops = 0;
    while let Some(part) = todo.pop() {
        match Path::new(&part).components().next() {
            Some(Component::RootDir) => out = PathBuf::from("/"),
            Some(Component::ParentDir) => {
                out.pop();
            }
            Some(Component::Normal(name)) => {
                out.push(name);
                if let Ok(target) = std::fs::read_link(&out) {
                    hops += 1;
                    if hops > 40 {
                        return out; // a loop: stays where it is, which exists
                    }
                    out.pop();
                    todo.extend(target.components().rev().map(|c| c.as_os_str().to_owned()));
                }
            }
            _ => {}
        }
    }
    out
}

proptest! {
    #![proptest_config(config())]

    #[test]
    fn worktree_path_rejections_are_the_documented_rules(path in path(), repo in repo_root()) {
        match check_worktree_path(&path, &repo) {
            Ok(()) => {
                prop_assert!(path.is_absolute());
                prop_assert!(path.symlink_metadata().is_err(), "{} exists", path.display());
            }
            Err(rule) => {
                prop_assert!(PATH_RULES.contains(&rule), "undocumented rule {:?}", rule);
                if !path.is_absolute() {
                    prop_assert_eq!(rule, "must be an absolute path");
                }
            }
        }
    }

    #[test]
    fn an_accepted_worktree_path_obeys_the_rules_where_the_os_puts_it(path in path(), repo in repo_root()) {
        if check_worktree_path(&path, &repo).is_ok() {
            let target = os_resolve(&path);
            let repo = os_resolve(&repo);
            let shown = format!("{} (really {})", path.display(), target.display());
            prop_assert!(target.parent().is_some(), "{} is the filesystem root", shown);
            prop_assert!(target != os_resolve(Path::new(&home())), "{} is the home directory", shown);
            prop_assert!(target != repo && !repo.starts_with(&target), "{} is the repository or above it", shown);
            prop_assert!(!target.components().any(|c| c.as_os_str() == ".git"), "{} is inside .git", shown);
            prop_assert!(target.symlink_metadata().is_err(), "{} already exists", shown);
        }
    }
}

/// The two holes the property above finds, as plain cases.
#[test]
fn worktree_path_behind_a_symlink_is_judged_where_the_os_puts_it() {
    let base = &TREE.base;
    let repo = base.join("repo");
    // link-git -> repo/.git/objects, so link-git/../wt is repo/.git/wt.
    assert_eq!(
        check_worktree_path(&base.join("link-git/../wt"), &repo),
        Err("is inside a .git directory")
    );
    // dangling-git -> repo/.git/new (missing), so dangling-git/x is repo/.git/new/x.
    assert_eq!(
        check_worktree_path(&base.join("dangling-git/x"), &repo),
        Err("is inside a .git directory")
    );
}
