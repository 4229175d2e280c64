//! The layering, checked from the sources. The runtime crate: each top-level module names only
//! the modules below it (`crate::<module>` paths, `use crate::{…}` groups included), so there is
//! no cycle between them, and `hooks` stays pure data. The `paseo` CLI (`cli/`): the same for its
//! top-level modules, none of which names the crate root's own items; and inside the daemon
//! (`cli/daemon/`), whose jobs share the hub `Daemon` (mod.rs), no cycle between its submodules,
//! with `model`, `store` and `home` at the bottom.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

/// Top-level modules by layer: a module may use the ones in lower layers only (not its peers).
const LAYERS: &[&[&str]] = &[
    &["logs", "private_files"],
    &["hooks", "permissions"],
    &["engine"],
    &["node", "sdk"],
    &["tools", "providers"],
    &["host"],
];

/// The CLI's top-level modules (`cli/main.rs` is the crate root), by layer, the same way.
const CLI_LAYERS: &[&[&str]] = &[
    &["args", "daemon", "output", "scaffold"],
    &["bench", "demo", "dev", "throwaway"],
    &["commands"],
];

/// The daemon's submodules at the bottom: they name no other submodule but one another.
const DAEMON_BOTTOM: &[&str] = &["home", "model", "store"];

fn layer(module: &str) -> usize {
    layer_in(LAYERS, module)
}

fn layer_in(layers: &[&[&str]], module: &str) -> usize {
    layers
        .iter()
        .position(|l| l.contains(&module))
        .unwrap_or_else(|| panic!("module {module} has no layer in tests/layers.rs"))
}

fn rust_files(dir: &Path, out: &mut Vec<PathBuf>) {
    for entry in std::fs::read_dir(dir).unwrap().flatten() {
        let path = entry.path();
        if path.is_dir() {
            rust_files(&path, out);
        } else if path.extension().is_some_and(|e| e == "rs") {
            out.push(path);
        }
    }
}

/// The source's code: comments left out, and every string and char literal emptied (`""`), so
/// that neither a path in a comment or a message nor a brace in a literal is read as code.
fn code(source: &str) -> String {
    let s: Vec<char> = source.chars().collect();
    let starts_token = |j: usize| j == 0 || !is_ident(s[j - 1]);
    let at = |j: usize| s.get(j).copied();
    let mut out = String::with_capacity(source.len());
    let mut i = 0;
    while i < s.len() {
        match s[i] {
            '/' if at(i + 1) == Some('/') => {
                while i < s.len() && s[i] != '\n' {
                    i += 1;
                }
            }
            '/' if at(i + 1) == Some('*') => {
                let mut depth = 0;
                while i < s.len() {
                    if s[i] == '/' && at(i + 1) == Some('*') {
                        depth += 1;
                        i += 2;
                    } else if s[i] == '*' && at(i + 1) == Some('/') {
                        depth -= 1;
                        i += 2;
                        if depth == 0 {
                            break;
                        }
                    } else {
                        i += 1;
                    }
                }
                out.push(' ');
            }
            '"' => {
                i += 1;
                while i < s.len() && s[i] != '"' {
                    i += if s[i] == '\\' { 2 } else { 1 };
                }
                i += 1;
                out.push_str("\"\"");
            }
            // A raw string (`r"…"`, `r#"…"#`, `br"…"`).
            'r' if (starts_token(i) || (s[i - 1] == 'b' && starts_token(i - 1)))
                && matches!(at(i + 1), Some('"' | '#')) =>
            {
                let hashes = s[i + 1..].iter().take_while(|c| **c == '#').count();
                if s.get(i + 1 + hashes) != Some(&'"') {
                    out.push('r');
                    i += 1;
                    continue;
                }
                let close: String = std::iter::once('"')
                    .chain("#".repeat(hashes).chars())
                    .collect();
                let body: String = s[i + 2 + hashes..].iter().collect();
                let len = body.find(&close).map_or(body.len(), |at| at + close.len());
                i += 2 + hashes + body[..len].chars().count();
                out.push_str("\"\"");
            }
            // A char literal (`'x'`, `'\n'`, `'\u{7b}'`), not a lifetime (`'a`).
            '\'' if at(i + 1) == Some('\\') => {
                i += 3;
                while i < s.len() && s[i] != '\'' {
                    i += 1;
                }
                i += 1;
                out.push_str("' '");
            }
            '\'' if at(i + 2) == Some('\'') => {
                i += 3;
                out.push_str("' '");
            }
            c => {
                out.push(c);
                i += 1;
            }
        }
    }
    out
}

fn is_ident(c: char) -> bool {
    c.is_ascii_alphanumeric() || c == '_'
}

/// Every path in `code` that starts with `root::` (`crate`, `super` or `self`), its `{…}`
/// groups expanded: where it starts, and its names after `root`. `crate::{a, b::{c, D as E}}`
/// gives `[a]`, `[b, c]`, `[b, D]`; `super::super::x` gives `[super, x]`; `crate::a::*` gives
/// `[a, *]`.
fn paths(code: &str, root: &str) -> Vec<(usize, Vec<String>)> {
    let prefix = format!("{root}::");
    let mut found = Vec::new();
    for (at, _) in code.match_indices(&prefix) {
        // Not the tail of a longer name or path (`xcrate::`, `super::super::`).
        if code[..at]
            .chars()
            .next_back()
            .is_some_and(|c| is_ident(c) || c == ':')
        {
            continue;
        }
        let mut rest = &code[at + prefix.len()..];
        for path in use_tree(&mut rest) {
            found.push((at, path));
        }
    }
    found
}

/// Reads a path or use tree (`a::b`, `a::{b, c::d}`, `*`, `a as b`) at the start of `s` and moves
/// `s` past it: each path it names.
fn use_tree(s: &mut &str) -> Vec<Vec<String>> {
    *s = s.trim_start();
    if let Some(group) = s.strip_prefix('{') {
        *s = group;
        let mut all = Vec::new();
        loop {
            *s = s.trim_start();
            if let Some(after) = s.strip_prefix('}') {
                *s = after;
                break;
            }
            if s.is_empty() {
                break;
            }
            all.extend(use_tree(s).into_iter().filter(|p| !p.is_empty()));
            // ` as alias`, then `,` or the group's end.
            let end = s.find([',', '}']).unwrap_or(s.len());
            *s = &s[end..];
            if let Some(after) = s.strip_prefix(',') {
                *s = after;
            }
        }
        return all;
    }
    let name: String = if s.starts_with('*') {
        "*".into()
    } else {
        s.chars().take_while(|c| is_ident(*c)).collect()
    };
    *s = &s[name.len()..];
    if name.is_empty() {
        return vec![Vec::new()];
    }
    match s.trim_start().strip_prefix("::") {
        Some(after) => {
            *s = after;
            use_tree(s)
                .into_iter()
                .map(|p| std::iter::once(name.clone()).chain(p).collect())
                .collect()
        }
        None => vec![vec![name]],
    }
}

/// The top-level modules a source names through `crate::`, comments left out.
fn named_modules(source: &str) -> BTreeSet<String> {
    paths(&code(source), "crate")
        .into_iter()
        .filter_map(|(_, path)| path.into_iter().next())
        .filter(|name| name != "*")
        .collect()
}

/// The module a source file is, from its path under the crate's source folder:
/// `daemon/install/mod.rs` is `[daemon, install]`, the crate root (`main.rs`, `lib.rs`) `[]`.
fn module_of(relative: &Path) -> Vec<String> {
    let mut module: Vec<String> = relative
        .with_extension("")
        .components()
        .map(|c| c.as_os_str().to_string_lossy().into_owned())
        .collect();
    if matches!(module.last().map(String::as_str), Some("mod"))
        || (module.len() == 1 && matches!(module[0].as_str(), "main" | "lib"))
    {
        module.pop();
    }
    module
}

/// The inline modules of `code` (`mod tests { … }`): their names and the ranges of their bodies.
fn inline_modules(code: &str) -> Vec<(std::ops::Range<usize>, String)> {
    let mut found = Vec::new();
    for (at, _) in code.match_indices("mod ") {
        if code[..at].chars().next_back().is_some_and(is_ident) {
            continue;
        }
        let rest = code[at + 4..].trim_start();
        let name: String = rest.chars().take_while(|c| is_ident(*c)).collect();
        let Some(body) = rest[name.len()..].trim_start().strip_prefix('{') else {
            continue;
        };
        let start = code.len() - body.len();
        let mut depth = 0;
        let mut end = code.len();
        for (i, c) in body.char_indices() {
            match c {
                '{' => depth += 1,
                '}' if depth == 0 => {
                    end = start + i;
                    break;
                }
                '}' => depth -= 1,
                _ => {}
            }
        }
        found.push((start..end, name));
    }
    found
}

/// Every path a source file names through `crate::`, `super::` or `self::`, made absolute (from
/// the crate root): `super::` and `self::` are resolved against the module the path is written
/// in, which is the file's (`module`) or an inline module in it. Other paths (`foo::bar` after a
/// `use`) reach only the module's own children or what it imported, so these are all it names.
fn absolute_paths(source: &str, module: &[String]) -> Vec<Vec<String>> {
    let code = code(source);
    let inline = inline_modules(&code);
    let module_at = |at: usize| -> Vec<String> {
        let mut here = module.to_vec();
        here.extend(
            inline
                .iter()
                .filter(|(body, _)| body.contains(&at))
                .map(|(_, name)| name.clone()),
        );
        here
    };
    let mut found: Vec<Vec<String>> = paths(&code, "crate")
        .into_iter()
        .map(|(_, path)| path)
        .collect();
    for (at, path) in paths(&code, "self") {
        found.push(module_at(at).into_iter().chain(path).collect());
    }
    for (at, path) in paths(&code, "super") {
        let mut base = module_at(at);
        base.pop();
        let mut names = path.into_iter().peekable();
        while names.next_if(|n| n == "super").is_some() {
            base.pop();
        }
        found.push(base.into_iter().chain(names).collect());
    }
    found
}

#[test]
fn each_module_uses_only_the_layers_below_it() {
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("runtime/src");
    let mut files = Vec::new();
    rust_files(&src, &mut files);
    let mut violations = Vec::new();
    for file in &files {
        let relative = file.strip_prefix(&src).unwrap();
        let first = relative
            .components()
            .next()
            .unwrap()
            .as_os_str()
            .to_string_lossy();
        let module = first.trim_end_matches(".rs").to_string();
        if module == "lib" {
            continue;
        }
        let source = std::fs::read_to_string(file).unwrap();
        for named in named_modules(&source) {
            if named != module && layer(&named) >= layer(&module) {
                violations.push(format!("{} uses crate::{named}", relative.display()));
            }
        }
    }
    assert!(
        violations.is_empty(),
        "layering broken:\n{}",
        violations.join("\n")
    );
}

#[test]
fn the_check_reads_paths_and_groups() {
    let names = named_modules(
        "use crate::host::PluginHost;\nuse crate::{engine::{A, B}, logs};\n// crate::tools\nlet x = crate::sdk::f();",
    );
    let names: Vec<&str> = names.iter().map(String::as_str).collect();
    assert_eq!(names, ["engine", "host", "logs", "sdk"]);
}

fn cli() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("cli")
}

/// The modules a folder holds: its `.rs` files (but `mod.rs`) and its subfolders.
fn submodules(dir: &Path, skip: &[&str]) -> BTreeSet<String> {
    std::fs::read_dir(dir)
        .unwrap()
        .flatten()
        .map(|e| e.path())
        .filter(|p| p.is_dir() || p.extension().is_some_and(|e| e == "rs"))
        .map(|p| p.file_stem().unwrap().to_string_lossy().into_owned())
        .filter(|name| name != "mod" && !skip.contains(&name.as_str()))
        .collect()
}

#[test]
fn each_cli_module_uses_only_the_layers_below_it() {
    let src = cli();
    let modules = submodules(&src, &["main"]);
    for module in &modules {
        layer_in(CLI_LAYERS, module);
    }
    let mut files = Vec::new();
    rust_files(&src, &mut files);
    let mut violations = Vec::new();
    for file in &files {
        let relative = file.strip_prefix(&src).unwrap();
        let module = module_of(relative);
        // The crate root (main.rs) declares them all.
        let Some(own) = module.first() else {
            continue;
        };
        let source = std::fs::read_to_string(file).unwrap();
        let named: BTreeSet<String> = absolute_paths(&source, &module)
            .into_iter()
            .filter_map(|path| path.into_iter().next())
            .collect();
        for named in named {
            if &named == own {
                continue;
            }
            if !modules.contains(&named) {
                violations.push(format!(
                    "{} uses crate::{named}, an item of the crate root (main.rs)",
                    relative.display()
                ));
            } else if layer_in(CLI_LAYERS, &named) >= layer_in(CLI_LAYERS, own) {
                violations.push(format!("{} uses crate::{named}", relative.display()));
            }
        }
    }
    assert!(
        violations.is_empty(),
        "CLI layering broken:\n{}",
        violations.join("\n")
    );
}

/// The names `code` defines as items at any depth (`fn`, `struct`, `const`, …): for mod.rs,
/// what a submodule may name of the hub.
fn defined_items(code: &str) -> BTreeSet<String> {
    let mut items = BTreeSet::new();
    for keyword in [
        "fn ", "struct ", "enum ", "const ", "static ", "type ", "trait ", "union ",
    ] {
        for (at, _) in code.match_indices(keyword) {
            if code[..at].chars().next_back().is_some_and(is_ident) {
                continue;
            }
            let name: String = code[at + keyword.len()..]
                .trim_start()
                .chars()
                .take_while(|c| is_ident(*c))
                .collect();
            items.insert(name);
        }
    }
    items.retain(|n| !n.is_empty());
    items
}

/// The daemon's graph: for each submodule, the submodules it names and the files that name
/// them; and what a submodule names in the daemon that is neither a submodule nor the hub's.
///
/// `super::` is resolved against each file's own position (and inline modules in it), so
/// `install/sources/fetch.rs` naming `super::records` stays inside `install`, and
/// `install/mod.rs` naming `super::store` is `install` naming `store`; `crate::daemon::…`
/// counts from anywhere under `cli/daemon/`. mod.rs, the hub, is not a submodule: it declares
/// them all, and naming the items it defines (`Daemon`, `check_title`) is allowed.
type Graph = BTreeMap<String, BTreeMap<String, BTreeSet<String>>>;

fn daemon_graph() -> (Graph, Vec<String>) {
    let src = cli();
    let dir = src.join("daemon");
    let subs = submodules(&dir, &[]);
    let hub = defined_items(&code(&std::fs::read_to_string(dir.join("mod.rs")).unwrap()));
    let mut files = Vec::new();
    rust_files(&dir, &mut files);
    let mut graph = Graph::new();
    let mut violations = Vec::new();
    for file in &files {
        let relative = file.strip_prefix(&src).unwrap();
        let module = module_of(relative);
        let [_, own, ..] = module.as_slice() else {
            continue;
        };
        graph.entry(own.clone()).or_default();
        let source = std::fs::read_to_string(file).unwrap();
        for path in absolute_paths(&source, &module) {
            let [first, named, ..] = path.as_slice() else {
                continue;
            };
            if first != "daemon" || named == own || named == "self" {
                continue;
            }
            if subs.contains(named) {
                graph
                    .entry(own.clone())
                    .or_default()
                    .entry(named.clone())
                    .or_default()
                    .insert(relative.display().to_string());
            } else if !hub.contains(named) {
                violations.push(format!(
                    "{} uses daemon::{named}, neither a submodule nor an item of daemon/mod.rs",
                    relative.display()
                ));
            }
        }
    }
    (graph, violations)
}

/// A cycle in `graph`, as the modules around it (the first one again at the end).
fn find_cycle(graph: &Graph) -> Option<Vec<String>> {
    fn visit(
        graph: &Graph,
        node: &str,
        stack: &mut Vec<String>,
        done: &mut BTreeSet<String>,
    ) -> Option<Vec<String>> {
        if let Some(at) = stack.iter().position(|n| n == node) {
            let mut cycle = stack[at..].to_vec();
            cycle.push(node.to_string());
            return Some(cycle);
        }
        if done.contains(node) {
            return None;
        }
        stack.push(node.to_string());
        for next in graph.get(node).into_iter().flat_map(|e| e.keys()) {
            if let Some(cycle) = visit(graph, next, stack, done) {
                return Some(cycle);
            }
        }
        stack.pop();
        done.insert(node.to_string());
        None
    }
    let mut done = BTreeSet::new();
    graph
        .keys()
        .find_map(|node| visit(graph, node, &mut Vec::new(), &mut done))
}

#[test]
fn the_daemon_submodules_name_one_another_without_a_cycle() {
    let (graph, mut violations) = daemon_graph();
    for bottom in DAEMON_BOTTOM {
        assert!(
            graph.contains_key(*bottom),
            "no daemon submodule {bottom} (DAEMON_BOTTOM in tests/layers.rs)"
        );
        for (named, by) in &graph[*bottom] {
            if !DAEMON_BOTTOM.contains(&named.as_str()) {
                for file in by {
                    violations.push(format!(
                        "{file} uses daemon::{named}, above the bottom ({})",
                        DAEMON_BOTTOM.join(", ")
                    ));
                }
            }
        }
    }
    if let Some(cycle) = find_cycle(&graph) {
        let steps: Vec<String> = cycle
            .windows(2)
            .map(|w| {
                let by: Vec<&str> = graph[&w[0]][&w[1]].iter().map(String::as_str).collect();
                format!("{} -> {} ({})", w[0], w[1], by.join(", "))
            })
            .collect();
        violations.push(format!("a cycle: {}", steps.join("; ")));
    }
    assert!(
        violations.is_empty(),
        "daemon layering broken:\n{}",
        violations.join("\n")
    );
}

#[test]
fn the_check_resolves_super_and_skips_literals_and_inline_modules() {
    let source = r##"
use super::{Daemon, model::{A, B as C}, store};
use crate::daemon::{control, Daemon as Hub};
pub(in crate::daemon) fn f() -> crate::daemon::turns::T {
    let _ = ("crate::daemon::agents", r#"super::plugins"#, '{', 'x');
    super::super::output::cell()
}
// super::permissions
/* crate::daemon::sdk */
mod tests {
    use super::*;
    use super::helper;
}
fn g<'a>(s: &'a str) -> &'a str { self::h(s) }
"##;
    let module = ["daemon".to_string(), "agents".to_string()];
    let mut read: Vec<String> = absolute_paths(source, &module)
        .iter()
        .map(|p| p.join("::"))
        .collect();
    read.sort();
    assert_eq!(
        read,
        [
            "daemon",
            "daemon::Daemon",
            "daemon::Daemon",
            "daemon::agents::*",
            "daemon::agents::h",
            "daemon::agents::helper",
            "daemon::control",
            "daemon::model::A",
            "daemon::model::B",
            "daemon::store",
            "daemon::turns::T",
            "output::cell",
        ]
    );
    // From a nested folder's file, `super::` is that folder.
    let nested = ["daemon", "install", "sources", "fetch"].map(String::from);
    let read: Vec<String> = absolute_paths(
        "use super::records; use super::super::super::store;",
        &nested,
    )
    .iter()
    .map(|p| p.join("::"))
    .collect();
    assert_eq!(read, ["daemon::install::sources::records", "daemon::store"]);
    assert_eq!(
        defined_items("pub struct Daemon {}\nimpl Daemon { fn say() {} }\nfn check_title() {}"),
        ["Daemon", "check_title", "say"].map(String::from).into()
    );
}
