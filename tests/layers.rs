//! The engine's layering, checked from the sources: each top-level module of the runtime
//! crate names only the modules below it (`crate::<module>` paths, `use crate::{…}` groups
//! included), so there is no cycle between them, and `hooks` stays pure data.

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

/// Top-level modules by layer: a module may use the ones in lower layers only (not its peers).
const LAYERS: &[&[&str]] = &[
    &["logs", "private_files"],
    &["hooks"],
    &["engine"],
    &["node", "sdk"],
    &["tools", "providers"],
    &["host"],
];

fn layer(module: &str) -> usize {
    LAYERS
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

/// The top-level modules a source names through `crate::`, comments left out.
fn named_modules(source: &str) -> BTreeSet<String> {
    let code: String = source
        .lines()
        .map(|l| l.split("//").next().unwrap_or_default())
        .collect::<Vec<_>>()
        .join("\n");
    let ident = |s: &str| -> String {
        s.chars()
            .take_while(|c| c.is_ascii_alphanumeric() || *c == '_')
            .collect()
    };
    let mut names = BTreeSet::new();
    for (at, _) in code.match_indices("crate::") {
        let rest = &code[at + "crate::".len()..];
        if let Some(group) = rest.strip_prefix('{') {
            // `crate::{a, b::c, d::{e, f}}`: the names at the group's top level.
            let mut depth = 0;
            let mut start = true;
            for (i, c) in group.char_indices() {
                match c {
                    '{' => depth += 1,
                    '}' if depth == 0 => break,
                    '}' => depth -= 1,
                    ',' if depth == 0 => start = true,
                    c if start && !c.is_whitespace() => {
                        start = false;
                        names.insert(ident(&group[i..]));
                    }
                    _ => {}
                }
            }
        } else {
            names.insert(ident(rest));
        }
    }
    names.retain(|n| !n.is_empty());
    names
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
